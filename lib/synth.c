/* synth.c — start-up synthesis: /proc state and kallsyms turned into recording records. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "buildid.h"
#include "format.h"
#include "procfs.h"
#include "record.h"
#include "synth.h"
#include "util.h"
#include "writer.h"

/* Build-ids looked up during one synthesis, by device and inode. */
struct synth_bid {
	uint32_t maj, min;
	uint64_t ino;
	uint8_t len; /* 0: the file has none or could not be read */
	uint8_t id[20];
};

void synth_init(struct synth *s, struct writer *w, uint64_t sample_type, uint64_t time)
{
	memset(s, 0, sizeof(*s));
	s->w = w;
	s->sample_type = sample_type;
	s->time = time;
}

void synth_done(struct synth *s)
{
	free(s->cache);
	s->cache = NULL;
	s->n_cache = s->cap_cache = 0;
}

static void *reserve_record(struct synth *s, uint32_t type, uint16_t misc, size_t body, pid_t pid,
			    pid_t tid)
{
	size_t idsz = record_id_size(s->sample_type);
	size_t size = (sizeof(struct perf_event_header) + body + 7) / 8 * 8 + idsz;
	struct perf_event_header *h;
	struct record_id id = { (uint32_t)pid, (uint32_t)tid, s->time, RP_CPU_SYNTH };

	if (size > 65535)
		return NULL;
	h = writer_reserve(s->w, size);
	if (!h)
		return NULL;
	memset(h, 0, size);
	h->type = type;
	h->misc = misc;
	h->size = (uint16_t)size;
	record_id_write((char *)h + size - idsz, s->sample_type, &id);
	return h;
}

static void emit_comm(struct synth *s, pid_t pid, pid_t tid, const char *comm)
{
	size_t n = strnlen(comm, 15) + 1;
	unsigned char *h = reserve_record(s, PERF_RECORD_COMM, 0, 8 + n, pid, tid);

	if (!h)
		return;
	memcpy(h + 8, &pid, 4);
	memcpy(h + 12, &tid, 4);
	memcpy(h + 16, comm, n - 1);
}

static const struct synth_bid *lookup_bid(struct synth *s, pid_t pid, const struct procfs_map *m)
{
	struct synth_bid *b;
	char path[4200];
	size_t len = 0;
	int r;

	for (size_t i = 0; i < s->n_cache; i++) {
		b = &s->cache[i];
		if (b->ino == m->ino && b->maj == m->maj && b->min == m->min)
			return b;
	}
	if (s->n_cache == s->cap_cache) {
		size_t cap = s->cap_cache ? s->cap_cache * 2 : 256;
		struct synth_bid *c = realloc(s->cache, cap * sizeof(*c));

		if (!c)
			return NULL;
		s->cache = c;
		s->cap_cache = cap;
	}
	b = &s->cache[s->n_cache++];
	memset(b, 0, sizeof(*b));
	b->maj = m->maj;
	b->min = m->min;
	b->ino = m->ino;
	/* Through the process's root, so files in other mount namespaces resolve. */
	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, m->path);
	r = buildid_read_path(path, b->id, sizeof(b->id), &len);
	if (r == 0 && len <= sizeof(b->id))
		b->len = (uint8_t)len;
	return b;
}

struct maps_ctx {
	struct synth *s;
	pid_t pid;
};

