/*
 * store_event.c - events: canonical bytes, hash chain, append, reads,
 * iteration, the workspace paths index, verify and statistics.
 *
 * Canonical bytes (FORMAT.md "Canonical event bytes"):
 *   u8 1 | u8 kind | be64 seq | be64 parent | be64 ts |
 *   be16 n actor | be32 n prov | be32 n payload   (each followed by bytes)
 * The part after the 26-byte prefix is the "body", the unit that is
 * compressed, so a stored event hashes without re-encoding.
 *
 * Chain (FORMAT.md "Hash chain"): h0 = SHA-256("ktraj/1 chain"),
 * h_i = SHA-256(0x00 || h_{i-1} || be64 seq || event_hash).  The run id is
 * not hashed, so the same events give the same hashes in any store; the
 * 0x00 domain byte keeps chain inputs apart from any other SHA-256 use
 * (as RFC 6962 §2.1 separates leaf and node hashes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <cjson/cJSON.h>
#include <zstd.h>
#include "store_int.h"

void kt_chain_h0(unsigned char out[KT_HASH_LEN])
{
	static unsigned char h0[KT_HASH_LEN];
	static int done;

	if (!done) {
		kt_sha256("ktraj/1 chain", 13, h0);
		done = 1;
	}
	memcpy(out, h0, KT_HASH_LEN);
}

void kt_chain_next(const unsigned char prev[KT_HASH_LEN], uint64_t seq,
		       const unsigned char ev[KT_HASH_LEN],
		       unsigned char out[KT_HASH_LEN])
{
	unsigned char in[1 + KT_HASH_LEN + 8 + KT_HASH_LEN];

	in[0] = 0;
	memcpy(in + 1, prev, KT_HASH_LEN);
	kt_be64(in + 1 + KT_HASH_LEN, seq);
	memcpy(in + 1 + KT_HASH_LEN + 8, ev, KT_HASH_LEN);
	kt_sha256(in, sizeof(in), out);
}

void kt_canon_prefix(unsigned char *p, int kind, uint64_t seq,
			 uint64_t parent, int64_t ts)
{
	p[0] = 1;
	p[1] = (unsigned char)kind;
	kt_be64(p + 2, seq);
	kt_be64(p + 10, parent);
	kt_be64(p + 18, (uint64_t)ts);
}

/* Canonical bytes into b (prefix + body).  Strings as given. */
static int canon_build(struct kt_buf *b, const kt_event *ev, const char *actor,
		       size_t al, const char *prov, size_t pl,
		       const char *payload, size_t yl)
{
	size_t n = KT_CANON_PREFIX + 2 + al + 4 + pl + 4 + yl;
	unsigned char *p;

	if (al > 65535 || pl > KT_EVENT_MAX_BODY || yl > KT_EVENT_MAX_BODY ||
	    n - KT_CANON_PREFIX > KT_EVENT_MAX_BODY)
		return KT_ELIMIT;
	if (kt_buf_reserve(b, n + 1))
		return KT_ENOMEM;
	p = b->p;
	kt_canon_prefix(p, ev->kind, ev->seq, ev->parent, ev->ts_ns);
	p += KT_CANON_PREFIX;
	kt_be16(p, (uint16_t)al);
	memcpy(p + 2, actor, al);
	p += 2 + al;
	kt_be32(p, (uint32_t)pl);
	if (pl)
		memcpy(p + 4, prov, pl);
	p += 4 + pl;
	kt_be32(p, (uint32_t)yl);
	memcpy(p + 4, payload, yl);
	b->len = n;
	return 0;
}

int kt_event_canonical(const kt_event *ev, unsigned char **out, size_t *len)
{
	struct kt_buf b = { 0 };
	const char *actor = ev->actor ? ev->actor : "";
	const char *payload = ev->payload ? ev->payload : "{}";
	size_t yl = ev->payload ? (ev->payload_len ? ev->payload_len :
				   strlen(ev->payload)) : 2;
	int rc;

	*out = NULL;
	*len = 0;
	rc = canon_build(&b, ev, actor, strlen(actor), ev->prov_json,
			 ev->prov_json ? strlen(ev->prov_json) : 0, payload, yl);
	if (rc) {
		free(b.p);
		return rc;
	}
	*out = b.p;
	*len = b.len;
	return 0;
}

/* ---- paths index ---------------------------------------------------------- */

