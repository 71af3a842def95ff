/* test-debugcache.c — unit test of lib/elf/debugcache.c on debug files compressed at run time. */
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buildid.h"
#include "check.h"
#include "elf/debugcache.h"

static char T[256]; /* temp directory */
static char C[300]; /* the cache directory */
static char Z[300]; /* a debug file with zlib-compressed DWARF */
static char U[300]; /* the same, uncompressed */
static const struct debugcache_bounds any = { 64 << 20, 1 }; /* every compressed file */

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0) {
		fprintf(stderr, "setup command failed: %s\n", cmd);
		exit(1);
	}
}

static int open_ro(const char *p)
{
	int fd = open(p, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		perror(p);
		exit(1);
	}
	return fd;
}

/* debugcache_open() of file P with bounds B. */
static int cache_open(const char *p, const struct debugcache_bounds *b)
{
	int fd = open_ro(p), r = debugcache_open(C, b, true, fd);

	close(fd);
	return r;
}

/* Entries (*.debug) in the cache directory; the first one's name into NAME. */
static int entries(char *name, size_t size)
{
	char cmd[600], line[256];
	int n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "ls -1 '%s' 2>/dev/null | grep '\\.debug$'", C);
	f = popen(cmd, "r");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!n++ && name)
			snprintf(name, size, "%s/%s", C, line);
	}
	if (f)
		pclose(f);
	return n;
}

/* Every line row (address, line, file) of every CU of the DWARF in FD, hashed in order; the
 * number of rows into *ret_n. */
static uint64_t lines_of(int fd, size_t *ret_n)
{
	Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);
	Dwarf_Off off = 0, next;
	size_t hsize, n = 0;
	uint64_t h = 1469598103934665603ULL;

	*ret_n = 0;
	if (!dw)
		return 0;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Lines *ls;
		size_t nl;

		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_getsrclines(&cu, &ls, &nl) == 0)
			for (size_t i = 0; i < nl; i++) {
				Dwarf_Line *l = dwarf_onesrcline(ls, i);
				Dwarf_Addr a = 0;
				int ln = 0;
				const char *f;

				dwarf_lineaddr(l, &a);
				dwarf_lineno(l, &ln);
				f = dwarf_linesrc(l, NULL, NULL);
				h = (h ^ a) * 1099511628211ULL;
				h = (h ^ (uint64_t)ln) * 1099511628211ULL;
				for (; f && *f; f++)
					h = (h ^ (uint8_t)*f) * 1099511628211ULL;
				n++;
			}
		off = next;
	}
	dwarf_end(dw);
	*ret_n = n;
	return h;
}

/* Sections of FD that are still compressed. */
static int compressed_sections(int fd)
{
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *s = NULL;
	GElf_Shdr sh;
	int n = 0;

	while (e && (s = elf_nextscn(e, s)))
		n += gelf_getshdr(s, &sh) && (sh.sh_flags & SHF_COMPRESSED);
	elf_end(e);
	return e ? n : -1;
}

