/*
 * store_block.c - the layout of event format v2 that append, reads and
 * scans share: per-(run, kind) streams of zstd blocks, the per-run header
 * index (pages), and the caches of decoded blocks and pages.
 *
 * FORMAT.md §6.4 (ev_blocks) and §6.9 (ev_pages) are normative for every
 * byte written here.  Why blocks per kind: one zstd frame per event cannot
 * match across events and reached only 3.6x on the benchmark events;
 * blocks of ~128 KiB of bodies of one kind reach ~4.7x with a dictionary
 * (FORMAT.md "Why per-kind blocks" has the measurements), and a scan that
 * needs only some kinds decompresses only their streams.
 *
 * Who uses it: store_append.c (the open append state), store_read.c
 * (point reads), store_scan.c (scans), store_verify.c and store_stats.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include "store_int.h"

/* ---- pages ------------------------------------------------------------------ */

void kt_page_key(unsigned char k[KT_RUN_BIN + 8],
		     const unsigned char run[KT_RUN_BIN], uint64_t seq)
{
	memcpy(k, run, KT_RUN_BIN);
	kt_be64(k + KT_RUN_BIN, (seq - 1) / KT_PAGE_N * KT_PAGE_N + 1);
}

int kt_page_parse(const unsigned char *p, size_t len, uint64_t first,
		  unsigned char chain[KT_HASH_LEN], struct kt_prow *rows,
		  uint32_t max, uint32_t *n)
{
	const unsigned char *q, *end = p + len;
	uint64_t cnt, pc, tc;
	int64_t prev = 0;

	if (len < 2 + KT_HASH_LEN || p[0] != 0 || first == 0)
		return KT_ECORRUPT;
	if (chain)
		memcpy(chain, p + 1, KT_HASH_LEN);
	q = p + 1 + KT_HASH_LEN;
	if (get_uv(&q, end, &cnt) || cnt < 1 || cnt > KT_PAGE_N)
		return KT_ECORRUPT;
	*n = (uint32_t)cnt;
	if (max > cnt)
		max = (uint32_t)cnt;
	for (uint32_t i = 0; i < max; i++) {
		uint64_t seq = first + i;
		int64_t ts;

		if (q >= end || *q < 1 || *q > KT_KIND_MAX_)
			return KT_ECORRUPT;
		rows[i].kind = *q++;
		if (get_uv(&q, end, &pc) || pc >= seq)
			return KT_ECORRUPT;
		rows[i].parent = pc ? seq - pc : 0;
		if (get_uv(&q, end, &tc))
			return KT_ECORRUPT;
		if (tc == 0) {
			ts = KT_TS_UNKNOWN;
		} else if (tc == 1) {
			if (end - q < 8)
				return KT_ECORRUPT;
			ts = (int64_t)kt_rd64(q);
			q += 8;
			prev = ts;
		} else {
			ts = (int64_t)((uint64_t)prev + (uint64_t)unzz(tc - 2));
			prev = ts;
		}
		if (tc && ts == KT_TS_UNKNOWN)
			return KT_ECORRUPT;
		rows[i].ts = ts;
	}
	if (max == cnt && q != end)
		return KT_ECORRUPT;
	return 0;
}

/* ---- blocks ----------------------------------------------------------------- */


int kt_block_parse(const unsigned char *p, size_t n, int kind,
		   struct kt_blkview *b)
{
	const unsigned char *q, *end = p + n;
	uint64_t cnt, raw, sum = 0;

