/*
 * store_append.c - the open append state of event layout v2: events go to
 * memory first (struct kt_orun): the open block of each kind and the open
 * page are written when a block or page seals, and otherwise at commit,
 * when the writer switches runs, or before a read inside the same write
 * transaction (kt_ev_flush).  The stored open block is then rewritten with
 * the events added since.
 *
 * FORMAT.md §6.4 (ev_blocks) and §6.9 (ev_pages) are normative for every
 * byte written here; store_layout.c has the layout both sides share.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include "store_int.h"

/* ---- open append state --------------------------------------------------- */

static void oblk_reset(struct kt_oblk *b)
{
	b->first = 0;
	b->n = 0;
	b->raw.len = 0;
	b->dirty = 0;
}

void kt_ev_forget(kt_store *s, int cache)
{
	struct kt_orun *o = &s->orun;

	/* the block in flight was sealed before what failed: stored as the
	 * one-thread path would have; after an abort it is dropped */
	if (s->wtxn)
		(void)kt_wb_settle(s);
	else
		kt_wb_drop(s);
	o->valid = 0;
	o->dirty = 0;
	for (int k = 0; k <= KT_KIND_MAX_; k++) {
		oblk_reset(&o->blk[k]);
		o->blk[k].live = 0;
	}
	if (cache) {
		kt_pcache_clear(s);
		for (size_t i = 0; i < s->ncache; i++) {
			kt_cblk_free(&s->cache[i]);
			s->cache[i].next = -1;
			s->cache[i].tick = 0;
		}
		if (s->cache_bucket)
			memset(s->cache_bucket, 0xff,
			       KT_CACHE_BUCKETS * sizeof(int));
		s->ncache = 0;
		s->cache_bytes = 0;
	}
}

/* Hold a sealed block (header p[0..hdr), raw bodies raw) until the
 * dictionary exists.  KT_ELIMIT when the holding buffer is full. */
static int defer_add(kt_store *s, const unsigned char *key,
		     const unsigned char *p, size_t hdr,
		     const struct kt_buf *raw)
{
	struct kt_dfblk *d;

	/* as much as the samples: the dictionary is trained before */
	if (s->dfr.len + raw->len > KT_SAMPLES_MAX)
		return KT_ELIMIT;
	if (kt_big_reserve(&s->dfr, KT_SAMPLES_MAX))
		return KT_ENOMEM;
	if (KT_GROW(s->dfb, s->dfb_cap, s->ndfb + 1))
		return KT_ENOMEM;
	d = &s->dfb[s->ndfb];
	d->hdr = malloc(hdr);
	if (!d->hdr)
		return KT_ENOMEM;
	memcpy(d->hdr, p, hdr);
	d->hlen = hdr;
	memcpy(d->key, key, sizeof(d->key));
	d->roff = s->dfr.len;
	d->rlen = raw->len;
	memcpy(s->dfr.p + s->dfr.len, raw->p, raw->len);
	s->dfr.len += raw->len;
	s->ndfb++;
	return 0;
}

/* Compress raw bodies behind the header p[0..hdr) of a block value being
 * built in s->vbuf (capacity for the bound): the value's length. */
static size_t block_build(kt_store *s, size_t hdr, const unsigned char *raw,
			  size_t rl)
{
	unsigned char *p = s->vbuf.p;
	uint32_t dict = 0;
	size_t fr;

	fr = kt_ev_compress(s, raw, rl, p + hdr, s->vbuf.cap - hdr, &dict);
	if (fr) {
		p[0] = KT_CODEC_ZSTD;
	} else {
		p[0] = KT_CODEC_RAW;
		dict = 0;
		memcpy(p + hdr, raw, rl);
		fr = rl;
	}
	kt_be32(p + 2, dict);
	return hdr + fr;
}

/* block_build, then the put under key. */
static int block_write(kt_store *s, const unsigned char *key, size_t hdr,
		       const unsigned char *raw, size_t rl)
{
	size_t n = block_build(s, hdr, raw, rl);

	return kt_put(s, KT_DB_BLOCKS, key, KT_RUN_BIN + 9, s->vbuf.p, n, 0);
}

