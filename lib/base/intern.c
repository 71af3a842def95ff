/* intern.c — open-addressing hash tables with linear probing, keyed by value, giving dense ids. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/hash.h"
#include "base/intern.h"

/* The slot array shared by the three tables: each slot holds id + 1 (0 = empty) and the
 * key's hash, so most probes never touch the keys. */
struct slots {
	uint32_t *ids;
	uint32_t *hashes;
	uint32_t mask;
	uint32_t used;
};

static int slots_init(struct slots *s, uint32_t cap)
{
	s->ids = calloc(cap, sizeof(uint32_t));
	s->hashes = calloc(cap, sizeof(uint32_t));
	if (!s->ids || !s->hashes) {
		free(s->ids);
		free(s->hashes);
		return -ENOMEM;
	}
	s->mask = cap - 1;
	s->used = 0;
	return 0;
}

static void slots_done(struct slots *s)
{
	free(s->ids);
	free(s->hashes);
}

/* Double the table when 70 % full; rehash from the stored hashes. */
static int slots_grow(struct slots *s)
{
	struct slots n;

	if ((uint64_t)(s->used + 1) * 10 < (uint64_t)(s->mask + 1) * 7)
		return 0;
	if (slots_init(&n, (s->mask + 1) * 2) < 0)
		return -ENOMEM;
	for (uint32_t i = 0; i <= s->mask; i++) {
		if (!s->ids[i])
			continue;
		uint32_t j = s->hashes[i] & n.mask;

		while (n.ids[j])
			j = (j + 1) & n.mask;
		n.ids[j] = s->ids[i];
		n.hashes[j] = s->hashes[i];
	}
	n.used = s->used;
	slots_done(s);
	*s = n;
	return 0;
}

struct pairtab {
	struct slots s;
	uint64_t *keys; /* 2 per id */
	uint32_t n;
	size_t cap; /* of keys, in uint64_t */
};

struct pairtab *pairtab_new(void)
{
	struct pairtab *t = calloc(1, sizeof(*t));

	if (t && slots_init(&t->s, 1024) < 0) {
		free(t);
		return NULL;
	}
	return t;
}

struct pairtab *pairtab_free(struct pairtab *t)
{
	if (t) {
		slots_done(&t->s);
		free(t->keys);
		free(t);
	}
	return NULL;
}

int64_t pairtab_find(const struct pairtab *t, uint64_t a, uint64_t b)
{
	uint32_t h = (uint32_t)hash_pair(a, b);

	for (uint32_t i = h & t->s.mask; t->s.ids[i]; i = (i + 1) & t->s.mask) {
		uint32_t id = t->s.ids[i] - 1;

		if (t->s.hashes[i] == h && t->keys[2 * id] == a && t->keys[2 * id + 1] == b)
			return id;
	}
	return -1;
}

int64_t pairtab_intern(struct pairtab *t, uint64_t a, uint64_t b, bool *ret_added)
{
	uint32_t h = (uint32_t)hash_pair(a, b);
	uint32_t i;

	for (i = h & t->s.mask; t->s.ids[i]; i = (i + 1) & t->s.mask) {
		uint32_t id = t->s.ids[i] - 1;

		if (t->s.hashes[i] == h && t->keys[2 * id] == a && t->keys[2 * id + 1] == b) {
			if (ret_added)
				*ret_added = false;
			return id;
		}
	}
	if (t->n == UINT32_MAX - 1 || GROW(t->keys, t->cap, 2 * ((size_t)t->n + 1)) < 0)
		return -ENOMEM;
	if ((uint64_t)(t->s.used + 1) * 10 >= (uint64_t)(t->s.mask + 1) * 7) {
		if (slots_grow(&t->s) < 0)
			return -ENOMEM;
		for (i = h & t->s.mask; t->s.ids[i]; i = (i + 1) & t->s.mask)
			;
	}
	t->keys[2 * t->n] = a;
	t->keys[2 * t->n + 1] = b;
	t->s.ids[i] = ++t->n;
	t->s.hashes[i] = h;
	t->s.used++;
	if (ret_added)
		*ret_added = true;
	return t->n - 1;
}

void pairtab_get(const struct pairtab *t, uint32_t id, uint64_t *ret_a, uint64_t *ret_b)
{
	*ret_a = t->keys[2 * id];
	*ret_b = t->keys[2 * id + 1];
}

uint32_t pairtab_count(const struct pairtab *t)
{
	return t->n;
}

struct seqtab {
	struct slots s;
	uint32_t *arena;
	uint32_t arena_len;
	size_t arena_cap;
	uint32_t *off; /* 2 per id: offset, length */
	uint32_t n;
	size_t cap; /* of off, in uint32_t */
};

struct seqtab *seqtab_new(void)
{
	struct seqtab *t = calloc(1, sizeof(*t));

	if (t && slots_init(&t->s, 1024) < 0) {
		free(t);
		return NULL;
	}
	return t;
}

struct seqtab *seqtab_free(struct seqtab *t)
{
	if (t) {
		slots_done(&t->s);
		free(t->arena);
		free(t->off);
		free(t);
	}
	return NULL;
}

