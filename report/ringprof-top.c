/* ringprof-top.c — `ringprof top`: a live flat profile, as perf top. A `ringprof record` child
 * (the privileged side: perf events, no symbolization) writes a file per refresh interval
 * (--switch-output); this program, without privileges of its own, reads each finished file
 * into one streaming session (symbols are looked up once), counts the samples by their leaf
 * symbol and redraws the table. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "base/grow.h"
#include "base/intern.h"
#include "base/util.h"
#include "format/recdir.h"
#include "options.h"
#include "profile/focus.h"
#include "profile/session.h"

/* The recorder's output in the temporary directory, TOP_STEM.data, and the files it switches
 * to (--switch-output: TOP_STEM-TIME-SEQ.data, format/recdir.h). */
#define TOP_STEM "top"

#define PROG "ringprof top"
#define MAX_TARGET_ARGS 64

struct top_args {
	const char *event;	/* -e; NULL: record's default */
	const char *freq;	/* -F */
	const char *pids;	/* -p PID[,PID] */
	char **command;		/* -- COMMAND */
	unsigned delay;		/* -d: seconds between refreshes */
	unsigned long iter;	/* -n: refreshes before quitting; 0: until q or a signal */
	unsigned entries;	/* -E: rows shown; 0: what fits */
	bool stdio;		/* print each refresh instead of redrawing the screen */
	bool zero;		/* -z: each refresh counts only the samples since the last one */
	const char *keep;	/* --keep DIR: the recordings stay there */
	const char *call_graph; /* -g (dwarf) or --call-graph MODE: callers are shown; NULL: not */
	const char *sort;	/* -s KEY */
	const char *filter;	/* --filter TEXT, as the / key */
	const char *follow;	/* --dir DIR: ringprofd's directory, followed; no recorder */
	bool sampling_set;	/* -e or -F given */
};

/* The samples counted under one key: a (leaf symbol, command, process) entry, or a (leaf,
 * caller, command, process) one for -g. */
struct top_count {
	uint64_t period, samples;
};

/* The counts of a set of recordings. */
struct top_counts {
	struct pairtab *entries; /* (sym | comm << 32, pid) -> id into counts */
	struct top_count *counts;
	size_t cap_counts;
	struct pairtab *callers; /* -g: (leaf | caller << 32, pid | comm << 32) -> caller_counts */
	struct top_count *caller_counts;
	size_t cap_callers;
	uint64_t period, samples;
};

/* One row of the table: the entries with the same -s key, added up. */
struct top_row {
	uint64_t key; /* enum top_sort's: a flat symbol, a dso id, a command id, pid << 32 | cmd */
	uint64_t period, samples;
};

#define NO_CALLER UINT32_MAX /* a sample whose stack is its leaf alone */
#define CALLERS_SHOWN 5	     /* callers under a row, the busiest first */
#define LOW32 0xffffffffull

/* -s and the s key: what a row stands for, in the order s goes through them. */
enum top_sort { SORT_SYM, SORT_DSO, SORT_COMM, SORT_PID, N_SORTS };

/* The / key and --filter: which entries the table shows (the counts keep them all). */
enum top_filter { FILTER_NONE, FILTER_SYM, FILTER_DSO, FILTER_COMM, FILTER_PID };

struct top {
	struct top_args a;
	struct options o; /* the shared filters and symbol options */
	struct session *s;
	char dir[PATH_MAX]; /* where the recorder writes */
	char last[256];	    /* the newest recording read (time order: format/recdir.h) */
	pid_t rec;
	struct strtab *comms; /* command names -> ids (never cleared: ids stay valid) */
	struct strtab *names; /* "OBJECT\037SYMBOL" and "OBJECT" -> ids: canon_sym(), dso rows */
	uint32_t *first;      /* a names id -> the first session symbol met with it */
	size_t cap_first;
	uint32_t *canon; /* a session symbol -> canon_sym() + 1; 0: not met yet */
	size_t cap_canon;
	struct top_counts base;	   /* the recordings read once */
	struct top_counts live;	   /* --dir: the active files, read as they grow */
	struct session_follow *fw; /* --dir: the active file being read, fw_name in dir */
	char fw_name[256];
	struct top_counts *cur; /* where on_sample() counts */
	uint64_t t_from;      /* --dir: samples before this (CLOCK_MONOTONIC ns) are not counted */
	struct top_row *rows; /* the table of the last refresh, busiest first */
	size_t n_rows, cap_rows;
	struct top_row *scratch; /* render_callers()'s */
	size_t cap_scratch;
	uint64_t files;
	enum top_sort sort;
	enum top_filter filter;
	char filter_text[128]; /* what the filter looks for (after "dso=" and the like) */
	int64_t filter_pid;
	char edit[128]; /* the / key's line while it is typed */
	bool editing;
	bool bad_filter; /* the last / line was not understood */
	size_t sel;	 /* the selected row (the interactive view's callers) */
	bool frozen, tty;
	struct termios saved;
	char event_name[64]; /* the first sample's event (its string dies with its file) */
};

static volatile sig_atomic_t stop_asked;

