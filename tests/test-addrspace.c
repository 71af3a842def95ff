/* test-addrspace.c — the recorder's view of process mappings (lib/capture/addrspace): lookups,
 * replacement, fork, exec and exit, and records that arrive out of order (the rings are
 * drained one CPU after the other): an exec drained after the new program's mappings, a fork
 * drained after the child's exec, an old mapping drained after a newer one. */
#include <stdlib.h>

#include "capture/addrspace.h"
#include "check.h"

static struct addrspace as;

/* The object holding addr in pid, or -1. */
static long obj_at(uint32_t pid, uint64_t addr)
{
	struct as_proc *p = addrspace_find(&as, pid);
	const struct as_map *m = p ? addrspace_map(p, addr) : NULL;

	return m ? (long)m->obj : -1;
}

static void test_basic(void)
{
	test_ctx = "lookups and replacement";
	addrspace_mmap(&as, 10, 0x1000, 0x3000, 0, 1, 100);
	addrspace_mmap(&as, 10, 0x5000, 0x6000, 0x2000, 2, 101);
	CHECK_INT(obj_at(10, 0x1000), 1);
	CHECK_INT(obj_at(10, 0x2fff), 1);
	CHECK_INT(obj_at(10, 0x3000), -1);
	CHECK_INT(obj_at(10, 0x5800), 2);
	CHECK_INT(obj_at(11, 0x1000), -1);
	/* A newer mapping over the middle splits the old one, keeping its file offsets. */
	addrspace_mmap(&as, 10, 0x1800, 0x2000, 0, 3, 102);
	CHECK_INT(obj_at(10, 0x17ff), 1);
	CHECK_INT(obj_at(10, 0x1800), 3);
	CHECK_INT(obj_at(10, 0x2000), 1);
	CHECK_U64(addrspace_map(addrspace_find(&as, 10), 0x2000)->pgoff, 0x1000);
	/* An older one drained late does not replace it. */
	addrspace_mmap(&as, 10, 0x1800, 0x2000, 0, 4, 99);
	CHECK_INT(obj_at(10, 0x1800), 3);
}

static void test_fork_exec(void)
{
	test_ctx = "fork, then exec, in order";
	addrspace_mmap(&as, 20, 0x1000, 0x2000, 0, 1, 100); /* the shell */
	addrspace_fork(&as, 21, 20, 110);
	CHECK_INT(obj_at(21, 0x1000), 1);
	addrspace_exec(&as, 21, 120);
	CHECK_INT(obj_at(21, 0x1000), -1);
	addrspace_mmap(&as, 21, 0x4000, 0x5000, 0, 5, 121);
	CHECK_INT(obj_at(21, 0x4000), 5);
	CHECK_INT(obj_at(20, 0x1000), 1); /* the parent keeps its own */

	test_ctx = "the new program's mappings drained before its exec";
	addrspace_fork(&as, 22, 20, 110);
	addrspace_mmap(&as, 22, 0x4000, 0x5000, 0, 5, 121);
	addrspace_exec(&as, 22, 120);
	CHECK_INT(obj_at(22, 0x4000), 5);
	CHECK_INT(obj_at(22, 0x1000), -1);

	test_ctx = "the fork drained after the child's exec and mappings";
	addrspace_exec(&as, 23, 120);
	addrspace_mmap(&as, 23, 0x4000, 0x5000, 0, 5, 121);
	addrspace_fork(&as, 23, 20, 110);
	CHECK_INT(obj_at(23, 0x4000), 5);
	CHECK_INT(obj_at(23, 0x1000), -1); /* the shell's, from before the exec: not copied */

	test_ctx = "a mapping from before the exec drained after it";
	addrspace_mmap(&as, 23, 0x8000, 0x9000, 0, 6, 115);
	CHECK_INT(obj_at(23, 0x8000), -1);

	test_ctx = "a thread (pid == ppid) copies nothing";
	addrspace_fork(&as, 20, 20, 130);
	CHECK_INT(obj_at(20, 0x1000), 1);
}

