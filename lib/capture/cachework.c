/* cachework.c — the unwind-table disk cache from a worker thread (see cachework.h). */
#include "capture/cachework.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/util.h"
#include "unwind/proto.h"

enum job_kind { JOB_LOAD, JOB_STORE, JOB_CALL };
enum job_state { JOB_FREE, JOB_WAITING, JOB_DONE };

struct job {
	uint8_t kind, state;
	uint8_t bid_len;
	uint8_t bid[20];
	uint8_t digest[UWP_DIGEST_LEN];
	uint32_t id;
	uint64_t seq; /* the order jobs were asked in */
	void *buf;    /* a store's copy; a load's answer (NULL: none); a call's argument */
	void (*fn)(void *arg);
	size_t size;
	struct utab tab;
};

struct cachework {
	struct utcache cache; /* the worker's only, once it runs */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t work, done;
	struct job jobs[CACHEWORK_JOBS];
	uint64_t seq;
	unsigned writes; /* stores and calls waiting or running */
	bool stop;
};

static struct job *free_job(struct cachework *w);

/* The oldest waiting job, or NULL (with the lock). */
static struct job *next_job(struct cachework *w)
{
	struct job *best = NULL;

	for (size_t i = 0; i < CACHEWORK_JOBS; i++)
		if (w->jobs[i].state == JOB_WAITING && (!best || w->jobs[i].seq < best->seq))
			best = &w->jobs[i];
	return best;
}

static void *worker(void *arg)
{
	struct cachework *w = arg;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct job *j = next_job(w);
		struct job copy;

		if (!j && w->stop)
			break;
		if (!j) {
			pthread_cond_wait(&w->work, &w->lock);
			continue;
		}
		if (w->stop && j->kind == JOB_LOAD) {
			j->state = JOB_FREE; /* nobody takes it any more */
			continue;
		}
		copy = *j;
		pthread_mutex_unlock(&w->lock);
		if (copy.kind == JOB_LOAD) {
			copy.buf = utcache_load(&w->cache, copy.bid, copy.bid_len, copy.digest,
						&copy.tab, &copy.size);
		} else if (copy.kind == JOB_CALL) {
			copy.fn(copy.buf);
			copy.buf = NULL;
		} else {
			utcache_store(&w->cache, copy.bid, copy.bid_len, copy.digest, copy.buf,
				      copy.size);
			free(copy.buf);
			copy.buf = NULL;
		}
		pthread_mutex_lock(&w->lock);
		*j = copy;
		j->state = copy.kind == JOB_LOAD ? JOB_DONE : JOB_FREE;
		w->writes -= copy.kind != JOB_LOAD;
		pthread_cond_broadcast(&w->done);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct cachework *cachework_new(void)
{
	struct cachework *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->cache.dfd = -1;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->work, NULL);
	pthread_cond_init(&w->done, NULL);
	if (pthread_create(&w->thread, NULL, worker, w) != 0) {
		free(w);
		return NULL;
	}
	return w;
}

int cachework_open_cache(struct cachework *w, const char *dir, uint64_t max_bytes, char *why,
			 size_t why_size)
{
	int rc;

	/* The worker reads w->cache only for a job, with none waiting now (set up first). */
	pthread_mutex_lock(&w->lock);
	utcache_done(&w->cache);
	rc = utcache_open(&w->cache, dir, max_bytes, why, why_size);
	pthread_mutex_unlock(&w->lock);
	return rc;
}

bool cachework_sync(struct cachework *w, uint64_t wait_ns)
{
	struct timespec until;
	bool idle;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)(wait_ns / 1000000000);
	until.tv_nsec += (long)(wait_ns % 1000000000);
	until.tv_sec += until.tv_nsec / 1000000000;
	until.tv_nsec %= 1000000000;
	pthread_mutex_lock(&w->lock);
	while (w->writes && pthread_cond_timedwait(&w->done, &w->lock, &until) != ETIMEDOUT)
		;
	idle = !w->writes;
	pthread_mutex_unlock(&w->lock);
	return idle;
}

