/* ringprof-script.c — `ringprof script`: every sample, symbolized, one after another in time
 * order, as perf script prints them (the form tools are built on). */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "cli/pager.h"
#include "profile/print.h"
#include "profile/session.h"

#define PROG "ringprof script"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ringprof script [OPTIONS]\n"
		"\n"
		"Print every sample of ringprof recordings, symbolized, in time order, as perf\n"
		"script does:\n"
		"\n"
		"  COMM PID/TID [CPU] SECONDS: PERIOD EVENT:\n"
		"  \\tADDRESS SYMBOL+0xOFFSET (OBJECT)     one line per frame, the leaf first\n"
		"    FILE:LINE                           with --srcline (perf's -F +srcline)\n"
		"  (a blank line)\n"
		"\n"
		"Byte for byte perf 6.1's layout (-F comm,pid,tid,cpu,time,period,event,ip,sym,\n"
		"symoff,dso with callchains), which stackcollapse-perf.pl and speedscope read.\n"
		"SECONDS is the sample's CLOCK_MONOTONIC time; ADDRESS the sampled or return\n"
		"address as recorded; OBJECT the file's path, or [kernel.kallsyms], [MODULE],\n"
		"[vdso]. Samples are printed as they are read, not gathered, so the memory used\n"
		"grows with the distinct code locations, not with the samples.\n"
		"\n"
		"With --off-cpu only the switch-outs are printed (with --wall, the CPU samples too),\n"
		"each when its thread switches in again, stamped with the switch-out's time, and\n"
		"its line ends in \"off-cpu NS ns waiting\" or \"... preempted\": the time the\n"
		"thread then stayed off CPU (with that of switch-outs recorded without a stack\n"
		"before it, see ringprof record --off-cpu-rate).\n"
		"\n"
		"%s\n"
		"%s\n"
		"%s\n"
		"%s\n"
		"Output:\n"
		"      --srcline           each frame's source line, FILE:LINE from DWARF line\n"
		"                          tables (OBJECT+0xOFFSET where the object has none), on\n"
		"                          a line of its own under the frame (also -F +srcline)\n"
		"  -F, --fields +unit      each sample's systemd unit or container after its event,\n"
		"                          where perf script -F +cgroup puts the cgroup (also\n"
		"                          +cgroup; -F +srcline,+unit adds both)\n"
		"%s"
		"  -h, --help              this help\n"
		"  -V, --version           version\n"
		"\n"
		"Damaged or truncated parts of a recording are skipped with a warning that says where;\n"
		"everything intact is still used. The exit status is 1 only when nothing was usable.\n",
		options_help_input, options_help_filters, options_help_weight, options_help_symbols,
		options_help_output);
}

/* -F +unit: each sample's unit after its event, where perf script -F +cgroup puts the cgroup. */
static bool show_unit;

/* -F: perf script's fields. The layout is perf's default; only "+srcline" and "+unit" (or
 * perf's "+cgroup"), comma-separated, can be added to it. 0, or EXIT_USAGE (said). */
static int parse_fields(struct options *o, const char *arg)
{
	char *copy = strdup(arg), *save = NULL;
	int r = 0;

	if (!copy)
		return EXIT_FAILURE;
	for (char *f = strtok_r(copy, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
		if (strcmp(f, "+srcline") == 0) {
			o->so.srcline = true;
		} else if (strcmp(f, "+unit") == 0 || strcmp(f, "+cgroup") == 0) {
			show_unit = true;
		} else {
			fprintf(stderr,
				PROG
				": -F '%s': only +srcline and +unit (+cgroup) can be added (the "
				"other fields are perf script's default layout, always printed)\n",
				f);
			r = EXIT_USAGE;
			break;
		}
	}
	free(copy);
	return r;
}

/* 0 to print, or the exit status after saying what is wrong. */
static int parse_argv(struct options *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		OPTIONS_LONGOPTS,
		OPTIONS_PERF_LONGOPTS,
		OPTIONS_LONGOPTS_WEIGHT,
		{ "srcline", no_argument, NULL, OPT_OWN },
		{ "fields", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c, r;

	options_init(o, PROG);
	cli_options(longopts);
	while ((c = getopt_long(argc, argv, ":" OPTIONS_SHORTS "F:hV", longopts, NULL)) != -1) {
		r = options_parse(o, c, optarg, argv);
		if (r == 1 && (c == OPT_OWN || c == 'F')) {
			r = c == 'F' ? parse_fields(o, optarg) : 0;
			o->so.srcline = o->so.srcline || c == OPT_OWN;
		}
		if (r == 1 && c == 'h') {
			usage(stdout);
			exit(EXIT_SUCCESS);
		}
		if (r == 1 && c == 'V') {
			printf("ringprof script %s\n", PACKAGE_VERSION);
			exit(EXIT_SUCCESS);
		}
		if (r)
			return r == 1 ? EXIT_USAGE : r;
	}
	return options_finish(o, argc, argv);
}

static void on_sample(void *arg, const struct session_sample *smp)
{
	struct print_script *ps = arg;
	struct session_sample shown = *smp;

	if (!show_unit)
		shown.unit = NULL;
	print_script_sample(ps, &shown);
}

/* Read and print every input. The exit status. */
static int script(struct options *o)
{
	struct session *s = options_session(o);
	struct print_script *ps;
	size_t usable;

	if (!s)
		return EXIT_FAILURE;
	ps = print_script_new(stdout, s);
	if (!ps || session_stream(s, on_sample, ps) < 0) {
		fprintf(stderr, PROG ": out of memory\n");
		print_script_free(ps);
		session_free(s);
		return EXIT_FAILURE;
	}
	usable = options_read(o, s);
	print_script_free(ps);
	options_note_nolines(o, s);
	if (session_totals(s)->samples_nomem)
		fprintf(stderr, PROG ": note: %llu samples not printed (out of memory)\n",
			(unsigned long long)session_totals(s)->samples_nomem);
	session_free(s);
	fflush(stdout);
	options_warn_done(o);
	return usable ? EXIT_SUCCESS : EXIT_FAILURE;
}

int main(int argc, char **argv)
{
	static struct options o;
	int r;

	r = parse_argv(&o, argc, argv);
	if (r)
		return r;
	r = options_filter(&o);
	if (!r)
		r = options_symbol_filter_leaf(&o);
	if (r)
		return r;
	pager_start(o.no_pager);
	r = script(&o);
	r = options_output_done(&o, r, "the samples");
	return pager_done(r);
}
