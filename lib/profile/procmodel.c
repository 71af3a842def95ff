/* procmodel.c — process state over time: fork copies, exec resets, mmap replaces overlaps. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/intern.h"
#include "profile/procmodel.h"
#include "profile/unit.h"

struct proc {
	struct procmodel_map *maps; /* sorted by start, non-overlapping */
	uint32_t n;
	size_t cap;
	int64_t comm; /* the main thread's name id, -1 unknown */
	uint64_t gen; /* changes whenever the process may have changed */
};

#define CGROUP_NONE UINT64_MAX /* a thread's cgroup is unknown */

struct thr {
	int32_t pid;
	int64_t comm;
	uint64_t cgroup;
};

struct procmodel {
	struct pairtab *pids; /* pid -> index into procs */
	struct proc *procs;
	size_t n_procs, cap_procs;
	struct pairtab *tids; /* tid -> index into thrs */
	struct thr *thrs;
	size_t n_thrs, cap_thrs;
	struct strtab *comms;
	struct pairtab *cgroups; /* cgroup id -> index into cgroup_unit */
	int64_t *cgroup_unit;	 /* unit id of each, -1 until its path is known */
	size_t cap_cgroups;
	struct strtab *units;
	uint64_t gen; /* last generation handed out */
};

struct procmodel *procmodel_new(void)
{
	struct procmodel *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->pids = pairtab_new();
	m->tids = pairtab_new();
	m->comms = strtab_new();
	m->cgroups = pairtab_new();
	m->units = strtab_new();
	if (!m->pids || !m->tids || !m->comms || !m->cgroups || !m->units)
		return procmodel_free(m);
	return m;
}

struct procmodel *procmodel_free(struct procmodel *m)
{
	if (!m)
		return NULL;
	for (size_t i = 0; i < m->n_procs; i++)
		free(m->procs[i].maps);
	free(m->procs);
	free(m->thrs);
	pairtab_free(m->pids);
	pairtab_free(m->tids);
	strtab_free(m->comms);
	pairtab_free(m->cgroups);
	free(m->cgroup_unit);
	strtab_free(m->units);
	free(m);
	return NULL;
}

/* The process PID, added when new; NULL when out of memory. Room comes first: an id in pids
 * always has its process. */
static struct proc *get_proc(struct procmodel *m, int32_t pid)
{
	int64_t id = pairtab_find(m->pids, (uint32_t)pid, 0);

	if (id < 0) {
		if (GROW(m->procs, m->cap_procs, m->n_procs + 1) < 0)
			return NULL;
		id = pairtab_intern(m->pids, (uint32_t)pid, 0, NULL);
		if (id < 0)
			return NULL;
		m->procs[id] = (struct proc){ NULL, 0, 0, -1, 0 };
		m->n_procs++;
	}
	/* Every caller is about to change the process. */
	m->procs[id].gen = ++m->gen;
	return &m->procs[id];
}

static const struct proc *find_proc(const struct procmodel *m, int32_t pid)
{
	int64_t id = pairtab_find(m->pids, (uint32_t)pid, 0);

	return id < 0 ? NULL : &m->procs[id];
}

/* The thread TID, added when new; NULL when out of memory (as get_proc). */
static struct thr *get_thr(struct procmodel *m, int32_t tid)
{
	int64_t id = pairtab_find(m->tids, (uint32_t)tid, 0);

	if (id < 0) {
		if (GROW(m->thrs, m->cap_thrs, m->n_thrs + 1) < 0)
			return NULL;
		id = pairtab_intern(m->tids, (uint32_t)tid, 0, NULL);
		if (id < 0)
			return NULL;
		m->thrs[id] = (struct thr){ -1, -1, CGROUP_NONE };
		m->n_thrs++;
	}
	m->gen++; /* every caller is about to change the thread */
	return &m->thrs[id];
}

