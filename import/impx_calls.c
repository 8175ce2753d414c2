/*
 * impx_calls.c - tool calls linked to their results by a call id, and
 * JSONL files read whole before their records are used (impx.h): what the
 * Gemini CLI, Copilot CLI, codex exec, Pi and Amp importers share, and
 * the pairing under impconv.h's chat-shaped formats.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "impx.h"

/* Free record k, its own through the table's own_free. */
static void rec_free(const kt_impx_calls *c, kt_impx_call_rec *k)
{
	if (!k)
		return;
	free(k->tool);
	cJSON_Delete(k->args);
	if (k->own)
		(c->own_free ? c->own_free : free)(k->own);
	free(k);
}

kt_impx_call_rec *kt_impx_calls_put(kt_impx_calls *c, const char *id,
				    uint64_t seq, const char *tool,
				    cJSON *args, void *own)
{
	kt_impx_call_rec *k = calloc(1, sizeof(*k));
	void **slot;

	if (!k) {
		cJSON_Delete(args);
		if (own)
			(c->own_free ? c->own_free : free)(own);
		return NULL;
	}
	k->seq = seq;
	k->args = args;
	k->own = own;
	if (!(k->tool = strdup(tool ? tool : "unknown")) ||
	    !(slot = kt_strmap_slot(&c->m, id, 1))) {
		rec_free(c, k);
		return NULL;
	}
	rec_free(c, *slot); /* an id given twice: the later call wins */
	*slot = k;
	return k;
}

kt_impx_call_rec *kt_impx_calls_get(const kt_impx_calls *c, const char *id)
{
	return id ? kt_strmap_get(&c->m, id) : NULL;
}

/* The one pairing both kinds of caller go through: id NULL gets
 * "call-N"; the emitted tool_call lies in c->f. */
static int call_emit(kt_imp *imp, kt_impx_calls *c, const char *id,
		     const char *tool, const cJSON *args, uint64_t parent,
		     int64_t ts, const char *actor, cJSON *extra,
		     const kt_impx_at *at, uint64_t *seq)
{
	char idb[32];
	cJSON *pl = cJSON_CreateObject(), *a = kt_impx_args(args);
	uint64_t s = 0;
	int rc;

	if (!id) {
		snprintf(idb, sizeof(idb), "call-%llu",
			 (unsigned long long)++c->anon);
		id = idb;
	}
	if (!tool)
		tool = "unknown";
	if (!pl || !a) {
		cJSON_Delete(pl);
		cJSON_Delete(a);
		cJSON_Delete(extra);
		return KT_ENOMEM;
	}
	cJSON_AddStringToObject(pl, "tool", tool);
	cJSON_AddStringToObject(pl, "call_id", id);
	cJSON_AddItemToObject(pl, "args", cJSON_Duplicate(a, 1));
	if (extra)
		cJSON_AddItemToObject(pl, "extra", extra);
	rc = kt_impx_emit_valid(imp, c->f, KT_KIND_TOOL_CALL, parent, ts,
				actor ? actor : "agent", pl, at ? at->line : 0,
				at ? at->off : 0, at ? at->len : 0, &s);
	if (rc) {
		cJSON_Delete(a);
		return rc;
	}
	if (seq)
		*seq = s;
	return kt_impx_calls_put(c, id, s, tool, a, NULL) ? 0 : KT_ENOMEM;
}

int kt_impx_call(kt_imp *imp, kt_impx_calls *c, const char *id,
		 const char *tool, const cJSON *args, uint64_t parent,
		 int64_t ts, const char *actor, cJSON *extra,
		 const kt_impx_at *at, uint64_t *seq)
{
	return call_emit(imp, c, id && *id ? id : NULL, tool, args, parent,
			 ts, actor, extra, at, seq);
}

int kt_impx_call_id(kt_imp *imp, kt_impx_calls *c, const char *id,
		    const char *tool, const cJSON *args, uint64_t parent,
		    int64_t ts, const char *actor, cJSON *extra,
		    const kt_impx_at *at, uint64_t *seq)
{
	return call_emit(imp, c, id, tool, args, parent, ts, actor, extra, at,
			 seq);
}

uint64_t kt_impx_call_seq(const kt_impx_calls *c, const char *id)
{
	const kt_impx_call_rec *k = kt_impx_calls_get(c, id);

	return k ? k->seq : 0;
}

int kt_impx_result(kt_imp *imp, kt_impx_calls *c, const char *id,
		   const char *output, int ok, int exit_code, const char *cwd,
		   int64_t ts, cJSON *extra, const kt_impx_at *at,
		   uint64_t *seq)
{
	return kt_impx_result_fx(imp, c, id, output, ok, exit_code, cwd, ts,
				 extra, at, NULL, NULL, seq);
}

