/*
 * store_read.c - point reads of events (kt_event_read, kt_event_get,
 * kt_event_head) through the page cache of store_rcache.c and the block
 * cache of store_bcache.c.
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

/* ---- reads --------------------------------------------------------------- */

/* The run record of `run` into *v.  KT_ENOTFOUND when absent, with the
 * message "no run NAME" when `name` is given (callers that probe pass NULL
 * and say nothing). */
int kt_run_rec(kt_store *s, MDB_txn *txn, const unsigned char run[KT_RUN_BIN],
		   const char *name, MDB_val *v)
{
	MDB_val k = { KT_RUN_BIN, (void *)run };
	int rc = mdb_get(txn, s->dbi[KT_DB_RUNS], &k, v);

	if (rc == MDB_NOTFOUND)
		return name ? kt_err(s, KT_ENOTFOUND, "no run %s", name) :
			      KT_ENOTFOUND;
	return rc ? kt_mdb_err(s, rc, "run lookup") : 0;
}

int kt_run_n(kt_store *s, MDB_txn *txn, const unsigned char run[KT_RUN_BIN],
		 uint64_t *n, unsigned char head[KT_HASH_LEN])
{
	MDB_val v;
	unsigned char h[KT_HASH_LEN];
	int rc = kt_run_rec(s, txn, run, NULL, &v);

	return rc ? rc : kt_runrec_tail(s, &v, n, head ? head : h);
}

int kt_page_get(kt_store *s, MDB_txn *txn,
		    const unsigned char run[KT_RUN_BIN], uint64_t seq,
		    MDB_val *v)
{
	unsigned char pk[KT_RUN_BIN + 8];
	MDB_val k = { sizeof(pk), pk };
	int rc;

	kt_page_key(pk, run, seq);
	rc = mdb_get(txn, s->dbi[KT_DB_PAGES], &k, v);
	if (rc == MDB_NOTFOUND)
		return kt_err(s, KT_ECORRUPT, "no header page for seq %llu",
			      (unsigned long long)seq);
	return rc ? kt_mdb_err(s, rc, "page") : 0;
}

/*
 * Canonical bytes of event (seq, row, body) into b: the 26-byte prefix,
 * the body, a NUL.  Then, unless `keep`, fill ev with pointers into b
 * (NULs written over the length fields, after any hashing).
 */
int kt_ev_build(kt_store *s, uint64_t seq, const struct kt_prow *row,
		    const unsigned char *body, size_t bl, struct kt_buf *b)
{
	if (kt_buf_reserve(b, KT_CANON_PREFIX + bl + 1))
		return kt_err(s, KT_ENOMEM, "event buffer");
	kt_canon_prefix(b->p, row->kind, seq, row->parent, row->ts);
	memcpy(b->p + KT_CANON_PREFIX, body, bl);
	b->len = KT_CANON_PREFIX + bl;
	b->p[b->len] = 0;
	return 0;
}

void kt_ev_head_fill(kt_event *ev, uint64_t seq, const struct kt_prow *r)
{
	memset(ev, 0, sizeof(*ev));
	ev->seq = seq;
	ev->kind = r->kind;
	ev->parent = r->parent;
	ev->ts_ns = r->ts;
	ev->flags = KT_EV_HEAD;
}

/* Point the strings of ev into canonical bytes b (modifies b). */
/* The lengths of actor, prov and payload of body p (bl bytes, FORMAT.md
 * §5): 0, or -1 when they do not add up to bl. */
static int body_layout(const unsigned char *p, size_t bl, size_t *al,
		       size_t *pl, size_t *yl)
{
	if (bl < 10)
		return -1;
	*al = kt_rd16(p);
	if (2 + *al + 4 > bl)
		return -1;
	*pl = kt_rd32(p + 2 + *al);
	if (2 + *al + 4 + *pl + 4 > bl)
		return -1;
	*yl = kt_rd32(p + 2 + *al + 4 + *pl);
	return 2 + *al + 4 + *pl + 4 + *yl == bl ? 0 : -1;
}

