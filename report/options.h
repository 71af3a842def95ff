/* options.h — what `ringprof report` and `ringprof script` share: the options that choose the
 * input, filter the samples and find the symbols, and the session that reads the input. */
#ifndef RP_REPORT_OPTIONS_H
#define RP_REPORT_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/cli.h"
#include "profile/session.h"

#define OPTIONS_MAX_LIST 256
#define OPTIONS_MAX_CPUS 1024

/* getopt values of the shared long options; each program numbers its own from OPT_OWN. */
enum {
	OPT_PID = 256,
	OPT_TID,
	OPT_COMM,
	OPT_DSO,
	OPT_CPU,
	OPT_SINCE,
	OPT_UNTIL,
	OPT_SYMFS,
	OPT_INLINE,
	OPT_DEBUGINFOD,
	OPT_DEBUGINFOD_TIMEOUT,
	OPT_DIR,
	OPT_MAX_STACK,
	OPT_NO_PAGER,
	OPT_EVENT,
	OPT_NO_DEMANGLE,
	OPT_PPROF,
	OPT_OFF_CPU,
	OPT_WALL,
	OPT_UNIT,
	OPT_TIME,
	OPT_SYMBOL_FILTER,
	OPT_FOCUS,
	OPT_IGNORE,
	OPT_FULL_SOURCE_PATH,
	OPT_NO_DEBUG_CACHE,
	OPT_OWN = 512,
};

