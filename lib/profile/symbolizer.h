/* symbolizer.h — user-space symbols for file offsets of recorded binaries (the libdw adapter). */
#ifndef RP_SYMBOLIZER_H
#define RP_SYMBOLIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * One symbolizer per report run. It owns every dso handle and every string it hands out:
 * all stay valid until symbolizer_free(). Not thread-safe. This is the only module that
 * talks to libdw/libdwfl/libelf; their errors never reach the caller, problems with a file
 * are reported once per dso through opts.warn and its frames come back unknown.
 */
struct symbolizer;
struct sym_dso;

struct sym_frame {
	const char *name; /* interned, owned by the symbolizer; NULL = unknown */
	uint64_t offset;  /* address - symbol (or inline instance entry) start, 0 if unknown */
	const char *file; /* source file (interned) when inline_frames found DWARF, else NULL */
	int line;	  /* 0 if unknown */
	bool inlined;	  /* an inline frame (all but the outermost of an expansion) */
	const char *raw;  /* the name as in the symbol table or DWARF (C++ mangled), interned;
			   * NULL when name is */
	/* opts.fn_lines without opts.inline_frames: where the address sits in the real function
	 * itself (the call site of the inline expansion holding it, else file:line), while
	 * file:line is the line table's, the innermost inlined location. NULL/0 otherwise. */
	const char *fn_file;
	int fn_line;
};

/*
 * Options, copied by symbolizer_new(). Ownership of the pointers: symfs is copied (the
 * caller's string may go right after symbolizer_new()); warn may be NULL (no messages);
 * warn_arg is borrowed, handed back to warn untouched, and must stay valid until
 * symbolizer_free(); the MSG given to warn is valid only during the call.
 */
struct symbolizer_opts {
	const char *symfs;	/* NULL or a directory: binaries and debug files are looked up
				 * under it first (symfs + path, symfs/usr/lib/debug); copied */
	bool inline_frames;	/* expand inline frames from DWARF (and give file:line) */
	bool lines;		/* file:line from the line table without inline frames too */
	bool fn_lines;		/* with lines: fn_file:fn_line too (DWARF scopes, dearer) */
	bool no_demangle;	/* names as in the symbol table: C++ and Rust left mangled */
	bool debuginfod;	/* allow debuginfod for separate debug info */
	int debuginfod_timeout; /* seconds, > 0 to set; used only with debuginfod */
	bool no_debug_cache;	/* read compressed debug files as they are, never through the
				 * per-user cache of inflated ones (elf/debugcache.h) */
	void (*warn)(void *arg, const char *msg); /* once-per-problem messages, no newline */
	void *warn_arg; /* borrowed: passed to warn, must outlive the symbolizer */
};

/*
 * A new symbolizer, or NULL when out of memory. O is copied (symfs too); NULL means all
 * defaults. Process-wide side effects, because libdwfl reads them from the environment:
 * without o->debuginfod, DEBUGINFOD_URLS is removed from the environment (unsetenv) so no
 * lookup ever contacts a server; with it, DEBUGINFOD_TIMEOUT is set from
 * o->debuginfod_timeout when that is > 0.
 */
struct symbolizer *symbolizer_new(const struct symbolizer_opts *o);

/* Frees S, its dsos and all strings it handed out; accepts NULL; returns NULL. */
struct symbolizer *symbolizer_free(struct symbolizer *s);

/* Whether S reads compressed debug files through the per-user cache of inflated ones (not
 * turned off by no_debug_cache, and a cache directory is known). */
bool symbolizer_debug_cache(const struct symbolizer *s);

/*
 * The handle of a user-space file as the recording identifies it: one per build-id when
 * BUILD_ID_LEN > 0 (then maj/min/ino are ignored), else one per path+maj+min+ino. Asking
 * again for the same identity returns the same handle; a known build-id met under another
 * path before the handle's first lookup adds that path as a place to look for the file
 * (containers, hard links; up to 4). Never fails: a file that cannot be used (or out of
 * memory) gives a handle whose lookups return unknown. The file is opened lazily, on the
 * first lookup: SYMFS + path, then path, then (with a build-id) a file of that build-id in
 * SYMFS/usr/lib/debug/.build-id and /usr/lib/debug/.build-id. A file whose build-id differs
 * from the recorded one is never used for names, nor, without a build-id, a file on the
 * recorded device MAJ:MIN whose inode is not INO (replaced since the recording). Paths that
 * do not start with '/' ("[vdso]", "//anon") are not files: their lookups return unknown
 * without a warning, unless the recording carried the image (symbolizer_add_image()).
 */
