/* srcinfo.c — a function's extent, bytes and line table for ringprof annotate (libdw). */
#include "profile/srcinfo.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/grow.h"
#include "base/util.h"
#include "elf/debugcache.h"
#include "profile/demangle.h"
#include "profile/symfile.h"

struct srcinfo {
	char *file;
	int fd; /* our own descriptor of the file, for its bytes */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Elf *elf;
	Dwfl_Callbacks cb;
	char *debuginfo_path;
	char *debug_cache; /* the debug cache's directory, NULL: none */
	char *symfs;	   /* a copy of srcinfo_open()'s, for find_debuginfo */
	char *fetched;	   /* where debuginfod keeps what it fetched, when it may be asked */
	bool debug_asked;  /* find_debuginfo was called */
	int lines;	   /* -1 not looked yet, 0 none, 1 found */
	/* Relative file names of the line table joined to their CU's directory, once each. */
	struct joined {
		const char *name;
		char *path;
	} * joined;
	size_t n_joined, cap_joined;
	/* The function whose instructions are asked in turn: its subprogram DIE and the address
	 * ranges of the inlined subroutines in it, with their depth, read once (one walk of its
	 * CU) instead of a dwarf_getscopes() walk of the whole CU per instruction. */
	bool have_fn;
	Dwarf_Die fn;
	struct inl {
		Dwarf_Addr lo, hi;
		int depth;
		Dwarf_Die die;
	} * inls;
	size_t n_inls, cap_inls;
};

struct srcinfo *srcinfo_free(struct srcinfo *si)
{
	if (!si)
		return NULL;
	if (si->dwfl)
		dwfl_end(si->dwfl);
	if (si->fd >= 0)
		close(si->fd);
	for (size_t i = 0; i < si->n_joined; i++)
		free(si->joined[i].path);
	free(si->joined);
	free(si->inls);
	free(si->debuginfo_path);
	free(si->debug_cache);
	free(si->symfs);
	free(si->fetched);
	free(si->file);
	free(si);
	return NULL;
}

/* libdwfl's standard search, as the symbolizer's, after (the first time: later ones are for
 * dwz alt files) the inflated copy of the file of the module's build-id in the debug cache
 * (elf/debugcache.h). */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	struct srcinfo *si = *userdata;
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n;

	if (si && si->debug_cache && !si->debug_asked) {
		si->debug_asked = true;
		n = dwfl_module_build_id(mod, &bits, &vaddr);
		n = n > 0 ? debugcache_find(si->debug_cache, NULL, true, si->symfs, si->fetched,
					    bits, (size_t)n, debuginfo_file_name)
			  : -1;
		if (n >= 0)
			return n;
	}
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
					    debuglink_crc, debuginfo_file_name);
}

