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
		{ "", "not valid JSON" },
		{ "{\"kind\":\"note\"", "not valid JSON" },
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_exact_integers),
		cmocka_unit_test(t_defaults),
		cmocka_unit_test(t_refused),
		cmocka_unit_test(t_blob),
		cmocka_unit_test(t_base64),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
