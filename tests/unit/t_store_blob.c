/*
 * t_store_blob.c - blobs: dedup, delta chains over thousands of versions of
 * a ~40 KB source, keyframes, corruption caught by get and verify;
 * dictionaries: trained automatically, old events keep decoding.
 */
#include <zstd.h>
#include "testutil.h"
#include <lmdb.h>
#include "../../store/store.h"
#include "tu_lmdb.h"

struct fx {
	char *dir;
	char path[4200];
	kt_store *s;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->s = tu_store_new(&f->dir, f->path, sizeof(f->path), "b.ktraj",
			    KT_OPEN_BULK);
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

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

/* A ~40 KB CUDA-like source as an array of lines. */
#define NL 1100
static char *lines[NL + 64];
static int nlines;

static void src_init(void)
{
	char buf[128];

	nlines = 0;
	for (int i = 0; i < NL; i++) {
		snprintf(buf, sizeof(buf),
			 "    acc%d += tile[%d][threadIdx.x] * w[%u]; // s%d\n",
			 i % 8, i % 32, rnd() % 4096, i);
		lines[nlines++] = strdup(buf);
	}
}

static void src_free(void)
{
	for (int i = 0; i < nlines; i++)
		free(lines[i]);
	nlines = 0;
}

static void src_mutate(void)
{
	char buf[128];
	int n = 1 + (int)(rnd() % 4);

	for (int m = 0; m < n; m++) {
		int at = (int)(rnd() % (unsigned)nlines);

		snprintf(buf, sizeof(buf), "    x = blockDim.x * %u + %u;\n",
			 rnd() % 1024, rnd() % 97);
		if (rnd() % 3 == 0 && nlines < NL + 60) {
			memmove(lines + at + 1, lines + at,
				(size_t)(nlines - at) * sizeof(char *));
			nlines++;
			lines[at] = strdup(buf);
		} else {
			free(lines[at]);
			lines[at] = strdup(buf);
		}
	}
}

static char *src_text(size_t *len)
{
	size_t n = 0, off = 0;
	char *t;

	for (int i = 0; i < nlines; i++)
		n += strlen(lines[i]);
	t = malloc(n + 1);
	for (int i = 0; i < nlines; i++) {
		size_t l = strlen(lines[i]);

		memcpy(t + off, lines[i], l);
		off += l;
	}
	t[n] = 0;
	*len = n;
	return t;
}

static void test_blob_basic(void **state)
{
	struct fx *f = *state;
	unsigned char h[KT_HASH_LEN], h2[KT_HASH_LEN], e[KT_HASH_LEN];
	void *d;
	size_t n;
	kt_store_stats st;

	assert_int_equal(kt_blob_put(f->s, "x", 1, NULL, h), KT_EBUSY);
	assert_int_equal(kt_store_begin(f->s), 0);
	assert_int_equal(kt_blob_put(f->s, "hello", 5, NULL, h), 0);
	kt_sha256("hello", 5, e);
	assert_memory_equal(h, e, KT_HASH_LEN);
	assert_int_equal(kt_blob_put(f->s, "hello", 5, "p.c", h2), 0);
	assert_memory_equal(h, h2, KT_HASH_LEN);
	assert_int_equal(kt_blob_put(f->s, "", 0, NULL, h2), 0);
	assert_int_equal(kt_blob_exists(f->s, h), 1);
	assert_int_equal(kt_store_commit(f->s), 0);
	assert_int_equal(kt_blob_get(f->s, h, &d, &n), 0);
	assert_int_equal(n, 5);
	assert_string_equal(d, "hello");
	free(d);
	assert_int_equal(kt_blob_get(f->s, h2, &d, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(((char *)d)[0], 0);
	free(d);
	memset(e, 7, sizeof(e));
	assert_int_equal(kt_blob_exists(f->s, e), 0);
	assert_int_equal(kt_blob_get(f->s, e, &d, &n), KT_ENOTFOUND);
	assert_int_equal(kt_store_stats_get(f->s, NULL, &st), 0);
	assert_int_equal(st.blobs, 2);
	/* an aborted put leaves nothing */
	assert_int_equal(kt_store_begin(f->s), 0);
	assert_int_equal(kt_blob_put(f->s, "gone", 4, "p.c", e), 0);
	kt_store_abort(f->s);
	assert_int_equal(kt_blob_exists(f->s, e), 0);
	/* ... not even in the cache of recent contents */
	assert_int_equal(kt_blob_get(f->s, e, &d, &n), KT_ENOTFOUND);
}

/*
 * Many files edited in turn, more than the store keeps recent contents
 * of: every version is a delta against its own file's previous one and
 * reads back exactly, in any order.
 */
static void test_blob_interleaved(void **state)
{
	enum { NF = 80, NVER = 6 };
	struct fx *f = *state;
	static unsigned char h[NF][NVER][KT_HASH_LEN];
	static char text[NF][NVER][600];
	char path[32];
	int deltas = 0;
	void *d;
	size_t n;

	assert_int_equal(kt_store_begin(f->s), 0);
	for (int v = 0; v < NVER; v++)
		for (int i = 0; i < NF; i++) {
			int o = 0;

			for (int l = 0; l < 12; l++)
				o += snprintf(text[i][v] + o, sizeof(text[i][v]) - o,
					      "file %d line %d: x[%d] = y[%d] * %d;\n",
					      i, l, l, l, l == v % 12 ? v : 1);
			snprintf(path, sizeof(path), "src/k%d.cu", i);
			assert_int_equal(kt_blob_put(f->s, text[i][v], (size_t)o,
						     path, h[i][v]), 0);
		}
	assert_int_equal(kt_store_commit(f->s), 0);
	kt_store_close(f->s);
	f->s = NULL;
	{
		MDB_env *env;
		MDB_txn *txn;
		MDB_dbi dbi;

		assert_int_equal(mdb_env_create(&env), 0);
		mdb_env_set_maxdbs(env, 16);
		assert_int_equal(mdb_env_open(env, f->path, MDB_NOSUBDIR |
					      MDB_RDONLY, 0644), 0);
		assert_int_equal(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn), 0);
		assert_int_equal(mdb_dbi_open(txn, "blobs", 0, &dbi), 0);
		for (int i = 0; i < NF; i++)
			for (int v = 1; v < NVER; v++) {
				MDB_val k = { KT_HASH_LEN, h[i][v] }, val;

				assert_int_equal(mdb_get(txn, dbi, &k, &val), 0);
				/* a delta whose base is this file's previous
				 * version */
				if (((unsigned char *)val.mv_data)[0] == 2 &&
				    !memcmp((unsigned char *)val.mv_data + 10,
					    h[i][v - 1], KT_HASH_LEN))
					deltas++;
			}
		mdb_txn_abort(txn);
		mdb_env_close(env);
	}
	assert_int_equal(deltas, NF * (NVER - 1));
	assert_int_equal(kt_store_open(f->path, 0, &f->s), 0);
	for (int k = 0; k < NF * NVER; k++) {
		int i = (int)(rnd() % NF), v = (int)(rnd() % NVER);

		assert_int_equal(kt_blob_get(f->s, h[i][v], &d, &n), 0);
		assert_int_equal(n, strlen(text[i][v]));
		assert_memory_equal(d, text[i][v], n);
		free(d);
	}
}

#define NV 2000

static void test_blob_versions(void **state)
{
	struct fx *f = *state;
	static unsigned char hs[NV][KT_HASH_LEN];
	size_t total = 0, n;
	kt_store_stats st;
	void *d;

	src_init();
	assert_int_equal(kt_store_begin(f->s), 0);
	for (int v = 0; v < NV; v++) {
		char *t;

		src_mutate();
		t = src_text(&n);
		assert_true(n > 30000);
		total += n;
		assert_int_equal(kt_blob_put(f->s, t, n, "kernel.cu", hs[v]), 0);
		free(t);
		if (v % 500 == 499) {
			assert_int_equal(kt_store_commit(f->s), 0);
			assert_int_equal(kt_store_begin(f->s), 0);
		}
	}
	assert_int_equal(kt_store_commit(f->s), 0);
	assert_int_equal(kt_store_stats_get(f->s, NULL, &st), 0);
	assert_int_equal(st.blob_raw_bytes, total);
	/* deltas: far below a plain frame per version (~10 KB each) */
	assert_true(st.blob_stored_bytes * 30 < total);

	/* every version reads back exactly: regenerate the sequence */
	src_free();
	rng = 0x9e3779b97f4a7c15ull;
	src_init();
	for (int v = 0; v < NV; v++) {
		char *t;
		unsigned char h[KT_HASH_LEN];

		src_mutate();
		t = src_text(&n);
		kt_sha256(t, n, h);
		assert_memory_equal(h, hs[v], KT_HASH_LEN);
		if (v % 3 == 0 || v > NV - 40) {
			size_t gn;

			assert_int_equal(kt_blob_get(f->s, hs[v], &d, &gn), 0);
			assert_int_equal(gn, n);
			assert_memory_equal(d, t, n);
			free(d);
		}
		free(t);
	}
	src_free();
	/* random order: each reconstructs through its own chain */
	for (int i = 0; i < 200; i++) {
		int v = (int)(rnd() % NV);
		unsigned char h[KT_HASH_LEN];

		assert_int_equal(kt_blob_get(f->s, hs[v], &d, &n), 0);
		kt_sha256(d, n, h);
		assert_memory_equal(h, hs[v], KT_HASH_LEN);
		free(d);
	}
	assert_int_equal(kt_store_verify(f->s, NULL, NULL, NULL), 0);
}

/* chain depth stays below the keyframe interval */
static void test_blob_depth(void **state)
{
	struct fx *f = *state;
	/* three full chains and the start of a fourth */
	enum { NVERS = 3 * KT_BLOB_KEYFRAME + 4 };
	static unsigned char h[NVERS][KT_HASH_LEN];
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	int maxd = 0, keyframes = 0;

	src_init();
	assert_int_equal(kt_store_begin(f->s), 0);
	for (int v = 0; v < NVERS; v++) {
		size_t n;
		char *t;

		src_mutate();
		t = src_text(&n);
		assert_int_equal(kt_blob_put(f->s, t, n, "k.cu", h[v]), 0);
		free(t);
	}
	assert_int_equal(kt_store_commit(f->s), 0);
	src_free();
	kt_store_close(f->s);
	f->s = NULL;
	assert_int_equal(mdb_env_create(&env), 0);
	mdb_env_set_maxdbs(env, 16);
	assert_int_equal(mdb_env_open(env, f->path, MDB_NOSUBDIR | MDB_RDONLY,
				      0644), 0);
	assert_int_equal(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn), 0);
	assert_int_equal(mdb_dbi_open(txn, "blobs", 0, &dbi), 0);
	for (int v = 0; v < NVERS; v++) {
		MDB_val k = { KT_HASH_LEN, h[v] }, val;
		const unsigned char *p;

		assert_int_equal(mdb_get(txn, dbi, &k, &val), 0);
		p = val.mv_data;
		if (p[1] > maxd)
			maxd = p[1];
		keyframes += p[0] != 2;
		assert_int_equal(p[1], v % KT_BLOB_KEYFRAME);
	}
	mdb_txn_abort(txn);
	mdb_env_close(env);
	assert_int_equal(maxd, KT_BLOB_KEYFRAME - 1);
	assert_int_equal(keyframes, 4);
	assert_int_equal(kt_store_open(f->path, 0, &f->s), 0);
}

static void test_blob_corrupt(void **state)
{
	struct fx *f = *state;
	unsigned char h[10][KT_HASH_LEN];
	char run[KT_RUN_ID_HEX + 1], hx[KT_HASH_HEX + 1], pl[256];
	const char *bad_run;
	uint64_t bad_seq = 9;
	void *d;
	size_t n;
	kt_event ev;

	src_init();
	kt_run_id_from_identity("blob:corrupt", run);
	assert_int_equal(kt_store_begin(f->s), 0);
	assert_int_equal(kt_run_create(f->s, run, "c", "t", NULL), 0);
	for (int v = 0; v < 10; v++) {
		char *t;

		src_mutate();
		t = src_text(&n);
		assert_int_equal(kt_blob_put(f->s, t, n, "k.cu", h[v]), 0);
		free(t);
	}
	kt_hex(h[5], KT_HASH_LEN, hx);
	snprintf(pl, sizeof(pl), "{\"call_id\":\"c\",\"ok\":true,\"output\":\"\","
		 "\"output_blob\":\"%s\"}", hx);
	memset(&ev, 0, sizeof(ev));
	ev.seq = 1;
	ev.kind = KT_KIND_TOOL_RESULT;
	ev.actor = "tool";
	ev.payload = pl;
	assert_int_equal(kt_event_append(f->s, run, &ev), 0);
	assert_int_equal(kt_store_commit(f->s), 0);
	src_free();
	assert_int_equal(kt_store_verify(f->s, NULL, NULL, NULL), 0);
	kt_store_close(f->s);
	f->s = NULL;
	/* flip a byte in the delta frame of version 5 (after its header) */
	tu_flip_value(f->path, "blobs", h[5], KT_HASH_LEN, 10 + 32 + 8, 0x01);
	assert_int_equal(kt_store_open(f->path, 0, &f->s), 0);
	assert_int_equal(kt_blob_get(f->s, h[5], &d, &n), KT_ECORRUPT);
	/* versions after 5 are built on it: also caught */
	assert_int_equal(kt_blob_get(f->s, h[7], &d, &n), KT_ECORRUPT);
	assert_int_equal(kt_blob_get(f->s, h[4], &d, &n), 0);
	free(d);
	assert_int_equal(kt_store_verify(f->s, NULL, &bad_run, &bad_seq),
			 KT_ECORRUPT);
	assert_non_null(strstr(kt_store_errmsg(f->s), "blob"));
	assert_int_equal(bad_seq, 0);
	/* the run names blob 5 in a payload: the run's verify catches it */
	assert_int_equal(kt_store_verify(f->s, run, &bad_run, &bad_seq),
			 KT_ECORRUPT);
	/* version 2's delta base hash changed: it names no stored blob.  The
	 * blob is stored, so that is damage (KT_ECORRUPT), not KT_ENOTFOUND,
	 * which export took for a hex string that names no blob */
	kt_store_close(f->s);
	f->s = NULL;
	tu_flip_value(f->path, "blobs", h[2], KT_HASH_LEN, 10 + 7, 0x01);
	assert_int_equal(kt_store_open(f->path, 0, &f->s), 0);
	assert_int_equal(kt_blob_get(f->s, h[2], &d, &n), KT_ECORRUPT);
	assert_int_equal(kt_blob_get(f->s, h[3], &d, &n), KT_ECORRUPT);
	memset(h[9], 0x5a, KT_HASH_LEN);
	assert_int_equal(kt_blob_get(f->s, h[9], &d, &n), KT_ENOTFOUND);
}

/* A path's versions read in order, each after a lookup of a hash that
 * names no blob (export meets one in every compile's output_hash): each
 * decodes one frame, the previous version still cached.  Before, the miss
 * dropped the cache and version v decoded v + 1 frames from the keyframe. */
static void test_blob_in_order(void **state)
{
	struct fx *f = *state;
	enum { V = 20 };
	unsigned char h[V][KT_HASH_LEN], none[KT_HASH_LEN];
	char *t[V];
	size_t n[V], len;
	const void *d;

	src_init();
	assert_int_equal(kt_store_begin(f->s), 0);
	for (int v = 0; v < V; v++) {
		src_mutate();
		t[v] = src_text(&n[v]);
		assert_int_equal(kt_blob_put(f->s, t[v], n[v], "k.cu", h[v]), 0);
	}
	assert_int_equal(kt_store_commit(f->s), 0);
	src_free();
	kt_store_close(f->s);
	assert_int_equal(kt_store_open(f->path, 0, &f->s), 0);
	memset(none, 0xa5, sizeof(none));
	assert_int_equal(kt_blob_frames(f->s), 0);
	for (int v = 0; v < V; v++) {
		assert_int_equal(kt_blob_view(f->s, none, KT_BLOB_NOCHECK, &d,
					      &len), KT_ENOTFOUND);
		assert_int_equal(kt_blob_view(f->s, h[v], KT_BLOB_NOCHECK, &d,
					      &len), 0);
		assert_int_equal(len, n[v]);
		assert_memory_equal(d, t[v], len);
		assert_int_equal(((const char *)d)[len], 0);
	}
	assert_int_equal(kt_blob_frames(f->s), V);
	/* a checked read of the cached (unchecked) last version hashes it,
	 * decoding nothing */
	assert_int_equal(kt_blob_view(f->s, h[V - 1], 0, &d, &len), 0);
	assert_int_equal(kt_blob_frames(f->s), V);
	for (int v = 0; v < V; v++)
		free(t[v]);
}

/* KT_BLOB_NOCHECK hands out content that does not hash to its name (a
 * wrong kt_blob_put_hashed); a checked read of the same, cached or not,
 * reports it, as kt_blob_get does. */
static void test_blob_view_check(void **state)
{
	struct fx *f = *state;
	unsigned char good[KT_HASH_LEN], bad[KT_HASH_LEN];
	const char *t = "__global__ void k(float *x) { x[threadIdx.x] = 0; }\n";
	size_t n = strlen(t), len;
	const void *d;
	void *g;

	assert_int_equal(kt_store_begin(f->s), 0);
	assert_int_equal(kt_blob_put(f->s, t, n, "a.cu", good), 0);
	memcpy(bad, good, KT_HASH_LEN);
	bad[0] ^= 1;
	assert_int_equal(kt_blob_put_hashed(f->s, t, n, "b.cu", bad), 0);
	assert_int_equal(kt_store_commit(f->s), 0);
	kt_store_close(f->s);
	assert_int_equal(kt_store_open(f->path, 0, &f->s), 0);
	assert_int_equal(kt_blob_view(f->s, bad, 2, &d, &len), KT_EINVAL);
	assert_int_equal(kt_blob_view(f->s, bad, KT_BLOB_NOCHECK, &d, &len), 0);
	assert_int_equal(len, n);
	assert_memory_equal(d, t, n);
	/* cached unchecked: the checked read hashes it */
	assert_int_equal(kt_blob_view(f->s, bad, 0, &d, &len), KT_ECORRUPT);
	assert_non_null(strstr(kt_store_errmsg(f->s), "does not decode to its hash"));
	assert_int_equal(kt_blob_get(f->s, bad, &g, &len), KT_ECORRUPT);
	assert_null(g);
	assert_int_equal(kt_blob_view(f->s, bad, KT_BLOB_NOCHECK, &d, &len), 0);
	assert_int_equal(kt_blob_get(f->s, bad, &g, &len), KT_ECORRUPT);
	assert_int_equal(kt_blob_view(f->s, good, 0, &d, &len), 0);
	assert_memory_equal(d, t, n);
	assert_int_equal(kt_blob_get(f->s, good, &g, &len), 0);
	assert_int_equal(len, n);
	assert_string_equal(g, t);
	free(g);
}

/* Events written before a dictionary existed still decode after one is
 * trained, and later events use the dictionary. */
static void test_dictionary(void **state)
{
	struct fx *f = *state;
	char run[KT_RUN_ID_HEX + 1], pl[1024];
	kt_event ev;
	kt_store_stats st1, st2;
	const uint64_t N = 6000;

	kt_run_id_from_identity("dict:test", run);
	assert_int_equal(kt_store_begin(f->s), 0);
	assert_int_equal(kt_run_create(f->s, run, "d", "t", NULL), 0);
	assert_int_equal(kt_store_commit(f->s), 0);
	for (uint64_t i = 1; i <= N; i++) {
		if (i % 500 == 1)
			assert_int_equal(kt_store_begin(f->s), 0);
		snprintf(pl, sizeof(pl),
			 "{\"tool\":\"Bash\",\"call_id\":\"toolu_%08llx\","
			 "\"args\":{\"command\":\"nvcc -O3 -arch=sm_90 "
			 "kernel_%llu.cu -o k && ./k --m %llu --n %llu\","
			 "\"description\":\"Compile and benchmark the tiled "
			 "GEMM kernel variant %llu\"}}",
			 (unsigned long long)(i * 2654435761u),
			 (unsigned long long)(i % 97),
			 (unsigned long long)(i % 13 * 512),
			 (unsigned long long)(i % 7 * 256),
			 (unsigned long long)i);
		memset(&ev, 0, sizeof(ev));
		ev.seq = i;
		ev.kind = KT_KIND_TOOL_CALL;
		ev.actor = "agent";
		ev.ts_ns = (int64_t)i;
		ev.payload = pl;
		assert_int_equal(kt_event_append(f->s, run, &ev), 0);
		if (i % 500 == 0) {
			assert_int_equal(kt_store_commit(f->s), 0);
			if (i == 1000)
				assert_int_equal(kt_store_stats_get(f->s, NULL,
								    &st1), 0);
		}
	}
	assert_int_equal(kt_store_stats_get(f->s, NULL, &st2), 0);
	assert_int_equal(st1.dicts, 0);
	assert_int_equal(st2.dicts, 1);
	/* blocks sealed before the training have no dictionary, later ones
	 * name it (block header bytes 2..5, FORMAT.md §6.4) */
	kt_store_close(f->s);
	f->s = NULL;
	{
		MDB_env *env;
		MDB_txn *txn;
		MDB_dbi dbi;
		MDB_cursor *c;
		MDB_val k, v;
		int with = 0, without = 0;

		assert_int_equal(mdb_env_create(&env), 0);
		mdb_env_set_maxdbs(env, 16);
		assert_int_equal(mdb_env_open(env, f->path, MDB_NOSUBDIR |
					      MDB_RDONLY, 0644), 0);
		assert_int_equal(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn), 0);
		assert_int_equal(mdb_dbi_open(txn, "ev_blocks", 0, &dbi), 0);
		assert_int_equal(mdb_cursor_open(txn, dbi, &c), 0);
		while (mdb_cursor_get(c, &k, &v, MDB_NEXT) == 0) {
			const unsigned char *p = v.mv_data;
			uint32_t id = (uint32_t)p[2] << 24 | p[3] << 16 |
				      p[4] << 8 | p[5];

			assert_true(p[0] == 1);
			if (id)
				with++;
			else
				without++;
		}
		mdb_cursor_close(c);
		mdb_txn_abort(txn);
		mdb_env_close(env);
		assert_true(without >= 1);
		assert_true(with >= 1);
	}
	/* the dictionary is stored as a zstd frame (FORMAT.md §6.8); a raw
	 * dictionary value, the other allowed form, must read the same */
	{
		static const unsigned char fm[4] = { 0x28, 0xb5, 0x2f, 0xfd };
		static const unsigned char dm[4] = { 0x37, 0xa4, 0x30, 0xec };
		MDB_env *env;
		MDB_txn *txn;
		MDB_dbi dbi;
		MDB_cursor *c;
		MDB_val k, v, raw;
		unsigned long long n;
		void *d;

		assert_int_equal(mdb_env_create(&env), 0);
		mdb_env_set_maxdbs(env, 16);
		assert_int_equal(mdb_env_open(env, f->path, MDB_NOSUBDIR, 0644),
				 0);
		assert_int_equal(mdb_txn_begin(env, NULL, 0, &txn), 0);
		assert_int_equal(mdb_dbi_open(txn, "dicts", 0, &dbi), 0);
		assert_int_equal(mdb_cursor_open(txn, dbi, &c), 0);
		assert_int_equal(mdb_cursor_get(c, &k, &v, MDB_FIRST), 0);
		assert_memory_equal(v.mv_data, fm, 4);
		n = ZSTD_getFrameContentSize(v.mv_data, v.mv_size);
		assert_true(n > v.mv_size && n < (64u << 20));
		d = malloc(n);
		assert_int_equal(ZSTD_decompress(d, n, v.mv_data, v.mv_size), n);
		assert_memory_equal(d, dm, 4);
		raw.mv_size = n;
		raw.mv_data = d;
		assert_int_equal(mdb_cursor_put(c, &k, &raw, MDB_CURRENT), 0);
		mdb_cursor_close(c);
		assert_int_equal(mdb_txn_commit(txn), 0);
		mdb_env_close(env);
		free(d);
	}
	assert_int_equal(kt_store_open(f->path, 0, &f->s), 0);
	kt_store_close(f->s);
	f->s = NULL;
	assert_int_equal(kt_store_open(f->path, KT_OPEN_RDONLY, &f->s), 0);
	for (uint64_t i = 1; i <= N; i += 7) {
		char want[64];

		assert_int_equal(kt_event_get(f->s, run, i, &ev), 0);
		snprintf(want, sizeof(want), "variant %llu\"",
			 (unsigned long long)i);
		assert_non_null(strstr(ev.payload, want));
	}
	assert_int_equal(kt_store_verify(f->s, NULL, NULL, NULL), 0);
}

