/*
 * t_store_pages.c - LMDB's own pages (store_pages.c, FORMAT.md §5 "LMDB's
 * pages"): a damaged byte in them never crashes verify.
 *
 * A small store is built, then bytes of its file are changed one at a time
 * and verify runs in a forked child, so that a crash shows as a signal (or,
 * under ASan/UBSan, as the sanitizer's exit code) instead of killing this
 * test.  Every byte of every page header, node offset array and meta page,
 * and of the headers of the first and last nodes of each page, is tried
 * xor 0xff and + 1; every 211th byte elsewhere xor 0xff.  The child must
 * exit with verify's answer: ok, KT_ECORRUPT or KT_EVERSION (a changed
 * format record).  Also: the check's messages, and a damaged blob reported
 * with an event that names it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "testutil.h"
#include "../../store/store_int.h"

#ifndef T_CHECK
#define T_CHECK KT_OPEN_CHECK /* -DT_CHECK=0: see the sweep fail */
#endif
#define PS 4096u
#define HDR ((unsigned)sizeof(size_t) + 8u)

static const char run_a[] = "00112233445566778899aabbccddeeff";

struct fx {
	char *dir;
	char path[4200];
};

/* A store with a branch page (blobs), an overflow run (a big blob), event
 * blocks and header pages, the paths index and a run record. */
static unsigned char big[9000];

