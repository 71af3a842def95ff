/* test-addrspace.c — the recorder's view of process mappings (lib/capture/addrspace): lookups,
 * replacement, fork, exec and exit, and records that arrive out of order (the rings are
 * drained one CPU after the other): an exec drained after the new program's mappings, a fork
 * drained after the child's exec, an old mapping drained after a newer one. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "capture/addrspace.h"
#include "check.h"

static struct addrspace as;

/* The object holding addr in pid of a, or -1. */
static long obj_in(struct addrspace *a, uint32_t pid, uint64_t addr)
{
	struct as_proc *p = addrspace_find(a, pid);
	const struct as_map *m = p ? addrspace_map(p, addr) : NULL;

	return m ? (long)m->obj : -1;
}

static long obj_at(uint32_t pid, uint64_t addr)
{
	return obj_in(&as, pid, addr);
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

/* ---- against a model: every page of a small address space, for a few processes ---- */

#define M_PAGES 48
#define M_PROCS 4
#define PAGE 0x1000u

/* What a page holds: the mapping it came from (0: nothing), that mapping's object, time and
 * the page's file offset. A mapping is split by newer ones; each piece is what a run of pages
 * of one id is. */
struct mpage {
	uint32_t id, obj;
	uint64_t time, pgoff;
};
struct mproc {
	struct mpage pg[M_PAGES];
	uint64_t exec_time;
};
static struct mproc model[M_PROCS];
static uint32_t next_id;

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(uint64_t n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state % n;
}

static void model_mmap(struct mproc *p, size_t s, size_t e, uint32_t obj, uint64_t t)
{
	if (t < p->exec_time)
		return;
	for (size_t i = s; i < e; i++)
		if (p->pg[i].id && p->pg[i].time > t)
			return;
	next_id++;
	for (size_t i = s; i < e; i++)
		p->pg[i] = (struct mpage){ next_id, obj, t, (i - s) * PAGE };
}

static void model_fork(struct mproc *c, const struct mproc *par, uint64_t t)
{
	struct mproc old = *c;

	for (size_t s = 0, e; s < M_PAGES; s = e) {
		const struct mpage *m = &par->pg[s];
		bool newer = false;

		for (e = s + 1; e < M_PAGES && m->id && par->pg[e].id == m->id &&
				par->pg[e].pgoff == par->pg[e - 1].pgoff + PAGE;
		     e++)
			;
		if (!m->id || m->time > t || m->time < old.exec_time)
			continue;
		for (size_t i = s; i < e; i++)
			newer |= old.pg[i].id && old.pg[i].time > m->time;
		if (newer)
			continue;
		/* A copy is a mapping of its own: a new id, so that it never runs together with
		 * an adjacent piece of the same mapping copied by another fork. */
		next_id++;
		for (size_t i = s; i < e; i++) {
			c->pg[i] = par->pg[i];
			c->pg[i].id = next_id;
		}
	}
}

static void model_exec(struct mproc *p, uint64_t t)
{
	if (t > p->exec_time)
		p->exec_time = t;
	for (size_t i = 0; i < M_PAGES; i++)
		if (p->pg[i].id && p->pg[i].time < p->exec_time)
			p->pg[i].id = 0;
}

/* Every page of every process as the model has it. */
static bool model_agrees(struct addrspace *a, uint32_t pid0, unsigned step)
{
	for (uint32_t k = 0; k < M_PROCS; k++) {
		struct as_proc *p = addrspace_find(a, pid0 + k);

		for (size_t i = 0; i < M_PAGES; i++) {
			const struct mpage *m = &model[k].pg[i];
			const struct as_map *got = p ? addrspace_map(p, i * PAGE + 0x10) : NULL;

			if (!CHECK(m->id ? got && got->obj == m->obj && got->time == m->time &&
					       got->pgoff + (i * PAGE - got->start) == m->pgoff
					 : !got,
				   "step %u: pid %u page %zu: want %s obj %u time %llu pgoff %#llx, got obj "
				   "%ld time %llu",
				   step, pid0 + k, i, m->id ? "" : "nothing", m->obj,
				   (unsigned long long)m->time, (unsigned long long)m->pgoff,
				   got ? (long)got->obj : -1L,
				   (unsigned long long)(got ? got->time : 0)))
				return false;
		}
		for (size_t i = 1; p && i < p->n; i++)
			if (!CHECK(p->maps[i - 1].end <= p->maps[i].start,
				   "step %u: pid %u: mappings %zu and %zu out of order or overlapping",
				   step, pid0 + k, i - 1, i))
				return false;
	}
	return true;
}

/* Random mmaps, forks, execs in any order of time (as rings drained one CPU after the other
 * give them), compared page by page with the model after each. */
static void test_model(void)
{
	struct addrspace a;
	const uint32_t pid0 = 500;
	uint64_t t = 1000;

	test_ctx = "random mmap, fork and exec against a page model";
	addrspace_init(&a);
	for (unsigned step = 0; step < 20000; step++) {
		uint32_t k = (uint32_t)rnd(M_PROCS), op = (uint32_t)rnd(10);
		uint64_t when = t + rnd(40) - 20; /* out of order, within a window */
		size_t s = rnd(M_PAGES), e = s + 1 + rnd(M_PAGES - s < 8 ? M_PAGES - s : 8);

		t += 2;
		if (op < 6) {
			uint32_t obj = 1 + (uint32_t)rnd(9);

			addrspace_mmap(&a, pid0 + k, s * PAGE, e * PAGE, 0, obj, when);
			model_mmap(&model[k], s, e, obj, when);
		} else if (op < 9) {
			uint32_t from = (uint32_t)rnd(M_PROCS);

			if (from == k || !addrspace_find(&a, pid0 + from))
				continue;
			addrspace_fork(&a, pid0 + k, pid0 + from, when);
			model_fork(&model[k], &model[from], when);
		} else {
			if (rnd(4))
				continue; /* execs are rare: they empty the process */
			addrspace_exec(&a, pid0 + k, when);
			model_exec(&model[k], when);
		}
		if (!model_agrees(&a, pid0, step))
			break;
	}
	CHECK_U64(a.nomem, 0);
	addrspace_done(&a);
}

/* 60 000 mappings (what a process with many libraries or a JIT has) and 400 forks: each child
 * gets exactly the parent's mappings of the fork's time, over its own ones. Fork used to be
 * an ordered insert per mapping (quadratic: bench/addrspace-bench.sh has the times). */
static void test_many_forks(void)
{
	struct addrspace a;
	const uint32_t parent = 7000, n_maps = 60000, n_forks = 400;
	struct as_proc *p;

	test_ctx = "60 000 mappings, 400 forks";
	addrspace_init(&a);
	for (uint32_t i = 0; i < n_maps; i++) /* every other page; the last 100 after time 2000 */
		addrspace_mmap(&a, parent, (uint64_t)(2 * i + 1) * PAGE,
			       (uint64_t)(2 * i + 2) * PAGE, (uint64_t)i * PAGE, i,
			       i < n_maps - 100 ? 1000 + i % 7 : 3000);
	p = addrspace_find(&a, parent);
	CHECK_U64(p ? p->n : 0, n_maps);
	for (uint32_t f = 0; f < n_forks; f++) {
		uint32_t c = parent + 1 + f;
		struct as_proc *cp;
		size_t want = n_maps - 100;

		if (f % 4 == 1) /* its own newer mapping over map 10, drained before the fork */
			addrspace_mmap(&a, c, 21 * PAGE, 22 * PAGE, 0, 999999, 2500);
		if (f % 4 == 2) /* an older one of its own, replaced by the parent's */
			addrspace_mmap(&a, c, 0, 4 * PAGE, 0, 888888, 500);
		addrspace_fork(&a, c, parent, 2000);
		cp = addrspace_find(&a, c);
		if (!CHECK(cp != NULL, "fork %u: no child", f))
			break;
		if (f % 4 == 2)
			want += 2; /* pages 0 and 2 of the old one are left */
		if (!CHECK_U64(cp->n, want))
			break;
		if (!CHECK_INT(obj_in(&a, c, 21 * PAGE), f % 4 == 1 ? 999999 : 10) ||
		    !CHECK_INT(obj_in(&a, c, 3 * PAGE), 1) ||
		    !CHECK_INT(obj_in(&a, c, (uint64_t)(2 * (n_maps - 101) + 1) * PAGE),
			       (long)n_maps - 101) ||
		    !CHECK_INT(obj_in(&a, c, (uint64_t)(2 * (n_maps - 1) + 1) * PAGE), -1) ||
		    !CHECK_INT(obj_in(&a, c, 0), f % 4 == 2 ? 888888 : -1))
			break;
		for (size_t i = 1; i < cp->n; i++)
			if (!CHECK(cp->maps[i - 1].end <= cp->maps[i].start,
				   "fork %u: maps %zu, %zu", f, i - 1, i))
				break;
		addrspace_exit(&a, c, f + 1, 2100);
		addrspace_reap(&a, f + 3, UINT64_MAX);
	}
	CHECK_U64(a.nomem, 0);
	addrspace_done(&a);
}

int main(void)
{
	addrspace_init(&as);
	test_basic();
	test_fork_exec();
	test_exit();
	test_exit_before_fork();
	test_model();
	test_many_forks();
	addrspace_done(&as);
	return check_done("test-addrspace");
}
