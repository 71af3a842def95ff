/* test-unwinder.c — the record-time unwinder's hold and release, and the one registry's
 * requests, against a scripted helper (objreg_new_scripted(): a forked child answering over
 * the real socketpair, restarted by the real uhelper when it dies).
 *
 * Two "binaries" are files in a temporary directory, mapped (in MMAP2 records fed to the
 * unwinder, for this process) at made-up addresses: the opener reaches them by path and checks
 * their inode, as it would a file whose mapping it cannot see. The scripted helper answers a
 * build-id request "no build-id", and a table request for A or B with a small table: in B,
 * every frame is a plain one (cfa = rsp + 8, the return address at cfa - 8); in A the same,
 * but the outermost frame is at offset 0x800-0x900. A sample whose leaf is in B at sp with
 * the stack [ret into A at 0x100, ret into A at 0x850] walks, once both tables are there, to
 * the outermost frame: B 0x200100, A 0x100100, A 0x100850.
 *
 * Checked: samples that meet an object whose table is not there are kept, and released in
 * the order they were taken once the tables come; tables are asked for in the order samples
 * needed them; a helper that dies on one file is restarted, that file goes without a table
 * (the sample stops there) and the others get theirs; a table that never comes lets a sample
 * go cut ("table pending") after the age limit; the keep is bounded by memory (beyond it a
 * sample is stored cut at once). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "base/util.h"
#include "capture/objreg.h"
#include "capture/uhelper.h"
#include "capture/unwinder.h"
#include "check.h"
#include "format/format.h"
#include "format/perfrec.h"
#include "unwind/proto.h"
#include "unwind/utab.h"

#define ST (PERF_SAMPLE_TID | PERF_SAMPLE_TIME)
#define A_START 0x100000ull
#define B_START 0x200000ull
#define MAP_LEN 0x10000ull
#define SP 0x7ff000000000ull

enum mode { ANSWER, DIE, NEVER };

static uint64_t t0; /* the records' times count from here (the keep ages them by the clock) */

/* What the scripted helper does, set before it is forked: per file (by inode). */
static struct {
	uint64_t ino[2];
	enum mode mode[2];
	int log;   /* it writes 'A' or 'B' here for each table request, 'i' for each build-id one */
	bool bids; /* files have build-ids (0xa0 + k repeated) and digests (0xd0 + k) */
} script;

struct small_table {
	struct utab_hdr h;
	struct utab_rule rules[3];
	struct utab_row rows[3];
};

static void make_table(struct small_table *t, bool is_a)
{
	memset(t, 0, sizeof(*t));
	if (script.bids) {
		t->h.build_id_len = 20;
		memset(t->h.build_id, is_a ? 0xa0 : 0xa1, 20);
	}
	memcpy(t->h.magic, UTAB_MAGIC, 8);
	t->h.version = UTAB_VERSION;
	t->h.hdr_size = sizeof(t->h);
	t->h.n_rules = 3;
	t->h.builder = UTAB_BUILDER_REV;
	t->rules[1] = (struct utab_rule){ .cfa = UTAB_CFA_SP, .ra_off = -8, .cfa_off = 8 };
	t->rules[2] = (struct utab_rule){ .cfa = UTAB_CFA_END, .ra_off = -8 };
	t->rows[0] = (struct utab_row){ 0, 1 };
	if (is_a) {
		t->h.n_rows = 3;
		t->rows[1] = (struct utab_row){ 0x800, 2 };
		t->rows[2] = (struct utab_row){ 0x900, 0 };
	} else {
		t->h.n_rows = 2;
		t->rows[1] = (struct utab_row){ 0x1000, 0 };
	}
	utab_seal(t);
}

