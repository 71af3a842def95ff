/* test-gzip.c — profile/gzip.h: what it compresses inflates back to the same bytes as a gzip
 * member (as pprof readers and the browser's DecompressionStream("gzip") read it), empty
 * input included, and repetitive data shrinks, at both levels; the fast one is larger. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "check.h"
#include "profile/gzip.h"

/* Inflate the gzip member Z (ZLEN) into OUT (at most CAP): the length, or -1. */
static long inflate_gzip(const uint8_t *z, size_t zlen, uint8_t *out, size_t cap)
{
	z_stream s;
	long n;

	memset(&s, 0, sizeof(s));
	if (inflateInit2(&s, 15 + 16) != Z_OK) /* 15 + 16: a gzip header, nothing else */
		return -1;
	s.next_in = (Bytef *)z;
	s.avail_in = (uInt)zlen;
	s.next_out = out;
	s.avail_out = (uInt)cap;
	n = inflate(&s, Z_FINISH) == Z_STREAM_END ? (long)s.total_out : -1;
	inflateEnd(&s);
	return n;
}

/* Compress at LEVEL, inflate back: the compressed length, or 0 on a failed check. */
static size_t round_trip(const char *what, const uint8_t *in, size_t len, size_t max_zlen,
			 enum gzip_level level)
{
	uint8_t *z = NULL, *back = malloc(len + 16);
	size_t zlen = 0;

	test_ctx = what;
	if (!CHECK(back) || !CHECK_INT(gzip_compress(in, len, level, &z, &zlen), 0)) {
		free(back);
		return 0;
	}
	CHECK(zlen >= 18 && z[0] == 0x1f && z[1] == 0x8b, "a gzip member starts 1f 8b");
	CHECK(zlen <= max_zlen, "%zu bytes compressed to %zu, expected at most %zu", len, zlen,
	      max_zlen);
	CHECK_INT(inflate_gzip(z, zlen, back, len + 16), (long)len);
	CHECK(len == 0 || memcmp(back, in, len) == 0, "the same bytes back");
	free(z);
	free(back);
	return zlen;
}

int main(void)
{
	static uint8_t text[200000], noise[4096];
	uint32_t x = 12345;

	for (size_t i = 0; i < sizeof(text); i++)
		text[i] = "0123456789,[]\n"[i % 14];
	for (size_t i = 0; i < sizeof(noise); i++) {
		x = x * 1103515245u + 12345u;
		noise[i] = (uint8_t)(x >> 16);
	}
	for (int l = GZIP_FAST; l <= GZIP_SMALL; l++) {
		round_trip("empty", (const uint8_t *)"", 0, 64, l);
		round_trip("repetitive text", text, sizeof(text), sizeof(text) / 50, l);
		round_trip("random bytes", noise, sizeof(noise), sizeof(noise) + 64, l);
	}
	/* The two levels are two: fast is larger on text with some variety. */
	for (size_t i = 0; i < sizeof(text); i++) {
		x = x * 1103515245u + 12345u;
		text[i] = "0123456789,[]\nabcdef"[(x >> 16) % (i % 7 + 14)];
	}
	test_ctx = "levels";
	CHECK(round_trip("varied text, fast", text, sizeof(text), sizeof(text), GZIP_FAST) >
		  round_trip("varied text, small", text, sizeof(text), sizeof(text), GZIP_SMALL),
	      "GZIP_FAST gives more bytes than GZIP_SMALL");
	return check_done("test-gzip");
}
