/* diff.c — pairs the entries of two profiles by the text of their keys. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/intern.h"
#include "profile/diff.h"
#include "profile/session.h"

struct diff {
	struct strtab *names; /* every key text, once: entries point into it */
	struct seqtab *keys;  /* an entry's key as name ids, one per print_key (~0u: unused) */
	struct diff_entry *e;
	size_t n, cap;
};

struct diff *diff_new(void)
{
	struct diff *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->names = strtab_new();
	d->keys = seqtab_new();
	if (!d->names || !d->keys)
		return diff_free(d);
	return d;
}

struct diff *diff_free(struct diff *d)
{
	if (!d)
		return NULL;
	strtab_free(d->names);
	seqtab_free(d->keys);
	free(d->e);
	free(d);
	return NULL;
}

/* The entry of these key texts (NULL: key unused), added with zero weights when new; its
 * index, or -ENOMEM. */
static int64_t diff_entry_of(struct diff *d, const char *const *text)
{
	uint32_t ids[PRINT_N_KEYS];
	int64_t id;

	for (size_t k = 0; k < PRINT_N_KEYS; k++) {
		int64_t t = text[k] ? strtab_intern(d->names, text[k]) : (int64_t)UINT32_MAX;

		if (t < 0)
			return t;
		ids[k] = (uint32_t)t;
	}
	/* Room first: an id in keys always has its entry. */
	if (GROW(d->e, d->cap, d->n + 1) < 0)
		return -ENOMEM;
	id = seqtab_intern(d->keys, ids, PRINT_N_KEYS);
	if (id < 0)
		return id;
	if ((size_t)id == d->n) {
		memset(&d->e[d->n], 0, sizeof(d->e[0]));
		for (size_t k = 0; k < PRINT_N_KEYS; k++)
			d->e[d->n].field[k] = text[k] ? strtab_get(d->names, ids[k]) : NULL;
		d->n++;
	}
	return id;
}

/* Key K of a row whose leaf is SYM, as text in buf (numbers) or the session's own string. */
static const char *key_text(const struct session *s, const struct session_row *r, uint32_t sym,
			    enum print_key k, char *buf, size_t size)
{
	const struct session_sym *ss = session_sym(s, sym);

	switch (k) {
	case PRINT_COMM:
		return session_comm(s, r->comm);
	case PRINT_PID:
		snprintf(buf, size, "%d", (int)r->pid);
		return buf;
	case PRINT_TID:
		snprintf(buf, size, "%d", (int)r->tid);
		return buf;
	case PRINT_CPU:
		snprintf(buf, size, "%u", r->cpu);
		return buf;
	case PRINT_DSO:
		return session_dso_name(s, ss->dso);
	case PRINT_UNIT:
		return session_unit(s, r->unit);
	case PRINT_SRCLINE:
		return ss->srcline ? ss->srcline : "??:0";
	default:
		/* The [k] mark is part of the name: a kernel and a user function never pair. */
		snprintf(buf, size, "[%c] %s", ss->kernel ? 'k' : '.',
			 ss->name ? ss->name : "[unknown]");
		return buf;
	}
}

/* The entry of ROW's frame SYM: its index, or -ENOMEM. */
static int64_t row_entry(struct diff *d, const struct session *s, const struct session_row *row,
			 uint32_t sym, const enum print_key *keys, size_t n_keys)
{
	char bufs[PRINT_N_KEYS][1024];
	const char *text[PRINT_N_KEYS] = { NULL };

	for (size_t k = 0; k < n_keys; k++)
		text[keys[k]] = key_text(s, row, sym, keys[k], bufs[keys[k]], sizeof(bufs[0]));
	return diff_entry_of(d, text);
}

