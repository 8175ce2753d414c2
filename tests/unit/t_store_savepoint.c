/*
 * t_store_savepoint.c - kt_store_savepoint / kt_store_rollback (FORMAT.md
 * §6.12): sources sharing one write transaction, one of them rolled back.
 * The store must then hold, record for record, what a store that never saw
 * the rolled-back source holds: also when that source made the map grow
 * (the transaction is replayed from the write log) or trained a
 * dictionary (memory must forget it), and when a §6.11 checkpoint inside
 * it committed the sources before it.
 */
#include "testutil.h"
#include "tu_lmdb.h"
#include "../../store/store.h"
#include "../../store/store_int.h"

#define EV_BODY 300

/* The payload of event seq of source src: words and numbers from a
 * generator (numbers enough that blocks do not compress to nothing). */
static const char *payload(int src, uint64_t seq)
{
	static char buf[EV_BODY + 64];
	static const char *const w[] = { "warp", "tile", "ms", "kernel",
					 "1.07", "stride", "sync", "L2" };
	uint32_t x = (uint32_t)seq * 2654435761u + (uint32_t)src * 97u + 1;
	size_t n = (size_t)sprintf(buf, "{\"text\":\"%d %llu", src,
				   (unsigned long long)seq);

	while (n < EV_BODY) {
		x = x * 1103515245u + 12345u;
		n += (size_t)sprintf(buf + n, " %s %u", w[(x >> 16) % 8],
				     x % 100000u);
	}
	strcpy(buf + n, "\"}");
	return buf;
}

/* Source src: a run of its own with n events and (blob) a file content,
 * in the open transaction.  A rolled-back source's blob is gone with it,
 * but one that a checkpoint committed stays (FORMAT.md §6.11, "Reclaim"):
 * blob_heads would then differ from a store that never saw it. */
static void source_b(kt_store *s, int src, uint64_t n, int blob_too)
{
	char run[KT_RUN_ID_HEX + 1], ident[32], blob[64];
	unsigned char h[KT_HASH_LEN];

	snprintf(ident, sizeof(ident), "savepoint-%d", src);
	kt_run_id_from_identity(ident, run);
	assert_int_equal(kt_run_create(s, run, ident, "test", NULL), 0);
	for (uint64_t q = 1; q <= n; q++)
		tu_append(s, run, q, 0, 1700000000000000000LL + (int64_t)q,
			  KT_KIND_NOTE, "system", payload(src, q));
	if (!blob_too)
		return;
	snprintf(blob, sizeof(blob), "the kernel of source %d", src);
	assert_int_equal(kt_blob_put(s, blob, strlen(blob), "k.cu", h), 0);
}

static void source(kt_store *s, int src, uint64_t n)
{
	source_b(s, src, n, 1);
}

/* Make the next transaction's writes fill the map: LMDB takes the smallest
 * size that holds what is stored (mdb_env_set_mapsize), so the store must
 * grow it (and replay its write log) within a few puts. */
static void map_tight(kt_store *s)
{
	s->mapsize = 1u << 20;
	assert_int_equal(kt_env_resize(s->env, &s->envmap, (size_t)s->mapsize),
			 0);
}

/* Source 1 and 3 stay, 2 is gone: what both stores must show. */
static void holds_1_and_3(kt_store *s)
{
	char run[KT_RUN_ID_HEX + 1];
	kt_run_info ri;
	uint64_t unf = 1;

	kt_run_id_from_identity("savepoint-2", run);
	assert_int_equal(kt_run_get(s, run, &ri), KT_ENOTFOUND);
	kt_run_id_from_identity("savepoint-3", run);
	assert_int_equal(kt_run_get(s, run, &ri), 0);
	assert_int_equal(ri.n_events, 40);
	assert_int_equal(kt_store_verify(s, NULL, NULL, NULL), 0);
	assert_int_equal(kt_store_unfinished(s, &unf), 0);
	assert_int_equal(unf, 0);
}

