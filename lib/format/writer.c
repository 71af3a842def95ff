/* writer.c — frame policy of the recording format: records into a frame buffer, frames to disk. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "base/crc32c.h"
#include "format/format.h"
#include "format/writer.h"
#include "format/zframe.h"

/* A frame is closed at this raw size even if its interval has not passed: it bounds the
 * recorder's memory and what a crash can lose. */
#define FRAME_RAW_CAP (8u << 20)

struct writer {
	int fd;
	uint64_t off; /* end of the last complete frame */
	struct zframe *z;
	unsigned char *raw; /* FRAME_RAW_CAP bytes, 8-aligned */
	size_t raw_len;
	uint32_t n_records;
	unsigned char *zbuf; /* zframe_bound(FRAME_RAW_CAP) */
	size_t zcap;
	uint64_t seq;
	uint64_t t_safe;
	uint64_t t_end;	 /* writer_set_end() (0: none) */
	uint64_t t_lo;	 /* t_safe when the open frame got its first record */
	uint64_t opened; /* clock when the open frame got its first record */
	uint64_t sample_type;
	uint64_t prologue[WRITER_PROLOGUE_MAX / 8]; /* header, time, fields */
	size_t prologue_len;
	uint64_t (*clock)(void);
	struct writer_stats st;
};

static uint64_t clock_monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int writer_fdopen(int fd, int level, struct writer **ret)
{
	struct writer *w = calloc(1, sizeof(*w));

	if (!w)
		return -ENOMEM;
	w->fd = fd;
	w->clock = clock_monotonic;
	w->z = zframe_new(level);
	w->raw = aligned_alloc(8, FRAME_RAW_CAP);
	w->zcap = zframe_bound(FRAME_RAW_CAP);
	w->zbuf = malloc(w->zcap);
	if (!w->z || !w->raw || !w->zbuf) {
		zframe_free(w->z);
		free(w->raw);
		free(w->zbuf);
		free(w);
		return -ENOMEM;
	}
	*ret = w;
	return 0;
}

int writer_open(const char *path, int mode, int level, struct writer **ret)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	int r;

	if (fd < 0)
		return -errno;
	r = writer_fdopen(fd, level, ret);
	if (r < 0)
		close(fd);
	return r;
}

int writer_create(const char *path, int mode, int level, struct writer **ret)
{
	const char *slash = strrchr(path, '/');
	size_t len = strlen(path) + 16;
	char *tmp = malloc(len);
	int fd, r;

	if (!tmp)
		return -ENOMEM;
	/* A hidden name beside path: the rename below stays in one directory. */
	if (slash)
		snprintf(tmp, len, "%.*s.%s.XXXXXX", (int)(slash - path + 1), path, slash + 1);
	else
		snprintf(tmp, len, ".%s.XXXXXX", path);
	fd = mkostemp(tmp, O_CLOEXEC); /* O_CREAT | O_EXCL: never through a link */
	if (fd < 0) {
		r = -errno;
		free(tmp);
		return r;
	}
	if (fchmod(fd, (mode_t)mode) < 0 || rename(tmp, path) < 0) {
		r = -errno;
		unlink(tmp);
		close(fd);
		free(tmp);
		return r;
	}
	free(tmp);
	r = writer_fdopen(fd, level, ret);
	if (r < 0)
		close(fd);
	return r;
}

/* The prologue into the open frame, stamped with the watermark. */
static void put_prologue(struct writer *w)
{
	uint64_t *p = (uint64_t *)(void *)(w->raw + w->raw_len);

	memcpy(p, w->prologue, w->prologue_len);
	p[1] = w->t_safe;
	w->raw_len += w->prologue_len;
	w->n_records++;
}

void *writer_reserve(struct writer *w, size_t size)
{
	void *p;

	if (size < 8 || size > RP_RECORD_MAX || size % 8)
		return NULL;
	/* Full: close the frame. A failure is counted in the stats; the buffer is empty after it. */
	if (w->raw_len + w->prologue_len + size > FRAME_RAW_CAP)
		writer_flush(w);
	if (!w->raw_len) {
		w->t_lo = w->t_safe;
		w->opened = w->clock();
		if (w->prologue_len)
			put_prologue(w);
	}
	p = w->raw + w->raw_len;
	w->raw_len += size;
	w->n_records++;
	return p;
}

void writer_add(struct writer *w, const void *rec, size_t size)
{
	void *p = writer_reserve(w, size);

	if (p)
		memcpy(p, rec, size);
}

