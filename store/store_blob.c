/*
 * store_blob.c - content-addressed blobs with zstd prefix deltas.
 *
 * Value layout (FORMAT.md "blobs"):
 *   u8 codec (0 raw, 1 zstd frame, 2 zstd delta frame) | u8 depth |
 *   be64 raw_len | [codec 2: base sha256[32]] | data
 * A delta frame is compressed with the base version's bytes as a raw-content
 * prefix (ZSTD_CCtx_refPrefix, zstd.h; the library form of
 * `zstd --patch-from`).  Versions of one path hint chain up to depth
 * KT_BLOB_KEYFRAME - 1; a keyframe (plain frame) starts a new chain, also
 * whenever the delta is over half the plain frame (storage_style.md §2.2:
 * 206 MB of kernel versions -> 2.3 MB with a keyframe every 32; 1.4 MB at
 * 128, at most 128 frames to decode, and the recent contents kept by
 * bc_stash make the usual decode, the previous version of a path, free).
 */
#include <stdlib.h>
#include <zstd.h>
#include "store_int.h"

#define BLOB_HDR 10
#define DELTA_MAX ((size_t)64 << 20) /* base + new: window <= 2^27 */

struct brec {
	int codec, depth;
	uint64_t raw_len;
	const unsigned char *base; /* codec 2 */
	const unsigned char *data;
	size_t n;
};

static int brec_parse(const MDB_val *v, struct brec *r)
{
	const unsigned char *p = v->mv_data;
	size_t hl;

	if (v->mv_size < BLOB_HDR)
		return KT_ECORRUPT;
	r->codec = p[0];
	r->depth = p[1];
	r->raw_len = kt_rd64(p + 2);
	if (r->codec > KT_CODEC_ZDELTA || r->raw_len > KT_BLOB_MAX ||
	    r->depth >= KT_BLOB_KEYFRAME)
		return KT_ECORRUPT;
	hl = BLOB_HDR + (r->codec == KT_CODEC_ZDELTA ? KT_HASH_LEN : 0);
	if (v->mv_size < hl || (r->codec == KT_CODEC_ZDELTA) != (r->depth > 0))
		return KT_ECORRUPT;
	r->base = r->codec == KT_CODEC_ZDELTA ? p + BLOB_HDR : NULL;
	r->data = p + hl;
	r->n = v->mv_size - hl;
	if (r->codec == KT_CODEC_RAW && r->n != r->raw_len)
		return KT_ECORRUPT;
	return 0;
}

static int brec_get(kt_store *s, MDB_txn *txn, const unsigned char *h,
		    struct brec *r)
{
	MDB_val k = { KT_HASH_LEN, (void *)h }, v;
	int rc = mdb_get(txn, s->dbi[KT_DB_BLOBS], &k, &v);

	if (rc == MDB_NOTFOUND)
		return KT_ENOTFOUND;
	if (rc)
		return kt_mdb_err(s, rc, "blob lookup");
	return brec_parse(&v, r) ? KT_ECORRUPT : 0;
}

/* Decode one record into out, given the base content for deltas. */
static int brec_decode(const struct brec *r, const struct kt_buf *base,
		       struct kt_buf *out)
{
	ZSTD_DCtx *dc = kt_dctx();
	size_t got;

	/* check the frame before allocating what it claims: a zstd block
	 * of >= 4 bytes yields <= 128 KiB, so no frame expands more than
	 * 32768-fold (RFC 8878 §3.1.1.2) */
	if (r->codec != KT_CODEC_RAW &&
	    (ZSTD_getFrameContentSize(r->data, r->n) != r->raw_len ||
	     r->raw_len > (uint64_t)r->n * 32768))
		return KT_ECORRUPT;
	if (kt_buf_reserve(out, (size_t)r->raw_len + 1))
		return KT_ENOMEM;
	out->len = (size_t)r->raw_len;
	if (r->codec == KT_CODEC_RAW) {
		memcpy(out->p, r->data, r->n);
		return 0;
	}
	if (!dc)
		return KT_ENOMEM;
	ZSTD_DCtx_reset(dc, ZSTD_reset_session_and_parameters);
	if (r->codec == KT_CODEC_ZDELTA &&
	    ZSTD_isError(ZSTD_DCtx_refPrefix(dc, base->p, base->len)))
		return KT_ECORRUPT;
	got = ZSTD_decompressDCtx(dc, out->p, (size_t)r->raw_len, r->data, r->n);
	ZSTD_DCtx_reset(dc, ZSTD_reset_session_and_parameters);
	if (ZSTD_isError(got) || got != r->raw_len)
		return KT_ECORRUPT;
	return 0;
}

