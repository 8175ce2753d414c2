/*
 * t_import_oom.c - out of memory while an importer parses JSON: every
 * allocation of every kt_cjson_parse an import makes is failed in turn
 * (kt_cjson_fail_at), and each import must fail with KT_ENOMEM, never
 * KT_EPARSE or a warning about invalid JSON (the input is fine), never
 * crash, and leave the store as it was.  Formats through each parse path:
 * a one-document file (kt_impx_parse: SWE-agent), JSONL read whole
 * (kt_impx_jsonl_all: codex exec), JSONL line by line (kt_impx_jsonl:
 * STS), Claude Code's own line parser, ktraj JSONL, and the parsers of
 * ATIF (sub-trajectories, sidecars), Codex, Gemini CLI and Copilot CLI;
 * then the secondary parses of JSON held in a string (tool arguments and
 * outputs, OTel messages, Cline tool/usage text, KernelAgent history and
 * reflexion, Inspect and Copilot arguments, SWE-agent state, KernelBench
 * runtime stats, a bench's JSON line, OpenCode rows) and of a stored run's
 * provenance and map meta on re-import; and the analyzers' load of a run.
 */
#include "testutil.h"
/* the shared import helpers this file has no use for are not errors */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "imp_testlib.h"
#include <sqlite3.h>
#include "../../base/kt_base.h"
#include "../../analyze/analyze.h"

static int snap_run(const kt_run_info *r, void *arg)
{
	char *s = arg;
	size_t n = strlen(s);

	snprintf(s + n, 4096 - n, "%s %s %llu\n", r->id, r->format,
		 (unsigned long long)r->n_events);
	return 0;
}

/* The store's runs and their event counts, one line each. */
static void snap(it_ctx *c, char out[4096])
{
	out[0] = 0;
	assert_int_equal(kt_run_foreach(c->s, snap_run, out), 0);
}

static int count(const char *s, const char *needle)
{
	int n = 0;

	while ((s = strstr(s, needle))) {
		n++;
		s++;
	}
	return n;
}

/* Import fixture rel as format fmt (forced: detection parses too, and a
 * failure there is no import's) with each parse allocation failed in
 * turn, into a store that holds the run of fixture `other`; then without
 * failures. */
static void sweep_at(const char *p, const char *rel, const char *fmt,
		     const char *other)
{
	char base[4096], before[4096], after[4096];
	it_ctx c;
	long nth, left;
	int bad;

	/* the fixture's own bad lines, warned by a clean import */
	it_open(&c);
	it_import(&c, fmt, 0, 1, p);
	bad = count(c.warns, "invalid JSON");
	it_close(&c);

	it_open(&c);
	/* a store with something in it: "unchanged" is more than empty */
	assert_int_equal(it_import(&c, NULL, 0, 1,
				   it_fixture(base, sizeof(base), other)), 0);
	snap(&c, before);
	assert_true(strlen(before) > 0);
	for (nth = 0; nth < 200000; nth++) {
		int rc;

		kt_cjson_fail_at(nth);
		rc = it_import(&c, fmt, 0, 1, p);
		left = kt_cjson_fail_at(-1);
		if (left >= 0)
			break;          /* the import made fewer allocations */
		if (rc != KT_ENOMEM)
			fail_msg("%s: allocation %ld failed: rc %d, not "
				 "KT_ENOMEM; warnings:\n%s", rel, nth, rc,
				 c.warns);
		/* the lines that are bad are said, no more */
		if (count(c.warns, "invalid JSON") > bad)
			fail_msg("%s: allocation %ld: %s", rel, nth, c.warns);
		snap(&c, after);
		assert_string_equal(after, before);
	}
	/* some allocation was failed, and the walk reached the end */
	assert_true(nth > 0);
	assert_true(left >= 0);
	/* the last import ran without a failure: it kept the source */
	snap(&c, after);
	assert_string_not_equal(after, before);
	assert_int_equal(kt_store_verify(c.s, NULL, NULL, NULL), 0);
	it_close(&c);
}

static void sweep(const char *rel, const char *fmt, const char *other)
{
	char p[4096];

	sweep_at(it_fixture(p, sizeof(p), rel), rel, fmt, other);
}

static void t_document(void **st)
{
	(void)st;
	sweep("swe/mini.json", "swe_agent", "sts/tools.sts.jsonl");
}

static void t_jsonl_all(void **st)
{
	(void)st;
	sweep("codex_exec/build.jsonl", "codex_exec", "sts/tools.sts.jsonl");
}

static void t_jsonl_lines(void **st)
{
	(void)st;
	sweep("sts/tools.sts.jsonl", "sts", "swe/mini.json");
}

