/* recorder.c — opening per-CPU events with perf's fallbacks, and the drain loop. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "compact.h"
#include "cpulist.h"
#include "evsel.h"
#include "format.h"
#include "procfs.h"
#include "recorder.h"
#include "ring.h"
#include "synth.h"
#include "util.h"
#include "writer.h"

#define MAX_CPUS 4096
#define MAX_NOTES 8
/* Records younger than this may still be in flight into a ring when it is drained. */
#define ORDER_MARGIN_NS (10 * 1000 * 1000ull)
/* The stack table's bounds (per file): ids are reused from 0 when it fills. Pages are
 * touched only as it grows: 64 k stacks of up to 1 M words is 8 MiB + 1.5 MiB at most. */
#define STACKS_MAX (64u * 1024u)
#define STACK_WORDS_MAX (1024u * 1024u)

/* Counters since the events were opened. */
struct counts {
	uint64_t samples, lost, throttles, unthrottles;
	uint64_t lost_read; /* PERF_FORMAT_LOST summed over this CPU's events, when last read */
	uint64_t bad;
};

struct rcpu {
	int cpu;
	int fd;           /* owner of the ring; other events on this CPU SET_OUTPUT into it */
	struct ring ring;
	struct counts n;
	struct counts file0; /* the counters when the current file began */
	struct sbatch *batch; /* samples being packed (format 2), written at the end of each drain */
};

struct recorder {
	struct recorder_opts o;
	struct perf_event_attr attr;
	struct evsel_def ev;
	char event_name[64];
	uint64_t freq_requested;
	bool kernel;
	bool build_id;
	bool format_lost;
	struct rcpu *cpus;
	size_t n_cpus;
	int *fds;          /* every event fd, cpu-major */
	int *fd_cpu;       /* index into cpus for each fd */
	size_t n_fds, cap_fds;
	int epfd;
	struct writer *w;
	uint64_t t_first;   /* when recording began */
	uint64_t t_start;   /* when the current file began */
	uint64_t t_stop;
	uint64_t flush_ns;
	uint64_t restack_ns;
	uint64_t t_restack;  /* when stacks and kernel symbols were last forgotten */
	char notes[MAX_NOTES][256];
	size_t n_notes;
	struct synth_ksyms ksyms;
	struct stacktab *stacks;  /* NULL: samples are stored as the kernel wrote them */
	struct kbatch *kb;        /* stack definitions not written yet */
	uint64_t frames_dropped;  /* writer's dropped_frames when last looked at */
	/* Kernel symbols written to the current file as new stacks need them (with stacks). */
	uint8_t *ksym_done;       /* per symbol of ksyms: written, or pending */
	uint32_t *ksym_pend;      /* symbols to write before the next batch */
	size_t n_pend;
	uint64_t pend_time;       /* time of the sample that first needed a pending one */
};

