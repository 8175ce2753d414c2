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
#include <sys/stat.h>
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

static void chain_next(const unsigned char prev[KT_HASH_LEN], uint64_t seq,
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

static void canon_prefix(unsigned char *p, int kind, uint64_t seq,
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
	canon_prefix(p, ev->kind, ev->seq, ev->parent, ev->ts_ns);
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

	/* longer paths are not indexed (FORMAT.md "paths") */
	if (!pl || pl > KT_PATH_MAX_KEY)
		return 0;
	memcpy(k, run, KT_RUN_BIN);
	memcpy(k + KT_RUN_BIN, path, pl);
	k[KT_RUN_BIN + pl] = 0;
	kt_be64(k + KT_RUN_BIN + pl + 1, seq);
	if (deleted) {
		v[0] = 1;
		return kt_put(s, KT_DB_PATHS, k, KT_RUN_BIN + pl + 9, v, 1, 0);
	}
	if (!hex || strlen(hex) != KT_HASH_HEX ||
	    kt_unhex(hex, v + 1, KT_HASH_LEN) != 0)
		return 0; /* not a content hash: nothing to index */
	v[0] = 0;
	return kt_put(s, KT_DB_PATHS, k, KT_RUN_BIN + pl + 9, v, sizeof(v), 0);
}

static const char *jstr(const cJSON *o, const char *name)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, name);

	return cJSON_IsString(j) ? j->valuestring : NULL;
}