static void on_signal(int sig)
{
	(void)sig;
	stop_asked = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ringprof top [OPTIONS] [-p PID[,PID] | -- COMMAND [ARGS...]]\n"
		"       ringprof top [OPTIONS] --dir DIR\n"
		"\n"
		"A live flat profile, as perf top: every process (the default, which needs root,\n"
		"CAP_PERFMON or kernel.perf_event_paranoid < 1), the processes -p names, or\n"
		"COMMAND. A `ringprof record` child samples; this program symbolizes without\n"
		"privileges. The table is redrawn every -d seconds: Overhead (share of the samples'\n"
		"period), Samples, Shared Object, Symbol ([k] kernel, [.] user), by the symbol the\n"
		"sample was taken in.\n"
		"\n"
		"Target and sampling:\n"
		"  -p, --pid PID[,PID]    only these processes (all their threads)\n"
		"  -e, --event NAME       event to sample (record's default: cycles, or cpu-clock\n"
		"                         without a hardware PMU)\n"
		"  -F, --freq HZ          samples per second per CPU (default 1000)\n"
		"  -g                     record callchains (record's -g: --call-graph dwarf) and\n"
		"                         show each row's callers, the function its samples were\n"
		"                         called from, with its share of the row: under every row\n"
		"                         with --stdio, under the selected row on a terminal\n"
		"      --call-graph MODE  as -g, with record's MODE: dwarf[,SIZE] or fp\n"
		"\n"
		"Display:\n"
		"  -d, --delay SECS       refresh every SECS seconds (whole, default 2)\n"
		"  -n, --iterations N     quit after N refreshes (default: at q, Ctrl-C, or when\n"
		"                         COMMAND ends)\n"
		"  -E, --entries N        show N rows (default: what fits the terminal; 20 with\n"
		"                         --stdio)\n"
		"  -s, --sort KEY         what a row stands for: sym (the default; perf's dso,sym),\n"
		"                         dso, comm or pid (PID:COMMAND); the s key goes through\n"
		"                         them\n"
		"      --filter TEXT      show only the samples of comm=TEXT, dso=TEXT or\n"
		"                         sym=TEXT (names containing TEXT), or pid=N; TEXT alone\n"
		"                         is sym=TEXT. The / key types one; shares stay of all\n"
		"  -z, --zero             each refresh counts only the samples since the last one\n"
		"                         (default: all since the start)\n"
		"      --stdio            print each refresh, one after another, instead of\n"
		"                         redrawing the screen (the default when stdout is not a\n"
		"                         terminal)\n"
		"      --dir DIR          follow ringprofd's directory instead of recording: the\n"
		"                         files it closes and its active .partial file, of which\n"
		"                         each refresh reads only what was appended; the samples\n"
		"                         since top started\n"
		"                         (no privileges beyond reading DIR: the ringprof group)\n"
		"      --keep DIR         keep the recordings in DIR (one per refresh, named as\n"
		"                         record --switch-output names them; report --dir reads\n"
		"                         them) instead of a temporary directory removed at the end\n"
		"\n"
		"Keys: q quit, f freeze (stop counting new samples) or go on, z zero the counts,\n"
		"s the next row key, / a filter (as --filter; Enter applies it, an empty one\n"
		"clears it, Esc leaves it), j/k or the arrows select the row whose callers -g\n"
		"shows.\n"
		"\n"
		"Filters (shares are of the samples they keep):\n"
		"      --comm NAME[,NAME] only these command names\n"
		"      --dso NAME[,NAME]  only samples whose own frame is in these objects\n"
		"  -S, --symbols NAME[,NAME...]  only the samples whose own (leaf) symbol is one\n"
		"                         of these, as report's and perf's -S (with -g: who calls\n"
		"                         them)\n"
		"      --focus REGEX      pprof's: only the samples with a frame whose symbol\n"
		"                         matches REGEX (POSIX extended, unanchored; needs -g to\n"
		"                         see past the leaf)\n"
		"      --ignore REGEX     pprof's: drop the samples with a frame whose symbol\n"
		"                         matches REGEX\n"
		"\n"
		"Symbols:\n"
		"      --symfs DIR        look binaries and debug files up under DIR first\n"
		"      --no-demangle      show C++ and Rust names mangled, as in the symbol tables\n"
		"\n"
		"  -h, --help             this help\n"
		"  -V, --version          version\n");
}

/* A whole number of at least min for OPT, into *ret. 0, or EXIT_USAGE (said). */
static int parse_count(const char *opt, const char *arg, unsigned long min, unsigned long *ret)
{
	uint64_t v;

	if (util_parse_u64(arg, &v) < 0 || v < min || v > 1000000) {
		fprintf(stderr, PROG ": invalid %s '%s' (a whole number from %lu to 1000000)\n",
			opt, arg, min);
		return EXIT_USAGE;
	}
	*ret = (unsigned long)v;
	return 0;
}

enum { OPT_STDIO = OPT_OWN, OPT_KEEP, OPT_CALL_GRAPH, OPT_FILTER, OPT_FOLLOW };

/* top's own options. 0 when taken, 1 when not one of them, else the exit status (said). */
static int parse_own(struct top_args *a, int c, const char *arg)
{
	unsigned long v = 0;
	int r = 0;

	switch (c) {
	case 'p':
		a->pids = arg;
		break;
	case 'e':
		a->event = arg;
		a->sampling_set = true;
		break;
	case 'F':
		a->freq = arg;
		a->sampling_set = true;
		break;
	case 'd':
		r = parse_count("-d", arg, 1, &v);
		a->delay = (unsigned)v;
		break;
	case 'n':
		r = parse_count("-n", arg, 1, &a->iter);
		break;
	case 'E':
		r = parse_count("-E", arg, 1, &v);
		a->entries = (unsigned)v;
		break;
	case 'z':
		a->zero = true;
		break;
	case OPT_STDIO:
		a->stdio = true;
		break;
	case OPT_KEEP:
		a->keep = arg;
		break;
	case 'g':
		a->call_graph = "dwarf";
		break;
	case OPT_CALL_GRAPH:
		a->call_graph = arg;
		break;
	case 's':
		a->sort = arg;
		break;
	case OPT_FILTER:
		a->filter = arg;
		break;
	case OPT_FOLLOW:
		a->follow = arg;
		break;
	default:
		return 1;
	}
	return r;
}

static int set_filter(struct top *t, const char *s);

