/* symfile.h — find the file on this host that holds a recorded binary's symbols (no libelf). */
#ifndef RP_SYMFILE_H
#define RP_SYMFILE_H

#include <stddef.h>
#include <stdint.h>

/* The longest build-id compared; longer recorded ones are cut to this by the caller. */
#define SYMFILE_BUILD_ID_MAX 64

/* A recorded binary as the recording identifies it. Every pointer is borrowed for the call. */
struct symfile_id {
	const char *path; /* as recorded */
	char *const *alt; /* N_ALT other recorded paths of the same build-id */
	int n_alt;
	const uint8_t *build_id; /* BUILD_ID_LEN <= SYMFILE_BUILD_ID_MAX bytes; 0 = none */
	size_t build_id_len;
	uint32_t maj, min; /* the recorded device and inode: without a build-id, a file */
	uint64_t ino;	   /* on that device with another inode was replaced (ino 0: no check) */
};

/* P opened for reading without blocking (a FIFO or device somebody put there is not waited
 * on) and only when it is a regular file: the fd, or -errno (-EINVAL: not a regular file).
 * Every path a recording or a binary names goes through it. */
int symfile_open_regular(const char *p);

/*
 * Open the file to read ID's symbols from, trying in this order: SYMFS + path, then path, for
 * the recorded path, then each alternative path, then (with a build-id, for a path ending in
 * " (deleted)") the path without that suffix; at last, with a build-id, the file of that
 * build-id under SYMFS/usr/lib/debug/.build-id and /usr/lib/debug/.build-id (the binary, then
 * its .debug file). SYMFS is NULL or a directory. A file whose build-id differs from the
 * recorded one is skipped, and so is, without a build-id, a file outside SYMFS on the recorded
 * device whose inode is not the recorded one.
 *
 * Returns the fd (read-only, close-on-exec; the caller closes it) and *ret_file, the name of
 * the file opened (malloc'd, the caller frees it); or -ENOMEM, or another -errno when no file
 * could be used, *ret_file untouched. RET_WARN (WARN_SIZE bytes) always receives a sentence
 * for the user, without newline, or "" when there is nothing to say: on failure why the
 * binary's frames are unknown; on success, when a file of the path was skipped for its
 * build-id, which file is used instead.
 */
int symfile_open(const char *symfs, const struct symfile_id *id, char **ret_file, char *ret_warn,
		 size_t warn_size);

/*
 * Where a separate debug file of recorded PATH lies under SYMFS/usr/lib/debug: in PATH's
 * directory as DEBUGLINK (a .gnu_debuglink name), or PATH + ".debug" when DEBUGLINK is NULL.
 * A malloc'd name, or NULL when out of memory or PATH has no '/'.
 */
char *symfile_debug_path(const char *symfs, const char *path, const char *debuglink);

#endif
