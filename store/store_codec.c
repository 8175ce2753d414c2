/*
 * store_codec.c - zstd for event bodies: one compression and one
 * decompression context per process (and one more per helper thread while a
 * long scan decodes ahead, store_ahead.c), digested dictionaries per handle,
 * and dictionary training (ZDICT) once a store holds enough events.
 *
 * Why dictionaries: a block holds ~256 KiB of bodies of one kind of one
 * run, and a dictionary trained on the run's own bodies gives each block
 * the history it lacks at its start: on the store benchmark the events take
 * 25.7 MB at level 3 with dictionaries, 27.5 MB even at level 5 without
 * them (FORMAT.md §7;
 * storage_style.md §2.1; zstd README "The case for Small Data
 * compression").  Frames keep their dictID (zstd frame header,
 * RFC 8878 §3.1.1.1.3) so old blocks find their dictionary forever.
 */
#include <stdint.h>
#include <stdlib.h>
/* ZSTD_createDDict_byReference: exported by libzstd 1.5 like fastCover */
#define ZSTD_STATIC_LINKING_ONLY
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

/*
 * A digested dictionary for compression in memory ktraj allocated and
 * checked: libzstd 1.5.4's ZSTD_createCDict_advanced2 (behind every
 * ZSTD_createCDict) dereferences the workspace it failed to allocate, so
 * under a tight `ulimit -v` a CDict it allocates itself is a SIGSEGV, not a
 * NULL.  Here the workspace (ZSTD_estimateCDictSize, which covers what
 * libzstd asks for), this header and the dictionary's bytes are one
 * malloc, and libzstd takes its workspace from it through its custom
 * allocator, which never fails.
 *
 * libzstd cannot give a CDict of its custom allocator the compression level
 * ZSTD_createCDict sets (its compressionLevel stays 0, "advanced
 * parameters"); that level only matters for a source of at least
 * CDICT_PARAMS_SRC bytes and CDICT_PARAMS_MULT times the dictionary, which
 * ZSTD_compress_usingCDict then compresses with parameters for its own
 * size, loading the dictionary's content afresh: kt_ev_compress_with does
 * that through ZSTD_compress_usingDict with the bytes kept here, so the
 * frames are those of a ZSTD_createCDict dictionary byte for byte.
 */
struct kt_cdict {
	ZSTD_CDict *cd;
	const void *dict; /* the dictionary's bytes, after the workspace */
	size_t len;
	void *ws;         /* the workspace handed to libzstd, once */
	size_t wscap;
	int wsgiven;
};

/* ZSTD_USE_CDICT_PARAMS_SRCSIZE_CUTOFF and _DICTSIZE_MULTIPLIER of
 * libzstd 1.5.4 lib/compress/zstd_compress.c */
#define CDICT_PARAMS_SRC ((size_t)128 << 10)
#define CDICT_PARAMS_MULT 6

static void *cdict_alloc(void *opaque, size_t size)
{
	struct kt_cdict *c = opaque;

	if (!c->wsgiven && size <= c->wscap) {
		c->wsgiven = 1;
		return c->ws;
	}
	/* a libzstd asking beyond its own estimate: as ZSTD_createCDict */
	return malloc(size);
}

static void cdict_free(void *opaque, void *p)
{
	struct kt_cdict *c = opaque;

	if (p != c->ws)
		free(p);
}

void kt_cdict_free(void *cdict)
{
	/* the CDict lives in c's block: nothing of it outlives free(c) */
	free(cdict);
}

