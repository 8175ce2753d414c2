/*
 * t_store_damage.c - a damaged store is KT_ECORRUPT, said as damage, and
 * left as it is by writers; another program's LMDB file stays "not a ktraj
 * store" (FORMAT.md §5 "Damaged, or not a store").  And kt_run_resolve does
 * not pass over, nor land on, a run whose record fails its checksum
 * (FORMAT.md §6.10): it says KT_ECORRUPT and names the run.
 *
 * The main database is damaged here through LMDB's own API (a database
 * dropped or added), which leaves pages LMDB and the page check accept;
 * tests/cli/store_damage.bats flips the bits themselves.
 */
#include "testutil.h"
#include "tu_lmdb.h"
#include "../../store/store.h"

struct fx {
	char *dir;
	char path[4200];
	char a[KT_RUN_ID_HEX + 1], b[KT_RUN_ID_HEX + 1];
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	kt_store *s;

	assert_non_null(f);
	s = tu_store_new(&f->dir, f->path, sizeof(f->path), "s.ktraj", 0);
	kt_run_id_from_identity("test:alpha", f->a);
	kt_run_id_from_identity("test:beta", f->b);
	assert_int_equal(kt_store_begin(s), 0);
	assert_int_equal(kt_run_create(s, f->a, "alpha", "test",
				       "{\"mark\":\"META-alpha\"}"), 0);
	assert_int_equal(kt_run_create(s, f->b, "beta", "test", NULL), 0);
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

/* Change LMDB's main database of the file at path: drop database `drop`
 * (NULL: none), add an empty one named `add` (NULL: none), delete key
 * `del` of database meta (NULL: none). */
static void mainlist(const char *path, const char *drop, const char *add,
		     const char *del)
{
	MDB_env *env = tu_env_open(path);
	MDB_txn *txn;
	MDB_dbi dbi;

	assert_int_equal(mdb_txn_begin(env, NULL, 0, &txn), 0);
	if (drop) {
		assert_int_equal(mdb_dbi_open(txn, drop, 0, &dbi), 0);
		assert_int_equal(mdb_drop(txn, dbi, 1), 0);
	}
	if (add)
		assert_int_equal(mdb_dbi_open(txn, add, MDB_CREATE, &dbi), 0);
	if (del) {
		MDB_val k = { strlen(del), (void *)del };

		assert_int_equal(mdb_dbi_open(txn, "meta", 0, &dbi), 0);
		assert_int_equal(mdb_del(txn, dbi, &k, NULL), 0);
	}
	assert_int_equal(mdb_txn_commit(txn), 0);
	mdb_env_close(env);
}

/* Readers and writers, with and without the page check: KT_ECORRUPT whose
 * message has `want` (and says "damaged", or "not a ktraj store" as `want`
 * asks); the file byte for byte as it was. */
static void expect_refused(const char *path, const char *want)
{
	static const unsigned fl[] = {
		KT_OPEN_RDONLY, KT_OPEN_RDONLY | KT_OPEN_CHECK,
		KT_OPEN_CREATE, KT_OPEN_CREATE | KT_OPEN_CHECK,
	};
	size_t n0 = 0, n1 = 0;
	char *before = tu_slurp(path, &n0), *after;

	assert_non_null(before);
	for (size_t i = 0; i < sizeof(fl) / sizeof(fl[0]); i++) {
		kt_store *s = NULL;

		assert_int_equal(kt_store_open(path, fl[i], &s), KT_ECORRUPT);
		assert_null(s);
		if (!strstr(kt_store_open_errmsg(), want))
			fail_msg("flags 0x%x: '%s' lacks '%s'", fl[i],
				 kt_store_open_errmsg(), want);
	}
	after = tu_slurp(path, &n1);
	assert_non_null(after);
	assert_int_equal(n0, n1);
	assert_memory_equal(before, after, n0);
	free(before);
	free(after);
}

static void test_database_missing(void **state)
{
	struct fx *f = *state;
	static const char *const dbs[] = { "paths", "meta", "runs" };
	char good[4300], msg[128];

	snprintf(good, sizeof(good), "%s/good", f->dir);
	assert_int_equal(rename(f->path, good), 0);
	for (size_t i = 0; i < sizeof(dbs) / sizeof(dbs[0]); i++) {
		char cmd[9000];

		snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", good, f->path);
		assert_int_equal(system(cmd), 0);
		mainlist(f->path, dbs[i], NULL, NULL);
		snprintf(msg, sizeof(msg), "damaged store: LMDB's main database "
			 "has no '%s' database", dbs[i]);
		expect_refused(f->path, msg);
	}
}

/* A store without run_sums is one written before run checksums (it opens,
 * and a writer adds the database); one that lists another name instead
 * most likely has run_sums's name damaged, and a writer adding an empty
 * run_sums would leave every run unchecked. */
static void test_run_sums_renamed(void **state)
{
	struct fx *f = *state;
	kt_store *s;
	kt_run_info ri;

	mainlist(f->path, "run_sums", "run_sumq", NULL);
	expect_refused(f->path, "damaged store: LMDB's main database has no "
		       "'run_sums' database, but one named 'run_sumq'");
	/* without the stray name: an old store */
	mainlist(f->path, "run_sumq", NULL, NULL);
	assert_int_equal(kt_store_open(f->path, KT_OPEN_RDONLY | KT_OPEN_CHECK,
				       &s), 0);
	assert_int_equal(kt_run_get(s, f->a, &ri), 0);
	assert_int_equal(ri.checksum, 0);
	kt_store_close(s);
}

static void test_no_format(void **state)
{
	struct fx *f = *state;

	mainlist(f->path, NULL, NULL, "format");
	expect_refused(f->path, "damaged store: its meta database holds no "
		       "format record");
}

/* Another program's LMDB file may well have a database of one of our
 * names: that alone does not make it a store, damaged or not. */
static void test_foreign_one_name(void **state)
{
	struct fx *f = *state;
	static const char *const names[] = { "meta", "paths" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char p[4300];
		MDB_env *env;
		MDB_txn *txn;
		MDB_dbi dbi;
		MDB_val k = { 3, "key" }, v = { 5, "value" };

		snprintf(p, sizeof(p), "%s/other-%s.mdb", f->dir, names[i]);
		assert_int_equal(mdb_env_create(&env), 0);
		mdb_env_set_maxdbs(env, 4);
		assert_int_equal(mdb_env_open(env, p, MDB_NOSUBDIR, 0644), 0);
		assert_int_equal(mdb_txn_begin(env, NULL, 0, &txn), 0);
		assert_int_equal(mdb_dbi_open(txn, names[i], MDB_CREATE, &dbi),
				 0);
		assert_int_equal(mdb_put(txn, dbi, &k, &v, 0), 0);
		assert_int_equal(mdb_txn_commit(txn), 0);
		mdb_env_close(env);
		expect_refused(p, "not a ktraj store");
	}
}

/* kt_run_resolve by name, full id and id prefix of a run whose record
 * fails its checksum: KT_ECORRUPT, out and the errmsg naming the run. */
static void expect_resolve_bad(const char *path, const char *run,
			       const char *name, const char *other)
{
	const char *specs[3];
	char pre[9], out[KT_RUN_ID_HEX + 1];
	kt_store *s;

	snprintf(pre, sizeof(pre), "%.8s", run);
	specs[0] = name;
	specs[1] = run;
	specs[2] = pre;
	assert_int_equal(kt_store_open(path, KT_OPEN_RDONLY, &s), 0);
	for (int i = 0; i < 3; i++) {
		memset(out, 'x', sizeof(out));
		assert_int_equal(kt_run_resolve(s, specs[i], out), KT_ECORRUPT);
		assert_string_equal(out, run);
		assert_non_null(strstr(kt_store_errmsg(s), run));
		assert_non_null(strstr(kt_store_errmsg(s), "checksum"));
	}
	/* the other run resolves; a name of none is not found */
	assert_int_equal(kt_run_resolve(s, "beta", out), 0);
	assert_string_equal(out, other);
	assert_int_equal(kt_run_resolve(s, "gamma", out), KT_ENOTFOUND);
	assert_string_equal(out, "");
	kt_store_close(s);
}

static void test_resolve_damaged_record(void **state)
{
	struct fx *f = *state;
	unsigned char bin[16];

	assert_int_equal(kt_unhex(f->a, bin, 16), 0);
	/* meta (the record: be64 created, be16 5, "alpha", be16 4, "test",
	 * be32 M, then the meta text; byte 30 is inside it) */
	tu_flip_value(f->path, "runs", bin, 16, 30, 0x01);
	expect_resolve_bad(f->path, f->a, "alpha", f->b);
	tu_flip_value(f->path, "runs", bin, 16, 30, 0x01);
	/* the name itself: the run_names index still lists the run under
	 * "alpha", and the record can no longer say it is not */
	tu_flip_value(f->path, "runs", bin, 16, 11, 0x01);
	expect_resolve_bad(f->path, f->a, "alpha", f->b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_database_missing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_run_sums_renamed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_no_format, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_foreign_one_name, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_resolve_damaged_record,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
