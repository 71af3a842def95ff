/* annotate.c — self samples by instruction and source line, for ringprof annotate. */
#include "profile/annotate.h"

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/util.h"
#include "profile/aggregate.h"
#include "profile/disasm.h"
#include "profile/dsotab.h"
#include "profile/focus.h"
#include "profile/session.h"
#include "profile/srcinfo.h"
#include "profile/symbolizer.h"
#include "profile/symfile.h"
#include "profile/symstacks.h"

/* A sample's leaf location, by function (an index in struct annotate's fns while gathering). */
struct entry {
	size_t fn;
	struct annotate_loc loc;
};

struct fnrec {
	struct annotate_fn pub;
	size_t first, n; /* its entries */
};

/* A symbol of /proc/kallsyms. */
struct ksym {
	uint64_t addr;
	char *name;
};

/* An object's file, opened once for every function in it. */
struct opened {
	uint32_t dso;
	struct srcinfo *si; /* NULL: not usable, why says why */
	char why[512];
};

struct annotate {
	struct annotate_fn *fns;
	struct fnrec *recs;
	size_t n_fns, cap_recs;
	struct annotate_loc *locs;
	struct entry *entries;
	size_t n_entries, cap_entries;
	struct opened *opened;
	size_t n_opened, cap_opened;
	struct ksym *ksyms; /* /proc/kallsyms by address, read for the first kernel function */
	size_t n_ksyms, cap_ksyms;
	bool ksyms_loaded, ksyms_usable;
	char ksyms_why[128];
};

struct annotate *annotate_free(struct annotate *a)
{
	if (!a)
		return NULL;
	for (size_t i = 0; i < a->n_opened; i++)
		srcinfo_free(a->opened[i].si);
	free(a->opened);
	for (size_t i = 0; i < a->n_ksyms; i++)
		free(a->ksyms[i].name);
	free(a->ksyms);
	free(a->fns);
	free(a->recs);
	free(a->locs);
	free(a->entries);
	free(a);
	return NULL;
}

/* The function of session symbol SYM: its index, added when new (IDX maps symbol ids to
 * index + 1). -ENOMEM. */
static int64_t fn_of(struct annotate *a, size_t **idx, size_t *cap_idx, uint32_t sym,
		     const struct session_sym *ss)
{
	size_t old = *cap_idx;

	if (GROW(*idx, *cap_idx, (size_t)sym + 1) < 0)
		return -ENOMEM;
	memset(*idx + old, 0, (*cap_idx - old) * sizeof(**idx));
	if ((*idx)[sym])
		return (int64_t)(*idx)[sym] - 1;
	if (GROW(a->recs, a->cap_recs, a->n_fns + 1) < 0)
		return -ENOMEM;
	a->recs[a->n_fns] = (struct fnrec){ .pub = { sym, ss->name, ss->dso, ss->kernel, 0, 0 } };
	(*idx)[sym] = ++a->n_fns;
	return (int64_t)a->n_fns - 1;
}

/* Every count's leaf location, by function, into a->entries. 0 or -ENOMEM. */
static int gather(struct annotate *a, const struct session *s)
{
	struct session_parts p;
	size_t *idx = NULL, cap_idx = 0, n = 0, cap_buf = 0;
	uint32_t *buf = NULL;
	struct focus *f = session_focus(s);
	int r = 0;

	session_parts(s, &p);
	n = aggregate_n_counts(p.agg);
	for (size_t i = 0; i < n && r == 0; i++) {
		struct aggregate_count c;
		const uint32_t *stack, *syms;
		uint32_t len, m, dso;
		const struct session_sym *sym;
		uint64_t at;
		int64_t fn;

		aggregate_count(p.agg, i, &c);
		stack = aggregate_stack(p.agg, c.stack, &len);
		if (!len)
			continue;
		aggregate_loc(p.agg, stack[0], &dso, &at);
		if (!session_dso_kept(s, dso))
			continue;
		syms = symstacks_loc(p.ss, stack[0], &m);
		sym = m ? session_sym(s, syms[m - 1]) : NULL;
		if (!sym || !sym->name || sym->label ||
		    !focus_keep_locs(f, session_sym_text, s, p.ss, stack, len, &buf, &cap_buf))
			continue;
		fn = fn_of(a, &idx, &cap_idx, syms[m - 1], sym);
		if (fn < 0 || GROW(a->entries, a->cap_entries, a->n_entries + 1) < 0) {
			r = -ENOMEM;
			break;
		}
		a->entries[a->n_entries++] =
		    (struct entry){ (size_t)fn, { at, c.period, c.count } };
	}
	free(idx);
	free(buf);
	return r;
}

