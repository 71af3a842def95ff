/* uhelper.h — the recorder's end of the unwind-table helper (helper/ringprof-unwind.c): a
 * child process without privileges, fed binaries as file descriptors over a SOCK_SEQPACKET
 * socket (lib/unwind/proto.h). Never blocks: requests wait in a queue while the socket is
 * full, replies are read when the socket is readable. Every reply is checked. */
#ifndef RP_UHELPER_H
#define RP_UHELPER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "capture/opener.h"

#define UHELPER_QUEUE 64 /* requests waiting or in flight, each holding an open fd */
/* Restarts: a helper that died is started again at once, UHELPER_BUDGET times within
 * UHELPER_BUDGET_NS; one more death pauses it until the oldest of those leaves the window
 * (requests wait meanwhile). It never gives up for good: a binary that kills it fails alone,
 * and one who keeps feeding such binaries gets a paused helper, which is logged, not silent. */
#define UHELPER_BUDGET 5
#define UHELPER_BUDGET_NS (60ull * 1000000000)
/* A request the helper works on for longer is taken as a hang (a file on a FUSE mount whose
 * daemon does not answer, a crafted binary): the helper is killed, and that request fails. */
#define UHELPER_DEADLINE_NS (30ull * 1000000000)

struct uhelper_req {
	uint32_t id;	  /* the caller's: an object index */
	uint32_t kind;	  /* enum uwp_kind */
	int fd;		  /* -1 while its file is being opened (job) */
	const char *name; /* the file's, said if the helper dies on it (the caller's, lasting) */
	int way;	  /* the way to the file it was opened by (procfs_open_mapped_from()) */
	struct opener_job *job;
};

struct uhelper {
	char path[4096 + 32];
	pid_t pid;			     /* 0: not running */
	struct opener *op;		     /* opens mapped files for uhelper_submit_file() */
	int sock;			     /* -1: not running */
	unsigned starts;		     /* how often it was started */
	struct uhelper_req q[UHELPER_QUEUE]; /* q[0..n_sent) sent, q[n_sent..n_q) waiting */
	size_t n_q, n_sent;
	uint64_t head_ns;		    /* since when it works on q[0] (when n_sent) */
	uint64_t deaths;		    /* how often it died or was killed, ever */
	uint64_t death_ns[UHELPER_BUDGET];  /* the last deaths, a ring indexed by deaths */
	uint64_t paused_until;		    /* not restarted before (0: not paused) */
	char last_death[400];		    /* how it died last, and on which file ("" before) */
	char why[256];			    /* why it is not running, when it is not */
	int (*script)(void *arg, int sock); /* tests: run in the child instead of the program */
	void *script_arg;
};

/* A reply: on status 0, buf (malloc'd, size bytes) is the table as received, unchecked (a
 * table request, or a build-id request with symbols when sym_status is 0), and build_id the
 * binary's (always there for a build-id request). */
struct uhelper_reply {
	uint32_t id;
	uint32_t kind; /* the request's */
	int status;
	int sym_status; /* UWP_BUILD_ID_SYMS: 0 (buf holds the symbols) or -errno */
	uint8_t build_id_len;
	uint8_t build_id[20];
	int way;	    /* the way its file was opened by (uhelper_submit_file()) */
	uint8_t digest_len; /* UWP_DIGEST_LEN, or 0 when the helper could not compute it */
	uint8_t digest[16]; /* what the file holds (lib/elf/elfdigest.h) */
	void *buf;
	size_t size;
	void *sym_buf; /* UWP_TABLE_SYMS with sym_status 0: the symbols (malloc'd), else NULL */
	size_t sym_size;
	uint64_t build_ns;
	char why[160];
};

/* Find the helper program (next to this executable, else RP_PKGLIBEXECDIR) and start it.
 * 0, or -errno with why (the recorder then records without user unwinding). */
int uhelper_start(struct uhelper *h, char *why, size_t why_size);
/* For tests of its users: the child runs script(arg, sock) and exits with what it returns,
 * instead of the helper program (each restart forks it again). */
int uhelper_start_scripted(struct uhelper *h, int (*script)(void *arg, int sock), void *arg,
			   char *why, size_t why_size);
void uhelper_done(struct uhelper *h);
/* The socket to wait on for replies (-1 when not running); a new one after a restart. */
int uhelper_fd(const struct uhelper *h);
/* Running, or paused after too many deaths (it will run again): requests are taken. */
bool uhelper_alive(const struct uhelper *h);

/* Queue fd (taken over: closed once sent or dropped) for object id, asking for KIND (enum
 * uwp_kind); NAME names the file should the helper die on it. -EAGAIN when the queue is full (fd
 * not taken), -EPIPE when the helper could not be started. While it is paused, requests wait. */
int uhelper_submit(struct uhelper *h, uint32_t id, uint32_t kind, int fd, const char *name);
/* The same for a mapped file, opened by a worker thread (capture/opener.h), never by the
 * caller's: a file that cannot be opened (or whose open hangs) comes back as a failed reply
 * (status -errno, why says what). */
int uhelper_submit_file(struct uhelper *h, uint32_t id, uint32_t kind, const struct opener_file *f);
/* Send what waits, read one reply if there is one. 1 and *ret (ret->buf is the caller's to
 * free), 0 when nothing is there. When the helper died (or worked on one request for longer
 * than UHELPER_DEADLINE_NS), the request it was working on comes back as a failed reply
 * naming the cause (status -ECHILD), the helper is started again (or paused: see
 * UHELPER_BUDGET) and the other requests are sent again. */
int uhelper_poll(struct uhelper *h, struct uhelper_reply *ret);
/* Requests queued or in flight. */
size_t uhelper_busy(const struct uhelper *h);

#endif
