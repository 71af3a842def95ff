/* test-procfs.c — unit test of lib/procfs.c: hostile lines, fixture files, a fake /proc, self. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "check.h"
#include "base/procfs.h"

static char tmpdir[256];

static char *xmalloc(size_t n)
{
	char *p = malloc(n);

	if (!p) {
		perror("malloc");
		exit(1);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	return strcpy(xmalloc(strlen(s) + 1), s);
}

/* A string of N copies of C. */
static char *repeat(char c, size_t n)
{
	char *s = xmalloc(n + 1);

	memset(s, c, n);
	s[n] = '\0';
	return s;
}

/*
 * A maps line laid out as the kernel prints it: HDR ("start-end perms off dev ino"), a
 * space, and for a named mapping padding to WIDTH columns plus one space before PATH.
 */
static char *kernel_line(const char *hdr, const char *path, size_t width, bool newline)
{
	size_t hl = strlen(hdr) + 1, pl = path ? strlen(path) : 0;
	size_t ps = path ? (hl > width ? hl : width) + 1 : hl;
	char *s = xmalloc(ps + pl + 2), *p;

	memcpy(s, hdr, hl - 1);
	memset(s + hl - 1, ' ', ps - hl + 1);
	memcpy(s + ps, path ? path : "", pl);
	p = s + ps + pl;
	if (newline)
		*p++ = '\n';
	*p = '\0';
	return s;
}

/* Write LEN bytes to ROOT/REL, creating the parent directories. */
static void put_file(const char *root, const char *rel, const void *data, size_t len)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			perror(path);
			exit(1);
		}
		*p = '/';
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len || close(fd) < 0) {
		perror(path);
		exit(1);
	}
}

