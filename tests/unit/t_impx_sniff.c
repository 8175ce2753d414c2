/*
 * t_impx_sniff.c - kt_impx_sniff and kt_impx_has inside a
 * kt_impx_sniff_begin/end scope
 * (the filter of quoted spans pick() builds for its detectors) answers
 * exactly as without one: keys at the window's edge, escaped quotes, a key
 * with no ':' after it, "key": "val" pairs, windows larger than the
 * filter's, another buffer, and random JSON-ish text.
 */
#include "testutil.h"
#include "../../import/impx.h"

/* kt_impx_has on buf[0..len), inside the scope or not */
static int has(const char *buf, size_t len, size_t n, const char *needle,
	       int scope)
{
	kt_file f;
	int r;

	memset(&f, 0, sizeof(f));
	f.data = (const unsigned char *)buf;
	f.len = len;
	if (scope)
		kt_impx_sniff_begin(f.data, len);
	r = kt_impx_has(&f, n, needle);
	if (scope)
		kt_impx_sniff_end();
	return r;
}

static int plain(const char *buf, size_t n, const char *key, const char *val)
{
	return kt_impx_sniff((const unsigned char *)buf, n, key, val);
}

static int scoped(const char *buf, size_t len, size_t n, const char *key,
		  const char *val)
{
	int r;

	kt_impx_sniff_begin((const unsigned char *)buf, len);
	r = kt_impx_sniff((const unsigned char *)buf, n, key, val);
	kt_impx_sniff_end();
	return r;
}

static void test_cases(void **state)
{
	static const struct {
		const char *buf, *key, *val;
		int want;
	} c[] = {
		{ "{\"type\":\"session\",\"cwd\":\"/x\"}", "type", "session", 1 },
		{ "{\"type\":\"session\",\"cwd\":\"/x\"}", "type", "sessions", 0 },
		{ "{\"type\":\"session\",\"cwd\":\"/x\"}", "cwd", NULL, 1 },
		{ "{\"type\":\"session\",\"cwd\":\"/x\"}", "sessionId", NULL, 0 },
		/* a value, not a key: no ':' after it */
		{ "{\"a\":\"steps\"}", "steps", NULL, 0 },
		/* the key inside a string, quotes escaped: the bytes hold
		 * "steps" followed by ':' all the same (what memmem sees) */
		{ "{\"t\":\"x \\\"steps\\\": 1\"}", "steps", NULL, 0 },
		{ "{\"t\":\"x \\\"steps\": 1\"}", "steps", NULL, 1 },
		/* white space before the ':' and the value */
		{ "{\"role\" \n:\t \"user\"}", "role", "user", 1 },
		/* the key's span sits after an odd number of quotes */
		{ "\"\"\"id\":1", "id", NULL, 1 },
		{ "{\"\":1,\"v\":2}", "v", NULL, 1 },
	};
	char big[200];

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		size_t n = strlen(c[i].buf);

		assert_int_equal(plain(c[i].buf, n, c[i].key, c[i].val),
				 c[i].want);
		assert_int_equal(scoped(c[i].buf, n, n, c[i].key, c[i].val),
				 c[i].want);
	}
	/* a key whose closing quote is the window's last byte, then one
	 * byte short of it */
	{
		const char *b = "{\"a\":1,\"edge\":2}";
		size_t at = (size_t)(strstr(b, "edge\"") - b) + 5; /* past '"' */

		assert_int_equal(scoped(b, strlen(b), at + 1, "edge", NULL), 1);
		assert_int_equal(scoped(b, strlen(b), at, "edge", NULL), 0);
		assert_int_equal(scoped(b, at, at, "edge", NULL), 0);
		assert_int_equal(scoped(b, at - 1, at - 1, "edge", NULL), 0);
	}
	/* a key longer than any span the filter keeps, and a key with a
	 * quote in it: asked the slow way */
	memset(big, 'k', sizeof(big));
	big[0] = '"';
	big[126] = '"';
	big[127] = ':';
	big[128] = 0;
	assert_int_equal(scoped(big, 128, 128, "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
				"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
				"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk", NULL),
			 plain(big, 128, "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
			       "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
			       "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk", NULL));
	assert_int_equal(scoped("{\"a\"b\":1}", 9, 9, "a\"b", NULL),
			 plain("{\"a\"b\":1}", 9, "a\"b", NULL));
}

