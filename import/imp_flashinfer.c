/*
 * imp_flashinfer.c - FlashInfer-Bench ("FlashInfer-Trace") definitions,
 * workloads, solutions and traces.
 *
 * Format: flashinfer-ai/flashinfer-bench docs/flashinfer-trace/
 * {definition,workload,solution,trace}.mdx; our notes in
 * ../shared/research/formats.md section 7a.
 *   Definition  {name, op_type, axes, inputs, outputs, reference, ...}
 *   Solution    {name, definition, author, spec{language, entry_point...},
 *                sources[{path, content}], description}
 *   Trace line  {definition, workload{uuid, axes, inputs}, solution,
 *                evaluation{status, log, correctness, performance,
 *                environment, timestamp}}; a workload is a trace line whose
 *                solution and evaluation are null.
 *
 * Grouping.  A run is one author's work on one definition: its solutions
 * (in round/candidate order, parsed from names like "..._r8_c0_high") and
 * the traces that evaluated them, with the definition and its workloads as
 * context.  Importing any of these files also reads the FlashInfer files of
 * the same input root whose path names the same definition (the layout
 * definitions/<op>/<def>.json, solutions/<author>/<op>/<def>/...,
 * traces/<op>/<def>.jsonl, workloads/<op>/<def>.jsonl, and flat folders
 * named like the corpus) and claims them, so a folder is grouped the same
 * way whichever file the driver reaches first.
 *
 * Identity "flashinfer:<definition>:<author>:<parts>", where parts lists
 * which kinds of file fed the run (d definition, w workloads, s solutions,
 * t traces).  The parts are in the identity because a run's event sequence
 * depends on them: importing a traces file alone and later its whole folder
 * gives two runs (the second with the solution edits before the benches)
 * instead of one run whose stored prefix would no longer match.
 *
 * Events per run:
 *   note     the definition (actor system), the workloads (one note)
 *   message  per solution: its description (actor agent), then an edit per
 *            source file (kt_ws_write, tool "solution"): full-source rounds
 *            become edits, so diffs between rounds work
 *   compile  per trace whose log shows a build (nvcc/c++ lines, not "Solution
 *            skipped after N failures"): exit_code from "FAILED: [code=N]",
 *            0 when the build went through, null for a COMPILE_ERROR whose
 *            log has no code; the command relative to its build directory
 *            (relative_build; the log's own in extra.recorded_command); the
 *            log in diagnostics_blob
 *   bench    per trace that ran (EvaluationStatus of
 *            flashinfer_bench/data/trace.py): PASSED correct true with
 *            time_ms = performance.latency_ms, ref_time_ms =
 *            reference_latency_ms, speedup = speedup_factor;
 *            INCORRECT_NUMERICAL/_SHAPE/_DTYPE correct false, time_ms null
 *            (the schema gives them no performance); RUNTIME_ERROR and
 *            TIMEOUT time_ms null, correct null, status kept: the solution
 *            failed to run, which readers count as such (FORMAT.md section
 *            14), never as a time or a wrong answer.  workload =
 *            definition, scenario = the workload's shape axes ("M=6"; its
 *            uuid in extra.workload_uuid), candidate = solution name,
 *            metric "time", baseline "reference", source
 *            "flashinfer-bench", error = max abs/rel error: one solution's
 *            traces are one sweep (FORMAT.md section 14).
 *   (none)   a COMPILE_ERROR trace is no measurement: its build is the
 *            compile above; one whose log shows no build ("Solution
 *            skipped after 3 failures. Last error: ...", the harness not
 *            building again, or an error text without a compiler line)
 *            is a note naming the solution, the workload and the status,
 *            with the log in extra.log_blob.
 * Every event of a trace carries evaluation.timestamp (naive ISO, taken as
 * UTC: impx.h), so a run's traces are ordered in time.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "impx.h"
#include "jsonstrict.h"

#define FMT "flashinfer"

enum rkind { R_DEF, R_SOL, R_TRACE, R_WORKLOAD };

struct rec {
	enum rkind kind;
	cJSON *j;		/* owned */
	const kt_file *f;
	uint64_t line, off, len;
	const char *def;	/* definition name (inside j) */
	char *author;		/* solutions and traces, malloc'ed */
	int round, cand;	/* from solution names; -1 unknown */
	int used;
};

struct set {
	kt_imp *imp;
	struct rec *r;
	size_t n, cap;
	char **defs;		/* definition names seen in the first file */
	size_t ndefs;
	const kt_file *cur;	/* file being loaded */
	int rc;
	int unparsed;		/* a file was not JSON (warned) */
};

/* ---- detect ----------------------------------------------------------------- */

/* p past a UTF-8 byte order mark at p, if any (KT_UTF8_BOM) */
static const char *skip_bom(const char *p, const char *e)
{
	return e - p >= 3 && !memcmp(p, KT_UTF8_BOM, 3) ? p + 3 : p;
}

