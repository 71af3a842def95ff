/* symstacks.c — each unique location symbolized once; location stacks become symbol stacks. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/intern.h"
#include "profile/dsotab.h"
#include "profile/ksymtab.h"
#include "profile/perfmap.h"
#include "profile/session.h"
#include "profile/symbolizer.h"
#include "profile/symstacks.h"

struct symstacks {
	struct dsotab *dsos;	     /* borrowed */
	struct symbolizer *symz;     /* borrowed */
	const struct ksymtab *ksyms; /* borrowed */
	struct pairtab *syms_ids;    /* (dso, name pointer) -> index into name_sym */
	uint32_t *name_sym;	     /* -> sym id */
	size_t cap_name_sym;
	struct pairtab *unk_ids; /* (dso, address) of an unknown frame -> index into unk_sym */
	uint32_t *unk_sym;	 /* -> sym id */
	size_t cap_unk_sym;
	struct strtab *labels; /* unknown frames' session_sym.label */
	struct session_sym *syms;
	size_t n_syms, cap_syms;
	/* The symbols of location l are loc_syms[loc_first[l] .. loc_first[l + 1]). */
	uint32_t *loc_first;
	size_t n_locs, cap_loc_first;
	uint32_t *loc_syms;
	uint32_t n_loc_syms;
	size_t cap_loc_syms;
	/* srcline: (symbol without line, srcline pointer) -> index into line_sym -> sym id;
	 * (srcline pointer, 0) -> index into rep_sym -> the first sym id with it. */
	bool srcline;
	bool full_path; /* srcline: the file's whole path, not its last component */
	struct pairtab *line_ids, *rep_ids;
	uint32_t *line_sym, *rep_sym;
	size_t cap_line_sym, cap_rep_sym;
	struct pairtab *nolines_seen; /* (dso, 0) of the objects in nolines */
	uint32_t *nolines;
	size_t n_nolines, cap_nolines;
	struct seqtab *stacks; /* symbol ids, leaf first */
	uint32_t *buf;	       /* the stack being built */
	size_t cap_buf;
};

struct symstacks *symstacks_new(struct dsotab *dsos, struct symbolizer *symz,
				const struct ksymtab *ksyms)
{
	struct symstacks *ss = calloc(1, sizeof(*ss));

	if (!ss)
		return NULL;
	ss->dsos = dsos;
	ss->symz = symz;
	ss->ksyms = ksyms;
	ss->syms_ids = pairtab_new();
	ss->unk_ids = pairtab_new();
	ss->labels = strtab_new();
	ss->stacks = seqtab_new();
	ss->line_ids = pairtab_new();
	ss->rep_ids = pairtab_new();
	ss->nolines_seen = pairtab_new();
	if (!ss->syms_ids || !ss->unk_ids || !ss->labels || !ss->stacks || !ss->line_ids ||
	    !ss->rep_ids || !ss->nolines_seen || GROW(ss->loc_first, ss->cap_loc_first, 1) < 0)
		return symstacks_free(ss);
	ss->loc_first[0] = 0;
	return ss;
}

struct symstacks *symstacks_free(struct symstacks *ss)
{
	if (!ss)
		return NULL;
	pairtab_free(ss->syms_ids);
	pairtab_free(ss->unk_ids);
	free(ss->name_sym);
	free(ss->unk_sym);
	strtab_free(ss->labels);
	seqtab_free(ss->stacks);
	pairtab_free(ss->line_ids);
	pairtab_free(ss->rep_ids);
	pairtab_free(ss->nolines_seen);
	free(ss->line_sym);
	free(ss->rep_sym);
	free(ss->nolines);
	free(ss->syms);
	free(ss->loc_first);
	free(ss->loc_syms);
	free(ss->buf);
	free(ss);
	return NULL;
}

/* A new symbol; its id, or -ENOMEM. */
static int64_t add_sym(struct symstacks *ss, struct session_sym sym)
{
	if (GROW(ss->syms, ss->cap_syms, ss->n_syms + 1) < 0)
		return -ENOMEM;
	if (sym.flat == UINT32_MAX)
		sym.flat = (uint32_t)ss->n_syms;
	ss->syms[ss->n_syms] = sym;
	return (int64_t)ss->n_syms++;
}

