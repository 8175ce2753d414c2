/*
 * store_verify.c - every check `ktraj verify` runs (FORMAT.md §4 lists
 * them): a run's pages, blocks and hash chain through a strict scan
 * (store_scan.c), the orphans of the whole store, then the records the
 * chain does not cover (below).
 *
 * The records the chain does not cover: the run record's checksum
 * (run_sums), the run_names index and the paths index (FORMAT.md §6.10).
 * The chain covers every event byte, the blob keys cover every blob, but
 * a flipped byte in a run's name, format or meta, in a run_names key or in
 * a paths entry changed what `ls`, `export`, `cat --at` and `diff` say
 * while `verify` said ok.  The name and paths indexes are derived data, so
 * verify rebuilds them from their source (the run records, the edit and
 * tool_result payloads) and compares; the run record is source data, so
 * it carries a checksum of its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "store_int.h"

/* ---- pages, blocks and the hash chain of a run; orphans ------------------ */

/*
 * Check one run: pages 1..n present and full, every block of the run
 * frames and decodes, every event's body is in exactly one block of its
 * kind, the chain recomputed from h0 matches every page checkpoint and the
 * head in the run record.  Refs of the payloads go to refs (may be NULL).
 */
static int verify_run(kt_store *s, MDB_txn *txn,
		      const unsigned char run[KT_RUN_BIN], struct kt_buf *refs,
		      uint64_t *bad_seq)
{
	unsigned char head[KT_HASH_LEN], chain[KT_HASH_LEN], kb[KT_RUN_BIN];
	uint64_t n, blk_events[KT_KIND_MAX_ + 1] = { 0 }, pages = 0;
	struct kt_scan sc;
	MDB_cursor *c = NULL;
	MDB_val k, v;
	int rc;

	*bad_seq = 0;
	rc = kt_run_n(s, txn, run, &n, head);
	if (rc)
		return rc == KT_ENOTFOUND ? kt_err(s, KT_ECORRUPT, "no run "
						   "record") : rc;
	rc = kt_scan_open(&sc, s, txn, run);
	if (rc)
		return rc;
	sc.strict = 1;
	kt_chain_h0(chain);
	if (n) {
		rc = kt_scan_run(&sc, n, 1, n, 0, KT_READ_BODY | KT_READ_HASH,
			      chain, kt_refs_cb, refs);
		if (rc) {
			*bad_seq = sc.bad_seq;
			goto out;
		}
	}
	if (memcmp(chain, head, KT_HASH_LEN) != 0) {
		rc = kt_head_mismatch(s, n, bad_seq);
		goto out;
	}
	/* blocks: framing of each, and no event outside 1..n or twice */
	memcpy(kb, run, KT_RUN_BIN);
	k.mv_size = KT_RUN_BIN;
	k.mv_data = kb;
	for (rc = mdb_cursor_get(sc.c, &k, &v, MDB_SET_RANGE); rc == 0;
	     rc = mdb_cursor_get(sc.c, &k, &v, MDB_NEXT)) {
		const unsigned char *kp = k.mv_data;
		struct kt_blkview bv;
		uint64_t first;

		if (k.mv_size < KT_RUN_BIN || memcmp(kp, run, KT_RUN_BIN))
			break;
		first = k.mv_size == KT_RUN_BIN + 9 ?
			kt_rd64(kp + KT_RUN_BIN + 1) : 0;
		*bad_seq = first;
		if (k.mv_size != KT_RUN_BIN + 9 || kp[KT_RUN_BIN] < 1 ||
		    kp[KT_RUN_BIN] > KT_KIND_MAX_ ||
		    kt_block_parse(v.mv_data, v.mv_size, kp[KT_RUN_BIN],
				   &bv)) {
			rc = kt_err(s, KT_ECORRUPT, "bad block at seq %llu",
				    (unsigned long long)first);
			goto out;
		}
		if (first == 0 || first > n) {
			rc = kt_err(s, KT_ECORRUPT, "block beyond the run's "
				    "last event");
			goto out;
		}
		/* framing of blocks the chain pass did not read */
		if (kt_block_decode(s, v.mv_data, v.mv_size, kp[KT_RUN_BIN],
				    first, &sc.it[0].sb.b) ||
		    sc.it[0].sb.b.seq[sc.it[0].sb.b.n - 1] > n) {
			rc = kt_err(s, KT_ECORRUPT, "block at seq %llu does "
				    "not decode", (unsigned long long)first);
			goto out;
		}
		blk_events[kp[KT_RUN_BIN]] += bv.n;
	}
	if (rc && rc != MDB_NOTFOUND) {
		rc = kt_mdb_err(s, rc, "cursor");
		goto out;
	}
	rc = 0;
	*bad_seq = 0;
	for (int kd = 1; kd <= KT_KIND_MAX_; kd++)
		if (blk_events[kd] != sc.kind_events[kd]) {
			rc = kt_err(s, KT_ECORRUPT, "blocks of kind %s hold "
				    "%llu events, the pages %llu",
				    kt_kind_name(kd),
				    (unsigned long long)blk_events[kd],
				    (unsigned long long)sc.kind_events[kd]);
			goto out;
		}
	/* pages: exactly those of 1..n */
	rc = mdb_cursor_open(txn, s->dbi[KT_DB_PAGES], &c);
	if (rc) {
		rc = kt_mdb_err(s, rc, "cursor");
		goto out;
	}
	k.mv_size = KT_RUN_BIN;
	k.mv_data = kb;
	for (rc = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE); rc == 0;
	     rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
		if (k.mv_size < KT_RUN_BIN ||
		    memcmp(k.mv_data, run, KT_RUN_BIN))
			break;
		pages++;
	}
	rc = 0;
	if (pages != (n + KT_PAGE_N - 1) / KT_PAGE_N)
		rc = kt_err(s, KT_ECORRUPT, "%llu header pages for %llu "
			    "events", (unsigned long long)pages,
			    (unsigned long long)n);
