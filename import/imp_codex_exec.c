/*
 * imp_codex_exec.c - the event stream `codex exec --json` prints on stdout
 * (JSONL).  Source: openai/codex codex-rs/exec/src/exec_events.rs (the
 * ThreadEvent enum and ThreadItem details) and docs/exec.md.
 *
 * Lines: thread.started {thread_id}, turn.started, turn.completed
 * {usage {input_tokens, cached_input_tokens, output_tokens}},
 * turn.failed {error {message}}, error {message}, and item.started |
 * item.updated | item.completed {item {id, type, ...}} where type is
 * agent_message {text}, reasoning {text}, command_execution {command,
 * aggregated_output, exit_code, status}, file_change {changes [{path,
 * kind add|delete|update}], status}, mcp_tool_call {server, tool,
 * arguments, result, error, status}, web_search {query}, todo_list
 * {items}, error {message}.  Early releases spelled the type `item_type`
 * and the reply `assistant_message`; both are read.
 *
 * Rules:
 *  - No line has a time: every event's ts is unknown, in source order, and
 *    the run meta says so ("timestamps": "none in the source").
 *  - item.started / item.updated / item.completed of one item id are one
 *    tool call: the call is emitted at the first line that shows the item,
 *    its result at item.completed (a call never completed has no result).
 *  - The stream has no user prompt (it was codex exec's argument): no
 *    human message.
 *  - A turn's usage (turn.completed) goes to the first agent message of the
 *    turn, read in a first pass over the lines.
 *  - command_execution goes through the shell analysis with its exit code;
 *    the `bash -lc '...'` wrapper Codex prints is taken off first.
 *    file_change says which files changed but not how: an update makes the
 *    file's content unknown, a delete deletes it.
 *  - Run identity: codex_exec:<thread_id>, else codex_exec:<sha256 of the
 *    file>.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "impx.h"

#define DETECT_WINDOW 4096

static int cxe_detect(const kt_file *f)
{
	size_t n = f->len < DETECT_WINDOW ? f->len : DETECT_WINDOW;
	const unsigned char *d = f->data;

	if (!n || d[0] != '{' || kt_impx_sniff(d, n, "payload", NULL) ||
	    kt_impx_sniff(d, n, "timestamp", NULL))
		return 0;
	if (kt_impx_sniff(d, n, "type", "thread.started"))
		return 90;
	if (kt_impx_sniff(d, n, "type", "item.completed") ||
	    kt_impx_sniff(d, n, "type", "item.started") ||
	    kt_impx_sniff(d, n, "type", "turn.started"))
		return 80;
	return 0;
}

typedef struct cxe {
	kt_imp *imp;
	kt_impx_calls calls;
	kt_strmap seen;    /* item ids whose call was emitted */
	cJSON *usage;      /* the current turn's, until its first reply */
} cxe;

static const char *item_type(const cJSON *it)
{
	const char *t = kt_json_str(it, "type");

	return t ? t : kt_json_str(it, "item_type");
}

/* "bash -lc 'script'" as Codex prints an argv: the script, unquoted
 * (POSIX quoting: '..', "..", backslash); NULL when cmd is no such
 * wrapper. */
static char *unwrap(const char *cmd)
{
	static const char *const pre[] = { "bash -lc ", "bash -c ",
					   "/bin/bash -lc ", "/bin/bash -c ",
					   "sh -c ", "/bin/sh -c ", NULL };
	const char *p = NULL;
	char *o, *w;

	for (int i = 0; pre[i] && !p; i++)
		if (!strncmp(cmd, pre[i], strlen(pre[i])))
			p = cmd + strlen(pre[i]);
	if (!p || !(o = w = malloc(strlen(p) + 1)))
		return NULL;
	while (*p && *p != ' ') {
		if (*p == '\'') {
			const char *e = strchr(p + 1, '\'');

			if (!e)
				break;
			memcpy(w, p + 1, (size_t)(e - p - 1));
			w += e - p - 1;
			p = e + 1;
		} else if (*p == '"') {
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && p[1] && strchr("\"\\$`", p[1]))
					p++;
				*w++ = *p;
			}
			if (!*p)
				break;
			p++;
		} else {
			if (*p == '\\' && p[1])
				p++;
			*w++ = *p++;
		}
	}
	*w = 0;
	if (*p) {
		/* more than one word, or a quote left open: not one script */
		free(o);
		return NULL;
	}
	return o;
}

