/*
 * imp_cline.c - Cline (and its fork Roo Code) sessions, both layouts.
 * Source: cline/cline apps/vscode/src/core/storage/disk.ts (task folder
 * file names), apps/vscode/src/shared/ExtensionMessage.ts (ClineMessage,
 * ClineSay, ClineAsk, ClineSayTool), sdk/packages/core/src/session/stores/
 * (session manifest and messages files), sdk/packages/core/src/extensions/
 * tools/definitions.ts (editor, run_commands, read_files).
 *
 * Newer (SDK/CLI) layout, ~/.cline/data/sessions/<id>/:
 *   <id>.json           manifest {session_id, started_at, ended_at, cwd,
 *                       model, status, metadata{title, fork}, messages_path}
 *   <id>.messages.json  {sessionId, agent, messages[], system_prompt}, the
 *                       messages Anthropic-shaped {id, role, ts (epoch ms),
 *                       content: string or blocks text|file|tool_use|
 *                       tool_result|image|thinking, modelInfo, metrics}
 *   Either file given imports the pair (the other is claimed): identity
 *   "cline:<session id>".  Text blocks of user messages are the person's
 *   (human true); tool_result blocks are results, paired by tool_use_id;
 *   a `file` block (an @-mentioned file Cline inlined) seeds the workspace;
 *   the system prompt is a meta system message.  editor {path, old_text,
 *   new_text, insert_line} and run_commands {commands[]} have effects
 *   (kt_conv_agent_edit, shared with the import of an export of the run).
 *
 * Older (VS Code extension) task folder, tasks/<id>/:
 *   ui_messages.json    [{ts, type: say|ask, say|ask, text, partial, ...}]
 *   api_conversation_history.json  the model's view of the same turns
 *   task_metadata.json  {files_in_context, model_usage, ...}
 *   The run is read from ui_messages.json (it has the times and what the
 *   person saw and typed); the other two are claimed, task_metadata's
 *   model_usage kept in the run's meta; identity "cline:<folder name>".
 *   say task / user_feedback: the person's text; say text, reasoning,
 *   completion_result, ask followup: the agent's; ask/say command then
 *   command_output lines: a shell tool call and its output; ask/say tool
 *   (a ClineSayTool JSON): a tool call whose edit is newFileCreated
 *   (content), editedExistingFile (SEARCH/REPLACE diff, or the whole
 *   content) or fileDeleted; api_req_started: its token counts go to the
 *   next agent message's usage; error, diff_error and the like: meta
 *   system messages; partial messages and empty status lines are dropped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "impx.h"
#include "impconv.h"

#define WIN 4096

static int has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && !strcmp(s + n - m, suf);
}

static const char *rel_of(const kt_file *f)
{
	return f->rel ? f->rel : kt_impx_base(f->path);
}

static int cline_detect(const kt_file *f)
{
	size_t n = f->len < WIN ? f->len : WIN;
	const char *b = kt_impx_base(rel_of(f));

	/* {version, updated_at, agent, sessionId, messages, system_prompt};
	 * Gemini CLI's session document has sessionId and messages too, with
	 * projectHash and startTime instead */
	if (kt_impx_sniff(f->data, n, "sessionId", NULL) &&
	    kt_impx_sniff(f->data, n, "messages", NULL) &&
	    (kt_impx_sniff(f->data, n, "agent", NULL) ||
	     kt_impx_sniff(f->data, n, "updated_at", NULL)) &&
	    !kt_impx_sniff(f->data, n, "projectHash", NULL))
		return 80;
	if (kt_impx_sniff(f->data, n, "session_id", NULL) &&
	    kt_impx_sniff(f->data, n, "messages_path", NULL))
		return 80;
	if (!strcmp(b, "ui_messages.json") ||
	    ((kt_impx_sniff(f->data, n, "say", NULL) ||
	      kt_impx_sniff(f->data, n, "ask", NULL)) &&
	     kt_impx_sniff(f->data, n, "ts", NULL) &&
	     kt_impx_sniff(f->data, n, "type", NULL)))
		return f->len && (f->data[0] == '[' || !strcmp(b,
			"ui_messages.json")) ? 75 : 0;
	if (!strcmp(b, "api_conversation_history.json") ||
	    !strcmp(b, "task_metadata.json"))
		return 40; /* read with ui_messages.json beside them */
	return 0;
}