void kt_defer_drop(kt_store *s)
{
	for (size_t i = 0; i < s->ndfb; i++)
		free(s->dfb[i].hdr);
	s->ndfb = 0;
	s->dfr.len = 0;
}

int kt_defer_flush(kt_store *s)
{
	int rc;

	/* blocks go to KT_DB_BLOCKS in the one-thread order */
	if ((rc = kt_wb_settle(s)) != 0)
		goto out;
	/* trained with nothing held too: a folder of small runs seals no
	 * block, and waiting for KT_DICT_TRAIN_AT bodies left its first
	 * ~1,600 runs' frames without a dictionary, each building its
	 * entropy tables from nothing (~59 zstd instructions a byte against
	 * ~23 with one) and stored ~1.6x bigger (RESULTS.md "Issue 21: the
	 * small runs' block compression") */
	if ((rc = kt_dict_train_pending(s)) != 0 || !s->ndfb)
		goto out;
	for (size_t i = 0; i < s->ndfb && !rc; i++) {
		struct kt_dfblk *d = &s->dfb[i];
		int lent = 0;
		size_t n;

		/* two at a time with a worker: block i there, i + 1 here,
		 * put in order */
		if (s->wb_on && i + 1 < s->ndfb &&
		    (rc = kt_wb_lend(s, d->key, d->hdr, d->hlen,
				     s->dfr.p + d->roff, d->rlen)) <= 0) {
			if (rc)
				break;
			lent = 1;
			d = &s->dfb[++i];
		}
		rc = 0;
		if (kt_buf_reserve(&s->vbuf, d->hlen +
				   ZSTD_compressBound(d->rlen))) {
			rc = kt_err(s, KT_ENOMEM, "block value");
			break;
		}
		memcpy(s->vbuf.p, d->hdr, d->hlen);
		if (!lent) {
			rc = block_write(s, d->key, d->hlen,
					 s->dfr.p + d->roff, d->rlen);
			continue;
		}
		n = block_build(s, d->hlen, s->dfr.p + d->roff, d->rlen);
		if ((rc = kt_wb_settle(s)) == 0)
			rc = kt_put(s, KT_DB_BLOCKS, d->key, KT_RUN_BIN + 9,
				    s->vbuf.p, n, 0);
	}
	/* the lent bodies are dropped below: nothing may stay in flight */
	if (rc)
		kt_wb_drop(s);
	kt_defer_drop(s);
out:
	/* nothing more is held once a dictionary exists or was tried */
	if (!kt_dict_deferring(s) && s->dfr.p)
		kt_big_free(&s->dfr);
	return rc;
}

/* Write block b of kind k (n >= 1) under run || k || be64 first; a sealed
 * one is held back while the store waits for its first dictionary. */
static int oblk_put(kt_store *s, const unsigned char run[KT_RUN_BIN], int k,
		    struct kt_oblk *b, int sealed)
{
	unsigned char key[KT_RUN_BIN + 9], *p;
	size_t hdr;
	uint64_t prev;
	int rc, hold = sealed && s->wtxn && kt_dict_deferring(s);

again:
	if (kt_buf_reserve(&s->vbuf, BLK_HDR + 20 + (size_t)b->n * 20 +
			   ZSTD_compressBound(b->raw.len)))
		return kt_err(s, KT_ENOMEM, "block value");
	p = s->vbuf.p;
	p[1] = (unsigned char)k;
	hdr = BLK_HDR;
	hdr += put_uv(p + hdr, b->n);
	hdr += put_uv(p + hdr, b->raw.len);
	prev = b->first;
	for (uint32_t i = 0; i < b->n; i++) {
		hdr += put_uv(p + hdr, b->seq[i] - prev);
		hdr += put_uv(p + hdr, b->len[i]);
		prev = b->seq[i];
	}
	memcpy(key, run, KT_RUN_BIN);
	key[KT_RUN_BIN] = (unsigned char)k;
	kt_be64(key + KT_RUN_BIN + 1, b->first);
	b->dirty = 0;
	if (hold) {
		rc = defer_add(s, key, p, hdr, &b->raw);
		if (rc != KT_ELIMIT)
			return rc ? kt_err(s, rc, "deferred block") : 0;
		/* full: write what is held (trained on it when it is enough;
		 * the flush used vbuf) and this block after it */
		if ((rc = kt_defer_flush(s)) != 0)
			return rc;
		hold = 0;
		goto again;
	}
	if (sealed && s->wb_on && s->wtxn &&
	    (rc = kt_wb_hand(s, key, p, hdr, &b->raw)) <= 0)
		return rc;
	if ((rc = kt_wb_settle(s)) != 0)
		return rc;
	return block_write(s, key, hdr, b->raw.p, b->raw.len);
}

