/* test-symbolizer.c — unit test of lib/symbolizer.c on fixtures compiled at run time. */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "base/buildid.h"
#include "base/sha256.h"
#include "check.h"
#include "elf/elfdigest.h"
#include "format/format.h"
#include "elf/symcap.h"
#include "profile/dsotab.h"
#include "profile/symbolizer.h"
#include "unwind/proto.h"

static char T[256];    /* temp directory */
static char SRC[1024]; /* tests/symfix */
static char CFLAGS[] = "-O2 -g -fno-omit-frame-pointer -Wl,--build-id";

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* Run a shell command built from FMT; a failing setup step fails the test. */
static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int r;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	r = system(cmd);
	if (r != 0) {
		fprintf(stderr, "%s:%d: setup command failed (%d): %s\n", __FILE__, __LINE__, r,
			cmd);
		exit(1);
	}
}

static bool have(const char *tool)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	return system(cmd) == 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- reading the expected answers from the ELF files (libelf) ---- */

struct func {
	char name[128];
	uint64_t vaddr, size, off;
};

struct elfinfo {
	struct func *f;
	size_t n;
	uint8_t id[64];
	size_t id_len;
	char hex[129];
};

static int cmp_func(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

/* Sized function symbols of PATH (.symtab, else .dynsym) with their file offsets; aliases
 * (several names at one address) are dropped so every expected name is unambiguous. */
static void elf_read(const char *path, struct elfinfo *ei)
{
	int fd = open(path, O_RDONLY);
	Elf_Scn *scn = NULL, *symscn = NULL;
	size_t phnum, w = 0, cap = 64;
	GElf_Shdr sh;
	Elf *e;

	memset(ei, 0, sizeof(*ei));
	if (fd < 0)
		die(path);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_getphdrnum(e, &phnum))
		die("elf_begin");
	while ((scn = elf_nextscn(e, scn))) {
		gelf_getshdr(scn, &sh);
		if (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !symscn))
			symscn = scn;
	}
	ei->f = calloc(cap, sizeof(*ei->f));
	if (symscn) {
		Elf_Data *data = elf_getdata(symscn, NULL);
		size_t n;

		gelf_getshdr(symscn, &sh);
		n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 1; i < n; i++) {
			GElf_Sym sym;
			const char *name;

			gelf_getsym(data, (int)i, &sym);
			name = elf_strptr(e, sh.sh_link, sym.st_name);
			if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_size ||
			    sym.st_shndx == SHN_UNDEF || !name || !*name)
				continue;
			for (size_t k = 0; k < phnum; k++) {
				GElf_Phdr ph;

				gelf_getphdr(e, (int)k, &ph);
				if (ph.p_type == PT_LOAD && sym.st_value >= ph.p_vaddr &&
				    sym.st_value < ph.p_vaddr + ph.p_filesz) {
					if (ei->n == cap)
						ei->f = realloc(ei->f, (cap *= 2) * sizeof(*ei->f));
					snprintf(ei->f[ei->n].name, sizeof(ei->f->name), "%s", name);
					ei->f[ei->n].vaddr = sym.st_value;
					ei->f[ei->n].size = sym.st_size;
					ei->f[ei->n].off = sym.st_value - ph.p_vaddr + ph.p_offset;
					ei->n++;
					break;
				}
			}
		}
	}
	qsort(ei->f, ei->n, sizeof(*ei->f), cmp_func);
	for (size_t i = 0; i < ei->n; i++) {
		bool dup = (i > 0 && ei->f[i - 1].vaddr == ei->f[i].vaddr) ||
			   (i + 1 < ei->n && ei->f[i + 1].vaddr == ei->f[i].vaddr);

		if (!dup)
			ei->f[w++] = ei->f[i];
	}
	ei->n = w;
	elf_end(e);
	close(fd);
	if (buildid_read_path(path, ei->id, sizeof(ei->id), &ei->id_len) == 0)
		buildid_to_hex(ei->id, ei->id_len, ei->hex);
}

static const struct func *find_func(const struct elfinfo *ei, const char *name)
{
	for (size_t i = 0; i < ei->n; i++)
		if (!strcmp(ei->f[i].name, name))
			return &ei->f[i];
	CHECK(false, "fixture has no function %s", name);
	return NULL;
}

/* ---- warnings ---- */

struct warns {
	int n;
	char all[8192];
};

static void on_warn(void *arg, const char *msg)
{
	struct warns *w = arg;
	size_t l = strlen(w->all);

	w->n++;
	snprintf(w->all + l, sizeof(w->all) - l, "%s\n", msg);
	if (getenv("VERBOSE"))
		fprintf(stderr, "  warning: %s\n", msg);
}

static struct symbolizer *new_sym(const char *symfs, bool inl, struct warns *w)
{
	struct symbolizer_opts o = {
		.symfs = symfs,
		.inline_frames = inl,
		.warn = on_warn,
		.warn_arg = w,
	};
	struct symbolizer *s;

	memset(w, 0, sizeof(*w));
	s = symbolizer_new(&o);
	if (!s)
		die("symbolizer_new");
	return s;
}

static struct sym_dso *dso_of(struct symbolizer *s, const char *path, const struct elfinfo *ei)
{
	return symbolizer_dso(s, path, ei ? ei->id : NULL, ei ? ei->id_len : 0, 0, 0, 0);
}

/* One lookup expected to give exactly NAME+OFFSET (NAME NULL: unknown). */
static void expect(struct symbolizer *s, struct sym_dso *d, uint64_t off, const char *name,
		   uint64_t offset, const char *where)
{
	struct sym_frame fr[4];
	int n = symbolizer_lookup(s, d, off, fr, 4);

	CHECK(n == 1 && !fr[0].name == !name && (!name || !strcmp(fr[0].name, name)) &&
		  (!name || fr[0].offset == offset),
	      "%s: offset %#llx: got %d frame(s) %s+%#llx, expected %s+%#llx", where,
	      (unsigned long long)off, n, fr[0].name ? fr[0].name : "(unknown)",
	      (unsigned long long)fr[0].offset, name ? name : "(unknown)",
	      (unsigned long long)offset);
}

/* Every function of EI (or those starting with PREFIX) at its start, middle and last byte. */
static size_t expect_all(struct symbolizer *s, struct sym_dso *d, const struct elfinfo *ei,
			 const char *prefix, const char *where)
{
	size_t n = 0;

	for (size_t i = 0; i < ei->n; i++) {
		const struct func *f = &ei->f[i];

		if (prefix && strncmp(f->name, prefix, strlen(prefix)))
			continue;
		expect(s, d, f->off, f->name, 0, where);
		expect(s, d, f->off + f->size / 2, f->name, f->size / 2, where);
		expect(s, d, f->off + f->size - 1, f->name, f->size - 1, where);
		n++;
	}
	return n;
}

static void mkdirs(const char *rel)
{
	sh("mkdir -p '%s/%s'", T, rel);
}

/* Place FILE as the build-id debug entry of EI under ROOT (SUFFIX ".debug" or ""). */
static void put_build_id_file(const char *root, const struct elfinfo *ei, const char *file,
			      const char *suffix)
{
	sh("mkdir -p '%s/usr/lib/debug/.build-id/%.2s' && "
	   "cp '%s' '%s/usr/lib/debug/.build-id/%.2s/%s%s'",
	   root, ei->hex, file, root, ei->hex, ei->hex + 2, suffix);
}

/* ---- the scenarios ---- */

static struct elfinfo prog, lib;
static char prog_path[512], lib_path[512];