/* A sibling of rel in the same folder: malloc'ed "dir/name". */
static char *sibling(const char *rel, const char *name)
{
	const char *sl = strrchr(rel, '/');
	size_t d = sl ? (size_t)(sl - rel) + 1 : 0;
	char *p = malloc(d + strlen(name) + 1);

	if (p) {
		memcpy(p, rel, d);
		strcpy(p + d, name);
	}
	return p;
}

static cJSON *open_json(kt_imp *imp, const char *rel, const kt_file **out)
{
	const kt_file *g = NULL;

	if (kt_imp_open(imp, rel, &g) || !g)
		return NULL;
	kt_imp_claim(imp, rel);
	if (out)
		*out = g;
	return kt_impx_parse(imp, g);
}

/* ---- newer layout: <id>.json + <id>.messages.json ------------------------ */
static cJSON *usage_of(const cJSON *m)
{
	static const char *const keys[4] = { "inputTokens", "outputTokens",
		"cacheReadTokens", "cacheWriteTokens" };

	return kt_impx_usage(cJSON_GetObjectItem(m, "metrics"), keys);
}

static int sdk_message(kt_conv *cv, const cJSON *m, const kt_impx_span *sp)
{
	const char *role = kt_json_str(m, "role");
	const cJSON *content = cJSON_GetObjectItem(m, "content"), *b;
	int64_t ts = kt_impx_ts_json(cJSON_GetObjectItem(m, "ts"));
	int user = role && !strcmp(role, "user");
	struct kt_buf text;
	cJSON *observed = NULL;
	char *t;
	int rc = 0;

	if (!role || (strcmp(role, "user") && strcmp(role, "assistant"))) {
		kt_imp_warn(cv->imp, cv->f, sp->line, "message without a user "
			    "or assistant role: skipped");
		return 0;
	}
	memset(&text, 0, sizeof(text));
	if (cJSON_IsString(content))
		kt_buf_printf(&text, "%s", content->valuestring);
	cJSON_ArrayForEach(b, content) {
		const char *ty = kt_json_str(b, "type");

		if (ty && !strcmp(ty, "text") && kt_json_str(b, "text"))
			kt_buf_printf(&text, "%s%s", text.len ? "\n" : "",
				      kt_json_str(b, "text"));
	}
	if (!(t = kt_buf_take(&text)))
		return KT_ENOMEM;
	if (*t) {
		cJSON *more = cJSON_CreateObject();

		if (more && kt_json_str(m, "id"))
			cJSON_AddStringToObject(more, "msg_id",
						kt_json_str(m, "id"));
		if (more && !user) {
			cJSON *u = usage_of(m);
			const char *model = kt_json_str(cJSON_GetObjectItem(m,
							"modelInfo"), "id");

			if (u)
				cJSON_AddItemToObject(more, "usage", u);
			if (model)
				cJSON_AddStringToObject(more, "model", model);
		}
		rc = kt_conv_msg(cv, user ? "user" : "assistant", user, t, NULL,
				 more, ts, sp, NULL);
	} else if (!user) {
		cv->last_assistant = 0;
	}
	free(t);
	cJSON_ArrayForEach(b, content) {
		const char *ty = kt_json_str(b, "type");

		if (rc || !ty)
			break;
		if (!strcmp(ty, "tool_use")) {
			rc = kt_conv_call(cv, kt_json_str(b, "id"),
					  kt_json_str(b, "name"),
					  cJSON_GetObjectItem(b, "input"), NULL, 0,
					  ts, sp, NULL);
		} else if (!strcmp(ty, "tool_result")) {
			const cJSON *c = cJSON_GetObjectItem(b, "content");
			char *out = kt_impx_content_text(c);

			/* the SDK's tools answer [{query, result}]: kept as JSON */
			if ((!out || !*out) && c && !cJSON_IsString(c)) {
				free(out);
				out = cJSON_PrintUnformatted(c);
			}

			rc = kt_conv_result(cv, kt_json_str(b, "tool_use_id"),
					    out, cJSON_IsTrue(cJSON_GetObjectItem(
						    b, "is_error")) ? 0 : 1,
					    NULL, ts, sp);
			free(out);
		} else if (!strcmp(ty, "file") && kt_json_str(b, "path") &&
			   kt_json_str(b, "content")) {
			/* an @-mention inlined: the file as it was */
			const char *c = kt_json_str(b, "content");
			char *p = kt_ws_path(cv->cwd, kt_json_str(b, "path"));

			if (!p || (!observed && !(observed = cJSON_CreateObject())))
				rc = KT_ENOMEM;
			else
				rc = kt_ws_observe(cv->imp, p, c, strlen(c),
						   observed);
			free(p);
		}
	}
	cJSON_Delete(observed);
	return rc;
}

