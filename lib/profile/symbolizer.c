/* symbolizer.c — user-space symbols for file offsets of recorded binaries (the libdw adapter). */
#include "format/format.h"
#include "profile/symbolizer.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/buildid.h"
#include "base/grow.h"
#include "base/hash.h"
#include "base/intern.h"
#include "base/util.h"
#include "elf/debugcache.h"
#include "elf/dwscopes.h"
#include "elf/elfdigest.h"
#include "elf/elfsym.h"
#include "profile/captab.h"
#include "profile/demangle.h"
#include "profile/symfile.h"

#define BUILD_ID_MAX SYMFILE_BUILD_ID_MAX
#define ALT_PATHS_MAX 4
#define INLINE_MAX 32	      /* frames kept per address */
#define FRAME_HERE UINT32_MAX /* cache entry holding its one plain frame itself */

/* A PT_LOAD segment: file range [off, off + filesz) is loaded at vaddr. */
struct load {
	uint64_t off, filesz, vaddr;
	bool exec;
};

/*
 * A function symbol in module addresses. end is start + size, or for a symbol without
 * size the next symbol's start (bounded by its section). max_end is the largest end of
 * this and all earlier entries: a backward scan for a containing symbol stops as soon as it
 * is <= the address, so nested or overlapping symbols are found without a linear search.
 */
struct sym {
	uint64_t start, end, max_end;
	const char *name; /* in libelf's string table data, valid until dwfl_end */
};

/*
 * Per-dso result cache; n == 0 marks an empty slot. The common answer, one frame without
 * source (name or unknown), lives in the entry itself so a hit touches one cache line; inline
 * chains and frames with file:line are in the dso's frames array. An open-addressing table of
 * its own (on the file offset, cap a power of two) rather than a pairtab: a pairtab gives an id
 * that would need a second array for the answer, and this is the per-frame hot path.
 */
struct cache_ent {
	uint64_t off;
	const char *name; /* FRAME_HERE: the frame's name (NULL = unknown) */
	uint64_t offset;  /* FRAME_HERE: the frame's offset */
	uint32_t first;	  /* FRAME_HERE, or the index of the first frame in frames */
	uint32_t n;
	const char *raw; /* FRAME_HERE: the frame's name as in the symbol table */
	bool no_lines;	 /* computed without opts.lines' line (symbolizer_lookup_name()) */
};

enum dso_state {
	DSO_NEW,      /* not opened yet */
	DSO_READY,    /* module reported, symbols indexed */
	DSO_UNUSABLE, /* every lookup is unknown */
};

struct sym_dso {
	struct symbolizer *s;
	char *path;
	const char *name; /* last component of path */
	char *alt[ALT_PATHS_MAX];
	int n_alt;
	uint8_t build_id[BUILD_ID_MAX];
	size_t build_id_len;
	bool has_digest;
	uint8_t digest[RP_DIGEST_LEN]; /* what the recorded file held (its captured symbols' key) */
	uint32_t maj, min;
	uint64_t ino;
	uint64_t hash;
	enum dso_state state;
	bool no_dwarf;		 /* inline frames: DWARF was looked for and is not there */
	struct dwscopes *scopes; /* inline frames: its units' functions by address */
	bool debug_asked;	 /* find_debuginfo was called (again: for a dwz alt file) */
	int has_dwarf;		 /* symbolizer_has_lines(): 0 not asked yet, 1 no, 2 yes */

	Dwfl *dwfl;
	Dwfl_Module *mod;
	uint64_t bias;	    /* module address - ELF address (0: reported at base 0) */
	struct load *loads; /* executable segments first */
	size_t n_loads;
	struct sym *syms;
	uint64_t *starts; /* syms[i].start, dense for the binary search */
	size_t n_syms;

	struct cache_ent *cache;
	size_t cache_cap, cache_n; /* cap is a power of two */
	struct sym_frame *frames;
	size_t n_frames, frames_cap;
};

struct symbolizer {
	struct symbolizer_opts o;
	char *symfs;
	char *debuginfo_path;
	char *debug_cache; /* the debug cache's directory, NULL: none */
	char *fetched;	   /* with debuginfod: where it keeps what it fetched, or NULL */
	Dwfl_Callbacks cb;

	struct sym_dso **dsos; /* every handle, for freeing */
	size_t n_dsos, dsos_cap;
	/*
	 * Open addressing by identity, cap a power of two. A table of its own rather than a
	 * pairtab: the key is a build-id of up to 64 bytes or a path with device and inode,
	 * which two u64 cannot hold, and the slot points straight at the handle.
	 */
	struct sym_dso **index;
	size_t index_cap;

	struct strtab *strs; /* every name and file name handed out */
	/*
	 * The name shown for each string of strs, by its id (NULL: not asked yet), so that a
	 * symbol is demangled once however many addresses it covers. n_shown entries are set.
	 */
	const char **shown;
	size_t n_shown, cap_shown;

	/* Code images the recording carries because no file holds them ([vdso]): the first of
	 * each name, in a memfd that libdw reads as it reads a file. */
	struct image {
		char name[24];
		int fd;
	} images[SYMBOLIZER_IMAGES_MAX];
	size_t n_images;

	struct captab *captured; /* symbols captured at record time, by build-id */
	char *symbols_dirs[SYMBOLIZER_SYMBOLS_DIRS_MAX]; /* where more of them lie, by build-id */
	size_t n_symbols_dirs;

	struct symbolizer_stats st;
};

/* ---- small helpers ---- */

#define warnf(s, ...) util_warnf((s)->o.warn, (s)->o.warn_arg, __VA_ARGS__)

/* libdwfl's last error as text, for messages we compose. */
static const char *dwfl_why(void)
{
	const char *m = dwfl_errmsg(-1);

	return m && *m ? m : "unknown libdwfl error";
}

/* The one copy of STR owned by S; NULL for NULL or when out of memory. */
static const char *intern(struct symbolizer *s, const char *str)
{
	const char *p = strtab_add(s->strs, str);

	s->st.strings = strtab_count(s->strs);
	return p;
}

/* RAW demangled, also with a suffix the demangler does not know ("_ZdlPv@plt" is shown as
 * "operator delete@plt"): malloc'd, or NULL. */
static char *demangled(const char *raw)
{
	const char *at = strchr(raw, '@');
	char *d, *head, *out = NULL;

	if (!at)
		return demangle_name(raw);
	head = strndup(raw, (size_t)(at - raw));
	d = head ? demangle_name(head) : NULL;
	if (d && asprintf(&out, "%s%s", d, at) < 0)
		out = NULL;
	free(d);
	free(head);
	return out;
}

