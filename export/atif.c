/*
 * atif.c - a run as an ATIF trajectory (Agent Trajectory Interchange
 * Format, Harbor RFC 0001 "docs/rfcs/0001-trajectory-format.md", version
 * ATIF-v1.5, the newest documented one; see shared/research/formats.md §3).
 *
 * Mapping (lossless for messages and tool calls, which ATIF models):
 *   message user/system      -> step source "user" / "system"
 *   message assistant        -> step source "agent" (thinking text goes to
 *                               reasoning_content)
 *   tool_call                -> tool_calls[] of the current agent step (a new
 *                               agent step with an empty message when the
 *                               last step is not an agent step)
 *   tool_result              -> observation.results[] of the step holding
 *                               the call, linked by source_call_id
 *   every other kind         -> extra.ktraj_events[] of the current step
 * Each step's extra.ktraj_seq lists the ktraj seqs it was built from.
 * A message or result with "images" becomes a list of ContentPart (ATIF
 * v1.6, Harbor's models/trajectories/content.py): its text, then one
 * {type: "image", source: {media_type, path}} per image, path a base64
 * data: URL of the stored blob (one self-contained document; ImageSource
 * takes "a relative or absolute file path, or a URL"), or the path the
 * import kept when there was no content.  The document is then v1.6.
 * A message's extra.tokens (or the blob extra.tokens_blob names) gives the
 * step's metrics prompt_token_ids, completion_token_ids and logprobs back,
 * extra.metrics_extra its metrics.extra (import/imp_atif_media.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "export.h"
#include "../import/import.h"

#define ATIF_VERSION "ATIF-v1.5"
#define ATIF_VERSION_MEDIA "ATIF-v1.6" /* image content parts */

struct atif {
	kt_store *s;       /* blobs of images and token ids */
	int media;         /* an image part was written */
	cJSON *steps;      /* array */
	size_t nsteps;     /* items in steps: cJSON counts by walking the list */
	cJSON *cur;        /* last step (borrowed from steps) */
	/* call_id -> the step holding the call (borrowed from steps).  A map,
	 * not a cJSON object: cJSON finds a key by walking every key, which
	 * made a run of N tool calls cost O(N^2). */
	kt_strmap calls;
	char model[256];
	double prompt_tokens, completion_tokens, cached_tokens;
	int err;
};

static cJSON *new_step(struct atif *a, const char *source, int64_t ts)
{
	cJSON *st = cJSON_CreateObject();
	char iso[40];

	if (!st) {
		a->err = KT_ENOMEM;
		return NULL;
	}
	cJSON_AddNumberToObject(st, "step_id", (double)(a->nsteps + 1));
	kt_export_ts_iso(ts, iso, sizeof(iso));
	if (*iso)
		cJSON_AddStringToObject(st, "timestamp", iso);
	cJSON_AddStringToObject(st, "source", source);
	cJSON_AddStringToObject(st, "message", "");
	cJSON_AddItemToObject(st, "extra", cJSON_CreateObject());
	cJSON_AddItemToArray(a->steps, st);
	a->nsteps++;
	a->cur = st;
	return st;
}

static void add_seq(cJSON *st, uint64_t seq)
{
	cJSON *extra = cJSON_GetObjectItem(st, "extra");
	cJSON *seqs = cJSON_GetObjectItem(extra, "ktraj_seq");

	if (!seqs)
		seqs = cJSON_AddArrayToObject(extra, "ktraj_seq");
	cJSON_AddItemToArray(seqs, cJSON_CreateNumber((double)seq));
}

