/* perfrec.c — codecs of PERF_RECORD_* as the kernel writes them (see PERF_EVENT_NOTES §6). */
#include <errno.h>
#include <string.h>

#include "format/format.h"
#include "format/perfrec.h"

size_t perfrec_id_size(uint64_t st)
{
	size_t n = 0;

	n += (st & PERF_SAMPLE_TID) ? 8 : 0;
	n += (st & PERF_SAMPLE_TIME) ? 8 : 0;
	n += (st & PERF_SAMPLE_ID) ? 8 : 0;
	n += (st & PERF_SAMPLE_STREAM_ID) ? 8 : 0;
	n += (st & PERF_SAMPLE_CPU) ? 8 : 0;
	n += (st & PERF_SAMPLE_IDENTIFIER) ? 8 : 0;
	return n;
}

void perfrec_id_write(void *dst, uint64_t st, const struct perfrec_id *id)
{
	unsigned char *p = dst;
	uint32_t cpu[2] = { id->cpu, 0 };
	uint64_t zero = 0;

	if (st & PERF_SAMPLE_TID) {
		memcpy(p, &id->pid, 4);
		memcpy(p + 4, &id->tid, 4);
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		memcpy(p, &id->time, 8);
		p += 8;
	}
	if (st & PERF_SAMPLE_ID) {
		memcpy(p, &zero, 8);
		p += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		memcpy(p, &zero, 8);
		p += 8;
	}
	if (st & PERF_SAMPLE_CPU) {
		memcpy(p, cpu, 8);
		p += 8;
	}
	if (st & PERF_SAMPLE_IDENTIFIER)
		memcpy(p, &zero, 8);
}

/* Cursor over a record's u64 words, failing once the record is exhausted. */
struct cursor {
	const unsigned char *p, *end;
	int bad;
};

static uint64_t take64(struct cursor *c)
{
	uint64_t v = 0;

	if (c->end - c->p < 8) {
		c->bad = 1;
		return 0;
	}
	memcpy(&v, c->p, 8);
	c->p += 8;
	return v;
}

static void take32x2(struct cursor *c, uint32_t *a, uint32_t *b)
{
	uint64_t v = take64(c);

	*a = (uint32_t)v;
	*b = (uint32_t)(v >> 32);
}

/* The fields up to the callchain; c is left after them. */
static int parse_sample_head(const struct perf_event_header *h, uint64_t st, struct cursor *c,
			     struct perfrec_sample *ret)
{
	struct perfrec_sample s;
	uint32_t res;

	memset(&s, 0, sizeof(s));
	s.misc = h->misc;
	if (st & PERF_SAMPLE_IDENTIFIER)
		s.identifier = take64(c);
	if (st & PERF_SAMPLE_IP)
		s.ip = take64(c);
	if (st & PERF_SAMPLE_TID)
		take32x2(c, &s.id.pid, &s.id.tid);
	if (st & PERF_SAMPLE_TIME)
		s.id.time = take64(c);
	if (st & PERF_SAMPLE_ADDR)
		take64(c);
	if (st & PERF_SAMPLE_ID)
		take64(c);
	if (st & PERF_SAMPLE_STREAM_ID)
		take64(c);
	if (st & PERF_SAMPLE_CPU)
		take32x2(c, &s.id.cpu, &res);
	if (st & PERF_SAMPLE_PERIOD)
		s.period = take64(c);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		s.nr = take64(c);
		if (c->bad || s.nr > (uint64_t)(c->end - c->p) / 8)
			return -EINVAL;
		s.ips = (const uint64_t *)c->p;
		c->p += s.nr * 8;
	}
	if (st & PERF_SAMPLE_CGROUP)
		s.cgroup = take64(c);
	if (c->bad)
		return -EINVAL;
	*ret = s;
	return 0;
}

int perfrec_parse_sample(const struct perf_event_header *h, uint64_t st, struct perfrec_sample *ret)
{
	struct cursor c = { (const unsigned char *)(h + 1), (const unsigned char *)h + h->size, 0 };

	if (st & ~(uint64_t)(PERFREC_SAMPLE_KNOWN | PERF_SAMPLE_CGROUP) || h->size < sizeof(*h))
		return -EINVAL;
	return parse_sample_head(h, st, &c, ret);
}

