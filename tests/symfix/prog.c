/* prog.c — symbolizer test fixture: a program with known functions and one inline expansion. */
#include <stdio.h>
#include <stdlib.h>

volatile unsigned long sf_sink;

#ifdef REBUILT
/* The "rebuilt" variant: new code in front moves every function and changes the build-id. */
__attribute__((noinline)) unsigned long sf_new_code(unsigned long x)
{
	for (unsigned long i = 0; i < x; i++)
		sf_sink += i * 7 + (x ^ i);
	return sf_sink;
}
#endif

__attribute__((noinline)) unsigned long sf_alpha(unsigned long x)
{
	for (unsigned long i = 0; i < x; i++)
		sf_sink += i * 3;
	return sf_sink;
}

__attribute__((noinline)) static unsigned long sf_beta(unsigned long x)
{
	unsigned long v = x;

	for (int i = 0; i < 50; i++)
		v = v * 2862933555777941757ul + 3037000493ul + sf_sink;
	return v;
}

__attribute__((noinline)) unsigned long sf_gamma(unsigned long x)
{
	unsigned long a = 1, b = 1;

	for (unsigned long i = 0; i < x; i++) {
		unsigned long t = a + b;

		a = b;
		b = t ^ (i << 3);
		if (b & 0x10)
			sf_sink += b;
		else
			sf_sink -= a;
	}
	return a + sf_beta(b);
}

static inline __attribute__((always_inline)) unsigned long sf_inline_leaf(unsigned long x)
{
	unsigned long v = x;

	for (int i = 0; i < 20; i++)
		v = (v >> 3) * 31 + (v ^ 0x5bd1e995ul) + (unsigned long)i; /* LEAF_LINE */
	return v;
}

__attribute__((noinline)) unsigned long sf_inline_caller(unsigned long x)
{
	unsigned long r = sf_sink + x;

	r += sf_inline_leaf(r); /* CALL_LINE */
	sf_sink = r;
	return r * 3;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 10;

	printf("%lu\n", sf_alpha(n) + sf_gamma(n) + sf_inline_caller(n));
	return 0;
}
