/*
 * t_store_scan.c - scans that decode blocks ahead on helper threads
 * (store_ahead.c) give exactly the events of a scan in one thread: every
 * range, kinds mask and BODY / BODY|HASH, with callbacks that read, scan and
 * drop the cache, inside a write transaction (where no helper runs), on a
 * damaged block and when the callback stops the scan.
 */
#include "testutil.h"
#include <lmdb.h>
#include <openssl/evp.h>
#include "../../store/store.h"
#include "tu_lmdb.h"

#define NEV 12000u

struct fx {
	char *dir;
	char path[4200];
	kt_store *s;
	char run[KT_RUN_ID_HEX + 1];
	char other[KT_RUN_ID_HEX + 1];
};

static const char *words[] = {
	"kernel", "warp", "shared", "memory", "latency", "bandwidth", "tile",
	"block", "thread", "register", "occupancy", "launch", "stream", "copy",
	"reduce", "softmax", "matmul", "tensor", "core", "fp16", "bf16", "sync",
	"atomic", "coalesced", "bank", "conflict", "prefetch", "pipeline",
};

/* Deterministic text of 80-680 bytes for event seq. */
static void payload_of(uint64_t seq, char *buf, size_t cap)
{
	uint64_t x = seq * 0x9E3779B97F4A7C15ull + 1;
	size_t n = 80 + (size_t)(seq * 7919 % 600), len;

	len = (size_t)snprintf(buf, cap, "{\"i\":%llu,\"text\":\"",
			       (unsigned long long)seq);
	while (len < n && len + 24 < cap) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		len += (size_t)snprintf(buf + len, cap - len, "%s %llu ",
					words[x % (sizeof(words) /
						   sizeof(words[0]))],
					(unsigned long long)(x % 1000));
	}
	snprintf(buf + len, cap - len, "\"}");
}

static const int kinds[] = { KT_KIND_MESSAGE, KT_KIND_TOOL_CALL,
			     KT_KIND_TOOL_RESULT, KT_KIND_NOTE };

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char pl[1024], prov[128];

	assert_non_null(f);
	f->s = tu_store_new(&f->dir, f->path, sizeof(f->path), "s.ktraj", 0);
	kt_run_id_from_identity("test:scan", f->run);
	kt_run_id_from_identity("test:other", f->other);
	/* one transaction of 12,000 events: a dictionary is trained, and
	 * each kind's stream has several blocks */
	assert_int_equal(kt_store_begin(f->s), 0);
	assert_int_equal(kt_run_create(f->s, f->run, "scan", "test", NULL), 0);
	assert_int_equal(kt_run_create(f->s, f->other, "other", "test", NULL),
			 0);
	for (uint64_t seq = 1; seq <= NEV; seq++) {
		kt_event ev;

		payload_of(seq, pl, sizeof(pl));
		snprintf(prov, sizeof(prov), "{\"line\":%llu}",
			 (unsigned long long)seq);
		memset(&ev, 0, sizeof(ev));
		ev.seq = seq;
		ev.parent = seq > 1 ? seq - 1 : 0;
		ev.ts_ns = 1700000000000000000LL + (int64_t)seq;
		ev.kind = kinds[(seq * 31 / 7) % 4];
		ev.actor = "agent";
		ev.prov_json = prov;
		ev.payload = pl;
		ev.payload_len = strlen(pl);
		assert_int_equal(kt_event_append(f->s, f->run, &ev), 0);
	}
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

/* What a scan gave: the events, hashed in order, and how many. */
struct dig {
	EVP_MD_CTX *md;
	uint64_t n, stop_at;
	int stop_rc;
	struct fx *f;
	int meddle;          /* the callback reads, scans, drops the cache */
};

static void put(struct dig *d, const void *p, size_t n)
{
	assert_int_equal(EVP_DigestUpdate(d->md, p, n), 1);
}

static int nested_cb(const kt_event *ev, void *arg)
{
	(*(uint64_t *)arg) += ev->seq;
	return 0;
}

