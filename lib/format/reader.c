/* reader.c — reads a recording: its frames, decoded, through the ordering window. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "format/decoder.h"
#include "format/format.h"
#include "format/frames.h"
#include "format/order.h"
#include "format/perfrec.h"
#include "format/reader.h"

struct reader {
	char *path;
	struct frames fr;
	struct decoder dec;
	struct order ord;
	struct rp_header_rec *header; /* copy, with cmdline */
	uint64_t sample_type;
	bool eof;
	uint32_t last_stack; /* of the record reader_next returned last */
	uint32_t last_event;
	struct rp_event_desc events[RP_MAX_EVENTS]; /* [0]: the header's; others from EVENT
						     * records (name "" when lost) */
	uint32_t n_events;			    /* 1 + the highest index described */
	void (*warn)(void *arg, const char *msg);
	void *warn_arg;
	struct reader_stats st;
	size_t frame_pos, frame_len; /* what of the frame in fr.raw is taken */
	bool told_parts;
	bool skip_samples;		       /* reader_skip_samples() */
	bool head_only;			       /* reader_head_only(): frames end cut */
	uint32_t x_stack;		       /* whose callchain xbuf holds */
	uint64_t xbuf[DECODER_SAMPLE_MAX / 8]; /* the sample handed out, with its callchain */
};

#define warnf(r, ...) util_warnf((r)->warn, (r)->warn_arg, __VA_ARGS__)

