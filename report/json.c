/* json.c — report and diff --json: the header and the flat table as one JSON object. */
#include "json.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "format/format.h"
#include "profile/print.h"
#include "profile/session.h"

/* The length of the UTF-8 sequence at p (1-4), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *p)
{
	size_t n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;

	if (p[0] >= 0xf5)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

void json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	while (*p) {
		size_t n;

		if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p++);
		} else if (*p < 0x20 || *p == 0x7f) {
			fprintf(f, "\\u%04x", *p++);
		} else if (*p < 0x80) {
			fputc(*p++, f);
		} else if ((n = utf8_len(p)) > 0) {
			fwrite(p, 1, n, f);
			p += n;
		} else {
			fputs("\\ufffd", f);
			p++;
		}
	}
	fputc('"', f);
}

/* The -s spellings of the keys, by enum print_key: the members of each row. */
const char *const json_key_names[PRINT_N_KEYS] = { "comm", "pid", "tid",  "dso",
						   "sym",  "cpu", "unit", "srcline" };

struct json_rows {
	FILE *f;
	const struct session *s;
	const struct print_opts *o;
	size_t n;
};

static void json_row(void *arg, const struct print_entry *e, double total)
{
	struct json_rows *j = arg;
	FILE *f = j->f;

	fprintf(f,
		"%s\n    {\"self\": %.4f, \"self_period\": %" PRIu64 ", \"self_samples\": %" PRIu64,
		j->n++ ? "," : "", 100.0 * (double)e->self / total, e->self, e->n_self);
	if (j->o->children)
		fprintf(f,
			", \"children\": %.4f, \"children_period\": %" PRIu64
			", \"children_samples\": %" PRIu64,
			100.0 * (double)e->children / total, e->children, e->n_children);
	for (size_t k = 0; k < j->o->n_keys; k++) {
		enum print_key key = j->o->keys[k];
		const char *text = print_key_text(j->s, key, e->key[key]);

		fprintf(f, ", \"%s\": ", json_key_names[key]);
		if (text)
			json_str(f, text);
		else
			fprintf(f, "%d", (int)e->key[key]);
		if (key == PRINT_SYM)
			fprintf(f, ", \"kernel\": %s",
				session_sym(j->s, e->key[key])->kernel ? "true" : "false");
	}
	fputc('}', f);
}

void json_totals(FILE *f, const struct session *s, const char *const *inputs, size_t n_inputs,
		 const char *indent)
{
	const struct session_totals *t = session_totals(s);
	const struct rp_event_desc *ev = session_selected_event(s);
	const struct rp_header_rec *h = session_header(s);
	char name[sizeof(h->event_name) + 1];

	fprintf(f, "%s\"inputs\": [", indent);
	for (size_t i = 0; i < n_inputs; i++) {
		fputs(i ? ", " : "", f);
		json_str(f, inputs[i]);
	}
	fprintf(f, "],\n%s\"event\": ", indent);
	if (ev || h) {
		snprintf(name, sizeof(name), "%s", ev ? ev->name : h->event_name);
		json_str(f, name);
	} else {
		fputs("null", f);
	}
	fprintf(f,
		",\n%s\"samples\": %" PRIu64 ",\n%s\"samples_before_filters\": %" PRIu64
		",\n%s\"period\": %" PRIu64 ",\n%s\"lost\": %" PRIu64 ",\n%s\"first_ns\": %" PRIu64
		",\n%s\"last_ns\": %" PRIu64 ",\n%s\"time_weighted\": %s",
		indent, t->samples, indent, t->samples_seen, indent, t->period, indent, t->lost,
		indent, t->t_first, indent, t->t_last, indent, t->time_weighted ? "true" : "false");
}

/* "header": what was read and what the shares are of. */
static void json_header(FILE *f, const struct session *s, const struct print_opts *o,
			const char *const *inputs, size_t n_inputs)
{
	const struct session_totals *t = session_totals(s);

	fputs("  \"header\": {\n", f);
	json_totals(f, s, inputs, n_inputs, "    ");
	fprintf(f, ",\n    \"shares_of\": %" PRIu64 "\n  },\n",
		o->absolute ? t->period_window : t->period);
}

int json_write_report(FILE *f, const struct session *s, const struct print_opts *o,
		      const char *const *inputs, size_t n_inputs)
{
	struct json_rows j = { f, s, o, 0 };
	int rc;

	fprintf(f, "{\n  \"ringprof\": \"report\",\n  \"schema\": %d,\n", JSON_SCHEMA);
	json_header(f, s, o, inputs, n_inputs);
	fputs("  \"keys\": [", f);
	for (size_t k = 0; k < o->n_keys; k++)
		fprintf(f, "%s\"%s\"", k ? ", " : "", json_key_names[o->keys[k]]);
	fprintf(f, "],\n  \"children\": %s,\n  \"rows\": [", o->children ? "true" : "false");
	rc = print_each_entry(s, o, json_row, &j);
	fputs(j.n ? "\n  ]\n}\n" : "]\n}\n", f);
	return rc;
}
