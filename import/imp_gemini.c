/*
 * imp_gemini.c - Gemini CLI sessions (~/.gemini/tmp/<project hash>/
 * chats/session-*.json and, in newer releases, session-*.jsonl).
 * Source: google-gemini/gemini-cli packages/core/src/services/
 * chatRecordingService.ts (ConversationRecord, MessageRecord,
 * ToolCallRecord) and the real sessions in ../shared/corpus/gemini_cli/.
 *
 * Two forms of one record:
 *  - the JSON document {sessionId, projectHash, startTime, lastUpdated,
 *    kind, messages [...]};
 *  - append-only JSONL: a first line with the session fields (no type),
 *    then message records, {"$set": {...}} lines updating the session
 *    fields, and messages appended again under the same id each time they
 *    change: the last copy wins, in the place of the first.
 * Message: {id, timestamp, type user|gemini|info|error|warning, content
 * (a string, or Part[] [{text} | {functionResponse}]), displayContent?,
 * thoughts? [{subject, description, timestamp}], tokens? {input, output,
 * cached, thoughts, tool, total}, model?, toolCalls? [{id, name, args,
 * result [{functionResponse {id, name, response {output | error}}}],
 * status success|error|cancelled, timestamp, resultDisplay, ...}]}.
 *
 * Rules:
 *  - A gemini message gives its thoughts (one message flagged
 *    "thinking"), its text, then each tool call followed by its result
 *    (the result lives in the call record; the call's own timestamp
 *    dates both).  Tool calls go through the shared editor and shell
 *    effects (write_file, replace, run_shell_command with its "Exit
 *    Code: N").
 *  - user messages are human unless their displayContent says the person
 *    typed something else: a slash command ("/init": the content is its
 *    expansion, flag "command") or nothing (a functionResponse: the CLI
 *    continued on its own, flag "meta").  A display text the person typed
 *    (with @file references expanded in content) is the human text, the
 *    content kept in extra.  info/error/warning are system meta messages.
 *  - tokens: input counts the cached part (Gemini API promptTokenCount),
 *    so usage.input = input - cached, cache_read = cached; the record's
 *    tokens stay whole in extra.tokens.
 *  - Run identity: gemini_cli:<sessionId>, else gemini_cli:<sha256 of the
 *    file>.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "impx.h"

#define DETECT_WINDOW 4096

static int gem_detect(const kt_file *f)
{
	size_t n = f->len < DETECT_WINDOW ? f->len : DETECT_WINDOW;
	const unsigned char *d = f->data;

	if (kt_impx_sniff(d, n, "sessionId", NULL) &&
	    kt_impx_sniff(d, n, "projectHash", NULL))
		return 85;
	return 0;
}

typedef struct gx {
	kt_imp *imp;
	kt_impx_calls calls;
} gx;

typedef struct gmsg {
	const cJSON *o;    /* the last copy */
	kt_impx_at at;
} gmsg;

/* Gemini's shell result: "Exit Code: N" on a line of its own.  *rc as
 * kt_impx_exit_code's. */
static int exit_of(const char *out, int *rc)
{
	const char *p = out;

	*rc = 0;
	while (p && (p = strstr(p, "Exit Code: "))) {
		if ((p == out || p[-1] == '\n') && isdigit((unsigned char)p[11]))
			return atoi(p + 11);
		p += 11;
	}
	return kt_impx_exit_code(out ? out : "", rc);
}

static int emit_msg(gx *x, cJSON *pl, const char *actor, int64_t ts,
		    const kt_impx_at *at)
{
	return kt_impx_emit_valid(x->imp, NULL, KT_KIND_MESSAGE, 0, ts, actor,
				  pl, at->line, at->off, at->len, NULL);
}

/*
 * A read_file of a whole file (no offset, limit or line range) returns its
 * text as is (gemini-cli tools/read-file.ts; a cut one says "IMPORTANT:
 * The file content has been truncated"): the workspace learns the file,
 * so a later write_file of it is a change, not a creation.
 */
static int observe(gx *x, const cJSON *args, const char *out)
{
	const char *p = kt_json_str(args, "file_path");
	const cJSON *a;

	cJSON_ArrayForEach(a, args)
		if (strcmp(a->string, "file_path"))
			return 0;
	if (!p || !strncmp(out, "IMPORTANT:", 10))
		return 0;
	return kt_ws_observe(x->imp, p, out, strlen(out), NULL);
}

