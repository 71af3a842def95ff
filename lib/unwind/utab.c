/* utab.c — checking, searching and sealing compact unwind tables (layout in utab.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/crc32c.h"
#include "unwind/utab.h"

_Static_assert(sizeof(struct utab_hdr) == 72, "utab_hdr layout");
_Static_assert(sizeof(struct utab_rule) == 12, "utab_rule layout");
_Static_assert(sizeof(struct utab_row) == 8, "utab_row layout");

static int check_rule(const struct utab_rule *r, uint32_t i, char *why, size_t why_size)
{
	if (r->cfa >= UTAB_CFA_N || (r->flags & ~UTAB_BP_SAVED) || r->pad) {
		snprintf(why, why_size, "rule %u: unknown kind %u or flags %#x", i, r->cfa,
			 r->flags);
		return -EINVAL;
	}
	if (r->ra_off % 8 || r->ra_off < -4096 || r->ra_off > 4096 || r->bp_off % 8 ||
	    r->bp_off < -4096 || r->bp_off > 4096) {
		snprintf(why, why_size, "rule %u: offsets %d/%d out of range", i, r->ra_off,
			 r->bp_off);
		return -EINVAL;
	}
	if (r->cfa_off < -(1 << 24) || r->cfa_off > (1 << 24)) {
		snprintf(why, why_size, "rule %u: CFA offset %d out of range", i, r->cfa_off);
		return -EINVAL;
	}
	return 0;
}

static int check_header(const struct utab_hdr *h, size_t size, char *why, size_t why_size)
{
	uint64_t want;

	if (size < sizeof(*h) || memcmp(h->magic, UTAB_MAGIC, 8) != 0) {
		snprintf(why, why_size, "not an unwind table (%zu bytes, no magic)", size);
		return -EINVAL;
	}
	if (h->version != UTAB_VERSION || h->hdr_size != sizeof(*h)) {
		snprintf(why, why_size, "unwind table version %u (header %u bytes), expected %u",
			 h->version, h->hdr_size, UTAB_VERSION);
		return -EINVAL;
	}
	if (h->n_rules < 1 || h->n_rules > UTAB_MAX_RULES || h->n_rows < 1 ||
	    h->n_rows > UTAB_MAX_ROWS || h->build_id_len > 20) {
		snprintf(why, why_size, "unwind table counts out of range (%u rules, %u rows)",
			 h->n_rules, h->n_rows);
		return -EINVAL;
	}
	want = h->hdr_size + (uint64_t)h->n_rules * sizeof(struct utab_rule) +
	       (uint64_t)h->n_rows * sizeof(struct utab_row);
	if (h->size != want || want != size) {
		snprintf(why, why_size,
			 "unwind table size %zu, its header says %llu, counts say %llu", size,
			 (unsigned long long)h->size, (unsigned long long)want);
		return -EINVAL;
	}
	if (crc32c(0, (const unsigned char *)h + h->hdr_size, size - h->hdr_size) != h->crc) {
		snprintf(why, why_size, "unwind table CRC mismatch");
		return -EINVAL;
	}
	return 0;
}

int utab_check(const void *buf, size_t size, struct utab *ret, char *why, size_t why_size)
{
	const struct utab_hdr *h = buf;
	const struct utab_rule *rules;
	const struct utab_row *rows;
	int rc = check_header(h, size, why, why_size);

	if (rc < 0)
		return rc;
	rules = (const void *)((const char *)buf + h->hdr_size);
	rows = (const void *)(rules + h->n_rules);
	if (rules[0].cfa != UTAB_CFA_NONE) {
		snprintf(why, why_size, "rule 0 is not the no-information rule");
		return -EINVAL;
	}
	for (uint32_t i = 0; i < h->n_rules; i++)
		if ((rc = check_rule(&rules[i], i, why, why_size)) < 0)
			return rc;
	for (uint32_t i = 0; i < h->n_rows; i++) {
		if (rows[i].rule >= h->n_rules || (i > 0 && rows[i].off <= rows[i - 1].off)) {
			snprintf(why, why_size, "row %u: rule %u of %u, offset %#x after %#x", i,
				 rows[i].rule, h->n_rules, rows[i].off, i ? rows[i - 1].off : 0);
			return -EINVAL;
		}
	}
	if (rows[h->n_rows - 1].rule != 0) {
		snprintf(why, why_size, "the last row does not end the table");
		return -EINVAL;
	}
	*ret = (struct utab){ h, rules, rows, h->n_rules, h->n_rows };
	return 0;
}

const struct utab_rule *utab_find(const struct utab *t, uint64_t off)
{
	uint32_t lo = 0, hi = t->n_rows;
	const struct utab_rule *r;

	if (!t->n_rows || off < t->rows[0].off || off > UINT32_MAX)
		return NULL;
	/* The last row whose start is <= off. */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].off <= off)
			lo = mid;
		else
			hi = mid;
	}
	r = &t->rules[t->rows[lo].rule];
	return r->cfa == UTAB_CFA_NONE ? NULL : r;
}

void utab_seal(void *buf)
{
	struct utab_hdr *h = buf;

	h->size = h->hdr_size + (uint64_t)h->n_rules * sizeof(struct utab_rule) +
		  (uint64_t)h->n_rows * sizeof(struct utab_row);
	h->crc = crc32c(0, (const unsigned char *)buf + h->hdr_size, h->size - h->hdr_size);
}
