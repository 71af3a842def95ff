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

#include "record.h"

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
