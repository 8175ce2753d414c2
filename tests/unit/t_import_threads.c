/*
 * t_import_threads.c - issue 21: a Claude Code import big enough for two
 * threads (kt_threads_for: > 4 MiB, two CPUs) hashes the source file and
 * compresses sealed event blocks on second threads, and stores exactly the
 * records the one-thread import (KTRAJ_THREADS=1) stores: every record of
 * every LMDB database of the two stores is compared, the run record's
 * creation time (its first 8 bytes, the import's clock) and the run's
 * summary hash that covers it aside.  The threads are seen, not timed:
 * /proc/self/status counts the process's threads at each progress call.
 *
 * Lines parsed ahead (import/parse_ahead.c): the same session with every
 * kind of bad line in it (blank, not UTF-8, not an object, not JSON, too
 * long to be parsed ahead, a byte order mark, a \u0000, a last line cut)
 * stores the same records and says the same warnings in the same order on
 * one thread and on two; an importer that fails mid-file stops the parse
 * thread and keeps nothing; and the ring itself, taken in part, out of
 * step or not at all, stops cleanly.
 *
 * The hash thread's hand-off (kt_in_load_ahead): the file's f.sha is
 * written by the caller in kt_in_hash_wait, after the join, never by the
 * thread, so detection's copy of the kt_file (driver.c detect_best) reads
 * nothing the thread writes (helgrind saw that race: TSan cannot, as the
 * digest is written inside libnettle).
 */
#include "testutil.h"
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include "tu_lmdb.h"
#include "../../import/import.h"
#include "../../import/parse_ahead.h"
#include "../../import/imp_int.h"

struct seen {
	int max_threads;
	int calls;
	int max_parse;          /* "ktraj-parse" threads seen */
	uint64_t ids;           /* kt_import_opts.ids (0: the default) */
	char *warns;            /* every warning, one a line */
	size_t nwarns, wlen;
};

static void on_progress(uint64_t done, uint64_t total, void *arg)
{
	struct seen *x = arg;
	/* the block worker lives as long as the store handle: seen here
	 * inside the parse and after it */
	int n = tu_threads_named("ktraj-blocks");

	(void)done;
	(void)total;
	x->calls++;
	if (n > x->max_threads)
		x->max_threads = n;
	n = tu_threads_named("ktraj-parse");
	if (n > x->max_parse)
		x->max_parse = n;
}

#define SEEN_INIT { 0, 0, 0, 0, NULL, 0, 0 }

static void on_warn(const char *line, void *arg)
{
	struct seen *x = arg;
	size_t n = strlen(line);
	/* the first bad lines come long before the first progress call */
	int t = tu_threads_named("ktraj-parse");

	if (t > x->max_parse)
		x->max_parse = t;

	x->warns = realloc(x->warns, x->wlen + n + 2);
	assert_non_null(x->warns);
	memcpy(x->warns + x->wlen, line, n);
	x->wlen += n;
	x->warns[x->wlen++] = '\n';
	x->warns[x->wlen] = 0;
	x->nwarns++;
}

/* A Claude Code session of ~10 MB and 15,000 events: rounds of a prompt,
 * a Bash call and its output (words from a fixed generator, so bodies
 * compress as real ones do).  A fresh store holds its sealed blocks until
 * its dictionary is trained at 10,000 events (kt_defer_flush: compressed
 * two at a time, one on the worker); the blocks sealed after it go to the
 * worker from the append path. */