/* (a) A PIE with known functions, symbols in the file; (g) handles; (4) the cache. */
static void test_plain(void)
{
	struct symbolizer_stats st0, st1;
	struct sym_frame fr[2];
	struct symbolizer *s;
	struct sym_dso *d, *d2;
	struct warns w;
	const struct func *g;
	size_t n;

	test_ctx = "plain PIE";
	s = new_sym(NULL, false, &w);
	d = dso_of(s, prog_path, &prog);
	CHECK_STR(sym_dso_name(d), "prog");
	CHECK_STR(sym_dso_path(d), prog_path);
	n = expect_all(s, d, &prog, NULL, "all functions");
	CHECK(n >= 6); /* sf_alpha, sf_beta, sf_gamma, sf_inline_caller, main, _start... */
	for (const char *const *f = (const char *const[]){ "sf_alpha", "sf_beta", "sf_gamma",
							   "sf_inline_caller", "main", NULL };
	     *f; f++)
		find_func(&prog, *f);
	/* Far outside every segment: unknown, not the last symbol. */
	expect(s, d, 1ull << 40, NULL, 0, "beyond the file");
	CHECK_INT(w.n, 0);

	/* The cache: a repeated lookup is a hit; names are interned (one pointer). */
	g = find_func(&prog, "sf_gamma");
	if (g) {
		const char *n1, *n2;

		st0 = *symbolizer_stats(s);
		symbolizer_lookup(s, d, g->off + 1, fr, 2);
		n1 = fr[0].name;
		symbolizer_lookup(s, d, g->off + 1, fr, 2);
		st1 = *symbolizer_stats(s);
		CHECK_INT(st1.cache_hits - st0.cache_hits, 1);
		CHECK_INT(st1.lookups - st0.lookups, 2);
		CHECK(st1.strings >= 1); /* sf_gamma, at least */
		symbolizer_lookup(s, d, g->off + 2, fr, 2);
		n2 = fr[0].name;
		CHECK(n1 && n1 == n2);
		CHECK_INT(fr[0].offset, 2);
		CHECK(fr[0].file == NULL && fr[0].line == 0 && !fr[0].inlined);
	}
	CHECK_INT(symbolizer_lookup(s, d, 0, fr, 0), -EINVAL);
	CHECK_INT(symbolizer_lookup(s, NULL, 0, fr, 1), -EINVAL);

	/* (g) Same identity, same handle; a build-id wins over the path. */
	test_ctx = "handles";
	CHECK(dso_of(s, prog_path, &prog) == d);
	d2 = symbolizer_dso(s, "/elsewhere/prog", prog.id, prog.id_len, 8, 1, 99);
	CHECK(d2 == d);
	CHECK_STR(sym_dso_path(d2), prog_path);
	d = symbolizer_dso(s, "/usr/lib/libnobid.so", NULL, 0, 8, 1, 1234);
	CHECK(d == symbolizer_dso(s, "/usr/lib/libnobid.so", NULL, 0, 8, 1, 1234));
	CHECK(d != symbolizer_dso(s, "/usr/lib/libnobid.so", NULL, 0, 8, 1, 1235));
	CHECK(d != symbolizer_dso(s, "/usr/lib/libnobid.so", NULL, 0, 8, 2, 1234));
	CHECK(d != symbolizer_dso(s, "/usr/lib/libother.so", NULL, 0, 8, 1, 1234));
	CHECK_STR(sym_dso_name(d), "libnobid.so");
	d = symbolizer_dso(s, "[vdso]", NULL, 0, 0, 0, 0);
	CHECK_STR(sym_dso_name(d), "[vdso]");
	w.n = 0;
	expect(s, d, 0x100, NULL, 0, "[vdso]");
	CHECK_INT(w.n, 0); /* not a file: no warning */
	st1 = *symbolizer_stats(s);
	CHECK_INT(st1.dsos, 6);
	symbolizer_free(s);
}

/* (b) The binary stripped, its symbols in a separate debug file. */
static void test_separate_debug(void)
{
	char stripped[600], dl[600], root[600], rel[600];
	struct symbolizer *s;
	struct sym_dso *d;
	struct warns w;

	mkdirs("strip");
	snprintf(stripped, sizeof(stripped), "%s/strip/prog", T);
	sh("objcopy --only-keep-debug '%s' '%s/prog.debug' && strip --strip-all -o '%s' '%s'",
	   prog_path, T, stripped, prog_path);

	test_ctx = "stripped, no debug file";
	s = new_sym(NULL, false, &w);
	d = dso_of(s, stripped, &prog);
	expect(s, d, find_func(&prog, "sf_alpha")->off, NULL, 0, "stripped sf_alpha");
	symbolizer_free(s);

	test_ctx = "debug by build-id under symfs";
	snprintf(root, sizeof(root), "%s/symfs-bid", T);
	snprintf(rel, sizeof(rel), "%s/prog.debug", T);
	put_build_id_file(root, &prog, rel, ".debug");
	s = new_sym(root, false, &w);
	d = dso_of(s, stripped, &prog);
	CHECK(expect_all(s, d, &prog, NULL, "build-id debug") >= 6);
	CHECK_INT(w.n, 0);
	symbolizer_free(s);

	test_ctx = "debug by debuglink next to the file";
	mkdirs("dl");
	snprintf(dl, sizeof(dl), "%s/dl/prog", T);
	sh("cp '%s/prog.debug' '%s/dl/prog.debug' && "
	   "objcopy --add-gnu-debuglink='%s/dl/prog.debug' '%s' '%s'",
	   T, T, T, stripped, dl);
	s = new_sym(NULL, false, &w);
	d = dso_of(s, dl, &prog);
	CHECK(expect_all(s, d, &prog, NULL, "debuglink") >= 6);
	CHECK_INT(w.n, 0);
	symbolizer_free(s);

	test_ctx = "debuglink in .debug/";
	mkdirs("dl2/.debug");
	snprintf(dl, sizeof(dl), "%s/dl2/prog", T);
	sh("cp '%s/dl/prog' '%s' && cp '%s/prog.debug' '%s/dl2/.debug/prog.debug'", T, dl, T, T);
	s = new_sym(NULL, false, &w);
	d = dso_of(s, dl, &prog);
	CHECK(expect_all(s, d, &prog, "sf_", "debuglink .debug/") == 4);
	symbolizer_free(s);

	/* Binary and debuglink target both under the symfs, as on a copied root filesystem. */
	test_ctx = "symfs: binary and debuglink file";
	sh("mkdir -p '%s/sysroot/opt/sfapp' '%s/sysroot/usr/lib/debug/opt/sfapp' && "
	   "cp '%s/dl/prog' '%s/sysroot/opt/sfapp/prog' && "
	   "cp '%s/prog.debug' '%s/sysroot/usr/lib/debug/opt/sfapp/prog.debug'",
	   T, T, T, T, T, T);
	snprintf(root, sizeof(root), "%s/sysroot", T);
	s = new_sym(root, false, &w);
	d = dso_of(s, "/opt/sfapp/prog", &prog);
	CHECK(expect_all(s, d, &prog, "sf_", "symfs debuglink") == 4);
	CHECK_INT(w.n, 0);
	symbolizer_free(s);
}

/* The lines of sf_alpha's first instruction by symbolizer S (inline frames on). */
static void alpha_line(struct symbolizer *s, struct sym_dso *d, const struct elfinfo *ei, char *ret,
		       size_t size)
{
	const struct func *a = find_func(ei, "sf_alpha");
	struct sym_frame fr[8];
	int n = a ? symbolizer_lookup(s, d, a->off, fr, 8) : 0;

	snprintf(ret, size, "%s %s:%d", n > 0 && fr[n - 1].name ? fr[n - 1].name : "?",
		 n > 0 && fr[n - 1].file ? fr[n - 1].file : "?", n > 0 ? fr[n - 1].line : 0);
}

/* Entries in the debug cache of XDG_CACHE_HOME. */
static int cache_entries(void)
{
	char cmd[600];
	int n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "ls '%s/xdg/ringprof/debug' 2>/dev/null | grep -c '[.]debug$'",
		 T);
	f = popen(cmd, "r");
	if (!f || fscanf(f, "%d", &n) != 1)
		n = -1; /* grep -c says 0 when there is no directory */
	if (f)
		pclose(f);
	return n;
}