static int bad_body(kt_store *s, const kt_event *ev)
{
	return kt_err(s, KT_ECORRUPT, "seq %llu: bad event body",
		      (unsigned long long)ev->seq);
}

/* ev's strings at body p (body_layout's al, pl and yl: actor, prov and
 * payload lengths), whose actor and prov are NUL-terminated in place. */
static void ev_point(kt_event *ev, const unsigned char *p, size_t al,
		     size_t pl, size_t yl)
{
	ev->actor = (const char *)p + 2;
	ev->prov_json = pl ? (const char *)p + 2 + al + 4 : NULL;
	ev->payload = (const char *)p + 2 + al + 4 + pl + 4;
	ev->payload_len = yl;
	ev->flags = KT_EV_CANONICAL;
}

static int ev_body_fill(kt_store *s, kt_event *ev, struct kt_buf *b)
{
	unsigned char *p = b->p + KT_CANON_PREFIX;
	size_t bl = b->len - KT_CANON_PREFIX, al, pl, yl;

	if (body_layout(p, bl, &al, &pl, &yl))
		return bad_body(s, ev);
	p[2 + al] = 0;
	p[2 + al + 4 + pl] = 0;
	ev_point(ev, p, al, pl, yl);
	return 0;
}

/*
 * Point ev's strings into body p (bl bytes; p[bl] readable) without
 * copying: each string ends where the next length field begins, whose
 * first byte is 0 unless that length is >= 2^24 (prov, payload) or the
 * next body's actor is >= 256 bytes (p[bl]), and the last body of a block
 * is followed by a NUL.  When a terminator is not 0 the body is copied to
 * buf, where NULs can be written.
 */
int kt_ev_body_view(kt_store *s, kt_event *ev, const unsigned char *p,
			size_t bl, struct kt_buf *buf)
{
	size_t al, pl, yl;

	if (body_layout(p, bl, &al, &pl, &yl))
		return bad_body(s, ev);
	if (p[2 + al] || p[2 + al + 4 + pl] || p[bl]) {
		unsigned char *q;

		if (kt_buf_reserve(buf, bl + 1))
			return kt_err(s, KT_ENOMEM, "event buffer");
		q = buf->p;
		memcpy(q, p, bl);
		q[2 + al] = 0;
		q[2 + al + 4 + pl] = 0;
		q[bl] = 0;
		p = q;
	}
	ev_point(ev, p, al, pl, yl);
	return 0;
}

/* A point read's transaction, begun only when a cache misses. */
struct rd {
	kt_store *s;
	MDB_txn *txn;
};

static int rd_txn(struct rd *r)
{
	return r->txn ? 0 : kt_rd_begin(r->s, &r->txn);
}

/*
 * Body of row j of cached page pe (seq pe->pfirst + j): through the row's
 * hint straight from the block cache, else from kt_block_for (which records
 * the hint).  *d gets the block's data (body at *d + boff).  The hint of a
 * block read in an older state (an open block, since appended to) still
 * holds: a block only grows at its end, so a body inside the cached data
 * is the same body.
 */
static int row_body(struct rd *r, struct kt_pentry *pe, uint32_t j,
		    const unsigned char **body, int *last)
{
	kt_store *s = r->s;
	struct kt_crow *w = &pe->rows[j];
	uint64_t seq = pe->pfirst + j;
	const struct kt_dblk *d = NULL;
	int rc, i = 0;

	if (w->bdelta && s->cache_max) {
		unsigned char k[KT_RUN_BIN + 9];
		struct kt_centry *e;

		memcpy(k, pe->run, KT_RUN_BIN);
		k[KT_RUN_BIN] = w->kind;
		kt_be64(k + KT_RUN_BIN + 1, seq - (w->bdelta - 1));
		e = kt_bcache_find(s, k);
		if (e && (size_t)w->boff + w->blen <= e->b.data.len) {
			s->cache_hits++;
			e->tick = ++s->cache_tick;
			*body = e->b.data.p + w->boff;
			*last = (size_t)w->boff + w->blen == e->b.data.len;
			return 0;
		}
	}
	if ((rc = rd_txn(r)) != 0)
		return rc;
	rc = kt_block_for(s, r->txn, pe->run, w->kind, seq, &d, &i);
	if (rc)
		return rc;
	w->bdelta = seq - d->seq[0] < UINT32_MAX ?
		    (uint32_t)(seq - d->seq[0] + 1) : 0;
	w->boff = (uint32_t)d->off[i];
	w->blen = (uint32_t)(d->off[i + 1] - d->off[i]);
	*body = d->data.p + d->off[i];
	*last = (uint32_t)i + 1 == d->n;
	return 0;
}

