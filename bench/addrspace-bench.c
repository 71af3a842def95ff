/* addrspace-bench.c — time of the recorder's fork bookkeeping (lib/capture/addrspace): a
 * parent with N executable mappings forks F children, each with one mapping of its own that
 * was drained before its fork, each exited and forgotten; prints the time per fork. Built and
 * run by bench/addrspace-bench.sh against one or two build trees. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "capture/addrspace.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct addrspace as;
	uint32_t n = argc > 1 ? (uint32_t)atoi(argv[1]) : 60000;
	uint32_t forks = argc > 2 ? (uint32_t)atoi(argv[2]) : 40;
	double t0, t;
	size_t copied = 0;

	addrspace_init(&as);
	for (uint32_t i = 0; i < n; i++)
		addrspace_mmap(&as, 1, (uint64_t)(2 * i + 1) << 12, (uint64_t)(2 * i + 2) << 12, 0,
			       i, 1000);
	t0 = now();
	for (uint32_t f = 0; f < forks; f++) {
		uint32_t pid = 2 + f;

		addrspace_mmap(&as, pid, 0, 1 << 12, 0, 0, 3000);
		addrspace_fork(&as, pid, 1, 2000);
		copied += addrspace_find(&as, pid)->n;
		addrspace_exit(&as, pid, f + 1, 2100);
		addrspace_reap(&as, f + 3, UINT64_MAX);
	}
	t = now() - t0;
	printf("%u mappings, %u forks: %.3f ms per fork (%zu mappings copied)\n", n, forks,
	       t * 1e3 / forks, copied);
	addrspace_done(&as);
	return 0;
}
