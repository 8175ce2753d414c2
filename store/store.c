/*
 * store.c - the LMDB environment: open/close, transactions with automatic
 * map growth, shared helpers.  Runs (their records, names and resolving)
 * are store_run.c.
 *
 * Databases (FORMAT.md "Databases" is normative):
 *   meta        ASCII name           -> small value ("format" = be32 version)
 *   runs        run[16]              -> be64 created | be16 n name | be16 n
 *                                       format | be32 n meta_json | be64
 *                                       n_events | head[32]
 *   run_names   name || 00 || run[16] -> empty
 *   ev_blocks   run[16] || kind || be64 first seq -> block of bodies
 *   ev_pages    run[16] || be64 first seq -> checkpoint + header rows
 *   blobs       sha256[32]           -> codec | depth | ... (store_blob.c)
 *   blob_heads  path hint            -> sha256[32] of its newest version
 *   paths       run || path || 00 || be64 seq -> state | sha256[32]
 *   dicts       be32 dict id         -> zstd dictionary
 *
 * Map growth: LMDB fails a put or commit with MDB_MAP_FULL when the map is
 * too small.  The transaction is then unusable, so every put of the open
 * transaction is also appended to a write log; on MDB_MAP_FULL the store
 * aborts, doubles the map (mdb_env_set_mapsize, allowed when no transaction
 * is active, lmdb.h), begins again and replays the log.  The replayed
 * transaction holds exactly what the failed one held, so callers never see
 * the failure.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "store_int.h"

const char *kt_store_default_path(const char *cli_path)
{
	const char *e;

	if (cli_path && *cli_path)
		return cli_path;
	e = getenv("KTRAJ_STORE");
	if (e && *e)
		return e;
	return KT_DEFAULT_STORE;
}

const char *kt_store_errmsg(const kt_store *s)
{
	return s ? s->err : "";
}

int kt_store_nospace(const kt_store *s)
{
	return s ? s->nospace : 0;
}

int kt_store_is_own_file(const kt_store *s, const struct stat *st)
{
	if (!s || !st)
		return 0;
	for (int i = 0; i < s->nown; i++)
		if (s->own[i].dev == st->st_dev && s->own[i].ino == st->st_ino)
			return 1;
	return 0;
}

/* Remember which files are the store's own (kt_store_is_own_file): the
 * data file LMDB holds open, and "<path>-lock" as it is now (absent when
 * the store was opened without its lock and there is none). */
static void own_files(kt_store *s)
{
	struct stat o;
	mdb_filehandle_t fd;
	char *lock;

	s->nown = 0;
	if (mdb_env_get_fd(s->env, &fd) == 0 && fstat(fd, &o) == 0) {
		s->own[s->nown].dev = o.st_dev;
		s->own[s->nown++].ino = o.st_ino;
	}
	if (!(lock = malloc(strlen(s->path) + 6)))
		return;
	sprintf(lock, "%s-lock", s->path);
	if (stat(lock, &o) == 0) {
		s->own[s->nown].dev = o.st_dev;
		s->own[s->nown++].ino = o.st_ino;
	}
	free(lock);
}

/* ns of a stat's modification time */
static int64_t mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

int kt_store_changed(kt_store *s)
{
	struct stat st;

	if (!s || !s->nolock)
		return 0;
	return stat(s->path, &st) || (int64_t)st.st_size != s->mark_size ||
	       mtime_ns(&st) != s->mark_mtime_ns;
}

int kt_err(kt_store *s, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	/* without the lock, a writer may reuse a page this handle still
	 * reads (lmdb.h MDB_NOLOCK): a failed check after the file changed
	 * is no proof of damage */
	if (code == KT_ECORRUPT && kt_store_changed(s))
		code = KT_ECHANGED;
	return code;
}

/* Whether the file system holding path has (almost) no room left.  LMDB
 * reports a short write of its commit as EIO (mdb.c mdb_page_flush: "TODO:
 * Use which error code?"), which a full disk gives; the room left tells the
 * two apart. */
static int disk_full(const char *path)
{
	char *dir = kt_xstrdup(path), *sl;
	struct statvfs v;
	int full = 0;

	if (!dir)
		return 0;
	sl = strrchr(dir, '/');
	if (sl)
		*(sl == dir ? sl + 1 : sl) = 0;
	if (statvfs(sl ? dir : ".", &v) == 0)
		full = (unsigned long long)v.f_bavail * v.f_frsize < (1ull << 20);
	free(dir);
	return full;
}

int kt_mdb_err(kt_store *s, int rc, const char *what)
{
	int code = KT_EIO;

	if ((rc == EIO || rc == ENOSPC) && s && disk_full(s->path)) {
		s->nospace = 1;
		return kt_err(s, code, "%s: %s", what, strerror(ENOSPC));
	}

	switch (rc) {
	case 0:
		return 0;
	case MDB_NOTFOUND:
		code = KT_ENOTFOUND;
		break;
	case MDB_KEYEXIST:
		code = KT_EEXIST;
		break;
	case MDB_CORRUPTED:
	case MDB_PAGE_NOTFOUND:
	case MDB_INVALID:
	case MDB_BAD_VALSIZE:
		code = KT_ECORRUPT;
		break;
	case MDB_VERSION_MISMATCH:
		code = KT_EVERSION;
		break;
	case ENOMEM:
		code = KT_ENOMEM;
		break;
	case EACCES:
	case EROFS:
		code = KT_ERDONLY;
		break;
	}
	return kt_err(s, code, "%s: %s", what, mdb_strerror(rc));
}

