/* test-util.c — unit test of lib/util.c: time conversions with a recording's realtime offset
 * (saturated, never overflowing, whatever a file holds), relative --since/--until, and the
 * sorted-array search. */
#include <errno.h>
#include <stdint.h>

#include "check.h"
#include "base/util.h"

int main(void)
{
	int64_t t;

	test_ctx = "wall from mono";
	CHECK_INT(util_wall_ns(1000, 5000), 6000);
	CHECK_INT(util_wall_ns(1000, -5000), -4000);
	CHECK_INT(util_wall_ns(UINT64_MAX, 0), INT64_MAX);
	CHECK_INT(util_wall_ns(INT64_MAX - 10, 100), INT64_MAX);
	CHECK_INT(util_wall_ns(0, INT64_MIN), INT64_MIN);

	test_ctx = "count <= key";
	{
		static const uint64_t a[] = { 10, 20, 20, 30 };

		CHECK_INT(util_count_le(a, 4, 5), 0);
		CHECK_INT(util_count_le(a, 4, 10), 1);
		CHECK_INT(util_count_le(a, 4, 20), 3);
		CHECK_INT(util_count_le(a, 4, 29), 3);
		CHECK_INT(util_count_le(a, 4, UINT64_MAX), 4);
		CHECK_INT(util_count_le(a, 0, 100), 0);
	}

	test_ctx = "mono from wall";
	CHECK_U64(util_mono_ns(6000, 5000), 1000);
	CHECK_U64(util_mono_ns(4000, 5000), 0);
	CHECK_U64(util_mono_ns(INT64_MAX, -1000), UINT64_MAX);
	CHECK_U64(util_mono_ns(INT64_MIN, 1000), 0);
	CHECK_U64(util_mono_ns(-9142074765572283297, 1795310588171385092), 0);

	test_ctx = "relative --since/--until";
	CHECK_INT(util_parse_when("+2s", 1000, 5000, &t), 0);
	CHECK_INT(t, 1000 + 2000000000);
	CHECK_INT(util_parse_when("-1ms", 1000, 5000, &t), 0);
	CHECK_INT(t, 5000 - 1000000);
	CHECK_INT(util_parse_when("+1d", INT64_MAX - 5, INT64_MAX, &t), 0);
	CHECK_INT(t, INT64_MAX);
	CHECK_INT(util_parse_when("-1d", INT64_MIN, INT64_MIN + 5, &t), 0);
	CHECK_INT(t, INT64_MIN);
	CHECK_INT(util_parse_when("+1e300s", 0, 0, &t), -EINVAL);

	test_ctx = "sizes (record --max-size, ringprofd's budgets)";
	{
		uint64_t v = 7;

		CHECK_INT(util_parse_size("100", &v), 0);
		CHECK_U64(v, 100);
		CHECK_INT(util_parse_size("20K", &v), 0);
		CHECK_U64(v, 20480);
		CHECK_INT(util_parse_size("1.5m", &v), 0);
		CHECK_U64(v, 1572864);
		CHECK_INT(util_parse_size("2 GiB", &v), 0);
		CHECK_U64(v, 2ull << 30);
		CHECK_INT(util_parse_size("1TB", &v), 0);
		CHECK_U64(v, 1ull << 40);
		CHECK_INT(util_parse_size("8B", &v), 0);
		CHECK_U64(v, 8);
		v = 7;
		CHECK_INT(util_parse_size("BB", &v), -EINVAL);
		CHECK_INT(util_parse_size("1BB", &v), -EINVAL);
		CHECK_INT(util_parse_size("1X", &v), -EINVAL);
		CHECK_INT(util_parse_size("-1K", &v), -EINVAL);
		CHECK_INT(util_parse_size("", &v), -EINVAL);
		CHECK_INT(util_parse_size("99999999T", &v), -ERANGE);
		CHECK_U64(v, 7);
	}
	return check_done("test-util");
}
