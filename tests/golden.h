/* golden.h — where the C tests find the golden recording (tests/golden/v2/workload.rpd) and
 * the symfs it is symbolized from: rec_path and symfs, set by find_golden() from $top_srcdir
 * (default ..); a missing recording ends the test with a message. Included once per test. */
#ifndef RP_TESTS_GOLDEN_H
#define RP_TESTS_GOLDEN_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char rec_path[4096], symfs[4096];

static void find_golden(void)
{
	const char *top = getenv("top_srcdir");

	if (!top || !*top)
		top = "..";
	snprintf(rec_path, sizeof(rec_path), "%s/tests/golden/v2/workload.rpd", top);
	snprintf(symfs, sizeof(symfs), "%s/tests/golden/v2/symfs", top);
	if (access(rec_path, R_OK)) {
		fprintf(stderr, "%s:%d: %s not found (set top_srcdir)\n", __FILE__, __LINE__,
			rec_path);
		exit(1);
	}
}

#endif
