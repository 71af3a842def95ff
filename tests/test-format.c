/* test-format.c — unit test of lib/writer.c and lib/reader.c: writer→reader round trips, time
 * order across CPUs, truncated, damaged and foreign files, and write errors. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* qsort_r; config.h defines it in the build */
#endif
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "base/crc32c.h"
#include "format/format.h"
#include "format/reader.h"
#include "format/perfrec.h"
#include "format/writer.h"
#include "format/zframe.h"

#define SAMPLE_TYPE                                                                                \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |                   \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

/*
 * The synthetic recorder. Time is fake and starts at T_START. Drain pass k starts at
 * T_START + k * PASS_NS and drains CPU c at DRAIN_NS * c / n_cpus into the pass. A record
 * reaches its CPU's ring ("arrives") up to MAX_LAG_NS after its timestamp, so a pass finds
 * records older than some that other CPUs gave to the previous pass. After each pass the
 * watermark is set to pass start - MARGIN_NS as the recorder does; MAX_LAG_NS < MARGIN_NS
 * keeps that promise.
 */
#define T_START 1000000000ull
#define PASS_NS 5000000ull
#define DRAIN_NS 1000000ull
#define MARGIN_NS 10000000ull
#define MAX_LAG_NS 8000000ull
#define MAX_RECORD 65528u
#define MAX_CPUS 8
#define MAX_NR ((MAX_RECORD - 56) / 8) /* callchain entries of a maximum-size sample */
#define N_WARNS 16

_Static_assert(MAX_LAG_NS < MARGIN_NS, "the synthetic recorder keeps its watermark promise");

static uint64_t fake_now;

