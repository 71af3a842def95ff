/* recorder.h — the per-CPU recorder shared by `ringprof record` and ringprofd: opens the
 * sampling events, maps their rings, drains them into a writer, accounts for every loss. */
#ifndef RP_RECORDER_H
#define RP_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct writer;

enum recorder_target {
	RECORDER_SYSTEM,  /* every task on the chosen CPUs (pid = -1) */
	RECORDER_PIDS,	  /* existing processes, all their threads, inherited to new ones */
	RECORDER_THREADS, /* existing threads only, inherited to the threads they create */
	RECORDER_COMMAND, /* a child created stopped; events enabled when it execs */
};

/*
 * Recorder options. The recorder copies the struct; of its pointers, pids and cmdline are
 * used for the recorder's whole lifetime (every new file's head) and must outlive it; event,
 * cpus, kallsyms and unwind_cache are used only during recorder_new().
 */
struct recorder_opts {
	const char *event; /* NULL: "cycles", falling back to cpu-clock without a PMU; else one
			    * event or a comma-separated list (evsel_parse() spellings: NAME,
			    * NAME:u, SYSTEM:TRACEPOINT) */
	uint64_t freq;	   /* Hz; 0 when period is used */
	uint64_t period;
	bool rate_given;     /* freq or period was asked for: tracepoints use it too (else they
			      * sample every hit, period 1) */
	bool callchain;	     /* callchains, kernel + user */
	uint32_t stack_user; /* with callchain: user stacks are unwound while recording from a
			      * copy of this many bytes (--call-graph dwarf,SIZE); 0: frame pointers */
	bool switch_events;
	bool off_cpu; /* sched:sched_switch sampled at every hit, and switch events (--off-cpu) */
	/* With off_cpu: sample at most this many switch-outs (and copy their stacks) a second per
	 * CPU, the kernel choosing one in N above it (frequency mode); 0: every one. Switch
	 * records are all kept, so each thread's off-CPU time stays exact. */
	uint64_t off_cpu_rate;
	unsigned int ring_pages; /* data pages per ring (power of two); 0: a default */
	const int *cpus;	 /* NULL: all online CPUs */
	size_t n_cpus;
	enum recorder_target target;
	const pid_t *pids; /* RECORDER_PIDS: the processes; RECORDER_COMMAND: the child */
	size_t n_pids;
	const char *cmdline;	   /* stored in the header */
	const char *kallsyms;	   /* NULL: /proc/kallsyms */
	uint64_t flush_ns;	   /* close a frame at least this often; 0: 1 s */
	uint64_t restack_ns;	   /* define every stack again at least this often; 0: 60 s */
	const char *unwind_cache;  /* dwarf: keep unwind tables in this directory; NULL: none */
	uint64_t unwind_cache_max; /* bytes of them at most */
	uint64_t unwind_memory;	   /* dwarf: bytes of unwind tables in memory at most; 0: the
				    * default, UNWINDER_MEMORY_DEFAULT */
	bool join_cut_stacks;	   /* dwarf: complete stacks cut by the copy from the thread's
				    * earlier walks (unwinder_set_join(): inferred, marked) */
	uint64_t stop_wait_ns;	   /* dwarf: recorder_stop() waits this long at most for the
				    * tables kept samples need; 0: RECORDER_STOP_WAIT_NS */
	bool start_disabled;	   /* events stay off after recorder_start until recorder_enable */
	bool kernel_build_ids;	   /* ask the kernel for build-ids in MMAP2 (attr.build_id): on
				    * Linux 5.12 and later this mislabels the MMAP2 records of other
				    * perf users that did not ask (see README) */
	bool no_symbols;	   /* do not capture the mapped binaries' function symbols */
	const char *symbols_dir;   /* keep them in this directory, one file per build-id, rather
				    * than in every recording (ringprofd); NULL: in the recording */
};

struct recorder_totals {
	uint64_t samples;
	uint64_t lost; /* LOST records + losses the kernel never reported */
	uint64_t throttles;
	uint64_t bad;
	uint64_t duration_ns; /* since recorder_start */
};

struct recorder;

/* Open events and rings. On failure returns -errno, leaves *ret untouched and writes a
 * sentence for the user into why (naming the sysctl, capability or limit involved). */
int recorder_new(const struct recorder_opts *o, struct recorder **ret, char *why, size_t why_size);
/*
 * For tests of the drain: a recorder over rings the caller made and fills (ring_init() over
 * memory) for CPUs cpus[0..n), with no perf_event_open: o's one event is set up as
 * recorder_new() sets it up (recorder_ring_sample_type() says the layout its samples must
 * have), but no CPU has an fd, so nothing is enabled, waited for or read (the kernel's own loss
 * counters are 0); recorder_poll() drains every ring each call. The rings are taken over
 * (rings[] is zeroed) and so is reg, the registry of mapped objects (objreg_new_scripted();
 * also on failure). Otherwise as recorder_new().
 */
struct ring;
struct objreg;
int recorder_new_rings(const struct recorder_opts *o, const int *cpus, struct ring *rings, size_t n,
		       struct objreg *reg, struct recorder **ret, char *why, size_t why_size);
