/* ringprof-report.c — `ringprof report`: symbolized flat, call-graph and folded reports;
 * --stats and --dump inspect recordings. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <string.h>
#include <time.h>
#include <linux/perf_event.h>

#include "base/cpulist.h"
#include "base/grow.h"
#include "base/util.h"
#include "format/dump.h"
#include "format/filestats.h"
#include "format/format.h"
#include "format/perfrec.h"
#include "format/reader.h"
#include "profile/print.h"
#include "profile/session.h"

#define PROG "ringprof report"
#define MAX_INPUTS 256
#define STAT_CPUS 1024

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ringprof report [OPTIONS]\n"
		"\n"
		"Read ringprof recordings and print where the samples are: a header, then a table\n"
		"of entries sorted by overhead (Children and Self when callchains were recorded).\n"
		"\n"
		"Input:\n"
		"  -i, --input FILE        recording to read (default ringprof.data); repeat to\n"
		"                          merge several into one report\n"
		"      --dir DIR           every recording in DIR (*.data, and *.data.partial being\n"
		"                          written), in name order, e.g. ringprofd's /var/lib/ringprof\n"
		"\n"
		"Output (default: the flat table):\n"
		"  -g, --call-graph MODE   trees under each entry: 'caller' (what the entry calls,\n"
		"                          down to the leaves) or 'callee' (who calls the entry, up\n"
		"                          to the outermost caller); optionally MODE,PCT to set the\n"
		"                          threshold (default 0.5 %%)\n"
		"      --no-children       Self column only (no time of callees)\n"
		"  -n, --show-nr-samples   a Samples column\n"
		"  -s, --sort KEYS         entry keys, from comm,pid,tid,dso,sym,cpu\n"
		"                          (default comm,dso,sym)\n"
		"      --percent-limit PCT hide entries below PCT %%\n"
		"      --max-stack N       use at most N frames of each callchain (leaf first)\n"
		"      --folded            one line per unique stack: 'comm;outer;...;inner COUNT'\n"
		"                          (flamegraph.pl, speedscope); kernel frames end in _[k]\n"
		"      --stats             summarize each recording (header, frames, record counts\n"
		"                          by type and CPU, lost and throttled totals)\n"
		"      --dump              every record, one per line, in time order: the type name\n"
		"                          (SAMPLE, MMAP2, COMM, FORK, EXIT, SWITCH, LOST, ...) then\n"
		"                          its fields (time in seconds, cpu, pid/tid, ...)\n"
		"\n"
		"Filters:\n"
		"      --pid PID[,PID]     only these processes\n"
		"      --tid TID[,TID]     only these threads\n"
		"      --comm NAME[,NAME]  only these command names\n"
		"      --dso NAME[,NAME]   only samples whose own frame is in these objects (short\n"
		"                          name as shown, or full path)\n"
		"      --cpu LIST          only these CPUs, e.g. 0-3,6\n"
		"      --since WHEN        only samples at or after WHEN: local time\n"
		"      --until WHEN        \"YYYY-MM-DD HH:MM[:SS]\" or \"HH:MM[:SS]\", or +DUR after the\n"
		"                          start of the first recording, or -DUR before the end of\n"
		"                          the last one (DUR: 30, 30s, 15min, 2h, 1d); recordings and\n"
		"                          frames outside the window are not read\n"
		"\n"
		"Symbols:\n"
		"      --symfs DIR         look binaries and debug files up under DIR first\n"
		"      --inline            show inlined functions as frames of their own (DWARF)\n"
		"      --no-demangle       show C++ and Rust names mangled, as in the symbol tables\n"
		"      --debuginfod        fetch missing debug info from debuginfod (DEBUGINFOD_URLS)\n"
		"      --debuginfod-timeout SECS  per request (default 5)\n"
		"\n"
		"  -h, --help              this help\n"
		"  -V, --version           version\n"
		"\n"
		"Damaged or truncated parts of a recording are skipped with a warning that says where;\n"
		"everything intact is still used. The exit status is 1 only when nothing was usable.\n");
}

static void on_warn(void *arg, const char *msg)
{
	fprintf(stderr, PROG ": %s: warning: %s\n", (const char *)arg, msg);
}

static int split_list(char *arg, const char **out, size_t max, size_t *n)
{
	char *save = NULL;

	for (char *t = strtok_r(arg, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (*n >= max)
			return -E2BIG;
		out[(*n)++] = t;
	}
	return 0;
}

static int split_ints(char *arg, int32_t *out, size_t max, size_t *n)
{
	const char *parts[MAX_INPUTS];
	size_t k = 0;

	if (split_list(arg, parts, MAX_INPUTS, &k) < 0 || !k)
		return -EINVAL;
	for (size_t i = 0; i < k; i++) {
		uint64_t v;

		if (*n >= max || util_parse_u64(parts[i], &v) < 0 || v > INT32_MAX)
			return -EINVAL;
		out[(*n)++] = (int32_t)v;
	}
	return 0;
}

static int inspect(const char *const *inputs, size_t n_inputs, bool stats, bool dump)
{
	size_t usable = 0;

	for (size_t i = 0; i < n_inputs; i++) {
		struct reader *r;
		const struct perf_event_header *h;
		struct filestats *s;
		char why[512];
		uint64_t st;
		int rc = reader_open(inputs[i], &r, why, sizeof(why));

		if (rc < 0) {
			fprintf(stderr, PROG ": %s: %s\n", inputs[i], why);
			continue;
		}
		reader_set_warn(r, on_warn, (void *)inputs[i]);
		s = calloc(1, sizeof(*s));
		if (!s) {
			fprintf(stderr, PROG ": out of memory\n");
			return 1;
		}
		st = reader_sample_type(r);
		while ((h = reader_next(r))) {
			if (dump)
				dump_record(stdout, h, st);
			if (stats)
				filestats_add(s, h, st);
		}
		if (stats)
			filestats_print(stdout, s, r, inputs[i]);
		if (reader_stats(r)->frames)
			usable++;
		else
			fprintf(stderr,
				PROG ": %s: no intact frame in the file; nothing could be read\n",
				inputs[i]);
		free(s);
		reader_free(r);
	}
	return usable ? 0 : 1;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One more input: 0, or -ENOMEM (said). */
