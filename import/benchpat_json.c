/*
 * benchpat_json.c - reader 1 of kt_bench_parse (benchpat.c): benchmark
 * results in JSON objects and arrays printed in a command's output, and the
 * KEY table (bp_key_kind) that the line reader shares for "time_ms: 1.2".
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "benchpat_int.h"
#include "impx.h"

/* ---- the KEY table ------------------------------------------------------- */
int bp_key_kind(const char *key, double *scale, int *prio)
{
	char k[128];
	size_t n;

	bp_lower(k, key, strlen(key), sizeof(k));
	n = strlen(k);
	*scale = 1;
	*prio = 5;
	if (strstr(k, "std") || strstr(k, "var"))
		return K_NONE;
	/* before "compile": speedup_vs_compile is a speedup, not a build */
	if (strstr(k, "speedup") || !strcmp(k, "speed_up"))
		return K_SPEEDUP;
	if (strstr(k, "compile") ||
	    strstr(k, "build") || strstr(k, "warmup") || strstr(k, "setup") ||
	    strstr(k, "init") || strstr(k, "load") || strstr(k, "total") ||
	    strstr(k, "stamp") || strstr(k, "p9") || strstr(k, "memory") ||
	    strstr(k, "_mb") || strstr(k, "count") || strstr(k, "token"))
		return K_NONE;
	if (strstr(k, "speedup") || !strcmp(k, "speed_up"))
		return K_SPEEDUP;
	if (strstr(k, "tflop"))
		return K_TFLOPS;
	if (strstr(k, "gflop"))
		return K_GFLOPS;
	if (strstr(k, "gbps") || strstr(k, "gb_s") || strstr(k, "gb/s") ||
	    strstr(k, "bandwidth"))
		return K_GBPS;
	if (!strcmp(k, "iterations") || !strcmp(k, "iters") ||
	    !strcmp(k, "n_iter") || !strcmp(k, "num_trials") ||
	    !strcmp(k, "repeat") || !strcmp(k, "runs") || !strcmp(k, "trials"))
		return K_N;
	/* a time needs a unit in the key: _ms _us _ns _s (or ms alone) */
	if (n >= 2 && !strcmp(k + n - 2, "ms"))
		*scale = 1;
	else if (n >= 2 && !strcmp(k + n - 2, "us"))
		*scale = 1e-3;
	else if (n >= 4 && !strcmp(k + n - 4, "usec"))
		*scale = 1e-3;
	else if (n >= 2 && !strcmp(k + n - 2, "ns"))
		*scale = 1e-6;
	else if ((n >= 2 && !strcmp(k + n - 2, "_s")) ||
		 (n >= 4 && !strcmp(k + n - 4, "_sec")) ||
		 (n >= 8 && !strcmp(k + n - 8, "_seconds")))
		*scale = 1e3;
	else if (!strcmp(k, "latency") || !strcmp(k, "runtime"))
		return K_NONE;  /* unit unknown (KernelBench "runtime") */
	else
		return K_NONE;
	if (strstr(k, "ref") || strstr(k, "baseline") || strstr(k, "torch") ||
	    strstr(k, "eager"))
		return K_REF;
	if (strstr(k, "min"))
		return K_MIN;
	if (strstr(k, "max"))
		return K_MAX;
	if (strstr(k, "mean") || strstr(k, "avg") || strstr(k, "average"))
		*prio = 1;
	else if (strstr(k, "median") || strstr(k, "p50"))
		*prio = 2;
	else if (strstr(k, "time") || strstr(k, "latency") ||
		 strstr(k, "runtime") || strstr(k, "duration") ||
		 strstr(k, "kernel") || !strcmp(k, "ms"))
		*prio = 3;  /* "kernel_ms": a verifier's time of the candidate */
	else
		return K_NONE;
	return K_TIME;
}

/* ---- 1. JSON ----------------------------------------------------------- */
static int correct_value(const cJSON *v)
{
	const char *s;

	if (cJSON_IsBool(v))
		return cJSON_IsTrue(v);
	if (!cJSON_IsString(v) || !(s = v->valuestring))
		return -1;
	if (!strcasecmp(s, "true") || !strcasecmp(s, "passed") ||
	    !strcasecmp(s, "pass") || !strcasecmp(s, "ok") ||
	    !strcasecmp(s, "correct") || !strcasecmp(s, "success"))
		return 1;
	if (!strcasecmp(s, "false") || !strcasecmp(s, "failed") ||
	    !strcasecmp(s, "fail") || !strncasecmp(s, "incorrect", 9) ||
	    !strcasecmp(s, "mismatch") || !strcasecmp(s, "wrong"))
		return 0;
	return -1;
}

static const char *const scen_keys[] = { "name", "benchmark", "bench",
	"method", "operation", "op", "kernel", "scenario", "workload", "shape",
	"problem", "case", "test", "variant", "impl", "implementation", "dtype",
	"mode", "size", "size1", "size2", "size3", "n", "m", "k", "batch",
	"seq_len", "signal_size", "kernel_size", "dim", "config", NULL };