/* Where RAW's symbol version starts ("@@GLIBC_2.34" or "@GLIBC_2.2.5", as a .symtab names
 * versioned definitions), NULL when it has none. perf shows names without it, and so do we;
 * "@plt", our name for a PLT stub, is not a version. */
static const char *version_at(const char *raw)
{
	const char *at = strchr(raw, '@');

	if (!at || at == raw || strcmp(at, "@plt") == 0)
		return NULL;
	return at[1] == '@' ? (at[2] ? at : NULL) : (at[1] ? at : NULL);
}

/*
 * The name to show for symbol RAW, owned by S: without its version, demangled unless
 * opts.no_demangle, else RAW's copy. NULL for NULL or when out of memory.
 */
static const char *shown_name(struct symbolizer *s, const char *raw)
{
	const char *p, *at = raw ? version_at(raw) : NULL;
	char *dem = NULL, *head = NULL;
	int64_t id;

	if (!raw || (!at && (s->o.no_demangle || raw[0] != '_')))
		return intern(s, raw);
	id = strtab_intern(s->strs, raw);
	if (id < 0)
		return NULL;
	if ((size_t)id < s->n_shown && s->shown[id])
		return s->shown[id];
	if (at && !(head = strndup(raw, (size_t)(at - raw))))
		return NULL;
	if (!s->o.no_demangle && raw[0] == '_')
		dem = demangled(head ? head : raw);
	p = intern(s, dem ? dem : head ? head : raw);
	free(dem);
	free(head);
	if (p && (size_t)id >= s->n_shown && GROW(s->shown, s->cap_shown, (size_t)id + 1) == 0) {
		memset(s->shown + s->n_shown, 0, ((size_t)id + 1 - s->n_shown) * sizeof(*s->shown));
		s->n_shown = (size_t)id + 1;
	}
	if (p && (size_t)id < s->n_shown)
		s->shown[id] = p;
	return p;
}

/* F's name shown and as in the symbol table (or DWARF): both owned by S. */
static void set_name(struct symbolizer *s, struct sym_frame *f, const char *raw)
{
	f->name = shown_name(s, raw);
	f->raw = f->name ? intern(s, raw) : NULL;
}

/* ---- libdwfl callbacks ---- */

/* The main ELF is always reported with its fd: nothing to find. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name, (void)elfp;
	return -1;
}

/* FD holds an ELF file whose build-id is MOD's (or MOD has none). */
static bool debug_file_matches(Dwfl_Module *mod, int fd)
{
	const unsigned char *bits;
	uint8_t id[BUILD_ID_MAX];
	GElf_Addr vaddr;
	size_t len;
	int n = dwfl_module_build_id(mod, &bits, &vaddr);

	if (n <= 0)
		return true;
	return buildid_read_fd(fd, id, sizeof(id), &len) == 0 && len == (size_t)n &&
	       !memcmp(id, bits, len);
}

/* Whether S reads DWARF (lines, inline frames), not only symbols: then a missing entry of the
 * debug cache is worth making. */
static bool wants_dwarf(const struct symbolizer *s)
{
	return s->o.lines || s->o.inline_frames || s->o.fn_lines;
}

/* ELF file FD (consumed), or its copy with the DWARF inflated from the debug cache when it
 * has one (libdw would inflate every compressed debug section at each open, ~40 ms for
 * libc's): the file's name stays FD's, for messages and dwz alt files beside it. Only for a
 * file libdwfl did not open itself to check its build-id (it keeps that handle). The copy's
 * program headers are FD's own: file offsets map to the same addresses. */
static int inflated(struct symbolizer *s, int fd)
{
	int c;

	if (fd < 0 || !s->debug_cache)
		return fd;
	c = debugcache_open(s->debug_cache, NULL, wants_dwarf(s), fd);
	if (c < 0)
		return fd;
	close(fd);
	return c;
}

/* The first search of module MOD's debug file (later ones are for dwz alt files): its
 * inflated copy by build-id from the debug cache, or -1 for libdwfl's own search. */
static int cached_by_build_id(struct sym_dso *d, Dwfl_Module *mod, char **ret_name)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n;

	if (d->debug_asked || !d->s->debug_cache)
		return -1;
	d->debug_asked = true;
	n = dwfl_module_build_id(mod, &bits, &vaddr);
	if (n <= 0)
		return -1;
	n = debugcache_find(d->s->debug_cache, NULL, wants_dwarf(d->s), d->s->symfs, d->s->fetched,
			    bits, (size_t)n, ret_name);
	return n < 0 ? -1 : n;
}

/*
 * libdwfl's standard search (build-id under each absolute debuginfo_path directory, then
 * .gnu_debuglink next to the file, in .debug/ and under the debug directories; debuginfod
 * last, when DEBUGINFOD_URLS is set). With a symfs the file was opened under it, so the
 * standard debuglink search under symfs/usr/lib/debug looks in symfs/usr/lib/debug/SYMFS/…;
 * look where the recorded path says instead.
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	struct sym_dso *d = *userdata;
	char *p;
	int fd;

	fd = d ? cached_by_build_id(d, mod, debuginfo_file_name) : -1;
	if (fd >= 0)
		return fd;
	fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
					  debuglink_crc, debuginfo_file_name);
	/* An absolute name is a dwz alt file: found by its build-id under symfs/usr/lib/debug. */
	if (fd >= 0 || !d || !d->s->symfs || (debuglink_file && debuglink_file[0] == '/'))
		return fd;
	p = symfile_debug_path(d->s->symfs, d->path, debuglink_file);
	fd = p ? symfile_open_regular(p) : -1; /* the debuglink name is the binary's to choose */
	if (fd >= 0 && !debug_file_matches(mod, fd)) {
		close(fd);
		fd = -1;
	}
	if (fd >= 0)
		*debuginfo_file_name = p;
	else
		free(p);
	return inflated(d->s, fd);
}

/* ---- symbolizer ---- */

struct symbolizer *symbolizer_new(const struct symbolizer_opts *o)
{
	struct symbolizer *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return NULL;
	if (o)
		s->o = *o;
	if (s->o.symfs && *s->o.symfs) {
		s->symfs = strdup(s->o.symfs);
		if (!s->symfs)
			return symbolizer_free(s);
	}
	s->o.symfs = s->symfs;
	s->strs = strtab_new();
	s->captured = captab_new();
	if (!s->strs || !s->captured)
		return symbolizer_free(s);

