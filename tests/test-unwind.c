/* test-unwind.c — the compact unwind tables (utab: checker, lookup) and the stack walker
 * (walk) on synthetic tables and stacks: the exact pcs and stop reason of every rule and of
 * every way a walk ends, every corruption the checker refuses, and one informational line of
 * ns/frame. With --write-seeds DIR it writes the seed tables of tests/fuzz/corpus/fuzz-utab. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>

#include "check.h"
#include "format/format.h"
#include "unwind/utab.h"
#include "unwind/walk.h"

/* ---- tables ------------------------------------------------------------------------------ */

#define RULE(kind, cfa_off, flags, bp_off)                                                         \
	((struct utab_rule){ kind, flags, -8, bp_off, 0, cfa_off })

/* The table of the test program's text: rules, then rows as offsets into the mapping. */
static const struct utab_rule main_rules[] = {
	RULE(UTAB_CFA_NONE, 0, 0, 0),
	RULE(UTAB_CFA_SP, 8, 0, 0),		   /* 1: at a function's entry */
	RULE(UTAB_CFA_SP, 16, 0, 0),		   /* 2 */
	RULE(UTAB_CFA_SP, 32, 0, 0),		   /* 3 */
	RULE(UTAB_CFA_BP, 16, UTAB_BP_SAVED, -16), /* 4: push rbp; mov rsp, rbp */
	RULE(UTAB_CFA_END, 0, 0, 0),		   /* 5: _start */
	RULE(UTAB_CFA_PLT, 0, 0, 0),		   /* 6: .plt */
	RULE(UTAB_CFA_SIGNAL, 0, 0, 0),		   /* 7: __restore_rt */
	RULE(UTAB_CFA_UNKNOWN, 0, 0, 0),	   /* 8 */
	RULE(UTAB_CFA_SP, 0, 0, 0),		   /* 9: a rule that does not move sp */
	RULE(UTAB_CFA_SP, 16, UTAB_BP_SAVED, -16), /* 10: push rbp, rbp not the frame base */
	RULE(UTAB_CFA_SP, 8, UTAB_BP_SAVED, -16),  /* 11: after pop rbp: the rule stays */
};

static const struct utab_row main_rows[] = {
	{ 0x1000, 1 },	/* f_a's entry */
	{ 0x1001, 2 },	/* f_a */
	{ 0x1010, 3 },	/* f_b: [0x1010, 0x1020), its last instruction a call */
	{ 0x1020, 2 },	/* f_c */
	{ 0x1030, 4 },	/* f_d, rbp-based */
	{ 0x1040, 5 },	/* _start */
	{ 0x1048, 0 },	/* a gap between FDEs */
	{ 0x1060, 6 },	/* .plt */
	{ 0x1080, 7 },	/* the FDE of __restore_rt starts one byte (a nop) before it */
	{ 0x1090, 8 },	/* an expression rule */
	{ 0x10a0, 9 },	/* a broken rule */
	{ 0x10b0, 10 }, /* f_e */
	{ 0x10bc, 11 }, /* f_e's epilogue, rbp popped */
	{ 0x10c0, 0 },	/* the end */
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Assemble and seal a table in buf (8-byte aligned); returns its size, 0 if it does not fit. */
static size_t tab_build(void *buf, size_t buf_size, const struct utab_rule *rules, uint32_t n_rules,
			const struct utab_row *rows, uint32_t n_rows)
{
	struct utab_hdr *h = buf;
	size_t size = sizeof(*h) + n_rules * sizeof(*rules) + n_rows * sizeof(*rows);

	if (size > buf_size)
		return 0;
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, UTAB_MAGIC, 8);
	h->version = UTAB_VERSION;
	h->hdr_size = sizeof(*h);
	h->n_rules = n_rules;
	h->n_rows = n_rows;
	h->flags = UTAB_F_EH_FRAME;
	h->n_fdes = n_rows / 2;
	h->build_id_len = 20;
	for (int i = 0; i < 20; i++)
		h->build_id[i] = (uint8_t)(0xb0 + i);
	memcpy((char *)buf + sizeof(*h), rules, n_rules * sizeof(*rules));
	memcpy((char *)buf + sizeof(*h) + n_rules * sizeof(*rules), rows, n_rows * sizeof(*rows));
	utab_seal(buf);
	return size;
}

static uint64_t main_buf[256];
static size_t main_size;
static struct utab main_tab;

static void main_tab_init(void)
{
	char why[256] = "";

	main_size = tab_build(main_buf, sizeof(main_buf), main_rules, N_OF(main_rules), main_rows,
			      N_OF(main_rows));
	if (!main_size || utab_check(main_buf, main_size, &main_tab, why, sizeof(why)) != 0) {
		fprintf(stderr, "test-unwind: the test table is refused: %s\n", why);
		exit(1);
	}
}

/* ---- utab_check and utab_find ---------------------------------------------------------- */

static uint64_t bad_buf[256];

/* A fresh copy of the main table to corrupt. */
static struct utab_hdr *bad_copy(void)
{
	memcpy(bad_buf, main_buf, main_size);
	return (struct utab_hdr *)bad_buf;
}

