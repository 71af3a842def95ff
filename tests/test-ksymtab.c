/* test-ksymtab.c — unit test of lib/ksymtab.c: records built here, hostile ones included. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <unistd.h>
#include <linux/perf_event.h>

#include "check.h"
#include "format/encoder.h"
#include "format/format.h"
#include "format/ksyms.h"
#include "format/perfrec.h"
#include "format/reader.h"
#include "format/writer.h"
#include "profile/ksymtab.h"

/* ---- building records ---- */

struct ent {
	uint64_t addr;
	char type;
	const char *name, *module;
};

struct rec {
	unsigned char b[65536 + 64];
	size_t len; /* bytes written, header included, padded to 8 */
};

/* A well-formed record of N entries; the header's n and size can be overridden after. */
static void build(struct rec *r, const struct ent *e, size_t n)
{
	struct rp_ksyms_rec k = { 0 };
	size_t off = sizeof(k);

	memset(r->b, 0, sizeof(r->b));
	for (size_t i = 0; i < n; i++) {
		size_t nl = strlen(e[i].name), ml = e[i].module ? strlen(e[i].module) : 0;

		memcpy(r->b + off, &e[i].addr, 8);
		r->b[off + 8] = (unsigned char)e[i].type;
		memcpy(r->b + off + 9, e[i].name, nl + 1);
		if (ml)
			memcpy(r->b + off + 10 + nl, e[i].module, ml);
		r->b[off + 10 + nl + ml] = '\0';
		off += 11 + nl + ml;
	}
	r->len = (off + 7) / 8 * 8;
	k.hdr.type = RP_REC_KSYMS;
	k.hdr.size = (uint16_t)r->len;
	k.time = 12345;
	k.n = (uint32_t)n;
	memcpy(r->b, &k, sizeof(k));
}

static void set_n(struct rec *r, uint32_t n)
{
	memcpy(r->b + offsetof(struct rp_ksyms_rec, n), &n, 4);
}

static void set_size(struct rec *r, uint16_t size)
{
	memcpy(r->b + offsetof(struct perf_event_header, size), &size, 2);
}

/* ---- lookups ---- */

static void expect(const struct ksymtab *t, uint64_t addr, const char *name, const char *module,
		   uint64_t off)
{
	const char *n = "untouched", *m = "untouched";
	uint64_t o = 0xdead;
	int r = ksymtab_find(t, addr, &n, &m, &o);

	if (!name) {
		CHECK(r == -ENOENT && !strcmp(n, "untouched") && m && !strcmp(m, "untouched") &&
			  o == 0xdead,
		      "%#llx: expected -ENOENT with untouched out-params, got %d %s [%s] +%#llx",
		      (unsigned long long)addr, r, n, m ? m : "core", (unsigned long long)o);
		return;
	}
	CHECK(r == 0 && !strcmp(n, name) && !m == !module && (!m || !strcmp(m, module)) && o == off,
	      "%#llx: got %d %s [%s] +%#llx, expected %s [%s] +%#llx", (unsigned long long)addr, r,
	      r ? "-" : n,
	      r	  ? "-"
	      : m ? m
		  : "core",
	      (unsigned long long)o, name, module ? module : "core", (unsigned long long)off);
}

