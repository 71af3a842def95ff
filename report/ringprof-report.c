/* ringprof-report.c — `ringprof report`: reads recordings; --stats and --dump inspect them. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/perf_event.h>

#include "dump.h"
#include "format.h"
#include "reader.h"
#include "record.h"
#include "util.h"

#define PROG "ringprof report"
#define MAX_INPUTS 256
#define STAT_CPUS 1024

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ringprof report [-i FILE]... (--stats | --dump)\n"
		"\n"
		"Read ringprof recordings.\n"
		"\n"
		"  -i, --input FILE   recording to read (default ringprof.data); may be repeated\n"
		"      --stats        summarize each recording: header facts, duration, frames,\n"
		"                     record counts by type and by CPU, lost and throttled totals\n"
		"      --dump         print every record, one per line, in time order: the type name\n"
		"                     (SAMPLE, MMAP2, COMM, FORK, EXIT, SWITCH, LOST, ...) then its\n"
		"                     fields (time in seconds, cpu, pid/tid, ...)\n"
		"  -h, --help         this help\n"
		"  -V, --version      version\n"
		"\n"
		"Damaged or truncated parts of a recording are skipped with a warning that says where;\n"
		"everything intact is still used. The exit status is 1 only when nothing was usable.\n"
		"The symbolized flat and call-graph report is not part of this version yet: use\n"
		"--stats or --dump.\n");
}

static void on_warn(void *arg, const char *msg)
{
	fprintf(stderr, PROG ": %s: warning: %s\n", (const char *)arg, msg);
}

struct cpu_count {
	uint64_t records, samples, lost, throttles;
};

struct stats {
	uint64_t by_type[32];
	uint64_t own[8];
	uint64_t unknown;
	struct cpu_count cpu[STAT_CPUS];
	struct cpu_count synth;
	uint32_t max_cpu;
	uint64_t lost_records, lost_unreported, throttles, samples;
	uint64_t ksyms;
	bool have_cpu_stats;
	struct rp_finish_rec finish;
	bool finished;
	uint64_t t_min, t_max;
};

static void count(struct stats *s, const struct perf_event_header *h, uint64_t st)
{
	struct record_id id = { 0 };
	struct cpu_count *c = NULL;
	uint64_t t = record_time(h, st);

	if (t && (!s->t_min || t < s->t_min))
		s->t_min = t;
	if (t > s->t_max)
		s->t_max = t;
	if (h->type < 32)
		s->by_type[h->type == PERF_RECORD_SWITCH_CPU_WIDE ? PERF_RECORD_SWITCH : h->type]++;
	else if (h->type > RP_REC_BASE && h->type < RP_REC_BASE + 8)
		s->own[h->type - RP_REC_BASE]++;
	else
		s->unknown++;

	if (h->type == PERF_RECORD_SAMPLE) {
		struct record_sample smp;

		if (record_parse_sample(h, st, &smp) == 0)
			id = smp.id;
	} else if (h->type < RP_REC_BASE) {
		record_parse_id(h, st, &id);
	} else {
		id.cpu = RP_CPU_SYNTH;
	}
	if (h->type < RP_REC_BASE)
		c = id.cpu == RP_CPU_SYNTH ? &s->synth : id.cpu < STAT_CPUS ? &s->cpu[id.cpu] : NULL;
	if (c) {
		c->records++;
		if (id.cpu != RP_CPU_SYNTH && id.cpu > s->max_cpu)
			s->max_cpu = id.cpu;
	}
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		s->samples++;
		if (c)
			c->samples++;
		break;
	case PERF_RECORD_LOST:
		if (h->size >= 24) {
			uint64_t lost;

			memcpy(&lost, (const char *)h + 16, 8);
			s->lost_records += lost;
			if (c)
				c->lost += lost;
		}
		break;
	case PERF_RECORD_THROTTLE:
		s->throttles++;
		if (c)
			c->throttles++;
		break;
	case RP_REC_KSYMS:
		if (h->size >= sizeof(struct rp_ksyms_rec))
			s->ksyms += ((const struct rp_ksyms_rec *)(const void *)h)->n;
		break;
	case RP_REC_CPU_STATS:
		if (h->size >= sizeof(struct rp_cpu_stats_rec)) {
			const struct rp_cpu_stats_rec *cs = (const void *)h;

			s->lost_unreported += cs->lost_unreported;
			if (cs->cpu < STAT_CPUS)
				s->cpu[cs->cpu].lost += cs->lost_unreported;
			s->have_cpu_stats = true;
		}
		break;
	case RP_REC_FINISH:
		if (h->size >= sizeof(struct rp_finish_rec)) {
			memcpy(&s->finish, h, sizeof(s->finish));
			s->finished = true;
		}
		break;
	}
}

static void put_wall(uint64_t mono, int64_t offset)
{
	int64_t ns = (int64_t)mono + offset;
	time_t sec = (time_t)(ns / 1000000000);
	struct tm tm;
	char buf[64];

	localtime_r(&sec, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
	printf("%s.%03d", buf, (int)((ns % 1000000000) / 1000000));
	strftime(buf, sizeof(buf), " %Z", &tm);
	fputs(buf, stdout);
}

static void print_stats(struct reader *r, const struct stats *s, const char *path)
{
	const struct rp_header_rec *h = reader_header(r);
	const struct reader_stats *rs = reader_stats(r);
	uint64_t lost = s->lost_records + s->lost_unreported;
	char b1[32];

	printf("%s: ringprof recording\n", path);
	if (h) {
		const char *cmd = (const char *)(h + 1);

		printf("  format        %u.%u\n", h->major, h->minor);
		printf("  host          %.72s, Linux %.72s %.24s, %u CPUs online, page size %u\n", h->hostname,
		       h->release, h->arch, h->n_cpus_online, h->page_size);
		printf("  boot id       %.40s\n", h->boot_id);
		printf("  command       %s\n", h->hdr.size > sizeof(*h) && *cmd ? cmd : "(not recorded)");
		printf("  target        %s, %u CPU%s recorded\n",
		       h->flags & RP_HDR_SYSTEM_WIDE ? "system-wide"
		       : h->flags & RP_HDR_COMMAND   ? "a command and its children"
						     : "processes",
		       h->n_cpus_recorded, h->n_cpus_recorded == 1 ? "" : "s");
		printf("  event         %.64s, ", h->event_name);
		if (h->flags & RP_HDR_FREQ)
			printf("%" PRIu64 " Hz (requested %" PRIu64 " Hz)", h->freq, h->freq_requested);
		else
			printf("period %" PRIu64, h->period);
		printf("%s%s%s\n", h->flags & RP_HDR_CALLCHAIN ? ", callchains" : "",
		       h->flags & RP_HDR_KERNEL ? ", kernel and user" : ", user space only",
		       h->flags & RP_HDR_SWITCH ? ", context switches" : "");
		printf("  started       ");
		put_wall(h->time, h->realtime_offset);
		printf("\n");
		printf("  kernel syms   %" PRIu64 "%s\n", s->ksyms,
		       h->flags & RP_HDR_KSYMS ? "" : " (kallsyms addresses were hidden from the recorder)");
		uint64_t end = s->finished ? s->finish.time : (rs->t_last > s->t_max ? rs->t_last : s->t_max);

		printf("  duration      %.3f s\n", end > h->time ? (double)(end - h->time) / 1e9 : 0.0);
	} else {
		printf("  header        lost (the first frame is damaged); records are still read\n");
		if (s->t_max > s->t_min)
			printf("  duration      %.3f s (from the records)\n", (double)(s->t_max - s->t_min) / 1e9);
	}
	if (s->finished)
		printf("  finished      yes\n");
	else
		printf("  finished      no: the recorder did not finish this file (killed, crashed or still "
		       "running); everything up to the last complete frame is used\n");
	if (s->finished && s->finish.exit_status >= 0)
		printf("  exit status   %d\n", s->finish.exit_status);
	printf("  frames        %" PRIu64 " read, %" PRIu64 " damaged or truncated, %s skipped\n", rs->frames,
	       rs->frames_bad, util_format_bytes(rs->bytes_skipped, b1, sizeof(b1)));
	printf("  records       %" PRIu64 "\n", rs->records);
	for (uint32_t t = 0; t < 32; t++)
		if (s->by_type[t])
			printf("    %-14s %12" PRIu64 "\n", record_type_name(t) ? record_type_name(t) : "?",
			       s->by_type[t]);
	for (uint32_t t = 1; t < 8; t++)
		if (s->own[t])
			printf("    %-14s %12" PRIu64 "\n", record_type_name(RP_REC_BASE + t), s->own[t]);
	if (s->unknown)
		printf("    %-14s %12" PRIu64 "\n", "unknown", s->unknown);
	printf("  by CPU        %12s %12s %10s %10s\n", "records", "samples", "lost", "throttled");
	for (uint32_t c = 0; c <= s->max_cpu && c < STAT_CPUS; c++) {
		const struct cpu_count *k = &s->cpu[c];

		if (k->records || k->lost)
			printf("    cpu %-9u %12" PRIu64 " %12" PRIu64 " %10" PRIu64 " %10" PRIu64 "\n", c, k->records,
			       k->samples, k->lost, k->throttles);
	}
	if (s->synth.records)
		printf("    %-13s %12" PRIu64 "\n", "synthesized", s->synth.records);
	printf("  samples       %" PRIu64 "\n", s->samples);
	printf("  lost          %" PRIu64 " (%.2f%% of %" PRIu64 " sampled events)%s\n", lost,
	       s->samples + lost ? 100.0 * (double)lost / (double)(s->samples + lost) : 0.0, s->samples + lost,
	       s->have_cpu_stats || !lost ? "" : " — LOST records only; the final kernel counts are missing");
	if (s->lost_unreported)
		printf("                %" PRIu64 " of them reported by the kernel only at the end\n",
		       s->lost_unreported);
	printf("  throttled     %" PRIu64 "\n", s->throttles);
	if (s->finished && s->finish.dropped_records)
		printf("  not written   %" PRIu64 " records (write errors, e.g. disk full)\n", s->finish.dropped_records);
	if (rs->late)
		printf("  out of order  %" PRIu64 " records arrived after the ordering window\n", rs->late);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "stats", no_argument, NULL, 's' },
		{ "dump", no_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *inputs[MAX_INPUTS];
	size_t n_inputs = 0, usable = 0;
	bool stats = false, dump = false;
	int c;

	while ((c = getopt_long(argc, argv, "i:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (n_inputs == MAX_INPUTS) {
				fprintf(stderr, PROG ": at most %d inputs\n", MAX_INPUTS);
				return 2;
			}
			inputs[n_inputs++] = optarg;
			break;
		case 's':
			stats = true;
			break;
		case 'D':
			dump = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("ringprof report %s\n", PACKAGE_VERSION);
			return 0;
		default:
			fprintf(stderr, "Try 'ringprof report --help'.\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s' (inputs are given with -i)\n", argv[optind]);
		return 2;
	}
	if (!stats && !dump) {
		fprintf(stderr, PROG ": the symbolized report is not in this version yet; use --stats or --dump\n");
		return 2;
	}
	if (!n_inputs)
		inputs[n_inputs++] = "ringprof.data";

	for (size_t i = 0; i < n_inputs; i++) {
		struct reader *r;
		const struct perf_event_header *h;
		struct stats *s;
		char why[512];
		uint64_t st;
		int rc = reader_open(inputs[i], &r, why, sizeof(why));

		if (rc < 0) {
			fprintf(stderr, PROG ": %s: %s\n", inputs[i], why);
			continue;
		}
		reader_set_warn(r, on_warn, (void *)inputs[i]);
		s = calloc(1, sizeof(*s));
		if (!s) {
			fprintf(stderr, PROG ": out of memory\n");
			return 1;
		}
		st = reader_sample_type(r);
		while ((h = reader_next(r))) {
			if (dump)
				dump_record(stdout, h, st);
			if (stats)
				count(s, h, st);
		}
		if (stats)
			print_stats(r, s, inputs[i]);
		if (reader_stats(r)->frames)
			usable++;
		else
			fprintf(stderr, PROG ": %s: no intact frame in the file; nothing could be read\n", inputs[i]);
		free(s);
		reader_free(r);
	}
	if (fflush(stdout) != 0) {
		fprintf(stderr, PROG ": writing the output failed: %s\n", strerror(errno));
		return 1;
	}
	return usable ? 0 : 1;
}
