/*
 * t_store_runsum.c - what the hash chain does not cover: the run record's
 * checksum (run_sums), the run_names index and the paths index, checked by
 * kt_store_verify and (the checksum) by kt_run_get; a store written before
 * run checksums still opens and verifies, and so does one without any
 * database KT_DBS marks KT_DB_ADDED; an LMDB file of another program is not
 * taken over.  FORMAT.md §5, §6.10.
 */
#include "testutil.h"
#include "tu_lmdb.h"
#include "../../store/store.h"
#include "../../store/store_int.h"

#define MARK_META "RUNMETA-4f1c9e"
#define MARK_NAME "RUNNAME-7a2d"
#define MARK_FMT "RUNFMT-c3b8"

struct fx {
	char *dir;
	char path[4200];
	char run[KT_RUN_ID_HEX + 1], other[KT_RUN_ID_HEX + 1];
	char a_hex[KT_HASH_HEX + 1], b_hex[KT_HASH_HEX + 1];
};

static void add_events(kt_store *s, const char *run, const struct fx *f)
{
	char buf[1024];
	kt_event ev;
	const char *pl[] = {
		"{\"role\":\"user\",\"human\":true,\"text\":\"make it fast\"}",
		NULL, NULL, NULL,
	};

	snprintf(buf, sizeof(buf), "{\"path\":\"/w/k.cu\",\"op\":\"create\","
		 "\"before\":null,\"after\":\"%s\",\"tool\":\"Write\"}",
		 f->a_hex);
	pl[1] = strdup(buf);
	/* the same path twice in one event: the last entry is the one the
	 * index keeps, and verify's rebuild must agree */
	snprintf(buf, sizeof(buf), "{\"call_id\":\"c\",\"ok\":true,\"output\":"
		 "\"\",\"observed\":[{\"path\":\"/w/x.h\",\"blob\":\"%s\"},"
		 "{\"path\":\"/w/x.h\",\"blob\":null},{\"path\":\"/w/k.cu\","
		 "\"blob\":\"%s\"}]}", f->a_hex, f->b_hex);
	pl[2] = strdup(buf);
	snprintf(buf, sizeof(buf), "{\"path\":\"/w/k2.cu\",\"op\":\"rename\","
		 "\"from\":\"/w/k.cu\",\"before\":\"%s\",\"after\":\"%s\","
		 "\"tool\":\"shell\"}", f->b_hex, f->b_hex);
	pl[3] = strdup(buf);
	assert_int_equal(kt_store_begin(s), 0);
	for (int i = 0; i < 4; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.seq = (uint64_t)i + 1;
		ev.ts_ns = KT_TS_UNKNOWN;
		ev.kind = i == 0 ? KT_KIND_MESSAGE : i == 2 ?
			  KT_KIND_TOOL_RESULT : KT_KIND_EDIT;
		ev.actor = "agent";
		ev.payload = pl[i];
		assert_int_equal(kt_event_append(s, run, &ev), 0);
	}
	assert_int_equal(kt_store_commit(s), 0);
	for (int i = 1; i < 4; i++)
		free((char *)pl[i]);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	unsigned char h[KT_HASH_LEN];
	kt_store *s;

	assert_non_null(f);
	s = tu_store_new(&f->dir, f->path, sizeof(f->path), "s.ktraj", 0);
	kt_run_id_from_identity("test:runsum", f->run);
	kt_run_id_from_identity("test:other", f->other);
	assert_int_equal(kt_store_begin(s), 0);
	assert_int_equal(kt_blob_put(s, "int a;\n", 7, "/w/k.cu", h), 0);
	kt_hex(h, KT_HASH_LEN, f->a_hex);
	assert_int_equal(kt_blob_put(s, "int b;\n", 7, "/w/k.cu", h), 0);
	kt_hex(h, KT_HASH_LEN, f->b_hex);
	assert_int_equal(kt_run_create(s, f->run, MARK_NAME, MARK_FMT,
				       "{\"marker\":\"" MARK_META "\"}"), 0);
	assert_int_equal(kt_run_create(s, f->other, "other", "test", NULL), 0);
	assert_int_equal(kt_store_commit(s), 0);
	add_events(s, f->run, f);
	add_events(s, f->other, f);
	assert_int_equal(kt_store_verify(s, NULL, NULL, NULL), 0);
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

/* Flip one bit of every copy of `mark` in the store file itself (LMDB
 * keeps older copies of pages in the file; one of them is the live one). */
static int flip_in_file(const char *path, const char *mark, size_t at)
{
	size_t len = 0, ml = strlen(mark);
	char *d = tu_slurp(path, &len);
	int n = 0;
	FILE *fp;
	char lock[4300];

	assert_non_null(d);
	for (size_t i = 0; i + ml <= len; i++)
		if (!memcmp(d + i, mark, ml)) {
			d[i + at] ^= 0x01;
			n++;
		}
	fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(d, 1, len, fp), len);
	fclose(fp);
	free(d);
	snprintf(lock, sizeof(lock), "%s-lock", path);
	unlink(lock);
	return n;
}

