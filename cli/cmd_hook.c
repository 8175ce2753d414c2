/*
 * cmd_hook.c - `ktraj hook`: live recording from inside the agents.
 *
 *   ktraj hook claude-code   a Claude Code command hook: one hook event as
 *                            JSON on stdin (https://docs.claude.com/en/docs/
 *                            claude-code/hooks, "Hook Input"), recorded as
 *                            ktraj events of the session's run
 *   ktraj hook codex JSON    Codex's `notify` program: one
 *                            agent-turn-complete payload as the last
 *                            argument (Codex docs/config.md "notify")
 *   ktraj hook install       the hooks written into .claude/settings.json
 *                            (`install gemini-cli`: .gemini/settings.json)
 *
 * Every event goes through cli_record, the durable path of `ktraj append`:
 * one transaction per event, committed before the hook returns, so what the
 * agent did is in the store while the session goes on.  A hook never exits
 * 2: Claude Code reads exit 2 as "block this tool call / prompt", and a
 * recorder must never change what the agent does; failures exit 1 with one
 * line on stderr, and stdout stays empty (Claude Code adds the stdout of
 * SessionStart and UserPromptSubmit hooks to the model's context).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"

static const char usage[] =
	"usage: ktraj hook claude-code\n"
	"       ktraj hook gemini-cli\n"
	"       ktraj hook codex JSON\n"
	"       ktraj hook install [claude-code|gemini-cli] [--settings FILE]\n"
	"       ktraj hook install --codex\n"
	"\n"
	"claude-code  record one Claude Code hook event (JSON on stdin) in the\n"
	"             run \"claude-code:<session_id>\": SessionStart and\n"
	"             SessionEnd -> note, UserPromptSubmit -> the typed message\n"
	"             (human), PreToolUse -> tool_call, PostToolUse and\n"
	"             PostToolUseFailure -> tool_result, Stop -> the assistant's\n"
	"             last message; other events are ignored\n"
	"gemini-cli   record one Gemini CLI hook event (JSON on stdin) in the\n"
	"             run \"gemini-cli:<session_id>\": SessionStart and\n"
	"             SessionEnd -> note, BeforeAgent -> the typed message\n"
	"             (human), AfterTool -> tool_call and tool_result,\n"
	"             AfterAgent -> the agent's response; prints {} (Gemini CLI\n"
	"             reads a hook's stdout as JSON)\n"
	"codex        record a Codex `notify` payload (agent-turn-complete) in\n"
	"             the run \"codex:<thread-id>\": the turn's input messages\n"
	"             (human) and the assistant's last message\n"
	"install      add the claude-code hook for SessionStart,\n"
	"             UserPromptSubmit, PreToolUse, PostToolUse and Stop to\n"
	"             .claude/settings.json (or --settings FILE), keeping every\n"
	"             other setting; running it again changes nothing.  The\n"
	"             hook names this ktraj and this store by absolute path.\n"
	"             `install gemini-cli` adds the gemini-cli hook (named\n"
	"             ktraj) for SessionStart, BeforeAgent, AfterTool,\n"
	"             AfterAgent and SessionEnd to .gemini/settings.json\n"
	"             the same way.  --codex prints the `notify` line for\n"
	"             ~/.codex/config.toml instead\n"
	"\n"
	"A hook exits 0, or 1 with one line on stderr; never 2 (which Claude\n"
	"Code reads as blocking the agent).  An event on stdin holds at most\n"
	"256 MiB; more is refused (exit 1) before more is read.\n";

#define HOOK_INLINE_MAX (64u * 1024u) /* tool output kept inline */

/* A hook's exit code: a recorder reports, it never blocks the agent. */
static int hook_exit(int rc)
{
	return rc ? KT_EXIT_FAIL : KT_EXIT_OK;
}

struct rec {
	struct cli *c;
	kt_store *s;
	char run[KT_RUN_ID_HEX + 1];
	const char *name, *source;
	cJSON *meta;
};

/* Append one event (payload consumed).  blob: the whole tool output when
 * the payload's inline "output" was cut.  Prints its own error. */
static int put(struct rec *r, int kind, const char *actor, uint64_t parent,
	       cJSON *payload, const char *blob, size_t blob_len)
{
	cli_event e;
	int rc;

	if (!payload)
		return cli_err(r->c, "out of memory");
	cli_event_init(&e, kind, actor, parent, payload);
	e.new_name = r->name;
	e.new_source = r->source;
	e.new_meta = r->meta;
	if (blob) {
		e.blob = blob;
		e.blob_len = blob_len;
		e.blob_key = "output_blob";
	}
	rc = cli_record(r->s, r->run, &e);
	cJSON_Delete(payload);
	return rc ? cli_store_err(r->c, r->s, rc, r->name) : 0;
}