static struct utab_rule *bad_rules(void)
{
	return (struct utab_rule *)((char *)bad_buf + sizeof(struct utab_hdr));
}

static struct utab_row *bad_rows(void)
{
	return (struct utab_row *)(bad_rules() + N_OF(main_rules));
}

/* The copy, resealed when reseal, must be refused with a why that contains want. */
static void refused(const char *what, bool reseal, size_t size, const char *want)
{
	struct utab t = { 0 };
	char why[256] = "";

	test_ctx = what;
	if (reseal)
		utab_seal(bad_buf);
	CHECK_INT(utab_check(bad_buf, size, &t, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, want) != NULL, "why \"%s\" does not say \"%s\"", why, want);
	CHECK(t.hdr == NULL, "ret untouched on failure");
}

static void test_check(void)
{
	struct utab t;
	char why[256] = "";

	test_ctx = "utab_check: a correct table";
	CHECK(utab_check(main_buf, main_size, &t, why, sizeof(why)) == 0, "%s", why);
	CHECK_INT(t.n_rules, N_OF(main_rules));
	CHECK_INT(t.n_rows, N_OF(main_rows));
	CHECK(t.rules == (const void *)((const char *)main_buf + 72) &&
	      (const void *)t.rows == (const void *)(t.rules + t.n_rules));

	memcpy(bad_copy()->magic, "RPUTAB\0\2", 8);
	refused("bad magic", false, main_size, "no magic");
	refused("shorter than a header", false, 40, "no magic");
	bad_copy()->version = 2;
	refused("version", false, main_size, "version 2");
	bad_copy()->hdr_size = 80;
	refused("header size", false, main_size, "header 80 bytes");
	bad_copy();
	bad_rows()[3].off ^= 0x100;
	refused("CRC", false, main_size, "CRC mismatch");
	bad_copy();
	refused("buffer shorter than the table", false, main_size - 8, "size");
	bad_copy()->n_rows++;
	refused("counts vs size", true, main_size, "counts say");
	bad_copy()->size += 8;
	refused("size field vs counts", false, main_size, "its header says");
	bad_copy()->n_rules = 0;
	refused("no rules", true, main_size, "counts out of range");
	bad_copy()->n_rows = UTAB_MAX_ROWS + 1;
	refused("too many rows", false, main_size, "counts out of range");
	bad_copy()->build_id_len = 21;
	refused("build-id length", true, main_size, "counts out of range");
	bad_copy();
	bad_rows()[4].off = bad_rows()[3].off;
	refused("rows not strictly ascending", true, main_size, "row 4");
	bad_copy();
	bad_rows()[5].off = 0x0fff;
	refused("rows unsorted", true, main_size, "row 5");
	bad_copy();
	bad_rows()[2].rule = N_OF(main_rules);
	refused("rule index out of range", true, main_size, "row 2: rule 12 of 12");
	bad_copy();
	bad_rules()[3].cfa = UTAB_CFA_N;
	refused("unknown cfa kind", true, main_size, "rule 3: unknown kind");
	bad_copy();
	bad_rules()[3].flags = 2;
	refused("unknown flags", true, main_size, "rule 3: unknown kind 1 or flags 0x2");
	bad_copy();
	bad_rules()[3].pad = 1;
	refused("pad not 0", true, main_size, "rule 3");
	bad_copy();
	bad_rules()[0].cfa = UTAB_CFA_SP;
	refused("rule 0 not NONE", true, main_size, "rule 0 is not");
	bad_copy();
	bad_rows()[N_OF(main_rows) - 1].rule = 2;
	refused("last row not rule 0", true, main_size, "does not end the table");
	bad_copy();
	bad_rules()[2].cfa_off = (1 << 24) + 1;
	refused("huge CFA offset", true, main_size, "CFA offset 16777217 out of range");
	bad_copy();
	bad_rules()[2].cfa_off = INT32_MIN;
	refused("huge negative CFA offset", true, main_size, "CFA offset");
	bad_copy();
	bad_rules()[2].ra_off = 4104;
	refused("huge ra offset", true, main_size, "offsets 4104/0 out of range");
	bad_copy();
	bad_rules()[4].bp_off = -4104;
	refused("huge bp offset", true, main_size, "offsets -8/-4104 out of range");
	bad_copy();
	bad_rules()[2].ra_off = -4;
	refused("ra offset not a multiple of 8", true, main_size, "offsets -4/0");
}