static int on_map(const struct procfs_map *m, void *arg)
{
	struct maps_ctx *c = arg;
	struct synth *s = c->s;
	size_t plen = strlen(m->path);
	const struct synth_bid *b = NULL;
	unsigned char *h;
	uint16_t misc = PERF_RECORD_MISC_USER;
	uint32_t u32;

	if (!(m->prot & PROT_EXEC) || plen > 4096)
		return 0;
	if (m->path[0] == '/' && m->ino && !m->deleted)
		b = lookup_bid(s, c->pid, m);
	if (b && b->len)
		misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	h = reserve_record(s, PERF_RECORD_MMAP2, misc, 64 + plen + 1, c->pid, c->pid);
	if (!h)
		return 0;
	u32 = (uint32_t)c->pid;
	memcpy(h + 8, &u32, 4);
	memcpy(h + 12, &u32, 4);
	memcpy(h + 16, &m->start, 8);
	uint64_t len = m->end - m->start;

	memcpy(h + 24, &len, 8);
	memcpy(h + 32, &m->pgoff, 8);
	if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		h[40] = b->len;
		memcpy(h + 44, b->id, b->len);
		s->st.build_ids++;
	} else {
		memcpy(h + 40, &m->maj, 4);
		memcpy(h + 44, &m->min, 4);
		memcpy(h + 48, &m->ino, 8);
	}
	memcpy(h + 64, &m->prot, 4);
	memcpy(h + 68, &m->flags, 4);
	memcpy(h + 72, m->path, plen);
	s->st.maps++;
	return 0;
}

static int on_tid(int tid, void *arg)
{
	struct maps_ctx *c = arg;
	char comm[64];

	if (procfs_read_comm(c->pid, tid, comm, sizeof(comm)) < 0)
		return 0; /* the thread ended meanwhile */
	emit_comm(c->s, c->pid, tid, comm);
	c->s->st.threads++;
	return 0;
}

int synth_process(struct synth *s, pid_t pid)
{
	struct maps_ctx c = { s, pid };
	int r;

	r = procfs_for_each_tid(pid, on_tid, &c);
	if (r < 0) {
		s->st.vanished++;
		return -ESRCH;
	}
	r = procfs_read_maps(pid, on_map, &c, NULL);
	if (r == -ENOENT || r == -ESRCH)
		s->st.vanished++;
	else if (r < 0)
		s->st.unreadable++;
	s->st.processes++;
	return 0;
}

static int on_pid(int pid, void *arg)
{
	struct synth *s = arg;

	synth_process(s, pid);
	if (s->tick)
		s->tick(s->tick_arg);
	return 0;
}

int synth_all(struct synth *s)
{
	return procfs_for_each_pid(on_pid, s);
}

/* Symbols are packed into records of up to KSYMS_BATCH bytes. */
#define KSYMS_BATCH 60000

struct ksym_ctx {
	struct synth_ksyms *out;
	size_t cap;
	unsigned char buf[KSYMS_BATCH + 1024];
	size_t len;
	uint32_t n;
	int err;
};

static void ksyms_flush(struct ksym_ctx *c)
{
	size_t size = (sizeof(struct rp_ksyms_rec) + c->len + 7) / 8 * 8;
	struct synth_ksyms *o = c->out;
	struct rp_ksyms_rec *k;

	if (!c->n)
		return;
	if (o->len + size > c->cap) {
		size_t cap = c->cap ? c->cap * 2 : (1u << 20);
		unsigned char *d = NULL;

		while (cap < o->len + size)
			cap *= 2;
		if (posix_memalign((void **)&d, 8, cap)) {
			c->err = -ENOMEM;
			return;
		}
		if (o->len)
			memcpy(d, o->data, o->len);
		free(o->data);
		o->data = d;
		c->cap = cap;
	}
	k = (void *)(o->data + o->len);
	memset(k, 0, size);
	k->hdr.type = RP_REC_KSYMS;
	k->hdr.size = (uint16_t)size;
	k->n = c->n;
	memcpy(k + 1, c->buf, c->len);
	o->len += size;
	o->n += c->n;
	c->len = 0;
	c->n = 0;
}

static int on_ksym(const struct procfs_ksym *k, void *arg)
{
	struct ksym_ctx *c = arg;
	size_t nl = strnlen(k->name, 255), ml = k->module ? strnlen(k->module, 255) : 0;
	char t = k->type;

	/* Only code: samples and return addresses never point into data. */
	if (!k->addr || !(t == 't' || t == 'T' || t == 'w' || t == 'W'))
		return 0;
	if (c->len + 8 + 1 + nl + 1 + ml + 1 > KSYMS_BATCH)
		ksyms_flush(c);
	memcpy(c->buf + c->len, &k->addr, 8);
	c->buf[c->len + 8] = (unsigned char)t;
	memcpy(c->buf + c->len + 9, k->name, nl);
	c->buf[c->len + 9 + nl] = '\0';
	if (ml)
		memcpy(c->buf + c->len + 10 + nl, k->module, ml);
	c->buf[c->len + 10 + nl + ml] = '\0';
	c->len += 11 + nl + ml;
	c->n++;
	return c->err;
}

