/* session.c — a report run: owns its models and tables, runs replay, symbolization and rows. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/grow.h"
#include "base/intern.h"
#include "base/util.h"
#include "format/format.h"
#include "format/perfrec.h"
#include "format/reader.h"
#include "profile/aggregate.h"
#include "profile/dsotab.h"
#include "profile/focus.h"
#include "profile/ksymtab.h"
#include "profile/offcpu.h"
#include "profile/perfmap.h"
#include "profile/procmodel.h"
#include "profile/replay.h"
#include "profile/session.h"
#include "profile/symbolizer.h"
#include "profile/symstacks.h"

struct session {
	struct session_opts o;
	struct symbolizer *symz;
	struct ksymtab *ksyms;
	struct procmodel *pm;
	struct dsotab *dsos;
	struct aggregate *agg;
	struct symstacks *ss;
	struct replay *rp;
	struct rp_header_rec *header;
	/* With --since/--until: the first file with samples in the window, and how many had
	 * some; the header above is that file's. */
	char *covered;
	size_t n_covered;
	struct session_totals t;
	struct stream *stream; /* session_stream(): NULL when aggregating */
	struct rp_event_desc events[RP_MAX_EVENTS];
	size_t n_events;
};

#define HELD_MAX_NR 256 /* callchain words kept of a switch-out sample waiting for its time */

/* Streaming: each location symbolized once, when first met, with the offsets in its symbols. */
struct stream {
	void (*fn)(void *arg, const struct session_sample *smp);
	void *arg;
	struct stream_loc {
		uint32_t stack; /* the location's symbol stack (several with inline frames) */
		uint32_t off;	/* its offsets: offs[off .. off + the stack's length) */
	} * locs;
	size_t n_locs, cap_locs;
	uint64_t *offs;
	size_t n_offs, cap_offs;
	struct session_frame *frames; /* the sample being handed out */
	size_t cap_frames;
	uint64_t addrs[1024]; /* its callchain's addresses, and whether each is a return address */
	bool ret[1024];
	/* Off-CPU weights: each thread's last switch-out sample, until its interval is charged
	 * (by tid: pairtab id -> held[id]). */
	struct pairtab *held_tids;
	struct held {
		struct perfrec_sample smp; /* smp.ips points to ips */
		uint64_t ips[HELD_MAX_NR];
		uint32_t stack, comm;
		bool valid;
	} * held;
	size_t cap_held;
};

/* Add r's events that events[] does not have yet. */
static void merge_events(struct reader *r, struct rp_event_desc *events, size_t max, size_t *n)
{
	for (uint32_t i = 0; i < reader_n_events(r); i++) {
		const struct rp_event_desc *d = reader_event_desc(r, i);
		bool seen = false;

		if (!d)
			continue;
		for (size_t k = 0; k < *n && !seen; k++)
			seen = strcmp(events[k].name, d->name) == 0;
		if (seen || *n >= max)
			continue;
		util_strlcpy(events[*n].name, d->name, sizeof(events[*n].name));
		events[*n].freq = d->freq;
		events[*n].period = d->period;
		(*n)++;
	}
}

int session_list_events(const char *const *paths, size_t n_paths, struct rp_event_desc *ret,
			size_t max, size_t *ret_n)
{
	size_t n = 0;

	for (size_t i = 0; i < n_paths; i++) {
		struct reader *r;
		char why[256];
		int rc = reader_open(paths[i], &r, why, sizeof(why));

		if (rc == -ENOMEM)
			return rc;
		if (rc < 0)
			continue;
		reader_head_only(r); /* the descriptions alone are wanted */
		merge_events(r, ret, max, &n);
		reader_free(r);
	}
	*ret_n = n;
	return 0;
}

const struct rp_event_desc *session_events(const struct session *s, size_t *ret_n)
{
	*ret_n = s->n_events;
	return s->events;
}

const struct rp_event_desc *session_selected_event(const struct session *s)
{
	if (!s->o.filter.event)
		return NULL;
	for (size_t i = 0; i < s->n_events; i++)
		if (strcmp(s->events[i].name, s->o.filter.event) == 0)
			return &s->events[i];
	return NULL;
}

struct session *session_new(const struct session_opts *o)
{
	struct session *s = calloc(1, sizeof(*s));
	struct symbolizer_opts so;

