/*
 * imp_kernelagent.c - meta-pytorch KernelAgent artifacts.
 *
 * Source: github.com/meta-pytorch/KernelAgent (opt_manager beam search and
 * worker loop); samples from kaiming-cheng/kernelagent-optimization-artifacts
 * and Laurawly/kernelagent-artifacts; our notes in
 * ../shared/research/formats.md section 7c.
 *
 * 1. Optimization traces: a folder of round_<N>/ directories, each with
 *      input_ncu_metrics.json      NCU metrics of the kernel going in
 *      bottleneck_prompt.txt       prompt the framework built
 *      bottleneck_response.txt     the model's bottleneck analysis
 *      strategy.json               the analysis as JSON
 *      opt_prompt.txt, opt_reply.txt  optimization prompt and the reply
 *                                  (new Triton kernel in a ```python fence)
 *      kernel.py (optional)        the round's kernel as a file
 *      benchmark_results.json      {kernels:{kernel_round_1:{time_ms,path}}}
 *      optimized_ncu_metrics.json  NCU metrics of the new kernel
 *      reflexion.txt               the model's judgement of the round
 *    One run per trace folder, whichever of its files the driver reaches
 *    first and whether the folder itself or any parent was named: every
 *    file of every round is read through kt_imp_open and claimed.  The run
 *    identity is "kernelagent:opt_trace:<sha256 of the first round's first
 *    file>" (the round-1 prompt embeds the problem and starting kernel), so
 *    it does not depend on where the folder lies; a trace that gains rounds
 *    keeps its run and gets the new events appended.  A trace whose
 *    imported rounds changed since is warned about (kt_imp_check_reemit)
 *    and its run left as it was.
 *    Per round, in pipeline order: profile (input NCU), message
 *    (bottleneck prompt: role user, actor system, human false - the
 *    framework wrote it), message (bottleneck response, actor agent), note
 *    (strategy), message (opt prompt), message (opt reply), edit of
 *    "kernel.py" (kernel.py when present, else the reply's code fence),
 *    bench (time_ms from benchmark_results.json, correct null: no file
 *    of the round records a test verdict (see emit_bench); workload the
 *    problem, metric "time", baseline "eager" with ref_time_ms from the
 *    prompt's "PyTorch Eager baseline: X ms", source
 *    "benchmark_results.json"), profile
 *    (optimized NCU), message (reflexion).  There are no timestamps.
 *
 * 2. Worker results: {worker_id, success, kernel_code, rounds,
 *    history[{round, timestamp, success, kernel_code, stdout, stderr}]}.
 *    One run per file (identity from worker_id and the first kernel's
 *    hash); per attempt a note, an edit of kernel.py, and from the test
 *    output either a compile event (Triton/JIT compile errors, exit_code 1),
 *    or a bench event (correct = success; "NUMERICAL MISMATCH" gives
 *    error{max_abs,max_rel}; time_ms from kt_bench_parse when the output
 *    has timings, else null).  Timestamps are naive ISO, taken as UTC.
 */
#include <float.h>
#include <math.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "impx.h"

#define FMT "kernelagent"

/* the files of a round, in the order their events are emitted */
enum rfile {
	F_IN_NCU, F_BPROMPT, F_BRESP, F_STRATEGY, F_OPROMPT, F_OREPLY,
	F_KERNEL, F_BENCH, F_OUT_NCU, F_REFLEX, F_N
};

static const char *const rnames[F_N] = {
	"input_ncu_metrics.json", "bottleneck_prompt.txt",
	"bottleneck_response.txt", "strategy.json", "opt_prompt.txt",
	"opt_reply.txt", "kernel.py", "benchmark_results.json",
	"optimized_ncu_metrics.json", "reflexion.txt"
};

/* identity seed: the first of these that the first round has */
static const enum rfile seed_order[] = {
	F_OPROMPT, F_BPROMPT, F_IN_NCU, F_BENCH, F_OREPLY, F_STRATEGY,
	F_BRESP, F_OUT_NCU, F_REFLEX, F_KERNEL
};

static int rfile_of(const char *base)
{
	for (int i = 0; i < F_N; i++)
		if (!strcmp(base, rnames[i]))
			return i;
	return -1;
}

/* "…/round_12/x" -> 12 and *start = offset of "round_"; -1 when the path
 * has no round_<N>/ directory right above the file. */
static long round_dir(const char *rel, size_t *start)
{
	const char *b = kt_impx_base(rel), *p;
	char *end;
	long n;

	if (b == rel)
		return -1;
	for (p = b - 1; p > rel && p[-1] != '/'; p--)
		;
	if (strncmp(p, "round_", 6) || !isdigit((unsigned char)p[6]))
		return -1;
	n = strtol(p + 6, &end, 10);
	if (end != b - 1)
		return -1;
	if (start)
		*start = (size_t)(p - rel);
	return n;
}

/* The folder the input root stands for, resolved ("." -> its real path):
 * the root itself for a folder or archive, its directory for a plain file
 * (whose rel is just its name).  malloc'ed; NULL when unknown. */
static char *root_dir(const kt_file *f)
{
	const char *rel = f->rel ? f->rel : "";
	size_t n, rl = strlen(rel);
	char *dir, *real;

	if (!f->root || !*f->root || !(dir = strdup(f->root)))
		return NULL;
	n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		dir[--n] = 0;
	if (!strchr(rel, '/') && n >= rl && !strcmp(dir + n - rl, rel) &&
	    (n == rl || dir[n - rl - 1] == '/')) {
		dir[n -= rl] = 0;
		while (n > 1 && dir[n - 1] == '/')
			dir[--n] = 0;
		if (!n) {
			free(dir);
			dir = strdup(".");
		}
	}
	/* no file is read here: only the name of "." or ".." is wanted */
	if (dir && (real = realpath(dir, NULL))) {
		free(dir);
		dir = real;
	}
	return dir;
}

