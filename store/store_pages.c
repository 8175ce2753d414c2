/*
 * store_pages.c - a structural check of LMDB's own pages, run before LMDB
 * reads any of them (`ktraj verify`, KT_OPEN_CHECK).
 *
 * Why: LMDB 0.9 keeps no checksums and trusts its pages.  A node offset, a
 * key or data size, a child page number or an overflow page count that a
 * damaged byte sends out of its page makes LMDB (or us, reading the value it
 * hands back) touch memory outside the map: SIGSEGV or SIGBUS instead of an
 * error.  So the pages a snapshot reaches are read with pread(2) and checked
 * here first, and LMDB sees only a file whose every reachable page is sound.
 *
 * The layout is LMDB 0.9's, from libraries/liblmdb/mdb.c of
 * https://github.com/LMDB/lmdb (branch mdb.RE/0.9; Debian 12 ships 0.9.24).
 * No LMDB code is used, only the documented layout; all fields are in host
 * byte order, pgno_t and txnid_t are size_t:
 *
 *   struct MDB_page (PAGEHDRSZ = sizeof(size_t) + 8 bytes of header):
 *     mp_pgno   pgno_t    the page's own number
 *     mp_pad    uint16_t
 *     mp_flags  uint16_t  P_BRANCH 0x01, P_LEAF 0x02, P_OVERFLOW 0x04,
 *                         P_META 0x08, P_DIRTY 0x10, P_LEAF2 0x20,
 *                         P_SUBP 0x40 (P_DIRTY, P_LOOSE, P_KEEP are never
 *                         written: mdb_page_flush skips or clears them)
 *     mp_lower, mp_upper  uint16_t  bounds of the free space; or, on the
 *                         first page of an overflow run, mp_pages uint32_t
 *     mp_ptrs[]  uint16_t node offsets from the page start (PAGEBASE is 0
 *                         outside MDB_DEVEL); NUMKEYS = (lower-PAGEHDRSZ)/2
 *   struct MDB_node (NODESIZE = 8, 2-byte aligned):
 *     mn_lo, mn_hi uint16_t  leaf: data size lo|hi<<16; branch: child pgno
 *     mn_flags  uint16_t  leaf: F_BIGDATA 0x01 (data is the pgno of an
 *                         overflow run), F_SUBDATA 0x02 (data is an MDB_db),
 *                         F_DUPDATA 0x04; branch: pgno bits 32-47 (64-bit)
 *     mn_ksize  uint16_t  then the key, then (leaf) the data
 *   struct MDB_db: md_pad u32, md_flags u16, md_depth u16,
 *     md_branch_pages, md_leaf_pages, md_overflow_pages (pgno_t),
 *     md_entries (size_t), md_root (pgno_t; P_INVALID = ~0 when empty)
 *   struct MDB_meta, after the page header of pages 0 and 1: mm_magic u32
 *     (MDB_MAGIC 0xBEEFC0DE), mm_version u32 (MDB_DATA_VERSION 1),
 *     mm_address void*, mm_mapsize size_t, mm_dbs[2] (FREE_DBI 0, MAIN_DBI
 *     1; mm_psize is mm_dbs[0].md_pad), mm_last_pg pgno_t, mm_txnid.
 *     Transaction N writes meta page N % 2 (mdb_env_write_meta).
 *
 * What a reader of LMDB depends on, and so what is checked for every page
 * the snapshot reaches (the main DB, each named DB its leaves name with
 * F_SUBDATA, the free DB): the page number is below mm_last_pg + 1 and
 * inside the file; the header names the page; the flags are exactly
 * P_BRANCH above the tree's md_depth and P_LEAF at it (a cursor steps to a
 * sibling one level down and takes what it finds for a leaf); lower and
 * upper lie in the page, lower <= upper, at least one node; each node
 * offset is even, at or above upper, and the node header, key and inline
 * data end inside the page; child and overflow page numbers are in range;
 * an overflow run is P_OVERFLOW, fits in the file and holds the data size;
 * no page is reached twice (a cycle, or two trees sharing a page); depth
 * at most 32 (CURSOR_STACK).  ktraj creates no sorted-duplicate databases,
 * so a DUPSORT flag or a F_DUPDATA node is damage, as is a main DB entry
 * that is not a database.  The entry and page counts of each MDB_db (but
 * the free DB's) are compared with what the walk finds.
 *
 * A writer also reads the free DB's data: each record is an IDL (midl.h:
 * a count, then that many page numbers, descending) of pages it may take
 * and write over (mdb_page_alloc).  So each record's key is a transaction
 * id (sizeof(size_t) bytes, 1..the snapshot's), its count fits in it, its
 * pages are in range and descending, and no page listed free is reached
 * by a tree or listed twice: LMDB would overwrite a page in use.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include <fcntl.h>

#include "store_int.h"

#define ZS ((unsigned)sizeof(size_t))           /* pgno_t, txnid_t */
#define PAGEHDRSZ (ZS + 8u)
#define NODESIZE 8u
#define P_BRANCH 0x01u
#define P_LEAF 0x02u
#define P_OVERFLOW 0x04u
#define P_META 0x08u
#define F_BIGDATA 0x01u
#define F_SUBDATA 0x02u
#define DB_SIZE (8u + 5u * ZS)                   /* sizeof(MDB_db) */
#define DB_FLAGS 4u
#define DB_DEPTH 6u
#define DB_BRANCH 8u
#define DB_LEAF (8u + ZS)
#define DB_OVF (8u + 2u * ZS)
#define DB_ENTRIES (8u + 3u * ZS)
#define DB_ROOT (8u + 4u * ZS)
#define META_MAGIC 0u
#define META_VERSION 4u
#define META_DBS (8u + 2u * ZS)                  /* after address, mapsize */
#define META_LAST (META_DBS + 2u * DB_SIZE)
#define META_TXNID (META_LAST + ZS)
#define META_SIZE (META_TXNID + ZS)
#define MDB_MAGIC_ 0xBEEFC0DEu
#define MDB_DATA_VERSION_ 1u
#define MAX_PAGESIZE_ 0x8000u                    /* mdb.c, PAGEBASE 0 */
#define MIN_PAGESIZE_ 512u
#define CURSOR_STACK_ 32u
#define DUP_FLAGS (0x04u | 0x10u | 0x20u | 0x40u) /* DUPSORT, DUPFIXED,
						     INTEGERDUP, REVERSEDUP */

