/* objreg.c — the recorder's one registry of mapped objects, and its one helper (objreg.h). */
#include "capture/objreg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/hash.h"
#include "base/intern.h"
#include "base/util.h"
#include "capture/cachework.h"
#include "capture/uhelper.h"

#define OBJREG_LISTENERS 2
#define OBJREG_IDS_AT_ONCE 2 /* build-id requests with the helper at once */

struct objreg {
	struct uhelper helper;
	bool have_helper;
	bool want_ids, want_syms;
	/* A mapping's key (kind letter and what names the file) -> a slot; the slot -> the
	 * object the key names now (a new generation of an inode takes the slot over). */
	struct pairtab *keys;
	uint32_t *cur;
	size_t cap_cur;
	struct objreg_obj *objs;
	size_t n_objs, cap_objs;
	struct strtab *paths;
	size_t n_new;	    /* objects in OBJREG_ID_NEW */
	size_t ids_pending; /* ... and OBJREG_ID_PENDING */
	size_t ids_sent;    /* in OBJREG_ID_PENDING */
	size_t next_new;    /* no object below it is in OBJREG_ID_NEW */
	/* Objects a sample waits for, whose build-ids are asked for first, first wanted first:
	 * hurry[hurry_at..n_hurry). */
	uint32_t *hurry;
	size_t hurry_at, n_hurry, cap_hurry;
	struct {
		void (*fn)(void *arg, uint32_t i, struct uhelper_reply *r);
		void *arg;
	} ids[OBJREG_LISTENERS];
	void (*table_fn)(void *arg, uint32_t i, struct uhelper_reply *r);
	void (*feed)(void *arg);
	size_t tables_busy;	/* table requests not answered yet */
	struct cachework *disk; /* the disk work of its users, off the drain pass */
	void *table_arg;
};

struct objreg *objreg_new_scripted(int (*script)(void *arg, int sock), void *arg, char *note,
				   size_t note_size)
{
	struct objreg *g = calloc(1, sizeof(*g));

	note[0] = '\0';
	if (!g)
		return NULL;
	g->keys = pairtab_new();
	g->paths = strtab_new();
	g->disk = cachework_new();
	if (!g->keys || !g->paths || !g->disk)
		return objreg_free(g);
	g->have_helper = (script ? uhelper_start_scripted(&g->helper, script, arg, note, note_size)
				 : uhelper_start(&g->helper, note, note_size)) == 0;
	if (!g->have_helper && !g->helper.why[0])
		util_strlcpy(g->helper.why, note, sizeof(g->helper.why));
	return g;
}

struct objreg *objreg_new(char *note, size_t note_size)
{
	return objreg_new_scripted(NULL, NULL, note, note_size);
}

struct objreg *objreg_free(struct objreg *g)
{
	if (!g)
		return NULL;
	if (g->have_helper)
		uhelper_done(&g->helper);
	cachework_free(g->disk); /* what its users left to write is written first */
	pairtab_free(g->keys);
	strtab_free(g->paths);
	free(g->cur);
	free(g->objs);
	free(g->hurry);
	free(g);
	return NULL;
}

bool objreg_has_helper(const struct objreg *g)
{
	return g->have_helper;
}

const struct uhelper *objreg_helper(const struct objreg *g)
{
	return &g->helper;
}

struct cachework *objreg_disk(struct objreg *g)
{
	return g->disk;
}

void objreg_want_build_ids(struct objreg *g, bool syms)
{
	g->want_ids = g->have_helper;
	g->want_syms = syms;
}

const struct objreg_obj *objreg_obj(const struct objreg *g, uint32_t i)
{
	return &g->objs[i];
}

void objreg_set_digest(struct objreg *g, uint32_t i, const uint8_t *digest)
{
	struct objreg_obj *o = &g->objs[i];

	if (!o->digest_len) {
		o->digest_len = UWP_DIGEST_LEN;
		memcpy(o->digest, digest, UWP_DIGEST_LEN);
	}
}

