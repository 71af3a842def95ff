/* loop.c — `ringprof push`'s loop: each closed recording after the cursor, as one pprof
 * profile per unit, sent until accepted; then the cursor passes it. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/grow.h"
#include "cursor.h"
#include "format/recdir.h"
#include "http.h"
#include "loop.h"
#include "profile/pprof.h"
#include "profile/session.h"
#include "push.h"

static void on_session_warn(void *arg, const char *msg)
{
	const struct push *p = arg;

	if (p->verbose)
		fprintf(stderr, PROG ": warning: %s\n", msg);
}

/* A recording read for sending: its session (finished), wall-clock bounds, sample count and
 * units, in name order. */
struct fileprof {
	struct session *s;
	int64_t bounds[2];
	uint64_t samples;
	uint32_t *units;
	size_t n_units;
	struct rp_event_desc ev; /* its first event: the session's filter points at its name */
};

static void fileprof_done(struct fileprof *fp)
{
	session_free(fp->s);
	free(fp->units);
}

static const struct session *sort_session;

static int cmp_units(const void *a, const void *b)
{
	return strcmp(session_unit(sort_session, *(const uint32_t *)a),
		      session_unit(sort_session, *(const uint32_t *)b));
}

/* The distinct units of the session's rows, sorted by name. 0 or -ENOMEM. */
static int list_units(struct fileprof *fp)
{
	size_t n_rows, cap = 0;
	const struct session_row *rows = session_rows(fp->s, &n_rows);

	for (size_t i = 0; i < n_rows; i++) {
		size_t k = 0;

		while (k < fp->n_units && fp->units[k] != rows[i].unit)
			k++;
		if (k < fp->n_units)
			continue;
		if (GROW(fp->units, cap, fp->n_units + 1) < 0)
			return -ENOMEM;
		fp->units[fp->n_units++] = rows[i].unit;
	}
	sort_session = fp->s;
	if (fp->n_units)
		qsort(fp->units, fp->n_units, sizeof(*fp->units), cmp_units);
	return 0;
}