/* verify fails naming run at seq 0 (the run record); kt_run_get too */
static void expect_runrec_bad(const char *path, const char *run,
			      const char *other)
{
	kt_store *s;
	const char *bad_run = NULL;
	uint64_t bad_seq = 99;
	kt_run_info ri;

	assert_int_equal(kt_store_open(path, KT_OPEN_RDONLY, &s), 0);
	assert_int_equal(kt_store_verify(s, NULL, &bad_run, &bad_seq),
			 KT_ECORRUPT);
	assert_non_null(bad_run);
	assert_string_equal(bad_run, run);
	assert_int_equal(bad_seq, 0);
	assert_non_null(strstr(kt_store_errmsg(s), "checksum"));
	assert_int_equal(kt_store_verify(s, run, &bad_run, &bad_seq),
			 KT_ECORRUPT);
	assert_int_equal(kt_run_get(s, run, &ri), KT_ECORRUPT);
	assert_non_null(strstr(kt_store_errmsg(s), run));
	/* the other run is whole */
	assert_int_equal(kt_store_verify(s, other, &bad_run, &bad_seq), 0);
	assert_int_equal(kt_run_get(s, other, &ri), 0);
	assert_int_equal(ri.checksum, 1);
	kt_store_close(s);
}

static void test_flip_record_in_file(void **state)
{
	struct fx *f = *state;
	char good[4300];
	const char *marks[] = { MARK_META, MARK_NAME, MARK_FMT };
	size_t len = 0;
	char *d;
	FILE *fp;

	/* keep the good file to start each case from */
	d = tu_slurp(f->path, &len);
	assert_non_null(d);
	snprintf(good, sizeof(good), "%s/good", f->dir);
	fp = fopen(good, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(d, 1, len, fp), len);
	fclose(fp);
	for (size_t m = 0; m < 3; m++) {
		fp = fopen(f->path, "wb");
		assert_non_null(fp);
		assert_int_equal(fwrite(d, 1, len, fp), len);
		fclose(fp);
		/* a flipped letter keeps every length: only the checksum
		 * can tell */
		assert_true(flip_in_file(f->path, marks[m], 4) >= 1);
		expect_runrec_bad(f->path, f->run, f->other);
	}
	free(d);
}

/* Raw LMDB access to one named database of the store (a flipped byte:
 * tu_flip_value). */
enum { RAW_PUT, RAW_DEL, RAW_DROP };

static void raw(const char *path, const char *db, const void *key, size_t kl,
		const void *val, size_t vl, int op)
{
	MDB_env *env = tu_env_open(path);
	MDB_txn *txn;
	MDB_dbi dbi;
	MDB_val k = { kl, (void *)key }, v = { vl, (void *)val };

	assert_int_equal(mdb_txn_begin(env, NULL, 0, &txn), 0);
	assert_int_equal(mdb_dbi_open(txn, db, 0, &dbi), 0);
	if (op == RAW_PUT)
		assert_int_equal(mdb_put(txn, dbi, &k, &v, 0), 0);
	else if (op == RAW_DEL)
		assert_int_equal(mdb_del(txn, dbi, &k, NULL), 0);
	else
		assert_int_equal(mdb_drop(txn, dbi, 1), 0);
	assert_int_equal(mdb_txn_commit(txn), 0);
	mdb_env_close(env);
}