int kt_big_reserve(struct kt_big *b, size_t n)
{
	size_t cap;
	void *m;

	if (n <= b->cap)
		return 0;
	cap = b->cap ? b->cap : (size_t)4 << 20;
	while (cap < n) {
		if (cap > SIZE_MAX / 2)
			return KT_ENOMEM;
		cap *= 2;
	}
	if (b->p)
		m = mremap(b->p, b->cap, cap, MREMAP_MAYMOVE);
	else
		m = mmap(NULL, cap, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return KT_ENOMEM;
#ifdef MADV_HUGEPAGE
	(void)madvise(m, cap, MADV_HUGEPAGE);
#endif
	b->p = m;
	b->cap = cap;
	return 0;
}

void kt_big_free(struct kt_big *b)
{
	if (b->p)
		munmap(b->p, b->cap);
	memset(b, 0, sizeof(*b));
}

/* ---- environment --------------------------------------------------------- */

const char *const kt_db_names[KT_DB_COUNT] = {
#define KT_DB_NAME(e, n, added) n,
	KT_DBS(KT_DB_NAME)
#undef KT_DB_NAME
};
const unsigned char kt_db_added[KT_DB_COUNT] = {
#define KT_DB_ADD(e, n, added) added,
	KT_DBS(KT_DB_ADD)
#undef KT_DB_ADD
};

static int check_format(kt_store *s, MDB_txn *txn, int *absent);

/* What LMDB's main database lists, walked with a cursor: a cursor steps
 * through the entries as stored, where a lookup (mdb_dbi_open) takes a
 * binary search that keys out of order send astray. */
struct mainlist {
	int ours;              /* entries named as one of ktraj's databases */
	unsigned listed;       /* bit i: kt_db_names[i] is one of them */
	char other[48];        /* the first entry of another name */
	char order[100];       /* "'A' before 'B'": the first key below the
				  one before it */
};

/* A key as text for a message: bytes outside printable ASCII as '?'. */
static void key_text(char *out, size_t cap, const MDB_val *k)
{
	const unsigned char *p = k->mv_data;
	size_t i;

	for (i = 0; i < k->mv_size && i + 1 < cap; i++)
		out[i] = p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\'' ?
			 (char)p[i] : '?';
	out[i] = 0;
}

static void main_list(MDB_txn *txn, struct mainlist *ml)
{
	MDB_cursor *c;
	MDB_val k, v, prev = { 0, NULL };
	int op = MDB_FIRST;

	memset(ml, 0, sizeof(*ml));
	if (mdb_cursor_open(txn, 1 /* MAIN_DBI */, &c) != 0)
		return;
	while (mdb_cursor_get(c, &k, &v, op) == 0) {
		size_t n = prev.mv_size < k.mv_size ? prev.mv_size : k.mv_size;
		int cmp = prev.mv_data ? memcmp(prev.mv_data, k.mv_data, n) : -1;
		int i;

		op = MDB_NEXT;
		/* LMDB's default order: memcmp, then the shorter first */
		if (prev.mv_data && !ml->order[0] &&
		    (cmp > 0 || (cmp == 0 && prev.mv_size >= k.mv_size))) {
			char a[40], b[40];

			key_text(a, sizeof(a), &prev);
			key_text(b, sizeof(b), &k);
			snprintf(ml->order, sizeof(ml->order),
				 "'%s' before '%s'", a, b);
		}
		prev = k;
		for (i = 0; i < KT_DB_COUNT; i++)
			if (k.mv_size == strlen(kt_db_names[i]) &&
			    !memcmp(k.mv_data, kt_db_names[i], k.mv_size))
				break;
		if (i < KT_DB_COUNT) {
			ml->ours++;
			ml->listed |= 1u << i;
		} else if (!ml->other[0]) {
			key_text(ml->other, sizeof(ml->other), &k);
		}
	}
	mdb_cursor_close(c);
}

/*
 * Database i of ktraj's is not in LMDB's main database (rc MDB_NOTFOUND)
 * or not a database there (MDB_INCOMPATIBLE).  Another program's LMDB
 * file, or a damaged store?  One flipped bit in the page that lists the
 * databases hides a name, or with its keys out of order several from a
 * lookup, but leaves the other names in place, where another program's
 * file lists none of ours, or one by coincidence ("meta", "paths").  So a
 * format record or two of ktraj's names make it a damaged store
 * (FORMAT.md §5 "Damaged, or not a store"), which no writer may touch.
 */
static int db_missing(kt_store *s, MDB_txn *txn, int i, int rc, int fmt)
{
	struct mainlist ml;

	main_list(txn, &ml);
	if (!fmt && ml.ours < 2)
		return rc == MDB_NOTFOUND ?
		       kt_err(s, KT_ECORRUPT, "%s: not a ktraj store (no '%s' "
			      "database)", s->path, kt_db_names[i]) :
		       kt_mdb_err(s, rc, "open database");
	if (rc != MDB_NOTFOUND)
		return kt_err(s, KT_ECORRUPT, "%s: damaged store: the '%s' "
			      "entry of LMDB's main database is not a database "
			      "record", s->path, kt_db_names[i]);
	if (ml.listed >> i & 1)
		return kt_err(s, KT_ECORRUPT, "%s: damaged store: LMDB's main "
			      "database lists '%s' but its keys are out of "
			      "order (%s), so lookups miss it", s->path,
			      kt_db_names[i], ml.order);
	if (ml.other[0])
		return kt_err(s, KT_ECORRUPT, "%s: damaged store: LMDB's main "
			      "database has no '%s' database, but one named "
			      "'%s'", s->path, kt_db_names[i], ml.other);
	return kt_err(s, KT_ECORRUPT, "%s: damaged store: LMDB's main "
		      "database has no '%s' database", s->path, kt_db_names[i]);
}

/* The meta DB first: a store of another format version is refused by its
 * version, not by the databases it lacks. */
static int open_dbis(kt_store *s, MDB_txn *txn, unsigned fl)
{
	int fmt = 0;

	if (!fl) {
		int absent, rc = mdb_dbi_open(txn, "meta", 0,
					      &s->dbi[KT_DB_META]);

		if (rc == 0 && (rc = check_format(s, txn, &absent)) != 0)
			return rc;
		fmt = rc == 0 && !absent;
	}
	s->db_absent = 0;
	for (int i = 0; i < KT_DB_COUNT; i++) {
		int rc = mdb_dbi_open(txn, kt_db_names[i], fl, &s->dbi[i]);

		if (rc == MDB_NOTFOUND && kt_db_added[i]) {
			struct mainlist ml;

			/* written before the database was added (run_sums:
			 * FORMAT.md §6.10): a writer adds it at open.  Not
			 * when the main database lists another name: that is
			 * likely its own, damaged, and a writer adding it
			 * empty would drop what it held (every run's
			 * checksum, for run_sums). */
			main_list(txn, &ml);
			if (ml.listed >> i & 1 || ml.other[0])
				return db_missing(s, txn, i, rc, fmt);
			s->db_absent |= 1u << i;
			continue;
		}
		if (rc == MDB_NOTFOUND || rc == MDB_INCOMPATIBLE)
			return db_missing(s, txn, i, rc, fmt);
		if (rc)
			return kt_mdb_err(s, rc, "open database");
	}
	return 0;
}

static int check_format(kt_store *s, MDB_txn *txn, int *absent)
{
	MDB_val k = { 6, (void *)"format" }, v;
	int rc = mdb_get(txn, s->dbi[KT_DB_META], &k, &v);
	uint32_t ver;

	*absent = 0;
	if (rc == MDB_NOTFOUND) {
		*absent = 1;
		return 0;
	}
	if (rc)
		return kt_mdb_err(s, rc, "read format");
	if (v.mv_size != 4)
		return kt_err(s, KT_ECORRUPT, "%s: bad format record", s->path);
	ver = kt_rd32(v.mv_data);
	if (ver && ver < KT_FORMAT_VERSION)
		return kt_err(s, KT_EVERSION,
			      "%s: store format %u is older than this ktraj "
			      "(format %u): export its runs with the ktraj that "
			      "wrote it (ktraj export RUN --format jsonl) and "
			      "append or import them into a new store",
			      s->path, ver, KT_FORMAT_VERSION);
	if (ver > KT_FORMAT_VERSION)
		return kt_err(s, KT_EVERSION,
			      "%s: store format %u is newer than this ktraj "
			      "(format %u); upgrade ktraj", s->path, ver,
			      KT_FORMAT_VERSION);
	if (ver == 0)
		return kt_err(s, KT_ECORRUPT, "%s: bad format version 0",
			      s->path);
	return 0;
}

/* Open the DBIs and check the version.  A store that exists is opened with
 * a read transaction only, so opening never waits for another writer. */
static int env_setup(kt_store *s, int exists)
{
	MDB_txn *txn = NULL;
	int rc, absent = 0;

	if (exists) {
		rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn);
		if (rc)
			return kt_mdb_err(s, rc, "begin");
		if ((rc = kt_pages_pin(s, txn)) != 0) {
			mdb_txn_abort(txn);
			return rc;
		}
		/* the unnamed DB lists the named ones; a fresh file from
		 * an interrupted create has none */
		rc = open_dbis(s, txn, 0);
		if (rc == 0)
			rc = check_format(s, txn, &absent);
		/* every database there but no format: a create commits them
		 * with the format in one transaction, so the meta database
		 * is damaged (its key), not a create interrupted */
		if (rc == 0 && absent)
			rc = kt_err(s, KT_ECORRUPT, "%s: damaged store: its meta "
				    "database holds no format record", s->path);
		if (rc == 0) {
			/* DBI handles survive only a committed txn (lmdb.h
			 * mdb_dbi_open), read-only ones included */
			rc = mdb_txn_commit(txn);
			return rc ? kt_mdb_err(s, rc, "open databases") : 0;
		}
		mdb_txn_abort(txn);
		if (rc != KT_ECORRUPT || s->flags & KT_OPEN_RDONLY ||
		    !(s->flags & KT_OPEN_CREATE))
			return rc;
		/* an empty LMDB file (create interrupted): initialise */
		{
			MDB_stat st;

			if (mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn) == 0) {
				int r2 = mdb_stat(txn, 1 /* MAIN_DBI */, &st);

				mdb_txn_abort(txn);
				/* only a file whose first transaction never
				 * committed: anything in it belongs to
				 * another program */
				if (r2 != 0 || st.ms_entries > 0)
					return rc;
			}
		}
	}
	rc = mdb_txn_begin(s->env, NULL, 0, &txn);
	if (rc)
		return kt_mdb_err(s, rc, "begin");
	rc = open_dbis(s, txn, MDB_CREATE);
	if (rc == 0)
		rc = check_format(s, txn, &absent);
	if (rc == 0 && absent) {
		unsigned char ver[4];
		MDB_val k = { 6, (void *)"format" }, v = { 4, ver };

		kt_be32(ver, KT_FORMAT_VERSION);
		rc = mdb_put(txn, s->dbi[KT_DB_META], &k, &v, 0);
		if (rc)
			rc = kt_mdb_err(s, rc, "write format");
	}
	if (rc) {
		mdb_txn_abort(txn);
		return rc;
	}
	rc = mdb_txn_commit(txn);
	return rc ? kt_mdb_err(s, rc, "commit") : 0;
}

