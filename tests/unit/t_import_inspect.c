/*
 * t_import_inspect.c - the Inspect AI importer (import/imp_inspect.c) on the
 * corpus logs (exact counts per file; skipped without the corpus) and on our
 * own fixtures in tests/data/import/inspect/ (mini.eval: v3 message pool,
 * attachments, two epochs, a truncated sample member, shell and editor
 * tools; journal_only.eval: a run still in progress; mono_v2.json: no
 * message ids, string arguments, a junk message, a dangling attachment;
 * sandbox_exit.json: exit codes of shell tools from sandbox exec events).
 */
#include "testutil.h"
#include "imp_fixture.h"

#define FIX "tests/data/import/inspect/"

static void test_popularity_eval(void **state)
{
	struct ifx *f = *state;
	char p[4096];

	IF_CORPUS(p, "inspect/inspect_popularity_10samples.eval");
	assert_int_equal(if_import(f, p, NULL, 0), 0);
	assert_int_equal(f->nruns, 10);
	assert_int_equal(f->nwarn, 0);
	for (int i = 0; i < f->nruns; i++) {
		struct ievs e = if_events(f, f->ids[i]);

		/* system prompt, dataset question, one-word answer, score */
		assert_int_equal(if_count(&e, KT_KIND_MESSAGE), 3);
		assert_int_equal(if_count_bool(&e, KT_KIND_MESSAGE, "human", 1),
				 1);
		assert_int_equal(if_count_str(&e, KT_KIND_MESSAGE, "role",
					      "system"), 1);
		assert_int_equal(if_count(&e, KT_KIND_NOTE), 1);
		assert_int_equal(if_count(&e, 0), 4);
		/* the assistant answer carries the model call's time */
		assert_true(if_nth(&e, KT_KIND_MESSAGE, 2)->ts != KT_TS_UNKNOWN);
		if_free(&e);
	}
	/* ten distinct runs, and a second import adds nothing */
	for (int i = 1; i < 10; i++)
		assert_string_not_equal(f->ids[0], f->ids[i]);
	assert_int_equal(if_import(f, p, NULL, 0), 0);
	assert_int_equal(f->nruns, 10);
	for (int i = 0; i < 10; i++)
		assert_int_equal(f->added[i], 0);
}

static void test_tool_call_error(void **state)
{
	struct ifx *f = *state;
	struct ievs e;
	char p[4096];

	IF_CORPUS(p, "inspect/inspect_tool_call_error.json");
	assert_int_equal(if_import(f, p, NULL, 0), 0);
	assert_int_equal(f->nruns, 1);
	e = if_events(f, f->ids[0]);
	assert_int_equal(if_count(&e, KT_KIND_TOOL_RESULT), 11);
	assert_int_equal(if_count_bool(&e, KT_KIND_TOOL_RESULT, "ok", 0), 11);
	assert_int_equal(if_count(&e, KT_KIND_TOOL_CALL), 0);
	assert_int_equal(if_count(&e, KT_KIND_MESSAGE), 0);
	assert_true(if_any_text(&e, "\"output_limit\""));
	assert_true(if_any_text(&e, "\"call_id\":\"bash_11\""));
	if_free(&e);
}

static void test_browser(void **state)
{
	struct ifx *f = *state;
	struct ievs e;
	const struct iev *m;
	const cJSON *u;
	char p[4096];

	IF_CORPUS(p, "inspect/inspect_browser.json");
	assert_int_equal(if_import(f, p, NULL, 0), 0);
	assert_int_equal(f->nruns, 1);
	e = if_events(f, f->ids[0]);
	assert_int_equal(if_count(&e, KT_KIND_MESSAGE), 2);
	assert_int_equal(if_count_bool(&e, KT_KIND_MESSAGE, "human", 1), 1);
	assert_int_equal(if_count(&e, KT_KIND_TOOL_CALL), 4);
	assert_int_equal(if_count(&e, KT_KIND_TOOL_RESULT), 4);
	assert_int_equal(if_count(&e, KT_KIND_NOTE), 1);
	/* 93 attachment references, all resolved */
	assert_false(if_any_text(&e, "attachment://"));
	/* each result points at the call with its call_id */
	for (size_t i = 0; i < e.n; i++) {
		const struct iev *r = &e.v[i], *c;

		if (r->kind != KT_KIND_TOOL_RESULT)
			continue;
		assert_true(r->parent > 0 && r->parent <= e.n);
		c = &e.v[r->parent - 1];
		assert_int_equal(c->kind, KT_KIND_TOOL_CALL);
		assert_string_equal(
			cJSON_GetObjectItem(c->p, "call_id")->valuestring,
			cJSON_GetObjectItem(r->p, "call_id")->valuestring);
		assert_true(r->ts != KT_TS_UNKNOWN && r->ts >= c->ts);
	}
	/* the final answer: text resolved from an attachment, usage with
	 * cache reads from its model event */
	m = if_nth(&e, KT_KIND_MESSAGE, 1);
	assert_non_null(m);
	assert_non_null(strstr(cJSON_GetObjectItem(m->p, "text")->valuestring,
			       "AI Security Institute"));
	u = cJSON_GetObjectItem(m->p, "usage");
	assert_int_equal((int)if_num(u, "input"), 5915);
	assert_int_equal((int)if_num(u, "output"), 207);
	assert_int_equal((int)if_num(u, "cache_read"), 3840);
	/* 2025-05-12T20:27:56.685060-04:00 (model event completed) */
	assert_true(m->ts == 1747096076685060000LL);
	if_free(&e);
}

