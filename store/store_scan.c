/*
 * store_scan.c - scans of a run's events in seq order (kt_event_scan,
 * kt_event_foreach): one cursor per kind stream, blocks decoded into
 * pooled buffers, and on helper threads ahead of the scan (store_ahead.c).
 * The strict mode of a scan is what verification walks (store_verify.c).
 *
 * FORMAT.md §6.4 (ev_blocks) and §6.9 (ev_pages) are normative.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include "store_int.h"

/* ---- scans --------------------------------------------------------------- */


/*
 * Length of the dictionary a `dicts` value holds: the value itself, or the
 * content of the one zstd frame it is when it starts with the frame magic
 * (a dictionary starts with 0xEC30A437; FORMAT.md §6.8 lets a writer store
 * it compressed).  0 when the frame is unusable.
 */
static size_t dict_len(const MDB_val *dv)
{
	static const unsigned char magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };
	unsigned long long fcs;

	if (dv->mv_size < 8 || memcmp(dv->mv_data, magic, 4) != 0)
		return dv->mv_size;
	fcs = ZSTD_getFrameContentSize(dv->mv_data, dv->mv_size);
	if (fcs == ZSTD_CONTENTSIZE_UNKNOWN || fcs == ZSTD_CONTENTSIZE_ERROR ||
	    fcs > (size_t)KT_EVENT_MAX_BODY || fcs == 0 ||
	    fcs > (uint64_t)dv->mv_size * 32768)
		return 0;
	return (size_t)fcs;
}

/* The dictionary of dv into dst (dict_len bytes). */
static int dict_fill(const MDB_val *dv, unsigned char *dst, size_t len)
{
	size_t r;

	if (len == dv->mv_size && (dv->mv_size < 8 ||
	    memcmp(dv->mv_data, "\x28\xb5\x2f\xfd", 4) != 0)) {
		memcpy(dst, dv->mv_data, len);
		return 0;
	}
	if (!kt_dctx())
		return KT_ENOMEM;
	r = ZSTD_decompressDCtx(kt_dctx(), dst, len, dv->mv_data, dv->mv_size);
	return ZSTD_isError(r) || r != len ? KT_ECORRUPT : 0;
}

/*
 * kt_buf_reserve for a scan buffer that is written whole right away: a
 * new area is prefaulted in one call.  A first touch costs a page fault
 * per 4 KiB, ~17 us each on the benchmark VM, and a scan's stream and
 * staging buffers are ~5 MB: ~1,200 faults, a fifth of a full BODY scan.
 */
static int sbuf_reserve(struct kt_buf *b, size_t n)
{
	size_t old = b->cap;
	int rc = kt_buf_reserve(b, n);

#ifdef MADV_POPULATE_WRITE
	if (rc == 0 && b->cap != old && b->cap >= ((size_t)64 << 10)) {
		size_t pg = (size_t)sysconf(_SC_PAGESIZE);
		uintptr_t lo = ((uintptr_t)b->p + pg - 1) / pg * pg;
		uintptr_t hi = ((uintptr_t)b->p + b->cap) / pg * pg;

		if (hi > lo)
			madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
	}
#endif
	return rc;
}

/* The staging buffer of dictionary id with room for `need` bytes after
 * the dictionary (made on first use, kept in the handle's read cache). */
static int stage_get(struct kt_scan *sc, uint32_t id, size_t need,
		     struct kt_stage **out)
{
	kt_store *s = sc->s;
	struct kt_rcache *r = kt_rcache_get(s);
	struct kt_stage *st = NULL;
	unsigned char kb[4];
	MDB_val dk = { 4, kb }, dv;
	size_t dl;
	int rc;