static void put_str(const char *root, const char *rel, const char *s)
{
	put_file(root, rel, s, strlen(s));
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void rm_rf(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- procfs_parse_maps_line ---- */

struct maps_case {
	const char *name;
	const char *line;  /* literal line, or the header when kpath is set */
	const char *kpath; /* build the line with the kernel's padding before this path */
	size_t width;	   /* padding for kpath: 72 (64-bit kernel) or 48 (32-bit) */
	int ret;
	uint64_t start, end, pgoff;
	uint32_t maj, min;
	uint64_t ino;
	uint32_t prot, flags;
	bool deleted;
	const char *path;
};

#define RX (PROT_READ | PROT_EXEC)
#define RW (PROT_READ | PROT_WRITE)

static const struct maps_case maps_cases[] = {
	{ "libc text", "7f2808398000-7f28084ee000 r-xp 00026000 fe:00 332835",
	  "/usr/lib/x86_64-linux-gnu/libc.so.6", 72, 0, 0x7f2808398000, 0x7f28084ee000, 0x26000,
	  0xfe, 0, 332835, RX, MAP_PRIVATE, false, "/usr/lib/x86_64-linux-gnu/libc.so.6" },
	{ "anonymous, kernel trailing space", "7f28082ef000-7f2808311000 rw-p 00000000 00:00 0 \n",
	  NULL, 0, 0, 0x7f28082ef000, 0x7f2808311000, 0, 0, 0, 0, RW, MAP_PRIVATE, false, "" },
	{ "anonymous, no space, no newline", "7f28082ef000-7f2808311000 rw-p 00000000 00:00 0",
	  NULL, 0, 0, 0x7f28082ef000, 0x7f2808311000, 0, 0, 0, 0, RW, MAP_PRIVATE, false, "" },
	{ "anonymous, trailing blanks", "1000-2000 ---p 00000000 00:00 0       \n", NULL, 0, 0,
	  0x1000, 0x2000, 0, 0, 0, 0, 0, MAP_PRIVATE, false, "" },
	{ "heap", "55c630852000-55c630873000 rw-p 00000000 00:00 0", "[heap]", 72, 0,
	  0x55c630852000, 0x55c630873000, 0, 0, 0, 0, RW, MAP_PRIVATE, false, "[heap]" },
	{ "stack", "7ffc1a2b3000-7ffc1a2d4000 rw-p 00000000 00:00 0", "[stack]", 72, 0,
	  0x7ffc1a2b3000, 0x7ffc1a2d4000, 0, 0, 0, 0, RW, MAP_PRIVATE, false, "[stack]" },
	{ "vdso", "7ffc1a3f0000-7ffc1a3f2000 r-xp 00000000 00:00 0", "[vdso]", 72, 0,
	  0x7ffc1a3f0000, 0x7ffc1a3f2000, 0, 0, 0, 0, RX, MAP_PRIVATE, false, "[vdso]" },
	{ "vsyscall, 16 hex digits", "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0",
	  "[vsyscall]", 72, 0, 0xffffffffff600000, 0xffffffffff601000, 0, 0, 0, 0, PROT_EXEC,
	  MAP_PRIVATE, false, "[vsyscall]" },
	{ "named anon", "7f0000000000-7f0000001000 rw-p 00000000 00:00 0", "[anon:ringprof buf]",
	  72, 0, 0x7f0000000000, 0x7f0000001000, 0, 0, 0, 0, RW, MAP_PRIVATE, false,
	  "[anon:ringprof buf]" },
	{ "shared", "7f2808557000-7f280855e000 r--s 00000000 fe:00 332280",
	  "/usr/lib/x86_64-linux-gnu/gconv/gconv-modules.cache", 72, 0, 0x7f2808557000,
	  0x7f280855e000, 0, 0xfe, 0, 332280, PROT_READ, MAP_SHARED, false,
	  "/usr/lib/x86_64-linux-gnu/gconv/gconv-modules.cache" },
	{ "spaces in path", "7f0000000000-7f0000002000 r-xp 00001000 08:01 42",
	  "/opt/my app/lib  two.so", 72, 0, 0x7f0000000000, 0x7f0000002000, 0x1000, 8, 1, 42, RX,
	  MAP_PRIVATE, false, "/opt/my app/lib  two.so" },
	{ "leading spaces kept (64-bit layout)", "7f0000000000-7f0000002000 r-xp 00000000 08:01 42",
	  "  odd name", 72, 0, 0x7f0000000000, 0x7f0000002000, 0, 8, 1, 42, RX, MAP_PRIVATE, false,
	  "  odd name" },
	{ "deleted", "7f0000000000-7f0000002000 r-xp 00000000 00:01 1234", "/memfd:jit (deleted)",
	  72, 0, 0x7f0000000000, 0x7f0000002000, 0, 0, 1, 1234, RX, MAP_PRIVATE, true,
	  "/memfd:jit" },
	{ "deleted with spaces", "7f0000000000-7f0000002000 r-xp 00000000 08:01 9",
	  "/tmp/a b (deleted) (deleted)", 72, 0, 0x7f0000000000, 0x7f0000002000, 0, 8, 1, 9, RX,
	  MAP_PRIVATE, true, "/tmp/a b (deleted)" },
	{ "name looks deleted but is not", "7f0000000000-7f0000002000 r-xp 00000000 08:01 9",
	  "/tmp/(deleted)", 72, 0, 0x7f0000000000, 0x7f0000002000, 0, 8, 1, 9, RX, MAP_PRIVATE,
	  false, "/tmp/(deleted)" },
	{ "header longer than the pad width",
	  "ffffffffff600000-ffffffffff601000 rwxs ffffffffffff0000 ffffffff:ffffffff "
	  "18446744073709551615",
	  " /lead", 72, 0, 0xffffffffff600000, 0xffffffffff601000, 0xffffffffffff0000, 0xffffffff,
	  0xffffffff, UINT64_MAX, RW | PROT_EXEC, MAP_SHARED, false, " /lead" },
	{ "32-bit kernel layout", "08048000-08056000 r-xp 00000000 03:0c 64593", "/usr/sbin/gpm",
	  48, 0, 0x8048000, 0x8056000, 0, 3, 0xc, 64593, RX, MAP_PRIVATE, false, "/usr/sbin/gpm" },
	{ "32-bit kernel layout, leading space", "08048000-08056000 r-xp 00000000 03:0c 64593",
	  " gpm", 48, 0, 0x8048000, 0x8056000, 0, 3, 0xc, 64593, RX, MAP_PRIVATE, false, " gpm" },
	{ "single space (not the kernel's layout)",
	  "00400000-00452000 r-xp 00000000 08:02 173521 /usr/bin/dbus-daemon\n", NULL, 0, 0,
	  0x400000, 0x452000, 0, 8, 2, 173521, RX, MAP_PRIVATE, false, "/usr/bin/dbus-daemon" },
	{ "odd padding", "00400000-00452000 r-xp 00000000 08:02 173521     /usr/bin/x y\n", NULL, 0,
	  0, 0x400000, 0x452000, 0, 8, 2, 173521, RX, MAP_PRIVATE, false, "/usr/bin/x y" },
	{ "upper-case hex", "7F0000000000-7F0000001000 r--p 0000A000 FD:0A 7 /x", NULL, 0, 0,
	  0x7f0000000000, 0x7f0000001000, 0xa000, 0xfd, 0xa, 7, PROT_READ, MAP_PRIVATE, false,
	  "/x" },
	{ "empty mapping (start == end)", "1000-1000 r--p 00000000 00:00 0", NULL, 0, 0, 0x1000,
	  0x1000, 0, 0, 0, 0, PROT_READ, MAP_PRIVATE, false, "" },

	{ "empty", "", NULL, 0, -EINVAL, 0, 0, 0, 0, 0, 0, 0, 0, false, NULL },
	{ "newline only", "\n", NULL, 0, -EINVAL, 0, 0, 0, 0, 0, 0, 0, 0, false, NULL },
	{ "start only", "7f2808398000-", NULL, 0, -EINVAL, 0, 0, 0, 0, 0, 0, 0, 0, false, NULL },
	{ "no perms", "7f2808398000-7f28084ee000\n", NULL, 0, -EINVAL, 0, 0, 0, 0, 0, 0, 0, 0,
	  false, NULL },
	{ "no offset", "7f2808398000-7f28084ee000 r-xp", NULL, 0, -EINVAL, 0, 0, 0, 0, 0, 0, 0, 0,
	  false, NULL },
	{ "no device", "7f2808398000-7f28084ee000 r-xp 00026000 \n", NULL, 0, -EINVAL, 0, 0, 0, 0,
	  0, 0, 0, 0, false, NULL },
	{ "no minor", "7f2808398000-7f28084ee000 r-xp 00026000 fe: 1 /x", NULL, 0, -EINVAL, 0, 0, 0,
	  0, 0, 0, 0, 0, false, NULL },
	{ "no inode", "7f2808398000-7f28084ee000 r-xp 00026000 fe:00 \n", NULL, 0, -EINVAL, 0, 0, 0,
	  0, 0, 0, 0, 0, false, NULL },
	{ "no inode, path", "7f2808398000-7f28084ee000 r-xp 00026000 fe:00 /lib/x.so", NULL, 0,
	  -EINVAL, 0, 0, 0, 0, 0, 0, 0, 0, false, NULL },
	{ "garbage hex", "7f28zz398000-7f28084ee000 r-xp 00026000 fe:00 1 /x", NULL, 0, -EINVAL, 0,
	  0, 0, 0, 0, 0, 0, 0, false, NULL },
	{ "0x prefix", "0x1000-0x2000 r-xp 00000000 00:00 0", NULL, 0, -EINVAL, 0, 0, 0, 0, 0, 0, 0,
	  0, false, NULL },
	{ "17 hex digits", "1ffffffffff600000-ffffffffff601000 r-xp 00000000 00:00 0", NULL, 0,
	  -EINVAL, 0, 0, 0, 0, 0, 0, 0, 0, false, NULL },
	{ "9-digit major", "1000-2000 r-xp 00000000 100000000:00 0", NULL, 0, -EINVAL, 0, 0, 0, 0,
	  0, 0, 0, 0, false, NULL },
	{ "inode overflow", "1000-2000 r-xp 00000000 00:00 18446744073709551616 /x", NULL, 0,
	  -EINVAL, 0, 0, 0, 0, 0, 0, 0, 0, false, NULL },
	{ "inode with junk", "1000-2000 r-xp 00000000 00:00 12x /x", NULL, 0, -EINVAL, 0, 0, 0, 0,
	  0, 0, 0, 0, false, NULL },
	{ "bad perms", "1000-2000 rwxq 00000000 00:00 0", NULL, 0, -EINVAL, 0, 0, 0, 0, 0, 0, 0, 0,
	  false, NULL },
	{ "short perms", "1000-2000 r-x 00000000 00:00 0", NULL, 0, -EINVAL, 0, 0, 0, 0, 0, 0, 0, 0,
	  false, NULL },
	{ "long perms", "1000-2000 r-xp- 00000000 00:00 0", NULL, 0, -EINVAL, 0, 0, 0, 0, 0, 0, 0,
	  0, false, NULL },
	{ "start > end", "7f28084ee000-7f2808398000 r-xp 00026000 fe:00 1 /x", NULL, 0, -EINVAL, 0,
	  0, 0, 0, 0, 0, 0, 0, false, NULL },
	{ "leading blank", " 1000-2000 r-xp 00000000 00:00 0", NULL, 0, -EINVAL, 0, 0, 0, 0, 0, 0,
	  0, 0, false, NULL },
	{ "tabs", "1000-2000\tr-xp\t00000000\t00:00\t0", NULL, 0, -EINVAL, 0, 0, 0, 0, 0, 0, 0, 0,
	  false, NULL },
	{ "negative", "-1000-2000 r-xp 00000000 00:00 0", NULL, 0, -EINVAL, 0, 0, 0, 0, 0, 0, 0, 0,
	  false, NULL },
};

static void check_map(const struct procfs_map *m, const struct maps_case *c)
{
	CHECK_U64(m->start, c->start);
	CHECK_U64(m->end, c->end);
	CHECK_U64(m->pgoff, c->pgoff);
	CHECK_U64(m->maj, c->maj);
	CHECK_U64(m->min, c->min);
	CHECK_U64(m->ino, c->ino);
	CHECK_U64(m->prot, c->prot);
	CHECK_U64(m->flags, c->flags);
	CHECK_INT(m->deleted, c->deleted);
	CHECK_STR(m->path, c->path);
}

static void test_maps_lines(void)
{
	for (size_t i = 0; i < sizeof(maps_cases) / sizeof(maps_cases[0]); i++) {
		const struct maps_case *c = &maps_cases[i];
		struct procfs_map m, sentinel;
		char *line;
		int r;

		test_ctx = c->name;
		line = c->kpath ? kernel_line(c->line, c->kpath, c->width, true) : xstrdup(c->line);
		memset(&m, 0xa5, sizeof(m));
		sentinel = m;
		r = procfs_parse_maps_line(line, &m);
		CHECK_INT(r, c->ret);
		if (r == 0 && c->ret == 0)
			check_map(&m, c);
		else if (r < 0)
			CHECK(!memcmp(&m, &sentinel, sizeof(m))); /* untouched on failure */
		free(line);
	}
	test_ctx = "";
}

/* Paths beyond PATH_MAX and beyond 64 KiB, with spaces and a deleted suffix. */
static void test_maps_long_paths(void)
{
	static const size_t lens[] = { 4097, 65536 + 17, 300000 };

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		char *path = repeat('d', lens[i]), *full, *line;
		struct procfs_map m;

		test_ctx = "long path";
		path[0] = '/';
		path[lens[i] / 2] = ' ';
		full = xmalloc(lens[i] + 16);
		snprintf(full, lens[i] + 16, "%s (deleted)", path);
		line =
		    kernel_line("7f0000000000-7f0000002000 r-xp 00003000 fd:01 77", full, 72, true);
		CHECK_INT(procfs_parse_maps_line(line, &m), 0);
		CHECK_U64(m.pgoff, 0x3000);
		CHECK_U64(m.maj, 0xfd);
		CHECK_U64(m.min, 1);
		CHECK_INT(m.deleted, true);
		CHECK_INT(strlen(m.path), lens[i]);
		CHECK(!strcmp(m.path, path));
		free(line);
		free(full);
		free(path);
	}
	test_ctx = "";
}

/* ---- procfs_parse_kallsyms_line ---- */

struct ksym_case {
	const char *line;
	int ret;
	uint64_t addr;
	char type;
	const char *name, *module;
};

static const struct ksym_case ksym_cases[] = {
	{ "ffffffff81000000 T _stext\n", 0, 0xffffffff81000000, 'T', "_stext", NULL },
	{ "ffffffff81000000 T _stext", 0, 0xffffffff81000000, 'T', "_stext", NULL },
	{ "ffffffffc0a01000 t foo\t[kvm]\n", 0, 0xffffffffc0a01000, 't', "foo", "kvm" },
	{ "ffffffffc0a01000 t vmx_vcpu_run\t[kvm_intel]", 0, 0xffffffffc0a01000, 't',
	  "vmx_vcpu_run", "kvm_intel" },
	{ "0000000000000000 T startup_64\n", 0, 0, 'T', "startup_64", NULL },
	{ "0000000000000000 t foo\t[kvm]\n", 0, 0, 't', "foo", "kvm" },
	{ "ffffffff81234567 t __func.cold.12\n", 0, 0xffffffff81234567, 't', "__func.cold.12",
	  NULL },
	{ "ffffffff81234567 d __key.$x$1\n", 0, 0xffffffff81234567, 'd', "__key.$x$1", NULL },
	{ "ffffffffc0201234 t bpf_prog_6deef7357e7b4530_sd_devices\t[bpf]\n", 0, 0xffffffffc0201234,
	  't', "bpf_prog_6deef7357e7b4530_sd_devices", "bpf" },
	{ "ffffffffc0200000 t ftrace_trampoline\t[__builtin__ftrace]\n", 0, 0xffffffffc0200000, 't',
	  "ftrace_trampoline", "__builtin__ftrace" },
	{ "c1000000 T _text\n", 0, 0xc1000000, 'T', "_text", NULL },
	{ "ffffffff82000000 A __per_cpu_end\n", 0, 0xffffffff82000000, 'A', "__per_cpu_end", NULL },

	{ "", -EINVAL, 0, 0, NULL, NULL },
	{ "\n", -EINVAL, 0, 0, NULL, NULL },
	{ "ffffffff81000000\n", -EINVAL, 0, 0, NULL, NULL },
	{ "ffffffff81000000 T\n", -EINVAL, 0, 0, NULL, NULL },
	{ "ffffffff81000000 T \n", -EINVAL, 0, 0, NULL, NULL },
	{ "ffffffff81000000 _stext\n", -EINVAL, 0, 0, NULL, NULL },
	{ "ffffffff81000000  T _stext\n", -EINVAL, 0, 0, NULL, NULL },
	{ "T _stext\n", -EINVAL, 0, 0, NULL, NULL },
	{ "zzzzffff81000000 T _stext\n", -EINVAL, 0, 0, NULL, NULL },
	{ "1ffffffff81000000 T _stext\n", -EINVAL, 0, 0, NULL, NULL },
	{ "ffffffff81000000 T foo bar\n", -EINVAL, 0, 0, NULL, NULL },
	{ "ffffffff81000000 T foo [kvm]\n", -EINVAL, 0, 0, NULL, NULL },
	{ "ffffffff81000000 t foo\t\n", -EINVAL, 0, 0, NULL, NULL },
	{ "ffffffff81000000 t foo\t[\n", -EINVAL, 0, 0, NULL, NULL },
	{ "ffffffff81000000 t foo\t[]\n", -EINVAL, 0, 0, NULL, NULL },
	{ "ffffffff81000000 t foo\tkvm\n", -EINVAL, 0, 0, NULL, NULL },
	{ "ffffffff81000000 t foo\t[kvm\n", -EINVAL, 0, 0, NULL, NULL },
	{ "ffffffff81000000 t foo\t[kvm] x\n", -EINVAL, 0, 0, NULL, NULL },
	{ "ffffffff81000000 t foo\t[kvm]]\n", -EINVAL, 0, 0, NULL, NULL },
	{ "ffffffff81000000 t foo\t[k m]\n", -EINVAL, 0, 0, NULL, NULL },
	{ "ffffffff81000000\tT\t_stext\n", -EINVAL, 0, 0, NULL, NULL },
};

static void test_kallsyms_lines(void)
{
	char name[64];

	for (size_t i = 0; i < sizeof(ksym_cases) / sizeof(ksym_cases[0]); i++) {
		const struct ksym_case *c = &ksym_cases[i];
		struct procfs_ksym k = { 7, 'Z', "sentinel", "sentinel" };
		char *line = xstrdup(c->line);
		int r;

		snprintf(name, sizeof(name), "kallsyms case %zu", i);
		test_ctx = name;
		r = procfs_parse_kallsyms_line(line, &k);
		CHECK_INT(r, c->ret);
		if (r == 0 && c->ret == 0) {
			CHECK_U64(k.addr, c->addr);
			CHECK_INT(k.type, c->type);
			CHECK_STR(k.name, c->name);
			CHECK_STR(k.module, c->module);
		} else if (r < 0) {
			CHECK_U64(k.addr, 7);
			CHECK_STR(k.name, "sentinel");
		}
		free(line);
	}

	/* A very long name, with and without a module. */
	test_ctx = "kallsyms long name";
	for (int with_mod = 0; with_mod < 2; with_mod++) {
		char *sym = repeat('s', 100000), *line = xmalloc(100100);
		struct procfs_ksym k;

		snprintf(line, 100100, "ffffffffc0001000 t %s%s\n", sym, with_mod ? "\t[m]" : "");
		CHECK_INT(procfs_parse_kallsyms_line(line, &k), 0);
		CHECK_STR(k.name, sym);
		CHECK_STR(k.module, with_mod ? "m" : NULL);
		free(line);
		free(sym);
	}
	test_ctx = "";
}

/* ---- whole-file readers ---- */

struct collected {
	size_t n;
	char *paths[16];
	struct procfs_map maps[16];
	int stop_at; /* return -42 on this 1-based call */
};

static int collect_map(const struct procfs_map *m, void *arg)
{
	struct collected *c = arg;

	if (c->n < 16) {
		c->maps[c->n] = *m;
		c->paths[c->n] = xstrdup(m->path);
		c->maps[c->n].path = c->paths[c->n];
	}
	c->n++;
	if (c->stop_at && (int)c->n == c->stop_at)
		return -42;
	return 1; /* positive values continue */
}

static void collected_free(struct collected *c)
{
	for (size_t i = 0; i < c->n && i < 16; i++)
		free(c->paths[i]);
	memset(c, 0, sizeof(*c));
}

static void test_maps_file(void)
{
	char *long_path = repeat('L', 70000), *mid_path = repeat('M', 5000), *l1, *l2, *l3, *l4;
	char path[PATH_MAX + 64], dir[PATH_MAX + 64];
	struct collected c = { 0 };
	size_t n_bad = 12345;
	FILE *f;

	test_ctx = "maps file";
	long_path[0] = mid_path[0] = '/';
	long_path[10] = ' ';
	l1 = kernel_line("55c62dfe4000-55c62dfe9000 r-xp 00002000 fe:00 247134", "/usr/bin/cat", 72,
			 true);
	l2 = kernel_line("7f0000000000-7f0000001000 r-xp 00000000 08:01 1", long_path, 72, true);
	l3 = kernel_line("7f0000002000-7f0000003000 r--s 00001000 08:01 2", mid_path, 72, true);
	l4 = kernel_line("7ffc1a2b3000-7ffc1a2d4000 rw-p 00000000 00:00 0", NULL, 72, false);

	snprintf(path, sizeof(path), "%s/maps", tmpdir);
	f = fopen(path, "we");
	CHECK(f != NULL);
	if (!f)
		goto out;
	fputs(l1, f);
	fputs("this is not a maps line\n", f);
	fputs(l2, f);
	fputs("\n", f); /* empty line: bad */
	fputs(l3, f);
	fwrite("1000-2000 r-xp 00000000 00:00 0 /a\0junk\n", 1, 40, f); /* NUL: bad */
	fputs("7f28084ee000-7f2808398000 r-xp 00026000 fe:00 1 /start-after-end\n", f);
	fputs(l4, f); /* no newline at EOF */
	fclose(f);

	CHECK_INT(procfs_read_maps_file(path, collect_map, &c, &n_bad), 0);
	CHECK_INT(c.n, 4);
	CHECK_INT(n_bad, 4);
	if (c.n == 4) {
		CHECK_STR(c.maps[0].path, "/usr/bin/cat");
		CHECK_U64(c.maps[0].start, 0x55c62dfe4000);
		CHECK_U64(c.maps[0].pgoff, 0x2000);
		CHECK_STR(c.maps[1].path, long_path);
		CHECK_INT(strlen(c.maps[1].path), 70000);
		CHECK_STR(c.maps[2].path, mid_path);
		CHECK_U64(c.maps[2].flags, MAP_SHARED);
		CHECK_STR(c.maps[3].path, "");
		CHECK_U64(c.maps[3].end, 0x7ffc1a2d4000);
	}
	collected_free(&c);

	/* n_bad may be NULL. */
	CHECK_INT(procfs_read_maps_file(path, collect_map, &c, NULL), 0);
	CHECK_INT(c.n, 4);
	collected_free(&c);

	/* A callback error stops the walk, is returned, and leaves *ret_n_bad alone. */
	n_bad = 12345;
	c.stop_at = 2;
	CHECK_INT(procfs_read_maps_file(path, collect_map, &c, &n_bad), -42);
	CHECK_INT(c.n, 2);
	CHECK_INT(n_bad, 12345);
	collected_free(&c);

	/* Empty file. */
	snprintf(path, sizeof(path), "%s/empty", tmpdir);
	put_str(tmpdir, "empty", "");
	n_bad = 12345;
	CHECK_INT(procfs_read_maps_file(path, collect_map, &c, &n_bad), 0);
	CHECK_INT(c.n, 0);
	CHECK_INT(n_bad, 0);

	/* Errors from open and read. */
	snprintf(path, sizeof(path), "%s/does-not-exist", tmpdir);
	CHECK_INT(procfs_read_maps_file(path, collect_map, &c, &n_bad), -ENOENT);
	snprintf(dir, sizeof(dir), "%s", tmpdir);
	CHECK_INT(procfs_read_maps_file(dir, collect_map, &c, &n_bad), -EISDIR);
	CHECK_INT(c.n, 0);
out:
	free(l1);
	free(l2);
	free(l3);
	free(l4);
	free(long_path);
	free(mid_path);
	test_ctx = "";
}

struct ksym_count {
	size_t n, n_mod, n_zero;
	bool have_long, have_text;
};

static int count_ksym(const struct procfs_ksym *k, void *arg)
{
	struct ksym_count *c = arg;

	c->n++;
	if (k->module)
		c->n_mod++;
	if (k->addr == 0)
		c->n_zero++;
	if (strlen(k->name) == 70000)
		c->have_long = true;
	if (!strcmp(k->name, "_text") || !strcmp(k->name, "_stext"))
		c->have_text = true;
	return 0;
}

static void test_kallsyms_file(void)
{
	char *sym = repeat('k', 70000), path[PATH_MAX + 64];
	struct ksym_count c = { 0 };
	size_t n_bad = 12345;
	FILE *f;

	test_ctx = "kallsyms file";
	snprintf(path, sizeof(path), "%s/kallsyms", tmpdir);
	f = fopen(path, "we");
	CHECK(f != NULL);
	if (!f) {
		free(sym);
		return;
	}
	fputs("ffffffff81000000 T _text\n", f);
	fputs("ffffffff81000000 T\n", f); /* bad: no name */
	fprintf(f, "ffffffff81001000 t %s\n", sym);
	fputs("garbage\n", f); /* bad */
	fputs("0000000000000000 t foo\t[kvm]\n", f);
	fputs("ffffffffc0a01000 t bar\t[kvm]", f); /* no newline at EOF */
	fclose(f);

	CHECK_INT(procfs_read_kallsyms(path, count_ksym, &c, &n_bad), 0);
	CHECK_INT(c.n, 4);
	CHECK_INT(c.n_mod, 2);
	CHECK_INT(c.n_zero, 1);
	CHECK(c.have_long);
	CHECK(c.have_text);
	CHECK_INT(n_bad, 2);
	free(sym);

	/* The real thing, if readable. Addresses are 0 without CAP_SYSLOG: still valid lines. */
	test_ctx = "/proc/kallsyms";
	memset(&c, 0, sizeof(c));
	n_bad = 12345;
	if (access("/proc/kallsyms", R_OK) < 0) {
		printf("SKIP: /proc/kallsyms is not readable\n");
	} else {
		CHECK_INT(procfs_read_kallsyms("/proc/kallsyms", count_ksym, &c, &n_bad), 0);
		CHECK(c.n >= 1000);
		CHECK_INT(n_bad, 0);
		CHECK(c.have_text);
		printf("/proc/kallsyms: %zu symbols, %zu in modules, %zu with address 0\n", c.n,
		       c.n_mod, c.n_zero);
	}
	test_ctx = "";
}

/* ---- this process ---- */

struct self_maps {
	const char *exe;
	bool exe_text, vdso_or_stack;
	size_t n;
};

static int self_map(const struct procfs_map *m, void *arg)
{
	struct self_maps *s = arg;

	s->n++;
	if (!strcmp(m->path, s->exe) && (m->prot & PROT_EXEC) && !m->deleted)
		s->exe_text = true;
	if (!strcmp(m->path, "[vdso]") || !strcmp(m->path, "[stack]"))
		s->vdso_or_stack = true;
	return 0;
}

/*
 * The real /proc/self/maps: every line must re-render byte for byte with the kernel
 * layout this parser assumes, so paths are taken from the right column.
 */
static void test_self_maps_layout(void)
{
	size_t cap = 0, n_lines = 0;
	char *line = NULL;
	FILE *f;

	test_ctx = "/proc/self/maps layout";
	f = fopen("/proc/self/maps", "re");
	CHECK(f != NULL);
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		char *copy = xstrdup(line), *again, hdr[256], *path = NULL;
		struct procfs_map m;

		n_lines++;
		if (!CHECK(procfs_parse_maps_line(copy, &m) >= 0, "unparsable line: %s", line)) {
			free(copy);
			continue;
		}
		snprintf(hdr, sizeof(hdr),
			 "%08" PRIx64 "-%08" PRIx64 " %c%c%c%c %08" PRIx64 " %02x:%02x %" PRIu64,
			 m.start, m.end, m.prot & PROT_READ ? 'r' : '-',
			 m.prot & PROT_WRITE ? 'w' : '-', m.prot & PROT_EXEC ? 'x' : '-',
			 m.flags == MAP_SHARED ? 's' : 'p', m.pgoff, m.maj, m.min, m.ino);
		if (m.path[0]) {
			path = xmalloc(strlen(m.path) + 16);
			sprintf(path, "%s%s", m.path, m.deleted ? " (deleted)" : "");
		}
		again = kernel_line(hdr, path, 72, true);
		CHECK(!strcmp(again, line), "re-rendered line differs:\n  %s  %s", line, again);
		free(again);
		free(path);
		free(copy);
	}
	CHECK(n_lines > 5);
	free(line);
	fclose(f);
	test_ctx = "";
}

