/*
 * replay.c - run a bundle in the sandbox (sandbox.h) and judge it (see replay.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "replay_int.h"
#include "sandbox.h"
#include "../import/import.h"

static char *gpu_name(void)
{
	FILE *f = popen("nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null", "r");
	char line[256];
	char *out = NULL;

	if (!f)
		return NULL;
	if (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = 0;
		if (*line)
			out = strdup(line);
	}
	pclose(f);
	return out;
}

uint64_t kt_replay_bundle_cap(const kt_replay_limits *lim)
{
	return (lim->output_bytes ? lim->output_bytes : lim->mem_bytes / 2) / 2;
}

void kt_replay_spec(kt_sandbox_spec *sp, const kt_replay_limits *lim,
		    const cJSON *manifest, const char *cache_dir)
{
	memset(sp, 0, sizeof(*sp));
	sp->timeout_s = lim->timeout_s;
	sp->cpu_s = lim->cpu_s;
	sp->mem_bytes = lim->mem_bytes;
	sp->output_bytes = lim->output_bytes;
	sp->file_bytes = lim->file_bytes;
	sp->max_procs = lim->max_procs;
	sp->allow_network = lim->allow_network;
	sp->no_sandbox = lim->no_sandbox;
	sp->gpu = lim->gpu || kt_sandbox_needs_gpu(manifest);
	sp->cache_dir = cache_dir;
	sp->cache_max = lim->cache_max;
	sp->bundle_dir = KT_REPLAY_BUNDLE_DIR;
}

int kt_replay_step(kt_store *s, const char *run, uint64_t seq,
		   const kt_replay_limits *lim, const char *cache_dir,
		   cJSON **out, char *err, size_t errlen)
{
	char path[64], reason[2048];
	cJSON *manifest = NULL, *result = NULL, *payload = NULL, *res;
	kt_sandbox_result sr = { 0 };
	kt_sandbox_spec sp = { 0 };
	const char *verdict;
	char *gpu = NULL, *mtext = NULL;
	int rc, kind, bfd, tfd = -1;

	*out = NULL;
	/* the bundle never touches the disk: a kill -9 of ktraj leaves
	 * nothing of it behind */
	bfd = memfd_create("ktraj-bundle.tar.gz", MFD_CLOEXEC);
	if (bfd < 0) {
		snprintf(err, errlen, "cannot create a memory file: %s", strerror(errno));
		return KT_EIO;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", bfd);
	rc = kt_replay_bundle_write(s, run, seq, path, err, errlen);
	if (rc)
		goto out;
	rc = kt_sandbox_plain_tar(bfd, KT_REPLAY_BUNDLE_DIR "/manifest.json", kt_replay_bundle_cap(lim),
				  &tfd, &mtext, err, errlen);
	if (rc)
		goto out;
	manifest = mtext ? cJSON_Parse(mtext) : NULL;
	if (!manifest) {
		snprintf(err, errlen, "bundle has no readable manifest");
		rc = KT_ECORRUPT;
		goto out;
	}
	kind = kt_kind_from_name(cJSON_GetStringValue(cJSON_GetObjectItem(manifest, "kind")) ?
				 cJSON_GetStringValue(cJSON_GetObjectItem(manifest, "kind")) : "");
	kt_replay_spec(&sp, lim, manifest, cache_dir);
	rc = kt_sandbox_run(tfd, &sp, &sr, err, errlen);
	if (rc)
		goto out;
	result = sr.out ? cJSON_Parse(sr.out) : NULL;
	gpu = gpu_name();
	verdict = kt_replay_judge(kind, manifest, sr.timed_out || sr.cache_full ? NULL : result,
				  gpu, reason, sizeof(reason));
	if (sr.cache_full)
		snprintf(reason + strlen(reason), sizeof(reason) - strlen(reason),
			 "%sstopped: the step added more than --cache-max (%llu bytes) to the cache",
			 *reason ? "; " : "", (unsigned long long)lim->cache_max);
	else if (sr.timed_out)
		snprintf(reason + strlen(reason), sizeof(reason) - strlen(reason),
			 "%sstopped by the %u s watchdog", *reason ? "; " : "", lim->timeout_s);
	else if (!result && WIFEXITED(sr.status) && WEXITSTATUS(sr.status) >= 125 && *sr.diag)
		snprintf(reason + strlen(reason), sizeof(reason) - strlen(reason),
			 "%sthe sandbox said: %.300s", *reason ? "; " : "", sr.diag);
	/* a killed process says only "Killed": the cgroup knows why */
	if (sr.oom_kills)
		snprintf(reason + strlen(reason), sizeof(reason) - strlen(reason),
			 "%sout of memory: the OOM killer stopped %u process%s at the step's "
			 "cgroup limit (%.0f bytes, --mem + --max-output)", *reason ? "; " : "",
			 sr.oom_kills, sr.oom_kills == 1 ? "" : "es",
			 cJSON_GetNumberValue(cJSON_GetObjectItem(
				 cJSON_GetObjectItem(sr.isolation, "cgroup"), "mem_bytes")));
	payload = cJSON_CreateObject();
	cJSON_AddNumberToObject(payload, "step", (double)seq);
	cJSON_AddStringToObject(payload, "verdict", verdict);
	cJSON_AddStringToObject(payload, "reason", reason);
	res = cJSON_AddObjectToObject(payload, "results");
	if (result) {
		static const char *const keep[] = { "exit_code", "duration_ms", NULL };
		int i;

		for (i = 0; keep[i]; i++)
			if (cJSON_GetObjectItem(result, keep[i]))
				cJSON_AddItemToObject(res, keep[i],
					cJSON_Duplicate(cJSON_GetObjectItem(result, keep[i]), 1));
		{
			cJSON *m = kt_replay_measured(manifest, result);

			if (m)
				cJSON_AddItemToObject(res, "measured", m);
		}
	}
	cJSON_AddItemToObject(payload, "expected",
			      cJSON_Duplicate(cJSON_GetObjectItem(manifest, "expect"), 1));
	cJSON_AddItemToObject(payload, "missing",
			      cJSON_Duplicate(cJSON_GetObjectItem(manifest, "missing"), 1));
	cJSON_AddStringToObject(payload, "gpu", gpu ? gpu : "");
	cJSON_AddBoolToObject(payload, "network_isolated",
			      cJSON_IsTrue(cJSON_GetObjectItem(sr.isolation, "network")));
	cJSON_AddItemToObject(payload, "isolation", sr.isolation);
	sr.isolation = NULL;
	/* result.json and the manifest are files of the bundle, where the
	 * replayed commands run and may write (result.json's writer, .result,
	 * is one of them too), and a bundle can be edited by hand: what the
	 * payload takes from them gets the type check of every payload from
	 * outside (import of a result.json, append; store/event_model.h), so a
	 * wrong type is refused instead of stored */
	if (kt_imp_check_payload(KT_KIND_REPLAY, payload, reason,
				 sizeof(reason))) {
		snprintf(err, errlen, "step %llu: the replay's result does not "
			 "fit a replay event (%s): nothing recorded",
			 (unsigned long long)seq, reason);
		rc = KT_EPARSE;
		goto out;
	}
	*out = payload;
	payload = NULL;
out:
	close(bfd);
	if (tfd >= 0)
		close(tfd);
	kt_sandbox_result_free(&sr);
	free(mtext);
	free(gpu);
	cJSON_Delete(manifest);
	cJSON_Delete(result);
	cJSON_Delete(payload);
	return rc;
}
