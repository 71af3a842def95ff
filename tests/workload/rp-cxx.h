// rp-cxx.h — rp-cxx's template and its always-inlined helper, in a header as real C++ keeps
// them: report -s srcline and annotate must name this file and these lines (CXX-TEMPLATE,
// CXX-INLINE), not the .cc file that instantiates or inlines them.
#ifndef RP_CXX_H
#define RP_CXX_H

#include <cstdint>

// noipa: its own frame and symbol (noinline, noclone, no_icf).
#if defined(__clang__)
#define RP_FRAME __attribute__((noinline))
#else
#define RP_FRAME __attribute__((noipa))
#endif

namespace rpcxx
{

// Two instances (unsigned int, unsigned long): two functions with the same source lines.
template <typename T> struct Acc {
	T x;
	RP_FRAME T bar(T n);
};

template <typename T> T Acc<T>::bar(T n)
{
	// clang-format off
	for (T i = 0; i < n; i++) x = x * static_cast<T>(2654435761u) + (x >> 5) + i; /* CXX-TEMPLATE */
	// clang-format on
	return x;
}

// Inlined into rpcxx::user_a and rpcxx::user_b (rp-cxx.cc): its loop counts on its own line.
inline __attribute__((always_inline)) std::uint64_t mix(std::uint64_t x, std::uint64_t n)
{
	// clang-format off
	for (std::uint64_t i = 0; i < n; i++) x = (x ^ (x >> 13)) * 0xff51afd7ed558ccdULL + i; /* CXX-INLINE */
	// clang-format on
	return x;
}

} // namespace rpcxx

#endif
