/* options.c — the options `ringprof report` and `ringprof script` share (input, filters,
 * symbols) and the session they read the input into. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "base/cpulist.h"
#include "base/grow.h"
#include "base/util.h"
#include "format/format.h"
#include "format/reader.h"
#include "format/recdir.h"
#include "options.h"
#include "profile/focus.h"

const char options_help_input[] =
    "Input:\n"
    "  -i, --input FILE        recording to read (default ringprof.data); repeat to\n"
    "                          merge several\n"
    "      --dir DIR           every recording in DIR (*.data, and *.data.partial being\n"
    "                          written), in time order, e.g. ringprofd's /var/lib/ringprof\n";

const char options_help_filters[] =
    "Filters:\n"
    "      --event NAME        only the samples of event NAME, in a recording of several\n"
    "                          (record -e A -e B); without it, report prints one section\n"
    "                          per event as perf does, and script names each sample's\n"
    "                          event\n"
    "      --pid PID[,PID]     only these processes\n"
    "      --tid TID[,TID]     only these threads\n"
    "      --comm NAME[,NAME]  only these command names (also perf's --comms)\n"
    "      --unit NAME[,NAME]  only these systemd units or containers, as --sort unit\n"
    "                          names them (cron.service, session-2.scope, docker:ID12)\n"
    "      --dso NAME[,NAME]   only samples whose own frame is in these objects (short\n"
    "                          name as shown, or full path; also perf's --dsos)\n"
    "  -C, --cpu LIST          only these CPUs, e.g. 0-3,6\n"
    "      --since WHEN        only samples at or after WHEN: local time\n"
    "      --until WHEN        \"YYYY-MM-DD HH:MM[:SS]\" or \"HH:MM[:SS]\", or +DUR after the\n"
    "                          start of the first recording, or -DUR before the end of\n"
    "                          the last one (DUR: 30, 30s, 15min, 2h, 1d: -15min counts\n"
    "                          from the last sample, and a note says when that was more\n"
    "                          than a minute ago); recordings and frames outside the\n"
    "                          window are not read\n"
    "      --time START,END    perf's spelling of the window: START and END in seconds\n"
    "                          as script prints them (either may be left out), or\n"
    "                          PCT%/N (the Nth slice of PCT% of the span: 10%/2) or\n"
    "                          A%-B% (0%-10%) of the recordings' span\n"
    "      --max-stack N       use at most N frames of each callchain (leaf first)\n"
    "  -S, --symbols NAME[,NAME...]  only the samples whose own (leaf) symbol is one of\n"
    "                          these, as perf's -S: with -g caller --no-children, who\n"
    "                          calls it; with --inline, the innermost inlined function\n"
    "      --symbol-filter SUBSTR  perf's: the table shows only entries whose symbol\n"
    "                          contains SUBSTR (shares unchanged); script, diff,\n"
    "                          --folded and --pprof keep the samples whose leaf symbol\n"
    "                          contains it\n"
    "      --focus REGEX       pprof's: only the samples with a frame whose symbol\n"
    "                          matches REGEX (POSIX extended, unanchored)\n"
    "      --ignore REGEX      pprof's: drop the samples with a frame whose symbol\n"
    "                          matches REGEX\n";

const char options_help_weight[] =
    "Weights (recordings made with record --off-cpu):\n"
    "      --off-cpu           weigh each switch-out by the time its thread then stayed\n"
    "                          off CPU (until its next switch-in), shares of off-CPU time;\n"
    "                          each stack ends in [waiting] (it blocked) or [preempted]\n"
    "                          (CPU contention); --folded counts microseconds; --dso\n"
    "                          keeps stacks that waited in the objects (the kernel frame\n"
    "                          below [off-cpu], or the user frame that entered the kernel)\n"
    "      --wall              on-CPU samples (by their period: cpu-clock or task-clock,\n"
    "                          other events are refused) and off-CPU time together: a\n"
    "                          thread's total is its wall time\n";

const char options_help_symbols[] =
    "Symbols:\n"
    "      --symfs DIR         look binaries and debug files up under DIR first\n"
    "      --inline            show inlined functions as frames of their own (DWARF)\n"
    "                          (srcline: each inline frame at its own line)\n"
    "      --no-demangle       show C++ and Rust names mangled, as in the symbol tables\n"
    "      --full-source-path  srcline: the source file's whole path as DWARF names it,\n"
    "                          not its last component (perf's)\n"
    "      --debuginfod        fetch missing debug info from the servers in\n"
    "                          DEBUGINFOD_URLS\n"
    "      --debuginfod-timeout SECS  per request (default 5)\n"
    "      --no-debug-cache    read compressed debug files as they are, not through\n"
    "                          the cache of inflated ones (~/.cache/ringprof/debug)\n";

const char options_help_output[] =
    "      --no-pager          never page; by default output to a terminal goes through\n"
    "                          $PAGER (less with LESS=FRX when unset; PAGER=cat or empty:\n"
    "                          none)\n"
    "  -v, --verbose           every symbol warning on its own line, not summed up\n";

const char options_help_pprof[] =
    "      --pprof FILE        write the profile of what the filters select as pprof's\n"
    "                          gzip-compressed profile.proto to FILE ('-': stdout),\n"
    "                          instead of the text report (go tool pprof, Pyroscope,\n"
    "                          Parca read it), with source lines (pprof -list)\n";

void options_init(struct options *o, const char *prog)
{
	static const struct options_warn_group groups[3] = {
		{ "no function symbols", "no function symbols", { { 0 } }, 0 },
		{ "no symbols (", "no symbol table", { { 0 } }, 0 },
		{ "cannot open: No such file", "no longer on disk", { { 0 } }, 0 },
	};

	o->prog = prog;
	o->so = (struct session_opts){ .debuginfod_timeout = 5 };
	memcpy(o->groups, groups, sizeof(groups));
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
	const char *parts[OPTIONS_MAX_LIST];
	size_t k = 0;

	if (split_list(arg, parts, OPTIONS_MAX_LIST, &k) < 0 || !k)
		return -EINVAL;
	for (size_t i = 0; i < k; i++) {
		uint64_t v;

		if (*n >= max || util_parse_u64(parts[i], &v) < 0 || v > INT32_MAX)
			return -EINVAL;
		out[(*n)++] = (int32_t)v;
	}
	return 0;
}

/* One more input: 0, or -ENOMEM (said). */
static int add_input(struct options *o, const char *path)
{
	if (GROW(o->inputs, o->cap_inputs, o->n_inputs + 1) < 0) {
		fprintf(stderr, "%s: out of memory for the list of inputs\n", o->prog);
		return -ENOMEM;
	}
	o->inputs[o->n_inputs++] = path;
	return 0;
}