static void t_claude(void **st)
{
	(void)st;
	sweep("claude/s2x.jsonl", "claude_code", "sts/tools.sts.jsonl");
}

static void t_ktraj(void **st)
{
	(void)st;
	sweep("ktraj/parent_skip.jsonl", "ktraj", "sts/tools.sts.jsonl");
}

static void t_others(void **st)
{
	(void)st;
	/* with a sub-trajectory beside it; with a metrics sidecar */
	sweep("atif/parent.trajectory.json", "atif", "sts/tools.sts.jsonl");
	sweep("atif/nonconf.trajectory.json", "atif", "sts/tools.sts.jsonl");
	sweep("codex/workdir.jsonl", "codex", "sts/tools.sts.jsonl");
	sweep("gemini_cli/session.json", "gemini_cli", "sts/tools.sts.jsonl");
	sweep("copilot_cli/events.jsonl", "copilot_cli",
	      "sts/tools.sts.jsonl");
}

/* ---- secondary parses -------------------------------------------------
 * JSON held in a string of the source (tool arguments, a tool output, a
 * messages attribute, a history, a fenced reflexion), a stored run's
 * provenance and meta: each is parsed through kt_cjson_parse, so a failed
 * allocation there is KT_ENOMEM, not "no JSON here".  That the parse is
 * one the sweep reaches is shown by a twin of the fixture whose JSON text
 * is made no JSON (an "x" before it): where the parse goes through the
 * helper the fixture costs more injectable allocations than its twin
 * (the parsed value's nodes), where it does not the two cost the same. */

/* A copy of fixture rel (file or folder) in a new directory *dir; in its
 * file `file` (NULL: the copy itself) every `from` becomes `to` (from
 * NULL: none), at least once.  Returns the copy's path (static). */
static const char *copy_fx(const char *rel, const char *file,
			   const char *from, const char *to, char **dir)
{
	static char out[4096];
	char src[4096], cmd[9000], f[4600];
	const char *b = strrchr(rel, '/');
	char *t, *hit, *p;
	size_t n;
	FILE *w;

	*dir = tu_tmpdir();
	assert_non_null(*dir);
	b = b ? b + 1 : rel;
	snprintf(cmd, sizeof(cmd), "cp -R '%s' '%s/'",
		 it_fixture(src, sizeof(src), rel), *dir);
	assert_int_equal(system(cmd), 0);
	snprintf(out, sizeof(out), "%s/%s", *dir, b);
	if (!from)
		return out;
	snprintf(f, sizeof(f), "%s%s%s", out, file ? "/" : "", file ? file : "");
	t = tu_slurp(f, &n);
	assert_non_null(t);
	assert_non_null(strstr(t, from));
	w = fopen(f, "w");
	assert_non_null(w);
	for (p = t; (hit = strstr(p, from)); p = hit + strlen(from)) {
		fwrite(p, 1, (size_t)(hit - p), w);
		fputs(to, w);
	}
	fputs(p, w);
	fclose(w);
	free(t);
	return out;
}

/* The allocations the kt_cjson_parse calls of importing path (as fmt)
 * into c make: none is failed, the count is what fail_at has left. */
static long parse_allocs(it_ctx *c, const char *fmt, const char *path)
{
	const long big = 1L << 30;
	long left;

	kt_cjson_fail_at(big);
	assert_int_equal(it_import(c, fmt, 0, 1, path), 0);
	left = kt_cjson_fail_at(-1);
	assert_true(left >= 0);
	return big - left;
}

/* The fixture costs more injectable allocations than its twin whose
 * `from` became `to`; then every one of them, failed, is KT_ENOMEM with
 * the store unchanged (sweep). */
static void site_as(const char *rel, const char *fmt, const char *file,
		    const char *from, const char *json, const char *to)
{
	char *d1, *d2;
	const char *full = copy_fx(rel, file, from, json, &d1);
	char fullp[4096];
	it_ctx c;
	long nf, nt;

	snprintf(fullp, sizeof(fullp), "%s", full);
	it_open(&c);
	nf = parse_allocs(&c, fmt, fullp);
	it_close(&c);
	it_open(&c);
	nt = parse_allocs(&c, fmt, copy_fx(rel, file, from, to, &d2));
	it_close(&c);
	if (nf <= nt)
		fail_msg("%s: %s: the JSON text's parse is not injectable "
			 "(%ld allocations, %ld without it)", rel, from, nf,
			 nt);
	sweep_at(fullp, rel, fmt, "sts/tools.sts.jsonl");
	tu_rmrf(d1);
	tu_rmrf(d2);
	free(d1);
	free(d2);
}

