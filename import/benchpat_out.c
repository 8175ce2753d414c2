/*
 * benchpat_out.c - the results of kt_bench_parse made final: a table of
 * numbers that is no time (bp_numeric_table), the speedup chosen among
 * those printed (bp_choose_speedup), repeated results, and which results
 * time a baseline or competitor rather than the agent's code
 * (bp_mark_baselines).  Split from benchpat.c along its sections;
 * benchpat_int.h is what they share.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "benchpat_int.h"

/* ---- results out ------------------------------------------------------------ */
/* Benchmark-looking output with no time we understand: a header row of
 * names over at least two rows of numbers only (triton perf_report prints
 * "matmul-performance:" then "   M  cuBLAS  Triton" and rows "0 256.0 4.1
 * 4.2", its index column first).  Returns 1 and the title line above the
 * header (or the header) in title. */
int bp_numeric_table(const char *t, size_t len, char *title, size_t cap)
{
	size_t i = 0, hc = 0, rows = 0;
	char prev[96] = "", head[96] = "";

	while (i < len) {
		const char *l = t + i;
		const char *nl = memchr(l, '\n', len - i);
		size_t n = nl ? (size_t)(nl - l) : len - i;
		size_t st[16], en[16], nc = bp_split_cells(l, n, st, en, 16), c, num = 0;
		double x;

		i += n + (nl ? 1 : 0);
		for (c = 0; c < nc; c++)
			if (bp_num_at(l + st[c], en[c] - st[c], 0, &x) ==
			    en[c] - st[c])
				num++;
		if (hc && nc && num == nc && (nc == hc || nc == hc + 1)) {
			if (++rows >= 2) {
				title[0] = 0;
				bp_scen_add(title, cap, *prev ? prev : head,
					 strlen(*prev ? prev : head));
				return 1;
			}
			continue;
		}
		if (nc >= 2 && !num) {
			/* prev stays the title just above ("name:"), if any */
			if (*head)
				prev[0] = 0;
			snprintf(head, sizeof(head), "%.*s", (int)(n < 95 ? n : 95), l);
			hc = nc;
			rows = 0;
			continue;
		}
		hc = rows = 0;
		snprintf(head, sizeof(head), "%.*s", (int)(n < 95 ? n : 95), l);
		prev[0] = 0;
		if (n && l[n - 1] == ':') {
			snprintf(prev, sizeof(prev), "%.*s", (int)(n - 1 < 94 ? n - 1 : 94), l);
			head[0] = 0;
		}
	}
	return 0;
}

/* Whether speedup x is the one that name names: its metric
 * ("speedup_vs_compile"), or its baseline by its own or its metric's
 * spelling ("torch.compile", "compile"). */
static int names_speedup(const struct spc *x, const char *name)
{
	return !strcasecmp(x->metric, name) ||
	       (*x->base && (!strcasecmp(x->base, name) ||
			     (!strncmp(x->metric, "speedup_vs_", 11) &&
			      !strcasecmp(x->metric + 11, name))));
}

/* Which of r's speedups is the result (FORMAT.md section 2 "bench": metric,
 * baseline, graded, alternatives, choice): the metric the result's own
 * JSON names as graded, else the metric a verifier names, else the
 * baseline the task names, else the metric the task grades, else of two
 * the one the task does not call informational, else the first printed,
 * saying so. */
