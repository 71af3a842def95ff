/* dump.c — text form of every record type ringprof stores. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <linux/perf_event.h>

#include "base/symx.h"
#include "format/dump.h"
#include "format/format.h"
#include "format/perfrec.h"

static void put_time(FILE *f, uint64_t t)
{
	fprintf(f, " %" PRIu64 ".%09" PRIu64, t / 1000000000u, t % 1000000000u);
}

/* Time and CPU, then pid/tid: from the record's own fields when it has them, otherwise
 * from its sample_id (the task the record was written for). */
static void put_id(FILE *f, const struct perfrec_id *id, bool own_pid)
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
	if (v == RP_CONTEXT_JOINED)
		return "joined";
	if (v == RP_CONTEXT_FPCHAIN)
		return "frame-pointers";
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
	struct perfrec_sample s;

	if (perfrec_parse_sample(h, st, &s) < 0) {
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
			if (v >= RP_CONTEXT_UNWIND && v - RP_CONTEXT_UNWIND < RP_CONTEXT_UNWIND_N)
				fprintf(f, "unwind:%s",
					format_unwind_stop_token(v - RP_CONTEXT_UNWIND));
			else if (v >= (uint64_t)PERF_CONTEXT_MAX)
				fputs(context_name(v), f);
			else
				fprintf(f, "0x%" PRIx64, v);
		}
	}
}

static void dump_mmap(FILE *f, const struct perf_event_header *h, uint64_t st)
{
	struct perfrec_mmap m;

	perfrec_parse_mmap(h, st, &m);
	fprintf(f, " pid=%d tid=%d", (int)m.pid, (int)m.tid);
	fprintf(f, " addr=0x%" PRIx64 "-0x%" PRIx64 " pgoff=0x%" PRIx64, m.addr, m.addr + m.len,
		m.pgoff);
	if (h->type == PERF_RECORD_MMAP2) {
		fprintf(f, " prot=%c%c%c flags=0x%x", m.prot & 1 ? 'r' : '-',
			m.prot & 2 ? 'w' : '-', m.prot & 4 ? 'x' : '-', m.flags);
		if (m.build_id) {
			fputs(" build_id=", f);
			for (size_t i = 0; i < m.build_id_len; i++)
				fprintf(f, "%02x", m.build_id[i]);
		} else {
			fprintf(f, " maj=%u min=%u ino=%" PRIu64, m.maj, m.min, m.ino);
		}
	}
	fprintf(f, " path=%s", m.path ? m.path : "(malformed)");
}

static void dump_header(FILE *f, const struct perf_event_header *h)
{
	const struct rp_header_rec *r = (const void *)h;

	if (h->size < sizeof(*r)) {
		fputs(" (malformed)", f);
		return;
	}
	put_time(f, r->time);
	fprintf(f,
		" version=%u.%u event=%.64s freq=%" PRIu64 " period=%" PRIu64
		" flags=0x%x host=%.72s",
		r->major, r->minor, r->event_name, r->freq, r->period, r->flags, r->hostname);
}

/* A SYMTAB record: its build-id, part, counts and source, and its first symbol. */
static void dump_symtab(FILE *f, const struct perf_event_header *h)
{
	struct rp_symtab_rec st;
	uint8_t digest[RP_DIGEST_LEN];
	struct symx_cursor c;
	struct symx_entry e;
	const unsigned char *run;
	size_t len, dlen;

	if (format_symtab(h, &st, digest, &dlen, &run, &len) < 0) {
		fputs(" (malformed)", f);
		return;
	}
	put_time(f, st.time);
	if (dlen)
		fputs(" digest=", f);
	for (unsigned i = 0; i < dlen; i++)
		fprintf(f, "%02x", digest[i]);
	fputs(" build_id=", f);
	for (unsigned i = 0; i < st.len; i++)
		fprintf(f, "%02x", st.build_id[i]);
	fprintf(f, " part=%u/%u n=%u flags=%#x", st.part, st.n_parts, st.n, st.flags);
	symx_open(&c, run, len, 0);
	if (st.n && symx_next(&c, &e) == 1)
		fprintf(f, " first=%#" PRIx64 ":%.*s", e.start, (int)e.name_len, e.name);
}

