/* ringprofd.c — the continuous-profiling daemon: system-wide recording into rotated files. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "check.h"
#include "base/cpulist.h"
#include "log.h"
#include "notify.h"
#include "reload.h"
#include "capture/evset.h"
#include "capture/recorder.h"
#include "store.h"
#include "base/util.h"
#include "cli/cli.h"
#include "format/format.h"
#include "format/recdir.h"
#include "format/writer.h"

#ifndef RP_SYSCONFDIR
#define RP_SYSCONFDIR "/etc"
#endif
#define DEFAULT_CONFIG RP_SYSCONFDIR "/ringprof/ringprofd.conf"

/* Exit statuses (systemd shows them by these names): EXIT_USAGE (cli.h) is INVALIDARGUMENT. */
#define EXIT_NOPERM 4	  /* NOPERMISSION: perf events refused */
#define EXIT_CANTCREAT 73 /* the recording directory is unusable */
#define EXIT_CONFIG 78	  /* CONFIG */

#define TAG_SIGNAL 1
#define STATUS_INTERVAL_NS (5 * NSEC_PER_SEC)
#define VACUUM_INTERVAL_NS (60 * NSEC_PER_SEC)
/* OffCpu=yes: switch-outs sampled a second per CPU at most (record's --off-cpu-rate); every
 * switch is still recorded, so each thread's off-CPU time stays exact. */
#define RINGPROFD_OFF_CPU_RATE 1000
#define RETRY_NS (10 * NSEC_PER_SEC)
/* A file is not rotated by size before it is this old: each file starts with the kernel
 * symbols and the process table, which may alone be near a small MaxFileSize. */
#define MIN_FILE_NS NSEC_PER_SEC
#define MIB (1024ull * 1024)
/* How long `ringprofd --reload` waits for the daemon: a reload that changes the recording
 * settings opens new events and synthesizes every process, seconds on a large host. */
#define RELOAD_TIMEOUT_MS 30000
#define MAX_NOTES 8

/* A recorder and the option storage it was opened with. */
struct rec {
	struct recorder *r;
	char event[64];
	int *cpus;
	size_t n_cpus; /* CPUs recorded */
};

/* What closed files and stopped recorders contributed, for STATUS. */
struct totals {
	uint64_t samples, lost;
	uint64_t raw_bytes, file_bytes, dropped_records, dropped_bytes;
	uint64_t files;
};

