/* grow.h — the one way an array grows in ringprof: typed, overflow-checked, doubling. */
#ifndef RP_GROW_H
#define RP_GROW_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* First capacity of an empty array, in elements. */
#define GROW_FIRST 8

/*
 * Make room for NEED elements of ELEM bytes in *P, whose capacity is *CAP elements: the
 * capacity doubles (from GROW_FIRST) until NEED fits. 0, or -ENOMEM (allocation failed or the
 * size would overflow) with *P and *CAP unchanged, so the caller keeps what it had.
 */
static inline int grow_array(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t c = *cap ? *cap : GROW_FIRST;
	void *q;

	if (need <= *cap)
		return 0;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return -ENOMEM;
		c *= 2;
	}
	if (c > SIZE_MAX / elem)
		return -ENOMEM;
	q = realloc(*p, c * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

/*
 * GROW(array, cap, need): room for NEED elements in ARRAY (any pointer type), CAP being a
 * size_t lvalue holding its capacity in elements. Evaluates to 0 or -ENOMEM as grow_array().
 */
#define GROW(array, cap, need) grow_array((void **)&(array), &(cap), (need), sizeof(*(array)))

#endif