	if (!r)
		return kt_err(s, KT_ENOMEM, "read cache");
	for (int i = 0; i < r->nstage; i++)
		if (r->stage[i].id == id)
			st = &r->stage[i];
	if (!st) {
		if (r->nstage == KT_DICT_MAX + 1) {
			/* more dictionaries than a store has: recycle */
			free(r->stage[0].buf.p);
			memmove(r->stage, r->stage + 1,
				(size_t)--r->nstage * sizeof(r->stage[0]));
		}
		kt_be32(kb, id);
		rc = mdb_get(sc->txn, s->dbi[KT_DB_DICTS], &dk, &dv);
		if (rc == MDB_NOTFOUND)
			return kt_err(s, KT_ECORRUPT, "event frame names "
				      "unknown dictionary %u", id);
		if (rc)
			return kt_mdb_err(s, rc, "dictionary");
		dl = dict_len(&dv);
		if (!dl)
			return kt_err(s, KT_ECORRUPT, "bad dictionary %u", id);
		st = &r->stage[r->nstage];
		memset(st, 0, sizeof(*st));
		if (sbuf_reserve(&st->buf, dl + need))
			return kt_err(s, KT_ENOMEM, "dictionary");
		rc = dict_fill(&dv, st->buf.p, dl);
		if (rc) {
			free(st->buf.p);
			return kt_err(s, rc, "bad dictionary %u", id);
		}
		st->id = id;
		st->dlen = dl;
		r->nstage++;
	}
	if (sbuf_reserve(&st->buf, st->dlen + need))
		return kt_err(s, KT_ENOMEM, "block");
	*out = st;
	return 0;
}

/*
 * Decode block value v of kind k (key seq first) into sb, the bodies
 * SCAN_HEAD bytes in.  A block with a dictionary is decompressed right
 * after a copy of the dictionary's content and then copied out: zstd then
 * takes the dictionary as a prefix of its output, and its matches into it
 * are plain back references instead of copies out of a separate buffer
 * (FORMAT.md §7.1 frames decode either way).  On the benchmark blocks that
 * took 10-25 % less time, the copy included, than decompressing with the
 * digested dictionary straight into the stream's buffer.
 */
#ifndef SCAN_DDICT_BELOW
#define SCAN_DDICT_BELOW ((size_t)64 << 10)
#endif
static int sbuf_decode(struct kt_scan *sc, struct kt_sbuf *sb, int k,
		       uint64_t first, const MDB_val *v)
{
	kt_store *s = sc->s;
	ZSTD_DCtx *dc = kt_dctx();
	struct kt_blkview bv;
	struct kt_stage *st = NULL;
	unsigned char *out;
	size_t r;
	int rc;

	sb->b.n = 0;
	if (kt_block_parse(v->mv_data, v->mv_size, k, &bv))
		return kt_err(s, KT_ECORRUPT, "bad block header (kind %d, "
			      "seq %llu)", k, (unsigned long long)first);
	if ((rc = kt_blk_rows(s, &bv, first, &sb->b, SCAN_HEAD)) != 0)
		return rc;
	if (sbuf_reserve(&sb->b.data, SCAN_HEAD + bv.raw_len + 1))
		return kt_err(s, KT_ENOMEM, "block");
	out = sb->b.data.p + SCAN_HEAD;
	if (bv.codec == KT_CODEC_RAW) {
		memcpy(out, bv.frame, bv.raw_len);
	} else {
		unsigned id = 0;
		int bad = kt_ev_frame_check(bv.frame, bv.frame_len,
					    bv.raw_len, bv.dict, &id);

		if (!dc)
			return kt_err(s, KT_ENOMEM, "zstd context");
		if (bad == KT_FRAME_SIZE)
			return kt_err(s, KT_ECORRUPT, "event frame size "
				      "mismatch");
		if (bad)
			return kt_err(s, KT_ECORRUPT, "frame dictionary %u, "
				      "header names %u", id, bv.dict);
		if (bv.dict && bv.raw_len < SCAN_DDICT_BELOW) {
			void *dd;

			if ((rc = kt_ddict_get(s, bv.dict, &dd)) != 0)
				return rc;
			r = ZSTD_decompress_usingDDict(dc, out, bv.raw_len,
						       bv.frame, bv.frame_len,
						       dd);
		} else if (bv.dict) {
			rc = stage_get(sc, bv.dict, bv.raw_len, &st);
			if (rc)
				return rc;
			r = ZSTD_decompress_usingDict(dc, st->buf.p + st->dlen,
						      bv.raw_len, bv.frame,
						      bv.frame_len, st->buf.p,
						      st->dlen);
		} else {
			r = ZSTD_decompressDCtx(dc, out, bv.raw_len, bv.frame,
						bv.frame_len);
		}
		if (ZSTD_isError(r) || r != bv.raw_len)
			return kt_err(s, KT_ECORRUPT, "event frame does not "
				      "decode%s%s", ZSTD_isError(r) ? ": " : "",
				      ZSTD_isError(r) ?
				      ZSTD_getErrorName(r) : "");
		if (st)
			memcpy(out, st->buf.p + st->dlen, bv.raw_len);
	}
	sb->b.data.len = SCAN_HEAD + bv.raw_len;
	sb->b.data.p[sb->b.data.len] = 0;
	sb->b.n = bv.n;
	return 0;
}

