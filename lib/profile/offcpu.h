/* offcpu.h — off-CPU intervals per thread: from a thread's switch-out to its next switch-in. */
#ifndef RP_OFFCPU_H
#define RP_OFFCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * One per report run. A thread's switch-out waits here, keyed by tid, never by CPU (a thread
 * may come back on another one), until the thread's next switch-in; the interval is then
 * charged to the stack of its switch-out sample.
 *
 * The recorder may sample only some switch-outs (record --off-cpu-rate: when a CPU switches
 * faster, the kernel samples one in N): the switch record still says when every switch-out
 * happened, so one without a sample opens an interval without a stack. Its time is kept per
 * thread and per kind (waiting, preempted) and charged to the thread's next interval of the
 * same kind that has a stack, so each thread's totals stay exact and only the split between
 * its stacks is sampled.
 */
struct offcpu;

/* OFFCPU_NO_STACK as a charge's stack: time of a thread that never had a stack of that kind. */
#define OFFCPU_NO_STACK UINT32_MAX

/* An interval to charge: the switch-out's stack, task and CPU, its length in ns (with the
 * stackless time before it), of which clipped_ns was counted up to the end of a recording. */
struct offcpu_charge {
	uint32_t stack, task, cpu;
	uint32_t tid;
	uint64_t ns, clipped_ns;
	bool preempted; /* the switch-out record said PERF_RECORD_MISC_SWITCH_OUT_PREEMPT */
};

/* Intervals dropped because records were lost while they were open, and their ns. */
struct offcpu_stats {
	uint64_t n_lost, lost_ns;
};

struct offcpu *offcpu_new(void);
struct offcpu *offcpu_free(struct offcpu *oc);

/* What offcpu_out() returns beyond 0 and 1: the thread exited (see offcpu_exit()). */
#define OFFCPU_OUT_EXITED 2

/* Thread TID's switch-out sample at TIME (ns) with its stack. 1 when an earlier switch-out of
 * TID never saw its switch-in (lost records: that interval is dropped), OFFCPU_OUT_EXITED when
 * TID exited (its last switch-out: ignored), 0, or -ENOMEM. */
int offcpu_out(struct offcpu *oc, uint32_t tid, uint64_t time, uint32_t stack, uint32_t task,
	       uint32_t cpu);

/* What offcpu_out_kind() did with a switch-out record. */
enum offcpu_kind_result {
	OFFCPU_UNKNOWN,		  /* a thread without a switch-out sample yet (or filtered out) */
	OFFCPU_KIND,		  /* the kind of the switch-out whose sample came just before */
	OFFCPU_STACKLESS,	  /* a switch-out without a sample: an interval without a stack */
	OFFCPU_STACKLESS_DROPPED, /* the same, and an earlier interval lost its switch-in */
	OFFCPU_EXITED,		  /* a thread that exited: its last switch-out, ignored */
};
/* A thread none of whose switch-outs kept a stack yet (the recorder sampled only some when
 * switches came too fast), of task TASK on CPU: from now on its switch-out records open
 * intervals, charged to OFFCPU_NO_STACK until one has a stack. 0 or -ENOMEM. */
int offcpu_adopt(struct offcpu *oc, uint32_t tid, uint32_t task, uint32_t cpu);
/* The switch-out record of TID at TIME: whether it was a preemption. */
enum offcpu_kind_result offcpu_out_kind(struct offcpu *oc, uint32_t tid, uint64_t time,
					bool preempted);
/* Thread TID switched in at TIME: 1 with *ret when an interval with a stack ends (charged
 * with the stackless time of its kind before it), else 0. */
int offcpu_in(struct offcpu *oc, uint32_t tid, uint64_t time, struct offcpu_charge *ret);
/*
 * Thread TID exited: its PERF_RECORD_EXIT, which the kernel writes before the thread's last
 * switch-out (that one never ends: it is not off-CPU time). Its stackless time goes to FN, an
 * interval still open is dropped (its switch-in was lost: 1, else 0), and its switch-outs are
 * ignored from now on, until offcpu_fork() or offcpu_revive() of the tid.
 */
int offcpu_exit(struct offcpu *oc, uint32_t tid,
		void (*fn)(void *arg, const struct offcpu_charge *c), void *arg);
/* A new thread TID (its PERF_RECORD_FORK): whatever is left of an earlier thread of that tid
 * is settled as by offcpu_exit() (1 when an interval was dropped: that thread's EXIT was lost),
 * and TID starts fresh. */
int offcpu_fork(struct offcpu *oc, uint32_t tid,
		void (*fn)(void *arg, const struct offcpu_charge *c), void *arg);
/* A COMM of TID: when TID had exited, this is a new thread of that tid, which starts fresh. */
void offcpu_revive(struct offcpu *oc, uint32_t tid);
/* Records were lost before TIME (a PERF_RECORD_LOST or _LOST_SAMPLES written then): every
 * interval open now is dropped when it ends, since the thread's switch-in and next switch-out
 * may have been among them (its on-CPU time would count as off-CPU), and counted in
 * offcpu_stats(). */
void offcpu_lost(struct offcpu *oc, uint64_t time);
const struct offcpu_stats *offcpu_stats(const struct offcpu *oc);
/* Every thread still off, clipped at END (the end of the recording), and every stackless time
 * not charged yet (to the thread's last stack of its kind, else OFFCPU_NO_STACK), to FN; the
 * table is then empty. How many threads were still off. */
size_t offcpu_flush(struct offcpu *oc, uint64_t end,
		    void (*fn)(void *arg, const struct offcpu_charge *c), void *arg);

#endif
