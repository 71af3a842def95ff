/* rp-annotate.c — known hot lines for ringprof annotate's tests: `rp-annotate [SECONDS]`
 * (default 2) spends about half its CPU time in hot_loop, whose loop is one source line
 * (ANNOTATE-HOT), and the rest in caller_a and caller_b, into which rp_mix (rp-annotate-inl.h,
 * its loop on the line ANNOTATE-INLINE) is inlined. One thread; built with -g -O2. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "rp-annotate-inl.h"

#if defined(__clang__)
#define RP_FRAME __attribute__((noinline))
#else
#define RP_FRAME __attribute__((noinline, noclone, no_icf))
#endif

static volatile uint64_t sink;

RP_FRAME static uint64_t hot_loop(uint64_t x, uint64_t n)
{
	// clang-format off
	for (uint64_t i = 0; i < n; i++) x = x * 6364136223846793005ULL + (x >> 7) + i; /* ANNOTATE-HOT */
	// clang-format on
	return x;
}

RP_FRAME static uint64_t caller_a(uint64_t x, uint64_t n)
{
	return rp_mix(x + 1, n) + 3;
}

RP_FRAME static uint64_t caller_b(uint64_t x, uint64_t n)
{
	return rp_mix(x ^ 5, n) * 7;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0, end = now() + secs;
	uint64_t x = (uint64_t)argc;

	if (secs <= 0) {
		fprintf(stderr, "usage: rp-annotate [SECONDS]\n");
		return 2;
	}
	while (now() < end) {
		x = hot_loop(x, 2000000);
		x = caller_a(x, 1000000);
		x = caller_b(x, 1000000);
	}
	sink = x;
	return 0;
}