void kt_bc_invalidate(kt_store *s)
{
	s->bc_valid = 0;
	for (int i = 0; i < KT_BC_MORE; i++)
		s->bc_more[i].valid = 0;
}

void kt_bc_free(kt_store *s)
{
	free(s->bc.p);
	memset(&s->bc, 0, sizeof(s->bc));
	for (int i = 0; i < KT_BC_MORE; i++) {
		free(s->bc_more[i].b.p);
		memset(&s->bc_more[i], 0, sizeof(s->bc_more[i]));
	}
	s->bc_valid = 0;
}

static void bc_swap(kt_store *s, struct kt_bcent *e)
{
	struct kt_buf t = s->bc;
	unsigned char h[KT_HASH_LEN];
	int v = s->bc_valid;

	s->bc = e->b;
	e->b = t;
	memcpy(h, s->bc_hash, KT_HASH_LEN);
	memcpy(s->bc_hash, e->hash, KT_HASH_LEN);
	memcpy(e->hash, h, KT_HASH_LEN);
	s->bc_valid = e->valid;
	e->valid = v;
	e->tick = ++s->bc_tick;
}

/* Keep the current content among the recent ones (its buffer moves there;
 * s->bc gets the evicted entry's buffer to reuse).  s->bc is invalid
 * after. */
static void bc_stash(kt_store *s)
{
	struct kt_bcent *e = &s->bc_more[0];
	size_t held = s->bc.len;

	if (!s->bc_valid || s->bc.len > KT_BC_MAX_LEN) {
		s->bc_valid = 0;
		return;
	}
	for (int i = 0; i < KT_BC_MORE; i++) {
		struct kt_bcent *x = &s->bc_more[i];

		if (x->valid && !memcmp(x->hash, s->bc_hash, KT_HASH_LEN)) {
			s->bc_valid = 0; /* kept already */
			return;
		}
		if (x->valid)
			held += x->b.len;
		if (!x->valid ? e->valid : x->tick < e->tick)
			e = x;
	}
	e->valid = 0;
	bc_swap(s, e);
	s->bc_valid = 0;
	/* within the byte budget: drop the oldest others */
	while (held > KT_BC_BYTES) {
		struct kt_bcent *old = NULL;

		held = 0;
		for (int i = 0; i < KT_BC_MORE; i++) {
			struct kt_bcent *x = &s->bc_more[i];

			if (!x->valid)
				continue;
			held += x->b.len;
			if (x != e && (!old || x->tick < old->tick))
				old = x;
		}
		if (!old || held <= KT_BC_BYTES)
			break;
		old->valid = 0;
		free(old->b.p);
		memset(&old->b, 0, sizeof(old->b));
	}
}

/* Make s->bc the content of h when it is cached: 1 yes, 0 no. */
static int bc_take(kt_store *s, const unsigned char *h)
{
	if (s->bc_valid && !memcmp(s->bc_hash, h, KT_HASH_LEN))
		return 1;
	for (int i = 0; i < KT_BC_MORE; i++)
		if (s->bc_more[i].valid &&
		    !memcmp(s->bc_more[i].hash, h, KT_HASH_LEN)) {
			/* the content swapped out stays among the recent */
			bc_swap(s, &s->bc_more[i]);
			return 1;
		}
	return 0;
}

/*
 * Reconstruct blob h into s->bc (the cache of recent contents) and, with
 * `check`, check its hash.  Walks base links back to a keyframe or to the
 * cached version, then applies the deltas forward.
 */