static int index_paths(kt_store *s, const unsigned char run[KT_RUN_BIN],
		       const kt_event *ev, const cJSON *pl)
{
	int rc = 0;

	if (ev->kind == KT_KIND_EDIT) {
		const char *path = jstr(pl, "path"), *op = jstr(pl, "op");
		const char *after = jstr(pl, "after"), *from;
		int del = (op && strcmp(op, "delete") == 0) ||
			  cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(pl,
								"after"));

		if (op && strcmp(op, "rename") == 0 &&
		    ((from = jstr(pl, "from")) || (from = jstr(pl, "old_path"))))
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
			const char *path = jstr(o, "path");

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

static int canon_json(const char *text, size_t len, int want_object,
		      cJSON **tree, char **out)
{
	cJSON *j = cJSON_ParseWithLength(text, len);

	*out = NULL;
	*tree = NULL;
	if (!j)
		return KT_EINVAL;
	if (want_object && !cJSON_IsObject(j)) {
		cJSON_Delete(j);
		return KT_EINVAL;
	}
	*out = cJSON_PrintUnformatted(j);
	if (!*out) {
		cJSON_Delete(j);
		return KT_ENOMEM;
	}
	*tree = j;
	return 0;
}

int kt_event_append(kt_store *s, const char *run, kt_event *ev)
{
	unsigned char bin[KT_RUN_BIN], key[KT_RUN_BIN + 8], *v;
	unsigned char hash[KT_HASH_LEN], chain[KT_HASH_LEN];
	const char *payload, *prov, *actor;
	char *cpay = NULL, *cprov = NULL;
	cJSON *tree = NULL, *ptree = NULL;
	size_t yl, pl, al, bl, cap, fr;
	struct kt_buf val = { 0 };
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
	if (!s->app_valid || memcmp(s->app_run, bin, KT_RUN_BIN) != 0) {
		MDB_val k = { KT_RUN_BIN, bin }, rv;

		rc = mdb_get(s->wtxn, s->dbi[KT_DB_RUNS], &k, &rv);
		if (rc == MDB_NOTFOUND)
			return kt_err(s, KT_ENOTFOUND, "no run %s", run);
		if (rc)
			return kt_mdb_err(s, rc, "run lookup");
		rc = kt_run_tail(s, s->wtxn, bin, &s->app_seq, s->app_chain);
		if (rc)
			return rc;
		memcpy(s->app_run, bin, KT_RUN_BIN);
		s->app_valid = 1;
	}
	if (ev->seq <= s->app_seq)
		return kt_err(s, KT_EEXIST, "run %s already has seq %llu",
			      run, (unsigned long long)ev->seq);
	if (ev->seq != s->app_seq + 1)
		return kt_err(s, KT_EINVAL, "seq %llu is not next (%llu)",
			      (unsigned long long)ev->seq,
			      (unsigned long long)(s->app_seq + 1));
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
		rc = canon_json(payload, yl, 1, &tree, &cpay);
		if (rc) {
			rc = kt_err(s, rc, "seq %llu: payload is not a JSON "
				    "object", (unsigned long long)ev->seq);
			goto out;
		}
		payload = cpay;
		yl = strlen(cpay);
	} else if ((ev->kind == KT_KIND_EDIT ||
		    (ev->kind == KT_KIND_TOOL_RESULT &&
		     memmem(payload, yl, "\"observed\"", 10))) &&
		   !(tree = cJSON_ParseWithLength(payload, yl))) {
		rc = kt_err(s, KT_EINVAL, "seq %llu: payload is not JSON",
			    (unsigned long long)ev->seq);
		goto out;
	}
	/* provenance is small and often printed by hand: always canonical */
	if (prov && pl) {
		rc = canon_json(prov, pl, 1, &ptree, &cprov);
		if (rc) {
			rc = kt_err(s, rc, "seq %llu: provenance is not a JSON "
				    "object", (unsigned long long)ev->seq);
			goto out;
		}
		prov = cprov;
		pl = strlen(cprov);
	}
	rc = canon_build(&s->tmp, ev, actor, al, prov, pl, payload, yl);
	if (rc) {
		rc = kt_err(s, rc, "seq %llu: event too large",
			    (unsigned long long)ev->seq);
		goto out;
	}
	kt_sha256(s->tmp.p, s->tmp.len, hash);
	chain_next(s->app_chain, ev->seq, hash, chain);
	bl = s->tmp.len - KT_CANON_PREFIX;
	cap = KT_EV_HDR + ZSTD_compressBound(bl);
	if (kt_buf_reserve(&val, cap)) {
		rc = kt_err(s, KT_ENOMEM, "event value");
		goto out;
	}
	v = val.p;
	fr = kt_ev_compress(s, s->tmp.p + KT_CANON_PREFIX, bl, v + KT_EV_HDR,
			    cap - KT_EV_HDR);
	v[0] = fr ? KT_CODEC_ZSTD : KT_CODEC_RAW;
	if (!fr) {
		memcpy(v + KT_EV_HDR, s->tmp.p + KT_CANON_PREFIX, bl);
		fr = bl;
	}
	v[1] = (unsigned char)ev->kind;
	v[2] = 0;
	v[3] = 0;
	kt_be64(v + 4, ev->parent);
	kt_be64(v + 12, (uint64_t)ev->ts_ns);
	kt_be32(v + 20, (uint32_t)bl);
	memcpy(v + 24, hash, KT_HASH_LEN);
	memcpy(v + 56, chain, KT_HASH_LEN);
	memcpy(key, bin, KT_RUN_BIN);
	kt_be64(key + KT_RUN_BIN, ev->seq);
	/* MDB_APPEND fills leaf pages completely when the key sorts last
	 * (any import of one run); otherwise LMDB answers KEYEXIST and the
	 * plain insert decides (storage_style.md §1.1: 10 % smaller file) */
	rc = kt_put(s, KT_DB_EVENTS, key, sizeof(key), v, KT_EV_HDR + fr,
		    MDB_APPEND);
	if (rc == KT_EEXIST)
		rc = kt_put(s, KT_DB_EVENTS, key, sizeof(key), v,
			    KT_EV_HDR + fr, MDB_NOOVERWRITE);
	if (rc == KT_EEXIST)
		rc = kt_err(s, KT_EEXIST, "seq %llu exists",
			    (unsigned long long)ev->seq);
	if (rc)
		goto out;
	if (tree) {
		rc = index_paths(s, bin, ev, tree);
		if (rc)
			goto out;
	}
	s->app_seq = ev->seq;
	memcpy(s->app_chain, chain, KT_HASH_LEN);
	s->txn_events++;
	/* one big import is one transaction: train the dictionary inside
	 * it, so most of its events already use it */
	if (s->txn_events % 1000 == 0) {
		int trc = kt_dict_maybe_train(s);

		if (trc && !s->wtxn) {
			rc = trc;
			goto out;
		}
	}
	memcpy(ev->hash, hash, KT_HASH_LEN);
	memcpy(ev->chain, chain, KT_HASH_LEN);
out:
	if (rc)
		s->app_valid = 0; /* a failed put may have replaced the txn */
	cJSON_Delete(tree);
	cJSON_Delete(ptree);
	free(cpay);
	free(cprov);
	free(val.p);
	return rc;
}