int procmodel_comm(struct procmodel *m, int32_t pid, int32_t tid, const char *comm, bool exec)
{
	struct thr *t = get_thr(m, tid);
	struct proc *p = get_proc(m, pid);
	int64_t id = strtab_intern(m->comms, comm);

	if (!t || !p || id < 0)
		return -ENOMEM;
	t->pid = pid;
	t->comm = id;
	if (pid == tid)
		p->comm = id;
	if (exec)
		p->n = 0; /* a new image: its mappings follow */
	return 0;
}

int procmodel_fork(struct procmodel *m, int32_t pid, int32_t ppid, int32_t tid, int32_t ptid)
{
	struct thr *t = get_thr(m, tid), *pt;
	int64_t comm = -1;

	if (!t)
		return -ENOMEM;
	pt = get_thr(m, ptid);
	if (!pt)
		return -ENOMEM;
	t = get_thr(m, tid); /* the array may have moved */
	pt = get_thr(m, ptid);
	comm = pt->comm;
	/* A new task starts in its parent's cgroup, unless the recorder said where it is already
	 * (a thread's first TASKCG is stamped early: it may come before its FORK). */
	if (t->cgroup == CGROUP_NONE)
		t->cgroup = pt->cgroup;
	if (pid != ppid) {
		const struct proc *parent = find_proc(m, ppid);
		struct proc *p = get_proc(m, pid);

		if (!p)
			return -ENOMEM;
		parent = find_proc(m, ppid); /* the array may have moved */
		p->n = 0;
		if (parent && parent->n) {
			if (GROW(p->maps, p->cap, parent->n) < 0)
				return -ENOMEM;
			memcpy(p->maps, parent->maps, parent->n * sizeof(*p->maps));
			p->n = parent->n;
		}
		if (comm < 0 && parent)
			comm = parent->comm;
		p->comm = comm;
	}
	t->pid = pid;
	t->comm = comm;
	return 0;
}

int procmodel_exit(struct procmodel *m, int32_t pid, int32_t tid)
{
	int64_t id = pairtab_find(m->tids, (uint32_t)tid, 0);

	if (id >= 0)
		m->thrs[id].cgroup = CGROUP_NONE; /* its tid may be given to a task elsewhere */
	if (pid != tid)
		return 0;
	id = pairtab_find(m->pids, (uint32_t)pid, 0);
	if (id >= 0) {
		free(m->procs[id].maps);
		m->procs[id].maps = NULL;
		m->procs[id].gen = ++m->gen;
		m->procs[id].n = m->procs[id].cap = 0;
	}
	return 0;
}

