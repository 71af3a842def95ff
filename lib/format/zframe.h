/* zframe.h — the one adapter to zstd: compress a buffer into one checksummed frame, and back. */
#ifndef RP_ZFRAME_H
#define RP_ZFRAME_H

#include <stddef.h>

struct zframe;

/* A compression/decompression context. Level is zstd's (1..19). NULL on ENOMEM. */
struct zframe *zframe_new(int level);
struct zframe *zframe_free(struct zframe *z);

/* Worst-case compressed size of n bytes. */
size_t zframe_bound(size_t n);

/* Compress src into one complete zstd frame with content size and checksum.
 * 0 and *ret_size, or -ENOBUFS when dst is too small, -EIO on other zstd errors. */
int zframe_compress(struct zframe *z, void *dst, size_t cap, const void *src, size_t n,
		    size_t *ret_size);

/* Decompress exactly one frame of n bytes into dst. 0 and *ret_size, or -EBADMSG when the
 * frame is corrupt (checksum mismatch included), -ENOBUFS when it does not fit. */
int zframe_decompress(struct zframe *z, void *dst, size_t cap, const void *src, size_t n,
		      size_t *ret_size);

/* The first bytes of one frame of n bytes, until dst's CAP are filled or the frame ends (its
 * checksum is then not checked: the whole frame was not read). 0 and *ret_size, or -EBADMSG
 * when what was read is corrupt or the frame ends early. */
int zframe_decompress_head(struct zframe *z, void *dst, size_t cap, const void *src, size_t n,
			   size_t *ret_size);

/* Text of the last zstd error seen by z, for messages. */
const char *zframe_last_error(const struct zframe *z);

#endif
