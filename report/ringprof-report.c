/* ringprof-report.c — `ringprof report`: symbolized flat, call-graph and folded reports;
 * --stats and --dump inspect recordings. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "base/intern.h"
#include "base/util.h"
#include "format/dump.h"
#include "format/filestats.h"
#include "format/format.h"
#include "format/perfrec.h"
#include "format/reader.h"
#include "html-counts.h"
#include "html.h"
#include "json.h"
#include "speedscope.h"
#include "options.h"
#include "cli/pager.h"
#include "timeline.h"
#include "profile/pprof.h"
#include "profile/print.h"
#include "profile/procmodel.h"
#include "profile/replay.h"
#include "profile/session.h"

#define PROG "ringprof report"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ringprof report [OPTIONS]\n"
		"\n"
		"Read ringprof recordings and print where the samples are: a header, then a table\n"
		"of entries sorted by overhead (Children and Self when callchains were recorded).\n"
		"\n"
		"%s\n"
		"Output (default: the flat table; at most one of --folded, --pprof, --stats,\n"
		"--dump):\n"
		"  -g, --call-graph[=SPEC] trees under each entry (perf's spelling; bare -g: 'graph,\n"
		"                          0.5', caller order with Children, callee without). SPEC,\n"
		"                          comma-separated: graph or none; caller (what the entry\n"
		"                          calls, down to the leaves) or callee (who calls it, up to\n"
		"                          the outermost caller); a threshold in %% (default 0.5);\n"
		"                          function, percent (the only key and value kept)\n"
		"  -G, --inverted          the caller tree (-g caller)\n"
		"      --children          Children and Self columns (the default with callchains)\n"
		"      --no-children       Self column only (no time of callees)\n"
		"  -n, --show-nr-samples   a Samples column\n"
		"  -t, --field-separator C the columns joined by the character C, not padded, and\n"
		"                          C in names turned into '.' (perf's -t; not with -g)\n"
		"      --json              the header and the table as one JSON object (members in\n"
		"                          ringprof-report(1)); -s, --children, filters apply\n"
		"      --speedscope FILE   the stacks as speedscope's file format (one profile per\n"
		"                          command, weighted by period), for speedscope.app\n"
		"  -s, --sort KEYS         entry keys, from comm,pid,tid,dso,sym,cpu,unit,srcline\n"
		"                          (perf's 'symbol' is sym; unit: the systemd unit or\n"
		"                          container; srcline: FILE:LINE from DWARF line tables,\n"
		"                          OBJECT+0xOFFSET where the object has none)\n"
		"                          (default comm,dso,sym)\n"
		"  -F, --fields FIELDS     the columns, as perf's -F: overhead, sample, and sort keys\n"
		"                          (e.g. overhead,sample,comm,dso,sym)\n"
		"      --percentage MODE   relative (default: shares of the samples the filters keep)\n"
		"                          or absolute (of every sample in the --since/--until window)\n"
		"      --percent-limit PCT hide entries below PCT %%\n"
		"      --stdio             accepted for perf's sake: the output is always text\n"
		"  -q, --quiet             the table alone: no \"#\" header and title lines (notes\n"
		"                          and warnings still go to stderr)\n"
		"      --header-only       the header alone: inputs, host, event, samples, losses\n"
		"      --header            accepted for perf's sake: the header always comes first\n"
		"      --folded            one line per unique stack: 'comm;outer;...;inner COUNT'\n"
		"                          (flamegraph.pl, speedscope); kernel frames end in _[k];\n"
		"                          of a recording of several events, the first event's\n"
		"                          (a note says so) unless --event picks one\n"
		"      --srcline           frames of --folded and of -g trees end in ' FILE:LINE'\n"
		"                          (as pprof -lines names them; the default in trees with\n"
		"                          -s ...srcline)\n"
		"      --stats             summarize each recording (header, frames, record counts\n"
		"                          by type and CPU, lost and throttled totals): the whole\n"
		"                          files, the filters do not apply (a note says so)\n"
		"      --dump              every record, one per line, in time order: the type name\n"
		"                          (SAMPLE, MMAP2, COMM, FORK, EXIT, SWITCH, LOST, ...) then\n"
		"                          its fields (time in seconds, cpu, pid/tid, ...); --pid,\n"
		"                          --tid, --cpu, --since and --until apply to the records that\n"
		"                          carry them, --comm, --unit and --event to the samples (by\n"
		"                          the thread's name and unit as the records before them\n"
		"                          made them); records without a task, CPU or time (header,\n"
		"                          kernel symbols, accounting) are always shown; --dso does\n"
		"                          not apply\n"
		"      --timeline[=N]      samples over time: a line per time bucket (at most N,\n"
		"                          default 30, of a round width) with its local time, its\n"
		"                          samples, those of the 4 busiest commands (units where\n"
		"                          the samples are in two units or more; -s comm or -s\n"
		"                          unit chooses) and a bar\n"
		"      --html FILE         the profile as one interactive page, readable offline\n"
		"                          (it makes no request): timeline by command or unit\n"
		"                          (drag a range), flame graph, inverted graph, sandwich,\n"
		"                          search and the function table; '-': stdout\n"
		"      --html-counts N     the most (stack, time bucket) counts the page keeps,\n"
		"                          about a byte each (default 1250000; 0: all): past\n"
		"                          them a range selected on the timeline snaps to wider\n"
		"                          steps (the timeline itself keeps every bucket)\n"
		"%s"
		"%s\n"
		"%s\n"
		"%s\n"
		"%s\n"
		"  -h, --help              this help\n"
		"  -V, --version           version\n"
		"\n"
		"Damaged or truncated parts of a recording are skipped with a warning that says where;\n"
		"everything intact is still used. The exit status is 1 only when nothing was usable.\n",
		options_help_input, options_help_pprof, options_help_output, options_help_filters,
		options_help_weight, options_help_symbols);
}

static void on_warn(void *arg, const char *msg)
{
	fprintf(stderr, PROG ": %s: warning: %s\n", (const char *)arg, msg);
}

/* --dump's filter for one recording: the wall-clock window in its own clock. */
static void dump_filter_init(struct dump_filter *df, const struct session_filter *f,
			     const struct rp_header_rec *h)
{
	*df = (struct dump_filter){ .pids = f->pids,
				    .n_pids = f->n_pids,
				    .tids = f->tids,
				    .n_tids = f->n_tids,
				    .cpus = f->cpus,
				    .n_cpus = f->n_cpus,
				    .until = UINT64_MAX };
	if (h && f->have_since)
		df->since = util_mono_ns(f->since, h->realtime_offset);
	if (h && f->have_until)
		df->until = util_mono_ns(f->until, h->realtime_offset);
}

