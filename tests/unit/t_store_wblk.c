/*
 * t_store_wblk.c - kt_store_set_write_threads (store_wblk.c): with the
 * worker on, a block sealed and handed over is read back inside the same
 * write transaction, an abort keeps nothing of the transaction's blocks,
 * and two stores given the same appends and aborts, one with the worker and
 * one without, hold the same records (every LMDB record compared).
 */
#include "testutil.h"
#include "tu_lmdb.h"

#define EV_BODY 700     /* payload bytes: ~370 events fill a block */

/* The payload of event seq: words from a generator seeded by seq. */
static const char *payload(uint64_t seq)
{
	static char buf[EV_BODY + 64];
	static const char *const w[] = { "warp", "tile", "ms", "kernel",
					 "1.07", "stride", "sync", "L2" };
	uint32_t x = (uint32_t)seq * 2654435761u + 1;
	size_t n = (size_t)sprintf(buf, "{\"text\":\"%llu",
				   (unsigned long long)seq);

	while (n < EV_BODY) {
		x = x * 1103515245u + 12345u;
		n += (size_t)sprintf(buf + n, " %s", w[(x >> 16) % 8]);
	}
	strcpy(buf + n, "\"}");
	return buf;
}

/* Append events from+1..to to run r of s in the open transaction. */
static void append(kt_store *s, const char *run, uint64_t from, uint64_t to)
{
	for (uint64_t q = from + 1; q <= to; q++)
		tu_append(s, run, q, 0, 1700000000000000000LL + (int64_t)q,
			  KT_KIND_NOTE, "system", payload(q));
}

static void read_is(kt_store *s, const char *run, uint64_t seq)
{
	kt_event ev;
	const char *want = payload(seq);

	assert_int_equal(kt_event_read(s, run, seq, KT_READ_BODY, &ev), 0);
	assert_int_equal(ev.payload_len, strlen(want));
	assert_memory_equal(ev.payload, want, ev.payload_len);
}

/*
 * One store's history: 2,500 events committed (a dictionary is trained at
 * that commit, so later sealed blocks are no longer held for it), 3,000
 * appended and aborted, 3,000 appended with reads of just-sealed blocks
 * inside the transaction, committed.  threads: the worker on or off.
 */
static void history(kt_store *s, int threads)
{
	char run[KT_RUN_ID_HEX + 1];
	kt_event ev;

	kt_run_id_from_identity("wblk", run);
	assert_int_equal(kt_store_set_write_threads(s, threads), 0);
	assert_int_equal(kt_store_begin(s), 0);
	assert_int_equal(kt_run_create(s, run, "wblk", "test", NULL), 0);
	append(s, run, 0, 2500);
	assert_int_equal(kt_store_commit(s), 0);

	assert_int_equal(kt_store_begin(s), 0);
	append(s, run, 2500, 5500);
	assert_int_equal(tu_threads_named("ktraj-blocks"), threads ? 1 : 0);
	kt_store_abort(s);
	assert_int_equal(kt_event_read(s, run, 2501, KT_READ_BODY, &ev),
			 KT_ENOTFOUND);
	read_is(s, run, 2500);

	assert_int_equal(kt_store_begin(s), 0);
	for (uint64_t q = 2500; q < 5500; q += 500) {
		append(s, run, q, q + 500);
		/* the last block sealed may still be on the worker */
		read_is(s, run, q + 1);
		read_is(s, run, q + 400);
	}
	assert_int_equal(kt_store_commit(s), 0);
	read_is(s, run, 5500);
	assert_int_equal(kt_store_verify(s, NULL, NULL, NULL), 0);
	/* off again: the worker stops */
	assert_int_equal(kt_store_set_write_threads(s, 0), 0);
	assert_int_equal(tu_threads_named("ktraj-blocks"), 0);
	assert_int_equal(kt_store_set_write_threads(s, -1), KT_EINVAL);
	assert_int_equal(kt_store_set_write_threads(NULL, 1), KT_EINVAL);
}

static void test_worker_stores_the_same(void **state)
{
	char *da, *db, pa[4300], pb[4300];
	kt_store *a = tu_store_new(&da, pa, sizeof(pa), "a.ktraj", 0);
	kt_store *b = tu_store_new(&db, pb, sizeof(pb), "b.ktraj", 0);

	(void)state;
	history(a, 0);
	history(b, 1);
	kt_store_close(a);
	kt_store_close(b);
	assert_true(tu_same_stores(pa, pb, "ev_blocks") >= 10);
	tu_store_gone(NULL, da);
	tu_store_gone(NULL, db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_worker_stores_the_same),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
