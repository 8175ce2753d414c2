/* t_jsonstrict.c - kt_json_check against RFC 8259 (import/jsonstrict.h):
 * each rule refused where cJSON accepts, valid edge cases accepted (and
 * parsed by cJSON to the same end), the byte order mark flag, offsets and
 * reasons, long strings through the 16-byte skip, the nesting limit. */
#include "testutil.h"
#include "../../import/jsonstrict.h"

static int check(const char *s, unsigned flags, size_t *off, const char **why)
{
	return kt_json_check(s, strlen(s), flags, off, why);
}

/* valid per RFC 8259, and cJSON takes it whole */
static void ok(const char *s)
{
	const char *why = NULL;
	size_t off = 0;
	cJSON *o;

	if (check(s, 0, &off, &why))
		fail_msg("refused valid %s: %s at %zu", s, why, off);
	o = cJSON_ParseWithLength(s, strlen(s));
	if (!o)
		fail_msg("cJSON refuses %s", s);
	cJSON_Delete(o);
}

/* refused at byte off with a reason containing `what` */
static void bad(const char *s, size_t want_off, const char *what)
{
	const char *why = NULL;
	size_t off = 9999;

	if (check(s, 0, &off, &why) != KT_EPARSE)
		fail_msg("accepted invalid %s", s);
	assert_non_null(why);
	if (!strstr(why, what))
		fail_msg("%s: reason \"%s\", want \"%s\"", s, why, what);
	if (off != want_off)
		fail_msg("%s: offset %zu, want %zu (%s)", s, off, want_off, why);
}

/* cJSON accepts it (so only this check can catch it) */
static void cjson_takes(const char *s)
{
	cJSON *o = cJSON_ParseWithLength(s, strlen(s));

	if (!o)
		fail_msg("cJSON refuses %s (test premise)", s);
	cJSON_Delete(o);
}

static void t_valid_edges(void **st)
{
	(void)st;
	ok("0");
	ok("-0");
	ok("-0.0");
	ok("0.5e-3");
	ok("1E+2");
	ok("1e2");
	ok("-12.50E-07");
	ok("123456789012345678901234567890");
	ok("\"\"");
	ok("\"\\t\\n\\r\\b\\f\\/\\\\\\\"\"");
	ok("\"\\u0000 \\u001f \\u00e9 \\uFFFF\"");
	ok("\"\\ud83d\\ude00\"");             /* surrogate pair */
	ok("\"\\uD834\\uDD1E\"");
	ok("\"h\xc3\xa9llo \x7f\"");          /* DEL is not a control here */
	ok(" \t\r\n{ \"a\" : [ 1 , 2.5 , true , false , null , { } , [ ] ] } \n\r\t ");
	ok("{\"a\":{\"b\":{\"c\":[[[]]]}}}");
	ok("[]");
	ok("{}");
	ok("true");
	ok("null");
	ok("[-1,0,1e-0,0E0]");
}

static void t_trailing(void **st)
{
	(void)st;
	cjson_takes("{\"a\":1} x");
	bad("{\"a\":1} x", 8, "data after");
	bad("{}{}", 2, "data after");
	bad("1 2", 2, "data after");
	bad("[1]]", 3, "data after");
	bad("{\"a\":1}\x01", 7, "data after");
}

static void t_controls(void **st)
{
	(void)st;
	cjson_takes("{\"a\":\"x\ty\"}");
	bad("{\"a\":\"x\ty\"}", 7, "raw control character");
	bad("\"\x01\"", 1, "raw control character");
	bad("\"a\nb\"", 2, "raw control character");
	bad("\"a\rb\"", 2, "raw control character");
	bad("[\"\x1f\"]", 2, "raw control character");
	/* cJSON skips any byte <= 0x20 as white space */
	cjson_takes("{\x01\"a\":1}");
	bad("{\x01\"a\":1}", 1, "not a string");
	bad("[1,\x0b" "2]", 3, "control character outside");
	bad("\x0c[]", 0, "control character outside");
	/* a NUL byte inside the length */
	{
		const char s[] = "[\"a\0b\"]";
		size_t off = 0;

		assert_int_equal(kt_json_check(s, sizeof(s) - 1, 0, &off, NULL),
				 KT_EPARSE);
		assert_int_equal(off, 3);
	}
}

