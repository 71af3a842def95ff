/* dump.h — one line of text per stored record, for `ringprof report --dump`. */
#ifndef RP_DUMP_H
#define RP_DUMP_H

#include <stdint.h>
#include <stdio.h>

struct perf_event_header;

/* Print h as "TYPE time cpu=N pid=P tid=T field=value ..." followed by a newline. Damaged
 * records are printed as "TYPE ... (malformed)" rather than skipped. */
void dump_record(FILE *f, const struct perf_event_header *h, uint64_t sample_type,
		 const char *event);

#endif
