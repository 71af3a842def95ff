/* gzip.h — bytes as one gzip member (RFC 1952): the zlib adapter, for pprof's profile.proto
 * and report --html's data, which the browser's DecompressionStream("gzip") reads. */
#ifndef RP_GZIP_H
#define RP_GZIP_H

#include <stddef.h>
#include <stdint.h>

/* LEN bytes of IN compressed into a malloc'd *ret_buf (the caller frees it), *ret_len long.
 * 0, or -ENOMEM (zlib's failures are all of memory here); the out-parameters are untouched on
 * failure. */
int gzip_compress(const uint8_t *in, size_t len, uint8_t **ret_buf, size_t *ret_len);

#endif
