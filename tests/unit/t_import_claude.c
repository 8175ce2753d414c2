/*
 * t_import_claude.c - the Claude Code importer: exact event counts for our
 * fixtures and for every claude_code corpus file, human/non-human
 * classification, usage counted once per response, sub-agents, workspace.
 */
#include "testutil.h"
#include "../../import/import.h"

#define FX "tests/data/import/claude/"

struct counts {
	unsigned kind[KT_KIND_MAX_ + 1];
	unsigned human, tool_edits, shell_edits, thinking;
	unsigned sub_events;  /* actor agent:<id> */
	double out_tokens;    /* sum of usage.output */
	unsigned usage_n;
	char actor_sub[128];
};

struct imp_res {
	char run[8][KT_RUN_ID_HEX + 1];
	char name[8][128];
	uint64_t events[8], added[8];
	int nrun;
	unsigned warns;
	char lastwarn[512];
};

static void on_run(const char *id, const char *name, const char *format,
		   uint64_t events, uint64_t added, void *arg)
{
	struct imp_res *r = arg;

	(void)format;
	if (r->nrun < 8) {
		snprintf(r->run[r->nrun], sizeof(r->run[0]), "%s", id);
		snprintf(r->name[r->nrun], sizeof(r->name[0]), "%s", name);
		r->events[r->nrun] = events;
		r->added[r->nrun] = added;
		r->nrun++;
	}
}

static void on_warn(const char *line, void *arg)
{
	struct imp_res *r = arg;

	r->warns++;
	snprintf(r->lastwarn, sizeof(r->lastwarn), "%s", line);
}

