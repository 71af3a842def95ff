/* writer.h — writes a recording: records buffered into frames, each closed as one zstd frame. */
#ifndef RP_WRITER_H
#define RP_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct writer_stats {
	uint64_t frames;	  /* frames written */
	uint64_t records;	  /* records written */
	uint64_t raw_bytes;	  /* uncompressed bytes written */
	uint64_t file_bytes;	  /* bytes in the file */
	uint64_t dropped_records; /* records that could not be written */
	uint64_t dropped_bytes;
	uint64_t dropped_frames;
	int last_error; /* -errno of the last failed write, 0 after a good one */
};

struct writer;

/* Create (O_TRUNC) path with mode. level is the zstd level. 0 and *ret, or -errno. */
int writer_open(const char *path, int mode, int level, struct writer **ret);
/* Create a new file at path with mode, without following a link or writing into what is
 * there: a fresh file under a hidden temporary name beside it (O_EXCL), renamed over path at
 * once, so the recording has its name from its first byte (a crash leaves it readable there).
 * What path named before is replaced, never opened: the caller decides whether it may be. */
int writer_create(const char *path, int mode, int level, struct writer **ret);
/* Write to an open fd positioned at offset 0; the fd is consumed on success. */
int writer_fdopen(int fd, int level, struct writer **ret);

/* Space for one record of size bytes (a multiple of 8, at most RP_RECORD_MAX) in the open frame;
 * closes the frame first when it is full. NULL only for an invalid size. The caller fills
 * the space completely before the next writer call. */
void *writer_reserve(struct writer *w, size_t size);
/* Copy one complete record (header included) into the open frame. */
void writer_add(struct writer *w, const void *rec, size_t size);

/* A record that starts every frame opened from now on (size: a multiple of 8, at most
 * WRITER_PROLOGUE_MAX; 0: none), with its time (the u64 after the header) set to the
 * watermark when it is written; it is added to the open frame now too when that holds
 * records. For what a reader must know in every frame, lost ones before it or not. */
#define WRITER_PROLOGUE_MAX 32
void writer_set_prologue(struct writer *w, const void *rec, size_t size);

/* Ordering watermark: every record added from now on has time >= t (CLOCK_MONOTONIC ns).
 * Must not decrease. */
void writer_set_safe_time(struct writer *w, uint64_t t);
/* Nothing added from now on is later than t (the recording stopped): the frames closed from
 * now on end there (their t_hi), not when they close. */
void writer_set_end(struct writer *w, uint64_t t);
/* Clock used for the frames' upper time bound (default CLOCK_MONOTONIC); for tests. */
void writer_set_clock(struct writer *w, uint64_t (*clock)(void));

/* Bytes in the open frame, and whether it is older than interval_ns. */
size_t writer_pending(const struct writer *w);
bool writer_due(const struct writer *w, uint64_t now, uint64_t interval_ns);

/* Close the open frame (no-op when empty): compress and write it. On a write error the
 * file is cut back to its last complete frame, the frame's records are counted as dropped
 * and -errno is returned; the writer stays usable. */
int writer_flush(struct writer *w);
/* writer_flush, then fdatasync. */
int writer_sync(struct writer *w);
/* Flush, fsync and close; frees w (also on error). Returns the first error. */
int writer_close(struct writer *w);
/* The same without the fsync, for files that are only a cache of what can be made again. */
int writer_close_nosync(struct writer *w);

const struct writer_stats *writer_stats(const struct writer *w);

#endif
