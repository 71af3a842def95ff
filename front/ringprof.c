/* ringprof.c — the `ringprof` front command: dispatches `ringprof CMD` to `ringprof-CMD`. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"

static const struct {
	const char *name, *help;
} commands[] = {
	{ "record", "sample a command (-- CMD), processes (-p, -t) or the whole system (-a)\n"
		    "           into a compressed recording file (ringprof.data)" },
	{ "report", "read recordings: a flat profile by symbol (the default), call graphs\n"
		    "           (-g caller|callee), folded stacks for flame graphs (--folded);\n"
		    "           filters by pid, tid, comm, dso, cpu and wall-clock time\n"
		    "           (--since, --until); --stats says what a file holds and what\n"
		    "           was lost, --dump prints its records one per line" },
	{ "script", "one symbolized line per sample, like perf script" },
	{ "top", "a live flat profile of the system (-a), processes (-p) or a command,\n"
		 "           refreshed every few seconds, like perf top" },
	{ "ls", "the recordings of a directory: start, end, samples, losses, size and\n"
		"           whether each is complete, the newest last" },
	{ "push", "send each closed recording of a directory as pprof to a Pyroscope-\n"
		  "           compatible server (--url), with a cursor, retries and catch-up" },
	{ "diff", "compare two profiles (recordings or directories), as perf diff; --folded\n"
		  "           for a differential flame graph" },
	{ "annotate", "a function's source lines and instructions with the share of its\n"
		      "           samples on each, as perf annotate" },
	{ "help", "'ringprof help COMMAND' opens the command's manual page" },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	fprintf(f, "Usage: ringprof COMMAND [ARGS...]\n\nCommands:\n");
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f,
		"\nA session:\n"
		"  ringprof record -g -- ./app args    writes ringprof.data\n"
		"  ringprof report                     reads it\n"
		"\n'ringprof COMMAND --help' lists a command's options; 'ringprof help COMMAND'\n"
		"opens its manual page, 'man ringprof' the overview.\n"
		"  -h, --help      this help\n  -V, --version   version\n");
}

static bool is_command(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (strcmp(name, commands[i].name) == 0 && strcmp(name, "help") != 0)
			return true;
	return false;
}

/* The directory this program lives in, into dir; false when /proc/self/exe is unreadable. */
static bool self_dir(char *dir, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", dir, size - 1);
	char *slash;

	if (n <= 0)
		return false;
	dir[n] = '\0';
	slash = strrchr(dir, '/');
	if (!slash)
		return false;
	*slash = '\0';
	return true;
}

/* Run ringprof-NAME from the directory this program lives in (so a build tree works
 * without installing), else from the install directory, else from PATH. Its argv[0] is
 * "ringprof-NAME", so that ps shows the same name in its command and its arguments. */
static int dispatch(const char *name, char **argv)
{
	char self[PATH_MAX], path[PATH_MAX + 72], prog[64];

	snprintf(prog, sizeof(prog), "ringprof-%s", name);
	argv[0] = prog;
	if (self_dir(self, sizeof(self))) {
		snprintf(path, sizeof(path), "%s/%s", self, prog);
		if (access(path, X_OK) == 0)
			execv(path, argv);
	}
	snprintf(path, sizeof(path), "%s/%s", RP_LIBEXECDIR, prog);
	if (access(path, X_OK) == 0)
		execv(path, argv);
	execvp(prog, argv);
	fprintf(stderr, "ringprof: cannot run %s: %s\n", prog, strerror(errno));
	return 127;
}

/* man ARGS; true when man ran and showed the page (exit status 0). */
static bool run_man(const char *arg1, const char *arg2)
{
	pid_t pid;
	int status;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return false;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		/* A missing page is handled by the fallback: man's own complaint is noise. */
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		if (arg2)
			execlp("man", "man", arg1, arg2, (char *)NULL);
		else
			execlp("man", "man", arg1, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return false;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/*
 * ringprof help CMD: the page next to the sources when this program runs from its build
 * tree (the page there is the one that matches it), else the installed page by path (the
 * prefix may be missing from MANPATH), else man's search; without man or any page, the
 * command's --help.
 */
static int help(const char *name)
{
	char self[PATH_MAX], page[PATH_MAX + 64], topic[64];
	char *args[] = { NULL, "--help", NULL };

	if (!is_command(name) && strcmp(name, "ringprof") != 0) {
		fprintf(stderr, "ringprof: '%s' is not a ringprof command.\n\n", name);
		usage(stderr);
		return EXIT_USAGE;
	}
	snprintf(topic, sizeof(topic), strcmp(name, "ringprof") ? "ringprof-%s" : "%s", name);
	if (self_dir(self, sizeof(self)) && strcmp(self, RP_BUILDDIR) == 0) {
		snprintf(page, sizeof(page), "%s/man/%s.1", RP_SRCDIR, topic);
		if (access(page, R_OK) == 0 && run_man("-l", page))
			return 0;
	}
	snprintf(page, sizeof(page), "%s/man1/%s.1", RP_MANDIR, topic);
	if (access(page, R_OK) == 0 && run_man("-l", page))
		return 0;
	if (run_man(topic, NULL))
		return 0;
	if (!is_command(name)) {
		usage(stdout);
		return 0;
	}
	return dispatch(name, args);
}

int main(int argc, char **argv)
{
	const char *cmd, *near;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
		printf("ringprof %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (strcmp(cmd, "help") == 0) {
		if (argc < 3) {
			usage(stdout);
			return 0;
		}
		return help(argv[2]);
	}
	if (is_command(cmd))
		return dispatch(cmd, argv + 1);
	if ((near = cli_nearest(cmd, commands, N_COMMANDS, sizeof(commands[0]))) != NULL) {
		fprintf(stderr,
			"ringprof: '%s' is not a ringprof command; did you mean '%s'? (see "
			"'ringprof --help')\n",
			cmd, near);
		return EXIT_USAGE;
	}
	fprintf(stderr, "ringprof: '%s' is not a ringprof command.\n\n", cmd);
	usage(stderr);
	return EXIT_USAGE;
}
