/*
 * t_export_agents.c - the exports into other agents' formats read back: a
 * session is imported, written by the exporter table's "claude_code" entry,
 * and that file imported again with ktraj's Claude Code importer; the
 * messages (role, human, text, thinking), tool calls (tool, call id,
 * arguments) and tool results (call id, ok, output) must come back the
 * same and in the same order, and as many edits.  Run on the sample session and on every
 * Claude Code session of the corpus ($CORPUS/claude_code, skipped when
 * absent).  The STS and OTLP exports get the same check where their
 * importers exist (see the note at the end of this file).
 */
#include "testutil.h"
#include "imp_fixture.h"
#include "../../export/export.h"

/* One line per conversation event: what a round trip must keep.  lax:
 * what STS and OTLP carry only (no failure flag on a tool result, no
 * human flag: their importers take every user text as a person's), and
 * not the invoke_agent marker the OTLP importer adds. */
static char *signature(const struct ievs *e, int lax)
{
	size_t cap = 1 << 16, n = 0, i;
	char *out = malloc(cap);

	assert_non_null(out);
	out[0] = 0;
	for (i = 0; i < e->n; i++) {
		const cJSON *p = e->v[i].p;
		const char *a = NULL, *b = NULL;
		char *c = NULL, *line;
		size_t need;
		int flag = 0;

		switch (e->v[i].kind) {
		case KT_KIND_MESSAGE: {
			const cJSON *f;

			a = cJSON_GetStringValue(cJSON_GetObjectItem(p, "role"));
			flag = cJSON_IsTrue(cJSON_GetObjectItem(p, "human"));
			cJSON_ArrayForEach(f, cJSON_GetObjectItem(p, "flags"))
				if (cJSON_IsString(f) && !strcmp(f->valuestring, "thinking"))
					flag |= 2;
				else if (lax && cJSON_IsString(f) &&
					 !strcmp(f->valuestring, "invoke_agent"))
					flag |= 4;
			if (flag & 4)
				continue;
			if (lax)
				flag &= ~1;
			b = cJSON_GetStringValue(cJSON_GetObjectItem(p, "text"));
			break;
		}
		case KT_KIND_TOOL_CALL:
			a = cJSON_GetStringValue(cJSON_GetObjectItem(p, "tool"));
			b = cJSON_GetStringValue(cJSON_GetObjectItem(p, "call_id"));
			c = cJSON_PrintUnformatted(cJSON_GetObjectItem(p, "args"));
			break;
		case KT_KIND_TOOL_RESULT:
			a = cJSON_GetStringValue(cJSON_GetObjectItem(p, "call_id"));
			flag = !lax && cJSON_IsTrue(cJSON_GetObjectItem(p, "ok"));
			b = cJSON_GetStringValue(cJSON_GetObjectItem(p, "output"));
			break;
		default:
			continue;
		}
		need = strlen(a ? a : "") + strlen(b ? b : "") +
		       strlen(c ? c : "") + 64;
		line = malloc(need);
		assert_non_null(line);
		snprintf(line, need, "%d|%s|%d|%s|%s\n", e->v[i].kind, a ? a : "",
			 flag, b ? b : "", c ? c : "");
		free(c);
		while (n + strlen(line) + 1 > cap) {
			cap *= 2;
			out = realloc(out, cap);
			assert_non_null(out);
		}
		memcpy(out + n, line, strlen(line) + 1);
		n += strlen(line);
		free(line);
	}
	return out;
}

/* Export each run of `path` as `format` and import it back; returns the
 * number of runs checked.  edits: 1 checks that as many edits come back.
 * (Not for every corpus session: ktraj keeps no per-line working
 * directory, and a Bash `cd` that Claude Code 1.x carried over to later
 * calls changes where their file writes land: one of the 56 edits of
 * vsla_cuda_dev moves on the way back.) */
