/* hash.h — the hash functions of every table in ringprof: integers, pairs, bytes, stacks. */
#ifndef RP_HASH_H
#define RP_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A bijective mix of all 64 bits into all 64 bits (MurmurHash3's finalizer). */
static inline uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

static inline uint64_t hash_pair(uint64_t a, uint64_t b)
{
	return hash_u64(a * 0x9e3779b97f4a7c15ull ^ hash_u64(b));
}

/* FNV-1a over N bytes, continuing from SEED (HASH_SEED to start). */
#define HASH_SEED 0xcbf29ce484222325ull
static inline uint64_t hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *b = p;
	uint64_t h = seed;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static inline uint64_t hash_str(const char *s)
{
	return hash_u64(hash_bytes(s, strlen(s), HASH_SEED));
}

/* N 32-bit values (a symbol or location stack). */
static inline uint64_t hash_u32s(const uint32_t *v, size_t n)
{
	uint64_t h = n * 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ v[i]) * 0x100000001b3ull + (h >> 29);
	return hash_u64(h);
}

/*
 * A recorded stack's content: the samples' misc, the ip and NR callchain words at CHAIN,
 * which need not be aligned (they may point into a packed record). The recorder's stack table
 * and the reader's stack store both hash stacks with it. One multiply per word: this runs on
 * the recorder's hot path for every sample.
 */
static inline uint64_t hash_stack(uint16_t misc, uint64_t ip, const void *chain, size_t nr)
{
	const unsigned char *c = chain;
	uint64_t h =
	    (0x243F6A8885A308D3ull ^ nr ^ (uint64_t)misc << 48 ^ ip) * 0x9E3779B97F4A7C15ull;

	for (size_t i = 0; i < nr; i++) {
		uint64_t v;

		memcpy(&v, c + 8 * i, 8);
		h = ((h ^ (h >> 29)) ^ v) * 0x9E3779B97F4A7C15ull;
	}
	return h ^ (h >> 32);
}

#endif
