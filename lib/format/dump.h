/* dump.h — one line of text per stored record, for `ringprof report --dump`. */
#ifndef RP_DUMP_H
#define RP_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct perf_event_header;

/* Print h as "TYPE time cpu=N pid=P tid=T field=value ..." followed by a newline. Damaged
 * records are printed as "TYPE ... (malformed)" rather than skipped. */
void dump_record(FILE *f, const struct perf_event_header *h, uint64_t sample_type,
		 const char *event);

/* Which records --dump prints: those whose identity (a sample's, or a side-band record's
 * sample_id) passes every list given (n_* 0: any) and the window [since, until] in the
 * recording's CLOCK_MONOTONIC ns; records without one (the header, kernel symbols,
 * accounting) always. The arrays are borrowed. */
struct dump_filter {
	const int32_t *pids;
	size_t n_pids;
	const int32_t *tids;
	size_t n_tids;
	const int *cpus;
	size_t n_cpus;
	uint64_t since, until;
};

bool dump_keep(const struct dump_filter *f, const struct perf_event_header *h, uint64_t sample_type);

#endif
