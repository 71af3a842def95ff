/* failalloc.h — allocations that fail on demand, for tests of what happens without memory.
 *
 * Included by one file of a test program (it defines malloc, calloc and realloc): glibc lets a
 * program replace them; they forward to __libc_malloc & co., so glibc's free still matches.
 * failalloc_arm(N, sticky) makes the Nth allocation from then on fail (0: the next one), and
 * with sticky every one after it too; failalloc_disarm() stops that. Under AddressSanitizer,
 * which owns malloc, nothing is replaced (two heaps would mix): FAILALLOC_NONE is defined and
 * the program should skip, saying why (failalloc_skip()).
 */
#ifndef RP_TEST_FAILALLOC_H
#define RP_TEST_FAILALLOC_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__)
#define FAILALLOC_NONE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FAILALLOC_NONE 1
#endif
#endif

static long failalloc_countdown = -1; /* allocations left before the one that fails; -1: none */
static bool failalloc_sticky;	      /* then every later one fails too */
static long failalloc_failed;	      /* since armed */
static long failalloc_count;	      /* every allocation, failed or not */

static inline void failalloc_arm(long nth, bool sticky)
{
	failalloc_failed = 0;
	failalloc_sticky = sticky;
	failalloc_countdown = nth;
}

static inline void failalloc_disarm(void)
{
	failalloc_countdown = -1;
}

/* Exit code 77 (skipped), after saying why, when allocations cannot be made to fail. */
static inline int failalloc_skip(const char *test)
{
	fprintf(stderr,
		"SKIP: %s: AddressSanitizer owns malloc, so this test cannot make "
		"allocations fail (its own malloc would mix two heaps)\n",
		test);
	return 77;
}

#ifndef FAILALLOC_NONE
void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);

static bool failalloc_now(void)
{
	failalloc_count++;
	if (failalloc_countdown < 0)
		return false;
	if (failalloc_countdown > 0) {
		failalloc_countdown--;
		return false;
	}
	failalloc_failed++;
	if (!failalloc_sticky)
		failalloc_countdown = -1;
	errno = ENOMEM;
	return true;
}

void *malloc(size_t n)
{
	return failalloc_now() ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	return failalloc_now() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	return failalloc_now() ? NULL : __libc_realloc(p, n);
}
#endif

#endif
