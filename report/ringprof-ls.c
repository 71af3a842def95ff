/* ringprof-ls.c — `ringprof ls`: the recordings of a directory (ringprofd's, record
 * --switch-output's, top --keep's) or the files named, one line each, oldest first: when they
 * begin and end, their samples, losses and size, and whether they are complete. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/grow.h"
#include "base/util.h"
#include "cli/cli.h"
#include "format/filestats.h"
#include "format/format.h"
#include "format/reader.h"
#include "format/recdir.h"

#define PROG "ringprof ls"

/* What ls says of one recording. */
struct ls_file {
	char *path;
	const char *name; /* as listed: the operand, or the name in the directory */
	uint64_t size;
	bool readable;
	uint64_t first, last; /* the samples' CLOCK_MONOTONIC bounds; 0: none */
	int64_t realtime_offset;
	bool have_header;
	uint64_t samples, lost;
	const char *state; /* "complete", "partial", "damaged", "unreadable" */
	char why[160];	   /* unreadable: why */
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ringprof ls [DIR | FILE...]\n"
		"       ringprof ls --dir DIR\n"
		"\n"
		"The recordings of a directory (*.data and *.data.partial: ringprofd's, record\n"
		"--switch-output's, top --keep's; default: the current directory) or the files\n"
		"named, one line each, the oldest first (the newest last, above the totals):\n"
		"  START, END       the first and the last sample, local time\n"
		"  SAMPLES, LOST    the samples the file holds, the samples the kernel dropped\n"
		"  SIZE             bytes on disk\n"
		"  STATE            complete (closed by its recorder), partial (no end yet: being\n"
		"                   written, or its recorder was killed), damaged (frames that\n"
		"                   cannot be read; report reads the others), unreadable\n"
		"Each file is read to its end, as report reads it.\n"
		"\n"
		"      --dir DIR          the directory (as the operand DIR)\n"
		"  -h, --help             this help\n"
		"  -V, --version          version\n");
}

/* Read f->path to its end: its bounds, samples, losses and state. */
static void ls_read(struct ls_file *f)
{
	const struct perf_event_header *h;
	const struct reader_stats *rs;
	struct filestats *st = calloc(1, sizeof(*st));
	struct reader *r;
	uint64_t type;

	f->state = "unreadable";
	if (!st) {
		snprintf(f->why, sizeof(f->why), "out of memory");
		return;
	}
	if (reader_open(f->path, &r, f->why, sizeof(f->why)) < 0) {
		free(st);
		return;
	}
	type = reader_sample_type(r);
	if (reader_header(r)) {
		f->have_header = true;
		f->realtime_offset = reader_header(r)->realtime_offset;
	}
	while ((h = reader_next(r)))
		filestats_add(st, h, type, reader_event(r));
	rs = reader_stats(r);
	f->readable = true;
	f->samples = st->samples;
	f->lost = st->finished ? st->finish.lost : st->lost_records;
	f->first = st->t_min;
	f->last = st->t_max;
	f->state = rs->frames_bad || rs->truncated || rs->records_bad || !f->have_header ? "damaged"
		   : !st->finished							 ? "partial"
				   : "complete";
	free(st);
	reader_free(r);
}

/* A monotonic time as local wall-clock time: "YYYY-mm-dd HH:MM:SS", or "-" when unknown. */
static void wall_text(const struct ls_file *f, uint64_t t, char *buf, size_t size)
{
	int64_t ns;
	time_t sec;
	struct tm tm;

	if (!t || !f->have_header) {
		snprintf(buf, size, "-");
		return;
	}
	ns = util_wall_ns(t, f->realtime_offset);
	sec = (time_t)(ns / 1000000000);
	localtime_r(&sec, &tm);
	strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm);
}

static void print_file(const struct ls_file *f)
{
	char a[32], b[32], size[32];

	wall_text(f, f->first, a, sizeof(a));
	wall_text(f, f->last, b, sizeof(b));
	util_format_bytes(f->size, size, sizeof(size));
	if (!f->readable) {
		printf("%-19s  %-19s  %9s  %7s  %10s  %-10s  %s\n", "-", "-", "-", "-", size,
		       f->state, f->name);
		return;
	}
	printf("%-19s  %-19s  %9" PRIu64 "  %7" PRIu64 "  %10s  %-10s  %s\n", a, b, f->samples,
	       f->lost, size, f->state, f->name);
}

/* Oldest first: by the first sample's wall-clock time, files without one by name, last. */
static int by_start(const void *pa, const void *pb)
{
	const struct ls_file *a = pa, *b = pb;
	bool ta = a->first && a->have_header, tb = b->first && b->have_header;
	int64_t wa, wb;

	if (ta != tb)
		return ta ? -1 : 1;
	if (ta) {
		wa = util_wall_ns(a->first, a->realtime_offset);
		wb = util_wall_ns(b->first, b->realtime_offset);
		if (wa != wb)
			return wa < wb ? -1 : 1;
	}
	return strcmp(a->path, b->path);
}

struct ls {
	struct ls_file *f;
	size_t n, cap;
	size_t n_denied; /* files that could not be opened for lack of permission */
};

/* One more file to list. 0, or -ENOMEM. */
static int ls_add(struct ls *l, const char *dir, const char *name)
{
	struct ls_file *f;
	struct stat sb;

	if (GROW(l->f, l->cap, l->n + 1) < 0)
		return -ENOMEM;
	f = &l->f[l->n];
	memset(f, 0, sizeof(*f));
	f->path = malloc((dir ? strlen(dir) + 1 : 0) + strlen(name) + 1);
	if (!f->path)
		return -ENOMEM;
	sprintf(f->path, "%s%s%s", dir ? dir : "", dir ? "/" : "", name);
	f->name = dir ? f->path + strlen(dir) + 1 : f->path;
	l->n++;
	if (stat(f->path, &sb) == 0)
		f->size = (uint64_t)sb.st_size;
	ls_read(f);
	if (!f->readable && access(f->path, R_OK) < 0 && errno == EACCES)
		l->n_denied++;
	return 0;
}