	/*
	 * Debug files: next to the file, in .debug/ beside it, then the debug directories
	 * (symfs's first); build-id lookups use the absolute ones.
	 */
	if (s->symfs)
		r = asprintf(&s->debuginfo_path, ":.debug:%s/usr/lib/debug:/usr/lib/debug",
			     s->symfs);
	else
		r = asprintf(&s->debuginfo_path, ":.debug:/usr/lib/debug");
	if (r < 0) {
		s->debuginfo_path = NULL;
		return symbolizer_free(s);
	}
	if (!s->o.no_debug_cache)
		s->debug_cache = debugcache_default_dir();
	if (s->debug_cache && s->o.debuginfod)
		s->fetched = debugcache_fetched_dir();
	s->cb.find_elf = find_elf;
	s->cb.find_debuginfo = find_debuginfo;
	s->cb.section_address = dwfl_offline_section_address;
	s->cb.debuginfo_path = &s->debuginfo_path;

	/*
	 * libdwfl asks debuginfod (when libdebuginfod is installed) whenever no local debug
	 * file is found, and the client takes its servers from DEBUGINFOD_URLS at each query —
	 * often set system-wide by the distribution. Off unless asked for.
	 */
	if (!s->o.debuginfod) {
		unsetenv("DEBUGINFOD_URLS");
	} else if (s->o.debuginfod_timeout > 0) {
		char t[24];

		snprintf(t, sizeof(t), "%d", s->o.debuginfod_timeout);
		setenv("DEBUGINFOD_TIMEOUT", t, 1);
	}
	return s;
}

static void dso_free(struct sym_dso *d)
{
	if (d->dwfl)
		dwfl_end(d->dwfl);
	for (int i = 0; i < d->n_alt; i++)
		free(d->alt[i]);
	free(d->loads);
	free(d->syms);
	free(d->starts);
	free(d->cache);
	free(d->frames);
	dwscopes_free(d->scopes);
	free(d->path);
	free(d);
}

struct symbolizer *symbolizer_free(struct symbolizer *s)
{
	if (!s)
		return NULL;
	for (size_t i = 0; i < s->n_dsos; i++)
		dso_free(s->dsos[i]);
	for (size_t i = 0; i < s->n_images; i++)
		close(s->images[i].fd);
	free(s->dsos);
	free(s->index);
	strtab_free(s->strs);
	captab_free(s->captured);
	for (size_t i = 0; i < s->n_symbols_dirs; i++)
		free(s->symbols_dirs[i]);
	free(s->shown);
	free(s->debuginfo_path);
	free(s->debug_cache);
	free(s->fetched);
	free(s->symfs);
	free(s);
	return NULL;
}

bool symbolizer_debug_cache(const struct symbolizer *s)
{
	return s && s->debug_cache;
}

int symbolizer_add_image(struct symbolizer *s, const char *name, const void *image, size_t len)
{
	int fd;

	if (!s || !name || (!image && len))
		return -EINVAL;
	for (size_t i = 0; i < s->n_images; i++)
		if (!strcmp(s->images[i].name, name))
			return 0; /* the same kernel's image, as a rule: the first one is used */
	if (s->n_images == SYMBOLIZER_IMAGES_MAX || strlen(name) >= sizeof(s->images[0].name))
		return -E2BIG;
	fd = memfd_create("ringprof-image", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, image, len) != (ssize_t)len) {
		int r = errno ? -errno : -EIO;

		close(fd);
		return r;
	}
	util_strlcpy(s->images[s->n_images].name, name, sizeof(s->images[0].name));
	s->images[s->n_images++].fd = fd;
	return 0;
}

/* A copy of the descriptor of the image named PATH, or -1 when the recording had none. */
static int image_fd(const struct symbolizer *s, const char *path)
{
	for (size_t i = 0; i < s->n_images; i++)
		if (!strcmp(s->images[i].name, path))
			return fcntl(s->images[i].fd, F_DUPFD_CLOEXEC, 0);
	return -1;
}

const struct symbolizer_stats *symbolizer_stats(const struct symbolizer *s)
{
	return &s->st;
}

/* ---- dso handles ---- */

static uint64_t identity_hash(const char *path, const uint8_t *id, size_t id_len, uint32_t maj,
			      uint32_t min, uint64_t ino)
{
	if (id_len)
		return hash_u64(hash_bytes(id, id_len, HASH_SEED));
	return hash_u64(hash_str(path) ^ hash_pair((uint64_t)maj << 32 | min, ino));
}

static bool identity_eq(const struct sym_dso *d, const char *path, const uint8_t *id, size_t id_len,
			uint32_t maj, uint32_t min, uint64_t ino)
{
	if (d->build_id_len != id_len)
		return false;
	if (id_len)
		return !memcmp(d->build_id, id, id_len);
	return d->maj == maj && d->min == min && d->ino == ino && !strcmp(d->path, path);
}