static bool name_in(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (name && strcmp(names[i], name) == 0)
			return true;
	return false;
}

/* --dump's name filters on a sample of R: its event (--event), and its thread's name (--comm)
 * and unit (--unit) in PM, which the records before it built (replay_task_record()). A
 * sample that cannot be parsed (shown as malformed) or named for want of memory is kept. */
static bool dump_names_keep(struct procmodel *pm, const struct session_filter *f, struct reader *r,
			    const struct perf_event_header *h, uint64_t st)
{
	struct perfrec_sample smp;
	int64_t id;

	if (f->event) {
		uint32_t e = reader_event(r);
		const char *name = e < reader_n_events(r) ? reader_event_name(r, e) : NULL;

		if (!name || strcmp(name, f->event) != 0)
			return false;
	}
	if ((!f->n_comms && !f->n_units) || perfrec_parse_sample(h, st, &smp) < 0)
		return true;
	if (f->n_comms) {
		id = procmodel_comm_id(pm, (int32_t)smp.id.pid, (int32_t)smp.id.tid);
		if (id >= 0 &&
		    !name_in(f->comms, f->n_comms, strtab_get(procmodel_comms(pm), (uint32_t)id)))
			return false;
	}
	if (f->n_units) {
		id = procmodel_unit_id(pm, (int32_t)smp.id.pid, (int32_t)smp.id.tid);
		if (id >= 0 &&
		    !name_in(f->units, f->n_units, strtab_get(procmodel_units(pm), (uint32_t)id)))
			return false;
	}
	return true;
}

/* --dump of one record: whether the filters keep it (PM follows the records when a name
 * filter needs it). */
static bool dump_wanted(const struct dump_filter *df, struct procmodel *pm,
			const struct session_filter *f, struct reader *r,
			const struct perf_event_header *h, uint64_t st)
{
	if (pm && h->type != PERF_RECORD_SAMPLE)
		replay_task_record(pm, h, st); /* damage and lack of memory: names stay unknown */
	if (!dump_keep(df, h, st))
		return false;
	return h->type != PERF_RECORD_SAMPLE || dump_names_keep(pm, f, r, h, st);
}

/* The filters of F that MODE ignores, as "--comm, --dso", into buf (empty: none): --stats
 * counts whole files, --dump cannot tell a sample's object before symbolizing. */