/* Our own records: time first, then their fields. */
static void dump_own(FILE *f, const struct perf_event_header *h)
{
	struct rp_cpu_stats_rec cs = { 0 };
	struct rp_finish_rec fin = { 0 };
	struct rp_buildid_rec bid;
	struct rp_taskcg_rec tc;
	struct rp_ksyms_rec k = { 0 };
	const unsigned char *image;
	const char *name;
	size_t len;
	struct rp_event_rec ev;

	switch (h->type) {
	case RP_REC_HEADER:
		dump_header(f, h);
		break;
	case RP_REC_EVENT:
		if (format_event(h, &ev) < 0) {
			fputs(" (malformed)", f);
			break;
		}
		put_time(f, ev.time);
		fprintf(f,
			" index=%u of=%u event=%s type=%u config=%" PRIu64 " freq=%" PRIu64
			" period=%" PRIu64,
			ev.index, ev.n_events, ev.event_name, ev.event_type, ev.event_config,
			ev.freq, ev.period);
		break;
	case RP_REC_KSYMS:
		memcpy(&k, h, h->size < sizeof(k) ? h->size : sizeof(k));
		put_time(f, k.time);
		fprintf(f, " n=%u", k.n);
		break;
	case RP_REC_CPU_STATS:
		if (format_cpu_stats(h, &cs) < 0)
			memcpy(&cs, h, h->size < sizeof(cs) ? h->size : sizeof(cs));
		put_time(f, cs.time);
		fprintf(f,
			" cpu=%u samples=%" PRIu64 " lost=%" PRIu64 " lost_unreported=%" PRIu64
			" throttles=%" PRIu64 " unthrottles=%" PRIu64 " bad=%" PRIu64,
			cs.cpu, cs.samples, cs.lost, cs.lost_unreported, cs.throttles,
			cs.unthrottles, cs.bad);
		break;
	case RP_REC_FINISH:
		if (format_finish(h, &fin) < 0)
			memcpy(&fin, h, h->size < sizeof(fin) ? h->size : sizeof(fin));
		put_time(f, fin.time);
		fprintf(f,
			" samples=%" PRIu64 " lost=%" PRIu64 " dropped=%" PRIu64 " exit_status=%d",
			fin.samples, fin.lost, fin.dropped_records, fin.exit_status);
		break;
	case RP_REC_IMAGE:
		if (format_image(h, &name, &image, &len) < 0) {
			fputs(" (malformed)", f);
			break;
		}
		put_time(f, ((const struct rp_image_rec *)(const void *)h)->time);
		fprintf(f, " name=%s len=%zu", name, len);
		break;
	case RP_REC_BUILDID:
		if (format_buildid(h, &bid) < 0) {
			fputs(" (malformed)", f);
			break;
		}
		put_time(f, bid.time);
		if (bid.digest_len)
			fputs(" digest=", f);
		for (unsigned i = 0; i < bid.digest_len; i++)
			fprintf(f, "%02x", bid.digest[i]);
		fprintf(f, " maj=%u min=%u ino=%" PRIu64 " gen=%" PRIu64 " build_id=", bid.maj,
			bid.min, bid.ino, bid.ino_gen);
		for (unsigned i = 0; i < bid.len; i++)
			fprintf(f, "%02x", bid.build_id[i]);
		break;
	case RP_REC_TASKCG:
		if (format_taskcg(h, &tc) < 0) {
			fputs(" (malformed)", f);
			break;
		}
		put_time(f, tc.time);
		fprintf(f, " pid=%u tid=%u cgroup=%" PRIu64, tc.pid, tc.tid, tc.cgroup);
		break;
	case RP_REC_SYMTAB:
	case RP_REC_SYMTAB_D:
		dump_symtab(f, h);
		break;
	default:
		fprintf(f, " size=%u", h->size);
	}
}

/* The fields of a kernel side-band record after its time and CPU. */
/* Records whose fields only --dump shows. */
static void dump_other(FILE *f, const struct perf_event_header *h, uint64_t st)
{
	struct perfrec_switch sw;
	struct perfrec_throttle th;
	struct perfrec_ksymbol ks;
	struct perfrec_cgroup cg;
	const char *dir = h->misc & PERF_RECORD_MISC_SWITCH_OUT ? "next" : "prev";

	switch (h->type) {
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		perfrec_parse_throttle(h, &th);
		fprintf(f, " id=%" PRIu64, th.id);
		break;
	case PERF_RECORD_SWITCH:
		fprintf(f, " out=%d", !!(h->misc & PERF_RECORD_MISC_SWITCH_OUT));
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		perfrec_parse_switch(h, &sw);
		fprintf(f, " out=%d preempt=%d %s_pid=%d %s_tid=%d",
			!!(h->misc & PERF_RECORD_MISC_SWITCH_OUT),
			!!(h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT), dir, (int)sw.pid, dir,
			(int)sw.tid);
		break;
	case PERF_RECORD_KSYMBOL:
		perfrec_parse_ksymbol(h, st, &ks);
		fprintf(f, " addr=0x%" PRIx64 " len=%u name=%s", ks.addr, ks.len,
			ks.name ? ks.name : "(malformed)");
		break;
	case PERF_RECORD_CGROUP:
		perfrec_parse_cgroup(h, st, &cg);
		fprintf(f, " id=%" PRIu64 " path=%s", cg.id, cg.path ? cg.path : "(malformed)");
		break;
	default:
		fprintf(f, " size=%u", h->size);
	}
}