/* The scripted helper: answers in order, as the real one does. */
static int scripted(void *arg, int sock)
{
	(void)arg;
	for (;;) {
		struct uwp_request q;
		struct uwp_reply r;
		struct small_table t;
		struct stat st;
		bool trunc;
		int fd = -1, k = -1, mfd = -1;
		ssize_t n = uwp_recv(sock, &q, sizeof(q), 0, &fd, &trunc);

		if (n <= 0)
			return 0;
		if (fd >= 0 && fstat(fd, &st) == 0)
			k = st.st_ino == script.ino[0] ? 0 : st.st_ino == script.ino[1] ? 1 : -1;
		if (fd >= 0)
			close(fd);
		memset(&r, 0, sizeof(r));
		r.magic = UWP_MAGIC;
		r.id = q.id;
		if (script.bids && k >= 0) {
			r.build_id_len = 20;
			memset(r.build_id, 0xa0 + k, 20);
			r.digest_len = UWP_DIGEST_LEN;
			memset(r.digest, 0xd0 + k, UWP_DIGEST_LEN);
		}
		if (q.kind == UWP_BUILD_ID || q.kind == UWP_BUILD_ID_SYMS) {
			if (write(script.log, "i", 1) < 0)
				return 1;
			r.status = script.bids && k >= 0 ? 0 : -ENOENT;
			r.sym_status = -ENOENT;
			snprintf(r.why, sizeof(r.why), "no build-id");
		} else {
			if (write(script.log, k == 0 ? "A" : k == 1 ? "B" : "?", 1) < 0)
				return 1;
			if (k >= 0 && script.mode[k] == DIE)
				raise(SIGKILL);
			if (k >= 0 && script.mode[k] == NEVER)
				for (;;)
					pause();
			make_table(&t, k == 0);
			mfd = memfd_create("table", MFD_CLOEXEC);
			if (k < 0 || mfd < 0 || write(mfd, &t, t.h.size) != (ssize_t)t.h.size) {
				r.status = -EINVAL;
				snprintf(r.why, sizeof(r.why), "not a file of the script");
			} else {
				r.size = t.h.size;
			}
		}
		if (uwp_send(sock, &r, sizeof(r), r.status == 0 ? mfd : -1, 0) < 0)
			return 1;
		if (mfd >= 0)
			close(mfd);
	}
}

/* An MMAP2 record of this process mapping PATH (inode st) at START, executable. */
static void feed_mmap(struct unwinder *u, const char *path, const struct stat *st, uint64_t start,
		      uint64_t time)
{
	uint64_t buf[64];
	unsigned char *p = (unsigned char *)buf;
	struct perf_event_header *h = (void *)buf;
	size_t len = strlen(path) + 1, off = sizeof(*h);
	uint32_t u32[2] = { (uint32_t)getpid(), (uint32_t)getpid() };
	uint64_t u64[3] = { start, MAP_LEN, 0 };
	uint32_t dev[2] = { major(st->st_dev), minor(st->st_dev) };
	uint64_t ino[2] = { st->st_ino, 1 };
	uint32_t prot[2] = { PROT_READ | PROT_EXEC, MAP_PRIVATE };
	struct perfrec_id id = { .pid = (uint32_t)getpid(),
				 .tid = (uint32_t)getpid(),
				 .time = time };

	memset(buf, 0, sizeof(buf));
	memcpy(p + off, u32, 8), off += 8;
	memcpy(p + off, u64, 24), off += 24;
	memcpy(p + off, dev, 8), off += 8;
	memcpy(p + off, ino, 16), off += 16;
	memcpy(p + off, prot, 8), off += 8;
	memcpy(p + off, path, len), off += (len + 7) / 8 * 8;
	perfrec_id_write(p + off, ST, &id);
	off += perfrec_id_size(ST);
	h->type = PERF_RECORD_MMAP2;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = (uint16_t)off;
	unwinder_side_band(u, h, ST);
}

struct emitted {
	size_t n;
	uint64_t time[16];
	uint64_t chain[16][8];
	size_t nr[16];
};

static void emit(void *arg, size_t ci, const struct perfrec_sample *s)
{
	struct emitted *e = arg;

	(void)ci;
	if (e->n < 16) {
		e->time[e->n] = s->id.time - t0;
		e->nr[e->n] = s->nr < 8 ? s->nr : 8;
		memcpy(e->chain[e->n], s->ips, e->nr[e->n] * 8);
	}
	e->n++;
}