/* Every function of EI named in file PATH by a symbolizer reading through the debug cache. */
static size_t expect_all_names(const char *path, const struct elfinfo *ei)
{
	struct symbolizer_opts o = { .lines = true };
	struct symbolizer *s = symbolizer_new(&o);
	size_t n = expect_all(s, dso_of(s, path, ei), ei, NULL, path);

	symbolizer_free(s);
	return n;
}

/* A separate debug file whose DWARF is compressed (as Debian's -dbg and -dbgsym packages are)
 * is read through the debug cache: the same lines, from an inflated copy made once. */
static void test_debug_cache(void)
{
	char bin[600], dbg[600], root[600], plain[128], cached[128], again[128], off[128];
	struct symbolizer_opts o = { .inline_frames = true };
	struct elfinfo big;
	struct symbolizer *s;
	struct sym_dso *d;

	/* -g3 and many headers: macro and string DWARF worth an entry (over 64 KiB compressed);
	 * the functions and build-id are not prog's, so its own elfinfo. */
	mkdirs("cz");
	snprintf(bin, sizeof(bin), "%s/cz/prog", T);
	snprintf(dbg, sizeof(dbg), "%s/cz/prog.debug", T);
	snprintf(root, sizeof(root), "%s/cz/root", T);
	sh("for h in stdio stdlib string unistd signal pthread math elf fcntl sys/socket "
	   "netinet/in sys/stat time errno ctype inttypes sys/mman dirent regex locale wchar "
	   "netdb arpa/inet sys/ioctl termios; do i=\"$i -include $h.h\"; done; "
	   "gcc %s -g3 $i -fPIE -pie -o '%s' '%s/prog.c' && "
	   "objcopy --only-keep-debug --compress-debug-sections=zlib '%s' '%s'",
	   CFLAGS, bin, SRC, bin, dbg);
	elf_read(bin, &big);
	sh("cp '%s' '%s/cz/unstripped' && strip '%s'", bin, T, bin);
	put_build_id_file(root, &big, dbg, ".debug");
	o.symfs = root;

	test_ctx = "debug cache: symbols only, no entry made";
	o.inline_frames = false;
	s = symbolizer_new(&o);
	d = dso_of(s, bin, &big);
	alpha_line(s, d, &big, plain, sizeof(plain));
	symbolizer_free(s);
	CHECK(!strncmp(plain, "sf_alpha ", 9), "%s", plain);
	CHECK_INT(cache_entries(), 0);
	o.inline_frames = true;

	test_ctx = "debug cache off";
	o.no_debug_cache = true;
	s = symbolizer_new(&o);
	d = dso_of(s, bin, &big);
	alpha_line(s, d, &big, plain, sizeof(plain));
	CHECK(!symbolizer_debug_cache(s));
	symbolizer_free(s);
	CHECK(strstr(plain, "sf_alpha ") && !strstr(plain, "?:"), "%s", plain);
	CHECK_INT(cache_entries(), 0);

	test_ctx = "debug cache made";
	o.no_debug_cache = false;
	s = symbolizer_new(&o);
	d = dso_of(s, bin, &big);
	alpha_line(s, d, &big, cached, sizeof(cached));
	CHECK(symbolizer_debug_cache(s));
	symbolizer_free(s);
	CHECK_STR(cached, plain);
	CHECK_INT(cache_entries(), 1);

	test_ctx = "debug cache used";
	s = symbolizer_new(&o);
	d = dso_of(s, bin, &big);
	alpha_line(s, d, &big, again, sizeof(again));
	symbolizer_free(s);
	CHECK_STR(again, plain);
	CHECK_INT(cache_entries(), 1);

	test_ctx = "debug cache: a directory others may write in is not used";
	sh("rm '%s/xdg/ringprof/debug/'*.debug && chmod 0777 '%s/xdg/ringprof/debug'", T, T);
	s = symbolizer_new(&o);
	d = dso_of(s, bin, &big);
	alpha_line(s, d, &big, off, sizeof(off));
	symbolizer_free(s);
	CHECK_STR(off, plain);
	CHECK_INT(cache_entries(), 0);
	sh("chmod 0700 '%s/xdg/ringprof/debug'", T);

	/* The binary itself with its DWARF compressed (as -gz builds it), no separate file. */
	test_ctx = "debug cache: a binary's own compressed DWARF";
	sh("rm -f '%s/xdg/ringprof/debug/'*.debug && objcopy --compress-debug-sections=zlib "
	   "'%s/cz/unstripped' '%s/cz/gz'",
	   T, T, T);
	snprintf(bin, sizeof(bin), "%s/cz/gz", T);
	o.symfs = NULL;
	s = symbolizer_new(&o);
	d = dso_of(s, bin, &big);
	alpha_line(s, d, &big, again, sizeof(again));
	symbolizer_free(s);
	CHECK_STR(again, plain);
	CHECK_INT(cache_entries(), 1);
	CHECK(expect_all_names(bin, &big) >= 6, "every function named from the copy");
	free(big.f);
}

/* (c) The file on disk was rebuilt since the recording. */
static void test_rebuilt(void)
{
	char rb[600], root[600], dbg[600];
	struct elfinfo re;
	struct symbolizer *s;
	struct sym_dso *d;
	struct warns w;

	mkdirs("rb");
	snprintf(rb, sizeof(rb), "%s/rb/prog", T);
	sh("gcc %s -fPIE -pie -DREBUILT -o '%s' '%s/prog.c'", CFLAGS, rb, SRC);
	elf_read(rb, &re);
	CHECK(strcmp(re.hex, prog.hex) != 0);

	test_ctx = "rebuilt";
	s = new_sym(NULL, false, &w);
	d = dso_of(s, rb, &prog); /* recorded with the old build-id */
	for (size_t i = 0; i < prog.n; i++)
		expect(s, d, prog.f[i].off, NULL, 0, "rebuilt file");
	CHECK_INT(w.n, 1);
	CHECK(strstr(w.all, prog.hex) && strstr(w.all, re.hex) && strstr(w.all, rb),
	      "warning should name the file and both build-ids (%s, %s): %s", prog.hex, re.hex,
	      w.all);
	symbolizer_free(s);
	free(re.f);

	test_ctx = "rebuilt, old debug file under symfs";
	snprintf(root, sizeof(root), "%s/symfs-rb", T);
	snprintf(dbg, sizeof(dbg), "%s/prog.debug", T);
	put_build_id_file(root, &prog, dbg, ".debug");
	s = new_sym(root, false, &w);
	d = dso_of(s, rb, &prog);
	CHECK(expect_all(s, d, &prog, NULL, "old debug file") >= 6);
	CHECK_INT(w.n, 1);
	CHECK(strstr(w.all, prog.hex) && strstr(w.all, re.hex),
	      "warning should name both build-ids: %s", w.all);
	symbolizer_free(s);
}

/* The binary is gone; a debug file (or the binary) by build-id stands in, whatever the
 * linker's layout: the debug file's program headers are rebuilt (objcopy rewrites them). */
enum debug_kind { DBG_OBJCOPY, DBG_EU_STRIP, DBG_BINARY };

