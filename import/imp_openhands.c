/*
 * imp_openhands.c - OpenHands event streams (trajectory export / replay
 * JSON: a list of events; also {"events": [...]} or {"trajectory": [...]}).
 * Sources: All-Hands-AI/OpenHands openhands/events/serialization/
 * (event.py, action.py, observation.py),
 * ../shared/research/formats.md s.5.
 *
 * Event: {id, timestamp (naive ISO: taken as UTC), source user|agent|
 * environment, message, action|observation, args|content+extras, cause,
 * tool_call_metadata{function_name, tool_call_id, model_response,
 * total_calls_in_response}, llm_metrics, ...}.
 *  - Actions become messages (message, system, recall, ...) or tool calls
 *    (run, run_ipython, edit, read, browse, finish/think with a tool call,
 *    any action with tool_call_metadata); args.thought becomes the agent's
 *    message before the call.  Observations become the tool_result of the
 *    action named by `cause`.
 *  - null entries, "null" observations and agent state changes are noise.
 *  - Ids are not contiguous; links go by id, never by position.
 *  - model_response (with usage) repeats on every action of one LLM
 *    response and on observations: usage is counted once per response id.
 *  - Edits: the edit observation's extras.new_content (old_content seeds the
 *    file first), else the action's args (file_text / old_str+new_str /
 *    insert, or the LLM-edit content with start=1,end=-1).  A run
 *    observation goes to kt_shell_classify with its exit code.  A `read`
 *    whose output is the whole file (cat -n listing) seeds the workspace.
 *  - The run's meta "cwd" is the first observation's extras.metadata.
 *    working_dir (where its commands ran; the exports write it).
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "import.h"
#include "impx.h"
#include "jsonstrict.h"

#define DETECT_WINDOW 16384

/* What an OpenHands call needs beside its seq, tool and args (the own of
 * its kt_impx_call_rec, which is kept under the action's event id) */
typedef struct ocall {
	char *id;     /* its call_id */
	char *action;
} ocall;

typedef struct ohx {
	kt_imp *imp;
	const kt_file *f;
	kt_impx_calls calls; /* event id -> its call, own an ocall */
	kt_strmap resp;   /* model_response ids already counted */
	char *cwd;
} ohx;

static void ocall_free(void *p)
{
	ocall *c = p;

	if (!c)
		return;
	free(c->id);
	free(c->action);
	free(c);
}

static int oh_detect(const kt_file *f)
{
	const unsigned char *d = f->data;
	size_t n;
	int open = kt_impx_detect_open(f, DETECT_WINDOW, &n);

	if (open != '[' && open != '{')
		return 0;
	if (kt_impx_sniff(d, n, "id", NULL) && kt_impx_sniff(d, n, "source", NULL) &&
	    kt_impx_sniff(d, n, "timestamp", NULL) &&
	    (kt_impx_sniff(d, n, "action", NULL) ||
	     kt_impx_sniff(d, n, "observation", NULL)))
		return open == '[' ? 90 : 75;
	return 0;
}

static const cJSON *event_list(const cJSON *doc, const char **key)
{
	static const char *const keys[] = { "events", "trajectory", "history",
					    NULL };
	int i;

	*key = NULL;
	if (cJSON_IsArray(doc))
		return doc;
	for (i = 0; keys[i]; i++) {
		const cJSON *v = cJSON_GetObjectItem(doc, keys[i]);

		if (cJSON_IsArray(v)) {
			*key = keys[i];
			return v;
		}
	}
	return NULL;
}