/* -s KEY and --filter TEXT: the view the table starts with. 0, or EXIT_USAGE (said). */
static int parse_view(struct top *t)
{
	static const char *const keys[] = { "sym", "symbol", "dso,sym", "dso,symbol",
					    "dso", "comm",   "pid" };
	static const enum top_sort sorts[] = { SORT_SYM, SORT_SYM,  SORT_SYM, SORT_SYM,
					       SORT_DSO, SORT_COMM, SORT_PID };
	size_t i = 0;

	while (t->a.sort && i < sizeof(keys) / sizeof(*keys) && strcmp(t->a.sort, keys[i]) != 0)
		i++;
	if (i == sizeof(keys) / sizeof(*keys)) {
		fprintf(stderr,
			PROG ": unknown -s key '%s': give what a row stands for, sym (the default, "
			     "perf's dso,sym), dso, comm or pid\n",
			t->a.sort);
		return EXIT_USAGE;
	}
	t->sort = t->a.sort ? sorts[i] : SORT_SYM;
	if (t->a.filter && set_filter(t, t->a.filter) < 0) {
		fprintf(stderr, PROG ": invalid --filter '%s': pid= takes a process id\n",
			t->a.filter);
		return EXIT_USAGE;
	}
	return 0;
}

/* 0 to run, or the exit status after saying what is wrong. */
static int parse_argv(struct top *t, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "event", required_argument, NULL, 'e' },
		{ "freq", required_argument, NULL, 'F' },
		{ "delay", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "entries", required_argument, NULL, 'E' },
		{ "zero", no_argument, NULL, 'z' },
		{ "stdio", no_argument, NULL, OPT_STDIO },
		{ "keep", required_argument, NULL, OPT_KEEP },
		{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
		{ "sort", required_argument, NULL, 's' },
		{ "filter", required_argument, NULL, OPT_FILTER },
		{ "dir", required_argument, NULL, OPT_FOLLOW },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "dso", required_argument, NULL, OPT_DSO },
		{ "symbols", required_argument, NULL, 'S' },
		{ "focus", required_argument, NULL, OPT_FOCUS },
		{ "ignore", required_argument, NULL, OPT_IGNORE },
		{ "symfs", required_argument, NULL, OPT_SYMFS },
		{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c, r;

	options_init(&t->o, PROG);
	t->a.delay = 2;
	t->a.freq = "1000";
	cli_options(longopts);
	while ((c = getopt_long(argc, argv, "+:p:e:F:d:n:E:zgs:S:hV", longopts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			exit(EXIT_SUCCESS);
		}
		if (c == 'V') {
			printf("ringprof top %s\n", PACKAGE_VERSION);
			exit(EXIT_SUCCESS);
		}
		r = parse_own(&t->a, c, optarg);
		if (r == 1)
			r = options_parse(&t->o, c, optarg, argv);
		if (r)
			return r == 1 ? EXIT_USAGE : r;
	}
	if (optind < argc)
		t->a.command = argv + optind;
	if (t->a.command && t->a.pids) {
		fprintf(stderr, PROG ": -p and -- COMMAND exclude each other\n");
		return EXIT_USAGE;
	}
	if (t->a.follow && (t->a.command || t->a.pids || t->a.keep || t->a.sampling_set ||
			    (t->a.call_graph && strcmp(t->a.call_graph, "dwarf") != 0))) {
		fprintf(stderr, PROG ": --dir reads the recordings ringprofd writes, with its own "
				     "target and sampling: not with -p, -- COMMAND, -e, -F, "
				     "--call-graph or --keep (-g shows the callers they hold)\n");
		return EXIT_USAGE;
	}
	if (!isatty(STDOUT_FILENO))
		t->a.stdio = true;
	r = parse_view(t);
	return r ? r : options_filter(&t->o);
}

/* Where ringprof-record is: beside this program, else on PATH. */
static void record_path(char *buf, size_t size)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	snprintf(buf, size, "ringprof-record");
	if (n <= 0)
		return;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return;
	*slash = '\0';
	snprintf(buf, size, "%s/ringprof-record", self);
	if (access(buf, X_OK) != 0)
		snprintf(buf, size, "ringprof-record");
}