void writer_set_prologue(struct writer *w, const void *rec, size_t size)
{
	if (size % 8 || size > sizeof(w->prologue) || (size && size < 16))
		return;
	memcpy(w->prologue, rec, size);
	w->prologue_len = size;
	if (!size || !w->raw_len)
		return;
	if (w->raw_len + size > FRAME_RAW_CAP)
		writer_flush(w); /* the next frame starts with it */
	else
		put_prologue(w);
}

void writer_set_safe_time(struct writer *w, uint64_t t)
{
	if (t > w->t_safe)
		w->t_safe = t;
}

void writer_set_end(struct writer *w, uint64_t t)
{
	w->t_end = t;
}

void writer_set_clock(struct writer *w, uint64_t (*clock)(void))
{
	w->clock = clock;
}

size_t writer_pending(const struct writer *w)
{
	return w->raw_len;
}

bool writer_due(const struct writer *w, uint64_t now, uint64_t interval_ns)
{
	return w->raw_len && now - w->opened >= interval_ns;
}

static int write_all(int fd, struct iovec *iov, int n, uint64_t off)
{
	while (n > 0) {
		ssize_t r = pwritev(fd, iov, n, (off_t)off);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -EIO;
		off += (uint64_t)r;
		while (n > 0 && (size_t)r >= iov->iov_len) {
			r -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + r;
			iov->iov_len -= (size_t)r;
		}
	}
	return 0;
}

/* The sample_type goes into every descriptor; it is read from the header record the first
 * time one passes through. */
static void note_header(struct writer *w)
{
	const struct rp_header_rec *h = (const void *)w->raw;

	if (!w->sample_type && w->raw_len >= sizeof(*h) && h->hdr.type == RP_REC_HEADER)
		w->sample_type = h->sample_type;
}

int writer_flush(struct writer *w)
{
	struct rp_frame_desc d;
	struct iovec iov[2];
	size_t zsize;
	int r;

	if (!w->raw_len)
		return 0;
	note_header(w);
	r = zframe_compress(w->z, w->zbuf, w->zcap, w->raw, w->raw_len, &zsize);
	if (r == 0) {
		memset(&d, 0, sizeof(d));
		d.skip_magic = RP_SKIPPABLE_MAGIC;
		d.skip_size = sizeof(d) - 8;
		d.magic = RP_DESC_MAGIC;
		d.major = RP_FORMAT_MAJOR;
		d.minor = RP_FORMAT_MINOR;
		d.seq = w->seq;
		d.t_lo = w->t_lo;
		d.t_hi = w->t_end ? w->t_end : w->clock();
		if (d.t_hi < w->t_safe)
			d.t_hi = w->t_safe;
		d.t_safe = w->t_safe;
		d.sample_type = w->sample_type;
		d.n_records = w->n_records;
		d.raw_size = (uint32_t)w->raw_len;
		d.zsize = (uint32_t)zsize;
		d.crc = crc32c(0, &d, offsetof(struct rp_frame_desc, crc));
		iov[0] = (struct iovec){ &d, sizeof(d) };
		iov[1] = (struct iovec){ w->zbuf, zsize };
		r = write_all(w->fd, iov, 2, w->off);
	}
	if (r < 0) {
		/* Cut a partly written frame off so later frames follow a complete one. */
		if (ftruncate(w->fd, (off_t)w->off) < 0) {
			/* Nothing more to do: the reader skips a torn frame by its descriptor. */
		}
		w->st.dropped_records += w->n_records;
		w->st.dropped_bytes += w->raw_len;
		w->st.dropped_frames++;
		w->st.last_error = r;
	} else {
		w->off += sizeof(d) + zsize;
		w->seq++;
		w->st.frames++;
		w->st.records += w->n_records;
		w->st.raw_bytes += w->raw_len;
		w->st.file_bytes = w->off;
		w->st.last_error = 0;
	}
	w->raw_len = 0;
	w->n_records = 0;
	return r;
}

int writer_sync(struct writer *w)
{
	int r = writer_flush(w);

	if (fdatasync(w->fd) < 0 && r == 0)
		r = -errno;
	return r;
}

static int close_writer(struct writer *w, bool sync)
{
	int r;

	if (!w)
		return 0;
	r = writer_flush(w);
	if (sync && fsync(w->fd) < 0 && r == 0 && errno != EINVAL)
		r = -errno;
	if (close(w->fd) < 0 && r == 0)
		r = -errno;
	zframe_free(w->z);
	free(w->raw);
	free(w->zbuf);
	free(w);
	return r;
}

int writer_close(struct writer *w)
{
	return close_writer(w, true);
}

int writer_close_nosync(struct writer *w)
{
	return close_writer(w, false);
}

const struct writer_stats *writer_stats(const struct writer *w)
{
	return &w->st;
}