static void test_dedup_v3(void **state)
{
	struct ifx *f = *state;
	struct ievs e;
	char p[4096];

	IF_CORPUS(p, "inspect/inspect_message_dedup_v3.eval");
	assert_int_equal(if_import(f, p, NULL, 0), 0);
	assert_int_equal(f->nruns, 1);
	assert_int_equal(f->nwarn, 0);
	e = if_events(f, f->ids[0]);
	/* user + 5 "Executing bash" + "done" */
	assert_int_equal(if_count(&e, KT_KIND_MESSAGE), 7);
	assert_int_equal(if_count_str(&e, KT_KIND_TOOL_CALL, "tool", "bash"),
			 5);
	assert_int_equal(if_count(&e, KT_KIND_TOOL_RESULT), 5);
	assert_int_equal(if_count(&e, KT_KIND_COMPILE), 0); /* ls builds nothing */
	/* each bash call's exit status from its sandbox exec (result 0) */
	assert_int_equal(if_count_num(&e, KT_KIND_TOOL_RESULT, "exit_code",
				      -0.5, 0.5), 5);
	assert_int_equal(if_count(&e, KT_KIND_NOTE), 1);
	assert_int_equal(if_count(&e, 0), 18);
	if_free(&e);
}

static void test_images_and_input(void **state)
{
	struct ifx *f = *state;
	struct ievs e;
	char p[4096];

	IF_CORPUS(p, "inspect/inspect_images.json");
	assert_int_equal(if_import(f, p, NULL, 0), 0);
	assert_int_equal(f->nruns, 1);
	e = if_events(f, f->ids[0]);
	assert_int_equal(if_count(&e, KT_KIND_MESSAGE), 3);
	assert_int_equal(if_count_bool(&e, KT_KIND_MESSAGE, "human", 1), 1);
	/* the image went to a blob, its data URL is not inline */
	assert_true(if_any_text(&e, "\"media\":[{\"type\":\"image\",\"blob\":\""));
	assert_false(if_any_text(&e, "data:image/png;base64"));
	if_free(&e);

	IF_CORPUS(p, "inspect/inspect_2024_input_task.json");
	assert_int_equal(if_import(f, p, NULL, 0), 0);
	assert_int_equal(f->nruns, 1);
	e = if_events(f, f->ids[0]);
	assert_int_equal(if_count(&e, KT_KIND_MESSAGE), 3);
	/* the dataset prompt and the question a person typed at the input
	 * prompt (2024-11-05T13:32:16.447114-05:00) */
	assert_int_equal(if_count_bool(&e, KT_KIND_MESSAGE, "human", 1), 2);
	assert_true(if_nth(&e, KT_KIND_MESSAGE, 1)->ts == 1730831536447114000LL);
	if_free(&e);
}

