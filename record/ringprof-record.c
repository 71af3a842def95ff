/* ringprof-record.c — `ringprof record`: one-off captures of a command, processes or the system. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/cpulist.h"
#include "base/procfs.h"
#include "base/util.h"
#include "cli/cli.h"
#include "capture/evsel.h"
#include "capture/evset.h"
#include "capture/recorder.h"
#include "capture/tracefs.h"
#include "capture/unwinder.h"
#include "format/recdir.h"
#include "format/writer.h"

#define PROG "ringprof record"
#define MAX_CPUS 4096
#define MAX_PIDS 1024
#define DEFAULT_STACK_USER 8192		       /* bytes of user stack copied per sample (-g) */
#define RECORD_UNWIND_CACHE_MAX (256ull << 20) /* --unwind-cache's bound */

enum { TAG_SIGNAL = 1, TAG_PIDFD = 2 };

/* Long options without a short one (beyond any character). */
enum {
	OPT_MAX_SIZE = 256,
	OPT_SWITCH_OUTPUT,
	OPT_SWITCH_MAX_FILES,
	OPT_BUILDID_MMAP,
	OPT_UNWIND_MEMORY,
	OPT_UNWIND_CACHE,
	OPT_OFF_CPU_RATE,
	OPT_NO_CALL_GRAPH,
	OPT_NO_SYMBOLS,
	OPT_DATA
};

/* --switch-output: when the recording continues in a new file. */
enum switch_mode { SWITCH_NONE, SWITCH_SIGNAL, SWITCH_SIZE, SWITCH_TIME };

/* Exit statuses besides EXIT_SUCCESS, EXIT_FAILURE and EXIT_USAGE (cli.h); a command's own
 * status passes through. */
enum {
	EXIT_EXEC = 127, /* the command could not be run, as in the shell */
};

/* What the command line asks for. */
struct args {
	struct recorder_opts o; /* the sampling options; the target is set when recording */
	int cpus[MAX_CPUS];	/* -C */
	size_t n_cpus;
	bool cpus_set;
	pid_t pids[MAX_PIDS]; /* -p */
	size_t n_pids;
	bool procs, threads; /* -p, -t (n_pids of them) */
	bool all;	     /* -a */
	char **command;	     /* -- COMMAND [ARGS]; NULL with -a or -p */
	const char *output;
	uint64_t duration; /* ns; 0: until the target ends or a signal */
	int level;	   /* zstd */
	bool quiet;
	bool verbose;		       /* -v: say the settings and what was opened */
	uint64_t max_size;	       /* --max-size: bytes of all files together; 0: no limit */
	enum switch_mode switch_mode;  /* --switch-output (SIGUSR2 switches in every mode) */
	uint64_t switch_size;	       /* SWITCH_SIZE: bytes per file */
	uint64_t switch_ns;	       /* SWITCH_TIME: time per file */
	unsigned int switch_max_files; /* --switch-max-files: keep the newest; 0: all */
	uint64_t delay_ns;	       /* -D: events enabled this long after the start */
	char events[1024];	       /* every -e, joined by commas */
	bool freq_set, period_set;
	bool call_graph_set;	  /* -g, --call-graph or --no-call-graph */
	bool off_cpu_stacks;	  /* --off-cpu turned on the default call graph: say so */
	bool list;		  /* --list-events [GLOB] */
	const char *unwind_cache; /* --unwind-cache DIR, "no"; NULL: the default */
};

/* One recording and what it watches. */
struct record {
	struct args a;
	char *cmdline;
	struct recorder *r;
	struct writer *w;
	int sfd;
	sigset_t saved;	      /* the signal mask the command gets back */
	pid_t child;	      /* the command until it is reaped, else 0 */
	int go, errp;	      /* its hand-shake pipes, until it is released (spawn_stopped) */
	int exit_status;      /* its wait status, -1 before it ended */
	int pidfds[MAX_PIDS]; /* -p: one per target process, -1 where pidfd_open failed */
	uint64_t t0;	      /* when the events were enabled: -d counts from here */
	uint64_t t_release;   /* when the command was let go (or recording began): -D's origin */
	bool enabled;	      /* the events are on (false only during -D) */
	uint64_t t_file;      /* --switch-output: when the current file began */
	bool switch_asked;    /* SIGUSR2 came */
	time_t file_start;    /* --switch-output: when the current file began (UTC), its name */
	uint64_t seq;	      /* --switch-output: the next name's sequence number (0: not known) */
	uint64_t prev_file_bytes, prev_raw_bytes; /* of the files already switched away from */
	char **kept; /* --switch-max-files: the finished files, oldest first */
	size_t n_kept;
	bool size_limit; /* --max-size was reached */
	bool interrupted;
	int code; /* after a failure (said): the exit status */
};

static void usage_output(FILE *f);

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ringprof record [OPTIONS] -- COMMAND [ARGS...]\n"
		"       ringprof record [OPTIONS] -a | -p PID[,PID] | -t TID[,TID] [-- COMMAND]\n"
		"\n"
		"Sample CPU activity with perf events into a compressed recording file.\n"
		"\n"
		"Target (one of):\n"
		"  -- COMMAND [ARGS]      run COMMAND and profile it, its threads and children;\n"
		"                         its exit status becomes ringprof's\n"
		"  -a, --all-cpus         profile every process on all CPUs (needs root, CAP_PERFMON\n"
		"                         or kernel.perf_event_paranoid < 1); with -- COMMAND, for\n"
		"                         as long as the command runs\n"
		"  -p, --pid PID[,PID]    profile running processes, all their threads (a thread\n"
		"                         id stands for its process, as with perf)\n"
		"  -t, --tid TID[,TID]    profile only these threads (and threads they create)\n"
		"                         -p or -t with -- COMMAND: for as long as the command\n"
		"                         runs (perf's -p PID -- sleep 10); the command itself\n"
		"                         is not profiled\n"
		"  -C, --cpu LIST         with -a: only these CPUs, e.g. 0-3,6\n"
		"\n"
		"Sampling:\n"
		"  -e, --event NAME       event to sample (default: cycles, or cpu-clock when the\n"
		"                         machine has no hardware PMU); see --list-events. NAME:u\n"
		"                         samples user space only, NAME:k the kernel only;\n"
		"                         SYSTEM:EVENT is a tracepoint (e.g. sched:sched_switch),\n"
		"                         sampled at every hit unless -F or -c is given. Repeat -e\n"
		"                         or give a comma list to record several events at once\n"
		"  -F, --freq HZ          samples per second per CPU (default 4000; capped to\n"
		"                         kernel.perf_event_max_sample_rate, which -F max uses)\n"
		"  -c, --count PERIOD     sample every PERIOD events instead of a frequency (not\n"
		"                         with -F)\n"
		"  -g                     record callchains, kernel and user (--call-graph dwarf)\n"
		"      --call-graph MODE  record callchains: 'dwarf[,SIZE]' unwinds each user stack\n"
		"                         while recording from a SIZE-byte copy (default 8192, at\n"
		"                         most 65528) with tables built from the binaries'\n"
		"                         .eh_frame, and stores only the return addresses; 'fp'\n"
		"                         follows frame pointers (cheaper; code built without them,\n"
		"                         such as most of Debian's libraries, loses its callers)\n"
		"      --no-call-graph    no callchains, not even those --off-cpu implies\n"
		"      --unwind-memory SIZE  with dwarf: unwind tables kept in memory at most\n"
		"                         (default 64M); the least recently used are dropped and\n"
		"                         built again when needed\n"
		"      --unwind-cache DIR|no  with dwarf: keep unwind tables on disk in DIR\n"
		"                         (default $XDG_CACHE_HOME/ringprof/unwind, else\n"
		"                         ~/.cache/ringprof/unwind; 256M at most), so that the next\n"
		"                         recording of the same binaries starts with them\n"
		"      --switch-events    record context switches (SWITCH records)\n"
		"      --buildid-mmap     let the kernel put build-ids in MMAP2 records (by\n"
		"                         default the helper reads them from the files): on\n"
		"                         Linux 5.12 and later this makes a perf record started\n"
		"                         without --buildid-mmap misread its mappings and abort\n"
		"      --no-symbols       do not store the mapped binaries' function symbols (by\n"
		"                         default they are, once per binary, so that a report\n"
		"                         names binaries that are gone or were replaced)\n"
		"      --off-cpu          also sample every switch-out (sched:sched_switch, period\n"
		"                         1, with the same callchains) and the switch-ins, for\n"
		"                         ringprof report --off-cpu / --wall (needs tracefs and\n"
		"                         kernel.perf_event_paranoid <= 1 or CAP_PERFMON);\n"
		"                         implies -g unless --call-graph or --no-call-graph is\n"
		"                         given\n"
		"      --off-cpu-rate HZ  with --off-cpu, sample switch-outs at HZ a second per CPU\n"
		"                         (the kernel's frequency mode: one in N, N adapted) instead\n"
		"                         of every one; the default with -a is 10000, else 0 (every\n"
		"                         one). Every switch is still recorded, so each thread's\n"
		"                         off-CPU time stays exact; the time of a switch-out without\n"
		"                         a stack goes to the thread's next one of the same kind\n"
		"  -m, --mmap-pages N     ring buffer data pages per CPU, a power of two\n"
		"                         (default 256 with privileges, 1024 with --call-graph\n"
		"                         dwarf, 128 without privileges)\n"
		"\n");
	usage_output(f);
}

