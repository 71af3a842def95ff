/* symcap.c — function symbols of a binary for the recorder (see symcap.h). */
#include "elf/symcap.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/grow.h"
#include "base/symx.h"
#include "elf/elfsym.h"
#include "unwind/proto.h"

#define MAX_LOADS 64
#define MAX_SYMS (4u << 20) /* candidates read from all tables of one file */

struct seg {
	uint64_t vaddr, filesz, off;
};

struct ext {
	struct seg segs[MAX_LOADS];
	size_t n_segs;
	struct elfsym_cand *c;
	size_t n, cap;
	char **plt_names; /* the names of PLT stubs, owned */
	size_t n_plt, cap_plt;
	uint32_t source;
	uint32_t synth_rank; /* the rank plt_add gives: a PLT stub's, or 0 for the entry point */
};

static int read_segs(Elf *elf, struct ext *x)
{
	size_t phnum;

	if (elf_getphdrnum(elf, &phnum) != 0)
		return -ENOEXEC;
	for (size_t i = 0; i < phnum && x->n_segs < MAX_LOADS; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_filesz)
			x->segs[x->n_segs++] = (struct seg){ ph.p_vaddr, ph.p_filesz, ph.p_offset };
	}
	return 0;
}

static bool to_offset(const struct ext *x, uint64_t vaddr, uint64_t *ret)
{
	for (size_t i = 0; i < x->n_segs; i++)
		if (vaddr >= x->segs[i].vaddr && vaddr - x->segs[i].vaddr < x->segs[i].filesz) {
			*ret = vaddr - x->segs[i].vaddr + x->segs[i].off;
			return true;
		}
	return false;
}

/* Add the function symbols of section SCN (a symbol table of ELF) as candidates. */
static int add_table(Elf *elf, Elf_Scn *scn, struct ext *x)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	GElf_Shdr sh;
	size_t n;

	if (!data || !gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return 0;
	n = sh.sh_size / sh.sh_entsize;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym s;
		GElf_Shdr ssh;
		Elf_Scn *sscn;
		const char *name;
		uint64_t off, limit = 0;
		bool exec = false;

		if (!gelf_getsym(data, (int)i, &s))
			break;
		name = elf_strptr(elf, sh.sh_link, s.st_name);
		sscn = s.st_shndx < SHN_LORESERVE ? elf_getscn(elf, s.st_shndx) : NULL;
		if (sscn && gelf_getshdr(sscn, &ssh))
			exec = ssh.sh_flags & SHF_EXECINSTR;
		if (!elfsym_wanted(&s, name, exec) || !to_offset(x, s.st_value, &off))
			continue;
		/* The section's end as a file offset, as the report bounds a symbol without a
		 * size by its section. */
		if (exec && ssh.sh_addr + ssh.sh_size > s.st_value)
			limit = off + (ssh.sh_addr + ssh.sh_size - s.st_value);
		if (x->n >= MAX_SYMS)
			return -E2BIG;
		if (GROW(x->c, x->cap, x->n + 1) < 0)
			return -ENOMEM;
		x->c[x->n] = (struct elfsym_cand){
			off, s.st_size, limit, name, elfsym_rank(&s, name), (uint32_t)x->n
		};
		x->n++;
	}
	return 0;
}

/* A PLT stub of the main file (elfsym_plt), or its unnamed entry point (elfsym_entry), as a
 * candidate, its name copied. */
static int plt_add(void *arg, uint64_t addr, uint64_t size, uint64_t limit, const char *name)
{
	struct ext *x = arg;
	uint64_t off;
	char *copy;

	if (!to_offset(x, addr, &off) || limit < addr)
		return 0;
	if (x->n >= MAX_SYMS)
		return -E2BIG;
	if (GROW(x->c, x->cap, x->n + 1) < 0 || GROW(x->plt_names, x->cap_plt, x->n_plt + 1) < 0)
		return -ENOMEM;
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	x->plt_names[x->n_plt++] = copy;
	x->c[x->n++] = (struct elfsym_cand){ off,  size,	  off + (limit - addr),
					     copy, x->synth_rank, UINT32_MAX };
	return 0;
}

static Elf_Scn *find_section(Elf *elf, uint32_t type, const char *name)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type)
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || (n && strcmp(n, name) == 0))
			return scn;
	}
	return NULL;
}

/* The ELF file packed in .gnu_debugdata (xz), unpacked by libdw from a memfd of its bytes;
 * NULL when there is none or it cannot be read. *ret_fd is the memfd, to close after. */
