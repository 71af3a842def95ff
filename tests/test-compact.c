/* test-compact.c — format 2's compact samples: the stack table, batches, and a reader that
 * rebuilds the samples exactly, including after a stack table reset and a lost definition. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "check.h"
#include "recfile.h"
#include "format/compact.h"
#include "format/stacktab.h"
#include "format/format.h"
#include "format/reader.h"
#include "format/perfrec.h"
#include "format/writer.h"

static void test_stacktab(void)
{
	struct stacktab *t = stacktab_new(4, 16);
	uint64_t a[3] = { (uint64_t)PERF_CONTEXT_USER, 0x401000, 0x402000 };
	uint64_t b[3] = { (uint64_t)PERF_CONTEXT_USER, 0x401000, 0x402008 };
	uint64_t big[20] = { 0 };
	bool added;

	test_ctx = "stacktab";
	if (!CHECK(t))
		return;
	CHECK_INT(stacktab_intern(t, PERF_RECORD_MISC_USER, 0x401000, a, 3, &added), 0);
	CHECK(added);
	CHECK_INT(stacktab_intern(t, PERF_RECORD_MISC_USER, 0x401000, a, 3, &added), 0);
	CHECK(!added, "the same stack is found again");
	CHECK_INT(stacktab_intern(t, PERF_RECORD_MISC_USER, 0x401000, b, 3, &added), 1);
	CHECK(added, "one word differs: a new stack");
	CHECK_INT(stacktab_intern(t, PERF_RECORD_MISC_KERNEL, 0x401000, a, 3, &added), 2);
	CHECK(added, "another cpumode: a new stack");
	CHECK_INT(stacktab_intern(t, PERF_RECORD_MISC_USER, 0x401000, a, 2, &added), 3);
	CHECK(added, "a shorter chain: a new stack");
	CHECK_INT(stacktab_intern(t, PERF_RECORD_MISC_USER, 0x401004, NULL, 0, &added), -1);
	CHECK(!added, "full by count: -1");
	CHECK_INT(stacktab_count(t), 4);
	stacktab_reset(t);
	CHECK_INT(stacktab_count(t), 0);
	CHECK_INT(stacktab_intern(t, PERF_RECORD_MISC_USER, 0x401000, b, 3, &added), 0);
	CHECK(added, "after a reset ids start from 0");
	CHECK_INT(stacktab_intern(t, PERF_RECORD_MISC_USER, 0x1, big, 20, &added), -1);
	CHECK(!added, "full by words: -1");
	stacktab_free(t);
	t = stacktab_new(4, 1u << 20);
	CHECK_INT(stacktab_intern(t, 0, 0x1, big, RP_STACK_MAX_WORDS, &added), -1);
	CHECK(!added, "longer than a STACK record can hold: -1");
	stacktab_free(t);
}

static void test_batch(void)
{
	static struct sbatch b;
	struct sbatch_reader br;
	struct compact_sample cs;
	const struct perf_event_header *h;
	uint64_t t = 1000000000000ull;
	uint32_t n = 0, got = 0;
	bool split = false;

	test_ctx = "batch";
	b.n = 0;
	/* Period jitter, task changes, a time going backwards, big ids. */
	while (!split) {
		uint64_t period = 1001001 + (n % 7 == 0 ? 17 : 0);

		t += period + (n % 5) * 10 - 20;
		if (n == 100)
			t -= 5000; /* out of order: zigzag */
		if (!sbatch_add(&b, 1, t, 10 + n % 3, 20 + n % 3, period, n * 97u % 100000u))
			split = true;
		else
			n++;
	}
	CHECK(n > 5000, "a 64 KiB batch holds thousands of samples (%u)", n);
	h = sbatch_finish(&b);
	if (!CHECK(h))
		return;
	CHECK_INT(h->type, RP_REC_SAMPLES);
	CHECK_INT(h->size % 8, 0);
	CHECK(h->size <= SBATCH_MAX);
	CHECK_INT(sbatch_read_init(&br, h), 0);
	CHECK_INT(br.cpu, 1);
	t = 1000000000000ull;
	while (sbatch_read_next(&br, &cs) > 0) {
		uint64_t period = 1001001 + (got % 7 == 0 ? 17 : 0);

		t += period + (got % 5) * 10 - 20;
		if (got == 100)
			t -= 5000;
		if (!CHECK_U64(cs.time, t) || !CHECK_INT(cs.pid, 10 + got % 3) ||
		    !CHECK_INT(cs.tid, 20 + got % 3) || !CHECK_U64(cs.period, period) ||
		    !CHECK_INT(cs.stack, got * 97u % 100000u))
			break;
		got++;
	}
	CHECK_INT(got, n);
	/* A batch belongs to one CPU. */
	CHECK(sbatch_add(&b, 0, 5, 1, 1, 1, 0));
	CHECK(!sbatch_add(&b, 1, 6, 1, 1, 1, 0), "another CPU does not go into the batch");
	/* Cut short: the samples before the cut, then -EINVAL. */
	h = sbatch_finish(&b);
	{
		unsigned char buf[64];
		struct perf_event_header cut;

		memcpy(buf, h, h->size);
		memcpy(&cut, buf, sizeof(cut));
		int rc, k = 0;

		((struct rp_samples_rec *)(void *)buf)->n = 100; /* claims more than it holds */
		CHECK_INT(sbatch_read_init(&br, (const void *)buf), 0);
		while ((rc = sbatch_read_next(&br, &cs)) == 1)
			k++;
		/* The padding may decode as a sample or two; never beyond the record. */
		CHECK(k >= 1 && k <= (int)(cut.size - sizeof(struct rp_samples_rec)) / 2,
		      "%d samples", k);
		CHECK_INT(rc, -EINVAL);
		CHECK_INT(sbatch_read_next(&br, &cs), 0);
	}
}

