/* sha256.c — SHA-256 as FIPS 180-4 states it (see sha256.h). */
#include <stdbool.h>
#include <string.h>

#include "base/sha256.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#endif

static const uint32_t k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

static uint32_t ror(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

/* n blocks of p into h, in portable C. */
static void blocks_c(uint32_t h[8], const unsigned char *p, size_t n)
{
	for (; n--; p += 64) {
		uint32_t w[64], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5],
				g = h[6], hh = h[7];

		for (int i = 0; i < 16; i++)
			w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
			       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
		for (int i = 16; i < 64; i++)
			w[i] = w[i - 16] +
			       (ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3)) +
			       w[i - 7] +
			       (ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10));
		for (int i = 0; i < 64; i++) {
			uint32_t t1 = hh + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) +
				      ((e & f) ^ (~e & g)) + k[i] + w[i];
			uint32_t t2 =
			    (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));

			hh = g;
			g = f;
			f = e;
			e = d + t1;
			d = c;
			c = b;
			b = a;
			a = t1 + t2;
		}
		h[0] += a;
		h[1] += b;
		h[2] += c;
		h[3] += d;
		h[4] += e;
		h[5] += f;
		h[6] += g;
		h[7] += hh;
	}
}

#if defined(__x86_64__) && defined(__GNUC__)
/*
 * n blocks with the x86 SHA extensions (sha256rnds2: two rounds an instruction; sha256msg1/2:
 * the message schedule), ~10x the portable C: the digest of node's unwind and symbol
 * sections is a fifth of a report's time without them. The state is kept as the
 * instructions want it, (a, b, e, f) and (c, d, g, h).
 */
__attribute__((target("sha,sse4.1,ssse3"))) static void blocks_x86(uint32_t h[8],
								   const unsigned char *p, size_t n)
{
	const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
	__m128i t = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[0]), 0xb1);  /* c d a b */
	__m128i s1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[4]), 0x1b); /* e f g h */
	__m128i s0 = _mm_alignr_epi8(t, s1, 8);					       /* a b e f */

	s1 = _mm_blend_epi16(s1, t, 0xf0); /* c d g h */
	for (; n--; p += 64) {
		__m128i save0 = s0, save1 = s1, w[4], m;

		for (int i = 0; i < 4; i++)
			w[i] =
			    _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), swap);
		for (int i = 0; i < 16; i++) {
			m = _mm_add_epi32(w[i & 3], _mm_loadu_si128((const __m128i *)&k[4 * i]));
			s1 = _mm_sha256rnds2_epu32(s1, s0, m);
			s0 = _mm_sha256rnds2_epu32(s0, s1, _mm_shuffle_epi32(m, 0x0e));
			if (i < 12) { /* words 4i+16..4i+19, from 4i..4i+15 */
				m = _mm_sha256msg1_epu32(w[i & 3], w[(i + 1) & 3]);
				m = _mm_add_epi32(m, _mm_alignr_epi8(w[(i + 3) & 3], w[(i + 2) & 3],
								     4));
				w[i & 3] = _mm_sha256msg2_epu32(m, w[(i + 3) & 3]);
			}
		}
		s0 = _mm_add_epi32(s0, save0);
		s1 = _mm_add_epi32(s1, save1);
	}
	t = _mm_shuffle_epi32(s0, 0x1b);				  /* f e b a */
	s1 = _mm_shuffle_epi32(s1, 0xb1);				  /* d c h g */
	_mm_storeu_si128((__m128i *)&h[0], _mm_blend_epi16(t, s1, 0xf0)); /* d c b a */
	_mm_storeu_si128((__m128i *)&h[4], _mm_alignr_epi8(s1, t, 8));	  /* h g f e */
}

static bool cpu_has_sha(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSE4_1) || !(c & bit_SSSE3))
		return false;
	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA);
}
#else
static bool cpu_has_sha(void)
{
	return false;
}
#define blocks_x86 blocks_c
#endif

/* 0: not asked yet (CPUID traps to the hypervisor in a VM: asked once), 1: C, 2: SHA. */
static int mode;

bool sha256_accelerated(void)
{
	int m = __atomic_load_n(&mode, __ATOMIC_RELAXED);

	if (!m) {
		m = cpu_has_sha() ? 2 : 1;
		__atomic_store_n(&mode, m, __ATOMIC_RELAXED);
	}
	return m == 2;
}

void sha256_portable(bool on)
{
	__atomic_store_n(&mode, on ? 1 : 0, __ATOMIC_RELAXED);
}

static void blocks(uint32_t h[8], const unsigned char *p, size_t n)
{
	if (sha256_accelerated())
		blocks_x86(h, p, n);
	else
		blocks_c(h, p, n);
}

void sha256_init(struct sha256 *s)
{
	static const uint32_t h0[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };

	memcpy(s->h, h0, sizeof(h0));
	s->bytes = 0;
}

void sha256_update(struct sha256 *s, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t have = s->bytes % 64;

	s->bytes += len;
	if (have) {
		size_t take = len < 64 - have ? len : 64 - have;

		memcpy(s->b + have, p, take);
		p += take;
		len -= take;
		if (have + take < 64)
			return;
		blocks(s->h, s->b, 1);
	}
	blocks(s->h, p, len / 64);
	p += len / 64 * 64;
	memcpy(s->b, p, len % 64);
}

void sha256_final(struct sha256 *s, uint8_t out[SHA256_LEN])
{
	uint64_t bits = s->bytes * 8;
	size_t have = s->bytes % 64;

	s->b[have++] = 0x80;
	if (have > 56) {
		memset(s->b + have, 0, 64 - have);
		blocks(s->h, s->b, 1);
		have = 0;
	}
	memset(s->b + have, 0, 56 - have);
	for (int i = 0; i < 8; i++)
		s->b[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
	blocks(s->h, s->b, 1);
	for (int i = 0; i < 8; i++) {
		out[4 * i] = (uint8_t)(s->h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
		out[4 * i + 3] = (uint8_t)s->h[i];
	}
}
