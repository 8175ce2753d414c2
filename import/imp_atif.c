/*
 * imp_atif.c - ATIF, the Agent Trajectory Interchange Format of Harbor /
 * Terminal-Bench 2 (spec: laude-institute/harbor
 * docs/rfcs/0001-trajectory-format.md; ../shared/research/formats.md s.3).
 *
 * One JSON document: {schema_version, session_id, agent, steps[],
 * final_metrics, notes, extra}.  A step has source user|agent|system,
 * message (a string, or a list of parts in some v1.7 writers),
 * reasoning_content, tool_calls[{tool_call_id, function_name, arguments}],
 * observation{results[{source_call_id?, content?, subagent_trajectory_ref?}]}
 * and metrics.  Every version seen is read the same way (v1.0-v1.7), and so
 * are the non-conforming files in the wild:
 *  - "ATIF 1.4" of the OpenAgents claude-code wrapper: agent.model/provider,
 *    tool calls {id, name, arguments}, and tool results as separate system
 *    steps {observation:{type:"tool_result", content, result{success}}}
 *    whose message names the call ("Tool result for <id>") and which may
 *    come BEFORE the step holding the call: such a result is held back and
 *    emitted right after its call, so a call always precedes its result.
 *  - results without source_call_id (terminus-2 gives one terminal snapshot
 *    per step): paired with the step's calls in order, a single result
 *    with the step's last call; what is left is an observation message.
 * A subagent_trajectory_ref is resolved against the files beside this one
 * (the trajectory_path as given, then "<this stem>.<path minus
 * 'trajectory.'>", then a sibling whose session_id matches); the
 * sub-trajectory is imported into this run with actor "agent:<session_id>"
 * and claimed.  Dangling references are warned.  A sub-trajectory file met
 * on its own while a sibling references it is left to that sibling.
 * A sidecar "<stem>.metrics.json" (or metrics.json) goes into the run meta.
 * Image parts of a message or result (v1.6) and a step's token ids and
 * logprobs: imp_atif_media.c.
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <ctype.h>
#include "import.h"
#include "impx.h"
#include "imp_atif_media.h"
#include "jsonstrict.h"

#define DETECT_WINDOW 16384
#define MAX_SUB_DEPTH 4

typedef struct atx {
	kt_imp *imp;
	const kt_file *top;
	kt_impx_calls calls; /* call id -> its call (whole run, sub-agents
				too); answered: it has a result */
	kt_strmap held;    /* call id -> const cJSON *step (result first) */
	kt_strmap visited; /* rel of files imported into this run */
	kt_strmap later;   /* call id -> 1: calls that some step holds */
	const char *task_baseline; /* the baseline the task prompt names */
	const char *cwd;   /* extra.ktraj_cwd of the main document (ktraj's
			      export): relative tool paths resolve there;
			      NULL none */
	int64_t last_ts;   /* of the latest step: the verdict's time */
} atx;

/* ---- detection ------------------------------------------------------------ */
static int atif_detect(const kt_file *f)
{
	const unsigned char *d = f->data;
	size_t n;
	int steps, ver;

	if (kt_impx_detect_open(f, DETECT_WINDOW, &n) != '{')
		return 0;
	steps = kt_impx_sniff(d, n, "steps", NULL);
	ver = kt_impx_sniff(d, n, "schema_version", NULL);
	if (ver && memmem(d, n, "ATIF", 4) && (steps ||
					      kt_impx_sniff(d, n, "session_id", NULL)))
		return 95;
	if (steps && kt_impx_sniff(d, n, "step_id", NULL) &&
	    kt_impx_sniff(d, n, "source", NULL))
		return ver ? 85 : 70;
	return 0;
}

/* ---- helpers -------------------------------------------------------------- */
static char *dir_of(const char *rel)
{
	const char *s = strrchr(rel, '/');

	return s ? strndup(rel, (size_t)(s - rel) + 1) : strdup("");
}

/* "x.trajectory.json" -> "x", "trajectory.json" -> "", "x.json" -> "x" */
static char *stem_of(const char *base)
{
	size_t n = strlen(base);

	if (n >= 16 && strcmp(base + n - 16, ".trajectory.json") == 0)
		return strndup(base, n - 16);
	if (strcmp(base, "trajectory.json") == 0)
		return strdup("");
	if (n >= 5 && strcmp(base + n - 5, ".json") == 0)
		return strndup(base, n - 5);
	return strdup(base);
}

static int placeholder_id(const char *s)
{
	if (!s || !*s)
		return 1;
	for (; *s; s++)
		if (!(isupper((unsigned char)*s) || *s == '_' ||
		      isdigit((unsigned char)*s)))
			return 0;
	return 1;
}

static char *step_text(const cJSON *step)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(step, "message");

	return kt_impx_content_text(m);
}

static cJSON *usage_of(const cJSON *metrics, cJSON **cost)
{
	const cJSON *pt, *ct, *ca, *co;
	cJSON *u;
	double in;

	*cost = NULL;
	if (!cJSON_IsObject(metrics))
		return NULL;
	pt = cJSON_GetObjectItem(metrics, "prompt_tokens");
	ct = cJSON_GetObjectItem(metrics, "completion_tokens");
	ca = cJSON_GetObjectItem(metrics, "cached_tokens");
	co = cJSON_GetObjectItem(metrics, "cost_usd");
	if (cJSON_IsNumber(co))
		*cost = cJSON_CreateNumber(co->valuedouble);
	if (!cJSON_IsNumber(pt) && !cJSON_IsNumber(ct))
		return NULL;
	if (!(u = cJSON_CreateObject()))
		return NULL;
	/* ATIF prompt_tokens include the cached ones (RFC 0001, metrics) */
	in = cJSON_IsNumber(pt) ? pt->valuedouble : 0;
	if (cJSON_IsNumber(ca))
		in -= ca->valuedouble;
	/* counts as written: one out of range is left out (store/event_model.h) */
	kt_imp_add_count(u, "input", in > 0 ? in : 0);
	kt_imp_add_count(u, "output", cJSON_IsNumber(ct) ? ct->valuedouble : 0);
	kt_imp_add_count(u, "cache_read",
			 cJSON_IsNumber(ca) ? ca->valuedouble : 0);
	cJSON_AddNumberToObject(u, "cache_creation", 0);
	return u;
}