static int path_put(kt_store *s, const unsigned char run[KT_RUN_BIN],
		    const char *path, uint64_t seq, const char *hex, int deleted)
{
	unsigned char k[KT_RUN_BIN + KT_PATH_MAX_KEY + 9], v[1 + KT_HASH_LEN];
	size_t pl = path ? strlen(path) : 0;

	size_t vl = 1;

	/* longer paths are not indexed (FORMAT.md "paths") */
	if (!pl || pl > KT_PATH_MAX_KEY)
		return 0;
	memcpy(k, run, KT_RUN_BIN);
	memcpy(k + KT_RUN_BIN, path, pl);
	k[KT_RUN_BIN + pl] = 0;
	kt_be64(k + KT_RUN_BIN + pl + 1, seq);
	v[0] = 1;
	if (!deleted) {
		if (!hex || strlen(hex) != KT_HASH_HEX ||
		    kt_unhex(hex, v + 1, KT_HASH_LEN) != 0)
			return 0; /* not a content hash: nothing to index */
		v[0] = 0;
		vl = sizeof(v);
	}
	if (s->pcollect) {
		/* verify rebuilds the index (store_check.c) */
		struct kt_buf *b = s->pcollect;
		size_t kl = KT_RUN_BIN + pl + 9;

		if (kt_buf_reserve(b, b->len + 3 + kl + vl))
			return KT_ENOMEM;
		kt_be16(b->p + b->len, (uint16_t)kl);
		memcpy(b->p + b->len + 2, k, kl);
		b->p[b->len + 2 + kl] = (unsigned char)vl;
		memcpy(b->p + b->len + 3 + kl, v, vl);
		b->len += 3 + kl + vl;
		return 0;
	}
	return kt_put(s, KT_DB_PATHS, k, KT_RUN_BIN + pl + 9, v, vl, 0);
}

int kt_index_paths(kt_store *s, const unsigned char run[KT_RUN_BIN],
		   const kt_event *ev, const cJSON *pl)
{
	int rc = 0;

	if (ev->kind == KT_KIND_EDIT) {
		const char *path = kt_json_str(pl, "path"), *op = kt_json_str(pl, "op");
		const char *after = kt_json_str(pl, "after"), *from;
		int del = (op && strcmp(op, "delete") == 0) ||
			  cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(pl,
								"after"));

		if (op && strcmp(op, "rename") == 0 &&
		    ((from = kt_json_str(pl, "from")) || (from = kt_json_str(pl, "old_path"))))
			rc = path_put(s, run, from, ev->seq, NULL, 1);
		if (rc == 0 && path)
			rc = path_put(s, run, path, ev->seq, after, del);
	} else if (ev->kind == KT_KIND_TOOL_RESULT) {
		const cJSON *obs = cJSON_GetObjectItemCaseSensitive(pl,
								    "observed");
		const cJSON *o;

		cJSON_ArrayForEach(o, obs) {
			const cJSON *b = cJSON_GetObjectItemCaseSensitive(o,
									  "blob");
			const char *path = kt_json_str(o, "path");

			if (!path)
				continue;
			rc = path_put(s, run, path, ev->seq,
				      cJSON_IsString(b) ? b->valuestring : NULL,
				      cJSON_IsNull(b));
			if (rc)
				break;
		}
	}
	return rc;
}

/* ---- append ---------------------------------------------------------------- */

/* The JSON object *text[0..*len) of event seq (what: "payload" or
 * "provenance") printed canonically into *out, its tree in *tree; *text
 * and *len then name *out.  KT_EINVAL when it is not a JSON object,
 * KT_ENOMEM; the store's message names seq and what. */
static int canon_json(kt_store *s, uint64_t seq, const char *what,
		      const char **text, size_t *len, cJSON **tree, char **out)
{
	cJSON *j = cJSON_ParseWithLength(*text, *len);
	int rc = KT_EINVAL;

	*out = NULL;
	*tree = NULL;
	if (j && cJSON_IsObject(j)) {
		rc = KT_ENOMEM;
		*out = cJSON_PrintUnformatted(j);
	}
	if (!*out) {
		cJSON_Delete(j);
		return kt_err(s, rc, "seq %llu: %s is not a JSON object",
			      (unsigned long long)seq, what);
	}
	*tree = j;
	*text = *out;
	*len = strlen(*out);
	return 0;
}