static void test_missing_with_debug(const char *tag, const char *ldflags, enum debug_kind kind)
{
	char bin[600], dbg[600], root[600], ctx[128], missing[600];
	struct elfinfo ei;
	struct symbolizer *s;
	struct sym_dso *d;
	struct warns w;

	snprintf(ctx, sizeof(ctx), "missing file, %s", tag);
	test_ctx = ctx;
	snprintf(bin, sizeof(bin), "%s/lay-%s", T, tag);
	snprintf(dbg, sizeof(dbg), "%s/lay-%s.debug", T, tag);
	snprintf(root, sizeof(root), "%s/symfs-%s", T, tag);
	snprintf(missing, sizeof(missing), "%s/gone/prog-%s", T, tag);
	sh("gcc %s %s -fPIE -pie -o '%s' '%s/prog.c'", CFLAGS, ldflags, bin, SRC);
	if (kind == DBG_OBJCOPY)
		sh("objcopy --only-keep-debug '%s' '%s'", bin, dbg);
	else if (kind == DBG_EU_STRIP)
		sh("eu-strip -f '%s' -o '%s.stripped' '%s'", dbg, bin, bin);
	elf_read(bin, &ei);
	put_build_id_file(root, &ei, kind == DBG_BINARY ? bin : dbg,
			  kind == DBG_BINARY ? "" : ".debug");
	s = new_sym(root, false, &w);
	d = dso_of(s, missing, &ei);
	CHECK(expect_all(s, d, &ei, NULL, ctx) >= 6);
	CHECK_INT(w.n, 0);
	symbolizer_free(s);
	free(ei.f);
}

/* (d) Files that cannot be used. */
static void test_missing(void)
{
	char txt[600], missing[600];
	struct symbolizer *s;
	struct sym_dso *d;
	struct warns w;

	test_ctx = "missing file";
	snprintf(missing, sizeof(missing), "%s/nowhere/prog", T);
	s = new_sym(NULL, false, &w);
	d = dso_of(s, missing, &prog);
	expect(s, d, 0x1000, NULL, 0, "missing");
	expect(s, d, 0x1010, NULL, 0, "missing");
	CHECK_INT(w.n, 1);
	CHECK(strstr(w.all, missing) && strstr(w.all, "No such file"),
	      "warning should name the file and the error: %s", w.all);
	d = dso_of(s, "/nonexistent/libnobid.so", NULL);
	expect(s, d, 0x1000, NULL, 0, "missing without build-id");
	CHECK_INT(w.n, 2);

	test_ctx = "not an ELF file";
	snprintf(txt, sizeof(txt), "%s/notelf", T);
	sh("echo 'not an ELF file at all, just some text to fill a page' > '%s'", txt);
	d = dso_of(s, txt, NULL);
	expect(s, d, 0x10, NULL, 0, "text file");
	expect(s, d, 0x20, NULL, 0, "text file");
	CHECK_INT(w.n, 3);
	CHECK(strstr(w.all, txt), "warning should name the file: %s", w.all);

	test_ctx = "a directory";
	d = dso_of(s, T, NULL);
	expect(s, d, 0x10, NULL, 0, "directory");
	CHECK_INT(w.n, 4);
	CHECK(strstr(w.all, "not a regular file"), "%s", w.all);
	symbolizer_free(s);
}

/* Where else the file is looked for, and when a file is not the recorded one. */
static void test_locations(void)
{
	const struct func *a = find_func(&prog, "sf_alpha");
	char deleted[600];
	struct symbolizer *s;
	struct sym_dso *d;
	struct stat st;
	struct warns w;

	if (!a || stat(prog_path, &st) < 0)
		return;

	test_ctx = "no build-id: inode check";
	s = new_sym(NULL, false, &w);
	d = symbolizer_dso(s, prog_path, NULL, 0, major(st.st_dev), minor(st.st_dev), st.st_ino);
	expect(s, d, a->off, "sf_alpha", 0, "same inode");
	d = symbolizer_dso(s, prog_path, NULL, 0, major(st.st_dev), minor(st.st_dev), st.st_ino + 1);
	expect(s, d, a->off, NULL, 0, "replaced file");
	CHECK_INT(w.n, 1);
	CHECK(strstr(w.all, "inode") && strstr(w.all, prog_path), "%s", w.all);
	/* Another device (another host, a symfs): the inode says nothing. */
	d = symbolizer_dso(s, prog_path, NULL, 0, major(st.st_dev) + 1, 77, st.st_ino + 1);
	expect(s, d, a->off, "sf_alpha", 0, "other device");
	CHECK_INT(w.n, 1);
	symbolizer_free(s);

	test_ctx = "alternative path";
	s = new_sym(NULL, false, &w);
	d = dso_of(s, "/nonexistent/dir/prog", &prog);
	CHECK(dso_of(s, prog_path, &prog) == d);
	CHECK_STR(sym_dso_path(d), "/nonexistent/dir/prog");
	expect(s, d, a->off + 3, "sf_alpha", 3, "found under the second path");
	CHECK_INT(w.n, 0);
	symbolizer_free(s);

	test_ctx = "deleted file";
	s = new_sym(NULL, false, &w);
	snprintf(deleted, sizeof(deleted), "%s (deleted)", prog_path);
	d = dso_of(s, deleted, &prog);
	expect(s, d, a->off, "sf_alpha", 0, "name with (deleted)");
	CHECK_INT(w.n, 0);
	symbolizer_free(s);
}

/* Line numbers of the markers in prog.c. */
static int marker_line(const char *marker)
{
	char path[1200], buf[512];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "%s/prog.c", SRC);
	f = fopen(path, "r");
	if (!f)
		die(path);
	while (fgets(buf, sizeof(buf), f)) {
		n++;
		if (strstr(buf, marker)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	return -1;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = s ? strlen(s) : 0, b = strlen(suffix);

	return s && a >= b && !strcmp(s + a - b, suffix);
}

/* (e) Inline frames. */
static void test_inline(void)
{
	const struct func *f = find_func(&prog, "sf_inline_caller");
	int leaf_line = marker_line("LEAF_LINE"), call_line = marker_line("CALL_LINE");
	struct symbolizer *s, *s1;
	struct sym_dso *d, *d1;
	struct sym_frame fr[8];
	struct warns w, w1;
	int two = 0, one = 0;

	test_ctx = "inline frames";
	if (!f)
		return;
	s = new_sym(NULL, true, &w);
	s1 = new_sym(NULL, false, &w1);
	d = dso_of(s, prog_path, &prog);
	d1 = dso_of(s1, prog_path, &prog);
	for (uint64_t o = 0; o < f->size; o++) {
		int n = symbolizer_lookup(s, d, f->off + o, fr, 8);

		if (!CHECK(n >= 1 && n <= 2, "offset %#llx: %d frames", (unsigned long long)o, n))
			continue;
		/* The outermost frame is always the real function, where it is. */
		CHECK_STR(fr[n - 1].name, "sf_inline_caller");
		CHECK(!fr[n - 1].inlined);
		CHECK_INT(fr[n - 1].offset, o);
		CHECK(ends_with(fr[n - 1].file, "/prog.c"), "offset %#llx: outer file %s",
		      (unsigned long long)o, fr[n - 1].file ? fr[n - 1].file : "(null)");
		if (n == 2) {
			two++;
			CHECK_STR(fr[0].name, "sf_inline_leaf");
			CHECK(fr[0].inlined);
			CHECK(ends_with(fr[0].file, "/prog.c"), "inner file %s",
			      fr[0].file ? fr[0].file : "(null)");
			/* Inside the leaf: its loop line; the caller at the call site. */
			if (fr[0].line == leaf_line)
				CHECK_INT(fr[1].line, call_line);
			CHECK(fr[0].line >= leaf_line - 5 && fr[0].line <= leaf_line + 1);
			CHECK_INT(fr[1].line, call_line);
			/* max = 1: the innermost frame only. */
			CHECK_INT(symbolizer_lookup(s, d, f->off + o, fr, 1), 1);
			CHECK_STR(fr[0].name, "sf_inline_leaf");
		} else {
			one++;
			CHECK(fr[0].line > 0);
		}
		/* Without inline frames: exactly the function, no source. */
		CHECK_INT(symbolizer_lookup(s1, d1, f->off + o, fr, 8), 1);
		CHECK_STR(fr[0].name, "sf_inline_caller");
		CHECK(fr[0].file == NULL && !fr[0].inlined);
	}
	printf("inline: %d addresses inside the expansion, %d outside\n", two, one);
	CHECK(two > 8);
	CHECK(one > 2);
	/* A function without inlines: one frame with its line. */
	f = find_func(&prog, "sf_alpha");
	if (f) {
		CHECK_INT(symbolizer_lookup(s, d, f->off + 4, fr, 8), 1);
		CHECK_STR(fr[0].name, "sf_alpha");
		CHECK(fr[0].line > 0 && !fr[0].inlined);
	}
	CHECK_INT(w.n, 0);
	symbolizer_free(s);
	symbolizer_free(s1);
}

/* (f) Shared libraries: with .symtab, and .dynsym only. */
static void test_shared(void)
{
	char dyn[600];
	struct symbolizer *s;
	struct sym_dso *d;
	struct warns w;
	const struct func *fi;

	test_ctx = "shared library";
	s = new_sym(NULL, false, &w);
	d = dso_of(s, lib_path, &lib);
	CHECK(expect_all(s, d, &lib, "sf_lib_", "libsf.so") == 3);
	CHECK(expect_all(s, d, &lib, NULL, "libsf.so") >= 3);
	CHECK_STR(sym_dso_name(d), "libsf.so");
	CHECK_INT(w.n, 0);
	symbolizer_free(s);

	test_ctx = ".dynsym only";
	snprintf(dyn, sizeof(dyn), "%s/libsf-dyn.so", T);
	sh("strip --strip-unneeded -o '%s' '%s'", dyn, lib_path);
	s = new_sym(NULL, false, &w);
	d = dso_of(s, dyn, &lib);
	expect_all(s, d, &lib, "sf_lib_first", ".dynsym");
	expect_all(s, d, &lib, "sf_lib_second", ".dynsym");
	/* The internal function is not in .dynsym: unknown, never a neighbour's name. */
	fi = find_func(&lib, "sf_lib_internal");
	if (fi) {
		expect(s, d, fi->off, NULL, 0, "internal function");
		expect(s, d, fi->off + fi->size / 2, NULL, 0, "internal function");
	}
	symbolizer_free(s);
}

/* ---- debuginfod (6) ---- */

static int listen_local(int *ret_port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 16) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0)
		die("listen");
	*ret_port = ntohs(a.sin_port);
	return fd;
}

