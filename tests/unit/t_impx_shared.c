/*
 * t_impx_shared.c - importer helpers (impx.h) that took over what several
 * importers wrote each for themselves: the opening that the detect() of
 * the one-document JSON formats (ATIF, Codex, OpenHands, SWE-agent) share
 * (kt_impx_detect_open's window and first byte past white space), and the
 * unknown members that ATIF steps and OpenHands events keep under
 * "extra" (kt_impx_extra).
 */
#include "testutil.h"
#include "../../import/impx.h"

static kt_file file_of(const char *text)
{
	kt_file f;

	memset(&f, 0, sizeof(f));
	f.path = f.rel = "t.json";
	f.data = (const unsigned char *)text;
	f.len = strlen(text);
	return f;
}

/* The opening the one-document JSON formats' detect() share. */
static void t_detect_open(void **st)
{
	kt_file f;
	size_t n = 99;

	(void)st;
	f = file_of("\n\r\t  {\"steps\": []}");
	assert_int_equal(kt_impx_detect_open(&f, 16384, &n), '{');
	assert_int_equal(n, f.len);
	/* the window bounds both the search and *n */
	f = file_of("      [1]");
	assert_int_equal(kt_impx_detect_open(&f, 4, &n), 0);
	assert_int_equal(n, 4);
	assert_int_equal(kt_impx_detect_open(&f, 7, &n), '[');
	assert_int_equal(n, 7);
	f = file_of("");
	assert_int_equal(kt_impx_detect_open(&f, 16384, &n), 0);
	assert_int_equal(n, 0);
	f = file_of(" \n \n");
	assert_int_equal(kt_impx_detect_open(&f, 16384, &n), 0);
	f = file_of("x{}");
	assert_int_equal(kt_impx_detect_open(&f, 16384, &n), 'x');
}

/* Unknown members, in order, copied; none: NULL. */
static void t_extra(void **st)
{
	static const char *const known[] = { "id", "source", NULL };
	cJSON *o = cJSON_Parse("{\"id\":1,\"zeta\":[1,2],\"source\":\"a\","
			       "\"alpha\":{\"b\":true}}");
	cJSON *ex, *none;
	char *txt;

	(void)st;
	assert_non_null(o);
	ex = kt_impx_extra(o, known);
	assert_non_null(ex);
	txt = cJSON_PrintUnformatted(ex);
	assert_string_equal(txt, "{\"zeta\":[1,2],\"alpha\":{\"b\":true}}");
	free(txt);
	/* a copy: the source stays whole */
	assert_int_equal(cJSON_GetArraySize(o), 4);
	cJSON_Delete(ex);
	/* nothing known: every member */
	ex = kt_impx_extra(o, NULL);
	assert_int_equal(cJSON_GetArraySize(ex), 4);
	cJSON_Delete(ex);
	/* all known, NULL or no object: no extra */
	none = cJSON_Parse("{\"id\":2,\"source\":\"b\"}");
	assert_null(kt_impx_extra(none, known));
	assert_null(kt_impx_extra(NULL, known));
	cJSON_Delete(none);
	cJSON_Delete(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_detect_open),
		cmocka_unit_test(t_extra),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