void *kt_cdict_new(const void *dict, size_t len, int level)
{
	size_t hdr = (sizeof(struct kt_cdict) + 63) & ~(size_t)63;
	size_t wscap = ZSTD_estimateCDictSize(len, level);
	ZSTD_CCtx_params *p;
	struct kt_cdict *c;
	unsigned char *m;

	if (!dict || !len || wscap > SIZE_MAX - hdr - len)
		return NULL;
	if (!(m = malloc(hdr + wscap + len)))
		return NULL;
	c = (struct kt_cdict *)m;
	c->ws = m + hdr;
	c->wscap = wscap;
	c->wsgiven = 0;
	c->dict = m + hdr + wscap;
	c->len = len;
	memcpy(m + hdr + wscap, dict, len);
	if (!(p = ZSTD_createCCtxParams())) {
		free(m);
		return NULL;
	}
	/* parameters as ZSTD_createCDict picks them: its level, for a source
	 * of unknown size (ZSTD_cpm_createCDict); the bytes stay c's (byRef) */
	ZSTD_CCtxParams_init(p, level);
	c->cd = ZSTD_createCDict_advanced2(c->dict, len, ZSTD_dlm_byRef,
					   ZSTD_dct_auto, p,
					   (ZSTD_customMem){ cdict_alloc,
							     cdict_free, c });
	ZSTD_freeCCtxParams(p);
	if (!c->cd) {
		free(m);
		return NULL;
	}
	return c;
}

size_t kt_cdict_compress(void *cctx, const void *cdict, const void *src,
			 size_t n, void *dst, size_t cap)
{
	const struct kt_cdict *c = cdict;

	if (n >= CDICT_PARAMS_SRC &&
	    (uint64_t)n >= (uint64_t)c->len * CDICT_PARAMS_MULT)
		return ZSTD_compress_usingDict(cctx, dst, cap, src, n, c->dict,
					       c->len, KT_BLOCK_LEVEL);
	return ZSTD_compress_usingCDict(cctx, dst, cap, src, n, c->cd);
}

void kt_dicts_free(kt_store *s)
{
	for (size_t i = 0; i < s->ndicts; i++) {
		kt_cdict_free(s->dicts[i].cdict);
		ZSTD_freeDDict(s->dicts[i].ddict);
		free(s->dicts[i].dbytes);
	}
	free(s->dicts);
	s->dicts = NULL;
	s->ndicts = 0;
}

/*
 * The dictionary bytes of a `dicts` value (FORMAT.md §6.8): the value
 * itself when it is a raw zstd dictionary, or the content of the one zstd
 * frame it holds.  *out points into v or into b; KT_ECORRUPT for anything
 * else.  Dictionaries are stored compressed because a trained dictionary
 * is sample text: 1 MiB of it takes ~0.4 MB as a level-9 frame, and on the
 * store benchmark that is 2 % of the file.
 */
static int dict_bytes(const MDB_val *v, struct kt_buf *b, const void **out,
		      size_t *len)
{
	static const unsigned char frame_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };
	const unsigned char *p = v->mv_data;
	unsigned long long fcs;
	size_t r;

	if (v->mv_size < 8 || memcmp(p, frame_magic, 4) != 0) {
		*out = v->mv_data;
		*len = v->mv_size;
		return 0;
	}
	fcs = ZSTD_getFrameContentSize(p, v->mv_size);
	if (fcs == ZSTD_CONTENTSIZE_UNKNOWN || fcs == ZSTD_CONTENTSIZE_ERROR ||
	    fcs > KT_DICT_STORED_MAX || fcs > (uint64_t)v->mv_size * 32768)
		return KT_ECORRUPT;
	if (kt_buf_reserve(b, (size_t)fcs + 1))
		return KT_ENOMEM;
	r = ZSTD_decompressDCtx(kt_dctx(), b->p, (size_t)fcs, p, v->mv_size);
	if (ZSTD_isError(r) || r != fcs)
		return KT_ECORRUPT;
	*out = b->p;
	*len = r;
	return 0;
}

