// rp-cxx.cc — known hot lines in C++ for report-cxx.sh: `rp-cxx [SECONDS]` (default 2) spends
// its CPU time in two instances of a template member (rpcxx::Acc<unsigned int>::bar,
// rpcxx::Acc<unsigned long>::bar; loop on rp-cxx.h's CXX-TEMPLATE line), in rpcxx::user_a and
// rpcxx::user_b, into which rpcxx::mix is inlined (rp-cxx.h's CXX-INLINE line), and in a lambda
// of rpcxx::run (its loop on the CXX-LAMBDA line). Each call's size varies (xorshift), so no
// phase keeps step with a sampling period. One thread; built with -O2 -g and frame pointers.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "rp-cxx.h"

namespace rpcxx
{

RP_FRAME std::uint64_t user_a(std::uint64_t x, std::uint64_t n)
{
	return mix(x + 1, n) + 3;
}

RP_FRAME std::uint64_t user_b(std::uint64_t x, std::uint64_t n)
{
	return mix(x ^ 5, n) * 7;
}

RP_FRAME std::uint64_t run(std::uint64_t x, double secs)
{
	using clock = std::chrono::steady_clock;
	auto end = clock::now() + std::chrono::duration<double>(secs);
	Acc<unsigned int> a32{ static_cast<unsigned int>(x) };
	Acc<unsigned long> a64{ x };
	std::uint64_t r = 0x9e3779b97f4a7c15ULL;
	auto vary = [&r](std::uint64_t n) {
		r ^= r << 13;
		r ^= r >> 7;
		r ^= r << 17;
		return n / 2 + r % n;
	};
	auto lam = [](std::uint64_t y, std::uint64_t n) RP_FRAME {
		// clang-format off
		for (std::uint64_t i = 0; i < n; i++) y = (y + i) * 0x100000001b3ULL ^ (y >> 17); /* CXX-LAMBDA */
		// clang-format on
		return y;
	};

	while (clock::now() < end) {
		x += a32.bar(static_cast<unsigned int>(vary(2000000)));
		x += a64.bar(vary(2000000));
		x = user_a(x, vary(1000000));
		x = user_b(x, vary(1000000));
		x = lam(x, vary(1600000));
	}
	return x;
}

} // namespace rpcxx

static volatile std::uint64_t sink;

int main(int argc, char **argv)
{
	double secs = argc > 1 ? std::atof(argv[1]) : 2.0;

	if (secs <= 0) {
		std::fprintf(stderr, "usage: rp-cxx [SECONDS]\n");
		return 2;
	}
	sink = rpcxx::run(static_cast<std::uint64_t>(argc), secs);
	return 0;
}
