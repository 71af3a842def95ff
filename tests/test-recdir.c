/* test-recdir.c — unit test of format/recdir.c, the recording directory's rules: the names
 * (STEM-YYYYmmddTHHMMSSZ-NNNN.data, .partial while written), their time order (sequence
 * numbers as numbers: 10000 after 9999, which strcmp gets wrong), the active file's creation
 * and finishing without replacing anything, what a listing passes by (hidden names, symbolic
 * links, directories, FIFOs, names too long) and the one file-size estimate. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "format/recdir.h"
#include "format/writer.h"

#define T0 1795342500 /* 2026-11-22 10:15:00 UTC */

static void test_names(void)
{
	struct recdir_name n;
	char buf[RECDIR_NAME_MAX], long_name[300];

	test_ctx = "names";
	CHECK(recdir_parse("ringprof-20261122T101500Z-0001.data", &n));
	CHECK(n.timed && !n.partial);
	CHECK_INT(n.start, T0);
	CHECK_U64(n.seq, 1);
	CHECK_INT(n.stem, strlen("ringprof"));
	CHECK(recdir_parse("my-run-20261122T101500Z-12345.data.partial", &n));
	CHECK(n.timed && n.partial);
	CHECK_U64(n.seq, 12345);
	CHECK_INT(n.stem, strlen("my-run"));
	/* Recordings without the time in their name: taken, untimed. */
	CHECK(recdir_parse("rp-0001.data", &n) && !n.timed && !n.partial);
	CHECK(recdir_parse("perf.data.partial", &n) && !n.timed && n.partial);
	CHECK(recdir_parse("ringprof-20261322T101500Z-0001.data", &n) && !n.timed, "month 13");
	CHECK(recdir_parse("-20261122T101500Z-0001.data", &n) && !n.timed, "no stem");
	CHECK(recdir_parse("ringprof-20261122T101500Z-.data", &n) && !n.timed, "no sequence");
	/* No recording at all. */
	CHECK(!recdir_parse(".ringprof-20261122T101500Z-0001.data", &n), "hidden");
	CHECK(!recdir_parse("notes.txt", &n));
	CHECK(!recdir_parse(".data", &n));
	CHECK(!recdir_parse("x.data.tmp", &n));
	memset(long_name, 'a', sizeof(long_name));
	strcpy(long_name + RECDIR_NAME_MAX - 5, ".data");
	CHECK(!recdir_parse(long_name, &n), "a name of %zu bytes", strlen(long_name));

	test_ctx = "format";
	CHECK_INT(recdir_format(buf, sizeof(buf), "ringprof", T0, 7, true), 0);
	CHECK_STR(buf, "ringprof-20261122T101500Z-0007.data.partial");
	CHECK_INT(recdir_format(buf, sizeof(buf), "ringprof", T0, 123456, false), 0);
	CHECK_STR(buf, "ringprof-20261122T101500Z-123456.data");
	CHECK(recdir_parse(buf, &n) && n.timed && n.start == T0 && n.seq == 123456, "round trip");
	long_name[240] = '\0';
	CHECK_INT(recdir_format(buf, sizeof(buf), long_name, T0, 1, false), -ENAMETOOLONG);
	CHECK_INT(recdir_format(buf, 20, "ringprof", T0, 1, false), -ENAMETOOLONG);

	test_ctx = "finished name";
	CHECK_INT(recdir_finished_name("ringprof-20261122T101500Z-0001.data.partial", buf,
				       sizeof(buf)),
		  0);
	CHECK_STR(buf, "ringprof-20261122T101500Z-0001.data");
	CHECK_INT(recdir_finished_name("ringprof-20261122T101500Z-0001.data", buf, sizeof(buf)),
		  -EINVAL);
	CHECK_INT(recdir_finished_name("x.partial", buf, sizeof(buf)), -EINVAL);
}