/* The rest of --help: the output options and the end. */
static void usage_output(FILE *f)
{
	fprintf(f,
		"Output:\n"
		"  -o, --output FILE      recording file (default ringprof.data; an existing file\n"
		"                         is kept as FILE.old); not '-': no pipe mode; a link,\n"
		"                         a device or another user's file is refused\n"
		"  -d, --duration SECS    stop after SECS seconds (fractions allowed); perf's -d\n"
		"                         (--data, data addresses) is not supported and is told\n"
		"                         apart from a duration\n"
		"  -D, --delay MSECS      enable the events MSECS milliseconds after the command\n"
		"                         starts (or after recording begins); -d counts from then\n"
		"      --max-size SIZE    stop when the output reaches SIZE (unit B, K, M or G;\n"
		"                         with --switch-output, all the files together)\n"
		"      --switch-output[=signal|SIZE|TIME]\n"
		"                         go on in a new file on SIGUSR2 ('signal', the default),\n"
		"                         when a file reaches SIZE (e.g. 100M) or after TIME (with\n"
		"                         a unit s, m, h or d, e.g. 30s); each finished file is\n"
		"                         renamed STEM-YYYYmmddTHHMMSSZ-NNNN.data (OUTPUT is\n"
		"                         STEM.data; the UTC time it began, a sequence number: the\n"
		"                         names of ringprofd's files), which report --dir reads\n"
		"      --switch-max-files N  keep only the newest N finished files\n"
		"  -z, --compression[=N]  zstd level 1-19 (default 6; -zN, -z N or\n"
		"                         --compression-level=N, perf's spelling); recordings are\n"
		"                         always compressed, so -z alone keeps the default level\n"
		"      --flush-interval S close a compressed frame at least every S seconds\n"
		"                         (default 1; bounds what a crash can lose)\n"
		"      --stack-interval S define every callchain again at least every S seconds\n"
		"                         (default 60; bounds what a damaged frame costs)\n"
		"  -q, --quiet            no notes and no summary line\n"
		"  -v, --verbose          say the events opened, the sampling rate, the call graph,\n"
		"                         the CPUs, the ring size and the compression (on stderr,\n"
		"                         as perf's -v; even with -q)\n"
		"\n"
		"  -l, --list-events [GLOB]  list the events -e accepts, marking those this machine\n"
		"                         cannot open; with GLOB (e.g. 'sched:*', or 'tracepoints'\n"
		"                         for all) the matching events and tracepoints\n"
		"  -h, --help             this help\n"
		"  -V, --version          version\n"
		"\n"
		"Ctrl-C (SIGINT) or SIGTERM stops recording and completes the file. The file is made\n"
		"of self-contained zstd frames: after a crash, everything up to the last frame is\n"
		"readable (`ringprof report -i FILE --stats`).\n");
}

/* Why event d cannot be opened here, or NULL when it can. */
static const char *cannot_open(const struct evsel_def *d, char *buf, size_t size)
{
	int rc = evsel_probe(d);

	if (rc == 0)
		return NULL;
	if (evsel_is_unsupported(rc) && d->type == PERF_TYPE_HARDWARE)
		return "not supported here: no hardware PMU";
	if (evsel_is_unsupported(rc))
		snprintf(buf, size, "not supported here: %s", strerror(-rc));
	else if (rc == -EACCES || rc == -EPERM)
		snprintf(buf, size, "not allowed: kernel.perf_event_paranoid is 3 or more");
	else
		snprintf(buf, size, "cannot open here: %s", strerror(-rc));
	return buf;
}

static int print_tracepoint(const char *sys, const char *name, void *arg)
{
	const char *glob = arg;
	char full[300];

	snprintf(full, sizeof(full), "%s:%s", sys, name);
	if (!glob || fnmatch(glob, full, 0) == 0)
		printf("  %-40s tracepoint\n", full);
	return 0;
}

/* --list-events [GLOB]: the table (marking what cannot open here) and how to list
 * tracepoints; with GLOB, the table's and tracefs' names that match it. */