/* A new object for M, named by slot; OBJREG_NONE when out of memory. */
static uint32_t add_obj(struct objreg *g, const struct perfrec_mmap *m, bool vdso)
{
	struct objreg_obj *o;
	uint32_t i = (uint32_t)g->n_objs;

	if (g->n_objs >= OBJREG_NONE - 1 || GROW(g->objs, g->cap_objs, g->n_objs + 1) < 0)
		return OBJREG_NONE;
	o = &g->objs[i];
	memset(o, 0, sizeof(*o));
	o->path = strtab_add(g->paths, m->path);
	if (!o->path)
		return OBJREG_NONE;
	g->n_objs++;
	o->vdso = vdso;
	o->maj = m->maj;
	o->min = m->min;
	o->pid = m->pid;
	o->start = m->addr;
	o->end = m->addr + m->len;
	if (m->build_id && m->build_id_len && m->build_id_len <= sizeof(o->bid)) {
		o->bid_len = (uint8_t)m->build_id_len;
		memcpy(o->bid, m->build_id, o->bid_len);
		o->id_state = OBJREG_ID_KNOWN;
	} else if (!vdso && m->ino) {
		o->by_inode = true;
		o->ino = m->ino;
		o->gen = m->ino_gen;
		if (g->want_ids) {
			o->id_state = OBJREG_ID_NEW;
			g->n_new++;
			g->ids_pending++;
		}
	}
	return i;
}

uint32_t objreg_map(struct objreg *g, const struct perfrec_mmap *m)
{
	unsigned char key[48];
	size_t klen = 0;
	bool vdso = m->path && strcmp(m->path, "[vdso]") == 0, added;
	struct objreg_obj *o;
	int64_t slot;

	if (!m->path || (!vdso && m->path[0] != '/'))
		return OBJREG_NONE;
	if (vdso) {
		key[klen++] = 'v';
	} else if (m->build_id && m->build_id_len && m->build_id_len <= 20) {
		key[klen++] = 'b';
		memcpy(key + klen, m->build_id, m->build_id_len);
		klen += m->build_id_len;
	} else if (m->ino) {
		key[klen++] = 'i';
		memcpy(key + klen, &m->maj, 4);
		memcpy(key + klen + 4, &m->min, 4);
		memcpy(key + klen + 8, &m->ino, 8);
		klen += 16;
	} else {
		uint64_t h = hash_str(m->path);

		key[klen++] = 'p';
		memcpy(key + klen, &h, 8);
		klen += 8;
	}
	slot = pairtab_intern(g->keys, hash_bytes(key, klen, HASH_SEED),
			      hash_bytes(key, klen, 0x84222325cbf29ce4ull), &added);
	if (slot < 0 || (added && GROW(g->cur, g->cap_cur, (size_t)slot + 1) < 0))
		return OBJREG_NONE;
	if (added || g->cur[slot] == OBJREG_NONE)
		return g->cur[slot] = add_obj(g, m, vdso);
	o = &g->objs[g->cur[slot]];
	if (o->by_inode && m->ino_gen && o->gen && m->ino_gen != o->gen)
		/* The inode number was given to another file: this one is another object. */
		return g->cur[slot] = add_obj(g, m, vdso);
	if (o->by_inode && !o->gen && m->ino_gen)
		o->gen = m->ino_gen; /* seen in /proc first: the same live file, now by its MMAP2 */
	return g->cur[slot];
}

void objreg_on_identified(struct objreg *g,
			  void (*fn)(void *arg, uint32_t i, struct uhelper_reply *r), void *arg)
{
	for (size_t k = 0; k < OBJREG_LISTENERS; k++)
		if (!g->ids[k].fn) {
			g->ids[k].fn = fn;
			g->ids[k].arg = arg;
			return;
		}
}

void objreg_on_table(struct objreg *g, void (*fn)(void *arg, uint32_t i, struct uhelper_reply *r),
		     void (*feed)(void *arg), void *arg)
{
	g->table_fn = fn;
	g->feed = feed;
	g->table_arg = arg;
}