	memset(b, 0, sizeof(*b));
	if (n < BLK_HDR + 2 || p[0] > KT_CODEC_ZSTD || p[1] != kind)
		return KT_ECORRUPT;
	b->codec = p[0];
	b->dict = kt_rd32(p + 2);
	q = p + BLK_HDR;
	if (get_uv(&q, end, &cnt) || cnt < 1 || cnt > KT_BLOCK_MAXN ||
	    get_uv(&q, end, &raw) || raw > BLK_RAW_MAX)
		return KT_ECORRUPT;
	b->n = (uint32_t)cnt;
	b->raw_len = raw;
	b->rows = q;
	for (uint64_t i = 0; i < cnt; i++) {
		uint64_t d, l;

		if (get_uv(&q, end, &d) || get_uv(&q, end, &l) ||
		    (i == 0) != (d == 0) || d > KT_BLOCK_MAXN * (uint64_t)KT_PAGE_N * 1024 ||
		    l < 10 || l > KT_EVENT_MAX_BODY)
			return KT_ECORRUPT;
		sum += l;
	}
	if (sum != raw)
		return KT_ECORRUPT;
	b->rows_len = (size_t)(q - b->rows);
	b->frame = q;
	b->frame_len = (size_t)(end - q);
	if (b->codec == KT_CODEC_RAW ? b->frame_len != raw || b->dict :
	    b->frame_len == 0)
		return KT_ECORRUPT;
	return 0;
}

void kt_dblk_free(struct kt_dblk *d)
{
	free(d->seq);
	free(d->off);
	free(d->data.p);
	memset(d, 0, sizeof(*d));
}

static int dblk_reserve(struct kt_dblk *d, uint32_t n)
{
	uint64_t *sq;
	size_t *of;

	if (n <= d->cap)
		return 0;
	sq = realloc(d->seq, n * sizeof(*sq));
	if (!sq)
		return KT_ENOMEM;
	d->seq = sq;
	of = realloc(d->off, (n + 1) * sizeof(*of));
	if (!of)
		return KT_ENOMEM;
	d->off = of;
	d->cap = n;
	return 0;
}

/* Seqs and body offsets (from `head`) of parsed block b into d (d->n 0). */
int kt_blk_rows(kt_store *s, const struct kt_blkview *b, uint64_t first,
		    struct kt_dblk *d, size_t head)
{
	const unsigned char *q = b->rows;
	uint64_t seq = first;
	size_t off = head;

	if (dblk_reserve(d, b->n))
		return kt_err(s, KT_ENOMEM, "block");
	for (uint32_t i = 0; i < b->n; i++) {
		uint64_t dl = 0, l = 0; /* rows checked by kt_block_parse */

		get_uv(&q, b->rows + b->rows_len, &dl);
		get_uv(&q, b->rows + b->rows_len, &l);
		if (seq + dl < seq)
			return kt_err(s, KT_ECORRUPT, "bad block rows");
		seq += dl;
		d->seq[i] = seq;
		d->off[i] = off;
		off += l;
	}
	d->off[b->n] = off;
	d->n = 0;
	return 0;
}

int kt_block_decode_at(kt_store *s, const unsigned char *p, size_t n,
		       int kind, uint64_t first, struct kt_dblk *d, size_t head)
{
	struct kt_blkview b;
	int rc;

	if (kt_block_parse(p, n, kind, &b))
		return kt_err(s, KT_ECORRUPT, "bad block header (kind %d, "
			      "seq %llu)", kind, (unsigned long long)first);
	if ((rc = kt_blk_rows(s, &b, first, d, head)) != 0)
		return rc;
	if (b.codec == KT_CODEC_RAW) {
		if (kt_buf_reserve(&d->data, head + b.raw_len + 1))
			return kt_err(s, KT_ENOMEM, "block");
		memcpy(d->data.p + head, b.frame, b.raw_len);
		d->data.len = head + b.raw_len;
		d->data.p[d->data.len] = 0;
	} else {
		rc = kt_ev_decompress(s, b.frame, b.frame_len, b.raw_len,
				      b.dict, &d->data, head);
		if (rc)
			return rc;
	}
	d->n = b.n;
	return 0;
}

int kt_block_decode(kt_store *s, const unsigned char *p, size_t n, int kind,
		    uint64_t first, struct kt_dblk *d)
{
	return kt_block_decode_at(s, p, n, kind, first, d, 0);
}