static void test_fixture_eval(void **state)
{
	struct ifx *f = *state;
	struct ievs e;
	const struct iev *m;
	char id2[KT_RUN_ID_HEX + 1];

	assert_int_equal(if_import(f, FIX "mini.eval", NULL, 0), 0);
	/* two epochs of sample 1; sample 2 is a truncated member */
	assert_int_equal(f->nruns, 2);
	assert_int_equal(f->nwarn, 1);
	assert_non_null(strstr(f->warns, "samples/2_epoch_1.json: truncated: "
				      "the file ends inside a JSON value"));
	assert_string_not_equal(f->ids[0], f->ids[1]);
	kt_run_id_from_identity("inspect:FIXevalid0001:1:2", id2);
	assert_string_equal(f->ids[1], id2);

	e = if_events(f, f->ids[0]);
	/* system, user, reasoning, text, solver's user message, final */
	assert_int_equal(if_count(&e, KT_KIND_MESSAGE), 6);
	assert_int_equal(if_count_bool(&e, KT_KIND_MESSAGE, "human", 1), 1);
	assert_int_equal(if_count_str(&e, KT_KIND_MESSAGE, "text",
				      "You are a CUDA expert."), 1);
	assert_true(if_any_text(&e, "\"flags\":[\"thinking\"]"));
	assert_int_equal(if_count(&e, KT_KIND_TOOL_CALL), 4);
	assert_int_equal(if_count(&e, KT_KIND_TOOL_RESULT), 4);
	assert_int_equal(if_count_bool(&e, KT_KIND_TOOL_RESULT, "ok", 0), 1);
	/* nvcc through kt_shell_classify */
	assert_int_equal(if_count(&e, KT_KIND_COMPILE), 1);
	/* text_editor create, then str_replace given as a JSON string */
	assert_int_equal(if_count_str(&e, KT_KIND_EDIT, "op", "create"), 1);
	assert_int_equal(if_count_str(&e, KT_KIND_EDIT, "op", "modify"), 1);
	assert_int_equal(if_count_str(&e, KT_KIND_EDIT, "path", "/w/k.cu"), 2);
	assert_false(if_any_text(&e, "attachment://"));
	assert_true(if_any_text(&e, "warning: unused"));
	/* "Please proceed" comes from a solver, not a person */
	m = if_nth(&e, KT_KIND_MESSAGE, 4);
	assert_string_equal(m->actor, "system");
	assert_false(cJSON_IsTrue(cJSON_GetObjectItem(m->p, "human")));
	/* first assistant text: the model event at 10:00:02+01:00 */
	m = if_nth(&e, KT_KIND_MESSAGE, 3);
	assert_true(m->ts == 1740819602000000000LL);
	assert_int_equal((int)if_num(cJSON_GetObjectItem(m->p, "usage"),
				     "input"), 10);
	if_free(&e);

	/* again: same runs, nothing added */
	assert_int_equal(if_import(f, FIX "mini.eval", NULL, 0), 0);
	assert_int_equal(f->nruns, 2);
	assert_int_equal(f->added[0] + f->added[1], 0);
}

static void test_fixture_strict(void **state)
{
	struct ifx *f = *state;
	kt_run_info info;
	char id[KT_RUN_ID_HEX + 1];

	/* the truncated member is a problem: nothing of the archive stays */
	assert_int_not_equal(if_import(f, FIX "mini.eval", NULL, 1), 0);
	kt_run_id_from_identity("inspect:FIXevalid0001:1:1", id);
	assert_int_equal(kt_run_get(f->s, id, &info), KT_ENOTFOUND);
}

static void test_fixture_journal_only(void **state)
{
	struct ifx *f = *state;

	assert_int_equal(if_import(f, FIX "journal_only.eval", NULL, 0), 0);
	assert_int_equal(f->nruns, 0);
	assert_int_equal(f->nwarn, 1);
	assert_non_null(strstr(f->warns, "no samples"));
}

static void test_fixture_mono(void **state)
{
	struct ifx *f = *state;
	struct ievs e;
	const struct iev *c;
	int a, b;

	assert_int_equal(if_import(f, FIX "mono_v2.json", NULL, 0), 0);
	assert_int_equal(f->nruns, 2);
	/* the junk message and the dangling attachment */
	assert_int_equal(f->nwarn, 2);
	a = if_run_named(f, "fixture/mono/a/e1");
	b = if_run_named(f, "fixture/mono/b/e1");
	assert_true(a >= 0 && b >= 0);

	e = if_events(f, f->ids[a]);
	assert_int_equal(if_count(&e, 0), 4);
	/* no source, no input events: the first user message is the task */
	assert_int_equal(if_count_bool(&e, KT_KIND_MESSAGE, "human", 1), 1);
	/* arguments that are not JSON stay, as _raw */
	c = if_nth(&e, KT_KIND_TOOL_CALL, 0);
	assert_non_null(c);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(c->p,
			"args"), "_raw")->valuestring, "not json");
	/* no message ids: the 2nd assistant message is the 2nd model call */
	assert_true(if_nth(&e, KT_KIND_MESSAGE, 1)->ts ==
		    1704067203000000000LL);
	if_free(&e);

	/* no messages: input plus output.choices */
	e = if_events(f, f->ids[b]);
	assert_int_equal(if_count(&e, KT_KIND_MESSAGE), 2);
	assert_int_equal(if_count_str(&e, KT_KIND_MESSAGE, "text",
				      "only input"), 1);
	if_free(&e);
}

