/* debugcache.h — a per-user cache of debug files with their compressed DWARF kept inflated, so
 * that libdw maps them instead of inflating every debug section at each open (libelf). */
#ifndef RP_DEBUGCACHE_H
#define RP_DEBUGCACHE_H

#include <stdbool.h>
#include <stdint.h>

/* The bound on the cache's total size by default (the oldest used entries go first). */
#define DEBUGCACHE_MAX_BYTES (512ULL << 20)
/* Files whose compressed debug sections hold less than this are not worth an entry by
 * default: libdw inflates them in well under a millisecond. */
#define DEBUGCACHE_MIN_COMPRESSED (64U << 10)

/* The bounds of one cache; NULL where one is asked for: the defaults above. */
struct debugcache_bounds {
	uint64_t max_bytes;	 /* the entries' total size */
	uint64_t min_compressed; /* the least compressed DWARF worth an entry */
};

/* This user's cache directory: $XDG_CACHE_HOME/ringprof/debug when XDG_CACHE_HOME is an
 * absolute path, else $HOME/.cache/ringprof/debug. Malloc'd; NULL when neither is set or out of
 * memory (then there is no cache). Not created here. */
char *debugcache_default_dir(void);

/*
 * FD is an ELF file about to be opened for its DWARF (a separate debug file, as a rule). When
 * its .debug_* sections are compressed (SHF_COMPRESSED, zlib or zstd as libelf reads them) and
 * hold at least B->min_compressed bytes, returns a new read-only descriptor (the
 * caller closes it) of a copy in DIR with those sections inflated and everything else as FD
 * holds it: the entry made before for this file, or (with MAKE) made now. Without MAKE a missing
 * entry is -ENOENT: a caller that may need only the file's symbols, not its DWARF, does not pay
 * for writing a copy.
 *
 * An entry's name is the file's build-id and a SHA-256 of its identity (device, inode, size,
 * modification and change times), so a changed or another file never finds it, and a file
 * claiming a build-id it copied finds only its own entry. Before an entry is used: it must be
 * a regular file owned by this user, writable by nobody else, with one link; its ELF header,
 * program and section headers must be FD's (the inflated sections at their inflated sizes,
 * none compressed) and its build-id FD's. Otherwise it is removed and made again. DIR (and its
 * parent, when missing) is made with mode 0700 and must be owned by this user and writable by
 * nobody else. An entry is written to a temporary file in DIR, synced, then renamed into
 * place, so that a crash or a concurrent run never leaves a partial entry under its name.
 * Before one is written, the oldest entries (by last use) are removed until the total with it
 * stays within B->max_bytes; a file whose inflated size is more than a quarter of that is
 * not cached.
 *
 * Returns the descriptor, or -errno when FD itself is to be used: -ENOENT nothing compressed
 * worth caching (or no build-id), -EFBIG too large for the bound, -EPERM DIR not this user's
 * or writable by others, -ENOTSUP a layout not handled (.zdebug sections, extended section
 * numbering), or an error from the file system. FD is not consumed; its offset is unchanged.
 */
int debugcache_open(const char *dir, const struct debugcache_bounds *b, bool make, int fd);

/* Where libdebuginfod keeps the files it fetched (as it picks it: DEBUGINFOD_CACHE_PATH,
 * ~/.debuginfod_client_cache when that exists, $XDG_CACHE_HOME/debuginfod_client,
 * ~/.cache/debuginfod_client): malloc'd, NULL when none can be named or out of memory. */
char *debugcache_fetched_dir(void);

/*
 * The separate debug file of build-id ID (LEN bytes) where libdwfl looks for it first,
 * SYMFS/usr/lib/debug/.build-id/xx/rest.debug (with a SYMFS) then /usr/lib/debug/.build-id/…,
 * else, with FETCHED (debugcache_fetched_dir(), for --debuginfod), FETCHED/ID/debuginfo, a file
 * debuginfod gave before; when its build-id is ID, through debugcache_open(): the descriptor of
 * the inflated copy and *ret_path, the debug file's own name (malloc'd). -errno when there is
 * no such file or it is not to be cached (then libdwfl's own search finds it as before),
 * *ret_path untouched. libdwfl keeps the ELF handle it opened to check a build-id, so a cached
 * copy can only be handed to it before it searches: the find_debuginfo callback asks this
 * first.
 */
int debugcache_find(const char *dir, const struct debugcache_bounds *b, bool make,
		    const char *symfs, const char *fetched, const uint8_t *id, size_t len,
		    char **ret_path);

#endif