/* ---- decoding ahead ------------------------------------------------------ */

/* The block after nx[k].key in kind k's stream (nx[k].has = 0 at its end
 * or past the scan's last seq). */
static void ahead_next(struct kt_scan *sc, int k)
{
	struct kt_knext *x = &sc->nx[k];
	MDB_val key = { sizeof(x->key), x->key }, v;
	int rc;

	x->has = 0;
	rc = mdb_cursor_get(sc->c2, &key, &v, MDB_SET_KEY);
	if (rc == 0)
		rc = mdb_cursor_get(sc->c2, &key, &v, MDB_NEXT);
	if (rc || key.mv_size != sizeof(x->key) ||
	    memcmp(key.mv_data, sc->run, KT_RUN_BIN) != 0 ||
	    ((unsigned char *)key.mv_data)[KT_RUN_BIN] != (unsigned char)k)
		return;
	memcpy(x->key, key.mv_data, sizeof(x->key));
	x->v = v;
	x->first = kt_rd64(x->key + KT_RUN_BIN + 1);
	x->has = x->first <= sc->last;
}

/* Kind k's stream is read from the block at key on: decode ahead from
 * the block after it. */
static void ahead_start(struct kt_scan *sc, int k, const MDB_val *key)
{
	if (key->mv_size != sizeof(sc->nx[k].key))
		return;
	memcpy(sc->nx[k].key, key->mv_data, sizeof(sc->nx[k].key));
	ahead_next(sc, k);
}

/* The scan's copy of dictionary id's content. */
static int ahead_dict(struct kt_scan *sc, uint32_t id, const unsigned char **p,
		      size_t *len)
{
	struct kt_stage *st;
	int rc, i;

	for (i = 0; i < sc->nsd; i++)
		if (sc->sd[i].id == id) {
			*p = sc->sd[i].p;
			*len = sc->sd[i].len;
			return 0;
		}
	if (sc->nsd == KT_DICT_MAX + 1)
		return KT_ENOMEM;
	if ((rc = stage_get(sc, id, 0, &st)) != 0)
		return rc;
	sc->sd[i].p = malloc(st->dlen);
	if (!sc->sd[i].p)
		return KT_ENOMEM;
	memcpy(sc->sd[i].p, st->buf.p, st->dlen);
	sc->sd[i].len = st->dlen;
	sc->sd[i].id = id;
	sc->nsd++;
	*p = sc->sd[i].p;
	*len = sc->sd[i].len;
	return 0;
}

/*
 * Hand kind k's next block to the helpers.  Nonzero when it cannot be (a
 * block that does not parse, the helpers do not start, ...): the stream is
 * then decoded here when the scan reaches it, and anything wrong with the
 * block is reported from there.
 */
static int ahead_submit(struct kt_scan *sc, int k)
{
	struct kt_knext *x = &sc->nx[k];
	struct kt_blkview bv;
	const unsigned char *dp = NULL;
	size_t dl = 0;
	struct kt_pfb *p;
	int slot;

	if (kt_block_parse(x->v.mv_data, x->v.mv_size, k, &bv))
		return -1;
	if (bv.codec != KT_CODEC_RAW) {
		unsigned id;

		if (kt_ev_frame_check(bv.frame, bv.frame_len, bv.raw_len,
				      bv.dict, &id))
			return -1;
		if (bv.dict && ahead_dict(sc, bv.dict, &dp, &dl))
			return -1;
		if (!sc->ah && kt_ahead_open(sc->nthreads, &sc->ah)) {
			sc->nthreads = 0;
			return -1;
		}
	}
	slot = sc->pfree[--sc->npfree];
	p = &sc->pf[slot];
	if (kt_blk_rows(sc->s, &bv, x->first, &p->d, SCAN_HEAD) ||
	    sbuf_reserve(&p->d.data, SCAN_HEAD + bv.raw_len + 1))
		goto fail;
	p->job = -1;
	if (bv.codec == KT_CODEC_RAW) {
		memcpy(p->d.data.p + SCAN_HEAD, bv.frame, bv.raw_len);
	} else {
		p->job = kt_ahead_submit(sc->ah, bv.frame, bv.frame_len,
					 bv.raw_len, dp, dl,
					 p->d.data.p + SCAN_HEAD);
		if (p->job < 0)
			goto fail;
	}
	p->d.data.len = SCAN_HEAD + bv.raw_len;
	p->d.data.p[p->d.data.len] = 0;
	p->d.n = bv.n;
	sc->q[k][(sc->qh[k] + sc->qn[k]) % KT_AHEAD_JOBS] = slot;
	sc->qn[k]++;
	return 0;
fail:
	p->d.n = 0;
	sc->pfree[sc->npfree++] = slot;
	return -1;
}

