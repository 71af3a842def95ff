/* rp-worklib.c — librp-worklib.so, the workload's shared library: one spin loop to attribute. */
#include "rp-worklib.h"

uint64_t worklib_spin(uint64_t seed, uint64_t n_iter)
{
	/*
	 * Kept on the stack on purpose.  GCC 12 on x86-64 gives a leaf function that needs no stack
	 * no frame pointer, -mno-omit-leaf-frame-pointer notwithstanding; a frame-pointer unwinder
	 * would then skip our caller (child_main) and the tests' callchain check would fail.
	 */
	volatile uint64_t result;
	uint64_t x = seed;

	for (uint64_t i = 0; i < n_iter; i++) {
		/* Rotate-add-multiply; the empty asm keeps every round in the object code. */
		x = ((x << 23) | (x >> 41)) + 0x9e3779b97f4a7c15ULL;
		x *= 0xbf58476d1ce4e5b9ULL;
		__asm__ volatile("" : "+r"(x));
	}
	result = x;
	return result;
}