void bp_choose_speedup(const struct res *r, const kt_bench_hint *h,
		       cJSON *o)
{
	static const char *const said[2] = {
		"the graded metric the verifier names",
		"the baseline the task names" };
	int c = -1, i, graded, pass;
	char why[160] = "";

	if (!r->nsp)
		return;
	for (i = 0; r->graded[0] && c < 0 && i < r->nsp; i++)
		if (names_speedup(&r->spc[i], r->graded)) {
			c = i;
			snprintf(why, sizeof(why), "the graded metric the "
				 "result's JSON names (%s)", r->graded);
		}
	/* pass 0: the verifier's metric; pass 1: the task's baseline */
	for (pass = 0; h && pass < 2 && c < 0; pass++) {
		const char *want = pass ? h->baseline : h->metric;

		for (i = 0; want && c < 0 && i < r->nsp; i++)
			if (!strcasecmp(pass ? r->spc[i].base :
					r->spc[i].metric, want)) {
				c = i;
				snprintf(why, sizeof(why), "%s (%s)", said[pass],
					 want);
			}
	}
	/* the metric the task grades, by any of its spellings */
	for (i = 0; h && h->task_metric && c < 0 && i < r->nsp; i++)
		if (names_speedup(&r->spc[i], h->task_metric)) {
			c = i;
			snprintf(why, sizeof(why), "the metric the task grades "
				 "(%s)", h->task_metric);
		}
	/* else of two printed, the one the task does not call
	 * informational */
	if (c < 0 && h && h->task_info && r->nsp == 2 &&
	    names_speedup(&r->spc[0], h->task_info) !=
	    names_speedup(&r->spc[1], h->task_info)) {
		c = names_speedup(&r->spc[0], h->task_info) ? 1 : 0;
		snprintf(why, sizeof(why), "the one the task does not call "
			 "informational (%s)", h->task_info);
	}
	graded = c >= 0;
	if (c < 0) {
		c = 0;
		if (r->nsp > 1)
			snprintf(why, sizeof(why), "the first printed: nothing "
				 "named the graded one");
	}
	cJSON_DeleteItemFromObject(o, "speedup");
	if (r->spc[c].v > 0)
		cJSON_AddNumberToObject(o, "speedup", r->spc[c].v);
	if (!cJSON_GetObjectItem(o, "metric"))
		cJSON_AddStringToObject(o, "metric", r->spc[c].metric);
	if (*r->spc[c].base)
		cJSON_AddStringToObject(o, "baseline", r->spc[c].base);
	if (graded)
		cJSON_AddBoolToObject(o, "graded", 1);
	if (r->nsp > 1) {
		cJSON *alt = cJSON_AddArrayToObject(o, "alternatives");

		for (i = 0; alt && i < r->nsp; i++) {
			cJSON *a;

			if (i == c || !(a = cJSON_CreateObject()))
				continue;
			cJSON_AddStringToObject(a, "metric", r->spc[i].metric);
			cJSON_AddNumberToObject(a, "value", r->spc[i].v);
			if (*r->spc[i].base)
				cJSON_AddStringToObject(a, "baseline",
							r->spc[i].base);
			cJSON_AddItemToArray(alt, a);
		}
	}
	if (*why)
		cJSON_AddStringToObject(o, "choice", why);
}

static int has_num(const cJSON *o, const char *k)
{
	return cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, k));
}

int kt_bench_repeats(const cJSON *arr, const cJSON *o)
{
	const cJSON *p, *pat = cJSON_GetObjectItemCaseSensitive(o, "pattern");
	int figs = has_num(o, "time_ms") + has_num(o, "speedup") +
		   has_num(o, "ref_time_ms") + has_num(o, "tflops") +
		   has_num(o, "gbps");

	if (!cJSON_IsString(pat) || (strcmp(pat->valuestring, "json") &&
				     figs < 2))
		return 0;
	cJSON_ArrayForEach(p, arr)
		if (cJSON_Compare(p, o, 1))
			return 1;
	return 0;
}

