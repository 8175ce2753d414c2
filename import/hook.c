/*
 * hook.c - live recording from inside the agents: one hook event of Claude
 * Code (https://docs.claude.com/en/docs/claude-code/hooks, "Hook Input"),
 * Gemini CLI (docs/hooks/reference.md of google-gemini/gemini-cli) or a
 * Codex `notify` payload (Codex docs/config.md "notify") mapped to the
 * ktraj events of the session's run (import.h "Live recording from agent
 * hooks"; `ktraj hook` in cli/cmd_hook.c reads stdin and prints).
 *
 * Every event goes through kt_record, the durable path of `ktraj append`:
 * one transaction per event, committed before the hook returns, so what the
 * agent did is in the store while the session goes on.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "import.h"
#include "imp_claude_int.h"

/* rc with the refusal's message for the caller to print. */
static int refuse(kt_hook *r, int rc, const char *why)
{
	r->why = why;
	return rc;
}

/* Append one event (payload consumed).  blob: the whole tool output when
 * the payload's inline "output" was cut. */
static int put(kt_hook *r, int kind, const char *actor, uint64_t parent,
	       cJSON *payload, const char *blob, size_t blob_len)
{
	kt_rec_event e;
	int rc;

	if (!payload)
		return refuse(r, KT_ENOMEM, "out of memory");
	kt_rec_event_init(&e, kind, actor, parent, payload);
	e.new_name = r->name;
	e.new_source = r->source;
	e.new_meta = r->meta;
	if (blob) {
		e.blob = blob;
		e.blob_len = blob_len;
		e.blob_key = "output_blob";
	}
	rc = kt_record(r->s, r->run, &e);
	cJSON_Delete(payload);
	return rc;
}

static cJSON *message(const char *role, int human, const char *text)
{
	cJSON *p = cJSON_CreateObject();

	cJSON_AddStringToObject(p, "role", role);
	cJSON_AddBoolToObject(p, "human", human);
	cJSON_AddStringToObject(p, "text", text);
	return p;
}

/* ---- the run of a session ------------------------------------------------ */

/*
 * Whether the string `key` of the JSON object text buf (len bytes) holds a
 * NUL, a \u0000 escape: cJSON decodes strings into C strings and cuts
 * them there, so sessions "a\u0000b" and "a\u0000c" would record into
 * one run "a".  Parses a copy with each such escape made \u0001 (same
 * length), only when the text has one.  1 when out of memory too: the
 * caller refuses.
 */
int kt_hook_key_has_nul(const char *buf, size_t len, const char *key)
{
	char *cp;
	cJSON *x;
	const char *v;
	int has;

	if (!buf || !memmem(buf, len, "\\u0000", 6))
		return 0;
	if (!(cp = kt_memdupz(buf, len)))
		return 1;
	for (size_t i = 0; i + 1 < len; i++)
		if (cp[i] == '\\') {
			if (i + 6 <= len && !memcmp(cp + i, "\\u0000", 6))
				cp[i + 5] = '1';
			i++; /* skip the escaped character: an escaped
			      * backslash before "u0000" is no NUL */
		}
	x = cJSON_ParseWithLength(cp, len);
	v = kt_json_str(x, key);
	has = !x || (v && strchr(v, '\x01'));
	cJSON_Delete(x);
	free(cp);
	return has;
}

/* The agents whose hooks record: the runs are "<agent>:<session>" of
 * source `source`, the session id under key `id_key` of the event. */
static const struct hook_agent {
	const char *agent, *source, *id_key;
	int transcript;		/* meta keeps transcript_path */
} hook_agents[] = {
	{ "claude-code", "claude_code_hook", "session_id", 1 },
	{ "gemini-cli", "gemini_cli_hook", "session_id", 1 },
	{ "codex", "codex_notify", "thread-id", 0 },
};

static const struct hook_agent *find_agent(const char *agent)
{
	for (size_t i = 0; i < sizeof(hook_agents) / sizeof(*hook_agents); i++)
		if (agent && !strcmp(hook_agents[i].agent, agent))
			return &hook_agents[i];
	return NULL;
}

