/*
 * store_int.h - private to store/: the handle, the named databases, the
 * transaction write log, and the helpers shared by store*.c.
 *
 * FORMAT.md is normative for every byte layout used here.
 */
#ifndef KT_STORE_INT_H
#define KT_STORE_INT_H

#include <lmdb.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include "store.h"

/*
 * The named databases (FORMAT.md §6).  maxdbs derives from this table so a
 * new DB can never overflow it at run time.  The third column says whether
 * stores written before the database existed lack it: 0, every store of
 * the format version has it and its absence is damage; 1 (KT_DB_ADDED), an
 * index added to format version 2 later (FORMAT.md §5 "Damaged, or not a
 * store", §8), which readers do without (kt_db_has) and the first writer
 * that opens the store adds empty (store.c).  A new index is KT_DB_ADDED.
 */
#define KT_DB_ADDED 1
#define KT_DBS(X) \
	X(META, "meta", 0) \
	X(RUNS, "runs", 0) \
	X(NAMES, "run_names", 0) \
	X(BLOCKS, "ev_blocks", 0) \
	X(PAGES, "ev_pages", 0) \
	X(BLOBS, "blobs", 0) \
	X(HEADS, "blob_heads", 0) \
	X(PATHS, "paths", 0) \
	X(DICTS, "dicts", 0) \
	X(SUMS, "run_sums", KT_DB_ADDED)
#define KT_DB_ENUM(e, n, added) KT_DB_##e,
enum { KT_DBS(KT_DB_ENUM) KT_DB_COUNT };

/* KT_DBS's names and third column, indexed by KT_DB_* (store.c) */
extern const char *const kt_db_names[KT_DB_COUNT];
extern const unsigned char kt_db_added[KT_DB_COUNT];

/* Where an environment's map lies: found once per map size by
 * kt_env_give_back (len 0: not yet).  Zeroed with its holder. */
struct kt_envmap {
	uintptr_t lo;
	size_t len;
};

#define KT_MAP_INITIAL (64ull << 20)
#define KT_MAP_LIMIT (1ull << 40)
/* writes between two give-backs of the map's pages (kt_store_checkpoint) */
#define KT_MAP_GIVE (8u << 20)
/* page faults between two give-backs.  A read fault of the map maps the
 * pages around it that the page cache holds: 64 KiB (fault-around), or on
 * Linux 6.18 the whole large folio, 64 KiB-1 MiB (252 KiB on average in
 * a store just written, whose pages LMDB wrote in long runs), so what 128
 * faults leave is not a fixed bound: 10-25 MiB of the map between two
 * give-backs right after a batch's commit, at 1-3.8 GB of input
 * (tests/bench/RESULTS.md, "Issue 21: import peak memory, large folios") */
#define KT_MAP_FAULTS 128
/* ... so where the kernel says how much of the process's memory is file
 * pages (/proc/self/statm), the map is given back once that grew this
 * many KiB since the last give-back, looked at every KT_MAP_LOOK faults:
 * at 3.8 GB of input the folios of the freshly written store were large
 * enough that 128 faults left 63 MiB of the map resident after a batch's
 * commit, up from ~30 MiB at 1 GB: the peak RSS grew with the input
 * (tests/bench/RESULTS.md, "Issue 21: import peak RSS flat past 1 GB") */
#define KT_MAP_RESIDENT (16l << 10)
/* a fault maps up to 2 MiB, so a look every 4 faults finds the map at
 * most ~8 MiB past the bound; a look reads statm, ~2-6 us */
#define KT_MAP_LOOK 4
/* kt_store_checkpoint counts faults at every KT_MAP_TICK-th call, not at
 * every event (62,061 getrusage calls in a 211 MB import) */
#define KT_MAP_TICK 8
/* ... but only once this many bytes were written or read since: right
 * after a give-back every transaction faults the trees' top pages in
 * again, and the faults of a file's mapping and of the heap count too, so
 * without it many small sources gave the map back every ~10 sources, and
 * faulting it in again took more CPU than importing them (issue 21) */
#define KT_MAP_FLOOR (1u << 20)
/* A batch also ends once the pages it dirtied may reach a quarter of its
 * byte bound (kt_store_checkpoint): LMDB holds every page a transaction
 * dirtied in the heap until the commit, and puts keyed by hashes (blobs,
 * blob_heads, paths) each dirty a leaf of their own in a large tree, so at
 * a fixed 32 MiB of writes a batch's dirty pages grew with the store:
 * 2,813 -> 5,031 pages (11 -> 20 MiB) from the first to the ninth batch of
 * a 3.8 GB import (tests/bench/RESULTS.md, "the batch's dirty pages").
 * Never below KT_DIRTY_MIN pages: a few puts into a small store touch a
 * page of each database. */
#define KT_DIRTY_SHARE 4
#define KT_DIRTY_MIN 256
#define KT_RUN_BIN 16          /* run id bytes in keys */
#define KT_PATH_MAX_KEY 400    /* longest path indexed (bytes) */
#define KT_NAME_MAX_KEY 400    /* longest name prefix indexed */
#define KT_EVENT_MAX_BODY (64u << 20)
#define KT_BLOB_MAX ((size_t)1 << 30)

#define KT_CODEC_RAW 0
#define KT_CODEC_ZSTD 1
#define KT_CODEC_ZDELTA 2     /* blobs only */

/* Event layout v2 (FORMAT.md "ev_blocks", "ev_pages").  A block of one
 * (run, kind) stream is sealed once it holds KT_BLOCK_SEAL raw body bytes
 * or KT_BLOCK_MAXN events; a page holds KT_PAGE_N consecutive seqs. */