/* The symbol of key (A, B) in table T, whose n-th key is symbol (*map)[n]: found, or made by
 * add_sym(SYM). -ENOMEM. */
static int64_t keyed_sym(struct symstacks *ss, struct pairtab *t, uint32_t **map, size_t *cap,
			 uint64_t a, uint64_t b, struct session_sym sym)
{
	bool added;
	int64_t k = pairtab_find(t, a, b), id;

	if (k >= 0)
		return (*map)[k];
	/* Room first: a key in T always has its symbol. */
	id = add_sym(ss, sym);
	if (id < 0)
		return id;
	k = pairtab_intern(t, a, b, &added);
	if (k < 0 || GROW(*map, *cap, (size_t)k + 1) < 0)
		return -ENOMEM;
	(*map)[k] = (uint32_t)id;
	return id;
}

/*
 * The id of the symbol at ADDR in DSO named NAME, adding it when new. A NULL NAME is an
 * unknown frame of its own for (DSO, ADDR), labelled with the object and the file offset (or
 * the address where DSO has no file), flat under DSO's one "[unknown]". -ENOMEM.
 */
static int64_t intern_sym(struct symstacks *ss, uint32_t dso, uint64_t addr, const char *name,
			  bool kernel)
{
	struct session_sym sym = { name, dso, kernel, NULL, UINT32_MAX, NULL, 0 };
	enum dsotab_kind kind = dsotab_kind(ss->dsos, dso);
	int64_t flat, id;
	char text[300];

	flat = keyed_sym(ss, ss->syms_ids, &ss->name_sym, &ss->cap_name_sym, dso, (uintptr_t)name,
			 sym);
	if (name || flat < 0)
		return flat;
	id = pairtab_find(ss->unk_ids, dso, addr);
	if (id >= 0)
		return ss->unk_sym[id];
	if (kind == DSOTAB_FILE || (kind == DSOTAB_PSEUDO && !dsotab_unmapped(ss->dsos, dso)))
		snprintf(text, sizeof(text), "[unknown] %.200s+0x%" PRIx64,
			 dsotab_name(ss->dsos, dso), addr);
	else
		snprintf(text, sizeof(text), "[unknown] 0x%" PRIx64, addr);
	sym.label = strtab_add(ss->labels, text);
	sym.flat = (uint32_t)flat;
	if (!sym.label)
		return -ENOMEM;
	return keyed_sym(ss, ss->unk_ids, &ss->unk_sym, &ss->cap_unk_sym, dso, addr, sym);
}

/* A kernel address: its symbol, in its module when it is in one. */
static int64_t symbolize_kernel(struct symstacks *ss, uint32_t dso, uint64_t addr)
{
	const char *name = NULL, *module = NULL;
	uint64_t off;

	if (ksymtab_find_frame(ss->ksyms, addr, &name, &module, &off) == 0 && module) {
		int64_t md = dsotab_add_module(ss->dsos, module);

		if (md < 0)
			return md;
		dso = (uint32_t)md;
	}
	return intern_sym(ss, dso, addr, name, true);
}

/* A JIT address: its name in the process's perf map, when there is one. */
static int64_t symbolize_jit(struct symstacks *ss, uint32_t dso, uint64_t addr)
{
	const struct perfmap *pmap;
	const char *name = NULL;
	uint64_t off;

	if (dsotab_perfmap(ss->dsos, dso, &pmap) < 0)
		return -ENOMEM;
	if (pmap)
		perfmap_find(pmap, addr, &name, &off);
	return intern_sym(ss, dso, addr, name, false);
}

/* Symbols for one location, innermost first: how many (at most SYM_INLINE_MAX), or -ENOMEM. */
/* The name of session_opts.mark_cut's frame for REASON (an enum rp_unwind_stop, as the
 * recording's RP_CONTEXT_UNWIND marker gives it): "[cut: " and the stop's name. Symbols are
 * keyed by the name's address: these live as long as the program. */