int kt_impx_result_fx(kt_imp *imp, kt_impx_calls *c, const char *id,
		      const char *output, int ok, int exit_code,
		      const char *cwd, int64_t ts, cJSON *extra,
		      const kt_impx_at *at, kt_impx_effects_fn fx, void *arg,
		      uint64_t *seq)
{
	kt_impx_call_rec *k = kt_impx_calls_get(c, id);
	cJSON *pl = cJSON_CreateObject();
	uint64_t rseq = 0;
	int rc;

	if (!pl) {
		cJSON_Delete(extra);
		return KT_ENOMEM;
	}
	cJSON_AddStringToObject(pl, "call_id", id ? id : "");
	cJSON_AddBoolToObject(pl, "ok", ok ? 1 : 0);
	if ((rc = kt_impx_set_output(imp, pl, output ? output : ""))) {
		cJSON_Delete(pl);
		cJSON_Delete(extra);
		return rc;
	}
	if (exit_code >= 0)
		cJSON_AddNumberToObject(pl, "exit_code", exit_code);
	if (!k) {
		/* nothing lost: the result stays, said to be unpaired */
		if (!extra)
			extra = cJSON_CreateObject();
		if (extra)
			cJSON_AddBoolToObject(extra, "unpaired", 1);
	}
	if (extra)
		cJSON_AddItemToObject(pl, "extra", extra);
	rc = kt_impx_emit_valid(imp, c->f, KT_KIND_TOOL_RESULT,
				k ? k->seq : 0, ts, "tool", pl,
				at ? at->line : 0, at ? at->off : 0,
				at ? at->len : 0, &rseq);
	if (seq)
		*seq = rseq;
	if (rc || !k)
		return rc;
	rc = fx ? fx(arg, k->tool, k->args, k->seq, rseq, output, ok, ts) : 0;
	if (rc == 0)
		rc = kt_impx_tool_effects(imp, k->tool, k->args, cwd, k->seq,
					  rseq, output, exit_code, ok, ts);
	return rc < 0 ? rc : 0;
}

void kt_impx_calls_free(kt_impx_calls *c)
{
	size_t i;

	/* kt_strmap_free's free_val has no room for own_free */
	for (i = 0; i < c->m.cap; i++)
		if (c->m.keys[i]) {
			rec_free(c, c->m.vals[i]);
			c->m.vals[i] = NULL;
		}
	kt_strmap_free(&c->m, NULL);
	c->anon = 0;
}

struct recs {
	kt_impx_rec *r;
	size_t n, cap;
};

static int rec_add(cJSON *o, uint64_t line, uint64_t off, uint64_t len,
		   void *arg)
{
	struct recs *rs = arg;

	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 64;
		kt_impx_rec *nr = realloc(rs->r, cap * sizeof(*nr));

		if (!nr)
			return KT_ENOMEM;
		rs->r = nr;
		rs->cap = cap;
	}
	if (!(rs->r[rs->n].o = cJSON_Duplicate(o, 1)))
		return KT_ENOMEM;
	rs->r[rs->n].at.line = line;
	rs->r[rs->n].at.off = off;
	rs->r[rs->n].at.len = len;
	rs->n++;
	return 0;
}

int kt_impx_jsonl_all(kt_imp *imp, const kt_file *f, kt_impx_rec **out,
		      size_t *n)
{
	struct recs rs = { 0 };
	int rc = kt_impx_jsonl(imp, f, rec_add, &rs);

	if (rc) {
		kt_impx_recs_free(rs.r, rs.n);
		*out = NULL;
		*n = 0;
		return rc;
	}
	*out = rs.r;
	*n = rs.n;
	return 0;
}

void kt_impx_recs_free(kt_impx_rec *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cJSON_Delete(r[i].o);
	free(r);
}

int kt_impx_doc_bad(kt_imp *imp, const kt_file *f)
{
	const char *d = (const char *)f->data;
	const char *nl = memchr(d, '\n', f->len);
	size_t n = nl ? (size_t)(nl - d) : f->len;
	int rc;
	cJSON *o = kt_cjson_parse(d, n, NULL, &rc);

	if (o) {
		cJSON_Delete(o);
		return 0;
	}
	if (rc == KT_ENOMEM) {
		kt_imp_fail(imp, rc);
		return 1;
	}
	/* a line that is no whole value but holds a key: JSONL whose first
	 * line is bad, reported line by line */
	if (memchr(d, ':', n))
		return 0;
	kt_imp_json_bad(imp, f, 0, d, f->len);
	return 1;
}

kt_impx_at kt_impx_at_span(const kt_impx_span *sp, long n, long i)
{
	kt_impx_span s = kt_impx_span_at(sp, n, i);
	kt_impx_at at = { s.line, s.off, s.len };

	return at;
}

int kt_impx_begin(kt_imp *imp, const kt_file *f, const char *format,
		  const char *id, const char *name, cJSON *meta)
{
	const char *own = id ? id : f->sha_hex;
	size_t l = strlen(format) + strlen(own) + 2;
	char *ident = malloc(l);
	int rc;

	if (!ident) {
		cJSON_Delete(meta);
		return KT_ENOMEM;
	}
	snprintf(ident, l, "%s:%s", format, own);
	rc = kt_imp_run_begin(imp, ident, name ? name : id ? id :
			      kt_basename(f->path), format, meta);
	free(ident);
	return rc;
}