static uint64_t fake_clock(void)
{
	return fake_now;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* ---- files ---- */

static char tmpdir[PATH_MAX / 2];

static void tmp_path(char *buf, size_t n, const char *name)
{
	if ((size_t)snprintf(buf, n, "%s/%s", tmpdir, name) >= n) {
		fprintf(stderr, "test-format: path %s/%s too long\n", tmpdir, name);
		exit(1);
	}
}

static bool write_bytes(const char *path, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	bool ok = fd >= 0 && write(fd, p, n) == (ssize_t)n;

	if (fd >= 0)
		close(fd);
	return CHECK(ok, "cannot write %zu bytes to %s: %s", n, path, strerror(errno));
}

static unsigned char *slurp(const char *path, size_t *ret_n)
{
	struct stat sb;
	unsigned char *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (!CHECK(fd >= 0 && fstat(fd, &sb) == 0, "cannot open %s: %s", path, strerror(errno)))
		return NULL;
	p = malloc((size_t)sb.st_size + 1);
	if (!CHECK(p && read(fd, p, (size_t)sb.st_size) == sb.st_size, "cannot read %s", path)) {
		free(p);
		close(fd);
		return NULL;
	}
	close(fd);
	*ret_n = (size_t)sb.st_size;
	return p;
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* ---- what was written ---- */

struct wrec {
	size_t off; /* in recording.buf */
	uint32_t size;
	uint32_t frame; /* filled in by layout_scan */
	uint64_t time;
};

struct unit {
	size_t off, end; /* of the descriptor; end of the zstd frame */
	struct rp_frame_desc d;
	size_t first; /* index of the unit's first record */
};

struct recording {
	char path[PATH_MAX];
	unsigned char *buf; /* the records as given to the writer, back to back */
	size_t len, cap;
	struct wrec *recs;
	size_t n, cap_recs;
	unsigned char *file; /* the file as written */
	size_t size;
	struct unit *units;
	size_t n_units;
};

static void log_add(struct recording *rec, const void *p, size_t size, uint64_t time)
{
	if (rec->len + size > rec->cap) {
		rec->cap = rec->cap ? rec->cap * 2 : (1u << 20);
		while (rec->cap < rec->len + size)
			rec->cap *= 2;
		rec->buf = realloc(rec->buf, rec->cap);
	}
	if (rec->n == rec->cap_recs) {
		rec->cap_recs = rec->cap_recs ? rec->cap_recs * 2 : 4096;
		rec->recs = realloc(rec->recs, rec->cap_recs * sizeof(*rec->recs));
	}
	if (!rec->buf || !rec->recs) {
		fprintf(stderr, "test-format: out of memory\n");
		exit(1);
	}
	memcpy(rec->buf + rec->len, p, size);
	rec->recs[rec->n++] = (struct wrec){ rec->len, (uint32_t)size, 0, time };
	rec->len += size;
}

static void recording_free(struct recording *rec)
{
	free(rec->buf);
	free(rec->recs);
	free(rec->file);
	free(rec->units);
	memset(rec, 0, sizeof(*rec));
}

static const struct perf_event_header *rec_hdr(const struct recording *rec, size_t i)
{
	return (const void *)(rec->buf + rec->recs[i].off);
}

/* Add a record to the writer and to the log of what was written. */
static void put(struct writer *w, struct recording *rec, const void *p, size_t size, uint64_t time)
{
	log_add(rec, p, size, time);
	writer_add(w, p, size);
}

/* ---- record builders ---- */

static size_t make_header(uint64_t *buf, uint64_t time)
{
	static const char cmdline[] = "ringprof record -a -- ./rp-workload 3";
	struct rp_header_rec *h = (void *)buf;
	size_t size = (sizeof(*h) + sizeof(cmdline) + 7) & ~(size_t)7;

	memset(buf, 0, size);
	h->hdr.type = RP_REC_HEADER;
	h->hdr.size = (uint16_t)size;
	h->time = time;
	memcpy(h->magic, RP_HEADER_MAGIC, 8);
	h->major = RP_FORMAT_MAJOR;
	h->minor = RP_FORMAT_MINOR;
	h->flags = RP_HDR_SYSTEM_WIDE | RP_HDR_CALLCHAIN | RP_HDR_FREQ;
	h->clockid = CLOCK_MONOTONIC;
	h->n_cpus_online = 4;
	h->n_cpus_recorded = 4;
	h->page_size = 4096;
	h->sample_type = SAMPLE_TYPE;
	h->freq_requested = 999;
	h->freq = 999;
	snprintf(h->event_name, sizeof(h->event_name), "cpu-clock");
	snprintf(h->hostname, sizeof(h->hostname), "testhost");
	memcpy(h + 1, cmdline, sizeof(cmdline));
	return size;
}

static size_t make_sample(uint64_t *p, uint64_t seed, uint32_t cpu, uint64_t time, uint64_t nr)
{
	struct perf_event_header *h = (void *)p;
	uint32_t pid = 1000 + (uint32_t)(mix(seed) % 8) * 10, tid = pid + (uint32_t)(seed % 3);

	h->type = PERF_RECORD_SAMPLE;
	h->misc = seed % 5 ? PERF_RECORD_MISC_USER : PERF_RECORD_MISC_KERNEL;
	h->size = (uint16_t)((7 + nr) * 8);
	p[1] = 0x400000 + 16 * (mix(seed ^ 1) % 4096);
	p[2] = pid | (uint64_t)tid << 32;
	p[3] = time;
	p[4] = cpu;
	p[5] = 1000000 + mix(seed ^ 2) % 1000;
	p[6] = nr;
	for (uint64_t i = 0; i < nr; i++)
		p[7 + i] = 0x400000 + 16 * (mix(seed + i) % 512);
	return h->size;
}

static size_t make_comm(uint64_t *p, uint64_t seed, uint32_t cpu, uint64_t time)
{
	struct perf_event_header *h = (void *)p;
	struct perfrec_id id = { 2000 + (uint32_t)(seed % 100), 2000 + (uint32_t)(seed % 100), time,
				 cpu };
	char name[32];
	size_t len = (size_t)snprintf(name, sizeof(name), "worker-%llu",
				      (unsigned long long)(mix(seed) % 100000)) +
		     1;
	size_t size = 16 + ((len + 7) & ~(size_t)7) + perfrec_id_size(SAMPLE_TYPE);

	memset(p, 0, size);
	h->type = PERF_RECORD_COMM;
	h->size = (uint16_t)size;
	memcpy((char *)p + 8, &id.pid, 4);
	memcpy((char *)p + 12, &id.tid, 4);
	memcpy((char *)p + 16, name, len);
	perfrec_id_write((char *)p + size - perfrec_id_size(SAMPLE_TYPE), SAMPLE_TYPE, &id);
	return size;
}

/* ---- the synthetic recorder ---- */

struct gen_params {
	unsigned int n_cpus;
	unsigned int n_passes;
	unsigned int gap_max_us;   /* between two records of one CPU, in whole microseconds */
	unsigned int flush_passes; /* passes per frame */
	unsigned int big_pass;	   /* pass in which CPU 0 writes a maximum-size record; 0 none */
	int level;
};

struct gen_cpu {
	uint64_t time, arrival; /* of the next record */
};

struct gen {
	const struct gen_params *p;
	struct writer *w;
	struct recording *rec;
	uint64_t seed;
	bool want_big;
	struct gen_cpu cpu[MAX_CPUS];
	uint64_t buf[MAX_RECORD / 8];
};

static uint64_t gen_rand(struct gen *g)
{
	return mix(g->seed++ ^ 0xf00d);
}

static void gen_advance(struct gen *g, struct gen_cpu *c)
{
	uint64_t r = gen_rand(g), lag;

	/* Times are whole microseconds, so CPUs tie often and a CPU now and then ties itself. */
	c->time += 1000 * (r % (g->p->gap_max_us + 1));
	r = gen_rand(g);
	lag = r % 200 == 0 ? r % MAX_LAG_NS : r % 50000;
	if (c->time + lag > c->arrival)
		c->arrival = c->time + lag;
}

static void gen_record(struct gen *g, uint32_t cpu)
{
	uint64_t r = gen_rand(g), t = g->cpu[cpu].time;
	size_t size;

	if (g->want_big && cpu == 0) {
		g->want_big = false;
		size = make_sample(g->buf, r, cpu, t, MAX_NR);
	} else if (r % 32 == 0) {
		size = make_comm(g->buf, r, cpu, t);
	} else {
		size = make_sample(g->buf, r, cpu, t, (r >> 8) % 24);
	}
	put(g->w, g->rec, g->buf, size, t);
}

static void gen_pass(struct gen *g, unsigned int k)
{
	uint64_t start = T_START + k * PASS_NS;
	uint64_t flush_ns = (g->p->flush_passes - 1) * PASS_NS + DRAIN_NS;

	g->want_big = k == g->p->big_pass;
	for (uint32_t c = 0; c < g->p->n_cpus; c++) {
		struct gen_cpu *cpu = &g->cpu[c];

		fake_now = start + DRAIN_NS * c / g->p->n_cpus;
		while (cpu->arrival < fake_now) {
			gen_record(g, c);
			gen_advance(g, cpu);
		}
	}
	fake_now = start + DRAIN_NS;
	writer_set_safe_time(g->w, start - MARGIN_NS);
	if (writer_due(g->w, fake_now, flush_ns)) {
		int r = writer_flush(g->w);

		CHECK(r == 0, "writer_flush in pass %u: %d", k, r);
	}
}

static void layout_scan(struct recording *rec);

/* Write a recording the way the recorder does, and scan the result. */
static void write_recording(const struct gen_params *p, struct recording *rec, const char *name)
{
	struct gen *g = calloc(1, sizeof(*g));
	uint64_t t_stop = T_START + (p->n_passes + 1) * PASS_NS;
	struct rp_finish_rec f = { .hdr = { RP_REC_FINISH, 0, sizeof(f) } };
	const struct writer_stats *ws;
	uint64_t frames, file_bytes;
	int r;

	tmp_path(rec->path, sizeof(rec->path), name);
	g->p = p;
	g->rec = rec;
	r = writer_open(rec->path, 0644, p->level, &g->w);
	if (!CHECK(r == 0, "writer_open %s: %d", rec->path, r))
		exit(1);
	writer_set_clock(g->w, fake_clock);
	fake_now = T_START;
	writer_set_safe_time(g->w, T_START);
	put(g->w, rec, g->buf, make_header(g->buf, T_START), T_START);
	for (uint32_t c = 0; c < p->n_cpus; c++) {
		g->cpu[c].time = T_START + 1000 * (c + 1);
		g->cpu[c].arrival = g->cpu[c].time;
	}
	for (unsigned int k = 1; k <= p->n_passes; k++)
		gen_pass(g, k);

	/* As recorder_stop: the last watermark, per-CPU accounting, the finish record. */
	fake_now = t_stop;
	writer_set_safe_time(g->w, t_stop);
	for (uint32_t c = 0; c < p->n_cpus; c++) {
		struct rp_cpu_stats_rec s = { .hdr = { RP_REC_CPU_STATS, 0, sizeof(s) } };

		s.time = t_stop;
		s.cpu = c;
		s.samples = c + 1;
		put(g->w, rec, &s, sizeof(s), t_stop);
	}
	f.time = t_stop;
	f.exit_status = -1;
	put(g->w, rec, &f, sizeof(f), t_stop);
	r = writer_flush(g->w);
	CHECK(r == 0, "final writer_flush: %d", r);
	ws = writer_stats(g->w);
	CHECK(ws->records == rec->n && ws->dropped_records == 0 && ws->dropped_frames == 0 &&
		  ws->last_error == 0 && ws->raw_bytes == rec->len,
	      "%s: writer stats: records %llu of %zu, dropped %llu, raw %llu of %zu, error %d",
	      name, (unsigned long long)ws->records, rec->n,
	      (unsigned long long)ws->dropped_records, (unsigned long long)ws->raw_bytes, rec->len,
	      ws->last_error);
	frames = ws->frames;
	file_bytes = ws->file_bytes;
	r = writer_close(g->w);
	CHECK(r == 0, "writer_close: %d", r);
	free(g);
	layout_scan(rec);
	CHECK(frames == rec->n_units && file_bytes == rec->size,
	      "%s: writer counted %llu frames, %llu bytes; the file has %zu, %zu", name,
	      (unsigned long long)frames, (unsigned long long)file_bytes, rec->n_units, rec->size);
}

/*
 * Walk the written file unit by unit, independently of the reader: every descriptor is
 * valid and numbered, every frame decompresses to exactly the records given to the writer
 * in that order, each within the frame's [t_lo, t_hi], and no later frame holds a record
 * older than an earlier frame's t_safe. Assigns each record its frame.
 */
static void layout_scan(struct recording *rec)
{
	struct zframe *z = zframe_new(1);
	unsigned char *raw = NULL;
	size_t off = 0, idx = 0, cap_units = 0;
	uint64_t *min_time = NULL;

	rec->file = slurp(rec->path, &rec->size);
	if (!rec->file || !z)
		exit(1);
	while (off < rec->size) {
		struct rp_frame_desc d;
		struct unit *u;
		size_t got = 0, pos = 0;
		int err;

		if (!CHECK(rec->size - off >= sizeof(d), "%s: %zu stray bytes at offset %zu",
			   rec->path, rec->size - off, off))
			break;
		memcpy(&d, rec->file + off, sizeof(d));
		if (!CHECK(d.skip_magic == RP_SKIPPABLE_MAGIC && d.skip_size == sizeof(d) - 8 &&
			       d.magic == RP_DESC_MAGIC && d.major == RP_FORMAT_MAJOR &&
			       d.minor == RP_FORMAT_MINOR && d.seq == rec->n_units &&
			       d.sample_type == SAMPLE_TYPE &&
			       d.crc == crc32c(0, &d, offsetof(struct rp_frame_desc, crc)) &&
			       d.zsize <= rec->size - off - sizeof(d),
			   "%s: bad descriptor %zu at offset %zu: magic %#x/%#x v%u.%u seq %llu "
			   "sample_type %#llx zsize %u",
			   rec->path, rec->n_units, off, d.skip_magic, d.magic, d.major, d.minor,
			   (unsigned long long)d.seq, (unsigned long long)d.sample_type, d.zsize))
			break;
		if (rec->n_units == cap_units) {
			cap_units = cap_units ? cap_units * 2 : 64;
			rec->units = realloc(rec->units, cap_units * sizeof(*rec->units));
			min_time = realloc(min_time, cap_units * sizeof(*min_time));
		}
		u = &rec->units[rec->n_units];
		*u = (struct unit){ off, off + sizeof(d) + d.zsize, d, idx };
		min_time[rec->n_units] = UINT64_MAX;
		CHECK(d.t_lo <= d.t_hi && d.t_safe <= d.t_hi &&
			  (!rec->n_units || d.t_safe >= rec->units[rec->n_units - 1].d.t_safe),
		      "frame %zu: t_lo %llu t_hi %llu t_safe %llu", rec->n_units,
		      (unsigned long long)d.t_lo, (unsigned long long)d.t_hi,
		      (unsigned long long)d.t_safe);
		raw = realloc(raw, d.raw_size + 8);
		err = zframe_decompress(z, raw, d.raw_size, rec->file + off + sizeof(d), d.zsize,
					&got);
		if (!CHECK(err == 0 && got == d.raw_size, "frame %zu: decompress %d, %zu of %u",
			   rec->n_units, err, got, d.raw_size))
			break;
		while (pos < got) {
			const struct perf_event_header *h = (const void *)(raw + pos);
			struct wrec *w = &rec->recs[idx];

			if (!CHECK(idx < rec->n && pos + h->size <= got && h->size == w->size &&
				       !memcmp(h, rec->buf + w->off, w->size),
				   "frame %zu byte %zu: record %zu (of %zu) differs from the one "
				   "written",
				   rec->n_units, pos, idx, rec->n))
				goto out;
			CHECK(w->time >= d.t_lo && w->time <= d.t_hi &&
				  perfrec_time(h, SAMPLE_TYPE) == w->time,
			      "frame %zu record %zu: time %llu (perfrec_time %llu) outside "
			      "[%llu, %llu]",
			      rec->n_units, idx, (unsigned long long)w->time,
			      (unsigned long long)perfrec_time(h, SAMPLE_TYPE),
			      (unsigned long long)d.t_lo, (unsigned long long)d.t_hi);
			w->frame = (uint32_t)rec->n_units;
			if (w->time < min_time[rec->n_units])
				min_time[rec->n_units] = w->time;
			pos += h->size;
			idx++;
		}
		CHECK(idx - u->first == d.n_records, "frame %zu: %zu records, descriptor says %u",
		      rec->n_units, idx - u->first, d.n_records);
		rec->n_units++;
		off = u->end;
	}
	CHECK(idx == rec->n, "%s holds %zu of the %zu records written", rec->path, idx, rec->n);
	/* The watermark promise: nothing older than a frame's t_safe comes in a later frame. */
	for (size_t i = rec->n_units; i-- > 1;) {
		if (min_time[i] > min_time[i - 1])
			min_time[i - 1] = min_time[i];
	}
	for (size_t i = 0; i + 1 < rec->n_units; i++)
		CHECK(min_time[i + 1] >= rec->units[i].d.t_safe,
		      "frame %zu: t_safe %llu, but a later frame holds a record of time %llu", i,
		      (unsigned long long)rec->units[i].d.t_safe,
		      (unsigned long long)min_time[i + 1]);
out:
	free(min_time);
	free(raw);
	zframe_free(z);
}

/* ---- reading back ---- */

struct warns {
	unsigned int n;
	char msg[N_WARNS][512];
};

static void on_warn(void *arg, const char *msg)
{
	struct warns *w = arg;

	if (w->n < N_WARNS)
		snprintf(w->msg[w->n], sizeof(w->msg[0]), "%s", msg);
	w->n++;
}

/* Whether every warning contains all of the (up to two) words. */
static bool warns_say(const struct warns *w, const char *a, const char *b)
{
	if (!w->n)
		return false;
	for (unsigned int i = 0; i < w->n && i < N_WARNS; i++)
		if (!strstr(w->msg[i], a) || (b && !strstr(w->msg[i], b)))
			return false;
	return true;
}

static const char *first_warn(const struct warns *w)
{
	return w->n ? w->msg[0] : "(no warning)";
}

struct outcome {
	int err;
	char why[256];
	struct reader_stats st;
	struct warns warns;
	size_t n_read;
};

static int cmp_time_index(const void *a, const void *b, void *arg)
{
	const struct recording *rec = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	if (rec->recs[i].time != rec->recs[j].time)
		return rec->recs[i].time < rec->recs[j].time ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* When >= 0, read_expect cuts the file to this size once frame 0 is read. */
static off_t shrink_to = -1;

/*
 * Read path and compare the stream with the records of the frames marked in keep, in time
 * order with ties in the order written: same count, byte-identical, 8-aligned, late == 0,
 * and the header record available exactly when frame 0 is kept.
 */
static void read_expect(const char *what, const struct recording *rec, const char *path,
			const bool *keep, bool header_first, struct outcome *o)
{
	size_t *exp = malloc((rec->n + 1) * sizeof(*exp)), n_exp = 0, n_bad = 0;
	const struct rp_header_rec *hr;
	const struct perf_event_header *h;
	struct reader *r = NULL;
	char first_bad[256] = "none";
	uint64_t last = 0;

	memset(o, 0, sizeof(*o));
	for (size_t i = 0; i < rec->n; i++)
		if (keep[rec->recs[i].frame])
			exp[n_exp++] = i;
	qsort_r(exp, n_exp, sizeof(*exp), cmp_time_index, (void *)rec);
	o->err = reader_open(path, &r, o->why, sizeof(o->why));
	if (o->err < 0) {
		free(exp);
		return;
	}
	reader_set_warn(r, on_warn, &o->warns);
	if (header_first)
		reader_header(r);
	if (shrink_to >= 0 && truncate(path, shrink_to) < 0)
		CHECK(0, "%s: truncate: %s", what, strerror(errno));
	while ((h = reader_next(r))) {
		uint64_t t = perfrec_time(h, SAMPLE_TYPE);
		const struct wrec *w = o->n_read < n_exp ? &rec->recs[exp[o->n_read]] : NULL;

		if (w &&
		    (h->size != w->size || memcmp(h, rec->buf + w->off, w->size) ||
		     (uintptr_t)h % 8 || t < last) &&
		    !n_bad++)
			snprintf(first_bad, sizeof(first_bad),
				 "record %zu is type %u size %u time %llu at %p (last time %llu); "
				 "want record %zu of frame %u: type %u size %u time %llu",
				 o->n_read, h->type, h->size, (unsigned long long)t,
				 (const void *)h, (unsigned long long)last, exp[o->n_read],
				 w->frame, rec_hdr(rec, exp[o->n_read])->type, w->size,
				 (unsigned long long)w->time);
		last = t;
		o->n_read++;
	}
	o->st = *reader_stats(r);
	CHECK(o->n_read == n_exp && n_bad == 0,
	      "%s: read %zu records, want %zu; %zu wrong, the first: %s; first warning: %s", what,
	      o->n_read, n_exp, n_bad, first_bad, first_warn(&o->warns));
	CHECK(o->st.late == 0 && o->st.records == o->n_read && o->st.records_bad == 0,
	      "%s: stats: late %llu, records %llu, records_bad %llu", what,
	      (unsigned long long)o->st.late, (unsigned long long)o->st.records,
	      (unsigned long long)o->st.records_bad);
	hr = reader_header(r);
	if (keep[0])
		CHECK(hr && hr->hdr.size == rec->recs[0].size &&
			  !memcmp(hr, rec->buf + rec->recs[0].off, hr->hdr.size),
		      "%s: reader_header does not return the header record (%p)", what,
		      (const void *)hr);
	else
		CHECK(!hr, "%s: frame 0 is lost, yet reader_header gives a header", what);
	if (n_exp)
		CHECK(reader_sample_type(r) == SAMPLE_TYPE, "%s: reader_sample_type %#llx", what,
		      (unsigned long long)reader_sample_type(r));
	reader_free(r);
	free(exp);
}

static bool *keep_all(const struct recording *rec, bool v)
{
	bool *keep = malloc(rec->n_units + 1);

	memset(keep, v, rec->n_units + 1);
	return keep;
}

static void check_clean(const char *what, const struct outcome *o, size_t n_frames)
{
	CHECK(o->err == 0 && o->warns.n == 0 && o->st.frames == n_frames && o->st.frames_bad == 0 &&
		  o->st.bytes_skipped == 0 && !o->st.truncated,
	      "%s: err %d (%s), %u warnings (%s), frames %llu of %zu, bad %llu, skipped %llu, "
	      "truncated %d",
	      what, o->err, o->why, o->warns.n, first_warn(&o->warns),
	      (unsigned long long)o->st.frames, n_frames, (unsigned long long)o->st.frames_bad,
	      (unsigned long long)o->st.bytes_skipped, o->st.truncated);
}

static void zstd_test(const char *path, bool want_ok)
{
	char cmd[PATH_MAX + 64];
	int st;

	if (access("/usr/bin/zstd", X_OK) != 0) {
		printf("test-format: no /usr/bin/zstd, zstd -t check skipped\n");
		return;
	}
	snprintf(cmd, sizeof(cmd), "/usr/bin/zstd -q -t '%s' 2>/dev/null", path);
	st = system(cmd);
	CHECK(want_ok ? st == 0 : st != 0, "zstd -t %s: status %d, want %s", path, st,
	      want_ok ? "0" : "failure");
}

/* ---- 1. round trips ---- */

static void test_round_trip(void)
{
	static const struct gen_params p = { .n_cpus = 4,
					     .n_passes = 200,
					     .gap_max_us = 40,
					     .flush_passes = 4,
					     .big_pass = 100,
					     .level = 1 };
	struct recording rec = { 0 };
	struct outcome o;
	size_t disordered = 0, cross_frame = 0, ties = 0, big = 0;
	uint64_t max_time = 0, frame_max = 0;
	bool *keep;
	size_t *order;

	write_recording(&p, &rec, "round-trip.rp");
	printf("test-format: round trip: %zu records (%zu bytes) in %zu frames, %zu file bytes\n",
	       rec.n, rec.len, rec.n_units, rec.size);
	CHECK(rec.n > 150000 && rec.n_units >= 40 && rec.n_units <= 60,
	      "the recording should have ~200k records in ~50 frames: %zu in %zu", rec.n,
	      rec.n_units);
	/* The test is only worth something if the file really is out of order, across frames
	 * too, and has ties across CPUs. */
	for (size_t i = 0; i < rec.n; i++) {
		const struct wrec *w = &rec.recs[i];

		disordered += w->time < max_time;
		if (w->frame && w->frame != rec.recs[i - 1].frame)
			frame_max = max_time;
		cross_frame += w->frame && w->time < frame_max;
		big += w->size == MAX_RECORD;
		if (w->time > max_time)
			max_time = w->time;
	}
	order = malloc(rec.n * sizeof(*order));
	for (size_t i = 0; i < rec.n; i++)
		order[i] = i;
	qsort_r(order, rec.n, sizeof(*order), cmp_time_index, &rec);
	for (size_t i = 1; i < rec.n; i++)
		ties += rec.recs[order[i]].time == rec.recs[order[i - 1]].time;
	free(order);
	printf("test-format: %zu records out of file order, %zu older than an earlier frame's "
	       "newest, %zu ties\n",
	       disordered, cross_frame, ties);
	CHECK(disordered > 1000 && cross_frame > 100 && ties > 1000 && big == 1,
	      "synthetic recording too tame: %zu disordered, %zu across frames, %zu ties, %zu "
	      "maximum-size records",
	      disordered, cross_frame, ties, big);

	keep = keep_all(&rec, true);
	read_expect("round trip", &rec, rec.path, keep, true, &o);
	check_clean("round trip", &o, rec.n_units);
	CHECK(o.st.t_first == rec.units[0].d.t_lo &&
		  o.st.t_last == rec.units[rec.n_units - 1].d.t_hi,
	      "time bounds %llu..%llu, want %llu..%llu", (unsigned long long)o.st.t_first,
	      (unsigned long long)o.st.t_last, (unsigned long long)rec.units[0].d.t_lo,
	      (unsigned long long)rec.units[rec.n_units - 1].d.t_hi);
	/* The same without asking for the header first. */
	read_expect("round trip, header not asked", &rec, rec.path, keep, false, &o);
	check_clean("round trip, header not asked", &o, rec.n_units);
	zstd_test(rec.path, true);
	free(keep);
	unlink(rec.path);
	recording_free(&rec);
}

static void test_header_only(void)
{
	struct recording rec = { 0 };
	struct writer *w;
	struct outcome o;
	uint64_t buf[128];
	bool keep[1] = { true };
	int r;

	tmp_path(rec.path, sizeof(rec.path), "header-only.rp");
	r = writer_open(rec.path, 0644, 3, &w);
	if (!CHECK(r == 0, "writer_open: %d", r))
		return;
	writer_set_clock(w, fake_clock);
	fake_now = T_START;
	writer_set_safe_time(w, T_START);
	put(w, &rec, buf, make_header(buf, T_START), T_START);
	r = writer_close(w);
	CHECK(r == 0, "writer_close: %d", r);
	layout_scan(&rec);
	CHECK(rec.n_units == 1, "header-only recording has %zu frames", rec.n_units);
	read_expect("header only", &rec, rec.path, keep, false, &o);
	check_clean("header only", &o, 1);
	zstd_test(rec.path, true);
	unlink(rec.path);
	recording_free(&rec);

	/* A writer closed before any record leaves an empty file, which the reader names. */
	tmp_path(rec.path, sizeof(rec.path), "nothing.rp");
	r = writer_open(rec.path, 0644, 3, &w);
	if (CHECK(r == 0, "writer_open: %d", r)) {
		struct reader *rd = NULL;
		char why[256] = "";

		CHECK(writer_flush(w) == 0 && writer_stats(w)->frames == 0, "flush of nothing");
		r = writer_close(w);
		CHECK(r == 0, "writer_close: %d", r);
		r = reader_open(rec.path, &rd, why, sizeof(why));
		CHECK(r == -ENODATA && why[0], "reader_open, no records written: %d (%s)", r, why);
		reader_free(rd);
		unlink(rec.path);
	}
}

/* zframe_decompress_head(): the first bytes of a frame, whole frames when they are shorter,
 * an error for a frame cut before the head asked. reader_head_only(): the header of a frame 0
 * much longer than READER_HEAD, without a warning about the record the head cuts. */
static void test_head_only(void)
{
	enum { N = 256 << 10 };
	unsigned char *raw = malloc(N), *z = malloc(zframe_bound(N)), *back = malloc(N);
	struct zframe *zf = zframe_new(3);
	struct recording rec = { 0 };
	struct warns warns = { 0 };
	struct reader *rd = NULL;
	struct writer *w;
	size_t zn = 0, got = 0, n_comms = 0;
	uint64_t buf[128];
	char why[256] = "";
	int r;

	test_ctx = "head only";
	if (!CHECK(raw && z && back && zf))
		goto out;
	for (size_t i = 0; i < N; i++)
		raw[i] = (unsigned char)(mix(i / 16) & 0xff);
	if (!CHECK(zframe_compress(zf, z, zframe_bound(N), raw, N, &zn) == 0))
		goto out;
	CHECK(zframe_decompress_head(zf, back, 4096, z, zn, &got) == 0 && got == 4096 &&
		  memcmp(back, raw, 4096) == 0,
	      "head of 4096: %zu", got);
	CHECK(zframe_decompress_head(zf, back, N, z, zn, &got) == 0 && got == N &&
		  memcmp(back, raw, N) == 0,
	      "head of all: %zu", got);
	CHECK(zframe_decompress_head(zf, back, N, z, zn / 2, &got) == -EBADMSG,
	      "a frame cut in half is not a head of its length");
	CHECK(zframe_decompress(zf, back, N, z, zn, &got) == 0 && got == N,
	      "the context decompresses whole frames after heads");

	tmp_path(rec.path, sizeof(rec.path), "head-only.rp");
	r = writer_open(rec.path, 0644, 3, &w);
	if (!CHECK(r == 0, "writer_open: %d", r))
		goto out;
	writer_set_clock(w, fake_clock);
	fake_now = T_START;
	writer_set_safe_time(w, T_START);
	put(w, &rec, buf, make_header(buf, T_START), T_START);
	for (uint64_t i = 0; i < 8000; i++) /* about 400 KiB of records after the header */
		put(w, &rec, buf, make_comm(buf, i, 0, T_START), T_START);
	CHECK(writer_close(w) == 0);
	layout_scan(&rec);
	CHECK(rec.units[0].d.raw_size > 4 * READER_HEAD, "frame 0 holds %u bytes",
	      rec.units[0].d.raw_size);
	if (!CHECK(reader_open(rec.path, &rd, why, sizeof(why)) == 0, "%s", why))
		goto out;
	reader_set_warn(rd, on_warn, &warns);
	reader_head_only(rd);
	CHECK(reader_header(rd) && reader_header(rd)->time == T_START, "the header is read");
	CHECK_INT(reader_n_events(rd), 1);
	for (const struct perf_event_header *h; (h = reader_next(rd)) != NULL;)
		n_comms += h->type == PERF_RECORD_COMM;
	CHECK(n_comms > 0 && n_comms < 8000, "the head's records alone: %zu comms", n_comms);
	CHECK(warns.n == 0, "no warning: %s", first_warn(&warns));
	CHECK_INT(reader_stats(rd)->records_bad, 0);
	reader_free(rd);
	rd = NULL;
	if (CHECK(reader_open(rec.path, &rd, why, sizeof(why)) == 0, "%s", why)) {
		n_comms = 0;
		for (const struct perf_event_header *h; (h = reader_next(rd)) != NULL;)
			n_comms += h->type == PERF_RECORD_COMM;
		CHECK_INT(n_comms, 8000); /* a whole read still has them all */
	}
out:
	reader_free(rd);
	if (rec.path[0])
		unlink(rec.path);
	recording_free(&rec);
	zframe_free(zf);
	free(raw);
	free(z);
	free(back);
}

/* Records of the maximum size fill frames to the writer's raw cap; each full frame is
 * closed before the record that does not fit. */
static void test_full_frames(void)
{
	struct recording rec = { 0 };
	struct writer *w;
	struct outcome o;
	uint64_t *buf = calloc(1, MAX_RECORD), t = T_START;
	bool *keep;
	int r;

	tmp_path(rec.path, sizeof(rec.path), "full-frames.rp");
	r = writer_open(rec.path, 0644, 1, &w);
	if (!CHECK(r == 0, "writer_open: %d", r))
		return;
	writer_set_clock(w, fake_clock);
	fake_now = T_START;
	writer_set_safe_time(w, T_START);
	put(w, &rec, buf, make_header(buf, T_START), T_START);
	CHECK(!writer_reserve(w, 0) && !writer_reserve(w, 12) && !writer_reserve(w, 65535) &&
		  !writer_reserve(w, 65536) && !writer_reserve(w, 70000),
	      "writer_reserve accepts an invalid size");
	writer_add(w, buf, 4); /* ignored */
	CHECK(writer_pending(w) == rec.len, "pending %zu bytes, want %zu", writer_pending(w),
	      rec.len);
	for (int i = 0; i < 300; i++) {
		void *p;

		size_t size;

		memset(buf, 0, MAX_RECORD);
		fake_now = t; /* a frame closed now ends at t */
		size = make_sample(buf, (uint64_t)i, (uint32_t)i % 4, t, MAX_NR);
		p = writer_reserve(w, size);
		if (!CHECK(p, "writer_reserve(%zu) failed", size))
			break;
		memcpy(p, buf, size);
		log_add(&rec, buf, size, t);
		t += 1000;
	}
	fake_now = t;
	r = writer_close(w);
	CHECK(r == 0, "writer_close: %d", r);
	layout_scan(&rec);
	CHECK(rec.n_units == 3, "%zu bytes should make 3 frames of at most 8 MiB, not %zu", rec.len,
	      rec.n_units);
	for (size_t i = 0; i < rec.n_units; i++)
		CHECK(rec.units[i].d.raw_size <= (8u << 20), "frame %zu holds %u bytes", i,
		      rec.units[i].d.raw_size);
	keep = keep_all(&rec, true);
	read_expect("full frames", &rec, rec.path, keep, false, &o);
	check_clean("full frames", &o, rec.n_units);
	free(keep);
	free(buf);
	unlink(rec.path);
	recording_free(&rec);
}

/* ---- 2. truncation ---- */

static const struct gen_params medium = {
	.n_cpus = 3, .n_passes = 48, .gap_max_us = 300, .flush_passes = 4, .level = 3
};

static void test_truncation(const struct recording *rec)
{
	char path[PATH_MAX];
	bool *keep = keep_all(rec, false);
	unsigned int n_cuts = 0;

	tmp_path(path, sizeof(path), "truncated.rp");
	for (size_t j = 0; j <= rec->n_units; j++) {
		size_t s = j < rec->n_units ? rec->units[j].off : rec->size;
		size_t zs = j < rec->n_units ? rec->units[j].d.zsize : 0;
		size_t cuts[] = { 0, 1, 11, 12, 40, 71, 72, 73, 72 + zs / 2, 72 + zs - 1 };
		size_t n_cuts_here = j < rec->n_units ? sizeof(cuts) / sizeof(cuts[0]) : 1;

		for (size_t c = 0; c < n_cuts_here; c++) {
			size_t cut = s + cuts[c];
			struct outcome o;
			char what[96];

			if (c && cuts[c] <= cuts[c - 1])
				continue;
			snprintf(what, sizeof(what), "cut at %zu (frame %zu+%zu)", cut, j, cuts[c]);
			n_cuts++;
			if (!write_bytes(path, rec->file, cut))
				break;
			read_expect(what, rec, path, keep, c % 2, &o);
			if (cut == 0) {
				CHECK(o.err == -ENODATA && o.why[0], "%s: reader_open %d (%s)",
				      what, o.err, o.why);
			} else if (j == 0 && cut < sizeof(struct rp_frame_desc)) {
				/* No complete descriptor, so nothing says this is a recording. */
				CHECK(o.err == -EPROTO && o.why[0], "%s: reader_open %d (%s)", what,
				      o.err, o.why);
			} else if (c == 0) {
				check_clean(what, &o, j);
			} else {
				const struct reader_stats *st = &o.st;

				CHECK(o.err == 0 && st->truncated && st->frames == j &&
					  st->frames_bad == 1 && st->bytes_skipped == cut - s &&
					  o.warns.n == 1 && warns_say(&o.warns, "truncated", NULL),
				      "%s: err %d (%s), truncated %d, frames %llu, bad %llu, "
				      "skipped %llu, %u warnings: %s",
				      what, o.err, o.why, st->truncated,
				      (unsigned long long)st->frames,
				      (unsigned long long)st->frames_bad,
				      (unsigned long long)st->bytes_skipped, o.warns.n,
				      first_warn(&o.warns));
			}
		}
		if (j < rec->n_units)
			keep[j] = true;
	}
	printf("test-format: %u truncations of a %zu-frame file\n", n_cuts, rec->n_units);
	unlink(path);
	free(keep);
}

/*
 * The file shrinks while it is read (its writer cuts it back after a failed write, or anyone
 * does): the reader opened it whole and has read frame 0. It must not die (it did, of SIGBUS,
 * while it mapped the file), must hand out every frame read before the cut, and must say that
 * the file shrank.
 */
static void test_shrink(const struct recording *rec)
{
	char path[PATH_MAX];
	bool *keep = keep_all(rec, false);
	unsigned int n_cuts = 0;

	tmp_path(path, sizeof(path), "shrinking.rp");
	keep[0] = true;
	for (size_t j = 1; j < rec->n_units; j++) {
		size_t s = rec->units[j].off, zs = rec->units[j].d.zsize;
		size_t cuts[] = { 0, 40, 72 + zs / 2 };

		for (size_t c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++) {
			struct outcome o;
			char what[96];

			snprintf(what, sizeof(what), "shrunk to %zu (frame %zu+%zu) while read",
				 s + cuts[c], j, cuts[c]);
			if (!write_bytes(path, rec->file, rec->size))
				break;
			n_cuts++;
			shrink_to = (off_t)(s + cuts[c]);
			read_expect(what, rec, path, keep, true, &o);
			shrink_to = -1;
			CHECK(o.err == 0 && o.st.truncated && o.st.frames == j &&
				  o.st.frames_bad == 1 && o.st.bytes_skipped == rec->size - s &&
				  o.warns.n == 1 &&
				  warns_say(&o.warns, "the file shrank from", "while it was read"),
			      "%s: err %d (%s), truncated %d, frames %llu, bad %llu, skipped %llu, "
			      "%u warnings: %s",
			      what, o.err, o.why, o.st.truncated, (unsigned long long)o.st.frames,
			      (unsigned long long)o.st.frames_bad,
			      (unsigned long long)o.st.bytes_skipped, o.warns.n,
			      first_warn(&o.warns));
		}
		keep[j] = true;
	}
	printf("test-format: %u files shrunk while read\n", n_cuts);
	unlink(path);
	free(keep);
}

/* ---- 3. damage ---- */

/* Write a damaged copy and check that exactly the frames marked lost are lost. */
static void read_damaged(const char *what, const struct recording *rec, const unsigned char *data,
			 size_t size, const bool *keep, struct outcome *o)
{
	char path[PATH_MAX];

	tmp_path(path, sizeof(path), "damaged.rp");
	if (!write_bytes(path, data, size))
		return;
	read_expect(what, rec, path, keep, true, o);
	CHECK(o->err == 0, "%s: reader_open %d (%s)", what, o->err, o->why);
	unlink(path);
}

static void test_corruption(const struct recording *rec)
{
	size_t n = rec->n_units;
	size_t ks[] = { 0, 1, n / 2, n - 1 };
	unsigned char *copy = malloc(rec->size + 8192);
	bool *keep = keep_all(rec, true);
	struct outcome o;
	char what[128], frame_no[32];

	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		const struct unit *u = &rec->units[ks[i]];
		size_t data_at[] = { u->off + 72 + u->d.zsize / 2, u->end - 1, u->off + 72 + 5 };
		size_t desc_at[] = { u->off + 2, u->off + 9, u->off + 16, u->off + 60, u->off + 70 };

		keep[ks[i]] = false;
		snprintf(frame_no, sizeof(frame_no), "frame %zu ", ks[i]);
		for (size_t a = 0; a < sizeof(data_at) / sizeof(data_at[0]); a++) {
			memcpy(copy, rec->file, rec->size);
			copy[data_at[a]] ^= 0x5a;
			snprintf(what, sizeof(what), "frame %zu: zstd byte %zu flipped", ks[i],
				 data_at[a] - u->off - 72);
			read_damaged(what, rec, copy, rec->size, keep, &o);
			CHECK(o.warns.n == 1 && warns_say(&o.warns, "corrupt", frame_no) &&
				  o.st.frames_bad == 1 && o.st.frames == n - 1 &&
				  o.st.bytes_skipped == u->end - u->off && !o.st.truncated,
			      "%s: %u warnings (%s), frames %llu, bad %llu, skipped %llu", what,
			      o.warns.n, first_warn(&o.warns), (unsigned long long)o.st.frames,
			      (unsigned long long)o.st.frames_bad,
			      (unsigned long long)o.st.bytes_skipped);
		}
		for (size_t a = 0; a < sizeof(desc_at) / sizeof(desc_at[0]); a++) {
			memcpy(copy, rec->file, rec->size);
			copy[desc_at[a]] ^= 0x10;
			snprintf(what, sizeof(what), "frame %zu: descriptor byte %zu flipped",
				 ks[i], desc_at[a] - u->off);
			read_damaged(what, rec, copy, rec->size, keep, &o);
			CHECK(o.warns.n == 1 &&
				  warns_say(&o.warns, "damaged frame descriptor", NULL) &&
				  o.st.frames_bad == 1 && o.st.frames == n - 1 &&
				  o.st.bytes_skipped == u->end - u->off,
			      "%s: %u warnings (%s), frames %llu, bad %llu, skipped %llu", what,
			      o.warns.n, first_warn(&o.warns), (unsigned long long)o.st.frames,
			      (unsigned long long)o.st.frames_bad,
			      (unsigned long long)o.st.bytes_skipped);
		}
		keep[ks[i]] = true;
	}
	free(keep);
	free(copy);
}

/* Garbage between units (and before the first) costs no records. */
static void test_garbage(const struct recording *rec)
{
	size_t at[] = { rec->units[rec->n_units / 2].off, 0, rec->size };
	unsigned char *copy = malloc(rec->size + 1000);
	bool *keep = keep_all(rec, true);
	struct outcome o;
	char what[96];

	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		memcpy(copy, rec->file, at[i]);
		for (size_t b = 0; b < 1000; b++)
			copy[at[i] + b] = (unsigned char)mix(b);
		memcpy(copy + at[i] + 1000, rec->file + at[i], rec->size - at[i]);
		snprintf(what, sizeof(what), "1000 garbage bytes at offset %zu", at[i]);
		read_damaged(what, rec, copy, rec->size + 1000, keep, &o);
		CHECK(o.st.bytes_skipped == 1000 && o.st.frames == rec->n_units && o.warns.n == 1 &&
			  !o.st.truncated,
		      "%s: skipped %llu, frames %llu of %zu, %u warnings (%s), truncated %d", what,
		      (unsigned long long)o.st.bytes_skipped, (unsigned long long)o.st.frames,
		      rec->n_units, o.warns.n, first_warn(&o.warns), o.st.truncated);
		if (i == 0)
			printf("test-format: %s: frames_bad %llu, warning: %s\n", what,
			       (unsigned long long)o.st.frames_bad, first_warn(&o.warns));
	}
	free(keep);
	free(copy);
}

static int cmp_rec_ptr(const void *a, const void *b)
{
	const struct perf_event_header *x = *(const void *const *)a, *y = *(const void *const *)b;
	uint64_t tx = perfrec_time(x, SAMPLE_TYPE), ty = perfrec_time(y, SAMPLE_TYPE);

	if (tx != ty)
		return tx < ty ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return memcmp(x, y, x->size);
}

/* The same unit twice in a row: the reader cannot tell, and hands out its records twice. */
static void test_duplicate(const struct recording *rec)
{
	const struct unit *u = &rec->units[rec->n_units / 2];
	size_t usize = u->end - u->off, n_unit = u->d.n_records, n_want = rec->n + n_unit;
	size_t n_got = 0;
	unsigned char *copy = malloc(rec->size + usize), *got = malloc(rec->len * 2);
	const void **want_p = malloc(n_want * sizeof(*want_p)), **got_p;
	const struct perf_event_header *h;
	struct reader *r = NULL;
	char path[PATH_MAX], why[256];
	size_t got_len = 0, n_diff = 0;
	int err;

	got_p = malloc(n_want * 2 * sizeof(*got_p));
	memcpy(copy, rec->file, u->end);
	memcpy(copy + u->end, rec->file + u->off, usize);
	memcpy(copy + u->end + usize, rec->file + u->end, rec->size - u->end);
	tmp_path(path, sizeof(path), "duplicate.rp");
	if (!write_bytes(path, copy, rec->size + usize))
		goto out;
	err = reader_open(path, &r, why, sizeof(why));
	if (!CHECK(err == 0, "duplicate unit: reader_open %d (%s)", err, why))
		goto out;
	while ((h = reader_next(r)) && n_got < n_want * 2) {
		memcpy(got + got_len, h, h->size);
		got_p[n_got++] = got + got_len;
		got_len += h->size;
	}
	for (size_t i = 0; i < rec->n; i++)
		want_p[i] = rec_hdr(rec, i);
	for (size_t i = 0; i < n_unit; i++)
		want_p[rec->n + i] = rec_hdr(rec, u->first + i);
	qsort(want_p, n_want, sizeof(*want_p), cmp_rec_ptr);
	qsort(got_p, n_got, sizeof(*got_p), cmp_rec_ptr);
	for (size_t i = 0; i < n_got && i < n_want; i++)
		n_diff += cmp_rec_ptr(&want_p[i], &got_p[i]) != 0;
	CHECK(n_got == n_want && n_diff == 0 && reader_stats(r)->frames == rec->n_units + 1,
	      "duplicate unit: %zu records (%zu differ), want all %zu plus the %zu of frame %llu "
	      "again; %llu frames",
	      n_got, n_diff, rec->n, n_unit, (unsigned long long)u->d.seq,
	      (unsigned long long)reader_stats(r)->frames);
	printf("test-format: frame %llu stored twice: its %zu records come twice, %llu of them "
	       "reported late, %llu bad frames\n",
	       (unsigned long long)u->d.seq, n_unit, (unsigned long long)reader_stats(r)->late,
	       (unsigned long long)reader_stats(r)->frames_bad);
out:
	reader_free(r);
	unlink(path);
	free(got_p);
	free(want_p);
	free(got);
	free(copy);
}

/* A zeroed 4 KiB block loses the frames it changed, and no other. */
static void test_zero_block(const struct recording *rec)
{
	const struct unit *mid = &rec->units[rec->n_units / 2];
	size_t at[] = { (rec->size / 2) & ~(size_t)4095, mid->off - 2000, mid->off + 40,
			mid->end - 4096 + 30 };
	unsigned char *copy = malloc(rec->size);
	bool *keep = keep_all(rec, true);
	struct outcome o;
	char what[96];

	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		size_t n_lost = 0;

		memcpy(copy, rec->file, rec->size);
		memset(copy + at[i], 0, 4096);
		for (size_t f = 0; f < rec->n_units; f++) {
			const struct unit *u = &rec->units[f];

			keep[f] = !memcmp(copy + u->off, rec->file + u->off, u->end - u->off);
			n_lost += !keep[f];
		}
		snprintf(what, sizeof(what), "4 KiB zeroed at offset %zu (%zu frames changed)",
			 at[i], n_lost);
		read_damaged(what, rec, copy, rec->size, keep, &o);
		CHECK(n_lost >= 1 && o.st.frames == rec->n_units - n_lost && o.st.frames_bad >= 1 &&
			  o.warns.n >= 1,
		      "%s: frames %llu, bad %llu, %u warnings", what,
		      (unsigned long long)o.st.frames, (unsigned long long)o.st.frames_bad,
		      o.warns.n);
	}
	free(keep);
	free(copy);
}