static int count_connections(int fd)
{
	int n = 0, c;

	while ((c = accept(fd, NULL, NULL)) >= 0) {
		close(c);
		n++;
	}
	return n;
}

static void test_debuginfod(void)
{
	struct symbolizer_opts o = { 0 };
	char url[64], cache[600], stripped[600];
	struct symbolizer *s;
	struct sym_dso *d;
	struct sym_frame fr[2];
	int port, lfd = listen_local(&port), n;
	void *h;
	double t;

	snprintf(stripped, sizeof(stripped), "%s/strip/prog", T);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
	snprintf(cache, sizeof(cache), "%s/debuginfod-cache", T);
	setenv("DEBUGINFOD_CACHE_PATH", cache, 1);
	setenv("DEBUGINFOD_RETRY_LIMIT", "0", 1);
	unsetenv("http_proxy");
	unsetenv("HTTP_PROXY");
	unsetenv("all_proxy");
	unsetenv("ALL_PROXY");

	test_ctx = "debuginfod off";
	setenv("DEBUGINFOD_URLS", url, 1);
	s = symbolizer_new(&o);
	CHECK(getenv("DEBUGINFOD_URLS") == NULL);
	d = dso_of(s, stripped, &prog);
	CHECK_INT(symbolizer_lookup(s, d, find_func(&prog, "sf_alpha")->off, fr, 2), 1);
	CHECK(fr[0].name == NULL);
	CHECK_INT(count_connections(lfd), 0);
	symbolizer_free(s);

	test_ctx = "debuginfod on";
	o.debuginfod = true;
	o.debuginfod_timeout = 1;
	setenv("DEBUGINFOD_URLS", url, 1);
	s = symbolizer_new(&o);
	CHECK_STR(getenv("DEBUGINFOD_URLS"), url);
	CHECK_STR(getenv("DEBUGINFOD_TIMEOUT"), "1");
	h = dlopen("libdebuginfod.so.1", RTLD_LAZY);
	if (h) {
		dlclose(h);
		d = dso_of(s, stripped, &prog);
		t = now();
		symbolizer_lookup(s, d, find_func(&prog, "sf_alpha")->off, fr, 2);
		t = now() - t;
		n = count_connections(lfd);
		printf("debuginfod on: %d connection(s) to the test server, lookup %.2f s\n", n, t);
		CHECK(n >= 1);
		CHECK(t < 30);
	} else {
		printf("debuginfod on: libdebuginfod.so.1 not installed, query not checked\n");
	}
	symbolizer_free(s);
	unsetenv("DEBUGINFOD_URLS");
	close(lfd);
}

/* ---- cost ---- */

static void test_cost(void)
{
	char s_path[600], bin[600];
	struct symbolizer_stats st;
	struct elfinfo ei;
	struct symbolizer *s;
	struct sym_dso *d;
	struct sym_frame fr[2];
	struct warns w;
	FILE *f;
	const int n_fn = 50000;
	double t0, t_open, t_miss, t_hit;
	size_t n_look = 0, bad = 0;
	uint64_t *offs;

	test_ctx = "cost";
	snprintf(s_path, sizeof(s_path), "%s/big.s", T);
	snprintf(bin, sizeof(bin), "%s/big", T);
	f = fopen(s_path, "w");
	if (!f)
		die(s_path);
	fprintf(f, "\t.text\n");
	for (int i = 0; i < n_fn; i++)
		fprintf(f,
			"\t.globl big_fn_%d\n\t.type big_fn_%d, %%function\nbig_fn_%d:\n"
			"\t.skip %d, 0\n\t.size big_fn_%d, .-big_fn_%d\n",
			i, i, i, 16 + (i % 7) * 8, i, i);
	fprintf(f, "\t.section .note.GNU-stack,\"\",%%progbits\n");
	fclose(f);
	sh("cd '%s' && printf 'int main(void){return 0;}\\n' > bigmain.c && "
	   "gcc -O0 -fPIE -pie -Wl,--build-id -o '%s' bigmain.c '%s'",
	   T, bin, s_path);
	elf_read(bin, &ei);
	CHECK(ei.n >= (size_t)n_fn);

	s = new_sym(NULL, false, &w);
	d = dso_of(s, bin, &ei);
	t0 = now();
	symbolizer_lookup(s, d, ei.f[0].off, fr, 2);
	t_open = now() - t0;

	/* Misses: every function's start and middle, once, in a scattered order. */
	offs = malloc(2 * ei.n * sizeof(*offs));
	if (!offs)
		die("malloc");
	for (size_t i = 0; i < ei.n; i++) {
		const struct func *fn = &ei.f[(i * 7919) % ei.n];

		offs[n_look++] = fn->off;
		offs[n_look++] = fn->off + fn->size / 2;
	}
	t0 = now();
	for (size_t i = 0; i < n_look; i++)
		symbolizer_lookup(s, d, offs[i], fr, 2);
	t_miss = (now() - t0) / (double)n_look;
	for (size_t i = 0; i < ei.n; i++) {
		symbolizer_lookup(s, d, ei.f[i].off + ei.f[i].size / 2, fr, 2);
		if (!fr[0].name || strcmp(fr[0].name, ei.f[i].name) ||
		    fr[0].offset != ei.f[i].size / 2)
			bad++;
	}
	CHECK_INT(bad, 0);

	/* Hits: 20 rounds over the same offsets. */
	t0 = now();
	for (int r = 0; r < 20; r++)
		for (size_t i = 0; i < n_look; i++)
			symbolizer_lookup(s, d, offs[i], fr, 2);
	t_hit = (now() - t0) / (20.0 * (double)n_look);
	free(offs);
	st = *symbolizer_stats(s);
	printf("cost: %zu symbols: open + index %.1f ms, first lookup of an address %.0f ns, "
	       "cached %.0f ns (%llu hits of %llu lookups)\n",
	       ei.n, t_open * 1e3, t_miss * 1e9, t_hit * 1e9, (unsigned long long)st.cache_hits,
	       (unsigned long long)st.lookups);
	CHECK(st.cache_hits >= 20 * n_look + ei.n);
	symbolizer_free(s);
	free(ei.f);
}

