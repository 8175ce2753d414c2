/*
 * t_import_agents.c - the agent session importers of Gemini CLI, Copilot
 * CLI, codex exec, Pi and Amp: exact counts on every corpus sample of each
 * format (skipped when the corpus is absent) and on fixtures written from
 * each agent's record layout (tests/data/import/<format>/): human vs agent
 * messages, tool calls paired with their results, edits, compile and
 * bench events through the shared analysis, the bad-line warnings, the
 * Pi branch links and the unknown times of codex exec.
 */
#include "testutil.h"
#include "imp_testlib.h"

typedef struct want {
	int msg, human, call, result, edit, compile, bench, other;
} want;

static it_counts one(it_ctx *c, const char *path, const char *fmt,
		     const char *force)
{
	it_counts k;

	assert_int_equal(it_import(c, force, 0, 1, path), 0);
	assert_int_equal(c->nruns, 1);
	assert_string_equal(c->runs[0].format, fmt);
	k = it_count(c, c->runs[0].id);
	return k;
}

static void expect(it_counts k, want w)
{
	IT_EXPECT(k, w.msg, w.human, w.call, w.result, w.edit);
	assert_int_equal(k.compile, w.compile);
	assert_int_equal(k.bench, w.bench);
	assert_int_equal(k.other, w.other);
}

static void corpus_one(const char *rel, const char *fmt, want w, int nwarn)
{
	char p[4096];
	it_ctx c;

	if (!it_corpus(p, sizeof(p), rel))
		skip();
	it_open(&c);
	expect(one(&c, p, fmt, NULL), w);
	assert_int_equal(c.nwarn, nwarn);
	it_close(&c);
}

static void t_corpus(void **st)
{
	(void)st;
	/* 2 reasoning items and the reply; one command seen twice */
	corpus_one("codex_exec/openai-codex_docs_exec_sample.jsonl",
		   "codex_exec", (want){ 3, 0, 1, 1, 0, 0, 0, 0 }, 0);
	/* 7 tool calls with inline results; 4 write_file */
	corpus_one("gemini_cli/vct_legacy_session_2026-03-27.json",
		   "gemini_cli", (want){ 5, 1, 7, 7, 4, 0, 0, 0 }, 0);
	/* re-appended messages count once; /init and the CLI's own
	 * "Please continue" are not human; write_file then replace */
	corpus_one("gemini_cli/vct_session_2026-04-23.jsonl", "gemini_cli",
		   (want){ 12, 1, 12, 12, 2, 0, 0, 0 }, 0);
	/* 13 execution_start/complete pairs; 6 session events as notes; the
	 * autopilot nudge is no human message */
	corpus_one("copilot_cli/vct_events_2026-04-23.jsonl", "copilot_cli",
		   (want){ 9, 1, 13, 13, 0, 0, 0, 6 }, 0);
	/* only session events; the invalid line is reported */
	corpus_one("copilot_cli/richardpan_events_1.0.43.jsonl",
		   "copilot_cli", (want){ 0, 0, 0, 0, 0, 0, 0, 3 }, 1);
	/* timeline[] only; str_replace on files never seen: no edit, the
	 * create is one */
	corpus_one("copilot_cli/vct_legacy_session_2025-10-11.json",
		   "copilot_cli", (want){ 8, 1, 15, 15, 1, 0, 0, 0 }, 0);
	/* the redacted thought is dropped, the compaction is a system
	 * message, the non-JSON line is reported, the unknown entry not */
	corpus_one("pi_agent/agentsview_session_v3.jsonl", "pi_agent",
		   (want){ 6, 2, 1, 1, 0, 0, 0, 2 }, 1);
	corpus_one("amp/agentsview_T-tooluse.json", "amp",
		   (want){ 3, 1, 1, 1, 0, 0, 0, 0 }, 0);
	/* toolUseID and run{status,result}; no user text at all */
	corpus_one("amp/agentsview_T-amp-tool-result-schema.json", "amp",
		   (want){ 1, 0, 1, 1, 0, 0, 0, 0 }, 0);
}

static int count_op(const kt_event *ev, void *arg)
{
	int *n = arg;
	cJSON *pl = cJSON_Parse(ev->payload);
	const cJSON *op = cJSON_GetObjectItem(pl, "op");

	if (ev->kind == KT_KIND_EDIT && cJSON_IsString(op))
		n[!strcmp(op->valuestring, "create") ? 0 : 1]++;
	cJSON_Delete(pl);
	return 0;
}

