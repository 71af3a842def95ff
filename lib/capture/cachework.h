/* cachework.h — the unwind-table disk cache (utcache.h) used from a worker thread, so that the
 * drain loop never waits for a disk: a table is looked for, or stored, by the worker, and the
 * loop takes the result when it is there. A load that the worker answers within a moment
 * (the common case: the file is in the page cache) is taken at once. */
#ifndef RP_CACHEWORK_H
#define RP_CACHEWORK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/utcache.h"

#define CACHEWORK_JOBS 256 /* loads and stores waiting or done, not taken yet */

struct cachework;

/* A worker over the cache directory DIR (utcache_open()'s arguments): NULL with why when the
 * directory cannot be used or no thread can be started. */
struct cachework *cachework_new(const char *dir, uint64_t max_bytes, char *why, size_t why_size);
/* Stores still waiting are done first (so that the next run finds them); loads are dropped. */
void cachework_free(struct cachework *w);

/* Look for the table of (bid, digest) for the caller's object id, waiting up to wait_ns for
 * the answer: 1 when it is already there (then take it with cachework_take()), 0 when it is
 * on its way, -EAGAIN when too many jobs wait (not asked: look again later). */
int cachework_load(struct cachework *w, uint32_t id, const uint8_t *bid, size_t bid_len,
		   const uint8_t *digest, uint64_t wait_ns);
/* A finished load: 1 with *ret_id and, when the cache had a good table, *ret_buf (malloc'd,
 * the caller's), *ret_tab viewing into it and *ret_size; *ret_buf NULL when it had none. 0
 * when no load is finished. */
int cachework_take(struct cachework *w, uint32_t *ret_id, void **ret_buf, struct utab *ret_tab,
		   size_t *ret_size);
/* Keep a checked table (copied) in the cache; dropped when too many jobs wait. */
void cachework_store(struct cachework *w, const uint8_t *bid, size_t bid_len, const uint8_t *digest,
		     const void *buf, size_t size);

#endif
