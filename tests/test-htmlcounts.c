/* test-htmlcounts.c — report/html-counts.h: the range selection's step (its edges at multiples
 * of its width, the narrowest on the 1, 2, 5 ladder within the budget of counts), and the
 * columns written: the timeline's series at every bucket, the counts merged per step. The
 * columns are captured here where html-out.c would pack them into the page. */
#include <stdlib.h>
#include <string.h>

#include "../report/html-counts.h"
#include "../report/html.h"
#include "check.h"

/* ---- the columns, captured ---- */

#define MAX_COLS 16
#define MAX_VALUES 4096
static struct {
	char name[32];
	size_t n;
	int64_t v[MAX_VALUES];
} cols[MAX_COLS];
static size_t n_cols;

void html_col_begin(struct html_col *c, const char *name, char kind)
{
	*c = (struct html_col){ name, kind, 0, (long)n_cols };
	if (n_cols < MAX_COLS) {
		snprintf(cols[n_cols].name, sizeof(cols[n_cols].name), "%s", name);
		cols[n_cols].n = 0;
	}
	n_cols++;
}

void html_col_put(struct html_col *c, int64_t v)
{
	size_t at = (size_t)c->start;

	if (at < MAX_COLS && cols[at].n < MAX_VALUES)
		cols[at].v[cols[at].n++] = v;
	c->n++;
}

void html_col_end(FILE *f, const struct html_col *c)
{
	(void)f;
	(void)c;
}

static const int64_t *col(const char *name, size_t *n)
{
	for (size_t i = 0; i < n_cols && i < MAX_COLS; i++)
		if (strcmp(cols[i].name, name) == 0) {
			*n = cols[i].n;
			return cols[i].v;
		}
	*n = 0;
	return NULL;
}

/* ---- the step ---- */

static void step_edges(void)
{
	/* 10-s buckets from 1 000 010 s: steps of 50 s start at 1 000 000 s, one bucket before. */
	struct html_timeline tl = { 10000000000ull, 1000010000000000ll, 360, 0 };
	struct html_step st;

	test_ctx = "step edges";
	st = html_step_of(&tl, 1);
	CHECK(st.factor == 1 && st.shift == 0, "one bucket: %u %u", st.factor, st.shift);
	st = html_step_of(&tl, 5);
	CHECK(st.factor == 5 && st.shift == 1, "50 s: factor %u shift %u", st.factor, st.shift);
	st = html_step_of(&tl, 2);
	CHECK(st.factor == 2 && st.shift == 1, "20 s: factor %u shift %u", st.factor, st.shift);
	tl.origin = 1000000000000000ll;
	st = html_step_of(&tl, 5);
	CHECK(st.factor == 5 && st.shift == 0, "aligned: shift %u", st.shift);
	tl.ns = 0; /* no wall-clock time known: one bucket, one step */
	st = html_step_of(&tl, 5);
	CHECK(st.factor == 1 && st.shift == 0, "no time: %u %u", st.factor, st.shift);
}

/* N stacks, each in every bucket of B (one sample each). */
static size_t fill(struct html_count *c, uint32_t stacks, uint32_t buckets)
{
	size_t n = 0;

	for (uint32_t s = 0; s < stacks; s++)
		for (uint32_t b = 0; b < buckets; b++)
			c[n++] = (struct html_count){ b, s, s % 3, 0, 1, 1000 };
	return n;
}