/* Every recording in dir, in time order (format/recdir.h). o->dir_empty when there is none.
 * 0, or -errno (said). */
static int add_dir(struct options *o, const char *dir)
{
	struct recdir_entry *v = NULL;
	size_t n = 0, i;
	int rc = recdir_list_path(dir, NULL, &v, &n);

	if (rc < 0) {
		fprintf(stderr, "%s: cannot read directory %s: %s\n", o->prog, dir, strerror(-rc));
		return rc;
	}
	for (i = 0; i < n && rc == 0; i++) {
		char *path = malloc(strlen(dir) + strlen(v[i].name) + 2);

		if (!path) {
			fprintf(stderr, "%s: out of memory for the list of inputs\n", o->prog);
			rc = -ENOMEM;
			break;
		}
		sprintf(path, "%s/%s", dir, v[i].name);
		rc = add_input(o, path);
	}
	free(v);
	if (rc < 0)
		return rc;
	if (!n) {
		fprintf(stderr,
			"%s: %s: no recordings (*.data, *.data.partial) in this directory\n",
			o->prog, dir);
		o->dir_empty = true;
	}
	return 0;
}

int options_add_path(struct options *o, const char *path)
{
	struct stat st;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return add_dir(o, path);
	return add_input(o, path);
}

/* --pid, --tid, --comm, --unit, --dso, --cpu, --since, --until. 0, or the exit status (said). */
static int parse_filter(struct options *o, int c, char *arg)
{
	struct session_filter *f = &o->so.filter;

	switch (c) {
	case OPT_PID:
	case OPT_TID:
		if (split_ints(arg, c == OPT_PID ? o->pids : o->tids, OPTIONS_MAX_LIST,
			       c == OPT_PID ? &f->n_pids : &f->n_tids) < 0) {
			fprintf(stderr, "%s: invalid %s list '%s'\n", o->prog,
				c == OPT_PID ? "--pid" : "--tid", arg);
			return EXIT_USAGE;
		}
		break;
	case OPT_COMM:
	case OPT_DSO:
		if (split_list(arg, c == OPT_COMM ? o->comms : o->dsos, OPTIONS_MAX_LIST,
			       c == OPT_COMM ? &f->n_comms : &f->n_dsos) < 0) {
			fprintf(stderr, "%s: too many names for %s (at most %d)\n", o->prog,
				c == OPT_COMM ? "--comm" : "--dso", OPTIONS_MAX_LIST);
			return EXIT_USAGE;
		}
		break;
	case OPT_UNIT:
		if (split_list(arg, o->units, OPTIONS_MAX_LIST, &f->n_units) < 0) {
			fprintf(stderr, "%s: too many names for --unit (at most %d)\n", o->prog,
				OPTIONS_MAX_LIST);
			return EXIT_USAGE;
		}
		break;
	case OPT_CPU:
		if (cpulist_parse(arg, o->cpus, OPTIONS_MAX_CPUS, &o->n_cpus) < 0) {
			fprintf(stderr, "%s: invalid CPU list '%s' (expected e.g. 0-3,6)\n",
				o->prog, arg);
			return EXIT_USAGE;
		}
		break;
	case OPT_SINCE:
		o->since = arg;
		break;
	case OPT_UNTIL:
		o->until = arg;
		break;
	case OPT_TIME:
		o->time = arg;
		break;
	}
	return 0;
}