/*
 * kt_ev_body_view for row w, remembering in w when the strings can be
 * pointed at in place (then later reads need not look at the body).  Not
 * for the last body of a block (`last`): the byte after it is the block's
 * NUL only until the block grows.
 */
static int row_view(kt_store *s, kt_event *ev, struct kt_crow *w,
		    const unsigned char *p, int last)
{
	size_t al, pl;
	int rc;

	if (w->yoff) {
		al = w->al;
		pl = w->yoff - 2 - al - 8;
		ev->actor = (const char *)p + 2;
		ev->prov_json = pl ? (const char *)p + 2 + al + 4 : NULL;
		ev->payload = (const char *)p + w->yoff;
		ev->payload_len = w->blen - w->yoff;
		ev->flags = KT_EV_CANONICAL;
		return 0;
	}
	rc = kt_ev_body_view(s, ev, p, w->blen, &s->evbuf);
	if (rc == 0 && !last && ev->actor == (const char *)p + 2) {
		w->al = kt_rd16(p);
		w->yoff = (uint32_t)((const unsigned char *)ev->payload - p);
	}
	return rc;
}

/*
 * The decoded page of seq with row seq - pfirst known, from the page
 * cache or read (with the run record: seq <= n) in r's transaction.
 */
static int page_for(struct rd *r, const unsigned char run[KT_RUN_BIN],
		    const char *name, uint64_t seq, struct kt_pentry **out)
{
	kt_store *s = r->s;
	uint64_t pfirst = (seq - 1) / KT_PAGE_N * KT_PAGE_N + 1, n;
	uint32_t idx = (uint32_t)(seq - pfirst), cnt;
	struct kt_rcache *rcache = kt_rcache_get(s);
	struct kt_prow rows[KT_PAGE_N];
	struct kt_pentry **slot, *pe;
	MDB_val v;
	int rc;

	if (!rcache)
		return kt_err(s, KT_ENOMEM, "page cache");
	slot = kt_pcache_slot(rcache, run, pfirst);
	pe = *slot;
	if (pe && pe->pfirst == pfirst && idx < pe->cnt &&
	    memcmp(pe->run, run, KT_RUN_BIN) == 0 &&
	    pe->txnid <= kt_cur_txnid(s)) {
		*out = pe;
		return 0;
	}
	if ((rc = rd_txn(r)) != 0)
		return rc;
	rc = kt_run_n(s, r->txn, run, &n, NULL);
	if (rc == 0 && (seq == 0 || seq > n))
		rc = KT_ENOTFOUND;
	if (rc == KT_ENOTFOUND)
		return kt_err(s, KT_ENOTFOUND, "no event %s/%llu", name,
			      (unsigned long long)seq);
	if (rc)
		return rc;
	rc = kt_page_get(s, r->txn, run, seq, &v);
	if (rc)
		return rc;
	if (!pe) {
		pe = malloc(sizeof(*pe));
		if (!pe)
			return kt_err(s, KT_ENOMEM, "page cache");
		*slot = pe;
	}
	pe->pfirst = 0;
	if (kt_page_parse(v.mv_data, v.mv_size, pfirst, pe->chain, rows,
			  KT_PAGE_N, &cnt) || cnt <= idx)
		return kt_err(s, KT_ECORRUPT, "seq %llu: bad header page",
			      (unsigned long long)seq);
	/* never more rows than the run record has events */
	if (cnt > n - pfirst + 1)
		cnt = (uint32_t)(n - pfirst + 1);
	for (uint32_t j = 0; j < cnt; j++) {
		struct kt_crow *w = &pe->rows[j];

		memset(w, 0, sizeof(*w));
		w->ts = rows[j].ts;
		w->parent = rows[j].parent;
		w->kind = (uint8_t)rows[j].kind;
	}
	memcpy(pe->run, run, KT_RUN_BIN);
	pe->cnt = cnt;
	pe->txnid = mdb_txn_id(r->txn);
	pe->pfirst = pfirst;
	*out = pe;
	return 0;
}