/* Keep the helpers busy: hand out the next blocks of the streams met so
 * far, the one the scan will need first first. */
static void ahead_fill(struct kt_scan *sc)
{
	while (sc->npfree > 0) {
		int best = -1;

		for (int k = 0; k <= KT_KIND_MAX_; k++)
			if (sc->nx[k].has &&
			    (best < 0 || sc->nx[k].first < sc->nx[best].first))
				best = k;
		if (best < 0)
			return;
		if (ahead_submit(sc, best)) {
			sc->nx[best].has = 0;
			continue;
		}
		ahead_next(sc, best);
	}
}

/* Kind k's oldest block decoded ahead, waited for (its job's result in
 * *rc), out of the queue; its slot is free again once the caller has taken
 * or dropped its buffer. */
static struct kt_pfb *ahead_pop(struct kt_scan *sc, int k, int *rc)
{
	int slot = sc->q[k][sc->qh[k]];
	struct kt_pfb *p = &sc->pf[slot];
	const char *why;

	*rc = p->job >= 0 ? kt_ahead_wait(sc->ah, p->job, &why) : 0;
	p->job = -1;
	sc->pfree[sc->npfree++] = slot;
	sc->qh[k] = (sc->qh[k] + 1) % KT_AHEAD_JOBS;
	sc->qn[k]--;
	return p;
}

/* Forget kind k's blocks decoded ahead. */
static void ahead_drop(struct kt_scan *sc, int k)
{
	int rc;

	while (sc->qn[k])
		ahead_pop(sc, k, &rc)->d.n = 0;
	sc->nx[k].has = 0;
}

/*
 * Make kind k's oldest block decoded ahead the scan's block of the kind
 * when it holds seq: 0 done, 1 when it does not (or did not decode: the
 * block is then decoded here, which reports what is wrong with it).
 */
static int ahead_take(struct kt_scan *sc, int k, uint64_t seq)
{
	int rc, i;
	struct kt_pfb *p = ahead_pop(sc, k, &rc);
	struct kt_dblk t;

	i = rc ? -1 : kt_dblk_index(&p->d, seq);
	if (i < 0) {
		p->d.n = 0;
		ahead_drop(sc, k);
		return 1;
	}
	t = sc->it[k].sb.b;
	sc->it[k].sb.b = p->d;
	p->d = t;
	p->d.n = 0;
	sc->it[k].pos = (uint32_t)i;
	return 0;
}

/*
 * Body of seq (kind k) through the scan's own block of that stream.  The
 * body is writable; *room says whether the KT_CANON_PREFIX bytes before it
 * are too (the end of bodies already passed, not the dictionary): a scan
 * hashes prefix and body where they lie.
 */
static int kiter_get(struct kt_scan *sc, int k, uint64_t seq,
		     unsigned char **body, size_t *bl, int *room)
{
	struct kiter *it = &sc->it[k];
	struct kt_dblk *d = &it->sb.b;
	MDB_val key, v;
	int rc, i;

	while (it->pos < d->n && d->seq[it->pos] < seq)
		it->pos++;
	if ((it->pos >= d->n || d->seq[it->pos] != seq) && sc->qn[k] &&
	    ahead_take(sc, k, seq) == 0)
		ahead_fill(sc);
	if (it->pos >= d->n || d->seq[it->pos] != seq) {
		rc = kt_block_find(sc->s, sc->c, sc->run, k, seq, &key, &v);
		if (rc == KT_ENOTFOUND)
			rc = kt_err(sc->s, KT_ECORRUPT, "no block holds seq "
				    "%llu", (unsigned long long)seq);
		if (rc == 0)
			rc = sbuf_decode(sc, &it->sb, k,
					 kt_rd64((unsigned char *)key.mv_data +
						 KT_RUN_BIN + 1), &v);
		if (rc) {
			d->n = 0;
			return rc;
		}
		i = kt_dblk_index(d, seq);
		if (i < 0)
			return kt_err(sc->s, KT_ECORRUPT, "block lacks seq "
				      "%llu", (unsigned long long)seq);
		it->pos = (uint32_t)i;
		if (sc->nthreads) {
			ahead_start(sc, k, &key);
			ahead_fill(sc);
		}
	}
	*body = d->data.p + d->off[it->pos];
	*bl = d->off[it->pos + 1] - d->off[it->pos];
	*room = d->off[it->pos] >= KT_CANON_PREFIX;
	return 0;
}