/* A store written before a KT_DB_ADDED database gets it, empty, from the
 * first writer that opens it, in one transaction: with run_sums, its runs
 * keep no checksum (FORMAT.md §6.10), the runs created from then on get
 * one. */
static int add_absent(kt_store *s)
{
	MDB_txn *txn;
	char what[64] = "add";
	int rc = mdb_txn_begin(s->env, NULL, 0, &txn);

	if (rc == MDB_MAP_RESIZED) {
		/* another process grew the map: adopt its size (wbegin) */
		kt_env_resize(s->env, &s->envmap, 0);
		rc = mdb_txn_begin(s->env, NULL, 0, &txn);
	}
	if (rc)
		return kt_mdb_err(s, rc, "begin");
	for (int i = 0; i < KT_DB_COUNT; i++) {
		if (kt_db_has(s, i))
			continue;
		snprintf(what, sizeof(what), "add %s", kt_db_names[i]);
		rc = mdb_dbi_open(txn, kt_db_names[i], MDB_CREATE, &s->dbi[i]);
		if (rc) {
			mdb_txn_abort(txn);
			return kt_mdb_err(s, rc, what);
		}
	}
	rc = mdb_txn_commit(txn);
	if (rc)
		return kt_mdb_err(s, rc, what);
	s->db_absent = 0;
	return 0;
}

