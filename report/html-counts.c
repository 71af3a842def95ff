/* html-counts.c — the page's samples over time (html-counts.h): the timeline drawn at every
 * bucket, the stacks' counts per step, a step as narrow as the budget of counts allows. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "html-counts.h"
#include "html.h"

struct html_step html_step_of(const struct html_timeline *tl, uint32_t factor)
{
	struct html_step st = { factor ? factor : 1, 0 };
	uint64_t width = tl->ns * st.factor;
	int64_t edge;

	if (!tl->ns || st.factor == 1 || width / st.factor != tl->ns || width > INT64_MAX)
		return (struct html_step){ 1, 0 };
	/* The step's edge at or before the origin (a multiple of the bucket width, as is every
	 * multiple of the step's): the buckets between the two, in bucket widths. */
	edge = tl->origin / (int64_t)width * (int64_t)width;
	if (edge > tl->origin)
		edge -= (int64_t)width;
	st.shift = (uint32_t)((uint64_t)(tl->origin - edge) / tl->ns);
	return st;
}

static inline uint32_t step_at(struct html_step st, uint32_t bucket)
{
	return (uint32_t)(((uint64_t)bucket + st.shift) / st.factor);
}

static int cmp_stack_unit_bucket(const void *a, const void *b)
{
	const struct html_count *x = a, *y = b;

	if (x->stack != y->stack)
		return x->stack < y->stack ? -1 : 1;
	if (x->unit != y->unit)
		return x->unit < y->unit ? -1 : 1;
	return x->bucket < y->bucket ? -1 : x->bucket > y->bucket;
}

/* The next factor on the 1, 2, 5 ladder after F. */
static uint32_t next_factor(uint32_t f)
{
	uint32_t p = 1;

	while (f >= p * 10)
		p *= 10;
	return f == p ? 2 * p : f == 2 * p ? 5 * p : 10 * p;
}

struct html_step html_step_choose(struct html_count *c, size_t n, const struct html_timeline *tl,
				  uint64_t max)
{
	uint32_t last = 0;
	struct html_step st = { 1, 0 };

	if (!max || n <= max || !tl->ns || tl->n <= 1)
		return st;
	qsort(c, n, sizeof(*c), cmp_stack_unit_bucket);
	for (size_t i = 0; i < n; i++)
		last = c[i].bucket > last ? c[i].bucket : last;
	for (uint32_t f = 2;; f = next_factor(f)) {
		size_t kept = 0;

		st = html_step_of(tl, f);
		if (st.factor == 1 || step_at(st, last) == 0 || f > UINT32_MAX / 10)
			return st; /* one step for all (or the widest there is) */
		for (size_t i = 0; i < n && kept <= max; i++)
			kept += i == 0 || c[i].stack != c[i - 1].stack ||
				c[i].unit != c[i - 1].unit ||
				step_at(st, c[i].bucket) != step_at(st, c[i - 1].bucket);
		if (kept <= max)
			return st;
	}
}

static int cmp_bucket_comm_unit(const void *a, const void *b)
{
	const struct html_count *x = a, *y = b;

	if (x->bucket != y->bucket)
		return x->bucket < y->bucket ? -1 : 1;
	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	return x->unit < y->unit ? -1 : x->unit > y->unit;
}

static int cmp_bucket_stack_unit(const void *a, const void *b)
{
	const struct html_count *x = a, *y = b;

	if (x->bucket != y->bucket)
		return x->bucket < y->bucket ? -1 : 1;
	if (x->stack != y->stack)
		return x->stack < y->stack ? -1 : 1;
	return x->unit < y->unit ? -1 : x->unit > y->unit;
}

/* C[0..N) (sorted) with the runs that SAME calls equal summed into their first: the new N. */
static size_t merge_runs(struct html_count *c, size_t n,
			 bool (*same)(const struct html_count *, const struct html_count *))
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (k && same(&c[k - 1], &c[i])) {
			c[k - 1].samples += c[i].samples;
			c[k - 1].weight += c[i].weight;
		} else
			c[k++] = c[i];
	}
	return k;
}

static bool same_series(const struct html_count *x, const struct html_count *y)
{
	return x->bucket == y->bucket && x->comm == y->comm && x->unit == y->unit;
}

static bool same_count(const struct html_count *x, const struct html_count *y)
{
	return x->bucket == y->bucket && x->stack == y->stack && x->unit == y->unit;
}

/* Columns PREFIX_bucket (the distance from the previous one's), PREFIX_KEY (KEY, or with
 * KEY_DELTA its distance from the previous one's of the same bucket), PREFIX_unit,
 * PREFIX_samples and PREFIX_weight (less samples times UNIT) of C[0..N). */
static void write_rows(FILE *f, const struct html_count *c, size_t n, const char *prefix,
		       bool by_stack, uint64_t unit)
{
	char name[4][32];
	const char *key = by_stack ? "stack" : "comm";

	snprintf(name[0], sizeof(name[0]), "%s_bucket", prefix);
	snprintf(name[1], sizeof(name[1]), "%s_%s", prefix, key);
	snprintf(name[2], sizeof(name[2]), "%s_unit", prefix);
	snprintf(name[3], sizeof(name[3]), "%s_samples", prefix);
	WRITE_COLUMN(f, name[0], 'u', n, c[k].bucket - (k ? c[k - 1].bucket : 0));
	WRITE_COLUMN(f, name[1], 'u', n,
		     !by_stack				   ? c[k].comm
		     : k && c[k].bucket == c[k - 1].bucket ? c[k].stack - c[k - 1].stack
							   : c[k].stack);
	WRITE_COLUMN(f, name[2], 'u', n, c[k].unit);
	WRITE_COLUMN(f, name[3], 'U', n, c[k].samples);
	snprintf(name[0], sizeof(name[0]), "%s_weight", prefix);
	WRITE_COLUMN(f, name[0], 'S', n, (int64_t)(c[k].weight - c[k].samples * unit));
}

int html_counts_write(FILE *f, struct html_count *c, size_t n, const struct html_timeline *tl,
		      uint64_t max)
{
	uint64_t samples = 0, weight = 0, unit;
	struct html_count *series = malloc((n ? n : 1) * sizeof(*series));
	struct html_step st;
	size_t m;

	if (!series)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		samples += c[i].samples;
		weight += c[i].weight;
		series[i] = c[i];
	}
	unit = samples ? (weight + samples / 2) / samples : 1;
	fprintf(f, "\"weight_unit\":%" PRIu64, unit);
	/* The timeline: every bucket, by command and unit. */
	qsort(series, n, sizeof(*series), cmp_bucket_comm_unit);
	m = merge_runs(series, n, same_series);
	write_rows(f, series, m, "tl", false, unit);
	free(series);
	/* The stacks: per step. */
	st = html_step_choose(c, n, tl, max);
	fprintf(f, ",\n\"range_step\":%" PRIu32 ",\"range_shift\":%" PRIu32, st.factor, st.shift);
	for (size_t i = 0; i < n; i++)
		c[i].bucket = step_at(st, c[i].bucket);
	qsort(c, n, sizeof(*c), cmp_bucket_stack_unit);
	m = merge_runs(c, n, same_count);
	write_rows(f, c, m, "count", true, unit);
	return 0;
}
