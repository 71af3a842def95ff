/* fuzz-frame.c — fuzz target: the input is the decompressed content of one intact frame, so
 * that record decoding, the process model and symbolization see hostile records that have
 * passed the frame checks (a raw fuzzer rarely gets past zstd's checksum). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "base/crc32c.h"
#include "format/format.h"
#include "fuzz.h"
#include "fuzz-report.h"
#include "format/zframe.h"

/* desc + zstd frame of DATA, padded with zeros to a multiple of 8 as records are. */
static unsigned char *make_file(struct zframe *z, const uint8_t *data, size_t size, size_t *ret_len)
{
	size_t raw_size = (size + 7) & ~(size_t)7, cap = zframe_bound(raw_size), zsize;
	unsigned char *raw = calloc(1, raw_size ? raw_size : 1);
	unsigned char *file = malloc(sizeof(struct rp_frame_desc) + cap);
	const struct rp_header_rec *h = (const void *)raw;
	struct rp_frame_desc d = {
		.skip_magic = RP_SKIPPABLE_MAGIC,
		.skip_size = sizeof(d) - 8,
		.magic = RP_DESC_MAGIC,
		.major = RP_FORMAT_MAJOR,
		.minor = RP_FORMAT_MINOR,
		.t_hi = UINT64_MAX / 2,
	};

	if (!raw || !file || raw_size > RP_FRAME_RAW_MAX)
		goto fail;
	memcpy(raw, data, size);
	if (raw_size >= sizeof(*h) && h->hdr.type == RP_REC_HEADER)
		d.sample_type = h->sample_type;
	if (zframe_compress(z, file + sizeof(d), cap, raw, raw_size, &zsize) < 0)
		goto fail;
	d.n_records = 1;
	d.raw_size = (uint32_t)raw_size;
	d.zsize = (uint32_t)zsize;
	d.crc = crc32c(0, &d, offsetof(struct rp_frame_desc, crc));
	memcpy(file, &d, sizeof(d));
	free(raw);
	*ret_len = sizeof(d) + zsize;
	return file;
fail:
	free(raw);
	free(file);
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct zframe *z;
	static const char *const comms[] = { "rp-worker", "true" }, *const dsos[] = { "libc.so.6" };
	static const int cpus[] = { 0 };
	uint8_t opt = size ? data[size - 1] : 0;
	struct print_opts po = { .keys = { PRINT_COMM, PRINT_PID, PRINT_DSO, PRINT_SYM, PRINT_CPU },
				 .n_keys = 5,
				 .graph = PRINT_GRAPH_CALLEE,
				 .graph_threshold = 1 };
	struct session_opts so = { .warn = fuzz_quiet, .inline_frames = true, .symfs = FUZZ_SYMFS };
	unsigned char *file;
	size_t len;
	char path[64];
	int fd;

	if (!z)
		z = zframe_new(1);
	if (!z)
		return 0;
	file = make_file(z, data, size, &len);
	if (!file)
		return 0;
	fd = fuzz_memfile(file, len, path, sizeof(path));
	free(file);
	/* The last byte picks the report options: filters, a time window, output variants. */
	if (opt & 1)
		so.max_stack = 2;
	if ((opt & 2) && size >= 17) {
		so.filter.have_since = so.filter.have_until = true;
		memcpy(&so.filter.since, data + size - 17, 8);
		memcpy(&so.filter.until, data + size - 9, 8);
	}
	if (opt & 4) {
		so.filter.comms = comms;
		so.filter.n_comms = 2;
		so.filter.dsos = dsos;
		so.filter.n_dsos = 1;
		so.filter.cpus = cpus;
		so.filter.n_cpus = 1;
	}
	if (opt & 8) {
		po.graph = PRINT_GRAPH_CALLER;
		po.children = true;
		po.percent_limit = 5;
	}
	if (fd < 0)
		return 0;
	fuzz_read_all(path);
	fuzz_report(path, &so, &po);
	close(fd);
	return 0;
}
