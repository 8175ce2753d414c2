/*
 * store_stats.c - kt_store_stats_get: counts and sizes of a run or the
 * whole store, from the run records, the pages and the block headers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include "store_int.h"

/* ---- statistics ---------------------------------------------------------- */

/* Pages and blocks of one run (or all, run NULL) into st. */
static int stats_events(kt_store *s, MDB_txn *txn, const unsigned char *run,
			kt_store_stats *st)
{
	MDB_cursor *c;
	MDB_val k, v;
	unsigned char kb[KT_RUN_BIN], last[KT_RUN_BIN];
	int rc, have = 0, skip = 0;

	for (int d = 0; d < 2; d++) {
		rc = mdb_cursor_open(txn, s->dbi[d ? KT_DB_BLOCKS :
						 KT_DB_PAGES], &c);
		if (rc)
			return kt_mdb_err(s, rc, "cursor");
		if (run)
			memcpy(kb, run, KT_RUN_BIN);
		k.mv_size = run ? KT_RUN_BIN : 0;
		k.mv_data = kb;
		for (rc = mdb_cursor_get(c, &k, &v, run ? MDB_SET_RANGE :
					 MDB_FIRST); rc == 0;
		     rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
			const unsigned char *kp = k.mv_data;

			if (k.mv_size < KT_RUN_BIN + 8 ||
			    (run && memcmp(kp, run, KT_RUN_BIN)))
				break;
			/* an unfinished import's run is no run yet (§6.11) */
			if (!run && (!have || memcmp(last, kp, KT_RUN_BIN))) {
				memcpy(last, kp, KT_RUN_BIN);
				have = 1;
				skip = kt_unfinished_has(s, txn, kp);
			}
			if (skip)
				continue;
			st->event_stored_bytes += v.mv_size;
			if (d == 0) {
				struct kt_prow rows[KT_PAGE_N];
				uint32_t cnt;

				if (kt_page_parse(v.mv_data, v.mv_size,
						  kt_rd64(kp + KT_RUN_BIN),
						  NULL, rows, KT_PAGE_N,
						  &cnt) == 0) {
					st->events += cnt;
					for (uint32_t i = 0; i < cnt; i++)
						st->events_by_kind[
							rows[i].kind]++;
				}
			} else if (k.mv_size == KT_RUN_BIN + 9) {
				struct kt_blkview bv;

				if (kt_block_parse(v.mv_data, v.mv_size,
						   kp[KT_RUN_BIN], &bv) == 0)
					st->event_raw_bytes += bv.raw_len +
						(uint64_t)bv.n *
						KT_CANON_PREFIX;
			}
		}
		mdb_cursor_close(c);
		if (rc && rc != MDB_NOTFOUND)
			return kt_mdb_err(s, rc, "cursor");
	}
	return 0;
}

int kt_store_stats_get(kt_store *s, const char *run, kt_store_stats *st)
{
	unsigned char bin[KT_RUN_BIN];
	struct kt_buf refs = { 0 };
	MDB_txn *txn;
	MDB_stat ms;
	struct stat fs;
	int rc;

	if (!s || !st)
		return KT_EINVAL;
	memset(st, 0, sizeof(*st));
	if ((rc = kt_run_begin(s, run, bin, &txn)) != 0)
		return rc;
	if (stat(s->path, &fs) == 0)
		st->file_bytes = (uint64_t)fs.st_size;
	if (run) {
		MDB_val rv;

		rc = kt_run_rec(s, txn, bin, run, &rv);
		if (rc)
			goto out;
		st->runs = 1;
	} else if (mdb_stat(txn, s->dbi[KT_DB_RUNS], &ms) == 0) {
		st->runs = ms.ms_entries;
	}
	if (mdb_stat(txn, s->dbi[KT_DB_DICTS], &ms) == 0)
		st->dicts = ms.ms_entries;
	rc = stats_events(s, txn, run ? bin : NULL, st);
	if (rc)
		goto out;
	if (!run) {
		rc = kt_blob_stats(s, txn, st);
		goto out;
	}
	/* one run: the distinct blobs its payloads name */
	{
		struct kt_scan sc;
		uint64_t n;
		unsigned char chain[KT_HASH_LEN];
		size_t u;

		rc = kt_run_n(s, txn, bin, &n, NULL);
		if (rc == 0)
			rc = kt_scan_open(&sc, s, txn, bin);
		if (rc)
			goto out;
		rc = kt_scan_run(&sc, n, 1, n, 0, KT_READ_BODY, chain, kt_refs_cb,
			      &refs);
		kt_scan_close(&sc);
		if (rc)
			goto out;
		u = kt_refs_uniq(&refs);
		for (size_t i = 0; i < u; i++) {
			MDB_val bk = { KT_HASH_LEN, refs.p + i * KT_HASH_LEN };
			MDB_val bv;

			if (mdb_get(txn, s->dbi[KT_DB_BLOBS], &bk, &bv) != 0)
				continue;
			st->blobs++;
			if (bv.mv_size >= 10)
				st->blob_raw_bytes += kt_rd64(
					(unsigned char *)bv.mv_data + 2);
			st->blob_stored_bytes += bv.mv_size;
		}
	}
out:
	kt_rd_end(s, txn);
	free(refs.p);
	return rc;
}
