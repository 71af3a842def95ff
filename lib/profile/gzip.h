/* gzip.h — bytes as one gzip member (RFC 1952): the zlib adapter, for pprof's profile.proto
 * and report --html's data, which the browser's DecompressionStream("gzip") reads. */
#ifndef RP_GZIP_H
#define RP_GZIP_H

#include <stddef.h>
#include <stdint.h>

/* How hard to compress: GZIP_FAST as Go's runtime/pprof writes its profiles (zlib's level 1:
 * on a 24 MB profile 0.24 s against 0.56 s, 10 % larger), GZIP_SMALL where the bytes are
 * shipped and kept (report --html's page: zlib's default level). */
enum gzip_level { GZIP_FAST, GZIP_SMALL };

/* LEN bytes of IN compressed into a malloc'd *ret_buf (the caller frees it), *ret_len long.
 * 0, or -ENOMEM (zlib's failures are all of memory here); the out-parameters are untouched on
 * failure. */
int gzip_compress(const uint8_t *in, size_t len, enum gzip_level level, uint8_t **ret_buf,
		  size_t *ret_len);

#endif