static const char *cut_name(uint64_t reason)
{
	static char names[RP_UNWIND_STOP_N][48];

	if (reason == RP_UNWIND_COMPLETE || reason >= RP_UNWIND_STOP_N)
		return "[cut]";
	if (!names[reason][0])
		snprintf(names[reason], sizeof(names[reason]), "[cut: %s]",
			 format_unwind_stop_name(reason));
	return names[reason];
}

/* Remember that object DSO has no DWARF lines, once. -ENOMEM. */
static int note_nolines(struct symstacks *ss, uint32_t dso)
{
	bool added;
	int64_t k = pairtab_intern(ss->nolines_seen, dso, 0, &added);

	if (k < 0 || (added && GROW(ss->nolines, ss->cap_nolines, ss->n_nolines + 1) < 0))
		return -ENOMEM;
	if (added)
		ss->nolines[ss->n_nolines++] = dso;
	return 0;
}

/*
 * Symbol ID at ADDR (a file offset for files) kept apart by its source line FILE:LINE: its
 * id with the line, made when new. Without a line (FILE NULL), "OBJECT+0xADDR": never a
 * line guessed. -ENOMEM.
 */
static int64_t with_line(struct symstacks *ss, int64_t id, uint64_t addr, const char *file, int line)
{
	struct session_sym sym;
	const char *text, *base;
	char buf[4200];
	bool added;
	int64_t k, r;

	if (!ss->srcline || id < 0)
		return id;
	sym = ss->syms[id];
	if (file && line > 0) {
		base = ss->full_path ? NULL : strrchr(file, '/');
		snprintf(buf, sizeof(buf), "%.4096s:%d", base ? base + 1 : file, line);
	} else {
		snprintf(buf, sizeof(buf), "%.400s+0x%" PRIx64, dsotab_name(ss->dsos, sym.dso),
			 addr);
	}
	text = strtab_add(ss->labels, buf);
	if (!text)
		return -ENOMEM;
	k = pairtab_find(ss->line_ids, (uint64_t)id, (uintptr_t)text);
	if (k >= 0)
		return ss->line_sym[k];
	r = pairtab_intern(ss->rep_ids, (uintptr_t)text, 0, &added);
	if (r < 0 || GROW(ss->rep_sym, ss->cap_rep_sym, (size_t)r + 1) < 0)
		return -ENOMEM;
	if (added)
		ss->rep_sym[r] = (uint32_t)ss->n_syms; /* the symbol made next */
	sym.srcline = text;
	sym.line_rep = ss->rep_sym[r];
	/* keyed_sym() adds it as symbol n_syms, the line_rep set above when the line is new. */
	return keyed_sym(ss, ss->line_ids, &ss->line_sym, &ss->cap_line_sym, (uint64_t)id,
			 (uintptr_t)text, sym);
}

/* The symbols at ADDR of DSO into OUT, kept apart by line with srcline when LINE. */
static int symbolize(struct symstacks *ss, uint32_t dso, uint64_t addr, uint32_t *out, bool line)
{
	struct sym_frame fr[SYM_INLINE_MAX];
	bool srcline = ss->srcline && line;
	int64_t id;
	int k;

	switch (dsotab_kind(ss->dsos, dso)) {
	case DSOTAB_KERNEL:
		id = symbolize_kernel(ss, dso, addr);
		break;
	case DSOTAB_FILE:
		dso = dsotab_canonical(ss->dsos, dso);
		k = (srcline || !ss->srcline ? symbolizer_lookup
					     : symbolizer_lookup_name)(ss->symz,
								       dsotab_sym(ss->dsos, dso),
								       addr, fr, SYM_INLINE_MAX);
		/* Files only: [vdso] has no debug info to install. */
		if (srcline && k > 0 && !fr[0].file &&
		    sym_dso_path(dsotab_sym(ss->dsos, dso))[0] == '/' &&
		    !symbolizer_has_lines(ss->symz, dsotab_sym(ss->dsos, dso)) &&
		    note_nolines(ss, dso) < 0)
			return -ENOMEM;
		for (int i = 0; i < k; i++) {
			id = intern_sym(ss, dso, addr, fr[i].name, false);
			if (srcline)
				id = with_line(ss, id, addr, fr[i].file, fr[i].line);
			if (id < 0)
				return (int)id;
			out[i] = (uint32_t)id;
		}
		if (k > 0)
			return k;
		id = intern_sym(ss, dso, addr, NULL,
				false); /* never happens: lookups give >= 1 frame */
		break;
	case DSOTAB_JIT:
		id = symbolize_jit(ss, dso, addr);
		break;
	default: /* DSOTAB_PSEUDO: nothing to read, but the off-CPU and join marks name themselves */
		if (strcmp(dsotab_name(ss->dsos, dso), "[joined]") == 0)
			id = intern_sym(ss, dso, addr, "[joined]", false);
		else if (strcmp(dsotab_name(ss->dsos, dso), "[frame pointers]") == 0)
			id = intern_sym(ss, dso, addr, "[frame pointers]", false);
		else if (strcmp(dsotab_name(ss->dsos, dso), "[cut]") == 0)
			id = intern_sym(ss, dso, addr, cut_name(addr), false);
		else
			id = intern_sym(ss, dso, addr,
					strcmp(dsotab_name(ss->dsos, dso), "[off-cpu]") ? NULL
					: addr ? "[preempted]"
					       : "[waiting]",
					false);
		break;
	}
	if (srcline)
		id = with_line(ss, id, addr, NULL, 0);
	if (id < 0)
		return (int)id;
	out[0] = (uint32_t)id;
	return 1;
}

