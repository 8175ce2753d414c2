/*
 * store_codec.c - zstd for event bodies: one compression and one
 * decompression context per process, digested dictionaries per handle, and
 * dictionary training (ZDICT) once a store holds enough events.
 *
 * Why dictionaries: events are compressed one frame each so any event reads
 * alone; small frames compress poorly without shared history.  A 110 KB
 * dictionary measured 3.5x vs 2.1x on ~1.2 KB records and twice the speed
 * (storage_style.md §2.1; zstd README "The case for Small Data
 * compression").  Frames keep their dictID (zstd frame header,
 * RFC 8878 §3.1.1.1.3) so old events find their dictionary forever.
 */
#include <stdlib.h>
#include <zstd.h>
#define ZDICT_STATIC_LINKING_ONLY /* fastCover: exported by libzstd 1.5 */
#include <zdict.h>
#include "store_int.h"

static ZSTD_CCtx *g_cctx;
static ZSTD_DCtx *g_dctx;
static int g_users;

int kt_codec_acquire(void)
{
	g_users++;
	return 0;
}

/* Contexts are freed with the last handle so leak checkers stay quiet. */
void kt_codec_release(void)
{
	if (--g_users > 0)
		return;
	g_users = 0;
	ZSTD_freeCCtx(g_cctx);
	ZSTD_freeDCtx(g_dctx);
	g_cctx = NULL;
	g_dctx = NULL;
}

void *kt_cctx(void)
{
	if (!g_cctx)
		g_cctx = ZSTD_createCCtx();
	return g_cctx;
}

void *kt_dctx(void)
{
	if (!g_dctx)
		g_dctx = ZSTD_createDCtx();
	return g_dctx;
}

void kt_dicts_free(kt_store *s)
{
	for (size_t i = 0; i < s->ndicts; i++) {
		ZSTD_freeCDict(s->dicts[i].cdict);
		ZSTD_freeDDict(s->dicts[i].ddict);
	}
	free(s->dicts);
	s->dicts = NULL;
	s->ndicts = 0;
}

/* Digest every dictionary of the store (ascending id). */
int kt_dicts_load(kt_store *s, MDB_txn *txn)
{
	MDB_cursor *c;
	MDB_val k, v;
	int rc, op = MDB_FIRST;

	kt_dicts_free(s);
	rc = mdb_cursor_open(txn, s->dbi[KT_DB_DICTS], &c);
	if (rc)
		return kt_mdb_err(s, rc, "cursor");
	while ((rc = mdb_cursor_get(c, &k, &v, op)) == 0) {
		struct kt_dict *d;

		op = MDB_NEXT;
		if (k.mv_size != 4)
			continue;
		d = realloc(s->dicts, (s->ndicts + 1) * sizeof(*d));
		if (!d) {
			rc = KT_ENOMEM;
			break;
		}
		s->dicts = d;
		d = &s->dicts[s->ndicts];
		d->id = kt_rd32(k.mv_data);
		d->cdict = NULL;
		/* ZSTD_createDDict copies the bytes: the map may move */
		d->ddict = ZSTD_createDDict(v.mv_data, v.mv_size);
		if (!d->ddict) {
			rc = kt_err(s, KT_ECORRUPT, "bad dictionary %u", d->id);
			break;
		}
		s->ndicts++;
	}
	mdb_cursor_close(c);
	if (rc == MDB_NOTFOUND)
		rc = 0;
	if (rc > 0)
		rc = kt_mdb_err(s, rc, "cursor");
	return rc;
}

static struct kt_dict *dict_find(kt_store *s, uint32_t id)
{
	for (size_t i = 0; i < s->ndicts; i++)
		if (s->dicts[i].id == id)
			return &s->dicts[i];
	return NULL;
}

/* The CDict of the newest dictionary, digested on first use. */
static ZSTD_CDict *newest_cdict(kt_store *s)
{
	struct kt_dict *d;
	MDB_txn *txn;
	unsigned char kb[4];
	MDB_val k = { 4, kb }, v;

	if (!s->ndicts)
		return NULL;
	d = &s->dicts[s->ndicts - 1];
	if (d->cdict)
		return d->cdict;
	if (kt_rd_begin(s, &txn))
		return NULL;
	kt_be32(kb, d->id);
	if (mdb_get(txn, s->dbi[KT_DB_DICTS], &k, &v) == 0)
		d->cdict = ZSTD_createCDict(v.mv_data, v.mv_size, 3);
	kt_rd_end(s, txn);
	return d->cdict;
}

