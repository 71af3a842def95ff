/*
 * rp-unwind.c — a workload built the way Debian builds real code (-O2 -g, no frame pointers,
 * .eh_frame only, dynamically linked to libc), for the dwarf-unwinding test and benchmark
 * (tests/unwind-perf.sh, bench/unwind-bench.sh).
 *
 * Usage: rp-unwind MODE [SECONDS]      (SECONDS of wall time, default 2, fractions allowed)
 *   qsort   main -> sort_phase -> qsort -> (libc: qsort_r, msort_with_tmp...) -> cmp_records;
 *           cmp_records is the hot function, sort_phase shuffles and sorts again and again
 *   deep    main -> deep_phase -> deep_recurse x 40 (512-byte frames) -> deep_leaf_burn; the
 *           stack under the leaf is ~22 KB deep: an 8 KB stack copy cuts the walk
 *   climb   main -> climb_phase -> climb_recurse x 40 (512-byte frames), each level burning
 *           CPU on the way down and on the way up: samples at every depth, most of them
 *           deeper than an 8 KB copy reaches (what joining cut stacks to earlier ones is for)
 *   thread  main -> thread_phase -> pthread_create; start_thread -> thread_main ->
 *           work_in_thread -> thread_hot_loop (the main thread waits in pthread_join)
 *   all     the thread runs for SECONDS while the main thread does qsort, then deep (half each)
 *   twopath main -> twopath_phase -> path_a | path_b (identical frames) -> two_f ->
 *           two_descend (3 KB frames) -> two_burn: path_a goes down 10 levels, burning a
 *           little at each, and works at the bottom (~31 KB deep, far beyond an 8 KB copy);
 *           path_b goes down 2 levels and works there. The top frames' (pc, sp) pairs occur
 *           under both callers, and path_b's samples are the most: a stack cut under path_a
 *           must never be completed with path_b (no two_burn under path_b is 10 levels deep)
 *   twostraight as twopath, but path_a goes straight down 3 levels and works only there: its
 *           stacks (about 9.5 KB) are cut in the top frame, and no walk of path_a ever reads
 *           that frame's caller; only path_b's do
 * Output: one line "rp-unwind: MODE: N rounds, checksum C, wall S s" on stdout. Exit 0; 2 on
 * bad usage.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * The functions the tests look for keep their own frame and symbol: noipa = noinline, noclone
 * (no .constprop/.isra copies) and no_icf (no folding of two functions into one symbol).
 */
#if defined(__clang__)
#define RP_FRAME __attribute__((noinline))
#else
#define RP_FRAME __attribute__((noipa))
#endif

#define SORT_RECORDS 4096 /* one sort: ~50 k comparisons, a few ms */
#define CMP_ROUNDS 24	  /* mixing rounds per key and comparison: cmp_records is the hot spot */
#define DEEP_LEVELS 40	  /* deep_recurse frames under deep_phase */
#define DEEP_FRAME_BYTES 512
#define DEEP_LEAF_ROUNDS 400000 /* ~1 ms in deep_leaf_burn per descent */
#define THREAD_ROUNDS 200000	/* one call of thread_hot_loop, well under 1 ms */

struct record {
	uint32_t key;
	uint32_t serial;
	char name[24];
};

