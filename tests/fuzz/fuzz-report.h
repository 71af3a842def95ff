/* fuzz-report.h — shared by the recording targets: read a file to the end, then report it. */
#ifndef RP_FUZZ_REPORT_H
#define RP_FUZZ_REPORT_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "format/reader.h"
#include "profile/print.h"
#include "profile/session.h"

/* The report path's symfs: a directory that does not exist, so that paths built under it
 * (binaries, debug files, perf-PID.map) are exercised and lead nowhere. */
#define FUZZ_SYMFS "/nonexistent/ringprof-fuzz-symfs"

/*
 * The host's files stay out of the report path. The recordings name real binaries (libc,
 * ld.so, ...); libdwfl would open them and their separate debug files in /usr/lib/debug for
 * every input, which made these targets slow (most of their time went to inflating the
 * compressed debug sections of libc) and their coverage depend on what the host has
 * installed. A symfs alone does not keep them out: the symbolizer falls back to the
 * recorded path and libdwfl to /usr/lib/debug. So while a report runs, open(2) of anything
 * but the input (/proc/self/fd/N) and /dev/null fails with ENOENT, as if every binary had
 * been removed since the recording: the symbolizer's "no longer on disk" path. This
 * definition is the program's open(), so the lib code and libdw/libelf (an executable's
 * symbol comes before the shared libraries') get it; ASan's interceptor of open() is a weak
 * symbol and yields to it.
 */
static int fuzz_files_closed;

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (fuzz_files_closed && strncmp(path, "/proc/self/fd/", 14) != 0 &&
	    strcmp(path, "/dev/null") != 0) {
		errno = ENOENT;
		return -1;
	}
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

static inline void fuzz_quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

/* The whole read path: header, time bounds, every record, the stats. */
static inline void fuzz_read_all(const char *path)
{
	struct reader *r;
	uint64_t first, last;
	char why[256];

	if (reader_open(path, &r, why, sizeof(why)) < 0)
		return;
	reader_set_warn(r, fuzz_quiet, NULL);
	reader_header(r);
	reader_time_bounds(r, &first, &last);
	while (reader_next(r))
		reader_stack_id(r);
	reader_stats(r);
	reader_free(r);
}

/* The report path: the file through a session, then every output to /dev/null, with the
 * host's files closed (see open() above). */
static inline void fuzz_report(const char *path, const struct session_opts *so,
			       const struct print_opts *po)
{
	static FILE *null;
	struct session *s;
	char why[256];

	if (!null)
		null = fopen("/dev/null", "w");
	s = null ? session_new(so) : NULL;
	if (!s)
		return;
	fuzz_files_closed = 1;
	if (session_add_file(s, path, why, sizeof(why)) >= 0 && session_finish(s) >= 0) {
		print_header(null, s, (const char *const[]){ "fuzz" }, 1);
		print_flat(null, s, po);
		print_folded(null, s, false);
	}
	session_free(s);
	fuzz_files_closed = 0;
}

#endif