/* ---- reads ---------------------------------------------------------------- */

/*
 * Decode a stored event value into b: canonical bytes (prefix + body),
 * then, unless `keep`, NULs written over the length fields so the strings
 * can be handed out.  ev gets pointers into b.
 */
static int ev_decode(kt_store *s, uint64_t seq, const MDB_val *v,
		     struct kt_buf *b, kt_event *ev, int keep)
{
	const unsigned char *h = v->mv_data;
	unsigned char *p;
	size_t bl, al, pl, yl;
	int rc;

	if (v->mv_size < KT_EV_HDR || h[1] < 1 || h[1] > KT_KIND_MAX_)
		return kt_err(s, KT_ECORRUPT, "seq %llu: bad event header",
			      (unsigned long long)seq);
	bl = kt_rd32(h + 20);
	if (bl > KT_EVENT_MAX_BODY || bl < 10)
		return kt_err(s, KT_ECORRUPT, "seq %llu: bad body length",
			      (unsigned long long)seq);
	if (h[0] == KT_CODEC_RAW) {
		if (v->mv_size - KT_EV_HDR != bl)
			return kt_err(s, KT_ECORRUPT, "seq %llu: bad raw length",
				      (unsigned long long)seq);
		if (kt_buf_reserve(b, KT_CANON_PREFIX + bl + 1))
			return kt_err(s, KT_ENOMEM, "event buffer");
		memcpy(b->p + KT_CANON_PREFIX, h + KT_EV_HDR, bl);
		b->len = KT_CANON_PREFIX + bl;
	} else if (h[0] == KT_CODEC_ZSTD) {
		rc = kt_ev_decompress(s, h + KT_EV_HDR, v->mv_size - KT_EV_HDR,
				      bl, b, KT_CANON_PREFIX);
		if (rc)
			return rc;
	} else {
		return kt_err(s, KT_ECORRUPT, "seq %llu: unknown codec %u",
			      (unsigned long long)seq, h[0]);
	}
	memset(ev, 0, sizeof(*ev));
	ev->seq = seq;
	ev->kind = h[1];
	ev->parent = kt_rd64(h + 4);
	ev->ts_ns = (int64_t)kt_rd64(h + 12);
	memcpy(ev->hash, h + 24, KT_HASH_LEN);
	memcpy(ev->chain, h + 56, KT_HASH_LEN);
	ev->flags = KT_EV_CANONICAL;
	canon_prefix(b->p, ev->kind, seq, ev->parent, ev->ts_ns);
	p = b->p + KT_CANON_PREFIX;
	al = kt_rd16(p);
	if (2 + al + 4 > bl)
		goto bad;
	pl = kt_rd32(p + 2 + al);
	if (2 + al + 4 + pl + 4 > bl)
		goto bad;
	yl = kt_rd32(p + 2 + al + 4 + pl);
	if (2 + al + 4 + pl + 4 + yl != bl)
		goto bad;
	if (keep)
		return 0;
	b->p[b->len] = 0;
	p[2 + al] = 0;
	p[2 + al + 4 + pl] = 0;
	ev->actor = (char *)p + 2;
	ev->prov_json = pl ? (char *)p + 2 + al + 4 : NULL;
	ev->payload = (char *)p + 2 + al + 4 + pl + 4;
	ev->payload_len = yl;
	return 0;
bad:
	return kt_err(s, KT_ECORRUPT, "seq %llu: bad event body",
		      (unsigned long long)seq);
}

