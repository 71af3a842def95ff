/* session.c — replay, filtering and aggregation of samples; symbolization of unique locations. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/perf_event.h>

#include "format.h"
#include "intern.h"
#include "ksymtab.h"
#include "perfmap.h"
#include "procmodel.h"
#include "reader.h"
#include "record.h"
#include "session.h"
#include "symbolizer.h"
#include "util.h"

#define MAX_FRAMES 512
#define INLINE_MAX 16

enum dso_kind {
	DSO_KERNEL,  /* the kernel and its modules; locations are addresses */
	DSO_FILE,    /* an ELF file; locations are file offsets */
	DSO_JIT,     /* anonymous code of one process; locations are addresses (perf-PID.map) */
	DSO_PSEUDO,  /* [vdso] and the like: no file to read; locations are file offsets */
};

struct dso {
	enum dso_kind kind;
	struct sym_dso *sym;   /* DSO_FILE */
	int32_t pid;           /* DSO_JIT */
	struct perfmap *pmap;  /* DSO_JIT, loaded on first use */
	bool pmap_tried;
	char *name;            /* short name for reports */
};

/* Aggregation before symbolization: (location stack, task, cpu). */
struct agg {
	uint32_t stack, task, cpu;
	uint64_t count, period;
};

struct session {
	struct session_opts o;
	struct symbolizer *symz;
	struct ksymtab *ksyms;
	bool ksyms_loaded;
	bool ksyms_partial;        /* the file being read writes kernel symbols as needed */
	struct reader *rd;         /* the file being read */
	struct procmodel *pm;
	struct dso *dsos;
	uint32_t n_dsos, cap_dsos;
	struct pairtab *dso_ids;   /* identity (value, TAG_*) -> dso id */
	struct strtab *names;      /* pseudo-file and module names */
	struct pairtab *locs;      /* (dso, address or offset) -> location id */
	struct seqtab *stacks;     /* location ids, leaf first */
	struct pairtab *tasks;     /* (pid << 32 | tid, comm) -> task id */
	struct pairtab *agg_ids;   /* (stack, task << 20 | cpu) -> agg index */
	/* A packed sample's stack resolved once per process state: (reader stack << 32 | pid,
	 * file << 48 ^ process generation) -> location stack in scache_val (UINT32_MAX unset). */
	struct pairtab *scache;
	uint32_t *scache_val;
	uint32_t cap_scache;
	uint64_t file_no;
	/* The last task seen on each CPU (modulo 64), valid while the process model is unchanged:
	 * samples come in runs of one thread per CPU, this saves three lookups each. */
	struct task_memo {
		uint64_t version;    /* procmodel_version() when filled; 0: empty */
		uint32_t pid, tid;
		int64_t comm, task;
		uint64_t pgen;       /* procmodel_gen() of pid */
	} memo[64];
	struct agg *aggs;
	uint32_t n_aggs, cap_aggs;
	/* after session_finish */
	struct pairtab *syms_ids;  /* (dso, name pointer) -> sym id */
	struct session_sym *syms;
	uint32_t n_syms, cap_syms;
	struct seqtab *symstacks;
	struct session_row *rows;
	size_t n_rows;
	struct rp_header_rec *header;
	struct session_totals t;
	/* per-file state */
	uint64_t sample_type;
	uint64_t since, until;     /* CLOCK_MONOTONIC ns of the file being read */
	int8_t *comm_ok;           /* comm filter verdict per comm id: 0 unknown, 1 keep, -1 drop */
	uint32_t n_comm_ok;
	bool finished;
	uint32_t loc_buf[MAX_FRAMES];
};