int objreg_submit_table(struct objreg *g, uint32_t i, const struct opener_file *f)
{
	struct objreg_obj *o = &g->objs[i];
	bool both = o->id_state == OBJREG_ID_NEW;
	int rc;

	if (!g->have_helper || !uhelper_alive(&g->helper))
		return -EPIPE;
	/* Its build-id not asked for yet: the one request brings it too (with the symbols). */
	rc = uhelper_submit_file(&g->helper, i, both && g->want_syms ? UWP_TABLE_SYMS : UWP_TABLE,
				 f);
	if (rc == 0 && both) {
		o->id_state = OBJREG_ID_PENDING;
		o->id_by_table = true;
		g->n_new--;
	}
	g->tables_busy += rc == 0;
	return rc;
}

int objreg_submit_table_fd(struct objreg *g, uint32_t i, int fd)
{
	int rc;

	if (!g->have_helper || !uhelper_alive(&g->helper))
		return -EPIPE;
	rc = uhelper_submit(&g->helper, i, UWP_TABLE, fd, g->objs[i].path);
	g->tables_busy += rc == 0;
	return rc;
}

size_t objreg_tables_busy(const struct objreg *g)
{
	return g->tables_busy;
}

size_t objreg_ids_pending(const struct objreg *g)
{
	return g->ids_pending;
}

bool objreg_helper_alive(const struct objreg *g)
{
	return g->have_helper && uhelper_alive(&g->helper);
}

int objreg_fd(const struct objreg *g)
{
	return g->have_helper ? uhelper_fd(&g->helper) : -1;
}

unsigned objreg_fd_gen(const struct objreg *g)
{
	return g->have_helper ? g->helper.starts : 0;
}

/* The answer to object I's build-id request (R): what it says is kept, then the listeners
 * hear it. */
static void identified(struct objreg *g, uint32_t i, struct uhelper_reply *r)
{
	struct objreg_obj *o = &g->objs[i];

	if (o->id_state == OBJREG_ID_NEW)
		g->n_new--;
	else
		g->ids_sent--;
	g->ids_pending--;
	if (r->digest_len == UWP_DIGEST_LEN)
		objreg_set_digest(g, i, r->digest);
	if (r->status == 0 && r->build_id_len && r->build_id_len <= sizeof(o->bid)) {
		o->bid_len = r->build_id_len;
		memcpy(o->bid, r->build_id, o->bid_len);
		o->id_state = OBJREG_ID_KNOWN;
	} else {
		o->id_state = OBJREG_ID_NONE;
	}
	for (size_t k = 0; k < OBJREG_LISTENERS; k++)
		if (g->ids[k].fn)
			g->ids[k].fn(g->ids[k].arg, i, r);
}

/* A table reply to a request that also asked for object I's build-id: what it says is taken
 * as a build-id reply; the table failed, so it says nothing: the build-id is asked alone. */
static void table_identifies(struct objreg *g, uint32_t i, struct uhelper_reply *r)
{
	struct objreg_obj *o = &g->objs[i];
	struct uhelper_reply v = *r;

	o->id_by_table = false;
	if (r->status < 0) {
		o->id_state = OBJREG_ID_NEW;
		g->n_new++;
		if (g->next_new > i)
			g->next_new = i;
		return;
	}
	v.kind = r->kind == UWP_TABLE_SYMS ? UWP_BUILD_ID_SYMS : UWP_BUILD_ID;
	v.status = r->build_id_len ? 0 : -ENOENT;
	v.buf = r->sym_buf;
	v.size = r->sym_size;
	if (!r->sym_buf && !v.sym_status)
		v.sym_status = -ENOENT;
	g->ids_sent++; /* identified() counts it answered */
	identified(g, i, &v);
	r->sym_buf = v.buf; /* NULL when a listener took it */
}

static void dispatch(struct objreg *g, struct uhelper_reply *r)
{
	if (r->id >= g->n_objs) {
		free(r->buf);
		free(r->sym_buf);
		return;
	}
	if (r->kind == UWP_TABLE || r->kind == UWP_TABLE_SYMS) {
		g->tables_busy -= g->tables_busy > 0;
		if (g->objs[r->id].id_by_table)
			table_identifies(g, r->id, r);
		free(r->sym_buf);
		if (g->table_fn)
			g->table_fn(g->table_arg, r->id, r);
		else
			free(r->buf);
		return;
	}
	if (g->objs[r->id].id_state == OBJREG_ID_PENDING)
		identified(g, r->id, r);
	free(r->buf);
}

