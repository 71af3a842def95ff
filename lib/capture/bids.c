/* bids.c — build-ids of mapped files through the unprivileged helper (see bids.h). */
#include "capture/bids.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buildid.h"
#include "base/grow.h"
#include "base/hash.h"
#include "base/intern.h"
#include "base/procfs.h"
#include "base/symx.h"
#include "base/util.h"
#include "capture/cachework.h"
#include "capture/objreg.h"
#include "capture/uhelper.h"
#include "format/format.h"
#include "format/perfrec.h"
#include "format/writer.h"
#include "unwind/proto.h"

/* What bids keeps of a registry object (the registry keeps what it is). */
struct bfile {
	bool seen;	    /* an executable mapping of it was drained */
	uint32_t written;   /* the file generation its record was last written in */
	uint64_t wrote_gen; /* the inode generation that record gave */
	int32_t syms;	    /* index into bids.syms of its build-id's table; -1: none */
};

/* The captured symbols of a build-id and digest (what the file holds: a file that copied
 * another's build-id note has another digest, and its symbols are kept apart), kept so that
 * every file that uses them repeats them. */
struct bsyms {
	uint8_t id[20];
	uint8_t len;
	uint8_t digest_len; /* RP_DIGEST_LEN, or 0 when the helper could not compute it */
	uint8_t digest[RP_DIGEST_LEN];
	bool skipped;	    /* larger than the helper sends: a record says so */
	bool cached;	    /* in the symbols directory (bids_set_symbols_dir()) */
	uint32_t written;   /* the file generation they were last written in */
	unsigned char *buf; /* uwp_symtab_hdr + run, checked; NULL when dropped */
	size_t size;
};

struct bids {
	struct objreg *reg;
	struct bfile *files; /* by registry index */
	size_t n_files, cap_files;
	struct writer *w;
	uint64_t t_cap; /* records are stamped no later than this (0: now) */
	uint32_t gen;	/* of the current file, from 1 */
	struct bids_stats st;
	struct pairtab *sym_keys; /* build-id and digest hashes -> index into syms */
	struct bsyms *syms;
	size_t n_syms, cap_syms;
	size_t syms_kept;	/* bytes of buf in syms */
	char *syms_dir;		/* tables go to files here instead of into the recordings */
	struct cachework *disk; /* writes them, off the drain pass (the registry's) */
};

static void on_identified(void *arg, uint32_t i, struct uhelper_reply *r);

struct bids *bids_new(struct objreg *reg, bool syms)
{
	struct bids *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->reg = reg;
	b->disk = objreg_disk(reg);
	b->sym_keys = pairtab_new();
	if (!b->sym_keys)
		return bids_free(b);
	objreg_want_build_ids(reg, syms);
	objreg_on_identified(reg, on_identified, b);
	return b;
}

struct bids *bids_free(struct bids *b)
{
	if (!b)
		return NULL;
	pairtab_free(b->sym_keys);
	free(b->syms_dir);
	for (size_t i = 0; i < b->n_syms; i++)
		free(b->syms[i].buf);
	free(b->syms);
	free(b->files);
	free(b);
	return NULL;
}

int bids_set_symbols_dir(struct bids *b, const char *dir)
{
	char *copy = strdup(dir);

	if (!copy)
		return -ENOMEM;
	if (mkdir(dir, 0750) < 0 && errno != EEXIST) {
		int rc = -errno;

		free(copy);
		return rc;
	}
	free(b->syms_dir);
	b->syms_dir = copy;
	return 0;
}

void bids_begin_file(struct bids *b, struct writer *w)
{
	b->w = w;
	b->gen++;
}

const struct bids_stats *bids_stats(const struct bids *b)
{
	return &b->st;
}

