/*
 * imp_codex.c - OpenAI Codex CLI rollout JSONL
 * (~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl).
 *
 * Format: one {timestamp, type, payload} per line, type session_meta |
 * turn_context | response_item | event_msg | compacted (codex-rs
 * protocol/src/protocol.rs RolloutItem; ../shared/research/formats.md s.2).
 * Older rollouts (mid-2025) have a bare {id, timestamp, instructions} first
 * line and un-enveloped items; both are read.
 *
 * Rules, each one a trap in real files:
 *  - Content is written twice, as response_item (what the model saw) and as
 *    event_msg (what the UI showed).  Human turns come from event_msg
 *    user_message when the file has any (response_item role=user also
 *    carries injected <environment_context>, AGENTS.md ...); assistant text
 *    and reasoning come from response_item when the file has any, else from
 *    event_msg agent_message / agent_reasoning.  Exact duplicate lines and
 *    repeated call_ids (a resumed session replays items) count once.
 *  - function_call.arguments is a JSON string, decoded leniently (it can be
 *    redacted or not JSON: kept as {"_raw": ...}).
 *  - apply_patch (custom_tool_call, function_call, or an `apply_patch
 *    <<EOF` heredoc given to a shell tool) is Codex's own patch grammar,
 *    parsed by codex_patch.c into edits when the call succeeded.
 *  - web_search_call is a tool call (no result line follows it).
 *  - compacted lines carry a summary and a replacement_history that restates
 *    earlier items: the summary becomes one non-human message, the history
 *    is not imported again.
 *  - token_count repeats and may be null: a count equal to the previous one
 *    is dropped; last_token_usage goes to the model output it follows.
 *  - Files without session_meta get their identity from the rollout file
 *    name's uuid, else from the name and the first line's hash.
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <ctype.h>
#include "import.h"
#include "codex_patch.h"
#include "impx.h"
#include "jsonstrict.h"

#define DETECT_WINDOW 8192

/* What a Codex call needs beside its seq, tool and args (the own of its
 * kt_impx_call_rec; rec->answered: its output was seen) */
typedef struct ccall {
	char *patch;      /* apply_patch text, or NULL */
	char *cmd;        /* shell command, or NULL */
	char *cwd;
} ccall;

typedef struct cx {
	kt_imp *imp;
	const kt_file *f;
	/* pass 1 */
	int has_user_ev, has_asst_item, has_reason_item;
	/* state */
	char *cwd, *model;
	kt_impx_calls calls; /* call_id -> its call, own a ccall */
	kt_strmap seen;    /* line hash -> (void *)1 */
	cJSON *last_total; /* previous token_count total_token_usage */
	/* one event held back so that a following token_count can add its
	 * usage to it */
	cJSON *pend;
	int pend_kind;
	uint64_t pend_line, pend_off, pend_len, pend_parent;
	uint64_t last_asst; /* seq of the model's last text in this response */
	int64_t pend_ts;
	char *pend_call_id;
	/* problems summarized once per file */
	int bad_patches;
	uint64_t bad_patch_line;
	char bad_patch_why[160];
	int err;
} cx;

static void ccall_free(void *p)
{
	ccall *c = p;

	if (!c)
		return;
	free(c->patch);
	free(c->cmd);
	free(c->cwd);
	free(c);
}

/* ---- detection ------------------------------------------------------------ */
static int codex_detect(const kt_file *f)
{
	const unsigned char *d = f->data;
	size_t n;

	if (kt_impx_detect_open(f, DETECT_WINDOW, &n) != '{')
		return 0;
	if (kt_impx_sniff(d, n, "type", "session_meta") &&
	    kt_impx_sniff(d, n, "payload", NULL))
		return 95;
	if (kt_impx_sniff(d, n, "payload", NULL) &&
	    (kt_impx_sniff(d, n, "type", "response_item") ||
	     kt_impx_sniff(d, n, "type", "event_msg") ||
	     kt_impx_sniff(d, n, "type", "turn_context")))
		return 90;
	/* legacy: bare header line, then items and {"record_type":"state"} */
	if (kt_impx_sniff(d, n, "instructions", NULL) &&
	    kt_impx_sniff(d, n, "id", NULL) &&
	    (kt_impx_sniff(d, n, "record_type", NULL) ||
	     kt_impx_sniff(d, n, "type", "message")))
		return 60;
	return 0;
}

/* ---- lines ------------------------------------------------------------------ */
typedef struct cline {
	const char *s;
	size_t n;
	uint64_t no, off;
} cline;

