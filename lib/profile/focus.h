/* focus.h — which stacks count by the symbols in them: perf's -S and pprof's --focus/--ignore. */
#ifndef RP_FOCUS_H
#define RP_FOCUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symstacks;

/* The text filters match symbol id SYM of CTX by (a session's: session_sym_text()). */
typedef const char *(*focus_text_fn)(const void *ctx, uint32_t sym);

/*
 * The filters of one run. A sample is kept when its leaf symbol (the innermost frame, the
 * sample's own symbol: with inline frames, the innermost inlined function) is one of the
 * -S names, when it has a frame whose name matches --focus, and when none matches
 * --ignore; a filter not given keeps every sample. Names are matched as the report shows
 * them (demangled unless asked not to); an unknown frame by its "[unknown] OBJECT+0xOFF"
 * label. Strings given are copied. Not thread-safe: matches are cached per symbol id of the
 * CTX last used with (a filter used with another one starts its cache afresh).
 */
struct focus;

struct focus *focus_new(void);
struct focus *focus_free(struct focus *f);

/* -S NAME[,NAME...]: more names; 0, -EINVAL (an empty name) or -ENOMEM. */
int focus_add_symbols(struct focus *f, const char *list);
/* --symbol-filter SUBSTR for the outputs without entries (script, pprof): the leaf symbol's
 * name must contain SUBSTR. 0 or -ENOMEM. */
int focus_set_leaf_substr(struct focus *f, const char *substr);
/* --focus and --ignore: a POSIX extended regular expression, unanchored (as pprof's). 0, or
 * -EINVAL with regerror's sentence in why. */
int focus_set_focus(struct focus *f, const char *regex, char *why, size_t why_size);
int focus_set_ignore(struct focus *f, const char *regex, char *why, size_t why_size);

/* Whether any filter is set. */
bool focus_active(const struct focus *f);
/* The filters as given, "-S hot_leaf, --focus 'x'", into buf (empty when none). */
void focus_describe(const struct focus *f, char *buf, size_t size);

/* Whether the stack of N symbol ids of CTX (read by TEXT), leaf first, is kept: SYMS is the
 * first, the next one STRIDE bytes further (sizeof(uint32_t) for an array of ids; the sym
 * field of an array of structs works too). */
bool focus_keep(struct focus *f, focus_text_fn text, const void *ctx, const uint32_t *syms,
		uint32_t n, size_t stride);
/* The same for a stack of N aggregate location ids LOCS, leaf first (outputs that keep
 * addresses: pprof, annotate): their symbols from SS (symstacks_loc(), inline frames as
 * symbolized) are gathered in *buf, grown as needed (the caller frees it); out of memory keeps
 * nothing. */
bool focus_keep_locs(struct focus *f, focus_text_fn text, const void *ctx,
		     const struct symstacks *ss, const uint32_t *locs, uint32_t n, uint32_t **buf,
		     size_t *cap);

#endif
