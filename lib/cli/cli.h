/* cli.h — what every program's command line shares: the exit statuses, the one wording of an
 * option error, and "did you mean" for a mistyped command or long option. */
#ifndef RP_CLI_CLI_H
#define RP_CLI_CLI_H

#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>

/* Exit statuses besides EXIT_SUCCESS (0) and EXIT_FAILURE (1): a bad option or argument. A
 * program's own (record's 127 when the command cannot run, ringprofd's systemd codes) are its
 * own. */
enum { EXIT_USAGE = 2 };

/* Before getopt_long: getopt's own messages off (they name the program by argv[0],
 * "ringprof-report", where the user typed `ringprof report`), and LONGOPTS the table
 * cli_option_error checks a mistyped option against. The short options should start with ':'
 * (or "+:"), so that a missing argument is told apart from an unknown option. */
void cli_options(const struct option *longopts);

/*
 * getopt_long's '?' or ':' (C) for the option just taken, in the one wording of every
 * program, then "Try 'PROG --help'.":
 *
 *   PROG: unknown option '--colour'; did you mean '--color'?
 *   PROG: unknown option '-Y'
 *   PROG: option '--output' needs an argument
 *   PROG: option '--quiet' does not take an argument
 *   PROG: option '--s' is ambiguous; it could be --sort --since
 *
 * The long options are those given to cli_options. Returns EXIT_USAGE.
 */
int cli_option_error(const char *prog, int c, char **argv);

/* The name among N that WORD most likely meant (at most 2 edits: a letter added, dropped,
 * changed or two swapped; 1 for names of up to 5 letters), or NULL. The names are the first
 * member (a const char *) of N structs STRIDE bytes apart, as in struct option or a table of
 * commands; a NULL name ends them early. */
const char *cli_nearest(const char *word, const void *names, size_t n, size_t stride);

#endif