/* Index of the first mapping whose end is above addr. */
static uint32_t lower(const struct proc *p, uint64_t addr)
{
	uint32_t lo = 0, hi = p->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int procmodel_map(struct procmodel *m, int32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		  uint32_t dso)
{
	struct proc *p = get_proc(m, pid);
	uint64_t end = start + len;
	uint32_t i, j;

	if (!p)
		return -ENOMEM;
	if (len == 0 || end < start)
		return 0;
	if (GROW(p->maps, p->cap, (size_t)p->n + 2) < 0) /* a split adds one more */
		return -ENOMEM;
	i = lower(p, start);
	/* A mapping that straddles start keeps its head; if it also straddles end, its tail
	 * becomes a separate mapping. */
	if (i < p->n && p->maps[i].start < start) {
		struct procmodel_map old = p->maps[i];

		p->maps[i].end = start;
		i++;
		if (old.end > end) {
			memmove(&p->maps[i + 1], &p->maps[i], (p->n - i) * sizeof(*p->maps));
			p->maps[i] = old;
			p->maps[i].pgoff += end - old.start;
			p->maps[i].start = end;
			p->n++;
		}
	}
	/* Drop mappings inside [start, end); trim the one that straddles end. */
	for (j = i; j < p->n && p->maps[j].end <= end; j++)
		;
	if (j < p->n && p->maps[j].start < end) {
		p->maps[j].pgoff += end - p->maps[j].start;
		p->maps[j].start = end;
	}
	memmove(&p->maps[i + 1], &p->maps[j], (p->n - j) * sizeof(*p->maps));
	p->n -= j - i;
	p->n++;
	p->maps[i] = (struct procmodel_map){ start, end, pgoff, dso };
	return 0;
}

const struct procmodel_map *procmodel_find_map(const struct procmodel *m, int32_t pid, uint64_t addr)
{
	const struct proc *p = find_proc(m, pid);
	uint32_t i;

	if (!p || !p->n)
		return NULL;
	i = lower(p, addr);
	return i < p->n && p->maps[i].start <= addr ? &p->maps[i] : NULL;
}

int64_t procmodel_comm_id(struct procmodel *m, int32_t pid, int32_t tid)
{
	int64_t id = pairtab_find(m->tids, (uint32_t)tid, 0);
	const struct proc *p;
	char buf[32];

	if (id >= 0 && m->thrs[id].comm >= 0)
		return m->thrs[id].comm;
	p = find_proc(m, pid);
	if (p && p->comm >= 0)
		return p->comm;
	if (pid == 0 && tid == 0)
		return strtab_intern(m->comms, "swapper");
	snprintf(buf, sizeof(buf), ":%d", (int)tid);
	return strtab_intern(m->comms, buf);
}

/* The index of cgroup ID in cgroup_unit, added when new; -ENOMEM. */
static int64_t get_cgroup(struct procmodel *m, uint64_t id)
{
	int64_t i = pairtab_find(m->cgroups, id, 0);

	if (i >= 0)
		return i;
	if (GROW(m->cgroup_unit, m->cap_cgroups, (size_t)pairtab_count(m->cgroups) + 1) < 0)
		return -ENOMEM;
	i = pairtab_intern(m->cgroups, id, 0, NULL);
	if (i >= 0)
		m->cgroup_unit[i] = -1;
	return i;
}

int procmodel_cgroup(struct procmodel *m, uint64_t id, const char *path)
{
	char unit[256];
	int64_t i = get_cgroup(m, id), u;

	if (i < 0)
		return (int)i;
	u = strtab_intern(m->units, unit_from_path(path, unit, sizeof(unit)));
	if (u < 0)
		return (int)u;
	m->cgroup_unit[i] = u;
	m->gen++; /* threads of this cgroup change their unit */
	return 0;
}

int procmodel_taskcg(struct procmodel *m, int32_t pid, int32_t tid, uint64_t id)
{
	struct thr *t = get_thr(m, tid);

	if (!t)
		return -ENOMEM;
	if (t->pid < 0)
		t->pid = pid;
	t->cgroup = id;
	return 0;
}

int64_t procmodel_unit_id(struct procmodel *m, int32_t pid, int32_t tid)
{
	int64_t id = pairtab_find(m->tids, (uint32_t)tid, 0), i;
	char buf[40];

	(void)pid;
	if (id < 0 || m->thrs[id].cgroup == CGROUP_NONE)
		return strtab_intern(m->units, tid == 0 ? "-" : UNIT_UNKNOWN);
	i = pairtab_find(m->cgroups, m->thrs[id].cgroup, 0);
	if (i >= 0 && m->cgroup_unit[i] >= 0)
		return m->cgroup_unit[i];
	/* The root of cgroup v2 is id 1; a recorder in a container sees no path for it. */
	if (m->thrs[id].cgroup == 1)
		return strtab_intern(m->units, "-");
	snprintf(buf, sizeof(buf), "cgroup:%llu", (unsigned long long)m->thrs[id].cgroup);
	return strtab_intern(m->units, buf);
}

const struct strtab *procmodel_units(const struct procmodel *m)
{
	return m->units;
}

const struct strtab *procmodel_comms(const struct procmodel *m)
{
	return m->comms;
}

uint64_t procmodel_gen(const struct procmodel *m, int32_t pid)
{
	const struct proc *p = find_proc(m, pid);

	return p ? p->gen : 0;
}

uint64_t procmodel_version(const struct procmodel *m)
{
	return m->gen + 1; /* never 0, which callers may use for "none" */
}