/* A sample at TIME with its leaf at IP; the stack holds the two return addresses into A. */
static size_t sample(struct unwinder *u, uint64_t time, uint64_t ip, uint64_t *out, bool *held)
{
	static const uint64_t stack[2] = { A_START + 0x100, A_START + 0x850 };
	uint64_t regs[3] = { 0, SP, ip };
	struct perfrec_sample s = {
		.id = { .pid = (uint32_t)getpid(), .tid = (uint32_t)getpid(), .time = t0 + time },
		.ip = ip
	};
	struct perfrec_user user = { PERF_SAMPLE_REGS_ABI_64, regs,	     3,
				     (const void *)stack,     sizeof(stack), sizeof(stack) };

	return unwinder_chain(u, 0, &s, &user, out, 64, held);
}

/* The stop reason a stored chain ends with. */
static int stop_of(const uint64_t *chain, size_t nr)
{
	return nr && chain[nr - 1] >= RP_CONTEXT_UNWIND &&
		       chain[nr - 1] < RP_CONTEXT_UNWIND + RP_CONTEXT_UNWIND_N
		   ? (int)(chain[nr - 1] - RP_CONTEXT_UNWIND)
		   : -1;
}

/* Poll the registry and release kept samples until want have been emitted or 5 s passed. */
static void pump(struct objreg *g, struct unwinder *u, struct emitted *e, size_t want,
		 uint64_t max_age)
{
	uint64_t until = util_now_ns() + 5000000000ull;

	while (e->n < want && util_now_ns() < until) {
		usleep(5000);
		objreg_poll(g, true);
		unwinder_release(u, false, util_now_ns(), max_age, emit, e);
		unwinder_pass(u);
	}
}

static char dir[] = "/tmp/rp-test-unwinder.XXXXXX";
static char path_a[64], path_b[64];
static struct stat st_a, st_b;

static struct unwinder *setup(struct objreg **g, int logfd, enum mode ma, enum mode mb)
{
	char note[300];
	struct unwinder *u;

	script.ino[0] = st_a.st_ino;
	script.ino[1] = st_b.st_ino;
	script.mode[0] = ma;
	script.mode[1] = mb;
	script.log = logfd;
	*g = objreg_new_scripted(scripted, NULL, note, sizeof(note));
	if (!CHECK(*g && objreg_has_helper(*g), "the scripted helper: %s", note))
		return NULL;
	objreg_want_build_ids(*g, false);
	u = unwinder_new(*g);
	feed_mmap(u, path_a, &st_a, A_START, t0 + 1);
	feed_mmap(u, path_b, &st_b, B_START, t0 + 2);
	return u;
}

static void done(struct objreg *g, struct unwinder *u)
{
	unwinder_free(u);
	objreg_free(g);
}

static size_t read_log(int fd, char *buf, size_t size)
{
	ssize_t n = read(fd, buf, size - 1);

	buf[n > 0 ? n : 0] = '\0';
	return n > 0 ? (size_t)n : 0;
}

/* Kept until the tables come, then released in order, complete; tables asked for in the order
 * samples needed them (B, where the leaf is, first). */
static void test_hold_release(int logr, int logw)
{
	struct objreg *g;
	struct unwinder *u = setup(&g, logw, ANSWER, ANSWER);
	struct emitted e = { 0 };
	uint64_t out[64];
	char log[64];
	bool held;

	if (!u)
		return;
	test_ctx = "hold and release";
	CHECK_INT(sample(u, 10, B_START + 0x100, out, &held), 0);
	CHECK(held, "a sample whose table is not there is kept");
	sample(u, 11, B_START + 0x100, out, &held);
	CHECK(held, "and the next one");
	CHECK_INT(unwinder_held(u, NULL), 2);
	pump(g, u, &e, 2, 60000000000ull);
	CHECK_INT(e.n, 2);
	CHECK(e.time[0] == 10 && e.time[1] == 11, "released in the order taken: %llu %llu",
	      (unsigned long long)e.time[0], (unsigned long long)e.time[1]);
	CHECK_INT(e.nr[0], 5);
	CHECK(e.chain[0][0] == PERF_CONTEXT_USER && e.chain[0][1] == B_START + 0x100 &&
		  e.chain[0][2] == A_START + 0x100 && e.chain[0][3] == A_START + 0x850,
	      "the chain B, A, A (outermost): %#llx %#llx %#llx", (unsigned long long)e.chain[0][1],
	      (unsigned long long)e.chain[0][2], (unsigned long long)e.chain[0][3]);
	CHECK_INT(stop_of(e.chain[0], e.nr[0]), UW_COMPLETE);
	read_log(logr, log, sizeof(log));
	CHECK(strchr(log, 'B') && strchr(log, 'A') && strchr(log, 'B') < strchr(log, 'A'),
	      "B's table asked for before A's: requests '%s'", log);
	CHECK(strchr(log, 'i') && strchr(log, 'i') < strchr(log, 'A'),
	      "the build-ids of both asked for before A's table: '%s'", log);
	/* Both tables there: the next sample is walked at once. */
	CHECK_INT(sample(u, 12, B_START + 0x100, out, &held), 5);
	CHECK(!held && out[3] == A_START + 0x850 && stop_of(out, 5) == UW_COMPLETE,
	      "with the tables there, walked at once to the outermost frame");
	CHECK_INT(objreg_helper(g)->deaths, 0);
	done(g, u);
}

