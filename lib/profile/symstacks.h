/* symstacks.h — each unique location symbolized once; location stacks become symbol stacks. */
#ifndef RP_SYMSTACKS_H
#define RP_SYMSTACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dsotab;
struct ksymtab;
struct session_sym;
struct symbolizer;

/*
 * One per report run, filled after the last recording. DSOS, SYMZ and KSYMS are borrowed and
 * must outlive it (DSOS gains the kernel modules met). Symbols are interned per (object,
 * name); stacks and symbols handed out are owned by it and valid until symstacks_free().
 */
struct symstacks;

struct symstacks *symstacks_new(struct dsotab *dsos, struct symbolizer *symz,
				const struct ksymtab *ksyms);
struct symstacks *symstacks_free(struct symstacks *ss);

/* Keep symbols apart by source line (session_sym.srcline), the file named by its last
 * component or, FULL_PATH, by the whole path DWARF gives; call before the first location. */
void symstacks_srcline(struct symstacks *ss, bool on, bool full_path);
/* The objects met without DWARF lines (with srcline), dsotab ids, *ret_n of them. */
const uint32_t *symstacks_nolines(const struct symstacks *ss, size_t *ret_n);

/* Symbolize the next location, DSO (a dsotab id) and ADDR; location ids count from 0 in the
 * order they are added. With srcline, LINE false: its symbols are not kept apart by line (its
 * line is not looked up: a frame whose line is never shown). 0 or -ENOMEM. */
int symstacks_add_loc(struct symstacks *ss, uint32_t dso, uint64_t addr, bool line);
/* The symbol stack of N location ids, leaf first (inline frames expanded): its id, or
 * -ENOMEM. *ret_n is its length, *ret_unknown how many of its symbols have no name. */
int64_t symstacks_add_stack(struct symstacks *ss, const uint32_t *locs, uint32_t n, uint32_t *ret_n,
			    uint32_t *ret_unknown);

/* Symbol stack ID, leaf first, *ret_n symbol ids long. */
const uint32_t *symstacks_get(const struct symstacks *ss, uint32_t id, uint32_t *ret_n);
const struct session_sym *symstacks_sym(const struct symstacks *ss, uint32_t id);
/* The symbols of location LOC (an id of symstacks_add_loc()), innermost first, *ret_n long. */
const uint32_t *symstacks_loc(const struct symstacks *ss, uint32_t loc, uint32_t *ret_n);

#endif