/* Blocks of the store at path that name a dictionary (*with) and that do
 * not (*without): block header bytes 2..5 (FORMAT.md §6.4). */
static void block_dicts(const char *path, int *with, int *without)
{
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	MDB_cursor *c;
	MDB_val k, v;

	*with = *without = 0;
	assert_int_equal(mdb_env_create(&env), 0);
	mdb_env_set_maxdbs(env, 16);
	assert_int_equal(mdb_env_open(env, path, MDB_NOSUBDIR | MDB_RDONLY,
				      0644), 0);
	assert_int_equal(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn), 0);
	assert_int_equal(mdb_dbi_open(txn, "ev_blocks", 0, &dbi), 0);
	assert_int_equal(mdb_cursor_open(txn, dbi, &c), 0);
	while (mdb_cursor_get(c, &k, &v, MDB_NEXT) == 0) {
		const unsigned char *p = v.mv_data;
		uint32_t id = (uint32_t)p[2] << 24 | p[3] << 16 | p[4] << 8 |
			      p[5];

		if (id)
			(*with)++;
		else
			(*without)++;
	}
	mdb_cursor_close(c);
	mdb_txn_abort(txn);
	mdb_env_close(env);
}

/* A ~400-byte tool call of event i, different enough to need a dictionary
 * and to seal a 256 KiB block every ~650 events of one run. */
