/* unwinder.h — record-time unwinding of user stacks (--call-graph dwarf): the recorder feeds
 * it the side-band it drains (MMAP2, FORK, EXIT, COMM) and each sample's user registers and
 * stack copy; it keeps every process's executable mappings (addrspace), has the unwind table
 * of each object built by the unprivileged helper (uhelper), checks it (utab_check), and
 * walks the copy (uw_walk) into a callchain of return addresses. Tables are built when a
 * sample needs them, first needed first. It never waits for a table: a sample whose walk
 * meets an object whose table is not there yet is kept (within UNWINDER_HOLD_BYTES) and walked
 * again when it comes; one that cannot wait longer is stored cut there ("table pending", not
 * guessed by frame pointers), and its chain's RP_CONTEXT_UNWIND marker says where the walk
 * ended. */
#ifndef RP_UNWINDER_H
#define RP_UNWINDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <asm/perf_regs.h>
#include <linux/perf_event.h>

#include "format/perfrec.h"
#include "unwind/walk.h"

/* The registers asked for (PERF_SAMPLE_REGS_USER): bp, sp, ip, in this order in samples. */
#define UNWINDER_REGS_MASK                                                                         \
	((1ull << PERF_REG_X86_BP) | (1ull << PERF_REG_X86_SP) | (1ull << PERF_REG_X86_IP))
#define UNWINDER_N_REGS 3
#define UNWINDER_MAX_FRAMES 512 /* user frames per sample */
/* Words of the kernel's user frame-pointer chain kept per sample (the kernel gives at most
 * kernel.perf_event_max_stack, 127 by default, kernel and user frames together). */
#define UNWINDER_FP_MAX 256

struct unwinder_stats {
	uint64_t samples;	  /* samples with a user context (registers and a stack copy) */
	uint64_t stop[UW_STOP_N]; /* those samples by why their walk ended */
	uint64_t frames;	  /* user frames found */
	uint64_t fp_steps;	  /* of which by the frame-pointer fallback */
	uint64_t objects;	  /* distinct objects seen in executable mappings */
	uint64_t tables;	  /* tables received and accepted */
	uint64_t cached;	  /* tables read from the disk cache instead */
	uint64_t table_bytes;	  /* their size */
	uint64_t table_failed; /* objects without a table (no unwind info, unreadable, helper died) */
	uint64_t table_refused; /* tables the checker refused or that belonged to another build */
	uint64_t build_ns;	/* time the helper spent building */
	uint64_t map_nomem;	/* mappings not kept for lack of memory */
	uint64_t held;		/* samples kept until their tables came */
	uint64_t hold_full;	/* samples not kept because the keep was full */
	uint64_t joins_contradicted; /* joins through a frame that a later walk read with
				      * another caller: they may have given the wrong one */
	uint64_t joins_undone;	     /* joins taken back before the sample was stored: a frame
				      * they went through was found ambiguous meanwhile */
	uint64_t late;		     /* samples stored cut at an object whose table had not come
				      * (the keep was full, or it waited too long) */
	uint64_t live_bytes;	     /* tables in memory now */
	uint64_t evicted;	     /* tables dropped to stay within the memory budget */
	uint64_t reasked;	     /* dropped tables that a sample needed again */
	uint64_t retried;	     /* tables asked for again by another way to the file: the first
				      * way gave another file (a library at a dlclosed one's place) */
};

/* An object as the unwinder sees it, for the summary. */
struct unwinder_object {
	const char *path;
	const char *why;  /* why it has no table ("" when it has one or is pending) */
	int state;	  /* 0 pending, 1 table, 2 none */
	uint64_t stopped; /* samples whose walk stopped in it, for another reason than completion */
	uint64_t table_bytes;
};

struct unwinder;

struct objreg;

/* A new unwinder, whose tables the helper of REG (objreg.h) builds. Without that helper it
 * still works, walking frame pointers only. NULL when out of memory. */
struct unwinder *unwinder_new(struct objreg *reg);
/* Keep tables on disk in dir (created), at most max_bytes of them, and look there before
 * asking the helper. 0, or -errno with why (the unwinder then works without). */
