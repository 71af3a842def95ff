/* offcpu.c — each thread's pending switch-out, by tid, until its switch-in. */
#include <errno.h>
#include <stdlib.h>

#include "base/grow.h"
#include "base/intern.h"
#include "profile/offcpu.h"

struct pending {
	uint64_t time;
	uint32_t stack, task, cpu;
	bool valid, preempted;
};

struct offcpu {
	struct pairtab *tids; /* (tid, 0) -> slot */
	struct pending *p;
	size_t cap;
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
		return id < 0 ? NULL : &oc->p[id];
	}
	/* Room first: an id in tids always has its slot. */
	if (GROW(oc->p, oc->cap, (size_t)pairtab_count(oc->tids) + 1) < 0)
		return NULL;
	for (size_t i = old; i < oc->cap; i++)
		oc->p[i].valid = false;
	id = pairtab_intern(oc->tids, tid, 0, NULL);
	return id < 0 ? NULL : &oc->p[id];
}

int offcpu_out(struct offcpu *oc, uint32_t tid, uint64_t time, uint32_t stack, uint32_t task,
	       uint32_t cpu)
{
	struct pending *p = slot(oc, tid, true);
	bool dropped;

	if (!p)
		return -ENOMEM;
	dropped = p->valid;
	*p = (struct pending){ time, stack, task, cpu, true, false };
	return dropped;
}

void offcpu_out_kind(struct offcpu *oc, uint32_t tid, bool preempted)
{
	struct pending *p = slot(oc, tid, false);

	if (p && p->valid)
		p->preempted = preempted;
}

int offcpu_in(struct offcpu *oc, uint32_t tid, uint64_t time, struct offcpu_charge *ret)
{
	struct pending *p = slot(oc, tid, false);

	if (!p || !p->valid)
		return 0;
	p->valid = false;
	*ret = (struct offcpu_charge){ p->stack, p->task, p->cpu,
				       time > p->time ? time - p->time : 0, p->preempted };
	return 1;
}

size_t offcpu_flush(struct offcpu *oc, uint64_t end,
		    void (*fn)(void *arg, const struct offcpu_charge *c), void *arg)
{
	size_t n = 0, count = pairtab_count(oc->tids);

	for (size_t i = 0; i < count; i++) {
		struct pending *p = &oc->p[i];

		if (!p->valid)
			continue;
		p->valid = false;
		fn(arg, &(struct offcpu_charge){ p->stack, p->task, p->cpu,
						 end > p->time ? end - p->time : 0, p->preempted });
		n++;
	}
	return n;
}
