/* addrspace.c — per-process executable mappings for the unwinder (see addrspace.h). */
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/hash.h"
#include "capture/addrspace.h"

void addrspace_init(struct addrspace *as)
{
	memset(as, 0, sizeof(*as));
}

static void proc_free(struct as_proc *p)
{
	if (p) {
		free(p->maps);
		free(p);
	}
}

void addrspace_done(struct addrspace *as)
{
	for (size_t i = 0; i < as->n_slots; i++)
		proc_free(as->slots[i]);
	free(as->slots);
	memset(as, 0, sizeof(*as));
}

static size_t slot_of(const struct addrspace *as, uint32_t pid)
{
	size_t mask = as->n_slots - 1, i = hash_u64(pid) & mask;

	while (as->slots[i] && as->slots[i]->pid != pid)
		i = (i + 1) & mask;
	return i;
}

struct as_proc *addrspace_find(struct addrspace *as, uint32_t pid)
{
	return as->n_slots ? as->slots[slot_of(as, pid)] : NULL;
}

/* Twice the table when it is half full. -ENOMEM keeps the old one. */
static int rehash(struct addrspace *as)
{
	size_t n = as->n_slots ? as->n_slots * 2 : 256;
	struct addrspace bigger = { calloc(n, sizeof(*as->slots)), n, as->n_procs, as->nomem };

	if (!bigger.slots)
		return -1;
	for (size_t i = 0; i < as->n_slots; i++)
		if (as->slots[i])
			bigger.slots[slot_of(&bigger, as->slots[i]->pid)] = as->slots[i];
	free(as->slots);
	*as = bigger;
	return 0;
}

static struct as_proc *get_proc(struct addrspace *as, uint32_t pid)
{
	struct as_proc *p = addrspace_find(as, pid);

	if (p)
		return p;
	if ((as->n_procs + 1) * 2 > as->n_slots && rehash(as) < 0)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	as->slots[slot_of(as, pid)] = p;
	as->n_procs++;
	return p;
}

/* Remove the process in slot i, shifting back the run that follows it. */
static void remove_slot(struct addrspace *as, size_t i)
{
	size_t mask = as->n_slots - 1, j = i;

	proc_free(as->slots[i]);
	as->slots[i] = NULL;
	as->n_procs--;
	for (;;) {
		size_t home;

		j = (j + 1) & mask;
		if (!as->slots[j])
			return;
		home = hash_u64(as->slots[j]->pid) & mask;
		/* Move j into the hole unless its home lies cyclically in (i, j]. */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			as->slots[i] = as->slots[j];
			as->slots[j] = NULL;
			i = j;
		}
	}
}

const struct as_map *addrspace_map(const struct as_proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->n && p->maps[lo].start <= addr ? &p->maps[lo] : NULL;
}

/* Cut [start, end) out of p's mappings; room for one more entry must exist. */
static void punch(struct as_proc *p, uint64_t start, uint64_t end)
{
	size_t i = 0;

	while (i < p->n) {
		struct as_map *m = &p->maps[i];

		if (m->end <= start || m->start >= end) {
			i++;
		} else if (m->start < start && m->end > end) { /* split in two */
			memmove(m + 1, m, (p->n - i) * sizeof(*m));
			p->n++;
			m[0].end = start;
			m[1].pgoff += end - m[1].start;
			m[1].start = end;
			return;
		} else if (m->start < start) {
			m->end = start;
			i++;
		} else if (m->end > end) {
			m->pgoff += end - m->start;
			m->start = end;
			i++;
		} else {
			memmove(m, m + 1, (p->n - i - 1) * sizeof(*m));
			p->n--;
		}
	}
}

void addrspace_mmap(struct addrspace *as, uint32_t pid, uint64_t start, uint64_t end,
		    uint64_t pgoff, uint32_t obj)
{
	struct as_proc *p = get_proc(as, pid);
	size_t i = 0;

	if (!p || end <= start || GROW(p->maps, p->cap, p->n + 2) < 0) {
		as->nomem++;
		return;
	}
	punch(p, start, end);
	while (i < p->n && p->maps[i].start < start)
		i++;
	memmove(&p->maps[i + 1], &p->maps[i], (p->n - i) * sizeof(p->maps[0]));
	p->maps[i] = (struct as_map){ start, end, pgoff, obj };
	p->n++;
}

void addrspace_fork(struct addrspace *as, uint32_t pid, uint32_t ppid)
{
	struct as_proc *parent = addrspace_find(as, ppid), *child;

	if (pid == ppid || !parent)
		return;
	child = get_proc(as, pid);
	parent = addrspace_find(as, ppid); /* the table may have moved */
	if (!child || !parent) {
		as->nomem++;
		return;
	}
	child->n = 0;
	child->dead = 0;
	if (GROW(child->maps, child->cap, parent->n) < 0) {
		as->nomem++;
		return;
	}
	if (parent->n)
		memcpy(child->maps, parent->maps, parent->n * sizeof(parent->maps[0]));
	child->n = parent->n;
}

void addrspace_exec(struct addrspace *as, uint32_t pid)
{
	struct as_proc *p = addrspace_find(as, pid);

	if (p)
		p->n = 0;
}

void addrspace_exit(struct addrspace *as, uint32_t pid, uint32_t pass)
{
	struct as_proc *p = addrspace_find(as, pid);

	if (p)
		p->dead = pass ? pass : 1;
}

void addrspace_reap(struct addrspace *as, uint32_t pass)
{
	for (size_t i = 0; i < as->n_slots;) {
		struct as_proc *p = as->slots[i];

		/* Removal shifts a later entry into slot i: look at it again. */
		if (p && p->dead && pass - p->dead >= 2)
			remove_slot(as, i);
		else
			i++;
	}
}
