/* walk.c — the user-stack walker: a sample's copied stack and registers, walked frame by frame
 * with the compact unwind tables (x86_64). */
#include <stdbool.h>
#include <string.h>

#include "unwind/walk.h"

/* Return addresses at or above this are in the kernel half: never a user caller. */
#define UW_KERNEL_START 0x800000000000ull

/*
 * Where the interrupted registers are in the ucontext a signal frame's rsp points at
 * (x86_64 ucontext_t: uc_flags 8, uc_link 8, uc_stack 24, then mcontext's gregs[23] with
 * REG_RBP = 10, REG_RSP = 15, REG_RIP = 16). tests/test-unwind.c checks them against
 * <ucontext.h>; the walker does not include it, so that it builds the same for any target.
 */
#define UW_UC_RBP 120
#define UW_UC_RSP 160
#define UW_UC_RIP 168

/* Internal to this file: the frame was unwound, walk on (never stored). */
#define UW_GO UW_STOP_N

/* The copied stack, clamped so that [base, base + size) does not wrap around 2^64. */
struct walk_mem {
	const unsigned char *data;
	uint64_t base, size;
};

/* The registers of the frame being unwound. exact: pc is where the frame was stopped (the
 * sample's ip, or the interrupted pc of a signal frame), not a return address. */
struct walk_frame {
	uint64_t pc, sp, bp;
	bool exact;
};

/* *ret = the 8 bytes at addr + off, if addr + off neither wraps nor leaves the copy. */
static inline bool mem_read(const struct walk_mem *m, uint64_t addr, int64_t off, uint64_t *ret)
{
	uint64_t a, rel;

	if (__builtin_add_overflow(addr, off, &a))
		return false;
	rel = a - m->base; /* huge when a < base */
	if (rel >= m->size || m->size - rel < 8)
		return false;
	memcpy(ret, m->data + rel, 8);
	return true;
}

/* One frame-pointer step: rbp points at the saved rbp, with the return address above it. The
 * sp grows strictly (bp >= sp, so bp + 16 > sp unless it wraps), so a chain of these ends. */
static enum uw_stop fp_step(const struct walk_mem *m, struct walk_frame *f)
{
	uint64_t bp, ra, sp;

	if ((f->bp & 7) || f->bp < f->sp || __builtin_add_overflow(f->bp, 16, &sp) ||
	    !mem_read(m, f->bp, 0, &bp) || !mem_read(m, f->bp, 8, &ra))
		return UW_NO_INFO;
	*f = (struct walk_frame){ ra, sp, bp, false };
	return UW_GO;
}

/* A signal trampoline: rsp points at the ucontext that holds the interrupted registers. The
 * interrupted rsp may be anywhere the program put it, but never below the copy. */
static enum uw_stop signal_step(const struct walk_mem *m, struct walk_frame *f)
{
	uint64_t pc, sp, bp;

	if (!mem_read(m, f->sp, UW_UC_RIP, &pc) || !mem_read(m, f->sp, UW_UC_RSP, &sp) ||
	    !mem_read(m, f->sp, UW_UC_RBP, &bp))
		return UW_STACK_END;
	if (sp < m->base)
		return UW_BAD_FRAME;
	*f = (struct walk_frame){ pc, sp, bp, true };
	return UW_GO;
}

static enum uw_stop rule_step(const struct walk_mem *m, const struct utab_rule *r,
			      struct walk_frame *f)
{
	uint64_t reg, cfa, ra, bp = f->bp;
	int64_t off;

	switch (r->cfa) {
	case UTAB_CFA_SP:
		reg = f->sp, off = r->cfa_off;
		break;
	case UTAB_CFA_BP:
		reg = f->bp, off = r->cfa_off;
		break;
	case UTAB_CFA_PLT:
		/* The expression reads rip as it is: the unmodified pc. Only a leaf (or an
		 * interrupted pc) is ever in a .plt stub, since stubs jump and never call. */
		reg = f->sp, off = (f->pc & 15) >= 11 ? 16 : 8;
		break;
	case UTAB_CFA_END:
		return UW_COMPLETE;
	case UTAB_CFA_SIGNAL:
		return signal_step(m, f);
	default: /* UTAB_CFA_UNKNOWN */
		return UW_BAD_FRAME;
	}
	if (__builtin_add_overflow(reg, off, &cfa) || cfa <= f->sp)
		return UW_BAD_FRAME;
	if (!mem_read(m, cfa, r->ra_off, &ra))
		return UW_STACK_END;
	/* A save slot below the stack pointer was popped already and rbp holds its value again:
	 * GCC's epilogues keep the save rule after the pop (python3.11: 3 % of the samples). */
	if ((r->flags & UTAB_BP_SAVED) && cfa + (uint64_t)(int64_t)r->bp_off >= f->sp &&
	    !mem_read(m, cfa, r->bp_off, &bp))
		return UW_STACK_END;
	*f = (struct walk_frame){ ra, cfa, bp, false };
	return UW_GO;
}

