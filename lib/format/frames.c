/* frames.c — frame validation, decompression and resynchronisation after damage. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/crc32c.h"
#include "base/util.h"
#include "format/frames.h"
#include "format/reader.h"
#include "format/zframe.h"

static const unsigned char desc_pattern[12] = {
	0x5E, 0x2A, 0x4D, 0x18, /* RP_SKIPPABLE_MAGIC */
	0x40, 0x00, 0x00, 0x00, /* skip_size = 64 */
	'R',  'P',  'F',  'D',	/* RP_DESC_MAGIC */
};
_Static_assert(sizeof(struct rp_frame_desc) - 8 == 0x40, "desc_pattern holds skip_size");

#define SCAN_CHUNK (1u << 20)

/* n bytes at off into buf: 0, -ENODATA when the file ends first (it was cut after it was
 * opened), -errno when it cannot be read. */
static int read_at(const struct frames *f, size_t off, void *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = pread(f->fd, (char *)buf + got, n - got, (off_t)(off + got));

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -ENODATA;
		got += (size_t)k;
	}
	return 0;
}

/* The offset of the first descriptor pattern at or after from, in the first size bytes of the
 * file; size when there is none or the file cannot be read that far. */
static size_t find_desc(const struct frames *f, size_t size, size_t from)
{
	unsigned char at[sizeof(desc_pattern)];

	/* Where one frame ends the next begins: no need to scan a chunk for it. */
	if (from < size && size - from >= sizeof(at) && read_at(f, from, at, sizeof(at)) == 0 &&
	    memcmp(at, desc_pattern, sizeof(at)) == 0)
		return from;
	while (from < size && size - from >= sizeof(desc_pattern)) {
		size_t n = size - from < f->scan_size ? size - from : f->scan_size;
		const unsigned char *p;

		if (read_at(f, from, f->scan, n) < 0)
			return size;
		p = memmem(f->scan, n, desc_pattern, sizeof(desc_pattern));
		if (p)
			return from + (size_t)(p - f->scan);
		if (from + n >= size)
			break;
		from += n - (sizeof(desc_pattern) - 1); /* a pattern across the chunks' border */
	}
	return size;
}

static bool desc_valid(const struct rp_frame_desc *d)
{
	return memcmp(d, desc_pattern, sizeof(desc_pattern)) == 0 &&
	       d->crc == crc32c(0, d, offsetof(struct rp_frame_desc, crc));
}

static void describe_foreign(const unsigned char *head, size_t size, char *why, size_t n)
{
	if (size >= 8 && memcmp(head, "PERFILE2", 8) == 0)
		snprintf(why, n,
			 "this is a perf.data file, not a ringprof recording (read it with perf report)");
	else if (size >= 4 && head[0] == 0x28 && head[1] == 0xB5 && head[2] == 0x2F &&
		 head[3] == 0xFD)
		snprintf(why, n,
			 "this is a zstd file without ringprof frames, not a ringprof recording");
	else
		snprintf(why, n, "not a ringprof recording (no ringprof frame found in %zu bytes)",
			 size);
}

/* The file open on fd, of size bytes: 0, or -errno with a sentence in why. */
static int open_regular(const char *path, struct stat *sb, char *why, size_t why_size)
{
	/* O_NONBLOCK: a FIFO given by mistake must not hang us; it is refused below. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), err;

	if (fd < 0) {
		err = -errno;
		snprintf(why, why_size, "cannot open: %s", strerror(errno));
		return err;
	}
	if (fstat(fd, sb) < 0) {
		err = -errno;
		snprintf(why, why_size, "cannot stat: %s", strerror(errno));
		close(fd);
		return err;
	}
	err = 0;
	if (S_ISDIR(sb->st_mode)) {
		snprintf(why, why_size, "is a directory (give a recording file)");
		err = -EISDIR;
	} else if (!S_ISREG(sb->st_mode)) {
		snprintf(why, why_size,
			 "not a regular file (a recording is a file written by ringprof record)");
		err = -EPROTO;
	} else if (sb->st_size == 0) {
		snprintf(why, why_size,
			 "the file is empty (the recorder wrote nothing yet, or it was cut to nothing)");
		err = -ENODATA;
	}
	if (err < 0) {
		close(fd);
		return err;
	}
	return fd;
}

int frames_open(struct frames *f, const char *path, char *why, size_t why_size)
{
	struct stat sb;
	struct rp_frame_desc d;
	unsigned char head[8] = { 0 };
	size_t first;
	int fd;

	f->fd = -1;
	fd = open_regular(path, &sb, why, why_size);
	if (fd < 0)
		return fd;
	f->fd = fd;
	f->size = (size_t)sb.st_size;
	f->until = UINT64_MAX;
	f->scan_size = f->size < SCAN_CHUNK ? f->size : SCAN_CHUNK;
	f->scan = malloc(f->scan_size);
	f->z = zframe_new(1);
	if (!f->scan || !f->z) {
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	/* The first intact descriptor. */
	for (first = find_desc(f, f->size, 0); first < f->size;
	     first = find_desc(f, f->size, first + 1))
		if (f->size - first >= sizeof(d) && read_at(f, first, &d, sizeof(d)) == 0 &&
		    desc_valid(&d))
			break;
	if (first >= f->size) {
		read_at(f, 0, head, f->size < 8 ? f->size : 8);
		if (f->size >= 4 && memcmp(head, desc_pattern, 4) == 0)
			snprintf(why, why_size,
				 "no complete ringprof frame in %zu bytes: the recording was cut short "
				 "or damaged before its first frame ended",
				 f->size);
		else
			describe_foreign(head, f->size, why, why_size);
		return -EPROTO;
	}
	if (d.major < RP_FORMAT_MAJOR_MIN || d.major > RP_FORMAT_MAJOR) {
		snprintf(why, why_size,
			 "written in format version %u by a newer ringprof; this one reads versions %u to %u",
			 d.major, RP_FORMAT_MAJOR_MIN, RP_FORMAT_MAJOR);
		return -EPROTONOSUPPORT;
	}
	return 0;
}