/* ---- baselines and competitors ------------------------------------------ */
/*
 * The baseline or competitor a result times, or NULL when it is the
 * agent's.  A result with a time and no speedup or reference time whose
 * scenario (the headings over it, its own label, the name fields of its
 * JSON) names one ("CPU BENCHMARKS", "COMPETITOR BENCHMARKS / cublas",
 * "method=cublas_gemm", "CPU Benchmark") times that code, not the
 * agent's.  Text names it as a whole word (bp_baseline_word: the
 * candidate's "rmsnorm_cpu" or "eager_fallback" is no baseline); a JSON
 * value at a word's edges, since a harness names its own competitors
 * that way (issue 15: vsla_cuda_dev raw lines 308 and
 * 520).  A segment that compares ("GPU vs CPU", "comparison with
 * cuBLAS") names both sides and says nothing; a result with a speedup or
 * a reference time is the agent's code measured against the baseline.
 */
static const char *timed_baseline(const struct res *r)
{
	static const char *const w[][2] = {
		{ "competitor", "competitor" }, { "cpu", "cpu" },
		{ "cublaslt", "cublas" }, { "cublas", "cublas" },
		{ "cudnn", "cudnn" }, { "cufft", "cufft" },
		{ "torch.compile", "torch.compile" },
		{ "inductor", "torch.compile" }, { "pytorch", "torch" },
		{ "torch", "torch" }, { "eager", "eager" },
		{ "reference", "reference" }, { "ref", "reference" },
		{ "baseline", "baseline" }, { NULL, NULL } };
	char low[256];
	const char *seg;
	int json = r->pattern && !strcmp(r->pattern, "json");

	if (isnan(r->t) || !isnan(r->ref) || r->nsp || !isnan(r->sp))
		return NULL;
	bp_lower(low, r->scen, strlen(r->scen), sizeof(low));
	for (seg = low; seg && *seg;) {
		const char *end = strstr(seg, " / ");
		size_t n = end ? (size_t)(end - seg) : strlen(seg);
		char one[256];

		memcpy(one, seg, n);
		one[n] = 0;
		seg = end ? end + 3 : NULL;
		if (strstr(one, " vs") || strstr(one, "versus") ||
		    strstr(one, "compar") || strstr(one, "against"))
			continue;
		for (int i = 0; w[i][0]; i++) {
			size_t k = strlen(w[i][0]);

			/* a text label or heading names it as a whole word
			 * ("cpu_offload_rmsnorm: 2.0 ms" is the candidate's);
			 * a JSON result's name fields are the harness's own
			 * names for what it timed ("method": "cublas_gemm") */
			if (!json) {
				if (bp_baseline_word(one, w[i][0]))
					return w[i][1];
				continue;
			}
			for (const char *p = strstr(one, w[i][0]); p;
			     p = strstr(p + 1, w[i][0]))
				if ((p == one || !isalnum((unsigned char)p[-1])) &&
				    !isalpha((unsigned char)p[k]))
					return w[i][1];
		}
	}
	return NULL;
}

/* Whether scenarios a and b differ only in their last " / " segment:
 * two results under one heading ("size1=1000 size2=1500 / CPU Benchmark",
 * "... / GPU Benchmark"). */
static int same_parent(const char *a, const char *b)
{
	const char *x = strrchr(a, '/'), *y = strrchr(b, '/');

	return x && y && x - a == y - b && !strncmp(a, b, (size_t)(x - a));
}

/* The keys of a JSON result that name the method measured (scen_keys of
 * benchpat_json.c): two results that differ only in one of them compare
 * two methods on one problem. */
static int method_key(const char *k, size_t n)
{
	static const char *const m[] = { "method", "impl", "implementation",
		"variant", "backend", "provider", NULL };

	for (int i = 0; m[i]; i++)
		if (strlen(m[i]) == n && !strncasecmp(k, m[i], n))
			return 1;
	return 0;
}

/* Where the scenarios a and b ("k=v k=v ...", a JSON result's name
 * fields) differ in exactly one token, and that token is a method key's
 * with the same key: the offset of its value in a (*bv: in b), else -1.
 * bench_comparison prints "benchmark=variable_shape_conv
 * method=vsla_automatic signal_size=128 kernel_size=16" and the same with
 * method=manual_padding. */
