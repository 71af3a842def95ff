/* cli.c — the exit statuses, the one wording of an option error, "did you mean". */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const struct option *cli_longopts; /* of cli_options, as getopt keeps optind */

void cli_options(const struct option *longopts)
{
	opterr = 0;
	cli_longopts = longopts;
}

/* Edits (insert, delete, replace, swap of neighbours) from a to b, up to 31. */
static size_t edits(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[32][32];

	if (la > 31 || lb > 31)
		return 31;
	for (size_t i = 0; i <= la; i++)
		for (size_t j = 0; j <= lb; j++) {
			size_t v = i > j ? i : j;

			if (i && j) {
				v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
				if (d[i - 1][j] + 1 < v)
					v = d[i - 1][j] + 1;
				if (d[i][j - 1] + 1 < v)
					v = d[i][j - 1] + 1;
				if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
				    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
					v = d[i - 2][j - 2] + 1;
			}
			d[i][j] = v;
		}
	return d[la][lb];
}

const char *cli_nearest(const char *word, const void *names, size_t n, size_t stride)
{
	const char *best = NULL;
	size_t best_d = 3;

	for (size_t i = 0; i < n; i++) {
		const char *name;
		size_t d;

		memcpy(&name, (const char *)names + i * stride, sizeof(name));
		if (!name)
			break;
		d = edits(word, name);
		if (d < best_d && d <= (strlen(name) <= 5 ? 1u : 2u)) {
			best = name;
			best_d = d;
		}
	}
	return best;
}

/* The long options whose names start with the LEN bytes of NAME. */
static int n_prefixed(const char *name, size_t len)
{
	int n = 0;

	for (const struct option *o = cli_longopts; o && o->name; o++)
		n += strncmp(o->name, name, len) == 0;
	return n;
}

/* An unknown or ambiguous long option ARG ("--NAME" or "--NAME=VALUE"). */
static void unknown_long(const char *prog, const char *arg)
{
	const char *name = arg + 2, *near;
	size_t len = strcspn(name, "=");
	char word[64];

	if (n_prefixed(name, len) > 1) {
		fprintf(stderr, "%s: option '--%.*s' is ambiguous; it could be", prog, (int)len,
			name);
		for (const struct option *o = cli_longopts; o->name; o++)
			if (strncmp(o->name, name, len) == 0)
				fprintf(stderr, " --%s", o->name);
		fprintf(stderr, "\n");
		return;
	}
	snprintf(word, sizeof(word), "%.*s", (int)len, name);
	near =
	    cli_longopts ? cli_nearest(word, cli_longopts, SIZE_MAX, sizeof(*cli_longopts)) : NULL;
	fprintf(stderr, "%s: unknown option '--%.*s'", prog, (int)len, name);
	if (near)
		fprintf(stderr, "; did you mean '--%s'?", near);
	fprintf(stderr, "\n");
}

int cli_option_error(const char *prog, int c, char **argv)
{
	const char *arg = optind > 0 && argv[optind - 1] ? argv[optind - 1] : "";
	bool is_long = strncmp(arg, "--", 2) == 0 && arg[2];
	int len = (int)strcspn(arg, "=");

	if (c == ':' && is_long)
		fprintf(stderr, "%s: option '%.*s' needs an argument\n", prog, len, arg);
	else if (c == ':')
		fprintf(stderr, "%s: option '-%c' needs an argument\n", prog, optopt);
	else if (optopt && is_long && arg[len] == '=')
		fprintf(stderr, "%s: option '%.*s' does not take an argument\n", prog, len, arg);
	else if (optopt > 0 && optopt < 256)
		fprintf(stderr, "%s: unknown option '-%c'\n", prog, optopt);
	else if (is_long)
		unknown_long(prog, arg);
	else
		fprintf(stderr, "%s: unknown option '%s'\n", prog, arg);
	fprintf(stderr, "Try '%s --help'.\n", prog);
	return EXIT_USAGE;
}
