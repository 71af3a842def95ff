/* test-drain.c — the recorder's drain, from rings in memory into recordings in memory.
 *
 * recorder_new_rings() gives the recorder two rings this test writes as the kernel would
 * (records at data_head, published with a release store; no record written over bytes the
 * reader has not given back through data_tail; a sample that finds no room is lost and a
 * PERF_RECORD_LOST that counts it comes before the next record that fits), with no
 * perf_event_open. The recorder writes into writers on memfds, read back by the reader.
 *
 * Checked, on the content: every sample that went into a ring comes out once, in time order
 * across the CPUs, with its CPU, thread, time, period and callchain, records that straddle the
 * ring's end included; bytes the "kernel" wrote past data_head are not read until it is
 * published, and data_tail is given back up to data_head after each pass; LOST, THROTTLE and
 * UNTHROTTLE records are stored and counted in each file's per-CPU statistics and finish
 * record, as a corrupt record is counted as bad; a rotation puts what the rings held before it
 * into the first file and what came after into the second, nothing lost or doubled, each
 * file's statistics counting its own samples; recorder_totals() says the sums.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "base/util.h"
#include "capture/objreg.h"
#include "capture/recorder.h"
#include "capture/ring.h"
#include "check.h"
#include "format/format.h"
#include "format/perfrec.h"
#include "format/reader.h"
#include "format/writer.h"

#define RING_TYPE                                                                                  \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |                   \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_CGROUP)
#define N_CPUS 2
#define MAX_SEQ 4096
#define IP_BASE 0x401000ull
#define PID 4242

/* A ring as the kernel fills it: head is where the next record goes, published or not. */
struct fake {
	void *map;
	size_t len;
	struct perf_event_mmap_page *pc;
	unsigned char *data;
	uint64_t size, head;
	uint64_t lost_pending; /* samples that found no room, not reported yet */
	uint64_t wrapped;      /* records written across the end of the ring */
	int cpu;
};

/* What the test put into the rings, by sample sequence number. */
static struct {
	int cpu, file; /* file: 0 or 1 (before or after the rotation); -1 never in a ring */
	uint64_t time;
	unsigned depth;
} sent[MAX_SEQ];
static unsigned n_seq;
static uint64_t last_time;
static int cur_file;

static struct fake rings[N_CPUS];

static void fake_init(struct fake *f, int cpu, uint64_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	memset(f, 0, sizeof(*f));
	f->len = page + size;
	f->map = aligned_alloc(page, f->len);
	memset(f->map, 0, f->len);
	f->pc = f->map;
	f->pc->data_offset = page;
	f->pc->data_size = size;
	f->data = (unsigned char *)f->map + page;
	f->size = size;
	f->cpu = cpu;
}

static uint64_t next_time(void)
{
	uint64_t t = util_now_ns();

	last_time = t > last_time ? t : last_time + 1;
	return last_time;
}

/* Room for len more bytes without overwriting what the reader has not given back. */
static bool fake_room(const struct fake *f, size_t len)
{
	uint64_t tail = __atomic_load_n(&f->pc->data_tail, __ATOMIC_ACQUIRE);

	return f->head - tail + len <= f->size;
}

static void fake_copy(struct fake *f, const void *rec, size_t len)
{
	uint64_t off = f->head & (f->size - 1);
	size_t first = off + len <= f->size ? len : (size_t)(f->size - off);

	memcpy(f->data + off, rec, first);
	memcpy(f->data, (const unsigned char *)rec + first, len - first);
	f->wrapped += first < len;
	f->head += len;
}

static void fake_publish(struct fake *f)
{
	__atomic_store_n(&f->pc->data_head, f->head, __ATOMIC_RELEASE);
}

/* The sample_id trailer of side-band records for RING_TYPE: tid, time, cpu. */
static size_t put_trailer(uint64_t *w, size_t k, const struct fake *f, uint64_t t)
{
	w[k++] = PID | (uint64_t)PID << 32;
	w[k++] = t;
	w[k++] = (uint64_t)f->cpu;
	return k;
}

/* A record as the kernel writes it: the LOST record it owes first, when there is room for
 * both; else, for a sample, one more lost. False when it was not written. */