/* ELF address -> file offset of PATH through its PT_LOAD table; (uint64_t)-1 when outside. */
static uint64_t vaddr_to_off(const char *path, uint64_t vaddr)
{
	int fd = open(path, O_RDONLY);
	uint64_t off = (uint64_t)-1;
	size_t phnum;
	Elf *e;

	if (fd < 0)
		die(path);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_getphdrnum(e, &phnum))
		die("elf_begin");
	for (size_t k = 0; k < phnum; k++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)k, &ph) && ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr &&
		    vaddr < ph.p_vaddr + ph.p_filesz)
			off = vaddr - ph.p_vaddr + ph.p_offset;
	}
	elf_end(e);
	close(fd);
	return off;
}

/* The output of TOOL (objdump -d, nm) run on PATH, to read line by line; pclose() it. */
static FILE *tool_output(const char *tool, const char *path)
{
	char cmd[800];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "%s '%s'", tool, path);
	f = popen(cmd, "r");
	if (!f)
		die(cmd);
	return f;
}

/* (l) The fixture's zero-size local labels cover up to the next symbol, as ld.so's _start:
 * the call's return address is sf_label_after, so address - 1 is in sf_label_entry. */
static void check_labels(struct symbolizer *s, struct sym_dso *d, const char *path, const char *tag)
{
	uint64_t entry = (uint64_t)-1, after = (uint64_t)-1;
	FILE *f = tool_output("nm", path);
	char line[1024];

	while (fgets(line, sizeof(line), f)) {
		unsigned long long va;
		char type, name[256];

		if (sscanf(line, "%llx %c %255s", &va, &type, name) != 3)
			continue;
		if (!strcmp(name, "sf_label_entry"))
			entry = vaddr_to_off(path, va);
		else if (!strcmp(name, "sf_label_after"))
			after = vaddr_to_off(path, va);
	}
	pclose(f);
	CHECK(entry != (uint64_t)-1 && after == entry + 5, "%s: labels at %#llx and %#llx", tag,
	      (unsigned long long)entry, (unsigned long long)after);
	expect(s, d, entry, "sf_label_entry", 0, "a zero-size label");
	expect(s, d, after - 1, "sf_label_entry", 4, "a zero-size label up to the next one");
	expect(s, d, after, "sf_label_after", 0, "the next zero-size label");
}

/*
 * (m) One name either way: a symbolizer that only has the symbols the helper captured
 * (lib/elf/symcap.c, as a recording stores them for a binary that is gone) names every byte
 * of PATH as the file on disk does: the same alias of several at one address, the same PLT
 * stubs, nothing past a symbol's end. Returns the number of named offsets compared.
 */
static size_t same_both_ways(const char *path, const struct elfinfo *ei, const char *tag)
{
	struct symbolizer *disk, *cap;
	struct sym_dso *dd, *dc;
	struct warns w1, w2;
	char gone[700], why[256];
	size_t size, named = 0, bad = 0;
	struct stat st;
	void *buf;
	int fd = open(path, O_RDONLY), rc;

	if (fd < 0 || fstat(fd, &st) < 0)
		die(path);
	rc = symcap_extract_fd(fd, &buf, &size, why, sizeof(why));
	close(fd);
	if (!CHECK(rc == 0, "%s: the helper's symbols: %s", tag, why))
		return 0;
	disk = new_sym(NULL, false, &w1);
	cap = new_sym(NULL, false, &w2);
	CHECK_INT(symbolizer_add_symtab(cap, ei->id, ei->id_len, NULL, 0, 1,
					((struct uwp_symtab_hdr *)buf)->n,
					(char *)buf + sizeof(struct uwp_symtab_hdr),
					size - sizeof(struct uwp_symtab_hdr)),
		  0);
	free(buf);
	snprintf(gone, sizeof(gone), "%s/gone/%s", T, tag);
	dd = dso_of(disk, path, ei);
	dc = dso_of(cap, gone, ei);
	for (uint64_t off = 0; off < (uint64_t)st.st_size; off++) {
		struct sym_frame a[4], b[4];
		int na = symbolizer_lookup(disk, dd, off, a, 4);
		int nb = symbolizer_lookup(cap, dc, off, b, 4);
		const char *an = na == 1 ? a[0].name : NULL, *bn = nb == 1 ? b[0].name : NULL;

		if (!an && !bn)
			continue;
		named++;
		if (an && bn && !strcmp(an, bn) && a[0].offset == b[0].offset)
			continue;
		if (bad++ < 5)
			CHECK(false, "%s: offset %#llx: %s+%#llx from the file, %s+%#llx captured",
			      tag, (unsigned long long)off, an ? an : "(unknown)",
			      (unsigned long long)(an ? a[0].offset : 0), bn ? bn : "(unknown)",
			      (unsigned long long)(bn ? b[0].offset : 0));
	}
	CHECK(bad == 0, "%s: %zu of %zu named offsets differ", tag, bad, named);
	CHECK(named > 0, "%s: nothing named", tag);
	symbolizer_free(disk);
	symbolizer_free(cap);
	return named;
}

/* The first RP_DIGEST_LEN bytes of PATH's digest (lib/elf/elfdigest.c), as a recording
 * keeps it. */
static void digest_of(const char *path, uint8_t out[RP_DIGEST_LEN])
{
	uint8_t sha[SHA256_LEN];
	int fd = open(path, O_RDONLY);

	if (fd < 0 || elfdigest_fd(fd, sha) < 0)
		die(path);
	close(fd);
	memcpy(out, sha, RP_DIGEST_LEN);
}

/* Give S the symbols the helper captures of FILE, under build-id EI's and DIGEST. */
static void capture_as(struct symbolizer *s, const char *file, const struct elfinfo *ei,
		       const uint8_t *digest)
{
	char why[256];
	size_t size;
	void *buf;
	int fd = open(file, O_RDONLY);

	if (fd < 0 || symcap_extract_fd(fd, &buf, &size, why, sizeof(why)) < 0)
		die(file);
	close(fd);
	CHECK_INT(symbolizer_add_symtab(s, ei->id, ei->id_len, digest, 0, 1,
					((struct uwp_symtab_hdr *)buf)->n,
					(char *)buf + sizeof(struct uwp_symtab_hdr),
					size - sizeof(struct uwp_symtab_hdr)),
		  0);
	free(buf);
}

/*
 * (n) The file on disk against what was recorded (issue 24): a recording says prog's
 * build-id with the digest of what the file held. Prog's own digest: names from the file on
 * disk, no warning. The digest of another file (libsf.so recorded with prog's build-id
 * copied in: a forged or rebuilt file) with that file's captured symbols: those name it, never
 * the file on disk, and one warning names the file; without them: unknown, one warning.
 */
