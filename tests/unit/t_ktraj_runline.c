/* t_ktraj_runline.c - the run line of ktraj JSONL (FORMAT.md "JSONL"):
 * {"run":{"id":ID,"name":S?,"format":S?,"meta":{...}?}}, as `ktraj export`
 * writes it first. */
#include "testutil.h"
#include "../../import/ktraj_jsonl.h"

static int parse(const char *line, kt_jsonl_rec *r, char *err)
{
	err[0] = 0;
	return kt_jsonl_parse(line, strlen(line), r, err, 200);
}

static void t_run_line(void **st)
{
	kt_jsonl_rec r;
	char err[200];

	(void)st;
	assert_int_equal(parse("{\"run\":{\"id\":\"abc\",\"name\":\"n\",\"format\":\"claude_code\","
			       "\"meta\":{\"identity\":\"claude_code:x\"}}}", &r, err), 0);
	assert_true(r.is_run);
	assert_false(r.is_blob);
	assert_string_equal(r.run, "abc");
	assert_string_equal(r.name, "n");
	assert_string_equal(r.format, "claude_code");
	assert_non_null(r.meta);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(r.meta, "identity")),
			    "claude_code:x");
	kt_jsonl_release(&r);
	/* name alone; null is absent */
	assert_int_equal(parse("{\"run\":{\"id\":\"abc\",\"name\":\"n\",\"meta\":null}}", &r, err), 0);
	assert_true(r.is_run);
	assert_null(r.format);
	assert_null(r.meta);
	kt_jsonl_release(&r);
	/* an event line with "run" stays an event line */
	assert_int_equal(parse("{\"run\":\"abc\",\"kind\":\"note\",\"payload\":{}}", &r, err), 0);
	assert_false(r.is_run);
	assert_int_equal(r.kind, KT_KIND_NOTE);
	kt_jsonl_release(&r);
}

static void t_run_line_refused(void **st)
{
	static const struct { const char *line, *why; } bad[] = {
		{ "{\"run\":\"abc\"}", "missing \"kind\"" },
		{ "{\"run\":3,\"name\":\"n\"}", "missing \"kind\"" },
		{ "{\"run\":{\"name\":\"n\"}}", "\"id\" must be" },
		{ "{\"run\":{\"id\":\"abc\",\"name\":7}}", "\"name\" must be" },
		{ "{\"run\":{\"id\":\"abc\",\"format\":[]}}", "\"format\" must be" },
		{ "{\"run\":{\"id\":\"abc\",\"meta\":\"x\"}}", "\"meta\" must be" },
	};
	kt_jsonl_rec r;
	char err[200];
	size_t i;

	(void)st;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(bad[i].line, &r, err), KT_EPARSE);
		if (!strstr(err, bad[i].why))
			fail_msg("%s: got '%s', want '%s'", bad[i].line, err, bad[i].why);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_run_line),
		cmocka_unit_test(t_run_line_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