static void write_session(const char *path)
{
	static const char *const words[] = {
		"kernel", "warp", "shared", "stride", "load", "store",
		"float", "half", "tile", "block", "grid", "sync", "ms",
		"speedup", "baseline", "latency", "1.23", "0.98", "L2",
	};
	FILE *f = fopen(path, "w");
	uint32_t x = 12345;
	int uuid = 0;

	assert_non_null(f);
	for (int r = 0; r < 5000; r++) {
		fprintf(f, "{\"type\":\"user\",\"message\":{\"role\":\"user\","
			"\"content\":\"round %d: make k%d.cu faster\"},"
			"\"parentUuid\":null,\"sessionId\":\"thr-1\","
			"\"cwd\":\"/w\",\"version\":\"1.0.53\",\"uuid\":"
			"\"u%d\",\"timestamp\":\"2025-07-01T00:%02d:%02d.000Z\"}\n",
			r, r % 7, uuid + 1,
			(r / 60) % 60, r % 60);
		uuid++;
		fprintf(f, "{\"type\":\"assistant\",\"requestId\":\"req_%d\","
			"\"message\":{\"id\":\"msg_%d\",\"type\":\"message\","
			"\"role\":\"assistant\",\"model\":\"m\",\"content\":["
			"{\"type\":\"tool_use\",\"id\":\"toolu_%d\",\"name\":"
			"\"Bash\",\"input\":{\"command\":\"cat notes/k%d-%d.txt"
			"\"}}],\"stop_reason\":\"tool_use\"},"
			"\"sessionId\":\"thr-1\",\"uuid\":\"u%d\",\"timestamp\":"
			"\"2025-07-01T00:%02d:%02d.500Z\"}\n", r, r, r, r % 7,
			r, ++uuid, (r / 60) % 60, r % 60);
		fprintf(f, "{\"type\":\"user\",\"message\":{\"role\":\"user\","
			"\"content\":[{\"tool_use_id\":\"toolu_%d\",\"type\":"
			"\"tool_result\",\"content\":\"", r);
		for (int w = 0; w < 300; w++) {
			x = x * 1103515245u + 12345u;
			fprintf(f, "%s%s", w ? " " : "",
				words[(x >> 16) % (sizeof(words) / sizeof(words[0]))]);
			if (w % 16 == 15)
				fprintf(f, "\\n");
		}
		fprintf(f, "\"}]},\"sessionId\":\"thr-1\",\"uuid\":\"u%d\","
			"\"timestamp\":\"2025-07-01T00:%02d:%02d.900Z\"}\n",
			++uuid, (r / 60) % 60, r % 60);
	}
	assert_int_equal(fclose(f), 0);
}

static int import_into(const char *store, char *src, int one_thread,
		       struct seen *x)
{
	kt_store *s = NULL;
	kt_import_opts o;
	int rc;

	if (one_thread)
		setenv("KTRAJ_THREADS", "1", 1);
	else
		unsetenv("KTRAJ_THREADS");
	assert_int_equal(kt_store_open(store, KT_OPEN_CREATE, &s), 0);
	memset(&o, 0, sizeof(o));
	o.progress = 1;
	o.on_progress = on_progress;
	o.on_warn = on_warn;
	o.ids = x->ids;
	o.arg = x;
	rc = kt_import_paths(s, &src, 1, &o);
	assert_int_equal(kt_store_close(s), 0);
	unsetenv("KTRAJ_THREADS");
	return rc;
}

static void test_two_threads_store_the_same(void **state)
{
	char *dir = tu_tmpdir(), src[4300], pa[4300], pb[4300];
	struct seen one = SEEN_INIT, two = SEEN_INIT;
	cpu_set_t set;

	(void)state;
	if (sched_getaffinity(0, sizeof(set), &set) != 0 ||
	    CPU_COUNT(&set) < 2) {
		tu_rmrf(dir);
		free(dir);
		skip(); /* one CPU: no second thread to test */
	}
	snprintf(src, sizeof(src), "%s/session.jsonl", dir);
	snprintf(pa, sizeof(pa), "%s/one.ktraj", dir);
	snprintf(pb, sizeof(pb), "%s/two.ktraj", dir);
	write_session(src);
	assert_int_equal(import_into(pa, src, 1, &one), 0);
	assert_int_equal(import_into(pb, src, 0, &two), 0);
	/* progress is called inside the parse (every 8 MiB) and after it */
	assert_true(one.calls >= 2 && two.calls >= 2);
	assert_int_equal(one.max_threads, 0);
	assert_int_equal(two.max_threads, 1);

	/* many sealed blocks went through the worker */
	assert_true(tu_same_stores(pa, pb, "ev_blocks") >= 20);
	free(one.warns);
	free(two.warns);
	tu_rmrf(dir);
	free(dir);
}

/* Every kind of line parse_line (imp_claude.c) warns about or repairs,
 * and the ones the parse thread leaves to the importer for other reasons;
 * %d makes the uuids of kept lines unique. */
