/* reader.c — frame validation, resynchronisation after damage, and the ordering window. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compact.h"
#include "crc32c.h"
#include "format.h"
#include "reader.h"
#include "record.h"
#include "zframe.h"

/* A pending record: its time, its arrival number (for a stable order), where it is and,
 * for a sample rebuilt from a compact one, its stack. */
struct entry {
	uint64_t time;
	uint64_t seq;
	size_t off;
	uint32_t stack;
};

/* A stack defined in an RP_REC_STACKS batch; its words are in the reader's word store. */
struct stack {
	size_t off;
	uint32_t nr;
	uint16_t misc;
	uint64_t hash;
};

struct arena {
	unsigned char *buf;
	size_t len, cap;
};

struct reader {
	char *path;
	const unsigned char *map;
	size_t size;
	size_t off;               /* next unit to look at */
	struct zframe *z;
	unsigned char *raw;       /* decompressed frame */
	size_t raw_cap;
	struct rp_frame_desc desc; /* last good descriptor */
	bool have_desc;
	struct rp_header_rec *header; /* copy, with cmdline */
	uint64_t sample_type;
	bool eof;
	struct arena arenas[2];
	int cur;                  /* arena holding the pending records */
	struct entry *ents;
	size_t n_ents, cap_ents;
	struct entry *tmp;        /* for the merge sort, cap_tmp entries */
	size_t cap_tmp;
	size_t *runs;             /* run starts, for the merge sort */
	size_t cap_runs;
	size_t emit_pos, emit_end;
	uint64_t next_seq;
	uint64_t last_time;
	uint64_t until;           /* frames starting after this are not read */
	struct stack *stacks;     /* every definition read, in file order */
	uint32_t n_stacks, cap_stacks;
	uint64_t *words;
	size_t n_words, cap_words;
	uint32_t *ids;            /* the file's stack id -> index into stacks (+1; 0 undefined) */
	uint32_t *dslots;         /* stacks by content (index + 1; 0 empty): a definition met
				   * again (the recorder repeats them) takes no memory */
	size_t n_dslots;
	uint32_t cap_ids;
	uint32_t last_stack;      /* of the record reader_next returned last */
	void (*warn)(void *arg, const char *msg);
	void *warn_arg;
	struct reader_stats st;
};

static const unsigned char desc_pattern[12] = {
	0x5E, 0x2A, 0x4D, 0x18, /* RP_SKIPPABLE_MAGIC */
	0x40, 0x00, 0x00, 0x00, /* skip_size = 64 */
	'R',  'P',  'F',  'D',  /* RP_DESC_MAGIC */
};
_Static_assert(sizeof(struct rp_frame_desc) - 8 == 0x40, "desc_pattern holds skip_size");

static void warnf(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warnf(struct reader *r, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!r->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->warn(r->warn_arg, msg);
}

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
		snprintf(why, n, "this is a perf.data file, not a ringprof recording (read it with perf report)");
	else if (size >= 4 && map[0] == 0x28 && map[1] == 0xB5 && map[2] == 0x2F && map[3] == 0xFD)
		snprintf(why, n, "this is a zstd file without ringprof frames, not a ringprof recording");
	else
		snprintf(why, n, "not a ringprof recording (no ringprof frame found in %zu bytes)", size);
}