/* usage of a model response, once per response id */
static cJSON *usage_once(ohx *x, const cJSON *ev, const char **model)
{
	const cJSON *tm = cJSON_GetObjectItem(ev, "tool_call_metadata");
	const cJSON *mr = cJSON_GetObjectItem(tm, "model_response");
	const cJSON *us = cJSON_GetObjectItem(mr, "usage");
	const char *id = kt_json_str(mr, "id");
	cJSON *u;
	double pt, ct, cached;

	*model = kt_json_str(mr, "model");
	if (!cJSON_IsObject(us) || !id || kt_strmap_get(&x->resp, id))
		return NULL;
	if (kt_strmap_put(&x->resp, id, (void *)1))
		return NULL;
	pt = cJSON_GetNumberValue(cJSON_GetObjectItem(us, "prompt_tokens"));
	ct = cJSON_GetNumberValue(cJSON_GetObjectItem(us, "completion_tokens"));
	cached = cJSON_GetNumberValue(cJSON_GetObjectItem(
		cJSON_GetObjectItem(us, "prompt_tokens_details"),
		"cached_tokens"));
	if (pt != pt)
		pt = 0;
	if (ct != ct)
		ct = 0;
	if (cached != cached)
		cached = 0;
	if (!(u = cJSON_CreateObject()))
		return NULL;
	/* counts as written: one out of range is left out (store/event_model.h) */
	kt_imp_add_count(u, "input", pt - cached > 0 ? pt - cached : 0);
	kt_imp_add_count(u, "output", ct);
	kt_imp_add_count(u, "cache_read", cached);
	kt_imp_add_count(u, "cache_creation",
		cJSON_IsNumber(cJSON_GetObjectItem(us,
			"cache_creation_input_tokens")) ?
		cJSON_GetObjectItem(us, "cache_creation_input_tokens")->valuedouble :
		0);
	return u;
}

/* Fields of an event that the typed payload does not hold. */
static cJSON *extra_of(const cJSON *ev)
{
	static const char *const skip[] = {
		"id", "timestamp", "source", "message", "action", "observation",
		"args", "content", "extras", "cause", "tool_call_metadata", NULL
	};

	return kt_impx_extra(ev, skip);
}

static int emit(ohx *x, int kind, uint64_t parent, int64_t ts,
		const char *actor, cJSON *pl, const kt_impx_span *sp,
		uint64_t *seq)
{
	return kt_impx_emit_valid(x->imp, NULL, kind, parent, ts, actor, pl, sp->line,
			  sp->off, sp->len, seq);
}

static int is_tool_action(const char *a, const cJSON *ev)
{
	static const char *const tools[] = {
		"run", "run_ipython", "edit", "read", "write", "browse",
		"browse_interactive", "delegate", "mcp", NULL
	};
	int i;

	if (cJSON_IsObject(cJSON_GetObjectItem(ev, "tool_call_metadata")))
		return 1;
	for (i = 0; tools[i]; i++)
		if (strcmp(a, tools[i]) == 0)
			return 1;
	return 0;
}

