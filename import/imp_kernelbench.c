/*
 * imp_kernelbench.c - KernelBench evaluation results and baseline timings.
 *
 * Source: ScalingIntelligence/KernelBench (scripts/eval_from_generations.py
 * writes runs/<run_name>/eval_results.json; results/timing/<hw>/
 * baseline_time_torch.json holds eager PyTorch timings; PR #67 adds
 * best_k_kernels_level*.json); our notes in ../shared/research/formats.md
 * section 7b.
 *
 * Results: {"<problem_id>": [ {problem_id, sample_id, compiled, correctness,
 * metadata{hardware, device, correctness_trials, compilation_error?,
 * runtime_error?, max_difference?, profiler_info?}, runtime, runtime_stats
 * {mean, std, min, max, num_trials, hardware, device}, run_name?} ]}; the
 * per-problem value may also be an object keyed by sample id.  Some files
 * stringify every value ("True", "9.35", "{'mean': 9.35, ...}" as Python
 * repr): numbers, booleans and repr dicts are all accepted.
 *
 * Units: runtime is documented "in us" in the code but the values and the
 * baselines are milliseconds (a 4096^2 fp32 matmul on an H100 = 2.66), so
 * they are stored as ms (formats.md 7b).  runtime -1 means "not measured":
 * time_ms null.
 *
 * One run per results file, identity "kernelbench:<sha256 of the file>",
 * with ":<baseline sha256>" appended when a baseline file is found beside it
 * (a baseline_time*.json anywhere in the same input root: the folder or
 * archive given, for a plain file its folder; so a results file gets the
 * same run and events from its folder, an archive of it or its own path;
 * stdin has no folder: no baseline then, and a note says so): then ref_time_ms is the baseline mean of the same level and
 * problem (matched by the "<id>_" prefix of the baseline's file name key)
 * and speedup = ref_time_ms / time_ms, baseline "eager" (or "torch.compile"
 * for a baseline_time_torch_compile_* file); metric "time" and source
 * "kernelbench eval" always; the baseline's hardware is kept in
 * extra.ref_hardware because the two files may come from different GPUs:
 * when both GPUs are known and differ there is no speedup (a time on an
 * RTX A6000 over one on an H100 says nothing of the code) and flags holds
 * "ref_other_hardware" (FORMAT.md 11.4).
 * Per entry: an edit of the kernel source when the entry or a sibling
 * level_<L>_problem_<P>_sample_<S>_kernel.py has it (after a note naming
 * the sample), a compile event (exit_code 1) when compiled is false, and a
 * bench event (correct = correctness).
 *
 * A baseline file imported on its own is a run too ("kernelbench:baseline:
 * <sha256>"): one bench event per problem with the eager PyTorch time
 * (candidate "torch_eager", correct null, status "reference": timings of
 * the reference, which the analyzers read no series from).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "impx.h"
#include "jsonstrict.h"

#define FMT "kernelbench"

/* ---- detect ---------------------------------------------------------------- */

static int is_baseline_doc(const kt_file *f)
{
	return kt_impx_has(f, 256, "\"level") &&
		kt_impx_has(f, 2048, ".py\"") &&
		kt_impx_has(f, 2048, "\"mean\"");
}

static int detect(const kt_file *f)
{
	const char *p = (const char *)f->data, *e = p + f->len;

	while (p < e && isspace((unsigned char)*p))
		p++;
	if (p >= e || *p != '{')
		return 0;
	if ((kt_impx_has(f, 8192, "\"compiled\"") &&
	     kt_impx_has(f, 8192, "\"correctness\"")) ||
	    (kt_impx_has(f, 8192, "\"sample_id\"") &&
	     kt_impx_has(f, 8192, "\"runtime\"")))
		return 85;
	if (is_baseline_doc(f))
		return 80;
	return 0;
}

/* ---- helpers ------------------------------------------------------------------ */

/* An object member that may be a Python-repr string: returns a borrowed
 * object, or a parsed one stored in *tmp (caller frees).  NULL when there
 * is none; *rc KT_ENOMEM when its parse ran out of memory, else 0. */