int reader_open(const char *path, struct reader **ret, char *why, size_t why_size)
{
	struct reader *r;
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
		snprintf(why, why_size, "not a regular file (a recording is a file written by ringprof record)");
		return -EPROTO;
	}
	if (sb.st_size == 0) {
		close(fd);
		snprintf(why, why_size, "the file is empty (the recorder wrote nothing yet, or it was cut to nothing)");
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
	     first = find_desc(map, (size_t)sb.st_size, (size_t)(first - (const unsigned char *)map) + 1)) {
		if ((size_t)sb.st_size - (size_t)(first - (const unsigned char *)map) < sizeof(d))
			continue;
		memcpy(&d, first, sizeof(d));
		if (desc_valid(&d))
			break;
	}
	if (!first) {
		if ((size_t)sb.st_size >= 4 && memcmp(map, desc_pattern, 4) == 0)
			snprintf(why, why_size, "no complete ringprof frame in %lld bytes: the recording was cut short "
				 "or damaged before its first frame ended", (long long)sb.st_size);
		else
			describe_foreign(map, (size_t)sb.st_size, why, why_size);
		munmap(map, (size_t)sb.st_size);
		return -EPROTO;
	}
	if (d.major < RP_FORMAT_MAJOR_MIN || d.major > RP_FORMAT_MAJOR) {
		snprintf(why, why_size, "written in format version %u by a newer ringprof; this one reads versions %u to %u",
			 d.major, RP_FORMAT_MAJOR_MIN, RP_FORMAT_MAJOR);
		munmap(map, (size_t)sb.st_size);
		return -EPROTONOSUPPORT;
	}
	r = calloc(1, sizeof(*r));
	if (!r || !(r->path = strdup(path)) || !(r->z = zframe_new(1))) {
		if (r)
			free(r->path);
		free(r);
		munmap(map, (size_t)sb.st_size);
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	r->map = map;
	r->size = (size_t)sb.st_size;
	r->until = UINT64_MAX;
	*ret = r;
	return 0;
}

struct reader *reader_free(struct reader *r)
{
	if (!r)
		return NULL;
	munmap((void *)r->map, r->size);
	zframe_free(r->z);
	free(r->raw);
	free(r->header);
	free(r->arenas[0].buf);
	free(r->arenas[1].buf);
	free(r->ents);
	free(r->tmp);
	free(r->runs);
	free(r->stacks);
	free(r->words);
	free(r->ids);
	free(r->dslots);
	free(r->path);
	free(r);
	return NULL;
}

void reader_set_warn(struct reader *r, void (*warn)(void *arg, const char *msg), void *arg)
{
	r->warn = warn;
	r->warn_arg = arg;
}

const char *reader_path(const struct reader *r)
{
	return r->path;
}

/* Move to the next descriptor after a damaged stretch starting at from. */
static void resync(struct reader *r, size_t from)
{
	const unsigned char *p = find_desc(r->map, r->size, from);
	size_t next = p ? (size_t)(p - r->map) : r->size;

	r->st.bytes_skipped += next - r->off;
	r->off = next;
}

static void keep_header(struct reader *r, const struct perf_event_header *h)
{
	const struct rp_header_rec *hr = (const void *)h;

	if (r->header || h->size < sizeof(*hr) || memcmp(hr->magic, RP_HEADER_MAGIC, 8) != 0)
		return;
	r->header = malloc(h->size + 1);
	if (!r->header)
		return;
	memcpy(r->header, h, h->size);
	((char *)r->header)[h->size] = '\0'; /* the cmdline is always terminated */
	r->sample_type = hr->sample_type;
}

