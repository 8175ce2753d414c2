/*
 * t_ktraj_jsonl.c - the ktraj JSONL line parser (import/imp_ktraj.c):
 * integers read exactly from the text, defaults, refused fields, blob
 * lines checked against their hash, base64.
 */
#include "testutil.h"
#include "../../import/ktraj_jsonl.h"

static int parse(const char *line, kt_jsonl_rec *r, char *err)
{
	return kt_jsonl_parse(line, strlen(line), r, err, 200);
}

static void t_exact_integers(void **st)
{
	kt_jsonl_rec r;
	char err[200];

	(void)st;
	/* a key "ts" inside the payload and an escaped quote in a key come
	 * before the top-level ts: the scanner must skip both */
	assert_int_equal(parse("{ \"payload\" : {\"ts\":1,\"a\\\"ts\":[{\"ts\":2}]},"
			       " \"k\\\"ey\":\"}\", \"kind\":\"note\","
			       " \"seq\" : 18446744073709551 ,"
			       " \"ts\": 9223372036854775807, \"parent\":7 }",
			       &r, err), 0);
	assert_int_equal(r.kind, KT_KIND_NOTE);
	assert_true(r.has_seq);
	assert_true(r.seq == 18446744073709551ull);
	assert_true(r.has_ts);
	assert_true(r.ts_ns == INT64_MAX);
	assert_true(r.parent == 7);
	assert_null(r.actor);
	assert_null(r.prov);
	assert_false(r.has_hash);
	kt_jsonl_release(&r);
	/* 1767225601123456789 is not a double: it must survive */
	assert_int_equal(parse("{\"kind\":\"message\",\"payload\":{},\"ts\":1767225601123456789}",
			       &r, err), 0);
	assert_true(r.ts_ns == 1767225601123456789ll);
	kt_jsonl_release(&r);
	assert_int_equal(parse("{\"kind\":\"message\",\"payload\":{},\"ts\":-5,\"parent\":null}",
			       &r, err), 0);
	assert_true(r.ts_ns == -5 && r.parent == 0);
	kt_jsonl_release(&r);
}

static void t_defaults(void **st)
{
	kt_jsonl_rec r;
	char err[200];

	(void)st;
	assert_int_equal(parse("{\"kind\":\"edit\",\"payload\":{\"path\":\"a\"}}", &r, err), 0);
	assert_false(r.has_seq);
	assert_false(r.has_ts);
	assert_true(r.ts_ns == KT_TS_UNKNOWN);
	assert_false(r.is_blob);
	kt_jsonl_release(&r);
	assert_int_equal(parse("{\"kind\":\"edit\",\"payload\":{},\"ts\":null,\"prov\":{\"src\":\"x\"},"
			       "\"actor\":\"human\",\"run\":\"r1\"}", &r, err), 0);
	assert_true(r.has_ts);
	assert_true(r.ts_ns == KT_TS_UNKNOWN);
	assert_string_equal(r.actor, "human");
	assert_string_equal(r.run, "r1");
	assert_non_null(r.prov);
	kt_jsonl_release(&r);
}

