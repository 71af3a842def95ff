/* ringprof-top.c — `ringprof top`: a live flat profile, as perf top. A `ringprof record` child
 * (the privileged side: perf events, no symbolization) writes a file per refresh interval
 * (--switch-output); this program, without privileges of its own, reads each finished file
 * into one streaming session (symbols are looked up once), counts the samples by their leaf
 * symbol and redraws the table. */
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
#include "base/util.h"
#include "options.h"
#include "profile/session.h"

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
};

/* One leaf symbol's samples. */
struct top_row {
	uint32_t sym;
	uint64_t period, samples;
};

#define NO_CALLER UINT32_MAX /* a sample whose stack is its leaf alone */
#define CALLERS_SHOWN 5	     /* callers under a row, the busiest first */

/* -g: the samples of one leaf symbol taken in one caller (the next frame out). */
struct top_pair {
	uint32_t leaf, caller;
	uint64_t period;
};

struct top {
	struct top_args a;
	struct options o; /* the shared filters and symbol options */
	struct session *s;
	char dir[PATH_MAX]; /* where the recorder writes */
	char last[256];	    /* the newest recording read (names sort by time) */
	pid_t rec;
	struct top_row *rows;
	size_t n_rows, cap_rows;
	uint32_t *index; /* session_sym() flat id -> row + 1; 0: none yet */
	size_t cap_index;
	uint64_t period, samples, files;
	struct top_pair *pairs; /* -g */
	size_t n_pairs, cap_pairs;
	uint32_t *pair_slot; /* open addressing over pairs: index + 1; 0: empty */
	size_t n_slots;	     /* a power of two, at least twice n_pairs */
	size_t sel;	     /* the selected row (the interactive view's callers) */
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
		"  -z, --zero             each refresh counts only the samples since the last one\n"
		"                         (default: all since the start)\n"
		"      --stdio            print each refresh, one after another, instead of\n"
		"                         redrawing the screen (the default when stdout is not a\n"
		"                         terminal)\n"
		"      --keep DIR         keep the recordings in DIR (one per refresh, named as\n"
		"                         record --switch-output names them; report --dir reads\n"
		"                         them) instead of a temporary directory removed at the end\n"
		"\n"
		"Keys: q quit, f freeze (stop counting new samples) or go on, z zero the counts,\n"
		"j/k or the arrows select the row whose callers -g shows.\n"
		"\n"
		"%s\n"
		"%s\n"
		"  -h, --help             this help\n"
		"  -V, --version          version\n",
		options_help_filters, options_help_symbols);
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

enum { OPT_STDIO = OPT_OWN, OPT_KEEP, OPT_CALL_GRAPH };

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
		break;
	case 'F':
		a->freq = arg;
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
	default:
		return 1;
	}
	return r;
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
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "dso", required_argument, NULL, OPT_DSO },
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
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:p:e:F:d:n:E:zghV", longopts, NULL)) != -1) {
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
	if (!isatty(STDOUT_FILENO))
		t->a.stdio = true;
	return options_filter(&t->o);
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
	snprintf(out, sizeof(out), "%s/top.data", t->dir);
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

static size_t pair_hash(uint32_t leaf, uint32_t caller, size_t mask)
{
	uint64_t h = ((uint64_t)leaf << 32 | caller) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 17) & mask;
}

/* Rebuild the slots for twice as many pairs. 0, or -1 (out of memory: callers stop growing). */
static int grow_slots(struct top *t)
{
	size_t n = t->n_slots ? t->n_slots * 2 : 1024;
	uint32_t *slot = calloc(n, sizeof(*slot));

	if (!slot)
		return -1;
	for (size_t i = 0; i < t->n_pairs; i++) {
		size_t h = pair_hash(t->pairs[i].leaf, t->pairs[i].caller, n - 1);

		while (slot[h])
			h = (h + 1) & (n - 1);
		slot[h] = (uint32_t)i + 1;
	}
	free(t->pair_slot);
	t->pair_slot = slot;
	t->n_slots = n;
	return 0;
}

/* -g: period more for leaf called from caller. */
static void add_pair(struct top *t, uint32_t leaf, uint32_t caller, uint64_t period)
{
	size_t h;

	if ((t->n_pairs + 1) * 2 > t->n_slots && grow_slots(t) < 0)
		return;
	h = pair_hash(leaf, caller, t->n_slots - 1);
	while (t->pair_slot[h]) {
		struct top_pair *p = &t->pairs[t->pair_slot[h] - 1];

		if (p->leaf == leaf && p->caller == caller) {
			p->period += period;
			return;
		}
		h = (h + 1) & (t->n_slots - 1);
	}
	if (GROW(t->pairs, t->cap_pairs, t->n_pairs + 1) < 0)
		return;
	t->pairs[t->n_pairs] = (struct top_pair){ leaf, caller, period };
	t->pair_slot[h] = (uint32_t)++t->n_pairs;
}