out:
	if (c)
		mdb_cursor_close(c);
	kt_scan_close(&sc);
	return rc;
}

/* Keys of blocks and pages whose run does not exist. */
static int verify_orphans(kt_store *s, MDB_txn *txn)
{
	static const int dbs[] = { KT_DB_BLOCKS, KT_DB_PAGES };
	int rc = 0;

	for (size_t d = 0; d < 2 && rc == 0; d++) {
		MDB_cursor *c;
		MDB_val k, v;
		unsigned char last[KT_RUN_BIN];
		int have = 0;

		rc = mdb_cursor_open(txn, s->dbi[dbs[d]], &c);
		if (rc)
			return kt_mdb_err(s, rc, "cursor");
		for (rc = mdb_cursor_get(c, &k, &v, MDB_FIRST); rc == 0;
		     rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
			MDB_val rk = { KT_RUN_BIN, k.mv_data }, rv;

			if (k.mv_size < KT_RUN_BIN) {
				rc = KT_ECORRUPT;
				break;
			}
			if (have && !memcmp(last, k.mv_data, KT_RUN_BIN))
				continue;
			memcpy(last, k.mv_data, KT_RUN_BIN);
			have = 1;
			if (mdb_get(txn, s->dbi[KT_DB_RUNS], &rk, &rv) != 0 &&
			    !kt_unfinished_has(s, txn, last)) {
				rc = KT_ECORRUPT;
				break;
			}
		}
		mdb_cursor_close(c);
		if (rc == MDB_NOTFOUND)
			rc = 0;
		if (rc == KT_ECORRUPT) {
			kt_hex(last, KT_RUN_BIN, s->bad_run);
			return kt_err(s, KT_ECORRUPT, "events of a run that "
				      "does not exist");
		}
		if (rc)
			return kt_mdb_err(s, rc, "cursor");
	}
	return 0;
}