/* Next non-empty line; 0 at the end. */
static int next_line(const kt_file *f, size_t *pos, uint64_t *no, cline *l)
{
	while (*pos < f->len) {
		const char *s = (const char *)f->data + *pos;
		const char *nl = memchr(s, '\n', f->len - *pos);
		size_t n = nl ? (size_t)(nl - s) : f->len - *pos;

		l->s = s;
		l->off = *pos;
		l->no = ++*no;
		*pos += n + (nl ? 1 : 0);
		while (n && (s[n - 1] == '\r' || s[n - 1] == ' ' ||
			     s[n - 1] == '\t'))
			n--;
		l->n = n;
		if (n)
			return 1;
	}
	return 0;
}

/* The record and payload of a line, enveloped or legacy. */
static const char *rec_type(const cJSON *j, const cJSON **payload)
{
	const char *t = kt_json_str(j, "type");
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "payload");

	if (t && p) {
		*payload = p;
		return t;
	}
	*payload = j;
	if (t && (strcmp(t, "message") == 0 || strcmp(t, "reasoning") == 0 ||
		  strstr(t, "call")))
		return "response_item";
	if (!t && kt_json_str(j, "id") && cJSON_GetObjectItem(j, "instructions"))
		return "session_meta";
	return t ? t : "";
}

/* ---- emission helpers ---------------------------------------------------- */
static int flush(cx *c)
{
	uint64_t seq = 0;
	int rc;

	if (!c->pend)
		return 0;
	rc = kt_impx_emit_valid(c->imp, NULL, c->pend_kind, c->pend_parent, c->pend_ts,
			"agent", c->pend, c->pend_line, c->pend_off, c->pend_len,
			&seq);
	if (!rc && c->pend_kind == KT_KIND_MESSAGE)
		c->last_asst = seq;
	c->pend = NULL;
	if (!rc && c->pend_call_id) {
		kt_impx_call_rec *cc = kt_impx_calls_get(&c->calls,
							 c->pend_call_id);

		if (cc)
			cc->seq = seq;
	}
	free(c->pend_call_id);
	c->pend_call_id = NULL;
	return rc;
}

static int hold(cx *c, int kind, cJSON *payload, int64_t ts, const cline *l,
		const char *call_id)
{
	int rc = flush(c);

	if (rc) {
		cJSON_Delete(payload);
		return rc;
	}
	if (!payload)
		return KT_ENOMEM;
	c->pend = payload;
	c->pend_kind = kind;
	/* a call's parent is the text the model wrote before it */
	c->pend_parent = kind == KT_KIND_TOOL_CALL ? c->last_asst : 0;
	c->pend_ts = ts;
	c->pend_line = l->no;
	c->pend_off = l->off;
	c->pend_len = l->n;
	c->pend_call_id = call_id ? strdup(call_id) : NULL;
	return 0;
}

static int emit_now(cx *c, int kind, uint64_t parent, const char *actor,
		    cJSON *payload, int64_t ts, const cline *l, uint64_t *seq)
{
	int rc = flush(c);

	if (rc) {
		cJSON_Delete(payload);
		return rc;
	}
	return kt_impx_emit_valid(c->imp, NULL, kind, parent, ts, actor, payload, l->no,
			  l->off, l->n, seq);
}

/* Fields of the items below that the typed payloads hold; the rest goes to
 * payload.extra. */
static const char *const MSG_KNOWN[] = { "type", "role", "content", "phase",
					 NULL };
static const char *const CALL_KNOWN[] = { "type", "name", "arguments",
					  "call_id", "input", "status",
					  "action", "id", NULL };
static const char *const OUT_KNOWN[] = { "type", "call_id", "output", NULL };

/* Text that Codex injects as a user turn (not typed by the person). */
static int injected(const char *t)
{
	static const char *const pre[] = {
		"<environment_context>", "<user_instructions>", "# AGENTS.md",
		"<permissions", "<INSTRUCTIONS>", "<user_shell_command>",
		"<turn_aborted>", "<developer", "# Context from my IDE", NULL
	};
	int i;

	while (t && isspace((unsigned char)*t))
		t++;
	if (!t || !*t)
		return 1;
	for (i = 0; pre[i]; i++)
		if (strncmp(t, pre[i], strlen(pre[i])) == 0)
			return 1;
	return 0;
}

static int add_model(cx *c, cJSON *m)
{
	if (c->model)
		cJSON_AddStringToObject(m, "model", c->model);
	return 0;
}