static void add_usage(struct atif *a, cJSON *st, const cJSON *usage)
{
	const cJSON *in = cJSON_GetObjectItem(usage, "input");
	const cJSON *out = cJSON_GetObjectItem(usage, "output");
	const cJSON *cr = cJSON_GetObjectItem(usage, "cache_read");
	cJSON *m;

	if (!cJSON_IsNumber(in) && !cJSON_IsNumber(out))
		return;
	m = cJSON_AddObjectToObject(st, "metrics");
	if (!m)
		return;
	cJSON_AddNumberToObject(m, "prompt_tokens", cJSON_IsNumber(in) ? in->valuedouble : 0);
	cJSON_AddNumberToObject(m, "completion_tokens", cJSON_IsNumber(out) ? out->valuedouble : 0);
	if (cJSON_IsNumber(cr))
		cJSON_AddNumberToObject(m, "cached_tokens", cr->valuedouble);
	a->prompt_tokens += cJSON_IsNumber(in) ? in->valuedouble : 0;
	a->completion_tokens += cJSON_IsNumber(out) ? out->valuedouble : 0;
	a->cached_tokens += cJSON_IsNumber(cr) ? cr->valuedouble : 0;
}

/* ImageSource.media_type is one of these four: sniffed from the bytes
 * when the import did not say */
static const char *image_type(const unsigned char *d, size_t n)
{
	if (n >= 8 && !memcmp(d, "\x89PNG", 4))
		return "image/png";
	if (n >= 3 && d[0] == 0xff && d[1] == 0xd8)
		return "image/jpeg";
	if (n >= 6 && !memcmp(d, "GIF8", 4))
		return "image/gif";
	if (n >= 12 && !memcmp(d, "RIFF", 4) && !memcmp(d + 8, "WEBP", 4))
		return "image/webp";
	return "image/png";
}

/* One ImageSource of a ktraj image {blob?, media_type?, path?}, or NULL
 * (nothing to point at, or the blob unreadable: a->err). */
static cJSON *image_source(struct atif *a, const cJSON *img)
{
	const char *hex = kt_json_str(img, "blob"), *mt = kt_json_str(img, "media_type");
	const char *path = kt_json_str(img, "path");
	unsigned char h[KT_HASH_LEN];
	void *data = NULL;
	size_t len = 0;
	char *b64, *url;
	cJSON *src;
	int rc;

	if (!hex || kt_unhex(hex, h, KT_HASH_LEN)) {
		if (!path)
			return NULL;
		src = cJSON_CreateObject();
		cJSON_AddStringToObject(src, "media_type", mt ? mt : "image/png");
		cJSON_AddStringToObject(src, "path", path);
		return src;
	}
	if ((rc = kt_blob_get(a->s, h, &data, &len))) {
		a->err = rc;
		return NULL;
	}
	if (!mt)
		mt = image_type(data, len);
	b64 = kt_base64_encode(data, len);
	free(data);
	url = b64 ? malloc(strlen(mt) + strlen(b64) + 16) : NULL;
	src = url ? cJSON_CreateObject() : NULL;
	if (!src) {
		free(b64);
		free(url);
		a->err = KT_ENOMEM;
		return NULL;
	}
	sprintf(url, "data:%s;base64,%s", mt, b64);
	free(b64);
	cJSON_AddStringToObject(src, "media_type", mt);
	cJSON_AddStringToObject(src, "path", url);
	free(url);
	return src;
}

/* text, or with p's images a ContentPart list of the text and the images */
static cJSON *content_of(struct atif *a, const char *text, const cJSON *p)
{
	const cJSON *imgs = cJSON_GetObjectItem(p, "images"), *img;
	cJSON *parts, *part, *src;

	if (!cJSON_GetArraySize(imgs))
		return cJSON_CreateString(text ? text : "");
	parts = cJSON_CreateArray();
	if (!parts)
		return NULL;
	if (text && *text) {
		part = cJSON_CreateObject();
		cJSON_AddStringToObject(part, "type", "text");
		cJSON_AddStringToObject(part, "text", text);
		cJSON_AddItemToArray(parts, part);
	}
	cJSON_ArrayForEach(img, imgs) {
		if (!(src = image_source(a, img)))
			continue;
		part = cJSON_CreateObject();
		cJSON_AddStringToObject(part, "type", "image");
		cJSON_AddItemToObject(part, "source", src);
		cJSON_AddItemToArray(parts, part);
		a->media = 1;
	}
	return parts;
}

/* The step's metrics token ids, logprobs and extra from the message's
 * extra (tokens, tokens_blob, metrics_extra). */
