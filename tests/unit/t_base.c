/* t_base.c - the base layer (base/kt_base.h): the buffer's growth, text
 * appends and sticky out-of-memory flag, the string map, UTF-8, ISO-8601
 * in both modes, base64 strict and lenient, hex, SHA-256 and the cJSON
 * getter, each against values worked out by hand or from the RFCs. */
#include "testutil.h"
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "../../base/kt_base.h"

static void t_buf(void **st)
{
	struct kt_buf b = { 0 };
	char *s;

	(void)st;
	assert_int_equal(kt_buf_add(&b, "", 0), 0);
	assert_string_equal(b.s, ""); /* an empty append leaves a C string */
	assert_int_equal(kt_buf_puts(&b, "ab"), 0);
	assert_int_equal(kt_buf_putc(&b, 'c'), 0);
	assert_int_equal(kt_buf_printf(&b, "-%d-%s", 42, "x"), 0);
	assert_int_equal(kt_buf_puts(&b, NULL), 0);
	assert_int_equal(b.len, 8);
	assert_string_equal(b.s, "abc-42-x");
	/* growth past the first capacity keeps the content */
	for (int i = 0; i < 1000; i++)
		assert_int_equal(kt_buf_puts(&b, "0123456789"), 0);
	assert_int_equal(b.len, 8 + 10000);
	assert_true(b.cap > b.len);
	assert_int_equal(memcmp(b.s + 8 + 9990, "0123456789", 11), 0);
	s = kt_buf_take(&b);
	assert_non_null(s);
	assert_int_equal(strlen(s), 8 + 10000);
	assert_null(b.s);
	assert_int_equal(b.len, 0);
	free(s);
	/* nothing appended: take gives an allocated "" */
	s = kt_buf_take(&b);
	assert_string_equal(s, "");
	free(s);
	/* out of memory is sticky: later appends do nothing, take fails */
	assert_int_equal(kt_buf_puts(&b, "x"), 0);
	assert_int_equal(kt_buf_reserve(&b, SIZE_MAX), KT_ENOMEM);
	assert_int_equal(b.err, KT_ENOMEM);
	assert_int_equal(kt_buf_puts(&b, "y"), KT_ENOMEM);
	assert_int_equal(b.len, 1);
	assert_null(kt_buf_take(&b));
	assert_int_equal(b.err, 0);
	kt_buf_free(&b);
}

static void t_strmap(void **st)
{
	kt_strmap m = { 0 };
	char key[32];
	void **slot;

	(void)st;
	assert_null(kt_strmap_get(&m, "a"));
	assert_null(kt_strmap_slot(&m, "a", 0));
	assert_int_equal(kt_strmap_put(&m, NULL, "v"), KT_EINVAL);
	/* enough keys to grow the table several times */
	for (int i = 0; i < 500; i++) {
		snprintf(key, sizeof(key), "key%d", i);
		assert_int_equal(kt_strmap_put(&m, key, (void *)(intptr_t)(i + 1)), 0);
	}
	assert_int_equal(m.n, 500);
	for (int i = 0; i < 500; i++) {
		snprintf(key, sizeof(key), "key%d", i);
		assert_int_equal((intptr_t)kt_strmap_get(&m, key), i + 1);
	}
	/* put again replaces; the key count stays */
	assert_int_equal(kt_strmap_put(&m, "key7", (void *)(intptr_t)99), 0);
	assert_int_equal((intptr_t)kt_strmap_get(&m, "key7"), 99);
	assert_int_equal(m.n, 500);
	/* slot with create: a new key starts NULL, and is counted */
	slot = kt_strmap_slot(&m, "new", 1);
	assert_non_null(slot);
	assert_null(*slot);
	*slot = strdup("owned");
	assert_int_equal(m.n, 501);
	assert_string_equal(kt_strmap_get(&m, "new"), "owned");
	free(kt_strmap_get(&m, "new"));
	assert_int_equal(kt_strmap_put(&m, "new", NULL), 0);
	kt_strmap_free(&m, NULL); /* small integers: nothing to free */
	assert_int_equal(m.n, 0);
	assert_null(m.keys);
}

/* kt_strmap_free calls free_val only for values that are not NULL. */
static void t_strmap_free_vals(void **st)
{
	kt_strmap m = { 0 };

	(void)st;
	assert_int_equal(kt_strmap_put(&m, "a", strdup("1")), 0);
	assert_int_equal(kt_strmap_put(&m, "b", NULL), 0);
	kt_strmap_free(&m, free);
	assert_int_equal(m.cap, 0);
}