/* --max-stack, --symfs, --inline, --no-demangle, --debuginfod, --debuginfod-timeout,
 * --no-debug-cache. */
static int parse_symbols(struct options *o, int c, char *arg)
{
	uint64_t v;

	switch (c) {
	case OPT_MAX_STACK:
		if (util_parse_u64(arg, &v) < 0 || v == 0 || v > 100000) {
			fprintf(stderr,
				"%s: invalid --max-stack '%s' (a number of frames, 1 or more)\n",
				o->prog, arg);
			return EXIT_USAGE;
		}
		o->so.max_stack = (unsigned int)v;
		break;
	case OPT_SYMFS:
		o->so.symfs = arg;
		break;
	case OPT_INLINE:
		o->so.inline_frames = true;
		break;
	case OPT_NO_DEMANGLE:
		o->so.no_demangle = true;
		break;
	case OPT_FULL_SOURCE_PATH:
		o->so.full_source_path = true;
		break;
	case OPT_DEBUGINFOD:
		o->so.debuginfod = true;
		break;
	case OPT_NO_DEBUG_CACHE:
		o->so.no_debug_cache = true;
		break;
	case OPT_DEBUGINFOD_TIMEOUT:
		if (util_parse_u64(arg, &v) < 0 || v == 0 || v > 3600) {
			fprintf(stderr,
				"%s: invalid --debuginfod-timeout '%s' (1 to 3600 seconds)\n",
				o->prog, arg);
			return EXIT_USAGE;
		}
		o->so.debuginfod_timeout = (int)v;
		break;
	}
	return 0;
}

/* Whether an -S entry of LEN bytes at P is an address, as perf takes one: a hexadecimal
 * number, 0x optional; without 0x it needs a decimal digit, so that a name such as "add" or
 * "cafe" stays a name. Its value into *ret. */
static bool s_address(const char *p, size_t len, uint64_t *ret)
{
	bool prefix = len > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
	bool digit = false;
	uint64_t v = 0;
	size_t i = prefix ? 2 : 0;

	if (len - i > 16 || i == len)
		return false;
	for (; i < len; i++) {
		int c = (unsigned char)p[i];

		if (!isxdigit(c))
			return false;
		digit |= isdigit(c) != 0;
		v = v << 4 | (uint64_t)(isdigit(c) ? c - '0' : (c | 0x20) - 'a' + 10);
	}
	if (!prefix && !digit)
		return false;
	*ret = v;
	return true;
}

