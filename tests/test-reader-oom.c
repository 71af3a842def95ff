/* test-reader-oom.c — a stack redefined while allocations fail: its samples keep no callchain,
 * never the old definition's.
 *
 * A recorder numbers its stacks again (format.h: a stack whose id is already defined replaces
 * the old definition from there on). When the reader cannot store the new definition, the
 * samples that use the id must not take the old one's callchain: that would be a wrong stack.
 * Its allocations fail on demand (failalloc.h): it reads a recording with the Nth allocation
 * after the reader is opened failing, for each N in turn: stack 0 is a short chain (A) for the
 * first samples, then a long one (B) for the later ones, long enough that storing it must allocate.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "check.h"
#include "failalloc.h"
#include "recfile.h"
#include "format/compact.h"
#include "format/format.h"
#include "format/perfrec.h"
#include "format/reader.h"
#include "format/writer.h"

#define LONG_NR 2000 /* words of chain B */
#define T_LATER 2000 /* samples from this time on use B */

static uint64_t chain_a[3] = { (uint64_t)PERF_CONTEXT_USER, 0x401000, 0x402000 };
static uint64_t chain_b[LONG_NR];

/* Stack 0 = A, two samples; stack 0 = B, two samples. */
static bool write_recording(int fd, uint64_t st)
{
	static struct kbatch kb;
	static struct sbatch b;
	const struct perf_event_header *h;
	struct writer *w;

	chain_b[0] = (uint64_t)PERF_CONTEXT_USER;
	for (size_t i = 1; i < LONG_NR; i++)
		chain_b[i] = 0x500000 + i * 16;
	if (writer_fdopen(fd, 3, &w) < 0)
		return false;
	recfile_put_header(w, st);
	kb.n = 0;
	kbatch_add(&kb, 0, PERF_RECORD_MISC_USER, chain_a[1], chain_a, 3);
	h = kbatch_finish(&kb);
	writer_add(w, h, h->size);
	b.n = 0;
	sbatch_add(&b, 0, 1000, 7, 7, 250, 0);
	sbatch_add(&b, 0, 1001, 7, 7, 250, 0);
	h = sbatch_finish(&b);
	writer_add(w, h, h->size);
	kbatch_add(&kb, 0, PERF_RECORD_MISC_USER, chain_b[1], chain_b, LONG_NR);
	h = kbatch_finish(&kb);
	writer_add(w, h, h->size);
	sbatch_add(&b, 0, T_LATER, 7, 7, 250, 0);
	sbatch_add(&b, 0, T_LATER + 1, 7, 7, 250, 0);
	h = sbatch_finish(&b);
	writer_add(w, h, h->size);
	return writer_close(w) == 0;
}

/* Read PATH with the Nth allocation after opening failing (-1: none). How many later samples
 * came with B's chain, with none, and with A's (wrong); the earlier samples with A or none. */
struct tally {
	int later_b, later_none, later_a, earlier_bad;
};

static void read_failing(const char *path, uint64_t st, long n, struct tally *t)
{
	struct reader *r;
	char why[256];
	const struct perf_event_header *h;

	if (reader_open(path, &r, why, sizeof(why)) < 0)
		return;
	failalloc_arm(n, false);
	while ((h = reader_next(r))) {
		struct perfrec_sample s;

		if (h->type != PERF_RECORD_SAMPLE || perfrec_parse_sample(h, st, &s) < 0)
			continue;
		bool is_a = s.nr == 3 && memcmp(s.ips, chain_a, sizeof(chain_a)) == 0;
		bool is_b = s.nr == LONG_NR && memcmp(s.ips, chain_b, sizeof(chain_b)) == 0;

		if (s.id.time < T_LATER) {
			t->earlier_bad += !is_a && s.nr != 0;
		} else {
			t->later_a += is_a;
			t->later_b += is_b;
			t->later_none += s.nr == 0;
		}
	}
	failalloc_disarm();
	reader_free(r);
}

int main(void)
{
	char path[] = "/tmp/rp-test-reader-oom.XXXXXX";
	int fd = mkstemp(path);
	uint64_t st = RP_COMPACT_SAMPLE_TYPE | PERF_SAMPLE_CALLCHAIN;
	struct tally all = { 0 };
	long total;

#ifdef FAILALLOC_NONE
	return failalloc_skip("test-reader-oom");
#endif
	if (!CHECK(fd >= 0) || !CHECK(write_recording(fd, st)))
		return check_done("test-reader-oom");
	test_ctx = "no allocation failing";
	{
		struct tally t = { 0 };
		long before = failalloc_count;

		read_failing(path, st, -1, &t);
		total = failalloc_count - before;
		CHECK_INT(t.later_b, 2);
		CHECK_INT(t.earlier_bad, 0);
	}
	test_ctx = "each allocation failing once";
	for (long n = 0; n < total + 2; n++)
		read_failing(path, st, n, &all);
	/* Some failure hit B's definition (its samples then have no chain); none gave them A's. */
	CHECK(all.later_none > 0,
	      "no failure left the later samples without a chain (%ld allocations)", total);
	CHECK_INT(all.later_a, 0);
	CHECK_INT(all.earlier_bad, 0);
	unlink(path);
	return check_done("test-reader-oom");
}
