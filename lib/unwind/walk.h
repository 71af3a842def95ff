/* walk.h — the user-stack walker: from the registers and the stack copy of one sample
 * (PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER) and the unwind tables of the objects the
 * pcs fall in, the return addresses of the callers. No allocation, no syscalls; every read
 * is bounds-checked against the copied stack and the table. */
#ifndef RP_WALK_H
#define RP_WALK_H

#include <stddef.h>
#include <stdint.h>

#include "unwind/utab.h"

/* Why a walk stopped. Stored in recordings as format.h's enum rp_unwind_stop, which has the
 * same values and names them (format_unwind_stop_name()): values only added. */
enum uw_stop {
	UW_COMPLETE = 0, /* reached the outermost frame (an undefined or zero return address) */
	UW_STACK_END,	 /* the next read fell outside the copied stack: SIZE too small */
	UW_NO_INFO,	 /* the pc is in no known mapping, or its object has no unwind
			  * information for it and no frame-pointer step worked */
	UW_PENDING,	 /* the pc's object has a table on the way (not ready yet) */
	UW_BAD_FRAME,	 /* a rule gave a stack pointer that does not grow, a kernel return
			  * address, or a rule the walker does not follow */
	UW_MAX_DEPTH,	 /* the caller's frame limit was reached, with a caller left */
	UW_JOINED,	 /* cut by the copy, then completed (up to the outermost frame) from the
			  * thread's previous stack, which held the cut frame: the callers above
			  * RP_CONTEXT_JOINED were inferred, not read (the recorder sets it) */
	UW_FPCHAIN,	 /* stopped short, then continued by the kernel's frame-pointer chain,
			  * which agreed with every return address read: the callers after
			  * RP_CONTEXT_FPCHAIN are that chain's (the recorder sets it) */
	UW_STOP_N
};

/* The user registers at the sample (from PERF_SAMPLE_REGS_USER). */
struct uw_regs {
	uint64_t ip, sp, bp;
};

/* The copied stack: data[0..size) holds the user memory at [sp, sp + size). */
struct uw_stack {
	const unsigned char *data;
	uint64_t size; /* valid bytes (the sample's dyn_size) */
};

/* What the walker's caller knows about a pc (uw_find_fn). */
enum uw_where {
	UW_WHERE_TABLE,	  /* *tab is the object's table, *off the pc's file offset */
	UW_WHERE_PENDING, /* mapped, its table is being built */
	UW_WHERE_NONE,	  /* mapped, but its object has no usable table (no unwind info, the
			   * build failed, the table was refused): frame-pointer steps only */
	UW_WHERE_UNMAPPED /* no mapping holds the pc */
};

/* Look up pc in the sampled process: fill *tab and *off for UW_WHERE_TABLE. */
typedef enum uw_where (*uw_find_fn)(void *arg, uint64_t pc, const struct utab **tab, uint64_t *off);

struct uw_result {
	size_t n;	   /* pcs written: pcs[0] is regs->ip, the rest return addresses */
	enum uw_stop stop; /* why the walk ended */
	uint64_t stop_pc;  /* the pc whose frame could not be unwound (pcs[n-1]) */
	uint32_t fp_steps; /* frames unwound by the frame-pointer fallback (the last one may
			    * have found a 0 return address, or one beyond max) */
};

/*
 * Walk from regs through st. pcs receives at most max addresses (max >= 1): the sample's ip,
 * then the return address of each caller (or, after a signal frame, the interrupted pc —
 * exactly as the kernel's own user callchain). A return address is looked up at pc - 1 (the
 * call it returns from); the sample's ip and an interrupted pc as they are. Where no row
 * covers a pc (UW_WHERE_NONE, UW_WHERE_UNMAPPED, or a UTAB_CFA_NONE row), one frame-pointer
 * step is tried if rbp is 8-aligned, not below sp, and [rbp, rbp + 16) is in the copy: the
 * caller's mapping model can miss code that runs (JIT code made executable by mprotect()
 * has no MMAP record), and such code often keeps frame pointers. At the sample's ip (or an
 * interrupted pc) in mapped code, whose frame may not be set up yet, the return address at
 * the top of the stack is taken as the caller instead when its own rule leads to the frame
 * the frame-pointer step leads to (walk.c, frameless_caller()). A walk always ends: the
 * stack pointer grows with every frame but a signal frame's, and max bounds it. Returns the
 * number of pcs; *res says why it stopped.
 */
size_t uw_walk(const struct uw_regs *regs, const struct uw_stack *st, uw_find_fn find, void *arg,
	       uint64_t *pcs, size_t max, struct uw_result *res);

/* uw_walk, also writing the stack pointer of each frame (sps[i]: rsp while pcs[i] ran; for
 * a caller, the canonical frame address of its callee) when sps is not NULL. A caller's
 * (pc, sp) names its activation while it lasts: the recorder joins a stack cut by the copy to
 * the callers of the thread's previous stack when that one held the same pair. */
size_t uw_walk_sp(const struct uw_regs *regs, const struct uw_stack *st, uw_find_fn find, void *arg,
		  uint64_t *pcs, uint64_t *sps, size_t max, struct uw_result *res);

#endif