/* Digest every dictionary of the store (ascending id). */
int kt_dicts_refresh(kt_store *s, MDB_txn *txn)
{
	MDB_cursor *c;
	MDB_val k, v;
	uint32_t last = 0;
	int rc;

	rc = mdb_cursor_open(txn, s->dbi[KT_DB_DICTS], &c);
	if (rc)
		return kt_mdb_err(s, rc, "cursor");
	rc = mdb_cursor_get(c, &k, &v, MDB_LAST);
	mdb_cursor_close(c);
	if (rc && rc != MDB_NOTFOUND)
		return kt_mdb_err(s, rc, "dictionaries");
	if (rc == 0 && k.mv_size == 4)
		last = kt_rd32(k.mv_data);
	if (last == (s->ndicts ? s->dicts[s->ndicts - 1].id : 0))
		return 0;
	return kt_dicts_load(s, txn);
}

/*
 * The store's dictionary ids (ascending); each is digested on the first
 * decode that names it (dict_digest).  Digesting all of them at open took
 * a decompression of each stored frame and a copy of up to 512 KiB into
 * fresh pages (~350 page faults, a third of `ktraj ls` on the benchmark
 * store), and the scans, which decode with the raw dictionary
 * (store_scan.c), never use the digest.  A damaged dictionary is reported
 * by the read that needs it, as FORMAT.md §6.10's table says ("one no
 * block uses is not read by any reader").
 */
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
		d = &s->dicts[s->ndicts++];
		d->id = kt_rd32(k.mv_data);
		d->cdict = NULL;
		d->ddict = NULL;
		d->dbytes = NULL;
	}
	mdb_cursor_close(c);
	if (rc == MDB_NOTFOUND)
		rc = 0;
	if (rc > 0)
		rc = kt_mdb_err(s, rc, "cursor");
	return rc;
}

/* The DDict of d, digested from the stored dictionary on first use. */
static int dict_digest(kt_store *s, struct kt_dict *d)
{
	MDB_txn *txn;
	unsigned char kb[4];
	MDB_val k = { 4, kb }, v;
	struct kt_buf b = { 0 };
	const void *db;
	size_t dl;
	int rc;

	if (d->ddict)
		return 0;
	if (!kt_dctx())
		return kt_err(s, KT_ENOMEM, "zstd context");
	if ((rc = kt_rd_begin(s, &txn)) != 0)
		return rc;
	kt_be32(kb, d->id);
	rc = mdb_get(txn, s->dbi[KT_DB_DICTS], &k, &v);
	if (rc == MDB_NOTFOUND)
		rc = kt_err(s, KT_ECORRUPT, "event frame names unknown "
			    "dictionary %u", d->id);
	else if (rc)
		rc = kt_mdb_err(s, rc, "dictionary");
	else if ((rc = dict_bytes(&v, &b, &db, &dl)) == KT_ENOMEM)
		rc = kt_err(s, rc, "dictionary");
	/* A stored frame was just decoded into b: the DDict references
	 * those bytes and d keeps them, where a copy cost 512 KiB of fresh
	 * pages (~0.9 ms of a one-block `show`).  A raw value lies in the
	 * map, which may move, so ZSTD_createDDict copies it.  Both parse
	 * the same entropy tables: a bad dictionary fails either way. */
	else if (rc)
		rc = kt_err(s, KT_ECORRUPT, "bad dictionary %u", d->id);
	else if (db == b.p) {
		if (!(d->ddict = ZSTD_createDDict_byReference(db, dl)))
			rc = kt_err(s, KT_ECORRUPT, "bad dictionary %u",
				    d->id);
		else {
			d->dbytes = b.p;
			b.p = NULL;
		}
	} else if (!(d->ddict = ZSTD_createDDict(db, dl)))
		rc = kt_err(s, KT_ECORRUPT, "bad dictionary %u", d->id);
	kt_rd_end(s, txn);
	free(b.p);
	return rc;
}

int kt_dicts_check(kt_store *s)
{
	int rc = 0;

	for (size_t i = 0; i < s->ndicts && rc == 0; i++)
		rc = dict_digest(s, &s->dicts[i]);
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
static void *newest_cdict(kt_store *s)
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
	if (mdb_get(txn, s->dbi[KT_DB_DICTS], &k, &v) == 0) {
		struct kt_buf b = { 0 };
		const void *db;
		size_t dl;

		if (dict_bytes(&v, &b, &db, &dl) == 0)
			d->cdict = kt_cdict_new(db, dl, KT_BLOCK_LEVEL);
		free(b.p);
	}
	kt_rd_end(s, txn);
	return d->cdict;
}

