/* offcpu.c — each thread's pending switch-out, by tid, until its switch-in. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/intern.h"
#include "profile/offcpu.h"

struct pending {
	uint64_t time;		   /* of the open interval's switch-out */
	uint32_t stack, task, cpu; /* of the latest switch-out sample */
	uint32_t tid;
	bool known;	/* a switch-out sample of the thread was seen in this file */
	bool valid;	/* an interval is open */
	bool has_stack; /* it began with a sample */
	bool kind_set;	/* its switch-out record came */
	bool preempted;
	bool exited; /* its PERF_RECORD_EXIT came: later switch-outs are its last, ignored */
	/* Per kind (0 waiting, 1 preempted): time off without a stack not charged yet, and the
	 * last stack it was charged to. */
	uint64_t acc[2];
	uint32_t last_stack[2];
};

struct offcpu {
	struct pairtab *tids; /* (tid, 0) -> slot */
	struct pending *p;
	size_t cap;
	uint64_t last_lost; /* time of the latest lost records in this file, 0: none */
	struct offcpu_stats stats;
};

struct offcpu *offcpu_new(void)
{
	struct offcpu *oc = calloc(1, sizeof(*oc));

	if (!oc)
		return NULL;
	oc->tids = pairtab_new();
	if (!oc->tids)
		return offcpu_free(oc);
	return oc;
}

struct offcpu *offcpu_free(struct offcpu *oc)
{
	if (!oc)
		return NULL;
	pairtab_free(oc->tids);
	free(oc->p);
	free(oc);
	return NULL;
}

/* TID's slot, NULL when it has none (or memory ran out making one, with ADD). */
static struct pending *slot(struct offcpu *oc, uint32_t tid, bool add)
{
	int64_t id;
	size_t old = oc->cap;

	if (!add) {
		id = pairtab_find(oc->tids, tid, 0);
		return id < 0 || !oc->p[id].known ? NULL : &oc->p[id];
	}
	/* Room first: an id in tids always has its slot. */
	if (GROW(oc->p, oc->cap, (size_t)pairtab_count(oc->tids) + 1) < 0)
		return NULL;
	memset(oc->p + old, 0, (oc->cap - old) * sizeof(*oc->p));
	id = pairtab_intern(oc->tids, tid, 0, NULL);
	return id < 0 ? NULL : &oc->p[id];
}

/* TID's slot, made known (in this file) when it was not. */
static struct pending *known_slot(struct offcpu *oc, uint32_t tid)
{
	struct pending *p = slot(oc, tid, true);

	if (p && !p->known) {
		*p = (struct pending){ .known = true, .tid = tid };
		p->last_stack[0] = p->last_stack[1] = OFFCPU_NO_STACK;
	}
	return p;
}

int offcpu_adopt(struct offcpu *oc, uint32_t tid, uint32_t task, uint32_t cpu)
{
	struct pending *p = known_slot(oc, tid);

	if (!p)
		return -ENOMEM;
	p->task = task;
	p->cpu = cpu;
	return 0;
}

int offcpu_out(struct offcpu *oc, uint32_t tid, uint64_t time, uint32_t stack, uint32_t task,
	       uint32_t cpu)
{
	struct pending *p = known_slot(oc, tid);
	bool dropped;

	if (!p)
		return -ENOMEM;
	if (p->exited)
		return OFFCPU_OUT_EXITED;
	dropped = p->valid;
	p->time = time;
	p->stack = stack;
	p->task = task;
	p->cpu = cpu;
	p->valid = p->has_stack = true;
	p->kind_set = p->preempted = false;
	return dropped;
}

enum offcpu_kind_result offcpu_out_kind(struct offcpu *oc, uint32_t tid, uint64_t time,
					bool preempted)
{
	struct pending *p = slot(oc, tid, false);
	bool dropped;

	if (!p)
		return OFFCPU_UNKNOWN;
	if (p->exited)
		return OFFCPU_EXITED;
	if (p->valid && p->has_stack && !p->kind_set) {
		p->kind_set = true;
		p->preempted = preempted;
		return OFFCPU_KIND;
	}
	/* The recorder kept no stack for this switch-out. */
	dropped = p->valid;
	p->time = time;
	p->valid = p->kind_set = true;
	p->has_stack = false;
	p->preempted = preempted;
	return dropped ? OFFCPU_STACKLESS_DROPPED : OFFCPU_STACKLESS;
}