static void test_basic(void)
{
	/* Out of order, split over two records, with aliases and modules. */
	static const struct ent a[] = {
		{ 0xffffffff81000100, 'T', "do_syscall_64", NULL },
		{ 0xffffffff81000000, 'T', "_stext", NULL },
		{ 0xffffffff81000000, 'T', "startup_64", NULL },
		{ 0xffffffff81000200, 't', "local_helper", NULL },
		{ 0xffffffff81000200, 'T', "global_name", NULL },
		{ 0xffffffff81000300, 't', "a_local", NULL },
		{ 0xffffffff81000300, 'W', "a_weak", NULL },
		{ 0, 'T', "zero_address", NULL },
		{ 0xffffffff81000400, 'T', "", NULL },
	};
	static const struct ent b[] = {
		{ 0xffffffffc0001000, 't', "ext4_readdir", "ext4" },
		{ 0xffffffffc0001080, 'T', "ext4_file_open", "ext4" },
		{ 0xffffffffc0002000, 't', "xfs_iget", "xfs" },
		{ 0xffffffff81000500, 'T', "schedule", NULL },
	};
	struct ksymtab *t = ksymtab_new();
	struct rec r;
	const char *m1 = NULL, *m2 = NULL;

	test_ctx = "basic";
	CHECK(t != NULL);
	CHECK_INT(ksymtab_count(t), 0);
	expect(t, 0xffffffff81000000, NULL, NULL, 0);
	build(&r, a, sizeof(a) / sizeof(a[0]));
	CHECK_INT(ksymtab_add_record(t, r.b, r.len), 0);
	build(&r, b, sizeof(b) / sizeof(b[0]));
	CHECK_INT(ksymtab_add_record(t, r.b, r.len), 0);
	ksymtab_finish(t);
	/* 11 named entries with an address, 3 aliases merged. */
	CHECK_INT(ksymtab_count(t), 8);

	expect(t, 0xffffffff81000000, "startup_64", NULL, 0); /* fewer underscores */
	expect(t, 0xffffffff81000010, "startup_64", NULL, 0x10);
	expect(t, 0xffffffff81000100, "do_syscall_64", NULL, 0);
	expect(t, 0xffffffff810001ff, "do_syscall_64", NULL, 0xff);
	expect(t, 0xffffffff81000200, "global_name", NULL, 0); /* global over local */
	expect(t, 0xffffffff81000304, "a_weak", NULL, 4);      /* weak over local */
	expect(t, 0xffffffff81000450, "a_weak", NULL, 0x150);  /* the empty name was skipped */
	expect(t, 0xffffffff81000500, "schedule", NULL, 0);
	expect(t, 0xffffffff80ffffff, NULL, NULL, 0); /* before the first */
	expect(t, 0, NULL, NULL, 0);
	/* Far past a symbol: the gap before the modules is nobody's. */
	expect(t, 0xffffffff81000500 + KSYMTAB_SPAN_MAX - 1, "schedule", NULL, KSYMTAB_SPAN_MAX - 1);
	expect(t, 0xffffffff81000500 + KSYMTAB_SPAN_MAX, NULL, NULL, 0);
	expect(t, 0xffffffffc0000fff, NULL, NULL, 0);
	expect(t, 0xffffffffc0001000, "ext4_readdir", "ext4", 0);
	expect(t, 0xffffffffc000107f, "ext4_readdir", "ext4", 0x7f);
	expect(t, 0xffffffffc0001080, "ext4_file_open", "ext4", 0);
	expect(t, 0xffffffffc0001fff, "ext4_file_open", "ext4", 0xf7f);
	expect(t, 0xffffffffc0002000, "xfs_iget", "xfs", 0);
	expect(t, 0xffffffffc0002000 + 0x100, "xfs_iget", "xfs", 0x100); /* after the last */
	expect(t, UINT64_MAX, NULL, NULL, 0);
	/* Module names are stored once. */
	ksymtab_find(t, 0xffffffffc0001000, NULL, &m1, NULL);
	ksymtab_find(t, 0xffffffffc0001080, NULL, &m2, NULL);
	CHECK(m1 && m1 == m2);
	/* NULL out-parameters are allowed. */
	CHECK_INT(ksymtab_find(t, 0xffffffff81000100, NULL, NULL, NULL), 0);

	/* Adding after finish needs finish again; the new symbol splits a range. */
	static const struct ent c[] = { { 0xffffffff81000180, 'T', "late_symbol", NULL } };
	build(&r, c, 1);
	CHECK_INT(ksymtab_add_record(t, r.b, r.len), 0);
	ksymtab_finish(t);
	expect(t, 0xffffffff81000190, "late_symbol", NULL, 0x10);
	expect(t, 0xffffffff81000170, "do_syscall_64", NULL, 0x70);
	CHECK(ksymtab_free(t) == NULL);
	CHECK(ksymtab_free(NULL) == NULL);
	CHECK_INT(ksymtab_count(NULL), 0);
}

