/* fuzz-report.h — shared by the recording targets: read a file to the end, then report it. */
#ifndef RP_FUZZ_REPORT_H
#define RP_FUZZ_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "print.h"
#include "reader.h"
#include "session.h"

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
		reader_last_desc(r);
	reader_stats(r);
	reader_free(r);
}

/* The report path: the file through a session, then every output to /dev/null. */
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
	if (session_add_file(s, path, why, sizeof(why)) >= 0 && session_finish(s) >= 0) {
		print_header(null, s, (const char *const[]){ "fuzz" }, 1);
		print_flat(null, s, po);
		print_folded(null, s);
	}
	session_free(s);
}

#endif