static void test_digest(void)
{
	uint8_t own[RP_DIGEST_LEN], forged[RP_DIGEST_LEN];
	struct symbolizer *s;
	struct sym_dso *d;
	struct warns w;

	digest_of(prog_path, own);
	digest_of(lib_path, forged);

	test_ctx = "digest: the file on disk is the one recorded";
	s = new_sym(NULL, false, &w);
	capture_as(s, lib_path, &prog, forged);
	d = dso_of(s, prog_path, &prog);
	sym_dso_set_digest(d, own);
	CHECK(expect_all(s, d, &prog, NULL, "own digest") >= 6);
	CHECK_INT(w.n, 0);
	CHECK_INT(symbolizer_stats(s)->dsos_opened, 1);
	CHECK_INT(symbolizer_stats(s)->dsos_captured, 0);
	symbolizer_free(s);

	test_ctx = "digest: another file was recorded, its symbols captured";
	s = new_sym(NULL, false, &w);
	capture_as(s, lib_path, &prog, forged);
	d = dso_of(s, prog_path, &prog);
	sym_dso_set_digest(d, forged);
	CHECK(expect_all(s, d, &lib, "sf_lib", "captured") >= 3);
	for (size_t i = 0; i < prog.n; i++) {
		struct sym_frame fr[4];

		symbolizer_lookup(s, d, prog.f[i].off, fr, 4);
		CHECK(!fr[0].name || strncmp(fr[0].name, "sf_", 3) ||
			  !strncmp(fr[0].name, "sf_lib_", 7),
		      "the file on disk named a recorded frame: %s", fr[0].name);
	}
	CHECK_INT(w.n, 1);
	CHECK(strstr(w.all, prog_path) && strstr(w.all, prog.hex) &&
		  strstr(w.all, "named from the symbols captured"),
	      "one warning naming the file, its build-id and what names it: %s", w.all);
	CHECK_INT(symbolizer_stats(s)->dsos_opened, 0);
	CHECK_INT(symbolizer_stats(s)->dsos_captured, 1);
	symbolizer_free(s);

	test_ctx = "digest: another file was recorded, nothing captured";
	s = new_sym(NULL, false, &w);
	d = dso_of(s, prog_path, &prog);
	sym_dso_set_digest(d, forged);
	for (size_t i = 0; i < prog.n; i++)
		expect(s, d, prog.f[i].off, NULL, 0, "nothing captured");
	CHECK_INT(w.n, 1);
	CHECK(strstr(w.all, prog_path) && strstr(w.all, "[unknown]"),
	      "one warning naming the file and saying its frames are unknown: %s", w.all);
	symbolizer_free(s);
}

/* The inode of PATH as a mapping records it. */
static void map_ino(const char *path, uint32_t *maj, uint32_t *min, uint64_t *ino)
{
	struct stat st;

	if (stat(path, &st) < 0)
		die(path);
	*maj = major(st.st_dev);
	*min = minor(st.st_dev);
	*ino = st.st_ino;
}

/*
 * (o2) One binary in two inodes at one path (reinstalled or relinked alike while recording),
 * each mapped before its build-id came: two objects, and dsotab_canonical() makes them one
 * (one row per function); the same binary under another path stays an object of its own.
 */
static void test_two_inodes(void)
{
	char same[600], copy[600];
	uint32_t maj, min, maj2, min2;
	uint64_t ino, ino2;
	struct symbolizer *s;
	struct dsotab *t;
	struct warns w;
	int64_t a, b, c;

	test_ctx = "one binary in two inodes";
	snprintf(same, sizeof(same), "%s/two/libsf.so", T);
	snprintf(copy, sizeof(copy), "%s/two/libsf-copy.so", T);
	mkdirs("two");
	sh("cp '%s' '%s' && cp '%s' '%s'", lib_path, same, lib_path, copy);
	s = new_sym(NULL, false, &w);
	t = dsotab_new(s, NULL);
	if (!t)
		die("dsotab_new");
	map_ino(same, &maj, &min, &ino);
	a = dsotab_add_mapped(t, same, NULL, 0, maj, min, ino, 0, 100);
	sh("cp '%s' '%s.new' && mv '%s.new' '%s'", lib_path, same, same, same);
	map_ino(same, &maj2, &min2, &ino2);
	CHECK(ino2 != ino, "the file was replaced by another inode");
	b = dsotab_add_mapped(t, same, NULL, 0, maj2, min2, ino2, 0, 101);
	map_ino(copy, &maj2, &min2, &ino2);
	c = dsotab_add_mapped(t, copy, NULL, 0, maj2, min2, ino2, 0, 102);
	dsotab_learn_build_id(t, maj, min, ino, 0, lib.id, lib.id_len, NULL);
	map_ino(same, &maj, &min, &ino);
	dsotab_learn_build_id(t, maj, min, ino, 0, lib.id, lib.id_len, NULL);
	dsotab_learn_build_id(t, maj2, min2, ino2, 0, lib.id, lib.id_len, NULL);
	CHECK(a > 0 && b > 0 && a != b, "two mappings before their build-ids: objects %lld, %lld",
	      (long long)a, (long long)b);
	CHECK_INT(dsotab_canonical(t, (uint32_t)a), (uint32_t)a);
	CHECK_INT(dsotab_canonical(t, (uint32_t)b), (uint32_t)a);
	CHECK_INT(dsotab_canonical(t, (uint32_t)c), (uint32_t)c);
	CHECK_INT(dsotab_canonical(t, DSOTAB_KERNEL_ID), DSOTAB_KERNEL_ID);
	dsotab_free(t);
	symbolizer_free(s);
}

/*
 * (o) One object per file when its build-id comes after it was symbolized (ringprof script
 * and top symbolize as they read; RP_REC_BUILDID may come files later): the handle opened by
 * inode takes the build-id its file has, so the file's later mappings, given that build-id,
 * are the same object and its functions one row each. A build-id the opened file does not
 * have is not taken: another object.
 */
static void test_learn_after_open(void)
{
	struct symbolizer *s;
	struct dsotab *t;
	struct warns w;
	struct stat st;
	int64_t first, later, other;
	uint8_t wrong[20];

	test_ctx = "build-id learned after the lookup";
	if (stat(lib_path, &st) < 0)
		die(lib_path);
	s = new_sym(NULL, false, &w);
	t = dsotab_new(s, NULL);
	if (!t)
		die("dsotab_new");
	first = dsotab_add_mapped(t, lib_path, NULL, 0, major(st.st_dev), minor(st.st_dev),
				  st.st_ino, 0, 100);
	CHECK(first > 0);
	expect(s, dsotab_sym(t, (uint32_t)first), lib.f[0].off, lib.f[0].name, 0, "before");
	CHECK_INT(dsotab_learn_build_id(t, major(st.st_dev), minor(st.st_dev), st.st_ino, 0, lib.id,
					lib.id_len, NULL),
		  0);
	later = dsotab_add_mapped(t, lib_path, NULL, 0, major(st.st_dev), minor(st.st_dev),
				  st.st_ino, 0, 101);
	CHECK(later == first, "a later mapping of the file is object %lld, not %lld",
	      (long long)later, (long long)first);
	CHECK_INT(symbolizer_stats(s)->dsos, 1);
	expect(s, dsotab_sym(t, (uint32_t)later), lib.f[0].off, lib.f[0].name, 0, "after");
	dsotab_free(t);
	symbolizer_free(s);

	test_ctx = "another build-id learned after the lookup";
	s = new_sym(NULL, false, &w);
	t = dsotab_new(s, NULL);
	if (!t)
		die("dsotab_new");
	first = dsotab_add_mapped(t, lib_path, NULL, 0, major(st.st_dev), minor(st.st_dev),
				  st.st_ino, 0, 100);
	expect(s, dsotab_sym(t, (uint32_t)first), lib.f[0].off, lib.f[0].name, 0, "before");
	memset(wrong, 0x5a, sizeof(wrong));
	dsotab_learn_build_id(t, major(st.st_dev), minor(st.st_dev), st.st_ino, 0, wrong,
			      sizeof(wrong), NULL);
	other = dsotab_add_mapped(t, lib_path, NULL, 0, major(st.st_dev), minor(st.st_dev),
				  st.st_ino, 0, 101);
	CHECK(other != first, "a file opened with another build-id took the learned one");
	dsotab_free(t);
	symbolizer_free(s);
	test_two_inodes();
}

/*
 * (k) PLT stubs: every "<name@plt>" label objdump -d gives the fixture (built with LDFLAGS:
 * lazy .plt and .plt.got, IBT's .plt.sec, -z now) is found at its start and inside; (l) the
 * zero-size labels.
 */
