/*
 * t_import_swe.c - SWE-agent and mini-swe-agent importer: exact counts per
 * corpus file; fixtures for demonstrations in history, editor windows and
 * `edit S:E` edits, a reverted (syntax error) edit, Python-repr fields,
 * the submitted diff, mini-swe-agent blocks and return codes.
 */
#include "testutil.h"
#include "imp_testlib.h"

static void corpus_one(const char *rel, const char *fmt, int m, int h, int tc,
		       int tr, int ed, int cc)
{
	char p[4096];
	it_ctx c;
	it_counts k;

	if (!it_corpus(p, sizeof(p), rel))
		skip();
	it_open(&c);
	assert_int_equal(it_import(&c, NULL, 0, 1, p), 0);
	assert_int_equal(c.nruns, 1);
	assert_string_equal(c.runs[0].format, fmt);
	k = it_count(&c, c.runs[0].id);
	IT_EXPECT(k, m, h, tc, tr, ed);
	assert_int_equal(k.compile, cc);
	assert_int_equal(k.bench, 0);
	it_close(&c);
}

static void t_corpus(void **st)
{
	(void)st;
	/* 13 function calls; create + insert of reproduce.py, then rm */
	corpus_one("swe_agent/sweagent_v1_marshmallow_fc_replace.traj",
		   "swe_agent", 15, 1, 13, 13, 3, 0);
	/* history only: 5 actions, an edit after a whole-file window */
	corpus_one("swe_agent/sweagent_history_only.traj", "swe_agent",
		   7, 1, 5, 5, 1, 0);
	/* 0.x with a demonstration in history (not imported) */
	corpus_one("swe_agent/sweagent_v0_test_repo_i1.traj", "swe_agent",
		   7, 1, 5, 5, 1, 0);
	corpus_one("swe_agent/sweagent_ctf_warmup.traj", "swe_agent",
		   9, 1, 7, 7, 3, 0);
	corpus_one("swe_agent/mini_swe_agent_example.json", "swe_agent",
		   6, 1, 3, 3, 1, 0);
}

static void t_v0_demo(void **st)
{
	char p[4096], *s;
	it_ctx c;
	it_counts k;
	const char *run;

	(void)st;
	it_fixture(p, sizeof(p), "swe/v0_demo.traj");
	it_open(&c);
	assert_int_equal(it_import(&c, NULL, 0, 1, p), 0);
	assert_int_equal(c.nruns, 1);
	run = c.runs[0].id;
	k = it_count(&c, run);
	/* system + issue + 5 agent turns; the demonstration is skipped */
	IT_EXPECT(k, 7, 1, 5, 5, 1);
	assert_int_equal(k.result_ok, 4);
	/* the window showed the whole file; edit 1:1 applied, the edit that
	 * introduced a syntax error was reverted by SWE-agent */
	s = it_cat(&c, run, "/repo/src/a.py", 0);
	assert_non_null(s);
	assert_string_equal(s, "def f():\n    return 1\n\n");
	free(s);
	s = it_cat(&c, run, "/repo/src/a.py", 5);
	assert_non_null(s);
	assert_string_equal(s, "def f()\n    return 1\n\n");
	free(s);
	/* a file added by the submitted diff is known in full */
	s = it_cat(&c, run, "/repo/new.txt", 0);
	assert_non_null(s);
	assert_string_equal(s, "x\ny\n");
	free(s);
	it_close(&c);
}

static void t_v1_repr(void **st)
{
	char p[4096], *s;
	it_ctx c;
	it_counts k;
	kt_run_info ri;

	(void)st;
	it_fixture(p, sizeof(p), "swe/v1_repr.traj");
	it_open(&c);
	assert_int_equal(it_import(&c, NULL, 0, 1, p), 0);
	assert_int_equal(c.nruns, 1);
	k = it_count(&c, c.runs[0].id);
	/* tool_calls and tool_call_ids written as Python repr strings */
	IT_EXPECT(k, 7, 1, 5, 5, 3);
	s = it_cat(&c, c.runs[0].id, "/r/b.py", 0);
	assert_non_null(s);
	assert_string_equal(s, "print(2)\n");
	free(s);
	/* a whole-file `view` seeds the file, so the str_replace applies */
	s = it_cat(&c, c.runs[0].id, "/r/c.py", 0);
	assert_non_null(s);
	assert_string_equal(s, "x = 1\ny = 3\n");
	free(s);
	/* model_stats repr decoded, model from the replay_config string */
	assert_int_equal(kt_run_get(c.s, c.runs[0].id, &ri), 0);
	assert_non_null(strstr(ri.meta_json, "\"api_calls\":3"));
	assert_non_null(strstr(ri.meta_json, "gpt-x"));
	it_close(&c);
}