static int roundtrip(const char *path, const char *format, int edits)
{
	const kt_exporter *ex = kt_exporter_find(format);
	struct ifx *a, *b;
	void *sa, *sb;
	int i, n;

	assert_non_null(ex);
	if_setup(&sa);
	a = sa;
	if_import(a, path, NULL, 0); /* a sample may carry warnings */
	assert_true(a->nruns > 0);
	n = a->nruns;
	for (i = 0; i < n; i++) {
		kt_export_args args = { .run = a->ids[i] };
		char file[4300], err[256] = "", *sig_a, *sig_b;
		struct ievs ea, eb;

		if_setup(&sb);
		b = sb;
		snprintf(file, sizeof(file), "%s/run%d.%s", a->dir, i, format);
		args.out = fopen(file, "w");
		assert_non_null(args.out);
		if (ex->write(a->s, &args, err, sizeof(err)))
			fail_msg("%s: export of run %s: %s", path, a->ids[i], err);
		assert_int_equal(fclose(args.out), 0);
		/* detection must pick the format by itself, and nothing is
		 * reported: the export is a clean file of its format */
		assert_int_equal(if_import(b, file, NULL, 1), 0);
		if (b->nwarn)
			fail_msg("%s run %d: import of the %s export warned:\n%s",
				 path, i, format, b->warns);
		assert_int_equal(b->nruns, 1);
		ea = if_events(a, a->ids[i]);
		eb = if_events(b, b->ids[0]);
		/* OTLP has no place for the human flag and its importer adds
		 * an invoke_agent message: compared without them */
		sig_a = signature(&ea, !strcmp(format, "otlp"));
		sig_b = signature(&eb, !strcmp(format, "otlp"));
		if (strcmp(sig_a, sig_b)) {
			size_t k = 0;

			while (sig_a[k] && sig_a[k] == sig_b[k])
				k++;
			while (k && sig_a[k - 1] != '\n')
				k--;
			fail_msg("%s run %d: %s round trip differs at\n  before: %.300s\n  after:  %.300s",
				 path, i, format, sig_a + k, sig_b + k);
		}
		/* the edits come back too: the export carries the content
		 * each edit started from (toolUseResult) */
		if (edits && if_count(&ea, KT_KIND_EDIT) != if_count(&eb, KT_KIND_EDIT))
			fail_msg("%s run %d: %zu edits, %zu after the %s round trip",
				 path, i, if_count(&ea, KT_KIND_EDIT),
				 if_count(&eb, KT_KIND_EDIT), format);
		free(sig_a);
		free(sig_b);
		if_free(&ea);
		if_free(&eb);
		if_teardown(&sb);
	}
	if_teardown(&sa);
	return n;
}

static void t_claude_sample(void **st)
{
	(void)st;
	assert_int_equal(roundtrip("tests/data/sample/softmax_session.jsonl",
				   "claude_code", 1), 1);
}

/* Our own fixture with what the samples lack: a meta line in plain text
 * (only "isMeta" says no person typed it), thinking, a failed tool, a
 * system line.  Exact counts before and after, beside the signature. */
static void t_claude_mixed(void **st)
{
	const char *path = "tests/data/export/cc_mixed.jsonl";
	struct ifx *a;
	struct ievs e;
	void *sa;

	(void)st;
	assert_int_equal(roundtrip(path, "claude_code", 1), 1);
	if_setup(&sa);
	a = sa;
	assert_int_equal(if_import(a, path, NULL, 1), 0);
	e = if_events(a, a->ids[0]);
	assert_int_equal(if_count(&e, KT_KIND_MESSAGE), 6);
	assert_int_equal(if_count_bool(&e, KT_KIND_MESSAGE, "human", 1), 2);
	assert_int_equal(if_count_str(&e, KT_KIND_MESSAGE, "role", "system"), 1);
	assert_int_equal(if_count(&e, KT_KIND_TOOL_CALL), 1);
	assert_int_equal(if_count_bool(&e, KT_KIND_TOOL_RESULT, "ok", 0), 1);
	assert_int_equal(if_count(&e, KT_KIND_COMPILE), 1);
	if_free(&e);
	if_teardown(&sa);
}

static void t_claude_corpus(void **st)
{
	static const char *const files[] = {
		"claude_code/vsla_cuda_dev_f67ab274.jsonl",
		"claude_code/vsla_image_summary_6dc88126.jsonl",
		"claude_code/vsla_paper_writing_0a725fb5.jsonl",
		"claude_code/vsla_sidechains_multiedit_5f8cbb78.jsonl",
		"claude_code/agenthistory_claude_compaction.jsonl",
		"claude_code/agenthistory_claude_fork.jsonl",
		"claude_code/cclog_edge_cases.jsonl",
	};
	char path[4096];
	size_t i;

	(void)st;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		IF_CORPUS(path, files[i]);
		assert_true(roundtrip(path, "claude_code", 0) >= 1);
	}
}

/* The STS and OTLP exports read back by ktraj's own STS and OTLP GenAI
 * importers.  STS keeps everything the signature compares, the human flag,
 * failed calls and thinking included, also on cc_mixed; OTLP on the sample
 * (not on cc_mixed: its importer takes user text from the chat spans'
 * input messages and keeps a repeated text once, so the order of a user
 * message after a tool call can change; export_agents.bats checks that
 * thinking comes back). */
static void t_sts(void **st)
{
	(void)st;
	assert_int_equal(roundtrip("tests/data/sample/softmax_session.jsonl", "sts", 0), 1);
	assert_int_equal(roundtrip("tests/data/export/cc_mixed.jsonl", "sts", 0), 1);
}

static void t_otlp(void **st)
{
	(void)st;
	assert_int_equal(roundtrip("tests/data/sample/softmax_session.jsonl", "otlp", 0), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_claude_sample),
		cmocka_unit_test(t_claude_mixed),
		cmocka_unit_test(t_claude_corpus),
		cmocka_unit_test(t_sts),
		cmocka_unit_test(t_otlp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
