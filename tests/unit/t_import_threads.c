/*
 * t_import_threads.c - issue 21: a Claude Code import big enough for two
 * threads (kt_threads_for: > 4 MiB, two CPUs) hashes the source file and
 * compresses sealed event blocks on second threads, and stores exactly the
 * records the one-thread import (KTRAJ_THREADS=1) stores: every record of
 * every LMDB database of the two stores is compared, the run record's
 * creation time (its first 8 bytes, the import's clock) and the run's
 * summary hash that covers it aside.  The threads are seen, not timed:
 * /proc/self/status counts the process's threads at each progress call.
 */
#include "testutil.h"
#include <sched.h>
#include "tu_lmdb.h"
#include "../../import/import.h"

struct seen {
	int max_threads;
	int calls;
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
	o.arg = x;
	rc = kt_import_paths(s, &src, 1, &o);
	assert_int_equal(kt_store_close(s), 0);
	unsetenv("KTRAJ_THREADS");
	return rc;
}

static void test_two_threads_store_the_same(void **state)
{
	char *dir = tu_tmpdir(), src[4300], pa[4300], pb[4300];
	struct seen one = { 0, 0 }, two = { 0, 0 };
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
	assert_true(tu_same_stores(pa, pb) >= 20);
	tu_rmrf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_threads_store_the_same),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