static void t_mini(void **st)
{
	char p[4096];
	it_ctx c;
	it_counts k;
	cJSON *pl;
	int kind;

	(void)st;
	it_fixture(p, sizeof(p), "swe/mini.json");
	it_open(&c);
	assert_int_equal(it_import(&c, NULL, 0, 1, p), 0);
	assert_int_equal(c.nruns, 1);
	assert_string_equal(c.runs[0].format, "swe_agent");
	k = it_count(&c, c.runs[0].id);
	/* the format complaint is no human turn; `echo > f` is an edit */
	IT_EXPECT(k, 6, 1, 2, 2, 1);
	assert_int_equal(k.result_ok, 1);
	assert_int_equal(k.usage, 1);
	pl = it_payload(&c, c.runs[0].id, 11, &kind, NULL, 0);
	assert_int_equal(kind, KT_KIND_TOOL_RESULT);
	assert_int_equal(cJSON_GetObjectItem(pl, "exit_code")->valueint, 3);
	assert_string_equal(cJSON_GetObjectItem(pl, "output")->valuestring,
			    "boom\n");
	cJSON_Delete(pl);
	it_close(&c);
}

/* editor_actions.traj: str_replace_editor invoked as an action string
 * (no tool_calls): create/str_replace/insert are edits with their content,
 * view observes, undo_edit takes the content its cat -n shows; only the
 * nvcc line is a shell command. */
static void t_editor_actions(void **st)
{
	char p[4096], *s;
	it_ctx c;
	it_counts k;
	cJSON *pl;
	int kind;

	(void)st;
	it_fixture(p, sizeof(p), "swe/editor_actions.traj");
	it_open(&c);
	assert_int_equal(it_import(&c, NULL, 0, 1, p), 0);
	assert_int_equal(c.nruns, 1);
	k = it_count(&c, c.runs[0].id);
	/* create, str_replace, undo, insert */
	IT_EXPECT(k, 9, 1, 7, 7, 4);
	assert_int_equal(k.compile, 1);
	pl = it_payload(&c, c.runs[0].id, 4, &kind, NULL, 0);
	assert_int_equal(kind, KT_KIND_TOOL_CALL);
	assert_string_equal(cJSON_GetObjectItem(pl, "tool")->valuestring,
			    "str_replace_editor");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(pl, "args"),
						"command")->valuestring, "create");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(pl, "args"),
						"file_text")->valuestring,
			    "__global__ void k() {}\n");
	assert_false(kt_tool_is_shell("str_replace_editor",
				      cJSON_GetObjectItem(pl, "args")));
	cJSON_Delete(pl);
	s = it_cat(&c, c.runs[0].id, "/r/k.cu", 0);
	assert_non_null(s);
	assert_string_equal(s, "__global__ void k() {}\n// it's fast\n");
	free(s);
	it_close(&c);
}

static void t_tool_is_shell(void **st)
{
	cJSON *a = cJSON_Parse("{\"command\":\"make -j\"}");
	cJSON *e = cJSON_Parse("{\"command\":\"view\",\"path\":\"/a\"}");
	cJSON *o = cJSON_Parse("{\"command\":\"open f.py\"}");

	(void)st;
	assert_true(kt_tool_is_shell("Bash", a));
	assert_true(kt_tool_is_shell("execute_bash", a));
	assert_true(kt_tool_is_shell("some_new_runner", a));
	assert_false(kt_tool_is_shell("execute_bash", e));
	assert_false(kt_tool_is_shell("str_replace_editor", a));
	assert_false(kt_tool_is_shell("file_editor", e));
	assert_false(kt_tool_is_shell("edit_file", a));
	assert_false(kt_tool_is_shell("open", o));
	assert_false(kt_tool_is_shell("create", o));
	assert_false(kt_tool_is_shell("submit", o));
	assert_false(kt_tool_is_shell(NULL, a));
	cJSON_Delete(a);
	cJSON_Delete(e);
	cJSON_Delete(o);
}

static void t_not_swe(void **st)
{
	char p[4200];
	it_ctx c;
	FILE *f;

	(void)st;
	it_open(&c);
	snprintf(p, sizeof(p), "%s/x.traj", c.dir);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs("{\"history\": 5, \"trajectory\": \"no\"}\n", f);
	fclose(f);
	/* forced: warned, no run, no crash */
	assert_int_equal(it_import(&c, "swe_agent", 0, 1, p), 0);
	assert_int_equal(c.nruns, 0);
	assert_true(c.nwarn >= 1);
	it_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_corpus),
		cmocka_unit_test(t_v0_demo),
		cmocka_unit_test(t_v1_repr),
		cmocka_unit_test(t_mini),
		cmocka_unit_test(t_editor_actions),
		cmocka_unit_test(t_tool_is_shell),
		cmocka_unit_test(t_not_swe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