/* One SYMTAB record of part K of N_PARTS holding N entries (LEN bytes at RUN). */
static void put_symtab(struct writer *w, const struct bsyms *y, uint64_t time, unsigned k,
		       unsigned n_parts, uint32_t n, const unsigned char *run, size_t len)
{
	const struct uwp_symtab_hdr *h = (const void *)y->buf;
	/* With the digest (format 2.4), else as before. */
	size_t fixed =
	    y->digest_len ? sizeof(struct rp_symtab_d_rec) : sizeof(struct rp_symtab_rec);
	size_t size = (fixed + len + 7) & ~(size_t)7;
	struct rp_symtab_rec *r = writer_reserve(w, size);

	if (!r)
		return;
	memset(r, 0, size);
	*r = (struct rp_symtab_rec){ .hdr = { y->digest_len ? RP_REC_SYMTAB_D : RP_REC_SYMTAB, 0,
					      (uint16_t)size },
				     .time = time,
				     .len = y->len,
				     .part = (uint16_t)k,
				     .n_parts = (uint16_t)n_parts,
				     .n = n,
				     .flags = h ? h->source : RP_SYMTAB_SKIPPED };
	memcpy(r->build_id, y->id, y->len);
	if (y->digest_len)
		memcpy(((struct rp_symtab_d_rec *)(void *)r)->digest, y->digest, RP_DIGEST_LEN);
	if (len)
		memcpy((unsigned char *)r + fixed, run, len);
}

/* Cut a checked run into SYMTAB records of at most RP_SYMTAB_PAYLOAD_MAX entry bytes, each
 * starting again from 0; with W NULL only count them. Returns the number of records. */
static unsigned put_symtab_parts(struct writer *w, const struct bsyms *y, uint64_t time,
				 unsigned n_parts)
{
	unsigned char part[RP_SYMTAB_PAYLOAD_MAX];
	size_t len = 0;
	uint32_t n = 0;
	unsigned k = 0;
	struct symx_cursor c;
	struct symx_entry e;
	uint64_t prev = 0;

	symx_open(&c, y->buf + sizeof(struct uwp_symtab_hdr),
		  y->size - sizeof(struct uwp_symtab_hdr), 0);
	while (symx_next(&c, &e) == 1) {
		if (n && len + 21 + e.name_len > sizeof(part)) {
			if (w)
				put_symtab(w, y, time, k, n_parts, n, part, len);
			k++;
			len = 0;
			n = 0;
		}
		len += symx_put(part + len, n ? prev : 0, e.start, e.size, e.name, e.name_len);
		prev = e.start;
		n++;
	}
	if (n) {
		if (w)
			put_symtab(w, y, time, k, n_parts, n, part, len);
		k++;
	}
	return k;
}

/* DIR/BUILDID-DIGEST.sym (DIR/BUILDID.sym without a digest), the cache file of Y's table. */
static void cache_path(const struct bids *b, const struct bsyms *y, char *buf, size_t size,
		       const char *suffix)
{
	char hex[41], dig[2 * RP_DIGEST_LEN + 2] = "";

	buildid_to_hex(y->id, y->len, hex);
	if (y->digest_len) {
		dig[0] = '-';
		buildid_to_hex(y->digest, RP_DIGEST_LEN, dig + 1);
	}
	snprintf(buf, size, "%s/%s%s.sym%s", b->syms_dir, hex, dig, suffix);
}

/* A table on its way into the symbols directory: what the disk worker writes. */
struct sym_job {
	struct bsyms y; /* its buf is the job's */
	uint64_t time;
	unsigned n_parts;
	char path[PATH_MAX], tmp[PATH_MAX];
};

/*
 * The disk worker's part: the table into the symbols directory, once per build-id for all
 * recordings there: a small recording holding only its SYMTAB records, written under a
 * temporary name and renamed, so a reader never sees half a file. One that is there already
 * (an earlier run) is kept. A table that cannot be written is lost: the binary is named while
 * its file exists. No fsync (one per binary would cost seconds at start): a table lost in a
 * crash is lost the same way.
 */
static void sym_job_run(void *arg)
{
	struct sym_job *j = arg;
	struct writer *w;

	if (access(j->path, F_OK) != 0 && writer_open(j->tmp, 0640, 6, &w) == 0) {
		put_symtab_parts(w, &j->y, j->time, j->n_parts);
		if (writer_close_nosync(w) < 0 || rename(j->tmp, j->path) < 0)
			unlink(j->tmp);
	}
	free(j->y.buf);
	free(j);
}

/* A file that uses a table in the symbols directory marks it used (the cleaner keeps it). */
static void sym_touch_run(void *arg)
{
	utimensat(AT_FDCWD, arg, NULL, 0);
	free(arg);
}

/* Hand Y's table (y->buf) to the disk worker, which writes it into the symbols directory: 0
 * (y->buf is the worker's now), or -errno (y keeps it). Never in the drain pass: the worker's
 * thread opens and writes the file. */