static void note(struct recorder *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct recorder *r, const char *fmt, ...)
{
	va_list ap;

	if (r->n_notes >= MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(r->notes[r->n_notes++], sizeof(r->notes[0]), fmt, ap);
	va_end(ap);
}

static long read_sysctl(const char *name, long dflt)
{
	char path[128];
	long v;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	return procfs_read_int(path, &v) == 0 ? v : dflt;
}

static bool have_privileges(void)
{
	/* Root, or a paranoid level that allows CPU-wide events to everyone. The
	 * capability check proper is the kernel's; we only choose defaults here. */
	return geteuid() == 0 || read_sysctl("perf_event_paranoid", 2) < 1;
}

static void build_attr(struct recorder *r)
{
	struct perf_event_attr *a = &r->attr;
	uint64_t ring_bytes = (uint64_t)r->o.ring_pages * (uint64_t)sysconf(_SC_PAGESIZE);

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = r->ev.type;
	a->config = r->ev.config;
	if (r->o.freq) {
		a->freq = 1;
		a->sample_freq = r->o.freq;
	} else {
		a->sample_period = r->o.period;
	}
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			 PERF_SAMPLE_PERIOD;
	if (r->o.callchain)
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	a->read_format = PERF_FORMAT_ID | (r->format_lost ? PERF_FORMAT_LOST : 0);
	a->disabled = 1;
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->sample_id_all = 1;
	a->build_id = r->build_id;
	a->context_switch = r->o.switch_events;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(ring_bytes / 4);
	a->exclude_kernel = !r->kernel;
	a->exclude_hv = 1;
	a->exclude_callchain_kernel = !r->kernel;
	a->inherit = r->o.target != RECORDER_SYSTEM;
	a->enable_on_exec = r->o.target == RECORDER_COMMAND;
}

static int add_fd(struct recorder *r, int fd, size_t cpu_idx)
{
	if (r->n_fds == r->cap_fds) {
		size_t cap = r->cap_fds ? r->cap_fds * 2 : 64;
		int *f = realloc(r->fds, cap * sizeof(int));
		int *c;

		if (!f)
			return -ENOMEM;
		r->fds = f;
		c = realloc(r->fd_cpu, cap * sizeof(int));
		if (!c)
			return -ENOMEM;
		r->fd_cpu = c;
		r->cap_fds = cap;
	}
	r->fds[r->n_fds] = fd;
	r->fd_cpu[r->n_fds] = (int)cpu_idx;
	r->n_fds++;
	return 0;
}

static const char *target_desc(const struct recorder *r)
{
	return r->o.target == RECORDER_SYSTEM ? "system-wide recording" : "recording that process";
}

/* Turn a failure of the first perf_event_open into advice. */
static void explain(struct recorder *r, int err, int cpu, char *buf, size_t n)
{
	long paranoid = read_sysctl("perf_event_paranoid", 2);

	switch (-err) {
	case EACCES:
	case EPERM:
		if (r->o.target == RECORDER_SYSTEM)
			snprintf(buf, n,
				 "permission denied for %s: kernel.perf_event_paranoid is %ld and this process lacks "
				 "CAP_PERFMON (or CAP_SYS_ADMIN). Run as root, grant CAP_PERFMON, or lower the sysctl "
				 "(sysctl kernel.perf_event_paranoid=0); without privileges you can still profile your "
				 "own programs: ringprof record -- CMD, or -p PID",
				 target_desc(r), paranoid);
		else
			snprintf(buf, n,
				 "permission denied attaching to the process: it belongs to another user or "
				 "kernel.perf_event_paranoid is %ld%s; run as that user, as root, or with CAP_PERFMON",
				 paranoid, paranoid > 2 ? " (perf events are disabled for unprivileged users)" : "");
		break;
	case EMFILE:
	case ENFILE:
		snprintf(buf, n,
			 "too many open files: one event per CPU%s is needed; raise the limit (ulimit -n) or "
			 "record fewer CPUs with -C",
			 r->o.target == RECORDER_PIDS ? " and thread" : "");
		break;
	case ESRCH:
		snprintf(buf, n, "no such process (it exited before recording began)");
		break;
	case ENODEV:
		snprintf(buf, n, "CPU %d is not online (see /sys/devices/system/cpu/online); choose CPUs with -C", cpu);
		break;
	case EINVAL:
		snprintf(buf, n,
			 "the kernel rejected the event settings (EINVAL) on CPU %d; the frequency may exceed "
			 "kernel.perf_event_max_sample_rate (%ld) or the kernel is too old (ringprof needs 4.3 or later)",
			 cpu, read_sysctl("perf_event_max_sample_rate", 0));
		break;
	default:
		if (evsel_is_unsupported(err))
			snprintf(buf, n, "event '%s' is not supported on this machine (%s); try -e cpu-clock",
				 r->event_name, strerror(-err));
		else
			snprintf(buf, n, "perf_event_open failed on CPU %d: %s", cpu, strerror(-err));
	}
}

/* The first open decides the attr: each failure that perf knows how to work around is
 * worked around once, with a note, and the open is tried again. */
static int open_probe(struct recorder *r, pid_t pid, int cpu, char *err, size_t err_size)
{
	for (;;) {
		int fd = evsel_open(&r->attr, pid, cpu, -1);

		if (fd >= 0)
			return fd;
		if (evsel_is_unsupported(fd) && !r->o.event && r->ev.type == PERF_TYPE_HARDWARE) {
			note(r, "no hardware PMU for 'cycles' (%s): sampling on cpu-clock instead", strerror(-fd));
			evsel_lookup("cpu-clock", &r->ev);
			util_strlcpy(r->event_name, r->ev.name, sizeof(r->event_name));
		} else if ((fd == -EACCES || fd == -EPERM) && r->kernel && r->o.target != RECORDER_SYSTEM) {
			note(r, "kernel.perf_event_paranoid is %ld and no CAP_PERFMON: recording user space only, "
				"without kernel samples", read_sysctl("perf_event_paranoid", 2));
			r->kernel = false;
		} else if (fd == -EINVAL) {
			long max = read_sysctl("perf_event_max_sample_rate", 0);

			if (r->o.freq && max > 0 && (uint64_t)max < r->o.freq) {
				note(r, "kernel.perf_event_max_sample_rate dropped to %ld Hz; sampling at that rate", max);
				r->o.freq = (uint64_t)max;
			} else if (r->build_id) {
				r->build_id = false; /* pre-5.12 kernel: MMAP2 carries maj/min/ino only */
				note(r, "kernel does not put build-ids in MMAP2 records; inode numbers are recorded instead");
			} else if (r->format_lost) {
				r->format_lost = false; /* pre-6.0 kernel: LOST records are the only loss count */
			} else {
				explain(r, fd, cpu, err, err_size);
				return fd;
			}
		} else {
			explain(r, fd, cpu, err, err_size);
			return fd;
		}
		build_attr(r);
	}
}

static int open_one(struct recorder *r, pid_t pid, size_t ci, char *err, size_t err_size)
{
	struct rcpu *c = &r->cpus[ci];
	int fd, e;

	fd = r->n_fds == 0 ? open_probe(r, pid, c->cpu, err, err_size) : evsel_open(&r->attr, pid, c->cpu, -1);
	if (fd < 0) {
		if (fd == -ESRCH && r->o.target == RECORDER_PIDS && r->n_fds)
			return 0; /* a thread ended while we attached */
		if (r->n_fds)
			explain(r, fd, c->cpu, err, err_size);
		return fd;
	}
	e = add_fd(r, fd, ci);
	if (e < 0) {
		close(fd);
		snprintf(err, err_size, "out of memory");
		return e;
	}
	if (c->fd < 0) {
		c->fd = fd;
		for (;;) {
			e = ring_mmap(&c->ring, fd, r->o.ring_pages);
			if (e == 0)
				break;
			if (e == -EPERM && r->o.ring_pages > 8) {
				/* Over the locked-memory allowance (perf_event_mlock_kb); halve and retry. */
				r->o.ring_pages /= 2;
				continue;
			}
			snprintf(err, err_size,
				 "cannot map the ring buffer of CPU %d (%u pages): %s%s", c->cpu, r->o.ring_pages,
				 strerror(-e),
				 e == -EPERM ? "; the locked-memory limit is exhausted (kernel.perf_event_mlock_kb, "
					       "ulimit -l) — use a smaller -m or run with CAP_IPC_LOCK"
					     : "");
			return e;
		}
	} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, c->fd) < 0) {
		e = -errno;
		snprintf(err, err_size, "cannot share the ring of CPU %d: %s", c->cpu, strerror(errno));
		return e;
	}
	return 0;
}

