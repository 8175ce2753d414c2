/*
 * t_import_chat.c - the chat-shaped agent formats (STS, Aider, Cline/Roo,
 * OTLP GenAI spans, OpenCode): exact counts on every corpus sample of each
 * (messages, human messages, tool calls and results, edits, compiles), and
 * fixtures written from the agents' own sources for what the corpus lacks:
 * results paired by id out of order, SEARCH/REPLACE blocks applied or
 * failed, Cline's older task folder, spans attached by parentSpanId,
 * OpenCode's storage tree and its SQLite database (no corpus sample).
 */
#include <sqlite3.h>
#include "testutil.h"
#include "imp_testlib.h"

/* One file (or folder) of the corpus: one run of `fmt` with these counts. */
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
	assert_int_equal(c.nwarn, 0);
	it_close(&c);
}

static void t_corpus(void **st)
{
	(void)st;
	/* header + 4 messages: the empty assistant text beside its tool call
	 * is no message */
	corpus_one("sts/hf-spec_example.sts.jsonl", "sts", 2, 1, 1, 1, 0, 0);
	/* 9 sessions, 49 "####" groups of which 9 answer y/n prompts, 27
	 * SEARCH/REPLACE blocks (the 28th is inside Aider's failure report),
	 * 10 "> Running" commands */
	corpus_one("aider/afi-core_.aider.chat.history.md", "aider", 173, 40,
		   37, 37, 13, 0);
	/* 4 sessions, 8 inputs (/add and /copy-context), no edits */
	corpus_one("aider/zen-mcp-server_.aider.chat.history.md", "aider", 24,
		   8, 0, 0, 0, 0);
	/* 32 messages: 5 typed by the person, 11 holding only tool results,
	 * 14 assistant texts; the system prompt; 11 tool_use/tool_result pairs;
	 * the 4 editor calls modify the file the first message inlined */
	corpus_one("cline", "cline", 20, 5, 11, 11, 4, 0);
	corpus_one("cline/cline-sdk_session.messages.json", "cline", 20, 5, 11,
		   11, 4, 0);
	/* one invoke_agent and three execute_tool spans (run_build is no
	 * shell command) */
	corpus_one("otel_genai/vs-copilot_sample-1_traces.jsonl", "otel_genai",
		   1, 0, 3, 3, 0, 0);
	/* two invoke_agent roots of one trace, each with its own tools */
	corpus_one("otel_genai/vs-copilot_sample-4_traces.jsonl", "otel_genai",
		   2, 0, 3, 3, 0, 0);
}

/* Gemini CLI's session document also has sessionId and messages: it is
 * not a Cline messages file. */
static void t_not_cline(void **st)
{
	char p[4096];
	it_ctx c;

	(void)st;
	if (!it_corpus(p, sizeof(p), "gemini_cli/vct_legacy_session_2026-03-27.json"))
		skip();
	it_open(&c);
	it_import(&c, NULL, 0, 1, p);
	for (int i = 0; i < c.nruns; i++)
		assert_string_not_equal(c.runs[i].format, "cline");
	/* taken for one, its messages were all refused */
	assert_null(strstr(c.warns, "message without a user or assistant"));
	it_close(&c);
}

/* The tool calls of the second agent turn hang under its own invoke_agent
 * message, not under the line before them. */
static void t_otel_parents(void **st)
{
	char p[4096];
	it_ctx c;
	cJSON *pl;
	int kind, seq;
	const char *run;

	(void)st;
	if (!it_corpus(p, sizeof(p), "otel_genai/vs-copilot_sample-4_traces.jsonl"))
		skip();
	it_open(&c);
	assert_int_equal(it_import(&c, NULL, 0, 1, p), 0);
	run = c.runs[0].id;
	for (seq = 1; seq <= 8; seq++) {
		kt_event ev;

		assert_int_equal(kt_event_get(c.s, run, (uint64_t)seq, &ev), 0);
		pl = cJSON_Parse(ev.payload);
		kind = ev.kind;
		if (kind == KT_KIND_TOOL_CALL &&
		    !strcmp(cJSON_GetObjectItem(pl, "call_id")->valuestring,
			    "call_0041"))
			/* file_search: under the second root (seq 6) */
			assert_int_equal(ev.parent, 6);
		if (kind == KT_KIND_TOOL_CALL &&
		    !strcmp(cJSON_GetObjectItem(pl, "call_id")->valuestring,
			    "call_0031"))
			assert_int_equal(ev.parent, 1);
		cJSON_Delete(pl);
	}
	it_close(&c);
}