int diff_add_entries(struct diff *d, int side, const struct session *s, const enum print_key *keys,
		     size_t n_keys, bool children)
{
	const struct session_row *rows;
	size_t n_rows, cap_seen = 0;
	int64_t *seen = NULL;
	int rc = 0;

	rows = session_rows(s, &n_rows);
	for (size_t i = 0; i < n_rows && rc == 0; i++) {
		uint32_t n;
		const uint32_t *st = session_stack(s, rows[i].stack, &n);
		size_t n_seen = 0;

		if (children && GROW(seen, cap_seen, n) < 0) {
			rc = -ENOMEM;
			break;
		}
		/* Each entry once per row, however often its function recurs in the stack. */
		for (uint32_t f = 0; f < (children ? n : 1); f++) {
			int64_t id = row_entry(d, s, &rows[i], st[f], keys, n_keys);
			bool dup = false;

			if (id < 0) {
				rc = (int)id;
				break;
			}
			for (size_t j = 0; j < n_seen && !dup; j++)
				dup = seen[j] == id;
			if (dup)
				continue;
			if (children)
				seen[n_seen++] = id;
			d->e[id].w[side] += rows[i].period;
		}
	}
	free(seen);
	return rc;
}

int diff_add_folded(struct diff *d, int side, const struct session *s)
{
	const struct session_row *rows;
	size_t n_rows;

	rows = session_rows(s, &n_rows);
	for (size_t i = 0; i < n_rows; i++) {
		const char *text[PRINT_N_KEYS] = { NULL };
		char *line = print_folded_stack(s, rows[i].comm, rows[i].stack, false);
		int64_t id;

		if (!line)
			return -ENOMEM;
		text[0] = line;
		id = diff_entry_of(d, text);
		free(line);
		if (id < 0)
			return (int)id;
		/* Time weights (--off-cpu, --wall): microseconds, as report --folded. */
		d->e[id].w[side] +=
		    session_totals(s)->time_weighted ? rows[i].period / 1000 : rows[i].count;
	}
	return 0;
}

bool diff_normalize(struct diff *d, uint64_t total[DIFF_SIDES], bool scale)
{
	total[DIFF_BASE] = total[DIFF_NEW] = 0;
	for (size_t i = 0; i < d->n; i++)
		for (int k = 0; k < DIFF_SIDES; k++)
			total[k] += d->e[i].w[k];
	if (!scale || !total[DIFF_BASE] || !total[DIFF_NEW] || total[DIFF_BASE] == total[DIFF_NEW])
		return false;
	/* 128 bits: a day of microseconds times another overflows 64. */
	for (size_t i = 0; i < d->n; i++)
		d->e[i].w[DIFF_BASE] = (uint64_t)((unsigned __int128)d->e[i].w[DIFF_BASE] *
						  total[DIFF_NEW] / total[DIFF_BASE]);
	return true;
}

const struct diff_entry *diff_entries(const struct diff *d, size_t *ret_n)
{
	*ret_n = d->n;
	return d->e;
}

static double sort_total[DIFF_SIDES];

static double entry_delta(const struct diff_entry *e)
{
	double delta = (double)e->w[DIFF_NEW] / sort_total[DIFF_NEW] -
		       (double)e->w[DIFF_BASE] / sort_total[DIFF_BASE];

	return delta < 0 ? -delta : delta;
}

static int cmp_entries(const void *a, const void *b)
{
	const struct diff_entry *x = a, *y = b;
	double dx = entry_delta(x), dy = entry_delta(y);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	for (size_t k = 0; k < PRINT_N_KEYS; k++) {
		int c = strcmp(x->field[k] ? x->field[k] : "", y->field[k] ? y->field[k] : "");

		if (c)
			return c;
	}
	return 0;
}

void diff_sort(struct diff *d, const uint64_t total[DIFF_SIDES])
{
	for (int i = 0; i < DIFF_SIDES; i++)
		sort_total[i] = total[i] ? (double)total[i] : 1.0;
	if (d->n)
		qsort(d->e, d->n, sizeof(*d->e), cmp_entries);
}