/* site_as with the fixture as it is: its `from` is the JSON text */
static void site(const char *rel, const char *fmt, const char *file,
		 const char *from, const char *to)
{
	site_as(rel, fmt, file, from, from, to);
}

/* Inspect tool-call arguments left as a JSON string (the fixture's are
 * "not json": made JSON here) */
static void t_inspect_args(void **st)
{
	(void)st;
	site_as("inspect/mono_v2.json", "inspect", NULL,
		"\"arguments\": \"not json\"",
		"\"arguments\": \"{\\\"code\\\": \\\"print(1)\\\"}\"",
		"\"arguments\": \"x{\\\"code\\\": \\\"print(1)\\\"}\"");
}

/* Copilot CLI's legacy timeline: a tool call's arguments and result held
 * as JSON text (kt_impx_parse_lenient) */
static void t_copilot_args(void **st)
{
	(void)st;
	site("copilot_cli/legacy_args.json", "copilot_cli", NULL,
	     "\"arguments\": \"{", "\"arguments\": \"x{");
	site("copilot_cli/legacy_args.json", "copilot_cli", NULL,
	     "\"result\": \"{", "\"result\": \"x{");
}

/* SWE-agent's step state held as JSON text */
static void t_swe_state(void **st)
{
	(void)st;
	site("swe/v0_demo.traj", "swe_agent", NULL,
	     "\"state\": \"{", "\"state\": \"x{");
}

/* KernelBench eval results: runtime_stats held as JSON text (the
 * fixture's are "{}": given members here) */
static void t_kernelbench_stats(void **st)
{
	(void)st;
	site_as("kernelbench/results_level1_strings.json", "kernelbench", NULL,
		"\"runtime_stats\": \"{}\"",
		"\"runtime_stats\": \"{\\\"mean\\\": 1.5, \\\"std\\\": 0.1}\"",
		"\"runtime_stats\": \"x{\\\"mean\\\": 1.5, \\\"std\\\": 0.1}\"");
}

/* A benchmark's JSON line in a tool output (bp_json_parse) */
static void t_bench_json(void **st)
{
	(void)st;
	site("bench_json_line.jsonl", "claude_code", NULL,
	     "\\n{\\\"kernel\\\"", "\\nx{\\\"kernel\\\"");
}

/* OpenCode's SQLite database: each message and part row's data is JSON
 * text, parsed on its own (the database is built from opencode.sql) */
static void t_opencode_rows(void **st)
{
	char p[4096], db[4200], *sql, *dir = tu_tmpdir();
	size_t n;
	sqlite3 *h;

	(void)st;
	assert_non_null(dir);
	sql = tu_slurp(it_fixture(p, sizeof(p), "opencode/opencode.sql"), &n);
	assert_non_null(sql);
	snprintf(db, sizeof(db), "%s/opencode.db", dir);
	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	free(sql);
	/* no other parse: every injectable allocation is a row's */
	sweep_at(db, "opencode/opencode.sql", "opencode", "sts/tools.sts.jsonl");
	tu_rmrf(dir);
	free(dir);
}

/* Codex function_call arguments held as a JSON string (kt_impx_args) */
static void t_tool_args(void **st)
{
	(void)st;
	site("codex/legacy.jsonl", "codex", NULL,
	     "\"arguments\": \"{", "\"arguments\": \"x{");
}

/* a Codex shell output {output, metadata.exit_code} as a JSON string:
 * its exit code (kt_impx_exit_code) and its output (command_output) */
static void t_tool_output(void **st)
{
	(void)st;
	site("codex/legacy.jsonl", "codex", NULL,
	     "\"output\": \"{", "\"output\": \"x{");
}

/* OpenTelemetry gen_ai.{input,output}.messages held as JSON text */
static void t_otel_messages(void **st)
{
	(void)st;
	site("otel_genai/chat.json", "otel_genai", NULL,
	     "\"stringValue\": \"[{", "\"stringValue\": \"x[{");
}

/* Cline ui_messages: a tool's JSON text; an API request's usage */
static void t_cline_tool(void **st)
{
	(void)st;
	site("cline/tasks", "cline", "1730000000000/ui_messages.json",
	     "\"text\":\"{\\\"tool\\\"", "\"text\":\"x{\\\"tool\\\"");
}

static void t_cline_usage(void **st)
{
	(void)st;
	site("cline/tasks", "cline", "1730000000000/ui_messages.json",
	     "\"text\":\"{\\\"request\\\"", "\"text\":\"x{\\\"request\\\"");
}

