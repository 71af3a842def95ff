/* speedscope.c — report --speedscope FILE: the profile in speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json), which speedscope opens. */
#include "speedscope.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/grow.h"
#include "format/format.h"
#include "json.h"
#include "profile/session.h"

#define NO_FRAME UINT32_MAX

/* The frames written so far: a session symbol -> its index in "shared.frames". */
struct frames {
	uint32_t *index; /* by session_sym() id; NO_FRAME: not yet */
	size_t cap;
	uint32_t n;
};

/* One command's weight, to write the busiest profile first. */
struct comm_weight {
	uint32_t comm;
	uint64_t period;
};

static int by_period(const void *a, const void *b)
{
	const struct comm_weight *x = a, *y = b;

	if (x->period != y->period)
		return x->period < y->period ? 1 : -1;
	return x->comm < y->comm ? -1 : x->comm > y->comm;
}

/* Number every symbol on a stack, in the order met, and write "shared". 0 or -ENOMEM. */
static int write_frames(FILE *f, const struct session *s, struct frames *fr)
{
	size_t n_rows;
	const struct session_row *rows = session_rows(s, &n_rows);

	fputs("{\n  \"$schema\": \"https://www.speedscope.app/file-format-schema.json\",\n"
	      "  \"shared\": {\"frames\": [",
	      f);
	for (size_t i = 0; i < n_rows; i++) {
		uint32_t n;
		const uint32_t *st = session_stack(s, rows[i].stack, &n);

		for (uint32_t k = 0; k < n; k++) {
			const struct session_sym *y = session_sym(s, st[k]);
			size_t old = fr->cap;

			if (st[k] >= fr->cap && GROW(fr->index, fr->cap, (size_t)st[k] + 1) < 0)
				return -ENOMEM;
			for (size_t j = old; j < fr->cap; j++)
				fr->index[j] = NO_FRAME;
			if (fr->index[st[k]] != NO_FRAME)
				continue;
			fr->index[st[k]] = fr->n;
			fputs(fr->n++ ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
			json_str(f, y->name ? y->name : y->label ? y->label : "[unknown]");
			fputs(", \"file\": ", f);
			json_str(f, session_dso_name(s, y->dso));
			fputc('}', f);
		}
	}
	fputs("\n  ]},\n", f);
	return 0;
}

/* One command's profile: its rows' stacks, root first, and their periods. */
static void write_profile(FILE *f, const struct session *s, const struct frames *fr,
			  const struct comm_weight *c, const char *unit)
{
	size_t n_rows, n = 0;
	const struct session_row *rows = session_rows(s, &n_rows);

	fputs("    {\"type\": \"sampled\", \"name\": ", f);
	json_str(f, session_comm(s, c->comm));
	fprintf(f, ", \"unit\": \"%s\", \"startValue\": 0, \"endValue\": %" PRIu64 ",\n", unit,
		c->period);
	fputs("     \"samples\": [", f);
	for (size_t i = 0; i < n_rows; i++) {
		uint32_t k;
		const uint32_t *st = session_stack(s, rows[i].stack, &k);

		if (rows[i].comm != c->comm || !rows[i].period)
			continue;
		fputs(n++ ? ", [" : "[", f);
		while (k-- > 0)
			fprintf(f, "%" PRIu32 "%s", fr->index[st[k]], k ? "," : "");
		fputc(']', f);
	}
	fputs("],\n     \"weights\": [", f);
	n = 0;
	for (size_t i = 0; i < n_rows; i++)
		if (rows[i].comm == c->comm && rows[i].period)
			fprintf(f, "%s%" PRIu64, n++ ? ", " : "", rows[i].period);
	fputs("]}", f);
}

/* The commands with samples, the busiest first, into *ret (malloc'd). -ENOMEM or how many. */
static ssize_t comm_weights(const struct session *s, struct comm_weight **ret)
{
	size_t n_rows, n = 0, cap = 0;
	const struct session_row *rows = session_rows(s, &n_rows);
	struct comm_weight *c = NULL;

	for (size_t i = 0; i < n_rows; i++) {
		size_t j = 0;

		while (j < n && c[j].comm != rows[i].comm)
			j++;
		if (j == n) {
			if (GROW(c, cap, n + 1) < 0) {
				free(c);
				return -ENOMEM;
			}
			c[n++] = (struct comm_weight){ rows[i].comm, 0 };
		}
		c[j].period += rows[i].period;
	}
	if (n)
		qsort(c, n, sizeof(*c), by_period);
	*ret = c;
	return (ssize_t)n;
}

/* "nanoseconds" where a period is time (cpu-clock, task-clock, --off-cpu, --wall), else
 * "none" (cycles, instructions, tracepoint hits). */
static const char *value_unit(const struct session *s)
{
	const struct rp_event_desc *ev = session_selected_event(s);
	const struct rp_header_rec *h = session_header(s);
	const char *name = ev ? ev->name : h ? h->event_name : "";

	if (session_totals(s)->time_weighted)
		return "nanoseconds";
	return strncmp(name, "cpu-clock", 9) == 0 || strncmp(name, "task-clock", 10) == 0
		   ? "nanoseconds"
		   : "none";
}

static int write_all(FILE *f, const struct session *s)
{
	struct frames fr = { NULL, 0, 0 };
	struct comm_weight *c = NULL;
	ssize_t n = comm_weights(s, &c);
	int rc = n < 0 ? (int)n : write_frames(f, s, &fr);

	if (rc == 0) {
		fputs("  \"profiles\": [\n", f);
		for (ssize_t i = 0; i < n; i++) {
			write_profile(f, s, &fr, &c[i], value_unit(s));
			fputs(i + 1 < n ? ",\n" : "\n", f);
		}
		fprintf(f,
			"  ],\n  \"name\": \"ringprof\",\n  \"activeProfileIndex\": 0,\n"
			"  \"exporter\": \"ringprof %s\"\n}\n",
			PACKAGE_VERSION);
	}
	free(fr.index);
	free(c);
	return rc;
}

int speedscope_write(const struct session *s, const char *path, char *why, size_t why_size)
{
	FILE *f = fopen(path, "w");
	int rc;

	if (!f) {
		rc = -errno;
		snprintf(why, why_size, "cannot create %s: %s", path, strerror(-rc));
		return rc;
	}
	rc = write_all(f, s);
	if (rc < 0)
		snprintf(why, why_size, "out of memory");
	else if (ferror(f))
		rc = -EIO;
	if (rc == -EIO)
		snprintf(why, why_size, "writing %s failed", path);
	if (fclose(f) != 0 && rc == 0) {
		rc = -errno;
		snprintf(why, why_size, "writing %s: %s", path, strerror(-rc));
	}
	if (rc < 0)
		unlink(path);
	return rc;
}
