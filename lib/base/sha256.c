/* sha256.c — SHA-256 as FIPS 180-4 states it (see sha256.h). */
#include <string.h>

#include "base/sha256.h"

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

static void block(struct sha256 *s, const unsigned char *p)
{
	uint32_t w[64], v[8], t1, t2;

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++)
		w[i] = w[i - 16] + (ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3)) +
		       w[i - 7] + (ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10));
	memcpy(v, s->h, sizeof(v));
	for (int i = 0; i < 64; i++) {
		t1 = v[7] + (ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25)) +
		     ((v[4] & v[5]) ^ (~v[4] & v[6])) + k[i] + w[i];
		t2 = (ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22)) +
		     ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
		memmove(&v[1], &v[0], 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (int i = 0; i < 8; i++)
		s->h[i] += v[i];
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
		block(s, s->b);
	}
	for (; len >= 64; p += 64, len -= 64)
		block(s, p);
	memcpy(s->b, p, len);
}

void sha256_final(struct sha256 *s, uint8_t out[SHA256_LEN])
{
	uint64_t bits = s->bytes * 8;
	size_t have = s->bytes % 64;

	s->b[have++] = 0x80;
	if (have > 56) {
		memset(s->b + have, 0, 64 - have);
		block(s, s->b);
		have = 0;
	}
	memset(s->b + have, 0, 56 - have);
	for (int i = 0; i < 8; i++)
		s->b[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
	block(s, s->b);
	for (int i = 0; i < 8; i++) {
		out[4 * i] = (uint8_t)(s->h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
		out[4 * i + 3] = (uint8_t)s->h[i];
	}
}