static int index_insert(struct symbolizer *s, struct sym_dso *d)
{
	size_t mask;

	if (2 * (s->n_dsos + 1) > s->index_cap) {
		size_t cap = s->index_cap ? s->index_cap * 2 : 256;
		struct sym_dso **n = calloc(cap, sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (size_t i = 0; i < s->n_dsos; i++) {
			size_t j;

			for (j = s->dsos[i]->hash & (cap - 1); n[j]; j = (j + 1) & (cap - 1))
				;
			n[j] = s->dsos[i];
		}
		free(s->index);
		s->index = n;
		s->index_cap = cap;
	}
	mask = s->index_cap - 1;
	for (size_t j = d->hash & mask;; j = (j + 1) & mask) {
		if (!s->index[j]) {
			s->index[j] = d;
			return 0;
		}
	}
}

/* The handle given when nothing else can be: lookups on it are always unknown. */
static struct sym_dso unusable_dso = {
	.path = (char *)"[unknown]",
	.name = "[unknown]",
	.state = DSO_UNUSABLE,
};

/* Remember another path under which a file known by build-id was mapped. */
static void dso_add_alt(struct sym_dso *d, const char *path)
{
	if (d->state != DSO_NEW || d->n_alt == ALT_PATHS_MAX || !strcmp(d->path, path))
		return;
	for (int i = 0; i < d->n_alt; i++)
		if (!strcmp(d->alt[i], path))
			return;
	d->alt[d->n_alt] = strdup(path);
	if (d->alt[d->n_alt])
		d->n_alt++;
}

struct sym_dso *symbolizer_dso(struct symbolizer *s, const char *path, const uint8_t *build_id,
			       size_t build_id_len, uint32_t maj, uint32_t min, uint64_t ino)
{
	struct sym_dso *d;
	const char *slash;
	uint64_t h;

	if (!s || !path)
		return &unusable_dso;
	if (!build_id)
		build_id_len = 0;
	if (build_id_len > BUILD_ID_MAX)
		build_id_len = BUILD_ID_MAX;
	h = identity_hash(path, build_id, build_id_len, maj, min, ino);
	if (s->index_cap) {
		size_t mask = s->index_cap - 1;

		for (size_t j = h & mask; s->index[j]; j = (j + 1) & mask) {
			d = s->index[j];
			if (d->hash == h &&
			    identity_eq(d, path, build_id, build_id_len, maj, min, ino)) {
				if (build_id_len)
					dso_add_alt(d, path);
				return d;
			}
		}
	}

	d = calloc(1, sizeof(*d));
	if (!d)
		return &unusable_dso;
	d->s = s;
	d->hash = h;
	if (build_id_len)
		memcpy(d->build_id, build_id, build_id_len);
	d->build_id_len = build_id_len;
	if (!build_id_len) {
		d->maj = maj;
		d->min = min;
		d->ino = ino;
	}
	d->path = strdup(path);
	if (!d->path || GROW(s->dsos, s->dsos_cap, s->n_dsos + 1) < 0 || index_insert(s, d) < 0) {
		free(d->path);
		free(d);
		return &unusable_dso;
	}
	s->dsos[s->n_dsos++] = d;
	slash = strrchr(d->path, '/');
	d->name = slash && slash[1] ? slash + 1 : d->path;
	s->st.dsos++;
	return d;
}

void sym_dso_set_digest(struct sym_dso *d, const uint8_t *digest)
{
	if (d->has_digest)
		return;
	memcpy(d->digest, digest, RP_DIGEST_LEN);
	d->has_digest = true;
}

/* Can handle D, made without a build-id, take build-id ID now? When not opened yet (the file
 * will be checked against it), or opened from a file that has that very build-id: then later
 * mappings of the file, found by the build-id, share D and its symbols (ringprof script and
 * top symbolize while they read, so a handle may be opened before the build-id comes). */
static bool can_learn(const struct sym_dso *d, const uint8_t *id, size_t len)
{
	const unsigned char *bits;
	GElf_Addr vaddr;

	if (d->state == DSO_NEW)
		return true;
	return d->state == DSO_READY && d->mod &&
	       dwfl_module_build_id(d->mod, &bits, &vaddr) == (int)len && !memcmp(bits, id, len);
}

void symbolizer_learn_build_id(struct symbolizer *s, uint32_t maj, uint32_t min, uint64_t ino,
			       const uint8_t *id, size_t len, const uint8_t *digest)
{
	size_t mask;
	bool changed = false;

	if (!s || !ino || !len || len > BUILD_ID_MAX)
		return;
	for (size_t i = 0; i < s->n_dsos; i++) {
		struct sym_dso *d = s->dsos[i];

		if (d->build_id_len || d->ino != ino || d->maj != maj || d->min != min ||
		    !can_learn(d, id, len))
			continue;
		memcpy(d->build_id, id, len);
		d->build_id_len = len;
		d->has_digest = digest != NULL;
		if (digest)
			memcpy(d->digest, digest, RP_DIGEST_LEN);
		d->hash = identity_hash(d->path, id, len, 0, 0, 0);
		changed = true;
	}
	if (!changed || !s->index_cap)
		return;
	/* Found by its build-id from now on: the index is built again with the new hashes. */
	mask = s->index_cap - 1;
	memset(s->index, 0, s->index_cap * sizeof(*s->index));
	for (size_t i = 0; i < s->n_dsos; i++) {
		size_t j;

		for (j = s->dsos[i]->hash & mask; s->index[j]; j = (j + 1) & mask)
			;
		s->index[j] = s->dsos[i];
	}
}

const char *sym_dso_name(const struct sym_dso *d)
{
	return d->name;
}

const char *sym_dso_path(const struct sym_dso *d)
{
	return d->path;
}

const uint8_t *sym_dso_build_id(const struct sym_dso *d, size_t *ret_len)
{
	*ret_len = d->build_id_len;
	return d->build_id_len ? d->build_id : NULL;
}

/* ---- opening a dso: segments and symbols ---- */

static int cmp_load(const void *a, const void *b)
{
	const struct load *x = a, *y = b;

	if (x->exec != y->exec)
		return x->exec ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * The PT_LOAD table, to map file offsets to ELF addresses. `objcopy --only-keep-debug`
 * (how distributions make .debug files) rewrites p_offset and shrinks p_filesz (to 0, or to
 * the notes it kept) because the contents are gone; it keeps p_vaddr, p_memsz and p_align.
 * When such a debug file stands in for the binary (an executable segment shorter in the
 * file than in memory gives it away: code has no .bss part), the original offsets are
 * rebuilt as linkers lay files out: each segment at the lowest offset past the previous one
 * that is congruent to its p_vaddr modulo p_align (the ELF rule), with p_filesz = p_memsz.
 * That is exact for GNU ld (with and without -z separate-code), gold and lld output.
 */
static int read_loads(struct sym_dso *d, Elf *elf)
{
	size_t phnum, n = 0;
	bool mangled = false;
	uint64_t prev_end = 0;

	if (elf_getphdrnum(elf, &phnum) != 0)
		return -EINVAL;
	d->loads = calloc(phnum ? phnum : 1, sizeof(*d->loads));
	if (!d->loads)
		return -ENOMEM;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if ((ph.p_flags & PF_X) && ph.p_filesz < ph.p_memsz)
			mangled = true;
		d->loads[n++] =
		    (struct load){ ph.p_offset, ph.p_filesz, ph.p_vaddr, ph.p_flags & PF_X };
	}
	if (mangled) {
		size_t k = 0;

		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;
			uint64_t align, off;

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			align = ph.p_align && !(ph.p_align & (ph.p_align - 1)) ? ph.p_align : 1;
			off = (prev_end & ~(align - 1)) + (ph.p_vaddr & (align - 1));
			if (off < prev_end)
				off += align;
			d->loads[k].off = off;
			d->loads[k].filesz = ph.p_memsz;
			prev_end = off + ph.p_memsz;
			k++;
		}
	}
	qsort(d->loads, n, sizeof(*d->loads), cmp_load);
	d->n_loads = n;
	return 0;
}

/* The end of section SHNDX of SYMELF in module addresses, 0 when unknown. */
static uint64_t section_limit(Elf *symelf, GElf_Word shndx, Dwarf_Addr bias, bool *exec)
{
	GElf_Shdr sh;
	Elf_Scn *scn = symelf ? elf_getscn(symelf, shndx) : NULL;

	*exec = false;
	if (!scn || !gelf_getshdr(scn, &sh))
		return 0;
	*exec = sh.sh_flags & SHF_EXECINSTR;
	return sh.sh_addr + sh.sh_size + bias;
}