/* -S NAME[,NAME...]: addresses into o->addrs, names into the focus filter. 0 or -errno. */
static int add_s_list(struct options *o, const char *arg)
{
	const char *p = arg;

	do {
		size_t len = strcspn(p, ",");
		uint64_t addr;
		char *name;
		int r;

		if (!len)
			return -EINVAL;
		if (s_address(p, len, &addr)) {
			if (o->n_addrs == OPTIONS_MAX_LIST)
				return -E2BIG;
			o->addrs[o->n_addrs++] = addr;
		} else {
			if (!(name = strndup(p, len)))
				return -ENOMEM;
			r = focus_add_symbols(o->focus, name);
			free(name);
			if (r < 0)
				return r;
			o->names_in_s = true;
		}
		p += len;
	} while (*p++ == ',');
	if (o->n_addrs && o->names_in_s)
		return -EDOM;
	return 0;
}

/* -S, --focus, --ignore into o->focus. 0, or the exit status (said). */
static int parse_focus(struct options *o, int c, const char *arg)
{
	char why[256] = "out of memory";
	int r;

	if (!o->focus && !(o->focus = focus_new())) {
		fprintf(stderr, "%s: out of memory\n", o->prog);
		return EXIT_FAILURE;
	}
	if (c == 'S')
		r = add_s_list(o, arg);
	else
		r = (c == OPT_FOCUS ? focus_set_focus : focus_set_ignore)(o->focus, arg, why,
									  sizeof(why));
	if (r == -ENOMEM) {
		fprintf(stderr, "%s: out of memory\n", o->prog);
		return EXIT_FAILURE;
	}
	if (r < 0 && c == 'S') {
		fprintf(stderr, "%s: -S '%s': %s\n", o->prog, arg,
			r == -E2BIG  ? "too many addresses"
			: r == -EDOM ? "give -S symbol names or addresses (0xADDR), not both"
				     : "an empty symbol name");
		return EXIT_USAGE;
	}
	if (r < 0) {
		fprintf(stderr, "%s: --%s '%s': %s\n", o->prog, c == OPT_FOCUS ? "focus" : "ignore",
			arg, why);
		return EXIT_USAGE;
	}
	return 0;
}

int options_symbol_filter_leaf(struct options *o)
{
	if (!o->symbol_filter)
		return 0;
	if ((!o->focus && !(o->focus = focus_new())) ||
	    focus_set_leaf_substr(o->focus, o->symbol_filter) < 0) {
		fprintf(stderr, "%s: out of memory\n", o->prog);
		return EXIT_FAILURE;
	}
	o->so.filter.focus = o->focus;
	return 0;
}

int options_parse(struct options *o, int c, char *arg, char **argv)
{
	switch (c) {
	case 'i':
	case OPT_DIR:
		/* Said; options_finish() fails (1, "not a shared option", would be ambiguous). */
		if ((c == 'i' ? add_input(o, arg) : add_dir(o, arg)) < 0)
			o->input_failed = true;
		return 0;
	case 'v':
		o->verbose = true;
		return 0;
	case OPT_EVENT:
		o->so.filter.event = arg;
		return 0;
	case OPT_NO_PAGER:
		o->no_pager = true;
		return 0;
	case OPT_PPROF:
		o->pprof = arg;
		o->no_pager = true; /* nothing to page: the profile goes to a file */
		return 0;
	case OPT_OFF_CPU:
	case OPT_WALL:
		if (o->so.weight != SESSION_CPU) {
			fprintf(stderr,
				"%s: --off-cpu and --wall are different weights: give one\n",
				o->prog);
			return EXIT_USAGE;
		}
		o->so.weight = c == OPT_OFF_CPU ? SESSION_OFFCPU : SESSION_WALL;
		return 0;
	case 'C': /* perf's -C, --cpu */
		return parse_filter(o, OPT_CPU, arg);
	case 'S':
	case OPT_FOCUS:
	case OPT_IGNORE:
		return parse_focus(o, c, arg);
	case OPT_SYMBOL_FILTER:
		o->symbol_filter = arg;
		return 0;
	case OPT_PID:
	case OPT_TID:
	case OPT_COMM:
	case OPT_UNIT:
	case OPT_DSO:
	case OPT_CPU:
	case OPT_SINCE:
	case OPT_UNTIL:
	case OPT_TIME:
		return parse_filter(o, c, arg);
	case OPT_MAX_STACK:
	case OPT_SYMFS:
	case OPT_INLINE:
	case OPT_NO_DEMANGLE:
	case OPT_FULL_SOURCE_PATH:
	case OPT_DEBUGINFOD:
	case OPT_DEBUGINFOD_TIMEOUT:
	case OPT_NO_DEBUG_CACHE:
		return parse_symbols(o, c, arg);
	case '?':
	case ':':
		return cli_option_error(o->prog, c, argv);
	default:
		return 1;
	}
}

