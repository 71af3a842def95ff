/* test-captab.c — symbols captured at record time (profile/captab.h): parts of a table come
 * together sorted whatever their order, a part given twice is kept once, damaged entries end
 * their part without losing what came before, other build-ids are apart. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/symx.h"
#include "check.h"
#include "profile/captab.h"

static const uint8_t id_a[20] = { 0xaa, 1, 2, 3 };
static const uint8_t id_b[20] = { 0xbb, 1, 2, 3 };

/* A run of N entries named PREFIX<start> from FIRST, STEP apart, sized 16. */
static size_t make_run(unsigned char *buf, uint64_t first, uint64_t step, unsigned n,
		       const char *prefix)
{
	size_t len = 0;
	uint64_t prev = 0;

	for (unsigned i = 0; i < n; i++) {
		char name[64];
		uint64_t start = first + i * step;

		snprintf(name, sizeof(name), "%s%llx", prefix, (unsigned long long)start);
		len += symx_put(buf + len, prev, start, 16, name, strlen(name));
		prev = start;
	}
	return len;
}

int main(void)
{
	unsigned char p0[1024], p1[1024], other[256];
	size_t n0 = make_run(p0, 0x1000, 0x10, 10, "a_"), n1 = make_run(p1, 0x2000, 0x10, 5, "b_");
	size_t no = make_run(other, 0x1000, 0x10, 1, "other_");
	struct captab *t = captab_new();
	struct captab_sym *v = NULL;
	size_t n = 0;

	if (!CHECK(t != NULL))
		return check_done("test-captab");
	test_ctx = "parts";
	CHECK_INT(captab_get(t, id_a, 20, NULL, &v, &n), -ENOENT);
	/* The second part first, as a damaged first frame would leave them. */
	CHECK_INT(captab_add(t, id_a, 20, NULL, 1, 2, 5, p1, n1), 0);
	/* Part 0 lost (a damaged frame): the part there still names. */
	if (CHECK_INT(captab_get(t, id_a, 20, NULL, &v, &n), 0) && CHECK_INT(n, 5))
		CHECK_STR(v[0].name, "b_2000");
	free(v);
	CHECK_INT(captab_add(t, id_a, 20, NULL, 0, 2, 10, p0, n0), 0);
	CHECK_INT(captab_add(t, id_a, 20, NULL, 0, 2, 10, p0, n0), 1);
	CHECK_INT(captab_add(t, id_b, 20, NULL, 0, 1, 1, other, no), 0);
	CHECK_INT(captab_add(t, id_a, 20, NULL, 2, 2, 1, other, no), -EINVAL);
	CHECK_INT(captab_add(t, id_a, 0, NULL, 0, 1, 1, other, no), -EINVAL);
	if (CHECK_INT(captab_get(t, id_a, 20, NULL, &v, &n), 0) && CHECK_INT(n, 15)) {
		CHECK_U64(v[0].start, 0x1000);
		CHECK_STR(v[0].name, "a_1000");
		CHECK_U64(v[9].start, 0x1090);
		CHECK_U64(v[10].start, 0x2000);
		CHECK_STR(v[14].name, "b_2040");
		CHECK_U64(v[14].size, 16);
		for (size_t i = 1; i < n; i++)
			CHECK(v[i - 1].start <= v[i].start, "sorted at %zu", i);
	}
	free(v);
	if (CHECK_INT(captab_get(t, id_b, 20, NULL, &v, &n), 0) && CHECK_INT(n, 1))
		CHECK_STR(v[0].name, "other_1000");
	free(v);
	/* A shorter id with the same first bytes is another build-id. */
	CHECK_INT(captab_get(t, id_a, 8, NULL, &v, &n), -ENOENT);
	captab_free(t);

	/* Format 2.4: one build-id, two files (one copied the other's build-id note): each
	 * digest names with its own table, an unknown digest with neither. */
	test_ctx = "digests";
	t = captab_new();
	if (!CHECK(t != NULL))
		return check_done("test-captab");
	{
		uint8_t real[16], forged[16], other_d[16];

		memset(real, 0x11, sizeof(real));
		memset(forged, 0xf0, sizeof(forged));
		memset(other_d, 0x77, sizeof(other_d));
		CHECK_INT(captab_add(t, id_a, 20, forged, 0, 1, 1, other, no), 0);
		CHECK_INT(captab_add(t, id_a, 20, real, 0, 1, 5, p1, n1), 0);
		if (CHECK_INT(captab_get(t, id_a, 20, real, &v, &n), 0) && CHECK_INT(n, 5))
			CHECK_STR(v[0].name, "b_2000");
		free(v);
		if (CHECK_INT(captab_get(t, id_a, 20, forged, &v, &n), 0) && CHECK_INT(n, 1))
			CHECK_STR(v[0].name, "other_1000");
		free(v);
		CHECK_INT(captab_get(t, id_a, 20, other_d, &v, &n), -ENOENT);
		CHECK_INT(captab_get(t, id_a, 20, NULL, &v, &n), -ENOENT);
		/* A table captured before digests (by build-id alone) names any digest. */
		CHECK_INT(captab_add(t, id_a, 20, NULL, 0, 1, 1, other, no), 0);
		if (CHECK_INT(captab_get(t, id_a, 20, other_d, &v, &n), 0))
			CHECK_INT(n, 1);
		free(v);
	}
	captab_free(t);

	/* A part whose record claims more entries than it holds, or is cut in an entry: the
	 * entries before the damage are kept, nothing is read past the run. */
	test_ctx = "damaged";
	t = captab_new();
	if (!CHECK(t != NULL))
		return check_done("test-captab");
	CHECK_INT(captab_add(t, id_a, 20, NULL, 0, 1, 1000, p0, n0 - 3), 0);
	if (CHECK_INT(captab_get(t, id_a, 20, NULL, &v, &n), 0))
		CHECK_INT(n, 9);
	free(v);
	captab_free(t);
	return check_done("test-captab");
}