static int cmp_off_addr(const void *a, const void *b, void *arg)
{
	const unsigned char *data = arg;
	uint64_t x, y;

	memcpy(&x, data + *(const uint32_t *)a, 8);
	memcpy(&y, data + *(const uint32_t *)b, 8);
	if (x != y)
		return x < y ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* Sorted address index over the entries of the records. */
static int ksyms_index(struct synth_ksyms *k)
{
	size_t i = 0;

	if (!k->n)
		return 0;
	k->offs = malloc(k->n * sizeof(*k->offs));
	k->addrs = malloc(k->n * sizeof(*k->addrs));
	if (!k->offs || !k->addrs)
		return -ENOMEM;
	for (size_t off = 0; off + sizeof(struct rp_ksyms_rec) <= k->len;) {
		const struct rp_ksyms_rec *r = (const void *)(k->data + off);
		size_t p = off + sizeof(*r);

		for (uint32_t j = 0; j < r->n && i < k->n; j++) {
			const unsigned char *e = k->data + p;
			size_t nl = strlen((const char *)e + 9);
			size_t ml = strlen((const char *)e + 10 + nl);

			k->offs[i++] = (uint32_t)p;
			p += 11 + nl + ml;
		}
		off += r->hdr.size;
	}
	k->n = i;
	qsort_r(k->offs, k->n, sizeof(*k->offs), cmp_off_addr, k->data);
	for (i = 0; i < k->n; i++)
		memcpy(&k->addrs[i], k->data + k->offs[i], 8);
	return 0;
}

int64_t synth_ksyms_find(const struct synth_ksyms *k, uint64_t addr)
{
	size_t lo = util_count_le(k->addrs, k->n, addr);

	return lo ? (int64_t)lo - 1 : -1;
}

const unsigned char *synth_ksyms_entry(const struct synth_ksyms *k, size_t i, size_t *len)
{
	const unsigned char *e = k->data + k->offs[i];
	size_t nl = strlen((const char *)e + 9);

	*len = 11 + nl + strlen((const char *)e + 10 + nl);
	return e;
}

int synth_ksyms_read(const char *path, struct synth_ksyms *ret)
{
	struct ksym_ctx *c = calloc(1, sizeof(*c));
	struct synth_ksyms k = { 0 };
	int r;

	if (!c)
		return -ENOMEM;
	c->out = &k;
	r = procfs_read_kallsyms(path, on_ksym, c, NULL);
	ksyms_flush(c);
	if (r == 0)
		r = c->err;
	free(c);
	if (r == 0)
		r = ksyms_index(&k);
	if (r < 0) {
		synth_ksyms_free(&k);
		return r;
	}
	*ret = k;
	return 0;
}

void synth_ksyms_write(struct synth *s, const struct synth_ksyms *k)
{
	for (size_t off = 0; off + sizeof(struct rp_ksyms_rec) <= k->len;) {
		const struct rp_ksyms_rec *src = (const void *)(k->data + off);
		struct rp_ksyms_rec *dst = writer_reserve(s->w, src->hdr.size);

		if (dst) {
			memcpy(dst, src, src->hdr.size);
			dst->time = s->time;
		}
		s->st.ksyms += src->n;
		off += src->hdr.size;
	}
}

void synth_ksyms_free(struct synth_ksyms *k)
{
	free(k->data);
	free(k->addrs);
	free(k->offs);
	k->data = NULL;
	k->addrs = NULL;
	k->offs = NULL;
	k->len = k->n = 0;
}