/* A step's "extra"-worthy fields: whatever ATIF does not define. */
static const char *const STEP_KNOWN[] = {
	"step_id", "timestamp", "source", "model_name", "message",
	"reasoning_content", "tool_calls", "observation", "metrics",
	"reasoning_effort", NULL
};

/* ---- results ---------------------------------------------------------------- */
/* images: the result's "images" (taken over; NULL: none) */
static int emit_result(atx *x, const kt_file *f, const char *cid,
		       const char *content, int ok, const cJSON *extra_res,
		       cJSON *images, int64_t ts, const char *actor,
		       const kt_impx_span *sp)
{
	kt_impx_call_rec *c = kt_impx_calls_get(&x->calls, cid);
	cJSON *pl = cJSON_CreateObject();
	uint64_t rseq = 0;
	int erc, ec = kt_impx_exit_code(content, &erc), rc;

	if (!pl || erc) {
		cJSON_Delete(pl);
		cJSON_Delete(images);
		return KT_ENOMEM;
	}
	if (images)
		cJSON_AddItemToObject(pl, "images", images);
	if (ok < 0)
		ok = ec > 0 ? 0 : 1;
	cJSON_AddStringToObject(pl, "call_id", cid ? cid : "");
	cJSON_AddBoolToObject(pl, "ok", ok);
	if ((rc = kt_impx_set_output(x->imp, pl, content ? content : ""))) {
		cJSON_Delete(pl);
		return rc;
	}
	if (ec >= 0)
		cJSON_AddNumberToObject(pl, "exit_code", ec);
	if (extra_res) {
		cJSON *ex = cJSON_AddObjectToObject(pl, "extra");

		if (ex)
			cJSON_AddItemToObject(ex, "result",
					      cJSON_Duplicate(extra_res, 1));
	}
	rc = kt_impx_emit_valid(x->imp, f == x->top ? NULL : f, KT_KIND_TOOL_RESULT,
			c ? c->seq : 0, ts, actor, pl, sp->line,
			sp->off, sp->len, &rseq);
	if (rc || !c)
		return rc;
	c->answered = 1;
	rc = kt_impx_tool_effects(x->imp, c->tool, c->args, x->cwd, c->seq, rseq,
				content, ec, ok, ts);
	return rc < 0 ? rc : 0;
}

/* A non-conforming tool-result step (OpenAgents "ATIF 1.4"). */
static int tool_result_step(atx *x, const kt_file *f, const cJSON *step,
			    const char *actor, const kt_impx_span *sp)
{
	const cJSON *ob = cJSON_GetObjectItemCaseSensitive(step, "observation");
	const cJSON *res = cJSON_GetObjectItemCaseSensitive(ob, "result");
	const cJSON *succ = cJSON_GetObjectItemCaseSensitive(res, "success");
	const char *msg = kt_json_str(step, "message");
	const char *cid = kt_impx_str2(ob, "tool_call_id", "source_call_id");
	const char *content = kt_json_str(ob, "content");
	char idb[256];
	int64_t ts = kt_impx_ts_json(cJSON_GetObjectItem(step, "timestamp"));

	if (!cid && msg && strncmp(msg, "Tool result for ", 16) == 0) {
		snprintf(idb, sizeof(idb), "%s", msg + 16);
		idb[strcspn(idb, " \n")] = 0;
		cid = idb;
	}
	if (!content)
		content = kt_impx_str2(res, "output", "error");
	return emit_result(x, f, cid, content,
			   cJSON_IsBool(succ) ? cJSON_IsTrue(succ) : -1, res,
			   NULL, ts, actor, sp);
}

static int is_result_step(const cJSON *step)
{
	const cJSON *ob = cJSON_GetObjectItemCaseSensitive(step, "observation");
	const char *t = kt_json_str(ob, "type");

	return t && strcmp(t, "tool_result") == 0 &&
	       !cJSON_GetObjectItem(ob, "results");
}

static const char *result_step_id(const cJSON *step, char *buf, size_t n)
{
	const cJSON *ob = cJSON_GetObjectItemCaseSensitive(step, "observation");
	const char *cid = kt_impx_str2(ob, "tool_call_id", "source_call_id");
	const char *msg = kt_json_str(step, "message");

	if (cid)
		return cid;
	if (msg && strncmp(msg, "Tool result for ", 16) == 0) {
		snprintf(buf, n, "%s", msg + 16);
		buf[strcspn(buf, " \n")] = 0;
		return buf;
	}
	return NULL;
}

/* ---- documents ---------------------------------------------------------------- */
static int import_doc(atx *x, const kt_file *f, const cJSON *doc,
		      const char *actor, int depth);

typedef struct findctx {
	atx *x;
	const char *sid;
	const char *self;
	size_t dirlen;
	char *found;
	int looked;
} findctx;

static int find_by_sid(const char *rel, void *arg)
{
	findctx *fc = arg;
	const kt_file *g;
	char pat[300];
	size_t n = strlen(rel);

	if (fc->found || n < 5 || strcmp(rel + n - 5, ".json") ||
	    strcmp(rel, fc->self) == 0 || strchr(rel + fc->dirlen, '/') ||
	    fc->looked++ >= 256)
		return 0;
	if (kt_imp_open(fc->x->imp, rel, &g))
		return 0;
	snprintf(pat, sizeof(pat), "\"%s\"", fc->sid);
	if (memmem(g->data, g->len, pat, strlen(pat)) &&
	    kt_impx_sniff(g->data, g->len, "session_id", fc->sid))
		fc->found = strdup(rel);
	return 0;
}

