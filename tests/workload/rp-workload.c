/* rp-workload.c — the tests' and demo's workload: CPU burnt in known shares, see README. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rp-worklib.h"

/*
 * The functions the tests look for in reports.  noinline and noclone keep each one a real frame
 * under its own symbol (no .constprop or .isra copies); no_icf stops GCC from folding two of them
 * into one symbol.  Their loops differ as well, so no linker can fold them either.
 */
#if defined(__clang__)
#define RP_FRAME __attribute__((noinline))
#else
#define RP_FRAME __attribute__((noinline, noclone, no_icf))
#endif

#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC 1000000000ULL

/* Shares of the D seconds of CPU time, in percent: D CPU seconds fill half of a 2-CPU box. */
enum { SHARE_MAIN = 50, SHARE_WORKER = 25, SHARE_CHILD = 25 };

/* The main thread's round, in milliseconds of its CPU time per call path (README has the paths). */
enum {
	ROUND_OUTER_A_MS = 2, /* hot_outer_a, self */
	ROUND_LEAF_A_MS = 3,  /* hot_leaf called from hot_outer_a */
	ROUND_LEAF_B_MS = 1,  /* hot_leaf called from hot_outer_b */
	ROUND_WARM_MS = 4,    /* warm_func */
};

/* The worker's and the child's round, in milliseconds of CPU time. */
#define ROUND_SIDE_MS 10

/* A participant still short of its budget after this many times D of wall time gives up. */
#define TIMEOUT_FACTOR 4

/*
 * Length of a chunk of spinning between two reads of the thread CPU clock.  That read is a real
 * system call (the vDSO does not serve CPU-time clocks), so a chunk must be long enough to keep
 * it near 1% of the time, and short enough for a 1 ms slot to end close to its due time.
 */
#define CHUNK_MIN_NS 100000
#define CHUNK_MAX_NS 400000

/* The signal that asked us to stop, or 0. */
static atomic_int stop_signal;
/* The child, for the signal handler to pass the stop on; 0 once it is reaped or in the child. */
static atomic_int child_pid;

static void on_stop_signal(int sig)
{
	int saved_errno = errno;
	pid_t child = atomic_load(&child_pid);

	atomic_store(&stop_signal, sig);
	if (child > 0)
		kill(child, SIGTERM);
	errno = saved_errno;
}

static inline __attribute__((always_inline)) uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	/* Both clocks are probed in main(); they do not start failing later. */
	if (clock_gettime(clock, &ts) != 0)
		abort();
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static inline __attribute__((always_inline)) uint64_t thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/*
 * One place where CPU time is burnt.  The round raises due_ns by the slot's share; each chunk
 * adds its measured thread CPU time to spent_ns.  What one call overshoots, the next call gives
 * back, so the split between slots is exact over the run whatever the scheduler does.
 */
struct slot {
	uint64_t due_ns;
	uint64_t spent_ns;
	uint64_t n_iter; /* loop iterations per chunk, grown from 0 towards CHUNK_*_NS */
};

/* Charge the thread CPU time since *T to S, move *T to now, and adapt the chunk length. */
static inline __attribute__((always_inline)) void slot_charge(struct slot *s, uint64_t *t)
{
	uint64_t now = thread_cpu_ns();
	uint64_t d = now - *t;

	*t = now;
	s->spent_ns += d;
	if (d < CHUNK_MIN_NS && s->n_iter < UINT64_MAX / 4)
		s->n_iter = s->n_iter * 2 + 1;
	else if (d > CHUNK_MAX_NS && s->n_iter > 1)
		s->n_iter /= 2;
}

/*
 * Every spin loop below has this shape: spin a chunk in the function's own body, charge it, and
 * go on while the slot is owed time.  The empty asm makes each iteration's result live, so the
 * compiler can neither drop nor shorten the loop.
 */

