/* rustnames.c — a C program whose functions carry Rust-mangled names (legacy and v0), for the
 * demangling test (tests/report-names.sh); no rustc needed.
 *
 * main -> mycrate::foo::bar (v0) -> core::fmt::write (legacy, the hot one)
 *      -> std::mem::align_of::<usize> (v0, generic)
 * Usage: rustnames SECONDS (CPU time, default 1). */
#include <stdlib.h>
#include <time.h>

volatile unsigned long rn_sink;

/* The names are real rustc manglings: a legacy path with its 17h<hash>E suffix, a v0 path
 * through a module, and a v0 generic instance (the examples of Rust's RFC 2603). */
void rn_legacy(unsigned long n) __asm__("_ZN4core3fmt5write17h0123456789abcdefE");
void rn_v0(unsigned long n) __asm__("_RNvNtCs1234_7mycrate3foo3bar");
void rn_generic(unsigned long n) __asm__("_RINvNtC3std3mem8align_ofjE");

__attribute__((noinline)) void rn_legacy(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		rn_sink += i * 7 + (rn_sink >> 3);
}

__attribute__((noinline)) void rn_generic(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		rn_sink ^= i * 13 + (rn_sink << 1);
}

__attribute__((noinline)) void rn_v0(unsigned long n)
{
	rn_legacy(3 * n);
	rn_generic(n);
	rn_sink++;
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	double t0 = cpu_s();

	while (cpu_s() - t0 < secs)
		rn_v0(100000);
	return 0;
}