static int on_action(ohx *x, const cJSON *ev, const char *a, int64_t ts,
		     const kt_impx_span *sp)
{
	const char *src = kt_json_str(ev, "source");
	const cJSON *args = cJSON_GetObjectItem(ev, "args");
	const cJSON *tm = cJSON_GetObjectItem(ev, "tool_call_metadata");
	const char *thought = kt_json_str(args, "thought");
	const char *model = NULL;
	cJSON *usage = usage_once(x, ev, &model), *m, *pl;
	uint64_t mseq = 0;
	char idb[48];
	const cJSON *idv = cJSON_GetObjectItem(ev, "id");
	int rc = 0;

	if (!src)
		src = "agent";
	if (strcmp(a, "change_agent_state") == 0 || strcmp(a, "null") == 0) {
		cJSON_Delete(usage);
		return 0; /* state-machine noise */
	}
	if (cJSON_IsNumber(idv))
		snprintf(idb, sizeof(idb), "%.0f", idv->valuedouble);
	else if (cJSON_IsString(idv))
		snprintf(idb, sizeof(idb), "%.40s", idv->valuestring);
	else
		snprintf(idb, sizeof(idb), "line%llu",
			 (unsigned long long)sp->line);
	if (strcmp(a, "message") == 0 || strcmp(a, "system") == 0 ||
	    (!is_tool_action(a, ev) && strcmp(a, "finish") != 0 &&
	     strcmp(a, "think") != 0)) {
		const char *text = kt_json_str(args, "content");
		int user = strcmp(src, "user") == 0 && strcmp(a, "message") == 0;
		const char *role = user ? "user" :
				   strcmp(a, "message") == 0 &&
				   strcmp(src, "agent") == 0 ? "assistant" :
				   "system";

		if (!text)
			text = kt_json_str(ev, "message");
		if (strcmp(a, "message") != 0 && strcmp(a, "system") != 0 &&
		    (!text || !*text)) {
			cJSON_Delete(usage);
			return 0; /* state changes and the like: noise */
		}
		m = kt_impx_msg(role, user, text, strcmp(role, "system") == 0 ?
			      "meta" : NULL);
		if (m && usage)
			cJSON_AddItemToObject(m, "usage", usage);
		else
			cJSON_Delete(usage);
		if (m && model && strcmp(role, "assistant") == 0)
			cJSON_AddStringToObject(m, "model", model);
		if (m) {
			cJSON *ex = extra_of(ev);

			if (ex) {
				cJSON_AddStringToObject(ex, "action", a);
				cJSON_AddItemToObject(m, "extra", ex);
			}
		}
		return emit(x, KT_KIND_MESSAGE, 0, ts, user ? "human" :
			    strcmp(role, "assistant") == 0 ? "agent" : "system",
			    m, sp, NULL);
	}
	/* a tool call: the thought first */
	if (thought && *thought) {
		m = kt_impx_msg("assistant", 0, thought, NULL);
		if (m && usage) {
			cJSON_AddItemToObject(m, "usage", usage);
			usage = NULL;
		}
		if (m && model)
			cJSON_AddStringToObject(m, "model", model);
		if ((rc = emit(x, KT_KIND_MESSAGE, 0, ts, "agent", m, sp, &mseq))) {
			cJSON_Delete(usage);
			return rc;
		}
	}
	{
		const char *fn = kt_json_str(tm, "function_name");
		const char *cid = kt_json_str(tm, "tool_call_id");
		ocall *c = calloc(1, sizeof(*c));
		const char *tool = fn ? fn : a;
		cJSON *kept;
		uint64_t cseq = 0;
		char cidb[64];
		cJSON *ex;

		if (!c) {
			cJSON_Delete(usage);
			return KT_ENOMEM;
		}
		if (!cid) {
			snprintf(cidb, sizeof(cidb), "oh-%s", idb);
			cid = cidb;
		}
		c->id = strdup(cid);
		c->action = strdup(a);
		kept = args ? cJSON_Duplicate(args, 1) : cJSON_CreateObject();
		if (!(pl = cJSON_CreateObject())) {
			ocall_free(c);
			cJSON_Delete(kept);
			cJSON_Delete(usage);
			return KT_ENOMEM;
		}
		cJSON_AddStringToObject(pl, "tool", tool);
		cJSON_AddStringToObject(pl, "call_id", cid);
		{
			cJSON *ad = cJSON_Duplicate(kept, 1);

			/* the thought is the message above */
			cJSON_DeleteItemFromObject(ad, "thought");
			cJSON_AddItemToObject(pl, "args", ad);
		}
		ex = extra_of(ev);
		if (!ex && (usage || model))
			ex = cJSON_CreateObject();
		if (ex) {
			cJSON_AddStringToObject(ex, "action", a);
			if (usage)
				cJSON_AddItemToObject(ex, "usage", usage);
			if (model)
				cJSON_AddStringToObject(ex, "model", model);
			cJSON_AddItemToObject(pl, "extra", ex);
		} else {
			cJSON_Delete(usage);
		}
		rc = emit(x, KT_KIND_TOOL_CALL, mseq, ts, "agent", pl, sp, &cseq);
		/* a repeated event id: the later action wins */
		if (rc) {
			ocall_free(c);
			cJSON_Delete(kept);
		} else if (!kt_impx_calls_put(&x->calls, idb, cseq, tool, kept,
					      c)) {
			rc = KT_ENOMEM;
		}
	}
	return rc;
}

/* Lines s..e (1-based; e -1 = the last) of path replaced by text; the
 * content becomes unknown when the file is, or when the range cannot be
 * applied to what we know. */
static int range_edit(kt_imp *imp, const char *path, long s, long e,
		      const char *text, uint64_t call, const char *tool)
{
	int rc = kt_impx_replace_lines(imp, path, s, e, text,
				     KT_IMPX_LINES_IN_FILE, call, tool);

	return rc == KT_ENOTFOUND ? kt_ws_invalidate(imp, path, call, tool)
				  : rc;
}