/* A key the filter was not built for (another buffer, a window past its
 * own) is scanned: the scope never hides a key that is there. */
static void test_outside_window(void **state)
{
	size_t len = KT_SNIFF_WINDOW + 64, at;
	char *b = malloc(len + 1), other[] = "{\"late\":1}";

	(void)state;
	assert_non_null(b);
	memset(b, ' ', len);
	b[0] = '{';
	at = KT_SNIFF_WINDOW + 4;
	memcpy(b + at, "\"late\":1}", 9);
	b[len] = 0;
	kt_impx_sniff_begin((const unsigned char *)b, len);
	assert_int_equal(kt_impx_sniff((const unsigned char *)b, len, "late",
				       NULL), 1);
	assert_int_equal(kt_impx_sniff((const unsigned char *)b,
				       KT_SNIFF_WINDOW, "late", NULL), 0);
	assert_int_equal(kt_impx_sniff((const unsigned char *)other,
				       strlen(other), "late", NULL), 1);
	kt_impx_sniff_end();
	/* after the scope, the same pointer with other bytes */
	memcpy(b + 1, "\"late\":2,", 9);
	assert_int_equal(kt_impx_sniff((const unsigned char *)b, 64, "late",
				       NULL), 1);
	free(b);
}

/* Random text over a small alphabet rich in quotes, colons and key
 * letters: every (key, val, window) asked both ways. */
static void test_has(void **state)
{
	static const struct {
		const char *buf, *needle;
		int want;
	} c[] = {
		{ "{\"compiled\":true}", "\"compiled\"", 1 },
		{ "{\"compiled\":true}", "\"correctness\"", 0 },
		{ "{\"a\":\"x.py\"}", ".py\"", 1 },      /* not a key form */
		{ "{\"level\":1}", "\"level", 1 },
		{ "{\"levelx\":1}", "\"level\"", 0 },
		{ "{\"t\":\"a\\\"id\\\"\"}", "\"id\\\"", 1 },
		{ "{\"\":1}", "\"\"", 1 },
		{ "{\"a\":1}", "\"\"", 0 },
		{ "{", "{", 1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		size_t n = strlen(c[i].buf);

		assert_int_equal(has(c[i].buf, n, n, c[i].needle, 0),
				 c[i].want);
		assert_int_equal(has(c[i].buf, n, n, c[i].needle, 1),
				 c[i].want);
		/* a window one byte short of the text */
		assert_int_equal(has(c[i].buf, n, n - 1, c[i].needle, 1),
				 has(c[i].buf, n, n - 1, c[i].needle, 0));
	}
}

static void test_random(void **state)
{
	static const char alpha[] = "\"\"\"::ab \\{}";
	static const char *keys[] = { "a", "b", "ab", "ba", "aa", "a b", "" };
	static const char *vals[] = { NULL, "a", "b", "" };
	uint32_t x = 12345;
	char buf[96];

	(void)state;
	for (int t = 0; t < 3000; t++) {
		size_t len = 1 + t % (sizeof(buf) - 1);

		for (size_t i = 0; i < len; i++) {
			x = x * 1103515245u + 12345u;
			buf[i] = alpha[(x >> 16) % (sizeof(alpha) - 1)];
		}
		buf[len] = 0;
		kt_impx_sniff_begin((const unsigned char *)buf, len);
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			for (size_t v = 0; v < sizeof(vals) / sizeof(vals[0]); v++)
				for (size_t n = 0; n <= len; n += 1 + len / 7) {
					int a = kt_impx_sniff(
						(const unsigned char *)buf, n,
						keys[k], vals[v]);

					kt_impx_sniff_end();
					assert_int_equal(a, plain(buf, n, keys[k],
								  vals[v]));
					kt_impx_sniff_begin(
						(const unsigned char *)buf, len);
				}
		kt_impx_sniff_end();
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			char nd[8];

			snprintf(nd, sizeof(nd), "\"%s\"", keys[k]);
			for (size_t n = 0; n <= len; n += 1 + len / 7)
				assert_int_equal(has(buf, len, n, nd, 1),
						 has(buf, len, n, nd, 0));
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_outside_window),
		cmocka_unit_test(test_has),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