/* One unit around raw frame content, with a valid descriptor, at dst. Returns its size. */
static size_t make_unit(unsigned char *dst, const void *raw, size_t len, uint64_t seq, uint64_t t,
			uint32_t n_records)
{
	struct rp_frame_desc d;
	struct zframe *z = zframe_new(1);
	size_t zn = 0;
	int err = zframe_compress(z, dst + sizeof(d), zframe_bound(len), raw, len, &zn);

	CHECK(err == 0, "zframe_compress of %zu bytes: %d", len, err);
	memset(&d, 0, sizeof(d));
	d.skip_magic = RP_SKIPPABLE_MAGIC;
	d.skip_size = sizeof(d) - 8;
	d.magic = RP_DESC_MAGIC;
	d.major = RP_FORMAT_MAJOR;
	d.minor = RP_FORMAT_MINOR;
	d.seq = seq;
	d.t_lo = d.t_hi = d.t_safe = t;
	d.sample_type = SAMPLE_TYPE;
	d.n_records = n_records;
	d.raw_size = (uint32_t)len;
	d.zsize = (uint32_t)zn;
	d.crc = crc32c(0, &d, offsetof(struct rp_frame_desc, crc));
	memcpy(dst, &d, sizeof(d));
	zframe_free(z);
	return sizeof(d) + zn;
}