static void test_find(void)
{
	const struct utab *t = &main_tab;

	test_ctx = "utab_find";
	CHECK(utab_find(t, 0) == NULL, "before the first row");
	CHECK(utab_find(t, 0xfff) == NULL, "just before the first row");
	CHECK(utab_find(t, 0x1000) == &t->rules[1], "exactly at the first row");
	CHECK(utab_find(t, 0x1001) == &t->rules[2], "exactly at a row start");
	CHECK(utab_find(t, 0x100f) == &t->rules[2], "the last byte of a row");
	CHECK(utab_find(t, 0x1010) == &t->rules[3]);
	CHECK(utab_find(t, 0x1047) == &t->rules[5], "the last byte before a gap");
	CHECK(utab_find(t, 0x1048) == NULL, "a gap row");
	CHECK(utab_find(t, 0x105f) == NULL, "the end of a gap row");
	CHECK(utab_find(t, 0x1060) == &t->rules[6], "after a gap");
	CHECK(utab_find(t, 0x10bf) == &t->rules[11], "the last byte of the last FDE");
	CHECK(utab_find(t, 0x10c0) == NULL, "the last row");
	CHECK(utab_find(t, 0x7fffffff) == NULL, "past the last row");
	CHECK(utab_find(t, 0x100001010ull) == NULL, "beyond 32 bits (no truncation)");
	for (size_t i = 0; i < N_OF(main_rows); i++) {
		const struct utab_rule *want =
		    main_rows[i].rule ? &t->rules[main_rows[i].rule] : NULL;

		CHECK(utab_find(t, main_rows[i].off) == want, "row %zu", i);
	}
	{
		/* One row: the end row alone covers nothing. */
		static uint64_t buf[32];
		const struct utab_row end = { 0x1000, 0 };
		struct utab one;
		char why[128];
		size_t size = tab_build(buf, sizeof(buf), main_rules, 1, &end, 1);

		CHECK(utab_check(buf, size, &one, why, sizeof(why)) == 0, "%s", why);
		CHECK(utab_find(&one, 0x1000) == NULL && utab_find(&one, 0xfff) == NULL);
	}
}

/* ---- the sampled process: its mappings, its stack ---------------------------------------- */

#define TEXT 0x555555554000ull /* the program's text, with main_tab */
#define PC(off) (TEXT + (off))
#define PEND 0x7f0000000000ull	/* a library whose table is being built */
#define NOTAB 0x7f0000100000ull /* a library without a table */
#define JIT 0x7e0000000000ull	/* code in no mapping the recorder knows */
#define SP0 0x7ffc00001000ull	/* the sample's sp: the copy starts here */
#define SA(i) (SP0 + 8 * (uint64_t)(i))

struct proc {
	const struct utab *text_tab;
	uint64_t looked[64]; /* the pcs the walker looked up */
	size_t n_looked;
};

static enum uw_where find_pc(void *arg, uint64_t pc, const struct utab **tab, uint64_t *off)
{
	struct proc *p = arg;

	if (p->n_looked < N_OF(p->looked))
		p->looked[p->n_looked++] = pc;
	if (pc >= TEXT && pc < TEXT + 0x2000) {
		*tab = p->text_tab;
		*off = pc - TEXT;
		return UW_WHERE_TABLE;
	}
	if (pc >= PEND && pc < PEND + 0x1000)
		return UW_WHERE_PENDING;
	if (pc >= NOTAB && pc < NOTAB + 0x1000)
		return UW_WHERE_NONE;
	return UW_WHERE_UNMAPPED;
}

static uint64_t stk[1024];
static struct proc proc;
static uint64_t pcs[64];
static struct uw_result res;
static uint64_t sample_sp;

static void stack_reset(void)
{
	memset(stk, 0, sizeof(stk));
	sample_sp = SP0;
}

static void set(uint64_t addr, uint64_t v)
{
	memcpy((char *)stk + (addr - sample_sp), &v, 8);
}

/* Walk the sample (ip, sample_sp, bp) over the first size bytes of stk. */
static size_t walk(uint64_t ip, uint64_t bp, uint64_t size, size_t max)
{
	struct uw_regs regs = { ip, sample_sp, bp };
	struct uw_stack st = { (const unsigned char *)stk, size };
	size_t n;

	proc.text_tab = &main_tab;
	proc.n_looked = 0;
	memset(pcs, 0xa5, sizeof(pcs));
	memset(&res, 0x5a, sizeof(res));
	n = uw_walk(&regs, &st, find_pc, &proc, pcs, max, &res);
	CHECK_INT(n, res.n);
	return n;
}