static const char *filters_ignored(const struct session_filter *f, bool stats, char *buf,
				   size_t size)
{
	const char *names[9];
	size_t n = 0, len = 0;

	if (stats && f->n_pids)
		names[n++] = "--pid";
	if (stats && f->n_tids)
		names[n++] = "--tid";
	if (stats && f->n_cpus)
		names[n++] = "--cpu";
	if (stats && f->n_comms)
		names[n++] = "--comm";
	if (stats && f->n_units)
		names[n++] = "--unit";
	if (f->n_dsos)
		names[n++] = "--dso";
	if (stats && f->event)
		names[n++] = "--event";
	if (stats && (f->have_since || f->have_until))
		names[n++] = "--since/--until";
	buf[0] = '\0';
	for (size_t i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", names[i]);
	return buf;
}

/* One note for the filters --stats or --dump ignores, with what does apply them. */
static void note_ignored(const struct session_filter *f, bool stats)
{
	char names[128];

	if (!*filters_ignored(f, stats, names, sizeof(names)))
		return;
	if (stats)
		fprintf(stderr,
			PROG ": note: --stats counts whole recordings: %s %s not apply (report -n "
			     "counts the samples the filters keep)\n",
			names, strchr(names, ',') ? "do" : "does");
	else
		fprintf(stderr, PROG
			": note: --dump shows samples as recorded, before they are symbolized: "
			"--dso does not apply (ringprof script selects samples by object)\n");
}

static int inspect(const struct options *o, bool stats, bool dump)
{
	const struct session_filter *f = &o->so.filter;
	struct procmodel *pm = NULL;
	size_t usable = 0;

	note_ignored(f, stats);
	if (dump && (f->n_comms || f->n_units) && !(pm = procmodel_new())) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < o->n_inputs; i++) {
		const char *path = o->inputs[i];
		struct reader *r;
		const struct perf_event_header *h;
		struct filestats *s;
		struct dump_filter df;
		char why[512];
		uint64_t st;
		int rc = reader_open(path, &r, why, sizeof(why));

		if (rc < 0) {
			fprintf(stderr, PROG ": %s: %s\n", path, why);
			continue;
		}
		reader_set_warn(r, on_warn, (void *)path);
		s = calloc(1, sizeof(*s));
		if (!s) {
			fprintf(stderr, PROG ": out of memory\n");
			reader_free(r);
			procmodel_free(pm);
			return 1;
		}
		st = reader_sample_type(r);
		dump_filter_init(&df, f, reader_header(r));
		while ((h = reader_next(r))) {
			if (dump && dump_wanted(&df, pm, f, r, h, st))
				dump_record(stdout, h, st,
					    reader_n_events(r) > 1
						? reader_event_name(r, reader_event(r))
						: NULL);
			if (stats)
				filestats_add(s, h, st, reader_event(r));
		}
		if (stats)
			filestats_print(stdout, s, r, path);
		if (reader_stats(r)->frames)
			usable++;
		else
			fprintf(stderr,
				PROG ": %s: no intact frame in the file; nothing could be read\n",
				path);
		free(s);
		reader_free(r);
	}
	procmodel_free(pm);
	return usable ? 0 : 1;
}

enum {
	OPT_STATS = OPT_OWN,
	OPT_DUMP,
	OPT_FOLDED,
	OPT_CHILDREN,
	OPT_NO_CHILDREN,
	OPT_PERCENT_LIMIT,
	OPT_PERCENTAGE,
	OPT_STDIO,
	OPT_TUI,
	OPT_GTK,
	OPT_HEADER_ONLY,
	OPT_HTML,
	OPT_HTML_COUNTS,
	OPT_TIMELINE,
	OPT_HEADER,
	OPT_SRCLINE,
	OPT_JSON,
	OPT_SPEEDSCOPE,
};

/* What the command line asks for besides the shared options. */
struct args {
	struct options o;
	bool stats, dump, folded;
	bool json;		 /* --json */
	const char *speedscope;	 /* --speedscope FILE */
	const char *html;	 /* --html FILE */
	struct html_timeline tl; /* its buckets */
	bool html_counts;	 /* --html-counts given */
	unsigned timeline;	 /* --timeline[=N]: at most N buckets; 0: not asked */
	struct timeline_axis ax; /* its buckets */
	bool quiet, header_only; /* perf's -q (no "#" lines) and --header-only */
	int children;		 /* -1 as the recording allows, 0 --no-children, 1 --children */
	bool graph_asked, order_set;
	bool sort_set, limit_set; /* --sort (-s), --percent-limit given */
	struct print_opts po;
};

/* One comma-separated part of -g's SPEC. 0, or the exit status (said). */
static int call_graph_part(struct args *a, const char *t, int *n_numbers)
{
	double pct;

	if (strcmp(t, "graph") == 0 || strcmp(t, "function") == 0 || strcmp(t, "percent") == 0)
		return 0;
	if (strcmp(t, "none") == 0) {
		a->graph_asked = false;
		return 0;
	}
	if (strcmp(t, "caller") == 0 || strcmp(t, "callee") == 0) {
		a->po.graph = strcmp(t, "callee") == 0 ? PRINT_GRAPH_CALLEE : PRINT_GRAPH_CALLER;
		a->order_set = true;
		return 0;
	}
	if (util_parse_percent(t, &pct) == 0 && (*n_numbers)++ == 0) {
		a->po.graph_threshold = pct;
		return 0;
	}
	if (strcmp(t, "flat") == 0 || strcmp(t, "fractal") == 0 || strcmp(t, "folded") == 0 ||
	    strcmp(t, "address") == 0 || strcmp(t, "period") == 0 || strcmp(t, "count") == 0)
		fprintf(stderr,
			PROG
			": -g %s is not available: ringprof draws trees as 'graph' by function "
			"with percentages (for folded stacks use --folded)\n",
			t);
	else
		fprintf(stderr,
			PROG ": -g takes caller or callee, not '%s' (perf's graph and none, and a "
			     "threshold in %%, are taken too)\n",
			t);
	return EXIT_USAGE;
}