/* Decode the next good frame into r->raw; returns its size, or 0 at the end of the file. */
static size_t next_frame(struct reader *r)
{
	while (r->off < r->size) {
		struct rp_frame_desc d;
		size_t left = r->size - r->off, got;
		int err;

		if (left < sizeof(d)) {
			warnf(r, "file ends %zu bytes into a frame descriptor at offset %zu (truncated); the rest is lost",
			      left, r->off);
			r->st.truncated = true;
			r->st.frames_bad++;
			r->st.bytes_skipped += left;
			r->off = r->size;
			break;
		}
		memcpy(&d, r->map + r->off, sizeof(d));
		if (!desc_valid(&d)) {
			size_t at = r->off;

			resync(r, r->off + 1);
			r->st.frames_bad++;
			warnf(r, "damaged frame descriptor at offset %zu; skipped %zu bytes to the next frame", at,
			      r->off - at);
			continue;
		}
		if (d.major < RP_FORMAT_MAJOR_MIN || d.major > RP_FORMAT_MAJOR || d.raw_size > RP_FRAME_RAW_MAX ||
		    d.zsize > RP_FRAME_Z_MAX) {
			warnf(r, "frame %llu at offset %zu has an unsupported version or size; skipped",
			      (unsigned long long)d.seq, r->off);
			r->st.frames_bad++;
			resync(r, r->off + 1);
			continue;
		}
		if (d.t_lo > r->until) {
			r->off = r->size; /* frames only move forward in time */
			break;
		}
		if (d.zsize > left - sizeof(d)) {
			size_t at = r->off;

			r->st.frames_bad++;
			resync(r, r->off + sizeof(d));
			if (r->off < r->size) /* another frame follows: the size is what is damaged */
				warnf(r, "frame %llu at offset %zu claims %u bytes, more than the file holds, yet another "
				      "frame follows at offset %zu: its size is damaged; its %u records are lost",
				      (unsigned long long)d.seq, at, d.zsize, r->off, d.n_records);
			else {
				r->st.truncated = true;
				warnf(r, "frame %llu at offset %zu is truncated (%zu of %u bytes present); its %u records are lost",
				      (unsigned long long)d.seq, at, left - sizeof(d), d.zsize, d.n_records);
			}
			continue;
		}
		if (d.raw_size > r->raw_cap) {
			unsigned char *n = NULL;
			size_t cap = d.raw_size < (1u << 20) ? (1u << 20) : d.raw_size;

			if (posix_memalign((void **)&n, 8, cap)) {
				warnf(r, "out of memory for frame %llu (%u bytes); skipped", (unsigned long long)d.seq,
				      d.raw_size);
				r->st.frames_bad++;
				r->st.bytes_skipped += sizeof(d) + d.zsize;
				r->off += sizeof(d) + d.zsize;
				continue;
			}
			free(r->raw);
			r->raw = n;
			r->raw_cap = cap;
		}
		err = zframe_decompress(r->z, r->raw, d.raw_size, r->map + r->off + sizeof(d), d.zsize, &got);
		if (err < 0 || got != d.raw_size) {
			warnf(r, "frame %llu at offset %zu is corrupt (%s); its %u records are skipped",
			      (unsigned long long)d.seq, r->off,
			      err < 0 ? zframe_last_error(r->z) : "wrong decompressed size", d.n_records);
			r->st.frames_bad++;
			r->st.bytes_skipped += sizeof(d) + d.zsize;
			r->off += sizeof(d) + d.zsize;
			continue;
		}
		if (r->have_desc && d.seq <= r->desc.seq)
			warnf(r, "frame %llu at offset %zu comes after frame %llu (duplicated or reordered); read anyway",
			      (unsigned long long)d.seq, r->off, (unsigned long long)r->desc.seq);
		r->off += sizeof(d) + d.zsize;
		r->desc = d;
		r->have_desc = true;
		r->st.frames++;
		if (!r->st.t_first || d.t_lo < r->st.t_first)
			r->st.t_first = d.t_lo;
		if (d.t_hi > r->st.t_last)
			r->st.t_last = d.t_hi;
		if (!r->sample_type)
			r->sample_type = d.sample_type;
		if (!got)
			continue; /* an empty frame: 0 would mean the end of the file */
		return got;
	}
	return 0;
}

static int arena_reserve(struct arena *a, size_t n)
{
	if (a->len + n > a->cap) {
		size_t cap = a->cap ? a->cap : (1u << 20);
		unsigned char *b = NULL;

		while (cap < a->len + n)
			cap *= 2;
		if (posix_memalign((void **)&b, 8, cap))
			return -ENOMEM;
		if (a->len)
			memcpy(b, a->buf, a->len);
		free(a->buf);
		a->buf = b;
		a->cap = cap;
	}
	return 0;
}

