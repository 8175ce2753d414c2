/*
 * imp_copilot.c - GitHub Copilot CLI sessions: the session-state
 * events.jsonl (~/.copilot/session-state/<id>/events.jsonl, 1.0 and
 * later) and the older single JSON document (~/.copilot/history-session-
 * state/session_<id>.json, 0.0.3xx).  Sources: the real sessions in
 * ../shared/corpus/copilot_cli/ (MANIFEST.tsv) and the event names the
 * CLI's SDK documents (github/copilot-sdk session events).
 *
 * events.jsonl: {type, data, id, timestamp, parentId} per line, each
 * event's parentId naming the one before it.  session.start {sessionId,
 * copilotVersion, context {cwd, gitRoot, branch}} gives the run;
 * user.message {content, transformedContent}; system.message {content};
 * assistant.message {messageId, content, reasoningText?, toolRequests
 * [{toolCallId, name, arguments}]}; tool.execution_start {toolCallId,
 * toolName, arguments}; tool.execution_complete {toolCallId, success,
 * result {content, detailedContent}, error?}; assistant.turn_start /
 * turn_end only frame turns.  Every other event (session.info,
 * model_change, mode_changed, resume, permission.*, task_complete,
 * shutdown and later additions) is kept as a note {text: type, extra
 * {data}}.
 *
 * Legacy document: {sessionId, startTime, chatMessages [], timeline
 * [{id, timestamp, type info|user|copilot|error|tool_call_completed,
 * text, callId, name, arguments, result}]}; arguments and result are
 * Python repr strings ({'type': 'success', 'log': ...}), read as Python
 * literals.
 *
 * Rules:
 *  - A tool call is emitted at the assistant.message that requests it
 *    (or at tool.execution_start when no message did); its result at
 *    tool.execution_complete; the pair is one call by toolCallId.  Tools
 *    go through the shared editor and shell effects (bash, create, edit,
 *    str_replace_editor); bash output ends in "<exited with exit code
 *    N>".
 *  - user.message is human when its content is what the person typed; an
 *    empty content whose transformedContent holds the CLI's own nudge
 *    (autopilot's "You have not yet marked the task as complete") is a
 *    meta message, human false.  system.message is the system prompt.
 *  - Run identity: copilot_cli:<sessionId>, else copilot_cli:<sha256 of
 *    the file>.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "impx.h"

#define DETECT_WINDOW 4096

static int cop_detect(const kt_file *f)
{
	size_t n = f->len < DETECT_WINDOW ? f->len : DETECT_WINDOW;
	const unsigned char *d = f->data;

	if (kt_impx_sniff(d, n, "type", "session.start") ||
	    kt_impx_sniff(d, n, "copilotVersion", NULL) ||
	    (kt_impx_sniff(d, n, "parentId", NULL) &&
	     memmem(d, n, "\"assistant.turn_", 16)))
		return 85;
	if (kt_impx_sniff(d, n, "sessionId", NULL) &&
	    kt_impx_sniff(d, n, "timeline", NULL))
		return 80;
	return 0;
}

typedef struct copx {
	kt_imp *imp;
	kt_impx_calls calls;
	const char *cwd;
} copx;

/* "<exited with exit code N>" that Copilot's bash tool appends. */
static int exit_of(const char *out)
{
	const char *p = out ? strstr(out, "<exited with exit code ") : NULL;

	if (p && (isdigit((unsigned char)p[23]) || p[23] == '-'))
		return atoi(p + 23);
	return -1;
}

static int msg(copx *x, const char *role, int human, const char *text,
	       const char *flags, const char *actor, int64_t ts,
	       const kt_impx_at *at, const char *id)
{
	cJSON *pl = kt_impx_msg(role, human, text, flags);

	if (pl && id)
		cJSON_AddStringToObject(pl, "msg_id", id);
	return kt_impx_emit_valid(x->imp, NULL, KT_KIND_MESSAGE, 0, ts, actor,
				  pl, at->line, at->off, at->len, NULL);
}

static int result(copx *x, const char *id, const char *out, int ok,
		  int64_t ts, const kt_impx_at *at)
{
	int ec = exit_of(out);

	if (ec > 0)
		ok = 0;
	return kt_impx_result(x->imp, &x->calls, id, out ? out : "", ok, ec,
			      x->cwd, ts, NULL, at, NULL);
}

