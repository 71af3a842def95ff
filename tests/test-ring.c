/* test-ring.c — unit test of lib/ring.c: a synthetic ring fed by a kernel-like producer thread. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "capture/ring.h"

#define TEST_TYPE 0x7e57       /* header.type of the test records */
#define DEFAULT_RECORDS 200000 /* across all scenarios; override with TEST_RING_RECORDS */
#define STALL_SECONDS 20       /* no progress for this long = failure, not a hang */

static size_t page_size;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Payload word j of record seq: every word of every record differs. */
static uint64_t pattern(uint64_t seq, uint64_t j)
{
	return mix(seq << 16 ^ j);
}

/* Record sizes per scenario, derived from the sequence number so both sides agree. */

static unsigned int size_small(uint64_t seq)
{
	return 16 + 8 * (mix(seq) % 32); /* 16..264 */
}

static unsigned int size_mixed(uint64_t seq)
{
	static const unsigned int table[] = { 16, 24, 40, 56, 104, 4104 };
	uint64_t h = mix(seq ^ 0x5eed);

	if (seq % 499 == 250)
		return 65528; /* the largest 8-byte multiple header.size can hold */
	if (h % 16 == 0)
		return table[(h >> 8) % 6];
	return 16 + 8 * ((h >> 16) % 64);
}

static unsigned int size_odd(uint64_t seq)
{
	/* odd multiples of 8 and one just under the 8 KiB ring size */
	static const unsigned int table[] = { 16, 24, 40, 4104, 8184, 72, 120, 2056 };

	return table[mix(seq ^ 0x0dd) % 8];
}

static unsigned int size_fixed64(uint64_t seq)
{
	(void)seq;
	return 64; /* divides the ring: it can become exactly full */
}

struct scenario {
	const char *name;
	unsigned int n_pages;	/* data pages of the synthetic ring */
	unsigned int n_records; /* at DEFAULT_RECORDS scale */
	unsigned int (*size_of)(uint64_t seq);
	unsigned int burst_max; /* records per burst: 1..burst_max */
	int publish_each;	/* store data_head after each record (as the kernel does) */
	unsigned int nap_every; /* consumer sleeps after crossing every nap_every records */
	unsigned int nap_us;
	int expect_full; /* the reader must see head - tail == size at least once */
	int expect_straddle;
};

static const struct scenario scenarios[] = {
	{ "small-ring", 1, 70000, size_small, 32, 1, 0, 0, 0, 1 },
	{ "mixed", 16, 60000, size_mixed, 64, 0, 0, 0, 0, 1 },
	{ "odd-sizes", 2, 40000, size_odd, 8, 1, 4096, 1000, 0, 1 },
	{ "full", 1, 30000, size_fixed64, 128, 1, 1024, 5000, 1, 0 },
};

struct producer {
	struct perf_event_mmap_page *pc;
	unsigned char *data;
	uint64_t size;
	const struct scenario *sc;
	uint64_t n_records;
	int stop;	  /* set by the consumer on failure (__atomic) */
	uint64_t n_waits; /* times a record did not fit; read after join */
};

static void put64(unsigned char *data, uint64_t mask, uint64_t pos, uint64_t v)
{
	/* pos is a multiple of 8 and the size a power of two >= 8: never straddles. */
	memcpy(data + (pos & mask), &v, sizeof(v));
}

static void write_record(unsigned char *data, uint64_t mask, uint64_t pos, uint64_t seq,
			 unsigned int size)
{
	struct perf_event_header h = { .type = TEST_TYPE, .misc = (uint16_t)seq, .size = size };
	uint64_t w, j;

	memcpy(&w, &h, sizeof(w));
	put64(data, mask, pos, w);
	put64(data, mask, pos + 8, seq);
	for (j = 0; 16 + 8 * j < size; j++)
		put64(data, mask, pos + 16 + 8 * j, pattern(seq, j));
}

/*
 * The kernel's side of the protocol (perf_output_begin/perf_output_put_handle), writable mode:
 * LOAD data_tail (acquire: pairs with the reader's release), drop nothing but wait while the
 * whole record does not fit, STORE the bytes, STORE data_head (release: pairs with the
 * reader's acquire).
 */
