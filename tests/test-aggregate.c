/* test-aggregate.c — lib/profile/aggregate.h: samples counted by (location stack, task, CPU,
 * bucket), each count's key given back as it went in, and rows by symbol stack: counts that
 * differ by bucket only, and stacks that symbolize alike, merge; the frame totals are
 * weighted by samples. */
#include <stdlib.h>
#include <string.h>

#include "../lib/profile/aggregate.h"
#include "../lib/profile/dsotab.h"
#include "../lib/profile/session.h"
#include "../lib/profile/symbolizer.h"
#include "../lib/profile/symstacks.h"
#include "check.h"

/* The count whose key is (stack, task's pid, cpu, bucket) into *ret: whether there is one. */
static bool find_count(const struct aggregate *a, uint32_t stack, int32_t pid, uint32_t cpu,
		       uint32_t bucket, struct aggregate_count *ret)
{
	for (size_t i = 0; i < aggregate_n_counts(a); i++) {
		aggregate_count(a, i, ret);
		if (ret->stack == stack && ret->pid == pid && ret->cpu == cpu &&
		    ret->bucket == bucket)
			return true;
	}
	return false;
}

static void test_counts(void)
{
	struct aggregate *a = aggregate_new();
	struct aggregate_count c;
	uint32_t locs[3];
	int64_t s1, s2, t1, t2;

	test_ctx = "counts";
	for (uint32_t i = 0; i < 3; i++)
		locs[i] = (uint32_t)aggregate_add_loc(a, 7, 0x1000 + i);
	s1 = aggregate_add_stack(a, locs, 3);
	s2 = aggregate_add_stack(a, locs + 1, 2);
	CHECK(s1 >= 0 && s2 >= 0 && s1 != s2);
	CHECK_INT(aggregate_add_stack(a, locs, 3), s1);
	t1 = aggregate_add_task(a, 100, 101, 3, 4);
	t2 = aggregate_add_task(a, 200, 200, 5, 6);
	CHECK(t1 >= 0 && t2 >= 0 && t1 != t2);
	/* CPUs that agree in their low 20 bits are still apart (a crafted file's CPU field). */
	CHECK_INT(aggregate_add_sample(a, (uint32_t)s1, (uint32_t)t1, 5, 9, 10), 0);
	CHECK_INT(aggregate_add_sample(a, (uint32_t)s1, (uint32_t)t1, 5 + (1u << 20), 9, 20), 0);
	CHECK_INT(aggregate_add_sample(a, (uint32_t)s1, (uint32_t)t1, 5, 9, 30), 0);
	CHECK_INT(aggregate_add_sample(a, (uint32_t)s2, (uint32_t)t2, UINT32_MAX, 0, 1), 0);
	CHECK_INT(aggregate_n_counts(a), 3);
	if (CHECK(find_count(a, (uint32_t)s1, 100, 5, 9, &c))) {
		CHECK_INT(c.count, 2);
		CHECK_INT(c.period, 40);
		CHECK_INT(c.tid, 101);
		CHECK_INT(c.comm, 3);
		CHECK_INT(c.unit, 4);
	}
	if (CHECK(find_count(a, (uint32_t)s1, 100, 5 + (1u << 20), 9, &c)))
		CHECK_INT(c.period, 20);
	if (CHECK(find_count(a, (uint32_t)s2, 200, UINT32_MAX, 0, &c))) {
		CHECK_INT(c.count, 1);
		CHECK_INT(c.tid, 200);
		CHECK_INT(c.comm, 5);
	}
	aggregate_free(a);
}

/* Rows: two location stacks that differ in one address but symbolize alike (the pseudo object
 * "[joined]" names every address the same) merge, and so do the counts of one stack that
 * differ by bucket or CPU only where the row keeps them apart. */
static void test_rows(void)
{
	struct symbolizer_opts so = { 0 };
	struct symbolizer *symz = symbolizer_new(&so);
	struct dsotab *d = dsotab_new(symz, NULL);
	struct symstacks *ss = symstacks_new(d, symz, NULL);
	struct aggregate *a = aggregate_new();
	struct session_totals t = { 0 };
	const struct session_row *rows;
	int64_t joined = dsotab_add_mapped(d, "[joined]", NULL, 0, 0, 0, 0, 0, 0);
	uint32_t l[3], len;
	int64_t s1, s2, task;
	size_t n;

	test_ctx = "rows";
	if (!CHECK(symz && d && ss && a && joined >= 0))
		goto out;
	for (uint32_t i = 0; i < 3; i++)
		l[i] = (uint32_t)aggregate_add_loc(a, (uint32_t)joined, i);
	s1 = aggregate_add_stack(a, (uint32_t[]){ l[0], l[1] }, 2);
	s2 = aggregate_add_stack(a, (uint32_t[]){ l[2], l[1] }, 2);
	task = aggregate_add_task(a, 1, 1, 0, 0);
	/* One stack counted on two CPUs, in two buckets, and a look-alike on the first CPU. */
	aggregate_add_sample(a, (uint32_t)s1, (uint32_t)task, 0, 1, 1);
	aggregate_add_sample(a, (uint32_t)s1, (uint32_t)task, 1, 1, 1);
	aggregate_add_sample(a, (uint32_t)s1, (uint32_t)task, 0, 2, 1);
	aggregate_add_sample(a, (uint32_t)s2, (uint32_t)task, 0, 1, 1);
	aggregate_add_sample(a, (uint32_t)s2, (uint32_t)task, 0, 1, 1);
	for (uint32_t i = 0; i < aggregate_n_locs(a); i++) {
		uint32_t dso;
		uint64_t addr;

		aggregate_loc(a, i, &dso, &addr);
		CHECK_INT(symstacks_add_loc(ss, dso, addr, false), 0);
	}
	CHECK_INT(aggregate_build_rows(a, ss, &t), 0);
	rows = aggregate_rows(a, &n);
	/* (CPU 0, bucket 1): s1 once and s2 twice; (CPU 1, bucket 1); (CPU 0, bucket 2). */
	if (CHECK_INT(n, 3)) {
		CHECK(rows[0].stack == rows[1].stack && rows[1].stack == rows[2].stack);
		CHECK(rows[0].cpu == 0 && rows[0].bucket == 1 && rows[0].count == 3);
		CHECK(rows[1].cpu == 1 && rows[1].bucket == 1 && rows[1].count == 1);
		CHECK(rows[2].cpu == 0 && rows[2].bucket == 2 && rows[2].count == 1);
		symstacks_get(ss, rows[0].stack, &len);
		CHECK_INT(len, 2);
	}
	CHECK_INT(t.frames, 2 * 5);
	CHECK_INT(t.frames_unknown, 0);
out:
	aggregate_free(a);
	symstacks_free(ss);
	dsotab_free(d);
	symbolizer_free(symz);
}

int main(void)
{
	test_counts();
	test_rows();
	return check_done("test-aggregate");
}