static void test_order(void)
{
	const char *a = "ringprof-20261122T101500Z-9999.data";
	const char *b = "ringprof-20261122T101500Z-10000.data";

	test_ctx = "order";
	CHECK(strcmp(a, b) > 0, "strcmp puts 10000 first");
	CHECK(recdir_cmp(a, b) < 0, "9999 before 10000");
	CHECK(recdir_cmp(b, a) > 0);
	CHECK(recdir_cmp(a, a) == 0);
	/* By the time first, whatever the stem. */
	CHECK(recdir_cmp("zz-20261122T101500Z-0009.data", "aa-20261122T101501Z-0001.data") < 0);
	CHECK(recdir_cmp("ringprof-20261122T101500Z-0002.data.partial",
			 "ringprof-20261122T101500Z-0003.data") < 0);
	/* Untimed recordings after the timed ones, by name; no recording's names last. */
	CHECK(recdir_cmp("ringprof.data", "ringprof-20261122T101500Z-0002.data") > 0);
	CHECK(recdir_cmp("rp-0001.data", "rp-0002.data") < 0);
	CHECK(recdir_cmp("rp-0002.data", "notes.txt") < 0);
}

/* Creates an empty file NAME in DIR. */
static void touch(const char *dir, const char *name)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (CHECK(fd >= 0, "create %s", path))
		close(fd);
}

static void test_list(const char *dir)
{
	static const char *const want[] = {
		"ringprof-20261122T101500Z-0002.data",
		"ringprof-20261122T101500Z-0010.data",
		"ringprof-20261122T101500Z-9999.data",
		"ringprof-20261122T101500Z-10000.data",
		"other-20261122T101501Z-0001.data",
		"ringprof-20261122T101502Z-0001.data.partial",
		"a.data",
		"ringprof.data",
	};
	char path[512], target[512], long_name[300];
	struct recdir_entry *v = NULL;
	size_t n = 0;

	test_ctx = "list";
	for (size_t i = sizeof(want) / sizeof(*want); i-- > 0;)
		touch(dir, want[i]);
	touch(dir, ".hidden.data");
	touch(dir, "notes.txt");
	snprintf(target, sizeof(target), "%s/%s", dir, want[0]);
	snprintf(path, sizeof(path), "%s/ringprof-20261122T101500Z-0003.data", dir);
	CHECK(symlink(target, path) == 0);
	snprintf(path, sizeof(path), "%s/ringprof-20261122T101500Z-0004.data", dir);
	CHECK(mkdir(path, 0755) == 0);
	snprintf(path, sizeof(path), "%s/ringprof-20261122T101500Z-0005.data", dir);
	CHECK(mkfifo(path, 0644) == 0);
	memset(long_name, 'z', 250);
	strcpy(long_name + 250, ".data"); /* 255 bytes: the longest name, and still one */
	touch(dir, long_name);

	if (!CHECK_INT(recdir_list_path(dir, NULL, &v, &n), 0))
		return;
	CHECK_INT(n, sizeof(want) / sizeof(*want) + 1);
	for (size_t i = 0; i < n && i < sizeof(want) / sizeof(*want); i++)
		CHECK_STR(v[i].name, want[i]);
	CHECK(n > 6 && v[5].n.partial && !v[4].n.partial);
	CHECK(n > 6 && strcmp(v[n - 1].name, long_name) == 0, "the long one last of the untimed");
	free(v);

	test_ctx = "list with a stem";
	if (!CHECK_INT(recdir_list_path(dir, RECDIR_STEM, &v, &n), 0))
		return;
	CHECK_INT(n, 5);
	CHECK(n == 5 && strcmp(v[4].name, want[5]) == 0);
	CHECK_U64(recdir_next_seq(v, n), 10001);
	CHECK_U64(recdir_next_seq(v, 0), 1);
	free(v);
	CHECK_INT(recdir_list_path("/nonexistent/dir", NULL, &v, &n), -ENOENT);
}