static int import_ref(atx *x, const kt_file *f, const cJSON *ref, int depth)
{
	const char *sid = kt_json_str(ref, "session_id");
	const char *path = kt_json_str(ref, "trajectory_path");
	const char *rel = f->rel ? f->rel : kt_basename(f->path);
	char *dir = dir_of(rel), *stem = stem_of(kt_basename(rel));
	char *cand = NULL, actor[300];
	const kt_file *g = NULL;
	cJSON *doc;
	int rc = 0;

	if (!dir || !stem) {
		rc = KT_ENOMEM;
		goto out;
	}
	if (path && *path && path[0] != '/' && !strstr(path, "..")) {
		size_t n = strlen(dir) + strlen(stem) + strlen(path) + 4;
		const char *tail = strncmp(path, "trajectory.", 11) == 0 ?
				   path + 11 : path;

		if (!(cand = malloc(n))) {
			rc = KT_ENOMEM;
			goto out;
		}
		snprintf(cand, n, "%s%s", dir, path);
		if (kt_imp_open(x->imp, cand, &g)) {
			snprintf(cand, n, "%s%s%s%s", dir, stem, *stem ? "." : "",
				 tail);
			if (kt_imp_open(x->imp, cand, &g))
				g = NULL;
		}
	}
	if (!g && sid && *sid && strlen(sid) < 250) {
		findctx fc = { x, sid, rel, strlen(dir), NULL, 0 };

		kt_imp_list(x->imp, dir, find_by_sid, &fc);
		if (fc.found) {
			free(cand);
			cand = fc.found;
			if (kt_imp_open(x->imp, cand, &g))
				g = NULL;
		}
	}
	if (!g) {
		kt_imp_warn(x->imp, f, 0,
			    "sub-agent trajectory %s (%s) not found beside the "
			    "file: its steps are missing", path ? path : "?",
			    sid ? sid : "?");
		goto out;
	}
	if (kt_strmap_get(&x->visited, cand))
		goto out; /* already in this run (a reference cycle) */
	if ((rc = kt_strmap_put(&x->visited, cand, (void *)1)))
		goto out;
	kt_imp_claim(x->imp, cand);
	if (!(doc = kt_cjson_parse((const char *)g->data, g->len, NULL,
				   &rc))) {
		if (rc != KT_ENOMEM) {
			rc = 0;
			kt_imp_json_bad(x->imp, g, 0, (const char *)g->data,
					g->len);
		}
		goto out;
	}
	if (kt_imp_json_strict(x->imp, g, 0, (const char *)g->data, g->len,
			       &doc))
		goto out;
	snprintf(actor, sizeof(actor), "agent:%s",
		 sid ? sid : kt_json_str(doc, "session_id") ?
		 kt_json_str(doc, "session_id") : kt_basename(cand));
	rc = import_doc(x, g, doc, actor, depth + 1);
	cJSON_Delete(doc);
out:
	free(cand);
	free(dir);
	free(stem);
	return rc;
}

static int emit_msg(atx *x, const kt_file *f, cJSON *m, const char *actor,
		    int64_t ts, const kt_impx_span *sp, uint64_t *seq)
{
	return kt_impx_emit_valid(x->imp, f == x->top ? NULL : f, KT_KIND_MESSAGE, 0,
			  ts, actor, m, sp->line, sp->off, sp->len, seq);
}

/* The images of content (a step's message, a result's content) as m's
 * "images"; m is freed on failure. */
static int add_images(atx *x, const kt_file *f, const char *dir,
		      const cJSON *content, cJSON *m)
{
	cJSON *imgs = NULL;
	int rc;

	if (!m)
		return KT_ENOMEM;
	rc = kt_atif_images(x->imp, f, dir, content, &imgs);
	if (rc)
		cJSON_Delete(m);
	else if (imgs)
		cJSON_AddItemToObject(m, "images", imgs);
	return rc;
}

/* A harness's prompt in the first user step: terminus-2 writes its
 * instructions and the task there ("You are an AI assistant tasked with
 * solving command-line tasks ... Task Description:"); no person typed it. */
static int harness_prompt(const char *text)
{
	return text && strstr(text, "Task Description:") &&
	       (strstr(text, "You are an AI assistant tasked with ") ||
		strstr(text, "\"keystrokes\""));
}

