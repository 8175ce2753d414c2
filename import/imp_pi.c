/*
 * imp_pi.c - Pi coding agent sessions (JSONL, ~/.pi/agent/sessions/
 * <cwd>/<time>_<id>.jsonl).  Source: badlogic/pi-mono packages/
 * coding-agent (session manager: SessionHeader and the entry types),
 * packages/ai (message and content types).
 *
 * Lines: a header {type "session", version, id, timestamp, cwd,
 * branchedFrom | parentSession?}, then entries {type, id, parentId,
 * timestamp, ...}: message {message {role user|assistant|toolResult|
 * bashExecution, content, ...}}, model_change, thinking_level_change,
 * compaction {summary, tokensBefore}, branch_summary {summary, fromId},
 * custom_message, and types a later version may add.
 *
 * Rules:
 *  - The entries form a tree by parentId: going back to an earlier entry
 *    and going on from there starts a branch.  Every branch is kept, in
 *    file order: an event's `parent` is the last event of its parent
 *    entry, its extra holds the entry's id and parentId, and the first
 *    event of an entry whose parent already had a child carries
 *    extra.branch true (meta.branches counts them).
 *  - user text is human; assistant text, thinking (flag "thinking") and
 *    toolCall blocks are the agent's; a toolResult message is the
 *    tool_result of its toolCallId; a bashExecution (a command the person
 *    ran with `!`) is a tool call of actor human with its result.
 *  - compaction and branch_summary are non-human system messages
 *    (flags compact_summary / branch_summary); model_change and
 *    thinking_level_change are notes.  Entries of an unknown type are
 *    skipped silently (newer Pi versions add them), counted in
 *    meta.unknown_entries.
 *  - Run identity: pi_agent:<header id>, else pi_agent:<sha256 of the
 *    file>.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "impx.h"

#define DETECT_WINDOW 4096

static int pi_detect(const kt_file *f)
{
	size_t n = f->len < DETECT_WINDOW ? f->len : DETECT_WINDOW;
	const unsigned char *d = f->data;
	const unsigned char *nl = memchr(d, '\n', n);
	size_t l1 = nl ? (size_t)(nl - d) : n;

	if (!n || d[0] != '{')
		return 0;
	if (kt_impx_sniff(d, l1, "type", "session") &&
	    kt_impx_sniff(d, l1, "cwd", NULL) &&
	    (kt_impx_sniff(d, n, "parentId", NULL) ||
	     kt_impx_sniff(d, l1, "version", NULL)))
		return 85;
	return 0;
}

typedef struct pix {
	kt_imp *imp;
	kt_impx_calls calls;
	kt_strmap last;    /* entry id -> its last event's seq */
	kt_strmap kids;    /* entry id -> it has a child already */
	const char *cwd;
	long branches, unknown;
} pix;

static cJSON *pi_usage(const cJSON *u)
{
	static const char *const keys[4] = { "input", "output", "cacheRead",
		"cacheWrite" };

	return kt_impx_usage(u, keys);
}

/* The tree links of an entry, for every event it gives. */
static cJSON *links(const cJSON *e, int branch)
{
	cJSON *x = cJSON_CreateObject();

	if (!x)
		return NULL;
	if (kt_json_str(e, "id"))
		cJSON_AddStringToObject(x, "id", kt_json_str(e, "id"));
	if (kt_json_str(e, "parentId"))
		cJSON_AddStringToObject(x, "parentId", kt_json_str(e, "parentId"));
	if (branch)
		cJSON_AddBoolToObject(x, "branch", 1);
	return x;
}

typedef struct pent {
	const cJSON *e;
	const kt_impx_at *at;
	int64_t ts;
	uint64_t parent;   /* seq the next event hangs on */
	int branch;        /* the first event says it starts a branch */
} pent;

static int put(pix *x, pent *p, int kind, const char *actor, cJSON *pl)
{
	cJSON *ln;
	int rc;

	if (!pl)
		return KT_ENOMEM;
	if (!(ln = links(p->e, p->branch))) {
		cJSON_Delete(pl);
		return KT_ENOMEM;
	}
	cJSON_AddItemToObject(pl, "extra", ln);
	p->branch = 0;
	rc = kt_impx_emit_valid(x->imp, NULL, kind, p->parent, p->ts, actor,
				pl, p->at->line, p->at->off, p->at->len,
				&p->parent);
	return rc;
}