/* The block of stream (run, kind) that holds seq: the greatest key
 * run || kind || first with first <= seq. */
int kt_block_find(kt_store *s, MDB_cursor *c,
		      const unsigned char run[KT_RUN_BIN], int kind,
		      uint64_t seq, MDB_val *k, MDB_val *v)
{
	unsigned char kb[KT_RUN_BIN + 9];
	int rc;

	memcpy(kb, run, KT_RUN_BIN);
	kb[KT_RUN_BIN] = (unsigned char)kind;
	kt_be64(kb + KT_RUN_BIN + 1, seq);
	k->mv_size = sizeof(kb);
	k->mv_data = kb;
	rc = mdb_cursor_get(c, k, v, MDB_SET_RANGE);
	if (rc == 0 && !(k->mv_size == sizeof(kb) &&
			 memcmp(k->mv_data, kb, sizeof(kb)) == 0))
		rc = mdb_cursor_get(c, k, v, MDB_PREV);
	else if (rc == MDB_NOTFOUND)
		rc = mdb_cursor_get(c, k, v, MDB_LAST);
	if (rc && rc != MDB_NOTFOUND)
		return kt_mdb_err(s, rc, "block cursor");
	if (rc || k->mv_size != sizeof(kb) ||
	    memcmp(k->mv_data, kb, KT_RUN_BIN + 1) != 0)
		return KT_ENOTFOUND;
	return 0;
}

int kt_dblk_index(const struct kt_dblk *d, uint64_t seq)
{
	uint32_t lo = 0, hi = d->n;

	while (lo < hi) {
		uint32_t m = (lo + hi) / 2;

		if (d->seq[m] < seq)
			lo = m + 1;
		else
			hi = m;
	}
	return lo < d->n && d->seq[lo] == seq ? (int)lo : -1;
}

/* ---- block cache -------------------------------------------------------- */

static uint32_t ckey_hash(const unsigned char *k)
{
	uint64_t a, b;

	/* run ids are SHA-256 prefixes: 8 of their bytes mix well enough;
	 * kind and first seq are the low bytes of the key */
	memcpy(&a, k, 8);
	b = kt_rd64(k + KT_RUN_BIN + 1) ^ (uint64_t)k[KT_RUN_BIN] << 56;
	a ^= b * 0x9e3779b97f4a7c15ull;
	a ^= a >> 29;
	a *= 0xbf58476d1ce4e5b9ull;
	a ^= a >> 32;
	return (uint32_t)a & (KT_CACHE_BUCKETS - 1);
}

static size_t dblk_bytes(const struct kt_dblk *d)
{
	return d->data.cap + d->cap * (sizeof(uint64_t) + sizeof(size_t)) + 64;
}

/*
 * Data of a cached block: large ones are mapped and their pages populated
 * in one call (MADV_POPULATE_WRITE, Linux 5.14+): a fault per 4 KiB page
 * cost more than decompressing the block in the VMs measured (~17 us a
 * fault).  Fills e->b.data with `n` bytes of room.
 */
#define CBLK_MAP_MIN ((size_t)64 << 10)

static void cblk_data_free(struct kt_centry *e)
{
	if (e->mapped)
		munmap(e->b.data.p, e->b.data.cap);
	else
		free(e->b.data.p);
	e->b.data.p = NULL;
	e->b.data.cap = e->b.data.len = 0;
	e->mapped = 0;
}

static int cblk_data_alloc(struct kt_centry *e, size_t n)
{
	cblk_data_free(e);
#ifdef MAP_ANONYMOUS
	if (n >= CBLK_MAP_MIN) {
		size_t pg = (size_t)sysconf(_SC_PAGESIZE);
		size_t len = (n + pg - 1) / pg * pg;
		void *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m != MAP_FAILED) {
#ifdef MADV_POPULATE_WRITE
			madvise(m, len, MADV_POPULATE_WRITE);
#endif
			e->b.data.p = m;
			e->b.data.cap = len;
			e->mapped = 1;
			return 0;
		}
	}
