/* print.h — text output of a session: header, flat table with call-graph trees, folded stacks. */
#ifndef RP_PRINT_H
#define RP_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct session;

enum print_key {
	PRINT_COMM,
	PRINT_PID,
	PRINT_TID,
	PRINT_DSO,
	PRINT_SYM,
	PRINT_CPU,
	PRINT_UNIT,    /* the thread's systemd unit or container (profile/unit.h) */
	PRINT_SRCLINE, /* FILE:LINE of the frame (session_opts.srcline), perf's srcline */
	PRINT_N_KEYS
};

enum print_graph {
	PRINT_GRAPH_NONE,
	PRINT_GRAPH_CALLER, /* under each entry: what it calls, down to the leaves */
	PRINT_GRAPH_CALLEE, /* under each entry: who calls it, up to the outermost caller */
};

struct print_opts {
	enum print_key keys[PRINT_N_KEYS];
	size_t n_keys;
	bool children;	      /* Children column: time in the entry and everything it calls */
	bool show_samples;    /* Samples column */
	double percent_limit; /* hide entries below this share (of the sort column) */
	enum print_graph graph;
	double graph_threshold; /* hide call-graph branches below this share of all samples */
	bool absolute;		/* shares of every sample in the time window, not of those kept */
	bool no_titles;		/* no "# Self ..." title line (perf's report -q) */
	bool srcline;		/* frames in trees and --folded end in " FILE:LINE" */
	const char *symbol_filter; /* perf's --symbol-filter: only entries whose symbol contains
				    * it are shown (shares unchanged); NULL: all */
	char field_sep; /* perf's -t: the columns joined by it, not padded, and the character
			 * in names turned into '.'; '\0': padded columns */
};

/* "comm,dso,sym" and the like (perf's "symbol" is sym); 0 or -EINVAL (unknown or repeated
 * key). */
#define PRINT_SORT_KEYS "comm,pid,tid,dso,sym,cpu,unit,srcline"
/* The title of key K's column, as perf's ("Source:Line" for srcline). */
const char *print_key_title(enum print_key k);
/* -t: TEXT into F with each SEP in it written as '.', so that SEP only separates columns. */
void print_field_sep(FILE *f, char sep, const char *text);
/* perf's -t ARG: one character, into po->field_sep; else -1, said on stderr after PROG. */
int print_parse_field_sep(struct print_opts *po, const char *prog, const char *arg);
/* Whether O's keys include K. */
bool print_has_key(const struct print_opts *o, enum print_key k);
int print_parse_sort(const char *s, struct print_opts *o);

/* "# ..." lines: inputs, host, event, duration, samples, lost, unresolved frames. */
void print_header(FILE *f, const struct session *s, const char *const *inputs, size_t n_inputs);
/* "# focus: FILTERS: kept N of M samples (P%), Q% of the period; SHARES" when a focus filter
 * (-S, --symbol-filter as a filter, --focus, --ignore) is set, else nothing. */
void print_focus(FILE *f, const struct session *s, const char *shares);
/* The flat table, sorted by Children (or Self), with trees when o->graph is set. 0 or -ENOMEM. */
int print_flat(FILE *f, const struct session *s, const struct print_opts *o);
/* One line per unique (comm, stack): "comm;outer;...;inner COUNT", kernel frames "_[k]". */
int print_folded(FILE *f, const struct session *s, bool srcline);
/* The folded line of one (comm, stack) without its count, as print_folded() writes it (each
 * frame followed by " FILE:LINE" with SRCLINE, when the session has lines); malloc'd (the
 * caller frees it), NULL when out of memory. */
char *print_folded_stack(const struct session *s, uint32_t comm, uint32_t stack, bool srcline);

/* One entry of the flat table: its keys (by enum print_key; UINT32_MAX where not one of the
 * keys), its Self and Children periods and sample counts. */
struct print_entry {
	uint32_t key[PRINT_N_KEYS];
	uint64_t self, children, n_self, n_children;
};
/* The entries print_flat() prints, in its order and with its limits (percent limit, symbol
 * filter), each to FN with the period the shares are of. 0 or -ENOMEM. */
int print_each_entry(const struct session *s, const struct print_opts *o,
		     void (*fn)(void *arg, const struct print_entry *e, double total), void *arg);
/* A string key's text as the table prints it (comm, dso, unit, sym, srcline); NULL for the
 * numeric keys (pid, tid, cpu). */
const char *print_key_text(const struct session *s, enum print_key k, uint32_t key);

struct session_sample;
/* `ringprof script`'s printer of samples, one by one, on f (buffered: nothing else writes to f
 * until print_script_free()). Each in perf script's layout: "comm pid/tid [cpu] seconds:
 * period event: " with perf 6.1's widths, the command from column 0 (then " unit"
 * where the recording has cgroups), then a line per frame, leaf first,
 * "\t<addr> <sym>+0x<off> (<object path>)" (followed, when the session has source lines, by
 * "  FILE:LINE" on a line of its own, as perf script -F +srcline), then a blank line. */
struct print_script;
struct print_script *print_script_new(FILE *f, const struct session *s); /* NULL: no memory */
void print_script_sample(struct print_script *ps, const struct session_sample *smp);
/* Writes what is still buffered, and frees. */
void print_script_free(struct print_script *ps);

#endif