static void build(const char *path)
{
	kt_store *s;
	unsigned char h[KT_HASH_LEN];
	char hx[KT_HASH_HEX + 1], pl[512];
	uint32_t x = 12345;
	kt_event ev;

	assert_int_equal(kt_store_open(path, KT_OPEN_CREATE, &s), 0);
	assert_int_equal(kt_store_begin(s), 0);
	assert_int_equal(kt_run_create(s, run_a, "pages", "test", NULL), 0);
	for (size_t i = 0; i < sizeof(big); i++) {
		x = x * 1103515245u + 12345u;   /* incompressible */
		big[i] = (unsigned char)(x >> 16);
	}
	assert_int_equal(kt_blob_put(s, big, sizeof(big), "big.bin", h), 0);
	kt_hex(h, KT_HASH_LEN, hx);
	memset(&ev, 0, sizeof(ev));
	ev.seq = 1;
	ev.ts_ns = KT_TS_UNKNOWN;
	ev.kind = KT_KIND_TOOL_RESULT;
	ev.actor = "tool";
	snprintf(pl, sizeof(pl), "{\"call_id\":\"c1\",\"ok\":true,"
		 "\"output\":\"...\",\"output_blob\":\"%s\"}", hx);
	ev.payload = pl;
	assert_int_equal(kt_event_append(s, run_a, &ev), 0);
	for (int i = 0; i < 160; i++) {
		char body[64];
		int n = snprintf(body, sizeof(body), "blob %d of the page test\n",
				 i);

		assert_int_equal(kt_blob_put(s, body, (size_t)n, NULL, h), 0);
		kt_hex(h, KT_HASH_LEN, hx);
		memset(&ev, 0, sizeof(ev));
		ev.seq = (uint64_t)i + 2;
		ev.ts_ns = 1700000000000000000ll + i;
		ev.kind = KT_KIND_EDIT;
		ev.actor = "agent";
		snprintf(pl, sizeof(pl), "{\"path\":\"f%d.cu\",\"op\":"
			 "\"create\",\"before\":null,\"after\":\"%s\","
			 "\"tool\":\"Write\"}", i % 7, hx);
		ev.payload = pl;
		assert_int_equal(kt_event_append(s, run_a, &ev), 0);
	}
	assert_int_equal(kt_store_commit(s), 0);
	assert_int_equal(kt_store_close(s), 0);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->dir = tu_tmpdir();
	assert_non_null(f->dir);
	snprintf(f->path, sizeof(f->path), "%s/p.ktraj", f->dir);
	build(f->path);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	tu_rmrf(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

/* What `ktraj verify` does, in a child: 0 ok, 3 corrupt, 6 version, or
 * 20 + -rc for another error (a failure of this test too). */
static int verify_child(const char *path)
{
	kt_store *s;
	const char *br;
	uint64_t bs;
	int rc = kt_store_open(path, KT_OPEN_RDONLY | T_CHECK, &s);

	if (rc == 0) {
		rc = kt_store_verify(s, NULL, &br, &bs);
		if (rc == 0)
			rc = kt_store_verify_blobrefs(s, NULL, &br, &bs);
		kt_store_close(s);
	}
	return rc == 0 ? 0 : rc == KT_ECORRUPT ? 3 : rc == KT_EVERSION ? 6 :
	       20 - rc;
}

/* b[off]: 1 a byte of LMDB's structure, 2 one of the stride */
static void set(unsigned char *b, size_t n, size_t *cnt, size_t off,
		unsigned char what)
{
	if (off < n && !b[off]) {
		b[off] = what;
		(*cnt)++;
	}
}

/* Offsets to try: page headers, node offset arrays, meta pages, first and
 * last node headers of each page, and a stride through the rest. */
static unsigned char *pick(const unsigned char *d, size_t n, size_t *cnt)
{
	unsigned char *b = calloc(n, 1);

	assert_non_null(b);
	*cnt = 0;
	for (size_t p = 0; p + PS <= n; p += PS) {
		unsigned fl, lower, nk;

		for (unsigned i = 0; i < HDR; i++)
			set(b, n, cnt, p + i, 1);
		memcpy(&fl, d + p + HDR - 6, 2);
		fl &= 0xffff;
		if (fl & 0x08) { /* meta: MDB_meta is under 160 bytes */
			for (unsigned i = HDR; i < 160; i++)
				set(b, n, cnt, p + i, 1);
			continue;
		}
		if (!(fl & 0x03))
			continue; /* overflow data, free pages */
		lower = (unsigned)d[p + HDR - 4] | (unsigned)d[p + HDR - 3] << 8;
		if (lower < HDR || lower > PS)
			continue;
		nk = (lower - HDR) / 2;
		for (unsigned i = HDR; i < lower; i++)
			set(b, n, cnt, p + i, 1);
		for (unsigned k = 0; k < nk; k++) {
			unsigned off;

			if (k > 2 && k + 2 < nk)
				continue;
			off = (unsigned)d[p + HDR + 2 * k] |
			      (unsigned)d[p + HDR + 2 * k + 1] << 8;
			for (unsigned i = 0; i < 8 && off + i < PS; i++)
				set(b, n, cnt, p + off + i, 1);
		}
	}
	for (size_t o = 0; o < n; o += 211)
		set(b, n, cnt, o, 2);
	return b;
}

struct flip {
	size_t off;
	unsigned char orig, val;
};

/* Shared with the children: the flip under way and each flip's answer. */
struct board {
	volatile size_t at;
	volatile int code[];
};

/* Apply the flips from `from` on, one at a time, verifying after each, in
 * children: a child that dies (a signal, or a sanitizer's exit) leaves
 * b->at on the flip that killed it; the file gets its byte back and a new
 * child goes on after it.  One child does all the flips when none kills
 * it (a fork per flip cost 7-30 ms on the shared build machine). */
static int sweep(const char *path, const struct flip *fl, size_t nf,
		 struct board *b)
{
	int fd = open(path, O_WRONLY), bad = 0;
	size_t from = 0;

	assert_true(fd >= 0);
	while (from < nf) {
		pid_t pid;
		int st;

		b->at = from;
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			kt_codec_acquire(); /* contexts live across opens */
			for (size_t i = from; i < nf; i++) {
				b->at = i;
				if (pwrite(fd, &fl[i].val, 1,
					   (off_t)fl[i].off) != 1)
					_exit(90);
				b->code[i] = verify_child(path);
				if (pwrite(fd, &fl[i].orig, 1,
					   (off_t)fl[i].off) != 1)
					_exit(91);
			}
			b->at = nf;
			_exit(0);
		}
		while (waitpid(pid, &st, 0) < 0)
			assert_int_equal(errno, EINTR);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && b->at == nf)
			break;
		assert_true(b->at < nf);
		b->code[b->at] = WIFSIGNALED(st) ? 1000 + WTERMSIG(st) :
				 2000 + WEXITSTATUS(st);
		assert_int_equal(pwrite(fd, &fl[b->at].orig, 1,
					(off_t)fl[b->at].off), 1);
		from = b->at + 1;
		bad++;
	}
	close(fd);
	return bad;
}

