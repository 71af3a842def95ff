/* test-symx.c — the captured-symbol encoding (base/symx.h): round trip, and every way a run
 * read from a file can be damaged gives -EINVAL, never a read past its end. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/symx.h"
#include "check.h"

static void round_trip(void)
{
	static const struct {
		uint64_t start, size;
		const char *name;
	} in[] = { { 0x1000, 16, "_init" },
		   { 0x1000, 0, "alias_same_start" },
		   { 0x1130, 0x2a, "_ZN3foo3barEv" },
		   { 0x7fffffffffff0000ull, 1, "far" } };
	unsigned char buf[4 * SYMX_ENTRY_MAX];
	size_t len = 0;
	uint64_t prev = 0;
	struct symx_cursor c;
	struct symx_entry e;

	test_ctx = "round trip";
	for (size_t i = 0; i < 4; i++) {
		len += symx_put(buf + len, prev, in[i].start, in[i].size, in[i].name,
				strlen(in[i].name));
		prev = in[i].start;
	}
	symx_open(&c, buf, len, 0);
	for (size_t i = 0; i < 4; i++) {
		if (!CHECK_INT(symx_next(&c, &e), 1))
			return;
		CHECK_U64(e.start, in[i].start);
		CHECK_U64(e.size, in[i].size);
		CHECK_INT(e.name_len, strlen(in[i].name));
		CHECK_STR(e.name, in[i].name);
	}
	CHECK_INT(symx_next(&c, &e), 0);

	/* Every cut short of the whole run fails on the entry it cuts, after the ones before. */
	test_ctx = "cut";
	for (size_t cut = 1; cut < len; cut++) {
		int rc, n = 0;

		symx_open(&c, buf, cut, 0);
		while ((rc = symx_next(&c, &e)) == 1)
			n++;
		CHECK(rc == -EINVAL || (rc == 0 && c.p == buf + cut), "cut %zu: rc %d", cut, rc);
	}
}

static void hostile(void)
{
	/* A varint that never ends, one past 64 bits, a start that wraps, a name without NUL. */
	static const unsigned char endless[] = { 0x80, 0x80, 0x80 };
	static const unsigned char wide[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					      0xff, 0xff, 0xff, 0x01, 0x00, 'a',  0 };
	static const unsigned char noname[] = { 0x01, 0x00, 'a', 'b' };
	unsigned char wrap[64];
	struct symx_cursor c;
	struct symx_entry e;
	size_t n;

	test_ctx = "hostile";
	symx_open(&c, endless, sizeof(endless), 0);
	CHECK_INT(symx_next(&c, &e), -EINVAL);
	symx_open(&c, wide, sizeof(wide), 0);
	CHECK_INT(symx_next(&c, &e), -EINVAL);
	symx_open(&c, noname, sizeof(noname), 0);
	CHECK_INT(symx_next(&c, &e), -EINVAL);
	n = symx_put(wrap, 0, UINT64_MAX, 0, "x", 1);
	symx_open(&c, wrap, n, 1);
	CHECK_INT(symx_next(&c, &e), -EINVAL);
	/* A name longer than SYMX_NAME_MAX is cut when written. */
	{
		char *name = malloc(SYMX_NAME_MAX + 100);
		unsigned char *b = malloc(SYMX_ENTRY_MAX);

		if (name && b) {
			memset(name, 'n', SYMX_NAME_MAX + 100);
			n = symx_put(b, 0, 1, 0, name, SYMX_NAME_MAX + 100);
			CHECK(n <= SYMX_ENTRY_MAX);
			symx_open(&c, b, n, 0);
			if (CHECK_INT(symx_next(&c, &e), 1))
				CHECK_INT(e.name_len, SYMX_NAME_MAX);
		}
		free(name);
		free(b);
	}
}

int main(void)
{
	round_trip();
	hostile();
	return check_done("test-symx");
}
