/* options.c — `ringprof record`'s command line: usage, parsing and checks. */
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

#include "record.h"

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
		"      --join-cut-stacks  with dwarf: give a stack cut by the end of the copy the\n"
		"                         callers the thread's earlier stacks had above the same\n"
		"                         frame (marked [joined]: inferred, not read; wrong when\n"
		"                         two callers reach that frame through frames of the same\n"
		"                         sizes). By default such a stack stays cut, and the\n"
		"                         report says how large a copy it needed\n"
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

/* --call-graph fp | dwarf[,SIZE], perf's spelling. 0, or the exit status (said). */
static int parse_call_graph(struct args *a, const char *arg)
{
	char why[160];

	a->call_graph_set = true;
	if (evset_parse_call_graph(arg, &a->o.stack_user, why, sizeof(why)) < 0) {
		fprintf(stderr, PROG ": %s\n", why);
		return EXIT_USAGE;
	}
	a->o.callchain = true;
	return 0;
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
	else if (c == OPT_JOIN_CUT_STACKS)
		a->o.join_cut_stacks = true;
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
		if (cpulist_parse(arg, a->cpus, RP_MAX_CPUS, &a->n_cpus) < 0 || !a->n_cpus) {
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
	case OPT_JOIN_CUT_STACKS:
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
int parse_argv(struct args *a, int argc, char **argv)
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
		{ "join-cut-stacks", no_argument, NULL, OPT_JOIN_CUT_STACKS },
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
	if (a->o.join_cut_stacks && !a->o.stack_user) {
		fprintf(stderr, PROG ": --join-cut-stacks needs --call-graph dwarf (or -g)\n");
		return EXIT_USAGE;
	}
	r = check_args(a);
	return r ? r : check_lifecycle(a);
}
