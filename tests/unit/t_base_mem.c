/* t_base_mem.c - the base layer's counted copy and growable array
 * (base/kt_base.h "copies and growable arrays"): kt_memdupz keeps NUL bytes
 * and ends in one; kt_grow doubles from KT_GROW_FIRST, reaches a large need
 * in one call, keeps the elements, and on a size past PTRDIFF_MAX returns
 * KT_ENOMEM leaving the array and capacity as they were. */
#include "testutil.h"
#include "../../base/kt_base.h"

static void t_memdupz(void **st)
{
	char *d;

	(void)st;
	d = kt_memdupz("ab\0cd", 5);
	assert_non_null(d);
	/* all five bytes, the NUL among them (strndup would stop at it) */
	assert_memory_equal(d, "ab\0cd", 5);
	assert_int_equal(d[5], 0);
	free(d);
	d = kt_memdupz(NULL, 0);
	assert_non_null(d);
	assert_string_equal(d, "");
	free(d);
	d = kt_memdupz("xyz", 2);
	assert_string_equal(d, "xy");
	free(d);
}

static void t_grow(void **st)
{
	uint64_t *v = NULL, *keep;
	size_t cap = 0, n = 0;

	(void)st;
	assert_int_equal(KT_GROW(v, cap, 0), 0); /* nothing needed: no array */
	assert_null(v);
	assert_int_equal(cap, 0);
	for (uint64_t i = 0; i < 100; i++) {
		assert_int_equal(KT_GROW(v, cap, n + 1), 0);
		v[n++] = i * i;
	}
	/* 16 doubled until it holds 100 */
	assert_int_equal(cap, 128);
	for (uint64_t i = 0; i < 100; i++)
		assert_int_equal(v[i], i * i);
	/* enough room: nothing moves */
	keep = v;
	assert_int_equal(KT_GROW(v, cap, 128), 0);
	assert_ptr_equal(v, keep);
	assert_int_equal(cap, 128);
	/* a large need in one call: the first doubling that holds it */
	assert_int_equal(KT_GROW(v, cap, 1000), 0);
	assert_int_equal(cap, 1024);
	assert_int_equal(v[99], 99 * 99);
	/* need * elsize past PTRDIFF_MAX: refused before realloc, the array
	 * as it was */
	keep = v;
	assert_int_equal(KT_GROW(v, cap, SIZE_MAX / 4), KT_ENOMEM);
	assert_int_equal(kt_grow(&v, &cap, SIZE_MAX, 1), KT_ENOMEM);
	assert_ptr_equal(v, keep);
	assert_int_equal(cap, 1024);
	assert_int_equal(v[99], 99 * 99);
	free(v);
}

/* Elements of any size, the capacity starting where the caller left it. */
static void t_grow_elsize(void **st)
{
	struct big { char name[33]; int x; } *b = NULL;
	size_t cap = 3;

	(void)st;
	b = malloc(3 * sizeof(*b));
	assert_non_null(b);
	b[2].x = 7;
	assert_int_equal(KT_GROW(b, cap, 4), 0);
	assert_int_equal(cap, 6); /* doubled from the 3 it had */
	assert_int_equal(b[2].x, 7);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_memdupz),
		cmocka_unit_test(t_grow),
		cmocka_unit_test(t_grow_elsize),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