int kt_event_append(kt_store *s, const char *run, kt_event *ev)
{
	unsigned char bin[KT_RUN_BIN];
	unsigned char hash[KT_HASH_LEN], chain[KT_HASH_LEN];
	const char *payload, *prov, *actor;
	char *cpay = NULL, *cprov = NULL;
	cJSON *tree = NULL, *ptree = NULL;
	size_t yl, pl, al;
	int rc;

	if (!s || !ev)
		return KT_EINVAL;
	if (!s->wtxn)
		return kt_err(s, KT_EBUSY, "append outside a transaction");
	rc = kt_run_bin(s, run, bin);
	if (rc)
		return rc;
	if (ev->kind < 1 || ev->kind > KT_KIND_MAX_)
		return kt_err(s, KT_EINVAL, "unknown event kind %d", ev->kind);
	rc = kt_ev_use_run(s, bin);
	if (rc == KT_ENOTFOUND)
		return kt_err(s, KT_ENOTFOUND, "no run %s", run);
	if (rc)
		return rc;
	if (ev->seq <= s->orun.n)
		return kt_err(s, KT_EEXIST, "run %s already has seq %llu",
			      run, (unsigned long long)ev->seq);
	if (ev->seq != s->orun.n + 1)
		return kt_err(s, KT_EINVAL, "seq %llu is not next (%llu)",
			      (unsigned long long)ev->seq,
			      (unsigned long long)(s->orun.n + 1));
	if (ev->parent >= ev->seq)
		return kt_err(s, KT_EINVAL, "parent %llu is not before seq %llu",
			      (unsigned long long)ev->parent,
			      (unsigned long long)ev->seq);
	payload = ev->payload ? ev->payload : "{}";
	yl = ev->payload ? (ev->payload_len ? ev->payload_len :
			    strlen(ev->payload)) : 2;
	prov = ev->prov_json;
	pl = prov ? strlen(prov) : 0;
	actor = ev->actor ? ev->actor : "";
	al = strlen(actor);
	if (!(ev->flags & KT_EV_CANONICAL)) {
		rc = canon_json(s, ev->seq, "payload", &payload, &yl, &tree,
				&cpay);
		if (rc)
			goto out;
	} else if ((ev->kind == KT_KIND_EDIT ||
		    (ev->kind == KT_KIND_TOOL_RESULT &&
		     memmem(payload, yl, "\"observed\"", 10))) &&
		   !(tree = cJSON_ParseWithLength(payload, yl))) {
		rc = kt_err(s, KT_EINVAL, "seq %llu: payload is not JSON",
			    (unsigned long long)ev->seq);
		goto out;
	}
	/* provenance is small and often printed by hand: canonical unless
	 * the caller printed it so */
	if (prov && pl && !(ev->flags & KT_EV_PROV_CANONICAL)) {
		rc = canon_json(s, ev->seq, "provenance", &prov, &pl, &ptree,
				&cprov);
		if (rc)
			goto out;
	}
	rc = canon_build(&s->tmp, ev, actor, al, prov, pl, payload, yl);
	if (rc) {
		rc = kt_err(s, rc, "seq %llu: event too large",
			    (unsigned long long)ev->seq);
		goto out;
	}
	kt_sha256(s->tmp.p, s->tmp.len, hash);
	kt_chain_next(s->orun.head, ev->seq, hash, chain);
	if (tree) {
		rc = kt_index_paths(s, bin, ev, tree);
		if (rc)
			goto out;
	}
	/* the body joins the open block of its kind; blocks and pages are
	 * written when they seal, the rest at commit (store_append.c) */
	rc = kt_ev_add(s, bin, ev, s->tmp.p + KT_CANON_PREFIX,
		       s->tmp.len - KT_CANON_PREFIX, chain);
	if (rc)
		goto out;
	s->txn_events++;
	/* one big import is one transaction: train the dictionary inside
	 * it, before most of its blocks are compressed */
	kt_dict_sample(s, s->tmp.p + KT_CANON_PREFIX,
		       s->tmp.len - KT_CANON_PREFIX);
	{
		int trc = kt_dict_maybe_train(s);

		if (trc && !s->wtxn) {
			rc = trc;
			goto out;
		}
	}
	memcpy(ev->hash, hash, KT_HASH_LEN);
	memcpy(ev->chain, chain, KT_HASH_LEN);
out:
	cJSON_Delete(tree);
	cJSON_Delete(ptree);
	free(cpay);
	free(cprov);
	return rc;
}