static int on_call(gx *x, const cJSON *tc, int64_t mts, const kt_impx_at *at)
{
	const char *id = kt_json_str(tc, "id"), *st = kt_json_str(tc, "status");
	const char *name = kt_json_str(tc, "name");
	const cJSON *r, *fr, *resp;
	int64_t ts = kt_impx_ts_json(cJSON_GetObjectItem(tc, "timestamp"));
	char *out = NULL;
	cJSON *ex = cJSON_CreateObject();
	int ok, rc, ec;
	static const char *const known[] = { "id", "name", "args", "result",
					      "status", "timestamp",
					      "resultDisplay", NULL };

	if (ts == KT_TS_UNKNOWN)
		ts = mts;
	if (ex && kt_impx_keep_extra(ex, tc, known)) {
		cJSON_Delete(ex);
		return KT_ENOMEM;
	}
	/* keep_extra nests under "extra": lift it */
	if (ex && cJSON_GetObjectItem(ex, "extra")) {
		cJSON *in = cJSON_DetachItemFromObject(ex, "extra");

		cJSON_Delete(ex);
		ex = in;
	} else if (ex) {
		cJSON_Delete(ex);
		ex = NULL;
	}
	if ((rc = kt_impx_call(x->imp, &x->calls, id, name,
			       cJSON_GetObjectItem(tc, "args"), 0, ts, "agent",
			       ex, at, NULL)))
		return rc;
	r = cJSON_GetObjectItem(tc, "result");
	if (!cJSON_IsArray(r) && !st)
		return 0; /* not finished */
	ok = !st || !strcmp(st, "success");
	cJSON_ArrayForEach(fr, r) {
		const cJSON *e;
		char *t;

		resp = cJSON_GetObjectItem(cJSON_GetObjectItem(fr,
			"functionResponse"), "response");
		e = cJSON_GetObjectItem(resp, "error");
		if (e && !cJSON_IsNull(e))
			ok = 0;
		if (kt_json_str(resp, "output"))
			t = strdup(kt_json_str(resp, "output"));
		else if (kt_json_str(resp, "error"))
			t = strdup(kt_json_str(resp, "error"));
		else if (resp)
			t = cJSON_PrintUnformatted(resp);
		else
			t = kt_impx_content_text(fr);
		if (!t)
			continue;
		if (out) {
			char *j = malloc(strlen(out) + strlen(t) + 2);

			if (j)
				sprintf(j, "%s\n%s", out, t);
			free(out);
			free(t);
			out = j;
		} else {
			out = t;
		}
	}
	if (!out && kt_json_str(tc, "resultDisplay"))
		out = strdup(kt_json_str(tc, "resultDisplay"));
	/* only the shell tool's text ends in its exit code; a file read may
	 * hold those words too */
	ec = out && name && !strcmp(name, "run_shell_command") ?
		exit_of(out, &rc) : -1;
	if (rc) {
		free(out);
		return rc;
	}
	if (ec > 0)
		ok = 0;
	if (ok && out && name && !strcmp(name, "read_file") &&
	    (rc = observe(x, cJSON_GetObjectItem(tc, "args"), out))) {
		free(out);
		return rc;
	}
	ex = NULL;
	if (st && (ex = cJSON_CreateObject()))
		cJSON_AddStringToObject(ex, "status", st);
	rc = kt_impx_result(x->imp, &x->calls, id, out ? out : "", ok, ec, NULL,
			    ts, ex, at, NULL);
	free(out);
	return rc;
}

static int on_user(gx *x, const cJSON *m, int64_t ts, const kt_impx_at *at)
{
	const cJSON *c = cJSON_GetObjectItem(m, "content");
	const cJSON *dc = cJSON_GetObjectItem(m, "displayContent"), *p;
	char *text = kt_impx_content_text(c), *disp = dc ? kt_impx_content_text(dc) : NULL;
	const char *flags = NULL, *shown = text;
	int human = 1, rc = 0;
	cJSON *pl;

	/* results given back as parts of a user turn (older records) */
	cJSON_ArrayForEach(p, c) {
		const cJSON *fr = cJSON_GetObjectItem(p, "functionResponse");
		const cJSON *resp = cJSON_GetObjectItem(fr, "response");
		char *t;

		if (!fr)
			continue;
		t = kt_json_str(resp, "output") ?
			strdup(kt_json_str(resp, "output")) :
			cJSON_PrintUnformatted(resp);
		rc = kt_impx_result(x->imp, &x->calls, kt_json_str(fr, "id"),
				    t ? t : "", !cJSON_GetObjectItem(resp, "error"),
				    -1, NULL, ts, NULL, at, NULL);
		free(t);
		if (rc)
			goto out;
	}
	if (!text || !*text)
		goto out;
	if (dc && !disp) {
		human = 0;
		flags = "meta"; /* the CLI went on by itself */
	} else if (disp && strcmp(disp, text)) {
		if (disp[0] == '/') {
			human = 0;
			flags = "command";
		} else {
			shown = disp;
		}
	}
	if (!(pl = kt_impx_msg("user", human, shown, flags))) {
		rc = KT_ENOMEM;
		goto out;
	}
	if (disp && strcmp(disp, text)) {
		cJSON *ex = cJSON_AddObjectToObject(pl, "extra");

		if (ex)
			cJSON_AddStringToObject(ex, shown == disp ? "content"
						: "display", shown == disp ?
						text : disp);
	}
	if (kt_json_str(m, "id"))
		cJSON_AddStringToObject(pl, "msg_id", kt_json_str(m, "id"));
	rc = emit_msg(x, pl, human ? "human" : "system", ts, at);
out:
	free(text);
	free(disp);
	return rc;
}