static int page_put(kt_store *s, struct kt_orun *o)
{
	unsigned char key[KT_RUN_BIN + 8], *p;
	size_t n;
	int rc;

	if (kt_buf_reserve(&s->vbuf, 1 + KT_HASH_LEN + 10 + o->prow.len))
		return kt_err(s, KT_ENOMEM, "page value");
	p = s->vbuf.p;
	p[0] = 0;
	memcpy(p + 1, o->pchain, KT_HASH_LEN);
	n = 1 + KT_HASH_LEN;
	n += put_uv(p + n, o->pn);
	memcpy(p + n, o->prow.p, o->prow.len);
	n += o->prow.len;
	kt_page_key(key, o->run, o->pfirst);
	/* MDB_APPEND fills leaf pages completely when the key sorts last
	 * (storage_style.md §1.1); otherwise (a rewrite of the open page,
	 * another run after it) LMDB answers KEYEXIST and a plain put
	 * decides */
	rc = kt_put(s, KT_DB_PAGES, key, sizeof(key), p, n, MDB_APPEND);
	if (rc == KT_EEXIST)
		rc = kt_put(s, KT_DB_PAGES, key, sizeof(key), p, n, 0);
	return rc;
}

static int runrec_put(kt_store *s, struct kt_orun *o)
{
	MDB_val k = { KT_RUN_BIN, o->run }, v;
	unsigned char *p;
	int rc;

	rc = mdb_get(s->wtxn, s->dbi[KT_DB_RUNS], &k, &v);
	if (rc)
		return kt_mdb_err(s, rc, "run record");
	if (v.mv_size < 16 + KT_RUNREC_TAIL)
		return kt_err(s, KT_ECORRUPT, "short run record");
	if (kt_buf_reserve(&s->vbuf, v.mv_size))
		return kt_err(s, KT_ENOMEM, "run record");
	p = s->vbuf.p;
	memcpy(p, v.mv_data, v.mv_size);
	kt_be64(p + v.mv_size - KT_RUNREC_TAIL, o->n);
	memcpy(p + v.mv_size - KT_HASH_LEN, o->head, KT_HASH_LEN);
	return kt_put(s, KT_DB_RUNS, o->run, KT_RUN_BIN, p, v.mv_size, 0);
}

static int ev_flush_open(kt_store *s)
{
	struct kt_orun *o = &s->orun;
	int rc;

	if (!s->wtxn || !o->valid || !o->dirty)
		return 0;
	for (int k = 1; k <= KT_KIND_MAX_; k++) {
		struct kt_oblk *b = &o->blk[k];

		if (b->live && b->dirty && b->n) {
			rc = oblk_put(s, o->run, k, b, 0);
			if (rc)
				goto fail;
		}
	}
	if (o->pn) {
		rc = page_put(s, o);
		if (rc)
			goto fail;
	}
	rc = runrec_put(s, o);
	if (rc)
		goto fail;
	o->dirty = 0;
	return 0;
fail:
	/* what is stored no longer matches memory: load again next time */
	kt_ev_forget(s, 0);
	return rc;
}

int kt_ev_flush(kt_store *s)
{
	int rc;

	/* held blocks first: a dictionary trained now serves the open ones
	 * too (the block in flight is put before them) */
	if (s->wtxn && (rc = kt_defer_flush(s)) != 0)
		return rc;
	return ev_flush_open(s);
}

/* Load the stored open block of stream (run, k), if its last block is not
 * sealed; else start an empty one. */