static cJSON *call_args(const cJSON *it, const char *type)
{
	cJSON *a = cJSON_CreateObject();
	const char *cmd = kt_json_str(it, "command");

	if (!a)
		return NULL;
	if (!strcmp(type, "command_execution") && cmd) {
		char *s = unwrap(cmd);

		cJSON_AddStringToObject(a, "command", s ? s : cmd);
		if (s)
			cJSON_AddStringToObject(a, "argv_text", cmd);
		free(s);
	} else if (!strcmp(type, "mcp_tool_call")) {
		const cJSON *v = cJSON_GetObjectItem(it, "arguments");

		if (kt_json_str(it, "server"))
			cJSON_AddStringToObject(a, "server",
						kt_json_str(it, "server"));
		if (v)
			cJSON_AddItemToObject(a, "arguments",
					      cJSON_Duplicate(v, 1));
	} else if (!strcmp(type, "file_change")) {
		const cJSON *v = cJSON_GetObjectItem(it, "changes");

		if (v)
			cJSON_AddItemToObject(a, "changes", cJSON_Duplicate(v, 1));
	} else if (!strcmp(type, "web_search") && kt_json_str(it, "query")) {
		cJSON_AddStringToObject(a, "query", kt_json_str(it, "query"));
	}
	return a;
}

static const char *tool_of(const cJSON *it, const char *type)
{
	if (!strcmp(type, "command_execution"))
		return "shell";
	if (!strcmp(type, "mcp_tool_call") && kt_json_str(it, "tool"))
		return kt_json_str(it, "tool");
	return type;
}

static int is_tool(const char *type)
{
	return !strcmp(type, "command_execution") ||
	       !strcmp(type, "file_change") || !strcmp(type, "mcp_tool_call") ||
	       !strcmp(type, "web_search") || !strcmp(type, "todo_list");
}

/* What file_change did: the files changed in ways it does not show. */
static int file_changes(cxe *x, const cJSON *it, uint64_t call)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, cJSON_GetObjectItem(it, "changes")) {
		const char *p = kt_json_str(c, "path");
		const char *k = kt_json_str(c, "kind");
		int rc;

		if (!p)
			continue;
		rc = k && !strcmp(k, "delete") ?
			kt_ws_delete(x->imp, p, call, "file_change") :
			kt_ws_invalidate(x->imp, p, call, "file_change");
		if (rc)
			return rc;
	}
	return 0;
}

static int on_item(cxe *x, const cJSON *rec, const char *ev,
		   const kt_impx_at *at)
{
	const cJSON *it = cJSON_GetObjectItem(rec, "item");
	const char *id = kt_json_str(it, "id"), *type = item_type(it);
	int done = !strcmp(ev, "item.completed"), rc = 0;

	if (!type)
		return 0;
	if (!strcmp(type, "agent_message") || !strcmp(type, "assistant_message") ||
	    !strcmp(type, "reasoning")) {
		int th = !strcmp(type, "reasoning");
		cJSON *m;

		if (!done)
			return 0; /* the completed copy holds the whole text */
		m = kt_impx_msg("assistant", 0, kt_json_str(it, "text"),
				th ? "thinking" : NULL);
		if (!m)
			return KT_ENOMEM;
		if (id)
			cJSON_AddStringToObject(m, "msg_id", id);
		if (!th && x->usage) {
			cJSON_AddItemToObject(m, "usage", x->usage);
			x->usage = NULL;
		}
		return kt_impx_emit_valid(x->imp, NULL, KT_KIND_MESSAGE, 0,
					  KT_TS_UNKNOWN, "agent", m, at->line,
					  at->off, at->len, NULL);
	}
	if (!strcmp(type, "error")) {
		if (!done)
			return 0;
		return kt_impx_emit_valid(x->imp, NULL, KT_KIND_MESSAGE, 0,
			KT_TS_UNKNOWN, "system",
			kt_impx_msg("system", 0, kt_json_str(it, "message"),
				    "meta,error"), at->line, at->off, at->len,
			NULL);
	}
	if (!is_tool(type))
		return 0;
	if (!id || !kt_strmap_get(&x->seen, id)) {
		cJSON *a = call_args(it, type);

		if (!a)
			return KT_ENOMEM;
		rc = kt_impx_call(x->imp, &x->calls, id, tool_of(it, type), a,
				  0, KT_TS_UNKNOWN, "agent", NULL, at, NULL);
		cJSON_Delete(a);
		if (!rc && id && kt_strmap_put(&x->seen, id, (void *)1))
			rc = KT_ENOMEM;
		if (rc)
			return rc;
	}
	if (done) {
		const char *st = kt_json_str(it, "status");
		const cJSON *ec = cJSON_GetObjectItem(it, "exit_code");
		const char *out = kt_json_str(it, "aggregated_output");
		char *res = NULL;
		int code = cJSON_IsNumber(ec) ? ec->valueint : -1;
		int ok = (!st || !strcmp(st, "completed")) && code <= 0;
		uint64_t call = kt_impx_call_seq(&x->calls, id);

		if (!strcmp(type, "mcp_tool_call")) {
			const cJSON *r = cJSON_GetObjectItem(it, "result");
			const cJSON *e = cJSON_GetObjectItem(it, "error");

			if (e && !cJSON_IsNull(e)) {
				ok = 0;
				res = kt_json_str(e, "message") ?
					strdup(kt_json_str(e, "message")) :
					cJSON_PrintUnformatted(e);
			} else if (r && !cJSON_IsNull(r)) {
				res = cJSON_PrintUnformatted(r);
			}
		}
		if (!id) {
			/* an id-less item: its call was the last one */
			char b[32];

			snprintf(b, sizeof(b), "call-%llu",
				 (unsigned long long)x->calls.anon);
			call = kt_impx_call_seq(&x->calls, b);
			rc = kt_impx_result(x->imp, &x->calls, b,
					    res ? res : out, ok, code, NULL,
					    KT_TS_UNKNOWN, NULL, at, NULL);
		} else {
			rc = kt_impx_result(x->imp, &x->calls, id,
					    res ? res : out, ok, code, NULL,
					    KT_TS_UNKNOWN, NULL, at, NULL);
		}
		free(res);
		if (!rc && ok && call && !strcmp(type, "file_change"))
			rc = file_changes(x, it, call);
	}
	return rc;
}

