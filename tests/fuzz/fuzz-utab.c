/* fuzz-utab.c — fuzz target: the input as a compact unwind table through utab_check, as it is
 * and with its size field and CRC made right; every table accepted then serves stack walks
 * over stacks made from the input bytes, so that no accepted table can make the walker read
 * outside the copied stack or the table (the stacks are exact-size heap copies: ASan sees
 * any byte read past them). */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "base/crc32c.h"
#include "unwind/utab.h"
#include "unwind/walk.h"

#define TEXT 0x555555554000ull /* the table's object: file offset = pc - TEXT */
#define PEND (TEXT + (1ull << 32))
#define NOTAB (PEND + 0x1000)
#define MAX_PCS 128

static enum uw_where fz_find(void *arg, uint64_t pc, const struct utab **tab, uint64_t *off)
{
	if (pc >= TEXT && pc < PEND) {
		*tab = arg;
		*off = pc - TEXT;
		return UW_WHERE_TABLE;
	}
	if (pc >= PEND && pc < NOTAB)
		return UW_WHERE_PENDING;
	if (pc >= NOTAB && pc < NOTAB + 0x1000)
		return UW_WHERE_NONE;
	return UW_WHERE_UNMAPPED;
}

/* The input bytes as an endless stream of words. */
struct src {
	const uint8_t *data;
	size_t size, pos;
};

static uint64_t next_word(struct src *s)
{
	uint64_t w = 0;

	for (int i = 0; i < 8 && s->size; i++)
		w |= (uint64_t)s->data[s->pos++ % s->size] << (8 * i);
	return w;
}

/* A word the walker will find interesting, chosen by the low bits of w: a pc at or next to a
 * row of the table, an address in or near the stack, an edge value, or w itself. */
static uint64_t pick(const struct utab *t, uint64_t w, uint64_t base, uint64_t size)
{
	switch (w & 7) {
	case 0:
	case 1:
	case 2:
		return TEXT + t->rows[(w >> 8) % t->n_rows].off + ((w >> 40) & 3);
	case 3:
	case 4:
		return base + (((w >> 8) % (size + 64)) & ((w & 0x800) ? ~0ull : ~7ull));
	case 5: {
		static const uint64_t edge[] = {
			0, PEND + 8, NOTAB + 8, 0x7e0000000000ull, 0x800000000000ull, UINT64_MAX
		};

		return edge[(w >> 8) % (sizeof(edge) / sizeof(edge[0]))];
	}
	default:
		return w;
	}
}

static void fz_walk(const struct utab *t, struct src *s, uint64_t base, size_t size, size_t max)
{
	unsigned char *mem = malloc(size ? size : 1);
	uint64_t pcs[MAX_PCS];
	struct uw_regs regs;
	struct uw_stack st = { mem, size };
	struct uw_result res;
	size_t n;

	if (!mem)
		return;
	for (size_t i = 0; i < size; i += 8) {
		uint64_t w = pick(t, next_word(s), base, size);

		memcpy(mem + i, &w, size - i < 8 ? size - i : 8);
	}
	regs.ip = TEXT + t->rows[next_word(s) % t->n_rows].off + (s->pos & 3);
	regs.sp = base;
	regs.bp = pick(t, next_word(s) | 3, base, size); /* | 3: an address in or near the copy */
	n = uw_walk(&regs, &st, fz_find, (void *)t, pcs, max, &res);
	if (n != res.n || n < 1 || n > max || pcs[0] != regs.ip || res.stop >= UW_STOP_N ||
	    res.stop_pc != pcs[n - 1] || res.fp_steps > n ||
	    (res.stop == UW_MAX_DEPTH && n != max) || res.stop >= UW_STOP_N)
		abort();
	free(mem);
}

/* Walks with an accepted table: stacks of several sizes, at an ordinary address and at the
 * top of the address space. */
static void walks(const struct utab *t, const uint8_t *data, size_t size)
{
	struct src s = { data, size, 0 };

	/* utab_find agrees with the rows it was given. */
	for (uint32_t i = 0; i < t->n_rows && i < 4096; i++) {
		const struct utab_rule *want = &t->rules[t->rows[i].rule];

		if (utab_find(t, t->rows[i].off) != (want->cfa == UTAB_CFA_NONE ? NULL : want))
			abort();
	}
	fz_walk(t, &s, 0x7ffc00001000ull, 512, MAX_PCS);
	fz_walk(t, &s, 0x7ffc00001000ull, 509, 1 + data[size / 2] % 16);
	fz_walk(t, &s, 0x7ffc00001000ull, 24, MAX_PCS);
	fz_walk(t, &s, (uint64_t)0 - 512, 512, MAX_PCS);
	fz_walk(t, &s, (uint64_t)0 - 256, 512, MAX_PCS); /* the copy wraps: clamped */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = malloc(size ? size : 1); /* exact size, and aligned as tables are */
	struct utab_hdr *h = (struct utab_hdr *)buf;
	struct utab t;
	char why[256];

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (utab_check(buf, size, &t, why, sizeof(why)) == 0) {
		walks(&t, data, size);
	} else if (size >= sizeof(*h) && h->hdr_size == sizeof(*h)) {
		/* Mutations would rarely get past the CRC: check the table as if it were right. */
		h->size = size;
		h->crc = crc32c(0, buf + sizeof(*h), size - sizeof(*h));
		if (utab_check(buf, size, &t, why, sizeof(why)) == 0)
			walks(&t, data, size);
	}
	free(buf);
	return 0;
}