static void test_plt_labels(const char *tag, const char *ldflags)
{
	char path[600], line[1024];
	struct symbolizer *s;
	struct sym_dso *d;
	struct elfinfo ei;
	struct warns w;
	int n_plt = 0;
	FILE *f;

	test_ctx = tag;
	snprintf(path, sizeof(path), "%s/labels-%s", T, tag);
	sh("gcc %s -fPIE -pie %s -o '%s' '%s/labels.c'", CFLAGS, ldflags, path, SRC);
	elf_read(path, &ei);
	s = new_sym(NULL, false, &w);
	d = dso_of(s, path, &ei);
	f = tool_output("objdump -d", path);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long va;
		char name[256];
		uint64_t off;

		if (sscanf(line, "%llx <%255[^>]>:", &va, name) != 2 || !ends_with(name, "@plt"))
			continue;
		off = vaddr_to_off(path, va);
		expect(s, d, off, name, 0, "a PLT entry's start");
		expect(s, d, off + 5, name, 5, "inside a PLT entry");
		n_plt++;
	}
	pclose(f);
	CHECK(n_plt >= 6,
	      "%s: objdump shows %d PLT entries, expected free, strcpy, puts, strlen, "
	      "printf, malloc at least",
	      tag, n_plt);
	check_labels(s, d, path, tag);
	CHECK_INT(w.n, 0);
	symbolizer_free(s);
	same_both_ways(path, &ei, tag);
	free(ei.f);
}

/*
 * (n) Aliases and versions: the library's versioned definition shows as "vfunc" (perf drops
 * "@@SF_2"; the raw name keeps it), the public alias "spin" over "__impl_spin", the PLT stub
 * as "malloc@plt", from the file and from the captured symbols alike.
 */
static void test_aliases(void)
{
	char path[600], line[1024];
	struct symbolizer *s;
	struct sym_dso *d;
	struct elfinfo ei;
	struct warns w;
	uint64_t vfunc = (uint64_t)-1, spin = (uint64_t)-1, plt = (uint64_t)-1;
	FILE *f;

	test_ctx = "aliases";
	snprintf(path, sizeof(path), "%s/libaliases.so", T);
	sh("printf 'SF_1 { global: vfunc; spin; __impl_spin; sf_calls; local: *; };\\n"
	   "SF_2 { global: vfunc; } SF_1;\\n' > '%s/aliases.map'",
	   T);
	sh("gcc %s -fPIC -shared -Wl,--version-script='%s/aliases.map' -o '%s' '%s/aliases.c'",
	   CFLAGS, T, path, SRC);
	elf_read(path, &ei);
	f = tool_output("objdump -d", path);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long va;
		char name[256];

		if (sscanf(line, "%llx <%255[^>]>:", &va, name) != 2)
			continue;
		if (!strcmp(name, "vfunc@@SF_2"))
			vfunc = vaddr_to_off(path, va);
		else if (!strcmp(name, "__impl_spin") || !strcmp(name, "spin"))
			spin = vaddr_to_off(path, va);
		else if (!strcmp(name, "malloc@plt"))
			plt = vaddr_to_off(path, va);
	}
	pclose(f);
	CHECK(vfunc != (uint64_t)-1 && spin != (uint64_t)-1 && plt != (uint64_t)-1,
	      "objdump shows vfunc@@SF_2 (%#llx), spin (%#llx), malloc@plt (%#llx)",
	      (unsigned long long)vfunc, (unsigned long long)spin, (unsigned long long)plt);
	s = new_sym(NULL, false, &w);
	d = dso_of(s, path, &ei);
	expect(s, d, vfunc, "vfunc", 0, "a versioned definition, its version dropped");
	expect(s, d, spin, "spin", 0, "the public alias over __impl_spin");
	expect(s, d, plt + 4, "malloc@plt", 4, "a PLT stub keeps @plt");
	{
		struct sym_frame fr[4];

		if (symbolizer_lookup(s, d, vfunc, fr, 4) == 1)
			CHECK_STR(fr[0].raw, "vfunc@@SF_2");
	}
	CHECK_INT(w.n, 0);
	symbolizer_free(s);
	same_both_ways(path, &ei, "aliases");
	free(ei.f);
}

/* The temp directory goes on every exit (a failed setup step too), unless KEEP is set. */
static void remove_tmp(void)
{
	char cmd[300];

	if (T[0] && !getenv("KEEP")) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", T);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", T);
	}
}

static void find_srcdir(void)
{
	const char *top = getenv("top_srcdir");
	char probe[1200];

	if (top && *top) {
		snprintf(SRC, sizeof(SRC), "%s/tests/symfix", top);
	} else {
		/* __FILE__ is relative to the build directory in an automake build. */
		const char *slash = strrchr(__FILE__, '/');

		snprintf(SRC, sizeof(SRC), "%.*s/symfix", slash ? (int)(slash - __FILE__) : 1,
			 slash ? __FILE__ : ".");
	}
	snprintf(probe, sizeof(probe), "%s/prog.c", SRC);
	if (access(probe, R_OK)) {
		fprintf(stderr, "%s:%d: fixture %s not found (set top_srcdir)\n", __FILE__,
			__LINE__, probe);
		exit(1);
	}
	{
		char *abs = realpath(SRC, NULL); /* gcc runs in other directories */

		if (!abs || strlen(abs) >= sizeof(SRC))
			die(SRC);
		strcpy(SRC, abs);
		free(abs);
	}
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");

	if (!have("gcc") || !have("objcopy") || !have("strip")) {
		fprintf(stderr, "SKIP: gcc, objcopy or strip missing\n");
		return 77;
	}
	find_srcdir();
	snprintf(T, sizeof(T), "%s/rp-test-symbolizer.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(T))
		die("mkdtemp");
	atexit(remove_tmp);
	/* The debug cache of inflated debug files: this test's own. */
	sh("mkdir -p '%s/xdg'", T);
	{
		char x[300];

		snprintf(x, sizeof(x), "%s/xdg", T);
		setenv("XDG_CACHE_HOME", x, 1);
	}

	snprintf(prog_path, sizeof(prog_path), "%s/prog", T);
	snprintf(lib_path, sizeof(lib_path), "%s/libsf.so", T);
	sh("gcc %s -fPIE -pie -o '%s' '%s/prog.c'", CFLAGS, prog_path, SRC);
	sh("gcc %s -fPIC -shared -o '%s' '%s/lib.c'", CFLAGS, lib_path, SRC);
	elf_read(prog_path, &prog);
	elf_read(lib_path, &lib);
	if (!prog.id_len || !lib.id_len) {
		fprintf(stderr, "%s:%d: fixtures built without a build-id\n", __FILE__, __LINE__);
		return 1;
	}

	test_plain();
	test_separate_debug();
	test_debug_cache();
	test_rebuilt();
	test_missing_with_debug("bfd-objcopy", "", DBG_OBJCOPY);
	test_missing_with_debug("bfd-noseparate", "-Wl,-z,noseparate-code", DBG_OBJCOPY);
	test_missing_with_debug("bfd-binary-link", "", DBG_BINARY);
	if (have("eu-strip"))
		test_missing_with_debug("bfd-eu-strip", "", DBG_EU_STRIP);
	if (have("ld.gold"))
		test_missing_with_debug("gold", "-fuse-ld=gold", DBG_OBJCOPY);
	if (have("ld.lld"))
		test_missing_with_debug("lld", "-fuse-ld=lld", DBG_OBJCOPY);
	test_missing();
	test_locations();
	test_inline();
	test_shared();
	test_debuginfod();
	test_plt_labels("lazy", "");
	test_plt_labels("ibt", "-fcf-protection=full -Wl,-z,ibtplt");
	test_plt_labels("now", "-Wl,-z,now");
	test_aliases();
	test_digest();
	test_learn_after_open();
	same_both_ways(prog_path, &prog, "prog");
	same_both_ways(lib_path, &lib, "lib");
	test_cost();

	free(prog.f);
	free(lib.f);
	return check_done("test-symbolizer");
}
