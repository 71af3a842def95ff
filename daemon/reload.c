/* reload.c — synchronous reload: `ringprofd --reload PID` asks the daemon and waits for its answer. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reload.h"
#include "base/util.h"

/* "RP" in the upper half of the signal's value; the lower half is the descriptor number. */
#define RELOAD_MAGIC 0x52500000
#define RELOAD_MAGIC_MASK 0xffff0000
#define RELOAD_FD_MASK 0x0000ffff
#define ANSWER_MAX 1024

/* The answer line: "0" or "ERRNO REASON". */
static int parse_answer(const char *line, char *why, size_t why_size)
{
	char *end;
	long e = strtol(line, &end, 10);

	if (end == line || e < 0 || e > 4095) {
		snprintf(why, why_size, "the daemon's answer is not understood: '%s'", line);
		return -EPROTO;
	}
	if (e == 0)
		return 0;
	while (*end == ' ')
		end++;
	snprintf(why, why_size, "the reload was rejected and the running configuration kept: %s",
		 *end ? end : strerror((int)e));
	return -(int)e;
}

/* Read one line from FD until DEADLINE (monotonic ns), watching that PID still runs: a
 * daemon that dies while reloading never answers. */
static int wait_answer(int fd, pid_t pid, uint64_t deadline, char *buf, size_t size)
{
	size_t n = 0;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t now = util_now_ns();
		ssize_t got;
		int r;

		if (now >= deadline)
			return -ETIMEDOUT;
		r = poll(&p, 1, 200);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r <= 0) {
			if (kill(pid, 0) < 0 && errno == ESRCH)
				return -ESRCH;
			continue;
		}
		got = read(fd, buf + n, size - 1 - n);
		if (got <= 0)
			return got < 0 ? -errno : -EPIPE;
		n += (size_t)got;
		buf[n] = '\0';
		if (memchr(buf, '\n', n) || n == size - 1) {
			buf[strcspn(buf, "\n")] = '\0';
			return 0;
		}
	}
}

int reload_request(pid_t pid, int timeout_ms, char *why, size_t why_size)
{
	char line[ANSWER_MAX];
	union sigval v;
	int p[2], r;

	if (pid <= 0) {
		snprintf(why, why_size, "'%d' is not a process id", (int)pid);
		return -EINVAL;
	}
	if (pipe2(p, O_CLOEXEC) < 0) {
		r = -errno;
		snprintf(why, why_size, "pipe: %s", strerror(-r));
		return r;
	}
	if (p[1] > RELOAD_FD_MASK) {
		snprintf(why, why_size, "too many open files to make the request");
		r = -EMFILE;
		goto out;
	}
	v.sival_int = RELOAD_MAGIC | p[1];
	if (sigqueue(pid, SIGHUP, v) < 0) {
		r = -errno;
		snprintf(why, why_size, "cannot signal process %d: %s", (int)pid, strerror(-r));
		goto out;
	}
	r = wait_answer(p[0], pid, util_now_ns() + (uint64_t)timeout_ms * 1000000ull, line,
			sizeof(line));
	if (r == -ETIMEDOUT)
		snprintf(why, why_size, "process %d did not answer within %d s; is it ringprofd?",
			 (int)pid, timeout_ms / 1000);
	else if (r == -ESRCH)
		snprintf(why, why_size, "process %d exited before answering", (int)pid);
	else if (r < 0)
		snprintf(why, why_size, "reading the answer of process %d: %s", (int)pid,
			 strerror(-r));
	else
		r = parse_answer(line, why, why_size);
out:
	close(p[0]);
	close(p[1]);
	return r;
}

struct reload_waiter reload_waiter_of(const struct signalfd_siginfo *si)
{
	struct reload_waiter w = { 0, -1 };
	uint32_t v = (uint32_t)si->ssi_int;

	if (si->ssi_signo != SIGHUP || si->ssi_code != SI_QUEUE || si->ssi_pid == 0 ||
	    (v & RELOAD_MAGIC_MASK) != RELOAD_MAGIC)
		return w;
	w.pid = (pid_t)si->ssi_pid;
	w.fd = (int)(v & RELOAD_FD_MASK);
	return w;
}

int reload_answer(const struct reload_waiter *w, int err, const char *why)
{
	char path[64], line[ANSWER_MAX];
	struct stat st;
	int fd, n, r = 0;

	if (w->pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)w->pid, w->fd);
	/* O_NONBLOCK: a descriptor that is not the requester's pipe must never block the
	 * daemon; only a FIFO is written to. */
	fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (err)
		n = snprintf(line, sizeof(line), "%d %s\n", -err, why && *why ? why : "");
	else
		n = snprintf(line, sizeof(line), "0\n");
	if (n >= (int)sizeof(line)) {
		n = (int)sizeof(line);
		line[n - 1] = '\n';
	}
	errno = 0;
	if (fstat(fd, &st) < 0 || !S_ISFIFO(st.st_mode))
		r = -EBADF;
	else if (write(fd, line, (size_t)n) != n)
		r = errno ? -errno : -EIO;
	close(fd);
	return r;
}