static long method_diff(const char *a, const char *b, size_t *bv)
{
	long at = -1;
	size_t i = 0, j = 0;

	for (;;) {
		size_t ea = i, eb = j;

		while (a[ea] && a[ea] != ' ')
			ea++;
		while (b[eb] && b[eb] != ' ')
			eb++;
		if (ea - i != eb - j || strncmp(a + i, b + j, ea - i)) {
			const char *qa = memchr(a + i, '=', ea - i);
			const char *qb = memchr(b + j, '=', eb - j);

			if (at >= 0 || !qa || !qb || qa - (a + i) != qb - (b + j) ||
			    strncmp(a + i, b + j, (size_t)(qa - (a + i))) ||
			    !method_key(a + i, (size_t)(qa - (a + i))))
				return -1;
			at = qa + 1 - a;
			*bv = (size_t)(qb + 1 - b);
		}
		if (!a[ea] || !b[eb])
			return a[ea] || b[eb] ? -1 : at;
		i = ea + 1;
		j = eb + 1;
	}
}

/* The baseline that a method's name (lower case, up to the next space)
 * calls itself when it is compared with another method: the hand-written
 * or naive way the measured method replaces ("manual_padding" beside
 * "vsla_automatic"), NULL when it names none.  Only in such a pair: alone
 * a "naive" method may be the agent's own first attempt. */
static const char *compared_baseline(const char *v)
{
	static const char *const w[] = { "manual", "naive", "unoptimized",
		NULL };
	size_t n = strcspn(v, " ");

	for (int i = 0; w[i]; i++) {
		size_t k = strlen(w[i]);

		for (const char *p = v; p + k <= v + n; p++)
			if (!strncasecmp(p, w[i], k) &&
			    (p == v || !isalnum((unsigned char)p[-1])) &&
			    (p + k == v + n || !isalpha((unsigned char)p[k])))
				return w[i];
	}
	return NULL;
}

/* Marks the results that time a baseline or competitor (timed_baseline):
 * they are no results of the agent's code and are not written.  One
 * followed directly by the agent's result under the same heading, which
 * has no reference time of its own, gives it one (the model's place for
 * a baseline's time: ref_time_ms, FORMAT.md section 14): "CPU Benchmark:
 * 11.621 us" then "GPU Benchmark: 4.724 us, Speedup: 2.46x".  Of two
 * adjacent results that differ only in their method (method_diff), one
 * whose method names a baseline and the other's not is that baseline,
 * above or below the agent's: bench_comparison's manual_padding rows
 * (vsla_cuda_dev raw line 201). */
void bp_mark_baselines(struct rs *s)
{
	for (size_t k = 0; k < s->n; k++)
		s->r[k].timed = timed_baseline(&s->r[k]);
	for (size_t k = 0; k + 1 < s->n; k++) {
		struct res *x = &s->r[k], *y = &s->r[k + 1];
		size_t yv = 0;
		long xv;
		const char *bx, *by;

		if (x->timed || y->timed || x->nsp || y->nsp ||
		    !(x->t > 0) || !(y->t > 0) || !isnan(x->ref) || !isnan(y->ref) ||
		    (xv = method_diff(x->scen, y->scen, &yv)) < 0)
			continue;
		bx = compared_baseline(x->scen + xv);
		by = compared_baseline(y->scen + yv);
		if (bx && !by) {
			x->timed = bx;
			y->ref = x->t;
			y->refname = bx;
		} else if (by && !bx) {
			y->timed = by;
			x->ref = y->t;
			x->refname = by;
		}
	}
	for (size_t k = 0; k + 1 < s->n; k++) {
		struct res *b = &s->r[k], *a = &s->r[k + 1];

		if (b->timed && !a->timed && isnan(a->ref) && !isnan(a->t) &&
		    b->t > 0 && same_parent(b->scen, a->scen)) {
			a->ref = b->t;
			a->refname = b->timed;
		}
	}
}

