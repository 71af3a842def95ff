/* timeline.h — `ringprof report --timeline`: samples per time bucket, by command or unit, as a text
 * table with a bar per bucket; and the recordings' wall-clock span, which --html's timeline
 * shares. */
#ifndef RP_REPORT_TIMELINE_H
#define RP_REPORT_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/session.h"

/* The wall-clock span of the recordings at PATHS (headers and frame descriptors, nothing
 * decompressed), cut to F's --since/--until: true when it is not empty. */
bool timeline_span(const char *const *paths, size_t n_paths, const struct session_filter *f,
		   int64_t *ret_start, int64_t *ret_end);

/* Buckets for the text timeline: at most max, of a width that reads well (1, 2 or 5 ms times a
 * power of ten below a second; 1, 2, 5, 10, 15 or 30 seconds or minutes; 1, 2, 3, 6 or 12
 * hours; days), from a multiple of it. */
struct timeline_axis {
	uint64_t ns;	/* bucket width; 0: no span (one bucket) */
	int64_t origin; /* wall-clock ns of bucket 0's start */
	uint32_t n;	/* buckets */
};
void timeline_axis(const char *const *paths, size_t n_paths, const struct session_filter *f,
		   uint32_t max, struct timeline_axis *ret);

/* What the table's columns are: commands, units, or (AUTO) units where the samples fall in
 * two known units or more (a system-wide or ringprofd recording), commands otherwise. */
enum timeline_by { TIMELINE_AUTO, TIMELINE_COMM, TIMELINE_UNIT };

/* The table of S (finished, read with bucket_ns and bucket_origin from AX): one line per
 * bucket with its local time, its samples, those of the commands (or units, BY) with the
 * most samples (the rest as "other") and a bar; the head says which. 0, or -errno (out of
 * memory). */
int timeline_print(FILE *f, const struct session *s, const struct timeline_axis *ax,
		   enum timeline_by by);

#endif
