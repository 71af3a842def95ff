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

/* Whether an event of the set samples user space (then callchains copy the user stack). */
static bool any_user(const struct evset *e)
{
	for (size_t i = 0; i < e->n_events; i++)
		if (!e->events[i].spec.exclude_user)
			return true;
	return false;
}

/* The attr of event i. All events share one sample_type, so that the records of a ring
 * parse alike; with several, PERF_SAMPLE_IDENTIFIER tells their samples apart (as perf does)
 * and only the first event asks for side-band. */
static void build_attr_one(struct evset *e, size_t i, uint64_t ring_bytes)
{
	struct evset_event *ev = &e->events[i];
	struct perf_event_attr *a = &ev->attr;
	bool tp = ev->spec.type == PERF_TYPE_TRACEPOINT;

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = ev->spec.type;
	a->config = ev->spec.config;
	/* A tracepoint samples every hit unless a rate was asked for, as perf does. */
	ev->freq = tp && (!e->o.rate_given || ev->every_hit) ? 0 : e->o.freq;
	ev->period = tp && (!e->o.rate_given || ev->every_hit) ? 1 : e->o.period;
	if (ev->every_hit && e->o.off_cpu_rate) {
		/* --off-cpu-rate bounds the switch-outs sampled (and the stacks copied) on a
		 * CPU that switches faster. Frequency mode, since the kernel samples a tracepoint
		 * at every hit when PERF_SAMPLE_PERIOD is asked for with a fixed period. Below
		 * the rate, the period stays 1. */
		ev->freq = e->o.off_cpu_rate;
		ev->period = 0;
	}
	if (ev->freq) {
		a->freq = 1;
		a->sample_freq = ev->freq;
	} else {
		a->sample_period = ev->period;
	}
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			 PERF_SAMPLE_PERIOD | (e->n_events > 1 ? PERF_SAMPLE_IDENTIFIER : 0);
	if (e->o.callchain)
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	/* Every event's samples say their cgroup (all share one sample_type). */
	if (e->cgroup)
		a->sample_type |= PERF_SAMPLE_CGROUP;
	if (e->o.callchain && e->o.stack_user && any_user(e)) {
		/* The user part is unwound from the registers and a copy of the stack. */
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = UNWINDER_REGS_MASK;
		a->sample_stack_user = e->o.stack_user;
		/* The kernel's user frame-pointer chain stays in the sample: where the walk of the
		 * copy stops short and that chain agrees with it, it goes on with the chain's
		 * callers, marked (Go's switch to the goroutine's stack, a stack deeper than the
		 * copy in code that keeps frame pointers). It is never stored as it is. */
	}
	a->read_format = PERF_FORMAT_ID | (e->format_lost ? PERF_FORMAT_LOST : 0);
	a->disabled = 1;
	if (i == 0) {
		a->mmap = 1;
		a->mmap2 = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
		a->build_id = e->build_id;
		a->cgroup = e->cgroup;
		a->context_switch = e->o.switch_events;
	}
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->watermark = 1;
	a->wakeup_watermark = wakeup_bytes(e, ring_bytes);
	/* Tracepoints fire in the kernel: excluding it would drop every sample. */
	a->exclude_kernel = !tp && (!e->kernel || ev->spec.exclude_kernel);
	a->exclude_user = ev->spec.exclude_user;
	a->exclude_hv = 1;
	a->exclude_callchain_kernel = a->exclude_kernel;
	a->exclude_callchain_user |= ev->spec.exclude_user;
	a->precise_ip = ev->spec.precise_ip;
	a->inherit = e->o.target != RECORDER_SYSTEM;
	a->enable_on_exec = e->o.target == RECORDER_COMMAND && !e->o.start_disabled;
}

static void build_attr(struct evset *e)
{
	uint64_t ring_bytes = (uint64_t)e->o.ring_pages * (uint64_t)sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < e->n_events; i++)
		build_attr_one(e, i, ring_bytes);
}

static int add_fd(struct evset *e, int fd, size_t cpu_idx, size_t event)
{
	if (GROW(e->fds, e->cap_fds, e->n_fds + 1) < 0 ||
	    GROW(e->fd_cpu, e->cap_fd_cpu, e->n_fds + 1) < 0 ||
	    GROW(e->fd_event, e->cap_fd_event, e->n_fds + 1) < 0)
		return -ENOMEM;
	e->fds[e->n_fds] = fd;
	e->fd_cpu[e->n_fds] = (int)cpu_idx;
	e->fd_event[e->n_fds] = (int)event;
	e->n_fds++;
	return 0;
}

static const char *target_desc(const struct evset *e)
{
	return e->o.target == RECORDER_SYSTEM ? "system-wide recording" : "recording that process";
}

