/* evsel.h — event names, the perf_event_open system call, and what its errors mean. */
#ifndef RP_EVSEL_H
#define RP_EVSEL_H

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

/* perf_event_open(2) with PERF_FLAG_FD_CLOEXEC. The fd, or -errno. */
int evsel_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd);

/* True for the errors perf treats as "this hardware event does not exist here". */
int evsel_is_unsupported(int err);

#endif