/* Report the file FD (ours to give) to a new Dwfl at its own addresses. 0 or -errno. */
static int report(struct srcinfo *si, const char *symfs, const char *path, int fd, char *why,
		  size_t why_size)
{
	GElf_Addr bias;

	/* As the symbolizer: debug files under SYMFS/usr/lib/debug first, then the system's. */
	if (symfs &&
	    asprintf(&si->debuginfo_path, ":.debug:%s/usr/lib/debug:/usr/lib/debug", symfs) < 0) {
		si->debuginfo_path = NULL;
		close(fd);
		return -ENOMEM;
	}
	if (symfs && !(si->symfs = strdup(symfs))) {
		close(fd);
		return -ENOMEM;
	}
	si->cb.find_elf = dwfl_build_id_find_elf;
	si->cb.find_debuginfo = find_debuginfo;
	si->cb.section_address = dwfl_offline_section_address;
	si->cb.debuginfo_path = &si->debuginfo_path;
	si->dwfl = dwfl_begin(&si->cb);
	if (!si->dwfl) {
		close(fd);
		snprintf(why, why_size, "%s: %s", path, dwfl_errmsg(-1));
		return -ENOMEM;
	}
	dwfl_report_begin(si->dwfl);
	si->mod = dwfl_report_elf(si->dwfl, path, si->file, fd, 0, true);
	dwfl_report_end(si->dwfl, NULL, NULL);
	if (si->mod) {
		void **ud = NULL;

		dwfl_module_info(si->mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
		if (ud)
			*ud = si;
	}
	si->elf = si->mod ? dwfl_module_getelf(si->mod, &bias) : NULL;
	if (!si->elf) {
		snprintf(why, why_size, "%s: not a usable ELF file (%s)", si->file, dwfl_errmsg(-1));
		return -EINVAL;
	}
	return 0;
}

int srcinfo_open(const char *symfs, bool debug_cache, const struct symfile_id *id,
		 struct srcinfo **ret, char *why, size_t why_size)
{
	struct srcinfo *si = calloc(1, sizeof(*si));
	char warn[1024];
	int fd, dfd, r;

	if (!si)
		return -ENOMEM;
	si->fd = -1;
	si->lines = -1;
	if (debug_cache)
		si->debug_cache = debugcache_default_dir();
	/* The symbolizer leaves DEBUGINFOD_URLS set only with --debuginfod. */
	if (si->debug_cache && getenv("DEBUGINFOD_URLS") && *getenv("DEBUGINFOD_URLS"))
		si->fetched = debugcache_fetched_dir();
	fd = symfile_open(symfs, id, &si->file, warn, sizeof(warn));
	if (fd < 0) {
		snprintf(why, why_size, "%s", warn[0] ? warn : strerror(-fd));
		srcinfo_free(si);
		return fd;
	}
	dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dfd < 0) {
		r = -errno;
		close(fd);
		snprintf(why, why_size, "%s: %s", si->file, strerror(-r));
		srcinfo_free(si);
		return r;
	}
	si->fd = dfd;
	/* The file's own DWARF, when compressed, from the debug cache as the symbolizer reads
	 * it; the code bytes from si->fd, the file itself. */
	if (si->debug_cache) {
		int c = debugcache_open(si->debug_cache, NULL, true, fd);

		if (c >= 0) {
			close(fd);
			fd = c;
		}
	}
	r = report(si, symfs, id->path, fd, why, why_size);
	if (r < 0) {
		srcinfo_free(si);
		return r;
	}
	*ret = si;
	return 0;
}

const char *srcinfo_file(const struct srcinfo *si)
{
	return si->file;
}

int srcinfo_machine(const struct srcinfo *si)
{
	GElf_Ehdr eh;

	return gelf_getehdr(si->elf, &eh) ? eh.e_machine : 0;
}

bool srcinfo_has_lines(struct srcinfo *si)
{
	Dwarf_Addr bias;
	Dwarf *dw;
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (si->lines >= 0)
		return si->lines;
	si->lines = 0;
	dw = dwfl_module_getdwarf(si->mod, &bias);
	if (dw && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0)
		si->lines = 1;
	return si->lines;
}

/* The PT_LOAD segment holding file offset OFF (BY_ADDR: ELF address OFF), into *ret. */
static bool find_load(Elf *elf, uint64_t v, bool by_addr, GElf_Phdr *ret)
{
	size_t n;

	if (elf_getphdrnum(elf, &n) < 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		uint64_t base;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		base = by_addr ? ph.p_vaddr : ph.p_offset;
		if (v >= base && v - base < ph.p_filesz) {
			*ret = ph;
			return true;
		}
	}
	return false;
}

int srcinfo_addr(const struct srcinfo *si, uint64_t off, uint64_t *ret_addr)
{
	GElf_Phdr ph;

	if (!find_load(si->elf, off, false, &ph))
		return -ENOENT;
	*ret_addr = off - ph.p_offset + ph.p_vaddr;
	return 0;
}

int srcinfo_function(struct srcinfo *si, uint64_t addr, uint64_t *ret_lo, uint64_t *ret_hi)
{
	GElf_Off offset;
	GElf_Sym sym;
	GElf_Addr value;
	const char *name;

	name = dwfl_module_addrinfo(si->mod, addr, &offset, &sym, NULL, NULL, NULL);
	if (!name || !sym.st_size || offset >= sym.st_size)
		return -ENOENT;
	value = addr - offset;
	*ret_lo = value;
	*ret_hi = value + sym.st_size;
	return 0;
}

int srcinfo_code(const struct srcinfo *si, uint64_t lo, uint64_t hi, uint8_t **ret)
{
	GElf_Phdr ph;
	uint8_t *buf;
	ssize_t n;

	if (hi <= lo || hi - lo > (64u << 20) || !find_load(si->elf, lo, true, &ph) ||
	    hi - ph.p_vaddr > ph.p_filesz)
		return -ENOENT;
	buf = malloc(hi - lo);
	if (!buf)
		return -ENOMEM;
	n = pread(si->fd, buf, hi - lo, (off_t)(lo - ph.p_vaddr + ph.p_offset));
	if (n != (ssize_t)(hi - lo)) {
		free(buf);
		return n < 0 ? -errno : -EIO;
	}
	*ret = buf;
	return 0;
}