/* Tables are asked for by how many kept samples wait for each: one sample waits for A, then
 * three for B (the busier process's object): B's table is asked for first. */
static void test_most_waiting(int logr, int logw)
{
	struct objreg *g;
	struct unwinder *u = setup(&g, logw, ANSWER, ANSWER);
	struct emitted e = { 0 };
	uint64_t out[64];
	char log[64];
	bool held;

	if (!u)
		return;
	test_ctx = "most waiting first";
	sample(u, 10, A_START + 0x100, out, &held);
	CHECK(held, "a sample in A is kept");
	for (uint64_t t = 11; t <= 13; t++)
		sample(u, t, B_START + 0x100, out, &held);
	CHECK_INT(unwinder_held(u, NULL), 4);
	pump(g, u, &e, 4, 60000000000ull);
	CHECK_INT(e.n, 4);
	CHECK(e.time[0] == 10 && e.time[3] == 13, "released in the order taken: %llu .. %llu",
	      (unsigned long long)e.time[0], (unsigned long long)e.time[3]);
	read_log(logr, log, sizeof(log));
	CHECK(strchr(log, 'B') && strchr(log, 'A') && strchr(log, 'B') < strchr(log, 'A'),
	      "B's table (3 samples wait) asked for before A's (1, asked for first): '%s'", log);
	done(g, u);
}

/* The helper dies on B: restarted, B goes without a table (the sample stops in B: no unwind
 * information), A gets its table from the new helper. */
static void test_helper_dies(int logr, int logw)
{
	struct objreg *g;
	struct unwinder *u = setup(&g, logw, ANSWER, DIE);
	struct emitted e = { 0 };
	const struct uhelper *h;
	uint64_t out[64];
	char log[64];
	bool held;

	if (!u)
		return;
	test_ctx = "the helper dies";
	sample(u, 20, B_START + 0x100, out, &held);
	CHECK(held, "kept while B's table is asked for");
	pump(g, u, &e, 1, 60000000000ull);
	CHECK_INT(e.n, 1);
	CHECK(e.nr[0] >= 3 && e.chain[0][1] == B_START + 0x100,
	      "released with its leaf in B (nr %zu)", e.nr[0]);
	CHECK_INT(stop_of(e.chain[0], e.nr[0]), UW_NO_INFO);
	h = objreg_helper(g);
	CHECK_INT(h->deaths, 1);
	CHECK(strstr(h->last_death, "died of signal 9") && strstr(h->last_death, path_b) &&
		  strstr(h->last_death, "goes without a table"),
	      "the death names how, the file and what it loses: %s", h->last_death);
	CHECK(h->pid > 0 && h->sock >= 0, "restarted");
	/* A sample whose leaf is in A: its table comes from the new helper. */
	e.n = 0;
	sample(u, 21, A_START + 0x100, out, &held);
	if (held)
		pump(g, u, &e, 1, 60000000000ull);
	else
		e.n = 1;
	CHECK(e.n == 1, "the sample in A was stored");
	read_log(logr, log, sizeof(log));
	CHECK(strrchr(log, 'A') > strchr(log, 'B'), "A's table asked for after the death: '%s'",
	      log);
	CHECK(objreg_helper(g)->deaths == 1, "no other death");
	done(g, u);
}