/* kt_buf_reset empties a buffer (and clears a sticky error) but keeps its
 * memory; a short text taken from a buffer holds a small allocation. */
static void t_buf_reset(void **st)
{
	struct kt_buf b = { 0 };
	unsigned char *p;
	size_t cap;

	(void)st;
	kt_buf_reset(&b); /* nothing held: still empty, no memory */
	assert_null(b.s);
	assert_int_equal(kt_buf_puts(&b, "word"), 0);
	assert_true(b.cap <= 64);
	for (int i = 0; i < 100; i++)
		kt_buf_puts(&b, "0123456789");
	p = b.p;
	cap = b.cap;
	kt_buf_reset(&b);
	assert_int_equal(b.len, 0);
	assert_string_equal(b.s, "");
	assert_ptr_equal(b.p, p);
	assert_int_equal(b.cap, cap);
	assert_int_equal(kt_buf_reserve(&b, SIZE_MAX), KT_ENOMEM);
	kt_buf_reset(&b);
	assert_int_equal(b.err, 0);
	assert_int_equal(kt_buf_puts(&b, "again"), 0);
	assert_string_equal(b.s, "again");
	kt_buf_free(&b);
}

/* kt_strmap_clear frees keys and values but keeps the table's size, so a
 * map filled again walks its keys in the order a map of that size gives;
 * kt_strmap_slot_key is the map's own, stable copy of a key. */
static void t_strmap_clear(void **st)
{
	kt_strmap m = { 0 }, fresh = { 0 };
	char key[32];
	const char *k0;
	void **slot;
	size_t cap;

	(void)st;
	slot = kt_strmap_slot(&m, "first", 1);
	assert_non_null(slot);
	k0 = kt_strmap_slot_key(&m, slot);
	assert_string_equal(k0, "first");
	*slot = strdup("v");
	for (int i = 0; i < 200; i++) {
		snprintf(key, sizeof(key), "f%d", i);
		assert_int_equal(kt_strmap_put(&m, key, strdup(key)), 0);
	}
	/* the table grew; the key copy did not move */
	assert_string_equal(k0, "first");
	assert_ptr_equal(kt_strmap_slot_key(&m, kt_strmap_slot(&m, "first", 0)),
			 k0);
	cap = m.cap;
	kt_strmap_clear(&m, free);
	assert_int_equal(m.n, 0);
	assert_int_equal(m.cap, cap);
	assert_null(kt_strmap_get(&m, "f3"));
	/* filled again: the same slots as a fresh map grown to that size */
	while (fresh.cap < cap) {
		snprintf(key, sizeof(key), "pad%zu", fresh.n);
		assert_int_equal(kt_strmap_put(&fresh, key, NULL), 0);
	}
	kt_strmap_clear(&fresh, NULL);
	assert_int_equal(fresh.cap, cap);
	for (int i = 0; i < 20; i++) {
		snprintf(key, sizeof(key), "g%d", i);
		assert_int_equal(kt_strmap_put(&m, key, NULL), 0);
		assert_int_equal(kt_strmap_put(&fresh, key, NULL), 0);
	}
	for (size_t i = 0; i < cap; i++)
		if (m.keys[i] || fresh.keys[i])
			assert_string_equal(m.keys[i] ? m.keys[i] : "",
					    fresh.keys[i] ? fresh.keys[i] : "");
	kt_strmap_free(&m, NULL);
	kt_strmap_free(&fresh, NULL);
	assert_null(m.keys);
}