static int classify(const cJSON *o)
{
	if (!cJSON_IsObject(o))
		return -1;
	if (cJSON_GetObjectItemCaseSensitive(o, "workload") &&
	    kt_json_str(o, "definition"))
		return cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o,
				"evaluation")) ? R_TRACE : R_WORKLOAD;
	if (cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(o, "sources")) &&
	    kt_json_str(o, "name")) {
		const cJSON *s0 = cJSON_GetArrayItem(
			cJSON_GetObjectItemCaseSensitive(o, "sources"), 0);

		/* sources[{path, content}]: not any JSON with a "sources"
		 * list (source maps, package manifests) */
		if (!s0 || kt_json_str(s0, "path") ||
		    kt_json_str(o, "definition"))
			return R_SOL;
	}
	if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o, "axes")) &&
	    kt_json_str(o, "name") &&
	    (cJSON_GetObjectItemCaseSensitive(o, "inputs") ||
	     cJSON_GetObjectItemCaseSensitive(o, "reference")))
		return R_DEF;
	return -1;
}

static int detect(const kt_file *f)
{
	const char *p = (const char *)f->data, *e = p + f->len, *nl;
	size_t n;
	cJSON *o;
	int k, score = 0;

	/* pick() strips a byte order mark, but sibling scans call us on the
	 * file as it is */
	p = skip_bom(p, e);
	while (p < e && isspace((unsigned char)*p))
		p++;
	if (p >= e || *p != '{')
		return 0;
	/* cheap key checks first: the whole file may be megabytes */
	if (!kt_impx_has(f, 4096, "\"definition\"") &&
	    !kt_impx_has(f, 4096, "\"axes\"") &&
	    !kt_impx_has(f, 4096, "\"sources\""))
		return 0;
	nl = memchr(p, '\n', (size_t)(e - p));
	n = nl ? (size_t)(nl - p) : (size_t)(e - p);
	/* a trace line, or (pretty-printed) the whole document */
	o = cJSON_ParseWithLength(p, n);
	if (!o && n < 4u << 20)
		o = cJSON_ParseWithLength(p, (size_t)(e - p));
	k = classify(o);
	if (k == R_TRACE || k == R_WORKLOAD)
		score = 90;
	else if (k == R_SOL)
		score = kt_json_str(o, "definition") ? 90 : 60;
	else if (k == R_DEF)
		score = kt_json_str(o, "op_type") ||
			kt_json_str(o, "reference") ? 85 : 50;
	cJSON_Delete(o);
	return score;
}

/* ---- loading ---------------------------------------------------------------- */

/* "gpt-5_gemm_n2048_k4096_cuda_optimized_r8_c0_high" + definition
 * "gemm_n2048_k4096" -> author "gpt-5" (names in PR #221 are
 * <author>_<definition>_<...>). */
static char *author_from_name(const char *name, const char *def)
{
	const char *hit;
	size_t dl = def ? strlen(def) : 0;

	if (!name)
		return strdup("unknown");
	for (hit = def ? strstr(name, def) : NULL; hit;
	     hit = strstr(hit + 1, def))
		if (hit > name + 1 && hit[-1] == '_' &&
		    (hit[dl] == '_' || !hit[dl]))
			return strndup(name, (size_t)(hit - name - 1));
	return strdup(name);
}

/* "_r8_c0" in a solution name: round and candidate. */
static void round_of(const char *name, int *round, int *cand)
{
	const char *p;

	*round = *cand = -1;
	for (p = name; p && (p = strstr(p, "_r")); p++) {
		char *end;
		long r = strtol(p + 2, &end, 10);

		if (end == p + 2 || (*end && *end != '_'))
			continue;
		*round = (int)r;
		if (!strncmp(end, "_c", 2) && isdigit((unsigned char)end[2]))
			*cand = (int)strtol(end + 2, NULL, 10);
	}
}

static int add_rec(struct set *s, cJSON *j, uint64_t line, uint64_t off,
		   uint64_t len)
{
	int k = classify(j);
	struct rec *r;

	if (k < 0) {
		kt_imp_warn(s->imp, s->cur, line, "not a FlashInfer definition, "
			    "solution, workload or trace; skipped");
		cJSON_Delete(j);
		return 0;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct rec *nr = realloc(s->r, cap * sizeof(*nr));

		if (!nr) {
			cJSON_Delete(j);
			return KT_ENOMEM;
		}
		s->r = nr;
		s->cap = cap;
	}
	r = &s->r[s->n];
	memset(r, 0, sizeof(*r));
	r->kind = (enum rkind)k;
	r->j = j;
	r->f = s->cur;
	r->line = line;
	r->off = off;
	r->len = len;
	r->round = r->cand = -1;
	r->def = k == R_DEF ? kt_json_str(j, "name") :
		kt_json_str(j, "definition");
	if (k == R_SOL) {
		const char *a = kt_json_str(j, "author");

		r->author = a && *a ? strdup(a) :
			author_from_name(kt_json_str(j, "name"), r->def);
		round_of(kt_json_str(j, "name"), &r->round, &r->cand);
		if (!r->author)
			return KT_ENOMEM;
	}
	if (!r->def) {
		kt_imp_warn(s->imp, s->cur, line, "%s without a definition "
			    "name; skipped", k == R_SOL ? "solution" : "record");
		free(r->author);
		cJSON_Delete(j);
		return 0;
	}
	s->n++;
	return 0;
}

