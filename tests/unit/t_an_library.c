/*
 * t_an_library.c - reading a question library back (kt_an_library_parse):
 * both forms `questions mine` writes (JSON lines and the Markdown table of
 * -o FILE.md), escaped '|' in a Markdown cell, defaults for absent fields,
 * and the refusals (which line, why) for what is not a library.
 */
#include "testutil.h"
#include "../../analyze/analyze.h"

static void test_markdown(void **state)
{
	static const char md[] =
		KT_AN_LIBRARY_MD_TITLE "\n\n2 questions, best first.\n\n"
		"| # | question | layer | flags | count | runs | hits | gain | sources |\n"
		"|---|---|---|---|---|---|---|---|---|\n"
		"| 1 | why not fuse a\\|b? | operator boundary | moves layer, "
		"challenges bound | 3 | 2 | 1 | 1.250 | abcdef012345#4 |\n"
		"| 2 | is it memory-bound? | data movement |  | 1 | 1 | 0 | "
		"0.900 | abcdef012345#9 |\r\n";
	kt_an_libentry *e;
	size_t n, bad;
	const char *why;

	(void)state;
	assert_int_equal(kt_an_library_parse(md, sizeof(md) - 1, &e, &n, &bad,
					     &why), KT_OK);
	assert_int_equal(n, 2);
	assert_string_equal(e[0].text, "why not fuse a|b?");
	assert_int_equal(e[0].layer, KT_AN_L_OPBOUND);
	assert_int_equal(e[0].flags, KT_AN_F_RELOCATE | KT_AN_F_BOUND);
	assert_int_equal(e[0].count, 3);
	assert_true(e[0].gain > 1.249 && e[0].gain < 1.251);
	assert_true(e[0].hits == 1);
	assert_string_equal(e[1].text, "is it memory-bound?");
	assert_int_equal(e[1].layer, KT_AN_L_DATAMOVE);
	assert_int_equal(e[1].flags, 0);
	assert_true(e[1].hits == 0);
	kt_an_library_free(e, n);
}

static void test_jsonl(void **state)
{
	/* not NUL-terminated: the parser must stop at len */
	static const char js[] =
		"\n{\"text\":\"why not use shared memory?\",\"layer\":\"memory "
		"access\",\"flags\":[\"moves_layer\",7],\"gain\":2,\"count\":4,"
		"\"hits\":3}\n"
		"   \n{\"text\":\"bare\",\"layer\":\"nonsense\",\"count\":-3}XYZ";
	kt_an_libentry *e;
	size_t n, bad;
	const char *why;

	(void)state;
	assert_int_equal(kt_an_library_parse(js, sizeof(js) - 4, &e, &n, &bad,
					     &why), KT_OK);
	assert_int_equal(n, 2);
	assert_string_equal(e[0].text, "why not use shared memory?");
	assert_int_equal(e[0].layer, KT_AN_L_MEMACCESS);
	assert_int_equal(e[0].flags, KT_AN_F_RELOCATE);
	assert_int_equal(e[0].count, 4);
	assert_true(e[0].gain == 2.0);
	assert_true(e[0].hits == 3);
	assert_string_equal(e[1].text, "bare");
	assert_int_equal(e[1].layer, KT_AN_L_NONE);
	assert_int_equal(e[1].count, 1);
	assert_true(e[1].gain == 1.0);
	assert_true(e[1].hits == -1); /* absent: unknown, not none */
	kt_an_library_free(e, n);
}

/* Hand-written entries: the booleans mine --json writes set or clear a
 * flag over the list and the text; no layer (or an unknown one) is the
 * text's; "unclassified" written out stays. */
static void test_hand_written(void **state)
{
	static const char js[] =
		"{\"text\":\"Is this really the peak we can reach?\","
		"\"layer\":\"data movement\",\"challenges_bound\":false}\n"
		"{\"text\":\"Why are these launched as separate kernels?\","
		"\"challenges_bound\":true,\"moves_layer\":true,\"flags\":[]}\n"
		"{\"text\":\"Are the global loads coalesced?\"}\n"
		"{\"text\":\"Are the global loads coalesced?\","
		"\"layer\":\"unclassified\"}\n"
		"{\"text\":\"Should we fuse the epilogue into this kernel?\","
		"\"layer\":\"fusion\",\"flags\":[\"challenges_bound\"],"
		"\"moves_layer\":true}\n";
	kt_an_libentry *e;
	size_t n, bad;
	const char *why;

	(void)state;
	assert_int_equal(kt_an_library_parse(js, sizeof(js) - 1, &e, &n, &bad,
					     &why), KT_OK);
	assert_int_equal(n, 5);
	/* "peak" names a bound; false says it does not challenge one */
	assert_int_equal(kt_an_text_flags(e[0].text, strlen(e[0].text)) &
			 KT_AN_F_BOUND, KT_AN_F_BOUND);
	assert_int_equal(e[0].flags & KT_AN_F_BOUND, 0);
	assert_int_equal(e[0].layer, KT_AN_L_DATAMOVE);
	assert_int_equal(e[1].flags, KT_AN_F_BOUND | KT_AN_F_RELOCATE);
	assert_int_equal(e[1].layer, KT_AN_L_OPBOUND);
	assert_int_equal(e[2].layer, KT_AN_L_MEMACCESS);
	assert_int_equal(e[2].flags, 0);
	assert_int_equal(e[3].layer, KT_AN_L_NONE);
	assert_int_equal(e[4].layer, KT_AN_L_OPBOUND);
	assert_int_equal(e[4].flags, KT_AN_F_BOUND | KT_AN_F_RELOCATE);
	kt_an_library_free(e, n);
}

static void expect_bad(const char *in, size_t line, const char *why_want)
{
	kt_an_libentry *e = (kt_an_libentry *)1;
	size_t n = 7, bad = 99;
	const char *why = NULL;

	assert_int_equal(kt_an_library_parse(in, strlen(in), &e, &n, &bad, &why),
			 KT_EINVAL);
	assert_null(e);
	assert_int_equal(n, 0);
	assert_int_equal(bad, line);
	assert_string_equal(why, why_want);
}

static void test_refused(void **state)
{
	(void)state;
	expect_bad("", 0, "no entries");
	expect_bad(" \n\t\n", 0, "no entries");
	/* a title and prose but no row is no library either */
	expect_bad(KT_AN_LIBRARY_MD_TITLE "\n\nnothing mined\n", 0, "no entries");
	expect_bad("{\"text\":\"ok\"}\nhello\n", 2, "not a JSON object");
	expect_bad("{\"text\":\"ok\"}\n\n[1,2]\n", 3, "not a JSON object");
	expect_bad("{\"text\":\"\"}\n", 1, "no \"text\" string");
	expect_bad("{\"text\":3}\n", 1, "no \"text\" string");
	/* the title must come first: later it is a line of a JSON library */
	expect_bad("{\"text\":\"ok\"}\n" KT_AN_LIBRARY_MD_TITLE "\n", 2,
		   "not a JSON object");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_markdown),
		cmocka_unit_test(test_jsonl),
		cmocka_unit_test(test_hand_written),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