struct daemon {
	struct conf conf;
	struct conf_overrides cli;
	const char *config_path;
	bool config_required;
	char *cmdline;
	struct store store;
	struct rec rec;
	struct writer *w;
	char active[RECDIR_NAME_MAX];
	uint64_t file_t0;    /* monotonic start of the active file */
	uint64_t head_bytes; /* bytes of its head (header, kernel symbols, processes) */
	struct totals done;
	int sfd;
	uint64_t wd_ns, next_wd, next_status, next_vacuum;
	uint64_t rotate_after; /* no rotation by size or age before this (a failed one) */
	uint64_t rotate_retry; /* the active file has no readable head: replace it then */
	bool stop;
	/* Writes failing (disk full): since when, and the drop count when they began. */
	bool failing;
	int fail_err;
	uint64_t fail_dropped, fail_dropped_bytes;
	uint64_t next_error_vacuum;
	struct ratelimit rl_write, rl_rotate;
	/* Why the last reload was rejected, shown in STATUS until one succeeds. */
	char reload_error[256];
	uint64_t helper_deaths; /* as last logged */
	/* The recorder's notes already logged: a reload that opens the same events again does
	 * not repeat them. */
	char *notes[MAX_NOTES];
	size_t n_notes;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ringprofd [OPTIONS]\n"
		"\n"
		"Continuous system-wide profiling: samples every CPU at a low rate with callchains\n"
		"into rotated, self-contained recordings, within a disk budget. Run by systemd as\n"
		"ringprofd.service; needs root or CAP_PERFMON (with CAP_SYSLOG and CAP_SYS_PTRACE\n"
		"for kernel symbols and other users' processes).\n"
		"\n"
		"  -c, --config FILE        configuration file (default " DEFAULT_CONFIG ");\n"
		"                           drop-ins in FILE.d/*.conf are applied in lexical order\n"
		"      --check-config       validate the configuration: every error with its\n"
		"                           file and line, else the effective settings, MaxUse=\n"
		"                           and KeepFree= in bytes for the directory and whether\n"
		"                           it is writable; exit 0, 78 (configuration) or 73\n"
		"                           (directory not writable)\n"
		"\n"
		"Settings (each overrides the configuration file's; see ringprofd.conf(5)):\n"
		"  -D, --directory DIR      Directory=: where recordings go (default\n"
		"                           $STATE_DIRECTORY, else " CONF_DEFAULT_DIRECTORY ")\n"
		"  -e, --event NAME         Event=: event to sample (default cycles, or cpu-clock\n"
		"                           without a hardware PMU)\n"
		"  -F, --frequency HZ       Frequency=: samples per second per CPU (default 49);\n"
		"                           also --freq, as in ringprof record\n"
		"  -g, --call-graph[=MODE]  CallChain=yes: record callchains (the default); user\n"
		"                           stacks are unwound while recording from an\n"
		"                           UserStackSize= copy (default 8K; 0: frame pointers);\n"
		"                           MODE as in ringprof record: dwarf[,SIZE] sets\n"
		"                           UserStackSize=SIZE, fp sets UserStackSize=0\n"
		"  -G, --no-call-graph      CallChain=no\n"
		"      --switch-events      SwitchEvents=yes: record context switches\n"
		"      --off-cpu            OffCpu=yes: also sample switch-outs with their stacks\n"
		"                           (at most 1000 a second per CPU) and record context\n"
		"                           switches, for ringprof report's off-CPU views\n"
		"      --no-off-cpu         OffCpu=no (the default)\n"
		"      --buildid-mmap       BuildIdMmap=yes: the kernel puts build-ids in MMAP2\n"
		"                           records (breaks other perf sessions; see\n"
		"                           ringprofd.conf(5))\n"
		"  -m, --ring-pages N       RingPages=: ring buffer pages per CPU (default 128);\n"
		"                           also --mmap-pages, as in ringprof record\n"
		"  -C, --cpus LIST          CPUs=: only these CPUs, e.g. 0-3,6 (default all);\n"
		"                           also --cpu, as in ringprof record\n"
		"  -I, --flush-interval T   FlushInterval=: close a frame at least every T (default\n"
		"                           1s; bounds what a crash can lose)\n"
		"  -z, --compression N      Compression=: zstd level 1-19 (default 6)\n"
		"      --max-file-size SIZE MaxFileSize=: rotate at this size (default 64M)\n"
		"      --max-file-sec T     MaxFileSec=: rotate at this age (default 1h)\n"
		"      --max-use SIZE       MaxUse=: disk budget of all recordings (default 10%%\n"
		"                           of the file system, at most 4G)\n"
		"      --keep-free SIZE     KeepFree=: space to leave free (default 15%%, at most 4G)\n"
		"      --max-retention-sec T  MaxRetentionSec=: delete older recordings (default 0:\n"
		"                           no age limit)\n"
		"      --log-level LEVEL    LogLevel=: err, warning, notice, info or debug\n"
		"      --unwind-cache DIR|no  UnwindCache=: where unwind tables are kept across\n"
		"                           restarts (default $CACHE_DIRECTORY, else\n"
		"                           " CONF_DEFAULT_CACHE "; -D does not move it)\n"
		"\n"
		"      --reload PID         ask the ringprofd PID to reload its configuration and\n"
		"                           wait until it is in force (exit 0) or rejected (exit 1,\n"
		"                           with the reason); the unit's ExecReload=\n"
		"\n"
		"  -h, --help               this help\n"
		"  -V, --version            version\n"
		"\n"
		"SIZE takes K, M, G and T suffixes (powers of 1024); T takes ms, s, min, h, d and w.\n"
		"Signals: SIGTERM or SIGINT completes the active file and exits; SIGHUP reloads the\n"
		"configuration (a changed recording setting starts a new file; --reload waits for\n"
		"it); SIGUSR2 starts a new file now. Recordings are named\n"
		"ringprof-YYYYmmddTHHMMSSZ-NNNN.data (UTC start); the active one ends in .partial.\n"
		"Read them with `ringprof report -i FILE`.\n");
}

static int add_override(struct daemon *d, const char *key, const char *value)
{
	if (d->cli.n == sizeof(d->cli.v) / sizeof(d->cli.v[0]))
		return -E2BIG;
	d->cli.v[d->cli.n++] = (struct conf_override){ key, value };
	return 0;
}

/* "ringprofd ARGS..." for the recordings' header. */
static uint64_t mono_usec(void)
{
	return util_now_ns() / 1000;
}

/* ---- recorder ---- */

/* Log a recorder's note ("no hardware PMU: cpu-clock") the first time it is seen; hidden
 * kernel symbols are a warning, since every kernel frame will be [unknown]. */
static void note_once(struct daemon *d, const struct recorder *r, const char *note)
{
	for (size_t i = 0; i < d->n_notes; i++)
		if (strcmp(d->notes[i], note) == 0)
			return;
	if (note == recorder_ksyms_hidden(r))
		log_msg(LOG_WARNING, "%s", note);
	else
		log_msg(LOG_NOTICE, "note: %s", note);
	if (d->n_notes < MAX_NOTES && (d->notes[d->n_notes] = strdup(note)) != NULL)
		d->n_notes++;
}

/* Bytes of unwind tables kept on disk (libc's is about 230 KiB). */
#define UNWIND_CACHE_MAX (64ull << 20)
#define RINGPROFD_STOP_WAIT_NS (500ull * 1000 * 1000)