#endif
	e->b.data.p = malloc(n);
	if (!e->b.data.p)
		return KT_ENOMEM;
	e->b.data.cap = n;
	return 0;
}

void kt_cblk_free(struct kt_centry *e)
{
	cblk_data_free(e);
	kt_dblk_free(&e->b);
}

static void rcache_free(kt_store *s);

void kt_cache_free(kt_store *s)
{
	rcache_free(s);
	for (size_t i = 0; i < s->ncache; i++)
		kt_cblk_free(&s->cache[i]);
	free(s->cache);
	free(s->cache_bucket);
	s->cache = NULL;
	s->cache_bucket = NULL;
	s->ncache = 0;
	s->cache_bytes = 0;
}

static void cache_unlink(kt_store *s, size_t i)
{
	int *pp = &s->cache_bucket[ckey_hash(s->cache[i].key)];

	while (*pp >= 0 && (size_t)*pp != i)
		pp = &s->cache[*pp].next;
	if (*pp >= 0)
		*pp = s->cache[i].next;
}

/* Evict the least recently used entry; returns its (now free) slot. */
static size_t cache_evict(kt_store *s)
{
	size_t lru = 0;

	for (size_t i = 1; i < s->ncache; i++)
		if (s->cache[i].tick < s->cache[lru].tick)
			lru = i;
	cache_unlink(s, lru);
	s->cache_bytes -= dblk_bytes(&s->cache[lru].b);
	return lru;
}

/* The cached block of key k (run || kind || be64 first), or NULL. */
struct kt_centry *kt_bcache_find(kt_store *s, const unsigned char *k)
{
	if (!s->cache_bucket)
		return NULL;
	for (int j = s->cache_bucket[ckey_hash(k)]; j >= 0;
	     j = s->cache[j].next)
		if (memcmp(s->cache[j].key, k, KT_RUN_BIN + 9) == 0)
			return &s->cache[j];
	return NULL;
}

/*
 * The decompressed block of (run, kind) holding seq, from the cache or
 * the store.  A cached block that lacks seq is an older state of an open
 * block (events were appended since): it is read again.  Events never
 * change once committed, and the cache is emptied when a write
 * transaction aborts, so a cached body is always the stored one.
 */