/* KT_BLOCK_SEAL and KT_BLOCK_LEVEL are writer rules, not format: a build
 * may set them with -D to measure other sizes and levels
 * (tests/bench/block_sweep.sh); readers take any block up to BLK_RAW_MAX. */
#ifndef KT_BLOCK_SEAL
#define KT_BLOCK_SEAL (256u * 1024)
#endif
#define KT_BLOCK_MAXN 4096u
#define KT_PAGE_N 256u
#ifndef KT_BLOCK_LEVEL
#define KT_BLOCK_LEVEL 3     /* zstd level of blocks (FORMAT.md §7.1) */
#endif
#define KT_RUNREC_TAIL 40     /* be64 n_events || head[32] after the meta */
#define KT_CACHE_DEFAULT ((size_t)64 << 20)

/* zstd dictionary ids: outside the range zstd reserves for a registrar */
#define KT_DICT_ID_BASE 32768u
/* A fresh store's dictionary is trained once, on KT_DICT_TRAIN_AT sampled
 * events (or KT_SAMPLES_MAX bytes of them); a transaction that ends before
 * trains on what it sampled when that is at least KT_DICT_MIN_AT events.
 * A store that has dictionaries trains one more per handle that samples
 * KT_DICT_SECOND_AT events (a later big import of other content). */
#define KT_DICT_MIN_AT 2000u
#define KT_DICT_TRAIN_AT 10000u
#define KT_DICT_SECOND_AT 20000u
#define KT_DICT_SIZE (512u * 1024)
#define KT_DICT_MAX 8u
/* Recent blob contents kept besides the last one: an agent edits its files
 * in turn (the Claude Code benchmark session rotates over 40), and each new
 * version is a delta against its file's previous one; without them every
 * switch of file decoded the base from its keyframe (35 deltas on average
 * there).  At most KT_BC_MORE contents of KT_BC_BYTES in all; a content
 * over KT_BC_MAX_LEN is not kept. */
#define KT_BC_MORE 64
#define KT_BC_BYTES ((size_t)32 << 20)
#define KT_BC_MAX_LEN ((size_t)4 << 20)
/* What a cached content's `valid` says: checked (it hashed to its key, or
 * a writer stored it under the hash it computed or was given), or decoded
 * for kt_blob_view(KT_BLOB_NOCHECK) and not hashed: a checked read of it
 * hashes it first. */
#define KT_BC_CHECKED 1
#define KT_BC_UNCHECKED 2
#define KT_DICT_STORE_LEVEL 3 /* zstd level of a stored dictionary (§6.8) */
#define KT_DICT_STORED_MAX ((size_t)16 << 20) /* largest dictionary read */
#define KT_SAMPLES_MAX ((size_t)24 << 20)

struct kt_dict {
	uint32_t id;
	void *cdict;   /* kt_cdict_new's, created lazily */
	void *ddict;   /* ZSTD_DDict* */
	void *dbytes;  /* the dictionary ddict references (dict_digest), or
			* NULL when ddict holds its own copy */
};

/* A buffer in anonymous memory that asks for transparent huge pages and
 * grows with mremap (no copy): this VM charges ~17 us for the first touch of
 * each 4 KiB page, so 24 MiB of dictionary samples cost ~0.1 s of faults
 * with 4 KiB pages and ~2 ms with 2 MiB ones (tests/bench/RESULTS.md,
 * session 4).  For the big per-transaction buffers only. */
struct kt_big {
	unsigned char *p;
	size_t len, cap;
};
/* Make room for n bytes in all (contents kept).  KT_ENOMEM. */
int kt_big_reserve(struct kt_big *b, size_t n);
void kt_big_free(struct kt_big *b);

/* A block sealed while the store has no dictionary yet and this handle will
 * train one: its value header, and its raw bodies in kt_store.dfr, held
 * until the dictionary exists (kt_defer_flush). */
struct kt_dfblk {
	unsigned char key[KT_RUN_BIN + 9];
	unsigned char *hdr;
	size_t hlen, roff, rlen;
};

struct kt_bcent {
	unsigned char hash[KT_HASH_LEN];
	int valid;
	uint64_t tick;
	struct kt_buf b;
};


/* The open (last, unsealed) block of one (run, kind) stream, in memory. */
struct kt_oblk {
	int live;             /* state known (loaded or started) */
	int dirty;            /* differs from what is stored */
	uint64_t first;       /* key seq; 0 = empty */
	uint32_t n;
	uint64_t *seq;        /* n seqs */
	uint32_t *len;        /* n body lengths */
	uint32_t cap;
	struct kt_buf raw;    /* the n bodies, concatenated */
};

/* Append state of the run being appended to in the open write txn. */
struct kt_orun {
	int valid, dirty;
	unsigned char run[KT_RUN_BIN];
	uint64_t n;                        /* last seq */
	unsigned char head[KT_HASH_LEN];   /* chain after n */
	/* the open page (seqs pfirst .. pfirst + pn - 1) */
	uint64_t pfirst;
	uint32_t pn;
	int64_t pts;                       /* last known ts of the page */
	unsigned char pchain[KT_HASH_LEN]; /* chain before pfirst */
	struct kt_buf prow;                /* encoded rows */
	struct kt_oblk blk[KT_KIND_MAX_ + 1];
};

/* A decompressed block: n events, seq[i], body i at data + off[i]. */
struct kt_dblk {
	uint32_t n, cap;
	uint64_t *seq;
	size_t *off;         /* n + 1 offsets into data */
	struct kt_buf data;
};

