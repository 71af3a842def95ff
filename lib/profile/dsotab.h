/* dsotab.h — the objects code belongs to (kernel, modules, files, JIT, [vdso]), by identity. */
#ifndef RP_DSOTAB_H
#define RP_DSOTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct perfmap;
struct sym_dso;
struct symbolizer;

enum dsotab_kind {
	DSOTAB_KERNEL, /* the kernel and its modules; locations are addresses */
	DSOTAB_FILE,   /* an ELF file; locations are file offsets */
	DSOTAB_JIT,    /* anonymous code of one process; locations are addresses (perf-PID.map) */
	DSOTAB_PSEUDO, /* [vdso] and the like: no file to read; locations are file offsets */
};

/* The kernel's id: every table starts with it. */
#define DSOTAB_KERNEL_ID 0

/*
 * One table per report run. An object is known by its identity (a file's symbolizer handle,
 * a JIT's pid, a module's or pseudo-file's name): asking again for the same identity gives
 * the same id. SYMZ and SYMFS (NULL: none) are borrowed and must outlive the table; the
 * names and perf maps handed out are owned by the table and valid until dsotab_free().
 */
struct dsotab;

struct dsotab *dsotab_new(struct symbolizer *symz, const char *symfs);
struct dsotab *dsotab_free(struct dsotab *t);

/* Each returns the object's id, adding it when new, or -ENOMEM. */
/* What a user-space mapping of PATH maps: anonymous memory is the JIT code of PID, a path
 * that is not absolute a pseudo-file, else the file of that identity (" (deleted)" dropped)
 * under that path: one object per (file, path), named by the path, the file's symbols shared
 * between them (a copy of a binary under another name is its own object). */
int64_t dsotab_add_mapped(struct dsotab *t, const char *path, const uint8_t *bid, size_t bid_len,
			  uint32_t maj, uint32_t min, uint64_t ino, uint64_t gen, int32_t pid);
/* The build-id of the file with inode INO on device MAJ:MIN (an RP_REC_BUILDID record): its
 * mappings without a build-id take it, those met before too (until their file is opened).
 * The latest one given for an inode holds; a mapping whose inode generation (GEN, 0: unknown)
 * differs from it does not take it. DIGEST: what the file held (RP_DIGEST_LEN bytes; NULL:
 * not recorded). 0, -EINVAL (no inode, a bad length) or -ENOMEM. */
int dsotab_learn_build_id(struct dsotab *t, uint32_t maj, uint32_t min, uint64_t ino, uint64_t gen,
			  const uint8_t *id, size_t len, const uint8_t *digest);
/* The anonymous code of process PID, named "[JIT] pid PID". */
int64_t dsotab_add_jit(struct dsotab *t, int32_t pid);
/* Code of process PID in no known mapping: its JIT code when the process has a perf map
 * (SYMFS/tmp/perf-PID.map exists; looked for once per process), else the one object
 * "[unknown]" of every process, whose locations have no symbols (dsotab_unmapped()). */
int64_t dsotab_add_unmapped(struct dsotab *t, int32_t pid);
/* The kernel module MODULE, named "[MODULE]". */
int64_t dsotab_add_module(struct dsotab *t, const char *module);

/* The object that stands for file object ID in a profile: the first one of the same build-id
 * and path. Two inodes may hold one binary (reinstalled or relinked alike, while recording),
 * and their build-ids come after their mappings (RP_REC_BUILDID), so they were made two
 * objects; named and counted as one. Decided on the first call for ID (a build-id learned
 * later does not change it); ID itself for other kinds and files without a build-id. */
uint32_t dsotab_canonical(struct dsotab *t, uint32_t id);

enum dsotab_kind dsotab_kind(const struct dsotab *t, uint32_t id);
/* DSOTAB_FILE: the symbolizer's handle (owned by the symbolizer); else NULL. */
struct sym_dso *dsotab_sym(const struct dsotab *t, uint32_t id);
/* The short name for reports. */
const char *dsotab_name(const struct dsotab *t, uint32_t id);
/* Is NAME the object's short name or (for a file) the path it was mapped from? */
bool dsotab_matches(const struct dsotab *t, uint32_t id, const char *name);
/* Is the object the "[unknown]" of code in no known mapping (dsotab_add_unmapped())? */
bool dsotab_unmapped(const struct dsotab *t, uint32_t id);
/* DSOTAB_JIT: SYMFS/tmp/perf-PID.map, loaded on the first call: 0 with *ret (NULL when there
 * is no usable map), or -ENOMEM. */
int dsotab_perfmap(struct dsotab *t, uint32_t id, const struct perfmap **ret);

/* A code image the recording carries ([vdso]): the object of that name reads it as its file.
 * 0 or -errno. */
int dsotab_add_image(struct dsotab *t, const char *name, const void *image, size_t len);
/* Part of the symbols captured at record time for build-id ID (RP_REC_SYMTAB): files of that
 * build-id that cannot be read on this host are named by them (symbolizer_add_symtab()). */
int dsotab_add_symtab(struct dsotab *t, const uint8_t *id, size_t len, const uint8_t *digest,
		      unsigned part, unsigned n_parts, uint32_t n, const void *run, size_t size);

#endif