/* Real Gemini output says which write_file created a file and which
 * overwrote one it had read: the edits agree. */
static void t_gemini_real_ops(void **st)
{
	char p[4096];
	it_ctx c;
	int n[2] = { 0, 0 };

	(void)st;
	if (!it_corpus(p, sizeof(p),
		       "gemini_cli/vct_legacy_session_2026-03-27.json"))
		skip();
	it_open(&c);
	one(&c, p, "gemini_cli", NULL);
	assert_int_equal(kt_event_foreach(c.s, c.runs[0].id, 1, 0, 0,
					  count_op, n), 0);
	/* "Successfully created and wrote to new file: .../CONTRIBUTING.md"
	 * and three "Successfully overwrote file: .../README*.md" */
	assert_int_equal(n[0], 1);
	assert_int_equal(n[1], 3);
	it_close(&c);
}

/* Payload of seq as a parsed object, its kind checked. */
static cJSON *at(it_ctx *c, uint64_t seq, int kind)
{
	int k;
	cJSON *pl = it_payload(c, c->runs[0].id, seq, &k, NULL, 0);

	assert_int_equal(k, kind);
	return pl;
}

static void t_codex_exec(void **st)
{
	char p[4096];
	it_ctx c;
	kt_event ev;
	cJSON *pl;

	(void)st;
	it_fixture(p, sizeof(p), "codex_exec/build.jsonl");
	it_open(&c);
	/* started/updated/completed of one item: one call, one result; the
	 * call never completed (turn.failed) has no result; bash -lc '...'
	 * taken off: nvcc is a compile, the timing a bench */
	expect(one(&c, p, "codex_exec", NULL),
	       (want){ 3, 0, 5, 4, 0, 1, 1, 0 });
	assert_int_equal(c.nwarn, 1);
	assert_non_null(strstr(c.warns, "build.jsonl:13:"));
	assert_int_equal(kt_event_get(c.s, c.runs[0].id, 4, &ev), 0);
	assert_int_equal(ev.kind, KT_KIND_COMPILE);
	assert_true(ev.ts_ns == KT_TS_UNKNOWN);
	/* the turn's usage on its first reply, cached taken out of input */
	pl = at(&c, 12, KT_KIND_MESSAGE);
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(pl, "usage"),
					     "input")->valueint, 600);
	cJSON_Delete(pl);
	it_close(&c);
}

static void t_gemini(void **st)
{
	char p[4096];
	it_ctx c;
	cJSON *pl;
	char *s;

	(void)st;
	it_fixture(p, sizeof(p), "gemini_cli/session.jsonl");
	it_open(&c);
	/* m1's first copy has no tool calls: the last copy wins */
	expect(one(&c, p, "gemini_cli", NULL),
	       (want){ 6, 1, 3, 3, 2, 1, 0, 0 });
	/* a line that is JSON but no record */
	assert_int_equal(c.nwarn, 1);
	assert_non_null(strstr(c.warns, "session.jsonl:12:"));
	s = it_cat(&c, c.runs[0].id, "/w/vadd.cu", 0);
	assert_non_null(s);
	assert_string_equal(s, "__global__ void vadd(){}\n");
	free(s);
	/* "Exit Code: 1" fails the call */
	pl = at(&c, 10, KT_KIND_TOOL_RESULT);
	assert_false(cJSON_IsTrue(cJSON_GetObjectItem(pl, "ok")));
	assert_int_equal(cJSON_GetObjectItem(pl, "exit_code")->valueint, 1);
	cJSON_Delete(pl);
	/* the /init expansion: a command, not the person's words */
	pl = at(&c, 12, KT_KIND_MESSAGE);
	assert_false(cJSON_IsTrue(cJSON_GetObjectItem(pl, "human")));
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(pl, "flags"),
					       0)->valuestring, "command");
	cJSON_Delete(pl);
	it_close(&c);

	it_fixture(p, sizeof(p), "gemini_cli/session.json");
	it_open(&c);
	expect(one(&c, p, "gemini_cli", NULL),
	       (want){ 2, 1, 3, 3, 1, 1, 0, 0 });
	assert_int_equal(c.nwarn, 1);
	assert_non_null(strstr(c.warns, "session.json:15:"));
	/* a file's text that reads like a shell's exit is no failure */
	pl = at(&c, 7, KT_KIND_TOOL_RESULT);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(pl, "ok")));
	cJSON_Delete(pl);
	/* the whole-file read seeds the file: the write changes it */
	pl = at(&c, 10, KT_KIND_EDIT);
	assert_string_equal(cJSON_GetObjectItem(pl, "op")->valuestring,
			    "modify");
	assert_false(cJSON_IsNull(cJSON_GetObjectItem(pl, "before")));
	cJSON_Delete(pl);
	it_close(&c);
}