/* The sample_type of the records in the rings (the stored one may lack some fields). */
uint64_t recorder_ring_sample_type(const struct recorder *r);
/* Accepts NULL; returns NULL. */
struct recorder *recorder_free(struct recorder *r);
/* The CPUs being recorded (those whose events could be opened). */
size_t recorder_n_cpus(const struct recorder *r);

/* One-line notes about choices made while opening (fallback event, capped frequency,
 * user-only mode, smaller rings); index past the end gives NULL. */
const char *recorder_note(const struct recorder *r, size_t i);
/* Kernel samples are recorded but kernel symbols could not be read (kernel.kptr_restrict
 * without CAP_SYSLOG): the note that says why (also among the notes above), else NULL. */
const char *recorder_ksyms_hidden(const struct recorder *r);
/* The effective (first) event's name and sampling frequency (0 in period mode); the events
 * recorded, 0 .. recorder_n_events() - 1 (NULL past the end). */
const char *recorder_event_name(const struct recorder *r);
size_t recorder_n_events(const struct recorder *r);
const char *recorder_event(const struct recorder *r, size_t i);
uint64_t recorder_freq(const struct recorder *r);

/* Start writing to w: the header, the start-up synthesis (system-wide: every process and
 * kallsyms; -p: those processes), then the events are enabled. 0 or -errno. */
int recorder_start(struct recorder *r, struct writer *w);

/* start_disabled: enable the events now (record -D), and write the state of the target as of
 * now (the kernel reports nothing to disabled events, so what started or exec'd meanwhile
 * would be missing). 0 or -errno. */
int recorder_enable(struct recorder *r);

/* The epoll set the recorder waits on. Callers may add their own fds with any u64 tag
 * below RECORDER_TAG_BASE; recorder_poll returns them. */
#define RECORDER_TAG_BASE (1ull << 62)
int recorder_epoll_fd(const struct recorder *r);

/* Wait up to timeout_ms for ring data or caller fds, drain every ring into the writer and
 * close the frame when the flush interval has passed. Returns the number of caller tags
 * stored in tags (at most max), or -errno from the writer (e.g. -ENOSPC); on a writer error
 * the recorder keeps running and counts what it drops. */
int recorder_poll(struct recorder *r, int timeout_ms, uint64_t *tags, int max);

/* Continue in a new file without stopping the events: what the rings hold goes to the old
 * writer, which gets its per-CPU statistics and finish record (the caller closes it); w
 * starts with a header, the kernel symbols and the state of /proc as of now, so every file
 * stands on its own. Returns the old writer's last flush result. */
int recorder_rotate(struct recorder *r, struct writer *w);

/* Kept samples (--call-graph dwarf) wait for their unwind tables at most this long while the
 * recording runs (a helper stuck on a file), and at most stop_wait_ns (by default
 * RECORDER_STOP_WAIT_NS) more when it stops; then they are stored cut where a table has not
 * come ("table pending"). A crash loses them (the file is written up to the oldest of
 * them). */
#define RECORDER_HOLD_MAX_NS (10ull * 1000 * 1000 * 1000)
#define RECORDER_STOP_WAIT_NS (10ull * 1000 * 1000 * 1000)

/* Disable the events and drain what is left (recorder_stop() does it if it was not done). */
void recorder_halt(struct recorder *r);
/* How many samples wait for their unwind tables, and (ret_tables, may be NULL) for how many
 * tables: what recorder_stop() will wait for. */
size_t recorder_unwind_held(const struct recorder *r, size_t *ret_tables);
/* Halt, let the kept samples' tables come (stop_wait_ns at most), read the kernel's
 * loss counters and write the per-CPU statistics and the finish record. exit_status is the
 * command's, or -1. */
int recorder_stop(struct recorder *r, int exit_status);

/* --call-graph dwarf: what unwinding did so far (NULL in the other modes), and its objects
 * (see capture/unwinder.h). */
struct unwinder_stats;
struct unwinder_object;
const struct unwinder_stats *recorder_unwind_stats(const struct recorder *r);
bool recorder_unwind_object(const struct recorder *r, size_t i, struct unwinder_object *ret);
/* What the build-id helper did (see capture/bids.h). */
struct bids_stats;
const struct bids_stats *recorder_bids_stats(const struct recorder *r);

/* The helper's health: how often the helper (unwind tables, build-ids, symbols) died or hung
 * so far (0: never, or there is none), and when it did, one sentence into buf saying how it
 * died last and whether it is paused now. */
uint64_t recorder_helper_deaths(const struct recorder *r, char *buf, size_t size);

/* Wait up to wait_ns for the files the recorder's disk worker still has to write (ringprofd's
 * symbol tables, cached unwind tables), as before counting a directory's usage. */
void recorder_sync_disk(struct recorder *r, uint64_t wait_ns);

/* The totals since recorder_start(), brought up to date; owned by r, valid until the next call. */
const struct recorder_totals *recorder_totals(struct recorder *r);

#endif
