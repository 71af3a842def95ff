/* dsotab.c — the objects code belongs to (kernel, modules, files, JIT, [vdso]), by identity. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/grow.h"
#include "base/hash.h"
#include "base/intern.h"
#include "format/format.h"
#include "profile/dsotab.h"
#include "profile/perfmap.h"
#include "profile/symbolizer.h"

struct dso {
	enum dsotab_kind kind;
	struct sym_dso *sym;  /* DSOTAB_FILE */
	const char *path;     /* DSOTAB_FILE: the mapping's path, in names */
	int32_t pid;	      /* DSOTAB_JIT */
	struct perfmap *pmap; /* DSOTAB_JIT, loaded on first use */
	bool pmap_tried;
	bool pmap_checked, pmap_exists; /* DSOTAB_JIT: is there a perf map file at all? */
	bool unmapped;			/* the code in no known mapping of any process */
	char *name;			/* short name for reports */
	uint32_t path_id;		/* DSOTAB_FILE: path's id in names */
	bool canon_set;			/* canon decided (dsotab_canonical()) */
	uint32_t canon;			/* the first object of the same build-id and path */
};

struct dsotab {
	struct symbolizer *symz; /* borrowed */
	const char *symfs;	 /* borrowed */
	struct dso *dsos;
	size_t n_dsos, cap_dsos;
	struct pairtab *ids;	/* identity (value, TAG_*) -> dso id */
	struct strtab *names;	/* pseudo-file and module names */
	struct pairtab *inodes; /* (maj << 32 | min, ino) -> index into bids */
	struct learned_bid {
		uint64_t gen; /* the inode's generation; 0: unknown */
		uint8_t len;
		uint8_t id[20];
		bool has_digest;
		uint8_t digest[RP_DIGEST_LEN]; /* what the file held (format 2.4) */
	} * bids; /* build-ids the recording gave files after their mappings (RP_REC_BUILDID) */
	size_t cap_bids;
	struct pairtab *same; /* (build-id hash, path id) -> index into same_first */
	uint32_t *same_first; /* the first object of each */
	size_t cap_same;
};

/* Identity tags: a dso is (value, tag) in ids, and its id there is its index in dsos. */
enum {
	TAG_KERNEL = 1,
	TAG_MODULE, /* value: module name id in names */
	TAG_FILE,   /* value: the symbolizer's handle; the tag holds the path's id in names too */
	TAG_JIT,    /* value: pid */
	TAG_PSEUDO, /* value: name id in names */
	TAG_UNMAPPED,
};

/* The id of identity (VALUE, TAG), adding the dso when it is new. Room comes first: an id in
 * ids always has its dso. */
static int64_t get_dso(struct dsotab *t, uint64_t value, uint64_t tag, enum dsotab_kind kind,
		       const char *name)
{
	int64_t id = pairtab_find(t->ids, value, tag);
	char *copy;

	if (id >= 0)
		return id;
	if (GROW(t->dsos, t->cap_dsos, t->n_dsos + 1) < 0)
		return -ENOMEM;
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	id = pairtab_intern(t->ids, value, tag, NULL);
	if (id < 0) {
		free(copy);
		return id;
	}
	t->dsos[id] = (struct dso){ .kind = kind, .name = copy };
	t->n_dsos++;
	return id;
}

struct dsotab *dsotab_new(struct symbolizer *symz, const char *symfs)
{
	struct dsotab *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->symz = symz;
	t->symfs = symfs;
	t->ids = pairtab_new();
	t->names = strtab_new();
	t->inodes = pairtab_new();
	t->same = pairtab_new();
	if (!t->ids || !t->names || !t->inodes || !t->same)
		return dsotab_free(t);
	if (get_dso(t, 0, TAG_KERNEL, DSOTAB_KERNEL, "[kernel.kallsyms]") != DSOTAB_KERNEL_ID)
		return dsotab_free(t);
	return t;
}

struct dsotab *dsotab_free(struct dsotab *t)
{
	if (!t)
		return NULL;
	for (size_t i = 0; i < t->n_dsos; i++) {
		free(t->dsos[i].name);
		perfmap_free(t->dsos[i].pmap);
	}
	free(t->dsos);
	pairtab_free(t->ids);
	strtab_free(t->names);
	pairtab_free(t->inodes);
	free(t->bids);
	pairtab_free(t->same);
	free(t->same_first);
	free(t);
	return NULL;
}

