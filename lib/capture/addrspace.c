/* addrspace.c — per-process executable mappings for the unwinder (see addrspace.h). */
#include <errno.h>
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

/* The index of p's first mapping that ends after addr (p->n when none does). */
static size_t first_ending_after(const struct as_proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct as_map *addrspace_map(const struct as_proc *p, uint64_t addr)
{
	size_t i = first_ending_after(p, addr);

	return i < p->n && p->maps[i].start <= addr ? &p->maps[i] : NULL;
}

/* Cut [start, end) out of p's mappings; room for one more entry must exist. */
static void punch(struct as_proc *p, uint64_t start, uint64_t end)
{
	size_t i = first_ending_after(p, start);

	while (i < p->n && p->maps[i].start < end) {
		struct as_map *m = &p->maps[i];

		if (m->start < start && m->end > end) { /* split in two */
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
	size_t i;

	punch(p, m->start, m->end);
	i = first_ending_after(p, m->start); /* nothing overlaps m now */
	memmove(&p->maps[i + 1], &p->maps[i], (p->n - i) * sizeof(p->maps[0]));
	p->maps[i] = *m;
	p->n++;
}

/* Is a mapping newer than time overlapping [start, end)? */
static bool newer_overlap(const struct as_proc *p, uint64_t start, uint64_t end, uint64_t time)
{
	for (size_t i = first_ending_after(p, start); i < p->n && p->maps[i].start < end; i++)
		if (p->maps[i].time > time)
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

/*
 * The parent's mappings the child gets, into acc (room for parent->n): those of time at most
 * the fork's, not older than the child's exec, and not overlapped by a newer mapping of the
 * child's own (drained before the fork, from another CPU's ring). Both lists are sorted and
 * free of overlaps, so one pass over each does it. Returns how many.
 */
static size_t fork_accepted(const struct as_proc *child, const struct as_proc *parent,
			    uint64_t time, struct as_map *acc)
{
	size_t n = 0, j = 0;

	for (size_t i = 0; i < parent->n; i++) {
		const struct as_map *m = &parent->maps[i];
		bool newer = false;

		if (m->time > time || m->time < child->exec_time)
			continue;
		while (j < child->n && child->maps[j].end <= m->start)
			j++;
		/* Only the last of these can overlap the next parent mapping too: linear. */
		for (size_t k = j; k < child->n && child->maps[k].start < m->end && !newer; k++)
			newer = child->maps[k].time > m->time;
		if (!newer)
			acc[n++] = *m;
	}
	return n;
}

/*
 * Give the child what the parent had at time (see fork_accepted), over its own older mappings:
 * the merge of two sorted lists, linear in both (a copy of the parent's when the child has
 * none, the usual case). A process with 60 000 mappings forking 40 times a second cost
 * 60 000 ordered inserts per fork, each a scan of the child's list, and the drain loop fell
 * behind for every CPU. 0, or -ENOMEM with the child as it was.
 */
static int fork_merge(struct as_proc *child, const struct as_proc *parent, uint64_t time)
{
	size_t n_acc, cap = child->n + 2 * parent->n + 2, n = 0, i = 0, k = 0;
	uint64_t covered = 0; /* end of the last of acc taken */
	struct as_map *acc = malloc((parent->n + 1) * sizeof(*acc)), *out, cur = { 0 };
	bool have = false;

	out = acc ? malloc(cap * sizeof(*out)) : NULL;
	if (!out) {
		free(acc);
		return -ENOMEM;
	}
	n_acc = fork_accepted(child, parent, time, acc);
	/* The child's mappings minus what acc covers (a piece of one may be left on each side
	 * of a parent's mapping), and acc, in order of start. */
	while (i < n_acc || k < child->n || have) {
		if (!have && k < child->n) {
			cur = child->maps[k++];
			have = true;
		}
		if (have && cur.start < covered) { /* under the parent's mapping just taken */
			if (cur.end <= covered) {
				have = false;
				continue;
			}
			cur.pgoff += covered - cur.start;
			cur.start = covered;
		}
		if (have && i < n_acc && acc[i].start < cur.end && acc[i].end > cur.start) {
			if (cur.start < acc[i].start) {
				out[n] = cur;
				out[n++].end = acc[i].start;
			}
			if (cur.end > acc[i].end) {
				cur.pgoff += acc[i].end - cur.start;
				cur.start = acc[i].end;
			} else {
				have = false;
			}
			covered = acc[i].end;
			out[n++] = acc[i++];
		} else if (have && (i >= n_acc || cur.start < acc[i].start)) {
			out[n++] = cur;
			have = false;
		} else {
			covered = acc[i].end;
			out[n++] = acc[i++];
		}
	}
	free(acc);
	acc = realloc(out, (n + 2) * sizeof(*out)); /* each child alive holds its copy */
	if (acc) {
		out = acc;
		cap = n + 2;
	}
	free(child->maps);
	child->maps = out;
	child->n = n;
	child->cap = cap;
	return 0;
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
	if (fork_merge(child, parent, time) < 0)
		as->nomem++;
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
