/* offcpu.h — off-CPU intervals per thread: from a thread's switch-out to its next switch-in. */
#ifndef RP_OFFCPU_H
#define RP_OFFCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * One per report run. A thread's switch-out (its sched:sched_switch sample, with the location
 * stack it was counted under) waits here, keyed by tid, never by CPU (a thread may come back on
 * another one), until the thread's next switch-in; the interval is then charged to that stack.
 */
struct offcpu;

/* An interval to charge: the switch-out's stack, task and CPU, its length in ns. */
struct offcpu_charge {
	uint32_t stack, task, cpu;
	uint64_t ns;
	bool preempted; /* the switch-out record said PERF_RECORD_MISC_SWITCH_OUT_PREEMPT */
};

struct offcpu *offcpu_new(void);
struct offcpu *offcpu_free(struct offcpu *oc);

/* Thread TID switched out at TIME (ns). 1 when an earlier switch-out of TID never saw its
 * switch-in (lost records: that interval is dropped), 0, or -ENOMEM. */
int offcpu_out(struct offcpu *oc, uint32_t tid, uint64_t time, uint32_t stack, uint32_t task,
	       uint32_t cpu);
/* The switch-out record of TID: whether it was a preemption. */
void offcpu_out_kind(struct offcpu *oc, uint32_t tid, bool preempted);
/* Thread TID switched in at TIME: 1 with *ret when it was off with a known stack, else 0. */
int offcpu_in(struct offcpu *oc, uint32_t tid, uint64_t time, struct offcpu_charge *ret);
/* Every thread still off, clipped at END (the end of the recording), to FN; the table is then
 * empty. How many there were. */
size_t offcpu_flush(struct offcpu *oc, uint64_t end,
		    void (*fn)(void *arg, const struct offcpu_charge *c), void *arg);

#endif
