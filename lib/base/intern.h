/* intern.h — hash tables that give dense ids: pairs of u64, u32 sequences (stacks), strings. */
#ifndef RP_INTERN_H
#define RP_INTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* (a, b) -> dense id 0..n-1, in order of first insertion. */
struct pairtab;
struct pairtab *pairtab_new(void);
struct pairtab *pairtab_free(struct pairtab *t);
/* The id of (a, b), adding it when absent (*ret_added tells, may be NULL). -ENOMEM or id. */
int64_t pairtab_intern(struct pairtab *t, uint64_t a, uint64_t b, bool *ret_added);
/* The id of (a, b), or -1. */
int64_t pairtab_find(const struct pairtab *t, uint64_t a, uint64_t b);
/* The pair with this id. */
void pairtab_get(const struct pairtab *t, uint32_t id, uint64_t *ret_a, uint64_t *ret_b);
uint32_t pairtab_count(const struct pairtab *t);

/* u32 sequences -> dense ids; the sequences are stored once in an arena. */
struct seqtab;
struct seqtab *seqtab_new(void);
struct seqtab *seqtab_free(struct seqtab *t);
int64_t seqtab_intern(struct seqtab *t, const uint32_t *seq, uint32_t n);
/* Borrowed pointer to sequence id, valid until the next intern. */
const uint32_t *seqtab_get(const struct seqtab *t, uint32_t id, uint32_t *ret_n);
uint32_t seqtab_count(const struct seqtab *t);

/*
 * NUL-terminated strings -> dense ids 0..n-1, in order of first insertion. Each distinct
 * string is copied once into the table, so callers may compare and hash the copies by
 * pointer. Pointers returned by strtab_get()/strtab_add() stay valid until strtab_free():
 * the copies never move.
 */
struct strtab;
struct strtab *strtab_new(void);
struct strtab *strtab_free(struct strtab *t);
/* The id of S (not NULL), adding it when absent. -ENOMEM or id. */
int64_t strtab_intern(struct strtab *t, const char *s);
/* The table's copy of S, adding it when absent; NULL for a NULL S or when out of memory. */
const char *strtab_add(struct strtab *t, const char *s);
/* The string with this id (owned by the table). */
const char *strtab_get(const struct strtab *t, uint32_t id);
uint32_t strtab_count(const struct strtab *t);

#endif
