/* ringprof-diff.c — `ringprof diff`: two profiles compared entry by entry, as perf diff, or
 * as the two-count folded stacks of a differential flame graph. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "format/format.h"
#include "html.h"
#include "json.h"
#include "options.h"
#include "cli/pager.h"
#include "profile/diff.h"
#include "profile/print.h"
#include "profile/session.h"

#define PROG "ringprof diff"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ringprof diff [OPTIONS] [BASELINE NEW]\n"
		"\n"
		"Without operands, ringprof.data.old (the recording before the last, which ringprof\n"
		"record keeps) is compared with ringprof.data, as perf diff does.\n"
		"\n"
		"Compare two profiles, as perf diff does. BASELINE and NEW are each a recording or a\n"
		"directory of them (every *.data and *.data.partial in it, as report --dir reads\n"
		"them); the same directory twice with two windows compares two periods of ringprofd.\n"
		"\n"
		"Entries are matched by their names (object and symbol, and the other --sort keys),\n"
		"never by address, so rebuilds and address-space randomization do not matter. Each\n"
		"side's shares are of its own total (Self, weighted by sample period); Delta is the\n"
		"new share minus the baseline's in percentage points, Ratio the new share over the\n"
		"baseline's; the largest changes come first. An entry seen on one side only says\n"
		"'only base' or 'only new' in the Ratio column. With --off-cpu and --wall the shares\n"
		"are Children (the time of every stack through the entry, as report's flat view):\n"
		"off-CPU stacks all end in [off-cpu] [waiting] or [preempted], so the function that\n"
		"waited has no Self time.\n"
		"\n"
		"Windows (WHEN as report's --since/--until, resolved against each side's recordings):\n"
		"      --since WHEN, --until WHEN  both sides' window\n"
		"      --baseline-since WHEN       the baseline's own window (either one replaces\n"
		"      --baseline-until WHEN       --since/--until for the baseline), e.g.\n"
		"                                  --baseline-since -2h --baseline-until -1h\n"
		"                                  --since -1h /var/lib/ringprof /var/lib/ringprof\n"
		"\n"
		"%s\n"
		"%s\n"
		"%s\n"
		"Output:\n"
		"  -s, --sort KEYS         entry keys, from comm,pid,tid,dso,sym,cpu,unit,srcline\n"
		"                          (perf's 'symbol' is sym; unit: the systemd unit or\n"
		"                          container; srcline: FILE:LINE from DWARF line tables,\n"
		"                          OBJECT+0xOFFSET where the object has none)\n"
		"                          (default dso,sym)\n"
		"      --percent-limit PCT hide entries below PCT %% on both sides\n"
		"      --folded            one line per unique stack, 'comm;outer;...;inner A B' with\n"
		"                          the sample counts of each side (FlameGraph's difffolded.pl\n"
		"                          format: flamegraph.pl draws the differential graph;\n"
		"                          microseconds with --off-cpu and --wall); the baseline's\n"
		"                          counts scaled to the new side's total, as\n"
		"                          difffolded.pl -n does (floor(count * NEW / BASE))\n"
		"      --no-normalize      --folded with each side's raw counts\n"
		"      --html FILE         the comparison as one interactive page (- for stdout),\n"
		"                          readable offline: a differential flame graph (widths of\n"
		"                          one side, colours by the change in share: red grew, blue\n"
		"                          shrank, both totals in its legend) and this table\n"
		"  -t, --field-separator C the table's columns joined by the character C, not\n"
		"                          padded, and C in names turned into '.' (perf's -t)\n"
		"      --json              both sides' totals and the table as one JSON object\n"
		"                          (members in ringprof-diff(1), as report --json's)\n"
		"      --children          shares of Children (the default with --off-cpu, --wall)\n"
		"      --no-children       shares of Self (the default otherwise)\n"
		"%s"
		"  -h, --help              this help\n"
		"  -V, --version           version\n",
		options_help_filters, options_help_weight, options_help_symbols,
		options_help_output);
}

enum {
	OPT_FOLDED = OPT_OWN,
	OPT_HTML,
	OPT_PERCENT_LIMIT,
	OPT_BASE_SINCE,
	OPT_BASE_UNTIL,
	OPT_CHILDREN,
	OPT_NO_CHILDREN,
	OPT_JSON,
	OPT_NO_NORMALIZE,
};

/* What the command line asks for: the options of both sides, parsed into side[0] and copied. */
struct args {
	struct options side[DIFF_SIDES];
	const char *base_since, *base_until;
	bool folded;
	bool raw;	  /* --no-normalize */
	bool json;	  /* --json */
	const char *html; /* --html FILE */
	int children;	  /* -1: with --off-cpu and --wall, 0 --no-children, 1 --children */
	struct print_opts po;
};