int dsotab_learn_build_id(struct dsotab *t, uint32_t maj, uint32_t min, uint64_t ino, uint64_t gen,
			  const uint8_t *id, size_t len, const uint8_t *digest)
{
	bool added;
	int64_t i;

	if (!ino || !len || len > sizeof(t->bids[0].id))
		return -EINVAL;
	i = pairtab_intern(t->inodes, (uint64_t)maj << 32 | min, ino, &added);
	if (i < 0 || (added && GROW(t->bids, t->cap_bids, (size_t)i + 1) < 0))
		return -ENOMEM;
	if (!added && t->bids[i].len == len && !memcmp(t->bids[i].id, id, len) &&
	    (!digest ||
	     (t->bids[i].has_digest && !memcmp(t->bids[i].digest, digest, RP_DIGEST_LEN)))) {
		if (gen)
			t->bids[i].gen = gen;
		return 0; /* every file of a recording repeats it */
	}
	/* The latest holds: an inode number may be given to another file. */
	t->bids[i].gen = gen;
	t->bids[i].len = (uint8_t)len;
	memcpy(t->bids[i].id, id, len);
	t->bids[i].has_digest = digest != NULL;
	if (digest)
		memcpy(t->bids[i].digest, digest, RP_DIGEST_LEN);
	symbolizer_learn_build_id(t->symz, maj, min, ino, id, len, digest);
	return 0;
}

int64_t dsotab_add_jit(struct dsotab *t, int32_t pid)
{
	char name[64];
	int64_t id;

	snprintf(name, sizeof(name), "[JIT] pid %d", (int)pid);
	id = get_dso(t, (uint32_t)pid, TAG_JIT, DSOTAB_JIT, name);
	if (id >= 0)
		t->dsos[id].pid = pid;
	return id;
}

/* Where process PID's perf map is looked for: SYMFS/tmp/perf-PID.map. */
static void perfmap_path(const struct dsotab *t, int32_t pid, char *buf, size_t size)
{
	snprintf(buf, size, "%s/tmp/perf-%d.map", t->symfs ? t->symfs : "", (int)pid);
}

int64_t dsotab_add_unmapped(struct dsotab *t, int32_t pid)
{
	int64_t id = dsotab_add_jit(t, pid);
	struct dso *d;

	if (id < 0)
		return id;
	d = &t->dsos[id];
	if (!d->pmap_checked) {
		char path[4200];

		perfmap_path(t, pid, path, sizeof(path));
		d->pmap_checked = true;
		d->pmap_exists = access(path, F_OK) == 0;
	}
	/*
	 * Only a JIT that writes a perf map makes code outside every mapping JIT code; without
	 * one such addresses are most often mappings the recording lost (LOST records).
	 */
	if (d->pmap_exists)
		return id;
	id = get_dso(t, 0, TAG_UNMAPPED, DSOTAB_PSEUDO, "[unknown]");
	if (id >= 0)
		t->dsos[id].unmapped = true;
	return id;
}

static bool is_anon(const char *path)
{
	return !path[0] || strncmp(path, "//anon", 6) == 0 || strncmp(path, "[anon", 5) == 0 ||
	       strcmp(path, "[heap]") == 0 || strcmp(path, "[stack]") == 0;
}

int64_t dsotab_add_mapped(struct dsotab *t, const char *path, const uint8_t *bid, size_t bid_len,
			  uint32_t maj, uint32_t min, uint64_t ino, uint64_t gen, int32_t pid)
{
	char clean[4200];
	size_t len = strlen(path);
	const uint8_t *digest = NULL;
	const char *slash;
	struct sym_dso *d;
	int64_t id, path_id;

	if (is_anon(path))
		return dsotab_add_jit(t, pid);
	/* The kernel appends " (deleted)" to files removed since they were mapped. */
	if (len > 10 && len < sizeof(clean) && strcmp(path + len - 10, " (deleted)") == 0) {
		memcpy(clean, path, len - 10);
		clean[len - 10] = '\0';
		path = clean;
	}
	if (path[0] != '/' && strcmp(path, "[vdso]") != 0) {
		/* [vsyscall] and the like: nothing to read ([vdso]: the image the recording
		 * carries, read as a file). */
		int64_t nid = strtab_intern(t->names, path);

		return nid < 0 ? nid : get_dso(t, (uint64_t)nid, TAG_PSEUDO, DSOTAB_PSEUDO, path);
	}
	if (!bid_len && ino) {
		int64_t i = pairtab_find(t->inodes, (uint64_t)maj << 32 | min, ino);

		/* Not when both generations are known and differ: another file had that inode. */
		if (i >= 0 && (!gen || !t->bids[i].gen || gen == t->bids[i].gen)) {
			bid = t->bids[i].id;
			bid_len = t->bids[i].len;
			digest = t->bids[i].has_digest ? t->bids[i].digest : NULL;
		}
	}
	/*
	 * One object per (file, path): the file's symbols are shared by build-id, but the object
	 * is named by the path it was mapped from, so a copy of bash run as loopsh is loopsh.
	 */
	d = symbolizer_dso(t->symz, path, bid, bid_len, maj, min, ino);
	if (d && digest)
		sym_dso_set_digest(d, digest);
	path_id = strtab_intern(t->names, path);
	if (path_id < 0)
		return path_id;
	slash = strrchr(path, '/');
	id = get_dso(t, (uintptr_t)d, (uint64_t)path_id << 8 | TAG_FILE, DSOTAB_FILE,
		     slash && slash[1] ? slash + 1 : path);
	if (id >= 0) {
		t->dsos[id].sym = d;
		t->dsos[id].path = strtab_get(t->names, (uint32_t)path_id);
		t->dsos[id].path_id = (uint32_t)path_id;
	}
	return id;
}