int options_finish(struct options *o, int argc, char **argv)
{
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s' (inputs are given with -i)\n",
			o->prog, argv[optind]);
		return EXIT_USAGE;
	}
	/* An input that could not be taken (said), or a --dir with nothing in it, is not a
	 * reason to read an unrelated ./ringprof.data. */
	if (o->input_failed || (!o->n_inputs && o->dir_empty))
		return EXIT_FAILURE;
	if (!o->n_inputs && add_input(o, "ringprof.data") < 0)
		return EXIT_FAILURE;
	return 0;
}

/* Wall-clock ns as local time, "YYYY-MM-DD HH:MM:SS". */
static const char *local_time(int64_t ns, char *buf, size_t size)
{
	time_t sec = (time_t)(ns / 1000000000);
	struct tm tm;

	localtime_r(&sec, &tm);
	strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm);
	return buf;
}

/* A reversed window is an error (nothing could ever match); one outside every recording is
 * a note naming the recordings' span. 0 or the exit status (said). */
static int check_window(const struct options *o, int64_t start, int64_t end)
{
	const struct session_filter *f = &o->so.filter;
	char a[32], b[32];

	if (f->have_since && f->have_until && f->since > f->until) {
		fprintf(stderr, "%s: --since (%s) is after --until (%s): no sample can match\n",
			o->prog, local_time(f->since, a, sizeof(a)),
			local_time(f->until, b, sizeof(b)));
		return EXIT_USAGE;
	}
	if (start > end)
		return 0; /* no usable recording: said when they are read */
	if ((f->have_since && f->since > end) || (f->have_until && f->until < start))
		fprintf(stderr,
			"%s: note: --since/--until select nothing: the recording%s span%s %s to %s\n",
			o->prog, o->n_inputs > 1 ? "s" : "", o->n_inputs > 1 ? "" : "s",
			local_time(start, a, sizeof(a)), local_time(end, b, sizeof(b)));
	return 0;
}

/* A percentage "P%" at *s (0 to 100, decimals allowed), *s moved past it: true when there. */
static bool take_percent(const char **s, double *ret)
{
	char *end;
	double v = strtod(*s, &end);

	if (end == *s || *end != '%' || v < 0 || v > 100)
		return false;
	*ret = v;
	*s = end + 1;
	return true;
}

/* A side of START,END in seconds of CLOCK_MONOTONIC ("" leaves it open), as wall-clock ns
 * with OFFSET. -1 when it is not a number. */
static int mono_side(const char *s, size_t len, int64_t offset, bool *have, int64_t *ret)
{
	char buf[64], *end;
	double v;

	*have = len > 0;
	if (!len)
		return 0;
	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	v = strtod(buf, &end);
	if (end == buf || *end || v < 0 || v > 1e10)
		return -1;
	*ret = util_wall_ns((uint64_t)(v * 1e9 + 0.5), offset);
	return 0;
}

/* The first input's CLOCK_REALTIME - CLOCK_MONOTONIC (script's times are monotonic). */
static int64_t first_offset(const struct options *o)
{
	for (size_t i = 0; i < o->n_inputs; i++) {
		struct reader *r;
		char why[256];
		int64_t off;

		if (reader_open(o->inputs[i], &r, why, sizeof(why)) < 0)
			continue;
		off = reader_header(r) ? reader_header(r)->realtime_offset : INT64_MIN;
		reader_free(r);
		if (off != INT64_MIN)
			return off;
	}
	return 0;
}

