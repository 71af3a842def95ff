/* opener.h — opening mapped files away from the drain loop. A file a process mapped may sit
 * where its owner can make open() wait for ever: on a FUSE file system whose server does not
 * answer, or an NFS mount whose server is gone. The recorder never opens one in its drain
 * loop: a worker thread does (procfs_open_mapped_from(): regular files only, checked against
 * the mapping), and the loop takes the result when it is there. A worker that takes longer
 * than OPENER_DEADLINE_NS on one file is left behind (its open may never return), that file
 * fails, and a new worker goes on with the others; after OPENER_MAX_STUCK workers were left
 * behind, files are no longer opened and each request fails saying why. */
#ifndef RP_OPENER_H
#define RP_OPENER_H

#include <stddef.h>
#include <stdint.h>

#define OPENER_DEADLINE_NS (5ull * 1000000000)
#define OPENER_MAX_STUCK 4

/* Where a mapped file is (procfs_open_mapped_from()'s arguments); the path is copied. */
struct opener_file {
	uint32_t pid;
	uint64_t start, end;
	const char *path;
	uint32_t maj, min;
	uint64_t ino;
	int way; /* the first way to try (PROCFS_MAPPED_WAYS) */
};

struct opener;
struct opener_job;

/* NULL when out of memory or no thread can be started. */
struct opener *opener_new(void);
/* Jobs not taken are dropped; a worker left behind ends on its own when its open returns. */
void opener_free(struct opener *op);

/* Start opening f: a job to ask opener_result() about, then to opener_drop(). NULL when out of
 * memory. */
struct opener_job *opener_start(struct opener *op, const struct opener_file *f);
/* Whether j is done, waiting up to wait_ns for it: 1 with *ret_fd (the caller's to close) and
 * *ret_way, or with *ret_fd = -errno and a sentence in why; 0 when not yet. */
int opener_result(struct opener *op, struct opener_job *j, uint64_t wait_ns, int *ret_fd,
		  int *ret_way, char *why, size_t why_size);
/* The job is no longer wanted (an fd it opens later is closed). */
void opener_drop(struct opener *op, struct opener_job *j);
/* How many workers were left behind on a file that would not open. */
unsigned opener_stuck(const struct opener *op);

#endif