struct tid_ctx {
	struct recorder *r;
	char *err;
	size_t err_size;
	int rc;
};

static int on_target_tid(int tid, void *arg)
{
	struct tid_ctx *t = arg;

	for (size_t ci = 0; ci < t->r->n_cpus; ci++) {
		t->rc = open_one(t->r, tid, ci, t->err, t->err_size);
		if (t->rc < 0)
			return t->rc;
	}
	return 0;
}

/* Leave out the CPUs whose event could not be opened (fd < 0), as if they had not been asked
 * for: the header's n_cpus_recorded, the rings drained and the per-CPU statistics then
 * cover the recorded CPUs only. */
static void drop_unopened_cpus(struct recorder *r)
{
	size_t w = 0;

	for (size_t ci = 0; ci < r->n_cpus; ci++) {
		if (r->cpus[ci].fd < 0) {
			free(r->cpus[ci].batch); /* what recorder_new prepared for it */
			r->cpus[ci].batch = NULL;
			continue;
		}
		if (w != ci) {
			r->cpus[w] = r->cpus[ci]; /* slot w is a dropped CPU's or a moved one's */
			for (size_t i = 0; i < r->n_fds; i++)
				if (r->fd_cpu[i] == (int)ci)
					r->fd_cpu[i] = (int)w;
		}
		w++;
	}
	r->n_cpus = w;
}

/* "CPU 3" or "CPUs 1,3,5" for the CPUs of cpus[] whose failure is err (cut short when long). */
static void failed_cpu_list(const struct recorder *r, const int *fails, int err, char *buf, size_t n)
{
	size_t len = 0, count = 0, shown = 0;

	for (size_t ci = 0; ci < r->n_cpus; ci++)
		count += fails[ci] == err;
	len = (size_t)snprintf(buf, n, "CPU%s ", count == 1 ? "" : "s");
	for (size_t ci = 0; ci < r->n_cpus && len < n; ci++) {
		if (fails[ci] != err)
			continue;
		if (len + 16 > n || len > 80) {
			snprintf(buf + len, n - len, "... (%zu in all)", count);
			return;
		}
		len += (size_t)snprintf(buf + len, n - len, "%s%d", shown++ ? "," : "", r->cpus[ci].cpu);
	}
}

/*
 * System-wide (-a, -C): a CPU whose event cannot be opened (offline since we listed the
 * CPUs, its PMU busy or missing, ...) is left out with a note naming it and the reason, and
 * the others are recorded; perf gives up instead. The recording fails only when no CPU can
 * be opened (with the first CPU's explanation), or on a failure that is not the CPU's own:
 * the open-file limit, memory, or mapping the ring.
 */
static int open_system(struct recorder *r, char *err, size_t err_size)
{
	char first_err[512] = "";
	int first_rc = 0, rc = 0, *fails = calloc(r->n_cpus ? r->n_cpus : 1, sizeof(int));
	size_t n_fails = 0, n_asked = r->n_cpus;

	if (!fails) {
		snprintf(err, err_size, "out of memory");
		return -ENOMEM;
	}
	for (size_t ci = 0; ci < r->n_cpus; ci++) {
		rc = open_one(r, -1, ci, err, err_size);
		if (rc == 0)
			continue;
		if (rc == -EMFILE || rc == -ENFILE || rc == -ENOMEM || r->cpus[ci].fd >= 0)
			goto out; /* not this CPU's problem: every CPU would hit it */
		fails[ci] = rc;
		if (!n_fails++) {
			first_rc = rc;
			util_strlcpy(first_err, err, sizeof(first_err));
		}
		rc = 0;
	}
	if (n_fails == n_asked) {
		util_strlcpy(err, first_err, err_size);
		rc = first_rc;
		goto out;
	}
	for (size_t ci = 0; ci < r->n_cpus; ci++) {
		char cpus[128];
		bool seen = false;

		if (!fails[ci])
			continue;
		for (size_t k = 0; k < ci; k++)
			seen |= fails[k] == fails[ci];
		if (seen)
			continue; /* one note per reason */
		failed_cpu_list(r, fails, fails[ci], cpus, sizeof(cpus));
		note(r, "%s: cannot open %s: %s; recording the other CPUs only (%zu of %zu)", cpus,
		     r->event_name, strerror(-fails[ci]), n_asked - n_fails, n_asked);
	}
	drop_unopened_cpus(r);
out:
	free(fails);
	return rc;
}