/* ---- records ---------------------------------------------------------------- */
static int on_message(cx *c, const cJSON *p, int64_t ts, const cline *l)
{
	const char *role = kt_json_str(p, "role");
	char *text = kt_impx_content_text(
		cJSON_GetObjectItemCaseSensitive(p, "content"));
	cJSON *m = NULL;
	int rc = 0;

	if (!role)
		role = "assistant";
	if (strcmp(role, "assistant") == 0) {
		if (!c->has_asst_item)
			goto out;
		m = kt_impx_msg("assistant", 0, text, NULL);
		if (m) {
			const char *ph = kt_json_str(p, "phase");

			cJSON *ex;

			add_model(c, m);
			if (ph && (ex = cJSON_AddObjectToObject(m, "extra")))
				cJSON_AddStringToObject(ex, "phase", ph);
		}
		kt_impx_keep_extra(m, p, MSG_KNOWN);
		rc = hold(c, KT_KIND_MESSAGE, m, ts, l, NULL);
	} else if (strcmp(role, "user") == 0) {
		int inj = injected(text);

		/* with event_msg user_message present, the person's turns are
		 * imported from there; only injected context remains here */
		if (c->has_user_ev && !inj)
			goto out;
		m = kt_impx_msg("user", !inj, text, inj ? "meta" : NULL);
		kt_impx_keep_extra(m, p, MSG_KNOWN);
		rc = emit_now(c, KT_KIND_MESSAGE, 0, inj ? "system" : "human",
			      m, ts, l, NULL);
	} else {
		m = kt_impx_msg("system", 0, text, "meta");
		if (m)
			cJSON_AddStringToObject(m, "extra_role", role);
		rc = emit_now(c, KT_KIND_MESSAGE, 0, "system", m, ts, l, NULL);
	}
out:
	free(text);
	return rc;
}

static int on_reasoning_item(cx *c, const cJSON *p, int64_t ts,
			     const cline *l)
{
	char *text = kt_impx_content_text(
		cJSON_GetObjectItemCaseSensitive(p, "summary"));
	cJSON *m;
	int rc = 0;

	if (!text) {
		char *t2 = kt_impx_content_text(
			cJSON_GetObjectItemCaseSensitive(p, "content"));

		text = t2;
	}
	if (text && *text) {
		m = kt_impx_msg("assistant", 0, text, "thinking");
		if (m)
			add_model(c, m);
		rc = hold(c, KT_KIND_MESSAGE, m, ts, l, NULL);
	}
	free(text);
	return rc;
}

static int is_shell_tool(const char *n)
{
	return n && (strcmp(n, "shell") == 0 || strcmp(n, "exec_command") == 0 ||
		     strcmp(n, "local_shell") == 0 ||
		     strcmp(n, "shell_command") == 0 ||
		     strcmp(n, "container.exec") == 0);
}

/*
 * The directory a shell call runs in (malloc'ed, or NULL when not known):
 * Codex runs it in the turn's cwd joined with the call's `workdir`
 * (codex-rs core/src/codex.rs, TurnContext::resolve_path:
 * cwd.join(workdir), so an absolute workdir replaces the cwd and a
 * relative one lies below it).  With no cwd known a relative workdir stays
 * relative to it, as every relative path of that session does
 * (kt_ws_path); it is never taken for a directory of its own.  *rc gets
 * 0 or KT_ENOMEM.
 */
static char *call_dir(const cJSON *args, const char *cwd, int *rc)
{
	const char *wd = kt_impx_str2(args, "workdir", "cwd");
	char *d;

	*rc = 0;
	if (!wd)
		wd = kt_json_str(args, "working_directory");
	if (!wd || !*wd)
		wd = ".";
	d = kt_ws_path(wd[0] == '/' ? NULL : cwd, wd);
	if (!d)
		*rc = KT_ENOMEM;
	/* "./" with no cwd: the session's own directory, as no workdir */
	else if (!strcmp(d, ".")) {
		free(d);
		d = NULL;
	}
	return d;
}

/* A new tool call: function_call, custom_tool_call, local_shell_call,
 * web_search_call. */
