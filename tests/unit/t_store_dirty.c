/*
 * t_store_dirty.c - a §6.11 batch ends by the pages it may dirty, not only
 * by its bytes (FORMAT.md §6.11; kt_store_checkpoint).  Puts keyed by
 * hashes land on a leaf each in a large tree, so the same bytes of writes
 * dirty more of LMDB's pages (held in the heap until the commit) as the
 * store grows: a checkpoint below its byte bound must still commit once
 * the puts may have dirtied a quarter of that bound in pages, and must not
 * while the trees are small enough that they cannot have.
 */
#include "testutil.h"
#include "../../store/store.h"
#include "../../store/store_int.h"

#define BOUND (2u << 20) /* the batch's bytes: 512 pages, a quarter 128 */
#define MORE 1500        /* blobs of the batch: ~150 KB of writes */

/* Blobs from..to-1 of a few dozen bytes each, distinct, in the open txn. */
static void blobs(kt_store *s, int from, int to)
{
	char b[64];
	unsigned char h[KT_HASH_LEN];

	for (int i = from; i < to; i++) {
		int n = snprintf(b, sizeof(b), "tile %d of the kernel", i);

		assert_int_equal(kt_blob_put(s, b, (size_t)n, NULL, h), 0);
	}
}

/* Is there a blob i?  (the batch's blobs must survive its commit) */
static int has_blob(kt_store *s, int i)
{
	char b[64];
	unsigned char h[KT_HASH_LEN];
	int n = snprintf(b, sizeof(b), "tile %d of the kernel", i);

	kt_sha256(b, (size_t)n, h);
	return kt_blob_exists(s, h);
}

/* A small store: MORE blobs fill a few dozen leaves, fewer than
 * KT_DIRTY_MIN pages, and a tenth of the bytes: no commit. */
static void test_small_tree_no_commit(void **state)
{
	char *dir, pa[4300];
	kt_store *s = tu_store_new(&dir, pa, sizeof(pa), "d.ktraj", 0);
	uint64_t commits;

	(void)state;
	assert_int_equal(kt_store_begin(s), 0);
	commits = kt_store_commits(s);
	blobs(s, 0, MORE);
	assert_true(s->wlog.len < BOUND / 4);
	assert_int_equal(kt_store_checkpoint(s, BOUND), 0);
	assert_int_equal(kt_store_commits(s), commits);
	kt_store_abort(s);
	tu_store_gone(s, dir);
}

/* A store of 40,000 blobs (hundreds of leaves): the same MORE blobs, the
 * same bytes, may dirty a page each, past KT_DIRTY_MIN: the checkpoint
 * commits them, and they are stored. */
static void test_large_tree_commits(void **state)
{
	char *dir, pa[4300];
	kt_store *s = tu_store_new(&dir, pa, sizeof(pa), "d.ktraj", 0);
	uint64_t commits;
	MDB_stat st;

	(void)state;
	assert_int_equal(kt_store_begin(s), 0);
	blobs(s, 0, 40000);
	assert_int_equal(kt_store_commit(s), 0);
	assert_int_equal(kt_store_begin(s), 0);
	assert_int_equal(mdb_stat(s->wtxn, s->dbi[KT_DB_BLOBS], &st), 0);
	assert_true(st.ms_leaf_pages > 2 * KT_DIRTY_MIN);
	commits = kt_store_commits(s);
	blobs(s, 40000, 40000 + MORE);
	assert_true(s->wlog.len < BOUND / 4);
	assert_int_equal(kt_store_checkpoint(s, BOUND), 0);
	assert_int_equal(kt_store_commits(s), commits + 1);
	/* the next batch counts from its own start */
	assert_int_equal(kt_store_checkpoint(s, BOUND), 0);
	assert_int_equal(kt_store_commits(s), commits + 1);
	assert_int_equal(kt_store_commit(s), 0);
	assert_int_equal(has_blob(s, 40000), 1);
	assert_int_equal(has_blob(s, 40000 + MORE - 1), 1);
	tu_store_gone(s, dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_tree_no_commit),
		cmocka_unit_test(test_large_tree_commits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
