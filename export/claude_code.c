/*
 * claude_code.c - `ktraj export --format claude_code`: a run as a Claude
 * Code session transcript (JSONL, the shape of ~/.claude/projects/<dir>/
 * <session>.jsonl that Claude Code 1.x/2.x writes and that the Hugging Face
 * Hub trace viewer and claude-code-log render; field reference:
 * shared/research/formats.md section 1 and import/imp_claude.c, which reads
 * it back).
 *
 * Mapping, one line per event:
 *   message user, human      -> "type":"user", message.content a string
 *   message user, not human  -> the same with "isMeta":true
 *                               ("isCompactSummary":true for a compaction
 *                               summary), so no reader takes it as typed
 *   message assistant        -> "type":"assistant", content [{text}] or
 *                               [{thinking}] (flag "thinking"), with model
 *                               and usage when the event has them
 *   message system           -> "type":"system", "content" the text
 *   tool_call                -> "type":"assistant", content [{tool_use}]
 *   tool_result              -> "type":"user", content [{tool_result}]
 *   every other kind         -> not written (edits, compiles and benchmarks
 *                               are what ktraj derives from the tool calls:
 *                               an import of the export derives them again)
 * The result of a Read, Edit, MultiEdit or Write carries "toolUseResult" as
 * Claude Code writes it where ktraj knows the file: a Read's content (its
 * observed blob) as file.content, an edit's content before (the edit
 * event's "before") as originalFile, so the edits come back on import.
 * Each line's uuid is the run id with the seq in its last 12 hex digits, and
 * parentUuid chains the lines (sub-agent lines, "isSidechain":true, chain
 * per sub-agent), so the file is one conversation path.  sessionId is the
 * run id as a UUID.  Each event is its own API message (message.id), so
 * usage is counted once, where ktraj had it.
 */
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "agentx.h"

struct cc {
	char sid[40];
	char version[64];      /* the source's Claude Code version, or 0.0.0 */
	int64_t last_ts;       /* for events of unknown time */
	char last[40];         /* uuid of the last main-chain line */
	struct side {
		char name[128];
		char last[40];
	} side[16];
	int nside;
	char sidelast[40];     /* sub-agents past 16 share one chain */
	/* Maps, not cJSON objects, whose every lookup walks all keys (O(N^2)
	 * in the run's tool calls); the values are owned cJSON arrays. */
	kt_strmap calls;       /* call_id -> [tool_call seq, tool, id written] */
	kt_strmap before;      /* "<tool_call seq>" -> [path, before hash] */
	int err;               /* KT_ENOMEM while filling before */
};

static void free_json(void *v)
{
	cJSON_Delete(v);
}

/* Set key of m to the array v (owned; freed when m cannot take it), freeing
 * what key held.  0 or KT_ENOMEM. */
static int put_json(kt_strmap *m, const char *key, cJSON *v)
{
	void **slot = v ? kt_strmap_slot(m, key, 1) : NULL;

	if (!slot) {
		cJSON_Delete(v);
		return KT_ENOMEM;
	}
	cJSON_Delete(*slot);
	*slot = v;
	return 0;
}

/* First pass: the content each edit tool call started from. */
static int each_edit(const kt_event *ev, void *arg)
{
	struct cc *cc = arg;
	cJSON *p = cJSON_ParseWithLength(ev->payload, ev->payload_len);
	const cJSON *call = cJSON_GetObjectItemCaseSensitive(p, "call");
	const char *path = kt_json_str(p, "path"), *before = kt_json_str(p, "before");
	char key[32];

	if (p && cJSON_IsNumber(call) && path && before) {
		snprintf(key, sizeof(key), "%.0f", call->valuedouble);
		if (!kt_strmap_get(&cc->before, key)) {
			cJSON *v = cJSON_CreateArray();

			cJSON_AddItemToArray(v, cJSON_CreateString(path));
			cJSON_AddItemToArray(v, cJSON_CreateString(before));
			cc->err = put_json(&cc->before, key, v);
		}
	}
	cJSON_Delete(p);
	return cc->err ? 1 : 0;
}