int kt_store_verify(kt_store *s, const char *run, const char **bad_run,
		    uint64_t *bad_seq)
{
	unsigned char bin[KT_RUN_BIN], badh[KT_HASH_LEN];
	struct kt_buf refs = { 0 };
	MDB_txn *txn;
	MDB_cursor *c = NULL;
	MDB_val k, v;
	uint64_t bseq = 0;
	int rc;

	if (!s)
		return KT_EINVAL;
	if (bad_run)
		*bad_run = NULL;
	if (bad_seq)
		*bad_seq = 0;
	s->bad_run[0] = 0;
	if ((rc = kt_run_begin(s, run, bin, &txn)) != 0)
		return rc;
	if (run) {
		MDB_val rv;

		rc = kt_run_rec(s, txn, bin, run, &rv);
		if (rc)
			goto out;
		rc = verify_run(s, txn, bin, &refs, &bseq);
		if (rc == 0)
			rc = kt_verify_run_records(s, txn, bin, &bseq);
		if (rc)
			goto bad;
	} else {
		rc = verify_orphans(s, txn);
		if (rc == 0)
			rc = kt_verify_store_records(s, txn);
		if (rc) {
			if (bad_run && s->bad_run[0])
				*bad_run = s->bad_run;
			goto out;
		}
		rc = mdb_cursor_open(txn, s->dbi[KT_DB_RUNS], &c);
		if (rc) {
			rc = kt_mdb_err(s, rc, "cursor");
			goto out;
		}
		for (rc = mdb_cursor_get(c, &k, &v, MDB_FIRST); rc == 0;
		     rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
			if (k.mv_size != KT_RUN_BIN) {
				rc = kt_err(s, KT_ECORRUPT, "bad run key");
				goto out;
			}
			memcpy(bin, k.mv_data, KT_RUN_BIN);
			rc = verify_run(s, txn, bin, NULL, &bseq);
			if (rc == 0)
				rc = kt_verify_run_records(s, txn, bin, &bseq);
			if (rc)
				goto bad;
		}
		if (rc != MDB_NOTFOUND) {
			rc = kt_mdb_err(s, rc, "cursor");
			goto out;
		}
		mdb_cursor_close(c);
		c = NULL;
	}
	if (run) {
		size_t u = kt_refs_uniq(&refs);

		rc = kt_blob_verify(s, refs.p, u, badh);
	} else {
		rc = kt_blob_verify(s, NULL, 0, badh);
	}
	if (rc == KT_ECORRUPT) {
		char hx[KT_HASH_HEX + 1], ref[KT_RUN_ID_HEX + 1], what[100];
		uint64_t rs = 0;

		kt_hex(badh, KT_HASH_LEN, hx);
		/* name an event that reads it: the blob alone says nothing of
		 * what its damage costs (a lookup only on this failure) */
		int frc = kt_blobref_find(s, run, badh, ref, &rs, what,
					  sizeof(what));

		if (frc == 0) {
			memcpy(s->bad_run, ref, sizeof(ref));
			if (bad_run)
				*bad_run = s->bad_run;
			if (bad_seq)
				*bad_seq = rs;
			rc = kt_err(s, KT_ECORRUPT, "blob %s (its %s) does "
				    "not match its hash", hx, what);
		} else {
			rc = kt_err(s, KT_ECORRUPT, "blob %s does not match "
				    "its hash%s", hx, frc == KT_ENOTFOUND ?
				    " (no event names it)" : "");
		}
	}
	goto out;
bad:
	if (rc == KT_ECORRUPT || rc == KT_ENOMEM) {
		char msg[sizeof(s->err)];

		kt_hex(bin, KT_RUN_BIN, s->bad_run);
		if (bad_run)
			*bad_run = s->bad_run;
		if (bad_seq)
			*bad_seq = bseq;
		snprintf(msg, sizeof(msg), "%s", s->err);
		if (bseq)
			kt_err(s, rc, "run %s seq %llu: %s", s->bad_run,
			       (unsigned long long)bseq, msg);
		else
			kt_err(s, rc, "run %s: %s", s->bad_run, msg);
	}
out:
	if (c)
		mdb_cursor_close(c);
	kt_rd_end(s, txn);
	free(refs.p);
	return rc;
}

