/* aggregate.c — samples counted by (location stack, task, CPU) while replaying, rows after. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/intern.h"
#include "profile/aggregate.h"
#include "profile/dsotab.h"
#include "profile/session.h"
#include "profile/symstacks.h"

/* The count of one (location stack, task, cpu, time bucket): its key is in agg_ids. */
struct agg {
	uint64_t count, period;
};

/* The key of a count. */
struct agg_key {
	uint32_t stack, task, cpu, bucket;
};

struct aggregate {
	struct pairtab *locs;	 /* (dso, address or offset) -> location id */
	struct seqtab *stacks;	 /* location ids, leaf first */
	struct pairtab *tasks;	 /* (pid << 32 | tid, unit << 32 | comm) -> task id */
	struct pairtab *agg_ids; /* (bucket << 32 | stack, task << 32 | cpu) -> agg index */
	struct agg *aggs;
	size_t n_aggs, cap_aggs;
	struct session_row *rows;
	size_t n_rows;
};

struct aggregate *aggregate_new(void)
{
	struct aggregate *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->locs = pairtab_new();
	a->stacks = seqtab_new();
	a->tasks = pairtab_new();
	a->agg_ids = pairtab_new();
	if (!a->locs || !a->stacks || !a->tasks || !a->agg_ids)
		return aggregate_free(a);
	return a;
}

struct aggregate *aggregate_free(struct aggregate *a)
{
	if (!a)
		return NULL;
	pairtab_free(a->locs);
	seqtab_free(a->stacks);
	pairtab_free(a->tasks);
	pairtab_free(a->agg_ids);
	free(a->aggs);
	free(a->rows);
	free(a);
	return NULL;
}

int64_t aggregate_add_loc(struct aggregate *a, uint32_t dso, uint64_t addr)
{
	return pairtab_intern(a->locs, dso, addr, NULL);
}

int64_t aggregate_add_stack(struct aggregate *a, const uint32_t *locs, uint32_t n)
{
	return seqtab_intern(a->stacks, locs, n);
}

const uint32_t *aggregate_stack(const struct aggregate *a, uint32_t id, uint32_t *ret_n)
{
	return seqtab_get(a->stacks, id, ret_n);
}

int64_t aggregate_add_task(struct aggregate *a, int32_t pid, int32_t tid, uint32_t comm,
			   uint32_t unit)
{
	return pairtab_intern(a->tasks, (uint64_t)(uint32_t)pid << 32 | (uint32_t)tid,
			      (uint64_t)unit << 32 | comm, NULL);
}

int aggregate_add_sample(struct aggregate *a, uint32_t stack, uint32_t task, uint32_t cpu,
			 uint32_t bucket, uint64_t period)
{
	uint64_t key = (uint64_t)task << 32 | cpu;
	uint64_t sb = (uint64_t)bucket << 32 | stack;
	bool added;
	int64_t id;

	/* Room first: an id in agg_ids always has its count. One probe: half the samples of a
	 * diverse day are a new count. */
	if (GROW(a->aggs, a->cap_aggs, a->n_aggs + 1) < 0)
		return -ENOMEM;
	id = pairtab_intern(a->agg_ids, sb, key, &added);
	if (id < 0)
		return -ENOMEM;
	if (added) {
		a->aggs[id] = (struct agg){ 0, 0 };
		a->n_aggs++;
	}
	a->aggs[id].count++;
	a->aggs[id].period += period;
	return 0;
}

static struct agg_key agg_key(const struct aggregate *a, size_t i)
{
	uint64_t sb, key;

	pairtab_get(a->agg_ids, (uint32_t)i, &sb, &key);
	return (struct agg_key){ (uint32_t)sb, (uint32_t)(key >> 32), (uint32_t)key,
				 (uint32_t)(sb >> 32) };
}

uint32_t aggregate_n_locs(const struct aggregate *a)
{
	return pairtab_count(a->locs);
}

void aggregate_loc(const struct aggregate *a, uint32_t id, uint32_t *ret_dso, uint64_t *ret_addr)
{
	uint64_t dso;

	pairtab_get(a->locs, id, &dso, ret_addr);
	*ret_dso = (uint32_t)dso;
}

/* A location stack's symbol stack, its length and its frames without a name: computed once
 * per location stack, which several counts (tasks, CPUs, buckets) share. */
struct symmemo {
	uint32_t st, n, unknown;
};

static int64_t stack_syms(const struct aggregate *a, struct symstacks *ss, struct symmemo *memo,
			  uint32_t stack, uint32_t *ret_n, uint32_t *ret_unknown)
{
	struct symmemo *e = &memo[stack];

	if (e->st == UINT32_MAX) {
		uint32_t n;
		const uint32_t *locs = seqtab_get(a->stacks, stack, &n);
		int64_t st = symstacks_add_stack(ss, locs, n, &e->n, &e->unknown);

		if (st < 0)
			return st;
		e->st = (uint32_t)st;
	}
	*ret_n = e->n;
	*ret_unknown = e->unknown;
	return e->st;
}

