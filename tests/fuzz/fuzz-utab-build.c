/* fuzz-utab-build.c — fuzz target: the input as an ELF file through the unwind-table builder
 * (lib/elf/utabbuild.c); a table it builds must pass utab_check(), a refusal must say why. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/utabbuild.h"
#include "fuzz.h"
#include "unwind/utab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], why[256];
	struct utabbuild_stats st;
	struct utab t;
	void *buf = NULL;
	size_t n = 0;
	int fd = fuzz_memfile(data, size, path, sizeof(path)), rc;

	if (fd < 0)
		return 0;
	rc = utabbuild_fd(fd, &buf, &n, &st, why, sizeof(why));
	close(fd);
	if (rc < 0) {
		if (!why[0] || buf || n)
			abort(); /* a refusal says why and leaves the outputs alone */
		return 0;
	}
	if (utab_check(buf, n, &t, why, sizeof(why)) < 0 || t.n_rows != st.n_rows ||
	    t.n_rules != st.n_rules)
		abort();
	for (uint32_t i = 0; i < t.n_rows; i++)
		if (utab_find(&t, t.rows[i].off) !=
		    (t.rows[i].rule ? &t.rules[t.rows[i].rule] : NULL))
			abort();
	free(buf);
	return 0;
}
