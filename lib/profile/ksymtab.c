/* ksymtab.c — kernel symbol table built from a recording's kallsyms snapshot (RP_REC_KSYMS). */
#include "profile/ksymtab.h"

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/intern.h"
#include "base/util.h"
#include "format/format.h"

#define MODULES_MAX 0xffffu
#define BLOCK 32 /* addresses per summary entry */
#define CHUNK_BITS 16
#define CHUNK_SIZE (1u << CHUNK_BITS) /* bytes per arena chunk; no kernel name is that long */
#define CHUNKS_MAX (1u << (32 - CHUNK_BITS)) /* so that a reference fits 32 bits */

/*
 * 16 bytes per symbol, so a table of 150k kernel symbols stays small and a block of them is a
 * few cache lines. A name is a reference into the arena: chunk << CHUNK_BITS | offset. Chunks
 * never move, so a name handed out stays valid while later records are added (ringprof script
 * names frames while it reads).
 */
struct ksym {
	uint64_t addr;
	uint32_t name;	 /* arena reference */
	uint16_t module; /* index into mods, 0 = core kernel */
	uint8_t rank;	 /* alias preference, higher wins */
	uint8_t bound;	 /* written only to end the symbol before it: names nothing */
};
_Static_assert(sizeof(struct ksym) == 16, "struct ksym is 16 bytes");

/*
 * After ksymtab_finish(), lookups go in two steps: the summary (every BLOCK-th address, small
 * enough to stay in cache) picks a block of syms, then a scan of that block (512 contiguous
 * bytes). A 150k-symbol table costs about one memory miss per lookup instead of one per
 * level of a binary search over the whole table.
 */
struct ksymtab {
	struct ksym *syms;
	size_t n, cap;
	uint64_t *summary;
	size_t n_summary;
	char **chunks; /* the arena: chunks[n_chunks - 1] is being filled */
	size_t n_chunks, cap_chunks;
	uint32_t chunk_used; /* bytes used in the last chunk */
	struct strtab *mods; /* module names: struct ksym's module is their id + 1 (0 = core) */
	uint16_t last_mod;   /* consecutive entries usually share their module */
	bool sorted;
};

struct ksymtab *ksymtab_new(void)
{
	struct ksymtab *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->sorted = true;
	t->mods = strtab_new();
	return t->mods ? t : ksymtab_free(t);
}

struct ksymtab *ksymtab_free(struct ksymtab *t)
{
	if (!t)
		return NULL;
	free(t->syms);
	free(t->summary);
	for (size_t i = 0; i < t->n_chunks; i++)
		free(t->chunks[i]);
	free(t->chunks);
	strtab_free(t->mods);
	free(t);
	return NULL;
}

/* Copy S (LEN bytes, NUL added) into the arena; its reference in *ret. */
static int arena_add(struct ksymtab *t, const char *s, size_t len, uint32_t *ret)
{
	char *c;

	if (len >= CHUNK_SIZE)
		return -E2BIG;
	if (!t->n_chunks || t->chunk_used + len + 1 > CHUNK_SIZE) {
		if (t->n_chunks == CHUNKS_MAX || GROW(t->chunks, t->cap_chunks, t->n_chunks + 1) < 0)
			return -ENOMEM;
		c = malloc(CHUNK_SIZE);
		if (!c)
			return -ENOMEM;
		t->chunks[t->n_chunks++] = c;
		t->chunk_used = 0;
	}
	c = t->chunks[t->n_chunks - 1] + t->chunk_used;
	memcpy(c, s, len);
	c[len] = '\0';
	*ret = (uint32_t)((t->n_chunks - 1) << CHUNK_BITS | t->chunk_used);
	t->chunk_used += (uint32_t)len + 1;
	return 0;
}

static const char *arena_get(const struct ksymtab *t, uint32_t ref)
{
	return t->chunks[ref >> CHUNK_BITS] + (ref & (CHUNK_SIZE - 1));
}

/* The index of module M (a string), added if new; 0 for the core kernel (""). */
static int module_index(struct ksymtab *t, const char *m, uint16_t *ret)
{
	int64_t id;

	if (!*m) {
		*ret = 0;
		return 0;
	}
	if (t->last_mod && !strcmp(strtab_get(t->mods, t->last_mod - 1u), m)) {
		*ret = t->last_mod;
		return 0;
	}
	id = strtab_intern(t->mods, m);
	if (id < 0)
		return (int)id;
	if (id + 1 > MODULES_MAX - 1)
		return -E2BIG;
	*ret = t->last_mod = (uint16_t)(id + 1);
	return 0;
}

/* Global over weak over local, then fewer leading underscores ("_stext" vs "startup_64"). */
static uint8_t alias_rank(char type, const char *name)
{
	unsigned int bind = 0, us = 0;

	if (type >= 'A' && type <= 'Z' && type != 'W' && type != 'V')
		bind = 3;
	else if (type == 'W' || type == 'w' || type == 'V' || type == 'v')
		bind = 2;
	else if (type >= 'a' && type <= 'z')
		bind = 1;
	while (name[us] == '_' && us < 15)
		us++;
	return (uint8_t)(bind << 4 | (15 - us));
}

