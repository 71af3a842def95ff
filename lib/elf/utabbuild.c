/* utabbuild.c — the unwind-table builder run by the helper (a libdw adapter): FDEs enumerated
 * with dwarf_next_cfi, their rows read with libdw's CFI API and mapped to utab rules. */
#include "elf/utabbuild.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buildid.h"
#include "base/grow.h"
#include "base/hash.h"
#include "base/util.h"

/* DWARF register numbers of x86_64 (the psABI's mapping). */
#define REG_RBP 6
#define REG_RSP 7
#define REG_RIP 16 /* the return address column */

#define MAX_SEGS 64		  /* PT_LOAD segments used; real files have 2-4 */
#define PLT_EXPAND_MAX (64 << 10) /* bytes of a .plt FDE of another threshold written as rows */
#define SRC_EH 0
#define SRC_DEBUG 1

/* A PT_LOAD segment: vaddr [vaddr, end) is file offset off onwards. */
struct seg {
	uint64_t vaddr, end, off;
};

/* A file-offset range [start, end) and its rule. */
struct ival {
	uint64_t start, end;
	uint32_t rule;
};

struct ivals {
	struct ival *v;
	size_t n, cap;
};

struct builder {
	const unsigned char *ident;
	struct seg segs[MAX_SEGS];
	size_t n_segs, last_seg;
	struct utab_rule *rules;
	size_t n_rules, cap_rules;
	uint32_t *slots; /* open addressing: rule index + 1, 0 = empty; a power of 2 */
	size_t n_slots;
	struct ivals src[2]; /* SRC_EH, SRC_DEBUG */
	struct utab_row *rows;
	size_t n_rows;
	struct utabbuild_stats *st;
	char *why;
	size_t why_size;
};

const char *utabbuild_cfa_name(unsigned cfa)
{
	static const char *const names[UTAB_CFA_N] = { "none", "sp",	 "bp",	   "plt",
						       "end",  "signal", "unknown" };

	return cfa < UTAB_CFA_N ? names[cfa] : "?";
}

/* ---- rules, deduplicated ---- */

static int rule_rehash(struct builder *b)
{
	size_t n = b->n_slots ? b->n_slots * 2 : 256;
	uint32_t *s = calloc(n, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t r = 0; r < b->n_rules; r++) {
		size_t i = hash_bytes(&b->rules[r], sizeof(b->rules[r]), HASH_SEED) & (n - 1);

		while (s[i])
			i = (i + 1) & (n - 1);
		s[i] = (uint32_t)r + 1;
	}
	free(b->slots);
	b->slots = s;
	b->n_slots = n;
	return 0;
}

/* The index of rule r, added if new. */
static int rule_add(struct builder *b, const struct utab_rule *r, uint32_t *ret)
{
	size_t i;
	int rc;

	if (2 * (b->n_rules + 1) > b->n_slots && (rc = rule_rehash(b)) < 0)
		return rc;
	i = hash_bytes(r, sizeof(*r), HASH_SEED) & (b->n_slots - 1);
	for (; b->slots[i]; i = (i + 1) & (b->n_slots - 1)) {
		if (!memcmp(&b->rules[b->slots[i] - 1], r, sizeof(*r))) {
			*ret = b->slots[i] - 1;
			return 0;
		}
	}
	if (b->n_rules >= UTAB_MAX_RULES) {
		snprintf(b->why, b->why_size, "more than %u distinct unwind rules", UTAB_MAX_RULES);
		return -E2BIG;
	}
	if (GROW(b->rules, b->cap_rules, b->n_rules + 1) < 0)
		return -ENOMEM;
	b->rules[b->n_rules] = *r;
	b->slots[i] = (uint32_t)++b->n_rules;
	*ret = (uint32_t)b->n_rules - 1;
	return 0;
}

/* ---- segments: ELF virtual addresses to file offsets ---- */

static int read_segments(struct builder *b, Elf *elf)
{
	size_t n;

	if (elf_getphdrnum(elf, &n) != 0) {
		snprintf(b->why, b->why_size, "cannot read the program headers: %s", elf_errmsg(-1));
		return -EINVAL;
	}
	for (size_t i = 0; i < n && i <= INT32_MAX && b->n_segs < MAX_SEGS; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		/* Table offsets are 32-bit: a segment past 4 GiB of file cannot be described. */
		if (ph.p_offset > UINT32_MAX || ph.p_filesz > UINT32_MAX - ph.p_offset ||
		    ph.p_vaddr > UINT64_MAX - ph.p_filesz)
			continue;
		b->segs[b->n_segs++] =
		    (struct seg){ ph.p_vaddr, ph.p_vaddr + ph.p_filesz, ph.p_offset };
	}
	return 0;
}

static const struct seg *seg_find(struct builder *b, uint64_t vaddr)
{
	const struct seg *s = &b->segs[b->last_seg];

	if (b->n_segs && vaddr >= s->vaddr && vaddr < s->end)
		return s;
	for (size_t i = 0; i < b->n_segs; i++) {
		if (vaddr >= b->segs[i].vaddr && vaddr < b->segs[i].end) {
			b->last_seg = i;
			return &b->segs[i];
		}
	}
	return NULL;
}

/* Add vaddr range [vs, ve) with rule to source src, as file offsets; what lies outside every
 * PT_LOAD is dropped. */