static int open_events(struct recorder *r, char *err, size_t err_size)
{
	int rc = 0;

	switch (r->o.target) {
	case RECORDER_SYSTEM:
		rc = open_system(r, err, err_size);
		break;
	case RECORDER_COMMAND:
		for (size_t ci = 0; ci < r->n_cpus && rc == 0; ci++)
			rc = open_one(r, r->o.pids[0], ci, err, err_size);
		break;
	case RECORDER_PIDS:
		for (size_t i = 0; i < r->o.n_pids && rc == 0; i++) {
			struct tid_ctx t = { r, err, err_size, 0 };

			rc = procfs_for_each_tid(r->o.pids[i], on_target_tid, &t);
			if (rc == -ENOENT || (rc < 0 && !t.rc)) {
				snprintf(err, err_size, "no such process: %d", (int)r->o.pids[i]);
				rc = -ESRCH;
			} else if (t.rc < 0) {
				rc = t.rc;
			}
		}
		break;
	}
	return rc;
}

int recorder_new(const struct recorder_opts *o, struct recorder **ret, char *err, size_t err_size)
{
	struct recorder *r = calloc(1, sizeof(*r));
	int online[MAX_CPUS];
	size_t n_online = 0;
	int rc;

	if (!r) {
		snprintf(err, err_size, "out of memory");
		return -ENOMEM;
	}
	r->o = *o;
	r->epfd = -1;
	r->kernel = true;
	r->build_id = true;
	r->format_lost = true;
	r->flush_ns = o->flush_ns ? o->flush_ns : NSEC_PER_SEC;
	r->restack_ns = o->restack_ns ? o->restack_ns : 60 * NSEC_PER_SEC;
	rc = evsel_lookup(o->event ? o->event : "cycles", &r->ev);
	if (rc < 0) {
		snprintf(err, err_size, "unknown event '%s' (see --list-events)", o->event);
		goto fail;
	}
	util_strlcpy(r->event_name, r->ev.name, sizeof(r->event_name));
	if (!r->o.ring_pages)
		r->o.ring_pages = have_privileges() ? 256 : 128;
	r->freq_requested = o->freq;
	if (o->freq) {
		long max = read_sysctl("perf_event_max_sample_rate", 0);

		if (max > 0 && o->freq > (uint64_t)max) {
			note(r, "-F %llu is above kernel.perf_event_max_sample_rate; sampling at %ld Hz",
			     (unsigned long long)o->freq, max);
			r->o.freq = (uint64_t)max;
		}
	}
	rc = cpulist_read_online(online, MAX_CPUS, &n_online);
	if (rc < 0) {
		snprintf(err, err_size, "cannot read the online CPUs (/sys/devices/system/cpu/online): %s",
			 strerror(-rc));
		goto fail;
	}
	r->cpus = calloc(o->cpus ? o->n_cpus : n_online, sizeof(*r->cpus));
	if (!r->cpus) {
		rc = -ENOMEM;
		snprintf(err, err_size, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < (o->cpus ? o->n_cpus : n_online); i++) {
		int cpu = o->cpus ? o->cpus[i] : online[i];
		bool on = false;

		for (size_t k = 0; k < n_online; k++)
			on |= online[k] == cpu;
		if (!on) {
			rc = -ENODEV;
			snprintf(err, err_size, "CPU %d is not online (online: see /sys/devices/system/cpu/online)", cpu);
			goto fail;
		}
		r->cpus[r->n_cpus].cpu = cpu;
		r->cpus[r->n_cpus].fd = -1;
		r->n_cpus++;
	}
	build_attr(r);
	if (compact_sample_type_ok(r->attr.sample_type)) {
		r->stacks = stacktab_new(STACKS_MAX, STACK_WORDS_MAX);
		r->kb = malloc(sizeof(*r->kb));
		if (!r->kb) {
			stacktab_free(r->stacks);
			r->stacks = NULL;
		} else {
			r->kb->n = 0;
		}
		for (size_t ci = 0; r->stacks && ci < r->n_cpus; ci++) {
			r->cpus[ci].batch = malloc(sizeof(struct sbatch));
			if (!r->cpus[ci].batch) {
				stacktab_free(r->stacks);
				r->stacks = NULL;
			} else {
				r->cpus[ci].batch->n = 0;
			}
		}
		if (!r->stacks) {
			rc = -ENOMEM;
			snprintf(err, err_size, "out of memory");
			goto fail;
		}
	}
	rc = open_events(r, err, err_size);
	if (rc < 0)
		goto fail;
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (r->epfd < 0) {
		rc = -errno;
		snprintf(err, err_size, "epoll_create1: %s", strerror(errno));
		goto fail;
	}
	for (size_t ci = 0; ci < r->n_cpus; ci++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.u64 = RECORDER_TAG_BASE + ci };

		if (r->cpus[ci].fd >= 0 && epoll_ctl(r->epfd, EPOLL_CTL_ADD, r->cpus[ci].fd, &ev) < 0) {
			rc = -errno;
			snprintf(err, err_size, "epoll_ctl: %s", strerror(errno));
			goto fail;
		}
	}
	/* The kernel symbol table is big and slow to read: read it before recording starts. */
	if (r->kernel)
		synth_ksyms_read(r->o.kallsyms ? r->o.kallsyms : "/proc/kallsyms", &r->ksyms);
	if (r->stacks && r->ksyms.n) {
		r->ksym_done = calloc(r->ksyms.n, 1);
		r->ksym_pend = malloc(r->ksyms.n * sizeof(*r->ksym_pend));
		if (!r->ksym_done || !r->ksym_pend) {
			rc = -ENOMEM;
			snprintf(err, err_size, "out of memory");
			goto fail;
		}
	}
	*ret = r;
	return 0;
fail:
	recorder_free(r);
	return rc;
}