static int import_doc(atx *x, const kt_file *f, const cJSON *doc,
		      const char *actor, int depth)
{
	const cJSON *steps = cJSON_GetObjectItemCaseSensitive(doc, "steps");
	const cJSON *step, *ag = cJSON_GetObjectItemCaseSensitive(doc, "agent");
	const char *dmodel = kt_impx_str2(ag, "model_name", "model");
	int sub = depth > 0, handoff = 0, rc = 0, first_user = 1;
	uint64_t line = 0;
	kt_impx_span *spans = NULL, spv;
	size_t k2;
	long nspans = kt_impx_spans((const char *)f->data, f->len, "steps",
				  &spans);
	const kt_impx_span *sp = &spv;
	char *dir = NULL;

	if (depth > MAX_SUB_DEPTH) {
		kt_imp_warn(x->imp, f, 0, "sub-agent trajectories nested too "
			    "deep: ignored below level %d", MAX_SUB_DEPTH);
		return 0;
	}
	if (!cJSON_IsArray(steps)) {
		kt_imp_warn(x->imp, f, 0, "ATIF document without a steps array");
		return 0;
	}
	if (!(dir = dir_of(f->rel ? f->rel : ""))) {
		rc = KT_ENOMEM;
		goto done;
	}
	/* calls held anywhere in this document: results naming one of them
	 * wait for it */
	cJSON_ArrayForEach(step, steps) {
		const cJSON *tc, *tcs = cJSON_GetObjectItem(step, "tool_calls");

		cJSON_ArrayForEach(tc, tcs) {
			const char *id = kt_impx_str2(tc, "tool_call_id", "id");

			if (id && (rc = kt_strmap_put(&x->later, id, (void *)1)))
				goto done;
		}
	}
	cJSON_ArrayForEach(step, steps) {
		const char *src = kt_json_str(step, "source");
		const cJSON *tcs = cJSON_GetObjectItem(step, "tool_calls");
		const cJSON *ob = cJSON_GetObjectItem(step, "observation");
		const cJSON *results = cJSON_GetObjectItem(ob, "results");
		const cJSON *tc, *r;
		const cJSON *msgv = cJSON_GetObjectItem(step, "message");
		int64_t ts = kt_impx_ts_json(cJSON_GetObjectItem(step, "timestamp"));

		if (ts > x->last_ts)
			x->last_ts = ts;
		const char *model = kt_json_str(step, "model_name");
		const cJSON *copied = cJSON_GetObjectItem(step,
							  "is_copied_context");
		char *text = NULL;
		char **ids = NULL;
		size_t ncalls = 0, k, paired = 0, nres;
		uint64_t mseq = 0;
		cJSON *m, *carry = NULL;

		spv = kt_impx_span_at(spans, nspans, (long)line);
		line++;
		if (!cJSON_IsObject(step)) {
			kt_imp_warn(x->imp, f, 0, "step %llu is not an object",
				    (unsigned long long)line);
			continue;
		}
		if (!src)
			src = "agent";
		if (strcmp(src, "system") == 0 && is_result_step(step)) {
			char idb[256];
			const char *cid = result_step_id(step, idb, sizeof(idb));

			if (cid && kt_strmap_get(&x->later, cid) &&
			    !kt_impx_calls_get(&x->calls, cid)) {
				/* its call comes later: hold it */
				if ((rc = kt_strmap_put(&x->held, cid,
							(void *)step)))
					goto done;
				continue;
			}
			if ((rc = tool_result_step(x, f, step, sub ? actor :
						   "tool", sp)))
				goto done;
			continue;
		}
		text = step_text(step);
		if (strcmp(src, "user") == 0) {
			/* a person's words, unless this is a sub-agent's
			 * prompt, copied context, the hand-off text the
			 * harness writes after a summarization, or the
			 * harness's own prompt that opens the run */
			int hp = !sub && first_user &&
				 harness_prompt(text);
			int human = !sub && !handoff && !cJSON_IsTrue(copied) &&
				    !hp;
			/* ktraj's export says who typed it (extra.human) */
			const cJSON *xh = cJSON_GetObjectItem(
				cJSON_GetObjectItem(step, "extra"), "human");

			if (cJSON_IsBool(xh))
				human = !sub && cJSON_IsTrue(xh);

			if (!sub && first_user && text) {
				x->task_baseline = kt_bench_task_baseline(text);
				kt_imp_bench_hint(x->imp, NULL,
						  x->task_baseline);
				kt_imp_task(x->imp, text);
			}
			first_user = 0;
			m = kt_impx_msg("user", human, text,
				      human ? NULL : hp ? "meta,task_prompt" :
				      (handoff ? "meta,handoff" : "meta"));
			handoff = 0;
			rc = add_images(x, f, dir, msgv, m);
			if (!rc)
				rc = emit_msg(x, f, m, human ? "human" :
					      (sub ? actor : "system"), ts, sp,
					      &mseq);
		} else if (strcmp(src, "system") == 0) {
			m = kt_impx_msg("system", 0, text, "meta");
			rc = add_images(x, f, dir, msgv, m);
			if (!rc)
				rc = emit_msg(x, f, m, sub ? actor : "system", ts,
					      sp, &mseq);
		} else {
			const char *rs = kt_json_str(step, "reasoning_content");
			cJSON *cost = NULL, *u;

			if (rs && *rs) {
				m = kt_impx_msg("assistant", 0, rs, "thinking");
				if (m && (model || dmodel))
					cJSON_AddStringToObject(m, "model",
								model ? model :
								dmodel);
				if ((rc = emit_msg(x, f, m, actor, ts, sp,
						   NULL)))
					goto next;
			}
			m = kt_impx_msg("assistant", 0, text,
				      cJSON_IsTrue(copied) ? "meta" : NULL);
			if (!m) {
				rc = KT_ENOMEM;
				goto next;
			}
			if (model || dmodel)
				cJSON_AddStringToObject(m, "model",
							model ? model : dmodel);
			u = usage_of(cJSON_GetObjectItem(step, "metrics"), &cost);
			if (u)
				cJSON_AddItemToObject(m, "usage", u);
			{
				cJSON *ex = kt_impx_extra(step, STEP_KNOWN);

				if (!ex)
					ex = cJSON_CreateObject();
				if (ex && cost)
					cJSON_AddItemToObject(ex, "cost_usd",
							      cost);
				else
					cJSON_Delete(cost);
				rc = ex ? kt_atif_tokens(x->imp,
					cJSON_GetObjectItem(step, "metrics"),
					ex) : KT_ENOMEM;
				if (ex && ex->child)
					cJSON_AddItemToObject(m, "extra", ex);
				else
					cJSON_Delete(ex);
				if (rc) {
					cJSON_Delete(m);
					goto next;
				}
			}
			if (sub)
				cJSON_AddStringToObject(m, "subagent", actor + 6);
			if ((!text || !*text) && !cJSON_IsArray(msgv) &&
			    cJSON_GetArraySize(tcs) > 0) {
				/* a turn of tool calls only (ATIF requires a
				 * message, so "" stands for none): no empty
				 * message, its usage and extra go on its first
				 * call, as a Claude Code import keeps them */
				carry = m;
			} else {
				rc = add_images(x, f, dir, msgv, m);
				if (!rc)
					rc = emit_msg(x, f, m, actor, ts, sp,
						      &mseq);
			}
		}
		if (rc)
			goto next;
		/* tool calls */
		ncalls = (size_t)cJSON_GetArraySize(tcs);
		if (ncalls && !(ids = calloc(ncalls, sizeof(*ids)))) {
			rc = KT_ENOMEM;
			goto next;
		}
		k = 0;
		cJSON_ArrayForEach(tc, tcs) {
			const char *id = kt_impx_str2(tc, "tool_call_id", "id");
			const char *fn = kt_impx_str2(tc, "function_name", "name");
			const cJSON *a = cJSON_GetObjectItem(tc, "arguments");
			cJSON *pl = cJSON_CreateObject(), *args = kt_impx_args(a);
			cJSON *kept;
			uint64_t cseq = 0;
			char idb[64];
			const cJSON *held;

			if (!pl || !args) {
				cJSON_Delete(pl);
				cJSON_Delete(args);
				rc = KT_ENOMEM;
				goto next;
			}
			if (!id || kt_impx_calls_get(&x->calls, id)) {
				snprintf(idb, sizeof(idb), "%s#%llu.%zu",
					 id ? id : "call",
					 (unsigned long long)line, k);
				id = idb;
			}
			if (!fn)
				fn = "unknown";
			cJSON_AddStringToObject(pl, "tool", fn);
			cJSON_AddStringToObject(pl, "call_id", id);
			cJSON_AddItemToObject(pl, "args", args);
			if (sub)
				cJSON_AddStringToObject(pl, "subagent",
							actor + 6);
			if (carry) {
				cJSON *it;

				if ((it = cJSON_DetachItemFromObjectCaseSensitive(
					     carry, "usage")))
					cJSON_AddItemToObject(pl, "usage", it);
				if ((it = cJSON_DetachItemFromObjectCaseSensitive(
					     carry, "extra")))
					cJSON_AddItemToObject(pl, "extra", it);
				cJSON_Delete(carry);
				carry = NULL;
			}
			kept = cJSON_Duplicate(args, 1);
			if ((rc = kt_impx_emit_valid(x->imp, f == x->top ? NULL : f,
					     KT_KIND_TOOL_CALL, mseq, ts, actor,
					     pl, sp->line, sp->off, sp->len,
					     &cseq))) {
				cJSON_Delete(kept);
				goto next;
			}
			if (!kt_impx_calls_put(&x->calls, id, cseq, fn, kept,
					       NULL)) {
				rc = KT_ENOMEM;
				goto next;
			}
			/* the map owns a copy of the key: point at it */
			if (!(ids[k++] = strdup(id))) {
				rc = KT_ENOMEM;
				goto next;
			}
			held = kt_strmap_get(&x->held, id);
			if (held) {
				kt_strmap_put(&x->held, id, NULL);
				if ((rc = tool_result_step(x, f, held, sub ?
							   actor : "tool",
							   sp)))
					goto next;
			}
		}
		/* results on this step */
		nres = (size_t)cJSON_GetArraySize(results);
		k = 0;
		cJSON_ArrayForEach(r, results) {
			const char *scid = kt_json_str(r, "source_call_id");
			const cJSON *refs = cJSON_GetObjectItem(r,
						"subagent_trajectory_ref");
			const char *content = kt_json_str(r, "content");
			char *ctext = NULL;
			const cJSON *ref;

			if (!content && cJSON_GetObjectItem(r, "content")) {
				ctext = kt_impx_content_text(
					cJSON_GetObjectItem(r, "content"));
				content = ctext;
			}
			if (cJSON_IsArray(refs)) {
				cJSON_ArrayForEach(ref, refs)
					if ((rc = import_ref(x, f, ref, depth)))
						break;
				handoff = 1;
			}
			if (!rc && (content || scid)) {
				const char *cid = scid;
				size_t sl = scid ? strlen(scid) : 0;

				/* an id an earlier step used too (a replayed
				 * SWE-agent demonstration reuses one): the
				 * call of this step it was renamed to, still
				 * without a result */
				for (size_t q = 0; scid && q < ncalls; q++) {
					const kt_impx_call_rec *ac;

					if (strncmp(ids[q], scid, sl) ||
					    ids[q][sl] != '#')
						continue;
					ac = kt_impx_calls_get(&x->calls, ids[q]);
					if (ac && !ac->answered) {
						cid = ids[q];
						break;
					}
				}
				if (!cid) {
					/* one result goes with the last call,
					 * several with the calls still without
					 * one, in order */
					size_t q;

					if (nres == 1 && ncalls > 0)
						cid = ids[ncalls - 1];
					for (q = 0; !cid && q < ncalls; q++) {
						const kt_impx_call_rec *ac =
							kt_impx_calls_get(
								&x->calls,
								ids[q]);

						if (ac && !ac->answered)
							cid = ids[q];
					}
					paired++;
				}
				const cJSON *rcont = cJSON_GetObjectItem(r,
								"content");
				cJSON *imgs = NULL;

				rc = kt_atif_images(x->imp, f, dir, rcont, &imgs);
				/* a failure ktraj's export marked (ATIF has
				 * no field for it): a failed edit changes
				 * nothing */
				if (!rc && cid)
					rc = emit_result(x, f, cid, content,
							 cJSON_IsTrue(cJSON_GetObjectItem(
							 cJSON_GetObjectItem(r, "extra"),
							 "is_error")) ? 0 : -1,
							 NULL, imgs, ts, sub ?
							 actor : "tool", sp);
				else if (!rc) {
					m = kt_impx_msg("user", 0, content,
						      "meta,observation");
					if (m && imgs)
						cJSON_AddItemToObject(m, "images",
								      imgs);
					else
						cJSON_Delete(imgs);
					rc = emit_msg(x, f, m, sub ? actor :
						      "system", ts, sp, NULL);
				}
			}
			free(ctext);
			k++;
			if (rc)
				break;
		}
		/* a call that got no result changes nothing, as in the
		 * import of an sts or otlp file (kt_impx_result_fx): a
		 * missing result is a call that was rejected, cancelled or
		 * cut off (a Codex approval refused, a turn aborted), and
		 * assuming its effects wrote edits the run never made */
next:
		cJSON_Delete(carry);
		for (k = 0; ids && k < ncalls; k++)
			free(ids[k]);
		free(ids);
		free(text);
		if (rc)
			goto done;
	}
	/* results whose call never came: keep them, unattached */
	for (k2 = 0; k2 < x->held.cap; k2++) {
		const cJSON *hs = x->held.vals[k2];
		kt_impx_span z = { 0, 0, 0 };

		if (!x->held.keys[k2] || !hs)
			continue;
		x->held.vals[k2] = NULL;
		if ((rc = tool_result_step(x, f, hs, sub ? actor : "tool", &z)))
			break;
	}
done:
	free(dir);
	free(spans);
	return rc;
}