int reader_open(const char *path, struct reader **ret, char *why, size_t why_size)
{
	struct reader *r = calloc(1, sizeof(*r));
	int rc;

	if (!r || !(r->path = strdup(path))) {
		free(r);
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	r->fr.st = r->dec.st = r->ord.st = &r->st;
	r->x_stack = UINT32_MAX;
	rc = frames_open(&r->fr, path, why, why_size);
	if (rc < 0) {
		reader_free(r);
		return rc;
	}
	*ret = r;
	return 0;
}

struct reader *reader_free(struct reader *r)
{
	if (!r)
		return NULL;
	frames_done(&r->fr);
	decoder_done(&r->dec);
	order_done(&r->ord);
	free(r->header);
	free(r->path);
	free(r);
	return NULL;
}

void reader_set_warn(struct reader *r, void (*warn)(void *arg, const char *msg), void *arg)
{
	r->warn = r->fr.warn = r->dec.warn = warn;
	r->warn_arg = r->fr.warn_arg = r->dec.warn_arg = arg;
}

const char *reader_path(const struct reader *r)
{
	return r->path;
}

static void keep_header(struct reader *r, const struct perf_event_header *h)
{
	const struct rp_header_rec *hr = format_header(h);

	if (r->header || !hr)
		return;
	r->header = malloc(h->size + 1);
	if (!r->header)
		return;
	memcpy(r->header, h, h->size);
	((char *)r->header)[h->size] = '\0'; /* the cmdline is always terminated */
	r->sample_type = hr->sample_type;
	snprintf(r->events[0].name, sizeof(r->events[0].name), "%.63s", hr->event_name);
	r->events[0].freq = hr->flags & RP_HDR_FREQ ? hr->freq : 0;
	r->events[0].period = hr->flags & RP_HDR_FREQ ? 0 : hr->period;
	if (!r->n_events)
		r->n_events = 1;
}

/* An event description: its name, for reader_event_name(). */
static void keep_event(struct reader *r, const struct perf_event_header *h)
{
	struct rp_event_rec ev;

	if (format_event(h, &ev) < 0) {
		r->st.records_bad++;
		return;
	}
	util_strlcpy(r->events[ev.index].name, ev.event_name, sizeof(r->events[0].name));
	r->events[ev.index].freq = ev.freq;
	r->events[ev.index].period = ev.period;
	if (ev.index >= r->n_events)
		r->n_events = ev.index + 1;
}

/* Append records of the frame just decoded to the ordering window, from frame_pos on, until
 * the frame ends or the window is full. */
static void take_frame(struct reader *r)
{
	uint64_t seq = r->fr.desc.seq;
	size_t pos = r->frame_pos, len = r->frame_len;

	if (!order_reserve(&r->ord, len - pos < ORDER_BUDGET / 2 ? len - pos : ORDER_BUDGET / 2)) {
		warnf(r, "out of memory; frame %llu skipped", (unsigned long long)seq);
		r->frame_pos = len;
		return;
	}
	while (pos + sizeof(struct perf_event_header) <= len && !order_full(&r->ord)) {
		const struct perf_event_header *h = (const void *)(r->fr.raw + pos);
		void *p;

		if (r->head_only && h->size >= sizeof(*h) && h->size % 8 == 0 &&
		    h->size > len - pos) {
			pos = len; /* the head read ends inside this record */
			break;
		}
		if (h->size < sizeof(*h) || h->size % 8 || h->size > len - pos) {
			warnf(r,
			      "frame %llu holds a record of impossible size %u at byte %zu; the rest of the frame is skipped",
			      (unsigned long long)seq, h->size, pos);
			r->st.records_bad++;
			pos = len;
			break;
		}
		pos += h->size;
		if (r->skip_samples && (h->type == RP_REC_STACKS || h->type == RP_REC_STACKGEN ||
					h->type == RP_REC_SAMPLES || h->type == RP_REC_EVSAMPLES))
			continue;
		if (h->type == RP_REC_STACKS) {
			decoder_take_stacks(&r->dec, h, seq);
			continue;
		}
		if (h->type == RP_REC_STACKGEN) {
			decoder_take_gen(&r->dec, h);
			continue;
		}
		if (h->type == RP_REC_SAMPLES || h->type == RP_REC_EVSAMPLES) {
			decoder_take_samples(&r->dec, h, r->sample_type, seq, &r->ord);
			continue;
		}
		if (h->type == RP_REC_HEADER)
			keep_header(r, h);
		else if (h->type == RP_REC_EVENT)
			keep_event(r, h);
		p = order_reserve(&r->ord, h->size);
		if (p)
			memcpy(p, h, h->size);
		if (!p || order_commit(&r->ord, perfrec_time(h, r->sample_type), h->size,
				       READER_NO_STACK, 0) < 0) {
			warnf(r, "out of memory; the rest of frame %llu is skipped",
			      (unsigned long long)seq);
			pos = len;
			break;
		}
	}
	r->frame_pos = pos + sizeof(struct perf_event_header) <= len ? pos : len;
}

/*
 * More of the file into the ordering window, and the records that lets out: the next frame,
 * all that is older than what later frames can hold. A frame that fills the window is taken
 * in parts, each let out whole: records of a later part that are older than the last one let
 * out come late (counted in --stats), none is dropped.
 */
static void read_frame(struct reader *r)
{
	if (r->frame_pos >= r->frame_len) {
		size_t len = r->eof ? 0 : frames_next(&r->fr);

		r->frame_pos = 0;
		r->frame_len = len;
		if (!len) {
			r->eof = true;
			order_seal(&r->ord, UINT64_MAX);
			return;
		}
		if (!r->sample_type)
			r->sample_type = r->fr.desc.sample_type;
	}
	take_frame(r);
	if (r->frame_pos >= r->frame_len) {
		order_seal(&r->ord, r->fr.desc.t_safe);
		return;
	}
	if (!r->told_parts)
		warnf(r,
		      "frame %llu holds more records than the reader keeps in memory at once (%u MiB); "
		      "it is read in parts, which may hand some records out of time order",
		      (unsigned long long)r->fr.desc.seq, ORDER_BUDGET >> 20);
	r->told_parts = true;
	order_seal(&r->ord, UINT64_MAX);
}

void reader_skip_samples(struct reader *r)
{
	r->skip_samples = true;
}

void reader_head_only(struct reader *r)
{
	r->skip_samples = true;
	r->head_only = true;
	frames_set_head(&r->fr, READER_HEAD);
}

const struct perf_event_header *reader_next_packed(struct reader *r)
{
	for (;;) {
		const struct perf_event_header *h =
		    order_next(&r->ord, &r->last_stack, &r->last_event);

		if (h)
			return h;
		if (r->eof && order_drained(&r->ord))
			return NULL;
		order_carry(&r->ord);
		read_frame(r);
	}
}

bool reader_packed_chain(const struct reader *r, const uint64_t **ret_ips, uint64_t *ret_nr)
{
	return r->last_stack != READER_NO_STACK && (r->sample_type & PERF_SAMPLE_CALLCHAIN) &&
	       decoder_stack_chain(&r->dec, r->last_stack, ret_ips, ret_nr);
}

const struct perf_event_header *reader_next(struct reader *r)
{
	const struct perf_event_header *h = reader_next_packed(r);

	if (!h || r->last_stack == READER_NO_STACK)
		return h;
	return decoder_sample_expand(&r->dec, h, r->last_stack, r->sample_type, r->xbuf,
				     &r->x_stack);
}

const struct rp_header_rec *reader_header(struct reader *r)
{
	/* The header is the first record of frame 0; reading one frame finds it. */
	if (!r->header && !r->fr.have_desc && !r->eof)
		read_frame(r);
	return r->header;
}

uint64_t reader_sample_type(struct reader *r)
{
	reader_header(r);
	return r->sample_type;
}

const struct reader_stats *reader_stats(const struct reader *r)
{
	return &r->st;
}

int reader_time_bounds(const struct reader *r, uint64_t *ret_first, uint64_t *ret_last)
{
	return frames_time_bounds(&r->fr, ret_first, ret_last);
}

void reader_set_until(struct reader *r, uint64_t t)
{
	r->fr.until = t;
}

void reader_follow(struct reader *r, bool follow)
{
	frames_set_follow(&r->fr, follow);
}

void reader_more(struct reader *r)
{
	frames_grow(&r->fr);
	r->eof = false;
}

uint32_t reader_stack_id(const struct reader *r)
{
	return r->last_stack;
}

uint32_t reader_event(const struct reader *r)
{
	return r->last_event;
}

uint32_t reader_n_events(struct reader *r)
{
	reader_header(r);
	return r->n_events ? r->n_events : 1;
}

const struct rp_event_desc *reader_event_desc(struct reader *r, uint32_t i)
{
	if (i >= reader_n_events(r))
		return NULL;
	return r->events[i].name[0] ? &r->events[i] : NULL;
}

const char *reader_event_name(struct reader *r, uint32_t i)
{
	const struct rp_event_desc *d = reader_event_desc(r, i);

	return d ? d->name : NULL;
}
