/* test-htmlpack.c — report/html-pack.h: varints and zigzag as common.js's readColumn() reads
 * them, and the data element's text as its unpackText() reads it: every length of random
 * bytes and bit patterns made to hit each escaped value come back the same, and the text is
 * ASCII without NUL, CR or "<", its lines HTML_TEXT_LINE groups. */
#include <stdlib.h>
#include <string.h>

#include "../report/html-pack.h"
#include "check.h"

/* What readColumn() does for one value, in integers. */
static uint64_t read_varint(const uint8_t *p, size_t *len)
{
	uint64_t v = 0;
	size_t n = 0;

	do
		v |= (uint64_t)(p[n] & 0x7f) << (7 * n);
	while (p[n++] & 0x80 && n < 10);
	*len = n;
	return v;
}

static void varints(void)
{
	static const struct {
		uint64_t v;
		size_t len;
	} cases[] = { { 0, 1 },		 { 1, 1 },	    { 127, 1 },
		      { 128, 2 },	 { 16383, 2 },	    { 16384, 3 },
		      { 0x7fffffff, 5 }, { 1ull << 53, 8 }, { ~0ull, 10 } };
	uint8_t buf[10];

	test_ctx = "varint";
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = html_varint(buf, cases[i].v), back;

		CHECK(n == cases[i].len, "%llu: %zu bytes, expected %zu",
		      (unsigned long long)cases[i].v, n, cases[i].len);
		CHECK(read_varint(buf, &back) == cases[i].v && back == n, "%llu back",
		      (unsigned long long)cases[i].v);
		for (size_t k = 0; k < n; k++)
			CHECK((buf[k] >= 0x80) == (k + 1 < n),
			      "the top bit on all bytes but the last");
	}
	test_ctx = "zigzag";
	CHECK_U64(html_zigzag(0), 0);
	CHECK_U64(html_zigzag(-1), 1);
	CHECK_U64(html_zigzag(1), 2);
	CHECK_U64(html_zigzag(-2), 3);
	CHECK_U64(html_zigzag(INT64_MAX), ~0ull - 1);
	CHECK_U64(html_zigzag(INT64_MIN), ~0ull);
}

/* What unpackText() does, on TEXT (LEN bytes): the bytes into OUT, their number, or -1 with a
 * failed check where the text is not what the page can read. */
static long unpack(const uint8_t *t, size_t len, uint8_t *out)
{
	uint32_t acc = 0;
	unsigned bits = 0;
	long k = 0;
	size_t groups = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned c = t[i];

		if (c == '\n') {
			if (!CHECK(groups % HTML_TEXT_LINE == 0 && groups, "a line feed after %zu",
				   groups))
				return -1;
			continue;
		}
		if (c == '\\') {
			const char *from = "0nrl\\", *at;
			static const unsigned to[] = { 0, '\n', '\r', '<', '\\' };

			at = i + 1 < len && t[i + 1] ? strchr(from, t[i + 1]) : NULL;
			if (!CHECK(at, "byte %zu: an escape of nothing known", i))
				return -1;
			c = to[at - from];
			i++;
		} else if (!CHECK(c < 0x80 && c != 0 && c != '\r' && c != '<',
				  "byte %zu: %u as it is", i, c))
			return -1;
		groups++;
		acc = (acc << 7 | c) & 0x7fff;
		bits += 7;
		if (bits >= 8) {
			bits -= 8;
			out[k++] = (uint8_t)(acc >> bits);
		}
	}
	return k;
}

/* LEN bytes of IN through the text and back; the text at most MAX_TEXT bytes. */
static void round_trip(const char *what, const uint8_t *in, size_t len, size_t max_text)
{
	char *text = NULL;
	size_t tlen = 0;
	FILE *m = open_memstream(&text, &tlen);
	uint8_t *back = malloc(len + 1);

	test_ctx = what;
	if (!CHECK(m && back)) {
		free(back);
		return;
	}
	html_text_write(m, in, len);
	fclose(m);
	CHECK(tlen <= max_text, "%zu bytes as %zu, at most %zu expected", len, tlen, max_text);
	CHECK_INT(unpack((const uint8_t *)text, tlen, back), (long)len);
	CHECK(len == 0 || memcmp(back, in, len) == 0, "%zu bytes: the same bytes back", len);
	free(text);
	free(back);
}

/* N bytes of the 7-bit group V again and again (with the group after it, NEXT). */
static void groups_of(uint8_t *out, size_t n, unsigned v, unsigned next)
{
	uint32_t acc = 0;
	unsigned bits = 0;
	size_t k = 0;

	for (unsigned g = 0; k < n; g++) {
		acc = acc << 7 | (g % 2 ? next : v);
		bits += 7;
		while (bits >= 8 && k < n) {
			bits -= 8;
			out[k++] = (uint8_t)(acc >> bits);
		}
		acc &= (1u << bits) - 1;
	}
}

/* The text of LEN bytes at most: each 7-bit group in two bytes, and the line feeds. */
static size_t most(size_t len)
{
	size_t groups = (len * 8 + 6) / 7;

	return 2 * groups + groups / HTML_TEXT_LINE;
}

int main(void)
{
	static uint8_t noise[100000], pattern[4096];
	static const unsigned unsafe[] = { 0, '\n', '\r', '<', '\\', 127, '/', 'A' };
	char name[64];
	uint32_t x = 12345;

	varints();
	for (size_t i = 0; i < sizeof(noise); i++) {
		x = x * 1103515245u + 12345u;
		noise[i] = (uint8_t)(x >> 16);
	}
	for (size_t len = 0; len <= 64; len++) {
		snprintf(name, sizeof(name), "random, %zu bytes", len);
		round_trip(name, noise, len, most(len));
	}
	/* Random bytes: 5 groups in 128 escaped, 8/7 of the bytes and a little more (base64: 4/3). */
	round_trip("random, 100000 bytes", noise, sizeof(noise), sizeof(noise) * 8 / 7 * 105 / 100);
	for (size_t a = 0; a < sizeof(unsafe) / sizeof(unsafe[0]); a++)
		for (size_t b = 0; b < sizeof(unsafe) / sizeof(unsafe[0]); b++) {
			groups_of(pattern, sizeof(pattern), unsafe[a], unsafe[b]);
			snprintf(name, sizeof(name), "groups %u then %u", unsafe[a], unsafe[b]);
			round_trip(name, pattern, sizeof(pattern), most(sizeof(pattern)));
		}
	memset(pattern, 0, sizeof(pattern));
	round_trip("zero bytes", pattern, sizeof(pattern), most(sizeof(pattern)));
	memset(pattern, 0xff, sizeof(pattern));
	round_trip("0xff bytes", pattern, sizeof(pattern), most(sizeof(pattern)));
	return check_done("test-htmlpack");
}