void symstacks_srcline(struct symstacks *ss, bool on, bool full_path)
{
	ss->srcline = on;
	ss->full_path = full_path;
}

const uint32_t *symstacks_nolines(const struct symstacks *ss, size_t *ret_n)
{
	*ret_n = ss->n_nolines;
	return ss->nolines;
}

int symstacks_add_loc(struct symstacks *ss, uint32_t dso, uint64_t addr, bool line)
{
	uint32_t tmp[SYM_INLINE_MAX];
	int k = symbolize(ss, dso, addr, tmp, line);

	if (k < 0)
		return k;
	if (GROW(ss->loc_syms, ss->cap_loc_syms, (size_t)ss->n_loc_syms + (size_t)k) < 0 ||
	    GROW(ss->loc_first, ss->cap_loc_first, ss->n_locs + 2) < 0)
		return -ENOMEM;
	memcpy(ss->loc_syms + ss->n_loc_syms, tmp, (size_t)k * sizeof(uint32_t));
	ss->n_loc_syms += (uint32_t)k;
	ss->loc_first[++ss->n_locs] = ss->n_loc_syms;
	return 0;
}

int64_t symstacks_add_stack(struct symstacks *ss, const uint32_t *locs, uint32_t n, uint32_t *ret_n,
			    uint32_t *ret_unknown)
{
	uint32_t m = 0, unknown = 0;
	int64_t id;

	for (uint32_t k = 0; k < n; k++)
		m += ss->loc_first[locs[k] + 1] - ss->loc_first[locs[k]];
	if (GROW(ss->buf, ss->cap_buf, m + 1) < 0) /* never NULL, also for an empty stack */
		return -ENOMEM;
	m = 0;
	for (uint32_t k = 0; k < n; k++) {
		for (uint32_t j = ss->loc_first[locs[k]]; j < ss->loc_first[locs[k] + 1]; j++) {
			ss->buf[m++] = ss->loc_syms[j];
			unknown += !ss->syms[ss->loc_syms[j]].name;
		}
	}
	id = seqtab_intern(ss->stacks, ss->buf, m);
	if (id < 0)
		return id;
	*ret_n = m;
	*ret_unknown = unknown;
	return id;
}

const uint32_t *symstacks_get(const struct symstacks *ss, uint32_t id, uint32_t *ret_n)
{
	return seqtab_get(ss->stacks, id, ret_n);
}

const struct session_sym *symstacks_sym(const struct symstacks *ss, uint32_t id)
{
	return &ss->syms[id];
}

const uint32_t *symstacks_loc(const struct symstacks *ss, uint32_t loc, uint32_t *ret_n)
{
	*ret_n = ss->loc_first[loc + 1] - ss->loc_first[loc];
	return ss->loc_syms + ss->loc_first[loc];
}