static void held_append(kt_store *s, const char *run, uint64_t seq,
			uint64_t i)
{
	char pl[1024];
	kt_event ev;

	snprintf(pl, sizeof(pl),
		 "{\"tool\":\"Bash\",\"call_id\":\"toolu_%08llx%08llx\","
		 "\"args\":{\"command\":\"nvcc -O3 -arch=sm_90 kernel_%llu.cu"
		 " -o k && ./k --m %llu --n %llu --k %llu --tile %llu\","
		 "\"description\":\"Compile and benchmark the tiled GEMM "
		 "kernel variant %llu after moving the %s into shared memory "
		 "and unrolling the inner loop by %llu\"}}",
		 (unsigned long long)(i * 2654435761u),
		 (unsigned long long)rnd(), (unsigned long long)(i % 97),
		 (unsigned long long)(i % 13 * 512),
		 (unsigned long long)(i % 7 * 256),
		 (unsigned long long)(rnd() % 4096),
		 (unsigned long long)(i % 5 * 16), (unsigned long long)i,
		 i % 3 ? "B tile" : "A tile", (unsigned long long)(i % 8));
	memset(&ev, 0, sizeof(ev));
	ev.seq = seq;
	ev.kind = KT_KIND_TOOL_CALL;
	ev.actor = "agent";
	ev.ts_ns = (int64_t)i;
	ev.payload = pl;
	assert_int_equal(kt_event_append(s, run, &ev), 0);
}