	if (!s)
		return NULL;
	s->o = *o;
	s->t.time_weighted = o->weight != SESSION_CPU;
	memset(&so, 0, sizeof(so));
	so.symfs = o->symfs;
	so.inline_frames = o->inline_frames;
	so.lines = o->lines || o->srcline;
	so.fn_lines = o->lines;
	so.no_demangle = o->no_demangle;
	so.debuginfod = o->debuginfod;
	so.debuginfod_timeout = o->debuginfod_timeout;
	so.no_debug_cache = o->no_debug_cache;
	so.warn = o->warn;
	so.warn_arg = o->warn_arg;
	s->symz = symbolizer_new(&so);
	s->ksyms = ksymtab_new();
	s->pm = procmodel_new();
	s->agg = aggregate_new();
	if (!s->symz || !s->ksyms || !s->pm || !s->agg)
		return session_free(s);
	s->dsos = dsotab_new(s->symz, s->o.symfs);
	if (!s->dsos)
		return session_free(s);
	s->ss = symstacks_new(s->dsos, s->symz, s->ksyms);
	if (s->ss)
		symstacks_srcline(s->ss, o->srcline, o->full_source_path);
	s->rp = replay_new(&s->o, s->pm, s->dsos, s->ksyms, s->agg, &s->t);
	if (!s->ss || !s->rp)
		return session_free(s);
	return s;
}

struct session *session_free(struct session *s)
{
	if (!s)
		return NULL;
	replay_free(s->rp);
	if (s->stream) {
		free(s->stream->locs);
		free(s->stream->offs);
		free(s->stream->frames);
		pairtab_free(s->stream->held_tids);
		free(s->stream->held);
		free(s->stream);
	}
	free(s->t.unwind_dso);
	free(s->t.unwind_noinfo);
	free(s->t.unwind_noinfo_at);
	symstacks_free(s->ss);
	aggregate_free(s->agg);
	dsotab_free(s->dsos);
	procmodel_free(s->pm);
	ksymtab_free(s->ksyms);
	symbolizer_free(s->symz);
	free(s->header);
	free(s->covered);
	free(s);
	return NULL;
}

int session_file_bounds(const char *path, int64_t *ret_start, int64_t *ret_end, char *why,
			size_t why_size)
{
	struct reader *r;
	const struct rp_header_rec *h;
	uint64_t first, last;
	int rc = reader_open(path, &r, why, why_size);

	if (rc < 0)
		return rc;
	reader_head_only(r); /* the header alone is wanted */
	h = reader_header(r);
	if (!h) {
		snprintf(why, why_size, "its header is lost, so its wall-clock time is unknown");
		rc = -ENODATA;
	} else if (reader_time_bounds(r, &first, &last) < 0) {
		snprintf(why, why_size, "no intact frame");
		rc = -ENODATA;
	} else {
		*ret_start = util_wall_ns(first, h->realtime_offset);
		*ret_end = util_wall_ns(last, h->realtime_offset);
	}
	reader_free(r);
	return rc;
}

/* ---- streaming (ringprof script) ---- */

/* A recording's side tables, before its samples (see replay_preload()). */
static void preload(struct session *s, const char *path)
{
	struct reader *pre;
	char why[256];

	if (reader_open(path, &pre, why, sizeof(why)) < 0)
		return; /* the replay says why */
	reader_skip_samples(pre);
	replay_preload(s->rp, pre);
	reader_free(pre);
}

/* The offsets of location DSO/ADDR in its symbols, innermost first, into OUT (at most MAX):
 * how many; symstacks names the same symbols. */
static int loc_offsets(struct session *s, uint32_t dso, uint64_t addr, uint64_t *out, int max)
{
	struct sym_frame fr[SYM_INLINE_MAX];
	const struct perfmap *pmap;
	int k;

	out[0] = 0;
	switch (dsotab_kind(s->dsos, dso)) {
	case DSOTAB_KERNEL:
		ksymtab_find_frame(s->ksyms, addr, NULL, NULL, &out[0]);
		return 1;
	case DSOTAB_FILE:
		k = symbolizer_lookup(s->symz, dsotab_sym(s->dsos, dso), addr, fr,
				      max < SYM_INLINE_MAX ? max : SYM_INLINE_MAX);
		for (int i = 0; i < k; i++)
			out[i] = fr[i].offset;
		return k > 0 ? k : 1;
	case DSOTAB_JIT:
		if (dsotab_perfmap(s->dsos, dso, &pmap) == 0 && pmap)
			perfmap_find(pmap, addr, NULL, &out[0]);
		return 1;
	default:
		return 1;
	}
}

