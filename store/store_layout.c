/*
 * store_layout.c - the layout of event format v2 that append, reads and
 * scans share: per-(run, kind) streams of zstd blocks and the per-run
 * header index (pages): parsing, decoding and finding them.  Their caches
 * are store_bcache.c (decoded blocks) and store_rcache.c (decoded pages,
 * pooled scan buffers).
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
#include <stdlib.h>
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
