/*
 * t_import_codex.c - the Codex rollout importer through the real driver:
 * exact counts per corpus file, and own fixtures for every pitfall of
 * formats.md s.2 (duplicate streams, apply_patch forms, JSON-string and
 * redacted arguments, web searches, compaction, token_count repeats, no
 * session_meta, legacy layout, malformed lines, --strict).
 */
#include "testutil.h"
#include "imp_testlib.h"

static void corpus_file(const char *rel, int m, int h, int tc, int tr, int ed,
			int cc, int be)
{
	char p[4096];
	it_ctx c;
	it_counts k;

	if (!it_corpus(p, sizeof(p), rel))
		skip();
	it_open(&c);
	assert_int_equal(it_import(&c, NULL, 0, 1, p), 0);
	assert_int_equal(c.nruns, 1);
	assert_string_equal(c.runs[0].format, "codex");
	k = it_count(&c, c.runs[0].id);
	IT_EXPECT(k, m, h, tc, tr, ed);
	assert_int_equal(k.compile, cc);
	assert_int_equal(k.bench, be);
	it_close(&c);
}

static void t_corpus_compacted(void **st)
{
	(void)st;
	/* 316 function_call + 49 apply_patch + 7 web_search_call; the
	 * compacted replacement_history is not counted again */
	corpus_file("codex/localpush_rollout_12-54-34_compacted.jsonl",
		    538, 38, 372, 365, 0, 0, 0);
}

static void t_corpus_unanswered(void **st)
{
	(void)st;
	corpus_file("codex/localpush_rollout_12-47-42_unanswered_call.jsonl",
		    145, 7, 144, 143, 0, 0, 0);
}

static void t_corpus_small(void **st)
{
	(void)st;
	/* shell heredoc `cat > f <<EOF` is an edit */
	corpus_file("codex/agenthistory_codex_compaction.jsonl",
		    13, 4, 2, 2, 1, 0, 0);
	/* escalated calls without output change nothing */
	corpus_file("codex/agenthistory_codex_escalation.jsonl",
		    12, 5, 4, 2, 1, 0, 0);
	corpus_file("codex/chronicle_codex_malformed.jsonl", 1, 1, 0, 0, 0, 0,
		    0);
}

static void t_corpus_manifest(void **st)
{
	char p[4096];
	it_ctx c;

	(void)st;
	if (!it_corpus(p, sizeof(p), "codex/localpush_manifest.json"))
		skip();
	it_open(&c);
	/* not a trajectory: skipped with a note, no run; named alone, the
	 * call fails as for an empty input (README "import") */
	assert_int_equal(it_import(&c, NULL, 0, 1, p), KT_ENOTFOUND);
	assert_int_equal(c.nruns, 0);
	it_close(&c);
}

