/* zframe.c — zstd adapter: zstd's size_t error codes stop here and become -errno. */
#include <errno.h>
#include <stdlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "format/zframe.h"

struct zframe {
	ZSTD_CCtx *cctx;
	ZSTD_DCtx *dctx;
	int level;
	const char *last_error;
};

struct zframe *zframe_new(int level)
{
	struct zframe *z = calloc(1, sizeof(*z));

	if (!z)
		return NULL;
	z->level = level;
	z->last_error = "no error";
	return z;
}

struct zframe *zframe_free(struct zframe *z)
{
	if (!z)
		return NULL;
	ZSTD_freeCCtx(z->cctx);
	ZSTD_freeDCtx(z->dctx);
	free(z);
	return NULL;
}

size_t zframe_bound(size_t n)
{
	return ZSTD_compressBound(n);
}

int zframe_compress(struct zframe *z, void *dst, size_t cap, const void *src, size_t n,
		    size_t *ret_size)
{
	size_t r;

	if (!z->cctx) {
		z->cctx = ZSTD_createCCtx();
		if (!z->cctx)
			return -ENOMEM;
		ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_compressionLevel, z->level);
		ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_checksumFlag, 1);
		ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_contentSizeFlag, 1);
	}
	r = ZSTD_compress2(z->cctx, dst, cap, src, n);
	if (ZSTD_isError(r)) {
		z->last_error = ZSTD_getErrorName(r);
		switch (ZSTD_getErrorCode(r)) {
		case ZSTD_error_dstSize_tooSmall:
			return -ENOBUFS;
		case ZSTD_error_memory_allocation:
			return -ENOMEM; /* said as such, not as an I/O error */
		default:
			return -EIO;
		}
	}
	*ret_size = r;
	return 0;
}

int zframe_decompress(struct zframe *z, void *dst, size_t cap, const void *src, size_t n,
		      size_t *ret_size)
{
	size_t r;

	if (!z->dctx) {
		z->dctx = ZSTD_createDCtx();
		if (!z->dctx)
			return -ENOMEM;
	}
	r = ZSTD_decompressDCtx(z->dctx, dst, cap, src, n);
	if (ZSTD_isError(r)) {
		z->last_error = ZSTD_getErrorName(r);
		return ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall ? -ENOBUFS : -EBADMSG;
	}
	*ret_size = r;
	return 0;
}

int zframe_decompress_head(struct zframe *z, void *dst, size_t cap, const void *src, size_t n,
			   size_t *ret_size)
{
	ZSTD_inBuffer in = { src, n, 0 };
	ZSTD_outBuffer out = { dst, cap, 0 };
	int rc = 0;

	if (!z->dctx) {
		z->dctx = ZSTD_createDCtx();
		if (!z->dctx)
			return -ENOMEM;
	}
	ZSTD_DCtx_reset(z->dctx, ZSTD_reset_session_only);
	while (out.pos < out.size) {
		size_t was_in = in.pos, was_out = out.pos;
		size_t r = ZSTD_decompressStream(z->dctx, &out, &in);

		if (ZSTD_isError(r)) {
			z->last_error = ZSTD_getErrorName(r);
			rc = -EBADMSG;
			break;
		}
		if (r == 0)
			break; /* the frame ended */
		if (in.pos == was_in && out.pos == was_out) {
			z->last_error = "the frame ends early";
			rc = -EBADMSG;
			break;
		}
	}
	ZSTD_DCtx_reset(z->dctx, ZSTD_reset_session_only);
	*ret_size = out.pos;
	return rc;
}

const char *zframe_last_error(const struct zframe *z)
{
	return z->last_error;
}
