/* agentx.c - the walk and line writer the agent-format exports share
 * (agentx.h). */
#include <stdlib.h>
#include <string.h>

#include "agentx.h"

int kt_xflag(const cJSON *p, const char *flag)
{
	const cJSON *f;

	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(p, "flags"))
		if (cJSON_IsString(f) && !strcmp(f->valuestring, flag))
			return 1;
	return 0;
}

void kt_xrun_uuid(const char *run, char *buf)
{
	snprintf(buf, 37, "%.8s-%.4s-%.4s-%.4s-%.12s", run, run + 8, run + 12,
		 run + 16, run + 20);
}

char *kt_xrun_blob_text(kt_xrun *x, const char *hex)
{
	unsigned char h[KT_HASH_LEN];
	void *data = NULL;
	size_t len = 0;

	int rc;

	if (!hex || strlen(hex) != KT_HASH_HEX || kt_unhex(hex, h, KT_HASH_LEN))
		return NULL;
	if ((rc = kt_blob_get(x->s, h, &data, &len))) {
		/* not stored is a content the source never gave: left out */
		if (rc != KT_ENOTFOUND && !x->rc) {
			x->rc = rc;
			snprintf(x->bad, sizeof(x->bad), "%s", hex);
		}
		return NULL;
	}
	if (!memchr(data, 0, len))
		return data; /* kt_blob_get ends it with a NUL */
	free(data);
	return NULL;
}

char *kt_xrun_text(kt_xrun *x, const cJSON *p, const char *key)
{
	char bkey[64];
	const char *inl = kt_json_str(p, key);
	char *t;

	snprintf(bkey, sizeof(bkey), "%s_blob", key);
	/* a text cut at 64 KiB inline is whole in its blob; a blob that is
	 * missing or not text leaves the inline part, which is what `show`
	 * prints too */
	if ((t = kt_xrun_blob_text(x, kt_json_str(p, bkey))))
		return t;
	t = strdup(inl ? inl : "");
	if (!t && !x->rc)
		x->rc = KT_ENOMEM;
	return t;
}

int kt_xrun_line(kt_xrun *x, cJSON *o)
{
	char *text = NULL;

	if (!o) {
		if (!x->rc)
			x->rc = KT_ENOMEM;
		return x->rc;
	}
	if (!x->rc && x->r && kt_redact_json(x->r, o))
		x->rc = KT_ENOMEM;
	if (!x->rc && !(text = cJSON_PrintUnformatted(o)))
		x->rc = KT_ENOMEM;
	if (!x->rc && (fputs(text, x->out) < 0 || fputc('\n', x->out) == EOF))
		x->rc = KT_EIO;
	free(text);
	cJSON_Delete(o);
	return x->rc;
}

struct walk {
	kt_xrun *x;
	kt_xrun_fn fn;
	void *arg;
};

static int each(const kt_event *ev, void *arg)
{
	struct walk *w = arg;
	cJSON *p = cJSON_ParseWithLength(ev->payload, ev->payload_len);
	int stop;

	if (!p) {
		w->x->rc = KT_ECORRUPT;
		return 1;
	}
	w->x->seq = ev->seq;
	stop = w->fn(w->x, ev, p, w->arg);
	cJSON_Delete(p);
	return stop || w->x->rc;
}

int kt_xrun_open(kt_xrun *x, kt_store *s, const char *run, FILE *out,
		 int redact, char *err, size_t errlen)
{
	kt_run_info ri;
	cJSON *meta;
	const char *cwd;
	int rc;

	memset(x, 0, sizeof(*x));
	x->s = s;
	x->run = run;
	x->out = out;
	rc = kt_run_get(s, run, &ri);
	if (rc) {
		snprintf(err, errlen, "run %s: %s", run, kt_strerror(rc));
		return rc;
	}
	/* kt_run_info strings die at the next store call: copy them */
	snprintf(x->name, sizeof(x->name), "%s", ri.name ? ri.name : "");
	snprintf(x->format, sizeof(x->format), "%s", ri.format ? ri.format : "");
	meta = ri.meta_json ? cJSON_Parse(ri.meta_json) : NULL;
	/* a Codex rollout's directory is its session_meta's (import/
	 * imp_codex.c keeps that record whole as meta.session) */
	cwd = kt_json_str(meta, "cwd") ? kt_json_str(meta, "cwd") :
	      kt_json_str(cJSON_GetObjectItemCaseSensitive(meta, "session"), "cwd");
	snprintf(x->cwd, sizeof(x->cwd), "%s", cwd ? cwd : "");
	snprintf(x->model, sizeof(x->model), "%s",
		 kt_json_str(meta, "model") ? kt_json_str(meta, "model") : "");
	snprintf(x->version, sizeof(x->version), "%s",
		 kt_json_str(meta, "version") ? kt_json_str(meta, "version") : "");
	cJSON_Delete(meta);
	if (redact && !(x->r = kt_redactor_new())) {
		snprintf(err, errlen, "out of memory");
		return KT_ENOMEM;
	}
	return 0;
}

void kt_xrun_close(kt_xrun *x)
{
	kt_redactor_free(x->r);
	x->r = NULL;
}

int kt_xrun_walk(kt_xrun *x, kt_xrun_fn fn, void *arg, char *err,
		 size_t errlen)
{
	struct walk w = { x, fn, arg };
	const char *run = x->run;
	int rc;

	rc = x->rc ? x->rc : kt_event_foreach_body(x->s, run, 1, 0, 0, each, &w);
	if (x->rc)
		rc = x->rc;
	if (rc == KT_EIO)
		snprintf(err, errlen, "write failed");
	else if (rc == KT_ENOMEM)
		snprintf(err, errlen, "out of memory");
	else if (rc && x->bad[0])
		snprintf(err, errlen, "seq %llu: blob %s: %s",
			 (unsigned long long)x->seq, x->bad, kt_strerror(rc));
	else if (rc)
		snprintf(err, errlen, "reading events of %s: %s", run,
			 kt_strerror(rc));
	return rc;
}