/* ---- the file ---------------------------------------------------------------- */
typedef struct refctx {
	atx *x;
	const char *self;
	const char *sid;
	const char *base;
	size_t dirlen;
	int referenced, looked;
	char *by;          /* rel of the referring file */
} refctx;

/* Siblings opened at most per lookup: keeps a folder of many trajectories
 * from costing n^2 file reads. */
#define MAX_SIBLINGS 256

/* Whether f may be someone's sub-trajectory: Harbor names main files
 * "trajectory.json" / "*.trajectory.json" and marks sub-agents with
 * agent.extra.parent_session_id or copied-context steps. */
static int maybe_sub(const cJSON *doc, const char *base)
{
	const cJSON *ex = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "agent"),
					      "extra");
	const cJSON *st;
	size_t n = strlen(base);

	if (cJSON_GetObjectItem(ex, "parent_session_id"))
		return 1;
	if (!(n >= 15 && strcmp(base + n - 15, "trajectory.json") == 0))
		return 1;
	cJSON_ArrayForEach(st, cJSON_GetObjectItem(doc, "steps"))
		if (cJSON_IsTrue(cJSON_GetObjectItem(st, "is_copied_context")))
			return 1;
	return 0;
}

/* Does a sibling trajectory reference this file as a sub-agent? */
static int find_referrer(const char *rel, void *arg)
{
	refctx *rc = arg;
	const kt_file *g;
	char pat[300];
	size_t n = strlen(rel);

	if (rc->referenced || n < 5 || strcmp(rel + n - 5, ".json") ||
	    strcmp(rel, rc->self) == 0 || strchr(rel + rc->dirlen, '/') ||
	    rc->looked++ >= MAX_SIBLINGS)
		return 0;
	if (kt_imp_open(rc->x->imp, rel, &g))
		return 0;
	if (!memmem(g->data, g->len, "subagent_trajectory_ref", 23))
		return 0;
	snprintf(pat, sizeof(pat), "\"%s\"", rc->sid);
	if (memmem(g->data, g->len, pat, strlen(pat)))
		rc->referenced = 1, rc->by = strdup(rel);
	return 0;
}