/* Every event of the runs (n[r] of run r, appended in turn: seq s of run r
 * is variant (s - 1) * nruns + r + 1) reads back as appended, and the
 * store verifies. */
static void held_check(kt_store *s, char runs[][KT_RUN_ID_HEX + 1],
		       int nruns, const uint64_t *n)
{
	kt_event ev;

	for (int r = 0; r < nruns; r++)
		for (uint64_t seq = 1; seq <= n[r]; seq++) {
			char want[64];

			assert_int_equal(kt_event_get(s, runs[r], seq, &ev),
					 0);
			snprintf(want, sizeof(want), "variant %llu ",
				 (unsigned long long)((seq - 1) * nruns + r +
						      1));
			assert_non_null(strstr(ev.payload, want));
		}
	assert_int_equal(kt_store_verify(s, NULL, NULL, NULL), 0);
}

/* A fresh store's first big transaction holds its sealed blocks until the
 * dictionary is trained and compresses all of them with it. */
static void test_dictionary_held(void **state)
{
	struct fx *f = *state;
	char runs[1][KT_RUN_ID_HEX + 1];
	const uint64_t N = 12000;
	kt_store_stats st;
	int with, without;

	kt_run_id_from_identity("held:a", runs[0]);
	assert_int_equal(kt_store_begin(f->s), 0);
	assert_int_equal(kt_run_create(f->s, runs[0], "a", "t", NULL), 0);
	for (uint64_t i = 1; i <= N; i++)
		held_append(f->s, runs[0], i, i);
	assert_int_equal(kt_store_commit(f->s), 0);
	assert_int_equal(kt_store_stats_get(f->s, NULL, &st), 0);
	assert_int_equal(st.dicts, 1);
	held_check(f->s, runs, 1, (const uint64_t[]){ N });
	kt_store_close(f->s);
	f->s = NULL;
	block_dicts(f->path, &with, &without);
	assert_true(with >= 10);
	assert_int_equal(without, 0);
	assert_int_equal(kt_store_open(f->path, KT_OPEN_RDONLY, &f->s), 0);
	held_check(f->s, runs, 1, (const uint64_t[]){ N });
}

