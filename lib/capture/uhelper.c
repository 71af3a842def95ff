/* uhelper.c — the recorder's end of the unwind-table helper (see uhelper.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "capture/uhelper.h"
#include "unwind/proto.h"

#ifndef RP_PKGLIBEXECDIR
#define RP_PKGLIBEXECDIR "/usr/local/libexec/ringprof"
#endif

static int find_helper(struct uhelper *h)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			snprintf(h->path, sizeof(h->path), "%s/ringprof-unwind", self);
			if (access(h->path, X_OK) == 0)
				return 0;
		}
	}
	snprintf(h->path, sizeof(h->path), "%s/ringprof-unwind", RP_PKGLIBEXECDIR);
	return access(h->path, X_OK) == 0 ? 0 : -ENOENT;
}

/* The child: only the socket survives exec (as fd 3). Nor do the recorder's ambient
 * capabilities (ringprofd's unit grants its five that way to a non-root user): the helper
 * starts with none, and as that user it cannot change its ids, so it keeps its own system
 * call filter only (see helper/ringprof-unwind.c). Root keeps root's capabilities across
 * exec whatever the ambient set; the helper drops those itself. */
static void exec_child(struct uhelper *h, int sock)
{
	char *argv[] = { h->path, "--fd", "3", NULL };

	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);

	if (sock != 3) {
		if (dup2(sock, 3) < 0)
			_exit(127);
	} else {
		fcntl(3, F_SETFD, 0);
	}
	execv(h->path, argv);
	_exit(127);
}

static int spawn(struct uhelper *h, char *why, size_t why_size)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		snprintf(why, why_size, "socketpair: %s", strerror(errno));
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(sv[0]);
		close(sv[1]);
		snprintf(why, why_size, "cannot start %s: fork: %s", h->path, strerror(e));
		return -e;
	}
	if (pid == 0 && h->script)
		_exit(h->script(h->script_arg, sv[1]));
	if (pid == 0)
		exec_child(h, sv[1]);
	close(sv[1]);
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	h->sock = sv[0];
	h->pid = pid;
	h->starts++;
	h->n_sent = 0;
	return 0;
}

int uhelper_start_scripted(struct uhelper *h, int (*script)(void *arg, int sock), void *arg,
			   char *why, size_t why_size)
{
	int rc;

	memset(h, 0, sizeof(*h));
	h->sock = -1;
	h->script = script;
	h->script_arg = arg;
	snprintf(h->path, sizeof(h->path), "a scripted helper");
	h->op = opener_new();
	if (!h->op) {
		snprintf(why, why_size, "cannot start a thread to open mapped files");
		return -ENOMEM;
	}
	rc = spawn(h, why, why_size);
	if (rc < 0) {
		opener_free(h->op);
		h->op = NULL;
	}
	return rc;
}

int uhelper_start(struct uhelper *h, char *why, size_t why_size)
{
	int rc;

	memset(h, 0, sizeof(*h));
	h->sock = -1;
	if (find_helper(h) < 0) {
		snprintf(why, why_size,
			 "the unwind-table helper ringprof-unwind is neither next to this program nor in %s",
			 RP_PKGLIBEXECDIR);
		util_strlcpy(h->why, why, sizeof(h->why));
		return -ENOENT;
	}
	h->op = opener_new();
	if (!h->op) {
		snprintf(why, why_size, "cannot start a thread to open mapped files");
		util_strlcpy(h->why, why, sizeof(h->why));
		return -ENOMEM;
	}
	rc = spawn(h, why, why_size);
	if (rc < 0) {
		opener_free(h->op);
		h->op = NULL;
	}
	return rc;
}

static void stop_child(struct uhelper *h)
{
	if (h->sock >= 0)
		close(h->sock);
	h->sock = -1;
	if (h->pid > 0) {
		kill(h->pid, SIGKILL);
		waitpid(h->pid, NULL, 0);
	}
	h->pid = 0;
}

/* Forget the queued requests (their files closed, their opens dropped). */
static void drop_queue(struct uhelper *h)
{
	for (size_t i = 0; i < h->n_q; i++) {
		if (h->q[i].fd >= 0)
			close(h->q[i].fd);
		opener_drop(h->op, h->q[i].job);
	}
	h->n_q = h->n_sent = 0;
}

