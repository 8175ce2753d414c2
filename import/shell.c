/*
 * shell.c - typed events from a finished shell tool call.
 *
 * The text work (which files a command wrote, which builds ran and how they
 * ended, whether a benchmark program ran) is done without the store by
 * kt_sh_plan_build() in shellparse.c; this file applies that plan to the
 * run's workspace and emits the `compile` and `bench` events.  The rules
 * are listed in import/README.md ("Shell commands").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "import.h"
#include "imp_int.h"
#include "impx.h"
#include "shellparse.h"

/* The content of op: its own data, or the files it copies, as the
 * workspace knows them.  NULL (and *ok 0) when one of them is unknown. */
static char *op_content(kt_imp *imp, const struct kt_sh_op *op, size_t *len,
			int *rc)
{
	struct kt_buf b = { 0 };
	char *out;
	size_t i;

	*rc = 0;
	if (op->have_data) {
		kt_buf_add(&b, op->data, op->len);
	} else {
		if (!op->nfiles)
			return NULL;
		for (i = 0; i < op->nfiles; i++) {
			size_t l = 0;
			const char *c = kt_ws_get(imp, op->files[i], &l);

			if (!c) {
				kt_buf_free(&b);
				return NULL;
			}
			kt_buf_add(&b, c, l);
		}
	}
	*len = b.len;
	if (!(out = kt_buf_take(&b)))
		*rc = KT_ENOMEM;
	return out;
}

/* A patch file applied (KT_SH_PATCH): the files it names, as the
 * workspace knows the patch, become unknown; all of dir when it does not
 * know it. */
static int apply_patch_op(kt_imp *imp, const struct kt_sh_op *op,
			  uint64_t call)
{
	size_t len = 0, n = 0, i;
	const char *text = kt_ws_get(imp, op->path, &len);
	char **t = NULL;
	int rc;

	if (!text)
		return kt_ws_invalidate_where(imp, op->dir ? op->dir : "", NULL,
					      call, "shell");
	rc = kt_sh_diff_targets(text, len, op->dir, op->strip, &t, &n);
	if (!rc && !n)
		rc = kt_ws_invalidate_where(imp, op->dir ? op->dir : "", NULL,
					    call, "shell");
	for (i = 0; i < n; i++) {
		if (!rc)
			rc = kt_ws_invalidate(imp, t[i], call, "shell");
		free(t[i]);
	}
	free(t);
	return rc;
}

static int apply_op(kt_imp *imp, const struct kt_sh_op *op, uint64_t call)
{
	char *path, *data = NULL;
	size_t len = 0;
	int rc = 0;

	unsigned how = op->present_only ? KT_WS_PRESENT : 0;

	if (op->op == KT_SH_UNKNOWN_UNDER)
		return kt_ws_invalidate_match(imp, op->path, NULL, how, call,
					      "shell");
	if (op->op == KT_SH_UNKNOWN_GLOB || op->op == KT_SH_UNKNOWN_TREE)
		return kt_ws_invalidate_match(imp, NULL, op->path, how |
					      (op->op == KT_SH_UNKNOWN_TREE ?
					       KT_WS_TREE : 0), call, "shell");
	if (op->op == KT_SH_PATCH)
		return apply_patch_op(imp, op, call);
	if (op->op == KT_SH_DELETE_UNDER)
		return *op->path ? kt_ws_delete_under(imp, op->path, call,
						      "shell") : 0;
	path = kt_ws_path(NULL, op->path);
	if (!path)
		return KT_ENOMEM;
	if (op->op == KT_SH_DELETE) {
		rc = kt_ws_delete(imp, path, call, "shell");
		if (rc == KT_ENOTFOUND)
			rc = 0;
		goto out;
	}
	/* content we cannot work out: the file's old content is stale, so
	 * the workspace forgets it rather than keep it or guess */
	if (op->op == KT_SH_UNKNOWN) {
		/* a removal cannot make an absent file exist */
		if (op->present_only && !kt_ws_get(imp, path, &len))
			goto out;
		goto unknown;
	}
	data = op_content(imp, op, &len, &rc);
	if (!data) {
		if (rc)
			goto out;
		goto unknown;
	}
	if (op->op == KT_SH_APPEND) {
		size_t bl = 0;
		const char *b = kt_ws_get(imp, path, &bl);
		char *all;

		/* appending to a file whose content we do not know */
		if (!b)
			goto unknown;
		all = malloc(bl + len + 1);
		if (!all) {
			rc = KT_ENOMEM;
			goto out;
		}
		memcpy(all, b, bl);
		memcpy(all + bl, data, len);
		all[bl + len] = 0;
		free(data);
		data = all;
		len += bl;
	}
	rc = kt_ws_write(imp, path, data, len, call, "shell");
	goto out;
unknown:
	rc = kt_ws_invalidate(imp, path, call, "shell");
out:
	free(data);
	free(path);
	return rc;
}

