/*
 * impconv.c - messages, tool calls and results paired by call id, and
 * SEARCH/REPLACE edit blocks, for the chat-shaped agent formats
 * (impconv.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "impconv.h"

int kt_conv_init(kt_conv *cv, kt_imp *imp, const kt_file *f, const char *cwd)
{
	memset(cv, 0, sizeof(*cv));
	cv->imp = imp;
	cv->f = f;
	cv->ec = -1;
	cv->calls.f = f;
	if (cwd && *cwd && !(cv->cwd = strdup(cwd)))
		return KT_ENOMEM;
	return 0;
}

void kt_conv_free(kt_conv *cv)
{
	kt_impx_calls_free(&cv->calls);
	free(cv->cwd);
	cv->cwd = NULL;
}

static int emit(kt_conv *cv, int kind, uint64_t parent, int64_t ts,
		const char *actor, cJSON *pl, const kt_impx_span *sp,
		uint64_t *seq)
{
	kt_impx_span z = { 0, 0, 0 };

	if (!sp)
		sp = &z;
	return kt_impx_emit_valid(cv->imp, cv->f, kind, parent, ts, actor, pl,
				  sp->line, sp->off, sp->len, seq);
}

/* Move the members of more into pl (more is freed). */
static void merge(cJSON *pl, cJSON *more)
{
	cJSON *it;

	if (!pl || !more) {
		cJSON_Delete(more);
		return;
	}
	while ((it = more->child)) {
		cJSON_DetachItemViaPointer(more, it);
		if (it->string && cJSON_GetObjectItemCaseSensitive(pl,
								   it->string))
			cJSON_Delete(it); /* the typed field wins */
		else
			cJSON_AddItemToObject(pl, it->string, it);
	}
	cJSON_Delete(more);
}

int kt_conv_msg(kt_conv *cv, const char *role, int human, const char *text,
		const char *flags, cJSON *more, int64_t ts,
		const kt_impx_span *sp, uint64_t *seq)
{
	cJSON *m = kt_impx_msg(role, human, text, flags);
	int assistant = strcmp(role, "assistant") == 0;
	uint64_t s = 0;
	int rc;

	merge(m, more);
	rc = emit(cv, KT_KIND_MESSAGE, 0, ts, human ? "human" :
		  assistant ? "agent" : "system", m, sp, &s);
	if (!rc && assistant)
		cv->last_assistant = s;
	if (!rc && seq)
		*seq = s;
	return rc;
}

/* kt_impx_at of a span (NULL: unknown) */
static kt_impx_at at_of(const kt_impx_span *sp)
{
	kt_impx_at at = { 0, 0, 0 };

	if (sp) {
		at.line = sp->line;
		at.off = sp->off;
		at.len = sp->len;
	}
	return at;
}

int kt_conv_call(kt_conv *cv, const char *id, const char *tool,
		 const cJSON *args, cJSON *extra, uint64_t parent, int64_t ts,
		 const kt_impx_span *sp, uint64_t *seq)
{
	kt_impx_at at = at_of(sp);

	return kt_impx_call_id(cv->imp, &cv->calls, id,
			       tool && *tool ? tool : NULL, args,
			       parent ? parent : cv->last_assistant, ts,
			       "agent", extra, &at, seq);
}

uint64_t kt_conv_call_seq(const kt_conv *cv, const char *id)
{
	return kt_impx_call_seq(&cv->calls, id);
}

int kt_conv_result(kt_conv *cv, const char *id, const char *out, int ok,
		   cJSON *extra, int64_t ts, const kt_impx_span *sp)
{
	return kt_conv_result_ec(cv, id, out, ok, -2, extra, ts, sp);
}

/* kt_impx_effects_fn over cv->effects */
static int conv_effects(void *arg, const char *tool, const cJSON *args,
			uint64_t call, uint64_t res, const char *out, int ok,
			int64_t ts)
{
	kt_conv *cv = arg;

	return cv->effects(cv, tool, args, call, res, out, ok, ts);
}