/*
 * Whether the existing file at path may be opened as a store: an LMDB data
 * file (its first meta page's magic, lmdb mdb.c MDB_MAGIC 0xBEEFC0DE, in
 * the host's byte order at offset 16, after the 16-byte page header), or
 * an empty file that an interrupted create left (LMDB makes "<path>-lock"
 * first, then the data file, then writes its meta pages; the next writer
 * finishes the create).  An empty file without that lock file belongs to
 * someone else: a writer must not take it over (FORMAT.md §5).
 */
static int check_file(kt_store *s, const char *path, off_t size,
		      unsigned flags)
{
	const uint32_t magic = 0xBEEFC0DEu;
	unsigned char b[20];
	char *lock;
	struct stat ls;
	int lk;
	FILE *f;

	if (size == 0) {
		lock = malloc(strlen(path) + 6);
		if (!lock)
			return kt_err(s, KT_ENOMEM, "lock path");
		sprintf(lock, "%s-lock", path);
		lk = stat(lock, &ls) == 0 && S_ISREG(ls.st_mode);
		free(lock);
		if (lk && (flags & KT_OPEN_CREATE) && !(flags & KT_OPEN_RDONLY))
			return 0;
		return kt_err(s, KT_ECORRUPT, "%s: an empty file, not a ktraj "
			      "store", path);
	}
	f = fopen(path, "rb");
	if (!f) {
		/* unreadable: LMDB's open says why */
		return 0;
	}
	if (fread(b, 1, sizeof(b), f) != sizeof(b) ||
	    memcmp(b + 16, &magic, 4) != 0) {
		fclose(f);
		return kt_err(s, KT_ECORRUPT, "%s: not a ktraj store (not an "
			      "LMDB file)", path);
	}
	fclose(f);
	return 0;
}

/* why the calling thread's last kt_store_open failed */
static _Thread_local char open_err[256];

/* A new LMDB environment in s->env with every database and a map of map
 * bytes, not yet opened. */
static int env_create(kt_store *s, uint64_t map)
{
	int rc = mdb_env_create(&s->env);

	if (rc)
		return kt_mdb_err(s, rc, "create environment");
	mdb_env_set_maxdbs(s->env, KT_DB_COUNT);
	kt_env_resize(s->env, &s->envmap, (size_t)map);
	return 0;
}

