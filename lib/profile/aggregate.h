/* aggregate.h — samples counted by (location stack, task, CPU, time bucket) while replaying,
 * rows after. */
#ifndef RP_AGGREGATE_H
#define RP_AGGREGATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dsotab;
struct session_row;
struct session_totals;
struct symstacks;

/*
 * One per report run. While replaying, samples are counted per unique (location stack,
 * task, CPU), a location being a (dso id, address or file offset) pair: nothing is
 * symbolized yet. Once every location is symbolized, aggregate_build_rows() turns the counts
 * into rows by symbol stack. Everything handed out is owned by the aggregate and valid until
 * aggregate_free().
 */
struct aggregate;

struct aggregate *aggregate_new(void);
struct aggregate *aggregate_free(struct aggregate *a);

/* Each returns the id, adding it when new, or -ENOMEM. */
/* A location: DSO (a dsotab id) and an address (kernel, JIT) or file offset in it. */
int64_t aggregate_add_loc(struct aggregate *a, uint32_t dso, uint64_t addr);
/* N location ids, leaf first. */
int64_t aggregate_add_stack(struct aggregate *a, const uint32_t *locs, uint32_t n);
/* A thread with the name COMM in UNIT (ids in the process model's comms and units). */
int64_t aggregate_add_task(struct aggregate *a, int32_t pid, int32_t tid, uint32_t comm,
			   uint32_t unit);
/* Count one sample of PERIOD in time BUCKET (session_opts.bucket_ns; 0 without): 0 or
 * -ENOMEM (the sample is not counted). */
int aggregate_add_sample(struct aggregate *a, uint32_t stack, uint32_t task, uint32_t cpu,
			 uint32_t bucket, uint64_t period);

/* Location stack ID (an aggregate_add_stack() id): *ret_n location ids, leaf first. */
const uint32_t *aggregate_stack(const struct aggregate *a, uint32_t id, uint32_t *ret_n);

/* The locations, ids 0 .. aggregate_n_locs() - 1. */
uint32_t aggregate_n_locs(const struct aggregate *a);
void aggregate_loc(const struct aggregate *a, uint32_t id, uint32_t *ret_dso, uint64_t *ret_addr);

/*
 * After every location has been added to SS in id order: one row per (symbol stack, task,
 * CPU), adding the frame counts to T. Call once. 0 or -ENOMEM.
 */
int aggregate_build_rows(struct aggregate *a, struct symstacks *ss, struct session_totals *t);
/* Keep the rows whose leaf frame is in one of the N objects named (see dsotab_matches());
 * T's samples, period and frame counts become those of the rows kept. */
void aggregate_keep_dsos(struct aggregate *a, const struct symstacks *ss, const struct dsotab *d,
			 const char *const *names, size_t n, struct session_totals *t);
/* Keep the rows whose symbol stack KEEP(ARG, stack, length) keeps (leaf first); T's samples,
 * period and frame counts become those of the rows kept. */
void aggregate_keep_rows(struct aggregate *a, const struct symstacks *ss,
			 bool (*keep)(void *arg, const uint32_t *syms, uint32_t n), void *arg,
			 struct session_totals *t);
const struct session_row *aggregate_rows(const struct aggregate *a, size_t *ret_n);

/* A count by location stack, as kept while replaying (before rows merge the stacks that
 * symbolize alike): for outputs that keep addresses (pprof). */
struct aggregate_count {
	uint32_t stack; /* an aggregate_stack() id */
	uint32_t comm;	/* id in the process model's comms */
	uint32_t unit;	/* id in the process model's units */
	int32_t pid, tid;
	uint32_t cpu;
	uint32_t bucket; /* time bucket (session_opts.bucket_ns), 0 without */
	uint64_t count, period;
};
/* How many counts there are; aggregate_count() gives number I (< that) into *ret. */
size_t aggregate_n_counts(const struct aggregate *a);
void aggregate_count(const struct aggregate *a, size_t i, struct aggregate_count *ret);

#endif