/* ---- blob references: each names a stored blob ---------------------- */

struct vrun {
	kt_store *s;
	uint64_t bad_seq;
	char what[200];
};

static int verify_ev(const kt_event *ev, void *arg)
{
	struct vrun *v = arg;
	kt_blobref bad;
	cJSON *p;
	int rc;

	/* parse only payloads that can hold a reference */
	if (!ev->payload || (ev->kind != KT_KIND_EDIT &&
			     !memmem(ev->payload, ev->payload_len, "_blob\"", 6) &&
			     !memmem(ev->payload, ev->payload_len, "\"blob\"", 6)))
		return 0;
	p = cJSON_ParseWithLength(ev->payload, ev->payload_len);
	if (!p) {
		v->bad_seq = ev->seq;
		snprintf(v->what, sizeof(v->what), "payload is not JSON");
		return KT_ECORRUPT;
	}
	rc = kt_blobref_check(v->s, ev->kind, p, &bad);
	if (rc == KT_ENOTFOUND || rc == KT_EINVAL) {
		const char *k = kt_kind_name(ev->kind);

		v->bad_seq = ev->seq;
		if (rc == KT_ENOTFOUND)
			snprintf(v->what, sizeof(v->what),
				 "%s \"%s\" names blob %s, which is not stored",
				 k ? k : "event", bad.field,
				 bad.item->valuestring);
		else
			snprintf(v->what, sizeof(v->what),
				 "%s \"%s\" is not a blob hash (64 hex chars or null)",
				 k ? k : "event", bad.field);
		rc = KT_ECORRUPT;
	}
	cJSON_Delete(p);
	return rc;
}

int kt_store_verify_blobrefs(kt_store *s, const char *run,
			     const char **bad_run, uint64_t *bad_seq)
{
	struct kt_runlist l = { 0 };
	struct vrun v;
	int rc = 0;

	if (!s)
		return KT_EINVAL;
	if (bad_run)
		*bad_run = NULL;
	if (bad_seq)
		*bad_seq = 0;
	if ((rc = kt_run_list(s, run, &l)) != 0)
		goto out;
	for (size_t i = 0; i < l.n && !rc; i++) {
		memset(&v, 0, sizeof(v));
		v.s = s;
		rc = kt_event_scan(s, l.id[i], 0, 0, 0, KT_READ_BODY,
				   verify_ev, &v);
		if (rc == KT_ECORRUPT && v.bad_seq) {
			snprintf(s->bad_run, sizeof(s->bad_run), "%s",
				 l.id[i]);
			if (bad_run)
				*bad_run = s->bad_run;
			if (bad_seq)
				*bad_seq = v.bad_seq;
			rc = kt_err(s, KT_ECORRUPT, "%s", v.what);
		}
	}
out:
	free(l.id);
	return rc;
}

/* ---- records the chain does not cover ---------------------------------- */

/* Domain separation: no chain input (0x00 first), canonical event bytes
 * (0x01 first) or h_0 ("ktraj/1 chain") begins with these 11 bytes. */
static const char run_tag[] = "ktraj/1 run";
static const char runrec_bad[] = "the run record (name, format, meta, "
	"created) does not match its checksum";

void kt_runrec_sum(const unsigned char run[KT_RUN_BIN], const MDB_val *rec,
		   unsigned char sum[KT_HASH_LEN])
{
	kt_sha_ctx c;

	/* rec passed kt_runrec_tail: it is at least KT_RUNREC_TAIL long */
	kt_sha_start(&c);
	kt_sha_add(&c, run_tag, sizeof(run_tag) - 1);
	kt_sha_add(&c, run, KT_RUN_BIN);
	kt_sha_add(&c, rec->mv_data, rec->mv_size - KT_RUNREC_TAIL);
	kt_sha_finish(&c, sum);
}