static int cache_write(struct bids *b, struct bsyms *y, uint64_t time)
{
	struct sym_job *j;
	unsigned n_parts = put_symtab_parts(NULL, y, time, 0);

	if (n_parts > UINT16_MAX)
		return -E2BIG;
	j = malloc(sizeof(*j));
	if (!j)
		return -ENOMEM;
	j->y = *y;
	j->time = time;
	j->n_parts = n_parts;
	cache_path(b, y, j->path, sizeof(j->path), "");
	cache_path(b, y, j->tmp, sizeof(j->tmp), ".tmp");
	if (cachework_call(b->disk, sym_job_run, j) < 0) {
		free(j);
		return -EAGAIN;
	}
	y->buf = NULL;
	return 0;
}

/* A build-id's symbols into the current file, once per file. */
static void write_syms(struct bids *b, struct bsyms *y, uint64_t time)
{
	unsigned n_parts;

	if (y->written == b->gen || !b->w || (!y->buf && !y->skipped && !y->cached))
		return;
	y->written = b->gen;
	if (y->cached) {
		char path[PATH_MAX];

		/* In use by this file: the cache keeps it as long as a recording that uses it
		 * (the disk worker marks it; a table pruned over the budget while in use was
		 * the only copy, and the binary goes without from then on). */
		char *p;

		cache_path(b, y, path, sizeof(path), "");
		if ((p = strdup(path)) && cachework_call(b->disk, sym_touch_run, p) < 0)
			free(p);
		return;
	}
	if (y->skipped) {
		put_symtab(b->w, y, time, 0, 1, 0, NULL, 0); /* n 0, RP_SYMTAB_SKIPPED */
		return;
	}
	if (!y->buf)
		return;
	n_parts = put_symtab_parts(NULL, y, time, 0);
	if (n_parts > UINT16_MAX)
		return;
	put_symtab_parts(b->w, y, time, n_parts);
	b->st.sym_written++;
}

/* The file's record into the current file, once per file. */
static void write_record(struct bids *b, uint32_t i, uint64_t time)
{
	const struct objreg_obj *o = objreg_obj(b->reg, i);
	struct bfile *f = &b->files[i];
	struct rp_buildid_rec *r;

	if (o->id_state != OBJREG_ID_KNOWN || !o->by_inode ||
	    (f->written == b->gen && f->wrote_gen == o->gen) || !b->w)
		return;
	r = writer_reserve(b->w, sizeof(*r));
	if (!r)
		return;
	memset(r, 0, sizeof(*r));
	r->hdr.type = RP_REC_BUILDID;
	r->hdr.size = sizeof(*r);
	r->time = time;
	r->maj = o->maj;
	r->min = o->min;
	r->ino = o->ino;
	r->ino_gen = o->gen;
	r->len = o->bid_len;
	if (o->digest_len) {
		r->digest_len = RP_DIGEST_LEN;
		memcpy(r->digest, o->digest, RP_DIGEST_LEN);
	}
	memcpy(r->build_id, o->bid, o->bid_len);
	f->written = b->gen;
	f->wrote_gen = o->gen;
	b->st.written++;
	if (f->syms >= 0)
		write_syms(b, &b->syms[f->syms], time);
}

/* bids' state of object I, there from now on; false when out of memory. */
static bool reach(struct bids *b, uint32_t i)
{
	if (i < b->n_files)
		return true;
	if (GROW(b->files, b->cap_files, (size_t)i + 1) < 0)
		return false;
	for (size_t k = b->n_files; k <= i; k++)
		b->files[k] = (struct bfile){ .syms = -1 };
	b->n_files = (size_t)i + 1;
	return true;
}

void bids_side_band(struct bids *b, const struct perf_event_header *h, uint64_t sample_type)
{
	struct perfrec_mmap m;
	struct perfrec_id id = { 0 };
	uint32_t i;

	if (!b || h->type != PERF_RECORD_MMAP2 || perfrec_parse_mmap(h, sample_type, &m) < 0 ||
	    m.build_id || !(m.prot & PROT_EXEC) || !m.ino || !m.path || m.path[0] != '/')
		return;
	i = objreg_map(b->reg, &m);
	if (i == OBJREG_NONE || !reach(b, i))
		return;
	if (!b->files[i].seen) {
		b->files[i].seen = true;
		b->st.files++;
	}
	perfrec_parse_id(h, sample_type, &id);
	write_record(b, i, id.time);
}