/*
 * Frame f was stopped at an arbitrary instruction (f->exact) of mapped code no table
 * describes: it may not have set up its frame yet (a frameless leaf, a stub, a prologue), so
 * that rbp is still its caller's and the frame-pointer step via_fp (taken, a user return
 * address) skips that caller. Its caller is then the return address at the top of the
 * stack. When that address is in code a table describes, the two readings are checked
 * against each other: taking it as the caller (its frame at sp + 8) and unwinding that by
 * its own rule must lead to exactly via_fp (the same return address and frame address).
 * Then *ret is that caller and 1 is returned; 0 when the readings do not meet (via_fp
 * stands), -1 when the caller's table is on its way (the walk waits for it).
 */
static int frameless_caller(const struct walk_mem *m, uw_find_fn find, void *arg,
			    const struct walk_frame *f, const struct walk_frame *via_fp,
			    struct walk_frame *ret)
{
	const struct utab *tab = NULL;
	const struct utab_rule *r;
	struct walk_frame caller, via_rule;
	uint64_t top, off = 0;

	if (!mem_read(m, f->sp, 0, &top) || top < 4096 || top >= UW_KERNEL_START ||
	    top == via_fp->pc)
		return 0;
	switch (find(arg, top - 1, &tab, &off)) {
	case UW_WHERE_TABLE:
		break;
	case UW_WHERE_PENDING:
		return -1;
	default:
		return 0;
	}
	if (!tab || !(r = utab_find(tab, off)) || r->cfa == UTAB_CFA_END ||
	    r->cfa == UTAB_CFA_SIGNAL || r->cfa == UTAB_CFA_PLT)
		return 0;
	caller = (struct walk_frame){ top, f->sp + 8, f->bp, false };
	via_rule = caller;
	if (rule_step(m, r, &via_rule) != UW_GO || via_rule.pc != via_fp->pc ||
	    via_rule.sp != via_fp->sp)
		return 0;
	*ret = caller;
	return 1;
}

/* Unwind the frame f stands for into its caller's. A return address is looked up at pc - 1:
 * the call it returns from, which may be the last instruction of its function. */
static inline enum uw_stop step(const struct walk_mem *m, uw_find_fn find, void *arg,
				struct walk_frame *f, uint32_t *fp_steps)
{
	const struct utab *tab = NULL;
	const struct utab_rule *r = NULL;
	uint64_t off = 0;
	enum uw_stop s;

	enum uw_where where = find(arg, f->exact ? f->pc : f->pc - 1, &tab, &off);
	struct walk_frame via_fp;

	switch (where) {
	case UW_WHERE_TABLE:
		if (tab)
			r = utab_find(tab, off);
		break;
	case UW_WHERE_PENDING:
		return UW_PENDING;
	default:
		/* UW_WHERE_NONE, and UW_WHERE_UNMAPPED too: the caller's view of the mappings
		 * misses code that runs (JIT code made executable by mprotect() has no MMAP
		 * record, and a new mapping's record can come after the sample), and such code
		 * often keeps frame pointers. fp_step's checks bound what a stale rbp can do. */
		break;
	}
	if (r)
		return rule_step(m, r, f);
	via_fp = *f;
	s = fp_step(m, &via_fp);
	if (s == UW_GO && f->exact && where != UW_WHERE_UNMAPPED && via_fp.pc >= 4096 &&
	    via_fp.pc < UW_KERNEL_START) {
		struct walk_frame caller;
		int c = frameless_caller(m, find, arg, f, &via_fp, &caller);

		if (c < 0)
			return UW_PENDING;
		if (c > 0) {
			*f = caller;
			return UW_GO;
		}
	}
	if (s == UW_GO)
		*f = via_fp;
	*fp_steps += s == UW_GO;
	return s;
}

size_t uw_walk(const struct uw_regs *regs, const struct uw_stack *st, uw_find_fn find, void *arg,
	       uint64_t *pcs, size_t max, struct uw_result *res)
{
	return uw_walk_sp(regs, st, find, arg, pcs, NULL, max, res);
}

size_t uw_walk_sp(const struct uw_regs *regs, const struct uw_stack *st, uw_find_fn find, void *arg,
		  uint64_t *pcs, uint64_t *sps, size_t max, struct uw_result *res)
{
	struct walk_mem m = { st->data, regs->sp, st->data ? st->size : 0 };
	struct walk_frame f = { regs->ip, regs->sp, regs->bp, true };
	enum uw_stop stop = UW_MAX_DEPTH;
	uint32_t fp_steps = 0;
	size_t n = 0;

	/* A copy claimed to run past 2^64 would let an address below base alias into it. */
	if (m.base && m.size > 0 - m.base)
		m.size = 0 - m.base;
	if (max) {
		if (sps)
			sps[n] = f.sp;
		pcs[n++] = f.pc;
		for (;;) {
			stop = step(&m, find, arg, &f, &fp_steps);
			if (stop != UW_GO)
				break;
			if (f.pc == 0)
				stop = UW_COMPLETE; /* glibc's outermost frames may just hold 0 */
			else if (f.pc >= UW_KERNEL_START)
				stop = UW_BAD_FRAME;
			else if (n == max)
				stop = UW_MAX_DEPTH; /* there is a caller, but no room for it */
			else {
				if (sps)
					sps[n] = f.sp;
				pcs[n++] = f.pc;
			}
			if (stop != UW_GO)
				break;
		}
	}
	*res = (struct uw_result){ n, stop, n ? pcs[n - 1] : regs->ip, fp_steps };
	return n;
}