/* KernelAgent: a worker's history as JSON text; a round's fenced
 * reflexion JSON */
static void t_kernelagent_history(void **st)
{
	(void)st;
	site("kernelagent/worker_fx_result.json", "kernelagent", NULL,
	     "\"history\": \"[", "\"history\": \"x[");
}

static void t_kernelagent_reflexion(void **st)
{
	(void)st;
	site("kernelagent/trace_fx", "kernelagent",
	     "optimization_trace/round_1/reflexion.txt",
	     "{\"was_fix_effective\"", "x{\"was_fix_effective\"");
}

/* The same file again: the provenance of the run's last stored event is
 * parsed (where the re-import resumes) through the helper, and for a map
 * run its meta too (the map digest): a re-import costs those parses'
 * allocations more than the first import, and each failed is KT_ENOMEM
 * with the store unchanged. */
static long prov_allocs(it_ctx *c)
{
	kt_run_info ri;
	kt_event ev;
	const long big = 1L << 30;
	long left;
	int rc;
	cJSON *p;

	assert_int_equal(kt_run_get(c->s, c->runs[0].id, &ri), 0);
	assert_int_equal(kt_event_get(c->s, c->runs[0].id, ri.n_events, &ev),
			 0);
	assert_non_null(ev.prov_json);
	kt_cjson_fail_at(big);
	p = kt_cjson_parse(ev.prov_json, strlen(ev.prov_json), NULL, &rc);
	left = kt_cjson_fail_at(-1);
	assert_non_null(p);
	cJSON_Delete(p);
	return big - left;
}

static void t_reimport_prov(void **st)
{
	char p[4096], before[4096], after[4096];
	it_ctx c;
	long first, again, nth, left;
	int rc;

	(void)st;
	it_fixture(p, sizeof(p), "sts/tools.sts.jsonl");
	it_open(&c);
	first = parse_allocs(&c, "sts", p);
	again = parse_allocs(&c, "sts", p);
	/* the re-import parses what the first did, and the provenance */
	assert_true(prov_allocs(&c) > 0);
	assert_int_equal(again - first, prov_allocs(&c));
	snap(&c, before);
	for (nth = 0; nth < again; nth++) {
		kt_cjson_fail_at(nth);
		rc = it_import(&c, "sts", 0, 1, p);
		left = kt_cjson_fail_at(-1);
		assert_true(left < 0);
		if (rc != KT_ENOMEM)
			fail_msg("allocation %ld: rc %d; %s", nth, rc, c.warns);
		snap(&c, after);
		assert_string_equal(after, before);
	}
	it_close(&c);
}

static int import_map(it_ctx *c, const kt_map *m, const char *path)
{
	char *paths[1] = { (char *)path };
	kt_import_opts o;

	memset(&o, 0, sizeof(o));
	o.map = m;
	o.format = "map";
	o.on_run = it_on_run;
	o.on_warn = it_on_warn;
	o.arg = c;
	c->nruns = 0;
	c->nwarn = 0;
	c->warns[0] = 0;
	return kt_import_paths(c->s, paths, 1, &o);
}

static long map_allocs(it_ctx *c, const kt_map *m, const char *path)
{
	const long big = 1L << 30;
	long left;

	kt_cjson_fail_at(big);
	assert_int_equal(import_map(c, m, path), 0);
	left = kt_cjson_fail_at(-1);
	assert_true(left >= 0);
	return big - left;
}

static void t_reimport_map_meta(void **st)
{
	static const char map[] = "{\"run\": {\"const\": \"r\"}, "
		"\"step\": \"id\", \"time_ms\": \"ms\"}";
	static const char other[] = "{\"run\": {\"const\": \"r\"}, "
		"\"step\": \"id\", \"time_ms\": \"ms\", \"text\": \"idea\"}";
	char p[4200], before[4096], after[4096], err[256];
	kt_map *m, *m2;
	it_ctx c;
	long first, again, nth, left;
	int rc;
	FILE *w;

	(void)st;
	assert_int_equal(kt_map_parse(map, strlen(map), &m, err, sizeof(err)),
			 0);
	assert_int_equal(kt_map_parse(other, strlen(other), &m2, err,
				      sizeof(err)), 0);
	it_open(&c);
	snprintf(p, sizeof(p), "%s/rounds.jsonl", c.dir);
	w = fopen(p, "w");
	assert_non_null(w);
	fputs("{\"id\": 1, \"ms\": 2.0, \"idea\": \"tile\"}\n"
	      "{\"id\": 2, \"ms\": 1.5, \"idea\": \"unroll\"}\n", w);
	fclose(w);
	first = map_allocs(&c, m, p);
	again = map_allocs(&c, m, p);
	/* more than the provenance: the meta's parse is injectable too */
	if (again - first <= prov_allocs(&c))
		fail_msg("re-import: %ld allocations more, the provenance "
			 "alone %ld", again - first, prov_allocs(&c));
	/* with another map every failure is KT_ENOMEM, never taken for a
	 * run without a digest (or with another one), nothing added */
	snap(&c, before);
	for (nth = 0;; nth++) {
		kt_cjson_fail_at(nth);
		rc = import_map(&c, m2, p);
		left = kt_cjson_fail_at(-1);
		if (left >= 0)
			break;
		if (rc != KT_ENOMEM || strstr(c.warns, "map"))
			fail_msg("allocation %ld: rc %d; %s", nth, rc, c.warns);
		snap(&c, after);
		assert_string_equal(after, before);
	}
	assert_true(nth > 0);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(c.warns, "with another map; nothing added"));
	it_close(&c);
	kt_map_free(m);
	kt_map_free(m2);
}

