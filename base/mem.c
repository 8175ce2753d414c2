/*
 * mem.c - a counted copy and the growable array (kt_base.h, "copies and
 * growable arrays").
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "kt_base.h"

char *kt_memdupz(const void *p, size_t n)
{
	char *d = n < (size_t)PTRDIFF_MAX ? malloc(n + 1) : NULL;

	if (d) {
		if (n)
			memcpy(d, p, n);
		d[n] = 0;
	}
	return d;
}

int kt_grow(void *pp, size_t *cap, size_t need, size_t elsize)
{
	size_t c = *cap ? *cap : KT_GROW_FIRST;
	void *p;

	if (need <= *cap)
		return 0;
	while (c < need) {
		if (c > SIZE_MAX / 2) {
			c = need;
			break;
		}
		c *= 2;
	}
	/* no object may be larger than PTRDIFF_MAX (pointer differences
	 * within it must fit): a larger size is refused here, not passed to
	 * realloc, which some allocators abort on */
	if (!elsize || c > (size_t)PTRDIFF_MAX / elsize)
		return KT_ENOMEM;
	/* pp is the address of a T * (T any object type): read and written
	 * as a void *, which has the same representation (POSIX requires it
	 * of every object pointer), so the caller needs no cast */
	memcpy(&p, pp, sizeof(p));
	p = realloc(p, c * elsize);
	if (!p)
		return KT_ENOMEM;
	memcpy(pp, &p, sizeof(p));
	*cap = c;
	return 0;
}
