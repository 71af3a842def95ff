/* aliases.c — symbolizer test fixture (a shared library): one function under several names,
 * as libc has them. vfunc has a versioned definition and an older version (.symver, so the
 * .symtab says "vfunc@@SF_2" and "vfunc@SF_1"), spin is the public alias of __impl_spin, and
 * sf_calls calls out through the PLT. */
#include <stdlib.h>
#include <string.h>

volatile unsigned long sf_alias_sink;

__attribute__((noinline)) unsigned long __impl_spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sf_alias_sink += i * 3;
	return sf_alias_sink;
}
unsigned long spin(unsigned long n) __attribute__((alias("__impl_spin")));

__attribute__((noinline)) unsigned long vfunc_new(unsigned long n)
{
	return __impl_spin(n) + 1;
}
unsigned long vfunc_old(unsigned long n) __attribute__((alias("vfunc_new")));
__asm__(".symver vfunc_new, vfunc@@SF_2");
__asm__(".symver vfunc_old, vfunc@SF_1");

__attribute__((noinline)) unsigned long sf_calls(const char *s)
{
	char *p = malloc(strlen(s) + 1);

	if (!p)
		return 0;
	strcpy(p, s);
	sf_alias_sink += strlen(p);
	free(p);
	return sf_alias_sink;
}
