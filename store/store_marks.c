/*
 * store_marks.c - hiding runs (FORMAT.md §6.1 "Run marks"): `ktraj hide`
 * and `unhide` append a record to the meta database instead of deleting
 * or rewriting anything, so the store stays append-only and a hidden run
 * is still there, whole and verifiable, for `--all` and for unhide.
 *
 * Meta, not a database of its own: FORMAT.md §6.1 has readers ignore meta
 * keys they do not know, so a store with marks still opens in an earlier
 * ktraj of format 2 (which then shows every run), while a new database
 * would change §5's list of names that tells a damaged store from
 * another program's file.
 */
#include <string.h>
#include <time.h>

#include "store_int.h"

#define MARK_TAG "hide"
#define MARK_TAG_LEN 4
#define MARK_KEY_LEN (MARK_TAG_LEN + KT_RUN_BIN + 8)
#define MARK_VAL_LEN 9 /* u8 state || be64 ts */

static int is_mark_key(const MDB_val *k)
{
	return k->mv_size == MARK_KEY_LEN &&
	       !memcmp(k->mv_data, MARK_TAG, MARK_TAG_LEN);
}

/* The newest mark of run `bin`: *n its number (0 when none), *state its
 * state (0 when none). */
static int last_mark(kt_store *s, MDB_txn *txn, const unsigned char *bin,
		     uint64_t *n, int *state)
{
	unsigned char key[MARK_KEY_LEN];
	MDB_cursor *c = NULL;
	MDB_val k = { sizeof(key), key }, v;
	int rc;

	*n = 0;
	*state = 0;
	memcpy(key, MARK_TAG, MARK_TAG_LEN);
	memcpy(key + MARK_TAG_LEN, bin, KT_RUN_BIN);
	memset(key + MARK_TAG_LEN + KT_RUN_BIN, 0xff, 8);
	rc = mdb_cursor_open(txn, s->dbi[KT_DB_META], &c);
	if (rc)
		return kt_mdb_err(s, rc, "cursor");
	/* the key after this run's last possible mark, then one back */
	rc = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE);
	if (rc == 0)
		rc = mdb_cursor_get(c, &k, &v, MDB_PREV);
	else if (rc == MDB_NOTFOUND)
		rc = mdb_cursor_get(c, &k, &v, MDB_LAST);
	if (rc == 0 && is_mark_key(&k) &&
	    !memcmp((unsigned char *)k.mv_data + MARK_TAG_LEN, bin, KT_RUN_BIN)) {
		if (v.mv_size != MARK_VAL_LEN ||
		    ((unsigned char *)v.mv_data)[0] > 1) {
			rc = kt_err(s, KT_ECORRUPT, "bad hide record");
		} else {
			*n = kt_rd64((unsigned char *)k.mv_data + MARK_TAG_LEN +
				     KT_RUN_BIN);
			*state = ((unsigned char *)v.mv_data)[0];
		}
	} else if (rc == 0 || rc == MDB_NOTFOUND) {
		rc = 0;
	} else {
		rc = kt_mdb_err(s, rc, "cursor");
	}
	mdb_cursor_close(c);
	return rc;
}

int kt_run_hide(kt_store *s, const char *id, int hide)
{
	unsigned char bin[KT_RUN_BIN], key[MARK_KEY_LEN], val[MARK_VAL_LEN];
	MDB_val v;
	struct timespec ts;
	uint64_t n;
	int rc, state;

	if (!s || (hide != 0 && hide != 1))
		return KT_EINVAL;
	if (!s->wtxn)
		return kt_err(s, KT_EBUSY, "no write transaction");
	if ((rc = kt_run_bin(s, id, bin)) != 0)
		return rc;
	if ((rc = kt_run_rec(s, s->wtxn, bin, id, &v)) != 0)
		return rc;
	if ((rc = last_mark(s, s->wtxn, bin, &n, &state)) != 0)
		return rc;
	if (state == hide)
		return 1;
	memcpy(key, MARK_TAG, MARK_TAG_LEN);
	memcpy(key + MARK_TAG_LEN, bin, KT_RUN_BIN);
	kt_be64(key + MARK_TAG_LEN + KT_RUN_BIN, n + 1);
	clock_gettime(CLOCK_REALTIME, &ts);
	val[0] = (unsigned char)hide;
	kt_be64(val + 1, (uint64_t)ts.tv_sec * 1000000000ull +
		(uint64_t)ts.tv_nsec);
	return kt_put(s, KT_DB_META, key, sizeof(key), val, sizeof(val),
		      MDB_NOOVERWRITE);
}

int kt_run_hidden(kt_store *s, const char *id)
{
	unsigned char bin[KT_RUN_BIN];
	MDB_txn *txn;
	uint64_t n;
	int rc, state;

	if (!s)
		return KT_EINVAL;
	if ((rc = kt_run_begin(s, id, bin, &txn)) != 0)
		return rc;
	rc = last_mark(s, txn, bin, &n, &state);
	kt_rd_end(s, txn);
	return rc ? rc : state;
}

int kt_run_marks_stats(kt_store *s, kt_marks_stats *st)
{
	unsigned char prev[KT_RUN_BIN] = { 0 };
	MDB_txn *txn;
	MDB_cursor *c = NULL;
	MDB_val k = { MARK_TAG_LEN, MARK_TAG }, v;
	int rc, op = MDB_SET_RANGE, have = 0;

	if (!s || !st)
		return KT_EINVAL;
	memset(st, 0, sizeof(*st));
	if ((rc = kt_rd_begin(s, &txn)) != 0)
		return rc;
	rc = mdb_cursor_open(txn, s->dbi[KT_DB_META], &c);
	if (rc) {
		rc = kt_mdb_err(s, rc, "cursor");
		goto out;
	}
	while ((rc = mdb_cursor_get(c, &k, &v, op)) == 0) {
		const unsigned char *run = (unsigned char *)k.mv_data +
					   MARK_TAG_LEN;

		op = MDB_NEXT;
		if (k.mv_size < MARK_TAG_LEN ||
		    memcmp(k.mv_data, MARK_TAG, MARK_TAG_LEN))
			break;
		if (!is_mark_key(&k))
			continue; /* another meta key that starts so */
		st->records++;
		st->record_bytes += k.mv_size + v.mv_size;
		/* marks of one run are adjacent, in order: each one before
		 * the run's last is superseded */
		if (have && !memcmp(prev, run, KT_RUN_BIN)) {
			st->superseded++;
			st->superseded_bytes += k.mv_size + v.mv_size;
		}
		memcpy(prev, run, KT_RUN_BIN);
		have = 1;
	}
	rc = rc == MDB_NOTFOUND || rc == 0 ? 0 : kt_mdb_err(s, rc, "cursor");
out:
	return kt_rd_close(s, txn, c, rc);
}