static cJSON *usage_of(const cJSON *tk)
{
	double in = 0, out = 0, cached = 0;
	cJSON *u;

	if (!cJSON_IsObject(tk) || !(u = cJSON_CreateObject()))
		return NULL;
	kt_impx_num(tk, "input", &in);
	kt_impx_num(tk, "output", &out);
	kt_impx_num(tk, "cached", &cached);
	kt_imp_add_count(u, "input", in > cached ? in - cached : 0);
	kt_imp_add_count(u, "output", out);
	kt_imp_add_count(u, "cache_read", cached);
	return u;
}

static int on_gemini(gx *x, const cJSON *m, int64_t ts, const kt_impx_at *at)
{
	const cJSON *th, *tc, *tk = cJSON_GetObjectItem(m, "tokens");
	const char *model = kt_json_str(m, "model");
	cJSON *usage = usage_of(tk);
	char *text = kt_impx_content_text(cJSON_GetObjectItem(m, "content"));
	struct kt_buf thought = { 0 };
	int rc = 0;

	/* thoughts: "subject: description", one message */
	cJSON_ArrayForEach(th, cJSON_GetObjectItem(m, "thoughts")) {
		const char *s = kt_json_str(th, "subject");
		const char *d = kt_json_str(th, "description");

		kt_buf_printf(&thought, "%s%s%s%s", thought.len ? "\n\n" : "",
			      s ? s : "", s && d ? ": " : "", d ? d : "");
	}
	if ((rc = thought.err))
		goto out;
	for (int k = 0; k < 2 && !rc; k++) {
		const char *t = k ? text : thought.s;
		cJSON *pl;

		if (!t || !*t)
			continue;
		if (!(pl = kt_impx_msg("assistant", 0, t,
				       k ? NULL : "thinking"))) {
			rc = KT_ENOMEM;
			break;
		}
		if (model)
			cJSON_AddStringToObject(pl, "model", model);
		if (kt_json_str(m, "id"))
			cJSON_AddStringToObject(pl, "msg_id",
						kt_json_str(m, "id"));
		if (usage) {
			cJSON *ex = cJSON_AddObjectToObject(pl, "extra");

			cJSON_AddItemToObject(pl, "usage", usage);
			usage = NULL;
			if (ex)
				cJSON_AddItemToObject(ex, "tokens",
						      cJSON_Duplicate(tk, 1));
		}
		rc = emit_msg(x, pl, "agent", ts, at);
	}
	cJSON_ArrayForEach(tc, cJSON_GetObjectItem(m, "toolCalls")) {
		if (rc)
			break;
		rc = on_call(x, tc, ts, at);
	}
out:
	cJSON_Delete(usage);
	free(text);
	kt_buf_free(&thought);
	return rc;
}

static int on_message(gx *x, const cJSON *m, const kt_impx_at *at)
{
	const char *ty = kt_json_str(m, "type");
	int64_t ts = kt_impx_ts_json(cJSON_GetObjectItem(m, "timestamp"));

	if (!ty)
		return 1;
	if (!strcmp(ty, "user"))
		return on_user(x, m, ts, at);
	if (!strcmp(ty, "gemini"))
		return on_gemini(x, m, ts, at);
	{
		char *t = kt_impx_content_text(cJSON_GetObjectItem(m, "content"));
		char fl[32];
		cJSON *pl;

		snprintf(fl, sizeof(fl), "meta,%.20s", ty);
		pl = kt_impx_msg("system", 0, t ? t : "", fl);
		free(t);
		return emit_msg(x, pl, "system", ts, at);
	}
}