/* Is the helper's symbol table well formed: its head, then exactly n entries of sane names? */
static bool syms_ok(const unsigned char *buf, size_t size)
{
	struct uwp_symtab_hdr h;
	struct symx_cursor c;
	struct symx_entry e;
	uint32_t n = 0;
	int rc;

	if (size < sizeof(h))
		return false;
	memcpy(&h, buf, sizeof(h));
	if (h.magic != UWP_SYMTAB_MAGIC)
		return false;
	symx_open(&c, buf + sizeof(h), size - sizeof(h), 0);
	while ((rc = symx_next(&c, &e)) == 1) {
		if (e.name_len == 0 || e.name_len > SYMX_NAME_MAX || ++n > h.n)
			return false;
	}
	return rc == 0 && n == h.n;
}

/* The symbols a build-id reply brought for F: kept once per build-id (a copy of the same
 * binary under another inode shares them), checked first. */
static void take_syms(struct bids *b, uint32_t i, struct uhelper_reply *r)
{
	const struct objreg_obj *o = objreg_obj(b->reg, i);
	struct bfile *f = &b->files[i];
	unsigned char key[20 + RP_DIGEST_LEN];
	size_t klen = o->bid_len;
	uint64_t h1, h2;
	struct bsyms *y;
	bool added;
	int64_t idx;

	memcpy(key, o->bid, o->bid_len);
	if (o->digest_len) {
		memcpy(key + klen, o->digest, RP_DIGEST_LEN);
		klen += RP_DIGEST_LEN;
	}
	h1 = hash_bytes(key, klen, 1);
	h2 = hash_bytes(key, klen, 2);
	idx = pairtab_intern(b->sym_keys, h1, h2, &added);

	if (idx < 0 || (added && GROW(b->syms, b->cap_syms, (size_t)idx + 1) < 0))
		return;
	f->syms = (int32_t)idx;
	if (!added)
		return;
	y = &b->syms[idx];
	memset(y, 0, sizeof(*y));
	memcpy(y->id, o->bid, o->bid_len);
	y->len = o->bid_len;
	y->digest_len = o->digest_len;
	memcpy(y->digest, o->digest, sizeof(y->digest));
	b->n_syms = (size_t)idx + 1;
	if (r->sym_status == -E2BIG ||
	    (r->sym_status == 0 && !b->syms_dir && r->size > BIDS_SYMS_FILE_MAX)) {
		/* Stored in every recording, a table of megabytes (libLLVM's .dynsym, a compiler's
		 * .symtab) would cost more than the samples of a short one: a record says so. */
		y->skipped = true;
		b->st.sym_skipped++;
	} else if (r->sym_status == 0 && r->buf && syms_ok(r->buf, r->size) && b->syms_dir) {
		y->buf = r->buf;
		y->size = r->size;
		r->buf = NULL;
		if (cache_write(b, y, util_now_ns()) == 0) {
			y->cached = true; /* the file will hold it */
			b->st.sym_tables++;
			b->st.sym_bytes += y->size;
		} else {
			b->syms_kept += y->size; /* kept to go into the recordings instead */
			b->st.sym_failed++;
		}
	} else if (r->sym_status == 0 && r->buf && syms_ok(r->buf, r->size) &&
		   b->syms_kept + r->size <= BIDS_SYMS_KEEP_MAX) {
		y->buf = r->buf;
		y->size = r->size;
		r->buf = NULL;
		b->syms_kept += y->size;
		b->st.sym_tables++;
		b->st.sym_bytes += y->size;
	} else if (r->sym_status == 0) {
		b->st.sym_failed++;
	}
}

/* The helper's answer about object I's build-id (the registry kept what it says). */
static void on_identified(void *arg, uint32_t i, struct uhelper_reply *r)
{
	struct bids *b = arg;
	uint64_t now;

	if (!reach(b, i))
		return;
	b->st.ns += r->build_ns;
	if (objreg_obj(b->reg, i)->id_state != OBJREG_ID_KNOWN) {
		if (r->status == -ENOENT)
			b->st.none++;
		else
			b->st.failed++;
		return;
	}
	if (r->kind == UWP_BUILD_ID_SYMS)
		take_syms(b, i, r);
	b->st.read++;
	now = util_now_ns();
	write_record(b, i, b->t_cap && now > b->t_cap ? b->t_cap : now);
}

void bids_cap_time(struct bids *b, uint64_t t)
{
	if (b)
		b->t_cap = t;
}