static int add_input(const char ***inputs, size_t *n, size_t *cap, const char *path)
{
	if (GROW(*inputs, *cap, *n + 1) < 0) {
		fprintf(stderr, PROG ": out of memory for the list of inputs\n");
		return -ENOMEM;
	}
	(*inputs)[(*n)++] = path;
	return 0;
}

static bool is_recording_name(const char *name)
{
	size_t len = strlen(name);

	return name[0] != '.' && ((len > 5 && strcmp(name + len - 5, ".data") == 0) ||
				  (len > 13 && strcmp(name + len - 13, ".data.partial") == 0));
}

/* Every recording in dir, oldest first: their names start with the UTC time they began.
 * *ret_empty when there is none. 0, or -errno (said). */
static int add_dir(const char *dir, const char ***inputs, size_t *n_inputs, size_t *cap,
		   bool *ret_empty)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t first = *n_inputs;
	int rc = 0;

	if (!d) {
		fprintf(stderr, PROG ": cannot read directory %s: %s\n", dir, strerror(errno));
		return -errno;
	}
	while (rc == 0 && (e = readdir(d))) {
		char *path;

		if (!is_recording_name(e->d_name))
			continue;
		path = malloc(strlen(dir) + strlen(e->d_name) + 2);
		if (!path) {
			fprintf(stderr, PROG ": out of memory for the list of inputs\n");
			rc = -ENOMEM;
			break;
		}
		sprintf(path, "%s/%s", dir, e->d_name);
		rc = add_input(inputs, n_inputs, cap, path);
	}
	closedir(d);
	if (rc < 0)
		return rc;
	if (*n_inputs > first)
		qsort(*inputs + first, *n_inputs - first, sizeof(**inputs), cmp_names);
	if (*n_inputs == first) {
		fprintf(stderr,
			PROG ": %s: no recordings (*.data, *.data.partial) in this directory\n",
			dir);
		*ret_empty = true;
	}
	return 0;
}