#define WANT(stop, ...)                                                                            \
	want_(stop, (const uint64_t[]){ __VA_ARGS__ },                                             \
	      sizeof((const uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t))

/* The last walk ended with stop, with exactly the pcs want. */
static void want_(enum uw_stop stop, const uint64_t *want, size_t n_want)
{
	CHECK(res.stop == stop, "stopped: %s, expected: %s", format_unwind_stop_name(res.stop),
	      format_unwind_stop_name(stop));
	CHECK_INT(res.n, n_want);
	for (size_t i = 0; i < n_want && i < res.n; i++)
		CHECK(pcs[i] == want[i], "pcs[%zu] = %#" PRIx64 ", expected %#" PRIx64, i, pcs[i],
		      want[i]);
	CHECK_U64(res.stop_pc, want[n_want - 1]);
	if (res.n < N_OF(pcs))
		CHECK_U64(pcs[res.n], 0xa5a5a5a5a5a5a5a5ull); /* nothing written past n */
}

/* The pcs looked up, in order. */
#define LOOKED(...)                                                                                \
	looked_((const uint64_t[]){ __VA_ARGS__ },                                                 \
		sizeof((const uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t))

static void looked_(const uint64_t *want, size_t n_want)
{
	if (!CHECK_INT(proc.n_looked, n_want))
		return;
	for (size_t i = 0; i < n_want; i++)
		CHECK(proc.looked[i] == want[i], "lookup %zu at %#" PRIx64 ", expected %#" PRIx64,
		      i, proc.looked[i], want[i]);
}

/* ---- walks -------------------------------------------------------------------------------- */

/* f_b (rsp + 32) called by f_c (rsp + 16) called by _start. */
static void three_frames(void)
{
	stack_reset();
	set(SA(3), PC(0x1025));
	set(SA(5), PC(0x1044));
}

static void test_sp_walk(void)
{
	test_ctx = "three frames, CFA = rsp + N, to _start";
	three_frames();
	walk(PC(0x1015), 0, sizeof(stk), N_OF(pcs));
	WANT(UW_COMPLETE, PC(0x1015), PC(0x1025), PC(0x1044));
	LOOKED(PC(0x1015), PC(0x1024), PC(0x1043));
	CHECK_INT(res.fp_steps, 0);

	test_ctx = "max depth";
	walk(PC(0x1015), 0, sizeof(stk), 3);
	WANT(UW_COMPLETE, PC(0x1015), PC(0x1025), PC(0x1044));
	walk(PC(0x1015), 0, sizeof(stk), 2);
	WANT(UW_MAX_DEPTH, PC(0x1015), PC(0x1025));
	walk(PC(0x1015), 0, sizeof(stk), 1);
	WANT(UW_MAX_DEPTH, PC(0x1015));
	walk(PC(0x1015), 0, sizeof(stk), 0);
	CHECK_INT(res.n, 0);
	CHECK(res.stop == UW_MAX_DEPTH && res.stop_pc == PC(0x1015));
	CHECK_U64(pcs[0], 0xa5a5a5a5a5a5a5a5ull);

	test_ctx = "the stack ends mid-frame";
	walk(PC(0x1015), 0, 5 * 8, N_OF(pcs));
	WANT(UW_STACK_END, PC(0x1015), PC(0x1025));
	walk(PC(0x1015), 0, 6 * 8 - 1, N_OF(pcs));
	WANT(UW_STACK_END, PC(0x1015), PC(0x1025));
	walk(PC(0x1015), 0, 6 * 8, N_OF(pcs));
	WANT(UW_COMPLETE, PC(0x1015), PC(0x1025), PC(0x1044));
	walk(PC(0x1015), 0, 4 * 8 - 1, N_OF(pcs));
	WANT(UW_STACK_END, PC(0x1015));
	walk(PC(0x1015), 0, 0, N_OF(pcs));
	WANT(UW_STACK_END, PC(0x1015));

	test_ctx = "a return address at the end of its function";
	stack_reset();
	set(SA(1), PC(0x1020)); /* f_b's last instruction calls: the ra is f_c's first byte */
	set(SA(3), PC(0x1046)); /* where f_c's rule would find it */
	set(SA(5), PC(0x1044)); /* where f_b's rule finds it */
	walk(PC(0x1025), 0, sizeof(stk), N_OF(pcs));
	WANT(UW_COMPLETE, PC(0x1025), PC(0x1020), PC(0x1044));
	LOOKED(PC(0x1025), PC(0x101f), PC(0x1043));
}

static void test_bp_walk(void)
{
	test_ctx = "CFA = rbp + 16, rbp saved";
	stack_reset();
	set(SA(6), SA(12)); /* f_d's saved rbp: its caller's frame */
	set(SA(7), PC(0x1036));
	set(SA(12), 0);
	set(SA(13), PC(0x1044));
	walk(PC(0x1035), SA(6), sizeof(stk), N_OF(pcs));
	WANT(UW_COMPLETE, PC(0x1035), PC(0x1036), PC(0x1044));

	test_ctx = "CFA = rsp + 16, rbp saved, then a frame-pointer step with it";
	stack_reset();
	set(SA(0), SA(4));
	set(SA(1), NOTAB + 0x20);
	set(SA(5), PC(0x1044));
	walk(PC(0x10b5), 0, sizeof(stk), N_OF(pcs));
	WANT(UW_COMPLETE, PC(0x10b5), NOTAB + 0x20, PC(0x1044));
	CHECK_INT(res.fp_steps, 1);

	test_ctx =
	    "an epilogue: rbp's save slot lies below sp (popped), rbp is its own value again";
	stack_reset();
	set(SA(0), PC(0x1044));
	walk(PC(0x10bd), SA(40), sizeof(stk), N_OF(pcs));
	WANT(UW_COMPLETE, PC(0x10bd), PC(0x1044));
	CHECK_INT(res.fp_steps, 0);

	test_ctx = "sp does not grow (a loop)";
	stack_reset();
	set(SA(0), SP0); /* the saved rbp points at itself */
	set(SA(1), PC(0x1036));
	walk(PC(0x1035), SP0, sizeof(stk), N_OF(pcs));
	WANT(UW_BAD_FRAME, PC(0x1035), PC(0x1036));
	walk(PC(0x10a5), SP0, sizeof(stk), N_OF(pcs));
	WANT(UW_BAD_FRAME, PC(0x10a5));
	test_ctx = "rbp below sp";
	walk(PC(0x1035), SP0 - 64, sizeof(stk), N_OF(pcs));
	WANT(UW_BAD_FRAME, PC(0x1035));
	test_ctx = "rbp + offset wraps";
	walk(PC(0x1035), UINT64_MAX - 7, sizeof(stk), N_OF(pcs));
	WANT(UW_BAD_FRAME, PC(0x1035));
	test_ctx = "an expression rule";
	walk(PC(0x1095), SA(6), sizeof(stk), N_OF(pcs));
	WANT(UW_BAD_FRAME, PC(0x1095));
}

static void test_fp_fallback(void)
{
	test_ctx = "unmapped, no frame pointer";
	stack_reset();
	walk(JIT + 0x100, 0, sizeof(stk), N_OF(pcs));
	WANT(UW_NO_INFO, JIT + 0x100);
	walk(JIT + 0x100, SA(2) + 4, sizeof(stk), N_OF(pcs));
	WANT(UW_NO_INFO, JIT + 0x100);
	walk(JIT + 0x100, SP0 - 16, sizeof(stk), N_OF(pcs));
	WANT(UW_NO_INFO, JIT + 0x100);
	walk(JIT + 0x100, SA(2), 3 * 8, N_OF(pcs)); /* [rbp, rbp + 16) not all in the copy */
	WANT(UW_NO_INFO, JIT + 0x100);
	CHECK_INT(res.fp_steps, 0);

	test_ctx = "rbp in the copy but below sp";
	set(SA(0), SP0);
	set(SA(1), NOTAB + 0x20);
	walk(PC(0x1025), SP0, sizeof(stk), N_OF(pcs));
	WANT(UW_NO_INFO, PC(0x1025), NOTAB + 0x20);
	CHECK_INT(res.fp_steps, 0);

	test_ctx = "unmapped (JIT) code with frame pointers, then tables";
	stack_reset();
	set(SA(4), SA(8));
	set(SA(5), JIT + 0x200);
	set(SA(8), SA(20));
	set(SA(9), PC(0x1025));
	set(SA(11), PC(0x1044));
	walk(JIT + 0x100, SA(4), sizeof(stk), N_OF(pcs));
	WANT(UW_COMPLETE, JIT + 0x100, JIT + 0x200, PC(0x1025), PC(0x1044));
	LOOKED(JIT + 0x100, JIT + 0x1ff, PC(0x1024), PC(0x1043));
	CHECK_INT(res.fp_steps, 2);

	test_ctx = "no table for the object: a frame-pointer step";
	stack_reset();
	set(SA(2), 0);
	set(SA(3), PC(0x1044));
	walk(NOTAB + 0x10, SA(2), sizeof(stk), N_OF(pcs));
	WANT(UW_COMPLETE, NOTAB + 0x10, PC(0x1044));
	CHECK_INT(res.fp_steps, 1);

	test_ctx = "a gap row in the table: a frame-pointer step";
	walk(PC(0x1050), SA(2), sizeof(stk), N_OF(pcs));
	WANT(UW_COMPLETE, PC(0x1050), PC(0x1044));
	CHECK_INT(res.fp_steps, 1);

	test_ctx = "a frame-pointer step, then no rbp";
	set(SA(3), NOTAB + 0x20);
	walk(NOTAB + 0x10, SA(2), sizeof(stk), N_OF(pcs));
	WANT(UW_NO_INFO, NOTAB + 0x10, NOTAB + 0x20);
	CHECK_INT(res.fp_steps, 1);

	/* The sample's ip in code without a table, its frame not set up: rbp is still its
	 * caller's, and a frame-pointer step would skip that caller, whose return address is at
	 * the top of the stack. Taken as the caller, it unwinds by its own rule to where the
	 * frame-pointer step leads: it is the caller. */
	test_ctx = "a frameless leaf called by an rbp-based function: the caller kept";
	stack_reset();
	set(SA(0), PC(0x1036)); /* the leaf's return address into f_d */
	set(SA(6), SA(12));	/* f_d's frame: rbp */
	set(SA(7), PC(0x1044));
	walk(NOTAB + 0x10, SA(6), sizeof(stk), N_OF(pcs));
	WANT(UW_COMPLETE, NOTAB + 0x10, PC(0x1036), PC(0x1044));
	LOOKED(NOTAB + 0x10, PC(0x1035), PC(0x1035), PC(0x1043));
	CHECK_INT(res.fp_steps, 0);
	walk(JIT + 0x10, SA(6), sizeof(stk), N_OF(pcs)); /* a leaf in no mapping: not tried */
	WANT(UW_COMPLETE, JIT + 0x10, PC(0x1044));

	test_ctx = "a frameless leaf called by an rsp-based function: the caller kept";
	stack_reset();
	set(SA(0), PC(0x1025)); /* into f_c: CFA = rsp + 16 */
	set(SA(2), PC(0x1044)); /* where rbp = SA(1) leads too */
	walk(NOTAB + 0x10, SA(1), sizeof(stk), N_OF(pcs));
	WANT(UW_COMPLETE, NOTAB + 0x10, PC(0x1025), PC(0x1044));

	test_ctx = "a frame set up, a code address at its top: the frame-pointer step stands";
	stack_reset();
	set(SA(0), PC(0x1025)); /* f_c's frame would be at SA(1): CFA SA(3), not rbp + 16 */
	set(SA(6), SA(12));
	set(SA(7), PC(0x1044));
	walk(NOTAB + 0x10, SA(6), sizeof(stk), N_OF(pcs));
	WANT(UW_COMPLETE, NOTAB + 0x10, PC(0x1044));
	CHECK_INT(res.fp_steps, 1);
	set(SA(0), NOTAB + 0x30); /* code without a table: nothing to check it with */
	walk(NOTAB + 0x10, SA(6), sizeof(stk), N_OF(pcs));
	WANT(UW_COMPLETE, NOTAB + 0x10, PC(0x1044));

	test_ctx = "a frameless leaf whose caller's table is on its way: the walk waits";
	set(SA(0), PEND + 0x20);
	walk(NOTAB + 0x10, SA(6), sizeof(stk), N_OF(pcs));
	WANT(UW_PENDING, NOTAB + 0x10);
}

static void test_plt(void)
{
	test_ctx = "PLT";
	stack_reset();
	set(SA(0), PC(0x1044));
	set(SA(1), PC(0x1046));
	CHECK_INT(PC(0x106a) & 15, 10);
	walk(PC(0x1065), 0, sizeof(stk), N_OF(pcs));
	WANT(UW_COMPLETE, PC(0x1065), PC(0x1044));
	walk(PC(0x106a), 0, sizeof(stk), N_OF(pcs));
	WANT(UW_COMPLETE, PC(0x106a), PC(0x1044));
	walk(PC(0x106b), 0, sizeof(stk), N_OF(pcs));
	WANT(UW_COMPLETE, PC(0x106b), PC(0x1046));
	walk(PC(0x107f), 0, sizeof(stk), N_OF(pcs));
	WANT(UW_COMPLETE, PC(0x107f), PC(0x1046));
	walk(PC(0x1070), 0, sizeof(stk), N_OF(pcs));
	WANT(UW_COMPLETE, PC(0x1070), PC(0x1044));

	test_ctx = "PLT reached by a return address: the rule reads the unmodified pc";
	stack_reset();
	set(SA(3), PC(0x106b)); /* looked up at 0x106a, & 15 == 10; the rule uses 11: +16 */
	set(SA(4), PC(0x1044));
	set(SA(5), PC(0x1046));
	walk(PC(0x1015), 0, sizeof(stk), N_OF(pcs));
	WANT(UW_COMPLETE, PC(0x1015), PC(0x106b), PC(0x1046));
	LOOKED(PC(0x1015), PC(0x106a), PC(0x1045));
}

static void test_signal(void)
{
	ucontext_t uc;

	test_ctx = "ucontext_t offsets";
	CHECK_INT(offsetof(ucontext_t, uc_mcontext.gregs[REG_RIP]), 168);
	CHECK_INT(offsetof(ucontext_t, uc_mcontext.gregs[REG_RSP]), 160);
	CHECK_INT(offsetof(ucontext_t, uc_mcontext.gregs[REG_RBP]), 120);

	test_ctx = "a signal frame";
	stack_reset();
	memset(&uc, 0x11, sizeof(uc));
	uc.uc_mcontext.gregs[REG_RIP] = (greg_t)PC(0x1010); /* f_b's first byte: exact */
	uc.uc_mcontext.gregs[REG_RSP] = (greg_t)SA(200);
	uc.uc_mcontext.gregs[REG_RBP] = (greg_t)SA(300);
	set(SA(1), PC(0x1081)); /* the handler returns to __restore_rt */
	memcpy(&stk[2], &uc, sizeof(uc));
	set(SA(203), PC(0x1036)); /* f_b's caller: f_d, rbp-based with the interrupted rbp */
	set(SA(300), 0);
	set(SA(301), PC(0x1044));
	walk(PC(0x1025), 0, sizeof(stk), N_OF(pcs));
	WANT(UW_COMPLETE, PC(0x1025), PC(0x1081), PC(0x1010), PC(0x1036), PC(0x1044));
	LOOKED(PC(0x1025), PC(0x1080), PC(0x1010), PC(0x1035), PC(0x1043));

	test_ctx = "a signal frame cut by the end of the copy";
	walk(PC(0x1025), 0, 16 + 168 + 7, N_OF(pcs));
	WANT(UW_STACK_END, PC(0x1025), PC(0x1081));
	walk(PC(0x1025), 0, 16 + 168 + 8, N_OF(pcs));
	WANT(UW_STACK_END, PC(0x1025), PC(0x1081), PC(0x1010));
	walk(PC(0x1025), 0, sizeof(stk), 3);
	WANT(UW_MAX_DEPTH, PC(0x1025), PC(0x1081), PC(0x1010));

	test_ctx = "a signal frame whose rsp is below the copy";
	uc.uc_mcontext.gregs[REG_RSP] = (greg_t)(SP0 - 8);
	memcpy(&stk[2], &uc, sizeof(uc));
	walk(PC(0x1025), 0, sizeof(stk), N_OF(pcs));
	WANT(UW_BAD_FRAME, PC(0x1025), PC(0x1081));

	test_ctx = "a signal frame whose rsp is below its own, in the copy";
	uc.uc_mcontext.gregs[REG_RSP] = (greg_t)SP0;
	uc.uc_mcontext.gregs[REG_RIP] = (greg_t)PC(0x1040); /* _start's first byte */
	memcpy(&stk[2], &uc, sizeof(uc));
	walk(PC(0x1025), 0, sizeof(stk), N_OF(pcs));
	WANT(UW_COMPLETE, PC(0x1025), PC(0x1081), PC(0x1040));
	LOOKED(PC(0x1025), PC(0x1080), PC(0x1040));
}

static void test_ends(void)
{
	test_ctx = "pending";
	stack_reset();
	walk(PEND + 0x10, SA(2), sizeof(stk), N_OF(pcs));
	WANT(UW_PENDING, PEND + 0x10);
	set(SA(1), PEND + 0x20);
	walk(PC(0x1025), SA(2), sizeof(stk), N_OF(pcs));
	WANT(UW_PENDING, PC(0x1025), PEND + 0x20);

	test_ctx = "a zero return address";
	set(SA(1), 0);
	walk(PC(0x1025), 0, sizeof(stk), N_OF(pcs));
	WANT(UW_COMPLETE, PC(0x1025));
	set(SA(3), 0);
	walk(NOTAB + 0x10, SA(2), sizeof(stk), N_OF(pcs));
	WANT(UW_COMPLETE, NOTAB + 0x10);

	test_ctx = "a kernel return address";
	set(SA(1), 0xffffffff81000010ull);
	walk(PC(0x1025), 0, sizeof(stk), N_OF(pcs));
	WANT(UW_BAD_FRAME, PC(0x1025));
	set(SA(1), 0x800000000000ull);
	walk(PC(0x1025), 0, sizeof(stk), N_OF(pcs));
	WANT(UW_BAD_FRAME, PC(0x1025));
	set(SA(1), 0x7ffffffff000ull); /* user half, unmapped: walked on, no rbp */
	walk(PC(0x1025), 0, sizeof(stk), N_OF(pcs));
	WANT(UW_NO_INFO, PC(0x1025), 0x7ffffffff000ull);

	/* The walker's stops are stored as they are: the format names them, once each. */
	test_ctx = "stop names";
	CHECK((int)UW_STOP_N == (int)RP_UNWIND_STOP_N && (int)UW_JOINED == (int)RP_UNWIND_JOINED);
	for (int i = 0; i < UW_STOP_N; i++) {
		const char *a = format_unwind_stop_name(i), *t = format_unwind_stop_token(i);

		CHECK(a && *a && t && strlen(a) == strlen(t) && !strchr(t, ' '), "%d: %s %s", i, a,
		      t);
		for (int j = 0; j < i; j++)
			CHECK(strcmp(a, format_unwind_stop_name(j)) != 0, "%d and %d", i, j);
	}
	CHECK_STR(format_unwind_stop_name(UW_COMPLETE), "complete");
	CHECK_STR(format_unwind_stop_name(UW_STACK_END), "stack copy exhausted");
	CHECK_STR(format_unwind_stop_token(UW_STACK_END), "stack-copy-exhausted");
	CHECK_STR(format_unwind_stop_name(UW_STOP_N), "unknown stop reason");
}

/* A stack at the very top of the address space: nothing may wrap. */
static void test_top(void)
{
	test_ctx = "sp near 2^64";
	stack_reset();
	sample_sp = UINT64_MAX - 31; /* the copy is clamped to the 32 bytes below 2^64 */
	set(sample_sp + 8, PC(0x1044));
	walk(PC(0x1025), 0, sizeof(stk), N_OF(pcs));
	WANT(UW_COMPLETE, PC(0x1025), PC(0x1044));
	walk(PC(0x1015), 0, sizeof(stk), N_OF(pcs)); /* rsp + 32 wraps */
	WANT(UW_BAD_FRAME, PC(0x1015));
	set(sample_sp, sample_sp + 16);
	walk(PC(0x10b5), 0, sizeof(stk), N_OF(pcs)); /* rsp + 16, rbp saved: both in the copy */
	WANT(UW_COMPLETE, PC(0x10b5), PC(0x1044));

	test_ctx = "a frame-pointer step whose new sp would wrap";
	set(sample_sp + 16, sample_sp + 16); /* rbp at the last 16 bytes, pointing at itself */
	set(sample_sp + 24, JIT + 0x20);
	walk(JIT + 0x10, sample_sp + 16, sizeof(stk), N_OF(pcs));
	WANT(UW_NO_INFO, JIT + 0x10);
	walk(JIT + 0x10, sample_sp + 24, sizeof(stk), N_OF(pcs)); /* rbp + 16 past 2^64 */
	WANT(UW_NO_INFO, JIT + 0x10);

	test_ctx = "the copy itself would wrap";
	sample_sp = UINT64_MAX - 7;
	stk[0] = PC(0x1044);
	walk(PC(0x1065), 0, sizeof(stk), N_OF(pcs)); /* PLT: rsp + 8 wraps */
	WANT(UW_BAD_FRAME, PC(0x1065));
	walk(JIT + 0x10, sample_sp, sizeof(stk), N_OF(pcs));
	WANT(UW_NO_INFO, JIT + 0x10);
	sample_sp = SP0;
}

/* ---- ns/frame ----------------------------------------------------------------------------- */

#define BENCH_ROWS 16384
#define BENCH_FRAMES 30
#define BENCH_WALKS 100000

static enum uw_where bench_find(void *arg, uint64_t pc, const struct utab **tab, uint64_t *off)
{
	if (pc - TEXT >= 0x100000)
		return UW_WHERE_UNMAPPED;
	*tab = arg;
	*off = pc - TEXT;
	return UW_WHERE_TABLE;
}

/* A libc-sized table (16384 rows, rsp + 16/32/48) and a 30-frame stack through it, walked
 * 100000 times: one line of ns/frame, for information. */
static void bench(void)
{
	static uint64_t buf[(72 + 5 * 12 + BENCH_ROWS * 8) / 8 + 1];
	static struct utab_row rows[BENCH_ROWS];
	static const struct utab_rule rules[] = {
		RULE(UTAB_CFA_NONE, 0, 0, 0), RULE(UTAB_CFA_SP, 16, 0, 0),
		RULE(UTAB_CFA_SP, 32, 0, 0),  RULE(UTAB_CFA_SP, 48, 0, 0),
		RULE(UTAB_CFA_END, 0, 0, 0),
	};
	struct utab t;
	char why[256] = "";
	uint64_t sp = SP0, ip = 0, pc, out[BENCH_FRAMES + 2];
	struct uw_regs regs;
	struct uw_stack st = { (const unsigned char *)stk, sizeof(stk) };
	struct uw_result r;
	struct timespec t0, t1;
	size_t size, n = 0;

	test_ctx = "ns/frame";
	for (uint32_t i = 0; i < BENCH_ROWS; i++)
		rows[i] = (struct utab_row){ 0x1000 + 16 * i, 1 + i % 3 };
	rows[BENCH_ROWS - 2].rule = 4;
	rows[BENCH_ROWS - 1].rule = 0;
	size = tab_build(buf, sizeof(buf), rules, N_OF(rules), rows, BENCH_ROWS);
	if (!CHECK(utab_check(buf, size, &t, why, sizeof(why)) == 0, "%s", why))
		return;
	stack_reset();
	for (uint32_t k = 0; k < BENCH_FRAMES; k++) {
		uint32_t row =
		    k == BENCH_FRAMES - 1 ? BENCH_ROWS - 2 : (k * 523 + 7) % (BENCH_ROWS - 2);

		pc = PC(rows[row].off + 4);
		if (k == 0)
			ip = pc;
		else
			set(sp - 8, pc);
		sp += 16 * rows[row].rule;
	}
	regs = (struct uw_regs){ ip, SP0, 0 };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < BENCH_WALKS; i++)
		n += uw_walk(&regs, &st, bench_find, &t, out, N_OF(out), &r);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK_INT(r.n, BENCH_FRAMES);
	CHECK_INT(r.stop, UW_COMPLETE);
	printf("test-unwind: %.1f ns/frame (%d-frame walks, %d-row table, %d walks)\n",
	       ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) /
		   (double)n,
	       BENCH_FRAMES, BENCH_ROWS, BENCH_WALKS);
}

