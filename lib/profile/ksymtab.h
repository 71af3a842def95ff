/* ksymtab.h — kernel symbol table built from a recording's kallsyms snapshot (RP_REC_KSYMS). */
#ifndef RP_KSYMTAB_H
#define RP_KSYMTAB_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * One table per recording. Names and module names live in one arena owned by the table;
 * pointers handed out stay valid until ksymtab_free(). Not thread-safe.
 */
struct ksymtab;

/* An empty table, or NULL when out of memory. */
struct ksymtab *ksymtab_new(void);

/* Frees T and everything it handed out; accepts NULL; returns NULL. */
struct ksymtab *ksymtab_free(struct ksymtab *t);

/*
 * Add the symbols of one RP_REC_KSYMS record of SIZE bytes (the record as read, header
 * included; the header's own size field bounds it too). Every length is checked before
 * use. Entries with address 0 or an empty name are ignored.
 * Returns 0; -EINVAL when the record is damaged (wrong type or size, fewer entries than it
 * claims, an entry without its NUL terminators) — the entries parsed before the damage are
 * kept; -ENOMEM (entries added so far are kept).
 * After adding, call ksymtab_finish() again before ksymtab_find().
 */
int ksymtab_add_record(struct ksymtab *t, const void *rec, size_t size);

/*
 * Sort by address and merge aliases (symbols at the same address: the global one wins over
 * a weak one over a local one, then the name with fewer leading underscores, then the first
 * seen). Call once after all records, before ksymtab_find().
 */
void ksymtab_finish(struct ksymtab *t);

/* Number of distinct symbols (after ksymtab_finish(), aliases merged). */
size_t ksymtab_count(const struct ksymtab *t);

/*
 * The symbol containing ADDR: the last symbol starting at or below ADDR, provided ADDR is
 * below the next symbol's start and less than KSYMTAB_SPAN_MAX past its own start (the
 * snapshot has no sizes; no kernel function is that long, so a gap after the last symbol
 * of an area is not attributed to it), and that symbol was not written only as a bound
 * (RP_KSYM_BOUND: what lies past it may be in a symbol the recording left out). Returns 0 with
 * *ret_name, *ret_module (NULL for the core kernel, else e.g. "ext4") and *ret_off (ADDR - start),
 * or -ENOENT, leaving the out-parameters untouched. Any out-parameter may be NULL. O(log n), no
 * allocation.
 */
#define KSYMTAB_SPAN_MAX (1u << 20)
int ksymtab_find(const struct ksymtab *t, uint64_t addr, const char **ret_name,
		 const char **ret_module, uint64_t *ret_off);

/*
 * As ksymtab_find(), for a frame's lookup address: where ADDR lies in a function's padding
 * (__pfx_NAME) and a symbol starts at ADDR + 1, that symbol, with *ret_off = ADDR - its start
 * (all ones: one byte before it). No call instruction is in padding, so such an ADDR was
 * looked up as a return address - 1 for what was an instruction interrupted at the very start
 * of the function (the first address past an interrupt frame in a kernel chain); shown at the
 * return address (+1), the offset is 0.
 */
int ksymtab_find_frame(const struct ksymtab *t, uint64_t addr, const char **ret_name,
		       const char **ret_module, uint64_t *ret_off);

#endif
