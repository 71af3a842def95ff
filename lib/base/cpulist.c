/* cpulist.c — parse CPU list strings such as "0-3,5,7-8" (sysfs cpu masks, perf's -C). */
#include "base/cpulist.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/procfs.h"

static bool get_cpu(const char **p, int *ret)
{
	const char *s = *p;
	long v = 0;

	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (*s - '0');
		if (v > INT_MAX)
			return false;
	}
	*p = s;
	*ret = (int)v;
	return true;
}

/*
 * Parse the next item "N" or "N-M" at *P and the separator after it. Returns 1 with the
 * range, 0 at the end of the list, -EINVAL on a syntax error.
 */
static int next_range(const char **p, int *ret_lo, int *ret_hi)
{
	const char *s = *p;
	int lo, hi;

	if (*s == '\0' || (s[0] == '\n' && s[1] == '\0'))
		return 0;
	if (!get_cpu(&s, &lo))
		return -EINVAL;
	hi = lo;
	if (*s == '-' && (s++, !get_cpu(&s, &hi)))
		return -EINVAL;
	if (hi < lo)
		return -EINVAL;
	if (*s == ',') {
		s++;
		/* A separator must be followed by another item. */
		if (*s < '0' || *s > '9')
			return -EINVAL;
	} else if (*s != '\0' && !(s[0] == '\n' && s[1] == '\0')) {
		return -EINVAL;
	}
	*p = s;
	*ret_lo = lo;
	*ret_hi = hi;
	return 1;
}

/* Insert CPU into the sorted set CPUS[0..*n). */
static int add_cpu(int *cpus, size_t max, size_t *n, int cpu)
{
	size_t lo = 0, hi = *n;

	/* Lists are normally ascending: append without searching. */
	if (*n == 0 || cpus[*n - 1] < cpu) {
		lo = *n;
	} else {
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (cpus[mid] < cpu)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (cpus[lo] == cpu)
			return 0;
	}
	if (*n == max)
		return -E2BIG;
	memmove(cpus + lo + 1, cpus + lo, (*n - lo) * sizeof(*cpus));
	cpus[lo] = cpu;
	(*n)++;
	return 0;
}

int cpulist_parse(const char *s, int *cpus, size_t max, size_t *ret_n)
{
	const char *p;
	size_t n = 0;
	int lo, hi, r;

	if (!s || (!cpus && max > 0))
		return -EINVAL;

	/* Syntax first, so that a malformed list is -EINVAL even when it is also too long. */
	p = s;
	while ((r = next_range(&p, &lo, &hi)) > 0)
		;
	if (r < 0 || p == s)
		return -EINVAL;

	/*
	 * Each range visits at most MAX CPUs already present before one is missing and the set
	 * is full, so a huge range ends in -E2BIG quickly.
	 */
	p = s;
	while (next_range(&p, &lo, &hi) > 0) {
		for (int cpu = lo;; cpu++) {
			r = add_cpu(cpus, max, &n, cpu);
			if (r < 0)
				return r;
			if (cpu == hi)
				break;
		}
	}
	*ret_n = n;
	return 0;
}

int cpulist_read_online(int *cpus, size_t max, size_t *ret_n)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;
	int r;

	r = procfs_path(path, sizeof(path), "/sys/devices/system/cpu/online");
	if (r < 0)
		return r;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	errno = 0;
	len = getline(&line, &cap, f);
	if (len < 0)
		r = ferror(f) && errno > 0 ? -errno : -EINVAL; /* an empty file is no list */
	else if (strlen(line) != (size_t)len)
		r = -EINVAL;
	else
		r = cpulist_parse(line, cpus, max, ret_n);
	free(line);
	fclose(f);
	return r;
}
