/* replay.c — a recording's records in order: side-band to the models, samples through filters. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "base/grow.h"
#include "base/hash.h"
#include "base/intern.h"
#include "base/util.h"
#include "format/format.h"
#include "format/perfrec.h"
#include "format/reader.h"
#include "profile/aggregate.h"
#include "profile/dsotab.h"
#include "profile/ksymtab.h"
#include "profile/offcpu.h"
#include "profile/procmodel.h"
#include "profile/replay.h"
#include "profile/session.h"

#define MAX_FRAMES 512
#define LMEMO_SIZE (1u << 16) /* entries of replay.lmemo, a power of 2 */
/*
 * Lost records end an off-CPU interval falsely only when a thread's switch-in and its next
 * switch-out record were both among them: one record lost alone (the common case: a sample
 * with its stack copy that did not fit in the ring) cannot do that, and a switch-in lost alone
 * is seen at the next switch-out (dropped). So intervals are dropped only across a LOST record
 * of at least two records; PERF_RECORD_LOST_SAMPLES counts samples only, never switch records.
 */
#define OFFCPU_LOST_MIN 2
/* The tid the kernel gives a task past its exit (perf_event_tid() once its pid is gone): its
 * last switch-out, under -a, comes with it. */
#define DEAD_TID UINT32_MAX

struct replay {
	const struct session_opts *o; /* borrowed, as the models below */
	struct procmodel *pm;
	struct dsotab *dsos;
	struct ksymtab *ksyms;
	struct aggregate *agg;
	struct session_totals *t;
	bool ksyms_loaded;
	bool ksyms_partial;   /* the file being read writes kernel symbols as needed */
	bool ksyms_preloaded; /* the file being read had them added by replay_preload() */
	bool unwound;	      /* its user stacks end in RP_CONTEXT_UNWIND markers */
	struct reader *rd;    /* the file being read */
	/* A packed sample's stack resolved once per process state, within a file (its stack
	 * numbers are its own): first by stack number in sfast (the pid and generation it was
	 * resolved for: most stacks are one process's), else (reader stack << 32 | pid, process
	 * generation) -> location stack in scache_val (UINT32_MAX unset). Both are emptied when
	 * a file starts. */
	struct sfast {
		uint32_t pid, stack; /* stack UINT32_MAX: unset */
		uint64_t pgen;
	} * sfast;
	size_t cap_sfast;
	struct pairtab *scache;
	uint32_t *scache_val;
	size_t cap_scache;
	/* Locations of addresses, direct-mapped by (pid, address): the callers of distinct
	 * stacks repeat, and this keeps them from the process model and the location table.
	 * loc 0: empty, else the location + 1; pid UINT32_MAX for kernel addresses, which
	 * do not depend on the process. Valid for the session (pgen never repeats). */
	struct lmemo {
		uint64_t addr, pgen;
		uint32_t pid, loc;
	} * lmemo;
	/* The last task seen on each CPU (modulo 64), valid while the process model is unchanged:
	 * samples come in runs of one thread per CPU, this saves three lookups each. */
	struct task_memo {
		uint64_t version; /* procmodel_version() when filled; 0: empty */
		uint32_t pid, tid;
		int64_t comm, task, unit;
		uint64_t pgen; /* procmodel_gen() of pid */
	} memo[64], outside;   /* outside: see outside_task() */
	/* per-file state */
	uint64_t sample_type;
	uint64_t since, until;	      /* CLOCK_MONOTONIC ns of the file being read */
	bool event_ok[RP_MAX_EVENTS]; /* the event filter's verdict per event index */
	int8_t *comm_ok; /* comm filter verdict per comm id: 0 unknown, 1 keep, -1 drop */
	size_t n_comm_ok;
	int8_t *unit_ok; /* the same for --unit, per unit id */
	size_t n_unit_ok;
	bool finished;
	bool end_unread; /* the window ends before the file does: its last frames are not read */
	uint32_t loc_buf[MAX_FRAMES];
	/* Off-CPU (SESSION_OFFCPU, _WALL): which events are sched:sched_switch, the threads
	 * switched out, the latest time of the file being read (where they are clipped), and the
	 * "[off-cpu]" object whose two locations mark an interval as waiting or preempted. */
	bool is_switch[RP_MAX_EVENTS];
	struct offcpu *oc;
	uint64_t t_latest;
	int64_t offcpu_dso;
	/* "[joined]", "[frame pointers]": where a chain's callers that were not unwound from
	 * the copy start (RP_CONTEXT_JOINED, RP_CONTEXT_FPCHAIN) */
	int64_t joined_dso, fpchain_dso;
	int64_t cut_dso; /* "[cut]": session_opts.mark_cut's frames, addr the enum rp_unwind_stop */
	int64_t wall_off; /* the file's CLOCK_REALTIME - CLOCK_MONOTONIC, for time buckets */
	/* see replay_set_sample_hook() */
	void (*hook)(void *arg, const struct perfrec_sample *smp, uint32_t stack, uint32_t comm,
		     uint32_t unit);
	void *hook_arg;
	uint32_t hook_n;					 /* replay_sample_locs() */
	void (*ohook)(void *arg, const struct offcpu_charge *c); /* replay_set_offcpu_hook() */
	void *ohook_arg;
};

struct replay *replay_new(const struct session_opts *o, struct procmodel *pm, struct dsotab *dsos,
			  struct ksymtab *ksyms, struct aggregate *agg, struct session_totals *t)
{
	struct replay *rp = calloc(1, sizeof(*rp));

	if (!rp)
		return NULL;
	rp->o = o;
	rp->pm = pm;
	rp->dsos = dsos;
	rp->ksyms = ksyms;
	rp->agg = agg;
	rp->t = t;
	rp->scache = pairtab_new();
	rp->lmemo = calloc(LMEMO_SIZE, sizeof(*rp->lmemo));
	rp->offcpu_dso = -1;
	rp->joined_dso = -1;
	rp->fpchain_dso = -1;
	rp->cut_dso = -1;
	if (o->weight != SESSION_CPU)
		rp->oc = offcpu_new();
	if (!rp->scache || !rp->lmemo || (o->weight != SESSION_CPU && !rp->oc))
		return replay_free(rp);
	return rp;
}

struct replay *replay_free(struct replay *rp)
{
	if (!rp)
		return NULL;
	pairtab_free(rp->scache);
	free(rp->sfast);
	free(rp->lmemo);
	offcpu_free(rp->oc);
	free(rp->scache_val);
	free(rp->comm_ok);
	free(rp->unit_ok);
	free(rp);
	return NULL;
}

