/* ringprof-annotate.c — `ringprof annotate`: a function's source lines and instructions with
 * the share of its samples on each, as perf annotate. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "options.h"
#include "cli/pager.h"
#include "profile/annotate.h"
#include "profile/print.h"
#include "profile/symfile.h"
#include "profile/session.h"

#define PROG "ringprof annotate"
#define MAX_SYMBOLS 64
#define GAP 3 /* source lines without code shown between two with code; more are cut */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ringprof annotate [OPTIONS] [SYMBOL...]\n"
		"\n"
		"For each SYMBOL (default: the hottest functions by self samples, see -n), as perf\n"
		"annotate: a header (function, object, its samples and their share of all), its\n"
		"source lines with the share of the function's samples on each, then its\n"
		"instructions with theirs; '>>' marks the hottest line and instruction. Shares are\n"
		"of the function's self samples, weighted by period. A sample counts on the\n"
		"instruction it was taken at; a line has the samples of every instruction the line\n"
		"table places on it, so inlined code counts on the inlined function's own file and\n"
		"lines (and says which function was inlined).\n"
		"\n"
		"Source text is read from the file DWARF names (see --prefix); when it is not on this\n"
		"host, the lines are given by number. The binary is read only when it is the recorded\n"
		"one (build-id, else device and inode): a binary deleted or rebuilt since gives a note\n"
		"and no lines or instructions. Kernel functions: instructions from /proc/kcore\n"
		"(root), no source lines.\n"
		"\n"
		"%s\n"
		"%s\n"
		"Symbols:\n"
		"      --symfs DIR         look binaries and debug files up under DIR first\n"
		"      --no-demangle       show C++ and Rust names mangled, as in the symbol tables\n"
		"      --full-source-path  the instructions' Source column: the file's whole path as\n"
		"                          DWARF names it, not its last component (perf's)\n"
		"      --debuginfod        fetch missing debug info from the servers in\n"
		"                          DEBUGINFOD_URLS\n"
		"      --debuginfod-timeout SECS  per request (default 5)\n"
		"      --no-debug-cache    read compressed debug files as they are, not through\n"
		"                          the cache of inflated ones (~/.cache/ringprof/debug)\n"
		"\n"
		"Output:\n"
		"  -s, --symbol SYMBOL     annotate SYMBOL (perf's spelling; as an operand)\n"
		"  -n, --functions N       without SYMBOL, the N hottest functions (default 3)\n"
		"      --prefix DIR        look source files up under DIR (with --prefix-strip)\n"
		"      --prefix-strip N    drop the first N directories of the source paths DWARF\n"
		"                          names before adding --prefix\n"
		"      --no-source         instructions only\n"
		"      --asm-only          the same (perf's spelling is --no-source)\n"
		"      --stdio             text output (the only one; accepted as perf's)\n"
		"%s"
		"  -h, --help              this help\n"
		"  -V, --version           version\n",
		options_help_input, options_help_filters, options_help_output);
}

enum {
	OPT_STDIO = OPT_OWN,
	OPT_PREFIX,
	OPT_PREFIX_STRIP,
	OPT_NO_SOURCE,
};

struct args {
	struct options o;
	const char *symbols[MAX_SYMBOLS];
	size_t n_symbols;
	unsigned long functions;
	const char *prefix;
	unsigned long prefix_strip;
	bool no_source;
};

static int add_symbol(struct args *a, const char *name)
{
	if (a->n_symbols == MAX_SYMBOLS) {
		fprintf(stderr, PROG ": at most %d symbols\n", MAX_SYMBOLS);
		return EXIT_USAGE;
	}
	a->symbols[a->n_symbols++] = name;
	return 0;
}

/* A count for option NAME. 0 or the exit status (said). */
static int parse_count(const char *name, const char *arg, unsigned long *ret)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || v > 100000) {
		fprintf(stderr, PROG ": invalid %s '%s' (a count)\n", name, arg);
		return EXIT_USAGE;
	}
	*ret = v;
	return 0;
}

/* annotate's own options. 0, or the exit status (said); -h and -V end the program here. */
static int parse_own(struct args *a, int c, char *arg)
{
	switch (c) {
	case 's':
		return add_symbol(a, arg);
	case 'n':
		if (parse_count("--functions", arg, &a->functions))
			return EXIT_USAGE;
		if (!a->functions) {
			fprintf(stderr, PROG ": --functions must be at least 1\n");
			return EXIT_USAGE;
		}
		return 0;
	case OPT_STDIO:
		return 0;
	case OPT_PREFIX:
		a->prefix = arg;
		return 0;
	case OPT_PREFIX_STRIP:
		return parse_count("--prefix-strip", arg, &a->prefix_strip);
	case OPT_NO_SOURCE:
		a->no_source = true;
		return 0;
	case 'h':
		usage(stdout);
		exit(EXIT_SUCCESS);
	case 'V':
		printf("ringprof annotate %s\n", PACKAGE_VERSION);
		exit(EXIT_SUCCESS);
	}
	return EXIT_USAGE;
}

