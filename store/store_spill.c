/*
 * store_spill.c - an importer's id sets past their memory budget
 * (spill.h): a temporary LMDB environment, unlinked once open.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spill.h"
#include "store_int.h"

/* Puts per write transaction: LMDB copies each page a put dirties into
 * its own memory until the commit, and ids are random keys, so about one
 * 4 KiB page per put: 1024 puts hold at most ~4 MiB (the importer puts
 * in key order, so neighbours share a leaf and it is less). */
#define KT_SPILL_TXN 1024u
/* Lookups and puts between two drops of the map's resident pages: each
 * touches about one leaf page of its own, so at most ~16 MiB of the map
 * is resident at any time, whatever the file's size. */
#define KT_SPILL_TOUCH 4096u

struct kt_spill {
	MDB_env *env;
	MDB_dbi dbi;
	MDB_txn *txn;       /* the open write transaction, NULL between */
	unsigned puts;      /* puts in txn */
	unsigned touch;     /* operations since the map was given back */
	struct kt_envmap map; /* where env's map lies */
	size_t maxkey;
};

static int mdb_code(int rc)
{
	if (rc == MDB_NOTFOUND)
		return KT_ENOTFOUND;
	if (rc == MDB_MAP_FULL)
		return KT_ELIMIT;
	if (rc == ENOMEM)
		return KT_ENOMEM;
	if (rc > 0)
		errno = rc;
	return KT_EIO;
}

int kt_spill_open(kt_spill **out)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	kt_spill *sp;
	int fd, rc;

	*out = NULL;
	if (!dir || !*dir)
		dir = "/tmp";
	if ((size_t)snprintf(path, sizeof(path), "%s/ktraj-ids-XXXXXX", dir) >=
	    sizeof(path)) {
		errno = ENAMETOOLONG;
		return KT_EIO;
	}
	/* a unique name for LMDB to open; it takes an empty file as new */
	if ((fd = mkostemp(path, O_CLOEXEC)) < 0)
		return KT_EIO;
	close(fd);
	if (!(sp = calloc(1, sizeof(*sp)))) {
		unlink(path);
		return KT_ENOMEM;
	}
	/* no lock file (one process, one thread), no fsync (the file dies
	 * with the process), no read-ahead (lookups are random); a map far
	 * bigger than any import's ids (a read-only file map costs address
	 * space only), smaller where the address space is limited */
	for (size_t map = sizeof(size_t) > 4 ? (size_t)1 << 40 : (size_t)1 << 30;;
	     map >>= 2) {
		if ((rc = mdb_env_create(&sp->env)) == 0 &&
		    (rc = kt_env_resize(sp->env, &sp->map, map)) == 0 &&
		    (rc = mdb_env_open(sp->env, path, MDB_NOSUBDIR | MDB_NOLOCK |
				       MDB_NOSYNC | MDB_NORDAHEAD | MDB_NOTLS,
				       0600)) == 0)
			break;
		if (sp->env)
			mdb_env_close(sp->env);
		sp->env = NULL;
		if (rc != ENOMEM || map <= (size_t)1 << 28) {
			unlink(path);
			kt_spill_close(sp);
			return mdb_code(rc);
		}
	}
	/* open: the name can go, the file lives as long as the map */
	unlink(path);
	sp->maxkey = (size_t)mdb_env_get_maxkeysize(sp->env);
	if ((rc = mdb_txn_begin(sp->env, NULL, 0, &sp->txn)) != 0 ||
	    (rc = mdb_dbi_open(sp->txn, NULL, 0, &sp->dbi)) != 0) {
		kt_spill_close(sp);
		return mdb_code(rc);
	}
	*out = sp;
	return 0;
}

/* The LMDB key of (set, key) into k (1 + maxkey bytes at most): the tag
 * then the id, or tag | 0x80 then the id's SHA-256 when it is too long. */
static size_t spill_key(const kt_spill *sp, unsigned set, const char *key,
			unsigned char *k)
{
	size_t n = strlen(key);

	if (n + 1 <= sp->maxkey) {
		k[0] = (unsigned char)set;
		memcpy(k + 1, key, n);
		return n + 1;
	}
	k[0] = (unsigned char)(set | 0x80u);
	kt_sha256(key, n, k + 1);
	return 1 + KT_HASH_LEN;
}

/* The write transaction for the next operation, the map given back
 * every KT_SPILL_TOUCH operations (no pointer into it is held here). */
static int spill_txn(kt_spill *sp)
{
	int rc;

	if (++sp->touch >= KT_SPILL_TOUCH) {
		sp->touch = 0;
		kt_env_give_back(sp->env, &sp->map);
	}
	if (sp->txn)
		return 0;
	rc = mdb_txn_begin(sp->env, NULL, 0, &sp->txn);
	return rc ? mdb_code(rc) : 0;
}

int kt_spill_put(kt_spill *sp, unsigned set, const char *key,
		 const void *val, size_t n)
{
	unsigned char k[1 + 512];
	MDB_val mk, mv;
	int rc;

	if (!sp || !key || set > 0x7f || n > 64 || sp->maxkey > 512)
		return KT_EINVAL;
	if ((rc = spill_txn(sp)) != 0)
		return rc;
	mk.mv_data = k;
	mk.mv_size = spill_key(sp, set, key, k);
	mv.mv_data = (void *)val;
	mv.mv_size = n;
	if ((rc = mdb_put(sp->txn, sp->dbi, &mk, &mv, 0)) != 0) {
		mdb_txn_abort(sp->txn);
		sp->txn = NULL;
		return mdb_code(rc);
	}
	if (++sp->puts >= KT_SPILL_TXN) {
		sp->puts = 0;
		rc = mdb_txn_commit(sp->txn);
		sp->txn = NULL;
		if (rc)
			return mdb_code(rc);
	}
	return 0;
}

int kt_spill_get(kt_spill *sp, unsigned set, const char *key, void *val,
		 size_t cap, size_t *n)
{
	unsigned char k[1 + 512];
	MDB_val mk, mv;
	int rc;

	if (!sp || !key || set > 0x7f || sp->maxkey > 512)
		return KT_EINVAL;
	if ((rc = spill_txn(sp)) != 0)
		return rc;
	mk.mv_data = k;
	mk.mv_size = spill_key(sp, set, key, k);
	if ((rc = mdb_get(sp->txn, sp->dbi, &mk, &mv)) != 0)
		return mdb_code(rc);
	if (cap)
		memcpy(val, mv.mv_data, mv.mv_size < cap ? mv.mv_size : cap);
	if (n)
		*n = mv.mv_size;
	return 0;
}

void kt_spill_close(kt_spill *sp)
{
	if (!sp)
		return;
	if (sp->txn)
		mdb_txn_abort(sp->txn);
	if (sp->env)
		mdb_env_close(sp->env);
	free(sp);
}