static int oblk_load(kt_store *s, struct kt_orun *o, int k)
{
	struct kt_oblk *b = &o->blk[k];
	MDB_cursor *c;
	MDB_val key, v;
	struct kt_blkview bv;
	int rc;

	oblk_reset(b);
	if ((rc = kt_wb_settle(s)) != 0)
		return rc;
	rc = mdb_cursor_open(s->wtxn, s->dbi[KT_DB_BLOCKS], &c);
	if (rc)
		return kt_mdb_err(s, rc, "cursor");
	rc = kt_block_find(s, c, o->run, k, UINT64_MAX, &key, &v);
	if (rc == KT_ENOTFOUND) {
		rc = 0;
		goto done;
	}
	if (rc)
		goto out;
	if (kt_block_parse(v.mv_data, v.mv_size, k, &bv)) {
		rc = kt_err(s, KT_ECORRUPT, "bad open block (kind %d)", k);
		goto out;
	}
	if (bv.raw_len < KT_BLOCK_SEAL && bv.n < KT_BLOCK_MAXN) {
		struct kt_dblk d = { 0 };

		rc = kt_block_decode(s, v.mv_data, v.mv_size, k,
				     kt_rd64((unsigned char *)key.mv_data +
					     KT_RUN_BIN + 1), &d);
		if (rc == 0 && b->cap < d.n) {
			uint64_t *sq = realloc(b->seq, d.n * sizeof(*sq));
			uint32_t *ln = sq ? realloc(b->len, d.n * sizeof(*ln)) :
					    NULL;

			if (sq)
				b->seq = sq;
			if (ln) {
				b->len = ln;
				b->cap = d.n;
			} else {
				rc = kt_err(s, KT_ENOMEM, "open block");
			}
		}
		if (rc == 0 && kt_buf_reserve(&b->raw, d.data.len + 1))
			rc = kt_err(s, KT_ENOMEM, "open block");
		if (rc == 0) {
			for (uint32_t i = 0; i < d.n; i++) {
				b->seq[i] = d.seq[i];
				b->len[i] = (uint32_t)(d.off[i + 1] - d.off[i]);
			}
			b->n = d.n;
			b->first = d.seq[0];
			memcpy(b->raw.p, d.data.p, d.data.len);
			b->raw.len = d.data.len;
		}
		kt_dblk_free(&d);
		if (rc)
			goto out;
	}
done:
	b->live = 1;
out:
	mdb_cursor_close(c);
	return rc;
}

int kt_ev_use_run(kt_store *s, const unsigned char run[KT_RUN_BIN])
{
	struct kt_orun *o = &s->orun;
	MDB_val v;
	int rc;

	if (o->valid && memcmp(o->run, run, KT_RUN_BIN) == 0)
		return 0;
	rc = ev_flush_open(s);
	if (rc)
		return rc;
	/* a block of run held back may have an older, open version stored,
	 * which oblk_load would take for the open block: write them first.
	 * Other runs' held blocks wait for the dictionary. */
	for (size_t i = 0; i < s->ndfb; i++)
		if (memcmp(s->dfb[i].key, run, KT_RUN_BIN) == 0) {
			if ((rc = kt_defer_flush(s)) != 0)
				return rc;
			break;
		}
	kt_ev_forget(s, 0);
	rc = kt_run_rec(s, s->wtxn, run, NULL, &v);
	if (rc)
		return rc;
	rc = kt_runrec_tail(s, &v, &o->n, o->head);
	if (rc)
		return rc;
	memcpy(o->run, run, KT_RUN_BIN);
	o->pn = 0;
	o->prow.len = 0;
	o->pts = 0;
	if (o->n % KT_PAGE_N) {
		unsigned char pk[KT_RUN_BIN + 8];
		MDB_val pkv = { sizeof(pk), pk }, pv;
		struct kt_prow rows[KT_PAGE_N];
		uint32_t cnt;
		const unsigned char *q, *end;
		uint64_t c;

		kt_page_key(pk, run, o->n);
		o->pfirst = kt_rd64(pk + KT_RUN_BIN);
		rc = mdb_get(s->wtxn, s->dbi[KT_DB_PAGES], &pkv, &pv);
		if (rc)
			return rc == MDB_NOTFOUND ?
			       kt_err(s, KT_ECORRUPT, "open page missing") :
			       kt_mdb_err(s, rc, "page");
		if (kt_page_parse(pv.mv_data, pv.mv_size, o->pfirst, o->pchain,
				  rows, KT_PAGE_N, &cnt) ||
		    cnt != o->n - o->pfirst + 1)
			return kt_err(s, KT_ECORRUPT, "bad open page");
		/* rows stay encoded; the last known ts continues the deltas */
		q = (const unsigned char *)pv.mv_data + 1 + KT_HASH_LEN;
		end = (const unsigned char *)pv.mv_data + pv.mv_size;
		get_uv(&q, end, &c);
		if (kt_buf_reserve(&o->prow, (size_t)(end - q) + 64))
			return kt_err(s, KT_ENOMEM, "page");
		memcpy(o->prow.p, q, (size_t)(end - q));
		o->prow.len = (size_t)(end - q);
		o->pn = cnt;
		for (uint32_t i = 0; i < cnt; i++)
			if (rows[i].ts != KT_TS_UNKNOWN)
				o->pts = rows[i].ts;
	}
	o->valid = 1;
	o->dirty = 0;
	kt_ck_used(s, run);
	return 0;
}