static void t_numbers(void **st)
{
	(void)st;
	cjson_takes("[00]");
	cjson_takes("[-01]");
	cjson_takes("[1.]");
	cjson_takes("[1.e5]");
	cjson_takes("[-.5]");
	bad("[00]", 2, "leading zero");
	bad("[-01]", 3, "leading zero");
	bad("007", 1, "leading zero");
	bad("[1.]", 3, "decimal point");
	bad("[1.e5]", 3, "decimal point");
	bad("{\"a\":1.}", 7, "decimal point");
	bad("[-.5]", 2, "without digits");
	bad("[-]", 2, "without digits");
	bad("[1e]", 3, "exponent");
	bad("[1e+]", 4, "exponent");
	bad("[+1]", 1, "unexpected character");
	bad("[.5]", 1, "unexpected character");
	bad("[0x1f]", 2, "unexpected character");
	bad("[1.5.3]", 4, "unexpected character");
	bad("[NaN]", 1, "unexpected character");
	bad("[Infinity]", 1, "unexpected character");
	bad("[-Infinity]", 2, "without digits");
	/* cJSON's 63-byte number buffer is the limit */
	ok("[123456789012345678901234567890123456789012345678901234567890123]");
	bad("[1234567890123456789012345678901234567890123456789012345678901234]",
	    1, "longer than 63");
}

static void t_strings_escapes(void **st)
{
	(void)st;
	bad("\"\\x\"", 1, "invalid escape");
	bad("\"\\'\"", 1, "invalid escape");
	bad("\"\\u12g4\"", 1, "\\u escape");
	bad("\"\\u12\"", 1, "\\u escape");
	bad("\"\\ud83d\"", 1, "surrogate");
	bad("\"\\ud83dx\\ude00\"", 1, "surrogate");
	bad("\"\\ude00\"", 1, "surrogate");
	bad("\"\\ud83d\\u0041\"", 1, "surrogate");
	bad("\"abc", 4, "unterminated");
	bad("\"abc\\", 4, "unterminated");
	bad("['a']", 1, "unexpected character");
}

static void t_structure(void **st)
{
	(void)st;
	bad("", 0, "unexpected end");
	bad("   ", 3, "unexpected end");
	bad("[1,]", 3, "unexpected character");
	bad("[1 2]", 3, "unexpected character");
	bad("{\"a\" 1}", 5, "':' expected");
	bad("{\"a\":1,}", 7, "not a string");
	bad("{a:1}", 1, "not a string");
	bad("{\"a\":}", 5, "unexpected character");
	bad("[1}", 2, "unexpected character");
	bad("{\"a\":1]", 6, "unexpected character");
	bad("[", 1, "unexpected end");
	bad("{\"a\":[1,{\"b\":", 13, "unexpected end");
	bad("tru", 0, "invalid literal");
	bad("True", 0, "unexpected character");
	bad("nul", 0, "invalid literal");
	bad("[fals]", 1, "invalid literal");
}

static void t_bom(void **st)
{
	const char *why = NULL;
	size_t off = 99;

	(void)st;
	cjson_takes("\xef\xbb\xbf{\"a\":1}");
	bad("\xef\xbb\xbf{\"a\":1}", 0, "byte order mark");
	bad("[\xef\xbb\xbf]", 1, "byte order mark");
	/* named as a mark wherever it stands between tokens (a key or the
	 * end was expected there): the same words from every importer */
	bad("{\"a\":1,\xef\xbb\xbf\"b\":2}", 7, "byte order mark");
	bad("{ \xef\xbb\xbf\"a\":1}", 2, "byte order mark");
	bad("{\"a\"\xef\xbb\xbf:1}", 4, "byte order mark");
	bad("[1]\n\xef\xbb\xbf", 4, "byte order mark");
	bad("[1\xef\xbb\xbf]", 2, "byte order mark");
	/* in a string it is a character like any other */
	assert_int_equal(check("[\"\xef\xbb\xbf\"]", 0, NULL, NULL), 0);
	assert_int_equal(check("\xef\xbb\xbf{\"a\":1}", KT_JSON_BOM, &off, &why), 0);
	assert_int_equal(check("\xef\xbb\xbf  [1]\n", KT_JSON_BOM, NULL, NULL), 0);
	/* only one, only first */
	assert_int_equal(check("\xef\xbb\xbf\xef\xbb\xbf[1]", KT_JSON_BOM, &off, &why),
			 KT_EPARSE);
	assert_int_equal(off, 3);
	assert_int_equal(check(" \xef\xbb\xbf[1]", KT_JSON_BOM, &off, &why), KT_EPARSE);
	assert_int_equal(off, 1);
}