int unwinder_cache(struct unwinder *u, const char *dir, uint64_t max_bytes, char *why,
		   size_t why_size);
struct unwinder *unwinder_free(struct unwinder *u);
/* Tables in memory are kept within max_bytes (UNWINDER_MEMORY_DEFAULT until this is called):
 * above it, those used least recently are dropped at the end of a drain pass and built (or
 * read from the disk cache) again when a sample needs them. Without a bound, a host that runs
 * ever new binaries (builds, deployments) would keep the table of each for good. */
#define UNWINDER_MEMORY_DEFAULT (64ull << 20)
void unwinder_set_memory(struct unwinder *u, uint64_t max_bytes);

/*
 * Complete stacks cut by the end of the copy with the callers the thread's earlier walks read
 * above the same frame (its return address and stack pointer), marked RP_CONTEXT_JOINED and
 * ending UW_JOINED. Off by default: a join is inferred, never proven. Two callers that reach
 * a frame through frames of the same sizes give it one (pc, sp), and nothing in the copy tells
 * them apart; when one caller's walks are never complete (it works only deeper than the copy),
 * its cut stacks would all be given the other's callers and nothing would ever contradict them.
 */
void unwinder_set_join(struct unwinder *u, bool on);

/* A drain pass ended: processes that exited two passes ago are forgotten. */
void unwinder_pass(struct unwinder *u);

/* Build-ids of files that MMAP2 names by inode will come (the registry asks for them) and
 * tables are kept on disk by build-id (unwinder_cache()): a new such object waits for its
 * build-id (1 s at most) before its table is built, so that the disk cache is looked in first.
 * Without a disk cache nothing waits: tables of short-lived processes come sooner. */
void unwinder_wait_build_ids(struct unwinder *u);
/* A side-band record drained from a ring or synthesized (others are ignored). */
void unwinder_side_band(struct unwinder *u, const struct perf_event_header *h, uint64_t sample_type);

/* The sample's callchain as it is stored: the kernel part of s's chain, then, when the sample
 * has a user context, PERF_CONTEXT_USER, the user pcs (leaf first) and the RP_CONTEXT_UNWIND
 * marker. At most max words into out; returns how many. When the walk met an object whose
 * table is on its way (or a pc in no mapping yet) and ci is not SIZE_MAX, the sample is kept
 * instead (its registers, kernel chain and the valid part of its stack copy) to be walked again
 * by unwinder_release(): *ret_held is then true and nothing is to be stored now. The objects
 * its stack copy returns to are asked for at once. The keep holds UNWINDER_HOLD_BYTES at most
 * (about 8 000 samples of 8 KiB copies): beyond it, a sample is stored cut where its table
 * is missing (counted in stats->late). */
#define UNWINDER_HOLD_BYTES (64u << 20)
size_t unwinder_chain(struct unwinder *u, size_t ci, const struct perfrec_sample *s,
		      const struct perfrec_user *user, uint64_t *out, size_t max, bool *ret_held);

/* Walk the kept samples again (once per drain pass; only those whose awaited table came or
 * failed); those that walked to the end, those kept longer than max_age ns, or all when
 * `all`, go to emit(arg, ci, sample) with their chain, in the order they were kept. The last
 * two are cut where a table has not come ("table pending"). A sample
 * is also kept when its walk ended at a pc in no known mapping: the MMAP2 record may still be
 * in another CPU's ring. */
void unwinder_release(struct unwinder *u, bool all, uint64_t now, uint64_t max_age,
		      void (*emit)(void *arg, size_t ci, const struct perfrec_sample *s),
		      void *arg);
/* The time of the oldest kept sample (UINT64_MAX when none): the file's records older than it
 * are not all written yet. */
uint64_t unwinder_held_since(const struct unwinder *u);
/* How many samples are kept, and (ret_tables, may be NULL) how many tables they wait for. */
size_t unwinder_held(const struct unwinder *u, size_t *ret_tables);

const struct unwinder_stats *unwinder_stats(const struct unwinder *u);
/* The i-th object (0 <= i < stats->objects) into *ret; false past the end. */
bool unwinder_object(const struct unwinder *u, size_t i, struct unwinder_object *ret);

#endif