/* A cached decompressed block. */
struct kt_centry {
	unsigned char key[KT_RUN_BIN + 9]; /* run || kind || be64 first */
	int next;            /* hash chain, -1 = end */
	int mapped;          /* b.data.p is an mmap of b.data.cap bytes */
	uint64_t tick;
	struct kt_dblk b;
};
#define KT_CACHE_BUCKETS 4096
#define KT_CACHE_ENTRIES 4096

struct kt_store {
	MDB_env *env;
	MDB_dbi dbi[KT_DB_COUNT];
	unsigned flags;
	char *path;
	uint64_t mapsize;
	/* opened without the lock (MDB_NOLOCK): the file's size and
	 * modification time when the open began, to tell a concurrent
	 * writer's rewritten page from damage (kt_err, kt_store_changed) */
	int nolock;
	int64_t mark_size, mark_mtime_ns;
	/* the store file LMDB opened and its lock file, as found once at
	 * open (kt_store_is_own_file): two stat calls per file of a folder
	 * import cost ~3 us a file of 10,000 small ones */
	struct {
		dev_t dev;
		ino_t ino;
	} own[2];
	int nown;

	MDB_txn *wtxn;         /* open write transaction or NULL */
	MDB_txn *rtxn;         /* reusable read transaction (reset when idle) */
	int rdepth;            /* nesting of read users of rtxn */
	int rhold;             /* of them, kt_store_read_hold's */
	struct kt_big wlog;    /* puts of the open write txn, for map growth */
	size_t sp_len;         /* wlog.len at the last kt_store_savepoint */
	/* puts and deletes of the open write txn by database, and at the
	 * last savepoint: kt_store_checkpoint's estimate of LMDB's dirty
	 * pages (store_unfinished.c, dirty_full) */
	size_t wputs[KT_DB_COUNT], sp_puts[KT_DB_COUNT];
	size_t wputs_all, sp_puts_all;
	uint64_t commits;      /* LMDB commits by this handle (checkpoints
				  too): kt_store_commits */
	/* runs created since kt_store_begin, held out of `runs` at each
	 * checkpoint (store_unfinished.c); ck_old: a run that existed before
	 * was appended to (no checkpoint then); ck_done: one was committed */
	struct kt_ckrun *ck;
	size_t nck, ck_cap;
	int ck_old, ck_done;
	size_t map_seen;       /* wlog.len at the last kt_store_checkpoint */
	size_t map_wrote;      /* bytes logged since the map was last given
				  back, summed over transactions: one
				  source's is a few KB among many small ones */
	long map_flt;          /* the process's minor faults then */
	long map_chk;          /* ... at the last look at map_rss */
	unsigned map_tick;     /* kt_store_checkpoint's calls (KT_MAP_TICK) */
	long map_rss;          /* the process's file-backed resident KiB
				  after the give-back, lowered to the least
				  seen since (-1: unknown) */
	int statm;             /* /proc/self/statm's fd + 1 (0: not open
				  yet, -1: cannot be read) */
	struct kt_envmap envmap; /* where env's map lies (kt_env_give_back) */
	size_t map_read;       /* blob bytes read since then: an importer's
				  workspace reads back what it dropped */
	uint64_t grows;        /* times the map grew (tests) */

	/* append state for the run last appended to in the open txn */
	struct kt_orun orun;
	uint64_t txn_events;   /* events appended in the open txn */
	/* dictionary training samples: bodies appended by this handle */
	struct kt_big samples;
	size_t *sample_len;
	size_t nsamples, sample_cap;
	unsigned trained;      /* dictionaries this handle trained */
	/* blocks sealed in the open txn before the first dictionary */
	struct kt_big dfr;
	struct kt_dfblk *dfb;
	size_t ndfb, dfb_cap;

	/* cache of decompressed blocks (bounded by cache_max bytes) */
	struct kt_centry *cache;
	int *cache_bucket;
	size_t ncache, cache_bytes, cache_max;
	struct kt_dblk rblk;   /* point reads with the cache off */
	struct kt_buf vbuf, zbuf; /* values being built */
	/* sealed blocks compressed on a worker (store_wblk.c): wb_on set by
	 * kt_store_set_write_threads, wb started with the first block */
	int wb_on;
	struct kt_wb *wb;
	uint64_t cache_tick, cache_hits, cache_misses;
	/* decoded header pages and pooled scan buffers (store_rcache.c) */
	struct kt_rcache *rcache;

	/* dictionaries (loaded at open and after training) */
	struct kt_dict *dicts;
	size_t ndicts;

	/* blob reconstruction cache: the last blob read or written, and
	 * the heads before it (store_blob.c bc_stash/bc_take) */
	unsigned char bc_hash[KT_HASH_LEN];
	int bc_valid;
	struct kt_buf bc;
	struct kt_bcent bc_more[KT_BC_MORE];
	uint64_t bc_tick;
	uint64_t bc_frames;    /* blob frames decoded (kt_blob_frames) */

	struct kt_buf evbuf;   /* kt_event_get results */
	struct kt_buf tmp;     /* scratch */
	char *run_name, *run_format, *run_meta; /* kt_run_get results */
	char bad_run[KT_RUN_ID_HEX + 1];
	char err[256];
	int nospace;             /* a write met a full file system
				    (kt_store_nospace) */
	/* bit i: database i, one KT_DB_ADDED, is absent (a store written
	 * before it has none until a writer opens it); see kt_db_has */
	unsigned db_absent;
	/* verify: path_put collects the paths entries here instead of
	 * writing them (store_verify.c) */
	struct kt_buf *pcollect;
	/* KT_OPEN_CHECK: the snapshot whose pages were last checked
	 * (store_pages.c) */
	uint64_t pages_txnid;
	int pages_checked;
	int scan_threads;      /* kt_store_set_scan_threads; -1 = auto */
};

