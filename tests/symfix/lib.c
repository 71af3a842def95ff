/* lib.c — symbolizer test fixture: a shared library with exported and internal functions. */

volatile unsigned long sf_lib_sink;

__attribute__((noinline)) static unsigned long sf_lib_internal(unsigned long x)
{
	for (unsigned long i = 0; i < x; i++)
		sf_lib_sink += i ^ (x << 2);
	return sf_lib_sink;
}

__attribute__((noinline)) unsigned long sf_lib_first(unsigned long x)
{
	for (unsigned long i = 0; i < x; i++)
		sf_lib_sink += i * 5;
	return sf_lib_internal(x) + sf_lib_sink;
}

__attribute__((noinline)) unsigned long sf_lib_second(unsigned long x)
{
	unsigned long v = x;

	for (int i = 0; i < 30; i++)
		v = v * 6364136223846793005ul + 1442695040888963407ul;
	sf_lib_sink = v;
	return v + sf_lib_internal(v & 15);
}