/* Candidates for the PLT stubs of the module's main file (elfsym_plt) and its unnamed entry
 * point (elfsym_entry), in module addresses. */
struct plt_add {
	struct sym_dso *d;
	GElf_Addr bias;
	struct elfsym_cand **c;
	size_t *nc, *cap;
	uint32_t rank; /* a PLT stub's, or 0 (below any symbol's) for the entry point */
};

static int plt_add(void *arg, uint64_t addr, uint64_t size, uint64_t limit, const char *name)
{
	struct plt_add *a = arg;
	const char *p = intern(a->d->s, name);

	if (!p || GROW(*a->c, *a->cap, *a->nc + 1) < 0)
		return -ENOMEM;
	(*a->c)[(*a->nc)++] =
	    (struct elfsym_cand){ addr + a->bias, size, limit + a->bias, p, a->rank, UINT32_MAX };
	return 0;
}

static int add_plt_syms(struct sym_dso *d, struct elfsym_cand **c, size_t *nc, size_t *cap)
{
	struct plt_add a = { d, 0, c, nc, cap, ELFSYM_RANK_PLT };
	Elf *elf = dwfl_module_getelf(d->mod, &a.bias);
	int rc = elfsym_plt(elf, plt_add, &a);

	a.rank = 0;
	return rc < 0 ? rc : elfsym_entry(elf, plt_add, &a);
}

/* D's symbol list from the candidates C (elfsym_select's rule); frees C. */
static int set_syms(struct sym_dso *d, struct elfsym_cand *c, size_t nc)
{
	uint64_t max_end = 0;

	nc = elfsym_select(c, nc);
	d->syms = malloc((nc ? nc : 1) * sizeof(*d->syms));
	d->starts = malloc((nc ? nc : 1) * sizeof(*d->starts));
	if (!d->syms || !d->starts) {
		free(c);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nc; i++) {
		uint64_t end = c[i].start + c[i].size;

		if (end > max_end)
			max_end = end;
		d->starts[i] = c[i].start;
		d->syms[i] = (struct sym){ c[i].start, end, max_end, c[i].name };
	}
	free(c);
	d->n_syms = nc;
	d->s->st.symbols += nc;
	return 0;
}

/* Index the module's function symbols (whichever table libdwfl found) by address. */
static int read_symbols(struct sym_dso *d)
{
	int n = dwfl_module_getsymtab(d->mod);
	struct elfsym_cand *c = NULL;
	size_t nc = 0, cap;

	if (n <= 0) {
		warnf(d->s, "%s: no symbols (%s); its frames are shown as [unknown]", d->path,
		      n < 0 ? dwfl_why() : "empty symbol table");
		return 0;
	}
	cap = (size_t)n;
	c = malloc(cap * sizeof(*c));
	if (!c)
		return -ENOMEM;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *symelf = NULL;
		Dwarf_Addr bias = 0;
		const char *name;
		uint64_t limit;
		bool exec;

		name = dwfl_module_getsym_info(d->mod, i, &sym, &addr, &shndx, &symelf, &bias);
		if (!name || shndx == (GElf_Word)-1 || shndx == SHN_ABS || shndx == SHN_UNDEF ||
		    !addr)
			continue;
		limit = section_limit(symelf, shndx, bias, &exec);
		if (!elfsym_wanted(&sym, name, exec))
			continue;
		c[nc++] = (struct elfsym_cand){
			addr, sym.st_size, limit, name, elfsym_rank(&sym, name), (uint32_t)i
		};
	}
	if (add_plt_syms(d, &c, &nc, &cap) < 0) {
		free(c);
		return -ENOMEM;
	}
	if (set_syms(d, c, nc) < 0)
		return -ENOMEM;
	if (!d->n_syms)
		warnf(d->s, "%s: no function symbols; its frames are shown as [unknown]", d->path);
	return 0;
}

/*
 * The file of D cannot be used (gone, or another build-id): name its frames from the symbols
 * the recording captured for its build-id, if any. Their starts are file offsets, so the one
 * load maps offsets to themselves; there is no DWARF (no inline frames, no lines). True when
 * D is ready this way.
 */
static bool dso_open_captured(struct sym_dso *d)
{
	const uint8_t *dig;
	struct captab_sym *c;
	struct elfsym_cand *e;
	size_t n;
	int rc;

	if (!d->build_id_len)
		return false;
	dig = d->has_digest ? d->digest : NULL;
	rc = captab_get(d->s->captured, d->build_id, d->build_id_len, dig, &c, &n);
	for (size_t i = 0; rc == -ENOENT && i < d->s->n_symbols_dirs; i++)
		if (captab_load(d->s->captured, d->s->symbols_dirs[i], d->build_id, d->build_id_len,
				dig) == 0)
			rc = captab_get(d->s->captured, d->build_id, d->build_id_len, dig, &c, &n);
	if (rc < 0)
		return false;
	d->loads = calloc(1, sizeof(*d->loads));
	e = malloc(n * sizeof(*e));
	if (!d->loads || !e) {
		free(e);
		free(c);
		return false;
	}
	d->loads[0] = (struct load){ 0, UINT64_MAX, 0, true };
	d->n_loads = 1;
	/* The helper stores the list elfsym_select made, each size its extent; an older
	 * recording's sizes may be 0 (up to the next start): the same rule reads both. */
	for (size_t i = 0; i < n; i++)
		e[i] = (struct elfsym_cand){ c[i].start, c[i].size, 0, c[i].name, 0, (uint32_t)i };
	free(c);
	if (set_syms(d, e, n) < 0)
		return false;
	d->no_dwarf = true;
	d->state = DSO_READY;
	d->s->st.dsos_captured++;
	return true;
}

int symbolizer_add_symtab(struct symbolizer *s, const uint8_t *id, size_t len,
			  const uint8_t *digest, unsigned part, unsigned n_parts, uint32_t n,
			  const void *run, size_t size)
{
	int rc = captab_add(s->captured, id, len, digest, part, n_parts, n, run, size);

	return rc < 0 ? rc : 0;
}

int symbolizer_add_symbols_dir(struct symbolizer *s, const char *dir)
{
	for (size_t i = 0; i < s->n_symbols_dirs; i++)
		if (strcmp(s->symbols_dirs[i], dir) == 0)
			return 0;
	if (s->n_symbols_dirs == SYMBOLIZER_SYMBOLS_DIRS_MAX)
		return -E2BIG;
	s->symbols_dirs[s->n_symbols_dirs] = strdup(dir);
	if (!s->symbols_dirs[s->n_symbols_dirs])
		return -ENOMEM;
	s->n_symbols_dirs++;
	return 0;
}