/* Read recording PATH (its first event) into *fp. 0, or -errno with a sentence in why. */
static int read_file(struct push *p, const char *path, struct fileprof *fp, char *why,
		     size_t why_size)
{
	struct session_opts so = { .lines = true, /* pprof -list works on what is pushed */
				   .debuginfod = p->debuginfod,
				   .debuginfod_timeout = (int)p->debuginfod_timeout,
				   .warn = on_session_warn,
				   .warn_arg = p };
	size_t n_ev = 0;
	int rc;

	memset(fp, 0, sizeof(*fp));
	rc = session_file_bounds(path, &fp->bounds[0], &fp->bounds[1], why, why_size);
	if (rc < 0)
		return rc;
	/* The session keeps the filter's pointer: the name lives as long as fp. */
	if (session_list_events((const char *const *)&path, 1, &fp->ev, 1, &n_ev) == 0 && n_ev)
		so.filter.event = fp->ev.name;
	fp->s = session_new(&so);
	if (!fp->s) {
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	rc = session_add_file(fp->s, path, why, why_size);
	if (rc >= 0 && ((rc = session_finish(fp->s)) < 0 || (rc = list_units(fp)) < 0))
		snprintf(why, why_size, "out of memory");
	if (rc < 0) {
		fileprof_done(fp);
		return rc;
	}
	fp->samples = session_totals(fp->s)->samples;
	return 0;
}
/* Sleep SECS, or less when asked to stop. */
void push_pause(unsigned secs)
{
	struct timespec ts = { (time_t)secs, 0 };

	while (!push_stopping && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* POST unit K of FP until it is accepted (loop) or once (--once). 0 when sent, -1 when it
 * failed with --once or could not be encoded (said), 1 when push_stopping. */
static int send_unit(struct push *p, const char *name, struct fileprof *fp, size_t k, size_t *bytes)
{
	struct pprof_opts po = { fp->bounds[0], fp->bounds[1], true, fp->units[k] };
	const char *unit = session_unit(fp->s, fp->units[k]);
	uint8_t *buf = NULL;
	size_t len = 0;
	unsigned backoff = 1;
	char why[1024], shown[4096];

	if (pprof_encode(fp->s, &po, &buf, &len) < 0) {
		fprintf(stderr, PROG ": %s: out of memory while encoding\n", name);
		return -1;
	}
	while (http_post(p, buf, len, unit, fp->bounds[0], fp->bounds[1], why, sizeof(why)) < 0) {
		if (push_stopping) {
			free(buf);
			return 1;
		}
		fprintf(stderr, PROG ": %s: sending to %s failed: %s%s", name,
			http_url_shown(p->url, shown, sizeof(shown)), why, p->once ? "\n" : "");
		if (p->once) {
			free(buf);
			return -1;
		}
		fprintf(stderr, "; again in %u s\n", backoff);
		push_pause(backoff);
		if (push_stopping) {
			free(buf);
			return 1;
		}
		backoff = backoff * 2 > p->retry_max ? p->retry_max : backoff * 2;
	}
	free(buf);
	*bytes += len;
	return 0;
}

/* Send recording NAME, one series per unit, each until it is accepted (loop) or once
 * (--once); then it becomes the cursor. 0 when sent (or nothing to send), -1 when a send
 * failed with --once, CURSOR_BAD when the cursor cannot hold for it (said), 1 when
 * push_stopping. */
static int send_file(struct push *p, const char *name)
{
	char path[4096 + RECDIR_NAME_MAX + 1], why[512];
	struct fileprof fp;
	size_t bytes = 0, k = 0;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/%s", p->dir, name);
	if (read_file(p, path, &fp, why, sizeof(why)) < 0) {
		/* Retrying cannot mend a damaged file: said, and passed by. */
		fprintf(stderr, PROG ": %s: not sent: %s\n", path, why);
		return cursor_save(p, name) < 0 ? -1 : 0;
	}
	/* Units sent before a failure or a restart are not sent again. */
	if (strcmp(name, p->partial) == 0)
		k = p->partial_sent;
	if (k && k >= fp.n_units) { /* the cursor never says all were sent, or more */
		fprintf(stderr,
			PROG
			": the cursor %s says %zu units of %s were sent, but it has %zu: a damaged "
			"cursor (or a changed file). Correct or remove its second line\n",
			p->cursor_path, k, name, fp.n_units);
		fileprof_done(&fp);
		return CURSOR_BAD;
	}
	for (; fp.samples && k < fp.n_units && rc == 0; k++) {
		rc = send_unit(p, name, &fp, k, &bytes);
		if (rc == 0 && k + 1 < fp.n_units && cursor_save_units(p, name, (unsigned)k + 1) < 0)
			rc = -1;
	}
	if (rc == 0 && p->verbose)
		fprintf(stderr, PROG ": %s: %s (%llu samples, %zu bytes)\n", name,
			fp.samples ? "sent" : "no samples, nothing to send",
			(unsigned long long)fp.samples, bytes);
	fileprof_done(&fp);
	if (rc)
		return rc;
	return cursor_save(p, name) < 0 ? -1 : 0;
}

/* Send every closed file after the cursor. 0, -1 (a failure, said), CURSOR_BAD (said) or 1
 * (push_stopping). */
int push_pending(struct push *p)
{
	struct recdir_entry *v = NULL;
	size_t n = 0;
	int rc = 0;

	rc = cursor_pending(p, &v, &n);
	if (rc < 0)
		return rc == CURSOR_BAD ? rc : -1;
	if (!n && p->verbose)
		fprintf(stderr, PROG ": nothing closed after %s%s in %s\n",
			p->cursor[0] ? "the cursor's " : "", p->cursor[0] ? p->cursor : "the start",
			p->dir);
	for (size_t i = 0; i < n && rc == 0 && !push_stopping; i++)
		rc = send_file(p, v[i].name);
	free(v);
	return push_stopping ? 1 : rc;
}
