/*
 * t_import_atif.c - the ATIF importer: exact counts per corpus file,
 * sub-agent trajectories resolved from the files beside (and dangling ones
 * warned), the non-conforming "ATIF 1.4" with results before calls, sidecar
 * metrics, message as a list of parts, invalid JSON.
 */
#include "testutil.h"
#include "imp_testlib.h"
#include <archive.h>
#include <archive_entry.h>

/* Write the named fixture files into a tar.gz at out (members atif/NAME). */
static void make_tar(const char *out, const char *const *names)
{
	struct archive *a = archive_write_new();
	char p[4096], m[512];
	size_t len = 0;

	assert_non_null(a);
	assert_int_equal(archive_write_add_filter_gzip(a), ARCHIVE_OK);
	assert_int_equal(archive_write_set_format_pax_restricted(a), ARCHIVE_OK);
	assert_int_equal(archive_write_open_filename(a, out), ARCHIVE_OK);
	for (; *names; names++) {
		struct archive_entry *e = archive_entry_new();
		char *d;

		snprintf(m, sizeof(m), "atif/%s", *names);
		snprintf(p, sizeof(p), "atif/%s", *names);
		d = tu_slurp(it_fixture(p, sizeof(p), m), &len);
		assert_non_null(d);
		archive_entry_set_pathname(e, m);
		archive_entry_set_size(e, (la_int64_t)len);
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, 0644);
		assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
		assert_int_equal(archive_write_data(a, d, len), (la_ssize_t)len);
		archive_entry_free(e);
		free(d);
	}
	archive_write_close(a);
	archive_write_free(a);
}

/* In an archive the sub-trajectory comes first and cannot be read again
 * later: it pulls its parent in, and the result equals the folder's. */
static void t_archive(void **st)
{
	static const char *const names[] = {
		"parent.child.json", "parent.trajectory.json", NULL
	};
	char tar[4200];
	it_ctx c;
	it_counts k;

	(void)st;
	it_open(&c);
	snprintf(tar, sizeof(tar), "%s/a.tar.gz", c.dir);
	make_tar(tar, names);
	assert_int_equal(it_import(&c, NULL, 0, 1, tar), 0);
	assert_int_equal(c.nruns, 1);
	assert_string_equal(c.runs[0].name, "parent");
	k = it_count(&c, c.runs[0].id);
	IT_EXPECT(k, 9, 2, 4, 3, 2);
	it_close(&c);
}

static void corpus_one(const char *rel, int m, int h, int tc, int tr, int ed,
		       int cc)
{
	char p[4096];
	it_ctx c;
	it_counts k;

	if (!it_corpus(p, sizeof(p), rel))
		skip();
	it_open(&c);
	assert_int_equal(it_import(&c, NULL, 0, 1, p), 0);
	assert_int_equal(c.nruns, 1);
	assert_string_equal(c.runs[0].format, "atif");
	k = it_count(&c, c.runs[0].id);
	IT_EXPECT(k, m, h, tc, tr, ed);
	assert_int_equal(k.compile, cc);
	assert_int_equal(k.bench, 0);
	it_close(&c);
}

static void t_corpus_files(void **st)
{
	(void)st;
	corpus_one("atif/harbor_openhands_hello_world.trajectory.json",
		   6, 1, 2, 1, 1, 0);
	/* 7 calls of its own + 2 of the summarization sub-trajectory; the
	 * terminus-2 prompt of step 1 ("You are an AI assistant tasked with
	 * ... Task Description:") is the harness's, not a person's */
	corpus_one("atif/harbor_terminus2_context_summarization.trajectory.json",
		   15, 0, 9, 9, 3, 0);
	corpus_one("atif/harbor_terminus2_invalid_json.trajectory.json",
		   10, 0, 3, 3, 1, 0);
	/* non-conforming: results are separate system steps */
	corpus_one("atif/openagents_regex_log.trajectory.json", 4, 1, 5, 5, 1,
		   0);
}

static void t_corpus_folder(void **st)
{
	char p[4096];
	it_ctx c;
	int i, found = 0;

	(void)st;
	if (!it_corpus(p, sizeof(p), "atif"))
		skip();
	it_open(&c);
	assert_int_equal(it_import(&c, NULL, 0, 1, p), 0);
	/* the summary sub-trajectory is part of its parent, the sidecar
	 * metrics.json is no run */
	assert_int_equal(c.nruns, 4);
	for (i = 0; i < c.nruns; i++)
		found += strcmp(c.runs[i].name,
				"harbor_terminus2_context_summarization") == 0;
	assert_int_equal(found, 1);
	/* the questions/answers sub-trajectories were not copied */
	assert_non_null(strstr(c.warns, "summarization-1-questions"));
	assert_non_null(strstr(c.warns, "summarization-1-answers"));
	it_close(&c);
}