static void add_tokens(struct atif *a, cJSON *st, const cJSON *p)
{
	const cJSON *ex = cJSON_GetObjectItem(p, "extra");
	const cJSON *tok = cJSON_GetObjectItem(ex, "tokens");
	const cJSON *mx = cJSON_GetObjectItem(ex, "metrics_extra");
	const char *hex = kt_json_str(ex, "tokens_blob");
	cJSON *held = NULL, *m, *it;
	unsigned char h[KT_HASH_LEN];
	void *data = NULL;
	size_t len = 0;
	int rc;

	if (hex && !kt_unhex(hex, h, KT_HASH_LEN)) {
		if ((rc = kt_blob_get(a->s, h, &data, &len))) {
			a->err = rc;
			return;
		}
		tok = held = cJSON_ParseWithLength(data, len);
		free(data);
	}
	if (!cJSON_IsObject(tok) && !mx) {
		cJSON_Delete(held);
		return;
	}
	m = cJSON_GetObjectItem(st, "metrics");
	if (!m)
		m = cJSON_AddObjectToObject(st, "metrics");
	if (!m) {
		cJSON_Delete(held);
		a->err = KT_ENOMEM;
		return;
	}
	cJSON_ArrayForEach(it, tok)
		if (it->string && !cJSON_GetObjectItem(m, it->string))
			cJSON_AddItemToObject(m, it->string, cJSON_Duplicate(it, 1));
	if (mx && !cJSON_GetObjectItem(m, "extra"))
		cJSON_AddItemToObject(m, "extra", cJSON_Duplicate(mx, 1));
	cJSON_Delete(held);
}

static void on_message(struct atif *a, const kt_event *ev, cJSON *p)
{
	const char *role = kt_json_str(p, "role"), *text = kt_json_str(p, "text");
	const char *model = kt_json_str(p, "model");
	const cJSON *flags = cJSON_GetObjectItem(p, "flags");
	const cJSON *f;
	int thinking = 0;
	cJSON *st;

	cJSON_ArrayForEach(f, flags)
		if (cJSON_IsString(f) && !strcmp(f->valuestring, "thinking"))
			thinking = 1;
	if (role && !strcmp(role, "assistant")) {
		/* Thinking blocks of one response belong to the agent step
		 * that follows; a step opened for them is reused. */
		if (a->cur && !strcmp(kt_json_str(a->cur, "source"), "agent") &&
		    !*kt_json_str(a->cur, "message") &&
		    !cJSON_GetObjectItem(a->cur, "tool_calls"))
			st = a->cur;
		else
			st = new_step(a, "agent", ev->ts_ns);
		if (!st)
			return;
		if (thinking) {
			cJSON_DeleteItemFromObject(st, "reasoning_content");
			cJSON_AddStringToObject(st, "reasoning_content", text ? text : "");
		} else {
			cJSON_ReplaceItemInObject(st, "message",
						  content_of(a, text, p));
		}
		if (model && !cJSON_GetObjectItem(st, "model_name")) {
			cJSON_AddStringToObject(st, "model_name", model);
			if (!a->model[0])
				snprintf(a->model, sizeof(a->model), "%s", model);
		}
		add_usage(a, st, cJSON_GetObjectItem(p, "usage"));
		add_tokens(a, st, p);
	} else {
		st = new_step(a, role && !strcmp(role, "system") ? "system" : "user",
			      ev->ts_ns);
		if (!st)
			return;
		cJSON_ReplaceItemInObject(st, "message", content_of(a, text, p));
		cJSON_AddBoolToObject(cJSON_GetObjectItem(st, "extra"), "human",
				      cJSON_IsTrue(cJSON_GetObjectItem(p, "human")));
	}
	add_seq(st, ev->seq);
}