/* -g [SPEC], perf's spelling: graph|none, caller|callee, threshold, function, percent.
 * 0, or the exit status (said). */
static int parse_call_graph(struct args *a, const char *arg)
{
	char buf[128], *save = NULL;
	int n_numbers = 0, r;

	a->graph_asked = true;
	if (!arg)
		return 0;
	if (strlen(arg) >= sizeof(buf)) {
		fprintf(stderr, PROG ": -g: '%s' is too long\n", arg);
		return EXIT_USAGE;
	}
	strcpy(buf, arg);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if ((r = call_graph_part(a, t, &n_numbers)) != 0)
			return r;
	return 0;
}

/* -F, perf's fields: overhead (always shown), sample (-n), and sort keys. 0 or the exit
 * status (said). */
static int parse_fields(struct args *a, const char *arg)
{
	char buf[256], keys[256] = "", *save = NULL;

	if (strlen(arg) >= sizeof(buf)) {
		fprintf(stderr, PROG ": -F: '%s' is too long\n", arg);
		return EXIT_USAGE;
	}
	strcpy(buf, arg);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (strcmp(t, "overhead") == 0)
			continue;
		if (strcmp(t, "sample") == 0) {
			a->po.show_samples = true;
			continue;
		}
		if (strcmp(t, "overhead_children") == 0) {
			a->children = 1;
			continue;
		}
		strcat(keys, *keys ? "," : "");
		strcat(keys, t);
	}
	if (*keys && print_parse_sort(keys, &a->po) < 0) {
		fprintf(stderr,
			PROG
			": invalid -F fields '%s' (choose from overhead,overhead_children,sample,"
			"comm,pid,tid,dso,sym,cpu,unit)\n",
			arg);
		return EXIT_USAGE;
	}
	return 0;
}

/* --timeline[=N]. 0, or the exit status (said). */
static int parse_timeline(struct args *a, const char *arg)
{
	uint64_t n = 30;

	if (arg && (util_parse_u64(arg, &n) < 0 || n < 1 || n > 10000)) {
		fprintf(stderr, PROG ": invalid --timeline '%s' (buckets, from 1 to 10000)\n", arg);
		return EXIT_USAGE;
	}
	a->timeline = (unsigned)n;
	return 0;
}

/* --timeline is a profile's other form: not with the other outputs. 0, or EXIT_USAGE (said). */
static int check_timeline(const struct args *a)
{
	const char *other = a->o.pprof	     ? "pprof"
			    : a->html	     ? "html"
			    : a->stats	     ? "stats"
			    : a->dump	     ? "dump"
			    : a->folded	     ? "folded"
			    : a->header_only ? "header-only"
					     : NULL;

	if (!a->timeline || !other)
		return 0;
	fprintf(stderr, PROG ": --timeline and --%s are different outputs: choose one of them\n",
		other);
	return EXIT_USAGE;
}

/* Output options. 0, or the exit status after saying what is wrong. */
static int parse_output(struct args *a, int c, char *arg)
{
	switch (c) {
	case OPT_STATS:
		a->stats = true;
		break;
	case OPT_JSON:
		a->json = true;
		break;
	case OPT_SPEEDSCOPE:
		a->speedscope = arg;
		a->o.no_pager = true; /* the profile goes to a file */
		break;
	case OPT_DUMP:
		a->dump = true;
		break;
	case OPT_FOLDED:
		a->folded = true;
		break;
	case OPT_SRCLINE:
		a->po.srcline = true;
		break;
	case OPT_TIMELINE:
		return parse_timeline(a, arg);
	case OPT_HTML:
		a->html = arg;
		a->o.no_pager = true; /* the page goes to a file */
		break;
	case OPT_HTML_COUNTS:
		if (util_parse_u64(arg, &a->tl.max_counts) < 0) {
			fprintf(stderr, PROG ": invalid --html-counts '%s' (a number of counts)\n",
				arg);
			return EXIT_USAGE;
		}
		a->html_counts = true;
		break;
	case 'G':
		a->graph_asked = a->order_set = true;
		a->po.graph = PRINT_GRAPH_CALLER;
		break;
	case OPT_CHILDREN:
	case OPT_NO_CHILDREN:
		a->children = c == OPT_CHILDREN;
		break;
	case 'n':
		a->po.show_samples = true;
		break;
	case 's':
		a->sort_set = true;
		if (print_parse_sort(arg, &a->po) < 0) {
			fprintf(stderr,
				PROG ": invalid sort keys '%s' (choose from " PRINT_SORT_KEYS ")\n",
				arg);
			return EXIT_USAGE;
		}
		break;
	case 'F':
		return parse_fields(a, arg);
	case OPT_PERCENT_LIMIT:
		a->limit_set = true;
		if (util_parse_percent(arg, &a->po.percent_limit) < 0) {
			fprintf(stderr, PROG ": invalid --percent-limit '%s' (a percentage)\n", arg);
			return EXIT_USAGE;
		}
		break;
	case 't':
		if (print_parse_field_sep(&a->po, PROG, arg) < 0)
			return EXIT_USAGE;
		break;
	case OPT_PERCENTAGE:
		if (strcmp(arg, "relative") && strcmp(arg, "absolute")) {
			fprintf(stderr,
				PROG ": --percentage takes relative or absolute, not '%s'\n", arg);
			return EXIT_USAGE;
		}
		a->po.absolute = arg[0] == 'a';
		break;
	}
	return 0;
}

