/*
 * t_harness_json.c - the task-spec JSON reader of ktraj-harness
 * (harness/kt_json.c; built with nvcc there, compiled into this test
 * directly since it needs only libc) and its SHA-256 (harness/util.c).
 */
#include "testutil.h"

#include "../../harness/kt_json.c"
#include "../../harness/util.c"
#include "../../store/store.h"

static kj *parse(const char *s, char *err)
{
	return kj_parse(s, strlen(s), err, 256);
}

static void t_values(void **state)
{
	char err[256];
	kj *v = parse(" {\"task\": \"gemm\", \"n\": -2.5e2, \"ok\": true, \"no\": false,\n"
		      "\"z\": null, \"arr\": [1, [2], {\"k\": \"\\u00e9\\n\\\"\"}], \"e\": {}}", err);
	const kj *arr;

	(void)state;
	assert_non_null(v);
	assert_string_equal(kj_str(v, "task", "x"), "gemm");
	assert_true(kj_num(v, "n", 0) == -250.0);
	assert_int_equal(kj_bool(v, "ok", 0), 1);
	assert_int_equal(kj_bool(v, "no", 1), 0);
	assert_int_equal(kj_get(v, "z")->type, KJ_NULL);
	/* absent or mistyped members give the default */
	assert_true(kj_num(v, "task", 7) == 7);
	assert_string_equal(kj_str(v, "missing", "d"), "d");
	arr = kj_get(v, "arr");
	assert_int_equal(arr->n, 3);
	assert_true(kj_at(arr, 0)->num == 1);
	assert_int_equal(kj_at(kj_at(arr, 1), 0)->num, 2);
	assert_string_equal(kj_str(kj_at(arr, 2), "k", ""), "\xc3\xa9\n\"");
	assert_null(kj_at(arr, 3));
	assert_int_equal(kj_get(v, "e")->n, 0);
	kj_free(v);
}

static void t_errors_name_the_line(void **state)
{
	static const struct { const char *in, *msg; } bad[] = {
		{ "{\"a\": 1,\n\n}", "line 3" },
		{ "{\"a\" 1}", "expected ':'" },
		{ "[1, 2", "expected ',' or ']'" },
		{ "{\"a\": tru}", "unexpected character" },
		{ "\"abc", "unterminated string" },
		{ "{} x", "trailing characters" },
		{ "\"\\q\"", "bad escape" },
		{ "\"\\u12g4\"", "bad \\u escape" },
		{ "", "unexpected end of input" },
		{ "-", "bad number" },
	};
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		kj *v = parse(bad[i].in, err);

		assert_null(v);
		if (!strstr(err, bad[i].msg))
			fail_msg("'%s': got '%s', want '%s'", bad[i].in, err, bad[i].msg);
	}
}

static void t_depth_limit(void **state)
{
	char buf[300], err[256];
	kj *v;
	int i;

	(void)state;
	for (i = 0; i < 100; i++)
		buf[i] = '[';
	for (i = 0; i < 100; i++)
		buf[100 + i] = ']';
	buf[200] = 0;
	v = parse(buf, err);
	assert_null(v);
	assert_non_null(strstr(err, "nested too deeply"));
	buf[60] = 0; /* 60 deep: allowed, but unterminated */
	v = parse(buf, err);
	assert_null(v);
	assert_null(strstr(err, "nested too deeply"));
}

static void t_sha256(void **state)
{
	unsigned char d[32];
	char hex[65];
	char big[1000];

	(void)state;
	/* FIPS 180-4 example vectors */
	kth_sha256("abc", 3, d);
	kth_hex(d, 32, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	kth_sha256("", 0, d);
	kth_hex(d, 32, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	kth_sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, d);
	kth_hex(d, 32, hex);
	assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	/* agrees with the store's implementation on a longer input */
	memset(big, 'a', sizeof(big));
	kth_sha256(big, sizeof(big), d);
	{
		unsigned char s[32];

		kt_sha256(big, sizeof(big), s);
		assert_memory_equal(d, s, 32);
	}
}

static void t_json_writer(void **state)
{
	kth_buf b;
	char err[256];
	kj *v;

	(void)state;
	kb_init(&b);
	kb_put(&b, "{", 1);
	kb_key(&b, "s");
	kb_jstr(&b, "a\"b\\c\n\x01");
	kb_key(&b, "nan");
	kb_jnum(&b, 0.0 / 0.0);
	kb_key(&b, "x");
	kb_jnum(&b, 1.5);
	kb_put(&b, "}", 1);
	v = kj_parse(b.s, b.n, err, sizeof(err));
	assert_non_null(v);
	assert_string_equal(kj_str(v, "s", ""), "a\"b\\c\n\x01");
	assert_int_equal(kj_get(v, "nan")->type, KJ_NULL);
	assert_true(kj_num(v, "x", 0) == 1.5);
	kj_free(v);
	kb_free(&b);
}

/* The samples per block of an arm come from the median warmup call: a
 * slow first call (a library's one-time set-up) must not leave an arm
 * that runs in 0.2 ms the minimum number of samples, as the mean over the
 * warmup did for the cuDNN baseline. */
static void t_samples_per_block(void **state)
{
	const double slow_first[6] = { 40.0, 0.2, 0.2, 0.21, 0.19, 0.2 };
	const double tiny[3] = { 1e-6, 1e-6, 1e-6 };
	const double even[4] = { 1.0, 3.0, 2.0, 100.0 };
	double est;

	(void)state;
	/* 120 ms over 6 blocks at 0.2 ms a call: 100 per block */
	assert_int_equal(kth_samples_per_block(slow_first, 6, 120, 6, 3, 200, &est), 100);
	assert_true(est == 0.2);
	/* the mean (6.83 ms) would have given 2, i.e. the minimum of 3 */
	assert_int_equal(kth_samples_per_block(slow_first, 6, 120, 6, 3, 1000, NULL), 100);
	/* clamped to the maximum, and a median under 1 us counts as 1 us */
	assert_int_equal(kth_samples_per_block(tiny, 3, 120, 6, 3, 200, &est), 200);
	assert_int_equal(kth_samples_per_block(slow_first, 6, 1, 6, 3, 200, NULL), 3);
	/* even count: the mean of the two middle values (2.5 ms) */
	assert_int_equal(kth_samples_per_block(even, 4, 100, 4, 1, 200, &est), 10);
	assert_true(est == 2.5);
	/* no warmup call: the minimum, no estimate */
	assert_int_equal(kth_samples_per_block(even, 0, 100, 4, 3, 200, &est), 3);
	assert_true(isnan(est));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_values),
		cmocka_unit_test(t_errors_name_the_line),
		cmocka_unit_test(t_depth_limit),
		cmocka_unit_test(t_sha256),
		cmocka_unit_test(t_json_writer),
		cmocka_unit_test(t_samples_per_block),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
