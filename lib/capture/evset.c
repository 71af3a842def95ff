/* evset.c — opening the sampling event on every CPU with perf's fallbacks, and the advice
 * given when it cannot be opened. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "base/cpulist.h"
#include "base/grow.h"
#include "base/procfs.h"
#include "base/util.h"
#include "capture/evset.h"
#include "capture/unwinder.h"

#define MAX_CPUS 4096

void evset_note(struct evset *e, const char *fmt, ...)
{
	va_list ap;

	if (e->n_notes >= EVSET_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(e->notes[e->n_notes++], sizeof(e->notes[0]), fmt, ap);
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

/*
 * When the kernel wakes the recorder: at a quarter of the ring; or, when what the sampling
 * rate is expected to bring in half a flush interval (the recorder's own timer drains the
 * rings that often) fills at most half the ring, at three quarters, so that the timer does
 * the draining: each wakeup costs a pass (ringprofd, 49 Hz with 8 KB stack copies: 0.076 % ->
 * 0.055 % of a CPU). Bursts of side-band still have a quarter of the ring.
 */
static uint32_t wakeup_bytes(const struct evset *e, uint64_t ring_bytes)
{
	uint64_t flush_ns = e->o.flush_ns ? e->o.flush_ns : NSEC_PER_SEC;
	uint64_t per_sample = 64 + 8 * 64 + (e->o.callchain ? e->o.stack_user : 0);
	uint64_t expected = e->o.freq * per_sample / 1000 * (flush_ns / 2 / 1000000);

	if (e->o.freq && expected <= ring_bytes / 2)
		return (uint32_t)(ring_bytes / 4 * 3);
	return (uint32_t)(ring_bytes / 4);
}

static void build_attr(struct evset *e)
{
	struct perf_event_attr *a = &e->attr;
	uint64_t ring_bytes = (uint64_t)e->o.ring_pages * (uint64_t)sysconf(_SC_PAGESIZE);

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = e->ev.type;
	a->config = e->ev.config;
	if (e->o.freq) {
		a->freq = 1;
		a->sample_freq = e->o.freq;
	} else {
		a->sample_period = e->o.period;
	}
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			 PERF_SAMPLE_PERIOD;
	if (e->o.callchain)
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (e->o.callchain && e->o.stack_user) {
		/* The user part is unwound from the registers and a copy of the stack. */
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = UNWINDER_REGS_MASK;
		a->sample_stack_user = e->o.stack_user;
		a->exclude_callchain_user = 1;
	}
	a->read_format = PERF_FORMAT_ID | (e->format_lost ? PERF_FORMAT_LOST : 0);
	a->disabled = 1;
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->sample_id_all = 1;
	a->build_id = e->build_id;
	a->context_switch = e->o.switch_events;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->watermark = 1;
	a->wakeup_watermark = wakeup_bytes(e, ring_bytes);
	a->exclude_kernel = !e->kernel;
	a->exclude_hv = 1;
	a->exclude_callchain_kernel = !e->kernel;
	a->inherit = e->o.target != RECORDER_SYSTEM;
	a->enable_on_exec = e->o.target == RECORDER_COMMAND && !e->o.start_disabled;
}

static int add_fd(struct evset *e, int fd, size_t cpu_idx)
{
	if (GROW(e->fds, e->cap_fds, e->n_fds + 1) < 0 ||
	    GROW(e->fd_cpu, e->cap_fd_cpu, e->n_fds + 1) < 0)
		return -ENOMEM;
	e->fds[e->n_fds] = fd;
	e->fd_cpu[e->n_fds] = (int)cpu_idx;
	e->n_fds++;
	return 0;
}

static const char *target_desc(const struct evset *e)
{
	return e->o.target == RECORDER_SYSTEM ? "system-wide recording" : "recording that process";
}

