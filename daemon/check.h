/* check.h — ringprofd --check-config. */
#ifndef RP_DAEMON_CHECK_H
#define RP_DAEMON_CHECK_H

#include <stdbool.h>

#include "conf.h"

/*
 * Every error of the configuration (PATH, its drop-ins, the overrides O) on stderr, each with
 * its file and line; for a valid one, the effective settings on stdout in the file's syntax,
 * then, as comments, MaxUse= and KeepFree= in bytes for the file system of the directory in
 * use and whether the user running the check can write there. The exit status: 0, 78 for a
 * configuration error, 73 for a directory that cannot be written.
 */
int check_config(const char *path, bool required, const struct conf_overrides *o);

#endif