/* The recordings of dir (format/recdir.h). 0, or the exit status (said). */
static int ls_dir(struct ls *l, const char *dir)
{
	struct recdir_entry *v = NULL;
	size_t n = 0;
	int r = recdir_list_path(dir, NULL, &v, &n);

	if (r < 0) {
		fprintf(stderr, PROG ": cannot read directory %s: %s%s\n", dir, strerror(-r),
			r == -EACCES ? " (ringprofd's directory is readable by the ringprof group: "
				       "sudo usermod -aG ringprof $USER, then log in again)"
				     : "");
		return EXIT_FAILURE;
	}
	for (size_t i = 0; i < n; i++)
		if (ls_add(l, dir, v[i].name) < 0) {
			free(v);
			fprintf(stderr, PROG ": out of memory\n");
			return EXIT_FAILURE;
		}
	free(v);
	if (!l->n) {
		fprintf(stderr,
			PROG ": %s: no recordings (*.data, *.data.partial) in this directory\n",
			dir);
		return EXIT_FAILURE;
	}
	return 0;
}

/* The last line: how many of each state, the samples, the bytes, the span. */
static void print_totals(const struct ls *l)
{
	size_t n[4] = { 0 };
	static const char *const states[4] = { "complete", "partial", "damaged", "unreadable" };
	uint64_t samples = 0, lost = 0, bytes = 0;
	const struct ls_file *first = NULL, *last = NULL;
	char a[32], b[32], size[32];

	for (size_t i = 0; i < l->n; i++) {
		const struct ls_file *f = &l->f[i];

		for (int k = 0; k < 4; k++)
			n[k] += strcmp(f->state, states[k]) == 0;
		samples += f->samples;
		lost += f->lost;
		bytes += f->size;
		if (f->first && f->have_header) {
			if (!first)
				first = f;
			if (!last || util_wall_ns(f->last, f->realtime_offset) >
					 util_wall_ns(last->last, last->realtime_offset))
				last = f;
		}
	}
	printf("# %zu recording%s:", l->n, l->n == 1 ? "" : "s");
	for (int k = 0, sep = 0; k < 4; k++)
		if (n[k])
			printf("%s %zu %s", sep++ ? "," : "", n[k], states[k]);
	wall_text(first, first ? first->first : 0, a, sizeof(a));
	wall_text(last, last ? last->last : 0, b, sizeof(b));
	printf("; %" PRIu64 " samples, %" PRIu64 " lost, %s", samples, lost,
	       util_format_bytes(bytes, size, sizeof(size)));
	if (first)
		printf(", from %s to %s", a, b);
	printf("\n");
}

/* The unreadable files' reasons, and the group advice once. 0, or EXIT_FAILURE. */
static int print_problems(const struct ls *l)
{
	int rc = 0;

	for (size_t i = 0; i < l->n; i++) {
		if (l->f[i].readable)
			continue;
		fprintf(stderr, PROG ": %s: %s\n", l->f[i].path, l->f[i].why);
		rc = EXIT_FAILURE;
	}
	if (l->n_denied)
		fprintf(stderr,
			PROG
			": %zu file%s could not be read for lack of permission: ringprofd's "
			"recordings are readable by the ringprof group (sudo usermod -aG ringprof "
			"$USER, then log in again)\n",
			l->n_denied, l->n_denied == 1 ? "" : "s");
	return rc;
}

/* The operands (or --dir, or "."). 0, or the exit status (said). */
static int ls_operands(struct ls *l, char **paths, int n, const char *dir)
{
	struct stat sb;
	int rc;

	if (dir || n == 0)
		return ls_dir(l, dir ? dir : ".");
	for (int i = 0; i < n; i++) {
		if (stat(paths[i], &sb) == 0 && S_ISDIR(sb.st_mode))
			rc = ls_dir(l, paths[i]);
		else
			rc = ls_add(l, NULL, paths[i]) < 0 ? EXIT_FAILURE : 0;
		if (rc)
			return rc;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dir", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct ls l = { NULL, 0, 0, 0 };
	const char *dir = NULL;
	int c, rc;

	cli_options(longopts);
	while ((c = getopt_long(argc, argv, ":hV", longopts, NULL)) != -1) {
		if (c == 'D') {
			dir = optarg;
		} else if (c == 'h') {
			usage(stdout);
			return EXIT_SUCCESS;
		} else if (c == 'V') {
			printf("ringprof ls %s\n", PACKAGE_VERSION);
			return EXIT_SUCCESS;
		} else {
			return cli_option_error(PROG, c, argv);
		}
	}
	if (dir && optind < argc) {
		fprintf(stderr, PROG ": give --dir DIR or operands, not both\n");
		return EXIT_USAGE;
	}
	rc = ls_operands(&l, argv + optind, argc - optind, dir);
	if (l.n) {
		qsort(l.f, l.n, sizeof(*l.f), by_start);
		printf("# %-19s  %-19s  %9s  %7s  %10s  %-10s  %s\n", "START", "END", "SAMPLES",
		       "LOST", "SIZE", "STATE", "FILE");
		for (size_t i = 0; i < l.n; i++)
			print_file(&l.f[i]);
		print_totals(&l);
	}
	c = print_problems(&l);
	for (size_t i = 0; i < l.n; i++)
		free(l.f[i].path);
	free(l.f);
	return rc ? rc : c;
}