static int add_range(struct builder *b, int src, uint64_t vs, uint64_t ve, uint32_t rule)
{
	struct ivals *iv = &b->src[src];

	while (vs < ve) {
		const struct seg *s = seg_find(b, vs);
		uint64_t e;

		if (!s) {
			b->st->n_rows_dropped++;
			return 0;
		}
		e = ve < s->end ? ve : s->end;
		if (iv->n >= UTAB_MAX_ROWS) {
			snprintf(b->why, b->why_size, "more than %u unwind rows", UTAB_MAX_ROWS);
			return -E2BIG;
		}
		if (GROW(iv->v, iv->cap, iv->n + 1) < 0)
			return -ENOMEM;
		iv->v[iv->n++] =
		    (struct ival){ vs - s->vaddr + s->off, e - s->vaddr + s->off, rule };
		vs = e;
	}
	return 0;
}

/* ---- FDE ranges: the pointer encodings of .eh_frame ---- */

static int read_leb(const uint8_t **pp, const uint8_t *end, bool sign, uint64_t *ret)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t byte;

	do {
		if (p >= end || shift >= 64)
			return -1;
		byte = *p++;
		v |= (uint64_t)(byte & 0x7f) << shift;
		shift += 7;
	} while (byte & 0x80);
	if (sign && shift < 64 && (byte & 0x40))
		v |= ~0ull << shift;
	*pp = p;
	*ret = v;
	return 0;
}

/* One pointer of encoding enc at *pp (before end); pc is the address of *pp, for pcrel.
 * Only what FDE ranges use: absolute or pc-relative, never indirect. */
static int read_encoded(const uint8_t **pp, const uint8_t *end, uint8_t enc, uint64_t pc,
			uint64_t *ret)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;
	size_t n;

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		n = 8;
		break;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		n = 4;
		break;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		n = 2;
		break;
	case DW_EH_PE_uleb128:
	case DW_EH_PE_sleb128:
		if (read_leb(&p, end, enc & DW_EH_PE_signed, &v) < 0)
			return -1;
		n = 0;
		break;
	default:
		return -1;
	}
	if ((size_t)(end - p) < n)
		return -1;
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	if (n && n < 8 && (enc & DW_EH_PE_signed) && (v >> (8 * n - 1)) & 1)
		v |= ~0ull << (8 * n);
	if ((enc & 0x70) == DW_EH_PE_pcrel)
		v += pc;
	else if (enc & 0xf0)
		return -1;
	*pp = p + n;
	*ret = v;
	return 0;
}

/* The FDE pointer encoding a CIE's augmentation ('R') sets; absptr without one. */
static int cie_fde_encoding(const Dwarf_CIE *cie, uint8_t *ret)
{
	const char *a = cie->augmentation;
	const uint8_t *p = cie->augmentation_data, *end = p + cie->augmentation_data_size;
	uint64_t skip;

	*ret = DW_EH_PE_absptr;
	if (!a || !a[0])
		return 0;
	if (a[0] != 'z' || !p)
		return -1;
	for (a++; *a; a++) {
		if (*a == 'R' || *a == 'L') {
			if (p >= end)
				return -1;
			if (*a == 'R')
				*ret = *p;
			p++;
		} else if (*a == 'P') {
			uint8_t enc;

			if (p >= end)
				return -1;
			enc = *p++;
			if (enc == DW_EH_PE_omit || (enc & 0x70) == DW_EH_PE_aligned ||
			    read_encoded(&p, end, enc & 0x0f, 0, &skip) < 0)
				return -1;
		} else if (*a != 'S' && *a != 'B') {
			break; /* unknown: 'z' says how long, and R has been read if it came first */
		}
	}
	return 0;
}

/* The vaddr range [*lo, *hi) of FDE e in section data d (at sec_addr), and the CFI program
 * bytes libdw runs for one row of it (*cost). */
static int fde_range(struct builder *b, Elf_Data *d, uint64_t sec_addr, bool eh,
		     const Dwarf_CFI_Entry *e, uint64_t *lo, uint64_t *hi, uint64_t *cost)
{
	const uint8_t *base = d->d_buf, *p = e->fde.start, *end = e->fde.end;
	Dwarf_CFI_Entry cie;
	Dwarf_Off next;
	uint8_t enc = DW_EH_PE_absptr;
	uint64_t loc, len;

	if (p < base || end < p || (size_t)(end - base) > d->d_size)
		return -1;
	if (dwarf_next_cfi(b->ident, d, eh, e->fde.CIE_pointer, &next, &cie) != 0 ||
	    !dwarf_cfi_cie_p(&cie))
		return -1;
	if (eh && cie_fde_encoding(&cie.cie, &enc) < 0)
		return -1;
	if (read_encoded(&p, end, enc, sec_addr + (uint64_t)(p - base), &loc) < 0 ||
	    read_encoded(&p, end, enc & 0x0f, 0, &len) < 0)
		return -1;
	if (!len || loc > UINT64_MAX - len)
		return -1;
	*lo = loc;
	*hi = loc + len;
	*cost = (uint64_t)(end - e->fde.start) + 16 +
		(uint64_t)(cie.cie.initial_instructions_end - cie.cie.initial_instructions);
	return 0;
}

/* ---- rows: libdw's CFI rows to utab rules ---- */

/* The threshold k of the .plt expression rsp + 8 + ((rip & 15) >= k ? 8 : 0), or -1. */
static int plt_threshold(const Dwarf_Op *o, size_t n)
{
	if (n != 9 || o[0].atom != DW_OP_breg7 || o[0].number != 8 || o[1].atom != DW_OP_breg16 ||
	    o[1].number != 0 || o[2].atom != DW_OP_lit15 || o[3].atom != DW_OP_and ||
	    o[4].atom < DW_OP_lit0 || o[4].atom > DW_OP_lit31 || o[5].atom != DW_OP_ge ||
	    o[6].atom != DW_OP_lit3 || o[7].atom != DW_OP_shl || o[8].atom != DW_OP_plus)
		return -1;
	return o[4].atom - DW_OP_lit0;
}