static int on_line(cJSON *rec, uint64_t line, uint64_t off, uint64_t len,
		   void *arg)
{
	struct set *s = arg;
	cJSON *dup = cJSON_Duplicate(rec, 1);

	return dup ? add_rec(s, dup, line, off, len) : KT_ENOMEM;
}

static int load(struct set *s, const kt_file *f)
{
	const char *p = (const char *)f->data, *e = p + f->len, *nl;
	cJSON *one = NULL, *it;
	int rc = 0, jsonl = 0;

	s->cur = f;
	/* a byte order mark opening the file (RFC 8259 section 8.1) must not
	 * make a pretty-printed document look like JSONL; the parsers below
	 * still get the whole file and accept it there */
	p = skip_bom(p, e);
	while (p < e && isspace((unsigned char)*p))
		p++;
	nl = memchr(p, '\n', (size_t)(e - p));
	/* JSONL when the first line is a whole object and more follows, or
	 * when the first line is not the "{" of a pretty-printed document
	 * (a broken first line must not hide the valid rest) */
	if (nl && (one = kt_cjson_parse(p, (size_t)(nl - p), NULL, &rc))) {
		const char *q = nl + 1;

		while (q < e && isspace((unsigned char)*q))
			q++;
		jsonl = q < e;
	} else if (nl) {
		const char *q = p + 1;

		while (q < nl && isspace((unsigned char)*q))
			q++;
		jsonl = !((*p == '{' || *p == '[') && q == nl);
	}
	cJSON_Delete(one);
	if (rc == KT_ENOMEM)
		return rc;
	rc = 0;
	if (jsonl)
		return kt_impx_jsonl(s->imp, f, on_line, s);
	if (!(one = kt_impx_parse(s->imp, f))) {
		s->unparsed = 1;
		return 0;
	}
	if (cJSON_IsArray(one)) {
		while (!rc && (it = cJSON_DetachItemFromArray(one, 0)))
			rc = add_rec(s, it, 0, 0, 0);
		cJSON_Delete(one);
		return rc;
	}
	return add_rec(s, one, 1, 0, f->len);
}

/* ---- siblings ---------------------------------------------------------------- */

struct scan {
	struct set *s;
	const char *self;
	char **rel;
	size_t n;
};

static int on_sibling(const char *rel, void *arg)
{
	struct scan *sc = arg;
	const char *b = kt_impx_base(rel);
	size_t bl = strlen(b);
	char **nv;
	int hit = 0;

	if (!strcmp(rel, sc->self) ||
	    !((bl > 5 && !strcmp(b + bl - 5, ".json")) ||
	      (bl > 6 && !strcmp(b + bl - 6, ".jsonl"))))
		return 0;
	for (size_t i = 0; i < sc->s->ndefs && !hit; i++)
		hit = strstr(rel, sc->s->defs[i]) != NULL;
	if (!hit)
		return 0;
	if (!(nv = realloc(sc->rel, (sc->n + 1) * sizeof(*nv))))
		return KT_ENOMEM;
	sc->rel = nv;
	if (!(nv[sc->n] = strdup(rel)))
		return KT_ENOMEM;
	sc->n++;
	return 0;
}

/* The folder to look for siblings in: the FlashInfer-Trace layout root
 * when the path has one, else the file's own folder. */
static char *scan_root(const char *rel)
{
	static const char *const dirs[] = {
		"definitions/", "solutions/", "traces/", "workloads/", NULL
	};

	for (const char *const *d = dirs; *d; d++) {
		const char *p = strstr(rel, *d);

		if (p && (p == rel || p[-1] == '/'))
			return strndup(rel, (size_t)(p - rel));
	}
	return strndup(rel, (size_t)(kt_impx_base(rel) - rel));
}

static int add_def_name(struct set *s, const char *d)
{
	char **nv;

	for (size_t i = 0; i < s->ndefs; i++)
		if (!strcmp(s->defs[i], d))
			return 0;
	/* too short a name would match unrelated paths */
	if (strlen(d) < 3)
		return 0;
	if (!(nv = realloc(s->defs, (s->ndefs + 1) * sizeof(*nv))))
		return KT_ENOMEM;
	s->defs = nv;
	if (!(nv[s->ndefs] = strdup(d)))
		return KT_ENOMEM;
	s->ndefs++;
	return 0;
}

static int load_siblings(struct set *s, const kt_file *f)
{
	struct scan sc = { s, f->rel ? f->rel : "", NULL, 0 };
	char *root = scan_root(sc.self);
	int rc;

	if (!root)
		return KT_ENOMEM;
	for (size_t i = 0; i < s->n; i++)
		if ((rc = add_def_name(s, s->r[i].def)))
			goto out;
	rc = kt_imp_list(s->imp, root, on_sibling, &sc);
	for (size_t i = 0; i < sc.n && !rc; i++) {
		const kt_file *sf;

		if (kt_imp_open(s->imp, sc.rel[i], &sf) != 0 || detect(sf) < 50)
			continue;
		kt_imp_claim(s->imp, sc.rel[i]);
		rc = load(s, sf);
	}
out:
	for (size_t i = 0; i < sc.n; i++)
		free(sc.rel[i]);
	free(sc.rel);
	free(root);
	return rc;
}