/* Symbolize the locations met since the last call, in id order. 0 or -ENOMEM. */
static int stream_locs(struct session *s)
{
	struct stream *st = s->stream;
	uint32_t n_locs = aggregate_n_locs(s->agg);

	ksymtab_finish(s->ksyms); /* nothing to do unless symbols came in */
	for (uint32_t l = (uint32_t)st->n_locs; l < n_locs; l++) {
		uint32_t dso, n, unknown;
		uint64_t addr, tmp[SYM_INLINE_MAX];
		int64_t id;
		int k;

		aggregate_loc(s->agg, l, &dso, &addr);
		if (symstacks_add_loc(s->ss, dso, addr, true) < 0)
			return -ENOMEM;
		id = symstacks_add_stack(s->ss, &l, 1, &n, &unknown);
		k = loc_offsets(s, dso, addr, tmp, SYM_INLINE_MAX);
		if (id < 0 || GROW(st->locs, st->cap_locs, st->n_locs + 1) < 0 ||
		    GROW(st->offs, st->cap_offs, st->n_offs + n) < 0)
			return -ENOMEM;
		for (uint32_t i = 0; i < n; i++)
			st->offs[st->n_offs + i] = (int)i < k ? tmp[i] : 0;
		st->locs[st->n_locs++] = (struct stream_loc){ (uint32_t)id, (uint32_t)st->n_offs };
		st->n_offs += n;
	}
	return 0;
}

/* The addresses the replay located, in its order (perfrec_chain, as replay.c's locate_chain),
 * else the sampled ip, and which are return addresses (looked up at address - 1). How many. */
static uint32_t stream_addrs(struct stream *st, const struct perfrec_sample *smp, uint32_t max)
{
	struct perfrec_chain c;
	uint32_t n = 0;

	perfrec_chain_init(&c, smp);
	while (n < max && perfrec_chain_next(&c, &st->addrs[n], &st->ret[n]))
		n++;
	if (n == 0 && max) {
		st->ret[0] = false;
		st->addrs[n++] = smp->ip;
	}
	return n;
}

/* With --dso, is the object one of those named (as aggregate_keep_dsos)? */
const uint32_t *session_nolines(const struct session *s, size_t *ret_n)
{
	return symstacks_nolines(s->ss, ret_n);
}

struct focus *session_focus(const struct session *s)
{
	return focus_active(s->o.filter.focus) ? s->o.filter.focus : NULL;
}

bool session_dso_kept(const struct session *s, uint32_t dso)
{
	const struct session_filter *f = &s->o.filter;

	for (size_t k = 0; k < f->n_dsos; k++)
		if (dsotab_matches(s->dsos, dso, f->dsos[k]))
			return true;
	return !f->n_dsos;
}

/* The frames of a sample's location stack LOCS (N long) into st->frames: how many, or
 * -ENOMEM. */
static int64_t stream_frames(struct session *s, const struct perfrec_sample *smp,
			     const uint32_t *locs, uint32_t n)
{
	struct stream *st = s->stream;
	uint32_t n_addrs = stream_addrs(st, smp, sizeof(st->addrs) / sizeof(st->addrs[0]));
	size_t m = 0;

	for (uint32_t k = 0; k < n; k++) {
		const struct stream_loc *l = &st->locs[locs[k]];
		uint32_t len;
		const uint32_t *syms = symstacks_get(s->ss, l->stack, &len);

		if (GROW(st->frames, st->cap_frames, m + len) < 0)
			return -ENOMEM;
		for (uint32_t j = 0; j < len; j++) {
			struct session_frame *fr = &st->frames[m++];

			fr->addr = k < n_addrs ? st->addrs[k] : 0;
			fr->sym = syms[j];
			fr->offset = st->offs[l->off + j];
			/* Looked up at the return address - 1; shown at the return address. */
			if (k < n_addrs && st->ret[k] && session_sym(s, syms[j])->name)
				fr->offset++;
		}
	}
	return (int64_t)m;
}