static int list_events(const char *glob)
{
	char why[512], buf[128];
	bool all_tp = glob && strcmp(glob, "tracepoints") == 0;
	int rc;

	for (const struct evsel_def *d = evsel_table(); d->name && !all_tp; d++) {
		const char *no = cannot_open(d, buf, sizeof(buf));

		if (glob && fnmatch(glob, d->name, 0) != 0)
			continue;
		printf("  %-18s %s%s%s%s\n", d->name, d->help, no ? "  [" : "", no ? no : "",
		       no ? "]" : "");
	}
	if (!glob) {
		printf("\nModifiers: NAME:u (user space only), NAME:k (kernel only).\n"
		       "Tracepoints: -e SYSTEM:EVENT (e.g. sched:sched_switch); list them with\n"
		       "  ringprof record --list-events tracepoints, or a glob such as 'sched:*'\n");
		return EXIT_SUCCESS;
	}
	rc = tracefs_for_each(print_tracepoint, all_tp ? NULL : (void *)glob, why, sizeof(why));
	if (rc < 0 && (all_tp || strchr(glob, ':'))) {
		fprintf(stderr, PROG ": %s\n", why);
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

static int parse_pids(const char *s, pid_t *pids, size_t *n)
{
	char *copy = strdup(s), *save = NULL;

	if (!copy)
		return -ENOMEM;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		uint64_t v;

		if (util_parse_u64(t, &v) < 0 || v == 0 || v > 0x3fffffff || *n >= MAX_PIDS) {
			free(copy);
			return -EINVAL;
		}
		pids[(*n)++] = (pid_t)v;
	}
	free(copy);
	return *n ? 0 : -EINVAL;
}

/* The child waits on go[0] until the events are attached, then execs. An exec failure is
 * reported through err[1], which a successful exec closes. */
static pid_t spawn_stopped(char **argv, const sigset_t *saved, int *ret_go, int *ret_err)
{
	int go[2], err[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(err[0]);
		sigprocmask(SIG_SETMASK, saved, NULL);
		if (read(go[0], &c, 1) != 1)
			_exit(EXIT_EXEC); /* the recorder gave up */
		execvp(argv[0], argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(EXIT_EXEC);
		_exit(EXIT_EXEC);
	}
	close(go[0]);
	close(err[1]);
	*ret_go = go[1];
	*ret_err = err[0];
	return pid;
}

/* After a start-up failure with EMFILE: name the limit and what it has to cover. */
static void explain_nofile(int err)
{
	struct rlimit rl;

	if (err != -EMFILE || getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return;
	fprintf(stderr,
		PROG
		": the limit on open files (ulimit -n) is %llu; ringprof record needs one descriptor "
		"per recorded CPU (and thread) plus about 8 of its own. Raise it, e.g. ulimit -n 1024\n",
		(unsigned long long)rl.rlim_cur);
}

static int exit_code_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_FAILURE;
}

/* --call-graph fp | dwarf[,SIZE], perf's spelling. 0, or the exit status (said). */
static int parse_call_graph(struct args *a, const char *arg)
{
	uint64_t size = DEFAULT_STACK_USER;

	a->call_graph_set = true;
	if (strcmp(arg, "fp") == 0) {
		a->o.callchain = true;
		a->o.stack_user = 0;
		return 0;
	}
	if (strncmp(arg, "dwarf", 5) == 0 && (arg[5] == '\0' || arg[5] == ',')) {
		if (arg[5] == ',' &&
		    (util_parse_u64(arg + 6, &size) < 0 || size < 8 || size > 65528)) {
			fprintf(stderr,
				PROG
				": invalid stack copy size '%s' (bytes, 8 to 65528, e.g. dwarf,16384)\n",
				arg + 6);
			return EXIT_USAGE;
		}
		a->o.callchain = true;
		a->o.stack_user = (uint32_t)((size + 7) & ~7ull);
		return 0;
	}
	fprintf(stderr, PROG ": unknown call-graph mode '%s': use 'dwarf[,SIZE]' or 'fp'%s\n", arg,
		strcmp(arg, "lbr") == 0 ? " (lbr needs a hardware PMU with branch records)" : "");
	return EXIT_USAGE;
}

/* -p PID[,PID] or -t TID[,TID]. 0, or the exit status (said). */
static int parse_ids(struct args *a, int c, const char *arg)
{
	if (parse_pids(arg, a->pids, &a->n_pids) < 0) {
		fprintf(stderr, PROG ": invalid %s list '%s' (expected e.g. 1234,5678)\n",
			c == 'p' ? "PID" : "TID", arg);
		return EXIT_USAGE;
	}
	*(c == 'p' ? &a->procs : &a->threads) = true;
	return 0;
}

/* -e NAME: added to the comma list perf's repeated -e make. 0, or the exit status (said). */
static int add_event(struct args *a, const char *arg)
{
	size_t len = strlen(a->events);

	if (len + 1 + strlen(arg) >= sizeof(a->events)) {
		fprintf(stderr, PROG ": too many events (-e)\n");
		return EXIT_USAGE;
	}
	snprintf(a->events + len, sizeof(a->events) - len, "%s%s", len ? "," : "", arg);
	a->o.event = a->events;
	return 0;
}

/* --unwind-memory SIZE. 0, or the exit status (said). */
static int parse_unwind_memory(struct args *a, const char *arg)
{
	if (util_parse_size(arg, &a->o.unwind_memory) < 0 || a->o.unwind_memory < (1u << 20)) {
		fprintf(stderr,
			PROG
			": invalid --unwind-memory '%s' (bytes with a unit K, M or G, at least "
			"1M)\n",
			arg);
		return EXIT_USAGE;
	}
	return 0;
}

/* The options that turn on a recorder option (and --off-cpu-rate's number). 0, or the exit
 * status after saying what is wrong. */
static int set_flag(struct args *a, int c, const char *arg)
{
	if (c == OPT_OFF_CPU_RATE &&
	    (util_parse_u64(arg, &a->o.off_cpu_rate) < 0 || a->o.off_cpu_rate > 100000)) {
		fprintf(stderr,
			PROG ": --off-cpu-rate needs switch-outs a second from 0 to 100000, "
			     "e.g. 1000\n");
		return EXIT_USAGE;
	}
	if (c == 'S')
		a->o.switch_events = true;
	else if (c == OPT_BUILDID_MMAP)
		a->o.kernel_build_ids = true;
	else if (c == 'O')
		a->o.off_cpu = true;
	else if (c == OPT_NO_SYMBOLS)
		a->o.no_symbols = true;
	return 0;
}

/* perf's -F max: the kernel's own limit, kernel.perf_event_max_sample_rate, read now. */
static int parse_freq_max(struct args *a)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
	unsigned long long hz = 0;
	bool ok = f && fscanf(f, "%llu", &hz) == 1 && hz > 0;

	if (f)
		fclose(f);
	if (!ok) {
		fprintf(stderr,
			PROG ": -F max: cannot read kernel.perf_event_max_sample_rate; give a "
			     "frequency in Hz\n");
		return EXIT_USAGE;
	}
	a->o.freq = hz;
	a->o.period = 0;
	a->freq_set = true;
	return 0;
}

/* -F HZ or -F max. 0, or the exit status (said). */
static int parse_freq(struct args *a, const char *arg)
{
	if (strcmp(arg, "max") == 0)
		return parse_freq_max(a);
	if (util_parse_u64(arg, &a->o.freq) < 0 || a->o.freq == 0) {
		fprintf(stderr, PROG ": invalid frequency '%s' (expected Hz, e.g. 999, or max)\n",
			arg);
		return EXIT_USAGE;
	}
	a->o.period = 0;
	a->freq_set = true;
	return 0;
}

/* -d SECS. perf record's -d is --data and takes no argument, so a perf user's `-d -- CMD` or
 * `-d -g` lands here: say what -d is in ringprof rather than only that the value is bad. 0, or
 * the exit status (said). */
static int parse_duration(struct args *a, const char *arg)
{
	if (util_parse_seconds(arg, &a->duration) == 0 && a->duration > 0)
		return 0;
	if (arg[0] == '-' || !isdigit((unsigned char)arg[0]))
		fprintf(stderr,
			PROG ": -d takes a duration in seconds (e.g. -d 10), not '%s'; perf "
			     "record's -d (--data, sample data addresses) is not supported\n",
			arg);
	else
		fprintf(stderr, PROG ": invalid duration '%s' (seconds, e.g. 10 or 0.5)\n", arg);
	return EXIT_USAGE;
}

/* -z[LEVEL], --compression[=LEVEL]: perf's -z, whose level is optional (NULL: keep ours). 0,
 * or the exit status (said). */
static int parse_level(struct args *a, const char *arg)
{
	uint64_t v;

	if (!arg)
		return 0;
	if (util_parse_u64(arg, &v) < 0 || v < 1 || v > 19) {
		fprintf(stderr,
			PROG ": invalid compression level '%s' (zstd levels 1-19, e.g. -z3 or "
			     "--compression=3)\n",
			arg);
		return EXIT_USAGE;
	}
	a->level = (int)v;
	return 0;
}

/* Whether s is all digits: after a bare -z, a level given apart (`-z 3`) rather than the
 * command, which perf would take it for. */
static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	while (isdigit((unsigned char)*s))
		s++;
	return !*s;
}

/* One option into a; -h and -V end the program here. 0, or the exit status after saying
 * what is wrong. */
static int parse_option(struct args *a, int c, const char *arg)
{
	uint64_t v;

	switch (c) {
	case 'a':
		a->all = true;
		break;
	case 'C':
		if (cpulist_parse(arg, a->cpus, MAX_CPUS, &a->n_cpus) < 0 || !a->n_cpus) {
			fprintf(stderr, PROG ": invalid CPU list '%s' (expected e.g. 0-3,6)\n", arg);
			return EXIT_USAGE;
		}
		a->cpus_set = true;
		break;
	case 'p':
	case 't':
		return parse_ids(a, c, arg);
	case 'e':
		return add_event(a, arg);
	case 'F':
		return parse_freq(a, arg);
	case 'c':
		if (util_parse_u64(arg, &a->o.period) < 0 || a->o.period == 0) {
			fprintf(stderr, PROG ": invalid period '%s'\n", arg);
			return EXIT_USAGE;
		}
		a->o.freq = 0;
		a->period_set = true;
		break;
	case 'g':
		return parse_call_graph(a, "dwarf");
	case 'G':
		return parse_call_graph(a, arg);
	case OPT_NO_CALL_GRAPH:
		a->call_graph_set = true;
		a->o.callchain = false;
		a->o.stack_user = 0;
		break;
	case 'S':
	case OPT_BUILDID_MMAP:
	case OPT_NO_SYMBOLS:
	case 'O':
	case OPT_OFF_CPU_RATE:
		return set_flag(a, c, arg);
	case 'm':
		if (util_parse_u64(arg, &v) < 0 || v == 0 || (v & (v - 1)) || v > (1u << 20)) {
			fprintf(stderr,
				PROG ": -m needs a power of two number of pages, e.g. 128\n");
			return EXIT_USAGE;
		}
		a->o.ring_pages = (unsigned int)v;
		break;
	case 'o':
		a->output = arg;
		break;
	case 'd':
		return parse_duration(a, arg);
	case 'z':
		return parse_level(a, arg);
	case 'I':
		if (util_parse_seconds(arg, &a->o.flush_ns) < 0 || a->o.flush_ns < 10000000) {
			fprintf(stderr, PROG ": flush interval must be at least 0.01 seconds\n");
			return EXIT_USAGE;
		}
		break;
	case 'K':
		if (util_parse_seconds(arg, &a->o.restack_ns) < 0 || a->o.restack_ns < 10000000) {
			fprintf(stderr, PROG ": stack interval must be at least 0.01 seconds\n");
			return EXIT_USAGE;
		}
		break;
	case 'q':
		a->quiet = true;
		break;
	case 'v':
		a->verbose = true;
		break;
	case OPT_DATA:
		fprintf(stderr,
			PROG ": --data (perf's -d: sample data addresses) is not supported: "
			     "ringprof records code addresses only\n");
		return EXIT_USAGE;
	case 'l':
		a->list = true;
		break;
	case 'h':
		usage(stdout);
		exit(EXIT_SUCCESS);
	case 'V':
		printf("ringprof record %s\n", PACKAGE_VERSION);
		exit(EXIT_SUCCESS);
	default:
		fprintf(stderr, "Try 'ringprof record --help'.\n");
		return EXIT_USAGE;
	}
	return 0;
}