/* B's table never comes: the sample is kept until the age limit, then stored cut there
 * ("table pending"); the keep is bounded by memory: beyond it samples are stored cut at once. */
static void test_never_and_bound(int logr, int logw)
{
	static unsigned char big[8192];
	struct objreg *g;
	struct unwinder *u = setup(&g, logw, ANSWER, NEVER);
	struct emitted e = { 0 };
	uint64_t out[64], regs[3] = { 0, SP, B_START + 0x200 };
	size_t kept = 0, cut = 0;
	char log[64];
	bool held;

	if (!u)
		return;
	test_ctx = "a table that never comes";
	sample(u, 30, B_START + 0x100, out, &held);
	CHECK(held, "kept");
	pump(g, u, &e, 1, 300000000ull); /* 0.3 s at most */
	CHECK_INT(e.n, 1);
	CHECK_INT(stop_of(e.chain[0], e.nr[0]), UW_PENDING);
	CHECK_INT(unwinder_stats(u)->late, 1);
	/* The bound: 8 KiB copies until the keep refuses one. */
	test_ctx = "the keep's memory bound";
	for (uint64_t t = 100; t < 100 + 2 * UNWINDER_HOLD_BYTES / sizeof(big); t++) {
		struct perfrec_sample s = { .id = { .pid = (uint32_t)getpid(),
						    .tid = (uint32_t)getpid(),
						    .time = t0 + t },
					    .ip = regs[2] };
		struct perfrec_user user = {
			PERF_SAMPLE_REGS_ABI_64, regs, 3, big, sizeof(big), sizeof(big)
		};
		size_t n = unwinder_chain(u, 0, &s, &user, out, 64, &held);

		if (held) {
			kept++;
		} else {
			cut++;
			if (!CHECK(stop_of(out, n) == UW_PENDING, "stored cut at B: stop %d",
				   stop_of(out, n)))
				break;
		}
	}
	CHECK(kept > 0 && cut > 0, "some kept (%zu), the rest stored cut (%zu)", kept, cut);
	CHECK(kept * sizeof(big) <= UNWINDER_HOLD_BYTES, "what is kept fits the bound: %zu x %zu",
	      kept, sizeof(big));
	CHECK(unwinder_stats(u)->hold_full == cut, "counted as refused by the full keep: %llu",
	      (unsigned long long)unwinder_stats(u)->hold_full);
	e.n = 0;
	unwinder_release(u, true, util_now_ns(), 60000000000ull, emit, &e);
	CHECK(e.n == kept, "all kept samples released at the end: %zu of %zu", e.n, kept);
	read_log(logr, log, sizeof(log));
	CHECK(strchr(log, 'B') != NULL, "B's table was asked for: '%s'", log);
	done(g, u); /* the helper, stuck for good, is killed */
}

/* A sample whose copy holds STACK (n return addresses) and whose kernel chain holds the user
 * frame-pointer chain FP (nfp words, fp[0] the ip). */
static size_t sample_fp(struct unwinder *u, uint64_t time, const uint64_t *stack, size_t n,
			const uint64_t *fp, size_t nfp, uint64_t *out, bool *held)
{
	uint64_t regs[3] = { 0, SP, B_START + 0x100 }, ips[16] = { PERF_CONTEXT_USER };
	struct perfrec_sample s = {
		.id = { .pid = (uint32_t)getpid(), .tid = (uint32_t)getpid(), .time = t0 + time },
		.ip = regs[2],
		.ips = ips,
		.nr = nfp + 1,
	};
	struct perfrec_user user = { PERF_SAMPLE_REGS_ABI_64, regs,  3,
				     (const void *)stack,     n * 8, n * 8 };

	if (nfp)
		memcpy(ips + 1, fp, nfp * 8);
	return unwinder_chain(u, 0, &s, &user, out, 64, held);
}