int kt_hook_session(kt_hook *r, const char *agent, const cJSON *in, int nul)
{
	const struct hook_agent *a = find_agent(agent);
	const char *session;

	memset(r, 0, sizeof(*r));
	if (!a)
		return KT_EINVAL;
	session = kt_json_str(in, a->id_key);
	r->meta = cJSON_CreateObject();
	if (session)
		cJSON_AddStringToObject(r->meta, "session", session);
	if (kt_json_str(in, "cwd"))
		cJSON_AddStringToObject(r->meta, "cwd", kt_json_str(in, "cwd"));
	if (a->transcript && kt_json_str(in, "transcript_path"))
		cJSON_AddStringToObject(r->meta, "transcript",
					kt_json_str(in, "transcript_path"));
	if (nul)
		return refuse(r, KT_EINVAL, "the hook input's session id holds a NUL "
			      "(\\u0000): refused, it would cut the id and "
			      "record into another session's run");
	if (!session || !*session || strlen(session) > 200)
		return refuse(r, KT_EINVAL, "the hook input has no usable session id");
	for (const char *p = session; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return refuse(r, KT_EINVAL, "the hook input's session id has "
				      "control characters: refused");
	/* the prefix keeps a hex session id from reading as a run id prefix */
	snprintf(r->name, sizeof(r->name), "%s:%s", a->agent, session);
	r->source = a->source;
	r->agent = a->agent;
	return 0;
}

void kt_hook_free(kt_hook *r)
{
	cJSON_Delete(r->meta);
	r->meta = NULL;
}

/* SessionStart (its "source") or SessionEnd (its "reason") as a note; the
 * same event names in Claude Code and Gemini CLI. */
static int session_note(kt_hook *r, const cJSON *in, const char *ev)
{
	const char *why = kt_json_str(in, !strcmp(ev, "SessionStart") ? "source" : "reason");
	char t[300];
	cJSON *p = cJSON_CreateObject();

	snprintf(t, sizeof(t), "%s%s%s", ev, why ? ": " : "", why ? why : "");
	cJSON_AddStringToObject(p, "text", t);
	cJSON_AddStringToObject(p, "hook", ev);
	if (why)
		cJSON_AddStringToObject(p, "source", why);
	if (kt_json_str(in, "model"))
		cJSON_AddStringToObject(p, "model", kt_json_str(in, "model"));
	return put(r, KT_KIND_NOTE, "system", 0, p, NULL, 0);
}

/* ---- Claude Code ---------------------------------------------------------- */

/* The text a tool returned, from PostToolUse's tool_response: Bash gives
 * {stdout, stderr, interrupted}, Read {file: {content}}, most tools an
 * object of their own, some a string. */
static char *tool_output(const cJSON *resp, int *ok)
{
	const cJSON *file = cJSON_GetObjectItemCaseSensitive(resp, "file");
	const char *out = kt_json_str(resp, "stdout"), *err = kt_json_str(resp, "stderr");
	char *t;

	if (cJSON_IsString(resp))
		return strdup(resp->valuestring);
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(resp, "interrupted")) ||
	    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(resp, "is_error")))
		*ok = 0;
	if (out || err) {
		size_t n = strlen(out ? out : "") + strlen(err ? err : "") + 2;

		if (!(t = malloc(n)))
			return NULL;
		snprintf(t, n, "%s%s%s", out ? out : "",
			 out && *out && err && *err ? "\n" : "", err ? err : "");
		return t;
	}
	if (kt_json_str(file, "content"))
		return strdup(kt_json_str(file, "content"));
	if (!resp)
		return strdup("");
	return cJSON_PrintUnformatted(resp);
}

struct calls {
	const char *id, *tool;  /* what to find (id may be NULL) */
	const char *args;       /* compact JSON of the input, for no id */
	uint64_t seq;           /* out: the tool_call, 0 none */
	char call_id[200];      /* out: its call_id */
	/* calls without a result, newest last (matching without an id) */
	struct open { uint64_t seq; char id[200]; } open[64];
	int nopen;
};