static int reconstruct(kt_store *s, MDB_txn *txn, const unsigned char *h,
		       int check)
{
	unsigned char chain[KT_BLOB_KEYFRAME + 1][KT_HASH_LEN];
	/* chain[i]'s record, pointing into the map: nothing is written
	 * while this runs, so the walk forward reuses what the walk back
	 * looked up (a second lookup of each was ~4 % of `questions mine`) */
	struct brec recs[KT_BLOB_KEYFRAME + 1];
	struct brec r;
	struct kt_buf tmp = { 0 }, *cur = &s->bc, *nxt = &tmp;
	unsigned char got[KT_HASH_LEN];
	int n = 0, rc, from_cache = 0;

	if (bc_take(s, h)) {
		if (check && s->bc_valid == KT_BC_UNCHECKED) {
			kt_sha256(s->bc.p, s->bc.len, got);
			if (memcmp(got, h, KT_HASH_LEN) != 0) {
				s->bc_valid = 0;
				return KT_ECORRUPT;
			}
			s->bc_valid = KT_BC_CHECKED;
		}
		return 0;
	}
	memcpy(chain[n++], h, KT_HASH_LEN);
	for (;;) {
		rc = brec_get(s, txn, chain[n - 1], &r);
		/* a stored blob whose delta base is not stored is damage, not
		 * an unknown hash: export took it for text and left the blob
		 * out of its output with exit 0 */
		if (rc == KT_ENOTFOUND && n > 1)
			rc = KT_ECORRUPT;
		/* nothing is decoded yet: the cached contents stay valid (a
		 * 64-hex string that names no blob, e.g. a compile's
		 * output_hash, dropped them and made the export's next
		 * version decode from its keyframe: 43 frames a version) */
		if (rc)
			return rc;
		recs[n - 1] = r;
		if (r.codec != KT_CODEC_ZDELTA)
			break;
		if (bc_take(s, r.base)) {
			from_cache = 1;
			break;
		}
		if (n > KT_BLOB_KEYFRAME)
			return KT_ECORRUPT;
		memcpy(chain[n++], r.base, KT_HASH_LEN);
	}
	if (!from_cache) {
		/* chain[n-1] is a keyframe; the current content stays
		 * among the recent ones */
		bc_stash(s);
		rc = brec_decode(&r, NULL, nxt);
		s->bc_frames++;
		if (rc)
			goto fail;
		n--;
		struct kt_buf *t = cur;
		cur = nxt;
		nxt = t;
	}
	/* invariant: cur holds content of chain[n] (or the cache) */
	s->bc_valid = 0;
	while (n > 0) {
		n--;
		rc = brec_decode(&recs[n], cur, nxt);
		s->bc_frames++;
		if (rc)
			goto fail;
		struct kt_buf *t = cur;
		cur = nxt;
		nxt = t;
	}
	if (check) {
		kt_sha256(cur->p, cur->len, got);
		if (memcmp(got, h, KT_HASH_LEN) != 0) {
			rc = KT_ECORRUPT;
			goto fail;
		}
	}
	if (cur != &s->bc) {
		struct kt_buf t = s->bc;
		s->bc = *cur;
		*cur = t; /* tmp now owns the old cache buffer */
	}
	memcpy(s->bc_hash, h, KT_HASH_LEN);
	s->bc_valid = check ? KT_BC_CHECKED : KT_BC_UNCHECKED;
	free(tmp.p);
	return 0;
fail:
	s->bc_valid = 0; /* s->bc may hold partial content */
	free(tmp.p);
	return rc;
}