typedef struct sidectx {
	atx *x;
	const char *want1, *want2;
	char *found;
} sidectx;

static int find_sidecar(const char *rel, void *arg)
{
	sidectx *s = arg;

	if (!s->found && (strcmp(rel, s->want1) == 0 ||
			  strcmp(rel, s->want2) == 0))
		s->found = strdup(rel);
	return 0;
}

/*
 * The verifier's verdict beside a Harbor/KernelBench trajectory:
 * "reward.json" (kb_verifier.py writes {reward, correct,
 * speedup_vs_compile, speedup_vs_eager, max_err, static_ok, compile_ok,
 * suspicious, error}) in the trajectory's folder or its "verifier/"
 * folder.  It becomes the run's last event, a bench with graded true and
 * source "reward.json": the figures kt_bench_parse_hint reads from it
 * (the speedup the task names chosen, the others kept as alternatives,
 * "suspicious" kept in flags), correct as the verifier says (null when it
 * has no "correct"), time_ms null when it gives no figure (a kernel that
 * failed its checks), the source_hash of the code the trajectory left
 * (kt_ws_code_hash), which is what the verifier ran on, and the workload
 * and scenario of the agent's last result of the same metric and baseline
 * (kt_imp_bench_key), so it joins that series.
 */
static int reward_sidecar(atx *x, const char *dir)
{
	size_t n = strlen(dir) + 24;
	char *w1 = malloc(n), *w2 = malloc(n);
	sidectx s = { x, NULL, NULL, NULL };
	const kt_file *g;
	cJSON *j = NULL, *res = NULL, *b = NULL, *e;
	kt_bench_hint h = { NULL, x->task_baseline };
	int rc = 0;

	if (!w1 || !w2) {
		rc = KT_ENOMEM;
		goto out;
	}
	snprintf(w1, n, "%sreward.json", dir);
	snprintf(w2, n, "%sverifier/reward.json", dir);
	s.want1 = w1;
	s.want2 = w2;
	kt_imp_list(x->imp, dir, find_sidecar, &s);
	if (!s.found || kt_imp_open(x->imp, s.found, &g))
		goto out;
	if (!(j = kt_json_parse((const char *)g->data, g->len,
				KT_JSON_BOM | KT_JSON_NONUL, &rc)) ||
	    !cJSON_IsObject(j) || cJSON_GetObjectItem(j, "steps")) {
		/* not a reward file: none; out of memory: the import fails */
		if (rc != KT_ENOMEM)
			rc = 0;
		goto out;
	}
	kt_imp_claim(x->imp, s.found);
	if ((rc = kt_bench_parse_hint((const char *)g->data, g->len, &h, &res)))
		goto out;
	b = cJSON_DetachItemFromArray(res, 0);
	if (!b && !(b = cJSON_CreateObject())) {
		rc = KT_ENOMEM;
		goto out;
	}
	if (!cJSON_GetObjectItem(b, "time_ms"))
		cJSON_AddNullToObject(b, "time_ms");
	cJSON_DeleteItemFromObject(b, "correct");
	e = cJSON_GetObjectItem(j, "correct");
	if (cJSON_IsBool(e))
		cJSON_AddBoolToObject(b, "correct", cJSON_IsTrue(e));
	else
		cJSON_AddNullToObject(b, "correct");
	cJSON_DeleteItemFromObject(b, "graded");
	cJSON_AddBoolToObject(b, "graded", 1);
	cJSON_DeleteItemFromObject(b, "pattern");
	cJSON_AddStringToObject(b, "source", "reward.json");
	/* the agent's own run of the verifier measured the same kernel and
	 * metric: one series, so the grade reads as the last attempt of it */
	if ((rc = kt_imp_bench_key(x->imp, b)) < 0)
		goto out;
	rc = 0;
	/* the verifier graded the code the trajectory ended with */
	{
		char code[KT_HASH_HEX + 1];

		if ((rc = kt_ws_code_hash(x->imp, code)) < 0)
			goto out;
		if (rc)
			cJSON_AddStringToObject(b, "source_hash", code);
		rc = 0;
	}
	e = cJSON_GetObjectItem(j, "error");
	if (cJSON_IsString(e) && *e->valuestring)
		cJSON_AddStringToObject(b, "status", "error");
	rc = kt_impx_emit_valid(x->imp, g, KT_KIND_BENCH, 0, x->last_ts, "system", b,
			0, 0, 0, NULL);
	b = NULL;
out:
	cJSON_Delete(b);
	cJSON_Delete(res);
	cJSON_Delete(j);
	free(s.found);
	free(w1);
	free(w2);
	return rc;
}