/* When a round folder itself (or a file in it) was named, rel is just the
 * file name and the round number is in the root path: N, or -1. */
static long root_round(const kt_file *f)
{
	char *dir, *probe = NULL;
	long r = -1;

	if (strchr(f->rel ? f->rel : "", '/') || !(dir = root_dir(f)))
		return -1;
	if (asprintf(&probe, "%s/x", dir) >= 0)
		r = round_dir(probe, NULL);
	free(probe);
	free(dir);
	return r;
}

/* ---- detect ------------------------------------------------------------------ */

static int detect(const kt_file *f)
{
	const char *rel = f->rel ? f->rel : "";
	int k = rfile_of(kt_impx_base(rel));
	int in_round;

	/* worker result */
	if (kt_impx_has(f, 1024, "\"worker_id\"") &&
	    kt_impx_has(f, f->len, "\"history\"") &&
	    kt_impx_has(f, 64, "{"))
		return 90;
	if (k < 0)
		return 0;
	/* only for a file of kernelagent's names: root_round resolves the
	 * root's real path, system calls every file of a large folder
	 * would pay */
	in_round = round_dir(rel, NULL) >= 0 || root_round(f) >= 0;
	switch (k) {
	case F_BENCH:
		return kt_impx_has(f, 4096, "\"kernels\"") &&
			kt_impx_has(f, 4096, "\"time_ms\"") ?
			(in_round ? 95 : 60) : 0;
	case F_IN_NCU:
	case F_OUT_NCU:
		return kt_impx_has(f, 256, "\"metrics\"") ?
			(in_round ? 90 : 50) : 0;
	default:
		/* text and strategy files mean something only in a round
		 * folder; the name is all there is to go by */
		return in_round && f->len > 0 ? 80 : 0;
	}
}

/* ---- shared bits ----------------------------------------------------------------- */

static int emit_msg(kt_imp *imp, const kt_file *f, const char *role,
		    const char *actor, long round, const char *what,
		    uint64_t parent, cJSON *extra, uint64_t *seq)
{
	cJSON *p = cJSON_CreateObject(), *x, *fl;
	char *t;
	size_t n;

	if (!p || !(t = kt_utf8_fix((const char *)f->data, f->len,
				    KT_UTF8_DROP_NUL, &n, NULL))) {
		cJSON_Delete(p);
		cJSON_Delete(extra);
		return KT_ENOMEM;
	}
	cJSON_AddStringToObject(p, "role", role);
	cJSON_AddBoolToObject(p, "human", 0);
	cJSON_AddStringToObject(p, "text", t);
	free(t);
	if (!strcmp(role, "user")) {
		fl = cJSON_AddArrayToObject(p, "flags");
		cJSON_AddItemToArray(fl, cJSON_CreateString("prompt"));
	}
	x = extra ? extra : cJSON_CreateObject();
	cJSON_AddItemToObject(p, "extra", x);
	cJSON_AddNumberToObject(x, "round", (double)round);
	cJSON_AddStringToObject(x, "file", what);
	return kt_impx_emit(imp, KT_KIND_MESSAGE, parent, KT_TS_UNKNOWN, actor,
			    p, f, 0, 0, f->len, seq);
}

/* The body of the first ``` fence (preferring one tagged json/python when
 * `lang` is given); malloc'ed, NULL when there is none. */
static char *fence(const char *text, size_t len, const char *lang)
{
	const char *p = text, *e = text + len;

	for (int pass = 0; pass < 2; pass++) {
		for (p = text; p < e;) {
			const char *o = memmem(p, (size_t)(e - p), "```", 3);
			const char *body, *c;

			if (!o)
				break;
			body = memchr(o, '\n', (size_t)(e - o));
			if (!body)
				break;
			body++;
			c = memmem(body, (size_t)(e - body), "\n```", 4);
			if (!c)
				c = e; /* unterminated: to the end */
			if (pass == 1 || !lang ||
			    ((size_t)(body - o) > strlen(lang) + 3 &&
			     !strncmp(o + 3, lang, strlen(lang))))
				return strndup(body, (size_t)(c - body) +
					       (c < e ? 1 : 0));
			p = c + (c < e ? 4 : 0);
		}
	}
	return NULL;
}

/* ---- optimization traces ---------------------------------------------------------- */

struct round {
	long n;
	char *rel[F_N];
	int present;
};

struct trace {
	kt_imp *imp;
	const char *prefix;
	size_t plen;
	struct round *r;
	size_t nr;
	char **other;		/* other files of round folders (claimed) */
	size_t nother;
};

static struct round *round_get(struct trace *t, long n)
{
	struct round *nr;

	for (size_t i = 0; i < t->nr; i++)
		if (t->r[i].n == n)
			return &t->r[i];
	if (!(nr = realloc(t->r, (t->nr + 1) * sizeof(*nr))))
		return NULL;
	t->r = nr;
	memset(&nr[t->nr], 0, sizeof(*nr));
	nr[t->nr].n = n;
	return &nr[t->nr++];
}

