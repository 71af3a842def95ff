/* order.h — the reader's ordering window: records of the frames read so far, handed out in
 * time order across CPUs once no later frame can hold an older one. */
#ifndef RP_ORDER_H
#define RP_ORDER_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct perf_event_header;
struct reader_stats;

/* A pending record: its time, its arrival number (for a stable order), where it is and,
 * for a sample rebuilt from a compact one, its stack and event index. */
struct order_entry {
	uint64_t time;
	uint64_t seq;
	size_t off;
	uint32_t stack;
	uint32_t event;
};

struct order_arena {
	unsigned char *buf; /* 8-byte aligned */
	size_t len, cap;
};

/* Embedded in the reader, zeroed to start; order_done() releases it. */
struct order {
	struct order_arena arenas[2];
	int cur; /* arena holding the pending records */
	struct order_entry *ents;
	size_t n_ents, cap_ents;
	struct order_entry *tmp; /* for the merge sort */
	size_t cap_tmp;
	size_t *runs; /* run starts, for the merge sort */
	size_t cap_runs;
	size_t emit_pos, emit_end;
	uint64_t next_seq;
	uint64_t last_time;
	struct reader_stats *st; /* borrowed: records, late */
};

void order_done(struct order *o);

/*
 * What the window may hold before the reader lets its records out without waiting for the
 * end of the frame: the pending arena and, per record, its entry and the merge sort's copy
 * and run start. A packed sample costs about 120 bytes here whatever its callchain (the
 * reader rebuilds the chain only when it hands the sample out), so the budget holds some
 * 2 million samples. The window holds what the recording's safe time has not let out yet,
 * which under load spans several frames: record -a -F 100000 on the slow ASan recorder under
 * CI's load filled 64 MiB twice. Only crafted frames (64 MiB of two-byte samples decompressed
 * from a few KiB) reach this; their records then come out in parts, in time order within
 * each part.
 */
#define ORDER_BUDGET (256u << 20)
#define ORDER_ENTRY_COST (2 * sizeof(struct order_entry) + sizeof(size_t))

static inline bool order_full(const struct order *o)
{
	return o->arenas[o->cur].len + o->n_ents * ORDER_ENTRY_COST > ORDER_BUDGET;
}

/* The slow paths of the two below: 0 or -ENOMEM. */
int order_grow_arena(struct order_arena *a, size_t n);
int order_grow_entries(struct order *o);

/* Room for a record of size bytes at the end of the pending arena (8-byte aligned), valid
 * until the next order call; NULL when out of memory. Inline: called once per record. */
static inline void *order_reserve(struct order *o, size_t size)
{
	struct order_arena *a = &o->arenas[o->cur];

	if (a->len + size > a->cap && order_grow_arena(a, size) < 0)
		return NULL;
	return a->buf + a->len;
}

/* Make the size bytes just reserved a pending record with this time, stack and event index.
 * 0 or -ENOMEM. */
static inline int order_commit(struct order *o, uint64_t time, size_t size, uint32_t stack,
			       uint32_t event)
{
	struct order_arena *a = &o->arenas[o->cur];

	if (o->n_ents == o->cap_ents && order_grow_entries(o) < 0)
		return -ENOMEM;
	o->ents[o->n_ents++] = (struct order_entry){ time, o->next_seq++, a->len, stack, event };
	a->len += size;
	return 0;
}

/* Sort what is pending and let out every record older than bound (UINT64_MAX: all). */
void order_seal(struct order *o, uint64_t bound);
/* The next record let out, with its stack in *ret_stack and event index in *ret_event; NULL
 * when none is left. Valid until the next order_carry(). */
const struct perf_event_header *order_next(struct order *o, uint32_t *ret_stack,
					   uint32_t *ret_event);
/* Whether every pending record has been let out. */
static inline int order_drained(const struct order *o)
{
	return o->emit_end >= o->n_ents;
}
/* Drop the records handed out and carry the rest into the other arena, before more come. */
void order_carry(struct order *o);

#endif