/* long strings cross the 16-byte skip at every alignment */
static void t_long_strings(void **st)
{
	char buf[200];

	(void)st;
	for (int len = 0; len < 80; len++) {
		for (int pos = -1; pos < len; pos++) {
			size_t off = 0;
			const char *why = NULL;
			int n = 0;

			buf[n++] = '[';
			buf[n++] = '"';
			for (int i = 0; i < len; i++)
				buf[n++] = (char)('a' + i % 26);
			buf[n++] = '"';
			buf[n++] = ']';
			buf[n] = 0;
			if (pos < 0) {
				assert_int_equal(kt_json_check(buf, (size_t)n, 0,
							       &off, &why), 0);
				continue;
			}
			buf[2 + pos] = '\t';
			assert_int_equal(kt_json_check(buf, (size_t)n, 0, &off,
						       &why), KT_EPARSE);
			assert_int_equal(off, (size_t)(2 + pos));
			buf[2 + pos] = '\\';  /* an invalid escape "\a" etc. or "\"" */
			if (kt_json_check(buf, (size_t)n, 0, &off, &why) == 0)
				assert_true(buf[3 + pos] == '"' ||
					    buf[3 + pos] == 'b' ||
					    buf[3 + pos] == 'f' ||
					    buf[3 + pos] == 'n' ||
					    buf[3 + pos] == 'r' ||
					    buf[3 + pos] == 't');
			/* high bytes are string content, not controls */
			buf[2 + pos] = (char)0xe9;
			assert_int_equal(kt_json_check(buf, (size_t)n, 0, &off,
						       &why), 0);
		}
	}
}

static void t_depth(void **st)
{
	size_t n = 2 * (KT_JSON_MAX_DEPTH + 1);
	char *s = malloc(n + 1);
	size_t off = 0;
	cJSON *o;

	(void)st;
	assert_non_null(s);
	/* exactly the limit: accepted, as cJSON does */
	memset(s, '[', KT_JSON_MAX_DEPTH);
	memset(s + KT_JSON_MAX_DEPTH, ']', KT_JSON_MAX_DEPTH);
	assert_int_equal(kt_json_check(s, 2 * KT_JSON_MAX_DEPTH, 0, NULL, NULL), 0);
	o = cJSON_ParseWithLength(s, 2 * KT_JSON_MAX_DEPTH);
	assert_non_null(o);
	cJSON_Delete(o);
	/* one more: refused by both */
	memset(s, '[', KT_JSON_MAX_DEPTH + 1);
	memset(s + KT_JSON_MAX_DEPTH + 1, ']', KT_JSON_MAX_DEPTH + 1);
	assert_int_equal(kt_json_check(s, n, 0, &off, NULL), KT_EPARSE);
	assert_int_equal(off, KT_JSON_MAX_DEPTH);
	assert_null(cJSON_ParseWithLength(s, n));
	/* objects and arrays interleaved keep their own closers */
	assert_int_equal(check("[{\"a\":[{\"b\":[]}]}]", 0, NULL, NULL), 0);
	assert_int_equal(check("[{\"a\":[{\"b\":[]]}]}", 0, NULL, NULL), KT_EPARSE);
	free(s);
}

