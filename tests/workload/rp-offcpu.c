/* rp-offcpu.c — threads that wait in known places for known times, for `report --off-cpu`:
 * `rp-offcpu [-d SECONDS]` (default 2) runs, each under its own name, for SECONDS:
 *   rp-sleeper  10 ms in wait_sleep (nanosleep), then 10 ms of CPU in spin_sleeper
 *   rp-piper    blocked in wait_pipe (read) on a pipe that rp-feeder writes to every 20 ms
 *   rp-holder   takes a mutex and sleeps 30 ms holding it (hold_lock), then 10 ms without
 *   rp-locker   waits for that mutex in wait_mutex, then sleeps 20 ms in locker_pause
 *   rp-spin1/2  both pinned to CPU 0, spinning in spin_contend: each preempts the other
 *   rp-early    sleeps 10 ms five times in wait_early, then exits: gone long before the end
 * and then prints, per thread, "THREAD tid TID wall W" and "FUNCTION S" for each waiting
 * function: the seconds of CLOCK_MONOTONIC measured around its blocking calls (the truth the
 * tests compare the report with).
 * `rp-offcpu -n SECONDS A B` instead, in its main thread alone (rp-napper), sleeps A ms in nap_a
 * then B ms in nap_b for SECONDS, and prints "rp-napper tid TID wall W nap_a S nap_b S": its
 * off-CPU time split A:B between the two, for `ringprof diff --off-cpu`.
 * `rp-offcpu -P SECONDS` instead bounces a byte between rp-ping and rp-pong over two pipes for
 * SECONDS (tens of thousands of switches a second, the load that --off-cpu-interval bounds)
 * and prints "THREAD tid TID wall W trips N". Exit 2 on bad usage. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#if defined(__clang__)
#define RP_FRAME __attribute__((noinline))
#else
#define RP_FRAME __attribute__((noinline, noclone, no_icf))
#endif

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t end_ns; /* CLOCK_MONOTONIC: every thread stops here */
static atomic_int done; /* the feeder stops after the reader */
static int pipefd[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile uint64_t sink;

/* Per thread: its name, tid, wall time, and time in its waiting function. */
struct part {
	const char *name, *wait_fn;
	int tid;
	uint64_t wall, waited;
};

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { 0, (long)ms * 1000000L };

	nanosleep(&ts, NULL);
}

RP_FRAME static void spin_cpu(uint64_t ns)
{
	uint64_t end = now_ns(CLOCK_THREAD_CPUTIME_ID) + ns;

	while (now_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 20000; i++)
			sink += (uint64_t)i;
}

RP_FRAME static void wait_sleep(void)
{
	sleep_ms(10);
}

RP_FRAME static void spin_sleeper(void)
{
	spin_cpu(10000000);
}

RP_FRAME static int wait_pipe(void)
{
	char c;

	return (int)read(pipefd[0], &c, 1);
}

RP_FRAME static void feed_pipe(void)
{
	sleep_ms(20);
	if (write(pipefd[1], "x", 1) < 0)
		perror("rp-offcpu: write");
}

RP_FRAME static void hold_lock(void)
{
	pthread_mutex_lock(&lock);
	sleep_ms(30);
	pthread_mutex_unlock(&lock);
	sleep_ms(10);
}

RP_FRAME static void wait_mutex(void)
{
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
}

RP_FRAME static void locker_pause(void)
{
	sleep_ms(20);
}

RP_FRAME static void wait_early(void)
{
	sleep_ms(10);
}

RP_FRAME static void nap_a(unsigned int ms)
{
	sleep_ms(ms);
}

RP_FRAME static void nap_b(unsigned int ms)
{
	sleep_ms(ms);
}

RP_FRAME static void spin_contend(void)
{
	for (int i = 0; i < 100000; i++)
		sink ^= (uint64_t)i;
}

/* Time FN takes, added to *acc. */
#define TIMED(acc, call)                                                                           \
	do {                                                                                       \
		uint64_t t0_ = now_ns(CLOCK_MONOTONIC);                                            \
		call;                                                                              \
		*(acc) += now_ns(CLOCK_MONOTONIC) - t0_;                                           \
	} while (0)