/* A seccomp filter is in force (Seccomp: 2 in /proc/self/status) and this process has
 * CAP_PERFMON or CAP_SYS_ADMIN, or kernel.perf_event_paranoid lets it record what it asked
 * for: then a denied perf_event_open is the filter's doing, not a lack of privileges
 * (container runtimes, SystemCallFilter= without @debug). */
static const char *seccomp_denies(const struct evset *e, long paranoid)
{
	char st[8192];
	const char *cap, *sec;
	unsigned long long eff;

	if (procfs_read_file("/proc/self/status", st, sizeof(st)) < 0)
		return NULL;
	sec = strstr(st, "\nSeccomp:");
	cap = strstr(st, "\nCapEff:");
	if (!sec || strtol(sec + 9, NULL, 10) != 2 || !cap)
		return NULL;
	eff = strtoull(cap + 8, NULL, 16);
	if (eff & (1ull << 38 | 1ull << 21)) /* CAP_PERFMON, CAP_SYS_ADMIN */
		return "this process has CAP_PERFMON";
	if (paranoid < (e->o.target == RECORDER_SYSTEM ? 1 : 3))
		return "kernel.perf_event_paranoid allows it";
	return NULL;
}

/* Turn a failure of the first perf_event_open of event ev into advice. */
static void explain(struct evset *e, const struct evset_event *ev, int err, int cpu, char *buf,
		    size_t n)
{
	long paranoid = read_sysctl("perf_event_paranoid", 2);
	const char *filtered = NULL;

	switch (-err) {
	case EACCES:
	case EPERM:
		filtered = seccomp_denies(e, paranoid);
		if (filtered)
			snprintf(buf, n,
				 "permission denied for %s by a seccomp filter (Seccomp: 2 in "
				 "/proc/self/status), not for lack of privileges (%s): allow "
				 "perf_event_open in the filter (systemd: SystemCallFilter=@debug or "
				 "perf_event_open; containers: a seccomp profile that permits it)",
				 target_desc(e), filtered);
		else if (ev->spec.type == PERF_TYPE_TRACEPOINT)
			snprintf(buf, n,
				 "permission denied for tracepoint '%s': tracepoints sample in the kernel, "
				 "which needs kernel.perf_event_paranoid <= 1 (it is %ld) or CAP_PERFMON; run "
				 "as root or grant CAP_PERFMON",
				 ev->spec.name, paranoid);
		else if (e->o.target == RECORDER_SYSTEM)
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
		if (evsel_is_unsupported(err) && ev->spec.type == PERF_TYPE_HARDWARE)
			snprintf(buf, n,
				 "event '%s' needs a hardware PMU and this machine has none (a virtual "
				 "machine, or a CPU the kernel has no PMU driver for); try -e cpu-clock",
				 ev->spec.name);
		else if (evsel_is_unsupported(err))
			snprintf(buf, n, "event '%s' cannot be sampled on this machine (%s)",
				 ev->spec.name, strerror(-err));
		else
			snprintf(buf, n, "perf_event_open failed on CPU %d: %s", cpu,
				 strerror(-err));
	}
}

/* The first open of the first event decides the attr: each failure that perf knows how to
 * work around is worked around once, with a note, and the open is tried again. The other
 * events are opened with what it decided. */
static int open_probe(struct evset *e, struct evset_event *ev, pid_t pid, int cpu, char *why,
		      size_t why_size)
{
	for (;;) {
		int fd = evsel_open(&ev->attr, pid, cpu, -1);
		bool tp = ev->spec.type == PERF_TYPE_TRACEPOINT;

		if (fd >= 0)
			return fd;
		if (ev != &e->events[0]) {
			explain(e, ev, fd, cpu, why, why_size);
			return fd;
		}
		if (evsel_is_unsupported(fd) && !e->o.event && ev->spec.type == PERF_TYPE_HARDWARE) {
			evset_note(e,
				   "no hardware PMU on this machine (as in most virtual machines): "
				   "sampling on cpu-clock instead of cycles");
			evsel_parse("cpu-clock", &ev->spec, why, why_size);
		} else if ((fd == -EACCES || fd == -EPERM) && e->kernel && !tp &&
			   e->o.target != RECORDER_SYSTEM && ev->spec.exclude_user) {
			/* NAME:k without the kernel would record nothing at all. */
			snprintf(why, why_size,
				 "%s samples the kernel only, which needs kernel.perf_event_paranoid "
				 "<= 1 (it is %ld) or CAP_PERFMON; without them only user space can be "
				 "sampled (drop the :k)",
				 ev->spec.name, read_sysctl("perf_event_paranoid", 2));
			return fd;
		} else if ((fd == -EACCES || fd == -EPERM) && e->kernel && !tp &&
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
			} else if (e->cgroup) {
				e->cgroup = false; /* pre-5.7 kernel: no PERF_SAMPLE_CGROUP */
				evset_note(e,
					   "kernel does not put cgroups in samples (Linux 5.7 or "
					   "later does): units are taken from /proc/PID/cgroup "
					   "when recording starts, and new processes inherit them");
			} else {
				explain(e, ev, fd, cpu, why, why_size);
				return fd;
			}
		} else {
			explain(e, ev, fd, cpu, why, why_size);
			return fd;
		}
		build_attr(e);
	}
}