static void test_copy(void)
{
	char e1[600], e2[600];
	struct stat a, b, st;
	size_t nz, nc;
	uint64_t hz, hc;
	int fd, fd2, zfd;

	test_ctx = "nothing compressed";
	CHECK_INT(cache_open(U, &any), -ENOENT);
	CHECK_INT(entries(NULL, 0), 0);

	test_ctx = "below the least worth caching";
	CHECK_INT(cache_open(Z, NULL), -ENOENT);

	test_ctx = "not made when not asked to";
	zfd = open_ro(Z);
	CHECK_INT(debugcache_open(C, &any, false, zfd), -ENOENT);
	CHECK_INT(entries(NULL, 0), 0);

	test_ctx = "made";
	fd = cache_open(Z, &any);
	if (!CHECK(fd >= 0, "%s", strerror(-fd)))
		return;
	CHECK_INT(entries(e1, sizeof(e1)), 1);
	CHECK_INT(compressed_sections(fd), 0);
	hz = lines_of(zfd, &nz);
	hc = lines_of(fd, &nc);
	CHECK(nz > 10, "%zu line rows in the original", nz);
	CHECK_INT(nc, nz);
	CHECK_U64(hc, hz);
	fd2 = debugcache_open(C, &any, false, zfd);
	CHECK(fd2 >= 0, "an entry that is there is used when not asked to make one");
	close(fd2);
	CHECK(fstat(fd, &a) == 0 && (a.st_mode & 0777) == 0600, "mode %o", a.st_mode & 0777);
	CHECK(stat(C, &st) == 0 && (st.st_mode & 0777) == 0700, "dir mode %o", st.st_mode & 0777);
	CHECK(fcntl(fd, F_GETFL) >= 0 && (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY);

	test_ctx = "found again";
	fd2 = debugcache_open(C, &any, true, zfd);
	CHECK(fd2 >= 0 && fstat(fd2, &b) == 0 && b.st_ino == a.st_ino, "the same entry");
	CHECK_INT(entries(NULL, 0), 1);
	close(fd2);
	close(fd);

	test_ctx = "the original changed";
	sh("touch -d '2001-01-01' '%s'", Z);
	fd = debugcache_open(C, &any, true, zfd);
	CHECK(fd >= 0);
	CHECK_INT(entries(NULL, 0), 2);
	close(fd);
	sh("rm -f '%s'/*.debug", C);
	fd = debugcache_open(C, &any, true, zfd);
	CHECK_INT(entries(e2, sizeof(e2)), 1);
	close(fd);
	close(zfd);
}

/* The entry spoiled by shell command HOW (each @ in it the entry's name): the next open makes
 * it again, a usable file as it was before. */
static void spoiled(const char *what, const char *how)
{
	char e[600], cmd[4096];
	struct stat good, after;
	size_t nz, nc, w = 0;
	uint64_t hz, hc;
	int fd, zfd;

	test_ctx = what;
	sh("rm -f '%s'/*.debug", C);
	CHECK((fd = cache_open(Z, &any)) >= 0);
	close(fd);
	entries(e, sizeof(e));
	lstat(e, &good);
	for (const char *p = how; *p && w + strlen(e) + 2 < sizeof(cmd); p++)
		if (*p == '@')
			w += (size_t)sprintf(cmd + w, "%s", e);
		else
			cmd[w++] = *p;
	cmd[w] = '\0';
	sh("%s", cmd);
	fd = cache_open(Z, &any);
	if (!CHECK(fd >= 0, "%s", strerror(-fd)))
		return;
	CHECK(lstat(e, &after) == 0 && S_ISREG(after.st_mode) && after.st_nlink == 1 &&
		  after.st_size == good.st_size && (after.st_mode & 0777) == 0600,
	      "made again");
	zfd = open_ro(Z);
	hz = lines_of(zfd, &nz);
	hc = lines_of(fd, &nc);
	CHECK(nc == nz && hc == hz, "the lines of the original");
	close(zfd);
	close(fd);
}

static void test_hostile(void)
{
	int fd;

	spoiled("truncated", "truncate -s 2000 '@'");
	spoiled("its section headers cut", "truncate -s -16 '@'");
	spoiled("no build-id", "objcopy --remove-section .note.gnu.build-id '@' 2>/dev/null");
	spoiled("a section missing", "objcopy --remove-section .debug_macro '@' 2>/dev/null");
	spoiled("group-writable", "chmod 0620 '@'");
	spoiled("a symlink", "mv '@' '@.real' && ln -s '@.real' '@'");
	spoiled("two links", "ln '@' '@.2'");

	test_ctx = "directory writable by others";
	sh("chmod 0777 '%s'", C);
	CHECK_INT(cache_open(Z, &any), -EPERM);
	sh("chmod 0700 '%s'", C);
	CHECK((fd = cache_open(Z, &any)) >= 0);
	close(fd);

	test_ctx = "a directory above writable by others";
	sh("chmod 0777 '%s/cache'", T);
	CHECK_INT(cache_open(Z, &any), -EPERM);
	sh("chmod 0700 '%s/cache'", T);

	test_ctx = "a directory above somebody else's";
	if (geteuid() == 0) {
		/* A root whose HOME is another user's: that user could point the way anywhere. */
		sh("chown 65534 '%s/cache/ringprof'", T);
		CHECK_INT(cache_open(Z, &any), -EPERM);
		sh("chown 0 '%s/cache/ringprof'", T);
		sh("mv '%s/cache' '%s/elsewhere' && ln -s elsewhere '%s/cache' && "
		   "chown -h 65534 '%s/cache'",
		   T, T, T, T);
		CHECK_INT(cache_open(Z, &any), -EPERM);
		sh("chown -h 0 '%s/cache'", T);
		CHECK((fd = cache_open(Z, &any)) >= 0, "a link of one's own is followed");
		close(fd);
		sh("rm '%s/cache' && mv '%s/elsewhere' '%s/cache'", T, T, T);
	}
}

static void test_bounds(void)
{
	struct debugcache_bounds b;
	struct stat st;
	char p[600], e[600];
	int fd;

	sh("rm -f '%s'/*", C);
	CHECK((fd = cache_open(Z, &any)) >= 0);
	fstat(fd, &st);
	close(fd);
	entries(e, sizeof(e));

	test_ctx = "larger than a quarter of the bound";
	b = (struct debugcache_bounds){ (uint64_t)st.st_size * 3, 1 };
	sh("rm -f '%s'/*", C);
	CHECK_INT(cache_open(Z, &b), -EFBIG);

	test_ctx = "the oldest used go first";
	b.max_bytes = (uint64_t)st.st_size * 4 + st.st_size / 2;
	for (int i = 0; i < 6; i++) {
		snprintf(p, sizeof(p), "%s/copy%d.debug", T, i);
		sh("cp '%s' '%s'", Z, p);
		fd = cache_open(p, &b);
		CHECK(fd >= 0, "copy %d: %s", i, strerror(-fd));
		close(fd);
		/* Each one used a second later than the one before. */
		sh("for f in '%s'/*.debug; do touch -d \"@$(( $(stat -c %%Y \"$f\") - 10 ))\" \"$f\"; done",
		   C);
	}
	CHECK_INT(entries(NULL, 0), 4);
	snprintf(p, sizeof(p), "%s/copy5.debug", T);
	fd = cache_open(p, &b);
	CHECK(fd >= 0);
	close(fd);
	CHECK_INT(entries(NULL, 0), 4);
	snprintf(p, sizeof(p), "%s/copy0.debug", T);
	fd = open_ro(p);
	{
		/* copy0's entry was removed: opening it makes it again, removing another. */
		int c = debugcache_open(C, &b, true, fd);

		CHECK(c >= 0);
		close(c);
	}
	close(fd);
	CHECK_INT(entries(NULL, 0), 4);

	test_ctx = "a temporary file left by a run that died";
	sh("touch -d '2001-01-01' '%s/.tmp-1-dead' && touch '%s/.tmp-2-live'", C, C);
	snprintf(p, sizeof(p), "%s/copy6.debug", T);
	sh("cp '%s' '%s'", Z, p);
	fd = cache_open(p, &b);
	close(fd);
	snprintf(p, sizeof(p), "%s/.tmp-1-dead", C);
	CHECK(access(p, F_OK) < 0, "the stale one removed");
	snprintf(p, sizeof(p), "%s/.tmp-2-live", C);
	CHECK(access(p, F_OK) == 0, "a recent one left (a run writing it now)");
}

static void test_find(void)
{
	uint8_t id[64];
	size_t len;
	char hex[129], *path = NULL;
	int fd, zfd = open_ro(Z);

	test_ctx = "find by build-id";
	CHECK(buildid_read_fd(zfd, id, sizeof(id), &len) == 0);
	close(zfd);
	buildid_to_hex(id, len, hex);
	sh("mkdir -p '%s/root/usr/lib/debug/.build-id/%.2s' && cp '%s' "
	   "'%s/root/usr/lib/debug/.build-id/%.2s/%s.debug'",
	   T, hex, Z, T, hex, hex + 2);
	{
		char root[300];

		snprintf(root, sizeof(root), "%s/root", T);
		fd = debugcache_find(C, &any, true, root, NULL, id, len, &path);
		CHECK(fd >= 0 && path && strstr(path, "/root/usr/lib/debug/.build-id/"), "%s",
		      path ? path : strerror(-fd));
		CHECK_INT(compressed_sections(fd), 0);
		close(fd);
		free(path);
		path = NULL;
		/* Where debuginfod keeps what it fetched: FETCHED/ID/debuginfo. */
		snprintf(root, sizeof(root), "%s/fetched", T);
		sh("mkdir -p '%s/%s' && cp '%s' '%s/%s/debuginfo'", root, hex, Z, root, hex);
		fd = debugcache_find(C, &any, true, NULL, root, id, len, &path);
		CHECK(fd >= 0 && path && strstr(path, "/fetched/") && strstr(path, "/debuginfo"),
		      "%s", path ? path : strerror(-fd));
		close(fd);
		free(path);
		path = NULL;
		CHECK(debugcache_find(C, &any, true, NULL, NULL, id, len, &path) < 0 && !path,
		      "without FETCHED, not looked in");
		snprintf(root, sizeof(root), "%s/root", T);
		id[0] ^= 1; /* no file of this build-id */
		CHECK(debugcache_find(C, &any, true, root, NULL, id, len, &path) < 0 && !path);
	}
}

static void test_default_dir(void)
{
	char *d;

	test_ctx = "default directory";
	setenv("XDG_CACHE_HOME", "/x/cache", 1);
	setenv("HOME", "/home/u", 1);
	d = debugcache_default_dir();
	CHECK_STR(d, "/x/cache/ringprof/debug");
	free(d);
	setenv("XDG_CACHE_HOME", "relative", 1);
	d = debugcache_default_dir();
	CHECK_STR(d, "/home/u/.cache/ringprof/debug");
	free(d);
	setenv("XDG_CACHE_HOME", "/x/cache", 1);
	d = debugcache_fetched_dir();
	CHECK_STR(d, "/x/cache/debuginfod_client");
	free(d);
	setenv("DEBUGINFOD_CACHE_PATH", "/d/c", 1);
	d = debugcache_fetched_dir();
	CHECK_STR(d, "/d/c");
	free(d);
	unsetenv("DEBUGINFOD_CACHE_PATH");
	unsetenv("XDG_CACHE_HOME");
	unsetenv("HOME");
	CHECK(debugcache_default_dir() == NULL);
	CHECK(debugcache_fetched_dir() == NULL);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");

	if (system("command -v gcc >/dev/null && command -v objcopy >/dev/null") != 0) {
		fprintf(stderr, "SKIP: gcc or objcopy missing: no debug file to compress\n");
		return 77;
	}
	elf_version(EV_CURRENT);
	snprintf(T, sizeof(T), "%s/test-debugcache.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(T)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(C, sizeof(C), "%s/cache/ringprof/debug", T);
	snprintf(Z, sizeof(Z), "%s/z.debug", T);
	snprintf(U, sizeof(U), "%s/u.debug", T);
	sh("printf '#include <stdio.h>\\nstatic int f(int x)\\n{\\n\\treturn x * 3;\\n}\\n"
	   "int main(int c, char **v)\\n{\\n\\tprintf(\"%%d\\\\n\", f(c));\\n\\treturn v[0][0];\\n}\\n'"
	   " > '%s/p.c' && gcc -g3 -O1 -Wl,--build-id -o '%s/p' '%s/p.c' && "
	   "objcopy --only-keep-debug '%s/p' '%s' && "
	   "objcopy --compress-debug-sections=zlib '%s' '%s'",
	   T, T, T, T, U, U, Z);
	test_copy();
	test_hostile();
	test_bounds();
	test_find();
	test_default_dir();
	if (!getenv("KEEP"))
		sh("rm -rf '%s'", T);
	return check_done("test-debugcache");
}
