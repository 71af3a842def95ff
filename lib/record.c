/* record.c — layouts of PERF_RECORD_* as the kernel writes them (see PERF_EVENT_NOTES §6). */
#include <errno.h>
#include <string.h>

#include "format.h"
#include "record.h"

size_t record_id_size(uint64_t st)
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

void record_id_write(void *dst, uint64_t st, const struct record_id *id)
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

int record_parse_sample(const struct perf_event_header *h, uint64_t st, struct record_sample *ret)
{
	struct cursor c = { (const unsigned char *)(h + 1), (const unsigned char *)h + h->size, 0 };
	struct record_sample s;
	uint32_t res;

	if (st & ~(uint64_t)RECORD_SAMPLE_KNOWN || h->size < sizeof(*h))
		return -EINVAL;
	memset(&s, 0, sizeof(s));
	s.misc = h->misc;
	if (st & PERF_SAMPLE_IDENTIFIER)
		take64(&c);
	if (st & PERF_SAMPLE_IP)
		s.ip = take64(&c);
	if (st & PERF_SAMPLE_TID)
		take32x2(&c, &s.id.pid, &s.id.tid);
	if (st & PERF_SAMPLE_TIME)
		s.id.time = take64(&c);
	if (st & PERF_SAMPLE_ADDR)
		take64(&c);
	if (st & PERF_SAMPLE_ID)
		take64(&c);
	if (st & PERF_SAMPLE_STREAM_ID)
		take64(&c);
	if (st & PERF_SAMPLE_CPU)
		take32x2(&c, &s.id.cpu, &res);
	if (st & PERF_SAMPLE_PERIOD)
		s.period = take64(&c);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		s.nr = take64(&c);
		if (c.bad || s.nr > (uint64_t)(c.end - c.p) / 8)
			return -EINVAL;
		s.ips = (const uint64_t *)c.p;
		c.p += s.nr * 8;
	}
	if (c.bad)
		return -EINVAL;
	*ret = s;
	return 0;
}

int record_parse_id(const struct perf_event_header *h, uint64_t st, struct record_id *ret)
{
	size_t n = record_id_size(st);
	struct cursor c;
	struct record_id id;
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

uint64_t record_time(const struct perf_event_header *h, uint64_t st)
{
	struct record_id id;

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
	if (record_parse_id(h, st, &id) < 0)
		return 0;
	return id.time;
}

const char *record_type_name(uint32_t type)
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
	}
	return NULL;
}

const char *record_string(const struct perf_event_header *h, size_t off, size_t end)
{
	const char *s = (const char *)h + off;

	if (end > h->size || off >= end)
		return NULL;
	return memchr(s, '\0', end - off) ? s : NULL;
}