void frames_done(struct frames *f)
{
	if (f->fd >= 0)
		close(f->fd);
	zframe_free(f->z);
	free(f->raw);
	free(f->zbuf);
	free(f->scan);
	f->fd = -1;
	f->z = NULL;
	f->raw = f->zbuf = f->scan = NULL;
}

/* The file turned out shorter than it was at open (rc -ENODATA of a read at off), or could
 * not be read there: say so once, and read no further. */
static void cut_short(struct frames *f, size_t off, int rc)
{
	struct stat sb;

	if (rc == -ENODATA && fstat(f->fd, &sb) == 0)
		util_warnf(f->warn, f->warn_arg,
			   "the file shrank from %zu to %lld bytes while it was read (cut by its writer?); "
			   "nothing from offset %zu on is read",
			   f->size, (long long)sb.st_size, off);
	else
		util_warnf(f->warn, f->warn_arg, "cannot read at offset %zu: %s; the rest is lost",
			   off, strerror(-rc));
	f->st->truncated = true;
	f->st->frames_bad++;
	f->st->bytes_skipped += f->size - f->off;
	f->off = f->size;
}

/* Move to the next descriptor after a damaged stretch starting at from. */
static void resync(struct frames *f, size_t from)
{
	size_t next = find_desc(f, f->size, from);

	f->st->bytes_skipped += next - f->off;
	f->off = next;
}

/* Read and check the descriptor at f->off into *d: 0 when its frame can be decoded, 1 when
 * it was skipped (damage, said and counted), -1 at the end of the file or the time window. */
static int next_desc(struct frames *f, struct rp_frame_desc *d)
{
	size_t left = f->size - f->off;
	int rc;

	if (f->follow && left < sizeof(*d))
		return -1; /* its descriptor is not all written yet */
	if (left < sizeof(*d)) {
		util_warnf(f->warn, f->warn_arg,
			   "file ends %zu bytes into a frame descriptor at offset %zu (truncated); the rest is lost",
			   left, f->off);
		f->st->truncated = true;
		f->st->frames_bad++;
		f->st->bytes_skipped += left;
		f->off = f->size;
		return -1;
	}
	rc = read_at(f, f->off, d, sizeof(*d));
	if (rc < 0) {
		cut_short(f, f->off, rc);
		return -1;
	}
	if (!desc_valid(d)) {
		size_t at = f->off;

		resync(f, f->off + 1);
		f->st->frames_bad++;
		util_warnf(f->warn, f->warn_arg,
			   "damaged frame descriptor at offset %zu; skipped %zu bytes to the next frame",
			   at, f->off - at);
		return 1;
	}
	if (d->major < RP_FORMAT_MAJOR_MIN || d->major > RP_FORMAT_MAJOR ||
	    d->raw_size > RP_FRAME_RAW_MAX || d->zsize > RP_FRAME_Z_MAX) {
		util_warnf(f->warn, f->warn_arg,
			   "frame %llu at offset %zu has an unsupported version or size; skipped",
			   (unsigned long long)d->seq, f->off);
		f->st->frames_bad++;
		resync(f, f->off + 1);
		return 1;
	}
	if (d->t_lo > f->until) {
		f->off = f->size; /* frames only move forward in time */
		return -1;
	}
	if (f->follow && d->zsize > left - sizeof(*d))
		return -1; /* its frame is not all written yet */
	if (d->zsize > left - sizeof(*d)) {
		size_t at = f->off;

		f->st->frames_bad++;
		resync(f, f->off + sizeof(*d));
		if (f->off < f->size) /* another frame follows: the size is what is damaged */
			util_warnf(f->warn, f->warn_arg,
				   "frame %llu at offset %zu claims %u bytes, more than the file holds, yet another "
				   "frame follows at offset %zu: its size is damaged; its %u records are lost",
				   (unsigned long long)d->seq, at, d->zsize, f->off, d->n_records);
		else {
			f->st->truncated = true;
			util_warnf(f->warn, f->warn_arg,
				   "frame %llu at offset %zu is truncated (%zu of %u bytes present); its %u records are lost",
				   (unsigned long long)d->seq, at, left - sizeof(*d), d->zsize,
				   d->n_records);
		}
		return 1;
	}
	return 0;
}