static cJSON *str_array(char **v, size_t n)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;

	for (i = 0; a && i < n; i++)
		if (v[i])
			cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
	return a;
}

static int emit(kt_imp *imp, int kind, uint64_t parent, int64_t ts,
		uint64_t call, cJSON *payload)
{
	const char *actor = kt_imp_actor_of(imp, call);

	/* a sub-agent's events say so in the payload too (imp_claude.c) */
	if (actor && !strncmp(actor, "agent:", 6) && actor[6] &&
	    !cJSON_GetObjectItem(payload, "subagent"))
		cJSON_AddStringToObject(payload, "subagent", actor + 6);
	/* what a command's output says (a compile, a bench result) comes from
	 * the record of that output, the event emitted just before: its
	 * file:line is where `ktraj show` and an import error point */
	return kt_impx_emit(imp, kind, parent, ts, actor, payload, imp->ev_file,
			    imp->ev_line, imp->ev_off, imp->ev_len, NULL);
}

static int emit_compile(kt_imp *imp, const struct kt_sh_compile *c,
			uint64_t call, int64_t ts)
{
	cJSON *p = cJSON_CreateObject();
	char hex[KT_HASH_HEX + 1];
	int rc;

	if (!p)
		return KT_ENOMEM;
	cJSON_AddStringToObject(p, "command", c->command);
	if (c->cwd)
		cJSON_AddStringToObject(p, "cwd", c->cwd);
	cJSON_AddStringToObject(p, "compiler", c->compiler);
	cJSON_AddItemToObject(p, "flags", str_array(c->flags, c->nflags));
	if (c->arch)
		cJSON_AddStringToObject(p, "arch", c->arch);
	if (c->nsources)
		cJSON_AddItemToObject(p, "sources",
				      str_array(c->sources, c->nsources));
	if (c->exit_code >= 0)
		cJSON_AddNumberToObject(p, "exit_code", c->exit_code);
	else
		cJSON_AddNullToObject(p, "exit_code");
	if (c->exit_code < 0 && c->failed)
		cJSON_AddFalseToObject(p, "ok");
	if (c->duration_ms >= 0)
		cJSON_AddNumberToObject(p, "duration_ms", c->duration_ms);
	if (c->diag && c->diag_len) {
		rc = kt_imp_blob(imp, c->diag, c->diag_len, "diagnostics.txt",
				 hex);
		if (rc) {
			cJSON_Delete(p);
			return rc;
		}
		cJSON_AddStringToObject(p, "diagnostics_blob", hex);
	}
	return emit(imp, KT_KIND_COMPILE, call, ts, call, p);
}

/* A program that built its kernel at run time and failed (Triton, torch.compile,
 * a cpp_extension or nvcc JIT build: kt_out_build_error) gives a failed
 * compile event; its exit code is 1 whatever the program returned, as
 * the KernelAgent importer writes for the same errors. */
static int emit_jit_failure(kt_imp *imp, const struct kt_sh_plan *plan,
			    const char *cmd, const char *output, uint64_t call,
			    int64_t ts)
{
	size_t at = 0, n = 0;
	const char *who = kt_out_build_error(output, strlen(output), &at, &n);
	char hex[KT_HASH_HEX + 1];
	cJSON *p, *x;
	int rc;

	if (!who)
		return 0;
	if (!(p = cJSON_CreateObject()))
		return KT_ENOMEM;
	cJSON_AddStringToObject(p, "command", plan->bench_src ?
				plan->bench_src : cmd);
	cJSON_AddStringToObject(p, "compiler", who);
	cJSON_AddNumberToObject(p, "exit_code", 1);
	rc = kt_imp_blob(imp, output + at, n, "diagnostics.txt", hex);
	if (rc) {
		cJSON_Delete(p);
		return rc;
	}
	cJSON_AddStringToObject(p, "diagnostics_blob", hex);
	if ((x = cJSON_AddObjectToObject(p, "extra")))
		cJSON_AddStringToObject(x, "reported_by", "program output");
	return emit(imp, KT_KIND_COMPILE, call, ts, call, p);
}