static void test_created_and_sum(void **state)
{
	struct fx *f = *state;
	unsigned char bin[16];

	assert_int_equal(kt_unhex(f->run, bin, 16), 0);
	/* created (offset 7: the low byte of the ns) */
	tu_flip_value(f->path, "runs", bin, 16, 7, 0x10);
	expect_runrec_bad(f->path, f->run, f->other);
	tu_flip_value(f->path, "runs", bin, 16, 7, 0x10);
	/* the stored checksum itself */
	tu_flip_value(f->path, "run_sums", bin, 16, 31, 0x10);
	expect_runrec_bad(f->path, f->run, f->other);
}

static void expect_verify(const char *path, int want, const char *run,
			  uint64_t seq, const char *msg)
{
	kt_store *s;
	const char *bad_run = NULL;
	uint64_t bad_seq = 99;

	assert_int_equal(kt_store_open(path, KT_OPEN_RDONLY, &s), 0);
	assert_int_equal(kt_store_verify(s, NULL, &bad_run, &bad_seq), want);
	if (want) {
		if (!strstr(kt_store_errmsg(s), msg))
			fail_msg("'%s' lacks '%s'", kt_store_errmsg(s), msg);
		assert_non_null(bad_run);
		assert_string_equal(bad_run, run);
		assert_int_equal(bad_seq, seq);
	}
	kt_store_close(s);
}

static void test_old_store(void **state)
{
	struct fx *f = *state;
	kt_store *s;
	kt_run_info ri;
	char third[KT_RUN_ID_HEX + 1];
	unsigned char bin[16];

	/* a store as a ktraj before run checksums left it */
	raw(f->path, "run_sums", NULL, 0, NULL, 0, RAW_DROP);
	assert_int_equal(kt_store_open(f->path, KT_OPEN_RDONLY, &s), 0);
	assert_int_equal(kt_run_get(s, f->run, &ri), 0);
	assert_int_equal(ri.checksum, 0);
	assert_string_equal(ri.name, MARK_NAME);
	assert_int_equal(kt_store_verify(s, NULL, NULL, NULL), 0);
	kt_store_close(s);
	/* a writer adds run_sums; new runs get a checksum, old ones not */
	kt_run_id_from_identity("test:third", third);
	assert_int_equal(kt_store_open(f->path, KT_OPEN_CREATE, &s), 0);
	assert_int_equal(kt_store_begin(s), 0);
	assert_int_equal(kt_run_create(s, third, "third", "test", NULL), 0);
	assert_int_equal(kt_store_commit(s), 0);
	assert_int_equal(kt_run_get(s, third, &ri), 0);
	assert_int_equal(ri.checksum, 1);
	assert_int_equal(kt_run_get(s, f->run, &ri), 0);
	assert_int_equal(ri.checksum, 0);
	assert_int_equal(kt_store_verify(s, NULL, NULL, NULL), 0);
	kt_store_close(s);
	/* a run an older ktraj created in a store that has run_sums */
	assert_int_equal(kt_unhex(third, bin, 16), 0);
	raw(f->path, "run_sums", bin, 16, NULL, 0, RAW_DEL);
	expect_verify(f->path, 0, NULL, 0, NULL);
	/* a checksum of a run that does not exist */
	{
		unsigned char ghost[16], sum[KT_HASH_LEN] = { 1 };
		char gh[KT_RUN_ID_HEX + 1];

		kt_run_id_from_identity("test:ghost", gh);
		assert_int_equal(kt_unhex(gh, ghost, 16), 0);
		raw(f->path, "run_sums", ghost, 16, sum, sizeof(sum), RAW_PUT);
		expect_verify(f->path, KT_ECORRUPT, gh, 0,
			      "run_sums entry names a run that does not exist");
	}
}

/* Whether the store file lists database db in LMDB's main database. */
static int lists_db(const char *path, const char *db)
{
	MDB_env *env = tu_env_open(path);
	MDB_txn *txn;
	MDB_dbi dbi;
	int rc;

	assert_int_equal(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn), 0);
	rc = mdb_dbi_open(txn, db, 0, &dbi);
	mdb_txn_abort(txn);
	mdb_env_close(env);
	return rc == 0;
}