/* Event ev of CPU slot ci for pid: the CPU's first fd gets the ring, the others write to it. */
static int open_event(struct evset *e, struct evset_event *ev, pid_t pid, size_t ci, char *why,
		      size_t why_size)
{
	struct evcpu *c = &e->cpus[ci];
	int fd, rc;

	fd = !ev->probed ? open_probe(e, ev, pid, c->cpu, why, why_size)
			 : evsel_open(&ev->attr, pid, c->cpu, -1);
	if (fd < 0) {
		if (fd == -ESRCH && e->o.target == RECORDER_PIDS && e->n_fds)
			return 0; /* a thread ended while we attached */
		if (ev->probed)
			explain(e, ev, fd, c->cpu, why, why_size);
		return fd;
	}
	ev->probed = true;
	rc = add_fd(e, fd, ci, (size_t)(ev - e->events));
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

/* Every event of the set on CPU slot ci for pid. */
static int open_one(struct evset *e, pid_t pid, size_t ci, char *why, size_t why_size)
{
	for (size_t i = 0; i < e->n_events; i++) {
		int rc = open_event(e, &e->events[i], pid, ci, why, why_size);

		if (rc < 0)
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
			   cpus, e->events[0].spec.name, strerror(-fails[ci]), n_asked - n_fails,
			   n_asked);
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
	int online[RP_MAX_CPUS];
	size_t n_online = 0, n = 0;
	int rc = cpulist_read_online(online, RP_MAX_CPUS, &n_online);

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

int evset_parse_call_graph(const char *mode, uint32_t *ret_stack_user, char *why, size_t why_size)
{
	uint64_t size = EVSET_STACK_USER_DEFAULT;

	if (strcmp(mode, "fp") == 0) {
		*ret_stack_user = 0;
		return 0;
	}
	if (strncmp(mode, "dwarf", 5) != 0 || (mode[5] != '\0' && mode[5] != ',')) {
		snprintf(why, why_size,
			 "unknown call-graph mode '%s': use 'dwarf[,SIZE]' or 'fp'%s", mode,
			 strcmp(mode, "lbr") == 0
			     ? " (lbr needs a hardware PMU with branch records)"
			     : "");
		return -EINVAL;
	}
	if (mode[5] == ',' &&
	    (util_parse_size(mode + 6, &size) < 0 || size < 8 || size > RP_STACK_USER_MAX)) {
		snprintf(why, why_size,
			 "invalid stack copy size '%s' (bytes, 8 to %u, e.g. dwarf,16384)",
			 mode + 6, RP_STACK_USER_MAX);
		return -EINVAL;
	}
	*ret_stack_user = (uint32_t)((size + 7) & ~7ull);
	return 0;
}

int evset_parse_events(const char *list, struct evset_event *events, size_t *ret_n, char *why,
		       size_t why_size)
{
	char spec[EVSEL_MAX_SPEC + 1];
	size_t n = 0;

	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ",");
		int rc;

		if (len == 0 || len > EVSEL_MAX_SPEC) {
			snprintf(why, why_size, "%s event in the list '%s'",
				 len ? "too long an" : "an empty", list);
			return -EINVAL;
		}
		if (n == EVSET_MAX_EVENTS) {
			snprintf(why, why_size,
				 "more than %d events given; ringprof records at most %d",
				 EVSET_MAX_EVENTS, EVSET_MAX_EVENTS);
			return -E2BIG;
		}
		memcpy(spec, p, len);
		spec[len] = '\0';
		memset(&events[n], 0, sizeof(events[n]));
		rc = evsel_parse(spec, &events[n].spec, why, why_size);
		if (rc < 0)
			return rc;
		for (size_t i = 0; i < n; i++)
			if (strcmp(events[i].spec.name, events[n].spec.name) == 0) {
				snprintf(why, why_size, "event '%s' is given twice", spec);
				return -EINVAL;
			}
		n++;
		p += len;
		if (!*p)
			break;
	}
	*ret_n = n;
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	const struct evset_id *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Every fd's id, sorted, for evset_event_of(). */
static int collect_ids(struct evset *e, char *why, size_t why_size)
{
	for (size_t i = 0; i < e->n_fds; i++) {
		uint64_t id;

		if (ioctl(e->fds[i], PERF_EVENT_IOC_ID, &id) < 0) {
			int rc = -errno;

			snprintf(why, why_size, "cannot read an event's id (PERF_EVENT_IOC_ID): %s",
				 strerror(errno));
			return rc;
		}
		if (GROW(e->ids, e->cap_ids, e->n_ids + 1) < 0) {
			snprintf(why, why_size, "out of memory");
			return -ENOMEM;
		}
		e->ids[e->n_ids++] = (struct evset_id){ id, (uint32_t)e->fd_event[i] };
	}
	qsort(e->ids, e->n_ids, sizeof(*e->ids), cmp_id);
	return 0;
}

int evset_event_of(const struct evset *e, uint64_t id)
{
	size_t lo = 0, hi = e->n_ids;

	if (e->n_events == 1)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->ids[mid].id == id)
			return (int)e->ids[mid].event;
		if (e->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* --off-cpu: every switch-out of sched:sched_switch (the tracepoint's id from tracefs, which
 * says what to do when it cannot be read), and switch records for the switch-ins. */
static int add_off_cpu(struct evset *e, char *why, size_t why_size)
{
	struct evset_event *ev = NULL;
	int rc;

	for (size_t i = 0; i < e->n_events; i++)
		if (strcmp(e->events[i].spec.name, "sched:sched_switch") == 0)
			ev = &e->events[i];
	if (!ev && e->n_events == EVSET_MAX_EVENTS) {
		snprintf(why, why_size, "--off-cpu adds an event, and %d are given already",
			 EVSET_MAX_EVENTS);
		return -E2BIG;
	}
	if (!ev) {
		ev = &e->events[e->n_events];
		memset(ev, 0, sizeof(*ev));
		rc = evsel_parse("sched:sched_switch", &ev->spec, why, why_size);
		if (rc < 0)
			return rc;
		e->n_events++;
	}
	ev->every_hit = true;
	e->o.switch_events = true;
	return 0;
}

/* What the set is, before anything is opened: the options, the events, the defaults. */
static int evset_begin(struct evset *e, const struct recorder_opts *o, char *why, size_t why_size)
{
	int rc;

	e->o = *o;
	e->kernel = true;
	e->build_id = o->kernel_build_ids;
	e->format_lost = true;
	e->cgroup = true;
	rc = evset_parse_events(o->event ? o->event : "cycles", e->events, &e->n_events, why,
				why_size);
	if (rc == 0 && o->off_cpu)
		rc = add_off_cpu(e, why, why_size);
	return rc;
}

int evset_open(struct evset *e, const struct recorder_opts *o, char *why, size_t why_size)
{
	int rc = evset_begin(e, o, why, why_size);

	if (rc < 0)
		return rc;
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
	rc = open_events(e, why, why_size);
	if (rc == 0 && e->n_events > 1)
		rc = collect_ids(e, why, why_size);
	return rc;
}

int evset_open_rings(struct evset *e, const struct recorder_opts *o, const int *cpus,
		     struct ring *rings, size_t n, char *why, size_t why_size)
{
	int rc = evset_begin(e, o, why, why_size);

	if (rc == 0 && e->n_events != 1) {
		snprintf(why, why_size, "synthetic rings carry one event, not %zu", e->n_events);
		rc = -EINVAL;
	}
	if (rc < 0)
		return rc;
	e->cpus = calloc(n ? n : 1, sizeof(*e->cpus));
	if (!e->cpus) {
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		e->cpus[i] = (struct evcpu){ .cpu = cpus[i], .fd = -1, .ring = rings[i] };
		memset(&rings[i], 0, sizeof(rings[i]));
	}
	e->n_cpus = n;
	e->freq_requested = o->freq;
	if (!e->o.ring_pages)
		e->o.ring_pages =
		    n ? (unsigned)(e->cpus[0].ring.size / (uint64_t)sysconf(_SC_PAGESIZE)) : 1;
	build_attr(e);
	return 0;
}

void evset_done(struct evset *e)
{
	for (size_t ci = 0; ci < e->n_cpus; ci++)
		ring_done(&e->cpus[ci].ring);
	for (size_t i = 0; i < e->n_fds; i++)
		close(e->fds[i]);
	free(e->fds);
	free(e->fd_cpu);
	free(e->fd_event);
	free(e->ids);
	free(e->cpus);
	e->fds = e->fd_cpu = e->fd_event = NULL;
	e->ids = NULL;
	e->cpus = NULL;
	e->n_fds = e->n_cpus = e->cap_fds = e->cap_fd_cpu = e->cap_fd_event = 0;
	e->n_ids = e->cap_ids = 0;
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
