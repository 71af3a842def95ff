/* filestats.c — counting a recording's records by type and CPU for --stats, and their text. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <linux/perf_event.h>

#include "base/util.h"
#include "format/filestats.h"
#include "format/format.h"
#include "format/perfrec.h"
#include "format/reader.h"

/* The entries of a KSYMS record that are really there (its count may be damaged). */
static uint64_t ksyms_present(const struct perf_event_header *h)
{
	struct format_ksyms_cursor c;
	struct format_ksym k;
	uint64_t n = 0;

	if (format_ksyms_open(&c, h, h->size) < 0)
		return 0;
	while (format_ksyms_next(&c, &k) > 0)
		n++;
	return n;
}

/* A part of a captured symbol table; its first part counts the binary. */
static void count_symtab(struct filestats *s, const struct perf_event_header *h)
{
	struct rp_symtab_rec st;
	uint8_t digest[RP_DIGEST_LEN];
	const unsigned char *run;
	size_t len, dlen;

	if (format_symtab(h, &st, digest, &dlen, &run, &len) < 0)
		return;
	if (st.flags & RP_SYMTAB_SKIPPED) {
		s->sym_skipped++;
		return;
	}
	s->sym_tables += st.part == 0;
	s->sym_functions += st.n;
	s->sym_bytes += h->size;
}

/* A chain unwound while recording ends in a marker saying why. */
static void count_unwind(struct filestats *s, const struct perfrec_sample *smp)
{
	uint64_t v;

	if (!smp->nr)
		return;
	memcpy(&v, &smp->ips[smp->nr - 1], 8);
	if (v >= RP_CONTEXT_UNWIND && v - RP_CONTEXT_UNWIND < RP_CONTEXT_UNWIND_N) {
		s->unwound++;
		s->unwind_stop[v - RP_CONTEXT_UNWIND]++;
	}
}

/* The user stacks unwound while recording, by why their walk stopped. */
static void print_unwind(FILE *f, const struct filestats *s)
{
	uint64_t other = s->unwound;

	fprintf(f, "  user stacks   %" PRIu64 " unwound while recording:", s->unwound);
	/* The stops of format 2.3 always, later ones where a file has them. */
	for (size_t i = 0; i < RP_UNWIND_STOP_N; i++) {
		if (i > RP_UNWIND_JOINED && !s->unwind_stop[i])
			continue;
		fprintf(f, "%s %" PRIu64 " %s", i ? "," : "", s->unwind_stop[i],
			format_unwind_stop_name(i));
		other -= s->unwind_stop[i];
	}
	if (other)
		fprintf(f, ", %" PRIu64 " other", other);
	fputc('\n', f);
}

void filestats_add(struct filestats *s, const struct perf_event_header *h, uint64_t st,
		   uint32_t event)
{
	struct perfrec_id id = { 0 };
	struct filestats_cpu *c = NULL;
	struct rp_cpu_stats_rec cs;
	struct perfrec_lost lost;
	uint64_t t = perfrec_time(h, st);

	if (t && (!s->t_min || t < s->t_min))
		s->t_min = t;
	if (t > s->t_max)
		s->t_max = t;
	if (h->type < 32)
		s->by_type[h->type == PERF_RECORD_SWITCH_CPU_WIDE ? PERF_RECORD_SWITCH : h->type]++;
	else if (h->type > RP_REC_BASE && h->type < RP_REC_BASE + 16)
		s->own[h->type - RP_REC_BASE]++;
	else
		s->unknown++;

	if (h->type == PERF_RECORD_SAMPLE) {
		struct perfrec_sample smp;

		if (perfrec_parse_sample(h, st, &smp) == 0) {
			id = smp.id;
			count_unwind(s, &smp);
		} else {
			s->malformed++; /* no CPU to count it on: not a sample */
			return;
		}
	} else if (h->type < RP_REC_BASE) {
		perfrec_parse_id(h, st, &id);
	} else {
		id.cpu = RP_CPU_SYNTH;
	}
	if (h->type < RP_REC_BASE)
		c = id.cpu == RP_CPU_SYNTH    ? &s->synth
		    : id.cpu < FILESTATS_CPUS ? &s->cpu[id.cpu]
					      : NULL;
	if (c) {
		c->records++;
		if (id.cpu != RP_CPU_SYNTH && id.cpu > s->max_cpu)
			s->max_cpu = id.cpu;
	}
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		s->samples++;
		if (event < RP_MAX_EVENTS)
			s->event_samples[event]++;
		if (c)
			c->samples++;
		break;
	case PERF_RECORD_LOST:
		if (perfrec_parse_lost(h, &lost) == 0) {
			s->lost_records = util_sat_add(s->lost_records, lost.lost);
			if (c)
				c->lost = util_sat_add(c->lost, lost.lost);
		}
		break;
	case PERF_RECORD_THROTTLE:
		s->throttles++;
		if (c)
			c->throttles++;
		break;
	case RP_REC_KSYMS:
		s->ksyms += ksyms_present(h);
		break;
	case RP_REC_SYMTAB:
	case RP_REC_SYMTAB_D:
		count_symtab(s, h);
		break;
	case RP_REC_CPU_STATS:
		if (format_cpu_stats(h, &cs) == 0) {
			s->lost_unreported = util_sat_add(s->lost_unreported, cs.lost_unreported);
			if (cs.cpu < FILESTATS_CPUS)
				s->cpu[cs.cpu].lost =
				    util_sat_add(s->cpu[cs.cpu].lost, cs.lost_unreported);
			s->have_cpu_stats = true;
		}
		break;
	case RP_REC_FINISH:
		s->finished |= format_finish(h, &s->finish) == 0;
		break;
	}
}