static void t_refused(void **st)
{
	static const struct { const char *line, *why; } bad[] = {
		{ "", "invalid JSON (RFC 8259): " },
		{ "{\"kind\":\"note\"", "invalid JSON (RFC 8259): " },
		{ "[1,2]", "not a JSON object" },
		{ "{\"payload\":{}}", "missing \"kind\"" },
		{ "{\"kind\":\"gossip\",\"payload\":{}}", "unknown kind" },
		{ "{\"kind\":\"note\",\"payload\":[]}", "\"payload\" must be" },
		{ "{\"kind\":\"note\",\"payload\":{},\"seq\":0}", "\"seq\" must be" },
		{ "{\"kind\":\"note\",\"payload\":{},\"seq\":-1}", "\"seq\" must be" },
		{ "{\"kind\":\"note\",\"payload\":{},\"seq\":2.5}", "\"seq\" must be" },
		{ "{\"kind\":\"note\",\"payload\":{},\"seq\":\"3\"}", "\"seq\" must be" },
		{ "{\"kind\":\"note\",\"payload\":{},\"ts\":1e18}", "\"ts\" must be" },
		{ "{\"kind\":\"note\",\"payload\":{},\"ts\":99999999999999999999}", "\"ts\" must be" },
		{ "{\"kind\":\"note\",\"payload\":{},\"parent\":-2}", "\"parent\" must be" },
		{ "{\"kind\":\"note\",\"payload\":{},\"actor\":3}", "\"actor\" must be" },
		{ "{\"kind\":\"note\",\"payload\":{},\"prov\":\"f\"}", "\"prov\" must be" },
		{ "{\"kind\":\"note\",\"payload\":{},\"hash\":\"abc\"}", "\"hash\" must be" },
		{ "{\"blob\":\"zz\",\"text\":\"x\"}", "64 hex" },
		{ "{\"blob\":\"2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881\"}", "needs a" },
		/* sha256("x") is 2d71...4881: other content does not match */
		{ "{\"blob\":\"2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881\",\"text\":\"y\"}",
		  "does not hash" },
		{ "{\"blob\":\"2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881\",\"base64\":\"e!==\"}",
		  "bad base64" },
	};
	kt_jsonl_rec r;
	char err[200];
	size_t i;

	(void)st;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		if (parse(bad[i].line, &r, err) != KT_EPARSE)
			fail_msg("accepted: %s", bad[i].line);
		if (!strstr(err, bad[i].why))
			fail_msg("%s: error '%s' lacks '%s'", bad[i].line, err,
				 bad[i].why);
	}
}

/* A line cJSON does not parse is refused in the words every importer
 * uses (import/jsonstrict.h kt_imp_json_bad): what the RFC 8259 check finds
 * first, and where - not "not valid JSON". */
static void t_not_json_words(void **st)
{
	static const struct { const char *line, *err; } bad[] = {
		{ "", "invalid JSON (RFC 8259): unexpected end of the text at byte 0" },
		{ "{\"kind\":\"note\"", "invalid JSON (RFC 8259): unexpected end of the text at byte 14" },
		{ "{\"kind\":}", "invalid JSON (RFC 8259): unexpected character at byte 8" },
		{ "{\"seq\":1,,}", "invalid JSON (RFC 8259): object key is not a string at byte 9" },
		{ "xx", "invalid JSON (RFC 8259): unexpected character at byte 0" },
	};
	kt_jsonl_rec r;
	char err[200], qerr[200];
	size_t i;

	(void)st;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *l = bad[i].line;

		assert_int_equal(kt_jsonl_parse(l, strlen(l), &r, err,
						sizeof(err)), KT_EPARSE);
		assert_string_equal(err, bad[i].err);
		assert_int_equal(kt_jsonl_parse_ref(l, strlen(l), &r, qerr,
						    sizeof(qerr)), KT_EPARSE);
		assert_string_equal(qerr, bad[i].err);
	}
}

static void t_blob(void **st)
{
	kt_jsonl_rec r;
	char err[200];

	(void)st;
	assert_int_equal(parse("{\"blob\":\"2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881\","
			       "\"path\":\"/a/b\",\"text\":\"x\"}", &r, err), 0);
	assert_true(r.is_blob);
	assert_string_equal(r.path, "/a/b");
	assert_int_equal(r.len, 1);
	assert_memory_equal(r.data, "x", 1);
	kt_jsonl_release(&r);
	/* "eA==" is base64 of "x" */
	assert_int_equal(parse("{\"blob\":\"2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881\","
			       "\"base64\":\"eA==\"}", &r, err), 0);
	assert_int_equal(r.len, 1);
	assert_null(r.path);
	kt_jsonl_release(&r);
}

/* A blob line of `text` (JSON-escaped by the caller) whose content is
 * `raw`, with `extra` members before the text. */
static char *blob_line(const char *raw, const char *extra, const char *text)
{
	unsigned char h[KT_HASH_LEN];
	char hex[KT_HASH_HEX + 1], *l;

	kt_sha256(raw, strlen(raw), h);
	kt_hex(h, KT_HASH_LEN, hex);
	l = malloc(strlen(extra) + strlen(text) + 200);
	assert_non_null(l);
	sprintf(l, "{\"blob\":\"%s\"%s,\"text\":\"%s\"}", hex, extra, text);
	return l;
}

