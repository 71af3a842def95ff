/* ringprof.c — the `ringprof` front command: dispatches `ringprof CMD` to `ringprof-CMD`. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct {
	const char *name, *help;
} commands[] = {
	{ "record", "sample a command, processes or the whole system into a recording" },
	{ "report", "read recordings: --stats, --dump" },
	{ "script", "every sample of recordings, symbolized, in time order (as perf script)" },
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: ringprof COMMAND [ARGS...]\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'ringprof COMMAND --help' (or 'ringprof help COMMAND') describes each one.\n"
		   "  -h, --help      this help\n  -V, --version   version\n");
}

/* Run ringprof-NAME from the directory this program lives in (so a build tree works
 * without installing), else from the install directory, else from PATH. */
static int dispatch(const char *name, char **argv)
{
	char self[PATH_MAX], path[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		char *slash;

		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			snprintf(path, sizeof(path), "%s/ringprof-%s", self, name);
			if (access(path, X_OK) == 0)
				execv(path, argv);
		}
	}
	snprintf(path, sizeof(path), "%s/ringprof-%s", RP_LIBEXECDIR, name);
	if (access(path, X_OK) == 0)
		execv(path, argv);
	snprintf(path, sizeof(path), "ringprof-%s", name);
	execvp(path, argv);
	fprintf(stderr, "ringprof: cannot run ringprof-%s: %s\n", name, strerror(errno));
	return 127;
}

int main(int argc, char **argv)
{
	const char *cmd;

	if (argc < 2) {
		usage(stderr);
		return 2;
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
		char *args[] = { argv[2], "--help", NULL };

		cmd = argv[2];
		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (strcmp(cmd, commands[i].name) == 0)
				return dispatch(cmd, args);
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(cmd, commands[i].name) == 0)
			return dispatch(cmd, argv + 1);
	fprintf(stderr, "ringprof: '%s' is not a ringprof command.\n\n", cmd);
	usage(stderr);
	return 2;
}