/*
 * Fill ev from the clear header of a stored value only: no decompression.
 * The body length is checked as in ev_decode so a header-only read refuses
 * what a full read would refuse for a broken header.
 */
static int ev_head(kt_store *s, uint64_t seq, const MDB_val *v, kt_event *ev)
{
	const unsigned char *h = v->mv_data;
	size_t bl;

	if (v->mv_size < KT_EV_HDR || h[1] < 1 || h[1] > KT_KIND_MAX_ ||
	    (h[0] != KT_CODEC_RAW && h[0] != KT_CODEC_ZSTD))
		return kt_err(s, KT_ECORRUPT, "seq %llu: bad event header",
			      (unsigned long long)seq);
	bl = kt_rd32(h + 20);
	if (bl > KT_EVENT_MAX_BODY || bl < 10 ||
	    (h[0] == KT_CODEC_RAW && v->mv_size - KT_EV_HDR != bl))
		return kt_err(s, KT_ECORRUPT, "seq %llu: bad body length",
			      (unsigned long long)seq);
	memset(ev, 0, sizeof(*ev));
	ev->seq = seq;
	ev->kind = h[1];
	ev->parent = kt_rd64(h + 4);
	ev->ts_ns = (int64_t)kt_rd64(h + 12);
	memcpy(ev->hash, h + 24, KT_HASH_LEN);
	memcpy(ev->chain, h + 56, KT_HASH_LEN);
	ev->flags = KT_EV_HEAD;
	return 0;
}

/* Apply `how` to an event filled by ev_decode or ev_head: the hash and chain
 * are promised only with KT_READ_HASH (layout v2 computes them on demand). */
static void ev_how(kt_event *ev, unsigned how)
{
	if (!(how & KT_READ_HASH)) {
		memset(ev->hash, 0, KT_HASH_LEN);
		memset(ev->chain, 0, KT_HASH_LEN);
	}
}

int kt_event_read(kt_store *s, const char *run, uint64_t seq, unsigned how,
		  kt_event *ev)
{
	unsigned char key[KT_RUN_BIN + 8];
	MDB_val k = { sizeof(key), key }, v;
	MDB_txn *txn;
	int rc;

	if (!s || !ev || (how & ~(KT_READ_BODY | KT_READ_HASH)))
		return KT_EINVAL;
	rc = kt_run_bin(s, run, key);
	if (rc)
		return rc;
	kt_be64(key + KT_RUN_BIN, seq);
	rc = kt_rd_begin(s, &txn);
	if (rc)
		return rc;
	rc = mdb_get(txn, s->dbi[KT_DB_EVENTS], &k, &v);
	if (rc == MDB_NOTFOUND)
		rc = kt_err(s, KT_ENOTFOUND, "no event %s/%llu", run,
			    (unsigned long long)seq);
	else if (rc)
		rc = kt_mdb_err(s, rc, "event lookup");
	else if (!(how & KT_READ_BODY))
		rc = ev_head(s, seq, &v, ev);
	else
		rc = ev_decode(s, seq, &v, &s->evbuf, ev, 0);
	if (rc == 0)
		ev_how(ev, how);
	kt_rd_end(s, txn);
	return rc;
}

int kt_event_get(kt_store *s, const char *run, uint64_t seq, kt_event *ev)
{
	return kt_event_read(s, run, seq, KT_READ_BODY | KT_READ_HASH, ev);
}

int kt_event_head(kt_store *s, const char *run, uint64_t seq, kt_event *ev)
{
	return kt_event_read(s, run, seq, KT_READ_HEAD, ev);
}