static int open_once(const char *path, unsigned flags, kt_store **out)
{
	kt_store *s;
	struct stat st;
	int rc, exists, dead = 0;
	unsigned ef = MDB_NOSUBDIR | MDB_NOTLS;
	uint64_t map = KT_MAP_INITIAL;

	*out = NULL;
	open_err[0] = 0;
	if (!path || !*path)
		return KT_EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return KT_ENOMEM;
	s->flags = flags;
	s->cache_max = KT_CACHE_DEFAULT;
	s->scan_threads = -1;
	s->path = strdup(path);
	if (!s->path) {
		free(s);
		return KT_ENOMEM;
	}
	if (kt_codec_acquire() != 0) {
		free(s->path);
		free(s);
		return KT_ENOMEM;
	}
	exists = stat(path, &st) == 0;
	if (!exists && (flags & KT_OPEN_RDONLY || !(flags & KT_OPEN_CREATE))) {
		rc = kt_err(s, KT_ENOTFOUND, "%s: no such store", path);
		goto fail;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		rc = kt_err(s, KT_ECORRUPT, "%s: not a store file", path);
		goto fail;
	}
	/* Checked before LMDB opens it, which would create "<path>-lock"
	 * beside any file, and initialize an empty one as a new store. */
	if (exists && (rc = check_file(s, path, st.st_size, flags)) != 0)
		goto fail;
	/* before mdb_env_open, which trusts the meta pages' page size; the
	 * other pages are checked under the first read txn (env_setup) */
	if (exists && st.st_size > 0 && (flags & KT_OPEN_CHECK) &&
	    (rc = kt_pages_check_metas(s)) != 0)
		goto fail;
	/* LMDB maps at least the committed size; leave room to grow without
	 * a remap right away */
	while (exists && map < (uint64_t)st.st_size * 2 && map < KT_MAP_LIMIT)
		map *= 2;
	s->mapsize = map;
	if ((rc = env_create(s, map)) != 0)
		goto fail;
	if (flags & KT_OPEN_RDONLY)
		ef |= MDB_RDONLY;
	if (flags & KT_OPEN_BULK)
		ef |= MDB_NOSYNC;
	rc = mdb_env_open(s->env, path, ef, 0644);
	if ((rc == EACCES || rc == EROFS) && exists &&
	    (flags & KT_OPEN_CREATE)) {
		/* a writer (KT_OPEN_CREATE) must not quietly become a reader:
		 * the import or append would write nothing and say nothing */
		rc = kt_err(s, KT_ERDONLY, "%s: cannot open for writing: %s",
			    path, strerror(rc));
		goto fail;
	}
	if ((rc == EACCES || rc == EROFS) && exists) {
		/* The lock file (or the store) cannot be written: a read-only
		 * directory, file or medium.  Open read-only without the lock
		 * (lmdb.h MDB_NOLOCK): correct as long as no process writes
		 * the store meanwhile, which this open cannot see (FORMAT.md
		 * §5).  A failed mdb_env_open leaves the env to be closed. */
		mdb_env_close(s->env);
		s->env = NULL;
		if ((rc = env_create(s, map)) != 0)
			goto fail;
		s->flags |= KT_OPEN_RDONLY;
		s->flags &= ~KT_OPEN_CREATE;
		s->nolock = 1;
		s->mark_size = (int64_t)st.st_size;
		s->mark_mtime_ns = mtime_ns(&st);
		rc = mdb_env_open(s->env, path, (ef & ~MDB_NOSYNC) | MDB_RDONLY |
				  MDB_NOLOCK, 0644);
	}
	if (rc) {
		rc = kt_mdb_err(s, rc, path);
		goto fail;
	}
	/* A file shorter than its committed pages (an interrupted copy, a
	 * full disk) would fault when LMDB touches the missing pages through
	 * its map: refuse it here instead. */
	if (exists && st.st_size > 0) {
		MDB_envinfo ei;
		MDB_stat ms;

		struct stat st2;

		/* the size again after the pages were read: another writer
		 * may have committed (and grown the file) since the stat
		 * above, and a file is only short if it still is */
		if (mdb_env_info(s->env, &ei) == 0 && mdb_env_stat(s->env, &ms) == 0 &&
		    ((uint64_t)ei.me_last_pgno + 1) * ms.ms_psize > (uint64_t)st.st_size &&
		    stat(path, &st2) == 0 &&
		    ((uint64_t)ei.me_last_pgno + 1) * ms.ms_psize > (uint64_t)st2.st_size) {
			st.st_size = st2.st_size;
			rc = kt_err(s, KT_ECORRUPT, "%s: truncated: %llu bytes, its pages need %llu",
				    path, (unsigned long long)st.st_size,
				    ((unsigned long long)ei.me_last_pgno + 1) * ms.ms_psize);
			goto fail;
		}
	}
	/* clear slots of readers that died (lmdb.h "Caveats") */
	mdb_reader_check(s->env, &dead);
	rc = env_setup(s, exists && st.st_size > 0);
	if (rc)
		goto fail;
	if (s->db_absent && !(s->flags & KT_OPEN_RDONLY)) {
		rc = add_absent(s);
		if (rc)
			goto fail;
	}
	{
		MDB_txn *txn;

		rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn);
		if (rc) {
			rc = kt_mdb_err(s, rc, "begin");
			goto fail;
		}
		rc = kt_pages_pin(s, txn);
		if (rc == 0)
			rc = kt_dicts_load(s, txn);
		mdb_txn_abort(txn);
		if (rc)
			goto fail;
	}
	own_files(s);
	s->err[0] = 0;
	*out = s;
	return 0;
fail:
	/* the detail outlives the handle for kt_store_open_errmsg */
	snprintf(open_err, sizeof(open_err), "%s", s->err);
	kt_store_close(s);
	return rc;
}

/* Whether this process would read the store at path without its lock:
 * the lock file (or, when it is missing, the folder) cannot be written. */
static int lock_unwritable(const char *path)
{
	char lock[4200];

	snprintf(lock, sizeof(lock), "%s-lock", path);
	if (access(lock, W_OK) == 0)
		return 0;
	return errno == EACCES || errno == EROFS;
}

int kt_store_open(const char *path, unsigned flags, kt_store **out)
{
	int rc, tries;

	/* A reader without the lock checks pages (KT_OPEN_CHECK, the meta
	 * pages) that a writer may be rewriting: a failure while the file
	 * changed is tried again, twice, then KT_ECHANGED - never the
	 * KT_ECORRUPT that means damage */
	for (tries = 0;; tries++) {
		struct stat a, b;
		int had = path && stat(path, &a) == 0;

		rc = open_once(path, flags, out);
		if (rc == KT_ECORRUPT && had && !(flags & KT_OPEN_CREATE) &&
		    lock_unwritable(path) &&
		    (stat(path, &b) || b.st_size != a.st_size ||
		     mtime_ns(&b) != mtime_ns(&a)))
			rc = KT_ECHANGED;
		if (rc != KT_ECHANGED || tries == 2)
			break;
	}
	if (rc == KT_ECHANGED)
		snprintf(open_err, sizeof(open_err), "%s: %s", path,
			 kt_strerror(KT_ECHANGED));
	return rc;
}

const char *kt_store_open_errmsg(void)
{
	return open_err;
}

int kt_store_sync(kt_store *s)
{
	int rc;

	if (!s)
		return KT_EINVAL;
	if (s->flags & KT_OPEN_RDONLY)
		return 0;
	rc = mdb_env_sync(s->env, 1);
	return rc ? kt_mdb_err(s, rc, "sync") : 0;
}

