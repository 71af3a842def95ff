/* cpulist.h — parse CPU list strings such as "0-3,5,7-8" (sysfs cpu masks, perf's -C). */
#ifndef RP_CPULIST_H
#define RP_CPULIST_H

#include <stddef.h>

/*
 * Parse S into CPUS[0..*ret_n), sorted ascending without duplicates. Grammar: items
 * separated by ',', each "N" or "N-M" with N <= M, decimal, no blanks; one trailing '\n' is
 * allowed. Stride syntax ("0-7:2") is not supported.
 * Returns 0; -EINVAL for a syntax error ("", "1-", "3-1", "a", "1,,2", a number beyond
 * INT_MAX); -E2BIG when there are more than MAX distinct CPUs. A syntax error anywhere wins
 * over -E2BIG. On failure *ret_n is untouched and the contents of CPUS are unspecified.
 */
int cpulist_parse(const char *s, int *cpus, size_t max, size_t *ret_n);

/*
 * Parse <root>/sys/devices/system/cpu/online, <root> being procfs_set_root()'s prefix.
 * Returns 0 or -errno as cpulist_parse() and open/read.
 */
int cpulist_read_online(int *cpus, size_t max, size_t *ret_n);

#endif