/* ---- workspace ------------------------------------------------------------ */

int kt_path_at(kt_store *s, const char *run, const char *path,
	       uint64_t at_seq, unsigned char hash[KT_HASH_LEN], int *deleted)
{
	unsigned char key[KT_RUN_BIN + KT_PATH_MAX_KEY + 9];
	size_t pl = path ? strlen(path) : 0, pre;
	MDB_val k, v;
	MDB_txn *txn;
	MDB_cursor *c = NULL;
	int rc;

	if (!s || !path)
		return KT_EINVAL;
	if (deleted)
		*deleted = 0;
	rc = kt_run_bin(s, run, key);
	if (rc)
		return rc;
	if (!pl || pl > KT_PATH_MAX_KEY)
		return kt_err(s, KT_ENOTFOUND, "path not indexed");
	memcpy(key + KT_RUN_BIN, path, pl);
	key[KT_RUN_BIN + pl] = 0;
	pre = KT_RUN_BIN + pl + 1;
	kt_be64(key + pre, at_seq ? at_seq : UINT64_MAX);
	if ((rc = kt_rd_cursor(s, KT_DB_PATHS, &txn, &c)))
		return rc;
	k.mv_size = pre + 8;
	k.mv_data = key;
	rc = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE);
	if (rc == MDB_NOTFOUND)
		rc = mdb_cursor_get(c, &k, &v, MDB_LAST);
	else if (rc == 0 && !(k.mv_size == pre + 8 &&
			      memcmp(k.mv_data, key, pre + 8) == 0))
		rc = mdb_cursor_get(c, &k, &v, MDB_PREV);
	if (rc == 0 && k.mv_size == pre + 8 && memcmp(k.mv_data, key, pre) == 0) {
		const unsigned char *p = v.mv_data;

		if (v.mv_size == 1 && p[0] == 1) {
			if (deleted)
				*deleted = 1;
			memset(hash, 0, KT_HASH_LEN);
		} else if (v.mv_size == 1 + KT_HASH_LEN && p[0] == 0) {
			memcpy(hash, p + 1, KT_HASH_LEN);
		} else {
			rc = kt_err(s, KT_ECORRUPT, "bad paths record");
			goto out;
		}
		rc = 0;
	} else if (rc == 0 || rc == MDB_NOTFOUND) {
		rc = kt_err(s, KT_ENOTFOUND, "%.200s: not in the workspace",
			    path);
	} else {
		rc = kt_mdb_err(s, rc, "cursor");
	}
out:
	return kt_rd_close(s, txn, c, rc);
}

int kt_path_changes(kt_store *s, const char *run, const char *path,
		    int (*fn)(const char *path, uint64_t seq, int deleted,
			      void *arg), void *arg)
{
	unsigned char key[KT_RUN_BIN + KT_PATH_MAX_KEY + 1];
	char cur[KT_PATH_MAX_KEY + 1];
	size_t pl = path ? strlen(path) : 0, pre = KT_RUN_BIN;
	MDB_val k, v;
	MDB_txn *txn;
	MDB_cursor *c = NULL;
	int rc;

	if (!s || !fn || (path && (!pl || pl > KT_PATH_MAX_KEY)))
		return KT_EINVAL;
	if ((rc = kt_run_bin(s, run, key)))
		return rc;
	if (path) {
		memcpy(key + KT_RUN_BIN, path, pl);
		key[KT_RUN_BIN + pl] = 0;
		pre += pl + 1;
	}
	if ((rc = kt_rd_cursor(s, KT_DB_PATHS, &txn, &c)))
		return rc;
	k.mv_size = pre;
	k.mv_data = key;
	for (rc = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE); rc == 0;
	     rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
		const unsigned char *kp = k.mv_data, *vp = v.mv_data;
		size_t kl;

		if (k.mv_size < pre || memcmp(kp, key, pre) != 0)
			break;
		kl = k.mv_size - KT_RUN_BIN;
		if (kl < 10 || kl - 9 > KT_PATH_MAX_KEY || kp[k.mv_size - 9] ||
		    !(v.mv_size == 1 + KT_HASH_LEN ||
		      (v.mv_size == 1 && vp[0] == 1))) {
			rc = kt_err(s, KT_ECORRUPT, "bad paths record");
			goto out;
		}
		if (path && kl - 9 != pl)
			break;
		memcpy(cur, kp + KT_RUN_BIN, kl - 9);
		cur[kl - 9] = 0;
		if ((rc = fn(cur, kt_rd64(kp + k.mv_size - 8), v.mv_size == 1,
			     arg)))
			goto out;
	}
	rc = rc == 0 || rc == MDB_NOTFOUND ? 0 : kt_mdb_err(s, rc, "cursor");
