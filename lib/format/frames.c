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

static const unsigned char *find_desc(const unsigned char *map, size_t size, size_t from)
{
	if (from >= size)
		return NULL;
	return memmem(map + from, size - from, desc_pattern, sizeof(desc_pattern));
}

static bool desc_valid(const struct rp_frame_desc *d)
{
	return memcmp(d, desc_pattern, sizeof(desc_pattern)) == 0 &&
	       d->crc == crc32c(0, d, offsetof(struct rp_frame_desc, crc));
}

static void describe_foreign(const unsigned char *map, size_t size, char *why, size_t n)
{
	if (size >= 8 && memcmp(map, "PERFILE2", 8) == 0)
		snprintf(why, n,
			 "this is a perf.data file, not a ringprof recording (read it with perf report)");
	else if (size >= 4 && map[0] == 0x28 && map[1] == 0xB5 && map[2] == 0x2F && map[3] == 0xFD)
		snprintf(why, n,
			 "this is a zstd file without ringprof frames, not a ringprof recording");
	else
		snprintf(why, n, "not a ringprof recording (no ringprof frame found in %zu bytes)",
			 size);
}

int frames_open(struct frames *f, const char *path, char *why, size_t why_size)
{
	struct stat sb;
	struct rp_frame_desc d;
	const unsigned char *first;
	void *map;
	int fd, err;

	/* O_NONBLOCK: a FIFO given by mistake must not hang us; it is refused below. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		err = -errno;
		snprintf(why, why_size, "cannot open: %s", strerror(errno));
		return err;
	}
	if (fstat(fd, &sb) < 0) {
		err = -errno;
		snprintf(why, why_size, "cannot stat: %s", strerror(errno));
		close(fd);
		return err;
	}
	if (S_ISDIR(sb.st_mode)) {
		close(fd);
		snprintf(why, why_size, "is a directory (give a recording file)");
		return -EISDIR;
	}
	if (!S_ISREG(sb.st_mode)) {
		close(fd);
		snprintf(why, why_size,
			 "not a regular file (a recording is a file written by ringprof record)");
		return -EPROTO;
	}
	if (sb.st_size == 0) {
		close(fd);
		snprintf(why, why_size,
			 "the file is empty (the recorder wrote nothing yet, or it was cut to nothing)");
		return -ENODATA;
	}
	map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	err = -errno;
	close(fd);
	if (map == MAP_FAILED) {
		snprintf(why, why_size, "cannot map: %s", strerror(-err));
		return err;
	}
	/* The first intact descriptor, copied out: the mapping gives no alignment guarantee. */
	for (first = find_desc(map, (size_t)sb.st_size, 0); first;
	     first = find_desc(map, (size_t)sb.st_size,
			       (size_t)(first - (const unsigned char *)map) + 1)) {
		if ((size_t)sb.st_size - (size_t)(first - (const unsigned char *)map) < sizeof(d))
			continue;
		memcpy(&d, first, sizeof(d));
		if (desc_valid(&d))
			break;
	}
	if (!first) {
		if ((size_t)sb.st_size >= 4 && memcmp(map, desc_pattern, 4) == 0)
			snprintf(why, why_size,
				 "no complete ringprof frame in %lld bytes: the recording was cut short "
				 "or damaged before its first frame ended",
				 (long long)sb.st_size);
		else
			describe_foreign(map, (size_t)sb.st_size, why, why_size);
		munmap(map, (size_t)sb.st_size);
		return -EPROTO;
	}
	if (d.major < RP_FORMAT_MAJOR_MIN || d.major > RP_FORMAT_MAJOR) {
		snprintf(why, why_size,
			 "written in format version %u by a newer ringprof; this one reads versions %u to %u",
			 d.major, RP_FORMAT_MAJOR_MIN, RP_FORMAT_MAJOR);
		munmap(map, (size_t)sb.st_size);
		return -EPROTONOSUPPORT;
	}
	f->map = map;
	f->size = (size_t)sb.st_size;
	f->until = UINT64_MAX;
	f->z = zframe_new(1);
	if (!f->z) {
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

void frames_done(struct frames *f)
{
	if (f->map)
		munmap((void *)f->map, f->size);
	zframe_free(f->z);
	free(f->raw);
	f->map = NULL;
	f->z = NULL;
	f->raw = NULL;
}

/* Move to the next descriptor after a damaged stretch starting at from. */
static void resync(struct frames *f, size_t from)
{
	const unsigned char *p = find_desc(f->map, f->size, from);
	size_t next = p ? (size_t)(p - f->map) : f->size;

	f->st->bytes_skipped += next - f->off;
	f->off = next;
}

/* Read and check the descriptor at f->off into *d: 0 when its frame can be decoded, 1 when
 * it was skipped (damage, said and counted), -1 at the end of the file or the time window. */
static int next_desc(struct frames *f, struct rp_frame_desc *d)
{
	size_t left = f->size - f->off;

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
	memcpy(d, f->map + f->off, sizeof(*d));
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

size_t frames_next(struct frames *f)
{
	while (f->off < f->size) {
		struct rp_frame_desc d;
		size_t got;
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
		err = zframe_decompress(f->z, f->raw, d.raw_size, f->map + f->off + sizeof(d),
					d.zsize, &got);
		if (err < 0 || got != d.raw_size) {
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
	const unsigned char *p = find_desc(f->map, f->size, 0);

	while (p) {
		size_t off = (size_t)(p - f->map);
		struct rp_frame_desc d;

		if (f->size - off < sizeof(d))
			break;
		memcpy(&d, p, sizeof(d));
		if (desc_valid(&d) && d.zsize <= f->size - off - sizeof(d)) {
			if (d.t_lo < first)
				first = d.t_lo;
			if (d.t_hi > last)
				last = d.t_hi;
			p = find_desc(f->map, f->size, off + sizeof(d) + d.zsize);
		} else {
			p = find_desc(f->map, f->size, off + 1);
		}
	}
	if (first > last)
		return -ENODATA;
	*ret_first = first;
	*ret_last = last;
	return 0;
}
