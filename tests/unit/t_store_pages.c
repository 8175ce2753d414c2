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
 *
 * Writers (`ktraj append`, `import`) check too, once, at open: a second
 * sweep changes the bytes of every page header and meta page and, in a
 * child, opens the store for writing, appends a run and verifies; a store
 * the check refuses must be left byte for byte as it was.  The free DB's
 * page lists, which only writers read, have cases of their own.
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

	tu_store_gone(NULL, f->dir);
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

static const char run_b[] = "ffeeddccbbaa99887766554433221100";

/* What `ktraj append` does, in a child, on the damaged file (`want`, n
 * bytes): open for writing with the page check, add a run of one event,
 * commit, then verify.  0 written and verified; 3 refused as corrupt, the
 * file untouched; 4 written, and verify finds damage it found before too
 * (a byte the page check does not cover); 5 the write refused as corrupt;
 * 6 version; 7 verify passed before the write and fails after it (the
 * write spoiled the store); 50 refused, but the file changed; 20 + -rc
 * another error. */
static int write_child(const char *path, const unsigned char *want, size_t n)
{
	kt_store *s;
	kt_event ev;
	int rc, fd;

	rc = kt_store_open(path, KT_OPEN_CREATE | KT_OPEN_BULK | T_CHECK, &s);
	if (rc) {
		size_t m = 0;
		char *now = tu_slurp(path, &m);
		int same = now && m == n && !memcmp(now, want, n);

		free(now);
		return !same ? 50 : rc == KT_ECORRUPT ? 3 :
		       rc == KT_EVERSION ? 6 : 20 - rc;
	}
	memset(&ev, 0, sizeof(ev));
	ev.seq = 1;
	ev.ts_ns = KT_TS_UNKNOWN;
	ev.kind = KT_KIND_NOTE;
	ev.actor = "harness";
	ev.payload = "{\"text\":\"written over a changed byte\"}";
	rc = kt_store_begin(s);
	if (rc == 0)
		rc = kt_run_create(s, run_b, "w", "test", NULL);
	if (rc == 0)
		rc = kt_event_append(s, run_b, &ev);
	if (rc)
		kt_store_abort(s);
	else
		rc = kt_store_commit(s);
	kt_store_close(s);
	if (rc)
		return rc == KT_ECORRUPT ? 5 : 20 - rc;
	if ((rc = verify_child(path)) != 3)
		return rc;
	/* and before the write? */
	fd = open(path, O_WRONLY);
	if (fd < 0 || pwrite(fd, want, n, 0) != (ssize_t)n ||
	    ftruncate(fd, (off_t)n) != 0)
		_exit(93);
	close(fd);
	return verify_child(path) == 0 ? 7 : 4;
}

/* One flip's child step.  With img (the undamaged file, n bytes) the
 * writer's: the file gets all of img back after it. */
static int flip_child(const char *path, int fd, const struct flip *f,
		      const unsigned char *img, size_t n)
{
	int code;

	if (pwrite(fd, &f->val, 1, (off_t)f->off) != 1)
		_exit(90);
	if (!img) {
		code = verify_child(path);
		if (pwrite(fd, &f->orig, 1, (off_t)f->off) != 1)
			_exit(91);
		return code;
	}
	{
		unsigned char *want = malloc(n);

		if (!want)
			_exit(92);
		memcpy(want, img, n);
		want[f->off] = f->val;
		code = write_child(path, want, n);
		free(want);
	}
	if (pwrite(fd, img, n, 0) != (ssize_t)n || ftruncate(fd, (off_t)n))
		_exit(91);
	return code;
}

/* Apply the flips from `from` on, one at a time, verifying after each, in
 * children: a child that dies (a signal, or a sanitizer's exit) leaves
 * b->at on the flip that killed it; the file gets its byte back and a new
 * child goes on after it.  One child does all the flips when none kills
 * it (a fork per flip cost 7-30 ms on the shared build machine). */
