/*
 * t_store_smallruns.c - a fresh store's dictionary when the runs are small
 * (issue 21, "10,000 small sessions in a folder"): runs of a few events
 * never seal a block, so nothing is held for the dictionary, and the
 * transaction that ends with at least KT_DICT_MIN_AT bodies kept must still
 * train on them (FORMAT.md §7.2), not wait for KT_DICT_TRAIN_AT bodies
 * while every run's frames go without one.
 */
#include "testutil.h"
#include "../../store/store.h"
#include "../../store/store_int.h"

/* A body of about `len` bytes for event seq of run r: words and numbers,
 * so frames neither vanish nor fail to compress. */
static const char *payload(int r, uint64_t seq, size_t len)
{
	static char buf[1024];
	static const char *const w[] = { "warp", "tile", "ms", "kernel",
					 "1.07", "stride", "sync", "L2" };
	uint32_t x = (uint32_t)seq * 2654435761u + (uint32_t)r * 97u + 1;
	size_t n = (size_t)sprintf(buf, "{\"text\":\"%d %llu", r,
				   (unsigned long long)seq);

	while (n < len) {
		x = x * 1103515245u + 12345u;
		n += (size_t)sprintf(buf + n, " %s %u", w[(x >> 16) % 8],
				     x % 100000u);
	}
	strcpy(buf + n, "\"}");
	return buf;
}

/* Runs first..first+nruns-1, each of per events of ~len bytes, in the open
 * transaction. */
static void small_runs(kt_store *s, int first, int nruns, uint64_t per,
		       size_t len)
{
	for (int r = first; r < first + nruns; r++) {
		char run[KT_RUN_ID_HEX + 1], ident[32];

		snprintf(ident, sizeof(ident), "small-%05d", r);
		kt_run_id_from_identity(ident, run);
		assert_int_equal(kt_run_create(s, run, ident, "test", NULL), 0);
		for (uint64_t q = 1; q <= per; q++)
			tu_append(s, run, q, 0,
				  1700000000000000000LL + (int64_t)q,
				  KT_KIND_NOTE, "system", payload(r, q, len));
	}
}

/* How many event blocks name a dictionary (FORMAT.md §6.4: bytes 2-5 of
 * the value), of *all. */
static size_t blocks_with_dict(kt_store *s, size_t *all)
{
	MDB_txn *t;
	MDB_cursor *c;
	MDB_val k, v;
	size_t n = 0;
	int rc;

	*all = 0;
	assert_int_equal(kt_rd_begin(s, &t), 0);
	assert_int_equal(mdb_cursor_open(t, s->dbi[KT_DB_BLOCKS], &c), 0);
	for (rc = mdb_cursor_get(c, &k, &v, MDB_FIRST); rc == 0;
	     rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
		const unsigned char *p = v.mv_data;

		assert_true(v.mv_size >= BLK_HDR);
		++*all;
		n += (p[2] | p[3] | p[4] | p[5]) != 0;
	}
	mdb_cursor_close(c);
	kt_rd_end(s, t);
	return n;
}

static uint64_t dicts(kt_store *s)
{
	kt_store_stats st;

	assert_int_equal(kt_store_stats_get(s, NULL, &st), 0);
	return st.dicts;
}

/* 300 runs of 8 events (2,400 bodies, ~1 MB, ~2.4 KB a run: no block
 * seals) in one transaction: its commit trains the dictionary (before it
 * writes the open run's blocks), and every block of the next
 * transaction's 300 runs names it. */
static void test_small_runs_train_at_commit(void **state)
{
	char *dir, path[4300];
	kt_store *s = tu_store_new(&dir, path, sizeof(path), "s.ktraj", 0);
	size_t with, all;

	(void)state;
	assert_int_equal(kt_store_begin(s), 0);
	small_runs(s, 0, 300, 8, 300);
	assert_int_equal(s->ndfb, 0); /* nothing held: the case at hand */
	assert_int_equal(kt_store_commit(s), 0);
	assert_int_equal(dicts(s), 1);
	with = blocks_with_dict(s, &all);
	assert_int_equal(all, 300);
	assert_int_equal(with, 1); /* the run open at the commit */

	assert_int_equal(kt_store_begin(s), 0);
	small_runs(s, 300, 300, 8, 300);
	assert_int_equal(kt_store_commit(s), 0);
	assert_int_equal(dicts(s), 1);
	with = blocks_with_dict(s, &all);
	assert_int_equal(all, 600);
	assert_int_equal(with, 301);
	assert_int_equal(kt_store_verify(s, NULL, NULL, NULL), 0);
	tu_store_gone(s, dir);
}

/* Under KT_DICT_MIN_AT bodies a commit never trains (a few appends). */
static void test_few_bodies_never_train(void **state)
{
	char *dir, path[4300];
	kt_store *s = tu_store_new(&dir, path, sizeof(path), "s.ktraj", 0);

	(void)state;
	assert_int_equal(kt_store_begin(s), 0);
	small_runs(s, 0, 100, 8, 300);
	assert_int_equal(kt_store_commit(s), 0);
	assert_int_equal(dicts(s), 0);
	tu_store_gone(s, dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_runs_train_at_commit),
		cmocka_unit_test(test_few_bodies_never_train),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
