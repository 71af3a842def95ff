/* decoder.c — format 2's decoder: a store of stack definitions, shared by content, and the
 * samples of packed batches rebuilt as PERF_RECORD_SAMPLEs. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "base/grow.h"
#include "base/hash.h"
#include "base/util.h"
#include "format/compact.h"
#include "format/decoder.h"
#include "format/format.h"
#include "format/order.h"
#include "format/perfrec.h"
#include "format/reader.h"

void decoder_done(struct decoder *d)
{
	free(d->stacks);
	free(d->words);
	free(d->ids);
	free(d->dslots);
	*d = (struct decoder){ 0 };
}

/* The slot of stack content (misc, ip, chain) in dslots: holding it, or empty. */
static size_t find_slot(const struct decoder *d, uint64_t h, uint16_t misc, uint64_t ip,
			const unsigned char *chain, uint32_t nr_chain)
{
	for (size_t i = h & (d->n_dslots - 1);; i = (i + 1) & (d->n_dslots - 1)) {
		const struct decoder_stack *st;

		if (!d->dslots[i])
			return i;
		st = &d->stacks[d->dslots[i] - 1];
		if (st->hash == h && st->nr == nr_chain + 1 && st->misc == misc &&
		    d->words[st->off] == ip &&
		    (!nr_chain || memcmp(&d->words[st->off + 1], chain, (size_t)nr_chain * 8) == 0))
			return i;
	}
}

/* Room for one more stack in dslots (at most half full). */
static int dslots_reserve(struct decoder *d)
{
	size_t n = d->n_dslots ? d->n_dslots * 2 : 1024;
	uint32_t *slots;

	if (d->n_stacks + 1 <= d->n_dslots / 2)
		return 0;
	slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	free(d->dslots);
	d->dslots = slots;
	d->n_dslots = n;
	for (uint32_t k = 0; k < d->n_stacks; k++) {
		size_t i = d->stacks[k].hash & (n - 1);

		while (slots[i])
			i = (i + 1) & (n - 1);
		slots[i] = k + 1;
	}
	return 0;
}

/* Remember one stack (ip, then the callchain) under its id; a content already known is
 * shared, so that repeated definitions cost neither memory nor, in the session, lookups. */
static void define_stack(struct decoder *d, const struct kbatch_stack *k, uint64_t seq)
{
	size_t old_ids = d->cap_ids, nr = (size_t)k->nr_chain + 1, slot;
	uint64_t h = hash_stack(k->misc, k->ip, k->chain, k->nr_chain);

	if (d->n_stacks == UINT32_MAX - 1 || dslots_reserve(d) < 0 ||
	    GROW(d->stacks, d->cap_stacks, d->n_stacks + 1) < 0 ||
	    GROW(d->words, d->cap_words, d->n_words + nr) < 0 ||
	    GROW(d->ids, d->cap_ids, (size_t)k->id + 1) < 0) {
		if (d->cap_ids > old_ids)
			memset(d->ids + old_ids, 0, (d->cap_ids - old_ids) * sizeof(*d->ids));
		if (k->id < d->cap_ids)
			d->ids[k->id] = 0; /* not the callchain of the id's older definition */
		util_warnf(d->warn, d->warn_arg,
			   "out of memory for stack %u of frame %llu; its samples will have no callchain",
			   k->id, (unsigned long long)seq);
		return;
	}
	if (d->cap_ids > old_ids)
		memset(d->ids + old_ids, 0, (d->cap_ids - old_ids) * sizeof(*d->ids));
	d->st->stacks++;
	slot = find_slot(d, h, k->misc, k->ip, k->chain, k->nr_chain);
	if (d->dslots[slot]) {
		d->ids[k->id] = d->dslots[slot];
		return;
	}
	d->words[d->n_words] = k->ip;
	memcpy(d->words + d->n_words + 1, k->chain, (size_t)k->nr_chain * 8);
	d->stacks[d->n_stacks] = (struct decoder_stack){ d->n_words, (uint32_t)nr, k->misc, h };
	d->n_words += nr;
	d->ids[k->id] = d->dslots[slot] = ++d->n_stacks;
}

void decoder_take_gen(struct decoder *d, const struct perf_event_header *h)
{
	struct rp_stackgen_rec g;

	if (format_stackgen(h, &g) < 0) {
		d->st->records_bad++;
		return;
	}
	if (g.gen == d->gen)
		return;
	/* A new numbering: its definitions may have been in a frame that was lost, and an id
	 * left over from the old one would give a sample somebody else's callchain. */
	if (d->cap_ids)
		memset(d->ids, 0, d->cap_ids * sizeof(*d->ids));
	d->gen = g.gen;
}