struct item {
	uint64_t pgno;
	uint32_t depth, tree;
};

enum { T_NAMED, T_MAIN, T_FREE };

struct tree {
	char name[40];
	int type;                 /* T_*: the main DB's leaves name databases */
	unsigned depth;           /* md_depth */
	uint64_t want[4], got[4]; /* branch, leaf, overflow pages; entries */
};

struct ck {
	const struct kt_pgsrc *src;
	unsigned psize;
	uint64_t npages;          /* mm_last_pg + 1 */
	uint64_t txnid;           /* the snapshot's */
	uint64_t *fr;             /* the free DB's lists: page, txn pairs */
	size_t nfr, frcap;
	unsigned char *seen;      /* one bit per page */
	unsigned char *pg;
	struct item *stk;
	size_t n, cap;
	struct tree *t;
	size_t nt, tcap;
	char *why;
	size_t wl;
	int ours;                 /* database records of ktraj's names in the
				     main DB leaf being checked */
	/* the sorted walk (walk_sorted): overflow runs met on this level,
	 * checked after it in page order; the pages of one pread */
	int sorted;
	struct ovf *ov;
	size_t nov, ovcap;
	unsigned char *win;
	uint64_t wfirst, wn;      /* pages wfirst..wfirst+wn-1 are in win */
};

/* An overflow run a leaf names, for the sorted walk. */
struct ovf {
	uint64_t pgno, from, dsize;
	uint32_t tree;
	unsigned node;
};

#define NOT_KTRAJ "not a ktraj store"

static int bad(struct ck *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int bad(struct ck *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->why, c->wl, fmt, ap);
	va_end(ap);
	return KT_ECORRUPT;
}

