/*
 * t_import_stop.c - kt_import_opts.stop (what `ktraj import` sets on
 * Ctrl-C): no source is started once it is set, the source at hand is
 * finished and committed, on_run reports exactly the runs finished, the
 * store verifies, and importing again completes the rest.  The flag is set
 * from on_progress, which the driver calls after every source, so where it
 * stops is deterministic.
 */
#include "testutil.h"
#include <signal.h>
#include "../../import/import.h"

#define NSRC 5

struct st {
	volatile sig_atomic_t stop;
	int stop_after;    /* progress calls before stop is set; -1 never */
	int progress;
	int nrun;
	uint64_t events;
};

static void on_run(const char *id, const char *name, const char *format,
		   uint64_t events, uint64_t added, void *arg)
{
	struct st *x = arg;

	(void)id;
	(void)name;
	(void)format;
	(void)added;
	x->nrun++;
	x->events += events;
}

static void on_progress(uint64_t done, uint64_t total, void *arg)
{
	struct st *x = arg;

	(void)done;
	(void)total;
	if (x->stop_after >= 0 && ++x->progress > x->stop_after)
		x->stop = 1;
}

static int count_run(const kt_run_info *ri, void *arg)
{
	(void)ri;
	(*(int *)arg)++;
	return 0;
}

static int runs_in(kt_store *s)
{
	int n = 0;

	assert_int_equal(kt_run_foreach(s, count_run, &n), 0);
	return n;
}

/* NSRC ktraj JSONL files of two events each in dir/src */
static void write_sources(const char *dir, char *src, size_t n)
{
	int i;

	snprintf(src, n, "%s/src", dir);
	assert_int_equal(mkdir(src, 0700), 0);
	for (i = 0; i < NSRC; i++) {
		char p[4400];
		FILE *f;

		snprintf(p, sizeof(p), "%s/r%d.jsonl", src, i);
		f = fopen(p, "w");
		assert_non_null(f);
		fprintf(f, "{\"kind\":\"note\",\"actor\":\"system\",\"payload\":{\"text\":\"run %d a\"}}\n"
			   "{\"kind\":\"note\",\"actor\":\"system\",\"payload\":{\"text\":\"run %d b\"}}\n",
			i, i);
		fclose(f);
	}
}

static int import(kt_store *s, char *path, struct st *x)
{
	kt_import_opts o;

	memset(&o, 0, sizeof(o));
	o.format = "ktraj";
	o.progress = 1;
	o.on_run = on_run;
	o.on_progress = on_progress;
	o.arg = x;
	o.stop = &x->stop;
	return kt_import_paths(s, &path, 1, &o);
}

static void verify_ok(kt_store *s)
{
	const char *bad_run = NULL;
	uint64_t bad_seq = 0;

	assert_int_equal(kt_store_verify(s, NULL, &bad_run, &bad_seq), 0);
}

static void test_stop_between_sources(void **state)
{
	char *dir = tu_tmpdir(), sp[4300], src[4300];
	kt_store *s;
	struct st x;
	int k;

	(void)state;
	assert_non_null(dir);
	write_sources(dir, src, sizeof(src));
	snprintf(sp, sizeof(sp), "%s/s.ktraj", dir);
	assert_int_equal(kt_store_open(sp, KT_OPEN_CREATE | KT_OPEN_BULK, &s), 0);
	/* set before the call: nothing is started */
	memset(&x, 0, sizeof(x));
	x.stop = 1;
	x.stop_after = -1;
	assert_int_equal(import(s, src, &x), 0);
	assert_int_equal(x.nrun, 0);
	assert_int_equal(runs_in(s), 0);
	/* set at the (k+1)th source's progress call: the first k+1 sources
	 * are there whole (again or new), nothing more */
	for (k = 0; k < 2; k++) {
		memset(&x, 0, sizeof(x));
		x.stop_after = k;
		assert_int_equal(import(s, src, &x), 0);
		assert_int_equal(x.stop, 1);
		assert_int_equal(x.nrun, k + 1);
		assert_int_equal(x.events, 2 * (k + 1));
		assert_int_equal(runs_in(s), k + 1);
		verify_ok(s);
	}
	/* without the flag the rest is imported */
	memset(&x, 0, sizeof(x));
	x.stop_after = -1;
	assert_int_equal(import(s, src, &x), 0);
	assert_int_equal(x.nrun, NSRC);
	assert_int_equal(runs_in(s), NSRC);
	verify_ok(s);
	kt_store_close(s);
	tu_rmrf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stop_between_sources),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