/*
 * Valid units with odd content: a record of impossible size inside a frame loses the rest
 * of that frame only; a frame that starts with one gives no record at all; an empty frame
 * gives nothing and does not end the file.
 */
static void test_odd_frames(void)
{
	static const uint16_t bad_sizes[] = { 0, 4, 12, 20000 };
	unsigned char *file = malloc(1 << 16);
	uint64_t raw[256];
	char path[PATH_MAX];

	tmp_path(path, sizeof(path), "odd-frames.rp");
	for (size_t b = 0; b < sizeof(bad_sizes) / sizeof(bad_sizes[0]); b++) {
		for (int first_bad = 0; first_bad < 2; first_bad++) {
			struct perf_event_header *bad;
			const struct perf_event_header *h;
			struct reader *r = NULL;
			struct warns warns = { 0 };
			uint64_t times[8], n_times = 0;
			size_t len = 0, off = 0;
			char why[256];
			int err;

			/* frame 0: [sample T+1] [bad] [sample T+2], or [bad] [sample T+2] */
			memset(raw, 0, sizeof(raw));
			if (!first_bad)
				len += make_sample(raw, 1, 0, T_START + 1, 2);
			bad = (void *)((char *)raw + len);
			bad->type = PERF_RECORD_COMM;
			bad->size = bad_sizes[b];
			len += 8;
			len += make_sample((uint64_t *)((char *)raw + len), 2, 0, T_START + 2, 2);
			off += make_unit(file + off, raw, len, 0, T_START + 2, 3);
			/* frame 1: empty; frame 2: [sample T+3] */
			off += make_unit(file + off, raw, 0, 1, T_START + 3, 0);
			len = make_sample(raw, 3, 0, T_START + 3, 2);
			off += make_unit(file + off, raw, len, 2, T_START + 3, 1);
			if (!write_bytes(path, file, off))
				break;
			err = reader_open(path, &r, why, sizeof(why));
			if (!CHECK(err == 0, "reader_open: %d (%s)", err, why))
				continue;
			reader_set_warn(r, on_warn, &warns);
			CHECK(!reader_header(r), "a header without a header record");
			while ((h = reader_next(r)) && n_times < 8) {
				times[n_times++] = perfrec_time(h, SAMPLE_TYPE);
			}
			CHECK(first_bad ? n_times == 1 && times[0] == T_START + 3
					: n_times == 2 && times[0] == T_START + 1 &&
					      times[1] == T_START + 3,
			      "record of size %u %s: %llu records (%llu, %llu), want %s",
			      bad_sizes[b], first_bad ? "first" : "second",
			      (unsigned long long)n_times,
			      (unsigned long long)(n_times ? times[0] : 0),
			      (unsigned long long)(n_times > 1 ? times[1] : 0),
			      first_bad ? "T+3" : "T+1, T+3");
			CHECK(reader_stats(r)->records_bad == 1 && reader_stats(r)->frames == 3 &&
				  reader_stats(r)->frames_bad == 0 && warns.n == 1 &&
				  warns_say(&warns, "impossible size", "frame 0 "),
			      "record of size %u: records_bad %llu, frames %llu, bad %llu, "
			      "%u warnings: %s",
			      bad_sizes[b], (unsigned long long)reader_stats(r)->records_bad,
			      (unsigned long long)reader_stats(r)->frames,
			      (unsigned long long)reader_stats(r)->frames_bad, warns.n,
			      first_warn(&warns));
			CHECK(reader_sample_type(r) == SAMPLE_TYPE,
			      "sample type from the descriptor: %#llx",
			      (unsigned long long)reader_sample_type(r));
			reader_free(r);
		}
	}
	unlink(path);
	free(file);
}

