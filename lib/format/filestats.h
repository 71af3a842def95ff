/* filestats.h — what a recording is made of, for `ringprof report --stats`: records by type
 * and CPU, losses and throttling as stored, counted as a reader hands records out, and the
 * text that shows them with the header's facts. */
#ifndef RP_FILESTATS_H
#define RP_FILESTATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "format/format.h"

struct reader;

#define FILESTATS_CPUS 1024

struct filestats_cpu {
	uint64_t records, samples, lost, throttles;
};

struct filestats {
	uint64_t by_type[32];
	uint64_t own[16];
	uint64_t unknown;
	uint64_t malformed; /* samples whose fields do not fit their record */
	struct filestats_cpu cpu[FILESTATS_CPUS];
	struct filestats_cpu synth;
	uint32_t max_cpu;
	uint64_t lost_records, lost_unreported, throttles, samples;
	uint64_t ksyms;
	/* Symbol tables captured while recording (SYMTAB records): binaries, functions, bytes of
	 * the records (uncompressed), binaries whose table was too large to store. */
	uint64_t sym_tables, sym_functions, sym_bytes, sym_skipped;
	uint64_t unwound, unwind_stop[RP_CONTEXT_UNWIND_N]; /* RP_CONTEXT_UNWIND markers */
	bool have_cpu_stats;
	struct rp_finish_rec finish;
	bool finished;
	uint64_t t_min, t_max;
	uint64_t event_samples[RP_MAX_EVENTS]; /* samples by event index */
};

/* Count one record of a recording whose samples have sample_type (s starts zeroed); event is
 * its reader_event(). */
void filestats_add(struct filestats *s, const struct perf_event_header *h, uint64_t sample_type,
		   uint32_t event);
/* The --stats text for the recording r (read to its end) named path. */
void filestats_print(FILE *f, const struct filestats *s, struct reader *r, const char *path);

#endif