/* A sample at TIME whose stack copy holds the return addresses STACK (n of them). */
static size_t sample_stack(struct unwinder *u, uint64_t time, const uint64_t *stack, size_t n,
			   uint64_t *out, bool *held)
{
	return sample_fp(u, time, stack, n, NULL, 0, out, held);
}

/* A sample whose walk needs both tables, and the tables come (the helper's log read). */
static void tables_come(struct objreg *g, struct unwinder *u, int logr, const uint64_t *stack,
			size_t n)
{
	struct emitted e = { 0 };
	uint64_t out[64];
	char log[64];
	bool held;

	sample_stack(u, 40, stack, n, out, &held);
	pump(g, u, &e, 1, 60000000000ull);
	read_log(logr, log, sizeof(log));
}

/* Whether a chain holds MARK followed by pc. */
static bool marked_to(const uint64_t *chain, size_t nr, uint64_t mark, uint64_t pc)
{
	for (size_t i = 0; i + 1 < nr; i++)
		if (chain[i] == mark && chain[i + 1] == pc)
			return true;
	return false;
}
#define joined_to(c, nr, pc) marked_to(c, nr, RP_CONTEXT_JOINED, pc)
#define fp_to(c, nr, pc) marked_to(c, nr, RP_CONTEXT_FPCHAIN, pc)

/* By default a stack cut by the copy stays cut. Asked to join: it is completed from what a full
 * walk of the same thread read, marked joined, and kept a moment; a full walk that then finds
 * another caller for a frame the join went through takes the join back: the sample is stored cut
 * where the copy ended. */
static void test_join(int logr, int logw)
{
	static const uint64_t full[2] = { A_START + 0x100, A_START + 0x850 };
	static const uint64_t other[2] = { A_START + 0x100, A_START + 0x860 };
	struct objreg *g;
	struct unwinder *u = setup(&g, logw, ANSWER, ANSWER);
	struct emitted e = { 0 };
	uint64_t out[64];
	size_t n;
	bool held;

	if (!u)
		return;
	test_ctx = "joins";
	tables_come(g, u, logr, full, 2);
	/* By default nothing is joined: a stack cut by the copy stays cut. */
	n = sample_stack(u, 51, full, 2, out, &held);
	CHECK(!held && stop_of(out, n) == UW_COMPLETE, "a full walk");
	n = sample_stack(u, 52, full, 1, out, &held);
	CHECK(!held && stop_of(out, n) == UW_STACK_END && !joined_to(out, n, full[1]),
	      "joins off (the default): a stack cut by the copy is stored cut (stop %d)",
	      stop_of(out, n));
	unwinder_set_join(u, true);
	n = sample_stack(u, 51, full, 2, out, &held);
	CHECK(!held && stop_of(out, n) == UW_COMPLETE, "a full walk, remembered");
	/* Cut: only the first return address was copied. */
	e.n = 0;
	n = sample_stack(u, 52, full, 1, out, &held);
	CHECK(held, "a joined sample is kept a moment (%zu words)", n);
	pump(g, u, &e, 1, 60000000000ull);
	CHECK_INT(e.n, 1);
	CHECK(stop_of(e.chain[0], e.nr[0]) == UW_JOINED && joined_to(e.chain[0], e.nr[0], full[1]),
	      "stored joined, the inferred caller after RP_CONTEXT_JOINED");
	CHECK_INT(unwinder_stats(u)->joins_undone, 0);
	/* Cut again, then a full walk through the same frame with another caller. */
	e.n = 0;
	sample_stack(u, 53, full, 1, out, &held);
	CHECK(held, "the next cut sample is kept too");
	n = sample_stack(u, 54, other, 2, out, &held);
	CHECK(!held && stop_of(out, n) == UW_COMPLETE, "a full walk with another caller");
	pump(g, u, &e, 1, 60000000000ull);
	CHECK_INT(e.n, 1);
	CHECK(stop_of(e.chain[0], e.nr[0]) == UW_STACK_END &&
		  !joined_to(e.chain[0], e.nr[0], full[1]),
	      "the join taken back: stored cut by the copy (stop %d)",
	      stop_of(e.chain[0], e.nr[0]));
	CHECK_INT(unwinder_stats(u)->joins_undone, 1);
	/* From now on the frame is ambiguous: no join through it. */
	n = sample_stack(u, 55, full, 1, out, &held);
	CHECK(!held && stop_of(out, n) == UW_STACK_END, "no join through an ambiguous frame");
	done(g, u);
}