/* With --dso, is the sample of frames F (M long) kept? An off-CPU one also by its first
 * user-space frame (where the thread entered the kernel), as aggregate_keep_dsos. */
static bool stream_kept(struct session *s, const struct session_frame *f, int64_t m, bool offcpu)
{
	if (m <= 0)
		return false;
	if (s->o.filter.focus &&
	    !focus_keep(s->o.filter.focus, session_sym_text, s, &f[0].sym, (uint32_t)m, sizeof(*f)))
		return false;
	if (session_dso_kept(s, session_sym(s, f[0].sym)->dso))
		return true;
	for (int64_t k = 0; offcpu && k < m; k++) {
		uint32_t dso = session_sym(s, f[k].sym)->dso;

		if (dsotab_kind(s->dsos, dso) != DSOTAB_KERNEL)
			return session_dso_kept(s, dso);
	}
	return false;
}

/* Off-CPU weights: a switch-out sample waits for its thread's switch-in (its time). */
static void hold_switch_out(struct session *s, const struct perfrec_sample *smp, uint32_t stack,
			    uint32_t comm)
{
	struct stream *st = s->stream;
	size_t old = st->cap_held;
	struct held *h;
	int64_t id;

	if (!st->held_tids && !(st->held_tids = pairtab_new()))
		goto nomem;
	if (GROW(st->held, st->cap_held, (size_t)pairtab_count(st->held_tids) + 1) < 0)
		goto nomem;
	memset(st->held + old, 0, (st->cap_held - old) * sizeof(*st->held));
	id = pairtab_intern(st->held_tids, smp->id.tid, 0, NULL);
	if (id < 0)
		goto nomem;
	h = &st->held[id];
	h->smp = *smp;
	h->smp.nr = smp->nr < HELD_MAX_NR ? smp->nr : HELD_MAX_NR;
	if (smp->ips)
		memcpy(h->ips, smp->ips, h->smp.nr * sizeof(*h->ips));
	h->smp.ips = smp->ips ? h->ips : NULL; /* only "has a chain": set again when used */
	h->stack = stack;
	h->comm = comm;
	h->valid = true;
	return;
nomem:
	s->t.samples_nomem++;
}

/* Off-CPU weights: an interval charged; its switch-out sample goes out with its time. A
 * charge of time without a stack (at the end of a recording) has no sample to go with. */
static void on_stream_charge(void *arg, const struct offcpu_charge *c)
{
	struct session *s = arg;
	struct stream *st = s->stream;
	int64_t id = st->held_tids ? pairtab_find(st->held_tids, c->tid, 0) : -1;
	struct held *h = id < 0 ? NULL : &st->held[id];
	const uint32_t *locs;
	uint32_t n;
	int64_t m;

	if (!h || !h->valid || h->stack != c->stack)
		return;
	h->valid = false;
	/* The held array may have moved since (GROW): the chain is the entry's own copy. */
	if (h->smp.ips)
		h->smp.ips = h->ips;
	locs = aggregate_stack(s->agg, h->stack, &n);
	m = stream_locs(s) < 0 ? -ENOMEM : stream_frames(s, &h->smp, locs, n);
	if (!stream_kept(s, st->frames, m, true)) {
		s->t.samples_nomem += m < 0;
		return;
	}
	st->fn(st->arg, &(struct session_sample){
			    .time = h->smp.id.time,
			    .pid = (int32_t)h->smp.id.pid,
			    .tid = (int32_t)h->smp.id.tid,
			    .cpu = h->smp.id.cpu,
			    .period = h->smp.period ? h->smp.period : 1,
			    .comm = session_comm(s, h->comm),
			    .event = "sched:sched_switch",
			    .frames = st->frames,
			    .n_frames = (uint32_t)m,
			    .offcpu = true,
			    .preempted = c->preempted,
			    .offcpu_ns = c->ns,
			});
}