static int rec_open(struct daemon *d, const struct conf *c, struct rec *ret, char *why,
		    size_t why_size)
{
	struct recorder_opts o = { 0 };
	struct rec x = { 0 };
	char symdir[PATH_MAX + 16];
	int online[RP_MAX_CPUS];
	size_t n_online = 0;
	int r;

	util_strlcpy(x.event, c->event, sizeof(x.event));
	if (c->cpus[0]) {
		x.cpus = calloc(RP_MAX_CPUS, sizeof(int));
		if (!x.cpus)
			return -ENOMEM;
		r = cpulist_parse(c->cpus, x.cpus, RP_MAX_CPUS, &x.n_cpus);
		if (r < 0) {
			snprintf(why, why_size, "invalid CPUs=%s", c->cpus);
			free(x.cpus);
			return r;
		}
	} else if (cpulist_read_online(online, RP_MAX_CPUS, &n_online) == 0) {
		x.n_cpus = n_online;
	}
	o.event = x.event[0] ? x.event : NULL;
	o.freq = c->frequency;
	o.callchain = c->callchain;
	o.stack_user = (uint32_t)((c->stack_size + 7) & ~7ull);
	o.switch_events = c->switch_events;
	o.off_cpu = c->off_cpu;
	o.off_cpu_rate = RINGPROFD_OFF_CPU_RATE;
	o.kernel_build_ids = c->buildid_mmap;
	o.ring_pages = c->ring_pages;
	o.cpus = x.cpus;
	o.n_cpus = x.cpus ? x.n_cpus : 0;
	o.target = RECORDER_SYSTEM;
	o.cmdline = d->cmdline;
	o.flush_ns = c->flush_ns;
	/* Unwind tables outlive restarts in the cache directory, apart from the recordings. */
	o.unwind_cache = c->unwind_cache[0] ? c->unwind_cache : NULL;
	o.unwind_cache_max = UNWIND_CACHE_MAX;
	o.unwind_memory = c->unwind_memory;
	/* A stop (or a reload) must not hold the main loop past the watchdog: kept samples get
	 * half a second for their tables, then go by frame pointers. */
	o.stop_wait_ns = RINGPROFD_STOP_WAIT_NS;
	/* Symbol tables once per build-id beside the recordings, not in every rotated file. */
	o.no_symbols = !c->symbols;
	snprintf(symdir, sizeof(symdir), "%s/" STORE_SYMBOLS, d->store.dir);
	o.symbols_dir = symdir;
	r = recorder_new(&o, &x.r, why, why_size);
	if (r < 0) {
		free(x.cpus);
		return r;
	}
	for (size_t i = 0; recorder_note(x.r, i); i++)
		note_once(d, x.r, recorder_note(x.r, i));
	x.n_cpus = recorder_n_cpus(x.r); /* a CPU whose event could not be opened is left out */
	*ret = x;
	return 0;
}

/* Count what a recorder saw and free it. */
static void rec_close(struct daemon *d, struct rec *x)
{
	const struct recorder_totals *t;

	if (!x->r)
		return;
	t = recorder_totals(x->r);
	d->done.samples += t->samples;
	d->done.lost += t->lost;
	recorder_free(x->r);
	free(x->cpus);
	memset(x, 0, sizeof(*x));
}

static int rec_watch_signals(struct daemon *d)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = TAG_SIGNAL };

	return epoll_ctl(recorder_epoll_fd(d->rec.r), EPOLL_CTL_ADD, d->sfd, &ev) < 0 ? -errno : 0;
}

/* ---- files ---- */

/* Close the active writer and give the file its final name. */
static void file_close(struct daemon *d, struct writer *w, const char *name)
{
	const struct writer_stats *ws = writer_stats(w);
	uint64_t bytes = ws->file_bytes;
	char b[32];
	int r;

	d->done.raw_bytes += ws->raw_bytes;
	d->done.file_bytes += ws->file_bytes;
	d->done.dropped_records += ws->dropped_records;
	d->done.dropped_bytes += ws->dropped_bytes;
	r = writer_close(w);
	if (r < 0)
		log_msg(LOG_WARNING,
			"completing %s failed: %s; it is readable up to its last complete frame",
			name, strerror(-r));
	r = store_finish(&d->store, name, bytes);
	if (r < 0) {
		log_msg(LOG_ERR, "cannot rename %s/%s to its final name: %s", d->store.dir, name,
			strerror(-r));
		return;
	}
	d->done.files++;
	log_msg(LOG_INFO, "closed %.*s (%s)", (int)(strlen(name) - strlen(".partial")), name,
		util_format_bytes(bytes, b, sizeof(b)));
}

static void file_started(struct daemon *d)
{
	const struct writer_stats *ws = writer_stats(d->w);

	d->file_t0 = util_now_ns();
	d->head_bytes = ws->file_bytes;
	d->rotate_after = 0;
	d->rotate_retry = 0;
	if (!ws->file_bytes && ws->dropped_frames) {
		/* The head did not fit on the disk: this file cannot be read; try again soon. */
		log_ratelimited(&d->rl_rotate, LOG_WARNING,
				"cannot write the start of %s: %s; trying a new file in %llu s",
				d->active, strerror(-(ws->last_error ? ws->last_error : -EIO)),
				(unsigned long long)(RETRY_NS / NSEC_PER_SEC));
		d->rotate_retry = d->file_t0 + RETRY_NS;
	}
}

/* ---- retention ---- */

#define VACUUM_DISK_WAIT_NS (500ull * 1000 * 1000) /* a retention pass waits that long at most */

static void policy_of(struct daemon *d, struct store_policy *p)
{
	uint64_t fs_size = 0, fs_free = 0;

	store_fs(&d->store, &fs_size, &fs_free);
	p->max_use = conf_size_resolve(&d->conf.max_use, fs_size);
	p->keep_free = conf_size_resolve(&d->conf.keep_free, fs_size);
	if (p->keep_free > fs_size && !d->conf.keep_free.infinity && fs_size)
		p->keep_free = fs_size;
	p->max_age_ns = d->conf.max_retention_ns;
}