/* kt_jsonl_parse decodes plain blob lines itself and sends the rest to
 * cJSON: both routes must give what kt_jsonl_parse_ref (cJSON) gives. */
static void t_blob_fast_agrees(void **st)
{
	static const struct {
		const char *raw, *extra, *text;
		int fast; /* expected route: 1 own decoder, 0 cJSON */
	} c[] = {
		{ "k<<<1>>>(x);\n\t\"q\" \\ /", ",\"path\":\"/w/k.cu\"",
		  "k<<<1>>>(x);\\n\\t\\\"q\\\" \\\\ \\/", 1 },
		{ "a\xc3\xa9\xe4\xb8\xad", ",\"path\":null", "a\\u00e9\\u4e2d", 1 },
		{ "\x7f\xff raw", ",\"z\":\"1\",\"w\":\"no\"", "\x7f\xff raw", 1 },
		{ "x", ",\"n\":1", "x", 0 },             /* a number */
		{ "\xf0\x9f\x98\x80", "", "\\ud83d\\ude00", 0 }, /* pair */
		{ "x", ",\"path\":7", "x", 0 },           /* refused path */
	};
	kt_jsonl_rec r, q;
	char err[200], qerr[200];

	(void)st;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char *l = blob_line(c[i].raw, c[i].extra, c[i].text);
		int rc = kt_jsonl_parse(l, strlen(l), &r, err, sizeof(err));
		int qrc = kt_jsonl_parse_ref(l, strlen(l), &q, qerr,
					     sizeof(qerr));

		assert_int_equal(rc, qrc);
		if (rc) {
			assert_string_equal(err, qerr);
		} else {
			assert_true(r.is_blob && q.is_blob);
			assert_int_equal(r.len, strlen(c[i].raw));
			assert_int_equal(q.len, r.len);
			assert_memory_equal(r.data, c[i].raw, r.len);
			assert_memory_equal(q.data, c[i].raw, r.len);
			if (q.path)
				assert_string_equal(r.path, q.path);
			else
				assert_null(r.path);
			/* the route: no cJSON tree means the own decoder */
			assert_int_equal(r.root == NULL, c[i].fast);
			kt_jsonl_release(&q);
			kt_jsonl_release(&r);
		}
		free(l);
	}
	/* trailing bytes and odd white space go to cJSON, which may accept */
	{
		char *l = blob_line("x", "", "x"), *l2 = malloc(strlen(l) + 8);

		sprintf(l2, "%s \x01", l);
		assert_int_equal(kt_jsonl_parse(l2, strlen(l2), &r, err,
						sizeof(err)),
				 kt_jsonl_parse_ref(l2, strlen(l2), &q, qerr,
						    sizeof(qerr)));
		kt_jsonl_release(&r);
		kt_jsonl_release(&q);
		free(l2);
		free(l);
	}
}

/* A line with a top-level key twice is refused by both routes: cJSON would
 * keep the first value and Python's json the last. */