/* A unified diff that creates a file ("@@ -0,0 +1,N @@", all lines '+'):
 * the new content, malloc'ed; NULL for anything else. */
static char *creation_diff(const char *d)
{
	const char *h = d ? strstr(d, "@@ -0,0 +1") : NULL, *p;
	char *buf;
	size_t n = 0;

	if (!h || !(p = strchr(h, '\n')) || strstr(p, "\n@@") ||
	    !(buf = malloc(strlen(p) + 1)))
		return NULL;
	p++;
	while (*p) {
		const char *le = strchr(p, '\n');
		size_t ln = le ? (size_t)(le - p) : strlen(p);

		if (*p == '+') {
			memcpy(buf + n, p + 1, ln - 1);
			n += ln - 1;
			buf[n++] = '\n';
		} else if (*p == '\\' && n) {
			n--; /* "\ No newline at end of file" */
		} else if (ln) {
			free(buf);
			return NULL;
		}
		if (!le)
			break;
		p = le + 1;
	}
	buf[n] = 0;
	return buf;
}

int kt_impx_oh_edit(kt_imp *imp, const char *tool, const cJSON *args,
		    const char *cwd, const char *path, uint64_t call,
		    uint64_t res, const char *out, int64_t ts)
{
	const char *cmd = kt_json_str(args, "command");
	const char *ct = kt_json_str(args, "content");
	const cJSON *st = cJSON_GetObjectItem(args, "start");
	const cJSON *en = cJSON_GetObjectItem(args, "end");
	cJSON *ipy = cmd ? NULL : kt_impx_ipython_args(kt_json_str(
		args, "translated_ipython_code"));
	char *created = NULL;
	int rc;

	if (cmd || (ipy && kt_json_str(ipy, "command"))) {
		rc = kt_impx_tool_effects(imp, "str_replace_editor",
					  cmd ? args : ipy, cwd, call, res,
					  out ? out : "", -1, 1, ts);
		rc = rc < 0 ? rc : 0;
	} else if (ct && *ct && cJSON_IsNumber(st) && cJSON_IsNumber(en) &&
		   st->valueint == 1 && en->valueint == -1) {
		rc = kt_ws_write(imp, path, ct, strlen(ct), call, tool);
	} else if ((created = creation_diff(out))) {
		rc = kt_ws_write(imp, path, created, strlen(created), call,
				 tool);
	} else if (ct && cJSON_IsNumber(st) && cJSON_IsNumber(en)) {
		/* the LLM editor's lines start..end (1-based, end -1 = to
		 * the end) replaced by content */
		rc = range_edit(imp, path, st->valueint, en->valueint, ct,
				call, tool);
	} else {
		/* it changed, we cannot tell how */
		rc = kt_ws_invalidate(imp, path, call, tool);
	}
	free(created);
	cJSON_Delete(ipy);
	return rc;
}