static int sdk_import(kt_imp *imp, const kt_file *f, cJSON *doc)
{
	const char *rel = rel_of(f), *sid;
	const kt_file *mf = f, *sf = NULL;
	cJSON *man = NULL, *msgs = NULL, *meta;
	char *other = NULL, ident[300];
	const cJSON *m, *arr;
	kt_impx_span *sp = NULL;
	long nsp = 0, i = 0;
	kt_conv cv;
	int rc;

	if (kt_json_str(doc, "messages_path")) {
		/* the manifest: its messages file is <id>.messages.json */
		const char *id = kt_json_str(doc, "session_id");
		char nm[256];

		man = doc;
		sf = f;
		/* beside it as <name>.messages.json, or named by the id */
		snprintf(nm, sizeof(nm), "%.*s.messages.json",
			 (int)(strlen(kt_impx_base(rel)) - 5),
			 kt_impx_base(rel));
		if ((other = sibling(rel, nm)))
			msgs = open_json(imp, other, &mf);
		free(other);
		other = NULL;
		if (!msgs && id)
			snprintf(nm, sizeof(nm), "%.200s.messages.json", id);
		if (!msgs && (!id || !(other = sibling(rel, nm)) ||
			      !(msgs = open_json(imp, other, &mf)))) {
			kt_imp_warn(imp, f, 0, "session manifest without its "
				    "messages file %s: nothing imported", nm);
			free(other);
			return 0;
		}
	} else {
		char nm[256];

		const char *b = kt_impx_base(rel);

		msgs = doc;
		sid = kt_json_str(doc, "sessionId");
		if (has_suffix(b, ".messages.json")) {
			snprintf(nm, sizeof(nm), "%.*s.json",
				 (int)(strlen(b) - 14), b);
			if ((other = sibling(rel, nm)))
				man = open_json(imp, other, &sf);
			free(other);
			other = NULL;
		}
		snprintf(nm, sizeof(nm), "%.200s.json", sid ? sid : "");
		if (!man && sid && (other = sibling(rel, nm)))
			man = open_json(imp, other, &sf);
	}
	free(other);
	sid = kt_json_str(msgs, "sessionId");
	if (!sid)
		sid = kt_json_str(man, "session_id");
	snprintf(ident, sizeof(ident), "cline:%.250s", sid ? sid : mf->sha_hex);
	if (!(meta = cJSON_CreateObject())) {
		rc = KT_ENOMEM;
		goto out;
	}
	{
		static const char *const keep[] = {
			"started_at", "ended_at", "status", "exit_code", "model",
			"provider", "cwd", "source", NULL
		};
		const cJSON *fork = cJSON_GetObjectItem(cJSON_GetObjectItem(man,
			"metadata"), "fork");

		for (int k = 0; keep[k]; k++)
			if (cJSON_GetObjectItem(man, keep[k]))
				cJSON_AddItemToObject(meta, keep[k], cJSON_Duplicate(
					cJSON_GetObjectItem(man, keep[k]), 1));
		if (kt_json_str(fork, "forkedFromSessionId"))
			cJSON_AddStringToObject(meta, "forked_from",
				kt_json_str(fork, "forkedFromSessionId"));
		if (sf)
			cJSON_AddStringToObject(meta, "manifest", rel_of(sf));
		cJSON_AddStringToObject(meta, "messages", rel_of(mf));
		if (kt_json_str(msgs, "agent"))
			cJSON_AddStringToObject(meta, "agent",
						kt_json_str(msgs, "agent"));
	}
	{
		const char *title = kt_json_str(cJSON_GetObjectItem(man,
						"metadata"), "title");

		rc = kt_imp_run_begin(imp, ident, title ? title : sid ? sid :
				      kt_impx_base(rel), "cline", meta);
	}
	if (rc)
		goto out;
	if ((rc = kt_conv_init(&cv, imp, mf, kt_json_str(man, "cwd"))))
		goto end;
	if (kt_json_str(msgs, "system_prompt"))
		rc = kt_conv_msg(&cv, "system", 0, kt_json_str(msgs,
				 "system_prompt"), "meta,system_prompt", NULL,
				 KT_TS_UNKNOWN, NULL, NULL);
	arr = cJSON_GetObjectItem(msgs, "messages");
	if (!cJSON_IsArray(arr))
		kt_imp_warn(imp, mf, 0, "no messages array: nothing imported");
	nsp = kt_impx_spans((const char *)mf->data, mf->len, "messages", &sp);
	cJSON_ArrayForEach(m, arr) {
		kt_impx_span s = kt_impx_span_at(sp, nsp, i++);

		if (rc)
			break;
		if (!cJSON_IsObject(m)) {
			kt_imp_warn(imp, mf, s.line, "message %ld is not an "
				    "object: skipped", i - 1);
			continue;
		}
		rc = sdk_message(&cv, m, &s);
	}
	kt_conv_free(&cv);
end:
	rc = kt_imp_run_finish(imp, rc);
out:
	free(sp);
	if (man != doc)
		cJSON_Delete(man);
	if (msgs != doc)
		cJSON_Delete(msgs);
	return rc;
}