/* The tool_call a result answers: by tool_use_id, or (Claude Code before
 * tool_use_id was passed to hooks) the newest unanswered call of the same
 * tool with the same input.  KT_ENOMEM stops the walk: a stored payload
 * is JSON, so a parse that fails ran out of memory, and skipping the
 * event would pair the result with another call or none. */
static int find_call(const kt_event *ev, void *arg)
{
	struct calls *k = arg;
	int rc;
	cJSON *p = kt_cjson_parse(ev->payload, ev->payload_len, NULL, &rc);
	const char *id = kt_json_str(p, "call_id");
	int i;

	if (!p)
		return rc == KT_ENOMEM ? rc : 0;
	if (ev->kind == KT_KIND_TOOL_CALL && id) {
		char *a = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(p, "args"));

		if (k->id && !strcmp(id, k->id)) {
			k->seq = ev->seq;
			snprintf(k->call_id, sizeof(k->call_id), "%s", id);
		} else if (!k->id && kt_json_str(p, "tool") && k->tool &&
			   !strcmp(kt_json_str(p, "tool"), k->tool) && a && k->args &&
			   !strcmp(a, k->args)) {
			if (k->nopen == 64) {
				memmove(k->open, k->open + 1, 63 * sizeof(k->open[0]));
				k->nopen--;
			}
			k->open[k->nopen].seq = ev->seq;
			snprintf(k->open[k->nopen++].id, sizeof(k->open[0].id), "%s", id);
		}
		free(a);
	} else if (ev->kind == KT_KIND_TOOL_RESULT && id && !k->id) {
		for (i = 0; i < k->nopen; i++)
			if (!strcmp(k->open[i].id, id)) {
				memmove(k->open + i, k->open + i + 1,
					(size_t)(k->nopen - i - 1) * sizeof(k->open[0]));
				k->nopen--;
				break;
			}
	}
	cJSON_Delete(p);
	return 0;
}

static int cc_tool_result(kt_hook *r, const cJSON *in, int failed)
{
	struct calls *k = calloc(1, sizeof(*k));
	const cJSON *resp = cJSON_GetObjectItemCaseSensitive(in, "tool_response");
	char *args = NULL, *out;
	const char *cut_blob = NULL;
	size_t len, kept;
	int ok = !failed, rc;
	cJSON *p;

	if (!k)
		return refuse(r, KT_ENOMEM, "out of memory");
	k->id = kt_json_str(in, "tool_use_id");
	k->tool = kt_json_str(in, "tool_name");
	args = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(in, "tool_input"));
	k->args = args;
	rc = kt_event_foreach_body(r->s, r->run, 1, 0, 0, find_call, k);
	if (rc) {
		free(args);
		free(k);
		return rc == KT_ENOMEM ? refuse(r, rc, "out of memory") : rc;
	}
	if (!k->id && k->nopen) {
		k->seq = k->open[k->nopen - 1].seq;
		snprintf(k->call_id, sizeof(k->call_id), "%s", k->open[k->nopen - 1].id);
	}
	out = failed ? strdup(kt_json_str(in, "error") ? kt_json_str(in, "error") : "")
		     : tool_output(resp, &ok);
	if (!out) {
		free(args);
		free(k);
		return refuse(r, KT_ENOMEM, "out of memory");
	}
	len = strlen(out);
	/* the one mapping of a Claude Code tool result, shared with the
	 * transcript importer: output over 64 KiB goes whole to a blob */
	p = cJSON_CreateObject();
	if (!p || cc_result_head(p, k->seq ? k->call_id : k->id ? k->id : "",
				 ok, out, len, &kept)) {
		cJSON_Delete(p);
		free(out);
		free(args);
		free(k);
		return refuse(r, KT_ENOMEM, "out of memory");
	}
	if (kept < len)
		cut_blob = out;
	rc = put(r, KT_KIND_TOOL_RESULT, "tool", k->seq, p, cut_blob, len);
	free(out);
	free(args);
	free(k);
	return rc;
}