static int on_observation(ohx *x, const cJSON *ev, const char *o, int64_t ts,
			  const kt_impx_span *sp)
{
	const cJSON *cause = cJSON_GetObjectItem(ev, "cause");
	const cJSON *extras = cJSON_GetObjectItem(ev, "extras");
	const cJSON *md = cJSON_GetObjectItem(extras, "metadata");
	const cJSON *ecv = cJSON_GetObjectItem(md, "exit_code");
	const cJSON *succ = cJSON_GetObjectItem(ev, "success");
	const char *content = kt_json_str(ev, "content");
	char key[48];
	const kt_impx_call_rec *c = NULL;
	const ocall *own;
	cJSON *pl, *ex;
	uint64_t rseq = 0;
	int ec = -1, ok, rc;
	char *seen = NULL;

	if (strcmp(o, "null") == 0 || strcmp(o, "agent_state_changed") == 0)
		return 0;
	if (!content)
		content = "";
	if (cJSON_IsNumber(cause)) {
		snprintf(key, sizeof(key), "%.0f", cause->valuedouble);
		c = kt_impx_calls_get(&x->calls, key);
	}
	if (!c) {
		cJSON *m;

		if (!*content)
			return 0;
		m = kt_impx_msg("system", 0, content, "meta,observation");
		if (m && (ex = extra_of(ev))) {
			cJSON_AddStringToObject(ex, "observation", o);
			cJSON_AddItemToObject(m, "extra", ex);
		}
		return emit(x, KT_KIND_MESSAGE, 0, ts, "system", m, sp, NULL);
	}
	own = c->own;
	if (cJSON_IsNumber(ecv))
		ec = ecv->valueint;
	if (cJSON_IsBool(succ))
		ok = cJSON_IsTrue(succ);
	else if (ec > 0)
		ok = 0; /* -1: still running or timed out, not a failure */
	else
		ok = strcmp(o, "error") != 0 && strcmp(o, "user_rejected") != 0 &&
		     strncmp(content, "ERROR:", 6) != 0;
	if (!(pl = cJSON_CreateObject()))
		return KT_ENOMEM;
	cJSON_AddStringToObject(pl, "call_id", own->id);
	cJSON_AddBoolToObject(pl, "ok", ok);
	if ((rc = kt_impx_set_output(x->imp, pl, content))) {
		cJSON_Delete(pl);
		return rc;
	}
	if (ec >= 0)
		cJSON_AddNumberToObject(pl, "exit_code", ec);
	if ((ex = cJSON_CreateObject())) {
		const cJSON *it;

		cJSON_AddStringToObject(ex, "observation", o);
		/* extras minus the file contents kept as blobs */
		cJSON_ArrayForEach(it, extras)
			if (it->string && strcmp(it->string, "old_content") &&
			    strcmp(it->string, "new_content"))
				cJSON_AddItemToObject(ex, it->string,
						      cJSON_Duplicate(it, 1));
		cJSON_AddItemToObject(pl, "extra", ex);
	}
	/* a read of a whole file shows its content */
	if (strcmp(o, "read") == 0 && ok &&
	    !cJSON_GetObjectItem(c->args, "view_range")) {
		const char *path = kt_json_str(extras, "path");

		if (path && (seen = kt_impx_cat_n(content)) &&
		    (rc = kt_ws_observe(x->imp, path, seen, strlen(seen), pl))) {
			free(seen);
			cJSON_Delete(pl);
			return rc;
		}
	}
	free(seen);
	rc = emit(x, KT_KIND_TOOL_RESULT, c->seq, ts, "tool", pl, sp, &rseq);
	if (rc)
		return rc;
	if (strcmp(o, "run") == 0 || strcmp(own->action, "run") == 0) {
		const char *cmd = kt_json_str(c->args, "command");
		const char *wd = kt_json_str(md, "working_dir");

		if (!wd)
			wd = kt_json_str(c->args, "cwd");
		if (wd)
			free(x->cwd), x->cwd = strdup(wd);
		if (cmd) {
			rc = kt_shell_classify(x->imp, c->seq, rseq, cmd, x->cwd,
					       content, ec, ok, ts);
			if (rc > 0)
				rc = 0;
		}
		return rc;
	}
	if (strcmp(o, "edit") == 0 || strcmp(own->action, "edit") == 0) {
		const char *path = kt_json_str(extras, "path");
		const char *nc = kt_json_str(extras, "new_content");
		const char *oc = kt_json_str(extras, "old_content");
		const cJSON *pe = cJSON_GetObjectItem(extras, "prev_exist");
		char *np;

		if (!path)
			path = kt_json_str(c->args, "path");
		if (!ok || !path)
			return 0;
		if (!(np = kt_ws_path(x->cwd, path)))
			return KT_ENOMEM;
		if (nc) {
			if (oc && !cJSON_IsFalse(pe))
				rc = kt_ws_observe(x->imp, np, oc, strlen(oc),
						   NULL);
			if (!rc)
				rc = kt_ws_write(x->imp, np, nc, strlen(nc),
						 c->seq, c->tool);
		} else {
			rc = kt_impx_oh_edit(x->imp, c->tool, c->args, x->cwd,
					     np, c->seq, rseq, content, ts);
		}
		free(np);
		return rc;
	}
	rc = kt_impx_tool_effects(x->imp, c->tool, c->args, x->cwd, c->seq, rseq,
				content, ec, ok, ts);
	return rc < 0 ? rc : 0;
}

