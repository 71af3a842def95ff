/* unwinder.c — record-time unwinding of user stacks (see unwinder.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/grow.h"
#include "base/hash.h"
#include "base/intern.h"
#include "base/procfs.h"
#include "base/util.h"
#include "capture/addrspace.h"
#include "capture/objreg.h"
#include "capture/uhelper.h"
#include "capture/unwinder.h"
#include "capture/cachework.h"
#include "format/format.h"
#include "unwind/proto.h"
#include "unwind/utab.h"

/* A walk's stop is stored as it is (RP_CONTEXT_UNWIND + res->stop): the format's values. */
#define SAME_STOP(w, f) ((int)UW_##w == (int)RP_UNWIND_##f)
_Static_assert(SAME_STOP(COMPLETE, COMPLETE) && SAME_STOP(STACK_END, STACK_END) &&
		   SAME_STOP(NO_INFO, NO_INFO) && SAME_STOP(PENDING, PENDING) &&
		   SAME_STOP(BAD_FRAME, BAD_FRAME) && SAME_STOP(MAX_DEPTH, MAX_DEPTH) &&
		   SAME_STOP(JOINED, JOINED) && SAME_STOP(FPCHAIN, FPCHAIN) &&
		   SAME_STOP(STOP_N, STOP_N),
	       "enum uw_stop is stored as enum rp_unwind_stop");

/* OBJ_DROPPED: its table was dropped for memory; asked for again when a sample needs it. */
enum obj_state { OBJ_NEW, OBJ_PENDING, OBJ_READY, OBJ_NONE, OBJ_DROPPED };

#define NO_OBJ UINT32_MAX	  /* an executable mapping of no file (JIT, anonymous) */
#define UNMAPPED (UINT32_MAX - 1) /* a walk's last pc was in no mapping known (yet) */
#define JOINING (UINT32_MAX - 2)  /* a kept sample a join completed, walked again later */
/* A sample whose pc was in no mapping waits this many drain passes for its MMAP2 record,
 * which may be in another CPU's ring. */
#define UNMAPPED_PASSES 3

/* What the unwinder keeps of a registry object (objreg.h: what it is, its build-id and
 * digest, the disk cache's key; a table's build-id and digest must match them). */
struct uobj {
	uint8_t state;	     /* enum obj_state */
	bool seen;	     /* a mapping of it was drained */
	uint64_t wait_until; /* OBJ_NEW: waits for its build-id until then (0: not waiting) */
	/* where to open it while it is OBJ_NEW */
	uint32_t pid;
	uint64_t start, end;
	struct utab tab;
	void *buf;
	char why[96];
	uint64_t stopped;
	uint32_t used; /* the drain pass in which a walk last used its table */
	int way;       /* the way to the file tried next (procfs_open_mapped_from()) */
	uint32_t size; /* of its table in memory */
	uint32_t want; /* OBJ_NEW: when a sample first needed it (a sequence number); 0: not yet */
	uint32_t waiting; /* kept samples whose walk stopped at it (its table is asked for first) */
	bool loading;	  /* OBJ_NEW: the disk cache's worker looks for its table */
};

#define BID_WAIT_NS (1000ull * 1000 * 1000) /* how long a new object waits for its build-id */
/* How long the drain pass waits for the disk cache's answer; a slower disk answers later. */
#define CACHE_WAIT_NS (2ull * 1000 * 1000)
/* ... and one a sample needs: at 4 kHz on every CPU a second of waiting fills the keep. Its
 * build-id is asked for before any table (objreg.h), so it waits for one table build at most. */
#define WANTED_BID_WAIT_NS (300ull * 1000 * 1000)

/*
 * Tables are built when a sample needs them, in the order samples first needed them: a walk
 * that meets an object without its table, and the return addresses a kept sample's stack
 * copy holds (the objects the walk will meet next). An object no sample touched costs
 * nothing. The helper builds one table at a time; at most UNWINDER_WINDOW table requests are
 * with it, so that a table (or a build-id) a sample needs is never queued behind many others.
 */
#define UNWINDER_WINDOW 1
#define SCANS_PER_PASS 64 /* kept samples whose stack copy is scanned per drain pass */

/*
 * Joining a stack cut by the copy, when asked for (unwinder_set_join(): a join is inferred,
 * never proven, so by default a stack cut by the copy stays cut, UW_STACK_END). What the
 * thread's walks read of its frames is kept: for a
 * frame, its pc and stack pointer, which frame called it (or that it was the outermost one).
 * A walk cut by the end of the copy follows, from its last frame, the callers remembered, up
 * to the outermost frame. Two different callers can reach the same function through frames
 * of the same size and so give the same (pc, sp): a frame seen with two different callers is
 * marked ambiguous for good, and no join goes through it; a join that does not reach the
 * outermost frame is not made. The callers a join adds are inferred, not read: the chain
 * says where they start (RP_CONTEXT_JOINED) and ends in UW_JOINED.
 */
#define JOIN_SLOTS 64	/* threads remembered at once, by a hash of their tid */
#define JOIN_EDGES 1024 /* frames remembered per thread (a power of two) */
#define JOIN_PROBE 8
struct join_edge {
	uint64_t pc, sp;   /* a frame; pc 0: a free entry */
	uint64_t cpc, csp; /* its caller; cpc 0: it is the outermost frame */
	bool ambiguous;	   /* seen with two different callers */
	uint32_t joins;	   /* joins that went through it while it was not */
};
struct join_slot {
	uint32_t tid;
	struct join_edge e[JOIN_EDGES];
};

