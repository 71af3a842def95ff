/* cachework.h — the recorder's disk work done by a worker thread, so that the drain loop never
 * waits for a disk: the unwind-table cache (utcache.h), where a table is looked for or stored
 * by the worker and the loop takes the result when it is there (a load the worker answers
 * within a moment, the common case, is taken at once); and any other write handed to it
 * (ringprofd's symbol files). One per recorder, owned by the registry (objreg_disk()). */
#ifndef RP_CACHEWORK_H
#define RP_CACHEWORK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/utcache.h"

#define CACHEWORK_JOBS 256 /* loads and stores waiting or done, not taken yet */

struct cachework;

/* A worker, without a table cache until cachework_open_cache(). NULL when out of memory or no
 * thread can be started. */
struct cachework *cachework_new(void);
/* Stores and calls still waiting are done first (so that the next run finds them); loads are
 * dropped. */
void cachework_free(struct cachework *w);
/* Keep tables in DIR (utcache_open()'s arguments), before any load or store: 0, or -errno
 * with why (loads then find nothing and stores keep nothing). */
int cachework_open_cache(struct cachework *w, const char *dir, uint64_t max_bytes, char *why,
			 size_t why_size);
/* Run fn(arg) on the worker, in order with the stores (fn owns arg). 0, or -EAGAIN when too
 * many jobs wait (fn not called: the caller does the work itself or goes without). */
int cachework_call(struct cachework *w, void (*fn)(void *arg), void *arg);
/* Wait up to wait_ns until every store and call handed over so far is done (a retention pass
 * counting the directory must see what they write): true when they are. */
bool cachework_sync(struct cachework *w, uint64_t wait_ns);

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