struct sym_dso *symbolizer_dso(struct symbolizer *s, const char *path, const uint8_t *build_id,
			       size_t build_id_len, uint32_t maj, uint32_t min, uint64_t ino);

/*
 * The build-id of the file with inode INO on device MAJ:MIN, learned after handles of it were
 * made without one (RP_REC_BUILDID: the recorder reads build-ids in user space and writes them
 * when they are known). Handles of that file not opened yet take it, so that a file whose
 * build-id differs is refused as with a recorded one, and handles asked for with this build-id
 * find them; so do handles opened already (ringprof script and top symbolize as they read)
 * whose file has that build-id, so that the file stays one object. A handle opened from a
 * file with another build-id keeps none: later mappings get a handle of their own. DIGEST
 * (RP_DIGEST_LEN bytes, NULL when the recording has none) is what the file held: the symbols
 * captured for that build-id and digest name it (symbolizer_add_symtab()).
 */
void symbolizer_learn_build_id(struct symbolizer *s, uint32_t maj, uint32_t min, uint64_t ino,
			       const uint8_t *id, size_t len, const uint8_t *digest);
/* What the file of handle D held when it was recorded (RP_DIGEST_LEN bytes: its captured
 * symbols' key), when the recording says so; the first one given holds. */
void sym_dso_set_digest(struct sym_dso *d, const uint8_t *digest);

/*
 * A code image the recording carries because no file holds it (RP_REC_IMAGE: "[vdso]"): the
 * handle of that path reads it as its file. The first image of each name is kept (at most
 * SYMBOLIZER_IMAGES_MAX names). 0, or -errno (-E2BIG: too many names or too long a one).
 */
#define SYMBOLIZER_IMAGES_MAX 4
int symbolizer_add_image(struct symbolizer *s, const char *name, const void *image, size_t len);

/*
 * Part PART of N_PARTS of the function symbols captured at record time for build-id ID and
 * DIGEST (NULL before format 2.4) (RP_REC_SYMTAB_D, RP_REC_SYMTAB: N entries in RUN, SIZE
 * bytes, a base/symx.h run; copied, each entry checked when used). A handle of that build-id
 * and digest whose file cannot be used (missing on this host, or
 * with another build-id) takes its names from them (no inline frames, no lines). A file on
 * disk with that build-id is preferred only when it holds what was recorded: when the
 * recording gives the digest (sym_dso_set_digest(), symbolizer_learn_build_id()) the file's
 * own is computed (lib/elf/elfdigest.c, as the helper does) and must match; a file with
 * another digest (forged, rebuilt or stripped since) is not used: the symbols captured for
 * the recorded digest name the handle, else its frames are unknown, with one warning naming
 * the file either way. A separate debug file found by build-id is not compared (its sections
 * differ by design). A part already given is ignored. 0 or -errno.
 */
int symbolizer_add_symtab(struct symbolizer *s, const uint8_t *id, size_t len,
			  const uint8_t *digest, unsigned part, unsigned n_parts, uint32_t n,
			  const void *run, size_t size);

/* A directory of captured symbol tables, one file per build-id and digest
 * (DIR/BUILD-ID-DIGEST.sym, or DIR/BUILD-ID.sym before format 2.4, as ringprofd keeps them
 * beside its recordings): looked in, in the order given, for a handle whose file
 * cannot be used when the recordings carry no table of its own. DIR is copied. 0, -E2BIG
 * (more than SYMBOLIZER_SYMBOLS_DIRS_MAX) or -ENOMEM. */
#define SYMBOLIZER_SYMBOLS_DIRS_MAX 8
int symbolizer_add_symbols_dir(struct symbolizer *s, const char *dir);

/* Short name for reports: the path's last component ("libc.so.6"), or the path itself. */
const char *sym_dso_name(const struct sym_dso *d);
/* The path as recorded (the first one given for this identity). */
const char *sym_dso_path(const struct sym_dso *d);
/* The build-id it was asked for with (borrowed, *ret_len bytes; NULL and 0 without one). */
const uint8_t *sym_dso_build_id(const struct sym_dso *d, size_t *ret_len);