struct unwinder {
	struct addrspace as;
	struct objreg *reg;
	bool wait_bids; /* build-ids of files named by inode come (the registry asks for them) */
	struct cachework *cw; /* the disk cache, read and written by the registry's disk worker;
			       * NULL: none */
	struct uobj *objs;    /* by registry index */
	size_t n_objs, cap_objs;
	uint32_t vdso; /* the [vdso] object, NO_OBJ until one is mapped */
	uint32_t pass;
	uint32_t n_new;	   /* objects not handed to the helper yet */
	uint32_t n_wanted; /* of which a sample needs */
	uint32_t want_seq;
	uint32_t scans; /* stack copies scanned in this pass */
	struct unwinder_stats st;
	uint64_t max_live; /* bytes of tables in memory at most (unwinder_set_memory()) */
	/* Samples kept until their tables come: struct held entries, 8-byte aligned. */
	unsigned char *hold;
	size_t hold_len, hold_cap;
	uint64_t hold_since;
	uint64_t chain[UNWINDER_MAX_FRAMES + 256];
	uint64_t sps[UNWINDER_MAX_FRAMES + 256]; /* the stack pointer of each user frame */
	uint64_t fpw[UNWINDER_FP_MAX];		 /* a sample's user frame-pointer chain */
	struct join_slot *join;			 /* JOIN_SLOTS, by tid */
	bool joining;				 /* unwinder_set_join() */
};

static void join_forget(struct unwinder *u, uint32_t tid);

/* A kept sample; followed by nk kernel chain words, nfp words of the kernel's user
 * frame-pointer chain and dyn bytes of stack. */
struct held {
	uint32_t size; /* of the entry, a multiple of 8 */
	uint32_t ci;
	struct perfrec_sample s;
	uint64_t regs[UNWINDER_N_REGS];
	uint64_t dyn;
	uint64_t nk;
	uint32_t pass; /* when it was kept */
	uint32_t wait; /* the object whose table it waits for, UNMAPPED, or JOINING */
	uint32_t nfp;  /* words of the kernel's user frame-pointer chain after the kernel chain */
	/* JOINING: the whole chain (nk words) follows, then the stack pointers of its user
	 * words (n_user, from chain word user_at on); res_n: the frames its walk found. */
	uint32_t user_at, n_user, res_n, fp_steps;
};

/*
 * A join is only as good as what the thread's walks have read so far: two callers that reach
 * the same frames give the same (pc, sp), and the frame is known to be ambiguous only once a
 * walk has read the second caller. So a sample that a join completed is kept JOIN_DELAY_NS,
 * its chain and the stack pointers of its frames, and the frames the join went through are
 * looked at again before it is stored: one found ambiguous meanwhile, or with another caller
 * (most are found soon after the thread starts taking both ways), cuts it where the copy
 * ended instead of giving it the wrong caller (rp-unwind twopath: 59 of 1512 deep samples
 * under the wrong caller on a loaded machine before). A thread that ended meanwhile
 * contradicts nothing. When the keep is full it is stored joined at once, as before.
 */
#define JOIN_DELAY_NS (300ull * 1000 * 1000)

static void on_identified(void *arg, uint32_t i, struct uhelper_reply *r);
static void on_table(void *arg, uint32_t i, struct uhelper_reply *r);
static void feed(void *arg);

struct unwinder *unwinder_new(struct objreg *reg)
{
	struct unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	addrspace_init(&u->as);
	u->reg = reg;
	u->vdso = NO_OBJ;
	u->hold_since = UINT64_MAX;
	u->max_live = UNWINDER_MEMORY_DEFAULT;
	objreg_on_identified(reg, on_identified, u);
	objreg_on_table(reg, on_table, feed, u);
	return u;
}

struct unwinder *unwinder_free(struct unwinder *u)
{
	if (!u)
		return NULL;
	addrspace_done(&u->as);
	for (size_t i = 0; i < u->n_objs; i++)
		free(u->objs[i].buf);
	free(u->objs);
	free(u->hold);
	free(u->join);
	free(u);
	return NULL;
}

int unwinder_cache(struct unwinder *u, const char *dir, uint64_t max_bytes, char *why,
		   size_t why_size)
{
	struct cachework *w = objreg_disk(u->reg);
	int rc;

	if (!w) {
		snprintf(why, why_size, "no thread for the disk work");
		return -ENOMEM;
	}
	rc = cachework_open_cache(w, dir, max_bytes, why, why_size);
	u->cw = rc == 0 ? w : NULL;
	return rc;
}

void unwinder_set_memory(struct unwinder *u, uint64_t max_bytes)
{
	u->max_live = max_bytes;
}

void unwinder_set_join(struct unwinder *u, bool on)
{
	u->joining = on;
}

const struct unwinder_stats *unwinder_stats(const struct unwinder *u)
{
	return &u->st;
}

bool unwinder_object(const struct unwinder *u, size_t i, struct unwinder_object *ret)
{
	const struct uobj *o;

	if (i >= u->n_objs)
		return false;
	o = &u->objs[i];
	*ret = (struct unwinder_object){ objreg_obj(u->reg, (uint32_t)i)->path, o->why,
					 o->state == OBJ_READY || o->state == OBJ_DROPPED ? 1
					 : o->state == OBJ_NONE				  ? 2
											  : 0,
					 o->stopped, o->buf ? o->tab.hdr->size : 0 };
	return true;
}

/* An OBJ_NEW object goes to another state. */
static void leave_new(struct unwinder *u, struct uobj *o)
{
	if (o->state != OBJ_NEW)
		return;
	u->n_new--;
	if (o->want)
		u->n_wanted--;
	o->want = 0;
}

static void obj_fail(struct unwinder *u, struct uobj *o, const char *why)
{
	leave_new(u, o);
	o->state = OBJ_NONE;
	util_strlcpy(o->why, why, sizeof(o->why));
	u->st.table_failed++;
}

/* The vdso has no file: the recorder's own image (the same in every process of this boot) is
 * copied into a memfd for the helper. */