/* ---- emitting ------------------------------------------------------------------ */

static const struct rec *find_solution(const struct set *s, const char *name)
{
	for (size_t i = 0; name && i < s->n; i++)
		if (s->r[i].kind == R_SOL &&
		    !strcmp(kt_json_str(s->r[i].j, "name"), name))
			return &s->r[i];
	return NULL;
}

static int same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

static int emit_def(kt_imp *imp, const struct rec *r)
{
	cJSON *p = cJSON_CreateObject();
	char *t = NULL;
	const char *desc = kt_json_str(r->j, "description");

	if (!p || asprintf(&t, "definition %s%s%s", r->def, desc ? ": " : "",
			   desc ? desc : "") < 0) {
		cJSON_Delete(p);
		return KT_ENOMEM;
	}
	cJSON_AddStringToObject(p, "text", t);
	free(t);
	cJSON_AddItemToObject(p, "definition", cJSON_Duplicate(r->j, 1));
	return kt_impx_emit(imp, KT_KIND_NOTE, 0, KT_TS_UNKNOWN, "system", p,
			    r->f, r->line, r->off, r->len, NULL);
}

static int emit_workloads(kt_imp *imp, const struct set *s, const char *def)
{
	cJSON *p = cJSON_CreateObject(), *w;
	const struct rec *first = NULL;
	size_t n = 0;
	char t[256];

	if (!p || !(w = cJSON_AddArrayToObject(p, "workloads"))) {
		cJSON_Delete(p);
		return KT_ENOMEM;
	}
	for (size_t i = 0; i < s->n; i++) {
		const struct rec *r = &s->r[i];

		if (r->kind != R_WORKLOAD || !same(r->def, def))
			continue;
		if (!first)
			first = r;
		n++;
		cJSON_AddItemToArray(w, cJSON_Duplicate(
			cJSON_GetObjectItemCaseSensitive(r->j, "workload"), 1));
	}
	if (!n) {
		cJSON_Delete(p);
		return 0;
	}
	snprintf(t, sizeof(t), "%zu workloads of %s", n, def);
	cJSON_AddStringToObject(p, "text", t);
	return kt_impx_emit(imp, KT_KIND_NOTE, 0, KT_TS_UNKNOWN, "system", p,
			    first->f, first->line, first->off, first->len,
			    NULL);
}

static int emit_solution(kt_imp *imp, const struct rec *r)
{
	const char *name = kt_json_str(r->j, "name");
	const char *desc = kt_json_str(r->j, "description");
	const cJSON *src, *sources = cJSON_GetObjectItemCaseSensitive(r->j,
								"sources");
	cJSON *p = cJSON_CreateObject(), *x;
	char *t = NULL;
	uint64_t seq;
	int rc, i = 0;
	static const char *const skip[] = { "sources", "description", NULL };

	if (!p || asprintf(&t, "solution %s%s%s", name, desc ? ": " : "",
			   desc ? desc : "") < 0) {
		cJSON_Delete(p);
		return KT_ENOMEM;
	}
	cJSON_AddStringToObject(p, "role", "assistant");
	cJSON_AddBoolToObject(p, "human", 0);
	cJSON_AddStringToObject(p, "text", t);
	free(t);
	if (r->author)
		cJSON_AddStringToObject(p, "model", r->author);
	x = cJSON_AddObjectToObject(p, "extra");
	for (const cJSON *it = r->j->child; it && x; it = it->next) {
		int k = 0;

		for (const char *const *s = skip; *s && !k; s++)
			k = !strcmp(it->string, *s);
		if (!k)
			cJSON_AddItemToObject(x, it->string,
					      cJSON_Duplicate(it, 1));
	}
	if (x && r->round >= 0)
		cJSON_AddNumberToObject(x, "round", r->round);
	if (x && r->cand >= 0)
		cJSON_AddNumberToObject(x, "candidate", r->cand);
	if ((rc = kt_impx_emit(imp, KT_KIND_MESSAGE, 0, KT_TS_UNKNOWN, "agent",
			       p, r->f, r->line, r->off, r->len, &seq)))
		return rc;
	cJSON_ArrayForEach(src, sources) {
		const char *path = kt_json_str(src, "path");
		const char *content = kt_json_str(src, "content");

		i++;
		if (!path || !content) {
			kt_imp_warn(imp, r->f, r->line, "solution %s: source "
				    "%d without path or content", name, i);
			continue;
		}
		if ((rc = kt_ws_write(imp, path, content, strlen(content), seq,
				      "solution")))
			return rc;
	}
	return 0;
}

/* The compiler invocation of a ninja/torch build log (nvcc preferred: the
 * CUDA step is the one that matters), without the "[k/n] " progress
 * prefix; malloc'ed, NULL when there is none. */