static void *producer_main(void *arg)
{
	struct producer *p = arg;
	const struct scenario *sc = p->sc;
	uint64_t size = p->size, mask = size - 1;
	uint64_t head = __atomic_load_n(&p->pc->data_head, __ATOMIC_RELAXED);
	uint64_t seq = 0;

	while (seq < p->n_records) {
		unsigned int burst = 1 + mix(seq ^ 0xb0b) % sc->burst_max;

		for (; burst > 0 && seq < p->n_records; burst--, seq++) {
			unsigned int rs = sc->size_of(seq);
			int waited = 0;

			for (;;) {
				uint64_t tail;

				tail = __atomic_load_n(&p->pc->data_tail, __ATOMIC_ACQUIRE);

				if (size - (head - tail) >= rs)
					break;
				if (__atomic_load_n(&p->stop, __ATOMIC_RELAXED))
					return NULL;
				if (!waited++)
					p->n_waits++;
				/* the reader can only free what it can see */
				__atomic_store_n(&p->pc->data_head, head, __ATOMIC_RELEASE);
				sched_yield();
			}
			write_record(p->data, mask, head, seq, rs);
			head += rs;
			if (sc->publish_each)
				__atomic_store_n(&p->pc->data_head, head, __ATOMIC_RELEASE);
		}
		__atomic_store_n(&p->pc->data_head, head, __ATOMIC_RELEASE);
		if (mix(seq) % 4 == 0)
			sched_yield(); /* let the reader catch up now and then: bursts */
	}
	return NULL;
}

/* Verify one record; 0 or -1 (after printing what differs). */
static int check_record(const char *name, const struct perf_event_header *h, uint64_t seq,
			unsigned int size)
{
	const unsigned char *p = (const unsigned char *)h;
	uint64_t v, j;

	if (h->type != TEST_TYPE || h->misc != (uint16_t)seq || h->size != size) {
		fprintf(stderr, "%s: record %llu: type %#x misc %u size %u, want %#x %u %u\n", name,
			(unsigned long long)seq, h->type, h->misc, h->size, TEST_TYPE,
			(unsigned int)(uint16_t)seq, size);
		return -1;
	}
	memcpy(&v, p + 8, sizeof(v));
	if (v != seq) {
		fprintf(stderr, "%s: record %llu: sequence %llu\n", name, (unsigned long long)seq,
			(unsigned long long)v);
		return -1;
	}
	for (j = 0; 16 + 8 * j < size; j++) {
		memcpy(&v, p + 16 + 8 * j, sizeof(v));
		if (v != pattern(seq, j)) {
			fprintf(stderr, "%s: record %llu (size %u): byte %llu: %#llx, want %#llx\n",
				name, (unsigned long long)seq, size,
				(unsigned long long)(16 + 8 * j), (unsigned long long)v,
				(unsigned long long)pattern(seq, j));
			return -1;
		}
	}
	return 0;
}