int cachework_call(struct cachework *w, void (*fn)(void *arg), void *arg)
{
	struct job *j;

	pthread_mutex_lock(&w->lock);
	j = free_job(w);
	if (j) {
		memset(j, 0, sizeof(*j));
		j->kind = JOB_CALL;
		j->state = JOB_WAITING;
		j->fn = fn;
		j->buf = arg;
		j->seq = ++w->seq;
		w->writes++;
		pthread_cond_signal(&w->work);
	}
	pthread_mutex_unlock(&w->lock);
	return j ? 0 : -EAGAIN;
}

void cachework_free(struct cachework *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_broadcast(&w->work);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	for (size_t i = 0; i < CACHEWORK_JOBS; i++)
		if (w->jobs[i].kind != JOB_CALL)
			free(w->jobs[i].buf);
	utcache_done(&w->cache);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->work);
	pthread_cond_destroy(&w->done);
	free(w);
}

/* A free job slot (with the lock), or NULL. */
static struct job *free_job(struct cachework *w)
{
	for (size_t i = 0; i < CACHEWORK_JOBS; i++)
		if (w->jobs[i].state == JOB_FREE)
			return &w->jobs[i];
	return NULL;
}

int cachework_load(struct cachework *w, uint32_t id, const uint8_t *bid, size_t bid_len,
		   const uint8_t *digest, uint64_t wait_ns)
{
	struct timespec until;
	struct job *j;
	int rc;

	if (bid_len > sizeof(j->bid))
		return -EINVAL;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += (long)wait_ns;
	until.tv_sec += until.tv_nsec / 1000000000;
	until.tv_nsec %= 1000000000;
	pthread_mutex_lock(&w->lock);
	j = free_job(w);
	if (!j) {
		pthread_mutex_unlock(&w->lock);
		return -EAGAIN;
	}
	memset(j, 0, sizeof(*j));
	j->kind = JOB_LOAD;
	j->state = JOB_WAITING;
	j->id = id;
	j->bid_len = (uint8_t)bid_len;
	memcpy(j->bid, bid, bid_len);
	memcpy(j->digest, digest, UWP_DIGEST_LEN);
	j->seq = ++w->seq;
	pthread_cond_signal(&w->work);
	while (j->state != JOB_DONE &&
	       pthread_cond_timedwait(&w->done, &w->lock, &until) != ETIMEDOUT)
		;
	rc = j->state == JOB_DONE;
	pthread_mutex_unlock(&w->lock);
	return rc;
}

int cachework_take(struct cachework *w, uint32_t *ret_id, void **ret_buf, struct utab *ret_tab,
		   size_t *ret_size)
{
	struct job *best = NULL;

	pthread_mutex_lock(&w->lock);
	for (size_t i = 0; i < CACHEWORK_JOBS; i++)
		if (w->jobs[i].state == JOB_DONE && (!best || w->jobs[i].seq < best->seq))
			best = &w->jobs[i];
	if (best) {
		*ret_id = best->id;
		*ret_buf = best->buf;
		*ret_tab = best->tab;
		*ret_size = best->size;
		best->buf = NULL;
		best->state = JOB_FREE;
	}
	pthread_mutex_unlock(&w->lock);
	return best != NULL;
}

void cachework_store(struct cachework *w, const uint8_t *bid, size_t bid_len, const uint8_t *digest,
		     const void *buf, size_t size)
{
	struct job *j;
	void *copy;

	if (bid_len > sizeof(j->bid) || !(copy = malloc(size)))
		return;
	memcpy(copy, buf, size);
	pthread_mutex_lock(&w->lock);
	j = free_job(w);
	if (j) {
		memset(j, 0, sizeof(*j));
		j->kind = JOB_STORE;
		j->state = JOB_WAITING;
		j->bid_len = (uint8_t)bid_len;
		memcpy(j->bid, bid, bid_len);
		memcpy(j->digest, digest, UWP_DIGEST_LEN);
		j->buf = copy;
		j->size = size;
		j->seq = ++w->seq;
		w->writes++;
		copy = NULL;
		pthread_cond_signal(&w->work);
	}
	pthread_mutex_unlock(&w->lock);
	free(copy);
}