/* --switch-output[=signal|SIZE|TIME], perf's spellings: SIZE with a unit B, K, M or G, TIME
 * with one of s, m, h or d. 0, or the exit status (said). */
static int parse_switch_output(struct args *a, const char *arg)
{
	static const char time_units[] = "smhd";
	static const uint64_t time_mult[] = { 1, 60, 3600, 86400 };
	size_t len = arg ? strlen(arg) : 0;
	const char *u = len > 1 ? strchr(time_units, arg[len - 1]) : NULL;
	char num[32];
	uint64_t v;

	if (!arg || strcmp(arg, "signal") == 0) {
		a->switch_mode = SWITCH_SIGNAL;
		return 0;
	}
	if (u && *u && len <= sizeof(num)) {
		snprintf(num, sizeof(num), "%.*s", (int)len - 1, arg);
		if (util_parse_seconds(num, &v) == 0 && v >= NSEC_PER_SEC / 10 &&
		    v <= UINT64_MAX / 2 / time_mult[u - time_units]) {
			a->switch_mode = SWITCH_TIME;
			a->switch_ns = v * time_mult[u - time_units];
			return 0;
		}
	} else if (len && !isdigit((unsigned char)arg[len - 1]) && util_parse_size(arg, &v) == 0 &&
		   v >= 4096) {
		a->switch_mode = SWITCH_SIZE;
		a->switch_size = v;
		return 0;
	}
	fprintf(stderr,
		PROG
		": invalid --switch-output '%s': give 'signal', a size with its unit (B, K, M "
		"or G, at least 4K, e.g. 100M) or a time with its unit (s, m, h or d, at least "
		"0.1s, e.g. 30s)\n",
		arg);
	return EXIT_USAGE;
}

/* -D, --max-size, --switch-output, --switch-max-files. 0, or the exit status (said). */
static int parse_lifecycle(struct args *a, int c, const char *arg)
{
	uint64_t v;

	switch (c) {
	case 'D':
		if (strcmp(arg, "-1") == 0) {
			fprintf(stderr, PROG
				": -D -1 (start with the events disabled) needs perf's --control, "
				"which ringprof record does not have; give the delay in "
				"milliseconds\n");
			return EXIT_USAGE;
		}
		if (util_parse_u64(arg, &v) < 0 || v > 1000000000) {
			fprintf(stderr, PROG ": invalid delay '%s' (milliseconds, e.g. 500)\n", arg);
			return EXIT_USAGE;
		}
		a->delay_ns = v * 1000000;
		return 0;
	case OPT_MAX_SIZE:
		if (util_parse_size(arg, &a->max_size) < 0 || a->max_size == 0) {
			fprintf(stderr,
				PROG ": invalid --max-size '%s' (bytes with a unit B, K, M or G, "
				     "e.g. 100M)\n",
				arg);
			return EXIT_USAGE;
		}
		return 0;
	case OPT_SWITCH_OUTPUT:
		return parse_switch_output(a, arg);
	default: /* OPT_SWITCH_MAX_FILES */
		if (util_parse_u64(arg, &v) < 0 || v == 0 || v > 1000000) {
			fprintf(stderr,
				PROG
				": invalid --switch-max-files '%s' (a number of files, e.g. 10)\n",
				arg);
			return EXIT_USAGE;
		}
		a->switch_max_files = (unsigned int)v;
		return 0;
	}
}

/* The output has to be a file: --switch-output renames it, and "-" is not stdout. 0, or the
 * exit status (said). */
static int check_lifecycle(const struct args *a)
{
	struct stat sb;

	/* perf's pipe mode: the writer writes at file offsets (a frame that fails is cut back),
	 * which a pipe cannot do; "-" would silently become a file of that name. */
	if (strcmp(a->output, "-") == 0) {
		fprintf(stderr, PROG ": -o - (perf's pipe mode) is not supported: recordings are "
				     "written to a file; give a file name\n");
		return EXIT_USAGE;
	}
	if (a->switch_max_files && !a->switch_mode) {
		fprintf(stderr, PROG ": --switch-max-files limits the files of --switch-output; "
				     "give --switch-output too\n");
		return EXIT_USAGE;
	}
	if (a->switch_mode && stat(a->output, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		fprintf(stderr,
			PROG ": --switch-output renames the output into time-stamped files, which "
			     "needs a regular file: %s is not one\n",
			a->output);
		return EXIT_USAGE;
	}
	return 0;
}

/* Exactly one target, -C only with -a, a known event. 0, or the exit status (said). */
static int check_args(const struct args *a)
{
	bool any = a->all || a->n_pids || a->command;

	if (a->procs && a->threads) {
		fprintf(stderr, PROG ": give -p PID or -t TID, not both\n");
		return EXIT_USAGE;
	}
	/* -a -- COMMAND and -p PID -- COMMAND: the command only sets how long to record, as in
	 * perf's `-a -- sleep 10` and `-p PID -- sleep 10`. */
	if (!(a->all || a->command || a->n_pids) || (a->all && a->n_pids)) {
		fprintf(stderr, PROG ": %s\nTry 'ringprof record --help'.\n",
			any ? "give only one target: -a, -p PID, -t TID or -- COMMAND"
			    : "nothing to record: give -a, -p PID, -t TID or -- COMMAND");
		return EXIT_USAGE;
	}
	if (a->cpus_set && !a->all) {
		fprintf(stderr,
			PROG ": -C selects CPUs for system-wide recording; use it with -a\n");
		return EXIT_USAGE;
	}
	if (a->freq_set && a->period_set) {
		fprintf(stderr, PROG ": -c PERIOD and -F HZ both set the sampling rate; give one\n");
		return EXIT_USAGE;
	}
	if (a->o.event) {
		struct evset_event evs[EVSET_MAX_EVENTS];
		char why[512];
		size_t n;
		int rc = evset_parse_events(a->o.event, evs, &n, why, sizeof(why));

		if (rc < 0) {
			fprintf(stderr, PROG ": %s\n", why);
			return rc == -ENOENT || rc == -EINVAL || rc == -EOPNOTSUPP || rc == -E2BIG
				   ? EXIT_USAGE
				   : EXIT_FAILURE;
		}
	}
	return 0;
}

/* 0 to record, or the exit status after saying what is wrong. */
static int parse_argv(struct args *a, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "event", required_argument, NULL, 'e' },
		{ "freq", required_argument, NULL, 'F' },
		{ "count", required_argument, NULL, 'c' },
		{ "call-graph", required_argument, NULL, 'G' },
		{ "no-call-graph", no_argument, NULL, OPT_NO_CALL_GRAPH },
		{ "switch-events", no_argument, NULL, 'S' },
		{ "buildid-mmap", no_argument, NULL, OPT_BUILDID_MMAP },
		{ "unwind-memory", required_argument, NULL, OPT_UNWIND_MEMORY },
		{ "unwind-cache", required_argument, NULL, OPT_UNWIND_CACHE },
		{ "no-symbols", no_argument, NULL, OPT_NO_SYMBOLS },
		{ "off-cpu", no_argument, NULL, 'O' },
		{ "off-cpu-rate", required_argument, NULL, OPT_OFF_CPU_RATE },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "compression", optional_argument, NULL, 'z' },
		{ "compression-level", optional_argument, NULL, 'z' },
		{ "data", no_argument, NULL, OPT_DATA },
		{ "verbose", no_argument, NULL, 'v' },
		{ "flush-interval", required_argument, NULL, 'I' },
		{ "stack-interval", required_argument, NULL, 'K' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "list-events", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "delay", required_argument, NULL, 'D' },
		{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
		{ "switch-output", optional_argument, NULL, OPT_SWITCH_OUTPUT },
		{ "switch-max-files", required_argument, NULL, OPT_SWITCH_MAX_FILES },
		{ NULL, 0, NULL, 0 },
	};
	/* "+": the options end at the command, whose own options are its business; ":": a
	 * missing argument is told apart from an unknown option. */
	static const char shortopts[] = "+:aC:p:t:e:F:c:gm:o:d:D:z::qvlhV";
	int c, r;

	a->o.freq = 4000;
	a->o.off_cpu_rate = UINT64_MAX; /* not given */
	a->output = "ringprof.data";
	a->level = 6;
	cli_options(longopts);
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (c == '?' || c == ':')
			return cli_option_error(PROG, c, argv);
		if (c == 'z' && !optarg && optind < argc && all_digits(argv[optind]))
			optarg = argv[optind++];
		r = c == 'D' || (c >= OPT_MAX_SIZE && c <= OPT_SWITCH_MAX_FILES)
			? parse_lifecycle(a, c, optarg)
		    : c == OPT_UNWIND_MEMORY ? parse_unwind_memory(a, optarg)
		    : c == OPT_UNWIND_CACHE  ? (a->unwind_cache = optarg, 0)
					     : parse_option(a, c, optarg);
		if (r)
			return r;
	}
	if (a->list)
		exit(list_events(optind < argc ? argv[optind] : NULL));
	if (optind < argc)
		a->command = argv + optind;
	a->o.rate_given = a->freq_set || a->period_set;
	/* System-wide switch rates reach 10^5 a second: -a samples the switch-outs by default. */
	if (a->o.off_cpu_rate == UINT64_MAX)
		a->o.off_cpu_rate = a->all ? 10000 : 0;
	/* Off-CPU time without stacks would all be in the kernel's __schedule: --off-cpu
	 * records -g's callchains unless a call graph was chosen. */
	if (a->o.off_cpu && !a->call_graph_set) {
		parse_call_graph(a, "dwarf");
		a->off_cpu_stacks = true;
	}
	r = check_args(a);
	return r ? r : check_lifecycle(a);
}