int64_t seqtab_intern(struct seqtab *t, const uint32_t *seq, uint32_t n)
{
	uint32_t h = (uint32_t)hash_u32s(seq, n);
	uint32_t i;

	for (i = h & t->s.mask; t->s.ids[i]; i = (i + 1) & t->s.mask) {
		uint32_t id = t->s.ids[i] - 1;

		if (t->s.hashes[i] == h && t->off[2 * id + 1] == n &&
		    (n == 0 || memcmp(t->arena + t->off[2 * id], seq, n * sizeof(uint32_t)) == 0))
			return id;
	}
	if (t->arena_len > UINT32_MAX - n - 1 ||
	    GROW(t->arena, t->arena_cap, (size_t)t->arena_len + n) < 0 ||
	    GROW(t->off, t->cap, 2 * ((size_t)t->n + 1)) < 0)
		return -ENOMEM;
	if ((uint64_t)(t->s.used + 1) * 10 >= (uint64_t)(t->s.mask + 1) * 7) {
		if (slots_grow(&t->s) < 0)
			return -ENOMEM;
		for (i = h & t->s.mask; t->s.ids[i]; i = (i + 1) & t->s.mask)
			;
	}
	if (n) /* an empty sequence may come with a NULL arena and seq: memcpy's contract */
		memcpy(t->arena + t->arena_len, seq, n * sizeof(uint32_t));
	t->off[2 * t->n] = t->arena_len;
	t->off[2 * t->n + 1] = n;
	t->arena_len += n;
	t->s.ids[i] = ++t->n;
	t->s.hashes[i] = h;
	t->s.used++;
	return t->n - 1;
}

const uint32_t *seqtab_get(const struct seqtab *t, uint32_t id, uint32_t *ret_n)
{
	*ret_n = t->off[2 * id + 1];
	return t->arena + t->off[2 * id];
}

uint32_t seqtab_count(const struct seqtab *t)
{
	return t->n;
}

/*
 * The strings live in chunks that never move, so a pointer to one stays valid until
 * strtab_free(): short strings fill the newest chunk (STRTAB_CHUNK bytes), a longer one gets
 * a chunk of its own.
 */
#define STRTAB_CHUNK (64u << 10)

struct strchunk {
	struct strchunk *next;
	size_t used, cap;
	char data[];
};

struct strtab {
	struct slots s;
	struct strchunk *chunks; /* the one being filled first */
	const char **strs;	 /* per id, into the chunks */
	uint32_t n;
	size_t cap;
};

struct strtab *strtab_new(void)
{
	struct strtab *t = calloc(1, sizeof(*t));

	if (t && slots_init(&t->s, 256) < 0) {
		free(t);
		return NULL;
	}
	return t;
}

struct strtab *strtab_free(struct strtab *t)
{
	if (t) {
		slots_done(&t->s);
		while (t->chunks) {
			struct strchunk *c = t->chunks;

			t->chunks = c->next;
			free(c);
		}
		free(t->strs);
		free(t);
	}
	return NULL;
}

/* SIZE bytes that will never move, or NULL. */
static char *strtab_alloc(struct strtab *t, size_t size)
{
	struct strchunk *c = t->chunks;
	bool own = size > STRTAB_CHUNK;

	if (!own && c && c->cap - c->used >= size) {
		c->used += size;
		return c->data + c->used - size;
	}
	if (size > SIZE_MAX - sizeof(*c))
		return NULL;
	c = malloc(sizeof(*c) + (own ? size : STRTAB_CHUNK));
	if (!c)
		return NULL;
	c->cap = own ? size : STRTAB_CHUNK;
	c->used = size;
	if (own && t->chunks) {
		/* Behind the chunk being filled, which keeps its room for short strings. */
		c->next = t->chunks->next;
		t->chunks->next = c;
	} else {
		c->next = t->chunks;
		t->chunks = c;
	}
	return c->data;
}

/* The id of STR, copying it in when absent; *ret_str is the table's copy. -ENOMEM or id. */
static int64_t strtab_put(struct strtab *t, const char *str, const char **ret_str)
{
	uint32_t h = (uint32_t)hash_str(str), i;
	size_t len;
	char *p;

	for (i = h & t->s.mask; t->s.ids[i]; i = (i + 1) & t->s.mask) {
		uint32_t id = t->s.ids[i] - 1;

		if (t->s.hashes[i] == h && strcmp(t->strs[id], str) == 0) {
			*ret_str = t->strs[id];
			return id;
		}
	}
	if (t->n == UINT32_MAX - 1 || GROW(t->strs, t->cap, (size_t)t->n + 1) < 0)
		return -ENOMEM;
	if ((uint64_t)(t->s.used + 1) * 10 >= (uint64_t)(t->s.mask + 1) * 7) {
		if (slots_grow(&t->s) < 0)
			return -ENOMEM;
		for (i = h & t->s.mask; t->s.ids[i]; i = (i + 1) & t->s.mask)
			;
	}
	len = strlen(str);
	p = strtab_alloc(t, len + 1);
	if (!p)
		return -ENOMEM;
	memcpy(p, str, len + 1);
	t->strs[t->n] = p;
	t->s.ids[i] = ++t->n;
	t->s.hashes[i] = h;
	t->s.used++;
	*ret_str = p;
	return t->n - 1;
}

int64_t strtab_intern(struct strtab *t, const char *str)
{
	const char *p;

	return strtab_put(t, str, &p);
}

const char *strtab_add(struct strtab *t, const char *str)
{
	const char *p;

	if (!str || strtab_put(t, str, &p) < 0)
		return NULL;
	return p;
}

const char *strtab_get(const struct strtab *t, uint32_t id)
{
	return t->strs[id];
}

uint32_t strtab_count(const struct strtab *t)
{
	return t->n;
}