/* Keys with which a verifier's JSON names its graded metric by another
 * key of the same object ({"graded": "speedup_vs_compile", ...}); a value
 * that names none of the result's speedups ("metric": "allclose", a
 * correctness test) is no choice (choose_speedup). */
static int graded_key(const char *k)
{
	static const char *const g[] = { "graded", "graded_metric",
		"graded_by", "primary_metric", "score_metric", "metric",
		"objective", NULL };
	int i;

	for (i = 0; g[i]; i++)
		if (!strcasecmp(k, g[i]))
			return 1;
	return 0;
}

/* What a result's JSON says went wrong with the measured code, into
 * r->failed: an "error"/"exception" string or true ("error": "Dense
 * matrix multiplication not implemented on CPU", vsla_cuda_dev raw line
 * 390), or a "status"/"result" naming a failure ("NOT_IMPLEMENTED",
 * "runtime_error").  A number under "error" is a numeric error (a
 * tolerance figure), not a failure. */
static void failed_as(struct res *r, const char *key, const char *v)
{
	size_t n = (size_t)snprintf(r->failed, sizeof(r->failed), "%s: %s",
				    key, v);

	if (n >= sizeof(r->failed))     /* cut: whole characters only */
		r->failed[kt_utf8_floor(r->failed, sizeof(r->failed) - 2)] = 0;
}

static void json_failure(struct res *r, const cJSON *c)
{
	static const char *const ek[] = { "error", "err", "errors",
		"exception", "error_message", "error_msg", "failure", NULL };
	static const char *const sk[] = { "status", "result", "state",
		"outcome", NULL };
	const char *v = cJSON_IsString(c) ? c->valuestring : NULL;
	char low[120];
	int i;

	if (r->failed[0])
		return;
	for (i = 0; ek[i]; i++)
		if (!strcasecmp(c->string, ek[i]))
			break;
	if (ek[i]) {
		char *end;

		if (cJSON_IsTrue(c))
			snprintf(r->failed, sizeof(r->failed), "%s: true",
				 c->string);
		else if (v && *v && strcasecmp(v, "none") &&
			 strcasecmp(v, "null") && strcasecmp(v, "false") &&
			 strcasecmp(v, "ok") && strcasecmp(v, "n/a") &&
			 (strtod(v, &end), *end))
			failed_as(r, c->string, v);
		return;
	}
	for (i = 0; sk[i]; i++)
		if (!strcasecmp(c->string, sk[i]))
			break;
	if (!sk[i] || !v)
		return;
	bp_lower(low, v, strlen(v), sizeof(low));
	if (!strcmp(low, "error") || !strcmp(low, "runtime_error") ||
	    !strcmp(low, "crashed") || !strcmp(low, "crash") ||
	    bp_failure(v, strlen(v), low, r->failed, sizeof(r->failed)))
		failed_as(r, c->string, v);
}

static void json_fill(struct res *r, const cJSON *o, int depth, int top)
{
	const cJSON *c;

	if (depth > 4)
		return;
	cJSON_ArrayForEach(c, o) {
		double sc;
		int prio, kk;

		if (!c->string)
			continue;
		if (cJSON_IsObject(c)) {
			json_fill(r, c, depth + 1, 0);
			continue;
		}
		json_failure(r, c);
		if (!strcasecmp(c->string, "correct") ||
		    !strcasecmp(c->string, "correctness") ||
		    !strcasecmp(c->string, "is_correct") ||
		    !strcasecmp(c->string, "passed") ||
		    !strcasecmp(c->string, "status") ||
		    !strcasecmp(c->string, "allclose") ||
		    !strcasecmp(c->string, "match")) {
			int v = correct_value(c);

			if (v >= 0 && r->correct < 0)
				r->correct = v;
			continue;
		}
		if (top && (cJSON_IsString(c) || cJSON_IsNumber(c))) {
			int i;

			for (i = 0; scen_keys[i]; i++)
				if (!strcasecmp(c->string, scen_keys[i]))
					break;
			if (scen_keys[i]) {
				char buf[160];

				if (cJSON_IsString(c))
					snprintf(buf, sizeof(buf), "%s=%s",
						 c->string, c->valuestring);
				else
					snprintf(buf, sizeof(buf), "%s=%g",
						 c->string, c->valuedouble);
				if (r->scen[0] && strlen(r->scen) + 1 < sizeof(r->scen))
					strcat(r->scen, " ");
				strncat(r->scen, buf,
					sizeof(r->scen) - strlen(r->scen) - 1);
				continue;
			}
		}
		/* a Harbor/KernelBench verifier's verdict (kb_verifier.py
		 * writes reward, suspicious, static_ok, compile_ok) */
		if (!strcasecmp(c->string, "suspicious")) {
			r->suspicious |= cJSON_IsTrue(c);
			continue;
		}
		if (!strcasecmp(c->string, "reward") && cJSON_IsNumber(c)) {
			r->reward = c->valuedouble;
			continue;
		}
		if (top && cJSON_IsString(c) && graded_key(c->string)) {
			snprintf(r->graded, sizeof(r->graded), "%s",
				 c->valuestring);
			continue;
		}
		if (!cJSON_IsNumber(c))
			continue;
		kk = bp_key_kind(c->string, &sc, &prio);
		switch (kk) {
		case K_TIME:
			if (prio < r->tprio) {
				r->t = c->valuedouble * sc;
				r->tprio = prio;
			}
			break;
		case K_MIN: if (isnan(r->mn)) r->mn = c->valuedouble * sc; break;
		case K_MAX: if (isnan(r->mx)) r->mx = c->valuedouble * sc; break;
		case K_REF: if (isnan(r->ref)) r->ref = c->valuedouble * sc; break;
		case K_SPEEDUP: {
			char lk[64];

			bp_lower(lk, c->string, strlen(c->string), sizeof(lk));
			bp_add_speedup(r, c->valuedouble, c->string, bp_baseline_in(lk));
			break;
		}
		case K_TFLOPS: if (isnan(r->tf)) r->tf = c->valuedouble; break;
		case K_GFLOPS: if (isnan(r->tf)) r->tf = c->valuedouble / 1e3; break;
		case K_GBPS: if (isnan(r->gb)) r->gb = c->valuedouble; break;
		case K_N: if (!r->n && c->valuedouble >= 1 && c->valuedouble < 1e12)
				r->n = (int)c->valuedouble;
			break;
		default:
			break;
		}
	}
}

