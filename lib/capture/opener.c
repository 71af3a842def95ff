/* opener.c — see opener.h. One worker thread at a time takes jobs in order; the recorder's
 * thread asks for results without blocking (or waiting a bounded moment). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/procfs.h"
#include "base/util.h"
#include "capture/opener.h"

enum { JOB_QUEUED, JOB_RUNNING, JOB_DONE };

struct worker {
	struct opener *op;
	bool left; /* left behind on a file that would not open: ends after it */
};

struct opener_job {
	struct opener_job *next; /* in the queue */
	int state;
	int refs;     /* the caller's (until opener_drop()), the worker's while it runs it */
	bool dropped; /* the caller no longer wants it */
	uint64_t started;
	struct worker *worker;
	int fd, way;
	char why[160];
	struct opener_file f;
	char path[]; /* f.path */
};

struct opener {
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	struct opener_job *head, *tail;
	int refs; /* the owner's and each worker's */
	bool closing;
	unsigned stuck;
};

static void destroy(struct opener *op)
{
	pthread_mutex_destroy(&op->mu);
	pthread_cond_destroy(&op->work);
	pthread_cond_destroy(&op->done);
	free(op);
}

/* One reference to j less (op->mu held). */
static void unref(struct opener_job *j)
{
	if (--j->refs > 0)
		return;
	if (j->fd >= 0)
		close(j->fd);
	free(j);
}

static void finish(struct opener *op, struct opener_job *j, int fd, int way, const char *why)
{
	if (j->dropped && fd >= 0)
		close(fd);
	else
		j->fd = fd;
	j->way = way;
	util_strlcpy(j->why, why, sizeof(j->why));
	j->state = JOB_DONE;
	pthread_cond_broadcast(&op->done);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct opener *op = w->op;
	bool last;

	pthread_mutex_lock(&op->mu);
	for (;;) {
		struct opener_job *j;
		char why[160] = "";
		int fd, way;

		while (!op->closing && !w->left && !op->head)
			pthread_cond_wait(&op->work, &op->mu);
		if (op->closing || w->left)
			break;
		j = op->head;
		op->head = j->next;
		if (!op->head)
			op->tail = NULL;
		j->state = JOB_RUNNING;
		j->started = util_now_ns();
		j->worker = w; /* the queue's reference is the worker's now */
		way = j->f.way;
		pthread_mutex_unlock(&op->mu);
		fd = procfs_open_mapped_from(j->f.pid, j->f.start, j->f.end, j->f.path, j->f.maj,
					     j->f.min, j->f.ino, &way, why, sizeof(why));
		pthread_mutex_lock(&op->mu);
		if (j->state == JOB_RUNNING)
			finish(op, j, fd < 0 ? -EIO : fd, way, why);
		else if (fd >= 0)
			close(fd); /* answered already: it took too long */
		unref(j);
	}
	last = --op->refs == 0;
	pthread_mutex_unlock(&op->mu);
	free(w);
	if (last)
		destroy(op);
	return NULL;
}

/* A new worker (op->mu held, or op not shared yet). 0 or -errno. */
static int spawn(struct opener *op)
{
	struct worker *w = calloc(1, sizeof(*w));
	sigset_t all, old;
	pthread_attr_t a;
	pthread_t t;
	int rc;

	if (!w)
		return -ENOMEM;
	w->op = op;
	/* Signals are the recorder's thread's to take. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&a, 256 << 10);
	rc = pthread_create(&t, &a, work, w);
	pthread_attr_destroy(&a);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		free(w);
		return -rc;
	}
	op->refs++;
	return 0;
}

struct opener *opener_new(void)
{
	struct opener *op = calloc(1, sizeof(*op));
	pthread_condattr_t ca;

	if (!op)
		return NULL;

	pthread_mutex_init(&op->mu, NULL);
	pthread_cond_init(&op->work, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* opener_result()'s waits */
	pthread_cond_init(&op->done, &ca);
	pthread_condattr_destroy(&ca);
	op->refs = 1;
	if (spawn(op) < 0) {
		destroy(op);
		return NULL;
	}
	return op;
}