int kt_block_for(kt_store *s, MDB_txn *txn,
		     const unsigned char run[KT_RUN_BIN], int kind,
		     uint64_t seq, const struct kt_dblk **out, int *idx)
{
	MDB_cursor *c;
	MDB_val k, v;
	struct kt_centry *e = NULL;
	struct kt_dblk *d;
	size_t slot;
	int rc, i;

	rc = mdb_cursor_open(txn, s->dbi[KT_DB_BLOCKS], &c);
	if (rc)
		return kt_mdb_err(s, rc, "cursor");
	rc = kt_block_find(s, c, run, kind, seq, &k, &v);
	if (rc == KT_ENOTFOUND)
		rc = kt_err(s, KT_ECORRUPT, "no block holds seq %llu",
			    (unsigned long long)seq);
	if (rc)
		goto out;
	if (!s->cache_max) {
		d = &s->rblk;
		rc = kt_block_decode(s, v.mv_data, v.mv_size, kind,
				     kt_rd64((unsigned char *)k.mv_data +
					     KT_RUN_BIN + 1), d);
		goto found;
	}
	if (!s->cache_bucket) {
		s->cache_bucket = malloc(KT_CACHE_BUCKETS * sizeof(int));
		s->cache = calloc(KT_CACHE_ENTRIES, sizeof(*s->cache));
		if (!s->cache_bucket || !s->cache) {
			kt_cache_free(s);
			rc = kt_err(s, KT_ENOMEM, "cache");
			goto out;
		}
		memset(s->cache_bucket, 0xff, KT_CACHE_BUCKETS * sizeof(int));
	}
	e = kt_bcache_find(s, k.mv_data);
	if (e && (i = kt_dblk_index(&e->b, seq)) >= 0) {
		s->cache_hits++;
		e->tick = ++s->cache_tick;
		*out = &e->b;
		*idx = i;
		goto out;
	}
	s->cache_misses++;
	if (e) {
		slot = (size_t)(e - s->cache);
		cache_unlink(s, slot);
		s->cache_bytes -= dblk_bytes(&e->b);
	} else {
		if (s->ncache < KT_CACHE_ENTRIES)
			slot = s->ncache++;
		else
			slot = cache_evict(s);
		e = &s->cache[slot];
	}
	/* entry `slot` is unlinked now; on failure it stays empty */
	e->tick = 0;
	memset(e->key, 0, sizeof(e->key));
	/* the budget counts what is held (dblk_bytes): allocate the data
	 * exactly, or reuse a buffer less than twice too big (one grown by
	 * doubling and shrunk after cost an mremap per block) */
	{
		struct kt_blkview bv;

		if (kt_block_parse(v.mv_data, v.mv_size, kind, &bv) == 0 &&
		    (e->b.data.cap < bv.raw_len + 1 ||
		     e->b.data.cap > 2 * (bv.raw_len + 1)) &&
		    cblk_data_alloc(e, bv.raw_len + 1)) {
			e->b.n = 0;
			s->cache_bytes += dblk_bytes(&e->b);
			rc = kt_err(s, KT_ENOMEM, "block cache");
			goto out;
		}
		/* a corrupt block may not parse: decode says so, and must not
		 * grow a mapped buffer (realloc) */
		if (e->mapped && bv.raw_len + 1 > e->b.data.cap)
			cblk_data_free(e);
	}
	rc = kt_block_decode(s, v.mv_data, v.mv_size, kind,
			     kt_rd64((unsigned char *)k.mv_data + KT_RUN_BIN +
				     1), &e->b);
	if (rc) {
		e->b.n = 0;
		s->cache_bytes += dblk_bytes(&e->b);
		goto out;
	}
	memcpy(e->key, k.mv_data, KT_RUN_BIN + 9);
	e->tick = ++s->cache_tick;
	e->next = s->cache_bucket[ckey_hash(e->key)];
	s->cache_bucket[ckey_hash(e->key)] = (int)slot;
	s->cache_bytes += dblk_bytes(&e->b);
	while (s->cache_bytes > s->cache_max) {
		size_t lru = slot;

		/* evict others until within budget; never the new one, and
		 * not the empty slots (tick 0) of earlier evictions */
		for (size_t j = 0; j < s->ncache; j++)
			if (j != slot && s->cache[j].tick &&
			    (lru == slot ||
			     s->cache[j].tick < s->cache[lru].tick))
				lru = j;
		if (lru == slot)
			break;
		cache_unlink(s, lru);
		s->cache_bytes -= dblk_bytes(&s->cache[lru].b);
		kt_cblk_free(&s->cache[lru]);
		s->cache_bytes += dblk_bytes(&s->cache[lru].b);
		memset(s->cache[lru].key, 0, sizeof(s->cache[lru].key));
		s->cache[lru].tick = 0;
		s->cache[lru].next = -1;
	}
	d = &e->b;
found:
	if (rc)
		goto out;
	i = kt_dblk_index(d, seq);
	if (i < 0) {
		rc = kt_err(s, KT_ECORRUPT, "block lacks seq %llu",
			    (unsigned long long)seq);
		goto out;
	}
	*out = d;
	*idx = i;
out:
	mdb_cursor_close(c);
	return rc;
}

int kt_store_set_scan_threads(kt_store *s, int n)
{
	if (!s || n < -1)
		return KT_EINVAL;
	s->scan_threads = n > KT_AHEAD_THREADS ? KT_AHEAD_THREADS : n;
	return 0;
}

int kt_store_set_cache(kt_store *s, size_t bytes)
{
	if (!s)
		return KT_EINVAL;
	kt_cache_free(s);
	s->cache_max = bytes;
	return 0;
}