out:
	return kt_rd_close(s, txn, c, rc);
}

int kt_path_foreach(kt_store *s, const char *run, uint64_t at_seq,
		    int (*fn)(const char *path, void *), void *arg)
{
	unsigned char bin[KT_RUN_BIN];
	unsigned char sk[KT_RUN_BIN + KT_PATH_MAX_KEY + 9];
	char cur[KT_PATH_MAX_KEY + 1];
	MDB_val k, v;
	MDB_txn *txn;
	MDB_cursor *c = NULL;
	int rc;

	if (!s || !fn)
		return KT_EINVAL;
	rc = kt_run_bin(s, run, bin);
	if (rc)
		return rc;
	if (!at_seq)
		at_seq = UINT64_MAX;
	if ((rc = kt_rd_cursor(s, KT_DB_PATHS, &txn, &c)))
		return rc;
	k.mv_size = KT_RUN_BIN;
	k.mv_data = bin;
	memcpy(sk, bin, KT_RUN_BIN);
	/*
	 * Keys are run | path | 0 | seq (big-endian): one path's entries are
	 * adjacent and ascend by seq, and its state is that of its last entry
	 * with seq <= at_seq.  Rather than step through every version of every
	 * path (a late `diff` of the 100k-event bench run walked ~12k entries
	 * twice, touching the whole index), seek past at_seq, step back one
	 * entry, then seek to the next path (run | path | 1).
	 */
	rc = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE);
	for (;;) {
		const unsigned char *kp = k.mv_data;
		size_t pl;
		int live = 0;

		if (rc && rc != MDB_NOTFOUND) {
			rc = kt_mdb_err(s, rc, "cursor");
			goto out;
		}
		if (rc != 0 || k.mv_size < KT_RUN_BIN + 10 ||
		    memcmp(kp, bin, KT_RUN_BIN) != 0)
			break;
		pl = k.mv_size - KT_RUN_BIN - 9;
		if (pl > KT_PATH_MAX_KEY) {
			rc = kt_err(s, KT_ECORRUPT, "bad paths key");
			goto out;
		}
		memcpy(cur, kp + KT_RUN_BIN, pl);
		cur[pl] = 0;
		memcpy(sk + KT_RUN_BIN, kp + KT_RUN_BIN, pl);
		/* the first entry after at_seq (or after the path) */
		if (at_seq == UINT64_MAX) {
			sk[KT_RUN_BIN + pl] = 1;
			k.mv_size = KT_RUN_BIN + pl + 1;
		} else {
			sk[KT_RUN_BIN + pl] = 0;
			kt_be64(sk + KT_RUN_BIN + pl + 1, at_seq + 1);
			k.mv_size = KT_RUN_BIN + pl + 9;
		}
		k.mv_data = sk;
		rc = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE);
		rc = mdb_cursor_get(c, &k, &v, rc == 0 ? MDB_PREV : MDB_LAST);
		if (rc && rc != MDB_NOTFOUND) {
			rc = kt_mdb_err(s, rc, "cursor");
			goto out;
		}
		kp = k.mv_data;
		if (rc == 0 && k.mv_size == KT_RUN_BIN + pl + 9 &&
		    !memcmp(kp, sk, KT_RUN_BIN + pl) && kp[KT_RUN_BIN + pl] == 0 &&
		    kt_rd64(kp + k.mv_size - 8) <= at_seq)
			live = !(v.mv_size == 1);
		if (live && (rc = fn(cur, arg)) != 0)
			goto out;
		/* the next path */
		sk[KT_RUN_BIN + pl] = 1;
		k.mv_size = KT_RUN_BIN + pl + 1;
		k.mv_data = sk;
		rc = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE);
	}
	rc = 0;
out:
	return kt_rd_close(s, txn, c, rc);
}

