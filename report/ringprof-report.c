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

#include "cpulist.h"
#include "dump.h"
#include "filestats.h"
#include "format.h"
#include "print.h"
#include "reader.h"
#include "record.h"
#include "session.h"
#include "util.h"

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
			fprintf(stderr, PROG ": %s: no intact frame in the file; nothing could be read\n", inputs[i]);
		free(s);
		reader_free(r);
	}
	return usable ? 0 : 1;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The recordings in dir, oldest first: their names start with the UTC time they began. */
static int add_dir(const char *dir, const char **inputs, size_t *n_inputs)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t first = *n_inputs;

	if (!d) {
		fprintf(stderr, PROG ": cannot read directory %s: %s\n", dir, strerror(errno));
		return -errno;
	}
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char *path;

		if (e->d_name[0] == '.' ||
		    !((len > 5 && strcmp(e->d_name + len - 5, ".data") == 0) ||
		      (len > 13 && strcmp(e->d_name + len - 13, ".data.partial") == 0)))
			continue;
		if (*n_inputs == MAX_INPUTS) {
			fprintf(stderr, PROG ": %s: more than %d recordings; using the first %d\n", dir, MAX_INPUTS,
				MAX_INPUTS);
			break;
		}
		path = malloc(strlen(dir) + len + 2);
		if (!path)
			break;
		sprintf(path, "%s/%s", dir, e->d_name);
		inputs[(*n_inputs)++] = path;
	}
	closedir(d);
	qsort(inputs + first, *n_inputs - first, sizeof(*inputs), cmp_names);
	if (*n_inputs == first)
		fprintf(stderr, PROG ": %s: no recordings (*.data, *.data.partial) in this directory\n", dir);
	return 0;
}

/* --since/--until against the wall-clock span of all inputs. */
static int resolve_window(const char *const *inputs, size_t n_inputs, const char *since, const char *until,
			  struct session_filter *f)
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
		fprintf(stderr, PROG ": invalid --since '%s': expected \"YYYY-MM-DD HH:MM[:SS]\", \"HH:MM[:SS]\", "
				"+DUR or -DUR (e.g. -15min)\n", since);
		return -EINVAL;
	}
	if (until && util_parse_when(until, start, end, &f->until) < 0) {
		fprintf(stderr, PROG ": invalid --until '%s': expected \"YYYY-MM-DD HH:MM[:SS]\", \"HH:MM[:SS]\", "
				"+DUR or -DUR (e.g. -15min)\n", until);
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
			snprintf(g->names[g->n], sizeof(g->names[0]), "%.*s", (int)(colon - base), base);
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
		fprintf(stderr, PROG ": note: %s: %zu object%s, shown as [unknown]", g->what, g->n, g->n > 1 ? "s" : "");
		fputs(i == 2 ? ": " : " (install debug info, e.g. -dbgsym packages, or use --symfs): ", stderr);
		for (size_t k = 0; k < g->n && k < GROUP_SHOWN; k++)
			fprintf(stderr, "%s%s", k ? ", " : "", g->names[k]);
		if (g->n > GROUP_SHOWN)
			fprintf(stderr, " and %zu more", g->n - GROUP_SHOWN);
		fputc('\n', stderr);
	}
}

