/*
 * t_impx_detect.c - the opening that the detect() of the one-document
 * JSON formats (ATIF, Codex, OpenHands, SWE-agent) share:
 * kt_impx_detect_open's window and first byte past white space.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_detect_open),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