/* Two runs appended in turn in one transaction: a run's block sealed while
 * held has an older, open version stored by the run switch, which
 * switching back must not take for the open block (the held blocks are
 * written first). */
static void test_dictionary_held_two_runs(void **state)
{
	struct fx *f = *state;
	char runs[2][KT_RUN_ID_HEX + 1];
	const uint64_t N = 12000;
	kt_store_stats st;
	int with, without;

	kt_run_id_from_identity("held:a", runs[0]);
	kt_run_id_from_identity("held:b", runs[1]);
	assert_int_equal(kt_store_begin(f->s), 0);
	assert_int_equal(kt_run_create(f->s, runs[0], "a", "t", NULL), 0);
	assert_int_equal(kt_run_create(f->s, runs[1], "b", "t", NULL), 0);
	/* 50 events of a, 50 of b, ...; seq s of run r is event
	 * (s - 1) * 2 + r + 1 in held_check's numbering */
	for (uint64_t i = 1; i <= N; i += 100)
		for (int r = 0; r < 2; r++)
			for (uint64_t j = 0; j < 50; j++) {
				uint64_t seq = (i - 1) / 2 + j + 1;

				held_append(f->s, runs[r], seq,
					    (seq - 1) * 2 + (uint64_t)r + 1);
			}
	assert_int_equal(kt_store_commit(f->s), 0);
	assert_int_equal(kt_store_stats_get(f->s, NULL, &st), 0);
	assert_int_equal(st.dicts, 1);
	held_check(f->s, runs, 2, (const uint64_t[]){ N / 2, N / 2 });
	kt_store_close(f->s);
	f->s = NULL;
	block_dicts(f->path, &with, &without);
	assert_true(with >= 10);
	assert_int_equal(kt_store_open(f->path, KT_OPEN_RDONLY, &f->s), 0);
	held_check(f->s, runs, 2, (const uint64_t[]){ N / 2, N / 2 });
}