/* The frames of one address a stack shows at most (its inline chain): what the report's
 * stacks, --pprof and the session ask symbolizer_lookup() for. */
#define SYM_INLINE_MAX 16

/*
 * Frames for the code at file offset OFF of D (the caller has already applied the
 * return-address - 1 rule). The offset is mapped to an ELF address through the PT_LOAD
 * segments, then to the symbol containing it (.symtab, separate debuginfo found by build-id
 * or .gnu_debuglink, else .dynsym).
 * Names are demangled (C++, Rust legacy and v0, as perf shows them: demangle.h) unless
 * opts.no_demangle; each symbol is demangled once.
 * Writes up to MAX frames, innermost first, and returns how many (>= 1): exactly one
 * without opts.inline_frames; with it, the inline chain — innermost inlined function first
 * (inlined = true, file:line of the address), the containing real function last
 * (inlined = false, file:line of the call site of the inline expansion it contains). A
 * chain longer than MAX loses its outer frames. frames[0].name is NULL when unknown.
 * With opts.lines alone, the one frame has the address's file:line from the line table and
 * fn_file:fn_line; a frame without line information has file NULL and line 0.
 * Each (D, OFF) is computed once; later lookups are a hash hit. Returns -EINVAL when an
 * argument is NULL or MAX < 1.
 */
int symbolizer_lookup(struct symbolizer *s, struct sym_dso *d, uint64_t off,
		      struct sym_frame *frames, int max);
/* The same without opts.lines' line (file NULL, unless the inline frames give it): the line
 * table is not read for it (a compressed debug section is not inflated for a frame whose line
 * nobody shows). A later symbolizer_lookup() of the same offset computes the line then. */
int symbolizer_lookup_name(struct symbolizer *s, struct sym_dso *d, uint64_t off,
			   struct sym_frame *frames, int max);

/* Whether D's file (or its separate debug file) has DWARF to give lines from, opening it if
 * not done yet: false for a stripped file without debug info, or a file that cannot be used. */
bool symbolizer_has_lines(struct symbolizer *s, struct sym_dso *d);

/*
 * What D's file has for unwinding (opening it if not done yet), as flags: SYMBOLIZER_EH_FRAME,
 * SYMBOLIZER_DEBUG_FRAME, SYMBOLIZER_GO (Go, which keeps frame pointers),
 * SYMBOLIZER_FRAME_POINTERS; -ENOENT when no
 * usable file was found (missing, another build, named from captured symbols).
 */
enum {
	SYMBOLIZER_EH_FRAME = 1 << 0,
	SYMBOLIZER_DEBUG_FRAME = 1 << 1,
	SYMBOLIZER_GO = 1 << 2,
	SYMBOLIZER_FRAME_POINTERS = 1 << 3, /* most functions set up a frame pointer (x86_64) */
};
int symbolizer_unwind_info(struct symbolizer *s, struct sym_dso *d);

/* Whether D's .eh_frame has a row for file offset OFF: 1 yes, 0 no, -ENOENT when it cannot say
 * (no usable file, OFF in no PT_LOAD, no .eh_frame). */
int symbolizer_eh_covers(struct symbolizer *s, struct sym_dso *d, uint64_t off);

/* Counters for --verbose output and tests, kept up to date as the symbolizer works. */
struct symbolizer_stats {
	uint64_t dsos;		/* handles created */
	uint64_t dsos_opened;	/* handles whose file was opened and usable */
	uint64_t dsos_captured; /* handles named from symbols captured at record time */
	uint64_t lookups;	/* symbolizer_lookup() calls that reached a dso */
	uint64_t cache_hits;	/* of which answered from the per-dso cache */
	uint64_t symbols;	/* symbols indexed, all opened dsos */
	uint64_t strings;	/* distinct interned strings */
};
/* S's counters, owned by S: they change with each call on S and go with symbolizer_free(). */
const struct symbolizer_stats *symbolizer_stats(const struct symbolizer *s);

/* The identity D was made with (borrowed, valid until symbolizer_free()), for another reader
 * of its file that must open the same one with the same checks (annotate: profile/srcinfo.h). */
struct symfile_id;
void sym_dso_identity(const struct sym_dso *d, struct symfile_id *ret);

#endif