/* toolUseResult of a Read or edit tool's result, or NULL. */
static cJSON *tool_use_result(kt_xrun *x, struct cc *cc, const cJSON *p)
{
	const char *id = kt_json_str(p, "call_id");
	const cJSON *c = id ? kt_strmap_get(&cc->calls, id) : NULL;
	const char *tool = cJSON_GetStringValue(cJSON_GetArrayItem(c, 1));
	cJSON *t = NULL;
	char key[32], *text;

	if (!tool)
		return NULL;
	if (!strcmp(tool, "Read")) {
		const cJSON *o = cJSON_GetArrayItem(
			cJSON_GetObjectItemCaseSensitive(p, "observed"), 0);

		if (!kt_json_str(o, "path") || !(text = kt_xrun_blob_text(x, kt_json_str(o, "blob"))))
			return NULL;
		t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "type", "text");
		c = cJSON_AddObjectToObject(t, "file");
		cJSON_AddStringToObject((cJSON *)c, "filePath", kt_json_str(o, "path"));
		cJSON_AddStringToObject((cJSON *)c, "content", text);
		free(text);
	} else if (!strcmp(tool, "Edit") || !strcmp(tool, "MultiEdit") ||
		   !strcmp(tool, "Write")) {
		const cJSON *b;

		snprintf(key, sizeof(key), "%.0f",
			 cJSON_GetNumberValue(cJSON_GetArrayItem(c, 0)));
		b = kt_strmap_get(&cc->before, key);
		if (!b || !(text = kt_xrun_blob_text(x,
				cJSON_GetStringValue(cJSON_GetArrayItem(b, 1)))))
			return NULL;
		t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "filePath",
			cJSON_GetStringValue(cJSON_GetArrayItem(b, 0)));
		cJSON_AddStringToObject(t, "originalFile", text);
		free(text);
	}
	return t;
}

static void line_uuid(const char *run, uint64_t seq, char *buf)
{
	char hex[33];

	snprintf(hex, sizeof(hex), "%.20s%012llx", run,
		 (unsigned long long)(seq & 0xffffffffffffull));
	kt_xrun_uuid(hex, buf);
}

/* The chain a line continues: the main one or its sub-agent's. */
static char *chain_of(struct cc *cc, const char *sub)
{
	int i;

	if (!sub)
		return cc->last;
	for (i = 0; i < cc->nside; i++)
		if (!strcmp(cc->side[i].name, sub))
			return cc->side[i].last;
	if (cc->nside == 16)
		return cc->sidelast;
	snprintf(cc->side[cc->nside].name, sizeof(cc->side[0].name), "%s", sub);
	cc->side[cc->nside].last[0] = 0;
	return cc->side[cc->nside++].last;
}

/* The envelope every line has, in Claude Code's field order. */
static cJSON *envelope(kt_xrun *x, struct cc *cc, const kt_event *ev,
		       const char *sub, char **chain, char *uuid)
{
	cJSON *o = cJSON_CreateObject();

	*chain = chain_of(cc, sub);
	line_uuid(x->run, ev->seq, uuid);
	if (!o)
		return NULL;
	if (**chain)
		cJSON_AddStringToObject(o, "parentUuid", *chain);
	else
		cJSON_AddNullToObject(o, "parentUuid");
	cJSON_AddBoolToObject(o, "isSidechain", sub != NULL);
	cJSON_AddStringToObject(o, "userType", "external");
	/* claude-code-log's transcript model requires cwd, version, uuid and
	 * timestamp on every line (claude_code_log/models.py
	 * BaseTranscriptEntry), so they are never left out */
	cJSON_AddStringToObject(o, "cwd", x->cwd);
	cJSON_AddStringToObject(o, "sessionId", cc->sid);
	cJSON_AddStringToObject(o, "version", cc->version);
	return o;
}

static void finish(kt_xrun *x, struct cc *cc, cJSON *o, const kt_event *ev,
		   char *chain, const char *uuid)
{
	char iso[40];

	cJSON_AddStringToObject(o, "uuid", uuid);
	if (ev->ts_ns != KT_TS_UNKNOWN)
		cc->last_ts = ev->ts_ns;
	/* milliseconds, as Claude Code writes them; an event of unknown
	 * time takes the time before it, and before any known time the
	 * epoch, which ktraj's importer reads back as unknown */
	kt_export_ts_iso(ev->ts_ns != KT_TS_UNKNOWN ? ev->ts_ns : cc->last_ts,
			 iso, sizeof(iso));
	if (strlen(iso) == 30) {
		iso[23] = 'Z';
		iso[24] = 0;
	}
	cJSON_AddStringToObject(o, "timestamp", *iso ? iso : "1970-01-01T00:00:00.000Z");
	snprintf(chain, 40, "%s", uuid);
	kt_xrun_line(x, o);
}