static bool kput(struct fake *f, const uint64_t *w, size_t n_words, bool sample)
{
	uint64_t lost[6];
	size_t len = n_words * 8, lost_len = sizeof(lost);

	if (!fake_room(f, len + (f->lost_pending ? lost_len : 0))) {
		f->lost_pending += sample;
		return false;
	}
	if (f->lost_pending) {
		struct perf_event_header h = { PERF_RECORD_LOST, 0, (uint16_t)lost_len };

		memcpy(&lost[0], &h, 8);
		lost[1] = 77; /* the event's id */
		lost[2] = f->lost_pending;
		put_trailer(lost, 3, f, next_time());
		fake_copy(f, lost, lost_len);
		f->lost_pending = 0;
	}
	fake_copy(f, w, len);
	return true;
}

/* Sample seq on ring f with a callchain of depth frames; its size varies with depth. False
 * when the ring had no room (the kernel lost it). */
static bool put_sample(struct fake *f, unsigned depth)
{
	uint64_t w[32];
	unsigned seq = n_seq++;
	uint64_t ip = IP_BASE + seq * 16ull, t = next_time();
	size_t k = 1;
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0 };

	w[k++] = ip;
	w[k++] = (PID + seq % 2) | (uint64_t)(PID + seq % 2) << 32;
	w[k++] = t;
	w[k++] = (uint64_t)f->cpu;
	w[k++] = 1000 + seq;
	w[k++] = depth + 1;
	w[k++] = (uint64_t)PERF_CONTEXT_USER;
	w[k++] = ip;
	for (unsigned i = 1; i < depth; i++)
		w[k++] = 0x500000 + seq * 0x100ull + i * 8;
	w[k++] = 0x1234; /* the cgroup */
	h.size = (uint16_t)(k * 8);
	memcpy(&w[0], &h, 8);
	sent[seq].cpu = f->cpu;
	sent[seq].time = t;
	sent[seq].depth = depth;
	sent[seq].file = kput(f, w, k, true) ? cur_file : -1;
	return sent[seq].file >= 0;
}

/* A side-band record of type with body words before its trailer. */
static void put_side(struct fake *f, uint32_t type, const uint64_t *body, size_t n)
{
	uint64_t w[16];
	struct perf_event_header h = { type, 0, (uint16_t)((1 + n + 3) * 8) };

	memcpy(&w[0], &h, 8);
	memcpy(&w[1], body, n * 8);
	put_trailer(w, 1 + n, f, next_time());
	CHECK(kput(f, w, 1 + n + 3, false), "a side-band record found no room");
}

static int quiet_helper(void *arg, int sock)
{
	char buf[256];

	(void)arg;
	while (recv(sock, buf, sizeof(buf), 0) > 0)
		;
	return 0;
}

/* What one recording holds. */
struct got {
	int n_samples, n_lost_recs, n_throttle, n_unthrottle, n_comm;
	unsigned seqs[MAX_SEQ];
	uint64_t lost_in_recs;
	struct rp_cpu_stats_rec stats[N_CPUS];
	int n_stats;
	struct rp_finish_rec fin;
	bool finished, ordered;
};

static void check_sample(const struct perfrec_sample *s, unsigned *ret_seq)
{
	unsigned seq = (unsigned)((s->ip - IP_BASE) / 16);
	bool chain_ok;

	*ret_seq = seq;
	if (!CHECK(s->ip >= IP_BASE && seq < n_seq, "ip %#llx", (unsigned long long)s->ip))
		return;
	CHECK_INT(s->id.cpu, sent[seq].cpu);
	CHECK_INT(s->id.tid, PID + seq % 2);
	CHECK_U64(s->id.time, sent[seq].time);
	CHECK_U64(s->period, 1000 + seq);
	chain_ok = s->nr == sent[seq].depth + 1 && s->ips[0] == (uint64_t)PERF_CONTEXT_USER &&
		   s->ips[1] == s->ip;
	for (unsigned i = 1; chain_ok && i < sent[seq].depth; i++)
		chain_ok = s->ips[i + 1] == 0x500000 + seq * 0x100ull + i * 8;
	CHECK(chain_ok, "sample %u: its callchain (%llu frames) is not the one it was given", seq,
	      (unsigned long long)s->nr);
}