/* The CFA part of a rule: UTAB_CFA_SP, _BP, _PLT or _UNKNOWN. A .plt expression with
 * another threshold than UTAB_CFA_PLT's 11 gives UTAB_CFA_SP and its threshold in *plt_k. */
static uint8_t cfa_kind(Dwarf_Frame *fr, struct utab_rule *r, int *plt_k)
{
	Dwarf_Op *ops;
	size_t n;
	uint64_t reg;
	int64_t off;
	int k;

	if (dwarf_frame_cfa(fr, &ops, &n) != 0 || n == 0)
		return UTAB_CFA_UNKNOWN;
	if (n > 1) {
		if ((k = plt_threshold(ops, n)) < 0)
			return UTAB_CFA_UNKNOWN;
		if (k == 11)
			return UTAB_CFA_PLT;
		*plt_k = k;
		return UTAB_CFA_SP;
	}
	if (ops[0].atom == DW_OP_bregx) {
		reg = ops[0].number;
		off = (int64_t)ops[0].number2;
	} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		reg = ops[0].atom - DW_OP_breg0;
		off = (int64_t)ops[0].number;
	} else {
		return UTAB_CFA_UNKNOWN;
	}
	if (off < -(1 << 24) || off > (1 << 24) || (reg != REG_RSP && reg != REG_RBP))
		return UTAB_CFA_UNKNOWN;
	r->cfa_off = (int32_t)off;
	return reg == REG_RSP ? UTAB_CFA_SP : UTAB_CFA_BP;
}