/* The case the switch guards: a run's block seals (at KT_BLOCK_MAXN small
 * events) right before a switch, so nothing newer of that run is stored
 * than the open version an earlier switch wrote under the same key. */
static void test_dictionary_held_switch_after_seal(void **state)
{
	struct fx *f = *state;
	char runs[2][KT_RUN_ID_HEX + 1];
	uint64_t n[2] = { 0, 0 };
	/* events of a, b, a, b, a in turn: a's block seals at its 4096th */
	static const int who[] = { 0, 1, 0, 1, 0 };
	static const uint64_t cnt[] = { 2048, 2048, 2048, 2048, 10 };
	char pl[64];
	kt_event ev;

	kt_run_id_from_identity("held:sa", runs[0]);
	kt_run_id_from_identity("held:sb", runs[1]);
	assert_int_equal(kt_store_begin(f->s), 0);
	assert_int_equal(kt_run_create(f->s, runs[0], "a", "t", NULL), 0);
	assert_int_equal(kt_run_create(f->s, runs[1], "b", "t", NULL), 0);
	for (size_t p = 0; p < sizeof(who) / sizeof(who[0]); p++)
		for (uint64_t j = 0; j < cnt[p]; j++) {
			int r = who[p];
			uint64_t seq = ++n[r];

			snprintf(pl, sizeof(pl), "{\"v\":\"variant %llu \"}",
				 (unsigned long long)((seq - 1) * 2 +
						      (uint64_t)r + 1));
			memset(&ev, 0, sizeof(ev));
			ev.seq = seq;
			ev.kind = KT_KIND_NOTE;
			ev.actor = "agent";
			ev.payload = pl;
			assert_int_equal(kt_event_append(f->s, runs[r], &ev),
					 0);
		}
	assert_int_equal(kt_store_commit(f->s), 0);
	held_check(f->s, runs, 2, n);
}

