/* json.h — report and diff --json: the header and the flat table as one JSON object. */
#ifndef RP_REPORT_JSON_H
#define RP_REPORT_JSON_H

#include <stddef.h>
#include <stdio.h>

#include "profile/print.h"

/* The "schema" member of report's and diff's objects: raised when a member changes meaning. */
#define JSON_SCHEMA 1

/* The -s spellings of the keys, by enum print_key: the members of each row. */
extern const char *const json_key_names[PRINT_N_KEYS];

struct session;
struct print_opts;

/* S as a JSON string: quoted, escaped, bytes that are not UTF-8 as U+FFFD. */
void json_str(FILE *f, const char *s);

/* The members ringprof-report(1) documents under --json "header", but shares_of, each on a
 * line of its own starting with INDENT, the last without its ",\n": inputs, event, samples,
 * samples_before_filters, period, lost, first_ns, last_ns, time_weighted. */
void json_totals(FILE *f, const struct session *s, const char *const *inputs, size_t n_inputs,
		 const char *indent);

/* The object ringprof-report(1) documents under --json, into f: the inputs, the event and
 * the totals, then the entries of the flat table o describes (o's keys, order and limits).
 * 0 or -ENOMEM. */
int json_write_report(FILE *f, const struct session *s, const struct print_opts *o,
		      const char *const *inputs, size_t n_inputs);

#endif
