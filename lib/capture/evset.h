/* evset.h — the sampling event opened on every recorded CPU, with perf's fallbacks (no PMU,
 * no privileges, a lower rate limit, older kernels) and a sentence for each failure. */
#ifndef RP_EVSET_H
#define RP_EVSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "capture/evsel.h"
#include "capture/recorder.h"
#include "capture/ring.h"

#define EVSET_MAX_NOTES 8

/* A recorded CPU: the event whose ring the CPU's other events (one per thread with -p) share. */
struct evcpu {
	int cpu;
	int fd;
	struct ring ring;
};

#define EVSET_MAX_EVENTS 16

/* One event of the set (-e), opened on every recorded CPU. */
struct evset_event {
	struct evsel_spec spec;
	struct perf_event_attr attr; /* as opened */
	uint64_t freq, period;	     /* what it samples at (tracepoints: every hit by default) */
	bool probed;		     /* opened once: its fallbacks are decided */
	bool every_hit;		     /* period 1 whatever -F/-c say (off-CPU's switch-outs) */
};

/* An event id (PERF_EVENT_IOC_ID) and the index of its event in the set. */
struct evset_id {
	uint64_t id;
	uint32_t event;
};

/* Embedded in the recorder: evset_open() fills it, evset_done() releases it. */
struct evset {
	struct recorder_opts
	    o; /* copied; its pointers are the recorder's caller's (see recorder.h) */
	struct evset_event events[EVSET_MAX_EVENTS]; /* events[0] carries the side-band */
	size_t n_events;
	uint64_t freq_requested; /* o.freq is what is used (capped to the kernel's limit) */
	bool kernel;		 /* kernel samples (false: the paranoid fallback) */
	bool build_id;		 /* MMAP2 records carry build-ids */
	bool format_lost;	 /* PERF_FORMAT_LOST is read at the end */
	bool cgroup; /* samples carry their cgroup (PERF_SAMPLE_CGROUP, PERF_RECORD_CGROUP) */
	struct evcpu *cpus; /* the CPUs recorded (those that could be opened) */
	size_t n_cpus;
	int *fds;      /* every event fd, cpu-major */
	int *fd_cpu;   /* index into cpus for each fd */
	int *fd_event; /* index into events for each fd */
	size_t n_fds, cap_fds, cap_fd_cpu, cap_fd_event;
	struct evset_id *ids; /* with several events: every fd's id, sorted (evset_event_of) */
	size_t n_ids, cap_ids;
	char notes[EVSET_MAX_NOTES][256];
	size_t n_notes;
};

/* Parse a comma-separated list of events (evsel_parse() spellings) into events[] (at most
 * EVSET_MAX_EVENTS, each zeroed but for its spec). 0, or -errno with a sentence in why. */
int evset_parse_events(const char *list, struct evset_event *events, size_t *ret_n, char *why,
		       size_t why_size);

/* --call-graph MODE, perf's spelling, for record and ringprofd alike: "fp" (*ret_stack_user 0:
 * frame pointers) or "dwarf[,SIZE]" (SIZE bytes of user stack copied per sample, default
 * EVSET_STACK_USER_DEFAULT, 8 to RP_STACK_USER_MAX, "16K" allowed, rounded up to 8). 0, or
 * -EINVAL with a sentence in why. */
#define EVSET_STACK_USER_DEFAULT 8192
int evset_parse_call_graph(const char *mode, uint32_t *ret_stack_user, char *why, size_t why_size);

/* Open the events of o on its CPUs (all online CPUs when o->cpus is NULL) and map their
 * rings; the events stay disabled. 0, or -errno with a sentence for the user in why that
 * names the sysctl, capability or limit involved. *e must be zeroed; evset_done() it in
 * both cases. */
int evset_open(struct evset *e, const struct recorder_opts *o, char *why, size_t why_size);
/* For tests: the set o asks for (one event), its attr built as evset_open() builds it, over
 * rings the caller made (ring_init() over memory) for CPUs cpus[0..n): nothing is opened, no
 * CPU has an fd (fd -1), nothing is enabled or read. The rings are taken over (rings[] is
 * zeroed; evset_done() releases them). 0, or -errno with a sentence in why. */
int evset_open_rings(struct evset *e, const struct recorder_opts *o, const int *cpus,
		     struct ring *rings, size_t n, char *why, size_t why_size);
/* The index of the event whose id a sample carries (PERF_SAMPLE_IDENTIFIER); 0 when the set
 * has one event, -1 when the id is none of the set's. No allocation: the drain loop calls it. */
int evset_event_of(const struct evset *e, uint64_t id);

/* Unmap the rings and close the events; accepts a zeroed or released evset. */
void evset_done(struct evset *e);

/* Add a one-line note for the user (at most EVSET_MAX_NOTES are kept). */
void evset_note(struct evset *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Enable every event: 0 or the first -errno. */
int evset_enable(struct evset *e);
void evset_disable(struct evset *e);
/* The kernel's loss count (PERF_FORMAT_LOST) summed per CPU into lost[n_cpus]: 0, or
 * -EOPNOTSUPP when the kernel does not count losses (lost untouched). */
int evset_read_lost(const struct evset *e, uint64_t *lost);

#endif
