/* perfmap.c — JIT symbol maps (/tmp/perf-PID.map) as written by V8, the JVM agents, LuaJIT... */
#include "base/grow.h"
#include "base/util.h"
#include "profile/perfmap.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A line of the file. */
struct entry {
	uint64_t start, end;
	size_t name; /* arena offset */
	size_t seq;  /* line order: later wins */
};

/*
 * The map after overlaps are resolved: sorted, disjoint ranges, each naming the entry that
 * owns it (its start is kept so offsets are from the symbol's own start).
 */
struct seg {
	uint64_t start, end;
	uint64_t sym_start;
	const char *name;
};

#define BLOCK 16 /* segments per summary entry */

/*
 * Lookups go in two steps, as in ksymtab.c: the summary (every BLOCK-th segment start, small
 * enough to stay in cache) picks a block, then a scan of that block (512 contiguous bytes).
 */
struct perfmap {
	struct seg *segs;
	size_t n_segs;
	uint64_t *summary;
	size_t n_summary;
	size_t n_entries, n_bad;
	char *arena;
};

struct loader {
	struct entry *ents;
	size_t n, cap;
	char *arena;
	size_t arena_len, arena_cap;
	size_t n_bad;
};

/* Hex number with an optional 0x, 1 to 16 digits; advances *s. */
static bool parse_hex(const char **s, uint64_t *ret)
{
	const char *p = *s;
	uint64_t v = 0;
	int n = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (;; p++, n++) {
		int d;

		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			break;
		if (n == 16)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	if (!n)
		return false;
	*s = p;
	*ret = v;
	return true;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Parse one line (NUL-terminated, newline possibly still there); false when it is bad. */
static bool parse_line(const char *line, uint64_t *ret_start, uint64_t *ret_size,
		       const char **ret_name, size_t *ret_len)
{
	const char *p = line;
	uint64_t start, size;
	size_t len;

	while (is_blank(*p))
		p++;
	if (!parse_hex(&p, &start) || !is_blank(*p))
		return false;
	while (is_blank(*p))
		p++;
	if (!parse_hex(&p, &size) || !is_blank(*p))
		return false;
	while (is_blank(*p))
		p++;
	len = strlen(p);
	while (len && (p[len - 1] == '\n' || p[len - 1] == '\r' || is_blank(p[len - 1])))
		len--;
	if (!len || !size || start + size < start)
		return false;
	*ret_start = start;
	*ret_size = size;
	*ret_name = p;
	*ret_len = len;
	return true;
}

static int add_line(struct loader *l, const char *line)
{
	uint64_t start, size;
	const char *name;
	size_t len;
	int r;

	if (!parse_line(line, &start, &size, &name, &len)) {
		l->n_bad++;
		return 0;
	}
	r = GROW(l->ents, l->cap, l->n + 1);
	if (r == 0)
		r = GROW(l->arena, l->arena_cap, l->arena_len + len + 1);
	if (r < 0)
		return r;
	memcpy(l->arena + l->arena_len, name, len);
	l->arena[l->arena_len + len] = '\0';
	l->ents[l->n] = (struct entry){ start, start + size, l->arena_len, l->n };
	l->arena_len += len + 1;
	l->n++;
	return 0;
}

static int cmp_entry_start(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A max-heap of entry indices ordered by seq: the live entry written last is on top. */
struct heap {
	size_t *v;
	size_t n;
	const struct entry *ents;
};

static void heap_push(struct heap *h, size_t idx)
{
	size_t i = h->n++;

	h->v[i] = idx;
	while (i && h->ents[h->v[(i - 1) / 2]].seq < h->ents[h->v[i]].seq) {
		size_t p = (i - 1) / 2, t = h->v[p];

		h->v[p] = h->v[i];
		h->v[i] = t;
		i = p;
	}
}

static void heap_pop(struct heap *h)
{
	size_t i = 0;

	h->v[0] = h->v[--h->n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i, t;

		if (l < h->n && h->ents[h->v[l]].seq > h->ents[h->v[m]].seq)
			m = l;
		if (r < h->n && h->ents[h->v[r]].seq > h->ents[h->v[m]].seq)
			m = r;
		if (m == i)
			break;
		t = h->v[m];
		h->v[m] = h->v[i];
		h->v[i] = t;
		i = m;
	}
}

/*
 * Sweep the boundaries of all entries in address order; between two boundaries the owner
 * is the live entry written last. Entries whose end has passed are dropped lazily from the
 * top of the heap. Adjacent pieces of the same owner are merged.
 */
static int resolve(struct loader *l, struct perfmap *m)
{
	uint64_t *b = NULL;
	size_t nb = 0, e = 0;
	struct heap h = { NULL, 0, l->ents };
	int r = -ENOMEM;

	if (!l->n)
		return 0;
	qsort(l->ents, l->n, sizeof(*l->ents), cmp_entry_start);
	b = malloc(2 * l->n * sizeof(*b));
	h.v = malloc(l->n * sizeof(*h.v));
	m->segs = malloc(2 * l->n * sizeof(*m->segs));
	if (!b || !h.v || !m->segs)
		goto out;
	for (size_t i = 0; i < l->n; i++) {
		b[nb++] = l->ents[i].start;
		b[nb++] = l->ents[i].end;
	}
	qsort(b, nb, sizeof(*b), cmp_u64);
	for (size_t k = 0; k + 1 < nb; k++) {
		const struct entry *w;

		if (b[k] == b[k + 1])
			continue;
		while (e < l->n && l->ents[e].start <= b[k])
			heap_push(&h, e++);
		while (h.n && l->ents[h.v[0]].end <= b[k])
			heap_pop(&h);
		if (!h.n)
			continue;
		w = &l->ents[h.v[0]];
		if (m->n_segs && m->segs[m->n_segs - 1].end == b[k] &&
		    m->segs[m->n_segs - 1].sym_start == w->start &&
		    m->segs[m->n_segs - 1].name == l->arena + w->name) {
			m->segs[m->n_segs - 1].end = b[k + 1];
			continue;
		}
		m->segs[m->n_segs++] = (struct seg){ b[k], b[k + 1], w->start, l->arena + w->name };
	}
	r = 0;
out:
	free(b);
	free(h.v);
	return r;
}

int perfmap_load(const char *path, struct perfmap **ret)
{
	struct loader l = { 0 };
	struct perfmap *m = NULL;
	char *line = NULL;
	size_t line_cap = 0;
	FILE *f;
	int r = 0;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	errno = 0;
	while (getline(&line, &line_cap, f) >= 0) {
		r = add_line(&l, line);
		if (r < 0)
			goto out;
	}
	if (ferror(f)) {
		r = errno ? -errno : -EIO;
		goto out;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		r = -ENOMEM;
		goto out;
	}
	r = resolve(&l, m); /* the arena no longer moves: segments point into it */
	if (r < 0)
		goto out;
	m->summary = malloc((m->n_segs / BLOCK + 1) * sizeof(*m->summary));
	if (!m->summary) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < m->n_segs; i += BLOCK)
		m->summary[m->n_summary++] = m->segs[i].start;
	m->arena = l.arena;
	l.arena = NULL;
	m->n_entries = l.n;
	m->n_bad = l.n_bad;
	*ret = m;
	m = NULL;
out:
	perfmap_free(m);
	free(line);
	free(l.ents);
	free(l.arena);
	fclose(f);
	return r;
}

struct perfmap *perfmap_free(struct perfmap *m)
{
	if (!m)
		return NULL;
	free(m->segs);
	free(m->summary);
	free(m->arena);
	free(m);
	return NULL;
}

size_t perfmap_count(const struct perfmap *m)
{
	return m ? m->n_entries : 0;
}

size_t perfmap_bad_lines(const struct perfmap *m)
{
	return m ? m->n_bad : 0;
}

int perfmap_find(const struct perfmap *m, uint64_t addr, const char **ret_name, uint64_t *ret_off)
{
	size_t lo, end;
	const struct seg *s;

	if (!m || !m->n_segs)
		return -ENOENT;
	lo = util_count_le(m->summary, m->n_summary, addr);
	if (lo == 0)
		return -ENOENT;
	/* Block lo - 1 starts at or below addr: the last segment starting at or below it. */
	lo = (lo - 1) * BLOCK;
	end = lo + BLOCK < m->n_segs ? lo + BLOCK : m->n_segs;
	while (lo + 1 < end && m->segs[lo + 1].start <= addr)
		lo++;
	s = &m->segs[lo];
	if (addr >= s->end)
		return -ENOENT;
	if (ret_name)
		*ret_name = s->name;
	if (ret_off)
		*ret_off = addr - s->sym_start;
	return 0;
}