static void put_bad_lines(FILE *f, int k)
{
	fprintf(f, "\n   \t\n");                          /* blank */
	fprintf(f, "[1,2,3]\n");                           /* not an object */
	fprintf(f, "{\"type\":\"user\",\"message\":{\"role\":\"user\","
		"\"content\":\"bad \xff\xfe byte %d\"},\"uuid\":\"bx%d\","
		"\"sessionId\":\"thr-1\"}\n", k, k);         /* not UTF-8 */
	fprintf(f, "{\"type\":\"user\",\"message\":{\"role\":\"user\","
		"\"content\":\"half \\ud83d pair %d\"},\"uuid\":\"sx%d\","
		"\"sessionId\":\"thr-1\"}\n", k, k);         /* lone surrogate */
	fprintf(f, "{\"type\":\"user\",\"x\":\"nul \\u0000\"}\n");
	fprintf(f, "\xef\xbb\xbf{\"type\":\"summary\",\"summary\":\"b\"}\n");
	fprintf(f, "{\"type\": \"user\", \"message\": \n"); /* cut */
	fprintf(f, "{\"no_type\":%d}\n", k);               /* parsed, warned */
	fprintf(f, "{\"type\":\"user\",\"n\":01}\n");     /* RFC 8259 */
	/* a good line over KT_PA_MAX_LINE: parsed by the importer */
	fprintf(f, "{\"type\":\"user\",\"message\":{\"role\":\"user\","
		"\"content\":\"long %d ", k);
	for (size_t i = 0; i < KT_PA_MAX_LINE / 8 + 10; i++)
		fputs("warp ok ", f);
	fprintf(f, "\"},\"uuid\":\"lx%d\",\"sessionId\":\"thr-1\"}\n", k);
}

/* write_session's lines with put_bad_lines after every 3,000th line
 * (early, in the middle, near the end) and a last line cut short. */
static void write_bad_session(const char *path, const char *tmp)
{
	FILE *in, *f;
	char *line = NULL;
	size_t cap = 0;
	int k = 0;

	write_session(tmp);
	assert_non_null(in = fopen(tmp, "r"));
	assert_non_null(f = fopen(path, "w"));
	while (getline(&line, &cap, in) > 0) {
		fputs(line, f);
		if (++k % 3000 == 20)
			put_bad_lines(f, k);
	}
	fprintf(f, "{\"type\":\"user\",\"message\":{\"role\":\"us");
	free(line);
	fclose(in);
	assert_int_equal(fclose(f), 0);
	unlink(tmp);
}

static int two_cpus(void)
{
	cpu_set_t set;

	return sched_getaffinity(0, sizeof(set), &set) == 0 &&
	       CPU_COUNT(&set) >= 2;
}

static void test_parse_ahead_same_store_and_warnings(void **state)
{
	char *dir = tu_tmpdir(), src[4300], tmp[4300], pa[4300], pb[4300];
	struct seen one = SEEN_INIT, two = SEEN_INIT;

	(void)state;
	if (!two_cpus()) {
		tu_rmrf(dir);
		free(dir);
		skip(); /* one CPU: no second thread to test */
	}
	snprintf(src, sizeof(src), "%s/session.jsonl", dir);
	snprintf(tmp, sizeof(tmp), "%s/plain.jsonl", dir);
	snprintf(pa, sizeof(pa), "%s/one.ktraj", dir);
	snprintf(pb, sizeof(pb), "%s/two.ktraj", dir);
	write_bad_session(src, tmp);
	assert_int_equal(import_into(pa, src, 1, &one), 0);
	assert_int_equal(import_into(pb, src, 0, &two), 0);
	assert_int_equal(one.max_parse, 0);
	assert_int_equal(two.max_parse, 1);
	/* 5 rounds of bad lines, 7 warned each, the repair once per file,
	 * the cut last line: the same words in the same order */
	assert_true(one.nwarns >= 5 * 7 + 2);
	assert_non_null(strstr(one.warns, "invalid UTF-8"));
	assert_non_null(strstr(one.warns, "surrogate"));
	assert_non_null(strstr(one.warns, "truncated"));
	assert_int_equal(two.nwarns, one.nwarns);
	assert_string_equal(two.warns, one.warns);

	tu_same_stores(pa, pb, "ev_blocks");
	free(one.warns);
	free(two.warns);
	tu_rmrf(dir);
	free(dir);
}

static int count_run(const kt_run_info *r, void *arg)
{
	(void)r;
	++*(uint64_t *)arg;
	return 0;
}