int kt_blob_view(kt_store *s, const unsigned char hash[KT_HASH_LEN],
		 unsigned flags, const void **data, size_t *len)
{
	MDB_txn *txn;
	int rc;

	if (!s || !hash || !data || !len || (flags & ~KT_BLOB_NOCHECK))
		return KT_EINVAL;
	*data = NULL;
	*len = 0;
	rc = kt_rd_begin(s, &txn);
	if (rc)
		return rc;
	rc = reconstruct(s, txn, hash, !(flags & KT_BLOB_NOCHECK));
	kt_rd_end(s, txn);
	if (rc) {
		char hx[KT_HASH_HEX + 1];

		kt_hex(hash, KT_HASH_LEN, hx);
		if (rc == KT_ENOTFOUND)
			return kt_err(s, rc, "no blob %s", hx);
		return kt_err(s, rc, "blob %s: %s", hx, rc == KT_ECORRUPT ?
			      "does not decode to its hash" : kt_strerror(rc));
	}
	/* every cached content has room for it (brec_decode, blob_put) */
	s->bc.p[s->bc.len] = 0;
	/* what it read of the map (about: its frames are smaller) is given
	 * back as writes are (kt_store_checkpoint) */
	s->map_read += s->bc.len;
	*data = s->bc.p;
	*len = s->bc.len;
	return 0;
}

int kt_blob_get(kt_store *s, const unsigned char hash[KT_HASH_LEN],
		void **data, size_t *len)
{
	const void *v;
	unsigned char *p;
	int rc;

	if (!data || !len)
		return KT_EINVAL;
	*data = NULL;
	rc = kt_blob_view(s, hash, 0, &v, len);
	if (rc)
		return rc;
	p = malloc(*len + 1);
	if (!p) {
		*len = 0;
		return kt_err(s, KT_ENOMEM, "blob");
	}
	memcpy(p, v, *len + 1);
	*data = p;
	return 0;
}

uint64_t kt_blob_frames(kt_store *s)
{
	return s ? s->bc_frames : 0;
}

int kt_blob_exists(kt_store *s, const unsigned char hash[KT_HASH_LEN])
{
	MDB_txn *txn;
	MDB_val k = { KT_HASH_LEN, (void *)hash }, v;
	int rc;

	if (!s || !hash)
		return KT_EINVAL;
	rc = kt_rd_begin(s, &txn);
	if (rc)
		return rc;
	rc = mdb_get(txn, s->dbi[KT_DB_BLOBS], &k, &v);
	kt_rd_end(s, txn);
	if (rc == 0)
		return 1;
	if (rc == MDB_NOTFOUND)
		return 0;
	return kt_mdb_err(s, rc, "blob lookup");
}

static unsigned wlog_for(size_t n)
{
	unsigned w = 10;

	while (w < 27 && ((size_t)1 << w) < n)
		w++;
	return w;
}

/* The thread's compression context, reset to level; NULL when none. */
static ZSTD_CCtx *cctx_at(int level)
{
	ZSTD_CCtx *cc = kt_cctx();

	if (cc) {
		ZSTD_CCtx_reset(cc, ZSTD_reset_session_and_parameters);
		ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, level);
	}
	return cc;
}

static size_t zplain(void *dst, size_t cap, const void *src, size_t n)
{
	ZSTD_CCtx *cc = cctx_at(3);
	size_t r;

	if (!cc)
		return 0;
	r = ZSTD_compress2(cc, dst, cap, src, n);
	return ZSTD_isError(r) ? 0 : r;
}

static size_t zdelta(void *dst, size_t cap, const void *src, size_t n,
		     const void *base, size_t bn)
{
	/* level 1: against its previous version a file is mostly one long
	 * match, which the fast strategy finds too; level 3 took twice the
	 * CPU (5 % of a Claude Code import) for blobs 6 % smaller (RESULTS.md
	 * "session 4") */
	ZSTD_CCtx *cc = cctx_at(1);
	size_t r;

	if (!cc)
		return 0;
	/* the window must span prefix + source (zstd.h refPrefix) */
	ZSTD_CCtx_setParameter(cc, ZSTD_c_windowLog, (int)wlog_for(bn + n));
	if (ZSTD_isError(ZSTD_CCtx_refPrefix(cc, base, bn)))
		return 0;
	r = ZSTD_compress2(cc, dst, cap, src, n);
	ZSTD_CCtx_reset(cc, ZSTD_reset_session_and_parameters);
	return ZSTD_isError(r) ? 0 : r;
}

