/* intern.c — open-addressing hash tables with linear probing, keyed by value, giving dense ids. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "intern.h"
#include "util.h"

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

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
	size_t cap;
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
	uint32_t h = (uint32_t)mix64(a * 0x9e3779b97f4a7c15ull ^ mix64(b));

	for (uint32_t i = h & t->s.mask; t->s.ids[i]; i = (i + 1) & t->s.mask) {
		uint32_t id = t->s.ids[i] - 1;

		if (t->s.hashes[i] == h && t->keys[2 * id] == a && t->keys[2 * id + 1] == b)
			return id;
	}
	return -1;
}

int64_t pairtab_intern(struct pairtab *t, uint64_t a, uint64_t b, bool *ret_added)
{
	uint32_t h = (uint32_t)mix64(a * 0x9e3779b97f4a7c15ull ^ mix64(b));
	uint32_t i;

	for (i = h & t->s.mask; t->s.ids[i]; i = (i + 1) & t->s.mask) {
		uint32_t id = t->s.ids[i] - 1;

		if (t->s.hashes[i] == h && t->keys[2 * id] == a && t->keys[2 * id + 1] == b) {
			if (ret_added)
				*ret_added = false;
			return id;
		}
	}
	if (t->n == UINT32_MAX - 1 || util_grow((void **)&t->keys, &t->cap, t->n + 1, 2 * sizeof(uint64_t), 64) < 0)
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
	size_t cap;
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

static uint32_t seq_hash(const uint32_t *seq, uint32_t n)
{
	uint64_t h = n * 0x9e3779b97f4a7c15ull;

	for (uint32_t i = 0; i < n; i++)
		h = (h ^ seq[i]) * 0x100000001b3ull + (h >> 29);
	return (uint32_t)mix64(h);
}

int64_t seqtab_intern(struct seqtab *t, const uint32_t *seq, uint32_t n)
{
	uint32_t h = seq_hash(seq, n);
	uint32_t i;

	for (i = h & t->s.mask; t->s.ids[i]; i = (i + 1) & t->s.mask) {
		uint32_t id = t->s.ids[i] - 1;

		if (t->s.hashes[i] == h && t->off[2 * id + 1] == n &&
		    (n == 0 || memcmp(t->arena + t->off[2 * id], seq, n * sizeof(uint32_t)) == 0))
			return id;
	}
	if (t->arena_len > UINT32_MAX - n - 1 ||
	    util_grow((void **)&t->arena, &t->arena_cap, t->arena_len + n, sizeof(uint32_t), 64) < 0 ||
	    util_grow((void **)&t->off, &t->cap, t->n + 1, 2 * sizeof(uint32_t), 64) < 0)
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

struct strtab {
	struct slots s;
	char *arena;
	uint32_t arena_len;
	size_t arena_cap;
	uint32_t *off;
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
		free(t->arena);
		free(t->off);
		free(t);
	}
	return NULL;
}

int64_t strtab_intern(struct strtab *t, const char *str)
{
	size_t len = strlen(str);
	uint64_t h64 = 0xcbf29ce484222325ull;
	uint32_t h, i;

	for (size_t k = 0; k < len; k++)
		h64 = (h64 ^ (unsigned char)str[k]) * 0x100000001b3ull;
	h = (uint32_t)mix64(h64);
	for (i = h & t->s.mask; t->s.ids[i]; i = (i + 1) & t->s.mask) {
		uint32_t id = t->s.ids[i] - 1;

		if (t->s.hashes[i] == h && strcmp(t->arena + t->off[id], str) == 0)
			return id;
	}
	if (len >= UINT32_MAX / 2 || t->arena_len > UINT32_MAX - len - 1 ||
	    util_grow((void **)&t->arena, &t->arena_cap, t->arena_len + (uint32_t)len + 1, 1, 64) < 0 ||
	    util_grow((void **)&t->off, &t->cap, t->n + 1, sizeof(uint32_t), 64) < 0)
		return -ENOMEM;
	if ((uint64_t)(t->s.used + 1) * 10 >= (uint64_t)(t->s.mask + 1) * 7) {
		if (slots_grow(&t->s) < 0)
			return -ENOMEM;
		for (i = h & t->s.mask; t->s.ids[i]; i = (i + 1) & t->s.mask)
			;
	}
	memcpy(t->arena + t->arena_len, str, len + 1);
	t->off[t->n] = t->arena_len;
	t->arena_len += (uint32_t)len + 1;
	t->s.ids[i] = ++t->n;
	t->s.hashes[i] = h;
	t->s.used++;
	return t->n - 1;
}

const char *strtab_get(const struct strtab *t, uint32_t id)
{
	return t->arena + t->off[id];
}

uint32_t strtab_count(const struct strtab *t)
{
	return t->n;
}
