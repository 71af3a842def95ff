/* ringprof-record.c — `ringprof record`: one-off captures of a command, processes or the system. */
#include <errno.h>
#include <fcntl.h>
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
#include <unistd.h>

#include "cpulist.h"
#include "evsel.h"
#include "recorder.h"
#include "util.h"
#include "writer.h"

#define PROG "ringprof record"
#define MAX_CPUS 4096
#define MAX_PIDS 1024

enum { TAG_SIGNAL = 1, TAG_PIDFD = 2 };

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ringprof record [OPTIONS] -- COMMAND [ARGS...]\n"
		"       ringprof record [OPTIONS] -a | -p PID[,PID...]\n"
		"\n"
		"Sample CPU activity with perf events into a compressed recording file.\n"
		"\n"
		"Target (one of):\n"
		"  -- COMMAND [ARGS]      run COMMAND and profile it, its threads and children;\n"
		"                         its exit status becomes ringprof's\n"
		"  -a, --all-cpus         profile every process on all CPUs (needs root, CAP_PERFMON\n"
		"                         or kernel.perf_event_paranoid < 1)\n"
		"  -p, --pid PID[,PID]    profile running processes, all their threads\n"
		"  -C, --cpu LIST         with -a: only these CPUs, e.g. 0-3,6\n"
		"\n"
		"Sampling:\n"
		"  -e, --event NAME       event to sample (default: cycles, or cpu-clock when the\n"
		"                         machine has no hardware PMU); see --list-events\n"
		"  -F, --freq HZ          samples per second per CPU (default 4000; capped to\n"
		"                         kernel.perf_event_max_sample_rate)\n"
		"  -c, --count PERIOD     sample every PERIOD events instead of a frequency\n"
		"  -g, --call-graph       record frame-pointer callchains (kernel and user)\n"
		"      --switch-events    record context switches (SWITCH records)\n"
		"  -m, --mmap-pages N     ring buffer data pages per CPU, a power of two\n"
		"                         (default 256 with privileges, 128 without)\n"
		"\n"
		"Output:\n"
		"  -o, --output FILE      recording file (default ringprof.data; an existing file\n"
		"                         is kept as FILE.old)\n"
		"  -d, --duration SECS    stop after SECS seconds (fractions allowed)\n"
		"  -z, --compression N    zstd level 1-19 (default 6)\n"
		"      --flush-interval S close a compressed frame at least every S seconds\n"
		"                         (default 1; bounds what a crash can lose)\n"
		"      --stack-interval S define every callchain again at least every S seconds\n"
		"                         (default 60; bounds what a damaged frame costs)\n"
		"  -q, --quiet            no notes and no summary line\n"
		"\n"
		"  -l, --list-events      list the events -e accepts\n"
		"  -h, --help             this help\n"
		"  -V, --version          version\n"
		"\n"
		"Ctrl-C (SIGINT) or SIGTERM stops recording and completes the file. The file is made\n"
		"of self-contained zstd frames: after a crash, everything up to the last frame is\n"
		"readable (`ringprof report -i FILE --stats`).\n");
}

static void list_events(void)
{
	for (const struct evsel_def *d = evsel_table(); d->name; d++)
		printf("  %-18s %s\n", d->name, d->help);
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
			_exit(127); /* the recorder gave up */
		execvp(argv[0], argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
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
		PROG ": the limit on open files (ulimit -n) is %llu; ringprof record needs one descriptor "
		     "per recorded CPU (and thread) plus about 8 of its own. Raise it, e.g. ulimit -n 1024\n",
		(unsigned long long)rl.rlim_cur);
}