/* One option into a; -h and -V end the program here. 0, or the exit status after saying
 * what is wrong. */
static int parse_option(struct args *a, int c, char *arg, int argc, char **argv)
{
	int r = options_parse(&a->o, c, arg, argv);

	if (r != 1)
		return r;
	switch (c) {
	case 'g':
		/* report takes no operands: a word after a bare -g is its SPEC (perf: -g caller). */
		if (!arg && optind < argc && argv[optind][0] != '-')
			arg = argv[optind++];
		return parse_call_graph(a, arg);
	case OPT_STDIO:
		return 0;
	case 'q':
		a->quiet = a->po.no_titles = true;
		return 0;
	case OPT_HEADER_ONLY:
		a->header_only = true;
		return 0;
	case OPT_HEADER:
		return 0;
	case OPT_TUI:
	case OPT_GTK:
		fprintf(stderr,
			PROG ": %s is not available: ringprof prints text only (as perf's "
			     "--stdio)\n",
			c == OPT_TUI ? "--tui" : "--gtk");
		return EXIT_USAGE;
	case 'h':
		usage(stdout);
		exit(EXIT_SUCCESS);
	case 'V':
		printf("ringprof report %s\n", PACKAGE_VERSION);
		exit(EXIT_SUCCESS);
	default:
		return parse_output(a, c, arg);
	}
}

/* --json and -t print the flat table: not with another output, nor with trees. 0, or the
 * exit status (said). */
static int check_table_outputs(const struct args *a)
{
	if (a->speedscope && (a->o.pprof || a->html || a->json || a->stats + a->dump + a->folded ||
			      a->timeline || a->header_only || a->po.field_sep)) {
		fprintf(stderr, PROG ": --speedscope writes the stacks to its file: not with "
				     "another output (--pprof, --html, --json, --folded, -t...)\n");
		return EXIT_USAGE;
	}
	if (a->json && (a->o.pprof || a->html || a->stats + a->dump + a->folded || a->timeline ||
			a->header_only || a->po.field_sep || a->graph_asked)) {
		fprintf(stderr,
			PROG ": --json is the header and the flat table as JSON: not with --%s\n",
			a->o.pprof	  ? "pprof"
			: a->html	  ? "html"
			: a->stats	  ? "stats"
			: a->dump	  ? "dump"
			: a->folded	  ? "folded"
			: a->timeline	  ? "timeline"
			: a->header_only  ? "header-only"
			: a->po.field_sep ? "field-separator (-t)"
					  : "call-graph (-g)");
		return EXIT_USAGE;
	}
	if (a->po.field_sep && a->graph_asked) {
		fprintf(stderr, PROG ": -t prints one line per entry, without call-graph trees: "
				     "give -t or -g, not both\n");
		return EXIT_USAGE;
	}
	return 0;
}

/* Which frames' lines are looked up: every one where lines are shown (-s srcline, --srcline);
 * a table of leaves without Children or trees shows no other frame's line, so only the
 * leaves' are (--srcline asks for the others, in trees and --folded). */
static void srcline_scope(struct args *a)
{
	a->o.so.srcline_leaves = !a->po.srcline && a->children == 0 && !a->graph_asked &&
				 !a->folded && !a->json && !a->html && !a->speedscope &&
				 !a->timeline && !a->o.pprof;
	if (print_has_key(&a->po, PRINT_SRCLINE))
		a->po.srcline = true;
	a->o.so.srcline = a->po.srcline;
}

/* --html is an output of its own; --html-counts one of its settings. 0, or EXIT_USAGE (said). */
static int check_html(const struct args *a)
{
	if (a->html && (a->o.pprof || a->stats + a->dump + a->folded)) {
		fprintf(stderr,
			PROG ": --html and --%s are different outputs: choose one of them\n",
			a->o.pprof ? "pprof"
			: a->stats ? "stats"
			: a->dump  ? "dump"
				   : "folded");
		return EXIT_USAGE;
	}
	if (a->html_counts && !a->html) {
		fprintf(stderr, PROG ": --html-counts is a setting of --html: give --html FILE\n");
		return EXIT_USAGE;
	}
	return 0;
}

