/* captab.c — function symbols captured at record time, by build-id and digest (captab.h). */
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

/* A table's key: the build-id, then the digest when there is one (format 2.4). */
struct key {
	uint8_t b[ID_MAX + RP_DIGEST_LEN];
	size_t len;
};

static void make_key(struct key *k, const uint8_t *id, size_t len, const uint8_t *digest)
{
	memcpy(k->b, id, len);
	k->len = len;
	if (digest) {
		memcpy(k->b + len, digest, RP_DIGEST_LEN);
		k->len += RP_DIGEST_LEN;
	}
}

struct part {
	struct key key;
	uint16_t n_parts;
	uint32_t n;
	unsigned char *run;
	size_t size;
};

struct captab {
	struct pairtab *keys; /* (hash of the key, part) -> index into parts */
	struct pairtab *any;  /* (hash of the key, ANY_PART) -> index into firsts */
	size_t *firsts;	      /* index into parts of each key's first part read */
	size_t cap_firsts;
	struct part *parts;
	size_t n_parts, cap_parts;
};

static uint64_t key_hash(const struct key *k)
{
	return hash_bytes(k->b, k->len, 0x53594d54);
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

int captab_add(struct captab *t, const uint8_t *id, size_t len, const uint8_t *digest,
	       unsigned part, unsigned n_parts, uint32_t n, const void *run, size_t size)
{
	struct part *p;
	struct key k;
	bool added;
	int64_t idx;

	if (!len || len > ID_MAX || part >= n_parts || n_parts > UINT16_MAX)
		return -EINVAL;
	make_key(&k, id, len, digest);
	idx = pairtab_intern(t->keys, key_hash(&k), part, &added);
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
	p->key = k;
	p->n_parts = (uint16_t)n_parts;
	p->n = n;
	p->size = size;
	/* The first part read tells how many there are, should part 0 be lost. */
	idx = pairtab_intern(t->any, key_hash(&k), ANY_PART, &added);
	if (idx < 0 || (added && GROW(t->firsts, t->cap_firsts, (size_t)idx + 1) < 0))
		return -ENOMEM;
	if (added)
		t->firsts[idx] = (size_t)(p - t->parts);
	return 0;
}

static bool same_key(const struct key *a, const struct key *b)
{
	return a->len == b->len && memcmp(a->b, b->b, a->len) == 0;
}

static const struct part *find_part(const struct captab *t, const struct key *key, unsigned k)
{
	int64_t idx = pairtab_find(t->keys, key_hash(key), k);

	if (idx < 0 || (size_t)idx >= t->n_parts)
		return NULL;
	/* A hash is not the key: compare. */
	return same_key(&t->parts[idx].key, key) ? &t->parts[idx] : NULL;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct captab_sym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The table of key K: 0 with *ret and *ret_n, -ENOENT, -ENOMEM. */
static int get_key(const struct captab *t, const struct key *key, struct captab_sym **ret,
		   size_t *ret_n)
{
	int64_t first = pairtab_find(t->any, key_hash(key), ANY_PART);
	const struct part *p0 = first >= 0 ? &t->parts[t->firsts[first]] : NULL;
	struct captab_sym *v = NULL;
	size_t n = 0, cap = 0;
	unsigned n_parts;

	if (!p0 || !same_key(&p0->key, key))
		return -ENOENT;
	n_parts = p0->n_parts;
	for (unsigned k = 0; k < n_parts; k++) {
		const struct part *p = find_part(t, key, k);
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

int captab_get(const struct captab *t, const uint8_t *id, size_t len, const uint8_t *digest,
	       struct captab_sym **ret, size_t *ret_n)
{
	struct key k;
	int rc;

	if (!len || len > ID_MAX)
		return -ENOENT;
	make_key(&k, id, len, digest);
	rc = get_key(t, &k, ret, ret_n);
	if (rc == -ENOENT && digest) {
		/* Captured before format 2.4: by build-id alone. */
		make_key(&k, id, len, NULL);
		rc = get_key(t, &k, ret, ret_n);
	}
	return rc;
}

/* Add the parts of (ID, DIGEST) that the file PATH holds: how many, or -ENOENT, -ENOMEM. */
static int load_file(struct captab *t, const char *path, const uint8_t *id, size_t len,
		     const uint8_t *digest)
{
	const struct perf_event_header *h;
	struct reader *r;
	char why[256];
	int n = 0;

	if (reader_open(path, &r, why, sizeof(why)) < 0)
		return -ENOENT;
	while ((h = reader_next(r))) {
		struct rp_symtab_rec st;
		uint8_t d[RP_DIGEST_LEN];
		const unsigned char *run;
		size_t size, dlen;

		/* Only this table's parts: the file name is no proof of its content. */
		if (format_symtab(h, &st, d, &dlen, &run, &size) < 0 || st.len != len ||
		    memcmp(st.build_id, id, len) != 0 || !st.n ||
		    (digest ? dlen == 0 : dlen != 0) ||
		    (digest && memcmp(d, digest, RP_DIGEST_LEN) != 0))
			continue;
		if (captab_add(t, id, len, digest, st.part, st.n_parts, st.n, run, size) ==
		    -ENOMEM) {
			reader_free(r);
			return -ENOMEM;
		}
		n++;
	}
	reader_free(r);
	return n ? n : -ENOENT;
}

int captab_load(struct captab *t, const char *dir, const uint8_t *id, size_t len,
		const uint8_t *digest)
{
	char hex[2 * ID_MAX + 1], dig[2 * RP_DIGEST_LEN + 1], path[PATH_MAX];
	int rc = -ENOENT;

	if (!len || len > ID_MAX)
		return -EINVAL;
	buildid_to_hex(id, len, hex);
	if (digest) {
		buildid_to_hex(digest, RP_DIGEST_LEN, dig);
		if (snprintf(path, sizeof(path), "%s/%s-%s.sym", dir, hex, dig) >= (int)sizeof(path))
			return -ENAMETOOLONG;
		rc = load_file(t, path, id, len, digest);
	}
	if (rc == -ENOENT) { /* kept before format 2.4: by build-id alone */
		if (snprintf(path, sizeof(path), "%s/%s.sym", dir, hex) >= (int)sizeof(path))
			return -ENAMETOOLONG;
		rc = load_file(t, path, id, len, NULL);
	}
	return rc < 0 ? rc : 0;
}
