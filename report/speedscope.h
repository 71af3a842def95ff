/* speedscope.h — report --speedscope FILE: the profile in speedscope's file format. */
#ifndef RP_REPORT_SPEEDSCOPE_H
#define RP_REPORT_SPEEDSCOPE_H

#include <stddef.h>

struct session;

/* Write s's samples to path (replaced) as speedscope's JSON file format: one "sampled" profile
 * per command, the busiest first, each stack root first, weighted by period. 0, or -errno
 * with a sentence in why. */
int speedscope_write(const struct session *s, const char *path, char *why, size_t why_size);

#endif
