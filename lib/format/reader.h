/* reader.h — reads a recording: validates and decompresses frames, skips damaged ones, and
 * hands out records as one time-ordered stream across CPUs. */
#ifndef RP_READER_H
#define RP_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct perf_event_header;
struct rp_header_rec;

struct reader_stats {
	uint64_t frames;	  /* frames read */
	uint64_t frames_bad;	  /* frames skipped: corrupt, truncated or unreadable */
	uint64_t bytes_skipped;	  /* file bytes not used */
	uint64_t records;	  /* records handed out */
	uint64_t records_bad;	  /* records with impossible sizes inside good frames */
	uint64_t late;		  /* records that came after a later one (ordering window missed) */
	uint64_t t_first, t_last; /* time bounds of the frames read */
	bool truncated;		  /* the file ends inside a frame */
	uint64_t stacks;	  /* stack definitions read (format 2) */
	uint64_t samples_packed;  /* samples rebuilt from packed batches (format 2) */
	uint64_t stack_missing;	  /* of those, samples whose stack definition was lost */
};

struct reader;

/*
 * Open a recording. On failure returns -errno and writes a sentence for the user into why:
 * -ENODATA empty file, -EISDIR a directory, -EPROTO not a ringprof recording (perf.data,
 * zstd or other files are named), -EPROTONOSUPPORT a newer major format version.
 */
int reader_open(const char *path, struct reader **ret, char *why, size_t why_size);
struct reader *reader_free(struct reader *r);

/* Called once per damaged or skipped part of the file with a sentence saying what and where. */
void reader_set_warn(struct reader *r, void (*warn)(void *arg, const char *msg), void *arg);

/* The header record, or NULL when frame 0 was lost (records are still readable). Valid for
 * the reader's lifetime. Reads the first frame if needed. */
const struct rp_header_rec *reader_header(struct reader *r);
uint64_t reader_sample_type(struct reader *r);
const char *reader_path(const struct reader *r);

/* From now on, hand out no packed samples (nor read their stacks): for a second reader that
 * only wants the side tables of a file. */
void reader_skip_samples(struct reader *r);
/* Only the header and the event descriptions are wanted (reader_header(), reader_n_events(),
 * reader_event_desc(), reader_time_bounds()): as reader_skip_samples(), and of each frame only
 * the head that holds them is decompressed (READER_HEAD bytes: a recorder writes them first
 * in every file). Call before anything is read. */
#define READER_HEAD (64u << 10)
void reader_head_only(struct reader *r);

/* Next record in time order, or NULL at the end. The record is 8-byte aligned and valid
 * until the next reader_next() call. */
const struct perf_event_header *reader_next(struct reader *r);

/* reader_next() without rebuilding a packed sample's callchain into it: such a sample comes
 * as packed (its fields as if the recording's samples had no callchain) and
 * reader_packed_chain() gives its callchain where the reader keeps it. Every other record as
 * reader_next() gives it. */
const struct perf_event_header *reader_next_packed(struct reader *r);
/* For the sample reader_next_packed() returned last: when it came packed against a stack and
 * the recording's samples have callchains, its callchain (*ret_nr words at *ret_ips, valid
 * until the next reader call): true. False when the sample is whole as it is. */
bool reader_packed_chain(const struct reader *r, const uint64_t **ret_ips, uint64_t *ret_nr);

/* For the record reader_next() returned last: when it is a sample rebuilt from a packed
 * batch, a number for its stack (ip, misc and callchain): equal numbers mean equal stacks
 * within this reader. READER_NO_STACK for every other record. */
#define READER_NO_STACK UINT32_MAX
uint32_t reader_stack_id(const struct reader *r);

/* For the record reader_next() returned last: the index of its event (0 .. reader_n_events()
 * - 1) when it is a sample rebuilt from a packed batch of a file with several events; 0 for
 * every other record. */
uint32_t reader_event(const struct reader *r);
/* The events the file describes (format 2.1; 1 for older files and when frame 0 was lost),
 * and the name of event i: the header's for 0, NULL when its description was lost. Reads the
 * first frame if needed; the names are valid for the reader's lifetime. */
uint32_t reader_n_events(struct reader *r);
const char *reader_event_name(struct reader *r, uint32_t i);
/* Event i's name and rate (freq 0: every period-th event), NULL when its description was
 * lost; valid for the reader's lifetime. */
const struct rp_event_desc *reader_event_desc(struct reader *r, uint32_t i);

/* Frames whose records all come after t (CLOCK_MONOTONIC ns) are not read: the stream ends
 * before the first of them. */
void reader_set_until(struct reader *r, uint64_t t);

const struct reader_stats *reader_stats(const struct reader *r);

/* Follow a file its writer still appends to: with follow, reader_next() returns NULL at the
 * last complete frame rather than taking the cut one for damage; reader_more() then reads on
 * from there through what was appended since (the records of a frame in the ordering window
 * are all handed out at each stop: one older than some already handed out counts as late).
 * Following off, the next stop is the file's end, damage and all. */
void reader_follow(struct reader *r, bool follow);
void reader_more(struct reader *r);

/* Time bounds of the whole file from its frame descriptors, without decompressing: the
 * lowest t_lo and the highest t_hi of the intact descriptors. -ENODATA when there is none. */
int reader_time_bounds(const struct reader *r, uint64_t *ret_first, uint64_t *ret_last);

#endif