/* The importer fails in the middle of the file: every id spilled to the
 * temporary file (ids 1), whose first commit, ~1,000 puts in, cannot
 * write past a file size limit (EFBIG, SIGXFSZ ignored), so on_line
 * returns KT_EIO with lines parsed ahead in the ring.  The import fails as
 * on one thread, at the same line (the same warnings before it), the
 * parse thread is gone when it returns, the trees it parsed ahead are
 * freed (the sanitizer builds see a leak otherwise) and nothing of the
 * file is kept. */
static void test_parse_ahead_importer_fails_mid_file(void **state)
{
	char *dir = tu_tmpdir(), src[4300], tmp[4300], pa[4300], pb[4300];
	struct seen one = SEEN_INIT, two = SEEN_INIT;
	struct rlimit was, lim;
	void (*was_xfsz)(int);
	kt_store *s;
	uint64_t nruns;
	int ra, rb;

	(void)state;
	if (!two_cpus()) {
		tu_rmrf(dir);
		free(dir);
		skip();
	}
	snprintf(src, sizeof(src), "%s/session.jsonl", dir);
	snprintf(tmp, sizeof(tmp), "%s/plain.jsonl", dir);
	snprintf(pa, sizeof(pa), "%s/one.ktraj", dir);
	snprintf(pb, sizeof(pb), "%s/two.ktraj", dir);
	write_bad_session(src, tmp);
	one.ids = two.ids = 1;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &was), 0);
	lim = was;
	lim.rlim_cur = 64 << 10;
	was_xfsz = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	ra = import_into(pa, src, 1, &one);
	rb = import_into(pb, src, 0, &two);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &was), 0);
	signal(SIGXFSZ, was_xfsz);
	assert_int_equal(ra, KT_EIO);
	assert_int_equal(rb, KT_EIO);
	assert_int_equal(two.max_parse, 1);
	assert_int_equal(tu_threads_named("ktraj-parse"), 0);
	/* stopped at the same line, before the end (the cut last line) */
	assert_non_null(one.warns);
	assert_non_null(two.warns);
	assert_string_equal(two.warns, one.warns);
	assert_null(strstr(two.warns, "truncated"));
	/* nothing of the failed file is kept */
	assert_int_equal(kt_store_open(pb, 0, &s), 0);
	nruns = 0;
	assert_int_equal(kt_run_foreach(s, count_run, &nruns), 0);
	assert_int_equal(nruns, 0);
	assert_int_equal(kt_store_close(s), 0);
	free(one.warns);
	free(two.warns);
	tu_rmrf(dir);
	free(dir);
}

/* n lines "{"i":K}" (every 5th blank, every 7th not an object), one
 * string; caller frees. */
static char *ring_lines(int n, size_t *len)
{
	char *b = malloc((size_t)n * 24 + 1), *p = b;

	assert_non_null(b);
	for (int i = 0; i < n; i++)
		p += i % 5 == 4 ? sprintf(p, "\n") :
		     i % 7 == 6 ? sprintf(p, "[%d]\r\n", i) :
		     sprintf(p, "{\"i\":%d}\n", i);
	*len = (size_t)(p - b);
	return b;
}

/* The ring on its own: taken to the end, parsed lines are objects with
 * the right numbers and the others NULL; stopped after a few lines, after
 * none, or taken out of step, it frees what it holds and its thread is
 * gone (no hang: the thread waits for room with more lines than the
 * ring). */
