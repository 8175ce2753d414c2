/*
 * imp_amp.c - Amp threads (one JSON document per thread, T-<id>.json, as
 * Amp keeps them locally and `amp threads` exports them).
 * Sources: the thread documents in ../shared/corpus/amp/ (MANIFEST.tsv)
 * and Amp's manual on threads (ampcode.com/manual).
 *
 * Document: {v, id "T-...", created (ms since the epoch), title?,
 * messages [{role user|assistant, content [blocks], meta?{sentAt},
 * usage?{model, inputTokens, outputTokens, cacheReadInputTokens,
 * cacheCreationInputTokens}, state?}], env?{initial{trees[{displayName,
 * uri}]}}, meta?}.  Blocks: text, thinking, tool_use {id, name, input,
 * complete}, tool_result {tool_use_id | toolUseID, content | run{status,
 * result, error}}.
 *
 * Rules:
 *  - A tool result arrives as a block of a role=user message: it is a
 *    tool_result, never a person's words.  The result is linked by
 *    tool_use_id or, in Amp's own schema, camelCase toolUseID; its text is
 *    `content` (string or text blocks) or run.result (a string, or an
 *    object whose `output` and `exitCode` are read); run.status other than
 *    "done" is a failed call.
 *  - Text blocks of user messages are human (human true); thinking blocks
 *    are agent messages flagged "thinking".
 *  - Times: a message's meta.sentAt when given, else unknown (the thread's
 *    `created` dates the thread, not its messages).
 *  - Run identity: amp:<thread id>, else amp:<sha256 of the file>.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "impx.h"

#define DETECT_WINDOW 4096

static int amp_detect(const kt_file *f)
{
	size_t n = f->len < DETECT_WINDOW ? f->len : DETECT_WINDOW;
	const unsigned char *d = f->data;
	size_t i = 0;

	while (i < n && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' ||
			 d[i] == '\r'))
		i++;
	if (i >= n || d[i] != '{' || !kt_impx_sniff(d, n, "messages", NULL) ||
	    !kt_impx_sniff(d, n, "v", NULL))
		return 0;
	/* Amp thread ids are "T-<uuid>" */
	return memmem(d, n, "\"T-", 3) ? 85 : 30;
}

typedef struct ampx {
	kt_imp *imp;
	kt_impx_calls calls;
} ampx;

static cJSON *usage_of(const cJSON *m, const char **model)
{
	static const char *const keys[4] = { "inputTokens", "outputTokens",
		"cacheReadInputTokens", "cacheCreationInputTokens" };
	const cJSON *u = cJSON_GetObjectItem(m, "usage");

	*model = kt_json_str(u, "model");
	return kt_impx_usage(u, keys);
}

/* A tool_result block: its text, exit code and outcome. */
static int on_result(ampx *x, const cJSON *b, int64_t ts,
		     const kt_impx_at *at)
{
	const char *id = kt_impx_str2(b, "tool_use_id", "toolUseID");
	const cJSON *run = cJSON_GetObjectItem(b, "run");
	const cJSON *res = cJSON_GetObjectItem(run, "result");
	const char *st = kt_json_str(run, "status");
	char *text = NULL;
	int ok = !cJSON_IsTrue(cJSON_GetObjectItem(b, "is_error")), ec = -1;
	cJSON *extra = NULL;
	double d;
	int rc;

	if (st && strcmp(st, "done"))
		ok = 0;
	if (cJSON_IsObject(res)) {
		if (kt_impx_num(res, "exitCode", &d) && d >= -1e9 && d <= 1e9)
			ec = (int)d;
		text = kt_json_str(res, "output") ?
			strdup(kt_json_str(res, "output")) :
			cJSON_PrintUnformatted(res);
	} else if (cJSON_IsString(res)) {
		text = strdup(res->valuestring);
	} else if (run && cJSON_GetObjectItem(run, "error")) {
		const cJSON *e = cJSON_GetObjectItem(run, "error");

		text = kt_json_str(e, "message") ?
			strdup(kt_json_str(e, "message")) :
			cJSON_PrintUnformatted(e);
	} else {
		text = kt_impx_content_text(cJSON_GetObjectItem(b, "content"));
	}
	if (ec > 0)
		ok = 0;
	if (st && (extra = cJSON_CreateObject()))
		cJSON_AddStringToObject(extra, "status", st);
	rc = kt_impx_result(x->imp, &x->calls, id, text ? text : "", ok, ec,
			    NULL, ts, extra, at, NULL);
	free(text);
	return rc;
}