void offcpu_lost(struct offcpu *oc, uint64_t time)
{
	if (time > oc->last_lost)
		oc->last_lost = time;
}

const struct offcpu_stats *offcpu_stats(const struct offcpu *oc)
{
	return &oc->stats;
}

/* P's open interval, ended at TIME: into *ret when it has a stack (1), else kept (0), or
 * dropped when records were lost since it began (0): the thread may have run meanwhile, its
 * switch-in and next switch-out among them. Records come in time order, so the latest loss
 * before TIME is the one to compare with. */
static int close_interval(struct offcpu *oc, struct pending *p, uint64_t time,
			  struct offcpu_charge *ret)
{
	uint64_t ns = time > p->time ? time - p->time : 0;
	int k = p->preempted;

	p->valid = false;
	if (oc->last_lost > p->time) {
		oc->stats.n_lost++;
		oc->stats.lost_ns += ns;
		return 0;
	}
	if (!p->has_stack) {
		p->acc[k] += ns;
		return 0;
	}
	*ret = (struct offcpu_charge){ p->stack,       p->task, p->cpu,	     p->tid,
				       ns + p->acc[k], 0,	p->preempted };
	p->acc[k] = 0;
	p->last_stack[k] = p->stack;
	return 1;
}

/* P's stackless time not charged yet, to FN (the last CLIPPED ns of each kind were counted up
 * to the end of a recording). */
static void settle(struct pending *p, const uint64_t clipped[2],
		   void (*fn)(void *arg, const struct offcpu_charge *c), void *arg)
{
	for (int k = 0; k < 2; k++)
		if (p->acc[k])
			fn(arg, &(struct offcpu_charge){ p->last_stack[k], p->task, p->cpu, p->tid,
							 p->acc[k], clipped[k], k == 1 });
	p->acc[0] = p->acc[1] = 0;
}

int offcpu_exit(struct offcpu *oc, uint32_t tid,
		void (*fn)(void *arg, const struct offcpu_charge *c), void *arg)
{
	struct pending *p = slot(oc, tid, false);
	bool dropped;

	if (!p)
		return 0;
	dropped = p->valid;
	p->valid = false;
	settle(p, (const uint64_t[2]){ 0, 0 }, fn, arg);
	p->exited = true;
	return dropped;
}

void offcpu_revive(struct offcpu *oc, uint32_t tid)
{
	struct pending *p = slot(oc, tid, false);

	if (p && p->exited)
		p->known = false;
}

int offcpu_fork(struct offcpu *oc, uint32_t tid,
		void (*fn)(void *arg, const struct offcpu_charge *c), void *arg)
{
	struct pending *p = slot(oc, tid, false);
	int dropped;

	if (!p)
		return 0;
	dropped = p->exited ? 0 : offcpu_exit(oc, tid, fn, arg);
	p->known = false;
	return dropped;
}

int offcpu_in(struct offcpu *oc, uint32_t tid, uint64_t time, struct offcpu_charge *ret)
{
	struct pending *p = slot(oc, tid, false);

	if (!p || !p->valid)
		return 0;
	return close_interval(oc, p, time, ret);
}

size_t offcpu_flush(struct offcpu *oc, uint64_t end,
		    void (*fn)(void *arg, const struct offcpu_charge *c), void *arg)
{
	size_t n = 0, count = pairtab_count(oc->tids);
	struct offcpu_charge c;

	for (size_t i = 0; i < count; i++) {
		struct pending *p = &oc->p[i];
		uint64_t clipped[2] = { 0, 0 };

		if (!p->known)
			continue;
		if (p->valid && oc->last_lost > p->time) {
			close_interval(oc, p, end, &c); /* dropped: records were lost */
		} else if (p->valid) {
			uint64_t clip = end > p->time ? end - p->time : 0;

			n++;
			clipped[p->preempted] = clip;
			if (close_interval(oc, p, end, &c)) {
				c.clipped_ns = clip;
				clipped[c.preempted] = 0;
				fn(arg, &c);
			}
		}
		settle(p, clipped, fn, arg);
		p->known = false;
	}
	oc->last_lost = 0;
	return n;
}
