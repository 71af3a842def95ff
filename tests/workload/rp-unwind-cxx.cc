// rp-unwind-cxx.cc — a C++ workload built as Debian builds real code (-O2 -g, no frame
// pointers, .eh_frame only, libstdc++), for the dwarf-unwinding test and benchmark.
//
// Usage: rp-unwind-cxx sort|virtual|all [SECONDS]   (wall time, default 2; all: half each)
//   sort     main -> run_sort -> std::sort (std::__introsort_loop, std::__insertion_sort, ...
//            templates) -> ByMixedKey::operator() (the hot comparator)
//   virtual  main -> run_virtual -> Shape::area through a base-class pointer: Circle::area,
//            Square::area, Triangle::area (the hot functions, about a third each)
// Output: one line "rp-unwind-cxx: MODE: N rounds, checksum C, wall S s". Exit 0; 2 on bad usage.
// ringprof demangles as perf does (ByMixedKey::operator(), Circle::area); with --no-demangle
// the names are _ZNK10ByMixedKeyclERK4ItemS2_, _ZNK6Circle4areaEv. Tests match both spellings.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

// noipa: its own frame and symbol (noinline, noclone, no_icf), no speculative devirtualization
// that inlines an area() into run_virtual.
#if defined(__clang__)
#define RP_FRAME __attribute__((noinline))
#else
#define RP_FRAME __attribute__((noipa))
#endif

namespace {

constexpr std::size_t sort_items = 8192; // one std::sort: ~110 k comparisons
constexpr int cmp_rounds = 24;           // mixing rounds per key and comparison
constexpr std::size_t n_shapes = 1024;
constexpr int area_rounds = 200;         // work per area() call, ~0.3 us

volatile std::uint64_t sink;

double now_s()
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
	    .count();
}

} // namespace

struct Item {
	std::uint32_t key;
	std::uint32_t serial;
	double weight;
};

// The hot comparator: a total order on the mixed keys.
struct ByMixedKey {
	static std::uint32_t mix(std::uint32_t k)
	{
		for (int i = 0; i < cmp_rounds; i++)
			k = (k ^ (k >> 15)) * 0x2c1b3c6dU + static_cast<std::uint32_t>(i);
		return k;
	}
	RP_FRAME bool operator()(const Item &a, const Item &b) const
	{
		std::uint32_t ka = mix(a.key), kb = mix(b.key);
		return ka != kb ? ka < kb : a.serial < b.serial;
	}
};

RP_FRAME unsigned long run_sort(double seconds)
{
	std::mt19937_64 rng(42);
	std::vector<Item> items(sort_items);
	for (std::size_t i = 0; i < items.size(); i++)
		items[i] = Item{ static_cast<std::uint32_t>(rng()), static_cast<std::uint32_t>(i),
				 static_cast<double>(i) };
	double end = now_s() + seconds;
	unsigned long rounds = 0;
	do {
		std::shuffle(items.begin(), items.end(), rng);
		std::sort(items.begin(), items.end(), ByMixedKey());
		sink = sink + items.front().serial + items.back().serial;
		rounds++;
	} while (now_s() < end);
	return rounds;
}

struct Shape {
	virtual ~Shape() = default;
	virtual double area() const = 0;
};

struct Circle : Shape {
	double r;
	explicit Circle(double radius) : r(radius) {}
	RP_FRAME double area() const override
	{
		double a = 0, x = r;
		for (int i = 0; i < area_rounds; i++)
			a += 3.14159265358979 * x * x, x = x * 0.999 + 0.001;
		return a / area_rounds;
	}
};

struct Square : Shape {
	double side;
	explicit Square(double s) : side(s) {}
	RP_FRAME double area() const override
	{
		double a = 0, x = side;
		for (int i = 0; i < area_rounds; i++)
			a += x * x, x = x * 1.001 - 0.002;
		return a / area_rounds;
	}
};

struct Triangle : Shape {
	double base, height;
	Triangle(double b, double h) : base(b), height(h) {}
	RP_FRAME double area() const override
	{
		double a = 0, h = height;
		for (int i = 0; i < area_rounds; i++)
			a += 0.5 * base * h, h = h * 0.998 + 0.003;
		return a / area_rounds;
	}
};

RP_FRAME unsigned long run_virtual(double seconds)
{
	std::mt19937 rng(7);
	std::vector<std::unique_ptr<Shape>> shapes;
	for (std::size_t i = 0; i < n_shapes; i++) {
		double v = 1.0 + static_cast<double>(rng() % 100) / 10.0;
		switch (rng() % 3) {
		case 0: shapes.push_back(std::make_unique<Circle>(v)); break;
		case 1: shapes.push_back(std::make_unique<Square>(v)); break;
		default: shapes.push_back(std::make_unique<Triangle>(v, v / 2)); break;
		}
	}
	double end = now_s() + seconds, total = 0;
	unsigned long rounds = 0;
	do {
		for (const auto &s : shapes)
			total += s->area();
		rounds++;
	} while (now_s() < end);
	sink = sink + static_cast<std::uint64_t>(total);
	return rounds;
}

int main(int argc, char **argv)
{
	double seconds = 2, t0 = now_s();
	if (argc < 2 || argc > 3)
		goto usage;
	if (argc == 3) {
		char *end;
		seconds = std::strtod(argv[2], &end);
		if (end == argv[2] || *end != '\0' || !(seconds > 0 && seconds <= 3600))
			goto usage;
	}
	{
		unsigned long rounds;
		if (std::strcmp(argv[1], "sort") == 0)
			rounds = run_sort(seconds);
		else if (std::strcmp(argv[1], "virtual") == 0)
			rounds = run_virtual(seconds);
		else if (std::strcmp(argv[1], "all") == 0)
			rounds = run_sort(seconds / 2) + run_virtual(seconds / 2);
		else
			goto usage;
		std::printf("rp-unwind-cxx: %s: %lu rounds, checksum %llu, wall %.3f s\n", argv[1],
			    rounds, static_cast<unsigned long long>(sink), now_s() - t0);
		return 0;
	}
usage:
	std::fprintf(stderr, "usage: rp-unwind-cxx sort|virtual|all [SECONDS]\n");
	return 2;
}
