/* fuzz.h — shared by the fuzz targets: the libFuzzer entry point and input as a file. */
#ifndef RP_FUZZ_H
#define RP_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * An anonymous in-memory file holding DATA, for code that takes a path: the path written
 * to buf is /proc/self/fd/N. Returns the fd (the caller closes it) or -1.
 */
static inline int fuzz_memfile(const void *data, size_t size, char *path, size_t path_size)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);
	const char *p = data;

	if (fd < 0)
		return -1;
	while (size) {
		ssize_t n = write(fd, p, size);

		if (n <= 0) {
			close(fd);
			return -1;
		}
		p += n;
		size -= (size_t)n;
	}
	snprintf(path, path_size, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