/* diff's own options. 0, or the exit status (said); -h and -V end the program here. */
static int parse_own(struct args *a, int c, char *arg)
{
	switch (c) {
	case 'i':
	case OPT_DIR:
		fprintf(stderr,
			PROG ": give the two recordings (or directories) as operands: ringprof "
			     "diff BASELINE NEW\n");
		return EXIT_USAGE;
	case 's':
		if (print_parse_sort(arg, &a->po) < 0) {
			fprintf(stderr,
				PROG ": invalid sort keys '%s' (choose from " PRINT_SORT_KEYS ")\n",
				arg);
			return EXIT_USAGE;
		}
		return 0;
	case OPT_FOLDED:
		a->folded = true;
		return 0;
	case OPT_NO_NORMALIZE:
		a->raw = true;
		return 0;
	case OPT_HTML:
		a->html = arg;
		return 0;
	case OPT_JSON:
		a->json = true;
		return 0;
	case 't':
		if (print_parse_field_sep(&a->po, PROG, arg) < 0)
			return EXIT_USAGE;
		return 0;
	case OPT_PERCENT_LIMIT:
		if (util_parse_percent(arg, &a->po.percent_limit) < 0) {
			fprintf(stderr, PROG ": invalid --percent-limit '%s' (a percentage)\n", arg);
			return EXIT_USAGE;
		}
		return 0;
	case OPT_BASE_SINCE:
		a->base_since = arg;
		return 0;
	case OPT_BASE_UNTIL:
		a->base_until = arg;
		return 0;
	case OPT_CHILDREN:
	case OPT_NO_CHILDREN:
		a->children = c == OPT_CHILDREN;
		return 0;
	case 'h':
		usage(stdout);
		exit(EXIT_SUCCESS);
	case 'V':
		printf("ringprof diff %s\n", PACKAGE_VERSION);
		exit(EXIT_SUCCESS);
	}
	return EXIT_USAGE;
}

/* The two operands into each side's inputs, each side's window. 0 or the exit status (said). */
static int take_operands(struct args *a, int argc, char **argv)
{
	struct options *b = &a->side[DIFF_BASE], *n = &a->side[DIFF_NEW];
	/* None: as perf diff, the recording before the last (record keeps it) and the last. */
	const char *base = optind < argc ? argv[optind] : "ringprof.data.old";
	const char *new = optind + 1 < argc ? argv[optind + 1] : "ringprof.data";

	if (argc == optind && access(base, F_OK) != 0) {
		fprintf(stderr,
			PROG
			": no operands, and no %s to compare with %s (ringprof record keeps the "
			"last recording as ringprof.data.old); give BASELINE and NEW\n",
			base, new);
		return EXIT_USAGE;
	}
	if (argc - optind == 1 || argc - optind > 2) {
		fprintf(stderr,
			PROG ": %s: give two recordings (or directories), BASELINE and NEW\n",
			argc - optind < 2 ? "too few operands" : "too many operands");
		fprintf(stderr, "Try '" PROG " --help'.\n");
		return EXIT_USAGE;
	}
	*n = *b; /* no inputs yet: the two share only borrowed strings */
	/* Either one gives the baseline a window of its own: the shared one is not mixed in. */
	if (a->base_since || a->base_until) {
		b->since = a->base_since;
		b->until = a->base_until;
	}
	if (options_add_path(b, base) < 0 || options_add_path(n, new) < 0)
		return EXIT_FAILURE;
	if (!b->n_inputs || !n->n_inputs)
		return EXIT_FAILURE; /* an empty directory: said */
	return 0;
}