static int cmp_entry(const void *x, const void *y)
{
	const struct entry *a = x, *b = y;

	if (a->fn != b->fn)
		return a->fn < b->fn ? -1 : 1;
	return a->loc.at < b->loc.at ? -1 : a->loc.at > b->loc.at;
}

static int cmp_rec(const void *x, const void *y)
{
	const struct fnrec *a = x, *b = y;

	if (a->pub.period != b->pub.period)
		return a->pub.period > b->pub.period ? -1 : 1;
	return strcmp(a->pub.name, b->pub.name);
}

/* Entries sorted and merged by (function, location) into a->locs; each function's range. */
static int merge(struct annotate *a)
{
	size_t n = 0;

	if (a->n_entries)
		qsort(a->entries, a->n_entries, sizeof(*a->entries), cmp_entry);
	a->locs = malloc((a->n_entries ? a->n_entries : 1) * sizeof(*a->locs));
	a->fns = malloc((a->n_fns ? a->n_fns : 1) * sizeof(*a->fns));
	if (!a->locs || !a->fns)
		return -ENOMEM;
	for (size_t i = 0; i < a->n_entries; i++) {
		const struct entry *e = &a->entries[i];
		struct fnrec *f = &a->recs[e->fn];

		if (!f->n)
			f->first = n;
		f->pub.period += e->loc.period;
		f->pub.count += e->loc.count;
		if (f->n && a->locs[n - 1].at == e->loc.at) {
			a->locs[n - 1].period += e->loc.period;
			a->locs[n - 1].count += e->loc.count;
			continue;
		}
		a->locs[n++] = e->loc;
		f->n++;
	}
	if (a->n_fns)
		qsort(a->recs, a->n_fns, sizeof(*a->recs), cmp_rec);
	for (size_t i = 0; i < a->n_fns; i++)
		a->fns[i] = a->recs[i].pub;
	return 0;
}

int annotate_new(const struct session *s, struct annotate **ret)
{
	struct annotate *a = calloc(1, sizeof(*a));
	int r;

	if (!a)
		return -ENOMEM;
	r = gather(a, s);
	if (r == 0)
		r = merge(a);
	if (r < 0) {
		annotate_free(a);
		return r;
	}
	*ret = a;
	return 0;
}

const struct annotate_fn *annotate_functions(const struct annotate *a, size_t *ret_n)
{
	*ret_n = a->n_fns;
	return a->fns;
}

const struct annotate_loc *annotate_locs(const struct annotate *a, size_t i, size_t *ret_n)
{
	*ret_n = a->recs[i].n;
	return a->locs + a->recs[i].first;
}

/* The opened file of object DSO (opened now when first asked): NULL when not usable (*why). */
static struct srcinfo *open_dso(struct annotate *a, const struct session *s, uint32_t dso,
				const char *symfs, const char **why)
{
	struct session_parts p;
	struct symfile_id id;
	struct sym_dso *d;
	struct opened *o;
	char *cut;

	for (size_t i = 0; i < a->n_opened; i++)
		if (a->opened[i].dso == dso) {
			*why = a->opened[i].why;
			return a->opened[i].si;
		}
	if (GROW(a->opened, a->cap_opened, a->n_opened + 1) < 0) {
		*why = "out of memory";
		return NULL;
	}
	o = &a->opened[a->n_opened++];
	*o = (struct opened){ .dso = dso };
	session_parts(s, &p);
	d = dsotab_sym(p.dsos, dso);
	if (!d || sym_dso_path(d)[0] != '/') {
		snprintf(o->why, sizeof(o->why), "%s: not a file on this host",
			 session_dso_name(s, dso));
	} else {
		sym_dso_identity(d, &id);
		if (srcinfo_open(symfs, symbolizer_debug_cache(p.symz), &id, &o->si, o->why,
				 sizeof(o->why)) < 0)
			o->si = NULL;
	}
	/* symfile's sentence is the symbolizer's: annotate may still name the function from the
	 * symbols captured at record time. */
	cut = strstr(o->why, "; its frames are shown as [unknown]");
	if (cut)
		*cut = '\0';
	*why = o->why;
	return o->si;
}

/* The heaviest of N locations. */
static const struct annotate_loc *heaviest(const struct annotate_loc *l, size_t n)
{
	const struct annotate_loc *h = l;

	for (size_t i = 1; i < n; i++)
		if (l[i].period > h->period)
			h = &l[i];
	return h;
}