static int on_call(cx *c, const char *type, const cJSON *p, int64_t ts,
		   const cline *l)
{
	const char *name = kt_json_str(p, "name");
	const char *cid = kt_json_str(p, "call_id");
	char idbuf[48];
	ccall *cc;
	cJSON *pl, *args;
	const char *ps;
	size_t plen;
	int rc;

	if (!cid)
		cid = kt_json_str(p, "id");
	if (strcmp(type, "web_search_call") == 0) {
		name = "web_search";
		args = kt_impx_args(cJSON_GetObjectItemCaseSensitive(p, "action"));
	} else if (strcmp(type, "local_shell_call") == 0) {
		name = "local_shell";
		args = kt_impx_args(cJSON_GetObjectItemCaseSensitive(p, "action"));
	} else if (strcmp(type, "custom_tool_call") == 0) {
		const char *in = kt_json_str(p, "input");

		args = cJSON_CreateObject();
		if (args)
			cJSON_AddStringToObject(args, "input", in ? in : "");
	} else {
		args = kt_impx_args(cJSON_GetObjectItemCaseSensitive(p,
								   "arguments"));
	}
	if (!args)
		return KT_ENOMEM;
	if (!name)
		name = "unknown";
	if (!cid) {
		snprintf(idbuf, sizeof(idbuf), "%s@%llu", type,
			 (unsigned long long)l->no);
		cid = idbuf;
	}
	if (kt_impx_calls_get(&c->calls, cid)) {
		cJSON_Delete(args); /* replayed item of a resumed session */
		return 0;
	}
	if (!(cc = calloc(1, sizeof(*cc)))) {
		cJSON_Delete(args);
		return KT_ENOMEM;
	}
	cc->cwd = c->cwd ? strdup(c->cwd) : NULL;
	if (strcmp(name, "apply_patch") == 0 ||
	    strcmp(name, "applypatch") == 0) {
		const char *in = kt_impx_str2(args, "input", "patch");

		if (!in)
			in = kt_json_str(args, "_raw");
		if (in && kt_cpatch_find(in, strlen(in), &ps, &plen))
			cc->patch = strndup(ps, plen);
		else if (in)
			cc->patch = strdup(in); /* fails to parse later */
	} else if (is_shell_tool(name)) {
		char *wd = call_dir(args, c->cwd, &rc);

		if (rc) {
			ccall_free(cc);
			cJSON_Delete(args);
			return rc;
		}
		free(cc->cwd);
		cc->cwd = wd;
		cc->cmd = kt_impx_shell_cmd(args);
		if (cc->cmd && (strstr(cc->cmd, "apply_patch") ||
				strstr(cc->cmd, "applypatch")) &&
		    kt_cpatch_find(cc->cmd, strlen(cc->cmd), &ps, &plen))
			cc->patch = strndup(ps, plen);
	}
	if (!kt_impx_calls_put(&c->calls, cid, 0, name, args, cc))
		return KT_ENOMEM;
	if (!(pl = cJSON_CreateObject()))
		return KT_ENOMEM;
	cJSON_AddStringToObject(pl, "tool", name);
	cJSON_AddStringToObject(pl, "call_id", cid);
	cJSON_AddItemToObject(pl, "args", cJSON_Duplicate(args, 1));
	if (strcmp(type, "function_call") != 0 ||
	    kt_json_str(p, "status")) {
		cJSON *ex = cJSON_AddObjectToObject(pl, "extra");

		if (ex) {
			cJSON_AddStringToObject(ex, "item_type", type);
			if (kt_json_str(p, "status"))
				cJSON_AddStringToObject(ex, "status",
							kt_json_str(p, "status"));
		}
	}
	kt_impx_keep_extra(pl, p, CALL_KNOWN);
	return hold(c, KT_KIND_TOOL_CALL, pl, ts, l, cid);
}

/* Output text of a call and whether it succeeded. */
static char *output_text(const cJSON *o, int *ok_hint)
{
	const cJSON *v;

	*ok_hint = -1;
	if (cJSON_IsString(o))
		return strdup(o->valuestring);
	if (cJSON_IsObject(o)) {
		v = cJSON_GetObjectItemCaseSensitive(o, "success");
		if (cJSON_IsBool(v))
			*ok_hint = cJSON_IsTrue(v);
		v = cJSON_GetObjectItemCaseSensitive(o, "content");
		if (v) {
			char *t = kt_impx_content_text(v);

			if (t)
				return t;
		}
		if ((v = cJSON_GetObjectItemCaseSensitive(o, "output")) &&
		    cJSON_IsString(v))
			return strdup(v->valuestring);
	}
	if (cJSON_IsArray(o))
		return kt_impx_content_text(o);
	return o ? cJSON_PrintUnformatted(o) : strdup("");
}

/* The command's own output inside a Codex tool output: exec_command puts a
 * header before "Output:\n", the old shell tool a JSON {output, metadata}. */
static char *command_output(const char *out)
{
	const char *p = strstr(out, "\nOutput:\n");
	cJSON *j;
	char *r = NULL;

	if (strncmp(out, "Output:\n", 8) == 0)
		return strdup(out + 8);
	if (p)
		return strdup(p + 9);
	if (*out == '{') {
		int rc;

		j = kt_cjson_parse(out, strlen(out), NULL, &rc);
		if (!j && rc == KT_ENOMEM)
			return NULL;    /* not an output that is no JSON */
		if (j) {
			const char *s = kt_json_str(j, "output");

			if (s)
				r = strdup(s);
			cJSON_Delete(j);
			if (r)
				return r;
		}
	}
	return strdup(out);
}