static void t_utf8(void **st)
{
	size_t bad = 99;

	(void)st;
	assert_int_equal(kt_utf8_seq((const unsigned char *)"a", 1), 1);
	assert_int_equal(kt_utf8_seq((const unsigned char *)"\xc3\xa9", 2), 2);
	assert_int_equal(kt_utf8_seq((const unsigned char *)"\xc3\xa9", 1), 0);
	assert_int_equal(kt_utf8_seq((const unsigned char *)"\xe2\x82\xac", 3), 3);
	assert_int_equal(kt_utf8_seq((const unsigned char *)"\xf0\x9f\x98\x80", 4), 4);
	/* RFC 3629: overlong, surrogate, past U+10FFFF, lone continuation */
	assert_int_equal(kt_utf8_seq((const unsigned char *)"\xc0\xaf", 2), 0);
	assert_int_equal(kt_utf8_seq((const unsigned char *)"\xe0\x80\xaf", 3), 0);
	assert_int_equal(kt_utf8_seq((const unsigned char *)"\xed\xa0\x80", 3), 0);
	assert_int_equal(kt_utf8_seq((const unsigned char *)"\xf4\x90\x80\x80", 4), 0);
	assert_int_equal(kt_utf8_seq((const unsigned char *)"\x80", 1), 0);
	assert_int_equal(kt_utf8_seq((const unsigned char *)"", 0), 0);
	assert_true(kt_utf8_valid("plain ascii, long enough to skip by 16 bytes", 44, &bad));
	assert_int_equal(bad, 99);
	assert_false(kt_utf8_valid("0123456789abcdefghij\xff", 21, &bad));
	assert_int_equal(bad, 20);
	assert_true(kt_utf8_valid("a\0b", 3, NULL));
}

/* kt_utf8_fix: the one repair of bytes that are not UTF-8, for importers'
 * text (NULs dropped), run names (controls blanked) and Claude Code lines
 * (the first bad byte named in the warning). */