/* --since/--until against the wall-clock span of all inputs. */
static int resolve_window(const char *const *inputs, size_t n_inputs, const char *since,
			  const char *until, struct session_filter *f)
{
	int64_t start = INT64_MAX, end = INT64_MIN;

	for (size_t i = 0; i < n_inputs; i++) {
		int64_t a, b;
		char why[512];

		if (session_file_bounds(inputs[i], &a, &b, why, sizeof(why)) < 0)
			continue; /* reported when the file is read */
		start = a < start ? a : start;
		end = b > end ? b : end;
	}
	if (start > end)
		start = end = 0;
	if (since && util_parse_when(since, start, end, &f->since) < 0) {
		fprintf(stderr,
			PROG
			": invalid --since '%s': expected \"YYYY-MM-DD HH:MM[:SS]\", \"HH:MM[:SS]\", "
			"+DUR or -DUR (e.g. -15min)\n",
			since);
		return -EINVAL;
	}
	if (until && util_parse_when(until, start, end, &f->until) < 0) {
		fprintf(stderr,
			PROG
			": invalid --until '%s': expected \"YYYY-MM-DD HH:MM[:SS]\", \"HH:MM[:SS]\", "
			"+DUR or -DUR (e.g. -15min)\n",
			until);
		return -EINVAL;
	}
	f->have_since = since != NULL;
	f->have_until = until != NULL;
	return 0;
}

/* Objects that merely lack symbols or are gone are common on a whole system (stripped
 * distribution binaries, memfds): they are summed up in one line each at the end instead of a
 * warning apiece. Everything else, a build-id mismatch above all, is said at once. */
#define GROUP_SHOWN 8
struct warn_group {
	const char *suffix; /* how the symbolizer's sentence ends, after "PATH: " */
	const char *what;
	char names[GROUP_SHOWN][64];
	size_t n;
};

struct warn_ctx {
	const char *path;
	struct warn_group groups[3];
};

static void on_session_warn(void *arg, const char *msg)
{
	struct warn_ctx *c = arg;
	const char *colon = strstr(msg, ": ");

	for (size_t i = 0; colon && i < sizeof(c->groups) / sizeof(c->groups[0]); i++) {
		struct warn_group *g = &c->groups[i];
		const char *base;
		size_t len;

		if (strncmp(colon + 2, g->suffix, strlen(g->suffix)) != 0)
			continue;
		len = (size_t)(colon - msg);
		for (base = colon; base > msg && base[-1] != '/'; base--)
			;
		if (g->n < GROUP_SHOWN)
			snprintf(g->names[g->n], sizeof(g->names[0]), "%.*s", (int)(colon - base),
				 base);
		(void)len;
		g->n++;
		return;
	}
	fprintf(stderr, PROG ": %s: warning: %s\n", c->path, msg);
}

static void print_warn_groups(const struct warn_ctx *c)
{
	for (size_t i = 0; i < sizeof(c->groups) / sizeof(c->groups[0]); i++) {
		const struct warn_group *g = &c->groups[i];

		if (!g->n)
			continue;
		fprintf(stderr, PROG ": note: %s: %zu object%s, shown as [unknown]", g->what, g->n,
			g->n > 1 ? "s" : "");
		fputs(i == 2 ? ": "
			     : " (install debug info, e.g. -dbgsym packages, or use --symfs): ",
		      stderr);
		for (size_t k = 0; k < g->n && k < GROUP_SHOWN; k++)
			fprintf(stderr, "%s%s", k ? ", " : "", g->names[k]);
		if (g->n > GROUP_SHOWN)
			fprintf(stderr, " and %zu more", g->n - GROUP_SHOWN);
		fputc('\n', stderr);
	}
}

/* Exit statuses besides EXIT_SUCCESS and EXIT_FAILURE (nothing usable, or output failed). */
enum { EXIT_USAGE = 2 };

enum {
	OPT_STATS = 256,
	OPT_DUMP,
	OPT_FOLDED,
	OPT_NO_CHILDREN,
	OPT_PERCENT,
	OPT_MAX_STACK,
	OPT_PID,
	OPT_TID,
	OPT_COMM,
	OPT_DSO,
	OPT_CPU,
	OPT_SINCE,
	OPT_UNTIL,
	OPT_SYMFS,
	OPT_INLINE,
	OPT_NO_DEMANGLE,
	OPT_DEBUGINFOD,
	OPT_DEBUGINFOD_TIMEOUT,
	OPT_DIR,
};

