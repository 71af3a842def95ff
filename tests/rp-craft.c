/* rp-craft.c — writes small synthetic recordings, intact or with one absurd length or count,
 * for tests/report-absurd.sh.
 *
 * Usage: rp-craft CASE FILE      (rp-craft --list prints the cases)
 *
 * The intact recording ("good") has four frames:
 *   frame 0  HEADER (2 CPUs, system-wide, callchains), KSYMS (3 symbols), COMM of pid 4242
 *            ("absurd"), MMAP2 of /nonexistent/libabsurd.so for it
 *   frame 1  SAMPLES_PER_FRAME samples, CPU 0 and 1 alternating: kernel ones in rp_kfunc_a
 *            called from rp_kfunc_b, and the last a user one in libabsurd.so
 *   frame 2  SAMPLES_PER_FRAME more, the same way
 *   frame 3  CPU_STATS for CPUs 0 and 1, FINISH
 * Two more cases are intact but name-related, for tests/report-names.sh: "unmapped" puts the
 * user samples at an address no MMAP2 covers, "unmapped-lost" also reports 7 lost samples.
 * "expand" (tests/report-expand.sh) is format 2 whose packed samples would take gigabytes once
 * rebuilt with their callchains: frame 1 defines stack 0, 8000 words (rp_kfunc_b called
 * from rp_kfunc_a 7997 times), and stack 1 (rp_kfunc_a called from rp_kfunc_b), then holds
 * EXPAND_DEEP samples of stack 0 on CPU 0, one a millisecond, two bytes each, and
 * EXPAND_SHORT of stack 1 on CPU 1 among them; frame 2 is CPU_STATS and FINISH.
 * "late-buildid" (tests/report-late-buildid.sh) maps the file $RP_CRAFT_LIB twice into pid
 * 4242, as two inodes ($RP_CRAFT_INO1, $RP_CRAFT_INO2 on $RP_CRAFT_MAJ:$RP_CRAFT_MIN, one
 * binary reinstalled while recording): frame 1 the first mapping and 10 user samples at file
 * offset $RP_CRAFT_OFF (hex) in it, frame 2 the second and 10 more there, frame 3 the
 * RP_REC_BUILDID of each inode ($RP_CRAFT_BID, hex), after their samples, as the recorder
 * writes them once its helper has read them.
 *
 * "hour" (tests/report-html-spike.sh) takes a directory instead of a file and writes into it an
 * hour of a continuous profiler's data as ringprofd names it: 12 recordings of 5 minutes
 * (ringprof-YYYYmmddTHHMMSSZ-NNNN.data), kernel samples of 1 ms of cpu-clock on 2 CPUs of the
 * commands "server" (CPU 0) and "batch" (CPU 1), 10 a second on each, spread as
 * rp_idle 50 %, rp_parse 30 % and rp_compress 20 % (and 1 in 200 of server's in rp_rare: a
 * frame too narrow to be more than a sliver); and in the minute
 * from 30:00 to 31:00 a spike: 100 samples a second on each CPU, all of "server", 9 in 10 in
 * rp_spike_hot. It prints "spike SINCE UNTIL" (the minute, wall-clock ns since the epoch).
 * Every descriptor carries a correct CRC-32C, also where a case makes one of its fields absurd:
 * the reader must not be able to dismiss the damage as a bad checksum.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/perf_event.h>

#include "base/crc32c.h"
#include "format/compact.h"
#include "format/format.h"
#include "format/zframe.h"

/* Format version 1: samples are plain PERF_RECORD_SAMPLEs, which every reader since reads. */
#define CRAFT_MAJOR 1
static uint16_t craft_major = CRAFT_MAJOR; /* 2 for "expand" */
#define EXPAND_DEEP 600000u
#define EXPAND_SHORT 10u
#define EXPAND_WORDS RP_STACK_MAX_WORDS
#define SAMPLES_PER_FRAME 10
#define T0 1000000000000ull /* CLOCK_MONOTONIC ns of the fake recording host: 1000 s */
#define MS 1000000ull
#define PID 4242
#define SAMPLE_TYPE                                                                                \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |                   \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
#define ID_SIZE 24 /* sample_id trailer for SAMPLE_TYPE: pid/tid, time, cpu/res */
#define KFUNC_A 0xffffffff81001000ull
#define KFUNC_B 0xffffffff81002000ull
#define KFUNC_C 0xffffffff81003000ull
#define LIB_START 0x7f0000000000ull
#define NOWHERE 0x500000000000ull /* mapped by no MMAP2 */

