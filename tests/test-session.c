/* test-session.c — a session whose allocations fail: every sample is counted or counted as lost.
 *
 * Its allocations fail on demand (failalloc.h): the Nth from the moment the test arms them,
 * and optionally every one after it.
 * For each N up to the number of allocations that reading a golden recording takes, it reads
 * the recording with that allocation failing, then disarms and finishes and prints the
 * report, checking that:
 *   - samples counted + samples lost to out-of-memory == samples seen (nothing vanishes);
 *   - the header has a note with the number lost, and one for side-band records not applied;
 *   - the report still prints, its rows adding up to the samples counted;
 *   - with --comm, no sample of another command gets in when the filter's cache cannot grow.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "failalloc.h"
#include "golden.h"
#include "profile/print.h"
#include "profile/session.h"

static const char *const comm_worker[] = { "rp-worker" };

static struct session *open_session(bool only_worker)
{
	struct session_opts so = { .symfs = symfs, .debuginfod_timeout = 5 };

	if (only_worker) {
		so.filter.comms = comm_worker;
		so.filter.n_comms = 1;
	}
	return session_new(&so);
}

/* The header and flat report of a finished session, in a string to free; NULL on failure. */
static char *report(struct session *s, int *ret_rc)
{
	struct print_opts po = { .keys = { PRINT_COMM, PRINT_DSO, PRINT_SYM }, .n_keys = 3 };
	const char *const inputs[] = { "workload.rpd" };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	print_header(f, s, inputs, 1);
	*ret_rc = print_flat(f, s, &po);
	fclose(f);
	return text;
}

/* What the runs of one mode saw. */
struct tally {
	long runs, add_failed, with_lost, with_lost_and_kept, with_sideband;
	uint64_t most_lost;
};

static const char *first_line(const char *text, const char *prefix, char *buf, size_t size)
{
	const char *p = strstr(text, prefix);
	size_t n;

	if (!p)
		return "(none)";
	n = strcspn(p, "\n");
	snprintf(buf, size, "%.*s", (int)(n < size ? n : size - 1), p);
	return buf;
}

/* Finish and print a session read with failures, and check what it says. */
static void check_run(struct session *s, bool only_worker, uint64_t seen_ok, struct tally *ty)
{
	const struct session_totals *t;
	const struct session_row *rows;
	size_t n_rows;
	uint64_t sum = 0;
	char want[160], *text;
	int rc = -1;

	if (!CHECK_INT(session_finish(s), 0))
		return;
	t = session_totals(s);
	/* Fewer only when the reader gave up on frames for want of memory. */
	CHECK(t->samples_seen <= seen_ok, "%" PRIu64 " seen, %" PRIu64 " in the file",
	      t->samples_seen, seen_ok);
	if (!only_worker)
		CHECK(t->samples + t->samples_nomem == t->samples_seen,
		      "%" PRIu64 " counted + %" PRIu64 " dropped != %" PRIu64 " seen", t->samples,
		      t->samples_nomem, t->samples_seen);
	rows = session_rows(s, &n_rows);
	for (size_t i = 0; i < n_rows; i++) {
		sum += rows[i].count;
		if (only_worker)
			CHECK_STR(session_comm(s, rows[i].comm), "rp-worker");
	}
	CHECK_U64(sum, t->samples);
	text = report(s, &rc);
	if (!CHECK(text != NULL) || !CHECK_INT(rc, 0)) {
		free(text);
		return;
	}
	snprintf(want, sizeof(want),
		 "\n# note: %" PRIu64 " sample%s dropped (out of memory while "
		 "reading)",
		 t->samples_nomem, t->samples_nomem > 1 ? "s" : "");
	CHECK(!t->samples_nomem == !strstr(text, want), "no '%s' in:\n%s", want + 1, text);
	snprintf(want, sizeof(want),
		 "\n# note: %" PRIu64 " side-band record%s (tasks, mappings, "
		 "kernel symbols) not applied",
		 t->sideband_nomem, t->sideband_nomem > 1 ? "s" : "");
	CHECK(!t->sideband_nomem == !strstr(text, want), "no '%s' in:\n%s", want + 1, text);
	if (t->samples)
		CHECK(strstr(text, "\n# Children") || strstr(text, "\n#     Self"),
		      "no table in:\n%s", text);
	ty->with_lost += t->samples_nomem > 0;
	ty->with_lost_and_kept += t->samples_nomem > 0 && n_rows > 0;
	ty->with_sideband += t->sideband_nomem > 0;
	if (t->samples_nomem > ty->most_lost && n_rows > 0) {
		char buf[300];

		ty->most_lost = t->samples_nomem;
		printf("  %s\n", first_line(text, "# samples:", buf, sizeof(buf)));
		printf("  %s\n", first_line(text, "# note: ", buf, sizeof(buf)));
	}
	free(text);
}