int perfrec_parse_sample_user(const struct perf_event_header *h, uint64_t st, unsigned n_regs,
			      struct perfrec_sample *ret, struct perfrec_user *ret_user)
{
	struct cursor c = { (const unsigned char *)(h + 1), (const unsigned char *)h + h->size, 0 };
	/* The cgroup comes after the user registers and stack. */
	uint64_t head =
	    st & ~(uint64_t)(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_CGROUP);
	struct perfrec_user u;
	int rc;

	if (head & ~(uint64_t)PERFREC_SAMPLE_KNOWN || h->size < sizeof(*h) || n_regs > 64)
		return -EINVAL;
	if ((rc = parse_sample_head(h, head, &c, ret)) < 0)
		return rc;
	memset(&u, 0, sizeof(u));
	if (st & PERF_SAMPLE_REGS_USER) {
		u.abi = take64(&c);
		if (u.abi != PERF_SAMPLE_REGS_ABI_NONE) {
			if (c.bad || (uint64_t)(c.end - c.p) / 8 < n_regs)
				return -EINVAL;
			u.regs = (const uint64_t *)c.p;
			u.n_regs = n_regs;
			c.p += (size_t)n_regs * 8;
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		u.stack_size = take64(&c);
		if (u.stack_size) {
			if (c.bad || u.stack_size > (uint64_t)(c.end - c.p) - 8 ||
			    (uint64_t)(c.end - c.p) < 8)
				return -EINVAL;
			u.stack = c.p;
			c.p += u.stack_size;
			u.dyn_size = take64(&c);
			if (u.dyn_size > u.stack_size)
				u.dyn_size = u.stack_size;
		}
	}
	if (st & PERF_SAMPLE_CGROUP)
		ret->cgroup = take64(&c);
	if (c.bad)
		return -EINVAL;
	*ret_user = u;
	return 0;
}

/* The sample fields that are one u64 word each, in layout order. */
static const uint64_t word_fields[] = {
	PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP,	  PERF_SAMPLE_TID,
	PERF_SAMPLE_TIME,	PERF_SAMPLE_ADDR, PERF_SAMPLE_ID,
	PERF_SAMPLE_STREAM_ID,	PERF_SAMPLE_CPU,  PERF_SAMPLE_PERIOD
};

size_t perfrec_sample_size(uint64_t st, uint64_t nr)
{
	size_t n = sizeof(struct perf_event_header);

	for (size_t i = 0; i < sizeof(word_fields) / sizeof(word_fields[0]); i++)
		n += st & word_fields[i] ? 8 : 0;
	if (st & PERF_SAMPLE_CALLCHAIN)
		n += 8 + 8 * nr;
	return n;
}

/* The layout format 2's samples are rebuilt in, written directly: the reader does it once per
 * sample. ip, pid tid, time, cpu res, period [, nr, ips[nr]]. */
static void write_compact(unsigned char *p, uint64_t st, const struct perfrec_sample *s)
{
	uint32_t res = 0;

	memcpy(p + 8, &s->ip, 8);
	memcpy(p + 16, &s->id.pid, 4);
	memcpy(p + 20, &s->id.tid, 4);
	memcpy(p + 24, &s->id.time, 8);
	memcpy(p + 32, &s->id.cpu, 4);
	memcpy(p + 36, &res, 4);
	memcpy(p + 40, &s->period, 8);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		memcpy(p + 48, &s->nr, 8);
		if (s->nr)
			memcpy(p + 56, s->ips, s->nr * 8);
	}
}

void perfrec_sample_write(void *dst, size_t size, uint64_t st, const struct perfrec_sample *s)
{
	struct perf_event_header *h = dst;
	unsigned char *p = (unsigned char *)(h + 1);
	uint32_t cpu[2] = { s->id.cpu, 0 };
	uint64_t zero = 0;

	h->type = PERF_RECORD_SAMPLE;
	h->misc = s->misc;
	h->size = (uint16_t)size;
	if ((st & ~(uint64_t)PERF_SAMPLE_CALLCHAIN) == RP_COMPACT_SAMPLE_TYPE) {
		write_compact(dst, st, s);
		return;
	}
#define PUT(cond, src)                                                                             \
	do {                                                                                       \
		if (cond) {                                                                        \
			memcpy(p, src, 8);                                                         \
			p += 8;                                                                    \
		}                                                                                  \
	} while (0)
	PUT(st & PERF_SAMPLE_IDENTIFIER, &zero);
	PUT(st & PERF_SAMPLE_IP, &s->ip);
	if (st & PERF_SAMPLE_TID) {
		memcpy(p, &s->id.pid, 4);
		memcpy(p + 4, &s->id.tid, 4);
		p += 8;
	}
	PUT(st & PERF_SAMPLE_TIME, &s->id.time);
	PUT(st & PERF_SAMPLE_ADDR, &zero);
	PUT(st & PERF_SAMPLE_ID, &zero);
	PUT(st & PERF_SAMPLE_STREAM_ID, &zero);
	PUT(st & PERF_SAMPLE_CPU, cpu);
	PUT(st & PERF_SAMPLE_PERIOD, &s->period);
	PUT(st & PERF_SAMPLE_CALLCHAIN, &s->nr);
#undef PUT
	if ((st & PERF_SAMPLE_CALLCHAIN) && s->nr)
		memcpy(p, s->ips, s->nr * 8);
}