static void test_create_finish(const char *dir)
{
	char name[RECDIR_NAME_MAX], name2[RECDIR_NAME_MAX], path[512];
	struct recdir_entry *v;
	struct recdir_name rn;
	uint64_t seq = 3;
	size_t n;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY), fd;

	test_ctx = "create and finish";
	if (!CHECK(dfd >= 0))
		return;
	CHECK_INT(recdir_create(dfd, "run", &seq, 0640, &fd, name, sizeof(name)), 0);
	CHECK(recdir_parse(name, &rn) && rn.timed && rn.partial && rn.seq == 3, "%s", name);
	CHECK_U64(seq, 4);
	close(fd);
	CHECK_INT(recdir_finish(dfd, name), 0);
	CHECK_INT(recdir_finished_name(name, name2, sizeof(name2)), 0);
	CHECK(faccessat(dfd, name2, F_OK, 0) == 0, "%s is there", name2);
	CHECK(faccessat(dfd, name, F_OK, 0) < 0, "%s is gone", name);
	CHECK_INT(recdir_finish(dfd, name2), -EINVAL);

	/* A finished file never replaces one: the next free number. */
	test_ctx = "finish as";
	seq = 1;
	recdir_format(name, sizeof(name), "sw", T0, 1, false);
	touch(dir, name);
	snprintf(path, sizeof(path), "%s/sw.data", dir);
	touch(dir, "sw.data");
	CHECK_INT(recdir_finish_as(path, dfd, "sw", T0, &seq, name2, sizeof(name2)), 0);
	CHECK_STR(name2, "sw-20261122T101500Z-0002.data");
	CHECK_U64(seq, 3);
	CHECK(access(path, F_OK) < 0, "sw.data was renamed");
	if (CHECK_INT(recdir_list(dfd, "sw", &v, &n), 0)) {
		CHECK_INT(n, 2);
		free(v);
	}
	close(dfd);
}

/* The estimate of a file whose open frame repeats the one written: near what it is once
 * written. */
static void test_estimate(const char *dir)
{
	char path[512];
	uint64_t rec[8], before, estimate, after;
	struct writer *w;

	test_ctx = "estimate";
	snprintf(path, sizeof(path), "%s/est.data", dir);
	if (!CHECK_INT(writer_open(path, 0600, 3, &w), 0))
		return;
	for (int i = 0; i < 2000; i++) {
		for (int k = 0; k < 8; k++)
			rec[k] = (uint64_t)(i % 37) * 0x9e3779b97f4a7c15ull + (uint64_t)k;
		writer_add(w, rec, sizeof(rec));
	}
	CHECK_U64(recdir_file_estimate(w),
		  writer_stats(w)->file_bytes + writer_pending(w) / 4); /* no ratio yet */
	writer_flush(w);
	before = writer_stats(w)->file_bytes;
	for (int i = 0; i < 2000; i++) {
		for (int k = 0; k < 8; k++)
			rec[k] = (uint64_t)(i % 37) * 0x9e3779b97f4a7c15ull + (uint64_t)k;
		writer_add(w, rec, sizeof(rec));
	}
	estimate = recdir_file_estimate(w);
	writer_flush(w);
	after = writer_stats(w)->file_bytes;
	CHECK(estimate > before, "the pending frame counts");
	CHECK(estimate * 4 >= before + (after - before) * 3 && estimate <= after + (after - before),
	      "estimate %llu, the file %llu once written (%llu before)",
	      (unsigned long long)estimate, (unsigned long long)after, (unsigned long long)before);
	writer_close(w);
}

int main(void)
{
	char dir[] = "/tmp/rp-test-recdir.XXXXXX", sub[64];

	test_names();
	test_order();
	if (!CHECK(mkdtemp(dir) != NULL))
		return check_done("test-recdir");
	snprintf(sub, sizeof(sub), "%s/list", dir);
	CHECK(mkdir(sub, 0755) == 0);
	test_list(sub);
	snprintf(sub, sizeof(sub), "%s/create", dir);
	CHECK(mkdir(sub, 0755) == 0);
	test_create_finish(sub);
	test_estimate(dir);
	snprintf(sub, sizeof(sub), "rm -rf %s", dir);
	CHECK(system(sub) == 0);
	return check_done("test-recdir");
}