static void test_self(void)
{
	struct self_maps s = { 0 };
	char exe[PATH_MAX], comm[64];
	size_t n_bad = 12345;
	ssize_t n;
	int tgid = 0, ppid = -1;

	test_ctx = "self";
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	CHECK(n > 0);
	if (n <= 0)
		return;
	exe[n] = '\0';
	s.exe = exe;
	CHECK_INT(procfs_read_maps(getpid(), self_map, &s, &n_bad), 0);
	CHECK_INT(n_bad, 0);
	CHECK(s.n > 5);
	CHECK(s.exe_text, "no executable mapping of %s", exe);
	CHECK(s.vdso_or_stack);

	CHECK_INT(prctl(PR_SET_NAME, "rp test 1"), 0);
	CHECK_INT(procfs_read_comm(getpid(), getpid(), comm, sizeof(comm)), 0);
	CHECK_STR(comm, "rp test 1");
	CHECK_INT(procfs_read_comm(getpid(), getpid(), comm, 5), 0);
	CHECK_STR(comm, "rp t");
	CHECK_INT(procfs_read_comm(getpid(), getpid(), comm, 1), 0);
	CHECK_STR(comm, "");
	strcpy(comm, "unchanged");
	CHECK_INT(procfs_read_comm(getpid(), getpid(), comm, 0), -EINVAL);
	CHECK_INT(procfs_read_comm(getpid(), 0, comm, sizeof(comm)), -EINVAL);
	CHECK_INT(procfs_read_comm(-1, getpid(), comm, sizeof(comm)), -EINVAL);
	/* PID 1 is never one of our threads. */
	if (getpid() != 1)
		CHECK_INT(procfs_read_comm(getpid(), 1, comm, sizeof(comm)), -ENOENT);
	CHECK_STR(comm, "unchanged");

	CHECK_INT(procfs_read_status(getpid(), &tgid, &ppid), 0);
	CHECK_INT(tgid, getpid());
	CHECK_INT(ppid, getppid());
	CHECK_INT(procfs_read_status(getpid(), NULL, NULL), 0);
	CHECK_INT(procfs_read_maps(0, self_map, &s, NULL), -EINVAL);
	test_ctx = "";
}