int kt_conv_result_ec(kt_conv *cv, const char *id, const char *out, int ok,
		      int ec, cJSON *extra, int64_t ts, const kt_impx_span *sp)
{
	kt_impx_at at = at_of(sp);

	if (ec == -2) {
		int rc = 0;

		ec = out ? kt_impx_exit_code(out, &rc) : -1;
		if (rc)
			return rc;
	}
	if (!out)
		out = "";
	if (!kt_impx_calls_get(&cv->calls, id)) {
		cJSON *more = NULL;

		kt_imp_warn(cv->imp, cv->f, sp ? sp->line : 0,
			    "tool result for unknown call %.80s: kept as a "
			    "system message", id ? id : "(no id)");
		if (extra && (more = cJSON_CreateObject()))
			cJSON_AddItemToObject(more, "extra", extra);
		else
			cJSON_Delete(extra);
		return kt_conv_msg(cv, "system", 0, out, "meta,tool_result",
				   more, ts, sp, NULL);
	}
	if (ok < 0)
		ok = ec <= 0;
	return kt_impx_result_fx(cv->imp, &cv->calls, id, out, ok, ec,
				 cv->cwd, ts, extra, &at,
				 cv->effects ? conv_effects : NULL, cv, NULL);
}

/* ---- SEARCH/REPLACE blocks ----------------------------------------------- */
/* Whether the line at p (up to its newline) is `n`+ copies of ch, then
 * optionally a space and word, then blanks only. */
static int marker(const char *p, char ch, const char *word)
{
	int n = 0;

	while (*p == ch)
		p++, n++;
	if (n < 5)
		return 0;
	if (word) {
		while (*p == ' ')
			p++;
		if (strncmp(p, word, strlen(word)))
			return 0;
		p += strlen(word);
	}
	while (*p == ' ' || *p == '\t' || *p == '\r')
		p++;
	return *p == '\n' || !*p;
}

static const char *next_line(const char *p)
{
	const char *nl = strchr(p, '\n');

	return nl ? nl + 1 : p + strlen(p);
}

/* One block after the SEARCH marker line at p: the search and replace
 * texts (each without the newline before the next marker), *end past the
 * REPLACE marker.  0, or -1 when the block is not closed. */
static int sr_block(const char *p, const char **s, size_t *sn, const char **r,
		    size_t *rn, const char **end)
{
	const char *q;

	*s = p = next_line(p);
	for (q = p; *q && !marker(q, '=', NULL); q = next_line(q))
		;
	if (!*q)
		return -1;
	*sn = (size_t)(q - *s);
	*r = q = next_line(q);
	for (; *q && !marker(q, '>', "REPLACE"); q = next_line(q))
		;
	if (!*q)
		return -1;
	*rn = (size_t)(q - *r);
	*end = next_line(q);
	return 0;
}

int kt_conv_search_replace(kt_imp *imp, const char *cwd, const char *path,
			   const char *text, uint64_t call, const char *tool)
{
	const char *p = text, *s, *r, *end;
	size_t sn, rn;
	char *abs, *os = NULL, *ns = NULL;
	int n = 0, rc = 0, lost = 0;

	if (!path || !text)
		return 0;
	if (!(abs = kt_ws_path(cwd, path)))
		return KT_ENOMEM;
	for (; *p && !rc; p = next_line(p)) {
		if (!marker(p, '<', "SEARCH"))
			continue;
		if (sr_block(p, &s, &sn, &r, &rn, &end))
			break;
		n++;
		free(os);
		free(ns);
		if (!(os = strndup(s, sn)) || !(ns = strndup(r, rn))) {
			rc = KT_ENOMEM;
			break;
		}
		if (lost) {
			p = end - 1;
			continue;
		}
		if (!sn) {
			size_t have = 0;
			const char *cur = kt_ws_get(imp, abs, &have);

			/* an empty SEARCH: a new file, or text added at its
			 * end (Aider appends to an existing one) */
			if (!cur) {
				rc = kt_ws_write(imp, abs, ns, rn, call, tool);
			} else {
				char *cat = malloc(have + rn + 1);

				if (!cat) {
					rc = KT_ENOMEM;
					break;
				}
				memcpy(cat, cur, have);
				memcpy(cat + have, ns, rn);
				cat[have + rn] = 0;
				rc = kt_ws_write(imp, abs, cat, have + rn, call,
						 tool);
				free(cat);
			}
		} else {
			rc = kt_ws_replace(imp, abs, os, ns, 0, call, tool);
			if (rc == KT_ENOTFOUND) {
				lost = 1;
				rc = kt_ws_invalidate(imp, abs, call, tool);
			}
		}
		p = end - 1; /* next_line() moves past the REPLACE line */
	}
	free(os);
	free(ns);
	free(abs);
	return rc < 0 ? rc : n;
}