static int dig_cb(const kt_event *ev, void *arg)
{
	struct dig *d = arg;

	d->n++;
	put(d, &ev->seq, sizeof(ev->seq));
	put(d, &ev->parent, sizeof(ev->parent));
	put(d, &ev->ts_ns, sizeof(ev->ts_ns));
	put(d, &ev->kind, sizeof(ev->kind));
	if (ev->actor)
		put(d, ev->actor, strlen(ev->actor) + 1);
	if (ev->prov_json)
		put(d, ev->prov_json, strlen(ev->prov_json) + 1);
	if (ev->payload)
		put(d, ev->payload, ev->payload_len);
	put(d, ev->hash, sizeof(ev->hash));
	put(d, ev->chain, sizeof(ev->chain));
	if (d->meddle && d->n % 997 == 0) {
		kt_event e;
		uint64_t sum = 0, s0 = ev->seq > 100 ? ev->seq - 100 : 1;
		char want[1024];

		assert_int_equal(kt_event_read(d->f->s, d->f->run, s0,
					       KT_READ_BODY, &e), 0);
		payload_of(s0, want, sizeof(want));
		assert_int_equal(e.payload_len, strlen(want));
		assert_memory_equal(e.payload, want, e.payload_len);
		assert_int_equal(kt_event_scan(d->f->s, d->f->run, s0, s0 + 9,
					       0, KT_READ_BODY, nested_cb,
					       &sum), 0);
		assert_int_equal(sum, 10 * s0 + 45);
		if (d->n % 2 == 0)
			assert_int_equal(kt_store_set_cache(d->f->s, 0), 0);
		else
			assert_int_equal(kt_store_set_cache(d->f->s,
							    (size_t)64 << 20),
					 0);
	}
	if (d->stop_at && d->n == d->stop_at)
		return d->stop_rc;
	return 0;
}

/* Scan with nthreads helpers; the digest into out[32], the rc returned. */
static int scan(struct fx *f, int nthreads, uint64_t first, uint64_t last,
		unsigned kmask, unsigned how, struct dig *proto,
		unsigned char out[32], uint64_t *n)
{
	struct dig d = { 0 };
	unsigned len = 0;
	int rc;

	if (proto)
		d = *proto;
	d.f = f;
	d.md = EVP_MD_CTX_new();
	assert_non_null(d.md);
	assert_int_equal(EVP_DigestInit_ex(d.md, EVP_sha256(), NULL), 1);
	assert_int_equal(kt_store_set_scan_threads(f->s, nthreads), 0);
	rc = kt_event_scan(f->s, f->run, first, last, kmask, how, dig_cb, &d);
	assert_int_equal(EVP_DigestFinal_ex(d.md, out, &len), 1);
	EVP_MD_CTX_free(d.md);
	*n = d.n;
	return rc;
}

static void same_events(void **state)
{
	struct fx *f = *state;
	static const struct { uint64_t first, last; } ranges[] = {
		{ 0, 0 }, { 1, NEV }, { 3001, 9000 }, { 5000, 5000 + 2047 },
		{ NEV - 2100, 0 },
	};
	static const unsigned hows[] = { KT_READ_BODY,
					 KT_READ_BODY | KT_READ_HASH };
	const unsigned masks[] = { 0, KT_KIND_BIT(KT_KIND_MESSAGE) |
				      KT_KIND_BIT(KT_KIND_TOOL_RESULT) };

	for (size_t r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++)
		for (size_t h = 0; h < 2; h++)
			for (size_t m = 0; m < 2; m++) {
				unsigned char a[32], b[32];
				uint64_t na, nb;

				assert_int_equal(scan(f, 0, ranges[r].first,
						      ranges[r].last, masks[m],
						      hows[h], NULL, a, &na),
						 0);
				assert_true(na > 1000);
				for (int t = 1; t <= 3; t += 2) {
					assert_int_equal(scan(f, t,
							      ranges[r].first,
							      ranges[r].last,
							      masks[m], hows[h],
							      NULL, b, &nb), 0);
					assert_int_equal(na, nb);
					assert_memory_equal(a, b, 32);
				}
			}
	/* -1 (the CPUs the process may use) is valid, < -1 is not */
	assert_int_equal(kt_store_set_scan_threads(f->s, -1), 0);
	assert_int_equal(kt_store_set_scan_threads(f->s, -2), KT_EINVAL);
}

static void callbacks_that_meddle(void **state)
{
	struct fx *f = *state;
	struct dig p = { 0 };
	unsigned char a[32], b[32];
	uint64_t na, nb;

	assert_int_equal(scan(f, 0, 0, 0, 0, KT_READ_BODY | KT_READ_HASH,
			      NULL, a, &na), 0);
	p.meddle = 1;
	assert_int_equal(scan(f, 3, 0, 0, 0, KT_READ_BODY | KT_READ_HASH, &p,
			      b, &nb), 0);
	assert_int_equal(na, NEV);
	assert_int_equal(nb, NEV);
	assert_memory_equal(a, b, 32);
}

/* A note appended to the other run. */
static void append_other(struct fx *f, uint64_t seq)
{
	kt_event e;

	memset(&e, 0, sizeof(e));
	e.seq = seq;
	e.ts_ns = KT_TS_UNKNOWN;
	e.kind = KT_KIND_NOTE;
	e.actor = "tool";
	e.payload = "{\"text\":\"seen\"}";
	e.payload_len = strlen(e.payload);
	assert_int_equal(kt_event_append(f->s, f->other, &e), 0);
}

/* Inside a write transaction (which decodes in the calling thread) with
 * appends to another run pending in it, and after its commit. */