static int sweep(const char *path, const struct flip *fl, size_t nf,
		 struct board *b, const unsigned char *img, size_t n)
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
				b->code[i] = flip_child(path, fd, &fl[i], img,
							n);
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
		if (img) /* LMDB may have written before it died */
			assert_true(pwrite(fd, img, n, 0) == (ssize_t)n &&
				    ftruncate(fd, (off_t)n) == 0);
		else
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
	sweep(f->path, fl, nf, bd, NULL, 0);
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

/* The writers' sweep: each byte of the meta pages and of each page header
 * and its first node offset xor 0xff, those from the flags on + 1 too (a
 * small change of a size or offset), then the write of write_child (pages
 * of overflow data, whose header does not name them, are left out).  No
 * child may die, no refused write may change the file, and no write may
 * spoil a store that verified before it. */
static void t_write_flips(void **state)
{
	struct fx *f = *state;
	size_t n = 0, nf = 0, cnt[8] = { 0 };
	unsigned char *d = (unsigned char *)tu_slurp(f->path, &n);
	struct flip *fl;
	struct board *bd;
	int bad = 0;

	assert_non_null(d);
	assert_int_equal(write_child(f->path, d, n), 0); /* then back */
	{
		int fd = open(f->path, O_WRONLY);

		assert_true(fd >= 0);
		assert_true(pwrite(fd, d, n, 0) == (ssize_t)n &&
			    ftruncate(fd, (off_t)n) == 0);
		close(fd);
	}
	fl = calloc(2 * n / PS * 160, sizeof(*fl));
	assert_non_null(fl);
	for (size_t p = 0; p + PS <= n; p += PS) {
		unsigned end = p < 2 * PS ? 160 : HDR + 2;
		size_t pg;

		memcpy(&pg, d + p, sizeof(pg));
		if (pg != p / PS)
			continue;
		for (unsigned i = 0; i < end; i++) {
			size_t o = p + i;

			fl[nf++] = (struct flip){ o, d[o],
						  (unsigned char)(d[o] ^ 0xff) };
			if (p >= 2 * PS && i >= sizeof(size_t) + 2)
				fl[nf++] = (struct flip){ o, d[o],
						(unsigned char)(d[o] + 1) };
		}
	}
	bd = mmap(NULL, sizeof(*bd) + nf * sizeof(int), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(bd != MAP_FAILED);
	sweep(f->path, fl, nf, bd, d, n);
	for (size_t i = 0; i < nf; i++) {
		int c = bd->code[i];

		if (c >= 0 && c <= 6 && c != 1 && c != 2) {
			cnt[c]++;
			continue;
		}
		if (bad++ < 8)
			fprintf(stderr, "# offset %zu (page %zu +%zu) 0x%02x -> "
				"0x%02x: %s %d\n", fl[i].off, fl[i].off / PS,
				fl[i].off % PS, fl[i].orig, fl[i].val,
				c >= 2000 ? "child exit" : c >= 1000 ?
				"child killed by signal" : c == 7 ?
				"the write spoiled the store" : c == 50 ?
				"refused, the file changed" : "write error",
				c >= 2000 ? c - 2000 : c >= 1000 ? c - 1000 :
				c);
	}
	fprintf(stderr, "# %zu changes: %zu written, %zu refused as damaged, "
		"%zu written over damage verify finds, %zu write refused, "
		"%zu version; %d crashed or failed\n", nf, cnt[0], cnt[3],
		cnt[4], cnt[5], cnt[6], bad);
	assert_int_equal(bad, 0);
	assert_true(cnt[3] > nf / 4);
	assert_int_equal(verify_child(f->path), 0);
	munmap(bd, sizeof(*bd) + nf * sizeof(int));
	free(fl);
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

/*
 * Two damaged leaves under one branch page: the message names the one the
 * depth-first walk meets first, the last child of the branch (a stack pops
 * it first), whatever the order of the pages in the file.  The check reads
 * pages in file order first and walks again depth-first only when that
 * finds damage (store_pages.c, walk_sorted): its message must not depend on
 * which of the two the file holds first.
 */
static void t_first_damage_named(void **state)
{
	struct fx *f = *state;
	size_t n = 0;
	unsigned char *d = (unsigned char *)tu_slurp(f->path, &n), *c;
	char why[200], want[40];
	int done = 0;

	assert_non_null(d);
	c = malloc(n);
	assert_non_null(c);
	for (size_t p = 2 * PS; p + PS <= n && !done; p += PS) {
		uint16_t fl, lower, o0, ol;
		size_t first = 0, last = 0;

		memcpy(&fl, d + p + HDR - 6, 2);
		memcpy(&lower, d + p + HDR - 4, 2);
		if (fl != 0x01 || (lower - HDR) / 2 < 2)
			continue;
		/* children of node 0 and of the last node (pgno lo|hi<<16) */
		memcpy(&o0, d + p + HDR, 2);
		memcpy(&ol, d + p + lower - 2, 2);
		for (int k = 0; k < 2; k++) {
			uint16_t lo, hi;
			size_t at = p + (k ? ol : o0);

			memcpy(&lo, d + at, 2);
			memcpy(&hi, d + at + 2, 2);
			*(k ? &last : &first) = lo | (size_t)hi << 16;
		}
		memcpy(c, d, n);
		leaf_ptr(c + first * PS);
		leaf_ptr(c + last * PS);
		assert_int_equal(check_mem(c, n, why, sizeof(why)),
				 KT_ECORRUPT);
		snprintf(want, sizeof(want), "page %zu (", last);
		if (!strstr(why, want))
			fail_msg("'%s' does not name page %zu (first child "
				 "page %zu)", why, last, first);
		done = 1;
	}
	assert_true(done);
	free(c);
	free(d);
}

/* The free DB of the newest snapshot in d, when its root is a leaf (a
 * small store): the root page's offset in d.  LMDB 0.9's MDB_meta after
 * the page header: magic, version, address, mapsize, mm_dbs[FREE_DBI,
 * MAIN_DBI] (MDB_db: pad, flags, depth, 3 page counts, entries, root),
 * last page, txnid (store_pages.c). */
#define ZS sizeof(size_t)
#define DBSZ (8 + 5 * ZS)
static size_t free_root(const unsigned char *d, size_t n)
{
	size_t tx[2], root, m;
	uint16_t depth;

	for (int i = 0; i < 2; i++)
		memcpy(&tx[i], d + i * PS + HDR + 8 + 2 * ZS + 2 * DBSZ + ZS, ZS);
	m = (tx[1] > tx[0] ? PS : 0) + HDR + 8 + 2 * ZS;
	memcpy(&depth, d + m + 6, 2);
	memcpy(&root, d + m + 8 + 4 * ZS, ZS);
	assert_int_equal(depth, 1);
	assert_true(root >= 2 && (root + 1) * PS <= n);
	return root * PS;
}

/* Node k of the page at d + p: its key and (inline) data, NULL when the
 * data is in an overflow run. */
static unsigned char *free_node(unsigned char *d, size_t p, unsigned k,
				size_t *count)
{
	uint16_t off, fl, ks;
	unsigned char *nd;

	memcpy(&off, d + p + HDR + 2 * k, 2);
	nd = d + p + off;
	memcpy(&fl, nd + 4, 2);
	memcpy(&ks, nd + 6, 2);
	if (fl & 0x01)
		return NULL;
	memcpy(count, nd + 8 + ks, ZS);
	return nd;
}

static void put(unsigned char *at, size_t v)
{
	memcpy(at, &v, ZS);
}

static size_t get(const unsigned char *at)
{
	size_t v;

	memcpy(&v, at, ZS);
	return v;
}

static void same_file(const char *path, const unsigned char *d, size_t n);

/* The free DB's page lists (store_pages.c free_list): a writer takes the
 * pages they name and writes over them. */
static void t_free_lists(void **state)
{
	struct fx *f = *state;
	size_t n = 0, root, lower, cnt, ids[2] = { 0 };
	unsigned char *d, *c, *nd[2] = { NULL }, *x;
	char why[200];
	kt_store *s;
	int fd;

	/* three more commits: pages freed by each are listed */
	assert_int_equal(kt_store_open(f->path, KT_OPEN_CREATE, &s), 0);
	for (uint64_t i = 1; i <= 3; i++) {
		kt_event ev;

		memset(&ev, 0, sizeof(ev));
		ev.seq = i;
		ev.ts_ns = KT_TS_UNKNOWN;
		ev.kind = KT_KIND_NOTE;
		ev.actor = "harness";
		ev.payload = "{\"text\":\"a commit\"}";
		assert_int_equal(kt_store_begin(s), 0);
		if (i == 1)
			assert_int_equal(kt_run_create(s, run_b, "w", "test",
						       NULL), 0);
		assert_int_equal(kt_event_append(s, run_b, &ev), 0);
		assert_int_equal(kt_store_commit(s), 0);
	}
	assert_int_equal(kt_store_close(s), 0);
	d = (unsigned char *)tu_slurp(f->path, &n);
	assert_non_null(d);
	assert_int_equal(check_mem(d, n, why, sizeof(why)), 0);
	c = malloc(n);
	assert_non_null(c);
	root = free_root(d, n);
	lower = (size_t)d[root + HDR - 4] | (size_t)d[root + HDR - 3] << 8;
	/* two records listing pages inline, one with two or more */
	for (unsigned k = 0; k < (lower - HDR) / 2; k++) {
		x = free_node(d, root, k, &cnt);
		if (!x || cnt < 1)
			continue;
		if (cnt >= 2 && !nd[0]) {
			nd[0] = x;
		} else if (!nd[1]) {
			nd[1] = x;
		}
	}
	assert_non_null(nd[0]);
	assert_non_null(nd[1]);
	for (int i = 0; i < 2; i++) {
		uint16_t ks;

		memcpy(&ks, nd[i] + 6, 2);
		assert_int_equal(ks, ZS);
		ids[i] = (size_t)(nd[i] + 8 + ZS - d); /* the count's offset */
	}
#define CASE(edit, want) do {						\
		memcpy(c, d, n);					\
		edit;							\
		assert_int_equal(check_mem(c, n, why, sizeof(why)),	\
				 KT_ECORRUPT);				\
		if (!strstr(why, want))					\
			fail_msg("'%s' lacks '%s'", why, want);		\
	} while (0)
#define PUT(o, v) put(c + (o), (v))
#define GET(o) get(d + (o))
	/* a count past the record: LMDB reads pages after it */
	CASE(PUT(ids[0], 1000), "counts 1000 free pages in room for");
	/* a page past the last */
	CASE(PUT(ids[0] + ZS, n / PS + 5), "free, outside pages 2..");
	/* ascending */
	CASE((PUT(ids[0] + ZS, GET(ids[0] + 2 * ZS)),
	      PUT(ids[0] + 2 * ZS, GET(ids[0] + ZS))),
	     "(not in descending order)");
	/* the free DB's own root page listed free */
	CASE((PUT(ids[1], 1), PUT(ids[1] + ZS, root / PS)), "a page in use");
	/* one page in two lists */
	CASE((PUT(ids[1], 1), PUT(ids[1] + ZS, GET(ids[0] + ZS))),
	     "is listed free twice");
	/* a transaction id after the snapshot's, and 0 */
	CASE(PUT(ids[0] - ZS, 1000000), "lists the pages of transaction "
	     "1000000, outside 1..");
	CASE(PUT(ids[0] - ZS, 0), "lists the pages of transaction 0");
	/* a key that is not a transaction id */
	CASE(c[ids[0] - ZS - 2] = 4, "has a key of 4 bytes");
	/* a data size that is not whole page numbers (mn_lo) */
	CASE(c[ids[0] - ZS - 8] += 1, "holds a page list of");
#undef CASE
#undef PUT
#undef GET
	/* and a writer refuses it, the file as it was */
	memcpy(c, d, n);
	{
		size_t v = 1000;

		memcpy(c + ids[0], &v, ZS);
	}
	fd = open(f->path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, c, n, 0), (ssize_t)n);
	close(fd);
	assert_int_equal(kt_store_open(f->path, KT_OPEN_CREATE | KT_OPEN_CHECK,
				       &s), KT_ECORRUPT);
	assert_non_null(strstr(kt_store_open_errmsg(), "(database free): "
			       "node "));
	same_file(f->path, c, n);
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

/* A leaf page's flags made a branch's (the damage that aborted `ktraj
 * append` in mdb_page_search_root). */
static void leaf_flags(unsigned char *pg)
{
	pg[HDR - 6] = 0x01;
}

/* The whole file at path is d (n bytes). */
static void same_file(const char *path, const unsigned char *d, size_t n)
{
	size_t m = 0;
	char *now = tu_slurp(path, &m);

	assert_non_null(now);
	assert_int_equal(m, n);
	assert_memory_equal(now, d, n);
	free(now);
}

/* A writer opened with KT_OPEN_CHECK refuses a damaged page before it
 * writes anything: KT_ECORRUPT naming the page, the file as it was. */
static void t_writer_refuses(void **state)
{
	static const struct {
		unsigned fl;
		damage_fn fn;
		const char *want;
	} dm[] = {
		{ 0x02, leaf_flags, "(a leaf page expected)" },
		{ 0x02, leaf_ptr, "node 0 at offset 4094, outside" },
		{ 0x02, leaf_upper_odd, "free space bounds lower" },
		{ 0x01, branch_child, "node 1 names page" },
		{ 0x04, ovf_pages, "overflow run of" },
	};
	struct fx *f = *state;
	size_t n = 0;
	unsigned char *d = (unsigned char *)tu_slurp(f->path, &n), *c;
	int fd;

	assert_non_null(d);
	c = malloc(n);
	assert_non_null(c);
	fd = open(f->path, O_WRONLY);
	assert_true(fd >= 0);
	for (size_t k = 0; k < sizeof(dm) / sizeof(dm[0]); k++) {
		int seen = 0;

		for (size_t p = 2 * PS; p + PS <= n; p += PS) {
			kt_store *s = NULL;
			char want[64];
			uint16_t fl;
			int rc;

			memcpy(&fl, d + p + HDR - 6, 2);
			if (fl != dm[k].fl)
				continue;
			memcpy(c, d, n);
			dm[k].fn(c + p);
			assert_int_equal(pwrite(fd, c + p, PS, (off_t)p), PS);
			rc = kt_store_open(f->path, KT_OPEN_CREATE |
					   KT_OPEN_CHECK, &s);
			if (rc == 0) { /* a free page: the store is sound */
				kt_store_close(s);
			} else {
				assert_int_equal(rc, KT_ECORRUPT);
				assert_null(s);
				snprintf(want, sizeof(want),
					 "damaged LMDB page %zu (", p / PS);
				assert_non_null(strstr(kt_store_open_errmsg(),
						       want));
				assert_non_null(strstr(kt_store_open_errmsg(),
						       dm[k].want));
				same_file(f->path, c, n);
				seen++;
			}
			assert_true(pwrite(fd, d, n, 0) == (ssize_t)n &&
				    ftruncate(fd, (off_t)n) == 0);
		}
		assert_true(seen > 0);
	}
	close(fd);
	/* the sound store opens for writing and takes a run */
	{
		kt_store *s;
		kt_event ev;

		assert_int_equal(kt_store_open(f->path, KT_OPEN_CREATE |
					       KT_OPEN_CHECK, &s), 0);
		memset(&ev, 0, sizeof(ev));
		ev.seq = 1;
		ev.ts_ns = KT_TS_UNKNOWN;
		ev.kind = KT_KIND_NOTE;
		ev.actor = "harness";
		ev.payload = "{\"text\":\"sound\"}";
		assert_int_equal(kt_store_begin(s), 0);
		assert_int_equal(kt_run_create(s, run_b, "w", "test", NULL), 0);
		assert_int_equal(kt_event_append(s, run_b, &ev), 0);
		assert_int_equal(kt_store_commit(s), 0);
		assert_int_equal(kt_store_close(s), 0);
		assert_int_equal(verify_child(f->path), 0);
	}
	free(c);
	free(d);
}

/* A writable handle checks once, at open: a page damaged after that (one
 * the writer does not touch: a blob's overflow run) goes unseen by its
 * reads after its commits, where a read-only handle checks each newer
 * snapshot and finds it; the next writer's open refuses it. */
static void t_writer_checks_once(void **state)
{
	struct fx *f = *state;
	size_t n = 0, ovf = 0;
	unsigned char *d = (unsigned char *)tu_slurp(f->path, &n), pg[PS];
	kt_store *w, *r;
	kt_run_info info;
	kt_event ev;
	int fd;

	assert_non_null(d);
	for (size_t p = 2 * PS; p + PS <= n && !ovf; p += PS) {
		uint16_t fl;

		memcpy(&fl, d + p + HDR - 6, 2);
		if (fl == 0x04)
			ovf = p;
	}
	assert_true(ovf > 0);
	assert_int_equal(kt_store_open(f->path, KT_OPEN_CREATE | KT_OPEN_CHECK,
				       &w), 0);
	assert_int_equal(kt_store_open(f->path, KT_OPEN_RDONLY | KT_OPEN_CHECK,
				       &r), 0);
	memcpy(pg, d + ovf, PS);
	ovf_pages(pg);
	fd = open(f->path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, pg, PS, (off_t)ovf), PS);
	close(fd);
	for (uint64_t i = 1; i <= 3; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.seq = i;
		ev.ts_ns = KT_TS_UNKNOWN;
		ev.kind = KT_KIND_NOTE;
		ev.actor = "harness";
		ev.payload = "{\"text\":\"after the check\"}";
		assert_int_equal(kt_store_begin(w), 0);
		if (i == 1)
			assert_int_equal(kt_run_create(w, run_b, "w", "test",
						       NULL), 0);
		assert_int_equal(kt_event_append(w, run_b, &ev), 0);
		assert_int_equal(kt_store_commit(w), 0);
		assert_int_equal(kt_run_get(w, run_b, &info), 0);
		assert_int_equal(info.n_events, i);
	}
	assert_int_equal(kt_run_get(r, run_b, &info), KT_ECORRUPT);
	assert_non_null(strstr(kt_store_errmsg(r), "overflow run of"));
	kt_store_close(r);
	assert_int_equal(kt_store_close(w), 0);
	free(d);
	d = (unsigned char *)tu_slurp(f->path, &n);
	assert_non_null(d);
	assert_int_equal(kt_store_open(f->path, KT_OPEN_CREATE | KT_OPEN_CHECK,
				       &w), KT_ECORRUPT);
	assert_non_null(strstr(kt_store_open_errmsg(), "overflow run of"));
	same_file(f->path, d, n);
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
		cmocka_unit_test_setup_teardown(t_first_damage_named, setup,
						teardown),
		cmocka_unit_test_setup_teardown(t_open_names_page, setup,
						teardown),
		cmocka_unit_test_setup_teardown(t_blob_named, setup, teardown),
		cmocka_unit_test_setup_teardown(t_writer_refuses, setup,
						teardown),
		cmocka_unit_test_setup_teardown(t_writer_checks_once, setup,
						teardown),
		cmocka_unit_test_setup_teardown(t_free_lists, setup, teardown),
		cmocka_unit_test_setup_teardown(t_flips_never_crash, setup,
						teardown),
		cmocka_unit_test_setup_teardown(t_write_flips, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
