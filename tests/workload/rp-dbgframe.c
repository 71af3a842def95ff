/*
 * rp-dbgframe.c — a workload whose own code is described by .debug_frame only, as a C program
 * built with -O2 -g -fno-asynchronous-unwind-tables is (the C runtime's objects keep their
 * .eh_frame): main -> outer -> inner burning SECONDS of CPU time (default 1, fractions
 * allowed). The fixture of tests/test-utab-build.c (also built with a compressed
 * .debug_frame, and static) and of tests/record-dbgframe.sh.
 * Output: "rp-dbgframe: N rounds, checksum C" on stdout. Exit 0; 2 on bad usage.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

uint64_t inner(uint64_t seed);
uint64_t outer(uint64_t seed);

/* The hot leaf: an xorshift loop the compiler cannot fold. */
__attribute__((noinline)) uint64_t inner(uint64_t seed)
{
	uint64_t x = seed | 1;

	for (int i = 0; i < 20000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

/* A frame of its own (a buffer on the stack) around each call, so that its CFA rule moves. */
__attribute__((noinline)) uint64_t outer(uint64_t seed)
{
	volatile uint64_t buf[8];
	uint64_t sum = 0;

	for (int i = 0; i < 8; i++)
		buf[i] = inner(seed + (uint64_t)i);
	for (int i = 0; i < 8; i++)
		sum += buf[i];
	return sum;
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double want = 1.0, t0 = cpu_seconds();
	uint64_t sum = 0, rounds = 0;
	char *end;

	if (argc > 2 || (argc == 2 && ((want = strtod(argv[1], &end)) <= 0 || *end))) {
		fprintf(stderr, "Usage: rp-dbgframe [SECONDS]\n");
		return 2;
	}
	while (cpu_seconds() - t0 < want) {
		sum += outer(sum + rounds);
		rounds++;
	}
	printf("rp-dbgframe: %llu rounds, checksum %llx\n", (unsigned long long)rounds,
	       (unsigned long long)sum);
	return 0;
}