/* sandbox_exit.json: a shell tool's exit status is in the sandbox exec of
 * its tool span (before or after the tool event, after a version check,
 * next to another span's exec) or nested in the tool event; a browser
 * tool's helper status is not an exit code. */
static void test_fixture_sandbox_exit(void **state)
{
	struct ifx *f = *state;
	struct ievs e;
	const struct iev *r;

	assert_int_equal(if_import(f, FIX "sandbox_exit.json", NULL, 0), 0);
	assert_int_equal(f->nruns, 1);
	assert_int_equal(f->nwarn, 0);
	e = if_events(f, f->ids[0]);
	assert_int_equal(if_count(&e, KT_KIND_COMPILE), 3);
	assert_int_equal((int)if_num(if_nth(&e, KT_KIND_COMPILE, 0)->p,
				     "exit_code"), 2);
	assert_int_equal((int)if_num(if_nth(&e, KT_KIND_COMPILE, 1)->p,
				     "exit_code"), 2);
	assert_int_equal((int)if_num(if_nth(&e, KT_KIND_COMPILE, 2)->p,
				     "exit_code"), 0);
	assert_int_equal(if_count_num(&e, KT_KIND_TOOL_RESULT, "exit_code", 1.5,
				      2.5), 2);
	assert_int_equal(if_count_num(&e, KT_KIND_TOOL_RESULT, "exit_code", -0.5,
				      0.5), 1);
	r = if_nth(&e, KT_KIND_TOOL_RESULT, 3);
	assert_null(cJSON_GetObjectItem(r->p, "exit_code"));
	if_free(&e);
}

static void test_detect(void **state)
{
	const kt_importer *im = kt_importer_find("inspect");
	kt_file f;
	const char *sample = "{\"id\": 3, \"epoch\": 1, \"input\": \"x\", "
			     "\"messages\": []}";
	const char *cc = "{\"type\":\"user\",\"sessionId\":\"s\",\"message\":"
			 "{\"role\":\"user\",\"content\":\"hi\"}}\n";

	(void)state;
	assert_non_null(im);
	memset(&f, 0, sizeof(f));
	f.data = (const unsigned char *)sample;
	f.len = strlen(sample);
	f.rel = "samples/3_epoch_1.json";
	f.path = f.rel;
	assert_true(im->detect(&f) >= 90);
	f.rel = f.path = "x.json";
	assert_true(im->detect(&f) > 0 && im->detect(&f) < 90);
	f.data = (const unsigned char *)cc;
	f.len = strlen(cc);
	assert_int_equal(im->detect(&f), 0);
	f.data = (const unsigned char *)"";
	f.len = 0;
	assert_int_equal(im->detect(&f), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_popularity_eval, if_setup,
						if_teardown),
		cmocka_unit_test_setup_teardown(test_tool_call_error, if_setup,
						if_teardown),
		cmocka_unit_test_setup_teardown(test_browser, if_setup,
						if_teardown),
		cmocka_unit_test_setup_teardown(test_dedup_v3, if_setup,
						if_teardown),
		cmocka_unit_test_setup_teardown(test_images_and_input, if_setup,
						if_teardown),
		cmocka_unit_test_setup_teardown(test_fixture_eval, if_setup,
						if_teardown),
		cmocka_unit_test_setup_teardown(test_fixture_strict, if_setup,
						if_teardown),
		cmocka_unit_test_setup_teardown(test_fixture_journal_only,
						if_setup, if_teardown),
		cmocka_unit_test_setup_teardown(test_fixture_mono, if_setup,
						if_teardown),
		cmocka_unit_test_setup_teardown(test_fixture_sandbox_exit,
						if_setup, if_teardown),
		cmocka_unit_test(test_detect),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