/*
 * Scan seqs first..last of a run with n events.  With `hash`, every event
 * from the page of `first` on is hashed and the chain carried; `*chain`
 * then holds the chain after `last`.
 */
int kt_scan_run(struct kt_scan *sc, uint64_t n, uint64_t first,
		    uint64_t last, unsigned kinds, unsigned how,
		    unsigned char chain[KT_HASH_LEN],
		    int (*fn)(const kt_event *, void *), void *arg)
{
	kt_store *s = sc->s;
	struct kt_prow rows[KT_PAGE_N];
	unsigned char pchain[KT_HASH_LEN], h[KT_HASH_LEN];
	struct kt_buf b = { 0 }; /* bodies whose strings need copying */
	kt_event ev;
	uint64_t pfirst;
	int rc = 0, hash = (how & KT_READ_HASH) != 0;
	int body = (how & KT_READ_BODY) != 0, started = 0;

	if (!first)
		first = 1;
	if (!last || last > n)
		last = n;
	sc->last = last;
	for (pfirst = (first - 1) / KT_PAGE_N * KT_PAGE_N + 1;
	     first <= last && pfirst <= last; pfirst += KT_PAGE_N) {
		MDB_val v;
		uint32_t cnt;

		sc->bad_seq = pfirst;
		rc = kt_page_get(s, sc->txn, sc->run, pfirst, &v);
		if (rc)
			goto out;
		if (kt_page_parse(v.mv_data, v.mv_size, pfirst, pchain, rows,
				  KT_PAGE_N, &cnt) ||
		    (cnt != KT_PAGE_N && pfirst + cnt - 1 != n) ||
		    pfirst + cnt - 1 > n) {
			rc = kt_err(s, KT_ECORRUPT, "bad header page at seq "
				    "%llu", (unsigned long long)pfirst);
			goto out;
		}
		if (hash) {
			/* verify (strict) starts from h0 and checks every
			 * checkpoint, the first page's included */
			if (!started && !sc->strict)
				memcpy(chain, pchain, KT_HASH_LEN);
			else if (memcmp(chain, pchain, KT_HASH_LEN) != 0) {
				/* the first page's own checkpoint is bad */
				sc->bad_seq = started ? pfirst - KT_PAGE_N :
							pfirst;
				rc = kt_err(s, KT_ECORRUPT, "chain does not match "
					    "the checkpoint at seq %llu: an "
					    "event of seqs %llu..%llu differs",
					    (unsigned long long)pfirst,
					    (unsigned long long)sc->bad_seq,
					    (unsigned long long)(started ?
						pfirst - 1 : pfirst));
				goto out;
			}
		}
		started = 1;
		for (uint32_t i = 0; i < cnt; i++) {
			uint64_t seq = pfirst + i;
			int k = rows[i].kind;
			int want = seq >= first &&
				   (!kinds || (kinds & KT_KIND_BIT(k)));
			unsigned char *bp = NULL;
			size_t bl = 0;
			int room = 0;

			if (seq > last)
				break;
			sc->kind_events[k]++;
			if (!want && !hash)
				continue;
			sc->bad_seq = seq;
			if ((!body || (sc->head_kinds & KT_KIND_BIT(k))) &&
			    !hash) {
				kt_ev_head_fill(&ev, seq, &rows[i]);
				rc = fn(&ev, arg);
				if (rc)
					goto out;
				continue;
			}
			rc = kiter_get(sc, k, seq, &bp, &bl, &room);
			if (rc)
				goto out;
			if (hash && room) {
				/* the canonical bytes in place: no copy */
				kt_canon_prefix(bp - KT_CANON_PREFIX, k, seq,
						rows[i].parent, rows[i].ts);
				kt_sha256(bp - KT_CANON_PREFIX,
					  KT_CANON_PREFIX + bl, h);
				kt_chain_next(chain, seq, h, chain);
			} else if (hash) {
				rc = kt_ev_build(s, seq, &rows[i], bp, bl, &b);
				if (rc)
					goto out;
				kt_sha256(b.p, b.len, h);
				kt_chain_next(chain, seq, h, chain);
			}
			if (!want)
				continue;
			kt_ev_head_fill(&ev, seq, &rows[i]);
			if (hash) {
				memcpy(ev.hash, h, KT_HASH_LEN);
				memcpy(ev.chain, chain, KT_HASH_LEN);
			}
			if (body || sc->strict) {
				rc = kt_ev_body_view(s, &ev, bp, bl, &b);
				if (rc)
					goto out;
				if (!body) {
					ev.actor = ev.prov_json = NULL;
					ev.payload = NULL;
					ev.payload_len = 0;
					ev.flags = KT_EV_HEAD;
				}
			}
			rc = fn(&ev, arg);
			if (rc)
				goto out;
		}
	}
out:
	free(b.p);
	return rc;
}