struct recorder *recorder_free(struct recorder *r)
{
	if (!r)
		return NULL;
	for (size_t ci = 0; ci < r->n_cpus; ci++) {
		ring_done(&r->cpus[ci].ring);
		free(r->cpus[ci].batch);
	}
	stacktab_free(r->stacks);
	free(r->kb);
	for (size_t i = 0; i < r->n_fds; i++)
		close(r->fds[i]);
	if (r->epfd >= 0)
		close(r->epfd);
	synth_ksyms_free(&r->ksyms);
	free(r->ksym_done);
	free(r->ksym_pend);
	free(r->fds);
	free(r->fd_cpu);
	free(r->cpus);
	free(r);
	return NULL;
}

size_t recorder_n_cpus(const struct recorder *r)
{
	return r->n_cpus;
}

const char *recorder_note(const struct recorder *r, size_t i)
{
	return i < r->n_notes ? r->notes[i] : NULL;
}

const char *recorder_event_name(const struct recorder *r)
{
	return r->event_name;
}

uint64_t recorder_freq(const struct recorder *r)
{
	return r->o.freq;
}

int recorder_epoll_fd(const struct recorder *r)
{
	return r->epfd;
}

static void write_header(struct recorder *r)
{
	size_t clen = r->o.cmdline ? strlen(r->o.cmdline) : 0;
	size_t size = (sizeof(struct rp_header_rec) + clen + 1 + 7) / 8 * 8;
	struct rp_header_rec *h;
	struct utsname u;
	char boot_id[64] = "";

	if (size > 65535) {
		clen = 65535 - sizeof(*h) - 8;
		size = (sizeof(*h) + clen + 1 + 7) / 8 * 8;
	}
	h = writer_reserve(r->w, size);
	if (!h)
		return;
	memset(h, 0, size);
	h->hdr.type = RP_REC_HEADER;
	h->hdr.size = (uint16_t)size;
	h->time = r->t_start;
	memcpy(h->magic, RP_HEADER_MAGIC, 8);
	h->major = RP_FORMAT_MAJOR;
	h->minor = RP_FORMAT_MINOR;
	h->flags = (r->o.target == RECORDER_SYSTEM ? RP_HDR_SYSTEM_WIDE : 0) | (r->kernel ? RP_HDR_KERNEL : 0) |
		   (r->o.callchain ? RP_HDR_CALLCHAIN : 0) | (r->o.switch_events ? RP_HDR_SWITCH : 0) |
		   (r->build_id ? RP_HDR_BUILD_ID : 0) | (r->o.freq ? RP_HDR_FREQ : 0) |
		   (r->o.target == RECORDER_COMMAND ? RP_HDR_COMMAND : 0);
	if (r->ksyms.n)
		h->flags |= r->ksym_done ? RP_HDR_KSYMS_USED : RP_HDR_KSYMS;
	h->realtime_offset = util_realtime_offset_ns();
	h->clockid = CLOCK_MONOTONIC;
	h->n_cpus_online = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN);
	h->n_cpus_recorded = (uint32_t)r->n_cpus;
	h->page_size = (uint32_t)sysconf(_SC_PAGESIZE);
	h->sample_type = r->attr.sample_type;
	h->freq_requested = r->freq_requested;
	h->freq = r->o.freq;
	h->period = r->o.freq ? 0 : r->o.period;
	h->event_type = r->attr.type;
	h->event_config = r->attr.config;
	h->attr_size = sizeof(r->attr) <= sizeof(h->attr) ? sizeof(r->attr) : sizeof(h->attr);
	memcpy(h->attr, &r->attr, h->attr_size);
	util_strlcpy(h->event_name, r->event_name, sizeof(h->event_name));
	if (uname(&u) == 0) {
		util_strlcpy(h->hostname, u.nodename, sizeof(h->hostname));
		util_strlcpy(h->release, u.release, sizeof(h->release));
		util_strlcpy(h->arch, u.machine, sizeof(h->arch));
	}
	if (procfs_read_file("/proc/sys/kernel/random/boot_id", boot_id, sizeof(boot_id)) > 0)
		util_strlcpy(h->boot_id, boot_id, sizeof(h->boot_id));
	if (clen)
		memcpy((char *)(h + 1), r->o.cmdline, clen);
}

static void drain_rings(void *arg);