void opener_free(struct opener *op)
{
	bool last;

	if (!op)
		return;
	pthread_mutex_lock(&op->mu);
	op->closing = true;
	while (op->head) {
		struct opener_job *j = op->head;

		op->head = j->next;
		unref(j);
	}
	pthread_cond_broadcast(&op->work);
	last = --op->refs == 0;
	pthread_mutex_unlock(&op->mu);
	if (last)
		destroy(op);
}

/* Queued jobs fail at once: no worker will take them (op->mu held). */
static void fail_queued(struct opener *op)
{
	char why[160];

	snprintf(why, sizeof(why),
		 "not opened: %u opens of mapped files never returned (a file system that does "
		 "not answer), so no file is opened any more",
		 op->stuck);
	while (op->head) {
		struct opener_job *j = op->head;

		op->head = j->next;
		finish(op, j, -EDEADLK, j->f.way, why);
		unref(j);
	}
	op->tail = NULL;
}

struct opener_job *opener_start(struct opener *op, const struct opener_file *f)
{
	size_t len = f->path ? strlen(f->path) : 0;
	struct opener_job *j = calloc(1, sizeof(*j) + len + 1);

	if (!j)
		return NULL;
	j->f = *f;
	memcpy(j->path, f->path ? f->path : "", len + 1);
	j->f.path = j->path;
	j->fd = -1;
	j->refs = 2; /* the caller's, and the queue's until a worker takes it */
	pthread_mutex_lock(&op->mu);
	if (op->tail)
		op->tail->next = j;
	else
		op->head = j;
	op->tail = j;
	if (op->stuck >= OPENER_MAX_STUCK)
		fail_queued(op);
	else
		pthread_cond_signal(&op->work);
	pthread_mutex_unlock(&op->mu);
	return j;
}

/* j's worker has been on it too long: it is left behind, j fails, another worker goes on
 * (op->mu held). */
static void leave_behind(struct opener *op, struct opener_job *j)
{
	char why[160];

	j->worker->left = true;
	op->stuck++;
	snprintf(why, sizeof(why),
		 "opening it took over %llu s (a file system that does not answer?): skipped",
		 OPENER_DEADLINE_NS / 1000000000);
	finish(op, j, -ETIMEDOUT, j->f.way, why);
	if (op->stuck >= OPENER_MAX_STUCK || spawn(op) < 0)
		fail_queued(op);
}

static void add_ns(struct timespec *ts, uint64_t ns)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ns += (uint64_t)ts->tv_nsec;
	ts->tv_sec += (time_t)(ns / 1000000000);
	ts->tv_nsec = (long)(ns % 1000000000);
}

int opener_result(struct opener *op, struct opener_job *j, uint64_t wait_ns, int *ret_fd,
		  int *ret_way, char *why, size_t why_size)
{
	uint64_t until = util_now_ns() + wait_ns;

	pthread_mutex_lock(&op->mu);
	while (j->state != JOB_DONE) {
		uint64_t now = util_now_ns();
		struct timespec ts;

		if (j->state == JOB_RUNNING && now - j->started > OPENER_DEADLINE_NS) {
			leave_behind(op, j);
			break;
		}
		if (now >= until) {
			pthread_mutex_unlock(&op->mu);
			return 0;
		}
		add_ns(&ts, until - now);
		pthread_cond_timedwait(&op->done, &op->mu, &ts);
	}
	*ret_fd = j->fd;
	*ret_way = j->way;
	util_strlcpy(why, j->why, why_size);
	j->fd = -1; /* the caller's now */
	pthread_mutex_unlock(&op->mu);
	return 1;
}

void opener_drop(struct opener *op, struct opener_job *j)
{
	if (!j)
		return;
	pthread_mutex_lock(&op->mu);
	j->dropped = true;
	unref(j);
	pthread_mutex_unlock(&op->mu);
}

unsigned opener_stuck(const struct opener *op)
{
	return op ? op->stuck : 0;
}