/* ---- 4. foreign files ---- */

static void expect_open_error(const char *what, const char *path, int want, const char *why_has)
{
	struct reader *r = NULL;
	char why[256] = "";
	int err = reader_open(path, &r, why, sizeof(why));

	CHECK(err == want && why[0] && (!why_has || strstr(why, why_has)),
	      "%s: reader_open %d (%s), want %d (%s) and a reason mentioning \"%s\"", what, err,
	      why, want, strerror(-want), why_has ? why_has : "");
	if (err == 0)
		reader_free(r);
}

static void test_foreign(const struct recording *rec)
{
	char path[PATH_MAX];
	unsigned char buf[16384];
	struct zframe *z = zframe_new(3);
	size_t zn = 0;
	int err;

	tmp_path(path, sizeof(path), "foreign");
	write_bytes(path, "", 0);
	expect_open_error("empty file", path, -ENODATA, NULL);
	expect_open_error("directory", tmpdir, -EISDIR, NULL);
	tmp_path(path, sizeof(path), "no-such-file");
	expect_open_error("missing file", path, -ENOENT, NULL);

	tmp_path(path, sizeof(path), "foreign");
	memset(buf, 0, sizeof(buf));
	memcpy(buf, "PERFILE2", 8);
	write_bytes(path, buf, sizeof(buf));
	expect_open_error("perf.data", path, -EPROTO, "perf.data");

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)('a' + i % 26);
	err = zframe_compress(z, buf + 8192, 8192, buf, 8192, &zn);
	if (CHECK(err == 0, "zframe_compress: %d", err)) {
		write_bytes(path, buf + 8192, zn);
		expect_open_error("plain zstd file", path, -EPROTO, "zstd");
	}
	zframe_free(z);

	for (size_t i = 0; i < sizeof(buf); i += 8) {
		uint64_t v = mix(i);

		memcpy(buf + i, &v, 8);
	}
	write_bytes(path, buf, sizeof(buf));
	expect_open_error("random bytes", path, -EPROTO, "not a ringprof recording");
	write_bytes(path, buf, 5);
	expect_open_error("5 random bytes", path, -EPROTO, NULL);

	/* A descriptor magic without a valid descriptor is not a recording either. */
	memcpy(buf + 100, rec->file, 72);
	buf[100 + 20] ^= 1;
	write_bytes(path, buf, 4096);
	expect_open_error("damaged lone descriptor", path, -EPROTO, NULL);

	/* A newer major version, with a valid CRC. */
	memcpy(buf, rec->file, rec->size < sizeof(buf) ? rec->size : sizeof(buf));
	{
		struct rp_frame_desc d;

		memcpy(&d, buf, sizeof(d));
		d.major = RP_FORMAT_MAJOR + 1;
		d.crc = crc32c(0, &d, offsetof(struct rp_frame_desc, crc));
		memcpy(buf, &d, sizeof(d));
	}
	write_bytes(path, buf, sizeof(buf));
	expect_open_error("a newer major version", path, -EPROTONOSUPPORT, "version 3");
	unlink(path);
}

