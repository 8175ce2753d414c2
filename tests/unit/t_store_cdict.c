/*
 * t_store_cdict.c - a dictionary digested in ktraj's own memory
 * (kt_cdict_new) compresses every event block to the frame a libzstd
 * ZSTD_createCDict dictionary gives, byte for byte: old stores keep their
 * sizes and a re-import writes the same blocks.  The sources straddle the
 * sizes where libzstd stops using the CDict's parameters (128 KiB, and six
 * times the dictionary), with a raw-content and a trained dictionary.
 */
#include "testutil.h"
#include <zstd.h>
#include <zdict.h>
#include "../../store/store_int.h"

/* text with repeats at every distance, like event bodies of one kind */
static void fill(unsigned char *p, size_t n, unsigned seed)
{
	static const char *words[] = { "kernel", "speedup", "tile", "bench",
				       "__global__", "float4", "blockIdx.x",
				       "0.87 ms", "{\"type\":\"tool_use\"}",
				       "baseline", "candidate", "\n" };
	size_t i = 0;

	while (i < n) {
		const char *w;
		size_t l;

		seed = seed * 1103515245u + 12345u;
		w = words[(seed >> 16) % 12];
		l = strlen(w);
		for (size_t j = 0; j < l && i < n; j++)
			p[i++] = (unsigned char)w[j];
		if (i < n)
			p[i++] = (unsigned char)(' ' + (seed >> 8) % 3);
	}
}

static void same_frames(const void *dict, size_t dlen)
{
	static const size_t sizes[] = { 40, 5000, 100000, 131071, 131072,
					262144, 700000 };
	size_t extra[2] = { dlen * 6 - 1, dlen * 6 };
	ZSTD_CDict *ref = ZSTD_createCDict(dict, dlen, KT_BLOCK_LEVEL);
	void *mine = kt_cdict_new(dict, dlen, KT_BLOCK_LEVEL);
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	size_t maxn = dlen * 6 > 700000 ? dlen * 6 : 700000;
	size_t cap = ZSTD_compressBound(maxn);
	unsigned char *src = malloc(maxn), *a = malloc(cap), *b = malloc(cap);

	assert_non_null(ref);
	assert_non_null(mine);
	assert_non_null(cc);
	assert_true(src && a && b);
	fill(src, maxn, 7);
	for (size_t i = 0; i < 9; i++) {
		size_t n = i < 7 ? sizes[i] : extra[i - 7];
		size_t ra, rb;

		ra = ZSTD_compress_usingCDict(cc, a, cap, src, n, ref);
		rb = kt_cdict_compress(cc, mine, src, n, b, cap);
		assert_false(ZSTD_isError(ra));
		assert_false(ZSTD_isError(rb));
		assert_int_equal(ra, rb);
		assert_memory_equal(a, b, ra);
		/* and it decodes with the dictionary */
		{
			unsigned char *d = malloc(n);
			ZSTD_DCtx *dc = ZSTD_createDCtx();

			assert_true(d && dc);
			assert_int_equal(ZSTD_decompress_usingDict(
				dc, d, n, b, rb, dict, dlen), n);
			assert_memory_equal(d, src, n);
			ZSTD_freeDCtx(dc);
			free(d);
		}
	}
	free(src);
	free(a);
	free(b);
	ZSTD_freeCCtx(cc);
	ZSTD_freeCDict(ref);
	kt_cdict_free(mine);
}

static void test_raw_dictionaries_give_the_same_frames(void **state)
{
	static const size_t lens[] = { 4096, 20000, 40000, 524288 };

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		unsigned char *d = malloc(lens[i]);

		assert_non_null(d);
		fill(d, lens[i], 3 + (unsigned)i);
		same_frames(d, lens[i]);
		free(d);
	}
}

static void test_trained_dictionary_gives_the_same_frames(void **state)
{
	size_t ns = 2000, each = 300, dcap = 16384;
	unsigned char *s = malloc(ns * each), *d = malloc(dcap);
	size_t *sl = malloc(ns * sizeof(*sl)), r;

	(void)state;
	assert_true(s && d && sl);
	for (size_t i = 0; i < ns; i++) {
		fill(s + i * each, each, (unsigned)i);
		sl[i] = each;
	}
	r = ZDICT_trainFromBuffer(d, dcap, s, sl, (unsigned)ns);
	assert_false(ZDICT_isError(r));
	assert_true(ZDICT_getDictID(d, r) != 0);
	same_frames(d, r);
	free(s);
	free(d);
	free(sl);
}

static void test_bad_input_gives_no_cdict(void **state)
{
	(void)state;
	assert_null(kt_cdict_new(NULL, 100, KT_BLOCK_LEVEL));
	assert_null(kt_cdict_new("abc", 0, KT_BLOCK_LEVEL));
	kt_cdict_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_raw_dictionaries_give_the_same_frames),
		cmocka_unit_test(test_trained_dictionary_gives_the_same_frames),
		cmocka_unit_test(test_bad_input_gives_no_cdict),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
