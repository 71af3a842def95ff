/* output.c — `ringprof record`'s output: the file, its predecessor kept as .old, --switch-output
 * and --max-size. */
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

/* Whether what path names may be replaced by a recording: nothing, or a regular file of ours
 * (not a link, which another user may have planted in a shared directory to make us write
 * over its target, nor a device). 0, or -1 with a sentence in why. */
static int output_replaceable(const char *path, char *why, size_t why_size)
{
	struct stat sb;

	if (lstat(path, &sb) < 0)
		return errno == ENOENT ? 0 : (snprintf(why, why_size, "%s", strerror(errno)), -1);
	if (S_ISLNK(sb.st_mode))
		snprintf(why, why_size,
			 "it is a symbolic link; a recording is not written through a link "
			 "(give the path it points to, or remove it)");
	else if (!S_ISREG(sb.st_mode))
		snprintf(why, why_size, "it is not a regular file");
	else if (sb.st_uid != geteuid())
		snprintf(why, why_size,
			 "it belongs to another user (uid %u); remove it or choose another name",
			 (unsigned)sb.st_uid);
	else
		return 0;
	return -1;
}

/* Refuse an output that is not a regular file of ours, before anything starts. */
int check_output(const char *output)
{
	char why[160];

	if (output_replaceable(output, why, sizeof(why)) == 0)
		return 0;
	fprintf(stderr, PROG ": will not write the recording to %s: %s\n", output, why);
	return -1;
}

/* Keep the previous recording, as perf does (when FILE.old may be replaced too). */
void keep_old_output(const char *output, bool quiet)
{
	struct stat sb;
	size_t len = strlen(output) + 5;
	char *old, why[160];

	if (lstat(output, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_size <= 0)
		return;
	old = malloc(len);
	if (!old)
		return;
	snprintf(old, len, "%s.old", output);
	if (output_replaceable(old, why, sizeof(why)) < 0) {
		if (!quiet)
			fprintf(stderr, PROG ": note: the old %s is not kept as %s: %s\n", output,
				old, why);
	} else if (rename(output, old) < 0 && !quiet)
		fprintf(stderr, PROG ": note: could not keep the old %s as %s: %s\n", output, old,
			strerror(errno));
	free(old);
}

int open_output(struct record *x)
{
	int r = writer_create(x->a.output, 0600, x->a.level, &x->w);

	if (r < 0) {
		fprintf(stderr, PROG ": cannot create %s: %s\n", x->a.output, strerror(-r));
		explain_nofile(r);
	}
	return r;
}

/* The finished current file of --switch-output, begun at START, gets its name beside the
 * output: DIR/STEM-YYYYmmddTHHMMSSZ-NNNN.data where the output is DIR/STEM.data (or
 * DIR/STEM), the names of ringprofd's files (format/recdir.h), never replacing a file. The
 * malloc'd path, or NULL (said). */
char *finish_output(struct record *x, time_t start)
{
	const char *out = x->a.output, *slash = strrchr(out, '/'), *base = slash ? slash + 1 : out;
	size_t dlen = slash ? (size_t)(slash - out) : 0, blen = strlen(base);
	char dir[PATH_MAX], stem[RECDIR_NAME_MAX], name[RECDIR_NAME_MAX], *path = NULL;
	struct recdir_entry *v;
	size_t n;
	int dfd, r;

	if (blen > 5 && strcmp(base + blen - 5, RECDIR_SUFFIX) == 0)
		blen -= 5;
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(dlen ? dlen : 1) : 1, slash ? out : ".");
	snprintf(stem, sizeof(stem), "%.*s", (int)blen, base);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	r = dfd < 0 ? -errno : 0;
	if (!r && !x->seq && recdir_list(dfd, stem, &v, &n) == 0) {
		x->seq = recdir_next_seq(v, n);
		free(v);
	}
	if (!r)
		r = recdir_finish_as(out, dfd, stem, start, &x->seq, name, sizeof(name));
	if (dfd >= 0)
		close(dfd);
	if (!r && asprintf(&path, "%.*s%s", slash ? (int)dlen + 1 : 0, out, name) < 0) {
		path = NULL;
		r = -ENOMEM;
	}
	if (r < 0)
		fprintf(stderr, PROG ": cannot rename %s for --switch-output: %s\n", out,
			strerror(-r));
	return path;
}

/* A finished file of --switch-output: said as perf does, and with --switch-max-files the
 * oldest one removed. Takes name. */
void finished_file(struct record *x, char *name)
{
	char **kept;

	if (!x->a.quiet)
		fprintf(stderr, "[ ringprof record: dump %s ]\n", name);
	kept = realloc(x->kept, (x->n_kept + 1) * sizeof(*kept));
	if (!kept) {
		free(name);
		return;
	}
	x->kept = kept;
	x->kept[x->n_kept++] = name;
	if (x->a.switch_max_files && x->n_kept > x->a.switch_max_files) {
		unlink(x->kept[0]);
		free(x->kept[0]);
		memmove(x->kept, x->kept + 1, --x->n_kept * sizeof(*kept));
	}
}

/* --switch-output: the current file is finished under its time-stamped name and recording
 * goes on into a new OUTPUT without a gap: recorder_rotate drains the rings into the old
 * file and starts the new one with the state of the target as of now. The old file gets its
 * finished name only once it is complete (a reader of finished names, report --dir or top,
 * never sees one still being written); the new one is made as OUTPUT.next until then. */
void switch_output(struct record *x)
{
	struct writer *nw, *old = x->w;
	struct writer_stats ws;
	char *name, *next = NULL;
	time_t started = x->file_start;
	int r, closed;

	x->switch_asked = false;
	x->t_file = util_now_ns();
	x->file_start = time(NULL);
	if (asprintf(&next, "%s.next", x->a.output) < 0) {
		fprintf(stderr, PROG ": --switch-output: out of memory; recording goes on in %s\n",
			x->a.output);
		return;
	}
	r = writer_create(next, 0600, x->a.level, &nw);
	if (r < 0) {
		fprintf(stderr,
			PROG
			": cannot create %s for --switch-output: %s; recording goes on in the current file\n",
			next, strerror(-r));
		free(next);
		return;
	}
	r = recorder_rotate(x->r, nw);
	ws = *writer_stats(old);
	closed = writer_close(old);
	x->w = nw;
	x->prev_file_bytes += ws.file_bytes;
	x->prev_raw_bytes += ws.raw_bytes;
	name = finish_output(x, started);
	if (!name) /* said; the finished file stays OUTPUT (not replaced below) */
		fprintf(stderr, PROG ": recording goes on in %s\n", next);
	else if (rename(next, x->a.output) < 0)
		fprintf(stderr, PROG ": cannot rename %s to %s: %s; recording goes on in %s\n",
			next, x->a.output, strerror(errno), next);
	if (r < 0 || closed < 0)
		fprintf(stderr,
			PROG
			": finishing %s failed: %s; it is readable up to the last complete frame\n",
			name ? name : x->a.output, strerror(r < 0 ? -r : -closed));
	free(next);
	if (name)
		finished_file(x, name);
}