int ksymtab_add_record(struct ksymtab *t, const void *rec, size_t size)
{
	struct format_ksyms_cursor c;
	struct format_ksym k;
	int cut, r;

	if (!t)
		return -EINVAL;
	cut = format_ksyms_open(&c, rec, size);
	if (cut < 0)
		return cut;
	while ((r = format_ksyms_next(&c, &k)) > 0) {
		uint16_t mi = 0;
		uint32_t no = 0;

		if (!k.addr || !k.name_len || k.name_len >= CHUNK_SIZE)
			continue; /* no kernel name is 64 KiB long: a hostile file's */
		r = GROW(t->syms, t->cap, t->n + 1);
		if (r == 0)
			r = module_index(t, k.module, &mi);
		if (r == 0)
			r = arena_add(t, k.name, k.name_len, &no);
		if (r < 0)
			return r;
		t->syms[t->n++] = (struct ksym){
			.addr = k.addr,
			.name = no,
			.module = mi,
			.rank = alias_rank(k.type, arena_get(t, no)),
			.bound = k.type == RP_KSYM_BOUND,
		};
		t->sorted = false;
	}
	return r < 0 || cut ? -EINVAL : 0;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	/* Arena offsets grow with insertion order: the first seen wins among equals. */
	return x->name < y->name ? -1 : x->name > y->name;
}

void ksymtab_finish(struct ksymtab *t)
{
	size_t w = 0;

	if (!t || t->sorted)
		return;
	qsort(t->syms, t->n, sizeof(*t->syms), cmp_ksym);
	for (size_t i = 0; i < t->n; i++) {
		if (w == 0 || t->syms[i].addr != t->syms[w - 1].addr)
			t->syms[w++] = t->syms[i];
		else if (!t->syms[i].bound && t->syms[w - 1].bound)
			t->syms[w - 1] = t->syms[i]; /* a symbol also written as needed names it */
	}
	t->n = w;
	t->sorted = true;

	/* Without memory for the summary, ksymtab_find() searches syms directly. */
	free(t->summary);
	t->n_summary = 0;
	t->summary = malloc((w / BLOCK + 1) * sizeof(*t->summary));
	if (!t->summary)
		return;
	for (size_t i = 0; i < w; i += BLOCK)
		t->summary[t->n_summary++] = t->syms[i].addr;
}

/* Number of symbols starting at or below ADDR (the candidate is the one before). */
static size_t count_le(const struct ksymtab *t, uint64_t addr)
{
	size_t lo = 0, hi, end;

	if (!t->summary) {
		hi = t->n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (t->syms[mid].addr <= addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo;
	}
	lo = util_count_le(t->summary, t->n_summary, addr);
	if (lo == 0)
		return 0;
	/* Block lo - 1 starts at or below addr; scan it. */
	lo = (lo - 1) * BLOCK;
	end = lo + BLOCK < t->n ? lo + BLOCK : t->n;
	while (lo < end && t->syms[lo].addr <= addr)
		lo++;
	return lo;
}

size_t ksymtab_count(const struct ksymtab *t)
{
	return t ? t->n : 0;
}

int ksymtab_find(const struct ksymtab *t, uint64_t addr, const char **ret_name,
		 const char **ret_module, uint64_t *ret_off)
{
	const struct ksym *s;
	size_t lo;

	if (!t || !t->n)
		return -ENOENT;
	assert(t->sorted && "ksymtab_finish() must be called after adding records");
	lo = count_le(t, addr);
	if (lo == 0)
		return -ENOENT;
	s = &t->syms[lo - 1];
	if (s->bound || addr - s->addr >= KSYMTAB_SPAN_MAX)
		return -ENOENT;
	if (ret_name)
		*ret_name = arena_get(t, s->name);
	if (ret_module)
		*ret_module = s->module ? strtab_get(t->mods, s->module - 1u) : NULL;
	if (ret_off)
		*ret_off = addr - s->addr;
	return 0;
}

int ksymtab_find_frame(const struct ksymtab *t, uint64_t addr, const char **ret_name,
		       const char **ret_module, uint64_t *ret_off)
{
	const char *name, *module;
	uint64_t off;

	if (ksymtab_find(t, addr, &name, &module, &off) == 0 && strncmp(name, "__pfx_", 6) == 0 &&
	    ksymtab_find(t, addr + 1, &name, &module, &off) == 0 && off == 0)
		off = (uint64_t)-1;
	else if (ksymtab_find(t, addr, &name, &module, &off) < 0)
		return -ENOENT;
	if (ret_name)
		*ret_name = name;
	if (ret_module)
		*ret_module = module;
	if (ret_off)
		*ret_off = off;
	return 0;
}
