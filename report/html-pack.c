/* html-pack.c — the byte encodings of the pages' data (html-pack.h). */
#include "html-pack.h"

size_t html_varint(uint8_t *out, uint64_t v)
{
	size_t n = 0;

	for (; v >= 0x80; v >>= 7)
		out[n++] = (uint8_t)(v & 0x7f) | 0x80;
	out[n++] = (uint8_t)v;
	return n;
}

/* Group V (0..127) as its character, or two for those unsafe in the element and the escape. */
static void text_char(FILE *f, unsigned v)
{
	const char *esc = v == 0      ? "\\0"
			  : v == '\n' ? "\\n"
			  : v == '\r' ? "\\r"
			  : v == '<'  ? "\\l"
			  : v == '\\' ? "\\\\"
				      : NULL;

	if (esc)
		fputs(esc, f);
	else
		putc((int)v, f);
}

void html_text_write(FILE *f, const uint8_t *in, size_t len)
{
	uint32_t acc = 0;
	unsigned bits = 0;
	size_t groups = 0;

	for (size_t i = 0; i < len; i++) {
		acc = acc << 8 | in[i];
		bits += 8;
		while (bits >= 7) {
			bits -= 7;
			text_char(f, acc >> bits & 0x7f);
			if (++groups % HTML_TEXT_LINE == 0)
				putc('\n', f);
		}
		acc &= (1u << bits) - 1;
	}
	if (bits)
		text_char(f, acc << (7 - bits) & 0x7f);
}
