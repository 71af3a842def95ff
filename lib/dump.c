/* dump.c — text form of every record type ringprof stores. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <linux/perf_event.h>

#include "dump.h"
#include "format.h"
#include "record.h"

static void put_time(FILE *f, uint64_t t)
{
	fprintf(f, " %" PRIu64 ".%09" PRIu64, t / 1000000000u, t % 1000000000u);
}

/* Time and CPU, then pid/tid: from the record's own fields when it has them, otherwise
 * from its sample_id (the task the record was written for). */
static void put_id(FILE *f, const struct record_id *id, bool own_pid)
{
	put_time(f, id->time);
	if (id->cpu == RP_CPU_SYNTH)
		fputs(" cpu=-", f);
	else
		fprintf(f, " cpu=%u", id->cpu);
	if (!own_pid)
		fprintf(f, " pid=%d tid=%d", (int)id->pid, (int)id->tid);
}

static const char *cpumode(uint16_t misc)
{
	switch (misc & PERF_RECORD_MISC_CPUMODE_MASK) {
	case PERF_RECORD_MISC_KERNEL:
		return "kernel";
	case PERF_RECORD_MISC_USER:
		return "user";
	case PERF_RECORD_MISC_HYPERVISOR:
		return "hv";
	case PERF_RECORD_MISC_GUEST_KERNEL:
		return "guest-kernel";
	case PERF_RECORD_MISC_GUEST_USER:
		return "guest-user";
	}
	return "unknown";
}

static const char *context_name(uint64_t v)
{
	switch (v) {
	case PERF_CONTEXT_HV:
		return "hv";
	case PERF_CONTEXT_KERNEL:
		return "kernel";
	case PERF_CONTEXT_USER:
		return "user";
	case PERF_CONTEXT_GUEST:
		return "guest";
	case PERF_CONTEXT_GUEST_KERNEL:
		return "guest-kernel";
	case PERF_CONTEXT_GUEST_USER:
		return "guest-user";
	}
	return "context?";
}

static void dump_sample(FILE *f, const struct perf_event_header *h, uint64_t st)
{
	struct record_sample s;

	if (record_parse_sample(h, st, &s) < 0) {
		fputs(" (malformed)", f);
		return;
	}
	put_id(f, &s.id, false);
	fprintf(f, " period=%" PRIu64 " mode=%s ip=0x%" PRIx64, s.period, cpumode(s.misc), s.ip);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		fprintf(f, " nr=%" PRIu64 " chain=", s.nr);
		for (uint64_t i = 0; i < s.nr; i++) {
			uint64_t v;

			memcpy(&v, &s.ips[i], 8);
			if (i)
				fputc(',', f);
			if (v >= (uint64_t)PERF_CONTEXT_MAX)
				fputs(context_name(v), f);
			else
				fprintf(f, "0x%" PRIx64, v);
		}
	}
}

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