static void take_record(struct reader *rd, const struct perf_event_header *h, struct got *g)
{
	struct perfrec_sample s;
	struct perfrec_lost l;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		if (CHECK_INT(perfrec_parse_sample(h, reader_sample_type(rd), &s), 0) &&
		    g->n_samples < MAX_SEQ) {
			check_sample(&s, &g->seqs[g->n_samples]);
			if (g->n_samples && g->seqs[g->n_samples] <= g->seqs[g->n_samples - 1])
				g->ordered = false;
			g->n_samples++;
		}
		break;
	case PERF_RECORD_LOST:
		g->n_lost_recs++;
		if (CHECK_INT(perfrec_parse_lost(h, &l), 0))
			g->lost_in_recs += l.lost;
		break;
	case PERF_RECORD_THROTTLE:
		g->n_throttle++;
		break;
	case PERF_RECORD_UNTHROTTLE:
		g->n_unthrottle++;
		break;
	case PERF_RECORD_COMM:
		g->n_comm++;
		CHECK_STR((const char *)h + 16, "drained");
		break;
	case RP_REC_CPU_STATS:
		if (CHECK(g->n_stats < N_CPUS, "more CPU statistics than CPUs"))
			memcpy(&g->stats[g->n_stats++], h, sizeof(g->stats[0]));
		break;
	case RP_REC_FINISH:
		g->finished = true;
		memcpy(&g->fin, h, sizeof(g->fin));
		break;
	}
}

/* Read the recording the writer put into memfd fd. */
static void read_back(int fd, struct got *g)
{
	char path[64], why[256];
	struct reader *rd;
	const struct perf_event_header *h;

	memset(g, 0, sizeof(*g));
	g->ordered = true;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!CHECK(reader_open(path, &rd, why, sizeof(why)) == 0, "%s", why))
		return;
	while ((h = reader_next(rd)))
		take_record(rd, h, g);
	CHECK_U64(reader_stats(rd)->frames_bad, 0);
	CHECK_U64(reader_stats(rd)->late, 0);
	reader_free(rd);
}

/* The per-CPU statistics of a file, by CPU number. */
static const struct rp_cpu_stats_rec *stats_of(const struct got *g, int cpu)
{
	for (int i = 0; i < g->n_stats; i++)
		if ((int)g->stats[i].cpu == cpu)
			return &g->stats[i];
	CHECK(false, "no statistics for CPU %d", cpu);
	return &g->stats[0];
}

static void poll_once(struct recorder *r)
{
	CHECK(recorder_poll(r, 0, NULL, 0) >= 0);
	for (int i = 0; i < N_CPUS; i++) {
		/* Everything up to the published head is copied out and given back. */
		uint64_t head = __atomic_load_n(&rings[i].pc->data_head, __ATOMIC_ACQUIRE);

		CHECK_U64(__atomic_load_n(&rings[i].pc->data_tail, __ATOMIC_ACQUIRE), head);
	}
}

/* Samples alternating between the CPUs, a side-band record, bytes past the head. */
static void feed_order_and_head(struct recorder *r)
{
	uint64_t comm[3] = { PID | (uint64_t)PID << 32 };
	uint64_t tail0;

	test_ctx = "order and head";
	memcpy(&comm[1], "drained", 8);
	for (int i = 0; i < 6; i++)
		CHECK(put_sample(&rings[i % 2], 2 + (unsigned)i % 3));
	put_side(&rings[0], PERF_RECORD_COMM, comm, 3);
	fake_publish(&rings[0]);
	fake_publish(&rings[1]);
	/* The next sample is in the ring's bytes, but its head is not published yet. */
	CHECK(put_sample(&rings[0], 3));
	poll_once(r);
	tail0 = __atomic_load_n(&rings[0].pc->data_tail, __ATOMIC_ACQUIRE);
	CHECK(tail0 < rings[0].head, "the tail went past the published head");
	fake_publish(&rings[0]);
	poll_once(r);
}

/* Samples through the small ring until several straddled its end, drained when half full. */
static void feed_wrap(struct recorder *r)
{
	struct fake *f = &rings[0];

	test_ctx = "wrap";
	for (unsigned i = 0; f->wrapped < 3 && i < 1000; i++) {
		CHECK(put_sample(f, 1 + i % 7));
		fake_publish(f);
		if (f->head - f->pc->data_tail > f->size / 2)
			poll_once(r);
	}
	CHECK(f->wrapped >= 3, "only %llu records straddled the end",
	      (unsigned long long)f->wrapped);
	poll_once(r);
}

