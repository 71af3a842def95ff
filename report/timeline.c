/* timeline.c — `ringprof report --timeline` (see timeline.h). */
#include "timeline.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "profile/unit.h"

#define TOP_COMMANDS 4 /* commands (or units) with a column of their own */
#define COL_MAX 24     /* the widest column: longer names are cut */
#define BAR_WIDTH 30
#define SEC 1000000000ull

bool timeline_span(const char *const *paths, size_t n_paths, const struct session_filter *f,
		   int64_t *ret_start, int64_t *ret_end)
{
	int64_t start = INT64_MAX, end = INT64_MIN;

	for (size_t i = 0; i < n_paths; i++) {
		int64_t a, b;
		char why[256];

		if (session_file_bounds(paths[i], &a, &b, why, sizeof(why)) < 0)
			continue;
		start = a < start ? a : start;
		end = b > end ? b : end;
	}
	if (f->have_since && f->since > start)
		start = f->since;
	if (f->have_until && f->until < end)
		end = f->until;
	*ret_start = start;
	*ret_end = end;
	return start < end && start >= 0;
}

void timeline_axis(const char *const *paths, size_t n_paths, const struct session_filter *f,
		   uint32_t max, struct timeline_axis *ret)
{
	static const uint64_t widths[] = {
		1000000,     2000000,	  5000000,	   10000000,	20000000,
		50000000,    100000000,	  200000000,	   500000000,	SEC,
		2 * SEC,     5 * SEC,	  10 * SEC,	   15 * SEC,	30 * SEC,
		60 * SEC,    120 * SEC,	  300 * SEC,	   600 * SEC,	900 * SEC,
		1800 * SEC,  3600 * SEC,  7200 * SEC,	   10800 * SEC, 21600 * SEC,
		43200 * SEC, 86400 * SEC, 7 * 86400 * SEC,
	};
	int64_t start, end;
	uint64_t w = widths[0];

	*ret = (struct timeline_axis){ 0, 0, 1 };
	if (!max || !timeline_span(paths, n_paths, f, &start, &end))
		return;
	for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
		w = widths[i];
		if ((uint64_t)(end - start / (int64_t)w * (int64_t)w) / w + 1 <= max)
			break;
	}
	ret->ns = w;
	/* Whole days and hours from local midnight would need the zone; UTC multiples read
	 * well for every width up to an hour, and for the zones a whole number of hours off. */
	ret->origin = start / (int64_t)w * (int64_t)w;
	ret->n = (uint32_t)((uint64_t)(end - ret->origin) / w + 1);
}

/* A bucket's start as local time: HH:MM:SS, with .mmm for buckets under a second, and the
 * date when the span crosses days. */
static const char *when(int64_t ns, const struct timeline_axis *ax, bool dates, char *buf,
			size_t size)
{
	time_t sec = (time_t)(ns / (int64_t)SEC);
	struct tm tm;
	size_t n;

	localtime_r(&sec, &tm);
	n = strftime(buf, size, dates ? "%Y-%m-%d %H:%M:%S" : "%H:%M:%S", &tm);
	if (ax->ns < SEC && n < size)
		snprintf(buf + n, size - n, ".%03d", (int)(ns % (int64_t)SEC / 1000000));
	return buf;
}

struct tl_counts {
	uint64_t *cell; /* n buckets x (TOP_COMMANDS + 1) */
	uint64_t *total;
	bool by_unit; /* the columns are units, not commands */
	uint32_t top[TOP_COMMANDS];
	size_t n_top;
};

/* A row's column key: its unit or its command. */
static uint32_t group_of(const struct tl_counts *c, const struct session_row *r)
{
	return c->by_unit ? r->unit : r->comm;
}

static const char *group_name(const struct session *s, const struct tl_counts *c, uint32_t g)
{
	return c->by_unit ? session_unit(s, g) : session_comm(s, g);
}

/* TIMELINE_AUTO: units when the samples fall in two of them or more that are known (a
 * system-wide or ringprofd recording), else commands. */
static bool pick_by_unit(const struct session *s, enum timeline_by by)
{
	size_t n_rows;
	const struct session_row *rows = session_rows(s, &n_rows);
	uint32_t first = UINT32_MAX;

	if (by != TIMELINE_AUTO)
		return by == TIMELINE_UNIT;
	for (size_t i = 0; i < n_rows; i++) {
		if (strcmp(session_unit(s, rows[i].unit), UNIT_UNKNOWN) == 0)
			continue;
		if (first == UINT32_MAX)
			first = rows[i].unit;
		else if (rows[i].unit != first)
			return true;
	}
	return false;
}