static int oh_import(kt_imp *imp, const kt_file *f)
{
	ohx x;
	cJSON *doc, *meta = NULL;
	const cJSON *evs, *ev, *first = NULL;
	const char *key, *rel = f->rel ? f->rel : kt_basename(f->path);
	kt_impx_span *sp = NULL;
	long nsp, i = -1;
	char *ident = NULL, *name = NULL;
	int rc = 0;

	memset(&x, 0, sizeof(x));
	x.calls.own_free = ocall_free;
	x.imp = imp;
	x.f = f;
	if (!(doc = kt_impx_parse(imp, f)))
		return KT_EPARSE;
	if (!(evs = event_list(doc, &key))) {
		kt_imp_warn(imp, f, 0, "no event list: not an OpenHands "
			    "trajectory");
		cJSON_Delete(doc);
		return KT_EPARSE;
	}
	cJSON_ArrayForEach(ev, evs)
		if (cJSON_IsObject(ev)) {
			first = ev;
			break;
		}
	{
		const char *fts = kt_json_str(first, "timestamp");
		size_t n = strlen(rel) + (fts ? strlen(fts) : 0) + 32;

		/* exports carry no session id; the first event's time and
		 * the file name stay when the export grows */
		if (!(ident = malloc(n))) {
			rc = KT_ENOMEM;
			goto out;
		}
		snprintf(ident, n, "openhands:%s:%s", kt_basename(rel),
			 fts ? fts : f->sha_hex);
	}
	if ((rc = kt_impx_file_run(f, &name, &meta)))
		goto out;
	cJSON_AddStringToObject(meta, "timestamps", "naive ISO taken as UTC");
	/* the run's directory, the first a command ran in: an sts, otlp or
	 * atif export writes it, so that its import resolves a command's
	 * relative paths (`> hello.txt`) as this import does */
	cJSON_ArrayForEach(ev, evs) {
		const char *wd = kt_json_str(cJSON_GetObjectItem(
			cJSON_GetObjectItem(ev, "extras"), "metadata"),
			"working_dir");

		if (wd && *wd) {
			cJSON_AddStringToObject(meta, "cwd", wd);
			break;
		}
	}
	if ((rc = kt_imp_run_begin(imp, ident, name, "openhands", meta)))
		goto out;
	meta = NULL;
	nsp = kt_impx_spans((const char *)f->data, f->len, key, &sp);
	cJSON_ArrayForEach(ev, evs) {
		kt_impx_span s;
		const char *a, *o;
		int64_t ts;

		i++;
		s = kt_impx_span_at(sp, nsp, i);
		if (cJSON_IsNull(ev))
			continue; /* null entries exist in real exports */
		if (!cJSON_IsObject(ev)) {
			kt_imp_warn(imp, f, s.line, "event %ld is not an object",
				    i);
			continue;
		}
		ts = kt_impx_ts(kt_json_str(ev, "timestamp"));
		a = kt_json_str(ev, "action");
		o = kt_json_str(ev, "observation");
		if (a)
			rc = on_action(&x, ev, a, ts, &s);
		else if (o)
			rc = on_observation(&x, ev, o, ts, &s);
		else
			kt_imp_warn(imp, f, s.line, "event %ld has neither "
				    "action nor observation", i);
		if (rc)
			break;
	}
	rc = kt_imp_run_finish(imp, rc);
out:
	kt_impx_calls_free(&x.calls);
	kt_strmap_free(&x.resp, NULL);
	free(x.cwd);
	free(sp);
	free(ident);
	free(name);
	cJSON_Delete(meta);
	cJSON_Delete(doc);
	return rc;
}

const kt_importer kt_importer_openhands = {
	.name = "openhands",
	.summary = "OpenHands event stream (trajectory export, list of events)",
	.detect = oh_detect,
	.import = oh_import,
	.flags = KT_IMPF_HARNESS_PROMPTS,
};