/* Whether database db is in the store: only a KT_DB_ADDED one may be
 * absent (run_sums in a store written before run checksums, FORMAT.md
 * §6.10). */
static inline int kt_db_has(const kt_store *s, int db)
{
	return !(s->db_absent >> db & 1u);
}

/* ---- byte order: stored integers are big-endian (FORMAT.md) ---- */
static inline void kt_be64(unsigned char *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
}
static inline uint64_t kt_rd64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}
static inline void kt_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}
static inline uint32_t kt_rd32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}
static inline void kt_be16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
}
static inline uint16_t kt_rd16(const unsigned char *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* ---- store.c ---- */
int kt_err(kt_store *s, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int kt_mdb_err(kt_store *s, int rc, const char *what);
/* mdb_env_set_mapsize(env, size), m forgotten: the one way the store and
 * the spill set a map's size, since LMDB maps anew there and m's address
 * would then name whatever is mapped at it next (`make lint` checks). */
static inline int kt_env_resize(MDB_env *env, struct kt_envmap *m,
				size_t size)
{
	m->len = 0;
	return mdb_env_set_mapsize(env, size);
}
int kt_put(kt_store *s, int db, const void *k, size_t kl, const void *v,
	   size_t vl, unsigned flags);
/* Append a put (or, db | KT_WLOG_DEL, a delete) to the write log that map
 * growth replays; KT_ENOMEM. */
#define KT_WLOG_DEL 0x80
int kt_wlog_add(kt_store *s, int db, const void *k, size_t kl, const void *v,
		size_t vl);
/* Begin a write txn (dictionaries refreshed) / commit it (map grown as
 * needed); both leave the append state to be loaded again. */
int kt_txn_begin(kt_store *s);
int kt_txn_commit(kt_store *s);
/* A read transaction: the open write txn, or the handle's read txn (nested
 * users share it).  Pass kt_rd_end the txn kt_rd_begin gave. */
int kt_rd_begin(kt_store *s, MDB_txn **txn);
void kt_rd_end(kt_store *s, MDB_txn *txn);
/* A read transaction (kt_rd_begin) and a cursor on s->dbi[db] in it: 0, or
 * kt_rd_begin's error or kt_mdb_err(s, rc, "cursor")'s with nothing left
 * open and *c NULL.  End the walk with kt_rd_close. */
int kt_rd_cursor(kt_store *s, int db, MDB_txn **txn, MDB_cursor **c);
/* Close c (NULL: none was opened) and end txn (kt_rd_end); returns rc, the
 * walk's result, so a walk's exit is `return kt_rd_close(s, txn, c, rc)`. */
int kt_rd_close(kt_store *s, MDB_txn *txn, MDB_cursor *c, int rc);
/* The prologue of a read of one run (NULL: of the whole store): resolve
 * run into bin (kt_run_bin's errors), write the appends held in memory
 * (kt_ev_flush), and open a read transaction (kt_rd_begin; end it with
 * kt_rd_end).  On an error nothing is left open. */
int kt_run_begin(kt_store *s, const char *run,
		 unsigned char bin[KT_RUN_BIN], MDB_txn **txn);

/* ---- store_run.c ---- */
/* The 16 bytes of run id id (32 hex digits) into bin; KT_EINVAL. */
int kt_run_bin(kt_store *s, const char *id, unsigned char bin[KT_RUN_BIN]);
/* n_events and head from a run record value (v2 tail). */
int kt_runrec_tail(kt_store *s, const MDB_val *v, uint64_t *n,
		   unsigned char head[KT_HASH_LEN]);

/* ---- store_unfinished.c (FORMAT.md §6.11) ---- */
/* Drop the pages of env's map (a read-only shared map of its file) from
 * the process's resident memory; they fault in again from the page cache
 * when read.  m remembers where the map lies between
 * calls (one per env).  Not while a caller holds a pointer into the map. */
void kt_env_give_back(MDB_env *env, struct kt_envmap *m);
/* Give s's map back when the process's file pages grew KT_MAP_RESIDENT
 * KiB since it last was (or KT_MAP_FAULTS page faults came, where that
 * is not known), for loops that read the map with no checkpoint between
 * two steps: the replay after map growth.  Not while a caller holds a
 * pointer into the map. */
void kt_map_faulted(kt_store *s);
struct kt_ckrun {
	unsigned char run[KT_RUN_BIN];
	unsigned char *rec;    /* the run record while held out */
	size_t len;
};
/* Delete key k of db in the write txn, logged for replay (absent: 0). */
int kt_del(kt_store *s, int db, const void *k, size_t kl);
/* Before creating run (id its hex): KT_EBUSY when another live process
 * is importing it unfinished; a dead writer's leftovers are reclaimed. */
int kt_ck_claim(kt_store *s, const unsigned char run[KT_RUN_BIN],
		const char *id);
/* run was created in this write txn (KT_ENOMEM). */
int kt_ck_created(kt_store *s, const unsigned char run[KT_RUN_BIN]);
/* run is appended to: no checkpoint when it existed before. */
void kt_ck_used(kt_store *s, const unsigned char run[KT_RUN_BIN]);
/* Forget the runs list (the logical transaction ended). */
void kt_ck_reset(kt_store *s);
/* In the final txn: remove the marks of the runs created. */
int kt_ck_finish(kt_store *s);
/* After an abort or a failed commit: reclaim what checkpoints committed. */
void kt_ck_undo(kt_store *s);
/* Whether run is marked unfinished in txn. */
int kt_unfinished_has(kt_store *s, MDB_txn *txn,
		      const unsigned char run[KT_RUN_BIN]);

/* ---- store_ahead.c ---- */
/* Decoding blocks ahead of a scan on helper threads (store_ahead.c).
 * kt_ahead_threads: how many helpers help, from the CPUs this process may
 * run on (0: none).  kt_ahead_open starts n (KT_ENOMEM when none starts);
 * kt_ahead_submit queues the decompression of a frame of raw_len bytes into
 * dst (with the dictionary content dict, dlen bytes, or none) and returns a
 * job number, or -1 when all KT_AHEAD_JOBS are taken; frame, dict and dst
 * must stay valid until kt_ahead_wait returns for that job (0, or
 * KT_ECORRUPT / KT_ENOMEM with *why a static text) or kt_ahead_close (which
 * joins the threads; queued jobs are dropped). */
#define KT_AHEAD_THREADS 3
#define KT_AHEAD_JOBS 16
#define KT_AHEAD_MIN_EVENTS 2048 /* smaller scans decode in their thread */
struct kt_ahead;
int kt_ahead_threads(void);
int kt_ahead_open(int nthreads, struct kt_ahead **out);
void kt_ahead_close(struct kt_ahead *a);
int kt_ahead_submit(struct kt_ahead *a, const void *frame, size_t flen,
		    size_t raw_len, const unsigned char *dict, size_t dlen,
		    unsigned char *dst);
int kt_ahead_wait(struct kt_ahead *a, int id, const char **why);

/* ---- store_codec.c ---- */
int kt_codec_acquire(void);
void kt_codec_release(void);
void *kt_cctx(void);
void *kt_dctx(void);
/* List the store's dictionary ids; each is digested on its first use.
 * 0, KT_ENOMEM, or an LMDB error. */
int kt_dicts_load(kt_store *s, MDB_txn *txn);
/* Digest every listed dictionary (verify): 0, KT_ECORRUPT ("bad
 * dictionary N", or a listed id that is gone), KT_ENOMEM, KT_EIO. */
int kt_dicts_check(kt_store *s);
/* The digested dictionary id (a ZSTD_DDict *, the handle's: valid until
 * the dictionaries are listed again) in *out.  0; KT_ECORRUPT when the
 * store has no such dictionary or it is damaged; KT_ENOMEM; KT_EIO. */
int kt_ddict_get(kt_store *s, uint32_t id, void **out);
/* Load the dictionaries again when txn holds a newer one than this handle
 * knows (another process trained it since). */
int kt_dicts_refresh(kt_store *s, MDB_txn *txn);
void kt_dicts_free(kt_store *s);
/* Compress src to dst (cap) with the newest dictionary; returns the frame
 * size (and its dictionary id in *dict), or 0 when the frame would not be
 * smaller than src. */
size_t kt_ev_compress(kt_store *s, const void *src, size_t n, void *dst,
		      size_t cap, uint32_t *dict);
/* The newest dictionary, digested for compression (the handle's, valid
 * until the dictionaries are listed again or freed), and its id in *dict;
 * NULL and 0 when the store has none (or it cannot be read). */
void *kt_ev_cdict(kt_store *s, uint32_t *dict);
/*
 * A CDict for compression at zstd level `level` with the dictionary
 * dict (len bytes, copied: the caller keeps its own) in one block ktraj
 * allocated and checked, never libzstd's own allocation (libzstd 1.5.4
 * crashes when that fails).  Returns NULL when memory is short or libzstd
 * rejects the dictionary; the caller then compresses without one.  Free
 * with kt_cdict_free (NULL is fine).  Frames are byte for byte those of a
 * ZSTD_createCDict(dict, len, level) (store_codec.c says how).
 */
void *kt_cdict_new(const void *dict, size_t len, int level);
void kt_cdict_free(void *cdict);
/* ZSTD_compress_usingCDict(cctx, dst, cap, src, n, cdict's CDict) as for
 * a ZSTD_createCDict one at KT_BLOCK_LEVEL; a zstd result (frame size or
 * error code, ZSTD_isError). */
size_t kt_cdict_compress(void *cctx, const void *cdict, const void *src,
			 size_t n, void *dst, size_t cap);
/* kt_ev_compress with compression context cctx (a ZSTD_CCtx *: the
 * caller's thread's own) and dictionary cdict (kt_ev_cdict, may be NULL)
 * of id `id`; touches no handle, so a worker thread may call it. */
size_t kt_ev_compress_with(void *cctx, void *cdict, uint32_t id,
			   const void *src, size_t n, void *dst, size_t cap,
			   uint32_t *dict);

/* ---- store_wblk.c: sealed event blocks compressed on a worker ----
 * While the importer fills the next block, a worker thread compresses the
 * one just sealed (at most one in flight: memory stays two blocks); the
 * LMDB put stays in the thread that owns the write transaction.  Every put
 * of KT_DB_BLOCKS, every read of it inside the write transaction (through
 * kt_ev_flush), the dictionary steps, commit, abort and close settle the
 * block in flight first, so the store's records and their order in
 * KT_DB_BLOCKS are those of the one-thread path. */
/* Hand the sealed block under key (KT_RUN_BIN + 9 bytes), header
 * hdr[0..hl) and raw bodies *raw to the worker: *raw is swapped with a
 * spare buffer (the caller's block goes on empty, its capacity kept).
 * Puts the block in flight before, if any.  0 taken; 1 not taken, no
 * worker can run (the thread or its context could not be made: write the
 * block in this thread); KT_ENOMEM or a put's code (nothing taken). */
int kt_wb_hand(kt_store *s, const unsigned char *key, const unsigned char *hdr,
	       size_t hl, struct kt_buf *raw);
/* kt_wb_hand for bodies src[0..n) the caller keeps unchanged until the
 * block is settled (the held blocks of kt_defer_flush). */
int kt_wb_lend(kt_store *s, const unsigned char *key, const unsigned char *hdr,
	       size_t hl, const unsigned char *src, size_t n);
/* Wait for the block in flight, if any, and put it: 0 or the put's code
 * (KT_ENOMEM, LMDB errors, KT_EBUSY without a write transaction). */
int kt_wb_settle(kt_store *s);
/* Wait for the block in flight and drop it (the transaction was aborted). */
void kt_wb_drop(kt_store *s);
/* Stop the worker and free its state (the block in flight dropped). */
void kt_wb_close(kt_store *s);

/* What is wrong with an event frame of n bytes that its block says decodes
 * to raw_len bytes with dictionary `dict` (FORMAT.md §7.1): 0 nothing,
 * KT_FRAME_SIZE its content size differs or claims more than zstd's block
 * format can expand to, KT_FRAME_DICT it names dictionary *id instead. */
#define KT_FRAME_SIZE 1
#define KT_FRAME_DICT 2
int kt_ev_frame_check(const void *src, size_t n, size_t raw_len,
		      uint32_t dict, unsigned *id);
/* Decompress one frame of content size raw_len into b at off (resized;
 * NUL appended).  `dict` is the id the block header names; the frame must
 * name the same. */
int kt_ev_decompress(kt_store *s, const void *src, size_t n, size_t raw_len,
		     uint32_t dict, struct kt_buf *b, size_t off);
/* Keep a body as a training sample; train when enough are kept. */
void kt_dict_sample(kt_store *s, const void *body, size_t n);
int kt_dict_maybe_train(kt_store *s);
/* Train the fresh store's dictionary now if enough samples are kept (the
 * deferred blocks are about to be written). */
int kt_dict_train_pending(kt_store *s);
/* Nonzero while sealed blocks are held back for a dictionary to come: the
 * store has none and this handle has not trained yet. */
int kt_dict_deferring(const kt_store *s);

/* ---- store_event.c ---- */
#define KT_CANON_PREFIX 26    /* fixed part of the canonical bytes */
void kt_chain_h0(unsigned char out[KT_HASH_LEN]);
void kt_chain_next(const unsigned char prev[KT_HASH_LEN], uint64_t seq,
		   const unsigned char ev[KT_HASH_LEN],
		   unsigned char out[KT_HASH_LEN]);
void kt_canon_prefix(unsigned char *p, int kind, uint64_t seq,
		     uint64_t parent, int64_t ts);

struct cJSON;
/* Paths index entries of an edit or tool_result event (parsed payload
 * pl), written with kt_put, or appended to s->pcollect when set as
 * be16 key length || key || u8 value length || value. */
int kt_index_paths(kt_store *s, const unsigned char run[KT_RUN_BIN],
		   const kt_event *ev, const struct cJSON *pl);

/* ---- store_layout.c: layout shared by append, reads and scans ---- */
/* Decoders of stored values (also the fuzz entry points). */
struct kt_blkview {
	int codec;
	uint32_t dict, n;
	uint64_t raw_len;
	const unsigned char *rows, *frame; /* rows: n (delta, len) varints */
	size_t rows_len, frame_len;
};
int kt_block_parse(const unsigned char *p, size_t n, int kind,
		   struct kt_blkview *b);
/* Parse and decompress a block value whose key seq is `first` into d. */
int kt_block_decode(kt_store *s, const unsigned char *p, size_t n, int kind,
		    uint64_t first, struct kt_dblk *d);
/* The same with `head` bytes of room before the first body (d->off[]
 * count from d->data.p, so d->off[0] = head); a NUL follows the last. */
int kt_block_decode_at(kt_store *s, const unsigned char *p, size_t n,
		       int kind, uint64_t first, struct kt_dblk *d,
		       size_t head);
void kt_dblk_free(struct kt_dblk *d);
struct kt_prow {
	int kind;
	uint64_t parent;
	int64_t ts;
};
/* Decode a page value: chain before its first seq and up to max rows;
 * *n gets the row count.  Errors: KT_ECORRUPT. */
int kt_page_parse(const unsigned char *p, size_t len, uint64_t first,
		  unsigned char chain[KT_HASH_LEN], struct kt_prow *rows,
		  uint32_t max, uint32_t *n);

#define BLK_HDR 6 /* codec, kind, be32 dict */
#define BLK_RAW_MAX ((uint64_t)KT_BLOCK_SEAL + KT_EVENT_MAX_BODY)

/* varints (LEB128, as protobuf: 7 bits a byte, low group first) */

static inline size_t put_uv(unsigned char *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (unsigned char)v;
	return n;
}

static inline int get_uv(const unsigned char **pp, const unsigned char *end,
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

static inline uint64_t zz(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t unzz(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Page row timestamp code (FORMAT.md §6.9): 0 unknown, 1 absolute be64
 * follows, else zigzag(ts - prev) + 2. */
static inline size_t put_ts(unsigned char *p, int64_t ts, int64_t *prev)
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


/* finding blocks and pages */
/* The ev_pages key of the page that holds seq. */
void kt_page_key(unsigned char k[KT_RUN_BIN + 8],
		 const unsigned char run[KT_RUN_BIN], uint64_t seq);
/* The ev_blocks entry (cursor c) of kind's stream that holds seq. */
int kt_block_find(kt_store *s, MDB_cursor *c,
		  const unsigned char run[KT_RUN_BIN], int kind,
		  uint64_t seq, MDB_val *k, MDB_val *v);
/* Decode the rows of block b (key seq first) into d, head bytes of room
 * before the first body. */
int kt_blk_rows(kt_store *s, const struct kt_blkview *b, uint64_t first,
		struct kt_dblk *d, size_t head);
/* Index of seq in decoded block d, -1 when it is not there. */
int kt_dblk_index(const struct kt_dblk *d, uint64_t seq);

/* ---- store_rcache.c: the read cache ---- */
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

/* The read cache of s, made on first use (NULL when out of memory). */
struct kt_rcache *kt_rcache_get(kt_store *s);
/* Free the read cache of s (the scan buffers stay with a running scan). */
void kt_rcache_free(kt_store *s);
struct kt_pentry **kt_pcache_slot(struct kt_rcache *r,
				  const unsigned char run[KT_RUN_BIN],
				  uint64_t pfirst);
void kt_pcache_clear(kt_store *s);
void kt_sbuf_free(struct kt_sbuf *sb);
/* Id of the snapshot reads see now; UINT64_MAX outside any transaction
 * (the next snapshot is at least as new as anything cached). */
uint64_t kt_cur_txnid(kt_store *s);

/* ---- store_scan.c: a scan (verify walks runs with it) ---- */
/* One kind's position in its stream during a scan. */
struct kiter {
	struct kt_sbuf sb;
	uint32_t pos;
};

struct kt_scan {
	kt_store *s;
	MDB_txn *txn;
	MDB_cursor *c;
	const unsigned char *run;
	struct kiter it[KT_KIND_MAX_ + 1];
	uint64_t kind_events[KT_KIND_MAX_ + 1]; /* events seen per kind */
	int strict;          /* verify: full pages, checkpoints compared */
	unsigned head_kinds; /* kinds whose events come as headers only
				(kt_event_scan_mixed), without KT_READ_HASH */
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

int kt_scan_open(struct kt_scan *sc, kt_store *s, MDB_txn *txn,
		 const unsigned char *run);
void kt_scan_close(struct kt_scan *sc);
/* Walk seqs first..last of a run of n events in seq order, the chain
 * recomputed into chain (strict: compared with every checkpoint). */
int kt_scan_run(struct kt_scan *sc, uint64_t n, uint64_t first,
		uint64_t last, unsigned kinds, unsigned how,
		unsigned char chain[KT_HASH_LEN],
		int (*fn)(const kt_event *, void *), void *arg);
int kt_head_mismatch(kt_store *s, uint64_t n, uint64_t *bad_seq);

/* ---- store_append.c ---- */
/* Add an appended event to the open state of its run. */
int kt_ev_add(kt_store *s, const unsigned char run[KT_RUN_BIN],
	      const kt_event *ev, const unsigned char *body, size_t bl,
	      const unsigned char chain[KT_HASH_LEN]);
/* Make the open state that of run (loading it); *n and head get its last
 * seq and chain.  Errors: KT_ENOTFOUND (no run). */
int kt_ev_use_run(kt_store *s, const unsigned char run[KT_RUN_BIN]);
/* Write the open append state (blocks, page, run record) into the write
 * txn; a no-op when nothing is pending. */
int kt_ev_flush(kt_store *s);
/* Forget the append state (abort) and, with `cache`, the block cache. */
void kt_ev_forget(kt_store *s, int cache);
/* Write the deferred blocks (struct kt_dfblk), compressed with the newest
 * dictionary, training it first when enough samples are kept. */
int kt_defer_flush(kt_store *s);
/* Drop the deferred blocks (the txn is aborted). */
void kt_defer_drop(kt_store *s);

/* ---- store_bcache.c: the block cache ---- */
/* The decoded block of kind's stream holding seq, from the block cache
 * or decoded into it; *idx its row. */
int kt_block_for(kt_store *s, MDB_txn *txn,
		 const unsigned char run[KT_RUN_BIN], int kind,
		 uint64_t seq, const struct kt_dblk **out, int *idx);
struct kt_centry *kt_bcache_find(kt_store *s, const unsigned char *k);
void kt_cblk_free(struct kt_centry *e);
/* Free the block cache and the read cache with it: the read cache's
 * page count follows the budget, so kt_store_set_cache remakes both. */
void kt_cache_free(kt_store *s);

/* ---- store_read.c: point reads, and what scans share with them ---- */
/* The run record of `run` into *v.  KT_ENOTFOUND when absent, with the
 * message "no run NAME" when `name` is given (callers that probe pass NULL
 * and say nothing). */
int kt_run_rec(kt_store *s, MDB_txn *txn, const unsigned char run[KT_RUN_BIN],
	       const char *name, MDB_val *v);
/* n_events and head of a run in txn; KT_ENOTFOUND when there is none. */
int kt_run_n(kt_store *s, MDB_txn *txn, const unsigned char run[KT_RUN_BIN],
	     uint64_t *n, unsigned char head[KT_HASH_LEN]);
/* The ev_pages value of the page holding seq. */
int kt_page_get(kt_store *s, MDB_txn *txn,
		const unsigned char run[KT_RUN_BIN], uint64_t seq,
		MDB_val *v);
int kt_ev_build(kt_store *s, uint64_t seq, const struct kt_prow *row,
		const unsigned char *body, size_t bl, struct kt_buf *b);
void kt_ev_head_fill(kt_event *ev, uint64_t seq, const struct kt_prow *r);
int kt_ev_body_view(kt_store *s, kt_event *ev, const unsigned char *p,
		    size_t bl, struct kt_buf *buf);

/* ---- store_verify.c ---- */
/* The checksum of a run record (FORMAT.md §6.10) into sum; rec must have
 * passed kt_runrec_tail. */
void kt_runrec_sum(const unsigned char run[KT_RUN_BIN], const MDB_val *rec,
		   unsigned char sum[KT_HASH_LEN]);
/* Check rec (the run record of run) against its checksum: 0 with *have 1
 * when it matches, 0 with *have 0 when the run has none, KT_ECORRUPT. */
int kt_runrec_check(kt_store *s, MDB_txn *txn,
		    const unsigned char run[KT_RUN_BIN], const MDB_val *rec,
		    int *have);
/* Verify what kt_store_verify's chain pass does not cover for one run:
 * its record's checksum, its run_names entry and its paths index rebuilt
 * from its events.  *bad_seq gets the first event whose paths differ. */
int kt_verify_run_records(kt_store *s, MDB_txn *txn,
			  const unsigned char run[KT_RUN_BIN],
			  uint64_t *bad_seq);
/* Whole store: every run_names, run_sums and paths key names a run that
 * exists (and run_names the run's name); s->bad_run gets the run. */
int kt_verify_store_records(kt_store *s, MDB_txn *txn);

/* ---- store_refs.c ---- */
/* The first event of `run` (NULL: of every run, in key order) whose payload
 * names blob `hash` in a reference field (FORMAT.md "Blob references"):
 * 0 with out = its run id, *seq and what = 'edit "after"' (wl bytes);
 * KT_ENOTFOUND when none does.  One BODY scan of the runs, parsing only
 * payloads that hold the hex text; for verify's message.  Errors as
 * kt_event_scan. */
int kt_blobref_find(kt_store *s, const char *run,
		    const unsigned char hash[KT_HASH_LEN],
		    char out[KT_RUN_ID_HEX + 1], uint64_t *seq, char *what,
		    size_t wl);
/* Append to refs the 32-byte hashes of every "<64 hex>" JSON string of
 * p[0..n): the blobs a payload may reference.  0 or KT_ENOMEM. */
int kt_collect_refs(const char *p, size_t n, struct kt_buf *refs);
/* Sort and deduplicate the hashes of refs; returns their count. */
size_t kt_refs_uniq(struct kt_buf *refs);
/* A kt_event_scan callback: kt_collect_refs of the event's payload into
 * arg (a struct kt_buf *; NULL collects nothing). */
int kt_refs_cb(const kt_event *ev, void *arg);

/* The ids of one run (NULL: of every run, in key order) into l (free
 * l->id); kt_run_get's and kt_run_foreach's errors. */
struct kt_runlist {
	char (*id)[KT_RUN_ID_HEX + 1];
	size_t n, cap;
};
int kt_run_list(kt_store *s, const char *run, struct kt_runlist *l);

/* ---- store_pages.c ---- */
/* Where the bytes of an LMDB data file come from: fd (pread), or mem when
 * fd is -1 (the fuzz target); size bytes in all. */
struct kt_pgsrc {
	int fd;
	const unsigned char *mem;
	uint64_t size;
};
#define KT_PAGES_NEWEST UINT64_MAX
/* Check the structure of every LMDB page that the snapshot of transaction
 * `want` (KT_PAGES_NEWEST: the meta page LMDB picks at open) reaches, as
 * the comment atop store_pages.c lists, or with metas_only the two meta
 * pages alone; *txnid gets the snapshot.  0; KT_ECORRUPT with why (wl
 * bytes) naming the page and what is wrong; KT_EBUSY when no meta page
 * holds `want` any more; KT_EIO, KT_ENOMEM.  Touches no LMDB handle: safe
 * on any bytes.  Pages of a snapshot no read transaction holds may be
 * reused by a writer meanwhile: check a live store's pages through
 * kt_pages_pin. */
int kt_pages_check_src(const struct kt_pgsrc *src, uint64_t want,
		       int metas_only, uint64_t *txnid, char *why, size_t wl);
/* The meta pages of the store's file, before mdb_env_open trusts their
 * page size; the errmsg names the file and the page. */
int kt_pages_check_metas(kt_store *s);
/* A handle opened with KT_OPEN_CHECK: check the pages of the snapshot of
 * read txn `txn` (which holds them in place) unless it is the one checked
 * last (a writable handle: unless any was checked, at open), renewing txn
 * when a writer overwrote its meta page meanwhile; the errmsg names the
 * file and the page.  0 at once without KT_OPEN_CHECK. */
int kt_pages_pin(kt_store *s, MDB_txn *txn);

/* ---- store_blob.c ---- */
/* Forget every cached blob content (after an abort, before verify). */
void kt_bc_invalidate(kt_store *s);
void kt_bc_free(kt_store *s);
/* Check every blob (or only `only`, n hashes) decodes to its hash;
 * *bad gets the first bad hash. */
int kt_blob_verify(kt_store *s, const unsigned char *only, size_t n,
		   unsigned char bad[KT_HASH_LEN]);
int kt_blob_stats(kt_store *s, MDB_txn *txn, kt_store_stats *st);

#endif