/*
 * A file whose last bytes begin a descriptor, with no valid descriptor before: reader_open
 * must not read past the end of the file. The file is mapped so that an inaccessible page
 * follows it (mmap places a new mapping in the highest hole that fits), in a child so a
 * fault is a failed check.
 */
static void test_partial_desc_at_end(void)
{
	size_t ps = (size_t)sysconf(_SC_PAGESIZE), size = 16 * ps;
	unsigned char *buf = calloc(1, size);
	static const unsigned char pattern[12] = { 0x5E, 0x2A, 0x4D, 0x18, 0x40, 0,
						   0,	 0,    'R',  'P',  'F',	 'D' };
	char path[PATH_MAX];
	int status = 0;
	pid_t pid;

	tmp_path(path, sizeof(path), "partial-desc");
	memcpy(buf + size - sizeof(pattern) - 8, pattern, sizeof(pattern));
	write_bytes(path, buf, size);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		unsigned char *g =
		    mmap(NULL, size + ps, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct reader *r = NULL;
		char why[256] = "";
		int err;

		if (g != MAP_FAILED)
			munmap(g, size);
		err = reader_open(path, &r, why, sizeof(why));
		_exit(err == -EPROTO && why[0] ? 0 : 3);
	}
	if (CHECK(pid > 0, "fork: %s", strerror(errno)))
		waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "reader_open of a file ending in a partial descriptor: %s %d (3: wrong error; a "
	      "signal: read past the end of the file)",
	      WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "exit",
	      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	unlink(path);
	free(buf);
}

