/*
 * store_unfinished.c - checkpoints of one long write transaction and the
 * unfinished runs they leave (FORMAT.md §6.11).
 *
 * An import writes a file in one logical transaction: a failure keeps
 * nothing of it.  Held as one LMDB transaction, its dirty pages and the
 * write log (kept for map growth) grow with the file.  kt_store_checkpoint
 * commits what is written so far and goes on in a new transaction, with
 * every run created since kt_store_begin held out of `runs`, `run_sums`
 * and `run_names`: their blocks, pages and paths are committed, but no
 * reader finds the run until the final commit puts its record back.  The
 * meta key `unfinished` || run marks such a run in the committed state,
 * with the process that writes it, so a later writer tells one still
 * being written from one whose writer died, and reclaims the latter.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "store_int.h"

#define UNF_KEY "unfinished"
#define UNF_KL (sizeof(UNF_KEY) - 1)
#define UNF_VL 12 /* be32 pid || be64 start time (clock ticks after boot) */

/* Field 22 of /proc/PID/stat, the process's start time; 0 when unknown. */
static uint64_t proc_start(long pid)
{
	char path[64], buf[1024], *p;
	FILE *f;
	size_t n;
	unsigned long long v = 0;
	int field = 3;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* the command name may hold spaces and parentheses: fields count
	 * from the last ')' */
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	p++;
	while (*p && field < 22) {
		if (*p++ == ' ' && *p != ' ')
			field++;
	}
	if (field == 22 && sscanf(p, "%llu", &v) != 1)
		v = 0;
	return v;
}

static void unf_key(unsigned char k[UNF_KL + KT_RUN_BIN],
		    const unsigned char run[KT_RUN_BIN])
{
	memcpy(k, UNF_KEY, UNF_KL);
	memcpy(k + UNF_KL, run, KT_RUN_BIN);
}

/* Whether the writer named by an `unfinished` value still runs: the same
 * pid with the same start time.  Another host's writer cannot be seen;
 * LMDB's lock does not work across hosts either (FORMAT.md §5). */
static int owner_alive(const MDB_val *v)
{
	const unsigned char *p = v->mv_data;
	long pid;
	uint64_t st, now;

	if (v->mv_size != UNF_VL)
		return 0;
	pid = (long)kt_rd32(p);
	st = kt_rd64(p + 4);
	if (pid <= 0 || pid == (long)getpid())
		return 0; /* this process holds no such run: it is dead */
	if (kill((pid_t)pid, 0) != 0 && errno != EPERM)
		return 0;
	now = proc_start(pid);
	return !st || !now || st == now;
}

int kt_del(kt_store *s, int db, const void *k, size_t kl)
{
	MDB_val key = { kl, (void *)k };
	int rc;

	if (!s->wtxn)
		return kt_err(s, KT_EBUSY, "no write transaction");
	rc = mdb_del(s->wtxn, s->dbi[db], &key, NULL);
	if (rc == MDB_NOTFOUND)
		return 0;
	if (rc)
		return kt_mdb_err(s, rc, "delete");
	return kt_wlog_add(s, db | KT_WLOG_DEL, k, kl, NULL, 0);
}

/* Delete every key of db that starts with run. */
static int del_prefix(kt_store *s, int db, const unsigned char run[KT_RUN_BIN])
{
	unsigned char kb[512];
	MDB_cursor *c;
	MDB_val k, v;
	int rc;

	for (;;) {
		rc = mdb_cursor_open(s->wtxn, s->dbi[db], &c);
		if (rc)
			return kt_mdb_err(s, rc, "cursor");
		k.mv_size = KT_RUN_BIN;
		k.mv_data = (void *)run;
		rc = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE);
		if (rc == 0 && (k.mv_size < KT_RUN_BIN || k.mv_size > sizeof(kb) ||
				memcmp(k.mv_data, run, KT_RUN_BIN)))
			rc = MDB_NOTFOUND;
		if (rc == 0)
			memcpy(kb, k.mv_data, k.mv_size);
		mdb_cursor_close(c);
		if (rc == MDB_NOTFOUND)
			return 0;
		if (rc)
			return kt_mdb_err(s, rc, "cursor");
		/* through kt_del: the write log must replay it */
		if ((rc = kt_del(s, db, kb, k.mv_size)) != 0)
			return rc;
	}
}

