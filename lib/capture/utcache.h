/* utcache.h — unwind tables kept on disk by build-id and digest (ringprofd's state directory), so
 * that a restart does not build them again. Files are checked like the helper's replies before use
 * (utab_check and the build-id); the directory is kept under a size bound, the least
 * recently used tables going first. */
#ifndef RP_UTCACHE_H
#define RP_UTCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "unwind/utab.h"

struct utcache {
	int dfd; /* -1: no cache */
	uint64_t max_bytes;
	uint64_t bytes; /* the tables' size as of the last scan, plus what was stored since */
	uint64_t hits, stores, evicted, refused;
	uint64_t kept; /* stores of a table the cache held already: not written again */
};

/* Use (and create, mode 0700) the directory dir. 0, or -errno with why; *c is then a cache
 * that keeps nothing. */
int utcache_open(struct utcache *c, const char *dir, uint64_t max_bytes, char *why, size_t why_size);
void utcache_done(struct utcache *c);

/* Tables are kept by the build-id a file claims and the digest of what it holds
 * (UWP_DIGEST_LEN bytes, computed by the helper: lib/elf/elfdigest.h), so that a file with a
 * forged build-id never gets, nor leaves for others, another file's table. */
/* The table of the binary with this build-id and digest, checked: a malloc'd buffer (*ret views
 * into it, *ret_size its size), or NULL when the cache has none (or a bad one, or one an older
 * builder wrote (utab_hdr.builder), which is removed and counted as refused). */
void *utcache_load(struct utcache *c, const uint8_t *bid, size_t bid_len, const uint8_t *digest,
		   struct utab *ret, size_t *ret_size);
/* Keep a checked table (a file that holds it already is left as it is, marked used); then trim
 * the directory to max_bytes. Failures are only counted. */
void utcache_store(struct utcache *c, const uint8_t *bid, size_t bid_len, const uint8_t *digest,
		   const void *buf, size_t size);

#endif
