/* test-cpulist.c — unit test of lib/cpulist.c: valid and invalid lists, the online file. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "base/cpulist.h"
#include "base/procfs.h"

#define END -1 /* terminates an expected CPU list */

struct case_ {
	const char *s;
	size_t max;
	int ret;
	int cpus[16];
};

static const struct case_ cases[] = {
	{ "0", 8, 0, { 0, END } },
	{ "0\n", 8, 0, { 0, END } },
	{ "0-3", 8, 0, { 0, 1, 2, 3, END } },
	{ "0-3,5,7-8\n", 8, 0, { 0, 1, 2, 3, 5, 7, 8, END } },
	{ "7-8,0-3,5", 8, 0, { 0, 1, 2, 3, 5, 7, 8, END } },
	{ "3,1,2,1,3", 8, 0, { 1, 2, 3, END } },
	{ "0-3,2-5,1", 8, 0, { 0, 1, 2, 3, 4, 5, END } },
	{ "5-5", 8, 0, { 5, END } },
	{ "007,10", 8, 0, { 7, 10, END } },
	{ "2147483647", 1, 0, { INT_MAX, END } },
	{ "2147483646-2147483647", 2, 0, { INT_MAX - 1, INT_MAX, END } },
	{ "0-3,0-3", 4, 0, { 0, 1, 2, 3, END } },
	{ "4,3,2,1,0", 5, 0, { 0, 1, 2, 3, 4, END } },

	{ "0-4", 4, -E2BIG, { END } },
	{ "0-2000000000", 4, -E2BIG, { END } },
	{ "0-3,0-3,9", 4, -E2BIG, { END } },
	{ "1", 0, -E2BIG, { END } },

	{ "", 8, -EINVAL, { END } },
	{ "\n", 8, -EINVAL, { END } },
	{ "1-", 8, -EINVAL, { END } },
	{ "-1", 8, -EINVAL, { END } },
	{ "3-1", 8, -EINVAL, { END } },
	{ "a", 8, -EINVAL, { END } },
	{ "1,,2", 8, -EINVAL, { END } },
	{ "1,", 8, -EINVAL, { END } },
	{ ",1", 8, -EINVAL, { END } },
	{ "1,\n", 8, -EINVAL, { END } },
	{ " 1", 8, -EINVAL, { END } },
	{ "1 ", 8, -EINVAL, { END } },
	{ "1, 2", 8, -EINVAL, { END } },
	{ "1--2", 8, -EINVAL, { END } },
	{ "1-2-3", 8, -EINVAL, { END } },
	{ "0-7:2", 8, -EINVAL, { END } },
	{ "0x1", 8, -EINVAL, { END } },
	{ "+1", 8, -EINVAL, { END } },
	{ "1\n\n", 8, -EINVAL, { END } },
	{ "1\n2", 8, -EINVAL, { END } },
	{ "2147483648", 8, -EINVAL, { END } },
	{ "0-99999999999", 8, -EINVAL, { END } },
	/* A syntax error wins over a list that is too long. */
	{ "0-100,x", 4, -EINVAL, { END } },
};

static void test_parse(void)
{
	char name[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct case_ *c = &cases[i];
		int cpus[16];
		size_t n = 999, expect_n = 0;
		int r;

		snprintf(name, sizeof(name), "\"%s\"", c->s);
		test_ctx = name;
		r = cpulist_parse(c->s, cpus, c->max, &n);
		CHECK_INT(r, c->ret);
		if (r < 0) {
			CHECK_INT(n, 999); /* untouched on failure */
			continue;
		}
		while (c->cpus[expect_n] != END)
			expect_n++;
		CHECK_INT(n, expect_n);
		for (size_t j = 0; j < n && j < expect_n; j++)
			CHECK_INT(cpus[j], c->cpus[j]);
	}

	test_ctx = "NULL arguments";
	{
		size_t n = 999;

		CHECK_INT(cpulist_parse(NULL, NULL, 0, &n), -EINVAL);
		CHECK_INT(cpulist_parse("1", NULL, 4, &n), -EINVAL);
		CHECK_INT(cpulist_parse("1", NULL, 0, &n), -E2BIG);
		CHECK_INT(n, 999);
	}

	/* A long descending list exercises insertion. */
	test_ctx = "descending";
	{
		char s[8192], *p = s;
		int cpus[1024];
		size_t n = 0;

		for (int cpu = 1023; cpu >= 0; cpu--)
			p += sprintf(p, "%d%s", cpu, cpu ? "," : "");
		CHECK_INT(cpulist_parse(s, cpus, 1024, &n), 0);
		CHECK_INT(n, 1024);
		for (size_t i = 0; i < n; i++)
			if (!CHECK(cpus[i] == (int)i, "cpus[%zu] == %d", i, cpus[i]))
				break;
		CHECK_INT(cpulist_parse(s, cpus, 1023, &n), -E2BIG);
	}
	test_ctx = "";
}

static void put_online(const char *root, const char *content)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/online", root);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, content, strlen(content)) != (ssize_t)strlen(content) ||
	    close(fd) < 0) {
		perror(path);
		exit(1);
	}
}

static void test_online(void)
{
	const char *t = getenv("TMPDIR");
	char root[256], dir[512];
	int cpus[4096];
	size_t n = 0;
	long online;

	/* The real file, if this system has one. */
	test_ctx = "real online";
	online = sysconf(_SC_NPROCESSORS_ONLN);
	if (access("/sys/devices/system/cpu/online", R_OK) < 0) {
		printf("SKIP: /sys/devices/system/cpu/online is not readable\n");
	} else {
		CHECK_INT(cpulist_read_online(cpus, 4096, &n), 0);
		CHECK(n >= 1);
		if (online > 0)
			CHECK_INT(n, online);
		for (size_t i = 1; i < n; i++)
			CHECK(cpus[i] > cpus[i - 1]);
	}

	/* A fake tree under procfs_set_root(). */
	test_ctx = "fake online";
	snprintf(root, sizeof(root), "%s/test-cpulist.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		exit(1);
	}
	snprintf(dir, sizeof(dir), "%s/sys/devices/system/cpu", root);
	for (char *p = dir + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(dir, 0755);
		*p = '/';
	}
	mkdir(dir, 0755);

	procfs_set_root(root);
	CHECK_INT(cpulist_read_online(cpus, 4096, &n), -ENOENT);
	put_online(root, "0-2,4\n");
	CHECK_INT(cpulist_read_online(cpus, 4096, &n), 0);
	CHECK_INT(n, 4);
	CHECK_INT(cpus[3], 4);
	CHECK_INT(cpulist_read_online(cpus, 3, &n), -E2BIG);
	put_online(root, "");
	CHECK_INT(cpulist_read_online(cpus, 4096, &n), -EINVAL);
	put_online(root, "0-1\n2\n");
	CHECK_INT(cpulist_read_online(cpus, 4096, &n), 0); /* first line only */
	CHECK_INT(n, 2);
	put_online(root, "0-1 junk\n");
	CHECK_INT(cpulist_read_online(cpus, 4096, &n), -EINVAL);
	procfs_set_root(NULL);

	unlink(strcat(dir, "/online"));
	for (char *p; (p = strrchr(dir, '/')) && p >= dir + strlen(root);) {
		*p = '\0';
		rmdir(dir);
	}
	rmdir(root);
	test_ctx = "";
}

int main(void)
{
	test_parse();
	test_online();
	return check_done("test-cpulist");
}