static int on_message(ampx *x, const cJSON *m, const kt_impx_at *at)
{
	const char *role = kt_json_str(m, "role");
	const cJSON *c = cJSON_GetObjectItem(m, "content"), *b;
	int user = role && !strcmp(role, "user");
	int64_t ts = kt_impx_ts_json(cJSON_GetObjectItem(
		cJSON_GetObjectItem(m, "meta"), "sentAt"));
	const char *model = NULL;
	cJSON *usage = user ? NULL : usage_of(m, &model);
	uint64_t last = 0;
	int rc = 0;

	if (!role) {
		cJSON_Delete(usage);
		return 1; /* warned by the caller */
	}
	if (cJSON_IsString(c)) {
		cJSON *p = kt_impx_msg(user ? "user" : "assistant", user,
				       c->valuestring, NULL);

		if (p && usage)
			cJSON_AddItemToObject(p, "usage", usage);
		else
			cJSON_Delete(usage);
		return kt_impx_emit_valid(x->imp, NULL, KT_KIND_MESSAGE, 0, ts,
					  user ? "human" : "agent", p, at->line,
					  at->off, at->len, NULL);
	}
	cJSON_ArrayForEach(b, c) {
		const char *t = kt_json_str(b, "type");

		if (!t)
			continue;
		if (!strcmp(t, "text") || !strcmp(t, "thinking")) {
			int th = !strcmp(t, "thinking");
			const char *s = kt_json_str(b, th ? "thinking" : "text");
			cJSON *p;

			if (!s || (!*s && th))
				continue;
			p = kt_impx_msg(user ? "user" : "assistant",
					user && !th, s, th ? "thinking" : NULL);
			if (!p) {
				rc = KT_ENOMEM;
				break;
			}
			if (usage) {
				cJSON_AddItemToObject(p, "usage", usage);
				usage = NULL;
			}
			if (model && !user)
				cJSON_AddStringToObject(p, "model", model);
			rc = kt_impx_emit_valid(x->imp, NULL, KT_KIND_MESSAGE, 0,
						ts, user ? "human" : "agent", p,
						at->line, at->off, at->len,
						&last);
		} else if (!strcmp(t, "tool_use")) {
			cJSON *ex = NULL;

			if (cJSON_IsFalse(cJSON_GetObjectItem(b, "complete")) &&
			    (ex = cJSON_CreateObject()))
				cJSON_AddBoolToObject(ex, "complete", 0);
			rc = kt_impx_call(x->imp, &x->calls, kt_json_str(b, "id"),
					  kt_json_str(b, "name"),
					  cJSON_GetObjectItem(b, "input"), last,
					  ts, "agent", ex, at, NULL);
		} else if (!strcmp(t, "tool_result")) {
			rc = on_result(x, b, ts, at);
		}
		if (rc)
			break;
	}
	cJSON_Delete(usage);
	return rc;
}

static int amp_import(kt_imp *imp, const kt_file *f)
{
	cJSON *doc, *meta = NULL;
	const cJSON *msgs, *m, *tree;
	const char *id, *title;
	kt_impx_span *sp = NULL;
	long nsp, i = -1;
	ampx x;
	int rc = 0;

	memset(&x, 0, sizeof(x));
	x.imp = imp;
	if (!(doc = kt_impx_parse(imp, f)))
		return KT_EPARSE;
	if (!cJSON_IsArray(msgs = cJSON_GetObjectItem(doc, "messages"))) {
		kt_imp_warn(imp, f, 0, "no messages array: not an Amp thread");
		cJSON_Delete(doc);
		return KT_EPARSE;
	}
	id = kt_json_str(doc, "id");
	title = kt_json_str(doc, "title");
	if (!(meta = cJSON_CreateObject())) {
		rc = KT_ENOMEM;
		goto out;
	}
	tree = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
		cJSON_GetObjectItem(doc, "env"), "initial"), "trees"), 0);
	if (kt_json_str(tree, "displayName"))
		cJSON_AddStringToObject(meta, "project",
					kt_json_str(tree, "displayName"));
	if (cJSON_GetObjectItem(doc, "created"))
		cJSON_AddItemToObject(meta, "created", cJSON_Duplicate(
			cJSON_GetObjectItem(doc, "created"), 1));
	cJSON_AddStringToObject(meta, "timestamps",
				"per message when meta.sentAt is given");
	/* meta is the session's from here, whatever it returns */
	rc = kt_impx_begin(imp, f, "amp", id, title, meta);
	meta = NULL;
	if (rc)
		goto out;
	nsp = kt_impx_spans((const char *)f->data, f->len, "messages", &sp);
	cJSON_ArrayForEach(m, msgs) {
		kt_impx_at at = kt_impx_at_span(sp, nsp, ++i);

		rc = cJSON_IsObject(m) ? on_message(&x, m, &at) : 1;
		if (rc == 1) {
			kt_imp_warn(imp, f, at.line, "message %ld has no role: "
				    "skipped", i);
			rc = 0;
		}
		if (rc)
			break;
	}
	rc = kt_imp_run_finish(imp, rc);
out:
	kt_impx_calls_free(&x.calls);
	free(sp);
	cJSON_Delete(meta);
	cJSON_Delete(doc);
	return rc;
}

const kt_importer kt_importer_amp = {
	.name = "amp",
	.summary = "Amp thread (T-<id>.json: messages of content blocks)",
	.detect = amp_detect,
	.import = amp_import,
};
