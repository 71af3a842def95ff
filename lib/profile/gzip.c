/* gzip.c — the zlib adapter: bytes as one gzip member (gzip.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "profile/gzip.h"

int gzip_compress(const uint8_t *in, size_t len, enum gzip_level level, uint8_t **ret_buf,
		  size_t *ret_len)
{
	z_stream z;
	uint8_t *out;
	uLong cap;

	if (len > UINT32_MAX) /* one deflate() call takes at most 4 GiB */
		return -ENOMEM;
	memset(&z, 0, sizeof(z));
	/* windowBits 15 + 16: a gzip header and trailer rather than zlib's. */
	if (deflateInit2(&z, level == GZIP_FAST ? Z_BEST_SPEED : Z_DEFAULT_COMPRESSION, Z_DEFLATED,
			 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	cap = deflateBound(&z, (uLong)len) + 32; /* + the gzip header deflateBound may omit */
	out = malloc(cap);
	if (!out) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
		deflateEnd(&z);
		free(out);
		return -ENOMEM;
	}
	*ret_len = z.total_out;
	*ret_buf = out;
	deflateEnd(&z);
	return 0;
}
