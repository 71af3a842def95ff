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
#include "capture/uhelper.h"
#include "format/format.h"
#include "format/perfrec.h"
#include "format/writer.h"
#include "unwind/proto.h"

enum bfile_state {
	BF_NEW,	    /* to be handed to the helper (its queue was full) */
	BF_PENDING, /* with the helper */
	BF_KNOWN,   /* build-id known */
	BF_NONE,    /* no build-id (none in the file, or it could not be read) */
};

struct bfile {
	uint8_t state;
	uint8_t len;
	uint8_t id[20];
	uint8_t digest_len;		/* 0: unknown */
	uint8_t digest[UWP_DIGEST_LEN]; /* what the file holds (lib/elf/elfdigest.h) */
	uint32_t maj, min;
	uint64_t ino;
	uint64_t gen;	  /* the inode's generation (0: not known yet) */
	uint32_t written; /* the file generation its record was last written in */
	/* where to open it while it is BF_NEW */
	uint32_t pid;
	uint64_t start, end;
	const char *path; /* in paths */
	int32_t syms;	  /* index into bids.syms of its build-id's table; -1: none */
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
	struct uhelper helper;
	bool have_helper;
	struct pairtab *keys; /* (maj << 32 | min, ino) -> index into files */
	struct bfile *files;
	size_t n_files, cap_files;
	size_t n_new; /* files in BF_NEW */
	struct strtab *paths;
	struct writer *w;
	uint64_t t_cap; /* records are stamped no later than this (0: now) */
	uint32_t gen;	/* of the current file, from 1 */
	struct bids_stats st;
	bool want_syms;
	struct pairtab *sym_keys; /* build-id and digest hashes -> index into syms */
	struct bsyms *syms;
	size_t n_syms, cap_syms;
	size_t syms_kept; /* bytes of buf in syms */
	char *syms_dir;	  /* tables go to files here instead of into the recordings */
	void (*listener)(void *arg, uint32_t maj, uint32_t min, uint64_t ino, const uint8_t *id,
			 size_t len, const uint8_t *digest);
	void *listener_arg;
};

struct bids *bids_new(char *note, size_t note_size)
{
	struct bids *b = calloc(1, sizeof(*b));

	note[0] = '\0';
	if (!b)
		return NULL;
	b->keys = pairtab_new();
	b->paths = strtab_new();
	b->sym_keys = pairtab_new();
	b->want_syms = true;
	if (!b->keys || !b->paths || !b->sym_keys)
		return bids_free(b);
	b->have_helper = uhelper_start(&b->helper, note, note_size) == 0;
	b->helper.lost = "a build-id";
	b->st.helper_last = b->helper.last_death;
	return b;
}

struct bids *bids_free(struct bids *b)
{
	if (!b)
		return NULL;
	if (b->have_helper)
		uhelper_done(&b->helper);
	pairtab_free(b->keys);
	strtab_free(b->paths);
	pairtab_free(b->sym_keys);
	free(b->syms_dir);
	for (size_t i = 0; i < b->n_syms; i++)
		free(b->syms[i].buf);
	free(b->syms);
	free(b->files);
	free(b);
	return NULL;
}

void bids_set_listener(struct bids *b,
		       void (*fn)(void *arg, uint32_t maj, uint32_t min, uint64_t ino,
				  const uint8_t *id, size_t len, const uint8_t *digest),
		       void *arg)
{
	b->listener = fn;
	b->listener_arg = arg;
}