/* The text of the transcript's last assistant line that has text: the
 * Stop hook of Claude Code before last_assistant_message existed.  Only a
 * regular file is read: a FIFO would hold the hook, and the agent that
 * waits for it, until something writes; a device (/dev/zero) is one
 * endless line.  NULL when there is none; *rc gets 0, or KT_ENOMEM when a
 * line's parse ran out of memory (the text read may not be the last). */
static char *last_assistant_text(const char *path, int *rc)
{
	int fd = path ? open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
	FILE *f = NULL;
	char *line = NULL, *best = NULL;
	size_t cap = 0;
	struct stat st;

	*rc = 0;
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		f = fdopen(fd, "r");
	if (!f) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while (getline(&line, &cap, f) > 0) {
		cJSON *o, *c;
		const cJSON *b;

		if (!strstr(line, "\"assistant\"") || !strstr(line, "\"text\""))
			continue;
		if (!(o = kt_cjson_parse(line, strlen(line), NULL, rc)) &&
		    *rc == KT_ENOMEM)
			break;
		*rc = 0;
		c = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(o, "message"), "content");
		if (kt_json_str(o, "type") && !strcmp(kt_json_str(o, "type"), "assistant"))
			cJSON_ArrayForEach(b, c)
				if (kt_json_str(b, "type") && !strcmp(kt_json_str(b, "type"), "text") &&
				    kt_json_str(b, "text")) {
					free(best);
					best = strdup(kt_json_str(b, "text"));
				}
		cJSON_Delete(o);
	}
	free(line);
	fclose(f);
	if (*rc) {
		free(best);
		best = NULL;
	}
	return best;
}

/* ---- the events each agent's hook records --------------------------------- */

/* What one hook event records in the session's run r (open): in is the
 * event, ev its hook_event_name.  0 or a KT_E* code (r->why set for a
 * refusal). */
typedef int (*hook_fn)(kt_hook *r, const cJSON *in, const char *ev);

/* UserPromptSubmit (Claude Code): what the
 * person typed, before the agent adds anything. */
static int on_prompt(kt_hook *r, const cJSON *in, const char *ev)
{
	(void)ev;
	return put(r, KT_KIND_MESSAGE, "human", 0,
		   message("user", 1, kt_json_str(in, "prompt") ? kt_json_str(in, "prompt") : ""),
		   NULL, 0);
}

static int cc_pre_tool(kt_hook *r, const cJSON *in, const char *ev)
{
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(in, "tool_input");
	char id[64];
	cJSON *p;

	(void)ev;
	p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "tool", kt_json_str(in, "tool_name") ?
				kt_json_str(in, "tool_name") : "unknown");
	if (kt_json_str(in, "tool_use_id")) {
		cJSON_AddStringToObject(p, "call_id", kt_json_str(in, "tool_use_id"));
	} else {
		/* no tool_use_id (older Claude Code): an id of our own
		 * that PostToolUse finds again by tool and input */
		kt_run_info ri;

		snprintf(id, sizeof(id), "hook-%llu",
			 (unsigned long long)(kt_run_get(r->s, r->run, &ri) ? 1 :
					      ri.n_events + 1));
		cJSON_AddStringToObject(p, "call_id", id);
	}
	cJSON_AddItemToObject(p, "args", cJSON_IsObject(args) ?
			      cJSON_Duplicate(args, 1) : cJSON_CreateObject());
	return put(r, KT_KIND_TOOL_CALL, "agent", 0, p, NULL, 0);
}

/* PostToolUse or PostToolUseFailure */
static int cc_post_tool(kt_hook *r, const cJSON *in, const char *ev)
{
	return cc_tool_result(r, in, !strcmp(ev, "PostToolUseFailure"));
}

