/* compact.c — format 2's batch codecs: STACKS (stack definitions) and SAMPLES (packed samples).
 * The encoders run in the recorder's drain loop: no allocation, no syscall. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/compact.h"

bool compact_sample_type_ok(uint64_t st)
{
	return (st & ~(uint64_t)PERF_SAMPLE_CALLCHAIN) == RP_COMPACT_SAMPLE_TYPE;
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
/* Three varints of column lengths, and padding. */
#define COLUMNS_OVERHEAD (3u * 3u + 8u)

/* Position of (pid, tid) in the batch's recent tasks, or -1; moves it to the front. */
static int mru_take(uint64_t *mru, uint32_t *n, uint64_t task)
{
	for (uint32_t i = 0; i < *n; i++) {
		if (mru[i] == task) {
			memmove(&mru[1], &mru[0], i * sizeof(*mru));
			mru[0] = task;
			return (int)i;
		}
	}
	if (*n < SBATCH_MRU)
		(*n)++;
	memmove(&mru[1], &mru[0], (*n - 1) * sizeof(*mru));
	mru[0] = task;
	return -1;
}

bool sbatch_add(struct sbatch *b, uint32_t cpu, uint64_t time, uint32_t pid, uint32_t tid,
		uint64_t period, uint32_t stack)
{
	uint64_t task_key = (uint64_t)pid << 32 | tid;
	int64_t dt;
	bool task, per;

	if (!b->n) {
		b->cpu = cpu;
		b->len[0] = b->len[1] = b->len[2] = b->len[3] = 0;
		b->t_prev = time;
		b->t_first = time;
		b->period = 0;
		b->n_mru = 0;
	} else if (b->cpu != cpu || sizeof(struct rp_evsamples_rec) + COLUMNS_OVERHEAD + b->len[0] +
					    b->len[1] + b->len[2] + b->len[3] + SAMPLE_MAX_BYTES >
					SBATCH_MAX) {
		return false;
	}
	dt = (int64_t)(time - b->t_prev - b->period);
	b->len[0] =
	    (size_t)(put_varint(b->col[0] + b->len[0], ((uint64_t)dt << 1) ^ (uint64_t)(dt >> 63)) -
		     b->col[0]);
	task = !b->n || pid != b->pid || tid != b->tid;
	per = period != b->period;
	b->len[1] = (size_t)(put_varint(b->col[1] + b->len[1],
					(uint64_t)stack << 2 | (uint64_t)task << 1 | per) -
			     b->col[1]);
	if (task) {
		int k = mru_take(b->mru, &b->n_mru, task_key);
		unsigned char *p = b->col[2] + b->len[2];

		p = put_varint(p, (uint64_t)(k + 1));
		if (k < 0) {
			p = put_varint(p, pid);
			p = put_varint(p, tid);
		}
		b->len[2] = (size_t)(p - b->col[2]);
	}
	if (per)
		b->len[3] = (size_t)(put_varint(b->col[3] + b->len[3], period) - b->col[3]);
	b->t_prev = time;
	b->pid = pid;
	b->tid = tid;
	b->period = period;
	b->n++;
	return true;
}

const struct perf_event_header *sbatch_finish(struct sbatch *b)
{
	struct rp_samples_rec *r = (void *)b->buf;
	struct rp_evsamples_rec *er = (void *)b->buf;
	unsigned char *p = b->buf + (b->event ? sizeof(*er) : sizeof(*r));
	size_t size;

	if (!b->n)
		return NULL;
	for (int c = 0; c < 3; c++)
		p = put_varint(p, b->len[c]);
	for (int c = 0; c < 4; c++) {
		memcpy(p, b->col[c], b->len[c]);
		p += b->len[c];
	}
	size = ((size_t)(p - b->buf) + 7) & ~(size_t)7;
	memset(p, 0, size - (size_t)(p - b->buf));
	r->hdr.type = b->event ? RP_REC_EVSAMPLES : RP_REC_SAMPLES;
	r->hdr.misc = 0;
	r->hdr.size = (uint16_t)size;
	r->time = b->t_first;
	r->cpu = b->cpu;
	r->n = b->n;
	if (b->event) {
		er->event = b->event;
		er->reserved = 0;
	}
	b->n = 0;
	return &r->hdr;
}

/* ---- stack definitions ---- */

bool kbatch_add(struct kbatch *b, uint32_t id, uint16_t misc, uint64_t ip, const uint64_t *chain,
		uint64_t nr)
{
	uint64_t c1 = 0, c0 = 0;
	bool dup;
	size_t words;
	unsigned char *p;

	if (nr >= 2) {
		memcpy(&c0, &chain[0], 8);
		memcpy(&c1, &chain[1], 8);
	}
	dup = nr >= 2 && c0 >= (uint64_t)PERF_CONTEXT_MAX && c1 == ip;
	words = dup ? nr : nr + 1;
	if (!b->n) {
		b->first_id = id;
		b->len = sizeof(struct rp_stacks_rec);
	} else if (id != b->first_id + b->n || b->len + 12 + words * 8 > sizeof(b->buf)) {
		return false;
	}
	if (b->len + 12 + words * 8 > sizeof(b->buf))
		return false; /* cannot happen below RP_STACK_MAX_WORDS */
	p = b->buf + b->len;
	memcpy(p, &misc, 2);
	p = put_varint(p + 2, (uint64_t)words << 1 | dup);
	if (!dup) {
		memcpy(p, &ip, 8);
		p += 8;
	}
	if (nr)
		memcpy(p, chain, nr * 8);
	p += nr * 8;
	b->len = (size_t)(p - b->buf);
	b->n++;
	return true;
}

