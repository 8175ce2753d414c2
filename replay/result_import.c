/*
 * result_import.c - importer for the result.json a replay bundle writes
 * (replay.h), "replay_result": registered into import/'s table by
 * kt_replay_register (import/registry.c says why it is not named there by
 * symbol).  It judges the result against the expectations in its manifest and
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

#include "replay_int.h"
#include "../import/import.h"
#include "../import/impx.h"
#include "../import/jsonstrict.h"

static int detect(const kt_file *f)
{
	size_t n = f->len < 256 ? f->len : 256;

	return f->len && f->data[0] == '{' &&
	       memmem(f->data, n, "\"ktraj_replay\"", 14) ? 100 : 0;
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

static int import(kt_imp *imp, const kt_file *f)
{
	cJSON *res = cJSON_ParseWithLength((const char *)f->data, f->len);
	const cJSON *man = cJSON_GetObjectItem(res, "manifest");
	const char *run = cJSON_GetStringValue(cJSON_GetObjectItem(man, "run"));
	const cJSON *seq = cJSON_GetObjectItem(man, "seq");
	const char *kname = cJSON_GetStringValue(cJSON_GetObjectItem(man, "kind"));
	char sha[KT_HASH_HEX + 1];
	struct dup d = { sha, 0 };
	kt_event step;
	char reason[2048];
	const char *verdict;
	cJSON *p, *r, *m;
	kt_ev ev = { 0 };
	int rc = 0;

	if (!res) {
		kt_imp_json_bad(imp, f, 0, (const char *)f->data, f->len);
		rc = KT_EPARSE;
		goto out;
	}
	if (!run || !cJSON_IsNumber(seq) || !kname ||
	    seq->valuedouble < 1 || seq->valuedouble > 9007199254740992.0 ||
	    seq->valuedouble != (double)(uint64_t)seq->valuedouble) {
		kt_imp_warn(imp, f, 0, "replay result without a manifest naming run, an integer seq and kind");
		rc = KT_EPARSE;
		goto out;
	}
	if (cJSON_GetObjectItem(res, "exit_code") &&
	    !cJSON_IsNumber(cJSON_GetObjectItem(res, "exit_code"))) {
		kt_imp_warn(imp, f, 0, "replay result: exit_code is not a number");
		rc = KT_EPARSE;
		goto out;
	}
	/* The same result, whatever its formatting, is recorded once: the
	 * key is the hash of its canonical (compact) JSON. */
	{
		char *canon = cJSON_PrintUnformatted(res);
		unsigned char h[KT_HASH_LEN];

		if (!canon) {
			rc = KT_ENOMEM;
			goto out;
		}
		kt_sha256(canon, strlen(canon), h);
		kt_hex(h, KT_HASH_LEN, sha);
		free(canon);
	}
	rc = kt_imp_run_continue(imp, run);
	if (rc == KT_ENOTFOUND) {
		kt_imp_warn(imp, f, 0, "replay result for run %s, which this store does not have: skipped", run);
		rc = 0;
		goto out;
	}
	if (rc)
		goto out;
	/* the step must exist and be what the manifest says it is */
	rc = kt_imp_stored_head(imp, (uint64_t)seq->valuedouble, &step);
	if (rc || step.kind != kt_kind_from_name(kname) || step.kind == KT_KIND_REPLAY) {
		kt_imp_warn(imp, f, 0, "replay result for step %.0f of run %s, which is not a %s step there: skipped",
			    seq->valuedouble, run, kname);
		rc = rc == KT_ENOTFOUND || !rc ? 0 : rc;
		goto end;
	}
	rc = kt_imp_stored_foreach(imp, KT_KIND_REPLAY, find_dup, &d);
	if (rc < 0 || d.found) {
		rc = rc < 0 ? rc : 0;
		goto end;
	}
	verdict = kt_replay_judge(kt_kind_from_name(kname), man, res, NULL, reason, sizeof(reason));
	/* a plan task whose step's cgroup recorded an OOM kill adds
	 * "killed" to the result it writes (plan.c) */
	if (cJSON_GetStringValue(cJSON_GetObjectItem(res, "killed")))
		snprintf(reason + strlen(reason), sizeof(reason) - strlen(reason), "%skilled: %.300s",
			 *reason ? "; " : "", cJSON_GetStringValue(cJSON_GetObjectItem(res, "killed")));
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
	cJSON_AddStringToObject(p, "result_sha", sha);
	cJSON_AddStringToObject(p, "origin", "bundle");
	/* exit_code, duration_ms and the manifest's expect come from the
	 * file as written: an event of the wrong types would be misread, and
	 * refused by `append` of its export */
	if (kt_imp_check_payload(KT_KIND_REPLAY, p, reason, sizeof(reason))) {
		kt_imp_warn(imp, f, 0, "replay result: %s: skipped", reason);
		cJSON_Delete(p);
		rc = KT_EPARSE;
		goto end;
	}
	ev.kind = KT_KIND_REPLAY;
	ev.parent = (uint64_t)seq->valuedouble;
	{
		const cJSON *fin = cJSON_GetObjectItem(res, "finished");

		ev.ts_ns = cJSON_IsNumber(fin) && fin->valuedouble > 0 && fin->valuedouble < 9.2e9 ?
			   (int64_t)fin->valuedouble * 1000000000 : KT_TS_UNKNOWN;
	}
	ev.actor = "harness";
	ev.payload = p;
	rc = kt_imp_emit(imp, &ev, NULL);
end:
	kt_imp_run_end(imp);
out:
	cJSON_Delete(res);
	return rc;
}

static const kt_importer kt_importer_replay = {
	"replay_result",
	"result.json of a ktraj replay bundle (recorded as a replay event on its step)",
	detect,
	import,
};

int kt_replay_register(void)
{
	return kt_importer_register(&kt_importer_replay);
}
