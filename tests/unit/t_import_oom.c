/*
 * t_import_oom.c - out of memory while an importer parses JSON: every
 * allocation of every kt_cjson_parse an import makes is failed in turn
 * (kt_cjson_fail_at), and each import must fail with KT_ENOMEM, never
 * KT_EPARSE or a warning about invalid JSON (the input is fine), never
 * crash, and leave the store as it was.  Formats through each parse path:
 * a one-document file (kt_impx_parse: SWE-agent), JSONL read whole
 * (kt_impx_jsonl_all: codex exec), JSONL line by line (kt_impx_jsonl:
 * STS), Claude Code's own line parser, ktraj JSONL, and the parsers of
 * ATIF (sub-trajectories, sidecars), Codex, Gemini CLI and Copilot CLI.
 */
#include "testutil.h"
/* the shared import helpers this file has no use for are not errors */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "imp_testlib.h"
#include "../../base/kt_base.h"

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
static void sweep(const char *rel, const char *fmt, const char *other)
{
	char p[4096], base[4096], before[4096], after[4096];
	it_ctx c;
	long nth, left;
	int bad;

	/* the fixture's own bad lines, warned by a clean import */
	it_fixture(p, sizeof(p), rel);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