static int apply_patch_call(cx *c, const kt_impx_call_rec *call,
			    const cline *l)
{
	const ccall *cc = call->own;
	kt_cpatch *pt = NULL;
	char why[120];
	int rc, napp = 0, nunk = 0;

	rc = kt_cpatch_parse(cc->patch, strlen(cc->patch), &pt, why,
			     sizeof(why));
	if (rc == KT_EPARSE || rc == KT_ELIMIT) {
		if (!c->bad_patches++) {
			c->bad_patch_line = l->no;
			snprintf(c->bad_patch_why, sizeof(c->bad_patch_why),
				 "%s", why);
		}
		return 0;
	}
	if (rc)
		return rc;
	rc = kt_cpatch_apply_ws(c->imp, pt, cc->cwd, call->seq, "apply_patch",
				&napp, &nunk);
	kt_cpatch_free(pt);
	return rc;
}

static int on_output(cx *c, const cJSON *p, int64_t ts, const cline *l)
{
	const char *cid = kt_json_str(p, "call_id");
	kt_impx_call_rec *call;
	const ccall *cc;
	cJSON *pl;
	char *out, *cmdout = NULL;
	int okh, ec, ok, rc;
	uint64_t rseq = 0;

	if (!cid)
		cid = "";
	call = kt_impx_calls_get(&c->calls, cid);
	cc = call ? call->own : NULL;
	if (call && call->answered)
		return 0; /* duplicate output */
	if ((rc = flush(c)))
		return rc;
	out = output_text(cJSON_GetObjectItemCaseSensitive(p, "output"), &okh);
	if (!out)
		return KT_ENOMEM;
	ec = kt_impx_exit_code(out, &rc);
	if (rc) {
		free(out);
		return rc;
	}
	if (okh >= 0)
		ok = okh;
	else if (ec >= 0)
		ok = ec == 0;
	else if (cc && cc->patch)
		ok = strstr(out, "Success.") != NULL ||
		     !(strstr(out, "verification failed") ||
		       strstr(out, "Invalid patch") ||
		       strncmp(out, "error", 5) == 0 ||
		       strncmp(out, "Error", 5) == 0);
	else
		ok = strncmp(out, "error:", 6) != 0 &&
		     strncmp(out, "Error:", 6) != 0;
	if (!(pl = cJSON_CreateObject())) {
		free(out);
		return KT_ENOMEM;
	}
	cJSON_AddStringToObject(pl, "call_id", cid);
	cJSON_AddBoolToObject(pl, "ok", ok);
	if ((rc = kt_impx_set_output(c->imp, pl, out))) {
		cJSON_Delete(pl);
		free(out);
		return rc;
	}
	if (ec >= 0)
		cJSON_AddNumberToObject(pl, "exit_code", ec);
	if (!call) {
		cJSON *ex = cJSON_AddObjectToObject(pl, "extra");

		if (ex)
			cJSON_AddBoolToObject(ex, "orphan", 1);
	}
	kt_impx_keep_extra(pl, p, OUT_KNOWN);
	rc = kt_impx_emit_valid(c->imp, NULL, KT_KIND_TOOL_RESULT,
				call ? call->seq : 0, ts, "tool", pl, l->no,
				l->off, l->n, &rseq);
	c->last_asst = 0; /* the next call belongs to a new response */
	if (rc || !call) {
		free(out);
		return rc;
	}
	call->answered = 1;
	if (cc->patch) {
		if (ok)
			rc = apply_patch_call(c, call, l);
	} else if (cc->cmd) {
		if (!(cmdout = command_output(out))) {
			free(out);
			return KT_ENOMEM;
		}
		rc = kt_shell_classify(c->imp, call->seq, rseq, cc->cmd,
				       cc->cwd, cmdout, ec, ok, ts);
		if (rc > 0)
			rc = 0;
	}
	free(cmdout);
	free(out);
	return rc;
}