static void step_choice(void)
{
	static struct html_count c[4000];
	struct html_timeline tl = { 1000000000ull, 1000000000000ll, 100, 0 };
	size_t n = fill(c, 40, 100); /* 4000 counts */
	struct html_step st;

	test_ctx = "step choice";
	CHECK_INT(html_step_choose(c, n, &tl, 0).factor, 1);	/* no budget */
	CHECK_INT(html_step_choose(c, n, &tl, 4000).factor, 1); /* within it */
	CHECK_INT(html_step_choose(c, n, &tl, 2000).factor, 2); /* 40 x 50 */
	CHECK_INT(html_step_choose(c, n, &tl, 1999).factor, 5); /* 40 x 20 */
	CHECK_INT(html_step_choose(c, n, &tl, 400).factor, 10);
	CHECK_INT(html_step_choose(c, n, &tl, 200).factor, 20);
	CHECK_INT(html_step_choose(c, n, &tl, 80).factor, 50);	   /* 40 x 2 */
	st = html_step_choose(c, n, &tl, 1);			   /* not even one a stack: */
	CHECK(st.factor >= 100, "the widest step: %u", st.factor); /* one step for all */
}

/* ---- the columns ---- */

static void columns(void)
{
	/* 10-s buckets from 1 000 010 s (steps of 20 s from 1 000 000 s: bucket b in step
	 * (b + 1) / 2). Stack 0 of command 0, stack 1 of command 1, unit 0. */
	struct html_timeline tl = { 10000000000ull, 1000010000000000ll, 4, 0 };
	struct html_count c[] = {
		{ 0, 0, 0, 0, 2, 2000 }, { 1, 0, 0, 0, 1, 1000 }, { 2, 0, 0, 0, 3, 3000 },
		{ 1, 1, 1, 0, 1, 1000 }, { 3, 1, 1, 0, 4, 4000 }, { 3, 0, 0, 0, 1, 1000 },
	};
	const int64_t *v;
	size_t n;
	uint64_t total = 0;
	FILE *null = fopen("/dev/null", "w");

	test_ctx = "columns";
	n_cols = 0;
	if (!CHECK(null != NULL))
		return;
	CHECK_INT(html_counts_write(null, c, 6, &tl, 5), 0);
	fclose(null);
	/* The timeline: (bucket, command) 0/0 2, 1/0 1, 1/1 1, 2/0 3, 3/0 1, 3/1 4. */
	v = col("tl_bucket", &n);
	CHECK(n == 6 && v[0] == 0 && v[1] == 1 && v[2] == 0 && v[3] == 1 && v[4] == 1 && v[5] == 0,
	      "tl_bucket: %zu", n);
	v = col("tl_comm", &n);
	CHECK(n == 6 && v[0] == 0 && v[1] == 0 && v[2] == 1 && v[3] == 0 && v[4] == 0 && v[5] == 1,
	      "tl_comm");
	v = col("tl_samples", &n);
	CHECK(n == 6 && v[0] == 2 && v[1] == 1 && v[2] == 1 && v[3] == 3 && v[4] == 1 && v[5] == 4,
	      "tl_samples");
	/* 6 counts over a budget of 5: steps of 2 buckets. Step 0: stack 0 (bucket 0) 2; step 1:
	 * stack 0 (buckets 1, 2) 4, stack 1 (bucket 1) 1; step 2: stack 0 1, stack 1 4. */
	v = col("count_bucket", &n);
	CHECK(n == 5 && v[0] == 0 && v[1] == 1 && v[2] == 0 && v[3] == 1 && v[4] == 0,
	      "count_bucket: %zu", n);
	v = col("count_stack", &n); /* stacks as distances within a step */
	CHECK(n == 5 && v[0] == 0 && v[1] == 0 && v[2] == 1 && v[3] == 0 && v[4] == 1,
	      "count_stack");
	v = col("count_samples", &n);
	CHECK(n == 5 && v[0] == 2 && v[1] == 4 && v[2] == 1 && v[3] == 1 && v[4] == 4,
	      "count_samples");
	for (size_t i = 0; i < n; i++)
		total += (uint64_t)v[i];
	CHECK_INT(total, 12);
	v = col("count_weight", &n); /* less samples times the mean weight, 1000 */
	CHECK(n == 5 && v[0] == 0 && v[4] == 0, "count_weight");
}

int main(void)
{
	step_edges();
	step_choice();
	columns();
	return check_done("test-htmlcounts");
}