/* ---- the edit tools of Cline and Aider ----------------------------------- */
/* *abs: path made absolute against cwd (malloc'ed).  0 or KT_ENOMEM. */
static int ws_at(const char *cwd, const char *path, char **abs)
{
	return (*abs = kt_ws_path(cwd, path)) ? 0 : KT_ENOMEM;
}

int kt_conv_agent_edit(kt_imp *imp, const char *tool, const cJSON *a,
		       const char *cwd, uint64_t call, uint64_t res,
		       const char *out, int ok, int64_t ts)
{
	const char *path = kt_json_str(a, "path");
	char *p = NULL;
	int rc = 0;

	if (!tool)
		return 0;
	if (!strcmp(tool, "edit_block")) {
		/* Aider: one SEARCH/REPLACE block of a reply */
		const char *se = kt_json_str(a, "search");
		const char *re = kt_json_str(a, "replace");
		struct kt_buf b;
		char *t;

		if (!ok || !path || !se || !re)
			return 1;
		memset(&b, 0, sizeof(b));
		kt_buf_printf(&b, "<<<<<<< SEARCH\n%s=======\n%s>>>>>>> REPLACE\n",
			      se, re);
		if (!(t = kt_buf_take(&b)))
			return KT_ENOMEM;
		rc = kt_conv_search_replace(imp, cwd, path, t, call, tool);
		free(t);
		return rc < 0 ? rc : 1;
	}
	if (!strcmp(tool, "editor") && (kt_json_str(a, "old_text") ||
					kt_json_str(a, "new_text") ||
					cJSON_GetObjectItem(a, "insert_line"))) {
		/* Cline SDK's editor */
		const char *os = kt_json_str(a, "old_text");
		const char *ns = kt_json_str(a, "new_text");

		if (!ok || !path)
			return 1;
		if ((rc = ws_at(cwd, path, &p)))
			return rc;
		if (cJSON_GetObjectItem(a, "insert_line") || !ns)
			rc = kt_ws_invalidate(imp, p, call, tool);
		else if (os) {
			/* on content we do not know (an sts, otlp or atif
			 * export does not carry the @-mentioned file the
			 * session inlined) still an edit, its hunk kept */
			rc = kt_ws_replace(imp, p, os, ns, 0, call, tool);
			if (rc == KT_ENOTFOUND)
				rc = kt_ws_edit_unknown(imp, p, os, ns, 0, call,
							tool);
		} else if (!kt_ws_get(imp, p, NULL)) {
			rc = kt_ws_write(imp, p, ns, strlen(ns), call, tool);
		}
		free(p);
		return rc < 0 ? rc : 1;
	}
	if (!strcmp(tool, "run_commands")) {
		/* Cline SDK's shell: the exit code is not in its output */
		const cJSON *c;

		cJSON_ArrayForEach(c, cJSON_GetObjectItem(a, "commands")) {
			const char *cmd = cJSON_IsString(c) ? c->valuestring :
					  kt_json_str(c, "command");

			if (cmd && (rc = kt_shell_classify(imp, call, res, cmd,
							   cwd, out ? out : "",
							   -1, ok, ts)) < 0)
				return rc;
		}
		return 1;
	}
	/* Cline's task folder (ClineSayTool) */
	if (!strcmp(tool, "newFileCreated") ||
	    !strcmp(tool, "editedExistingFile")) {
		const char *d = kt_json_str(a, "diff");
		const char *t = kt_json_str(a, "content");

		if (!ok || !path)
			return 1;
		if (d && strstr(d, "<<<<<<< SEARCH")) {
			rc = kt_conv_search_replace(imp, cwd, path, d, call,
						    tool);
			return rc < 0 ? rc : 1;
		}
		if ((rc = ws_at(cwd, path, &p)))
			return rc;
		rc = t ? kt_ws_write(imp, p, t, strlen(t), call, tool)
		       : kt_ws_invalidate(imp, p, call, tool);
		free(p);
		return rc < 0 ? rc : 1;
	}
	if (!strcmp(tool, "fileDeleted")) {
		if (!ok || !path)
			return 1;
		if ((rc = ws_at(cwd, path, &p)))
			return rc;
		rc = kt_ws_delete(imp, p, call, tool);
		free(p);
		return rc < 0 ? rc : 1;
	}
	return 0;
}