static void on_tool_call(struct atif *a, const kt_event *ev, cJSON *p)
{
	const char *id = kt_json_str(p, "call_id"), *tool = kt_json_str(p, "tool");
	char idbuf[32];
	cJSON *st = a->cur, *calls, *c, *args;

	if (!st || strcmp(kt_json_str(st, "source"), "agent") ||
	    cJSON_GetObjectItem(st, "observation"))
		st = new_step(a, "agent", ev->ts_ns);
	if (!st)
		return;
	if (!id) {
		snprintf(idbuf, sizeof(idbuf), "ktraj-%llu", (unsigned long long)ev->seq);
		id = idbuf;
	}
	calls = cJSON_GetObjectItem(st, "tool_calls");
	if (!calls)
		calls = cJSON_AddArrayToObject(st, "tool_calls");
	c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "tool_call_id", id);
	cJSON_AddStringToObject(c, "function_name", tool ? tool : "unknown");
	args = cJSON_DetachItemFromObject(p, "args");
	if (!cJSON_IsObject(args)) {
		/* ATIF arguments are an object; keep a scalar under "value". */
		cJSON *w = cJSON_CreateObject();

		if (args)
			cJSON_AddItemToObject(w, "value", args);
		args = w;
	}
	cJSON_AddItemToObject(c, "arguments", args);
	cJSON_AddItemToArray(calls, c);
	if (kt_strmap_put(&a->calls, id, st))
		a->err = KT_ENOMEM;
	add_seq(st, ev->seq);
}

static void on_tool_result(struct atif *a, const kt_event *ev, cJSON *p)
{
	const char *id = kt_json_str(p, "call_id"), *out = kt_json_str(p, "output");
	cJSON *st = id ? kt_strmap_get(&a->calls, id) : NULL;
	cJSON *obs, *res, *r;

	if (!st)
		st = a->cur;
	if (!st && !(st = new_step(a, "agent", ev->ts_ns)))
		return;
	obs = cJSON_GetObjectItem(st, "observation");
	if (!obs)
		obs = cJSON_AddObjectToObject(st, "observation");
	res = cJSON_GetObjectItem(obs, "results");
	if (!res)
		res = cJSON_AddArrayToObject(obs, "results");
	r = cJSON_CreateObject();
	if (id)
		cJSON_AddStringToObject(r, "source_call_id", id);
	cJSON_AddItemToObject(r, "content", content_of(a, out, p));
	if (cJSON_IsFalse(cJSON_GetObjectItem(p, "ok")))
		cJSON_AddItemToObject(r, "extra", cJSON_Parse("{\"is_error\":true}"));
	cJSON_AddItemToArray(res, r);
	add_seq(st, ev->seq);
}

static void on_other(struct atif *a, const kt_event *ev, cJSON *p)
{
	cJSON *st = a->cur, *extra, *list, *e;

	if (!st && !(st = new_step(a, "system", ev->ts_ns)))
		return;
	extra = cJSON_GetObjectItem(st, "extra");
	list = cJSON_GetObjectItem(extra, "ktraj_events");
	if (!list)
		list = cJSON_AddArrayToObject(extra, "ktraj_events");
	e = cJSON_CreateObject();
	cJSON_AddNumberToObject(e, "seq", (double)ev->seq);
	cJSON_AddStringToObject(e, "kind", kt_kind_name(ev->kind) ? kt_kind_name(ev->kind) : "unknown");
	cJSON_AddItemToObject(e, "payload", cJSON_Duplicate(p, 1));
	cJSON_AddItemToArray(list, e);
}

static int each_event(const kt_event *ev, void *arg)
{
	struct atif *a = arg;
	cJSON *p = cJSON_ParseWithLength(ev->payload, ev->payload_len);

	if (!p) {
		a->err = KT_ECORRUPT;
		return 1;
	}
	switch (ev->kind) {
	case KT_KIND_MESSAGE: on_message(a, ev, p); break;
	case KT_KIND_TOOL_CALL: on_tool_call(a, ev, p); break;
	case KT_KIND_TOOL_RESULT: on_tool_result(a, ev, p); break;
	default: on_other(a, ev, p); break;
	}
	cJSON_Delete(p);
	return a->err ? 1 : 0;
}