static void dump_mmap2(FILE *f, const struct perf_event_header *h, uint64_t st, size_t end)
{
	const unsigned char *p = (const unsigned char *)h;
	uint64_t addr = u64_at(h, 16), len = u64_at(h, 24), pgoff = u64_at(h, 32);
	uint32_t prot = u32_at(h, 64), flags = u32_at(h, 68);
	const char *path = record_string(h, 72, end);

	fprintf(f, " addr=0x%" PRIx64 "-0x%" PRIx64 " pgoff=0x%" PRIx64 " prot=%c%c%c flags=0x%x", addr,
		addr + len, pgoff, prot & 1 ? 'r' : '-', prot & 2 ? 'w' : '-', prot & 4 ? 'x' : '-', flags);
	if ((h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && h->size >= 64) {
		unsigned n = p[40] <= 20 ? p[40] : 20;

		fputs(" build_id=", f);
		for (unsigned i = 0; i < n; i++)
			fprintf(f, "%02x", p[44 + i]);
	} else {
		fprintf(f, " maj=%u min=%u ino=%" PRIu64, u32_at(h, 40), u32_at(h, 44), u64_at(h, 48));
	}
	fprintf(f, " path=%s", path ? path : "(malformed)");
	(void)st;
}

static void dump_header(FILE *f, const struct perf_event_header *h)
{
	const struct rp_header_rec *r = (const void *)h;

	if (h->size < sizeof(*r)) {
		fputs(" (malformed)", f);
		return;
	}
	put_time(f, r->time);
	fprintf(f, " version=%u.%u event=%.64s freq=%" PRIu64 " period=%" PRIu64 " flags=0x%x host=%.72s",
		r->major, r->minor, r->event_name, r->freq, r->period, r->flags, r->hostname);
}

void dump_record(FILE *f, const struct perf_event_header *h, uint64_t st)
{
	const char *name = record_type_name(h->type);
	size_t end = h->size - (h->type < RP_REC_BASE && h->type != PERF_RECORD_SAMPLE ? record_id_size(st) : 0);
	struct record_id id;

	if (name)
		fputs(name, f);
	else
		fprintf(f, "UNKNOWN(%u)", h->type);
	if (h->type == PERF_RECORD_SAMPLE) {
		dump_sample(f, h, st);
		fputc('\n', f);
		return;
	}
	if (h->type >= RP_REC_BASE) {
		switch (h->type) {
		case RP_REC_HEADER:
			dump_header(f, h);
			break;
		case RP_REC_KSYMS:
			put_time(f, u64_at(h, 8));
			fprintf(f, " n=%u", u32_at(h, 16));
			break;
		case RP_REC_CPU_STATS:
			put_time(f, u64_at(h, 8));
			fprintf(f,
				" cpu=%u samples=%" PRIu64 " lost=%" PRIu64 " lost_unreported=%" PRIu64
				" throttles=%" PRIu64 " unthrottles=%" PRIu64 " bad=%" PRIu64,
				u32_at(h, 16), u64_at(h, 24), u64_at(h, 32), u64_at(h, 40), u64_at(h, 48),
				u64_at(h, 56), u64_at(h, 64));
			break;
		case RP_REC_FINISH:
			put_time(f, u64_at(h, 8));
			fprintf(f, " samples=%" PRIu64 " lost=%" PRIu64 " dropped=%" PRIu64 " exit_status=%d",
				u64_at(h, 16), u64_at(h, 24), u64_at(h, 32), (int)u32_at(h, 40));
			break;
		default:
			fprintf(f, " size=%u", h->size);
		}
		fputc('\n', f);
		return;
	}
	if (h->size < 8 + record_id_size(st) || record_parse_id(h, st, &id) < 0) {
		fputs(" (malformed)\n", f);
		return;
	}
	bool own = h->type == PERF_RECORD_MMAP || h->type == PERF_RECORD_MMAP2 || h->type == PERF_RECORD_COMM;

	put_id(f, &id, own || h->type == PERF_RECORD_FORK || h->type == PERF_RECORD_EXIT);
	if (own)
		fprintf(f, " pid=%d tid=%d", (int)u32_at(h, 8), (int)u32_at(h, 12));
	switch (h->type) {
	case PERF_RECORD_MMAP2:
		dump_mmap2(f, h, st, end);
		break;
	case PERF_RECORD_MMAP: {
		const char *path = record_string(h, 40, end);

		fprintf(f, " addr=0x%" PRIx64 "-0x%" PRIx64 " pgoff=0x%" PRIx64 " path=%s", u64_at(h, 16),
			u64_at(h, 16) + u64_at(h, 24), u64_at(h, 32), path ? path : "(malformed)");
		break;
	}
	case PERF_RECORD_COMM: {
		const char *comm = record_string(h, 16, end);

		fprintf(f, " exec=%d comm=%s", !!(h->misc & PERF_RECORD_MISC_COMM_EXEC), comm ? comm : "(malformed)");
		break;
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		fprintf(f, " pid=%d ppid=%d tid=%d ptid=%d", (int)u32_at(h, 8),
			(int)u32_at(h, 12), (int)u32_at(h, 16), (int)u32_at(h, 20));
		break;
	case PERF_RECORD_LOST:
		fprintf(f, " id=%" PRIu64 " lost=%" PRIu64, u64_at(h, 8), u64_at(h, 16));
		break;
	case PERF_RECORD_LOST_SAMPLES:
		fprintf(f, " lost=%" PRIu64, u64_at(h, 8));
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		fprintf(f, " id=%" PRIu64, u64_at(h, 16));
		break;
	case PERF_RECORD_SWITCH:
		fprintf(f, " out=%d", !!(h->misc & PERF_RECORD_MISC_SWITCH_OUT));
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		fprintf(f, " out=%d preempt=%d %s_pid=%d %s_tid=%d", !!(h->misc & PERF_RECORD_MISC_SWITCH_OUT),
			!!(h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT),
			h->misc & PERF_RECORD_MISC_SWITCH_OUT ? "next" : "prev", (int)u32_at(h, 8),
			h->misc & PERF_RECORD_MISC_SWITCH_OUT ? "next" : "prev", (int)u32_at(h, 12));
		break;
	case PERF_RECORD_KSYMBOL: {
		const char *sym = record_string(h, 24, end);

		fprintf(f, " addr=0x%" PRIx64 " len=%u name=%s", u64_at(h, 8), u32_at(h, 16),
			sym ? sym : "(malformed)");
		break;
	}
	default:
		fprintf(f, " size=%u", h->size);
	}
	fputc('\n', f);
}