static void t_parse_wrapper(void **st)
{
	cJSON *o;

	(void)st;
	o = kt_json_parse("{\"a\":[1,2]}", 11, 0, NULL);
	assert_non_null(o);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(o, "a")), 2);
	cJSON_Delete(o);
	assert_null(kt_json_parse("{\"a\":01}", 8, 0, NULL));
	assert_null(kt_json_parse("{\"a\":1} 2", 9, 0, NULL));
	assert_null(kt_json_parse("{\"a\":", 5, 0, NULL));
	o = kt_json_parse("\xef\xbb\xbf[]", 5, KT_JSON_BOM, NULL);
	assert_non_null(o);
	cJSON_Delete(o);
	assert_null(kt_json_parse("\xef\xbb\xbf[]", 5, 0, NULL));
}

/* \u0000 is valid RFC 8259 and passes without the flag; with
 * KT_JSON_NONUL it is refused at its backslash, in values and keys, while
 * other \u escapes (and a literal "\\u0000") still pass. */
static void t_nul_escape(void **st)
{
	static const char *const nul[] = {
		"{\"text\":\"a\\u0000b\"}",
		"[\"\\u0000\"]",
		"{\"k\\u0000\":1}",
	};
	static const size_t at[] = { 10, 2, 3 };
	const char *why;
	size_t off;
	cJSON *o;

	(void)st;
	for (size_t i = 0; i < sizeof(nul) / sizeof(nul[0]); i++) {
		ok(nul[i]);
		why = NULL;
		off = 0;
		assert_int_equal(check(nul[i], KT_JSON_NONUL, &off, &why),
				 KT_EPARSE);
		assert_int_equal(off, at[i]);
		assert_string_equal(why, KT_JSON_NUL_WHY);
		assert_null(kt_json_parse(nul[i], strlen(nul[i]),
					  KT_JSON_NONUL, NULL));
		o = kt_json_parse(nul[i], strlen(nul[i]), 0, NULL);
		assert_non_null(o);
		cJSON_Delete(o);
	}
	assert_int_equal(check("[\"\\u0001\\u0100\\\\u0000\"]", KT_JSON_NONUL,
			       NULL, NULL), 0);
	assert_int_equal(check("\xef\xbb\xbf[\"a\\u0000\"]",
			       KT_JSON_BOM | KT_JSON_NONUL, &off, NULL),
			 KT_EPARSE);
	assert_int_equal(off, 6);
}

/* kt_json_str_stop finds what a byte loop finds, for every stop byte at
 * every offset and length (the 16-byte steps and the tail). */
static void t_str_stop(void **state)
{
	static const unsigned char stops[] = { '"', '\\', 0x00, 0x1f, 0x0a };
	static const unsigned char plain[] = { 'a', ' ', 0x20, 0x7f, 0x80,
					       0xff, '/', 'n' };
	unsigned char buf[80];

	(void)state;
	for (size_t len = 0; len <= 64; len++)
		for (size_t at = 0; at <= len; at++)
			for (size_t k = 0; k < sizeof(stops); k++) {
				const char *b = (const char *)buf, *want;

				for (size_t i = 0; i < sizeof(buf); i++)
					buf[i] = plain[(i * 7 + len) %
						       sizeof(plain)];
				if (at < len)
					buf[at] = stops[k];
				/* a stop byte just past the end is not seen */
				buf[len] = '"';
				want = b + at;
				assert_ptr_equal(kt_json_str_stop(b, b + len),
						 want);
			}
}

/* kt_utf8_valid against RFC 3629 section 4, each bad sequence also at
 * every offset around the 16- and 8-byte ASCII strides. */
static void t_utf8(void **st)
{
	static const struct { const char *s; int ok; } v[] = {
		{ "plain ascii", 1 }, { "caf\xc3\xa9", 1 },
		{ "\xe2\x82\xac", 1 }, { "\xf0\x9f\x98\x80", 1 },
		{ "\xef\xbf\xbd", 1 }, { "\xf4\x8f\xbf\xbf", 1 },
		{ "\x9d", 0 },                 /* lone continuation byte */
		{ "\xc3", 0 },                 /* truncated */
		{ "\xc0\xaf", 0 },             /* overlong '/' */
		{ "\xe0\x80\xaf", 0 },         /* overlong */
		{ "\xed\xa0\x80", 0 },         /* surrogate U+D800 */
		{ "\xf4\x90\x80\x80", 0 },     /* past U+10FFFF */
		{ "\xf5\x80\x80\x80", 0 }, { "\xff", 0 },
		{ "\xe2\x82", 0 },             /* truncated three bytes */
	};
	char buf[128];
	size_t bad;

	(void)st;
	assert_int_equal(kt_utf8_valid("", 0, NULL), 1);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		size_t l = strlen(v[i].s);

		for (size_t at = 0; at < 40; at++) {
			memset(buf, 'a', at);
			memcpy(buf + at, v[i].s, l);
			memset(buf + at + l, 'z', 20);
			bad = 999;
			/* the truncated ones are only bad at the end of the
			 * text or before an ASCII byte: both are tried */
			assert_int_equal(kt_utf8_valid(buf, at + l + 20, &bad),
					 v[i].ok);
			assert_int_equal(kt_utf8_valid(buf, at + l, &bad),
					 v[i].ok);
			if (!v[i].ok)
				assert_int_equal(bad, at);
		}
	}
}