/* A register saved at cfa + offset (libdw: DW_OP_call_frame_cfa [DW_OP_plus_uconst N]). */
static bool saved_at(const Dwarf_Op *ops, size_t n, int16_t *ret)
{
	int64_t off;

	if (n < 1 || n > 2 || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (n == 2 && ops[1].atom != DW_OP_plus_uconst)
		return false;
	off = n == 2 ? (int64_t)ops[1].number : 0;
	if (off % 8 || off < -4096 || off > 4096)
		return false;
	*ret = (int16_t)off;
	return true;
}

/* The rule of one CFI row. */
static struct utab_rule frame_rule(Dwarf_Frame *fr, int ra_reg, bool signal, int *plt_k)
{
	const struct utab_rule unknown = { .cfa = UTAB_CFA_UNKNOWN };
	struct utab_rule r = { 0 };
	Dwarf_Op mem[3], *ops;
	size_t n;

	*plt_k = -1;
	if (signal)
		return (struct utab_rule){ .cfa = UTAB_CFA_SIGNAL };
	if (ra_reg != REG_RIP || dwarf_frame_register(fr, REG_RIP, mem, &ops, &n) != 0)
		return unknown;
	if (n == 0 && ops) /* undefined: the outermost frame */
		return (struct utab_rule){ .cfa = UTAB_CFA_END };
	if (!saved_at(ops, n, &r.ra_off))
		return unknown;
	r.cfa = cfa_kind(fr, &r, plt_k);
	if (r.cfa == UTAB_CFA_UNKNOWN)
		return unknown;
	if (dwarf_frame_register(fr, REG_RBP, mem, &ops, &n) != 0)
		return unknown;
	if (n > 0) {
		/* rbp saved elsewhere than in the frame (another register, an expression):
		 * the walker could not give the callers their rbp. */
		if (!saved_at(ops, n, &r.bp_off))
			return unknown;
		r.flags = UTAB_BP_SAVED;
	}
	return r;
}

/* A .plt of another threshold k than UTAB_CFA_PLT's, vaddr [pc, end): as exact rows of
 * rsp + 8 and rsp + 16 (runtime pcs and vaddrs agree modulo 16: loads are page aligned). */
static int add_plt_rows(struct builder *b, int src, uint64_t pc, uint64_t end, int k,
			struct utab_rule r)
{
	uint32_t lo_rule, hi_rule;
	int rc;

	if (end - pc > PLT_EXPAND_MAX) {
		r = (struct utab_rule){ .cfa = UTAB_CFA_UNKNOWN };
		if ((rc = rule_add(b, &r, &lo_rule)) < 0)
			return rc;
		return add_range(b, src, pc, end, lo_rule);
	}
	r.cfa_off = 8;
	if ((rc = rule_add(b, &r, &lo_rule)) < 0)
		return rc;
	r.cfa_off = 16;
	if ((rc = rule_add(b, &r, &hi_rule)) < 0)
		return rc;
	b->st->n_plt_expanded++;
	for (uint64_t a = pc; a < end;) {
		uint64_t entry = a & ~15ull;
		bool high = (int)(a & 15) >= k;
		uint64_t next = high ? entry + 16 : entry + (uint64_t)k;

		if (next > end || next < a)
			next = end;
		if ((rc = add_range(b, src, a, next, high ? hi_rule : lo_rule)) < 0)
			return rc;
		a = next;
	}
	return 0;
}

/* The rows of the FDE covering vaddr [lo, hi). 0 (rows added or the FDE skipped) or a
 * fatal -errno (limits, memory). */
static int fde_rows(struct builder *b, Dwarf_CFI *cfi, uint64_t lo, uint64_t hi, uint64_t cost,
		    int src)
{
	for (uint64_t pc = lo; pc < hi;) {
		Dwarf_Frame *fr;
		Dwarf_Addr start, end;
		struct utab_rule r;
		uint32_t idx;
		bool signal = false;
		int ra, plt_k, rc;

		if (b->st->work > UTABBUILD_MAX_WORK - cost) {
			snprintf(b->why, b->why_size,
				 "the unwind information needs more work than the builder allows (%u FDEs read)",
				 b->st->n_fdes);
			return -E2BIG;
		}
		b->st->work += cost;
		if (dwarf_cfi_addrframe(cfi, pc, &fr) != 0) {
			b->st->n_fdes_skipped += pc == lo;
			return 0;
		}
		ra = dwarf_frame_info(fr, &start, &end, &signal);
		if (ra < 0 || end <= pc) {
			free(fr);
			b->st->n_fdes_skipped += pc == lo;
			return 0;
		}
		r = frame_rule(fr, ra, signal, &plt_k);
		free(fr);
		if (end > hi)
			end = hi;
		b->st->n_rows_read++;
		b->st->n_read_by_cfa[r.cfa]++;
		if (plt_k >= 0)
			rc = add_plt_rows(b, src, pc, end, plt_k, r);
		else if ((rc = rule_add(b, &r, &idx)) == 0)
			rc = add_range(b, src, pc, end, idx);
		if (rc < 0)
			return rc;
		pc = end;
	}
	return 0;
}

/* An FDE's vaddr range and the cost of one of its rows (fde_range). */
struct fde {
	uint64_t lo, hi, cost;
};

static int cmp_fde(const void *pa, const void *pb)
{
	const struct fde *a = pa, *b = pb;

	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* Every FDE of one CFI section (scn: .eh_frame or .debug_frame) into b->src[src]. The FDEs
 * are read in address order, so that the rows come sorted (sweep() then need not sort). */
static int read_section(struct builder *b, Dwarf_CFI *cfi, Elf_Scn *scn, int src)
{
	bool eh = src == SRC_EH;
	Elf_Data *d = elf_getdata(scn, NULL);
	Dwarf_Off off = 0, next;
	struct fde *fdes = NULL, f;
	size_t n = 0, cap = 0;
	GElf_Shdr sh;
	int rc = 0;

	if (!d || !d->d_buf || !gelf_getshdr(scn, &sh))
		return 0;
	while (off < d->d_size) {
		Dwarf_CFI_Entry e;
		int r;

		next = off;
		r = dwarf_next_cfi(b->ident, d, eh, off, &next, &e);
		if (r > 0)
			break;
		if (r == 0 && !dwarf_cfi_cie_p(&e)) {
			b->st->n_fdes++;
			b->st->n_fdes_eh += eh;
			if (fde_range(b, d, sh.sh_addr, eh, &e, &f.lo, &f.hi, &f.cost) < 0)
				b->st->n_fdes_skipped++;
			else if (GROW(fdes, cap, n + 1) < 0)
				rc = -ENOMEM;
			else
				fdes[n++] = f;
		}
		if (rc < 0 || next == (Dwarf_Off)-1 || next <= off)
			break;
		off = next;
	}
	if (n > 1)
		qsort(fdes, n, sizeof(*fdes), cmp_fde);
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = fde_rows(b, cfi, fdes[i].lo, fdes[i].hi, fdes[i].cost, src);
	free(fdes);
	return rc;
}

/* ---- the table: sources merged, rows emitted ---- */

static int cmp_ival(const void *pa, const void *pb)
{
	const struct ival *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end > b->end ? -1 : a->end < b->end;
}

/* Sort iv and clip overlaps: where ranges overlap, the one starting first keeps the bytes. */
static void sweep(struct ivals *iv)
{
	size_t w = 0;
	uint64_t cur = 0;

	bool sorted = true;

	/* Rows come FDE by FDE, and FDEs mostly in address order: often nothing to sort. */
	for (size_t i = 1; i < iv->n && sorted; i++)
		sorted = cmp_ival(&iv->v[i - 1], &iv->v[i]) <= 0;
	if (!sorted)
		qsort(iv->v, iv->n, sizeof(*iv->v), cmp_ival);
	for (size_t i = 0; i < iv->n; i++) {
		struct ival x = iv->v[i];

		if (w && x.start < cur) {
			if (x.end <= cur)
				continue;
			x.start = cur;
		}
		iv->v[w++] = x;
		cur = x.end;
	}
	iv->n = w;
}

/* Add to the .eh_frame ranges what .debug_frame covers and .eh_frame does not. */
static int merge_debug(struct builder *b)
{
	struct ivals *e = &b->src[SRC_EH], *d = &b->src[SRC_DEBUG];
	size_t n_e, j = 0;

	sweep(e);
	if (!d->n)
		return 0;
	sweep(d);
	n_e = e->n;
	for (size_t i = 0; i < d->n; i++) {
		uint64_t s = d->v[i].start, end = d->v[i].end;

		while (j < n_e && e->v[j].end <= s)
			j++;
		for (size_t k = j; s < end; k++) {
			uint64_t cut = k < n_e && e->v[k].start < end ? e->v[k].start : end;

			if (cut > s) {
				if (e->n >= UTAB_MAX_ROWS) {
					snprintf(b->why, b->why_size, "more than %u unwind rows",
						 UTAB_MAX_ROWS);
					return -E2BIG;
				}
				if (GROW(e->v, e->cap, e->n + 1) < 0)
					return -ENOMEM;
				e->v[e->n++] = (struct ival){ s, cut, d->v[i].rule };
			}
			if (cut == end)
				break;
			if (e->v[k].end > s) /* e->v[k] overlaps [s, end): .eh_frame wins */
				s = e->v[k].end;
		}
	}
	sweep(e);
	return 0;
}

/* The rows of the table from the sorted, disjoint ranges: adjacent ranges of one rule
 * merged, gaps as rule-0 rows, a rule-0 row at the end. */
static int emit_rows(struct builder *b, const struct ivals *iv)
{
	uint64_t cur = 0;
	size_t n = 0;

	if (iv->n > (UTAB_MAX_ROWS - 1) / 2) {
		snprintf(b->why, b->why_size, "more than %u unwind rows", UTAB_MAX_ROWS);
		return -E2BIG;
	}
	b->rows = malloc((2 * iv->n + 1) * sizeof(*b->rows));
	if (!b->rows)
		return -ENOMEM;
	for (size_t i = 0; i < iv->n; i++) {
		const struct ival *x = &iv->v[i];

		if (n && x->start > cur)
			b->rows[n++] = (struct utab_row){ (uint32_t)cur, 0 };
		if (!n || b->rows[n - 1].rule != x->rule)
			b->rows[n++] = (struct utab_row){ (uint32_t)x->start, x->rule };
		cur = x->end;
	}
	b->rows[n++] = (struct utab_row){ (uint32_t)cur, 0 };
	b->n_rows = n;
	return 0;
}

/* The sealed table in one malloc'd buffer. */
static int assemble(struct builder *b, int fd, uint32_t flags, void **ret_buf, size_t *ret_size)
{
	size_t rules_size = b->n_rules * sizeof(struct utab_rule);
	size_t size = sizeof(struct utab_hdr) + rules_size + b->n_rows * sizeof(struct utab_row);
	struct utab_hdr *h = calloc(1, size);
	size_t id_len;

	if (!h)
		return -ENOMEM;
	memcpy(h->magic, UTAB_MAGIC, 8);
	h->version = UTAB_VERSION;
	h->builder = UTAB_BUILDER_REV;
	h->hdr_size = sizeof(*h);
	h->n_rules = (uint32_t)b->n_rules;
	h->n_rows = (uint32_t)b->n_rows;
	h->flags = flags;
	h->n_fdes = b->st->n_fdes;
	if (buildid_read_fd(fd, h->build_id, sizeof(h->build_id), &id_len) == 0)
		h->build_id_len = (uint8_t)id_len;
	memcpy(h + 1, b->rules, rules_size);
	memcpy((char *)(h + 1) + rules_size, b->rows, b->n_rows * sizeof(struct utab_row));
	utab_seal(h);
	for (size_t i = 0; i < b->n_rows; i++)
		b->st->n_rows_by_cfa[b->rules[b->rows[i].rule].cfa]++;
	b->st->n_rows = (uint32_t)b->n_rows;
	b->st->n_rules = (uint32_t)b->n_rules;
	*ret_buf = h;
	*ret_size = size;
	return 0;
}

/* ---- the file ---- */

static Elf_Scn *find_section(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

static int check_elf(struct builder *b, Elf *elf)
{
	GElf_Ehdr eh;

	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		snprintf(b->why, b->why_size, "not an ELF file");
		return -ENOEXEC;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_machine != EM_X86_64) {
		snprintf(b->why, b->why_size,
			 "an ELF file for machine %u (class %u): unwind tables are built for x86_64 only",
			 eh.e_machine, eh.e_ident[EI_CLASS]);
		return -ENOEXEC;
	}
	b->ident = (const unsigned char *)elf_getident(elf, NULL);
	return b->ident ? 0 : -ENOEXEC;
}

/* Read both CFI sections into b->src; *ret_flags says which the file has. */
static int read_sources(struct builder *b, Elf *elf, uint32_t *ret_flags)
{
	Elf_Scn *eh = find_section(elf, ".eh_frame"), *dbg = find_section(elf, ".debug_frame");
	Dwarf_CFI *cfi;
	Dwarf *dw;
	int rc = 0;

	*ret_flags = 0;
	if (eh && (cfi = dwarf_getcfi_elf(elf))) {
		*ret_flags |= UTAB_F_EH_FRAME;
		rc = read_section(b, cfi, eh, SRC_EH);
		dwarf_cfi_end(cfi);
	}
	if (rc == 0 && dbg && (dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL))) {
		GElf_Shdr sh;

		/* libdw has inflated a compressed .debug_frame for itself; the same for us. */
		if (gelf_getshdr(dbg, &sh) && (sh.sh_flags & SHF_COMPRESSED))
			elf_compress(dbg, 0, 0);
		if ((cfi = dwarf_getcfi(dw))) {
			*ret_flags |= UTAB_F_DEBUG_FRAME;
			rc = read_section(b, cfi, dbg, SRC_DEBUG);
		}
		dwarf_end(dw);
	}
	return rc;
}

/*
 * ld.so's RTLD_START (glibc's sysdeps/x86_64/dl-machine.h), its entry point: _start calls
 * _dl_start, then _dl_start_user calls _dl_init (the libraries' constructors) and jumps to the
 * program's entry. No CFI describes it and nothing calls it: every pc in it is the outermost
 * frame. Recognised by its exact instructions, the rip-relative and call displacements masked
 * (mask 0); another glibc's version does not match and keeps only entry_end()'s 16 bytes.
 */
struct code_pattern {
	const char *what;
	size_t len;
	const uint8_t *bytes, *mask;
};

/* glibc 2.36 (Debian 12), 61 bytes. */
static const uint8_t rtld_start_236[] = {
	0x48, 0x89, 0xe7,		    /* mov %rsp,%rdi */
	0xe8, 0,    0,	  0,	0,	    /* call _dl_start */
	0x49, 0x89, 0xc4,		    /* _dl_start_user: mov %rax,%r12 */
	0x48, 0x8b, 0x14, 0x24,		    /* mov (%rsp),%rdx */
	0x48, 0x89, 0xd6,		    /* mov %rdx,%rsi */
	0x49, 0x89, 0xe5,		    /* mov %rsp,%r13 */
	0x48, 0x83, 0xe4, 0xf0,		    /* and $-16,%rsp */
	0x48, 0x8b, 0x3d, 0,	0,    0, 0, /* mov _rtld_local(%rip),%rdi */
	0x49, 0x8d, 0x4c, 0xd5, 0x10,	    /* lea 16(%r13,%rdx,8),%rcx */
	0x49, 0x8d, 0x55, 0x08,		    /* lea 8(%r13),%rdx */
	0x31, 0xed,			    /* xor %ebp,%ebp */
	0xe8, 0,    0,	  0,	0,	    /* call _dl_init */
	0x48, 0x8d, 0x15, 0,	0,    0, 0, /* lea _dl_fini(%rip),%rdx */
	0x4c, 0x89, 0xec,		    /* mov %r13,%rsp */
	0x41, 0xff, 0xe4,		    /* jmp *%r12 */
};
static const uint8_t rtld_start_236_mask[] = {
	1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0,
	0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1,
};
_Static_assert(sizeof(rtld_start_236) == 61 && sizeof(rtld_start_236_mask) == 61,
	       "RTLD_START pattern");

static const struct code_pattern entry_patterns[] = {
	{ "RTLD_START (glibc 2.36)", sizeof(rtld_start_236), rtld_start_236, rtld_start_236_mask },
};

/* The length of the known outermost code at file offset off (an entry point), or 0. */
static uint64_t entry_code_len(Elf *elf, const struct seg *sg, uint64_t off)
{
	size_t size = 0;
	const uint8_t *file = (const uint8_t *)elf_rawfile(elf, &size);

	for (size_t i = 0; file && i < sizeof(entry_patterns) / sizeof(entry_patterns[0]); i++) {
		const struct code_pattern *p = &entry_patterns[i];
		size_t k = 0;

		/* Inside the file and inside the entry's segment. */
		if (off > size || size - off < p->len ||
		    off + p->len > sg->off + (sg->end - sg->vaddr))
			continue;
		while (k < p->len && (file[off + k] & (p->mask[k] ? 0xff : 0)) == p->bytes[k])
			k++;
		if (k == p->len)
			return p->len;
	}
	return 0;
}

/* The program entry point is the outermost frame by definition. Where no FDE covers it (ld.so's
 * _start, a call to _dl_start followed by _dl_start_user, has no CFI), an END row over its
 * first 16 bytes (the return address of that call is entry + 8), or over the whole of the
 * known entry code (entry_code_len: ld.so's _dl_start_user, whose call to _dl_init runs every
 * library's constructors), lets walks through it end complete, without claiming the code
 * after it. Never past the next FDE. */
static int entry_end(struct builder *b, Elf *elf)
{
	struct ivals *iv = &b->src[SRC_EH];
	const struct utab_rule end = { .cfa = UTAB_CFA_END, .ra_off = -8 };
	const struct seg *sg;
	GElf_Ehdr eh;
	uint64_t off, lim, len;
	uint32_t idx;
	int rc;

	if (!gelf_getehdr(elf, &eh) || !eh.e_entry || !(sg = seg_find(b, eh.e_entry)))
		return 0;
	off = eh.e_entry - sg->vaddr + sg->off;
	len = entry_code_len(elf, sg, off);
	lim = off + (len > 16 ? len : 16);
	for (size_t i = 0; i < iv->n; i++) {
		if (iv->v[i].start <= off && off < iv->v[i].end)
			return 0; /* covered */
		if (iv->v[i].start > off && iv->v[i].start < lim)
			lim = iv->v[i].start;
	}
	if ((rc = rule_add(b, &end, &idx)) < 0 ||
	    (rc = add_range(b, SRC_EH, eh.e_entry, eh.e_entry + (lim - off), idx)) < 0)
		return rc;
	sweep(iv);
	return 0;
}

/*
 * PLT stubs that no FDE describes: a static binary's .plt holds only the IRELATIVE stubs of
 * libc's ifuncs (memcpy, strlen...), 8 bytes each, "jmp *GOT(%rip); xchg %ax,%ax", and ld writes
 * no CFI for it. A stub is entered by a call and leaves by its jmp without touching rsp, so at
 * every byte of it the return address is at rsp: CFA = rsp + 8. A section gets the rule only
 * when every one of its entries is that instruction pair and no FDE covers any of its bytes.
 */
#define PLT_STUB_SIZE 8
static bool plt_stub(const uint8_t *p)
{
	return p[0] == 0xff && p[1] == 0x25 && p[6] == 0x66 && p[7] == 0x90;
}

static int plt_stubs(struct builder *b, Elf *elf)
{
	static const char *const names[] = { ".plt", ".iplt", ".plt.got" };
	const struct utab_rule stub = { .cfa = UTAB_CFA_SP, .cfa_off = 8, .ra_off = -8 };
	struct ivals *iv = &b->src[SRC_EH];
	size_t size = 0, n_added = 0;
	const uint8_t *file = (const uint8_t *)elf_rawfile(elf, &size);
	uint32_t idx;
	int rc;

	for (size_t i = 0; file && i < sizeof(names) / sizeof(names[0]); i++) {
		Elf_Scn *scn = find_section(elf, names[i]);
		GElf_Shdr sh;
		bool ok;

		if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) ||
		    !sh.sh_size || sh.sh_size % PLT_STUB_SIZE || sh.sh_size > PLT_EXPAND_MAX ||
		    sh.sh_offset > size || size - sh.sh_offset < sh.sh_size)
			continue;
		ok = true;
		for (uint64_t o = 0; o < sh.sh_size && ok; o += PLT_STUB_SIZE)
			ok = plt_stub(file + sh.sh_offset + o);
		for (size_t k = 0; k < iv->n && ok; k++)
			ok = iv->v[k].end <= sh.sh_offset ||
			     iv->v[k].start >= sh.sh_offset + sh.sh_size;
		if (!ok)
			continue;
		if ((rc = rule_add(b, &stub, &idx)) < 0 ||
		    (rc = add_range(b, SRC_EH, sh.sh_addr, sh.sh_addr + sh.sh_size, idx)) < 0)
			return rc;
		b->st->n_plt_stubs += (uint32_t)(sh.sh_size / PLT_STUB_SIZE);
		n_added++;
	}
	if (n_added)
		sweep(iv);
	return 0;
}