int main(int argc, char **argv)
{
	enum { OPT_STATS = 256, OPT_DUMP, OPT_FOLDED, OPT_NO_CHILDREN, OPT_PERCENT, OPT_MAX_STACK, OPT_PID, OPT_TID,
	       OPT_COMM, OPT_DSO, OPT_CPU, OPT_SINCE, OPT_UNTIL, OPT_SYMFS, OPT_INLINE, OPT_DEBUGINFOD,
	       OPT_DEBUGINFOD_TIMEOUT, OPT_DIR };
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
		{ "debuginfod", no_argument, NULL, OPT_DEBUGINFOD },
		{ "debuginfod-timeout", required_argument, NULL, OPT_DEBUGINFOD_TIMEOUT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *inputs[MAX_INPUTS], *comms[MAX_INPUTS], *dsos[MAX_INPUTS];
	static int32_t pids[MAX_INPUTS], tids[MAX_INPUTS];
	static int cpus[STAT_CPUS];
	struct print_opts po = { .keys = { PRINT_COMM, PRINT_DSO, PRINT_SYM }, .n_keys = 3, .children = true,
				 .graph_threshold = 0.5 };
	struct session_opts so = { .debuginfod_timeout = 5 };
	size_t n_inputs = 0, usable = 0, n_cpus = 0;
	bool stats = false, dump = false, folded = false, no_children = false;
	struct warn_ctx wc = { .groups = {
		{ "no function symbols", "no function symbols", { { 0 } }, 0 },
		{ "no symbols (", "no symbol table", { { 0 } }, 0 },
		{ "cannot open: No such file", "no longer on disk", { { 0 } }, 0 },
	} };
	const char *since = NULL, *until = NULL;
	struct session *s;
	uint64_t v;
	int c, rc;

	while ((c = getopt_long(argc, argv, "i:g:ns:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (n_inputs == MAX_INPUTS) {
				fprintf(stderr, PROG ": at most %d inputs\n", MAX_INPUTS);
				return 2;
			}
			inputs[n_inputs++] = optarg;
			break;
		case OPT_DIR:
			if (add_dir(optarg, inputs, &n_inputs) < 0)
				return 1;
			break;
		case OPT_STATS:
			stats = true;
			break;
		case OPT_DUMP:
			dump = true;
			break;
		case OPT_FOLDED:
			folded = true;
			break;
		case 'g': {
			char *comma = strchr(optarg, ',');

			if (comma) {
				*comma = '\0';
				if (util_parse_percent(comma + 1, &po.graph_threshold) < 0) {
					fprintf(stderr, PROG ": invalid call-graph threshold '%s' (a percentage)\n", comma + 1);
					return 2;
				}
			}
			if (strcmp(optarg, "caller") == 0)
				po.graph = PRINT_GRAPH_CALLER;
			else if (strcmp(optarg, "callee") == 0)
				po.graph = PRINT_GRAPH_CALLEE;
			else {
				fprintf(stderr, PROG ": -g takes caller or callee, not '%s'\n", optarg);
				return 2;
			}
			break;
		}
		case OPT_NO_CHILDREN:
			no_children = true;
			break;
		case 'n':
			po.show_samples = true;
			break;
		case 's':
			if (print_parse_sort(optarg, &po) < 0) {
				fprintf(stderr, PROG ": invalid sort keys '%s' (choose from comm,pid,tid,dso,sym,cpu)\n", optarg);
				return 2;
			}
			break;
		case OPT_PERCENT:
			if (util_parse_percent(optarg, &po.percent_limit) < 0) {
				fprintf(stderr, PROG ": invalid --percent-limit '%s'\n", optarg);
				return 2;
			}
			break;
		case OPT_MAX_STACK:
			if (util_parse_u64(optarg, &v) < 0 || v == 0 || v > 100000) {
				fprintf(stderr, PROG ": invalid --max-stack '%s'\n", optarg);
				return 2;
			}
			so.max_stack = (unsigned int)v;
			break;
		case OPT_PID:
		case OPT_TID:
			if (split_ints(optarg, c == OPT_PID ? pids : tids, MAX_INPUTS,
				       c == OPT_PID ? &so.filter.n_pids : &so.filter.n_tids) < 0) {
				fprintf(stderr, PROG ": invalid %s list '%s'\n", c == OPT_PID ? "--pid" : "--tid", optarg);
				return 2;
			}
			break;
		case OPT_COMM:
			split_list(optarg, comms, MAX_INPUTS, &so.filter.n_comms);
			break;
		case OPT_DSO:
			split_list(optarg, dsos, MAX_INPUTS, &so.filter.n_dsos);
			break;
		case OPT_CPU:
			if (cpulist_parse(optarg, cpus, STAT_CPUS, &n_cpus) < 0) {
				fprintf(stderr, PROG ": invalid CPU list '%s' (expected e.g. 0-3,6)\n", optarg);
				return 2;
			}
			break;
		case OPT_SINCE:
			since = optarg;
			break;
		case OPT_UNTIL:
			until = optarg;
			break;
		case OPT_SYMFS:
			so.symfs = optarg;
			break;
		case OPT_INLINE:
			so.inline_frames = true;
			break;
		case OPT_DEBUGINFOD:
			so.debuginfod = true;
			break;
		case OPT_DEBUGINFOD_TIMEOUT:
			if (util_parse_u64(optarg, &v) < 0 || v == 0 || v > 3600) {
				fprintf(stderr, PROG ": invalid --debuginfod-timeout '%s'\n", optarg);
				return 2;
			}
			so.debuginfod_timeout = (int)v;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("ringprof report %s\n", PACKAGE_VERSION);
			return 0;
		default:
			fprintf(stderr, "Try 'ringprof report --help'.\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s' (inputs are given with -i)\n", argv[optind]);
		return 2;
	}
	if (!n_inputs)
		inputs[n_inputs++] = "ringprof.data";
	if (stats || dump)
		return inspect(inputs, n_inputs, stats, dump);

	if ((since || until) && resolve_window(inputs, n_inputs, since, until, &so.filter) < 0)
		return 2;
	so.filter.pids = pids;
	so.filter.tids = tids;
	so.filter.comms = comms;
	so.filter.dsos = dsos;
	so.filter.cpus = cpus;
	so.filter.n_cpus = n_cpus;
	so.warn = on_session_warn;
	so.warn_arg = &wc;
	{
		/* One open file per object in use (and its debug file): a whole system has many. */
		struct rlimit rl;

		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	s = session_new(&so);
	if (!s) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < n_inputs; i++) {
		char why[512];

		wc.path = inputs[i];
		rc = session_add_file(s, inputs[i], why, sizeof(why));
		if (rc < 0)
			fprintf(stderr, PROG ": %s: %s\n", inputs[i], why);
		else
			usable++; /* also when outside the window: it was read and had nothing for it */
	}
	if (!usable) {
		session_free(s);
		return 1;
	}
	wc.path = "symbols";
	rc = session_finish(s);
	if (rc < 0) {
		fprintf(stderr, PROG ": %s\n", strerror(-rc));
		session_free(s);
		return 1;
	}
	{
		const struct rp_header_rec *h = session_header(s);

		/* Children needs callchains; without them every entry's Children equals Self. */
		po.children = !no_children && (!h || (h->flags & RP_HDR_CALLCHAIN));
	}
	if (folded) {
		rc = print_folded(stdout, s);
	} else {
		print_header(stdout, s, inputs, n_inputs);
		rc = print_flat(stdout, s, &po);
	}
	session_free(s);
	if (rc < 0) {
		fprintf(stderr, PROG ": %s\n", strerror(-rc));
		return 1;
	}
	fflush(stdout);
	print_warn_groups(&wc);
	if (fflush(stdout) != 0) {
		fprintf(stderr, PROG ": writing the output failed: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