void kt_store_cache_stats(kt_store *s, uint64_t *hits, uint64_t *misses)
{
	*hits = s ? s->cache_hits : 0;
	*misses = s ? s->cache_misses : 0;
}

/* ---- read cache: decoded header pages, pooled scan buffers ---------------
 *
 * A point read decodes the header page of its seq (up to 256 rows) and
 * finds the block holding the body with a B-tree search; both cost more
 * than the body itself.  The page cache keeps decoded pages, and in each
 * row the key of the block its body lives in (filled when first read) and
 * its index there, so that a read whose page and block are cached touches
 * no LMDB page and needs no read transaction.
 *
 * Correctness rests on three facts.  Committed events never change and
 * are never deleted, and a body never moves to another block (an open
 * block is rewritten under the same key until it seals).  Every entry
 * records the id of the transaction it was read in; a snapshot with id T
 * holds everything a transaction with id <= T committed, so an entry is
 * used only by a read whose transaction id is >= the entry's (outside any
 * transaction every entry qualifies: the next snapshot is at least as new
 * as any committed one).  Entries read inside a write transaction that
 * does not commit are dropped with the block cache (kt_ev_forget).  An
 * entry of the open (last) page lists only the rows it had: a seq past
 * them is read again with its run record, so appends by other handles or
 * processes are never hidden.
 */

void kt_sbuf_free(struct kt_sbuf *sb)
{
	kt_dblk_free(&sb->b);
}

#define KT_PCACHE_MIN 64u
#define KT_PCACHE_MAX 65536u
#define KT_PCACHE_PER ((size_t)128 << 10) /* one page per 128 KiB of budget */

static void rcache_free(kt_store *s)
{
	struct kt_rcache *r = s->rcache;

	if (!r)
		return;
	for (size_t i = 0; i < r->npages; i++)
		free(r->pages[i]);
	free(r->pages);
	/* while a scan runs it owns the buffers (kt_scan_close frees them) */
	for (int k = 0; k <= KT_KIND_MAX_ && !r->scan_busy; k++)
		kt_sbuf_free(&r->scan[k]);
	for (int i = 0; i < r->nstage; i++)
		free(r->stage[i].buf.p);
	free(r);
	s->rcache = NULL;
}

void kt_pcache_clear(kt_store *s)
{
	struct kt_rcache *r = s->rcache;

	if (r)
		for (size_t i = 0; i < r->npages; i++)
			if (r->pages[i])
				r->pages[i]->pfirst = 0;
}

struct kt_rcache *kt_rcache_get(kt_store *s)
{
	struct kt_rcache *r = s->rcache;
	size_t n = KT_PCACHE_MIN;

	if (r)
		return r;
	while (n < KT_PCACHE_MAX && (n * 2) * KT_PCACHE_PER <= s->cache_max)
		n *= 2;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->pages = calloc(n, sizeof(*r->pages));
	if (!r->pages) {
		free(r);
		return NULL;
	}
	r->npages = n;
	s->rcache = r;
	return r;
}

/* The slot of page (run, pfirst): pages of one run take consecutive
 * slots, so a run of up to npages pages never evicts its own. */
struct kt_pentry **kt_pcache_slot(struct kt_rcache *r,
				      const unsigned char run[KT_RUN_BIN],
				      uint64_t pfirst)
{
	uint64_t h;

	memcpy(&h, run, 8);
	h = (h * 0x9e3779b97f4a7c15ull >> 32) + (pfirst - 1) / KT_PAGE_N;
	return &r->pages[h & (r->npages - 1)];
}

/* Id of the snapshot a read on s sees now (UINT64_MAX: none open yet, the
 * next one will be at least as new as anything cached). */
uint64_t kt_cur_txnid(kt_store *s)
{
	if (s->wtxn)
		return mdb_txn_id(s->wtxn);
	if (s->rdepth > 0 && s->rtxn)
		return mdb_txn_id(s->rtxn);
	return UINT64_MAX;
}
