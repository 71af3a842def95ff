/* recorder.c — the recorder's file lifecycle and drain loop: rings into a writer, each file
 * with its own head, every loss counted. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "base/grow.h"
#include "base/intern.h"
#include "base/procfs.h"
#include "base/util.h"
#include "capture/bids.h"
#include "capture/cachework.h"
#include "capture/objreg.h"
#include "capture/evset.h"
#include "capture/recorder.h"
#include "capture/synth.h"
#include "capture/uhelper.h"
#include "capture/unwinder.h"
#include "format/compact.h"
#include "format/encoder.h"
#include "format/format.h"
#include "format/ksyms.h"
#include "format/perfrec.h"
#include "format/writer.h"

/* The epoll tag of the unwind-table helper's socket. */
#define RECORDER_TAG_HELPER (~0ull)

/* Records younger than this may still be in flight into a ring when it is drained. */
#define ORDER_MARGIN_NS (10 * 1000 * 1000ull)

/* Counters since the events were opened. */
struct counts {
	uint64_t samples, lost, throttles, unthrottles;
	uint64_t lost_read; /* PERF_FORMAT_LOST summed over this CPU's events, when last read */
	uint64_t bad;
};

/* Per recorded CPU, parallel to ev.cpus. */
struct rcpu {
	bool emitted; /* kept samples were stored into its batch */
	struct counts n;
	struct counts file0; /* the counters when the current file began */
};

/* A thread's cgroup as the file says it now, and the time of its newest sample there. */
struct taskcg_slot {
	uint64_t cgroup, last;
};

struct recorder {
	struct evset ev;
	struct rcpu *cpus;
	int epfd;
	struct writer *w;
	uint64_t t_first; /* when recording began */
	uint64_t t_start; /* when the current file began */
	uint64_t t_stop;
	uint64_t flush_ns;
	uint64_t stop_wait_ns;
	uint64_t restack_ns;
	uint64_t t_restack; /* when stacks and kernel symbols were last defined again */
	struct ksyms ksyms;
	const char *ksyms_hidden; /* why kernel symbols could not be read, or NULL */
	bool pidns;		  /* in a PID namespace other than the initial one */
	const void *vdso;	  /* this process's vdso image, written into every file; or NULL */
	size_t vdso_size;
	struct encoder *enc;  /* NULL: samples are stored as the kernel wrote them */
	uint64_t ring_type;   /* of the records in the rings */
	uint64_t sample_type; /* of the stored records (neither the stack copy nor, with several
			       * events, PERF_SAMPLE_IDENTIFIER is stored) */
	bool strip_ident;     /* several events: side-band loses its trailing identifier */
	struct objreg *reg;   /* the mapped objects, and the one helper that reads them */
	unsigned helper_gen;  /* the helper whose socket is in the epoll set (objreg_fd_gen) */
	bool helper_readable; /* epoll reported its socket since the last drain pass */
	struct unwinder *unw; /* --call-graph dwarf: unwinds user stacks while recording */
	struct bids *bids;    /* build-ids of mapped files, read by the helper */
	/* Samples have cgroups (PERF_SAMPLE_CGROUP): the cgroup each thread was last stored in,
	 * in this file (tid -> index into taskcg_ids; TASKCG_NONE after its exit) */
	struct pairtab *taskcg;
	struct taskcg_slot *taskcg_ids;
	size_t cap_taskcg;
	uint64_t t_safe; /* the writer's ordering watermark, as last set */
	uint64_t chain[UNWINDER_MAX_FRAMES + 256]; /* a sample's chain, being unwound */
	uint64_t fixed[(RP_RECORD_MAX + 1) / 8];   /* a side-band record being repaired */
	struct recorder_totals totals;		   /* what recorder_totals() last computed */
	bool drop_idle_switch; /* --off-cpu without --switch-events: see idle_switch() */
};

static int add_to_epoll(struct recorder *r, char *why, size_t why_size)
{
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (r->epfd < 0) {
		snprintf(why, why_size, "epoll_create1: %s", strerror(errno));
		return -errno;
	}
	for (size_t ci = 0; ci < r->ev.n_cpus; ci++) {
		struct epoll_event e = { .events = EPOLLIN, .data.u64 = RECORDER_TAG_BASE + ci };

		if (r->ev.cpus[ci].fd < 0)
			continue; /* a ring given by a test (recorder_new_rings()) */
		if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, r->ev.cpus[ci].fd, &e) < 0) {
			snprintf(why, why_size, "epoll_ctl: %s", strerror(errno));
			return -errno;
		}
	}
	return 0;
}

/* Wait on the helper's socket with the rings, again after the helper was restarted (the old
 * socket was closed, which took it out of the set; the new one may have its number). */
static void watch_helper(struct recorder *r)
{
	struct epoll_event e = { .events = EPOLLIN, .data.u64 = RECORDER_TAG_HELPER };
	int fd = objreg_fd(r->reg);

	if (objreg_fd_gen(r->reg) == r->helper_gen)
		return;
	r->helper_gen = objreg_fd_gen(r->reg);
	if (fd >= 0)
		epoll_ctl(r->epfd, EPOLL_CTL_ADD, fd, &e);
}

/* The registry of mapped objects and its helper, and the build-ids of mapped files; without
 * the helper, a note says what reports lose. */