static void vacuum(struct daemon *d)
{
	static struct ratelimit rl;
	struct store_policy p;
	int r;

	/* The symbol tables the recorder's disk worker is writing count too. */
	recorder_sync_disk(d->rec.r, VACUUM_DISK_WAIT_NS);
	policy_of(d, &p);
	r = store_vacuum(&d->store, &p, NULL);
	if (r < 0)
		log_ratelimited(&rl, LOG_WARNING, "cannot apply retention in %s: %s", d->store.dir,
				strerror(-r));
	r = store_prune_symbols(&d->store, d->conf.symbols_max_use, p.keep_free, NULL);
	if (r < 0)
		log_ratelimited(&rl, LOG_WARNING, "cannot prune the symbol tables in %s/%s: %s",
				d->store.dir, STORE_SYMBOLS, strerror(-r));
	d->next_vacuum = util_now_ns() + VACUUM_INTERVAL_NS;
}

/* ---- status ---- */

static void status_line(struct daemon *d, char *buf, size_t size)
{
	const struct writer_stats *ws = writer_stats(d->w);
	const struct recorder_totals *t = recorder_totals(d->rec.r);
	uint64_t samples, lost, raw, file, dropped;
	char b[32], hb[700];
	size_t n;

	samples = d->done.samples + t->samples;
	lost = d->done.lost + t->lost;
	raw = d->done.raw_bytes + ws->raw_bytes;
	file = d->done.file_bytes + ws->file_bytes;
	dropped = d->done.dropped_records + ws->dropped_records;
	snprintf(buf, size,
		 "recording %zu CPU%s at %llu Hz (%s): %llu samples, %llu lost, %s written "
		 "(%.1fx), file %s",
		 d->rec.n_cpus, d->rec.n_cpus == 1 ? "" : "s",
		 (unsigned long long)recorder_freq(d->rec.r), recorder_event_name(d->rec.r),
		 (unsigned long long)samples, (unsigned long long)lost,
		 util_format_bytes(file, b, sizeof(b)), file ? (double)raw / (double)file : 0.0,
		 d->active);
	n = strlen(buf);
	if (d->failing)
		snprintf(buf + n, size - n, "; cannot write (%s): %llu records dropped",
			 strerror(-d->fail_err), (unsigned long long)dropped);
	else if (dropped)
		snprintf(buf + n, size - n, "; %llu records dropped earlier",
			 (unsigned long long)dropped);
	n = strlen(buf);
	if (n < size && recorder_helper_deaths(d->rec.r, hb, sizeof(hb)))
		n += (size_t)snprintf(buf + n, size - n, "; %s", hb);
	if (n < size && d->reload_error[0])
		snprintf(buf + n, size - n, "; last reload rejected: %s", d->reload_error);
}

static void status(struct daemon *d, const char *prefix)
{
	char s[2048];

	status_line(d, s, sizeof(s));
	notify_sendf("%sSTATUS=%s", prefix ? prefix : "", s);
	d->next_status = util_now_ns() + STATUS_INTERVAL_NS;
}

/* ---- rotation ---- */

/* A rotation failed: no new attempt by size or age (nor a due retry) for a while. */
static void rotate_later(struct daemon *d)
{
	d->rotate_after = util_now_ns() + RETRY_NS;
	if (d->rotate_retry)
		d->rotate_retry = d->rotate_after;
}

static void rotate(struct daemon *d, const char *why)
{
	struct writer *nw, *old = d->w;
	char name[RECDIR_NAME_MAX], oldname[RECDIR_NAME_MAX], b[32];
	uint64_t fs_size, fs_free, need = d->head_bytes * 2 + MIB;
	int r;

	/* What the disk worker still writes (symbol tables) is on disk before the space is
	 * counted, here and in the retention pass below. */
	recorder_sync_disk(d->rec.r, VACUUM_DISK_WAIT_NS);
	/* A new file starts with about head_bytes; on a full disk it could not even hold that,
	 * and the recorder would switch to a file without a readable head. */
	if (store_fs(&d->store, &fs_size, &fs_free) == 0 && fs_free < need) {
		log_ratelimited(&d->rl_rotate, LOG_WARNING,
				"not starting a new file (%s): %s available, %s needed; continuing in %s",
				why, util_format_bytes(fs_free, b, sizeof(b)),
				util_format_bytes(need, (char[32]){ 0 }, 32), d->active);
		rotate_later(d);
		return;
	}
	r = store_create(&d->store, d->conf.compression, &nw, name, sizeof(name));
	if (r < 0) {
		log_ratelimited(&d->rl_rotate, LOG_WARNING,
				"cannot create a new file in %s (%s): %s; continuing in %s",
				d->store.dir, why, strerror(-r), d->active);
		rotate_later(d);
		return;
	}
	r = recorder_rotate(d->rec.r, nw);
	if (r < 0)
		log_msg(LOG_WARNING, "the end of %s could not be written: %s", d->active,
			strerror(-r));
	d->w = nw;
	util_strlcpy(oldname, d->active, sizeof(oldname));
	util_strlcpy(d->active, name, sizeof(d->active));
	file_close(d, old, oldname);
	file_started(d);
	log_msg(LOG_INFO, "new file %s (%s)", name, why);
	vacuum(d);
	status(d, NULL);
}

/* ---- reload ---- */

static void watchdog_ping(struct daemon *d)
{
	if (!d->wd_ns)
		return;
	notify_send("WATCHDOG=1");
	d->next_wd = util_now_ns() + d->wd_ns / 2;
}