/* File kind k of round r (NULL: round_get ran out of memory) is at rel. */
static int round_file(struct round *r, int k, const char *rel)
{
	if (!r || (!r->rel[k] && !(r->rel[k] = strdup(rel))))
		return KT_ENOMEM;
	r->present |= 1 << k;
	return 0;
}

static int on_trace_file(const char *rel, void *arg)
{
	struct trace *t = arg;
	size_t start;
	long n = round_dir(rel, &start);
	int k;

	/* only round_<N>/<file> directly below the trace folder */
	if (n < 0 || start != t->plen)
		return 0;
	k = rfile_of(kt_impx_base(rel));
	if (k < 0) {
		char **no = realloc(t->other, (t->nother + 1) * sizeof(*no));

		if (!no)
			return KT_ENOMEM;
		t->other = no;
		return (no[t->nother++] = strdup(rel)) ? 0 : KT_ENOMEM;
	}
	return round_file(round_get(t, n), k, rel);
}

/* Files of a round folder given as the root: rel is the bare name. */
static int on_flat_file(const char *rel, void *arg)
{
	struct trace *t = arg;
	int k;

	if (strchr(rel, '/') || (k = rfile_of(rel)) < 0)
		return 0;
	return round_file(round_get(t, 0), k, rel);
}

static int by_n(const void *a, const void *b)
{
	const struct round *x = a, *y = b;

	return x->n < y->n ? -1 : x->n > y->n;
}

static const kt_file *open_rf(struct trace *t, const struct round *r, int k)
{
	const kt_file *f = NULL;

	if (!r->rel[k])
		return NULL;
	if (kt_imp_open(t->imp, r->rel[k], &f) != 0) {
		kt_imp_warn(t->imp, NULL, 0, "cannot open %s", r->rel[k]);
		return NULL;
	}
	return f;
}

static int emit_ncu(kt_imp *imp, const kt_file *f, long round,
		    const char *which, const char *src_hash)
{
	cJSON *j = kt_impx_parse(imp, f), *p, *x;
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "metrics");

	if (!j)
		return 0;
	if (!(p = cJSON_CreateObject())) {
		cJSON_Delete(j);
		return KT_ENOMEM;
	}
	cJSON_AddStringToObject(p, "tool", "ncu");
	cJSON_AddItemToObject(p, "metrics", m ? cJSON_Duplicate(m, 1) :
			      cJSON_CreateObject());
	if (src_hash)
		cJSON_AddStringToObject(p, "source_hash", src_hash);
	x = cJSON_AddObjectToObject(p, "extra");
	cJSON_AddNumberToObject(x, "round", (double)round);
	cJSON_AddStringToObject(x, "which", which);
	for (const cJSON *it = j->child; it; it = it->next)
		if (it->string && strcmp(it->string, "metrics"))
			cJSON_AddItemToObject(x, it->string,
					      cJSON_Duplicate(it, 1));
	cJSON_Delete(j);
	return kt_impx_emit(imp, KT_KIND_PROFILE, 0, KT_TS_UNKNOWN, "harness",
			    p, f, 0, 0, f->len, NULL);
}

/* "./opt_manager_logs/beam_search/workers/w2/r1/artifacts/..." -> "w2" */
static char *worker_of(const char *path)
{
	const char *w = path ? strstr(path, "/workers/") : NULL;
	size_t n;

	if (!w)
		return NULL;
	w += 9;
	n = strcspn(w, "/");
	return n ? strndup(w, n) : NULL;
}

/* The reference time the optimization prompt states ("PyTorch Eager
 * baseline: 2.0928 ms", KernelAgent's opt_manager prints the problem's
 * eager time into every round's prompt); NAN when it states none. */
static double eager_ms(const kt_file *f)
{
	static const char key[] = "PyTorch Eager baseline:";
	const char *d = f ? (const char *)f->data : NULL, *p;
	char num[32];
	size_t n = 0;
	double v;

	if (!d || !(p = memmem(d, f->len, key, sizeof(key) - 1)))
		return NAN;
	p += sizeof(key) - 1;
	while (p < d + f->len && *p == ' ')
		p++;
	while (p + n < d + f->len && n + 1 < sizeof(num) &&
	       (isdigit((unsigned char)p[n]) || p[n] == '.'))
		n++;
	memcpy(num, p, n);
	num[n] = 0;
	if (!n || p + n + 3 > d + f->len || memcmp(p + n, " ms", 3))
		return NAN;
	v = strtod(num, NULL);
	return v > 0 && v <= DBL_MAX ? v : NAN;
}

/* Each kernel of benchmark_results.json is one result of the series
 * (problem, size/dtype, time, eager): KernelAgent times every round's
 * kernel on the problem against the PyTorch eager reference, whose time
 * (ref_ms, NAN when the prompt gave none) the round's prompt states. */