static void t_duplicate_keys(void **st)
{
	static const struct { const char *line, *key; } c[] = {
		{ "{\"kind\":\"message\",\"kind\":\"bench\",\"payload\":{}}", "kind" },
		{ "{\"kind\":\"note\",\"ts\":3,\"payload\":{},\"ts\":-5}", "ts" },
		{ "{\"kind\":\"note\",\"payload\":{\"a\":1},\"payload\":{}}", "payload" },
		{ "{\"run\":{\"id\":\"a\"},\"run\":{\"id\":\"b\"}}", "run" },
		/* a nested duplicate is the payload's business */
		{ "{\"kind\":\"note\",\"payload\":{\"a\":1,\"a\":2}}", NULL },
	};
	/* blob lines of content "x", plain enough for the own decoder
	 * except for the second key */
	static const char *blob_extra[] = {
		",\"text\":\"y\"", ",\"path\":\"a\",\"path\":\"b\"",
		",\"blob\":\"no\"", ",\"q\":null,\"q\":null",
	};
	static const char *blob_key[] = { "text", "path", "blob", "q" };
	kt_jsonl_rec r, q;
	char err[200], qerr[200], want[64];

	(void)st;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int rc = parse(c[i].line, &r, err);
		int qrc = kt_jsonl_parse_ref(c[i].line, strlen(c[i].line), &q,
					     qerr, sizeof(qerr));

		assert_int_equal(rc, qrc);
		if (!c[i].key) {
			assert_int_equal(rc, 0);
			kt_jsonl_release(&r);
			kt_jsonl_release(&q);
			continue;
		}
		snprintf(want, sizeof(want), "duplicate key \"%s\"", c[i].key);
		assert_int_equal(rc, KT_EPARSE);
		assert_string_equal(err, want);
		assert_string_equal(qerr, want);
	}
	for (size_t i = 0; i < sizeof(blob_extra) / sizeof(blob_extra[0]); i++) {
		char *l = blob_line("x", blob_extra[i], "x");
		int rc = kt_jsonl_parse(l, strlen(l), &r, err, sizeof(err));
		int qrc = kt_jsonl_parse_ref(l, strlen(l), &q, qerr,
					     sizeof(qerr));

		snprintf(want, sizeof(want), "duplicate key \"%s\"",
			 blob_key[i]);
		assert_int_equal(rc, KT_EPARSE);
		assert_int_equal(qrc, KT_EPARSE);
		assert_string_equal(err, want);
		assert_string_equal(qerr, want);
		free(l);
	}
}

/* cJSON ends a string at \u0000, so such a text would fail its hash
 * with a message that hides why: both routes say what to do instead. */
static void t_blob_text_nul(void **st)
{
	static const char *why =
		"blob: \"text\" contains \\u0000; use \"base64\" for binary content";
	kt_jsonl_rec r, q;
	char err[200], qerr[200];
	/* sha256 of "a\0b", so only the NUL keeps it from being stored */
	char *l = blob_line("a", "", "a\\u0000b");
	unsigned char h[KT_HASH_LEN];
	char hex[KT_HASH_HEX + 1], line[300];

	(void)st;
	kt_sha256("a\0b", 3, h);
	kt_hex(h, KT_HASH_LEN, hex);
	snprintf(line, sizeof(line),
		 "{\"blob\":\"%s\",\"text\":\"a\\u0000b\"}", hex);
	assert_int_equal(kt_jsonl_parse(line, strlen(line), &r, err,
					sizeof(err)), KT_EPARSE);
	assert_int_equal(kt_jsonl_parse_ref(line, strlen(line), &q, qerr,
					    sizeof(qerr)), KT_EPARSE);
	assert_string_equal(err, why);
	assert_string_equal(qerr, why);
	/* the hash of the cut text "a" does not help either */
	assert_int_equal(kt_jsonl_parse(l, strlen(l), &r, err, sizeof(err)),
			 KT_EPARSE);
	assert_string_equal(err, why);
	free(l);
	/* an escaped backslash before u0000 is text, not a NUL: "\\u0000" */
	l = blob_line("\\u0000", "", "\\\\u0000");
	assert_int_equal(kt_jsonl_parse(l, strlen(l), &r, err, sizeof(err)), 0);
	assert_int_equal(r.len, 6);
	kt_jsonl_release(&r);
	assert_int_equal(kt_jsonl_parse_ref(l, strlen(l), &q, qerr,
					    sizeof(qerr)), 0);
	kt_jsonl_release(&q);
	free(l);
	/* base64 of "a\0b" ("YQBi") stores it */
	snprintf(line, sizeof(line), "{\"blob\":\"%s\",\"base64\":\"YQBi\"}",
		 hex);
	assert_int_equal(kt_jsonl_parse(line, strlen(line), &r, err,
					sizeof(err)), 0);
	assert_int_equal(r.len, 3);
	kt_jsonl_release(&r);
}