/* The code the run's edits left (kt_ws_code_hash) into code, "" when no
 * code file was edited.  Results seen under other code are forgotten: a
 * result printed again counts as one only while the code is unchanged
 * (FORMAT.md section 14 "Noise": repeats of unchanged code are what
 * noise is read from, a re-print is not a repeat). */
static int code_state(kt_imp *imp, char code[KT_HASH_HEX + 1])
{
	int rc = kt_ws_code_hash(imp, code);

	if (rc < 0)
		return rc;
	if (!rc)
		*code = 0;
	if (!imp->bench_seen || strcmp(code, imp->bench_code)) {
		cJSON_Delete(imp->bench_seen);
		if (!(imp->bench_seen = cJSON_CreateArray()))
			return KT_ENOMEM;
		memcpy(imp->bench_code, code, KT_HASH_HEX + 1);
	}
	return 0;
}

/* Triton perf_report tables (perfreport.c) join the results of bench:
 * read with the unit their script declares, they replace the "unparsed"
 * table the free-text reader gave for them; a table whose unit the
 * trajectory does not show stays one unparsed result. */
static int perf_tables(kt_imp *imp, const char *cmd, const char *output,
		       cJSON *bench)
{
	cJSON *pr = NULL, *b, *nx;
	int unread = 0, rc;

	if (!bench || !strstr(output, ":\n"))
		return 0;
	if ((rc = kt_perf_report(imp, cmd, output, strlen(output), &pr,
				 &unread)))
		return rc;
	if (cJSON_GetArraySize(pr)) {
		/* a perf_report checks nothing itself; the script's own
		 * check before it (the tutorials print "✅ Triton and Torch
		 * match") is the tables' verdict */
		int v = kt_bench_verdict(output, strlen(output));

		cJSON_ArrayForEach(b, pr)
			if (v >= 0)
				cJSON_ReplaceItemInObject(b, "correct",
							  cJSON_CreateBool(v));
		for (b = bench->child; b; b = nx) {
			cJSON *st = cJSON_GetObjectItem(b, "status");

			nx = b->next;
			if (cJSON_IsString(st) &&
			    !strcmp(st->valuestring, "unparsed"))
				cJSON_Delete(cJSON_DetachItemViaPointer(bench, b));
		}
		while ((b = cJSON_DetachItemFromArray(pr, 0)))
			cJSON_AddItemToArray(bench, b);
	} else if (unread && !cJSON_GetArraySize(bench) &&
		   (b = cJSON_CreateObject())) {
		cJSON_AddNullToObject(b, "time_ms");
		cJSON_AddNullToObject(b, "correct");
		cJSON_AddStringToObject(b, "status", "unparsed");
		cJSON_AddStringToObject(b, "pattern", "perf_report");
		cJSON_AddItemToArray(bench, b);
	}
	cJSON_Delete(pr);
	return 0;
}

/* Emits the results of one output (kt_bench_parse's array) as bench events
 * of call, children of its result: a result printed again (the same
 * figures from the same file or command, kt_bench_repeats against every
 * result of the source so far) is skipped.  workload, source: what
 * measured, when the result does not name it (NULL: nothing); code: the
 * workspace's code state (source_hash), "" when unknown. */
static int emit_results(kt_imp *imp, cJSON *bench, const char *workload,
			const char *source, const char *code, uint64_t call,
			uint64_t result, int64_t ts_ns)
{
	cJSON *b;
	int rc = 0;

	cJSON_ArrayForEach(b, bench) {
		cJSON *d;

		if (kt_bench_repeats(imp->bench_seen, b))
			continue;
		if (!cJSON_AddItemToArray(imp->bench_seen,
					  cJSON_Duplicate(b, 1)))
			return KT_ENOMEM;
		if (workload && !cJSON_GetObjectItem(b, "workload"))
			cJSON_AddStringToObject(b, "workload", workload);
		if (source && !cJSON_GetObjectItem(b, "source"))
			cJSON_AddStringToObject(b, "source", source);
		/* a command the agent ran is its own check, even when it runs
		 * the grader's verifier: what the benchmark grades is the
		 * grader's record (reward.json; FORMAT.md section 14 "Graded
		 * result"), so the metric is chosen as the grader's but the
		 * result is not graded */
		cJSON_DeleteItemFromObject(b, "graded");
		if (*code && !cJSON_GetObjectItem(b, "source_hash") &&
		    !cJSON_GetObjectItem(b, "status"))
			cJSON_AddStringToObject(b, "source_hash", code);
		if (!cJSON_GetObjectItem(b, "status") &&
		    (rc = kt_imp_bench_key_note(imp, b)))
			return rc;
		d = cJSON_Duplicate(b, 1);
		rc = d ? emit(imp, KT_KIND_BENCH, result ? result : call, ts_ns,
			      call, d) : KT_ENOMEM;
		if (rc)
			return rc;
	}
	return 0;
}