static void put_wall(FILE *f, uint64_t mono, int64_t offset)
{
	int64_t ns = util_wall_ns(mono, offset);
	time_t sec = (time_t)(ns / 1000000000);
	struct tm tm;
	char buf[64];

	localtime_r(&sec, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(f, "%s.%03d", buf, (int)((ns % 1000000000) / 1000000));
	strftime(buf, sizeof(buf), " %Z", &tm);
	fputs(buf, f);
}

/* The header's facts: host, command, event, when and how long. */
static void print_facts(FILE *f, const struct filestats *s, const struct rp_header_rec *h,
			const struct reader_stats *rs)
{
	if (h) {
		const char *cmd = (const char *)(h + 1);

		fprintf(f, "  format        %u.%u\n", h->major, h->minor);
		fprintf(f,
			"  host          %.72s, Linux %.72s %.24s, %u CPUs online, page size %u\n",
			h->hostname, h->release, h->arch, h->n_cpus_online, h->page_size);
		fprintf(f, "  boot id       %.40s\n", h->boot_id);
		fprintf(f, "  command       %s\n",
			h->hdr.size > sizeof(*h) && *cmd ? cmd : "(not recorded)");
		fprintf(f, "  target        %s, %u CPU%s recorded\n",
			h->flags & RP_HDR_SYSTEM_WIDE ? "system-wide"
			: h->flags & RP_HDR_COMMAND   ? "a command and its children"
						      : "processes",
			h->n_cpus_recorded, h->n_cpus_recorded == 1 ? "" : "s");
		fprintf(f, "  event         %.64s, ", h->event_name);
		if (h->flags & RP_HDR_FREQ)
			fprintf(f, "%" PRIu64 " Hz (requested %" PRIu64 " Hz)", h->freq,
				h->freq_requested);
		else
			fprintf(f, "period %" PRIu64, h->period);
		fprintf(f, "%s%s%s%s\n", h->flags & RP_HDR_CALLCHAIN ? ", callchains" : "",
			h->flags & RP_HDR_KERNEL ? ", kernel and user" : ", user space only",
			h->flags & RP_HDR_SWITCH ? ", context switches" : "",
			h->flags & RP_HDR_CGROUP ? ", cgroups" : "");
		fprintf(f, "  started       ");
		put_wall(f, h->time, h->realtime_offset);
		fprintf(f, "\n");
		fprintf(f, "  kernel syms   %" PRIu64 "%s\n", s->ksyms,
			h->flags & RP_HDR_KSYMS_USED
			    ? " (the ones samples hit, and their neighbours)"
			: h->flags & RP_HDR_KSYMS
			    ? ""
			    : " (kallsyms addresses were hidden from the recorder)");
		if (s->sym_tables || s->sym_skipped)
			fprintf(f,
				"  symbols       %" PRIu64 " binaries, %" PRIu64
				" functions, %.1f KiB before compression; %" PRIu64
				" skipped (larger than the recorder stores)\n",
				s->sym_tables, s->sym_functions, (double)s->sym_bytes / 1024,
				s->sym_skipped);
		uint64_t end =
		    s->finished ? s->finish.time : (rs->t_last > s->t_max ? rs->t_last : s->t_max);

		fprintf(f, "  duration      %.3f s\n",
			end > h->time ? (double)(end - h->time) / 1e9 : 0.0);
	} else {
		fprintf(f,
			"  header        lost (the first frame is damaged); records are still read\n");
		if (s->t_max > s->t_min)
			fprintf(f, "  duration      %.3f s (from the records)\n",
				(double)(s->t_max - s->t_min) / 1e9);
	}
}

/* Records by type, then by CPU. */
static void print_records(FILE *f, const struct filestats *s, const struct reader_stats *rs)
{
	fprintf(f, "  records       %" PRIu64 "\n", rs->records);
	for (uint32_t t = 0; t < 32; t++)
		if (s->by_type[t])
			fprintf(f, "    %-14s %12" PRIu64 "\n",
				perfrec_type_name(t) ? perfrec_type_name(t) : "?", s->by_type[t]);
	for (uint32_t t = 1; t < 16; t++)
		if (s->own[t])
			fprintf(f, "    %-14s %12" PRIu64 "\n",
				perfrec_type_name(RP_REC_BASE + t)
				    ? perfrec_type_name(RP_REC_BASE + t)
				    : "?",
				s->own[t]);
	if (s->unknown)
		fprintf(f, "    %-14s %12" PRIu64 "\n", "unknown", s->unknown);
	if (s->malformed)
		fprintf(f,
			"    %-14s %12" PRIu64
			" (samples whose fields do not fit their record: not counted)\n",
			"malformed", s->malformed);
	fprintf(f, "  by CPU        %12s %12s %10s %10s\n", "records", "samples", "lost",
		"throttled");
	for (uint32_t c = 0; c <= s->max_cpu && c < FILESTATS_CPUS; c++) {
		const struct filestats_cpu *k = &s->cpu[c];

		if (k->records || k->lost)
			fprintf(f,
				"    cpu %-9u %12" PRIu64 " %12" PRIu64 " %10" PRIu64 " %10" PRIu64
				"\n",
				c, k->records, k->samples, k->lost, k->throttles);
	}
	if (s->synth.records)
		fprintf(f, "    %-13s %12" PRIu64 "\n", "synthesized", s->synth.records);
}

/* With several events: each one's samples. */
static void print_events(FILE *f, const struct filestats *s, struct reader *r)
{
	uint32_t n = reader_n_events(r);

	if (n < 2)
		return;
	fprintf(f, "  events        %u\n", n);
	for (uint32_t i = 0; i < n && i < RP_MAX_EVENTS; i++) {
		const char *name = reader_event_name(r, i);

		fprintf(f, "    %-24s %12" PRIu64 " samples\n", name ? name : "(description lost)",
			s->event_samples[i]);
	}
}

void filestats_print(FILE *f, const struct filestats *s, struct reader *r, const char *path)
{
	const struct rp_header_rec *h = reader_header(r);
	const struct reader_stats *rs = reader_stats(r);
	uint64_t lost = util_sat_add(s->lost_records, s->lost_unreported),
		 all = util_sat_add(s->samples, lost);
	char b1[32];

	fprintf(f, "%s: ringprof recording\n", path);
	print_facts(f, s, h, rs);
	if (s->finished)
		fprintf(f, "  finished      yes\n");
	else
		fprintf(f,
			"  finished      no: the recorder did not finish this file (killed, crashed or still "
			"running); everything up to the last complete frame is used\n");
	if (s->finished && s->finish.exit_status >= 0)
		fprintf(f, "  exit status   %d\n", s->finish.exit_status);
	fprintf(f,
		"  frames        %" PRIu64 " read, %" PRIu64 " damaged or truncated, %s skipped\n",
		rs->frames, rs->frames_bad, util_format_bytes(rs->bytes_skipped, b1, sizeof(b1)));
	if (rs->stacks || rs->samples_packed) {
		fprintf(f,
			"  stacks        %" PRIu64 " defined, %" PRIu64
			" samples packed against them",
			rs->stacks, rs->samples_packed);
		if (rs->stack_missing)
			fprintf(f, ", %" PRIu64 " of them lost their stack (damaged definitions)",
				rs->stack_missing);
		fputc('\n', f);
	}
	print_records(f, s, rs);
	fprintf(f, "  samples       %" PRIu64 "\n", s->samples);
	print_events(f, s, r);
	if (s->unwound)
		print_unwind(f, s);
	fprintf(f, "  lost          %" PRIu64 " (%.2f%% of %" PRIu64 " sampled events)%s\n", lost,
		all ? 100.0 * (double)lost / (double)all : 0.0, all,
		s->have_cpu_stats || !lost
		    ? ""
		    : " — LOST records only; the final kernel counts are missing");
	if (s->lost_unreported)
		fprintf(f,
			"                %" PRIu64
			" of them reported by the kernel only at the end\n",
			s->lost_unreported);
	fprintf(f, "  throttled     %" PRIu64 "\n", s->throttles);
	if (s->finished && s->finish.dropped_records)
		fprintf(f, "  not written   %" PRIu64 " records (write errors, e.g. disk full)\n",
			s->finish.dropped_records);
	if (rs->late)
		fprintf(f,
			"  out of order  %" PRIu64 " records arrived after the ordering window\n",
			rs->late);
}
