/* bids.h — build-ids of mapped files, read in user space so that the kernel is never asked for
 * them (attr.build_id: on Linux 5.12 and later that flag, set by one perf user, makes the
 * kernel mislabel other users' MMAP2 records; see README). For each file an executable MMAP2
 * record names by device and inode, the registry of mapped objects (objreg.h) has its one
 * unprivileged helper read the build-id note; the answer is written as an RP_REC_BUILDID record,
 * and the file's function symbols the helper extracted as RP_REC_SYMTAB records, once per recording
 * file and build-id. Nothing here parses ELF (the helper's symbol table is checked entry by entry),
 * and nothing blocks. */
#ifndef RP_BIDS_H
#define RP_BIDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

struct writer;

struct bids_stats {
	uint64_t files;	      /* distinct files seen in executable mappings */
	uint64_t read;	      /* build-ids the helper read */
	uint64_t none;	      /* files without a build-id note */
	uint64_t failed;      /* files that could not be opened or read, or with the helper gone */
	uint64_t written;     /* BUILDID records written (each file repeats the ones it uses) */
	uint64_t ns;	      /* helper time spent reading them */
	uint64_t sym_tables;  /* distinct build-ids whose symbols were captured */
	uint64_t sym_bytes;   /* bytes of those tables as the helper sent them */
	uint64_t sym_skipped; /* tables larger than the helper sends (UWP_MAX_SYMTAB) */
	uint64_t sym_failed;  /* tables refused (malformed) or over BIDS_SYMS_KEEP_MAX */
	uint64_t sym_written; /* tables written (each file repeats the ones it uses) */
};

/* The largest table stored in a recording (bytes as the helper sends them; zstd makes about
 * a third of it); larger ones are skipped, with an RP_SYMTAB_SKIPPED record. In the symbols
 * directory (bids_set_symbols_dir()), where each is stored once, up to UWP_MAX_SYMTAB. */
#define BIDS_SYMS_FILE_MAX (1u << 20)
/* The most bytes of symbol tables kept in memory to repeat in later files. */
#define BIDS_SYMS_KEEP_MAX (256u << 20)

struct bids;
struct objreg;

/* Build-id records for the files of REG (lib/capture/objreg.h), whose helper is asked for
 * each file's build-id and, with syms, its function symbols, written too. NULL when out of
 * memory. */
struct bids *bids_new(struct objreg *reg, bool syms);
struct bids *bids_free(struct bids *b);

/* Keep the symbol tables in DIR (created 0750 when missing) instead of in every recording:
 * one file per build-id and digest, DIR/BUILD-ID-DIGEST.sym (a recording holding only its
 * RP_REC_SYMTAB_D records; a file that copied another's build-id note has another digest),
 * written once and renamed into place; each recording file that uses it touches its mtime,
 * so a cleaner can delete the tables no kept recording used (ringprofd). 0 or -errno. */
int bids_set_symbols_dir(struct bids *b, const char *dir);

/* Records go to W from now on; a new file repeats the build-ids its mappings use. */
void bids_begin_file(struct bids *b, struct writer *w);

/* A side-band record drained from a ring or synthesized (others than MMAP2 are ignored).
 * An MMAP2 that carries its own build-id is left alone. */
void bids_side_band(struct bids *b, const struct perf_event_header *h, uint64_t sample_type);

/* The recording stopped at T: what is answered from now on belongs to it and is stamped T at
 * the latest. */
void bids_cap_time(struct bids *b, uint64_t t);

const struct bids_stats *bids_stats(const struct bids *b);

#endif