static const char *const cases[] = {
	"good",		   /* nothing absurd */
	"desc-raw-huge",   /* frame 1: raw_size 0xffffffff */
	"desc-raw-max",	   /* frame 1: raw_size RP_FRAME_RAW_MAX (64 MiB), the content is 1 KiB */
	"desc-raw-small",  /* frame 1: raw_size 64, less than the content */
	"desc-zsize-huge", /* frame 1: zsize 0xffffffff */
	"desc-zsize-past-eof", /* frame 1: zsize RP_FRAME_Z_MAX, past the end of the file */
	"desc-zsize-small",    /* frame 1: zsize 16, less than the zstd frame */
	"desc-nrec-huge",      /* frame 1: n_records 0xffffffff (the frame itself is intact) */
	"only-frame-raw-huge", /* a file of frame 0 only, whose raw_size is 0xffffffff */
	"chain-huge",	       /* frame 1, sample 3: callchain nr 2^40 */
	"chain-over",	       /* frame 1, sample 3: callchain nr one more than the record holds */
	"ksyms-huge",	       /* frame 0: KSYMS n 0xffffffff with 3 entries present */
	"mmap-unterminated",   /* frame 0: MMAP2 filename without its NUL up to the trailer */
	"rec-size-zero",       /* frame 1: a record of size 0 after sample 5 */
	"rec-size-over",       /* frame 1: a record claiming 65528 bytes after sample 5 */
	"header-ncpus",	       /* frame 0: header n_cpus_online and n_cpus_recorded 0xffffffff */
	"cpu-stats-huge",      /* frame 3: CPU_STATS with cpu 0xffffffff and counts near 2^64 */
	"unmapped",	       /* user samples in no mapping (not absurd: report-names.sh) */
	"unmapped-lost",       /* the same, and CPU 1 lost 7 samples */
	"offcpu",	       /* switch-outs and switch-ins, EXIT, LOST (test-offcpu.sh) */
	"expand",	       /* format 2: 600 000 packed samples of an 8000-word stack */
	"late-buildid",	       /* one binary in two inodes, build-ids after samples */
	"hour",		       /* a directory: an hour of ringprofd files, a spike (see above) */
	NULL,
};

struct buf {
	unsigned char *p;
	size_t len, cap;
};

static void die(const char *msg)
{
	fprintf(stderr, "rp-craft: %s\n", msg);
	exit(2);
}

static void *reserve(struct buf *b, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap < b->len + n)
			cap *= 2;
		b->p = realloc(b->p, cap);
		if (!b->p)
			die("out of memory");
		b->cap = cap;
	}
	memset(b->p + b->len, 0, n);
	b->len += n;
	return b->p + b->len - n;
}

static void put(struct buf *b, const void *p, size_t n)
{
	memcpy(reserve(b, n), p, n);
}

static void put64(struct buf *b, uint64_t v)
{
	put(b, &v, 8);
}

static void put32x2(struct buf *b, uint32_t lo, uint32_t hi)
{
	put64(b, (uint64_t)hi << 32 | lo);
}

/* Start a record; finish_rec pads it to 8 and writes its size. */
static size_t start_rec(struct buf *b, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = 0 };
	size_t at = b->len;

	put(b, &h, sizeof(h));
	return at;
}

static void finish_rec(struct buf *b, size_t at)
{
	struct perf_event_header h;

	reserve(b, (8 - (b->len - at) % 8) % 8);
	memcpy(&h, b->p + at, sizeof(h));
	h.size = (uint16_t)(b->len - at);
	memcpy(b->p + at, &h, sizeof(h));
}

static void put_trailer(struct buf *b, uint32_t pid, uint64_t time, uint32_t cpu)
{
	put32x2(b, pid, pid);
	put64(b, time);
	put32x2(b, cpu, 0);
}

static bool offcpu_case; /* "offcpu": the event is sched:sched_switch */

static void header_rec(struct buf *b, bool absurd_cpus)
{
	static const char cmd[] = "rp-craft good";
	size_t size = (sizeof(struct rp_header_rec) + sizeof(cmd) + 7) / 8 * 8;
	struct rp_header_rec *h = reserve(b, size);

	h->hdr.type = RP_REC_HEADER;
	h->hdr.size = (uint16_t)size;
	h->time = T0;
	memcpy(h->magic, RP_HEADER_MAGIC, 8);
	h->major = craft_major;
	h->minor = 0;
	h->flags =
	    RP_HDR_SYSTEM_WIDE | RP_HDR_KERNEL | RP_HDR_CALLCHAIN | RP_HDR_KSYMS | RP_HDR_FREQ;
	h->realtime_offset = 1700000000000000000ll - (int64_t)T0;
	h->clockid = 1; /* CLOCK_MONOTONIC */
	h->n_cpus_online = absurd_cpus ? UINT32_MAX : 2;
	h->n_cpus_recorded = absurd_cpus ? UINT32_MAX : 2;
	h->page_size = 4096;
	h->sample_type = SAMPLE_TYPE;
	h->freq_requested = h->freq = 1000;
	h->event_type = PERF_TYPE_SOFTWARE;
	h->event_config = PERF_COUNT_SW_CPU_CLOCK;
	strcpy(h->event_name, "cpu-clock");
	if (offcpu_case) {
		h->flags &= ~RP_HDR_FREQ;
		h->freq_requested = h->freq = 0;
		h->period = 1;
		h->event_type = PERF_TYPE_TRACEPOINT;
		h->event_config = 372;
		strcpy(h->event_name, "sched:sched_switch");
	}
	strcpy(h->hostname, "crafted");
	strcpy(h->release, "6.0.0-crafted");
	strcpy(h->arch, "x86_64");
	strcpy(h->boot_id, "00000000-0000-0000-0000-000000000000");
	memcpy(h + 1, cmd, sizeof(cmd));
}