/* Main thread: hot_outer_a -> hot_leaf and hot_outer_b -> hot_leaf. */
static RP_FRAME uint64_t hot_leaf(struct slot *s, uint64_t x)
{
	for (uint64_t t = thread_cpu_ns(); s->spent_ns < s->due_ns; slot_charge(s, &t)) {
		for (uint64_t i = 0; i < s->n_iter; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			__asm__ volatile("" : "+r"(x));
		}
	}
	return x;
}

struct main_run {
	struct slot outer_a; /* hot_outer_a self */
	struct slot leaf_a;  /* hot_leaf via hot_outer_a */
	struct slot leaf_b;  /* hot_leaf via hot_outer_b */
	struct slot warm;    /* warm_func */
};

/*
 * The two callers use hot_leaf's result after the call: a call in tail position would become a
 * jump, and the caller's frame would vanish from the callchains the tests check.
 */
static RP_FRAME uint64_t hot_outer_a(struct main_run *r, uint64_t x)
{
	for (uint64_t t = thread_cpu_ns(); r->outer_a.spent_ns < r->outer_a.due_ns;
	     slot_charge(&r->outer_a, &t)) {
		for (uint64_t i = 0; i < r->outer_a.n_iter; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			__asm__ volatile("" : "+r"(x));
		}
	}
	x ^= hot_leaf(&r->leaf_a, x | 1);
	return x;
}

static RP_FRAME uint64_t hot_outer_b(struct main_run *r, uint64_t x)
{
	return hot_leaf(&r->leaf_b, x | 1) + 1;
}

static RP_FRAME uint64_t warm_func(struct slot *s, uint64_t x)
{
	for (uint64_t t = thread_cpu_ns(); s->spent_ns < s->due_ns; slot_charge(s, &t)) {
		for (uint64_t i = 0; i < s->n_iter; i++) {
			x = (x ^ (x >> 31) ^ i) * 0x7fb5d329728ea185ULL;
			__asm__ volatile("" : "+r"(x));
		}
	}
	return x;
}

/* Worker thread. */
static RP_FRAME uint64_t worker_spin(struct slot *s, uint64_t x)
{
	for (uint64_t t = thread_cpu_ns(); s->spent_ns < s->due_ns; slot_charge(s, &t)) {
		for (uint64_t i = 0; i < s->n_iter; i++) {
			x = (x + i) * 0xff51afd7ed558ccdULL;
			x ^= x >> 33;
			__asm__ volatile("" : "+r"(x));
		}
	}
	return x;
}

/*
 * One participant's pacing: it burns budget_ns of its own thread CPU time, spread evenly over
 * wall_ns (D) from the common start wall0_ns, sleeping off any lead so the run lasts about D.
 */
struct pace {
	const char *who;
	uint64_t budget_ns;
	uint64_t wall_ns;
	uint64_t wall0_ns; /* CLOCK_MONOTONIC */
	uint64_t cpu0_ns;  /* the participant's thread CPU clock at its start */
	uint64_t cpu_ns;   /* CPU time burnt, as of the last pace_next() */
};

enum pace_step { PACE_RUN, PACE_DONE, PACE_STOP };

/* Called between rounds: whether to run another one, after sleeping if ahead of schedule. */
static enum pace_step pace_next(struct pace *p)
{
	uint64_t wall, on_time;

	p->cpu_ns = thread_cpu_ns() - p->cpu0_ns;
	if (atomic_load(&stop_signal))
		return PACE_STOP;
	if (p->cpu_ns >= p->budget_ns)
		return PACE_DONE;
	wall = clock_ns(CLOCK_MONOTONIC) - p->wall0_ns;
	if (wall > TIMEOUT_FACTOR * p->wall_ns) {
		fprintf(stderr,
			"rp-workload: warning: %s stopped after %.1f s of wall time, "
			"%.3f of %.3f CPU seconds done\n",
			p->who, (double)wall / NSEC_PER_SEC, (double)p->cpu_ns / NSEC_PER_SEC,
			(double)p->budget_ns / NSEC_PER_SEC);
		return PACE_STOP;
	}
	on_time = (uint64_t)((double)p->cpu_ns / p->budget_ns * p->wall_ns);
	if (on_time > wall) {
		struct timespec ts = {
			.tv_sec = (on_time - wall) / NSEC_PER_SEC,
			.tv_nsec = (on_time - wall) % NSEC_PER_SEC,
		};

		/* An interrupting signal is seen at the next call. */
		nanosleep(&ts, NULL);
	}
	return PACE_RUN;
}