static const cJSON *obj_of(const cJSON *o, const char *key, cJSON **tmp,
			   int *rc)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	*tmp = NULL;
	*rc = 0;
	if (cJSON_IsObject(v))
		return v;
	if (cJSON_IsString(v)) {
		*tmp = kt_impx_parse_lenient(v->valuestring, rc);
		if (*rc != KT_ENOMEM)
			*rc = 0;
		if (cJSON_IsObject(*tmp))
			return *tmp;
		cJSON_Delete(*tmp);
		*tmp = NULL;
	}
	return NULL;
}

/* "level3" / "level_3" in s: 3; -1 when absent */
static int level_in(const char *s)
{
	const char *p;

	for (p = s; p && (p = strstr(p, "level")); p++) {
		const char *q = p + 5;

		if (*q == '_')
			q++;
		if (isdigit((unsigned char)*q))
			return atoi(q);
	}
	return -1;
}

static int natcmp(const char *x, const char *y)
{
	while (*x && *y) {
		if (isdigit((unsigned char)*x) && isdigit((unsigned char)*y)) {
			char *ex, *ey;
			unsigned long long u = strtoull(x, &ex, 10);
			unsigned long long v = strtoull(y, &ey, 10);

			if (u != v)
				return u < v ? -1 : 1;
			x = ex;
			y = ey;
		} else if (*x != *y) {
			return (unsigned char)*x - (unsigned char)*y;
		} else {
			x++, y++;
		}
	}
	return (unsigned char)*x - (unsigned char)*y;
}

static int cmp_items(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;

	return natcmp(x->string ? x->string : "", y->string ? y->string : "");
}

/* Members of an object in natural key order (borrowed pointers). */
static const cJSON **sorted(const cJSON *o, size_t *n)
{
	const cJSON **v, *it;
	size_t k = 0;

	*n = (size_t)cJSON_GetArraySize(o);
	if (!(v = calloc(*n + 1, sizeof(*v))))
		return NULL;
	cJSON_ArrayForEach(it, o)
		v[k++] = it;
	if (k > 1)
		qsort(v, k, sizeof(*v), cmp_items);
	return v;
}

/* ---- baseline ------------------------------------------------------------------ */

static int baseline_stats(cJSON *b, const cJSON *st)
{
	double v;
	cJSON *fp = NULL;

	/* FORMAT.md section 2: times >= 0, n a whole count (store/event_model.h
	 * refuses others); KernelBench writes -1 for no time */
	if (kt_impx_num(st, "mean", &v) && v >= 0)
		cJSON_AddNumberToObject(b, "time_ms", v);
	else
		cJSON_AddNullToObject(b, "time_ms");
	if (kt_impx_num(st, "min", &v) && v >= 0)
		cJSON_AddNumberToObject(b, "min_ms", v);
	if (kt_impx_num(st, "max", &v) && v >= 0)
		cJSON_AddNumberToObject(b, "max_ms", v);
	if (kt_impx_num(st, "num_trials", &v))
		kt_imp_add_count(b, "n", v);
	if (kt_json_str(st, "hardware") || kt_json_str(st, "device")) {
		fp = cJSON_AddObjectToObject(b, "fingerprint");
		if (kt_json_str(st, "hardware"))
			cJSON_AddStringToObject(fp, "hardware",
						kt_json_str(st, "hardware"));
		if (kt_json_str(st, "device"))
			cJSON_AddStringToObject(fp, "device",
						kt_json_str(st, "device"));
	}
	return 0;
}

