/*
 * t_hook.c - the hook mapping (import/hook.c): agent hook events recorded
 * as the events of the session's run, as `ktraj hook` records them.  The
 * events are written here after the documented hook inputs (Claude Code
 * "Hook Input", Gemini CLI docs/hooks/reference.md, Codex notify).
 */
#include "testutil.h"
#include <cjson/cJSON.h>
#include "../../import/import.h"

typedef struct it_ctx {
	char *dir, path[4200];
	kt_store *s;
	char run[KT_RUN_ID_HEX + 1]; /* the session's run (rec) */
	const char *why;             /* the last refusal (rec) */
	int kind;                    /* the last event read (event) */
	uint64_t parent;
} it_ctx;

/* cmocka setup and teardown: a fresh store per test in *state. */
static int it_open(void **state)
{
	it_ctx *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	c->s = tu_store_new(&c->dir, c->path, sizeof(c->path), "s.ktraj", 0);
	*state = c;
	return 0;
}

static int it_close(void **state)
{
	it_ctx *c = *state;

	tu_store_gone(c->s, c->dir);
	free(c);
	return 0;
}

/* Record one event of agent (raw JSON text) into c's store; the session's
 * run id in c->run, a refusal in c->why.  Returns kt_hook_session's or
 * kt_hook_record's code. */
static int rec(it_ctx *c, const char *agent, const char *json)
{
	cJSON *in = cJSON_Parse(json);
	kt_hook h;
	int rc, exists, refused;

	assert_non_null(in);
	rc = kt_hook_session(&h, agent, in,
			     kt_hook_key_has_nul(json, strlen(json), "session_id"));
	if (!rc) {
		assert_int_equal(kt_record_run(c->s, h.name, h.source, h.run,
					       &exists, &refused), 0);
		h.s = c->s;
		rc = kt_hook_record(&h, in);
		memcpy(c->run, h.run, sizeof(h.run));
	}
	c->why = h.why;
	kt_hook_free(&h);
	cJSON_Delete(in);
	return rc;
}

/* Event seq of c's run as a parsed payload (caller deletes); its kind and
 * parent in c. */
static cJSON *event(it_ctx *c, uint64_t seq)
{
	kt_event ev;

	assert_int_equal(kt_event_get(c->s, c->run, seq, &ev), 0);
	c->kind = ev.kind;
	c->parent = ev.parent;
	return cJSON_ParseWithLength(ev.payload, ev.payload_len);
}

static void t_session_refused(void **state)
{
	it_ctx *c = *state;

	assert_int_equal(rec(c, "claude-code",
			     "{\"hook_event_name\":\"Stop\",\"last_assistant_message\":\"x\"}"), KT_EINVAL);
	assert_string_equal(c->why, "the hook input has no usable session id");
	assert_int_equal(rec(c, "claude-code",
			     "{\"hook_event_name\":\"Stop\",\"session_id\":\"a\\u0000b\"}"), KT_EINVAL);
	assert_non_null(strstr(c->why, "holds a NUL"));
	assert_int_equal(rec(c, "gemini-cli",
			     "{\"hook_event_name\":\"AfterAgent\",\"session_id\":\"a\\tb\"}"), KT_EINVAL);
	assert_non_null(strstr(c->why, "control characters"));
	/* nothing was recorded for any of them */
	assert_int_equal(kt_run_resolve(c->s, "claude-code:a", c->run), KT_ENOTFOUND);
}

static void t_key_has_nul(void **state)
{
	const char *nul = "{\"session_id\":\"a\\u0000b\"}";
	/* an escaped backslash before u0000 is a backslash, no NUL */
	const char *bs = "{\"session_id\":\"a\\\\u0000b\"}";
	const char *other = "{\"session_id\":\"ab\",\"x\":\"\\u0000\"}";

	(void)state;
	assert_int_equal(kt_hook_key_has_nul(nul, strlen(nul), "session_id"), 1);
	assert_int_equal(kt_hook_key_has_nul(bs, strlen(bs), "session_id"), 0);
	assert_int_equal(kt_hook_key_has_nul(other, strlen(other), "session_id"), 0);
	assert_int_equal(kt_hook_key_has_nul(NULL, 0, "session_id"), 0);
}