/* Remove what an unfinished run left: its blocks, pages, paths and mark.
 * Its blobs stay: content-addressed, other runs may name them. */
static int reclaim(kt_store *s, const unsigned char run[KT_RUN_BIN])
{
	static const int dbs[] = { KT_DB_BLOCKS, KT_DB_PAGES, KT_DB_PATHS };
	unsigned char uk[UNF_KL + KT_RUN_BIN];
	int rc = kt_wb_settle(s);

	for (size_t i = 0; i < sizeof(dbs) / sizeof(dbs[0]) && !rc; i++)
		rc = del_prefix(s, dbs[i], run);
	unf_key(uk, run);
	return rc ? rc : kt_del(s, KT_DB_META, uk, sizeof(uk));
}

static struct kt_ckrun *ck_find(kt_store *s, const unsigned char run[KT_RUN_BIN])
{
	for (size_t i = 0; i < s->nck; i++)
		if (!memcmp(s->ck[i].run, run, KT_RUN_BIN))
			return &s->ck[i];
	return NULL;
}

int kt_ck_claim(kt_store *s, const unsigned char run[KT_RUN_BIN],
		const char *id)
{
	unsigned char uk[UNF_KL + KT_RUN_BIN];
	MDB_val k = { sizeof(uk), uk }, v;
	int rc;

	unf_key(uk, run);
	rc = mdb_get(s->wtxn, s->dbi[KT_DB_META], &k, &v);
	if (rc == MDB_NOTFOUND)
		return 0;
	if (rc)
		return kt_mdb_err(s, rc, "unfinished run");
	if (owner_alive(&v))
		return kt_err(s, KT_EBUSY, "run %s is being imported by "
			      "another process", id);
	return reclaim(s, run);
}

int kt_ck_created(kt_store *s, const unsigned char run[KT_RUN_BIN])
{
	if (ck_find(s, run))
		return 0;
	if (KT_GROW(s->ck, s->ck_cap, s->nck + 1))
		return kt_err(s, KT_ENOMEM, "run list");
	memcpy(s->ck[s->nck].run, run, KT_RUN_BIN);
	s->ck[s->nck].rec = NULL;
	s->ck[s->nck].len = 0;
	s->nck++;
	return 0;
}

void kt_ck_used(kt_store *s, const unsigned char run[KT_RUN_BIN])
{
	if (!ck_find(s, run))
		s->ck_old = 1;
}

void kt_ck_reset(kt_store *s)
{
	for (size_t i = 0; i < s->nck; i++)
		free(s->ck[i].rec);
	s->nck = 0;
	s->ck_old = 0;
	s->ck_done = 0;
}

/* run_names key of a run record (FORMAT.md §6.3); 0 when it has no name. */
static size_t names_key(unsigned char *k, const unsigned char run[KT_RUN_BIN],
			const unsigned char *rec, size_t len)
{
	size_t nl = len >= 10 ? kt_rd16(rec + 8) : 0;

	if (!nl || len < 10 + nl)
		return 0;
	if (nl > KT_NAME_MAX_KEY)
		nl = KT_NAME_MAX_KEY;
	memcpy(k, rec + 10, nl);
	k[nl] = 0;
	memcpy(k + nl + 1, run, KT_RUN_BIN);
	return nl + 1 + KT_RUN_BIN;
}

/* Take run r's record, checksum and name key out of the transaction
 * (keeping the record in memory) and mark it unfinished. */