static void t_sts_fixture(void **st)
{
	char p[4096], *s;
	it_ctx c;
	it_counts k;

	(void)st;
	it_fixture(p, sizeof(p), "sts/tools.sts.jsonl");
	it_open(&c);
	assert_int_equal(it_import(&c, NULL, 0, 1, p), 0);
	assert_int_equal(c.nruns, 1);
	k = it_count(&c, c.runs[0].id);
	/* system, user, assistant, and the orphan result kept as a system
	 * message */
	IT_EXPECT(k, 4, 1, 2, 2, 1);
	assert_int_equal(k.compile, 1);
	/* results paired by toolCallId, not order: the write applies */
	s = it_cat(&c, c.runs[0].id, "/w/k.cu", 0);
	assert_non_null(s);
	assert_string_equal(s, "__global__ void k(){}\n");
	free(s);
	/* the orphan result, the cut line and the unknown line */
	assert_int_equal(c.nwarn, 3);
	assert_non_null(strstr(c.warns, "tools.sts.jsonl:7: tool result for "
			       "unknown call zz"));
	assert_non_null(strstr(c.warns, "tools.sts.jsonl:9: not a message"));
	it_close(&c);
	/* --strict keeps nothing */
	it_open(&c);
	assert_int_not_equal(it_import(&c, NULL, 1, 1, p), 0);
	assert_int_equal(c.nruns, 0);
	it_close(&c);
}

static void t_aider_fixture(void **st)
{
	char p[4096], *s;
	it_ctx c;
	it_counts k;

	(void)st;
	it_fixture(p, sizeof(p), "aider/edits.md");
	it_open(&c);
	assert_int_equal(it_import(&c, NULL, 0, 1, p), 0);
	assert_int_equal(c.nruns, 1);
	assert_string_equal(c.runs[0].format, "aider");
	k = it_count(&c, c.runs[0].id);
	IT_EXPECT(k, 11, 3, 5, 5, 2);
	/* the create, the shell command, the rename; not the block Aider
	 * reported unmatched, nor the one never confirmed */
	assert_int_equal(k.result_ok, 3);
	assert_int_equal(k.compile, 1);
	s = it_cat(&c, c.runs[0].id, "k.cu", 0);
	assert_non_null(s);
	assert_string_equal(s, "__global__ void k2() {}\n");
	free(s);
	assert_null(it_cat(&c, c.runs[0].id, "other.c", 0));
	assert_int_equal(c.nwarn, 0);
	it_close(&c);
}

static void t_cline_task(void **st)
{
	char p[4096], *s;
	it_ctx c;
	it_counts k;

	(void)st;
	it_fixture(p, sizeof(p), "cline/tasks");
	it_open(&c);
	assert_int_equal(it_import(&c, NULL, 0, 1, p), 0);
	/* api_conversation_history.json and task_metadata.json are read with
	 * ui_messages.json, not as runs of their own */
	assert_int_equal(c.nruns, 1);
	assert_string_equal(c.runs[0].format, "cline");
	k = it_count(&c, c.runs[0].id);
	IT_EXPECT(k, 5, 2, 4, 4, 3);
	assert_int_equal(k.compile, 1);
	assert_int_equal(k.usage, 1);
	/* created, edited by its SEARCH/REPLACE diff, then deleted */
	s = it_cat(&c, c.runs[0].id, "hello.c", 5);
	assert_non_null(s);
	assert_string_equal(s, "int main(void)\n{\n\treturn 1;\n}\n");
	free(s);
	s = it_cat(&c, c.runs[0].id, "hello.c", 8);
	assert_non_null(s);
	assert_string_equal(s, "int main(void)\n{\n\treturn 0;\n}\n");
	free(s);
	assert_null(it_cat(&c, c.runs[0].id, "hello.c", 0));
	assert_int_equal(c.nwarn, 1);
	assert_non_null(strstr(c.warns, "message 15 is not an object"));
	it_close(&c);
}