static int emit_bench(kt_imp *imp, const kt_file *f, long round,
		      uint64_t parent, const char *src_hash, const char *name,
		      double ref_ms)
{
	cJSON *j = kt_impx_parse(imp, f);
	const cJSON *ks = cJSON_GetObjectItemCaseSensitive(j, "kernels"), *k;
	int rc = 0, nk = 0;

	if (!j)
		return 0;
	cJSON_ArrayForEach(k, ks) {
		cJSON *p = cJSON_CreateObject(), *x, *fp;
		const char *path = kt_json_str(k, "path");
		char *w = worker_of(path), cand[128];
		double v;

		if (!p) {
			free(w);
			rc = KT_ENOMEM;
			break;
		}
		nk++;
		/* the run name comes from the folder; payloads keep to the
		 * file contents so every store hashes them the same */
		(void)name;
		if (kt_json_str(j, "problem"))
			cJSON_AddStringToObject(p, "workload",
						kt_json_str(j, "problem"));
		if (kt_impx_num(j, "size", &v)) {
			char sc[96];

			snprintf(sc, sizeof(sc), "size=%.17g%s%s", v,
				 kt_json_str(j, "dtype") ? " dtype=" : "",
				 kt_json_str(j, "dtype") ?
				 kt_json_str(j, "dtype") : "");
			cJSON_AddStringToObject(p, "scenario", sc);
		}
		/* the kernel key is always kernel_round_1 (formats.md 7c):
		 * name the candidate by round and beam worker instead */
		snprintf(cand, sizeof(cand), "round_%ld%s%s", round,
			 w ? "/" : "", w ? w : "");
		cJSON_AddStringToObject(p, "candidate", cand);
		if (src_hash)
			cJSON_AddStringToObject(p, "source_hash", src_hash);
		cJSON_AddStringToObject(p, "metric", "time");
		cJSON_AddStringToObject(p, "baseline", "eager");
		cJSON_AddStringToObject(p, "source", rnames[F_BENCH]);
		if (!isnan(ref_ms))
			cJSON_AddNumberToObject(p, "ref_time_ms", ref_ms);
		/* FORMAT.md section 2: a time >= 0, n a whole count
		 * (store/event_model.h refuses others) */
		if (kt_impx_num(k, "time_ms", &v) && v >= 0)
			cJSON_AddNumberToObject(p, "time_ms", v);
		else
			cJSON_AddNullToObject(p, "time_ms");
		/* Correctness unknown (FORMAT.md section 2: null, "not
		 * checked"): KernelAgent's worker benchmarks a kernel only
		 * after its tests pass (RUN_TESTS -> BENCHMARK_NEW_KERNEL),
		 * but that is the pipeline's code path, not a record: no
		 * file of a round says the round's kernel was tested -
		 * benchmark_results.json has problem, size, device, dtype,
		 * warmup, repeat and time_ms/path; reflexion.txt's
		 * was_diagnosis_correct judges the bottleneck analysis;
		 * the "FAILED VERIFICATION" lines of opt_prompt.txt's
		 * attempt history name no round.  `--assume-correct` reads it as tested. */
		cJSON_AddNullToObject(p, "correct");
		if (kt_impx_num(j, "repeat", &v))
			kt_imp_add_count(p, "n", v);
		fp = cJSON_AddObjectToObject(p, "fingerprint");
		if (kt_json_str(j, "device"))
			cJSON_AddStringToObject(fp, "device",
						kt_json_str(j, "device"));
		if (kt_json_str(j, "dtype"))
			cJSON_AddStringToObject(fp, "dtype",
						kt_json_str(j, "dtype"));
		x = cJSON_AddObjectToObject(p, "extra");
		cJSON_AddNumberToObject(x, "round", (double)round);
		cJSON_AddStringToObject(x, "kernel", k->string ? k->string : "");
		if (w)
			cJSON_AddStringToObject(x, "worker", w);
		for (const cJSON *it = k->child; it; it = it->next)
			if (it->string && strcmp(it->string, "time_ms"))
				cJSON_AddItemToObject(x, it->string,
						      cJSON_Duplicate(it, 1));
		for (const cJSON *it = j->child; it; it = it->next)
			if (it->string && strcmp(it->string, "kernels"))
				cJSON_AddItemToObject(x, it->string,
						      cJSON_Duplicate(it, 1));
		free(w);
		if ((rc = kt_impx_emit(imp, KT_KIND_BENCH, parent,
				       KT_TS_UNKNOWN, "harness", p, f, 0, 0,
				       f->len, NULL)))
			break;
	}
	if (!nk && !rc)
		kt_imp_warn(imp, f, 0, "benchmark results without kernels");
	cJSON_Delete(j);
	return rc;
}

/* strategy.json: a list of bottlenecks {category, summary, reasoning, ...}
 * -> one note whose text lists "category: summary". */
static int emit_strategy(kt_imp *imp, const kt_file *f, long round,
			 uint64_t parent)
{
	cJSON *j = kt_impx_parse(imp, f), *p = cJSON_CreateObject(), *x;
	const cJSON *it, *list;
	struct kt_buf b = { 0 };
	char *t, *raw;
	int rc, any = 0;

	if (!p) {
		cJSON_Delete(j);
		return KT_ENOMEM;
	}
	list = cJSON_IsArray(j) ? j : NULL;
	cJSON_ArrayForEach(it, list) {
		const char *c = kt_json_str(it, "category");
		const char *s = kt_json_str(it, "summary");

		kt_buf_printf(&b, "%s%s%s%s", b.len ? "\n" : "", c ? c : "",
			      c && s ? ": " : "", s ? s : "");
		any = 1;
	}
	t = any ? kt_buf_take(&b) : NULL;
	if (!t) {
		/* not the expected list: keep the raw text */
		raw = kt_utf8_fix((const char *)f->data, f->len,
				  KT_UTF8_DROP_NUL, NULL, NULL);
		cJSON_AddStringToObject(p, "text", raw ? raw : "");
		free(raw);
	} else {
		cJSON_AddStringToObject(p, "text", t);
		free(t);
	}
	if (j)
		cJSON_AddItemToObject(p, "strategy", j);
	x = cJSON_AddObjectToObject(p, "extra");
	cJSON_AddNumberToObject(x, "round", (double)round);
	cJSON_AddStringToObject(x, "file", "strategy.json");
	rc = kt_impx_emit(imp, KT_KIND_NOTE, parent, KT_TS_UNKNOWN, "agent", p,
			  f, 0, 0, f->len, NULL);
	return rc;
}