static cJSON *message(const char *role, int human, const char *text)
{
	cJSON *p = cJSON_CreateObject();

	cJSON_AddStringToObject(p, "role", role);
	cJSON_AddBoolToObject(p, "human", human);
	cJSON_AddStringToObject(p, "text", text);
	return p;
}

/* Free r and close its store; the hook's exit code for rc. */
static int finish(struct rec *r, int rc)
{
	cJSON_Delete(r->meta);
	if (r->s) {
		int rc2 = kt_store_close(r->s);

		if (!rc && rc2)
			rc = cli_store_err(r->c, NULL, rc2, "closing the store");
	}
	return hook_exit(rc);
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
static int key_has_nul(const char *buf, size_t len, const char *key)
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

static int open_run(struct rec *r, const char *prefix, const char *session,
		    int nul, const char *source, char *name, size_t namelen)
{
	int exists, rc;

	if (nul)
		return cli_err(r->c, "the hook input's session id holds a NUL "
			       "(\\u0000): refused, it would cut the id and "
			       "record into another session's run");
	if (!session || !*session || strlen(session) > 200)
		return cli_err(r->c, "the hook input has no usable session id");
	for (const char *p = session; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return cli_err(r->c, "the hook input's session id has "
				       "control characters: refused");
	/* the prefix keeps a hex session id from reading as a run id prefix */
	snprintf(name, namelen, "%s:%s", prefix, session);
	r->name = name;
	r->source = source;
	rc = cli_open(r->c, 0, &r->s);
	if (rc)
		return rc;
	rc = cli_record_run(r->c, r->s, name, source, r->run, &exists);
	return rc;
}

/* The run of the session hook event `in` names (meta: session, cwd,
 * transcript), opened as open_run does. */
static int open_session(struct rec *r, const cJSON *in, int nul,
			const char *prefix, const char *source, char *name,
			size_t namelen)
{
	r->meta = cJSON_CreateObject();
	if (kt_json_str(in, "session_id"))
		cJSON_AddStringToObject(r->meta, "session", kt_json_str(in, "session_id"));
	if (kt_json_str(in, "cwd"))
		cJSON_AddStringToObject(r->meta, "cwd", kt_json_str(in, "cwd"));
	if (kt_json_str(in, "transcript_path"))
		cJSON_AddStringToObject(r->meta, "transcript",
					kt_json_str(in, "transcript_path"));
	return open_run(r, prefix, kt_json_str(in, "session_id"), nul, source, name,
			namelen);
}

/* SessionStart (its "source") or SessionEnd (its "reason") as a note; the
 * same event names in Claude Code and Gemini CLI. */
static int session_note(struct rec *r, const cJSON *in, const char *ev)
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
 * tool with the same input. */
static int find_call(const kt_event *ev, void *arg)
{
	struct calls *k = arg;
	cJSON *p = cJSON_ParseWithLength(ev->payload, ev->payload_len);
	const char *id = kt_json_str(p, "call_id");
	int i;

	if (!p)
		return 0;
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

static int cc_tool_result(struct rec *r, const cJSON *in, int failed)
{
	struct calls *k = calloc(1, sizeof(*k));
	const cJSON *resp = cJSON_GetObjectItemCaseSensitive(in, "tool_response");
	char *args = NULL, *out;
	const char *cut_blob = NULL;
	size_t len, cut;
	int ok = !failed, rc;
	cJSON *p;

	if (!k)
		return cli_err(r->c, "out of memory");
	k->id = kt_json_str(in, "tool_use_id");
	k->tool = kt_json_str(in, "tool_name");
	args = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(in, "tool_input"));
	k->args = args;
	rc = kt_event_foreach_body(r->s, r->run, 1, 0, 0, find_call, k);
	if (rc) {
		free(args);
		free(k);
		return cli_store_err(r->c, r->s, rc, r->name);
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
		return cli_err(r->c, "out of memory");
	}
	len = strlen(out);
	cut = len;
	if (len > HOOK_INLINE_MAX) {
		/* FORMAT.md: output is at most 64 KiB inline, the whole of
		 * it a blob; the cut falls on a UTF-8 character boundary */
		cut = kt_utf8_floor(out, HOOK_INLINE_MAX);
		cut_blob = out;
	}
	p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "call_id", k->seq ? k->call_id :
				k->id ? k->id : "");
	cJSON_AddBoolToObject(p, "ok", ok);
	{
		char *inl = strndup(out, cut);

		cJSON_AddStringToObject(p, "output", inl ? inl : "");
		free(inl);
	}
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
 * endless line. */
static char *last_assistant_text(const char *path)
{
	int fd = path ? open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
	FILE *f = NULL;
	char *line = NULL, *best = NULL;
	size_t cap = 0;
	struct stat st;

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
		o = cJSON_Parse(line);
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
	return best;
}

/* The most bytes one hook event may hold on stdin: as `import --max-line`'s
 * default, the longest JSON line ktraj reads.  An agent that sends more is
 * not sending a hook event (or is piping something unbounded, /dev/zero):
 * it is refused before more than this is held. */
#define HOOK_MAX_EVENT ((size_t)256 << 20)

/* The hook event on stdin as a JSON object (NULL: cli_err said why), and
 * in *nul whether its session_id holds a NUL (key_has_nul). */
static cJSON *read_event(struct cli *c, int *nul)
{
	/* address space for the most an event may hold, one byte more to
	 * tell "exactly the limit" from "more": only the pages read into
	 * are memory, and nothing is copied as it grows */
	char *buf = mmap(NULL, HOOK_MAX_EVENT + 1, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	size_t len = 0, n;
	cJSON *in;

	if (buf == MAP_FAILED) {
		cli_err(c, "out of memory");
		return NULL;
	}
	while (len <= HOOK_MAX_EVENT &&
	       (n = fread(buf + len, 1, HOOK_MAX_EVENT + 1 - len, stdin)) > 0)
		len += n;
	if (len > HOOK_MAX_EVENT) {
		munmap(buf, HOOK_MAX_EVENT + 1);
		cli_err(c, "stdin holds more than %zu MiB, the limit of one hook event: not recorded",
			HOOK_MAX_EVENT >> 20);
		return NULL;
	}
	in = len ? cJSON_ParseWithLength(buf, len) : NULL;
	*nul = key_has_nul(len ? buf : NULL, len, "session_id");
	munmap(buf, HOOK_MAX_EVENT + 1);
	if (!cJSON_IsObject(in)) {
		cJSON_Delete(in);
		cli_err(c, "stdin is not a hook event (a JSON object)");
		return NULL;
	}
	return in;
}

/* ---- the events each agent's hook records --------------------------------- */

/* What one hook event records in the session's run r (open): in is the
 * event, ev its hook_event_name.  0, or the exit code of an error already
 * printed. */
typedef int (*hook_fn)(struct rec *r, const cJSON *in, const char *ev);

/* UserPromptSubmit (Claude Code): what the
 * person typed, before the agent adds anything. */
static int on_prompt(struct rec *r, const cJSON *in, const char *ev)
{
	(void)ev;
	return put(r, KT_KIND_MESSAGE, "human", 0,
		   message("user", 1, kt_json_str(in, "prompt") ? kt_json_str(in, "prompt") : ""),
		   NULL, 0);
}

static int cc_pre_tool(struct rec *r, const cJSON *in, const char *ev)
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
static int cc_post_tool(struct rec *r, const cJSON *in, const char *ev)
{
	return cc_tool_result(r, in, !strcmp(ev, "PostToolUseFailure"));
}

static int cc_stop(struct rec *r, const cJSON *in, const char *ev)
{
	char *text;
	int rc = 0;

	(void)ev;
	text = kt_json_str(in, "last_assistant_message") ?
		strdup(kt_json_str(in, "last_assistant_message")) :
		last_assistant_text(kt_json_str(in, "transcript_path"));
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
static int gm_before_agent(struct rec *r, const cJSON *in, const char *ev)
{
	char *typed = prompt_text(cJSON_GetObjectItemCaseSensitive(in, "prompt"));
	int rc;

	(void)ev;
	if (!typed)
		return cli_err(r->c, "BeforeAgent: the prompt holds no text (a string or text parts): not recorded");
	rc = put(r, KT_KIND_MESSAGE, "human", 0, message("user", 1, typed),
		 NULL, 0);
	free(typed);
	return rc;
}

static int gm_after_agent(struct rec *r, const cJSON *in, const char *ev)
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
static int gm_after_tool(struct rec *r, const cJSON *in, const char *ev)
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

/* The hooks that read one event on stdin: the runs they record into are
 * "NAME:<session_id>" of source `source`. */
static const struct hook_agent {
	const char *name;	/* ktraj hook NAME */
	const char *source;
	int reply_json;		/* prints {}: the agent reads stdout as JSON */
} hook_agents[] = {
	{ "claude-code", "claude_code_hook", 0 },
	{ "gemini-cli", "gemini_cli_hook", 1 },
};

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

/* One hook event of agent a on stdin, recorded by its handler. */
static int hook_stdin(struct cli *c, const struct hook_agent *a)
{
	struct rec r = { .c = c };
	const struct hook_event *h = NULL;
	char name[300];
	cJSON *in;
	const char *ev;
	int rc, nul;

	if (!(in = read_event(c, &nul)))
		return KT_EXIT_FAIL;
	ev = kt_json_str(in, "hook_event_name");
	if (!ev) {
		cJSON_Delete(in);
		return cli_err(c, "the hook input has no hook_event_name");
	}
	for (size_t i = 0; !h && i < sizeof(hook_events) / sizeof(*hook_events); i++)
		if (!strcmp(hook_events[i].agent, a->name) &&
		    !strcmp(hook_events[i].event, ev))
			h = &hook_events[i];
	if (!h) {
		cJSON_Delete(in);
		if (a->reply_json)
			fputs("{}\n", stdout);
		return KT_EXIT_OK;
	}
	rc = open_session(&r, in, nul, a->name, a->source, name, sizeof(name));
	if (!rc)
		rc = h->fn(&r, in, ev);
	if (!rc && a->reply_json)
		fputs("{}\n", stdout);
	cJSON_Delete(in);
	return finish(&r, rc);
}

/* ---- Codex ---------------------------------------------------------------- */

static int hook_codex(struct cli *c, const char *json)
{
	struct rec r = { .c = c };
	cJSON *in = cJSON_Parse(json);
	const cJSON *m;
	const char *type = kt_json_str(in, "type");
	char name[300];
	int rc;

	if (!cJSON_IsObject(in)) {
		cJSON_Delete(in);
		return hook_exit(cli_err(c, "the notify argument is not a JSON object"));
	}
	if (!type || strcmp(type, "agent-turn-complete")) {
		cJSON_Delete(in); /* the only kind Codex sends today */
		return 0;
	}
	r.meta = cJSON_CreateObject();
	if (kt_json_str(in, "thread-id"))
		cJSON_AddStringToObject(r.meta, "session", kt_json_str(in, "thread-id"));
	if (kt_json_str(in, "cwd"))
		cJSON_AddStringToObject(r.meta, "cwd", kt_json_str(in, "cwd"));
	rc = open_run(&r, "codex", kt_json_str(in, "thread-id"),
		      key_has_nul(json, strlen(json), "thread-id"),
		      "codex_notify", name, sizeof(name));
	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(in, "input-messages"))
		if (!rc && cJSON_IsString(m))
			rc = put(&r, KT_KIND_MESSAGE, "human", 0,
				 message("user", 1, m->valuestring), NULL, 0);
	if (!rc && kt_json_str(in, "last-assistant-message"))
		rc = put(&r, KT_KIND_MESSAGE, "agent", 0,
			 message("assistant", 0, kt_json_str(in, "last-assistant-message")),
			 NULL, 0);
	cJSON_Delete(in);
	return finish(&r, rc);
}

/* ---- install -------------------------------------------------------------- */

static int abs_paths(struct cli *c, char *exe, size_t elen, char *store,
		     size_t slen)
{
	ssize_t n = readlink("/proc/self/exe", exe, elen - 1);
	char *dir;

	if (n <= 0)
		return cli_err(c, "cannot find the ktraj executable: %s", strerror(errno));
	exe[n] = 0;
	if (c->store_path[0] == '/') {
		snprintf(store, slen, "%s", c->store_path);
		return 0;
	}
	dir = getcwd(NULL, 0);
	if (!dir)
		return cli_err(c, "cannot read the current directory: %s", strerror(errno));
	snprintf(store, slen, "%s/%s", dir, c->store_path);
	free(dir);
	return 0;
}

/* Where and how one agent's hooks are installed. */
struct hook_target {
	const char *agent;	   /* the `ktraj hook` sub-command, "claude-code" */
	const char *label;	   /* for the one line printed, "Claude Code" */
	const char *dir;	   /* project settings folder, made when missing */
	const char *const *events; /* NULL-terminated */
	const char *tool_events[2]; /* events whose groups take a tool matcher */
	const char *name;	   /* the hook's "name" member, or NULL */
};

/* The hook entry of one event: a matcher group whose command is ours is
 * brought up to date; else one is added. */
static int add_hook(cJSON *hooks, const struct hook_target *t,
		    const char *event, const char *cmd, const char *needle)
{
	cJSON *list = cJSON_GetObjectItemCaseSensitive(hooks, event), *g, *h, *grp;
	int changed = 0;

	if (!cJSON_IsArray(list)) {
		cJSON_DeleteItemFromObjectCaseSensitive(hooks, event);
		list = cJSON_AddArrayToObject(hooks, event);
		changed = 1;
	}
	cJSON_ArrayForEach(g, list)
		cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(g, "hooks")) {
			const char *hc = kt_json_str(h, "command");

			if (hc && strstr(hc, needle)) {
				if (strcmp(hc, cmd)) {
					cJSON_ReplaceItemInObjectCaseSensitive(
						h, "command", cJSON_CreateString(cmd));
					changed = 1;
				}
				return changed;
			}
		}
	grp = cJSON_CreateObject();
	if ((t->tool_events[0] && !strcmp(event, t->tool_events[0])) ||
	    (t->tool_events[1] && !strcmp(event, t->tool_events[1])))
		/* "*" is every tool in both agents' matcher syntax */
		cJSON_AddStringToObject(grp, "matcher", "*");
	h = cJSON_CreateObject();
	if (t->name)
		cJSON_AddStringToObject(h, "name", t->name);
	cJSON_AddStringToObject(h, "type", "command");
	cJSON_AddStringToObject(h, "command", cmd);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(grp, "hooks"), h);
	cJSON_AddItemToArray(list, grp);
	return 1;
}

static const char *const claude_events[] = {
	"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop",
	NULL,
};
static const struct hook_target claude_target = {
	"claude-code", "Claude Code", ".claude", claude_events,
	{ "PreToolUse", "PostToolUse" }, NULL,
};

/* Gemini CLI: docs/hooks/index.md and reference.md of google-gemini/
 * gemini-cli ("Configuration"): the same {"hooks": {EVENT: [{matcher,
 * hooks: [{name, type, command}]}]}} shape as Claude Code, in
 * .gemini/settings.json; a tool matcher is a regex where "*" means every
 * tool.  The name lets `/hooks disable ktraj` find it. */
static const char *const gemini_events[] = {
	"SessionStart", "BeforeAgent", "AfterTool", "AfterAgent", "SessionEnd",
	NULL,
};
static const struct hook_target gemini_target = {
	"gemini-cli", "Gemini CLI", ".gemini", gemini_events,
	{ "AfterTool", NULL }, "ktraj",
};

static int hook_install(struct cli *c, const struct hook_target *t,
			const char *settings, int codex)
{
	char exe[4096], store[4096], cmd[17000], needle[64], dflt[64];
	struct kt_buf qb = { 0 };
	char tmp[4200], *old = NULL, *text = NULL;
	cJSON *doc, *hooks;
	size_t i;
	int changed = 0, rc = 0;
	FILE *f;

	if (abs_paths(c, exe, sizeof(exe), store, sizeof(store)))
		return KT_EXIT_FAIL;
	if (codex) {
		/* TOML basic strings take JSON's escapes for these paths */
		cJSON *a = cJSON_CreateArray();
		char *line;

		cJSON_AddItemToArray(a, cJSON_CreateString(exe));
		cJSON_AddItemToArray(a, cJSON_CreateString("--store"));
		cJSON_AddItemToArray(a, cJSON_CreateString(store));
		cJSON_AddItemToArray(a, cJSON_CreateString("hook"));
		cJSON_AddItemToArray(a, cJSON_CreateString("codex"));
		line = cJSON_PrintUnformatted(a);
		cJSON_Delete(a);
		if (!line)
			return cli_err(c, "out of memory");
		printf("# add to ~/.codex/config.toml (top level):\nnotify = %s\n", line);
		free(line);
		return 0;
	}
	/* both agents run hook commands with a shell: each path one word */
	snprintf(needle, sizeof(needle), " hook %s", t->agent);
	kt_buf_sh_quote(&qb, exe);
	kt_buf_puts(&qb, " --store ");
	kt_buf_sh_quote(&qb, store);
	kt_buf_puts(&qb, needle);
	if (qb.err || qb.len >= sizeof(cmd)) {
		const char *why = qb.err ? "out of memory" :
			"the paths of ktraj and the store are too long for a hook command";

		kt_buf_free(&qb);
		return cli_err(c, "%s", why);
	}
	memcpy(cmd, qb.s, qb.len + 1);
	kt_buf_free(&qb);
	if (!settings) {
		if (mkdir(t->dir, 0777) && errno != EEXIST)
			return cli_err(c, "%s: %s", t->dir, strerror(errno));
		snprintf(dflt, sizeof(dflt), "%s/settings.json", t->dir);
		settings = dflt;
	}
	if (!(old = cli_slurp(settings, NULL)) && errno != ENOENT)
		return cli_err(c, "%s: %s", settings, strerror(errno));
	doc = old && old[strspn(old, " \t\r\n")] ? cJSON_Parse(old) : cJSON_CreateObject();
	free(old);
	if (!cJSON_IsObject(doc)) {
		cJSON_Delete(doc);
		/* the user's file is left as it is: we cannot merge into it */
		return cli_err(c, "%s is not a JSON object; not changed", settings);
	}
	hooks = cJSON_GetObjectItemCaseSensitive(doc, "hooks");
	if (!cJSON_IsObject(hooks)) {
		if (hooks) {
			cJSON_Delete(doc);
			return cli_err(c, "%s: \"hooks\" is not an object; not changed",
				       settings);
		}
		hooks = cJSON_AddObjectToObject(doc, "hooks");
	}
	for (i = 0; t->events[i]; i++)
		changed |= add_hook(hooks, t, t->events[i], cmd, needle);
	if (!changed) {
		cJSON_Delete(doc);
		printf("%s already records to %s\n", settings, store);
		return 0;
	}
	text = cJSON_Print(doc);
	cJSON_Delete(doc);
	snprintf(tmp, sizeof(tmp), "%s.ktraj-tmp", settings);
	/* replaced whole by rename: the agent never reads half a file */
	if (!text || !(f = fopen(tmp, "w"))) {
		free(text);
		return cli_err(c, "%s: %s", tmp, text ? strerror(errno) : "out of memory");
	}
	if (fputs(text, f) < 0 || fputc('\n', f) == EOF)
		rc = -1;
	if (fclose(f))
		rc = -1;
	free(text);
	if (rc || rename(tmp, settings)) {
		rc = cli_err(c, "%s: %s", settings, strerror(errno));
		unlink(tmp);
		return rc;
	}
	printf("%s: %s sessions are recorded to %s\n", settings, t->label, store);
	return 0;
}

int cmd_hook(struct cli *c, int argc, char **argv)
{
	const struct hook_target *t = &claude_target;
	const char *settings = NULL;
	int i, codex = 0;

	if (cli_wants_help(argc, argv, usage))
		return KT_EXIT_OK;
	if (argc < 2)
		return cli_usage(c, "which hook? (claude-code, gemini-cli, codex or install)");
	for (i = 0; i < (int)(sizeof(hook_agents) / sizeof(*hook_agents)); i++)
		if (!strcmp(argv[1], hook_agents[i].name)) {
			if (argc > 2)
				return hook_exit(cli_err(c, "%s takes no arguments (the event comes on stdin)",
							 argv[1]));
			return hook_stdin(c, &hook_agents[i]);
		}
	if (!strcmp(argv[1], "codex")) {
		/* Codex appends the payload as the last argument */
		if (argc < 3)
			return hook_exit(cli_err(c, "codex needs the notify JSON as its last argument"));
		return hook_codex(c, argv[argc - 1]);
	}
	if (strcmp(argv[1], "install"))
		return cli_bad_subcommand(c, argv[1], (const char *const[]){
			"claude-code", "gemini-cli", "codex", "install", NULL });
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--settings") && cli_has_value(argc, argv, i))
			settings = argv[++i];
		else if (!strcmp(argv[i], "--codex") || !strcmp(argv[i], "codex"))
			codex = 1;
		else if (!strcmp(argv[i], "gemini-cli"))
			t = &gemini_target;
		else if (!strcmp(argv[i], "claude-code"))
			t = &claude_target;
		else
			return cli_bad_option(c, usage, argv[i]);
	}
	return hook_install(c, t, settings, codex);
}