struct worker {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pid_t tid;
	bool ready, quit;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	pthread_setname_np(pthread_self(), "rp-worker");
	pthread_mutex_lock(&w->lock);
	w->tid = gettid();
	w->ready = true;
	pthread_cond_broadcast(&w->cond);
	while (!w->quit)
		pthread_cond_wait(&w->cond, &w->lock);
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct id_list {
	int ids[4096];
	size_t n;
	bool sorted;
	int stop_at;
};

static int collect_id(int id, void *arg)
{
	struct id_list *l = arg;

	if (l->n > 0 && id <= l->ids[(l->n - 1) % 4096])
		l->sorted = false;
	l->ids[l->n % 4096] = id;
	l->n++;
	if (l->stop_at && (int)l->n == l->stop_at)
		return -7;
	return 0;
}

static bool has_id(const struct id_list *l, int id)
{
	for (size_t i = 0; i < l->n && i < 4096; i++)
		if (l->ids[i] == id)
			return true;
	return false;
}

static void test_threads(void)
{
	static struct id_list l;
	struct worker w = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, false, false };
	pthread_t th;
	char comm[64];
	int tgid = 0, ppid = -1;

	test_ctx = "threads";
	if (!CHECK(pthread_create(&th, NULL, worker_main, &w) == 0, "pthread_create failed"))
		return;
	pthread_mutex_lock(&w.lock);
	while (!w.ready)
		pthread_cond_wait(&w.cond, &w.lock);
	pthread_mutex_unlock(&w.lock);