/* Number stacks from 0 again (and, with symbols, write the kernel symbols again as they are
 * hit). Every batch that refers to the old numbers must have been written. */
static void forget_stacks(struct recorder *r, bool symbols)
{
	stacktab_reset(r->stacks);
	r->kb->n = 0;
	if (symbols && r->ksym_done) {
		memset(r->ksym_done, 0, r->ksyms.n);
		r->n_pend = 0;
	}
}

/* The head of a new file: header and kernel symbols, stamped now. */
static void begin_file(struct recorder *r, struct writer *w)
{
	struct synth s;

	r->w = w;
	r->t_start = util_now_ns();
	/* Every file defines its own stacks and kernel symbols. */
	if (r->stacks)
		forget_stacks(r, true);
	r->t_restack = r->t_start;
	r->frames_dropped = writer_stats(w)->dropped_frames;
	writer_set_safe_time(w, r->t_start);
	write_header(r);
	if (!r->ksym_done) {
		synth_init(&s, w, r->attr.sample_type, r->t_start);
		synth_ksyms_write(&s, &r->ksyms);
		synth_done(&s);
	}
	for (size_t ci = 0; ci < r->n_cpus; ci++) {
		r->cpus[ci].file0 = r->cpus[ci].n;
		r->cpus[ci].file0.bad = r->cpus[ci].ring.n_bad;
	}
}

/* What already runs, from /proc, draining the rings between processes without advancing
 * the ordering watermark past the file's start; then the start-up state is committed in a
 * frame of its own. */
static void synth_state(struct recorder *r)
{
	struct synth s;

	synth_init(&s, r->w, r->attr.sample_type, r->t_start);
	s.tick = drain_rings;
	s.tick_arg = r;
	if (r->o.target == RECORDER_SYSTEM)
		synth_all(&s);
	else if (r->o.target == RECORDER_PIDS)
		for (size_t i = 0; i < r->o.n_pids; i++)
			synth_process(&s, r->o.pids[i]);
	synth_done(&s);
	writer_flush(r->w);
}

int recorder_start(struct recorder *r, struct writer *w)
{
	int rc = 0;

	begin_file(r, w);
	r->t_first = r->t_start;
	/* Enable, then read /proc: a process that starts meanwhile is seen by the kernel, one
	 * that existed is seen by /proc; duplicates are ordered by time. */
	if (r->o.target != RECORDER_COMMAND) {
		for (size_t i = 0; i < r->n_fds; i++) {
			if (ioctl(r->fds[i], PERF_EVENT_IOC_ENABLE, 0) < 0 && rc == 0)
				rc = -errno;
		}
	}
	synth_state(r);
	return rc;
}

/* Queue symbol i and every alias at its address, once per file. */
static void need_ksym_run(struct recorder *r, size_t i)
{
	uint64_t a = r->ksyms.addrs[i];

	while (i > 0 && r->ksyms.addrs[i - 1] == a)
		i--;
	for (; i < r->ksyms.n && r->ksyms.addrs[i] == a; i++) {
		if (!r->ksym_done[i]) {
			r->ksym_done[i] = 1;
			r->ksym_pend[r->n_pend++] = (uint32_t)i;
		}
	}
}

/* A new stack's kernel addresses: the symbols containing them, and the ones after those
 * (which bound them for the reader), are written before the batch that uses it. */
static void need_ksyms(struct recorder *r, uint64_t time, uint64_t ip, const uint64_t *chain, uint64_t nr)
{
	for (uint64_t k = 0; k <= nr; k++) {
		uint64_t v;
		int64_t i;

		if (k == 0)
			v = ip;
		else
			memcpy(&v, &chain[k - 1], 8);
		/* Kernel half of the address space, context markers excluded. */
		if (v < 0xffff800000000000ull || v >= (uint64_t)PERF_CONTEXT_MAX)
			continue;
		i = synth_ksyms_find(&r->ksyms, v);
		if (i < 0 || r->ksym_done[i])
			continue;
		if (!r->n_pend)
			r->pend_time = time;
		need_ksym_run(r, (size_t)i);
		for (size_t j = (size_t)i + 1; j < r->ksyms.n; j++)
			if (r->ksyms.addrs[j] != r->ksyms.addrs[i]) {
				need_ksym_run(r, j);
				break;
			}
	}
}

static void write_pending_ksyms(struct recorder *r)
{
	size_t i = 0;

	while (i < r->n_pend) {
		size_t size = sizeof(struct rp_ksyms_rec), k = i, len;
		struct rp_ksyms_rec *rec;
		unsigned char *p;

		while (k < r->n_pend) {
			synth_ksyms_entry(&r->ksyms, r->ksym_pend[k], &len);
			if (size + len > 60000)
				break;
			size += len;
			k++;
		}
		rec = writer_reserve(r->w, (size + 7) & ~(size_t)7);
		if (!rec)
			break;
		memset(rec, 0, (size + 7) & ~(size_t)7);
		rec->hdr.type = RP_REC_KSYMS;
		rec->hdr.size = (uint16_t)((size + 7) & ~(size_t)7);
		rec->time = r->pend_time;
		rec->n = (uint32_t)(k - i);
		p = (unsigned char *)(rec + 1);
		for (; i < k; i++) {
			const unsigned char *e = synth_ksyms_entry(&r->ksyms, r->ksym_pend[i], &len);

			memcpy(p, e, len);
			p += len;
		}
	}
	r->n_pend = 0;
}