/* The recording settings changed: a new recorder into a new file, then the old one is
 * stopped. On failure everything stays as it was. */
static int restart_recorder(struct daemon *d, const struct conf *c, char *why, size_t why_size)
{
	struct rec x;
	struct writer *nw, *old = d->w;
	char err[1024], name[RECDIR_NAME_MAX], oldname[RECDIR_NAME_MAX];
	int r;

	r = rec_open(d, c, &x, err, sizeof(err));
	if (r < 0) {
		snprintf(why, why_size, "cannot record with the new settings: %.900s", err);
		return r;
	}
	r = store_create(&d->store, c->compression, &nw, name, sizeof(name));
	if (r < 0) {
		snprintf(why, why_size, "cannot create a new file in %.600s: %s", d->store.dir,
			 strerror(-r));
		rec_close(d, &x);
		return r;
	}
	r = recorder_stop(d->rec.r, -1);
	if (r < 0)
		log_msg(LOG_WARNING, "the end of %s could not be written: %s", d->active,
			strerror(-r));
	util_strlcpy(oldname, d->active, sizeof(oldname));
	file_close(d, old, oldname);
	rec_close(d, &d->rec);
	d->rec = x;
	d->w = nw;
	util_strlcpy(d->active, name, sizeof(d->active));
	r = recorder_start(d->rec.r, d->w);
	if (r < 0)
		log_msg(LOG_WARNING, "could not enable every event: %s", strerror(-r));
	rec_watch_signals(d);
	file_started(d);
	log_msg(LOG_INFO, "new file %s: recording at %llu Hz (%s)", name,
		(unsigned long long)recorder_freq(d->rec.r), recorder_event_name(d->rec.r));
	return 0;
}

/* Apply the configuration as it is now on disk: 0, or -errno with the reason in WHY and the
 * running configuration kept. */
static int reload_apply(struct daemon *d, char *why, size_t why_size)
{
	struct conf c;
	int r;

	r = conf_load(d->config_path, d->config_required, &d->cli, &c, why, why_size);
	if (r < 0)
		return r;
	if (strcmp(c.directory, d->conf.directory)) {
		log_msg(LOG_NOTICE,
			"Directory=%s takes effect at the next start; still recording into %s",
			c.directory, d->conf.directory);
		util_strlcpy(c.directory, d->conf.directory, sizeof(c.directory));
	}
	if (conf_recording_differs(&c, &d->conf)) {
		r = restart_recorder(d, &c, why, why_size);
		if (r < 0)
			return r;
	}
	d->conf = c;
	log_set_max_level(c.log_level);
	return 0;
}

/* SIGHUP: reload, then tell the requester (`ringprofd --reload`, if it was one) and systemd
 * the outcome; a rejection stays in STATUS until a reload succeeds. */
static void reload(struct daemon *d, const struct reload_waiter *w)
{
	uint64_t t0 = util_now_ns();
	char why[1024];
	int r;

	/* A reload that restarts the recorder takes seconds under CPUQuota= on a busy host;
	 * several in a row must not leave a whole watchdog interval without a ping. */
	watchdog_ping(d);
	notify_sendf("RELOADING=1\nMONOTONIC_USEC=%llu", (unsigned long long)mono_usec());
	r = reload_apply(d, why, sizeof(why));
	if (r < 0) {
		log_msg(LOG_ERR, "reload rejected: %s; keeping the running configuration", why);
		util_strlcpy(d->reload_error, why, sizeof(d->reload_error));
	} else {
		d->reload_error[0] = '\0';
		log_msg(LOG_INFO, "configuration reloaded (%s) in %.2f s", conf_sources(),
			(double)(util_now_ns() - t0) / 1e9);
		vacuum(d);
	}
	watchdog_ping(d);
	status(d, "READY=1\n");
	r = reload_answer(w, r < 0 ? r : 0, why);
	if (r < 0)
		log_msg(LOG_WARNING, "cannot answer the reload request of process %d: %s",
			(int)w->pid, strerror(-r));
}

/* ---- main loop ---- */

static void on_signals(struct daemon *d)
{
	struct signalfd_siginfo si;

	while (read(d->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGTERM:
		case SIGINT:
			d->stop = true;
			break;
		case SIGHUP: {
			struct reload_waiter w = reload_waiter_of(&si);

			if (!d->stop)
				reload(d, &w);
			else
				reload_answer(&w, -ECANCELED, "the daemon is stopping");
			break;
		}
		case SIGUSR2:
			if (!d->stop)
				rotate(d, "SIGUSR2");
			break;
		}
	}
}

/* After each pass: each death of the helper is logged (the recorder restarts it, or pauses
 * it after too many) and shown in STATUS. A recorder of a reload starts counting from 0. */
static void check_helpers(struct daemon *d)
{
	char buf[700];
	uint64_t n = recorder_helper_deaths(d->rec.r, buf, sizeof(buf));

	if (n < d->helper_deaths)
		d->helper_deaths = 0;
	if (n == d->helper_deaths)
		return;
	d->helper_deaths = n;
	log_msg(LOG_WARNING, "%s", buf);
	status(d, NULL);
}

/* After each pass: a failed write (disk full) is logged once and shown in STATUS; the
 * writer keeps dropping and counting until a frame lands again. */