static int add_entry(struct reader *r, uint64_t time, size_t off, uint32_t stack)
{
	if (r->n_ents == r->cap_ents) {
		size_t cap = r->cap_ents ? r->cap_ents * 2 : 4096;
		struct entry *e = realloc(r->ents, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		r->ents = e;
		r->cap_ents = cap;
	}
	r->ents[r->n_ents++] = (struct entry){ time, r->next_seq++, off, stack };
	return 0;
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 1024;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

/* Remember one stack (ip, then the callchain) under its id. */
static uint64_t stack_hash(uint16_t misc, uint64_t ip, const unsigned char *chain, uint32_t nr_chain)
{
	uint64_t h = 0x243F6A8885A308D3ull ^ ((uint64_t)misc << 48) ^ nr_chain;

	h = (h ^ ip) * 0x9E3779B97F4A7C15ull;
	for (uint32_t i = 0; i < nr_chain; i++) {
		uint64_t v;

		memcpy(&v, chain + 8 * (size_t)i, 8);
		h = ((h ^ (h >> 29)) ^ v) * 0x9E3779B97F4A7C15ull;
	}
	return h ^ (h >> 32);
}

/* The slot of stack content (misc, ip, chain) in dslots: holding it, or empty. */
static size_t find_slot(const struct reader *r, uint64_t h, uint16_t misc, uint64_t ip, const unsigned char *chain,
			uint32_t nr_chain)
{
	for (size_t i = h & (r->n_dslots - 1);; i = (i + 1) & (r->n_dslots - 1)) {
		const struct stack *st;

		if (!r->dslots[i])
			return i;
		st = &r->stacks[r->dslots[i] - 1];
		if (st->hash == h && st->nr == nr_chain + 1 && st->misc == misc && r->words[st->off] == ip &&
		    (!nr_chain || memcmp(&r->words[st->off + 1], chain, (size_t)nr_chain * 8) == 0))
			return i;
	}
}

/* Room for one more stack in dslots (at most half full). */
static int dslots_reserve(struct reader *r)
{
	size_t n = r->n_dslots ? r->n_dslots * 2 : 1024;
	uint32_t *d;

	if ((size_t)r->n_stacks + 1 <= r->n_dslots / 2)
		return 0;
	d = calloc(n, sizeof(*d));
	if (!d)
		return -ENOMEM;
	free(r->dslots);
	r->dslots = d;
	r->n_dslots = n;
	for (uint32_t k = 0; k < r->n_stacks; k++) {
		size_t i = r->stacks[k].hash & (n - 1);

		while (d[i])
			i = (i + 1) & (n - 1);
		d[i] = k + 1;
	}
	return 0;
}

/* Remember one stack (ip, then the callchain) under its id; a content already known is
 * shared, so that repeated definitions cost neither memory nor, in the session, lookups. */
static void define_stack(struct reader *r, const struct kbatch_stack *k)
{
	size_t cap_stacks = r->cap_stacks, cap_ids = r->cap_ids, nr = (size_t)k->nr_chain + 1, slot;
	uint64_t h = stack_hash(k->misc, k->ip, k->chain, k->nr_chain);

	if (r->n_stacks == UINT32_MAX - 1 || dslots_reserve(r) < 0 ||
	    grow((void **)&r->stacks, &cap_stacks, (size_t)r->n_stacks + 1, sizeof(*r->stacks)) < 0 ||
	    grow((void **)&r->words, &r->cap_words, r->n_words + nr, 8) < 0 ||
	    grow((void **)&r->ids, &cap_ids, (size_t)k->id + 1, sizeof(*r->ids)) < 0) {
		r->cap_stacks = (uint32_t)cap_stacks;
		warnf(r, "out of memory for stack %u of frame %llu; its samples will have no callchain", k->id,
		      (unsigned long long)r->desc.seq);
		return;
	}
	r->cap_stacks = (uint32_t)cap_stacks;
	if (cap_ids > r->cap_ids)
		memset(r->ids + r->cap_ids, 0, (cap_ids - r->cap_ids) * sizeof(*r->ids));
	r->cap_ids = (uint32_t)cap_ids;
	r->st.stacks++;
	slot = find_slot(r, h, k->misc, k->ip, k->chain, k->nr_chain);
	if (r->dslots[slot]) {
		r->ids[k->id] = r->dslots[slot];
		return;
	}
	r->words[r->n_words] = k->ip;
	memcpy(r->words + r->n_words + 1, k->chain, (size_t)k->nr_chain * 8);
	r->stacks[r->n_stacks] = (struct stack){ r->n_words, (uint32_t)nr, k->misc, h };
	r->n_words += nr;
	r->ids[k->id] = r->dslots[slot] = ++r->n_stacks;
}

/* An RP_REC_STACKS batch. */
static void take_stacks(struct reader *r, const struct perf_event_header *h)
{
	struct kbatch_reader br;
	struct kbatch_stack k;
	int rc;

	if (kbatch_read_init(&br, h) < 0) {
		r->st.records_bad++;
		warnf(r, "frame %llu holds a stack batch of impossible size %u; skipped", (unsigned long long)r->desc.seq,
		      h->size);
		return;
	}
	while ((rc = kbatch_read_next(&br, &k)) > 0)
		define_stack(r, &k);
	if (rc < 0) {
		r->st.records_bad++;
		warnf(r, "frame %llu holds a malformed stack batch; %u stack definitions from id %u on are lost",
		      (unsigned long long)r->desc.seq, br.left ? br.left : 1, br.id);
	}
}

/* An RP_REC_SAMPLES batch: each sample rebuilt as the PERF_RECORD_SAMPLE it was. */
static void take_samples(struct reader *r, const struct perf_event_header *h)
{
	struct arena *a = &r->arenas[r->cur];
	uint64_t st = r->sample_type;
	bool cc = st & PERF_SAMPLE_CALLCHAIN;
	struct sbatch_reader br;
	struct compact_sample cs;
	uint64_t missing = 0;
	int rc;

	if (!compact_sample_type_ok(st) || sbatch_read_init(&br, h) < 0) {
		r->st.records_bad++;
		warnf(r, "frame %llu holds packed samples but the recording's sample fields (0x%llx) are unknown; skipped",
		      (unsigned long long)r->desc.seq, (unsigned long long)st);
		return;
	}
	while ((rc = sbatch_read_next(&br, &cs)) > 0) {
		uint32_t idx = cs.stack < r->cap_ids ? r->ids[cs.stack] : 0;
		const struct stack *k = idx ? &r->stacks[idx - 1] : NULL;
		uint32_t nr = k ? k->nr : 1;
		size_t size = 48 + (cc ? 8 * (size_t)nr : 0);
		unsigned char *p;
		uint64_t chain = nr - 1, ip = k ? r->words[k->off] : 0;
		uint32_t res = 0;

		if (arena_reserve(a, size) < 0) {
			warnf(r, "out of memory; samples of frame %llu skipped", (unsigned long long)r->desc.seq);
			return;
		}
		p = a->buf + a->len;
		((struct perf_event_header *)p)->type = PERF_RECORD_SAMPLE;
		((struct perf_event_header *)p)->misc = k ? k->misc : PERF_RECORD_MISC_USER;
		((struct perf_event_header *)p)->size = (uint16_t)size;
		memcpy(p + 8, &ip, 8);
		memcpy(p + 16, &cs.pid, 4);
		memcpy(p + 20, &cs.tid, 4);
		memcpy(p + 24, &cs.time, 8);
		memcpy(p + 32, &br.cpu, 4);
		memcpy(p + 36, &res, 4);
		memcpy(p + 40, &cs.period, 8);
		if (cc) {
			memcpy(p + 48, &chain, 8);
			if (k)
				memcpy(p + 56, r->words + k->off + 1, (size_t)chain * 8);
		}
		if (add_entry(r, cs.time, a->len, k ? idx - 1 : READER_NO_STACK) < 0)
			return;
		a->len += size;
		if (!k)
			missing++;
	}
	r->st.samples_packed += ((const struct rp_samples_rec *)h)->n - br.left;
	if (rc < 0) {
		r->st.records_bad++;
		warnf(r, "frame %llu holds a malformed batch of packed samples (CPU %u); %u of its samples are skipped",
		      (unsigned long long)r->desc.seq, br.cpu, br.left);
	}
	if (missing) {
		/* Once: every batch until the recorder defines its stacks again has some. */
		if (!r->st.stack_missing)
			warnf(r, "frame %llu: samples refer to stacks whose definitions were lost (damaged frames "
			      "earlier in the file); they are kept without their callchain (--stats counts them)",
			      (unsigned long long)r->desc.seq);
		r->st.stack_missing += missing;
	}
}

/* Append the records of the frame in r->raw to the pending set. */
static void take_frame(struct reader *r, size_t len)
{
	struct arena *a = &r->arenas[r->cur];
	size_t pos = 0;

	if (arena_reserve(a, len) < 0) {
		warnf(r, "out of memory; frame %llu skipped", (unsigned long long)r->desc.seq);
		return;
	}
	while (pos + sizeof(struct perf_event_header) <= len) {
		const struct perf_event_header *h = (const void *)(r->raw + pos);

		if (h->size < sizeof(*h) || h->size % 8 || h->size > len - pos) {
			warnf(r, "frame %llu holds a record of impossible size %u at byte %zu; the rest of the frame is skipped",
			      (unsigned long long)r->desc.seq, h->size, pos);
			r->st.records_bad++;
			break;
		}
		if (h->type == RP_REC_STACKS || h->type == RP_REC_SAMPLES) {
			if (h->type == RP_REC_STACKS)
				take_stacks(r, h);
			else
				take_samples(r, h);
			a = &r->arenas[r->cur];
			pos += h->size;
			continue;
		}
		if (h->type == RP_REC_HEADER)
			keep_header(r, h);
		if (arena_reserve(a, h->size) < 0)
			break;
		memcpy(a->buf + a->len, h, h->size);
		if (add_entry(r, record_time(h, r->sample_type), a->len, READER_NO_STACK) < 0)
			break;
		a->len += h->size;
		pos += h->size;
	}
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Sort the pending entries by (time, seq). They come in long ordered runs (what was left of
 * the previous frame, then each CPU's samples in ring order), so a natural merge sort does
 * it in a few linear passes. Entries are appended in seq order and runs are merged left
 * first on equal times, which keeps seq order: the result is cmp_entry's order.
 */
static void sort_entries(struct reader *r)
{
	size_t n = r->n_ents, n_runs = 0;
	struct entry *a = r->ents, *b;

	if (n < 2)
		return;
	if (r->cap_tmp < n || r->cap_runs < n + 1) {
		struct entry *t = realloc(r->tmp, n * sizeof(*t));
		size_t *ru;

		if (t) {
			r->tmp = t;
			r->cap_tmp = n;
		}
		ru = t ? realloc(r->runs, (n + 1) * sizeof(*ru)) : NULL;
		if (ru) {
			r->runs = ru;
			r->cap_runs = n + 1;
		}
		if (!t || !ru) {
			qsort(r->ents, n, sizeof(*r->ents), cmp_entry); /* no memory for the merge */
			return;
		}
	}
	b = r->tmp;
	r->runs[n_runs++] = 0;
	for (size_t i = 1; i < n; i++)
		if (a[i].time < a[i - 1].time)
			r->runs[n_runs++] = i;
	while (n_runs > 1) {
		size_t w = 0;
		struct entry *t;

		r->runs[n_runs] = n;
		for (size_t k = 0; k < n_runs; k += 2) {
			size_t lo = r->runs[k], i = lo, o = lo, mid, j, hi;

			r->runs[w++] = lo;
			if (k + 1 == n_runs) { /* the odd one out */
				memcpy(b + lo, a + lo, (n - lo) * sizeof(*a));
				break;
			}
			mid = j = r->runs[k + 1];
			hi = r->runs[k + 2];
			while (i < mid && j < hi)
				b[o++] = a[j].time < a[i].time ? a[j++] : a[i++];
			memcpy(b + o, a + i, (mid - i) * sizeof(*a));
			o += mid - i;
			memcpy(b + o, a + j, (hi - j) * sizeof(*a));
		}
		n_runs = w;
		t = a;
		a = b;
		b = t;
	}
	if (a != r->ents) { /* the result is in tmp: swap the buffers */
		size_t cap = r->cap_ents;

		r->tmp = r->ents;
		r->ents = a;
		r->cap_ents = r->cap_tmp;
		r->cap_tmp = cap;
	}
}

/* Drop emitted entries; carry the rest into the other arena. */
static void compact(struct reader *r)
{
	struct arena *from = &r->arenas[r->cur], *to = &r->arenas[!r->cur];
	size_t i, n = 0;

	to->len = 0;
	for (i = r->emit_end; i < r->n_ents; i++) {
		const struct perf_event_header *h = (const void *)(from->buf + r->ents[i].off);

		if (arena_reserve(to, h->size) < 0)
			break;
		memcpy(to->buf + to->len, h, h->size);
		r->ents[n] = r->ents[i];
		r->ents[n].off = to->len;
		to->len += h->size;
		n++;
	}
	from->len = 0;
	r->cur = !r->cur;
	r->n_ents = n;
	r->emit_pos = r->emit_end = 0;
}

const struct perf_event_header *reader_next(struct reader *r)
{
	for (;;) {
		uint64_t bound;
		size_t len;

		if (r->emit_pos < r->emit_end) {
			const struct entry *e = &r->ents[r->emit_pos++];

			if (e->time < r->last_time)
				r->st.late++;
			else
				r->last_time = e->time;
			r->st.records++;
			r->last_stack = e->stack;
			return (const void *)(r->arenas[r->cur].buf + e->off);
		}
		if (r->eof && r->emit_end >= r->n_ents)
			return NULL;
		compact(r);
		if (!r->eof && (len = next_frame(r)) > 0) {
			take_frame(r, len);
			bound = r->desc.t_safe;
		} else {
			r->eof = true;
			bound = UINT64_MAX;
		}
		sort_entries(r);
		while (r->emit_end < r->n_ents && (r->ents[r->emit_end].time < bound || bound == UINT64_MAX))
			r->emit_end++;
	}
}

const struct rp_header_rec *reader_header(struct reader *r)
{
	/* The header is the first record of frame 0; reading one frame finds it. */
	if (!r->header && !r->have_desc && !r->eof) {
		size_t len = next_frame(r);

		if (len) {
			take_frame(r, len);
			sort_entries(r);
			while (r->emit_end < r->n_ents && r->ents[r->emit_end].time < r->desc.t_safe)
				r->emit_end++;
		} else {
			r->eof = true;
		}
	}
	return r->header;
}

uint64_t reader_sample_type(struct reader *r)
{
	reader_header(r);
	return r->sample_type;
}

const struct rp_frame_desc *reader_last_desc(const struct reader *r)
{
	return r->have_desc ? &r->desc : NULL;
}

const struct reader_stats *reader_stats(const struct reader *r)
{
	return &r->st;
}

int reader_time_bounds(const struct reader *r, uint64_t *ret_first, uint64_t *ret_last)
{
	uint64_t first = UINT64_MAX, last = 0;
	const unsigned char *p = find_desc(r->map, r->size, 0);

	while (p) {
		size_t off = (size_t)(p - r->map);
		struct rp_frame_desc d;

		if (r->size - off < sizeof(d))
			break;
		memcpy(&d, p, sizeof(d));
		if (desc_valid(&d) && d.zsize <= r->size - off - sizeof(d)) {
			if (d.t_lo < first)
				first = d.t_lo;
			if (d.t_hi > last)
				last = d.t_hi;
			p = find_desc(r->map, r->size, off + sizeof(d) + d.zsize);
		} else {
			p = find_desc(r->map, r->size, off + 1);
		}
	}
	if (first > last)
		return -ENODATA;
	*ret_first = first;
	*ret_last = last;
	return 0;
}

void reader_set_until(struct reader *r, uint64_t t)
{
	r->until = t;
}

uint32_t reader_stack_id(const struct reader *r)
{
	return r->last_stack;
}