/* The trace's display name: the folder name, or for ".../36_RMSNorm/
 * optimization_trace" the problem folder above it. */
static char *trace_name(const kt_file *f, const char *prefix)
{
	char *full = NULL, *name, *dir = root_dir(f);
	const char *b, *e;
	size_t n;

	if (asprintf(&full, "%s/%s", dir ? dir : ".", prefix) < 0) {
		free(dir);
		return strdup(FMT);
	}
	free(dir);
	n = strlen(full);
	while (n && (full[n - 1] == '/' || (n >= 2 && full[n - 1] == '.' &&
					    full[n - 2] == '/')))
		full[--n] = 0;
	b = kt_impx_base(full);
	if (!strcmp(b, "optimization_trace") && b > full) {
		for (e = b - 1, b = e; b > full && b[-1] != '/'; b--)
			;
		name = strndup(b, (size_t)(e - b));
	} else {
		name = strdup(*b && strcmp(b, ".") ? b : "opt_trace");
	}
	free(full);
	return name;
}

static int import_round(struct trace *t, const struct round *r,
			const char *name)
{
	kt_imp *imp = t->imp;
	const kt_file *f;
	uint64_t seq = 0, prompt = 0, code_seq = 0;
	char hash[KT_HASH_HEX + 1], *code = NULL;
	double ref_ms = NAN;
	const char *src_hash = NULL;
	int rc = 0;

	if ((f = open_rf(t, r, F_IN_NCU)) &&
	    (rc = emit_ncu(imp, f, r->n, "input", NULL)))
		return rc;
	if ((f = open_rf(t, r, F_BPROMPT))) {
		if ((rc = emit_msg(imp, f, "user", "system", r->n,
				   rnames[F_BPROMPT], 0, NULL, &prompt)))
			return rc;
	}
	if ((f = open_rf(t, r, F_BRESP))) {
		if ((rc = emit_msg(imp, f, "assistant", "agent", r->n,
				   rnames[F_BRESP], prompt, NULL, &seq)))
			return rc;
	}
	if ((f = open_rf(t, r, F_STRATEGY)) &&
	    (rc = emit_strategy(imp, f, r->n, seq)))
		return rc;
	prompt = 0;
	if ((f = open_rf(t, r, F_OPROMPT)) &&
	    (rc = emit_msg(imp, f, "user", "system", r->n, rnames[F_OPROMPT],
			   0, NULL, &prompt)))
		return rc;
	ref_ms = eager_ms(f);
	if ((f = open_rf(t, r, F_OREPLY))) {
		if ((rc = emit_msg(imp, f, "assistant", "agent", r->n,
				   rnames[F_OREPLY], prompt, NULL, &code_seq)))
			return rc;
		code = fence((const char *)f->data, f->len, "python");
	}
	/* the round's kernel.py is the real artifact when it is there */
	if ((f = open_rf(t, r, F_KERNEL))) {
		free(code);
		code = strndup((const char *)f->data, f->len);
		if (!code_seq) {
			cJSON *p = cJSON_CreateObject();

			cJSON_AddStringToObject(p, "text", "kernel.py");
			cJSON_AddNumberToObject(p, "round", (double)r->n);
			if ((rc = kt_impx_emit(imp, KT_KIND_NOTE, 0,
					       KT_TS_UNKNOWN, "agent", p, f, 0,
					       0, f->len, &code_seq)))
				goto out;
		}
	}
	if (code) {
		unsigned char h[KT_HASH_LEN];

		if ((rc = kt_ws_write(imp, "kernel.py", code, strlen(code),
				      code_seq, "opt_reply")))
			goto out;
		kt_sha256(code, strlen(code), h);
		kt_hex(h, KT_HASH_LEN, hash);
		src_hash = hash;
	} else if (r->rel[F_OREPLY]) {
		kt_imp_warn(imp, open_rf(t, r, F_OREPLY), 0,
			    "no code block in the optimization reply");
	}
	if ((f = open_rf(t, r, F_BENCH)) &&
	    (rc = emit_bench(imp, f, r->n, code_seq, src_hash, name,
			       ref_ms)))
		goto out;
	if ((f = open_rf(t, r, F_OUT_NCU)) &&
	    (rc = emit_ncu(imp, f, r->n, "optimized", src_hash)))
		goto out;
	if ((f = open_rf(t, r, F_REFLEX))) {
		char *j = fence((const char *)f->data, f->len, "json");
		cJSON *x = cJSON_CreateObject(), *pj = NULL;

		if (j)
			pj = kt_cjson_parse(j, strlen(j), NULL, &rc);
		if (pj)
			cJSON_AddItemToObject(x, "reflexion", pj);
		free(j);
		/* a reflexion that is not JSON is kept as text; out of
		 * memory is not that */
		if (rc == KT_ENOMEM) {
			cJSON_Delete(x);
			goto out;
		}
		rc = emit_msg(imp, f, "assistant", "agent", r->n,
			      rnames[F_REFLEX], 0, x, NULL);
	}
out:
	free(code);
	return rc;
}

/* A round file that is not a regular file in a round folder on disk (a
 * directory in its place) is never listed, so it would vanish without a
 * word: say which one, and import the rest of the round.  Dangling links
 * are warned about by the driver's discovery; archives hold no such
 * entries, so only a folder root is looked at. */