static int start_bids(struct recorder *r, const struct recorder_opts *o, char *why, size_t why_size)
{
	char note[300];
	int rc;

	note[0] = '\0';
	if (!r->reg)
		r->reg = objreg_new(note, sizeof(note));
	if (r->reg)
		r->bids = bids_new(r->reg, !o->no_symbols);
	if (!r->bids) {
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	if (note[0])
		evset_note(&r->ev,
			   "build-ids of mapped files are not recorded (%s): reports check binaries "
			   "by inode only",
			   note);
	if (!o->no_symbols && o->symbols_dir &&
	    (rc = bids_set_symbols_dir(r->bids, o->symbols_dir)) < 0)
		evset_note(&r->ev, "symbol tables go into each file: %s: %s", o->symbols_dir,
			   strerror(-rc));
	watch_helper(r);
	return 0;
}

/* The unwinder; without the helper, a note says what user stacks lose. */
static int start_unwinder(struct recorder *r, char *why, size_t why_size)
{
	char note[300];
	bool cache = r->ev.o.unwind_cache != NULL;

	r->unw = unwinder_new(r->reg);
	if (!r->unw) {
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	if (!objreg_has_helper(r->reg))
		evset_note(&r->ev, "user stacks are walked by frame pointers only: %s",
			   objreg_helper(r->reg)->why);
	if (r->ev.o.unwind_memory)
		unwinder_set_memory(r->unw, r->ev.o.unwind_memory);
	unwinder_set_join(r->unw, r->ev.o.join_cut_stacks);
	if (cache && unwinder_cache(r->unw, r->ev.o.unwind_cache, r->ev.o.unwind_cache_max, note,
				    sizeof(note)) < 0) {
		evset_note(&r->ev, "unwind tables are not kept on disk: %s", note);
		cache = false;
	}
	/* Only a disk cache, looked up by build-id, is worth waiting for the build-id. */
	if (cache && objreg_has_helper(r->reg))
		unwinder_wait_build_ids(r->unw);
	return 0;
}

/* Kernel samples are recorded but /proc/kallsyms gave no symbols: say why, once per
 * recorder, as a note the programs show at start (the header flag tells the report). */
static void note_ksyms_hidden(struct recorder *r, int err)
{
	char st[8192];
	const char *cap = NULL;
	long kptr = -1;
	bool syslog = false;
	size_t n = r->ev.n_notes;

	procfs_read_int("/proc/sys/kernel/kptr_restrict", &kptr);
	if (procfs_read_file("/proc/self/status", st, sizeof(st)) > 0 &&
	    (cap = strstr(st, "\nCapEff:")))
		syslog = strtoull(cap + 8, NULL, 16) & (1ull << 34); /* CAP_SYSLOG */
	if (err < 0)
		evset_note(&r->ev,
			   "kernel symbols are unavailable: cannot read /proc/kallsyms (%s); kernel "
			   "frames will show as [unknown]",
			   strerror(-err));
	else if (kptr >= 2 || (kptr == 1 && !syslog))
		evset_note(&r->ev,
			   "kernel symbols are hidden: /proc/kallsyms shows no addresses because "
			   "kernel.kptr_restrict is %ld%s; kernel frames will show as [unknown]: %s",
			   kptr, kptr >= 2 ? "" : " and this process lacks CAP_SYSLOG",
			   kptr >= 2
			       ? "set kernel.kptr_restrict to 0 or 1"
			       : "run as root with CAP_SYSLOG, or set kernel.kptr_restrict=0");
	else
		evset_note(&r->ev,
			   "kernel symbols are hidden: /proc/kallsyms shows no addresses (a "
			   "container or security module hides them); kernel frames will show as "
			   "[unknown]");
	r->ksyms_hidden = r->ev.n_notes > n ? r->ev.notes[n] : "kernel symbols are hidden";
}

/* The initial PID namespace's inode number, fixed by the kernel (PROC_PID_INIT_INO) since
 * Linux 3.8. NSpid: in /proc/self/status cannot tell: a container's own /proc shows one entry
 * there too. */
#define PID_INIT_INO 0xEFFFFFFCu

/* In a container's PID namespace the kernel gives every task outside it as pid 0: say so. */
static void check_pidns(struct recorder *r)
{
	struct stat st;

	/* Only a system-wide recording sees tasks outside its namespace. */
	if (r->ev.o.target != RECORDER_SYSTEM || stat("/proc/self/ns/pid", &st) < 0 ||
	    st.st_ino == PID_INIT_INO)
		return;
	r->pidns = true;
	evset_note(&r->ev, "recording in a PID namespace other than the host's (a container): the "
			   "kernel gives tasks outside it as pid 0; their side-band is dropped and "
			   "reports show their samples as [outside the PID namespace]; record from "
			   "the host's PID namespace to see them");
}

/* A recorder whose events are not open yet: its options. NULL when out of memory. */
static struct recorder *recorder_alloc(const struct recorder_opts *o, char *why, size_t why_size)
{
	struct recorder *r = calloc(1, sizeof(*r));

	if (!r) {
		snprintf(why, why_size, "out of memory");
		return NULL;
	}
	r->epfd = -1;
	r->flush_ns = o->flush_ns ? o->flush_ns : NSEC_PER_SEC;
	r->stop_wait_ns = o->stop_wait_ns ? o->stop_wait_ns : RECORDER_STOP_WAIT_NS;
	r->restack_ns = o->restack_ns ? o->restack_ns : 60 * NSEC_PER_SEC;
	r->drop_idle_switch = o->off_cpu && !o->switch_events;
	return r;
}

/* The rest, once the events are open (or the rings given): kernel symbols, the encoder, the
 * registry of mapped objects (reg, taken over; NULL: a new one with the helper), the
 * unwinder. On failure r is freed. */
static int recorder_setup(struct recorder *r, const struct recorder_opts *o, struct objreg *reg,
			  struct recorder **ret, char *why, size_t why_size)
{
	int rc = 0;

	r->reg = reg;
	/* The kernel symbol table is big and slow to read: read it before recording starts. */
	if (r->ev.kernel) {
		rc = ksyms_read(o->kallsyms ? o->kallsyms : "/proc/kallsyms", &r->ksyms);
		if (rc < 0 || !r->ksyms.n)
			note_ksyms_hidden(r, rc);
		rc = 0;
	}
	check_pidns(r);
	if (procfs_self_vdso(&r->vdso, &r->vdso_size) < 0 || r->vdso_size > RP_IMAGE_MAX)
		r->vdso = NULL;
	r->cpus = calloc(r->ev.n_cpus ? r->ev.n_cpus : 1, sizeof(*r->cpus));
	r->ring_type = r->ev.events[0].attr.sample_type;
	/* A sample's cgroup is stored only when its thread's changes (RP_REC_TASKCG). */
	r->sample_type = r->ring_type & ~(uint64_t)(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
						    PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_CGROUP);
	r->strip_ident = r->ring_type & PERF_SAMPLE_IDENTIFIER;
	if (compact_sample_type_ok(r->sample_type))
		r->enc = encoder_new(r->ev.n_cpus, r->ev.n_events, &r->ksyms);
	if (r->ev.cgroup && !(r->taskcg = pairtab_new()))
		rc = -ENOMEM;
	if (rc == 0)
		rc = start_bids(r, o, why, why_size);
	if (rc == 0 && (r->ring_type & PERF_SAMPLE_STACK_USER))
		rc = start_unwinder(r, why, why_size);
	if (!r->cpus || (compact_sample_type_ok(r->sample_type) && !r->enc) || rc < 0) {
		snprintf(why, why_size, "out of memory");
		recorder_free(r);
		return -ENOMEM;
	}
	*ret = r;
	return 0;
}

int recorder_new(const struct recorder_opts *o, struct recorder **ret, char *why, size_t why_size)
{
	struct recorder *r = recorder_alloc(o, why, why_size);
	int rc;

	if (!r)
		return -ENOMEM;
	rc = evset_open(&r->ev, o, why, why_size);
	if (rc == 0)
		rc = add_to_epoll(r, why, why_size);
	if (rc < 0) {
		recorder_free(r);
		return rc;
	}
	return recorder_setup(r, o, NULL, ret, why, why_size);
}

int recorder_new_rings(const struct recorder_opts *o, const int *cpus, struct ring *rings, size_t n,
		       struct objreg *reg, struct recorder **ret, char *why, size_t why_size)
{
	struct recorder *r = recorder_alloc(o, why, why_size);
	int rc;

	if (!r) {
		objreg_free(reg);
		return -ENOMEM;
	}
	r->reg = reg; /* freed with r from here on */
	rc = evset_open_rings(&r->ev, o, cpus, rings, n, why, why_size);
	if (rc == 0)
		rc = add_to_epoll(r, why, why_size);
	if (rc < 0) {
		recorder_free(r);
		return rc;
	}
	return recorder_setup(r, o, reg, ret, why, why_size);
}

uint64_t recorder_ring_sample_type(const struct recorder *r)
{
	return r->ring_type;
}

struct recorder *recorder_free(struct recorder *r)
{
	if (!r)
		return NULL;
	encoder_free(r->enc);
	pairtab_free(r->taskcg);
	free(r->taskcg_ids);
	unwinder_free(r->unw);
	bids_free(r->bids);
	objreg_free(r->reg);
	evset_done(&r->ev);
	if (r->epfd >= 0)
		close(r->epfd);
	ksyms_done(&r->ksyms);
	free(r->cpus);
	free(r);
	return NULL;
}

size_t recorder_n_cpus(const struct recorder *r)
{
	return r->ev.n_cpus;
}

const char *recorder_note(const struct recorder *r, size_t i)
{
	return i < r->ev.n_notes ? r->ev.notes[i] : NULL;
}

const char *recorder_ksyms_hidden(const struct recorder *r)
{
	return r->ksyms_hidden;
}

const char *recorder_event_name(const struct recorder *r)
{
	return r->ev.events[0].spec.name;
}

size_t recorder_n_events(const struct recorder *r)
{
	return r->ev.n_events;
}

const char *recorder_event(const struct recorder *r, size_t i)
{
	return i < r->ev.n_events ? r->ev.events[i].spec.name : NULL;
}

uint64_t recorder_freq(const struct recorder *r)
{
	return r->ev.events[0].freq;
}

const struct bids_stats *recorder_bids_stats(const struct recorder *r)
{
	return r->bids ? bids_stats(r->bids) : NULL;
}

const struct unwinder_stats *recorder_unwind_stats(const struct recorder *r)
{
	return r->unw ? unwinder_stats(r->unw) : NULL;
}

uint64_t recorder_helper_deaths(const struct recorder *r, char *buf, size_t size)
{
	const struct uhelper *h = r->reg ? objreg_helper(r->reg) : NULL;
	uint64_t now = util_now_ns();
	size_t n;

	if (!h || !h->deaths)
		return 0;
	n = (size_t)
	    snprintf(buf, size,
		     "the unwind-table and build-id helper died or hung %llu time%s (last: %s)",
		     (unsigned long long)h->deaths, h->deaths == 1 ? "" : "s", h->last_death);
	if (n < size && h->paused_until > now)
		snprintf(buf + n, size - n,
			 "; %u deaths within %llu s: it is paused for %llu s and files wait",
			 UHELPER_BUDGET + 1, UHELPER_BUDGET_NS / 1000000000,
			 (unsigned long long)((h->paused_until - now + 999999999) / 1000000000));
	else if (n < size)
		snprintf(buf + n, size - n, "; restarted");
	return h->deaths;
}

void recorder_sync_disk(struct recorder *r, uint64_t wait_ns)
{
	if (r && r->reg && objreg_disk(r->reg))
		cachework_sync(objreg_disk(r->reg), wait_ns);
}

bool recorder_unwind_object(const struct recorder *r, size_t i, struct unwinder_object *ret)
{
	return r->unw && unwinder_object(r->unw, i, ret);
}

int recorder_epoll_fd(const struct recorder *r)
{
	return r->epfd;
}

/* The file header record: how, where and what is recorded. */
static void write_header(struct recorder *r)
{
	const struct evset *e = &r->ev;
	const struct evset_event *ev0 = &e->events[0];
	size_t clen = e->o.cmdline ? strlen(e->o.cmdline) : 0;
	size_t size = (sizeof(struct rp_header_rec) + clen + 1 + 7) / 8 * 8;
	struct rp_header_rec *h;
	struct utsname u;
	char boot_id[64] = "";

	if (size > RP_RECORD_MAX) {
		clen = RP_RECORD_MAX - sizeof(*h) - 8;
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
	h->flags = (e->o.target == RECORDER_SYSTEM ? RP_HDR_SYSTEM_WIDE : 0) |
		   (!ev0->attr.exclude_kernel ? RP_HDR_KERNEL : 0) |
		   (e->o.callchain ? RP_HDR_CALLCHAIN : 0) |
		   (e->o.switch_events ? RP_HDR_SWITCH : 0) | (e->build_id ? RP_HDR_BUILD_ID : 0) |
		   (ev0->freq ? RP_HDR_FREQ : 0) | (r->unw ? RP_HDR_UNWIND : 0) |
		   (e->o.target == RECORDER_COMMAND ? RP_HDR_COMMAND : 0) | RP_HDR_CGROUP;
	if (r->ksyms.n)
		h->flags |= r->enc ? RP_HDR_KSYMS_USED : RP_HDR_KSYMS;
	else if (r->ksyms_hidden)
		h->flags |= RP_HDR_KSYMS_HIDDEN;
	if (r->pidns)
		h->flags |= RP_HDR_PIDNS;
	if (e->o.off_cpu && e->o.off_cpu_rate) {
		h->flags |= RP_HDR_OFFCPU_RATE;
		h->reserved[RP_HDR_OFFCPU_RATE_WORD] = e->o.off_cpu_rate;
	}
	h->realtime_offset = util_realtime_offset_ns();
	h->clockid = CLOCK_MONOTONIC;
	h->n_cpus_online = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN);
	h->n_cpus_recorded = (uint32_t)e->n_cpus;
	h->page_size = (uint32_t)sysconf(_SC_PAGESIZE);
	h->sample_type = r->sample_type;
	h->freq_requested = e->freq_requested;
	h->freq = ev0->freq;
	h->period = ev0->freq ? 0 : ev0->period;
	h->event_type = ev0->attr.type;
	h->event_config = ev0->attr.config;
	h->attr_size = sizeof(ev0->attr) <= sizeof(h->attr) ? sizeof(ev0->attr) : sizeof(h->attr);
	memcpy(h->attr, &ev0->attr, h->attr_size);
	util_strlcpy(h->event_name, ev0->spec.name, sizeof(h->event_name));
	if (uname(&u) == 0) {
		util_strlcpy(h->hostname, u.nodename, sizeof(h->hostname));
		util_strlcpy(h->release, u.release, sizeof(h->release));
		util_strlcpy(h->arch, u.machine, sizeof(h->arch));
	}
	if (procfs_read_file("/proc/sys/kernel/random/boot_id", boot_id, sizeof(boot_id)) > 0)
		util_strlcpy(h->boot_id, boot_id, sizeof(h->boot_id));
	if (clen)
		memcpy((char *)(h + 1), e->o.cmdline, clen);
}

/* The vdso has no file for the report to read: a copy of ours (the kernel's image for
 * every 64-bit process) names [vdso] frames. */
static void write_vdso(struct recorder *r)
{
	size_t size = (sizeof(struct rp_image_rec) + r->vdso_size + 7) & ~(size_t)7;
	struct rp_image_rec *ir;

	if (!r->vdso || !(ir = writer_reserve(r->w, size)))
		return;
	memset(ir, 0, size);
	ir->hdr.type = RP_REC_IMAGE;
	ir->hdr.size = (uint16_t)size;
	ir->time = r->t_start;
	util_strlcpy(ir->name, "[vdso]", sizeof(ir->name));
	ir->len = (uint32_t)r->vdso_size;
	memcpy(ir + 1, r->vdso, r->vdso_size);
}

/* With several events: the description of each but the first (format.h, version 2.1). */
static void write_events(struct recorder *r)
{
	for (size_t i = 1; i < r->ev.n_events; i++) {
		const struct evset_event *ev = &r->ev.events[i];
		struct rp_event_rec *er = writer_reserve(r->w, sizeof(*er));

		if (!er)
			return;
		memset(er, 0, sizeof(*er));
		er->hdr.type = RP_REC_EVENT;
		er->hdr.size = sizeof(*er);
		er->time = r->t_start;
		er->index = (uint32_t)i;
		er->n_events = (uint32_t)r->ev.n_events;
		er->event_type = ev->attr.type;
		er->event_config = ev->attr.config;
		er->freq = ev->freq;
		er->period = ev->freq ? 0 : ev->period;
		er->attr_size =
		    sizeof(ev->attr) <= sizeof(er->attr) ? sizeof(ev->attr) : sizeof(er->attr);
		memcpy(er->attr, &ev->attr, er->attr_size);
		util_strlcpy(er->event_name, ev->spec.name, sizeof(er->event_name));
	}
}

static void drain_rings(void *arg);
static uint64_t flush_due_ns(const struct recorder *r);

/* Every file says again which thread is in which cgroup, as of its first sample there; so
 * does a restart of the stack definitions, should a damaged frame have lost a TASKCG. */
static void taskcg_forget(struct recorder *r)
{
	if (!r->taskcg)
		return;
	pairtab_free(r->taskcg);
	r->taskcg = pairtab_new(); /* NULL: no TASKCG records until the next file */
}

#define TASKCG_NONE UINT64_MAX /* the thread exited: its tid may come back in another cgroup */

/* Write a TASKCG record: TID of PID is in CGROUP from time T on. */
static void taskcg_put(struct recorder *r, uint64_t t, uint32_t pid, uint32_t tid, uint64_t cgroup)
{
	struct rp_taskcg_rec *rec = writer_reserve(r->w, sizeof(*rec));

	if (rec)
		format_taskcg_put(rec, t, pid, tid, cgroup);
}

/*
 * A sample's cgroup: an RP_REC_TASKCG before it when its thread's cgroup is new in this file
 * or changed. A lookup per sample; memory only for a thread not seen yet. Rings are drained
 * one after the other, so an older sample of the thread may still wait in another CPU's ring:
 * a thread's first record is stamped with the ordering watermark, older than anything not yet
 * drained; a move, with its sample's time. A sample of another cgroup older than the thread's
 * newest one (from before a move, drained late) says so with its own time and puts the thread
 * back in its cgroup right after it: the samples between them are of the new cgroup.
 */
static void taskcg_sample(struct recorder *r, const struct perfrec_sample *s)
{
	struct taskcg_slot *slot;
	int64_t id;
	uint64_t t;

	if (!r->taskcg || s->id.tid == 0) /* the idle task, or tasks outside our PID namespace */
		return;
	id = pairtab_find(r->taskcg, s->id.tid, 0);
	if (id >= 0 && r->taskcg_ids[id].cgroup == s->cgroup) {
		if (s->id.time > r->taskcg_ids[id].last)
			r->taskcg_ids[id].last = s->id.time;
		return;
	}
	t = id >= 0 || s->id.time < r->t_safe ? s->id.time : r->t_safe;
	if (id < 0) {
		if (GROW(r->taskcg_ids, r->cap_taskcg, pairtab_count(r->taskcg) + 1) < 0 ||
		    (id = pairtab_intern(r->taskcg, s->id.tid, 0, NULL)) < 0)
			return;
		r->taskcg_ids[id] = (struct taskcg_slot){ TASKCG_NONE, 0 };
	}
	slot = &r->taskcg_ids[id];
	if (slot->cgroup != TASKCG_NONE && s->id.time < slot->last) {
		taskcg_put(r, s->id.time, s->id.pid, s->id.tid, s->cgroup);
		taskcg_put(r, s->id.time + 1, s->id.pid, s->id.tid, slot->cgroup);
		return;
	}
	slot->cgroup = s->cgroup;
	slot->last = s->id.time;
	taskcg_put(r, t, s->id.pid, s->id.tid, s->cgroup);
}

/* A thread exited: its next sample (a new thread with its tid) says its cgroup again. */
static void taskcg_exit(struct recorder *r, const struct perf_event_header *h)
{
	struct perfrec_task t;
	int64_t id;

	if (r->taskcg && perfrec_parse_task(h, &t) == 0 &&
	    (id = pairtab_find(r->taskcg, t.tid, 0)) >= 0)
		r->taskcg_ids[id] = (struct taskcg_slot){ TASKCG_NONE, 0 };
}

/* The head of a new file: header and kernel symbols, stamped T (now, or where the previous
 * file ended). */
static void begin_file(struct recorder *r, struct writer *w, uint64_t t)
{
	r->w = w;
	r->t_start = t;
	bids_begin_file(r->bids, w);
	r->t_restack = r->t_start;
	taskcg_forget(r);
	r->t_safe = r->t_start;
	writer_set_safe_time(w, r->t_start);
	write_header(r);
	write_events(r);
	write_vdso(r);
	/* Every file defines its own stacks and kernel symbols; the header comes first. */
	if (r->enc)
		encoder_begin(r->enc, w);
	else
		ksyms_write_all(&r->ksyms, w, r->t_start);
	for (size_t ci = 0; ci < r->ev.n_cpus; ci++) {
		r->cpus[ci].file0 = r->cpus[ci].n;
		r->cpus[ci].file0.bad = r->ev.cpus[ci].ring.n_bad;
	}
}

static void synth_side_band(void *arg, const struct perf_event_header *h)
{
	struct recorder *r = arg;

	if (r->unw)
		unwinder_side_band(r->unw, h, r->sample_type);
	bids_side_band(r->bids, h, r->sample_type);
}

/* What already runs, from /proc, stamped t, draining the rings between processes without
 * advancing the ordering watermark past t; then the start-up state is committed in a frame
 * of its own. A command is read from /proc only once it runs (command): at its start the
 * kernel reports its exec. */
/* Between processes of the start-up synthesis (seconds on a loaded host with many
 * processes): the rings are drained, and a frame is closed when one is due, so that the
 * crash bound holds from the start. */
static void synth_tick(void *arg)
{
	struct recorder *r = arg;

	drain_rings(r);
	if (writer_due(r->w, util_now_ns(), flush_due_ns(r)))
		writer_flush(r->w);
}

static void synth_state(struct recorder *r, uint64_t t, bool command)
{
	struct synth s;

	synth_init(&s, r->w, r->sample_type, t);
	synth_cgroups(&s);
	s.taskcg = !r->ev.cgroup;
	s.tick = synth_tick;
	s.tick_arg = r;
	if (r->unw || r->bids) {
		s.on_record = synth_side_band;
		s.on_record_arg = r;
	}
	if (r->ev.o.target == RECORDER_SYSTEM)
		synth_all(&s);
	else if (r->ev.o.target == RECORDER_PIDS || r->ev.o.target == RECORDER_THREADS)
		for (size_t i = 0; i < r->ev.o.n_pids; i++)
			synth_process(&s, r->ev.o.pids[i]);
	else if (command && r->ev.o.n_pids)
		synth_tree(&s, r->ev.o.pids[0]);
	writer_flush(r->w);
}

int recorder_start(struct recorder *r, struct writer *w)
{
	int rc = 0;

	begin_file(r, w, util_now_ns());
	r->t_first = r->t_start;
	/* The header and the kernel symbols in a frame of their own at once: a recorder killed
	 * during the start-up synthesis leaves a file that reads (with no samples yet). */
	writer_flush(w);
	if (r->ev.o.start_disabled)
		return 0;
	/* Enable, then read /proc: a process that starts meanwhile is seen by the kernel, one
	 * that existed is seen by /proc; duplicates are ordered by time. */
	if (r->ev.o.target != RECORDER_COMMAND)
		rc = evset_enable(&r->ev);
	synth_state(r, r->t_start, false);
	return rc;
}

int recorder_enable(struct recorder *r)
{
	int rc = evset_enable(&r->ev);

	synth_state(r, util_now_ns(), true);
	return rc;
}

/* A sample with its unwound chain into the file. */
static void emit_sample(void *arg, size_t ci, const struct perfrec_sample *s)
{
	struct recorder *r = arg;
	int ev = evset_event_of(&r->ev, s->identifier);

	taskcg_sample(r, s);
	if (ev < 0 || !encoder_add(r->enc, ci, (size_t)ev, s))
		r->ev.cpus[ci].ring.n_bad++;
	r->cpus[ci].emitted = true;
}

/* Samples kept for their tables, walked again: those that can go now are stored. */
static void release_held(struct recorder *r, bool all)
{
	if (!r->unw)
		return;
	/* Kept samples wait for their tables, within the keep's memory bound; one that waited
	 * RECORDER_HOLD_MAX_NS (a helper stuck on a file) is stored cut there. */
	unwinder_release(r->unw, all, util_now_ns(), RECORDER_HOLD_MAX_NS, emit_sample, r);
	for (size_t ci = 0; ci < r->ev.n_cpus; ci++)
		if (r->cpus[ci].emitted) {
			r->cpus[ci].emitted = false;
			encoder_flush(r->enc, ci);
		}
}

/* --call-graph dwarf: the sample's user stack is unwound and only the chain is stored; a
 * sample that cannot be is dropped and counted (its stack copy is not stored). True: it is
 * taken care of. */
static bool take_unwound(struct recorder *r, size_t ci, const struct perf_event_header *h)
{
	struct perfrec_sample s;
	struct perfrec_user u;
	bool held;
	int ev;

	if (!r->enc || perfrec_parse_sample_user(h, r->ring_type, UNWINDER_N_REGS, &s, &u) < 0 ||
	    (ev = evset_event_of(&r->ev, s.identifier)) < 0) {
		r->ev.cpus[ci].ring.n_bad++;
		return true;
	}
	if (r->ev.events[ev].spec.exclude_user)
		u.regs = NULL; /* :k beside events that copy user stacks: no user frames */
	s.nr = unwinder_chain(r->unw, ci, &s, &u, r->chain, sizeof(r->chain) / 8, &held);
	s.ips = r->chain;
	if (!held)
		emit_sample(r, ci, &s);
	return true;
}

/* A sample (not unwound): into the encoder when it has exactly the compact layout. True when
 * stored or dropped; false when it is to be stored as it is (one event only: a file with
 * several has every sample in batches that say their event, so one that cannot be packed is
 * dropped and counted as bad). */
static bool take_sample(struct recorder *r, size_t ci, const struct perf_event_header *h)
{
	struct perfrec_sample s;
	size_t fixed = r->strip_ident ? 56 : 48;	       /* the fields before the callchain */
	size_t cg = r->ring_type & PERF_SAMPLE_CGROUP ? 8 : 0; /* the cgroup, after it */
	struct perf_event_header *c;
	bool parsed = perfrec_parse_sample(h, r->ring_type, &s) == 0;
	int ev;

	if (parsed)
		taskcg_sample(r, &s);
	if (r->enc && parsed && h->size == fixed + (s.ips ? 8 + s.nr * 8 : 0) + cg &&
	    (ev = evset_event_of(&r->ev, s.identifier)) >= 0 &&
	    encoder_add(r->enc, ci, (size_t)ev, &s))
		return true;
	if (!r->strip_ident && !cg)
		return false;
	if (!r->strip_ident && h->size >= sizeof(*h) + cg &&
	    (c = writer_reserve(r->w, h->size - cg))) {
		/* Stored as the kernel wrote it but for the cgroup, its last word. */
		memcpy(c, h, h->size - cg);
		c->size = (uint16_t)(h->size - cg);
		return true;
	}
	r->ev.cpus[ci].ring.n_bad++;
	return true;
}

static void store_record(struct recorder *r, size_t ci, const struct perf_event_header *h);

/*
 * An MMAP2 record that says it carries a build-id although this recorder did not ask for one:
 * another perf user did (attr.build_id), and since Linux 5.12 the kernel leaves the flag set
 * on the one record it writes to every event that wants MMAP2; the bytes are the device and
 * inode. A copy with the flag cleared, in r->fixed.
 */
static const struct perf_event_header *unlabel_mmap2(struct recorder *r,
						     const struct perf_event_header *h)
{
	struct perf_event_header *c = (void *)r->fixed;

	memcpy(c, h, h->size);
	c->misc &= (uint16_t)~PERF_RECORD_MISC_MMAP_BUILD_ID;
	return c;
}

/* --off-cpu (without --switch-events): a switch record of the idle task, which the report
 * ignores, is not stored; on a CPU that idles between switches they are half of them. */
static bool idle_switch(const struct recorder *r, const struct perf_event_header *h)
{
	struct perfrec_id id;

	return r->drop_idle_switch &&
	       (h->type == PERF_RECORD_SWITCH || h->type == PERF_RECORD_SWITCH_CPU_WIDE) &&
	       perfrec_parse_id(h, r->ring_type, &id) == 0 && id.tid == 0;
}

/* Count what the kernel tells in the ring; samples go to the encoder when it can take them.
 * True when the record is stored (or dropped) already, false when it is to be copied as is. */
static bool take_record(struct recorder *r, size_t ci, const struct perf_event_header *h)
{
	struct counts *n = &r->cpus[ci].n;
	struct perfrec_lost l;

	if (idle_switch(r, h))
		return true;
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		n->samples++;
		if (r->unw)
			return take_unwound(r, ci, h);
		return take_sample(r, ci, h);
	case PERF_RECORD_LOST:
		if (perfrec_parse_lost(h, &l) == 0)
			n->lost += l.lost;
		break;
	case PERF_RECORD_THROTTLE:
		n->throttles++;
		break;
	case PERF_RECORD_UNTHROTTLE:
		n->unthrottles++;
		break;
	default: /* side-band: the unwinder follows the processes' mappings */
		if (perfrec_pid0_side_band(h))
			return true; /* a task outside our PID namespace, not the idle task */
		if (h->type == PERF_RECORD_EXIT)
			taskcg_exit(r, h);
		if (h->type == PERF_RECORD_MMAP2 && (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) &&
		    !r->ev.build_id)
			h = unlabel_mmap2(r, h);
		if (r->unw)
			unwinder_side_band(r->unw, h, r->ring_type);
		bids_side_band(r->bids, h, r->ring_type);
		if (h == (const void *)r->fixed) {
			store_record(r, ci, h);
			return true;
		}
	}
	return false;
}

/* A record to be stored as the kernel wrote it; with several events, without the identifier
 * that ends its sample_id trailer (the file's side-band has the header's layout). */
static void store_record(struct recorder *r, size_t ci, const struct perf_event_header *h)
{
	struct perf_event_header *c;

	if (!r->strip_ident) {
		writer_add(r->w, h, h->size);
		return;
	}
	if (h->size < sizeof(*h) + 8 || !(c = writer_reserve(r->w, h->size - 8u))) {
		if (h->size < sizeof(*h) + 8)
			r->ev.cpus[ci].ring.n_bad++;
		return;
	}
	memcpy(c, h, h->size - 8u);
	c->size = (uint16_t)(h->size - 8u);
}

/*
 * Copy one ring's new records into the open frame. No allocation and no parsing beyond the
 * sample's fields; the only syscalls are the writer's, when a frame fills up (it is then
 * compressed and written inline) — the ring's space is released only after that.
 */
static void drain_ring(struct recorder *r, size_t ci)
{
	struct evcpu *c = &r->ev.cpus[ci];
	const struct perf_event_header *h;

	if (!c->ring.page || !ring_read_init(&c->ring))
		return;
	while ((h = ring_read_event(&c->ring))) {
		if (!take_record(r, ci, h))
			store_record(r, ci, h);
	}
	if (r->enc)
		encoder_flush(r->enc, ci);
	/* The data is copied; only now may the kernel reuse the space. */
	ring_read_done(&c->ring);
}

static void drain_rings(void *arg)
{
	struct recorder *r = arg;

	for (size_t ci = 0; ci < r->ev.n_cpus; ci++)
		drain_ring(r, ci);
}

/* A frame is closed once it is this old. The promise is the flush interval: at most that much
 * is lost to a crash. A pass comes every quarter interval (recorder_poll()), so closing frames
 * at half the interval leaves a quarter for a late pass and a quarter for the compression and
 * a recorder that waits for a CPU. A loaded host needs it: kill -9 beside two CPU hogs lost up
 * to 1.38 s at 1 s when frames closed at 1 s and passes came every half interval, and still
 * 1.04 s (1 kill in 24) when they closed at three quarters (bench/crash-bench.sh). */
static uint64_t flush_due_ns(const struct recorder *r)
{
	return r->flush_ns / 2;
}

/* Records older than this are all in the writer: the ordering margin, and the kept samples. */
static uint64_t safe_time(const struct recorder *r, uint64_t now)
{
	uint64_t t = now > ORDER_MARGIN_NS ? now - ORDER_MARGIN_NS : 0;
	uint64_t held = r->unw ? unwinder_held_since(r->unw) : UINT64_MAX;

	return held <= t ? (held ? held - 1 : 0) : t;
}

static int drain_all(struct recorder *r)
{
	uint64_t pass = util_now_ns();
	const struct writer_stats *ws = writer_stats(r->w);
	uint64_t dropped = ws->dropped_frames;
	int rc = 0;

	drain_rings(r);
	if (r->reg) {
		objreg_poll(r->reg, r->helper_readable);
		r->helper_readable = false;
		watch_helper(r);
	}
	if (r->unw) {
		release_held(r, false);
		unwinder_pass(r->unw);
	}
	/* Stacks are defined once per file, so a damaged frame would cost the callchains of the
	 * rest of the file: start again now and then (every batch is written at this point). */
	if (r->enc && pass - r->t_restack >= r->restack_ns) {
		encoder_restart(r->enc);
		taskcg_forget(r);
		r->t_restack = pass;
	}
	r->t_safe = safe_time(r, pass);
	writer_set_safe_time(r->w, r->t_safe);
	if (writer_due(r->w, util_now_ns(), flush_due_ns(r)))
		rc = writer_flush(r->w);
	if (rc == 0 && ws->dropped_frames != dropped)
		rc = ws->last_error ? ws->last_error
				    : -EIO; /* a frame filled up mid-pass and failed */
	return rc;
}

int recorder_poll(struct recorder *r, int timeout_ms, uint64_t *tags, int max)
{
	struct epoll_event evs[64];
	int n, k = 0, rc;
	/* Wake often enough to close frames on time even when no ring reaches its watermark. */
	int max_ms = (int)(r->flush_ns / 4 / 1000000);

	if (max_ms < 1)
		max_ms = 1;
	if (timeout_ms < 0 || timeout_ms > max_ms)
		timeout_ms = max_ms;
	n = epoll_wait(r->epfd, evs, 64, timeout_ms);
	if (n < 0 && errno != EINTR)
		return -errno;
	for (int i = 0; i < n; i++) {
		if (evs[i].data.u64 == RECORDER_TAG_HELPER) {
			r->helper_readable = true; /* its replies are taken in drain_all() below */
			continue;
		}
		if (evs[i].data.u64 < RECORDER_TAG_BASE && k < max)
			tags[k++] = evs[i].data.u64;
		else if (evs[i].data.u64 >= RECORDER_TAG_BASE &&
			 (evs[i].events & (EPOLLHUP | EPOLLERR)))
			/* The traced task is gone; stop watching this ring, drain it below. */
			epoll_ctl(r->epfd, EPOLL_CTL_DEL,
				  r->ev.cpus[evs[i].data.u64 - RECORDER_TAG_BASE].fd, NULL);
	}
	rc = drain_all(r);
	if (rc < 0)
		return rc;
	return k;
}

/* The kernel's own loss counters (they also cover losses no LOST record reported yet). */
static void read_lost(struct recorder *r)
{
	uint64_t lost[r->ev.n_cpus ? r->ev.n_cpus : 1];

	if (evset_read_lost(&r->ev, lost) < 0)
		return;
	for (size_t ci = 0; ci < r->ev.n_cpus; ci++)
		r->cpus[ci].n.lost_read = lost[ci];
}

/* Per-CPU statistics for the current file (counters since it began) and its finish record. */
static void end_file(struct recorder *r, uint64_t t, int exit_status)
{
	struct rp_finish_rec *f;
	uint64_t samples = 0, lost = 0;

	read_lost(r);
	for (size_t ci = 0; ci < r->ev.n_cpus; ci++) {
		const struct counts *n = &r->cpus[ci].n, *z = &r->cpus[ci].file0;
		struct rp_cpu_stats_rec *s = writer_reserve(r->w, sizeof(*s));
		uint64_t dl = n->lost - z->lost, dr = n->lost_read - z->lost_read;

		if (!s)
			continue;
		memset(s, 0, sizeof(*s));
		s->hdr.type = RP_REC_CPU_STATS;
		s->hdr.size = sizeof(*s);
		s->time = t;
		s->cpu = (uint32_t)r->ev.cpus[ci].cpu;
		s->samples = n->samples - z->samples;
		s->lost = dl;
		s->lost_unreported = dr > dl ? dr - dl : 0;
		s->throttles = n->throttles - z->throttles;
		s->unthrottles = n->unthrottles - z->unthrottles;
		s->bad = r->ev.cpus[ci].ring.n_bad - z->bad;
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
	release_held(r, true);
	t = util_now_ns();
	writer_set_safe_time(r->w, t);
	end_file(r, t, -1);
	rc = writer_flush(r->w);
	/* The new file begins where the last one ended, and so does its state from /proc: the
	 * samples taken while the last file was closed (slow under load) come after that state,
	 * not before it (they were [unknown] processes). */
	begin_file(r, w, t);
	synth_state(r, r->t_start, true);
	return rc;
}

void recorder_halt(struct recorder *r)
{
	if (r->t_stop)
		return;
	evset_disable(&r->ev);
	r->t_stop = util_now_ns();
	/* The recording ends here: what the waits below bring is stamped no later, so that the
	 * file's end (where --since -DUR counts from) is when sampling stopped. */
	writer_set_end(r->w, r->t_stop);
	bids_cap_time(r->bids, r->t_stop);
	drain_rings(r);
	if (r->reg)
		objreg_poll(r->reg, true);
	if (r->unw)
		release_held(r, false);
}

size_t recorder_unwind_held(const struct recorder *r, size_t *ret_tables)
{
	if (!r->unw) {
		if (ret_tables)
			*ret_tables = 0;
		return 0;
	}
	return unwinder_held(r->unw, ret_tables);
}

int recorder_stop(struct recorder *r, int exit_status)
{
	recorder_halt(r);
	if (r->unw) {
		/* The tables the kept samples wait for get stop_wait_ns at most. */
		uint64_t until = util_now_ns() + r->stop_wait_ns;
		struct pollfd p = { .fd = objreg_fd(r->reg), .events = POLLIN };

		size_t tables = 0;

		/* Samples that wait for a mapping, not a table, have all there is (every ring is
		 * drained): released below. */
		while (unwinder_held(r->unw, &tables) && tables && p.fd >= 0 &&
		       util_now_ns() < until) {
			poll(&p, 1, 10);
			objreg_poll(r->reg, true);
			release_held(r, false);
			p.fd = objreg_fd(r->reg); /* a new one after a restart */
		}
		release_held(r, true);
	}
	/* Build-ids still being read get a moment (a short command's binaries are new): up to
	 * 2 s, and no longer than the stop may wait (ringprofd's is short: the watchdog). */
	{
		uint64_t wait = r->stop_wait_ns < 2000000000ull ? r->stop_wait_ns : 2000000000ull;
		uint64_t until = util_now_ns() + (wait > 500000000ull ? wait : 500000000ull);

		while (r->reg && objreg_ids_pending(r->reg) && util_now_ns() < until) {
			usleep(10000);
			objreg_poll(r->reg, true);
		}
	}
	writer_set_safe_time(r->w, r->t_stop);
	end_file(r, r->t_stop, exit_status);
	return writer_flush(r->w);
}

const struct recorder_totals *recorder_totals(struct recorder *r)
{
	struct recorder_totals *ret = &r->totals;

	memset(ret, 0, sizeof(*ret));
	for (size_t ci = 0; ci < r->ev.n_cpus; ci++) {
		const struct counts *n = &r->cpus[ci].n;

		ret->samples += n->samples;
		ret->lost += n->lost_read > n->lost ? n->lost_read : n->lost;
		ret->throttles += n->throttles;
		ret->bad += r->ev.cpus[ci].ring.n_bad;
	}
	ret->duration_ns = (r->t_stop ? r->t_stop : util_now_ns()) - r->t_first;
	return ret;
}
