/* test-cli.c — unit test of cli/cli.c: "did you mean" (edits, the limits by length, no guess
 * for what is far from every name) and the one wording of every option error, with getopt_long
 * run on made-up command lines. */
#define _GNU_SOURCE 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cli/cli.h"

static const struct option longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "sort", required_argument, NULL, 's' },
	{ "since", required_argument, NULL, 256 },
	{ "max-file-size", required_argument, NULL, 257 },
	{ NULL, 0, NULL, 0 },
};

static void test_nearest(void)
{
	static const struct {
		const char *name;
		int other;
	} commands[] = { { "record", 1 }, { "report", 2 }, { "top", 3 }, { "diff", 4 } };
	const size_t n = sizeof(commands) / sizeof(*commands);

	test_ctx = "nearest";
	CHECK_STR(cli_nearest("reprot", commands, n, sizeof(*commands)), "report");
	CHECK_STR(cli_nearest("recrod", commands, n, sizeof(*commands)), "record");
	CHECK_STR(cli_nearest("tpo", commands, n, sizeof(*commands)), "top");
	CHECK_STR(cli_nearest("dif", commands, n, sizeof(*commands)), "diff");
	CHECK(cli_nearest("tx", commands, n, sizeof(*commands)) == NULL, "2 edits from top");
	CHECK(cli_nearest("frobnicate", commands, n, sizeof(*commands)) == NULL);
	CHECK_STR(cli_nearest("outptu", longopts, SIZE_MAX, sizeof(*longopts)), "output");
	CHECK_STR(cli_nearest("max-file-szie", longopts, SIZE_MAX, sizeof(*longopts)),
		  "max-file-size");
	CHECK(cli_nearest("bogus", longopts, SIZE_MAX, sizeof(*longopts)) == NULL,
	      "'bogus' is not 'quiet' or 'sort'");
	CHECK(cli_nearest("", longopts, SIZE_MAX, sizeof(*longopts)) == NULL);
}

/* The error cli_option_error says for ARGS (NULL-terminated), in out; the status it returns. */
static int error_of(const char *const *args, char *out, size_t size)
{
	char *argv[8];
	int argc = 0, c, rc = -1, saved = dup(STDERR_FILENO);
	FILE *f = tmpfile();
	size_t len;

	argv[argc++] = "prog";
	while (*args && argc < 7)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	fflush(stderr);
	dup2(fileno(f), STDERR_FILENO);
	optind = 0; /* getopt from the start, again */
	cli_options(longopts);
	while ((c = getopt_long(argc, argv, ":o:qs:", longopts, NULL)) != -1)
		if (c == '?' || c == ':') {
			rc = cli_option_error("ringprof test", c, argv);
			break;
		}
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(f);
	len = fread(out, 1, size - 1, f);
	out[len] = '\0';
	fclose(f);
	return rc;
}

#define TRY "Try 'ringprof test --help'.\n"

static void test_errors(void)
{
	char out[512];

	test_ctx = "errors";
	CHECK_INT(error_of((const char *const[]){ "--bogus", NULL }, out, sizeof(out)), EXIT_USAGE);
	CHECK_STR(out, "ringprof test: unknown option '--bogus'\n" TRY);
	error_of((const char *const[]){ "--outptu=x", NULL }, out, sizeof(out));
	CHECK_STR(out, "ringprof test: unknown option '--outptu'; did you mean '--output'?\n" TRY);
	error_of((const char *const[]){ "-Y", NULL }, out, sizeof(out));
	CHECK_STR(out, "ringprof test: unknown option '-Y'\n" TRY);
	error_of((const char *const[]){ "-q", "--output", NULL }, out, sizeof(out));
	CHECK_STR(out, "ringprof test: option '--output' needs an argument\n" TRY);
	error_of((const char *const[]){ "-o", NULL }, out, sizeof(out));
	CHECK_STR(out, "ringprof test: option '-o' needs an argument\n" TRY);
	error_of((const char *const[]){ "--quiet=1", NULL }, out, sizeof(out));
	CHECK_STR(out, "ringprof test: option '--quiet' does not take an argument\n" TRY);
	error_of((const char *const[]){ "--s", "x", NULL }, out, sizeof(out));
	CHECK_STR(out, "ringprof test: option '--s' is ambiguous; it could be --sort --since\n" TRY);
	CHECK_INT(error_of((const char *const[]){ "--sort", "x", "-q", NULL }, out, sizeof(out)),
		  -1);
	CHECK_STR(out, "");
}

int main(void)
{
	test_nearest();
	test_errors();
	return check_done("test-cli");
}