/* Every database KT_DBS marks KT_DB_ADDED, dropped as a store written
 * before it lacks it: readers open and verify the store and read its runs,
 * and the first writer adds the database back.  A database without the
 * mark, dropped, leaves a damaged store.  Driven by the table, so a new
 * index marked KT_DB_ADDED is covered without a new test. */
static void test_added_dbs(void **state)
{
	struct fx *f = *state;
	kt_run_info ri;
	kt_store *s;
	int added = 0;

	for (int i = 0; i < KT_DB_COUNT; i++) {
		if (!kt_db_added[i])
			continue;
		added++;
		raw(f->path, kt_db_names[i], NULL, 0, NULL, 0, RAW_DROP);
		assert_false(lists_db(f->path, kt_db_names[i]));
		assert_int_equal(kt_store_open(f->path, KT_OPEN_RDONLY, &s), 0);
		assert_int_equal(kt_run_get(s, f->run, &ri), 0);
		assert_string_equal(ri.name, MARK_NAME);
		assert_int_equal(kt_store_verify(s, NULL, NULL, NULL), 0);
		kt_store_close(s);
		assert_false(lists_db(f->path, kt_db_names[i]));
		assert_int_equal(kt_store_open(f->path, 0, &s), 0);
		assert_int_equal(kt_store_verify(s, NULL, NULL, NULL), 0);
		kt_store_close(s);
		assert_true(lists_db(f->path, kt_db_names[i]));
	}
	assert_true(added >= 1); /* run_sums at least (FORMAT.md §6.10) */
	/* one every store has: its absence is damage, not age */
	assert_false(kt_db_added[KT_DB_PATHS]);
	raw(f->path, kt_db_names[KT_DB_PATHS], NULL, 0, NULL, 0, RAW_DROP);
	s = NULL;
	assert_int_equal(kt_store_open(f->path, KT_OPEN_RDONLY, &s),
			 KT_ECORRUPT);
	assert_null(s);
}

static void test_names_index(void **state)
{
	struct fx *f = *state;
	unsigned char key[64];
	size_t nl = strlen(MARK_NAME);

	memcpy(key, MARK_NAME, nl);
	key[nl] = 0;
	assert_int_equal(kt_unhex(f->run, key + nl + 1, 16), 0);
	/* an entry lost: the run cannot be found by its name */
	raw(f->path, "run_names", key, nl + 17, "", 0, RAW_DEL);
	expect_verify(f->path, KT_ECORRUPT, f->run, 0, "run_names");
	/* a flipped entry: names the run, not by its name */
	key[0] ^= 0x01;
	raw(f->path, "run_names", key, nl + 17, "", 0, RAW_PUT);
	expect_verify(f->path, KT_ECORRUPT, f->run, 0,
		      "run_names entry differs from the run's name");
	raw(f->path, "run_names", key, nl + 17, "", 0, RAW_DEL);
	key[0] ^= 0x01;
	raw(f->path, "run_names", key, nl + 17, "", 0, RAW_PUT);
	expect_verify(f->path, 0, NULL, 0, NULL);
}

static size_t pathkey(const char *run, const char *path, uint64_t seq,
		      unsigned char *k)
{
	size_t pl = strlen(path);

	assert_int_equal(kt_unhex(run, k, 16), 0);
	memcpy(k + 16, path, pl);
	k[16 + pl] = 0;
	for (int i = 0; i < 8; i++)
		k[17 + pl + i] = (unsigned char)(seq >> (56 - 8 * i));
	return 16 + pl + 9;
}