/*
 * Import the trajectory `doc` of file mf as one run.  top is the file the
 * driver asked for (mf, or a sub-trajectory of mf met before it).  doc is
 * consumed.
 */
static int import_main(kt_imp *imp, const kt_file *top, const kt_file *mf,
		       cJSON *doc)
{
	atx x;
	cJSON *meta = NULL;
	const char *sid, *rel = mf->rel ? mf->rel : kt_basename(mf->path);
	const cJSON *ag;
	char *ident = NULL, *name = NULL, *dir = NULL, *stem = NULL;
	int rc = 0;

	memset(&x, 0, sizeof(x));
	x.imp = imp;
	x.top = top;
	x.cwd = kt_json_str(cJSON_GetObjectItem(doc, "extra"), "ktraj_cwd");
	sid = kt_json_str(doc, "session_id");
	dir = dir_of(rel);
	stem = stem_of(kt_basename(rel));
	if (!dir || !stem) {
		rc = KT_ENOMEM;
		goto out;
	}
	{
		size_t n = (sid ? strlen(sid) : 0) + strlen(rel) + 32;

		if (!(ident = malloc(n))) {
			rc = KT_ENOMEM;
			goto out;
		}
		/* goldens share placeholder ids: add the file name */
		if (!placeholder_id(sid))
			snprintf(ident, n, "atif:%s", sid);
		else
			snprintf(ident, n, "atif:%s:%s", sid ? sid : "",
				 kt_basename(rel));
	}
	name = strdup(*stem ? stem : (sid ? sid : "trajectory"));
	if (!name || !(meta = cJSON_CreateObject())) {
		rc = KT_ENOMEM;
		goto out;
	}
	cJSON_AddStringToObject(meta, "source", rel);
	if (kt_json_str(doc, "schema_version"))
		cJSON_AddStringToObject(meta, "schema_version",
					kt_json_str(doc, "schema_version"));
	if (sid)
		cJSON_AddStringToObject(meta, "session_id", sid);
	ag = cJSON_GetObjectItem(doc, "agent");
	if (cJSON_IsObject(ag)) {
		cJSON *a = cJSON_Duplicate(ag, 1);

		/* tool definitions are long and say nothing about the run */
		cJSON_DeleteItemFromObject(a, "tool_definitions");
		cJSON_AddItemToObject(meta, "agent", a);
		if (kt_impx_str2(ag, "model_name", "model"))
			cJSON_AddStringToObject(meta, "model",
						kt_impx_str2(ag, "model_name",
							   "model"));
	}
	if (cJSON_GetObjectItem(doc, "final_metrics"))
		cJSON_AddItemToObject(meta, "final_metrics",
			cJSON_Duplicate(cJSON_GetObjectItem(doc,
							    "final_metrics"), 1));
	if (cJSON_GetObjectItem(doc, "notes"))
		cJSON_AddItemToObject(meta, "notes",
			cJSON_Duplicate(cJSON_GetObjectItem(doc, "notes"), 1));
	if (cJSON_GetObjectItem(doc, "extra"))
		cJSON_AddItemToObject(meta, "extra",
			cJSON_Duplicate(cJSON_GetObjectItem(doc, "extra"), 1));
	{
		/* what else the document says (v1.6's continued_trajectory_ref,
		 * members of later versions) is kept as it was: only steps
		 * become events.  Not under the names of what the import
		 * itself records (FORMAT.md §11, Provenance; the redaction
		 * flag): a document must not forge where the run came from. */
		static const char *const ours[] = {
			"steps", "agent", "identity", "sources", "source",
			"redacted", NULL
		};
		const cJSON *it;

		cJSON_ArrayForEach(it, doc) {
			size_t k = 0;

			while (it->string && ours[k] && strcmp(it->string, ours[k]))
				k++;
			if (it->string && !ours[k] &&
			    !cJSON_GetObjectItemCaseSensitive(meta, it->string))
				cJSON_AddItemToObject(meta, it->string,
						      cJSON_Duplicate(it, 1));
		}
	}
	{
		/* sidecar metrics: "<stem>.metrics.json" or "metrics.json" */
		size_t n = strlen(dir) + strlen(stem) + 20;
		char *w1 = malloc(n), *w2 = malloc(n);
		sidectx s = { &x, NULL, NULL, NULL };
		const kt_file *g;
		cJSON *mj;
		int prc = 0;

		if (w1 && w2) {
			snprintf(w1, n, "%s%s%smetrics.json", dir, stem,
				 *stem ? "." : "");
			snprintf(w2, n, "%smetrics.json", dir);
			s.want1 = w1;
			s.want2 = w2;
			kt_imp_list(imp, dir, find_sidecar, &s);
			if (s.found && !kt_imp_open(imp, s.found, &g) &&
			    (mj = kt_json_parse((const char *)g->data, g->len,
						KT_JSON_BOM | KT_JSON_NONUL,
						&prc))) {
				if (cJSON_IsObject(mj) &&
				    !cJSON_GetObjectItem(mj, "steps")) {
					cJSON_AddItemToObject(meta,
							      "sidecar_metrics",
							      mj);
					kt_imp_claim(imp, s.found);
				} else {
					cJSON_Delete(mj);
				}
			}
		}
		free(s.found);
		free(w1);
		free(w2);
		if (prc == KT_ENOMEM)
			kt_imp_fail(imp, prc);
	}
	if ((rc = kt_imp_run_begin(imp, ident, name, "atif", meta)))
		goto out;
	meta = NULL;
	if ((rc = kt_strmap_put(&x.visited, rel, (void *)1)) == 0)
		rc = import_doc(&x, mf, doc, "agent", 0);
	if (!rc)
		rc = reward_sidecar(&x, dir);
	kt_imp_bench_hint(imp, NULL, NULL);
	rc = kt_imp_run_finish(imp, rc);
out:
	cJSON_Delete(meta);
	cJSON_Delete(doc);
	kt_impx_calls_free(&x.calls);
	kt_strmap_free(&x.held, NULL);
	kt_strmap_free(&x.visited, NULL);
	kt_strmap_free(&x.later, NULL);
	free(ident);
	free(name);
	free(dir);
	free(stem);
	return rc;
}