static int open_vdso(void)
{
	const void *base;
	size_t size;
	int fd;

	if (procfs_self_vdso(&base, &size) < 0)
		return -1;
	fd = memfd_create("ringprof-vdso", MFD_CLOEXEC);
	if (fd >= 0 && write(fd, base, size) != (ssize_t)size) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Hand a new object to the helper (feed() decides when); it stays OBJ_NEW when the queue
 * refuses it. */
static void submit(struct unwinder *u, uint32_t idx)
{
	struct uobj *o = &u->objs[idx];
	const struct objreg_obj *r = objreg_obj(u->reg, idx);
	int fd;

	if (!objreg_helper_alive(u->reg)) {
		const char *why = objreg_helper(u->reg)->why;

		obj_fail(u, o, why[0] ? why : "no unwind-table helper");
		return;
	}
	if (idx != u->vdso) {
		/* Opened by the helper client's worker thread, never here (a file whose open
		 * hangs comes back failed). */
		struct opener_file f = { o->pid, o->start, o->end, r->path,
					 r->maj, r->min,   r->ino, o->way };

		if (objreg_submit_table(u->reg, idx, &f) < 0)
			return;
	} else {
		fd = open_vdso();
		if (fd < 0) {
			obj_fail(u, o, "cannot copy the vdso");
			return;
		}
		if (objreg_submit_table_fd(u->reg, idx, fd) < 0) {
			close(fd);
			return;
		}
	}
	leave_new(u, o);
	o->state = OBJ_PENDING;
}

/* The object's table from the disk cache: true when it is there (the object is ready). */
static void take_loaded(struct unwinder *u)
{
	uint32_t i;
	void *buf;
	struct utab t;
	size_t size;

	while (u->cw && cachework_take(u->cw, &i, &buf, &t, &size) == 1) {
		struct uobj *o = i < u->n_objs ? &u->objs[i] : NULL;

		if (o)
			o->loading = false;
		if (!o || !buf || o->state != OBJ_NEW) {
			free(buf); /* none there: built when a sample needs it */
			continue;
		}
		o->buf = buf;
		o->tab = t;
		leave_new(u, o);
		o->state = OBJ_READY;
		o->used = u->pass;
		o->size = (uint32_t)size;
		u->st.cached++;
		u->st.table_bytes += size;
		u->st.live_bytes += size;
	}
}

/* Look for object i's table in the disk cache (its worker reads it): true when it is ready
 * now; else it may come in a later pass (take_loaded()), the object waiting meanwhile. */
static bool from_cache(struct unwinder *u, uint32_t i)
{
	const struct objreg_obj *r = objreg_obj(u->reg, i);
	struct uobj *o = &u->objs[i];
	int rc;

	if (!u->cw || !r->bid_len || !r->digest_len || o->loading)
		return false;
	rc = cachework_load(u->cw, i, r->bid, r->bid_len, r->digest, CACHE_WAIT_NS);
	if (rc < 0)
		return false;
	o->loading = true;
	if (rc == 1)
		take_loaded(u);
	return o->state == OBJ_READY;
}

/* The object of an executable file mapping (the registry's); a new one takes its table from
 * the disk cache, or waits until a sample needs it. NO_OBJ for mappings of no file. */
static uint32_t object_of(struct unwinder *u, const struct perfrec_mmap *m)
{
	uint32_t i = objreg_map(u->reg, m);
	const struct objreg_obj *r;
	struct uobj *o;

	if (i == OBJREG_NONE)
		return NO_OBJ;
	if (i >= u->n_objs) {
		if (GROW(u->objs, u->cap_objs, (size_t)i + 1) < 0)
			return NO_OBJ;
		memset(u->objs + u->n_objs, 0, ((size_t)i + 1 - u->n_objs) * sizeof(*u->objs));
		u->n_objs = (size_t)i + 1;
	}
	o = &u->objs[i];
	if (o->seen)
		return i;
	r = objreg_obj(u->reg, i);
	o->seen = true;
	o->state = OBJ_NEW;
	o->pid = m->pid;
	o->start = m->addr;
	o->end = m->addr + m->len;
	u->st.objects++;
	u->n_new++;
	if (r->vdso)
		u->vdso = i;
	if (!r->bid_len && r->by_inode && u->wait_bids &&
	    (r->id_state == OBJREG_ID_NEW || r->id_state == OBJREG_ID_PENDING))
		/* Its build-id is on its way: then the disk cache may have the table. */
		o->wait_until = util_now_ns() + BID_WAIT_NS;
	else
		from_cache(u, i);
	return i;
}

void unwinder_wait_build_ids(struct unwinder *u)
{
	if (u)
		u->wait_bids = true;
}

/* The registry learnt object i's build-id and digest (or that it has none): one not handed to
 * the helper yet is looked for in the disk cache. */
static void on_identified(void *arg, uint32_t i, struct uhelper_reply *r)
{
	struct unwinder *u = arg;
	struct uobj *o = i < u->n_objs ? &u->objs[i] : NULL;

	(void)r;
	if (!o || !o->seen)
		return;
	o->wait_until = 0;
	if (o->state == OBJ_NEW)
		from_cache(u, i);
}

void unwinder_side_band(struct unwinder *u, const struct perf_event_header *h, uint64_t sample_type)
{
	struct perfrec_mmap m;
	struct perfrec_task t;
	struct perfrec_comm c;
	struct perfrec_id id = { 0 };

	if (h->type == PERF_RECORD_MMAP2 || h->type == PERF_RECORD_FORK ||
	    h->type == PERF_RECORD_EXIT || h->type == PERF_RECORD_COMM)
		perfrec_parse_id(h, sample_type, &id);
	switch (h->type) {
	case PERF_RECORD_MMAP2:
		if (perfrec_parse_mmap(h, sample_type, &m) == 0 && (m.prot & PROT_EXEC) &&
		    (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER)
			addrspace_mmap(&u->as, m.pid, m.addr, m.addr + m.len, m.pgoff,
				       object_of(u, &m), id.time);
		break;
	case PERF_RECORD_FORK:
		if (perfrec_parse_task(h, &t) == 0)
			addrspace_fork(&u->as, t.pid, t.ppid, id.time);
		break;
	case PERF_RECORD_EXIT:
		if (perfrec_parse_task(h, &t) == 0)
			join_forget(u, t.tid);
		if (perfrec_parse_task(h, &t) == 0 && t.pid == t.tid)
			addrspace_exit(&u->as, t.pid, u->pass, id.time);
		break;
	case PERF_RECORD_COMM:
		if (perfrec_parse_comm(h, sample_type, &c) == 0 && c.exec) {
			join_forget(u, c.tid);
			addrspace_exec(&u->as, c.pid, id.time);
		}
		break;
	}
	u->st.map_nomem = u->as.nomem;
}

/* A table reply from the helper: the object gets its table after the checks, or none. */
static void on_table(void *arg, uint32_t i, struct uhelper_reply *r)
{
	struct unwinder *u = arg;
	struct uobj *o = i < u->n_objs ? &u->objs[i] : NULL;
	const struct objreg_obj *g = objreg_obj(u->reg, i);
	char why[160];
	struct utab t;

	if (!o || o->state != OBJ_PENDING) {
		free(r->buf);
		return;
	}
	u->st.build_ns += r->build_ns;
	o->way = r->way; /* the way its file was opened by: a retry takes the next */
	if (r->status < 0) {
		obj_fail(u, o, r->why);
		return;
	}
	if (utab_check(r->buf, r->size, &t, why, sizeof(why)) < 0) {
		u->st.table_refused++;
		obj_fail(u, o, why);
		free(r->buf);
		return;
	}
	if ((g->bid_len && (t.hdr->build_id_len != g->bid_len ||
			    memcmp(t.hdr->build_id, g->bid, g->bid_len) != 0)) ||
	    (g->digest_len && r->digest_len && memcmp(g->digest, r->digest, UWP_DIGEST_LEN))) {
		free(r->buf);
		/* Another file is at the mapping's place now (dlclose, then dlopen of another
		 * library there) or at its path: the next way to the file may still reach it. */
		if (o->way + 1 < PROCFS_MAPPED_WAYS) {
			o->way++;
			o->state = OBJ_NEW;
			u->n_new++;
			u->n_wanted++;
			o->want = ++u->want_seq;
			u->st.retried++;
			return;
		}
		u->st.table_refused++;
		obj_fail(u, o, "the file's build-id is not the mapped one");
		return;
	}
	if (r->digest_len)
		objreg_set_digest(u->reg, i, r->digest);
	o->tab = t;
	o->buf = r->buf;
	o->state = OBJ_READY;
	o->used = u->pass;
	o->size = (uint32_t)r->size;
	u->st.live_bytes += r->size;
	/* Kept by the build-id the table says and the digest of the file it was built from,
	 * also when the mapping named its file by inode. */
	if (r->digest_len && u->cw)
		cachework_store(u->cw, t.hdr->build_id, t.hdr->build_id_len, r->digest, r->buf,
				r->size);
	u->st.tables++;
	u->st.table_bytes += r->size;
}

/* The wanted object that the most kept samples wait for (the busiest processes' first: on a
 * loaded machine with a cold cache, many objects are wanted at once and each table takes
 * a while), else the one asked for first; whose build-id wait (if any) is over. NO_OBJ if
 * none. */
static uint32_t next_wanted(struct unwinder *u)
{
	uint32_t best = NO_OBJ;
	uint64_t now = 0;

	for (size_t i = 0; i < u->n_objs; i++) {
		struct uobj *o = &u->objs[i], *b = best != NO_OBJ ? &u->objs[best] : NULL;

		if (o->state != OBJ_NEW || !o->want || o->loading ||
		    (b &&
		     (o->waiting < b->waiting || (o->waiting == b->waiting && o->want > b->want))))
			continue;
		if (o->wait_until) {
			if (!now)
				now = util_now_ns();
			if (now < o->wait_until)
				continue;
			o->wait_until = 0; /* no build-id came: built without the cache */
		}
		best = (uint32_t)i;
	}
	return best;
}

/* A kept sample's walk stopped at object i (or stops there no more: delta -1). */
static void count_waiting(struct unwinder *u, uint32_t i, int delta)
{
	if (i < u->n_objs)
		u->objs[i].waiting += (uint32_t)delta;
}

/* Hand the helper the wanted objects, first wanted first, while the window has room (the
 * registry calls it once per drain pass). */
static void feed(void *arg)
{
	struct unwinder *u = arg;

	u->scans = 0;
	take_loaded(u);
	/* Without a helper, submit() says so to each (they are walked by frame pointers). */
	while (u->n_wanted &&
	       (!objreg_helper_alive(u->reg) || objreg_tables_busy(u->reg) < UNWINDER_WINDOW)) {
		uint32_t i = next_wanted(u);

		if (i == NO_OBJ)
			break;
		submit(u, i);
		if (u->objs[i].state == OBJ_NEW)
			break; /* the queue refused it: the next pass */
	}
}

/* A sample needs the object's table: it is asked for (feed()) in the order of first need,
 * opening the file through the process that maps it now (the first one may be gone). A
 * dropped table is read from the disk cache, else built again. */
static void want(struct unwinder *u, uint32_t idx, uint32_t pid, const struct as_map *m)
{
	struct uobj *o = &u->objs[idx];

	if (o->state == OBJ_DROPPED) {
		o->state = OBJ_NEW;
		o->way = 0;
		u->n_new++;
		u->st.reasked++;
		if (from_cache(u, idx))
			return;
	}
	if (o->state != OBJ_NEW || o->want)
		return;
	o->want = ++u->want_seq;
	u->n_wanted++;
	/* A sample waits: its build-id (for the disk cache) gets a moment, not the full wait. */
	if (o->wait_until) {
		uint64_t soon = util_now_ns() + WANTED_BID_WAIT_NS;

		if (o->wait_until > soon)
			o->wait_until = soon;
	}
	if (idx != u->vdso && !o->way) {
		o->pid = pid;
		o->start = m->start;
		o->end = m->end;
	}
	/* Its build-id (the report's way to its symbols) is asked for before those of objects
	 * no sample touched. */
	objreg_hurry(u->reg, idx, pid, m->start, m->end);
}

static int by_use(const void *a, const void *b)
{
	const struct uobj *x = *(const struct uobj *const *)a, *y = *(const struct uobj *const *)b;

	return x->used < y->used ? -1 : x->used > y->used;
}

/* Above the budget: drop the tables used least recently, down to three quarters of it, never
 * one used in this pass or the last (held samples and the next pass's walks want them). */
static void keep_budget(struct unwinder *u)
{
	struct uobj **v;
	size_t n = 0;

	if (u->st.live_bytes <= u->max_live || !(v = malloc(u->n_objs * sizeof(*v))))
		return;
	for (size_t i = 0; i < u->n_objs; i++)
		if (u->objs[i].state == OBJ_READY && u->pass - u->objs[i].used >= 2)
			v[n++] = &u->objs[i];
	qsort(v, n, sizeof(*v), by_use);
	for (size_t i = 0; i < n && u->st.live_bytes > u->max_live / 4 * 3; i++) {
		struct uobj *o = v[i];

		free(o->buf);
		o->buf = NULL;
		memset(&o->tab, 0, sizeof(o->tab));
		o->state = OBJ_DROPPED;
		u->st.live_bytes -= o->size;
		o->size = 0;
		u->st.evicted++;
	}
	free(v);
}

void unwinder_pass(struct unwinder *u)
{
	u->pass++;
	/* A process that exited while one of its samples waits for a table stays until then. */
	addrspace_reap(&u->as, u->pass, u->hold_len ? u->hold_since : UINT64_MAX);
	keep_budget(u);
}

/* The walker's view of one sampled process. went_late: the sample could not wait any longer
 * for a table still on its way, and is stored cut there ("table pending"). Frame pointers are
 * not tried instead: in code built without them a stale rbp can lead to a frame another call
 * path left on the stack, a plausible wrong caller (seen: twopath under load). */
struct find_ctx {
	struct unwinder *u;
	const struct as_proc *p;
	uint32_t last_obj;
	bool went_late;
};

static enum uw_where find(void *arg, uint64_t pc, const struct utab **tab, uint64_t *off)
{
	struct find_ctx *c = arg;
	const struct as_map *m = c->p ? addrspace_map(c->p, pc) : NULL;
	struct uobj *o;

	if (!m) {
		c->last_obj = UNMAPPED;
		return UW_WHERE_UNMAPPED;
	}
	c->last_obj = m->obj;
	if (m->obj == NO_OBJ)
		return UW_WHERE_NONE;
	o = &c->u->objs[m->obj];
	if (o->state == OBJ_DROPPED || o->state == OBJ_NEW)
		want(c->u, m->obj, c->p->pid, m);
	switch (o->state) {
	case OBJ_READY:
		o->used = c->u->pass;
		*tab = &o->tab;
		*off = pc - m->start + m->pgoff;
		return UW_WHERE_TABLE;
	case OBJ_NEW:
	case OBJ_PENDING:
		return UW_WHERE_PENDING;
	default:
		return UW_WHERE_NONE;
	}
}

/* The sample's own chain split where its user part starts: the kernel part into out (at most
 * max words; returned), the kernel's walk of the user frame pointers after PERF_CONTEXT_USER
 * (the first word the sample's ip) into u->fpw (*ret_nfp words). */
static size_t split_chain(struct unwinder *u, const struct perfrec_sample *s, uint64_t *out,
			  size_t max, size_t *ret_nfp)
{
	size_t n = 0, nfp = 0;
	uint64_t i = 0;

	for (; i < s->nr && n < max; i++) {
		uint64_t v;

		memcpy(&v, &s->ips[i], 8);
		if (v == (uint64_t)PERF_CONTEXT_USER)
			break;
		out[n++] = v;
	}
	for (i++; i < s->nr && nfp < UNWINDER_FP_MAX; i++) {
		uint64_t v;

		memcpy(&v, &s->ips[i], 8);
		if (v >= (uint64_t)PERF_CONTEXT_MAX)
			break;
		u->fpw[nfp++] = v;
	}
	*ret_nfp = nfp;
	return n;
}

/* The thread's slot of the join cache (NULL without one), emptied when it was another's. */
static struct join_slot *join_slot(struct unwinder *u, uint32_t tid, bool claim)
{
	struct join_slot *j;

	if (!u->join && (!claim || !(u->join = calloc(JOIN_SLOTS, sizeof(*u->join)))))
		return NULL;
	j = &u->join[hash_u64(tid) & (JOIN_SLOTS - 1)];
	if (j->tid != tid) {
		if (!claim)
			return NULL;
		memset(j->e, 0, sizeof(j->e));
		j->tid = tid;
	}
	return j;
}

/* The thread's frames before an exec or its exit say nothing of the next ones. */
static void join_forget(struct unwinder *u, uint32_t tid)
{
	struct join_slot *j = join_slot(u, tid, false);

	if (j)
		memset(j->e, 0, sizeof(j->e));
}

/* The entry of frame (pc, sp); with add, a free one or one to reuse for it (never an ambiguous
 * one: that would forget the ambiguity). NULL when not there (or no room). */
static struct join_edge *edge_find(struct join_slot *j, uint64_t pc, uint64_t sp, bool add)
{
	size_t h = hash_pair(pc, sp);
	struct join_edge *victim = NULL;

	for (size_t k = 0; k < JOIN_PROBE; k++) {
		struct join_edge *e = &j->e[(h + k) & (JOIN_EDGES - 1)];

		if (e->pc == pc && e->sp == sp)
			return e;
		if (!e->pc)
			return add ? e : NULL;
		if (!victim && !e->ambiguous)
			victim = e;
	}
	if (victim && add)
		memset(victim, 0, sizeof(*victim));
	return add ? victim : NULL;
}

/* A walk of k frames cut by the end of the copy: when the callers remembered from its last
 * frame reach the outermost frame without passing an ambiguous one, the marker and those
 * callers follow (at most lim words in all) and the walk ends UW_JOINED. Returns the words
 * in pcs. */
static size_t join(struct unwinder *u, uint32_t tid, uint64_t *pcs, uint64_t *sps, size_t k,
		   size_t lim, struct uw_result *res)
{
	struct join_slot *j = join_slot(u, tid, false);
	size_t n = k + 1;

	if (!j || k == 0 || n >= lim)
		return k;
	for (uint64_t pc = pcs[k - 1], sp = sps[k - 1];;) {
		const struct join_edge *e = edge_find(j, pc, sp, false);

		if (!e || e->ambiguous || (e->cpc && (e->csp <= sp || n >= lim)))
			return k; /* unknown, ambiguous, or too long: cut where the copy ended */
		if (!e->cpc)
			break;
		pcs[n] = pc = e->cpc;
		sps[n] = sp = e->csp;
		n++;
	}
	/* Made: each edge it went through counts it, for the contradictions a later walk finds. */
	for (size_t i = k - 1; i < n; i++) {
		struct join_edge *e = edge_find(j, pcs[i], sps[i], false);

		if (e && e->joins < UINT32_MAX)
			e->joins++;
		if (i == k - 1)
			i = k; /* pcs[k] is where the marker goes */
	}
	pcs[k] = RP_CONTEXT_JOINED;
	sps[k] = sps[k - 1];
	res->stop = UW_JOINED;
	return n;
}

/* Remember each frame's caller from this walk (k words, the joined marker skipped); the last
 * frame's when it is the outermost. A frame seen before with another caller becomes
 * ambiguous. */
static void remember(struct unwinder *u, uint32_t tid, const uint64_t *pcs, const uint64_t *sps,
		     size_t k, bool complete)
{
	struct join_slot *j = k >= 2 || complete ? join_slot(u, tid, true) : NULL;

	for (size_t i = 1; j && i < k; i++) {
		size_t c = i + 1 < k && pcs[i + 1] == RP_CONTEXT_JOINED ? i + 2 : i + 1;
		bool last = c >= k;
		uint64_t cpc = last ? 0 : pcs[c], csp = last ? 0 : sps[c];
		struct join_edge *e;

		if (pcs[i] == RP_CONTEXT_JOINED || (last && !complete))
			continue;
		if (!(e = edge_find(j, pcs[i], sps[i], true)))
			continue;
		if (e->pc && (e->cpc != cpc || e->csp != csp) && !e->ambiguous) {
			/* The joins made through it may have given this caller's samples the
			 * other's. */
			u->st.joins_contradicted += e->joins;
			e->ambiguous = true;
		} else if (!e->pc)
			*e = (struct join_edge){ pcs[i], sps[i], cpc, csp, false, 0 };
	}
}

/*
 * A walk of k words (pcs[0] the ip) that stopped short, continued by the kernel's frame-pointer
 * chain fp of the same sample when that chain is proven to be the same stack: it agrees with
 * every return address the walk read, from the first one (or from the second, when the leaf
 * had not saved its frame pointer yet: then fp[1] is pcs[2], and two must agree), and every
 * word it adds is a return address into an executable mapping of the process. The marker and
 * those words follow (at most lim words in all) and the walk ends UW_FPCHAIN. In code that
 * keeps no frame pointers the chain agrees with nothing: the walk stays as it stopped.
 */
static size_t fp_continue(const struct find_ctx *c, const uint64_t *fp, size_t nfp, uint64_t *pcs,
			  size_t k, size_t lim, struct uw_result *res)
{
	for (size_t skip = 0; skip <= 1; skip++) {
		/* skip 0: fp[1..k) are pcs[1..k); skip 1: fp[1..k-1) are pcs[2..k), two at least */
		size_t agree = k - 1 - skip, from = k - skip, n = k + 1; /* fp[from]: the caller */
		bool same = k >= 2 + 2 * skip && nfp > from && fp[0] == pcs[0];

		for (size_t i = 1; same && i <= agree; i++)
			same = fp[i] == pcs[i + skip];
		if (!same)
			continue;
		for (size_t i = from; i < nfp && n < lim; i++) {
			const struct as_map *m = addrspace_map(c->p, fp[i]);

			if (!m || fp[i] < 4096)
				return k; /* not a return address: not a chain of frame pointers */
			pcs[n++] = fp[i];
		}
		if (n == k + 1)
			return k; /* no room for a caller */
		pcs[k] = RP_CONTEXT_FPCHAIN;
		res->stop = UW_FPCHAIN;
		return n;
	}
	return k;
}

/* The user part of the chain after the n words of out: PERF_CONTEXT_USER, the walk of the
 * copy, the callers the kernel's frame-pointer chain fp (nfp words) or a join adds, the stop
 * marker. A walk that stopped at a table on its way, or at a pc in no mapping yet, is
 * continued by fp only when `final` (the sample is not kept to be walked again). c (its u
 * set) says where the walk ended. Returns the words in out. */
static size_t walk_user(struct find_ctx *c, const struct perfrec_id *id, const struct uw_regs *regs,
			const struct uw_stack *st, const uint64_t *fp, size_t nfp, bool final,
			uint64_t *out, size_t n, size_t max, struct uw_result *res)
{
	struct unwinder *u = c->u;
	size_t lim = max - n - 1 < UNWINDER_MAX_FRAMES ? max - n - 1 : UNWINDER_MAX_FRAMES;
	size_t k;

	c->p = addrspace_find(&u->as, id->pid);
	c->last_obj = NO_OBJ;
	out[n++] = (uint64_t)PERF_CONTEXT_USER;
	k = uw_walk_sp(regs, st, find, c, out + n, u->sps, lim, res);
	if (nfp && c->p && res->stop != UW_COMPLETE && res->stop != UW_MAX_DEPTH &&
	    (final || (res->stop != UW_PENDING && c->last_obj != UNMAPPED)))
		k = fp_continue(c, fp, nfp, out + n, k, lim, res);
	if (u->joining && res->stop == UW_STACK_END)
		k = join(u, id->tid, out + n, u->sps, k, lim, res);
	if (u->joining &&
	    (res->stop == UW_COMPLETE || res->stop == UW_STACK_END || res->stop == UW_JOINED))
		remember(u, id->tid, out + n, u->sps, k, res->stop != UW_STACK_END);
	n += k;
	out[n++] = RP_CONTEXT_UNWIND + (uint64_t)res->stop;
	return n;
}

static void count_walk(struct unwinder *u, const struct uw_result *res, const struct find_ctx *c)
{
	u->st.samples++;
	u->st.stop[res->stop < UW_STOP_N ? res->stop : UW_BAD_FRAME]++;
	u->st.frames += res->n;
	u->st.fp_steps += res->fp_steps;
	u->st.late += c->went_late;
	if (res->stop != UW_COMPLETE && res->stop != UW_JOINED && res->stop != UW_FPCHAIN &&
	    c->last_obj < u->n_objs)
		u->objs[c->last_obj].stopped++;
}

/* The objects a kept sample's walk will meet: those of the return addresses its stack copy
 * holds (and some stale words: a table built for nothing, no harm). At most SCANS_PER_PASS
 * copies per drain pass. */
static void want_stack(struct unwinder *u, const struct as_proc *p, const struct uw_stack *st)
{
	const struct as_map *m = NULL;

	if (!p || u->scans >= SCANS_PER_PASS)
		return;
	u->scans++;
	for (size_t off = 0; off + 8 <= st->size; off += 8) {
		uint64_t w;

		memcpy(&w, st->data + off, 8);
		if (w < 4096 || w >= (1ull << 47) /* no user address */ ||
		    (m && w >= m->start && w < m->end))
			continue;
		if (!(m = addrspace_map(p, w)) || m->obj >= u->n_objs)
			continue;
		if (u->objs[m->obj].state == OBJ_NEW || u->objs[m->obj].state == OBJ_DROPPED)
			want(u, m->obj, p->pid, m);
	}
}

/* Keep a sample for later (c: where its walk ended): false when the keep is full. */
static bool hold(struct unwinder *u, size_t ci, const struct perfrec_sample *s, size_t nk,
		 size_t nfp, const struct uw_regs *regs, const struct uw_stack *st,
		 const struct find_ctx *c)
{
	size_t size = (sizeof(struct held) + (nk + nfp) * 8 + st->size + 7) & ~(size_t)7;
	struct held *e;

	if (u->hold_len + size > UNWINDER_HOLD_BYTES ||
	    GROW(u->hold, u->hold_cap, u->hold_len + size) < 0) {
		u->st.hold_full++;
		return false;
	}
	e = (struct held *)(u->hold + u->hold_len);
	*e = (struct held){ .size = (uint32_t)size,
			    .ci = (uint32_t)ci,
			    .s = *s,
			    .regs = { regs->ip, regs->sp, regs->bp },
			    .dyn = st->size,
			    .nk = nk,
			    .pass = u->pass,
			    .wait = c->last_obj,
			    .nfp = (uint32_t)nfp };
	e->s.ips = NULL;
	if (nk)
		memcpy(e + 1, s->ips, nk * 8);
	if (nfp)
		memcpy((uint64_t *)(e + 1) + nk, u->fpw, nfp * 8);
	if (st->size)
		memcpy((unsigned char *)(e + 1) + (nk + nfp) * 8, st->data, st->size);
	u->hold_len += size;
	if (s->id.time < u->hold_since)
		u->hold_since = s->id.time;
	u->st.held++;
	count_waiting(u, c->last_obj, 1);
	if (c->last_obj != UNMAPPED)
		want_stack(u, c->p, st);
	return true;
}

/* Keep a sample a join completed: its chain (n words; the user words from user_at on, their
 * stack pointers in sps) for JOIN_DELAY_NS (unwinder_release() looks at the join again). */
static bool hold_joined(struct unwinder *u, size_t ci, const struct perfrec_sample *s,
			const uint64_t *chain, size_t n, size_t user_at, const uint64_t *sps,
			const struct uw_result *res)
{
	size_t n_user = n - user_at - 1; /* the final stop marker has no frame */
	size_t size = sizeof(struct held) + (n + n_user) * 8;
	struct held *e;

	if (u->hold_len + size > UNWINDER_HOLD_BYTES ||
	    GROW(u->hold, u->hold_cap, u->hold_len + size) < 0)
		return false;
	e = (struct held *)(u->hold + u->hold_len);
	*e = (struct held){ .size = (uint32_t)size,
			    .ci = (uint32_t)ci,
			    .s = *s,
			    .nk = n,
			    .pass = u->pass,
			    .wait = JOINING,
			    .user_at = (uint32_t)user_at,
			    .n_user = (uint32_t)n_user,
			    .res_n = (uint32_t)res->n,
			    .fp_steps = res->fp_steps };
	e->s.ips = NULL;
	memcpy(e + 1, chain, n * 8);
	memcpy((uint64_t *)(e + 1) + n, sps, n_user * 8);
	u->hold_len += size;
	if (s->id.time < u->hold_since)
		u->hold_since = s->id.time;
	return true;
}

/* Whether the join of a kept chain (n user words pcs, their stack pointers sps, the marker at
 * *ret_marker) still holds: every frame it went through still has that caller and is not
 * ambiguous. Frames forgotten meanwhile (the thread ended, its slot was taken) contradict
 * nothing. */
static bool join_holds(struct unwinder *u, uint32_t tid, const uint64_t *pcs, const uint64_t *sps,
		       size_t n, size_t *ret_marker)
{
	struct join_slot *j = join_slot(u, tid, false);
	size_t m = 0;

	while (m < n && pcs[m] != RP_CONTEXT_JOINED)
		m++;
	*ret_marker = m;
	if (!j || m == 0 || m >= n)
		return true;
	for (size_t i = m + 1, prev = m - 1;; prev = i++) {
		const struct join_edge *e = edge_find(j, pcs[prev], sps[prev], false);

		if (!e)
			return true; /* forgotten: nothing known against it */
		if (e->ambiguous)
			return false;
		if (i >= n)
			return !e->cpc; /* the outermost frame is still the outermost */
		if (e->cpc != pcs[i] || e->csp != sps[i])
			return false;
	}
}

size_t unwinder_chain(struct unwinder *u, size_t ci, const struct perfrec_sample *s,
		      const struct perfrec_user *user, uint64_t *out, size_t max, bool *ret_held)
{
	size_t nfp, n = split_chain(u, s, out, max, &nfp), k;
	struct find_ctx c = { .u = u };
	struct uw_regs regs;
	struct uw_stack st;
	struct uw_result res;

	*ret_held = false;
	if (!user->regs || user->n_regs < UNWINDER_N_REGS || max - n < 3)
		return n;
	/* The mask's bits in order: bp (6), sp (7), ip (8). */
	regs = (struct uw_regs){ user->regs[2], user->regs[1], user->regs[0] };
	st = (struct uw_stack){ user->stack, user->stack ? user->dyn_size : 0 };
	k = walk_user(&c, &s->id, &regs, &st, u->fpw, nfp, ci == SIZE_MAX, out, n, max, &res);
	if (res.stop == UW_JOINED && ci != SIZE_MAX &&
	    hold_joined(u, ci, s, out, k, n + 1, u->sps, &res)) {
		*ret_held = true; /* the keep is full: stored joined now, as before */
		return 0;
	}
	if ((res.stop == UW_PENDING || c.last_obj == UNMAPPED) && ci != SIZE_MAX) {
		if (hold(u, ci, s, n, nfp, &regs, &st, &c)) {
			*ret_held = true;
			return 0;
		}
		/* The keep is full: stored now, continued by frame pointers where they agree, else
		 * cut where the table is missing. */
		k = walk_user(&c, &s->id, &regs, &st, u->fpw, nfp, true, out, n, max, &res);
		c.went_late = res.stop == UW_PENDING;
	}
	count_walk(u, &res, &c);
	return k;
}

uint64_t unwinder_held_since(const struct unwinder *u)
{
	return u->hold_since;
}

size_t unwinder_held(const struct unwinder *u, size_t *ret_tables)
{
	size_t n = 0;

	if (ret_tables) {
		*ret_tables = 0;
		for (size_t i = 0; i < u->n_objs; i++)
			*ret_tables += u->objs[i].state == OBJ_PENDING ||
				       (u->objs[i].state == OBJ_NEW && u->objs[i].want);
	}
	for (size_t in = 0; in < u->hold_len; n++)
		in += ((const struct held *)(u->hold + in))->size;
	return n;
}

/* Whether a kept sample may have something new to find: its table came or failed, or its
 * pc's mapping may be known now. */
static bool worth_walking(const struct unwinder *u, const struct held *e)
{
	return e->wait >= u->n_objs ||
	       (u->objs[e->wait].state != OBJ_NEW && u->objs[e->wait].state != OBJ_PENDING);
}

/* A kept sample a join completed, stored: joined when the join still holds, else cut where
 * the copy ended (counted in stats.joins_undone). */
static void emit_joined(struct unwinder *u, const struct held *e,
			void (*emit)(void *arg, size_t ci, const struct perfrec_sample *s),
			void *arg)
{
	const uint64_t *chain = (const uint64_t *)(e + 1);
	struct uw_result res = { .n = e->res_n, .stop = UW_JOINED, .fp_steps = e->fp_steps };
	struct find_ctx c = { .u = u, .last_obj = NO_OBJ };
	struct perfrec_sample s = e->s;
	size_t n = e->nk, m;

	memcpy(u->chain, chain, n * 8);
	if (!join_holds(u, s.id.tid, u->chain + e->user_at, chain + e->nk, e->n_user, &m)) {
		u->chain[e->user_at + m] = RP_CONTEXT_UNWIND + (uint64_t)UW_STACK_END;
		n = e->user_at + m + 1;
		res.stop = UW_STACK_END;
		u->st.joins_undone++;
	}
	count_walk(u, &res, &c);
	s.ips = u->chain;
	s.nr = n;
	emit(arg, e->ci, &s);
}

void unwinder_release(struct unwinder *u, bool all, uint64_t now, uint64_t max_age,
		      void (*emit)(void *arg, size_t ci, const struct perfrec_sample *s), void *arg)
{
	size_t in = 0, out = 0;

	if (!u->hold_len)
		return;
	u->hold_since = UINT64_MAX;
	while (in < u->hold_len) {
		struct held *e = (struct held *)(u->hold + in);
		const uint64_t *kc = (const uint64_t *)(e + 1), *fp = kc + e->nk;
		struct uw_regs regs = { e->regs[0], e->regs[1], e->regs[2] };
		struct uw_stack st = { (const unsigned char *)(fp + e->nfp), e->dyn };
		struct find_ctx c = { .u = u };
		struct uw_result res = { .stop = UW_PENDING };
		struct perfrec_sample s = e->s;
		size_t n = 0, size = e->size;
		bool late = all || now - s.id.time >= max_age;

		if (e->wait == JOINING && (all || now - s.id.time >= JOIN_DELAY_NS)) {
			emit_joined(u, e, emit, arg);
			in += size;
			continue;
		}
		count_waiting(u, e->wait, -1); /* counted again below if it is kept */
		if (e->wait != JOINING && (late || worth_walking(u, e))) {
			memcpy(u->chain, kc, e->nk * 8);
			n = walk_user(&c, &s.id, &regs, &st, fp, e->nfp, late, u->chain, e->nk,
				      sizeof(u->chain) / 8, &res);
			e->wait = c.last_obj;
		}
		if (!late && (res.stop == UW_PENDING ||
			      (c.last_obj == UNMAPPED && u->pass - e->pass < UNMAPPED_PASSES))) {
			if (s.id.time < u->hold_since)
				u->hold_since = s.id.time;
			count_waiting(u, e->wait, 1);
			if (out != in)
				memmove(u->hold + out, e, size);
			out += size;
			in += size;
			continue;
		}
		if (!late && c.last_obj == UNMAPPED) /* waited long enough for its mapping */
			n = walk_user(&c, &s.id, &regs, &st, fp, e->nfp, true, u->chain, e->nk,
				      sizeof(u->chain) / 8, &res);
		c.went_late = res.stop == UW_PENDING; /* its table is late: stored cut */
		count_walk(u, &res, &c);
		s.ips = u->chain;
		s.nr = n;
		emit(arg, e->ci, &s);
		in += size;
	}
	u->hold_len = out;
}
