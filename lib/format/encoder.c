/* encoder.c — format 2's encoder: stacks numbered once per file, samples packed per CPU. */
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "format/compact.h"
#include "format/encoder.h"
#include "format/format.h"
#include "format/ksyms.h"
#include "format/perfrec.h"
#include "format/stacktab.h"
#include "format/writer.h"

enum { KSYM_NONE, KSYM_BOUND, KSYM_NEEDED }; /* encoder.ksym_done, in rising order */

/* The stack table's bounds (per file): ids are reused from 0 when it fills. Pages are
 * touched only as it grows: 64 k stacks of up to 1 M words is 8 MiB + 1.5 MiB at most. */
#define STACKS_MAX (64u * 1024u)
#define STACK_WORDS_MAX (1024u * 1024u)

struct encoder {
	struct writer *w;
	struct stacktab *stacks;
	struct kbatch kb;	 /* stack definitions not written yet */
	struct sbatch **batches; /* per CPU slot and event (ci * n_events + event): samples
				  * being packed */
	size_t n_cpus, n_events;
	uint64_t frames_dropped; /* the writer's dropped_frames when last looked at */
	/* Kernel symbols written to the current file as new stacks need them. */
	const struct ksyms *ksyms;
	uint8_t *ksym_done;  /* per symbol: KSYM_* (written or pending) */
	uint32_t *ksym_pend; /* symbols to write before the next batch (| KSYMS_BOUND) */
	size_t n_pend;
	uint64_t pend_time; /* time of the sample that first needed a pending one */
	uint32_t gen;	    /* the stack numbering in force (rp_stackgen_rec) */
};

struct encoder *encoder_new(size_t n_cpus, size_t n_events, const struct ksyms *ksyms)
{
	struct encoder *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->ksyms = ksyms;
	e->n_cpus = n_cpus;
	e->n_events = n_events ? n_events : 1;
	e->stacks = stacktab_new(STACKS_MAX, STACK_WORDS_MAX);
	e->batches = calloc(n_cpus ? n_cpus * e->n_events : 1, sizeof(*e->batches));
	if (!e->stacks || !e->batches)
		return encoder_free(e);
	for (size_t i = 0; i < n_cpus * e->n_events; i++) {
		e->batches[i] = malloc(sizeof(struct sbatch)); /* untouched pages cost nothing */
		if (!e->batches[i])
			return encoder_free(e);
		e->batches[i]->n = 0;
		e->batches[i]->event = (uint32_t)(i % e->n_events);
	}
	if (ksyms->n) {
		e->ksym_done = calloc(ksyms->n, 1);
		/* A symbol can be queued twice: as a bound, then as needed. */
		e->ksym_pend = malloc(2 * ksyms->n * sizeof(*e->ksym_pend));
		if (!e->ksym_done || !e->ksym_pend)
			return encoder_free(e);
	}
	return e;
}

struct encoder *encoder_free(struct encoder *e)
{
	if (!e)
		return NULL;
	for (size_t i = 0; e->batches && i < e->n_cpus * e->n_events; i++)
		free(e->batches[i]);
	free(e->batches);
	stacktab_free(e->stacks);
	free(e->ksym_done);
	free(e->ksym_pend);
	free(e);
	return NULL;
}

/* Number stacks from 0 again (and, with symbols, write the kernel symbols again as they are
 * hit). Every batch that refers to the old numbers must have been written. The new numbering
 * is a generation, said here and at the start of every later frame: a reader that loses the
 * frame holding its first definitions must not read them with the old ones. */
static void forget(struct encoder *e, bool symbols)
{
	struct rp_stackgen_rec g;

	stacktab_reset(e->stacks);
	e->kb.n = 0;
	format_stackgen_put(&g, 0, ++e->gen); /* the writer stamps the time */
	writer_set_prologue(e->w, &g, sizeof(g));
	if (symbols && e->ksym_done) {
		memset(e->ksym_done, 0, e->ksyms->n);
		e->n_pend = 0;
	}
}

void encoder_restart(struct encoder *e)
{
	forget(e, true);
}

void encoder_begin(struct encoder *e, struct writer *w)
{
	e->w = w;
	e->frames_dropped = writer_stats(w)->dropped_frames;
	forget(e, true);
}

/* Queue symbol i and every alias at its address, once per file in each role: as a symbol
 * that a stack needs (KSYM_NEEDED), or only as the bound of the one before it (KSYM_BOUND,
 * written marked so that the reader names nothing by it). */
static void need_ksym_run(struct encoder *e, size_t i, uint8_t role)
{
	const uint64_t *addrs = e->ksyms->addrs;
	uint64_t a = addrs[i];

	while (i > 0 && addrs[i - 1] == a)
		i--;
	for (; i < e->ksyms->n && addrs[i] == a; i++) {
		if (e->ksym_done[i] >= role)
			continue;
		e->ksym_done[i] = role;
		e->ksym_pend[e->n_pend++] = (uint32_t)i | (role == KSYM_BOUND ? KSYMS_BOUND : 0);
	}
}