int kt_runrec_check(kt_store *s, MDB_txn *txn,
		    const unsigned char run[KT_RUN_BIN], const MDB_val *rec,
		    int *have)
{
	MDB_val k = { KT_RUN_BIN, (void *)run }, v;
	unsigned char sum[KT_HASH_LEN];
	char hx[KT_RUN_ID_HEX + 1];
	int rc;

	*have = 0;
	if (!kt_db_has(s, KT_DB_SUMS))
		return 0;
	rc = mdb_get(txn, s->dbi[KT_DB_SUMS], &k, &v);
	if (rc == MDB_NOTFOUND)
		return 0;
	if (rc)
		return kt_mdb_err(s, rc, "run checksum");
	kt_hex(run, KT_RUN_BIN, hx);
	if (rec->mv_size < KT_RUNREC_TAIL)
		return kt_err(s, KT_ECORRUPT, "run %s: bad run record", hx);
	kt_runrec_sum(run, rec, sum);
	if (v.mv_size != KT_HASH_LEN || memcmp(v.mv_data, sum, KT_HASH_LEN))
		return kt_err(s, KT_ECORRUPT, "run %s: %s", hx, runrec_bad);
	*have = 1;
	return 0;
}

/* ---- paths index rebuilt from the events --------------------------------- */

struct pent {
	const unsigned char *k, *v;
	size_t kl, vl, i;
};

