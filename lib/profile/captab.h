/* captab.h — function symbols captured at record time (RP_REC_SYMTAB), by build-id. */
#ifndef RP_CAPTAB_H
#define RP_CAPTAB_H

#include <stddef.h>
#include <stdint.h>

/*
 * One table per report run. Each part of a binary's table is kept once (the first one read:
 * rotated files and several inputs repeat them), as a copy; every entry is checked when the
 * table is asked for. Not thread-safe.
 */
struct captab;

struct captab_sym {
	uint64_t start, size; /* file offsets in the binary; size 0: up to the next start */
	const char *name;     /* as in the symbol table (mangled), owned by the captab */
};

struct captab *captab_new(void);
struct captab *captab_free(struct captab *t);

/* Part PART of N_PARTS of build-id ID's table: N entries in RUN (SIZE bytes, a base/symx.h
 * run with base 0, copied). 0, 1 when that part is already known, -EINVAL (no build-id,
 * part >= n_parts) or -ENOMEM. */
int captab_add(struct captab *t, const uint8_t *id, size_t len, unsigned part, unsigned n_parts,
	       uint32_t n, const void *run, size_t size);

/* Add what DIR/BUILD-ID.sym holds for build-id ID (a file of SYMTAB records that ringprofd
 * keeps beside its recordings, one per build-id; parts of other build-ids in it are ignored).
 * 0, -ENOENT (no such file, or nothing for ID in it), -ENOMEM. */
int captab_load(struct captab *t, const char *dir, const uint8_t *id, size_t len);

/* The symbols of build-id ID, sorted by start: 0 with *ret (malloc'd, the caller frees it; the
 * names stay the captab's) and *ret_n; -ENOENT when none were captured, -ENOMEM. Parts that
 * were not read (a damaged frame) are missing, the others name; entries that do not decode
 * end their part (what came before them is kept). */
int captab_get(const struct captab *t, const uint8_t *id, size_t len, struct captab_sym **ret,
	       size_t *ret_n);

#endif