/* A walk that stops short goes on with the kernel's frame-pointer chain of the same sample only
 * where that chain agrees with every return address the walk read and adds return addresses
 * into mapped code; marked RP_CONTEXT_FPCHAIN, stop UW_FPCHAIN. A sample that waits for a table
 * is not continued while it waits, only when it is stored without it. */
static void test_fpchain(int logr, int logw)
{
	const uint64_t ip = B_START + 0x100, a1 = A_START + 0x100, a2 = A_START + 0x110,
		       a3 = A_START + 0x120, outer = A_START + 0x850;
	const uint64_t stack[3] = { a1, a2, a3 };
	const uint64_t agree[3] = { ip, a1, outer }, other[3] = { ip, a1 + 8, outer },
		       wild[3] = { ip, a1, 0x5000 }, skip[4] = { ip, a2, a3, outer },
		       skip_short[3] = { ip, a1 + 8, outer };
	struct objreg *g;
	struct unwinder *u = setup(&g, logw, ANSWER, ANSWER);
	struct emitted e = { 0 };
	uint64_t out[64];
	char log[64];
	size_t n;
	bool held;

	if (!u)
		return;
	test_ctx = "frame-pointer chains";
	tables_come(g, u, logr, stack, 3);
	n = sample_fp(u, 61, stack, 1, agree, 3, out, &held);
	CHECK(!held && stop_of(out, n) == UW_FPCHAIN && fp_to(out, n, outer) && n == 6 &&
		  out[1] == ip && out[2] == a1,
	      "cut by the copy, the chain agrees: continued after RP_CONTEXT_FPCHAIN (stop %d, %zu "
	      "words)",
	      stop_of(out, n), n);
	n = sample_fp(u, 62, stack, 1, other, 3, out, &held);
	CHECK(!held && stop_of(out, n) == UW_STACK_END && !fp_to(out, n, outer),
	      "a chain that disagrees with the return address read: cut (stop %d)",
	      stop_of(out, n));
	n = sample_fp(u, 63, stack, 1, wild, 3, out, &held);
	CHECK(!held && stop_of(out, n) == UW_STACK_END,
	      "a chain whose next word is in no mapping: cut (stop %d)", stop_of(out, n));
	n = sample_fp(u, 64, stack, 3, skip, 4, out, &held);
	CHECK(!held && stop_of(out, n) == UW_FPCHAIN && fp_to(out, n, outer) && out[4] == a3,
	      "the leaf had not saved its frame pointer (fp[1] is the second return address), two "
	      "agree: continued (stop %d)",
	      stop_of(out, n));
	n = sample_fp(u, 65, stack, 2, skip_short, 3, out, &held);
	CHECK(!held && stop_of(out, n) == UW_STACK_END,
	      "the same with one return address to agree on: cut (stop %d)", stop_of(out, n));
	n = sample_fp(u, 66, stack, 3, agree, 3, out, &held);
	CHECK(!held && stop_of(out, n) == UW_STACK_END,
	      "a chain shorter than the walk adds nothing: cut (stop %d)", stop_of(out, n));
	CHECK(unwinder_stats(u)->stop[UW_FPCHAIN] == 2, "counted: %llu",
	      (unsigned long long)unwinder_stats(u)->stop[UW_FPCHAIN]);
	done(g, u);

	/* A's table never comes: kept uncontinued while it waits, continued when stored late. */
	u = setup(&g, logw, NEVER, ANSWER);
	if (!u)
		return;
	e.n = 0;
	sample_fp(u, 70, stack, 1, agree, 3, out, &held);
	CHECK(held, "a sample waiting for A's table is kept, not continued");
	for (int i = 0; i < 40; i++) { /* B's table comes meanwhile: it waits for A's */
		usleep(5000);
		objreg_poll(g, true);
		unwinder_release(u, false, util_now_ns(), 60000000000ull, emit, &e);
		unwinder_pass(u);
	}
	CHECK_INT(e.n, 0);
	unwinder_release(u, true, util_now_ns(), 60000000000ull, emit, &e);
	CHECK(e.n == 1 && stop_of(e.chain[0], e.nr[0]) == UW_FPCHAIN &&
		  fp_to(e.chain[0], e.nr[0], outer),
	      "stored without A's table: continued by the frame-pointer chain (stop %d)",
	      e.n ? stop_of(e.chain[0], e.nr[0]) : -1);
	read_log(logr, log, sizeof(log));
	done(g, u);
}