/* A file's header record (sample_type st, time 100) into w, the watermark at its time. */
/* A file as the recorder writes it, read back through the reader. */
static void test_reader(void)
{
	char path[] = "/tmp/rp-test-compact.XXXXXX";
	int fd = mkstemp(path);
	struct writer *w;
	struct reader *r;
	static struct sbatch b;
	static struct kbatch kb;
	const struct perf_event_header *h;
	char why[256];
	uint64_t st = RP_COMPACT_SAMPLE_TYPE | PERF_SAMPLE_CALLCHAIN;
	uint64_t chain[2][3] = { { (uint64_t)PERF_CONTEXT_USER, 0x401000, 0x402000 },
				 { (uint64_t)PERF_CONTEXT_KERNEL, 0xffffffff81000010ull,
				   0xffffffff81000020ull } };
	uint32_t seen = 0, stacks[4];

	test_ctx = "reader";
	if (!CHECK(fd >= 0) || !CHECK_INT(writer_fdopen(fd, 3, &w), 0))
		return;
	recfile_put_header(w, st);
	/* Stacks 0 and 1 (user: the chain repeats the ip; kernel: it does not), four samples. */
	kb.n = 0;
	CHECK(kbatch_add(&kb, 0, PERF_RECORD_MISC_USER, chain[0][1], chain[0], 3));
	CHECK(kbatch_add(&kb, 1, PERF_RECORD_MISC_KERNEL, 0xffffffff81000011ull, chain[1], 3));
	CHECK(!kbatch_add(&kb, 3, PERF_RECORD_MISC_KERNEL, 0x1, chain[1], 3),
	      "ids in a batch follow each other");
	h = kbatch_finish(&kb);
	writer_add(w, h, h->size);
	b.n = 0;
	for (uint32_t i = 0; i < 4; i++)
		sbatch_add(&b, 1, 1000 + i, 7, 8 + (i & 1), 250, i & 1);
	h = sbatch_finish(&b);
	writer_add(w, h, h->size);
	writer_flush(w);
	/* Id 0 redefined as a shorter stack: later samples use the new one. */
	{
		uint64_t c[2] = { (uint64_t)PERF_CONTEXT_USER, 0x405000 };

		CHECK(kbatch_add(&kb, 0, PERF_RECORD_MISC_USER, 0x405000, c, 2));
		/* Id 1 again, unchanged (the recorder repeats its definitions now and then). */
		CHECK(kbatch_add(&kb, 1, PERF_RECORD_MISC_KERNEL, 0xffffffff81000011ull, chain[1],
				 3));
		h = kbatch_finish(&kb);
		writer_add(w, h, h->size);
	}
	sbatch_add(&b, 0, 2000, 7, 7, 250, 0);
	sbatch_add(&b, 0, 2001, 7, 7, 250, 9); /* never defined */
	sbatch_add(&b, 0, 2002, 7, 7, 250, 1);
	h = sbatch_finish(&b);
	writer_add(w, h, h->size);
	CHECK_INT(writer_close(w), 0);

	if (!CHECK(reader_open(path, &r, why, sizeof(why)) == 0, "%s", why))
		return;
	while ((h = reader_next(r))) {
		struct perfrec_sample s;

		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		if (!CHECK_INT(perfrec_parse_sample(h, st, &s), 0))
			break;
		if (seen < 4) {
			uint32_t k = seen & 1;

			CHECK_U64(s.id.time, 1000 + seen);
			CHECK_INT(s.id.pid, 7);
			CHECK_INT(s.id.tid, 8 + k);
			CHECK_INT(s.id.cpu, 1);
			CHECK_U64(s.period, 250);
			CHECK_INT(s.misc, k ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER);
			CHECK_U64(s.ip, k ? 0xffffffff81000011ull : chain[k][1]);
			if (CHECK_INT(s.nr, 3))
				CHECK(memcmp(s.ips, chain[k], sizeof(chain[k])) == 0,
				      "sample %u: the callchain", seen);
			stacks[seen] = reader_stack_id(r);
		} else if (seen == 4) {
			CHECK_U64(s.ip, 0x405000);
			CHECK(s.nr == 2, "the redefined stack 0");
			CHECK_INT(s.id.cpu, 0);
			CHECK(reader_stack_id(r) != stacks[0],
			      "a redefinition gets a new reader stack number");
		} else if (seen == 5) {
			CHECK_U64(s.ip, 0);
			CHECK(s.nr == 0,
			      "a sample whose stack was never defined keeps no callchain");
			CHECK_INT(reader_stack_id(r), READER_NO_STACK);
		} else if (seen == 6) {
			CHECK_U64(s.ip, 0xffffffff81000011ull);
			CHECK(reader_stack_id(r) == stacks[1],
			      "a repeated definition keeps its reader stack number");
		}
		seen++;
	}
	CHECK_INT(seen, 7);
	CHECK(stacks[0] == stacks[2], "equal stacks, equal numbers");
	CHECK(stacks[0] != stacks[1]);
	CHECK_U64(reader_stats(r)->stacks, 4);
	CHECK_U64(reader_stats(r)->samples_packed, 7);
	CHECK_U64(reader_stats(r)->stack_missing, 1);
	reader_free(r);
	unlink(path);
}

