/*
 * tu_lmdb.h - for the store's unit tests: damage a stored value through
 * LMDB's own API, below the store, the way a bad disk or a stray writer
 * would, or compare two stores record by record.  Include after
 * testutil.h.
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

/* The names of the store's databases (LMDB's main database lists them). */
static inline int tu_db_names(MDB_txn *t, char names[][64], int max)
{
	MDB_dbi top;
	MDB_cursor *c;
	MDB_val k, v;
	int n = 0;

	assert_int_equal(mdb_dbi_open(t, NULL, 0, &top), 0);
	assert_int_equal(mdb_cursor_open(t, top, &c), 0);
	while (n < max && mdb_cursor_get(c, &k, &v, n ? MDB_NEXT : MDB_FIRST) == 0) {
		assert_true(k.mv_size < 64);
		memcpy(names[n], k.mv_data, k.mv_size);
		names[n][k.mv_size] = 0;
		n++;
	}
	mdb_cursor_close(c);
	return n;
}

/* Every record of named database db alike in the stores of ta and tb;
 * returns how many.  Two stores written apart differ in the run record's
 * creation time (its first 8 bytes, the clock when the run was made) and
 * in the run summary hash over it: those are left out. */
static inline size_t tu_same_records(MDB_txn *ta, MDB_txn *tb, const char *db)
{
	MDB_dbi da, dbb;
	MDB_cursor *ca, *cb;
	MDB_val ka, va, kb, vb;
	int ra, rb, first = 1;
	size_t n = 0, skip = 0;

	if (!strcmp(db, "runs"))
		skip = 8; /* the creation time: when each import ran */
	assert_int_equal(mdb_dbi_open(ta, db, 0, &da), 0);
	assert_int_equal(mdb_dbi_open(tb, db, 0, &dbb), 0);
	assert_int_equal(mdb_cursor_open(ta, da, &ca), 0);
	assert_int_equal(mdb_cursor_open(tb, dbb, &cb), 0);
	for (;;) {
		ra = mdb_cursor_get(ca, &ka, &va, first ? MDB_FIRST : MDB_NEXT);
		rb = mdb_cursor_get(cb, &kb, &vb, first ? MDB_FIRST : MDB_NEXT);
		first = 0;
		assert_int_equal(ra, rb);
		if (ra)
			break;
		n++;
		assert_int_equal(ka.mv_size, kb.mv_size);
		assert_memory_equal(ka.mv_data, kb.mv_data, ka.mv_size);
		if (!strcmp(db, "run_sums"))
			continue; /* a hash over the run record, time included */
		assert_int_equal(va.mv_size, vb.mv_size);
		assert_true(va.mv_size >= skip);
		if (memcmp((char *)va.mv_data + skip, (char *)vb.mv_data + skip,
			   va.mv_size - skip))
			fail_msg("%s: record %zu differs", db, n);
	}
	mdb_cursor_close(ca);
	mdb_cursor_close(cb);
	return n;
}

/* Every named database of the store files at pa and pb alike, record by
 * record as tu_same_records sees them (a failed assertion where not);
 * returns how many records database `count` holds in each (e.g.
 * "ev_blocks", "runs"), or -1 where the stores have no such database.
 * Both files must be closed by the store beforehand: this opens LMDB's
 * environments itself. */
static inline long tu_same_stores(const char *pa, const char *pb,
				  const char *count)
{
	char names[32][64];
	MDB_env *ea = tu_env_open(pa), *eb = tu_env_open(pb);
	MDB_txn *ta, *tb;
	long blocks = -1;
	int n;

	assert_int_equal(mdb_txn_begin(ea, NULL, MDB_RDONLY, &ta), 0);
	assert_int_equal(mdb_txn_begin(eb, NULL, MDB_RDONLY, &tb), 0);
	n = tu_db_names(ta, names, 32);
	assert_int_equal(tu_db_names(tb, names, 32), n);
	for (int i = 0; i < n; i++) {
		size_t k = tu_same_records(ta, tb, names[i]);

		if (!strcmp(names[i], count))
			blocks = (long)k;
	}
	mdb_txn_abort(ta);
	mdb_txn_abort(tb);
	mdb_env_close(ea);
	mdb_env_close(eb);
	return blocks;
}

#endif