/* Signals are taken through a signalfd; the command gets the original mask back. */
static int block_signals(struct record *x)
{
	sigset_t mask;
	int e;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGHUP);
	if (x->a.switch_mode)
		sigaddset(&mask, SIGUSR2);
	sigprocmask(SIG_BLOCK, &mask, &x->saved);
	x->sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (x->sfd < 0) {
		e = errno;
		fprintf(stderr, PROG ": signalfd: %s\n", strerror(e));
		explain_nofile(-e);
		return -e;
	}
	return 0;
}

/* -- COMMAND: start it stopped, so that its events are attached before it execs. */
static int spawn_command(struct record *x)
{
	pid_t pid;

	if (!x->a.command)
		return 0;
	pid = spawn_stopped(x->a.command, &x->saved, &x->go, &x->errp);
	if (pid < 0) {
		fprintf(stderr, PROG ": cannot start '%s': %s\n", x->a.command[0], strerror(-pid));
		explain_nofile((int)pid);
		return (int)pid;
	}
	x->child = pid;
	return 0;
}

/* Recording will not happen: the command reads EOF instead of "go" and exits unrun. */
static void abandon_command(struct record *x)
{
	if (x->child <= 0)
		return;
	close(x->go);
	close(x->errp);
	x->go = x->errp = -1;
	waitpid(x->child, NULL, 0);
	x->child = 0;
}

/* The events are attached: let the command exec. An exec failure comes back through errp,
 * which a successful exec closes. */
static void release_command(struct record *x)
{
	ssize_t n;
	int e = 0;

	if (x->child <= 0)
		return;
	if (x->code) {
		abandon_command(x);
		return;
	}
	if (write(x->go, "g", 1) != 1) {
		fprintf(stderr, PROG ": cannot start the command: %s\n", strerror(errno));
		x->code = EXIT_FAILURE;
	}
	close(x->go);
	n = read(x->errp, &e, sizeof(e));
	close(x->errp);
	x->go = x->errp = -1;
	if (n == (ssize_t)sizeof(e)) {
		fprintf(stderr, PROG ": cannot run '%s': %s\n", x->a.command[0], strerror(e));
		waitpid(x->child, NULL, 0);
		x->child = 0;
		x->code = EXIT_EXEC;
	}
}

/* -p TID of a thread that is not its process's leader: the process (perf does the same). */
static void pids_to_processes(struct args *a, bool quiet)
{
	for (size_t i = 0; i < a->n_pids; i++) {
		int tgid;

		if (procfs_read_status(a->pids[i], &tgid, NULL) == 0 && tgid > 0 &&
		    tgid != a->pids[i]) {
			if (!quiet)
				fprintf(stderr,
					PROG
					": note: %d is a thread of process %d: recording the process "
					"(-t %d records only that thread)\n",
					(int)a->pids[i], tgid, (int)a->pids[i]);
			a->pids[i] = tgid;
		}
	}
}

/* Recording stopped (a signal, -d, a write error) while the command still runs: end it, as
 * perf does. */
static void end_command(struct record *x)
{
	int status;

	if (x->child <= 0)
		return;
	kill(x->child, SIGTERM);
	waitpid(x->child, &status, 0);
	x->exit_status = status;
	x->child = 0;
}

/* --unwind-cache: the directory (its parents made), or NULL for none (or when it cannot be
 * made: said). */
static const char *unwind_cache_dir(const struct args *a, char *buf, size_t size)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char parent[PATH_MAX];
	int r;

	if (!a->o.stack_user || (a->unwind_cache && strcmp(a->unwind_cache, "no") == 0))
		return NULL;
	if (a->unwind_cache)
		return a->unwind_cache;
	if (xdg && xdg[0] == '/')
		snprintf(parent, sizeof(parent), "%s/ringprof", xdg);
	else if (home && home[0] == '/')
		snprintf(parent, sizeof(parent), "%s/.cache/ringprof", home);
	else
		return NULL;
	if ((r = util_mkdir_p(parent, 0700, 0700)) < 0) {
		if (!a->quiet)
			fprintf(stderr, PROG ": note: unwind tables are not kept on disk: %s: %s\n",
				parent, strerror(-r));
		return NULL;
	}
	snprintf(buf, size, "%s/unwind", parent);
	return buf;
}

/* -v: what perf's -v says of its setup (events, rate, buffers, compression), from what was
 * asked and what the recorder opened. On stderr, as perf does. */
