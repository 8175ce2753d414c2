/*
 * t_store_marks.c - hiding runs (FORMAT.md §6.1 "Run marks"): kt_run_hide
 * appends a mark and reports a no-op, kt_run_hidden reads the newest mark,
 * marks of one run leave its neighbours alone, a mark survives reopening,
 * and the argument and transaction checks hold.
 */
#include "testutil.h"
#include "../../store/store.h"

struct fx {
	char *dir;
	char path[4200];
	char a[KT_RUN_ID_HEX + 1], b[KT_RUN_ID_HEX + 1],
	     none[KT_RUN_ID_HEX + 1];
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	kt_store *s;

	assert_non_null(f);
	s = tu_store_new(&f->dir, f->path, sizeof(f->path), "s.ktraj", 0);
	/* ids next to each other in key order are what a cursor that
	 * overshoots its run would read */
	kt_run_id_from_identity("test:marks-a", f->a);
	kt_run_id_from_identity("test:marks-b", f->b);
	kt_run_id_from_identity("test:marks-none", f->none);
	assert_int_equal(kt_store_begin(s), 0);
	assert_int_equal(kt_run_create(s, f->a, "a", "test", NULL), 0);
	assert_int_equal(kt_run_create(s, f->b, "b", "test", NULL), 0);
	assert_int_equal(kt_store_commit(s), 0);
	assert_int_equal(kt_store_close(s), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	tu_store_gone(NULL, f->dir);
	free(f);
	return 0;
}

static void test_hide_unhide(void **state)
{
	struct fx *f = *state;
	kt_store *s;
	kt_marks_stats st;

	assert_int_equal(kt_store_open(f->path, 0, &s), 0);
	/* never marked: shown */
	assert_int_equal(kt_run_hidden(s, f->a), 0);
	assert_int_equal(kt_run_hidden(s, f->b), 0);
	assert_int_equal(kt_store_begin(s), 0);
	assert_int_equal(kt_run_hide(s, f->a, 1), 0);
	/* the same state again writes nothing and says so */
	assert_int_equal(kt_run_hide(s, f->a, 1), 1);
	assert_int_equal(kt_run_hide(s, f->b, 0), 1);
	assert_int_equal(kt_store_commit(s), 0);
	assert_int_equal(kt_run_hidden(s, f->a), 1);
	assert_int_equal(kt_run_hidden(s, f->b), 0);
	assert_int_equal(kt_run_marks_stats(s, &st), 0);
	assert_int_equal(st.records, 1);

	/* unhide, then hide again: the newest of three marks wins */
	assert_int_equal(kt_store_begin(s), 0);
	assert_int_equal(kt_run_hide(s, f->a, 0), 0);
	assert_int_equal(kt_run_hide(s, f->b, 1), 0);
	assert_int_equal(kt_store_commit(s), 0);
	assert_int_equal(kt_run_hidden(s, f->a), 0);
	assert_int_equal(kt_run_hidden(s, f->b), 1);
	assert_int_equal(kt_store_begin(s), 0);
	assert_int_equal(kt_run_hide(s, f->a, 1), 0);
	assert_int_equal(kt_store_commit(s), 0);
	assert_int_equal(kt_store_close(s), 0);

	/* marks are in the file, not in the handle */
	assert_int_equal(kt_store_open(f->path, KT_OPEN_RDONLY, &s), 0);
	assert_int_equal(kt_run_hidden(s, f->a), 1);
	assert_int_equal(kt_run_hidden(s, f->b), 1);
	assert_int_equal(kt_run_marks_stats(s, &st), 0);
	assert_int_equal(st.records, 4);
	/* the run itself is still there and whole */
	assert_int_equal(kt_store_verify(s, NULL, NULL, NULL), 0);
	assert_int_equal(kt_store_close(s), 0);
}

static void test_errors(void **state)
{
	struct fx *f = *state;
	kt_store *s;

	assert_int_equal(kt_store_open(f->path, 0, &s), 0);
	/* outside a write transaction */
	assert_int_equal(kt_run_hide(s, f->a, 1), KT_EBUSY);
	assert_int_equal(kt_store_begin(s), 0);
	assert_int_equal(kt_run_hide(s, f->a, 2), KT_EINVAL);
	assert_int_equal(kt_run_hide(s, f->a, -1), KT_EINVAL);
	assert_int_equal(kt_run_hide(s, "not-an-id", 1), KT_EINVAL);
	assert_int_equal(kt_run_hide(s, f->none, 1), KT_ENOTFOUND);
	assert_int_equal(kt_store_commit(s), 0);
	assert_int_equal(kt_run_hidden(NULL, f->a), KT_EINVAL);
	assert_int_equal(kt_run_hidden(s, "not-an-id"), KT_EINVAL);
	/* an id no run has reads as shown */
	assert_int_equal(kt_run_hidden(s, f->none), 0);
	assert_int_equal(kt_run_hidden(s, f->a), 0);
	assert_int_equal(kt_store_close(s), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_hide_unhide, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
