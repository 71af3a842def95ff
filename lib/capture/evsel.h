/* evsel.h — event names, the perf_event_open system call, and what its errors mean. */
#ifndef RP_EVSEL_H
#define RP_EVSEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct perf_event_attr;

struct evsel_def {
	const char *name;
	uint32_t type; /* PERF_TYPE_HARDWARE or PERF_TYPE_SOFTWARE */
	uint64_t config;
	const char *help;
};

/* Look an event up by name or alias; 0 or -ENOENT. */
int evsel_lookup(const char *name, struct evsel_def *ret);
/* The table, terminated by a NULL name (for --list-events). */
const struct evsel_def *evsel_table(void);

/* An event as -e names it, perf's spelling: NAME[:MODS] (a table event or alias) or
 * SYSTEM:TRACEPOINT[:MODS]. MODS: u (user only), k (kernel only), p/pp/ppp (precise sampling,
 * hardware events only). */
struct evsel_spec {
	char name[64];	 /* the table's name (an alias resolved) or SYSTEM:TRACEPOINT, then
			  * :MODS as given */
	uint32_t type;	 /* PERF_TYPE_HARDWARE, _SOFTWARE or _TRACEPOINT */
	uint64_t config; /* the tracepoint's tracefs id for _TRACEPOINT */
	bool exclude_user, exclude_kernel;
	uint8_t precise_ip;
};

#define EVSEL_MAX_SPEC 255 /* longest spec evsel_parse() takes */

/*
 * Parse one event. 0 and *ret; or -errno with a sentence in why, e.g. -ENOENT for an unknown
 * event or tracepoint, -EINVAL for an unknown modifier, -EOPNOTSUPP for ':p' on an event that
 * is not a hardware one, or tracefs' own error (see capture/tracefs.h) for a tracepoint.
 */
int evsel_parse(const char *spec, struct evsel_spec *ret, char *why, size_t why_size);

/* Probe whether this machine can open event d: 0, or -errno of a quick perf_event_open on
 * this process (user space only, disabled). */
int evsel_probe(const struct evsel_def *d);

/* perf_event_open(2) with PERF_FLAG_FD_CLOEXEC. The fd, or -errno. */
int evsel_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd);

/* True for the errors perf treats as "this hardware event does not exist here". */
int evsel_is_unsupported(int err);

#endif