static void print_verbose(const struct record *x)
{
	const struct args *a = &x->a;
	const char *target = a->all	  ? "system-wide"
			     : a->threads ? "threads"
			     : a->n_pids  ? "processes"
					  : "a command and its children";

	for (size_t i = 0; i < recorder_n_events(x->r); i++)
		fprintf(stderr, PROG ": event %zu: %s\n", i, recorder_event(x->r, i));
	if (recorder_freq(x->r))
		fprintf(stderr, PROG ": sampling: %llu Hz per CPU\n",
			(unsigned long long)recorder_freq(x->r));
	else
		fprintf(stderr, PROG ": sampling: every %llu events\n",
			(unsigned long long)a->o.period);
	if (!a->o.callchain)
		fprintf(stderr, PROG ": call graph: none\n");
	else if (a->o.stack_user)
		fprintf(stderr, PROG ": call graph: dwarf, %u-byte user stack copies\n",
			a->o.stack_user);
	else
		fprintf(stderr, PROG ": call graph: fp (frame pointers)\n");
	fprintf(stderr, PROG ": target: %s, events open on %zu CPUs\n", target,
		recorder_n_cpus(x->r));
	if (a->o.ring_pages)
		fprintf(stderr, PROG ": mmap pages: %u per CPU\n", a->o.ring_pages);
	else
		fprintf(stderr, PROG ": mmap pages: the default (see -m)\n");
	fprintf(stderr, PROG ": output: %s, zstd level %d, a frame at least every %.2f s\n",
		a->output, a->level, (a->o.flush_ns ? a->o.flush_ns : NSEC_PER_SEC) / 1e9);
	if (a->duration)
		fprintf(stderr, PROG ": duration: %.2f s\n", a->duration / 1e9);
}

static int open_recorder(struct record *x)
{
	struct recorder_opts o = x->a.o;
	char why[1024], cache[PATH_MAX + 16];
	int r;

	o.cmdline = x->cmdline;
	o.unwind_cache = unwind_cache_dir(&x->a, cache, sizeof(cache));
	o.unwind_cache_max = RECORD_UNWIND_CACHE_MAX;
	o.start_disabled = x->a.delay_ns > 0;
	o.cpus = x->a.cpus_set ? x->a.cpus : NULL;
	o.n_cpus = x->a.n_cpus;
	if (x->a.all) {
		o.target = RECORDER_SYSTEM;
	} else if (x->a.n_pids) {
		o.target = x->a.threads ? RECORDER_THREADS : RECORDER_PIDS;
		if (!x->a.threads)
			pids_to_processes(&x->a, x->a.quiet);
		o.pids = x->a.pids;
		o.n_pids = x->a.n_pids;
	} else {
		o.target = RECORDER_COMMAND;
		o.pids = &x->child;
		o.n_pids = 1;
	}
	r = recorder_new(&o, &x->r, why, sizeof(why));
	if (r < 0) {
		fprintf(stderr, PROG ": %s\n", why);
		explain_nofile(r);
		return r;
	}
	if (x->a.off_cpu_stacks && !x->a.quiet)
		fprintf(stderr, PROG ": note: --off-cpu records callchains as -g does "
				     "(--call-graph dwarf; --no-call-graph records none)\n");
	for (size_t i = 0; !x->a.quiet && recorder_note(x->r, i); i++)
		fprintf(stderr, PROG ": note: %s\n", recorder_note(x->r, i));
	if (x->a.verbose)
		print_verbose(x);
	return 0;
}

/* Whether what path names may be replaced by a recording: nothing, or a regular file of ours
 * (not a link, which another user may have planted in a shared directory to make us write
 * over its target, nor a device). 0, or -1 with a sentence in why. */
static int output_replaceable(const char *path, char *why, size_t why_size)
{
	struct stat sb;

	if (lstat(path, &sb) < 0)
		return errno == ENOENT ? 0 : (snprintf(why, why_size, "%s", strerror(errno)), -1);
	if (S_ISLNK(sb.st_mode))
		snprintf(why, why_size,
			 "it is a symbolic link; a recording is not written through a link "
			 "(give the path it points to, or remove it)");
	else if (!S_ISREG(sb.st_mode))
		snprintf(why, why_size, "it is not a regular file");
	else if (sb.st_uid != geteuid())
		snprintf(why, why_size,
			 "it belongs to another user (uid %u); remove it or choose another name",
			 (unsigned)sb.st_uid);
	else
		return 0;
	return -1;
}

/* Refuse an output that is not a regular file of ours, before anything starts. */
static int check_output(const char *output)
{
	char why[160];

	if (output_replaceable(output, why, sizeof(why)) == 0)
		return 0;
	fprintf(stderr, PROG ": will not write the recording to %s: %s\n", output, why);
	return -1;
}

/* Keep the previous recording, as perf does (when FILE.old may be replaced too). */
static void keep_old_output(const char *output, bool quiet)
{
	struct stat sb;
	size_t len = strlen(output) + 5;
	char *old, why[160];

	if (lstat(output, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_size <= 0)
		return;
	old = malloc(len);
	if (!old)
		return;
	snprintf(old, len, "%s.old", output);
	if (output_replaceable(old, why, sizeof(why)) < 0) {
		if (!quiet)
			fprintf(stderr, PROG ": note: the old %s is not kept as %s: %s\n", output,
				old, why);
	} else if (rename(output, old) < 0 && !quiet)
		fprintf(stderr, PROG ": note: could not keep the old %s as %s: %s\n", output, old,
			strerror(errno));
	free(old);
}

static int open_output(struct record *x)
{
	int r = writer_create(x->a.output, 0600, x->a.level, &x->w);

	if (r < 0) {
		fprintf(stderr, PROG ": cannot create %s: %s\n", x->a.output, strerror(-r));
		explain_nofile(r);
	}
	return r;
}

/* Write the head of the file and enable the events. */
static void start_recording(struct record *x)
{
	const struct writer_stats *ws;
	int r;

	x->t0 = x->t_file = util_now_ns();
	x->file_start = time(NULL);
	x->enabled = !x->a.delay_ns;
	r = recorder_start(x->r, x->w);
	if (r < 0)
		fprintf(stderr, PROG ": warning: could not enable every event: %s\n", strerror(-r));
	ws = writer_stats(x->w);
	if (!ws->dropped_frames)
		return;
	/* The header and the start-up state did not fit (disk full): later frames would be a
	 * recording without its head, so stop before the command runs. */
	fprintf(stderr, PROG ": writing %s failed: %s; recording stopped before it began. %s\n",
		x->a.output, strerror(ws->last_error ? -ws->last_error : EIO),
		ws->frames ? "The file is readable up to the last complete frame."
			   : "Nothing could be written; the file is removed.");
	if (!ws->frames)
		unlink(x->a.output);
	x->code = EXIT_FAILURE;
}

static void watch_signals(struct record *x)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = TAG_SIGNAL };

	epoll_ctl(recorder_epoll_fd(x->r), EPOLL_CTL_ADD, x->sfd, &ev);
}

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL /* Linux 6.9: a pidfd for a thread */
#endif

/* -p, -t: recording stops when every target process (or thread) has exited. */
static void watch_pids(struct record *x)
{
	for (size_t i = 0; i < x->a.n_pids; i++) {
		int fd =
		    (int)syscall(SYS_pidfd_open, x->a.pids[i], x->a.threads ? PIDFD_THREAD : 0);
		struct epoll_event ev = { .events = EPOLLIN, .data.u64 = TAG_PIDFD };

		x->pidfds[i] = fd;
		if (fd >= 0)
			epoll_ctl(recorder_epoll_fd(x->r), EPOLL_CTL_ADD, fd, &ev);
	}
}

/* A pidfd became readable: whether some target process is still there. */
static bool any_pid_alive(const struct record *x)
{
	for (size_t i = 0; i < x->a.n_pids; i++)
		if (x->pidfds[i] >= 0 && kill(x->a.pids[i], 0) == 0)
			return true;
	return false;
}

/* Drain the signalfd. True when recording is to stop: the command exited, or SIGINT,
 * SIGTERM or SIGHUP came. SIGUSR2 asks --switch-output for a new file. */