/* 0 to compare, or the exit status after saying what is wrong. */
static int parse_argv(struct args *a, int argc, char **argv)
{
	static const struct option longopts[] = {
		OPTIONS_LONGOPTS,
		OPTIONS_PERF_LONGOPTS,
		OPTIONS_LONGOPTS_WEIGHT,
		{ "sort", required_argument, NULL, 's' },
		{ "folded", no_argument, NULL, OPT_FOLDED },
		{ "no-normalize", no_argument, NULL, OPT_NO_NORMALIZE },
		{ "html", required_argument, NULL, OPT_HTML },
		{ "percent-limit", required_argument, NULL, OPT_PERCENT_LIMIT },
		{ "baseline-since", required_argument, NULL, OPT_BASE_SINCE },
		{ "baseline-until", required_argument, NULL, OPT_BASE_UNTIL },
		{ "children", no_argument, NULL, OPT_CHILDREN },
		{ "no-children", no_argument, NULL, OPT_NO_CHILDREN },
		{ "field-separator", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c, r;

	options_init(&a->side[DIFF_BASE], PROG);
	a->children = -1;
	a->po = (struct print_opts){ .keys = { PRINT_DSO, PRINT_SYM }, .n_keys = 2 };
	cli_options(longopts);
	while ((c = getopt_long(argc, argv, ":" OPTIONS_SHORTS "s:t:hV", longopts, NULL)) != -1) {
		r = c == 'i' || c == OPT_DIR ? 1
					     : options_parse(&a->side[DIFF_BASE], c, optarg, argv);
		if (r == 1)
			r = parse_own(a, c, optarg);
		if (r)
			return r;
	}
	/* Off-CPU stacks all end in [off-cpu]: the function that waited has Children only, as
	 * in report's flat view. */
	if (a->children < 0)
		a->children = a->side[DIFF_BASE].so.weight != SESSION_CPU;
	if (!!a->html + a->folded + a->json + !!a->po.field_sep > 1) {
		fprintf(stderr, PROG ": --html, --folded, --json and -t are different outputs: "
				     "choose one\n");
		return EXIT_USAGE;
	}
	if (a->raw && !a->folded) {
		fprintf(stderr,
			PROG ": --no-normalize is of --folded's counts (the table's shares are "
			     "always of each side's own total)\n");
		return EXIT_USAGE;
	}
	a->side[DIFF_BASE].so.srcline = print_has_key(&a->po, PRINT_SRCLINE);
	return take_operands(a, argc, argv);
}

/* One side's line of the header: its inputs, samples, losses, event. */
static void print_side(FILE *f, const char *what, const struct options *o, const struct session *s)
{
	const struct session_totals *t = session_totals(s);
	const struct rp_header_rec *h = session_header(s);
	const struct rp_event_desc *ev = session_selected_event(s);
	double all = (double)t->samples + (double)t->lost;

	fprintf(f, "# %s: %s", what, o->inputs[0]);
	if (o->n_inputs > 1)
		fprintf(f, " and %zu more recording%s", o->n_inputs - 1, o->n_inputs > 2 ? "s" : "");
	fprintf(f, ": %" PRIu64 " samples over %.3f s, lost %" PRIu64 " (%.2f%%)", t->samples,
		t->t_last > t->t_first ? (double)(t->t_last - t->t_first) / 1e9 : 0.0, t->lost,
		all > 0 ? 100.0 * (double)t->lost / all : 0.0);
	if (ev)
		fprintf(f, ", event %s", ev->name);
	else if (h)
		fprintf(f, ", event %.63s", h->event_name);
	fputc('\n', f);
}

static size_t field_width(const struct diff_entry *e, size_t n, enum print_key k, const char *title)
{
	size_t w = strlen(title);

	for (size_t i = 0; i < n; i++) {
		size_t len = e[i].field[k] ? strlen(e[i].field[k]) : 0;

		if (len > w)
			w = len < 40 ? len : 40;
	}
	return w;
}

/* A share, or blanks for a side without the entry. */
static void print_share(FILE *f, uint64_t w, double pct)
{
	if (w)
		fprintf(f, " %8.2f%%", pct);
	else
		fprintf(f, " %9s", "");
}

static int cmp_lines(const void *a, const void *b)
{
	return strcmp((*(const struct diff_entry *const *)a)->field[0],
		      (*(const struct diff_entry *const *)b)->field[0]);
}

/* The entries, largest change first, as perf diff's columns. */
static void print_entries(FILE *f, const struct args *a, const struct diff_entry *e, size_t n,
			  const double total[DIFF_SIDES])
{
	const struct print_opts *o = &a->po;
	size_t w[PRINT_N_KEYS];

	for (size_t k = 0; k < o->n_keys; k++)
		w[o->keys[k]] = field_width(e, n, o->keys[k], print_key_title(o->keys[k]));
	fprintf(f, "# %8s %9s %9s %9s", "Baseline", "New", "Delta", "Ratio");
	for (size_t k = 0; k < o->n_keys; k++)
		fprintf(f, "  %-*s", k + 1 < o->n_keys ? (int)w[o->keys[k]] : 0,
			print_key_title(o->keys[k]));
	fputc('\n', f);
	for (size_t i = 0; i < n; i++) {
		double b = 100.0 * (double)e[i].w[DIFF_BASE] / total[DIFF_BASE],
		       nw = 100.0 * (double)e[i].w[DIFF_NEW] / total[DIFF_NEW];

		if (b < o->percent_limit && nw < o->percent_limit)
			continue;
		print_share(f, e[i].w[DIFF_BASE], b);
		print_share(f, e[i].w[DIFF_NEW], nw);
		fprintf(f, " %+9.2f", nw - b);
		if (!e[i].w[DIFF_BASE])
			fprintf(f, " %9s", "only new");
		else if (!e[i].w[DIFF_NEW])
			fprintf(f, " %9s", "only base");
		else
			fprintf(f, " %9.2f", nw / b);
		for (size_t k = 0; k < o->n_keys; k++)
			fprintf(f, "  %-*.40s", k + 1 < o->n_keys ? (int)w[o->keys[k]] : 0,
				e[i].field[o->keys[k]]);
		fputc('\n', f);
	}
}

/* -t: a side's share, or nothing for a side without the entry. */
static void print_share_sep(FILE *f, uint64_t w, double pct)
{
	if (w)
		fprintf(f, "%.2f%%", pct);
}

/* -t: the columns of print_entries(), joined by the separator, none padded. */
static void print_entries_sep(FILE *f, const struct args *a, const struct diff_entry *e, size_t n,
			      const double total[DIFF_SIDES])
{
	const struct print_opts *o = &a->po;
	char sep = o->field_sep;

	fprintf(f, "# Baseline%cNew%cDelta%cRatio", sep, sep, sep);
	for (size_t k = 0; k < o->n_keys; k++) {
		fputc(sep, f);
		print_field_sep(f, sep, print_key_title(o->keys[k]));
	}
	fputc('\n', f);
	for (size_t i = 0; i < n; i++) {
		double b = 100.0 * (double)e[i].w[DIFF_BASE] / total[DIFF_BASE],
		       nw = 100.0 * (double)e[i].w[DIFF_NEW] / total[DIFF_NEW];

		if (b < o->percent_limit && nw < o->percent_limit)
			continue;
		print_share_sep(f, e[i].w[DIFF_BASE], b);
		fputc(sep, f);
		print_share_sep(f, e[i].w[DIFF_NEW], nw);
		fprintf(f, "%c%+.2f%c", sep, nw - b, sep);
		if (!e[i].w[DIFF_BASE] || !e[i].w[DIFF_NEW])
			fputs(e[i].w[DIFF_BASE] ? "only base" : "only new", f);
		else
			fprintf(f, "%.2f", nw / b);
		for (size_t k = 0; k < o->n_keys; k++) {
			fputc(sep, f);
			print_field_sep(f, sep, e[i].field[o->keys[k]]);
		}
		fputc('\n', f);
	}
}

/* --json: one key's member(s) of a row: numbers for pid, tid and cpu; the symbol without its
 * "[k] " mark, which becomes "kernel", as report --json writes them. */
static void json_key(FILE *f, enum print_key key, const char *text)
{
	fprintf(f, ", \"%s\": ", json_key_names[key]);
	if (key == PRINT_PID || key == PRINT_TID || key == PRINT_CPU) {
		fputs(text && *text ? text : "null", f);
	} else if (key == PRINT_SYM && text && text[0] == '[' && text[2] == ']' && text[3] == ' ') {
		json_str(f, text + 4);
		fprintf(f, ", \"kernel\": %s", text[1] == 'k' ? "true" : "false");
	} else {
		json_str(f, text ? text : "");
	}
}

/* --json: a side's share in percent, or null for a side without the entry. */
static void json_share(FILE *f, const char *name, uint64_t w, double pct)
{
	fprintf(f, "\"%s\": ", name);
	if (w)
		fprintf(f, "%.4f", pct);
	else
		fputs("null", f);
	fprintf(f, ", \"%s_period\": %" PRIu64, name, w);
}

/* --json: the object ringprof-diff(1) documents: each side's totals (report --json's header
 * members), what the shares are of, the keys, then the rows in the table's order. */
static void print_json(FILE *f, const struct args *a, struct session *const *s,
		       const struct diff_entry *e, size_t n, const double total[DIFF_SIDES])
{
	const struct print_opts *o = &a->po;
	size_t n_rows = 0;

	fprintf(f, "{\n  \"ringprof\": \"diff\",\n  \"schema\": %d,\n", JSON_SCHEMA);
	for (int i = 0; i < DIFF_SIDES; i++) {
		fprintf(f, "  \"%s\": {\n", i == DIFF_BASE ? "baseline" : "new");
		json_totals(f, s[i], (const char *const *)a->side[i].inputs, a->side[i].n_inputs,
			    "    ");
		fputs("\n  },\n", f);
	}
	fprintf(f, "  \"shares\": \"%s\",\n  \"keys\": [", a->children ? "children" : "self");
	for (size_t k = 0; k < o->n_keys; k++)
		fprintf(f, "%s\"%s\"", k ? ", " : "", json_key_names[o->keys[k]]);
	fputs("],\n  \"rows\": [", f);
	for (size_t i = 0; i < n; i++) {
		double b = 100.0 * (double)e[i].w[DIFF_BASE] / total[DIFF_BASE],
		       nw = 100.0 * (double)e[i].w[DIFF_NEW] / total[DIFF_NEW];

		if (b < o->percent_limit && nw < o->percent_limit)
			continue;
		fputs(n_rows++ ? ",\n    {" : "\n    {", f);
		json_share(f, "baseline", e[i].w[DIFF_BASE], b);
		fputs(", ", f);
		json_share(f, "new", e[i].w[DIFF_NEW], nw);
		fprintf(f, ", \"delta\": %.4f, \"ratio\": ", nw - b);
		if (e[i].w[DIFF_BASE] && e[i].w[DIFF_NEW])
			fprintf(f, "%.4f, \"only\": null", nw / b);
		else
			fprintf(f, "null, \"only\": \"%s\"", e[i].w[DIFF_BASE] ? "base" : "new");
		for (size_t k = 0; k < o->n_keys; k++)
			json_key(f, o->keys[k], e[i].field[o->keys[k]]);
		fputc('}', f);
	}
	fputs(n_rows ? "\n  ]\n}\n" : "]\n}\n", f);
}

/* The folded stacks with both sides' counts, in name order (as report --folded). */
static void print_folded_pairs(FILE *f, const struct diff_entry *e, size_t n)
{
	const struct diff_entry **order = malloc((n ? n : 1) * sizeof(*order));

	if (!order) {
		for (size_t i = 0; i < n; i++)
			fprintf(f, "%s %" PRIu64 " %" PRIu64 "\n", e[i].field[0], e[i].w[DIFF_BASE],
				e[i].w[DIFF_NEW]);
		return;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = &e[i];
	qsort(order, n, sizeof(*order), cmp_lines);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s %" PRIu64 " %" PRIu64 "\n", order[i]->field[0],
			order[i]->w[DIFF_BASE], order[i]->w[DIFF_NEW]);
	free(order);
}

/* --folded's counts: the baseline's scaled to the new side's total unless --no-normalize, and
 * a note on stderr either way when the totals differ. */
static void fold_normalize(const struct args *a, struct diff *d)
{
	uint64_t t[DIFF_SIDES];

	if (diff_normalize(d, t, !a->raw))
		fprintf(stderr,
			PROG ": note: the baseline's counts (%" PRIu64 " in all) are scaled to the "
			     "new side's total (%" PRIu64 "), as difffolded.pl -n; --no-normalize "
			     "for raw counts\n",
			t[DIFF_BASE], t[DIFF_NEW]);
	else if (a->raw && (t[DIFF_BASE] > t[DIFF_NEW] ? t[DIFF_BASE] - t[DIFF_NEW]
						       : t[DIFF_NEW] - t[DIFF_BASE]) *
				   20 >
			       (t[DIFF_BASE] > t[DIFF_NEW] ? t[DIFF_BASE] : t[DIFF_NEW]))
		fprintf(stderr,
			PROG ": note: raw counts whose totals differ by more than 5 %% (%" PRIu64
			     " and %" PRIu64 "): widths compare volumes, not shares\n",
			t[DIFF_BASE], t[DIFF_NEW]);
}

/* Read, symbolize and aggregate one side. NULL when nothing was usable (said). */
static struct session *read_side(struct options *o)
{
	struct session *s = options_session(o);
	int r;

	if (!s)
		return NULL;
	if (!options_read(o, s))
		return session_free(s);
	r = session_finish(s);
	if (r < 0) {
		fprintf(stderr, PROG ": %s\n", strerror(-r));
		return session_free(s);
	}
	options_note_nolines(o, s);
	return s;
}

/* What the shares are of. */
static void print_shares(FILE *f, const struct args *a)
{
	enum session_weight w = a->side[DIFF_BASE].so.weight;

	fprintf(f,
		"# shares: %s, of each side's own total %s; Delta: new - baseline, in points; "
		"Ratio: new / baseline\n#\n",
		a->children ? "Children (the weight of every stack through the entry)" : "Self",
		w == SESSION_OFFCPU ? "off-CPU time"
		: w == SESSION_WALL ? "wall time"
				    : "sample period");
}

/* The header lines of the text: both sides, what the shares are of. */
static char *header_text(const struct args *a, struct session *const *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return NULL;
	print_side(m, "baseline", &a->side[DIFF_BASE], s[DIFF_BASE]);
	print_side(m, "new", &a->side[DIFF_NEW], s[DIFF_NEW]);
	print_shares(m, a);
	if (fclose(m) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* --html: the page of D's sorted entries. 0, or -errno (-ENOMEM) or 1 (a failure said). */
static int write_html(const struct args *a, struct session *const *s, const struct diff *d,
		      const double dt[DIFF_SIDES])
{
	struct html_diff in = {
		.keys = a->po.keys,
		.n_keys = a->po.n_keys,
		.percent_limit = a->po.percent_limit,
		.children = a->children,
	};
	char why[512];
	int r;

	for (int i = 0; i < DIFF_SIDES; i++) {
		in.s[i] = s[i];
		in.inputs[i] = (const char *const *)a->side[i].inputs;
		in.n_inputs[i] = a->side[i].n_inputs;
		in.total[i] = dt[i];
	}
	in.e = diff_entries(d, &in.n);
	if (!(in.header = header_text(a, s)))
		return -ENOMEM;
	r = html_diff_write(&in, a->html, why, sizeof(why));
	free((char *)in.header);
	if (r < 0 && r != -ENOMEM) {
		fprintf(stderr, PROG ": --html: %s\n", why);
		return 1;
	}
	return r;
}

/* Pair and print the two sessions. 0 or -ENOMEM. */
static int compare(const struct args *a, struct session *const *s)
{
	struct diff *d = diff_new();
	uint64_t total[DIFF_SIDES];
	double dt[DIFF_SIDES];
	const struct diff_entry *e;
	size_t n;
	int r = d ? 0 : -ENOMEM;

	for (int i = 0; i < DIFF_SIDES && r == 0; i++) {
		const struct session_totals *t = session_totals(s[i]);

		total[i] = t->period;
		dt[i] = total[i] ? (double)total[i] : 1.0;
		r = a->folded ? diff_add_folded(d, i, s[i])
			      : diff_add_entries(d, i, s[i], a->po.keys, a->po.n_keys, a->children);
	}
	if (r == 0 && a->html) {
		diff_sort(d, total);
		r = write_html(a, s, d, dt);
	} else if (r == 0) {
		e = diff_entries(d, &n);
		if (a->folded) {
			fold_normalize(a, d);
			print_folded_pairs(stdout, e, n);
		} else if (a->json) {
			diff_sort(d, total);
			e = diff_entries(d, &n);
			print_json(stdout, a, s, e, n, dt);
		} else {
			diff_sort(d, total);
			e = diff_entries(d, &n);
			print_side(stdout, "baseline", &a->side[DIFF_BASE], s[DIFF_BASE]);
			print_side(stdout, "new", &a->side[DIFF_NEW], s[DIFF_NEW]);
			print_shares(stdout, a);
			if (a->po.field_sep)
				print_entries_sep(stdout, a, e, n, dt);
			else
				print_entries(stdout, a, e, n, dt);
			if (!n)
				printf("# no samples on either side\n");
		}
	}
	diff_free(d);
	return r;
}

/* Both sides read, then compared. The exit status. */
static int run(struct args *a)
{
	struct session *s[DIFF_SIDES] = { NULL, NULL };
	int r = EXIT_FAILURE;

	for (int i = 0; i < DIFF_SIDES; i++)
		if ((r = options_check_weight(&a->side[i])) != 0)
			return r;
	r = EXIT_FAILURE;
	for (int i = 0; i < DIFF_SIDES; i++)
		if (!(s[i] = read_side(&a->side[i])))
			goto out;
	r = compare(a, s);
	if (r > 0)
		goto out; /* said */
	if (r < 0) {
		fprintf(stderr, PROG ": %s\n", strerror(-r));
		r = EXIT_FAILURE;
		goto out;
	}
	fflush(stdout);
	for (int i = 0; i < DIFF_SIDES; i++)
		options_warn_done(&a->side[i]);
	r = EXIT_SUCCESS;
out:
	for (int i = 0; i < DIFF_SIDES; i++)
		session_free(s[i]);
	return r;
}

int main(int argc, char **argv)
{
	static struct args a;
	int r;

	r = parse_argv(&a, argc, argv);
	if (r)
		return r;
	for (int i = 0; i < DIFF_SIDES; i++) {
		r = options_filter(&a.side[i]);
		if (!r)
			r = options_symbol_filter_leaf(&a.side[i]);
		if (r)
			return r;
	}
	pager_start(a.side[DIFF_BASE].no_pager || a.html);
	r = run(&a);
	r = options_output_done(&a.side[DIFF_BASE], r, "the comparison");
	return pager_done(r);
}