void uhelper_done(struct uhelper *h)
{
	stop_child(h);
	drop_queue(h);
	opener_free(h->op);
	h->op = NULL;
}

int uhelper_fd(const struct uhelper *h)
{
	return h->sock;
}

bool uhelper_alive(const struct uhelper *h)
{
	return h->sock >= 0 || h->paused_until;
}

size_t uhelper_busy(const struct uhelper *h)
{
	return h->n_q;
}

int uhelper_submit(struct uhelper *h, uint32_t id, uint32_t kind, int fd, const char *name)
{
	if (!uhelper_alive(h))
		return -EPIPE;
	if (h->n_q == UHELPER_QUEUE)
		return -EAGAIN;
	h->q[h->n_q++] = (struct uhelper_req){ .id = id, .kind = kind, .fd = fd, .name = name };
	return 0;
}

/* How long a new request waits for its file's open, so that the common case (an open takes
 * microseconds) is sent at once, not one drain pass later. */
#define OPEN_WAIT_NS (2ull * 1000000)

static int send_waiting(struct uhelper *h);

int uhelper_submit_file(struct uhelper *h, uint32_t id, uint32_t kind, const struct opener_file *f)
{
	struct uhelper_req *r;
	struct opener_job *job;
	char why[160];
	int fd, way;

	if (!uhelper_alive(h))
		return -EPIPE;
	if (h->n_q == UHELPER_QUEUE)
		return -EAGAIN;
	job = opener_start(h->op, f);
	if (!job)
		return -ENOMEM;
	r = &h->q[h->n_q++];
	*r = (struct uhelper_req){ id, kind, -1, f->path, f->way, job };
	if (opener_result(h->op, r->job, OPEN_WAIT_NS, &fd, &way, why, sizeof(why)) == 1 &&
	    fd >= 0) {
		opener_drop(h->op, r->job);
		r->job = NULL;
		r->fd = fd;
		r->way = way;
		if (h->sock >= 0)
			send_waiting(h); /* a failure is seen by the next uhelper_poll() */
	}
	return 0;
}

/* A waiting request whose file could not be opened: taken out of the queue, as a failed
 * reply. One whose file opened takes its descriptor. 1 and *ret, else 0. */
static int take_opened(struct uhelper *h, struct uhelper_reply *ret)
{
	for (size_t i = h->n_sent; i < h->n_q; i++) {
		struct uhelper_req *r = &h->q[i];
		char why[160];
		int fd, way;

		if (!r->job || opener_result(h->op, r->job, 0, &fd, &way, why, sizeof(why)) == 0)
			continue;
		opener_drop(h->op, r->job);
		r->job = NULL;
		r->way = way;
		if (fd >= 0) {
			r->fd = fd;
			continue;
		}
		memset(ret, 0, sizeof(*ret));
		ret->id = r->id;
		ret->kind = r->kind;
		ret->status = fd;
		ret->way = way;
		util_strlcpy(ret->why, why, sizeof(ret->why));
		memmove(r, r + 1, (h->n_q - i - 1) * sizeof(*r));
		h->n_q--;
		return 1;
	}
	return 0;
}

