/* elfdigest.c — see elfdigest.h. */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <string.h>

#include "elf/elfdigest.h"

/* The sections whose bytes make a table or the captured symbols (or the code a table covers
 * by itself: PLT stubs). Their names, offsets and sizes are in the section headers, which are
 * hashed too, with the program headers that place them in memory. */
static const char *const hashed[] = {
	".eh_frame",
	".eh_frame_hdr",
	".debug_frame",
	".zdebug_frame",
	".symtab",
	".strtab",
	".dynsym",
	".dynstr",
	".gnu_debugdata",
	".plt",
	".plt.got",
	".plt.sec",
	".note.gnu.build-id",
};

static bool is_hashed(const char *name)
{
	for (size_t i = 0; name && i < sizeof(hashed) / sizeof(hashed[0]); i++)
		if (strcmp(name, hashed[i]) == 0)
			return true;
	return false;
}

/* Bytes [off, off + len) of the image, when they lie within it (a length or 0). */
static void hash_range(struct sha256 *s, const char *img, size_t size, uint64_t off, uint64_t len)
{
	uint64_t tag[2] = { off, len };

	sha256_update(s, tag, sizeof(tag)); /* where, so that moved bytes differ */
	if (off <= size && len <= size - off)
		sha256_update(s, img + off, (size_t)len);
}

static int digest(Elf *elf, uint8_t out[SHA256_LEN])
{
	size_t size = 0, shstrndx;
	const char *img = elf_rawfile(elf, &size);
	struct sha256 s;
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;

	if (!img || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    elf_getshdrstrndx(elf, &shstrndx) < 0)
		return -ENOEXEC;
	sha256_init(&s);
	hash_range(&s, img, size, 0, eh.e_ehsize);
	hash_range(&s, img, size, eh.e_phoff, (uint64_t)eh.e_phnum * eh.e_phentsize);
	hash_range(&s, img, size, eh.e_shoff, (uint64_t)eh.e_shnum * eh.e_shentsize);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (elf_ndxscn(scn) == shstrndx || (sh.sh_type != SHT_NOBITS && is_hashed(name)))
			hash_range(&s, img, size, sh.sh_offset, sh.sh_size);
	}
	sha256_final(&s, out);
	return 0;
}

int elfdigest_fd(int fd, uint8_t out[SHA256_LEN])
{
	Elf *elf;
	int rc;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOEXEC;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return -ENOEXEC;
	rc = digest(elf, out);
	elf_end(elf);
	return rc;
}