/* The row fields of a cached page row (kind, parent, time): what
 * kt_ev_head_fill and kt_ev_build take. */
static struct kt_prow crow_prow(const struct kt_crow *w)
{
	struct kt_prow r = { w->kind, w->parent, w->ts };

	return r;
}

int kt_event_read(kt_store *s, const char *run, uint64_t seq, unsigned how,
		  kt_event *ev)
{
	unsigned char bin[KT_RUN_BIN], chain[KT_HASH_LEN], h[KT_HASH_LEN];
	struct rd r = { s, NULL };
	struct kt_pentry *pe = NULL;
	struct kt_crow *w;
	const unsigned char *bp;
	uint32_t idx;
	int rc, last;

	if (!s || !ev || (how & ~(KT_READ_BODY | KT_READ_HASH)))
		return KT_EINVAL;
	rc = kt_run_bin(s, run, bin);
	if (rc)
		return rc;
	if ((rc = kt_ev_flush(s)) != 0)
		return rc;
	if (seq == 0)
		return kt_err(s, KT_ENOTFOUND, "no event %s/0", run);
	rc = page_for(&r, bin, run, seq, &pe);
	if (rc)
		goto out;
	idx = (uint32_t)(seq - pe->pfirst);
	w = &pe->rows[idx];
	{
		struct kt_prow head = crow_prow(w);

		kt_ev_head_fill(ev, seq, &head);
	}
	if (how & KT_READ_HASH) {
		/* the chain from the page checkpoint: every event of the page
		 * up to seq is hashed (bodies from the block cache) */
		memcpy(chain, pe->chain, KT_HASH_LEN);
		for (uint32_t j = 0; j <= idx; j++) {
			struct kt_prow row = crow_prow(&pe->rows[j]);

			rc = row_body(&r, pe, j, &bp, &last);
			if (rc == 0)
				rc = kt_ev_build(s, pe->pfirst + j, &row, bp,
					      pe->rows[j].blen, &s->evbuf);
			if (rc)
				goto out;
			kt_sha256(s->evbuf.p, s->evbuf.len, h);
			kt_chain_next(chain, pe->pfirst + j, h, chain);
		}
		memcpy(ev->hash, h, KT_HASH_LEN);
		memcpy(ev->chain, chain, KT_HASH_LEN);
		if (how & KT_READ_BODY)
			rc = ev_body_fill(s, ev, &s->evbuf);
	} else if (how & KT_READ_BODY) {
		rc = row_body(&r, pe, idx, &bp, &last);
		if (rc == 0)
			rc = row_view(s, ev, w, bp, last);
	}
out:
	if (r.txn)
		kt_rd_end(s, r.txn);
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

int kt_store_read_hold(kt_store *s)
{
	MDB_txn *txn;
	int rc;

	if (!s)
		return KT_EINVAL;
	if ((rc = kt_ev_flush(s)) != 0)
		return rc;
	/* kt_rd_begin would hand out the write txn without counting a
	 * reader, and the release could not tell */
	if (s->wtxn)
		return kt_err(s, KT_EBUSY, "read hold inside a write");
	if ((rc = kt_rd_begin(s, &txn)) != 0)
		return rc;
	s->rhold++;
	return 0;
}

void kt_store_read_release(kt_store *s)
{
	if (!s || s->rhold == 0)
		return;
	s->rhold--;
	kt_rd_end(s, s->rtxn);
}