/* The chain after a run's n events is not its head: the damaged event is
 * in the last page, which no checkpoint follows.  *bad_seq (may be NULL)
 * gets that page's first seq (0 for no events).  KT_ECORRUPT. */
int kt_head_mismatch(kt_store *s, uint64_t n, uint64_t *bad_seq)
{
	uint64_t from = n ? (n - 1) / KT_PAGE_N * KT_PAGE_N + 1 : 0;

	if (bad_seq)
		*bad_seq = from;
	return kt_err(s, KT_ECORRUPT, "chain does not match the run head: "
		      "an event of seqs %llu..%llu differs",
		      (unsigned long long)from, (unsigned long long)n);
}

int kt_scan_open(struct kt_scan *sc, kt_store *s, MDB_txn *txn,
		     const unsigned char *run)
{
	int rc;

	struct kt_rcache *r = kt_rcache_get(s);

	memset(sc, 0, sizeof(*sc));
	sc->s = s;
	sc->txn = txn;
	sc->run = run;
	/* the block buffers of the previous scan: sized already, and their
	 * pages faulted in (a scan inside a scan's callback gets new ones) */
	if (r && !r->scan_busy) {
		r->scan_busy = 1;
		sc->pooled = 1;
		sc->pool = r;
		for (int k = 0; k <= KT_KIND_MAX_; k++) {
			sc->it[k].sb = r->scan[k];
			sc->it[k].sb.b.n = 0;
		}
	}
	rc = mdb_cursor_open(txn, s->dbi[KT_DB_BLOCKS], &sc->c);
	if (rc) {
		sc->c = NULL;
		kt_scan_close(sc);
		return kt_mdb_err(s, rc, "cursor");
	}
	return 0;
}

void kt_scan_close(struct kt_scan *sc)
{
	struct kt_rcache *r = sc->s->rcache;

	/* the helpers first: they write into the buffers freed below */
	kt_ahead_close(sc->ah);
	sc->ah = NULL;
	for (int i = 0; i < KT_AHEAD_JOBS; i++)
		kt_dblk_free(&sc->pf[i].d);
	for (int i = 0; i < sc->nsd; i++)
		free(sc->sd[i].p);
	sc->nsd = 0;
	if (sc->c2)
		mdb_cursor_close(sc->c2);
	sc->c2 = NULL;
	if (sc->c)
		mdb_cursor_close(sc->c);
	sc->c = NULL;
	/* back to the pool, unless the cache was dropped meanwhile
	 * (kt_store_set_cache from a callback: rcache_free left them) */
	if (!(r && r == sc->pool && r->scan_busy))
		sc->pooled = 0;
	for (int k = 0; k <= KT_KIND_MAX_; k++) {
		if (sc->pooled) {
			r->scan[k] = sc->it[k].sb;
			r->scan[k].b.n = 0;
		} else {
			kt_sbuf_free(&sc->it[k].sb);
		}
	}
	if (sc->pooled)
		r->scan_busy = 0;
	sc->pooled = 0;
}