static int import_baseline(kt_imp *imp, const kt_file *f, cJSON *doc)
{
	const cJSON **lv = NULL;
	size_t nl = 0;
	char *ident = NULL, *name = NULL;
	const char *b = kt_impx_base(f->rel ? f->rel : f->path);
	size_t bl = strlen(b);
	cJSON *meta;
	int rc;

	if (asprintf(&ident, "%s:baseline:%s", FMT, f->sha_hex) < 0)
		return KT_ENOMEM;
	name = strndup(b, bl > 5 && !strcmp(b + bl - 5, ".json") ? bl - 5 : bl);
	meta = cJSON_CreateObject();
	cJSON_AddStringToObject(meta, "source", FMT);
	cJSON_AddStringToObject(cJSON_AddObjectToObject(meta, "extra"), "kind",
				"baseline");
	if ((rc = kt_imp_run_begin(imp, ident, name ? name : FMT, FMT, meta)))
		goto out;
	if (!(lv = sorted(doc, &nl))) {
		rc = KT_ENOMEM;
		goto end;
	}
	for (size_t i = 0; i < nl && !rc; i++) {
		const cJSON **pv;
		size_t np;

		if (!cJSON_IsObject(lv[i])) {
			kt_imp_warn(imp, f, 0, "baseline level %s is not an "
				    "object; skipped", lv[i]->string);
			continue;
		}
		if (!(pv = sorted(lv[i], &np))) {
			rc = KT_ENOMEM;
			break;
		}
		for (size_t j = 0; j < np && !rc; j++) {
			cJSON *tmp = NULL, *p;
			const cJSON *st;
			char wl[512];
			size_t kl = strlen(pv[j]->string);

			st = cJSON_IsObject(pv[j]) ? pv[j] :
				obj_of(lv[i], pv[j]->string, &tmp, &rc);
			if (rc)
				break;
			if (!st) {
				kt_imp_warn(imp, f, 0, "baseline %s/%s has no "
					    "timings; skipped", lv[i]->string,
					    pv[j]->string);
				continue;
			}
			if (!(p = cJSON_CreateObject())) {
				cJSON_Delete(tmp);
				rc = KT_ENOMEM;
				break;
			}
			snprintf(wl, sizeof(wl), "%s/%.*s", lv[i]->string,
				 (int)(kl > 3 && !strcmp(pv[j]->string + kl - 3,
							 ".py") ? kl - 3 : kl),
				 pv[j]->string);
			cJSON_AddStringToObject(p, "workload", wl);
			cJSON_AddStringToObject(p, "scenario", wl);
			cJSON_AddStringToObject(p, "candidate", "torch_eager");
			cJSON_AddStringToObject(p, "reference", "torch_eager");
			cJSON_AddStringToObject(p, "metric", "time");
			cJSON_AddStringToObject(p, "source", "kernelbench baseline");
			/* eager PyTorch's own time, the denominator of every
			 * speedup: no attempt of an agent's (FORMAT.md
			 * section 14 "Reference timings") */
			cJSON_AddStringToObject(p, "status", "reference");
			baseline_stats(p, st);
			cJSON_AddNullToObject(p, "correct");
			{
				double sd;

				if (kt_impx_num(st, "std", &sd))
					cJSON_AddNumberToObject(
						cJSON_AddObjectToObject(p,
							"extra"), "std_ms", sd);
			}
			cJSON_Delete(tmp);
			rc = kt_impx_emit(imp, KT_KIND_BENCH, 0, KT_TS_UNKNOWN,
					  "harness", p, f, 0, 0, 0, NULL);
		}
		free(pv);
	}
end:
	rc = kt_imp_run_finish(imp, rc);
out:
	free(lv);
	free(ident);
	free(name);
	return rc;
}

/* ---- finding the baseline beside a results file ------------------------------- */

struct bscan {
	char **rel;
	size_t n;
};

static int on_file(const char *rel, void *arg)
{
	struct bscan *b = arg;
	const char *base = kt_impx_base(rel);
	size_t n = strlen(base);
	char **nv;

	if (strncmp(base, "baseline", 8) || n < 5 ||
	    strcmp(base + n - 5, ".json"))
		return 0;
	if (!(nv = realloc(b->rel, (b->n + 1) * sizeof(*nv))))
		return KT_ENOMEM;
	b->rel = nv;
	return (nv[b->n++] = strdup(rel)) ? 0 : KT_ENOMEM;
}

/* First hardware string of the results (for picking a baseline). */
static const char *results_hw(const cJSON *doc)
{
	const cJSON *pr, *e;

	cJSON_ArrayForEach(pr, doc) {
		cJSON_ArrayForEach(e, pr) {
			const cJSON *m = cJSON_GetObjectItemCaseSensitive(e,
								"metadata");
			const char *hw = kt_json_str(m, "hardware");

			if (!hw)
				hw = kt_json_str(cJSON_GetObjectItemCaseSensitive(
					e, "runtime_stats"), "hardware");
			if (hw)
				return hw;
		}
	}
	return NULL;
}