/* The store that never saw source 2: 1 and 3, a transaction each. */
static void reference(const char *path)
{
	kt_store *s;

	assert_int_equal(kt_store_open(path, KT_OPEN_CREATE, &s), 0);
	assert_int_equal(kt_store_begin(s), 0);
	source(s, 1, 30);
	assert_int_equal(kt_store_commit(s), 0);
	assert_int_equal(kt_store_begin(s), 0);
	source(s, 3, 40);
	assert_int_equal(kt_store_commit(s), 0);
	holds_1_and_3(s);
	kt_store_close(s);
}

/* Source 2 grows the map and trains the store's first dictionary (10,000
 * bodies sampled), then is rolled back; 1 and 3 share its transaction. */
static void test_rollback_after_growth_and_training(void **state)
{
	char *dir, pa[4300], pb[4300];
	kt_store *s = tu_store_new(&dir, pa, sizeof(pa), "batch.ktraj", 0);
	uint64_t grows, commits;

	(void)state;
	snprintf(pb, sizeof(pb), "%s/alone.ktraj", dir);
	reference(pb);

	map_tight(s);
	commits = kt_store_commits(s);
	assert_int_equal(kt_store_begin(s), 0);
	source(s, 1, 30);
	assert_int_equal(kt_store_savepoint(s), 0);
	grows = s->grows;
	source(s, 2, KT_DICT_TRAIN_AT + 500);
	/* what the rollback must undo happened */
	assert_true(s->grows > grows);
	assert_int_equal(s->ndicts, 1);
	assert_int_equal(kt_store_rollback(s), 0);
	assert_int_equal(s->ndicts, 0);
	assert_non_null(s->wtxn);
	source(s, 3, 40);
	assert_int_equal(kt_store_savepoint(s), 0);
	assert_int_equal(kt_store_commit(s), 0);
	/* one commit for the three sources */
	assert_int_equal(kt_store_commits(s), commits + 1);
	holds_1_and_3(s);
	kt_store_close(s);
	/* every record alike, both runs kept */
	assert_int_equal(tu_same_stores(pa, pb, "runs"), 2);
	tu_store_gone(NULL, dir);
}

/* A §6.11 checkpoint inside source 2 commits source 1 (whole) and holds
 * source 2's run out; the rollback reclaims that run only. */
static void test_rollback_after_checkpoint(void **state)
{
	char *dir, pa[4300], pb[4300];
	kt_store *s = tu_store_new(&dir, pa, sizeof(pa), "batch.ktraj", 0);
	kt_store *r;
	char run[KT_RUN_ID_HEX + 1];
	kt_run_info ri;
	uint64_t commits;

	(void)state;
	snprintf(pb, sizeof(pb), "%s/alone.ktraj", dir);
	reference(pb);

	assert_int_equal(kt_store_begin(s), 0);
	source(s, 1, 30);
	assert_int_equal(kt_store_savepoint(s), 0);
	commits = kt_store_commits(s);
	source_b(s, 2, 50, 0);
	assert_int_equal(kt_store_checkpoint(s, 1), 0);
	assert_int_equal(kt_store_commits(s), commits + 1);
	/* another reader sees source 1, not source 2 */
	assert_int_equal(kt_store_open(pa, 0, &r), 0);
	kt_run_id_from_identity("savepoint-1", run);
	assert_int_equal(kt_run_get(r, run, &ri), 0);
	kt_run_id_from_identity("savepoint-2", run);
	assert_int_equal(kt_run_get(r, run, &ri), KT_ENOTFOUND);
	kt_store_close(r);
	assert_int_equal(kt_store_rollback(s), 0);
	assert_non_null(s->wtxn);
	source(s, 3, 40);
	assert_int_equal(kt_store_savepoint(s), 0);
	assert_int_equal(kt_store_commit(s), 0);
	holds_1_and_3(s);
	kt_store_close(s);
	/* every record alike, both runs kept */
	assert_int_equal(tu_same_stores(pa, pb, "runs"), 2);
	tu_store_gone(NULL, dir);
}

/* The checkpoint's size counts from the savepoint: a source that writes
 * less than min_bytes is not committed in batches because the sources
 * before it in the transaction wrote more. */
