/* ring.c — reader for one perf_event mmap ring: attach or map, drain records, publish the tail */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "capture/ring-barrier.h"
#include "capture/ring.h"

static int is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

int ring_init(struct ring *r, void *map, size_t map_len)
{
	struct perf_event_mmap_page *pc = map;
	uint64_t off, size;
	struct ring n;

	/* 8-byte alignment of the map makes data_head/data_tail atomics and records aligned. */
	if (!map || ((uintptr_t)map & 7) || map_len < sizeof(*pc))
		return -EINVAL;

	off = pc->data_offset;
	size = pc->data_size;
	if (size == 0) {
		/* Before 4.1 the fields did not exist: the data pages follow the control page. */
		long page_size = sysconf(_SC_PAGESIZE);

		if (page_size <= 0 || map_len < (size_t)page_size)
			return -EINVAL;
		off = (uint64_t)page_size;
		size = map_len - (uint64_t)page_size;
	}

	/*
	 * A power of two of at least 8 bytes, starting 8-byte aligned past the control fields:
	 * then every 8-byte record starts aligned and its header never straddles the end.
	 */
	if (!is_pow2(size) || size < sizeof(struct perf_event_header) || (off & 7) ||
	    off < sizeof(*pc) || size > map_len || off > map_len - size)
		return -EINVAL;

	memset(&n, 0, sizeof(n));
	n.bounce = malloc(RING_BOUNCE_SIZE); /* malloc alignment suffices for u64 */
	if (!n.bounce)
		return -ENOMEM;
	n.page = pc;
	n.data = (unsigned char *)map + off;
	n.size = size;
	n.mask = size - 1;
	/* Only the reader writes data_tail; the atomic load just keeps checkers quiet. */
	n.tail = __atomic_load_n(&pc->data_tail, __ATOMIC_RELAXED);
	n.head = n.tail;
	*r = n;
	return 0;
}

int ring_mmap(struct ring *r, int fd, unsigned int n_pages)
{
	long page_size = sysconf(_SC_PAGESIZE);
	struct ring n;
	size_t len;
	void *map;
	int err;

	if (!is_pow2(n_pages) || page_size <= 0 || n_pages >= SIZE_MAX / (size_t)page_size)
		return -EINVAL;
	len = ((size_t)n_pages + 1) * (size_t)page_size;

	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -errno;

	err = ring_init(&n, map, len);
	if (err < 0) {
		munmap(map, len);
		return err;
	}
	n.map = map;
	n.map_len = len;
	*r = n;
	return 0;
}

void ring_done(struct ring *r)
{
	free(r->bounce);
	if (r->map)
		munmap(r->map, r->map_len);
	memset(r, 0, sizeof(*r));
}

uint64_t ring_read_init(struct ring *r)
{
	r->head = ring_load_head(r->page);

	/* head - tail is unsigned: a head behind the tail shows up as a huge value, too. */
	if (r->head - r->tail > r->size) {
		r->n_bad++;
		r->tail = r->head;
	}
	return r->head - r->tail;
}

/* Copy len (<= size) bytes starting at counter pos out of the ring, wrapping at the end. */
static void ring_copy(const struct ring *r, uint64_t pos, void *dst, size_t len)
{
	uint64_t off = pos & r->mask;
	uint64_t first = r->size - off;

	if (len <= first) {
		memcpy(dst, r->data + off, len);
	} else {
		memcpy(dst, r->data + off, first);
		memcpy((unsigned char *)dst + first, r->data, len - first);
	}
}

const struct perf_event_header *ring_read_event(struct ring *r)
{
	uint64_t avail = r->head - r->tail; /* <= size, see ring_read_init() */
	struct perf_event_header h;
	uint64_t pos = r->tail;
	uint64_t off = pos & r->mask;

	if (avail == 0)
		return NULL;
	if (avail < sizeof(h))
		goto bad;

	/*
	 * The kernel keeps records 8-byte multiples, so the header never straddles; a corrupt
	 * head may have left the tail misaligned, and ring_copy() keeps even that in bounds.
	 */
	ring_copy(r, pos, &h, sizeof(h));
	if (h.size < sizeof(h) || (h.size & 7) || h.size > avail)
		goto bad;
	r->tail = pos + h.size;

	if (off + h.size <= r->size && !(off & 7))
		return (const void *)(r->data + off); /* 8-aligned: see ring_init() */

	/* Straddles the end (or misaligned): stitch the two parts; h.size <= RING_BOUNCE_SIZE. */
	ring_copy(r, pos, r->bounce, h.size);
	return (const void *)r->bounce;

bad:
	/* No record boundary can be trusted up to head; the kernel's next record starts there. */
	r->n_bad++;
	r->tail = r->head;
	return NULL;
}

void ring_read_done(struct ring *r)
{
	ring_store_tail(r->page, r->tail);
}