size_t kt_ev_compress(kt_store *s, const void *src, size_t n, void *dst,
		      size_t cap)
{
	ZSTD_CCtx *cc = kt_cctx();
	ZSTD_CDict *cd;
	size_t r;

	if (!cc || n < 32)
		return 0;
	cd = newest_cdict(s);
	if (cd) {
		ZSTD_CCtx_reset(cc, ZSTD_reset_session_and_parameters);
		r = ZSTD_compress_usingCDict(cc, dst, cap, src, n, cd);
	} else {
		ZSTD_CCtx_reset(cc, ZSTD_reset_session_and_parameters);
		ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 3);
		r = ZSTD_compress2(cc, dst, cap, src, n);
	}
	if (ZSTD_isError(r) || r >= n)
		return 0;
	return r;
}

int kt_ev_decompress(kt_store *s, const void *src, size_t n, size_t raw_len,
		     struct kt_buf *b, size_t off)
{
	ZSTD_DCtx *dc = kt_dctx();
	unsigned long long fcs = ZSTD_getFrameContentSize(src, n);
	unsigned id = ZSTD_getDictID_fromFrame(src, n);
	struct kt_dict *d = NULL;
	size_t r;

	if (!dc)
		return KT_ENOMEM;
	if (fcs != raw_len || raw_len > KT_EVENT_MAX_BODY ||
	    raw_len > (uint64_t)n * 32768) /* see brec_decode */
		return kt_err(s, KT_ECORRUPT, "event frame size mismatch");
	if (id) {
		d = dict_find(s, id);
		if (!d)
			return kt_err(s, KT_ECORRUPT,
				      "event frame names unknown dictionary %u",
				      id);
	}
	if (kt_buf_reserve(b, off + raw_len + 1))
		return kt_err(s, KT_ENOMEM, "decompress buffer");
	if (d)
		r = ZSTD_decompress_usingDDict(dc, b->p + off, raw_len, src, n,
					       d->ddict);
	else
		r = ZSTD_decompressDCtx(dc, b->p + off, raw_len, src, n);
	if (ZSTD_isError(r) || r != raw_len)
		return kt_err(s, KT_ECORRUPT, "event frame does not decode%s%s",
			      ZSTD_isError(r) ? ": " : "",
			      ZSTD_isError(r) ? ZSTD_getErrorName(r) : "");
	b->len = off + raw_len;
	b->p[off + raw_len] = 0;
	return 0;
}

/* Decode one stored event value into its body (for training samples). */
static int body_of(kt_store *s, const MDB_val *v, struct kt_buf *b)
{
	const unsigned char *p = v->mv_data;
	size_t bl;

	if (v->mv_size < KT_EV_HDR)
		return KT_ECORRUPT;
	bl = kt_rd32(p + 20);
	if (p[0] == KT_CODEC_RAW) {
		if (v->mv_size - KT_EV_HDR != bl || kt_buf_reserve(b, bl + 1))
			return KT_ECORRUPT;
		memcpy(b->p, p + KT_EV_HDR, bl);
		b->len = bl;
		return 0;
	}
	return kt_ev_decompress(s, p + KT_EV_HDR, v->mv_size - KT_EV_HDR, bl, b,
				0);
}

/*
 * Train a dictionary when the store has grown enough since the last one:
 * the first at KT_DICT_FIRST_AT events, then each time the count grows
 * fourfold (at most 8), so the dictionary follows the content of growing
 * stores while the per-commit cost stays one mdb_stat.  Samples are evenly
 * spaced events, at most 8 MiB and 10000 of them ("~100x the dictionary
 * size ... a few thousand should suffice", zdict.h); the dictionary is 1/16
 * of the samples, at most 512 KiB.
 *
 * fastCover with fixed k=200, d=8 (zdict.h) instead of ZDICT_trainFromBuffer,
 * which searches k: measured on benchmark events, the same ratio (3.12 vs
 * 3.11) in a fifth of the time (0.05 s for 2 MB of samples).  A 512 KiB
 * dictionary compressed the events 3.44x where 110 KiB gave 3.16x.
 * accel=5 (zdict.h: 1..10, higher is faster and less exact) instead of 1:
 * on the 100k-event benchmark the events took 40.85 MB instead of 40.79 MB
 * (+0.14 %), and training fell from ~27 % to ~20 % of a 20k-event C API
 * import's CPU profile (perf, tests/bench/RESULTS.md "Store").
 */