/* The shared entries of a program's struct option table (short options: "i:v"). */
#define OPTIONS_LONGOPTS                                                                           \
	{ "input", required_argument, NULL, 'i' }, { "dir", required_argument, NULL, OPT_DIR },    \
	    { "event", required_argument, NULL, OPT_EVENT },                                       \
	    { "pid", required_argument, NULL, OPT_PID },                                           \
	    { "tid", required_argument, NULL, OPT_TID },                                           \
	    { "comm", required_argument, NULL, OPT_COMM },                                         \
	    { "unit", required_argument, NULL, OPT_UNIT },                                         \
	    { "dso", required_argument, NULL, OPT_DSO },                                           \
	    { "cpu", required_argument, NULL, OPT_CPU },                                           \
	    { "since", required_argument, NULL, OPT_SINCE },                                       \
	    { "until", required_argument, NULL, OPT_UNTIL },                                       \
	    { "time", required_argument, NULL, OPT_TIME },                                         \
	    { "max-stack", required_argument, NULL, OPT_MAX_STACK },                               \
	    { "symbols", required_argument, NULL, 'S' },                                           \
	    { "symbol-filter", required_argument, NULL, OPT_SYMBOL_FILTER },                       \
	    { "focus", required_argument, NULL, OPT_FOCUS },                                       \
	    { "ignore", required_argument, NULL, OPT_IGNORE },                                     \
	    { "symfs", required_argument, NULL, OPT_SYMFS },                                       \
	    { "inline", no_argument, NULL, OPT_INLINE },                                           \
	    { "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },                                 \
	    { "full-source-path", no_argument, NULL, OPT_FULL_SOURCE_PATH },                       \
	    { "debuginfod", no_argument, NULL, OPT_DEBUGINFOD },                                   \
	    { "debuginfod-timeout", required_argument, NULL, OPT_DEBUGINFOD_TIMEOUT },             \
	    { "no-debug-cache", no_argument, NULL, OPT_NO_DEBUG_CACHE },                           \
	    { "no-pager", no_argument, NULL, OPT_NO_PAGER },                                       \
	{                                                                                          \
		"verbose", no_argument, NULL, 'v'                                                  \
	}
#define OPTIONS_SHORTS "i:vC:S:"
/* perf's spellings of the filters: --comms, --dsos (and -C for --cpu, in OPTIONS_SHORTS). */
#define OPTIONS_PERF_LONGOPTS                                                                      \
	{ "comms", required_argument, NULL, OPT_COMM },                                            \
	{                                                                                          \
		"dsos", required_argument, NULL, OPT_DSO                                           \
	}
/* --pprof FILE, for the programs that write a profile of what the filters select. */
#define OPTIONS_PPROF_LONGOPT                                                                      \
	{                                                                                          \
		"pprof", required_argument, NULL, OPT_PPROF                                        \
	}

/* --off-cpu and --wall: what a sample weighs (report and diff; script prints samples as they
 * are). */
#define OPTIONS_LONGOPTS_WEIGHT                                                                    \
	{ "off-cpu", no_argument, NULL, OPT_OFF_CPU },                                             \
	{                                                                                          \
		"wall", no_argument, NULL, OPT_WALL                                                \
	}
extern const char options_help_weight[];

/* How the shared options are described in --help (Input, Filters, Symbols; then Output's
 * --no-pager and -v lines). */
extern const char options_help_input[], options_help_filters[], options_help_symbols[],
    options_help_output[], options_help_pprof[];

/* Objects that merely lack symbols or are gone are common on a whole system: summed up in
 * one line each at the end (unless -v) instead of a warning apiece. */
#define OPTIONS_GROUP_SHOWN 8
struct options_warn_group {
	const char *suffix; /* how the symbolizer's sentence ends, after "PATH: " */
	const char *what;
	char names[OPTIONS_GROUP_SHOWN][64];
	size_t n;
};

/* What the command line asks for. The filter lists live here; options_filter() points
 * so.filter at them. */
struct options {
	const char *prog; /* "ringprof report": every message starts with it */
	const char **inputs;
	size_t n_inputs, cap_inputs;
	bool dir_empty;	   /* a --dir held no recording */
	bool input_failed; /* an -i or --dir could not be taken (said) */
	bool no_pager, verbose;
	struct session_opts so;
	const char *comms[OPTIONS_MAX_LIST], *dsos[OPTIONS_MAX_LIST], *units[OPTIONS_MAX_LIST];
	int32_t pids[OPTIONS_MAX_LIST], tids[OPTIONS_MAX_LIST];
	int cpus[OPTIONS_MAX_CPUS];
	size_t n_cpus;
	uint64_t addrs[OPTIONS_MAX_LIST]; /* -S 0xADDR entries (so.filter.addrs) */
	size_t n_addrs;
	bool names_in_s;	   /* -S named symbols too */
	const char *since, *until; /* as given: resolved against the inputs' time span */
	const char *time;	   /* perf's --time, as given: resolved likewise */
	const char *warn_path;	   /* the input being read, for warnings */
	const char *pprof;	   /* --pprof FILE, NULL when not asked for */
	struct focus *focus;	   /* -S, --focus, --ignore (so.filter.focus when set); the
				    * program's to keep until exit */
	const char *symbol_filter; /* --symbol-filter SUBSTR, as given */
	struct options_warn_group groups[3];
	bool nolines_said; /* options_note_nolines() spoke */
};

void options_init(struct options *o, const char *prog);
/* One input: a recording, or a directory read as --dir reads it. 0, or -errno (said). */
int options_add_path(struct options *o, const char *path);
/* One option of getopt_long(): 0 when taken, 1 when it is not a shared one, else the exit
 * status after saying what is wrong. getopt's own '?' and ':' (after cli_options and with a
 * leading ':' in the short options) are said by cli_option_error. */
int options_parse(struct options *o, int c, char *arg, char **argv);
/* After getopt: no stray arguments, ringprof.data when no input was given. 0 or the exit
 * status (said). */
int options_finish(struct options *o, int argc, char **argv);
/* The session filter from the lists, --since/--until resolved against the inputs' span, and
 * the conflicts (a reversed window, a missing --symfs) refused. 0 or the exit status (said);
 * notes (a window outside every recording, --debuginfod without servers) go to stderr. */
int options_filter(struct options *o);
/* --off-cpu and --wall against the inputs' events: the switch-outs must be there, and the
 * other events --wall adds (all, or the one --event names) must count time (cpu-clock,
 * task-clock), since their periods are added to nanoseconds. 0 (also for on-CPU weights), or
 * the exit status (said). */
int options_check_weight(const struct options *o);
/* A new session with the options and the grouped warnings, the open-file limit raised; NULL
 * when out of memory (said). */
struct session *options_session(struct options *o);
/* Read every input into S: how many could be used (the others are said). */
size_t options_read(struct options *o, struct session *s);
/* --symbol-filter for an output without entries (script, pprof, --folded): the samples
 * whose leaf symbol contains it. 0, or EXIT_FAILURE (out of memory, said). */
int options_symbol_filter_leaf(struct options *o);
/* With srcline: one note, once per run, naming the objects whose frames had no line
 * information (no DWARF) and how to get it. */
void options_note_nolines(struct options *o, const struct session *s);
/* The warnings summed up while reading, one line per group, to stderr. */
void options_warn_done(const struct options *o);
/* Whether everything printed reached stdout (a full disk, a closed pipe): R, else say that
 * writing WHAT ("the report") failed and return EXIT_FAILURE. */
int options_output_done(const struct options *o, int r, const char *what);

#endif