static void t_streams(void **st)
{
	char p[4096], *s;
	it_ctx c;
	it_counts k;
	cJSON *pl;
	int kind;
	const char *run;

	(void)st;
	it_fixture(p, sizeof(p), "codex/streams.jsonl");
	it_open(&c);
	assert_int_equal(it_import(&c, NULL, 0, 1, p), 0);
	assert_int_equal(c.nruns, 1);
	run = c.runs[0].id;
	k = it_count(&c, run);
	/* developer text, injected <environment_context>, 2 typed turns (the
	 * response_item copy of the first is not counted), reasoning and
	 * assistant text once each, compaction summary, turn abort */
	IT_EXPECT(k, 8, 2, 8, 6, 4);
	assert_int_equal(k.result_ok, 4);
	assert_int_equal(k.compile, 2);
	/* the malformed line is reported with its line number */
	assert_int_equal(c.nwarn, 1);
	assert_non_null(strstr(c.warns, "streams.jsonl:29:"));
	/* apply_patch: Add, Update, failed Update, Move via shell heredoc */
	assert_null(it_cat(&c, run, "/w/src/hello.txt", 0));
	s = it_cat(&c, run, "/w/src/greet.txt", 0);
	assert_non_null(s);
	assert_string_equal(s, "hello\ncodex!\n");
	free(s);
	s = it_cat(&c, run, "/w/src/hello.txt", 11);
	assert_non_null(s);
	assert_string_equal(s, "hello\ncodex\n");
	free(s);
	/* the model comes from turn_context; a call's parent is the text the
	 * model wrote before it */
	pl = it_payload(&c, run, 5, &kind, NULL, 0);
	assert_string_equal(cJSON_GetObjectItem(pl, "model")->valuestring,
			    "gpt-test");
	cJSON_Delete(pl);
	{
		kt_event ev;

		assert_int_equal(kt_event_get(c.s, run, 6, &ev), 0);
		assert_int_equal(ev.parent, 5);
		assert_int_equal(kt_event_get(c.s, run, 9, &ev), 0);
		assert_int_equal(ev.parent, 0);
	}
	/* usage from token_count goes to the call it follows, once */
	pl = it_payload(&c, run, 6, &kind, NULL, 0);
	assert_int_equal(kind, KT_KIND_TOOL_CALL);
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(
		cJSON_GetObjectItem(pl, "extra"), "usage"), "input")->valueint,
		60);
	cJSON_Delete(pl);
	/* the exit code of exec_command output */
	pl = it_payload(&c, run, 22, &kind, NULL, 0);
	assert_int_equal(kind, KT_KIND_TOOL_RESULT);
	assert_int_equal(cJSON_GetObjectItem(pl, "exit_code")->valueint, 2);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(pl, "ok")));
	cJSON_Delete(pl);
	/* redacted (non-JSON) arguments are kept raw */
	pl = it_payload(&c, run, 27, &kind, NULL, 0);
	assert_int_equal(kind, KT_KIND_TOOL_CALL);
	assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(pl, "args"),
					    "_raw"));
	cJSON_Delete(pl);
	/* the compaction summary is not a human turn */
	pl = it_payload(&c, run, 25, &kind, NULL, 0);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(pl, "human")));
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(pl,
				"flags"), 0)->valuestring, "compact_summary");
	cJSON_Delete(pl);
	/* importing again adds nothing */
	assert_int_equal(it_import(&c, NULL, 0, 1, p), 0);
	assert_int_equal(c.runs[0].added, 0);
	it_close(&c);
}

static void t_no_session_meta(void **st)
{
	char p[4096], id[KT_RUN_ID_HEX + 1];
	it_ctx c;
	it_counts k;

	(void)st;
	it_fixture(p, sizeof(p), "codex/rollout-2026-01-18T02-03-00-"
		   "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl");
	it_open(&c);
	assert_int_equal(it_import(&c, NULL, 0, 1, p), 0);
	assert_int_equal(c.nruns, 1);
	/* the uuid in the rollout name is the session id */
	kt_run_id_from_identity("codex:0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000",
				id);
	assert_string_equal(c.runs[0].id, id);
	k = it_count(&c, id);
	IT_EXPECT(k, 2, 1, 0, 0, 0);
	it_close(&c);
}

static void t_legacy(void **st)
{
	char p[4096];
	it_ctx c;
	it_counts k;

	(void)st;
	it_fixture(p, sizeof(p), "codex/legacy.jsonl");
	it_open(&c);
	assert_int_equal(it_import(&c, NULL, 0, 1, p), 0);
	assert_int_equal(c.nruns, 1);
	assert_string_equal(c.runs[0].format, "codex");
	k = it_count(&c, c.runs[0].id);
	/* no event_msg stream: the user item is the typed turn */
	IT_EXPECT(k, 2, 1, 1, 1, 0);
	it_close(&c);
}

static void t_strict_and_growth(void **st)
{
	char p[4096], tmp[4200], *data;
	size_t len = 0, cut;
	it_ctx c;
	FILE *f;
	uint64_t first;

	(void)st;
	it_fixture(p, sizeof(p), "codex/streams.jsonl");
	it_open(&c);
	/* --strict: the malformed line stops the file, nothing is kept */
	assert_int_not_equal(it_import(&c, NULL, 1, 1, p), 0);
	assert_int_equal(c.nruns, 0);
	/* a live log that grew: the second import adds only the new events */
	data = tu_slurp(p, &len);
	assert_non_null(data);
	for (cut = len / 2; cut < len && data[cut] != '\n'; cut++)
		;
	snprintf(tmp, sizeof(tmp), "%s/live.jsonl", c.dir);
	f = fopen(tmp, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, cut + 1, f), cut + 1);
	fclose(f);
	assert_int_equal(it_import(&c, NULL, 0, 1, tmp), 0);
	first = c.runs[0].events;
	assert_true(first > 0 && first < 28);
	f = fopen(tmp, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
	assert_int_equal(it_import(&c, NULL, 0, 1, tmp), 0);
	assert_int_equal(c.runs[0].events, 28);
	assert_int_equal(c.runs[0].added, 28 - first);
	free(data);
	it_close(&c);
}