int kt_event_scan(kt_store *s, const char *run, uint64_t first, uint64_t last,
		  unsigned kinds, unsigned how,
		  int (*fn)(const kt_event *, void *), void *arg)
{
	unsigned char key[KT_RUN_BIN + 8];
	MDB_val k = { sizeof(key), key }, v;
	MDB_txn *txn;
	MDB_cursor *c = NULL;
	struct kt_buf b = { 0 };
	kt_event ev;
	int rc;

	if (!s || !fn || (how & ~(KT_READ_BODY | KT_READ_HASH)))
		return KT_EINVAL;
	rc = kt_run_bin(s, run, key);
	if (rc)
		return rc;
	kt_be64(key + KT_RUN_BIN, first ? first : 1);
	if (!last)
		last = UINT64_MAX;
	rc = kt_rd_begin(s, &txn);
	if (rc)
		return rc;
	rc = mdb_cursor_open(txn, s->dbi[KT_DB_EVENTS], &c);
	if (rc) {
		rc = kt_mdb_err(s, rc, "cursor");
		goto out;
	}
	for (rc = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE); rc == 0;
	     rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
		uint64_t seq;

		if (k.mv_size != KT_RUN_BIN + 8 ||
		    memcmp(k.mv_data, key, KT_RUN_BIN) != 0)
			break;
		seq = kt_rd64((unsigned char *)k.mv_data + KT_RUN_BIN);
		if (seq > last)
			break;
		/* the kind sits in the clear in the header: filtering needs
		 * no decompression */
		if (kinds && v.mv_size > 1 &&
		    ((unsigned char *)v.mv_data)[1] < 32 &&
		    !(kinds & KT_KIND_BIT(((unsigned char *)v.mv_data)[1])))
			continue;
		rc = (how & KT_READ_BODY) ? ev_decode(s, seq, &v, &b, &ev, 0) :
					    ev_head(s, seq, &v, &ev);
		if (rc)
			goto out;
		ev_how(&ev, how);
		rc = fn(&ev, arg);
		if (rc)
			goto out;
	}
	rc = rc == MDB_NOTFOUND || rc == 0 ? 0 : kt_mdb_err(s, rc, "cursor");
out:
	if (c)
		mdb_cursor_close(c);
	kt_rd_end(s, txn);
	free(b.p);
	return rc;
}

/* One kind as a mask; a kind that does not exist matches nothing (bit 0:
 * no stored event has kind 0), as the one-kind iteration always did. */
static unsigned kind_mask(int kind)
{
	if (!kind)
		return 0;
	return kind >= 1 && kind <= KT_KIND_MAX_ ? KT_KIND_BIT(kind) :
						   KT_KIND_BIT(0);
}

int kt_event_foreach(kt_store *s, const char *run, uint64_t first,
		     uint64_t last, int kind,
		     int (*fn)(const kt_event *, void *), void *arg)
{
	return kt_event_scan(s, run, first, last, kind_mask(kind),
			     KT_READ_BODY | KT_READ_HASH, fn, arg);
}

int kt_event_foreach_head(kt_store *s, const char *run, uint64_t first,
			  uint64_t last, int kind,
			  int (*fn)(const kt_event *, void *), void *arg)
{
	return kt_event_scan(s, run, first, last, kind_mask(kind),
			     KT_READ_HEAD, fn, arg);
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
	rc = kt_rd_begin(s, &txn);
	if (rc)
		return rc;
	rc = mdb_cursor_open(txn, s->dbi[KT_DB_PATHS], &c);
	if (rc) {
		rc = kt_mdb_err(s, rc, "cursor");
		goto out;
	}
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
	if (c)
		mdb_cursor_close(c);
	kt_rd_end(s, txn);
	return rc;
}

