/*
 * store_block.c - event layout v2: per-(run, kind) streams of zstd blocks,
 * the per-run header index (pages), the open append state, the block
 * cache, and the event reads and scans built on them.
 *
 * FORMAT.md §6.4 (ev_blocks) and §6.9 (ev_pages) are normative for every
 * byte written here.  Why blocks per kind: one zstd frame per event cannot
 * match across events and reached only 3.6x on the benchmark events;
 * blocks of ~128 KiB of bodies of one kind reach ~4.7x with a dictionary
 * (FORMAT.md "Why per-kind blocks" has the measurements), and a scan that
 * needs only some kinds decompresses only their streams.
 *
 * Appends go to memory first (struct kt_orun): the open block of each kind
 * and the open page are written when a block or page seals, and otherwise
 * at commit, when the writer switches runs, or before a read inside the
 * same write transaction (kt_ev_flush).  The stored open block is then
 * rewritten with the events added since.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include "store_int.h"

/* ---- varints (LEB128, as protobuf: 7 bits a byte, low group first) ---- */

static size_t put_uv(unsigned char *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (unsigned char)v;
	return n;
}

static int get_uv(const unsigned char **pp, const unsigned char *end,
		  uint64_t *v)
{
	const unsigned char *p = *pp;
	uint64_t r = 0;

	for (int sh = 0; sh < 64 && p < end; sh += 7) {
		unsigned char c = *p++;

		if (sh == 63 && c > 1)
			return -1;
		r |= (uint64_t)(c & 0x7f) << sh;
		if (!(c & 0x80)) {
			*pp = p;
			*v = r;
			return 0;
		}
	}
	return -1;
}

