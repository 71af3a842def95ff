/* compact.h — format 2's batch codecs (layouts in format.h): STACKS batches define stacks,
 * SAMPLES batches pack one CPU's samples into varint columns. The encoder writes them, the
 * decoder reads them. */
#ifndef RP_COMPACT_H
#define RP_COMPACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/format.h"

/* Whether samples of this sample_type can be stored compactly. */
bool compact_sample_type_ok(uint64_t sample_type);

/* ---- stack definitions being packed (RP_REC_STACKS) ---- */

struct kbatch {
	uint32_t n; /* stacks in the batch; 0: empty */
	uint32_t first_id;
	size_t len;
	unsigned char buf[RP_RECORD_MAX8];
};

/* Add the definition of stack id. False when it does not fit or does not follow the last
 * id: write the batch out with kbatch_finish() and add it again, which then succeeds. */
bool kbatch_add(struct kbatch *b, uint32_t id, uint16_t misc, uint64_t ip, const uint64_t *chain,
		uint64_t nr);
const struct perf_event_header *kbatch_finish(struct kbatch *b);

struct kbatch_reader {
	const unsigned char *p, *end;
	uint32_t left, id;
};

/* A definition read back: the stack is ip followed by chain[0..nr_chain) (unaligned). */
struct kbatch_stack {
	uint32_t id;
	uint16_t misc;
	uint64_t ip;
	const unsigned char *chain;
	uint32_t nr_chain;
};

int kbatch_read_init(struct kbatch_reader *br, const struct perf_event_header *h);
/* 1 and *ret, 0 after the last one, -EINVAL when the rest of the batch is malformed. */
int kbatch_read_next(struct kbatch_reader *br, struct kbatch_stack *ret);

/* ---- a batch being packed (one per CPU in the recorder) ---- */

#define SBATCH_MAX RP_RECORD_MAX8
#define SBATCH_MRU 8 /* recent tasks a batch refers to by position */

struct sbatch {
	uint32_t n; /* samples in the batch; 0: empty */
	uint32_t cpu;
	uint32_t event; /* set by the owner: 0 is sealed as RP_REC_SAMPLES, others as
			 * RP_REC_EVSAMPLES */
	uint64_t t_first, t_prev;
	uint32_t pid, tid;
	uint64_t period;
	uint64_t mru[SBATCH_MRU];
	uint32_t n_mru;
	size_t len[4];
	unsigned char col[4][SBATCH_MAX]; /* time, key, task and period columns */
	unsigned char buf[SBATCH_MAX];	  /* the sealed record */
};

/* Add one sample. False when it does not fit (or belongs to another CPU): write the batch
 * out with sbatch_finish() and add it again to the emptied batch, which always succeeds. */
bool sbatch_add(struct sbatch *b, uint32_t cpu, uint64_t time, uint32_t pid, uint32_t tid,
		uint64_t period, uint32_t stack);
/* Seal the batch as an RP_REC_SAMPLES record and empty it; the record stays in buf until
 * the next sbatch_add. NULL when the batch is empty. */
const struct perf_event_header *sbatch_finish(struct sbatch *b);

/* ---- reading a batch ---- */

struct compact_sample {
	uint64_t time;
	uint32_t pid, tid;
	uint64_t period;
	uint32_t stack;
};

struct sbatch_reader {
	const unsigned char *p[4], *end[4];
	uint32_t left, cpu;
	uint32_t event; /* 0 for RP_REC_SAMPLES */
	uint64_t time;
	uint32_t pid, tid;
	uint64_t period;
	uint64_t mru[SBATCH_MRU];
	uint32_t n_mru;
	bool have_task;
};

/* A SAMPLES or EVSAMPLES batch: 0, or -EINVAL when h is too short to be one. */
int sbatch_read_init(struct sbatch_reader *br, const struct perf_event_header *h);
/* 1 and *ret, 0 after the last sample, -EINVAL when the rest of the batch is malformed. */
int sbatch_read_next(struct sbatch_reader *br, struct compact_sample *ret);

#endif