/* Turn a failure of the first perf_event_open into advice. */
static void explain(struct evset *e, int err, int cpu, char *buf, size_t n)
{
	long paranoid = read_sysctl("perf_event_paranoid", 2);

	switch (-err) {
	case EACCES:
	case EPERM:
		if (e->o.target == RECORDER_SYSTEM)
			snprintf(buf, n,
				 "permission denied for %s: kernel.perf_event_paranoid is %ld and this process lacks "
				 "CAP_PERFMON (or CAP_SYS_ADMIN). Run as root, grant CAP_PERFMON, or lower the sysctl "
				 "(sysctl kernel.perf_event_paranoid=0); without privileges you can still profile your "
				 "own programs: ringprof record -- CMD, or -p PID",
				 target_desc(e), paranoid);
		else
			snprintf(buf, n,
				 "permission denied attaching to the process: it belongs to another user or "
				 "kernel.perf_event_paranoid is %ld%s; run as that user, as root, or with CAP_PERFMON",
				 paranoid,
				 paranoid > 2 ? " (perf events are disabled for unprivileged users)"
					      : "");
		break;
	case EMFILE:
	case ENFILE:
		snprintf(buf, n,
			 "too many open files: one event per CPU%s is needed; raise the limit (ulimit -n) or "
			 "record fewer CPUs with -C",
			 e->o.target == RECORDER_PIDS || e->o.target == RECORDER_THREADS
			     ? " and thread"
			     : "");
		break;
	case ESRCH:
		snprintf(buf, n, "no such process (it exited before recording began)");
		break;
	case ENODEV:
		snprintf(buf, n,
			 "CPU %d is not online (see /sys/devices/system/cpu/online); choose CPUs with -C",
			 cpu);
		break;
	case EINVAL:
		snprintf(buf, n,
			 "the kernel rejected the event settings (EINVAL) on CPU %d; the frequency may exceed "
			 "kernel.perf_event_max_sample_rate (%ld) or the kernel is too old (ringprof needs 4.3 or later)",
			 cpu, read_sysctl("perf_event_max_sample_rate", 0));
		break;
	default:
		if (evsel_is_unsupported(err))
			snprintf(buf, n,
				 "event '%s' is not supported on this machine (%s); try -e cpu-clock",
				 e->event_name, strerror(-err));
		else
			snprintf(buf, n, "perf_event_open failed on CPU %d: %s", cpu,
				 strerror(-err));
	}
}

/* The first open decides the attr: each failure that perf knows how to work around is
 * worked around once, with a note, and the open is tried again. */
static int open_probe(struct evset *e, pid_t pid, int cpu, char *why, size_t why_size)
{
	for (;;) {
		int fd = evsel_open(&e->attr, pid, cpu, -1);

		if (fd >= 0)
			return fd;
		if (evsel_is_unsupported(fd) && !e->o.event && e->ev.type == PERF_TYPE_HARDWARE) {
			/* The kernel says ENOENT (or ENODEV, EOPNOTSUPP), which printed as such
			 * reads as a missing file: say what it means. */
			evset_note(e,
				   "no hardware PMU on this machine (as in most virtual machines): "
				   "sampling on cpu-clock instead of cycles");
			evsel_lookup("cpu-clock", &e->ev);
			util_strlcpy(e->event_name, e->ev.name, sizeof(e->event_name));
		} else if ((fd == -EACCES || fd == -EPERM) && e->kernel &&
			   e->o.target != RECORDER_SYSTEM) {
			evset_note(e,
				   "kernel.perf_event_paranoid is %ld and no CAP_PERFMON: recording user space only, "
				   "without kernel samples",
				   read_sysctl("perf_event_paranoid", 2));
			e->kernel = false;
		} else if (fd == -EINVAL) {
			long max = read_sysctl("perf_event_max_sample_rate", 0);

			if (e->o.freq && max > 0 && (uint64_t)max < e->o.freq) {
				evset_note(e,
					   "kernel.perf_event_max_sample_rate dropped to %ld Hz; sampling at that rate",
					   max);
				e->o.freq = (uint64_t)max;
			} else if (e->build_id) {
				e->build_id =
				    false; /* pre-5.12 kernel: MMAP2 carries maj/min/ino only */
				evset_note(e,
					   "kernel does not put build-ids in MMAP2 records; inode numbers are recorded instead");
			} else if (e->format_lost) {
				e->format_lost =
				    false; /* pre-6.0 kernel: LOST records are the only loss count */
			} else {
				explain(e, fd, cpu, why, why_size);
				return fd;
			}
		} else {
			explain(e, fd, cpu, why, why_size);
			return fd;
		}
		build_attr(e);
	}
}