/* KT_JSON_UTF8: a string is refused exactly where kt_utf8_valid finds the
 * first byte that is not UTF-8, at every position in and across the
 * 16-byte windows and in the scalar tail, next to escapes; without the
 * flag the same texts pass; outside a string the grammar refuses them. */
static void t_utf8_in_strings(void **st)
{
	static const char *seq[] = {
		"caf\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf",
		"\x9d", "\xc3", "\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80",
		"\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xff", "\xe2\x82",
		"\xe2\x82\xac\\n\xc3", "\\\"\xc3\xa9\\t",
	};
	char buf[256];
	const char *why;
	size_t off, bad;

	(void)st;
	for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		size_t l = strlen(seq[i]);

		for (size_t at = 0; at < 40; at++) {
			for (size_t tail = 0; tail < 20; tail += 19) {
				size_t n = 0;
				int valid;

				n += (size_t)sprintf(buf + n, "{\"k\":\"");
				memset(buf + n, 'a', at);
				n += at;
				memcpy(buf + n, seq[i], l);
				n += l;
				memset(buf + n, 'z', tail);
				n += tail;
				n += (size_t)sprintf(buf + n, "\"}");
				bad = 0;
				valid = kt_utf8_valid(buf, n, &bad);
				why = NULL;
				off = 9999;
				assert_int_equal(kt_json_check(buf, n, KT_JSON_UTF8,
							       &off, &why),
						 valid ? 0 : KT_EPARSE);
				if (!valid) {
					assert_string_equal(why, KT_JSON_UTF8_WHY);
					assert_int_equal(off, bad);
				}
				assert_int_equal(kt_json_check(buf, n, 0, NULL,
							       NULL), 0);
			}
		}
	}
	/* outside a string: refused with or without the flag */
	assert_int_equal(kt_json_check("[\xc3\xa9]", 4, 0, NULL, NULL),
			 KT_EPARSE);
	assert_int_equal(kt_json_check("[\xc3\xa9]", 4, KT_JSON_UTF8, NULL,
				       NULL), KT_EPARSE);
}

/* Lone surrogate escapes become \ufffd in a copy of the same length;
 * pairs, escaped backslashes before a "u" and texts without any stay. */
static void t_fix_surrogates(void **st)
{
	static const struct { const char *in, *out; size_t first; } v[] = {
		{ "\"a\\ud83db\"", "\"a\\ufffdb\"", 2 },
		{ "\"\\udc00\"", "\"\\ufffd\"", 1 },
		{ "[\"\\ud83d\",\"\\ud83d\\ude00\",\"\\ude00\"]",
		  "[\"\\ufffd\",\"\\ud83d\\ude00\",\"\\ufffd\"]", 2 },
		{ "\"\\ud83d\\u0041\"", "\"\\ufffd\\u0041\"", 1 },
		{ "\"x\\ud800", "\"x\\ufffd", 2 },     /* at the very end */
	};
	static const char *same[] = {
		"\"\\ud83d\\ude00\"", "\"\\\\ud83d\"", "\"plain\"", "\"\\u00e9\"",
		"\"\\ud83", "",
	};
	size_t first;
	char *o;

	(void)st;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		first = 999;
		o = kt_json_fix_surrogates(v[i].in, strlen(v[i].in), &first);
		assert_non_null(o);
		assert_string_equal(o, v[i].out);
		assert_int_equal(first, v[i].first);
		assert_int_equal(kt_json_check(o, strlen(o), 0, NULL, NULL),
				 strchr(o + strlen(o) - 1, '"') ||
				 o[strlen(o) - 1] == ']' ? 0 : KT_EPARSE);
		free(o);
	}
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++)
		assert_null(kt_json_fix_surrogates(same[i], strlen(same[i]),
						   &first));
}