/* Count a sample under its leaf symbol (an unknown one under its object's [unknown]). */
static void on_sample(void *arg, const struct session_sample *smp)
{
	struct top *t = arg;
	uint32_t sym, *slot;
	struct top_row *r;

	if (t->frozen || !smp->n_frames)
		return;
	sym = session_sym(t->s, smp->frames[0].sym)->flat;
	if ((size_t)sym >= t->cap_index) {
		size_t old = t->cap_index;

		if (GROW(t->index, t->cap_index, (size_t)sym + 1) < 0)
			return;
		memset(t->index + old, 0, (t->cap_index - old) * sizeof(*t->index));
	}
	slot = &t->index[sym];
	if (!*slot) {
		if (GROW(t->rows, t->cap_rows, t->n_rows + 1) < 0)
			return;
		t->rows[t->n_rows] = (struct top_row){ sym, 0, 0 };
		*slot = (uint32_t)++t->n_rows;
	}
	r = &t->rows[*slot - 1];
	r->period += smp->period;
	r->samples++;
	if (t->a.call_graph)
		add_pair(t, sym,
			 smp->n_frames > 1 ? session_sym(t->s, smp->frames[1].sym)->flat : NO_CALLER,
			 smp->period);
	t->period += smp->period;
	t->samples++;
	if (!t->event_name[0] && smp->event)
		util_strlcpy(t->event_name, smp->event, sizeof(t->event_name));
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The recordings the recorder finished (STEM.TIME.data, not the active top.data), oldest
 * first: read each into the session, then remove it unless --keep. How many were read. */
static size_t read_finished(struct top *t)
{
	char **names = NULL, why[512], path[PATH_MAX + 300];
	size_t n = 0, cap = 0, done = 0;
	struct dirent *e;
	DIR *d = opendir(t->dir);

	if (!d)
		return 0;
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);

		if (strncmp(e->d_name, "top.", 4) != 0 || len < 10 ||
		    strcmp(e->d_name + len - 5, ".data") != 0 ||
		    strcmp(e->d_name, "top.data") == 0 || strcmp(e->d_name, t->last) <= 0)
			continue;
		if (GROW(names, cap, n + 1) < 0 || !(names[n] = strdup(e->d_name)))
			break;
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", t->dir, names[i]);
		t->o.warn_path = path;
		if (!t->frozen && session_add_file(t->s, path, why, sizeof(why)) < 0)
			fprintf(stderr, PROG ": %s: %s\n", path, why);
		else if (!t->frozen)
			done++;
		if (!t->a.keep)
			unlink(path);
		util_strlcpy(t->last, names[i], sizeof(t->last));
		free(names[i]);
	}
	free(names);
	t->files += done;
	return done;
}

static int by_period(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;

	if (x->period != y->period)
		return x->period < y->period ? 1 : -1;
	return x->sym < y->sym ? -1 : x->sym > y->sym;
}

/* The rows that fit: -E, else the terminal's height less the header (20 with --stdio). */
static size_t rows_shown(const struct top *t)
{
	struct winsize ws;

	if (t->a.entries)
		return t->a.entries;
	if (t->a.stdio || ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) < 0 || ws.ws_row < 8)
		return 20;
	/* -g: the selected row's callers and their heading go below the table. */
	if (t->a.call_graph)
		return ws.ws_row > 8u + CALLERS_SHOWN + 2 ? ws.ws_row - 8u - CALLERS_SHOWN : 1;
	return ws.ws_row - 6u;
}

/* -g: the callers of r, the busiest first, as shares of r's period; the rest in one line. */
static void render_callers(struct top *t, FILE *f, const struct top_row *r)
{
	struct top_pair best[CALLERS_SHOWN];
	uint64_t rest = 0;
	size_t n = 0, n_rest = 0;

	for (size_t i = 0; i < t->n_pairs; i++) {
		struct top_pair p = t->pairs[i];
		size_t j;

		if (p.leaf != r->sym)
			continue;
		if (n == CALLERS_SHOWN && p.period <= best[n - 1].period) {
			rest += p.period;
			n_rest++;
			continue;
		}
		if (n == CALLERS_SHOWN) {
			rest += best[n - 1].period;
			n_rest++;
			n--;
		}
		for (j = n++; j > 0 && best[j - 1].period < p.period; j--)
			best[j] = best[j - 1];
		best[j] = p;
	}
	for (size_t i = 0; i < n; i++) {
		const struct session_sym *y =
		    best[i].caller == NO_CALLER ? NULL : session_sym(t->s, best[i].caller);

		fprintf(f, "            | %6.2f%% %s (%s)\n",
			100.0 * (double)best[i].period / (double)(r->period ? r->period : 1),
			!y	  ? "[no caller]"
			: y->name ? y->name
				  : "[unknown]",
			y ? session_dso_name(t->s, y->dso) : "none");
	}
	if (n_rest)
		fprintf(f, "            | %6.2f%% (%zu other callers)\n",
			100.0 * (double)rest / (double)(r->period ? r->period : 1), n_rest);
}