static void test_exit(void)
{
	test_ctx = "exit: forgotten two passes later";
	addrspace_mmap(&as, 30, 0x1000, 0x2000, 0, 1, 100);
	addrspace_exit(&as, 30, 5, 200);
	addrspace_reap(&as, 6, UINT64_MAX);
	CHECK_INT(obj_at(30, 0x1000), 1); /* samples in other rings still find it */
	addrspace_reap(&as, 7, UINT64_MAX);
	CHECK_INT(obj_at(30, 0x1000), -1);
	CHECK(addrspace_find(&as, 30) == NULL);

	test_ctx = "exit: kept while a sample from before it waits for its table";
	addrspace_mmap(&as, 31, 0x1000, 0x2000, 0, 1, 100);
	addrspace_exit(&as, 31, 5, 200);
	addrspace_reap(&as, 9, 150); /* a sample of time 150 is held */
	CHECK_INT(obj_at(31, 0x1000), 1);
	addrspace_reap(&as, 10, 250); /* only samples after the exit are held */
	CHECK(addrspace_find(&as, 31) == NULL);

	test_ctx = "many processes: the table grows, removal keeps the others findable";
	for (uint32_t pid = 1000; pid < 3000; pid++)
		addrspace_mmap(&as, pid, 0x1000, 0x2000, 0, pid, 100);
	for (uint32_t pid = 1000; pid < 3000; pid += 2)
		addrspace_exit(&as, pid, 10, 200);
	addrspace_reap(&as, 12, UINT64_MAX);
	for (uint32_t pid = 1000; pid < 3000; pid++)
		if (!CHECK_INT(obj_at(pid, 0x1000), pid % 2 ? (long)pid : -1L))
			break;
	CHECK_U64(as.nomem, 0);
}

/* A short process forked on one CPU and run and ended on another: its exec, mappings and exit
 * can all be drained before its fork. The fork must not bring it back to life, or every such
 * process stays in the table for good (ringprofd under churn grew by 1 MiB per 3000). */
static void test_exit_before_fork(void)
{
	size_t before;

	test_ctx = "exit drained before the fork: the process stays dead and is forgotten";
	addrspace_mmap(&as, 40, 0x1000, 0x2000, 0, 1, 100); /* the shell */
	before = as.n_procs;
	addrspace_exec(&as, 41, 120);
	addrspace_mmap(&as, 41, 0x4000, 0x5000, 0, 5, 121);
	addrspace_exit(&as, 41, 20, 130);
	addrspace_fork(&as, 41, 40, 110);
	CHECK_INT(obj_at(41, 0x4000), 5); /* samples drained later still find it */
	addrspace_reap(&as, 22, UINT64_MAX);
	CHECK(addrspace_find(&as, 41) == NULL);
	CHECK_U64(as.n_procs, before);

	test_ctx = "only the exit drained before the fork";
	addrspace_exit(&as, 42, 20, 130);
	addrspace_fork(&as, 42, 40, 110);
	addrspace_reap(&as, 22, UINT64_MAX);
	CHECK(addrspace_find(&as, 42) == NULL);
	CHECK_U64(as.n_procs, before);

	test_ctx = "a pid used again after an exit: the new process has only its parent's mappings";
	addrspace_exec(&as, 43, 120);
	addrspace_mmap(&as, 43, 0x4000, 0x5000, 0, 5, 121);
	addrspace_exit(&as, 43, 20, 130);
	addrspace_fork(&as, 43, 40, 140);
	CHECK_INT(obj_at(43, 0x4000), -1);
	CHECK_INT(obj_at(43, 0x1000), 1);
	addrspace_reap(&as, 22, UINT64_MAX);
	CHECK_INT(obj_at(43, 0x1000), 1); /* alive */
	CHECK_U64(as.nomem, 0);
}

int main(void)
{
	addrspace_init(&as);
	test_basic();
	test_fork_exec();
	test_exit();
	test_exit_before_fork();
	addrspace_done(&as);
	return check_done("test-addrspace");
}