static void test_parse_ahead_ring(void **state)
{
	size_t len;
	char *b = ring_lines(20000, &len);
	kt_parse_ahead *a;
	const char *p;
	int i;

	(void)state;
	assert_null(kt_pa_take(NULL, 0, 1));
	kt_pa_stop(NULL);
	/* to the end, split as the importers split */
	assert_int_equal(kt_pa_start(b, len, &a), 0);
	for (p = b, i = 0; p < b + len; i++) {
		const char *nl = memchr(p, '\n', (size_t)(b + len - p));
		size_t n = (size_t)(nl - p);
		cJSON *o;

		if (n && p[n - 1] == '\r')
			n--;
		o = kt_pa_take(a, (uint64_t)(p - b), n);
		if (i % 5 == 4 || i % 7 == 6) {
			assert_null(o);
		} else {
			assert_non_null(o);
			assert_int_equal(cJSON_GetObjectItem(o, "i")->valueint, i);
			cJSON_Delete(o);
		}
		p = nl + 1;
	}
	assert_int_equal(i, 20000);
	assert_null(kt_pa_take(a, len, 0)); /* past the end */
	kt_pa_stop(a);
	assert_int_equal(tu_threads_named("ktraj-parse"), 0);

	/* stopped early: after three lines, after none */
	assert_int_equal(kt_pa_start(b, len, &a), 0);
	assert_non_null(p = memchr(b, '\n', len));
	{
		cJSON *o = kt_pa_take(a, 0, (size_t)(p - b));

		assert_non_null(o);
		cJSON_Delete(o);
	}
	kt_pa_stop(a);
	assert_int_equal(kt_pa_start(b, len, &a), 0);
	kt_pa_stop(a);
	assert_int_equal(tu_threads_named("ktraj-parse"), 0);

	/* out of step: lines skipped are dropped, a line split otherwise is
	 * the caller's to parse, and the next line in step comes parsed */
	assert_int_equal(kt_pa_start(b, len, &a), 0);
	{
		/* line 10 is "{"i":10}" at 10 * 9 - 1 bytes (two blanks of 1
		 * byte, one "[6]\r\n" of 5 before it) */
		const char *l10 = strstr(b, "{\"i\":10}");
		cJSON *o;

		assert_null(kt_pa_take(a, (uint64_t)(l10 - b), 3));
		o = kt_pa_take(a, (uint64_t)(l10 - b) + 9, 8);
		assert_non_null(o);
		assert_int_equal(cJSON_GetObjectItem(o, "i")->valueint, 11);
		cJSON_Delete(o);
	}
	kt_pa_stop(a);
	free(b);
}

/* The process's threads (/proc/self/task), a sanitizer's included. */
static int tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void test_hash_thread_leaves_f_sha_to_the_wait(void **state)
{
	static const unsigned char zero[KT_HASH_LEN];
	kt_import_opts opts;
	kt_imp d;
	struct kt_root *r = NULL;
	struct kt_vfile *v;
	unsigned char want[KT_HASH_LEN];
	char hex[KT_HASH_HEX + 1], *dir = tu_tmpdir(), path[4200];
	size_t len = (6u << 20) + 123, i;
	unsigned char *b = malloc(len);
	FILE *f;
	int base, waited;

	(void)state;
	if (!two_cpus() || (getenv("KTRAJ_THREADS") &&
			    !strcmp(getenv("KTRAJ_THREADS"), "1"))) {
		free(b);
		tu_rmrf(dir);
		free(dir);
		skip(); /* one CPU: no hash thread */
	}
	assert_non_null(dir);
	assert_non_null(b);
	for (i = 0; i < len; i++)
		b[i] = (unsigned char)('a' + (i * 7 + i / 4093) % 26);
	kt_sha256(b, len, want);
	kt_hex(want, KT_HASH_LEN, hex);
	snprintf(path, sizeof(path), "%s/big.jsonl", dir);
	assert_non_null(f = fopen(path, "wb"));
	assert_int_equal(fwrite(b, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	memset(&opts, 0, sizeof(opts));
	memset(&d, 0, sizeof(d));
	d.opts = &opts;
	assert_int_equal(kt_in_root(&d, path, &r), 0);
	assert_non_null(r);
	assert_int_equal(r->n, 1);
	v = r->v[0];
	base = tasks();
	assert_true(base > 0);
	assert_int_equal(kt_in_load_ahead(&d, r, v), 0);
	assert_true(v->hashing);
	/* the thread is left to end on its own, not joined: whatever it
	 * wrote, it wrote by then (a wait for an event, bounded, not timed) */
	for (waited = 0; tasks() > base && waited < 60000; waited++)
		usleep(1000);
	assert_int_equal(tasks(), base);
	assert_memory_equal(v->f.sha, zero, KT_HASH_LEN);
	assert_string_equal(v->f.sha_hex, "");
	kt_in_hash_wait(v);
	assert_false(v->hashing);
	assert_memory_equal(v->f.sha, want, KT_HASH_LEN);
	assert_string_equal(v->f.sha_hex, hex);
	kt_in_root_free(r);
	free(b);
	tu_rmrf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_threads_store_the_same),
		cmocka_unit_test(test_parse_ahead_same_store_and_warnings),
		cmocka_unit_test(test_parse_ahead_importer_fails_mid_file),
		cmocka_unit_test(test_parse_ahead_ring),
		cmocka_unit_test(test_hash_thread_leaves_f_sha_to_the_wait),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
