/* symx.c — the compact encoding of captured symbols (see symx.h). */
#include "base/symx.h"

#include <errno.h>
#include <string.h>

static unsigned char *put_varint(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

/* 0 and *ret, or -EINVAL when the varint runs past end or past 64 bits. */
static int get_varint(const unsigned char **pp, const unsigned char *end, uint64_t *ret)
{
	const unsigned char *p = *pp;
	uint64_t v = 0;

	for (unsigned shift = 0; p < end && shift < 64; shift += 7) {
		unsigned char b = *p++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*pp = p;
			*ret = v;
			return 0;
		}
	}
	return -EINVAL;
}

size_t symx_put(unsigned char *dst, uint64_t prev_start, uint64_t start, uint64_t size,
		const char *name, size_t name_len)
{
	unsigned char *p = dst;

	if (name_len > SYMX_NAME_MAX)
		name_len = SYMX_NAME_MAX;
	p = put_varint(p, start - prev_start);
	p = put_varint(p, size);
	memcpy(p, name, name_len);
	p[name_len] = '\0';
	return (size_t)(p - dst) + name_len + 1;
}

void symx_open(struct symx_cursor *c, const void *run, size_t size, uint64_t base)
{
	c->p = run;
	c->end = c->p + size;
	c->prev = base;
}

int symx_next(struct symx_cursor *c, struct symx_entry *ret)
{
	const unsigned char *p = c->p, *nul;
	uint64_t delta, size;

	if (p == c->end)
		return 0;
	if (get_varint(&p, c->end, &delta) < 0 || get_varint(&p, c->end, &size) < 0 ||
	    c->prev + delta < c->prev)
		return -EINVAL;
	nul = memchr(p, '\0', (size_t)(c->end - p));
	if (!nul)
		return -EINVAL;
	c->prev += delta;
	*ret = (struct symx_entry){ c->prev, size, (const char *)p, (size_t)(nul - p) };
	c->p = nul + 1;
	return 1;
}
