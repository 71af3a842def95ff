/* utabbuild.h — the unwind-table builder: a binary's .eh_frame and .debug_frame turned into a
 * compact unwind table (unwind/utab.h). The input is untrusted: every count, offset and loop
 * is bounded, and a file the builder cannot use gives -errno with a sentence. */
#ifndef RP_UWB_BUILD_H
#define RP_UWB_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "unwind/utab.h"

/* What one build read and made. Rows "read" are libdw's CFI rows before merging. */
struct utabbuild_stats {
	uint32_t n_fdes;		    /* FDEs read from both sections */
	uint32_t n_fdes_eh;		    /* of which from .eh_frame */
	uint32_t n_fdes_skipped;	    /* FDEs whose range could not be decoded or queried */
	uint32_t n_rows_read;		    /* rows libdw gave, before clipping and merging */
	uint32_t n_read_by_cfa[UTAB_CFA_N]; /* n_rows_read by rule kind */
	uint32_t n_rows_dropped;	    /* rows (or parts) outside every PT_LOAD of the file */
	uint32_t n_rows;		    /* rows in the table (including the rule-0 rows) */
	uint32_t n_rows_by_cfa[UTAB_CFA_N]; /* table rows by rule kind */
	uint32_t n_rules;		    /* rules in the table (including rule 0) */
	uint32_t n_plt_expanded; /* .plt expressions of another threshold written as rows */
	uint32_t n_plt_stubs;	 /* PLT stubs without FDE given CFA = rsp + 8 (static .plt) */
	uint64_t work;		 /* CFI instruction bytes libdw was asked to run */
	uint64_t build_ns;	 /* wall time of utabbuild_fd */
};

/* The most CFI program bytes the builder lets libdw interpret for one file (libdw re-runs an
 * FDE's program from its start for each row): bounds the time a hostile file can take. */
#define UTABBUILD_MAX_WORK (1ull << 31)

/*
 * Build the unwind table of the ELF file open on FD (x86_64, ELF64; FD is not consumed, its
 * file offset is not used). On success *ret_buf is a malloc'd, sealed table of *ret_size
 * bytes that utab_check() accepts (the caller frees it) and *st, when st is not NULL, says
 * what was read. Returns 0 or:
 *   -ENOEXEC  not an ELF file, or an ELF file for another class or machine
 *   -ENOENT   no .eh_frame or .debug_frame
 *   -ENODATA  unwind sections, but no row inside the file's loadable segments
 *   -E2BIG    more rows, rules or work than the limits allow
 *   -ENOMEM, -EINVAL (damaged ELF headers)
 * with a sentence in why. *ret_buf and *ret_size are untouched on failure.
 */
int utabbuild_fd(int fd, void **ret_buf, size_t *ret_size, struct utabbuild_stats *st, char *why,
		 size_t why_size);

/* "none", "sp", "bp", "plt", "end", "signal", "unknown" */
const char *utabbuild_cfa_name(unsigned cfa);

#endif
