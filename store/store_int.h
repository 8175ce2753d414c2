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
#include "store.h"

/* The named databases (FORMAT.md "Databases").  maxdbs derives from this
 * table so a new DB can never overflow it at run time. */
#define KT_DBS(X) \
	X(META, "meta") \
	X(RUNS, "runs") \
	X(NAMES, "run_names") \
	X(EVENTS, "events") \
	X(BLOBS, "blobs") \
	X(HEADS, "blob_heads") \
	X(PATHS, "paths") \
	X(DICTS, "dicts")
#define KT_DB_ENUM(e, n) KT_DB_##e,
enum { KT_DBS(KT_DB_ENUM) KT_DB_COUNT };

#define KT_MAP_INITIAL (64ull << 20)
#define KT_MAP_LIMIT (1ull << 40)
#define KT_RUN_BIN 16          /* run id bytes in keys */
#define KT_PATH_MAX_KEY 400    /* longest path indexed (bytes) */
#define KT_NAME_MAX_KEY 400    /* longest name prefix indexed */
#define KT_EVENT_MAX_BODY (64u << 20)
#define KT_BLOB_MAX ((size_t)1 << 30)

/* event value header (FORMAT.md "events") */
#define KT_EV_HDR 88
#define KT_CODEC_RAW 0
#define KT_CODEC_ZSTD 1
#define KT_CODEC_ZDELTA 2     /* blobs only */

/* zstd dictionary ids: outside the range zstd reserves for a registrar */
#define KT_DICT_ID_BASE 32768u
#define KT_DICT_FIRST_AT 2000u   /* events in store before the first dict */
#define KT_DICT_SIZE (512u * 1024)

struct kt_dict {
	uint32_t id;
	void *cdict;   /* ZSTD_CDict*, created lazily */
	void *ddict;   /* ZSTD_DDict* */
};

struct kt_buf {
	unsigned char *p;
	size_t len, cap;
};

struct kt_store {
	MDB_env *env;
	MDB_dbi dbi[KT_DB_COUNT];
	unsigned flags;
	char *path;
	uint64_t mapsize;

	MDB_txn *wtxn;         /* open write transaction or NULL */
	MDB_txn *rtxn;         /* reusable read transaction (reset when idle) */
	int rdepth;            /* nesting of read users of rtxn */
	struct kt_buf wlog;    /* puts of the open write txn, for map growth */
	uint64_t grows;        /* times the map grew (tests) */

	/* append state for the run last appended to in the open txn */
	int app_valid;
	unsigned char app_run[KT_RUN_BIN];
	uint64_t app_seq;
	unsigned char app_chain[KT_HASH_LEN];
	uint64_t txn_events;   /* events appended in the open txn */

	/* dictionaries (loaded at open and after training) */
	struct kt_dict *dicts;
	size_t ndicts;

	/* blob reconstruction cache: the last blob read or written */
	unsigned char bc_hash[KT_HASH_LEN];
	int bc_valid;
	struct kt_buf bc;

	struct kt_buf evbuf;   /* kt_event_get results */
	struct kt_buf tmp;     /* scratch */
	char *run_name, *run_format, *run_meta; /* kt_run_get results */
	char bad_run[KT_RUN_ID_HEX + 1];
	char err[256];
};

/* ---- store.c ---- */
int kt_err(kt_store *s, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int kt_mdb_err(kt_store *s, int rc, const char *what);
int kt_put(kt_store *s, int db, const void *k, size_t kl, const void *v,
	   size_t vl, unsigned flags);
/* A read transaction: the open write txn, or the handle's read txn (nested
 * users share it).  Pass kt_rd_end the txn kt_rd_begin gave. */
int kt_rd_begin(kt_store *s, MDB_txn **txn);
void kt_rd_end(kt_store *s, MDB_txn *txn);
int kt_buf_reserve(struct kt_buf *b, size_t n);
int kt_run_bin(kt_store *s, const char *id, unsigned char bin[KT_RUN_BIN]);

/* ---- store_codec.c ---- */
int kt_codec_acquire(void);
void kt_codec_release(void);
void *kt_cctx(void);
void *kt_dctx(void);
int kt_dicts_load(kt_store *s, MDB_txn *txn);
void kt_dicts_free(kt_store *s);
/* Compress src to dst (cap) with the newest dictionary; returns the frame
 * size, or 0 when the frame would not be smaller than src. */
size_t kt_ev_compress(kt_store *s, const void *src, size_t n, void *dst,
		      size_t cap);
/* Decompress one event frame into b (resized; NUL appended). */
int kt_ev_decompress(kt_store *s, const void *src, size_t n, size_t raw_len,
		     struct kt_buf *b, size_t off);
int kt_dict_maybe_train(kt_store *s);

/* ---- store_event.c ---- */
#define KT_CANON_PREFIX 26    /* fixed part of the canonical bytes */
void kt_chain_h0(unsigned char out[KT_HASH_LEN]);
int kt_run_tail(kt_store *s, MDB_txn *txn, const unsigned char bin[KT_RUN_BIN],
		uint64_t *seq, unsigned char chain[KT_HASH_LEN]);

/* ---- store_blob.c ---- */
/* Check every blob (or only `only`, n hashes) decodes to its hash;
 * *bad gets the first bad hash. */
int kt_blob_verify(kt_store *s, const unsigned char *only, size_t n,
		   unsigned char bad[KT_HASH_LEN]);
int kt_blob_stats(kt_store *s, MDB_txn *txn, kt_store_stats *st);

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

#endif