/*
 * Go's stack switches: runtime.systemstack, runtime.mcall, runtime.morestack,
 * runtime.asmcgocall(_no_g), runtime.cgocallback, and time.now and runtime.nanotime1 around
 * their vDSO calls, move rsp to another stack (the thread's g0, or the C stack) with a
 * "mov ..., %rsp" and call a function there. Go's CFI for them (cfa = rsp + 8 throughout) no
 * longer holds after that instruction: the words it would read as the caller are whatever the
 * g0 stack held (on the main thread, rt0_go's call of runtime.newproc and the address of
 * runtime.g0: a caller that never called, 1.4 % of a Go program's samples). From the first such
 * instruction to the function's end (the whole function when none is found) the rule is
 * UNKNOWN: the walk stops there as a bad frame rather than guess. The goroutine's own frames
 * are on its stack, which the sample's copy does not hold.
 * And Go's signal restorer, runtime.sigreturn (its sa_restorer: "mov $15,%eax; syscall"), has
 * CFI of an ordinary function, which reads a word of the ucontext as a caller: it is a signal
 * frame, as glibc's __restore_rt (rsp points at the ucontext when the handler returns to it).
 */
struct go_fix {
	const char *name;
	uint8_t cfa;	/* enum utab_cfa */
	bool at_switch; /* from the first write of rsp on, else the whole function */
};
static const struct go_fix go_fixes[] = {
	{ "runtime.systemstack.abi0", UTAB_CFA_UNKNOWN, true },
	{ "runtime.systemstack", UTAB_CFA_UNKNOWN, true },
	{ "runtime.mcall", UTAB_CFA_UNKNOWN, true },
	{ "runtime.mcall.abi0", UTAB_CFA_UNKNOWN, true },
	{ "runtime.morestack.abi0", UTAB_CFA_UNKNOWN, true },
	{ "runtime.morestack", UTAB_CFA_UNKNOWN, true },
	{ "runtime.asmcgocall.abi0", UTAB_CFA_UNKNOWN, true },
	{ "runtime.asmcgocall", UTAB_CFA_UNKNOWN, true },
	{ "runtime.asmcgocall_no_g.abi0", UTAB_CFA_UNKNOWN, true },
	{ "runtime.asmcgocall_no_g", UTAB_CFA_UNKNOWN, true },
	{ "runtime.cgocallback.abi0", UTAB_CFA_UNKNOWN, true },
	{ "runtime.cgocallback", UTAB_CFA_UNKNOWN, true },
	/* The vDSO's clock is called on the g0 stack (go 1.19: time_linux_amd64.s,
	 * sys_linux_amd64.s): a sample in __vdso_clock_gettime under time.now read the g0
	 * stack's words as time.now's caller ([unknown] 0xc000186e4f). */
	/* gogo (asm_amd64.s's file-local gogo<>) loads the goroutine's sp, then jumps to it. */
	{ "gogo", UTAB_CFA_UNKNOWN, true },
	{ "time.now", UTAB_CFA_UNKNOWN, true },
	{ "time.now.abi0", UTAB_CFA_UNKNOWN, true },
	{ "runtime.nanotime1.abi0", UTAB_CFA_UNKNOWN, true },
	{ "runtime.nanotime1", UTAB_CFA_UNKNOWN, true },
	{ "runtime.sigreturn.abi0", UTAB_CFA_SIGNAL, false },
	{ "runtime.sigreturn", UTAB_CFA_SIGNAL, false },
	{ "runtime.sigreturn__sigaction", UTAB_CFA_SIGNAL, false },
	{ "runtime.sigreturn__sigaction.abi0", UTAB_CFA_SIGNAL, false },
};
#define N_GO_FIXES (sizeof(go_fixes) / sizeof(go_fixes[0]))