static void t_fixture_folder(void **st)
{
	char p[4096], actor[128], *s;
	it_ctx c;
	it_counts k;
	const char *parent = NULL, *nonconf = NULL;
	cJSON *pl;
	kt_run_info ri;
	int i, kind;

	(void)st;
	it_fixture(p, sizeof(p), "atif");
	it_open(&c);
	assert_int_equal(it_import(&c, NULL, 0, 1, p), 0);
	assert_int_equal(c.nruns, 2);
	for (i = 0; i < c.nruns; i++) {
		if (!strcmp(c.runs[i].name, "parent"))
			parent = c.runs[i].id;
		if (!strcmp(c.runs[i].name, "nonconf"))
			nonconf = c.runs[i].id;
	}
	assert_non_null(parent);
	assert_non_null(nonconf);
	/* invalid JSON and the dangling reference are reported */
	assert_non_null(strstr(c.warns, "bad.trajectory.json:"));
	assert_non_null(strstr(c.warns, "trajectory.gone.json"));
	/* parent: the hand-off text is no human turn; the child's steps are in
	 * the run as agent:fx-child */
	k = it_count(&c, parent);
	IT_EXPECT(k, 9, 2, 4, 3, 2);
	assert_int_equal(k.compile, 1);
	pl = it_payload(&c, parent, 13, &kind, actor, sizeof(actor));
	assert_int_equal(kind, KT_KIND_TOOL_CALL);
	assert_string_equal(actor, "agent:fx-child");
	assert_string_equal(cJSON_GetObjectItem(pl, "tool")->valuestring, "Edit");
	cJSON_Delete(pl);
	s = it_cat(&c, parent, "/w/hello.c", 0);
	assert_non_null(s);
	assert_string_equal(s, "int main(){return 0;}\n");
	free(s);
	/* metrics: cached tokens are not input; cost and unknown fields kept */
	pl = it_payload(&c, parent, 3, &kind, NULL, 0);
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(pl, "usage"),
					     "input")->valueint, 70);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(pl,
			    "extra"), "custom_field")->valuestring, "kept");
	cJSON_Delete(pl);
	/* the +02:00 offset is honoured */
	{
		kt_event ev;

		assert_int_equal(kt_event_get(c.s, parent, 3, &ev), 0);
		assert_true(ev.ts_ns == 1748764805000000000LL);
	}
	/* message as a list of parts (v1.7 writers) */
	pl = it_payload(&c, parent, 18, &kind, NULL, 0);
	assert_string_equal(cJSON_GetObjectItem(pl, "text")->valuestring, "done");
	cJSON_Delete(pl);
	/* non-conforming 1.4: the result that came first follows its call */
	k = it_count(&c, nonconf);
	IT_EXPECT(k, 2, 1, 1, 2, 1);
	pl = it_payload(&c, nonconf, 3, &kind, NULL, 0);
	assert_int_equal(kind, KT_KIND_TOOL_CALL);
	cJSON_Delete(pl);
	pl = it_payload(&c, nonconf, 4, &kind, NULL, 0);
	assert_int_equal(kind, KT_KIND_TOOL_RESULT);
	assert_string_equal(cJSON_GetObjectItem(pl, "call_id")->valuestring,
			    "t1");
	cJSON_Delete(pl);
	assert_int_equal(kt_run_get(c.s, nonconf, &ri), 0);
	assert_non_null(strstr(ri.meta_json, "sidecar_metrics"));
	it_close(&c);
}

static void t_plain_files(void **st)
{
	char p[4096], q[4096];
	it_ctx c;
	it_counts k;

	(void)st;
	it_open(&c);
	/* a plain file still finds its sub-trajectory beside it */
	it_fixture(p, sizeof(p), "atif/parent.trajectory.json");
	assert_int_equal(it_import(&c, NULL, 0, 1, p), 0);
	assert_int_equal(c.nruns, 1);
	k = it_count(&c, c.runs[0].id);
	assert_int_equal(k.call, 4);
	/* the child named on its own is imported on its own */
	it_fixture(q, sizeof(q), "atif/parent.child.json");
	assert_int_equal(it_import(&c, NULL, 0, 1, q), 0);
	assert_int_equal(c.nruns, 1);
	k = it_count(&c, c.runs[0].id);
	/* the base of the Edit is unknown here: still an edit, of unknown
	 * result, as a Claude Code import records it (kt_impx_cc_edit) */
	IT_EXPECT(k, 2, 1, 1, 1, 1);
	{
		int kind;
		cJSON *pl = it_payload(&c, c.runs[0].id, 5, &kind, NULL, 0);

		assert_int_equal(kind, KT_KIND_EDIT);
		assert_string_equal(cJSON_GetObjectItem(pl, "op")->valuestring,
				    "unknown");
		cJSON_Delete(pl);
	}
	/* --strict on invalid JSON fails */
	it_fixture(q, sizeof(q), "atif/bad.trajectory.json");
	assert_int_not_equal(it_import(&c, "atif", 1, 1, q), 0);
	assert_int_equal(c.nruns, 0);
	it_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_corpus_files),
		cmocka_unit_test(t_corpus_folder),
		cmocka_unit_test(t_fixture_folder),
		cmocka_unit_test(t_plain_files),
		cmocka_unit_test(t_archive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