int kt_path_foreach(kt_store *s, const char *run, uint64_t at_seq,
		    int (*fn)(const char *path, void *), void *arg)
{
	unsigned char bin[KT_RUN_BIN];
	char cur[KT_PATH_MAX_KEY + 1];
	MDB_val k, v;
	MDB_txn *txn;
	MDB_cursor *c = NULL;
	int rc, have = 0, live = 0;

	if (!s || !fn)
		return KT_EINVAL;
	rc = kt_run_bin(s, run, bin);
	if (rc)
		return rc;
	if (!at_seq)
		at_seq = UINT64_MAX;
	rc = kt_rd_begin(s, &txn);
	if (rc)
		return rc;
	rc = mdb_cursor_open(txn, s->dbi[KT_DB_PATHS], &c);
	if (rc) {
		rc = kt_mdb_err(s, rc, "cursor");
		goto out;
	}
	k.mv_size = KT_RUN_BIN;
	k.mv_data = bin;
	/* entries of one path are adjacent and ascend by seq; the state of a
	 * path is that of its last entry with seq <= at_seq */
	for (rc = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE); ;
	     rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
		const unsigned char *kp = k.mv_data;
		size_t pl;
		int end = rc != 0 || k.mv_size < KT_RUN_BIN + 10 ||
			  memcmp(kp, bin, KT_RUN_BIN) != 0;

		if (rc && rc != MDB_NOTFOUND) {
			rc = kt_mdb_err(s, rc, "cursor");
			goto out;
		}
		pl = end ? 0 : k.mv_size - KT_RUN_BIN - 9;
		if (have && (end || pl != strlen(cur) ||
			     memcmp(kp + KT_RUN_BIN, cur, pl) != 0)) {
			have = 0;
			if (live) {
				rc = fn(cur, arg);
				if (rc)
					goto out;
			}
		}
		if (end)
			break;
		if (pl > KT_PATH_MAX_KEY) {
			rc = kt_err(s, KT_ECORRUPT, "bad paths key");
			goto out;
		}
		if (!have) {
			memcpy(cur, kp + KT_RUN_BIN, pl);
			cur[pl] = 0;
			have = 1;
			live = 0;
		}
		if (kt_rd64(kp + k.mv_size - 8) <= at_seq)
			live = !(v.mv_size == 1);
	}
	rc = 0;
out:
	if (c)
		mdb_cursor_close(c);
	kt_rd_end(s, txn);
	return rc;
}

/* ---- verify ---------------------------------------------------------------- */

static int hash_cmp(const void *a, const void *b)
{
	return memcmp(a, b, KT_HASH_LEN);
}

/* Collect "<64 hex>" JSON strings of a payload: the blobs it references. */
static int collect_refs(const char *p, size_t n, struct kt_buf *refs)
{
	for (size_t i = 0; i + 66 <= n; i++) {
		unsigned char h[KT_HASH_LEN];
		char tmp[KT_HASH_HEX + 1];

		if (p[i] != '"' || p[i + 65] != '"')
			continue;
		memcpy(tmp, p + i + 1, KT_HASH_HEX);
		tmp[KT_HASH_HEX] = 0;
		if (kt_unhex(tmp, h, KT_HASH_LEN))
			continue;
		if (kt_buf_reserve(refs, refs->len + KT_HASH_LEN))
			return KT_ENOMEM;
		memcpy(refs->p + refs->len, h, KT_HASH_LEN);
		refs->len += KT_HASH_LEN;
		i += 65;
	}
	return 0;
}