static uint64_t zz(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzz(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Page row timestamp code (FORMAT.md §6.9): 0 unknown, 1 absolute be64
 * follows, else zigzag(ts - prev) + 2. */
static size_t put_ts(unsigned char *p, int64_t ts, int64_t *prev)
{
	uint64_t z;

	if (ts == KT_TS_UNKNOWN) {
		p[0] = 0;
		return 1;
	}
	z = zz((int64_t)((uint64_t)ts - (uint64_t)*prev));
	*prev = ts;
	if (z > UINT64_MAX - 2) {
		p[0] = 1;
		kt_be64(p + 1, (uint64_t)ts);
		return 9;
	}
	return put_uv(p, z + 2);
}

/* ---- pages ------------------------------------------------------------------ */

static void page_key(unsigned char k[KT_RUN_BIN + 8],
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

#define BLK_HDR 6 /* codec, kind, be32 dict */
#define BLK_RAW_MAX ((uint64_t)KT_BLOCK_SEAL + KT_EVENT_MAX_BODY)

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
static int blk_rows(kt_store *s, const struct kt_blkview *b, uint64_t first,
		    struct kt_dblk *d, size_t head)
{
	const unsigned char *q = b->rows;
	uint64_t seq = first;
	size_t off = head;

	if (dblk_reserve(d, b->n))
		return kt_err(s, KT_ENOMEM, "block");
	for (uint32_t i = 0; i < b->n; i++) {
		uint64_t dl, l;

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
	if ((rc = blk_rows(s, &b, first, d, head)) != 0)
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
static int block_find(kt_store *s, MDB_cursor *c,
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

static int dblk_index(const struct kt_dblk *d, uint64_t seq)
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

static void cblk_free(struct kt_centry *e)
{
	cblk_data_free(e);
	kt_dblk_free(&e->b);
}

static void rcache_free(kt_store *s);
static void pcache_clear(kt_store *s);

void kt_cache_free(kt_store *s)
{
	rcache_free(s);
	for (size_t i = 0; i < s->ncache; i++)
		cblk_free(&s->cache[i]);
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
static struct kt_centry *bcache_find(kt_store *s, const unsigned char *k)
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
static int block_for(kt_store *s, MDB_txn *txn,
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
	rc = block_find(s, c, run, kind, seq, &k, &v);
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
	e = bcache_find(s, k.mv_data);
	if (e && (i = dblk_index(&e->b, seq)) >= 0) {
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
		cblk_free(&s->cache[lru]);
		s->cache_bytes += dblk_bytes(&s->cache[lru].b);
		memset(s->cache[lru].key, 0, sizeof(s->cache[lru].key));
		s->cache[lru].tick = 0;
		s->cache[lru].next = -1;
	}
	d = &e->b;
found:
	if (rc)
		goto out;
	i = dblk_index(d, seq);
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
/* A cached page row: the header fields, and where the body was found. */
struct kt_crow {
	int64_t ts;
	uint64_t parent;
	uint32_t bdelta;       /* seq - block key seq + 1; 0 = not known */
	uint32_t boff, blen;   /* the body in the decoded block's data */
	uint32_t yoff;         /* payload offset in the body; 0: not checked
				  that the strings end in NULs in place */
	uint16_t al;           /* actor length */
	uint8_t kind;
};

struct kt_pentry {
	unsigned char run[KT_RUN_BIN];
	uint64_t pfirst;       /* 0 = empty slot */
	uint64_t txnid;        /* transaction the page was read in */
	uint32_t cnt;          /* rows known (<= the page's, <= n - pfirst + 1) */
	unsigned char chain[KT_HASH_LEN];
	struct kt_crow rows[KT_PAGE_N];
};

/* Room before a scan block's first body: every body can take its
 * canonical prefix in front of it, where the scan hashes it. */
#define SCAN_HEAD 32

/* A scan's block buffer: SCAN_HEAD bytes of room, the bodies, a NUL. */
struct kt_sbuf {
	struct kt_dblk b;
};

/* Where scans decompress a block of dictionary `id`: the dictionary's
 * content (dlen bytes), then room for the block (sbuf_decode). */
struct kt_stage {
	uint32_t id;
	size_t dlen;
	struct kt_buf buf;
};

struct kt_rcache {
	struct kt_pentry **pages; /* direct mapped, npages slots */
	size_t npages;
	/* block buffers of the last scan, kept for the next: sized and
	 * faulted in already */
	struct kt_sbuf scan[KT_KIND_MAX_ + 1];
	int scan_busy;
	struct kt_stage stage[KT_DICT_MAX + 1];
	int nstage;
};

static void sbuf_free(struct kt_sbuf *sb)
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
	/* while a scan runs it owns the buffers (scan_close frees them) */
	for (int k = 0; k <= KT_KIND_MAX_ && !r->scan_busy; k++)
		sbuf_free(&r->scan[k]);
	for (int i = 0; i < r->nstage; i++)
		free(r->stage[i].buf.p);
	free(r);
	s->rcache = NULL;
}

static void pcache_clear(kt_store *s)
{
	struct kt_rcache *r = s->rcache;

	if (r)
		for (size_t i = 0; i < r->npages; i++)
			if (r->pages[i])
				r->pages[i]->pfirst = 0;
}

static struct kt_rcache *rcache_get(kt_store *s)
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
static struct kt_pentry **pcache_slot(struct kt_rcache *r,
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
static uint64_t cur_txnid(kt_store *s)
{
	if (s->wtxn)
		return mdb_txn_id(s->wtxn);
	if (s->rdepth > 0 && s->rtxn)
		return mdb_txn_id(s->rtxn);
	return UINT64_MAX;
}

/* ---- open append state ---------------------------------------------------- */

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

	o->valid = 0;
	o->dirty = 0;
	for (int k = 0; k <= KT_KIND_MAX_; k++) {
		oblk_reset(&o->blk[k]);
		o->blk[k].live = 0;
	}
	if (cache) {
		pcache_clear(s);
		for (size_t i = 0; i < s->ncache; i++) {
			cblk_free(&s->cache[i]);
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
	if (s->ndfb == s->dfb_cap) {
		size_t cap = s->dfb_cap ? 2 * s->dfb_cap : 64;

		d = realloc(s->dfb, cap * sizeof(*d));
		if (!d)
			return KT_ENOMEM;
		s->dfb = d;
		s->dfb_cap = cap;
	}
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
 * built in s->vbuf (capacity for the bound) and put it under key. */
static int block_write(kt_store *s, const unsigned char *key, size_t hdr,
		       const unsigned char *raw, size_t rl)
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
	return kt_put(s, KT_DB_BLOCKS, key, KT_RUN_BIN + 9, p, hdr + fr, 0);
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
	int rc = 0;

	if (!s->ndfb)
		goto out;
	if ((rc = kt_dict_train_pending(s)) != 0)
		goto out;
	for (size_t i = 0; i < s->ndfb && !rc; i++) {
		struct kt_dfblk *d = &s->dfb[i];

		if (kt_buf_reserve(&s->vbuf, d->hlen +
				   ZSTD_compressBound(d->rlen)))
			rc = kt_err(s, KT_ENOMEM, "block value");
		else {
			memcpy(s->vbuf.p, d->hdr, d->hlen);
			rc = block_write(s, d->key, d->hlen,
					 s->dfr.p + d->roff, d->rlen);
		}
	}
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
	page_key(key, o->run, o->pfirst);
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
	 * too */
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
	rc = mdb_cursor_open(s->wtxn, s->dbi[KT_DB_BLOCKS], &c);
	if (rc)
		return kt_mdb_err(s, rc, "cursor");
	rc = block_find(s, c, o->run, k, UINT64_MAX, &key, &v);
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
	MDB_val k = { KT_RUN_BIN, (void *)run }, v;
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
	rc = mdb_get(s->wtxn, s->dbi[KT_DB_RUNS], &k, &v);
	if (rc == MDB_NOTFOUND)
		return KT_ENOTFOUND;
	if (rc)
		return kt_mdb_err(s, rc, "run lookup");
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

		page_key(pk, run, o->n);
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

/* ---- reads ---------------------------------------------------------------- */

/* n_events of a run in txn; KT_ENOTFOUND when there is no such run. */
/* The run record of `run` into *v.  KT_ENOTFOUND when absent, with the
 * message "no run NAME" when `name` is given (callers that probe pass NULL
 * and say nothing). */
static int run_rec(kt_store *s, MDB_txn *txn, const unsigned char run[KT_RUN_BIN],
		   const char *name, MDB_val *v)
{
	MDB_val k = { KT_RUN_BIN, (void *)run };
	int rc = mdb_get(txn, s->dbi[KT_DB_RUNS], &k, v);

	if (rc == MDB_NOTFOUND)
		return name ? kt_err(s, KT_ENOTFOUND, "no run %s", name) :
			      KT_ENOTFOUND;
	return rc ? kt_mdb_err(s, rc, "run lookup") : 0;
}

static int run_n(kt_store *s, MDB_txn *txn, const unsigned char run[KT_RUN_BIN],
		 uint64_t *n, unsigned char head[KT_HASH_LEN])
{
	MDB_val v;
	unsigned char h[KT_HASH_LEN];
	int rc = run_rec(s, txn, run, NULL, &v);

	return rc ? rc : kt_runrec_tail(s, &v, n, head ? head : h);
}

static int page_get(kt_store *s, MDB_txn *txn,
		    const unsigned char run[KT_RUN_BIN], uint64_t seq,
		    MDB_val *v)
{
	unsigned char pk[KT_RUN_BIN + 8];
	MDB_val k = { sizeof(pk), pk };
	int rc;

	page_key(pk, run, seq);
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
static int ev_build(kt_store *s, uint64_t seq, const struct kt_prow *row,
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

static void ev_head_fill(kt_event *ev, uint64_t seq, const struct kt_prow *r)
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

static int ev_body_fill(kt_store *s, kt_event *ev, struct kt_buf *b)
{
	unsigned char *p = b->p + KT_CANON_PREFIX;
	size_t bl = b->len - KT_CANON_PREFIX, al, pl, yl;

	if (body_layout(p, bl, &al, &pl, &yl))
		goto bad;
	p[2 + al] = 0;
	p[2 + al + 4 + pl] = 0;
	ev->actor = (char *)p + 2;
	ev->prov_json = pl ? (char *)p + 2 + al + 4 : NULL;
	ev->payload = (char *)p + 2 + al + 4 + pl + 4;
	ev->payload_len = yl;
	ev->flags = KT_EV_CANONICAL;
	return 0;
bad:
	return kt_err(s, KT_ECORRUPT, "seq %llu: bad event body",
		      (unsigned long long)ev->seq);
}

/*
 * Point ev's strings into body p (bl bytes; p[bl] readable) without
 * copying: each string ends where the next length field begins, whose
 * first byte is 0 unless that length is >= 2^24 (prov, payload) or the
 * next body's actor is >= 256 bytes (p[bl]), and the last body of a block
 * is followed by a NUL.  When a terminator is not 0 the body is copied to
 * buf, where NULs can be written.
 */
static int ev_body_view(kt_store *s, kt_event *ev, const unsigned char *p,
			size_t bl, struct kt_buf *buf)
{
	size_t al, pl, yl;

	if (body_layout(p, bl, &al, &pl, &yl))
		goto bad;
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
	ev->actor = (const char *)p + 2;
	ev->prov_json = pl ? (const char *)p + 2 + al + 4 : NULL;
	ev->payload = (const char *)p + 2 + al + 4 + pl + 4;
	ev->payload_len = yl;
	ev->flags = KT_EV_CANONICAL;
	return 0;
bad:
	return kt_err(s, KT_ECORRUPT, "seq %llu: bad event body",
		      (unsigned long long)ev->seq);
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
 * hint straight from the block cache, else from block_for (which records
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
		e = bcache_find(s, k);
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
	rc = block_for(s, r->txn, pe->run, w->kind, seq, &d, &i);
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
 * ev_body_view for row w, remembering in w when the strings can be
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
	rc = ev_body_view(s, ev, p, w->blen, &s->evbuf);
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
	struct kt_rcache *rcache = rcache_get(s);
	struct kt_prow rows[KT_PAGE_N];
	struct kt_pentry **slot, *pe;
	MDB_val v;
	int rc;

	if (!rcache)
		return kt_err(s, KT_ENOMEM, "page cache");
	slot = pcache_slot(rcache, run, pfirst);
	pe = *slot;
	if (pe && pe->pfirst == pfirst && idx < pe->cnt &&
	    memcmp(pe->run, run, KT_RUN_BIN) == 0 &&
	    pe->txnid <= cur_txnid(s)) {
		*out = pe;
		return 0;
	}
	if ((rc = rd_txn(r)) != 0)
		return rc;
	rc = run_n(s, r->txn, run, &n, NULL);
	if (rc == 0 && (seq == 0 || seq > n))
		rc = KT_ENOTFOUND;
	if (rc == KT_ENOTFOUND)
		return kt_err(s, KT_ENOTFOUND, "no event %s/%llu", name,
			      (unsigned long long)seq);
	if (rc)
		return rc;
	rc = page_get(s, r->txn, run, seq, &v);
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
	memset(ev, 0, sizeof(*ev));
	ev->seq = seq;
	ev->kind = w->kind;
	ev->parent = w->parent;
	ev->ts_ns = w->ts;
	ev->flags = KT_EV_HEAD;
	if (how & KT_READ_HASH) {
		/* the chain from the page checkpoint: every event of the page
		 * up to seq is hashed (bodies from the block cache) */
		memcpy(chain, pe->chain, KT_HASH_LEN);
		for (uint32_t j = 0; j <= idx; j++) {
			struct kt_prow row = { pe->rows[j].kind,
					       pe->rows[j].parent,
					       pe->rows[j].ts };

			rc = row_body(&r, pe, j, &bp, &last);
			if (rc == 0)
				rc = ev_build(s, pe->pfirst + j, &row, bp,
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

/* ---- scans ---------------------------------------------------------------- */

/* One kind's position in its stream during a scan. */
struct kiter {
	struct kt_sbuf sb;
	uint32_t pos;
};

struct scan {
	kt_store *s;
	MDB_txn *txn;
	MDB_cursor *c;
	const unsigned char *run;
	struct kiter it[KT_KIND_MAX_ + 1];
	uint64_t kind_events[KT_KIND_MAX_ + 1]; /* events seen per kind */
	int strict;          /* verify: full pages, checkpoints compared */
	int pooled;          /* it[].b are the handle's (rcache->scan) */
	struct kt_rcache *pool;
	uint64_t bad_seq;
	uint64_t last;       /* the last seq the scan wants */
	/* decoding ahead on helper threads (store_ahead.c): the blocks after
	 * the ones in it[], in the order the scan will need them */
	int nthreads;        /* 0: every block decoded in this thread */
	struct kt_ahead *ah; /* started with the first block decoded ahead */
	MDB_cursor *c2;      /* finds the blocks to decode ahead */
	struct kt_pfb {
		int job;             /* kt_ahead job, -1 when decoded */
		struct kt_dblk d;
	} pf[KT_AHEAD_JOBS];
	int pfree[KT_AHEAD_JOBS], npfree;
	/* per kind: its blocks decoded ahead (pf slots, oldest first) and
	 * the next block of its stream not handed out yet */
	int q[KT_KIND_MAX_ + 1][KT_AHEAD_JOBS], qh[KT_KIND_MAX_ + 1],
	    qn[KT_KIND_MAX_ + 1];
	struct kt_knext {
		int has;
		unsigned char key[KT_RUN_BIN + 9];
		MDB_val v;
		uint64_t first;
	} nx[KT_KIND_MAX_ + 1];
	/* the helpers' dictionaries: copies owned by the scan (the read
	 * cache's may move or go while a callback runs) */
	struct { uint32_t id; unsigned char *p; size_t len; } sd[KT_DICT_MAX + 1];
	int nsd;
};

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
static int stage_get(struct scan *sc, uint32_t id, size_t need,
		     struct kt_stage **out)
{
	kt_store *s = sc->s;
	struct kt_rcache *r = rcache_get(s);
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
static int sbuf_decode(struct scan *sc, struct kt_sbuf *sb, int k,
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
	if ((rc = blk_rows(s, &bv, first, &sb->b, SCAN_HEAD)) != 0)
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
		if (bv.dict) {
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

/* ---- decoding ahead -------------------------------------------------------- */

/* The block after nx[k].key in kind k's stream (nx[k].has = 0 at its end
 * or past the scan's last seq). */
static void ahead_next(struct scan *sc, int k)
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
static void ahead_start(struct scan *sc, int k, const MDB_val *key)
{
	if (key->mv_size != sizeof(sc->nx[k].key))
		return;
	memcpy(sc->nx[k].key, key->mv_data, sizeof(sc->nx[k].key));
	ahead_next(sc, k);
}

/* The scan's copy of dictionary id's content. */
static int ahead_dict(struct scan *sc, uint32_t id, const unsigned char **p,
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
static int ahead_submit(struct scan *sc, int k)
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
	if (blk_rows(sc->s, &bv, x->first, &p->d, SCAN_HEAD) ||
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
static void ahead_fill(struct scan *sc)
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
static struct kt_pfb *ahead_pop(struct scan *sc, int k, int *rc)
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
static void ahead_drop(struct scan *sc, int k)
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
static int ahead_take(struct scan *sc, int k, uint64_t seq)
{
	int rc, i;
	struct kt_pfb *p = ahead_pop(sc, k, &rc);
	struct kt_dblk t;

	i = rc ? -1 : dblk_index(&p->d, seq);
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
static int kiter_get(struct scan *sc, int k, uint64_t seq,
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
		rc = block_find(sc->s, sc->c, sc->run, k, seq, &key, &v);
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
		i = dblk_index(d, seq);
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
static int scan_run(struct scan *sc, uint64_t n, uint64_t first,
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
		rc = page_get(s, sc->txn, sc->run, pfirst, &v);
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
			if (!body && !hash) {
				ev_head_fill(&ev, seq, &rows[i]);
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
				rc = ev_build(s, seq, &rows[i], bp, bl, &b);
				if (rc)
					goto out;
				kt_sha256(b.p, b.len, h);
				kt_chain_next(chain, seq, h, chain);
			}
			if (!want)
				continue;
			ev_head_fill(&ev, seq, &rows[i]);
			if (hash) {
				memcpy(ev.hash, h, KT_HASH_LEN);
				memcpy(ev.chain, chain, KT_HASH_LEN);
			}
			if (body || sc->strict) {
				rc = ev_body_view(s, &ev, bp, bl, &b);
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
static int head_mismatch(kt_store *s, uint64_t n, uint64_t *bad_seq)
{
	uint64_t from = n ? (n - 1) / KT_PAGE_N * KT_PAGE_N + 1 : 0;

	if (bad_seq)
		*bad_seq = from;
	return kt_err(s, KT_ECORRUPT, "chain does not match the run head: "
		      "an event of seqs %llu..%llu differs",
		      (unsigned long long)from, (unsigned long long)n);
}

static void scan_close(struct scan *sc);

static int scan_open(struct scan *sc, kt_store *s, MDB_txn *txn,
		     const unsigned char *run)
{
	int rc;

	struct kt_rcache *r = rcache_get(s);

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
		scan_close(sc);
		return kt_mdb_err(s, rc, "cursor");
	}
	return 0;
}

static void scan_close(struct scan *sc)
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
			sbuf_free(&sc->it[k].sb);
		}
	}
	if (sc->pooled)
		r->scan_busy = 0;
	sc->pooled = 0;
}

int kt_event_scan(kt_store *s, const char *run, uint64_t first, uint64_t last,
		  unsigned kinds, unsigned how,
		  int (*fn)(const kt_event *, void *), void *arg)
{
	unsigned char bin[KT_RUN_BIN], chain[KT_HASH_LEN], head[KT_HASH_LEN];
	struct scan sc;
	MDB_txn *txn;
	uint64_t n;
	int rc;

	if (!s || !fn || (how & ~(KT_READ_BODY | KT_READ_HASH)))
		return KT_EINVAL;
	rc = kt_run_bin(s, run, bin);
	if (rc)
		return rc;
	if ((rc = kt_ev_flush(s)) != 0)
		return rc;
	rc = kt_rd_begin(s, &txn);
	if (rc)
		return rc;
	rc = run_n(s, txn, bin, &n, head);
	if (rc == KT_ENOTFOUND) {
		/* as before v2: no run, no events */
		kt_rd_end(s, txn);
		return 0;
	}
	if (rc == 0)
		rc = scan_open(&sc, s, txn, bin);
	if (rc) {
		kt_rd_end(s, txn);
		return rc;
	}
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
	rc = scan_run(&sc, n, first, last, kinds, how, chain, fn, arg);
	/* Each page's checkpoint checked the chain up to it; the events of
	 * the last page have none after them but the run head.  Without
	 * this a damaged body there came out of export with a hash and chain
	 * computed over the damage, and imported elsewhere as a sound run. */
	if (rc == 0 && (how & KT_READ_HASH) && (first ? first : 1) <= n &&
	    (!last || last >= n) && memcmp(chain, head, KT_HASH_LEN) != 0)
		rc = head_mismatch(s, n, NULL);
	scan_close(&sc);
	kt_rd_end(s, txn);
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

/* ---- verify ---------------------------------------------------------------- */

static int hash_cmp(const void *a, const void *b)
{
	return memcmp(a, b, KT_HASH_LEN);
}

/* Collect "<64 hex>" JSON strings of a text: the blobs it references. */
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

/* Sort and deduplicate refs; returns the count. */
static size_t refs_uniq(struct kt_buf *refs)
{
	size_t n = refs->len / KT_HASH_LEN, u = 0;

	if (n)
		qsort(refs->p, n, KT_HASH_LEN, hash_cmp);
	for (size_t i = 0; i < n; i++)
		if (!u || memcmp(refs->p + (u - 1) * KT_HASH_LEN,
				 refs->p + i * KT_HASH_LEN, KT_HASH_LEN))
			memmove(refs->p + u++ * KT_HASH_LEN,
				refs->p + i * KT_HASH_LEN, KT_HASH_LEN);
	refs->len = u * KT_HASH_LEN;
	return u;
}

static int refs_cb(const kt_event *ev, void *arg)
{
	struct kt_buf *refs = arg;

	if (!refs || !ev->payload)
		return 0;
	return collect_refs(ev->payload, ev->payload_len, refs);
}

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
	struct scan sc;
	MDB_cursor *c = NULL;
	MDB_val k, v;
	int rc;

	*bad_seq = 0;
	rc = run_n(s, txn, run, &n, head);
	if (rc)
		return rc == KT_ENOTFOUND ? kt_err(s, KT_ECORRUPT, "no run "
						   "record") : rc;
	rc = scan_open(&sc, s, txn, run);
	if (rc)
		return rc;
	sc.strict = 1;
	kt_chain_h0(chain);
	if (n) {
		rc = scan_run(&sc, n, 1, n, 0, KT_READ_BODY | KT_READ_HASH,
			      chain, refs_cb, refs);
		if (rc) {
			*bad_seq = sc.bad_seq;
			goto out;
		}
	}
	if (memcmp(chain, head, KT_HASH_LEN) != 0) {
		rc = head_mismatch(s, n, bad_seq);
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
	scan_close(&sc);
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
			if (mdb_get(txn, s->dbi[KT_DB_RUNS], &rk, &rv) != 0) {
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
	if (run && (rc = kt_run_bin(s, run, bin)) != 0)
		return rc;
	if ((rc = kt_ev_flush(s)) != 0)
		return rc;
	rc = kt_rd_begin(s, &txn);
	if (rc)
		return rc;
	if (run) {
		MDB_val rv;

		rc = run_rec(s, txn, bin, run, &rv);
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
		size_t u = refs_uniq(&refs);

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

/* ---- statistics ------------------------------------------------------------ */

/* Pages and blocks of one run (or all, run NULL) into st. */
static int stats_events(kt_store *s, MDB_txn *txn, const unsigned char *run,
			kt_store_stats *st)
{
	MDB_cursor *c;
	MDB_val k, v;
	unsigned char kb[KT_RUN_BIN];
	int rc;

	for (int d = 0; d < 2; d++) {
		rc = mdb_cursor_open(txn, s->dbi[d ? KT_DB_BLOCKS :
						 KT_DB_PAGES], &c);
		if (rc)
			return kt_mdb_err(s, rc, "cursor");
		if (run)
			memcpy(kb, run, KT_RUN_BIN);
		k.mv_size = run ? KT_RUN_BIN : 0;
		k.mv_data = kb;
		for (rc = mdb_cursor_get(c, &k, &v, run ? MDB_SET_RANGE :
					 MDB_FIRST); rc == 0;
		     rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
			const unsigned char *kp = k.mv_data;

			if (k.mv_size < KT_RUN_BIN + 8 ||
			    (run && memcmp(kp, run, KT_RUN_BIN)))
				break;
			st->event_stored_bytes += v.mv_size;
			if (d == 0) {
				struct kt_prow rows[KT_PAGE_N];
				uint32_t cnt;

				if (kt_page_parse(v.mv_data, v.mv_size,
						  kt_rd64(kp + KT_RUN_BIN),
						  NULL, rows, KT_PAGE_N,
						  &cnt) == 0) {
					st->events += cnt;
					for (uint32_t i = 0; i < cnt; i++)
						st->events_by_kind[
							rows[i].kind]++;
				}
			} else if (k.mv_size == KT_RUN_BIN + 9) {
				struct kt_blkview bv;

				if (kt_block_parse(v.mv_data, v.mv_size,
						   kp[KT_RUN_BIN], &bv) == 0)
					st->event_raw_bytes += bv.raw_len +
						(uint64_t)bv.n *
						KT_CANON_PREFIX;
			}
		}
		mdb_cursor_close(c);
		if (rc && rc != MDB_NOTFOUND)
			return kt_mdb_err(s, rc, "cursor");
	}
	return 0;
}

int kt_store_stats_get(kt_store *s, const char *run, kt_store_stats *st)
{
	unsigned char bin[KT_RUN_BIN];
	struct kt_buf refs = { 0 };
	MDB_txn *txn;
	MDB_stat ms;
	struct stat fs;
	int rc;

	if (!s || !st)
		return KT_EINVAL;
	memset(st, 0, sizeof(*st));
	if (run && (rc = kt_run_bin(s, run, bin)) != 0)
		return rc;
	if ((rc = kt_ev_flush(s)) != 0)
		return rc;
	if (stat(s->path, &fs) == 0)
		st->file_bytes = (uint64_t)fs.st_size;
	rc = kt_rd_begin(s, &txn);
	if (rc)
		return rc;
	if (run) {
		MDB_val rv;

		rc = run_rec(s, txn, bin, run, &rv);
		if (rc)
			goto out;
		st->runs = 1;
	} else if (mdb_stat(txn, s->dbi[KT_DB_RUNS], &ms) == 0) {
		st->runs = ms.ms_entries;
	}
	if (mdb_stat(txn, s->dbi[KT_DB_DICTS], &ms) == 0)
		st->dicts = ms.ms_entries;
	rc = stats_events(s, txn, run ? bin : NULL, st);
	if (rc)
		goto out;
	if (!run) {
		rc = kt_blob_stats(s, txn, st);
		goto out;
	}
	/* one run: the distinct blobs its payloads name */
	{
		struct scan sc;
		uint64_t n;
		unsigned char chain[KT_HASH_LEN];
		size_t u;

		rc = run_n(s, txn, bin, &n, NULL);
		if (rc == 0)
			rc = scan_open(&sc, s, txn, bin);
		if (rc)
			goto out;
		rc = scan_run(&sc, n, 1, n, 0, KT_READ_BODY, chain, refs_cb,
			      &refs);
		scan_close(&sc);
		if (rc)
			goto out;
		u = refs_uniq(&refs);
		for (size_t i = 0; i < u; i++) {
			MDB_val bk = { KT_HASH_LEN, refs.p + i * KT_HASH_LEN };
			MDB_val bv;

			if (mdb_get(txn, s->dbi[KT_DB_BLOBS], &bk, &bv) != 0)
				continue;
			st->blobs++;
			if (bv.mv_size >= 10)
				st->blob_raw_bytes += kt_rd64(
					(unsigned char *)bv.mv_data + 2);
			st->blob_stored_bytes += bv.mv_size;
		}
	}
out:
	kt_rd_end(s, txn);
	free(refs.p);
	return rc;
}
