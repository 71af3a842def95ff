/* json.h — report --json: the header and the flat table as one JSON object. */
#ifndef RP_REPORT_JSON_H
#define RP_REPORT_JSON_H

#include <stddef.h>
#include <stdio.h>

struct session;
struct print_opts;

/* S as a JSON string: quoted, escaped, bytes that are not UTF-8 as U+FFFD. */
void json_str(FILE *f, const char *s);

/* The object ringprof-report(1) documents under --json, into f: the inputs, the event and
 * the totals, then the entries of the flat table o describes (o's keys, order and limits).
 * 0 or -ENOMEM. */
int json_write_report(FILE *f, const struct session *s, const struct print_opts *o,
		      const char *const *inputs, size_t n_inputs);

#endif