/* The offset in P[0, N) of the first "mov r/m64, %rsp" (REX.W 8b, reg rsp) or "mov r64, %rsp"
 * (REX.W 89, register-direct rm rsp), or 0 when none. Bytes, not instructions: a match inside
 * an earlier instruction only moves the start earlier (fewer frames, never a wrong one). */
static uint64_t rsp_write_at(const uint8_t *p, uint64_t n)
{
	for (uint64_t i = 0; i + 3 <= n; i++) {
		if ((p[i] == 0x48 || p[i] == 0x49) && p[i + 1] == 0x8b && ((p[i + 2] >> 3) & 7) == 4)
			return i;
		if ((p[i] == 0x48 || p[i] == 0x4c) && p[i + 1] == 0x89 && (p[i + 2] & 0xc7) == 0xc4)
			return i;
	}
	return 0;
}

/* Rule RULE over file offsets [s, e) of the sorted, disjoint ranges IV, in place of theirs
 * (only where they have one). */
static int carve(struct ivals *iv, uint64_t s, uint64_t e, uint32_t rule)
{
	struct ivals out = { 0 };

	for (size_t i = 0; i < iv->n; i++) {
		struct ival x = iv->v[i], y[3];
		size_t k = 0;

		if (x.end <= s || x.start >= e) {
			y[k++] = x;
		} else {
			if (x.start < s)
				y[k++] = (struct ival){ x.start, s, x.rule };
			y[k++] =
			    (struct ival){ x.start > s ? x.start : s, x.end < e ? x.end : e, rule };
			if (x.end > e)
				y[k++] = (struct ival){ e, x.end, x.rule };
		}
		if (GROW(out.v, out.cap, out.n + k) < 0) {
			free(out.v);
			return -ENOMEM;
		}
		memcpy(out.v + out.n, y, k * sizeof(*y));
		out.n += k;
	}
	free(iv->v);
	*iv = out;
	return 0;
}