static int hold_out(kt_store *s, struct kt_ckrun *r)
{
	unsigned char nk[KT_NAME_MAX_KEY + 1 + KT_RUN_BIN];
	unsigned char uk[UNF_KL + KT_RUN_BIN], uv[UNF_VL];
	MDB_val k = { KT_RUN_BIN, r->run }, v;
	size_t nkl;
	int rc;

	rc = mdb_get(s->wtxn, s->dbi[KT_DB_RUNS], &k, &v);
	if (rc)
		return kt_mdb_err(s, rc, "run record");
	free(r->rec);
	r->rec = malloc(v.mv_size);
	if (!r->rec)
		return kt_err(s, KT_ENOMEM, "run record");
	memcpy(r->rec, v.mv_data, v.mv_size);
	r->len = v.mv_size;
	nkl = names_key(nk, r->run, r->rec, r->len);
	if ((rc = kt_del(s, KT_DB_RUNS, r->run, KT_RUN_BIN)) != 0 ||
	    (rc = kt_del(s, KT_DB_SUMS, r->run, KT_RUN_BIN)) != 0 ||
	    (nkl && (rc = kt_del(s, KT_DB_NAMES, nk, nkl)) != 0))
		return rc;
	unf_key(uk, r->run);
	kt_be32(uv, (uint32_t)getpid());
	kt_be64(uv + 4, proc_start((long)getpid()));
	return kt_put(s, KT_DB_META, uk, sizeof(uk), uv, sizeof(uv), 0);
}

/* Put back what hold_out took out (the mark stays until the end). */
static int put_back(kt_store *s, struct kt_ckrun *r)
{
	unsigned char nk[KT_NAME_MAX_KEY + 1 + KT_RUN_BIN];
	unsigned char sum[KT_HASH_LEN];
	MDB_val rv = { r->len, r->rec };
	size_t nkl = names_key(nk, r->run, r->rec, r->len);
	int rc;

	kt_runrec_sum(r->run, &rv, sum);
	if ((rc = kt_put(s, KT_DB_RUNS, r->run, KT_RUN_BIN, r->rec, r->len,
			 0)) != 0 ||
	    (rc = kt_put(s, KT_DB_SUMS, r->run, KT_RUN_BIN, sum, sizeof(sum),
			 0)) != 0 ||
	    (nkl && (rc = kt_put(s, KT_DB_NAMES, nk, nkl, "", 0, 0)) != 0))
		return rc;
	return 0;
}

/* The map's pages this process touched count as its memory.  LMDB reads
 * the tree through the map at every put (its page search faulted ~600
 * times in a 1 GB import, the kernel mapping up to 16 pages around each
 * fault), and they were never given back: 73 MB of the 115 MB store were
 * resident at the end of that import.  Dropping them is safe at any time
 * (a read-only shared map of the file; LMDB's dirty pages are its own
 * memory): a later read faults them in again from the page cache.
 *
 * LMDB names the map's address only for MDB_FIXEDMAP (me_mapaddr is NULL
 * otherwise), so the file's mapping of the map's size is looked up in
 * /proc/self/maps, once per map size: reading that file cost ~80-350 us a
 * time here, and give-backs come every few dozen page faults.  LMDB maps
 * anew only in mdb_env_set_mapsize (0.9: a map grown by another process
 * makes mdb_txn_begin fail with MDB_MAP_RESIZED, it does not remap), which
 * the store calls through kt_env_resize only, forgetting the address.
 * Not even mdb_env_info is asked when the address is known: it reads the
 * meta pages through the map, and on this kernel (6.18) a fault maps the
 * whole large folio of the page cache around it, 64 KiB-1 MiB, which the
 * madvise then had to drop again (~170 us a give-back, against ~6 us). */