static void t_base64(void **st)
{
	unsigned char in[300], *out;
	size_t n, len;
	char *e;

	(void)st;
	for (n = 0; n < sizeof(in); n++)
		in[n] = (unsigned char)(n * 37 + 11);
	/* RFC 4648 section 10 test vectors */
	e = kt_base64_encode("foobar", 6);
	assert_string_equal(e, "Zm9vYmFy");
	free(e);
	e = kt_base64_encode("fo", 2);
	assert_string_equal(e, "Zm8=");
	free(e);
	for (n = 0; n <= sizeof(in); n += 7) {
		e = kt_base64_encode(in, n);
		assert_non_null(e);
		assert_int_equal(strlen(e), (n + 2) / 3 * 4);
		assert_int_equal(kt_base64_decode(e, strlen(e), &out, &len), 0);
		assert_int_equal(len, n);
		assert_memory_equal(out, in, n);
		free(out);
		free(e);
	}
	assert_int_equal(kt_base64_decode("Zm9v!", 5, &out, &len), KT_EPARSE);
	assert_int_equal(kt_base64_decode("Z", 1, &out, &len), KT_EPARSE);
}

/* JSON that cJSON takes but RFC 8259 refuses (import/jsonstrict.h): both
 * routes refuse it with the same message, blob lines included (a raw
 * control byte in a key or the text, bytes after the object, 01) */
static void t_rfc8259(void **st)
{
	static const struct {
		const char *raw, *extra, *text, *why;
	} c[] = {
		{ "a\tb", "", "a\tb", "raw control character in a string" },
		{ "ab", "", "a\x01b", "raw control character in a string" },
		{ "x", ",\"pa\bth\":null", "x", "raw control character in a string" },
		{ "x", ",\"path\":\"p\x1f\"", "x", "raw control character in a string" },
	};
	static const struct {
		const char *line, *why;
	} e[] = {
		{ "{\"kind\":\"note\",\"payload\":{}} x", "data after the JSON value" },
		{ "{\"kind\":\"note\",\"payload\":{\"n\":01}}", "leading zero" },
		{ "{\"kind\":\"note\",\"payload\":{\"n\":1.}}", "decimal point" },
		{ "{\"kind\":\"note\",\"seq\":-01,\"payload\":{}}", "leading zero" },
		{ "\xef\xbb\xbf{\"kind\":\"note\",\"payload\":{}}", "byte order mark" },
		{ "{\"kind\":\"note\",\"payload\":{\"t\":\"\t\"}}", "raw control" },
	};
	kt_jsonl_rec r, q;
	char err[200], qerr[200];

	(void)st;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char *l = blob_line(c[i].raw, c[i].extra, c[i].text);

		assert_int_equal(kt_jsonl_parse(l, strlen(l), &r, err,
						sizeof(err)), KT_EPARSE);
		assert_int_equal(kt_jsonl_parse_ref(l, strlen(l), &q, qerr,
						    sizeof(qerr)), KT_EPARSE);
		assert_string_equal(err, qerr);
		if (!strstr(err, "RFC 8259") || !strstr(err, c[i].why))
			fail_msg("%zu: %s", i, err);
		free(l);
	}
	for (size_t i = 0; i < sizeof(e) / sizeof(e[0]); i++) {
		const char *l = e[i].line;

		assert_int_equal(kt_jsonl_parse(l, strlen(l), &r, err,
						sizeof(err)), KT_EPARSE);
		assert_int_equal(kt_jsonl_parse_ref(l, strlen(l), &q, qerr,
						    sizeof(qerr)), KT_EPARSE);
		assert_string_equal(err, qerr);
		if (!strstr(err, "RFC 8259") || !strstr(err, e[i].why))
			fail_msg("%s: %s", l, err);
	}
	/* the valid neighbours of those lines still parse */
	{
		const char *l = "{\"kind\":\"note\",\"payload\":{\"n\":-0,\"m\":0.5e-3,\"t\":\"\\t\"}} \r";

		assert_int_equal(kt_jsonl_parse(l, strlen(l), &r, err,
						sizeof(err)), 0);
		kt_jsonl_release(&r);
	}
}

/* kt_jsonl_not_ktraj lets format detection skip parsing a line: it may say
 * 1 only where kt_jsonl_parse fails and kt_jsonl_ish says 0 (what
 * ktraj_detect did before), and must say 1 for plain lines of other
 * formats, or detection still parses every small file's first line. */
