/* captab.c — function symbols captured at record time, by build-id (see captab.h). */
#include "profile/captab.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/hash.h"
#include "base/intern.h"
#include "base/buildid.h"
#include "base/symx.h"
#include "format/format.h"
#include "format/reader.h"

#define ID_MAX 20
#define ANY_PART (1ull << 32) /* the key of a build-id's first part read, whichever it is */

struct part {
	uint8_t id[ID_MAX];
	uint8_t len;
	uint16_t n_parts;
	uint32_t n;
	unsigned char *run;
	size_t size;
};

struct captab {
	struct pairtab *keys; /* (hash of the build-id, part) -> index into parts */
	struct pairtab *any;  /* (hash of the build-id, ANY_PART) -> index into firsts */
	size_t *firsts;	      /* index into parts of each build-id's first part read */
	size_t cap_firsts;
	struct part *parts;
	size_t n_parts, cap_parts;
};

static uint64_t id_hash(const uint8_t *id, size_t len)
{
	return hash_bytes(id, len, 0x53594d54);
}

struct captab *captab_new(void)
{
	struct captab *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->keys = pairtab_new();
	t->any = pairtab_new();
	if (!t->keys || !t->any)
		return captab_free(t);
	return t;
}

struct captab *captab_free(struct captab *t)
{
	if (!t)
		return NULL;
	for (size_t i = 0; i < t->n_parts; i++)
		free(t->parts[i].run);
	free(t->parts);
	pairtab_free(t->keys);
	pairtab_free(t->any);
	free(t->firsts);
	free(t);
	return NULL;
}

int captab_add(struct captab *t, const uint8_t *id, size_t len, unsigned part, unsigned n_parts,
	       uint32_t n, const void *run, size_t size)
{
	struct part *p;
	bool added;
	int64_t idx;

	if (!len || len > ID_MAX || part >= n_parts || n_parts > UINT16_MAX)
		return -EINVAL;
	idx = pairtab_intern(t->keys, id_hash(id, len), part, &added);
	if (idx < 0)
		return -ENOMEM;
	if (!added)
		return 1;
	if (GROW(t->parts, t->cap_parts, (size_t)idx + 1) < 0)
		return -ENOMEM;
	p = &t->parts[idx];
	memset(p, 0, sizeof(*p));
	t->n_parts = (size_t)idx + 1;
	p->run = malloc(size ? size : 1);
	if (!p->run)
		return -ENOMEM;
	memcpy(p->run, run, size);
	memcpy(p->id, id, len);
	p->len = (uint8_t)len;
	p->n_parts = (uint16_t)n_parts;
	p->n = n;
	p->size = size;
	/* The first part read tells how many there are, should part 0 be lost. */
	idx = pairtab_intern(t->any, id_hash(id, len), ANY_PART, &added);
	if (idx < 0 || (added && GROW(t->firsts, t->cap_firsts, (size_t)idx + 1) < 0))
		return -ENOMEM;
	if (added)
		t->firsts[idx] = (size_t)(p - t->parts);
	return 0;
}

static const struct part *find_part(const struct captab *t, const uint8_t *id, size_t len,
				    unsigned k)
{
	int64_t idx = pairtab_find(t->keys, id_hash(id, len), k);

	if (idx < 0 || (size_t)idx >= t->n_parts)
		return NULL;
	/* A hash is not the build-id: compare. */
	if (t->parts[idx].len != len || memcmp(t->parts[idx].id, id, len) != 0)
		return NULL;
	return &t->parts[idx];
}

static int cmp_sym(const void *a, const void *b)
{
	const struct captab_sym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int captab_get(const struct captab *t, const uint8_t *id, size_t len, struct captab_sym **ret,
	       size_t *ret_n)
{
	int64_t first =
	    len && len <= ID_MAX ? pairtab_find(t->any, id_hash(id, len), ANY_PART) : -1;
	const struct part *p0 = first >= 0 ? &t->parts[t->firsts[first]] : NULL;
	struct captab_sym *v = NULL;
	size_t n = 0, cap = 0;
	unsigned n_parts;

	if (!p0 || p0->len != len || memcmp(p0->id, id, len) != 0)
		return -ENOENT;
	n_parts = p0->n_parts;
	for (unsigned k = 0; k < n_parts; k++) {
		const struct part *p = find_part(t, id, len, k);
		struct symx_cursor c;
		struct symx_entry e;

		if (!p)
			continue; /* lost with a damaged frame: the other parts still name */
		symx_open(&c, p->run, p->size, 0);
		for (uint32_t i = 0; i < p->n && symx_next(&c, &e) == 1; i++) {
			if (GROW(v, cap, n + 1) < 0) {
				free(v);
				return -ENOMEM;
			}
			v[n++] = (struct captab_sym){ e.start, e.size, e.name };
		}
	}
	if (!n) {
		free(v);
		return -ENOENT;
	}
	qsort(v, n, sizeof(*v), cmp_sym);
	*ret = v;
	*ret_n = n;
	return 0;
}

int captab_load(struct captab *t, const char *dir, const uint8_t *id, size_t len)
{
	const struct perf_event_header *h;
	char hex[2 * ID_MAX + 1], path[PATH_MAX], why[256];
	struct reader *r;
	int n = 0;

	if (!len || len > ID_MAX)
		return -EINVAL;
	buildid_to_hex(id, len, hex);
	if (snprintf(path, sizeof(path), "%s/%s.sym", dir, hex) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if (reader_open(path, &r, why, sizeof(why)) < 0)
		return -ENOENT;
	while ((h = reader_next(r))) {
		struct rp_symtab_rec st;
		const unsigned char *run;
		size_t size;

		/* Only this build-id's parts: the file name is no proof of its content. */
		if (format_symtab(h, &st, &run, &size) < 0 || st.len != len ||
		    memcmp(st.build_id, id, len) != 0 || !st.n)
			continue;
		if (captab_add(t, id, len, st.part, st.n_parts, st.n, run, size) == -ENOMEM) {
			reader_free(r);
			return -ENOMEM;
		}
		n++;
	}
	reader_free(r);
	return n ? 0 : -ENOENT;
}