static void t_handles(void **state)
{
	(void)state;
	assert_int_equal(kt_hook_handles("claude-code", "PreToolUse"), 1);
	assert_int_equal(kt_hook_handles("claude-code", "Notification"), 0);
	assert_int_equal(kt_hook_handles("gemini-cli", "PreToolUse"), 0);
	assert_int_equal(kt_hook_handles("gemini-cli", "AfterTool"), 1);
	assert_int_equal(kt_hook_handles(NULL, "Stop"), 0);
}

/* A PreToolUse without tool_use_id (older Claude Code) and its
 * PostToolUse: the result finds its call by tool and input. */
static void t_claude_tool_pair(void **state)
{
	it_ctx *c = *state;
	cJSON *p;
	kt_run_info ri;

	assert_int_equal(rec(c, "claude-code",
			     "{\"hook_event_name\":\"PreToolUse\",\"session_id\":\"s1\","
			     "\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"}}"), 0);
	assert_int_equal(rec(c, "claude-code",
			     "{\"hook_event_name\":\"PostToolUse\",\"session_id\":\"s1\","
			     "\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"},"
			     "\"tool_response\":{\"stdout\":\"a\",\"stderr\":\"b\","
			     "\"interrupted\":true}}"), 0);
	assert_int_equal(kt_run_get(c->s, c->run, &ri), 0);
	assert_string_equal(ri.name, "claude-code:s1");
	assert_string_equal(ri.format, "claude_code_hook");
	assert_int_equal(ri.n_events, 2);
	p = event(c, 1);
	assert_int_equal(c->kind, KT_KIND_TOOL_CALL);
	assert_string_equal(kt_json_str(p, "call_id"), "hook-1");
	cJSON_Delete(p);
	p = event(c, 2);
	assert_int_equal(c->kind, KT_KIND_TOOL_RESULT);
	assert_int_equal(c->parent, 1);
	assert_string_equal(kt_json_str(p, "call_id"), "hook-1");
	assert_string_equal(kt_json_str(p, "output"), "a\nb");
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(p, "ok")));
	cJSON_Delete(p);
}

/* Out of memory in the parses a hook event makes of what is stored (the
 * run's calls, to pair a result) or of the transcript (Stop without
 * last_assistant_message): each allocation of them failed in turn is
 * KT_ENOMEM, "out of memory", nothing recorded; not a result paired with
 * no call, nor a Stop without text.  Then without failures: recorded. */
static void oom_sweep(it_ctx *c, const char *json, uint64_t n_before)
{
	kt_run_info ri;
	long nth, left;
	int rc;

	for (nth = 0;; nth++) {
		kt_cjson_fail_at(nth);
		rc = rec(c, "claude-code", json);
		left = kt_cjson_fail_at(-1);
		if (left >= 0)
			break;
		assert_int_equal(rc, KT_ENOMEM);
		assert_string_equal(c->why, "out of memory");
		assert_int_equal(kt_run_get(c->s, c->run, &ri), 0);
		assert_int_equal(ri.n_events, n_before);
	}
	/* some allocation of those parses was failed */
	assert_true(nth > 0);
	assert_int_equal(rc, 0);
	assert_int_equal(kt_run_get(c->s, c->run, &ri), 0);
	assert_int_equal(ri.n_events, n_before + 1);
}

static void t_claude_oom_pair(void **state)
{
	it_ctx *c = *state;
	cJSON *p;

	assert_int_equal(rec(c, "claude-code",
			     "{\"hook_event_name\":\"PreToolUse\",\"session_id\":\"s3\","
			     "\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"}}"), 0);
	oom_sweep(c, "{\"hook_event_name\":\"PostToolUse\",\"session_id\":\"s3\","
		     "\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"},"
		     "\"tool_response\":{\"stdout\":\"a\"}}", 1);
	p = event(c, 2);
	assert_int_equal(c->kind, KT_KIND_TOOL_RESULT);
	assert_int_equal(c->parent, 1);
	cJSON_Delete(p);
}

static void t_claude_oom_stop(void **state)
{
	it_ctx *c = *state;
	char tr[4300], json[9000];
	cJSON *p;
	FILE *f;

	assert_int_equal(rec(c, "claude-code",
			     "{\"hook_event_name\":\"UserPromptSubmit\","
			     "\"session_id\":\"s3\",\"prompt\":\"go\"}"), 0);
	snprintf(tr, sizeof(tr), "%s/t.jsonl", c->dir);
	f = fopen(tr, "w");
	assert_non_null(f);
	fputs("{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":"
	      "\"text\",\"text\":\"done\"}]}}\n", f);
	fclose(f);
	snprintf(json, sizeof(json), "{\"hook_event_name\":\"Stop\","
		 "\"session_id\":\"s3\",\"transcript_path\":\"%s\"}", tr);
	oom_sweep(c, json, 1);
	p = event(c, 2);
	assert_int_equal(c->kind, KT_KIND_MESSAGE);
	assert_string_equal(kt_json_str(p, "text"), "done");
	cJSON_Delete(p);
}