/* The symbol table's next entry for one of go_fixes, as vaddr [*ret_start, *ret_end), one at a
 * time: *IDX is where the search goes on. */
static const struct go_fix *next_go_fix(Elf *elf, Elf_Data *data, size_t n, size_t strndx,
					size_t *idx, uint64_t *ret_start, uint64_t *ret_end)
{
	for (; *idx < n; (*idx)++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(data, (int)*idx, &sym) || !sym.st_size || !sym.st_value ||
		    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    !(name = elf_strptr(elf, strndx, sym.st_name)) ||
		    (strncmp(name, "runtime.", 8) && strncmp(name, "time.", 5) &&
		     strcmp(name, "gogo")))
			continue;
		for (size_t k = 0; k < N_GO_FIXES; k++) {
			if (strcmp(name, go_fixes[k].name))
				continue;
			*ret_start = sym.st_value;
			*ret_end = sym.st_value + sym.st_size;
			(*idx)++;
			return &go_fixes[k];
		}
	}
	return NULL;
}

static int go_rules(struct builder *b, Elf *elf)
{
	const struct go_fix *fx;
	Elf_Scn *scn = find_section(elf, ".symtab");
	size_t size = 0, n, idx = 1, n_done = 0;
	const uint8_t *file = (const uint8_t *)elf_rawfile(elf, &size);
	uint64_t vs, ve;
	Elf_Data *data;
	GElf_Shdr sh;
	uint32_t rule;
	int rc;

	if (!file || !scn ||
	    (!find_section(elf, ".gopclntab") && !find_section(elf, ".go.buildinfo") &&
	     !find_section(elf, ".note.go.buildid")) ||
	    !gelf_getshdr(scn, &sh) || !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
		return 0;
	n = sh.sh_size / sh.sh_entsize;
	while (n_done < N_GO_FIXES && (fx = next_go_fix(elf, data, n, sh.sh_link, &idx, &vs, &ve))) {
		const struct utab_rule r = { .cfa = fx->cfa };
		const struct seg *sg = seg_find(b, vs);
		uint64_t off, len;

		if (!sg || ve > sg->end)
			continue;
		off = vs - sg->vaddr + sg->off;
		len = ve - vs;
		if (off > size || size - off < len)
			continue;
		if (fx->at_switch)
			off += rsp_write_at(file + off, len);
		if ((rc = rule_add(b, &r, &rule)) < 0 ||
		    (rc = carve(&b->src[SRC_EH], off, vs - sg->vaddr + sg->off + len, rule)) < 0)
			return rc;
		n_done++;
	}
	return 0;
}

static int build_elf(struct builder *b, Elf *elf, int fd, void **ret_buf, size_t *ret_size)
{
	const struct utab_rule none = { .cfa = UTAB_CFA_NONE };
	uint32_t flags, idx;
	int rc;

	if ((rc = check_elf(b, elf)) < 0 || (rc = read_segments(b, elf)) < 0)
		return rc;
	if ((rc = rule_add(b, &none, &idx)) < 0 || (rc = read_sources(b, elf, &flags)) < 0)
		return rc;
	if (!flags) {
		snprintf(b->why, b->why_size, "no .eh_frame or .debug_frame");
		return -ENOENT;
	}
	if ((rc = merge_debug(b)) < 0 || (rc = go_rules(b, elf)) < 0 ||
	    (rc = entry_end(b, elf)) < 0 || (rc = plt_stubs(b, elf)) < 0)
		return rc;
	if (!b->src[SRC_EH].n) {
		snprintf(b->why, b->why_size,
			 "no unwind rows inside the file's loadable segments (%u FDEs read)",
			 b->st->n_fdes);
		return -ENODATA;
	}
	if ((rc = emit_rows(b, &b->src[SRC_EH])) < 0)
		return rc;
	return assemble(b, fd, flags, ret_buf, ret_size);
}

int utabbuild_fd(int fd, void **ret_buf, size_t *ret_size, struct utabbuild_stats *st, char *why,
		 size_t why_size)
{
	struct utabbuild_stats local;
	struct builder b = { .why = why, .why_size = why_size };
	uint64_t t0 = util_now_ns();
	Elf *elf;
	int rc;

	b.st = st ? st : &local;
	memset(b.st, 0, sizeof(*b.st));
	if (why_size)
		why[0] = 0;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		snprintf(why, why_size, "not an ELF file (%s)", elf_errmsg(-1));
		return -ENOEXEC;
	}
	rc = build_elf(&b, elf, fd, ret_buf, ret_size);
	elf_end(elf);
	free(b.rules);
	free(b.slots);
	free(b.src[SRC_EH].v);
	free(b.src[SRC_DEBUG].v);
	free(b.rows);
	b.st->build_ns = util_now_ns() - t0;
	if (rc == -ENOMEM && why_size && !why[0])
		snprintf(why, why_size, "out of memory");
	return rc;
}