/* The messages in order, each its last copy (JSONL) or as given. */
static int jsonl_messages(kt_impx_rec *r, size_t n, gmsg **out, size_t *nm,
			  cJSON *meta)
{
	kt_strmap at = { 0 };
	gmsg *v = calloc(n + 1, sizeof(*v));
	size_t k = 0;

	if (!v)
		return KT_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const cJSON *o = r[i].o, *set = cJSON_GetObjectItem(o, "$set");
		const char *id = kt_json_str(o, "id");
		void **slot;

		if (cJSON_IsObject(set)) {
			const cJSON *it;

			cJSON_ArrayForEach(it, set) {
				cJSON_DeleteItemFromObject(meta, it->string);
				cJSON_AddItemToObject(meta, it->string,
						      cJSON_Duplicate(it, 1));
			}
			continue;
		}
		if (cJSON_IsObject(o) && !kt_json_str(o, "type") && !id) {
			/* the session line */
			const cJSON *it;

			cJSON_ArrayForEach(it, o)
				if (strcmp(it->string, "sessionId") &&
				    !cJSON_GetObjectItem(meta, it->string))
					cJSON_AddItemToObject(meta, it->string,
						cJSON_Duplicate(it, 1));
			continue;
		}
		if (id && (slot = kt_strmap_slot(&at, id, 1))) {
			if (*slot) {
				gmsg *g = &v[(uintptr_t)*slot - 1];

				g->o = o;
				g->at = r[i].at;
				continue;
			}
			*slot = (void *)(uintptr_t)(k + 1);
		} else if (id) {
			kt_strmap_free(&at, NULL);
			free(v);
			return KT_ENOMEM;
		}
		v[k].o = o;
		v[k].at = r[i].at;
		k++;
	}
	kt_strmap_free(&at, NULL);
	*out = v;
	*nm = k;
	return 0;
}

static int gem_import(kt_imp *imp, const kt_file *f)
{
	cJSON *doc = NULL, *meta = cJSON_CreateObject();
	kt_impx_rec *r = NULL;
	size_t nr = 0, nm = 0, i;
	gmsg *ms = NULL;
	const char *sid = NULL;
	gx x;
	int rc = 0;

	memset(&x, 0, sizeof(x));
	x.imp = imp;
	if (!meta)
		return KT_ENOMEM;
	doc = kt_cjson_parse((const char *)f->data, f->len, NULL, &rc);
	if (!doc && rc == KT_ENOMEM) {
		cJSON_Delete(meta);
		return rc;
	}
	if (doc && cJSON_IsArray(cJSON_GetObjectItem(doc, "messages"))) {
		/* the JSON document */
		kt_impx_span *sp = NULL;
		long nsp;
		const cJSON *m, *it;

		if (kt_imp_json_strict(imp, f, 0, (const char *)f->data,
				       f->len, &doc)) {
			cJSON_Delete(meta);
			return KT_EPARSE;
		}
		nsp = kt_impx_spans((const char *)f->data, f->len, "messages",
				    &sp);
		if (!(ms = calloc((size_t)cJSON_GetArraySize(
			cJSON_GetObjectItem(doc, "messages")) + 1, sizeof(*ms)))) {
			free(sp);
			rc = KT_ENOMEM;
			goto out;
		}
		cJSON_ArrayForEach(m, cJSON_GetObjectItem(doc, "messages")) {
			ms[nm].o = m;
			ms[nm].at = kt_impx_at_span(sp, nsp, (long)nm);
			nm++;
		}
		free(sp);
		cJSON_ArrayForEach(it, doc)
			if (strcmp(it->string, "messages") &&
			    strcmp(it->string, "sessionId"))
				cJSON_AddItemToObject(meta, it->string,
						      cJSON_Duplicate(it, 1));
		sid = kt_json_str(doc, "sessionId");
	} else {
		if (!doc && kt_impx_doc_bad(imp, f)) {
			rc = KT_EPARSE;
			goto out;
		}
		cJSON_Delete(doc);
		doc = NULL;
		if ((rc = kt_impx_jsonl_all(imp, f, &r, &nr)))
			goto out;
		for (i = 0; i < nr && !sid; i++)
			sid = kt_json_str(r[i].o, "sessionId");
		if ((rc = jsonl_messages(r, nr, &ms, &nm, meta)))
			goto out;
	}
	/* meta is the session's from here, whatever it returns */
	rc = kt_impx_begin(imp, f, "gemini_cli", sid, NULL, meta);
	meta = NULL;
	if (rc)
		goto out;
	for (i = 0; i < nm && !rc; i++) {
		rc = cJSON_IsObject(ms[i].o) ? on_message(&x, ms[i].o, &ms[i].at)
					     : 1;
		if (rc == 1) {
			kt_imp_warn(imp, f, ms[i].at.line, "message without a "
				    "type: skipped");
			rc = 0;
		}
	}
	rc = kt_imp_run_finish(imp, rc);
out:
	free(ms);
	cJSON_Delete(meta);
	cJSON_Delete(doc);
	kt_impx_calls_free(&x.calls);
	kt_impx_recs_free(r, nr);
	return rc;
}

const kt_importer kt_importer_gemini_cli = {
	.name = "gemini_cli",
	.summary = "Gemini CLI session (JSON document or append-only JSONL)",
	.detect = gem_detect,
	.import = gem_import,
};