int perfrec_parse_id(const struct perf_event_header *h, uint64_t st, struct perfrec_id *ret)
{
	size_t n = perfrec_id_size(st);
	struct cursor c;
	struct perfrec_id id;
	uint32_t res;

	memset(&id, 0, sizeof(id));
	if (h->type >= RP_REC_BASE) {
		if (h->size < 16)
			return -EINVAL;
		memcpy(&id.time, h + 1, 8);
		id.cpu = RP_CPU_SYNTH;
		*ret = id;
		return 0;
	}
	if (h->size < sizeof(*h) + n)
		return -EINVAL;
	c.p = (const unsigned char *)h + h->size - n;
	c.end = (const unsigned char *)h + h->size;
	c.bad = 0;
	if (st & PERF_SAMPLE_TID)
		take32x2(&c, &id.pid, &id.tid);
	if (st & PERF_SAMPLE_TIME)
		id.time = take64(&c);
	if (st & PERF_SAMPLE_ID)
		take64(&c);
	if (st & PERF_SAMPLE_STREAM_ID)
		take64(&c);
	if (st & PERF_SAMPLE_CPU)
		take32x2(&c, &id.cpu, &res);
	*ret = id;
	return 0;
}

uint64_t perfrec_time(const struct perf_event_header *h, uint64_t st)
{
	struct perfrec_id id;

	if (h->type == PERF_RECORD_SAMPLE) {
		/* Fixed offset: header, [identifier], [ip], [tid], time. */
		size_t off = sizeof(*h);

		if (!(st & PERF_SAMPLE_TIME))
			return 0;
		off += (st & PERF_SAMPLE_IDENTIFIER) ? 8 : 0;
		off += (st & PERF_SAMPLE_IP) ? 8 : 0;
		off += (st & PERF_SAMPLE_TID) ? 8 : 0;
		if (h->size < off + 8)
			return 0;
		uint64_t t;

		memcpy(&t, (const unsigned char *)h + off, 8);
		return t;
	}
	if (perfrec_parse_id(h, st, &id) < 0)
		return 0;
	return id.time;
}

