/* util.h — small shared helpers: clocks, number parsing, byte formatting, strings. */
#ifndef RP_UTIL_H
#define RP_UTIL_H

#include <stddef.h>
#include <stdint.h>

#define NSEC_PER_SEC 1000000000ull

uint64_t util_now_ns(void);	       /* CLOCK_MONOTONIC */
int64_t util_realtime_offset_ns(void); /* CLOCK_REALTIME - CLOCK_MONOTONIC */
/* Conversions with a recording's realtime offset, saturated instead of overflowing: the
 * offset and the times come from a file and can be anything. */
int64_t util_wall_ns(uint64_t mono, int64_t offset); /* mono + offset */
uint64_t util_mono_ns(int64_t wall, int64_t offset); /* wall - offset, at least 0 */

/* Whole-string decimal parsing; 0 or -EINVAL / -ERANGE. */
int util_parse_u64(const char *s, uint64_t *ret);
int util_parse_seconds(const char *s, uint64_t *ret_ns); /* "2", "0.5", "1.25" */
int util_parse_percent(const char *s, double *ret);	 /* 0..100, "0.5" or "0.5%" */
/* A non-negative decimal with an optional fraction, then spaces; *end points past them (at
 * the unit, if any). 0 or -EINVAL. */
int util_parse_decimal(const char *s, double *ret, const char **end);
/* A byte count: a number (fractions allowed) and an optional unit B, K, M, G or T, also as
 * KB or KiB, in any case; K is 1024. */
int util_parse_size(const char *s, uint64_t *ret);

/* A point in wall-clock time (CLOCK_REALTIME ns) from "YYYY-MM-DD HH:MM[:SS[.frac]]",
 * "HH:MM[:SS]" (today, local time), "+DUR" (after start) or "-DUR" (before end), where DUR is
 * a number with an optional unit ms, s, min, h or d (seconds by default).
 * 0, or -EINVAL. */
int util_parse_when(const char *s, int64_t start, int64_t end, int64_t *ret);

/* "12.3 KiB", "4.0 MiB"... into buf. */
const char *util_format_bytes(uint64_t n, char *buf, size_t size);

/* "PREFIX ARG1 ARG2 ..." (argv[1..argc-1]) in a new string, for headers and logs; NULL on ENOMEM. */
char *util_join_args(const char *prefix, int argc, char **argv);

/* Copy a string into a fixed array, always terminating it. */
void util_strlcpy(char *dst, const char *src, size_t size);
/* Create directory path with mode, and its missing parents with parent_mode. 0 (also when it
 * exists), or -errno. */
int util_mkdir_p(const char *path, unsigned mode, unsigned parent_mode);

/* How many of the n ascending values of a are <= key: the index after the last one at or
 * below key (so the one at or below is that minus 1, when it is not 0). */
size_t util_count_le(const uint64_t *a, size_t n, uint64_t key);
/* qsort()'s comparison of two uint64_t. */
int util_cmp_u64(const void *a, const void *b);

/* Format a message and hand it to warn(arg, msg) when warn is set: how lib/ tells the program
 * about a problem it has worked around (the program decides how to print it). */
void util_warnf(void (*warn)(void *arg, const char *msg), void *arg, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* a + b, or UINT64_MAX when that does not fit (counts read from damaged files). */
static inline uint64_t util_sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

#endif
