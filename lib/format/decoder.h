/* decoder.h — format 2's decoder: STACKS batches into a stack store, SAMPLES batches back into
 * the PERF_RECORD_SAMPLEs they were, each with a number for its stack. */
#ifndef RP_DECODER_H
#define RP_DECODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/format.h"

struct order;
struct perf_event_header;
struct reader_stats;

/* A stack defined in a STACKS batch; its words (ip, then the callchain) are in the store. */
struct decoder_stack {
	size_t off;
	uint32_t nr;
	uint16_t misc;
	uint64_t hash;
};

/* Embedded in the reader, zeroed to start; decoder_done() releases it. */
struct decoder {
	struct decoder_stack *stacks; /* every distinct definition read, in file order */
	size_t n_stacks, cap_stacks;
	uint64_t *words;
	size_t n_words, cap_words;
	uint32_t *ids; /* the file's stack id -> index into stacks + 1 (0: undefined) */
	size_t cap_ids;
	uint32_t *dslots; /* stacks by content (index + 1; 0 empty): a definition met
			   * again (the recorder repeats them) takes no memory */
	size_t n_dslots;
	uint32_t gen;		 /* the stack numbering ids[] holds (rp_stackgen_rec) */
	struct reader_stats *st; /* borrowed: stacks, samples_packed, stack_missing, records_bad */
	void (*warn)(void *arg, const char *msg);
	void *warn_arg;
};

void decoder_done(struct decoder *d);

/* Take a STACKGEN record: a numbering other than the one held forgets every id (the
 * definitions stay shared by content). */
void decoder_take_gen(struct decoder *d, const struct perf_event_header *h);
/* Take the definitions of a STACKS batch found in frame seq. */
void decoder_take_stacks(struct decoder *d, const struct perf_event_header *h, uint64_t seq);
/* Rebuild the samples of a SAMPLES or EVSAMPLES batch found in frame seq (with their event
 * index), of a recording whose samples have sample_type, as pending records of o (their
 * stack: an index into d->stacks, or READER_NO_STACK when its definition was lost). A sample
 * with a stack is pending without its callchain (as if sample_type had none):
 * decoder_sample_expand() completes it. */
void decoder_take_samples(struct decoder *d, const struct perf_event_header *h,
			  uint64_t sample_type, uint64_t seq, struct order *o);

/* Complete a pending sample h of stack (an index into d->stacks) of a recording whose samples
 * have sample_type: into buf (DECODER_SAMPLE_MAX bytes, 8-byte aligned) with the stack's
 * callchain when sample_type has one. *cached is the stack whose callchain buf holds already
 * (UINT32_MAX: none), updated. Returns the sample to hand out: buf, or h itself. */
#define DECODER_SAMPLE_MAX (RP_RECORD_MAX + 1u)
/* The callchain decoder_sample_expand() would put into a sample of stack (an index into
 * d->stacks): *ret_nr words at *ret_ips, where d keeps them (valid until d takes more
 * stacks): true; false when there is no such stack. */
bool decoder_stack_chain(const struct decoder *d, uint32_t stack, const uint64_t **ret_ips,
			 uint64_t *ret_nr);
const struct perf_event_header *decoder_sample_expand(const struct decoder *d,
						      const struct perf_event_header *h,
						      uint32_t stack, uint64_t sample_type,
						      void *buf, uint32_t *cached);

#endif