static void ksym(struct buf *b, uint64_t addr, const char *name)
{
	put(b, &addr, 8);
	put(b, "T", 1);
	put(b, name, strlen(name) + 1);
	put(b, "", 1); /* core kernel: no module */
}

static void ksyms_rec(struct buf *b, uint32_t n_claimed)
{
	size_t at = b->len;
	struct rp_ksyms_rec k = { .hdr = { .type = RP_REC_KSYMS }, .time = T0, .n = n_claimed };

	put(b, &k, sizeof(k));
	ksym(b, KFUNC_A, "rp_kfunc_a");
	ksym(b, KFUNC_B, "rp_kfunc_b");
	ksym(b, KFUNC_C, "rp_kfunc_end");
	finish_rec(b, at);
}

static void comm_rec(struct buf *b)
{
	size_t at = start_rec(b, PERF_RECORD_COMM, 0);
	char comm[16] = "absurd";

	put32x2(b, PID, PID);
	put(b, comm, sizeof(comm));
	put_trailer(b, PID, T0, RP_CPU_SYNTH);
	finish_rec(b, at);
}

/* An MMAP2 of PATH (file offset 0 at START, 64 KiB) in pid PID, inode INO on MAJ:MIN. */
struct mapping {
	const char *path;
	uint64_t start;
	uint32_t maj, min;
	uint64_t ino;
};