	memset(&l, 0, sizeof(l));
	l.sorted = true;
	CHECK_INT(procfs_for_each_tid(getpid(), collect_id, &l), 0);
	CHECK(l.n >= 2);
	CHECK(l.sorted);
	CHECK(has_id(&l, getpid()));
	CHECK(has_id(&l, w.tid));
	CHECK_INT(procfs_read_comm(getpid(), w.tid, comm, sizeof(comm)), 0);
	CHECK_STR(comm, "rp-worker");
	CHECK_INT(procfs_read_status(w.tid, &tgid, &ppid), 0);
	CHECK_INT(tgid, getpid());

	/* All processes: includes us, ascending. */
	memset(&l, 0, sizeof(l));
	l.sorted = true;
	CHECK_INT(procfs_for_each_pid(collect_id, &l), 0);
	CHECK(l.n >= 1);
	CHECK(l.sorted);
	if (l.n <= 4096)
		CHECK(has_id(&l, getpid()));
	memset(&l, 0, sizeof(l));
	l.stop_at = 1;
	CHECK_INT(procfs_for_each_pid(collect_id, &l), -7);
	CHECK_INT(l.n, 1);

	pthread_mutex_lock(&w.lock);
	w.quit = true;
	pthread_cond_broadcast(&w.cond);
	pthread_mutex_unlock(&w.lock);
	pthread_join(th, NULL);
	test_ctx = "";
}

