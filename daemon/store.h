/* store.h — the recording directory: file names, the active .partial file, recovery, retention. */
#ifndef RP_DAEMON_STORE_H
#define RP_DAEMON_STORE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

struct writer;

struct store {
	char dir[PATH_MAX];
	int dfd; /* the directory, locked against a second daemon */
	uint64_t next_seq;
};

/* Disk policy, in bytes and ns (0 for max_age: no limit). */
struct store_policy {
	uint64_t max_use; /* all recordings together, the active one included */
	uint64_t keep_free;
	uint64_t max_age_ns;
};

struct store_usage {
	uint64_t used;	   /* bytes allocated by every recording in the directory */
	uint64_t n_closed; /* closed recordings */
	uint64_t fs_size;
	uint64_t fs_free; /* available to us */
};

/* Create DIR (mode 0750) when missing, open and lock it. 0 or -errno with a sentence in why. */
int store_open(struct store *s, const char *dir, char *why, size_t why_size);
void store_close(struct store *s);

/* Rename leftover *.data.partial files (a crash) to *.data: every complete frame in them
 * stays readable. Empty ones hold nothing and are removed. Logs what it did; returns the
 * number recovered. */
int store_recover(struct store *s);

/* A new active file, ringprof-YYYYmmddTHHMMSSZ-NNNN.data.partial (UTC now, the next
 * sequence number: format/recdir.h), mode 0640; its name goes to ret_name. 0 or -errno. */
int store_create(struct store *s, int level, struct writer **ret, char *ret_name, size_t name_size);

/* The file NAME (.partial) is closed: rename it to its final name and make the rename
 * durable (fsync of the directory). An empty file is removed instead. 0 or -errno. */
int store_finish(struct store *s, const char *name, uint64_t file_bytes);

/* Delete closed recordings, oldest first, while one is older than max_age_ns, or the
 * recordings use more than max_use, or the file system has less than keep_free available.
 * The active file is never deleted. Returns the number deleted; *ret reports the state after. */
int store_vacuum(struct store *s, const struct store_policy *p, struct store_usage *ret);

/* The symbol tables captured while recording, one file per build-id (lib/capture/bids.h),
 * in this subdirectory of the recordings. */
#define STORE_SYMBOLS "symbols"
/* Delete the tables no recording in the directory uses any more (touched last before the
 * oldest one started), then, while they take more than max_bytes or the file system has
 * less than keep_free available, the least recently used. Returns the number deleted and
 * *ret_used the bytes left (when not NULL), or -errno. */
int store_prune_symbols(struct store *s, uint64_t max_bytes, uint64_t keep_free, uint64_t *ret_used);

/* Size and free space of the file system holding the directory. */
int store_fs(struct store *s, uint64_t *ret_size, uint64_t *ret_free);

#endif