/* Object I's build-id cannot be asked for: the helper is gone for good. */
static void id_fails(struct objreg *g, uint32_t i)
{
	struct uhelper_reply r = { .id = i, .kind = UWP_BUILD_ID, .status = -EPIPE };

	util_strlcpy(r.why, g->helper.why[0] ? g->helper.why : "no helper", sizeof(r.why));
	identified(g, i, &r);
}

void objreg_hurry(struct objreg *g, uint32_t i, uint32_t pid, uint64_t start, uint64_t end)
{
	struct objreg_obj *o = i < g->n_objs ? &g->objs[i] : NULL;

	if (!o || o->id_state != OBJREG_ID_NEW || o->hurried)
		return;
	if (g->hurry_at == g->n_hurry)
		g->hurry_at = g->n_hurry = 0;
	if (GROW(g->hurry, g->cap_hurry, g->n_hurry + 1) < 0)
		return; /* asked for in the order of the objects */
	g->hurry[g->n_hurry++] = i;
	o->hurried = true;
	/* Opened through the process a sample came from: the first one to map it may be gone. */
	o->pid = pid;
	o->start = start;
	o->end = end;
}

/* Ask for object I's build-id: 1 when it was taken, 0 when there is no room now. */
static int send_id(struct objreg *g, uint32_t i)
{
	struct objreg_obj *o = &g->objs[i];
	struct opener_file f;

	if (!g->have_helper || !uhelper_alive(&g->helper)) {
		id_fails(g, i);
		return 1;
	}
	/* A few at a time: the next is chosen when one is answered (a sample may want another
	 * first by then), and a table asked for meanwhile waits for these only. */
	if (g->ids_sent >= OBJREG_IDS_AT_ONCE)
		return 0;
	f = (struct opener_file){ o->pid, o->start, o->end, o->path, o->maj, o->min, o->ino, 0 };
	if (uhelper_submit_file(&g->helper, i, g->want_syms ? UWP_BUILD_ID_SYMS : UWP_BUILD_ID,
				&f) < 0)
		return 0;
	o->id_state = OBJREG_ID_PENDING;
	g->n_new--;
	g->ids_sent++;
	return 1;
}

/* Build-id requests of the objects samples wait for, first wanted first, while there is room:
 * true when all were sent. */
static bool send_hurried_ids(struct objreg *g)
{
	while (g->hurry_at < g->n_hurry && g->n_new) {
		uint32_t i = g->hurry[g->hurry_at];

		if (g->objs[i].id_state == OBJREG_ID_NEW && !send_id(g, i))
			return false;
		g->hurry_at++;
	}
	return true;
}

/* ... then those of the others, oldest object first. */
static void send_ids(struct objreg *g)
{
	while (g->n_new && g->next_new < g->n_objs) {
		uint32_t i = (uint32_t)g->next_new;

		if (g->objs[i].id_state == OBJREG_ID_NEW && !send_id(g, i))
			return;
		g->next_new++;
	}
}

void objreg_poll(struct objreg *g, bool readable)
{
	struct uhelper_reply r;
	bool all;

	/* An idle helper has nothing to say unless its socket says so (a reply, or its end). */
	if (g->have_helper && (readable || uhelper_busy(&g->helper) || g->helper.paused_until))
		while (uhelper_poll(&g->helper, &r) == 1)
			dispatch(g, &r);
	/* A table request fails in uhelper_poll() only when its file would not open: the
	 * unwinder hears it as a reply like any other. */
	/* A build-id a sample waits for may find its table in the disk cache: first, then the
	 * tables samples wait for, then the other build-ids. */
	if (g->ids_sent && !objreg_helper_alive(g))
		/* It could not be started again: what it had is lost (uhelper dropped it). */
		for (size_t i = 0; i < g->n_objs; i++)
			if (g->objs[i].id_state == OBJREG_ID_PENDING)
				id_fails(g, (uint32_t)i);
	all = send_hurried_ids(g);
	if (g->feed)
		g->feed(g->table_arg);
	if (all)
		send_ids(g);
}