static int open_one(struct evset *e, pid_t pid, size_t ci, char *why, size_t why_size)
{
	struct evcpu *c = &e->cpus[ci];
	int fd, rc;

	fd = e->n_fds == 0 ? open_probe(e, pid, c->cpu, why, why_size)
			   : evsel_open(&e->attr, pid, c->cpu, -1);
	if (fd < 0) {
		if (fd == -ESRCH && e->o.target == RECORDER_PIDS && e->n_fds)
			return 0; /* a thread ended while we attached */
		if (e->n_fds)
			explain(e, fd, c->cpu, why, why_size);
		return fd;
	}
	rc = add_fd(e, fd, ci);
	if (rc < 0) {
		close(fd);
		snprintf(why, why_size, "out of memory");
		return rc;
	}
	if (c->fd < 0) {
		c->fd = fd;
		for (;;) {
			rc = ring_mmap(&c->ring, fd, e->o.ring_pages);
			if (rc == 0)
				break;
			if (rc == -EPERM && e->o.ring_pages > 8) {
				/* Over the locked-memory allowance (perf_event_mlock_kb); halve and
				 * retry. */
				e->o.ring_pages /= 2;
				continue;
			}
			snprintf(why, why_size,
				 "cannot map the ring buffer of CPU %d (%u pages): %s%s", c->cpu,
				 e->o.ring_pages, strerror(-rc),
				 rc == -EPERM
				     ? "; the locked-memory limit is exhausted (kernel.perf_event_mlock_kb, "
				       "ulimit -l) — use a smaller -m or run with CAP_IPC_LOCK"
				     : "");
			return rc;
		}
	} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, c->fd) < 0) {
		rc = -errno;
		snprintf(why, why_size, "cannot share the ring of CPU %d: %s", c->cpu,
			 strerror(errno));
		return rc;
	}
	return 0;
}

struct tid_ctx {
	struct evset *e;
	char *why;
	size_t why_size;
	int rc;
};

static int on_target_tid(int tid, void *arg)
{
	struct tid_ctx *t = arg;

	for (size_t ci = 0; ci < t->e->n_cpus; ci++) {
		t->rc = open_one(t->e, tid, ci, t->why, t->why_size);
		if (t->rc < 0)
			return t->rc;
	}
	return 0;
}

/* Leave out the CPUs whose event could not be opened (fd < 0), as if they had not been asked
 * for: the header's n_cpus_recorded, the rings drained and the per-CPU statistics then
 * cover the recorded CPUs only. */
static void drop_unopened_cpus(struct evset *e)
{
	size_t w = 0;

	for (size_t ci = 0; ci < e->n_cpus; ci++) {
		if (e->cpus[ci].fd < 0)
			continue;
		if (w != ci) {
			e->cpus[w] = e->cpus[ci]; /* slot w is a dropped CPU's or a moved one's */
			for (size_t i = 0; i < e->n_fds; i++)
				if (e->fd_cpu[i] == (int)ci)
					e->fd_cpu[i] = (int)w;
		}
		w++;
	}
	e->n_cpus = w;
}

/* "CPU 3" or "CPUs 1,3,5" for the CPUs of cpus[] whose failure is err (cut short when long). */
static void failed_cpu_list(const struct evset *e, const int *fails, int err, char *buf, size_t n)
{
	size_t len = 0, count = 0, shown = 0;

	for (size_t ci = 0; ci < e->n_cpus; ci++)
		count += fails[ci] == err;
	len = (size_t)snprintf(buf, n, "CPU%s ", count == 1 ? "" : "s");
	for (size_t ci = 0; ci < e->n_cpus && len < n; ci++) {
		if (fails[ci] != err)
			continue;
		if (len + 16 > n || len > 80) {
			snprintf(buf + len, n - len, "... (%zu in all)", count);
			return;
		}
		len += (size_t)snprintf(buf + len, n - len, "%s%d", shown++ ? "," : "",
					e->cpus[ci].cpu);
	}
}