/* ---- older layout: tasks/<id>/ui_messages.json ---------------------------- */
typedef struct uix {
	kt_conv cv;
	cJSON *usage;       /* of the last api_req_started, for the next reply */
	char *cmd_id;       /* the shell call whose output lines are being read */
	struct kt_buf out;
	kt_impx_span cmd_sp;
	int64_t cmd_ts;
	unsigned ncalls;
} uix;

static int end_command(uix *x)
{
	char *o;
	int rc;

	if (!x->cmd_id)
		return 0;
	if (!(o = kt_buf_take(&x->out)))
		return KT_ENOMEM;
	rc = kt_conv_result(&x->cv, x->cmd_id, o, -1, NULL, x->cmd_ts,
			    &x->cmd_sp);
	free(o);
	free(x->cmd_id);
	x->cmd_id = NULL;
	return rc;
}

/* The usage an api_req_started message's JSON text holds (NULL: none);
 * *rc gets 0 or KT_ENOMEM (its parse ran out of memory). */
static cJSON *api_usage(const char *text, int *rc)
{
	static const char *const keys[4] = { "tokensIn", "tokensOut",
		"cacheReads", "cacheWrites" };
	cJSON *j = text ? kt_cjson_parse(text, strlen(text), NULL, rc) : NULL;
	cJSON *o;

	if (!j && text && *rc == KT_ENOMEM)
		return NULL;
	*rc = 0;
	o = kt_impx_usage(j, keys);
	cJSON_Delete(j);
	return o;
}

