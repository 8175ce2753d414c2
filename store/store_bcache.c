/*
 * store_bcache.c - the block cache: decompressed blocks of event format v2
 * (store_layout.c), bounded by kt_store_set_cache's budget and evicted
 * least recently used first, which point reads (store_read.c) go through.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "store_int.h"

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

void kt_cache_free(kt_store *s)
{
	kt_rcache_free(s);
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