/* Start the recorder: one file per refresh interval in t->dir. 0, or -1 (said). */
static int start_recorder(struct top *t)
{
	char path[PATH_MAX + 32], out[PATH_MAX + 16], every[32];
	char *argv[MAX_TARGET_ARGS + 32];
	size_t n = 0;

	record_path(path, sizeof(path));
	snprintf(out, sizeof(out), "%s/" TOP_STEM RECDIR_SUFFIX, t->dir);
	snprintf(every, sizeof(every), "--switch-output=%us", t->a.delay);
	argv[n++] = "ringprof-record";
	argv[n++] = "-q";
	argv[n++] = every;
	argv[n++] = "-o";
	argv[n++] = out;
	argv[n++] = "-F";
	argv[n++] = (char *)t->a.freq;
	if (t->a.event) {
		argv[n++] = "-e";
		argv[n++] = (char *)t->a.event;
	}
	if (t->a.call_graph) {
		argv[n++] = "--call-graph";
		argv[n++] = (char *)t->a.call_graph;
	}
	if (t->a.pids) {
		argv[n++] = "-p";
		argv[n++] = (char *)t->a.pids;
	} else if (!t->a.command) {
		argv[n++] = "-a";
	}
	if (t->a.command) {
		argv[n++] = "--";
		for (size_t i = 0; t->a.command[i] && n < MAX_TARGET_ARGS + 30; i++)
			argv[n++] = t->a.command[i];
	}
	argv[n] = NULL;
	t->rec = fork();
	if (t->rec < 0) {
		fprintf(stderr, PROG ": cannot start the recorder: %s\n", strerror(errno));
		return -1;
	}
	if (t->rec == 0) {
		execvp(path, argv);
		fprintf(stderr, PROG ": cannot run %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	return 0;
}

/* The id of text in t->names, and the symbol sym when the text is new: -1 when out of memory. */
static int64_t name_id(struct top *t, const char *text, uint32_t sym)
{
	uint32_t n = strtab_count(t->names);
	int64_t id = strtab_intern(t->names, text);

	if (id < 0 || (id == n && GROW(t->first, t->cap_first, (size_t)n + 1) < 0))
		return -1;
	if (id == n)
		t->first[id] = sym;
	return id;
}

/* The symbol a row counts sym under: the first one met with the same object name and symbol
 * name. The session gives a function a symbol per object it was met in, and a program run by
 * two processes, or a library seen in two containers, can be two objects of one name: the
 * table would show the function twice, with its share split. */
static uint32_t canon_sym(struct top *t, uint32_t sym)
{
	const struct session_sym *y;
	const char *dso, *name;
	char *text;
	int64_t id;
	size_t old = t->cap_canon;

	if (sym < t->cap_canon && t->canon[sym])
		return t->canon[sym] - 1;
	if (sym >= t->cap_canon) {
		if (GROW(t->canon, t->cap_canon, (size_t)sym + 1) < 0)
			return sym;
		memset(t->canon + old, 0, (t->cap_canon - old) * sizeof(*t->canon));
	}
	y = session_sym(t->s, sym);
	dso = session_dso_name(t->s, y->dso);
	name = y->name ? y->name : "[unknown]";
	text = malloc(strlen(dso) + strlen(name) + 2); /* once per symbol, not per sample */
	if (!text)
		return sym;
	sprintf(text, "%s\037%s", dso, name);
	id = name_id(t, text, sym);
	free(text);
	if (id < 0)
		return sym;
	t->canon[sym] = t->first[id] + 1;
	return t->first[id];
}

/* Add period to counter id of *arr (capacity *cap), the new ones zeroed. */
static void count_at(struct top_count **arr, size_t *cap, int64_t id, uint64_t period)
{
	size_t old = *cap;

	if (id < 0 || ((size_t)id >= *cap && GROW(*arr, *cap, (size_t)id + 1) < 0))
		return;
	if (*cap > old)
		memset(*arr + old, 0, (*cap - old) * sizeof(**arr));
	(*arr)[id].period += period;
	(*arr)[id].samples++;
}

/* Count a sample under its leaf symbol (an unknown one under its object's [unknown]), its
 * command and its process; -g: and under its caller. */
static void on_sample(void *arg, const struct session_sample *smp)
{
	struct top *t = arg;
	struct top_counts *k = t->cur;
	uint64_t sym, comm, caller;
	int64_t c;

	if (t->frozen || !smp->n_frames || !k->entries || smp->time < t->t_from)
		return;
	sym = canon_sym(t, session_sym(t->s, smp->frames[0].sym)->flat);
	c = strtab_intern(t->comms, smp->comm ? smp->comm : "[unknown]");
	if (c < 0)
		return;
	comm = (uint64_t)c;
	count_at(&k->counts, &k->cap_counts,
		 pairtab_intern(k->entries, sym | comm << 32, (uint32_t)smp->pid, NULL),
		 smp->period);
	k->period += smp->period;
	k->samples++;
	if (!t->event_name[0] && smp->event)
		util_strlcpy(t->event_name, smp->event, sizeof(t->event_name));
	if (!t->a.call_graph || !k->callers)
		return;
	caller = smp->n_frames > 1 ? canon_sym(t, session_sym(t->s, smp->frames[1].sym)->flat)
				   : NO_CALLER;
	count_at(&k->caller_counts, &k->cap_callers,
		 pairtab_intern(k->callers, sym | caller << 32, (uint32_t)smp->pid | comm << 32,
				NULL),
		 smp->period);
}

/* The recordings of the directory in time order (format/recdir.h): with --dir every one
 * (ringprofd's active file is NAME.data.partial), else the files the recorder switched away
 * from (top-TIME-SEQ.data, not the active top.data). NULL (*ret_n 0) when it cannot be read. */
static struct recdir_entry *list_dir(const struct top *t, size_t *ret_n)
{
	struct recdir_entry *v = NULL;

	*ret_n = 0;
	if (recdir_list_path(t->dir, t->a.follow ? NULL : TOP_STEM, &v, ret_n) < 0)
		return NULL;
	return v;
}

/* Whether the finished recording NAME comes after the newest one read (in time order). */
static bool after_last(const struct top *t, const char *name)
{
	return !t->last[0] || recdir_cmp(name, t->last) > 0;
}

/* The recordings the recorder finished (STEM-TIME-SEQ.data, not the active top.data), or
 * --dir's that closed since the last look, oldest first: read each into the session, then
 * remove it unless --keep. How many were read. */
static size_t read_finished(struct top *t)
{
	char why[512], path[PATH_MAX + 300];
	size_t n, done = 0;
	struct recdir_entry *v = list_dir(t, &n);

	for (size_t i = 0; i < n; i++) {
		if (v[i].n.partial || !after_last(t, v[i].name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", t->dir, v[i].name);
		t->o.warn_path = path;
		if (!t->frozen && session_add_file(t->s, path, why, sizeof(why)) < 0)
			fprintf(stderr, PROG ": %s: %s\n", path, why);
		else if (!t->frozen)
			done++;
		if (!t->a.keep && !t->a.follow)
			unlink(path);
		util_strlcpy(t->last, v[i].name, sizeof(t->last));
	}
	free(v);
	t->files += done;
	return done;
}

/* --dir: the newest NAME.data.partial of the directory (ringprofd's active file) into
 * *name, and the newest finished recording into t->last when skip (at the start: the files
 * already closed are not read). Whether there is an active file. */
static bool scan_dir(struct top *t, char *name, size_t size, bool skip)
{
	size_t n;
	struct recdir_entry *v = list_dir(t, &n);

	name[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (v[i].n.partial)
			util_strlcpy(name, v[i].name, size);
		else if (skip && after_last(t, v[i].name))
			util_strlcpy(t->last, v[i].name, sizeof(t->last));
	}
	free(v);
	return name[0] != '\0';
}

static const char *const sort_names[N_SORTS] = { "symbol", "dso", "comm", "pid" };

/* Whether the entry (sym, comm, pid) passes the filter. */
static bool shown(const struct top *t, uint32_t sym, uint32_t comm, uint32_t pid)
{
	const struct session_sym *y;

	if (t->filter == FILTER_NONE)
		return true;
	if (t->filter == FILTER_PID)
		return (int64_t)pid == t->filter_pid;
	if (t->filter == FILTER_COMM)
		return strstr(strtab_get(t->comms, comm), t->filter_text) != NULL;
	y = session_sym(t->s, sym);
	if (t->filter == FILTER_DSO)
		return strstr(session_dso_name(t->s, y->dso), t->filter_text) != NULL;
	return strstr(y->name ? y->name : "[unknown]", t->filter_text) != NULL;
}

/* The row an entry goes to under the sort key. */
static uint64_t row_key(struct top *t, uint32_t sym, uint32_t comm, uint32_t pid)
{
	switch (t->sort) {
	case SORT_DSO: /* by name, as the symbols (canon_sym()) */
		return (uint64_t)name_id(t, session_dso_name(t->s, session_sym(t->s, sym)->dso),
					 sym);
	case SORT_COMM:
		return comm;
	case SORT_PID:
		return (uint64_t)pid << 32 | comm;
	default:
		return sym;
	}
}

static int by_key(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

static int by_period(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;

	if (x->period != y->period)
		return x->period < y->period ? 1 : -1;
	return by_key(a, b);
}

/* Add up the rows of the same key: n rows in, the busiest first out. How many remain. */
static size_t merge_rows(struct top_row *r, size_t n)
{
	size_t m = 0;

	if (!n)
		return 0;
	qsort(r, n, sizeof(*r), by_key);
	for (size_t i = 1; i < n; i++) {
		if (r[i].key == r[m].key) {
			r[m].period += r[i].period;
			r[m].samples += r[i].samples;
		} else {
			r[++m] = r[i];
		}
	}
	qsort(r, ++m, sizeof(*r), by_period);
	return m;
}

/* The entries of k that pass the filter, as rows under the sort key, after t->rows. The
 * samples they hold. */
static uint64_t add_rows(struct top *t, const struct top_counts *k)
{
	uint32_t n = k->entries ? pairtab_count(k->entries) : 0;
	uint64_t a, b, samples = 0;

	if (GROW(t->rows, t->cap_rows, t->n_rows + n + 1) < 0)
		return 0;
	for (uint32_t id = 0; id < n && id < k->cap_counts; id++) {
		pairtab_get(k->entries, id, &a, &b);
		if (!shown(t, (uint32_t)(a & LOW32), (uint32_t)(a >> 32), (uint32_t)b))
			continue;
		t->rows[t->n_rows++] =
		    (struct top_row){ row_key(t, (uint32_t)(a & LOW32), (uint32_t)(a >> 32),
					      (uint32_t)b),
				      k->counts[id].period, k->counts[id].samples };
		samples += k->counts[id].samples;
	}
	return samples;
}

/* The table under the sort key and the filter, into t->rows. The samples it shows. */
static uint64_t build_rows(struct top *t)
{
	uint64_t samples;

	t->n_rows = 0;
	samples = add_rows(t, &t->base) + add_rows(t, &t->live);
	t->n_rows = merge_rows(t->rows, t->n_rows);
	return samples;
}

/* The samples counted and their period. */
static uint64_t all_samples(const struct top *t)
{
	return t->base.samples + t->live.samples;
}

static uint64_t all_period(const struct top *t)
{
	return t->base.period + t->live.period;
}

/* -g: the callers of row r (a symbol) that pass the filter, the busiest first, as shares of
 * the row's period; the rest in one line. */
static void render_callers(struct top *t, FILE *f, const struct top_row *r)
{
	uint64_t a, b, rest = 0;
	size_t m = 0;
	double whole = (double)(r->period ? r->period : 1);

	for (int i = 0; i < 2; i++) {
		const struct top_counts *k = i ? &t->live : &t->base;
		uint32_t n = k->callers ? pairtab_count(k->callers) : 0;

		if (GROW(t->scratch, t->cap_scratch, m + n + 1) < 0)
			return;
		for (uint32_t id = 0; id < n && id < k->cap_callers; id++) {
			pairtab_get(k->callers, id, &a, &b);
			if ((a & LOW32) != r->key ||
			    !shown(t, (uint32_t)(a & LOW32), (uint32_t)(b >> 32), (uint32_t)b))
				continue;
			t->scratch[m++] = (struct top_row){ a >> 32, k->caller_counts[id].period,
							    k->caller_counts[id].samples };
		}
	}
	m = merge_rows(t->scratch, m);
	for (size_t i = 0; i < m && i < CALLERS_SHOWN; i++) {
		const struct session_sym *y = t->scratch[i].key == NO_CALLER
						  ? NULL
						  : session_sym(t->s, (uint32_t)t->scratch[i].key);

		fprintf(f, "            | %6.2f%% %s (%s)\n",
			100.0 * (double)t->scratch[i].period / whole,
			!y	  ? "[no caller]"
			: y->name ? y->name
				  : "[unknown]",
			y ? session_dso_name(t->s, y->dso) : "none");
	}
	for (size_t i = CALLERS_SHOWN; i < m; i++)
		rest += t->scratch[i].period;
	if (m > CALLERS_SHOWN)
		fprintf(f, "            | %6.2f%% (%zu other callers)\n",
			100.0 * (double)rest / whole, m - CALLERS_SHOWN);
}

/* One row's line: its share of all the samples, its samples, what it stands for. */
static void render_row(struct top *t, FILE *f, const struct top_row *r, bool mark)
{
	const struct session_sym *y;

	fprintf(f, "%c%8.2f%% %9llu  ", mark ? '>' : ' ',
		all_period(t) ? 100.0 * (double)r->period / (double)all_period(t) : 0.0,
		(unsigned long long)r->samples);
	switch (t->sort) {
	case SORT_DSO:
		fprintf(f, "%s\n", strtab_get(t->names, (uint32_t)r->key));
		break;
	case SORT_COMM:
		fprintf(f, "%s\n", strtab_get(t->comms, (uint32_t)r->key));
		break;
	case SORT_PID:
		fprintf(f, "%7llu:%s\n", (unsigned long long)(r->key >> 32),
			strtab_get(t->comms, (uint32_t)(r->key & LOW32)));
		break;
	default:
		y = session_sym(t->s, (uint32_t)r->key);
		fprintf(f, "%-22s [%c] %s\n", session_dso_name(t->s, y->dso), y->kernel ? 'k' : '.',
			y->name ? y->name : "[unknown]");
	}
}

/* The rows that fit: -E, else the terminal's height less the header and the keys line (20
 * with --stdio). */
static size_t rows_shown(const struct top *t)
{
	struct winsize ws;

	if (t->a.entries)
		return t->a.entries;
	if (t->a.stdio || ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) < 0 || ws.ws_row < 9)
		return 20;
	/* -g: the selected row's callers and their heading go below the table. */
	if (t->a.call_graph)
		return ws.ws_row > 9u + CALLERS_SHOWN + 2 ? ws.ws_row - 9u - CALLERS_SHOWN : 1;
	return ws.ws_row - 7u;
}

static const char *const filter_names[] = { "", "sym", "dso", "comm", "pid" };

/* "# focus: -S NAME, --focus 'RE'..." when those filters are set: the samples counted are
 * those they keep (the session's stream drops the others). */
static void render_focus(const struct top *t, FILE *f)
{
	char desc[512];

	if (!focus_active(t->o.focus))
		return;
	focus_describe(t->o.focus, desc, sizeof(desc));
	fprintf(f, "# focus: %s: only the samples kept are counted, shares are of them\n", desc);
}

/* The header: what is counted, the row key and the filter when not the defaults, the columns. */
static void render_header(const struct top *t, FILE *f, unsigned long n, uint64_t shown_samples)
{
	static const char *const columns[N_SORTS] = { "Shared Object          Symbol",
						      "Shared Object", "Command",
						      "    Pid:Command" };

	if (t->a.follow)
		fprintf(f,
			"# ringprof top, refresh %lu: %llu samples of %s in %s (%llu closed "
			"recording%s and the active one), %s%s\n",
			n, (unsigned long long)all_samples(t),
			t->event_name[0] ? t->event_name : "the event", t->a.follow,
			(unsigned long long)t->files, t->files == 1 ? "" : "s",
			t->a.zero ? "since the last refresh" : "since top started",
			t->frozen ? " [frozen: f goes on]" : "");
	else
		fprintf(f,
			"# ringprof top, refresh %lu: %llu samples of %s (%s Hz%s) in %llu recording%s, %s%s\n",
			n, (unsigned long long)all_samples(t),
			t->event_name[0] ? t->event_name
			: t->a.event	 ? t->a.event
					 : "the event",
			t->a.freq,
			t->a.pids      ? ", -p"
			: t->a.command ? ", -- COMMAND"
				       : ", all CPUs",
			(unsigned long long)t->files, t->files == 1 ? "" : "s",
			t->a.zero ? "since the last refresh" : "since the start",
			t->frozen ? " [frozen: f goes on]" : "");
	if (t->sort != SORT_SYM || t->filter != FILTER_NONE) {
		fprintf(f, "# rows by %s", sort_names[t->sort]);
		if (t->filter != FILTER_NONE)
			fprintf(f, "; filter %s=%s: %llu of the samples shown (shares are of all)",
				filter_names[t->filter], t->filter_text,
				(unsigned long long)shown_samples);
		fputc('\n', f);
	}
	render_focus(t, f);
	fprintf(f, "#\n# Overhead   Samples  %s\n", columns[t->sort]);
}

/* The last line of the interactive view: the keys, or the filter being typed. */
static void render_keys(const struct top *t, FILE *f)
{
	if (t->editing)
		fprintf(f,
			"\nfilter (comm=, pid=, dso=, sym= or a symbol's text; Enter, Esc): %s_\n",
			t->edit);
	else
		fprintf(f, "\n%sq quit  f freeze  z zero  s rows by %s  / filter%s\n",
			t->bad_filter ? "[pid= takes a process id] " : "",
			sort_names[(t->sort + 1) % N_SORTS], t->a.call_graph ? "  j/k select" : "");
}

/* One refresh: the header and the rows by period, into f. */
static void render(struct top *t, FILE *f, unsigned long n)
{
	size_t shown = rows_shown(t);
	uint64_t shown_samples = build_rows(t);
	bool callers = t->a.call_graph && t->sort == SORT_SYM;

	if (!t->a.stdio)
		fputs("\033[H\033[2J", f);
	render_header(t, f, n, shown_samples);
	if (t->sel >= t->n_rows || t->sel >= shown)
		t->sel = t->n_rows && shown ? (t->n_rows < shown ? t->n_rows : shown) - 1 : 0;
	for (size_t i = 0; i < t->n_rows && i < shown; i++) {
		render_row(t, f, &t->rows[i], callers && !t->a.stdio && i == t->sel);
		if (callers && t->a.stdio)
			render_callers(t, f, &t->rows[i]);
	}
	if (callers && !t->a.stdio && t->n_rows) {
		fprintf(f, "# callers of the selected row (j/k or arrows):\n");
		render_callers(t, f, &t->rows[t->sel]);
	}
	if (!t->n_rows)
		fprintf(f, "# (no samples%s)\n",
			t->filter != FILTER_NONE ? " pass the filter" : " yet");
	if (t->a.stdio)
		fputc('\n', f);
	else
		render_keys(t, f);
	fflush(f);
}

/* Empty k (callers: with -g's table); NULL tables when out of memory. */
static void counts_reset(struct top_counts *k, bool callers)
{
	pairtab_free(k->entries);
	pairtab_free(k->callers);
	free(k->counts);
	free(k->caller_counts);
	*k = (struct top_counts){ 0 };
	k->entries = pairtab_new();
	k->callers = callers ? pairtab_new() : NULL;
}

/* Forget the counts (z, -z): the tables start again; command ids stay. --dir: the samples
 * recorded before now are no longer counted (in frames the daemon writes later too). */
static void zero_counts(struct top *t)
{
	counts_reset(&t->base, t->a.call_graph);
	counts_reset(&t->live, t->a.call_graph);
	if (t->a.follow)
		t->t_from = util_now_ns();
	t->n_rows = 0;
	t->sel = 0;
}

/* The / key's and --filter's text: comm=TEXT, dso=TEXT, sym=TEXT (names containing TEXT),
 * pid=N, or TEXT alone for sym=; empty: no filter. 0, or -1 when pid= is not a number. */
static int set_filter(struct top *t, const char *s)
{
	enum top_filter k = FILTER_SYM;
	uint64_t pid = 0;

	for (int i = FILTER_SYM; i <= FILTER_PID; i++) {
		size_t len = strlen(filter_names[i]);

		if (strncmp(s, filter_names[i], len) == 0 && s[len] == '=') {
			k = (enum top_filter)i;
			s += len + 1;
			break;
		}
	}
	if (k == FILTER_PID && *s && (util_parse_u64(s, &pid) < 0 || pid > INT32_MAX))
		return -1;
	t->filter = *s ? k : FILTER_NONE;
	t->filter_pid = (int64_t)pid;
	util_strlcpy(t->filter_text, s, sizeof(t->filter_text));
	t->sel = 0;
	return 0;
}

/* The terminal: keys one at a time, no echo (restored by restore_tty()). */
static void raw_tty(struct top *t)
{
	struct termios raw;

	t->tty = !t->a.stdio && isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &t->saved) == 0;
	if (!t->tty)
		return;
	raw = t->saved;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 0;
	raw.c_cc[VTIME] = 0;
	tcsetattr(STDIN_FILENO, TCSANOW, &raw);
}

static void restore_tty(struct top *t)
{
	if (t->tty)
		tcsetattr(STDIN_FILENO, TCSANOW, &t->saved);
}

/* A key while the / filter is typed: true when the view changed. */
static bool edit_key(struct top *t, char c)
{
	size_t len = strlen(t->edit);

	if (c == '\r' || c == '\n') {
		t->editing = false;
		t->bad_filter = set_filter(t, t->edit) < 0;
	} else if (c == '\033') {
		t->editing = false;
	} else if ((c == 0x7f || c == '\b') && len) {
		t->edit[len - 1] = '\0';
	} else if (isprint((unsigned char)c) && len + 1 < sizeof(t->edit)) {
		t->edit[len] = c;
		t->edit[len + 1] = '\0';
	} else {
		return false;
	}
	return true;
}

/* One key; *esc follows an arrow key's ESC [ X. True when the view changed. */
static bool take_key(struct top *t, char c, int *esc)
{
	bool arrow = *esc == 2;

	*esc = c == '\033' ? 1 : *esc == 1 && c == '[' ? 2 : 0;
	if (t->editing)
		return edit_key(t, c);
	if (c == 'q' || c == 'Q') {
		stop_asked = 1;
		return false;
	}
	if (c == 'f' || c == 'F')
		t->frozen = !t->frozen;
	else if (c == 'z' || c == 'Z')
		zero_counts(t);
	else if (c == 's' || c == 'S')
		t->sort = (enum top_sort)((t->sort + 1) % N_SORTS), t->sel = 0;
	else if (c == '/')
		t->editing = true, t->edit[0] = '\0', t->bad_filter = false;
	else if (c == 'j' || (arrow && c == 'B'))
		t->sel++; /* render() keeps it on a shown row */
	else if (c == 'k' || (arrow && c == 'A'))
		t->sel -= t->sel > 0;
	else
		return false;
	return true;
}

/* Wait up to 100 ms for keys and act on them: true when the view changed. */
static bool take_keys(struct top *t)
{
	struct pollfd p = { STDIN_FILENO, POLLIN, 0 };
	bool changed = false;
	int esc = 0;
	char c;

	if (!t->tty || poll(&p, 1, 100) <= 0) {
		if (!t->tty)
			poll(NULL, 0, 100);
		return false;
	}
	while (read(STDIN_FILENO, &c, 1) == 1)
		changed |= take_key(t, c, &esc);
	return changed && !stop_asked;
}

/* --dir: the active file followed, when it is no longer the active one (the daemon closed it
 * as NAME.data, or another took over): the rest read through the same open file, and its
 * closed name marked read so that read_finished() does not read it again. */
static void close_followed(struct top *t, const char *active)
{
	char why[512];
	size_t len = strlen(t->fw_name);

	if (!t->fw || (active && strcmp(active, t->fw_name) == 0))
		return;
	t->cur = &t->live;
	session_follow_close(t->s, t->fw, why, sizeof(why));
	t->cur = &t->base;
	t->fw = NULL;
	t->files++;
	t->fw_name[len - strlen(".partial")] = '\0'; /* NAME.data */
	if (after_last(t, t->fw_name))
		util_strlcpy(t->last, t->fw_name, sizeof(t->last));
}

/* --dir: the files closed since the last refresh, then the active file as it grows: the
 * first refresh that sees it reads it to its last complete frame, each one after only the
 * frames appended since (never the whole file again). Warnings about the active file are not
 * shown while it grows (a real damage is said when it is closed). */
static void read_dir(struct top *t)
{
	char name[256], path[PATH_MAX + 300], why[512];
	bool active = scan_dir(t, name, sizeof(name), false);
	int saved, null;

	close_followed(t, active ? name : NULL);
	read_finished(t);
	if (!active)
		return;
	snprintf(path, sizeof(path), "%s/%s", t->dir, name);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (saved >= 0 && null >= 0)
		dup2(null, STDERR_FILENO);
	t->cur = &t->live;
	t->o.warn_path = path;
	if (t->fw)
		session_follow_more(t->s, t->fw);
	else if (session_follow_open(t->s, path, &t->fw, why, sizeof(why)) == 0)
		util_strlcpy(t->fw_name, name,
			     sizeof(t->fw_name)); /* else gone: read when closed */
	else
		t->fw = NULL;
	t->cur = &t->base;
	fflush(stderr);
	if (saved >= 0 && null >= 0)
		dup2(saved, STDERR_FILENO);
	if (saved >= 0)
		close(saved);
	if (null >= 0)
		close(null);
}

/* --dir: refresh every -d seconds from the daemon's files until q, a signal or -n. */
static int run_dir(struct top *t)
{
	char name[256];
	unsigned long refresh = 0;
	uint64_t next = util_now_ns() + t->a.delay * NSEC_PER_SEC;

	scan_dir(t, name, sizeof(name), true);
	t->t_from = util_now_ns();
	while (!stop_asked) {
		if (take_keys(t))
			render(t, stdout, refresh);
		if (util_now_ns() < next)
			continue;
		next += t->a.delay * NSEC_PER_SEC;
		if (!t->frozen)
			read_dir(t);
		render(t, stdout, ++refresh);
		if (t->a.zero)
			zero_counts(t);
		if (t->a.iter && refresh >= t->a.iter)
			break;
	}
	return EXIT_SUCCESS;
}

/* The recorder's end: 0 when it exited 0 (or by our SIGINT), else its status (said). */
static int recorder_status(pid_t pid, int status)
{
	(void)pid;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGINT)
		return 0;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	fprintf(stderr, PROG ": the recorder died of signal %d\n", WTERMSIG(status));
	return EXIT_FAILURE;
}

/* Refresh until q, a signal, -n refreshes or the recorder's end. The exit status. */
static int run(struct top *t)
{
	unsigned long refresh = 0;
	int status, rc = 0;
	bool ended = false;

	while (!stop_asked) {
		if (take_keys(t))
			render(t, stdout, refresh);
		if (waitpid(t->rec, &status, WNOHANG) == t->rec) {
			ended = true;
			rc = recorder_status(t->rec, status);
		}
		if (read_finished(t) || (ended && rc == 0 && !refresh)) {
			render(t, stdout, ++refresh);
			if (t->a.zero)
				zero_counts(t);
		}
		if (ended || (t->a.iter && refresh >= t->a.iter))
			break;
	}
	if (!ended) {
		kill(t->rec, SIGINT);
		while (waitpid(t->rec, &status, 0) < 0 && errno == EINTR)
			;
		rc = recorder_status(t->rec, status);
		/* Stopped by us (q, -n): the recorder ends the command it runs and exits with
		 * that command's status, 128 + SIGTERM or SIGINT; nothing failed. */
		if (rc == 128 + SIGTERM || rc == 128 + SIGINT)
			rc = 0;
	}
	if (rc && rc != 127)
		fprintf(stderr,
			PROG ": the recorder exited with status %d (its message is above)\n", rc);
	return rc ? rc : EXIT_SUCCESS;
}

/* The directory the recorder writes to: --keep's (made), else a new temporary one. */
static int make_dir(struct top *t)
{
	const char *tmp = getenv("TMPDIR");
	int r;

	if (t->a.keep) {
		util_strlcpy(t->dir, t->a.keep, sizeof(t->dir));
		if ((r = util_mkdir_p(t->dir, 0700, 0755)) < 0) {
			fprintf(stderr, PROG ": --keep %s: %s\n", t->dir, strerror(-r));
			return -1;
		}
		return 0;
	}
	snprintf(t->dir, sizeof(t->dir), "%s/ringprof-top.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(t->dir)) {
		fprintf(stderr, PROG ": cannot make a directory in %s: %s\n",
			tmp && *tmp ? tmp : "/tmp", strerror(errno));
		return -1;
	}
	return 0;
}

/* --dir: the daemon's directory, which must be readable. 0, or -1 (said). */
static int follow_dir(struct top *t)
{
	DIR *d = opendir(t->a.follow);
	int err = errno;

	util_strlcpy(t->dir, t->a.follow, sizeof(t->dir));
	if (d) {
		closedir(d);
		return 0;
	}
	fprintf(stderr, PROG ": --dir %s: %s%s\n", t->a.follow, strerror(err),
		err == EACCES ? " (ringprofd's directory is readable by the ringprof group: sudo "
				"usermod -aG ringprof $USER, then log in again)"
			      : "");
	return -1;
}

/* Without --keep: the temporary directory and what is left in it (never --dir's). */
static void remove_dir(const struct top *t)
{
	char path[PATH_MAX + 300];
	struct dirent *e;
	DIR *d;

	if (t->a.keep || t->a.follow || !(d = opendir(t->dir)))
		return;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", t->dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(t->dir);
}

int main(int argc, char **argv)
{
	static struct top t;
	struct sigaction sa = { 0 };
	char why[512];
	int r;

	r = parse_argv(&t, argc, argv);
	if (r)
		return r;
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if ((t.a.follow ? follow_dir(&t) : make_dir(&t)) < 0)
		return EXIT_FAILURE;
	t.s = options_session(&t.o);
	t.comms = strtab_new();
	t.names = strtab_new();
	zero_counts(&t);
	t.cur = &t.base;
	if (!t.comms || !t.names || !t.base.entries || (t.a.call_graph && !t.base.callers)) {
		fprintf(stderr, PROG ": out of memory\n");
		session_free(t.s);
		t.s = NULL;
	}
	if (!t.s || session_stream(t.s, on_sample, &t) < 0 ||
	    (!t.a.follow && start_recorder(&t) < 0)) {
		remove_dir(&t);
		return EXIT_FAILURE;
	}
	raw_tty(&t);
	r = t.a.follow ? run_dir(&t) : run(&t);
	restore_tty(&t);
	if (t.fw)
		session_follow_close(t.s, t.fw, why, sizeof(why));
	session_free(t.s);
	options_warn_done(&t.o);
	remove_dir(&t);
	free(t.rows);
	free(t.scratch);
	counts_reset(&t.base, false);
	counts_reset(&t.live, false);
	pairtab_free(t.base.entries);
	pairtab_free(t.live.entries);
	strtab_free(t.comms);
	strtab_free(t.names);
	free(t.first);
	free(t.canon);
	return r;
}