static Elf *open_debugdata(Elf *elf, int *ret_fd)
{
	Elf_Scn *scn = find_section(elf, SHT_PROGBITS, ".gnu_debugdata");
	Elf_Data *d = scn ? elf_rawdata(scn, NULL) : NULL;
	Elf *inner;
	int fd;

	*ret_fd = -1;
	/* Larger than a reply may be (RLIMIT_FSIZE bounds the memfd): not unpacked. */
	if (!d || !d->d_buf || !d->d_size || d->d_size > UWP_MAX_TABLE)
		return NULL;
	fd = memfd_create("ringprof-debugdata", MFD_CLOEXEC);
	if (fd < 0)
		return NULL;
	for (size_t done = 0; done < d->d_size;) {
		ssize_t w = write(fd, (const char *)d->d_buf + done, d->d_size - done);

		if (w <= 0) {
			close(fd);
			return NULL;
		}
		done += (size_t)w;
	}
	inner = dwelf_elf_begin(fd);
	if (!inner || elf_kind(inner) != ELF_K_ELF) {
		if (inner)
			elf_end(inner);
		close(fd);
		return NULL;
	}
	*ret_fd = fd;
	return inner;
}

/* The candidates as the report's symbolizer would keep them (elfsym_select: one per start,
 * each size its extent), as the helper's reply. */
static int encode(struct ext *x, void **ret_buf, size_t *ret_size, char *why, size_t why_size)
{
	size_t cap = sizeof(struct uwp_symtab_hdr), len = sizeof(struct uwp_symtab_hdr);
	struct uwp_symtab_hdr *h;
	unsigned char *buf;
	uint64_t prev = 0;
	uint32_t n = 0;

	x->n = elfsym_select(x->c, x->n);
	for (size_t i = 0; i < x->n; i++)
		cap += 20 + strnlen(x->c[i].name, SYMX_NAME_MAX) + 1;
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i < x->n; i++) {
		len += symx_put(buf + len, prev, x->c[i].start, x->c[i].size, x->c[i].name,
				strnlen(x->c[i].name, SYMX_NAME_MAX));
		prev = x->c[i].start;
		n++;
	}
	if (len > UWP_MAX_SYMTAB) {
		free(buf);
		snprintf(why, why_size, "its symbol table would be %zu bytes, more than %u", len,
			 UWP_MAX_SYMTAB);
		return -E2BIG;
	}
	h = (struct uwp_symtab_hdr *)(void *)buf;
	*h = (struct uwp_symtab_hdr){ UWP_SYMTAB_MAGIC, n, x->source, 0 };
	*ret_buf = buf;
	*ret_size = len;
	return 0;
}

/* The tables of ELF into X: .symtab, else .dynsym and .gnu_debugdata's .symtab. The names
 * may point into *ret_inner (the unpacked .gnu_debugdata, NULL when not used, with its memfd
 * in *ret_fd): the caller ends it after encoding. */
static int collect(Elf *elf, struct ext *x, Elf **ret_inner, int *ret_fd)
{
	Elf_Scn *scn = find_section(elf, SHT_SYMTAB, NULL);
	Elf *inner;
	size_t before;
	int rc = 0;

	*ret_inner = NULL;
	*ret_fd = -1;
	if (scn) {
		x->source = UWP_SYMS_SYMTAB;
		return add_table(elf, scn, x);
	}
	scn = find_section(elf, SHT_DYNSYM, NULL);
	if (scn) {
		x->source |= UWP_SYMS_DYNSYM;
		rc = add_table(elf, scn, x);
		if (rc < 0)
			return rc;
	}
	inner = open_debugdata(elf, ret_fd);
	if (!inner)
		return 0;
	*ret_inner = inner;
	scn = find_section(inner, SHT_SYMTAB, NULL);
	before = x->n;
	if (scn)
		rc = add_table(inner, scn, x);
	if (x->n > before)
		x->source |= UWP_SYMS_GNU_DEBUGDATA;
	return rc;
}

int symcap_extract_fd(int fd, void **ret_buf, size_t *ret_size, char *why, size_t why_size)
{
	struct ext x = { 0 };
	Elf *elf, *inner = NULL;
	int rc, mfd = -1;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		snprintf(why, why_size, "not an ELF file");
		return -ENOEXEC;
	}
	rc = read_segs(elf, &x);
	if (rc == 0)
		rc = collect(elf, &x, &inner, &mfd);
	x.synth_rank = ELFSYM_RANK_PLT;
	if (rc == 0)
		rc = elfsym_plt(elf, plt_add, &x); /* as the report names them from the file */
	x.synth_rank = 0;			   /* below any symbol's (elfsym_rank) */
	if (rc == 0)
		rc = elfsym_entry(elf, plt_add, &x);
	if (rc == 0 && !x.n) {
		rc = -ENOENT;
		snprintf(why, why_size, "no function symbols");
	} else if (rc == 0) {
		rc = encode(&x, ret_buf, ret_size, why, why_size);
	} else {
		snprintf(why, why_size, "%s",
			 rc == -E2BIG ? "more symbols than the helper reads" : strerror(-rc));
	}
	free(x.c);
	for (size_t i = 0; i < x.n_plt; i++)
		free(x.plt_names[i]);
	free(x.plt_names);
	if (inner)
		elf_end(inner);
	if (mfd >= 0)
		close(mfd);
	elf_end(elf);
	return rc;
}