static void t_not_ktraj(void **st)
{
	static const struct {
		const char *line;
		int want;
	} c[] = {
		/* other formats' first lines: surely not ktraj */
		{ "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"hi\"},\"sessionId\":\"s\"}", 1 },
		{ " {\"timestamp\":\"2025\", \"payload\":{\"kind\":\"x\",\"seq\":1,\"run\":{}}}\r", 1 },
		{ "{\"a\":[1,{\"b\":\"},\\\"kind\\\":\"}],\"t\":true}", 1 },
		/* an escape in a key: unsure */
		{ "{\"k\\\"ind\":2}", 0 },
		{ "{}", 1 },
		{ "{\"x\":1} trailing", 1 },
		/* a ktraj key at the top: parse or kt_jsonl_ish decides */
		{ "{\"kind\":\"note\",\"payload\":{}}", 0 },
		{ "{\"type\":\"x\",\"seq\":3}", 0 },
		{ "{\"blob\":\"ab\",\"text\":\"x\"}", 0 },
		{ "{\"run\":{\"name\":\"a\"}}", 0 },
		{ "{\"run\":7}", 0 },
		/* cJSON reads this key as "kind": the line parses */
		{ "{\"\\u006bind\":\"note\",\"payload\":{}}", 0 },
		/* damaged before its end, or not an object: unsure */
		{ "{\"type\":\"user\",\"message\":{\"role\"", 0 },
		{ "{\"type\" \"user\"}", 0 },
		{ "[1,2]", 0 },
		{ "", 0 },
	};
	size_t i;

	(void)st;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		const char *l = c[i].line;
		int got = kt_jsonl_not_ktraj(l, l + strlen(l));

		if (got != c[i].want)
			fail_msg("%s: %d, want %d", l, got, c[i].want);
		if (got) {
			kt_jsonl_rec r;

			assert_int_not_equal(kt_jsonl_parse(l, strlen(l), &r,
							    NULL, 0), 0);
			assert_int_equal(kt_jsonl_ish(l, l + strlen(l)), 0);
		}
	}
	/* the escaped-key line is one that parses, so 0 was needed */
	{
		const char *l = c[11].line;
		kt_jsonl_rec r;

		assert_int_equal(kt_jsonl_parse(l, strlen(l), &r, NULL, 0), 0);
		kt_jsonl_release(&r);
	}
}

/* kt_jsonl_top_member lets the Claude Code pre-scan skip a line by its
 * top-level "type": found only where cJSON would find the same member. */
static void t_top_member(void **st)
{
	static const struct {
		const char *line, *want; /* want: the raw value, NULL unsure */
	} c[] = {
		{ "{\"message\":{\"type\":\"user\"},\"type\":\"assistant\"}", "\"assistant\"" },
		{ " {\"a\":\"\\\"type\\\":1\", \"type\" : 7 , \"b\":2}", "7" },
		{ "{\"type\":\"a\",\"type\":\"user\"}", "\"a\"" },
		{ "{\"type\":{\"x\":[1,\"}\"]}}", "{\"x\":[1,\"}\"]}" },
		/* cJSON may read an escaped key as "type": unsure */
		{ "{\"\\u0074ype\":\"user\",\"type\":\"assistant\"}", NULL },
		{ "{\"message\":{\"role\":\"user\"", NULL },
		{ "{\"other\":1}", NULL },
		{ "[{\"type\":\"x\"}]", NULL },
	};
	size_t i;

	(void)st;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		const char *l = c[i].line, *v = NULL;
		size_t vn = 0;
		int got = kt_jsonl_top_member(l, l + strlen(l), "type", &v, &vn);

		assert_int_equal(got, c[i].want != NULL);
		if (got) {
			assert_int_equal(vn, strlen(c[i].want));
			assert_memory_equal(v, c[i].want, vn);
		}
	}
}

/* kt_jsonl_not_ktraj and kt_jsonl_top_member walk the top-level members
 * with one cursor (ktraj_jsonl.c members_next): the same answers on
 * escaped keys, nested objects, cut lines, duplicate keys and white space,
 * and, cut at every byte, a line is "surely not ktraj" only once its
 * closing brace is in, and gives its "type" only once that value is. */