/* What the command line asks for. The filter lists live here; build_filter() points
 * so.filter at them. */
struct args {
	const char **inputs; /* -i and --dir, in order (as many as given) */
	size_t n_inputs, cap_inputs;
	bool dir_empty; /* a --dir held no recording */
	bool stats, dump, folded, no_children;
	struct print_opts po;
	struct session_opts so;
	const char *comms[MAX_INPUTS], *dsos[MAX_INPUTS];
	int32_t pids[MAX_INPUTS], tids[MAX_INPUTS];
	int cpus[STAT_CPUS];
	size_t n_cpus;
	const char *since, *until; /* as given: resolved against the inputs' time span */
};

/* -g MODE[,PCT]. 0, or the exit status (said). */
static int parse_call_graph(struct args *a, char *arg)
{
	char *comma = strchr(arg, ',');

	if (comma) {
		*comma = '\0';
		if (util_parse_percent(comma + 1, &a->po.graph_threshold) < 0) {
			fprintf(stderr, PROG ": invalid call-graph threshold '%s' (a percentage)\n",
				comma + 1);
			return EXIT_USAGE;
		}
	}
	if (strcmp(arg, "caller") == 0)
		a->po.graph = PRINT_GRAPH_CALLER;
	else if (strcmp(arg, "callee") == 0)
		a->po.graph = PRINT_GRAPH_CALLEE;
	else {
		fprintf(stderr, PROG ": -g takes caller or callee, not '%s'\n", arg);
		return EXIT_USAGE;
	}
	return 0;
}

/* --pid, --tid, --comm, --dso, --cpu, --since, --until. 0, or the exit status (said). */
static int parse_filter_option(struct args *a, int c, char *arg)
{
	struct session_filter *f = &a->so.filter;

	switch (c) {
	case OPT_PID:
	case OPT_TID:
		if (split_ints(arg, c == OPT_PID ? a->pids : a->tids, MAX_INPUTS,
			       c == OPT_PID ? &f->n_pids : &f->n_tids) < 0) {
			fprintf(stderr, PROG ": invalid %s list '%s'\n",
				c == OPT_PID ? "--pid" : "--tid", arg);
			return EXIT_USAGE;
		}
		break;
	case OPT_COMM:
		split_list(arg, a->comms, MAX_INPUTS, &f->n_comms);
		break;
	case OPT_DSO:
		split_list(arg, a->dsos, MAX_INPUTS, &f->n_dsos);
		break;
	case OPT_CPU:
		if (cpulist_parse(arg, a->cpus, STAT_CPUS, &a->n_cpus) < 0) {
			fprintf(stderr, PROG ": invalid CPU list '%s' (expected e.g. 0-3,6)\n", arg);
			return EXIT_USAGE;
		}
		break;
	case OPT_SINCE:
		a->since = arg;
		break;
	case OPT_UNTIL:
		a->until = arg;
		break;
	}
	return 0;
}

/* One option into a; -h and -V end the program here. 0, or the exit status after saying
 * what is wrong. */
