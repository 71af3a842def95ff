/* fuzz-symtab.c — fuzz target: the input as an ELF file through the helper's symbol extractor
 * (lib/elf/symcap.c) and the digest of what the file holds (lib/elf/elfdigest.c), both run on
 * every binary a recorded process maps, whoever wrote it. A table it returns must be what the
 * recorder accepts: the header, then exactly n entries that decode, within UWP_MAX_SYMTAB; a
 * refusal must say why and leave the outputs alone; the digest of one input is the same twice. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/symx.h"
#include "elf/elfdigest.h"
#include "fuzz.h"
#include "elf/symcap.h"
#include "unwind/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], why[256] = "";
	uint8_t d1[SHA256_LEN], d2[SHA256_LEN];
	const struct uwp_symtab_hdr *h;
	struct symx_cursor c;
	struct symx_entry e;
	void *buf = NULL;
	size_t n = 0;
	int fd = fuzz_memfile(data, size, path, sizeof(path)), rc, r1, r2;

	if (fd < 0)
		return 0;
	r1 = elfdigest_fd(fd, d1);
	r2 = elfdigest_fd(fd, d2);
	if (r1 != r2 || (r1 == 0 && memcmp(d1, d2, sizeof(d1)) != 0))
		abort(); /* one file, one digest */
	rc = symcap_extract_fd(fd, &buf, &n, why, sizeof(why));
	close(fd);
	if (rc < 0) {
		if (!why[0] || buf || n)
			abort(); /* a refusal says why and leaves the outputs alone */
		return 0;
	}
	if (n < sizeof(*h) || n > UWP_MAX_SYMTAB)
		abort();
	h = buf;
	if (h->magic != UWP_SYMTAB_MAGIC)
		abort();
	symx_open(&c, (const char *)buf + sizeof(*h), n - sizeof(*h), 0);
	for (uint32_t i = 0; i < h->n; i++)
		if (symx_next(&c, &e) != 1 || !e.name_len)
			abort(); /* every entry the header counts decodes, and has a name */
	free(buf);
	return 0;
}