/* A full ring loses samples; the LOST record comes once there is room again. */
static unsigned feed_lost(struct recorder *r)
{
	struct fake *f = &rings[0];
	unsigned lost = 0;

	test_ctx = "lost";
	while (put_sample(f, 4))
		;
	lost++;
	for (int i = 0; i < 9; i++)
		lost += !put_sample(f, 4);
	CHECK_INT(lost, 10);
	CHECK_U64(f->lost_pending, 10);
	fake_publish(f);
	poll_once(r);
	CHECK(put_sample(f, 2));
	CHECK_U64(f->lost_pending, 0);
	fake_publish(f);
	poll_once(r);
	return lost;
}

/* Throttling, and a record whose size is impossible: what follows it in the ring up to the
 * head is skipped (no record boundary can be trusted), the next pass reads on from there. */
static void feed_throttle_bad(struct recorder *r)
{
	struct fake *f = &rings[1];
	uint64_t th[3] = { 0, 77, 77 };
	uint64_t bad[2];
	struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, 12 };

	test_ctx = "throttle and bad";
	th[0] = next_time();
	put_side(f, PERF_RECORD_THROTTLE, th, 3);
	th[0] = next_time();
	put_side(f, PERF_RECORD_UNTHROTTLE, th, 3);
	CHECK(put_sample(f, 3));
	fake_publish(f);
	poll_once(r);
	memcpy(&bad[0], &h, 8);
	bad[1] = 0;
	fake_copy(f, bad, sizeof(bad));
	CHECK(put_sample(f, 3));
	sent[n_seq - 1].file = -1; /* skipped with the bad record */
	fake_publish(f);
	poll_once(r);
	CHECK(put_sample(f, 3));
	fake_publish(f);
	poll_once(r);
}

static int new_memfd_writer(struct writer **ret)
{
	int fd = memfd_create("recording", MFD_CLOEXEC);
	int wfd = fd >= 0 ? dup(fd) : -1;

	if (!CHECK(wfd >= 0, "memfd: %s", strerror(errno)) ||
	    !CHECK_INT(writer_fdopen(wfd, 3, ret), 0))
		return -1;
	return fd;
}

static void check_file(const struct got *g, int file)
{
	uint64_t samples = 0;
	int k = 0;

	CHECK(g->finished, "file %d has no finish record", file);
	CHECK(g->ordered, "file %d: samples out of time order", file);
	for (unsigned seq = 0; seq < n_seq; seq++) {
		if (sent[seq].file != file)
			continue;
		if (k < g->n_samples && g->seqs[k] == seq)
			k++;
		else
			CHECK(false, "file %d: sample %u is missing (found %u there)", file, seq,
			      k < g->n_samples ? g->seqs[k] : 0);
	}
	CHECK_INT(k, g->n_samples);
	for (int i = 0; i < g->n_stats; i++)
		samples += g->stats[i].samples;
	CHECK_INT(g->n_stats, N_CPUS);
	CHECK_U64(samples, (uint64_t)g->n_samples);
	CHECK_U64(g->fin.samples, (uint64_t)g->n_samples);
}

static struct recorder *new_recorder(const char *kallsyms)
{
	static const int cpus[N_CPUS] = { 0, 3 };
	struct recorder_opts o = { .event = "cpu-clock",
				   .freq = 1000,
				   .callchain = true,
				   .target = RECORDER_PIDS,
				   .cmdline = "test-drain",
				   .kallsyms = kallsyms,
				   .flush_ns = 60 * NSEC_PER_SEC };
	struct ring rs[N_CPUS];
	struct recorder *r = NULL;
	struct objreg *reg;
	char note[256], why[256];

	fake_init(&rings[0], cpus[0], 4096);
	fake_init(&rings[1], cpus[1], 16384);
	for (int i = 0; i < N_CPUS; i++)
		CHECK_INT(ring_init(&rs[i], rings[i].map, rings[i].len), 0);
	reg = objreg_new_scripted(quiet_helper, NULL, note, sizeof(note));
	if (!CHECK(reg != NULL) ||
	    !CHECK(recorder_new_rings(&o, cpus, rs, N_CPUS, reg, &r, why, sizeof(why)) == 0, "%s",
		   why))
		return NULL;
	CHECK_U64(recorder_ring_sample_type(r), RING_TYPE);
	CHECK_INT(recorder_n_cpus(r), N_CPUS);
	return r;
}

