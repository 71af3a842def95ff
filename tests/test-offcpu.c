/* test-offcpu.c — the off-CPU table: intervals by tid, their kinds, the time of switch-outs
 * without a stack charged to the thread's next stack of the same kind, clipping at the end. */
#include <stdlib.h>

#include "check.h"
#include "profile/offcpu.h"

#define MS 1000000ull

struct got {
	struct offcpu_charge c[8];
	size_t n;
};

static void collect(void *arg, const struct offcpu_charge *c)
{
	struct got *g = arg;

	if (g->n < 8)
		g->c[g->n++] = *c;
}

/* Every switch-out with its stack: each interval charged to it, the kind from the record. */
static void test_every_stack(void)
{
	struct offcpu *oc = offcpu_new();
	struct offcpu_charge c;

	test_ctx = "every stack";
	CHECK_INT(offcpu_out(oc, 7, 10 * MS, 100, 1, 0), 0);
	CHECK_INT(offcpu_out_kind(oc, 7, 10 * MS + 5, true), OFFCPU_KIND);
	CHECK_INT(offcpu_in(oc, 7, 14 * MS, &c), 1);
	CHECK_U64(c.ns, 4 * MS);
	CHECK_INT(c.stack, 100);
	CHECK_INT(c.tid, 7);
	CHECK(c.preempted);
	CHECK_INT(offcpu_in(oc, 7, 15 * MS, &c), 0); /* no interval open */
	/* Keyed by tid: another thread's switch-in ends nothing of tid 7's. */
	CHECK_INT(offcpu_out(oc, 7, 20 * MS, 101, 1, 0), 0);
	CHECK_INT(offcpu_in(oc, 8, 21 * MS, &c), 0);
	/* A second switch-out before any switch-in: the first interval is dropped. */
	CHECK_INT(offcpu_out(oc, 7, 22 * MS, 102, 1, 1), 1);
	CHECK_INT(offcpu_in(oc, 7, 23 * MS, &c), 1);
	CHECK_U64(c.ns, 1 * MS);
	CHECK_INT(c.stack, 102);
	CHECK(!c.preempted);
	offcpu_free(oc);
}

/* Switch-outs without a sample: their time, per kind, goes to the next stack of that kind; at
 * the end, what is left goes to the last stack of its kind, else to no stack. */
static void test_stackless(void)
{
	struct offcpu *oc = offcpu_new();
	struct offcpu_charge c;
	struct got g = { .n = 0 };

	test_ctx = "stackless";
	/* Unknown threads (no sample yet, not adopted) are left alone. */
	CHECK_INT(offcpu_out_kind(oc, 9, 1 * MS, false), OFFCPU_UNKNOWN);
	CHECK_INT(offcpu_out(oc, 9, 2 * MS, 200, 3, 0), 0);
	CHECK_INT(offcpu_out_kind(oc, 9, 2 * MS, false), OFFCPU_KIND);
	CHECK_INT(offcpu_in(oc, 9, 3 * MS, &c), 1);
	/* Stackless: 5 ms waiting, 2 ms preempted. */
	CHECK_INT(offcpu_out_kind(oc, 9, 10 * MS, false), OFFCPU_STACKLESS);
	CHECK_INT(offcpu_in(oc, 9, 15 * MS, &c), 0);
	CHECK_INT(offcpu_out_kind(oc, 9, 20 * MS, true), OFFCPU_STACKLESS);
	CHECK_INT(offcpu_in(oc, 9, 22 * MS, &c), 0);
	/* The next waiting interval with a stack takes the 5 ms waiting, not the preempted 2. */
	CHECK_INT(offcpu_out(oc, 9, 30 * MS, 201, 3, 0), 0);
	CHECK_INT(offcpu_out_kind(oc, 9, 30 * MS, false), OFFCPU_KIND);
	CHECK_INT(offcpu_in(oc, 9, 31 * MS, &c), 1);
	CHECK_U64(c.ns, 6 * MS);
	CHECK_INT(c.stack, 201);
	/* Still off at the end, stackless: clipped; the preempted 2 ms and these 4 ms (waiting)
	 * go to the thread's last stacks of their kinds (none preempted: no stack). */
	CHECK_INT(offcpu_out_kind(oc, 9, 40 * MS, false), OFFCPU_STACKLESS);
	CHECK_INT(offcpu_flush(oc, 44 * MS, collect, &g), 1);
	CHECK_INT(g.n, 2);
	CHECK_INT(g.c[0].stack, 201);
	CHECK_U64(g.c[0].ns, 4 * MS);
	CHECK_U64(g.c[0].clipped_ns, 4 * MS);
	CHECK(!g.c[0].preempted);
	CHECK_INT(g.c[1].stack, OFFCPU_NO_STACK);
	CHECK_U64(g.c[1].ns, 2 * MS);
	CHECK(g.c[1].preempted);
	/* Each file stands alone: after the flush the thread is unknown again. */
	CHECK_INT(offcpu_out_kind(oc, 9, 50 * MS, false), OFFCPU_UNKNOWN);
	/* Adopted (filters passed): its switch-outs count without any stack. */
	CHECK_INT(offcpu_adopt(oc, 9, 3, 1), 0);
	CHECK_INT(offcpu_out_kind(oc, 9, 50 * MS, false), OFFCPU_STACKLESS);
	CHECK_INT(offcpu_out_kind(oc, 9, 51 * MS, false), OFFCPU_STACKLESS_DROPPED);
	g.n = 0;
	CHECK_INT(offcpu_in(oc, 9, 53 * MS, &c), 0);
	CHECK_INT(offcpu_flush(oc, 60 * MS, collect, &g), 0);
	CHECK_INT(g.n, 1);
	CHECK_INT(g.c[0].stack, OFFCPU_NO_STACK);
	CHECK_U64(g.c[0].ns, 2 * MS);
	CHECK_INT(g.c[0].task, 3);
	offcpu_free(oc);
}

int main(void)
{
	test_every_stack();
	test_stackless();
	return check_done("test-offcpu");
}