int kt_ddict_get(kt_store *s, uint32_t id, void **out)
{
	struct kt_dict *d = dict_find(s, id);
	int rc;

	*out = NULL;
	if (!d) {
		/* trained by another process since this handle listed them */
		MDB_txn *t;

		if (kt_rd_begin(s, &t) == 0) {
			(void)kt_dicts_refresh(s, t);
			kt_rd_end(s, t);
		}
		if (!(d = dict_find(s, id)))
			return kt_err(s, KT_ECORRUPT, "event frame names "
				      "unknown dictionary %u", id);
	}
	if ((rc = dict_digest(s, d)) != 0)
		return rc;
	*out = d->ddict;
	return 0;
}

void *kt_ev_cdict(kt_store *s, uint32_t *dict)
{
	void *cd = newest_cdict(s);

	*dict = cd ? s->dicts[s->ndicts - 1].id : 0;
	return cd;
}

size_t kt_ev_compress_with(void *cctx, void *cdict, uint32_t id,
			   const void *src, size_t n, void *dst, size_t cap,
			   uint32_t *dict)
{
	ZSTD_CCtx *cc = cctx;
	size_t r;

	*dict = 0;
	if (!cc || n < 32)
		return 0;
	ZSTD_CCtx_reset(cc, ZSTD_reset_session_and_parameters);
	if (cdict) {
		r = kt_cdict_compress(cc, cdict, src, n, dst, cap);
		*dict = id;
	} else {
		ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel,
				       KT_BLOCK_LEVEL);
		r = ZSTD_compress2(cc, dst, cap, src, n);
	}
	if (ZSTD_isError(r) || r >= n) {
		*dict = 0;
		return 0;
	}
	return r;
}

size_t kt_ev_compress(kt_store *s, const void *src, size_t n, void *dst,
		      size_t cap, uint32_t *dict)
{
	ZSTD_CCtx *cc = kt_cctx();
	uint32_t id;
	void *cd;

	*dict = 0;
	if (!cc || n < 32)
		return 0;
	cd = kt_ev_cdict(s, &id);
	return kt_ev_compress_with(cc, cd, id, src, n, dst, cap, dict);
}

int kt_ev_frame_check(const void *src, size_t n, size_t raw_len,
		      uint32_t dict, unsigned *id)
{
	/* zstd's block format cannot expand a byte more than ~32768-fold
	 * (RFC 8878 §3.1.1.2.4: 128 KiB of content in a 3-byte block), so a
	 * larger claim is corrupt and never worth allocating for */
	if (ZSTD_getFrameContentSize(src, n) != raw_len ||
	    raw_len > (uint64_t)n * 32768)
		return KT_FRAME_SIZE;
	*id = ZSTD_getDictID_fromFrame(src, n);
	return *id != dict ? KT_FRAME_DICT : 0;
}