/* The file of a plain `cat FILE` (one word, no quoting, redirection or
 * pipe), joined to cwd: malloc'ed, NULL for any other command.  A results
 * file shown with cat is the same report as one shown with a Read tool
 * (kt_imp_bench_file), whichever agent ran the shell. */
static char *cat_file(const char *cmd, const char *cwd)
{
	const char *a, *e;

	while (*cmd == ' ' || *cmd == '\t')
		cmd++;
	if (strncmp(cmd, "cat", 3) || (cmd[3] != ' ' && cmd[3] != '\t'))
		return NULL;
	for (a = cmd + 3; *a == ' ' || *a == '\t'; a++)
		;
	for (e = a; *e && !strchr(" \t\n|&;<>()$`'\"\\*?[{~", *e); e++)
		;
	if (e == a || *a == '-')
		return NULL;
	for (cmd = e; *cmd == ' ' || *cmd == '\t' || *cmd == '\n'; cmd++)
		;
	if (*cmd)
		return NULL;
	{
		char *w = strndup(a, (size_t)(e - a)), *p;

		if (!w)
			return NULL;
		p = kt_sh_path(cwd, w);
		free(w);
		return p;
	}
}

/* Whether the workspace, as this run has shown it so far (an edit that
 * wrote it, a read), holds a build file in dir that declares a native
 * extension (setuptools ext_modules, torch's CUDAExtension/CppExtension,
 * pybind11's): then pip's quiet "built X" is a compile.  A build file the
 * run never showed, or one without such words (a pure-Python package),
 * is not taken for one. */
static int ws_declares_ext(kt_imp *imp, const char *dir)
{
	static const char *const files[] = { "setup.py", "pyproject.toml",
		"setup.cfg", NULL };
	static const char *const marks[] = { "ext_modules", "CUDAExtension",
		"CppExtension", "cpp_extension", "BuildExtension",
		"Pybind11Extension", NULL };
	char p[4096];
	const char *t;
	size_t n;
	int i, k;

	for (i = 0; files[i]; i++) {
		snprintf(p, sizeof(p), "%s%s%s", dir,
			 *dir && dir[strlen(dir) - 1] != '/' ? "/" : "",
			 files[i]);
		if (!(t = kt_ws_get(imp, p, &n)))
			continue;
		for (k = 0; marks[k]; k++)
			if (memmem(t, n, marks[k], strlen(marks[k])))
				return 1;
	}
	return 0;
}

int kt_shell_classify(kt_imp *imp, uint64_t call, uint64_t result,
		      const char *cmd, const char *cwd, const char *output,
		      int exit_code, int ok, int64_t ts_ns)
{
	struct kt_sh_plan plan;
	cJSON *bench = NULL;
	char code[KT_HASH_HEX + 1] = "";
	size_t i;
	int rc;

	if (!imp || !cmd)
		return KT_EINVAL;
	rc = kt_sh_plan_build(cmd, cwd, output, exit_code, ok, &plan);
	if (rc)
		return rc;
	for (i = 0; i < plan.nops && !rc; i++)
		rc = apply_op(imp, &plan.ops[i], call);
	for (i = 0; i < plan.ncc && !rc; i++)
		if (!plan.cc[i].ext_dir ||
		    ws_declares_ext(imp, plan.cc[i].ext_dir))
			rc = emit_compile(imp, &plan.cc[i], call, ts_ns);
	if (!rc && plan.bench && !plan.ncc && output && *output)
		rc = emit_jit_failure(imp, &plan, cmd, output, call, ts_ns);
	if (!rc && plan.bench && output && *output) {
		rc = kt_bench_parse_hint(output, strlen(output),
					 &imp->bench_hint, &bench);
		if (!rc)
			rc = perf_tables(imp, cmd, output, bench);
		if (!rc)
			rc = code_state(imp, code);
		if (!rc)
			rc = emit_results(imp, bench,
					  /* "python -" names no workload */
					  plan.bench_prog &&
					  strcmp(plan.bench_prog, "python -") &&
					  strcmp(plan.bench_prog, "python -c") ?
					  plan.bench_prog : NULL,
					  plan.bench_src, code, call, result, ts_ns);
		cJSON_Delete(bench);
	} else if (!rc && ok && exit_code <= 0 && output && *output) {
		char *f = cat_file(cmd, cwd);

		if (f)
			rc = kt_imp_bench_file(imp, call, result, f, output,
					       strlen(output), ts_ns);
		free(f);
	}
	kt_sh_plan_free(&plan);
	return rc;
}