static int parse_option(struct args *a, int c, char *arg)
{
	uint64_t v;

	switch (c) {
	case 'i':
		if (add_input(&a->inputs, &a->n_inputs, &a->cap_inputs, arg) < 0)
			return EXIT_FAILURE;
		break;
	case OPT_DIR:
		if (add_dir(arg, &a->inputs, &a->n_inputs, &a->cap_inputs, &a->dir_empty) < 0)
			return EXIT_FAILURE;
		break;
	case OPT_STATS:
		a->stats = true;
		break;
	case OPT_DUMP:
		a->dump = true;
		break;
	case OPT_FOLDED:
		a->folded = true;
		break;
	case 'g':
		return parse_call_graph(a, arg);
	case OPT_NO_CHILDREN:
		a->no_children = true;
		break;
	case 'n':
		a->po.show_samples = true;
		break;
	case 's':
		if (print_parse_sort(arg, &a->po) < 0) {
			fprintf(stderr,
				PROG
				": invalid sort keys '%s' (choose from comm,pid,tid,dso,sym,cpu)\n",
				arg);
			return EXIT_USAGE;
		}
		break;
	case OPT_PERCENT:
		if (util_parse_percent(arg, &a->po.percent_limit) < 0) {
			fprintf(stderr, PROG ": invalid --percent-limit '%s'\n", arg);
			return EXIT_USAGE;
		}
		break;
	case OPT_MAX_STACK:
		if (util_parse_u64(arg, &v) < 0 || v == 0 || v > 100000) {
			fprintf(stderr, PROG ": invalid --max-stack '%s'\n", arg);
			return EXIT_USAGE;
		}
		a->so.max_stack = (unsigned int)v;
		break;
	case OPT_PID:
	case OPT_TID:
	case OPT_COMM:
	case OPT_DSO:
	case OPT_CPU:
	case OPT_SINCE:
	case OPT_UNTIL:
		return parse_filter_option(a, c, arg);
	case OPT_SYMFS:
		a->so.symfs = arg;
		break;
	case OPT_INLINE:
		a->so.inline_frames = true;
		break;
	case OPT_NO_DEMANGLE:
		a->so.no_demangle = true;
		break;
	case OPT_DEBUGINFOD:
		a->so.debuginfod = true;
		break;
	case OPT_DEBUGINFOD_TIMEOUT:
		if (util_parse_u64(arg, &v) < 0 || v == 0 || v > 3600) {
			fprintf(stderr, PROG ": invalid --debuginfod-timeout '%s'\n", arg);
			return EXIT_USAGE;
		}
		a->so.debuginfod_timeout = (int)v;
		break;
	case 'h':
		usage(stdout);
		exit(EXIT_SUCCESS);
	case 'V':
		printf("ringprof report %s\n", PACKAGE_VERSION);
		exit(EXIT_SUCCESS);
	default:
		fprintf(stderr, "Try 'ringprof report --help'.\n");
		return EXIT_USAGE;
	}
	return 0;
}

/* 0 to report, or the exit status after saying what is wrong. */
static int parse_argv(struct args *a, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "dir", required_argument, NULL, OPT_DIR },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "dump", no_argument, NULL, OPT_DUMP },
		{ "folded", no_argument, NULL, OPT_FOLDED },
		{ "call-graph", required_argument, NULL, 'g' },
		{ "no-children", no_argument, NULL, OPT_NO_CHILDREN },
		{ "show-nr-samples", no_argument, NULL, 'n' },
		{ "sort", required_argument, NULL, 's' },
		{ "percent-limit", required_argument, NULL, OPT_PERCENT },
		{ "max-stack", required_argument, NULL, OPT_MAX_STACK },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "dso", required_argument, NULL, OPT_DSO },
		{ "cpu", required_argument, NULL, OPT_CPU },
		{ "since", required_argument, NULL, OPT_SINCE },
		{ "until", required_argument, NULL, OPT_UNTIL },
		{ "symfs", required_argument, NULL, OPT_SYMFS },
		{ "inline", no_argument, NULL, OPT_INLINE },
		{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
		{ "debuginfod", no_argument, NULL, OPT_DEBUGINFOD },
		{ "debuginfod-timeout", required_argument, NULL, OPT_DEBUGINFOD_TIMEOUT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c, r;

	a->po = (struct print_opts){ .keys = { PRINT_COMM, PRINT_DSO, PRINT_SYM },
				     .n_keys = 3,
				     .children = true,
				     .graph_threshold = 0.5 };
	a->so = (struct session_opts){ .debuginfod_timeout = 5 };
	while ((c = getopt_long(argc, argv, "i:g:ns:hV", longopts, NULL)) != -1) {
		r = parse_option(a, c, optarg);
		if (r)
			return r;
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s' (inputs are given with -i)\n",
			argv[optind]);
		return EXIT_USAGE;
	}
	/* --dir with nothing in it is not a reason to read an unrelated ./ringprof.data. */
	if (!a->n_inputs && a->dir_empty)
		return EXIT_FAILURE;
	if (!a->n_inputs && add_input(&a->inputs, &a->n_inputs, &a->cap_inputs, "ringprof.data") < 0)
		return EXIT_FAILURE;
	return 0;
}