static RP_FRAME void run_main(struct pace *p)
{
	struct main_run r = { 0 };
	uint64_t x = 0x2545f4914f6cdd1dULL;

	while (pace_next(p) == PACE_RUN) {
		r.outer_a.due_ns += ROUND_OUTER_A_MS * NSEC_PER_MSEC;
		r.leaf_a.due_ns += ROUND_LEAF_A_MS * NSEC_PER_MSEC;
		r.leaf_b.due_ns += ROUND_LEAF_B_MS * NSEC_PER_MSEC;
		r.warm.due_ns += ROUND_WARM_MS * NSEC_PER_MSEC;
		x = hot_outer_a(&r, x);
		x = hot_outer_b(&r, x);
		x = warm_func(&r.warm, x);
	}
}

struct worker {
	struct pace pace;
	pid_t tid;
};

static RP_FRAME void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct slot s = { 0 };
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	/* A name under 16 bytes for our own thread: this cannot fail. */
	pthread_setname_np(pthread_self(), "rp-worker");
	w->tid = gettid();
	w->pace.cpu0_ns = thread_cpu_ns();
	while (pace_next(&w->pace) == PACE_RUN) {
		s.due_ns += ROUND_SIDE_MS * NSEC_PER_MSEC;
		x = worker_spin(&s, x);
	}
	return NULL;
}

/* The forked child: all of its time goes to worklib_spin, in librp-worklib.so. */
static RP_FRAME int child_main(struct pace *p)
{
	struct slot s = { 0 };
	uint64_t x = 0xd1b54a32d192ed03ULL;

	p->cpu0_ns = thread_cpu_ns();
	while (pace_next(p) == PACE_RUN) {
		s.due_ns += ROUND_SIDE_MS * NSEC_PER_MSEC;
		for (uint64_t t = thread_cpu_ns(); s.spent_ns < s.due_ns; slot_charge(&s, &t))
			x = worklib_spin(x, s.n_iter);
	}
	return 0;
}

/* Wait for the child and return its wait status and its CPU time. */
static int wait_child(pid_t pid, int *ret_status, uint64_t *ret_cpu_ns)
{
	struct rusage ru;
	siginfo_t si;
	int status;

	/*
	 * Leave it a zombie first, so that the handler cannot kill a recycled pid between the
	 * reaping and the clearing of child_pid.
	 */
	do {
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, pid, &si, WEXITED | WNOWAIT) == 0)
			break;
		if (errno != EINTR)
			return -errno;
	} while (true);
	atomic_store(&child_pid, 0);
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	*ret_status = status;
	*ret_cpu_ns = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * NSEC_PER_SEC +
		      (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
	return 0;
}

