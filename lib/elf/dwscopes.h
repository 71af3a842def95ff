/* dwscopes.h — where inlined code is, by address: an index of a compile unit's functions and
 * inline expansions, built once per unit, for the inline chain of many addresses.
 *
 * libdw's dwarf_getscopes() walks the unit's DIE tree from its root for every address, and
 * dwarf_getscopes_die() again for the parents: for a unit as large as CPython's ceval.c that
 * is thousands of DIEs an address. The index walks each unit once, keeps the
 * DW_TAG_subprogram and DW_TAG_inlined_subroutine DIEs that have code (their address ranges,
 * their nearest such ancestor, where their subtree ends), and finds an address's chain by
 * descending through the entries that contain it. DWARF is input: the walk is bounded in
 * depth, and in entries per module; past the bound a unit is not indexed and the caller
 * falls back to libdw's walk. */
#ifndef RP_DWSCOPES_H
#define RP_DWSCOPES_H

#include <elfutils/libdw.h>

struct dwscopes;

struct dwscopes *dwscopes_new(void);
void dwscopes_free(struct dwscopes *x);

/* The DW_TAG_inlined_subroutine and DW_TAG_subprogram DIEs whose code holds PC (an address
 * of the unit's DWARF, as dwarf_getscopes() takes it) in unit CUDIE: the innermost first, then
 * each one's physical parent, up to max into out. How many (0: no function there), or -1 when
 * the unit cannot be indexed (too large, or out of memory): ask libdw then. */
int dwscopes_chain(struct dwscopes *x, Dwarf_Die *cudie, Dwarf_Addr pc, Dwarf_Die *out, int max);

#endif
