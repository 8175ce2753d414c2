/*
 * store_rcache.c - the read cache: decoded header pages for point reads
 * (store_read.c) and the block buffers scans pool between them
 * (store_scan.c).
 */
#include <stdlib.h>
#include "store_int.h"

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

void kt_rcache_free(kt_store *s)
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