static int on_event(copx *x, const cJSON *e, const kt_impx_at *at)
{
	const char *ty = kt_json_str(e, "type");
	const cJSON *d = cJSON_GetObjectItem(e, "data");
	int64_t ts = kt_impx_ts_json(cJSON_GetObjectItem(e, "timestamp"));
	int rc = 0;

	if (!ty)
		return 1;
	if (!strcmp(ty, "session.start") || !strcmp(ty, "assistant.turn_start") ||
	    !strcmp(ty, "assistant.turn_end"))
		return 0; /* the run's meta, and turn frames */
	if (!strcmp(ty, "user.message")) {
		const char *c = kt_json_str(d, "content");

		if (c && *c)
			return msg(x, "user", 1, c, NULL, "human", ts, at, NULL);
		return msg(x, "user", 0, kt_json_str(d, "transformedContent"),
			   "meta", "system", ts, at, NULL);
	}
	if (!strcmp(ty, "system.message"))
		return msg(x, "system", 0, kt_json_str(d, "content"), "meta",
			   "system", ts, at, NULL);
	if (!strcmp(ty, "assistant.message")) {
		const char *c = kt_json_str(d, "content");
		const char *r = kt_json_str(d, "reasoningText");
		const char *mid = kt_json_str(d, "messageId");
		const cJSON *tr;

		if (r && *r)
			rc = msg(x, "assistant", 0, r, "thinking", "agent", ts,
				 at, mid);
		if (!rc && c && *c)
			rc = msg(x, "assistant", 0, c, NULL, "agent", ts, at,
				 mid);
		cJSON_ArrayForEach(tr, cJSON_GetObjectItem(d, "toolRequests")) {
			if (rc)
				break;
			rc = kt_impx_call(x->imp, &x->calls,
					  kt_json_str(tr, "toolCallId"),
					  kt_json_str(tr, "name"),
					  cJSON_GetObjectItem(tr, "arguments"), 0,
					  ts, "agent", NULL, at, NULL);
		}
		return rc;
	}
	if (!strcmp(ty, "tool.execution_start")) {
		const char *id = kt_json_str(d, "toolCallId");

		if (id && kt_impx_call_seq(&x->calls, id))
			return 0; /* requested by the message before */
		return kt_impx_call(x->imp, &x->calls, id,
				    kt_json_str(d, "toolName"),
				    cJSON_GetObjectItem(d, "arguments"), 0, ts,
				    "agent", NULL, at, NULL);
	}
	if (!strcmp(ty, "tool.execution_complete")) {
		const cJSON *res = cJSON_GetObjectItem(d, "result");
		const cJSON *err = cJSON_GetObjectItem(d, "error");
		const char *out = kt_json_str(res, "content");
		char *alloc = NULL;

		if (!out && err)
			out = kt_json_str(err, "message") ?
				kt_json_str(err, "message") :
				(alloc = cJSON_PrintUnformatted(err));
		rc = result(x, kt_json_str(d, "toolCallId"), out,
			    !cJSON_IsFalse(cJSON_GetObjectItem(d, "success")) &&
			    !err, ts, at);
		free(alloc);
		return rc;
	}
	{
		/* kept, not modelled: a note naming the event */
		cJSON *pl = cJSON_CreateObject(), *ex;

		if (!pl)
			return KT_ENOMEM;
		cJSON_AddStringToObject(pl, "text", ty);
		if (d && (ex = cJSON_AddObjectToObject(pl, "extra")))
			cJSON_AddItemToObject(ex, "data", cJSON_Duplicate(d, 1));
		return kt_impx_emit_valid(x->imp, NULL, KT_KIND_NOTE, 0, ts,
					  "system", pl, at->line, at->off,
					  at->len, NULL);
	}
}

/* A timeline item of the legacy document. */
static int on_item(copx *x, const cJSON *t, const kt_impx_at *at)
{
	const char *ty = kt_json_str(t, "type"), *text = kt_json_str(t, "text");
	int64_t ts = kt_impx_ts_json(cJSON_GetObjectItem(t, "timestamp"));

	if (!ty)
		return 1;
	if (!strcmp(ty, "user"))
		return msg(x, "user", 1, text, NULL, "human", ts, at,
			   kt_json_str(t, "id"));
	if (!strcmp(ty, "copilot"))
		return msg(x, "assistant", 0, text, NULL, "agent", ts, at,
			   kt_json_str(t, "id"));
	if (!strncmp(ty, "tool_call", 9)) {
		const cJSON *av = cJSON_GetObjectItem(t, "arguments");
		const cJSON *rv = cJSON_GetObjectItem(t, "result");
		int arc = 0, rrc = 0, rc;
		cJSON *args = cJSON_IsString(av) ?
			kt_impx_parse_lenient(av->valuestring, &arc) : NULL;
		cJSON *res = cJSON_IsString(rv) ?
			kt_impx_parse_lenient(rv->valuestring, &rrc) :
			cJSON_Duplicate(rv, 1);
		const char *id = kt_json_str(t, "callId");
		const char *rt = kt_json_str(res, "type");
		const char *log = kt_json_str(res, "log");
		cJSON *ex = NULL;

		/* out of memory is not a string that holds no JSON */
		if (arc == KT_ENOMEM || rrc == KT_ENOMEM) {
			cJSON_Delete(args);
			cJSON_Delete(res);
			return KT_ENOMEM;
		}

		if (kt_json_str(t, "intentionSummary") &&
		    (ex = cJSON_CreateObject()))
			cJSON_AddStringToObject(ex, "intention",
						kt_json_str(t, "intentionSummary"));
		rc = kt_impx_call(x->imp, &x->calls, id, kt_json_str(t, "name"),
				  args ? args : av, 0, ts, "agent", ex, at,
				  NULL);
		if (!rc && strcmp(ty, "tool_call_requested"))
			rc = result(x, id, log ? log : cJSON_IsString(rv) ?
				    rv->valuestring : "",
				    !rt || !strcmp(rt, "success"), ts, at);
		cJSON_Delete(args);
		cJSON_Delete(res);
		return rc;
	}
	return msg(x, "system", 0, text, "meta", "system", ts, at,
		   kt_json_str(t, "id"));
}