static int on_token_count(cx *c, const cJSON *p)
{
	const cJSON *info = cJSON_GetObjectItemCaseSensitive(p, "info");
	const cJSON *tot = cJSON_GetObjectItemCaseSensitive(info, "total_token_usage");
	const cJSON *last = cJSON_GetObjectItemCaseSensitive(info, "last_token_usage");
	cJSON *u, *tgt;
	double in, cached, outt, reas;

	if (!cJSON_IsObject(tot))
		return 0; /* info:null (rate limits only) */
	if (c->last_total && cJSON_Compare(c->last_total, tot, 1))
		return 0; /* repeated count */
	cJSON_Delete(c->last_total);
	c->last_total = cJSON_Duplicate(tot, 1);
	if (!cJSON_IsObject(last) || !c->pend)
		return 0;
	in = cJSON_GetNumberValue(cJSON_GetObjectItem(last, "input_tokens"));
	cached = cJSON_GetNumberValue(cJSON_GetObjectItem(last,
							  "cached_input_tokens"));
	outt = cJSON_GetNumberValue(cJSON_GetObjectItem(last, "output_tokens"));
	reas = cJSON_GetNumberValue(cJSON_GetObjectItem(last,
							"reasoning_output_tokens"));
	if (in != in)
		in = 0;
	if (cached != cached)
		cached = 0;
	if (outt != outt)
		outt = 0;
	if (!(u = cJSON_CreateObject()))
		return KT_ENOMEM;
	/* OpenAI input_tokens include cached ones; ktraj's input does not */
	/* counts as written: one out of range is left out (store/event_model.h) */
	kt_imp_add_count(u, "input", in - cached > 0 ? in - cached : 0);
	kt_imp_add_count(u, "output", outt);
	kt_imp_add_count(u, "cache_read", cached);
	cJSON_AddNumberToObject(u, "cache_creation", 0);
	if (reas == reas)
		cJSON_AddNumberToObject(u, "reasoning", reas);
	if (c->pend_kind == KT_KIND_MESSAGE) {
		cJSON_DeleteItemFromObject(c->pend, "usage");
		cJSON_AddItemToObject(c->pend, "usage", u);
	} else {
		tgt = cJSON_GetObjectItem(c->pend, "extra");
		if (!tgt)
			tgt = cJSON_AddObjectToObject(c->pend, "extra");
		if (tgt)
			cJSON_AddItemToObject(tgt, "usage", u);
		else
			cJSON_Delete(u);
	}
	return 0;
}

static int on_event(cx *c, const cJSON *p, int64_t ts, const cline *l)
{
	const char *t = kt_json_str(p, "type");
	cJSON *m;

	if (!t)
		return 0;
	if (strcmp(t, "user_message") == 0) {
		const char *msg = kt_json_str(p, "message");
		int inj = injected(msg);

		m = kt_impx_msg("user", !inj, msg, inj ? "meta" : NULL);
		c->last_asst = 0;
		return emit_now(c, KT_KIND_MESSAGE, 0, inj ? "system" : "human",
				m, ts, l, NULL);
	}
	if (strcmp(t, "agent_message") == 0 && !c->has_asst_item) {
		m = kt_impx_msg("assistant", 0, kt_json_str(p, "message"), NULL);
		if (m)
			add_model(c, m);
		return hold(c, KT_KIND_MESSAGE, m, ts, l, NULL);
	}
	if ((strcmp(t, "agent_reasoning") == 0 ||
	     strcmp(t, "agent_reasoning_raw_content") == 0) &&
	    !c->has_reason_item) {
		m = kt_impx_msg("assistant", 0, kt_json_str(p, "text"), "thinking");
		if (m)
			add_model(c, m);
		return hold(c, KT_KIND_MESSAGE, m, ts, l, NULL);
	}
	if (strcmp(t, "turn_aborted") == 0) {
		char buf[160];
		const char *r = kt_json_str(p, "reason");

		snprintf(buf, sizeof(buf), "[turn aborted: %s]",
			 r ? r : "unknown");
		m = kt_impx_msg("user", 0, buf, "interrupt");
		return emit_now(c, KT_KIND_MESSAGE, 0, "system", m, ts, l,
				NULL);
	}
	if (strcmp(t, "token_count") == 0)
		return on_token_count(c, p);
	return 0; /* task_started/complete, context_compacted: structure only */
}

static int on_compacted(cx *c, const cJSON *p, int64_t ts, const cline *l)
{
	const char *msg = kt_json_str(p, "message");
	const cJSON *rh = cJSON_GetObjectItemCaseSensitive(p,
							   "replacement_history");
	cJSON *m;

	m = kt_impx_msg("user", 0, msg ? msg : "", "compact_summary");
	if (m && cJSON_IsArray(rh)) {
		cJSON *ex = cJSON_AddObjectToObject(m, "extra");

		if (ex)
			cJSON_AddNumberToObject(ex, "replacement_history_items",
						cJSON_GetArraySize(rh));
	}
	return emit_now(c, KT_KIND_MESSAGE, 0, "system", m, ts, l, NULL);
}