static int on_message(pix *x, pent *p, const cJSON *m)
{
	const char *role = kt_json_str(m, "role");
	const cJSON *c = cJSON_GetObjectItem(m, "content"), *b;
	int rc = 0;

	if (!role)
		return 1;
	if (!strcmp(role, "toolResult")) {
		char *t = kt_impx_content_text(c);
		int ok = !cJSON_IsTrue(cJSON_GetObjectItem(m, "isError"));
		cJSON *ex = links(p->e, p->branch);

		p->branch = 0;
		rc = kt_impx_result(x->imp, &x->calls,
				    kt_json_str(m, "toolCallId"), t ? t : "",
				    ok, -1, x->cwd, p->ts, ex, p->at, &p->parent);
		free(t);
		return rc;
	}
	if (!strcmp(role, "bashExecution")) {
		cJSON *a = cJSON_CreateObject();
		const char *out = kt_json_str(m, "output");
		double ec = -1;
		char id[96];

		if (!a)
			return KT_ENOMEM;
		cJSON_AddStringToObject(a, "command",
			kt_json_str(m, "command") ? kt_json_str(m, "command") : "");
		snprintf(id, sizeof(id), "bash-%.80s",
			 kt_json_str(p->e, "id") ? kt_json_str(p->e, "id") : "?");
		rc = kt_impx_call(x->imp, &x->calls, id, "bash", a, p->parent,
				  p->ts, "human", links(p->e, p->branch), p->at,
				  &p->parent);
		p->branch = 0;
		cJSON_Delete(a);
		kt_impx_num(m, "exitCode", &ec);
		if (!rc)
			rc = kt_impx_result(x->imp, &x->calls, id,
				out ? out : "",
				ec == 0 && !cJSON_IsTrue(cJSON_GetObjectItem(
					m, "cancelled")),
				ec >= 0 && ec < 1e6 ? (int)ec : -1, x->cwd,
				p->ts, links(p->e, 0), p->at, &p->parent);
		return rc;
	}
	{
		int user = !strcmp(role, "user");
		const char *r = user ? "user" : !strcmp(role, "assistant") ?
				"assistant" : "system";
		const char *actor = user ? "human" : !strcmp(r, "assistant") ?
				    "agent" : "system";
		cJSON *usage = user ? NULL :
			pi_usage(cJSON_GetObjectItem(m, "usage"));
		const char *model = kt_json_str(m, "model");

		if (cJSON_IsString(c)) {
			cJSON *pl = kt_impx_msg(r, user, c->valuestring, NULL);

			if (pl && usage)
				cJSON_AddItemToObject(pl, "usage", usage);
			else
				cJSON_Delete(usage);
			return put(x, p, KT_KIND_MESSAGE, actor, pl);
		}
		cJSON_ArrayForEach(b, c) {
			const char *t = kt_json_str(b, "type");
			cJSON *pl;

			if (!t)
				continue;
			if (!strcmp(t, "text") || !strcmp(t, "thinking")) {
				int th = !strcmp(t, "thinking");
				const char *s = kt_json_str(b, th ? "thinking" :
							    "text");

				if (!s || (th && !*s))
					continue; /* a redacted thought */
				pl = kt_impx_msg(r, user && !th, s,
						 th ? "thinking" : NULL);
				if (pl && usage) {
					cJSON_AddItemToObject(pl, "usage", usage);
					usage = NULL;
				}
				if (pl && model && !user)
					cJSON_AddStringToObject(pl, "model", model);
				rc = put(x, p, KT_KIND_MESSAGE, actor, pl);
			} else if (!strcmp(t, "toolCall")) {
				rc = kt_impx_call(x->imp, &x->calls,
					kt_json_str(b, "id"), kt_json_str(b, "name"),
					cJSON_GetObjectItem(b, "arguments"),
					p->parent, p->ts, "agent",
					links(p->e, p->branch), p->at, &p->parent);
				p->branch = 0;
			}
			if (rc)
				break;
		}
		cJSON_Delete(usage);
	}
	return rc;
}