int kt_ev_decompress(kt_store *s, const void *src, size_t n, size_t raw_len,
		     uint32_t dict, struct kt_buf *b, size_t off)
{
	ZSTD_DCtx *dc = kt_dctx();
	unsigned id = 0;
	void *dd = NULL;
	size_t r;
	int bad;

	if (!dc)
		return KT_ENOMEM;
	bad = kt_ev_frame_check(src, n, raw_len, dict, &id);
	if (bad == KT_FRAME_SIZE || raw_len > 2 * (size_t)KT_EVENT_MAX_BODY)
		return kt_err(s, KT_ECORRUPT, "event frame size mismatch");
	if (bad)
		return kt_err(s, KT_ECORRUPT, "frame dictionary %u, header "
			      "names %u", id, dict);
	if (id && (bad = kt_ddict_get(s, id, &dd)) != 0)
		return bad;
	if (kt_buf_reserve(b, off + raw_len + 1))
		return kt_err(s, KT_ENOMEM, "decompress buffer");
	if (dd)
		r = ZSTD_decompress_usingDDict(dc, b->p + off, raw_len, src, n,
					       dd);
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

void kt_dict_sample(kt_store *s, const void *body, size_t n)
{
	if (s->ndicts >= KT_DICT_MAX || s->trained >= 2 || n < 16)
		return;
	/* the whole budget at once, in huge pages: doubling copied the
	 * samples over and over, and 4 KiB pages cost a fault each (~8 % of
	 * a Claude Code import's profile) */
	if (s->samples.len + n > KT_SAMPLES_MAX ||
	    kt_big_reserve(&s->samples, KT_SAMPLES_MAX))
		return;
	if (KT_GROW(s->sample_len, s->sample_cap, s->nsamples + 1))
		return;
	memcpy(s->samples.p + s->samples.len, body, n);
	s->samples.len += n;
	s->sample_len[s->nsamples++] = n;
}

int kt_dict_deferring(const kt_store *s)
{
	return s->ndicts == 0 && s->trained == 0;
}

/*
 * Train a dictionary from the bodies this handle appended.  A fresh store
 * trains once, when KT_DICT_TRAIN_AT bodies are kept (or the sample buffer
 * is full); until then its sealed blocks are held raw (kt_defer_flush) and
 * compressed with the dictionary once it exists, so one big import
 * compresses all its blocks with a dictionary trained on its own content.
 * A transaction that ends earlier trains on what it kept, if at least
 * KT_DICT_MIN_AT bodies.  A store that already has dictionaries trains
 * one more when this handle kept KT_DICT_SECOND_AT bodies (a big import of
 * other content).  Training happens inside the write transaction.  Small
 * live appends never train.
 *
 * One training instead of the two of session 3 (2,000 then 20,000
 * samples): the second cost ~0.3 s of a 100 MB Claude Code import and the
 * single one with held blocks gives a store no larger (RESULTS.md
 * "session 4").
 *
 * fastCover with fixed k=200, d=8 (zdict.h) instead of
 * ZDICT_trainFromBuffer, which searches k: the same ratio in a fifth of the
 * time (tests/bench/RESULTS.md "Store").  accel=10 (the most; 5 before
 * session 6): 12 % fewer instructions in training, the benchmark's event
 * blocks 0.04 % larger (RESULTS.md "session 6").  f=18 (a 1 MiB frequency table
 * that stays in the L2 cache) instead of the default 20: training took half
 * the time for a store 0.1-0.7 % larger (RESULTS.md "session 4").  Dictionary size: 1/16 of the
 * samples, at most 512 KiB (1 MiB before session 7): on the 100 MB Claude
 * Code session training took 18 % fewer instructions (1.1 % of the import)
 * and its events took 0.7 % less room; the gen.py benchmark's store grew
 * 0.75 %, to 0.98x its zstd -3 file (RESULTS.md "session 7").
 */
static int dict_train(kt_store *s)
{
	size_t dsize, r, zl;
	void *dict = NULL, *zb;
	unsigned char kb[4];
	uint32_t id;
	ZDICT_fastCover_params_t fp;
	int rc = 0;

	dsize = s->samples.len / 16;
	if (dsize > KT_DICT_SIZE)
		dsize = KT_DICT_SIZE;
	if (dsize < 4096 || s->nsamples < 100)
		goto done;
	dict = malloc(dsize);
	if (!dict)
		goto done;
	/* libzstd 1.5.4's ZSTD_createCDict_advanced2, which
	 * ZDICT_finalizeDictionary calls with libzstd's own allocator,
	 * dereferences the CDict it failed to allocate (SIGSEGV under a tight
	 * `ulimit -v`), and ZDICT takes no allocator: what the end of the
	 * training holds at once (fastCover's 2^f counters and offsets, then
	 * the CDict, a CCtx and a block) is tried first and freed for it to
	 * take.  Only a likelihood: another thread may take the room in
	 * between.  Our own CDicts never depend on it (kt_cdict_new).  The
	 * dictionary is only a better ratio: blocks are compressed without
	 * one as before the first training. */
	zb = malloc(((size_t)1 << 18) * (4 + 2) + (s->nsamples + 1) * 8 +
		    ZSTD_estimateCDictSize(dsize, KT_BLOCK_LEVEL) +
		    ZSTD_estimateCCtxSize(KT_BLOCK_LEVEL) + ZSTD_BLOCKSIZE_MAX);
	if (!zb)
		goto done;
	free(zb);
	id = s->ndicts ? s->dicts[s->ndicts - 1].id + 1 : KT_DICT_ID_BASE;
	memset(&fp, 0, sizeof(fp));
	fp.k = 200;
	fp.d = 8;
	fp.f = 18;
	fp.accel = 10;
	fp.zParams.compressionLevel = KT_BLOCK_LEVEL;
	fp.zParams.dictID = id;
	r = ZDICT_trainFromBuffer_fastCover(dict, dsize, s->samples.p,
					    s->sample_len,
					    (unsigned)s->nsamples, fp);
	if (ZDICT_isError(r) || ZDICT_getDictID(dict, r) != id)
		goto done;
	kt_be32(kb, id);
	/* stored as one zstd frame when that is smaller (dict_bytes) */
	zb = malloc(ZSTD_compressBound(r));
	zl = zb ? ZSTD_compressCCtx(kt_cctx(), zb, ZSTD_compressBound(r), dict,
				    r, KT_DICT_STORE_LEVEL) : 0;
	if (zb && !ZSTD_isError(zl) && zl < r)
		rc = kt_put(s, KT_DB_DICTS, kb, 4, zb, zl, MDB_NOOVERWRITE);
	else
		rc = kt_put(s, KT_DB_DICTS, kb, 4, dict, r, MDB_NOOVERWRITE);
	free(zb);
	if (rc)
		goto done;
	{
		struct kt_dict *d = realloc(s->dicts,
					    (s->ndicts + 1) * sizeof(*d));

		if (!d) {
			rc = KT_ENOMEM;
			goto done;
		}
		s->dicts = d;
		d = &s->dicts[s->ndicts];
		d->id = id;
		d->cdict = kt_cdict_new(dict, r, KT_BLOCK_LEVEL);
		d->ddict = ZSTD_createDDict(dict, r);
		d->dbytes = NULL;
		if (!d->ddict) {
			kt_cdict_free(d->cdict);
			rc = KT_ENOMEM;
			goto done;
		}
		s->ndicts++;
	}
done:
	/* tried once: a failed training is not repeated */
	s->trained = 2;
	kt_big_free(&s->samples);
	free(s->sample_len);
	s->sample_len = NULL;
	s->nsamples = s->sample_cap = 0;
	free(dict);
	return rc;
}

int kt_dict_maybe_train(kt_store *s)
{
	int fresh, rc;

	if (!s->wtxn || s->ndicts >= KT_DICT_MAX || s->trained >= 2)
		return 0;
	fresh = kt_dict_deferring(s);
	if (s->nsamples < (fresh ? KT_DICT_TRAIN_AT : KT_DICT_SECOND_AT) &&
	    s->samples.len + (64u << 10) < KT_SAMPLES_MAX)
		return 0;
	rc = dict_train(s);
	if (rc == 0 && fresh)
		rc = kt_defer_flush(s);
	return rc;
}

int kt_dict_train_pending(kt_store *s)
{
	/* under 64 KiB of samples dict_train gives up (a dictionary under
	 * 4 KiB) and never tries again: wait for KT_DICT_TRAIN_AT instead */
	if (!s->wtxn || !kt_dict_deferring(s) ||
	    s->nsamples < KT_DICT_MIN_AT || s->samples.len / 16 < 4096)
		return 0;
	return dict_train(s);
}