int kt_store_close(kt_store *s)
{
	int rc = 0;

	if (!s)
		return 0;
	if (s->wtxn)
		kt_store_abort(s);
	kt_wb_close(s);
	if (s->rtxn)
		mdb_txn_abort(s->rtxn);
	if (s->env) {
		if (!(s->flags & KT_OPEN_RDONLY) && (s->flags & KT_OPEN_BULK))
			rc = mdb_env_sync(s->env, 1) ? KT_EIO : 0;
		kt_dicts_free(s);
		mdb_env_close(s->env);
	}
	if (s->statm > 0)
		close(s->statm - 1);
	kt_big_free(&s->wlog);
	for (int k = 0; k <= KT_KIND_MAX_; k++) {
		free(s->orun.blk[k].seq);
		free(s->orun.blk[k].len);
		free(s->orun.blk[k].raw.p);
	}
	free(s->orun.prow.p);
	kt_cache_free(s);
	kt_dblk_free(&s->rblk);
	free(s->vbuf.p);
	free(s->zbuf.p);
	kt_big_free(&s->samples);
	free(s->sample_len);
	kt_defer_drop(s);
	kt_big_free(&s->dfr);
	free(s->dfb);
	kt_bc_free(s);
	free(s->evbuf.p);
	free(s->tmp.p);
	free(s->run_name);
	free(s->run_format);
	free(s->run_meta);
	free(s->path);
	kt_ck_reset(s);
	free(s->ck);
	free(s);
	kt_codec_release();
	return rc;
}

/* ---- transactions -------------------------------------------------------- */

static int wbegin(kt_store *s)
{
	int rc, tries = 0;

again:
	rc = mdb_txn_begin(s->env, NULL, 0, &s->wtxn);
	if (rc == MDB_MAP_RESIZED && tries++ < 3) {
		/* another process grew the map: adopt its size */
		kt_env_resize(s->env, &s->envmap, 0);
		goto again;
	}
	if (rc) {
		s->wtxn = NULL;
		return kt_mdb_err(s, rc, "begin write");
	}
	return 0;
}

int kt_txn_begin(kt_store *s)
{
	int rc;

	rc = wbegin(s);
	if (rc)
		return rc;
	/* another process may have trained a dictionary since this handle
	 * loaded them: training one more with the same id would fail the
	 * commit, and its blocks would not decode here */
	rc = kt_dicts_refresh(s, s->wtxn);
	if (rc) {
		mdb_txn_abort(s->wtxn);
		s->wtxn = NULL;
		return rc;
	}
	s->wlog.len = 0;
	s->sp_len = 0;
	s->map_seen = 0;
	memset(s->wputs, 0, sizeof(s->wputs));
	memset(s->sp_puts, 0, sizeof(s->sp_puts));
	s->wputs_all = s->sp_puts_all = 0;
	kt_ev_forget(s, 0);
	return 0;
}

int kt_store_begin(kt_store *s)
{
	int rc;

	if (!s)
		return KT_EINVAL;
	if (s->flags & KT_OPEN_RDONLY)
		return kt_err(s, KT_ERDONLY, "store opened read-only");
	if (s->wtxn)
		return kt_err(s, KT_EBUSY, "a write transaction is open");
	rc = kt_txn_begin(s);
	if (rc)
		return rc;
	kt_ck_reset(s);
	s->txn_events = 0;
	return 0;
}

static int grow(kt_store *s);

/* Put the logged writes s->wlog[0..len) into the freshly begun s->wtxn:
 * after map growth the whole log, after kt_store_rollback the log up to
 * the savepoint.  Growth met on the way grows again (and replays all). */
static int replay(kt_store *s)
{
	size_t off = 0;
	int rc;

	while (off < s->wlog.len) {
		unsigned char *p = s->wlog.p + off;
		MDB_val k, v;

		k.mv_size = kt_rd32(p + 1);
		v.mv_size = kt_rd32(p + 5);
		k.mv_data = p + 9;
		v.mv_data = p + 9 + k.mv_size;
		if (p[0] & KT_WLOG_DEL) {
			rc = mdb_del(s->wtxn, s->dbi[p[0] & ~KT_WLOG_DEL], &k,
				     NULL);
			if (rc == MDB_NOTFOUND)
				rc = 0;
		} else {
			rc = mdb_put(s->wtxn, s->dbi[p[0]], &k, &v, 0);
		}
		if (rc == MDB_MAP_FULL)
			return grow(s);
		if (rc)
			return kt_mdb_err(s, rc, "replay after map growth");
		off += 9 + k.mv_size + v.mv_size;
		/* the replay reads every leaf a batch wrote, with no
		 * checkpoint between two puts: 129 MiB of the map were
		 * resident after the third growth of a 3.8 GB import */
		kt_map_faulted(s);
	}
	return 0;
}

/* Abort, double the map, begin again and replay the logged puts. */
static int grow(kt_store *s)
{
	int rc;

	if (s->wtxn) {
		mdb_txn_abort(s->wtxn);
		s->wtxn = NULL;
	}
	if (s->rdepth > 0)
		return kt_err(s, KT_EBUSY,
			      "map full while a read is in progress");
	if (s->rtxn) {
		mdb_txn_abort(s->rtxn);
		s->rtxn = NULL;
	}
	/* the blob cache holds copies only; nothing points into the map */
	if (s->mapsize >= KT_MAP_LIMIT)
		return kt_err(s, KT_ELIMIT, "store map reached its limit");
	s->mapsize *= 2;
	rc = kt_env_resize(s->env, &s->envmap, (size_t)s->mapsize);
	if (rc)
		return kt_mdb_err(s, rc, "grow map");
	s->grows++;
	rc = wbegin(s);
	if (rc)
		return rc;
	return replay(s);
}