static int on_entry(pix *x, const cJSON *e, const kt_impx_at *at)
{
	const char *ty = kt_json_str(e, "type");
	const char *id = kt_json_str(e, "id"), *par = kt_json_str(e, "parentId");
	pent p;
	int rc = 0;

	memset(&p, 0, sizeof(p));
	p.e = e;
	p.at = at;
	p.ts = kt_impx_ts_json(cJSON_GetObjectItem(e, "timestamp"));
	if (par) {
		void **k = kt_strmap_slot(&x->kids, par, 1);

		if (!k)
			return KT_ENOMEM;
		if (*k) {
			p.branch = 1;
			x->branches++;
		}
		*k = (void *)1;
		p.parent = (uint64_t)(uintptr_t)kt_strmap_get(&x->last, par);
	}
	if (!strcmp(ty, "message")) {
		rc = on_message(x, &p, cJSON_GetObjectItem(e, "message"));
	} else if (!strcmp(ty, "compaction") || !strcmp(ty, "branch_summary")) {
		rc = put(x, &p, KT_KIND_MESSAGE, "system",
			 kt_impx_msg("system", 0, kt_json_str(e, "summary"),
				     !strcmp(ty, "compaction") ?
				     "meta,compact_summary" :
				     "meta,branch_summary"));
	} else if (!strcmp(ty, "custom_message")) {
		char *t = kt_impx_content_text(cJSON_GetObjectItem(e, "content"));

		rc = put(x, &p, KT_KIND_MESSAGE, "system",
			 kt_impx_msg("system", 0, t ? t : "", "meta"));
		free(t);
	} else if (!strcmp(ty, "model_change") ||
		   !strcmp(ty, "thinking_level_change")) {
		char b[256];
		cJSON *pl = cJSON_CreateObject();

		if (!strcmp(ty, "model_change"))
			snprintf(b, sizeof(b), "model: %.100s/%.100s",
				 kt_json_str(e, "provider") ?
				 kt_json_str(e, "provider") : "?",
				 kt_json_str(e, "modelId") ?
				 kt_json_str(e, "modelId") : "?");
		else
			snprintf(b, sizeof(b), "thinking level: %.100s",
				 kt_json_str(e, "thinkingLevel") ?
				 kt_json_str(e, "thinkingLevel") : "?");
		if (pl)
			cJSON_AddStringToObject(pl, "text", b);
		rc = put(x, &p, KT_KIND_NOTE, "system", pl);
	} else {
		x->unknown++;
		return 0;
	}
	if (rc == 1)
		return 1;
	if (!rc && id && p.parent &&
	    kt_strmap_put(&x->last, id, (void *)(uintptr_t)p.parent))
		rc = KT_ENOMEM;
	return rc;
}

static int pi_import(kt_imp *imp, const kt_file *f)
{
	kt_impx_rec *r = NULL;
	size_t n = 0, i = 0;
	const cJSON *h = NULL;
	const char *sid = NULL;
	cJSON *meta = NULL;
	pix x;
	int rc;

	memset(&x, 0, sizeof(x));
	x.imp = imp;
	if ((rc = kt_impx_jsonl_all(imp, f, &r, &n)))
		return rc;
	if (n && kt_json_str(r[0].o, "type") &&
	    !strcmp(kt_json_str(r[0].o, "type"), "session")) {
		h = r[0].o;
		sid = kt_json_str(h, "id");
		x.cwd = kt_json_str(h, "cwd");
		i = 1;
	}
	if (!(meta = cJSON_CreateObject())) {
		rc = KT_ENOMEM;
		goto out;
	}
	if (x.cwd)
		cJSON_AddStringToObject(meta, "cwd", x.cwd);
	if (cJSON_GetObjectItem(h, "version"))
		cJSON_AddItemToObject(meta, "version", cJSON_Duplicate(
			cJSON_GetObjectItem(h, "version"), 1));
	if (kt_impx_str2(h, "branchedFrom", "parentSession"))
		cJSON_AddStringToObject(meta, "branched_from",
			kt_impx_str2(h, "branchedFrom", "parentSession"));
	/* meta is the session's from here, whatever it returns */
	rc = kt_impx_begin(imp, f, "pi_agent", sid, NULL, meta);
	meta = NULL;
	if (rc)
		goto out;
	for (; i < n && !rc; i++) {
		if (!kt_json_str(r[i].o, "type")) {
			kt_imp_warn(imp, f, r[i].at.line, "no \"type\": line "
				    "skipped");
			continue;
		}
		rc = on_entry(&x, r[i].o, &r[i].at);
		if (rc == 1) {
			kt_imp_warn(imp, f, r[i].at.line, "message without a "
				    "role: line skipped");
			rc = 0;
		}
	}
	rc = kt_imp_run_finish(imp, rc);
out:
	cJSON_Delete(meta);
	kt_impx_calls_free(&x.calls);
	kt_strmap_free(&x.last, NULL);
	kt_strmap_free(&x.kids, NULL);
	kt_impx_recs_free(r, n);
	return rc;
}

const kt_importer kt_importer_pi_agent = {
	.name = "pi_agent",
	.summary = "Pi coding agent session (JSONL tree of entries by parentId)",
	.detect = pi_detect,
	.import = pi_import,
};
