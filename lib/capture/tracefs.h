/* tracefs.h — the kernel's tracepoints as tracefs lists them: the id perf_event_open takes
 * for PERF_TYPE_TRACEPOINT, and their names, with a sentence when tracefs cannot be read. */
#ifndef RP_TRACEFS_H
#define RP_TRACEFS_H

#include <stddef.h>
#include <stdint.h>

/* The events directory of tracefs (/sys/kernel/tracing/events, else the older
 * /sys/kernel/debug/tracing/events) into buf. 0, or -errno with a sentence in why: -ENOENT
 * when tracefs is not mounted (saying how to mount it), -EACCES when this user may not read it
 * (saying what would allow it). */
int tracefs_events_dir(char *buf, size_t size, char *why, size_t why_size);

/* The id of tracepoint SYS:NAME. 0 and *ret_id; -ENOENT with why when there is no such
 * tracepoint (or tracefs is not mounted, see tracefs_events_dir), -EINVAL when the name
 * cannot be one, another -errno with why when tracefs cannot be read. */
int tracefs_event_id(const char *sys, const char *name, uint64_t *ret_id, char *why,
		     size_t why_size);

/* Call fn for every tracepoint, in the directory's order; fn's negative return stops the walk
 * and is returned. 0, or -errno with why (as tracefs_events_dir). */
int tracefs_for_each(int (*fn)(const char *sys, const char *name, void *arg), void *arg, char *why,
		     size_t why_size);

#endif