static bool on_signals(struct record *x)
{
	struct signalfd_siginfo si;
	bool stop = false;

	while (read(x->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		int status;

		if (si.ssi_signo == SIGUSR2) {
			x->switch_asked = true;
		} else if (si.ssi_signo != SIGCHLD) {
			x->interrupted = true;
			stop = true;
		} else if (x->child > 0 && waitpid(x->child, &status, WNOHANG) == x->child) {
			x->exit_status = status;
			x->child = 0;
			stop = true;
		}
	}
	return stop;
}

/* Milliseconds from now to end (rounded up), at most ms. */
static int ms_until(uint64_t now, uint64_t end, int ms)
{
	if (now >= end)
		return 0;
	return (end - now) / 1000000 < (uint64_t)ms ? (int)((end - now) / 1000000) + 1 : ms;
}

/* The poll timeout in ms, bounded by the end of -d, -D and a --switch-output time; -1 once
 * -d has passed. */
static int poll_timeout(const struct record *x)
{
	uint64_t now = util_now_ns(), end;
	int ms = 250;

	if (!x->enabled)
		ms = ms_until(now, x->t_release + x->a.delay_ns, ms);
	if (x->a.switch_mode == SWITCH_TIME)
		ms = ms_until(now, x->t_file + x->a.switch_ns, ms);
	if (!x->a.duration || !x->enabled)
		return ms;
	end = x->t0 + x->a.duration;
	if (now >= end)
		return -1;
	return ms_until(now, end, ms);
}

/* -D has passed: the events go on, and -d counts from now. */
static void enable_events(struct record *x)
{
	int r = recorder_enable(x->r);

	if (r < 0)
		fprintf(stderr, PROG ": warning: could not enable every event: %s\n", strerror(-r));
	x->enabled = true;
	x->t0 = util_now_ns();
}

/* The finished current file of --switch-output, begun at START, gets its name beside the
 * output: DIR/STEM-YYYYmmddTHHMMSSZ-NNNN.data where the output is DIR/STEM.data (or
 * DIR/STEM), the names of ringprofd's files (format/recdir.h), never replacing a file. The
 * malloc'd path, or NULL (said). */
static char *finish_output(struct record *x, time_t start)
{
	const char *out = x->a.output, *slash = strrchr(out, '/'), *base = slash ? slash + 1 : out;
	size_t dlen = slash ? (size_t)(slash - out) : 0, blen = strlen(base);
	char dir[PATH_MAX], stem[RECDIR_NAME_MAX], name[RECDIR_NAME_MAX], *path = NULL;
	struct recdir_entry *v;
	size_t n;
	int dfd, r;

	if (blen > 5 && strcmp(base + blen - 5, RECDIR_SUFFIX) == 0)
		blen -= 5;
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(dlen ? dlen : 1) : 1, slash ? out : ".");
	snprintf(stem, sizeof(stem), "%.*s", (int)blen, base);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	r = dfd < 0 ? -errno : 0;
	if (!r && !x->seq && recdir_list(dfd, stem, &v, &n) == 0) {
		x->seq = recdir_next_seq(v, n);
		free(v);
	}
	if (!r)
		r = recdir_finish_as(out, dfd, stem, start, &x->seq, name, sizeof(name));
	if (dfd >= 0)
		close(dfd);
	if (!r && asprintf(&path, "%.*s%s", slash ? (int)dlen + 1 : 0, out, name) < 0) {
		path = NULL;
		r = -ENOMEM;
	}
	if (r < 0)
		fprintf(stderr, PROG ": cannot rename %s for --switch-output: %s\n", out,
			strerror(-r));
	return path;
}

/* A finished file of --switch-output: said as perf does, and with --switch-max-files the
 * oldest one removed. Takes name. */
static void finished_file(struct record *x, char *name)
{
	char **kept;

	if (!x->a.quiet)
		fprintf(stderr, "[ ringprof record: dump %s ]\n", name);
	kept = realloc(x->kept, (x->n_kept + 1) * sizeof(*kept));
	if (!kept) {
		free(name);
		return;
	}
	x->kept = kept;
	x->kept[x->n_kept++] = name;
	if (x->a.switch_max_files && x->n_kept > x->a.switch_max_files) {
		unlink(x->kept[0]);
		free(x->kept[0]);
		memmove(x->kept, x->kept + 1, --x->n_kept * sizeof(*kept));
	}
}

/* --switch-output: the current file is finished under its time-stamped name and recording
 * goes on into a new OUTPUT without a gap: recorder_rotate drains the rings into the old
 * file and starts the new one with the state of the target as of now. The old file gets its
 * finished name only once it is complete (a reader of finished names, report --dir or top,
 * never sees one still being written); the new one is made as OUTPUT.next until then. */
static void switch_output(struct record *x)
{
	struct writer *nw, *old = x->w;
	struct writer_stats ws;
	char *name, *next = NULL;
	time_t started = x->file_start;
	int r, closed;

	x->switch_asked = false;
	x->t_file = util_now_ns();
	x->file_start = time(NULL);
	if (asprintf(&next, "%s.next", x->a.output) < 0) {
		fprintf(stderr, PROG ": --switch-output: out of memory; recording goes on in %s\n",
			x->a.output);
		return;
	}
	r = writer_create(next, 0600, x->a.level, &nw);
	if (r < 0) {
		fprintf(stderr,
			PROG
			": cannot create %s for --switch-output: %s; recording goes on in the current file\n",
			next, strerror(-r));
		free(next);
		return;
	}
	r = recorder_rotate(x->r, nw);
	ws = *writer_stats(old);
	closed = writer_close(old);
	x->w = nw;
	x->prev_file_bytes += ws.file_bytes;
	x->prev_raw_bytes += ws.raw_bytes;
	name = finish_output(x, started);
	if (!name) /* said; the finished file stays OUTPUT (not replaced below) */
		fprintf(stderr, PROG ": recording goes on in %s\n", next);
	else if (rename(next, x->a.output) < 0)
		fprintf(stderr, PROG ": cannot rename %s to %s: %s; recording goes on in %s\n",
			next, x->a.output, strerror(errno), next);
	if (r < 0 || closed < 0)
		fprintf(stderr,
			PROG
			": finishing %s failed: %s; it is readable up to the last complete frame\n",
			name ? name : x->a.output, strerror(r < 0 ? -r : -closed));
	free(next);
	if (name)
		finished_file(x, name);
}

/* -D, --switch-output and --max-size between two polls. True when recording is to stop. */
static bool lifecycle(struct record *x)
{
	uint64_t now = util_now_ns(), total;
	char b[32];

	if (!x->enabled && now - x->t_release >= x->a.delay_ns)
		enable_events(x);
	if (x->a.switch_mode &&
	    (x->switch_asked ||
	     (x->a.switch_mode == SWITCH_TIME && now - x->t_file >= x->a.switch_ns) ||
	     (x->a.switch_mode == SWITCH_SIZE && recdir_file_estimate(x->w) >= x->a.switch_size)))
		switch_output(x);
	if (!x->a.max_size)
		return false;
	total = x->prev_file_bytes + recdir_file_estimate(x->w);
	if (total < x->a.max_size)
		return false;
	x->size_limit = true;
	if (!x->a.quiet)
		fprintf(stderr,
			PROG ": note: the output reached --max-size %s: recording stopped\n",
			util_format_bytes(x->a.max_size, b, sizeof(b)));
	return true;
}

/* Until the target ends, a signal, -d, or a write error. */
static void run(struct record *x)
{
	bool stop = false;

	while (!stop) {
		uint64_t tags[8];
		int timeout = poll_timeout(x), n;

		if (timeout < 0)
			break;
		n = recorder_poll(x->r, timeout, tags, 8);
		if (n < 0) {
			fprintf(stderr,
				PROG
				": writing %s failed: %s; recording stopped. The file is readable up to the last "
				"complete frame.\n",
				x->a.output, strerror(-n));
			x->code = EXIT_FAILURE;
			break;
		}
		for (int i = 0; i < n; i++) {
			if (tags[i] == TAG_SIGNAL)
				stop |= on_signals(x);
			else if (tags[i] == TAG_PIDFD)
				stop |= !any_pid_alive(x);
		}
		if (!stop)
			stop = lifecycle(x);
	}
}

static void print_summary(const struct record *x, const struct recorder_totals *t,
			  const struct writer_stats *ws)
{
	double total = (double)(t->samples + t->lost);
	uint64_t raw = ws->raw_bytes, file = ws->file_bytes;
	char b[32];

	fprintf(stderr,
		"[ ringprof record: %llu samples, %llu lost (%.2f%%), %s written (%.1fx compression), "
		"%.2f s%s -> %s ]\n",
		(unsigned long long)t->samples, (unsigned long long)t->lost,
		total > 0 ? 100.0 * (double)t->lost / total : 0.0,
		util_format_bytes(file, b, sizeof(b)), file ? (double)raw / (double)file : 0.0,
		(double)t->duration_ns / 1e9,
		x->interrupted	? ", interrupted"
		: x->size_limit ? ", size limit reached"
				: "",
		x->n_kept && x->a.switch_mode ? x->kept[x->n_kept - 1] : x->a.output);
	if (ws->dropped_records)
		fprintf(stderr, PROG ": %llu records could not be written\n",
			(unsigned long long)ws->dropped_records);
	if (t->lost)
		fprintf(stderr,
			PROG
			": samples were lost because the rings filled up: larger rings (-m %u) or a "
			"lower rate (-F) keep them\n",
			x->a.o.ring_pages ? x->a.o.ring_pages * 4 : 2048);
}

