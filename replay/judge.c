/*
 * judge.c - judging a replay result against its recording (shared by
 * `ktraj replay` and the importer of bundle results, result_import.c).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../import/import.h"
#include "replay_int.h"

/* ---- judging ---------------------------------------------------------------- */

static void add_reason(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add_reason(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n && n + 2 < len) {
		strcat(buf, "; ");
		n += 2;
	}
	if (n >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

static double num(const cJSON *o, const char *k, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

/* Whether a command builds or runs CUDA code (a missing GPU matters). */
static int cuda_command(const char *cmd)
{
	return cmd && (strstr(cmd, "nvcc") || strstr(cmd, ".cu") ||
		       strstr(cmd, "cuda") || strstr(cmd, "CUDA"));
}

/* First line of text (at most n bytes) into out. */
static void first_line(const char *text, char *out, size_t n)
{
	size_t i = 0;

	out[0] = 0;
	if (!text)
		return;
	while (*text == '\n' || *text == ' ')
		text++;
	while (text[i] && text[i] != '\n' && i + 1 < n) {
		out[i] = text[i];
		i++;
	}
	out[i] = 0;
}

static void missing_reason(const cJSON *manifest, char *reason, size_t len)
{
	const cJSON *m = cJSON_GetObjectItem(manifest, "missing"), *it;
	char list[512] = "";
	int n = 0;

	cJSON_ArrayForEach(it, m) {
		if (!cJSON_IsString(it))
			continue;
		if (n++ < 5) {
			if (*list)
				strncat(list, ", ", sizeof(list) - strlen(list) - 1);
			strncat(list, it->valuestring, sizeof(list) - strlen(list) - 1);
		}
	}
	if (n)
		add_reason(reason, len, "the trajectory never showed %d file(s) the command needs (%s%s)",
			   n, list, n > 5 ? ", ..." : "");
}

/* The measured result matching the recorded scenario: harness NDJSON rows
 * in stdout first, else benchmark patterns in the text. */
cJSON *kt_replay_measured(const cJSON *manifest, const cJSON *result)
{
	const char *out = kt_json_str(result, "stdout");
	const char *want = kt_json_str(cJSON_GetObjectItem(manifest, "expect"), "scenario");
	cJSON *arr = NULL, *it, *pick = NULL;
	const char *p;
	int harness = 0;

	if (!out)
		return NULL;
	/* ktraj-harness NDJSON: typed lines; only `result` lines measure (a
	 * compile line's duration_ms is not a kernel time) */
	for (p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		const char *e = strchr(p, '\n');
		const char *type;
		cJSON *row;

		if (*p != '{')
			continue;
		row = cJSON_ParseWithLength(p, e ? (size_t)(e - p) : strlen(p));
		if (!row)
			continue;
		type = kt_json_str(row, "type");
		if (type)
			harness = 1;
		if ((!type || !strcmp(type, "result")) &&
		    cJSON_IsNumber(cJSON_GetObjectItem(row, "time_ms")) &&
		    (!want || !kt_json_str(row, "scenario") || !strcmp(kt_json_str(row, "scenario"), want))) {
			cJSON_Delete(pick);
			pick = row;
			if (want)
				break;
		} else {
			cJSON_Delete(row);
		}
	}
	if (pick || harness)
		return pick;
	if (kt_bench_parse(out, strlen(out), &arr) || !arr)
		return NULL;
	cJSON_ArrayForEach(it, arr) {
		if (!cJSON_IsNumber(cJSON_GetObjectItem(it, "time_ms")))
			continue;
		if (!want || !kt_json_str(it, "scenario") || !strcmp(kt_json_str(it, "scenario"), want)) {
			pick = cJSON_Duplicate(it, 1);
			break;
		}
	}
	cJSON_Delete(arr);
	return pick;
}

/* The error a ktraj-harness run reported ({"type":"error","error":...}). */
static void harness_error(const char *out, char *buf, size_t n)
{
	const char *p = out ? strstr(out, "{\"type\":\"error\"") : NULL;
	const char *e;
	cJSON *row;

	buf[0] = 0;
	if (!p)
		return;
	e = strchr(p, '\n');
	row = cJSON_ParseWithLength(p, e ? (size_t)(e - p) : strlen(p));
	if (kt_json_str(row, "error"))
		snprintf(buf, n, "%s", kt_json_str(row, "error"));
	cJSON_Delete(row);
}

const char *kt_replay_judge(int kind, const cJSON *manifest,
			    const cJSON *result, const char *gpu_here,
			    char *reason, size_t len)
{
	const cJSON *expect = cJSON_GetObjectItem(manifest, "expect");
	const cJSON *fp = cJSON_GetObjectItem(manifest, "fingerprint");
	const char *verdict = KT_REPLAY_REPRODUCED;
	const char *gpu_then = kt_json_str(fp, "gpu_name") ? kt_json_str(fp, "gpu_name") : kt_json_str(fp, "gpu");
	int rc;

	reason[0] = 0;
	if (!gpu_here && result && kt_json_str(result, "gpu") && *kt_json_str(result, "gpu"))
		gpu_here = kt_json_str(result, "gpu");
	if (gpu_then && (!gpu_here || strcmp(gpu_then, gpu_here)))
		add_reason(reason, len, "recorded on %s, replayed on %s", gpu_then,
			   gpu_here ? gpu_here : "a machine without a GPU");
	if (!result) {
		add_reason(reason, len, "the bundle produced no result (killed by a limit or crashed)");
		return KT_REPLAY_FAILED;
	}
	rc = (int)num(result, "exit_code", -1);
	if (kind == KT_KIND_COMPILE || kind == KT_KIND_TOOL_CALL ||
	    kind == KT_KIND_TOOL_RESULT) {
		const cJSON *e = cJSON_GetObjectItem(expect, "exit_code");
		int want = cJSON_IsNumber(e) ? e->valueint : 0;
		char line[200];

		if ((rc == 0) == (want == 0)) {
			add_reason(reason, len, rc == 0 ? "same outcome: the command succeeded"
				   : "same outcome: the command failed as recorded (exit %d)", rc);
			return KT_REPLAY_REPRODUCED;
		}
		if (rc != 0) {
			first_line(kt_json_str(result, "stderr"), line, sizeof(line));
			add_reason(reason, len, "the command failed here (exit %d) but succeeded in the recording%s%s",
				   rc, *line ? ": " : "", line);
			missing_reason(manifest, reason, len);
			if (!gpu_here && cuda_command(kt_json_str(manifest, "command")))
				add_reason(reason, len, "no GPU on this machine");
			return KT_REPLAY_FAILED;
		}
		add_reason(reason, len, "the command succeeded here but failed in the recording (exit %d)", want);
		return KT_REPLAY_DIVERGED;
	}
	/* bench */
	{
		cJSON *m = kt_replay_measured(manifest, result);
		const cJSON *ec = cJSON_GetObjectItem(expect, "correct");
		const cJSON *gc;
		double t0 = num(expect, "time_ms", NAN), t1;
		double lo = num(expect, "min_ms", NAN), hi = num(expect, "max_ms", NAN);
		double band = num(manifest, "noise_band", 0.05), spread;

		if (!m) {
			char line[200];

			harness_error(kt_json_str(result, "stdout"), line, sizeof(line));
			if (*line) {
				add_reason(reason, len, "the harness reported: %s", line);
				return KT_REPLAY_FAILED;
			}
			first_line(kt_json_str(result, "stderr"), line, sizeof(line));
			add_reason(reason, len, "no benchmark result in the output (exit %d%s%s)", rc,
				   *line ? ": " : "", line);
			missing_reason(manifest, reason, len);
			return KT_REPLAY_FAILED;
		}
		gc = cJSON_GetObjectItem(m, "correct");
		t1 = num(m, "time_ms", NAN);
		if (cJSON_IsBool(ec) && cJSON_IsBool(gc) && cJSON_IsTrue(ec) != cJSON_IsTrue(gc)) {
			add_reason(reason, len, "correctness differs: recorded %s, replayed %s",
				   cJSON_IsTrue(ec) ? "correct" : "incorrect",
				   cJSON_IsTrue(gc) ? "correct" : "incorrect");
			cJSON_Delete(m);
			return KT_REPLAY_DIVERGED;
		}
		if (isnan(t0) || isnan(t1)) {
			add_reason(reason, len, "no recorded time to compare with");
			cJSON_Delete(m);
			return KT_REPLAY_REPRODUCED;
		}
		spread = (!isnan(lo) && !isnan(hi) && t0 > 0) ? (hi - lo) / 2 / t0 : 0;
		if (spread > band)
			band = spread;
		if (band < 0.03)
			band = 0.03;
		if (fabs(t1 - t0) <= band * t0) {
			add_reason(reason, len, "median %.4g ms vs recorded %.4g ms, inside the %.1f %% band",
				   t1, t0, band * 100);
			verdict = KT_REPLAY_REPRODUCED;
		} else if (t1 < t0) {
			add_reason(reason, len, "median %.4g ms vs recorded %.4g ms: %.2fx faster (band %.1f %%)",
				   t1, t0, t0 / t1, band * 100);
			verdict = KT_REPLAY_FASTER;
		} else {
			add_reason(reason, len, "median %.4g ms vs recorded %.4g ms: %.2fx slower (band %.1f %%)",
				   t1, t0, t1 / t0, band * 100);
			verdict = KT_REPLAY_SLOWER;
		}
		cJSON_Delete(m);
	}
	return verdict;
}