/* The fields of a kernel side-band record after its time and CPU. */
static void dump_sideband(FILE *f, const struct perf_event_header *h, uint64_t st)
{
	struct perfrec_comm c;
	struct perfrec_task t;
	struct perfrec_lost l;

	switch (h->type) {
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_MMAP:
		dump_mmap(f, h, st);
		break;
	case PERF_RECORD_COMM:
		perfrec_parse_comm(h, st, &c);
		fprintf(f, " pid=%d tid=%d exec=%d comm=%s", (int)c.pid, (int)c.tid, c.exec,
			c.comm ? c.comm : "(malformed)");
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		perfrec_parse_task(h, &t);
		fprintf(f, " pid=%d ppid=%d tid=%d ptid=%d", (int)t.pid, (int)t.ppid, (int)t.tid,
			(int)t.ptid);
		break;
	case PERF_RECORD_LOST:
		perfrec_parse_lost(h, &l);
		fprintf(f, " id=%" PRIu64 " lost=%" PRIu64, l.id, l.lost);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		perfrec_parse_lost(h, &l);
		fprintf(f, " lost=%" PRIu64, l.lost);
		break;
	default:
		dump_other(f, h, st);
	}
}

void dump_record(FILE *f, const struct perf_event_header *h, uint64_t st, const char *event)
{
	const char *name = perfrec_type_name(h->type);
	struct perfrec_id id;

	if (name)
		fputs(name, f);
	else
		fprintf(f, "UNKNOWN(%u)", h->type);
	if (h->type == PERF_RECORD_SAMPLE) {
		if (event)
			fprintf(f, " event=%s", event);
		dump_sample(f, h, st);
	} else if (h->type >= RP_REC_BASE) {
		dump_own(f, h);
	} else if (h->size < 8 + perfrec_id_size(st) || perfrec_parse_id(h, st, &id) < 0) {
		fputs(" (malformed)", f);
	} else {
		/* MMAP, MMAP2, COMM, FORK and EXIT name their task in their own fields. */
		put_id(f, &id,
		       h->type == PERF_RECORD_MMAP || h->type == PERF_RECORD_MMAP2 ||
			   h->type == PERF_RECORD_COMM || h->type == PERF_RECORD_FORK ||
			   h->type == PERF_RECORD_EXIT);
		dump_sideband(f, h, st);
	}
	fputc('\n', f);
}

static bool in_list32(const int32_t *v, size_t n, int32_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return !n;
}

/* The task a record is about: its own fields where it has them (MMAP, COMM, FORK, EXIT),
 * else its sample_id's. */
static void record_task(const struct perf_event_header *h, uint64_t st, struct perfrec_id *id)
{
	struct perfrec_mmap m;
	struct perfrec_comm c;
	struct perfrec_task t;

	switch (h->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (perfrec_parse_mmap(h, st, &m) == 0)
			id->pid = m.pid, id->tid = m.tid;
		break;
	case PERF_RECORD_COMM:
		if (perfrec_parse_comm(h, st, &c) == 0)
			id->pid = c.pid, id->tid = c.tid;
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (perfrec_parse_task(h, &t) == 0)
			id->pid = t.pid, id->tid = t.tid;
		break;
	}
}

bool dump_keep(const struct dump_filter *f, const struct perf_event_header *h, uint64_t st)
{
	struct perfrec_sample s;
	struct perfrec_id id;
	bool cpu_ok;

	if (h->type >= RP_REC_BASE)
		return true;
	if (h->type == PERF_RECORD_SAMPLE) {
		if (perfrec_parse_sample(h, st, &s) < 0)
			return true; /* shown as malformed */
		id = s.id;
	} else {
		if (h->size < 8 + perfrec_id_size(st) || perfrec_parse_id(h, st, &id) < 0)
			return true;
		record_task(h, st, &id);
	}
	/* Synthesized records belong to no CPU: a --cpu filter keeps them. */
	cpu_ok = id.cpu == RP_CPU_SYNTH;
	for (size_t i = 0; i < f->n_cpus && !cpu_ok; i++)
		cpu_ok = (uint32_t)f->cpus[i] == id.cpu;
	if (f->n_cpus && !cpu_ok)
		return false;
	if (id.time && (id.time < f->since || id.time > f->until))
		return false;
	return in_list32(f->pids, f->n_pids, (int32_t)id.pid) &&
	       in_list32(f->tids, f->n_tids, (int32_t)id.tid);
}