int kt_dict_maybe_train(kt_store *s)
{
	MDB_stat st;
	MDB_cursor *c = NULL;
	MDB_val k, v;
	uint64_t need = KT_DICT_FIRST_AT, stride, i = 0, last_try = 0;
	struct kt_buf samples = { 0 }, body = { 0 };
	size_t *sizes = NULL, ns = 0, cap = 0, dsize, r;
	void *dict = NULL;
	unsigned char kb[4];
	uint32_t id;
	ZDICT_fastCover_params_t fp;
	int rc;

	if (mdb_stat(s->wtxn, s->dbi[KT_DB_EVENTS], &st))
		return 0;
	for (size_t d = 0; d < s->ndicts; d++)
		need *= 4;
	if (s->ndicts >= 8 || st.ms_entries < need)
		return 0;
	{
		MDB_val mk = { 8, (void *)"dict_try" }, mv;

		if (mdb_get(s->wtxn, s->dbi[KT_DB_META], &mk, &mv) == 0 &&
		    mv.mv_size == 8)
			last_try = kt_rd64(mv.mv_data);
		/* a failed attempt waits for the store to double */
		if (last_try && st.ms_entries < last_try * 2)
			return 0;
	}
	stride = st.ms_entries / 10000 + 1;
	rc = mdb_cursor_open(s->wtxn, s->dbi[KT_DB_EVENTS], &c);
	if (rc)
		return kt_mdb_err(s, rc, "cursor");
	for (rc = mdb_cursor_get(c, &k, &v, MDB_FIRST); rc == 0;
	     rc = mdb_cursor_get(c, &k, &v, MDB_NEXT), i++) {
		if (i % stride)
			continue;
		if (body_of(s, &v, &body))
			continue;
		if (samples.len + body.len > (8u << 20))
			break;
		if (ns == cap) {
			size_t *z = realloc(sizes, (cap = cap ? 2 * cap : 4096) *
					    sizeof(*z));
			if (!z)
				goto out;
			sizes = z;
		}
		if (kt_buf_reserve(&samples, samples.len + body.len + 1))
			goto out;
		memcpy(samples.p + samples.len, body.p, body.len);
		samples.len += body.len;
		sizes[ns++] = body.len;
	}
	mdb_cursor_close(c);
	c = NULL;
	dsize = samples.len / 16;
	if (dsize > KT_DICT_SIZE)
		dsize = KT_DICT_SIZE;
	rc = 0;
	if (dsize < 4096 || ns < 100)
		goto tried;
	dict = malloc(dsize);
	if (!dict)
		goto out;
	id = s->ndicts ? s->dicts[s->ndicts - 1].id + 1 : KT_DICT_ID_BASE;
	memset(&fp, 0, sizeof(fp));
	fp.k = 200;
	fp.d = 8;
	fp.f = 20;
	fp.accel = 5;
	fp.zParams.compressionLevel = 3;
	fp.zParams.dictID = id;
	r = ZDICT_trainFromBuffer_fastCover(dict, dsize, samples.p, sizes,
					    (unsigned)ns, fp);
	if (ZDICT_isError(r) || ZDICT_getDictID(dict, r) != id)
		goto tried;
	kt_be32(kb, id);
	rc = kt_put(s, KT_DB_DICTS, kb, 4, dict, r, MDB_NOOVERWRITE);
	if (rc)
		goto out;
	{
		struct kt_dict *d = realloc(s->dicts,
					    (s->ndicts + 1) * sizeof(*d));

		if (!d)
			goto out;
		s->dicts = d;
		d = &s->dicts[s->ndicts];
		d->id = id;
		d->cdict = ZSTD_createCDict(dict, r, 3);
		d->ddict = ZSTD_createDDict(dict, r);
		if (!d->ddict) {
			ZSTD_freeCDict(d->cdict);
			goto out;
		}
		s->ndicts++;
	}
tried:
	{
		unsigned char tv[8];

		kt_be64(tv, st.ms_entries);
		rc = kt_put(s, KT_DB_META, "dict_try", 8, tv, 8, 0);
	}
out:
	if (c)
		mdb_cursor_close(c);
	free(dict);
	free(samples.p);
	free(body.p);
	free(sizes);
	return rc;
}