static void check_writes(struct daemon *d, int poll_result)
{
	const struct writer_stats *ws = writer_stats(d->w);
	uint64_t now = util_now_ns();

	if (poll_result < 0) {
		if (!d->failing) {
			d->failing = true;
			d->fail_err = poll_result;
			d->fail_dropped = ws->dropped_records;
			d->fail_dropped_bytes = ws->dropped_bytes;
			d->rl_write.used =
			    true; /* the "still" reminders start one interval later */
			d->rl_write.last_ns = now;
			d->rl_write.suppressed = 0;
			log_msg(LOG_WARNING,
				"cannot write %s/%s: %s; recording continues and drops what it "
				"cannot write until "
				"space returns",
				d->store.dir, d->active, strerror(-poll_result));
			status(d, NULL);
		} else {
			log_ratelimited(&d->rl_write, LOG_WARNING,
					"still cannot write %s: %s; %llu records dropped so far",
					d->active, strerror(-poll_result),
					(unsigned long long)(ws->dropped_records - d->fail_dropped));
		}
		/* Deleting old files under KeepFree may be what makes room. */
		if (now >= d->next_error_vacuum) {
			vacuum(d);
			d->next_error_vacuum = now + RETRY_NS;
		}
		return;
	}
	if (d->failing && ws->last_error == 0 && ws->frames) {
		char b[32];

		log_msg(LOG_NOTICE,
			"writing %s again; %llu records (%s) could not be written meanwhile",
			d->active, (unsigned long long)(ws->dropped_records - d->fail_dropped),
			util_format_bytes(ws->dropped_bytes - d->fail_dropped_bytes, b, sizeof(b)));
		d->failing = false;
		status(d, NULL);
	}
}

static void check_rotation(struct daemon *d)
{
	uint64_t now = util_now_ns(), age = now - d->file_t0;

	if (d->rotate_retry) {
		if (now >= d->rotate_retry)
			rotate(d, "the active file has no readable head");
		return;
	}
	if (now < d->rotate_after)
		return;
	if (age >= MIN_FILE_NS && recdir_file_estimate(d->w) >= d->conf.max_file_size)
		rotate(d, "MaxFileSize");
	else if (d->conf.max_file_ns && age >= d->conf.max_file_ns)
		rotate(d, "MaxFileSec");
}

static int next_timeout_ms(struct daemon *d)
{
	uint64_t now = util_now_ns(), next = now + NSEC_PER_SEC;

	if (d->wd_ns && d->next_wd < next)
		next = d->next_wd;
	if (d->next_status < next)
		next = d->next_status;
	if (d->next_vacuum < next)
		next = d->next_vacuum;
	if (d->rotate_retry && d->rotate_retry < next)
		next = d->rotate_retry;
	if (!d->rotate_retry && d->conf.max_file_ns) {
		uint64_t due = d->file_t0 + d->conf.max_file_ns;

		if (due < d->rotate_after)
			due = d->rotate_after;
		if (due < next)
			next = due;
	}
	return next <= now ? 0 : (int)((next - now + 999999) / 1000000);
}

static void run(struct daemon *d)
{
	while (!d->stop) {
		uint64_t tags[8], now;
		int n = recorder_poll(d->rec.r, next_timeout_ms(d), tags, 8);

		check_writes(d, n);
		check_helpers(d);
		for (int i = 0; i < n; i++)
			if (tags[i] == TAG_SIGNAL)
				on_signals(d);
		if (d->stop)
			break;
		check_rotation(d);
		now = util_now_ns();
		if (d->wd_ns && now >= d->next_wd)
			watchdog_ping(d);
		if (now >= d->next_vacuum)
			vacuum(d);
		if (now >= d->next_status)
			status(d, NULL);
	}
}

static void shutdown_recording(struct daemon *d)
{
	char s[2048];
	int r;

	status_line(d, s, sizeof(s));
	notify_sendf("STOPPING=1\nSTATUS=stopping; %s", s);
	r = recorder_stop(d->rec.r, -1);
	if (r < 0)
		log_msg(LOG_WARNING, "the end of %s could not be written: %s", d->active,
			strerror(-r));
	file_close(d, d->w, d->active);
	d->w = NULL;
	rec_close(d, &d->rec);
	log_msg(LOG_INFO,
		"stopped: %llu samples, %llu lost, %llu records dropped, %llu file%s closed",
		(unsigned long long)d->done.samples, (unsigned long long)d->done.lost,
		(unsigned long long)d->done.dropped_records, (unsigned long long)d->done.files,
		d->done.files == 1 ? "" : "s");
}

/* Options that set a configuration key: to KEY=VALUE, or KEY=the argument. */
struct setting_opt {
	int val;
	const char *key;
	const char *value;
};

enum {
	OPT_CHECK = 256,
	OPT_SWITCH,
	OPT_NO_SWITCH,
	OPT_BUILDID_MMAP,
	OPT_MAX_FILE_SIZE,
	OPT_MAX_FILE_SEC,
	OPT_MAX_USE,
	OPT_KEEP_FREE,
	OPT_MAX_RETENTION,
	OPT_LOG_LEVEL,
	OPT_UNWIND_CACHE,
	OPT_CALL_GRAPH,
	OPT_RELOAD,
	OPT_OFF_CPU,
	OPT_NO_OFF_CPU,
};