static char *build_command(const char *log)
{
	static const char *const cc[] = {
		"nvcc ", "c++ ", "g++ ", "clang++ ", "gcc ", "clang ", NULL
	};

	for (const char *const *c = cc; *c; c++) {
		for (const char *l = log; l && *l;) {
			const char *nl = strchr(l, '\n');
			size_t n = nl ? (size_t)(nl - l) : strlen(l);
			const char *p = l, *hit;

			if (*p == '[') {
				const char *q = memchr(p, ']', n);

				if (q)
					p = q + 1;
				while (*p == ' ')
					p++;
			}
			hit = strstr(p, *c);
			if (hit && hit < l + n && (hit == p || hit[-1] == '/'))
				return strndup(p, (size_t)(l + n - p));
			l = nl ? nl + 1 : NULL;
		}
	}
	return NULL;
}

/*
 * The torch-extension build runs in a per-solution directory of the
 * recording machine ($HOME/.cache/flashinfer_bench/cache/torch/<ext>/, one
 * holding the solution's sources): "-I<dir> ... -c <dir>/kernel.cu".  Those
 * sources are the solution's, which the run's workspace holds at their own
 * relative paths, so the command is made relative to that directory: the
 * directory becomes "." and its files their names.  Then a replay bundle
 * carries the sources it compiles instead of naming a cache that exists
 * only on that machine.  *dir gets the directory (malloc'ed) and *src the
 * compiled file's name inside it; the command is rewritten in place (it
 * only gets shorter).  Nothing changes when the source is not absolute.
 */
static void relative_build(char *cmd, char **dir, char **src)
{
	const char *c = strstr(cmd, " -c /"), *e, *slash;
	size_t dl, n;
	char *r, *w;

	*dir = *src = NULL;
	if (!c)
		return;
	c += 4;
	e = c + strcspn(c, " \t'\"");
	for (slash = e; slash > c && slash[-1] != '/'; slash--)
		;
	if (slash <= c + 1 || slash == e)
		return;
	dl = (size_t)(slash - 1 - c);
	if (!(*dir = strndup(c, dl)) || !(*src = strndup(slash,
							   (size_t)(e - slash)))) {
		free(*dir);
		*dir = NULL;
		return;
	}
	/* "<dir>/x" -> "x", "<dir>" alone -> "." */
	for (r = w = cmd; *r;) {
		if (!strncmp(r, *dir, dl) && (r[dl] == '/' || r[dl] == ' ' ||
					      r[dl] == 0 || r[dl] == '\'' ||
					      r[dl] == '"')) {
			if (r[dl] == '/') {
				r += dl + 1;
			} else {
				*w++ = '.';
				r += dl;
			}
			continue;
		}
		*w++ = *r++;
	}
	*w = 0;
	n = strlen(cmd);
	while (n && cmd[n - 1] == ' ')
		cmd[--n] = 0;
}

static const char *const trace_known[] = {
	"definition", "workload", "solution", "evaluation", NULL
};
static const char *const eval_known[] = {
	"status", "log", "correctness", "performance", "environment",
	"timestamp", NULL
};

/* Members of o not in `known` go to extra, so nothing of a newer format
 * version is lost. */
static void keep_rest(cJSON *extra, const cJSON *o, const char *const *known)
{
	for (const cJSON *it = cJSON_IsObject(o) ? o->child : NULL; it;
	     it = it->next) {
		int k = 0;

		for (const char *const *n = known; *n && !k; n++)
			k = !strcmp(it->string, *n);
		if (!k && !cJSON_GetObjectItemCaseSensitive(extra, it->string))
			cJSON_AddItemToObject(extra, it->string,
					      cJSON_Duplicate(it, 1));
	}
}


/* The scenario of a trace: its workload's shape axes in the order given
 * ("M=6", "batch_size=1 max_num_pages=2 num_pages=11923"), so that one
 * solution's traces form one sweep over shapes (FORMAT.md section 14); the
 * workload uuid when it has no axes (it is kept in extra.workload_uuid). */
static int add_scenario(cJSON *p, const cJSON *wl)
{
	const cJSON *ax = cJSON_GetObjectItemCaseSensitive(wl, "axes"), *a;
	char sc[256];
	size_t n = 0;
	double v;

	sc[0] = 0;
	if (!cJSON_IsObject(ax))
		ax = NULL;
	cJSON_ArrayForEach(a, ax) {
		char one[96];

		if (!a->string)
			continue;
		if (kt_impx_numv(a, &v))
			snprintf(one, sizeof(one), "%s=%.17g", a->string, v);
		else if (cJSON_IsString(a))
			snprintf(one, sizeof(one), "%s=%s", a->string,
				 a->valuestring);
		else
			continue;
		n += (size_t)snprintf(sc + n, sizeof(sc) - n, "%s%s",
				      n ? " " : "", one);
		if (n >= sizeof(sc))
			break;
	}
	if (!sc[0] && kt_json_str(wl, "uuid"))
		snprintf(sc, sizeof(sc), "%s", kt_json_str(wl, "uuid"));
	if (sc[0] && !cJSON_AddStringToObject(p, "scenario", sc))
		return KT_ENOMEM;
	return 0;
}

/* RUNTIME_ERROR, TIMEOUT: the solution built but did not run to the end
 * (flashinfer_bench/data/trace.py EvaluationStatus); the analyzers read
 * these statuses as "failed to run" (analyze/load.c). */