static int pent_cmp(const void *a, const void *b)
{
	const struct pent *x = a, *y = b;
	size_t n = x->kl < y->kl ? x->kl : y->kl;
	int c = memcmp(x->k, y->k, n);

	/* LMDB's default order (shorter first on a tie), then input order:
	 * of equal keys the last put is the one stored */
	if (c)
		return c;
	if (x->kl != y->kl)
		return x->kl < y->kl ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

struct pscan {
	kt_store *s;
	const unsigned char *run;
};

static int paths_cb(const kt_event *ev, void *arg)
{
	struct pscan *ps = arg;
	cJSON *j;
	int rc;

	/* as kt_event_append: a tool_result indexes only its "observed" */
	if (ev->kind == KT_KIND_TOOL_RESULT &&
	    !memmem(ev->payload, ev->payload_len, "\"observed\"", 10))
		return 0;
	j = cJSON_ParseWithLength(ev->payload, ev->payload_len);
	if (!j)
		return kt_err(ps->s, KT_ECORRUPT, "seq %llu: payload is not "
			      "JSON", (unsigned long long)ev->seq);
	rc = kt_index_paths(ps->s, ps->run, ev, j);
	cJSON_Delete(j);
	return rc;
}

/* The paths entries of run as its events make them, sorted, the last put
 * of each key kept; *n entries into *out (malloc'ed, pointing into b). */
static int paths_expected(kt_store *s, const unsigned char run[KT_RUN_BIN],
			  struct kt_buf *b, struct pent **out, size_t *n)
{
	char hx[KT_RUN_ID_HEX + 1];
	struct pscan ps = { s, run };
	struct pent *e = NULL;
	size_t cnt = 0, off, u = 0;
	int rc;

	*out = NULL;
	*n = 0;
	kt_hex(run, KT_RUN_BIN, hx);
	s->pcollect = b;
	rc = kt_event_scan(s, hx, 0, 0, KT_KIND_BIT(KT_KIND_EDIT) |
			   KT_KIND_BIT(KT_KIND_TOOL_RESULT), KT_READ_BODY,
			   paths_cb, &ps);
	s->pcollect = NULL;
	if (rc)
		return rc;
	for (off = 0; off < b->len; cnt++)
		off += 3 + kt_rd16(b->p + off) + b->p[off + 2 + kt_rd16(b->p + off)];
	if (cnt && !(e = malloc(cnt * sizeof(*e))))
		return KT_ENOMEM;
	for (off = 0, cnt = 0; off < b->len; cnt++) {
		e[cnt].kl = kt_rd16(b->p + off);
		e[cnt].k = b->p + off + 2;
		e[cnt].vl = b->p[off + 2 + e[cnt].kl];
		e[cnt].v = e[cnt].k + e[cnt].kl + 1;
		e[cnt].i = cnt;
		off += 3 + e[cnt].kl + e[cnt].vl;
	}
	if (cnt > 1)
		qsort(e, cnt, sizeof(*e), pent_cmp);
	for (size_t i = 0; i < cnt; i++) {
		if (i + 1 < cnt && e[i].kl == e[i + 1].kl &&
		    !memcmp(e[i].k, e[i + 1].k, e[i].kl))
			continue; /* overwritten by a later put */
		e[u++] = e[i];
	}
	*out = e;
	*n = u;
	return 0;
}

static int paths_differ(kt_store *s, const unsigned char *k, size_t kl,
			uint64_t *bad_seq)
{
	char p[KT_PATH_MAX_KEY + 1];
	size_t pl = kl >= KT_RUN_BIN + 9 ? kl - KT_RUN_BIN - 9 : 0;

	if (pl > KT_PATH_MAX_KEY)
		pl = KT_PATH_MAX_KEY;
	memcpy(p, k + KT_RUN_BIN, pl);
	p[pl] = 0;
	*bad_seq = kl >= KT_RUN_BIN + 9 ? kt_rd64(k + kl - 8) : 0;
	return kt_err(s, KT_ECORRUPT, "the paths index differs from the "
		      "events at seq %llu (path '%.200s')",
		      (unsigned long long)*bad_seq, p);
}

static int verify_paths(kt_store *s, MDB_txn *txn,
			const unsigned char run[KT_RUN_BIN], uint64_t *bad_seq)
{
	struct kt_buf b = { 0 };
	struct pent *e = NULL;
	size_t n = 0, i = 0;
	MDB_cursor *c = NULL;
	MDB_val k, v;
	unsigned char kb[KT_RUN_BIN];
	int rc;

	rc = paths_expected(s, run, &b, &e, &n);
	if (rc)
		goto out;
	rc = mdb_cursor_open(txn, s->dbi[KT_DB_PATHS], &c);
	if (rc) {
		rc = kt_mdb_err(s, rc, "cursor");
		goto out;
	}
	memcpy(kb, run, KT_RUN_BIN);
	k.mv_size = KT_RUN_BIN;
	k.mv_data = kb;
	for (rc = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE); rc == 0;
	     rc = mdb_cursor_get(c, &k, &v, MDB_NEXT), i++) {
		if (k.mv_size < KT_RUN_BIN ||
		    memcmp(k.mv_data, run, KT_RUN_BIN))
			break;
		if (i >= n || k.mv_size != e[i].kl ||
		    memcmp(k.mv_data, e[i].k, e[i].kl)) {
			/* an entry no event makes, or one missing before it */
			const struct pent *w = i < n ? &e[i] : NULL;

			if (w && pent_cmp(&(struct pent){ k.mv_data, NULL,
				    k.mv_size, 0, 0 }, w) > 0)
				rc = paths_differ(s, w->k, w->kl, bad_seq);
			else
				rc = paths_differ(s, k.mv_data, k.mv_size,
						  bad_seq);
			goto out;
		}
		if (v.mv_size != e[i].vl || memcmp(v.mv_data, e[i].v, e[i].vl)) {
			rc = paths_differ(s, e[i].k, e[i].kl, bad_seq);
			goto out;
		}
	}
	if (rc && rc != MDB_NOTFOUND) {
		rc = kt_mdb_err(s, rc, "cursor");
		goto out;
	}
	rc = 0;
	if (i < n)
		rc = paths_differ(s, e[i].k, e[i].kl, bad_seq);
out:
	if (c)
		mdb_cursor_close(c);
	free(e);
	free(b.p);
	return rc;
}

