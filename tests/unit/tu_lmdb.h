/*
 * tu_lmdb.h - for the store's unit tests: damage a stored value through
 * LMDB's own API, below the store, the way a bad disk or a stray writer
 * would.  Include after testutil.h.
 */
#ifndef KT_TU_LMDB_H
#define KT_TU_LMDB_H
#include <lmdb.h>

/* LMDB's environment of the store file at path, writable, with room for
 * the store's named databases; the caller closes it. */
static inline MDB_env *tu_env_open(const char *path)
{
	MDB_env *env;

	assert_int_equal(mdb_env_create(&env), 0);
	mdb_env_set_maxdbs(env, 16);
	mdb_env_set_mapsize(env, 1ull << 30);
	assert_int_equal(mdb_env_open(env, path, MDB_NOSUBDIR, 0644), 0);
	return env;
}

/* XOR byte off of the value of key (kl bytes) in named database db of the
 * store file at path with mask, in a transaction of its own. */
static inline void tu_flip_value(const char *path, const char *db,
				 const void *key, size_t kl, size_t off,
				 unsigned char mask)
{
	MDB_env *env = tu_env_open(path);
	MDB_txn *txn;
	MDB_dbi dbi;
	MDB_val k = { kl, (void *)key }, v, nv;
	unsigned char *copy;

	assert_int_equal(mdb_txn_begin(env, NULL, 0, &txn), 0);
	assert_int_equal(mdb_dbi_open(txn, db, 0, &dbi), 0);
	assert_int_equal(mdb_get(txn, dbi, &k, &v), 0);
	assert_true(off < v.mv_size);
	copy = malloc(v.mv_size);
	assert_non_null(copy);
	memcpy(copy, v.mv_data, v.mv_size);
	copy[off] ^= mask;
	nv.mv_size = v.mv_size;
	nv.mv_data = copy;
	assert_int_equal(mdb_put(txn, dbi, &k, &nv, 0), 0);
	assert_int_equal(mdb_txn_commit(txn), 0);
	mdb_env_close(env);
	free(copy);
}
#endif
