/* rp-shares.c — CPU time in three functions in shares given on the command line, for
 * `ringprof diff`'s tests: `rp-shares [-d SECONDS] A B C` spends A %, B % and C % of its CPU
 * time (measured on its thread CPU clock) in share_a, share_b and share_c, in rounds of
 * 10 ms; a share of 0 never calls that function. One thread; exit 2 on bad usage. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__clang__)
#define RP_FRAME __attribute__((noinline))
#else
#define RP_FRAME __attribute__((noinline, noclone, no_icf))
#endif

#define NSEC_PER_MSEC 1000000ULL

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Spin for NS of CPU time; X keeps each function's loop its own. */
static volatile uint64_t sink;

RP_FRAME static void share_a(uint64_t ns)
{
	uint64_t end = cpu_ns() + ns;

	while (cpu_ns() < end)
		for (int i = 0; i < 40000; i++)
			sink += (uint64_t)i * 3;
}

RP_FRAME static void share_b(uint64_t ns)
{
	uint64_t end = cpu_ns() + ns;

	while (cpu_ns() < end)
		for (int i = 0; i < 40000; i++)
			sink ^= (uint64_t)i * 5;
}

RP_FRAME static void share_c(uint64_t ns)
{
	uint64_t end = cpu_ns() + ns;

	while (cpu_ns() < end)
		for (int i = 0; i < 40000; i++)
			sink -= (uint64_t)i * 7;
}

static int usage(void)
{
	fprintf(stderr, "usage: rp-shares [-d SECONDS] A B C (percentages of CPU time)\n");
	return 2;
}

int main(int argc, char **argv)
{
	double secs = 1.0;
	int pct[3], argi = 1;
	uint64_t start;

	if (argc > 2 && strcmp(argv[1], "-d") == 0) {
		secs = atof(argv[2]);
		argi = 3;
	}
	if (argc - argi != 3 || secs <= 0)
		return usage();
	for (int i = 0; i < 3; i++) {
		pct[i] = atoi(argv[argi + i]);
		if (pct[i] < 0 || pct[i] > 100)
			return usage();
	}
	start = cpu_ns();
	/* Rounds of 10 ms of CPU time, split by the shares, until SECONDS of CPU time. */
	while (cpu_ns() - start < (uint64_t)(secs * 1e9)) {
		if (pct[0])
			share_a((uint64_t)pct[0] * NSEC_PER_MSEC / 10);
		if (pct[1])
			share_b((uint64_t)pct[1] * NSEC_PER_MSEC / 10);
		if (pct[2])
			share_c((uint64_t)pct[2] * NSEC_PER_MSEC / 10);
	}
	return 0;
}
