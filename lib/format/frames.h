/* frames.h — the frames of a recording file: find each descriptor, check its CRC, decompress
 * its zstd frame, and skip and resynchronise past damage, saying where and what was lost. */
#ifndef RP_FRAMES_H
#define RP_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/format.h"

struct reader_stats;
struct zframe;

/* Embedded in the reader: frames_open() fills it, frames_done() releases it. */
struct frames {
	int fd;	     /* the file, read with pread: never mapped, so that a file cut short
		      * while it is read (its writer after a failed write) ends the reading
		      * with a warning, not with SIGBUS */
	size_t size; /* at open; less once a read found the file shorter */
	size_t off;  /* next unit to look at */
	struct zframe *z;
	unsigned char *raw; /* the frame last decoded, 8-byte aligned */
	size_t raw_cap;
	unsigned char *zbuf; /* the compressed frame being decoded */
	size_t zcap;
	unsigned char *scan; /* a window of the file, to find descriptors in */
	size_t scan_size;
	struct rp_frame_desc desc; /* its descriptor */
	bool have_desc;
	uint64_t until;		 /* frames starting after this are not read */
	bool follow;		 /* the file grows: an incomplete last frame is waited for */
	size_t head;		 /* not 0: only the first HEAD bytes of a frame are decompressed
				  * (its checksum unchecked): frames_set_head() */
	struct reader_stats *st; /* borrowed: the reader's counters */
	void (*warn)(void *arg, const char *msg);
	void *warn_arg;
};

/*
 * Open path and find its first intact descriptor. 0, or -errno with a sentence for the user in
 * why: -ENODATA empty file, -EISDIR a directory, -EPROTO not a ringprof recording (perf.data,
 * zstd or other files are named), -EPROTONOSUPPORT a newer major format version. *f must be
 * zeroed; frames_done() it in both cases.
 */
int frames_open(struct frames *f, const char *path, char *why, size_t why_size);
void frames_done(struct frames *f);

/* Decode the next good frame into f->raw (its descriptor in f->desc) and return its size; 0 at
 * the end of the file or of the time window. Damage is skipped with a warning. */
size_t frames_next(struct frames *f);

/* The file grows (its writer appends frames): with follow, a frame that the end of the file
 * cuts is not damage but not written yet, and frames_next() stops before it; frames_grow()
 * then takes in what was appended since (the file's size again). Whether it grew. */
void frames_set_follow(struct frames *f, bool follow);
bool frames_grow(struct frames *f);

/* Only the first HEAD bytes of each frame are wanted (0: whole frames): frames_next() gives
 * those, decompressing no more (a frame's records then end cut). */
void frames_set_head(struct frames *f, size_t head);

/* The lowest t_lo and highest t_hi of the intact descriptors, without decompressing.
 * -ENODATA when there is none. */
int frames_time_bounds(const struct frames *f, uint64_t *ret_first, uint64_t *ret_last);

#endif