static const char *baseline_hw(const cJSON *b)
{
	const cJSON *l, *p;

	cJSON_ArrayForEach(l, b)
		cJSON_ArrayForEach(p, l)
			if (kt_json_str(p, "hardware"))
				return kt_json_str(p, "hardware");
	return NULL;
}

/* Load the baseline to join: the one on the same hardware when several
 * are there, else the first in path order.  *bf gets its file. */
static cJSON *find_baseline(kt_imp *imp, const cJSON *doc,
			    const kt_file **bf)
{
	struct bscan sc = { NULL, 0 };
	const char *hw = results_hw(doc);
	cJSON *best = NULL;

	*bf = NULL;
	if (kt_imp_list(imp, "", on_file, &sc) == 0) {
		for (size_t i = 0; i < sc.n; i++) {
			const kt_file *f;
			cJSON *b;
			int rc = 0;

			if (kt_imp_open(imp, sc.rel[i], &f) != 0 ||
			    !is_baseline_doc(f) ||
			    !(b = kt_json_parse((const char *)f->data, f->len,
						KT_JSON_BOM | KT_JSON_NONUL,
						&rc))) {
				if (rc == KT_ENOMEM)
					kt_imp_fail(imp, rc);
				continue;
			}
			if (!best || (hw && baseline_hw(b) &&
				      !strcmp(hw, baseline_hw(b)) &&
				      (!baseline_hw(best) ||
				       strcmp(hw, baseline_hw(best))))) {
				cJSON_Delete(best);
				best = b;
				*bf = f;
			} else {
				cJSON_Delete(b);
			}
		}
	}
	for (size_t i = 0; i < sc.n; i++)
		free(sc.rel[i]);
	free(sc.rel);
	return best;
}

/* The baseline timings of problem `pid` at level `lv`, and its file key. */
static const cJSON *baseline_of(const cJSON *b, int lv, const char *pid,
				const char **key)
{
	char lk[32];
	const cJSON *l, *p;
	size_t n = strlen(pid);

	snprintf(lk, sizeof(lk), "level%d", lv);
	l = cJSON_GetObjectItemCaseSensitive(b, lk);
	if (!l) {
		snprintf(lk, sizeof(lk), "level_%d", lv);
		l = cJSON_GetObjectItemCaseSensitive(b, lk);
	}
	cJSON_ArrayForEach(p, l)
		if (p->string && !strncmp(p->string, pid, n) &&
		    p->string[n] == '_') {
			*key = p->string;
			return p;
		}
	return NULL;
}

/* ---- results -------------------------------------------------------------------- */

struct res {
	kt_imp *imp;
	const kt_file *f;
	const cJSON *base;	/* baseline document or NULL */
	const char *base_of;	/* what it timed: "eager", "torch.compile" */
	int file_level;
	char *dir;		/* rel folder of the results file */
};

static const char *const src_keys[] = {
	"kernel_code", "kernel", "kernel_src", "custom_kernel",
	"generated_kernel", "code", NULL
};

struct kscan {
	const char *suffix;	/* "_problem_<P>_sample_<S>_kernel.py" */
	size_t dlen;		/* folder part of rel to skip */
	int level;
};

static int on_kernel_file(const char *rel, void *arg)
{
	struct kscan *k = arg;
	const char *b = rel + k->dlen;
	size_t n = strlen(b), sl = strlen(k->suffix);
	char *end;
	long lv;

	if (strchr(b, '/') || strncmp(b, "level_", 6) || n <= sl ||
	    strcmp(b + n - sl, k->suffix))
		return 0;
	lv = strtol(b + 6, &end, 10);
	if (end != b + n - sl || lv < 0 || lv > 1000)
		return 0;
	k->level = (int)lv;
	return 1;
}

/* eval_results.json does not say its level: the generated kernel files
 * beside it do (level_<L>_problem_<P>_sample_<S>_kernel.py). */