/* 0 to report, or the exit status after saying what is wrong. */
static int parse_argv(struct args *a, int argc, char **argv)
{
	static const struct option longopts[] = {
		OPTIONS_LONGOPTS,
		OPTIONS_PERF_LONGOPTS,
		OPTIONS_PPROF_LONGOPT,
		OPTIONS_LONGOPTS_WEIGHT,
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "dump", no_argument, NULL, OPT_DUMP },
		{ "folded", no_argument, NULL, OPT_FOLDED },
		{ "srcline", no_argument, NULL, OPT_SRCLINE },
		{ "html", required_argument, NULL, OPT_HTML },
		{ "html-counts", required_argument, NULL, OPT_HTML_COUNTS },
		{ "timeline", optional_argument, NULL, OPT_TIMELINE },
		{ "call-graph", optional_argument, NULL, 'g' },
		{ "inverted", no_argument, NULL, 'G' },
		{ "children", no_argument, NULL, OPT_CHILDREN },
		{ "no-children", no_argument, NULL, OPT_NO_CHILDREN },
		{ "show-nr-samples", no_argument, NULL, 'n' },
		{ "sort", required_argument, NULL, 's' },
		{ "fields", required_argument, NULL, 'F' },
		{ "percent-limit", required_argument, NULL, OPT_PERCENT_LIMIT },
		{ "percentage", required_argument, NULL, OPT_PERCENTAGE },
		{ "field-separator", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "speedscope", required_argument, NULL, OPT_SPEEDSCOPE },
		{ "stdio", no_argument, NULL, OPT_STDIO },
		{ "tui", no_argument, NULL, OPT_TUI },
		{ "gtk", no_argument, NULL, OPT_GTK },
		{ "quiet", no_argument, NULL, 'q' },
		{ "header-only", no_argument, NULL, OPT_HEADER_ONLY },
		/* perf's --header (the header, then the report): ours always has it. Named, so
		 * that getopt does not take it for an abbreviation of --header-only. */
		{ "header", no_argument, NULL, OPT_HEADER },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c, r;

	options_init(&a->o, PROG);
	a->po = (struct print_opts){ .keys = { PRINT_COMM, PRINT_DSO, PRINT_SYM },
				     .n_keys = 3,
				     .graph_threshold = 0.5 };
	a->children = -1;
	a->tl.max_counts = HTML_MAX_COUNTS;
	cli_options(longopts);
	while ((c = getopt_long(argc, argv, ":" OPTIONS_SHORTS "g::Gns:F:t:qhV", longopts, NULL)) !=
	       -1) {
		r = parse_option(a, c, optarg, argc, argv);
		if (r)
			return r;
	}
	if (a->stats + a->dump + a->folded > 1) {
		fprintf(stderr, PROG ": --stats, --dump and --folded are different outputs: choose "
				     "one of them\n");
		return EXIT_USAGE;
	}
	if ((r = check_html(a)) != 0)
		return r;
	if (a->header_only &&
	    (a->o.pprof || a->html || a->stats + a->dump + a->folded || a->quiet)) {
		fprintf(stderr,
			PROG ": --header-only prints the report's header alone: not with "
			     "--%s\n",
			a->o.pprof  ? "pprof"
			: a->html   ? "html"
			: a->stats  ? "stats"
			: a->dump   ? "dump"
			: a->folded ? "folded"
				    : "quiet (-q)");
		return EXIT_USAGE;
	}
	r = check_table_outputs(a);
	if (r)
		return r;
	if (a->o.pprof && a->stats + a->dump + a->folded) {
		fprintf(stderr,
			PROG ": --pprof and --%s are different outputs: choose one of them\n",
			a->stats  ? "stats"
			: a->dump ? "dump"
				  : "folded");
		return EXIT_USAGE;
	}
	srcline_scope(a);
	/* pprof's Line messages always carry lines. */
	a->o.so.lines = a->o.pprof != NULL;
	/* --symbol-filter: perf's entry filter in the table, the leaf symbol elsewhere. */
	if (a->o.pprof || a->html || a->folded)
		a->po.symbol_filter = NULL;
	else
		a->po.symbol_filter = a->o.symbol_filter;
	return options_finish(&a->o, argc, argv);
}

/* Notes on options the recording makes moot: said once, before the report. */
static void note_moot(const struct session *s, const struct args *a)
{
	const struct rp_header_rec *h = session_header(s);

	if (!h || (h->flags & RP_HDR_CALLCHAIN))
		return;
	if (a->graph_asked && !a->folded)
		fprintf(stderr, PROG
			": note: the recording has no callchains, so there is no call graph to "
			"show; record with -g\n");
	if (a->children == 1)
		fprintf(stderr, PROG ": note: the recording has no callchains, so Children would "
				     "equal Self: only Self is shown; record with -g\n");
}

