/* t_importer_table.c - import/'s importer table and the place it keeps by
 * name for replay/'s result importer (import/registry.c): without
 * kt_replay_register the table goes without "replay_result"; with it the
 * importer stands where the table names it (between openhands and map, so
 * detection ties and the --help list read as before), and a second
 * registration, a name the table has no place for and another importer
 * under that name are told apart. */
#include "testutil.h"
#include "../../import/import.h"
#include "../../replay/replay.h"

static size_t index_of(const char *name)
{
	const kt_importer *im;
	size_t i;

	for (i = 0; (im = kt_importer_at(i)); i++)
		if (!strcmp(im->name, name))
			return i;
	return (size_t)-1;
}

static void t_table(void **st)
{
	static const kt_importer stranger = { "no_such_place", "", NULL, NULL };
	static const kt_importer impostor = { "replay_result", "", NULL, NULL };
	const kt_importer *rr;
	size_t n0 = 0, n1 = 0;

	(void)st;
	while (kt_importer_at(n0))
		n0++;
	assert_true(n0 > 10);
	/* not registered yet: not found by name, not in the table */
	assert_null(kt_importer_find("replay_result"));
	assert_int_equal(index_of("replay_result"), (size_t)-1);
	assert_int_equal(index_of("map"), index_of("openhands") + 1);

	assert_int_equal(kt_replay_register(), 0);
	rr = kt_importer_find("replay_result");
	assert_non_null(rr);
	assert_non_null(rr->detect);
	assert_non_null(rr->import);
	assert_ptr_equal(kt_importer_of_format("replay_result"), rr);
	while (kt_importer_at(n1))
		n1++;
	assert_int_equal(n1, n0 + 1);
	assert_int_equal(index_of("replay_result"), index_of("openhands") + 1);
	assert_int_equal(index_of("map"), index_of("replay_result") + 1);
	assert_null(kt_importer_at(n1));

	/* again: harmless; other names and holders are refused */
	assert_int_equal(kt_replay_register(), 0);
	assert_int_equal(kt_importer_register(&stranger), KT_ENOTFOUND);
	assert_int_equal(kt_importer_register(&impostor), KT_EEXIST);
	assert_int_equal(kt_importer_register(NULL), KT_EINVAL);
	assert_ptr_equal(kt_importer_find("replay_result"), rr);
	assert_null(kt_importer_find("no_such_place"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
