/*
 * imp_replay.c - importer for the result.json a replay bundle writes
 * (cli/bundle.h): judges it against the expectations in its manifest and
 * records a `replay` event on the original step of the original run, so a
 * bundle run on another machine comes back into the store like a local
 * `ktraj replay`.
 *
 * Unlike the other importers it continues an existing run rather than
 * creating one; importing the same result again adds nothing (the result's
 * SHA-256 is kept in the event and checked).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imp_int.h"
#include "replay_judge.h"

static int detect(const kt_file *f)
{
	size_t n = f->len < 256 ? f->len : 256;

	return f->len && f->data[0] == '{' &&
	       memmem(f->data, n, "\"ktraj_replay\":1", 16) ? 100 : 0;
}

struct dup {
	const char *sha;
	int found;
};

static int find_dup(const kt_event *ev, void *arg)
{
	struct dup *d = arg;
	cJSON *p = cJSON_ParseWithLength(ev->payload, ev->payload_len);
	const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(p, "result_sha"));

	if (s && !strcmp(s, d->sha))
		d->found = 1;
	cJSON_Delete(p);
	return d->found;
}

/* Continue run `id`: events emitted from now on get the seqs after its last
 * event and are all written. */
static int attach(kt_imp *imp, const char *id)
{
	kt_run_info info;
	int rc;

	if (imp->in_run)
		kt_imp_run_end(imp);
	rc = kt_run_get(imp->s, id, &info);
	if (rc)
		return rc;
	memcpy(imp->run_id, info.id, sizeof(imp->run_id));
	free(imp->run_name);
	free(imp->run_format);
	imp->run_name = strdup(info.name ? info.name : "");
	imp->run_format = strdup(info.format ? info.format : "");
	imp->in_run = 1;
	imp->seq = info.n_events;
	imp->stored_n = info.n_events;
	imp->added = 0;
	imp->last_ts = KT_TS_UNKNOWN;
	return 0;
}

static int import(kt_imp *imp, const kt_file *f)
{
	cJSON *res = cJSON_ParseWithLength((const char *)f->data, f->len);
	const cJSON *man = cJSON_GetObjectItem(res, "manifest");
	const char *run = cJSON_GetStringValue(cJSON_GetObjectItem(man, "run"));
	const cJSON *seq = cJSON_GetObjectItem(man, "seq");
	const char *kname = cJSON_GetStringValue(cJSON_GetObjectItem(man, "kind"));
	struct dup d = { f->sha_hex, 0 };
	char reason[2048];
	const char *verdict;
	cJSON *p, *r, *m;
	kt_ev ev = { 0 };
	int rc = 0;

	if (!res || !run || !cJSON_IsNumber(seq) || !kname) {
		kt_imp_warn(imp, f, 0, "replay result without a manifest naming run, seq and kind");
		rc = KT_EPARSE;
		goto out;
	}
	rc = attach(imp, run);
	if (rc == KT_ENOTFOUND) {
		kt_imp_warn(imp, f, 0, "replay result for run %s, which this store does not have: skipped", run);
		rc = 0;
		goto out;
	}
	if (rc)
		goto out;
	rc = kt_event_foreach(imp->s, imp->run_id, 1, 0, KT_KIND_REPLAY, find_dup, &d);
	if (rc < 0 || d.found) {
		rc = rc < 0 ? rc : 0;
		goto end;
	}
	verdict = kt_replay_judge(kt_kind_from_name(kname), man, res, NULL, reason, sizeof(reason));
	p = cJSON_CreateObject();
	cJSON_AddNumberToObject(p, "step", seq->valuedouble);
	cJSON_AddStringToObject(p, "verdict", verdict);
	cJSON_AddStringToObject(p, "reason", reason);
	r = cJSON_AddObjectToObject(p, "results");
	if (cJSON_GetObjectItem(res, "exit_code"))
		cJSON_AddItemToObject(r, "exit_code", cJSON_Duplicate(cJSON_GetObjectItem(res, "exit_code"), 1));
	if (cJSON_GetObjectItem(res, "duration_ms"))
		cJSON_AddItemToObject(r, "duration_ms", cJSON_Duplicate(cJSON_GetObjectItem(res, "duration_ms"), 1));
	if ((m = kt_replay_measured(man, res)))
		cJSON_AddItemToObject(r, "measured", m);
	cJSON_AddItemToObject(p, "expected", cJSON_Duplicate(cJSON_GetObjectItem(man, "expect"), 1));
	cJSON_AddStringToObject(p, "gpu", cJSON_GetStringValue(cJSON_GetObjectItem(res, "gpu")) ?
				cJSON_GetStringValue(cJSON_GetObjectItem(res, "gpu")) : "");
	cJSON_AddStringToObject(p, "result_sha", f->sha_hex);
	cJSON_AddStringToObject(p, "origin", "bundle");
	ev.kind = KT_KIND_REPLAY;
	ev.parent = (uint64_t)seq->valuedouble;
	ev.ts_ns = KT_TS_UNKNOWN;
	ev.actor = "harness";
	ev.payload = p;
	rc = kt_imp_emit(imp, &ev, NULL);
end:
	kt_imp_run_end(imp);
out:
	cJSON_Delete(res);
	return rc;
}

const kt_importer kt_importer_replay = {
	"replay_result",
	"result.json of a ktraj replay bundle (recorded as a replay event on its step)",
	detect,
	import,
};