int kt_put(kt_store *s, int db, const void *k, size_t kl, const void *v,
	   size_t vl, unsigned flags)
{
	MDB_val key = { kl, (void *)k }, val;
	int rc;

	if (!s->wtxn)
		return kt_err(s, KT_EBUSY, "no write transaction");
	if (vl > UINT32_MAX || kl > 511)
		return kt_err(s, KT_ELIMIT, "record too large");
	for (;;) {
		val.mv_size = vl;
		val.mv_data = (void *)v;
		rc = mdb_put(s->wtxn, s->dbi[db], &key, &val, flags);
		if (rc != MDB_MAP_FULL)
			break;
		/* k and v never point into the map (callers copy first) */
		rc = grow(s);
		if (rc)
			return rc;
	}
	if (rc == MDB_KEYEXIST)
		return KT_EEXIST;
	if (rc)
		return kt_mdb_err(s, rc, "put");
	return kt_wlog_add(s, db, k, kl, v, vl);
}

int kt_wlog_add(kt_store *s, int db, const void *k, size_t kl, const void *v,
		size_t vl)
{
	unsigned char *p;

	if (kt_big_reserve(&s->wlog, s->wlog.len + 9 + kl + vl))
		return kt_err(s, KT_ENOMEM, "write log");
	p = s->wlog.p + s->wlog.len;
	p[0] = (unsigned char)db;
	kt_be32(p + 1, (uint32_t)kl);
	kt_be32(p + 5, (uint32_t)vl);
	memcpy(p + 9, k, kl);
	if (vl)
		memcpy(p + 9 + kl, v, vl);
	s->wlog.len += 9 + kl + vl;
	if ((db & ~KT_WLOG_DEL) < KT_DB_COUNT)
		s->wputs[db & ~KT_WLOG_DEL]++;
	s->wputs_all++;
	return 0;
}

/* The dictionaries of the last committed state: those trained in a
 * transaction that is gone must not stay in use. */
static void dicts_committed(kt_store *s)
{
	MDB_txn *t;

	kt_dicts_free(s);
	if (mdb_txn_begin(s->env, NULL, MDB_RDONLY, &t) == 0) {
		kt_dicts_load(s, t);
		mdb_txn_abort(t);
	}
}

/* The writes before the LMDB commit, the same for kt_store_commit and
 * kt_store_savepoint (a savepoint must leave the transaction as a commit
 * would store it, or a rollback to it and a commit disagree): the open
 * run's blocks, page and record and the held blocks (kt_ev_flush); the
 * block in flight on the write thread (kt_wb_settle: kt_ev_flush leaves
 * none today, and one left would be dropped, not stored, by the
 * kt_ev_forget after the commit); the §6.11 checkpoint marks deleted
 * (kt_ck_finish).  0 or the first failing write's code. */
static int pre_commit(kt_store *s)
{
	int rc = kt_ev_flush(s);

	if (rc == 0)
		rc = kt_wb_settle(s);
	if (rc == 0)
		rc = kt_ck_finish(s);
	return rc;
}

int kt_store_commit(kt_store *s)
{
	int rc;

	if (!s)
		return KT_EINVAL;
	if (!s->wtxn)
		return kt_err(s, KT_EBUSY, "no write transaction");
	rc = pre_commit(s);
	if (rc == 0) {
		rc = kt_txn_commit(s);
	} else {
		mdb_txn_abort(s->wtxn);
		s->wtxn = NULL;
		s->wlog.len = 0;
	}
	kt_defer_drop(s); /* empty unless the flush failed */
	/* another process may append before our next transaction */
	kt_ev_forget(s, rc != 0);
	if (s->wlog.cap > (64u << 20))
		kt_big_free(&s->wlog);
	if (rc) {
		/* dictionaries trained in the lost txn are gone too */
		dicts_committed(s);
		kt_ck_undo(s);
	} else {
		kt_ck_reset(s);
	}
	return rc;
}

int kt_txn_commit(kt_store *s)
{
	int rc;

	for (;;) {
		rc = mdb_txn_commit(s->wtxn);
		s->wtxn = NULL;
		if (rc != MDB_MAP_FULL) {
			if (rc)
				rc = kt_mdb_err(s, rc, "commit");
			else
				s->commits++;
			break;
		}
		rc = grow(s); /* commit freed the txn: grow begins anew */
		if (rc)
			break;
	}
	if (s->wtxn) {
		mdb_txn_abort(s->wtxn);
		s->wtxn = NULL;
	}
	s->wlog.len = 0;
	s->sp_len = 0;
	kt_ev_forget(s, 0);
	return rc;
}

void kt_store_abort(kt_store *s)
{
	if (!s)
		return;
	if (!s->wtxn) {
		/* a checkpoint's commit failed: take back the earlier ones */
		kt_ck_undo(s);
		return;
	}
	mdb_txn_abort(s->wtxn);
	s->wtxn = NULL;
	s->wlog.len = 0;
	s->sp_len = 0;
	kt_defer_drop(s);
	kt_ev_forget(s, 1);
	kt_bc_invalidate(s);
	/* a dictionary trained in the aborted txn must not stay in use */
	dicts_committed(s);
	kt_ck_undo(s);
}

/* ---- savepoints ----------------------------------------------------------
 * Several sources share one transaction (kt_import_paths' small files) and
 * each must be kept or dropped whole, without nested LMDB transactions
 * (which map growth, aborting and replaying the parent, could not keep).
 * The write log already holds every put of the transaction in order, so a
 * savepoint is a length of it: rolling back replays the log up to there
 * into a fresh transaction.  What memory holds beyond the log is brought
 * back to what that transaction holds: the open blocks and caches are
 * forgotten, the dictionaries read again from it, and the runs of the
 * §6.11 checkpoint list start anew at each savepoint, so a checkpoint
 * holds out (and an undo reclaims) only the runs of the source after it.
 */

uint64_t kt_store_commits(const kt_store *s)
{
	return s ? s->commits : 0;
}