static int ui_tool(uix *x, const char *text, int64_t ts,
		   const kt_impx_span *sp)
{
	const char *name;
	char id[32];
	int rc = 0;
	cJSON *t = text ? kt_cjson_parse(text, strlen(text), NULL, &rc) : NULL;

	/* out of memory is not a tool message whose text is no JSON */
	if (!t && rc == KT_ENOMEM)
		return rc;
	name = kt_json_str(t, "tool");
	if (!name) {
		cJSON_Delete(t);
		return kt_conv_msg(&x->cv, "system", 0, text, "meta", NULL, ts,
				   sp, NULL);
	}
	snprintf(id, sizeof(id), "ui-%u", ++x->ncalls);
	rc = kt_conv_call(&x->cv, id, name, t, NULL, 0, ts, sp, NULL);
	/* the UI shows no result of its own: the tool ran as shown */
	if (!rc)
		rc = kt_conv_result(&x->cv, id, "", 1, NULL, ts, sp);
	cJSON_Delete(t);
	return rc;
}

static int ui_message(uix *x, const cJSON *m, const kt_impx_span *sp)
{
	const char *type = kt_json_str(m, "type");
	const char *k = type && !strcmp(type, "ask") ? kt_json_str(m, "ask") :
			kt_json_str(m, "say");
	const char *text = kt_json_str(m, "text");
	int64_t ts = kt_impx_ts_json(cJSON_GetObjectItem(m, "ts"));
	int rc = 0;

	if (!type || !k) {
		kt_imp_warn(x->cv.imp, x->cv.f, sp->line, "message without "
			    "type and say/ask: skipped");
		return 0;
	}
	if (cJSON_IsTrue(cJSON_GetObjectItem(m, "partial")))
		return 0; /* a streaming copy: the whole message follows */
	if (!strcmp(k, "command_output")) {
		if (x->cmd_id)
			kt_buf_printf(&x->out, "%s%s", x->out.len ? "\n" : "",
				      text ? text : "");
		return 0;
	}
	if ((rc = end_command(x)))
		return rc;
	if (!strcmp(k, "task") || !strcmp(k, "user_feedback"))
		return kt_conv_msg(&x->cv, "user", 1, text, NULL, NULL, ts, sp,
				   NULL);
	if (!strcmp(k, "text") || !strcmp(k, "reasoning") ||
	    !strcmp(k, "completion_result") || !strcmp(k, "followup") ||
	    !strcmp(k, "plan_mode_respond")) {
		cJSON *more = NULL;

		if (!text || !*text)
			return 0;
		if (x->usage && (more = cJSON_CreateObject())) {
			cJSON_AddItemToObject(more, "usage", x->usage);
			x->usage = NULL;
		}
		return kt_conv_msg(&x->cv, "assistant", 0, text,
				   !strcmp(k, "reasoning") ? "thinking" : NULL,
				   more, ts, sp, NULL);
	}
	if (!strcmp(k, "api_req_started")) {
		cJSON_Delete(x->usage);
		x->usage = api_usage(text, &rc);
		return rc;
	}
	if (!strcmp(k, "command")) {
		char id[32];
		cJSON *a = cJSON_CreateObject();

		if (!a)
			return KT_ENOMEM;
		cJSON_AddStringToObject(a, "command", text ? text : "");
		snprintf(id, sizeof(id), "ui-%u", ++x->ncalls);
		rc = kt_conv_call(&x->cv, id, "execute_command", a, NULL, 0, ts,
				  sp, NULL);
		cJSON_Delete(a);
		if (!rc && !(x->cmd_id = strdup(id)))
			return KT_ENOMEM;
		x->cmd_sp = *sp;
		x->cmd_ts = ts;
		return rc;
	}
	if (!strcmp(k, "tool"))
		return ui_tool(x, text, ts, sp);
	if (text && *text && (!strcmp(k, "error") || !strcmp(k, "diff_error") ||
			      !strcmp(k, "info") ||
			      !strcmp(k, "api_req_failed") ||
			      !strcmp(k, "mistake_limit_reached") ||
			      !strcmp(k, "clineignore_error") ||
			      !strcmp(k, "command_permission_denied")))
		return kt_conv_msg(&x->cv, "system", 0, text, "meta", NULL, ts,
				   sp, NULL);
	return 0; /* status lines: checkpoints, api_req_finished, resume... */
}