/* --pprof: the profile to its file. The exit status (a failure said). */
static int write_pprof(const struct session *s, const struct args *a)
{
	char why[512];

	if (pprof_write(s, NULL, a->o.pprof, why, sizeof(why)) == 0)
		return EXIT_SUCCESS;
	fprintf(stderr, PROG ": --pprof: %s\n", why);
	return EXIT_FAILURE;
}

/* --speedscope: the profile to its file. The exit status (a failure said). */
static int write_speedscope(const struct session *s, const struct args *a)
{
	char why[512];

	if (speedscope_write(s, a->speedscope, why, sizeof(why)) == 0)
		return EXIT_SUCCESS;
	fprintf(stderr, PROG ": --speedscope: %s\n", why);
	return EXIT_FAILURE;
}

/* --html: the page to its file. The exit status (a failure said). */
static int write_html(const struct session *s, const struct args *a)
{
	char why[512];

	note_moot(s, a);
	if (html_write(s, a->html, a->o.inputs, a->o.n_inputs, &a->tl, a->o.so.symfs, why,
		       sizeof(why)) == 0)
		return EXIT_SUCCESS;
	fprintf(stderr, PROG ": --html: %s\n", why);
	return EXIT_FAILURE;
}

/* The folded stacks, or the header and the table (one section of several events: perf's
 * "# Samples: N of event 'NAME'" line before it). 0 or -errno. */
static int print_report(const struct session *s, const struct args *a, bool section)
{
	const struct rp_header_rec *h = session_header(s);
	bool callchains = !h || (h->flags & RP_HDR_CALLCHAIN);
	struct print_opts po = a->po;

	/* Children needs callchains; without them every entry's Children equals Self. */
	po.children = a->children != 0 && callchains;
	/* perf's default order: the caller tree with Children, the callee tree without. */
	if (a->graph_asked && !a->order_set)
		po.graph = po.children ? PRINT_GRAPH_CALLER : PRINT_GRAPH_CALLEE;
	if (!a->graph_asked || !callchains)
		po.graph = PRINT_GRAPH_NONE;
	note_moot(s, a);
	if (a->folded)
		return print_folded(stdout, s, po.srcline);
	if (a->json)
		return json_write_report(stdout, s, &po, a->o.inputs, a->o.n_inputs);
	if (!a->quiet)
		print_header(stdout, s, a->o.inputs, a->o.n_inputs);
	if (a->header_only)
		return 0;
	if (section && !a->quiet)
		printf("# Samples: %" PRIu64 " of event '%s'\n#\n", session_totals(s)->samples,
		       a->o.so.filter.event);
	if (a->timeline)
		return timeline_print(stdout, s, &a->ax,
				      !a->sort_set		    ? TIMELINE_AUTO
				      : a->po.keys[0] == PRINT_UNIT ? TIMELINE_UNIT
				      : a->po.keys[0] == PRINT_COMM ? TIMELINE_COMM
								    : TIMELINE_AUTO);
	return print_flat(stdout, s, &po);
}

/* Read, symbolize and print one report (one event's section with several events). The exit
 * status. */