static int write_atif(kt_store *s, const kt_export_args *args, char *err,
		      size_t errlen)
{
	const char *run = args->run;
	int redact = args->redact;
	FILE *out = args->out;
	struct atif a = { .s = s };
	kt_run_info ri;
	cJSON *doc = NULL, *agent, *fm, *extra;
	kt_redactor *r = NULL;
	char *text = NULL;
	char name[512] = "", format[64] = "", cwd[1024] = "";
	int rc;

	rc = kt_run_get(s, run, &ri);
	if (rc) {
		snprintf(err, errlen, "run %s: %s", run, kt_strerror(rc));
		return rc;
	}
	/* kt_run_info strings die at the next store call: copy them. */
	snprintf(name, sizeof(name), "%s", ri.name ? ri.name : "");
	snprintf(format, sizeof(format), "%s", ri.format ? ri.format : "");
	{
		/* the run's directory (as the STS and OTLP exports write it:
		 * agentx.c), so that an import resolves relative paths of
		 * tool calls as the import the run came from did */
		cJSON *meta = ri.meta_json ? cJSON_Parse(ri.meta_json) : NULL;
		const char *c = kt_json_str(meta, "cwd") ? kt_json_str(meta, "cwd") :
			kt_json_str(cJSON_GetObjectItemCaseSensitive(meta,
							"session"), "cwd");

		snprintf(cwd, sizeof(cwd), "%s", c ? c : "");
		cJSON_Delete(meta);
	}
	doc = cJSON_CreateObject();
	a.steps = cJSON_CreateArray();
	if (!doc || !a.steps) {
		rc = KT_ENOMEM;
		goto out;
	}
	rc = kt_event_foreach_body(s, run, 1, 0, 0, each_event, &a);
	if (a.err)
		rc = a.err;
	if (rc) {
		snprintf(err, errlen, "reading events of %s: %s", run, kt_strerror(rc));
		goto out;
	}
	cJSON_AddStringToObject(doc, "schema_version",
				a.media ? ATIF_VERSION_MEDIA : ATIF_VERSION);
	cJSON_AddStringToObject(doc, "session_id", run);
	agent = cJSON_AddObjectToObject(doc, "agent");
	cJSON_AddStringToObject(agent, "name", *format ? format : "ktraj");
	cJSON_AddStringToObject(agent, "version", "unknown");
	if (a.model[0])
		cJSON_AddStringToObject(agent, "model_name", a.model);
	cJSON_AddItemToObject(doc, "steps", a.steps);
	a.steps = NULL;
	fm = cJSON_AddObjectToObject(doc, "final_metrics");
	cJSON_AddNumberToObject(fm, "total_prompt_tokens", a.prompt_tokens);
	cJSON_AddNumberToObject(fm, "total_completion_tokens", a.completion_tokens);
	cJSON_AddNumberToObject(fm, "total_cached_tokens", a.cached_tokens);
	cJSON_AddNumberToObject(fm, "total_steps", (double)a.nsteps);
	extra = cJSON_AddObjectToObject(doc, "extra");
	cJSON_AddStringToObject(extra, "ktraj_run", run);
	cJSON_AddStringToObject(extra, "ktraj_name", name);
	cJSON_AddStringToObject(extra, "ktraj_format", format);
	if (*cwd)
		cJSON_AddStringToObject(extra, "ktraj_cwd", cwd);
	if (redact) {
		r = kt_redactor_new();
		if (!r || kt_redact_json(r, doc)) {
			rc = KT_ENOMEM;
			snprintf(err, errlen, "redaction failed");
			goto out;
		}
	}
	text = cJSON_Print(doc);
	if (!text) {
		rc = KT_ENOMEM;
		goto out;
	}
	if (fputs(text, out) < 0 || fputc('\n', out) == EOF) {
		rc = KT_EIO;
		snprintf(err, errlen, "write failed");
	}
out:
	if (rc == KT_ENOMEM && err && !*err)
		snprintf(err, errlen, "out of memory");
	free(text);
	kt_redactor_free(r);
	cJSON_Delete(a.steps);
	kt_strmap_free(&a.calls, NULL);
	cJSON_Delete(doc);
	return rc;
}

const kt_exporter kt_exporter_atif = { "atif", KT_EXPORT_STREAM, write_atif };