/* Anthropic Messages API usage from the payload's usage object. */
static void add_usage(cJSON *msg, const cJSON *u)
{
	static const char *const map[][2] = {
		{ "input", "input_tokens" },
		{ "cache_creation", "cache_creation_input_tokens" },
		{ "cache_read", "cache_read_input_tokens" },
		{ "output", "output_tokens" },
	};
	cJSON *o;
	size_t i;

	if (!cJSON_IsObject(u))
		return;
	o = cJSON_AddObjectToObject(msg, "usage");
	for (i = 0; o && i < sizeof(map) / sizeof(map[0]); i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(u, map[i][0]);

		if (cJSON_IsNumber(v))
			cJSON_AddNumberToObject(o, map[i][1], v->valuedouble);
	}
}

/* An assistant line holding one content block. */
static cJSON *assistant(kt_xrun *x, const kt_event *ev, const cJSON *p,
			cJSON *block)
{
	cJSON *msg = cJSON_CreateObject(), *content;
	char id[40];
	const char *model = kt_json_str(p, "model");

	snprintf(id, sizeof(id), "msg_ktraj_%.12s_%llu", x->run,
		 (unsigned long long)ev->seq);
	cJSON_AddStringToObject(msg, "id", id);
	cJSON_AddStringToObject(msg, "type", "message");
	cJSON_AddStringToObject(msg, "role", "assistant");
	/* a required field of readers (claude-code-log) */
	cJSON_AddStringToObject(msg, "model", model ? model :
				x->model[0] ? x->model : "unknown");
	content = cJSON_AddArrayToObject(msg, "content");
	cJSON_AddItemToArray(content, block);
	cJSON_AddNullToObject(msg, "stop_reason");
	cJSON_AddNullToObject(msg, "stop_sequence");
	add_usage(msg, cJSON_GetObjectItemCaseSensitive(p, "usage"));
	return msg;
}

