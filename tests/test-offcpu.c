/* test-offcpu.c — the off-CPU table: intervals by tid, their kinds, the time of switch-outs
 * without a stack charged to the thread's next stack of the same kind, clipping at the end,
 * threads that exit, intervals across lost records. */
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

/* A thread's EXIT comes before its last switch-out: that one is no off-CPU time, however long
 * the recording goes on; a FORK (or a COMM) of its tid is a new thread, which starts fresh. */
static void test_exit(void)
{
	struct offcpu *oc = offcpu_new();
	struct offcpu_charge c;
	struct got g = { .n = 0 };

	test_ctx = "exit";
	CHECK_INT(offcpu_out(oc, 5, 1 * MS, 300, 4, 0), 0);
	CHECK_INT(offcpu_out_kind(oc, 5, 1 * MS, false), OFFCPU_KIND);
	CHECK_INT(offcpu_in(oc, 5, 3 * MS, &c), 1);
	CHECK_U64(c.ns, 2 * MS);
	/* 1 ms without a stack, still to be charged when the thread exits. */
	CHECK_INT(offcpu_out_kind(oc, 5, 4 * MS, false), OFFCPU_STACKLESS);
	CHECK_INT(offcpu_in(oc, 5, 5 * MS, &c), 0);
	CHECK_INT(offcpu_exit(oc, 5, collect, &g), 0);
	CHECK_INT(g.n, 1);
	CHECK_INT(g.c[0].stack, 300);
	CHECK_U64(g.c[0].ns, 1 * MS);
	CHECK_U64(g.c[0].clipped_ns, 0);
	/* Its last switch-out, sample and record: ignored, and nothing is clipped at the end. */
	CHECK_INT(offcpu_out(oc, 5, 6 * MS, 301, 4, 0), OFFCPU_OUT_EXITED);
	CHECK_INT(offcpu_out_kind(oc, 5, 6 * MS, false), OFFCPU_EXITED);
	CHECK_INT(offcpu_in(oc, 5, 7 * MS, &c), 0);
	/* A new thread of the same tid (FORK): its intervals count again. */
	CHECK_INT(offcpu_fork(oc, 5, collect, &g), 0);
	CHECK_INT(offcpu_out(oc, 5, 10 * MS, 302, 6, 1), 0);
	CHECK_INT(offcpu_out_kind(oc, 5, 10 * MS, true), OFFCPU_KIND);
	CHECK_INT(offcpu_in(oc, 5, 13 * MS, &c), 1);
	CHECK_U64(c.ns, 3 * MS);
	CHECK_INT(c.task, 6);
	/* An interval open at the EXIT lost its switch-in: dropped, said. */
	CHECK_INT(offcpu_out(oc, 5, 14 * MS, 303, 6, 1), 0);
	CHECK_INT(offcpu_exit(oc, 5, collect, &g), 1);
	CHECK_INT(offcpu_out(oc, 5, 15 * MS, 303, 6, 1), OFFCPU_OUT_EXITED);
	/* A COMM of the exited tid: a new thread too. */
	offcpu_revive(oc, 5);
	CHECK_INT(offcpu_out(oc, 5, 20 * MS, 304, 7, 0), 0);
	/* A FORK of a live tid: its EXIT was lost; its open interval is dropped. */
	CHECK_INT(offcpu_fork(oc, 5, collect, &g), 1);
	CHECK_INT(offcpu_in(oc, 5, 21 * MS, &c), 0);
	/* A COMM of a live thread (prctl) changes nothing. */
	CHECK_INT(offcpu_out(oc, 5, 22 * MS, 305, 7, 0), 0);
	offcpu_revive(oc, 5);
	CHECK_INT(offcpu_in(oc, 5, 24 * MS, &c), 1);
	CHECK_U64(c.ns, 2 * MS);
	g.n = 0;
	CHECK_INT(offcpu_flush(oc, 30 * MS, collect, &g), 0);
	CHECK_INT(g.n, 0);
	offcpu_free(oc);
}

/* Records lost while an interval is open: its switch-in and the next switch-out may be among
 * them, so it is dropped and counted with its time, not charged; intervals after the loss,
 * and the next file, are not. */
static void test_lost(void)
{
	struct offcpu *oc = offcpu_new();
	struct offcpu_charge c;
	struct got g = { .n = 0 };

	test_ctx = "lost";
	CHECK_INT(offcpu_out(oc, 3, 10 * MS, 400, 2, 0), 0);
	CHECK_INT(offcpu_out(oc, 4, 10 * MS, 410, 2, 1), 0);
	offcpu_lost(oc, 12 * MS);
	/* Thread 3 switched in at 13, ran, switched out at 14: all lost; its switch-in at 20
	 * would charge 10 ms of which it ran some. */
	CHECK_INT(offcpu_in(oc, 3, 20 * MS, &c), 0);
	CHECK_U64(offcpu_stats(oc)->n_lost, 1);
	CHECK_U64(offcpu_stats(oc)->lost_ns, 10 * MS);
	/* An interval begun after the loss counts. */
	CHECK_INT(offcpu_out(oc, 3, 21 * MS, 401, 2, 0), 0);
	CHECK_INT(offcpu_in(oc, 3, 24 * MS, &c), 1);
	CHECK_U64(c.ns, 3 * MS);
	CHECK_INT(c.stack, 401);
	/* Stackless intervals across a loss are dropped too, not kept for the next stack. */
	CHECK_INT(offcpu_out_kind(oc, 3, 30 * MS, false), OFFCPU_STACKLESS);
	offcpu_lost(oc, 31 * MS);
	CHECK_INT(offcpu_in(oc, 3, 35 * MS, &c), 0);
	CHECK_INT(offcpu_out(oc, 3, 40 * MS, 402, 2, 0), 0);
	CHECK_INT(offcpu_in(oc, 3, 41 * MS, &c), 1);
	CHECK_U64(c.ns, 1 * MS);
	CHECK_U64(offcpu_stats(oc)->n_lost, 2);
	CHECK_U64(offcpu_stats(oc)->lost_ns, 15 * MS);
	/* Thread 4, still off at the end since before the losses: dropped, not clipped. */
	CHECK_INT(offcpu_flush(oc, 50 * MS, collect, &g), 0);
	CHECK_INT(g.n, 0);
	CHECK_U64(offcpu_stats(oc)->n_lost, 3);
	CHECK_U64(offcpu_stats(oc)->lost_ns, 55 * MS);
	/* The next file starts without losses. */
	CHECK_INT(offcpu_out(oc, 4, 60 * MS, 411, 2, 1), 0);
	CHECK_INT(offcpu_in(oc, 4, 62 * MS, &c), 1);
	CHECK_U64(c.ns, 2 * MS);
	offcpu_free(oc);
}

int main(void)
{
	test_every_stack();
	test_stackless();
	test_exit();
	test_lost();
	return check_done("test-offcpu");
}
