/* annotate.h — the self samples of each function by instruction, and a function's source
 * lines and instructions with their shares (ringprof annotate). */
#ifndef RP_ANNOTATE_H
#define RP_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct session;

/* A function with self samples: the leaf frames of the samples, by the real (not inlined)
 * function they lie in. */
struct annotate_fn {
	uint32_t sym; /* a session_sym() id */
	const char *name;
	uint32_t dso; /* its object (a session_dso_name() id) */
	bool kernel;
	uint64_t period, count; /* self: the samples' weight and number */
};

/* Self samples at one location of a function: a file offset in its object, or a kernel
 * address. */
struct annotate_loc {
	uint64_t at;
	uint64_t period, count;
};

/* Everything one run annotates; owned by it and valid until annotate_free(). */
struct annotate;

/* Gather the self samples of every named function of S (after session_finish(), --dso
 * applied to the leaf frame, the focus filter to the whole stack, as the session's totals).
 * 0 with *ret, or -ENOMEM. */
int annotate_new(const struct session *s, struct annotate **ret);
struct annotate *annotate_free(struct annotate *a);

/* The functions, the heaviest first (ties by name), *ret_n long. */
const struct annotate_fn *annotate_functions(const struct annotate *a, size_t *ret_n);
/* Function I's locations in address order, *ret_n long. */
const struct annotate_loc *annotate_locs(const struct annotate *a, size_t i, size_t *ret_n);

/* One instruction of an annotated function. */
struct annotate_insn {
	uint64_t addr; /* the ELF address in its object (as objdump and perf show it), or the
			* kernel address */
	char text[128];
	const char *file; /* its source location from the line table (NULL: none) */
	int line;
	const char *inlined; /* the inlined function it belongs to, NULL when none */
	uint64_t period, count;
};

/* One source line of an annotated function: the samples of every instruction the line table
 * places on it (inlined code on the inlined function's own file and line). */
struct annotate_line {
	const char *file;
	int line;
	const char *inlined; /* the inlined function the line belongs to, NULL when none */
	uint64_t period, count;
};

struct annotate_view {
	const char *object; /* the file read on this host ("/proc/kcore" for the kernel); NULL
			     * when none */
	uint64_t lo, hi;    /* the function's extent, in the addresses of annotate_insn */
	struct annotate_insn *insns;
	size_t n_insns;
	struct annotate_line *lines; /* by file, then line */
	size_t n_lines;
	/* Samples of the function not placed on an instruction (another function of the same
	 * name, or no instructions to place them on): their weight and number. */
	uint64_t unplaced_period, unplaced_count;
	/* Why there are no instructions, or no lines: a sentence, "" when there are. */
	char no_insns[512], no_lines[512];
};

/* The instructions and lines of function I. SYMFS (NULL: none) as report's --symfs. Files are
 * opened as the symbolizer opens them, build-ids checked: a binary deleted or rebuilt since
 * the recording gives no instructions and no lines, and says so in no_insns. 0 or -ENOMEM. */
int annotate_view(struct annotate *a, const struct session *s, size_t i, const char *symfs,
		  struct annotate_view *ret);
void annotate_view_done(struct annotate_view *v);

#endif