int kt_store_verify(kt_store *s, const char *run, const char **bad_run,
		    uint64_t *bad_seq)
{
	unsigned char bin[KT_RUN_BIN], cur[KT_RUN_BIN], chain[KT_HASH_LEN];
	unsigned char h[KT_HASH_LEN], badh[KT_HASH_LEN];
	MDB_val k, v;
	MDB_txn *txn;
	MDB_cursor *c = NULL;
	struct kt_buf b = { 0 }, refs = { 0 };
	kt_event ev;
	uint64_t expect = 0, seq = 0;
	int rc, op, have = 0;

	if (!s)
		return KT_EINVAL;
	if (bad_run)
		*bad_run = NULL;
	if (bad_seq)
		*bad_seq = 0;
	s->bad_run[0] = 0;
	if (run && (rc = kt_run_bin(s, run, bin)) != 0)
		return rc;
	rc = kt_rd_begin(s, &txn);
	if (rc)
		return rc;
	if (run) {
		MDB_val rk = { KT_RUN_BIN, bin }, rv;

		rc = mdb_get(txn, s->dbi[KT_DB_RUNS], &rk, &rv);
		if (rc) {
			rc = rc == MDB_NOTFOUND ?
				kt_err(s, KT_ENOTFOUND, "no run %s", run) :
				kt_mdb_err(s, rc, "run lookup");
			goto out;
		}
	}
	rc = mdb_cursor_open(txn, s->dbi[KT_DB_EVENTS], &c);
	if (rc) {
		rc = kt_mdb_err(s, rc, "cursor");
		goto out;
	}
	k.mv_size = run ? KT_RUN_BIN : 0;
	k.mv_data = bin;
	op = run ? MDB_SET_RANGE : MDB_FIRST;
	for (rc = mdb_cursor_get(c, &k, &v, op); rc == 0;
	     rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
		const unsigned char *kp = k.mv_data;

		if (k.mv_size != KT_RUN_BIN + 8) {
			rc = kt_err(s, KT_ECORRUPT, "bad event key");
			goto bad;
		}
		if (run && memcmp(kp, bin, KT_RUN_BIN) != 0)
			break;
		if (!have || memcmp(kp, cur, KT_RUN_BIN) != 0) {
			MDB_val rk = { KT_RUN_BIN, (void *)kp }, rv;

			memcpy(cur, kp, KT_RUN_BIN);
			have = 1;
			expect = 1;
			kt_chain_h0(chain);
			if (!run && mdb_get(txn, s->dbi[KT_DB_RUNS], &rk,
					    &rv) != 0) {
				seq = kt_rd64(kp + KT_RUN_BIN);
				rc = kt_err(s, KT_ECORRUPT,
					    "events of a run that does not exist");
				goto bad;
			}
		}
		seq = kt_rd64(kp + KT_RUN_BIN);
		if (seq != expect) {
			rc = kt_err(s, KT_ECORRUPT, "seq %llu where %llu was "
				    "expected", (unsigned long long)seq,
				    (unsigned long long)expect);
			goto bad;
		}
		rc = ev_decode(s, seq, &v, &b, &ev, 1);
		if (rc)
			goto bad;
		kt_sha256(b.p, b.len, h);
		if (memcmp(h, ev.hash, KT_HASH_LEN) != 0) {
			rc = kt_err(s, KT_ECORRUPT, "event hash mismatch");
			goto bad;
		}
		chain_next(chain, seq, h, chain);
		if (memcmp(chain, ev.chain, KT_HASH_LEN) != 0) {
			rc = kt_err(s, KT_ECORRUPT, "chain mismatch");
			goto bad;
		}
		if (run && collect_refs((char *)b.p, b.len, &refs)) {
			rc = kt_err(s, KT_ENOMEM, "verify");
			goto out;
		}
		expect++;
	}
	if (rc != 0 && rc != MDB_NOTFOUND) {
		rc = kt_mdb_err(s, rc, "cursor");
		goto out;
	}
	mdb_cursor_close(c);
	c = NULL;
	if (run) {
		size_t n = refs.len / KT_HASH_LEN, u = 0;

		if (n)
			qsort(refs.p, n, KT_HASH_LEN, hash_cmp);
		for (size_t i = 0; i < n; i++)
			if (!u || memcmp(refs.p + (u - 1) * KT_HASH_LEN,
					 refs.p + i * KT_HASH_LEN, KT_HASH_LEN))
				memmove(refs.p + u++ * KT_HASH_LEN,
					refs.p + i * KT_HASH_LEN, KT_HASH_LEN);
		rc = kt_blob_verify(s, refs.p, u, badh);
	} else {
		rc = kt_blob_verify(s, NULL, 0, badh);
	}
	if (rc == KT_ECORRUPT) {
		char hx[KT_HASH_HEX + 1];

		kt_hex(badh, KT_HASH_LEN, hx);
		rc = kt_err(s, KT_ECORRUPT, "blob %s does not match its hash",
			    hx);
		if (bad_run)
			*bad_run = NULL;
	}
	goto out;
bad:
	if (rc == KT_ECORRUPT || rc == KT_ENOMEM) {
		char msg[sizeof(s->err)];

		kt_hex(cur, KT_RUN_BIN, s->bad_run);
		if (bad_run)
			*bad_run = s->bad_run;
		if (bad_seq)
			*bad_seq = seq;
		snprintf(msg, sizeof(msg), "%s", s->err);
		kt_err(s, rc, "run %s seq %llu: %s", s->bad_run,
		       (unsigned long long)seq, msg);
	}
out:
	if (c)
		mdb_cursor_close(c);
	kt_rd_end(s, txn);
	free(b.p);
	free(refs.p);
	return rc;
}