static int event_scan(kt_store *s, const char *run, uint64_t first,
		      uint64_t last, unsigned kinds, unsigned head_kinds,
		      unsigned how, int (*fn)(const kt_event *, void *),
		      void *arg)
{
	unsigned char bin[KT_RUN_BIN], chain[KT_HASH_LEN], head[KT_HASH_LEN];
	struct kt_scan sc;
	MDB_txn *txn;
	uint64_t n;
	int rc;

	if (!s || !fn || (how & ~(KT_READ_BODY | KT_READ_HASH)))
		return KT_EINVAL;
	if (!run) /* one run: NULL is a bad run id, not the whole store */
		return kt_run_bin(s, run, bin);
	if ((rc = kt_run_begin(s, run, bin, &txn)) != 0)
		return rc;
	rc = kt_run_n(s, txn, bin, &n, head);
	if (rc == KT_ENOTFOUND) {
		/* as before v2: no run, no events */
		kt_rd_end(s, txn);
		return 0;
	}
	if (rc == 0)
		rc = kt_scan_open(&sc, s, txn, bin);
	if (rc) {
		kt_rd_end(s, txn);
		return rc;
	}
	sc.head_kinds = head_kinds;
	/*
	 * Decode ahead on helper threads only in a read transaction: the
	 * frames they read lie in its snapshot, which nothing changes while
	 * it is open, whereas in a write transaction a callback's append may
	 * move the pages under them.  Not for a few events: starting threads
	 * costs more than decoding a block or two.
	 */
	if ((how & (KT_READ_BODY | KT_READ_HASH)) && txn != s->wtxn &&
	    (last && last < n ? last : n) + 1 >= (first ? first : 1) +
	    KT_AHEAD_MIN_EVENTS) {
		sc.nthreads = s->scan_threads < 0 ? kt_ahead_threads() :
						    s->scan_threads;
		if (sc.nthreads && mdb_cursor_open(txn, s->dbi[KT_DB_BLOCKS],
						   &sc.c2) != 0) {
			sc.c2 = NULL;
			sc.nthreads = 0;
		}
		for (int i = 0; i < KT_AHEAD_JOBS; i++) {
			sc.pf[i].job = -1;
			sc.pfree[sc.npfree++] = i;
		}
	}
	rc = kt_scan_run(&sc, n, first, last, kinds, how, chain, fn, arg);
	/* Each page's checkpoint checked the chain up to it; the events of
	 * the last page have none after them but the run head.  Without
	 * this a damaged body there came out of export with a hash and chain
	 * computed over the damage, and imported elsewhere as a sound run. */
	if (rc == 0 && (how & KT_READ_HASH) && (first ? first : 1) <= n &&
	    (!last || last >= n) && memcmp(chain, head, KT_HASH_LEN) != 0)
		rc = kt_head_mismatch(s, n, NULL);
	kt_scan_close(&sc);
	kt_rd_end(s, txn);
	return rc;
}

int kt_event_scan(kt_store *s, const char *run, uint64_t first, uint64_t last,
		  unsigned kinds, unsigned how,
		  int (*fn)(const kt_event *, void *), void *arg)
{
	return event_scan(s, run, first, last, kinds, 0, how, fn, arg);
}

int kt_event_scan_mixed(kt_store *s, const char *run, uint64_t first,
			uint64_t last, unsigned kinds, unsigned head_kinds,
			int (*fn)(const kt_event *, void *), void *arg)
{
	return event_scan(s, run, first, last, kinds | head_kinds, head_kinds,
			  KT_READ_BODY, fn, arg);
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

int kt_event_foreach_body(kt_store *s, const char *run, uint64_t first,
			  uint64_t last, int kind,
			  int (*fn)(const kt_event *, void *), void *arg)
{
	return kt_event_scan(s, run, first, last, kind_mask(kind),
			     KT_READ_BODY, fn, arg);
}

int kt_event_foreach_head(kt_store *s, const char *run, uint64_t first,
			  uint64_t last, int kind,
			  int (*fn)(const kt_event *, void *), void *arg)
{
	return kt_event_scan(s, run, first, last, kind_mask(kind),
			     KT_READ_HEAD, fn, arg);
}

int kt_store_set_scan_threads(kt_store *s, int n)
{
	if (!s || n < -1)
		return KT_EINVAL;
	s->scan_threads = n > KT_AHEAD_THREADS ? KT_AHEAD_THREADS : n;
	return 0;
}