/* A read inside the transaction writes the held blocks first (without a
 * dictionary when too few bodies were kept to train one). */
static void test_dictionary_held_read(void **state)
{
	struct fx *f = *state;
	char runs[1][KT_RUN_ID_HEX + 1];
	kt_event ev;
	kt_store_stats st;
	int with, without;

	kt_run_id_from_identity("held:r", runs[0]);
	assert_int_equal(kt_store_begin(f->s), 0);
	assert_int_equal(kt_run_create(f->s, runs[0], "r", "t", NULL), 0);
	for (uint64_t i = 1; i <= 1500; i++)
		held_append(f->s, runs[0], i, i);
	/* blocks sealed by now are held; the read must find them */
	assert_int_equal(kt_event_get(f->s, runs[0], 3, &ev), 0);
	assert_non_null(strstr(ev.payload, "variant 3 "));
	for (uint64_t i = 1501; i <= 12000; i++)
		held_append(f->s, runs[0], i, i);
	assert_int_equal(kt_store_commit(f->s), 0);
	assert_int_equal(kt_store_stats_get(f->s, NULL, &st), 0);
	assert_int_equal(st.dicts, 1);
	held_check(f->s, runs, 1, (const uint64_t[]){ 12000 });
	kt_store_close(f->s);
	f->s = NULL;
	block_dicts(f->path, &with, &without);
	assert_true(without >= 1); /* written by the read, before training */
	assert_true(with >= 1);
	assert_int_equal(kt_store_open(f->path, KT_OPEN_RDONLY, &f->s), 0);
	held_check(f->s, runs, 1, (const uint64_t[]){ 12000 });
}