/* One refresh: the header and the rows by period, into f. */
static void render(struct top *t, FILE *f, unsigned long n)
{
	size_t shown = rows_shown(t);

	if (t->n_rows)
		qsort(t->rows, t->n_rows, sizeof(*t->rows), by_period);
	for (size_t i = 0; i < t->n_rows; i++)
		t->index[t->rows[i].sym] = (uint32_t)i + 1;
	if (!t->a.stdio)
		fputs("\033[H\033[2J", f);
	fprintf(f,
		"# ringprof top, refresh %lu: %llu samples of %s (%s Hz%s) in %llu recording%s, %s%s\n",
		n, (unsigned long long)t->samples,
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
	fprintf(f, "#\n# Overhead   Samples  Shared Object          Symbol\n");
	if (t->sel >= t->n_rows || t->sel >= shown)
		t->sel = t->n_rows && shown ? (t->n_rows < shown ? t->n_rows : shown) - 1 : 0;
	for (size_t i = 0; i < t->n_rows && i < shown; i++) {
		const struct top_row *r = &t->rows[i];
		const struct session_sym *y = session_sym(t->s, r->sym);
		bool mark = t->a.call_graph && !t->a.stdio && i == t->sel;

		fprintf(f, "%c%8.2f%% %9llu  %-22s [%c] %s\n", mark ? '>' : ' ',
			t->period ? 100.0 * (double)r->period / (double)t->period : 0.0,
			(unsigned long long)r->samples, session_dso_name(t->s, y->dso),
			y->kernel ? 'k' : '.', y->name ? y->name : "[unknown]");
		if (t->a.call_graph && t->a.stdio)
			render_callers(t, f, r);
	}
	if (t->a.call_graph && !t->a.stdio && t->n_rows) {
		fprintf(f, "# callers of the selected row (j/k or arrows):\n");
		render_callers(t, f, &t->rows[t->sel]);
	}
	if (!t->n_rows)
		fprintf(f, "# (no samples yet)\n");
	if (t->a.stdio)
		fputc('\n', f);
	else
		fprintf(f, "\nq quit  f freeze  z zero%s\n", t->a.call_graph ? "  j/k select" : "");
	fflush(f);
}

static void zero_counts(struct top *t)
{
	if (t->index)
		memset(t->index, 0, t->cap_index * sizeof(*t->index));
	t->n_rows = 0;
	t->period = t->samples = 0;
	if (t->pair_slot)
		memset(t->pair_slot, 0, t->n_slots * sizeof(*t->pair_slot));
	t->n_pairs = 0;
	t->sel = 0;
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

/* Wait up to 100 ms for a key and act on it: true when the table changed. */
static bool take_keys(struct top *t)
{
	struct pollfd p = { STDIN_FILENO, POLLIN, 0 };
	char c;
	int esc = 0; /* 1 after ESC, 2 after ESC [: an arrow key's last byte comes */
	bool changed = false;

	if (!t->tty || poll(&p, 1, 100) <= 0) {
		if (!t->tty)
			poll(NULL, 0, 100);
		return false;
	}
	while (read(STDIN_FILENO, &c, 1) == 1) {
		if (c == 'q' || c == 'Q') {
			stop_asked = 1;
		} else if (c == 'f' || c == 'F') {
			t->frozen = !t->frozen;
			changed = true;
		} else if (c == 'z' || c == 'Z') {
			zero_counts(t);
			changed = true;
		} else if (c == 'j' || (esc == 2 && c == 'B')) {
			t->sel++; /* render() keeps it on a shown row */
			changed = true;
		} else if (c == 'k' || (esc == 2 && c == 'A')) {
			t->sel -= t->sel > 0;
			changed = true;
		}
		esc = c == '\033' ? 1 : esc == 1 && c == '[' ? 2 : 0;
	}
	return changed && !stop_asked;
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

/* Without --keep: the temporary directory and what is left in it. */
static void remove_dir(const struct top *t)
{
	char path[PATH_MAX + 300];
	struct dirent *e;
	DIR *d;

	if (t->a.keep || !(d = opendir(t->dir)))
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
	int r;

	r = parse_argv(&t, argc, argv);
	if (r)
		return r;
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (make_dir(&t) < 0)
		return EXIT_FAILURE;
	t.s = options_session(&t.o);
	if (!t.s || session_stream(t.s, on_sample, &t) < 0 || start_recorder(&t) < 0) {
		remove_dir(&t);
		return EXIT_FAILURE;
	}
	raw_tty(&t);
	r = run(&t);
	restore_tty(&t);
	session_free(t.s);
	options_warn_done(&t.o);
	remove_dir(&t);
	free(t.rows);
	free(t.index);
	free(t.pairs);
	free(t.pair_slot);
	return r;
}