/* Strings made once per key and kept by SI: KEY's entry, NULL when not made yet. */
static struct joined *kept(struct srcinfo *si, const char *key)
{
	for (size_t i = 0; i < si->n_joined; i++)
		if (si->joined[i].name == key)
			return &si->joined[i];
	return NULL;
}

/* FILE of line L as a path: a relative one joined to its CU's compilation directory (owned by
 * SI; FILE itself when absolute, or when that directory is unknown or memory runs out). */
static const char *full_path(struct srcinfo *si, Dwfl_Line *l, const char *file)
{
	Dwarf_Die *cu;
	Dwarf_Attribute a;
	const char *dir;
	char *path;

	if (file[0] == '/')
		return file;
	if (kept(si, file))
		return kept(si, file)->path;
	cu = dwfl_linecu(l);
	dir = cu ? dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a)) : NULL;
	if (!dir || GROW(si->joined, si->cap_joined, si->n_joined + 1) < 0 ||
	    asprintf(&path, "%s/%s", dir, file) < 0)
		return file;
	si->joined[si->n_joined++] = (struct joined){ file, path };
	return path;
}

/* The name of inlined function DIE, as report shows names: the linkage name demangled
 * ("Acc<unsigned long>::add"), else its DWARF name ("add"). */
static const char *inline_die_name(struct srcinfo *si, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *link = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
	const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
	struct joined *k;
	char *d;

	if (!link)
		return name;
	if ((k = kept(si, link)) != NULL)
		return k->path ? k->path : name;
	d = demangle_name(link);
	if (GROW(si->joined, si->cap_joined, si->n_joined + 1) < 0) {
		free(d);
		return name;
	}
	si->joined[si->n_joined++] = (struct joined){ link, d };
	return d ? d : name;
}

/* The inlined subroutines under PARENT (lexical blocks and inlined ones gone into, nested
 * subprograms not: dwarf_getscopes() stops at those) into si->inls, at DEPTH and below.
 * 0 or -ENOMEM. */