/* Addresses known to start an instruction of [v->lo, v->hi): the line table's rows (SI, NULL
 * for none) and the sampled addresses of L[0..N) (ELF addresses through SI, or as they are).
 * Sorted into *ret (malloc'd, may be NULL) and *ret_n. 0 or -ENOMEM. */
static int known_starts(const struct annotate_view *v, struct srcinfo *si,
			const struct annotate_loc *l, size_t n, uint64_t **ret, size_t *ret_n)
{
	uint64_t *s = NULL;
	size_t k = 0, cap;

	if (si && srcinfo_line_starts(si, v->lo, v->hi, &s, &k) < 0)
		return -ENOMEM;
	cap = k;
	for (size_t i = 0; i < n; i++) {
		uint64_t a = l[i].at;

		if ((si && srcinfo_addr(si, l[i].at, &a) < 0) || a < v->lo || a >= v->hi)
			continue;
		if (GROW(s, cap, k + 1) < 0) {
			free(s);
			return -ENOMEM;
		}
		s[k++] = a;
	}
	if (k)
		qsort(s, k, sizeof(*s), util_cmp_u64);
	*ret = s;
	*ret_n = k;
	return 0;
}

/* CODE (LEN bytes at LO) disassembled into v->insns, STARTS[0..N_STARTS) the addresses known to
 * begin an instruction (known_starts()). 0, -ENOMEM, or another -errno (said in no_insns). */
static int disassemble(struct annotate_view *v, int machine, const uint8_t *code, size_t len,
		       const uint64_t *starts, size_t n_starts)
{
	struct disasm_insn *d;
	size_t n;
	int r = disasm_code(machine, code, len, v->lo, starts, n_starts, &d, &n, v->no_insns,
			    sizeof(v->no_insns));

	if (r < 0)
		return r == -ENOMEM ? r : 0;
	v->insns = calloc(n ? n : 1, sizeof(*v->insns));
	if (!v->insns) {
		free(d);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		v->insns[i].addr = d[i].addr;
		memcpy(v->insns[i].text, d[i].text, sizeof(v->insns[i].text));
	}
	v->n_insns = n;
	free(d);
	return 0;
}

/* The function's CODE disassembled (as disassemble()); when some bytes do not decode, again
 * with the addresses known to start an instruction (known_starts(): SI's line table, L[0..N)'s
 * sampled addresses), which are read only then. 0, -ENOMEM, or another -errno. */
static int disassemble_all(struct annotate_view *v, int machine, const uint8_t *code,
			   struct srcinfo *si, const struct annotate_loc *l, size_t n)
{
	uint64_t *starts = NULL;
	size_t n_starts = 0;
	bool bad = false;
	int r = disassemble(v, machine, code, v->hi - v->lo, NULL, 0);

	for (size_t i = 0; r == 0 && i < v->n_insns; i++)
		bad |= !strcmp(v->insns[i].text, "(bad)");
	if (!bad)
		return r;
	free(v->insns);
	v->insns = NULL;
	v->n_insns = 0;
	r = known_starts(v, si, l, n, &starts, &n_starts);
	if (r == 0)
		r = disassemble(v, machine, code, v->hi - v->lo, starts, n_starts);
	free(starts);
	return r;
}

/* The instruction starting at ADDR, or NULL. */
static struct annotate_insn *insn_at(struct annotate_view *v, uint64_t addr)
{
	size_t lo = 0, hi = v->n_insns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v->insns[mid].addr == addr)
			return &v->insns[mid];
		if (v->insns[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Each location's samples onto its instruction (ADDR_OF maps a location to an address). */
static void place(struct annotate_view *v, const struct annotate_loc *l, size_t n,
		  const struct srcinfo *si)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t addr = l[i].at;
		struct annotate_insn *in = NULL;

		if (!si || srcinfo_addr(si, l[i].at, &addr) == 0)
			in = insn_at(v, addr);
		if (in) {
			in->period += l[i].period;
			in->count += l[i].count;
		} else {
			v->unplaced_period += l[i].period;
			v->unplaced_count += l[i].count;
		}
	}
}

static int cmp_line(const void *x, const void *y)
{
	const struct annotate_line *a = x, *b = y;
	int c = strcmp(a->file, b->file);

	return c ? c : a->line - b->line;
}