static void test_checkpoint_counts_from_savepoint(void **state)
{
	char *dir, pa[4300];
	kt_store *s = tu_store_new(&dir, pa, sizeof(pa), "batch.ktraj", 0);
	uint64_t commits;
	size_t before;

	(void)state;
	assert_int_equal(kt_store_begin(s), 0);
	source(s, 1, 200);
	assert_int_equal(kt_store_savepoint(s), 0);
	before = s->wlog.len;
	assert_true(before > 4096);
	commits = kt_store_commits(s);
	source(s, 2, 3);
	assert_int_equal(kt_store_checkpoint(s, before), 0);
	assert_int_equal(kt_store_commits(s), commits);
	kt_store_abort(s);
	assert_int_equal(kt_store_savepoint(s), KT_EBUSY);
	assert_int_equal(kt_store_savepoint(NULL), KT_EINVAL);
	assert_int_equal(kt_store_rollback(NULL), KT_EINVAL);
	tu_store_gone(s, dir);
}

/* Map growth that fails (the map at its limit) takes the transaction with
 * it: the rollback then says so (KT_EIO), nothing since the last commit
 * is kept, and the handle begins again. */
static void test_rollback_of_a_lost_transaction(void **state)
{
	char *dir, pa[4300], run[KT_RUN_ID_HEX + 1];
	kt_store *s = tu_store_new(&dir, pa, sizeof(pa), "batch.ktraj", 0);
	kt_run_info ri;
	kt_event ev = { 0 };
	int rc = 0;

	(void)state;
	assert_int_equal(kt_store_begin(s), 0);
	source(s, 1, 30);
	assert_int_equal(kt_store_commit(s), 0);
	/* the map (1 MiB) may not grow any more */
	map_tight(s);
	s->mapsize = KT_MAP_LIMIT;
	assert_int_equal(kt_store_begin(s), 0);
	source(s, 2, 30);
	assert_int_equal(kt_store_savepoint(s), 0);
	kt_run_id_from_identity("savepoint-3", run);
	assert_int_equal(kt_run_create(s, run, "savepoint-3", "test", NULL), 0);
	for (uint64_t q = 1; q <= 100000 && rc == 0; q++) {
		ev.seq = q;
		ev.ts_ns = 1700000000000000000LL + (int64_t)q;
		ev.kind = KT_KIND_NOTE;
		ev.actor = "system";
		ev.payload = payload(3, q);
		ev.payload_len = strlen(ev.payload);
		rc = kt_event_append(s, run, &ev);
	}
	assert_int_equal(rc, KT_ELIMIT);
	assert_null(s->wtxn);
	assert_int_equal(kt_store_rollback(s), KT_EIO);
	assert_null(s->wtxn);
	s->mapsize = KT_MAP_INITIAL;
	assert_int_equal(kt_env_resize(s->env, &s->envmap, (size_t)s->mapsize),
			 0);
	assert_int_equal(kt_store_begin(s), 0);
	source(s, 4, 10);
	assert_int_equal(kt_store_commit(s), 0);
	kt_run_id_from_identity("savepoint-1", run);
	assert_int_equal(kt_run_get(s, run, &ri), 0);
	kt_run_id_from_identity("savepoint-2", run);
	assert_int_equal(kt_run_get(s, run, &ri), KT_ENOTFOUND);
	kt_run_id_from_identity("savepoint-3", run);
	assert_int_equal(kt_run_get(s, run, &ri), KT_ENOTFOUND);
	kt_run_id_from_identity("savepoint-4", run);
	assert_int_equal(kt_run_get(s, run, &ri), 0);
	assert_int_equal(kt_store_verify(s, NULL, NULL, NULL), 0);
	tu_store_gone(s, dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rollback_after_growth_and_training),
		cmocka_unit_test(test_rollback_after_checkpoint),
		cmocka_unit_test(test_checkpoint_counts_from_savepoint),
		cmocka_unit_test(test_rollback_of_a_lost_transaction),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