static void nap(unsigned int us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

static void run_scenario(const struct scenario *sc, uint64_t total)
{
	size_t map_len = (1 + (size_t)sc->n_pages) * page_size;
	uint64_t n_records = (uint64_t)sc->n_records * total / DEFAULT_RECORDS;
	uint64_t seq = 0, pos = 0, n_straddled = 0, n_full = 0, n_batches = 0;
	struct perf_event_mmap_page *pc;
	struct producer p;
	pthread_t thread;
	struct ring r;
	double t0 = now(), last_progress = t0;
	int err, bad = 0;
	void *map;

	if (n_records == 0)
		n_records = 1;
	map = aligned_alloc(page_size, map_len);
	if (!map) {
		CHECK(map, "%s: aligned_alloc", sc->name);
		return;
	}
	memset(map, 0, map_len);
	pc = map;
	pc->data_offset = page_size;
	pc->data_size = sc->n_pages * page_size;

	err = ring_init(&r, map, map_len);
	CHECK(err == 0, "%s: ring_init: %d", sc->name, err);
	if (err) {
		free(map);
		return;
	}
	CHECK(r.size == pc->data_size && r.mask == r.size - 1, "%s: size %llu", sc->name,
	      (unsigned long long)r.size);
	CHECK(r.data == (unsigned char *)map + page_size, "%s: data pointer", sc->name);

	p = (struct producer){
		.pc = pc, .data = r.data, .size = r.size, .sc = sc, .n_records = n_records
	};
	err = pthread_create(&thread, NULL, producer_main, &p);
	if (err) {
		CHECK(err == 0, "%s: pthread_create: %s", sc->name, strerror(err));
		ring_done(&r);
		free(map);
		return;
	}

	while (seq < n_records && !bad) {
		const struct perf_event_header *h;
		uint64_t avail = ring_read_init(&r), seq0 = seq;

		if (avail == r.size)
			n_full++;
		if (avail == 0) {
			if (now() - last_progress > STALL_SECONDS) {
				CHECK(0, "%s: no progress for %d s at record %llu", sc->name,
				      STALL_SECONDS, (unsigned long long)seq);
				break;
			}
			sched_yield();
			continue;
		}
		n_batches++;
		while ((h = ring_read_event(&r))) {
			unsigned int rs = sc->size_of(seq);
			uint64_t off = pos & r.mask;
			int straddles = off + rs > r.size;
			const void *want = straddles ? (const void *)r.bounce : r.data + off;

			if (seq >= n_records) {
				CHECK(0, "%s: more records than written", sc->name);
				bad = 1;
				break;
			}
			if ((const void *)h != want) {
				CHECK(0, "%s: record %llu at %llu size %u: at %p, want %p (%s)",
				      sc->name, (unsigned long long)seq, (unsigned long long)off,
				      rs, (const void *)h, want, straddles ? "bounce" : "ring");
				bad = 1;
				break;
			}
			if (check_record(sc->name, h, seq, rs)) {
				CHECK(0, "%s: record %llu content (offset %llu, %s)", sc->name,
				      (unsigned long long)seq, (unsigned long long)off,
				      straddles ? "straddling" : "contiguous");
				bad = 1;
				break;
			}
			n_straddled += straddles;
			pos += rs;
			seq++;
			CHECK(r.tail == pos, "%s: private tail %llu, want %llu", sc->name,
			      (unsigned long long)r.tail, (unsigned long long)pos);
		}
		ring_read_done(&r);
		if (r.n_bad) {
			CHECK(r.n_bad == 0, "%s: n_bad %llu at record %llu", sc->name,
			      (unsigned long long)r.n_bad, (unsigned long long)seq);
			bad = 1;
		}
		if (seq != seq0)
			last_progress = now();
		if (sc->nap_every && seq / sc->nap_every != seq0 / sc->nap_every)
			nap(sc->nap_us); /* the producer fills the ring and blocks */
	}
	if (bad)
		__atomic_store_n(&p.stop, 1, __ATOMIC_RELAXED);
	pthread_join(thread, NULL);

	if (!bad && seq == n_records) {
		CHECK(ring_read_init(&r) == 0, "%s: bytes left after the last record", sc->name);
		CHECK(ring_read_event(&r) == NULL, "%s: a record after the last one", sc->name);
		CHECK(__atomic_load_n(&pc->data_tail, __ATOMIC_RELAXED) == pos,
		      "%s: data_tail %llu, want %llu", sc->name, (unsigned long long)pc->data_tail,
		      (unsigned long long)pos);
		if (sc->expect_straddle)
			CHECK(n_straddled > 0, "%s: no record straddled the ring end", sc->name);
		if (sc->expect_full)
			CHECK(n_full > 0, "%s: the ring never became completely full", sc->name);
	}
	printf("%-10s %2u pages %7llu records %9llu bytes %6llu straddled %5llu full "
	       "%6llu producer waits %6llu batches %.2f s\n",
	       sc->name, sc->n_pages, (unsigned long long)seq, (unsigned long long)pos,
	       (unsigned long long)n_straddled, (unsigned long long)n_full,
	       (unsigned long long)p.n_waits, (unsigned long long)n_batches, now() - t0);

	ring_done(&r);
	free(map);
}

/* Single-threaded helpers for hand-made rings: byte-wise, so any position works. */
static void put_bytes(struct ring *r, uint64_t pos, const void *src, size_t len)
{
	const unsigned char *s = src;
	size_t i;

	for (i = 0; i < len; i++)
		r->data[(pos + i) & r->mask] = s[i];
}

static void put_record(struct ring *r, uint64_t pos, uint64_t seq, unsigned int size)
{
	struct perf_event_header h = { .type = TEST_TYPE, .misc = (uint16_t)seq, .size = size };
	uint64_t j, v;

	put_bytes(r, pos, &h, sizeof(h));
	put_bytes(r, pos + 8, &seq, sizeof(seq));
	for (j = 0; 16 + 8 * j < size; j++) {
		v = pattern(seq, j);
		put_bytes(r, pos + 16 + 8 * j, &v, sizeof(v));
	}
}

static void put_header(struct ring *r, uint64_t pos, unsigned int size)
{
	struct perf_event_header h = { .type = TEST_TYPE, .misc = 0, .size = (uint16_t)size };

	put_bytes(r, pos, &h, sizeof(h));
}

static void set_head(struct ring *r, uint64_t head)
{
	__atomic_store_n(&r->page->data_head, head, __ATOMIC_RELEASE);
}

static void *new_ring_memory(size_t map_len)
{
	void *map = aligned_alloc(page_size, map_len);

	if (map)
		memset(map, 0, map_len);
	return map;
}

static void test_init_errors(void)
{
	size_t map_len = 5 * page_size;
	unsigned char *map = new_ring_memory(map_len + page_size);
	struct perf_event_mmap_page *pc = (void *)map;
	struct ring r, sentinel;
	int err;

	if (!map) {
		CHECK(map, "aligned_alloc");
		return;
	}
	memset(&sentinel, 0x5a, sizeof(sentinel));

	pc->data_offset = page_size;
	pc->data_size = 3 * page_size;
	r = sentinel;
	err = ring_init(&r, map, map_len);
	CHECK(err == -EINVAL, "data_size of 3 pages: %d", err);
	CHECK(memcmp(&r, &sentinel, sizeof(r)) == 0, "ring_init wrote *r on failure");

	pc->data_size = 8 * page_size;
	err = ring_init(&r, map, map_len);
	CHECK(err == -EINVAL, "data area beyond the mapping: %d", err);

	pc->data_size = 4 * page_size;
	pc->data_offset = page_size + 4;
	err = ring_init(&r, map, map_len + page_size);
	CHECK(err == -EINVAL, "misaligned data_offset: %d", err);

	pc->data_offset = 0;
	err = ring_init(&r, map, map_len);
	CHECK(err == -EINVAL, "data area over the control page: %d", err);

	pc->data_offset = page_size;
	err = ring_init(&r, map + 4, map_len);
	CHECK(err == -EINVAL, "misaligned map: %d", err);
	err = ring_init(&r, NULL, map_len);
	CHECK(err == -EINVAL, "NULL map: %d", err);
	err = ring_init(&r, map, 64);
	CHECK(err == -EINVAL, "map shorter than the control page: %d", err);

	err = ring_init(&r, map, map_len);
	CHECK(err == 0, "valid ring: %d", err);
	if (!err) {
		CHECK(r.size == 4 * page_size && r.data == map + page_size && r.bounce && !r.map &&
			  r.head == 0 && r.tail == 0 && r.n_bad == 0,
		      "valid ring fields");
		CHECK(((uintptr_t)r.bounce & 7) == 0, "bounce misaligned");
		ring_done(&r);
	}

	/* data_size 0: old kernels, the data pages follow the control page */
	pc->data_offset = 0;
	pc->data_size = 0;
	err = ring_init(&r, map, map_len);
	CHECK(err == 0, "data_size 0, 4 data pages: %d", err);
	if (!err) {
		CHECK(r.size == 4 * page_size && r.data == map + page_size,
		      "data_size 0: size %llu", (unsigned long long)r.size);
		ring_done(&r);
	}
	err = ring_init(&r, map, 4 * page_size);
	CHECK(err == -EINVAL, "data_size 0, 3 data pages: %d", err);
	err = ring_init(&r, map, page_size);
	CHECK(err == -EINVAL, "data_size 0, no data pages: %d", err);

	/* the private tail starts where a previous reader left data_tail */
	pc->data_offset = page_size;
	pc->data_size = 4 * page_size;
	pc->data_tail = 123456;
	err = ring_init(&r, map, map_len);
	CHECK(err == 0 && r.tail == 123456 && r.head == 123456, "tail from data_tail: %d", err);
	if (!err)
		ring_done(&r);

	r = sentinel;
	err = ring_mmap(&r, -1, 3);
	CHECK(err == -EINVAL, "ring_mmap with 3 pages: %d", err);
	err = ring_mmap(&r, -1, 0);
	CHECK(err == -EINVAL, "ring_mmap with 0 pages: %d", err);
	err = ring_mmap(&r, -1, 4);
	CHECK(err == -EBADF, "ring_mmap on fd -1: %d (errno passed through)", err);
	CHECK(memcmp(&r, &sentinel, sizeof(r)) == 0, "ring_mmap wrote *r on failure");

	memset(&r, 0, sizeof(r));
	ring_done(&r);
	ring_done(&r);
	CHECK(r.bounce == NULL && r.map == NULL, "ring_done on a zeroed struct");

	free(map);
}

/* Expect the next event to be record seq of the given size; returns the pointer or NULL. */
static const struct perf_event_header *expect_record(struct ring *r, uint64_t seq,
						     unsigned int size, const char *what)
{
	const struct perf_event_header *h = ring_read_event(r);

	CHECK(h != NULL, "%s: no record", what);
	if (!h)
		return NULL;
	CHECK(((uintptr_t)h & 7) == 0, "%s: misaligned record pointer %p", what, (const void *)h);
	CHECK(check_record(what, h, seq, size) == 0, "%s: content", what);
	return h;
}

static void test_corrupt(void)
{
	size_t map_len = 2 * page_size;
	unsigned char *map = new_ring_memory(map_len);
	struct perf_event_mmap_page *pc = (void *)map;
	const struct perf_event_header *h;
	struct ring r;
	uint64_t head = 0;
	int err, i, round;

	if (!map) {
		CHECK(map, "aligned_alloc");
		return;
	}
	pc->data_offset = page_size;
	pc->data_size = page_size;
	err = ring_init(&r, map, map_len);
	CHECK(err == 0, "ring_init: %d", err);
	if (err) {
		free(map);
		return;
	}

	/* a good record, then size 0 */
	put_record(&r, head, 1, 24);
	put_header(&r, head + 24, 0);
	head += 24 + 16;
	set_head(&r, head);
	CHECK(ring_read_init(&r) == 40, "available bytes");
	expect_record(&r, 1, 24, "before size 0");
	CHECK(ring_read_event(&r) == NULL, "size 0 returned a record");
	CHECK(r.n_bad == 1 && r.tail == head, "size 0: n_bad %llu", (unsigned long long)r.n_bad);
	CHECK(ring_read_event(&r) == NULL && r.n_bad == 1, "counted twice");
	ring_read_done(&r);
	CHECK(pc->data_tail == head, "data_tail after resync");

	/* larger than available */
	put_record(&r, head, 2, 40);
	put_header(&r, head + 40, 200);
	head += 40 + 16;
	set_head(&r, head);
	ring_read_init(&r);
	expect_record(&r, 2, 40, "before oversize");
	CHECK(ring_read_event(&r) == NULL && r.n_bad == 2, "oversize: n_bad %llu",
	      (unsigned long long)r.n_bad);

	/* not a multiple of 8 */
	put_header(&r, head, 20);
	head += 24;
	set_head(&r, head);
	ring_read_init(&r);
	CHECK(ring_read_event(&r) == NULL && r.n_bad == 3, "size 20: n_bad %llu",
	      (unsigned long long)r.n_bad);

	/* head more than the ring size ahead, and behind the tail */
	head += 2 * page_size;
	set_head(&r, head);
	CHECK(ring_read_init(&r) == 0 && r.n_bad == 4 && r.tail == head, "head far ahead");
	set_head(&r, head - 8);
	CHECK(ring_read_init(&r) == 0 && r.n_bad == 5 && r.tail == head - 8, "head behind tail");
	head -= 8;

	/* good records again after the resyncs */
	put_record(&r, head, 3, 16);
	put_record(&r, head + 16, 4, 64);
	head += 80;
	set_head(&r, head);
	CHECK(ring_read_init(&r) == 80, "available after resync");
	expect_record(&r, 3, 16, "after resync");
	expect_record(&r, 4, 64, "after resync");
	CHECK(ring_read_event(&r) == NULL && r.n_bad == 5, "end after resync");
	ring_read_done(&r);

	/* fewer bytes than a header */
	head += 4;
	set_head(&r, head);
	CHECK(ring_read_init(&r) == 4, "4 bytes available");
	CHECK(ring_read_event(&r) == NULL && r.n_bad == 6 && r.tail == head, "4 bytes: n_bad %llu",
	      (unsigned long long)r.n_bad);

	/*
	 * A corrupt head can leave the tail misaligned, even so that a header straddles the end:
	 * the reader stays in bounds and still hands out 8-aligned pointers (from bounce).
	 */
	head = head - (head & r.mask) + 3 * r.size - 4;
	set_head(&r, head);
	CHECK(ring_read_init(&r) == 0 && r.n_bad == 7 && r.tail == head, "resync to offset size-4");
	put_record(&r, head, 5, 24);
	put_record(&r, head + 24, 6, 32);
	head += 24 + 32;
	set_head(&r, head);
	CHECK(ring_read_init(&r) == 56, "misaligned: available");
	h = expect_record(&r, 5, 24, "header straddling the end");
	CHECK(h == (const void *)r.bounce, "a straddling header is returned from bounce");
	h = expect_record(&r, 6, 32, "misaligned");
	CHECK(h == (const void *)r.bounce, "a misaligned record is returned from bounce");
	CHECK(ring_read_event(&r) == NULL && r.n_bad == 7, "end after misaligned records");
	ring_read_done(&r);

	/* garbage: every call consumes a record or returns NULL, and the tail ends at head */
	for (round = 0; round < 200; round++) {
		uint64_t x = mix(round);
		unsigned int n = 1 + x % 96;

		for (i = 0; i < (int)n; i++) {
			uint64_t y = mix(x ^ (uint64_t)i);

			/* mostly plausible sizes, some arbitrary u16 values */
			put_header(&r, head + 8 * i,
				   y % 4 ? 8 * (1 + y % 9) : (unsigned int)(y >> 8));
		}
		head += 8 * n + (x >> 20) % 3 * 4;
		set_head(&r, head);
		ring_read_init(&r);
		for (i = 0; i < 1000 && (h = ring_read_event(&r)); i++)
			CHECK(((uintptr_t)h & 7) == 0 && h->size >= 8, "garbage round %d", round);
		CHECK(i < 1000 && r.tail == head, "garbage round %d: %d calls", round, i);
		ring_read_done(&r);
	}

	ring_done(&r);
	free(map);
}

/* The reader must not look past head, even for a header: make the bytes there unmapped. */
static void test_nothing_past_head(void)
{
	size_t map_len = 3 * page_size;
	unsigned char *map =
	    mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct perf_event_mmap_page *pc = (void *)map;
	struct ring r;
	int err;

	if (map == MAP_FAILED) {
		CHECK(map != MAP_FAILED, "mmap: %s", strerror(errno));
		return;
	}
	pc->data_offset = page_size;
	pc->data_size = 2 * page_size;
	err = ring_init(&r, map, map_len);
	CHECK(err == 0, "ring_init: %d", err);
	if (!err) {
		put_record(&r, 0, 7, 2048);
		put_record(&r, 2048, 8, 2048);
		set_head(&r, page_size);
		CHECK(mprotect(map + 2 * page_size, page_size, PROT_NONE) == 0, "mprotect");
		CHECK(ring_read_init(&r) == page_size, "available");
		expect_record(&r, 7, 2048, "before the hole");
		expect_record(&r, 8, 2048, "up to the hole");
		CHECK(ring_read_event(&r) == NULL && r.n_bad == 0, "end at the hole");
		ring_read_done(&r);
		ring_done(&r);
	}
	munmap(map, map_len);
}

int main(void)
{
	const char *env = getenv("TEST_RING_RECORDS");
	uint64_t total = env ? strtoull(env, NULL, 0) : DEFAULT_RECORDS;
	double t0 = now();
	size_t i;

	page_size = (size_t)sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IOLBF, 0);

	test_init_errors();
	test_corrupt();
	test_nothing_past_head();
	for (i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		run_scenario(&scenarios[i], total);

	printf("test-ring: %.2f s\n", now() - t0);
	return check_done("test-ring");
}