/* kt_json_truncated: every proper prefix of a valid text that is not
 * valid itself is one cut inside the value (and is not reported as
 * anything else); a text with a problem before its end is not, nor one
 * that is empty or valid. */
static void t_truncated(void **st)
{
	static const char *const texts[] = {
		"{\"a\": [1, -2.5e+10, true, false, null], \"b\": {\"c\": \"x\\n\\u00e9\"}}",
		"[\"\\ud83d\\ude00\", \"\\\"q\\\\\", {}, [], 0, -0.5E-3]",
		"{\"k\":{\"l\":[[[\"deep\"]]]},\"m\":\"\\/\\b\\f\\r\\t\"}",
		"\"a string\"",
		"  [ 1 , 2 ]  ",
	};
	static const char *const not_cut[] = {
		"", "   ", "\r\n", "{\"a\":01", "[1,]", "{\"a\" 1", "\"\\q",
		"[tx", "[trUe", "{1:", "[\"\\udc00", "[\"\\ud83d\\u0041",
		"[\"\\ud83d\\ud8", "[\"\\u12g", "[1]]", "{\"a\":1}x", "[\"a\tb",
		"[1 2", "{\"a\":1}", "12", "[nul l",
	};
	char buf[256];

	(void)st;
	for (size_t t = 0; t < sizeof(texts) / sizeof(*texts); t++) {
		size_t n = strlen(texts[t]);

		assert_int_equal(kt_json_truncated(texts[t], n, 0), 0);
		for (size_t k = 1; k < n; k++) {
			int valid = !kt_json_check(texts[t], k, 0, NULL, NULL);
			int blank = strspn(texts[t], " ") >= k;

			if (kt_json_truncated(texts[t], k, 0) != !(valid || blank))
				fail_msg("prefix %zu of %s: truncated %d", k,
					 texts[t], !(valid || blank));
		}
	}
	for (size_t t = 0; t < sizeof(not_cut) / sizeof(*not_cut); t++)
		if (kt_json_truncated(not_cut[t], strlen(not_cut[t]), 0))
			fail_msg("%s taken for a cut text", not_cut[t]);
	/* a byte order mark opening the text: skipped with KT_JSON_BOM only */
	snprintf(buf, sizeof(buf), "%s{\"a\":", KT_UTF8_BOM);
	assert_int_equal(kt_json_truncated(buf, strlen(buf), KT_JSON_BOM), 1);
	assert_int_equal(kt_json_truncated(buf, strlen(buf), 0), 0);
	assert_int_equal(kt_json_truncated(KT_UTF8_BOM, 3, KT_JSON_BOM), 0);
	/* with KT_JSON_NONUL a \u0000 before the cut is the first problem
	 * (kt_imp_json_cut checks without it: the text is cut all the same) */
	assert_int_equal(kt_json_truncated("[\"\\u0000", 8, KT_JSON_NONUL), 0);
	assert_int_equal(kt_json_truncated("[\"\\u0000", 8, 0), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_str_stop),
		cmocka_unit_test(t_valid_edges),
		cmocka_unit_test(t_trailing),
		cmocka_unit_test(t_controls),
		cmocka_unit_test(t_numbers),
		cmocka_unit_test(t_strings_escapes),
		cmocka_unit_test(t_structure),
		cmocka_unit_test(t_bom),
		cmocka_unit_test(t_nul_escape),
		cmocka_unit_test(t_long_strings),
		cmocka_unit_test(t_depth),
		cmocka_unit_test(t_parse_wrapper),
		cmocka_unit_test(t_utf8),
		cmocka_unit_test(t_utf8_in_strings),
		cmocka_unit_test(t_fix_surrogates),
		cmocka_unit_test(t_truncated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