/* ---- fuzz seeds --------------------------------------------------------------------------- */

static int write_file(const char *dir, const char *name, const void *buf, size_t size)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, size, f) != size || fclose(f) != 0) {
		perror(path);
		return 1;
	}
	return 0;
}

/* The seeds of tests/fuzz/corpus/fuzz-utab: this file's test table and a minimal one. */
static int write_seeds(const char *dir)
{
	static uint64_t buf[32];
	static const struct utab_rule rules[] = { RULE(UTAB_CFA_NONE, 0, 0, 0),
						  RULE(UTAB_CFA_SP, 8, 0, 0),
						  RULE(UTAB_CFA_BP, 16, UTAB_BP_SAVED, -16) };
	static const struct utab_row rows[] = { { 0x40, 1 }, { 0x41, 2 }, { 0x60, 0 } };
	size_t size = tab_build(buf, sizeof(buf), rules, N_OF(rules), rows, N_OF(rows));

	return write_file(dir, "all-rules", main_buf, main_size) |
	       write_file(dir, "small", buf, size);
}

int main(int argc, char **argv)
{
	main_tab_init();
	if (argc == 3 && !strcmp(argv[1], "--write-seeds"))
		return write_seeds(argv[2]);
	test_check();
	test_find();
	test_sp_walk();
	test_bp_walk();
	test_fp_fallback();
	test_plt();
	test_signal();
	test_ends();
	test_top();
	bench();
	return check_done("test-unwind");
}
