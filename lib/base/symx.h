/* symx.h — the compact encoding of a binary's function symbols captured at record time. */
#ifndef RP_SYMX_H
#define RP_SYMX_H

#include <stddef.h>
#include <stdint.h>

/*
 * A run of entries sorted by start, each
 *
 *	varint start - previous start   (the first: start - base; base is the run's own)
 *	varint size                      (0: unknown, up to the next start)
 *	char name[] NUL                  (as in the symbol table: C++ names mangled)
 *
 * with varints unsigned LEB128. Starts are file offsets in the binary (not ELF addresses),
 * so a reader maps a sample's file offset straight to a symbol without the binary's program
 * headers. The helper (lib/elf/symcap.c) writes one run per binary, the recorder cuts it into
 * records (RP_REC_SYMTAB, format.h), the report reads them; the same code on every side.
 */

#define SYMX_NAME_MAX 4096 /* longer names are cut to this many bytes */
#define SYMX_ENTRY_MAX (10 + 10 + SYMX_NAME_MAX + 1)

struct symx_entry {
	uint64_t start, size;
	const char *name; /* points into the run */
	size_t name_len;
};

/* Encode one entry after PREV_START into DST (at least SYMX_ENTRY_MAX bytes, or 20 + name
 * length + 1): the bytes written. START must not be below PREV_START. */
size_t symx_put(unsigned char *dst, uint64_t prev_start, uint64_t start, uint64_t size,
		const char *name, size_t name_len);

/* Reading a run that may come from a file: every length is checked. */
struct symx_cursor {
	const unsigned char *p, *end;
	uint64_t prev; /* the previous entry's start (the base before the first) */
};
void symx_open(struct symx_cursor *c, const void *run, size_t size, uint64_t base);
/* 1 and *ret, 0 at the end of the run, -EINVAL when the next entry is cut short, its start
 * overflows or its name has no terminator. */
int symx_next(struct symx_cursor *c, struct symx_entry *ret);

#endif