static int cc_stop(kt_hook *r, const cJSON *in, const char *ev)
{
	char *text;
	int rc = 0;

	(void)ev;
	text = kt_json_str(in, "last_assistant_message") ?
		strdup(kt_json_str(in, "last_assistant_message")) :
		last_assistant_text(kt_json_str(in, "transcript_path"), &rc);
	if (rc)
		return refuse(r, rc, "out of memory");
	if (text)
		rc = put(r, KT_KIND_MESSAGE, "agent", 0,
			 message("assistant", 0, text), NULL, 0);
	free(text);
	return rc;
}

/* Append the text of a Part list to m as Gemini CLI's partToString
 * (packages/core/src/utils/partUtils.ts) reads one: a string is itself, a
 * part its "text", an array its items joined with nothing between them;
 * other parts (inline data, function calls) add nothing.  1 when some text
 * was found. */
static int parts_text(const cJSON *v, FILE *m)
{
	const cJSON *it;
	int found = 0;

	if (cJSON_IsString(v)) {
		fputs(v->valuestring, m);
		return 1;
	}
	if (cJSON_IsObject(v))
		return parts_text(cJSON_GetObjectItemCaseSensitive(v, "text"), m);
	if (cJSON_IsArray(v))
		cJSON_ArrayForEach(it, v) /* cJSON bounds the nesting */
			found |= parts_text(it, m);
	return found;
}

/*
 * What the user typed, from BeforeAgent's "prompt" (malloc'ed; NULL when
 * it holds no text: missing, a number, an object without "text", parts
 * without text).  Gemini CLI sends a string (packages/core/src/hooks/
 * types.ts BeforeAgentInput, built with partToString of the request); a
 * hook input written by another version may carry the request's parts
 * themselves, whose text is what was typed.
 */
static char *prompt_text(const cJSON *prompt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int found;

	if (!m)
		return NULL;
	found = parts_text(prompt, m);
	if (fclose(m) || !found) {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * Gemini CLI's hook events (docs/hooks/reference.md of google-gemini/
 * gemini-cli: JSON on stdin with session_id, transcript_path, cwd,
 * hook_event_name, timestamp).  SessionStart (source) and SessionEnd
 * (reason) -> note; BeforeAgent (prompt) -> the typed message, human;
 * AfterTool (tool_name, tool_input, tool_response {llmContent,
 * returnDisplay, error}) -> tool_call and its tool_result (Gemini CLI
 * gives a tool no id: one of our own); AfterAgent (prompt_response) -> the
 * agent's message.  Gemini CLI parses a hook's stdout as JSON: "{}".
 */
/* BeforeAgent: what the person typed, a string or text parts; a prompt
 * with no text is refused, not recorded as an empty human message (exit
 * 1 is a warning to Gemini CLI, the turn goes on) */
static int gm_before_agent(kt_hook *r, const cJSON *in, const char *ev)
{
	char *typed = prompt_text(cJSON_GetObjectItemCaseSensitive(in, "prompt"));
	int rc;

	(void)ev;
	if (!typed)
		return refuse(r, KT_EINVAL, "BeforeAgent: the prompt holds no text (a string or text parts): not recorded");
	rc = put(r, KT_KIND_MESSAGE, "human", 0, message("user", 1, typed),
		 NULL, 0);
	free(typed);
	return rc;
}

static int gm_after_agent(kt_hook *r, const cJSON *in, const char *ev)
{
	(void)ev;
	if (!kt_json_str(in, "prompt_response"))
		return 0;
	return put(r, KT_KIND_MESSAGE, "agent", 0,
		   message("assistant", 0, kt_json_str(in, "prompt_response")),
		   NULL, 0);
}

/* AfterTool: the call, then its result as Claude Code's PostToolUse would
 * give it */
static int gm_after_tool(kt_hook *r, const cJSON *in, const char *ev)
{
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(in, "tool_input"),
		    *resp = cJSON_GetObjectItemCaseSensitive(in, "tool_response"),
		    *err = cJSON_GetObjectItemCaseSensitive(resp, "error");
	const char *out = kt_json_str(resp, "llmContent") ? kt_json_str(resp, "llmContent") :
			  kt_json_str(resp, "returnDisplay");
	char id[64], *whole = NULL;
	kt_run_info ri;
	cJSON *res = cJSON_CreateObject(), *p;
	int failed = err && !cJSON_IsNull(err) && !cJSON_IsFalse(err), rc;

	(void)ev;
	snprintf(id, sizeof(id), "gemini-%llu",
		 (unsigned long long)(kt_run_get(r->s, r->run, &ri) ? 1 :
				      ri.n_events + 1));
	p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "tool", kt_json_str(in, "tool_name") ?
				kt_json_str(in, "tool_name") : "unknown");
	cJSON_AddStringToObject(p, "call_id", id);
	cJSON_AddItemToObject(p, "args", cJSON_IsObject(args) ?
			      cJSON_Duplicate(args, 1) : cJSON_CreateObject());
	rc = put(r, KT_KIND_TOOL_CALL, "agent", 0, p, NULL, 0);
	if (!out && resp)
		out = whole = cJSON_PrintUnformatted(resp);
	if (!rc && res) {
		cJSON_AddStringToObject(res, "tool_use_id", id);
		cJSON_AddStringToObject(res, "tool_response", out ? out : "");
		cJSON_AddStringToObject(res, "error", cJSON_IsString(err) ?
					err->valuestring : out ? out : "");
		rc = cc_tool_result(r, res, failed);
	}
	cJSON_Delete(res);
	free(whole);
	return rc;
}