void bp_json_walk(struct rs *s, const cJSON *j, int depth)
{
	const cJSON *c;
	struct res tmp, *r;

	if (depth > 8 || !j)
		return;
	if (cJSON_IsArray(j)) {
		cJSON_ArrayForEach(c, j)
			bp_json_walk(s, c, depth + 1);
		return;
	}
	if (!cJSON_IsObject(j))
		return;
	bp_res_init(&tmp, "json", -1);
	json_fill(&tmp, j, 0, 1);
	if (bp_has_metric(&tmp)) {
		r = bp_new_res(s, "json", -1);
		if (r)
			*r = tmp;
		return;
	}
	/* no numbers here: results may sit in arrays below */
	cJSON_ArrayForEach(c, j)
		if (cJSON_IsArray(c) || cJSON_IsObject(c))
			bp_json_walk(s, c, depth + 1);
}

/* End of the balanced JSON value starting at t[i] ('{' or '['), or 0. */
size_t bp_json_end(const char *t, size_t n, size_t i)
{
	int depth = 0;
	char q = 0;
	size_t j;

	for (j = i; j < n && j - i < (1u << 20); j++) {
		char c = t[j];

		if (q) {
			if (c == '\\')
				j++;
			else if (c == q || c == '\n')
				q = 0;
			continue;
		}
		if (c == '"' || c == '\'')
			q = c;
		else if (c == '{' || c == '[')
			depth++;
		else if (c == '}' || c == ']') {
			if (--depth == 0)
				return j + 1;
		}
	}
	return 0;
}

/* A copy of s[0..n) without what benchmark programs print around a value
 * that neither JSON nor a Python literal reads: // comments, a literal \n
 * between tokens (output that was itself escaped), trailing commas (which
 * only JSON refuses).  Strings, in either quote, are copied as they are;
 * the reader decides what they mean. */
static char *json_tidy(const char *s, size_t n)
{
	char *o = malloc(n + 1);
	size_t i, k = 0;
	char q = 0;

	if (!o)
		return NULL;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (q) {
			if (c == '\\' && i + 1 < n) {
				o[k++] = c;
				o[k++] = s[++i];
				continue;
			}
			if (c == q)
				q = 0;
			o[k++] = c;
			continue;
		}
		if (c == '"' || c == '\'') {
			q = c;
			o[k++] = c;
			continue;
		}
		if (c == '/' && i + 1 < n && s[i + 1] == '/') {
			while (i < n && s[i] != '\n')
				i++;
			continue;
		}
		if (c == '\\' && i + 1 < n && s[i + 1] == 'n') {
			i++;
			o[k++] = ' ';
			continue;
		}
		if (c == ',') {
			size_t j = i + 1;

			while (j < n && isspace((unsigned char)s[j]))
				j++;
			if (j < n && (s[j] == '}' || s[j] == ']'))
				continue;
		}
		o[k++] = c;
	}
	o[k] = 0;
	return o;
}

cJSON *bp_json_parse(const char *s, size_t n, int *oom)
{
	char *clean = json_tidy(s, n);
	int rc = 0;
	/* a Python repr ({'mean': 9.35, 'ok': True}) goes to the one
	 * Python-literal reader, as every importer's does */
	cJSON *j = clean ? kt_impx_parse_lenient(clean, &rc) : NULL;

	if (!clean || rc == KT_ENOMEM)
		*oom = 1;
	free(clean);
	return j;
}
