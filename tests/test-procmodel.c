/* test-procmodel.c — process model replay (fork, exec, mmap overlap, exit) and the intern tables. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "base/intern.h"
#include "profile/procmodel.h"

static uint32_t dso_at(struct procmodel *m, int32_t pid, uint64_t addr)
{
	const struct procmodel_map *mp = procmodel_find_map(m, pid, addr);

	return mp ? mp->dso : UINT32_MAX;
}

static uint64_t off_at(struct procmodel *m, int32_t pid, uint64_t addr)
{
	const struct procmodel_map *mp = procmodel_find_map(m, pid, addr);

	return mp ? addr - mp->start + mp->pgoff : UINT64_MAX;
}

static const char *comm_of(struct procmodel *m, int32_t pid, int32_t tid)
{
	int64_t id = procmodel_comm_id(m, pid, tid);

	return id < 0 ? NULL : strtab_get(procmodel_comms(m), (uint32_t)id);
}

static void test_maps(void)
{
	struct procmodel *m = procmodel_new();

	test_ctx = "maps";
	procmodel_comm(m, 10, 10, "app", false);
	procmodel_map(m, 10, 0x1000, 0x3000, 0, 1);	 /* [0x1000, 0x4000) */
	procmodel_map(m, 10, 0x8000, 0x1000, 0x2000, 2); /* [0x8000, 0x9000) */
	CHECK_INT(dso_at(m, 10, 0x1000), 1);
	CHECK_INT(dso_at(m, 10, 0x3fff), 1);
	CHECK_INT(dso_at(m, 10, 0x4000), UINT32_MAX);
	CHECK_U64(off_at(m, 10, 0x8010), 0x2010);
	/* A mapping in the middle splits the old one in two; offsets of the tail stay right. */
	procmodel_map(m, 10, 0x2000, 0x1000, 0x500000, 3);
	CHECK_INT(dso_at(m, 10, 0x1fff), 1);
	CHECK_INT(dso_at(m, 10, 0x2000), 3);
	CHECK_U64(off_at(m, 10, 0x2004), 0x500004);
	CHECK_INT(dso_at(m, 10, 0x3000), 1);
	CHECK_U64(off_at(m, 10, 0x3004), 0x2004);
	/* One covering several replaces them all, trimming the ends. */
	procmodel_map(m, 10, 0x1800, 0x7000, 0, 4); /* [0x1800, 0x8800) */
	CHECK_INT(dso_at(m, 10, 0x17ff), 1);
	CHECK_INT(dso_at(m, 10, 0x2000), 4);
	CHECK_INT(dso_at(m, 10, 0x8800), 2);
	CHECK_U64(off_at(m, 10, 0x8800), 0x2800);
	CHECK_INT(dso_at(m, 11, 0x2000), UINT32_MAX);
	procmodel_free(m);
}

static void test_fork_exec_exit(void)
{
	struct procmodel *m = procmodel_new();

	test_ctx = "fork/exec/exit";
	procmodel_comm(m, 10, 10, "parent", false);
	procmodel_map(m, 10, 0x1000, 0x1000, 0, 1);
	/* A thread shares the process's maps and starts with its creator's name. */
	procmodel_fork(m, 10, 10, 11, 10);
	CHECK_STR(comm_of(m, 10, 11), "parent");
	procmodel_comm(m, 10, 11, "worker", false);
	CHECK_STR(comm_of(m, 10, 11), "worker");
	CHECK_STR(comm_of(m, 10, 10), "parent");
	/* A child process copies the maps; later changes are its own. */
	procmodel_fork(m, 20, 10, 20, 10);
	CHECK_STR(comm_of(m, 20, 20), "parent");
	CHECK_INT(dso_at(m, 20, 0x1000), 1);
	procmodel_map(m, 20, 0x1000, 0x1000, 0, 5);
	CHECK_INT(dso_at(m, 20, 0x1000), 5);
	CHECK_INT(dso_at(m, 10, 0x1000), 1);
	/* exec: a new name, and the old image is gone. */
	procmodel_comm(m, 20, 20, "child", true);
	CHECK_STR(comm_of(m, 20, 20), "child");
	CHECK_INT(dso_at(m, 20, 0x1000), UINT32_MAX);
	procmodel_map(m, 20, 0x5000, 0x1000, 0, 6);
	CHECK_INT(dso_at(m, 20, 0x5000), 6);
	/* Exit of the main thread releases the maps; a reused pid starts afresh from its parent. */
	procmodel_exit(m, 20, 20);
	CHECK_INT(dso_at(m, 20, 0x5000), UINT32_MAX);
	procmodel_fork(m, 20, 10, 20, 10);
	CHECK_INT(dso_at(m, 20, 0x1000), 1);
	CHECK_INT(dso_at(m, 20, 0x5000), UINT32_MAX);
	/* Unknown threads get ":TID"; pid 0 is the idle task. */
	CHECK_STR(comm_of(m, 99, 123), ":123");
	CHECK_STR(comm_of(m, 0, 0), "swapper");
	CHECK_STR(comm_of(m, 10, 12), "parent");
	procmodel_free(m);
}