/* The instructions' source locations, and the lines they add up to. 0 or -ENOMEM. */
static int lines_of(struct annotate_view *v, struct srcinfo *si)
{
	size_t n = 0;

	for (size_t i = 0; i < v->n_insns; i++) {
		struct annotate_insn *in = &v->insns[i];

		if (srcinfo_line(si, in->addr, &in->file, &in->line, &in->inlined) < 0)
			in->file = NULL;
	}
	v->lines = calloc(v->n_insns ? v->n_insns : 1, sizeof(*v->lines));
	if (!v->lines)
		return -ENOMEM;
	for (size_t i = 0; i < v->n_insns; i++)
		if (v->insns[i].file)
			v->lines[n++] =
			    (struct annotate_line){ v->insns[i].file, v->insns[i].line,
						    v->insns[i].inlined, v->insns[i].period,
						    v->insns[i].count };
	if (n)
		qsort(v->lines, n, sizeof(*v->lines), cmp_line);
	v->n_lines = 0;
	for (size_t i = 0; i < n; i++) {
		struct annotate_line *last = v->n_lines ? &v->lines[v->n_lines - 1] : NULL;

		if (last && cmp_line(last, &v->lines[i]) == 0) {
			last->period += v->lines[i].period;
			last->count += v->lines[i].count;
			if (!last->inlined)
				last->inlined = v->lines[i].inlined;
		} else {
			v->lines[v->n_lines++] = v->lines[i];
		}
	}
	if (!v->n_lines)
		snprintf(v->no_lines, sizeof(v->no_lines),
			 "the line table places none of its instructions");
	return 0;
}