/* perf's --time: START,END in monotonic seconds, PCT%/N or A%-B% of [lo, hi]. 0, or -1. */
static int parse_time(const struct options *o, int64_t lo, int64_t hi, struct session_filter *f)
{
	const char *s = o->time, *comma = strchr(s, ',');
	double a, b, span = (double)(hi - lo);

	if (take_percent(&s, &a)) {
		if (*s == '/' && s[1]) {
			char *end;
			long n = strtol(s + 1, &end, 10);

			if (*end || n < 1 || a <= 0 || a * (double)n > 100 + 1e-9)
				return -1;
			b = a * (double)n;
			a = b - a;
		} else if (*s != '-' || (s++, !take_percent(&s, &b)) || *s || b < a) {
			return -1;
		}
		f->since = lo + (int64_t)(span * a / 100);
		f->until = lo + (int64_t)(span * b / 100);
		f->have_since = f->have_until = true;
		return 0;
	}
	if (!comma || strchr(comma + 1, ','))
		return -1;
	return mono_side(o->time, (size_t)(comma - o->time), first_offset(o), &f->have_since,
			 &f->since) < 0 ||
		       mono_side(comma + 1, strlen(comma + 1), first_offset(o), &f->have_until,
				 &f->until) < 0
		   ? -1
		   : 0;
}

/* Wall-clock ns as local time with milliseconds, "YYYY-MM-DD HH:MM:SS.mmm". */
static const char *local_time_ms(int64_t ns, char *buf, size_t size)
{
	size_t n = strlen(local_time(ns, buf, size));

	snprintf(buf + n, size - n, ".%03d", (int)(ns % 1000000000 / 1000000));
	return buf;
}

/* NS as "42 s", "17 min", "3.5 h" or "2.0 d" into BUF. */
static const char *ago_text(int64_t ns, char *buf, size_t size)
{
	double sec = (double)ns / 1e9;

	if (sec < 120)
		snprintf(buf, size, "%.0f s", sec);
	else if (sec < 120 * 60)
		snprintf(buf, size, "%.0f min", sec / 60);
	else if (sec < 48 * 3600)
		snprintf(buf, size, "%.1f h", sec / 3600);
	else
		snprintf(buf, size, "%.1f d", sec / 86400);
	return buf;
}

/* A -DUR window counts back from the last sample (END), not from now: when that was more than
 * a minute ago, say so, with the window it makes. */
static void note_relative(const struct options *o, int64_t end)
{
	const struct session_filter *f = &o->so.filter;
	const char *which = o->since && o->since[0] == '-'   ? "--since"
			    : o->until && o->until[0] == '-' ? "--until"
							     : NULL;
	struct timespec now;
	int64_t ago;
	char e[40], a[32], w0[40], w1[40];

	if (!which || end <= 0 || clock_gettime(CLOCK_REALTIME, &now) < 0)
		return;
	ago = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec - end;
	if (ago < 60 * (int64_t)1000000000)
		return;
	fprintf(stderr,
		"%s: note: %s %s counts back from the last sample (%s, %s ago), not from now: the "
		"window is %s to %s\n",
		o->prog, which, which[2] == 's' ? o->since : o->until,
		local_time_ms(end, e, sizeof(e)), ago_text(ago, a, sizeof(a)),
		f->have_since ? local_time_ms(f->since, w0, sizeof(w0)) : "the first sample",
		local_time_ms(f->have_until && f->until < end ? f->until : end, w1, sizeof(w1)));
}