static int task_import(kt_imp *imp, const kt_file *f, cJSON *doc)
{
	const char *rel = rel_of(f);
	char *dir = strdup(rel), *sl, *p;
	const char *name;
	cJSON *meta = cJSON_CreateObject(), *md = NULL;
	const cJSON *m;
	kt_impx_span *sp = NULL;
	long nsp, i = 0;
	char ident[300];
	uix x;
	int rc;

	if (!dir || !meta) {
		free(dir);
		cJSON_Delete(meta);
		return KT_ENOMEM;
	}
	sl = strrchr(dir, '/');
	if (sl)
		*sl = 0;
	/* the folder is named by the task id; a file alone by its hash */
	name = sl ? kt_impx_base(dir) : f->sha_hex;
	snprintf(ident, sizeof(ident), "cline:%.250s", name);
	if ((p = sibling(rel, "task_metadata.json"))) {
		md = open_json(imp, p, NULL);
		free(p);
	}
	if ((p = sibling(rel, "api_conversation_history.json"))) {
		kt_imp_claim(imp, p);
		free(p);
	}
	if (cJSON_GetObjectItem(md, "model_usage"))
		cJSON_AddItemToObject(meta, "model_usage", cJSON_Duplicate(
			cJSON_GetObjectItem(md, "model_usage"), 1));
	cJSON_AddStringToObject(meta, "layout", "task folder");
	cJSON_Delete(md);
	rc = kt_imp_run_begin(imp, ident, name, "cline", meta);
	free(dir);
	if (rc)
		return rc;
	memset(&x, 0, sizeof(x));
	if ((rc = kt_conv_init(&x.cv, imp, f, NULL)))
		goto end;
	nsp = kt_impx_spans((const char *)f->data, f->len, NULL, &sp);
	cJSON_ArrayForEach(m, doc) {
		kt_impx_span s = kt_impx_span_at(sp, nsp, i++);

		if (!cJSON_IsObject(m)) {
			kt_imp_warn(imp, f, s.line, "message %ld is not an "
				    "object: skipped", i - 1);
			continue;
		}
		if ((rc = ui_message(&x, m, &s)))
			break;
	}
	if (!rc)
		rc = end_command(&x);
	free(x.cmd_id);
	kt_buf_free(&x.out);
	cJSON_Delete(x.usage);
	free(sp);
	kt_conv_free(&x.cv);
end:
	return kt_imp_run_finish(imp, rc);
}

static int cline_import(kt_imp *imp, const kt_file *f)
{
	const char *b = kt_impx_base(rel_of(f));
	cJSON *doc;
	int rc;

	if (!strcmp(b, "api_conversation_history.json") ||
	    !strcmp(b, "task_metadata.json")) {
		/* the task is read from the ui_messages.json beside it,
		 * whichever of its files comes first */
		char *ui = sibling(rel_of(f), "ui_messages.json");
		const kt_file *g = NULL;

		if (!ui)
			return KT_ENOMEM;
		doc = open_json(imp, ui, &g);
		free(ui);
		if (!g) {
			kt_imp_note(imp, f, "no ui_messages.json beside it: a "
				    "Cline task is read from that file");
			return 0;
		}
		if (!doc)
			return KT_EPARSE;
		f = g;
	} else if (!(doc = kt_impx_parse(imp, f))) {
		return KT_EPARSE;
	}
	if (cJSON_IsArray(doc))
		rc = task_import(imp, f, doc);
	else if (cJSON_IsObject(doc) && (kt_json_str(doc, "messages_path") ||
					 cJSON_GetObjectItem(doc, "messages")))
		rc = sdk_import(imp, f, doc);
	else {
		kt_imp_warn(imp, f, 0, "neither a Cline session nor a task's "
			    "ui_messages.json: file skipped");
		rc = KT_EPARSE;
	}
	cJSON_Delete(doc);
	return rc;
}

const kt_importer kt_importer_cline = {
	.name = "cline",
	.summary = "Cline/Roo sessions: <id>.json + <id>.messages.json, or a "
		   "task folder's ui_messages.json",
	.detect = cline_detect,
	.import = cline_import,
};
