/* test-follow.c — a recording read as its writer appends to it (session_follow_*, what
 * `ringprof top --dir` reads ringprofd's active file with) gives what one read of the whole
 * file gives.
 *
 * Each golden recording (v2, v2.2: two frames each), or the recording given as argument
 * (tests/top-follow.sh gives one of many frames, whose stacks are defined once and used by
 * later frames), is copied into a .partial file a few hundred bytes at a time, cutting frames
 * and their descriptors anywhere; the file is followed from the first append that holds a
 * complete frame, read on after each append, then renamed as the daemon closes it and
 * closed. Checks that:
 *   - aggregated, the report (header and table) is the one of session_add_file() on the
 *     whole file;
 *   - streamed (as top reads it), the same samples come out: count, periods, times, leaves;
 *   - the reading was incremental (with the argument's recording, samples came at several
 *     appends) and no warning was given while the file grew (a cut frame is not damage).
 * Usage: test-follow [RECORDING]
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "golden.h"
#include "profile/print.h"
#include "profile/session.h"

#define CHUNK 700 /* bytes appended at a time: frames and descriptors are cut anywhere */

struct sums {
	uint64_t samples, period, time, leaves;
};

static unsigned warnings;

static void on_warn(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "warning: %s\n", msg);
	warnings++;
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

struct stream_arg {
	const struct session *s;
	struct sums sum;
};

static void on_sample(void *arg, const struct session_sample *smp)
{
	struct stream_arg *a = arg;
	const char *leaf = smp->n_frames ? session_sym(a->s, smp->frames[0].sym)->name : "";

	a->sum.samples++;
	a->sum.period += smp->period;
	a->sum.time += smp->time;
	a->sum.leaves += name_hash(leaf ? leaf : "[unknown]");
}

static struct session *new_session(const char *symfs_dir, struct stream_arg *stream)
{
	struct session_opts so = { .symfs = symfs_dir, .debuginfod_timeout = 5, .warn = on_warn };
	struct session *s = session_new(&so);

	if (s && stream) {
		stream->s = s;
		CHECK_INT(session_stream(s, on_sample, stream), 0);
	}
	return s;
}

/* The header and flat report of a finished session, in a string to free. */
static char *report(struct session *s)
{
	struct print_opts po = { .keys = { PRINT_COMM, PRINT_DSO, PRINT_SYM }, .n_keys = 3 };
	const char *const inputs[] = { "workload.rpd" };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	CHECK_INT(session_finish(s), 0);
	print_header(f, s, inputs, 1);
	CHECK_INT(print_flat(f, s, &po), 0);
	fclose(f);
	return text;
}

static unsigned char *slurp(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long n;

	if (!CHECK(f != NULL, "%s: %s", path, strerror(errno)))
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n)) && fread(buf, 1, (size_t)n, f) == (size_t)n)
		*ret_len = (size_t)n;
	fclose(f);
	return buf;
}

/* Copy DATA into a .partial file in DIR CHUNK bytes at a time, following it into S; the
 * samples that came at each append into *steps (how many appends brought some). */
static void follow_growing(struct session *s, const unsigned char *data, size_t len,
			   const char *dir, struct stream_arg *stream, unsigned *steps)
{
	char partial[4200], closed[4200], why[512];
	struct session_follow *fw = NULL;
	uint64_t before = 0;
	int fd;

	snprintf(partial, sizeof(partial), "%s/rp-0001.data.partial", dir);
	snprintf(closed, sizeof(closed), "%s/rp-0001.data", dir);
	fd = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (!CHECK(fd >= 0, "%s: %s", partial, strerror(errno)))
		return;
	*steps = 0;
	for (size_t off = 0; off < len; off += CHUNK) {
		size_t n = len - off < CHUNK ? len - off : CHUNK;
		uint64_t now;

		CHECK(write(fd, data + off, n) == (ssize_t)n);
		if (fw)
			session_follow_more(s, fw);
		else if (session_follow_open(s, partial, &fw, why, sizeof(why)) != 0)
			fw = NULL; /* no complete frame yet */
		now = stream ? stream->sum.samples : session_totals(s)->samples;
		*steps += now > before;
		before = now;
	}
	close(fd);
	CHECK_INT(warnings, 0);
	if (!CHECK(fw != NULL, "the file was never followed"))
		return;
	/* The daemon closes the file: renamed; the open file reads on. */
	CHECK_INT(rename(partial, closed), 0);
	CHECK_INT(session_follow_close(s, fw, why, sizeof(why)), 0);
	unlink(closed);
}

static void check_file(const char *path, const char *symfs_dir, const char *dir, unsigned min_steps)
{
	size_t len = 0;
	unsigned char *data = slurp(path, &len);
	char why[512], *whole, *grown;
	struct session *s;
	struct stream_arg a = { 0 }, b = { 0 };
	unsigned steps = 0;

	if (!data)
		return;
	/* Aggregated: the same report. */
	s = new_session(symfs_dir, NULL);
	CHECK_INT(session_add_file(s, path, why, sizeof(why)), 0);
	whole = report(s);
	session_free(s);
	s = new_session(symfs_dir, NULL);
	follow_growing(s, data, len, dir, NULL, &steps);
	grown = report(s);
	session_free(s);
	CHECK(whole && grown && strcmp(whole, grown) == 0, "followed:\n%s\nwhole:\n%s\n", grown,
	      whole);
	CHECK(steps >= min_steps, "samples came at %u appends only: not read as the file grew",
	      steps);
	free(whole);
	free(grown);
	/* Streamed, as top reads it: the same samples. */
	s = new_session(symfs_dir, &a);
	CHECK_INT(session_add_file(s, path, why, sizeof(why)), 0);
	session_free(s);
	s = new_session(symfs_dir, &b);
	follow_growing(s, data, len, dir, &b, &steps);
	session_free(s);
	CHECK(a.sum.samples > 100, "only %" PRIu64 " samples", a.sum.samples);
	CHECK_U64(b.sum.samples, a.sum.samples);
	CHECK_U64(b.sum.period, a.sum.period);
	CHECK_U64(b.sum.time, a.sum.time);
	CHECK_U64(b.sum.leaves, a.sum.leaves);
	CHECK(steps >= min_steps, "streamed samples came at %u appends only", steps);
	free(data);
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/rp-test-follow.XXXXXX", path[4200], fs[4200];
	const char *top = getenv("top_srcdir");

	if (!CHECK(mkdtemp(dir) != NULL))
		return check_done("test-follow");
	if (argc > 1) {
		test_ctx = argv[1];
		check_file(argv[1], NULL, dir, 3);
		rmdir(dir);
		return check_done("test-follow");
	}
	find_golden();
	test_ctx = "v2";
	check_file(rec_path, symfs, dir, 1);
	test_ctx = "v2.2";
	snprintf(path, sizeof(path), "%s/tests/golden/v2.2/workload.rpd", top && *top ? top : "..");
	snprintf(fs, sizeof(fs), "%s/tests/golden/v2.2/symfs", top && *top ? top : "..");
	check_file(path, fs, dir, 1);
	rmdir(dir);
	return check_done("test-follow");
}