static int failed_to_run(const char *status)
{
	return same(status, "RUNTIME_ERROR") || same(status, "TIMEOUT");
}

/* A COMPILE_ERROR trace whose log shows no build of its own: a note
 * ("Solution skipped after 3 failures. Last error: ..." quotes an earlier
 * build; the harness did not build again).  hex: the log's blob or NULL. */
static int emit_unbuilt(kt_imp *imp, const struct rec *r, const char *status,
			const char *sol, const cJSON *wl, const char *hex,
			int64_t ts)
{
	const char *log = kt_json_str(cJSON_GetObjectItemCaseSensitive(r->j,
						"evaluation"), "log");
	cJSON *p = cJSON_CreateObject(), *x;
	const char *sc;
	char *t = NULL;
	int rc;

	if (!p || (rc = add_scenario(p, wl))) {
		cJSON_Delete(p);
		return KT_ENOMEM;
	}
	sc = kt_json_str(p, "scenario");
	if (asprintf(&t, "%s not evaluated%s%s: %s (%s)",
		     sol ? sol : "solution", sc ? " on " : "", sc ? sc : "",
		     log && !strncmp(log, "Solution skipped", 16) ?
		     "the build failed before, skipped" : "the build failed",
		     status) < 0) {
		cJSON_Delete(p);
		return KT_ENOMEM;
	}
	cJSON_AddStringToObject(p, "text", t);
	free(t);
	cJSON_AddStringToObject(p, "status", status);
	cJSON_AddStringToObject(p, "workload", r->def);
	if (sol)
		cJSON_AddStringToObject(p, "candidate", sol);
	x = cJSON_AddObjectToObject(p, "extra");
	if (kt_json_str(wl, "uuid"))
		cJSON_AddStringToObject(x, "workload_uuid",
					kt_json_str(wl, "uuid"));
	if (hex)
		cJSON_AddStringToObject(x, "log_blob", hex);
	return kt_impx_emit(imp, KT_KIND_NOTE, 0, ts, "harness", p, r->f,
			    r->line, r->off, r->len, NULL);
}