static void test_intern(void)
{
	struct pairtab *p = pairtab_new();
	struct seqtab *s = seqtab_new();
	struct strtab *t = strtab_new();
	const char *first, *lp;
	uint32_t seq[64], n;
	char buf[32], *lng;
	bool added;

	test_ctx = "intern";
	for (uint64_t i = 0; i < 100000; i++)
		if (CHECK_INT(pairtab_intern(p, i, i * 7, &added), (long long)i))
			CHECK(added);
	for (uint64_t i = 0; i < 100000; i += 997) {
		uint64_t a, b;

		if (CHECK_INT(pairtab_intern(p, i, i * 7, &added), (long long)i))
			CHECK(!added);
		pairtab_get(p, (uint32_t)i, &a, &b);
		CHECK(a == i && b == i * 7);
	}
	CHECK_INT(pairtab_find(p, 5, 6), -1);
	CHECK_INT(pairtab_count(p), 100000);
	for (uint32_t i = 0; i < 64; i++)
		seq[i] = i * 3;
	for (uint32_t len = 0; len <= 64; len++)
		CHECK_INT(seqtab_intern(s, seq, len), len);
	for (uint32_t len = 0; len <= 64; len++) {
		const uint32_t *g = seqtab_get(s, len, &n);

		CHECK_INT(seqtab_intern(s, seq, len), len);
		CHECK(n == len && (len == 0 || memcmp(g, seq, len * 4) == 0));
	}
	CHECK_INT(strtab_intern(t, "a"), 0);
	CHECK_INT(strtab_intern(t, ""), 1);
	CHECK_INT(strtab_intern(t, "a"), 0);
	CHECK_STR(strtab_get(t, 1), "");
	/* One copy per string, which never moves while the table grows. */
	first = strtab_add(t, "a");
	CHECK(first && first == strtab_get(t, 0));
	CHECK(strtab_add(t, NULL) == NULL);
	lng = malloc(200000);
	if (CHECK(lng != NULL)) {
		memset(lng, 'x', 199999);
		lng[199999] = 0;
		lp = strtab_add(t, lng);
		CHECK(lp && lp != lng && lp == strtab_get(t, 2) && !strcmp(lp, lng));
		for (uint32_t i = 0; i < 20000; i++) {
			snprintf(buf, sizeof(buf), "s%u", i);
			CHECK_INT(strtab_intern(t, buf), i + 3);
		}
		CHECK(strtab_add(t, "a") == first && strtab_get(t, 0) == first);
		CHECK(strtab_add(t, lng) == lp && strtab_get(t, 2) == lp && !strcmp(lp, lng));
		CHECK_STR(strtab_get(t, 3 + 12345), "s12345");
		CHECK_INT(strtab_count(t), 20003);
		free(lng);
	}
	pairtab_free(p);
	seqtab_free(s);
	strtab_free(t);
}

int main(void)
{
	test_maps();
	test_fork_exec_exit();
	test_intern();
	return check_done("test-procmodel");
}
