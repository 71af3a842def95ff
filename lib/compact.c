/* compact.c — stack interning and sample batches for format 2. The recorder's side runs in
 * its drain loop: no allocation and no syscall after stacktab_new(). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "compact.h"

bool compact_sample_type_ok(uint64_t st)
{
	return (st & ~(uint64_t)PERF_SAMPLE_CALLCHAIN) == RP_COMPACT_SAMPLE_TYPE;
}

/* ---- stack table ---- */

struct stack_ent {
	uint64_t hash;
	uint64_t off;   /* into words */
	uint32_t nr;    /* words: ip then the chain */
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

void stacktab_free(struct stacktab *t)
{
	if (!t)
		return;
	free(t->slots);
	free(t->ents);
	free(t->words);
	free(t);
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

static inline uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x9E3779B97F4A7C15ull;
	return h ^ (h >> 29);
}

int64_t stacktab_intern(struct stacktab *t, uint16_t misc, uint64_t ip, const uint64_t *chain,
			uint64_t nr, bool *added)
{
	uint64_t h = mix(0x243F6A8885A308D3ull ^ nr, (uint64_t)misc << 48 ^ ip);
	uint32_t i;

	*added = false;
	if (nr + 1 > RP_STACK_MAX_WORDS)
		return -1;
	for (uint64_t k = 0; k < nr; k++) {
		uint64_t v;

		memcpy(&v, &chain[k], 8);
		h = mix(h, v);
	}
	for (i = (uint32_t)h & t->mask;; i = (i + 1) & t->mask) {
		uint32_t s = t->slots[i];
		const struct stack_ent *e;

		if (!s)
			break;
		e = &t->ents[s - 1];
		if (e->hash == h && e->nr == nr + 1 && e->misc == misc && t->words[e->off] == ip &&
		    memcmp(&t->words[e->off + 1], chain, nr * 8) == 0)
			return s - 1;
	}
	if (t->n == t->max || t->n_words + nr + 1 > t->max_words)
		return -1;
	t->ents[t->n] = (struct stack_ent){ h, t->n_words, (uint32_t)(nr + 1), misc };
	t->words[t->n_words] = ip;
	memcpy(&t->words[t->n_words + 1], chain, nr * 8);
	t->n_words += nr + 1;
	t->slots[i] = ++t->n;
	*added = true;
	return t->n - 1;
}

/* ---- batches ---- */

static inline unsigned char *put_varint(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

/* Worst case of one sample: five varints of at most 10 bytes. */
#define SAMPLE_MAX_BYTES 50u

bool sbatch_add(struct sbatch *b, uint32_t cpu, uint64_t time, uint32_t pid, uint32_t tid,
		uint64_t period, uint32_t stack)
{
	unsigned char *p;
	int64_t dt;
	bool task, per;

	if (!b->n) {
		b->cpu = cpu;
		b->len = sizeof(struct rp_samples_rec);
		b->t_prev = time;
		b->period = 0;
	} else if (b->cpu != cpu || b->len + SAMPLE_MAX_BYTES > SBATCH_MAX) {
		return false;
	}
	p = b->buf + b->len;
	dt = (int64_t)(time - b->t_prev - b->period);
	p = put_varint(p, ((uint64_t)dt << 1) ^ (uint64_t)(dt >> 63));
	task = !b->n || pid != b->pid || tid != b->tid;
	per = period != b->period;
	p = put_varint(p, (uint64_t)stack << 2 | (uint64_t)task << 1 | per);
	if (task) {
		p = put_varint(p, pid);
		p = put_varint(p, tid);
	}
	if (per)
		p = put_varint(p, period);
	b->len = (size_t)(p - b->buf);
	b->t_prev = time;
	b->pid = pid;
	b->tid = tid;
	b->period = period;
	if (!b->n++) {
		struct rp_samples_rec *r = (void *)b->buf;

		r->time = time;
	}
	return true;
}

const struct perf_event_header *sbatch_finish(struct sbatch *b)
{
	struct rp_samples_rec *r = (void *)b->buf;
	size_t size = (b->len + 7) & ~(size_t)7;

	if (!b->n)
		return NULL;
	memset(b->buf + b->len, 0, size - b->len);
	r->hdr.type = RP_REC_SAMPLES;
	r->hdr.misc = 0;
	r->hdr.size = (uint16_t)size;
	r->cpu = b->cpu;
	r->n = b->n;
	b->n = 0;
	return &r->hdr;
}

/* ---- reading ---- */

int sbatch_read_init(struct sbatch_reader *br, const struct perf_event_header *h)
{
	struct rp_samples_rec r;

	if (h->size < sizeof(r))
		return -EINVAL;
	memcpy(&r, h, sizeof(r));
	memset(br, 0, sizeof(*br));
	br->p = (const unsigned char *)h + sizeof(r);
	br->end = (const unsigned char *)h + h->size;
	br->left = r.n;
	br->cpu = r.cpu;
	br->time = r.time;
	return 0;
}

static inline int get_varint(struct sbatch_reader *br, uint64_t *ret)
{
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		unsigned char c;

		if (br->p == br->end)
			return -EINVAL;
		c = *br->p++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*ret = v;
			return 0;
		}
	}
	return -EINVAL;
}

int sbatch_read_next(struct sbatch_reader *br, struct compact_sample *ret)
{
	uint64_t zz, key, pid, tid, period, prev_period;

	if (!br->left)
		return 0;
	if (get_varint(br, &zz) < 0 || get_varint(br, &key) < 0)
		goto bad;
	if (key & 2) {
		if (get_varint(br, &pid) < 0 || get_varint(br, &tid) < 0 || pid > UINT32_MAX ||
		    tid > UINT32_MAX)
			goto bad;
		br->pid = (uint32_t)pid;
		br->tid = (uint32_t)tid;
		br->have_task = true;
	} else if (!br->have_task) {
		goto bad;
	}
	prev_period = br->period;
	if (key & 1) {
		if (get_varint(br, &period) < 0)
			goto bad;
		br->period = period;
	}
	if (key >> 2 > UINT32_MAX)
		goto bad;
	br->time += (uint64_t)((int64_t)(zz >> 1) ^ -(int64_t)(zz & 1)) + prev_period;
	br->left--;
	*ret = (struct compact_sample){ br->time, br->pid, br->tid, br->period, (uint32_t)(key >> 2) };
	return 1;
bad:
	br->left = 0;
	return -EINVAL;
}