int main(void)
{
	char dir[] = "/tmp/test-drain.XXXXXX", ksyms[64];
	struct writer *w1, *w2;
	struct recorder *r;
	struct got g1, g2;
	unsigned lost;
	int fd1, fd2;
	FILE *f;

	if (!CHECK(mkdtemp(dir) != NULL))
		return check_done("test-drain");
	snprintf(ksyms, sizeof(ksyms), "%s/kallsyms", dir);
	f = fopen(ksyms, "w");
	if (f) {
		fputs("ffffffff81000000 T _stext\nffffffff81001000 T do_work\n", f);
		fclose(f);
	}
	r = new_recorder(ksyms);
	fd1 = new_memfd_writer(&w1);
	fd2 = new_memfd_writer(&w2);
	if (!r || fd1 < 0 || fd2 < 0)
		return check_done("test-drain");
	CHECK_INT(recorder_start(r, w1), 0);

	feed_order_and_head(r);
	feed_wrap(r);
	lost = feed_lost(r);
	feed_throttle_bad(r);

	/* Rotation: one sample drained, one still in its ring, then the new file. */
	test_ctx = "rotation";
	CHECK(put_sample(&rings[0], 2));
	fake_publish(&rings[0]);
	poll_once(r);
	CHECK(put_sample(&rings[1], 2));
	fake_publish(&rings[1]);
	CHECK_INT(recorder_rotate(r, w2), 0);
	CHECK_INT(writer_close(w1), 0);
	cur_file = 1;
	CHECK(put_sample(&rings[1], 5));
	CHECK(put_sample(&rings[0], 1));
	fake_publish(&rings[0]);
	fake_publish(&rings[1]);
	poll_once(r);
	CHECK(put_sample(&rings[0], 3));
	fake_publish(&rings[0]);
	CHECK_INT(recorder_stop(r, 0), 0);
	CHECK_INT(writer_close(w2), 0);

	{
		const struct recorder_totals *t = recorder_totals(r);
		unsigned in_rings = 0;

		for (unsigned seq = 0; seq < n_seq; seq++)
			in_rings += sent[seq].file >= 0;
		/* The sample skipped with the bad record was drained, so not counted. */
		CHECK_U64(t->samples, in_rings);
		CHECK_U64(t->lost, lost);
		CHECK_U64(t->throttles, 1);
		CHECK_U64(t->bad, 1);
	}
	recorder_free(r);

	test_ctx = "first file";
	read_back(fd1, &g1);
	check_file(&g1, 0);
	CHECK_INT(g1.n_comm, 1);
	CHECK_INT(g1.n_lost_recs, 1);
	CHECK_U64(g1.lost_in_recs, lost);
	CHECK_U64(stats_of(&g1, 0)->lost, lost);
	CHECK_U64(stats_of(&g1, 3)->lost, 0);
	CHECK_U64(g1.fin.lost, lost);
	CHECK_INT(g1.n_throttle, 1);
	CHECK_INT(g1.n_unthrottle, 1);
	CHECK_U64(stats_of(&g1, 3)->throttles, 1);
	CHECK_U64(stats_of(&g1, 3)->unthrottles, 1);
	CHECK_U64(stats_of(&g1, 3)->bad, 1);
	CHECK_U64(stats_of(&g1, 0)->bad, 0);

	test_ctx = "second file";
	read_back(fd2, &g2);
	check_file(&g2, 1);
	CHECK_INT(g2.n_samples, 3);
	CHECK_INT(g2.n_lost_recs + g2.n_throttle + g2.n_comm, 0);
	CHECK_U64(g2.fin.lost, 0);
	CHECK_U64(stats_of(&g2, 3)->throttles + stats_of(&g2, 3)->bad, 0);

	close(fd1);
	close(fd2);
	for (int i = 0; i < N_CPUS; i++)
		free(rings[i].map);
	unlink(ksyms);
	rmdir(dir);
	return check_done("test-drain");
}
