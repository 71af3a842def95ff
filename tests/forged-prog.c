/* forged-prog.c — the program whose build-id a forged binary claims (built by
 * tests/record-forged-buildid.sh and tests/daemon-systemd-hostile.sh): four nested calls under
 * main for as many seconds as its argument says; the forged binary is this file with real_
 * renamed other_ and other code. */
#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
__attribute__((noinline)) static void real_d(int n)
{
	for (int i = 0; i < n; i++)
		sink += (unsigned long)i * 7;
}
__attribute__((noinline)) static void real_c(int n)
{
	real_d(n);
	sink++;
}
__attribute__((noinline)) static void real_b(int n)
{
	real_c(n);
	sink++;
}
__attribute__((noinline)) static void real_a(int n)
{
	real_b(n);
	sink++;
}
int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1);
	while (now() < end)
		real_a(100000);
	return 0;
}