/* Send waiting requests until the socket is full. -EPIPE when the helper is gone. */
static int send_waiting(struct uhelper *h)
{
	while (h->n_sent < h->n_q) {
		struct uhelper_req *r = &h->q[h->n_sent];
		struct uwp_request m = { UWP_MAGIC, r->id, r->kind, 0 };

		if (r->fd < 0)
			return 0; /* still opening: requests go in order */
		if (uwp_send(h->sock, &m, sizeof(m), r->fd, MSG_DONTWAIT) < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -EPIPE;
		if (h->n_sent++ == 0)
			h->head_ns = util_now_ns();
	}
	return 0;
}

/* The request at the head is answered: drop it. */
static void pop_head(struct uhelper *h)
{
	close(h->q[0].fd);
	memmove(&h->q[0], &h->q[1], (h->n_q - 1) * sizeof(h->q[0]));
	h->n_q--;
	h->n_sent--;
	h->head_ns = util_now_ns(); /* the next one sent is what it works on now */
}

/* The table from the memfd of a good reply: at most max bytes, read by size. */
static int read_part(int fd, uint64_t at, uint64_t size, uint64_t max, void **ret_buf,
		     size_t *ret_size)
{
	struct stat st;
	size_t got = 0;
	char *buf;

	if (size == 0 || size > max || fstat(fd, &st) < 0 || (uint64_t)st.st_size < at ||
	    (uint64_t)st.st_size - at < size)
		return -EINVAL;
	buf = malloc(size);
	if (!buf)
		return -ENOMEM;
	while (got < size) {
		ssize_t n = pread(fd, buf + got, size - got, (off_t)(at + got));

		if (n <= 0) {
			free(buf);
			return -EIO;
		}
		got += (size_t)n;
	}
	*ret_buf = buf;
	*ret_size = size;
	return 0;
}

static int read_table(int fd, uint64_t size, uint64_t max, struct uhelper_reply *ret)
{
	return read_part(fd, 0, size, max, &ret->buf, &ret->size);
}

/* Receive one reply into ret: 1, 0 (none yet), or -EPIPE (the helper is gone). */
static int recv_reply(struct uhelper *h, struct uhelper_reply *ret)
{
	struct uwp_reply m;
	int fd, rc;
	bool trunc;
	ssize_t n = uwp_recv(h->sock, &m, sizeof(m), MSG_DONTWAIT, &fd, &trunc);

	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (n <= 0) {
		if (fd >= 0)
			close(fd);
		return -EPIPE; /* EOF, or ECONNRESET when it died with requests unread */
	}
	/* Replies come in request order; anything else is a broken helper. */
	if ((size_t)n != sizeof(m) || trunc || m.magic != UWP_MAGIC || !h->n_sent ||
	    m.id != h->q[0].id) {
		if (fd >= 0)
			close(fd);
		return -EPIPE;
	}
	memset(ret, 0, sizeof(*ret));
	ret->id = m.id;
	ret->kind = h->q[0].kind;
	ret->way = h->q[0].way;
	ret->status = m.status > 0 ? -EINVAL : m.status;
	ret->build_ns = m.build_ns;
	m.why[sizeof(m.why) - 1] = '\0';
	util_strlcpy(ret->why, m.why, sizeof(ret->why));
	if (m.digest_len == UWP_DIGEST_LEN) {
		ret->digest_len = UWP_DIGEST_LEN;
		memcpy(ret->digest, m.digest, UWP_DIGEST_LEN);
	}
	if (ret->status == 0 && m.build_id_len <= sizeof(ret->build_id)) {
		ret->build_id_len = m.build_id_len;
		memcpy(ret->build_id, m.build_id, m.build_id_len);
	}
	if (ret->status == 0 && (ret->kind == UWP_BUILD_ID || ret->kind == UWP_BUILD_ID_SYMS)) {
		if (!ret->build_id_len) {
			ret->status = -EINVAL;
			snprintf(ret->why, sizeof(ret->why), "the helper sent no build-id");
		} else if (ret->kind == UWP_BUILD_ID_SYMS) {
			ret->sym_status = m.sym_status > 0 ? -EINVAL : m.sym_status;
			if (ret->sym_status == 0)
				ret->sym_status =
				    fd >= 0 ? read_table(fd, m.size, UWP_MAX_SYMTAB, ret) : -EINVAL;
		}
	} else if (ret->status == 0) {
		rc = fd >= 0 ? read_table(fd, m.size, UWP_MAX_TABLE, ret) : -EINVAL;
		if (rc < 0) {
			ret->status = rc;
			snprintf(ret->why, sizeof(ret->why), "the helper's table could not be read");
		} else if (ret->kind == UWP_TABLE_SYMS) {
			/* The symbols after the table, when it sent any. */
			ret->sym_status = m.sym_status > 0 ? -EINVAL : m.sym_status;
			if (ret->sym_status == 0)
				ret->sym_status = read_part(fd, m.size, m.sym_size, UWP_MAX_SYMTAB,
							    &ret->sym_buf, &ret->sym_size);
		}
	} else if (!ret->why[0]) {
		snprintf(ret->why, sizeof(ret->why), "%s", strerror(-ret->status));
	}
	if (fd >= 0)
		close(fd);
	pop_head(h);
	return 1;
}

/* A death at now, on the file named NAME (NULL: on none): paused (true) when it is the
 * budget's one too many. */
static bool count_death(struct uhelper *h, uint64_t now, const char *how, const char *name,
			uint32_t kind)
{
	uint64_t oldest = h->death_ns[h->deaths % UHELPER_BUDGET];

	if (name)
		snprintf(h->last_death, sizeof(h->last_death),
			 "%s while reading %s, which goes without %s", how, name,
			 kind == UWP_TABLE ? "a table" : "a build-id");
	else
		util_strlcpy(h->last_death, how, sizeof(h->last_death));
	h->death_ns[h->deaths % UHELPER_BUDGET] = now;
	h->deaths++;
	if (h->deaths <= UHELPER_BUDGET || now - oldest >= UHELPER_BUDGET_NS)
		return false;
	h->paused_until = oldest + UHELPER_BUDGET_NS;
	snprintf(h->why, sizeof(h->why),
		 "the helper died %u times within %llu s: paused for %llu s", UHELPER_BUDGET + 1,
		 UHELPER_BUDGET_NS / 1000000000,
		 (unsigned long long)((h->paused_until - now + 999999999) / 1000000000));
	return true;
}

/* How it ended, from its wait status (0: still running when it was killed for a hang). */
static void describe_end(char *buf, size_t size, int status, bool hung)
{
	if (hung)
		snprintf(buf, size, "worked on one file for over %llu s and was stopped",
			 UHELPER_DEADLINE_NS / 1000000000);
	else if (WIFSIGNALED(status))
		snprintf(buf, size, "died of signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else if (WIFEXITED(status))
		snprintf(buf, size, "exited with status %d", WEXITSTATUS(status));
	else
		snprintf(buf, size, "stopped answering");
}

/* The helper died, broke the protocol or hung: the request it was on fails, the others are
 * sent again to a new helper (or wait while it is paused). */
static int restart(struct uhelper *h, struct uhelper_reply *ret, bool hung)
{
	uint64_t now = util_now_ns();
	int status = 0, rc = 0;
	char why[256];

	/* Its end of the socket closes before it can be reaped: give it a moment to be. */
	for (int i = 0; h->pid > 0 && !hung && i < 20; i++) {
		if (waitpid(h->pid, &status, WNOHANG) == h->pid)
			h->pid = 0;
		else
			usleep(5000);
	}
	const char *on = NULL;
	uint32_t kind = 0;

	stop_child(h);
	describe_end(why, sizeof(why), status, hung);
	if (h->n_sent) {
		/* It died on the first request it had: that binary goes without a table. */
		on = h->q[0].name ? h->q[0].name : "an unnamed file";
		kind = h->q[0].kind;
		memset(ret, 0, sizeof(*ret));
		ret->id = h->q[0].id;
		ret->kind = h->q[0].kind;
		ret->way = h->q[0].way;
		ret->status = -ECHILD;
		snprintf(ret->why, sizeof(ret->why), "the helper %.140s on it", why);
		h->n_sent = 1;
		pop_head(h);
		rc = 1;
	}
	h->n_sent = 0; /* the others go to the next helper */
	if (!count_death(h, now, why, on, kind) && spawn(h, why, sizeof(why)) < 0) {
		util_strlcpy(h->why, why, sizeof(h->why));
		drop_queue(h);
	}
	return rc;
}

int uhelper_poll(struct uhelper *h, struct uhelper_reply *ret)
{
	char why[256];
	int rc;

	if (h->paused_until && util_now_ns() >= h->paused_until) {
		h->paused_until = 0;
		if (spawn(h, why, sizeof(why)) < 0) {
			util_strlcpy(h->why, why, sizeof(h->why));
			drop_queue(h);
		}
	}
	if (take_opened(h, ret))
		return 1;
	if (h->sock < 0)
		return 0;
	rc = send_waiting(h);
	if (rc == 0)
		rc = recv_reply(h, ret);
	if (rc == 1 || rc == 0) {
		if (rc == 1)
			send_waiting(h);
		else if (h->n_sent && util_now_ns() - h->head_ns > UHELPER_DEADLINE_NS)
			return restart(h, ret, true);
		return rc;
	}
	return restart(h, ret, false);
}
