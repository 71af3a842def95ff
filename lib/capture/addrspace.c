/* addrspace.c — per-process executable mappings for the unwinder (see addrspace.h). */
#include <stdbool.h>
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

/* Insert into p, whose room for two more entries exists. */
static void insert(struct as_proc *p, const struct as_map *m)
{
	size_t i = 0;

	punch(p, m->start, m->end);
	while (i < p->n && p->maps[i].start < m->start)
		i++;
	memmove(&p->maps[i + 1], &p->maps[i], (p->n - i) * sizeof(p->maps[0]));
	p->maps[i] = *m;
	p->n++;
}

/* Is a mapping newer than time overlapping [start, end)? */
static bool newer_overlap(const struct as_proc *p, uint64_t start, uint64_t end, uint64_t time)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->maps[i].start < end && p->maps[i].end > start && p->maps[i].time > time)
			return true;
	return false;
}

void addrspace_mmap(struct addrspace *as, uint32_t pid, uint64_t start, uint64_t end,
		    uint64_t pgoff, uint32_t obj, uint64_t time)
{
	struct as_proc *p = get_proc(as, pid);
	struct as_map m = { start, end, pgoff, time, obj };

	if (!p || end <= start || GROW(p->maps, p->cap, p->n + 2) < 0) {
		as->nomem++;
		return;
	}
	if (time < p->exec_time || newer_overlap(p, start, end, time))
		return;
	insert(p, &m);
}

void addrspace_fork(struct addrspace *as, uint32_t pid, uint32_t ppid, uint64_t time)
{
	struct as_proc *parent = addrspace_find(as, ppid), *child;

	if (pid == ppid || !parent)
		return;
	child = addrspace_find(as, pid);
	if (child && child->dead && child->exit_time >= time)
		return; /* its exit, from another CPU's ring, came first: it stays dead */
	if (child && child->dead) {
		/* The pid was used again: nothing of the dead process holds for the new one. */
		child->n = 0;
		child->exec_time = 0;
		child->dead = 0;
		child->exit_time = 0;
	}
	child = get_proc(as, pid);
	parent = addrspace_find(as, ppid); /* the table may have moved */
	if (!child || !parent) {
		as->nomem++;
		return;
	}
	for (size_t i = 0; i < parent->n; i++) {
		const struct as_map *m = &parent->maps[i];

		if (m->time > time || m->time < child->exec_time ||
		    newer_overlap(child, m->start, m->end, m->time))
			continue;
		if (GROW(child->maps, child->cap, child->n + 2) < 0) {
			as->nomem++;
			return;
		}
		insert(child, m);
	}
}

void addrspace_exec(struct addrspace *as, uint32_t pid, uint64_t time)
{
	struct as_proc *p = get_proc(as, pid);
	size_t w = 0;

	if (!p) {
		as->nomem++;
		return;
	}
	if (time > p->exec_time)
		p->exec_time = time;
	for (size_t i = 0; i < p->n; i++)
		if (p->maps[i].time >= p->exec_time)
			p->maps[w++] = p->maps[i];
	p->n = w;
}

void addrspace_exit(struct addrspace *as, uint32_t pid, uint32_t pass, uint64_t time)
{
	/* Also for a pid not known yet: its fork may still be in another CPU's ring. */
	struct as_proc *p = get_proc(as, pid);

	if (!p) {
		as->nomem++;
		return;
	}
	p->dead = pass ? pass : 1;
	p->exit_time = time ? time : 1;
}

void addrspace_reap(struct addrspace *as, uint32_t pass, uint64_t held_since)
{
	for (size_t i = 0; i < as->n_slots;) {
		struct as_proc *p = as->slots[i];

		/* Removal shifts a later entry into slot i: look at it again. */
		if (p && p->dead && pass - p->dead >= 2 && p->exit_time < held_since)
			remove_slot(as, i);
		else
			i++;
	}
}
