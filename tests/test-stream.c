/* test-stream.c — a streaming session (ringprof script) keeps no stack and no count per sample,
 * and hands out the frames the aggregating session (ringprof report) counts.
 *
 * The golden recording is read twice: aggregated, then streamed. Checks that:
 *   - the streamed session holds no count and no row (its memory does not grow with the
 *     stacks or the samples), while the aggregated one has both;
 *   - the same samples come out, with the same frames: per command, the samples and the
 *     frames handed out (summed over samples) equal the aggregated rows' counts and their
 *     stacks' lengths times the counts; and the leaf symbols' names agree, sample for sample.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "golden.h"
#include "profile/aggregate.h"
#include "profile/session.h"

/* Per command (by name, the few of the golden recording): samples, frames, and a sum over
 * samples of a hash of the leaf's name, so that leaves are compared sample for sample. */
#define MAX_COMMS 32
struct tally {
	char comm[MAX_COMMS][32];
	uint64_t samples[MAX_COMMS], frames[MAX_COMMS], leaves[MAX_COMMS];
	size_t n;
};

static size_t comm_slot(struct tally *t, const char *comm)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->comm[i], comm) == 0)
			return i;
	if (!CHECK(t->n < MAX_COMMS, "more than %d commands", MAX_COMMS))
		return 0;
	snprintf(t->comm[t->n], sizeof(t->comm[0]), "%s", comm);
	return t->n++;
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static const char *sym_name(const struct session *s, uint32_t sym)
{
	const char *n = session_sym(s, sym)->name;

	return n ? n : "[unknown]";
}

struct stream_arg {
	struct session *s;
	struct tally t;
};

static void on_sample(void *arg, const struct session_sample *smp)
{
	struct stream_arg *a = arg;
	size_t i = comm_slot(&a->t, smp->comm);

	a->t.samples[i]++;
	a->t.frames[i] += smp->n_frames;
	if (smp->n_frames)
		a->t.leaves[i] += name_hash(sym_name(a->s, smp->frames[0].sym));
}

static struct session *open_session(void)
{
	struct session_opts so = { .symfs = symfs, .debuginfod_timeout = 5 };

	return session_new(&so);
}

int main(void)
{
	struct stream_arg st = { 0 };
	struct tally agg = { 0 };
	struct session_parts parts;
	const struct session_row *rows;
	size_t n_rows;
	char why[256];
	struct session *s;

	find_golden();
	test_ctx = "aggregated";
	s = open_session();
	if (!CHECK(s != NULL))
		return check_done("test-stream");
	CHECK_INT(session_add_file(s, rec_path, why, sizeof(why)), 0);
	CHECK_INT(session_finish(s), 0);
	session_parts(s, &parts);
	CHECK(aggregate_n_counts(parts.agg) > 0);
	rows = session_rows(s, &n_rows);
	CHECK(n_rows > 0);
	for (size_t r = 0; r < n_rows; r++) {
		size_t i = comm_slot(&agg, session_comm(s, rows[r].comm));
		uint32_t n;
		const uint32_t *syms = session_stack(s, rows[r].stack, &n);

		agg.samples[i] += rows[r].count;
		agg.frames[i] += rows[r].count * n;
		if (n)
			agg.leaves[i] += rows[r].count * name_hash(sym_name(s, syms[0]));
	}
	session_free(s);

	test_ctx = "streamed";
	st.s = s = open_session();
	if (!CHECK(s != NULL))
		return check_done("test-stream");
	CHECK_INT(session_stream(s, on_sample, &st), 0);
	CHECK_INT(session_add_file(s, rec_path, why, sizeof(why)), 0);
	session_parts(s, &parts);
	CHECK_INT(aggregate_n_counts(parts.agg), 0);
	CHECK_U64(session_totals(s)->samples_nomem, 0);
	CHECK_INT(st.t.n, agg.n);
	for (size_t i = 0; i < agg.n; i++) {
		size_t k;

		for (k = 0; k < st.t.n && strcmp(st.t.comm[k], agg.comm[i]) != 0; k++)
			;
		test_ctx = agg.comm[i];
		if (!CHECK(k < st.t.n, "command %s not streamed", agg.comm[i]))
			continue;
		CHECK_U64(st.t.samples[k], agg.samples[i]);
		CHECK_U64(st.t.frames[k], agg.frames[i]);
		CHECK_U64(st.t.leaves[k], agg.leaves[i]);
	}
	session_free(s);
	return check_done("test-stream");
}
