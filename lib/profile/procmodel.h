/* procmodel.h — processes and threads rebuilt from side-band records: pid/tid -> comm, and
 * each process's executable mappings, as they were at the time being replayed. */
#ifndef RP_PROCMODEL_H
#define RP_PROCMODEL_H

#include <stdbool.h>
#include <stdint.h>

struct strtab;

struct procmodel_map {
	uint64_t start, end; /* [start, end) */
	uint64_t pgoff;	     /* file offset of start, in bytes */
	uint32_t dso;	     /* the caller's id for the mapped object */
};

struct procmodel;

struct procmodel *procmodel_new(void);
struct procmodel *procmodel_free(struct procmodel *m);

/* Replay: call in time order. Each returns 0 or -ENOMEM. */
/* A thread's name; exec also starts the process image afresh (its mappings are dropped). */
int procmodel_comm(struct procmodel *m, int32_t pid, int32_t tid, const char *comm, bool exec);
/* A new process (pid != ppid: copies the parent's mappings and name) or thread (pid == ppid). */
int procmodel_fork(struct procmodel *m, int32_t pid, int32_t ppid, int32_t tid, int32_t ptid);
/* A thread ends; when it is the process's main thread the process's mappings are released. */
int procmodel_exit(struct procmodel *m, int32_t pid, int32_t tid);
/* A new mapping replaces whatever part of older ones it overlaps. */
int procmodel_map(struct procmodel *m, int32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		  uint32_t dso);

/* A cgroup's path (PERF_RECORD_CGROUP): samples of its threads are given its unit. */
int procmodel_cgroup(struct procmodel *m, uint64_t id, const char *path);
/* The thread is in cgroup ID from now on (new threads start in their parent's). */
int procmodel_taskcg(struct procmodel *m, int32_t pid, int32_t tid, uint64_t id);
/* The interned unit of a thread (unit_from_path() of its cgroup's path; "cgroup:ID" when the
 * path is unknown, "-" for the root (id 1) and the idle task, UNIT_UNKNOWN when the cgroup is
 * unknown). -ENOMEM. */
int64_t procmodel_unit_id(struct procmodel *m, int32_t pid, int32_t tid);
/* The table the unit ids index. */
const struct strtab *procmodel_units(const struct procmodel *m);

/* The mapping of pid that contains addr, or NULL. Borrowed until the next replay call. */
const struct procmodel_map *procmodel_find_map(const struct procmodel *m, int32_t pid,
					       uint64_t addr);
/* The interned name of a thread: its COMM, else its process's, else ":TID". -ENOMEM on failure. */
int64_t procmodel_comm_id(struct procmodel *m, int32_t pid, int32_t tid);
/* A number that changes whenever pid's mappings may have changed (new, exec, mmap, exit),
 * never reused within a procmodel; 0 for an unknown process. */
uint64_t procmodel_gen(const struct procmodel *m, int32_t pid);
/* A number that changes whenever anything in the model may have changed; never 0. */
uint64_t procmodel_version(const struct procmodel *m);
/* The table the comm ids index. */
const struct strtab *procmodel_comms(const struct procmodel *m);

#endif
