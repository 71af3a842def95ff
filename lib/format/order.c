/* order.c — the ordering window: pending records sorted by time, let out up to a watermark. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "base/grow.h"
#include "format/order.h"
#include "format/reader.h"

void order_done(struct order *o)
{
	free(o->arenas[0].buf);
	free(o->arenas[1].buf);
	free(o->ents);
	free(o->tmp);
	free(o->runs);
	*o = (struct order){ 0 };
}

/* posix_memalign, not GROW: records are read in place and must stay 8-byte aligned. */
int order_grow_arena(struct order_arena *a, size_t n)
{
	if (a->len + n > a->cap) {
		size_t cap = a->cap ? a->cap : (1u << 20);
		unsigned char *b = NULL;

		while (cap < a->len + n)
			cap *= 2;
		if (posix_memalign((void **)&b, 8, cap))
			return -ENOMEM;
		if (a->len)
			memcpy(b, a->buf, a->len);
		free(a->buf);
		a->buf = b;
		a->cap = cap;
	}
	return 0;
}

int order_grow_entries(struct order *o)
{
	return GROW(o->ents, o->cap_ents, o->n_ents + 1);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct order_entry *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Sort the pending entries by (time, seq). They come in long ordered runs (what was left of
 * the previous frame, then each CPU's samples in ring order), so a natural merge sort does
 * it in a few linear passes. Entries are appended in seq order and runs are merged left
 * first on equal times, which keeps seq order: the result is cmp_entry's order.
 */
static void sort_entries(struct order *o)
{
	size_t n = o->n_ents, n_runs = 0;
	struct order_entry *a = o->ents, *b;

	if (n < 2)
		return;
	if (GROW(o->tmp, o->cap_tmp, n) < 0 || GROW(o->runs, o->cap_runs, n + 1) < 0) {
		qsort(o->ents, n, sizeof(*o->ents), cmp_entry); /* no memory for the merge */
		return;
	}
	b = o->tmp;
	o->runs[n_runs++] = 0;
	for (size_t i = 1; i < n; i++)
		if (a[i].time < a[i - 1].time)
			o->runs[n_runs++] = i;
	while (n_runs > 1) {
		size_t w = 0;
		struct order_entry *t;

		o->runs[n_runs] = n;
		for (size_t k = 0; k < n_runs; k += 2) {
			size_t lo = o->runs[k], i = lo, out = lo, mid, j, hi;

			o->runs[w++] = lo;
			if (k + 1 == n_runs) { /* the odd one out */
				memcpy(b + lo, a + lo, (n - lo) * sizeof(*a));
				break;
			}
			mid = j = o->runs[k + 1];
			hi = o->runs[k + 2];
			while (i < mid && j < hi)
				b[out++] = a[j].time < a[i].time ? a[j++] : a[i++];
			memcpy(b + out, a + i, (mid - i) * sizeof(*a));
			out += mid - i;
			memcpy(b + out, a + j, (hi - j) * sizeof(*a));
		}
		n_runs = w;
		t = a;
		a = b;
		b = t;
	}
	if (a != o->ents) { /* the result is in tmp: swap the buffers */
		size_t cap = o->cap_ents;

		o->tmp = o->ents;
		o->ents = a;
		o->cap_ents = o->cap_tmp;
		o->cap_tmp = cap;
	}
}

void order_seal(struct order *o, uint64_t bound)
{
	sort_entries(o);
	while (o->emit_end < o->n_ents && (o->ents[o->emit_end].time < bound || bound == UINT64_MAX))
		o->emit_end++;
}

const struct perf_event_header *order_next(struct order *o, uint32_t *ret_stack, uint32_t *ret_event)
{
	const struct order_entry *e;

	if (o->emit_pos >= o->emit_end)
		return NULL;
	e = &o->ents[o->emit_pos++];
	if (e->time < o->last_time)
		o->st->late++;
	else
		o->last_time = e->time;
	o->st->records++;
	*ret_stack = e->stack;
	*ret_event = e->event;
	return (const void *)(o->arenas[o->cur].buf + e->off);
}

/* Drop emitted entries; carry the rest into the other arena. */
void order_carry(struct order *o)
{
	struct order_arena *from = &o->arenas[o->cur], *to = &o->arenas[!o->cur];
	size_t i, n = 0;

	to->len = 0;
	for (i = o->emit_end; i < o->n_ents; i++) {
		const struct perf_event_header *h = (const void *)(from->buf + o->ents[i].off);

		if (order_grow_arena(to, h->size) < 0)
			break;
		memcpy(to->buf + to->len, h, h->size);
		o->ents[n] = o->ents[i];
		o->ents[n].off = to->len;
		to->len += h->size;
		n++;
	}
	from->len = 0;
	o->cur = !o->cur;
	o->n_ents = n;
	o->emit_pos = o->emit_end = 0;
}