static void *run(void *arg)
{
	struct part *p = arg;
	uint64_t start = now_ns(CLOCK_MONOTONIC);

	prctl(PR_SET_NAME, p->name);
	p->tid = gettid();
	if (strncmp(p->name, "rp-spin", 7) == 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(0, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	if (strcmp(p->name, "rp-early") == 0) {
		for (int i = 0; i < 5; i++)
			TIMED(&p->waited, wait_early());
		p->wall = now_ns(CLOCK_MONOTONIC) - start;
		return NULL;
	}
	while (now_ns(CLOCK_MONOTONIC) < end_ns) {
		if (strcmp(p->name, "rp-sleeper") == 0) {
			TIMED(&p->waited, wait_sleep());
			spin_sleeper();
		} else if (strcmp(p->name, "rp-piper") == 0) {
			TIMED(&p->waited, wait_pipe());
		} else if (strcmp(p->name, "rp-feeder") == 0) {
			TIMED(&p->waited, feed_pipe());
		} else if (strcmp(p->name, "rp-holder") == 0) {
			TIMED(&p->waited, hold_lock());
		} else if (strcmp(p->name, "rp-locker") == 0) {
			TIMED(&p->waited, wait_mutex());
			locker_pause();
		} else {
			spin_contend();
		}
	}
	if (strcmp(p->name, "rp-feeder") == 0) {
		/* The reader may be blocked: one more byte lets it see the end. */
		while (!atomic_load(&done)) {
			if (write(pipefd[1], "x", 1) < 0)
				break;
			sleep_ms(1);
		}
	}
	if (strcmp(p->name, "rp-piper") == 0)
		atomic_store(&done, 1);
	p->wall = now_ns(CLOCK_MONOTONIC) - start;
	return NULL;
}

static int ping_fd[2], pong_fd[2];
static atomic_ulong trips;

/* One side of the ping-pong: ARG is "rp-ping" (starts it, and stops it at end_ns) or
 * "rp-pong" (echoes until the pipe closes). */
static void *bounce(void *arg)
{
	const char *name = arg;
	bool ping = strcmp(name, "rp-ping") == 0;
	char c = 'x';

	prctl(PR_SET_NAME, name);
	for (;;) {
		if (ping) {
			if (now_ns(CLOCK_MONOTONIC) >= end_ns)
				break;
			if (write(ping_fd[1], &c, 1) != 1 || read(pong_fd[0], &c, 1) != 1)
				break;
			atomic_fetch_add(&trips, 1);
		} else {
			if (read(ping_fd[0], &c, 1) != 1 || write(pong_fd[1], &c, 1) != 1)
				break;
		}
	}
	if (ping)
		close(ping_fd[1]);
	return NULL;
}

static int pingpong(double secs)
{
	pthread_t a, b;
	uint64_t start = now_ns(CLOCK_MONOTONIC);

	if (pipe(ping_fd) < 0 || pipe(pong_fd) < 0) {
		perror("rp-offcpu: pipe");
		return 1;
	}
	end_ns = start + (uint64_t)(secs * 1e9);
	if (pthread_create(&b, NULL, bounce, "rp-pong") != 0 ||
	    pthread_create(&a, NULL, bounce, "rp-ping") != 0) {
		fprintf(stderr, "rp-offcpu: cannot create a thread\n");
		return 1;
	}
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("rp-ping wall %.6f trips %lu\n", (double)(now_ns(CLOCK_MONOTONIC) - start) / 1e9,
	       atomic_load(&trips));
	return 0;
}

/* -n: the main thread naps A then B ms until SECONDS have passed. */
static int naps(double secs, unsigned int a, unsigned int b)
{
	uint64_t start = now_ns(CLOCK_MONOTONIC), in_a = 0, in_b = 0;

	prctl(PR_SET_NAME, "rp-napper");
	end_ns = start + (uint64_t)(secs * 1e9);
	while (now_ns(CLOCK_MONOTONIC) < end_ns) {
		if (a)
			TIMED(&in_a, nap_a(a));
		if (b)
			TIMED(&in_b, nap_b(b));
	}
	printf("rp-napper tid %d wall %.6f nap_a %.6f nap_b %.6f\n", gettid(),
	       (double)(now_ns(CLOCK_MONOTONIC) - start) / 1e9, (double)in_a / 1e9,
	       (double)in_b / 1e9);
	return 0;
}

int main(int argc, char **argv)
{
	struct part parts[] = {
		{ "rp-sleeper", "wait_sleep", 0, 0, 0 }, { "rp-piper", "wait_pipe", 0, 0, 0 },
		{ "rp-feeder", "feed_pipe", 0, 0, 0 },	 { "rp-holder", "hold_lock", 0, 0, 0 },
		{ "rp-locker", "wait_mutex", 0, 0, 0 },	 { "rp-spin1", "spin_contend", 0, 0, 0 },
		{ "rp-spin2", "spin_contend", 0, 0, 0 }, { "rp-early", "wait_early", 0, 0, 0 },
	};
	enum { N = sizeof(parts) / sizeof(parts[0]) };
	pthread_t th[N];
	double secs = 2.0;

	if (argc == 3 && strcmp(argv[1], "-P") == 0) {
		secs = atof(argv[2]);
		if (secs <= 0 || secs > 3600) {
			fprintf(stderr, "usage: rp-offcpu -P SECONDS\n");
			return 2;
		}
		return pingpong(secs);
	}
	if (argc == 5 && strcmp(argv[1], "-n") == 0) {
		int a = atoi(argv[3]), b = atoi(argv[4]);

		secs = atof(argv[2]);
		if (secs <= 0 || secs > 3600 || a < 0 || b < 0 || a + b == 0 || a > 10000 ||
		    b > 10000) {
			fprintf(stderr, "usage: rp-offcpu -n SECONDS A_MS B_MS\n");
			return 2;
		}
		return naps(secs, (unsigned int)a, (unsigned int)b);
	}
	if (argc == 3 && strcmp(argv[1], "-d") == 0)
		secs = atof(argv[2]);
	else if (argc != 1)
		secs = -1;
	if (secs <= 0 || secs > 3600) {
		fprintf(stderr, "usage: rp-offcpu [-d SECONDS]\n");
		return 2;
	}
	if (pipe(pipefd) < 0) {
		perror("rp-offcpu: pipe");
		return 1;
	}
	end_ns = now_ns(CLOCK_MONOTONIC) + (uint64_t)(secs * 1e9);
	for (int i = 0; i < N; i++)
		if (pthread_create(&th[i], NULL, run, &parts[i]) != 0) {
			fprintf(stderr, "rp-offcpu: cannot create a thread\n");
			return 1;
		}
	for (int i = 0; i < N; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < N; i++)
		printf("%s tid %d wall %.6f %s %.6f\n", parts[i].name, parts[i].tid,
		       (double)parts[i].wall / 1e9, parts[i].wait_fn,
		       (double)parts[i].waited / 1e9);
	return 0;
}