static void t_utf8_fix(void **st)
{
	const char *in = "a\xff" "b\0c\xe2\x82\xac\xed\xa0\x80";
	size_t n = 99, first = 99;
	char *s;

	(void)st;
	s = kt_utf8_fix(in, 11, KT_UTF8_DROP_NUL, &n, &first);
	assert_non_null(s);
	/* 0xff and the UTF-16 surrogate bytes are replaced, the NUL dropped */
	assert_string_equal(s, "a\xef\xbf\xbd" "bc\xe2\x82\xac"
			    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	assert_int_equal(n, strlen(s));
	assert_int_equal(first, 1);
	free(s);
	/* without flags the NUL stays (counted in the length) */
	s = kt_utf8_fix(in, 11, 0, &n, NULL);
	assert_non_null(s);
	assert_int_equal(n, 1 + 3 + 1 + 1 + 1 + 3 + 9);
	assert_memory_equal(s, "a\xef\xbf\xbd" "b\0c", 7);
	free(s);
	/* run names: controls (NUL, tab, newline, DEL) become spaces */
	s = kt_utf8_fix("x\ty\n\x7f\0\xc3\xa9\xc3", 9, KT_UTF8_CTRL_SPACE, &n,
			&first);
	assert_non_null(s);
	assert_string_equal(s, "x y   \xc3\xa9\xef\xbf\xbd");
	assert_int_equal(n, 11);
	assert_int_equal(first, 8);
	free(s);
	/* valid input: a copy, first_bad at the end */
	s = kt_utf8_fix("ok", 2, KT_UTF8_DROP_NUL, &n, &first);
	assert_non_null(s);
	assert_string_equal(s, "ok");
	assert_int_equal(first, 2);
	free(s);
	s = kt_utf8_fix("", 0, 0, &n, &first);
	assert_non_null(s);
	assert_string_equal(s, "");
	assert_int_equal(n, 0);
	assert_int_equal(first, 0);
	free(s);
	assert_null(kt_utf8_fix("x", SIZE_MAX, 0, NULL, NULL));
}

/* kt_utf8_floor, kt_is_text and kt_fnv1a: the one copy of what importers,
 * exporters and analyzers each used to write themselves. */
static void t_utf8_floor(void **st)
{
	/* "a" U+00E9 U+20AC U+1F600: characters start at 0, 1, 3, 6 */
	const char *s = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
	static const size_t want[] = { 0, 1, 1, 3, 3, 3, 6, 6, 6, 6, 10 };

	(void)st;
	for (size_t i = 0; i <= strlen(s); i++)
		assert_int_equal(kt_utf8_floor(s, i), want[i]);
	/* continuation bytes at the very start floor to 0, not below */
	assert_int_equal(kt_utf8_floor("\x80\x80x", 1), 0);
	/* an invalid lead byte is a boundary (no validation) */
	assert_int_equal(kt_utf8_floor("\xff\x80", 1), 0);
	assert_int_equal(kt_utf8_floor("ab", 1), 1);
}

static void t_is_text(void **st)
{
	(void)st;
	assert_true(kt_is_text("", 0));
	assert_true(kt_is_text("caf\xc3\xa9 \xe2\x82\xac", 9));
	assert_false(kt_is_text("a\0b", 3));        /* NUL: not a JSON string */
	assert_false(kt_is_text("caf\xc3", 4));      /* cut sequence */
	assert_false(kt_is_text("\xed\xa0\x80", 3)); /* surrogate */
	/* only the len bytes count */
	assert_true(kt_is_text("ok\xff", 2));
}

static void t_fnv1a(void **st)
{
	const uint64_t basis = 14695981039346656037ull; /* FNV's own */

	/* test vectors of the FNV reference (isthe.com/chongo/src/fnv/
	 * test_fnv.c, FNV-1a 64), from the reference offset basis */
	(void)st;
	assert_true(kt_fnv1a(basis, "", 0) == 0xcbf29ce484222325ull);
	assert_true(kt_fnv1a(basis, "a", 1) == 0xaf63dc4c8601ec8cull);
	assert_true(kt_fnv1a(basis, "foobar", 6) == 0x85944171f73967e8ull);
	/* the seed the analyzers have always used (see kt_base.h) */
	assert_true(KT_FNV1A_INIT == 1469598103934665603ull);
	assert_true(kt_fnv1a(KT_FNV1A_INIT, "a", 1) ==
		    ((KT_FNV1A_INIT ^ 'a') * 1099511628211ull));
	/* going on from an earlier result is hashing the concatenation */
	assert_true(kt_fnv1a(kt_fnv1a(KT_FNV1A_INIT, "foo", 3), "bar", 3) ==
		    kt_fnv1a(KT_FNV1A_INIT, "foobar", 6));
	assert_true(kt_fnv1a(1, "a", 1) != kt_fnv1a(KT_FNV1A_INIT, "a", 1));
}

static void t_utf8_put(void **st)
{
	struct kt_buf b = { 0 };

	(void)st;
	assert_int_equal(kt_utf8_put(&b, 'A'), 0);
	assert_int_equal(kt_utf8_put(&b, 0xe9), 0);
	assert_int_equal(kt_utf8_put(&b, 0x20ac), 0);
	assert_int_equal(kt_utf8_put(&b, 0x1f600), 0);
	assert_int_equal(kt_utf8_put(&b, 0xd800), 0);    /* surrogate */
	assert_int_equal(kt_utf8_put(&b, 0x110000), 0);  /* too large */
	assert_string_equal(b.s, "A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"
			    "\xef\xbf\xbd\xef\xbf\xbd");
	kt_buf_free(&b);
}

static void t_iso8601(void **st)
{
	const char *end;

	(void)st;
	/* 2025-07-17T12:34:56Z = 1752755696 s (date -d @...) */
	assert_true(kt_iso8601_ns("2025-07-17T12:34:56Z", NULL) ==
		    1752755696LL * 1000000000);
	assert_true(kt_iso8601_ns("2025-07-17T12:34:56.789Z", NULL) ==
		    1752755696LL * 1000000000 + 789000000);
	assert_true(kt_iso8601_ns("2025-07-17 14:34:56,5+02:00", NULL) ==
		    1752755696LL * 1000000000 + 500000000);
	assert_true(kt_iso8601_ns("2025-07-17T07:34:56-0500", NULL) ==
		    1752755696LL * 1000000000);
	/* naive: UTC; more than 9 fraction digits: the rest is dropped */
	assert_true(kt_iso8601_ns("2025-07-17T12:34:56.1234567891", NULL) ==
		    1752755696LL * 1000000000 + 123456789);
	assert_true(kt_iso8601_ns("1970-01-01", NULL) == 0);
	assert_true(kt_iso8601_ns(" 1970-01-02T00:00 ", NULL) ==
		    86400LL * 1000000000);
	assert_true(kt_iso8601_ns("1969-12-31T23:59:59Z", NULL) ==
		    -1000000000LL);
	/* refused: NULL, trailing text, bad fields, out of int64 ns */
	assert_true(kt_iso8601_ns(NULL, NULL) == KT_TS_UNKNOWN);
	assert_true(kt_iso8601_ns("2025-07-17T12:34:56Zjunk", NULL) ==
		    KT_TS_UNKNOWN);
	assert_true(kt_iso8601_ns("2025-13-01", NULL) == KT_TS_UNKNOWN);
	assert_true(kt_iso8601_ns("2025-07-17T24:00", NULL) == KT_TS_UNKNOWN);
	assert_true(kt_iso8601_ns("2025-07-17T12:34:56.", NULL) ==
		    KT_TS_UNKNOWN);
	assert_true(kt_iso8601_ns("2300-01-01", NULL) == KT_TS_UNKNOWN);
	/* prefix mode: what follows is left to the caller, a time is needed */
	assert_true(kt_iso8601_ns("2025-07-17T12:34:56Z trailing", &end) ==
		    1752755696LL * 1000000000);
	assert_string_equal(end, " trailing");
	assert_true(kt_iso8601_ns("2025-07-17", &end) == KT_TS_UNKNOWN);
	assert_true(kt_days_from_civil(2000, 3, 1) == 11017);
}

static void t_base64(void **st)
{
	unsigned char *out;
	size_t n;
	char *e;

	(void)st;
	/* RFC 4648 section 10 test vectors */
	e = kt_base64_encode("foobar", 6);
	assert_string_equal(e, "Zm9vYmFy");
	free(e);
	e = kt_base64_encode("fo", 2);
	assert_string_equal(e, "Zm8=");
	free(e);
	e = kt_base64_encode("f", 1);
	assert_string_equal(e, "Zg==");
	free(e);
	assert_int_equal(kt_base64_decode("Zm9vYg==", 8, &out, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal((char *)out, "foob");
	free(out);
	assert_int_equal(kt_base64_decode("Zm9vYg", 6, &out, &n), 0);
	assert_int_equal(n, 4);
	free(out);
	/* strict: no URL-safe alphabet, no line breaks, no dangling char */
	assert_int_equal(kt_base64_decode("-_8=", 4, &out, &n), KT_EPARSE);
	assert_int_equal(kt_base64_decode("Zm9v\nYg==", 9, &out, &n), KT_EPARSE);
	assert_int_equal(kt_base64_decode("Zm9vY", 5, &out, &n), KT_EPARSE);
	assert_int_equal(kt_base64_decode("Zm=9", 4, &out, &n), KT_EPARSE);
	/* lenient: both alphabets, line breaks and padding skipped */
	assert_int_equal(kt_base64_decode_ex("-_8=\n", 5, KT_B64_LENIENT, &out,
					     &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(out[0], 0xfb);
	assert_int_equal(out[1], 0xff);
	free(out);
	assert_int_equal(kt_base64_decode_ex("Zm9v\r\nYg==", 10,
					     KT_B64_LENIENT, &out, &n), 0);
	assert_string_equal((char *)out, "foob");
	free(out);
	assert_int_equal(kt_base64_decode_ex("Zm9v!", 5, KT_B64_LENIENT, &out,
					     &n), KT_EPARSE);
}

static void t_hex_sha(void **st)
{
	unsigned char b[3];
	char hex[KT_HASH_HEX + 1];

	(void)st;
	assert_int_equal(kt_hexval('0'), 0);
	assert_int_equal(kt_hexval('F'), 15);
	assert_int_equal(kt_hexval('f'), 15);
	assert_int_equal(kt_hexval('g'), -1);
	assert_int_equal(kt_unhex("00aBff", b, 3), 0);
	assert_int_equal(b[1], 0xab);
	assert_int_equal(kt_unhex("00abf", b, 3), KT_EINVAL);
	assert_int_equal(kt_unhex("00abff0", b, 3), KT_EINVAL);
	assert_int_equal(kt_unhex(NULL, b, 3), KT_EINVAL);
	kt_hex(b, 3, hex);
	assert_string_equal(hex, "00abff");
	/* FIPS 180-4 example "abc" */
	kt_sha256_hex("abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223"
				 "b00361a396177a9cb410ff61f20015ad");
	{
		/* the two-block example, and a million 'a' in uneven pieces
		 * through the incremental form (FIPS 180-4, NIST's examples) */
		static const char two[] = "abcdbcdecdefdefgefghfghighijhijkijkl"
					  "jklmklmnlmnomnopnopq";
		unsigned char d[KT_HASH_LEN], piece[997];
		kt_sha_ctx c;
		size_t left = 1000000;

		kt_sha256_hex(two, sizeof(two) - 1, hex);
		assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039"
					 "a33ce45964ff2167f6ecedd419db06c1");
		memset(piece, 'a', sizeof(piece));
		kt_sha_start(&c);
		while (left) {
			size_t n = left < sizeof(piece) ? left : sizeof(piece);

			kt_sha_add(&c, piece, n);
			left -= n;
		}
		kt_sha_finish(&c, d);
		kt_hex(d, KT_HASH_LEN, hex);
		assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67"
					 "f1809a48a497200e046d39ccc7112cd0");
	}
}

/* kt_str_replace: first or every occurrence, bytes past NULs, none found */
static void t_str_replace(void **state)
{
	size_t n = 99;
	char *r;

	(void)state;
	r = kt_str_replace("a-b-c", 5, "-", 1, "+=", 2, 0, &n);
	assert_string_equal(r, "a+=b-c");
	assert_int_equal(n, 6);
	free(r);
	r = kt_str_replace("a-b-c", 5, "-", 1, "", 0, 1, &n);
	assert_string_equal(r, "abc");
	assert_int_equal(n, 3);
	free(r);
	r = kt_str_replace("x\0yx", 4, "x", 1, "zz", 2, 1, &n);
	assert_int_equal(n, 6);
	assert_memory_equal(r, "zz\0yzz", 7);
	free(r);
	n = 99;
	assert_null(kt_str_replace("abc", 3, "d", 1, "e", 1, 1, &n));
	assert_null(kt_str_replace("abc", 3, "", 0, "e", 1, 1, &n));
	assert_int_equal(n, 99);
}

static void t_strings_json(void **st)
{
	cJSON *o = cJSON_Parse("{\"a\":\"x\",\"n\":1,\"A\":\"y\"}");
	cJSON *arr = cJSON_Parse("[\"a\"]");
	char *d;

	(void)st;
	assert_string_equal(kt_json_str(o, "a"), "x");
	assert_string_equal(kt_json_str(o, "A"), "y");
	assert_null(kt_json_str(o, "n"));
	assert_null(kt_json_str(o, "missing"));
	assert_null(kt_json_str(arr, "a"));
	assert_null(kt_json_str(NULL, "a"));
	cJSON_Delete(o);
	cJSON_Delete(arr);
	assert_string_equal(kt_basename("a/b/c.txt"), "c.txt");
	assert_string_equal(kt_basename("c.txt"), "c.txt");
	assert_string_equal(kt_basename("dir/"), "");
	assert_string_equal(kt_basename(NULL), "");
	assert_null(kt_xstrdup(NULL));
	d = kt_xstrdup("z");
	assert_string_equal(d, "z");
	free(d);
	assert_string_equal(kt_strerror(KT_ECHILD), "child process failed");
	assert_string_equal(kt_strerror(-999), "unknown error");
}

/* kt_threads_for: a second thread only past KT_THREADS_MIN bytes, with
 * two CPUs allowed, and never under KTRAJ_THREADS=1. */
static void t_threads_for(void **state)
{
	cpu_set_t set, one;
	int two;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	two = CPU_COUNT(&set) >= 2;
	unsetenv("KTRAJ_THREADS");
	assert_int_equal(kt_threads_for(0), 0);
	assert_int_equal(kt_threads_for(KT_THREADS_MIN), 0);
	assert_int_equal(kt_threads_for(KT_THREADS_MIN + 1), two);
	assert_int_equal(kt_threads_for(UINT64_MAX), two);
	setenv("KTRAJ_THREADS", "1", 1);
	assert_int_equal(kt_threads_for(UINT64_MAX), 0);
	setenv("KTRAJ_THREADS", "2", 1);
	assert_int_equal(kt_threads_for(UINT64_MAX), two);
	unsetenv("KTRAJ_THREADS");
	/* pinned to one CPU (taskset -c N): one thread */
	if (two) {
		CPU_ZERO(&one);
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set)) {
				CPU_SET(c, &one);
				break;
			}
		assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
		assert_int_equal(kt_threads_for(UINT64_MAX), 0);
		assert_int_equal(sched_setaffinity(0, sizeof(set), &set), 0);
		assert_int_equal(kt_threads_for(UINT64_MAX), 1);
	}
}

/* kt_memmem against memmem(3): the first match, at each place a 16-byte
 * step can put it, and a haystack ending at an unreadable page (a read
 * past its end would fault). */
static void t_memmem(void **st)
{
	static const char js[] =
		"{\"type\":\"user\",\"message\":{\"content\":\"a summary\"}}\n"
		"{\"type\":\"summary\",\"summary\":\"Fix the kernel\"}\n";
	const char *pat = "\"summary\"";
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char *map, *end;
	char hay[300], nd[40];
	unsigned seed = 12345;

	(void)st;
	/* the first "summary" in quotes, not the word inside the text */
	assert_ptr_equal(kt_memmem(js, strlen(js), pat, strlen(pat)),
			 strstr(js, pat));
	assert_int_equal((char *)kt_memmem(js, strlen(js), pat, strlen(pat)) -
			 js, 58);
	assert_null(kt_memmem(js, 57 + 9, pat, 9));
	assert_ptr_equal(kt_memmem(js, 58 + 9, pat, 9), js + 58);
	assert_ptr_equal(kt_memmem(js, 5, "", 0), js);
	assert_null(kt_memmem(js, 2, pat, 9));
	/* random text of three bytes, so near-matches are everywhere */
	for (int round = 0; round < 20000; round++) {
		size_t hn = (size_t)(rand_r(&seed) % 300);
		size_t nl = (size_t)(rand_r(&seed) % 12);

		for (size_t i = 0; i < hn; i++)
			hay[i] = "ab\""[rand_r(&seed) % 3];
		for (size_t i = 0; i < nl; i++)
			nd[i] = "ab\""[rand_r(&seed) % 3];
		/* half the time the needle is a piece of the haystack */
		if (hn > nl && (round & 1))
			memcpy(nd, hay + rand_r(&seed) % (hn - nl + 1), nl);
		assert_ptr_equal(kt_memmem(hay, hn, nd, nl),
				 memmem(hay, hn, nd, nl));
	}
	/* a haystack whose last byte is the page's last: the needle at its
	 * very end, and not there at all, at every length up to 64 */
	map = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(map != MAP_FAILED);
	assert_int_equal(mprotect(map + pg, (size_t)pg, PROT_NONE), 0);
	end = map + pg;
	memset(map, 'x', (size_t)pg);
	for (size_t hn = 9; hn <= 64; hn++) {
		memcpy(end - 9, pat, 9);
		assert_ptr_equal(kt_memmem(end - hn, hn, pat, 9), end - 9);
		end[-1] = 'x';
		assert_null(kt_memmem(end - hn, hn, pat, 9));
	}
	munmap(map, (size_t)pg * 2);
}

/* kt_json_get finds what cJSON_GetObjectItemCaseSensitive finds: the
 * first of two members of one name, names sharing a first byte, "", and
 * nothing in an array, a string or NULL. */
static void t_json_get(void **st)
{
	cJSON *o = cJSON_Parse("{\"type\":\"a\",\"typo\":1,\"t\":2,\"\":3,"
			       "\"type\":\"b\",\"Type\":4,\"arr\":[1,2]}");
	static const char *const keys[] = { "type", "typo", "t", "", "Type",
					    "arr", "ty", "types", "x", NULL };
	const cJSON *a;

	(void)st;
	assert_non_null(o);
	for (int i = 0; keys[i]; i++)
		assert_ptr_equal(kt_json_get(o, keys[i]),
				 cJSON_GetObjectItemCaseSensitive(o, keys[i]));
	assert_string_equal(kt_json_get(o, "type")->valuestring, "a");
	assert_null(kt_json_get(o, "ty"));
	a = kt_json_get(o, "arr");
	assert_null(kt_json_get(a, "type"));
	assert_null(kt_json_get(kt_json_get(o, "typo"), "type"));
	assert_null(kt_json_get(NULL, "type"));
	assert_null(kt_json_get(o, NULL));
	cJSON_Delete(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_buf),
		cmocka_unit_test(t_threads_for),
		cmocka_unit_test(t_strmap),
		cmocka_unit_test(t_strmap_free_vals),
		cmocka_unit_test(t_buf_reset),
		cmocka_unit_test(t_strmap_clear),
		cmocka_unit_test(t_utf8),
		cmocka_unit_test(t_utf8_fix),
		cmocka_unit_test(t_utf8_floor),
		cmocka_unit_test(t_is_text),
		cmocka_unit_test(t_fnv1a),
		cmocka_unit_test(t_utf8_put),
		cmocka_unit_test(t_iso8601),
		cmocka_unit_test(t_base64),
		cmocka_unit_test(t_hex_sha),
		cmocka_unit_test(t_strings_json),
		cmocka_unit_test(t_str_replace),
		cmocka_unit_test(t_memmem),
		cmocka_unit_test(t_json_get),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
