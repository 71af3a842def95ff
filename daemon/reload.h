/* reload.h — synchronous reload: `ringprofd --reload PID` asks the daemon and waits for its answer. */
#ifndef RP_DAEMON_RELOAD_H
#define RP_DAEMON_RELOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/signalfd.h>
#include <sys/types.h>

/* The protocol. The requester makes a pipe and sends SIGHUP with sigqueue(3), the value
 * carrying a magic number and the pipe's write end as a descriptor number of its own. The
 * daemon reloads, opens that descriptor through /proc/PID/fd/N and writes one line: "0" when
 * the new configuration is in force, or "ERRNO REASON" when it was rejected and the running
 * one kept. Signals carry no text, and systemd 252 ends a reload job when ExecReload= exits:
 * the line is what makes `systemctl reload` wait and say why it failed. Only signals and
 * /proc are used, both of which the unit's seccomp filter and sandbox allow. A plain SIGHUP
 * (kill -HUP) still reloads, without an answer. */

/* Ask the daemon PID to reload and wait up to TIMEOUT_MS for its answer. 0 when the new
 * configuration is in force; -errno with a sentence in WHY when it was rejected (the
 * daemon's reason), when PID is not a ringprofd that answers, or on timeout. */
int reload_request(pid_t pid, int timeout_ms, char *why, size_t why_size);

/* Who is waiting for the answer to a SIGHUP read from a signalfd. */
struct reload_waiter {
	pid_t pid; /* 0: nobody (a plain SIGHUP) */
	int fd;	   /* the requester's descriptor number */
};

/* The waiter of SI, or pid 0 when SI is not a request made by reload_request(). */
struct reload_waiter reload_waiter_of(const struct signalfd_siginfo *si);

/* Answer W: ERR 0 (in force) or -errno with the reason WHY. Returns 0 or -errno (the
 * requester has gone away, for example); a failure changes nothing in the daemon. */
int reload_answer(const struct reload_waiter *w, int err, const char *why);

#endif