/* ---- 6. write errors ---- */

static void test_write_errors(void)
{
	char path[PATH_MAX + 32];
	struct recording rec = { 0 };
	struct writer *w = NULL;
	struct rlimit old, lim;
	uint64_t buf[512];
	size_t n_before, frame0_records;
	struct outcome o;
	struct stat sb;
	bool keep[2] = { true, true };
	int r, fd;

	snprintf(path, sizeof(path), "%s/no-such-dir/x.rp", tmpdir);
	r = writer_open(path, 0644, 3, &w);
	CHECK(r == -ENOENT, "writer_open in a missing directory: %d", r);

	/* A read-only fd: every write fails, the records are counted as dropped. */
	tmp_path(path, sizeof(path), "read-only.rp");
	write_bytes(path, "", 0);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	r = writer_fdopen(fd, 3, &w);
	if (CHECK(r == 0, "writer_fdopen: %d", r)) {
		const struct writer_stats *ws = writer_stats(w);

		for (uint64_t i = 0; i < 10; i++)
			writer_add(w, buf, make_sample(buf, i, 0, T_START + i, 3));
		r = writer_flush(w);
		CHECK(r == -EBADF && ws->dropped_records == 10 && ws->dropped_frames == 1 &&
			  ws->dropped_bytes == 10 * 80 && ws->last_error == -EBADF &&
			  ws->frames == 0 && writer_pending(w) == 0,
		      "flush to a read-only fd: %d; dropped %llu records %llu bytes %llu frames, "
		      "last_error %d",
		      r, (unsigned long long)ws->dropped_records,
		      (unsigned long long)ws->dropped_bytes, (unsigned long long)ws->dropped_frames,
		      ws->last_error);
		writer_add(w, buf, make_sample(buf, 99, 0, T_START, 3));
		r = writer_close(w);
		CHECK(r == -EBADF, "writer_close with a pending frame on a read-only fd: %d", r);
	}

	/*
	 * A file size limit: the second frame hits it half way. The writer cuts the torn frame
	 * off, counts its records as dropped, and writes the next frame once space is back;
	 * the reader then finds frames 0 and 2 and no damage.
	 */
	tmp_path(rec.path, sizeof(rec.path), "fsize.rp");
	r = writer_open(rec.path, 0644, 1, &w);
	if (!CHECK(r == 0, "writer_open: %d", r))
		return;
	writer_set_clock(w, fake_clock);
	fake_now = T_START;
	writer_set_safe_time(w, T_START);
	put(w, &rec, buf, make_header(buf, T_START), T_START);
	for (uint64_t i = 0; i < 50; i++)
		put(w, &rec, buf, make_sample(buf, i, 0, T_START + i, 20), T_START + i);
	fake_now = T_START + 100;
	r = writer_flush(w);
	CHECK(r == 0, "first flush: %d", r);
	frame0_records = rec.n;
	n_before = writer_stats(w)->file_bytes;
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = n_before + 100;
	if (CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0, "setrlimit: %s", strerror(errno))) {
		const struct writer_stats *ws = writer_stats(w);

		for (uint64_t i = 0; i < 50; i++)
			writer_add(w, buf, make_sample(buf, mix(i), 1, T_START + 100 + i, 20));
		r = writer_flush(w);
		CHECK(r == -EFBIG && ws->dropped_records == 50 && ws->dropped_frames == 1 &&
			  ws->last_error == -EFBIG && ws->frames == 1 && ws->file_bytes == n_before,
		      "flush beyond the file size limit: %d; dropped %llu records %llu frames, "
		      "last_error %d, %llu frames",
		      r, (unsigned long long)ws->dropped_records,
		      (unsigned long long)ws->dropped_frames, ws->last_error,
		      (unsigned long long)ws->frames);
		CHECK(stat(rec.path, &sb) == 0 && (size_t)sb.st_size == n_before,
		      "the torn frame is not cut off: file has %lld bytes, want %zu",
		      (long long)sb.st_size, n_before);
		setrlimit(RLIMIT_FSIZE, &old);
		for (uint64_t i = 0; i < 50; i++)
			put(w, &rec, buf, make_sample(buf, i + 1000, 2, T_START + 200 + i, 20),
			    T_START + 200 + i);
		fake_now = T_START + 300;
		r = writer_flush(w);
		CHECK(r == 0 && ws->last_error == 0 && ws->frames == 2 && ws->dropped_records == 50,
		      "flush after the limit is lifted: %d, last_error %d, %llu frames", r,
		      ws->last_error, (unsigned long long)ws->frames);
	}
	r = writer_close(w);
	CHECK(r == 0, "writer_close: %d", r);
	signal(SIGXFSZ, SIG_DFL);
	layout_scan(&rec);
	if (CHECK(rec.n_units == 2 && rec.units[0].d.n_records == frame0_records,
		  "%zu frames after a failed write", rec.n_units)) {
		read_expect("after a failed write", &rec, rec.path, keep, false, &o);
		check_clean("after a failed write", &o, 2);
	}
	unlink(rec.path);
	unlink(path);
	recording_free(&rec);
}