/* (agent, event, handler), as git's table of commands: an event that is
 * not here (Notification, PreCompact, BeforeModel, ...) is not a turn and
 * records nothing. */
static const struct hook_event {
	const char *agent, *event;
	hook_fn fn;
} hook_events[] = {
	{ "claude-code", "SessionStart", session_note },
	{ "claude-code", "SessionEnd", session_note },
	{ "claude-code", "UserPromptSubmit", on_prompt },
	{ "claude-code", "PreToolUse", cc_pre_tool },
	{ "claude-code", "PostToolUse", cc_post_tool },
	{ "claude-code", "PostToolUseFailure", cc_post_tool },
	{ "claude-code", "Stop", cc_stop },
	{ "gemini-cli", "SessionStart", session_note },
	{ "gemini-cli", "SessionEnd", session_note },
	{ "gemini-cli", "BeforeAgent", gm_before_agent },
	{ "gemini-cli", "AfterTool", gm_after_tool },
	{ "gemini-cli", "AfterAgent", gm_after_agent },
};


int kt_hook_handles(const char *agent, const char *event)
{
	for (size_t i = 0; i < sizeof(hook_events) / sizeof(*hook_events); i++)
		if (agent && event && !strcmp(hook_events[i].agent, agent) &&
		    !strcmp(hook_events[i].event, event))
			return 1;
	return 0;
}

/* Codex's agent-turn-complete: the turn's input messages, typed by the
 * person, then the assistant's last message. */
static int codex_turn(kt_hook *r, const cJSON *in)
{
	const cJSON *m;
	int rc = 0;

	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(in, "input-messages"))
		if (!rc && cJSON_IsString(m))
			rc = put(r, KT_KIND_MESSAGE, "human", 0,
				 message("user", 1, m->valuestring), NULL, 0);
	if (!rc && kt_json_str(in, "last-assistant-message"))
		rc = put(r, KT_KIND_MESSAGE, "agent", 0,
			 message("assistant", 0, kt_json_str(in, "last-assistant-message")),
			 NULL, 0);
	return rc;
}

int kt_hook_record(kt_hook *r, const cJSON *in)
{
	const char *ev = kt_json_str(in, "hook_event_name");

	r->why = NULL;
	if (!r->s || !r->agent)
		return KT_EINVAL;
	if (!strcmp(r->agent, "codex"))
		return codex_turn(r, in);
	for (size_t i = 0; ev && i < sizeof(hook_events) / sizeof(*hook_events); i++)
		if (!strcmp(hook_events[i].agent, r->agent) &&
		    !strcmp(hook_events[i].event, ev))
			return hook_events[i].fn(r, in, ev);
	return 0;
}
