/*
 * t_store_cache.c - the read caches (decoded header pages with body hints,
 * decompressed blocks, pooled scan buffers) never show anything but what
 * the snapshot of the read holds: appends by another process, aborted write
 * transactions, reads in an older nested snapshot, eviction, strings that
 * do not end in a NUL in place, scans nested in scans and a cache resize
 * from a scan's callback.
 */
#include "testutil.h"
#include <sys/wait.h>
#include <lmdb.h>
#include <zstd.h>
#include "../../store/store.h"

struct fx {
	char *dir;
	char path[4200];
	kt_store *s;
	char run[KT_RUN_ID_HEX + 1];
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->s = tu_store_new(&f->dir, f->path, sizeof(f->path), "c.ktraj", 0);
	kt_run_id_from_identity("test:cache", f->run);
	assert_int_equal(kt_store_begin(f->s), 0);
	assert_int_equal(kt_run_create(f->s, f->run, "c", "test", NULL), 0);
	assert_int_equal(kt_store_commit(f->s), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	tu_store_gone(f->s, f->dir);
	free(f);
	return 0;
}

/* The payload of event seq in generation gen; `big` pads it to ~2 KiB so
 * a few hundred events fill several blocks. */
static void payload(char *buf, size_t cap, uint64_t seq, int gen, int big)
{
	int n = snprintf(buf, cap, "{\"text\":\"g%d seq %llu tile %llu", gen,
			 (unsigned long long)seq,
			 (unsigned long long)(seq * 2654435761u % 100003));

	for (int i = 0; big && i < 60 && (size_t)n + 40 < cap; i++)
		n += snprintf(buf + n, cap - (size_t)n, " w%llu",
			      (unsigned long long)((seq * 31 + (uint64_t)i) *
						   2654435761u % 1000003));
	snprintf(buf + n, cap - (size_t)n, "\"}");
}

static int kind_of(uint64_t seq)
{
	static const int k[] = { KT_KIND_MESSAGE, KT_KIND_TOOL_CALL,
				 KT_KIND_TOOL_RESULT, KT_KIND_NOTE };

	return k[seq * 7 % 11 % 4];
}

static void append_n(kt_store *s, const char *run, uint64_t from, uint64_t n,
		     int gen, int big)
{
	char buf[4096];
	kt_event ev;

	for (uint64_t q = from; q < from + n; q++) {
		payload(buf, sizeof(buf), q, gen, big);
		memset(&ev, 0, sizeof(ev));
		ev.seq = q;
		ev.parent = q > 1 ? q - 1 : 0;
		ev.ts_ns = q % 5 ? 1700000000000000000LL + (int64_t)q :
				   KT_TS_UNKNOWN;
		ev.kind = kind_of(q);
		ev.actor = q % 2 ? "agent" : "tool";
		ev.payload = buf;
		assert_int_equal(kt_event_append(s, run, &ev), 0);
	}
}

static void fill(kt_store *s, const char *run, uint64_t from, uint64_t n,
		 int gen, int big)
{
	assert_int_equal(kt_store_begin(s), 0);
	append_n(s, run, from, n, gen, big);
	assert_int_equal(kt_store_commit(s), 0);
}

/* Read seq (BODY) and check it is generation gen's event. */
static void check(kt_store *s, const char *run, uint64_t seq, int gen,
		  int big)
{
	char want[4096];
	kt_event ev;

	payload(want, sizeof(want), seq, gen, big);
	{
		int rc_ = kt_event_read(s, run, seq, KT_READ_BODY, &ev);

		if (rc_)
			fprintf(stderr, "read %llu: %s\n", (unsigned long long)seq,
				kt_store_errmsg(s));
		assert_int_equal(rc_, 0);
	}
	assert_int_equal(ev.seq, seq);
	assert_int_equal(ev.kind, kind_of(seq));
	assert_int_equal(ev.parent, seq > 1 ? seq - 1 : 0);
	assert_string_equal(ev.actor, seq % 2 ? "agent" : "tool");
	assert_int_equal(ev.payload_len, strlen(want));
	assert_string_equal(ev.payload, want);
	assert_int_equal(kt_event_read(s, run, seq, KT_READ_HEAD, &ev), 0);
	assert_int_equal(ev.kind, kind_of(seq));
	assert_true(ev.ts_ns == (seq % 5 ? 1700000000000000000LL +
					     (int64_t)seq : KT_TS_UNKNOWN));
}

/* Appends 11..300 and the chain value after 300 from another process (a
 * second handle in this process is not allowed: LMDB). */
static void other_process_appends(struct fx *f, unsigned char chain[KT_HASH_LEN])
{
	int pfd[2], status;
	pid_t pid;

	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		kt_store *b;
		kt_event ev;
		char buf[4096];

		close(pfd[0]);
		if (kt_store_open(f->path, 0, &b) != 0 || kt_store_begin(b))
			_exit(2);
		for (uint64_t q = 11; q <= 300; q++) {
			payload(buf, sizeof(buf), q, 0, 0);
			memset(&ev, 0, sizeof(ev));
			ev.seq = q;
			ev.parent = q - 1;
			ev.ts_ns = q % 5 ? 1700000000000000000LL + (int64_t)q :
					   KT_TS_UNKNOWN;
			ev.kind = kind_of(q);
			ev.actor = q % 2 ? "agent" : "tool";
			ev.payload = buf;
			if (kt_event_append(b, f->run, &ev))
				_exit(3);
		}
		if (kt_store_commit(b) ||
		    kt_event_read(b, f->run, 300, KT_READ_HASH, &ev) ||
		    write(pfd[1], ev.chain, KT_HASH_LEN) != KT_HASH_LEN)
			_exit(4);
		kt_store_close(b);
		_exit(0);
	}
	close(pfd[1]);
	assert_int_equal(read(pfd[0], chain, KT_HASH_LEN), KT_HASH_LEN);
	close(pfd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* The open page and open blocks grow in another process: a cached page of
 * 10 rows must not hide events 11.. nor claim events past the end. */
static void test_other_process_appends(void **state)
{
	struct fx *f = *state;
	unsigned char chain[KT_HASH_LEN];
	kt_event ev;

	fill(f->s, f->run, 1, 10, 0, 0);
	for (uint64_t q = 1; q <= 10; q++)
		check(f->s, f->run, q, 0, 0);
	assert_int_equal(kt_event_read(f->s, f->run, 11, KT_READ_HEAD, &ev),
			 KT_ENOTFOUND);
	other_process_appends(f, chain);
	for (uint64_t q = 1; q <= 300; q += 7)
		check(f->s, f->run, q, 0, 0);
	check(f->s, f->run, 256, 0, 0);
	check(f->s, f->run, 257, 0, 0);
	check(f->s, f->run, 300, 0, 0);
	assert_int_equal(kt_event_read(f->s, f->run, 301, KT_READ_BODY, &ev),
			 KT_ENOTFOUND);
	/* the chain through cached bodies equals the other process's */
	assert_int_equal(kt_event_read(f->s, f->run, 300, KT_READ_HASH, &ev), 0);
	assert_memory_equal(ev.chain, chain, KT_HASH_LEN);
}

/* Events read inside a write transaction that aborts are forgotten; the
 * same seqs appended again read back as the new events. */
static void test_abort_forgets(void **state)
{
	struct fx *f = *state;
	kt_event ev;

	fill(f->s, f->run, 1, 10, 0, 0);
	check(f->s, f->run, 10, 0, 0);
	assert_int_equal(kt_store_begin(f->s), 0);
	append_n(f->s, f->run, 11, 5, 1, 0);
	check(f->s, f->run, 13, 1, 0);
	check(f->s, f->run, 10, 0, 0);
	append_n(f->s, f->run, 16, 1, 1, 0);
	check(f->s, f->run, 16, 1, 0);
	check(f->s, f->run, 13, 1, 0);
	kt_store_abort(f->s);
	assert_int_equal(kt_event_read(f->s, f->run, 13, KT_READ_BODY, &ev),
			 KT_ENOTFOUND);
	assert_int_equal(kt_event_read(f->s, f->run, 11, KT_READ_HEAD, &ev),
			 KT_ENOTFOUND);
	fill(f->s, f->run, 11, 6, 2, 0);
	for (uint64_t q = 11; q <= 16; q++)
		check(f->s, f->run, q, 2, 0);
	check(f->s, f->run, 10, 0, 0);
}

struct nest {
	struct fx *f;
	int calls;
};

/* Inside a scan (one read snapshot), write and read event 11 in a write
 * transaction, commit, then read again: the scan's snapshot has no 11. */
static int nest_cb(const kt_event *e, void *arg)
{
	struct nest *n = arg;
	kt_store *s = n->f->s;
	kt_event ev;

	if (n->calls++)
		return 0;
	assert_int_equal(e->seq, 1);
	assert_int_equal(kt_store_begin(s), 0);
	append_n(s, n->f->run, 11, 1, 0, 0);
	check(s, n->f->run, 11, 0, 0);
	assert_int_equal(kt_store_commit(s), 0);
	assert_int_equal(kt_event_read(s, n->f->run, 11, KT_READ_BODY, &ev),
			 KT_ENOTFOUND);
	assert_int_equal(kt_event_read(s, n->f->run, 11, KT_READ_HEAD, &ev),
			 KT_ENOTFOUND);
	check(s, n->f->run, 10, 0, 0);
	return 0;
}

static void test_nested_snapshot(void **state)
{
	struct fx *f = *state;
	struct nest n = { f, 0 };

	fill(f->s, f->run, 1, 10, 0, 0);
	check(f->s, f->run, 5, 0, 0);
	assert_int_equal(kt_event_scan(f->s, f->run, 0, 0, 0, KT_READ_BODY,
				       nest_cb, &n), 0);
	assert_int_equal(n.calls, 10);
	check(f->s, f->run, 11, 0, 0);
}

/* Many runs (more header pages than the smallest page cache has slots)
 * and bodies in several blocks, read in a scrambled order with the block
 * cache off, smaller than one block, and at its default. */
static void test_eviction(void **state)
{
	struct fx *f = *state;
	enum { RUNS = 36, N = 300 };
	char runs[RUNS][KT_RUN_ID_HEX + 1];
	static const size_t sizes[] = { 0, 100 << 10, 64u << 20 };

	assert_int_equal(kt_store_begin(f->s), 0);
	for (int r = 0; r < RUNS; r++) {
		char id[32];

		snprintf(id, sizeof(id), "test:evict:%d", r);
		kt_run_id_from_identity(id, runs[r]);
		assert_int_equal(kt_run_create(f->s, runs[r], id, "test",
					       NULL), 0);
		append_n(f->s, runs[r], 1, N, 0, r == 0);
	}
	assert_int_equal(kt_store_commit(f->s), 0);
	for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		uint64_t x = 88172645463325252ull;

		assert_int_equal(kt_store_set_cache(f->s, sizes[z]), 0);
		for (int i = 0; i < 3000; i++) {
			int r;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			r = (int)(x % RUNS);
			check(f->s, runs[r], 1 + (x >> 20) % N, 0, r == 0);
		}
		for (uint64_t q = 1; q <= N; q++)
			check(f->s, runs[0], q, 0, 1);
	}
}

struct scanchk {
	kt_store *s;
	const char *run;
	uint64_t next;
	int nested, resize;
	unsigned how;
};

static int scan_cb(const kt_event *ev, void *arg)
{
	struct scanchk *c = arg;
	char want[4096];

	payload(want, sizeof(want), ev->seq, 0, 1);
	assert_int_equal(ev->seq, c->next);
	c->next++;
	assert_int_equal(ev->kind, kind_of(ev->seq));
	assert_int_equal(ev->payload_len, strlen(want));
	assert_string_equal(ev->payload, want);
	if (c->resize && ev->seq == 40)
		assert_int_equal(kt_store_set_cache(c->s, 1 << 20), 0);
	if (c->nested && ev->seq % 97 == 0) {
		struct scanchk in = { c->s, c->run, ev->seq, 0, 0, c->how };

		assert_int_equal(kt_event_scan(c->s, c->run, ev->seq,
					       ev->seq + 150, 0, c->how,
					       scan_cb, &in), 0);
		assert_int_equal(in.next, ev->seq + 151 > 600 ? 601 :
					  ev->seq + 151);
	}
	return 0;
}

/* Scans reuse their block buffers: back to back, nested, with a resize
 * of the cache from the callback, with and without hashes. */
static void test_scan_buffers(void **state)
{
	struct fx *f = *state;
	kt_event ev;
	unsigned char chain[KT_HASH_LEN];

	fill(f->s, f->run, 1, 600, 0, 1);
	for (int round = 0; round < 4; round++) {
		struct scanchk c = { f->s, f->run, 1, round & 1, round == 2,
				     round >= 2 ? KT_READ_BODY | KT_READ_HASH :
						  KT_READ_BODY };

		assert_int_equal(kt_event_scan(f->s, f->run, 0, 0, 0, c.how,
					       scan_cb, &c), 0);
		assert_int_equal(c.next, 601);
	}
	/* the chain a scan carries equals the head of the run */
	assert_int_equal(kt_event_read(f->s, f->run, 600, KT_READ_HASH, &ev),
			 0);
	memcpy(chain, ev.chain, KT_HASH_LEN);
	{
		kt_run_info ri;

		assert_int_equal(kt_run_get(f->s, f->run, &ri), 0);
		assert_memory_equal(ri.head, chain, KT_HASH_LEN);
	}
	assert_int_equal(kt_store_verify(f->s, f->run, NULL, NULL), 0);
}

/* A body is followed by the next body of its block, whose first byte is
 * the high byte of its actor length: not 0 for an actor of 256+ bytes.
 * The strings handed out must still end in a NUL. */
static void test_terminators(void **state)
{
	struct fx *f = *state;
	char actor[301], pl[64];
	kt_event ev;

	memset(actor, 'a', 300);
	actor[300] = 0;
	assert_int_equal(kt_store_begin(f->s), 0);
	for (uint64_t q = 1; q <= 6; q++) {
		snprintf(pl, sizeof(pl), "{\"text\":\"n%llu\"}",
			 (unsigned long long)q);
		memset(&ev, 0, sizeof(ev));
		ev.seq = q;
		ev.ts_ns = KT_TS_UNKNOWN;
		ev.kind = KT_KIND_NOTE;
		ev.actor = q % 2 ? "agent" : actor;
		ev.prov_json = q % 3 ? "{\"src\":\"x\",\"line\":1}" : NULL;
		ev.payload = pl;
		assert_int_equal(kt_event_append(f->s, f->run, &ev), 0);
	}
	assert_int_equal(kt_store_commit(f->s), 0);
	for (int round = 0; round < 3; round++)
		for (uint64_t q = 1; q <= 6; q++) {
			snprintf(pl, sizeof(pl), "{\"text\":\"n%llu\"}",
				 (unsigned long long)q);
			assert_int_equal(kt_event_read(f->s, f->run, q,
						       KT_READ_BODY, &ev), 0);
			assert_string_equal(ev.payload, pl);
			assert_int_equal(ev.payload_len, strlen(pl));
			assert_string_equal(ev.actor, q % 2 ? "agent" : actor);
			if (q % 3)
				assert_string_equal(ev.prov_json,
						    "{\"src\":\"x\",\"line\":1}");
			else
				assert_null(ev.prov_json);
		}
}

/* The store file's raw "dicts" table, in a write transaction of its own
 * LMDB environment (the store closed): what a damaged or foreign writer
 * would leave there.  Commit and close with dicts_done. */
static MDB_txn *dicts_open(const char *path, MDB_env **env, MDB_dbi *dbi)
{
	MDB_txn *txn;

	assert_int_equal(mdb_env_create(env), 0);
	assert_int_equal(mdb_env_set_maxdbs(*env, 32), 0);
	assert_int_equal(mdb_env_open(*env, path, MDB_NOSUBDIR, 0644), 0);
	assert_int_equal(mdb_txn_begin(*env, NULL, 0, &txn), 0);
	assert_int_equal(mdb_dbi_open(txn, "dicts", 0, dbi), 0);
	return txn;
}

static void dicts_done(MDB_env *env, MDB_txn *txn)
{
	assert_int_equal(mdb_txn_commit(txn), 0);
	mdb_env_close(env);
}

/* Rewrite every dictionary stored raw as one zstd frame of itself (what a
 * writer may store, FORMAT.md §6.8); returns how many are frames now. */
static int compress_dicts(const char *path)
{
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	MDB_cursor *c;
	MDB_val k, v;
	int n = 0;

	txn = dicts_open(path, &env, &dbi);
	assert_int_equal(mdb_cursor_open(txn, dbi, &c), 0);
	while (mdb_cursor_get(c, &k, &v, n ? MDB_NEXT : MDB_FIRST) == 0) {
		static const unsigned char dmagic[4] = { 0x37, 0xa4, 0x30, 0xec };
		size_t cap = ZSTD_compressBound(v.mv_size), z;
		void *buf;
		MDB_val nv;

		n++;
		if (v.mv_size < 4 || memcmp(v.mv_data, dmagic, 4) != 0)
			continue; /* a frame already */
		buf = malloc(cap);
		assert_non_null(buf);
		z = ZSTD_compress(buf, cap, v.mv_data, v.mv_size, 3);
		assert_false(ZSTD_isError(z));
		nv.mv_size = z;
		nv.mv_data = buf;
		assert_int_equal(mdb_cursor_put(c, &k, &nv, MDB_CURRENT), 0);
		free(buf);
	}
	mdb_cursor_close(c);
	dicts_done(env, txn);
	return n;
}

/* Scans decode blocks whose dictionary is stored as a zstd frame. */
static void test_compressed_dict(void **state)
{
	struct fx *f = *state;
	struct scanchk c = { NULL, f->run, 1, 0, 0, KT_READ_BODY };

	fill(f->s, f->run, 1, 2600, 0, 1);
	kt_store_close(f->s);
	f->s = NULL;
	assert_true(compress_dicts(f->path) > 0);
	assert_int_equal(kt_store_open(f->path, 0, &f->s), 0);
	c.s = f->s;
	for (int round = 0; round < 2; round++) {
		c.next = 1;
		assert_int_equal(kt_event_scan(f->s, f->run, 0, 0, 0,
					       KT_READ_BODY, scan_cb, &c), 0);
		assert_int_equal(c.next, 2601);
	}
}

/* Point reads through a dictionary stored as a frame: its DDict references
 * the decoded bytes the handle keeps (dict_digest), so they must live as
 * long as the digest, through a second handle and a close. */
static void test_compressed_dict_point(void **state)
{
	struct fx *f = *state;
	static const uint64_t seqs[] = { 2600, 1, 1300, 2599, 7 };

	fill(f->s, f->run, 1, 2600, 0, 1);
	kt_store_close(f->s);
	f->s = NULL;
	assert_true(compress_dicts(f->path) > 0);
	for (int round = 0; round < 2; round++) {
		assert_int_equal(kt_store_open(f->path, 0, &f->s), 0);
		for (size_t i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++)
			check(f->s, f->run, seqs[i], 0, 1);
		kt_store_close(f->s);
		f->s = NULL;
	}
	assert_int_equal(kt_store_open(f->path, 0, &f->s), 0);
}

/* Store a damaged zstd frame (magic, then bytes that do not decode) as
 * dictionary id, or, with id 0, over every stored dictionary; returns how
 * many it wrote. */
static int damage_dicts(const char *path, uint32_t id)
{
	static const unsigned char bad[16] = { 0x28, 0xb5, 0x2f, 0xfd, 0xff,
					       0xff, 0xff, 0xff, 1, 2, 3 };
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	MDB_val k, v = { sizeof(bad), (void *)bad };
	unsigned char kb[4] = { (unsigned char)(id >> 24),
				(unsigned char)(id >> 16),
				(unsigned char)(id >> 8), (unsigned char)id };
	int n = 0;

	txn = dicts_open(path, &env, &dbi);
	if (id) {
		k.mv_size = 4;
		k.mv_data = kb;
		assert_int_equal(mdb_put(txn, dbi, &k, &v, 0), 0);
		n = 1;
	} else {
		MDB_cursor *c;
		MDB_val ov;

		assert_int_equal(mdb_cursor_open(txn, dbi, &c), 0);
		while (mdb_cursor_get(c, &k, &ov, n ? MDB_NEXT : MDB_FIRST) == 0) {
			assert_int_equal(mdb_cursor_put(c, &k, &v, MDB_CURRENT),
					 0);
			n++;
		}
		mdb_cursor_close(c);
	}
	dicts_done(env, txn);
	return n;
}

/* A dictionary is read when a block needs it: a damaged one that no block
 * uses leaves every read working and is found by verify (FORMAT.md §6.10:
 * "one no block uses is not read by any reader"). */
static void test_unused_dict_damaged(void **state)
{
	struct fx *f = *state;
	const char *br = NULL;
	uint64_t bs = 0;

	fill(f->s, f->run, 1, 2600, 0, 1);
	kt_store_close(f->s);
	f->s = NULL;
	assert_int_equal(damage_dicts(f->path, 99999), 1);
	assert_int_equal(kt_store_open(f->path, KT_OPEN_CHECK, &f->s), 0);
	check(f->s, f->run, 1, 0, 1);
	check(f->s, f->run, 2600, 0, 1);
	assert_int_equal(kt_store_verify(f->s, f->run, &br, &bs), 0);
	assert_int_equal(kt_store_verify(f->s, NULL, &br, &bs), KT_ECORRUPT);
	assert_non_null(strstr(kt_store_errmsg(f->s), "bad dictionary 99999"));
}

/* A damaged dictionary that blocks use fails their reads with
 * KT_ECORRUPT, and verify, not the open. */
static void test_used_dict_damaged(void **state)
{
	struct fx *f = *state;
	const char *br = NULL;
	uint64_t bs = 0;
	kt_event ev;

	fill(f->s, f->run, 1, 2600, 0, 1);
	kt_store_close(f->s);
	f->s = NULL;
	assert_true(damage_dicts(f->path, 0) > 0);
	assert_int_equal(kt_store_open(f->path, KT_OPEN_CHECK, &f->s), 0);
	assert_int_equal(kt_event_read(f->s, f->run, 2600, KT_READ_BODY, &ev),
			 KT_ECORRUPT);
	assert_non_null(strstr(kt_store_errmsg(f->s), "bad dictionary"));
	assert_int_equal(kt_store_verify(f->s, NULL, &br, &bs), KT_ECORRUPT);
}

static int count_cb(const kt_event *e, void *arg)
{
	(void)e;
	++*(uint64_t *)arg;
	return 0;
}

/* kt_store_read_hold: every read until the release sees the one snapshot
 * of the hold (what `questions mine` relies on to read all runs in one
 * transaction), so another process's appends show only after it; holds
 * nest; a hold inside a write transaction is refused. */
static void test_read_hold(void **state)
{
	struct fx *f = *state;
	unsigned char chain[KT_HASH_LEN];
	kt_run_info ri;
	kt_event ev;
	uint64_t n = 0;

	fill(f->s, f->run, 1, 10, 0, 0);
	assert_int_equal(kt_store_read_hold(f->s), 0);
	assert_int_equal(kt_store_read_hold(f->s), 0);
	check(f->s, f->run, 10, 0, 0);
	other_process_appends(f, chain);
	kt_store_read_release(f->s);
	/* still held once: the snapshot before the appends */
	assert_int_equal(kt_event_read(f->s, f->run, 11, KT_READ_HEAD, &ev),
			 KT_ENOTFOUND);
	assert_int_equal(kt_run_get(f->s, f->run, &ri), 0);
	assert_int_equal(ri.n_events, 10);
	assert_int_equal(kt_event_scan(f->s, f->run, 1, 0, 0, KT_READ_BODY,
				       count_cb, &n), 0);
	assert_int_equal(n, 10);
	check(f->s, f->run, 7, 0, 0);
	kt_store_read_release(f->s);
	kt_store_read_release(f->s); /* nothing held: no-op */
	check(f->s, f->run, 300, 0, 0);
	assert_int_equal(kt_run_get(f->s, f->run, &ri), 0);
	assert_int_equal(ri.n_events, 300);
	n = 0;
	assert_int_equal(kt_event_scan(f->s, f->run, 1, 0, 0, KT_READ_BODY,
				       count_cb, &n), 0);
	assert_int_equal(n, 300);
	assert_int_equal(kt_event_read(f->s, f->run, 300, KT_READ_HASH, &ev), 0);
	assert_memory_equal(ev.chain, chain, KT_HASH_LEN);

	assert_int_equal(kt_store_begin(f->s), 0);
	assert_int_equal(kt_store_read_hold(f->s), KT_EBUSY);
	assert_int_equal(kt_store_commit(f->s), 0);
	assert_int_equal(kt_store_read_hold(NULL), KT_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_other_process_appends,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_abort_forgets, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_nested_snapshot, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_eviction, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scan_buffers, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_terminators, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_compressed_dict, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_compressed_dict_point, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_unused_dict_damaged, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_used_dict_damaged, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_read_hold, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
