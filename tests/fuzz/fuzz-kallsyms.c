/* fuzz-kallsyms.c — fuzz target: a /proc/kallsyms line, and the input as the body of an
 * RP_REC_KSYMS record fed to the kernel symbol table. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/format.h"
#include "fuzz.h"
#include "profile/ksymtab.h"
#include "base/procfs.h"

static int count_ksym(const struct procfs_ksym *k, void *arg)
{
	*(size_t *)arg += strlen(k->name) + (k->module ? strlen(k->module) : 0);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rp_ksyms_rec *rec;
	struct procfs_ksym k;
	struct ksymtab *t;
	char *line = malloc(size + 1), path[64];
	size_t n = 0, rec_size;
	int fd;

	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = 0;
	if (procfs_parse_kallsyms_line(line, &k) == 0)
		count_ksym(&k, &n);
	free(line);
	fd = fuzz_memfile(data, size, path, sizeof(path));
	if (fd >= 0) {
		procfs_read_kallsyms(path, count_ksym, &n, NULL);
		close(fd);
	}

	/* The record: the first 4 bytes are the entry count, the rest the packed entries; the
	 * header's size is the real one (records are at most 64 KiB) or, for odd inputs, a lie. */
	if (size < 4)
		return 0;
	rec_size = sizeof(*rec) + size - 4;
	rec = calloc(1, rec_size);
	t = ksymtab_new();
	if (rec && t) {
		rec->hdr.type = RP_REC_KSYMS;
		rec->hdr.size =
		    (size & 1) ? (uint16_t)(data[0] | data[1] << 8) : (uint16_t)rec_size;
		memcpy(&rec->n, data, 4);
		memcpy(rec + 1, data + 4, size - 4);
		ksymtab_add_record(t, rec, rec_size);
		ksymtab_finish(t);
		for (size_t i = 4; i + 8 <= size; i += 8) {
			uint64_t addr;
			const char *name, *module;
			uint64_t off;

			memcpy(&addr, data + i, 8);
			if (ksymtab_find(t, addr, &name, &module, &off) == 0)
				n += strlen(name) + (module ? strlen(module) : 0);
		}
		ksymtab_find(t, 0, NULL, NULL, NULL);
		ksymtab_find(t, UINT64_MAX, NULL, NULL, NULL);
	}
	ksymtab_free(t);
	free(rec);
	return 0;
}