/* Output over 64 KiB: the inline output is cut, the whole is a blob. */
static void t_claude_big_output(void **state)
{
	it_ctx *c = *state;
	char *json, *big;
	unsigned char h[KT_HASH_LEN];
	void *data;
	size_t len, n = 100000;
	cJSON *p;

	big = malloc(n + 1);
	json = malloc(n + 300);
	assert_non_null(big);
	assert_non_null(json);
	memset(big, 'x', n);
	big[n] = 0;
	snprintf(json, n + 300,
		 "{\"hook_event_name\":\"PostToolUse\",\"session_id\":\"s2\","
		 "\"tool_use_id\":\"t9\",\"tool_name\":\"Read\","
		 "\"tool_response\":\"%s\"}", big);
	assert_int_equal(rec(c, "claude-code", json), 0);
	p = event(c, 1);
	assert_int_equal(c->kind, KT_KIND_TOOL_RESULT);
	assert_int_equal(c->parent, 0); /* no tool_call with id t9 */
	assert_string_equal(kt_json_str(p, "call_id"), "t9");
	assert_int_equal(strlen(kt_json_str(p, "output")), 64 * 1024);
	assert_int_equal(kt_unhex(kt_json_str(p, "output_blob"), h, KT_HASH_LEN), 0);
	assert_int_equal(kt_blob_get(c->s, h, &data, &len), 0);
	assert_int_equal(len, n);
	assert_memory_equal(data, big, n);
	free(data);
	cJSON_Delete(p);
	free(big);
	free(json);
}

/* Gemini CLI: BeforeAgent's parts are joined; AfterTool records a call
 * and its result; a prompt without text is refused. */
static void t_gemini(void **state)
{
	it_ctx *c = *state;
	cJSON *p;

	assert_int_equal(rec(c, "gemini-cli",
			     "{\"hook_event_name\":\"BeforeAgent\",\"session_id\":\"g\","
			     "\"prompt\":[{\"text\":\"fix \"},\"the bug\",{\"inlineData\":1}]}"), 0);
	assert_int_equal(rec(c, "gemini-cli",
			     "{\"hook_event_name\":\"BeforeAgent\",\"session_id\":\"g\","
			     "\"prompt\":5}"), KT_EINVAL);
	assert_non_null(strstr(c->why, "holds no text"));
	assert_int_equal(rec(c, "gemini-cli",
			     "{\"hook_event_name\":\"AfterTool\",\"session_id\":\"g\","
			     "\"tool_name\":\"read_file\",\"tool_input\":{\"path\":\"a\"},"
			     "\"tool_response\":{\"llmContent\":\"body\",\"error\":null}}"), 0);
	p = event(c, 1);
	assert_int_equal(c->kind, KT_KIND_MESSAGE);
	assert_string_equal(kt_json_str(p, "text"), "fix the bug");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(p, "human")));
	cJSON_Delete(p);
	p = event(c, 2);
	assert_int_equal(c->kind, KT_KIND_TOOL_CALL);
	assert_string_equal(kt_json_str(p, "call_id"), "gemini-2");
	cJSON_Delete(p);
	p = event(c, 3);
	assert_int_equal(c->kind, KT_KIND_TOOL_RESULT);
	assert_int_equal(c->parent, 2);
	assert_string_equal(kt_json_str(p, "output"), "body");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(p, "ok")));
	cJSON_Delete(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(t_session_refused, it_open, it_close),
		cmocka_unit_test(t_key_has_nul),
		cmocka_unit_test(t_handles),
		cmocka_unit_test_setup_teardown(t_claude_oom_pair, it_open,
						it_close),
		cmocka_unit_test_setup_teardown(t_claude_oom_stop, it_open,
						it_close),
		cmocka_unit_test_setup_teardown(t_claude_tool_pair, it_open, it_close),
		cmocka_unit_test_setup_teardown(t_claude_big_output, it_open, it_close),
		cmocka_unit_test_setup_teardown(t_gemini, it_open, it_close),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