int kt_ev_add(kt_store *s, const unsigned char run[KT_RUN_BIN],
	      const kt_event *ev, const unsigned char *body, size_t bl,
	      const unsigned char chain[KT_HASH_LEN])
{
	struct kt_orun *o = &s->orun;
	struct kt_oblk *b = &o->blk[ev->kind];
	unsigned char *p;
	int rc;

	(void)run;
	if (!b->live && (rc = oblk_load(s, o, ev->kind)) != 0)
		return rc;
	if (b->n == b->cap) {
		uint32_t cap = b->cap ? 2 * b->cap : 64;
		uint64_t *sq = realloc(b->seq, cap * sizeof(*sq));
		uint32_t *ln;

		if (!sq)
			return kt_err(s, KT_ENOMEM, "open block");
		b->seq = sq;
		ln = realloc(b->len, cap * sizeof(*ln));
		if (!ln)
			return kt_err(s, KT_ENOMEM, "open block");
		b->len = ln;
		b->cap = cap;
	}
	if (kt_buf_reserve(&b->raw, b->raw.len + bl + 1) ||
	    kt_buf_reserve(&o->prow, o->prow.len + 32))
		return kt_err(s, KT_ENOMEM, "open block");
	/* nothing can fail below but the puts, after which the state is
	 * forgotten and reloaded from the store */
	if (!b->n)
		b->first = ev->seq;
	b->seq[b->n] = ev->seq;
	b->len[b->n] = (uint32_t)bl;
	b->n++;
	memcpy(b->raw.p + b->raw.len, body, bl);
	b->raw.len += bl;
	b->dirty = 1;
	if (!o->pn) {
		o->pfirst = ev->seq;
		memcpy(o->pchain, o->head, KT_HASH_LEN);
		o->prow.len = 0;
		o->pts = 0;
	}
	p = o->prow.p + o->prow.len;
	*p++ = (unsigned char)ev->kind;
	p += put_uv(p, ev->parent ? ev->seq - ev->parent : 0);
	p += put_ts(p, ev->ts_ns, &o->pts);
	o->prow.len = (size_t)(p - o->prow.p);
	o->pn++;
	o->n = ev->seq;
	memcpy(o->head, chain, KT_HASH_LEN);
	o->dirty = 1;
	if (b->raw.len >= KT_BLOCK_SEAL || b->n >= KT_BLOCK_MAXN) {
		rc = oblk_put(s, o->run, ev->kind, b, 1);
		if (rc) {
			kt_ev_forget(s, 0);
			return rc;
		}
		oblk_reset(b);
	}
	if (o->pn == KT_PAGE_N) {
		rc = page_put(s, o);
		if (rc) {
			kt_ev_forget(s, 0);
			return rc;
		}
		o->pn = 0;
		o->prow.len = 0;
	}
	return 0;
}