/* ---- statistics ------------------------------------------------------------ */

int kt_store_stats_get(kt_store *s, const char *run, kt_store_stats *st)
{
	unsigned char bin[KT_RUN_BIN];
	MDB_val k, v;
	MDB_txn *txn;
	MDB_cursor *c = NULL;
	MDB_stat ms;
	struct stat fs;
	int rc, op;

	if (!s || !st)
		return KT_EINVAL;
	memset(st, 0, sizeof(*st));
	if (run && (rc = kt_run_bin(s, run, bin)) != 0)
		return rc;
	if (stat(s->path, &fs) == 0)
		st->file_bytes = (uint64_t)fs.st_size;
	rc = kt_rd_begin(s, &txn);
	if (rc)
		return rc;
	if (run) {
		MDB_val rk = { KT_RUN_BIN, bin }, rv;

		rc = mdb_get(txn, s->dbi[KT_DB_RUNS], &rk, &rv);
		if (rc) {
			rc = rc == MDB_NOTFOUND ?
				kt_err(s, KT_ENOTFOUND, "no run %s", run) :
				kt_mdb_err(s, rc, "run lookup");
			goto out;
		}
		st->runs = 1;
	} else if (mdb_stat(txn, s->dbi[KT_DB_RUNS], &ms) == 0) {
		st->runs = ms.ms_entries;
	}
	if (mdb_stat(txn, s->dbi[KT_DB_DICTS], &ms) == 0)
		st->dicts = ms.ms_entries;
	rc = mdb_cursor_open(txn, s->dbi[KT_DB_EVENTS], &c);
	if (rc) {
		rc = kt_mdb_err(s, rc, "cursor");
		goto out;
	}
	k.mv_size = run ? KT_RUN_BIN : 0;
	k.mv_data = bin;
	op = run ? MDB_SET_RANGE : MDB_FIRST;
	for (rc = mdb_cursor_get(c, &k, &v, op); rc == 0;
	     rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
		const unsigned char *p = v.mv_data;

		if (run && (k.mv_size < KT_RUN_BIN ||
			    memcmp(k.mv_data, bin, KT_RUN_BIN) != 0))
			break;
		if (v.mv_size < KT_EV_HDR)
			continue;
		st->events++;
		st->event_raw_bytes += KT_CANON_PREFIX + kt_rd32(p + 20);
		st->event_stored_bytes += v.mv_size;
		if (p[1] <= KT_KIND_MAX_)
			st->events_by_kind[p[1]]++;
	}
	mdb_cursor_close(c);
	c = NULL;
	rc = 0;
	if (!run)
		rc = kt_blob_stats(s, txn, st);
out:
	if (c)
		mdb_cursor_close(c);
	kt_rd_end(s, txn);
	return rc;
}
