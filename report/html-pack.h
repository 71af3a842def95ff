/* html-pack.h — the byte encodings of the pages' data: varints for the columns of numbers,
 * and the text that carries the compressed bytes inside the page's script element. */
#ifndef RINGPROF_HTML_PACK_H
#define RINGPROF_HTML_PACK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* V as a LEB128 varint (7 bits a byte, the low ones first, the top bit set on every byte but
 * the last) into OUT (10 bytes at most): its length. */
size_t html_varint(uint8_t *out, uint64_t v);
/* A signed number as html_varint() stores it: zigzag (0, -1, 1, -2, ... as 0, 1, 2, 3, ...). */
static inline uint64_t html_zigzag(int64_t v)
{
	return (uint64_t)v << 1 ^ (uint64_t)(v >> 63);
}

/*
 * LEN bytes of IN as text for the page's script element, 7 bits a character (8/7 of the
 * bytes, where base64 takes 4/3): the bits read from the first byte's top down, in groups of
 * 7 (the last group padded with zero bits), group V written as the ASCII character V, except
 * for the four values that would be unsafe there (NUL, line feed, carriage return, "<") and
 * the escape itself, written as "\0", "\n", "\r", "\l" and "\\". A line feed after every
 * HTML_TEXT_LINE groups (the reader skips them). So the text is ASCII without NUL, CR or "<"
 * (no "</script" can end the element, whatever charset the page is read in). The reader
 * (common.js, unpackText()) gets LEN back as the number of groups times 7 divided by 8,
 * rounded down.
 */
#define HTML_TEXT_LINE 128
void html_text_write(FILE *f, const uint8_t *in, size_t len);

#endif
