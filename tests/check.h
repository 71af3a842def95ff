/* check.h — assertion macros shared by the C unit tests. */
#ifndef RP_TESTS_CHECK_H
#define RP_TESTS_CHECK_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/*
 * A failed check prints "file:line: [test_ctx] FAILED: condition: message" to stderr and
 * counts; the test goes on. main() ends with "return check_done("test-foo");", whose last
 * line gives tests/driver.sh the number of checks that held and failed.
 *
 *   CHECK(cond)                    evaluates to whether cond held
 *   CHECK(cond, fmt, ...)          the same, with a printf-style message on failure
 *   CHECK_INT(a, b)                a == b as long long
 *   CHECK_U64(a, b)                a == b as uint64_t, printed in hex
 *   CHECK_STR(a, b)                strcmp(a, b) == 0; either may be NULL (equal if both are)
 *
 * Each macro is an expression that evaluates its arguments once; the message arguments are
 * evaluated only when the check fails.
 */

/* Failed evaluations; distinct checks (CHECK sites) evaluated, and of them those that failed. */
static int check_failures, check_count, check_sites_failed;

/* What the test is doing, for the failure messages; "" prints nothing. Tests set it freely. */
static const char *test_ctx = "";

static inline void check_fail_(const char *file, int line, const char *cond)
{
	check_failures++;
	if (test_ctx && *test_ctx)
		fprintf(stderr, "%s:%d: [%s] FAILED: %s", file, line, test_ctx, cond);
	else
		fprintf(stderr, "%s:%d: FAILED: %s", file, line, cond);
}

static inline __attribute__((format(printf, 1, 2))) void check_msg_(const char *fmt, ...)
{
	va_list ap;

	fputs(": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/* OK is the truth value, COND how to print it, then an optional printf-style message. */
#define CHECK_AT_(ok, cond, ...)                                                                   \
	({                                                                                         \
		bool check_ok_ = (ok);                                                             \
		static bool check_seen_, check_failed_;                                            \
		check_count += !check_seen_;                                                       \
		check_seen_ = true;                                                                \
		if (!check_ok_ && !check_failed_) {                                                \
			check_failed_ = true;                                                      \
			check_sites_failed++;                                                      \
		}                                                                                  \
		if (!check_ok_) {                                                                  \
			check_fail_(__FILE__, __LINE__, cond);                                     \
			__VA_OPT__(check_msg_(__VA_ARGS__);)                                       \
			fputc('\n', stderr);                                                       \
		}                                                                                  \
		check_ok_;                                                                         \
	})

#define CHECK(cond, ...) CHECK_AT_((cond), #cond __VA_OPT__(, ) __VA_ARGS__)

#define CHECK_INT(a, b)                                                                            \
	({                                                                                         \
		long long check_a_ = (long long)(a), check_b_ = (long long)(b);                    \
		CHECK_AT_(check_a_ == check_b_, #a " == " #b, "%s == %lld, expected %s == %lld",   \
			  #a, check_a_, #b, check_b_);                                             \
	})

#define CHECK_U64(a, b)                                                                            \
	({                                                                                         \
		uint64_t check_a_ = (a), check_b_ = (b);                                           \
		CHECK_AT_(check_a_ == check_b_, #a " == " #b,                                      \
			  "%s == %#" PRIx64 ", expected %#" PRIx64, #a, check_a_, check_b_);       \
	})

#define CHECK_STR(a, b)                                                                             \
	({                                                                                          \
		const char *check_a_ = (a), *check_b_ = (b);                                        \
		CHECK_AT_(check_a_ &&check_b_ ? !strcmp(check_a_, check_b_) : check_a_ == check_b_, \
			  #a " == " #b, "%s == \"%.80s\", expected \"%.80s\"", #a,                  \
			  check_a_ ? check_a_ : "(null)", check_b_ ? check_b_ : "(null)");          \
	})

/* Print "NAME: N failure(s)"; returns the exit status for main(): 0 or 1. */
/* The last line: what tests/driver.sh counts. A check is a CHECK in the source, however often
 * a loop evaluates it; it failed when any evaluation did. */
static inline int check_done(const char *name)
{
	fprintf(check_failures ? stderr : stdout, "%s: %d failure(s)\n", name, check_failures);
	printf("# checks: %d passed, %d failed\n", check_count - check_sites_failed,
	       check_sites_failed);
	return check_failures ? 1 : 0;
}

#endif