/* ---- a fake /proc tree ---- */

struct fake_walk {
	char root[PATH_MAX];
	int pids[16];
	size_t n;
	int n_gone;
	char comm[16][64];
};

static int fake_pid(int pid, void *arg)
{
	struct fake_walk *w = arg;
	char path[PATH_MAX + 64];
	int r;

	if (w->n < 16)
		w->pids[w->n] = pid;
	/* The first callback removes a later process, as if it exited meanwhile. */
	if (w->n == 0) {
		snprintf(path, sizeof(path), "%s/proc/200", w->root);
		rm_rf(path);
	}
	r = w->n < 16 ? procfs_read_comm(pid, pid, w->comm[w->n], sizeof(w->comm[0])) : 0;
	w->n++;
	if (r == -ENOENT || r == -ESRCH)
		w->n_gone++;
	return 0;
}

static void test_fake_proc(void)
{
	static const int expect_pids[] = { 9, 45, 46, 47, 123, 124, 200 };
	static struct id_list l;
	struct fake_walk w = { 0 };
	struct collected c = { 0 };
	char root[PATH_MAX], comm[64], *longroot;
	int tgid = -1, ppid = -1;
	size_t n_bad = 0;
	long v = 0;

	test_ctx = "fake /proc";
	snprintf(root, sizeof(root), "%s/fake", tmpdir);
	put_str(root, "proc/123/task/123/comm", "main\n");
	put_str(root, "proc/123/task/124/comm",
		"kworker/u8:2-events_unbound-and-more-than-64-bytes-of-name-to-truncate\n");
	put_str(root, "proc/123/status",
		"Name:\tmain\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t123\nNgid:\t0\n"
		"Pid:\t123\nPPid:\t1\nTracerPid:\t0\nGroups:\t4 24 27 30 46 100 118\n");
	put_str(root, "proc/123/maps",
		"00400000-00452000 r-xp 00000000 08:02 173521 /usr/bin/fake\n"
		"garbage\n"
		"00651000-00652000 rw-p 00051000 08:02 173521 /usr/bin/fake");
	put_str(root, "proc/124/status", "Name:\tworker\nTgid:  123 \nPPid:\t1\n");
	put_str(root, "proc/45/status", "Name:\tx\nTgid:\t45\n"); /* no PPid */
	put_str(root, "proc/45/task/45/comm", "no-newline");
	put_str(root, "proc/46/status", "Tgid:\tabc\nPPid:\t1\n");
	put_str(root, "proc/46/task/46/comm", "\n");
	put_str(root, "proc/47/status", "Tgid:\t-5\nPPid:\t1\n");
	put_str(root, "proc/47/task/47/comm", "x\n");
	put_str(root, "proc/9/status", "Tgid:\t9\nPPid:\t99999999999\n"); /* overflow */
	put_str(root, "proc/9/task/9/x", "");
	put_str(root, "proc/200/task/200/comm", "doomed\n");
	put_str(root, "proc/77", "a file, not a process\n");
	put_str(root, "proc/sys/kernel/perf_event_paranoid", "2\n");
	put_str(root, "proc/0012/status", "leading zero: not a pid\n");
	put_str(root, "proc/0/status", "not a pid\n");
	put_str(root, "proc/12a/status", "not a pid\n");
	put_str(root, "proc/99999999999/status", "beyond INT_MAX\n");
	{
		char p[PATH_MAX + 64], t[PATH_MAX + 64];

		snprintf(p, sizeof(p), "%s/proc/9/task/9/comm", root);
		CHECK_INT(mkdir(p, 0755), 0); /* a comm that cannot be read */
		snprintf(p, sizeof(p), "%s/proc/self", root);
		snprintf(t, sizeof(t), "%s/proc/123", root);
		CHECK_INT(symlink(t, p), 0);
	}

	procfs_set_root(root);
	snprintf(w.root, sizeof(w.root), "%s", root);
	CHECK_INT(procfs_for_each_pid(fake_pid, &w), 0);
	CHECK_INT(w.n, sizeof(expect_pids) / sizeof(expect_pids[0]));
	for (size_t i = 0; i < w.n && i < sizeof(expect_pids) / sizeof(expect_pids[0]); i++)
		CHECK_INT(w.pids[i], expect_pids[i]);
	/* 124 has no task/124 of its own, and 200 vanished during the walk. */
	CHECK_INT(w.n_gone, 2);
	CHECK_STR(w.comm[1], "no-newline");
	CHECK_STR(w.comm[2], "");
	CHECK_STR(w.comm[4], "main");

	strcpy(comm, "unchanged");
	CHECK_INT(procfs_read_comm(9, 9, comm, sizeof(comm)), -EISDIR);
	CHECK_INT(procfs_read_comm(200, 200, comm, sizeof(comm)), -ENOENT);
	CHECK_STR(comm, "unchanged");
	CHECK_INT(procfs_read_comm(123, 124, comm, sizeof(comm)), 0);
	CHECK_INT(strlen(comm), 63);
	CHECK(!strncmp(comm, "kworker/u8:2-events_unbound-", 28));

	memset(&l, 0, sizeof(l));
	l.sorted = true;
	CHECK_INT(procfs_for_each_tid(123, collect_id, &l), 0);
	CHECK_INT(l.n, 2);
	CHECK(l.sorted);
	CHECK(has_id(&l, 123) && has_id(&l, 124));
	CHECK_INT(procfs_for_each_tid(200, collect_id, &l), -ENOENT);
	CHECK_INT(procfs_for_each_tid(124, collect_id, &l), -ENOENT);

	CHECK_INT(procfs_read_status(123, &tgid, &ppid), 0);
	CHECK_INT(tgid, 123);
	CHECK_INT(ppid, 1);
	CHECK_INT(procfs_read_status(124, &tgid, &ppid), 0);
	CHECK_INT(tgid, 123);
	tgid = ppid = -1;
	CHECK_INT(procfs_read_status(45, &tgid, &ppid), -EINVAL);
	CHECK_INT(procfs_read_status(46, &tgid, &ppid), -EINVAL);
	CHECK_INT(procfs_read_status(47, &tgid, &ppid), -EINVAL);
	CHECK_INT(procfs_read_status(9, &tgid, &ppid), -EINVAL);
	CHECK_INT(procfs_read_status(200, &tgid, &ppid), -ENOENT);
	CHECK_INT(tgid, -1);
	CHECK_INT(ppid, -1);

	/* An unreadable status: only meaningful without CAP_DAC_OVERRIDE. */
	{
		char p[PATH_MAX + 64];

		snprintf(p, sizeof(p), "%s/proc/47/status", root);
		CHECK_INT(chmod(p, 0), 0);
		if (access(p, R_OK) < 0)
			CHECK_INT(procfs_read_status(47, &tgid, &ppid), -EACCES);
		else
			printf("SKIP: EACCES check (running with CAP_DAC_OVERRIDE)\n");
	}

	CHECK_INT(procfs_read_maps(123, collect_map, &c, &n_bad), 0);
	CHECK_INT(c.n, 2);
	CHECK_INT(n_bad, 1);
	if (c.n == 2) {
		CHECK_STR(c.maps[0].path, "/usr/bin/fake");
		CHECK_U64(c.maps[1].pgoff, 0x51000);
	}
	collected_free(&c);
	CHECK_INT(procfs_read_maps(200, collect_map, &c, &n_bad), -ENOENT);

	{
		char p[PATH_MAX];

		CHECK_INT(procfs_path(p, sizeof(p), "/proc/sys/%s", "kernel/perf_event_paranoid"),
			  0);
		CHECK_INT(procfs_read_int(p, &v), 0);
		CHECK_INT(v, 2);
		CHECK_INT(procfs_path(p, 8, "/proc/%d", 1), -ENAMETOOLONG);
	}

	/* A root too long for any path fails cleanly. */
	longroot = repeat('r', PATH_MAX + 10);
	procfs_set_root(longroot);
	{
		char p[3 * PATH_MAX];

		CHECK_INT(procfs_path(p, sizeof(p), "/proc"), -ENAMETOOLONG);
	}
	CHECK_INT(procfs_read_comm(123, 123, comm, sizeof(comm)), -ENAMETOOLONG);
	CHECK_INT(procfs_for_each_pid(collect_id, &l), -ENAMETOOLONG);
	free(longroot);

	procfs_set_root(NULL);
	CHECK_INT(procfs_read_status(getpid(), &tgid, NULL), 0);
	CHECK_INT(tgid, getpid());
	test_ctx = "";
}

