/* util.c — small shared helpers used by the front-ends and lib core. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <strings.h>
#include <limits.h>
#include <sys/stat.h>

#include "base/util.h"

uint64_t util_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

int64_t util_realtime_offset_ns(void)
{
	struct timespec m1, rt, m2;
	int64_t best = 0, best_gap = INT64_MAX;

	/* Bracket the REALTIME read between two MONOTONIC reads; keep the tightest pair. */
	for (int i = 0; i < 5; i++) {
		clock_gettime(CLOCK_MONOTONIC, &m1);
		clock_gettime(CLOCK_REALTIME, &rt);
		clock_gettime(CLOCK_MONOTONIC, &m2);
		int64_t a = (int64_t)m1.tv_sec * (int64_t)NSEC_PER_SEC + m1.tv_nsec;
		int64_t b = (int64_t)m2.tv_sec * (int64_t)NSEC_PER_SEC + m2.tv_nsec;
		int64_t r = (int64_t)rt.tv_sec * (int64_t)NSEC_PER_SEC + rt.tv_nsec;

		if (b - a < best_gap) {
			best_gap = b - a;
			best = r - (a + (b - a) / 2);
		}
	}
	return best;
}

int64_t util_wall_ns(uint64_t mono, int64_t offset)
{
	int64_t ns;

	if (mono > INT64_MAX)
		mono = INT64_MAX;
	if (__builtin_add_overflow((int64_t)mono, offset, &ns))
		return INT64_MAX; /* mono >= 0: only a positive offset overflows */
	return ns;
}

uint64_t util_mono_ns(int64_t wall, int64_t offset)
{
	int64_t ns;

	if (__builtin_sub_overflow(wall, offset, &ns))
		return wall < 0 ? 0 : UINT64_MAX;
	return ns > 0 ? (uint64_t)ns : 0;
}

int util_parse_u64(const char *s, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -errno;
	if (*end)
		return -EINVAL;
	*ret = v;
	return 0;
}

int util_parse_seconds(const char *s, uint64_t *ret_ns)
{
	char *end;
	double v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || v < 0 || v > 1e9 || v != v)
		return -EINVAL;
	*ret_ns = (uint64_t)(v * 1e9 + 0.5);
	return 0;
}

int util_parse_decimal(const char *s, double *ret, const char **end)
{
	char *e;
	double v;

	if (!s || !(isdigit((unsigned char)*s) || *s == '.'))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &e);
	if (errno || e == s || !isfinite(v) || v < 0)
		return -EINVAL;
	while (*e == ' ')
		e++;
	*ret = v;
	*end = e;
	return 0;
}

int util_parse_size(const char *s, uint64_t *ret)
{
	static const char units[] = "BKMGT";
	const char *u, *end;
	double v;

	if (util_parse_decimal(s, &v, &end) < 0)
		return -EINVAL;
	if (*end) {
		/* B, K, KB, KiB, ... in any case: powers of 1024, as perf and systemd count. */
		u = strchr(units, toupper((unsigned char)*end));
		if (!u || !(end[1] == '\0' || (u > units && !strcasecmp(end + 1, "B")) ||
			    (u > units && !strcasecmp(end + 1, "iB"))))
			return -EINVAL;
		v *= (double)(1ull << (10 * (u - units)));
	}
	if (v >= 1.8e19)
		return -ERANGE;
	*ret = (uint64_t)(v + 0.5);
	return 0;
}

int util_parse_percent(const char *s, double *ret)
{
	char *end;
	double v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (*end == '%')
		end++;
	if (errno || *end || !(v >= 0 && v <= 100))
		return -EINVAL;
	*ret = v;
	return 0;
}

const char *util_format_bytes(uint64_t n, char *buf, size_t size)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n;
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%llu B", (unsigned long long)n);
	else
		snprintf(buf, size, "%.1f %s", v, unit[u]);
	return buf;
}

char *util_join_args(const char *prefix, int argc, char **argv)
{
	size_t len = strlen(prefix) + 1;
	char *s, *p;

	for (int i = 1; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	p = stpcpy(s, prefix);
	for (int i = 1; i < argc; i++) {
		*p++ = ' ';
		p = stpcpy(p, argv[i]);
	}
	return s;
}

int util_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void util_strlcpy(char *dst, const char *src, size_t size)
{
	size_t n = strlen(src);

	if (!size)
		return;
	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

int util_parse_when(const char *v, int64_t start, int64_t end, int64_t *ret)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = { { "", 1e9 },     { "ms", 1e6 }, { "s", 1e9 },    { "sec", 1e9 },
		      { "min", 60e9 }, { "m", 60e9 }, { "h", 3600e9 }, { "d", 86400e9 } };
	struct tm tm;
	time_t now = time(NULL);
	const char *p;
	char *rest;
	double secs;

	if (v[0] == '+' || v[0] == '-') {
		double n = strtod(v + 1, &rest), d = -1;

		if (rest == v + 1 || !(n >= 0))
			return -EINVAL;
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (strcasecmp(rest, units[i].unit) == 0)
				d = n * units[i].ns;
		if (d < 0 || d >= 9e18)
			return -EINVAL;
		/* start and end come from recordings: saturate rather than overflow */
		if (v[0] == '+' ? __builtin_add_overflow(start, (int64_t)d, ret)
				: __builtin_sub_overflow(end, (int64_t)d, ret))
			*ret = v[0] == '+' ? INT64_MAX : INT64_MIN;
		return 0;
	}
	localtime_r(&now, &tm);
	tm.tm_sec = 0;
	p = strptime(v, "%Y-%m-%d %H:%M", &tm);
	if (!p) {
		localtime_r(&now, &tm);
		tm.tm_sec = 0;
		p = strptime(v, "%H:%M", &tm);
	}
	if (!p)
		return -EINVAL;
	secs = 0;
	if (*p == ':') {
		secs = strtod(p + 1, &rest);
		if (rest == p + 1 || secs < 0 || secs >= 61)
			return -EINVAL;
		p = rest;
	}
	if (*p)
		return -EINVAL;
	tm.tm_isdst = -1;
	*ret = (int64_t)mktime(&tm) * 1000000000 + (int64_t)(secs * 1e9);
	return 0;
}

size_t util_count_le(const uint64_t *a, size_t n, uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a[mid] <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void util_warnf(void (*warn)(void *arg, const char *msg), void *arg, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	warn(arg, msg);
}

int util_mkdir_p(const char *path, unsigned mode, unsigned parent_mode)
{
	char buf[PATH_MAX];

	if (mkdir(path, mode) == 0 || errno == EEXIST)
		return 0;
	if (errno != ENOENT)
		return -errno;
	util_strlcpy(buf, path, sizeof(buf));
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, parent_mode) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return mkdir(path, mode) == 0 || errno == EEXIST ? 0 : -errno;
}