/* A new stack's kernel addresses: the symbols containing them, and the ones after those
 * (which bound them for the reader), are written before the batch that uses it. Each is
 * looked up where the report will look it up (perfrec_chain: a return address minus one). */
/* The symbol containing kernel address V, and the one after it as its bound. Returns its index,
 * or -1 when none contains V. */
static int64_t need_ksym(struct encoder *e, const struct perfrec_sample *s, uint64_t v)
{
	const uint64_t *addrs = e->ksyms->addrs;
	int64_t i = ksyms_find(e->ksyms, v);

	if (i < 0 || e->ksym_done[i] == KSYM_NEEDED)
		return i;
	if (!e->n_pend)
		e->pend_time = s->id.time;
	need_ksym_run(e, (size_t)i, KSYM_NEEDED);
	for (size_t j = (size_t)i + 1; j < e->ksyms->n; j++)
		if (addrs[j] != addrs[i]) {
			need_ksym_run(e, j, KSYM_BOUND);
			break;
		}
	return i;
}

/* Is symbol I a function's padding (__pfx_NAME, before NAME)? */
static bool ksym_padding(const struct ksyms *k, int64_t i)
{
	size_t len;
	const unsigned char *entry = i < 0 ? NULL : ksyms_entry(k, (size_t)i, &len);

	/* u64 address, type letter, then the name (format.h) */
	return entry && len > 9 + 6 && memcmp(entry + 9, "__pfx_", 6) == 0;
}

static void need_ksyms(struct encoder *e, const struct perfrec_sample *s)
{
	struct perfrec_chain c;
	uint64_t v = s->ip;
	bool ret = false, more = true;

	perfrec_chain_init(&c, s);
	for (; more; more = perfrec_chain_next(&c, &v, &ret)) {
		if (v < RP_KERNEL_FLOOR + 1 || v >= (uint64_t)PERF_CONTEXT_MAX)
			continue; /* not the kernel half of the address space */
		/* A return address just past a function's padding is an instruction interrupted at
		 * the function's start (ksymtab_find_frame()): the report names the function,
		 * after finding the padding at V - 1, so both are written. */
		if (ret && ksym_padding(e->ksyms, need_ksym(e, s, v - 1)))
			need_ksym(e, s, v);
		else if (!ret)
			need_ksym(e, s, v);
	}
}

static void flush_stacks(struct encoder *e)
{
	const struct perf_event_header *h = kbatch_finish(&e->kb);

	if (h)
		writer_add(e->w, h, h->size);
}

void encoder_flush(struct encoder *e, size_t ci)
{
	const struct perf_event_header *h;

	flush_stacks(e);
	if (e->n_pend) {
		ksyms_write_some(e->ksyms, e->w, e->pend_time, e->ksym_pend, e->n_pend);
		e->n_pend = 0;
	}
	for (size_t ev = 0; ev < e->n_events; ev++) {
		h = sbatch_finish(e->batches[ci * e->n_events + ev]);
		if (h)
			writer_add(e->w, h, h->size);
	}
}

/* Every slot's batches: before the numbering they refer to is given up. */
static void flush_all(struct encoder *e)
{
	for (size_t ci = 0; ci < e->n_cpus; ci++)
		encoder_flush(e, ci);
}

/* The id of s's stack, defined (and its kernel symbols queued) when new; -1 when too long. */
static int64_t stack_id(struct encoder *e, size_t ci, const struct perfrec_sample *s)
{
	bool added;
	int64_t id = stacktab_intern(e->stacks, s->misc, s->ip, s->ips, s->nr, &added);

	if (id < 0) {
		/* Full: samples already packed (on every CPU) refer to the old ids, write them
		 * out first. */
		flush_all(e);
		forget(e, false);
		id = stacktab_intern(e->stacks, s->misc, s->ip, s->ips, s->nr, &added);
		if (id < 0)
			return -1; /* longer than a record can hold */
	}
	if (added) {
		if (!kbatch_add(&e->kb, (uint32_t)id, s->misc, s->ip, s->ips, s->nr)) {
			flush_stacks(e);
			kbatch_add(&e->kb, (uint32_t)id, s->misc, s->ip, s->ips, s->nr);
		}
		if (e->ksym_done)
			need_ksyms(e, s);
	}
	return id;
}

bool encoder_add(struct encoder *e, size_t ci, size_t event, const struct perfrec_sample *s)
{
	struct sbatch *b = e->batches[ci * e->n_events + event];
	int64_t id;

	/* A frame that could not be written may have held stack definitions. */
	if (writer_stats(e->w)->dropped_frames != e->frames_dropped) {
		e->frames_dropped = writer_stats(e->w)->dropped_frames;
		flush_all(e);
		forget(e, true); /* the symbols may have been in it too */
	}
	id = stack_id(e, ci, s);
	if (id < 0)
		return false;
	if (!sbatch_add(b, s->id.cpu, s->id.time, s->id.pid, s->id.tid, s->period, (uint32_t)id)) {
		encoder_flush(e, ci);
		sbatch_add(b, s->id.cpu, s->id.time, s->id.pid, s->id.tid, s->period, (uint32_t)id);
	}
	return true;
}