/*
 * Is FILE (open at FD), found for D, what the recording says the file held: the digest the
 * helper computed of the recorded file (lib/elf/elfdigest.c) against this one's? A file that
 * only claims the build-id (forged), or was stripped or rebuilt since, has another. True
 * when there is nothing to compare: no digest recorded (before format 2.4), or a separate
 * debug file (.build-id/xx/yyyy.debug), whose sections differ from the binary's by design.
 */
static bool disk_matches(const struct sym_dso *d, int fd, const char *file)
{
	uint8_t sha[SHA256_LEN];
	size_t n = strlen(file);

	if (!d->has_digest || !d->build_id_len)
		return true;
	if (strstr(file, "/.build-id/") && n > 6 && strcmp(file + n - 6, ".debug") == 0)
		return true;
	if (elfdigest_fd(fd, sha) < 0)
		return true; /* not ELF: libdw's refusal says so */
	return memcmp(sha, d->digest, RP_DIGEST_LEN) == 0;
}

/* FILE has D's build-id but not the recorded contents: the symbols captured for what was
 * recorded name D when the recording (or a symbols directory) has them, else nothing does;
 * one warning names the file either way. */
static void dso_not_as_recorded(struct sym_dso *d, const char *file)
{
	char hex[2 * BUILD_ID_MAX + 1];

	buildid_to_hex(d->build_id, d->build_id_len, hex);
	if (dso_open_captured(d))
		warnf(d->s,
		      "%s: not the file recorded under build-id %s (its symbols or unwind "
		      "sections differ: rebuilt, stripped or forged); its frames are named from the "
		      "symbols captured at record time",
		      file, hex);
	else
		warnf(d->s,
		      "%s: not the file recorded under build-id %s (its symbols or unwind "
		      "sections differ: rebuilt, stripped or forged) and no symbols were captured "
		      "for that one; its frames are shown as [unknown]",
		      file, hex);
}

static void dso_open(struct sym_dso *d)
{
	struct symbolizer *s = d->s;
	struct symfile_id id = { d->path,	  d->alt, d->n_alt, d->build_id,
				 d->build_id_len, d->maj, d->min,   d->ino };
	char *file = NULL, warn[1024];
	void **ud = NULL;
	GElf_Addr bias;
	int fd;
	Elf *elf;

	d->state = DSO_UNUSABLE;
	if (d->path[0] != '/') {
		/* [vdso] from the image the recording carries; //anon, [heap]...: not files. */
		fd = image_fd(s, d->path);
		if (fd < 0 || !(file = strdup(d->path))) {
			if (fd >= 0)
				close(fd);
			return;
		}
	} else {
		fd = symfile_open(s->symfs, &id, &file, warn, sizeof(warn));
		if (fd < 0 && dso_open_captured(d))
			return; /* the header says how many objects were named this way */
		if (fd >= 0 && !disk_matches(d, fd, file)) {
			close(fd);
			dso_not_as_recorded(d, file);
			free(file);
			return;
		}
		if (warn[0])
			warnf(s, "%s", warn);
		if (fd < 0)
			return;
		/* libdwfl reads a file's own DWARF (built with -gz; a debug file standing for a
		 * missing binary) before it looks for a separate one. */
		fd = inflated(s, fd);
	}

	d->dwfl = dwfl_begin(&s->cb);
	if (!d->dwfl) {
		warnf(s, "%s: %s; its frames are shown as [unknown]", d->path, dwfl_why());
		close(fd);
		free(file);
		return;
	}
	dwfl_report_begin(d->dwfl);
	/* Base 0: module addresses are the ELF's own virtual addresses (bias 0). */
	d->mod = dwfl_report_elf(d->dwfl, d->path, file, fd, 0, true);
	if (!d->mod) {
		warnf(s, "%s: not a usable ELF file (%s); its frames are shown as [unknown]", file,
		      dwfl_why());
		close(fd);
		free(file);
		return;
	}
	free(file);
	dwfl_report_end(d->dwfl, NULL, NULL);
	dwfl_module_info(d->mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	if (ud)
		*ud = d;

	elf = dwfl_module_getelf(d->mod, &bias);
	if (!elf || read_loads(d, elf) < 0) {
		warnf(s, "%s: unreadable program headers (%s); its frames are shown as [unknown]",
		      d->path, elf ? "bad PT_LOAD table" : dwfl_why());
		return;
	}
	d->bias = bias;
	if (!d->n_loads) {
		warnf(s, "%s: no loadable segments; its frames are shown as [unknown]", d->path);
		return;
	}
	if (read_symbols(d) < 0) {
		warnf(s, "%s: out of memory; its frames are shown as [unknown]", d->path);
		return;
	}
	d->state = DSO_READY;
	s->st.dsos_opened++;
}

/* ---- lookups ---- */

/* File offset -> module address through the PT_LOAD table; false outside every segment. */
static bool off_to_addr(const struct sym_dso *d, uint64_t off, uint64_t *ret)
{
	for (size_t i = 0; i < d->n_loads; i++) {
		const struct load *l = &d->loads[i];

		if (off >= l->off && off - l->off < l->filesz) {
			*ret = off - l->off + l->vaddr + d->bias;
			return true;
		}
	}
	return false;
}

static const struct sym *sym_find(const struct sym_dso *d, uint64_t addr)
{
	size_t lo = util_count_le(d->starts, d->n_syms, addr);

	/* The closest start first; older ones only while one of them might still reach. */
	while (lo > 0 && d->syms[lo - 1].max_end > addr) {
		if (d->syms[lo - 1].end > addr)
			return &d->syms[lo - 1];
		lo--;
	}
	return NULL;
}

/* DW_AT_linkage_name when there is one (it matches the symbol tables), else DW_AT_name. */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n;

	n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
	if (!n)
		n = dwarf_diename(die);
	return n;
}

static uint64_t die_offset(Dwarf_Die *die, uint64_t dwaddr)
{
	Dwarf_Addr entry;

	if (dwarf_entrypc(die, &entry) == 0 && dwaddr >= entry)
		return dwaddr - entry;
	return 0;
}

/* FILE as DWARF names it, made absolute with the compilation directory COMP_DIR when it is
 * relative (a build from a subdirectory names "../src/x.c"), interned; NULL for a NULL FILE. */
static const char *src_path(struct symbolizer *s, const char *file, const char *comp_dir)
{
	char buf[4096];

	if (!file)
		return NULL;
	if (file[0] == '/' || !comp_dir || !comp_dir[0] ||
	    (size_t)snprintf(buf, sizeof(buf), "%s/%s", comp_dir, file) >= sizeof(buf))
		return intern(s, file);
	return intern(s, buf);
}