static int cmp_ksym(const void *x, const void *y)
{
	const struct ksym *a = x, *b = y;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* /proc/kallsyms into a->ksyms, sorted by address, once. 0, or -errno with a sentence in why. */
static int kallsyms_load(struct annotate *a, char *why, size_t why_size)
{
	FILE *f;
	char line[512];
	bool zero = true;

	if (a->ksyms_loaded) {
		if (!a->ksyms_usable)
			snprintf(why, why_size, "%s", a->ksyms_why);
		return a->ksyms_usable ? 0 : -ENOENT;
	}
	a->ksyms_loaded = true;
	f = fopen("/proc/kallsyms", "re");
	if (!f) {
		snprintf(a->ksyms_why, sizeof(a->ksyms_why), "/proc/kallsyms: %s", strerror(errno));
		return kallsyms_load(a, why, why_size);
	}
	while (fgets(line, sizeof(line), f)) {
		/* "ADDR TYPE NAME[\t[MODULE]]": by hand, as sscanf takes most of the time. */
		char *end, *name;
		uint64_t addr = strtoull(line, &end, 16);

		if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		name = end + 3;
		name[strcspn(name, " \t\n")] = '\0';
		zero = zero && addr == 0;
		if (GROW(a->ksyms, a->cap_ksyms, a->n_ksyms + 1) < 0 ||
		    !(a->ksyms[a->n_ksyms].name = strdup(name)))
			break;
		a->ksyms[a->n_ksyms++].addr = addr;
	}
	if (a->n_ksyms)
		qsort(a->ksyms, a->n_ksyms, sizeof(*a->ksyms), cmp_ksym);
	a->ksyms_usable = !zero && !ferror(f) && feof(f);
	snprintf(a->ksyms_why, sizeof(a->ksyms_why), "%s",
		 zero ? "/proc/kallsyms hides the kernel's addresses here (kptr_restrict; run as "
			"root)"
		      : "/proc/kallsyms could not be read whole (out of memory)");
	fclose(f);
	return kallsyms_load(a, why, why_size);
}

/* Where the running kernel's symbol NAME holding NEAR begins and the next symbol starts. 0, or
 * -errno with a sentence in why. */
static int kallsyms_extent(struct annotate *a, const char *name, uint64_t near, uint64_t *ret_lo,
			   uint64_t *ret_hi, char *why, size_t why_size)
{
	size_t lo = 0, hi, p;
	int r = kallsyms_load(a, why, why_size);

	if (r < 0)
		return r;
	for (hi = a->n_ksyms; lo < hi;) { /* the first symbol above NEAR */
		size_t mid = lo + (hi - lo) / 2;

		if (a->ksyms[mid].addr <= near)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (p = lo; p > 0 && a->ksyms[p - 1].addr == a->ksyms[lo ? lo - 1 : 0].addr; p--)
		if (strcmp(a->ksyms[p - 1].name, name) == 0)
			break;
	if (!lo || p == 0 || a->ksyms[p - 1].addr != a->ksyms[lo - 1].addr || lo == a->n_ksyms ||
	    a->ksyms[lo].addr - a->ksyms[lo - 1].addr > (1u << 20)) {
		snprintf(why, why_size,
			 "the running kernel has no %s at the recorded addresses (recorded under "
			 "another kernel or boot?)",
			 name);
		return -ENOENT;
	}
	*ret_lo = a->ksyms[lo - 1].addr;
	*ret_hi = a->ksyms[lo].addr;
	return 0;
}

/* The kernel's machine: this program's. */
static int host_machine(void)
{
#if defined(__x86_64__)
	return EM_X86_64;
#elif defined(__aarch64__)
	return EM_AARCH64;
#elif defined(__i386__)
	return EM_386;
#else
	return EM_NONE;
#endif
}

/* A kernel function: its instructions from /proc/kcore, no lines. 0 or -ENOMEM. */
static int view_kernel(struct annotate *a, struct annotate_view *v, const struct annotate_fn *f,
		       const struct annotate_loc *l, size_t n)
{
	uint8_t *code = NULL;
	int r;

	snprintf(v->no_lines, sizeof(v->no_lines),
		 "kernel code: no source lines (annotate reads no kernel debug info)");
	/* kcore first: without it, reading all of kallsyms would be for nothing. */
	if (srcinfo_kcore_readable(v->no_insns, sizeof(v->no_insns)) < 0 ||
	    kallsyms_extent(a, f->name, heaviest(l, n)->at, &v->lo, &v->hi, v->no_insns,
			    sizeof(v->no_insns)) < 0 ||
	    srcinfo_kcore(v->lo, v->hi - v->lo, &code, v->no_insns, sizeof(v->no_insns)) < 0) {
		place(v, l, n, NULL);
		return 0;
	}
	v->object = "/proc/kcore";
	r = disassemble_all(v, host_machine(), code, NULL, l, n);
	free(code);
	place(v, l, n, NULL);
	return r;
}

/* A function of a file: its instructions and lines from the file on this host, when it is the
 * recorded one. 0 or -ENOMEM. */
static int view_file(struct annotate *a, const struct session *s, struct annotate_view *v,
		     const struct annotate_fn *f, const struct annotate_loc *l, size_t n,
		     const char *symfs)
{
	const char *why = "";
	struct srcinfo *si = open_dso(a, s, f->dso, symfs, &why);
	uint64_t addr;
	uint8_t *code = NULL;
	int r;

	if (!si) {
		snprintf(v->no_insns, sizeof(v->no_insns), "%s", why);
		place(v, l, n, NULL);
		return 0;
	}
	if (srcinfo_addr(si, heaviest(l, n)->at, &addr) < 0 ||
	    srcinfo_function(si, addr, &v->lo, &v->hi) < 0) {
		snprintf(v->no_insns, sizeof(v->no_insns),
			 "%s: no symbol with a size holds the sampled addresses", srcinfo_file(si));
		place(v, l, n, NULL);
		return 0;
	}
	r = srcinfo_code(si, v->lo, v->hi, &code);
	if (r < 0) {
		snprintf(v->no_insns, sizeof(v->no_insns), "%s: cannot read its code (%s)",
			 srcinfo_file(si), strerror(-r));
		place(v, l, n, NULL);
		return r == -ENOMEM ? r : 0;
	}
	v->object = srcinfo_file(si);
	r = disassemble_all(v, srcinfo_machine(si), code, si, l, n);
	free(code);
	place(v, l, n, si);
	if (r < 0)
		return r;
	if (!srcinfo_has_lines(si)) {
		snprintf(v->no_lines, sizeof(v->no_lines),
			 "%s has no line information (DWARF): build with -g, or install its debug "
			 "symbols (a -dbgsym package, --debuginfod, --symfs)",
			 srcinfo_file(si));
		return 0;
	}
	return lines_of(v, si);
}

int annotate_view(struct annotate *a, const struct session *s, size_t i, const char *symfs,
		  struct annotate_view *ret)
{
	const struct annotate_fn *f = &a->fns[i];
	size_t n;
	const struct annotate_loc *l = annotate_locs(a, i, &n);
	int r;

	*ret = (struct annotate_view){ 0 };
	if (!n)
		return 0;
	r = f->kernel ? view_kernel(a, ret, f, l, n) : view_file(a, s, ret, f, l, n, symfs);
	if (r < 0)
		annotate_view_done(ret);
	return r;
}

void annotate_view_done(struct annotate_view *v)
{
	free(v->insns);
	free(v->lines);
	*v = (struct annotate_view){ 0 };
}
