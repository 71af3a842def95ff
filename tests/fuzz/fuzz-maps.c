/* fuzz-maps.c — fuzz target: /proc/PID/maps lines, one at a time and as a whole file. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "base/procfs.h"

static int count_map(const struct procfs_map *m, void *arg)
{
	/* Touch every byte handed out, so that a bad pointer shows up here. */
	*(size_t *)arg += strlen(m->path) + (m->end > m->start);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1), path[64];
	struct procfs_map m;
	size_t n = 0, n_bad;
	int fd;

	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = 0;
	if (procfs_parse_maps_line(line, &m) == 0)
		count_map(&m, &n);
	free(line);
	fd = fuzz_memfile(data, size, path, sizeof(path));
	if (fd >= 0) {
		procfs_read_maps_file(path, count_map, &n, &n_bad);
		close(fd);
	}
	return 0;
}