static int64_t add_dso(struct session *s, enum dso_kind kind, const char *name)
{
	struct dso *d;

	if (s->n_dsos == s->cap_dsos) {
		uint32_t cap = s->cap_dsos ? s->cap_dsos * 2 : 64;
		struct dso *n = realloc(s->dsos, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->dsos = n;
		s->cap_dsos = cap;
	}
	d = &s->dsos[s->n_dsos];
	memset(d, 0, sizeof(*d));
	d->kind = kind;
	d->name = strdup(name);
	if (!d->name)
		return -ENOMEM;
	return s->n_dsos++;
}

/* Identity tags: a dso is (value, tag) in dso_ids, and its id there is its index in dsos. */
enum {
	TAG_KERNEL = 1,
	TAG_MODULE, /* value: module name id in names */
	TAG_FILE,   /* value: the symbolizer's handle */
	TAG_JIT,    /* value: pid */
	TAG_PSEUDO, /* value: name id in names */
};

static int64_t get_dso(struct session *s, uint64_t value, uint64_t tag, enum dso_kind kind, const char *name)
{
	bool added;
	int64_t id = pairtab_intern(s->dso_ids, value, tag, &added);

	if (id < 0 || !added)
		return id;
	if (add_dso(s, kind, name) != id)
		return -ENOMEM;
	return id;
}

struct session *session_new(const struct session_opts *o)
{
	struct session *s = calloc(1, sizeof(*s));
	struct symbolizer_opts so;

	if (!s)
		return NULL;
	s->o = *o;
	memset(&so, 0, sizeof(so));
	so.symfs = o->symfs;
	so.inline_frames = o->inline_frames;
	so.debuginfod = o->debuginfod;
	so.debuginfod_timeout = o->debuginfod_timeout;
	so.warn = o->warn;
	so.warn_arg = o->warn_arg;
	s->symz = symbolizer_new(&so);
	s->ksyms = ksymtab_new();
	s->pm = procmodel_new();
	s->dso_ids = pairtab_new();
	s->locs = pairtab_new();
	s->stacks = seqtab_new();
	s->tasks = pairtab_new();
	s->agg_ids = pairtab_new();
	s->scache = pairtab_new();
	s->syms_ids = pairtab_new();
	s->symstacks = seqtab_new();
	s->names = strtab_new();
	if (!s->names || !s->symz || !s->ksyms || !s->pm || !s->dso_ids || !s->locs || !s->stacks || !s->tasks ||
	    !s->agg_ids || !s->scache || !s->syms_ids || !s->symstacks)
		return session_free(s);
	if (get_dso(s, 0, TAG_KERNEL, DSO_KERNEL, "[kernel.kallsyms]") != 0)
		return session_free(s);
	return s;
}

struct session *session_free(struct session *s)
{
	if (!s)
		return NULL;
	for (uint32_t i = 0; i < s->n_dsos; i++) {
		free(s->dsos[i].name);
		perfmap_free(s->dsos[i].pmap);
	}
	free(s->dsos);
	symbolizer_free(s->symz);
	ksymtab_free(s->ksyms);
	procmodel_free(s->pm);
	pairtab_free(s->dso_ids);
	pairtab_free(s->locs);
	seqtab_free(s->stacks);
	pairtab_free(s->tasks);
	pairtab_free(s->agg_ids);
	pairtab_free(s->scache);
	free(s->scache_val);
	pairtab_free(s->syms_ids);
	seqtab_free(s->symstacks);
	strtab_free(s->names);
	free(s->aggs);
	free(s->syms);
	free(s->rows);
	free(s->header);
	free(s->comm_ok);
	free(s);
	return NULL;
}

/* ---- time window ---- */

int session_file_bounds(const char *path, int64_t *ret_start, int64_t *ret_end, char *why, size_t why_size)
{
	struct reader *r;
	const struct rp_header_rec *h;
	uint64_t first, last;
	int rc = reader_open(path, &r, why, why_size);

	if (rc < 0)
		return rc;
	h = reader_header(r);
	if (!h) {
		snprintf(why, why_size, "its header is lost, so its wall-clock time is unknown");
		rc = -ENODATA;
	} else if (reader_time_bounds(r, &first, &last) < 0) {
		snprintf(why, why_size, "no intact frame");
		rc = -ENODATA;
	} else {
		*ret_start = util_wall_ns(first, h->realtime_offset);
		*ret_end = util_wall_ns(last, h->realtime_offset);
	}
	reader_free(r);
	return rc;
}

/* ---- replay ---- */

static int64_t jit_dso(struct session *s, int32_t pid)
{
	char name[64];
	int64_t id;

	snprintf(name, sizeof(name), "[JIT] pid %d", (int)pid);
	id = get_dso(s, (uint32_t)pid, TAG_JIT, DSO_JIT, name);
	if (id >= 0)
		s->dsos[id].pid = pid;
	return id;
}

static bool is_anon(const char *path)
{
	return !path[0] || strncmp(path, "//anon", 6) == 0 || strncmp(path, "[anon", 5) == 0 ||
	       strcmp(path, "[heap]") == 0 || strcmp(path, "[stack]") == 0;
}

static int64_t mapped_dso(struct session *s, const char *path, const uint8_t *bid, size_t bid_len, uint32_t maj,
			  uint32_t min, uint64_t ino, int32_t pid)
{
	char clean[4200];
	size_t len = strlen(path);
	struct sym_dso *d;
	int64_t id;

	if (is_anon(path))
		return jit_dso(s, pid);
	/* The kernel appends " (deleted)" to files removed since they were mapped. */
	if (len > 10 && len < sizeof(clean) && strcmp(path + len - 10, " (deleted)") == 0) {
		memcpy(clean, path, len - 10);
		clean[len - 10] = '\0';
		path = clean;
	}
	if (path[0] != '/') {
		/* [vdso], [vsyscall] and the like: no file to read. */
		int64_t nid = strtab_intern(s->names, path);

		return nid < 0 ? nid : get_dso(s, (uint64_t)nid, TAG_PSEUDO, DSO_PSEUDO, path);
	}
	d = symbolizer_dso(s->symz, path, bid, bid_len, maj, min, ino);
	id = get_dso(s, (uintptr_t)d, TAG_FILE, DSO_FILE, sym_dso_name(d));
	if (id >= 0)
		s->dsos[id].sym = d;
	return id;
}

static void on_comm(struct session *s, const struct perf_event_header *h)
{
	size_t end = h->size - record_id_size(s->sample_type);
	const char *comm = record_string(h, 16, end);
	uint32_t pid, tid;

	if (!comm || h->size < 16)
		return;
	memcpy(&pid, (const char *)h + 8, 4);
	memcpy(&tid, (const char *)h + 12, 4);
	procmodel_comm(s->pm, (int32_t)pid, (int32_t)tid, comm, h->misc & PERF_RECORD_MISC_COMM_EXEC);
}

static void on_mmap(struct session *s, const struct perf_event_header *h)
{
	size_t end = h->size - record_id_size(s->sample_type);
	const unsigned char *p = (const unsigned char *)h;
	uint32_t pid, maj = 0, min = 0;
	uint64_t addr, len, pgoff, ino = 0;
	const uint8_t *bid = NULL;
	size_t bid_len = 0;
	const char *path;
	int64_t dso;

	if (h->type == PERF_RECORD_MMAP2) {
		path = record_string(h, 72, end);
		if (!path) {
			s->t.sideband_malformed++;
			return;
		}
		if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			bid = p + 44;
			bid_len = p[40] <= 20 ? p[40] : 20;
		} else {
			memcpy(&maj, p + 40, 4);
			memcpy(&min, p + 44, 4);
			memcpy(&ino, p + 48, 8);
		}
	} else {
		path = record_string(h, 40, end);
		if (!path) {
			s->t.sideband_malformed++;
			return;
		}
	}
	memcpy(&pid, p + 8, 4);
	memcpy(&addr, p + 16, 8);
	memcpy(&len, p + 24, 8);
	memcpy(&pgoff, p + 32, 8);
	if ((h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
		return; /* kernel and module maps: kallsyms covers them */
	dso = mapped_dso(s, path, bid, bid_len, maj, min, ino, (int32_t)pid);
	if (dso < 0)
		return;
	procmodel_map(s->pm, (int32_t)pid, addr, len, pgoff, (uint32_t)dso);
}

static bool keep_pid(const struct session_filter *f, int32_t pid, int32_t tid, uint32_t cpu)
{
	bool ok;

	if (f->n_pids) {
		ok = false;
		for (size_t i = 0; i < f->n_pids; i++)
			ok |= f->pids[i] == pid;
		if (!ok)
			return false;
	}
	if (f->n_tids) {
		ok = false;
		for (size_t i = 0; i < f->n_tids; i++)
			ok |= f->tids[i] == tid;
		if (!ok)
			return false;
	}
	if (f->n_cpus) {
		ok = false;
		for (size_t i = 0; i < f->n_cpus; i++)
			ok |= (uint32_t)f->cpus[i] == cpu;
		if (!ok)
			return false;
	}
	return true;
}

static bool keep_comm(struct session *s, uint32_t comm)
{
	const struct session_filter *f = &s->o.filter;

	if (!f->n_comms)
		return true;
	if (comm >= s->n_comm_ok) {
		uint32_t n = (comm + 1) * 2;
		int8_t *v = realloc(s->comm_ok, n);

		if (!v)
			return true;
		memset(v + s->n_comm_ok, 0, n - s->n_comm_ok);
		s->comm_ok = v;
		s->n_comm_ok = n;
	}
	if (!s->comm_ok[comm]) {
		const char *name = strtab_get(procmodel_comms(s->pm), comm);

		s->comm_ok[comm] = -1;
		for (size_t i = 0; i < f->n_comms; i++)
			if (strcmp(f->comms[i], name) == 0)
				s->comm_ok[comm] = 1;
	}
	return s->comm_ok[comm] > 0;
}

/* Location id of an address seen in a sample: kernel addresses as they are, user ones as
 * (mapped object, file offset). */
static int64_t locate(struct session *s, int32_t pid, bool kernel, uint64_t addr)
{
	const struct procmodel_map *m;
	int64_t dso;

	if (kernel)
		return pairtab_intern(s->locs, 0, addr, NULL);
	m = procmodel_find_map(s->pm, pid, addr);
	if (m && s->dsos[m->dso].kind != DSO_JIT)
		return pairtab_intern(s->locs, m->dso, addr - m->start + m->pgoff, NULL);
	/* Anonymous or unmapped code: perf-PID.map territory, by absolute address. */
	dso = m ? (int64_t)m->dso : jit_dso(s, pid);
	if (dso < 0)
		return dso;
	return pairtab_intern(s->locs, (uint64_t)dso, addr, NULL);
}

static void on_sample(struct session *s, const struct perf_event_header *h)
{
	struct record_sample smp;
	uint32_t n = 0, max = s->o.max_stack ? s->o.max_stack : MAX_FRAMES;
	int64_t comm, task, stack, id, loc, cid = -1;
	uint32_t sid = reader_stack_id(s->rd);
	struct task_memo *memo;
	bool added;

	if (record_parse_sample(h, s->sample_type, &smp) < 0) {
		s->t.samples_malformed++;
		return;
	}
	s->t.samples_seen++;
	if (smp.id.time < s->since || smp.id.time > s->until)
		return;
	if (!keep_pid(&s->o.filter, (int32_t)smp.id.pid, (int32_t)smp.id.tid, smp.id.cpu))
		return;
	memo = &s->memo[smp.id.cpu & 63];
	if (memo->version != procmodel_version(s->pm) || memo->pid != smp.id.pid || memo->tid != smp.id.tid) {
		memo->version = 0;
		comm = procmodel_comm_id(s->pm, (int32_t)smp.id.pid, (int32_t)smp.id.tid);
		if (comm < 0)
			return;
		task = pairtab_intern(s->tasks, (uint64_t)smp.id.pid << 32 | smp.id.tid, (uint64_t)comm, NULL);
		if (task < 0)
			return;
		*memo = (struct task_memo){ procmodel_version(s->pm), smp.id.pid, smp.id.tid, comm, task,
					    procmodel_gen(s->pm, (int32_t)smp.id.pid) };
	}
	comm = memo->comm;
	task = memo->task;
	if (!keep_comm(s, (uint32_t)comm))
		return;
	if (max > MAX_FRAMES)
		max = MAX_FRAMES;
	if (sid != READER_NO_STACK) {
		/* Same stack, same process state: same locations. */
		cid = pairtab_intern(s->scache, (uint64_t)sid << 32 | smp.id.pid, s->file_no << 48 ^ memo->pgen, &added);
		if (cid >= 0 && !added && (uint32_t)cid < s->cap_scache && s->scache_val[cid] != UINT32_MAX) {
			stack = s->scache_val[cid];
			goto have_stack;
		}
	}
	if (smp.nr) {
		bool kernel = (smp.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
		bool first = true;

		for (uint64_t i = 0; i < smp.nr && n < max; i++) {
			uint64_t v;

			memcpy(&v, &smp.ips[i], 8);
			if (v >= (uint64_t)PERF_CONTEXT_MAX) {
				kernel = v == (uint64_t)PERF_CONTEXT_KERNEL;
				if (v != (uint64_t)PERF_CONTEXT_KERNEL && v != (uint64_t)PERF_CONTEXT_USER)
					break; /* guest or hypervisor frames: not ours to resolve */
				first = true;
				continue;
			}
			/* Every frame but the first of a context is a return address: the call
			 * instruction is just before it. */
			loc = locate(s, (int32_t)smp.id.pid, kernel, first ? v : v - 1);
			first = false;
			if (loc < 0)
				return;
			s->loc_buf[n++] = (uint32_t)loc;
		}
	}
	if (!n) {
		loc = locate(s, (int32_t)smp.id.pid,
			     (smp.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL, smp.ip);
		if (loc < 0)
			return;
		s->loc_buf[n++] = (uint32_t)loc;
	}
	stack = seqtab_intern(s->stacks, s->loc_buf, n);
	if (stack >= 0 && cid >= 0) {
		if ((uint32_t)cid >= s->cap_scache) {
			uint32_t cap = s->cap_scache ? s->cap_scache : 4096;
			uint32_t *v;

			while (cap <= (uint32_t)cid)
				cap *= 2;
			v = realloc(s->scache_val, cap * sizeof(*v));
			if (v) {
				memset(v + s->cap_scache, 0xff, (cap - s->cap_scache) * sizeof(*v));
				s->scache_val = v;
				s->cap_scache = cap;
			}
		}
		if ((uint32_t)cid < s->cap_scache)
			s->scache_val[cid] = (uint32_t)stack;
	}
have_stack:
	if (stack < 0)
		return;
	id = pairtab_intern(s->agg_ids, (uint64_t)stack, (uint64_t)task << 20 | (smp.id.cpu & 0xfffff), &added);
	if (id < 0)
		return;
	if (added) {
		if (s->n_aggs == s->cap_aggs) {
			uint32_t cap = s->cap_aggs ? s->cap_aggs * 2 : 4096;
			struct agg *a = realloc(s->aggs, cap * sizeof(*a));

			if (!a)
				return;
			s->aggs = a;
			s->cap_aggs = cap;
		}
		s->aggs[id] = (struct agg){ (uint32_t)stack, (uint32_t)task, smp.id.cpu, 0, 0 };
		s->n_aggs++;
	}
	s->aggs[id].count++;
	s->aggs[id].period += smp.period ? smp.period : 1;
	s->t.samples++;
	s->t.period += smp.period ? smp.period : 1;
	if (!s->t.t_first || smp.id.time < s->t.t_first)
		s->t.t_first = smp.id.time;
	if (smp.id.time > s->t.t_last)
		s->t.t_last = smp.id.time;
}

static void on_record(struct session *s, const struct perf_event_header *h)
{
	uint64_t v;
	uint32_t a[4];

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		on_sample(s, h);
		break;
	case PERF_RECORD_COMM:
		on_comm(s, h);
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		on_mmap(s, h);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (h->size < 24)
			break;
		memcpy(a, (const char *)h + 8, 16);
		if (h->type == PERF_RECORD_FORK)
			procmodel_fork(s->pm, (int32_t)a[0], (int32_t)a[1], (int32_t)a[2], (int32_t)a[3]);
		else
			procmodel_exit(s->pm, (int32_t)a[0], (int32_t)a[2]);
		break;
	case PERF_RECORD_LOST:
		if (h->size >= 24 && record_time(h, s->sample_type) >= s->since &&
		    record_time(h, s->sample_type) <= s->until) {
			memcpy(&v, (const char *)h + 16, 8);
			s->t.lost = util_sat_add(s->t.lost, v);
		}
		break;
	case PERF_RECORD_THROTTLE:
		s->t.throttles++;
		break;
	case RP_REC_KSYMS:
		if (!s->ksyms_loaded || s->ksyms_partial)
			ksymtab_add_record(s->ksyms, h, h->size);
		break;
	case RP_REC_CPU_STATS:
		if (h->size >= sizeof(struct rp_cpu_stats_rec))
			s->t.lost = util_sat_add(s->t.lost,
						 ((const struct rp_cpu_stats_rec *)(const void *)h)->lost_unreported);
		break;
	case RP_REC_FINISH:
		s->finished = true;
		break;
	}
}

int session_add_file(struct session *s, const char *path, char *why, size_t why_size)
{
	const struct perf_event_header *h;
	const struct rp_header_rec *hdr;
	struct reader *r;
	int rc;

	rc = reader_open(path, &r, why, why_size);
	if (rc < 0)
		return rc;
	reader_set_warn(r, s->o.warn, s->o.warn_arg);
	hdr = reader_header(r);
	s->sample_type = reader_sample_type(r);
	if (hdr && !s->header) {
		s->header = malloc(hdr->hdr.size + 1);
		if (s->header) {
			memcpy(s->header, hdr, hdr->hdr.size);
			((char *)s->header)[hdr->hdr.size] = '\0';
		}
	}
	s->since = 0;
	s->until = UINT64_MAX;
	if (s->o.filter.have_since || s->o.filter.have_until) {
		uint64_t first, last;
		int64_t off;

		if (!hdr || reader_time_bounds(r, &first, &last) < 0) {
			snprintf(why, why_size, "its wall-clock time is unknown (header lost), so --since/--until cannot apply");
			reader_free(r);
			return -ENODATA;
		}
		off = hdr->realtime_offset;
		if (s->o.filter.have_since)
			s->since = util_mono_ns(s->o.filter.since, off);
		if (s->o.filter.have_until)
			s->until = util_mono_ns(s->o.filter.until, off);
		if (last < s->since || first > s->until) {
			reader_free(r);
			return 1;
		}
		reader_set_until(r, s->until);
	}
	s->finished = false;
	s->rd = r;
	s->file_no++;
	s->ksyms_partial = hdr && (hdr->flags & RP_HDR_KSYMS_USED);
	while ((h = reader_next(r)))
		on_record(s, h);
	s->rd = NULL;
	/* A whole snapshot is read once (every file has the same); partial ones add up. */
	if (ksymtab_count(s->ksyms) && !s->ksyms_partial)
		s->ksyms_loaded = true;
	s->t.files++;
	s->t.files_unfinished += !s->finished;
	s->t.frames_bad += reader_stats(r)->frames_bad;
	rc = reader_stats(r)->frames ? 0 : -ENODATA;
	if (rc < 0)
		snprintf(why, why_size, "no intact frame in the file; nothing could be read");
	reader_free(r);
	return rc;
}

/* ---- symbolization ---- */

static int64_t intern_sym(struct session *s, uint32_t dso, const char *name, bool kernel)
{
	bool added;
	int64_t id = pairtab_intern(s->syms_ids, dso, (uintptr_t)name, &added);

	if (id < 0 || !added)
		return id;
	if (s->n_syms == s->cap_syms) {
		uint32_t cap = s->cap_syms ? s->cap_syms * 2 : 1024;
		struct session_sym *n = realloc(s->syms, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->syms = n;
		s->cap_syms = cap;
	}
	s->syms[s->n_syms++] = (struct session_sym){ name, dso, kernel };
	return id;
}

/* The kernel module "[name]" as a dso of its own. */
static int64_t module_dso(struct session *s, const char *module)
{
	char name[300];
	int64_t nid = strtab_intern(s->names, module);

	snprintf(name, sizeof(name), "[%s]", module);
	return nid < 0 ? nid : get_dso(s, (uint64_t)nid, TAG_MODULE, DSO_KERNEL, name);
}

/* Symbols for one location, innermost first; returns how many. */
static int symbolize(struct session *s, uint32_t loc, uint32_t *out, int max)
{
	uint64_t dso, addr;
	struct dso *d;
	const char *name = NULL, *module = NULL;
	uint64_t off;
	int n = 0;

	pairtab_get(s->locs, loc, &dso, &addr);
	d = &s->dsos[dso];
	switch (d->kind) {
	case DSO_KERNEL:
		if (ksymtab_find(s->ksyms, addr, &name, &module, &off) == 0 && module) {
			int64_t md = module_dso(s, module);

			if (md >= 0)
				dso = (uint64_t)md;
		}
		out[n++] = (uint32_t)intern_sym(s, (uint32_t)dso, name, true);
		break;
	case DSO_FILE: {
		struct sym_frame fr[INLINE_MAX];
		int k = symbolizer_lookup(s->symz, d->sym, addr, fr, max < INLINE_MAX ? max : INLINE_MAX);

		for (int i = 0; i < k; i++)
			out[n++] = (uint32_t)intern_sym(s, (uint32_t)dso, fr[i].name, false);
		if (!k)
			out[n++] = (uint32_t)intern_sym(s, (uint32_t)dso, NULL, false);
		break;
	}
	case DSO_JIT:
		if (!d->pmap_tried) {
			char path[4200];

			d->pmap_tried = true;
			snprintf(path, sizeof(path), "%s/tmp/perf-%d.map", s->o.symfs ? s->o.symfs : "", (int)d->pid);
			perfmap_load(path, &d->pmap);
		}
		if (d->pmap)
			perfmap_find(d->pmap, addr, &name, &off);
		out[n++] = (uint32_t)intern_sym(s, (uint32_t)dso, name, false);
		break;
	case DSO_PSEUDO:
		out[n++] = (uint32_t)intern_sym(s, (uint32_t)dso, NULL, false);
		break;
	}
	return n;
}

int session_finish(struct session *s)
{
	uint32_t n_locs = pairtab_count(s->locs);
	uint32_t *loc_first = malloc((n_locs + 1) * sizeof(uint32_t));
	uint32_t *loc_syms = NULL, n_loc_syms = 0, cap_loc_syms = 0;
	uint32_t *buf = malloc(MAX_FRAMES * INLINE_MAX * sizeof(uint32_t));
	struct pairtab *row_ids = pairtab_new();
	size_t cap_rows = 0;

	ksymtab_finish(s->ksyms);
	if (!loc_first || !buf || !row_ids)
		goto oom;
	/* Each unique location is symbolized once. */
	for (uint32_t l = 0; l < n_locs; l++) {
		uint32_t tmp[INLINE_MAX];
		int k = symbolize(s, l, tmp, INLINE_MAX);

		if (n_loc_syms + (uint32_t)k > cap_loc_syms) {
			uint32_t cap = cap_loc_syms ? cap_loc_syms * 2 : 4096;
			uint32_t *n = realloc(loc_syms, cap * sizeof(uint32_t));

			if (!n)
				goto oom;
			loc_syms = n;
			cap_loc_syms = cap;
		}
		loc_first[l] = n_loc_syms;
		memcpy(loc_syms + n_loc_syms, tmp, (size_t)k * sizeof(uint32_t));
		n_loc_syms += (uint32_t)k;
	}
	loc_first[n_locs] = n_loc_syms;

	/* Each aggregated stack becomes a symbol stack; rows merge what now looks the same. */
	for (uint32_t i = 0; i < s->n_aggs; i++) {
		const struct agg *a = &s->aggs[i];
		uint32_t n, m = 0, unknown = 0;
		const uint32_t *locs = seqtab_get(s->stacks, a->stack, &n);
		uint64_t pidtid, comm;
		int64_t ss, rid;
		bool added;

		for (uint32_t k = 0; k < n; k++) {
			for (uint32_t j = loc_first[locs[k]]; j < loc_first[locs[k] + 1]; j++) {
				buf[m++] = loc_syms[j];
				unknown += !s->syms[loc_syms[j]].name;
			}
		}
		ss = seqtab_intern(s->symstacks, buf, m);
		if (ss < 0)
			goto oom;
		s->t.frames += a->count * m;
		s->t.frames_unknown += a->count * unknown;
		rid = pairtab_intern(row_ids, (uint64_t)ss, (uint64_t)a->task << 20 | (a->cpu & 0xfffff), &added);
		if (rid < 0)
			goto oom;
		if (added) {
			if (s->n_rows == cap_rows) {
				size_t cap = cap_rows ? cap_rows * 2 : 4096;
				struct session_row *r = realloc(s->rows, cap * sizeof(*r));

				if (!r)
					goto oom;
				s->rows = r;
				cap_rows = cap;
			}
			pairtab_get(s->tasks, a->task, &pidtid, &comm);
			s->rows[s->n_rows++] = (struct session_row){ (uint32_t)ss, (uint32_t)comm,
								    (int32_t)(pidtid >> 32), (int32_t)(uint32_t)pidtid,
								    a->cpu, 0, 0 };
		}
		s->rows[rid].count += a->count;
		s->rows[rid].period += a->period;
	}
	/* --dso keeps samples whose own (leaf) frame is in one of the objects. */
	if (s->o.filter.n_dsos) {
		size_t w = 0;

		s->t.samples = s->t.period = 0;
		for (size_t i = 0; i < s->n_rows; i++) {
			uint32_t n;
			const uint32_t *st = seqtab_get(s->symstacks, s->rows[i].stack, &n);
			const struct dso *d = &s->dsos[s->syms[st[0]].dso];
			const char *path = d->sym ? sym_dso_path(d->sym) : d->name;
			bool keep = false;

			for (size_t k = 0; k < s->o.filter.n_dsos; k++)
				keep |= strcmp(s->o.filter.dsos[k], d->name) == 0 ||
					(path && strcmp(s->o.filter.dsos[k], path) == 0);
			if (keep) {
				s->rows[w++] = s->rows[i];
				s->t.samples += s->rows[i].count;
				s->t.period += s->rows[i].period;
			}
		}
		s->n_rows = w;
	}
	free(loc_first);
	free(loc_syms);
	free(buf);
	pairtab_free(row_ids);
	return 0;
oom:
	free(loc_first);
	free(loc_syms);
	free(buf);
	pairtab_free(row_ids);
	return -ENOMEM;
}

/* ---- accessors ---- */

const struct rp_header_rec *session_header(const struct session *s)
{
	return s->header;
}

const struct session_totals *session_totals(const struct session *s)
{
	return &s->t;
}

const struct session_row *session_rows(const struct session *s, size_t *ret_n)
{
	*ret_n = s->n_rows;
	return s->rows;
}

const uint32_t *session_stack(const struct session *s, uint32_t id, uint32_t *ret_n)
{
	return seqtab_get(s->symstacks, id, ret_n);
}

const struct session_sym *session_sym(const struct session *s, uint32_t id)
{
	return &s->syms[id];
}

const char *session_dso_name(const struct session *s, uint32_t dso)
{
	return s->dsos[dso].name;
}

const char *session_comm(const struct session *s, uint32_t comm)
{
	return strtab_get(procmodel_comms(s->pm), comm);
}