static void t_otel_fixture(void **st)
{
	char p[4096], *s;
	it_ctx c;
	it_counts k;
	cJSON *pl;
	int kind;
	kt_event ev;

	(void)st;
	it_fixture(p, sizeof(p), "otel_genai/chat.json");
	it_open(&c);
	assert_int_equal(it_import(&c, "otel_genai", 0, 1, p), 0);
	/* the trace of one plain HTTP span gives no run */
	assert_int_equal(c.nruns, 1);
	k = it_count(&c, c.runs[0].id);
	/* invoke_agent, the user's text once (the chat span repeats it), the
	 * chat output */
	IT_EXPECT(k, 3, 1, 2, 2, 1);
	assert_int_equal(k.compile, 1);
	assert_int_equal(k.usage, 1);
	s = it_cat(&c, c.runs[0].id, "/w/a.txt", 0);
	assert_non_null(s);
	assert_string_equal(s, "hi\n");
	free(s);
	/* write_file hangs under the chat message, bash under the agent */
	assert_int_equal(kt_event_get(c.s, c.runs[0].id, 4, &ev), 0);
	assert_int_equal(ev.kind, KT_KIND_TOOL_CALL);
	assert_int_equal(ev.parent, 3);
	assert_true(ev.ts_ns == 1700000001000000000LL);
	assert_int_equal(kt_event_get(c.s, c.runs[0].id, 7, &ev), 0);
	assert_int_equal(ev.kind, KT_KIND_TOOL_CALL);
	assert_int_equal(ev.parent, 1);
	/* the result is at the span's end; status ERROR is a failure */
	pl = it_payload(&c, c.runs[0].id, 8, &kind, NULL, 0);
	assert_int_equal(kind, KT_KIND_TOOL_RESULT);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(pl, "ok")));
	assert_string_equal(cJSON_GetObjectItem(pl, "output")->valuestring,
			    "exit 1");
	assert_true(cJSON_GetObjectItem(cJSON_GetObjectItem(pl, "extra"),
					"duration_ms")->valuedouble == 500);
	cJSON_Delete(pl);
	assert_int_equal(c.nwarn, 1);
	assert_non_null(strstr(c.warns, "span without traceId"));
	it_close(&c);
}

static void t_opencode_tree(void **st)
{
	char p[4096], *s;
	it_ctx c;
	it_counts k;
	cJSON *pl;
	int kind;

	(void)st;
	it_fixture(p, sizeof(p), "opencode/tree");
	it_open(&c);
	assert_int_equal(it_import(&c, NULL, 0, 1, p), 0);
	/* message and part files are read with their session, not alone */
	assert_int_equal(c.nruns, 1);
	assert_string_equal(c.runs[0].format, "opencode");
	k = it_count(&c, c.runs[0].id);
	/* the typed text, the synthetic Read text (not human), reasoning and
	 * the reply; five tool parts, four finished */
	IT_EXPECT(k, 4, 1, 5, 4, 2);
	assert_int_equal(k.compile, 1);
	assert_int_equal(k.usage, 1);
	s = it_cat(&c, c.runs[0].id, "/p/k.cu", 0);
	assert_non_null(s);
	assert_string_equal(s, "__global__ void k(float *x) { x[0] = 2; }\n");
	free(s);
	/* bash's metadata.exit is the exit code */
	pl = it_payload(&c, c.runs[0].id, 12, &kind, NULL, 0);
	assert_int_equal(kind, KT_KIND_TOOL_RESULT);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(pl, "ok")));
	assert_int_equal(cJSON_GetObjectItem(pl, "exit_code")->valueint, 2);
	cJSON_Delete(pl);
	assert_int_equal(c.nwarn, 0);
	it_close(&c);
}

/* The database is built from opencode.sql with SQLite itself. */
static void t_opencode_db(void **st)
{
	char p[4096], db[4200], *sql = NULL;
	it_ctx c;
	it_counts k;
	sqlite3 *h;
	FILE *fp;
	long n;
	int i, sub = -1;

	(void)st;
	it_fixture(p, sizeof(p), "opencode/opencode.sql");
	assert_non_null(fp = fopen(p, "rb"));
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	assert_non_null(sql = calloc(1, (size_t)n + 1));
	assert_int_equal(fread(sql, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	it_open(&c);
	snprintf(db, sizeof(db), "%s/opencode.db", c.dir);
	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	free(sql);
	assert_int_equal(it_import(&c, NULL, 0, 1, db), 0);
	assert_int_equal(c.nruns, 2);
	for (i = 0; i < 2; i++) {
		assert_string_equal(c.runs[i].format, "opencode");
		k = it_count(&c, c.runs[i].id);
		if (!strcmp(c.runs[i].name, "Subagent: check build")) {
			/* the parent agent's prompt: not a person's */
			IT_EXPECT(k, 1, 0, 0, 0, 0);
			sub = i;
			continue;
		}
		/* rows inserted out of order come back in time order */
		IT_EXPECT(k, 3, 1, 2, 2, 1);
		assert_int_equal(k.compile, 1);
	}
	assert_true(sub >= 0);
	/* the part row whose data is not JSON */
	assert_int_equal(c.nwarn, 1);
	assert_non_null(strstr(c.warns, "not a JSON object"));
	it_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_corpus),
		cmocka_unit_test(t_not_cline),
		cmocka_unit_test(t_otel_parents),
		cmocka_unit_test(t_sts_fixture),
		cmocka_unit_test(t_aider_fixture),
		cmocka_unit_test(t_cline_task),
		cmocka_unit_test(t_otel_fixture),
		cmocka_unit_test(t_opencode_tree),
		cmocka_unit_test(t_opencode_db),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