static void warn_unlisted(struct trace *t, const kt_file *f)
{
	struct stat st;

	if (!f->root || stat(f->root, &st) || !S_ISDIR(st.st_mode))
		return;
	for (size_t i = 0; i < t->nr; i++) {
		const char *any = NULL, *b;

		for (int k = 0; k < F_N && !any; k++)
			any = t->r[i].rel[k];
		if (!any)
			continue;
		b = kt_impx_base(any);
		for (int k = 0; k < F_N; k++) {
			char *path = NULL;

			if (t->r[i].rel[k] ||
			    asprintf(&path, "%s/%.*s%s", f->root,
				     (int)(b - any), any, rnames[k]) < 0)
				continue;
			if (!lstat(path, &st) && !S_ISREG(st.st_mode) &&
			    !S_ISLNK(st.st_mode))
				kt_imp_warn_path(t->imp, path,
						 "cannot read: not a file");
			free(path);
		}
	}
}

static int import_trace(kt_imp *imp, const kt_file *f)
{
	const char *rel = f->rel ? f->rel : "";
	struct trace t;
	size_t start = 0;
	char *prefix = NULL, *ident = NULL, *name = NULL;
	const kt_file *sf = NULL;
	cJSON *meta;
	int rc = 0, single = round_dir(rel, &start) < 0;

	memset(&t, 0, sizeof(t));
	t.imp = imp;
	if (single) {
		/* a round folder (or a file of it) named on its own: that
		 * round is all we can see */
		long rn = root_round(f);
		struct round *r;
		int k = rfile_of(kt_impx_base(rel));

		if (rn >= 0) {
			t.plen = 0;
			if ((rc = kt_imp_list(imp, "", on_flat_file, &t)))
				goto out;
		} else if (k >= 0 && (r = round_get(&t, 0))) {
			if (!(r->rel[k] = strdup(rel))) {
				rc = KT_ENOMEM;
				goto out;
			}
			r->present = 1 << k;
		}
		for (size_t i = 0; i < t.nr; i++)
			t.r[i].n = rn >= 0 ? rn : 0;
		if (!(prefix = strdup(""))) {
			rc = KT_ENOMEM;
			goto out;
		}
	} else {
		if (!(prefix = strndup(rel, start)))
			return KT_ENOMEM;
		t.prefix = prefix;
		t.plen = start;
		if ((rc = kt_imp_list(imp, prefix, on_trace_file, &t)))
			goto out;
	}
	if (!t.nr) {
		kt_imp_warn(imp, f, 0, "no KernelAgent rounds found");
		goto out;
	}
	if (t.nr > 1)
		qsort(t.r, t.nr, sizeof(*t.r), by_n);
	if (!single)
		warn_unlisted(&t, f);
	for (size_t i = 0; i < sizeof(seed_order) / sizeof(*seed_order) &&
	     !sf; i++)
		sf = open_rf(&t, &t.r[0], seed_order[i]);
	if (!sf) {
		rc = KT_EIO;
		goto out;
	}
	name = trace_name(f, prefix);
	/* one round seen alone is not the trace: a run of its own */
	if ((single && asprintf(&ident, "%s:opt_trace:%s:round_%ld", FMT,
				sf->sha_hex, t.r[0].n) < 0) ||
	    (!single && asprintf(&ident, "%s:opt_trace:%s", FMT,
				 sf->sha_hex) < 0)) {
		ident = NULL;
		rc = KT_ENOMEM;
		goto out;
	}
	meta = cJSON_CreateObject();
	cJSON_AddStringToObject(meta, "source", FMT);
	cJSON_AddNumberToObject(cJSON_AddObjectToObject(meta, "extra"),
				"rounds", (double)t.nr);
	if ((rc = kt_imp_run_begin(imp, ident, name ? name : FMT, FMT, meta)))
		goto out;
	/* rounds and results are files an agent framework may rewrite: a
	 * re-import that finds a stored step changed says so */
	kt_imp_check_reemit(imp);
	for (size_t i = 0; i < t.nr && !rc; i++) {
		for (int k = 0; k < F_N; k++)
			if (t.r[i].rel[k])
				kt_imp_claim(imp, t.r[i].rel[k]);
		rc = import_round(&t, &t.r[i], name);
	}
	for (size_t i = 0; i < t.nother; i++)
		kt_imp_claim(imp, t.other[i]);
	rc = kt_imp_run_finish(imp, rc);
out:
	for (size_t i = 0; i < t.nr; i++)
		for (int k = 0; k < F_N; k++)
			free(t.r[i].rel[k]);
	free(t.r);
	for (size_t i = 0; i < t.nother; i++)
		free(t.other[i]);
	free(t.other);
	free(prefix);
	free(ident);
	free(name);
	return rc;
}

/* ---- worker results ------------------------------------------------------------------ */

static double after(const char *text, const char *label, int *ok)
{
	const char *p = text ? strstr(text, label) : NULL;
	char *end;
	double v;

	*ok = 0;
	if (!p)
		return 0;
	v = strtod(p + strlen(label), &end);
	*ok = end != p + strlen(label);
	return v;
}

/* Triton/JIT compile failures as KernelAgent's test harness prints them. */
static int compile_failure(const char *out)
{
	static const char *const pat[] = {
		"CompilationError", "must be of type tl.constexpr",
		"Did you forget to add @triton.jit", "SyntaxError",
		"IndentationError", "error: ", "NameError", "ImportError",
		"All calling attempts for kernel_function failed", NULL
	};

	for (const char *const *p = pat; *p; p++)
		if (strstr(out, *p))
			return 1;
	return 0;
}