const struct perf_event_header *kbatch_finish(struct kbatch *b)
{
	struct rp_stacks_rec *r = (void *)b->buf;
	size_t size = (b->len + 7) & ~(size_t)7;

	if (!b->n)
		return NULL;
	memset(b->buf + b->len, 0, size - b->len);
	r->hdr.type = RP_REC_STACKS;
	r->hdr.misc = 0;
	r->hdr.size = (uint16_t)size;
	r->time = 0;
	r->first_id = b->first_id;
	r->n = b->n;
	b->n = 0;
	return &r->hdr;
}

/* ---- reading ---- */

static inline int get_varint(const unsigned char **pp, const unsigned char *end, uint64_t *ret)
{
	const unsigned char *p = *pp;
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		unsigned char c;

		if (p == end)
			return -EINVAL;
		c = *p++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*ret = v;
			*pp = p;
			return 0;
		}
	}
	return -EINVAL;
}

int sbatch_read_init(struct sbatch_reader *br, const struct perf_event_header *h)
{
	struct rp_samples_rec r;
	struct rp_evsamples_rec er = { .event = 0 };
	size_t fixed = h->type == RP_REC_EVSAMPLES ? sizeof(er) : sizeof(r);
	const unsigned char *p, *end = (const unsigned char *)h + h->size;
	uint64_t len[3];

	if (h->size < fixed)
		return -EINVAL;
	memcpy(&r, h, sizeof(r));
	if (h->type == RP_REC_EVSAMPLES) {
		memcpy(&er, h, sizeof(er));
		if (er.event == 0 || er.event >= RP_MAX_EVENTS)
			return -EINVAL;
	}
	memset(br, 0, sizeof(*br));
	br->event = er.event;
	p = (const unsigned char *)h + fixed;
	for (int c = 0; c < 3; c++)
		if (get_varint(&p, end, &len[c]) < 0 || len[c] > (uint64_t)(end - p))
			return -EINVAL;
	for (int c = 0; c < 3; c++) {
		if (len[c] > (uint64_t)(end - p))
			return -EINVAL;
		br->p[c] = p;
		br->end[c] = p + len[c];
		p += len[c];
	}
	br->p[3] = p;
	br->end[3] = end; /* the period column runs into the padding: read only as needed */
	br->left = r.n;
	br->cpu = r.cpu;
	br->time = r.time;
	return 0;
}

int sbatch_read_next(struct sbatch_reader *br, struct compact_sample *ret)
{
	uint64_t zz, key, k, pid, tid, period, prev_period;

	if (!br->left)
		return 0;
	if (get_varint(&br->p[0], br->end[0], &zz) < 0 ||
	    get_varint(&br->p[1], br->end[1], &key) < 0)
		goto bad;
	if (key & 2) {
		if (get_varint(&br->p[2], br->end[2], &k) < 0 || k > br->n_mru)
			goto bad;
		if (k == 0) {
			if (get_varint(&br->p[2], br->end[2], &pid) < 0 ||
			    get_varint(&br->p[2], br->end[2], &tid) < 0 || pid > UINT32_MAX ||
			    tid > UINT32_MAX)
				goto bad;
			mru_take(br->mru, &br->n_mru, pid << 32 | tid);
		} else {
			uint64_t t = br->mru[k - 1];

			mru_take(br->mru, &br->n_mru, t);
			pid = t >> 32;
			tid = t & 0xffffffffu;
		}
		br->pid = (uint32_t)pid;
		br->tid = (uint32_t)tid;
		br->have_task = true;
	} else if (!br->have_task) {
		goto bad;
	}
	prev_period = br->period;
	if (key & 1) {
		if (get_varint(&br->p[3], br->end[3], &period) < 0)
			goto bad;
		br->period = period;
	}
	if (key >> 2 > UINT32_MAX)
		goto bad;
	br->time += (uint64_t)((int64_t)(zz >> 1) ^ -(int64_t)(zz & 1)) + prev_period;
	br->left--;
	*ret =
	    (struct compact_sample){ br->time, br->pid, br->tid, br->period, (uint32_t)(key >> 2) };
	return 1;
bad:
	br->left = 0;
	return -EINVAL;
}

int kbatch_read_init(struct kbatch_reader *br, const struct perf_event_header *h)
{
	struct rp_stacks_rec r;

	if (h->size < sizeof(r))
		return -EINVAL;
	memcpy(&r, h, sizeof(r));
	br->p = (const unsigned char *)h + sizeof(r);
	br->end = (const unsigned char *)h + h->size;
	br->left = r.n;
	br->id = r.first_id;
	return 0;
}

int kbatch_read_next(struct kbatch_reader *br, struct kbatch_stack *ret)
{
	uint64_t v, words;
	uint16_t misc;
	bool dup;

	if (!br->left)
		return 0;
	if (br->end - br->p < 3)
		goto bad;
	memcpy(&misc, br->p, 2);
	br->p += 2;
	if (get_varint(&br->p, br->end, &v) < 0)
		goto bad;
	dup = v & 1;
	words = v >> 1;
	if (!words || words > RP_STACK_MAX_WORDS || (uint64_t)(br->end - br->p) / 8 < words ||
	    (dup && words < 2) || br->id >= RP_STACK_MAX_ID)
		goto bad;
	ret->id = br->id++;
	ret->misc = misc;
	if (dup) {
		memcpy(&ret->ip, br->p + 8, 8);
		ret->chain = br->p;
		ret->nr_chain = (uint32_t)words;
	} else {
		memcpy(&ret->ip, br->p, 8);
		ret->chain = br->p + 8;
		ret->nr_chain = (uint32_t)words - 1;
	}
	br->p += words * 8;
	br->left--;
	return 1;
bad:
	br->left = 0;
	return -EINVAL;
}
