/* html-out.c — what the pages of `report --html` and `diff --html` share: JSON strings, and
 * the page written from its markup with the style, the script and the data (JSON,
 * gzip-compressed in base64, which the page reads with DecompressionStream) in their places. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "profile/gzip.h"

void html_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&' || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* LEN bytes of IN in base64, lines of 76 characters. */
static void write_base64(FILE *f, const uint8_t *in, size_t len)
{
	static const char digits[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < len ? (uint32_t)in[i + 1] << 8 : 0) |
			     (i + 2 < len ? in[i + 2] : 0);

		fputc(digits[v >> 18 & 63], f);
		fputc(digits[v >> 12 & 63], f);
		fputc(i + 1 < len ? digits[v >> 6 & 63] : '=', f);
		fputc(i + 2 < len ? digits[v & 63] : '=', f);
		if ((i / 3 + 1) % 19 == 0)
			fputc('\n', f);
	}
}

/* DATA's JSON, gzip-compressed, in base64. 0 or -ENOMEM. */
static int write_packed(FILE *f, int (*data)(FILE *, void *), void *arg)
{
	char *json = NULL;
	size_t len = 0, zlen;
	uint8_t *z;
	FILE *m = open_memstream(&json, &len);
	int r;

	if (!m)
		return -ENOMEM;
	r = data(m, arg);
	if ((r < 0) | ferror(m) | (fclose(m) != 0)) {
		free(json);
		return -ENOMEM;
	}
	r = gzip_compress((const uint8_t *)json, len, &z, &zlen);
	free(json);
	if (r < 0)
		return r;
	write_base64(f, z, zlen);
	free(z);
	return 0;
}

/* MARKUP with the style, data and script in their places. 0 or -ENOMEM. */
static int write_page(FILE *f, const char *markup, const char *script, int (*data)(FILE *, void *),
		      void *arg)
{
	const char *p = markup;

	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) + 1 : strlen(p);

		if (strncmp(p, "@STYLE@\n", len) == 0 && len == 8)
			fputs(html_page_style, f);
		else if (strncmp(p, "@SCRIPT@\n", len) == 0 && len == 9)
			fputs(script, f);
		else if (strncmp(p, "@DATA@\n", len) == 0 && len == 7) {
			if (write_packed(f, data, arg) < 0)
				return -ENOMEM;
			fputc('\n', f);
		} else
			fwrite(p, 1, len, f);
		p += len;
	}
	return 0;
}

int html_page_write(const char *path, const char *markup, const char *script,
		    int (*data)(FILE *, void *), void *arg, char *why, size_t why_size)
{
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
	int r;

	if (!f) {
		r = -errno;
		snprintf(why, why_size, "%s: %s", path, strerror(-r));
		return r;
	}
	r = write_page(f, markup, script, data, arg);
	if (r < 0) {
		if (f != stdout)
			fclose(f);
		snprintf(why, why_size, "out of memory");
		return r;
	}
	if (ferror(f) | (f == stdout ? fflush(f) != 0 : fclose(f) != 0)) {
		r = errno ? -errno : -EIO;
		snprintf(why, why_size, "%s: could not write: %s", path, strerror(-r));
		return r;
	}
	return 0;
}