static void t_flips_never_crash(void **state)
{
	struct fx *f = *state;
	size_t n = 0, cnt, nf = 0, found = 0;
	unsigned char *d = (unsigned char *)tu_slurp(f->path, &n), *b;
	struct flip *fl;
	struct board *bd;
	int bad = 0;

	assert_non_null(d);
	assert_true(n >= 8 * PS);
	/* the undamaged store verifies, pages and all */
	assert_int_equal(verify_child(f->path), 0);
	b = pick(d, n, &cnt);
	fl = calloc(2 * cnt, sizeof(*fl));
	assert_non_null(fl);
	for (size_t o = 0; o < n; o++) {
		if (!b[o])
			continue;
		fl[nf++] = (struct flip){ o, d[o], (unsigned char)(d[o] ^ 0xff) };
		if (b[o] == 1) /* + 1 too: small changes of sizes, offsets */
			fl[nf++] = (struct flip){ o, d[o],
						  (unsigned char)(d[o] + 1) };
	}
	bd = mmap(NULL, sizeof(*bd) + nf * sizeof(int), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(bd != MAP_FAILED);
	sweep(f->path, fl, nf, bd);
	for (size_t i = 0; i < nf; i++) {
		int c = bd->code[i];

		found += c == 3 || c == 6;
		if (c == 0 || c == 3 || c == 6)
			continue;
		if (bad++ < 8)
			fprintf(stderr, "# offset %zu (page %zu +%zu) 0x%02x -> "
				"0x%02x: %s %d\n", fl[i].off, fl[i].off / PS,
				fl[i].off % PS, fl[i].orig, fl[i].val,
				c >= 2000 ? "child exit" : c >= 1000 ?
				"child killed by signal" : "verify error",
				c >= 2000 ? c - 2000 : c >= 1000 ? c - 1000 :
				c);
	}
	fprintf(stderr, "# %zu offsets of %zu bytes, %zu changes, %zu found "
		"damaged, %d crashed or failed\n", cnt, n, nf, found, bad);
	assert_int_equal(bad, 0);
	/* the sweep reached the pages: most changes there are damage */
	assert_true(found > nf / 4);
	/* and the file has its bytes back */
	assert_int_equal(verify_child(f->path), 0);
	munmap(bd, sizeof(*bd) + nf * sizeof(int));
	free(fl);
	free(b);
	free(d);
}

/* One damage of each kind the check names, in a copy of the store's
 * bytes checked in memory (kt_pages_check_src, no LMDB). */
static int check_mem(const unsigned char *d, size_t n, char *why, size_t wl)
{
	struct kt_pgsrc src = { -1, d, n };
	uint64_t tx;

	return kt_pages_check_src(&src, KT_PAGES_NEWEST, 0, &tx, why, wl);
}

typedef void (*damage_fn)(unsigned char *page);

static void leaf_ptr(unsigned char *pg)
{
	uint16_t v = PS - 2;

	memcpy(pg + HDR, &v, 2);
}

static void branch_child(unsigned char *pg)
{
	uint16_t v;

	memcpy(&v, pg + HDR + 2, 2);   /* node 1 */
	pg[v + 2] = 0x7f;              /* mn_hi: pgno bits 16-31 */
}

static void leaf_lower(unsigned char *pg)
{
	uint16_t v = PS;

	memcpy(pg + HDR - 4, &v, 2);
}

/* upper one byte lower: odd, and LMDB lays nodes out in even sizes */
static void leaf_upper_odd(unsigned char *pg)
{
	uint16_t v;

	memcpy(&v, pg + HDR - 2, 2);
	v--;
	memcpy(pg + HDR - 2, &v, 2);
}

/* node 0 one byte further in: inside the page's nodes, but odd */
static void leaf_ptr_odd(unsigned char *pg)
{
	uint16_t v;

	memcpy(&v, pg + HDR, 2);
	v++;
	memcpy(pg + HDR, &v, 2);
}

static void ovf_pages(unsigned char *pg)
{
	pg[HDR - 1] = 0x40;            /* mp_pages, high byte */
}

static void odd_ptr(unsigned char *pg)
{
	uint16_t v = 7;

	memcpy(pg + HDR, &v, 2);
}

/* Damage each page (from 2) whose flags are fl in turn; every damage the
 * check sees must be named with `want`; some page must be in use.  Pages
 * no tree reaches (LMDB's free pages) keep old content and pass. */
static void each_page(const unsigned char *d, size_t n, unsigned fl,
		      damage_fn fn, const char *want)
{
	unsigned char *c = malloc(n);
	char why[200];
	int seen = 0;

	assert_non_null(c);
	for (size_t p = 2 * PS; p + PS <= n; p += PS) {
		uint16_t f;
		int rc;

		memcpy(&f, d + p + HDR - 6, 2);
		if (f != fl)
			continue;
		memcpy(c, d, n);
		fn(c + p);
		rc = check_mem(c, n, why, sizeof(why));
		if (rc == 0)
			continue;
		assert_int_equal(rc, KT_ECORRUPT);
		if (!strstr(why, want))
			fail_msg("page %zu: '%s' lacks '%s'", p / PS, why, want);
		seen++;
	}
	assert_true(seen > 0);
	free(c);
}

static void t_messages(void **state)
{
	struct fx *f = *state;
	size_t n = 0;
	unsigned char *d = (unsigned char *)tu_slurp(f->path, &n), *c;
	char why[200];

	assert_non_null(d);
	assert_int_equal(check_mem(d, n, why, sizeof(why)), 0);
	each_page(d, n, 0x02, leaf_ptr, "node 0 at offset 4094, outside");
	each_page(d, n, 0x01, branch_child, "node 1 names page");
	each_page(d, n, 0x02, leaf_lower, "free space bounds lower 4096");
	each_page(d, n, 0x02, leaf_upper_odd, "free space bounds lower");
	each_page(d, n, 0x02, leaf_ptr_odd, "at odd offset");
	each_page(d, n, 0x04, ovf_pages, "overflow run of");

	/* a truncated file */
	assert_int_equal(check_mem(d, n - PS, why, sizeof(why)), KT_ECORRUPT);
	assert_non_null(strstr(why, "last page"));

	/* a meta page's page size */
	c = malloc(n);
	assert_non_null(c);
	memcpy(c, d, n);
	c[HDR + 8 + 2 * sizeof(size_t) + 1] ^= 0x01;
	assert_int_equal(check_mem(c, n, why, sizeof(why)), KT_ECORRUPT);
	assert_non_null(strstr(why, "page size 4352"));
	free(c);
	free(d);
}

/* Through the store: the open fails naming the page, as verify says. */
static void t_open_names_page(void **state)
{
	struct fx *f = *state;
	size_t n = 0;
	unsigned char *d = (unsigned char *)tu_slurp(f->path, &n);
	kt_store *s = NULL;
	int fd, seen = 0;
	char want[64];

	assert_non_null(d);
	fd = open(f->path, O_WRONLY);
	assert_true(fd >= 0);
	for (size_t p = 2 * PS; p + PS <= n; p += PS) {
		unsigned char pg[PS];
		uint16_t fl;
		int rc;

		memcpy(&fl, d + p + HDR - 6, 2);
		if (fl != 0x01)
			continue;
		memcpy(pg, d + p, PS);
		odd_ptr(pg);
		assert_int_equal(pwrite(fd, pg, PS, (off_t)p), PS);
		rc = kt_store_open(f->path, KT_OPEN_RDONLY | KT_OPEN_CHECK, &s);
		assert_int_equal(pwrite(fd, d + p, PS, (off_t)p), PS);
		if (rc == 0) { /* a free page */
			kt_store_close(s);
			continue;
		}
		assert_int_equal(rc, KT_ECORRUPT);
		assert_null(s);
		snprintf(want, sizeof(want), "damaged LMDB page %zu (",
			 p / PS);
		assert_non_null(strstr(kt_store_open_errmsg(), want));
		assert_non_null(strstr(kt_store_open_errmsg(),
				       "node 0 at offset 7, outside"));
		seen++;
	}
	close(fd);
	assert_true(seen > 0);
	free(d);
}

/* A damaged blob: verify names the event that reads it. */
static void t_blob_named(void **state)
{
	struct fx *f = *state;
	size_t n = 0;
	unsigned char *d = (unsigned char *)tu_slurp(f->path, &n), *at;
	const char *br = NULL;
	uint64_t bs = 0;
	kt_store *s;
	int fd;

	assert_non_null(d);
	/* incompressible: stored as is, in an overflow run */
	at = memmem(d, n, big + 4000, 64);
	assert_non_null(at);
	fd = open(f->path, O_WRONLY);
	assert_true(fd >= 0);
	at[10] ^= 0x20;
	assert_int_equal(pwrite(fd, at + 10, 1, (off_t)(at + 10 - d)), 1);
	close(fd);
	assert_int_equal(kt_store_open(f->path, KT_OPEN_RDONLY | KT_OPEN_CHECK,
				       &s), 0);
	assert_int_equal(kt_store_verify(s, NULL, &br, &bs), KT_ECORRUPT);
	assert_non_null(br);
	assert_string_equal(br, run_a);
	assert_int_equal(bs, 1);
	assert_non_null(strstr(kt_store_errmsg(s), "(its tool_result "
			       "\"output_blob\") does not match its hash"));
	/* and verify of that run alone */
	assert_int_equal(kt_store_verify(s, run_a, &br, &bs), KT_ECORRUPT);
	assert_int_equal(bs, 1);
	kt_store_close(s);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(t_messages, setup, teardown),
		cmocka_unit_test_setup_teardown(t_open_names_page, setup,
						teardown),
		cmocka_unit_test_setup_teardown(t_blob_named, setup, teardown),
		cmocka_unit_test_setup_teardown(t_flips_never_crash, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