static void set_str(char **dst, const char *s)
{
	if (!s)
		return;
	free(*dst);
	*dst = strdup(s);
}

static int on_record(cx *c, const cJSON *j, const cline *l)
{
	const cJSON *p;
	const char *t = rec_type(j, &p);
	int64_t ts = kt_impx_ts_json(cJSON_GetObjectItemCaseSensitive(j,
								   "timestamp"));
	const char *it;

	if (strcmp(t, "turn_context") == 0) {
		set_str(&c->cwd, kt_json_str(p, "cwd"));
		set_str(&c->model, kt_json_str(p, "model"));
		return 0;
	}
	if (strcmp(t, "session_meta") == 0) {
		if (!c->cwd)
			set_str(&c->cwd, kt_json_str(p, "cwd"));
		return 0;
	}
	if (strcmp(t, "compacted") == 0)
		return on_compacted(c, p, ts, l);
	if (strcmp(t, "event_msg") == 0)
		return on_event(c, p, ts, l);
	if (strcmp(t, "response_item") != 0)
		return 0;
	it = kt_json_str(p, "type");
	if (!it)
		return 0;
	if (strcmp(it, "message") == 0)
		return on_message(c, p, ts, l);
	if (strcmp(it, "reasoning") == 0)
		return c->has_reason_item ? on_reasoning_item(c, p, ts, l) : 0;
	if (strcmp(it, "function_call") == 0 ||
	    strcmp(it, "custom_tool_call") == 0 ||
	    strcmp(it, "local_shell_call") == 0 ||
	    strcmp(it, "web_search_call") == 0)
		return on_call(c, it, p, ts, l);
	if (strcmp(it, "function_call_output") == 0 ||
	    strcmp(it, "custom_tool_call_output") == 0 ||
	    strcmp(it, "local_shell_call_output") == 0)
		return on_output(c, p, ts, l);
	return 0; /* ghost_snapshot and future item types */
}

/* ---- identity -------------------------------------------------------------- */
static int is_uuid(const char *s, size_t n)
{
	size_t i;

	if (n != 36)
		return 0;
	for (i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return 0;
		} else if (!isxdigit((unsigned char)s[i])) {
			return 0;
		}
	}
	return 1;
}

static char *identity(const kt_file *f, const char *sid, const cline *first)
{
	const char *b = kt_basename(f->rel ? f->rel : f->path);
	size_t bl = strlen(b), n;
	unsigned char h[KT_HASH_LEN];
	char hex[KT_HASH_HEX + 1], *r;

	if (sid && *sid) {
		n = strlen(sid) + 8;
		if ((r = malloc(n)))
			snprintf(r, n, "codex:%s", sid);
		return r;
	}
	/* rollout-<time>-<uuid>.jsonl: the uuid is the session id */
	if (bl > 42 && strcmp(b + bl - 6, ".jsonl") == 0 &&
	    is_uuid(b + bl - 42, 36)) {
		if ((r = malloc(48)))
			snprintf(r, 48, "codex:%.36s", b + bl - 42);
		return r;
	}
	/* the first line does not change when a live log grows */
	kt_sha256(first ? first->s : "", first ? first->n : 0, h);
	kt_hex(h, 8, hex);
	n = bl + 40;
	if ((r = malloc(n)))
		snprintf(r, n, "codex:file:%s:%s", b, hex);
	return r;
}

static uint64_t line_hash(const cline *l)
{
	return kt_fnv1a(KT_FNV1A_INIT, l->s, l->n);
}