void frames_set_follow(struct frames *f, bool follow)
{
	f->follow = follow;
}

void frames_set_head(struct frames *f, size_t head)
{
	f->head = head;
}

bool frames_grow(struct frames *f)
{
	struct stat sb;
	size_t scan;
	unsigned char *n;

	if (f->fd < 0 || fstat(f->fd, &sb) < 0 || (size_t)sb.st_size <= f->size)
		return false;
	f->size = (size_t)sb.st_size;
	scan = f->size < SCAN_CHUNK ? f->size : SCAN_CHUNK;
	if (scan > f->scan_size && (n = realloc(f->scan, scan)) != NULL) {
		f->scan = n;
		f->scan_size = scan;
	}
	return true;
}

size_t frames_next(struct frames *f)
{
	while (f->off < f->size) {
		struct rp_frame_desc d;
		size_t got, want;
		int err, rc;

		rc = next_desc(f, &d);
		if (rc < 0)
			break;
		if (rc > 0)
			continue;
		if (d.raw_size > f->raw_cap) {
			unsigned char *n = NULL;
			size_t cap = d.raw_size < (1u << 20) ? (1u << 20) : d.raw_size;

			if (posix_memalign((void **)&n, 8, cap)) {
				util_warnf(f->warn, f->warn_arg,
					   "out of memory for frame %llu (%u bytes); skipped",
					   (unsigned long long)d.seq, d.raw_size);
				f->st->frames_bad++;
				f->st->bytes_skipped += sizeof(d) + d.zsize;
				f->off += sizeof(d) + d.zsize;
				continue;
			}
			free(f->raw);
			f->raw = n;
			f->raw_cap = cap;
		}
		if (d.zsize > f->zcap) {
			unsigned char *n = realloc(f->zbuf, d.zsize);

			if (!n) {
				util_warnf(f->warn, f->warn_arg,
					   "out of memory for frame %llu (%u bytes); skipped",
					   (unsigned long long)d.seq, d.zsize);
				f->st->frames_bad++;
				f->st->bytes_skipped += sizeof(d) + d.zsize;
				f->off += sizeof(d) + d.zsize;
				continue;
			}
			f->zbuf = n;
			f->zcap = d.zsize;
		}
		err = read_at(f, f->off + sizeof(d), f->zbuf, d.zsize);
		if (err < 0) {
			cut_short(f, f->off, err);
			break;
		}
		want = f->head && f->head < d.raw_size ? f->head : d.raw_size;
		err = want < d.raw_size
			  ? zframe_decompress_head(f->z, f->raw, want, f->zbuf, d.zsize, &got)
			  : zframe_decompress(f->z, f->raw, d.raw_size, f->zbuf, d.zsize, &got);
		if (err < 0 || got != want) {
			util_warnf(f->warn, f->warn_arg,
				   "frame %llu at offset %zu is corrupt (%s); its %u records are skipped",
				   (unsigned long long)d.seq, f->off,
				   err < 0 ? zframe_last_error(f->z) : "wrong decompressed size",
				   d.n_records);
			f->st->frames_bad++;
			f->st->bytes_skipped += sizeof(d) + d.zsize;
			f->off += sizeof(d) + d.zsize;
			continue;
		}
		if (f->have_desc && d.seq <= f->desc.seq)
			util_warnf(f->warn, f->warn_arg,
				   "frame %llu at offset %zu comes after frame %llu (duplicated or reordered); read anyway",
				   (unsigned long long)d.seq, f->off,
				   (unsigned long long)f->desc.seq);
		f->off += sizeof(d) + d.zsize;
		f->desc = d;
		f->have_desc = true;
		f->st->frames++;
		if (!f->st->t_first || d.t_lo < f->st->t_first)
			f->st->t_first = d.t_lo;
		if (d.t_hi > f->st->t_last)
			f->st->t_last = d.t_hi;
		if (!got)
			continue; /* an empty frame: 0 would mean the end of the file */
		return got;
	}
	return 0;
}

int frames_time_bounds(const struct frames *f, uint64_t *ret_first, uint64_t *ret_last)
{
	uint64_t first = UINT64_MAX, last = 0;
	size_t off = find_desc(f, f->size, 0);

	while (off < f->size) {
		struct rp_frame_desc d;

		if (f->size - off < sizeof(d) || read_at(f, off, &d, sizeof(d)) < 0)
			break;
		if (desc_valid(&d) && d.zsize <= f->size - off - sizeof(d)) {
			if (d.t_lo < first)
				first = d.t_lo;
			if (d.t_hi > last)
				last = d.t_hi;
			off = find_desc(f, f->size, off + sizeof(d) + d.zsize);
		} else {
			off = find_desc(f, f->size, off + 1);
		}
	}
	if (first > last)
		return -ENODATA;
	*ret_first = first;
	*ret_last = last;
	return 0;
}
