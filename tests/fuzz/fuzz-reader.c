/* fuzz-reader.c — fuzz target: a whole recording file through the reader and the report. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/crc32c.h"
#include "format/format.h"
#include "fuzz.h"
#include "fuzz-report.h"

/* Recompute the CRC of every frame descriptor in buf: a mutated descriptor field then gets
 * past the CRC check, so the reader's length, sequence and time handling is fuzzed too. */
static void fix_crcs(uint8_t *buf, size_t size)
{
	for (size_t i = 0; i + sizeof(struct rp_frame_desc) <= size; i++) {
		struct rp_frame_desc d;

		memcpy(&d, buf + i, sizeof(d));
		if (d.skip_magic != RP_SKIPPABLE_MAGIC || d.magic != RP_DESC_MAGIC)
			continue;
		d.crc = crc32c(0, &d, offsetof(struct rp_frame_desc, crc));
		memcpy(buf + i, &d, sizeof(d));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct print_opts po = { .keys = { PRINT_COMM, PRINT_DSO, PRINT_SYM },
				 .n_keys = 3,
				 .children = true,
				 .graph = PRINT_GRAPH_CALLER,
				 .graph_threshold = 0.5 };
	struct session_opts so = { .warn = fuzz_quiet, .symfs = FUZZ_SYMFS };
	char path[64], why[256];
	int64_t start, end;
	uint8_t *fixed;
	int fd;

	fixed = malloc(size ? size : 1);
	if (!fixed)
		return 0;
	memcpy(fixed, data, size);
	fix_crcs(fixed, size);
	if (size && memcmp(fixed, data, size)) {
		fd = fuzz_memfile(data, size, path, sizeof(path));
		if (fd >= 0) {
			fuzz_read_all(path);
			close(fd);
		}
	}
	fd = fuzz_memfile(fixed, size, path, sizeof(path));
	free(fixed);
	if (fd < 0)
		return 0;
	fuzz_read_all(path);
	session_file_bounds(path, &start, &end, why, sizeof(why));
	fuzz_report(path, &so, &po);
	close(fd);
	return 0;
}
