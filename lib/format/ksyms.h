/* ksyms.h — the kernel's text symbols as ready-made KSYMS entries, with an address index:
 * read from kallsyms before recording, written whole or symbol by symbol as samples hit them. */
#ifndef RP_KSYMS_H
#define RP_KSYMS_H

#include <stddef.h>
#include <stdint.h>

struct writer;

/* Embedded in its owner: ksyms_read() fills it, ksyms_done() releases it. */
struct ksyms {
	unsigned char *data; /* KSYMS records, 8-byte aligned; owned */
	size_t len;
	size_t n;	 /* symbols */
	uint64_t *addrs; /* the n addresses, ascending */
	uint32_t *offs;	 /* where symbol i's entry is in data */
};

/* 0, or -errno from reading path (normally /proc/kallsyms); *ret is empty when addresses are
 * hidden from us (kernel.kptr_restrict without CAP_SYSLOG). Only code symbols are kept:
 * samples and return addresses never point into data. */
int ksyms_read(const char *path, struct ksyms *ret);
/* Release what ksyms_read() allocated and empty k (safe on an empty or released one). */
void ksyms_done(struct ksyms *k);

/* The symbol that contains addr (the last one starting at or below it), or -1. Symbols at
 * equal addresses are next to each other. */
int64_t ksyms_find(const struct ksyms *k, uint64_t addr);
/* Symbol i in the KSYMS entry encoding: *ret_len bytes, borrowed from k. */
const unsigned char *ksyms_entry(const struct ksyms *k, size_t i, size_t *ret_len);

/* Append every symbol to w as KSYMS records stamped time; returns the number of symbols. */
size_t ksyms_write_all(const struct ksyms *k, struct writer *w, uint64_t time);
/* Append symbols idx[0..n) to w as KSYMS records stamped time. An index with KSYMS_BOUND
 * set writes the symbol as a bound only (type RP_KSYM_BOUND): it ends the symbol before it. */
#define KSYMS_BOUND (1u << 31)
void ksyms_write_some(const struct ksyms *k, struct writer *w, uint64_t time, const uint32_t *idx,
		      size_t n);

#endif