/* Tables built in one recording are kept on disk by the cache's worker, and the next
 * recording takes them from there: the helper is asked for build-ids only. */
static void test_cache(int logr, int logw)
{
	char cdir[96], log[64], why[160];
	struct emitted e = { 0 };
	uint64_t out[64];
	bool held;

	test_ctx = "the disk cache";
	snprintf(cdir, sizeof(cdir), "%s/cache", dir);
	script.bids = true;
	for (int run = 0; run < 2; run++) {
		struct objreg *g;
		struct unwinder *u;

		script.ino[0] = st_a.st_ino;
		script.ino[1] = st_b.st_ino;
		script.mode[0] = script.mode[1] = ANSWER;
		script.log = logw;
		g = objreg_new_scripted(scripted, NULL, why, sizeof(why));
		if (!CHECK(g != NULL))
			return;
		objreg_want_build_ids(g, false);
		u = unwinder_new(g);
		if (!CHECK(unwinder_cache(u, cdir, 1 << 20, why, sizeof(why)) == 0, "%s", why))
			return;
		unwinder_wait_build_ids(u);
		feed_mmap(u, path_a, &st_a, A_START, t0 + 1);
		feed_mmap(u, path_b, &st_b, B_START, t0 + 2);
		e.n = 0;
		if (sample(u, 40 + run, B_START + 0x100, out, &held) && !held)
			e.n = 1; /* the tables were there at once */
		pump(g, u, &e, 1, 60000000000ull);
		CHECK(e.n == 1, "run %d: the sample stored", run);
		read_log(logr, log, sizeof(log));
		if (run == 0) {
			CHECK(strchr(log, 'A') && strchr(log, 'B'),
			      "the first run builds both tables: '%s'", log);
		} else {
			CHECK(!strchr(log, 'A') && !strchr(log, 'B'),
			      "the second run builds none: '%s'", log);
			CHECK_INT(unwinder_stats(u)->cached, 2);
			CHECK(e.n == 1 && e.nr[0] == 5 && stop_of(e.chain[0], 5) == UW_COMPLETE,
			      "walked to the outermost frame with the cached tables");
		}
		done(g, u); /* the worker stores what waits before it ends */
	}
	script.bids = false;
}

int main(void)
{
	int logp[2], fd;

	if (!CHECK(mkdtemp(dir) != NULL))
		return check_done("test-unwinder");
	snprintf(path_a, sizeof(path_a), "%s/a", dir);
	snprintf(path_b, sizeof(path_b), "%s/b", dir);
	for (int i = 0; i < 2; i++) {
		fd = open(i ? path_b : path_a, O_WRONLY | O_CREAT | O_EXCL, 0755);
		if (!CHECK(fd >= 0 && write(fd, "binary\n", 7) == 7))
			return check_done("test-unwinder");
		close(fd);
	}
	stat(path_a, &st_a);
	stat(path_b, &st_b);
	t0 = util_now_ns();
	if (!CHECK(pipe2(logp, O_CLOEXEC | O_NONBLOCK) == 0))
		return check_done("test-unwinder");
	test_hold_release(logp[0], logp[1]);
	test_helper_dies(logp[0], logp[1]);
	test_never_and_bound(logp[0], logp[1]);
	test_cache(logp[0], logp[1]);
	test_most_waiting(logp[0], logp[1]);
	test_join(logp[0], logp[1]);
	test_fpchain(logp[0], logp[1]);
	unlink(path_a);
	unlink(path_b);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		CHECK(system(cmd) == 0);
	}
	return check_done("test-unwinder");
}