/* ", N dropped to stay within SIZE" when tables were dropped for memory, else "". */
static const char *dropped_note(const struct unwinder_stats *u, uint64_t max, char *buf, size_t size)
{
	char b[32];

	if (!u->evicted)
		return "";
	snprintf(buf, size, ", %llu dropped to stay within %s, %llu of them needed again",
		 (unsigned long long)u->evicted,
		 util_format_bytes(max ? max : UNWINDER_MEMORY_DEFAULT, b, sizeof(b)),
		 (unsigned long long)u->reasked);
	return buf;
}

/* What else the walks did, when it happened: "; N% cut because a table came too late",
 * "; N joins contradicted by a later walk", "; N joins taken back"; else "". */
static const char *walk_notes(const struct unwinder_stats *u, char *buf, size_t size)
{
	int n = 0;

	buf[0] = '\0';
	if (u->late)
		n = snprintf(buf, size, "; %.1f%% cut because their table came too late",
			     100.0 * (double)u->late / (double)u->samples);
	if (u->joins_contradicted && n >= 0 && (size_t)n < size)
		n +=
		    snprintf(buf + n, size - (size_t)n,
			     "; %llu joins went through a frame a later walk read with another caller",
			     (unsigned long long)u->joins_contradicted);
	if (u->joins_undone && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n,
			 "; %llu joins taken back before they were stored (a frame had two callers)",
			 (unsigned long long)u->joins_undone);
	return buf;
}

/* --call-graph dwarf: how complete the user stacks are, what cut the others, what to do. */
static void print_unwind_summary(const struct record *x)
{
	const struct unwinder_stats *u = recorder_unwind_stats(x->r);
	struct unwinder_object o, worst = { 0 };
	char b[32], d[80], l[320];
	double n;

	if (!u || !u->samples)
		return;
	n = (double)u->samples;
	for (size_t i = 0; recorder_unwind_object(x->r, i, &o); i++)
		if (o.stopped > worst.stopped)
			worst = o;
	fprintf(stderr,
		"[ user stacks: %.1f%% complete, %.1f%% completed by joining the thread's earlier stacks, %.1f%% cut "
		"by the %u-byte stack copy, %.1f%% without unwind information, %.1f%% waiting for a "
		"table; %llu table%s built, %llu from the disk cache (%s)%s%s ]\n",
		100.0 * (double)u->stop[UW_COMPLETE] / n, 100.0 * (double)u->stop[UW_JOINED] / n,
		100.0 * (double)u->stop[UW_STACK_END] / n, x->a.o.stack_user,
		100.0 * (double)u->stop[UW_NO_INFO] / n, 100.0 * (double)u->stop[UW_PENDING] / n,
		(unsigned long long)u->tables, u->tables == 1 ? "" : "s",
		(unsigned long long)u->cached, util_format_bytes(u->table_bytes, b, sizeof(b)),
		dropped_note(u, x->a.o.unwind_memory, d, sizeof(d)), walk_notes(u, l, sizeof(l)));
	if ((double)u->stop[UW_STACK_END] / n > 0.05 && x->a.o.stack_user < 65528)
		fprintf(stderr,
			PROG
			": %.0f%% of the user stacks did not fit the %u-byte copy: a larger one "
			"(--call-graph dwarf,%u) keeps more of them\n",
			100.0 * (double)u->stop[UW_STACK_END] / n, x->a.o.stack_user,
			x->a.o.stack_user * 4 < 65528 ? x->a.o.stack_user * 4 : 65528);
	if (worst.stopped && (double)worst.stopped / n > 0.05)
		fprintf(stderr, PROG ": %.0f%% of the user stacks stop in %s%s%s\n",
			100.0 * (double)worst.stopped / n, worst.path, worst.why[0] ? ": " : "",
			worst.why);
}

/* The last file of --switch-output gets its time-stamped name too, as with perf; the
 * summary counts every file. What -D never got to. */
static void end_lifecycle(struct record *x, struct writer_stats *ws)
{
	char *name;

	if (!x->enabled && !x->a.quiet)
		fprintf(stderr,
			PROG ": note: recording ended before -D's delay of %llu ms: no samples\n",
			(unsigned long long)(x->a.delay_ns / 1000000));
	if (!x->a.switch_mode)
		return;
	ws->file_bytes += x->prev_file_bytes;
	ws->raw_bytes += x->prev_raw_bytes;
	name = finish_output(x, x->file_start);
	if (name)
		finished_file(x, name);
}

/* A helper that died is never silent, even with -q. */
static void print_helper_deaths(const struct record *x)
{
	char buf[700];

	if (recorder_helper_deaths(x->r, buf, sizeof(buf)))
		fprintf(stderr, PROG ": warning: %s\n", buf);
}

/* Stop the events, end the command, complete the file and say what it holds. 0, or -errno
 * when the end of the file could not be written. */
static int stop_recording(struct record *x)
{
	struct writer_stats ws;
	size_t held, tables;
	int r, closed;

	recorder_halt(x->r);
	held = recorder_unwind_held(x->r, &tables);
	if (held && tables && !x->a.quiet)
		fprintf(stderr,
			PROG
			": waiting up to %llu s for %zu unwind table%s that %zu sample%s need\n",
			(unsigned long long)(RECORDER_STOP_WAIT_NS / 1000000000), tables,
			tables == 1 ? "" : "s", held, held == 1 ? "" : "s");
	r = recorder_stop(x->r, x->exit_status >= 0 ? exit_code_of(x->exit_status) : -1);
	end_command(x);
	ws = *writer_stats(x->w); /* as of before the close, which frees the writer */
	closed = writer_close(x->w);
	x->w = NULL;
	if (r == 0)
		r = closed;
	if (r < 0 && x->code == 0)
		fprintf(stderr,
			PROG
			": finishing %s failed: %s; it is readable up to the last complete frame\n",
			x->a.output, strerror(-r));
	end_lifecycle(x, &ws);
	if (!x->a.quiet) {
		print_summary(x, recorder_totals(x->r), &ws);
		print_unwind_summary(x);
	}
	print_helper_deaths(x);
	return r;
}

/* A failure's status (also the file's final flush), else the command's, else 0. */
static int exit_status_of(const struct record *x, int stop_result)
{
	if (x->code)
		return x->code;
	/* A file that could not be finished outranks the command's status: 0 would hide it. */
	if (stop_result < 0)
		return EXIT_FAILURE;
	if (x->exit_status >= 0)
		return exit_code_of(x->exit_status);
	return EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	static struct record rec = { .sfd = -1, .go = -1, .errp = -1, .exit_status = -1 };
	struct record *x = &rec;
	int r;

	r = parse_argv(&x->a, argc, argv);
	if (r)
		return r;
	x->cmdline = util_join_args("ringprof record", argc, argv); /* however we were started */
	if (check_output(x->a.output) < 0)
		return EXIT_FAILURE;
	if (block_signals(x) < 0 || spawn_command(x) < 0)
		return EXIT_FAILURE;
	if (open_recorder(x) < 0) {
		abandon_command(x);
		return EXIT_FAILURE;
	}
	keep_old_output(x->a.output, x->a.quiet);
	if (open_output(x) < 0) {
		recorder_free(x->r);
		abandon_command(x);
		return EXIT_FAILURE;
	}
	start_recording(x);
	watch_signals(x);
	watch_pids(x);
	release_command(x);
	x->t_release = util_now_ns();
	if (!x->code)
		run(x);
	r = stop_recording(x);
	recorder_free(x->r);
	free(x->cmdline);
	for (size_t i = 0; i < x->n_kept; i++)
		free(x->kept[i]);
	free(x->kept);
	return exit_status_of(x, r);
}