static struct record records[SORT_RECORDS];
static volatile uint64_t sink; /* results end here, so no loop is optimized away */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t xorshift(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

/* ---- qsort: a callback through libc -------------------------------------------------------- */

static inline uint32_t mix_key(uint32_t k)
{
	for (int i = 0; i < CMP_ROUNDS; i++)
		k = (k ^ (k >> 15)) * 0x2c1b3c6dU + (uint32_t)i;
	return k;
}

/* The hot function: called by libc's merge sort, a total order on the mixed keys. */
RP_FRAME static int cmp_records(const void *a, const void *b)
{
	uint32_t ka = mix_key(((const struct record *)a)->key);
	uint32_t kb = mix_key(((const struct record *)b)->key);

	if (ka != kb)
		return ka < kb ? -1 : 1;
	return ((const struct record *)a)->serial < ((const struct record *)b)->serial ? -1 : 1;
}

RP_FRAME static void shuffle_records(uint64_t *rng)
{
	for (size_t i = SORT_RECORDS - 1; i > 0; i--) {
		size_t j = xorshift(rng) % (i + 1);
		struct record tmp = records[i];

		records[i] = records[j];
		records[j] = tmp;
	}
}

RP_FRAME static unsigned long sort_phase(double seconds)
{
	uint64_t rng = 0x9e3779b97f4a7c15ULL;
	double end = now_s() + seconds;
	unsigned long rounds = 0;

	for (size_t i = 0; i < SORT_RECORDS; i++) {
		records[i].key = (uint32_t)xorshift(&rng);
		records[i].serial = (uint32_t)i;
		snprintf(records[i].name, sizeof(records[i].name), "record-%zu", i);
	}
	do {
		shuffle_records(&rng);
		qsort(records, SORT_RECORDS, sizeof(records[0]), cmp_records);
		sink += records[0].serial + records[SORT_RECORDS - 1].serial;
		rounds++;
	} while (now_s() < end);
	return rounds;
}

/* ---- deep: recursion with large frames ------------------------------------------------------- */

/* rounds of a 64-bit LCG seeded from and stored into buf: the CPU time of the deep modes */
static inline uint64_t burn(volatile char *buf, int rounds)
{
	uint64_t x = (uint64_t)buf[0] + 1;

	for (int i = 0; i < rounds; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL + (x >> 29);
	buf[1] = (char)x;
	return x;
}

RP_FRAME static uint64_t deep_leaf_burn(volatile char *buf)
{
	return burn(buf, DEEP_LEAF_ROUNDS);
}

/* 40 of these frames under deep_phase, 512 bytes of locals each: no tail call (buf is read
 * after the call), no inlining, no cloning. */
RP_FRAME static uint64_t deep_recurse(int depth)
{
	volatile char buf[DEEP_FRAME_BYTES];
	uint64_t r;

	for (int i = 0; i < DEEP_FRAME_BYTES; i += 64)
		buf[i] = (char)(depth + i);
	if (depth == 0)
		r = deep_leaf_burn(buf);
	else
		r = deep_recurse(depth - 1);
	return r + (uint64_t)buf[(depth * 64) % DEEP_FRAME_BYTES];
}

RP_FRAME static unsigned long deep_phase(double seconds)
{
	double end = now_s() + seconds;
	unsigned long rounds = 0;

	do {
		sink += deep_recurse(DEEP_LEVELS - 1);
		rounds++;
	} while (now_s() < end);
	return rounds;
}

/* ---- climb: recursion with large frames that works at every level ----------------------- */

RP_FRAME static uint64_t climb_burn(volatile char *buf, int rounds)
{
	return burn(buf, rounds);
}

RP_FRAME static uint64_t climb_recurse(int depth)
{
	volatile char buf[DEEP_FRAME_BYTES];
	uint64_t r;

	for (int i = 0; i < DEEP_FRAME_BYTES; i += 64)
		buf[i] = (char)(depth + i);
	r = climb_burn(buf, DEEP_LEAF_ROUNDS / 64);
	if (depth > 0)
		r += climb_recurse(depth - 1);
	r += climb_burn(buf, DEEP_LEAF_ROUNDS / 64);
	return r + (uint64_t)buf[(depth * 64) % DEEP_FRAME_BYTES];
}

RP_FRAME static unsigned long climb_phase(double seconds)
{
	double end = now_s() + seconds;
	unsigned long rounds = 0;

	do {
		sink += climb_recurse(DEEP_LEVELS - 1);
		rounds++;
	} while (now_s() < end);
	return rounds;
}

/* ---- twopath: two callers, identical frames below them ---------------------------------- */

#define TWO_LEVELS 10
#define TWO_FRAME_BYTES 3072

RP_FRAME static uint64_t two_burn(volatile char *buf, int rounds)
{
	return burn(buf, rounds);
}

/* twopath: path_a works at level 0, path_b at level TWO_LEVELS - 2, and every level above the
 * one that works burns a 32nd of what it does (so path_a's upper frames are walked in full too).
 * twostraight: path_a goes straight down to level TWO_LEVELS - 3 and works only there: its
 * copies end in level TWO_LEVELS - 1, whose (pc, sp) only path_b's full walks read. */
static volatile int two_a_at, two_b_at = TWO_LEVELS - 2, two_above = DEEP_LEAF_ROUNDS / 32;

/* Down to level work_at, which burns DEEP_LEAF_ROUNDS; every level above it two_above. */
RP_FRAME static uint64_t two_descend(int depth, int work_at)
{
	volatile char buf[TWO_FRAME_BYTES];
	uint64_t r;

	for (int i = 0; i < TWO_FRAME_BYTES; i += 64)
		buf[i] = (char)(depth + i);
	r = depth == work_at ? two_burn(buf, DEEP_LEAF_ROUNDS)
	    : two_above	     ? two_burn(buf, two_above)
			     : 0;
	if (depth > work_at)
		r += two_descend(depth - 1, work_at);
	return r + (uint64_t)buf[(depth * 64) % TWO_FRAME_BYTES];
}

RP_FRAME static uint64_t two_f(int work_at)
{
	return two_descend(TWO_LEVELS - 1, work_at);
}

/* The two callers: the same code but for the constant, so the same frame size. */
RP_FRAME static uint64_t path_a(void)
{
	return two_f(two_a_at) + 1;
}

RP_FRAME static uint64_t path_b(void)
{
	return two_f(two_b_at) + 1;
}

RP_FRAME static unsigned long twopath_phase(double seconds)
{
	double end = now_s() + seconds;
	unsigned long rounds = 0;

	do {
		sink += path_a();
		sink += path_b();
		rounds++;
	} while (now_s() < end);
	return rounds;
}

/* ---- thread: stacks that end in start_thread / clone3 --------------------------------------- */

RP_FRAME static uint64_t thread_hot_loop(uint64_t seed)
{
	uint64_t x = seed | 1;

	for (int i = 0; i < THREAD_ROUNDS; i++)
		x ^= (x << 7) ^ (x >> 9) ^ (uint64_t)i;
	return x;
}

RP_FRAME static unsigned long work_in_thread(double seconds)
{
	double end = now_s() + seconds;
	unsigned long rounds = 0;

	do {
		sink += thread_hot_loop(rounds);
		rounds++;
	} while (now_s() < end);
	return rounds;
}

struct thread_arg {
	double seconds;
	unsigned long rounds;
};

RP_FRAME static void *thread_main(void *p)
{
	struct thread_arg *arg = p;

	arg->rounds = work_in_thread(arg->seconds);
	return NULL;
}

static int thread_start(pthread_t *t, struct thread_arg *arg)
{
	int err = pthread_create(t, NULL, thread_main, arg);

	if (err != 0)
		fprintf(stderr, "rp-unwind: pthread_create: %s\n", strerror(err));
	return err;
}

RP_FRAME static unsigned long thread_phase(double seconds)
{
	struct thread_arg arg = { seconds, 0 };
	pthread_t t;

	if (thread_start(&t, &arg) != 0)
		exit(1);
	pthread_join(t, NULL);
	return arg.rounds;
}

/* all: the thread for the whole time, the main thread sorts then recurses. */
static unsigned long all_phases(double seconds)
{
	struct thread_arg arg = { seconds, 0 };
	unsigned long rounds;
	pthread_t t;

	if (thread_start(&t, &arg) != 0)
		exit(1);
	rounds = sort_phase(seconds / 2);
	rounds += deep_phase(seconds / 2);
	pthread_join(t, NULL);
	return rounds + arg.rounds;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: rp-unwind qsort|deep|climb|twopath|twostraight|thread|all [SECONDS]\n");
	return 2;
}

int main(int argc, char **argv)
{
	double seconds = 2, t0 = now_s();
	unsigned long rounds;
	char *end;

	if (argc < 2 || argc > 3)
		return usage();
	if (argc == 3) {
		seconds = strtod(argv[2], &end);
		if (end == argv[2] || *end != '\0' || !(seconds > 0 && seconds <= 3600))
			return usage();
	}
	if (strcmp(argv[1], "qsort") == 0)
		rounds = sort_phase(seconds);
	else if (strcmp(argv[1], "deep") == 0)
		rounds = deep_phase(seconds);
	else if (strcmp(argv[1], "climb") == 0)
		rounds = climb_phase(seconds);
	else if (strcmp(argv[1], "twopath") == 0)
		rounds = twopath_phase(seconds);
	else if (strcmp(argv[1], "twostraight") == 0) {
		two_a_at = TWO_LEVELS - 3;
		two_above = 0;
		rounds = twopath_phase(seconds);
	} else if (strcmp(argv[1], "thread") == 0)
		rounds = thread_phase(seconds);
	else if (strcmp(argv[1], "all") == 0)
		rounds = all_phases(seconds);
	else
		return usage();
	printf("rp-unwind: %s: %lu rounds, checksum %llu, wall %.3f s\n", argv[1], rounds,
	       (unsigned long long)sink, now_s() - t0);
	return 0;
}