/* Read the golden recording once with each of its allocations failing in turn (and, with
 * AND_AFTER, every later one too). */
static void fail_each(bool and_after, bool only_worker, struct tally *ty)
{
	uint64_t seen_ok;
	long total;
	char why[256];
	struct session *s = open_session(only_worker);

	/* An undisturbed run: how many allocations reading takes, and the samples. */
	failalloc_count = 0;
	CHECK_INT(session_add_file(s, rec_path, why, sizeof(why)), 0);
	total = failalloc_count;
	CHECK_INT(session_finish(s), 0);
	seen_ok = session_totals(s)->samples_seen;
	CHECK(session_totals(s)->samples_nomem == 0 && session_totals(s)->sideband_nomem == 0);
	session_free(s);
	CHECK(total > 10, "reading took only %ld allocations", total);
	for (long nth = 0; nth < total; nth++) {
		int rc;

		s = open_session(only_worker);
		if (!CHECK(s != NULL))
			return;
		failalloc_arm(nth, and_after);
		rc = session_add_file(s, rec_path, why, sizeof(why));
		failalloc_disarm();
		ty->runs++;
		if (!CHECK(failalloc_failed > 0, "allocation %ld of %ld did not happen", nth,
			   total)) {
			session_free(s);
			break;
		}
		/* The reader may give up on the file when its own allocations fail: its call. */
		if (rc < 0)
			ty->add_failed++;
		else
			check_run(s, only_worker, seen_ok, ty);
		session_free(s);
	}
}

static void report_tally(const char *what, const struct tally *ty)
{
	printf("%s: %ld runs, %ld with samples dropped (%ld still with rows), %ld with side-band "
	       "records not applied, %ld where the file could not be read\n",
	       what, ty->runs, ty->with_lost, ty->with_lost_and_kept, ty->with_sideband,
	       ty->add_failed);
}

int main(void)
{
	struct tally one = { 0 }, rest = { 0 }, comm = { 0 };

#ifdef FAILALLOC_NONE
	return failalloc_skip("test-session");
#endif
	setvbuf(stdout, NULL, _IOLBF, 0); /* in order with the failures on stderr */
	find_golden();
	test_ctx = "each allocation failing once";
	fail_each(false, false, &one);
	report_tally(test_ctx, &one);
	test_ctx = "every allocation failing from one on";
	fail_each(true, false, &rest);
	report_tally(test_ctx, &rest);
	test_ctx = "--comm rp-worker, each allocation failing once";
	fail_each(false, true, &comm);
	report_tally(test_ctx, &comm);
	/* The failures must have reached the places that count: otherwise this tests nothing. */
	test_ctx = "coverage";
	CHECK(one.with_lost_and_kept > 0, "no run lost some samples and kept others");
	CHECK(rest.with_lost_and_kept > 0, "no run lost some samples and kept others");
	CHECK(one.with_sideband > 0, "no run lost a side-band record");
	return check_done("test-session");
}