int kt_verify_run_records(kt_store *s, MDB_txn *txn,
			  const unsigned char run[KT_RUN_BIN],
			  uint64_t *bad_seq)
{
	MDB_val k = { KT_RUN_BIN, (void *)run }, v;
	uint64_t n;
	unsigned char head[KT_HASH_LEN];
	int rc, have;
	size_t nl;

	*bad_seq = 0;
	rc = mdb_get(txn, s->dbi[KT_DB_RUNS], &k, &v);
	if (rc)
		return rc == MDB_NOTFOUND ? kt_err(s, KT_ECORRUPT, "no run "
						   "record") :
					    kt_mdb_err(s, rc, "run lookup");
	rc = kt_runrec_tail(s, &v, &n, head);
	if (rc == 0)
		rc = kt_runrec_check(s, txn, run, &v, &have);
	if (rc == KT_ECORRUPT)
		/* the caller names the run */
		return kt_err(s, rc, "%s", runrec_bad);
	if (rc)
		return rc;
	nl = kt_rd16((const unsigned char *)v.mv_data + 8);
	if (nl) {
		unsigned char key[KT_NAME_MAX_KEY + 1 + KT_RUN_BIN];
		size_t pl = nl > KT_NAME_MAX_KEY ? KT_NAME_MAX_KEY : nl;
		MDB_val nk = { pl + 1 + KT_RUN_BIN, key }, nv;

		memcpy(key, (const unsigned char *)v.mv_data + 10, pl);
		key[pl] = 0;
		memcpy(key + pl + 1, run, KT_RUN_BIN);
		rc = mdb_get(txn, s->dbi[KT_DB_NAMES], &nk, &nv);
		if (rc == MDB_NOTFOUND)
			return kt_err(s, KT_ECORRUPT, "the run's name is "
				      "missing from the run_names index");
		if (rc)
			return kt_mdb_err(s, rc, "run_names");
	}
	return verify_paths(s, txn, run, bad_seq);
}

/* ---- whole store --------------------------------------------------------- */

/* Every key of db names (in its first 16 bytes, or its last 16 for
 * run_names) a run that exists; run_names keys also the run's name. */