static int emit_trace(kt_imp *imp, const struct rec *r)
{
	const cJSON *ev = cJSON_GetObjectItemCaseSensitive(r->j, "evaluation");
	const cJSON *wl = cJSON_GetObjectItemCaseSensitive(r->j, "workload");
	const cJSON *perf = cJSON_GetObjectItemCaseSensitive(ev, "performance");
	const cJSON *corr = cJSON_GetObjectItemCaseSensitive(ev, "correctness");
	const cJSON *env = cJSON_GetObjectItemCaseSensitive(ev, "environment");
	const char *status = kt_json_str(ev, "status");
	const char *log = kt_json_str(ev, "log");
	const char *sol = kt_json_str(r->j, "solution");
	int64_t ts = kt_impx_ts(kt_json_str(ev, "timestamp"));
	char hex[KT_HASH_HEX + 1];
	uint64_t cseq = 0;
	cJSON *p, *x, *o;
	double v;
	int rc, have_log = log && *log;

	if (have_log && (rc = kt_imp_blob(imp, log, strlen(log), NULL, hex)))
		return rc;
	/* a build in the log: skipped solutions only quote an old error */
	if (have_log && strncmp(log, "Solution skipped", 16)) {
		char *cmd = build_command(log);

		if (cmd) {
			const char *fail = strstr(log, "FAILED: [code=");
			long ec = fail ? strtol(fail + 14, NULL, 10) : 0;
			char *orig = strdup(cmd), *bdir, *bsrc;

			if (!orig || !(p = cJSON_CreateObject())) {
				free(orig);
				free(cmd);
				return KT_ENOMEM;
			}
			relative_build(cmd, &bdir, &bsrc);
			cJSON_AddStringToObject(p, "command", cmd);
			if (bsrc) {
				cJSON *sa = cJSON_AddArrayToObject(p, "sources");

				cJSON_AddItemToArray(sa, cJSON_CreateString(bsrc));
			}
			cJSON_AddStringToObject(p, "compiler", strstr(cmd,
					"nvcc") ? "nvcc" : "c++");
			/* an exit status is an int (FORMAT.md section 2);
			 * a code past that is no status */
			if (fail && ec >= INT_MIN && ec <= INT_MAX)
				cJSON_AddNumberToObject(p, "exit_code",
							(double)ec);
			else if (fail)
				cJSON_AddNullToObject(p, "exit_code");
			else if (same(status, "COMPILE_ERROR"))
				cJSON_AddNullToObject(p, "exit_code");
			else
				cJSON_AddNumberToObject(p, "exit_code", 0);
			cJSON_AddStringToObject(p, "diagnostics_blob", hex);
			x = cJSON_AddObjectToObject(p, "extra");
			if (sol)
				cJSON_AddStringToObject(x, "solution", sol);
			if (status)
				cJSON_AddStringToObject(x, "status", status);
			if (bdir) {
				/* the command as the log has it, and where */
				cJSON_AddStringToObject(x, "build_dir", bdir);
				cJSON_AddStringToObject(x, "recorded_command",
							orig);
			}
			free(bdir);
			free(bsrc);
			free(orig);
			free(cmd);
			if ((rc = kt_impx_emit(imp, KT_KIND_COMPILE, 0, ts,
					       "harness", p, r->f, r->line,
					       r->off, r->len, &cseq)))
				return rc;
		}
	}
	/* a failed build measured nothing: its compile event (above) says
	 * it, else a note does; never a bench result of the solution */
	if (same(status, "COMPILE_ERROR"))
		return cseq ? 0 : emit_unbuilt(imp, r, status, sol, wl,
					       have_log ? hex : NULL, ts);
	if (!(p = cJSON_CreateObject()))
		return KT_ENOMEM;
	cJSON_AddStringToObject(p, "workload", r->def);
	if ((rc = add_scenario(p, wl)))
		return rc;
	if (sol)
		cJSON_AddStringToObject(p, "candidate", sol);
	/* flashinfer-bench times the solution against the definition's
	 * reference implementation (performance.reference_latency_ms) */
	cJSON_AddStringToObject(p, "metric", "time");
	cJSON_AddStringToObject(p, "baseline", "reference");
	cJSON_AddStringToObject(p, "source", "flashinfer-bench");
	/* FORMAT.md section 2: times >= 0, a speedup > 0 (store/event_model.h
	 * refuses others); a value out of range is no measurement */
	if (kt_impx_num(perf, "latency_ms", &v) && v >= 0)
		cJSON_AddNumberToObject(p, "time_ms", v);
	else
		cJSON_AddNullToObject(p, "time_ms");
	if (kt_impx_num(perf, "reference_latency_ms", &v) && v >= 0)
		cJSON_AddNumberToObject(p, "ref_time_ms", v);
	if (kt_impx_num(perf, "speedup_factor", &v) && v > 0)
		cJSON_AddNumberToObject(p, "speedup", v);
	/* PASSED is the only good status (flashinfer_bench/data/trace.py
	 * EvaluationStatus); a solution that failed to run was never
	 * checked; an absent status says nothing */
	if (!status || failed_to_run(status))
		cJSON_AddNullToObject(p, "correct");
	else
		cJSON_AddBoolToObject(p, "correct", !strcmp(status, "PASSED"));
	if (cJSON_IsObject(corr)) {
		o = cJSON_AddObjectToObject(p, "error");
		if (kt_impx_num(corr, "max_absolute_error", &v) && v >= 0)
			cJSON_AddNumberToObject(o, "max_abs", v);
		if (kt_impx_num(corr, "max_relative_error", &v) && v >= 0)
			cJSON_AddNumberToObject(o, "max_rel", v);
		if (cJSON_GetObjectItemCaseSensitive(corr, "extra") &&
		    !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(corr,
								  "extra")))
			cJSON_AddItemToObject(o, "extra", cJSON_Duplicate(
				cJSON_GetObjectItemCaseSensitive(corr, "extra"),
				1));
	}
	if (cJSON_IsObject(env))
		cJSON_AddItemToObject(p, "fingerprint",
				      cJSON_Duplicate(env, 1));
	if (status)
		cJSON_AddStringToObject(p, "status", status);
	x = cJSON_AddObjectToObject(p, "extra");
	if (cJSON_GetObjectItemCaseSensitive(wl, "axes"))
		cJSON_AddItemToObject(x, "axes", cJSON_Duplicate(
			cJSON_GetObjectItemCaseSensitive(wl, "axes"), 1));
	if (kt_json_str(wl, "uuid"))
		cJSON_AddStringToObject(x, "workload_uuid",
					kt_json_str(wl, "uuid"));
	if (have_log)
		cJSON_AddStringToObject(x, "log_blob", hex);
	keep_rest(x, r->j, trace_known);
	keep_rest(x, ev, eval_known);
	return kt_impx_emit(imp, KT_KIND_BENCH, cseq, ts, "harness", p, r->f,
			    r->line, r->off, r->len, NULL);
}

static int by_round(const void *a, const void *b)
{
	const struct rec *x = *(struct rec *const *)a;
	const struct rec *y = *(struct rec *const *)b;

	if (x->round != y->round)
		return x->round < y->round ? -1 : 1;
	if (x->cand != y->cand)
		return x->cand < y->cand ? -1 : 1;
	return strcmp(kt_json_str(x->j, "name"), kt_json_str(y->j, "name"));
}

/* Trace author: its solution's author when we have the solution. */
static void trace_authors(struct set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct rec *r = &s->r[i];
		const struct rec *sol;

		if (r->kind != R_TRACE)
			continue;
		sol = find_solution(s, kt_json_str(r->j, "solution"));
		r->author = sol ? strdup(sol->author) :
			author_from_name(kt_json_str(r->j, "solution"), r->def);
	}
}

