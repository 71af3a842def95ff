/* elfsym.h — which symbols of an ELF file name code, and which one names an address. */
#ifndef RP_ELFSYM_H
#define RP_ELFSYM_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The report (profile/symbolizer.c, over the file on disk) and the helper (lib/elf/symcap.c,
 * capturing symbols for when the file is gone) both build their symbol lists with these
 * functions, so a frame gets the same name either way. Addresses are in whatever space the
 * caller gives (module addresses in the report, file offsets in the helper).
 */

/* A candidate while a list is built. */
struct elfsym_cand {
	uint64_t start, size;
	uint64_t limit;	  /* the end of the symbol's section, 0 when unknown */
	const char *name; /* the caller's: the list only points to it */
	uint32_t rank;	  /* elfsym_rank(), or ELFSYM_RANK_PLT */
	uint32_t idx;	  /* the symbol's index in its table: the last tie-break */
};

/* The rank of a synthesized PLT stub: sized, global, typed. */
#define ELFSYM_RANK_PLT (1u << 24 | 3u << 20 | 1u << 16)

/* Whether SYM (named NAME, in a section that holds code when EXEC) names code: functions,
 * and untyped labels in code as perf takes them (no assembler-local ".L", no ARM mapping
 * symbols "$x", no hidden local ones). Undefined, absolute and zero-address symbols do not. */
bool elfsym_wanted(const GElf_Sym *sym, const char *name, bool exec);

/* The one alias rule, of several symbols at one address: sized, then global over weak over
 * local, then typed as a function, then fewer leading underscores (higher ranks first). */
uint32_t elfsym_rank(const GElf_Sym *sym, const char *name);

/*
 * C's N candidates into the list a lookup uses, in place: sorted by start, one per start (the
 * best ranked), zero-size labels inside a sized symbol left out (the function keeps its
 * name), and each kept entry's size set to its extent: its own size, or for a symbol without
 * one up to the next candidate's start, bounded by its section (at least 1). Returns the
 * number kept, at the front of C.
 */
size_t elfsym_select(struct elfsym_cand *c, size_t n);

/*
 * The PLT stubs of ELF (x86_64 .plt, .plt.sec and .plt.got; none for other machines or for a
 * file without PLT contents, such as a .debug file): ADD is called with each stub's ELF
 * address, size, the end of its section and its name, "target@plt" (or "*ABS*+0x...@plt" for
 * an IRELATIVE slot), valid during the call only. A stub is named by the relocation of the
 * GOT slot it jumps through, as objdump names them. Returns 0, or the first negative value
 * ADD returns, or -ENOMEM.
 */
typedef int (*elfsym_plt_fn)(void *arg, uint64_t addr, uint64_t size, uint64_t limit,
			     const char *name);
int elfsym_plt(Elf *elf, elfsym_plt_fn add, void *arg);

/*
 * The entry point of an executable (ET_EXEC, or ET_DYN with a PT_INTERP: a PIE) that no
 * symbol of .symtab or .dynsym names, as a stripped program's is (Debian's dash), on x86_64:
 * ADD is called once, with e_entry, the extent of the code from there whose .eh_frame rows say
 * it has no caller (the return address undefined: the outermost frame, as glibc's _start
 * says), the end of its section and the name "_start" (the entry symbol ld names by default).
 * Without such rows starting at e_entry the code stays unnamed. Returns 0 or ADD's negative
 * value.
 */
int elfsym_entry(Elf *elf, elfsym_plt_fn add, void *arg);

/* What an ELF file has for walking its stacks, as flags (elfsym_unwind_info()). */
enum {
	ELFSYM_EH_FRAME = 1u << 0,    /* a .eh_frame with content */
	ELFSYM_DEBUG_FRAME = 1u << 1, /* a .debug_frame */
	ELFSYM_GO = 1u << 2, /* a Go program (.go.buildinfo, .gopclntab or .note.go.buildid):
			      * Go keeps frame pointers */
	ELFSYM_FRAME_POINTERS = 1u << 3, /* x86_64: a quarter or more of the sized functions of
					  * its symbol table start "push %rbp; mov %rsp,%rbp"
					  * (after an endbr64): the non-leaf ones keep them */
};
unsigned elfsym_unwind_info(Elf *elf);

#endif