void kt_env_give_back(MDB_env *env, struct kt_envmap *m)
{
	MDB_envinfo ei;
	struct stat st;
	mdb_filehandle_t fd;
	char line[512];
	FILE *f;

	if (m->len) {
		madvise((void *)m->lo, m->len, MADV_DONTNEED);
		return;
	}
	if (mdb_env_info(env, &ei) != 0 || mdb_env_get_fd(env, &fd) != 0 ||
	    fstat(fd, &st) != 0 || !(f = fopen("/proc/self/maps", "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, off, ino;
		unsigned ma, mi;

		if (sscanf(line, "%lx-%lx %*s %lx %x:%x %lu", &lo, &hi, &off,
			   &ma, &mi, &ino) == 6 && off == 0 &&
		    ino == (unsigned long)st.st_ino &&
		    makedev(ma, mi) == st.st_dev &&
		    hi - lo == (unsigned long)ei.me_mapsize) {
			m->lo = (uintptr_t)lo;
			m->len = hi - lo;
			madvise((void *)lo, hi - lo, MADV_DONTNEED);
			break;
		}
	}
	fclose(f);
}

/* The process's minor page faults so far (0 when unknown). */
static long minor_faults(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_minflt : 0;
}

/* The process's resident file pages in KiB (statm's third field: RssFile
 * + RssShmem), -1 when unknown.  The store's map is one of them; the
 * input's window and the binary are the others.  The file stays open: a
 * read is ~6 us, an open and close ~20 us more, every KT_MAP_LOOK
 * faults. */
static long file_resident(kt_store *s)
{
	char b[128];
	long pages = -1;
	ssize_t n;

	if (s->statm == 0) {
		int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);

		s->statm = fd < 0 ? -1 : fd + 1;
	}
	if (s->statm < 0)
		return -1;
	n = pread(s->statm - 1, b, sizeof(b) - 1, 0);
	if (n <= 0)
		return -1;
	b[n] = 0;
	if (sscanf(b, "%*u %*u %ld", &pages) != 1 || pages < 0)
		return -1;
	return pages * (sysconf(_SC_PAGESIZE) / 1024);
}

static void give_back_map(kt_store *s)
{
	s->map_seen = s->wlog.len;
	s->map_wrote = 0;
	s->map_read = 0;
	kt_env_give_back(s->env, &s->envmap);
	s->map_flt = s->map_chk = minor_faults();
	s->map_rss = file_resident(s);
}

/* Whether the map's resident part may have reached its bound.  A fault
 * maps 4 KiB to a whole large folio, so faults alone do not bound it:
 * where statm answers, how much the process's file pages grew since the
 * give-back counts too (KT_MAP_FAULTS stays: where a fault maps 64 KiB
 * it comes first).  Those pages also shrink (the input's window moves
 * on), so the base follows them down: a window that grows again then
 * only brings the next give-back sooner.  floor: KT_MAP_FLOOR bytes came
 * since the give-back, without which the fault count does not count (it
 * counts the heap's faults too); the growth in file pages needs no
 * floor: right after a batch's commit LMDB's page searches filled 28
 * MiB of the map at 1 GB before 1 MiB was written. */
static int map_full(kt_store *s, int floor)
{
	long f = minor_faults(), r;

	if (floor && f - s->map_flt >= KT_MAP_FAULTS)
		return 1;
	if (s->map_rss < 0 || f - s->map_chk < KT_MAP_LOOK)
		return 0;
	s->map_chk = f;
	if ((r = file_resident(s)) < 0) {
		s->map_rss = -1;
		return 0;
	}
	if (r < s->map_rss)
		s->map_rss = r;
	return r - s->map_rss >= KT_MAP_RESIDENT;
}

void kt_map_faulted(kt_store *s)
{
	if (map_full(s, 1))
		give_back_map(s);
}

/* Whether the pages the open transaction dirtied since the savepoint may
 * have reached min_bytes / KT_DIRTY_SHARE (KT_DIRTY_MIN pages at least).
 * LMDB does not say how many it holds, so they are estimated: in each
 * database, the puts and deletes made there, but no more than the tree's
 * pages now.  That counts the leaves a put dirties, not the branch pages
 * above them, which a very large tree adds (up to ~2x: FORMAT.md §6.11);
 * values on overflow pages are counted by the batch's bytes already.
 * Asked only once the batch has KT_DIRTY_MIN puts, then ~10 mdb_stat
 * (copies of the txn's records). */
static int dirty_full(kt_store *s, size_t min_bytes)
{
	size_t psize = 4096, est = 0, lim;
	MDB_stat st;

	if (s->wputs_all - s->sp_puts_all < KT_DIRTY_MIN)
		return 0;
	for (int d = 0; d < KT_DB_COUNT; d++) {
		size_t n = s->wputs[d] - s->sp_puts[d], pages;

		if (n == 0 || mdb_stat(s->wtxn, s->dbi[d], &st) != 0)
			continue;
		psize = st.ms_psize;
		pages = st.ms_leaf_pages + st.ms_branch_pages;
		est += n < pages ? n : pages;
	}
	lim = min_bytes / KT_DIRTY_SHARE / psize;
	return est >= (lim > KT_DIRTY_MIN ? lim : KT_DIRTY_MIN);
}

int kt_store_checkpoint(kt_store *s, size_t min_bytes)
{
	int rc;

	if (!s)
		return KT_EINVAL;
	if (!s->wtxn)
		return kt_err(s, KT_EBUSY, "no write transaction");
	/* between batches too: every KT_MAP_GIVE bytes of writes, or of
	 * blobs read, or every KT_MAP_FAULTS page faults, or once the file
	 * pages grew KT_MAP_RESIDENT (map_full).  Bytes alone let
	 * the map's resident part grow with the store: LMDB's lookups
	 * (page search at every put, blob and path look-ups) read leaves
	 * all over a tree that grows, each fault mapping 64 KiB or more,
	 * and 40 MiB of the map were resident between two give-backs in a
	 * 1 GB import (86-105 MiB at 3.8 GB).  The fault count also counts
	 * anonymous faults, which only makes give-backs more frequent;
	 * KT_MAP_FLOOR keeps them from coming at every few small sources.
	 * Bytes are summed over transactions (kt_txn_begin starts the log
	 * at 0), so many small sources give the map back too.  A loop with
	 * no checkpoint between its steps calls kt_map_faulted (the replay
	 * after map growth). */
	s->map_wrote += s->wlog.len - s->map_seen;
	s->map_seen = s->wlog.len;
	if (s->rdepth == 0 && (s->map_wrote >= KT_MAP_GIVE ||
			       s->map_read >= KT_MAP_GIVE ||
			       (++s->map_tick % KT_MAP_TICK == 0 &&
				map_full(s, s->map_wrote + s->map_read >=
					    KT_MAP_FLOOR))))
		give_back_map(s);
	/* a run that existed before would show what was appended so far */
	/* counted from the savepoint: a source sharing the transaction
	 * (kt_store_savepoint) checkpoints where it would alone */
	if (s->ck_old || s->rdepth > 0 ||
	    (s->wlog.len - s->sp_len < min_bytes && !dirty_full(s, min_bytes)))
		return 0;
	if ((rc = kt_ev_flush(s)) != 0)
		return rc;
	for (size_t i = 0; i < s->nck; i++)
		if ((rc = hold_out(s, &s->ck[i])) != 0)
			return rc;
	if ((rc = kt_txn_commit(s)) != 0)
		return rc;
	s->ck_done = 1;
	give_back_map(s);
	if ((rc = kt_txn_begin(s)) != 0)
		return rc;
	for (size_t i = 0; i < s->nck; i++)
		if ((rc = put_back(s, &s->ck[i])) != 0)
			return rc;
	return 0;
}

int kt_ck_finish(kt_store *s)
{
	unsigned char uk[UNF_KL + KT_RUN_BIN];
	int rc;

	if (!s->ck_done)
		return 0;
	for (size_t i = 0; i < s->nck; i++) {
		unf_key(uk, s->ck[i].run);
		if ((rc = kt_del(s, KT_DB_META, uk, sizeof(uk))) != 0)
			return rc;
	}
	return 0;
}

void kt_ck_undo(kt_store *s)
{
	int rc = 0;

	if (!s->ck_done) {
		kt_ck_reset(s);
		return;
	}
	/* checkpoints were committed: take back what they wrote.  When this
	 * fails too the marks stay, and the next import reclaims. */
	if (kt_txn_begin(s) != 0) {
		kt_ck_reset(s);
		return;
	}
	for (size_t i = 0; i < s->nck && !rc; i++)
		rc = reclaim(s, s->ck[i].run);
	kt_ck_reset(s);
	if (rc || kt_txn_commit(s) != 0) {
		if (s->wtxn)
			mdb_txn_abort(s->wtxn);
		s->wtxn = NULL;
		s->wlog.len = 0;
	}
}

/* Call fn on every `unfinished` mark of txn. */
static int each_mark(kt_store *s, MDB_txn *txn,
		     int (*fn)(kt_store *, const unsigned char *,
			       const MDB_val *, void *), void *arg)
{
	MDB_cursor *c;
	MDB_val k = { UNF_KL, (void *)UNF_KEY }, v;
	int rc;

	rc = mdb_cursor_open(txn, s->dbi[KT_DB_META], &c);
	if (rc)
		return kt_mdb_err(s, rc, "cursor");
	for (rc = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE); rc == 0;
	     rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
		if (k.mv_size < UNF_KL || memcmp(k.mv_data, UNF_KEY, UNF_KL))
			break;
		if (k.mv_size != UNF_KL + KT_RUN_BIN)
			continue; /* another key that starts so: not a mark */
		rc = fn(s, (const unsigned char *)k.mv_data + UNF_KL, &v, arg);
		if (rc)
			break;
	}
	mdb_cursor_close(c);
	if (rc == MDB_NOTFOUND)
		return 0;
	return rc > 0 ? kt_mdb_err(s, rc, "cursor") : rc;
}

