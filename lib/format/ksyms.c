/* ksyms.c — kallsyms read ahead of recording into KSYMS entries with a sorted address index. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/procfs.h"
#include "base/util.h"
#include "format/format.h"
#include "format/ksyms.h"
#include "format/writer.h"

/* Entries are packed into records of up to this many bytes of payload. */
#define KSYMS_BATCH 60000

struct read_ctx {
	struct ksyms *out;
	size_t cap;
	unsigned char buf[KSYMS_BATCH + 1024];
	size_t len;
	uint32_t n;
	int err;
};

static void flush_batch(struct read_ctx *c)
{
	size_t size = (sizeof(struct rp_ksyms_rec) + c->len + 7) / 8 * 8;
	struct ksyms *o = c->out;
	struct rp_ksyms_rec *k;

	if (!c->n)
		return;
	if (o->len + size > c->cap) {
		size_t cap = c->cap ? c->cap * 2 : (1u << 20);
		unsigned char *d = NULL;

		while (cap < o->len + size)
			cap *= 2;
		/* posix_memalign, not GROW: the records are read in place and must stay aligned */
		if (posix_memalign((void **)&d, 8, cap)) {
			c->err = -ENOMEM;
			return;
		}
		if (o->len)
			memcpy(d, o->data, o->len);
		free(o->data);
		o->data = d;
		c->cap = cap;
	}
	k = (void *)(o->data + o->len);
	memcpy(k + 1, c->buf, c->len);
	o->len += format_ksyms_seal(k, 0, c->n, c->len);
	o->n += c->n;
	c->len = 0;
	c->n = 0;
}

static int on_ksym(const struct procfs_ksym *k, void *arg)
{
	struct read_ctx *c = arg;
	size_t nl = strnlen(k->name, 255), ml = k->module ? strnlen(k->module, 255) : 0;
	char t = k->type;

	if (!k->addr || !(t == 't' || t == 'T' || t == 'w' || t == 'W'))
		return 0;
	if (c->len + format_ksym_size(nl, ml) > KSYMS_BATCH)
		flush_batch(c);
	c->len += format_ksym_put(c->buf + c->len, k->addr, t, k->name, nl, k->module, ml);
	c->n++;
	return c->err;
}

struct addr_off {
	uint64_t addr;
	uint32_t off;
};

static int cmp_addr_off(const void *a, const void *b)
{
	const struct addr_off *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Sorted address index over the entries of the records (aliases in file order). */
static int build_index(struct ksyms *k)
{
	struct addr_off *ix;
	size_t i = 0;

	if (!k->n)
		return 0;
	ix = malloc(k->n * sizeof(*ix));
	k->offs = malloc(k->n * sizeof(*k->offs));
	k->addrs = malloc(k->n * sizeof(*k->addrs));
	if (!ix || !k->offs || !k->addrs) {
		free(ix);
		return -ENOMEM;
	}
	for (size_t off = 0; off + sizeof(struct rp_ksyms_rec) <= k->len;) {
		const struct rp_ksyms_rec *r = (const void *)(k->data + off);
		struct format_ksyms_cursor c;
		struct format_ksym e;

		format_ksyms_open(&c, r, r->hdr.size);
		while (i < k->n && format_ksyms_next(&c, &e) > 0)
			ix[i++] = (struct addr_off){ e.addr, (uint32_t)(c.p - e.size - k->data) };
		off += r->hdr.size;
	}
	k->n = i;
	qsort(ix, k->n, sizeof(*ix), cmp_addr_off);
	for (i = 0; i < k->n; i++) {
		k->addrs[i] = ix[i].addr;
		k->offs[i] = ix[i].off;
	}
	free(ix);
	return 0;
}

int ksyms_read(const char *path, struct ksyms *ret)
{
	struct read_ctx *c = calloc(1, sizeof(*c));
	struct ksyms k = { 0 };
	int r;

	if (!c)
		return -ENOMEM;
	c->out = &k;
	r = procfs_read_kallsyms(path, on_ksym, c, NULL);
	flush_batch(c);
	if (r == 0)
		r = c->err;
	free(c);
	if (r == 0)
		r = build_index(&k);
	if (r < 0) {
		ksyms_done(&k);
		return r;
	}
	*ret = k;
	return 0;
}

void ksyms_done(struct ksyms *k)
{
	free(k->data);
	free(k->addrs);
	free(k->offs);
	*k = (struct ksyms){ 0 };
}

int64_t ksyms_find(const struct ksyms *k, uint64_t addr)
{
	size_t lo = util_count_le(k->addrs, k->n, addr);

	return lo ? (int64_t)lo - 1 : -1;
}

const unsigned char *ksyms_entry(const struct ksyms *k, size_t i, size_t *ret_len)
{
	const unsigned char *e = k->data + k->offs[i];

	*ret_len = format_ksym_len(e);
	return e;
}

size_t ksyms_write_all(const struct ksyms *k, struct writer *w, uint64_t time)
{
	size_t n = 0;

	for (size_t off = 0; off + sizeof(struct rp_ksyms_rec) <= k->len;) {
		const struct rp_ksyms_rec *src = (const void *)(k->data + off);
		struct rp_ksyms_rec *dst = writer_reserve(w, src->hdr.size);

		if (dst) {
			memcpy(dst, src, src->hdr.size);
			dst->time = time;
		}
		n += src->n;
		off += src->hdr.size;
	}
	return n;
}

void ksyms_write_some(const struct ksyms *k, struct writer *w, uint64_t time, const uint32_t *idx,
		      size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t payload = 0, end = i, len, size;
		struct rp_ksyms_rec *rec;
		unsigned char *p;

		while (end < n) {
			ksyms_entry(k, idx[end] & ~KSYMS_BOUND, &len);
			if (sizeof(*rec) + payload + len > KSYMS_BATCH)
				break;
			payload += len;
			end++;
		}
		size = (sizeof(*rec) + payload + 7) & ~(size_t)7;
		rec = writer_reserve(w, size);
		if (!rec)
			break;
		p = (unsigned char *)(rec + 1);
		for (size_t j = i; j < end; j++) {
			const unsigned char *e = ksyms_entry(k, idx[j] & ~KSYMS_BOUND, &len);

			memcpy(p, e, len);
			if (idx[j] & KSYMS_BOUND)
				p[8] = RP_KSYM_BOUND; /* the type, after the address */
			p += len;
		}
		format_ksyms_seal(rec, time, (uint32_t)(end - i), payload);
		i = end;
	}
}