const char *perfrec_type_name(uint32_t type)
{
	static const char *const kernel[] = {
		[PERF_RECORD_MMAP] = "MMAP",
		[PERF_RECORD_LOST] = "LOST",
		[PERF_RECORD_COMM] = "COMM",
		[PERF_RECORD_EXIT] = "EXIT",
		[PERF_RECORD_THROTTLE] = "THROTTLE",
		[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
		[PERF_RECORD_FORK] = "FORK",
		[PERF_RECORD_READ] = "READ",
		[PERF_RECORD_SAMPLE] = "SAMPLE",
		[PERF_RECORD_MMAP2] = "MMAP2",
		[PERF_RECORD_AUX] = "AUX",
		[PERF_RECORD_ITRACE_START] = "ITRACE_START",
		[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
		[PERF_RECORD_SWITCH] = "SWITCH",
		[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH",
		[PERF_RECORD_NAMESPACES] = "NAMESPACES",
		[PERF_RECORD_KSYMBOL] = "KSYMBOL",
		[PERF_RECORD_BPF_EVENT] = "BPF_EVENT",
		[PERF_RECORD_CGROUP] = "CGROUP",
		[PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
	};

	if (type < sizeof(kernel) / sizeof(kernel[0]))
		return kernel[type];
	switch (type) {
	case RP_REC_HEADER:
		return "HEADER";
	case RP_REC_KSYMS:
		return "KSYMS";
	case RP_REC_CPU_STATS:
		return "CPU_STATS";
	case RP_REC_FINISH:
		return "FINISH";
	case RP_REC_IMAGE:
		return "IMAGE";
	case RP_REC_EVENT:
		return "EVENT";
	case RP_REC_EVSAMPLES:
		return "EVSAMPLES";
	case RP_REC_BUILDID:
		return "BUILDID";
	case RP_REC_TASKCG:
		return "TASKCG";
	case RP_REC_SYMTAB:
		return "SYMTAB";
	case RP_REC_SYMTAB_D:
		return "SYMTAB";
	}
	return NULL;
}

const char *perfrec_string(const struct perf_event_header *h, size_t off, size_t end)
{
	const char *s = (const char *)h + off;

	if (end > h->size || off >= end)
		return NULL;
	return memchr(s, '\0', end - off) ? s : NULL;
}

/* Bounded field reads for the side-band decoders: 0 past the end. */
static uint32_t u32_at(const struct perf_event_header *h, size_t off)
{
	uint32_t v = 0;

	if (off + 4 <= h->size)
		memcpy(&v, (const char *)h + off, 4);
	return v;
}

static uint64_t u64_at(const struct perf_event_header *h, size_t off)
{
	uint64_t v = 0;

	if (off + 8 <= h->size)
		memcpy(&v, (const char *)h + off, 8);
	return v;
}

/* Where a side-band record's own fields end: before its sample_id trailer. */
static size_t body_end(const struct perf_event_header *h, uint64_t st)
{
	size_t n = perfrec_id_size(st);

	return h->size > n ? h->size - n : 0;
}

int perfrec_parse_comm(const struct perf_event_header *h, uint64_t st, struct perfrec_comm *ret)
{
	*ret = (struct perfrec_comm){ u32_at(h, 8), u32_at(h, 12),
				      perfrec_string(h, 16, body_end(h, st)),
				      h->misc & PERF_RECORD_MISC_COMM_EXEC };
	return ret->comm ? 0 : -EINVAL;
}

int perfrec_parse_mmap(const struct perf_event_header *h, uint64_t st, struct perfrec_mmap *ret)
{
	const unsigned char *p = (const unsigned char *)h;
	bool v2 = h->type == PERF_RECORD_MMAP2;

	*ret = (struct perfrec_mmap){ .misc = h->misc,
				      .pid = u32_at(h, 8),
				      .tid = u32_at(h, 12),
				      .addr = u64_at(h, 16),
				      .len = u64_at(h, 24),
				      .pgoff = u64_at(h, 32) };
	ret->path = perfrec_string(h, v2 ? 72 : 40, body_end(h, st));
	if (!v2)
		return ret->path ? 0 : -EINVAL;
	if ((h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && h->size >= 64) {
		ret->build_id = p + 44;
		ret->build_id_len = p[40] <= 20 ? p[40] : 20;
	} else {
		ret->maj = u32_at(h, 40);
		ret->min = u32_at(h, 44);
		ret->ino = u64_at(h, 48);
		ret->ino_gen = u64_at(h, 56);
	}
	ret->prot = u32_at(h, 64);
	ret->flags = u32_at(h, 68);
	return ret->path ? 0 : -EINVAL;
}

int perfrec_parse_task(const struct perf_event_header *h, struct perfrec_task *ret)
{
	*ret = (struct perfrec_task){ u32_at(h, 8), u32_at(h, 12), u32_at(h, 16), u32_at(h, 20) };
	return h->size >= 24 ? 0 : -EINVAL;
}

int perfrec_parse_lost(const struct perf_event_header *h, struct perfrec_lost *ret)
{
	if (h->type == PERF_RECORD_LOST_SAMPLES) {
		*ret = (struct perfrec_lost){ 0, u64_at(h, 8) };
		return h->size >= 16 ? 0 : -EINVAL;
	}
	*ret = (struct perfrec_lost){ u64_at(h, 8), u64_at(h, 16) };
	return h->size >= 24 ? 0 : -EINVAL;
}

int perfrec_parse_switch(const struct perf_event_header *h, struct perfrec_switch *ret)
{
	*ret = (struct perfrec_switch){ u32_at(h, 8), u32_at(h, 12) };
	return h->size >= 16 ? 0 : -EINVAL;
}

int perfrec_parse_throttle(const struct perf_event_header *h, struct perfrec_throttle *ret)
{
	*ret = (struct perfrec_throttle){ u64_at(h, 8), u64_at(h, 16) };
	return h->size >= 24 ? 0 : -EINVAL;
}

int perfrec_parse_ksymbol(const struct perf_event_header *h, uint64_t st,
			  struct perfrec_ksymbol *ret)
{
	*ret = (struct perfrec_ksymbol){ u64_at(h, 8), u32_at(h, 16),
					 perfrec_string(h, 24, body_end(h, st)) };
	return ret->name ? 0 : -EINVAL;
}

int perfrec_parse_cgroup(const struct perf_event_header *h, uint64_t st, struct perfrec_cgroup *ret)
{
	*ret = (struct perfrec_cgroup){ u64_at(h, 8), perfrec_string(h, 16, body_end(h, st)) };
	return ret->path ? 0 : -EINVAL;
}

/* header + fixed fields + string with its NUL, padded to 8, + trailer */
static size_t sideband_size(uint64_t st, size_t fixed, size_t str_len)
{
	return (sizeof(struct perf_event_header) + fixed + str_len + 1 + 7) / 8 * 8 +
	       perfrec_id_size(st);
}

static void put_header(void *dst, size_t size, uint32_t type, uint16_t misc, uint64_t st,
		       const struct perfrec_id *id)
{
	struct perf_event_header *h = dst;

	memset(dst, 0, size);
	h->type = type;
	h->misc = misc;
	h->size = (uint16_t)size;
	perfrec_id_write((char *)dst + size - perfrec_id_size(st), st, id);
}

size_t perfrec_comm_size(uint64_t st, const char *comm)
{
	return sideband_size(st, 8, strnlen(comm, 15));
}

void perfrec_comm_write(void *dst, size_t size, uint64_t st, const struct perfrec_comm *c,
			const struct perfrec_id *id)
{
	unsigned char *p = dst;

	put_header(dst, size, PERF_RECORD_COMM, c->exec ? PERF_RECORD_MISC_COMM_EXEC : 0, st, id);
	memcpy(p + 8, &c->pid, 4);
	memcpy(p + 12, &c->tid, 4);
	memcpy(p + 16, c->comm, strnlen(c->comm, 15));
}

size_t perfrec_mmap2_size(uint64_t st, const char *path)
{
	return sideband_size(st, 64, strlen(path));
}

void perfrec_mmap2_write(void *dst, size_t size, uint64_t st, const struct perfrec_mmap *m,
			 const struct perfrec_id *id)
{
	unsigned char *p = dst;

	put_header(dst, size, PERF_RECORD_MMAP2, m->misc, st, id);
	memcpy(p + 8, &m->pid, 4);
	memcpy(p + 12, &m->tid, 4);
	memcpy(p + 16, &m->addr, 8);
	memcpy(p + 24, &m->len, 8);
	memcpy(p + 32, &m->pgoff, 8);
	if (m->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		p[40] = (uint8_t)m->build_id_len;
		memcpy(p + 44, m->build_id, m->build_id_len);
	} else {
		memcpy(p + 40, &m->maj, 4);
		memcpy(p + 44, &m->min, 4);
		memcpy(p + 48, &m->ino, 8);
		memcpy(p + 56, &m->ino_gen, 8);
	}
	memcpy(p + 64, &m->prot, 4);
	memcpy(p + 68, &m->flags, 4);
	memcpy(p + 72, m->path, strlen(m->path));
}

size_t perfrec_cgroup_size(uint64_t st, const char *path)
{
	return sideband_size(st, 8, strlen(path));
}

void perfrec_cgroup_write(void *dst, size_t size, uint64_t st, const struct perfrec_cgroup *c,
			  const struct perfrec_id *id)
{
	unsigned char *p = dst;

	put_header(dst, size, PERF_RECORD_CGROUP, 0, st, id);
	memcpy(p + 8, &c->id, 8);
	memcpy(p + 16, c->path, strlen(c->path));
}

bool perfrec_pid0_side_band(const struct perf_event_header *h)
{
	uint32_t v[4];

	switch (h->type) {
	case PERF_RECORD_COMM:
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_NAMESPACES:
		/* u32 pid, tid first */
		if (h->size < sizeof(*h) + 8)
			return false;
		memcpy(v, h + 1, 8);
		return v[0] == 0 && v[1] == 0;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		/* u32 pid, ppid, tid, ptid */
		if (h->size < sizeof(*h) + 16)
			return false;
		memcpy(v, h + 1, 16);
		return v[0] == 0 && v[2] == 0;
	}
	return false;
}