static const struct setting_opt setting_opts[] = {
	{ 'D', "Directory", NULL },
	{ 'e', "Event", NULL },
	{ 'F', "Frequency", NULL },
	{ 'g', "CallChain", "yes" },
	{ 'G', "CallChain", "no" },
	{ OPT_SWITCH, "SwitchEvents", "yes" },
	{ OPT_NO_SWITCH, "SwitchEvents", "no" },
	{ OPT_OFF_CPU, "OffCpu", "yes" },
	{ OPT_NO_OFF_CPU, "OffCpu", "no" },
	{ OPT_BUILDID_MMAP, "BuildIdMmap", "yes" },
	{ 'm', "RingPages", NULL },
	{ 'C', "CPUs", NULL },
	{ 'I', "FlushInterval", NULL },
	{ 'z', "Compression", NULL },
	{ OPT_MAX_FILE_SIZE, "MaxFileSize", NULL },
	{ OPT_MAX_FILE_SEC, "MaxFileSec", NULL },
	{ OPT_MAX_USE, "MaxUse", NULL },
	{ OPT_KEEP_FREE, "KeepFree", NULL },
	{ OPT_MAX_RETENTION, "MaxRetentionSec", NULL },
	{ OPT_LOG_LEVEL, "LogLevel", NULL },
	{ OPT_UNWIND_CACHE, "UnwindCache", NULL },
};

/* --call-graph[=fp|dwarf[,SIZE]], ringprof record's spelling: CallChain=yes, and the
 * stack copy as UserStackSize= (0 for frame pointers). 0 or -errno (said). */
static int call_graph(struct daemon *d, const char *mode)
{
	const char *size = NULL; /* an override keeps its value's pointer: argv's, or a literal */
	char why[160];
	uint32_t stack_user;

	if (mode && evset_parse_call_graph(mode, &stack_user, why, sizeof(why)) < 0) {
		fprintf(stderr, "ringprofd: %s\nTry 'ringprofd --help'.\n", why);
		return -EINVAL;
	}
	/* A bare "dwarf" keeps the configured UserStackSize=; SIZE was checked above. */
	if (mode && strcmp(mode, "fp") == 0)
		size = "0";
	else if (mode && strncmp(mode, "dwarf,", 6) == 0)
		size = mode + 6;
	if (add_override(d, "CallChain", "yes") < 0 ||
	    (size && add_override(d, "UserStackSize", size) < 0)) {
		fprintf(stderr, "ringprofd: too many options\n");
		return -E2BIG;
	}
	return 0;
}

/* --reload PID: what ExecReload= runs. It returns once the daemon has the new configuration
 * in force (0) or has rejected it (1, with the daemon's reason), so that `systemctl reload`
 * is synchronous on systemd 252 and fails when the reload did. */
static int reload_main(const char *arg)
{
	char why[1024], *end;
	long pid;
	int r;

	errno = 0;
	pid = strtol(arg, &end, 10);
	if (errno || end == arg || *end || pid <= 0 || pid > INT32_MAX) {
		fprintf(stderr, "ringprofd: --reload takes the daemon's process id, not '%s'\n",
			arg);
		return EXIT_USAGE;
	}
	r = reload_request((pid_t)pid, RELOAD_TIMEOUT_MS, why, sizeof(why));
	if (r < 0) {
		fprintf(stderr, "ringprofd: %s\n", why);
		return 1;
	}
	return 0;
}

static int parse_args(struct daemon *d, int argc, char **argv, bool *check_only)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", no_argument, NULL, OPT_CHECK },
		{ "directory", required_argument, NULL, 'D' },
		{ "event", required_argument, NULL, 'e' },
		{ "frequency", required_argument, NULL, 'F' },
		{ "freq", required_argument, NULL, 'F' }, /* ringprof record's spelling */
		{ "call-graph", optional_argument, NULL, OPT_CALL_GRAPH },
		{ "no-call-graph", no_argument, NULL, 'G' },
		{ "switch-events", no_argument, NULL, OPT_SWITCH },
		{ "no-switch-events", no_argument, NULL, OPT_NO_SWITCH },
		{ "off-cpu", no_argument, NULL, OPT_OFF_CPU },
		{ "no-off-cpu", no_argument, NULL, OPT_NO_OFF_CPU },
		{ "buildid-mmap", no_argument, NULL, OPT_BUILDID_MMAP },
		{ "ring-pages", required_argument, NULL, 'm' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "cpus", required_argument, NULL, 'C' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "flush-interval", required_argument, NULL, 'I' },
		{ "compression", required_argument, NULL, 'z' },
		{ "max-file-size", required_argument, NULL, OPT_MAX_FILE_SIZE },
		{ "max-file-sec", required_argument, NULL, OPT_MAX_FILE_SEC },
		{ "max-use", required_argument, NULL, OPT_MAX_USE },
		{ "keep-free", required_argument, NULL, OPT_KEEP_FREE },
		{ "max-retention-sec", required_argument, NULL, OPT_MAX_RETENTION },
		{ "log-level", required_argument, NULL, OPT_LOG_LEVEL },
		{ "unwind-cache", required_argument, NULL, OPT_UNWIND_CACHE },
		{ "reload", required_argument, NULL, OPT_RELOAD },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	cli_options(longopts);
	while ((c = getopt_long(argc, argv, ":c:D:e:F:gGm:C:I:z:hV", longopts, NULL)) != -1) {
		const struct setting_opt *so = NULL;

		for (size_t i = 0; i < sizeof(setting_opts) / sizeof(setting_opts[0]); i++)
			if (setting_opts[i].val == c)
				so = &setting_opts[i];
		if (so) {
			if (add_override(d, so->key, so->value ? so->value : optarg) < 0) {
				fprintf(stderr, "ringprofd: too many options\n");
				return -E2BIG;
			}
			continue;
		}
		switch (c) {
		case OPT_CALL_GRAPH:
			if (call_graph(d, optarg) < 0)
				return -EINVAL;
			break;
		case 'c':
			d->config_path = optarg;
			d->config_required = true;
			break;
		case OPT_CHECK:
			*check_only = true;
			break;
		case OPT_RELOAD:
			exit(reload_main(optarg));
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("ringprofd %s\n", PACKAGE_VERSION);
			exit(0);
		default:
			cli_option_error("ringprofd", c, argv);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ringprofd: unexpected argument '%s'\nTry 'ringprofd --help'.\n",
			argv[optind]);
		return -EINVAL;
	}
	return 0;
}

