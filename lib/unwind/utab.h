/* utab.h — compact unwind tables: what the unprivileged helper builds from a binary's
 * .eh_frame (and .debug_frame) and the recorder's walker reads. The recorder trusts nothing
 * in a table until utab_check() has accepted it.
 *
 * A table is one contiguous buffer, little-endian, 8-byte aligned:
 *
 *   struct utab_hdr                     hdr_size bytes
 *   struct utab_rule rules[n_rules]     12 bytes each; rules[0] is UTAB_CFA_NONE
 *   struct utab_row  rows[n_rows]       8 bytes each, off strictly ascending
 *
 * Addresses are FILE OFFSETS of the binary (not ELF virtual addresses): the walker turns a
 * pc into pc - map_start + map_pgoff and looks that up, so it needs nothing of the ELF
 * headers. Row i covers [rows[i].off, rows[i+1].off); the last row covers nothing past
 * itself and is a UTAB_CFA_NONE row ending the last FDE. Gaps between FDEs are rows with
 * rule 0 (UTAB_CFA_NONE). The header's crc is CRC-32C (base/crc32c.h) of every byte after
 * the header.
 */
#ifndef RP_UTAB_H
#define RP_UTAB_H

#include <stddef.h>
#include <stdint.h>

#define UTAB_MAGIC "RPUTAB\0\1" /* 8 bytes */
#define UTAB_VERSION 1
/* The builder's revision, stored in each table (utab_hdr.builder): bumped with every change to
 * what the builder makes of a file that the format does not show (which code is a root, which
 * stubs get a rule). A table an older builder wrote is valid but lacks that: the disk cache
 * (capture/utcache.c) drops it and has it built again. */
#define UTAB_BUILDER_REV 4 /* 2: Go's stack switches; 3: vDSO calls; 4: gogo (utabbuild.c) */
#define UTAB_MAX_ROWS (1u << 24)
#define UTAB_MAX_RULES (1u << 16)

/* How the canonical frame address (CFA, the caller's rsp) is found at a pc. */
enum utab_cfa {
	UTAB_CFA_NONE = 0, /* no unwind information covers this pc */
	UTAB_CFA_SP,	   /* cfa = rsp + cfa_off */
	UTAB_CFA_BP,	   /* cfa = rbp + cfa_off */
	UTAB_CFA_PLT,	   /* cfa = rsp + 8 + ((pc & 15) >= 11 ? 8 : 0) (the .plt expression) */
	UTAB_CFA_END,	   /* the outermost frame: the return address is undefined (_start,
			    * clone), or code nothing calls (ld.so's _dl_start_user, marked by
			    * the builder): the stack is complete here */
	UTAB_CFA_SIGNAL,   /* a signal trampoline (__restore_rt, CIE augmentation "S"): rsp points
			    * at the ucontext, whose mcontext holds the interrupted rip, rsp, rbp */
	UTAB_CFA_UNKNOWN,  /* a rule the walker does not follow (a DWARF expression, the CFA in
			    * another register): the walk stops here */
	UTAB_CFA_N
};

/* utab_rule.flags */
#define UTAB_BP_SAVED 1u /* the caller's rbp is saved at cfa + bp_off; else rbp is unchanged */

struct utab_rule {
	uint8_t cfa;	/* enum utab_cfa */
	uint8_t flags;	/* UTAB_BP_SAVED */
	int16_t ra_off; /* the return address is at cfa + ra_off (x86_64: -8) */
	int16_t bp_off;
	int16_t pad;	 /* 0 */
	int32_t cfa_off; /* for UTAB_CFA_SP and UTAB_CFA_BP */
};

struct utab_row {
	uint32_t off;  /* file offset where this row starts */
	uint32_t rule; /* index into rules */
};

/* utab_hdr.flags: where the rows came from */
#define UTAB_F_EH_FRAME 1u
#define UTAB_F_DEBUG_FRAME 2u

struct utab_hdr {
	char magic[8];	   /* UTAB_MAGIC */
	uint32_t version;  /* UTAB_VERSION */
	uint32_t hdr_size; /* sizeof(struct utab_hdr) */
	uint32_t n_rules, n_rows;
	uint32_t crc;	      /* CRC-32C of the bytes after the header */
	uint32_t flags;	      /* UTAB_F_* */
	uint32_t n_fdes;      /* FDEs read (for statistics) */
	uint8_t build_id_len; /* 0: the file has no .note.gnu.build-id */
	uint8_t pad[3];
	uint8_t build_id[20];
	uint32_t
	    builder;   /* UTAB_BUILDER_REV of the builder that wrote it (0: before there was one) */
	uint64_t size; /* hdr_size + n_rules * 12 + n_rows * 8 */
};

/* A table accepted by utab_check(): pointers into the caller's buffer. */
struct utab {
	const struct utab_hdr *hdr;
	const struct utab_rule *rules;
	const struct utab_row *rows;
	uint32_t n_rules, n_rows;
};

/* Check a buffer of size bytes from an untrusted source, and on success fill *ret with views
 * into it. Checks: magic, version, sizes and counts against size and the limits above, CRC,
 * rows strictly ascending, every rule index in range, every rule's kind known and its offsets
 * sane (ra_off and bp_off multiples of 8 within +-4096, cfa_off within +-(1 << 24)), rules[0]
 * UTAB_CFA_NONE, the last row rule 0. 0, or -EINVAL with the reason in why. */
int utab_check(const void *buf, size_t size, struct utab *ret, char *why, size_t why_size);

/* The rule covering file offset off, or NULL when no row does (before the first row, at or
 * past the last row, or a row with rule 0). */
const struct utab_rule *utab_find(const struct utab *t, uint64_t off);

/* Seal a table being built in buf (header filled except crc and size, rules and rows in
 * place): sets size and crc. For the builder and for tests. */
void utab_seal(void *buf);

#endif