/* ---- procfs_read_int ---- */

static void test_read_int(void)
{
	static const struct {
		const char *content;
		int ret;
		long value;
	} cases[] = {
		{ "2\n", 0, 2 },
		{ "-1\n", 0, -1 },
		{ "  42  \n", 0, 42 },
		{ "9223372036854775807", 0, LONG_MAX },
		{ "", -EINVAL, 0 },
		{ "\n", -EINVAL, 0 },
		{ "abc\n", -EINVAL, 0 },
		{ "12abc\n", -EINVAL, 0 },
		{ "1 2\n", -EINVAL, 0 },
		{ "99999999999999999999999\n", -ERANGE, 0 },
		{ "1111111111111111111111111111111111111111111111111111111111111111111111\n",
		  -EINVAL, 0 },
	};
	char path[PATH_MAX + 64];
	long v;

	test_ctx = "read_int";
	snprintf(path, sizeof(path), "%s/int", tmpdir);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		put_str(tmpdir, "int", cases[i].content);
		v = 12345;
		CHECK_INT(procfs_read_int(path, &v), cases[i].ret);
		CHECK_INT(v, cases[i].ret == 0 ? cases[i].value : 12345);
	}
	put_file(tmpdir, "int", "5\0 7\n", 5);
	CHECK_INT(procfs_read_int(path, &v), -EINVAL);
	snprintf(path, sizeof(path), "%s/nope", tmpdir);
	CHECK_INT(procfs_read_int(path, &v), -ENOENT);

	if (access("/proc/sys/kernel/perf_event_paranoid", R_OK) == 0) {
		CHECK_INT(procfs_read_int("/proc/sys/kernel/perf_event_paranoid", &v), 0);
		CHECK(v >= -1 && v <= 4);
	}
	test_ctx = "";
}