/* The commands (or units) with the most samples, into c->top. */
static int pick_top(const struct session *s, struct tl_counts *c)
{
	size_t n_rows, n_groups = 0;
	const struct session_row *rows = session_rows(s, &n_rows);
	uint64_t *by_group;

	for (size_t i = 0; i < n_rows; i++)
		if (group_of(c, &rows[i]) + 1u > n_groups)
			n_groups = group_of(c, &rows[i]) + 1u;
	if (!(by_group = calloc(n_groups ? n_groups : 1, sizeof(*by_group))))
		return -ENOMEM;
	for (size_t i = 0; i < n_rows; i++)
		by_group[group_of(c, &rows[i])] += rows[i].count;
	for (c->n_top = 0; c->n_top < TOP_COMMANDS; c->n_top++) {
		size_t best = SIZE_MAX;

		for (size_t k = 0; k < n_groups; k++)
			if (by_group[k] && (best == SIZE_MAX || by_group[k] > by_group[best]))
				best = k;
		if (best == SIZE_MAX)
			break;
		c->top[c->n_top] = (uint32_t)best;
		by_group[best] = 0;
	}
	free(by_group);
	return 0;
}

/* Samples per bucket, and per bucket and top command (the last column: the others). */
static int count(const struct session *s, const struct timeline_axis *ax, struct tl_counts *c)
{
	size_t n_rows, cols = TOP_COMMANDS + 1;
	const struct session_row *rows = session_rows(s, &n_rows);

	c->cell = calloc((size_t)ax->n * cols, sizeof(*c->cell));
	c->total = calloc(ax->n, sizeof(*c->total));
	if (!c->cell || !c->total || pick_top(s, c) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < n_rows; i++) {
		uint32_t b = rows[i].bucket < ax->n ? rows[i].bucket : ax->n - 1;
		size_t col = TOP_COMMANDS;

		for (size_t k = 0; k < c->n_top; k++)
			if (c->top[k] == group_of(c, &rows[i]))
				col = k;
		c->cell[(size_t)b * cols + col] += rows[i].count;
		c->total[b] += rows[i].count;
	}
	return 0;
}

/* The column heads: Time, Samples, each top command or unit (12 to COL_MAX wide, the
 * widths into W), other. */
static void print_heads(FILE *f, const struct session *s, const struct tl_counts *c, int tw,
			int w[TOP_COMMANDS])
{
	fprintf(f, "# %*s %9s", tw - 2, "Time", "Samples");
	for (size_t k = 0; k < c->n_top; k++) {
		const char *name = group_name(s, c, c->top[k]);
		size_t len = strlen(name);

		w[k] = len < 12 ? 12 : len > COL_MAX ? COL_MAX : (int)len;
		fprintf(f, " %*.*s", w[k], w[k], name);
	}
	fprintf(f, " %12s\n", "(others)");
}

int timeline_print(FILE *f, const struct session *s, const struct timeline_axis *ax,
		   enum timeline_by by)
{
	struct tl_counts c = { .by_unit = pick_by_unit(s, by) };
	int w[TOP_COMMANDS];
	size_t cols = TOP_COMMANDS + 1;
	uint64_t max = 0;
	bool dates = ax->ns && (uint64_t)ax->n * ax->ns > 86400 * SEC;
	char t0[48], t1[48];
	int tw = dates ? 19 : ax->ns < SEC ? 12 : 8;

	if (count(s, ax, &c) < 0) {
		free(c.cell);
		free(c.total);
		return -ENOMEM;
	}
	for (uint32_t b = 0; b < ax->n; b++)
		max = c.total[b] > max ? c.total[b] : max;
	fprintf(f,
		"# Timeline: %u bucket%s of %.3g s from %s to %s (local time), samples per bucket "
		"by %s\n#\n",
		ax->n, ax->n == 1 ? "" : "s", (double)ax->ns / SEC,
		when(ax->origin, ax, true, t0, sizeof(t0)),
		when(ax->origin + (int64_t)(ax->ns * ax->n), ax, true, t1, sizeof(t1)),
		c.by_unit ? "unit" : "command");
	print_heads(f, s, &c, tw, w);
	for (uint32_t b = 0; b < ax->n; b++) {
		int bar = max ? (int)((c.total[b] * BAR_WIDTH + max - 1) / max) : 0;

		fprintf(f, "%*s %9" PRIu64, tw,
			when(ax->origin + (int64_t)(ax->ns * b), ax, dates, t0, sizeof(t0)),
			c.total[b]);
		for (size_t k = 0; k < c.n_top; k++)
			fprintf(f, " %*" PRIu64, w[k], c.cell[b * cols + k]);
		fprintf(f, " %12" PRIu64 "  %.*s\n", c.cell[b * cols + TOP_COMMANDS], bar,
			"##############################");
	}
	free(c.cell);
	free(c.total);
	return 0;
}