/* The analyzers' load of an imported run parses the payloads its fast
 * scanner leaves to cJSON (a bench's alternatives, flags, reward): out of
 * memory there is KT_ENOMEM, not a result without them (blame would
 * state no graded metric).  Each allocation failed in turn. */
static void t_analyze_load(void **st)
{
	char p[4096];
	kt_an_run *r = NULL;
	it_ctx c;
	long nth, left;
	int rc;

	(void)st;
	it_open(&c);
	assert_int_equal(it_import(&c, NULL, 0, 1, it_fixture(p, sizeof(p),
				   "task_metric.jsonl")), 0);
	for (nth = 0;; nth++) {
		kt_cjson_fail_at(nth);
		rc = kt_an_run_load(c.s, c.runs[0].id, &r);
		left = kt_cjson_fail_at(-1);
		if (left >= 0)
			break;
		assert_int_equal(rc, KT_ENOMEM);
		assert_null(r);
	}
	/* some of those parses was failed; without failures it loads */
	assert_true(nth > 0);
	assert_int_equal(rc, 0);
	assert_non_null(r);
	kt_an_run_free(r);
	it_close(&c);
}

/* The helper itself: NULL from bad text is KT_EPARSE, from a failed
 * allocation KT_ENOMEM; a value is 0. */
static void t_helper(void **st)
{
	const char *end = NULL;
	cJSON *o;
	int rc = -99;

	(void)st;
	o = kt_cjson_parse("{\"a\":[1,2]} x", 13, &end, &rc);
	assert_non_null(o);
	assert_int_equal(rc, 0);
	assert_string_equal(end, " x");
	cJSON_Delete(o);
	assert_null(kt_cjson_parse("{\"a\":", 5, NULL, &rc));
	assert_int_equal(rc, KT_EPARSE);
	assert_null(kt_cjson_parse(NULL, 0, NULL, &rc));
	assert_int_equal(rc, KT_EPARSE);
	kt_cjson_fail_at(1);
	assert_null(kt_cjson_parse("{\"a\":[1,2]}", 11, NULL, &rc));
	assert_int_equal(rc, KT_ENOMEM);
	assert_int_equal(kt_cjson_fail_at(-1), -1);
	/* fails once: the next parse is back to normal */
	o = kt_cjson_parse("{\"a\":[1,2]}", 11, NULL, &rc);
	assert_non_null(o);
	assert_int_equal(rc, 0);
	cJSON_Delete(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_helper),
		cmocka_unit_test(t_document),
		cmocka_unit_test(t_jsonl_all),
		cmocka_unit_test(t_jsonl_lines),
		cmocka_unit_test(t_claude),
		cmocka_unit_test(t_ktraj),
		cmocka_unit_test(t_others),
		cmocka_unit_test(t_tool_args),
		cmocka_unit_test(t_inspect_args),
		cmocka_unit_test(t_copilot_args),
		cmocka_unit_test(t_swe_state),
		cmocka_unit_test(t_kernelbench_stats),
		cmocka_unit_test(t_bench_json),
		cmocka_unit_test(t_opencode_rows),
		cmocka_unit_test(t_analyze_load),
		cmocka_unit_test(t_tool_output),
		cmocka_unit_test(t_otel_messages),
		cmocka_unit_test(t_cline_tool),
		cmocka_unit_test(t_cline_usage),
		cmocka_unit_test(t_kernelagent_history),
		cmocka_unit_test(t_kernelagent_reflexion),
		cmocka_unit_test(t_reimport_prov),
		cmocka_unit_test(t_reimport_map_meta),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