static uint64_t rdz(const unsigned char *p)
{
	size_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static unsigned rd16h(const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static uint32_t rd32h(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static int src_read(const struct kt_pgsrc *s, uint64_t off, void *buf,
		    size_t n)
{
	size_t got = 0;

	if (off > s->size || n > s->size - off)
		return KT_ECORRUPT;
	if (!s->mem) {
		while (got < n) {
			ssize_t r = pread(s->fd, (char *)buf + got, n - got,
					  (off_t)(off + got));

			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				return KT_EIO;
			if (r == 0)
				return KT_ECORRUPT; /* shrank under us */
			got += (size_t)r;
		}
		return 0;
	}
	memcpy(buf, s->mem + off, n);
	return 0;
}

static int seen(const struct ck *c, uint64_t pg)
{
	return c->seen[pg >> 3] >> (pg & 7) & 1;
}

static void mark(struct ck *c, uint64_t pg)
{
	c->seen[pg >> 3] |= (unsigned char)(1u << (pg & 7));
}

static const char *tname(const struct ck *c, uint32_t t)
{
	return c->t[t].name;
}

/* A page number that a node, or a database record, names. */
static int target_ok(struct ck *c, uint64_t pg, uint64_t from, uint32_t t,
		     const char *what)
{
	if (pg < 2 || pg >= c->npages)
		return from ? bad(c, "page %llu (database %s): %s names page "
				  "%llu, outside pages 2..%llu",
				  (unsigned long long)from, tname(c, t), what,
				  (unsigned long long)pg,
				  (unsigned long long)c->npages - 1) :
			      bad(c, "database %s: %s is page %llu, outside "
				  "pages 2..%llu", tname(c, t), what,
				  (unsigned long long)pg,
				  (unsigned long long)c->npages - 1);
	if (seen(c, pg))
		return from ? bad(c, "page %llu (database %s): %s names page "
				  "%llu, which is reached twice (a cycle or a "
				  "shared page)", (unsigned long long)from,
				  tname(c, t), what, (unsigned long long)pg) :
			      bad(c, "database %s: %s is page %llu, which is "
				  "reached twice", tname(c, t), what,
				  (unsigned long long)pg);
	return 0;
}

static int push(struct ck *c, uint64_t pg, uint32_t depth, uint32_t t)
{
	if (KT_GROW(c->stk, c->cap, c->n + 1))
		return KT_ENOMEM;
	mark(c, pg);
	c->stk[c->n++] = (struct item){ pg, depth, t };
	return 0;
}

/* Name of a database from its key in the main DB, printable. */
static void set_name(char *out, size_t cap, const unsigned char *k, size_t n)
{
	size_t i;

	for (i = 0; i < n && i + 1 < cap; i++)
		out[i] = k[i] >= 0x20 && k[i] < 0x7f && k[i] != '\'' ?
			 (char)k[i] : '?';
	out[i] = 0;
}

/* An MDB_db record (meta page or F_SUBDATA node): a tree to walk. */
static int add_tree(struct ck *c, const unsigned char *db, const char *name,
		    int type)
{
	unsigned flags = rd16h(db + DB_FLAGS), depth = rd16h(db + DB_DEPTH);
	uint64_t root = rdz(db + DB_ROOT);
	struct tree *t;
	int rc;

	if (KT_GROW(c->t, c->tcap, c->nt + 1))
		return KT_ENOMEM;
	t = &c->t[c->nt];
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->type = type;
	t->depth = depth;
	t->want[0] = rdz(db + DB_BRANCH);
	t->want[1] = rdz(db + DB_LEAF);
	t->want[2] = rdz(db + DB_OVF);
	t->want[3] = rdz(db + DB_ENTRIES);
	c->nt++;
	/* the free DB keeps LMDB's environment flags in md_flags (mm_flags);
	 * ktraj opens its databases with none */
	if (type != T_FREE && flags)
		return bad(c, "database %s: flags 0x%x (ktraj sets none; "
			   "sorted-duplicate flags make LMDB read pages this "
			   "check does not)", name, flags);
	if (type == T_FREE && (flags & DUP_FLAGS))
		return bad(c, "database free: flags 0x%x", flags);
	if (root == (uint64_t)(size_t)-1) {
		if (depth || t->want[0] || t->want[1] || t->want[2] ||
		    t->want[3])
			return bad(c, "database %s: empty (no root page) but "
				   "depth %u, %llu entries", name, depth,
				   (unsigned long long)t->want[3]);
		return 0;
	}
	if (depth < 1 || depth > CURSOR_STACK_)
		return bad(c, "database %s: depth %u (1..%u)", name, depth,
			   CURSOR_STACK_);
	rc = target_ok(c, root, 0, (uint32_t)(c->nt - 1), "the root");
	return rc ? rc : push(c, root, 1, (uint32_t)(c->nt - 1));
}

/* The checks of overflow run ov that need its first page's header h. */
static int overflow_at(struct ck *c, uint64_t from, uint32_t t, unsigned i,
		       uint64_t ov, uint64_t dsize, const unsigned char *h)
{
	uint64_t n = rd32h(h + ZS + 4);

	if (rdz(h) != ov || rd16h(h + ZS + 2) != P_OVERFLOW)
		return bad(c, "page %llu (database %s): not the overflow page "
			   "node %u of page %llu names (header: page %llu, "
			   "flags 0x%x)", (unsigned long long)ov, tname(c, t),
			   i, (unsigned long long)from,
			   (unsigned long long)rdz(h), rd16h(h + ZS + 2));
	if (n < 1 || n > c->npages - ov)
		return bad(c, "page %llu (database %s): overflow run of %llu "
			   "pages past the last page %llu",
			   (unsigned long long)ov, tname(c, t),
			   (unsigned long long)n,
			   (unsigned long long)c->npages - 1);
	if (dsize > n * c->psize - PAGEHDRSZ)
		return bad(c, "page %llu (database %s): node %u holds %llu "
			   "bytes, its overflow run of %llu pages fewer",
			   (unsigned long long)from, tname(c, t), i,
			   (unsigned long long)dsize, (unsigned long long)n);
	for (uint64_t p = ov; p < ov + n; p++) {
		if (seen(c, p))
			return bad(c, "page %llu (database %s): its overflow "
				   "run takes page %llu, which is reached "
				   "twice", (unsigned long long)ov,
				   tname(c, t), (unsigned long long)p);
		mark(c, p);
	}
	c->t[t].got[2] += n;
	return 0;
}

static int ovf_name_ok(struct ck *c, uint64_t from, uint32_t t, unsigned i,
		       uint64_t ov)
{
	char what[48];

	snprintf(what, sizeof(what), "node %u (overflow data)", i);
	return target_ok(c, ov, from, t, what);
}

/* An F_BIGDATA value of dsize bytes at overflow page ov. */
static int overflow(struct ck *c, uint64_t from, uint32_t t, unsigned i,
		    uint64_t ov, uint64_t dsize)
{
	unsigned char h[PAGEHDRSZ];
	int rc;

	if (c->sorted && c->t[t].type != T_FREE) {
		/* after this level, in page order (walk_sorted) */
		if (KT_GROW(c->ov, c->ovcap, c->nov + 1))
			return KT_ENOMEM;
		c->ov[c->nov++] = (struct ovf){ ov, from, dsize, t, i };
		return 0;
	}
	if ((rc = ovf_name_ok(c, from, t, i, ov)) != 0)
		return rc;
	if ((rc = src_read(c->src, ov * c->psize, h, sizeof(h))) != 0)
		return rc == KT_ECORRUPT ? bad(c, "page %llu: past the end of "
					       "the file",
					       (unsigned long long)ov) : rc;
	return overflow_at(c, from, t, i, ov, dsize, h);
}

/*
 * A free DB record: the key is the id of the transaction that freed the
 * pages, the data an IDL (midl.h): a count, then that many page numbers in
 * descending order.  A writer takes pages from these lists
 * (mdb_page_alloc reads `count` numbers and merges them into a sorted
 * list, mdb_midl_xmerge) and writes over those pages: a count past the
 * record reads outside it, a page in use listed free is overwritten.  The
 * pages are kept here and checked against the trees once all are walked.
 */
static int free_list(struct ck *c, const struct item *it, unsigned i,
		     const unsigned char *key, unsigned ks,
		     const unsigned char *d, uint64_t ds)
{
	unsigned long long pg = (unsigned long long)it->pgno;
	uint64_t tx, n, prev = UINT64_MAX;

	if (ks != ZS)
		return bad(c, "page %llu (database free): node %u has a key "
			   "of %u bytes, not a transaction id", pg, i, ks);
	tx = rdz(key);
	if (tx < 1 || tx > c->txnid)
		return bad(c, "page %llu (database free): node %u lists the "
			   "pages of transaction %llu, outside 1..%llu", pg, i,
			   (unsigned long long)tx,
			   (unsigned long long)c->txnid);
	if (ds < ZS || ds % ZS)
		return bad(c, "page %llu (database free): node %u holds a page "
			   "list of %llu bytes", pg, i,
			   (unsigned long long)ds);
	n = rdz(d);
	if (n > ds / ZS - 1)
		return bad(c, "page %llu (database free): node %u counts %llu "
			   "free pages in room for %llu", pg, i,
			   (unsigned long long)n,
			   (unsigned long long)(ds / ZS - 1));
	if (KT_GROW(c->fr, c->frcap, c->nfr + 2 * n))
		return KT_ENOMEM;
	for (uint64_t j = 1; j <= n; j++) {
		uint64_t p = rdz(d + j * ZS);

		if (p < 2 || p >= c->npages)
			return bad(c, "page %llu (database free): node %u lists "
				   "page %llu free, outside pages 2..%llu", pg,
				   i, (unsigned long long)p,
				   (unsigned long long)c->npages - 1);
		if (p >= prev)
			return bad(c, "page %llu (database free): node %u lists "
				   "page %llu after page %llu (not in "
				   "descending order)", pg, i,
				   (unsigned long long)p,
				   (unsigned long long)prev);
		prev = p;
		c->fr[c->nfr++] = p;
		c->fr[c->nfr++] = tx;
	}
	return 0;
}

/* The free DB's data in an overflow run, checked as free_list does. */
static int free_list_ovf(struct ck *c, const struct item *it, unsigned i,
			 const unsigned char *key, unsigned ks, uint64_t ov,
			 uint64_t ds)
{
	unsigned char *d;
	int rc;

	if (ds > SIZE_MAX || !(d = malloc(ds ? (size_t)ds : 1)))
		return KT_ENOMEM;
	rc = src_read(c->src, ov * c->psize + PAGEHDRSZ, d, (size_t)ds);
	if (rc == 0)
		rc = free_list(c, it, i, key, ks, d, ds);
	free(d);
	return rc;
}

static int leaf_node(struct ck *c, const struct item *it, unsigned i,
		     const unsigned char *nd, unsigned room)
{
	unsigned fl = rd16h(nd + 4), ks = rd16h(nd + 6);
	uint64_t ds = rd16h(nd) | (uint64_t)rd16h(nd + 2) << 16;
	const struct tree *t = &c->t[it->tree];
	unsigned long long pg = (unsigned long long)it->pgno;

	/* plain entries in the main database: another program's LMDB
	 * file (ktraj keeps only named databases there), unless beside two
	 * of ktraj's databases: then one bit cleared F_SUBDATA of ours
	 * (FORMAT.md §5 "Damaged, or not a store"), a damaged page */
	if (t->type == T_MAIN && fl == 0 && c->ours < 2)
		return bad(c, NOT_KTRAJ " (its main database holds plain "
			   "entries, page %llu)", pg);
	if (fl & ~(F_BIGDATA | F_SUBDATA) ||
	    (fl & F_SUBDATA && t->type != T_MAIN) ||
	    (t->type == T_MAIN && fl != F_SUBDATA))
		return bad(c, "page %llu (database %s): node %u has flags "
			   "0x%x", pg, t->name, i, fl);
	if (fl & F_BIGDATA) {
		if (NODESIZE + ks + ZS > room)
			return bad(c, "page %llu (database %s): node %u (key "
				   "%u bytes) runs past the end of the page",
				   pg, t->name, i, ks);
		uint64_t ov = rdz(nd + NODESIZE + ks);
		int rc = overflow(c, it->pgno, it->tree, i, ov, ds);

		if (rc == 0 && t->type == T_FREE)
			rc = free_list_ovf(c, it, i, nd + NODESIZE, ks, ov, ds);
		return rc;
	}
	if (NODESIZE + ks + ds > room)
		return bad(c, "page %llu (database %s): node %u (key %u, "
			   "data %llu bytes) runs past the end of the page",
			   pg, t->name, i, ks, (unsigned long long)ds);
	if (fl & F_SUBDATA) {
		char name[sizeof(((struct tree *)0)->name)];

		if (ds != DB_SIZE)
			return bad(c, "page %llu (database main): node %u is a "
				   "database record of %llu bytes, not %u", pg,
				   i, (unsigned long long)ds, DB_SIZE);
		set_name(name, sizeof(name), nd + NODESIZE, ks);
		return add_tree(c, nd + NODESIZE + ks, name, T_NAMED);
	}
	if (t->type == T_FREE)
		return free_list(c, it, i, nd + NODESIZE, ks,
				 nd + NODESIZE + ks, ds);
	return 0;
}

/* How many nodes of a main DB leaf are database records named as one of
 * ktraj's databases; nodes out of bounds are left to the node checks. */
static int our_dbs(const struct ck *c, const unsigned char *p,
		   unsigned nkeys, unsigned upper)
{
	const char *const *ours = kt_db_names;
	int n = 0;

	for (unsigned i = 0; i < nkeys; i++) {
		unsigned off = rd16h(p + PAGEHDRSZ + 2 * i), ks;

		if (off < upper || off > c->psize - NODESIZE || off & 1)
			continue;
		ks = rd16h(p + off + 6);
		if (rd16h(p + off + 4) != F_SUBDATA ||
		    NODESIZE + ks > c->psize - off)
			continue;
		for (size_t j = 0; j < KT_DB_COUNT; j++)
			if (ks == strlen(ours[j]) &&
			    !memcmp(p + off + NODESIZE, ours[j], ks)) {
				n++;
				break;
			}
	}
	return n;
}

/* Page it->pgno, read (p NULL) or as the sorted walk's window holds it. */
static int page(struct ck *c, const struct item *it, const unsigned char *p)
{
	struct tree *t = &c->t[it->tree];
	unsigned long long pg = (unsigned long long)it->pgno;
	unsigned flags, lower, upper, nkeys, want;
	int rc;

	if (!p) {
		if ((rc = src_read(c->src, it->pgno * c->psize, c->pg,
				   c->psize)) != 0)
			return rc == KT_ECORRUPT ?
			       bad(c, "page %llu: past the end of the file",
				   pg) : rc;
		p = c->pg;
	}
	flags = rd16h(p + ZS + 2);
	lower = rd16h(p + ZS + 4);
	upper = rd16h(p + ZS + 6);
	if (rdz(p) != it->pgno)
		return bad(c, "page %llu (database %s): its header says page "
			   "%llu", pg, t->name, (unsigned long long)rdz(p));
	want = it->depth < t->depth ? P_BRANCH : P_LEAF;
	if (flags != want)
		return bad(c, "page %llu (database %s): flags 0x%x at depth %u "
			   "of %u (a %s page expected)", pg, t->name, flags,
			   it->depth, t->depth,
			   want == P_LEAF ? "leaf" : "branch");
	/* nodes are laid out in even sizes from the even page end down, so
	 * upper, the start of the lowest one, is even (mdb.c EVEN()) */
	if (lower < PAGEHDRSZ + 2 || (lower - PAGEHDRSZ) & 1 || upper & 1 ||
	    lower > upper || upper > c->psize)
		return bad(c, "page %llu (database %s): free space bounds "
			   "lower %u, upper %u (page of %u bytes)", pg,
			   t->name, lower, upper, c->psize);
	nkeys = (lower - PAGEHDRSZ) / 2;
	if (t->type == T_MAIN && want == P_LEAF)
		c->ours = our_dbs(c, p, nkeys, upper);
	t->got[want == P_LEAF] += 1;
	if (want == P_LEAF)
		t->got[3] += nkeys;
	for (unsigned i = 0; i < nkeys; i++) {
		unsigned off = rd16h(p + PAGEHDRSZ + 2 * i), ks;
		const unsigned char *nd = p + off;

		if (off < upper || off > c->psize - NODESIZE)
			return bad(c, "page %llu (database %s): node %u at "
				   "offset %u, outside %u..%u", pg, t->name,
				   i, off, upper, c->psize - NODESIZE);
		if (off & 1)
			return bad(c, "page %llu (database %s): node %u at "
				   "odd offset %u", pg, t->name, i, off);
		if (want == P_LEAF) {
			if ((rc = leaf_node(c, it, i, nd, c->psize - off)))
				return rc;
			t = &c->t[it->tree]; /* add_tree may move c->t */
			continue;
		}
		ks = rd16h(nd + 6);
		if (NODESIZE + ks > c->psize - off)
			return bad(c, "page %llu (database %s): node %u (key %u "
				   "bytes) runs past the end of the page", pg,
				   t->name, i, ks);
		{
			uint64_t child = rd16h(nd) |
					 (uint64_t)rd16h(nd + 2) << 16;
			char what[32];

			if (ZS > 4)
				child |= (uint64_t)rd16h(nd + 4) << 32;
			snprintf(what, sizeof(what), "node %u", i);
			if ((rc = target_ok(c, child, it->pgno, it->tree,
					    what)) != 0 ||
			    (rc = push(c, child, it->depth + 1, it->tree)))
				return rc;
		}
	}
	return 0;
}

/* One meta page (0 or 1) into m (META_SIZE bytes) and its page size. */
static int read_meta(struct ck *c, unsigned i, uint64_t off,
		     unsigned char *m)
{
	unsigned char h[PAGEHDRSZ + META_SIZE];
	int rc = src_read(c->src, off, h, sizeof(h));

	if (rc)
		return rc == KT_ECORRUPT ? bad(c, "meta page %u: past the end "
					       "of the file", i) : rc;
	if (rdz(h) != i || rd16h(h + ZS + 2) != P_META)
		return bad(c, "meta page %u: header says page %llu, flags "
			   "0x%x", i, (unsigned long long)rdz(h),
			   rd16h(h + ZS + 2));
	memcpy(m, h + PAGEHDRSZ, META_SIZE);
	if (rd32h(m + META_MAGIC) != MDB_MAGIC_ ||
	    rd32h(m + META_VERSION) != MDB_DATA_VERSION_)
		return bad(c, "meta page %u: magic 0x%x, version %u (not an "
			   "LMDB 0.9 data file)", i, rd32h(m + META_MAGIC),
			   rd32h(m + META_VERSION));
	{
		uint32_t ps = rd32h(m + META_DBS); /* mm_psize = md_pad */

		if (ps < MIN_PAGESIZE_ || ps > MAX_PAGESIZE_ || ps & (ps - 1))
			return bad(c, "meta page %u: page size %u", i, ps);
	}
	return 0;
}

/*
 * The sorted walk.  The depth-first walk reads one page per pread in an
 * order that jumps about the file: on the 31.6 MB benchmark store, 825 tree
 * pages and 496 overflow headers, 1,329 preads, most of the check's time
 * (tests/bench/RESULTS.md, "Issue 21").  This walk takes a tree level at a
 * time, every tree at once, in page order, and reads each run of pages
 * that lie close together (gaps up to WIN_GAP pages, WIN_PAGES in all) with
 * one pread; the overflow runs the level's leaves name are checked after
 * it, in page order too.  Whether a file passes does not depend on the
 * order (every check is of a page's own bytes, a page number's range, or
 * a set: pages reached twice, counts, free pages in use), but which
 * damage is named first does: so when this walk finds anything wrong, the
 * depth-first walk runs again from the start and its message is the one
 * returned, the same as before.
 */
#define WIN_PAGES 64u
#define WIN_GAP 8u

/* The bytes of page pgs[i] (pgs: page numbers ascending, `stride` bytes
 * apart), reading it with the close pages after it into c->win when it is
 * not there; NULL in *out when the page lies past the checked ones. */
static int win_get(struct ck *c, const void *pgs, size_t stride, size_t n,
		   size_t i, const unsigned char **out)
{
#define PG(j) (*(const uint64_t *)(const void *)((const char *)pgs + \
						  (j) * stride))
	uint64_t first = PG(i), last = first;
	int rc;

	*out = NULL;
	if (first >= c->wfirst && first - c->wfirst < c->wn) {
		*out = c->win + (first - c->wfirst) * c->psize;
		return 0;
	}
	if (first >= c->npages)
		return 0;
	for (size_t j = i + 1; j < n; j++) {
		uint64_t p = PG(j);

		if (p >= c->npages || p - last > WIN_GAP ||
		    p - first >= WIN_PAGES)
			break;
		last = p;
	}
#undef PG
	c->wn = 0;
	rc = src_read(c->src, first * c->psize, c->win,
		      (size_t)(last - first + 1) * c->psize);
	if (rc)
		return rc;
	c->wfirst = first;
	c->wn = last - first + 1;
	*out = c->win;
	return 0;
}

static int by_pgno(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Walk what c->stk holds, a level at a time (see above). */
static int walk_sorted(struct ck *c)
{
	int rc = 0;

	if (!c->win && !(c->win = malloc((size_t)WIN_PAGES * c->psize)))
		return KT_ENOMEM;
	while (rc == 0 && c->n > 0) {
		struct item *cur = c->stk;
		size_t ncur = c->n;
		const unsigned char *p;

		/* the level's children go on a fresh stack */
		c->stk = NULL;
		c->n = c->cap = 0;
		qsort(cur, ncur, sizeof(*cur), by_pgno);
		c->wn = 0;
		for (size_t i = 0; rc == 0 && i < ncur; i++)
			if ((rc = win_get(c, cur, sizeof(*cur), ncur, i,
					  &p)) == 0)
				rc = page(c, &cur[i], p);
		free(cur);
		if (c->nov)
			qsort(c->ov, c->nov, sizeof(*c->ov), by_pgno);
		c->wn = 0;
		for (size_t i = 0; rc == 0 && i < c->nov; i++) {
			const struct ovf *o = &c->ov[i];

			if ((rc = ovf_name_ok(c, o->from, o->tree, o->node,
					      o->pgno)) == 0 &&
			    (rc = win_get(c, c->ov, sizeof(*c->ov), c->nov, i,
					  &p)) == 0)
				rc = p ? overflow_at(c, o->from, o->tree,
						     o->node, o->pgno,
						     o->dsize, p) : KT_ECORRUPT;
		}
		c->nov = 0;
	}
	return rc;
}

/* Every tree of meta m (META_SIZE bytes) walked, the counts and the free
 * lists checked; c->seen and c->pg allocated, c->npages set. */
static int walk(struct ck *c, const unsigned char *m)
{
	int rc;

	mark(c, 0);
	mark(c, 1);
	/* the main DB first: its leaves add the named ones */
	rc = add_tree(c, m + META_DBS + DB_SIZE, "main", T_MAIN);
	for (int pass = 0; rc == 0 && pass < 2; pass++) {
		if (c->sorted)
			rc = walk_sorted(c);
		while (rc == 0 && c->n > 0) {
			struct item it = c->stk[--c->n];

			rc = page(c, &it, NULL);
		}
		/* the free DB last: LMDB readers never read it, writers do */
		if (rc == 0 && pass == 0)
			rc = add_tree(c, m + META_DBS, "free", T_FREE);
	}
	/* not of the free DB: LMDB rewrites it while it commits, and no
	 * reader uses it */
	for (size_t i = 0; rc == 0 && i < c->nt; i++) {
		static const char *const what[4] = {
			"branch pages", "leaf pages", "overflow pages",
			"entries"
		};

		for (int j = 0; j < 4 && rc == 0 && c->t[i].type != T_FREE;
		     j++)
			if (c->t[i].want[j] != c->t[i].got[j])
				rc = bad(c, "database %s: its record counts "
					 "%llu %s, its pages hold %llu",
					 c->t[i].name,
					 (unsigned long long)c->t[i].want[j],
					 what[j],
					 (unsigned long long)c->t[i].got[j]);
	}
	/* every tree is walked: a page listed free must be in none of them,
	 * nor listed twice (LMDB would hand it out twice) */
	for (size_t i = 0; rc == 0 && i < c->nfr; i += 2)
		if (seen(c, c->fr[i]))
			rc = bad(c, "database free: transaction %llu's list "
				 "has page %llu, a page in use",
				 (unsigned long long)c->fr[i + 1],
				 (unsigned long long)c->fr[i]);
	for (size_t i = 0; rc == 0 && i < c->nfr; i += 2) {
		if (seen(c, c->fr[i]))
			rc = bad(c, "database free: page %llu is listed free "
				 "twice (transaction %llu's list has it again)",
				 (unsigned long long)c->fr[i],
				 (unsigned long long)c->fr[i + 1]);
		mark(c, c->fr[i]);
	}
	return rc;
}

int kt_pages_check_src(const struct kt_pgsrc *src, uint64_t want,
		       int metas_only, uint64_t *txnid, char *why, size_t wl)
{
	unsigned char m[2][META_SIZE];
	struct ck c = { 0 };
	uint64_t tx[2], last;
	unsigned k;
	int rc;

	c.src = src;
	c.why = why;
	c.wl = wl;
	if (wl)
		why[0] = 0;
	if ((rc = read_meta(&c, 0, 0, m[0])) != 0)
		return rc;
	/* LMDB reads meta page 1 at meta page 0's page size
	 * (mdb_env_read_header) */
	c.psize = rd32h(m[0] + META_DBS);
	if ((rc = read_meta(&c, 1, c.psize, m[1])) != 0)
		return rc;
	if (rd32h(m[1] + META_DBS) != c.psize)
		return bad(&c, "meta pages 0 and 1 give page sizes %u and %u",
			   c.psize, rd32h(m[1] + META_DBS));
	tx[0] = rdz(m[0] + META_TXNID);
	tx[1] = rdz(m[1] + META_TXNID);
	/* transaction N writes meta page N % 2; both start at 0 */
	for (unsigned i = 0; i < 2; i++)
		if (tx[i] && (tx[i] & 1) != i)
			return bad(&c, "meta page %u: transaction %llu belongs "
				   "in meta page %u", i,
				   (unsigned long long)tx[i],
				   (unsigned)(tx[i] & 1));
	if (tx[0] == tx[1] && tx[0])
		return bad(&c, "meta pages 0 and 1 both hold transaction %llu",
			   (unsigned long long)tx[0]);
	if (want == KT_PAGES_NEWEST) {
		/* the one LMDB picks (mdb_env_pick_meta): ties to page 0 */
		k = tx[0] < tx[1];
	} else {
		k = (unsigned)(want & 1);
		if (tx[k] != want)
			return KT_EBUSY; /* overwritten: two commits since */
	}
	*txnid = c.txnid = tx[k];
	last = rdz(m[k] + META_LAST);
	if (last < 1 || last >= src->size / c.psize)
		return bad(&c, "meta page %u: last page %llu, the file holds "
			   "pages 0..%llu", k, (unsigned long long)last,
			   (unsigned long long)(src->size / c.psize) - 1);
	if (metas_only)
		return 0;
	c.npages = last + 1;
	c.seen = calloc((size_t)(c.npages / 8 + 1), 1);
	c.pg = malloc(c.psize);
	if (!c.seen || !c.pg) {
		rc = KT_ENOMEM;
		goto out;
	}
	c.sorted = 1;
	if ((rc = walk(&c, m[k])) != 0) {
		/* the first damage in the depth-first order, as always */
		memset(c.seen, 0, (size_t)(c.npages / 8 + 1));
		free(c.fr);
		free(c.t);
		c.fr = NULL;
		c.t = NULL;
		c.n = c.nfr = c.frcap = c.nt = c.tcap = c.nov = 0;
		c.ours = c.sorted = 0;
		if (wl)
			why[0] = 0;
		rc = walk(&c, m[k]);
	}
out:
	free(c.fr);
	free(c.ov);
	free(c.win);
	free(c.seen);
	free(c.pg);
	free(c.stk);
	free(c.t);
	return rc;
}

static int check_file(kt_store *s, uint64_t want, int metas_only)
{
	struct kt_pgsrc src = { -1, NULL, 0 };
	struct stat st;
	char why[200];
	uint64_t tx = 0;
	int rc;

	src.fd = open(s->path, O_RDONLY | O_CLOEXEC);
	if (src.fd < 0)
		return kt_err(s, KT_EIO, "%s: %s", s->path, strerror(errno));
	if (fstat(src.fd, &st) != 0) {
		rc = kt_err(s, KT_EIO, "%s: %s", s->path, strerror(errno));
		goto out;
	}
	src.size = (uint64_t)st.st_size;
	rc = kt_pages_check_src(&src, want, metas_only, &tx, why,
				sizeof(why));
	if (rc == 0) {
		if (!metas_only) {
			s->pages_txnid = tx;
			s->pages_checked = 1;
		}
	} else if (rc == KT_ECORRUPT &&
		   !strncmp(why, NOT_KTRAJ, sizeof(NOT_KTRAJ) - 1)) {
		rc = kt_err(s, rc, "%s: %s", s->path, why);
	} else if (rc == KT_ECORRUPT) {
		rc = kt_err(s, rc, "%s: damaged LMDB %s", s->path, why);
	} else if (rc == KT_EIO) {
		rc = kt_err(s, rc, "%s: read: %s", s->path, strerror(errno));
	} else if (rc == KT_ENOMEM) {
		rc = kt_err(s, rc, "page check: out of memory");
	}
out:
	close(src.fd);
	return rc;
}

int kt_pages_check_metas(kt_store *s)
{
	return check_file(s, KT_PAGES_NEWEST, 1);
}

int kt_pages_pin(kt_store *s, MDB_txn *txn)
{
	int rc;

	if (!(s->flags & KT_OPEN_CHECK))
		return 0;
	/* A writer checks once, at open, before its first transaction: what
	 * it and other writers commit after that, LMDB writes from the
	 * checked pages, and a check after each of an import's commits would
	 * cost a pread of the whole file each. */
	if (s->pages_checked && !(s->flags & KT_OPEN_RDONLY))
		return 0;
	for (int tries = 0; tries < 8; tries++) {
		uint64_t id = mdb_txn_id(txn);

		if (s->pages_checked && id == s->pages_txnid)
			return 0;
		rc = check_file(s, id, 0);
		if (rc != KT_EBUSY)
			return rc;
		/* two commits since txn began overwrote its meta page: take
		 * a newer snapshot, which a held txn keeps in place */
		mdb_txn_reset(txn);
		if ((rc = mdb_txn_renew(txn)) != 0)
			return kt_mdb_err(s, rc, "renew read");
	}
	return kt_err(s, KT_EBUSY, "%s: the store changes faster than its "
		      "pages can be checked; run verify again", s->path);
}