/* An abort drops what is held: nothing of the transaction stays. */
static void test_dictionary_held_abort(void **state)
{
	struct fx *f = *state;
	char runs[1][KT_RUN_ID_HEX + 1];
	kt_event ev;
	kt_store_stats st;

	kt_run_id_from_identity("held:x", runs[0]);
	assert_int_equal(kt_store_begin(f->s), 0);
	assert_int_equal(kt_run_create(f->s, runs[0], "x", "t", NULL), 0);
	for (uint64_t i = 1; i <= 1900; i++)
		held_append(f->s, runs[0], i, i);
	kt_store_abort(f->s);
	assert_int_not_equal(kt_event_get(f->s, runs[0], 1, &ev), 0);
	assert_int_equal(kt_store_stats_get(f->s, NULL, &st), 0);
	assert_int_equal(st.dicts, 0);
	assert_int_equal(st.events, 0);
	/* the next transaction starts clean and trains */
	assert_int_equal(kt_store_begin(f->s), 0);
	assert_int_equal(kt_run_create(f->s, runs[0], "x", "t", NULL), 0);
	for (uint64_t i = 1; i <= 12000; i++)
		held_append(f->s, runs[0], i, i);
	assert_int_equal(kt_store_commit(f->s), 0);
	assert_int_equal(kt_store_stats_get(f->s, NULL, &st), 0);
	assert_int_equal(st.dicts, 1);
	held_check(f->s, runs, 1, (const uint64_t[]){ 12000 });
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_blob_basic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_blob_versions, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_blob_depth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_blob_interleaved, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_blob_corrupt, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_blob_in_order, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_blob_view_check, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_dictionary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dictionary_held, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_dictionary_held_two_runs,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_dictionary_held_switch_after_seal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dictionary_held_read,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_dictionary_held_abort,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
