/* dwscopes.c — see dwscopes.h. */
#include <dwarf.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/grow.h"
#include "base/intern.h"
#include "elf/dwscopes.h"

#define DEPTH_MAX 128		     /* DIE nesting walked */
#define ENTRIES_MAX (1u << 21)	     /* entries of one module's units (~24 B each) */
#define RANGES_MAX (2 * ENTRIES_MAX) /* their address ranges (16 B each) */

struct ent {
	const void *addr; /* the DIE (its unit's Dwarf_CU is the unit's) */
	uint32_t end;	  /* the first entry after its subtree */
	uint32_t parent;  /* the nearest entry above it, UINT32_MAX: none */
	uint32_t r0, nr;  /* its ranges */
};

struct range {
	uint64_t lo, hi;
};

struct unit {
	struct Dwarf_CU *cu;
	uint32_t e0, n; /* its entries: ents[e0 .. e0 + n) */
	bool failed;	/* not indexed: ask libdw */
};

struct dwscopes {
	struct pairtab *by_die; /* unit DIE address -> index in units */
	struct unit *units;
	size_t cap_units;
	struct ent *ents;
	size_t n_ents, cap_ents;
	struct range *ranges;
	size_t n_ranges, cap_ranges;
};

struct dwscopes *dwscopes_new(void)
{
	struct dwscopes *x = calloc(1, sizeof(*x));

	if (x && !(x->by_die = pairtab_new())) {
		free(x);
		return NULL;
	}
	return x;
}

void dwscopes_free(struct dwscopes *x)
{
	if (!x)
		return;
	pairtab_free(x->by_die);
	free(x->units);
	free(x->ents);
	free(x->ranges);
	free(x);
}

/* Entry for DIE if it is a function or inline expansion with code: its index, UINT32_MAX when
 * it is not one, -ENOMEM (also past the bounds). */
static int64_t add_entry(struct dwscopes *x, Dwarf_Die *die, uint32_t parent)
{
	int tag = dwarf_tag(die);
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	size_t r0 = x->n_ranges;

	if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
		return UINT32_MAX;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (lo >= hi)
			continue;
		if (x->n_ranges >= RANGES_MAX || GROW(x->ranges, x->cap_ranges, x->n_ranges + 1) < 0)
			return -ENOMEM;
		x->ranges[x->n_ranges++] = (struct range){ lo, hi };
	}
	if (x->n_ranges == r0)
		return UINT32_MAX; /* no code: a declaration or an abstract instance */
	if (x->n_ents >= ENTRIES_MAX || GROW(x->ents, x->cap_ents, x->n_ents + 1) < 0)
		return -ENOMEM;
	x->ents[x->n_ents] =
	    (struct ent){ die->addr, 0, parent, (uint32_t)r0, (uint32_t)(x->n_ranges - r0) };
	return (int64_t)x->n_ents++;
}

/* Walk unit U's DIE tree once, in preorder, adding its entries. 0 or -ENOMEM. */
static int index_unit(struct dwscopes *x, struct unit *u, Dwarf_Die *cudie)
{
	Dwarf_Die path[DEPTH_MAX], cur, next;
	uint32_t rec[DEPTH_MAX]; /* per depth: the entry there, or the nearest above */
	int64_t self[DEPTH_MAX]; /* per depth: the DIE's own entry, or -1 */
	int depth = 0;

	u->e0 = (uint32_t)x->n_ents;
	if (!dwarf_haschildren(cudie) || dwarf_child(cudie, &cur) != 0)
		return 0;
	for (;;) {
		uint32_t up = depth ? rec[depth - 1] : UINT32_MAX;
		int64_t e = add_entry(x, &cur, up);

		if (e < 0)
			return (int)e;
		self[depth] = e == UINT32_MAX ? -1 : e;
		rec[depth] = e == UINT32_MAX ? up : (uint32_t)e;
		if (depth + 1 < DEPTH_MAX && dwarf_haschildren(&cur) &&
		    dwarf_child(&cur, &next) == 0) {
			path[depth++] = cur;
			cur = next;
			continue;
		}
		/* Close this DIE's subtree, and its parents' while they have no sibling left. */
		for (;;) {
			if (self[depth] >= 0)
				x->ents[self[depth]].end = (uint32_t)x->n_ents;
			if (dwarf_siblingof(&cur, &next) == 0) {
				cur = next;
				break;
			}
			if (depth == 0) {
				u->n = (uint32_t)(x->n_ents - u->e0);
				return 0;
			}
			cur = path[--depth];
		}
	}
}

static bool contains(const struct dwscopes *x, const struct ent *e, Dwarf_Addr pc)
{
	for (uint32_t i = 0; i < e->nr; i++)
		if (x->ranges[e->r0 + i].lo <= pc && pc < x->ranges[e->r0 + i].hi)
			return true;
	return false;
}

/* The unit of CUDIE, indexed when first asked for; NULL without memory. */
static struct unit *unit_of(struct dwscopes *x, Dwarf_Die *cudie)
{
	bool added;
	int64_t id;
	size_t r0 = x->n_ranges;
	struct unit *u;

	/* Room first: an id the table holds always has its unit. */
	if (GROW(x->units, x->cap_units, (size_t)pairtab_count(x->by_die) + 1) < 0)
		return NULL;
	id = pairtab_intern(x->by_die, (uint64_t)(uintptr_t)cudie->addr, 0, &added);
	if (id < 0)
		return NULL;
	u = &x->units[id];
	if (!added)
		return u;
	*u = (struct unit){ cudie->cu, 0, 0, false };
	if (index_unit(x, u, cudie) < 0) {
		/* Drop what it added: later units' entries start where its began. */
		x->n_ents = u->e0;
		x->n_ranges = r0;
		u->n = 0;
		u->failed = true;
	}
	return u;
}

int dwscopes_chain(struct dwscopes *x, Dwarf_Die *cudie, Dwarf_Addr pc, Dwarf_Die *out, int max)
{
	struct unit *u = unit_of(x, cudie);
	uint32_t i, lim, best = UINT32_MAX;
	int n = 0;

	if (!u || u->failed)
		return -1;
	/* Descend: an entry that holds pc narrows the search to its subtree, one that does not
	 * is skipped with its subtree (inner code lies within its function's ranges). */
	for (i = u->e0, lim = u->e0 + u->n; i < lim;) {
		if (contains(x, &x->ents[i], pc)) {
			best = i;
			lim = x->ents[i].end;
			i++;
		} else {
			i = x->ents[i].end > i ? x->ents[i].end : i + 1;
		}
	}
	for (; best != UINT32_MAX && n < max; best = x->ents[best].parent)
		out[n++] = (Dwarf_Die){ .addr = (void *)x->ents[best].addr, .cu = u->cu };
	return n;
}
