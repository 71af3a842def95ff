/* diff.h — two profiles side by side: entries and folded stacks matched by name, never by
 * address (ASLR and rebuilds move addresses; names stay). */
#ifndef RP_DIFF_H
#define RP_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/print.h"

struct session;

enum { DIFF_BASE, DIFF_NEW, DIFF_SIDES };

/*
 * One per diff run. Each side's session adds its weights; entries met on one side only have
 * a weight of 0 on the other. Strings handed out are owned by the diff and valid until
 * diff_free().
 */
struct diff;

struct diff *diff_new(void);
struct diff *diff_free(struct diff *d);

/*
 * The weights of SIDE's session S by the N_KEYS sort keys, each key as its text: comm name,
 * number, object name, symbol as "[k] name" or "[.] name". Self: the sample period of each
 * row's leaf frame; with CHILDREN, the period of every row whose stack holds the entry (once
 * per row), as report's Children column: off-CPU stacks all end in [off-cpu], so the function
 * that waited has time only there. 0 or -ENOMEM.
 */
int diff_add_entries(struct diff *d, int side, const struct session *s, const enum print_key *keys,
		     size_t n_keys, bool children);
/* SIDE's folded stacks ("comm;outer;...;inner", as print_folded() writes them) with their
 * sample counts (microseconds with time weights). 0 or -ENOMEM. */
int diff_add_folded(struct diff *d, int side, const struct session *s);

struct diff_entry {
	/* By print_key, NULL for keys not used; of a folded stack, field[0] is its line. */
	const char *field[PRINT_N_KEYS];
	uint64_t w[DIFF_SIDES];
};

/*
 * The entries (or folded stacks) added. diff_sort() orders them by the absolute change of their
 * share of each side's total (TOTAL[side], 0 taken as 1), largest first, then by name; without
 * it they come in order of first appearance.
 */
const struct diff_entry *diff_entries(const struct diff *d, size_t *ret_n);
void diff_sort(struct diff *d, const uint64_t total[DIFF_SIDES]);
/*
 * Each side's weights summed into TOTAL; with SCALE, and when both totals are non-zero and
 * differ, every baseline weight becomes floor(w * TOTAL[NEW] / TOTAL[BASE]), as FlameGraph's
 * difffolded.pl -n does (so the widths of a differential flame graph compare shares, not
 * volumes). TOTAL keeps the totals before scaling. True when weights were scaled.
 */
bool diff_normalize(struct diff *d, uint64_t total[DIFF_SIDES], bool scale);

#endif
