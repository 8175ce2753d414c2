/*
 * t_store_mapback.c - giving the store's map back (issue 21, import peak
 * memory): kt_env_give_back remembers where the map lies, and growing the
 * map (which maps the file anew, elsewhere) must make it look again, or
 * the madvise would go to the old address and the new map would stay
 * resident (or, worse, drop whatever was mapped there next).
 */
#include <limits.h>
#include "testutil.h"
#include "../../store/store.h"
#include "../../store/store_int.h"

/* Rss (KiB) of the process's mapping of path that is len bytes long;
 * -1 when there is none. */
static long map_rss(const char *path, size_t len)
{
	char line[4400], name[4300];
	unsigned long lo, hi;
	long rss = -1;
	int in = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		int k;

		name[0] = 0;
		k = sscanf(line, "%lx-%lx %*s %*s %*s %*s %4299s", &lo, &hi,
			   name);
		if (k >= 2) /* a mapping's first line; no name: anonymous */
			in = hi - lo == len && !strcmp(name, path);
		else if (in && !strncmp(line, "Rss:", 4))
			rss = atol(line + 4);
	}
	fclose(f);
	return rss;
}

static void test_give_back_after_growth(void **state)
{
	char *dir, path[4200], real[PATH_MAX];
	kt_store *s = tu_store_new(&dir, path, sizeof(path), "s.ktraj", 0);
	unsigned char *big = malloc(1 << 20);
	unsigned char h[72][KT_HASH_LEN];
	uint64_t x = 88172645463325252ull;
	size_t first;

	(void)state;
	assert_non_null(big);
	assert_non_null(realpath(path, real));
	assert_int_equal(kt_store_begin(s), 0);
	/* the address is found, and kept */
	kt_env_give_back(s->env, &s->envmap);
	first = s->envmap.len;
	assert_int_equal(first, KT_MAP_INITIAL);
	assert_int_equal(map_rss(real, first), 0);
	/* 72 MiB of incompressible blobs in one transaction: more than the
	 * initial map, so it grows (and is mapped anew) */
	for (int b = 0; b < 72; b++) {
		for (size_t i = 0; i < (1 << 20); i++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			big[i] = (unsigned char)x;
		}
		assert_int_equal(kt_blob_put(s, big, 1 << 20, NULL, h[b]), 0);
	}
	assert_true(s->grows >= 1);
	/* forgotten (0), or found again by a give-back of the replay */
	assert_true(s->envmap.len != first);
	assert_int_equal(kt_store_commit(s), 0);
	/* read the committed blobs back: through the new map */
	assert_int_equal(kt_store_begin(s), 0);
	for (int b = 0; b < 72; b++) {
		void *d;
		size_t n;

		assert_int_equal(kt_blob_get(s, h[b], &d, &n), 0);
		assert_int_equal(n, 1 << 20);
		free(d);
	}
	{
		MDB_envinfo ei;

		assert_int_equal(mdb_env_info(s->env, &ei), 0);
		assert_true(ei.me_mapsize > first);
		assert_true(map_rss(real, ei.me_mapsize) > 0);
		kt_env_give_back(s->env, &s->envmap);
		assert_int_equal(s->envmap.len, ei.me_mapsize);
		assert_int_equal(map_rss(real, ei.me_mapsize), 0);
	}
	kt_store_abort(s);
	free(big);
	tu_store_gone(s, dir);
}

/* A fault of the map can map a whole large folio of the page cache (up to
 * 2 MiB on Linux 6.18, in a file just written in long runs), so a count
 * of faults did not bound what stays resident: at 3.8 GB of input 128
 * faults left 63 MiB.  The map must be given back once the process's
 * file pages grew KT_MAP_RESIDENT, however few faults brought them in.
 * Where a fault maps too little for KT_MAP_FAULTS faults to pass that,
 * the fault count already bounds it and the test skips. */
static void test_give_back_by_resident(void **state)
{
	char *dir, path[4200], real[PATH_MAX];
	kt_store *s = tu_store_new(&dir, path, sizeof(path), "s.ktraj", 0);
	unsigned char *big = malloc(1 << 20), h[KT_HASH_LEN];
	uint64_t x = 88172645463325252ull;
	long most = 0, sum = 0, step = 0, was, now;
	struct stat st;

	(void)state;
	assert_non_null(big);
	assert_non_null(realpath(path, real));
	assert_int_equal(kt_store_begin(s), 0);
	for (int b = 0; b < 100; b++) {
		for (size_t i = 0; i < (1 << 20); i++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			big[i] = (unsigned char)x;
		}
		assert_int_equal(kt_blob_put(s, big, 1 << 20, NULL, h), 0);
	}
	assert_int_equal(kt_store_commit(s), 0);
	assert_int_equal(stat(real, &st), 0);
	kt_env_give_back(s->env, &s->envmap);
	assert_true(s->envmap.len >= (size_t)st.st_size);
	was = map_rss(real, s->envmap.len);
	assert_int_equal(was, 0);
	/* one read a MiB: ~100 faults, fewer than KT_MAP_FAULTS */
	for (off_t off = 0; off < st.st_size; off += 1 << 20) {
		volatile unsigned char *p =
			(volatile unsigned char *)s->envmap.lo + off;

		(void)*p;
		now = map_rss(real, s->envmap.len);
		if (now - was > step)
			step = now - was;
		sum += now > was ? now - was : 0;
		kt_map_faulted(s);
		was = map_rss(real, s->envmap.len);
		if (was > most)
			most = was;
	}
	free(big);
	tu_store_gone(s, dir);
	if (sum < 2 * (KT_MAP_RESIDENT + KT_MAP_LOOK * step))
		skip(); /* the fault count bounds it here */
	assert_true(most <= KT_MAP_RESIDENT + KT_MAP_LOOK * step);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_give_back_after_growth),
		cmocka_unit_test(test_give_back_by_resident),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
