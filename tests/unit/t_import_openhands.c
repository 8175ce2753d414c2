/*
 * t_import_openhands.c - OpenHands event streams: exact counts per corpus
 * file; fixtures for null entries and non-events, id gaps and links by
 * cause, usage counted once per model response, edits from new_content
 * and from args, run exit codes, whole-file reads, wrapped event lists.
 */
#include "testutil.h"
#include "imp_testlib.h"

static void corpus_one(const char *rel, int m, int h, int tc, int tr, int ed,
		       int cc)
{
	char p[4096];
	it_ctx c;
	it_counts k;

	if (!it_corpus(p, sizeof(p), rel))
		skip();
	it_open(&c);
	assert_int_equal(it_import(&c, NULL, 0, 1, p), 0);
	assert_int_equal(c.nruns, 1);
	assert_string_equal(c.runs[0].format, "openhands");
	k = it_count(&c, c.runs[0].id);
	IT_EXPECT(k, m, h, tc, tr, ed);
	assert_int_equal(k.compile, cc);
	assert_int_equal(k.bench, 0);
	it_close(&c);
}

static void t_corpus(void **st)
{
	(void)st;
	/* two str_replace_editor creates: edits from extras.new_content */
	corpus_one("openhands/openhands_basic_gui_mode.json", 6, 1, 4, 4, 2, 0);
	/* ids with gaps; mv is no content edit */
	corpus_one("openhands/openhands_wrong_initial_state.json", 5, 1, 4, 3, 0,
		   0);
	/* 2025 export: system action, recall, printf > hello.txt */
	corpus_one("openhands/openhands_2025_10_hello.json", 4, 1, 2, 1, 1, 0);
}

static void t_events(void **st)
{
	char p[4096], *s;
	it_ctx c;
	it_counts k;
	cJSON *pl;
	int kind;
	const char *run;
	kt_event ev;

	(void)st;
	it_fixture(p, sizeof(p), "openhands/events.json");
	it_open(&c);
	assert_int_equal(it_import(&c, NULL, 0, 1, p), 0);
	assert_int_equal(c.nruns, 1);
	run = c.runs[0].id;
	k = it_count(&c, run);
	IT_EXPECT(k, 4, 1, 7, 6, 4);
	assert_int_equal(k.compile, 1);
	/* usage once per model response id (r1 is on two actions) */
	assert_int_equal(k.usage, 2);
	/* the non-object entry is reported at its line */
	assert_int_equal(c.nwarn, 1);
	assert_non_null(strstr(c.warns, "events.json:209:"));
	/* create from new_content, then str_replace from the args */
	s = it_cat(&c, run, "/ws/a.txt", 5);
	assert_non_null(s);
	assert_string_equal(s, "one\n");
	free(s);
	s = it_cat(&c, run, "/ws/a.txt", 0);
	assert_non_null(s);
	assert_string_equal(s, "two\n");
	free(s);
	/* the cat -n listing of a whole file seeds it */
	s = it_cat(&c, run, "/ws/b.txt", 0);
	assert_non_null(s);
	assert_string_equal(s, "alpha\nbeta\n");
	free(s);
	/* an edit known only from translated_ipython_code, and one known only
	 * from the creation diff of its observation */
	s = it_cat(&c, run, "/ws/c.txt", 0);
	assert_non_null(s);
	assert_string_equal(s, "see\nyou\n");
	free(s);
	s = it_cat(&c, run, "/ws/d.txt", 0);
	assert_non_null(s);
	assert_string_equal(s, "first\nsecond\n");
	free(s);
	/* exit code 2: failed, compile event carries it */
	pl = it_payload(&c, run, 11, &kind, NULL, 0);
	assert_int_equal(kind, KT_KIND_TOOL_RESULT);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(pl, "ok")));
	assert_int_equal(cJSON_GetObjectItem(pl, "exit_code")->valueint, 2);
	cJSON_Delete(pl);
	/* cached prompt tokens are not input */
	pl = it_payload(&c, run, 2, &kind, NULL, 0);
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(pl, "usage"),
					     "input")->valueint, 80);
	cJSON_Delete(pl);
	/* naive timestamps are UTC, microseconds kept */
	assert_int_equal(kt_event_get(c.s, run, 1, &ev), 0);
	assert_true(ev.ts_ns == 1737404972262843000LL);
	it_close(&c);
}

static void t_wrapped(void **st)
{
	char p[4096];
	it_ctx c;
	it_counts k;

	(void)st;
	it_fixture(p, sizeof(p), "openhands/wrapped.json");
	it_open(&c);
	assert_int_equal(it_import(&c, NULL, 0, 1, p), 0);
	assert_int_equal(c.nruns, 1);
	k = it_count(&c, c.runs[0].id);
	IT_EXPECT(k, 1, 1, 1, 1, 0);
	assert_int_equal(k.result_ok, 1);
	it_close(&c);
}

/* editor_ranges.json: the LLM editor's line range applied to a file seen
 * whole; a range past the end and a str_replace whose old text is not in
 * the believed content leave the content unknown (edit op "unknown"), not
 * stale. */
static void t_editor_ranges(void **st)
{
	char p[4096], *s;
	it_ctx c;
	it_counts k;
	cJSON *pl;
	int kind;

	(void)st;
	it_fixture(p, sizeof(p), "openhands/editor_ranges.json");
	it_open(&c);
	assert_int_equal(it_import(&c, NULL, 0, 1, p), 0);
	assert_int_equal(c.nruns, 1);
	k = it_count(&c, c.runs[0].id);
	IT_EXPECT(k, 1, 1, 5, 5, 4);
	s = it_cat(&c, c.runs[0].id, "/ws/k.cu", 6);
	assert_non_null(s);
	assert_string_equal(s, "int a;\nint B;\nint c;\n");
	free(s);
	/* then unknown: no content at the end */
	assert_null(it_cat(&c, c.runs[0].id, "/ws/k.cu", 0));
	assert_null(it_cat(&c, c.runs[0].id, "/ws/g.cu", 0));
	pl = it_payload(&c, c.runs[0].id, 15, &kind, NULL, 0);
	assert_int_equal(kind, KT_KIND_EDIT);
	assert_string_equal(cJSON_GetObjectItem(pl, "op")->valuestring,
			    "unknown");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(pl, "after")));
	cJSON_Delete(pl);
	it_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_corpus),
		cmocka_unit_test(t_events),
		cmocka_unit_test(t_wrapped),
		cmocka_unit_test(t_editor_ranges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