static int codex_import(kt_imp *imp, const kt_file *f)
{
	cx c;
	cline l, first;
	size_t pos = 0;
	uint64_t no = 0;
	char *ident = NULL, *sid = NULL, *name = NULL;
	cJSON *meta = NULL;
	int rc = 0, have_first = 0, nrec = 0;

	memset(&c, 0, sizeof(c));
	c.imp = imp;
	c.f = f;
	c.calls.own_free = ccall_free;
	if (!(meta = cJSON_CreateObject()))
		return KT_ENOMEM;
	/* pass 1: which streams the file has, and its session_meta */
	while (next_line(f, &pos, &no, &l)) {
		/* session_meta only from lines pass 2 takes */
		cJSON *j = kt_json_parse(l.s, l.n, KT_JSON_NONUL |
					 (l.s == (const char *)f->data ?
					  KT_JSON_BOM : 0), &rc);
		const cJSON *p;
		const char *t, *it;

		if (!have_first) {
			first = l;
			have_first = 1;
		}
		if (!j && rc == KT_ENOMEM) {
			cJSON_Delete(meta);
			goto out;
		}
		rc = 0;
		if (!j)
			continue;
		t = rec_type(j, &p);
		it = kt_json_str(p, "type");
		if (strcmp(t, "session_meta") == 0 && !sid) {
			sid = kt_json_str(p, "id") ? strdup(kt_json_str(p, "id")) :
						    NULL;
			cJSON_AddItemToObject(meta, "session",
					      cJSON_Duplicate(p, 1));
			cJSON_DeleteItemFromObject(
				cJSON_GetObjectItem(meta, "session"),
				"base_instructions");
			cJSON_DeleteItemFromObject(
				cJSON_GetObjectItem(meta, "session"),
				"instructions");
		} else if (strcmp(t, "event_msg") == 0 && it &&
			   strcmp(it, "user_message") == 0) {
			c.has_user_ev = 1;
		} else if (strcmp(t, "response_item") == 0 && it) {
			if (strcmp(it, "message") == 0 &&
			    kt_json_str(p, "role") &&
			    strcmp(kt_json_str(p, "role"), "assistant") == 0)
				c.has_asst_item = 1;
			if (strcmp(it, "reasoning") == 0)
				c.has_reason_item = 1;
		} else if (strcmp(t, "turn_context") == 0 &&
			   !cJSON_GetObjectItem(meta, "model") &&
			   kt_json_str(p, "model")) {
			cJSON_AddStringToObject(meta, "model",
						kt_json_str(p, "model"));
		}
		nrec++;
		cJSON_Delete(j);
	}
	if (!have_first) {
		kt_imp_warn(imp, f, 0, "empty Codex rollout");
		cJSON_Delete(meta);
		return 0;
	}
	ident = identity(f, sid, &first);
	name = strdup(kt_basename(f->rel ? f->rel : f->path));
	if (!ident || !name) {
		rc = KT_ENOMEM;
		cJSON_Delete(meta);
		goto out;
	}
	if (strlen(name) > 6 && strcmp(name + strlen(name) - 6, ".jsonl") == 0)
		name[strlen(name) - 6] = 0;
	cJSON_AddStringToObject(meta, "source", f->rel ? f->rel : f->path);
	if ((rc = kt_imp_run_begin(imp, ident, name, "codex", meta)))
		goto out;
	/* pass 2: events */
	pos = 0;
	no = 0;
	while (next_line(f, &pos, &no, &l)) {
		cJSON *j = kt_cjson_parse(l.s, l.n, NULL, &rc);
		uint64_t h;

		if (!j && rc == KT_ENOMEM)
			break;
		rc = 0;
		if (kt_imp_json_strict(imp, f, l.no, l.s, l.n, &j) ||
		    (!j && kt_imp_json_bad(imp, f, l.no, l.s, l.n)))
			continue;
		if (!cJSON_IsObject(j)) {
			kt_imp_warn(imp, f, l.no, "not a JSON object: line skipped");
			cJSON_Delete(j);
			continue;
		}
		h = line_hash(&l);
		{
			char hk[24];

			snprintf(hk, sizeof(hk), "%016llx",
				 (unsigned long long)h);
			if (kt_strmap_get(&c.seen, hk)) {
				cJSON_Delete(j);
				continue; /* an exact duplicate line */
			}
			if ((rc = kt_strmap_put(&c.seen, hk, (void *)1))) {
				cJSON_Delete(j);
				break;
			}
		}
		rc = on_record(&c, j, &l);
		cJSON_Delete(j);
		if (rc)
			break;
	}
	if (!rc)
		rc = flush(&c);
	if (!rc && c.bad_patches)
		kt_imp_warn(imp, f, c.bad_patch_line,
			    "%d apply_patch input%s not parse as a patch, their "
			    "edits are unknown (first: %s)", c.bad_patches,
			    c.bad_patches == 1 ? " does" : "s do",
			    c.bad_patch_why);
	rc = kt_imp_run_finish(imp, rc);
out:
	cJSON_Delete(c.pend);
	free(c.pend_call_id);
	cJSON_Delete(c.last_total);
	kt_impx_calls_free(&c.calls);
	kt_strmap_free(&c.seen, NULL);
	free(c.cwd);
	free(c.model);
	free(ident);
	free(sid);
	free(name);
	(void)nrec;
	return rc;
}

const kt_importer kt_importer_codex = {
	.name = "codex",
	.summary = "OpenAI Codex CLI rollout JSONL (~/.codex/sessions)",
	.detect = codex_detect,
	.import = codex_import,
};