uint32_t dsotab_canonical(struct dsotab *t, uint32_t id)
{
	struct dso *d = &t->dsos[id];
	const uint8_t *bid, *first_bid;
	size_t len, first_len;
	uint32_t first;
	bool added;
	int64_t k;

	if (d->kind != DSOTAB_FILE)
		return id;
	if (d->canon_set)
		return d->canon;
	bid = sym_dso_build_id(d->sym, &len);
	/* Room first: an entry of same always has its first object. */
	if (len && GROW(t->same_first, t->cap_same, (size_t)pairtab_count(t->same) + 1) < 0)
		return id; /* undecided: asked again next time */
	d->canon_set = true;
	d->canon = id;
	if (!len)
		return id;
	k = pairtab_intern(t->same, hash_bytes(bid, len, HASH_SEED), d->path_id, &added);
	if (k < 0)
		return id;
	if (added) {
		t->same_first[k] = id;
		return id;
	}
	first = t->same_first[k];
	first_bid = sym_dso_build_id(t->dsos[first].sym, &first_len);
	if (first_len == len && !memcmp(first_bid, bid, len))
		d->canon = first;
	return d->canon;
}

int64_t dsotab_add_module(struct dsotab *t, const char *module)
{
	char name[300];
	int64_t nid = strtab_intern(t->names, module);

	snprintf(name, sizeof(name), "[%s]", module);
	return nid < 0 ? nid : get_dso(t, (uint64_t)nid, TAG_MODULE, DSOTAB_KERNEL, name);
}

enum dsotab_kind dsotab_kind(const struct dsotab *t, uint32_t id)
{
	return t->dsos[id].kind;
}

struct sym_dso *dsotab_sym(const struct dsotab *t, uint32_t id)
{
	return t->dsos[id].sym;
}

const char *dsotab_name(const struct dsotab *t, uint32_t id)
{
	return t->dsos[id].name;
}

bool dsotab_matches(const struct dsotab *t, uint32_t id, const char *name)
{
	const struct dso *d = &t->dsos[id];
	const char *path = d->path ? d->path : d->name;

	return strcmp(name, d->name) == 0 || (path && strcmp(name, path) == 0);
}

bool dsotab_unmapped(const struct dsotab *t, uint32_t id)
{
	return t->dsos[id].unmapped;
}

int dsotab_perfmap(struct dsotab *t, uint32_t id, const struct perfmap **ret)
{
	struct dso *d = &t->dsos[id];

	if (!d->pmap_tried) {
		char path[4200];

		d->pmap_tried = true;
		perfmap_path(t, d->pid, path, sizeof(path));
		if (perfmap_load(path, &d->pmap) == -ENOMEM)
			return -ENOMEM;
	}
	*ret = d->pmap;
	return 0;
}

int dsotab_add_image(struct dsotab *t, const char *name, const void *image, size_t len)
{
	return symbolizer_add_image(t->symz, name, image, len);
}

int dsotab_add_symtab(struct dsotab *t, const uint8_t *id, size_t len, const uint8_t *digest,
		      unsigned part, unsigned n_parts, uint32_t n, const void *run, size_t size)
{
	return symbolizer_add_symtab(t->symz, id, len, digest, part, n_parts, n, run, size);
}