static int on_event(kt_xrun *x, const kt_event *ev, cJSON *p, void *arg)
{
	struct cc *cc = arg;
	const char *sub = kt_json_str(p, "subagent"), *role = kt_json_str(p, "role");
	const char *type = "user";
	char uuid[40], *chain, *text = NULL;
	cJSON *o, *msg = NULL, *block, *tur = NULL;

	if (ev->kind != KT_KIND_MESSAGE && ev->kind != KT_KIND_TOOL_CALL &&
	    ev->kind != KT_KIND_TOOL_RESULT)
		return 0;
	if (!(o = envelope(x, cc, ev, sub, &chain, uuid)))
		return kt_xrun_line(x, NULL);
	if (ev->kind == KT_KIND_MESSAGE && !(text = kt_xrun_text(x, p, "text"))) {
		cJSON_Delete(o);
		return x->rc;
	}
	if (ev->kind == KT_KIND_MESSAGE && role && !strcmp(role, "system")) {
		/* Claude Code's own notices: text at the top level */
		type = "system";
		cJSON_AddStringToObject(o, "type", type);
		cJSON_AddStringToObject(o, "content", text);
		cJSON_AddBoolToObject(o, "isMeta", 0);
		cJSON_AddStringToObject(o, "level", "info");
		free(text);
		finish(x, cc, o, ev, chain, uuid);
		return x->rc;
	}
	if (ev->kind == KT_KIND_MESSAGE && role && !strcmp(role, "assistant")) {
		type = "assistant";
		block = cJSON_CreateObject();
		if (kt_xflag(p, "thinking")) {
			cJSON_AddStringToObject(block, "type", "thinking");
			cJSON_AddStringToObject(block, "thinking", text);
			cJSON_AddStringToObject(block, "signature", "");
		} else {
			cJSON_AddStringToObject(block, "type", "text");
			cJSON_AddStringToObject(block, "text", text);
		}
		msg = assistant(x, ev, p, block);
	} else if (ev->kind == KT_KIND_MESSAGE) {
		if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "human")))
			cJSON_AddBoolToObject(o, kt_xflag(p, "compact_summary") ?
					      "isCompactSummary" : "isMeta", 1);
		msg = cJSON_CreateObject();
		cJSON_AddStringToObject(msg, "role", "user");
		cJSON_AddStringToObject(msg, "content", text);
	} else if (ev->kind == KT_KIND_TOOL_CALL) {
		const cJSON *args = cJSON_GetObjectItemCaseSensitive(p, "args");
		const char *id = kt_json_str(p, "call_id"), *tool = kt_json_str(p, "tool");
		char idbuf[300];
		const char *out_id;

		type = "assistant";
		if (!id) {
			snprintf(idbuf, sizeof(idbuf), "toolu_ktraj_%llu",
				 (unsigned long long)ev->seq);
			id = idbuf;
		}
		/* Claude Code never reuses a tool_use id, and its import takes
		 * a repeated one for a copy of the first call (its result and
		 * effects lost); SWE-agent replays reuse one for every bash
		 * call, so a repeat is written under an id of its own */
		out_id = id;
		if (id != idbuf && kt_strmap_get(&cc->calls, id)) {
			snprintf(idbuf, sizeof(idbuf), "%.200s_ktraj_%llu", id,
				 (unsigned long long)ev->seq);
			out_id = idbuf;
		}
		{
			cJSON *v = cJSON_CreateArray();

			cJSON_AddItemToArray(v, cJSON_CreateNumber((double)ev->seq));
			cJSON_AddItemToArray(v, cJSON_CreateString(tool ? tool : ""));
			cJSON_AddItemToArray(v, cJSON_CreateString(out_id));
			if (put_json(&cc->calls, id, v))
				x->rc = KT_ENOMEM;
		}
		block = cJSON_CreateObject();
		cJSON_AddStringToObject(block, "type", "tool_use");
		cJSON_AddStringToObject(block, "id", out_id);
		cJSON_AddStringToObject(block, "name", tool ? tool : "unknown");
		cJSON_AddItemToObject(block, "input", cJSON_IsObject(args) ?
				      cJSON_Duplicate(args, 1) : cJSON_CreateObject());
		msg = assistant(x, ev, p, block);
	} else {
		const char *id = kt_json_str(p, "call_id");
		const char *out_id = id ? cJSON_GetStringValue(cJSON_GetArrayItem(
			kt_strmap_get(&cc->calls, id), 2)) : NULL;
		cJSON *content;

		/* the result of the latest call of its id: the id it was
		 * written under */
		if (out_id)
			id = out_id;
		if (!(text = kt_xrun_text(x, p, "output"))) {
			cJSON_Delete(o);
			return x->rc;
		}
		block = cJSON_CreateObject();
		cJSON_AddStringToObject(block, "tool_use_id", id ? id : "");
		cJSON_AddStringToObject(block, "type", "tool_result");
		cJSON_AddStringToObject(block, "content", text);
		cJSON_AddBoolToObject(block, "is_error",
			cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(p, "ok")));
		msg = cJSON_CreateObject();
		cJSON_AddStringToObject(msg, "role", "user");
		content = cJSON_AddArrayToObject(msg, "content");
		cJSON_AddItemToArray(content, block);
		tur = tool_use_result(x, cc, p);
	}
	free(text);
	cJSON_AddStringToObject(o, "type", type);
	cJSON_AddItemToObject(o, "message", msg);
	if (tur)
		cJSON_AddItemToObject(o, "toolUseResult", tur);
	finish(x, cc, o, ev, chain, uuid);
	return x->rc;
}

static int write_cc(kt_store *s, const kt_export_args *args, char *err,
		    size_t errlen)
{
	struct cc *cc = calloc(1, sizeof(*cc));
	kt_xrun x;
	int rc;

	if (!cc) {
		snprintf(err, errlen, "out of memory");
		return KT_ENOMEM;
	}
	rc = kt_xrun_open(&x, s, args->run, args->out, args->redact, err, errlen);
	if (!rc && ((rc = kt_event_foreach_body(s, args->run, 1, 0, KT_KIND_EDIT,
						each_edit, cc)) || cc->err)) {
		rc = cc->err ? cc->err : rc;
		kt_xrun_close(&x);
		snprintf(err, errlen, "reading events of %s: %s", args->run,
			 kt_strerror(rc));
	}
	if (!rc) {
		kt_xrun_uuid(args->run, cc->sid);
		snprintf(cc->version, sizeof(cc->version), "%s",
			 x.version[0] ? x.version : "0.0.0");
		rc = kt_xrun_walk(&x, on_event, cc, err, errlen);
		kt_xrun_close(&x);
	}
	kt_strmap_free(&cc->calls, free_json);
	kt_strmap_free(&cc->before, free_json);
	free(cc);
	return rc;
}

const kt_exporter kt_exporter_claude_code = {
	"claude_code", KT_EXPORT_STREAM, write_cc
};
