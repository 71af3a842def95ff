/* compact.h — format 2's compact samples: stacks interned once per file, samples packed per
 * CPU into batches of varints (layout in format.h). Used by the recorder to write and by the
 * reader to read them. */
#ifndef RP_COMPACT_H
#define RP_COMPACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format.h"

/* Whether samples of this sample_type can be stored compactly. */
bool compact_sample_type_ok(uint64_t sample_type);

/* ---- the recorder's stack table: fixed memory, no allocation once created ---- */

struct stacktab;

/* A table for at most max_stacks stacks holding max_words words in all. NULL on ENOMEM. */
struct stacktab *stacktab_new(uint32_t max_stacks, size_t max_words);
void stacktab_free(struct stacktab *t);
/* Forget every stack: ids start again from 0. */
void stacktab_reset(struct stacktab *t);
uint32_t stacktab_count(const struct stacktab *t);

/*
 * The id of the stack (misc, ip, chain[0..nr)), defining it when it is new (*added is then
 * true and the caller must write its RP_REC_STACK before any sample that uses it). -1 when
 * the table is full (reset it and retry) or the stack is longer than a record can hold.
 */
int64_t stacktab_intern(struct stacktab *t, uint16_t misc, uint64_t ip, const uint64_t *chain,
			uint64_t nr, bool *added);

/* ---- a batch being packed (one per CPU in the recorder) ---- */

#define SBATCH_MAX 65528u /* largest record size that is a multiple of 8 */

struct sbatch {
	uint32_t n;      /* samples in the batch; 0: empty */
	uint32_t cpu;
	size_t len;      /* bytes used in buf, header included */
	uint64_t t_prev;
	uint32_t pid, tid;
	uint64_t period;
	unsigned char buf[SBATCH_MAX];
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
	const unsigned char *p, *end;
	uint32_t left, cpu;
	uint64_t time;
	uint32_t pid, tid;
	uint64_t period;
	bool have_task;
};

/* 0, or -EINVAL when h is too short to be a batch. */
int sbatch_read_init(struct sbatch_reader *br, const struct perf_event_header *h);
/* 1 and *ret, 0 after the last sample, -EINVAL when the rest of the batch is malformed. */
int sbatch_read_next(struct sbatch_reader *br, struct compact_sample *ret);

#endif