static void flush_stacks(struct recorder *r)
{
	const struct perf_event_header *h = kbatch_finish(r->kb);

	if (h)
		writer_add(r->w, h, h->size);
}

/* The CPU's samples, after the definitions they use. */
static void flush_batch(struct recorder *r, struct rcpu *c)
{
	const struct perf_event_header *h;

	flush_stacks(r);
	if (r->n_pend)
		write_pending_ksyms(r);
	h = sbatch_finish(c->batch);

	if (h)
		writer_add(r->w, h, h->size);
}

/* Store a sample compactly: its stack by number (defined first when new), its other fields
 * packed into the CPU's batch. False when it must be stored as it is. */
static bool pack_sample(struct recorder *r, struct rcpu *c, const struct perf_event_header *h)
{
	/* Layout of RP_COMPACT_SAMPLE_TYPE [| CALLCHAIN]: ip, pid tid, time, cpu res, period
	 * [, nr, ips[nr]]. */
	const unsigned char *p = (const unsigned char *)h;
	uint64_t ip, time, period, nr = 0;
	uint32_t pid, tid, cpu;
	const uint64_t *chain = NULL;
	int64_t id;
	bool added;

	if (h->size < 48)
		return false;
	memcpy(&ip, p + 8, 8);
	memcpy(&pid, p + 16, 4);
	memcpy(&tid, p + 20, 4);
	memcpy(&time, p + 24, 8);
	memcpy(&cpu, p + 32, 4);
	memcpy(&period, p + 40, 8);
	if (r->attr.sample_type & PERF_SAMPLE_CALLCHAIN) {
		if (h->size < 56)
			return false;
		memcpy(&nr, p + 48, 8);
		if (nr != (uint64_t)(h->size - 56) / 8)
			return false;
		chain = (const uint64_t *)(p + 56);
	} else if (h->size != 48) {
		return false;
	}
	/* A frame that could not be written may have held stack definitions. */
	if (writer_stats(r->w)->dropped_frames != r->frames_dropped) {
		r->frames_dropped = writer_stats(r->w)->dropped_frames;
		flush_batch(r, c);
		forget_stacks(r, true); /* the symbols may have been in it too */
	}
	id = stacktab_intern(r->stacks, h->misc, ip, chain, nr, &added);
	if (id < 0) {
		/* Full: samples already packed refer to the old ids, write them out first. */
		flush_batch(r, c);
		forget_stacks(r, false);
		id = stacktab_intern(r->stacks, h->misc, ip, chain, nr, &added);
		if (id < 0)
			return false; /* longer than a record can hold */
	}
	if (added) {
		if (!kbatch_add(r->kb, (uint32_t)id, h->misc, ip, chain, nr)) {
			flush_stacks(r);
			kbatch_add(r->kb, (uint32_t)id, h->misc, ip, chain, nr);
		}
		if (r->ksym_done)
			need_ksyms(r, time, ip, chain, nr);
	}
	if (!sbatch_add(c->batch, cpu, time, pid, tid, period, (uint32_t)id)) {
		flush_batch(r, c);
		sbatch_add(c->batch, cpu, time, pid, tid, period, (uint32_t)id);
	}
	return true;
}

/* Copy one ring's new records into the open frame. No allocation, no syscalls. */
static void drain_ring(struct recorder *r, struct rcpu *c)
{
	const struct perf_event_header *h;

	if (c->fd < 0 || !ring_read_init(&c->ring))
		return;
	while ((h = ring_read_event(&c->ring))) {
		switch (h->type) {
		case PERF_RECORD_SAMPLE:
			c->n.samples++;
			if (r->stacks && pack_sample(r, c, h))
				continue;
			break;
		case PERF_RECORD_LOST:
			if (h->size >= 24) {
				uint64_t lost;

				memcpy(&lost, (const char *)h + 16, 8);
				c->n.lost += lost;
			}
			break;
		case PERF_RECORD_THROTTLE:
			c->n.throttles++;
			break;
		case PERF_RECORD_UNTHROTTLE:
			c->n.unthrottles++;
			break;
		}
		writer_add(r->w, h, h->size);
	}
	if (r->stacks)
		flush_batch(r, c);
	/* The data is copied; only now may the kernel reuse the space. */
	ring_read_done(&c->ring);
}

static void drain_rings(void *arg)
{
	struct recorder *r = arg;

	for (size_t ci = 0; ci < r->n_cpus; ci++)
		drain_ring(r, &r->cpus[ci]);
}

static int drain_all(struct recorder *r)
{
	uint64_t pass = util_now_ns();
	const struct writer_stats *ws = writer_stats(r->w);
	uint64_t dropped = ws->dropped_frames;
	int rc = 0;

	drain_rings(r);
	/* Stacks are defined once per file, so a damaged frame would cost the callchains of the
	 * rest of the file: start again now and then (every batch is written at this point). */
	if (r->stacks && pass - r->t_restack >= r->restack_ns) {
		forget_stacks(r, true);
		r->t_restack = pass;
	}
	writer_set_safe_time(r->w, pass > ORDER_MARGIN_NS ? pass - ORDER_MARGIN_NS : 0);
	if (writer_due(r->w, util_now_ns(), r->flush_ns))
		rc = writer_flush(r->w);
	if (rc == 0 && ws->dropped_frames != dropped)
		rc = ws->last_error ? ws->last_error : -EIO; /* a frame filled up mid-pass and failed */
	return rc;
}