static int keys_of_runs(kt_store *s, MDB_txn *txn, int db)
{
	MDB_cursor *c;
	MDB_val k, v;
	unsigned char last[KT_RUN_BIN];
	int rc, have = 0;
	const char *what = "";

	rc = mdb_cursor_open(txn, s->dbi[db], &c);
	if (rc)
		return kt_mdb_err(s, rc, "cursor");
	for (rc = mdb_cursor_get(c, &k, &v, MDB_FIRST); rc == 0;
	     rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
		const unsigned char *kp = k.mv_data, *id;
		MDB_val rk, rv;
		size_t pl = 0;

		if (db == KT_DB_NAMES) {
			if (k.mv_size < 2 + KT_RUN_BIN ||
			    kp[k.mv_size - KT_RUN_BIN - 1] != 0) {
				what = "bad run_names key";
				rc = KT_ECORRUPT;
				memset(last, 0, sizeof(last));
				break;
			}
			id = kp + k.mv_size - KT_RUN_BIN;
			pl = k.mv_size - KT_RUN_BIN - 1;
		} else {
			if (k.mv_size < KT_RUN_BIN ||
			    (db == KT_DB_SUMS && (k.mv_size != KT_RUN_BIN ||
						  v.mv_size != KT_HASH_LEN))) {
				what = "bad key or value";
				rc = KT_ECORRUPT;
				memcpy(last, kp, k.mv_size < KT_RUN_BIN ?
				       k.mv_size : KT_RUN_BIN);
				break;
			}
			id = kp;
			if (have && !memcmp(last, id, KT_RUN_BIN))
				continue;
		}
		memcpy(last, id, KT_RUN_BIN);
		have = 1;
		rk.mv_size = KT_RUN_BIN;
		rk.mv_data = (void *)id;
		rc = mdb_get(txn, s->dbi[KT_DB_RUNS], &rk, &rv);
		/* the paths of an unfinished import (FORMAT.md §6.11) */
		if (rc == MDB_NOTFOUND && db == KT_DB_PATHS &&
		    kt_unfinished_has(s, txn, id))
			continue;
		if (rc == MDB_NOTFOUND) {
			what = "names a run that does not exist";
			rc = KT_ECORRUPT;
			break;
		}
		if (rc)
			break;
		if (db == KT_DB_NAMES) {
			const unsigned char *r = rv.mv_data;
			size_t nl = rv.mv_size >= 10 ? kt_rd16(r + 8) : 0;

			if (!nl || (nl > KT_NAME_MAX_KEY ? KT_NAME_MAX_KEY :
				    nl) != pl || rv.mv_size < 10 + nl ||
			    memcmp(r + 10, kp, pl)) {
				what = "differs from the run's name";
				rc = KT_ECORRUPT;
				break;
			}
		}
	}
	mdb_cursor_close(c);
	if (rc == MDB_NOTFOUND)
		return 0;
	if (rc == KT_ECORRUPT) {
		kt_hex(last, KT_RUN_BIN, s->bad_run);
		return kt_err(s, KT_ECORRUPT, "%s entry %s",
			      db == KT_DB_NAMES ? "run_names" :
			      db == KT_DB_SUMS ? "run_sums" : "paths", what);
	}
	return kt_mdb_err(s, rc, "cursor");
}

/*
 * Every key a cursor walk of db meets must also be found by a lookup, at the
 * same value.  A walk goes leaf to leaf, a lookup down the branch pages: a
 * damaged branch key leaves the walk (and every check built on it) intact
 * while lookups (`cat`, point reads) land on the wrong entry or none.  LMDB
 * keeps no checksums of its pages (storage_style.md), so this is the check
 * that sees such damage.
 */
static int lookups_match(kt_store *s, MDB_txn *txn, int db)
{
	MDB_cursor *c;
	MDB_val k, v, v2;
	int rc, bad = 0;

	if (!kt_db_has(s, db))
		return 0; /* an older store without this database */
	rc = mdb_cursor_open(txn, s->dbi[db], &c);
	if (rc)
		return kt_mdb_err(s, rc, "cursor");
	for (rc = mdb_cursor_get(c, &k, &v, MDB_FIRST); rc == 0;
	     rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
		MDB_val kk = k;

		if (mdb_get(txn, s->dbi[db], &kk, &v2) != 0 ||
		    v2.mv_size != v.mv_size || v2.mv_data != v.mv_data) {
			bad = 1;
			break;
		}
	}
	mdb_cursor_close(c);
	if (bad)
		return kt_err(s, KT_ECORRUPT, "database %s: an entry the walk "
			      "meets is not found by a lookup (damaged index "
			      "page)", kt_db_names[db]);
	if (rc != MDB_NOTFOUND)
		return kt_mdb_err(s, rc, "cursor");
	return 0;
}

int kt_verify_store_records(kt_store *s, MDB_txn *txn)
{
	int rc = 0;

	for (int db = 0; db < KT_DB_COUNT && rc == 0; db++)
		rc = lookups_match(s, txn, db);
	if (rc == 0)
		rc = keys_of_runs(s, txn, KT_DB_NAMES);

	if (rc == 0 && kt_db_has(s, KT_DB_SUMS))
		rc = keys_of_runs(s, txn, KT_DB_SUMS);
	if (rc == 0)
		rc = keys_of_runs(s, txn, KT_DB_PATHS);
	/* readers digest a dictionary when a block needs it; verify reads
	 * every one, used or not */
	if (rc == 0)
		rc = kt_dicts_check(s);
	return rc;
}