static int report_one(struct args *a, bool section)
{
	struct session *s = options_session(&a->o);
	int r;

	if (!s)
		return EXIT_FAILURE;
	if (!options_read(&a->o, s)) {
		session_free(s);
		return EXIT_FAILURE;
	}
	r = session_finish(s);
	if (r < 0) {
		fprintf(stderr, PROG ": %s\n", strerror(-r));
		session_free(s);
		return EXIT_FAILURE;
	}
	options_note_nolines(&a->o, s);
	if (a->o.pprof || a->html || a->speedscope) {
		r = a->html	    ? write_html(s, a)
		    : a->speedscope ? write_speedscope(s, a)
				    : write_pprof(s, a);
		session_free(s);
		return r;
	}
	r = print_report(s, a, section);
	session_free(s);
	if (r < 0) {
		fprintf(stderr, PROG ": %s\n", strerror(-r));
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

/* The events' names, "a, b, c", into buf. */
static const char *event_list(const struct rp_event_desc *evs, size_t n, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", evs[i].name);
	return buf;
}

/* --event NAME among the events EVS of the recordings: 0, else the exit status (said, with the
 * events there are). */
static int event_present(const struct options *o, const struct rp_event_desc *evs, size_t n)
{
	char names[1024];

	for (size_t i = 0; i < n; i++)
		if (strcmp(evs[i].name, o->so.filter.event) == 0)
			return 0;
	fprintf(stderr, PROG ": no event '%s' in the recording%s; %s: %s\n", o->so.filter.event,
		o->n_inputs > 1 ? "s" : "", n > 1 ? "they have" : "it has",
		n ? event_list(evs, n, names, sizeof(names)) : "none readable");
	return EXIT_USAGE;
}

/* --dump --event NAME: the recordings must have it, as for the report. The exit status. */
static int dump_event_present(const struct options *o)
{
	struct rp_event_desc evs[RP_MAX_EVENTS];
	size_t n = 0;

	if (!o->so.filter.event)
		return 0;
	if (session_list_events(o->inputs, o->n_inputs, evs, RP_MAX_EVENTS, &n) < 0) {
		fprintf(stderr, PROG ": out of memory\n");
		return EXIT_FAILURE;
	}
	return event_present(o, evs, n);
}

/* --off-cpu and --wall: one report of the switch-outs (and CPU samples). The exit status. */
static int report_weighted(struct args *a)
{
	int r = options_check_weight(&a->o);

	return r ? r : report_one(a, false);
}

/* Every event's report (one section each, as perf), or the one --event picks; --folded of
 * several events takes the first, with a note. The exit status. */
static int report_events(struct args *a)
{
	struct rp_event_desc evs[RP_MAX_EVENTS];
	char names[1024];
	size_t n = 0;
	int r = EXIT_SUCCESS;

	if (session_list_events(a->o.inputs, a->o.n_inputs, evs, RP_MAX_EVENTS, &n) < 0) {
		fprintf(stderr, PROG ": out of memory\n");
		return EXIT_FAILURE;
	}
	if (a->o.so.weight != SESSION_CPU)
		return report_weighted(a);
	if (a->o.so.filter.event) {
		r = event_present(&a->o, evs, n);
		return r ? r : report_one(a, false);
	}
	if (n < 2)
		return report_one(a, false);
	if (a->folded || a->o.pprof || a->html || a->json || a->speedscope) {
		fprintf(stderr,
			PROG ": note: the recording has %zu events (%s); --%s shows '%s' — pick "
			     "another with --event NAME\n",
			n, event_list(evs, n, names, sizeof(names)),
			a->folded	? "folded"
			: a->html	? "html"
			: a->json	? "json"
			: a->speedscope ? "speedscope"
					: "pprof",
			evs[0].name);
		a->o.so.filter.event = evs[0].name;
		return report_one(a, false);
	}
	for (size_t i = 0; i < n && r == EXIT_SUCCESS; i++) {
		if (i)
			printf("\n");
		a->o.so.filter.event = evs[i].name;
		r = report_one(a, true);
	}
	a->o.so.filter.event = NULL;
	return r;
}

/* Read, symbolize and print; then the grouped warnings. The exit status. */
static int report(struct args *a)
{
	int r = report_events(a);

	if (r != EXIT_SUCCESS)
		return r;
	fflush(stdout);
	options_warn_done(&a->o);
	return EXIT_SUCCESS;
}

/* The profile's layout and weight, which --stats and --dump (records, not a profile) do not
 * use: one note naming the options given. */
static void note_layout_ignored(const struct args *a)
{
	const char *names[6];
	char buf[128];
	size_t n = 0, len = 0;

	if (a->graph_asked)
		names[n++] = "-g";
	if (a->sort_set)
		names[n++] = "--sort";
	if (a->limit_set)
		names[n++] = "--percent-limit";
	if (a->children >= 0)
		names[n++] = a->children ? "--children" : "--no-children";
	if (a->o.so.weight != SESSION_CPU)
		names[n++] = a->o.so.weight == SESSION_OFFCPU ? "--off-cpu" : "--wall";
	if (!n)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < n && len < sizeof(buf); i++)
		len +=
		    (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? ", " : "", names[i]);
	fprintf(stderr, PROG ": note: --%s prints %s, not a profile: %s %s not apply\n",
		a->stats ? "stats" : "dump",
		a->stats ? "what the recordings hold" : "the records as recorded", buf,
		n > 1 ? "do" : "does");
}

int main(int argc, char **argv)
{
	static struct args a;
	int r;

	r = parse_argv(&a, argc, argv);
	if (r)
		return r;
	r = options_filter(&a.o);
	if (!r && (a.o.pprof || a.html || a.folded))
		r = options_symbol_filter_leaf(&a.o);
	if (r)
		return r;
	if (a.dump && (r = dump_event_present(&a.o)) != 0)
		return r;
	if ((r = check_timeline(&a)) != 0)
		return r;
	if (a.timeline) {
		timeline_axis(a.o.inputs, a.o.n_inputs, &a.o.so.filter, a.timeline, &a.ax);
		a.o.so.bucket_ns = a.ax.ns;
		a.o.so.bucket_origin = a.ax.origin;
	}
	if (a.html) {
		/* The timeline's buckets are fixed before reading; cut stacks are marked. */
		html_buckets(a.o.inputs, a.o.n_inputs, &a.o.so.filter, &a.tl);
		a.o.so.bucket_ns = a.tl.ns;
		a.o.so.bucket_origin = a.tl.origin;
		a.o.so.mark_cut = true;
	}
	pager_start(a.o.no_pager);
	if (a.stats || a.dump) {
		note_layout_ignored(&a);
		r = inspect(&a.o, a.stats, a.dump);
	} else
		r = report(&a);
	r = options_output_done(&a.o, r, "the report");
	return pager_done(r);
}