/*
 * The inline chain at ADDR, as eu-addr2line -i finds it: the innermost DWARF scope at the
 * address, then its physical parents (dwarf_getscopes_die, not the abstract origin's
 * scopes). Each DW_TAG_inlined_subroutine is a frame located at the line of the code inside
 * it; its DW_AT_call_file/line locate the next frame out, up to the DW_TAG_subprogram, which
 * takes the symbol table's name when there is one (as lookups without inline frames do).
 * Returns the number of frames written to OUT (0 when DWARF says nothing here).
 */
static int inline_chain(struct symbolizer *s, struct sym_dso *d, uint64_t addr,
			const struct sym *sym, struct sym_frame *out)
{
	Dwarf_Die *scopes = NULL, *chain = NULL, cu, here[INLINE_MAX];
	Dwarf_Files *files = NULL;
	Dwarf_Addr bias = 0;
	Dwfl_Line *ln;
	const char *file = NULL;
	int line = 0, n, nf = 0;
	Dwarf_Die *cudie;
	Dwarf_Attribute cda;
	const char *comp_dir;

	if (d->no_dwarf)
		return 0;
	cudie = dwfl_module_addrdie(d->mod, addr, &bias);
	if (!cudie) {
		/* No DWARF at all (rather than none for this address): stop asking. */
		d->no_dwarf = !dwfl_module_getdwarf(d->mod, &bias);
		return 0;
	}
	comp_dir = dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &cda));
	if (!d->scopes)
		d->scopes = dwscopes_new();
	n = d->scopes ? dwscopes_chain(d->scopes, cudie, addr - bias, here, INLINE_MAX) : -1;
	if (n >= 0) {
		chain = here;
	} else { /* a unit too large to index: libdw's walk */
		n = dwarf_getscopes(cudie, addr - bias, &scopes);
		if (n <= 0)
			goto out;
		n = dwarf_getscopes_die(&scopes[0], &chain);
	}
	if (n <= 0)
		goto out;
	if (dwarf_diecu(&chain[0], &cu, NULL, NULL))
		dwarf_getsrcfiles(&cu, &files, NULL);
	ln = dwfl_module_getsrc(d->mod, addr);
	if (ln)
		file = dwfl_lineinfo(ln, NULL, &line, NULL, NULL, NULL);

	for (int i = 0; i < n && nf < INLINE_MAX; i++) {
		int tag = dwarf_tag(&chain[i]);
		struct sym_frame *f = &out[nf];
		Dwarf_Attribute a;
		Dwarf_Word v;

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		f->file = src_path(s, file, comp_dir);
		f->line = file ? line : 0;
		if (tag == DW_TAG_subprogram) {
			f->inlined = false;
			if (sym) {
				set_name(s, f, sym->name);
				f->offset = addr - sym->start;
			} else {
				set_name(s, f, die_name(&chain[i]));
				f->offset = die_offset(&chain[i], addr - bias);
			}
			nf++;
			break;
		}
		f->inlined = true;
		set_name(s, f, die_name(&chain[i]));
		f->offset = die_offset(&chain[i], addr - bias);
		nf++;
		/* Where this expansion sits in its caller: the next frame's location. */
		file = NULL;
		line = 0;
		if (files && dwarf_formudata(dwarf_attr(&chain[i], DW_AT_call_file, &a), &v) == 0)
			file = dwarf_filesrc(files, v, NULL, NULL);
		if (dwarf_formudata(dwarf_attr(&chain[i], DW_AT_call_line, &a), &v) == 0)
			line = (int)v;
	}
	/* No DW_TAG_subprogram above the inlines (or DWARF without scopes): the symbol's frame. */
	if (nf > 0 && out[nf - 1].inlined && nf < INLINE_MAX && sym) {
		out[nf] = (struct sym_frame){ NULL,
					      addr - sym->start,
					      src_path(s, file, comp_dir),
					      file ? line : 0,
					      false,
					      NULL,
					      NULL,
					      0 };
		set_name(s, &out[nf], sym->name);
		nf++;
	}
out:
	if (chain != here)
		free(chain);
	free(scopes);
	return nf;
}

static int cache_grow(struct sym_dso *d)
{
	size_t cap = d->cache_cap ? d->cache_cap * 2 : 256;
	struct cache_ent *n = calloc(cap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < d->cache_cap; i++) {
		size_t j;

		if (!d->cache[i].n)
			continue;
		for (j = hash_u64(d->cache[i].off) & (cap - 1); n[j].n; j = (j + 1) & (cap - 1))
			;
		n[j] = d->cache[i];
	}
	free(d->cache);
	d->cache = n;
	d->cache_cap = cap;
	return 0;
}

/* opts.lines without inline frames: the chain at ADDR collapsed into OUT[0], named from the
 * symbol table; file:line the innermost location, fn_file:fn_line the outermost frame's. */
static void line_only(struct symbolizer *s, struct sym_dso *d, uint64_t addr, const struct sym *sym,
		      struct sym_frame *out)
{
	struct sym_frame chain[INLINE_MAX];
	/* The scopes cost the CU's DIEs: only when fn_file is asked for (pprof); the line table
	 * alone gives the innermost location. */
	int n = s->o.fn_lines ? inline_chain(s, d, addr, sym, chain) : 0;

	if (n == 0 && !d->no_dwarf) {
		/* No scopes here (assembly, a CU without DIEs): the line table alone. */
		Dwfl_Line *ln = dwfl_module_getsrc(d->mod, addr);
		const char *file =
		    ln ? dwfl_lineinfo(ln, NULL, &out->line, NULL, NULL, NULL) : NULL;

		out->file = src_path(s, file, ln ? dwfl_line_comp_dir(ln) : NULL);
		out->line = out->file ? out->line : 0;
		out->fn_file = s->o.fn_lines ? out->file : NULL;
		out->fn_line = s->o.fn_lines ? out->line : 0;
		return;
	}
	if (n == 0)
		return;
	out->file = chain[0].file;
	out->line = chain[0].file ? chain[0].line : 0;
	out->fn_file = chain[n - 1].file;
	out->fn_line = chain[n - 1].file ? chain[n - 1].line : 0;
}

/* Compute the frames for OFF into OUT, with opts.lines' line when LINES; returns their number
 * (>= 1). */