static void test_paths_index(void **state)
{
	struct fx *f = *state;
	unsigned char k[128];
	size_t kl;
	kt_store *s;
	unsigned char h[KT_HASH_LEN];
	int del = -1;

	/* the index as append wrote it: x.h deleted at 3 (the later of two
	 * entries of one event), k.cu deleted by the rename at 4 */
	assert_int_equal(kt_store_open(f->path, KT_OPEN_RDONLY, &s), 0);
	assert_int_equal(kt_path_at(s, f->run, "/w/x.h", 3, h, &del), 0);
	assert_int_equal(del, 1);
	assert_int_equal(kt_path_at(s, f->run, "/w/k.cu", 4, h, &del), 0);
	assert_int_equal(del, 1);
	kt_store_close(s);
	/* a flipped content hash of k.cu at seq 2 */
	kl = pathkey(f->run, "/w/k.cu", 2, k);
	tu_flip_value(f->path, "paths", k, kl, 5, 0x10);
	expect_verify(f->path, KT_ECORRUPT, f->run, 2, "/w/k.cu");
	tu_flip_value(f->path, "paths", k, kl, 5, 0x10);
	expect_verify(f->path, 0, NULL, 0, NULL);
	/* an entry lost */
	kl = pathkey(f->run, "/w/k2.cu", 4, k);
	raw(f->path, "paths", k, kl, NULL, 0, RAW_DEL);
	expect_verify(f->path, KT_ECORRUPT, f->run, 4, "/w/k2.cu");
	/* a deletion where the event gave content */
	{
		unsigned char v[1 + KT_HASH_LEN] = { 1 };

		raw(f->path, "paths", k, kl, v, 1, RAW_PUT);
		expect_verify(f->path, KT_ECORRUPT, f->run, 4, "/w/k2.cu");
		v[0] = 0;
		assert_int_equal(kt_unhex(f->b_hex, v + 1, KT_HASH_LEN), 0);
		raw(f->path, "paths", k, kl, v, sizeof(v), RAW_PUT);
		expect_verify(f->path, 0, NULL, 0, NULL);
		/* an entry no event made (its seq flipped) */
		kl = pathkey(f->run, "/w/k2.cu", 4 ^ 0x40, k);
		raw(f->path, "paths", k, kl, v, sizeof(v), RAW_PUT);
		expect_verify(f->path, KT_ECORRUPT, f->run, 4 ^ 0x40,
			      "/w/k2.cu");
		raw(f->path, "paths", k, kl, NULL, 0, RAW_DEL);
	}
	/* paths of a run that does not exist */
	{
		char gh[KT_RUN_ID_HEX + 1];
		unsigned char v[1] = { 1 };

		kt_run_id_from_identity("test:ghost2", gh);
		kl = pathkey(gh, "/w/a", 1, k);
		raw(f->path, "paths", k, kl, v, 1, RAW_PUT);
		expect_verify(f->path, KT_ECORRUPT, gh, 0,
			      "paths entry names a run that does not exist");
	}
}

/* An LMDB file of another program is not taken over by a writer. */
static void test_foreign_lmdb(void **state)
{
	struct fx *f = *state;
	char p[4300];
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	MDB_val k = { 3, "key" }, v = { 5, "value" };
	MDB_stat st;
	kt_store *s = NULL;

	snprintf(p, sizeof(p), "%s/other.mdb", f->dir);
	assert_int_equal(mdb_env_create(&env), 0);
	assert_int_equal(mdb_env_open(env, p, MDB_NOSUBDIR, 0644), 0);
	assert_int_equal(mdb_txn_begin(env, NULL, 0, &txn), 0);
	assert_int_equal(mdb_dbi_open(txn, NULL, 0, &dbi), 0);
	assert_int_equal(mdb_put(txn, dbi, &k, &v, 0), 0);
	assert_int_equal(mdb_txn_commit(txn), 0);
	mdb_env_close(env);
	assert_int_equal(kt_store_open(p, KT_OPEN_RDONLY, &s), KT_ECORRUPT);
	assert_int_equal(kt_store_open(p, KT_OPEN_CREATE, &s), KT_ECORRUPT);
	assert_null(s);
	/* its main database holds its one key, none of ours */
	assert_int_equal(mdb_env_create(&env), 0);
	assert_int_equal(mdb_env_open(env, p, MDB_NOSUBDIR | MDB_RDONLY,
				      0644), 0);
	assert_int_equal(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn), 0);
	assert_int_equal(mdb_stat(txn, 1, &st), 0);
	assert_int_equal(st.ms_entries, 1);
	mdb_txn_abort(txn);
	mdb_env_close(env);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_flip_record_in_file,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_created_and_sum, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_old_store, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_added_dbs, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_names_index, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_paths_index, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_foreign_lmdb, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