static int worker_attempt(kt_imp *imp, const kt_file *f, const cJSON *h,
			  int idx)
{
	const char *code = kt_json_str(h, "kernel_code");
	const char *so = kt_json_str(h, "stdout"), *se = kt_json_str(h,
								     "stderr");
	int64_t ts = kt_impx_ts(kt_json_str(h, "timestamp"));
	int success = kt_impx_bool(h, "success");
	double round = idx + 1, v;
	char *out = NULL, t[96], khex[KT_HASH_HEX + 1], hex[KT_HASH_HEX + 1];
	const char *src_hash = NULL;
	unsigned char hb[KT_HASH_LEN];
	uint64_t seq;
	cJSON *p, *x, *res = NULL;
	int rc, ok;

	kt_impx_num(h, "round", &round);
	if (asprintf(&out, "%s%s%s", so ? so : "", so && se && *se ? "\n" : "",
		     se ? se : "") < 0)
		return KT_ENOMEM;
	if (!(p = cJSON_CreateObject())) {
		free(out);
		return KT_ENOMEM;
	}
	snprintf(t, sizeof(t), "attempt %.17g: %s", round,
		 success == 1 ? "tests passed" : success == 0 ? "tests failed" :
		 "no result");
	cJSON_AddStringToObject(p, "text", t);
	cJSON_AddNumberToObject(p, "round", round);
	for (const cJSON *it = h->child; it; it = it->next) {
		static const char *const known[] = {
			"round", "timestamp", "success", "kernel_code",
			"stdout", "stderr", NULL
		};
		int k = !it->string;

		for (const char *const *n = known; *n && !k; n++)
			k = !strcmp(it->string, *n);
		if (!k) {
			cJSON *xe = cJSON_GetObjectItemCaseSensitive(p,
								     "extra");

			if (!xe)
				xe = cJSON_AddObjectToObject(p, "extra");
			cJSON_AddItemToObject(xe, it->string,
					      cJSON_Duplicate(it, 1));
		}
	}
	if ((rc = kt_impx_emit(imp, KT_KIND_NOTE, 0, ts, "agent", p, f, 0, 0, 0,
			       &seq)))
		goto out;
	if (code) {
		if ((rc = kt_ws_write(imp, "kernel.py", code, strlen(code), seq,
				      "worker")))
			goto out;
		kt_sha256(code, strlen(code), hb);
		kt_hex(hb, KT_HASH_LEN, khex);
		src_hash = khex;
	}
	/* the whole test output, for the compile diagnostics / bench */
	if ((rc = kt_imp_blob(imp, out, strlen(out), NULL, hex)))
		goto out;
	if (success != 1 && compile_failure(out) &&
	    !strstr(out, "NUMERICAL MISMATCH")) {
		if (!(p = cJSON_CreateObject())) {
			rc = KT_ENOMEM;
			goto out;
		}
		cJSON_AddStringToObject(p, "command", "triton jit (kernel "
					"test harness)");
		cJSON_AddStringToObject(p, "compiler", "triton");
		cJSON_AddNumberToObject(p, "exit_code", 1);
		cJSON_AddStringToObject(p, "diagnostics_blob", hex);
		x = cJSON_AddObjectToObject(p, "extra");
		cJSON_AddNumberToObject(x, "round", round);
		kt_impx_text(imp, x, "output", NULL, out,
			     strlen(out) > 4096 ? 4096 : strlen(out));
		rc = kt_impx_emit(imp, KT_KIND_COMPILE, seq, ts, "harness", p,
				  f, 0, 0, 0, NULL);
		goto out;
	}
	if (!(p = cJSON_CreateObject())) {
		rc = KT_ENOMEM;
		goto out;
	}
	kt_bench_parse(out, strlen(out), &res);
	{
		const cJSON *first = cJSON_GetArrayItem(res, 0);

		if (kt_impx_num(first, "time_ms", &v))
			cJSON_AddNumberToObject(p, "time_ms", v);
		else
			cJSON_AddNullToObject(p, "time_ms");
		if (kt_impx_num(first, "speedup", &v))
			cJSON_AddNumberToObject(p, "speedup", v);
		if (kt_json_str(first, "pattern"))
			cJSON_AddStringToObject(p, "pattern",
						kt_json_str(first, "pattern"));
	}
	cJSON_Delete(res);
	{
		char cand[64];

		snprintf(cand, sizeof(cand), "attempt_%.17g", round);
		cJSON_AddStringToObject(p, "candidate", cand);
	}
	if (src_hash)
		cJSON_AddStringToObject(p, "source_hash", src_hash);
	if (success < 0)
		cJSON_AddNullToObject(p, "correct");
	else
		cJSON_AddBoolToObject(p, "correct", success == 1);
	if (strstr(out, "NUMERICAL MISMATCH")) {
		cJSON *e = cJSON_AddObjectToObject(p, "error");

		/* error bounds are finite and >= 0 (FORMAT.md section 2);
		 * "nan" or "inf" printed there is no bound */
		v = after(out, "Max absolute difference:", &ok);
		if (ok && v >= 0 && v <= DBL_MAX)
			cJSON_AddNumberToObject(e, "max_abs", v);
		v = after(out, "Max relative error:", &ok);
		if (ok && v >= 0 && v <= DBL_MAX)
			cJSON_AddNumberToObject(e, "max_rel", v);
		cJSON_AddStringToObject(p, "status", "numerical_mismatch");
	} else {
		cJSON_AddStringToObject(p, "status", success == 1 ? "passed" :
					"failed");
	}
	x = cJSON_AddObjectToObject(p, "extra");
	cJSON_AddNumberToObject(x, "round", round);
	cJSON_AddStringToObject(x, "output_blob", hex);
	kt_impx_text(imp, x, "output", NULL, out,
		     strlen(out) > 4096 ? 4096 : strlen(out));
	rc = kt_impx_emit(imp, KT_KIND_BENCH, seq, ts, "harness", p, f, 0, 0,
			  0, NULL);
out:
	free(out);
	return rc;
}