static void on_stream_sample(void *arg, const struct perfrec_sample *smp, uint32_t stack,
			     uint32_t comm, uint32_t unit)
{
	struct session *s = arg;
	struct stream *st = s->stream;
	uint64_t period = smp->period ? smp->period : 1;
	const uint32_t *locs;
	uint32_t n;
	int64_t m;

	if (s->o.weight != SESSION_CPU && replay_event_name(s->rp) &&
	    strcmp(replay_event_name(s->rp), "sched:sched_switch") == 0) {
		hold_switch_out(s, smp, stack, comm);
		return;
	}
	locs = stack == REPLAY_LOCS ? replay_sample_locs(s->rp, &n)
				    : aggregate_stack(s->agg, stack, &n);
	m = stream_locs(s) < 0 ? -ENOMEM : stream_frames(s, smp, locs, n);
	if (!stream_kept(s, st->frames, m, false)) {
		/* Counted by the replay; not handed out after all. */
		s->t.samples--;
		s->t.period -= period;
		s->t.samples_nomem += m < 0;
		return;
	}
	st->fn(st->arg, &(struct session_sample){
			    .time = smp->id.time,
			    .pid = (int32_t)smp->id.pid,
			    .tid = (int32_t)smp->id.tid,
			    .cpu = smp->id.cpu,
			    .period = period,
			    .comm = session_comm(s, comm),
			    .unit = session_unit(s, unit),
			    .event = replay_event_name(s->rp) ? replay_event_name(s->rp) : "",
			    .event_width = (int)replay_event_width(s->rp),
			    .frames = st->frames,
			    .n_frames = (uint32_t)m,
			});
}

int session_stream(struct session *s, void (*fn)(void *arg, const struct session_sample *smp),
		   void *arg)
{
	if (!s->stream)
		s->stream = calloc(1, sizeof(*s->stream));
	if (!s->stream)
		return -ENOMEM;
	s->stream->fn = fn;
	s->stream->arg = arg;
	replay_set_sample_hook(s->rp, on_stream_sample, s);
	if (s->o.weight != SESSION_CPU)
		replay_set_offcpu_hook(s->rp, on_stream_charge, s);
	return 0;
}

/* A NUL-terminated copy of a file's header (its command line is a string to the end). */
static struct rp_header_rec *copy_header(const struct rp_header_rec *hdr)
{
	struct rp_header_rec *h = malloc(hdr->hdr.size + 1);

	if (h) {
		memcpy(h, hdr, hdr->hdr.size);
		((char *)h)[hdr->hdr.size] = '\0';
	}
	return h;
}

/* PATH had samples in the --since/--until window: the report covers it, and the first
 * such file's header is the one the report shows (not that of a file the window skips). */
static void add_covered(struct session *s, const char *path, const struct rp_header_rec *hdr)
{
	struct rp_header_rec *h;

	s->n_covered++;
	if (s->covered || !(s->covered = strdup(path)))
		return;
	if (hdr && (h = copy_header(hdr))) {
		free(s->header);
		s->header = h;
	}
}

/* The symbol tables ringprofd keeps beside its recordings (DIR/symbols, DIR being the
 * recording's), for binaries the recordings name by build-id only. */