struct fx {
	char *dir;
	char path[4200];
	kt_store *s;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->dir = tu_tmpdir();
	assert_non_null(f->dir);
	snprintf(f->path, sizeof(f->path), "%s/s.ktraj", f->dir);
	assert_int_equal(kt_store_open(f->path, KT_OPEN_CREATE | KT_OPEN_BULK,
				       &f->s), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	kt_store_close(f->s);
	tu_rmrf(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

static int import1(kt_store *s, const char *path, int strict,
		   struct imp_res *r)
{
	kt_import_opts o;
	char *p[1];

	memset(&o, 0, sizeof(o));
	memset(r, 0, sizeof(*r));
	o.strict = strict;
	o.on_run = on_run;
	o.on_warn = on_warn;
	o.arg = r;
	p[0] = (char *)path;
	return kt_import_paths(s, p, 1, &o);
}

static int count_ev(const kt_event *ev, void *arg)
{
	struct counts *c = arg;
	cJSON *p = cJSON_Parse(ev->payload);
	const cJSON *v;

	assert_non_null(p);
	c->kind[ev->kind]++;
	if (ev->kind == KT_KIND_MESSAGE && cJSON_IsTrue(
		    cJSON_GetObjectItemCaseSensitive(p, "human")))
		c->human++;
	if (ev->kind == KT_KIND_EDIT) {
		const char *t = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(p, "tool"));

		if (t && (!strcmp(t, "Edit") || !strcmp(t, "Write") ||
			  !strcmp(t, "MultiEdit")))
			c->tool_edits++;
		else
			c->shell_edits++;
		/* an edit's parent is its tool call */
		assert_true(ev->parent > 0 && ev->parent < ev->seq);
	}
	v = cJSON_GetObjectItemCaseSensitive(p, "usage");
	if (cJSON_IsObject(v)) {
		c->usage_n++;
		c->out_tokens += cJSON_GetNumberValue(
			cJSON_GetObjectItemCaseSensitive(v, "output"));
	}
	v = cJSON_GetObjectItemCaseSensitive(p, "flags");
	if (cJSON_IsArray(v) && cJSON_GetArraySize(v) > 0 &&
	    !strcmp(cJSON_GetStringValue(cJSON_GetArrayItem(v, 0)), "thinking"))
		c->thinking++;
	if (!strncmp(ev->actor, "agent:", 6)) {
		c->sub_events++;
		snprintf(c->actor_sub, sizeof(c->actor_sub), "%s", ev->actor);
		/* sub-agent events say so in the payload as well */
		assert_non_null(cJSON_GetObjectItemCaseSensitive(p, "subagent"));
	}
	if (ev->kind == KT_KIND_MESSAGE && cJSON_IsTrue(
		    cJSON_GetObjectItemCaseSensitive(p, "human"))) {
		const char *t = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(p, "text"));

		assert_string_equal(ev->actor, "human");
		assert_null(strstr(t, "<command-"));
		assert_true(strncmp(t, "[Request interrupted", 20) != 0);
	}
	cJSON_Delete(p);
	return 0;
}

static void counts_of(kt_store *s, const char *run, struct counts *c)
{
	memset(c, 0, sizeof(*c));
	assert_int_equal(kt_event_foreach(s, run, 1, 0, 0, count_ev, c), 0);
}

/* ---- fixtures ------------------------------------------------------------ */

static void test_fixture_2x(void **state)
{
	struct fx *f = *state;
	struct imp_res r;
	struct counts c;
	kt_run_info ri;
	char id[KT_RUN_ID_HEX + 1];

	assert_int_equal(import1(f->s, FX "s2x.jsonl", 0, &r), 0);
	assert_int_equal(r.nrun, 1);
	assert_int_equal(r.warns, 0);
	kt_run_id_from_identity("claude_code:s2x", id);
	assert_string_equal(r.run[0], id);
	/* the summary line names the run */
	assert_string_equal(r.name[0], "Kernel speedup session");
	counts_of(f->s, id, &c);
	/* human: the first prompt and the one with the picture; not the
	 * caveat, the /model wrapper, the interruption, the compaction
	 * summary or the sub-agent's prompt */
	assert_int_equal(c.kind[KT_KIND_MESSAGE], 10);
	assert_int_equal(c.human, 2);
	assert_int_equal(c.kind[KT_KIND_TOOL_CALL], 6);
	assert_int_equal(c.kind[KT_KIND_TOOL_RESULT], 6);
	/* the Edit changes k.cu; the failed Write changes nothing */
	assert_int_equal(c.tool_edits, 1);
	assert_int_equal(c.kind[KT_KIND_NOTE], 1);
	/* the sub-agent file: prompt, Grep call and result, answer */
	assert_int_equal(c.sub_events, 4);
	assert_string_equal(c.actor_sub, "agent:abc123");
	/* msg_1 spans two lines: its usage is counted once, the last one */
	assert_int_equal(c.usage_n, 7);
	assert_true(c.out_tokens == 42 + 7 + 3 + 9 + 11 + 2 + 8);
	assert_int_equal(kt_run_get(f->s, id, &ri), 0);
	assert_non_null(strstr(ri.meta_json, "agent-abc123.jsonl"));
	assert_non_null(strstr(ri.meta_json, "\"cwd\":\"/work/proj\""));
}

static void test_fixture_workspace(void **state)
{
	struct fx *f = *state;
	struct imp_res r;
	char id[KT_RUN_ID_HEX + 1];
	unsigned char h[KT_HASH_LEN];
	int del = 0;
	void *data;
	size_t len;

	assert_int_equal(import1(f->s, FX "s2x.jsonl", 0, &r), 0);
	kt_run_id_from_identity("claude_code:s2x", id);
	/* after the Read (seq 6): what the Read showed */
	assert_int_equal(kt_path_at(f->s, id, "/work/proj/k.cu", 6, h, &del), 0);
	assert_int_equal(kt_blob_get(f->s, h, &data, &len), 0);
	assert_string_equal((char *)data, "__global__ void k() {}\nint slow;");
	free(data);
	/* latest: originalFile corrected the trailing newline, then the
	 * Edit; the failed Write ("WRONG") is not there */
	assert_int_equal(kt_path_at(f->s, id, "/work/proj/k.cu", 0, h, &del), 0);
	assert_int_equal(kt_blob_get(f->s, h, &data, &len), 0);
	assert_string_equal((char *)data, "__global__ void k() {}\nint fast;\n");
	assert_false(del);
	free(data);
}

static void test_fixture_reimport_and_growth(void **state)
{
	struct fx *f = *state;
	struct imp_res r;
	char *dir = tu_tmpdir(), path[4300], spath[4300], *src;
	size_t len, cut;
	uint64_t first, total;
	kt_store *s2;
	FILE *o;

	src = tu_slurp(FX "s2x.jsonl", &len);
	assert_non_null(src);
	/* the first 8 lines: a live log caught mid-session (9 events) */
	for (cut = 0, len = 0; src[len] && cut < 8; len++)
		if (src[len] == '\n')
			cut++;
	snprintf(path, sizeof(path), "%s/s2x.jsonl", dir);
	o = fopen(path, "wb");
	fwrite(src, 1, len, o);
	fclose(o);
	assert_int_equal(import1(f->s, path, 0, &r), 0);
	assert_int_equal(r.nrun, 1);
	assert_true(r.added[0] > 0);
	first = r.events[0];
	/* again: nothing added */
	assert_int_equal(import1(f->s, path, 0, &r), 0);
	assert_int_equal(r.added[0], 0);
	/* the log grew: only the new events are added */
	o = fopen(path, "wb");
	fputs(src, o);
	fclose(o);
	assert_int_equal(import1(f->s, path, 0, &r), 0);
	assert_true(r.added[0] > 0);
	assert_int_equal(r.events[0] - r.added[0], first);
	total = r.events[0];
	/* and the grown store holds exactly what a fresh import gives */
	snprintf(spath, sizeof(spath), "%s/fresh.ktraj", dir);
	assert_int_equal(kt_store_open(spath, KT_OPEN_CREATE, &s2), 0);
	assert_int_equal(import1(s2, path, 0, &r), 0);
	assert_int_equal(r.events[0], total);
	kt_store_close(s2);
	free(src);
	tu_rmrf(dir);
	free(dir);
}

/* 2.0.x: agent-<id>.jsonl beside <session>.jsonl, sorted before it */
static void test_sibling_agent_file(void **state)
{
	struct fx *f = *state;
	struct imp_res r;
	struct counts c;
	char *dir = tu_tmpdir(), p1[4300], *src;
	size_t len = 0;
	FILE *o;

	src = tu_slurp(FX "s2x/subagents/agent-abc123.jsonl", &len);
	assert_non_null(src);
	snprintf(p1, sizeof(p1), "%s/agent-abc123.jsonl", dir);
	o = fopen(p1, "wb");
	fwrite(src, 1, len, o);
	fclose(o);
	free(src);
	src = tu_slurp(FX "s2x.jsonl", &len);
	assert_non_null(src);
	snprintf(p1, sizeof(p1), "%s/s2x.jsonl", dir);
	o = fopen(p1, "wb");
	fwrite(src, 1, len, o);
	fclose(o);
	free(src);
	assert_int_equal(import1(f->s, dir, 0, &r), 0);
	/* one run: the sub-agent inside its session, not a run of its own */
	assert_int_equal(r.nrun, 1);
	counts_of(f->s, r.run[0], &c);
	assert_int_equal(c.sub_events, 4);
	/* named alone, the agent file is its own run, not the session's */
	snprintf(p1, sizeof(p1), "%s/agent-abc123.jsonl", dir);
	assert_int_equal(import1(f->s, p1, 0, &r), 0);
	assert_int_equal(r.nrun, 1);
	assert_int_equal(r.added[0], 4);
	tu_rmrf(dir);
	free(dir);
}

static void test_malformed(void **state)
{
	struct fx *f = *state;
	struct imp_res r;
	struct counts c;
	char id[KT_RUN_ID_HEX + 1];
	kt_run_info ri;

	assert_int_equal(import1(f->s, FX "malformed.jsonl", 0, &r), 0);
	/* 8 bad lines, each reported as file:line; the one with invalid
	 * UTF-8 is repaired (U+FFFD) and kept: a human message */
	assert_int_equal(r.warns, 8);
	assert_non_null(strstr(r.lastwarn, "malformed.jsonl:10:"));
	kt_run_id_from_identity("claude_code:malformed-1", id);
	counts_of(f->s, id, &c);
	assert_int_equal(c.kind[KT_KIND_MESSAGE], 3);
	assert_int_equal(c.human, 2);
	/* strict: the whole source is discarded, nothing new is stored */
	kt_run_id_from_identity("claude_code:malformed-1", id);
	assert_int_equal(kt_run_get(f->s, id, &ri), 0);
	assert_int_equal(ri.n_events, 3);
}

static void test_malformed_strict(void **state)
{
	struct fx *f = *state;
	struct imp_res r;
	char id[KT_RUN_ID_HEX + 1];
	kt_run_info ri;

	assert_int_equal(import1(f->s, FX "malformed.jsonl", 1, &r), KT_EPARSE);
	assert_true(r.warns >= 1);
	assert_int_equal(r.nrun, 0);
	kt_run_id_from_identity("claude_code:malformed-1", id);
	assert_int_equal(kt_run_get(f->s, id, &ri), KT_ENOTFOUND);
}

static void test_detect(void **state)
{
	const kt_importer *im = kt_importer_find("claude_code");
	kt_file kf;
	const char *cc = "{\"type\":\"user\",\"sessionId\":\"x\",\"parentUuid\":null,"
		"\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n";
	const char *other = "{\"timestamp\":\"2025\",\"type\":\"session_meta\","
		"\"payload\":{}}\n";

	(void)state;
	assert_non_null(im);
	memset(&kf, 0, sizeof(kf));
	kf.path = kf.rel = "x.jsonl";
	kf.data = (const unsigned char *)cc;
	kf.len = strlen(cc);
	assert_true(im->detect(&kf) >= 50);
	kf.data = (const unsigned char *)other;
	kf.len = strlen(other);
	assert_int_equal(im->detect(&kf), 0);
	kf.data = (const unsigned char *)"";
	kf.len = 0;
	assert_int_equal(im->detect(&kf), 0);
}

/* ---- corpus -------------------------------------------------------------- */

struct want {
	const char *file;
	unsigned message, human, calls, results, tool_edits;
	/* shell-derived events (import/shell.c): lower bounds */
	unsigned min_shell_edits, min_compile, min_bench;
	unsigned sub_events;
};

static const struct want corpus[] = {
	{ "vsla_cuda_dev_f67ab274.jsonl", 207, 17, 260, 260, 37, 8, 5, 1, 0 },
	{ "vsla_sidechains_multiedit_5f8cbb78.jsonl", 116, 2, 208, 208, 37,
	  0, 1, 0, 228 },
	{ "vsla_image_summary_6dc88126.jsonl", 15, 4, 20, 20, 0, 0, 0, 0, 0 },
	{ "cclog_edge_cases.jsonl", 8, 3, 3, 1, 0, 0, 0, 0, 0 },
	/* its 2 Edits have no Read or originalFile before them: edits of
	 * op unknown, their hunks kept (issue 15) */
	{ "agenthistory_claude_compaction.jsonl", 11, 3, 3, 3, 2, 0, 0, 0, 0 },
	{ "agenthistory_claude_fork.jsonl", 11, 4, 3, 3, 3, 0, 0, 0, 0 },
};

static void test_corpus(void **state)
{
	struct fx *f = *state;
	const char *cdir = tu_corpus();
	size_t i;

	if (!cdir) {
		skip();
		return;
	}
	for (i = 0; i < sizeof(corpus) / sizeof(corpus[0]); i++) {
		const struct want *w = &corpus[i];
		char path[4600];
		struct imp_res r;
		struct counts c;

		snprintf(path, sizeof(path), "%s/claude_code/%s", cdir, w->file);
		assert_int_equal(import1(f->s, path, 0, &r), 0);
		assert_int_equal(r.nrun, 1);
		counts_of(f->s, r.run[0], &c);
		fprintf(stderr, "# %s: msg %u human %u calls %u results %u "
			"edits %u+%u compile %u bench %u sub %u\n", w->file,
			c.kind[KT_KIND_MESSAGE], c.human,
			c.kind[KT_KIND_TOOL_CALL], c.kind[KT_KIND_TOOL_RESULT],
			c.tool_edits, c.shell_edits, c.kind[KT_KIND_COMPILE],
			c.kind[KT_KIND_BENCH], c.sub_events);
		assert_int_equal(c.kind[KT_KIND_MESSAGE], w->message);
		assert_int_equal(c.human, w->human);
		assert_int_equal(c.kind[KT_KIND_TOOL_CALL], w->calls);
		assert_int_equal(c.kind[KT_KIND_TOOL_RESULT], w->results);
		assert_int_equal(c.tool_edits, w->tool_edits);
		assert_true(c.shell_edits >= w->min_shell_edits);
		assert_true(c.kind[KT_KIND_COMPILE] >= w->min_compile);
		assert_true(c.kind[KT_KIND_BENCH] >= w->min_bench);
		if (w->sub_events)
			assert_true(c.sub_events > 0);
		/* again: nothing new */
		assert_int_equal(import1(f->s, path, 0, &r), 0);
		assert_int_equal(r.added[0], 0);
	}
}

/* f67ab274: 271 responses over 440 assistant lines; usage once each */
static void test_corpus_usage_once(void **state)
{
	struct fx *f = *state;
	const char *cdir = tu_corpus();
	char path[4600];
	struct imp_res r;
	struct counts c;

	if (!cdir) {
		skip();
		return;
	}
	snprintf(path, sizeof(path), "%s/claude_code/vsla_cuda_dev_f67ab274.jsonl",
		 cdir);
	assert_int_equal(import1(f->s, path, 0, &r), 0);
	counts_of(f->s, r.run[0], &c);
	assert_int_equal(c.usage_n, 271);
}

/* The summary line is found past a NUL byte in the file (the search runs
 * over the stretches between NUL bytes) and at the end of the file. */
static void test_summary_after_nul(void **state)
{
	struct fx *f = *state;
	struct imp_res r;
	char path[4300];
	FILE *o;
	static const char user[] =
		"{\"sessionId\":\"snul\",\"type\":\"user\",\"uuid\":\"u1\","
		"\"parentUuid\":null,\"timestamp\":\"2025-10-01T10:00:01.000Z\","
		"\"message\":{\"role\":\"user\",\"content\":\"Make the kernel "
		"faster\"}}\n";
	static const char summ[] =
		"{\"type\":\"summary\",\"summary\":\"Summary after a NUL\","
		"\"leafUuid\":\"u1\"}\n";

	snprintf(path, sizeof(path), "%s/snul.jsonl", f->dir);
	o = fopen(path, "wb");
	assert_non_null(o);
	fputs(user, o);
	fwrite("{\"bad\":\"a\0b\"}\n", 1, 14, o);
	fputs(summ, o);
	fclose(o);
	assert_int_equal(import1(f->s, path, 0, &r), 0);
	assert_int_equal(r.nrun, 1);
	assert_string_equal(r.name[0], "Summary after a NUL");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fixture_2x, setup, teardown),
		cmocka_unit_test_setup_teardown(test_summary_after_nul, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_fixture_workspace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fixture_reimport_and_growth,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_sibling_agent_file, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_malformed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed_strict, setup, teardown),
		cmocka_unit_test(test_detect),
		cmocka_unit_test_setup_teardown(test_corpus, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corpus_usage_once, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
