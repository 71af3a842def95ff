/* synth.h — records for what already existed when recording began: processes, threads,
 * their executable mappings (from /proc) and the kernel symbol table. */
#ifndef RP_SYNTH_H
#define RP_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct writer;

struct synth_stats {
	size_t processes, threads, maps;
	size_t vanished;    /* processes that exited while being read (normal) */
	size_t unreadable;  /* processes whose maps could not be read (permissions) */
	size_t build_ids;   /* MMAP2 records that got a build-id */
	size_t ksyms;       /* kernel symbols stored */
};

/* Shared state: the build-id cache and the record layout. */
struct synth {
	struct writer *w;
	uint64_t sample_type;
	uint64_t time;       /* timestamp given to every synthesized record */
	struct synth_stats st;
	struct synth_bid *cache;
	size_t n_cache, cap_cache;
	void (*tick)(void *arg); /* called between processes, e.g. to drain rings; may be NULL */
	void *tick_arg;
};

void synth_init(struct synth *s, struct writer *w, uint64_t sample_type, uint64_t time);
void synth_done(struct synth *s);

/* COMM for each thread and MMAP2 for each executable mapping of pid. -ESRCH when the
 * process is gone; other per-process failures are counted, not returned. */
int synth_process(struct synth *s, pid_t pid);
/* Every process on the system. */
int synth_all(struct synth *s);

/* The text symbols of a kallsyms file as ready-made RP_REC_KSYMS records, read ahead of time
 * (reading takes long enough to matter once events are enabled). */
struct synth_ksyms {
	unsigned char *data; /* records, 8-byte aligned; owned */
	size_t len;
	size_t n;            /* symbols */
	uint64_t *addrs;     /* the n addresses, ascending */
	uint32_t *offs;      /* where symbol i's entry is in data */
};
/* 0, or -errno from reading path; *ret is empty when addresses are hidden from us
 * (kernel.kptr_restrict without CAP_SYSLOG). */
int synth_ksyms_read(const char *path, struct synth_ksyms *ret);
/* Append the records to the writer with time set to s->time. */
void synth_ksyms_write(struct synth *s, const struct synth_ksyms *k);
void synth_ksyms_free(struct synth_ksyms *k);

/* The symbol that contains addr (the last one starting at or below it), or -1. Symbols at
 * equal addresses are next to each other. */
int64_t synth_ksyms_find(const struct synth_ksyms *k, uint64_t addr);
/* Symbol i in the RP_REC_KSYMS entry encoding: *len bytes. */
const unsigned char *synth_ksyms_entry(const struct synth_ksyms *k, size_t i, size_t *len);

#endif
