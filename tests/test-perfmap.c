/* test-perfmap.c — unit test of lib/perfmap.c: generated JIT maps, hostile lines, overlaps. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "profile/perfmap.h"

static char path[256];

static void write_file(const char *content, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(content, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static struct perfmap *load(const char *content)
{
	struct perfmap *m = NULL;
	int r;

	write_file(content, strlen(content));
	r = perfmap_load(path, &m);
	if (!CHECK(r == 0 && m, "perfmap_load: %d", r))
		exit(1);
	return m;
}

static void expect(const struct perfmap *m, uint64_t addr, const char *name, uint64_t off)
{
	const char *n = "untouched";
	uint64_t o = 0xdead;
	int r = perfmap_find(m, addr, &n, &o);

	if (!name) {
		CHECK(r == -ENOENT && !strcmp(n, "untouched") && o == 0xdead,
		      "%#llx: expected -ENOENT with untouched out-params, got %d \"%s\"+%#llx",
		      (unsigned long long)addr, r, n, (unsigned long long)o);
		return;
	}
	CHECK(r == 0 && !strcmp(n, name) && o == off,
	      "%#llx: got %d \"%s\"+%#llx, expected \"%s\"+%#llx", (unsigned long long)addr, r,
	      r ? "-" : n, (unsigned long long)o, name, (unsigned long long)off);
}

static void test_lines(void)
{
	struct perfmap *m;
	char *big;
	size_t len;

	test_ctx = "lines";
	m = load("7f0000001000 100 LazyCompile:~handler /srv/app.js:12\n"
		 "0x7f0000001100 0x40 Builtin: ArrayPush\n"
		 "7F0000002000\t20\tStub:CEntry\r\n"
		 "  7f0000003000   10   padded name with  double  spaces   \n"
		 "\n"
		 "not-hex 10 bad\n"
		 "7f0000004000\n"
		 "7f0000004000 10\n"
		 "7f0000004000 10 \n"
		 "7f0000004000 0 zero size\n"
		 "7f0000004000 -10 negative\n"
		 "ffffffffffffff00 200 wraps around\n"
		 "1000007f000004000 10 seventeen digits\n"
		 "7f0000004000z 10 junk in number\n"
		 "7f0000005000 10 last line without newline");
	CHECK_INT(perfmap_count(m), 5);
	CHECK_INT(perfmap_bad_lines(m), 10);
	expect(m, 0x7f0000000fff, NULL, 0);
	expect(m, 0x7f0000001000, "LazyCompile:~handler /srv/app.js:12", 0);
	expect(m, 0x7f00000010ff, "LazyCompile:~handler /srv/app.js:12", 0xff);
	expect(m, 0x7f0000001100, "Builtin: ArrayPush", 0);
	expect(m, 0x7f000000113f, "Builtin: ArrayPush", 0x3f);
	expect(m, 0x7f0000001140, NULL, 0);
	expect(m, 0x7f0000002010, "Stub:CEntry", 0x10);
	expect(m, 0x7f0000002020, NULL, 0);
	expect(m, 0x7f0000003001, "padded name with  double  spaces", 1);
	expect(m, 0x7f0000004005, NULL, 0);
	expect(m, 0x7f000000500f, "last line without newline", 0xf);
	expect(m, 0x7f0000005010, NULL, 0);
	expect(m, 0xffffffffffffff80, NULL, 0);
	CHECK_INT(perfmap_find(m, 0x7f0000001000, NULL, NULL), 0);
	perfmap_free(m);

	test_ctx = "long name";
	len = 100000;
	big = malloc(len + 64);
	memcpy(big, "1000 10 ", 8);
	memset(big + 8, 'n', len);
	strcpy(big + 8 + len, "\n2000 10 after\n");
	m = load(big);
	CHECK_INT(perfmap_count(m), 2);
	{
		const char *n = NULL;

		CHECK_INT(perfmap_find(m, 0x1005, &n, NULL), 0);
		CHECK(n && strlen(n) == len && n[len - 1] == 'n');
	}
	expect(m, 0x2000, "after", 0);
	perfmap_free(m);
	free(big);

	test_ctx = "NUL bytes";
	write_file("1000 10 a\0b\n2000 10 c\n", 22);
	CHECK_INT(perfmap_load(path, &m), 0);
	expect(m, 0x1000, "a", 0);
	expect(m, 0x2000, "c", 0);
	perfmap_free(m);

	test_ctx = "empty";
	m = load("");
	CHECK_INT(perfmap_count(m), 0);
	expect(m, 0x1000, NULL, 0);
	perfmap_free(m);
}

static void test_overlaps(void)
{
	struct perfmap *m;

	/* A JIT reusing memory appends; the later line wins where they overlap. */
	test_ctx = "overlaps";
	m = load("1000 100 old_big\n"	    /* [1000,1100) */
		 "1040 20 new_inside\n"	    /* [1040,1060) over old_big */
		 "10f0 20 new_straddling\n" /* [10f0,1110) over old_big's tail */
		 "2000 10 dup\n"
		 "2000 10 dup_again\n" /* same range, later wins */
		 "3000 10 first\n"
		 "3000 40 longer_later\n" /* same start, longer */
		 "4000 40 outer_later_a\n"
		 "3ff0 80 outer_latest\n" /* covers outer_later_a completely */
		 "5000 40 early\n"
		 "5010 10 mid\n"
		 "4fff 2 tiny\n");
	CHECK_INT(perfmap_count(m), 12);
	expect(m, 0x1000, "old_big", 0);
	expect(m, 0x103f, "old_big", 0x3f);
	expect(m, 0x1040, "new_inside", 0);
	expect(m, 0x105f, "new_inside", 0x1f);
	expect(m, 0x1060, "old_big", 0x60); /* old_big again, offset from its own start */
	expect(m, 0x10ef, "old_big", 0xef);
	expect(m, 0x10f0, "new_straddling", 0);
	expect(m, 0x110f, "new_straddling", 0x1f);
	expect(m, 0x1110, NULL, 0);
	expect(m, 0x2005, "dup_again", 5);
	expect(m, 0x3005, "longer_later", 5);
	expect(m, 0x303f, "longer_later", 0x3f);
	expect(m, 0x4010, "outer_latest", 0x20);
	expect(m, 0x406f, "outer_latest", 0x7f);
	expect(m, 0x4fff, "tiny", 0);
	expect(m, 0x5000, "tiny", 1);
	expect(m, 0x5001, "early", 1);
	expect(m, 0x5010, "mid", 0);
	expect(m, 0x5020, "early", 0x20);
	expect(m, 0x5040, NULL, 0);
	perfmap_free(m);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_big(void)
{
	enum { N = 200000 };
	struct perfmap *m = NULL;
	FILE *f = fopen(path, "w");
	double t0, t_load, t_find;
	size_t bad = 0;

	test_ctx = "200k entries";
	if (!f)
		exit(1);
	for (int i = 0; i < N; i++)
		fprintf(f, "%llx %x JS:fn_%d /app/src/file%d.js:%d\n",
			0x7f0000000000ull + (unsigned long long)i * 0x100, 0x80 + i % 0x80, i,
			i % 97, i);
	fclose(f);
	t0 = now();
	CHECK_INT(perfmap_load(path, &m), 0);
	t_load = now() - t0;
	if (!m)
		return;
	CHECK_INT(perfmap_count(m), N);
	t0 = now();
	for (int k = 0; k < 1000000; k++) {
		unsigned int i = (unsigned int)((uint64_t)k * 2654435761u % N);
		const char *n;
		uint64_t o;

		if (perfmap_find(m, 0x7f0000000000ull + i * 0x100ull + 0x10, &n, &o) || o != 0x10)
			bad++;
	}
	t_find = now() - t0;
	CHECK_INT(bad, 0);
	expect(m, 0x7f0000000000ull + 5 * 0x100 + 0x90, NULL, 0); /* fn_5 is 0x85 long */
	printf("200k entries: load %.1f ms, 1M lookups %.1f ms\n", t_load * 1e3, t_find * 1e3);
	perfmap_free(m);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	struct perfmap *m = (struct perfmap *)&path;
	int fd;

	snprintf(path, sizeof(path), "%s/rp-test-perfmap.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path);
	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	close(fd);

	test_ctx = "absent";
	CHECK_INT(perfmap_load("/nonexistent/perf-1.map", &m), -ENOENT);
	CHECK(m == (struct perfmap *)&path); /* untouched */
	CHECK(perfmap_free(NULL) == NULL);
	CHECK_INT(perfmap_find(NULL, 1, NULL, NULL), -ENOENT);

	test_lines();
	test_overlaps();
	test_big();
	unlink(path);
	return check_done("test-perfmap");
}