/* text[0..len) without a `cat -n` listing's line prefixes (spaces, a line
 * number, then "→" as Claude Code's Read prints, or a tab): into b. */
static int unnumber(const char *text, size_t len, struct kt_buf *b)
{
	size_t i = 0;

	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - text) - i + 1 : len - i, k = 0;
		const char *l = text + i;

		while (k < n && l[k] == ' ')
			k++;
		if (k < n && l[k] >= '0' && l[k] <= '9') {
			size_t d = k;

			while (d < n && l[d] >= '0' && l[d] <= '9')
				d++;
			if (n - d >= 3 && !memcmp(l + d, "\xe2\x86\x92", 3))
				k = d + 3;
			else if (d < n && l[d] == '\t')
				k = d + 1;
			else
				k = 0;
		} else {
			k = 0;
		}
		if (kt_buf_add(b, l + k, n - k))
			return KT_ENOMEM;
		i += n;
	}
	return kt_buf_add(b, "", 0) ? KT_ENOMEM : 0;
}

/* Whether every timed result of a file was reported by the run already,
 * at the precision its output printed: a program that prints a table and
 * writes the same figures to a results file (vsla_cuda_dev raw 467's
 * "| matrix_multiplication | 512 | 326.56 |" and raw 390's
 * comprehensive_results.json "mean_time_us": 326.562) measured once.
 * 0.5 % is half a unit of a figure printed to 3 significant digits. */
static int reported_before(const cJSON *seen, const cJSON *bench)
{
	const cJSON *b, *p;
	int timed = 0;

	cJSON_ArrayForEach(b, bench) {
		const cJSON *t = cJSON_GetObjectItem(b, "time_ms");
		int found = 0;

		if (!cJSON_IsNumber(t) || !(t->valuedouble > 0))
			continue;
		timed++;
		cJSON_ArrayForEach(p, seen) {
			const cJSON *u = cJSON_GetObjectItem(p, "time_ms");

			if (cJSON_IsNumber(u) &&
			    fabs(u->valuedouble / t->valuedouble - 1) <= 0.005) {
				found = 1;
				break;
			}
		}
		if (!found)
			return 0;
	}
	return timed > 0;
}

int kt_imp_bench_file(kt_imp *imp, uint64_t call, uint64_t result,
		      const char *path, const char *text, size_t len,
		      int64_t ts_ns)
{
	struct kt_buf b = { 0 }, key = { 0 };
	char code[KT_HASH_HEX + 1], h[24];
	cJSON *bench = NULL, *x;
	size_t n;
	void **slot;
	int rc;

	if (!imp || !path)
		return KT_EINVAL;
	n = strlen(path);
	if (!text || !((n > 5 && !strcasecmp(path + n - 5, ".json")) ||
		       (n > 6 && !strcasecmp(path + n - 6, ".jsonl"))))
		return 0;
	if ((rc = unnumber(text, len, &b)))
		goto out;
	snprintf(h, sizeof(h), "%016llx", (unsigned long long)
		 kt_fnv1a(KT_FNV1A_INIT, b.s, b.len));
	kt_buf_add(&key, path, n);
	kt_buf_add(&key, "\x1f", 1);
	if (kt_buf_add(&key, h, strlen(h)) ||
	    !(slot = kt_strmap_slot(&imp->bench_files, key.s, 1))) {
		rc = KT_ENOMEM;
		goto out;
	}
	if (*slot)
		goto out;       /* read before, unchanged */
	*slot = (void *)1;
	/* the run's results so far, for reported_before */
	if ((rc = code_state(imp, code)))
		goto out;
	if ((rc = kt_bench_parse(b.s, b.len, &bench)))
		goto out;
	/* only what the JSON reader found: a number in free text around a
	 * results file is no result of it, nor is an unparsed marker */
	for (x = bench ? bench->child : NULL; x;) {
		cJSON *nx = x->next;
		const char *pat = kt_json_str(x, "pattern");

		if (!pat || strcmp(pat, "json"))
			cJSON_Delete(cJSON_DetachItemViaPointer(bench, x));
		x = nx;
	}
	if (!reported_before(imp->bench_seen, bench))
		rc = emit_results(imp, bench, kt_basename(path), path, "",
				  call, result, ts_ns);
out:
	cJSON_Delete(bench);
	free(b.s);
	free(key.s);
	return rc;
}