void bids_set_symbols(struct bids *b, bool on)
{
	b->want_syms = on;
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

int bids_fd(const struct bids *b)
{
	return b->have_helper ? uhelper_fd(&b->helper) : -1;
}

unsigned bids_fd_gen(const struct bids *b)
{
	return b->have_helper ? b->helper.starts : 0;
}

size_t bids_pending(const struct bids *b)
{
	return b->have_helper ? uhelper_busy(&b->helper) + b->n_new : 0;
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

/*
 * Y's table into the symbols directory, once per build-id for all recordings there: a small
 * recording holding only its SYMTAB records, written under a temporary name and renamed, so
 * a reader never sees half a file. One that is there already (an earlier run) is kept. 0 or
 * -errno.
 */
static int cache_write(struct bids *b, struct bsyms *y, uint64_t time)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	struct writer *w;
	unsigned n_parts;
	int rc;

	cache_path(b, y, path, sizeof(path), "");
	if (access(path, F_OK) == 0)
		return 0;
	cache_path(b, y, tmp, sizeof(tmp), ".tmp");
	n_parts = put_symtab_parts(NULL, y, time, 0);
	if (n_parts > UINT16_MAX)
		return -E2BIG;
	rc = writer_open(tmp, 0640, 6, &w);
	if (rc < 0)
		return rc;
	put_symtab_parts(w, y, time, n_parts);
	/* No fsync in the drain loop (one per binary would stall it for seconds at start): a
	 * table lost in a crash is only a binary named while its file exists. */
	rc = writer_close_nosync(w);
	if (rc == 0 && rename(tmp, path) < 0)
		rc = -errno;
	if (rc < 0)
		unlink(tmp);
	return rc;
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

		/* In use by this file: the cache keeps it as long as a recording that uses it. */
		cache_path(b, y, path, sizeof(path), "");
		if (utimensat(AT_FDCWD, path, NULL, 0) == 0 || errno != ENOENT)
			return;
		/* Pruned over the budget while in use: the file was the only copy (the
		 * recorder keeps none in memory), so the binary goes without from now on. */
		y->cached = false;
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
static void write_record(struct bids *b, struct bfile *f, uint64_t time)
{
	struct rp_buildid_rec *r;

	if (f->state != BF_KNOWN || f->written == b->gen || !b->w)
		return;
	r = writer_reserve(b->w, sizeof(*r));
	if (!r)
		return;
	memset(r, 0, sizeof(*r));
	r->hdr.type = RP_REC_BUILDID;
	r->hdr.size = sizeof(*r);
	r->time = time;
	r->maj = f->maj;
	r->min = f->min;
	r->ino = f->ino;
	r->ino_gen = f->gen;
	r->len = f->len;
	if (f->digest_len) {
		r->digest_len = RP_DIGEST_LEN;
		memcpy(r->digest, f->digest, RP_DIGEST_LEN);
	}
	memcpy(r->build_id, f->id, f->len);
	f->written = b->gen;
	b->st.written++;
	if (f->syms >= 0)
		write_syms(b, &b->syms[f->syms], time);
}

/* Whoever waits for the file's build-id learns it (len 0: there is none). */
static void tell(struct bids *b, const struct bfile *f)
{
	if (b->listener)
		b->listener(b->listener_arg, f->maj, f->min, f->ino, f->id,
			    f->state == BF_KNOWN ? f->len : 0, f->digest_len ? f->digest : NULL);
}

static void fail(struct bids *b, struct bfile *f)
{
	if (f->state == BF_NEW && b->n_new)
		b->n_new--;
	f->state = BF_NONE;
	b->st.failed++;
	tell(b, f);
}

/* Hand a new file to the helper if its queue has room; else it stays BF_NEW. */
static void submit(struct bids *b, struct bfile *f, uint32_t idx)
{
	struct opener_file of;

	if (!uhelper_alive(&b->helper)) {
		fail(b, f);
		return;
	}
	if (uhelper_busy(&b->helper) >= UHELPER_QUEUE)
		return;
	/* Opened by the helper client's worker thread, never here (a file whose open hangs
	 * comes back failed). */
	of = (struct opener_file){ f->pid, f->start, f->end, f->path, f->maj, f->min, f->ino, 0 };
	if (uhelper_submit_file(&b->helper, idx, b->want_syms ? UWP_BUILD_ID_SYMS : UWP_BUILD_ID,
				&of) < 0)
		return;
	f->state = BF_PENDING;
	b->n_new--;
}

/* A file met for the first time: remembered, and asked about. */
static void add_file(struct bids *b, const struct perfrec_mmap *m, uint32_t idx)
{
	struct bfile *f = &b->files[idx];

	memset(f, 0, sizeof(*f));
	f->maj = m->maj;
	f->min = m->min;
	f->ino = m->ino;
	f->gen = m->ino_gen;
	f->pid = m->pid;
	f->start = m->addr;
	f->end = m->addr + m->len;
	f->path = strtab_add(b->paths, m->path);
	f->syms = -1;
	f->state = BF_NEW;
	if ((size_t)idx + 1 > b->n_files)
		b->n_files = (size_t)idx + 1;
	b->n_new++;
	b->st.files++;
	if (!f->path)
		fail(b, f);
	else
		submit(b, f, idx);
}

void bids_side_band(struct bids *b, const struct perf_event_header *h, uint64_t sample_type)
{
	struct perfrec_mmap m;
	struct perfrec_id id = { 0 };
	bool added;
	int64_t idx;

	if (!b || !b->have_helper || h->type != PERF_RECORD_MMAP2 ||
	    perfrec_parse_mmap(h, sample_type, &m) < 0 || m.build_id || !(m.prot & PROT_EXEC) ||
	    !m.ino || !m.path || m.path[0] != '/')
		return;
	idx = pairtab_intern(b->keys, (uint64_t)m.maj << 32 | m.min, m.ino, &added);
	if (idx < 0 || (added && GROW(b->files, b->cap_files, (size_t)idx + 1) < 0))
		return;
	if (!added && m.ino_gen && b->files[idx].gen && m.ino_gen != b->files[idx].gen &&
	    b->files[idx].state != BF_NEW && b->files[idx].state != BF_PENDING) {
		/* The inode number was given to another file: read this one. */
		b->st.files--;
		added = true;
	}
	if (added) {
		add_file(b, &m, (uint32_t)idx);
		return;
	}
	if (!b->files[idx].gen && m.ino_gen) {
		/* Seen in /proc first (no generation): the same live file, now known by it. */
		b->files[idx].gen = m.ino_gen;
		b->files[idx].written = 0;
	}
	perfrec_parse_id(h, sample_type, &id);
	write_record(b, &b->files[idx], id.time);
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
static void take_syms(struct bids *b, struct bfile *f, struct uhelper_reply *r)
{
	unsigned char key[20 + RP_DIGEST_LEN];
	size_t klen = f->len;
	uint64_t h1, h2;
	struct bsyms *y;
	bool added;
	int64_t idx;

	memcpy(key, f->id, f->len);
	if (f->digest_len) {
		memcpy(key + klen, f->digest, RP_DIGEST_LEN);
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
	memcpy(y->id, f->id, f->len);
	y->len = f->len;
	y->digest_len = f->digest_len;
	memcpy(y->digest, f->digest, sizeof(y->digest));
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
		if (cache_write(b, y, util_now_ns()) == 0) {
			y->cached = true;
			y->buf = NULL; /* the file holds it */
			b->st.sym_tables++;
			b->st.sym_bytes += y->size;
		} else {
			r->buf = NULL;
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

/* One answer of the helper. */
static void take_reply(struct bids *b, struct uhelper_reply *r)
{
	struct bfile *f = r->id < b->n_files ? &b->files[r->id] : NULL;
	uint64_t now;

	if (!f || f->state != BF_PENDING) {
		free(r->buf);
		return;
	}
	b->st.ns += r->build_ns;
	if (r->digest_len == UWP_DIGEST_LEN) {
		f->digest_len = UWP_DIGEST_LEN;
		memcpy(f->digest, r->digest, UWP_DIGEST_LEN);
	}
	if (r->status == -ENOENT) {
		free(r->buf);
		f->state = BF_NONE;
		b->st.none++;
		tell(b, f);
		return;
	}
	if (r->status < 0 || !r->build_id_len || r->build_id_len > sizeof(f->id)) {
		free(r->buf);
		fail(b, f);
		return;
	}
	f->len = r->build_id_len;
	memcpy(f->id, r->build_id, f->len);
	f->state = BF_KNOWN;
	if (r->kind == UWP_BUILD_ID_SYMS)
		take_syms(b, f, r);
	free(r->buf);
	b->st.read++;
	now = util_now_ns();
	write_record(b, f, b->t_cap && now > b->t_cap ? b->t_cap : now);
	tell(b, f);
}

void bids_cap_time(struct bids *b, uint64_t t)
{
	if (b)
		b->t_cap = t;
}

void bids_poll(struct bids *b)
{
	struct uhelper_reply r;

	if (!b || !b->have_helper || (!uhelper_busy(&b->helper) && !b->n_new))
		return;
	while (uhelper_poll(&b->helper, &r) == 1)
		take_reply(b, &r);
	b->st.helper_deaths = b->helper.deaths;
	b->st.helper_paused_until = b->helper.paused_until;
	for (size_t i = 0; b->n_new && i < b->n_files; i++)
		if (b->files[i].state == BF_NEW) {
			submit(b, &b->files[i], (uint32_t)i);
			if (b->files[i].state == BF_NEW)
				break;
		}
}