/* ---- procfs_read_file ---- */

static void test_read_file(void)
{
	char path[PATH_MAX + 64], buf[8], id[64];

	test_ctx = "read_file";
	snprintf(path, sizeof(path), "%s/small", tmpdir);
	put_str(tmpdir, "small", "abc\n");
	CHECK_INT(procfs_read_file(path, buf, sizeof(buf)), 3);
	CHECK_STR(buf, "abc");
	put_str(tmpdir, "small", "ab\n\n"); /* only one newline goes */
	CHECK_INT(procfs_read_file(path, buf, sizeof(buf)), 3);
	CHECK_STR(buf, "ab\n");
	put_str(tmpdir, "small", "");
	CHECK_INT(procfs_read_file(path, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "");
	put_str(tmpdir, "small", "0123456789\n"); /* cut at SIZE - 1 bytes */
	CHECK_INT(procfs_read_file(path, buf, sizeof(buf)), 7);
	CHECK_STR(buf, "0123456");
	CHECK_INT(procfs_read_file(path, buf, 1), 0);
	CHECK_STR(buf, "");
	CHECK_INT(procfs_read_file(path, buf, 0), -EINVAL);
	CHECK_INT(procfs_read_file(NULL, buf, sizeof(buf)), -EINVAL);
	CHECK_INT(procfs_read_file(tmpdir, buf, sizeof(buf)), -EISDIR);
	snprintf(path, sizeof(path), "%s/nope", tmpdir);
	CHECK_INT(procfs_read_file(path, buf, sizeof(buf)), -ENOENT);

	/* The recorder's use: a real path, not under the fake root. */
	procfs_set_root(tmpdir);
	if (access("/proc/sys/kernel/random/boot_id", R_OK) == 0) {
		CHECK_INT(procfs_read_file("/proc/sys/kernel/random/boot_id", id, sizeof(id)), 36);
		CHECK(strlen(id) == 36 && !strchr(id, '\n'), "boot_id \"%s\"", id);
	}
	procfs_set_root(NULL);
	test_ctx = "";
}

/* Our own vdso: an ELF image of whole pages, where the auxiliary vector says. */
static void test_self_vdso(void)
{
	const void *base = NULL;
	size_t size = 0;

	test_ctx = "self vdso";
	if (!CHECK_INT(procfs_self_vdso(&base, &size), 0))
		return;
	CHECK(size > 0 && size % 4096 == 0, "size %zu", size);
	CHECK(memcmp(base, "\177ELF", 4) == 0, "an ELF image");
}

/* A mapped file's path replaced by a FIFO (or a device): opened without blocking and refused;
 * a file of the wrong inode at the first ways is passed over for the path that has it. */
static void test_open_mapped(void)
{
	char fifo[PATH_MAX], file[PATH_MAX], why[128] = "";
	struct stat st;
	int fd, way = 0;

	test_ctx = "open mapped";
	snprintf(fifo, sizeof(fifo), "%s/fifo", tmpdir);
	snprintf(file, sizeof(file), "%s/file", tmpdir);
	CHECK(mkfifo(fifo, 0600) == 0, "mkfifo: %s", strerror(errno));
	/* No mapping at 0-1000: map_files fails, then the FIFO: must return, not block. */
	fd = procfs_open_mapped((uint32_t)getpid(), 0, 0x1000, fifo, 0, 0, 0, why, sizeof(why));
	CHECK_INT(fd, -1);
	CHECK_STR(why, "cannot open it: not a regular file");
	fd = procfs_open_mapped((uint32_t)getpid(), 0, 0x1000, "/dev/null", 0, 0, 0, why,
				sizeof(why));
	CHECK_INT(fd, -1);
	CHECK_STR(why, "cannot open it: not a regular file");
	put_str(tmpdir, "file", "x");
	CHECK(stat(file, &st) == 0);
	/* The wrong inode at every way: said so. */
	fd = procfs_open_mapped((uint32_t)getpid(), 0, 0x1000, file, major(st.st_dev),
				minor(st.st_dev), st.st_ino + 1, why, sizeof(why));
	CHECK_INT(fd, -1);
	CHECK_STR(why, "the file on disk is not the one mapped");
	/* The right one: found by path (way 1, /proc/PID/root + path). */
	fd = procfs_open_mapped_from((uint32_t)getpid(), 0, 0x1000, file, major(st.st_dev),
				     minor(st.st_dev), st.st_ino, &way, why, sizeof(why));
	CHECK(fd >= 0, "%s", why);
	CHECK_INT(way, 1);
	if (fd >= 0)
		close(fd);
	/* Asked to go on after way 1 (its build-id was another's): way 2, the path itself. */
	way = 2;
	fd = procfs_open_mapped_from((uint32_t)getpid(), 0, 0x1000, file, major(st.st_dev),
				     minor(st.st_dev), st.st_ino, &way, why, sizeof(why));
	CHECK(fd >= 0, "%s", why);
	CHECK_INT(way, 2);
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	const char *t = getenv("TMPDIR");

	if ((size_t)snprintf(tmpdir, sizeof(tmpdir), "%s/test-procfs.XXXXXX",
			     t && *t ? t : "/tmp") >= sizeof(tmpdir) ||
	    !mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}

	test_maps_lines();
	test_maps_long_paths();
	test_kallsyms_lines();
	test_maps_file();
	test_kallsyms_file();
	test_self_maps_layout();
	test_self();
	test_self_vdso();
	test_threads();
	test_fake_proc();
	test_read_int();
	test_read_file();
	test_open_mapped();

	rm_rf(tmpdir);
	return check_done("test-procfs");
}