/* --since/--until against the wall-clock span of all inputs. 0 or the exit status (said). */
static int resolve_window(struct options *o)
{
	struct session_filter *f = &o->so.filter;
	int64_t start = INT64_MAX, end = INT64_MIN, lo, hi;
	int r;

	for (size_t i = 0; i < o->n_inputs; i++) {
		int64_t a, b;
		char why[512];

		if (session_file_bounds(o->inputs[i], &a, &b, why, sizeof(why)) < 0)
			continue; /* reported when the file is read */
		start = a < start ? a : start;
		end = b > end ? b : end;
	}
	lo = start > end ? 0 : start;
	hi = start > end ? 0 : end;
	if (o->time) {
		if (o->since || o->until) {
			fprintf(stderr,
				"%s: --time and --since/--until both set the window: use one\n",
				o->prog);
			return EXIT_USAGE;
		}
		if (parse_time(o, lo, hi, f) < 0) {
			fprintf(stderr,
				"%s: invalid --time '%s': expected START,END in seconds as script "
				"prints them (e.g. 3770.10,3771.5 or 3770.10,), PCT%%/N (10%%/2) or "
				"A%%-B%% (0%%-10%%)\n",
				o->prog, o->time);
			return EXIT_USAGE;
		}
		return check_window(o, start, end);
	}
	if (o->since && util_parse_when(o->since, lo, hi, &f->since) < 0) {
		fprintf(stderr,
			"%s: invalid --since '%s': expected \"YYYY-MM-DD HH:MM[:SS]\", \"HH:MM[:SS]\", "
			"+DUR or -DUR (e.g. -15min)\n",
			o->prog, o->since);
		return EXIT_USAGE;
	}
	if (o->until && util_parse_when(o->until, lo, hi, &f->until) < 0) {
		fprintf(stderr,
			"%s: invalid --until '%s': expected \"YYYY-MM-DD HH:MM[:SS]\", \"HH:MM[:SS]\", "
			"+DUR or -DUR (e.g. -15min)\n",
			o->prog, o->until);
		return EXIT_USAGE;
	}
	f->have_since = o->since != NULL;
	f->have_until = o->until != NULL;
	r = check_window(o, start, end);
	if (r == 0 && start <= end)
		note_relative(o, end);
	return r;
}

int options_filter(struct options *o)
{
	struct session_filter *f = &o->so.filter;
	const char *urls = getenv("DEBUGINFOD_URLS");
	struct stat st;
	int r;

	if (o->so.symfs) {
		r = stat(o->so.symfs, &st) < 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
		if (r) {
			fprintf(stderr, "%s: --symfs %s: %s\n", o->prog, o->so.symfs, strerror(r));
			return EXIT_USAGE;
		}
	}
	if (o->so.debuginfod && (!urls || !*urls))
		fprintf(stderr,
			"%s: note: --debuginfod has no server to ask: DEBUGINFOD_URLS is %s; set it, "
			"e.g. DEBUGINFOD_URLS=https://debuginfod.debian.net\n",
			o->prog, urls ? "empty" : "not set");
	if ((o->since || o->until || o->time) && (r = resolve_window(o)) != 0)
		return r;
	f->pids = o->pids;
	f->tids = o->tids;
	f->comms = o->comms;
	f->units = o->units;
	f->dsos = o->dsos;
	f->cpus = o->cpus;
	f->n_cpus = o->n_cpus;
	f->addrs = o->addrs;
	f->n_addrs = o->n_addrs;
	f->focus = o->focus;
	return 0;
}

static void on_session_warn(void *arg, const char *msg)
{
	struct options *o = arg;
	const char *colon = strstr(msg, ": ");

	for (size_t i = 0; colon && !o->verbose && i < sizeof(o->groups) / sizeof(o->groups[0]);
	     i++) {
		struct options_warn_group *g = &o->groups[i];
		const char *base;

		if (strncmp(colon + 2, g->suffix, strlen(g->suffix)) != 0)
			continue;
		for (base = colon; base > msg && base[-1] != '/'; base--)
			;
		if (g->n < OPTIONS_GROUP_SHOWN)
			snprintf(g->names[g->n], sizeof(g->names[0]), "%.*s", (int)(colon - base),
				 base);
		g->n++;
		return;
	}
	fprintf(stderr, "%s: %s: warning: %s\n", o->prog, o->warn_path, msg);
}

void options_note_nolines(struct options *o, const struct session *s)
{
	size_t n;
	const uint32_t *d = session_nolines(s, &n);

	if (!n || o->nolines_said)
		return;
	o->nolines_said = true;
	fprintf(stderr, "%s: note: no line information (no DWARF) in ", o->prog);
	for (size_t k = 0; k < n && k < OPTIONS_GROUP_SHOWN; k++)
		fprintf(stderr, "%s%s", k ? ", " : "", session_dso_name(s, d[k]));
	if (n > OPTIONS_GROUP_SHOWN)
		fprintf(stderr, " and %zu more", n - OPTIONS_GROUP_SHOWN);
	fprintf(stderr, ": their frames show as OBJECT+0xOFFSET; install their debug info "
			"(-dbgsym or -dbg packages), or use --debuginfod, or --symfs DIR with the "
			"debug files under DIR/usr/lib/debug\n");
}