static int count_mark(kt_store *s, const unsigned char *run,
		      const MDB_val *v, void *arg)
{
	(void)s;
	(void)run;
	(void)v;
	++*(uint64_t *)arg;
	return 0;
}

int kt_store_unfinished(kt_store *s, uint64_t *n)
{
	MDB_txn *txn;
	int rc;

	if (!s || !n)
		return KT_EINVAL;
	*n = 0;
	if ((rc = kt_rd_begin(s, &txn)) != 0)
		return rc;
	rc = each_mark(s, txn, count_mark, n);
	kt_rd_end(s, txn);
	return rc;
}

struct dead {
	unsigned char (*run)[KT_RUN_BIN];
	size_t n, cap;
};

static int note_dead(kt_store *s, const unsigned char *run, const MDB_val *v,
		     void *arg)
{
	struct dead *d = arg;

	if (owner_alive(v) || ck_find(s, run))
		return 0;
	if (KT_GROW(d->run, d->cap, d->n + 1))
		return kt_err(s, KT_ENOMEM, "unfinished runs");
	memcpy(d->run[d->n++], run, KT_RUN_BIN);
	return 0;
}

int kt_store_reclaim(kt_store *s, uint64_t *n)
{
	struct dead d = { 0 };
	int rc;

	if (!s)
		return KT_EINVAL;
	if (n)
		*n = 0;
	if (!s->wtxn)
		return kt_err(s, KT_EBUSY, "no write transaction");
	/* the marks first, then the deletes: a cursor does not survive
	 * deletes in its database */
	rc = each_mark(s, s->wtxn, note_dead, &d);
	for (size_t i = 0; i < d.n && !rc; i++)
		rc = reclaim(s, d.run[i]);
	if (!rc && n)
		*n = d.n;
	free(d.run);
	return rc;
}

int kt_unfinished_has(kt_store *s, MDB_txn *txn,
		      const unsigned char run[KT_RUN_BIN])
{
	unsigned char uk[UNF_KL + KT_RUN_BIN];
	MDB_val k = { sizeof(uk), uk }, v;

	unf_key(uk, run);
	(void)s;
	return mdb_get(txn, s->dbi[KT_DB_META], &k, &v) == 0;
}