static int blob_put(kt_store *s, const void *data, size_t len,
		    const char *path_hint, const unsigned char *known,
		    unsigned char hash[KT_HASH_LEN])
{
	unsigned char h[KT_HASH_LEN], base[KT_HASH_LEN];
	MDB_val k = { KT_HASH_LEN, h }, v;
	struct kt_buf out = { 0 };
	size_t hl = path_hint ? strlen(path_hint) : 0, cap, fr = 0, hdr;
	int rc, depth = 0, have_base = 0;
	struct brec r;

	if (!s || (!data && len))
		return KT_EINVAL;
	if (!s->wtxn)
		return kt_err(s, KT_EBUSY, "blob put outside a transaction");
	if (len > KT_BLOB_MAX)
		return kt_err(s, KT_ELIMIT, "blob of %zu bytes is over the "
			      "limit", len);
	if (hl > KT_PATH_MAX_KEY)
		hl = KT_PATH_MAX_KEY;
	if (known)
		memcpy(h, known, KT_HASH_LEN);
	else
		kt_sha256(data ? data : "", len, h);
	if (hash)
		memcpy(hash, h, KT_HASH_LEN);
	rc = mdb_get(s->wtxn, s->dbi[KT_DB_BLOBS], &k, &v);
	if (rc == 0)
		goto head; /* dedup: content already stored */
	if (rc != MDB_NOTFOUND)
		return kt_mdb_err(s, rc, "blob lookup");
	if (hl) {
		MDB_val hk = { hl, (void *)path_hint }, hv;

		if (mdb_get(s->wtxn, s->dbi[KT_DB_HEADS], &hk, &hv) == 0 &&
		    hv.mv_size == KT_HASH_LEN) {
			memcpy(base, hv.mv_data, KT_HASH_LEN);
			have_base = brec_get(s, s->wtxn, base, &r) == 0 &&
				    r.depth + 1 < KT_BLOB_KEYFRAME &&
				    r.raw_len + len <= DELTA_MAX && len >= 64;
			if (have_base) {
				depth = r.depth + 1;
				/* a corrupt base just means a keyframe */
				have_base = reconstruct(s, s->wtxn, base, 1) == 0;
			}
		}
	}
	cap = BLOB_HDR + KT_HASH_LEN + ZSTD_compressBound(len);
	if (kt_buf_reserve(&out, cap)) {
		rc = kt_err(s, KT_ENOMEM, "blob buffer");
		goto out;
	}
	hdr = BLOB_HDR + KT_HASH_LEN;
	if (have_base) {
		fr = zdelta(out.p + hdr, cap - hdr, data, len, s->bc.p,
			    s->bc.len);
		/* a small delta is kept without trying the plain frame; a
		 * big one must beat half the plain frame */
		if (fr && fr > len / 16 + 64) {
			struct kt_buf pl = { 0 };
			size_t pf;

			if (kt_buf_reserve(&pl, ZSTD_compressBound(len))) {
				rc = kt_err(s, KT_ENOMEM, "blob buffer");
				goto out;
			}
			pf = zplain(pl.p, pl.cap, data, len);
			free(pl.p);
			if (pf && fr > pf / 2)
				fr = 0;
		}
	}
	if (fr) {
		out.p[0] = KT_CODEC_ZDELTA;
		out.p[1] = (unsigned char)depth;
		memcpy(out.p + BLOB_HDR, base, KT_HASH_LEN);
	} else {
		hdr = BLOB_HDR;
		fr = len ? zplain(out.p + hdr, cap - hdr, data, len) : 0;
		out.p[0] = KT_CODEC_ZSTD;
		if (!fr || fr >= len) {
			out.p[0] = KT_CODEC_RAW;
			if (len)
				memcpy(out.p + hdr, data, len);
			fr = len;
		}
		out.p[1] = 0;
	}
	kt_be64(out.p + 2, len);
	rc = kt_put(s, KT_DB_BLOBS, h, KT_HASH_LEN, out.p, hdr + fr,
		    MDB_NOOVERWRITE);
	if (rc == KT_EEXIST)
		rc = 0;
	if (rc)
		goto out;
	/* the next version of this path will delta against this one.  The
	 * content cached so far stays among the recent ones, unless it is
	 * the base just used: a path's old version is not needed again */
	if (have_base)
		s->bc_valid = 0;
	else
		bc_stash(s);
	if (kt_buf_reserve(&s->bc, len + 1) == 0) {
		if (len)
			memcpy(s->bc.p, data, len);
		s->bc.len = len;
		memcpy(s->bc_hash, h, KT_HASH_LEN);
		s->bc_valid = KT_BC_CHECKED;
	} else {
		s->bc_valid = 0;
	}
head:
	if (hl)
		rc = kt_put(s, KT_DB_HEADS, path_hint, hl, h, KT_HASH_LEN, 0);
out:
	free(out.p);
	return rc;
}