static void inside_a_write_txn(void **state)
{
	struct fx *f = *state;
	unsigned char a[32], b[32];
	uint64_t na, nb;
	kt_run_info ri;

	assert_int_equal(scan(f, 0, 0, 0, 0, KT_READ_BODY, NULL, a, &na), 0);
	assert_int_equal(kt_store_begin(f->s), 0);
	for (uint64_t i = 1; i <= 3000; i++)
		append_other(f, i);
	assert_int_equal(scan(f, 3, 0, 0, 0, KT_READ_BODY, NULL, b, &nb), 0);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, 32);
	assert_int_equal(kt_store_commit(f->s), 0);
	assert_int_equal(kt_run_get(f->s, f->other, &ri), 0);
	assert_int_equal(ri.n_events, 3000);
	assert_int_equal(scan(f, 3, 0, 0, 0, KT_READ_BODY, NULL, b, &nb), 0);
	assert_memory_equal(a, b, 32);
}

static void stopped_by_the_callback(void **state)
{
	struct fx *f = *state;
	struct dig p = { 0 };
	unsigned char a[32], b[32];
	uint64_t na, nb;

	p.stop_at = 4321;
	p.stop_rc = 7;
	assert_int_equal(scan(f, 0, 0, 0, 0, KT_READ_BODY, &p, a, &na), 7);
	assert_int_equal(scan(f, 3, 0, 0, 0, KT_READ_BODY, &p, b, &nb), 7);
	assert_int_equal(na, 4321);
	assert_int_equal(nb, 4321);
	assert_memory_equal(a, b, 32);
}

/* The key and size of the k-th (0-based) block of kind of the run. */
static int nth_block(const char *path, const char *run, int kind, int nth,
		     unsigned char key[25], size_t *vsize)
{
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	MDB_cursor *c;
	MDB_val k, v;
	unsigned char pre[17];
	int rc, i = 0, found = -1;

	assert_int_equal(kt_unhex(run, pre, 16), 0);
	pre[16] = (unsigned char)kind;
	assert_int_equal(mdb_env_create(&env), 0);
	mdb_env_set_maxdbs(env, 16);
	assert_int_equal(mdb_env_open(env, path, MDB_NOSUBDIR | MDB_RDONLY,
				      0644), 0);
	assert_int_equal(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn), 0);
	assert_int_equal(mdb_dbi_open(txn, "ev_blocks", 0, &dbi), 0);
	assert_int_equal(mdb_cursor_open(txn, dbi, &c), 0);
	for (rc = mdb_cursor_get(c, &k, &v, MDB_FIRST); rc == 0;
	     rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
		if (k.mv_size != 25 || memcmp(k.mv_data, pre, 17) != 0)
			continue;
		if (i++ == nth) {
			memcpy(key, k.mv_data, 25);
			*vsize = v.mv_size;
			found = 0;
			break;
		}
	}
	mdb_cursor_close(c);
	mdb_txn_abort(txn);
	mdb_env_close(env);
	return found;
}

static void damaged_block(void **state)
{
	struct fx *f = *state;
	unsigned char key[25], a[32], b[32];
	char ea[256], eb[256];
	uint64_t na, nb;
	size_t vs = 0;
	int ra, rb;

	/* the third block of tool results, damaged inside its frame */
	assert_int_equal(nth_block(f->path, f->run, KT_KIND_TOOL_RESULT, 2,
				   key, &vs), 0);
	kt_store_close(f->s);
	f->s = NULL;
	tu_flip_value(f->path, "ev_blocks", key, 25, vs / 2, 0x5a);
	assert_int_equal(kt_store_open(f->path, 0, &f->s), 0);
	ra = scan(f, 0, 0, 0, 0, KT_READ_BODY, NULL, a, &na);
	snprintf(ea, sizeof(ea), "%s", kt_store_errmsg(f->s));
	rb = scan(f, 3, 0, 0, 0, KT_READ_BODY, NULL, b, &nb);
	snprintf(eb, sizeof(eb), "%s", kt_store_errmsg(f->s));
	assert_int_equal(ra, KT_ECORRUPT);
	assert_int_equal(rb, KT_ECORRUPT);
	assert_string_equal(ea, eb);
	assert_true(na > 0 && na < NEV);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, 32);
	/* a scan of kinds without the damaged stream is whole */
	assert_int_equal(scan(f, 3, 0, 0, KT_KIND_BIT(KT_KIND_MESSAGE),
			      KT_READ_BODY, NULL, b, &nb), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(same_events, setup, teardown),
		cmocka_unit_test_setup_teardown(callbacks_that_meddle, setup,
						teardown),
		cmocka_unit_test_setup_teardown(inside_a_write_txn, setup,
						teardown),
		cmocka_unit_test_setup_teardown(stopped_by_the_callback, setup,
						teardown),
		cmocka_unit_test_setup_teardown(damaged_block, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