static int compute(struct symbolizer *s, struct sym_dso *d, uint64_t off, struct sym_frame *out,
		   bool lines)
{
	const struct sym *sym = NULL;
	uint64_t addr;
	int n = 0;

	out[0] = (struct sym_frame){ 0 };
	if (!off_to_addr(d, off, &addr))
		return 1;
	sym = sym_find(d, addr);
	if (s->o.inline_frames)
		n = inline_chain(s, d, addr, sym, out);
	if (n == 0 && sym) {
		set_name(s, &out[0], sym->name);
		out[0].offset = out[0].name ? addr - sym->start : 0;
		if (s->o.inline_frames && !d->no_dwarf) {
			Dwfl_Line *ln = dwfl_module_getsrc(d->mod, addr);
			const char *file = NULL;

			if (ln)
				file = dwfl_lineinfo(ln, NULL, &out[0].line, NULL, NULL, NULL);

			out[0].file = src_path(s, file, ln ? dwfl_line_comp_dir(ln) : NULL);
			if (!out[0].file)
				out[0].line = 0;
		}
	}
	if (lines && s->o.lines && !s->o.inline_frames)
		line_only(s, d, addr, sym, &out[0]);
	return n ? n : 1;
}

bool symbolizer_has_lines(struct symbolizer *s, struct sym_dso *d)
{
	Dwarf_Addr bias;

	(void)s;
	if (d->state == DSO_NEW)
		dso_open(d);
	if (d->state != DSO_READY || !d->mod)
		return false;
	if (!d->has_dwarf)
		d->has_dwarf = dwfl_module_getdwarf(d->mod, &bias) ? 2 : 1;
	return d->has_dwarf == 2;
}

static int copy_out(const struct sym_dso *d, const struct cache_ent *e, struct sym_frame *frames,
		    int max)
{
	int n = (int)e->n < max ? (int)e->n : max;

	if (e->first == FRAME_HERE) {
		frames[0] =
		    (struct sym_frame){ e->name, e->offset, NULL, 0, false, e->raw, NULL, 0 };
		return 1;
	}
	memcpy(frames, d->frames + e->first, (size_t)n * sizeof(*frames));
	return n;
}

int symbolizer_unwind_info(struct symbolizer *s, struct sym_dso *d)
{
	GElf_Addr bias;
	Elf *elf;
	unsigned f;

	(void)s;
	if (d->state == DSO_NEW)
		dso_open(d);
	if (d->state != DSO_READY || !d->mod)
		return -ENOENT;
	elf = dwfl_module_getelf(d->mod, &bias);
	if (!elf)
		return -ENOENT;
	f = elfsym_unwind_info(elf);
	return (f & ELFSYM_EH_FRAME ? SYMBOLIZER_EH_FRAME : 0) |
	       (f & ELFSYM_DEBUG_FRAME ? SYMBOLIZER_DEBUG_FRAME : 0) |
	       (f & ELFSYM_GO ? SYMBOLIZER_GO : 0) |
	       (f & ELFSYM_FRAME_POINTERS ? SYMBOLIZER_FRAME_POINTERS : 0);
}

int symbolizer_eh_covers(struct symbolizer *s, struct sym_dso *d, uint64_t off)
{
	Dwarf_Frame *frame = NULL;
	Dwarf_Addr bias = 0;
	Dwarf_CFI *cfi;
	uint64_t addr;
	int rc;

	(void)s;
	if (d->state == DSO_NEW)
		dso_open(d);
	if (d->state != DSO_READY || !d->mod || !off_to_addr(d, off, &addr) ||
	    !(cfi = dwfl_module_eh_cfi(d->mod, &bias)))
		return -ENOENT;
	rc = dwarf_cfi_addrframe(cfi, addr - bias, &frame) == 0;
	free(frame);
	return rc;
}

/* symbolizer_lookup(), with opts.lines' line only when LINES. */
static int lookup(struct symbolizer *s, struct sym_dso *d, uint64_t off, struct sym_frame *frames,
		  int max, bool lines)
{
	struct sym_frame tmp[INLINE_MAX];
	struct cache_ent *e = NULL;
	bool fresh = false;
	size_t mask, i;
	int n;

	if (!s || !d || !frames || max < 1)
		return -EINVAL;
	s->st.lookups++;
	if (d->state == DSO_NEW)
		dso_open(d);
	if (d->state != DSO_READY) {
		frames[0] = (struct sym_frame){ 0 };
		return 1;
	}

	if (d->cache_cap) {
		mask = d->cache_cap - 1;
		for (i = hash_u64(off) & mask; d->cache[i].n; i = (i + 1) & mask) {
			if (d->cache[i].off != off)
				continue;
			if (!d->cache[i].no_lines || !lines || !s->o.lines) {
				s->st.cache_hits++;
				return copy_out(d, &d->cache[i], frames, max);
			}
			e = &d->cache[i]; /* computed without the line: again, with it */
			break;
		}
	}

	n = compute(s, d, off, tmp, lines);
	if (!e) {
		if (2 * (d->cache_n + 1) > d->cache_cap && cache_grow(d) < 0)
			goto uncached;
		mask = d->cache_cap - 1;
		for (i = hash_u64(off) & mask; d->cache[i].n; i = (i + 1) & mask)
			;
		e = &d->cache[i];
		fresh = true;
	}
	if (n == 1 && !tmp[0].file && !tmp[0].fn_file && !tmp[0].inlined) {
		*e = (struct cache_ent){ off, tmp[0].name, tmp[0].offset, FRAME_HERE,
					 1,   tmp[0].raw,  false };
	} else {
		if (d->n_frames + (size_t)n >= FRAME_HERE ||
		    GROW(d->frames, d->frames_cap, d->n_frames + (size_t)n) < 0)
			goto uncached;
		memcpy(d->frames + d->n_frames, tmp, (size_t)n * sizeof(*tmp));
		*e = (struct cache_ent){ off,	      NULL, 0,	  (uint32_t)d->n_frames,
					 (uint32_t)n, NULL, false };
		d->n_frames += (size_t)n;
	}
	d->cache_n += fresh;
	e->no_lines = !lines && s->o.lines;
	return copy_out(d, e, frames, max);

uncached:
	n = n < max ? n : max;
	memcpy(frames, tmp, (size_t)n * sizeof(*tmp));
	return n;
}

int symbolizer_lookup(struct symbolizer *s, struct sym_dso *d, uint64_t off,
		      struct sym_frame *frames, int max)
{
	return lookup(s, d, off, frames, max, true);
}

int symbolizer_lookup_name(struct symbolizer *s, struct sym_dso *d, uint64_t off,
			   struct sym_frame *frames, int max)
{
	return lookup(s, d, off, frames, max, false);
}

void sym_dso_identity(const struct sym_dso *d, struct symfile_id *ret)
{
	*ret = (struct symfile_id){ d->path,	     d->alt, d->n_alt, d->build_id,
				    d->build_id_len, d->maj, d->min,   d->ino };
}