int recorder_poll(struct recorder *r, int timeout_ms, uint64_t *tags, int max)
{
	struct epoll_event evs[64];
	int n, k = 0, rc;
	/* Wake often enough to close frames on time even when no ring reaches its watermark. */
	int max_ms = (int)(r->flush_ns / 2 / 1000000);

	if (max_ms < 1)
		max_ms = 1;
	if (timeout_ms < 0 || timeout_ms > max_ms)
		timeout_ms = max_ms;
	n = epoll_wait(r->epfd, evs, 64, timeout_ms);
	if (n < 0 && errno != EINTR)
		return -errno;
	for (int i = 0; i < n; i++) {
		if (evs[i].data.u64 < RECORDER_TAG_BASE && k < max)
			tags[k++] = evs[i].data.u64;
		else if (evs[i].data.u64 >= RECORDER_TAG_BASE && (evs[i].events & (EPOLLHUP | EPOLLERR)))
			/* The traced task is gone; stop watching this ring, drain it below. */
			epoll_ctl(r->epfd, EPOLL_CTL_DEL, r->cpus[evs[i].data.u64 - RECORDER_TAG_BASE].fd, NULL);
	}
	rc = drain_all(r);
	if (rc < 0)
		return rc;
	return k;
}

/* The kernel's own loss counters (they also cover losses no LOST record reported yet). */
static void read_lost(struct recorder *r)
{
	if (!r->format_lost)
		return;
	for (size_t ci = 0; ci < r->n_cpus; ci++)
		r->cpus[ci].n.lost_read = 0;
	for (size_t i = 0; i < r->n_fds; i++) {
		uint64_t v[3];

		if (read(r->fds[i], v, sizeof(v)) == (ssize_t)sizeof(v))
			r->cpus[r->fd_cpu[i]].n.lost_read += v[2];
	}
}

/* Per-CPU statistics for the current file (counters since it began) and its finish record. */
static void end_file(struct recorder *r, uint64_t t, int exit_status)
{
	struct rp_finish_rec *f;
	uint64_t samples = 0, lost = 0;

	read_lost(r);
	for (size_t ci = 0; ci < r->n_cpus; ci++) {
		const struct rcpu *c = &r->cpus[ci];
		const struct counts *n = &c->n, *z = &c->file0;
		struct rp_cpu_stats_rec *s = writer_reserve(r->w, sizeof(*s));
		uint64_t dl = n->lost - z->lost, dr = n->lost_read - z->lost_read;

		if (!s)
			continue;
		memset(s, 0, sizeof(*s));
		s->hdr.type = RP_REC_CPU_STATS;
		s->hdr.size = sizeof(*s);
		s->time = t;
		s->cpu = (uint32_t)c->cpu;
		s->samples = n->samples - z->samples;
		s->lost = dl;
		s->lost_unreported = dr > dl ? dr - dl : 0;
		s->throttles = n->throttles - z->throttles;
		s->unthrottles = n->unthrottles - z->unthrottles;
		s->bad = c->ring.n_bad - z->bad;
		samples += s->samples;
		lost += dl + s->lost_unreported;
	}
	f = writer_reserve(r->w, sizeof(*f));
	if (f) {
		memset(f, 0, sizeof(*f));
		f->hdr.type = RP_REC_FINISH;
		f->hdr.size = sizeof(*f);
		f->time = t;
		f->samples = samples;
		f->lost = lost;
		f->dropped_records = writer_stats(r->w)->dropped_records;
		f->exit_status = exit_status;
	}
}

int recorder_rotate(struct recorder *r, struct writer *w)
{
	uint64_t t;
	int rc;

	drain_rings(r);
	t = util_now_ns();
	writer_set_safe_time(r->w, t);
	end_file(r, t, -1);
	rc = writer_flush(r->w);
	begin_file(r, w);
	synth_state(r);
	return rc;
}

int recorder_stop(struct recorder *r, int exit_status)
{
	for (size_t i = 0; i < r->n_fds; i++)
		ioctl(r->fds[i], PERF_EVENT_IOC_DISABLE, 0);
	r->t_stop = util_now_ns();
	drain_rings(r);
	writer_set_safe_time(r->w, r->t_stop);
	end_file(r, r->t_stop, exit_status);
	return writer_flush(r->w);
}

void recorder_totals(const struct recorder *r, struct recorder_totals *ret)
{
	memset(ret, 0, sizeof(*ret));
	for (size_t ci = 0; ci < r->n_cpus; ci++) {
		const struct counts *n = &r->cpus[ci].n;

		ret->samples += n->samples;
		ret->lost += n->lost_read > n->lost ? n->lost_read : n->lost;
		ret->throttles += n->throttles;
		ret->bad += r->cpus[ci].ring.n_bad;
	}
	ret->duration_ns = (r->t_stop ? r->t_stop : util_now_ns()) - r->t_first;
}
