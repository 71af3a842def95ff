/* pager.c — output to a terminal goes through $PAGER, as perf and git do. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/pager.h"

static pid_t pager_pid;

void pager_start(bool off)
{
	const char *pager = getenv("PAGER");
	int fds[2];
	pid_t pid;

	if (off || !isatty(STDOUT_FILENO))
		return;
	if (!pager)
		pager = "less";
	if (!*pager || strcmp(pager, "cat") == 0)
		return;
	fflush(stdout);
	fflush(stderr);
	if (pipe(fds) < 0)
		return;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return;
	}
	if (pid == 0) {
		dup2(fds[0], STDIN_FILENO);
		close(fds[0]);
		close(fds[1]);
		/* Quit at once when the output fits a screen, keep colours, leave it on screen. */
		setenv("LESS", "FRX", 0);
		execl("/bin/sh", "sh", "-c", pager, (char *)NULL);
		_exit(127);
	}
	dup2(fds[1], STDOUT_FILENO);
	if (isatty(STDERR_FILENO))
		dup2(fds[1], STDERR_FILENO);
	close(fds[0]);
	close(fds[1]);
	pager_pid = pid;
}

int pager_done(int status)
{
	if (!pager_pid)
		return status;
	fflush(stdout);
	fflush(stderr);
	/* The pager sees the end of its input only when every copy of the pipe is closed. */
	close(STDOUT_FILENO);
	close(STDERR_FILENO);
	while (waitpid(pager_pid, NULL, 0) < 0 && errno == EINTR)
		;
	return status;
}