/* Every byte sequence is valid UTF-8 once stored; a truncated last line
 * (a live log mid-write) is reported, not fatal. */
static void t_invalid_utf8(void **st)
{
	char p[4096];
	it_ctx c;
	it_counts k;
	cJSON *pl;
	const char *t;
	int kind;

	(void)st;
	it_fixture(p, sizeof(p), "codex/badutf8.jsonl");
	it_open(&c);
	assert_int_equal(it_import(&c, NULL, 0, 1, p), 0);
	assert_int_equal(c.nruns, 1);
	k = it_count(&c, c.runs[0].id);
	IT_EXPECT(k, 1, 1, 1, 1, 0);
	assert_non_null(strstr(c.warns, "badutf8.jsonl:5:"));
	pl = it_payload(&c, c.runs[0].id, 1, &kind, NULL, 0);
	t = cJSON_GetObjectItem(pl, "text")->valuestring;
	assert_non_null(strstr(t, "bad \xef\xbf\xbd"));
	assert_null(strchr(t, '\xff'));
	cJSON_Delete(pl);
	pl = it_payload(&c, c.runs[0].id, 3, &kind, NULL, 0);
	assert_int_equal(kind, KT_KIND_TOOL_RESULT);
	assert_non_null(strstr(cJSON_GetObjectItem(pl, "output")->valuestring,
			       "\xef\xbf\xbd" "binary"));
	cJSON_Delete(pl);
	it_close(&c);
}

/* A shell call's `workdir` is resolved as Codex does (cwd.join(workdir)):
 * a relative one below the session's cwd, for rm, for a cd in the
 * command and for apply_patch run through the shell; with no cwd known,
 * below the session's own (relative) paths.  Never a file elsewhere. */
static void workdir_case(const char *fx, const char *root)
{
	char p[4096], f[256], *s;
	it_ctx c;
	const char *run;

	it_fixture(p, sizeof(p), fx);
	it_open(&c);
	assert_int_equal(it_import(&c, NULL, 0, 1, p), 0);
	assert_int_equal(c.nruns, 1);
	run = c.runs[0].id;
	/* rm a.c with workdir "sub": sub/a.c goes, a.c stays */
	snprintf(f, sizeof(f), "%ssub/a.c", root);
	s = it_cat(&c, run, f, 9);
	assert_non_null(s);
	assert_string_equal(s, "int s;\n");
	free(s);
	assert_null(it_cat(&c, run, f, 0));
	snprintf(f, sizeof(f), "%sa.c", root);
	s = it_cat(&c, run, f, 0);
	assert_non_null(s);
	assert_string_equal(s, "int a;\n");
	free(s);
	/* cd .. from workdir sub/deep */
	snprintf(f, sizeof(f), "%ssub/c.c", root);
	s = it_cat(&c, run, f, 12);
	assert_non_null(s);
	free(s);
	assert_null(it_cat(&c, run, f, 0));
	/* apply_patch in the shell, workdir sub: Update File b.c */
	snprintf(f, sizeof(f), "%ssub/b.c", root);
	s = it_cat(&c, run, f, 0);
	assert_non_null(s);
	assert_string_equal(s, "int b2;\n");
	free(s);
	assert_int_equal(it_count(&c, run).edit, 7);
	it_close(&c);
}

static void t_workdir(void **st)
{
	(void)st;
	workdir_case("codex/workdir.jsonl", "/w/");
	workdir_case("codex/workdir_nocwd.jsonl", "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_corpus_compacted),
		cmocka_unit_test(t_corpus_unanswered),
		cmocka_unit_test(t_corpus_small),
		cmocka_unit_test(t_corpus_manifest),
		cmocka_unit_test(t_streams),
		cmocka_unit_test(t_no_session_meta),
		cmocka_unit_test(t_legacy),
		cmocka_unit_test(t_strict_and_growth),
		cmocka_unit_test(t_invalid_utf8),
		cmocka_unit_test(t_workdir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