int kt_store_savepoint(kt_store *s)
{
	int rc;

	if (!s)
		return KT_EINVAL;
	if (!s->wtxn)
		return kt_err(s, KT_EBUSY, "no write transaction");
	if ((rc = pre_commit(s)) != 0)
		return rc;
	kt_defer_drop(s);
	/* as after a commit: the next source loads what it continues */
	kt_ev_forget(s, 0);
	kt_ck_reset(s);
	s->sp_len = s->wlog.len;
	memcpy(s->sp_puts, s->wputs, sizeof(s->wputs));
	s->sp_puts_all = s->wputs_all;
	return 0;
}

/* The write transaction is gone (map growth or a checkpoint's commit
 * failed): memory forgets what it held of it. */
static void txn_lost(kt_store *s)
{
	s->wlog.len = 0;
	s->sp_len = 0;
	kt_defer_drop(s);
	kt_ev_forget(s, 1); /* no txn: the block in flight is dropped */
	kt_bc_invalidate(s);
	dicts_committed(s);
}

int kt_store_rollback(kt_store *s)
{
	int rc;

	if (!s)
		return KT_EINVAL;
	if (!s->wtxn)
		txn_lost(s);
	if (s->ck_done) {
		/* a checkpoint since the savepoint committed everything
		 * before it: what an abort keeps is the savepoint, and more
		 * (the runs after it held out, and reclaimed by the undo) */
		kt_store_abort(s);
		return kt_store_begin(s);
	}
	if (!s->wtxn) {
		/* nothing since the last commit is kept */
		kt_ck_reset(s);
		return KT_EIO;
	}
	mdb_txn_abort(s->wtxn);
	s->wtxn = NULL;
	kt_defer_drop(s);
	kt_ev_forget(s, 1); /* no txn: the block in flight is dropped */
	kt_bc_invalidate(s);
	kt_ck_reset(s);
	s->wlog.len = s->sp_len;
	memcpy(s->wputs, s->sp_puts, sizeof(s->wputs));
	s->wputs_all = s->sp_puts_all;
	if (s->map_seen > s->sp_len)
		s->map_seen = s->sp_len;
	rc = wbegin(s);
	if (rc == 0)
		rc = replay(s);
	if (rc == 0) {
		/* those trained after the savepoint are gone; the earlier
		 * sources' are in the transaction, not yet in a snapshot */
		kt_dicts_free(s);
		rc = kt_dicts_load(s, s->wtxn);
	}
	if (rc) {
		if (s->wtxn)
			mdb_txn_abort(s->wtxn);
		s->wtxn = NULL;
		txn_lost(s);
	}
	return rc;
}

int kt_run_begin(kt_store *s, const char *run,
		 unsigned char bin[KT_RUN_BIN], MDB_txn **txn)
{
	int rc;

	if (run && (rc = kt_run_bin(s, run, bin)) != 0)
		return rc;
	/* a read must see the appends still held in memory */
	if ((rc = kt_ev_flush(s)) != 0)
		return rc;
	return kt_rd_begin(s, txn);
}

int kt_rd_begin(kt_store *s, MDB_txn **txn)
{
	int rc, tries = 0;

	if (s->wtxn) {
		*txn = s->wtxn;
		return 0;
	}
	if (s->rdepth++ > 0) {
		*txn = s->rtxn;
		return 0;
	}
again:
	if (s->rtxn) {
		rc = mdb_txn_renew(s->rtxn);
		if (rc) {
			mdb_txn_abort(s->rtxn);
			s->rtxn = NULL;
		}
	} else {
		rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &s->rtxn);
		if (rc)
			s->rtxn = NULL;
	}
	if (rc == MDB_MAP_RESIZED && tries++ < 3) {
		kt_env_resize(s->env, &s->envmap, 0);
		goto again;
	}
	if (rc) {
		s->rdepth--;
		return kt_mdb_err(s, rc, "begin read");
	}
	/* KT_OPEN_CHECK: a newer snapshot's pages, before LMDB reads them */
	if ((rc = kt_pages_pin(s, s->rtxn)) != 0) {
		s->rdepth--;
		mdb_txn_reset(s->rtxn);
		return rc;
	}
	*txn = s->rtxn;
	return 0;
}

void kt_rd_end(kt_store *s, MDB_txn *txn)
{
	/* reads inside a write txn share it; nothing to release (also when
	 * the write txn began inside an outer read's callback) */
	if (txn != s->rtxn || s->rdepth == 0)
		return;
	if (--s->rdepth == 0 && s->rtxn)
		mdb_txn_reset(s->rtxn);
}

int kt_rd_cursor(kt_store *s, int db, MDB_txn **txn, MDB_cursor **c)
{
	int rc;

	*c = NULL;
	if ((rc = kt_rd_begin(s, txn)))
		return rc;
	if ((rc = mdb_cursor_open(*txn, s->dbi[db], c))) {
		rc = kt_mdb_err(s, rc, "cursor");
		*c = NULL;
		kt_rd_end(s, *txn);
	}
	return rc;
}

int kt_rd_close(kt_store *s, MDB_txn *txn, MDB_cursor *c, int rc)
{
	if (c)
		mdb_cursor_close(c);
	kt_rd_end(s, txn);
	return rc;
}

int kt_store_set_write_threads(kt_store *s, int n)
{
	if (!s || n < 0)
		return KT_EINVAL;
	/* a block in flight was compressed for this transaction: it is put
	 * (or dropped with no transaction) before the setting changes */
	if (!n && s->wb) {
		int rc = s->wtxn ? kt_wb_settle(s) : 0;

		kt_wb_close(s);
		if (rc)
			return rc;
	}
	s->wb_on = n > 0;
	return 0;
}