static int level_from_files(struct res *r, const char *pid, const char *sid)
{
	char suffix[256];
	struct kscan k = { suffix, strlen(r->dir), -1 };

	snprintf(suffix, sizeof(suffix), "_problem_%s_sample_%s_kernel.py",
		 pid, sid);
	kt_imp_list(r->imp, r->dir, on_kernel_file, &k);
	return k.level;
}

static int entry(struct res *r, const char *pid, const cJSON *e, size_t idx)
{
	cJSON *mtmp = NULL, *stmp = NULL, *ptmp = NULL, *p, *x;
	const cJSON *meta, *st;
	const char *run = kt_json_str(e, "run_name");
	const char *src = NULL, *hw, *bkey = NULL;
	char sid[64], cand[256], wl[256], *path = NULL, *kfile = NULL;
	const kt_file *kf = NULL;
	int lv, compiled, correct, other_hw = 0, rc = 0;
	uint64_t seq = 0;
	double v, rt = -1;

	if (cJSON_IsString(e)) {
		/* a whole entry as Python repr */
		if (!(ptmp = kt_impx_pylit(e->valuestring,
					   strlen(e->valuestring))) ||
		    !cJSON_IsObject(ptmp)) {
			cJSON_Delete(ptmp);
			kt_imp_warn(r->imp, r->f, 0, "problem %s entry %zu is "
				    "not an object; skipped", pid, idx);
			return 0;
		}
		e = ptmp;
		run = kt_json_str(e, "run_name");
	}
	if (!cJSON_IsObject(e)) {
		kt_imp_warn(r->imp, r->f, 0, "problem %s entry %zu is not an "
			    "object; skipped", pid, idx);
		return 0;
	}
	meta = obj_of(e, "metadata", &mtmp, &rc);
	if (!rc)
		st = obj_of(e, "runtime_stats", &stmp, &rc);
	if (rc) {
		cJSON_Delete(mtmp);
		cJSON_Delete(ptmp);
		return rc;
	}
	if (kt_impx_num(e, "sample_id", &v))
		snprintf(sid, sizeof(sid), "%.17g", v);
	else
		snprintf(sid, sizeof(sid), "%zu", idx);
	lv = kt_impx_num(e, "level", &v) ? (int)v : level_in(run);
	if (lv < 0)
		lv = r->file_level;
	if (lv < 0)
		lv = level_from_files(r, pid, sid);
	snprintf(cand, sizeof(cand), "%s%ssample_%s", run ? run : "",
		 run ? "/" : "", sid);
	/* kernel source: in the entry, or KernelBench's generated file */
	for (const char *const *k = src_keys; *k && !src; k++)
		src = kt_json_str(e, *k);
	if (!src && lv >= 0 &&
	    asprintf(&kfile, "%slevel_%d_problem_%s_sample_%s_kernel.py",
		     r->dir, lv, pid, sid) >= 0 &&
	    kt_imp_open(r->imp, kfile, &kf) == 0) {
		src = (const char *)kf->data;
		kt_imp_claim(r->imp, kfile);
	}
	if (src) {
		cJSON *n = cJSON_CreateObject();
		char t[300];

		snprintf(t, sizeof(t), "kernel for problem %s, %s", pid, cand);
		cJSON_AddStringToObject(n, "text", t);
		if ((rc = kt_impx_emit(r->imp, KT_KIND_NOTE, 0, KT_TS_UNKNOWN,
				       "agent", n, r->f, 0, 0, 0, &seq)))
			goto out;
		if (asprintf(&path, "%s%slevel_%d_problem_%s_sample_%s_kernel.py",
			     run ? run : "", run ? "/" : "", lv < 0 ? 0 : lv,
			     pid, sid) < 0) {
			path = NULL;
			rc = KT_ENOMEM;
			goto out;
		}
		if ((rc = kt_ws_write(r->imp, path, src, strlen(src), seq,
				      "kernelbench")))
			goto out;
	}
	compiled = kt_impx_bool(e, "compiled");
	correct = kt_impx_bool(e, "correctness");
	if (compiled == 0) {
		const char *err = kt_json_str(meta, "compilation_error");

		if (!(p = cJSON_CreateObject())) {
			rc = KT_ENOMEM;
			goto out;
		}
		cJSON_AddStringToObject(p, "command", "torch.utils.cpp_extension."
					"load_inline (KernelBench eval)");
		cJSON_AddNumberToObject(p, "exit_code", 1);
		x = cJSON_AddObjectToObject(p, "extra");
		cJSON_AddStringToObject(x, "candidate", cand);
		cJSON_AddBoolToObject(x, "exit_code_inferred", 1);
		if (err && (rc = kt_impx_text(r->imp, x, "compilation_error",
					      "compilation_error_blob", err,
					      strlen(err))))
			goto out;
		if ((rc = kt_impx_emit(r->imp, KT_KIND_COMPILE, seq,
				       KT_TS_UNKNOWN, "harness", p, r->f, 0, 0,
				       0, &seq)))
			goto out;
	}
	if (!(p = cJSON_CreateObject())) {
		rc = KT_ENOMEM;
		goto out;
	}
	if (lv >= 0)
		snprintf(wl, sizeof(wl), "level%d/problem_%s", lv, pid);
	else
		snprintf(wl, sizeof(wl), "problem_%s", pid);
	if (r->base && lv >= 0)
		baseline_of(r->base, lv, pid, &bkey);
	cJSON_AddStringToObject(p, "workload", wl);
	if (bkey) {
		char sc[300];
		size_t kl = strlen(bkey);

		snprintf(sc, sizeof(sc), "level%d/%.*s", lv,
			 (int)(kl > 3 && !strcmp(bkey + kl - 3, ".py") ?
			       kl - 3 : kl), bkey);
		cJSON_AddStringToObject(p, "scenario", sc);
	} else {
		cJSON_AddStringToObject(p, "scenario", wl);
	}
	cJSON_AddStringToObject(p, "candidate", cand);
	/* the harness's runtime (ms), its speedup over the baseline file */
	cJSON_AddStringToObject(p, "metric", "time");
	cJSON_AddStringToObject(p, "source", "kernelbench eval");
	if (kt_impx_num(e, "runtime", &rt) && rt >= 0)
		cJSON_AddNumberToObject(p, "time_ms", rt);
	else if (st && kt_impx_num(st, "mean", &rt) && rt >= 0)
		cJSON_AddNumberToObject(p, "time_ms", rt);
	else {
		rt = -1;
		cJSON_AddNullToObject(p, "time_ms");
	}
	if (rt >= 0 && kt_impx_num(st, "min", &v) && v >= 0)
		cJSON_AddNumberToObject(p, "min_ms", v);
	if (rt >= 0 && kt_impx_num(st, "max", &v) && v >= 0)
		cJSON_AddNumberToObject(p, "max_ms", v);
	if (rt >= 0 && kt_impx_num(st, "num_trials", &v))
		kt_imp_add_count(p, "n", v);
	hw = kt_json_str(meta, "hardware");
	if (!hw)
		hw = kt_json_str(st, "hardware");
	if (bkey) {
		const cJSON *bs = baseline_of(r->base, lv, pid, &bkey);
		const char *rhw = kt_json_str(bs, "hardware");
		double ref;

		/* a time on one GPU over a time on another is no speedup of
		 * the code: both times stay, the ratio is left out and
		 * flags ["ref_other_hardware"] says why (FORMAT.md,
		 * KernelBench) */
		other_hw = hw && rhw && strcmp(hw, rhw);
		if (kt_impx_num(bs, "mean", &ref) && ref > 0) {
			cJSON_AddStringToObject(p, "baseline", r->base_of);
			cJSON_AddNumberToObject(p, "ref_time_ms", ref);
			/* > 0 (FORMAT.md section 2): a ratio that
			 * underflows is none */
			if (rt > 0 && ref / rt > 0 && !other_hw)
				cJSON_AddNumberToObject(p, "speedup", ref / rt);
		}
	}
	if (correct < 0)
		cJSON_AddNullToObject(p, "correct");
	else
		cJSON_AddBoolToObject(p, "correct", correct);
	{
		const cJSON *err = cJSON_GetObjectItemCaseSensitive(meta,
							"max_difference");

		if (err) {
			cJSON *o = cJSON_AddObjectToObject(p, "error");

			if (kt_impx_numv(err, &v) && v >= 0)
				cJSON_AddNumberToObject(o, "max_abs", v);
			else
				cJSON_AddItemToObject(o, "max_difference",
						      cJSON_Duplicate(err, 1));
		}
	}
	if (hw || kt_json_str(meta, "device")) {
		cJSON *fp = cJSON_AddObjectToObject(p, "fingerprint");

		if (hw)
			cJSON_AddStringToObject(fp, "hardware", hw);
		if (kt_json_str(meta, "device"))
			cJSON_AddStringToObject(fp, "device",
						kt_json_str(meta, "device"));
	}
	cJSON_AddStringToObject(p, "status", compiled == 0 ? "compile_error" :
				cJSON_GetObjectItemCaseSensitive(meta,
						"runtime_error") ?
				"runtime_error" : correct == 0 ? "incorrect" :
				correct == 1 ? "correct" : "unknown");
	if (other_hw) {
		cJSON *fl = cJSON_AddArrayToObject(p, "flags");

		cJSON_AddItemToArray(fl, cJSON_CreateString(
					     "ref_other_hardware"));
	}
	x = cJSON_AddObjectToObject(p, "extra");
	cJSON_AddStringToObject(x, "problem_id", pid);
	cJSON_AddStringToObject(x, "sample_id", sid);
	if (run)
		cJSON_AddStringToObject(x, "run_name", run);
	if (kt_impx_num(st, "std", &v))
		cJSON_AddNumberToObject(x, "std_ms", v);
	if (bkey) {
		const cJSON *bs = baseline_of(r->base, lv, pid, &bkey);

		if (kt_json_str(bs, "hardware"))
			cJSON_AddStringToObject(x, "ref_hardware",
						kt_json_str(bs, "hardware"));
	}
	for (const cJSON *it = meta ? meta->child : NULL; it; it = it->next)
		if (it->string && strcmp(it->string, "hardware") &&
		    strcmp(it->string, "device") &&
		    strcmp(it->string, "max_difference"))
			cJSON_AddItemToObject(x, it->string,
					      cJSON_Duplicate(it, 1));
	/* entry fields this importer does not read, as they are */
	for (const cJSON *it = e->child; it; it = it->next) {
		static const char *const known[] = {
			"problem_id", "sample_id", "compiled", "correctness",
			"metadata", "runtime", "runtime_stats", "run_name",
			"level", NULL
		};
		int k = !it->string;

		for (const char *const *n = known; *n && !k; n++)
			k = !strcmp(it->string, *n);
		for (const char *const *n = src_keys; *n && !k; n++)
			k = !strcmp(it->string, *n);
		if (!k && !cJSON_GetObjectItemCaseSensitive(x, it->string))
			cJSON_AddItemToObject(x, it->string,
					      cJSON_Duplicate(it, 1));
	}
	rc = kt_impx_emit(r->imp, KT_KIND_BENCH, seq, KT_TS_UNKNOWN, "harness",
			  p, r->f, 0, 0, 0, NULL);
out:
	cJSON_Delete(mtmp);
	cJSON_Delete(stmp);
	cJSON_Delete(ptmp);
	free(path);
	free(kfile);
	return rc;
}