static int collect_inlines(struct srcinfo *si, Dwarf_Die *parent, int depth)
{
	Dwarf_Die child;

	if (dwarf_child(parent, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child), r = 0;
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;

		if (tag == DW_TAG_inlined_subroutine) {
			while ((off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0) {
				if (GROW(si->inls, si->cap_inls, si->n_inls + 1) < 0)
					return -ENOMEM;
				si->inls[si->n_inls++] = (struct inl){ lo, hi, depth, child };
			}
			r = collect_inlines(si, &child, depth + 1);
		} else if (tag == DW_TAG_lexical_block) {
			r = collect_inlines(si, &child, depth);
		}
		if (r < 0)
			return r;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

/* dwarf_getfuncs() callback: the subprogram holding *(Dwarf_Addr *) in ARG's pc. */
struct find_fn {
	Dwarf_Addr pc;
	Dwarf_Die die;
	bool found;
};

static int find_fn_cb(Dwarf_Die *die, void *arg)
{
	struct find_fn *f = arg;

	if (dwarf_haspc(die, f->pc) <= 0)
		return DWARF_CB_OK;
	f->die = *die;
	f->found = true;
	return DWARF_CB_ABORT;
}

/* Make the function of CU holding PC the one cached: its subprogram (the concrete one, whose
 * code it is) and its inlines. False when there is none, or memory runs out. */
static bool cache_function(struct srcinfo *si, Dwarf_Die *cu, Dwarf_Addr pc)
{
	struct find_fn f = { .pc = pc };

	si->have_fn = false;
	si->n_inls = 0;
	if (dwarf_getfuncs(cu, find_fn_cb, &f, 0) < 0 || !f.found)
		return false;
	si->fn = f.die;
	si->have_fn = collect_inlines(si, &si->fn, 0) == 0;
	return si->have_fn;
}

/* The innermost inlined function ADDR lies in, or NULL: from the inlined subroutines of its
 * function (read once per function), deepest first, as binutils' addr2line -i names it. */
static const char *inline_name(struct srcinfo *si, uint64_t addr)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(si->mod, addr, &bias);
	const struct inl *best = NULL;
	Dwarf_Addr pc = addr - bias;

	if (!cu)
		return NULL;
	if ((!si->have_fn || dwarf_haspc(&si->fn, pc) <= 0) && !cache_function(si, cu, pc))
		return NULL;
	for (size_t i = 0; i < si->n_inls; i++) {
		const struct inl *in = &si->inls[i];

		if (in->lo <= pc && pc < in->hi && (!best || in->depth > best->depth))
			best = in;
	}
	return best ? inline_die_name(si, (Dwarf_Die *)&best->die) : NULL;
}

int srcinfo_line_starts(struct srcinfo *si, uint64_t lo, uint64_t hi, uint64_t **ret, size_t *ret_n)
{
	uint64_t *out = NULL;
	size_t n = 0, cap = 0, nl = 0;
	Dwarf_Lines *lines;
	Dwarf_Addr bias;
	Dwarf_Die *cu;

	*ret = NULL;
	*ret_n = 0;
	if (!srcinfo_has_lines(si))
		return 0;
	cu = dwfl_module_addrdie(si->mod, lo, &bias);
	if (!cu || dwarf_getsrclines(cu, &lines, &nl) != 0)
		return 0;
	for (size_t i = 0; i < nl; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;

		if (!l || dwarf_lineaddr(l, &a) != 0 || a + bias < lo || a + bias >= hi)
			continue;
		if (GROW(out, cap, n + 1) < 0) {
			free(out);
			return -ENOMEM;
		}
		out[n++] = a + bias;
	}
	if (n)
		qsort(out, n, sizeof(*out), util_cmp_u64);
	*ret = out;
	*ret_n = n;
	return 0;
}

int srcinfo_line(struct srcinfo *si, uint64_t addr, const char **ret_file, int *ret_line,
		 const char **ret_inline)
{
	Dwfl_Line *l;
	const char *file;
	int line = 0;

	if (!srcinfo_has_lines(si))
		return -ENOENT;
	l = dwfl_module_getsrc(si->mod, addr);
	if (!l)
		return -ENOENT;
	file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
	if (!file || line <= 0)
		return -ENOENT;
	*ret_file = full_path(si, l, file);
	*ret_line = line;
	if (ret_inline)
		*ret_inline = inline_name(si, addr);
	return 0;
}

/* The kcore segment holding ADDR .. ADDR + LEN: its file offset for ADDR, or -ENOENT. */
static int64_t kcore_offset(int fd, uint64_t addr, size_t len)
{
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	GElf_Phdr ph;
	int64_t r = -ENOENT;

	if (!elf)
		return -EINVAL;
	if (find_load(elf, addr, true, &ph) && addr + len - ph.p_vaddr <= ph.p_filesz)
		r = (int64_t)(addr - ph.p_vaddr + ph.p_offset);
	elf_end(elf);
	return r;
}

/* /proc/kcore opened: the descriptor, or -errno with a sentence in why. */
static int kcore_open(char *why, size_t why_size)
{
	int fd = open("/proc/kcore", O_RDONLY | O_CLOEXEC);
	int e = errno;

	if (fd >= 0)
		return fd;
	snprintf(why, why_size, "/proc/kcore: %s (%s)", strerror(e),
		 e == ENOENT ? "this kernel is built without CONFIG_PROC_KCORE"
			     : "reading the kernel's code needs root");
	return -e;
}

int srcinfo_kcore_readable(char *why, size_t why_size)
{
	int fd = kcore_open(why, why_size);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int srcinfo_kcore(uint64_t addr, size_t len, uint8_t **ret, char *why, size_t why_size)
{
	int fd = kcore_open(why, why_size);
	int64_t off;
	uint8_t *buf;
	ssize_t n;

	if (fd < 0)
		return fd;
	elf_version(EV_CURRENT);
	off = kcore_offset(fd, addr, len);
	buf = off >= 0 && len ? malloc(len) : NULL;
	if (!buf) {
		close(fd);
		snprintf(why, why_size, "/proc/kcore: %s",
			 off < 0 ? "the address is in none of its segments" : "out of memory");
		return off < 0 ? (int)off : -ENOMEM;
	}
	n = pread(fd, buf, len, off);
	close(fd);
	if (n != (ssize_t)len) {
		free(buf);
		snprintf(why, why_size, "/proc/kcore: %s", n < 0 ? strerror(errno) : "short read");
		return -EIO;
	}
	*ret = buf;
	return 0;
}
