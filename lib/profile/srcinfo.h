/* srcinfo.h — a function's extent, instruction bytes and line table from its binary (the
 * libdw adapter of ringprof annotate), and kernel code from /proc/kcore. */
#ifndef RP_SRCINFO_H
#define RP_SRCINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symfile_id;

/*
 * One binary opened for annotation: the file symfile_open() finds for ID (the same one the
 * symbolizer uses, with the same build-id and inode checks), its separate debug info found
 * as the symbolizer finds it (build-id, .gnu_debuglink, under SYMFS first). Not thread-safe.
 */
struct srcinfo;

/* 0 with *ret, or -errno with a sentence in why (no usable file on this host: missing,
 * another build). DEBUG_CACHE: compressed debug files are read through the per-user cache of
 * inflated ones (elf/debugcache.h), as the symbolizer reads them. */
int srcinfo_open(const char *symfs, bool debug_cache, const struct symfile_id *id,
		 struct srcinfo **ret, char *why, size_t why_size);
struct srcinfo *srcinfo_free(struct srcinfo *si);

/* The file opened (a path on this host). */
const char *srcinfo_file(const struct srcinfo *si);
/* The ELF machine (EM_X86_64, EM_AARCH64...). */
int srcinfo_machine(const struct srcinfo *si);
/* Whether DWARF line information was found (in the file or its separate debug file). */
bool srcinfo_has_lines(struct srcinfo *si);

/* The ELF virtual address of file offset OFF (through the PT_LOAD segments): 0 or -ENOENT. */
int srcinfo_addr(const struct srcinfo *si, uint64_t off, uint64_t *ret_addr);
/* The function symbol containing ADDR: [*ret_lo, *ret_hi) in ELF addresses. 0, or -ENOENT
 * (no symbol, or one without a size). */
int srcinfo_function(struct srcinfo *si, uint64_t addr, uint64_t *ret_lo, uint64_t *ret_hi);
/* The bytes at ELF addresses [LO, HI) as the file holds them: 0 with *ret (malloc'd), or
 * -errno. */
int srcinfo_code(const struct srcinfo *si, uint64_t lo, uint64_t hi, uint8_t **ret);
/*
 * The source location of the instruction at ADDR from the line table: for inlined code the
 * inlined function's file and line. *ret_file (an absolute path as DWARF names it; owned by
 * SI) and *ret_line; with RET_INLINE, the name of the innermost inlined function ADDR lies in
 * (NULL when not in inlined code; owned by SI). 0, or -ENOENT (no line information).
 */
int srcinfo_line(struct srcinfo *si, uint64_t addr, const char **ret_file, int *ret_line,
		 const char **ret_inline);

/* The ELF addresses in [LO, HI) where rows of the line table begin (each an instruction's
 * start), from the CU holding LO: *ret (malloc'd, NULL when none) and *ret_n, sorted, repeats
 * kept. 0 (none without line information), or -ENOMEM. */
int srcinfo_line_starts(struct srcinfo *si, uint64_t lo, uint64_t hi, uint64_t **ret, size_t *ret_n);

/* Whether /proc/kcore can be read: 0, or -errno with a sentence in why. */
int srcinfo_kcore_readable(char *why, size_t why_size);
/* The kernel's code at [ADDR, ADDR + LEN) from /proc/kcore: 0 with *ret (malloc'd), or -errno
 * with a sentence in why. */
int srcinfo_kcore(uint64_t addr, size_t len, uint8_t **ret, char *why, size_t why_size);

#endif
