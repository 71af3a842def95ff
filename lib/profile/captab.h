/* captab.h — function symbols captured at record time (RP_REC_SYMTAB, RP_REC_SYMTAB_D), by
 * build-id and the digest of what the file held (NULL: not known, a recording from before
 * format 2.4): a file that copied another's build-id note has another digest, and its
 * symbols never name that binary. */
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
int captab_add(struct captab *t, const uint8_t *id, size_t len, const uint8_t *digest,
	       unsigned part, unsigned n_parts, uint32_t n, const void *run, size_t size);

/* Add what DIR/BUILD-ID-DIGEST.sym (else DIR/BUILD-ID.sym, kept before format 2.4) holds for
 * (ID, DIGEST) (a file of symbol records that ringprofd keeps beside its recordings, one per
 * table; parts of other tables in it are ignored). 0, -ENOENT (no such file, or nothing for
 * it in it), -ENOMEM. */
int captab_load(struct captab *t, const char *dir, const uint8_t *id, size_t len,
		const uint8_t *digest);

/* The symbols of (ID, DIGEST) (with a digest, else those captured before format 2.4 by the
 * build-id alone), sorted by start: 0 with *ret (malloc'd, the caller frees it; the
 * names stay the captab's) and *ret_n; -ENOENT when none were captured, -ENOMEM. Parts that
 * were not read (a damaged frame) are missing, the others name; entries that do not decode
 * end their part (what came before them is kept). */
int captab_get(const struct captab *t, const uint8_t *id, size_t len, const uint8_t *digest,
	       struct captab_sym **ret, size_t *ret_n);

#endif