static cJSON *parse_doc(kt_imp *imp, const kt_file *f, int quiet)
{
	int rc;
	cJSON *doc = kt_cjson_parse((const char *)f->data, f->len, NULL, &rc);

	if (!doc && rc == KT_ENOMEM) {
		kt_imp_fail(imp, rc);
		return NULL;
	}
	if (!doc) {
		if (!quiet)
			kt_imp_json_bad(imp, f, 0, (const char *)f->data,
					f->len);
		return NULL;
	}
	if (quiet ? kt_json_check((const char *)f->data, f->len,
				  KT_JSON_BOM | KT_JSON_NONUL, NULL, NULL) != 0 :
		    kt_imp_json_strict(imp, f, 0, (const char *)f->data,
				       f->len, &doc)) {
		if (quiet)
			cJSON_Delete(doc);
		return NULL;
	}
	if (!cJSON_IsObject(doc) ||
	    !cJSON_IsArray(cJSON_GetObjectItem(doc, "steps"))) {
		if (!quiet)
			kt_imp_warn(imp, f, 0,
				    "not an ATIF trajectory (no steps array)");
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}

static int atif_import(kt_imp *imp, const kt_file *f)
{
	const char *rel = f->rel ? f->rel : kt_basename(f->path);
	const char *sid;
	cJSON *doc = parse_doc(imp, f, 0), *pdoc;
	char *dir;
	atx x;

	if (!doc)
		return KT_EPARSE;
	sid = kt_json_str(doc, "session_id");
	memset(&x, 0, sizeof(x));
	x.imp = imp;
	/*
	 * A sub-trajectory whose parent lies beside it belongs to the parent's
	 * run (unless the user named this very file): met first, it imports
	 * the parent now and claims it, so the order of files in a folder or
	 * archive does not matter (archive members cannot be read again).
	 */
	if (sid && !placeholder_id(sid) && strlen(sid) < 250 &&
	    !(f->root && f->path && strcmp(f->root, f->path) == 0) &&
	    maybe_sub(doc, kt_basename(rel)) && (dir = dir_of(rel))) {
		refctx r = { &x, rel, sid, kt_basename(rel), strlen(dir), 0, 0,
			     NULL };
		const kt_file *pf;

		kt_imp_list(imp, dir, find_referrer, &r);
		free(dir);
		if (r.by && !kt_imp_open(imp, r.by, &pf) &&
		    (pdoc = parse_doc(imp, pf, 1))) {
			kt_imp_claim(imp, r.by);
			free(r.by);
			cJSON_Delete(doc);
			return import_main(imp, f, pf, pdoc);
		}
		free(r.by);
	}
	return import_main(imp, f, f, doc);
}

const kt_importer kt_importer_atif = {
	.name = "atif",
	.summary = "ATIF trajectory.json (Harbor/Terminal-Bench, v1.0-1.7 and "
		   "non-conforming variants)",
	.detect = atif_detect,
	.import = atif_import,
	.flags = KT_IMPF_HARNESS_PROMPTS,
};