int kt_blob_put(kt_store *s, const void *data, size_t len,
		const char *path_hint, unsigned char hash[KT_HASH_LEN])
{
	return blob_put(s, data, len, path_hint, NULL, hash);
}

int kt_blob_put_hashed(kt_store *s, const void *data, size_t len,
		       const char *path_hint,
		       const unsigned char hash[KT_HASH_LEN])
{
	if (!hash)
		return KT_EINVAL;
	return blob_put(s, data, len, path_hint, hash, NULL);
}

int kt_blob_verify(kt_store *s, const unsigned char *only, size_t n,
		   unsigned char bad[KT_HASH_LEN])
{
	MDB_txn *txn;
	MDB_cursor *c = NULL;
	MDB_val k, v;
	int rc;

	rc = kt_rd_begin(s, &txn);
	if (rc)
		return rc;
	if (only) {
		for (size_t i = 0; i < n; i++) {
			MDB_val ok = { KT_HASH_LEN, (void *)(only + i *
							     KT_HASH_LEN) };

			/* a hex string that names no blob is just text */
			if (mdb_get(txn, s->dbi[KT_DB_BLOBS], &ok, &v) != 0)
				continue;
			kt_bc_invalidate(s);
			rc = reconstruct(s, txn, only + i * KT_HASH_LEN, 1);
			if (rc) {
				rc = KT_ECORRUPT;
				memcpy(bad, only + i * KT_HASH_LEN, KT_HASH_LEN);
				goto out;
			}
		}
		rc = 0;
		goto out;
	}
	rc = mdb_cursor_open(txn, s->dbi[KT_DB_BLOBS], &c);
	if (rc) {
		rc = kt_mdb_err(s, rc, "cursor");
		goto out;
	}
	for (rc = mdb_cursor_get(c, &k, &v, MDB_FIRST); rc == 0;
	     rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
		unsigned char h[KT_HASH_LEN];

		if (k.mv_size != KT_HASH_LEN) {
			memset(bad, 0, KT_HASH_LEN);
			rc = KT_ECORRUPT;
			goto out;
		}
		memcpy(h, k.mv_data, KT_HASH_LEN);
		kt_bc_invalidate(s); /* the stored bytes, not the cache */
		rc = reconstruct(s, txn, h, 1);
		if (rc) {
			memcpy(bad, h, KT_HASH_LEN);
			if (rc == KT_ENOTFOUND) /* a missing delta base */
				rc = KT_ECORRUPT;
			goto out;
		}
	}
	rc = rc == MDB_NOTFOUND ? 0 : kt_mdb_err(s, rc, "cursor");
out:
	return kt_rd_close(s, txn, c, rc);
}

int kt_blob_stats(kt_store *s, MDB_txn *txn, kt_store_stats *st)
{
	MDB_cursor *c;
	MDB_val k, v;
	int rc;

	rc = mdb_cursor_open(txn, s->dbi[KT_DB_BLOBS], &c);
	if (rc)
		return kt_mdb_err(s, rc, "cursor");
	for (rc = mdb_cursor_get(c, &k, &v, MDB_FIRST); rc == 0;
	     rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
		st->blobs++;
		if (v.mv_size >= BLOB_HDR)
			st->blob_raw_bytes += kt_rd64((unsigned char *)v.mv_data
						      + 2);
		st->blob_stored_bytes += v.mv_size;
	}
	mdb_cursor_close(c);
	return rc == MDB_NOTFOUND ? 0 : kt_mdb_err(s, rc, "cursor");
}