void options_warn_done(const struct options *o)
{
	for (size_t i = 0; i < sizeof(o->groups) / sizeof(o->groups[0]); i++) {
		const struct options_warn_group *g = &o->groups[i];

		if (!g->n)
			continue;
		fprintf(stderr, "%s: note: %s: %zu object%s, shown as [unknown]", o->prog, g->what,
			g->n, g->n > 1 ? "s" : "");
		fputs(i == 2 ? ": "
			     : " (install debug info, e.g. -dbgsym packages, or use --symfs): ",
		      stderr);
		for (size_t k = 0; k < g->n && k < OPTIONS_GROUP_SHOWN; k++)
			fprintf(stderr, "%s%s", k ? ", " : "", g->names[k]);
		if (g->n > OPTIONS_GROUP_SHOWN)
			fprintf(stderr, " and %zu more", g->n - OPTIONS_GROUP_SHOWN);
		fputc('\n', stderr);
	}
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

/* Is NAME (with its :u/:k modifiers) an event whose sample period is nanoseconds? */
static bool time_event(const char *name)
{
	static const char *const clocks[] = { "cpu-clock", "task-clock" };

	for (size_t i = 0; i < 2; i++) {
		size_t len = strlen(clocks[i]);

		if (strncmp(name, clocks[i], len) == 0 && (!name[len] || name[len] == ':'))
			return true;
	}
	return false;
}

int options_check_weight(const struct options *o)
{
	struct rp_event_desc evs[RP_MAX_EVENTS];
	const char *want = o->so.filter.event;
	const char *flag = o->so.weight == SESSION_OFFCPU ? "--off-cpu" : "--wall";
	bool switches = false;
	size_t n = 0;

	if (o->so.weight == SESSION_CPU)
		return 0;
	if (session_list_events(o->inputs, o->n_inputs, evs, RP_MAX_EVENTS, &n) < 0) {
		fprintf(stderr, "%s: out of memory\n", o->prog);
		return EXIT_FAILURE;
	}
	for (size_t i = 0; i < n; i++) {
		if (strcmp(evs[i].name, "sched:sched_switch") == 0) {
			switches = true;
			continue;
		}
		if (o->so.weight != SESSION_WALL || time_event(evs[i].name) ||
		    (want && strcmp(evs[i].name, want) != 0))
			continue;
		fprintf(stderr,
			"%s: --wall adds on-CPU sample periods to off-CPU nanoseconds, but "
			"'%s' counts events, not time: record with -e cpu-clock or -e "
			"task-clock%s, or use --off-cpu alone\n",
			o->prog, evs[i].name, want ? "" : " (or pick such an event with --event)");
		return EXIT_USAGE;
	}
	if (switches)
		return 0;
	fprintf(stderr,
		"%s: %s needs off-CPU samples, and the recording%s no sched:sched_switch "
		"event: record with ringprof record --off-cpu\n",
		o->prog, flag, o->n_inputs > 1 ? "s have" : " has");
	return EXIT_USAGE;
}

struct session *options_session(struct options *o)
{
	struct session *s;

	o->so.warn = on_session_warn;
	o->so.warn_arg = o;
	o->warn_path = "symbols";
	raise_nofile_limit();
	s = session_new(&o->so);
	if (!s)
		fprintf(stderr, "%s: out of memory\n", o->prog);
	return s;
}

size_t options_read(struct options *o, struct session *s)
{
	size_t usable = 0;

	for (size_t i = 0; i < o->n_inputs; i++) {
		char why[512];

		o->warn_path = o->inputs[i];
		/* A file outside the window counts too: it was read and had nothing for it. */
		if (session_add_file(s, o->inputs[i], why, sizeof(why)) < 0)
			fprintf(stderr, "%s: %s: %s\n", o->prog, o->inputs[i], why);
		else
			usable++;
	}
	o->warn_path = "symbols";
	return usable;
}

int options_output_done(const struct options *o, int r, const char *what)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return r;
	if (errno != EPIPE)
		fprintf(stderr, "%s: writing %s failed: %s\n", o->prog, what, strerror(errno));
	return EXIT_FAILURE;
}