static void test_hostile(void)
{
	static const struct ent e[] = {
		{ 0x1000, 'T', "one", NULL },
		{ 0x2000, 'T', "two", "mod" },
		{ 0x3000, 'T', "three", NULL },
	};
	struct ksymtab *t;
	struct rec r;
	size_t end3;

	test_ctx = "n larger than the payload";
	t = ksymtab_new();
	build(&r, e, 3);
	set_n(&r, 1000000);
	CHECK_INT(ksymtab_add_record(t, r.b, r.len), -EINVAL);
	ksymtab_finish(t);
	CHECK_INT(ksymtab_count(t), 3);
	expect(t, 0x3004, "three", NULL, 4);
	ksymtab_free(t);

	test_ctx = "missing NUL";
	t = ksymtab_new();
	build(&r, e, 3);
	end3 = sizeof(struct rp_ksyms_rec) + (11 + 3) + (11 + 3 + 3) + (11 + 5);
	/* Overwrite the last entry's terminators and the padding. */
	memset(r.b + end3 - 2, 'x', r.len - (end3 - 2));
	CHECK_INT(ksymtab_add_record(t, r.b, r.len), -EINVAL);
	ksymtab_finish(t);
	CHECK_INT(ksymtab_count(t), 2);
	expect(t, 0x2004, "two", "mod", 4);
	ksymtab_free(t);

	test_ctx = "truncated entry";
	t = ksymtab_new();
	build(&r, e, 3);
	/* The record ends 5 bytes into the third entry's address. */
	CHECK_INT(ksymtab_add_record(t, r.b, sizeof(struct rp_ksyms_rec) + 14 + 17 + 5), -EINVAL);
	ksymtab_finish(t);
	CHECK_INT(ksymtab_count(t), 2);
	expect(t, 0x1001, "one", NULL, 1);
	ksymtab_free(t);

	test_ctx = "header says more than given";
	t = ksymtab_new();
	build(&r, e, 3);
	CHECK_INT(ksymtab_add_record(t, r.b, sizeof(struct rp_ksyms_rec) + 14), -EINVAL);
	ksymtab_finish(t);
	CHECK_INT(ksymtab_count(t), 1);
	ksymtab_free(t);

	test_ctx = "header says less than given";
	t = ksymtab_new();
	build(&r, e, 3);
	set_size(&r, (uint16_t)(sizeof(struct rp_ksyms_rec) + 14 + 17));
	CHECK_INT(ksymtab_add_record(t, r.b, r.len), -EINVAL); /* n = 3 but 2 fit */
	ksymtab_finish(t);
	CHECK_INT(ksymtab_count(t), 2);
	ksymtab_free(t);

	test_ctx = "bad headers";
	t = ksymtab_new();
	build(&r, e, 3);
	CHECK_INT(ksymtab_add_record(t, r.b, sizeof(struct rp_ksyms_rec) - 1), -EINVAL);
	CHECK_INT(ksymtab_add_record(t, NULL, 100), -EINVAL);
	CHECK_INT(ksymtab_add_record(NULL, r.b, r.len), -EINVAL);
	set_size(&r, 8);
	CHECK_INT(ksymtab_add_record(t, r.b, r.len), -EINVAL);
	build(&r, e, 3);
	((struct perf_event_header *)r.b)->type = RP_REC_FINISH;
	CHECK_INT(ksymtab_add_record(t, r.b, r.len), -EINVAL);
	ksymtab_finish(t);
	CHECK_INT(ksymtab_count(t), 0);
	expect(t, 0x1000, NULL, NULL, 0);
	build(&r, e, 0);
	CHECK_INT(ksymtab_add_record(t, r.b, r.len), 0);
	ksymtab_free(t);

	test_ctx = "random bytes";
	srand(7);
	t = ksymtab_new();
	for (int it = 0; it < 2000; it++) {
		size_t len = sizeof(struct rp_ksyms_rec) + (size_t)(rand() % 600);
		unsigned char *buf = malloc(len);
		uint32_t n = (uint32_t)rand();
		uint16_t sz = (uint16_t)rand();

		build(&r, e, 3);
		memcpy(buf, r.b, sizeof(struct rp_ksyms_rec));
		for (size_t i = sizeof(struct rp_ksyms_rec); i < len; i++)
			buf[i] = (unsigned char)(rand() % 4 ? rand() : 0);
		memcpy(buf + offsetof(struct rp_ksyms_rec, n), &n, 4);
		memcpy(buf + offsetof(struct perf_event_header, size), &sz, 2);
		ksymtab_add_record(t, buf, len); /* any result; no crash, no overread */
		free(buf);
	}
	ksymtab_finish(t);
	for (int i = 0; i < 10000; i++)
		ksymtab_find(t, ((uint64_t)rand() << 32) ^ (uint64_t)rand(), NULL, NULL, NULL);
	printf("random records: %zu symbols kept\n", ksymtab_count(t));
	ksymtab_free(t);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 100k symbols in records of up to 60000 bytes, as the recorder writes them; 1M lookups. */
static void test_perf(void)
{
	enum { N = 100000, LOOKUPS = 1000000 };
	static struct ent e[N];
	static char names[N][24];
	struct ksymtab *t = ksymtab_new();
	struct rec r;
	size_t i = 0, bad = 0;
	double t0, t_load, t_find;
	uint64_t seed = 1;

	test_ctx = "100k symbols";
	for (size_t k = 0; k < N; k++) {
		snprintf(names[k], sizeof(names[k]), "sym_%zu", k);
		/* Reverse order, 64 bytes apart; every 1000th in a module. */
		e[k] = (struct ent){ 0xffffffff81000000ull + (N - k) * 64, k % 3 ? 't' : 'T',
				     names[k], k % 1000 ? NULL : "kmod" };
	}
	t0 = now();
	while (i < N) {
		size_t n = 0, bytes = 0;

		while (i + n < N && bytes + 11 + 24 + 5 < 60000) {
			bytes += 11 + strlen(e[i + n].name) + (e[i + n].module ? 4 : 0);
			n++;
		}
		build(&r, e + i, n);
		CHECK_INT(ksymtab_add_record(t, r.b, r.len), 0);
		i += n;
	}
	ksymtab_finish(t);
	t_load = now() - t0;
	CHECK_INT(ksymtab_count(t), N);

	t0 = now();
	for (int k = 0; k < LOOKUPS; k++) {
		size_t idx;
		uint64_t off, o;
		const char *n, *m;

		/* The expected symbol is computed, not read from e[], to time ksymtab alone. */
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		idx = (size_t)(seed >> 33) % N;
		off = (seed >> 20) % 64;
		if (ksymtab_find(t, 0xffffffff81000000ull + (N - idx) * 64 + off, &n, &m, &o) ||
		    o != off || (k % 64 == 0 && (strcmp(n, e[idx].name) || !m != !e[idx].module)))
			bad++;
	}
	t_find = now() - t0;
	CHECK_INT(bad, 0);
	printf("100k symbols: load + sort %.1f ms, 1M lookups %.1f ms (%.0f ns each)\n",
	       t_load * 1e3, t_find * 1e3, t_find * 1e9 / LOOKUPS);
	/* Loose on purpose (valgrind, sanitizers, a busy host): it catches a linear search, which
	 * would take minutes. The target, 1M lookups well under 1 s, is read from the output. */
	CHECK(t_find < 10.0, "1M lookups took %.2f s", t_find);
	ksymtab_free(t);
}

/* The recorder's encoder writes the symbols samples need, each with the one after it as its
 * bound; the report must find the same names. A return address that equals the next
 * symbol's start (a call at the very end of a function, such as the idle stack's
 * x86_64_start_reservations -> start_kernel) is looked up minus one on both sides. */
static void test_written_as_needed(void)
{
	static const char kallsyms[] = "ffffffff81000000 T caller_a\n"
				       "ffffffff81000100 t __pfx_next_b\n"
				       "ffffffff81000110 T next_b\n"
				       "ffffffff81000200 T leaf_d\n"
				       "ffffffff81000300 T after_d\n"
				       "ffffffff81000400 T last_e\n"
				       "ffffffff81000500 t __pfx_far_f\n"
				       "ffffffff81000510 T far_f\n"
				       "ffffffff81000600 T end_g\n";
	const uint64_t ret_a = 0xffffffff81000100ull; /* returns past caller_a's last byte */
	uint64_t chain1[] = { (uint64_t)PERF_CONTEXT_KERNEL, 0xffffffff81000210ull, ret_a };
	uint64_t chain2[] = { (uint64_t)PERF_CONTEXT_KERNEL, 0xffffffff81000308ull };
	/* Past an interrupt frame: far_f interrupted at its first instruction, which the chain
	 * gives where a return address would be. */
	const uint64_t at_b = 0xffffffff81000510ull;
	uint64_t chain3[] = { (uint64_t)PERF_CONTEXT_KERNEL, 0xffffffff81000220ull, at_b };
	struct perfrec_sample s1 = { .id = { .pid = 1, .tid = 1, .time = 1000 },
				     .ip = chain1[1],
				     .period = 1,
				     .nr = 3,
				     .ips = chain1,
				     .misc = PERF_RECORD_MISC_KERNEL };
	struct perfrec_sample s2 = s1;
	char ksp[] = "/tmp/rp-test-kallsyms.XXXXXX", path[] = "/tmp/rp-test-ksymtab.XXXXXX";
	int kfd = mkstemp(ksp), fd = mkstemp(path);
	struct ksyms ks = { 0 };
	struct ksymtab *t = ksymtab_new();
	struct rp_header_rec hr = { .hdr = { .type = RP_REC_HEADER, .size = sizeof(hr) } };
	struct encoder *e;
	struct writer *w;
	struct reader *r;
	const struct perf_event_header *h;
	const char *name;
	uint64_t off;
	char why[256];

	test_ctx = "symbols written as samples need them";
	if (!CHECK(kfd >= 0 && fd >= 0 && t) ||
	    !CHECK(write(kfd, kallsyms, sizeof(kallsyms) - 1) == (ssize_t)sizeof(kallsyms) - 1))
		return;
	close(kfd);
	CHECK_INT(ksyms_read(ksp, &ks), 0);
	CHECK_INT(ks.n, 9);
	e = encoder_new(1, 1, &ks);
	if (!CHECK(e) || !CHECK_INT(writer_fdopen(fd, 3, &w), 0))
		return;
	hr.time = 100;
	memcpy(hr.magic, RP_HEADER_MAGIC, 8);
	hr.major = RP_FORMAT_MAJOR;
	hr.flags = RP_HDR_KSYMS_USED | RP_HDR_CALLCHAIN;
	hr.sample_type = RP_COMPACT_SAMPLE_TYPE | PERF_SAMPLE_CALLCHAIN;
	writer_set_safe_time(w, 100);
	writer_add(w, &hr, sizeof(hr));
	encoder_begin(e, w);
	CHECK(encoder_add(e, 0, 0, &s1));
	encoder_flush(e, 0);
	/* after_d was written as leaf_d's bound; now a sample needs it by name. */
	s2.id.time = 2000;
	s2.ip = chain2[1];
	s2.nr = 2;
	s2.ips = chain2;
	CHECK(encoder_add(e, 0, 0, &s2));
	encoder_flush(e, 0);
	s2.id.time = 3000;
	s2.ip = chain3[1];
	s2.nr = 3;
	s2.ips = chain3;
	CHECK(encoder_add(e, 0, 0, &s2));
	encoder_flush(e, 0);
	CHECK_INT(writer_close(w), 0);
	encoder_free(e);
	ksyms_done(&ks);

	if (!CHECK(reader_open(path, &r, why, sizeof(why)) == 0, "%s", why))
		return;
	while ((h = reader_next(r)))
		if (h->type == RP_REC_KSYMS)
			CHECK_INT(ksymtab_add_record(t, h, h->size), 0);
	reader_free(r);
	ksymtab_finish(t);
	CHECK(ksymtab_find(t, chain1[1], &name, NULL, &off) == 0 && !strcmp(name, "leaf_d") &&
		  off == 0x10,
	      "the leaf");
	CHECK(ksymtab_find(t, ret_a - 1, &name, NULL, &off) == 0 && !strcmp(name, "caller_a") &&
		  off == 0xff,
	      "the caller whose return address is the next symbol's start");
	CHECK_INT(ksymtab_find(t, 0xffffffff81000120ull, &name, NULL, &off), -ENOENT);
	CHECK(ksymtab_find(t, chain2[1], &name, NULL, &off) == 0 && !strcmp(name, "after_d"),
	      "a symbol first written as a bound, then needed");
	CHECK_INT(ksymtab_find(t, 0xffffffff81000408ull, &name, NULL, &off), -ENOENT);
	CHECK(ksymtab_find_frame(t, ret_a - 1, &name, NULL, &off) == 0 &&
		  !strcmp(name, "caller_a") && off == 0xff,
	      "a frame: a return address past a function's last byte names that function");
	CHECK(ksymtab_find_frame(t, at_b - 1, &name, NULL, &off) == 0 && !strcmp(name, "far_f") &&
		  off + 1 == 0,
	      "a frame looked up in a function's padding names the function after it (written "
	      "for it), one byte before its start");
	ksymtab_free(t);
	unlink(path);
	unlink(ksp);
}

/* A name handed out stays where it is while records are added (ringprof script names frames
 * while it reads; the arena used to move under it). */
static void test_names_stay(void)
{
	static const struct ent first[] = { { 0xffffffff81000000, 'T', "first_symbol", NULL } };
	struct ksymtab *t = ksymtab_new();
	struct rec r;
	const char *name = NULL, *again = NULL;
	char names[64][40];
	struct ent e[64];

	test_ctx = "names-stay";
	if (!CHECK(t != NULL))
		return;
	build(&r, first, 1);
	CHECK_INT(ksymtab_add_record(t, r.b, r.len), 0);
	ksymtab_finish(t);
	CHECK(ksymtab_find(t, 0xffffffff81000004, &name, NULL, NULL) == 0 && name);
	/* 4 MB of names, far more than the first chunk of the arena. */
	for (int k = 0; k < 2000; k++) {
		for (int i = 0; i < 64; i++) {
			snprintf(names[i], sizeof(names[i]), "filler_%05d_%02d_abcdefghijklmnopq",
				 k, i);
			e[i] = (struct ent){ 0xffffffff82000000 + (uint64_t)(k * 64 + i) * 16, 'T',
					     names[i], NULL };
		}
		build(&r, e, 64);
		CHECK_INT(ksymtab_add_record(t, r.b, r.len), 0);
	}
	ksymtab_finish(t);
	CHECK_INT(ksymtab_count(t), 1 + 2000 * 64);
	CHECK(ksymtab_find(t, 0xffffffff81000004, &again, NULL, NULL) == 0 && again == name,
	      "the name moved");
	CHECK(name && !strcmp(name, "first_symbol"), "got %s", name ? name : "(null)");
	expect(t, 0xffffffff82000000 + (uint64_t)(1999 * 64 + 63) * 16 + 4,
	       "filler_01999_63_abcdefghijklmnopq", NULL, 4);
	ksymtab_free(t);
}

int main(void)
{
	test_basic();
	test_hostile();
	test_written_as_needed();
	test_names_stay();
	test_perf();
	return check_done("test-ksymtab");
}
