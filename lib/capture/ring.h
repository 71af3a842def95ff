/* ring.h — reader for one perf_event mmap ring (1 control page + 2^n data pages). */
#ifndef RINGPROF_RING_H
#define RINGPROF_RING_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "format/format.h"

/* Size of ring.bounce: one maximal record (header.size is a u16) fits. */
#define RING_BOUNCE_SIZE (RP_RECORD_MAX + 1)

/*
 * One reader per ring; the struct is not shared between threads. head and tail are the
 * kernel's free-running byte counters (never reduced modulo size); the ring offset of a
 * counter c is c & mask.
 *
 * Ownership: ring_init() borrows the mapping (the caller unmaps it after ring_done());
 * ring_mmap() owns its mapping and ring_done() unmaps it. bounce is always owned.
 */
struct ring {
	struct perf_event_mmap_page *page; /* control page (start of the mapping) */
	unsigned char *data;		   /* page + data_offset */
	uint64_t size, mask;		   /* data_size (power of two), size - 1 */
	uint64_t head;			   /* data_head snapshot taken by ring_read_init() */
	uint64_t tail;			   /* private read position; ring_read_done() publishes */
	unsigned char *bounce;		   /* RING_BOUNCE_SIZE bytes, 8-byte aligned, owned */
	void *map;			   /* set by ring_mmap() only (ring_done() unmaps it) */
	size_t map_len;
	uint64_t n_bad; /* corrupt records or heads; tail resynced to head */
};

/*
 * Attach to an existing mapping of map_len bytes (a real perf mmap or a synthetic ring).
 * Takes data_offset/data_size from the control page; if data_size is 0 (kernels before 4.1)
 * the data area is assumed to be [page_size, map_len). The private tail starts at data_tail.
 * Returns 0, -EINVAL (misaligned map, data area not a power of two >= 8 bytes, or outside
 * the mapping) or -ENOMEM. *r is written only on success.
 */
int ring_init(struct ring *r, void *map, size_t map_len);

/*
 * mmap (1 + n_pages) pages of perf event fd, PROT_READ|PROT_WRITE, MAP_SHARED (writable mode:
 * the kernel never overwrites unread data), then ring_init(). n_pages must be a power of two.
 * The fd stays the caller's. Returns 0, -EINVAL, or the -errno of mmap (EPERM: over the
 * perf_event_mlock_kb / RLIMIT_MEMLOCK limits). *r is written only on success.
 */
int ring_mmap(struct ring *r, int fd, unsigned int n_pages);

/* Free bounce and unmap what ring_mmap() mapped; zeroes *r. Safe on a zeroed struct and twice. */
void ring_done(struct ring *r);

/*
 * Snapshot data_head (acquire) and return the bytes available between tail and that head.
 * A head that is more than size bytes ahead (or behind) is counted in n_bad, the tail is
 * resynced to it, and 0 is returned.
 */
uint64_t ring_read_init(struct ring *r);

/*
 * Next complete record between tail and the head snapshot, or NULL when none is left.
 * The pointer is 8-byte aligned and points into the ring, or into bounce when the record
 * straddles the end of the ring (copied there in two parts). Nothing past the head snapshot
 * is read. Advances the private tail past the record; data_tail is not written.
 * The record stays valid until the next ring_read_event() or ring_read_done().
 * A record whose size is < 8, not a multiple of 8, or larger than what is available is
 * counted in n_bad; the tail then skips to the head snapshot and NULL is returned.
 * Never allocates.
 */
const struct perf_event_header *ring_read_event(struct ring *r);

/*
 * Publish the private tail to data_tail (release): the kernel may now reuse the space of
 * every record returned so far. Call it only after those records have been copied out.
 */
void ring_read_done(struct ring *r);

#endif