/*
 * System-wide (-a, -C): a CPU whose event cannot be opened (offline since we listed the
 * CPUs, its PMU busy or missing, ...) is left out with a note naming it and the reason, and
 * the others are recorded; perf gives up instead. The recording fails only when no CPU can
 * be opened (with the first CPU's explanation), or on a failure that is not the CPU's own:
 * the open-file limit, memory, or mapping the ring.
 */
static int open_system(struct evset *e, char *why, size_t why_size)
{
	char first_err[512] = "";
	int first_rc = 0, rc = 0, *fails = calloc(e->n_cpus ? e->n_cpus : 1, sizeof(int));
	size_t n_fails = 0, n_asked = e->n_cpus;

	if (!fails) {
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	for (size_t ci = 0; ci < e->n_cpus; ci++) {
		rc = open_one(e, -1, ci, why, why_size);
		if (rc == 0)
			continue;
		if (rc == -EMFILE || rc == -ENFILE || rc == -ENOMEM || e->cpus[ci].fd >= 0)
			goto out; /* not this CPU's problem: every CPU would hit it */
		fails[ci] = rc;
		if (!n_fails++) {
			first_rc = rc;
			util_strlcpy(first_err, why, sizeof(first_err));
		}
		rc = 0;
	}
	if (n_fails == n_asked) {
		util_strlcpy(why, first_err, why_size);
		rc = first_rc;
		goto out;
	}
	for (size_t ci = 0; ci < e->n_cpus; ci++) {
		char cpus[128];
		bool seen = false;

		if (!fails[ci])
			continue;
		for (size_t k = 0; k < ci; k++)
			seen |= fails[k] == fails[ci];
		if (seen)
			continue; /* one note per reason */
		failed_cpu_list(e, fails, fails[ci], cpus, sizeof(cpus));
		evset_note(e, "%s: cannot open %s: %s; recording the other CPUs only (%zu of %zu)",
			   cpus, e->event_name, strerror(-fails[ci]), n_asked - n_fails, n_asked);
	}
	drop_unopened_cpus(e);
out:
	free(fails);
	return rc;
}

static int open_events(struct evset *e, char *why, size_t why_size)
{
	int rc = 0;

	switch (e->o.target) {
	case RECORDER_SYSTEM:
		rc = open_system(e, why, why_size);
		break;
	case RECORDER_COMMAND:
		for (size_t ci = 0; ci < e->n_cpus && rc == 0; ci++)
			rc = open_one(e, e->o.pids[0], ci, why, why_size);
		break;
	case RECORDER_THREADS:
		for (size_t i = 0; i < e->o.n_pids && rc == 0; i++)
			for (size_t ci = 0; ci < e->n_cpus && rc == 0; ci++)
				rc = open_one(e, e->o.pids[i], ci, why, why_size);
		if (rc == -ESRCH)
			snprintf(why, why_size, "no such thread among %zu given", e->o.n_pids);
		break;
	case RECORDER_PIDS:
		for (size_t i = 0; i < e->o.n_pids && rc == 0; i++) {
			struct tid_ctx t = { e, why, why_size, 0 };

			rc = procfs_for_each_tid(e->o.pids[i], on_target_tid, &t);
			if (rc == -ENOENT || (rc < 0 && !t.rc)) {
				snprintf(why, why_size, "no such process: %d", (int)e->o.pids[i]);
				rc = -ESRCH;
			} else if (t.rc < 0) {
				rc = t.rc;
			}
		}
		break;
	}
	return rc;
}

/* The CPUs asked for (all online ones by default), each checked to be online. */
static int choose_cpus(struct evset *e, const struct recorder_opts *o, char *why, size_t why_size)
{
	int online[MAX_CPUS];
	size_t n_online = 0, n = 0;
	int rc = cpulist_read_online(online, MAX_CPUS, &n_online);

	if (rc < 0) {
		snprintf(why, why_size,
			 "cannot read the online CPUs (/sys/devices/system/cpu/online): %s",
			 strerror(-rc));
		return rc;
	}
	n = o->cpus ? o->n_cpus : n_online;
	e->cpus = calloc(n, sizeof(*e->cpus));
	if (!e->cpus) {
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		int cpu = o->cpus ? o->cpus[i] : online[i];
		bool on = false;

		for (size_t k = 0; k < n_online; k++)
			on |= online[k] == cpu;
		if (!on) {
			snprintf(why, why_size,
				 "CPU %d is not online (online: see /sys/devices/system/cpu/online)",
				 cpu);
			return -ENODEV;
		}
		e->cpus[e->n_cpus].cpu = cpu;
		e->cpus[e->n_cpus].fd = -1;
		e->n_cpus++;
	}
	return 0;
}

int evset_open(struct evset *e, const struct recorder_opts *o, char *why, size_t why_size)
{
	int rc;

	e->o = *o;
	e->kernel = true;
	e->build_id = true;
	e->format_lost = true;
	rc = evsel_lookup(o->event ? o->event : "cycles", &e->ev);
	if (rc < 0) {
		snprintf(why, why_size, "unknown event '%s' (see --list-events)", o->event);
		return rc;
	}
	util_strlcpy(e->event_name, e->ev.name, sizeof(e->event_name));
	if (!e->o.ring_pages)
		/* A sample with a stack copy takes the copy's size in the ring. */
		e->o.ring_pages =
		    have_privileges() ? (o->callchain && o->stack_user ? 1024 : 256) : 128;
	e->freq_requested = o->freq;
	if (o->freq) {
		long max = read_sysctl("perf_event_max_sample_rate", 0);

		if (max > 0 && o->freq > (uint64_t)max) {
			evset_note(e,
				   "-F %llu is above kernel.perf_event_max_sample_rate; sampling at %ld Hz",
				   (unsigned long long)o->freq, max);
			e->o.freq = (uint64_t)max;
		}
	}
	rc = choose_cpus(e, o, why, why_size);
	if (rc < 0)
		return rc;
	build_attr(e);
	return open_events(e, why, why_size);
}

void evset_done(struct evset *e)
{
	for (size_t ci = 0; ci < e->n_cpus; ci++)
		ring_done(&e->cpus[ci].ring);
	for (size_t i = 0; i < e->n_fds; i++)
		close(e->fds[i]);
	free(e->fds);
	free(e->fd_cpu);
	free(e->cpus);
	e->fds = e->fd_cpu = NULL;
	e->cpus = NULL;
	e->n_fds = e->n_cpus = e->cap_fds = e->cap_fd_cpu = 0;
}

int evset_enable(struct evset *e)
{
	int rc = 0;

	for (size_t i = 0; i < e->n_fds; i++) {
		if (ioctl(e->fds[i], PERF_EVENT_IOC_ENABLE, 0) < 0 && rc == 0)
			rc = -errno;
	}
	return rc;
}

void evset_disable(struct evset *e)
{
	for (size_t i = 0; i < e->n_fds; i++)
		ioctl(e->fds[i], PERF_EVENT_IOC_DISABLE, 0);
}

int evset_read_lost(const struct evset *e, uint64_t *lost)
{
	if (!e->format_lost)
		return -EOPNOTSUPP;
	for (size_t ci = 0; ci < e->n_cpus; ci++)
		lost[ci] = 0;
	for (size_t i = 0; i < e->n_fds; i++) {
		uint64_t v[3]; /* value, id, lost (read_format ID | LOST) */

		if (read(e->fds[i], v, sizeof(v)) == (ssize_t)sizeof(v))
			lost[e->fd_cpu[i]] += v[2];
	}
	return 0;
}
