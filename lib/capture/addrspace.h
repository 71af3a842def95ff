/* addrspace.h — the recorder's view of each process's executable mappings, kept from the
 * MMAP2, FORK, EXIT and COMM(exec) records it drains, so that the unwinder can tell which
 * object (and which unwind table) holds a pc. Objects are small integers the caller gives.
 * The rings are drained one CPU after the other, so a process's records may come out of
 * order (its exec on one CPU, its new mappings on another): each change carries its record's
 * time, and what is older than what is known already is applied only as far as it still
 * holds. */
#ifndef RP_ADDRSPACE_H
#define RP_ADDRSPACE_H

#include <stddef.h>
#include <stdint.h>

struct as_map {
	uint64_t start, end, pgoff;
	uint64_t time; /* of its MMAP2 record */
	uint32_t obj;
};

struct as_proc {
	uint32_t pid;
	uint32_t dead;	     /* the drain pass in which its EXIT was seen; 0 while alive */
	uint64_t exit_time;  /* of its EXIT record, 0 while alive */
	uint64_t exec_time;  /* of its last exec: older mappings are gone */
	struct as_map *maps; /* sorted by start, not overlapping */
	size_t n, cap;
};

struct addrspace {
	struct as_proc **slots; /* open addressing by pid; NULL: free */
	size_t n_slots, n_procs;
	uint64_t nomem; /* mappings not kept for lack of memory */
};

void addrspace_init(struct addrspace *as);
void addrspace_done(struct addrspace *as);

/* The process, or NULL when nothing is known of it. */
struct as_proc *addrspace_find(struct addrspace *as, uint32_t pid);
/* The mapping of p holding addr, or NULL. */
const struct as_map *addrspace_map(const struct as_proc *p, uint64_t addr);

/* A new mapping [start, end) of pid at time: replaces the older ones it overlaps; dropped
 * when a newer one overlaps it or pid has exec'd since. */
void addrspace_mmap(struct addrspace *as, uint32_t pid, uint64_t start, uint64_t end,
		    uint64_t pgoff, uint32_t obj, uint64_t time);
/* A new process pid forked from ppid at time: the parent's mappings of then (not those the
 * child has newer, nor any from before the child's exec). */
void addrspace_fork(struct addrspace *as, uint32_t pid, uint32_t ppid, uint64_t time);
/* pid execs a new program at time: its mappings older than that are gone. */
void addrspace_exec(struct addrspace *as, uint32_t pid, uint64_t time);
/* pid exited at time, seen in drain pass `pass`: forgotten by addrspace_reap() a pass later,
 * so that samples still in other CPUs' rings find its mappings. An exit drained before the
 * process's fork (another CPU's ring) is remembered too, so that the older fork does not
 * bring the process back to life. */
void addrspace_exit(struct addrspace *as, uint32_t pid, uint32_t pass, uint64_t time);
/* Forget the processes whose exit was seen two passes before, unless they exited after
 * held_since: a sample kept from before then (waiting for its table) may be theirs. */
void addrspace_reap(struct addrspace *as, uint32_t pass, uint64_t held_since);

#endif