static void usage(void)
{
	fputs("usage: rp-workload [-d SECONDS] [-x EXIT_CODE] [-q]\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };
	struct worker w = { .pace.who = "worker" };
	struct pace mp = { .who = "main thread" }, cp = { .who = "child" };
	sigset_t stop_set, old_set;
	uint64_t d_ns, child_cpu_ns = 0;
	double seconds = 2;
	int opt, exit_code = 0, status = 0, r, sig;
	bool quiet = false, child_failed = true;
	pthread_t thread;
	pid_t pid;
	char *end;

	while ((opt = getopt(argc, argv, "d:x:q")) != -1) {
		switch (opt) {
		case 'd':
			errno = 0;
			seconds = strtod(optarg, &end);
			/* Written so that NaN fails too. */
			if (errno || end == optarg || *end || !(seconds > 0 && seconds <= 86400)) {
				fprintf(stderr, "rp-workload: -d wants seconds in (0, 86400]: %s\n",
					optarg);
				usage();
			}
			break;
		case 'x': {
			long v;

			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || v < 0 || v > 255) {
				fprintf(stderr,
					"rp-workload: -x wants an exit code in [0, 255]: %s\n",
					optarg);
				usage();
			}
			exit_code = (int)v;
			break;
		}
		case 'q':
			quiet = true;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();

	{
		struct timespec ts;

		if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0 ||
		    clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
			fprintf(stderr, "rp-workload: no thread CPU clock or monotonic clock: %s\n",
				strerror(errno));
			return 1;
		}
	}

	/* No SA_RESTART: a signal must cut short the sleeps and waits. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	d_ns = (uint64_t)(seconds * NSEC_PER_SEC);
	mp.wall_ns = w.pace.wall_ns = cp.wall_ns = d_ns;
	mp.budget_ns = d_ns / 100 * SHARE_MAIN;
	w.pace.budget_ns = d_ns / 100 * SHARE_WORKER;
	cp.budget_ns = d_ns / 100 * SHARE_CHILD;
	mp.wall0_ns = w.pace.wall0_ns = cp.wall0_ns = clock_ns(CLOCK_MONOTONIC);

	/* Fork before the thread exists: the child is then a plain copy of one thread. */
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "rp-workload: fork: %s\n", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		pid_t parent = getppid();

		if (prctl(PR_SET_NAME, "rp-child", 0, 0, 0) != 0 ||
		    prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0) != 0) {
			fprintf(stderr, "rp-workload: child: prctl: %s\n", strerror(errno));
			_exit(1);
		}
		/* The parent died before PR_SET_PDEATHSIG took hold: nobody is left to wait. */
		if (getppid() != parent)
			_exit(0);
		_exit(child_main(&cp));
	}
	atomic_store(&child_pid, pid);
	if (atomic_load(&stop_signal))
		kill(pid, SIGTERM);

	/* The worker blocks the stop signals, so they interrupt the main thread's waits. */
	sigemptyset(&stop_set);
	sigaddset(&stop_set, SIGINT);
	sigaddset(&stop_set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop_set, &old_set);
	r = pthread_create(&thread, NULL, worker_main, &w);
	pthread_sigmask(SIG_SETMASK, &old_set, NULL);
	if (r != 0) {
		fprintf(stderr, "rp-workload: pthread_create: %s\n", strerror(r));
		kill(pid, SIGTERM);
		wait_child(pid, &status, &child_cpu_ns);
		return 1;
	}

	mp.cpu0_ns = thread_cpu_ns();
	run_main(&mp);

	pthread_join(thread, NULL);
	r = wait_child(pid, &status, &child_cpu_ns);
	if (r < 0)
		fprintf(stderr, "rp-workload: waiting for the child: %s\n", strerror(-r));
	else if (WIFSIGNALED(status))
		fprintf(stderr, "rp-workload: child killed by signal %d\n", WTERMSIG(status));
	else if (WEXITSTATUS(status) != 0)
		fprintf(stderr, "rp-workload: child exited with status %d\n", WEXITSTATUS(status));
	else
		child_failed = false;

	if (!quiet) {
		printf("rp-workload: cpu seconds: main %.3f (pid %d), worker %.3f (tid %d), "
		       "child %.3f (pid %d); wall %.3f\n",
		       (double)mp.cpu_ns / NSEC_PER_SEC, (int)getpid(),
		       (double)w.pace.cpu_ns / NSEC_PER_SEC, (int)w.tid,
		       (double)child_cpu_ns / NSEC_PER_SEC, (int)pid,
		       (double)(clock_ns(CLOCK_MONOTONIC) - mp.wall0_ns) / NSEC_PER_SEC);
		fflush(stdout);
	}

	/* Stopped by a signal: die of it, as a shell expects, unless the child failed. */
	if (child_failed)
		return 3;
	sig = atomic_load(&stop_signal);
	if (sig) {
		signal(sig, SIG_DFL);
		raise(sig);
		return 128 + sig;
	}
	return exit_code;
}
