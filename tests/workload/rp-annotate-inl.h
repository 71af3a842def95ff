/* rp-annotate-inl.h — a function inlined into two callers of rp-annotate (ringprof annotate's
 * test: its lines must be counted here, on the inlined function's own file and lines). */
#ifndef RP_ANNOTATE_INL_H
#define RP_ANNOTATE_INL_H

#include <stdint.h>

static inline __attribute__((always_inline)) uint64_t rp_mix(uint64_t x, uint64_t n)
{
	// clang-format off
	for (uint64_t i = 0; i < n; i++) x = (x ^ (x >> 11)) * 0x9E3779B97F4A7C15ULL + i; /* ANNOTATE-INLINE */
	// clang-format on
	return x;
}

#endif