/* The session filter: the lists given, and --since/--until against the inputs' time span.
 * 0, or -EINVAL (said). */
static int build_filter(struct args *a)
{
	struct session_filter *f = &a->so.filter;

	if ((a->since || a->until) &&
	    resolve_window(a->inputs, a->n_inputs, a->since, a->until, f) < 0)
		return -EINVAL;
	f->pids = a->pids;
	f->tids = a->tids;
	f->comms = a->comms;
	f->dsos = a->dsos;
	f->cpus = a->cpus;
	f->n_cpus = a->n_cpus;
	return 0;
}

/* One open file per object in use (and its debug file): a whole system has many. */
static void raise_nofile_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* Read every input into s; how many could be used. */
static size_t add_inputs(struct session *s, const struct args *a, struct warn_ctx *wc)
{
	size_t usable = 0;

	for (size_t i = 0; i < a->n_inputs; i++) {
		char why[512];

		wc->path = a->inputs[i];
		/* A file outside the window counts too: it was read and had nothing for it. */
		if (session_add_file(s, a->inputs[i], why, sizeof(why)) < 0)
			fprintf(stderr, PROG ": %s: %s\n", a->inputs[i], why);
		else
			usable++;
	}
	return usable;
}

/* The folded stacks, or the header and the table. 0 or -errno. */
static int print_report(const struct session *s, const struct args *a)
{
	const struct rp_header_rec *h = session_header(s);
	struct print_opts po = a->po;

	/* Children needs callchains; without them every entry's Children equals Self. */
	po.children = !a->no_children && (!h || (h->flags & RP_HDR_CALLCHAIN));
	if (a->folded)
		return print_folded(stdout, s);
	print_header(stdout, s, a->inputs, a->n_inputs);
	return print_flat(stdout, s, &po);
}

/* Read, symbolize and print; then the grouped warnings. The exit status. */
static int report(struct args *a)
{
	struct warn_ctx wc = { .groups = {
				   { "no function symbols", "no function symbols", { { 0 } }, 0 },
				   { "no symbols (", "no symbol table", { { 0 } }, 0 },
				   { "cannot open: No such file", "no longer on disk", { { 0 } }, 0 },
			       } };
	struct session *s;
	int r;

	a->so.warn = on_session_warn;
	a->so.warn_arg = &wc;
	raise_nofile_limit();
	s = session_new(&a->so);
	if (!s) {
		fprintf(stderr, PROG ": out of memory\n");
		return EXIT_FAILURE;
	}
	if (!add_inputs(s, a, &wc)) {
		session_free(s);
		return EXIT_FAILURE;
	}
	wc.path = "symbols";
	r = session_finish(s);
	if (r < 0) {
		fprintf(stderr, PROG ": %s\n", strerror(-r));
		session_free(s);
		return EXIT_FAILURE;
	}
	r = print_report(s, a);
	session_free(s);
	if (r < 0) {
		fprintf(stderr, PROG ": %s\n", strerror(-r));
		return EXIT_FAILURE;
	}
	fflush(stdout);
	print_warn_groups(&wc);
	if (fflush(stdout) != 0) {
		fprintf(stderr, PROG ": writing the output failed: %s\n", strerror(errno));
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

/* Whether everything printed reached stdout (a full disk, a closed pipe): else say so and
 * fail, rather than exit 0 with a cut report. */
static int output_done(int r)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return r;
	if (errno != EPIPE)
		fprintf(stderr, PROG ": writing the report failed: %s\n", strerror(errno));
	return EXIT_FAILURE;
}

int main(int argc, char **argv)
{
	static struct args a;
	int r;

	r = parse_argv(&a, argc, argv);
	if (r)
		return r;
	if (a.stats || a.dump)
		r = inspect(a.inputs, a.n_inputs, a.stats, a.dump);
	else if (build_filter(&a) < 0)
		return EXIT_USAGE;
	else
		r = report(&a);
	return output_done(r);
}