static void on_mmap(struct replay *rp, const struct perf_event_header *h)
{
	struct perfrec_mmap m;
	int64_t dso;

	if (perfrec_parse_mmap(h, rp->sample_type, &m) < 0) {
		rp->t->sideband_malformed++;
		return;
	}
	if ((m.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
		return; /* kernel and module maps: kallsyms covers them */
	dso = dsotab_add_mapped(rp->dsos, m.path, m.build_id, m.build_id_len, m.maj, m.min, m.ino,
				m.ino_gen, (int32_t)m.pid);
	if (dso < 0 ||
	    procmodel_map(rp->pm, (int32_t)m.pid, m.addr, m.len, m.pgoff, (uint32_t)dso) < 0)
		rp->t->sideband_nomem++;
}

int replay_task_record(struct procmodel *pm, const struct perf_event_header *h, uint64_t st)
{
	struct perfrec_cgroup cg;
	struct rp_taskcg_rec tc;
	struct perfrec_comm c;
	struct perfrec_task t;

	if (perfrec_pid0_side_band(h))
		return 0; /* a task outside the recorder's PID namespace, not the idle task */
	switch (h->type) {
	case PERF_RECORD_COMM:
		if (perfrec_parse_comm(h, st, &c) < 0)
			return -EINVAL;
		return procmodel_comm(pm, (int32_t)c.pid, (int32_t)c.tid, c.comm, c.exec);
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (perfrec_parse_task(h, &t) < 0)
			return -EINVAL;
		if (h->type == PERF_RECORD_EXIT)
			return procmodel_exit(pm, (int32_t)t.pid, (int32_t)t.tid);
		return procmodel_fork(pm, (int32_t)t.pid, (int32_t)t.ppid, (int32_t)t.tid,
				      (int32_t)t.ptid);
	case PERF_RECORD_CGROUP: /* a cgroup's path, from the kernel or the start-up synthesis */
		if (perfrec_parse_cgroup(h, st, &cg) < 0)
			return -EINVAL;
		return procmodel_cgroup(pm, cg.id, cg.path);
	case RP_REC_TASKCG: /* the cgroup a thread is in from now on */
		if (format_taskcg(h, &tc) < 0)
			return -EINVAL;
		return procmodel_taskcg(pm, (int32_t)tc.pid, (int32_t)tc.tid, tc.cgroup);
	}
	return 0;
}

static void charge_clipped(void *arg, const struct offcpu_charge *c);

/* What the off-CPU table learns from the side-band: a thread's EXIT comes before its last
 * switch-out, which never ends; a FORK of its tid is a new thread, and so is a COMM of a tid
 * that had exited (a reused one). */
static void offcpu_task(struct replay *rp, const struct perf_event_header *h)
{
	struct perfrec_comm c;
	struct perfrec_task t;

	if (h->type == PERF_RECORD_COMM) {
		if (perfrec_parse_comm(h, rp->sample_type, &c) == 0)
			offcpu_revive(rp->oc, c.tid);
	} else if (h->type == PERF_RECORD_FORK || h->type == PERF_RECORD_EXIT) {
		if (perfrec_parse_task(h, &t) == 0)
			rp->t->offcpu_dropped +=
			    h->type == PERF_RECORD_EXIT
				? offcpu_exit(rp->oc, t.tid, charge_clipped, rp)
				: offcpu_fork(rp->oc, t.tid, charge_clipped, rp);
	}
}

/* A record that names threads or places them in cgroups. Damaged COMM, FORK and EXIT records
 * are skipped uncounted: the totals count damaged mappings and cgroups. */
static void on_task(struct replay *rp, const struct perf_event_header *h)
{
	int rc;

	if (rp->oc)
		offcpu_task(rp, h);
	rc = replay_task_record(rp->pm, h, rp->sample_type);
	if (rc == -ENOMEM)
		rp->t->sideband_nomem++;
	else if (rc == -EINVAL && h->type != PERF_RECORD_COMM && h->type != PERF_RECORD_FORK &&
		 h->type != PERF_RECORD_EXIT)
		rp->t->sideband_malformed++;
}

static bool keep_pid(const struct session_filter *f, int32_t pid, int32_t tid, uint32_t cpu)
{
	bool ok;

	if (f->n_pids) {
		ok = false;
		for (size_t i = 0; i < f->n_pids; i++)
			ok |= f->pids[i] == pid;
		if (!ok)
			return false;
	}
	if (f->n_tids) {
		ok = false;
		for (size_t i = 0; i < f->n_tids; i++)
			ok |= f->tids[i] == tid;
		if (!ok)
			return false;
	}
	if (f->n_cpus) {
		ok = false;
		for (size_t i = 0; i < f->n_cpus; i++)
			ok |= (uint32_t)f->cpus[i] == cpu;
		if (!ok)
			return false;
	}
	return true;
}

static bool keep_addr(const struct session_filter *f, uint64_t ip)
{
	for (size_t i = 0; i < f->n_addrs; i++)
		if (f->addrs[i] == ip)
			return true;
	return !f->n_addrs;
}

static bool name_wanted(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

/* A name filter's verdict on the name with this id in TAB, cached in *OK (0 unknown, 1 keep,
 * -1 drop) per id. Without memory for the cache the names are compared every time: no sample
 * is kept or dropped wrongly for want of memory. */
static bool keep_name(int8_t **ok, size_t *n_ok, const char *const *names, size_t n_names,
		      const struct strtab *tab, uint32_t id)
{
	size_t n = *n_ok;

	if (!n_names)
		return true;
	if (id >= n) {
		if (GROW(*ok, *n_ok, (size_t)id + 1) < 0)
			return name_wanted(names, n_names, strtab_get(tab, id));
		memset(*ok + n, 0, *n_ok - n);
	}
	if (!(*ok)[id])
		(*ok)[id] = name_wanted(names, n_names, strtab_get(tab, id)) ? 1 : -1;
	return (*ok)[id] > 0;
}

/* --comm */
static bool keep_comm(struct replay *rp, uint32_t comm)
{
	const struct session_filter *f = &rp->o->filter;

	return keep_name(&rp->comm_ok, &rp->n_comm_ok, f->comms, f->n_comms,
			 procmodel_comms(rp->pm), comm);
}

/* --unit */
static bool keep_unit(struct replay *rp, uint32_t unit)
{
	const struct session_filter *f = &rp->o->filter;

	return keep_name(&rp->unit_ok, &rp->n_unit_ok, f->units, f->n_units,
			 procmodel_units(rp->pm), unit);
}

/* Location id of an address seen in a sample: kernel addresses as they are, user ones as
 * (mapped object, file offset). -ENOMEM. */
static int64_t locate_slow(struct replay *rp, int32_t pid, bool kernel, uint64_t addr)
{
	const struct procmodel_map *m;
	int64_t dso;

	if (kernel)
		return aggregate_add_loc(rp->agg, DSOTAB_KERNEL_ID, addr);
	m = procmodel_find_map(rp->pm, pid, addr);
	if (m && dsotab_kind(rp->dsos, m->dso) != DSOTAB_JIT)
		return aggregate_add_loc(rp->agg, m->dso, addr - m->start + m->pgoff);
	/* Anonymous or unmapped code: perf-PID.map territory, by absolute address. */
	dso = m ? (int64_t)m->dso : dsotab_add_unmapped(rp->dsos, pid);
	if (dso < 0)
		return dso;
	return aggregate_add_loc(rp->agg, (uint32_t)dso, addr);
}

/* locate(), remembered in lmemo by (pid, generation of its mappings, address). */
static int64_t locate(struct replay *rp, int32_t pid, uint64_t pgen, bool kernel, uint64_t addr)
{
	uint32_t key = kernel ? UINT32_MAX : (uint32_t)pid;
	struct lmemo *m;
	int64_t loc;

	if (kernel)
		pgen = 0;
	m = &rp->lmemo[hash_pair(addr, (uint64_t)key << 32 ^ pgen) & (LMEMO_SIZE - 1)];
	if (m->loc && m->addr == addr && m->pid == key && m->pgen == pgen)
		return m->loc - 1;
	loc = locate_slow(rp, pid, kernel, addr);
	if (loc >= 0 && loc < UINT32_MAX)
		*m = (struct lmemo){ addr, pgen, key, (uint32_t)loc + 1 };
	return loc;
}

/* The sample's thread: from the CPU's memo when the same thread ran there last and the model
 * has not changed since, else looked up and remembered. NULL when out of memory. */
/* The label of samples of tasks outside the recorder's PID namespace. */
#define OUTSIDE_PIDNS_COMM "[outside the PID namespace]"
/* A pseudo-thread of the process model that carries that label (real tids are positive). */
#define OUTSIDE_PIDNS_TID (-2)

/* Pid 0 running user code is not the idle task, which never does: it is a task outside the
 * recorder's PID namespace, which the kernel gives as pid 0 there. */
static bool outside_pidns(const struct perfrec_sample *smp)
{
	if (smp->id.pid || smp->id.tid)
		return false;
	if ((smp->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER)
		return true;
	for (uint64_t i = 0; i < smp->nr; i++) {
		uint64_t v;

		memcpy(&v, smp->ips + i, sizeof(v));
		if (v == PERF_CONTEXT_USER)
			return true;
	}
	return false;
}

/* Such a sample's task: pid 0 under the label above, apart from the idle task's. The label
 * is interned once (comm ids stay valid for the session). */
static const struct task_memo *outside_task(struct replay *rp)
{
	struct task_memo *memo = &rp->outside;

	if (!memo->version) {
		int64_t comm;

		if (procmodel_comm(rp->pm, OUTSIDE_PIDNS_TID, OUTSIDE_PIDNS_TID, OUTSIDE_PIDNS_COMM,
				   false) < 0)
			return NULL;
		comm = procmodel_comm_id(rp->pm, OUTSIDE_PIDNS_TID, OUTSIDE_PIDNS_TID);
		if (comm < 0)
			return NULL;
		*memo = (struct task_memo){ .version = 1, .comm = comm };
		memo->unit = procmodel_unit_id(rp->pm, 0, OUTSIDE_PIDNS_TID);
		if (memo->unit < 0)
			return NULL;
	}
	memo->task = aggregate_add_task(rp->agg, 0, 0, (uint32_t)memo->comm, (uint32_t)memo->unit);
	memo->pgen = procmodel_gen(rp->pm, 0);
	return memo->task < 0 ? NULL : memo;
}

static const struct task_memo *sample_task(struct replay *rp, const struct perfrec_sample *smp)
{
	struct task_memo *memo = &rp->memo[smp->id.cpu & 63];
	int32_t pid = (int32_t)smp->id.pid, tid = (int32_t)smp->id.tid;
	int64_t comm, task, unit;

	if (outside_pidns(smp))
		return outside_task(rp);
	if (memo->version == procmodel_version(rp->pm) && memo->pid == smp->id.pid &&
	    memo->tid == smp->id.tid)
		return memo;
	memo->version = 0;
	comm = procmodel_comm_id(rp->pm, pid, tid);
	unit = procmodel_unit_id(rp->pm, pid, tid);
	if (comm < 0 || unit < 0)
		return NULL;
	task = aggregate_add_task(rp->agg, pid, tid, (uint32_t)comm, (uint32_t)unit);
	if (task < 0)
		return NULL;
	*memo = (struct task_memo){
		procmodel_version(rp->pm), smp->id.pid, smp->id.tid, comm, task, unit,
		procmodel_gen(rp->pm, pid)
	};
	return memo;
}

/* Was the sample taken in the kernel (where its ip and the start of its callchain are)? */
static bool in_kernel(const struct perfrec_sample *smp)
{
	return (smp->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
}

/* The location of the frame that stands between the callers unwound from a stack copy and
 * those that follow VIA (perfrec_chain): "[joined]" before the callers the recorder inferred
 * from the thread's earlier stacks, "[frame pointers]" before the kernel's frame-pointer
 * chain's. -ENOMEM. */
static int64_t via_loc(struct replay *rp, uint64_t via)
{
	bool joined = via == RP_CONTEXT_JOINED;
	int64_t *dso = joined ? &rp->joined_dso : &rp->fpchain_dso;

	if (*dso < 0)
		*dso = dsotab_add_mapped(rp->dsos, joined ? "[joined]" : "[frame pointers]", NULL,
					 0, 0, 0, 0, 0, 0);
	if (*dso < 0)
		return *dso;
	return aggregate_add_loc(rp->agg, (uint32_t)*dso, 0);
}

/* session_opts.mark_cut: the location of the frame that says why the user stack of SMP,
 * unwound while recording, stopped short, into *ret_loc: 1; 0 when it did not stop short (or
 * was not unwound), -ENOMEM. */
static int cut_loc(struct replay *rp, const struct perfrec_sample *smp, uint32_t *ret_loc)
{
	uint64_t v;
	int64_t loc;

	if (!rp->o->mark_cut || !rp->unwound || smp->nr < 2)
		return 0;
	memcpy(&v, &smp->ips[smp->nr - 1], 8);
	if (v <= RP_CONTEXT_UNWIND || v - RP_CONTEXT_UNWIND >= RP_CONTEXT_UNWIND_N ||
	    v == RP_CONTEXT_UNWIND + RP_UNWIND_JOINED || v == RP_CONTEXT_UNWIND + RP_UNWIND_FPCHAIN)
		return 0;
	if (rp->cut_dso < 0)
		rp->cut_dso = dsotab_add_mapped(rp->dsos, "[cut]", NULL, 0, 0, 0, 0, 0, 0);
	if (rp->cut_dso < 0)
		return (int)rp->cut_dso;
	loc = aggregate_add_loc(rp->agg, (uint32_t)rp->cut_dso, v - RP_CONTEXT_UNWIND);
	if (loc < 0)
		return (int)loc;
	*ret_loc = (uint32_t)loc;
	return 1;
}

/* The callchain's locations into loc_buf, at most MAX (and the mark of a stack cut short,
 * session_opts.mark_cut): how many, or -ENOMEM. */
static int locate_chain(struct replay *rp, const struct perfrec_sample *smp, uint32_t max,
			uint64_t pgen)
{
	struct perfrec_chain c;
	uint64_t v;
	bool ret, marked = false;
	uint32_t n = 0;

	perfrec_chain_init(&c, smp);
	while (n < max && perfrec_chain_next(&c, &v, &ret)) {
		int64_t loc;

		if (c.via && !marked) {
			marked = true;
			if ((loc = via_loc(rp, c.via)) < 0)
				return (int)loc;
			rp->loc_buf[n++] = (uint32_t)loc;
			if (n == max)
				break;
		}
		loc = locate(rp, (int32_t)smp->id.pid, pgen, c.kernel, ret ? v - 1 : v);
		if (loc < 0)
			return (int)loc;
		rp->loc_buf[n++] = (uint32_t)loc;
	}
	if (n && n < max) {
		int r = cut_loc(rp, smp, &rp->loc_buf[n]);

		if (r < 0)
			return r;
		n += (uint32_t)r;
	}
	return (int)n;
}

/* The sample's locations into loc_buf, leaf first: its callchain, or its ip without one. How
 * many (at least 1), or -ENOMEM. */
static int locate_locs(struct replay *rp, const struct perfrec_sample *smp, uint64_t pgen)
{
	uint32_t max = rp->o->max_stack ? rp->o->max_stack : MAX_FRAMES;
	int n;

	if (max > MAX_FRAMES)
		max = MAX_FRAMES;
	n = locate_chain(rp, smp, max, pgen);
	if (n == 0) {
		int64_t loc = locate(rp, (int32_t)smp->id.pid, pgen, in_kernel(smp), smp->ip);

		if (loc < 0)
			return (int)loc;
		rp->loc_buf[n++] = (uint32_t)loc;
	}
	return n;
}

/* The sample's location stack. -ENOMEM. */
static int64_t locate_stack(struct replay *rp, const struct perfrec_sample *smp, uint64_t pgen)
{
	int n = locate_locs(rp, smp, pgen);

	return n < 0 ? n : aggregate_add_stack(rp->agg, rp->loc_buf, (uint32_t)n);
}

/* Remember location stack STACK for cache slot CID; without memory it is simply not kept. */
static void cache_stack(struct replay *rp, uint32_t cid, uint32_t stack)
{
	size_t cap = rp->cap_scache;

	if (cid >= cap) {
		if (GROW(rp->scache_val, rp->cap_scache, (size_t)cid + 1) < 0)
			return;
		memset(rp->scache_val + cap, 0xff, (rp->cap_scache - cap) * sizeof(uint32_t));
	}
	rp->scache_val[cid] = stack;
}

/* Stack SID's entry in sfast, grown as needed; NULL without memory. */
static struct sfast *sfast_slot(struct replay *rp, uint32_t sid)
{
	size_t cap = rp->cap_sfast;

	if (sid >= cap) {
		if (GROW(rp->sfast, rp->cap_sfast, (size_t)sid + 1) < 0)
			return NULL;
		memset(rp->sfast + cap, 0xff, (rp->cap_sfast - cap) * sizeof(*rp->sfast));
	}
	return &rp->sfast[sid];
}

/* The sample's location stack, resolved once per packed stack and process state. -ENOMEM. */
static int64_t sample_stack(struct replay *rp, const struct perfrec_sample *smp, uint64_t pgen)
{
	uint32_t sid = reader_stack_id(rp->rd);
	struct sfast *f = sid == READER_NO_STACK ? NULL : sfast_slot(rp, sid);
	int64_t cid = -1, stack;
	bool added;

	/* Same stack, same process state: same locations. */
	if (f && f->stack != UINT32_MAX) {
		if (f->pid == smp->id.pid && f->pgen == pgen)
			return f->stack;
		if (rp->scache) { /* another process, or state, than the first one seen */
			cid = pairtab_intern(rp->scache, (uint64_t)sid << 32 | smp->id.pid, pgen,
					     &added);
			if (cid >= 0 && !added && (size_t)cid < rp->cap_scache &&
			    rp->scache_val[cid] != UINT32_MAX)
				return rp->scache_val[cid];
		}
	}
	stack = locate_stack(rp, smp, pgen);
	if (stack >= 0 && stack < UINT32_MAX && f && f->stack == UINT32_MAX)
		*f = (struct sfast){ smp->id.pid, (uint32_t)stack, pgen };
	else if (stack >= 0 && cid >= 0)
		cache_stack(rp, (uint32_t)cid, (uint32_t)stack);
	return stack;
}

/* A new file: its stack numbers are its own. */
static void forget_stacks(struct replay *rp)
{
	if (rp->cap_sfast)
		memset(rp->sfast, 0xff, rp->cap_sfast * sizeof(*rp->sfast));
	if (rp->cap_scache)
		memset(rp->scache_val, 0xff, rp->cap_scache * sizeof(*rp->scache_val));
	pairtab_free(rp->scache);
	rp->scache = pairtab_new(); /* without memory, none: stacks are then resolved again */
}

static void count_sample(struct session_totals *t, const struct perfrec_sample *smp)
{
	t->samples++;
	t->period += smp->period ? smp->period : 1;
	if (!t->t_first || smp->id.time < t->t_first)
		t->t_first = smp->id.time;
	if (smp->id.time > t->t_last)
		t->t_last = smp->id.time;
}

/* The stack copy size the recording asked for (its perf_event_attr, as stored). */
static uint32_t header_stack_user(const struct rp_header_rec *h)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	memcpy(&a, h->attr, h->attr_size < sizeof(a) ? h->attr_size : sizeof(a));
	return a.sample_stack_user;
}

/* A user stack unwound while recording ends in a marker saying why: count it, and for an
 * incomplete one the object of its last frame. */
/* With --dso, is the sample's own (leaf) object one of those named? (The rows are kept by
 * the same test once symbolized: aggregate_keep_dsos.) */
static bool leaf_dso_kept(struct replay *rp, const struct perfrec_sample *smp)
{
	const struct session_filter *f = &rp->o->filter;
	const struct procmodel_map *m;
	uint32_t dso;

	if (!f->n_dsos)
		return true;
	if (in_kernel(smp))
		dso = DSOTAB_KERNEL_ID;
	else if ((m = procmodel_find_map(rp->pm, (int32_t)smp->id.pid, smp->ip)))
		dso = m->dso;
	else
		return false;
	for (size_t k = 0; k < f->n_dsos; k++)
		if (dsotab_matches(rp->dsos, dso, f->dsos[k]))
			return true;
	return false;
}

/* A walk stopped RP_UNWIND_NO_INFO at ADDR, in map M: counted for its object, and
 * the file offset kept among the object's first distinct ones (the report checks them against
 * the file's CFI: built without unwind tables, or a table not used). */
static void count_noinfo(struct session_totals *t, const struct procmodel_map *m, uint64_t addr)
{
	struct session_stop_offs *at;
	uint64_t off = addr - m->start + m->pgoff;

	if (m->dso >= t->n_unwind_noinfo) {
		size_t old = t->n_unwind_noinfo;

		if (GROW(t->unwind_noinfo, t->n_unwind_noinfo, (size_t)m->dso + 1) < 0)
			return;
		memset(t->unwind_noinfo + old, 0, (t->n_unwind_noinfo - old) * sizeof(uint64_t));
	}
	if (m->dso >= t->n_unwind_noinfo_at) {
		size_t old = t->n_unwind_noinfo_at;

		if (GROW(t->unwind_noinfo_at, t->n_unwind_noinfo_at, (size_t)m->dso + 1) == 0)
			memset(t->unwind_noinfo_at + old, 0,
			       (t->n_unwind_noinfo_at - old) * sizeof(*t->unwind_noinfo_at));
	}
	t->unwind_noinfo[m->dso]++;
	if (m->dso >= t->n_unwind_noinfo_at)
		return;
	at = &t->unwind_noinfo_at[m->dso];
	for (uint32_t i = 0; i < at->n; i++)
		if (at->off[i] == off)
			return;
	if (at->n < SESSION_STOP_OFFS)
		at->off[at->n++] = off;
}

static void count_unwind(struct replay *rp, const struct perfrec_sample *smp)
{
	struct session_totals *t = rp->t;
	const struct procmodel_map *m;
	uint64_t v, last = 0;

	if (smp->nr < 2)
		return;
	memcpy(&v, &smp->ips[smp->nr - 1], 8);
	if (v < RP_CONTEXT_UNWIND || v - RP_CONTEXT_UNWIND >= RP_CONTEXT_UNWIND_N ||
	    !leaf_dso_kept(rp, smp))
		return;
	t->unwound++;
	t->unwind_stop[v - RP_CONTEXT_UNWIND]++;
	if (v == RP_CONTEXT_UNWIND + RP_UNWIND_COMPLETE ||
	    v == RP_CONTEXT_UNWIND + RP_UNWIND_JOINED || v == RP_CONTEXT_UNWIND + RP_UNWIND_FPCHAIN)
		return;
	memcpy(&last, &smp->ips[smp->nr - 2], 8);
	m = last < (uint64_t)PERF_CONTEXT_MAX
		? procmodel_find_map(rp->pm, (int32_t)smp->id.pid, last)
		: NULL;
	if (!m)
		return;
	if (m->dso >= t->n_unwind_dso) {
		size_t old = t->n_unwind_dso;

		if (GROW(t->unwind_dso, t->n_unwind_dso, (size_t)m->dso + 1) < 0)
			return;
		memset(t->unwind_dso + old, 0, (t->n_unwind_dso - old) * sizeof(uint64_t));
	}
	t->unwind_dso[m->dso]++;
	/* The report's advice needs the RP_UNWIND_NO_INFO stops apart. */
	if (v - RP_CONTEXT_UNWIND == RP_UNWIND_NO_INFO)
		count_noinfo(t, m, last);
}

/* The location stack STACK under a leaf frame of "[off-cpu]" that says why the thread was off:
 * address 0 waiting, 1 preempted. Its id, or -ENOMEM. */
static int64_t offcpu_stack(struct replay *rp, uint32_t stack, bool preempted)
{
	const uint32_t *locs;
	uint32_t n;
	int64_t loc;

	if (rp->offcpu_dso < 0)
		rp->offcpu_dso = dsotab_add_mapped(rp->dsos, "[off-cpu]", NULL, 0, 0, 0, 0, 0, 0);
	if (rp->offcpu_dso < 0)
		return rp->offcpu_dso;
	loc = aggregate_add_loc(rp->agg, (uint32_t)rp->offcpu_dso, preempted);
	if (loc < 0)
		return loc;
	/* Time of a thread that never kept a stack of its kind: the leaf alone. */
	locs = stack == OFFCPU_NO_STACK ? NULL : aggregate_stack(rp->agg, stack, &n);
	n = !locs ? 0 : n < MAX_FRAMES ? n : MAX_FRAMES - 1;
	rp->loc_buf[0] = (uint32_t)loc;
	if (n)
		memcpy(rp->loc_buf + 1, locs, n * sizeof(*locs));
	return aggregate_add_stack(rp->agg, rp->loc_buf, n + 1);
}

/* The time bucket of CLOCK_MONOTONIC TIME in the file being read (session_opts.bucket_ns). */
static uint32_t time_bucket(const struct replay *rp, uint64_t time)
{
	int64_t wall;
	uint64_t b;

	/* A crafted file's time or offset may not add up (found by fuzz-frame): bucket 0. */
	if (!rp->o->bucket_ns || time > INT64_MAX ||
	    __builtin_add_overflow((int64_t)time, rp->wall_off, &wall) ||
	    wall <= rp->o->bucket_origin)
		return 0;
	b = ((uint64_t)wall - (uint64_t)rp->o->bucket_origin) / rp->o->bucket_ns;
	return b < UINT32_MAX ? (uint32_t)b : UINT32_MAX;
}

/* An off-CPU interval, counted as a sample weighing its length in ns. */
static void charge_offcpu(struct replay *rp, const struct offcpu_charge *c)
{
	struct session_totals *t = rp->t;
	int64_t stack = offcpu_stack(rp, c->stack, c->preempted);

	if (stack < 0 || aggregate_add_sample(rp->agg, (uint32_t)stack, c->task, c->cpu,
					      time_bucket(rp, rp->t_latest), c->ns) < 0) {
		t->samples_nomem++;
		return;
	}
	t->samples++;
	t->period += c->ns;
	t->offcpu_ns += c->ns;
	if (c->preempted)
		t->offcpu_preempt_ns += c->ns;
	if (rp->ohook)
		rp->ohook(rp->ohook_arg, c);
}

static void charge_clipped(void *arg, const struct offcpu_charge *c)
{
	struct replay *rp = arg;

	rp->t->offcpu_clipped_ns += c->clipped_ns;
	charge_offcpu(rp, c);
}

/* A thread switched out (its sched:sched_switch sample): its stack waits for the switch-in.
 * False when the switch-out is not off-CPU time (the thread's last, after its exit). */
static bool offcpu_sample(struct replay *rp, const struct perfrec_sample *smp, int64_t stack,
			  const struct task_memo *memo)
{
	struct session_totals *t = rp->t;
	int r = stack < 0 ? (int)stack
			  : offcpu_out(rp->oc, smp->id.tid, smp->id.time, (uint32_t)stack,
				       (uint32_t)memo->task, smp->id.cpu);

	if (r < 0) {
		t->samples_nomem++;
		return false;
	}
	if (r == OFFCPU_OUT_EXITED)
		return false;
	t->offcpu_dropped += r == 1;
	t->offcpu_switchouts++;
	t->offcpu_stacks++;
	if (!t->t_first || smp->id.time < t->t_first)
		t->t_first = smp->id.time;
	if (smp->id.time > t->t_last)
		t->t_last = smp->id.time;
	if (rp->unwound)
		count_unwind(rp, smp);
	return true;
}

/* A thread switched out that has no stack in the off-CPU table yet (the recorder sampled
 * only some switch-outs): taken in when the filters keep it. True when it was. */
static bool offcpu_adopt_thread(struct replay *rp, const struct perfrec_id *id)
{
	struct perfrec_sample smp = { .id = *id };
	const struct task_memo *memo;

	if (!id->tid || !keep_pid(&rp->o->filter, (int32_t)id->pid, (int32_t)id->tid, id->cpu))
		return false;
	memo = sample_task(rp, &smp);
	if (!memo || !keep_comm(rp, (uint32_t)memo->comm))
		return false;
	return offcpu_adopt(rp->oc, id->tid, (uint32_t)memo->task, id->cpu) == 0;
}

/* A context switch: a switch-out says whether it was a preemption, a switch-in ends the
 * thread's off-CPU interval. The record's own task is the one switching, CPU-wide or not. */
static void on_switch(struct replay *rp, const struct perf_event_header *h)
{
	struct perfrec_id id;
	struct offcpu_charge c;
	enum offcpu_kind_result k;

	if (!rp->oc || perfrec_parse_id(h, rp->sample_type, &id) < 0)
		return;
	if (id.time > rp->t_latest)
		rp->t_latest = id.time;
	if (id.time < rp->since || id.time > rp->until || id.tid == DEAD_TID)
		return;
	if (h->misc & PERF_RECORD_MISC_SWITCH_OUT) {
		/* A switch-out the recorder kept no stack for (--off-cpu-rate) opens an
		 * interval too: the thread's totals stay exact. */
		k = offcpu_out_kind(rp->oc, id.tid, id.time,
				    h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
		if (k == OFFCPU_UNKNOWN && offcpu_adopt_thread(rp, &id))
			k = offcpu_out_kind(rp->oc, id.tid, id.time,
					    h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
		rp->t->offcpu_switchouts += k == OFFCPU_STACKLESS || k == OFFCPU_STACKLESS_DROPPED;
		rp->t->offcpu_dropped += k == OFFCPU_STACKLESS_DROPPED;
	} else if (offcpu_in(rp->oc, id.tid, id.time, &c)) {
		charge_offcpu(rp, &c);
	}
}

/* A CPU sample for the sample hook alone (script): its locations go to the hook as they
 * are, neither its stack nor its count is kept, so that memory grows with the distinct
 * locations, not with the stacks. */
static void stream_sample(struct replay *rp, const struct perfrec_sample *smp,
			  const struct task_memo *memo)
{
	int n = locate_locs(rp, smp, memo->pgen);

	if (n < 0) {
		rp->t->samples_nomem++;
		return;
	}
	count_sample(rp->t, smp);
	if (rp->unwound)
		count_unwind(rp, smp);
	rp->hook_n = (uint32_t)n;
	rp->hook(rp->hook_arg, smp, REPLAY_LOCS, (uint32_t)memo->comm, (uint32_t)memo->unit);
}

/*
 * A sample either fails to parse (samples_malformed), is filtered out, is counted, or is lost
 * because memory ran out on the way (samples_nomem): nothing leaves unaccounted for.
 */
static void on_sample(struct replay *rp, const struct perf_event_header *h)
{
	struct perfrec_sample smp;
	const struct task_memo *memo;
	const uint64_t *ips;
	uint64_t nr;
	int64_t stack;
	/* A packed sample: its fields as if it had no callchain, the chain where the reader
	 * keeps its stack (not copied into every sample). */
	bool packed = reader_packed_chain(rp->rd, &ips, &nr);

	if (perfrec_parse_sample(h,
				 packed ? rp->sample_type & ~(uint64_t)PERF_SAMPLE_CALLCHAIN
					: rp->sample_type,
				 &smp) < 0) {
		rp->t->samples_malformed++;
		return;
	}
	if (packed) {
		smp.nr = nr;
		smp.ips = ips;
	}
	rp->t->samples_seen++;
	if (smp.id.time < rp->since || smp.id.time > rp->until)
		return;
	if (!rp->event_ok[reader_event(rp->rd) % RP_MAX_EVENTS])
		return;
	if (smp.id.time > rp->t_latest)
		rp->t_latest = smp.id.time;
	/* The idle task's switch-outs are a CPU going to work, not a thread waiting; a dead
	 * task's is its last. */
	if (rp->oc && (smp.id.tid == 0 || smp.id.tid == DEAD_TID) &&
	    rp->is_switch[reader_event(rp->rd) % RP_MAX_EVENTS])
		return;
	rp->t->samples_window++;
	rp->t->period_window += smp.period ? smp.period : 1;
	if (!keep_pid(&rp->o->filter, (int32_t)smp.id.pid, (int32_t)smp.id.tid, smp.id.cpu) ||
	    !keep_addr(&rp->o->filter, smp.ip))
		return;
	memo = sample_task(rp, &smp);
	if (!memo) {
		rp->t->samples_nomem++;
		return;
	}
	if (!keep_comm(rp, (uint32_t)memo->comm) || !keep_unit(rp, (uint32_t)memo->unit))
		return;
	if (rp->hook && !rp->oc) {
		stream_sample(rp, &smp, memo);
		return;
	}
	stack = sample_stack(rp, &smp, memo->pgen);
	if (rp->oc && rp->is_switch[reader_event(rp->rd) % RP_MAX_EVENTS]) {
		if (offcpu_sample(rp, &smp, stack, memo) && rp->hook && rp->ohook)
			rp->hook(rp->hook_arg, &smp, (uint32_t)stack, (uint32_t)memo->comm,
				 (uint32_t)memo->unit);
		return;
	}
	if (stack < 0 ||
	    aggregate_add_sample(rp->agg, (uint32_t)stack, (uint32_t)memo->task, smp.id.cpu,
				 time_bucket(rp, smp.id.time), smp.period ? smp.period : 1) < 0) {
		rp->t->samples_nomem++;
		return;
	}
	count_sample(rp->t, &smp);
	if (rp->unwound)
		count_unwind(rp, &smp);
	if (rp->hook)
		rp->hook(rp->hook_arg, &smp, (uint32_t)stack, (uint32_t)memo->comm,
			 (uint32_t)memo->unit);
}

/* A code image the recording carries ([vdso]), for the symbolizer. A damaged record is
 * skipped: its frames stay [unknown]. */
static void on_image(struct replay *rp, const struct perf_event_header *h)
{
	const unsigned char *image;
	const char *name;
	size_t len;

	if (format_image(h, &name, &image, &len) == 0 &&
	    dsotab_add_image(rp->dsos, name, image, len) == -ENOMEM)
		rp->t->sideband_nomem++;
}

/* A build-id the recorder read for a file its mappings name by inode. */
static void on_buildid(struct replay *rp, const struct perf_event_header *h)
{
	struct rp_buildid_rec bid;

	if (format_buildid(h, &bid) < 0)
		rp->t->sideband_malformed++;
	else if (dsotab_learn_build_id(rp->dsos, bid.maj, bid.min, bid.ino, bid.ino_gen,
				       bid.build_id, bid.len,
				       bid.digest_len ? bid.digest : NULL) == -ENOMEM)
		rp->t->sideband_nomem++;
}

/* Symbols captured at record time, for binaries the report host cannot read. */
static void on_symtab(struct replay *rp, const struct perf_event_header *h)
{
	struct rp_symtab_rec st;
	uint8_t digest[RP_DIGEST_LEN];
	const unsigned char *run;
	size_t len, dlen;

	if (format_symtab(h, &st, digest, &dlen, &run, &len) < 0)
		rp->t->sideband_malformed++;
	else if (st.n && dsotab_add_symtab(rp->dsos, st.build_id, st.len, dlen ? digest : NULL,
					   st.part, st.n_parts, st.n, run, len) == -ENOMEM)
		rp->t->sideband_nomem++;
}

static void on_record(struct replay *rp, const struct perf_event_header *h)
{
	struct rp_cpu_stats_rec cs;
	struct perfrec_lost l;

	if (perfrec_pid0_side_band(h))
		return; /* a task outside the recorder's PID namespace, not the idle task */
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		on_sample(rp, h);
		break;
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_CGROUP:
	case RP_REC_TASKCG:
		on_task(rp, h);
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		on_mmap(rp, h);
		break;
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		if (perfrec_parse_lost(h, &l) < 0)
			break;
		if (rp->oc && h->type == PERF_RECORD_LOST && l.lost >= OFFCPU_LOST_MIN)
			offcpu_lost(rp->oc, perfrec_time(h, rp->sample_type));
		if (perfrec_time(h, rp->sample_type) >= rp->since &&
		    perfrec_time(h, rp->sample_type) <= rp->until)
			rp->t->lost = util_sat_add(rp->t->lost, l.lost);
		break;
	case PERF_RECORD_THROTTLE:
		rp->t->throttles++;
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		on_switch(rp, h);
		break;
	case RP_REC_KSYMS:
		/* A damaged record keeps the entries it holds; only lack of memory is counted. */
		if (!rp->ksyms_preloaded && (!rp->ksyms_loaded || rp->ksyms_partial) &&
		    ksymtab_add_record(rp->ksyms, h, h->size) == -ENOMEM)
			rp->t->sideband_nomem++;
		break;
	case RP_REC_CPU_STATS:
		if (format_cpu_stats(h, &cs) < 0)
			break;
		rp->t->lost = util_sat_add(rp->t->lost, cs.lost_unreported);
		/* Losses without their LOST record, known at the end of the file: the intervals
		 * still open are not clipped there but dropped. */
		if (rp->oc && cs.lost_unreported >= OFFCPU_LOST_MIN)
			offcpu_lost(rp->oc, cs.time);
		break;
	case RP_REC_FINISH:
		rp->finished = true;
		break;
	case RP_REC_BUILDID:
		on_buildid(rp, h);
		break;
	case RP_REC_IMAGE:
		on_image(rp, h);
		break;
	case RP_REC_SYMTAB:
	case RP_REC_SYMTAB_D:
		on_symtab(rp, h);
		break;
	}
}

/* The file's share of the time window: 0, 1 when it lies wholly outside, -ENODATA. */
static int set_window(struct replay *rp, struct reader *r, char *why, size_t why_size)
{
	const struct rp_header_rec *hdr = reader_header(r);
	uint64_t first, last;
	int64_t off;

	rp->since = 0;
	rp->until = UINT64_MAX;
	rp->end_unread = false;
	if (!rp->o->filter.have_since && !rp->o->filter.have_until)
		return 0;
	if (!hdr || reader_time_bounds(r, &first, &last) < 0) {
		snprintf(why, why_size,
			 "its wall-clock time is unknown (header lost), so --since/--until cannot apply");
		return -ENODATA;
	}
	off = hdr->realtime_offset;
	if (rp->o->filter.have_since)
		rp->since = util_mono_ns(rp->o->filter.since, off);
	if (rp->o->filter.have_until)
		rp->until = util_mono_ns(rp->o->filter.until, off);
	if (last < rp->since || first > rp->until)
		return 1;
	rp->end_unread = rp->until < last;
	reader_set_until(r, rp->until);
	return 0;
}

/* Which of r's events the filter keeps (all without one; none of an event whose description
 * was lost). */
static void set_events(struct replay *rp, struct reader *r)
{
	const char *want = rp->o->filter.event;

	for (uint32_t i = 0; i < RP_MAX_EVENTS; i++) {
		const char *name = i < reader_n_events(r) ? reader_event_name(r, i) : NULL;

		rp->event_ok[i] = !want || (name && strcmp(name, want) == 0);
		/* Off-CPU weights take the switch-outs; wall time the CPU samples too. */
		rp->is_switch[i] = name && strcmp(name, "sched:sched_switch") == 0;
		if (rp->o->weight == SESSION_OFFCPU)
			rp->event_ok[i] = rp->is_switch[i];
		else if (rp->o->weight == SESSION_WALL)
			rp->event_ok[i] |= rp->is_switch[i];
	}
}

int replay_preload(struct replay *rp, struct reader *pre)
{
	const struct rp_header_rec *hdr = reader_header(pre);
	const struct perf_event_header *h;
	bool ksyms;

	if (!hdr)
		return 0;
	/* A whole snapshot is read once; symbols written as needed add up. */
	ksyms =
	    (hdr->flags & RP_HDR_KSYMS_USED) || ((hdr->flags & RP_HDR_KSYMS) && !rp->ksyms_loaded);
	while ((h = reader_next(pre))) {
		if (h->type == RP_REC_KSYMS && ksyms &&
		    ksymtab_add_record(rp->ksyms, h, h->size) == -ENOMEM)
			rp->t->sideband_nomem++;
		else if (h->type == RP_REC_BUILDID)
			on_buildid(rp, h);
		else if (h->type == RP_REC_SYMTAB || h->type == RP_REC_SYMTAB_D)
			on_symtab(rp, h);
	}
	rp->ksyms_preloaded = ksyms;
	return 1;
}

int replay_begin(struct replay *rp, struct reader *r, char *why, size_t why_size)
{
	const struct rp_header_rec *hdr = reader_header(r);
	int rc;

	rp->sample_type = reader_sample_type(r);
	rp->unwound = hdr && (hdr->flags & RP_HDR_UNWIND);
	rp->wall_off = hdr ? hdr->realtime_offset : 0;
	if (hdr && (hdr->flags & RP_HDR_OFFCPU_RATE))
		rp->t->offcpu_rate = hdr->reserved[RP_HDR_OFFCPU_RATE_WORD];
	if (rp->unwound && !rp->t->stack_user)
		rp->t->stack_user = header_stack_user(hdr);
	rc = set_window(rp, r, why, why_size);
	if (rc != 0)
		return rc;
	rp->finished = false;
	set_events(rp, r);
	rp->rd = r;
	forget_stacks(rp);
	rp->ksyms_partial = hdr && (hdr->flags & RP_HDR_KSYMS_USED);
	rp->rd = NULL;
	return 0;
}

void replay_more(struct replay *rp, struct reader *r)
{
	const struct perf_event_header *h;

	rp->rd = r;
	while ((h = reader_next_packed(r)))
		on_record(rp, h);
	rp->rd = NULL;
}

int replay_end(struct replay *rp, struct reader *r, char *why, size_t why_size)
{
	/* Each file stands alone: a thread still off at its end is clipped there. */
	if (rp->oc) {
		rp->t->offcpu_clipped += offcpu_flush(rp->oc, rp->t_latest, charge_clipped, rp);
		rp->t->offcpu_lost = offcpu_stats(rp->oc)->n_lost;
		rp->t->offcpu_lost_ns = offcpu_stats(rp->oc)->lost_ns;
	}
	rp->t_latest = 0;
	rp->ksyms_preloaded = false;
	/* A whole snapshot is read once (every file has the same); partial ones add up. */
	if (ksymtab_count(rp->ksyms) && !rp->ksyms_partial)
		rp->ksyms_loaded = true;
	rp->t->files++;
	/* Whether it finished is in its last frame, which a window that ends before it skips. */
	rp->t->files_unfinished += !rp->finished && !rp->end_unread;
	rp->t->frames_bad += reader_stats(r)->frames_bad;
	if (!reader_stats(r)->frames) {
		snprintf(why, why_size, "no intact frame in the file; nothing could be read");
		return -ENODATA;
	}
	return 0;
}

int replay_file(struct replay *rp, struct reader *r, char *why, size_t why_size)
{
	int rc = replay_begin(rp, r, why, why_size);

	if (rc != 0)
		return rc;
	replay_more(rp, r);
	return replay_end(rp, r, why, why_size);
}

const char *replay_event_name(const struct replay *rp)
{
	const char *name;

	if (!rp->rd)
		return NULL;
	name = reader_event_name(rp->rd, reader_event(rp->rd));
	return name ? name : reader_event_name(rp->rd, 0);
}

size_t replay_event_width(const struct replay *rp)
{
	size_t w = 0;

	for (uint32_t i = 0; rp->rd && i < reader_n_events(rp->rd); i++) {
		const char *name = reader_event_name(rp->rd, i);

		if (name && strlen(name) > w)
			w = strlen(name);
	}
	return w;
}

const uint32_t *replay_sample_locs(const struct replay *rp, uint32_t *ret_n)
{
	*ret_n = rp->hook_n;
	return rp->loc_buf;
}

void replay_set_sample_hook(struct replay *rp,
			    void (*fn)(void *arg, const struct perfrec_sample *smp, uint32_t stack,
				       uint32_t comm, uint32_t unit),
			    void *arg)
{
	rp->hook = fn;
	rp->hook_arg = arg;
}

void replay_set_offcpu_hook(struct replay *rp, void (*fn)(void *arg, const struct offcpu_charge *c),
			    void *arg)
{
	rp->ohook = fn;
	rp->ohook_arg = arg;
}