static void add_symbols_dir(struct session *s, const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	struct stat st;
	int n = slash ? snprintf(dir, sizeof(dir), "%.*s/symbols", (int)(slash - path), path)
		      : snprintf(dir, sizeof(dir), "symbols");

	if (n > 0 && (size_t)n < sizeof(dir) && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		symbolizer_add_symbols_dir(s->symz, dir);
}

/* The header and events of R into S, once: 0 or -ENOMEM (said in why). */
static int take_header(struct session *s, struct reader *r, char *why, size_t why_size)
{
	const struct rp_header_rec *hdr = reader_header(r);

	if (hdr && !s->header && !(s->header = copy_header(hdr))) {
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	merge_events(r, s->events, RP_MAX_EVENTS, &s->n_events);
	return 0;
}

int session_add_file(struct session *s, const char *path, char *why, size_t why_size)
{
	const struct rp_header_rec *hdr;
	struct reader *r;
	uint64_t in_window = s->t.samples_window;
	int rc;

	rc = reader_open(path, &r, why, why_size);
	if (rc < 0)
		return rc;
	add_symbols_dir(s, path);
	reader_set_warn(r, s->o.warn, s->o.warn_arg);
	hdr = reader_header(r);
	if (take_header(s, r, why, why_size) < 0) {
		reader_free(r);
		return -ENOMEM;
	}
	if (s->stream)
		preload(s, path);
	rc = replay_file(s->rp, r, why, why_size);
	if ((s->o.filter.have_since || s->o.filter.have_until) && s->t.samples_window > in_window)
		add_covered(s, path, hdr);
	reader_free(r);
	return rc;
}

struct session_follow {
	struct reader *r, *pre; /* the records; with a stream, the side tables ahead of them */
	const struct rp_header_rec *hdr;
	uint64_t in_window;
	char *path;
};

static struct session_follow *follow_free(struct session_follow *fw)
{
	reader_free(fw->r);
	reader_free(fw->pre);
	free(fw->path);
	free(fw);
	return NULL;
}

int session_follow_open(struct session *s, const char *path, struct session_follow **ret, char *why,
			size_t why_size)
{
	struct session_follow *fw = calloc(1, sizeof(*fw));
	int rc;

	if (!fw || !(fw->path = strdup(path))) {
		free(fw);
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	fw->in_window = s->t.samples_window;
	rc = reader_open(path, &fw->r, why, why_size);
	if (rc < 0) {
		follow_free(fw);
		return rc;
	}
	reader_follow(fw->r, true);
	add_symbols_dir(s, path);
	reader_set_warn(fw->r, s->o.warn, s->o.warn_arg);
	fw->hdr = reader_header(fw->r);
	/* Frame 0, with the header, not all written yet: nothing to read until it is. */
	if (!reader_stats(fw->r)->frames) {
		snprintf(why, why_size, "no complete frame yet");
		follow_free(fw);
		return -EAGAIN;
	}
	rc = take_header(s, fw->r, why, why_size);
	/* A stream names samples as they come: the side tables first, as preload() does. */
	if (rc == 0 && s->stream && reader_open(path, &fw->pre, why, why_size) == 0) {
		reader_follow(fw->pre, true);
		reader_skip_samples(fw->pre);
		replay_preload(s->rp, fw->pre);
	}
	if (rc == 0)
		rc = replay_begin(s->rp, fw->r, why, why_size);
	if (rc != 0) {
		follow_free(fw);
		return rc;
	}
	replay_more(s->rp, fw->r);
	*ret = fw;
	return 0;
}

void session_follow_more(struct session *s, struct session_follow *fw)
{
	if (fw->pre) {
		reader_more(fw->pre);
		replay_preload(s->rp, fw->pre);
	}
	reader_more(fw->r);
	replay_more(s->rp, fw->r);
}

int session_follow_close(struct session *s, struct session_follow *fw, char *why, size_t why_size)
{
	int rc;

	if (fw->pre) {
		reader_follow(fw->pre, false);
		reader_more(fw->pre);
		replay_preload(s->rp, fw->pre);
	}
	reader_follow(fw->r, false);
	reader_more(fw->r);
	replay_more(s->rp, fw->r);
	rc = replay_end(s->rp, fw->r, why, why_size);
	if ((s->o.filter.have_since || s->o.filter.have_until) &&
	    s->t.samples_window > fw->in_window)
		add_covered(s, fw->path, fw->hdr);
	follow_free(fw);
	return rc;
}

/* Samples with a frame in no known mapping: with lost records, the header says why. */
static uint64_t count_unmapped(const struct session *s)
{
	size_t n_rows;
	const struct session_row *rows = aggregate_rows(s->agg, &n_rows);
	uint64_t n = 0;

	for (size_t i = 0; i < n_rows; i++) {
		uint32_t len;
		const uint32_t *st = symstacks_get(s->ss, rows[i].stack, &len);

		for (uint32_t k = 0; k < len; k++) {
			if (dsotab_unmapped(s->dsos, symstacks_sym(s->ss, st[k])->dso)) {
				n += rows[i].count;
				break;
			}
		}
	}
	return n;
}

static bool focus_row_kept(void *arg, const uint32_t *syms, uint32_t n)
{
	struct session *s = arg;

	return focus_keep(s->o.filter.focus, session_sym_text, s, syms, n, sizeof(*syms));
}

/* With srcline_leaves: which locations are some count's leaf, a byte per location id (NULL
 * when every location wants its line, or out of memory: then all get it). */
static uint8_t *leaf_locs(const struct session *s, uint32_t n_locs)
{
	size_t n = aggregate_n_counts(s->agg);
	uint8_t *leaf;

	if (!s->o.srcline || !s->o.srcline_leaves || !(leaf = calloc(n_locs ? n_locs : 1, 1)))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		struct aggregate_count c;
		const uint32_t *stack;
		uint32_t len;

		aggregate_count(s->agg, i, &c);
		stack = aggregate_stack(s->agg, c.stack, &len);
		if (len && stack[0] < n_locs)
			leaf[stack[0]] = 1;
	}
	return leaf;
}

int session_finish(struct session *s)
{
	uint32_t n_locs = aggregate_n_locs(s->agg);
	uint8_t *leaf = leaf_locs(s, n_locs);
	int rc;

	ksymtab_finish(s->ksyms);
	/* Each unique location is symbolized once, in id order. */
	for (uint32_t l = 0; l < n_locs; l++) {
		uint32_t dso;
		uint64_t addr;

		aggregate_loc(s->agg, l, &dso, &addr);
		if (symstacks_add_loc(s->ss, dso, addr, !leaf || leaf[l]) < 0) {
			free(leaf);
			return -ENOMEM;
		}
	}
	free(leaf);
	rc = aggregate_build_rows(s->agg, s->ss, &s->t);
	if (rc < 0)
		return rc;
	/* --dso keeps samples whose own (leaf) frame is in one of the objects. */
	if (s->o.filter.n_dsos)
		aggregate_keep_dsos(s->agg, s->ss, s->dsos, s->o.filter.dsos, s->o.filter.n_dsos,
				    &s->t);
	if (focus_active(s->o.filter.focus)) {
		s->t.samples_focus_in = s->t.samples;
		s->t.period_focus_in = s->t.period;
		aggregate_keep_rows(s->agg, s->ss, focus_row_kept, s, &s->t);
	}
	s->t.samples_unmapped = count_unmapped(s);
	return 0;
}

/* ---- accessors ---- */

const struct rp_header_rec *session_header(const struct session *s)
{
	return s->header;
}

const char *session_covered(const struct session *s, size_t *ret_n)
{
	*ret_n = s->n_covered;
	if (!s->o.filter.have_since && !s->o.filter.have_until)
		return NULL;
	return s->covered ? s->covered : "";
}

bool session_filters_samples(const struct session *s)
{
	const struct session_filter *f = &s->o.filter;

	return f->n_pids || f->n_tids || f->n_comms || f->n_units || f->n_dsos || f->n_cpus ||
	       f->n_addrs || focus_active(f->focus);
}

const struct session_totals *session_totals(const struct session *s)
{
	return &s->t;
}

enum session_weight session_weight(const struct session *s)
{
	return s->o.weight;
}

const struct session_row *session_rows(const struct session *s, size_t *ret_n)
{
	return aggregate_rows(s->agg, ret_n);
}

const uint32_t *session_stack(const struct session *s, uint32_t id, uint32_t *ret_n)
{
	return symstacks_get(s->ss, id, ret_n);
}

const struct session_sym *session_sym(const struct session *s, uint32_t id)
{
	return symstacks_sym(s->ss, id);
}

const char *session_sym_text(const void *s, uint32_t id)
{
	const struct session_sym *ss = session_sym(s, id);

	return ss->name ? ss->name : ss->label ? ss->label : "[unknown]";
}

const char *session_dso_name(const struct session *s, uint32_t dso)
{
	return dsotab_name(s->dsos, dso);
}

const char *session_dso_path(const struct session *s, uint32_t dso)
{
	const struct sym_dso *d =
	    dsotab_kind(s->dsos, dso) == DSOTAB_FILE ? dsotab_sym(s->dsos, dso) : NULL;

	return d ? sym_dso_path(d) : dsotab_name(s->dsos, dso);
}

const char *session_comm(const struct session *s, uint32_t comm)
{
	return strtab_get(procmodel_comms(s->pm), comm);
}

const char *session_unit(const struct session *s, uint32_t unit)
{
	return strtab_get(procmodel_units(s->pm), unit);
}

void session_parts(const struct session *s, struct session_parts *ret)
{
	*ret = (struct session_parts){ s->agg, s->ss, s->dsos, s->symz };
}