/* Each aggregated stack becomes a symbol stack; rows merge what now looks the same. */
int aggregate_build_rows(struct aggregate *a, struct symstacks *ss, struct session_totals *t)
{
	size_t n_stacks = seqtab_count(a->stacks), cap_rows = 0;
	struct symmemo *memo = malloc((n_stacks ? n_stacks : 1) * sizeof(*memo));
	struct pairtab *row_ids = pairtab_new();

	if (!row_ids || !memo)
		goto oom;
	memset(memo, 0xff, n_stacks * sizeof(*memo));
	for (size_t i = 0; i < a->n_aggs; i++) {
		const struct agg *g = &a->aggs[i];
		struct agg_key k = agg_key(a, i);
		uint32_t m, unknown;
		uint64_t pidtid, comm;
		int64_t st, rid;
		bool added;

		st = stack_syms(a, ss, memo, k.stack, &m, &unknown);
		if (st < 0)
			goto oom;
		t->frames += g->count * m;
		t->frames_unknown += g->count * unknown;
		rid = pairtab_intern(row_ids, (uint64_t)k.bucket << 32 | (uint64_t)st,
				     (uint64_t)k.task << 32 | k.cpu, &added);
		if (rid < 0)
			goto oom;
		if (added) {
			if (GROW(a->rows, cap_rows, a->n_rows + 1) < 0)
				goto oom;
			pairtab_get(a->tasks, k.task, &pidtid, &comm);
			a->rows[a->n_rows++] = (struct session_row){ (uint32_t)st,
								     (uint32_t)comm,
								     (int32_t)(pidtid >> 32),
								     (int32_t)(uint32_t)pidtid,
								     k.cpu,
								     0,
								     0,
								     (uint32_t)(comm >> 32),
								     k.bucket };
		}
		a->rows[rid].count += g->count;
		a->rows[rid].period += g->period;
	}
	free(memo);
	pairtab_free(row_ids);
	return 0;
oom:
	free(memo);
	pairtab_free(row_ids);
	return -ENOMEM;
}

/* An off-CPU stack (STACK, LEN long) ends in a made-up [off-cpu] frame: then *dso becomes the
 * object of the frame below it (in the kernel, where the thread slept), and the object of
 * its first user-space frame (where it entered the kernel) is returned; else *dso. */
static uint32_t offcpu_user_leaf(const struct symstacks *ss, const struct dsotab *d,
				 const uint32_t *st, uint32_t len, uint32_t *dso)
{
	if (len < 2 || strcmp(dsotab_name(d, *dso), "[off-cpu]") != 0)
		return *dso;
	*dso = symstacks_sym(ss, st[1])->dso;
	for (uint32_t k = 1; k < len; k++) {
		uint32_t u = symstacks_sym(ss, st[k])->dso;

		if (dsotab_kind(d, u) != DSOTAB_KERNEL)
			return u;
	}
	return *dso;
}

/* aggregate_keep_dsos()'s test of one stack. */
struct dso_filter {
	const struct symstacks *ss;
	const struct dsotab *d;
	const char *const *names;
	size_t n;
};

static bool in_dsos(void *arg, const uint32_t *st, uint32_t len)
{
	const struct dso_filter *f = arg;
	uint32_t dso = symstacks_sym(f->ss, st[0])->dso;
	uint32_t user = offcpu_user_leaf(f->ss, f->d, st, len, &dso);

	for (size_t k = 0; k < f->n; k++)
		if (dsotab_matches(f->d, dso, f->names[k]) ||
		    (user != dso && dsotab_matches(f->d, user, f->names[k])))
			return true;
	return false;
}

void aggregate_keep_dsos(struct aggregate *a, const struct symstacks *ss, const struct dsotab *d,
			 const char *const *names, size_t n, struct session_totals *t)
{
	struct dso_filter f = { ss, d, names, n };

	aggregate_keep_rows(a, ss, in_dsos, &f, t);
}

void aggregate_keep_rows(struct aggregate *a, const struct symstacks *ss,
			 bool (*keep)(void *arg, const uint32_t *syms, uint32_t n), void *arg,
			 struct session_totals *t)
{
	size_t w = 0;

	/* The totals, unresolved frames too, are of the rows kept. */
	t->samples = t->period = t->frames = t->frames_unknown = 0;
	for (size_t i = 0; i < a->n_rows; i++) {
		uint32_t len, unknown = 0;
		const uint32_t *st = symstacks_get(ss, a->rows[i].stack, &len);

		if (!keep(arg, st, len))
			continue;
		for (uint32_t k = 0; k < len; k++)
			unknown += !symstacks_sym(ss, st[k])->name;
		a->rows[w++] = a->rows[i];
		t->samples += a->rows[i].count;
		t->period += a->rows[i].period;
		t->frames += a->rows[i].count * len;
		t->frames_unknown += a->rows[i].count * unknown;
	}
	a->n_rows = w;
}

const struct session_row *aggregate_rows(const struct aggregate *a, size_t *ret_n)
{
	*ret_n = a->n_rows;
	return a->rows;
}

size_t aggregate_n_counts(const struct aggregate *a)
{
	return a->n_aggs;
}

void aggregate_count(const struct aggregate *a, size_t i, struct aggregate_count *ret)
{
	const struct agg *g = &a->aggs[i];
	struct agg_key k = agg_key(a, i);
	uint64_t pidtid, comm;

	pairtab_get(a->tasks, k.task, &pidtid, &comm);
	*ret = (struct aggregate_count){ .stack = k.stack,
					 .comm = (uint32_t)comm,
					 .unit = (uint32_t)(comm >> 32),
					 .pid = (int32_t)(pidtid >> 32),
					 .tid = (int32_t)(uint32_t)pidtid,
					 .cpu = k.cpu,
					 .bucket = k.bucket,
					 .count = g->count,
					 .period = g->period };
}