void decoder_take_stacks(struct decoder *d, const struct perf_event_header *h, uint64_t seq)
{
	struct kbatch_reader br;
	struct kbatch_stack k;
	int rc;

	if (kbatch_read_init(&br, h) < 0) {
		d->st->records_bad++;
		util_warnf(d->warn, d->warn_arg,
			   "frame %llu holds a stack batch of impossible size %u; skipped",
			   (unsigned long long)seq, h->size);
		return;
	}
	while ((rc = kbatch_read_next(&br, &k)) > 0)
		define_stack(d, &k, seq);
	if (rc < 0) {
		d->st->records_bad++;
		util_warnf(d->warn, d->warn_arg,
			   "frame %llu holds a malformed stack batch; %u stack definitions from id %u on are lost",
			   (unsigned long long)seq, br.left ? br.left : 1, br.id);
	}
}

void decoder_take_samples(struct decoder *d, const struct perf_event_header *h, uint64_t st,
			  uint64_t seq, struct order *o)
{
	struct sbatch_reader br;
	struct compact_sample cs;
	/* A sample whose stack is known waits in the window without its callchain (the reader
	 * adds it when the sample is handed out, see reader_next): memory in the window is
	 * bounded per sample, not per callchain word. One without stays as it is handed out. */
	uint64_t st_head = st & ~(uint64_t)PERF_SAMPLE_CALLCHAIN;
	size_t size_head = perfrec_sample_size(st_head, 0), size_none = perfrec_sample_size(st, 0);
	uint64_t missing = 0;
	int rc;

	if (!compact_sample_type_ok(st) || sbatch_read_init(&br, h) < 0) {
		d->st->records_bad++;
		util_warnf(d->warn, d->warn_arg,
			   "frame %llu holds packed samples but the recording's sample fields (0x%llx) are unknown; skipped",
			   (unsigned long long)seq, (unsigned long long)st);
		return;
	}
	while ((rc = sbatch_read_next(&br, &cs)) > 0) {
		uint32_t idx = cs.stack < d->cap_ids ? d->ids[cs.stack] : 0;
		const struct decoder_stack *k = idx ? &d->stacks[idx - 1] : NULL;
		struct perfrec_sample s = { { cs.pid, cs.tid, cs.time, br.cpu },
					    k ? d->words[k->off] : 0,
					    cs.period,
					    k ? k->nr - 1 : 0,
					    k ? d->words + k->off + 1 : NULL,
					    k ? k->misc : PERF_RECORD_MISC_USER,
					    0,
					    0 };
		size_t size = k ? size_head : size_none;
		void *p = order_reserve(o, size);

		if (p)
			perfrec_sample_write(p, size, k ? st_head : st, &s);
		if (!p ||
		    order_commit(o, cs.time, size, k ? idx - 1 : READER_NO_STACK, br.event) < 0) {
			util_warnf(d->warn, d->warn_arg,
				   "out of memory; samples of frame %llu skipped",
				   (unsigned long long)seq);
			return;
		}
		if (!k)
			missing++;
	}
	d->st->samples_packed += ((const struct rp_samples_rec *)h)->n - br.left;
	if (rc < 0) {
		d->st->records_bad++;
		util_warnf(d->warn, d->warn_arg,
			   "frame %llu holds a malformed batch of packed samples (CPU %u); %u of its samples are skipped",
			   (unsigned long long)seq, br.cpu, br.left);
	}
	if (missing) {
		/* Once: every batch until the recorder defines its stacks again has some. */
		if (!d->st->stack_missing)
			util_warnf(d->warn, d->warn_arg,
				   "frame %llu: samples refer to stacks whose definitions were lost (damaged frames "
				   "earlier in the file); they are kept without their callchain (--stats counts them)",
				   (unsigned long long)seq);
		d->st->stack_missing += missing;
	}
}

bool decoder_stack_chain(const struct decoder *d, uint32_t stack, const uint64_t **ret_ips,
			 uint64_t *ret_nr)
{
	const struct decoder_stack *k;

	if (stack >= d->n_stacks || !d->stacks[stack].nr)
		return false;
	k = &d->stacks[stack];
	*ret_nr = k->nr - 1;
	*ret_ips = d->words + k->off + 1;
	return true;
}

const struct perf_event_header *decoder_sample_expand(const struct decoder *d,
						      const struct perf_event_header *h,
						      uint32_t stack, uint64_t st, void *buf,
						      uint32_t *cached)
{
	const struct decoder_stack *k;
	struct perf_event_header *out = buf;
	uint64_t nr;

	if (!(st & PERF_SAMPLE_CALLCHAIN) || stack >= d->n_stacks || h->type != PERF_RECORD_SAMPLE)
		return h;
	k = &d->stacks[stack];
	nr = k->nr - 1;
	if (h->size + 8 + nr * 8 > DECODER_SAMPLE_MAX)
		return h; /* cannot happen: stacks have at most RP_STACK_MAX_WORDS words */
	/* The callchain follows the fixed fields: a run of samples of one stack (the common
	 * case, and what crafted files repeat) copies only those. */
	if (*cached != stack) {
		memcpy((unsigned char *)buf + h->size, &nr, 8);
		memcpy((unsigned char *)buf + h->size + 8, d->words + k->off + 1, nr * 8);
		*cached = stack;
	}
	memcpy(buf, h, h->size);
	out->size = (uint16_t)(h->size + 8 + nr * 8);
	return out;
}
