/* command.c — `ringprof record`'s workload: the command started stopped and let go, the
 * processes of -p watched, signals. */
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
void explain_nofile(int err)
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

int exit_code_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_FAILURE;
}

/* Signals are taken through a signalfd; the command gets the original mask back. */
int block_signals(struct record *x)
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
int spawn_command(struct record *x)
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
void abandon_command(struct record *x)
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
void release_command(struct record *x)
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
void pids_to_processes(struct args *a, bool quiet)
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
void end_command(struct record *x)
{
	int status;

	if (x->child <= 0)
		return;
	kill(x->child, SIGTERM);
	waitpid(x->child, &status, 0);
	x->exit_status = status;
	x->child = 0;
}

void watch_signals(struct record *x)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = TAG_SIGNAL };

	epoll_ctl(recorder_epoll_fd(x->r), EPOLL_CTL_ADD, x->sfd, &ev);
}

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL /* Linux 6.9: a pidfd for a thread */
#endif

/* -p, -t: recording stops when every target process (or thread) has exited. */
void watch_pids(struct record *x)
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
bool any_pid_alive(const struct record *x)
{
	for (size_t i = 0; i < x->a.n_pids; i++)
		if (x->pidfds[i] >= 0 && kill(x->a.pids[i], 0) == 0)
			return true;
	return false;
}