/* format_image: the record's own lengths bound everything it hands out. */
static void test_image(void)
{
	union {
		struct rp_image_rec r;
		unsigned char b[sizeof(struct rp_image_rec) + 64];
	} u;
	const unsigned char *img;
	const char *name;
	size_t len;

	test_ctx = "image record";
	memset(&u, 0, sizeof(u));
	u.r.hdr.type = RP_REC_IMAGE;
	u.r.hdr.size = sizeof(u);
	strcpy(u.r.name, "[vdso]");
	u.r.len = 60;
	memcpy(u.b + sizeof(u.r), "\177ELF", 4);
	if (CHECK_INT(format_image(&u.r.hdr, &name, &img, &len), 0)) {
		CHECK(!strcmp(name, "[vdso]") && len == 60 && !memcmp(img, "\177ELF", 4));
		CHECK(img == u.b + sizeof(u.r), "the image follows the fixed part");
	}
	u.r.len = 65;
	CHECK_INT(format_image(&u.r.hdr, &name, &img, &len), -EINVAL);
	u.r.len = 60;
	memset(u.r.name, 'x', sizeof(u.r.name));
	CHECK_INT(format_image(&u.r.hdr, &name, &img, &len), -EINVAL);
	strcpy(u.r.name, "[vdso]");
	u.r.hdr.size = sizeof(u.r) - 8;
	CHECK_INT(format_image(&u.r.hdr, &name, &img, &len), -EINVAL);
	u.r.hdr.size = sizeof(u);
	u.r.hdr.type = RP_REC_KSYMS;
	CHECK_INT(format_image(&u.r.hdr, &name, &img, &len), -EINVAL);
}

int main(void)
{
	struct recording rec = { 0 };
	double t0 = now();

	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(tmpdir, sizeof(tmpdir), "%s/test-format.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir)) {
		fprintf(stderr, "test-format: mkdtemp %s: %s\n", tmpdir, strerror(errno));
		return 1;
	}

	test_round_trip();
	test_image();
	test_header_only();
	test_head_only();
	test_full_frames();

	write_recording(&medium, &rec, "medium.rp");
	printf("test-format: damage tests on %zu records in %zu frames, %zu bytes\n", rec.n,
	       rec.n_units, rec.size);
	if (CHECK(rec.n_units >= 8, "the medium recording has %zu frames", rec.n_units)) {
		zstd_test(rec.path, true);
		test_truncation(&rec);
		test_shrink(&rec);
		test_corruption(&rec);
		test_garbage(&rec);
		test_duplicate(&rec);
		test_zero_block(&rec);
		test_foreign(&rec);
	}
	unlink(rec.path);
	recording_free(&rec);
	test_odd_frames();
	test_partial_desc_at_end();
	test_write_errors();

	nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	printf("test-format: %.2f s\n", now() - t0);
	return check_done("test-format");
}