static int import_results(kt_imp *imp, const kt_file *f, cJSON *doc)
{
	const char *rel = f->rel ? f->rel : "";
	const char *b = kt_impx_base(rel);
	const kt_file *bf = NULL;
	cJSON *base = find_baseline(imp, doc, &bf), *meta, *x;
	const cJSON **pv = NULL;
	size_t np = 0, bl = strlen(b);
	char *ident = NULL, *name = NULL;
	struct res r;
	int rc;

	memset(&r, 0, sizeof(r));
	r.imp = imp;
	r.f = f;
	r.base = base;
	/* KernelBench times its baselines eagerly (baseline_time_torch.json)
	 * or compiled (baseline_time_torch_compile_<backend>_<mode>.json) */
	r.base_of = bf && strstr(kt_impx_base(bf->rel ? bf->rel : bf->path ?
					      bf->path : ""), "compile") ?
		    "torch.compile" : "eager";
	r.file_level = level_in(b);
	if (!(r.dir = strndup(rel, (size_t)(b - rel)))) {
		rc = KT_ENOMEM;
		goto out;
	}
	if (asprintf(&ident, "%s:%s%s%s", FMT, f->sha_hex, bf ? ":" : "",
		     bf ? bf->sha_hex : "") < 0) {
		ident = NULL;
		rc = KT_ENOMEM;
		goto out;
	}
	/* runs/<run_name>/eval_results.json: the folder names the run */
	if (!strcmp(b, "eval_results.json") && b > rel + 1) {
		const char *d = b - 1;

		while (d > rel && d[-1] != '/')
			d--;
		name = strndup(d, (size_t)(b - 1 - d));
	} else {
		name = strndup(b, bl > 5 && !strcmp(b + bl - 5, ".json") ?
			       bl - 5 : bl);
	}
	meta = cJSON_CreateObject();
	cJSON_AddStringToObject(meta, "source", FMT);
	x = cJSON_AddObjectToObject(meta, "extra");
	if (bf)
		cJSON_AddStringToObject(x, "baseline", bf->rel);
	if (r.file_level >= 0)
		cJSON_AddNumberToObject(x, "level", r.file_level);
	if ((rc = kt_imp_run_begin(imp, ident, name ? name : FMT, FMT, meta)))
		goto out;
	/* stdin has no folder: said, since the speedups are missing then */
	if (!bf && f->root && !strcmp(f->root, "-") && !f->member)
		kt_imp_note(imp, f, "KernelBench results on stdin have no "
			    "baseline_time*.json beside them: no ref_time_ms "
			    "or speedup (import the file by its path, or pipe "
			    "a tar of its folder: tar -c -C DIR . | ktraj "
			    "import -)");
	if (!(pv = sorted(doc, &np))) {
		rc = KT_ENOMEM;
		goto end;
	}
	for (size_t i = 0; i < np && !rc; i++) {
		const cJSON *e, *list = pv[i];
		cJSON *tmp = NULL;
		size_t k = 0;

		if (cJSON_IsString(list)) {
			/* a stringified list of entries */
			tmp = kt_impx_pylit(list->valuestring,
					    strlen(list->valuestring));
			list = tmp;
		}
		if (cJSON_IsObject(list) &&
		    (cJSON_GetObjectItemCaseSensitive(list, "compiled") ||
		     cJSON_GetObjectItemCaseSensitive(list, "runtime"))) {
			rc = entry(&r, pv[i]->string, list, 0);
		} else if (cJSON_IsArray(list) || cJSON_IsObject(list)) {
			cJSON_ArrayForEach(e, list)
				if ((rc = entry(&r, pv[i]->string, e, k++)))
					break;
		} else {
			kt_imp_warn(imp, f, 0, "problem %s: no result list; "
				    "skipped", pv[i]->string);
		}
		cJSON_Delete(tmp);
	}
end:
	rc = kt_imp_run_finish(imp, rc);
out:
	free(pv);
	cJSON_Delete(base);
	free(r.dir);
	free(ident);
	free(name);
	return rc;
}

static int import(kt_imp *imp, const kt_file *f)
{
	cJSON *doc = kt_impx_parse(imp, f);
	int rc;

	if (!doc)
		return KT_EPARSE;
	if (!cJSON_IsObject(doc)) {
		kt_imp_warn(imp, f, 0, "not a KernelBench results or baseline "
			    "object");
		rc = KT_EPARSE;
	} else if (is_baseline_doc(f) &&
		   !kt_impx_has(f, 8192, "\"sample_id\"")) {
		rc = import_baseline(imp, f, doc);
	} else {
		rc = import_results(imp, f, doc);
	}
	cJSON_Delete(doc);
	return rc;
}

const kt_importer kt_importer_kernelbench = {
	.name = FMT,
	.summary = "KernelBench eval results (with a baseline_time file beside "
		   "them) and baseline timings",
	.detect = detect,
	.import = import,
};