static void t_member_scan(void **st)
{
	static const struct {
		const char *line;
		int not_ktraj;
		const char *type; /* raw value of "type", NULL unsure */
	} c[] = {
		/* escaped keys: unsure before the match, nothing after it */
		{ "{\"t\\u0079pe\":1,\"type\":2}", 0, NULL },
		{ "{\"a\\\\b\":1,\"type\":\"x\"}", 0, NULL },
		{ "{\"type\":\"x\",\"k\\\"\":1}", 0, "\"x\"" },
		/* nested objects: only the top level counts */
		{ "{\"m\":{\"type\":\"in\",\"kind\":\"k\"},\"type\":\"out\"}", 1, "\"out\"" },
		{ "{\"a\":[{\"run\":{}}],\"b\":{\"c\":{\"d\":\"}\"}}}", 1, NULL },
		{ "{\"type\":[{\"x\":\"]\"},[]],\"y\":{}}", 1, "[{\"x\":\"]\"},[]]" },
		/* cut lines: members before the cut are whole */
		{ "{\"type\":\"x\",\"m\":{\"a\":1", 0, "\"x\"" },
		{ "{\"m\":1,\"type\":\"x", 0, NULL },
		{ "{\"type\"", 0, NULL },
		{ "{\"type\":", 0, NULL },
		{ "{", 0, NULL },
		{ "{\"a\":1,", 0, NULL },
		/* duplicate keys: the first one, as cJSON */
		{ "{\"type\":\"a\",\"type\":\"b\"}", 1, "\"a\"" },
		{ "{\"x\":1,\"x\":2}", 1, NULL },
		{ "{\"seq\":1,\"seq\":2}", 0, NULL },
		/* white space anywhere JSON allows it */
		{ " \t{ \"type\" :\t\"u\" ,\r\n\"x\" : [ 1 , 2 ] }\r", 1, "\"u\"" },
		{ "{ }", 1, NULL },
		{ "{\"type\": 12 }", 1, "12" },
		/* damage after the match: found, but the object is not whole */
		{ "{\"type\":\"a\" \"b\":1}", 0, "\"a\"" },
		{ "{\"x\":1,}", 0, NULL },
		{ "{,\"type\":1}", 0, NULL },
	};
	size_t i, n;

	(void)st;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		const char *l = c[i].line, *v = NULL, *close;
		size_t len = strlen(l), vn = 0;
		int got = kt_jsonl_top_member(l, l + len, "type", &v, &vn);

		if (kt_jsonl_not_ktraj(l, l + len) != c[i].not_ktraj)
			fail_msg("not_ktraj %s: want %d", l, c[i].not_ktraj);
		if (got != (c[i].type != NULL))
			fail_msg("top_member %s: %d", l, got);
		if (got && (vn != strlen(c[i].type) ||
			    memcmp(v, c[i].type, vn)))
			fail_msg("top_member %s: %.*s", l, (int)vn, v);
		close = strrchr(l, '}');
		for (n = 0; n < len; n++) {
			const char *w = NULL;
			size_t wn = 0;
			int nk = kt_jsonl_not_ktraj(l, l + n);
			int tm = kt_jsonl_top_member(l, l + n, "type", &w, &wn);

			/* a complete line cut before its closing brace */
			if (c[i].not_ktraj && nk != (n > (size_t)(close - l)))
				fail_msg("not_ktraj %s cut at %zu: %d", l, n, nk);
			if (!c[i].not_ktraj && nk)
				fail_msg("not_ktraj %s cut at %zu: 1", l, n);
			/* a "type" whose value is whole is found, the same */
			if (got && n >= (size_t)(v + vn - l) &&
			    (!tm || w != v || wn != vn))
				fail_msg("top_member %s cut at %zu", l, n);
			if (got && n <= (size_t)(v - l) && tm)
				fail_msg("top_member %s cut at %zu: 1", l, n);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_exact_integers),
		cmocka_unit_test(t_defaults),
		cmocka_unit_test(t_refused),
		cmocka_unit_test(t_not_json_words),
		cmocka_unit_test(t_blob),
		cmocka_unit_test(t_blob_fast_agrees),
		cmocka_unit_test(t_duplicate_keys),
		cmocka_unit_test(t_blob_text_nul),
		cmocka_unit_test(t_base64),
		cmocka_unit_test(t_rfc8259),
		cmocka_unit_test(t_not_ktraj),
		cmocka_unit_test(t_top_member),
		cmocka_unit_test(t_member_scan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