static void mmap2_of(struct buf *b, const struct mapping *m, bool unterminated)
{
	size_t at = start_rec(b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	size_t name_at;

	put32x2(b, PID, PID);
	put64(b, m->start);
	put64(b, 0x10000);
	put64(b, 0);
	put32x2(b, m->maj, m->min);
	put64(b, m->ino);
	put64(b, 0); /* ino_generation */
	put32x2(b, 5 /* PROT_READ | PROT_EXEC */, 2 /* MAP_PRIVATE */);
	name_at = b->len;
	put(b, m->path, strlen(m->path) + 1);
	reserve(b, (8 - (b->len - at) % 8) % 8);
	if (unterminated)
		memset(b->p + name_at, 'x', b->len - name_at); /* no NUL before the trailer */
	put_trailer(b, PID, T0, RP_CPU_SYNTH);
	finish_rec(b, at);
}

static void mmap2_rec(struct buf *b, bool unterminated)
{
	const struct mapping m = { "/nonexistent/libabsurd.so", LIB_START, 8, 1, 123456 };

	mmap2_of(b, &m, unterminated);
}

/* A kernel sample in rp_kfunc_a called from rp_kfunc_b, or (user) one in libabsurd.so. */
static uint64_t user_base = LIB_START; /* NOWHERE for the unmapped cases */
static uint64_t user_off = 0x1230;     /* the user samples' file offset */

static void sample_rec(struct buf *b, uint64_t t, uint32_t cpu, uint64_t nr_claimed, bool use_claim,
		       bool user)
{
	size_t at = start_rec(b, PERF_RECORD_SAMPLE,
			      user ? PERF_RECORD_MISC_USER : PERF_RECORD_MISC_KERNEL);
	const uint64_t kchain[] = { (uint64_t)PERF_CONTEXT_KERNEL, KFUNC_A + 0x10, KFUNC_B + 0x20 };
	const uint64_t uchain[] = { (uint64_t)PERF_CONTEXT_USER, user_base + user_off,
				    user_base + user_off + 0x1110 };
	const uint64_t *chain = user ? uchain : kchain;

	put64(b, chain[1]);
	put32x2(b, PID, PID);
	put64(b, t);
	put32x2(b, cpu, 0);
	put64(b, 1000000); /* period: 1 ms of cpu-clock */
	put64(b, use_claim ? nr_claimed : 3);
	put(b, chain, sizeof(kchain));
	finish_rec(b, at);
}

static void cpu_stats_rec(struct buf *b, uint32_t cpu, uint64_t t, bool absurd, uint64_t lost)
{
	struct rp_cpu_stats_rec s = {
		.hdr = { .type = RP_REC_CPU_STATS, .size = sizeof(s) },
		.time = t,
		.cpu = absurd ? UINT32_MAX : cpu,
		.samples = absurd ? UINT64_MAX : SAMPLES_PER_FRAME,
		.lost = absurd ? UINT64_MAX - 1 : 0,
		.lost_unreported = absurd ? UINT64_MAX - 2 : lost,
		.throttles = absurd ? UINT64_MAX : 0,
	};

	put(b, &s, sizeof(s));
}

static void finish_rec_rec(struct buf *b, uint64_t t)
{
	struct rp_finish_rec f = {
		.hdr = { .type = RP_REC_FINISH, .size = sizeof(f) },
		.time = t,
		.samples = 2 * SAMPLES_PER_FRAME,
		.exit_status = -1,
	};

	put(b, &f, sizeof(f));
}

/* ---- "offcpu": one process, PID, whose threads switch out and in (times in ms after T0) ---- */

static void trailer_tid(struct buf *b, uint32_t tid, uint64_t ms, uint32_t cpu)
{
	put32x2(b, PID, tid);
	put64(b, T0 + ms * MS);
	put32x2(b, cpu, 0);
}

/* TID switches out at MS: its sched:sched_switch sample (in rp_kfunc_a called from rp_kfunc_b)
 * and its SWITCH record. */
static void switch_out(struct buf *b, uint32_t tid, uint64_t ms)
{
	const uint64_t chain[] = { (uint64_t)PERF_CONTEXT_KERNEL, KFUNC_A + 0x10, KFUNC_B + 0x20 };
	size_t at = start_rec(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);

	put64(b, chain[1]);
	put32x2(b, PID, tid);
	put64(b, T0 + ms * MS);
	put32x2(b, 0, 0);
	put64(b, 1);
	put64(b, 3);
	put(b, chain, sizeof(chain));
	finish_rec(b, at);
	at = start_rec(b, PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT);
	trailer_tid(b, tid, ms, 0);
	finish_rec(b, at);
}

static void switch_in(struct buf *b, uint32_t tid, uint64_t ms)
{
	size_t at = start_rec(b, PERF_RECORD_SWITCH, 0);

	trailer_tid(b, tid, ms, 0);
	finish_rec(b, at);
}

/* A FORK or EXIT of thread TID at MS. */
static void task_rec(struct buf *b, uint32_t type, uint32_t tid, uint64_t ms)
{
	size_t at = start_rec(b, type, 0);

	put32x2(b, PID, PID);
	put32x2(b, tid, PID);
	put64(b, T0 + ms * MS);
	trailer_tid(b, tid, ms, 0);
	finish_rec(b, at);
}

static void lost_rec(struct buf *b, uint64_t lost, uint64_t ms)
{
	size_t at = start_rec(b, PERF_RECORD_LOST, 0);

	put64(b, 1);
	put64(b, lost);
	trailer_tid(b, PID, ms, 0);
	finish_rec(b, at);
}

/*
 * The expected report (--off-cpu, by tid): 4243 waits 2 ms across one lost record (one record
 * cannot hide a switch-in and the next switch-out); the 5 lost at 18 drop the intervals open
 * then, 4242's first (20 ms), 4243's second (4 ms) and 4244's (23 ms): 3 intervals, 47 ms, said;
 * 4242 waits 10 ms more from 80; 4245 waits 1 ms, exits at 50 and its last switch-out at 51 is
 * no off-CPU time; the switch-out of a dead task (tid -1) neither; 4246 is still off at the end
 * (90): 20 ms clipped. 33 ms in all, after 7 switch-outs.
 */
#define OFFCPU_RECORDS 33 /* written by offcpu_records() */

static void offcpu_records(struct buf *b)
{
	for (uint32_t tid = 4243; tid <= 4246; tid++)
		task_rec(b, PERF_RECORD_FORK, tid, 1);
	switch_out(b, PID, 10);
	switch_out(b, 4243, 12);
	lost_rec(b, 1, 13);
	switch_in(b, 4243, 14);
	switch_out(b, 4243, 16);
	switch_out(b, 4244, 17);
	lost_rec(b, 5, 18);
	switch_in(b, 4243, 20);
	switch_out(b, 4245, 21);
	switch_in(b, 4245, 22);
	switch_in(b, PID, 30);
	switch_in(b, 4244, 40);
	task_rec(b, PERF_RECORD_EXIT, 4245, 50);
	switch_out(b, 4245, 51);
	switch_out(b, UINT32_MAX, 60);
	switch_out(b, 4246, 70);
	switch_out(b, PID, 80);
	switch_in(b, PID, 90);
}

/* Append desc + zstd frame of raw to out; mutate lets a case change the descriptor. */
static void emit_frame(struct buf *out, struct zframe *z, const struct buf *raw, uint64_t seq,
		       uint64_t t_lo, uint64_t t_hi, uint32_t n_records, const char *kase)
{
	struct rp_frame_desc d = {
		.skip_magic = RP_SKIPPABLE_MAGIC,
		.skip_size = sizeof(d) - 8,
		.magic = RP_DESC_MAGIC,
		.major = craft_major,
		.minor = 0,
		.seq = seq,
		.t_lo = t_lo,
		.t_hi = t_hi,
		.t_safe = t_hi,
		.sample_type = SAMPLE_TYPE,
		.n_records = n_records,
		.raw_size = (uint32_t)raw->len,
	};
	size_t cap = zframe_bound(raw->len), zsize;
	unsigned char *zbuf = malloc(cap);

	if (!zbuf || zframe_compress(z, zbuf, cap, raw->p, raw->len, &zsize) < 0)
		die("cannot compress a frame");
	d.zsize = (uint32_t)zsize;
	if (seq == 1 || !strcmp(kase, "only-frame-raw-huge")) {
		if (!strcmp(kase, "desc-raw-huge") || !strcmp(kase, "only-frame-raw-huge"))
			d.raw_size = UINT32_MAX;
		else if (!strcmp(kase, "desc-raw-max"))
			d.raw_size = RP_FRAME_RAW_MAX;
		else if (!strcmp(kase, "desc-raw-small"))
			d.raw_size = 64;
		else if (!strcmp(kase, "desc-zsize-huge"))
			d.zsize = UINT32_MAX;
		else if (!strcmp(kase, "desc-zsize-past-eof"))
			d.zsize = RP_FRAME_Z_MAX;
		else if (!strcmp(kase, "desc-zsize-small"))
			d.zsize = 16;
		else if (!strcmp(kase, "desc-nrec-huge"))
			d.n_records = UINT32_MAX;
	}
	d.crc = crc32c(0, &d, offsetof(struct rp_frame_desc, crc));
	put(out, &d, sizeof(d));
	put(out, zbuf, zsize);
	free(zbuf);
}

/* "expand": the stack definitions and the packed samples (see the header comment). */
static uint32_t expand_records; /* records expand_frame wrote */

static void expand_frame(struct buf *raw)
{
	static struct kbatch kb;
	static struct sbatch sb[2];
	static uint64_t deep[EXPAND_WORDS];
	const uint64_t shallow[] = { (uint64_t)PERF_CONTEXT_KERNEL, KFUNC_A + 0x10, KFUNC_B + 0x20 };
	uint32_t every = EXPAND_DEEP / EXPAND_SHORT;
	const struct perf_event_header *h;

	deep[0] = (uint64_t)PERF_CONTEXT_KERNEL;
	deep[1] = KFUNC_B + 0x20;
	for (size_t i = 2; i < EXPAND_WORDS; i++)
		deep[i] = KFUNC_A + 0x10;
	if (!kbatch_add(&kb, 0, PERF_RECORD_MISC_KERNEL, deep[1], deep, EXPAND_WORDS))
		die("stack 0 does not fit a batch");
	h = kbatch_finish(&kb);
	put(raw, h, h->size);
	expand_records++;
	if (!kbatch_add(&kb, 1, PERF_RECORD_MISC_KERNEL, shallow[1], shallow, 3))
		die("stack 1 does not fit a batch");
	h = kbatch_finish(&kb);
	put(raw, h, h->size);
	expand_records++;
	for (uint32_t i = 0; i < EXPAND_DEEP; i++) {
		uint64_t t = T0 + (uint64_t)(i + 1) * MS;
		uint32_t cpu = i % every == every / 2 ? 1 : 0;
		struct sbatch *b = &sb[cpu];

		if (!sbatch_add(b, cpu, t, PID, PID, MS, cpu)) {
			h = sbatch_finish(b);
			put(raw, h, h->size);
			expand_records++;
			sbatch_add(b, cpu, t, PID, PID, MS, cpu);
		}
	}
	for (int c = 0; c < 2; c++) {
		h = sbatch_finish(&sb[c]);
		if (h)
			put(raw, h, h->size);
		expand_records++;
	}
}

/* "expand": its three frames (CPU_STATS and FINISH count its samples). */
static void expand_file(struct buf *out, struct zframe *z, struct buf *raw)
{
	uint64_t t_end = T0 + (uint64_t)(EXPAND_DEEP + 1) * MS;
	struct rp_cpu_stats_rec cs = { .hdr = { .type = RP_REC_CPU_STATS, .size = sizeof(cs) },
				       .time = t_end };
	struct rp_finish_rec f = { .hdr = { .type = RP_REC_FINISH, .size = sizeof(f) },
				   .time = t_end,
				   .samples = EXPAND_DEEP,
				   .exit_status = -1 };

	raw->len = 0;
	expand_frame(raw);
	emit_frame(out, z, raw, 1, T0 + MS, t_end - MS, expand_records, "expand");
	raw->len = 0;
	for (uint32_t c = 0; c < 2; c++) {
		cs.cpu = c;
		cs.samples = c ? EXPAND_SHORT : EXPAND_DEEP - EXPAND_SHORT;
		put(raw, &cs, sizeof(cs));
	}
	put(raw, &f, sizeof(f));
	emit_frame(out, z, raw, 2, t_end, t_end, 3, "expand");
}

static void samples_frame(struct buf *raw, int frame, const char *kase)
{
	for (int i = 0; i < SAMPLES_PER_FRAME; i++) {
		uint64_t t = T0 + (uint64_t)(frame * SAMPLES_PER_FRAME + i + 1) * MS;
		bool bad = frame == 1 && i == 3;

		bool user = i == SAMPLES_PER_FRAME - 1;

		if (bad && !strcmp(kase, "chain-huge"))
			sample_rec(raw, t, (uint32_t)(i % 2), 1ull << 40, true, user);
		else if (bad && !strcmp(kase, "chain-over"))
			sample_rec(raw, t, (uint32_t)(i % 2), 4, true, user);
		else
			sample_rec(raw, t, (uint32_t)(i % 2), 0, false, user);
		if (frame == 1 && i == 5 &&
		    (!strcmp(kase, "rec-size-zero") || !strcmp(kase, "rec-size-over"))) {
			struct perf_event_header h = { .type = PERF_RECORD_SAMPLE,
						       .misc = 0,
						       .size = !strcmp(kase, "rec-size-zero")
								   ? 0
								   : 65528 };

			put(raw, &h, sizeof(h));
			put64(raw, 0); /* 16 bytes of junk where a record should be */
		}
	}
}

static uint64_t env_u64(const char *name, int base)
{
	const char *v = getenv(name);
	char *end;
	uint64_t x;

	if (!v || !*v)
		die("late-buildid needs RP_CRAFT_LIB, _MAJ, _MIN, _INO1, _INO2, _OFF and _BID");
	x = strtoull(v, &end, base);
	if (*end)
		die("a bad number in an RP_CRAFT_ variable");
	return x;
}

static void buildid_rec(struct buf *b, const struct mapping *m, const uint8_t *id, size_t len,
			uint64_t t)
{
	struct rp_buildid_rec r = { .hdr = { .type = RP_REC_BUILDID, .size = sizeof(r) } };

	r.time = t;
	r.maj = m->maj;
	r.min = m->min;
	r.ino = m->ino;
	r.len = (uint8_t)len;
	memcpy(r.build_id, id, len);
	put(b, &r, sizeof(r));
}

/* "late-buildid" (see the header comment): four frames into OUT. */
static void late_buildid_file(struct buf *out, struct zframe *z, struct buf *raw)
{
	struct mapping m[2];
	const char *hex = getenv("RP_CRAFT_BID");
	uint8_t id[20];
	size_t len = 0;

	m[0] =
	    (struct mapping){ getenv("RP_CRAFT_LIB"), LIB_START,
			      (uint32_t)env_u64("RP_CRAFT_MAJ", 10),
			      (uint32_t)env_u64("RP_CRAFT_MIN", 10), env_u64("RP_CRAFT_INO1", 10) };
	m[1] = m[0];
	m[1].start = LIB_START + 0x100000;
	m[1].ino = env_u64("RP_CRAFT_INO2", 10);
	user_off = env_u64("RP_CRAFT_OFF", 16);
	for (; hex && len < sizeof(id) && sscanf(hex + 2 * len, "%2hhx", &id[len]) == 1; len++)
		;
	if (!m[0].path || !len)
		die("late-buildid needs RP_CRAFT_LIB and RP_CRAFT_BID");
	header_rec(raw, false);
	comm_rec(raw);
	emit_frame(out, z, raw, 0, T0, T0, 2, "late-buildid");
	for (int fr = 1; fr <= 2; fr++) {
		raw->len = 0;
		user_base = m[fr - 1].start;
		mmap2_of(raw, &m[fr - 1], false);
		for (int i = 0; i < SAMPLES_PER_FRAME; i++)
			sample_rec(raw, T0 + (uint64_t)(fr * SAMPLES_PER_FRAME + i) * MS,
				   (uint32_t)(i % 2), 0, false, true);
		emit_frame(out, z, raw, (uint64_t)fr, T0 + (uint64_t)fr * SAMPLES_PER_FRAME * MS,
			   T0 + (uint64_t)(fr * SAMPLES_PER_FRAME + SAMPLES_PER_FRAME) * MS,
			   SAMPLES_PER_FRAME + 1, "late-buildid");
	}
	raw->len = 0;
	buildid_rec(raw, &m[0], id, len, T0 + 90 * MS);
	buildid_rec(raw, &m[1], id, len, T0 + 90 * MS);
	cpu_stats_rec(raw, 0, T0 + 100 * MS, false, 0);
	cpu_stats_rec(raw, 1, T0 + 100 * MS, false, 0);
	finish_rec_rec(raw, T0 + 100 * MS);
	emit_frame(out, z, raw, 3, T0 + 90 * MS, T0 + 100 * MS, 5, "late-buildid");
}

/* ---- "hour": an hour of ringprofd's recordings with a spike in the middle ---- */

#define HOUR_FILES 12
#define HOUR_FILE_S 300ull /* seconds per file */
#define HOUR_FRAME_S 30ull /* seconds per frame */
#define HOUR_SPIKE_S 1800ull
#define HOUR_SPIKE_LEN_S 60ull
#define SEC 1000000000ull
#define HOUR_KBASE 0xffffffff81010000ull

/* Kernel functions, 4 KiB apart from HOUR_KBASE; the last only bounds the others. */
enum { H_MAIN, H_HANDLE, H_PARSE, H_COMPRESS, H_IDLE, H_SPIKE, H_RARE, H_END };
static const char *const hour_syms[] = { "rp_main", "rp_handle",    "rp_parse", "rp_compress",
					 "rp_idle", "rp_spike_hot", "rp_rare",	"rp_hour_end" };
static const uint32_t hour_pids[2] = { 5001, 5002 };
static const char *const hour_comms[2] = { "server", "batch" };

static void hour_comm(struct buf *b, uint64_t t, int i)
{
	size_t at = start_rec(b, PERF_RECORD_COMM, 0);
	char comm[16] = { 0 };

	strcpy(comm, hour_comms[i]);
	put32x2(b, hour_pids[i], hour_pids[i]);
	put(b, comm, sizeof(comm));
	put_trailer(b, hour_pids[i], t, RP_CPU_SYNTH);
	finish_rec(b, at);
}

/* A sample of 1 ms of cpu-clock at T on CPU by command I, its leaf LEAF (under rp_main, and
 * rp_handle but for rp_idle). */
static void hour_sample(struct buf *b, uint64_t t, uint32_t cpu, int i, int leaf)
{
	size_t at = start_rec(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
	uint64_t chain[4] = { (uint64_t)PERF_CONTEXT_KERNEL, HOUR_KBASE + 0x1000ull * leaf + 0x10 };
	uint64_t nr = 2;

	if (leaf != H_IDLE)
		chain[nr++] = HOUR_KBASE + 0x1000ull * H_HANDLE + 0x20;
	chain[nr++] = HOUR_KBASE + 0x1000ull * H_MAIN + 0x30;
	put64(b, chain[1]);
	put32x2(b, hour_pids[i], hour_pids[i]);
	put64(b, t);
	put32x2(b, cpu, 0);
	put64(b, MS);
	put64(b, nr);
	put(b, chain, nr * 8);
	finish_rec(b, at);
}

/* The leaf of the background's Kth sample: rp_idle 5 in 10, rp_parse 3, rp_compress 2. */
static int hour_leaf(uint64_t k)
{
	static const int mix[10] = { H_IDLE, H_PARSE, H_IDLE,	  H_COMPRESS, H_PARSE,
				     H_IDLE, H_IDLE,  H_COMPRESS, H_IDLE,     H_PARSE };

	return mix[k % 10];
}

/* Second S's samples of CPU (S from the start of the hour, T0 then), appended to B; their
 * number. */
static uint32_t hour_second(struct buf *b, uint64_t s, uint32_t cpu)
{
	bool spike = s >= HOUR_SPIKE_S && s < HOUR_SPIKE_S + HOUR_SPIKE_LEN_S;
	uint32_t n = spike ? 100 : 10;

	for (uint32_t j = 0; j < n; j++) {
		uint64_t t = T0 + s * SEC + j * (SEC / n) + cpu * (SEC / n / 2) + 1000,
			 k = s * n + j;

		if (spike)
			hour_sample(b, t, cpu, 0, k % 10 == 3 ? hour_leaf(k / 10) : H_SPIKE);
		else
			hour_sample(b, t, cpu, (int)cpu,
				    cpu == 0 && k % 200 == 199 ? H_RARE : hour_leaf(k + cpu * 3));
	}
	return n;
}

/* Recording F of the hour into OUT. */
static void hour_file(struct buf *out, struct zframe *z, struct buf *raw, uint32_t f)
{
	uint64_t t0 = T0 + f * HOUR_FILE_S * SEC, t_end = t0 + HOUR_FILE_S * SEC - MS, seq = 1;
	size_t at;
	uint64_t per_cpu[2] = { 0, 0 };
	struct rp_ksyms_rec k = { .hdr = { .type = RP_REC_KSYMS }, .time = t0, .n = H_END + 1 };

	raw->len = 0;
	header_rec(raw, false);
	((struct rp_header_rec *)raw->p)->time = t0;
	at = raw->len;
	put(raw, &k, sizeof(k));
	for (int i = 0; i <= H_END; i++)
		ksym(raw, HOUR_KBASE + 0x1000ull * i, hour_syms[i]);
	finish_rec(raw, at);
	hour_comm(raw, t0, 0);
	hour_comm(raw, t0, 1);
	emit_frame(out, z, raw, 0, t0, t0, 4, "hour");
	for (uint64_t s0 = 0; s0 < HOUR_FILE_S; s0 += HOUR_FRAME_S) {
		uint32_t n = 0;
		uint64_t first = (t0 - T0) / SEC + s0;

		raw->len = 0;
		for (uint64_t s = first; s < first + HOUR_FRAME_S; s++)
			for (uint32_t cpu = 0; cpu < 2; cpu++) {
				uint32_t m = hour_second(raw, s, cpu);

				per_cpu[cpu] += m;
				n += m;
			}
		emit_frame(out, z, raw, seq++, T0 + first * SEC,
			   T0 + (first + HOUR_FRAME_S) * SEC - 1, n, "hour");
	}
	raw->len = 0;
	for (uint32_t cpu = 0; cpu < 2; cpu++) {
		struct rp_cpu_stats_rec cs = { .hdr = { .type = RP_REC_CPU_STATS,
							.size = sizeof(cs) },
					       .time = t_end,
					       .cpu = cpu,
					       .samples = per_cpu[cpu] };

		put(raw, &cs, sizeof(cs));
	}
	{
		struct rp_finish_rec fin = { .hdr = { .type = RP_REC_FINISH, .size = sizeof(fin) },
					     .time = t_end,
					     .samples = per_cpu[0] + per_cpu[1],
					     .exit_status = -1 };

		put(raw, &fin, sizeof(fin));
	}
	emit_frame(out, z, raw, seq, t_end, t_end, 3, "hour");
}

/* "hour": the files into DIR, named as ringprofd names them. 0, or 2 with a message. */
static int hour_dir(const char *dir, struct zframe *z)
{
	struct buf out = { 0 }, raw = { 0 };
	int64_t epoch_s = 1700000000; /* the wall-clock time at T0 (header_rec()) */

	for (uint32_t f = 0; f < HOUR_FILES; f++) {
		time_t when = (time_t)(epoch_s + (int64_t)(f * HOUR_FILE_S));
		char name[64], path[4096];
		struct tm tm;
		FILE *fp;

		gmtime_r(&when, &tm);
		strftime(name, sizeof(name), "ringprof-%Y%m%dT%H%M%SZ", &tm);
		snprintf(path, sizeof(path), "%s/%s-%04u.data", dir, name, f);
		out.len = 0;
		hour_file(&out, z, &raw, f);
		fp = fopen(path, "wb");
		if (!fp || fwrite(out.p, 1, out.len, fp) != out.len || fclose(fp) != 0) {
			fprintf(stderr, "rp-craft: cannot write %s: %s\n", path, strerror(errno));
			return 2;
		}
	}
	printf("spike %" PRId64 " %" PRId64 "\n", (epoch_s + (int64_t)HOUR_SPIKE_S) * (int64_t)SEC,
	       (epoch_s + (int64_t)(HOUR_SPIKE_S + HOUR_SPIKE_LEN_S)) * (int64_t)SEC);
	free(out.p);
	free(raw.p);
	return 0;
}

int main(int argc, char **argv)
{
	struct buf out = { 0 }, raw = { 0 };
	struct zframe *z;
	const char *kase;
	bool known = false;
	FILE *f;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (int i = 0; cases[i]; i++)
			puts(cases[i]);
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: rp-craft CASE FILE | rp-craft hour DIR | rp-craft --list\n");
		return 2;
	}
	kase = argv[1];
	for (int i = 0; cases[i]; i++)
		known |= !strcmp(cases[i], kase);
	if (!known)
		die("unknown case (see --list)");
	z = zframe_new(3);
	if (!z)
		die("out of memory");
	if (!strncmp(kase, "unmapped", 8))
		user_base = NOWHERE;
	offcpu_case = !strcmp(kase, "offcpu");
	if (!strcmp(kase, "expand"))
		craft_major = 2;
	if (!strcmp(kase, "hour")) {
		int r = hour_dir(argv[2], z);

		zframe_free(z);
		return r;
	}

	if (!strcmp(kase, "late-buildid")) {
		late_buildid_file(&out, z, &raw);
		goto write;
	}
	header_rec(&raw, !strcmp(kase, "header-ncpus"));
	ksyms_rec(&raw, !strcmp(kase, "ksyms-huge") ? UINT32_MAX : 3);
	comm_rec(&raw);
	mmap2_rec(&raw, !strcmp(kase, "mmap-unterminated"));
	emit_frame(&out, z, &raw, 0, T0, T0, 4, kase);
	if (offcpu_case) {
		raw.len = 0;
		offcpu_records(&raw);
		emit_frame(&out, z, &raw, 1, T0 + MS, T0 + 90 * MS, OFFCPU_RECORDS, kase);
		raw.len = 0;
		cpu_stats_rec(&raw, 0, T0 + 100 * MS, false, 0);
		finish_rec_rec(&raw, T0 + 100 * MS);
		emit_frame(&out, z, &raw, 2, T0 + 100 * MS, T0 + 100 * MS, 2, kase);
	} else if (!strcmp(kase, "expand")) {
		expand_file(&out, z, &raw);
	} else if (strcmp(kase, "only-frame-raw-huge") != 0) {
		for (int fr = 1; fr <= 2; fr++) {
			raw.len = 0;
			samples_frame(&raw, fr, kase);
			emit_frame(&out, z, &raw, (uint64_t)fr,
				   T0 + (uint64_t)(fr * SAMPLES_PER_FRAME + 1) * MS,
				   T0 + (uint64_t)(fr * SAMPLES_PER_FRAME + SAMPLES_PER_FRAME) * MS,
				   SAMPLES_PER_FRAME, kase);
		}
		raw.len = 0;
		{
			uint64_t t = T0 + 100 * MS;

			cpu_stats_rec(&raw, 0, t, !strcmp(kase, "cpu-stats-huge"), 0);
			cpu_stats_rec(&raw, 1, t, false, !strcmp(kase, "unmapped-lost") ? 7 : 0);
			finish_rec_rec(&raw, t);
			emit_frame(&out, z, &raw, 3, t, t, 3, kase);
		}
	}
write:
	f = fopen(argv[2], "wb");
	if (!f || fwrite(out.p, 1, out.len, f) != out.len || fclose(f) != 0) {
		fprintf(stderr, "rp-craft: cannot write %s: %s\n", argv[2], strerror(errno));
		return 2;
	}
	zframe_free(z);
	free(out.p);
	free(raw.p);
	return 0;
}