static int legacy(copx *x, const kt_file *f, cJSON *doc)
{
	const cJSON *tl = cJSON_GetObjectItem(doc, "timeline"), *t;
	cJSON *meta = cJSON_CreateObject();
	kt_impx_span *sp = NULL;
	long nsp, i = -1;
	int rc;

	if (meta && kt_json_str(doc, "startTime"))
		cJSON_AddStringToObject(meta, "start_time",
					kt_json_str(doc, "startTime"));
	if ((rc = kt_impx_begin(x->imp, f, "copilot_cli",
				kt_json_str(doc, "sessionId"), NULL, meta)))
		return rc;
	nsp = kt_impx_spans((const char *)f->data, f->len, "timeline", &sp);
	cJSON_ArrayForEach(t, tl) {
		kt_impx_at at = kt_impx_at_span(sp, nsp, ++i);

		rc = cJSON_IsObject(t) ? on_item(x, t, &at) : 1;
		if (rc == 1) {
			kt_imp_warn(x->imp, f, at.line, "timeline item %ld has "
				    "no type: skipped", i);
			rc = 0;
		}
		if (rc)
			break;
	}
	free(sp);
	return kt_imp_run_finish(x->imp, rc);
}

static int cop_import(kt_imp *imp, const kt_file *f)
{
	cJSON *doc, *meta = NULL;
	kt_impx_rec *r = NULL;
	size_t n = 0, i;
	const char *sid = NULL;
	copx x;
	int rc;

	memset(&x, 0, sizeof(x));
	x.imp = imp;
	doc = kt_cjson_parse((const char *)f->data, f->len, NULL, &rc);
	if (!doc && rc == KT_ENOMEM)
		return rc;
	if (doc && cJSON_IsArray(cJSON_GetObjectItem(doc, "timeline"))) {
		if (kt_imp_json_strict(imp, f, 0, (const char *)f->data,
				       f->len, &doc))
			return KT_EPARSE;
		rc = legacy(&x, f, doc);
		kt_impx_calls_free(&x.calls);
		cJSON_Delete(doc);
		return rc;
	}
	if (!doc && kt_impx_doc_bad(imp, f))
		return KT_EPARSE;
	cJSON_Delete(doc);
	if ((rc = kt_impx_jsonl_all(imp, f, &r, &n)))
		return rc;
	for (i = 0; i < n && !sid; i++) {
		const char *ty = kt_json_str(r[i].o, "type");
		const cJSON *d = cJSON_GetObjectItem(r[i].o, "data");

		if (ty && !strcmp(ty, "session.start")) {
			const cJSON *ctx = cJSON_GetObjectItem(d, "context");
			static const char *const keys[] = {
				"copilotVersion", "producer", "startTime", NULL
			};

			sid = kt_json_str(d, "sessionId");
			x.cwd = kt_json_str(ctx, "cwd");
			if (!(meta = cJSON_CreateObject()))
				break;
			for (int k = 0; keys[k]; k++)
				if (kt_json_str(d, keys[k]))
					cJSON_AddStringToObject(meta, keys[k],
						kt_json_str(d, keys[k]));
			if (ctx)
				cJSON_AddItemToObject(meta, "context",
						      cJSON_Duplicate(ctx, 1));
		}
	}
	if ((rc = kt_impx_begin(imp, f, "copilot_cli", sid, NULL, meta)))
		goto out;
	for (i = 0; i < n && !rc; i++) {
		rc = on_event(&x, r[i].o, &r[i].at);
		if (rc == 1) {
			kt_imp_warn(imp, f, r[i].at.line, "no \"type\": line "
				    "skipped");
			rc = 0;
		}
	}
	rc = kt_imp_run_finish(imp, rc);
out:
	kt_impx_calls_free(&x.calls);
	kt_impx_recs_free(r, n);
	return rc;
}

const kt_importer kt_importer_copilot_cli = {
	.name = "copilot_cli",
	.summary = "GitHub Copilot CLI session (events.jsonl or legacy JSON)",
	.detect = cop_detect,
	.import = cop_import,
};