/* SIGPIPE is ignored; the signals ringprofd acts on are blocked and read from a signalfd. */
static int block_signals(struct daemon *d)
{
	sigset_t mask;

	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR2);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	d->sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	return d->sfd < 0 ? -errno : 0;
}

/* The one line that says what is recorded, where, and within which limits. */
static void log_started(struct daemon *d)
{
	struct store_policy p;
	char b1[32], b2[32], b3[32], b4[32];

	policy_of(d, &p);
	log_msg(LOG_INFO,
		"recording %zu CPU%s at %llu Hz (%s%s) into %s/%s; new file at %s%s%s; "
		"budget %s (MaxUse=%s), keeping %s free",
		d->rec.n_cpus, d->rec.n_cpus == 1 ? "" : "s",
		(unsigned long long)recorder_freq(d->rec.r), recorder_event_name(d->rec.r),
		d->conf.callchain ? ", callchains" : "", d->store.dir, d->active,
		util_format_bytes(d->conf.max_file_size, b1, sizeof(b1)),
		d->conf.max_file_ns ? " or after " : "",
		d->conf.max_file_ns ? conf_format_duration(d->conf.max_file_ns, b2, sizeof(b2)) : "",
		p.max_use == UINT64_MAX ? "unlimited" : util_format_bytes(p.max_use, b3, sizeof(b3)),
		conf_format_size(&d->conf.max_use, (char[32]){ 0 }, 32),
		util_format_bytes(p.keep_free, b4, sizeof(b4)));
}

int main(int argc, char **argv)
{
	static struct daemon dd = { .config_path = DEFAULT_CONFIG, .sfd = -1 };
	struct daemon *d = &dd;
	char why[1024];
	bool check_only = false;
	int r;

	log_init("ringprofd");
	if (parse_args(d, argc, argv, &check_only) < 0)
		return EXIT_USAGE;

	if (check_only)
		return check_config(d->config_path, d->config_required, &d->cli);
	/* 1. Configuration. */
	r = conf_load(d->config_path, d->config_required, &d->cli, &d->conf, why, sizeof(why));
	if (r < 0) {
		log_msg(LOG_ERR, "%s", why);
		return EXIT_CONFIG;
	}
	log_set_max_level(d->conf.log_level);
	d->cmdline = util_join_args("ringprofd", argc, argv);
	if (!d->cmdline)
		return 1;

	/* 2. Signals arrive through the recorder's epoll set. */
	r = block_signals(d);
	if (r < 0) {
		log_msg(LOG_ERR, "signalfd: %s", strerror(-r));
		return 1;
	}

	/* 3. Requirements and resources: the directory, the events, the first file. */
	r = store_open(&d->store, d->conf.directory, why, sizeof(why));
	if (r < 0) {
		log_msg(LOG_ERR, "%s", why);
		return EXIT_CANTCREAT;
	}
	store_recover(&d->store);
	r = rec_open(d, &d->conf, &d->rec, why, sizeof(why));
	if (r < 0) {
		log_msg(LOG_ERR, "cannot record: %s", why);
		return r == -EPERM || r == -EACCES ? EXIT_NOPERM : 1;
	}
	vacuum(d); /* make room before the first file */
	r = store_create(&d->store, d->conf.compression, &d->w, d->active, sizeof(d->active));
	if (r < 0) {
		log_msg(LOG_ERR, "cannot create a recording in %s: %s", d->store.dir, strerror(-r));
		return EXIT_CANTCREAT;
	}
	r = recorder_start(d->rec.r, d->w);
	if (r < 0)
		log_msg(LOG_WARNING, "could not enable every event: %s", strerror(-r));
	r = rec_watch_signals(d);
	if (r < 0) {
		log_msg(LOG_ERR, "epoll_ctl: %s", strerror(-r));
		return 1;
	}
	file_started(d);

	/* 4. Ready. */
	log_started(d);
	d->wd_ns = notify_watchdog_ns();
	d->next_wd = util_now_ns();
	status(d, "READY=1\n");

	run(d);

	shutdown_recording(d);
	store_close(&d->store);
	close(d->sfd);
	free(d->cmdline);
	for (size_t i = 0; i < d->n_notes; i++)
		free(d->notes[i]);
	return 0;
}