static int cxe_import(kt_imp *imp, const kt_file *f)
{
	kt_impx_rec *r = NULL;
	size_t n = 0, i;
	cxe x;
	const char *tid = NULL;
	cJSON *meta = NULL, **turn_usage = NULL;
	size_t nturn = 0, t = 0;
	int rc;

	memset(&x, 0, sizeof(x));
	x.imp = imp;
	if ((rc = kt_impx_jsonl_all(imp, f, &r, &n)))
		return rc;
	/* pass 1: each turn's usage, so its first reply can carry it */
	if (!(turn_usage = calloc(n + 1, sizeof(*turn_usage)))) {
		rc = KT_ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		const char *ty = kt_json_str(r[i].o, "type");

		if (!ty)
			continue;
		if (!tid && !strcmp(ty, "thread.started"))
			tid = kt_json_str(r[i].o, "thread_id");
		if (!strcmp(ty, "turn.completed")) {
			const cJSON *u = cJSON_GetObjectItem(r[i].o, "usage");
			double in = 0, cached = 0, o = 0;
			cJSON *m;

			if (!cJSON_IsObject(u) || !(m = cJSON_CreateObject())) {
				nturn++;
				continue;
			}
			kt_impx_num(u, "input_tokens", &in);
			kt_impx_num(u, "cached_input_tokens", &cached);
			kt_impx_num(u, "output_tokens", &o);
			/* input_tokens counts the cached part too */
			kt_imp_add_count(m, "input", in > cached ? in - cached : 0);
			kt_imp_add_count(m, "output", o);
			kt_imp_add_count(m, "cache_read", cached);
			turn_usage[nturn++] = m;
		}
	}
	if (!(meta = cJSON_CreateObject())) {
		rc = KT_ENOMEM;
		goto out;
	}
	cJSON_AddStringToObject(meta, "timestamps", "none in the source");
	if (tid)
		cJSON_AddStringToObject(meta, "thread_id", tid);
	/* meta is the session's from here, whatever it returns */
	rc = kt_impx_begin(imp, f, "codex_exec", tid, NULL, meta);
	meta = NULL;
	if (rc)
		goto out;
	for (i = 0; i < n && !rc; i++) {
		const char *ty = kt_json_str(r[i].o, "type");

		if (!ty) {
			kt_imp_warn(imp, f, r[i].at.line, "no \"type\": line "
				    "skipped");
			continue;
		}
		if (!strcmp(ty, "turn.started")) {
			cJSON_Delete(x.usage);
			x.usage = t < nturn ? turn_usage[t] : NULL;
			if (t < nturn)
				turn_usage[t++] = NULL;
		} else if (!strncmp(ty, "item.", 5)) {
			rc = on_item(&x, r[i].o, ty, &r[i].at);
		} else if (!strcmp(ty, "turn.failed") || !strcmp(ty, "error")) {
			const cJSON *e = cJSON_GetObjectItem(r[i].o, "error");
			const char *msg = kt_json_str(e, "message");

			if (!msg)
				msg = kt_json_str(r[i].o, "message");
			rc = kt_impx_emit_valid(imp, NULL, KT_KIND_MESSAGE, 0,
				KT_TS_UNKNOWN, "system",
				kt_impx_msg("system", 0, msg, "meta,error"),
				r[i].at.line, r[i].at.off, r[i].at.len, NULL);
		}
	}
	rc = kt_imp_run_finish(imp, rc);
out:
	for (i = 0; turn_usage && i < nturn; i++)
		cJSON_Delete(turn_usage[i]);
	free(turn_usage);
	cJSON_Delete(x.usage);
	cJSON_Delete(meta);
	kt_impx_calls_free(&x.calls);
	kt_strmap_free(&x.seen, NULL);
	kt_impx_recs_free(r, n);
	return rc;
}

const kt_importer kt_importer_codex_exec = {
	.name = "codex_exec",
	.summary = "codex exec --json event stream (JSONL, no timestamps)",
	.detect = cxe_detect,
	.import = cxe_import,
};
