/* synth.h — records for what already existed when recording began: processes, threads and
 * their executable mappings, from /proc. */
#ifndef RP_SYNTH_H
#define RP_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include <sys/types.h>

struct writer;

struct synth_stats {
	size_t processes, threads, maps;
	size_t vanished;   /* processes that exited while being read (normal) */
	size_t unreadable; /* processes whose maps could not be read (permissions) */
	size_t cgroups;	   /* cgroups named (synth_cgroups) */
};

/* Shared state: the record layout. MMAP2 records name files by device and inode; their
 * build-ids come from the recorder's helper (capture/bids.h), handed each record by on_record. */
struct synth {
	struct writer *w;
	uint64_t sample_type;
	uint64_t time; /* timestamp given to every synthesized record */
	struct synth_stats st;
	void (*tick)(void *arg); /* called between processes, e.g. to drain rings; may be NULL */
	void *tick_arg;
	/* called with each record once it is written (the recorder's unwinder and build-ids);
	 * may be NULL */
	void (*on_record)(void *arg, const struct perf_event_header *h);
	void *on_record_arg;
	/* The kernel cannot put cgroups in samples: each thread synthesized gets an RP_REC_TASKCG
	 * from /proc/PID/cgroup (cgroup v2). */
	bool taskcg;
};

void synth_init(struct synth *s, struct writer *w, uint64_t sample_type, uint64_t time);

/* COMM for each thread and MMAP2 for each executable mapping of pid. -ESRCH when the
 * process is gone; other per-process failures are counted, not returned. */
int synth_process(struct synth *s, pid_t pid);
/* A PERF_RECORD_CGROUP (id and path, as the kernel writes for new cgroups) for every cgroup of
 * the cgroup v2 hierarchy (/sys/fs/cgroup, or /sys/fs/cgroup/unified on hybrid systems). The
 * number written, or -errno when there is no cgroup v2 hierarchy to read. */
int synth_cgroups(struct synth *s);
/* The kernel's id of the cgroup v2 directory at PATH (the 8 bytes of its file handle, as perf
 * reads them; its inode number where file handles are not supported). 0 or -errno. */
int synth_cgroup_id(const char *path, uint64_t *ret_id);
/* Every process on the system. */
int synth_all(struct synth *s);
/* root and every process descended from it (a command and its children). */
int synth_tree(struct synth *s, pid_t root);

#endif
