/* stacktab.c — the recorder's table of distinct stacks: fixed memory, no allocation once made. */
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "format/format.h"
#include "format/stacktab.h"

struct stack_ent {
	uint64_t hash;
	uint64_t off; /* into words */
	uint32_t nr;  /* words: ip then the chain */
	uint16_t misc;
};

struct stacktab {
	uint32_t *slots; /* id + 1, 0 when empty; mask + 1 of them */
	uint32_t mask;
	struct stack_ent *ents;
	uint32_t n, max;
	uint64_t *words;
	size_t n_words, max_words;
};

struct stacktab *stacktab_new(uint32_t max_stacks, size_t max_words)
{
	struct stacktab *t = calloc(1, sizeof(*t));
	uint32_t n_slots = 16;

	if (!t)
		return NULL;
	while (n_slots < max_stacks * 2u)
		n_slots *= 2;
	/* calloc'd: untouched pages cost nothing until the table grows into them. */
	t->slots = calloc(n_slots, sizeof(*t->slots));
	t->ents = calloc(max_stacks, sizeof(*t->ents));
	t->words = calloc(max_words, sizeof(*t->words));
	if (!t->slots || !t->ents || !t->words) {
		stacktab_free(t);
		return NULL;
	}
	t->mask = n_slots - 1;
	t->max = max_stacks;
	t->max_words = max_words;
	return t;
}

struct stacktab *stacktab_free(struct stacktab *t)
{
	if (!t)
		return NULL;
	free(t->slots);
	free(t->ents);
	free(t->words);
	free(t);
	return NULL;
}

void stacktab_reset(struct stacktab *t)
{
	memset(t->slots, 0, ((size_t)t->mask + 1) * sizeof(*t->slots));
	t->n = 0;
	t->n_words = 0;
}

uint32_t stacktab_count(const struct stacktab *t)
{
	return t->n;
}

int64_t stacktab_intern(struct stacktab *t, uint16_t misc, uint64_t ip, const uint64_t *chain,
			uint64_t nr, bool *added)
{
	uint64_t h;
	uint32_t i;

	*added = false;
	if (nr + 1 > RP_STACK_MAX_WORDS)
		return -1;
	h = hash_stack(misc, ip, chain, nr);
	for (i = (uint32_t)h & t->mask;; i = (i + 1) & t->mask) {
		uint32_t s = t->slots[i];
		const struct stack_ent *e;

		if (!s)
			break;
		e = &t->ents[s - 1];
		if (e->hash == h && e->nr == nr + 1 && e->misc == misc && t->words[e->off] == ip &&
		    (!nr || memcmp(&t->words[e->off + 1], chain, nr * 8) == 0))
			return s - 1;
	}
	if (t->n == t->max || t->n_words + nr + 1 > t->max_words)
		return -1;
	t->ents[t->n] = (struct stack_ent){ h, t->n_words, (uint32_t)(nr + 1), misc };
	t->words[t->n_words] = ip;
	if (nr) /* chain is NULL without callchains */
		memcpy(&t->words[t->n_words + 1], chain, nr * 8);
	t->n_words += nr + 1;
	t->slots[i] = ++t->n;
	*added = true;
	return t->n - 1;
}