/* Stack generations (format 2.2): a frame whose numbering is not the one held makes the reader
 * forget its ids, so samples whose new definitions were in a lost frame keep no callchain
 * rather than an older stack's. */
static void test_generations(void)
{
	char path[] = "/tmp/rp-test-compact.XXXXXX";
	int fd = mkstemp(path);
	struct writer *w;
	struct reader *r;
	static struct sbatch b;
	static struct kbatch kb;
	const struct perf_event_header *h;
	struct rp_stackgen_rec g;
	char why[256];
	uint64_t st = RP_COMPACT_SAMPLE_TYPE | PERF_SAMPLE_CALLCHAIN;
	uint64_t c0[2] = { (uint64_t)PERF_CONTEXT_USER, 0x401000 };
	uint64_t c1[2] = { (uint64_t)PERF_CONTEXT_USER, 0x402000 };
	uint64_t c9[2] = { (uint64_t)PERF_CONTEXT_USER, 0x409000 };
	uint64_t want_ip[7] = { 0x401000, 0x402000, 0x401000, 0x402000, 0, 0, 0x409000 };
	uint64_t records;
	uint32_t seen = 0;

	test_ctx = "generations";
	if (!CHECK(fd >= 0) || !CHECK_INT(writer_fdopen(fd, 3, &w), 0))
		return;
	recfile_put_header(w, st);
	/* Generation 1, said in the open frame after the header: ids 0 and 1, used at once. */
	format_stackgen_put(&g, 0, 1);
	writer_set_prologue(w, &g, sizeof(g));
	kb.n = 0;
	CHECK(kbatch_add(&kb, 0, PERF_RECORD_MISC_USER, 0x401000, c0, 2));
	CHECK(kbatch_add(&kb, 1, PERF_RECORD_MISC_USER, 0x402000, c1, 2));
	h = kbatch_finish(&kb);
	writer_add(w, h, h->size);
	b.n = 0;
	sbatch_add(&b, 0, 1000, 7, 7, 250, 0);
	sbatch_add(&b, 0, 1001, 7, 7, 250, 1);
	h = sbatch_finish(&b);
	writer_add(w, h, h->size);
	writer_flush(w);
	records = writer_stats(w)->records;
	CHECK_U64(records, 4); /* header, generation, stacks, samples */
	/* The next frame starts with generation 1 again: the ids stand. */
	writer_set_safe_time(w, 2000);
	sbatch_add(&b, 0, 2000, 7, 7, 250, 0);
	sbatch_add(&b, 0, 2001, 7, 7, 250, 1);
	h = sbatch_finish(&b);
	writer_add(w, h, h->size);
	writer_flush(w);
	CHECK_U64(writer_stats(w)->records - records, 2);
	/* Generation 2, its definitions in a frame that was lost (never written): its samples in
	 * the next frame have no callchain, not generation 1's, and a new definition is used. */
	format_stackgen_put(&g, 0, 2);
	writer_set_prologue(w, &g, sizeof(g));
	writer_set_safe_time(w, 3000);
	sbatch_add(&b, 0, 3000, 7, 7, 250, 0);
	sbatch_add(&b, 0, 3001, 7, 7, 250, 1);
	h = sbatch_finish(&b);
	writer_add(w, h, h->size);
	CHECK(kbatch_add(&kb, 1, PERF_RECORD_MISC_USER, 0x409000, c9, 2));
	h = kbatch_finish(&kb);
	writer_add(w, h, h->size);
	sbatch_add(&b, 0, 3002, 7, 7, 250, 1);
	h = sbatch_finish(&b);
	writer_add(w, h, h->size);
	CHECK_INT(writer_close(w), 0);

	if (!CHECK(reader_open(path, &r, why, sizeof(why)) == 0, "%s", why))
		return;
	while ((h = reader_next(r))) {
		struct perfrec_sample s;

		if (h->type != PERF_RECORD_SAMPLE || seen >= 7)
			continue;
		if (!CHECK_INT(perfrec_parse_sample(h, st, &s), 0))
			break;
		CHECK(s.ip == want_ip[seen], "sample %u: ip 0x%llx, expected 0x%llx", seen,
		      (unsigned long long)s.ip, (unsigned long long)want_ip[seen]);
		CHECK(s.nr == (want_ip[seen] ? 2u : 0u), "sample %u: %llu callchain words", seen,
		      (unsigned long long)s.nr);
		seen++;
	}
	CHECK_INT(seen, 7);
	CHECK_U64(reader_stats(r)->stack_missing, 2);
	CHECK_U64(reader_stats(r)->records_bad, 0);
	reader_free(r);
	unlink(path);
}

int main(void)
{
	test_stacktab();
	test_batch();
	test_reader();
	test_generations();
	return check_done("test-compact");
}