static int exit_code_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "pid", required_argument, NULL, 'p' },
		{ "event", required_argument, NULL, 'e' },
		{ "freq", required_argument, NULL, 'F' },
		{ "count", required_argument, NULL, 'c' },
		{ "call-graph", no_argument, NULL, 'g' },
		{ "switch-events", no_argument, NULL, 'S' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "compression", required_argument, NULL, 'z' },
		{ "flush-interval", required_argument, NULL, 'I' },
		{ "stack-interval", required_argument, NULL, 'K' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "list-events", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct recorder_opts o = { .freq = 4000 };
	static int cpus[MAX_CPUS];
	static pid_t pids[MAX_PIDS];
	size_t n_cpus = 0, n_pids = 0;
	const char *output = "ringprof.data";
	uint64_t duration = 0, v;
	bool all = false, quiet = false, cpus_set = false;
	int level = 6, c, rc, go = -1, errp = -1, sfd, exit_status = -1, code = 0;
	pid_t child = 0;
	sigset_t mask, saved;
	struct recorder *r = NULL;
	struct writer *w = NULL;
	char err[1024], *cmdline;
	int pidfds[MAX_PIDS];
	size_t n_alive = 0;

	while ((c = getopt_long(argc, argv, "+aC:p:e:F:c:gm:o:d:z:qlhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			all = true;
			break;
		case 'C':
			if (cpulist_parse(optarg, cpus, MAX_CPUS, &n_cpus) < 0 || !n_cpus) {
				fprintf(stderr, PROG ": invalid CPU list '%s' (expected e.g. 0-3,6)\n", optarg);
				return 2;
			}
			cpus_set = true;
			break;
		case 'p':
			if (parse_pids(optarg, pids, &n_pids) < 0) {
				fprintf(stderr, PROG ": invalid PID list '%s' (expected e.g. 1234,5678)\n", optarg);
				return 2;
			}
			break;
		case 'e':
			o.event = optarg;
			break;
		case 'F':
			if (util_parse_u64(optarg, &o.freq) < 0 || o.freq == 0) {
				fprintf(stderr, PROG ": invalid frequency '%s' (expected Hz, e.g. 999)\n", optarg);
				return 2;
			}
			o.period = 0;
			break;
		case 'c':
			if (util_parse_u64(optarg, &o.period) < 0 || o.period == 0) {
				fprintf(stderr, PROG ": invalid period '%s'\n", optarg);
				return 2;
			}
			o.freq = 0;
			break;
		case 'g':
			o.callchain = true;
			break;
		case 'S':
			o.switch_events = true;
			break;
		case 'm':
			if (util_parse_u64(optarg, &v) < 0 || v == 0 || (v & (v - 1)) || v > (1u << 20)) {
				fprintf(stderr, PROG ": -m needs a power of two number of pages, e.g. 128\n");
				return 2;
			}
			o.ring_pages = (unsigned int)v;
			break;
		case 'o':
			output = optarg;
			break;
		case 'd':
			if (util_parse_seconds(optarg, &duration) < 0 || duration == 0) {
				fprintf(stderr, PROG ": invalid duration '%s' (seconds, e.g. 10 or 0.5)\n", optarg);
				return 2;
			}
			break;
		case 'z':
			if (util_parse_u64(optarg, &v) < 0 || v < 1 || v > 19) {
				fprintf(stderr, PROG ": compression level must be 1-19\n");
				return 2;
			}
			level = (int)v;
			break;
		case 'I':
			if (util_parse_seconds(optarg, &o.flush_ns) < 0 || o.flush_ns < 10000000) {
				fprintf(stderr, PROG ": flush interval must be at least 0.01 seconds\n");
				return 2;
			}
			break;
		case 'K':
			if (util_parse_seconds(optarg, &o.restack_ns) < 0 || o.restack_ns < 10000000) {
				fprintf(stderr, PROG ": stack interval must be at least 0.01 seconds\n");
				return 2;
			}
			break;
		case 'q':
			quiet = true;
			break;
		case 'l':
			list_events();
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("ringprof record %s\n", PACKAGE_VERSION);
			return 0;
		default:
			fprintf(stderr, "Try 'ringprof record --help'.\n");
			return 2;
		}
	}
	if (!!all + !!n_pids + (optind < argc) != 1) {
		fprintf(stderr, PROG ": %s\nTry 'ringprof record --help'.\n",
			(all || n_pids || optind < argc) ? "give only one target: -a, -p PID or -- COMMAND"
							: "nothing to record: give -a, -p PID or -- COMMAND");
		return 2;
	}
	if (cpus_set && !all) {
		fprintf(stderr, PROG ": -C selects CPUs for system-wide recording; use it with -a\n");
		return 2;
	}
	if (o.event) {
		struct evsel_def d;

		if (evsel_lookup(o.event, &d) < 0) {
			fprintf(stderr, PROG ": unknown event '%s'; known events:\n", o.event);
			for (const struct evsel_def *e = evsel_table(); e->name; e++)
				fprintf(stderr, "  %s\n", e->name);
			return 2;
		}
	}
	cmdline = util_join_args("ringprof record", argc, argv); /* however we were started */
	o.cmdline = cmdline;
	o.cpus = cpus_set ? cpus : NULL;
	o.n_cpus = n_cpus;

	/* Signals are taken through a signalfd; the child gets the original mask back. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, &saved);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		int e = errno;

		fprintf(stderr, PROG ": signalfd: %s\n", strerror(e));
		explain_nofile(-e);
		return 1;
	}

	if (all) {
		o.target = RECORDER_SYSTEM;
	} else if (n_pids) {
		o.target = RECORDER_PIDS;
		o.pids = pids;
		o.n_pids = n_pids;
	} else {
		child = spawn_stopped(argv + optind, &saved, &go, &errp);
		if (child < 0) {
			fprintf(stderr, PROG ": cannot start '%s': %s\n", argv[optind], strerror(-child));
			explain_nofile((int)child);
			return 1;
		}
		o.target = RECORDER_COMMAND;
		o.pids = &child;
		o.n_pids = 1;
	}

	rc = recorder_new(&o, &r, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, PROG ": %s\n", err);
		explain_nofile(rc);
		if (child > 0) {
			close(go); /* the child reads EOF and exits */
			waitpid(child, NULL, 0);
		}
		return 1;
	}
	for (size_t i = 0; !quiet && recorder_note(r, i); i++)
		fprintf(stderr, PROG ": note: %s\n", recorder_note(r, i));

	/* Keep the previous recording, as perf does. */
	{
		struct stat sb;

		if (stat(output, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
			size_t len = strlen(output) + 5;
			char *old = malloc(len);

			if (old) {
				snprintf(old, len, "%s.old", output);
				if (rename(output, old) < 0 && !quiet)
					fprintf(stderr, PROG ": note: could not keep the old %s as %s: %s\n", output,
						old, strerror(errno));
				free(old);
			}
		}
	}
	rc = writer_open(output, 0600, level, &w);
	if (rc < 0) {
		fprintf(stderr, PROG ": cannot create %s: %s\n", output, strerror(-rc));
		explain_nofile(rc);
		recorder_free(r);
		if (child > 0) {
			close(go);
			waitpid(child, NULL, 0);
		}
		return 1;
	}
	uint64_t t0 = util_now_ns(); /* -d counts from when events are enabled */

	rc = recorder_start(r, w);
	if (rc < 0)
		fprintf(stderr, PROG ": warning: could not enable every event: %s\n", strerror(-rc));
	if (writer_stats(w)->dropped_frames) {
		/* The header and the start-up state did not fit (disk full): later frames would be
		 * a recording without its head, so stop before the command runs. */
		const struct writer_stats *ws = writer_stats(w);

		fprintf(stderr, PROG ": writing %s failed: %s; recording stopped before it began. %s\n",
			output, strerror(ws->last_error ? -ws->last_error : EIO),
			ws->frames ? "The file is readable up to the last complete frame."
				   : "Nothing could be written; the file is removed.");
		if (!ws->frames)
			unlink(output);
		code = 1;
	}

	{
		struct epoll_event ev = { .events = EPOLLIN, .data.u64 = TAG_SIGNAL };

		epoll_ctl(recorder_epoll_fd(r), EPOLL_CTL_ADD, sfd, &ev);
	}
	if (o.target == RECORDER_PIDS) {
		/* Stop when every target process has exited. */
		for (size_t i = 0; i < n_pids; i++) {
			int fd = (int)syscall(SYS_pidfd_open, pids[i], 0);
			struct epoll_event ev = { .events = EPOLLIN, .data.u64 = TAG_PIDFD };

			pidfds[i] = fd;
			if (fd >= 0) {
				epoll_ctl(recorder_epoll_fd(r), EPOLL_CTL_ADD, fd, &ev);
				n_alive++;
			}
		}
	}
	if (child > 0 && code) {
		close(go); /* the child reads EOF and exits */
		close(errp);
		waitpid(child, NULL, 0);
		child = 0;
	} else if (child > 0) {
		int e = 0;
		ssize_t n;

		if (write(go, "g", 1) != 1) {
			fprintf(stderr, PROG ": cannot start the command: %s\n", strerror(errno));
			code = 1;
		}
		close(go);
		n = read(errp, &e, sizeof(e));
		close(errp);
		if (n == (ssize_t)sizeof(e)) {
			fprintf(stderr, PROG ": cannot run '%s': %s\n", argv[optind], strerror(e));
			waitpid(child, NULL, 0);
			child = 0;
			code = 127;
		}
	}

	bool done = code != 0, interrupted = false;

	while (!done) {
		uint64_t tags[8];
		int timeout = 250, n;

		if (duration) {
			uint64_t now = util_now_ns(), end = t0 + duration;

			if (now >= end)
				break;
			if ((end - now) / 1000000 < (uint64_t)timeout)
				timeout = (int)((end - now) / 1000000) + 1;
		}
		n = recorder_poll(r, timeout, tags, 8);
		if (n < 0) {
			fprintf(stderr,
				PROG ": writing %s failed: %s; recording stopped. The file is readable up to the last "
				     "complete frame.\n",
				output, strerror(-n));
			code = 1;
			break;
		}
		for (int i = 0; i < n; i++) {
			if (tags[i] == TAG_SIGNAL) {
				struct signalfd_siginfo si;

				while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
					if (si.ssi_signo == SIGCHLD && child > 0) {
						int status;

						if (waitpid(child, &status, WNOHANG) == child) {
							exit_status = status;
							child = 0;
							done = true;
						}
					} else if (si.ssi_signo != SIGCHLD) {
						interrupted = true;
						done = true;
					}
				}
			} else if (tags[i] == TAG_PIDFD) {
				n_alive = 0;
				for (size_t k = 0; k < n_pids; k++) {
					if (pidfds[k] >= 0 && kill(pids[k], 0) == 0)
						n_alive++;
				}
				if (!n_alive)
					done = true;
			}
		}
	}

	rc = recorder_stop(r, exit_status >= 0 ? exit_code_of(exit_status) : -1);
	if (child > 0) {
		/* Stopped by a signal or -d while the command still runs: end it, as perf does. */
		int status;

		kill(child, SIGTERM);
		waitpid(child, &status, 0);
		exit_status = status;
	}
	{
		struct recorder_totals t;
		const struct writer_stats *ws = writer_stats(w);
		uint64_t raw = ws->raw_bytes, file = ws->file_bytes, dropped = ws->dropped_records;
		int crc = writer_close(w);
		char b1[32];

		if (rc == 0)
			rc = crc;
		(void)raw;
		recorder_totals(r, &t);
		if (rc < 0 && code == 0)
			fprintf(stderr, PROG ": finishing %s failed: %s; it is readable up to the last complete frame\n",
				output, strerror(-rc));
		if (!quiet) {
			double total = (double)(t.samples + t.lost);

			fprintf(stderr,
				"[ ringprof record: %llu samples, %llu lost (%.2f%%), %s written (%.1fx compression), "
				"%.2f s%s -> %s ]\n",
				(unsigned long long)t.samples, (unsigned long long)t.lost,
				total > 0 ? 100.0 * (double)t.lost / total : 0.0,
				util_format_bytes(file, b1, sizeof(b1)), file ? (double)raw / (double)file : 0.0,
				(double)t.duration_ns / 1e9, interrupted ? ", interrupted" : "", output);
			if (dropped)
				fprintf(stderr, PROG ": %llu records could not be written\n",
					(unsigned long long)dropped);
		}
	}
	recorder_free(r);
	free(cmdline);
	if (code)
		return code;
	if (exit_status >= 0)
		return exit_code_of(exit_status);
	return rc < 0 ? 1 : 0;
}