static int emit_group(kt_imp *imp, struct set *s, const char *def,
		      const char *author)
{
	const struct rec *dr = NULL;
	struct rec **sols = NULL;
	size_t nsol = 0;
	int has_w = 0, has_t = 0, rc;
	char parts[8], *ident = NULL, *name = NULL;
	cJSON *meta, *x;

	for (size_t i = 0; i < s->n; i++) {
		struct rec *r = &s->r[i];

		if (!same(r->def, def))
			continue;
		if (r->kind == R_DEF && !dr)
			dr = r;
		has_w |= r->kind == R_WORKLOAD;
		if (author && same(r->author, author)) {
			has_t |= r->kind == R_TRACE;
			if (r->kind == R_SOL) {
				struct rec **nv = realloc(sols, (nsol + 1) *
							  sizeof(*nv));

				if (!nv) {
					free(sols);
					return KT_ENOMEM;
				}
				sols = nv;
				sols[nsol++] = r;
			}
		}
	}
	if (nsol)
		qsort(sols, nsol, sizeof(*sols), by_round);
	snprintf(parts, sizeof(parts), "%s%s%s%s", dr ? "d" : "",
		 has_w ? "w" : "", nsol ? "s" : "", has_t ? "t" : "");
	if (asprintf(&ident, "%s:%s:%s:%s", FMT, def, author ? author : "-",
		     parts) < 0 ||
	    asprintf(&name, "%s%s%s", author ? author : "", author ? "/" : "",
		     def) < 0) {
		free(sols);
		return KT_ENOMEM;
	}
	meta = cJSON_CreateObject();
	cJSON_AddStringToObject(meta, "source", FMT);
	if (author)
		cJSON_AddStringToObject(meta, "model", author);
	x = cJSON_AddObjectToObject(meta, "extra");
	cJSON_AddStringToObject(x, "definition", def);
	if (dr && kt_json_str(dr->j, "op_type"))
		cJSON_AddStringToObject(x, "op_type",
					kt_json_str(dr->j, "op_type"));
	cJSON_AddStringToObject(x, "parts", parts);
	if ((rc = kt_imp_run_begin(imp, ident, name, FMT, meta)))
		goto out;
	if (dr && (rc = emit_def(imp, dr)))
		goto end;
	if ((rc = emit_workloads(imp, s, def)))
		goto end;
	/* each solution, then the traces that measured it */
	for (size_t k = 0; k <= nsol && author; k++) {
		const char *sname = k < nsol ?
			kt_json_str(sols[k]->j, "name") : NULL;

		if (k < nsol && (rc = emit_solution(imp, sols[k])))
			goto end;
		for (size_t i = 0; i < s->n; i++) {
			struct rec *r = &s->r[i];

			if (r->kind != R_TRACE || r->used ||
			    !same(r->def, def) || !same(r->author, author))
				continue;
			/* after the last solution: every trace left over */
			if (sname && !same(kt_json_str(r->j, "solution"),
					   sname))
				continue;
			r->used = 1;
			if ((rc = emit_trace(imp, r)))
				goto end;
		}
	}
end:
	rc = kt_imp_run_finish(imp, rc);
out:
	free(sols);
	free(ident);
	free(name);
	return rc;
}

static int import(kt_imp *imp, const kt_file *f)
{
	struct set s;
	int rc;

	memset(&s, 0, sizeof(s));
	s.imp = imp;
	if ((rc = load(&s, f)))
		goto out;
	if (!s.n) {
		/* a file that is not JSON has said why already */
		if (!s.unparsed)
			kt_imp_warn(imp, f, 0, "no FlashInfer records");
		goto out;
	}
	if ((rc = load_siblings(&s, f)))
		goto out;
	trace_authors(&s);
	/* one run per (definition, author) in order of first appearance;
	 * a definition nobody worked on still gets a run of its own */
	for (size_t i = 0; i < s.n && !rc; i++) {
		const struct rec *r = &s.r[i];
		int seen = 0;

		if (r->kind != R_SOL && r->kind != R_TRACE)
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = (s.r[j].kind == R_SOL || s.r[j].kind == R_TRACE)
				&& same(s.r[j].def, r->def) &&
				same(s.r[j].author, r->author);
		if (!seen)
			rc = emit_group(imp, &s, r->def, r->author);
	}
	for (size_t i = 0; i < s.n && !rc; i++) {
		const struct rec *r = &s.r[i];
		int seen = 0;

		if (r->kind != R_DEF && r->kind != R_WORKLOAD)
			continue;
		for (size_t j = 0; j < s.n && !seen; j++)
			seen = (j < i && same(s.r[j].def, r->def) &&
				(s.r[j].kind == R_DEF ||
				 s.r[j].kind == R_WORKLOAD)) ||
				((s.r[j].kind == R_SOL ||
				  s.r[j].kind == R_TRACE) &&
				 same(s.r[j].def, r->def));
		if (!seen)
			rc = emit_group(imp, &s, r->def, NULL);
	}
out:
	for (size_t i = 0; i < s.n; i++) {
		cJSON_Delete(s.r[i].j);
		free(s.r[i].author);
	}
	free(s.r);
	for (size_t i = 0; i < s.ndefs; i++)
		free(s.defs[i]);
	free(s.defs);
	return rc;
}

const kt_importer kt_importer_flashinfer = {
	.name = FMT,
	.summary = "FlashInfer-Bench definitions, workloads, solutions and "
		   "traces: one run per definition and author",
	.detect = detect,
	.import = import,
};