static char *worker_name(const kt_file *f)
{
	const char *rel = f->rel ? f->rel : "";
	const char *b = kt_impx_base(rel), *d;
	size_t n = strlen(b);

	/* ".../31_VisionAttention/result.json" -> "31_VisionAttention" */
	if (!strcmp(b, "result.json") && b > rel + 1) {
		for (d = b - 1; d > rel && d[-1] != '/'; d--)
			;
		return strndup(d, (size_t)(b - 1 - d));
	}
	return strndup(b, n > 5 && !strcmp(b + n - 5, ".json") ? n - 5 : n);
}

static int import_worker(kt_imp *imp, const kt_file *f, cJSON *j)
{
	cJSON *hist = cJSON_GetObjectItemCaseSensitive(j, "history"), *parsed =
		NULL, *meta, *x;
	const cJSON *h, *first;
	const char *code0, *final = kt_json_str(j, "kernel_code");
	char wid[64] = "?", *ident = NULL, *name = NULL;
	unsigned char hb[KT_HASH_LEN];
	char hex[KT_HASH_HEX + 1];
	double v;
	int rc = 0, i = 0;

	/* some dumps stringify the history (Python repr or JSON text) */
	if (cJSON_IsString(hist)) {
		parsed = kt_impx_parse_lenient(hist->valuestring, &rc);
		if (rc == KT_ENOMEM)
			return rc;     /* not "without a history list" */
		rc = 0;
		hist = parsed;
	}
	if (!cJSON_IsArray(hist)) {
		kt_imp_warn(imp, f, 0, "worker result without a history list");
		hist = NULL;
	}
	if (kt_impx_num(j, "worker_id", &v))
		snprintf(wid, sizeof(wid), "%.17g", v);
	else if (kt_json_str(j, "worker_id"))
		snprintf(wid, sizeof(wid), "%s", kt_json_str(j, "worker_id"));
	first = cJSON_GetArrayItem(hist, 0);
	code0 = kt_json_str(first, "kernel_code");
	if (code0) {
		kt_sha256(code0, strlen(code0), hb);
		kt_hex(hb, KT_HASH_LEN, hex);
	}
	name = worker_name(f);
	if (asprintf(&ident, "%s:worker:%s:%s", FMT, wid, code0 ? hex :
		     f->sha_hex) < 0) {
		ident = NULL;
		rc = KT_ENOMEM;
		goto out;
	}
	meta = cJSON_CreateObject();
	cJSON_AddStringToObject(meta, "source", FMT);
	x = cJSON_AddObjectToObject(meta, "extra");
	for (const cJSON *it = j->child; it; it = it->next)
		if (it->string && strcmp(it->string, "history") &&
		    strcmp(it->string, "kernel_code"))
			cJSON_AddItemToObject(x, it->string,
					      cJSON_Duplicate(it, 1));
	if ((rc = kt_imp_run_begin(imp, ident, name ? name : FMT, FMT, meta)))
		goto out;
	/* rounds and results are files an agent framework may rewrite: a
	 * re-import that finds a stored step changed says so */
	kt_imp_check_reemit(imp);
	cJSON_ArrayForEach(h, hist) {
		if (!cJSON_IsObject(h)) {
			kt_imp_warn(imp, f, 0, "history entry %d is not an "
				    "object; skipped", i);
			i++;
			continue;
		}
		if ((rc = worker_attempt(imp, f, h, i++)))
			break;
	}
	/* the final kernel, when it is not the last attempt's */
	if (!rc && final) {
		size_t len;
		const char *cur = kt_ws_get(imp, "kernel.py", &len);

		if (!cur || len != strlen(final) || memcmp(cur, final, len)) {
			cJSON *p = cJSON_CreateObject();
			uint64_t seq;

			cJSON_AddStringToObject(p, "text", "final kernel");
			if (!(rc = kt_impx_emit(imp, KT_KIND_NOTE, 0,
						KT_TS_UNKNOWN, "agent", p, f, 0,
						0, 0, &seq)))
				rc = kt_ws_write(imp, "kernel.py", final,
						 strlen(final), seq, "worker");
		}
	}
	rc = kt_imp_run_finish(imp, rc);
out:
	cJSON_Delete(parsed);
	free(ident);
	free(name);
	return rc;
}

/* ---- entry ----------------------------------------------------------------------- */

static int import(kt_imp *imp, const kt_file *f)
{
	cJSON *j;
	int rc;

	if (kt_impx_has(f, 1024, "\"worker_id\"") &&
	    kt_impx_has(f, f->len, "\"history\"")) {
		if (!(j = kt_impx_parse(imp, f)))
			return KT_EPARSE;
		rc = import_worker(imp, f, j);
		cJSON_Delete(j);
		return rc;
	}
	return import_trace(imp, f);
}

const kt_importer kt_importer_kernelagent = {
	.name = FMT,
	.summary = "KernelAgent optimization traces (round_N/ folders) and "
		   "worker results",
	.detect = detect,
	.import = import,
};