/* 0 to annotate, or the exit status after saying what is wrong. */
static int parse_argv(struct args *a, int argc, char **argv)
{
	static const struct option longopts[] = {
		OPTIONS_LONGOPTS,
		OPTIONS_PERF_LONGOPTS,
		{ "symbol", required_argument, NULL, 's' },
		{ "functions", required_argument, NULL, 'n' },
		{ "stdio", no_argument, NULL, OPT_STDIO },
		{ "prefix", required_argument, NULL, OPT_PREFIX },
		{ "prefix-strip", required_argument, NULL, OPT_PREFIX_STRIP },
		{ "no-source", no_argument, NULL, OPT_NO_SOURCE },
		{ "asm-only", no_argument, NULL, OPT_NO_SOURCE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c, r;

	options_init(&a->o, PROG);
	a->functions = 3;
	cli_options(longopts);
	while ((c = getopt_long(argc, argv, ":" OPTIONS_SHORTS "s:n:hV", longopts, NULL)) != -1) {
		r = c == OPT_INLINE ? 0 : options_parse(&a->o, c, optarg, argv);
		if (r == 1)
			r = parse_own(a, c, optarg);
		if (r)
			return r;
	}
	for (; optind < argc; optind++)
		if ((r = add_symbol(a, argv[optind])) != 0)
			return r;
	/* Functions are the real ones a sample lies in; inlined code is told by the lines. */
	a->o.so.inline_frames = false;
	return options_finish(&a->o, argc, argv);
}

/* A source file's text, split into lines. */
struct source {
	char *text;
	char **lines; /* lines[0] is line 1 */
	size_t n;
	struct timespec mtime; /* the file's, when read */
};

static void source_done(struct source *src)
{
	free(src->text);
	free(src->lines);
	*src = (struct source){ 0 };
}

/* PATH as --prefix and --prefix-strip map it, into buf. */
static const char *map_path(const struct args *a, const char *path, char *buf, size_t size)
{
	const char *p = path;

	if (!a->prefix && !a->prefix_strip)
		return path;
	for (unsigned long k = 0; k < a->prefix_strip; k++) {
		const char *slash = strchr(p + (*p == '/'), '/');

		if (!slash)
			break;
		p = slash;
	}
	snprintf(buf, size, "%s%s%s", a->prefix ? a->prefix : "",
		 *p == '/' || !a->prefix ? "" : "/", p);
	return buf;
}

/* Read PATH into *src (at most 64 MiB). 0 or -errno. */
static int source_read(const char *path, struct source *src)
{
	/* The name is the binary's DWARF's: only a regular file is read, never waited on. */
	int fd = symfile_open_regular(path);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	size_t len = 0, cap = 0, nl = 0;
	struct stat st;
	char *p;
	int r = 0;

	if (!f) {
		r = fd < 0 ? fd : -errno;
		if (fd >= 0)
			close(fd);
		return r;
	}
	*src = (struct source){ 0 };
	if (fstat(fd, &st) == 0)
		src->mtime = st.st_mtim;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *t =
			    cap >= (64u << 20) ? NULL : realloc(src->text, cap = cap * 2 + 8192);

			if (!t) {
				r = -EFBIG;
				break;
			}
			src->text = t;
		}
		size_t got = fread(src->text + len, 1, 4096, f);

		len += got;
		if (got < 4096)
			break;
	}
	fclose(f);
	if (r < 0) {
		source_done(src);
		return r;
	}
	src->text[len] = '\0';
	for (size_t i = 0; i < len; i++)
		nl += src->text[i] == '\n';
	src->lines = malloc((nl + 1) * sizeof(*src->lines));
	if (!src->lines) {
		source_done(src);
		return -ENOMEM;
	}
	for (p = src->text; *p;) {
		char *end = strchr(p, '\n');

		src->lines[src->n++] = p;
		if (!end)
			break;
		*end = '\0';
		p = end + 1;
	}
	return 0;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* One source line: its share (blank without code), marker, number, text. */
static void print_line(const struct annotate_line *l, int line, const struct source *src,
		       uint64_t total, const struct annotate_line *hot)
{
	const char *text = src->n && (size_t)line <= src->n ? src->lines[line - 1] : "";

	if (l)
		printf("%s %7.2f %6d  %s", l == hot ? ">>" : "  ", pct(l->period, total), line,
		       text);
	else
		printf("  %7s %6d  %s", "", line, text);
	if (l && l->inlined)
		printf("    [inlined %s]", l->inlined);
	putchar('\n');
}

/* A note when SRC was modified after the binary OBJECT: its text may not be what was compiled
 * (the line numbers are the binary's own). */
static void note_newer(const struct source *src, const char *object)
{
	struct stat st;
	char a[32], b[32];
	struct tm tm;

	if (!object || stat(object, &st) < 0 ||
	    (src->mtime.tv_sec < st.st_mtim.tv_sec ||
	     (src->mtime.tv_sec == st.st_mtim.tv_sec && src->mtime.tv_nsec <= st.st_mtim.tv_nsec)))
		return;
	strftime(a, sizeof(a), "%Y-%m-%d %H:%M:%S", localtime_r(&src->mtime.tv_sec, &tm));
	strftime(b, sizeof(b), "%Y-%m-%d %H:%M:%S", localtime_r(&st.st_mtim.tv_sec, &tm));
	printf("#   (modified after the binary: source %s, %s %s; the text may not be what was "
	       "compiled, the line numbers are the binary's)\n",
	       a, object, b);
}

/* The lines of one file, LINES[0..N), with up to GAP lines of context between them; OBJECT the
 * binary they were read from. */
static void print_file_lines(const struct args *a, const struct annotate_line *lines, size_t n,
			     uint64_t total, const struct annotate_line *hot, const char *object)
{
	char buf[4096];
	const char *path = map_path(a, lines[0].file, buf, sizeof(buf));
	struct source src = { 0 };
	int r = source_read(path, &src);

	printf("#\n#   %s\n", lines[0].file);
	if (r < 0)
		printf("#   (source not on this host: %s: %s; line numbers only%s)\n", path,
		       r == -EINVAL ? "not a regular file" : strerror(-r),
		       a->prefix || a->prefix_strip ? "" : "; --prefix, --prefix-strip map paths");
	else
		note_newer(&src, object);
	for (size_t i = 0; i < n; i++) {
		if (i && lines[i].line - lines[i - 1].line > 1) {
			if (lines[i].line - lines[i - 1].line - 1 > GAP || r < 0)
				printf("  %7s %6s\n", "", "...");
			else
				for (int k = lines[i - 1].line + 1; k < lines[i].line; k++)
					print_line(NULL, k, &src, total, hot);
		}
		print_line(&lines[i], lines[i].line, &src, total, hot);
	}
	source_done(&src);
}

/* The source lines of V, file by file. */
static void print_lines(const struct args *a, const struct annotate_view *v, uint64_t total)
{
	const struct annotate_line *hot = NULL;
	size_t first = 0;

	printf("#\n# Source lines (Percent: of the function's samples on the line):\n");
	if (v->no_lines[0] || !v->n_lines) {
		printf("#   none: %s\n", v->no_lines[0] ? v->no_lines : v->no_insns);
		return;
	}
	for (size_t i = 0; i < v->n_lines; i++)
		if (v->lines[i].period && (!hot || v->lines[i].period > hot->period))
			hot = &v->lines[i];
	printf("#   Percent   Line  Source\n");
	for (size_t i = 1; i <= v->n_lines; i++)
		if (i == v->n_lines || strcmp(v->lines[i].file, v->lines[first].file) != 0) {
			print_file_lines(a, v->lines + first, i - first, total, hot, v->object);
			first = i;
		}
}

/* The last path component of PATH. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The instructions of V with their shares and source locations. */
static void print_insns(const struct args *a, const struct annotate_view *v, uint64_t total)
{
	const struct annotate_insn *hot = NULL;

	printf("#\n# Instructions (Percent: of the function's samples on the instruction)");
	if (!v->n_insns) {
		printf(":\n#   none: %s\n", v->no_insns[0] ? v->no_insns : "no instructions");
		return;
	}
	printf(", %s 0x%" PRIx64 "-0x%" PRIx64 ":\n#   Percent   Address  %-40s %s\n", v->object,
	       v->lo, v->hi, "Instruction", "Source");
	for (size_t i = 0; i < v->n_insns; i++)
		if (v->insns[i].period && (!hot || v->insns[i].period > hot->period))
			hot = &v->insns[i];
	for (size_t i = 0; i < v->n_insns; i++) {
		const struct annotate_insn *in = &v->insns[i];

		printf("%s %7.2f %9" PRIx64 ":  %-*s", in == hot ? ">>" : "  ",
		       pct(in->period, total), in->addr, in->file ? 40 : 0, in->text);
		if (in->file)
			printf(" %s:%d", a->o.so.full_source_path ? in->file : base_name(in->file),
			       in->line);
		if (in->inlined)
			printf(" [inlined %s]", in->inlined);
		putchar('\n');
	}
}

/* One function: header, lines, instructions. 0 or -ENOMEM. */
static int print_function(const struct args *a, struct annotate *ann, const struct session *s,
			  size_t i)
{
	size_t n;
	const struct annotate_fn *f = &annotate_functions(ann, &n)[i];
	const struct session_totals *t = session_totals(s);
	struct annotate_view v;
	int r = annotate_view(ann, s, i, a->o.so.symfs, &v);

	if (r < 0)
		return r;
	printf("#\n# %s (%s): %" PRIu64 " samples, %.2f%% of all\n", f->name,
	       session_dso_name(s, f->dso), f->count, pct(f->period, t->period));
	if (v.no_insns[0] && !v.n_insns)
		printf("# note: %s; the instructions and lines of %s are not available\n",
		       v.no_insns, f->name);
	if (v.unplaced_count && v.n_insns)
		printf("# note: %.2f%% of its samples (%" PRIu64
		       ") are at no instruction start shown (another function of that name, "
		       "or code that did not decode)\n",
		       pct(v.unplaced_period, f->period), v.unplaced_count);
	if (!a->no_source && v.n_insns)
		print_lines(a, &v, f->period);
	if (v.n_insns)
		print_insns(a, &v, f->period);
	printf("\n");
	annotate_view_done(&v);
	return 0;
}

/* The functions asked for (or the hottest): their indexes into sel, how many. */
static size_t select_functions(const struct args *a, const struct annotate *ann, size_t *sel,
			       size_t max, int *ret_missing)
{
	size_t n, k = 0;
	const struct annotate_fn *f = annotate_functions(ann, &n);

	*ret_missing = 0;
	if (!a->n_symbols) {
		/* --symbol-filter as report's: entries hidden, shares unchanged. */
		for (size_t i = 0; i < n && k < a->functions && k < max; i++)
			if (!a->o.symbol_filter || strstr(f[i].name, a->o.symbol_filter))
				sel[k++] = i;
		return k;
	}
	for (size_t j = 0; j < a->n_symbols; j++) {
		size_t before = k;

		for (size_t i = 0; i < n && k < max; i++)
			if (strcmp(f[i].name, a->symbols[j]) == 0)
				sel[k++] = i;
		if (k == before) {
			fprintf(stderr,
				PROG ": %s: no samples were taken in it (it may only call the hot "
				     "code: see report -g caller)\n",
				a->symbols[j]);
			(*ret_missing)++;
		}
	}
	return k;
}

/* Read, aggregate and annotate. The exit status. */
static int run(struct args *a)
{
	struct session *s = options_session(&a->o);
	struct annotate *ann = NULL;
	size_t sel[MAX_SYMBOLS * 4], n;
	int r = EXIT_FAILURE, missing;
	const struct session_totals *t;

	if (!s)
		return EXIT_FAILURE;
	if (!options_read(&a->o, s))
		goto out;
	if ((r = session_finish(s)) < 0 || (r = annotate_new(s, &ann)) < 0) {
		fprintf(stderr, PROG ": %s\n", strerror(-r));
		r = EXIT_FAILURE;
		goto out;
	}
	t = session_totals(s);
	n = select_functions(a, ann, sel, sizeof(sel) / sizeof(sel[0]), &missing);
	printf("# %s: %" PRIu64 " samples (after filters), shares weighted by period\n",
	       a->o.inputs[0], t->samples);
	print_focus(stdout, s, "\"of all\" is of the samples kept");
	if (!n && !a->n_symbols)
		printf("# no samples in a known function%s%s%s\n",
		       a->o.symbol_filter ? " whose name contains '" : "",
		       a->o.symbol_filter ? a->o.symbol_filter : "", a->o.symbol_filter ? "'" : "");
	r = 0;
	for (size_t i = 0; i < n && r == 0; i++)
		r = print_function(a, ann, s, sel[i]);
	if (r < 0) {
		fprintf(stderr, PROG ": %s\n", strerror(-r));
		r = EXIT_FAILURE;
		goto out;
	}
	fflush(stdout);
	options_warn_done(&a->o);
	r = missing && !n ? EXIT_FAILURE : EXIT_SUCCESS;
out:
	annotate_free(ann);
	session_free(s);
	return r;
}

int main(int argc, char **argv)
{
	static struct args a;
	int r;

	r = parse_argv(&a, argc, argv);
	if (r)
		return r;
	r = options_filter(&a.o);
	if (r)
		return r;
	pager_start(a.o.no_pager);
	r = run(&a);
	r = options_output_done(&a.o, r, "the annotation");
	return pager_done(r);
}