static void t_copilot(void **st)
{
	char p[4096];
	it_ctx c;
	char *s;

	(void)st;
	it_fixture(p, sizeof(p), "copilot_cli/events.jsonl");
	it_open(&c);
	expect(one(&c, p, "copilot_cli", NULL),
	       (want){ 5, 1, 3, 3, 2, 1, 0, 1 });
	assert_int_equal(c.nwarn, 1);
	assert_non_null(strstr(c.warns, "events.jsonl:15:"));
	s = it_cat(&c, c.runs[0].id, "/w/k.cu", 0);
	assert_non_null(s);
	assert_string_equal(s, "int b;\n");
	free(s);
	it_close(&c);
}

static void t_pi(void **st)
{
	char p[4096];
	it_ctx c;
	kt_event ev;
	cJSON *pl, *x;

	(void)st;
	it_fixture(p, sizeof(p), "pi_agent/branch.jsonl");
	it_open(&c);
	expect(one(&c, p, "pi_agent", NULL),
	       (want){ 4, 2, 4, 4, 2, 1, 0, 0 });
	assert_int_equal(c.nwarn, 1);
	assert_non_null(strstr(c.warns, "branch.jsonl:12:"));
	/* e6 goes back to e3: a branch, hung on e3's last event (the
	 * write's result, seq 4), not on the edit before it */
	pl = at(&c, 9, KT_KIND_MESSAGE);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(pl, "human")));
	x = cJSON_GetObjectItem(pl, "extra");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(x, "branch")));
	assert_string_equal(cJSON_GetObjectItem(x, "parentId")->valuestring, "e3");
	cJSON_Delete(pl);
	assert_int_equal(kt_event_get(c.s, c.runs[0].id, 9, &ev), 0);
	assert_int_equal(ev.parent, 4);
	/* a command the person ran with ! */
	assert_int_equal(kt_event_get(c.s, c.runs[0].id, 14, &ev), 0);
	assert_int_equal(ev.kind, KT_KIND_TOOL_CALL);
	assert_string_equal(ev.actor, "human");
	it_close(&c);
}

static void t_amp(void **st)
{
	char p[4096];
	it_ctx c;
	cJSON *pl;
	char *s;

	(void)st;
	it_fixture(p, sizeof(p), "amp/T-build.json");
	it_open(&c);
	/* a result for a call never made is kept, unpaired */
	expect(one(&c, p, "amp", NULL), (want){ 3, 1, 3, 4, 2, 1, 0, 0 });
	assert_int_equal(c.nwarn, 1);
	s = it_cat(&c, c.runs[0].id, "/w/k.cu", 0);
	assert_non_null(s);
	assert_string_equal(s, "int b;\n");
	free(s);
	/* run.result {output, exitCode}: exit 1 fails the call */
	pl = at(&c, 10, KT_KIND_TOOL_RESULT);
	assert_false(cJSON_IsTrue(cJSON_GetObjectItem(pl, "ok")));
	assert_int_equal(cJSON_GetObjectItem(pl, "exit_code")->valueint, 1);
	cJSON_Delete(pl);
	it_close(&c);
}

/* --strict keeps nothing of a source with a bad line; --format forces. */
static void t_strict_force(void **st)
{
	char p[4096];
	it_ctx c;

	(void)st;
	it_fixture(p, sizeof(p), "pi_agent/branch.jsonl");
	it_open(&c);
	assert_int_equal(it_import(&c, NULL, 1, 1, p), KT_EPARSE);
	assert_int_equal(c.nruns, 0);
	it_close(&c);
	/* forced, the same run as detected */
	it_open(&c);
	assert_int_equal(it_import(&c, "pi_agent", 0, 1, p), 0);
	assert_int_equal(c.nruns, 1);
	assert_string_equal(c.runs[0].format, "pi_agent");
	assert_string_equal(c.runs[0].id, "46b0920fa95d05d96eec7d43f0c4233a");
	it_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_corpus),
		cmocka_unit_test(t_codex_exec),
		cmocka_unit_test(t_gemini),
		cmocka_unit_test(t_gemini_real_ops),
		cmocka_unit_test(t_copilot),
		cmocka_unit_test(t_pi),
		cmocka_unit_test(t_amp),
		cmocka_unit_test(t_strict_force),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
