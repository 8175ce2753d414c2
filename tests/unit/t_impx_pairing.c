/*
 * t_impx_pairing.c - the one tool-call pairing of import/ (impx_calls.c)
 * as both of its callers use it: the JSONL agent logs through
 * kt_impx_call/kt_impx_result and the chat-shaped formats through
 * impconv.h's kt_conv_call/kt_conv_result.  A probe importer, put in the
 * place the table keeps for replay/'s importer (this binary never
 * registers replay/), drives the helpers on a file; the test reads back
 * the events they emitted.  The table alone is what the Codex, OpenHands
 * and ATIF importers keep their pending calls in.
 */
#include "testutil.h"
#include "imp_testlib.h"
#include "../../import/impconv.h"

/* what the probe's own effects saw */
static struct {
	int calls;
	char tool[64];
	int has_path;
	uint64_t call, res;
	int handle; /* what it returns: 1 handled, 0 fall back */
} fx_seen;

static int probe_fx(void *arg, const char *tool, const cJSON *args,
		    uint64_t call, uint64_t res, const char *out, int ok,
		    int64_t ts)
{
	(void)arg, (void)out, (void)ok, (void)ts;
	fx_seen.calls++;
	snprintf(fx_seen.tool, sizeof(fx_seen.tool), "%s", tool);
	fx_seen.has_path = cJSON_IsString(cJSON_GetObjectItem(args, "path"));
	fx_seen.call = call;
	fx_seen.res = res;
	return fx_seen.handle;
}

static int conv_fx(kt_conv *cv, const char *tool, const cJSON *args,
		   uint64_t call, uint64_t res, const char *out, int ok,
		   int64_t ts)
{
	return probe_fx(cv, tool, args, call, res, out, ok, ts);
}

static int probe_detect(const kt_file *f)
{
	(void)f;
	return 0;
}

/* The probe's events, in order (seq from 1):
 *  1 kt_impx_call  id ""    tool NULL   args "{\"path\":\"/w/a.txt\",...}"
 *  2 kt_impx_result of call-1 through probe_fx (Write effects unless
 *    fx handles it)
 *  3 kt_impx_result of "nope": unpaired
 *  4 kt_conv_msg assistant
 *  5 kt_conv_call  id ""    tool ""      (parent: 4)
 *  6 kt_conv_call  id NULL  tool "Bash"
 *  7 kt_conv_result of "" (the conv's own call)
 *  8 kt_conv_result of "gone": a system message */
static int probe_import(kt_imp *imp, const kt_file *f)
{
	kt_impx_calls calls;
	kt_conv cv;
	const kt_impx_call_rec *k;
	cJSON *args = cJSON_CreateString(
		"{\"path\":\"/w/a.txt\",\"content\":\"hi\\n\"}");
	uint64_t s = 0;
	int rc;

	memset(&calls, 0, sizeof(calls));
	rc = kt_impx_begin(imp, f, "replay_result", "probe", NULL, NULL);
	if (!rc)
		rc = kt_impx_call(imp, &calls, "", NULL, args, 0, KT_TS_UNKNOWN,
				  NULL, NULL, NULL, &s);
	/* the table keeps the decoded args under the generated id */
	if (!rc && (!(k = kt_impx_calls_get(&calls, "call-1")) ||
		    strcmp(k->tool, "unknown") || k->seq != s ||
		    !cJSON_IsString(cJSON_GetObjectItem(k->args, "content")) ||
		    kt_impx_call_seq(&calls, "call-1") != s))
		rc = KT_EINVAL;
	if (!rc && kt_impx_calls_get(&calls, ""))
		rc = KT_EINVAL;
	/* a Write the table knows: the fx first */
	if (!rc) {
		kt_impx_calls_free(&calls);
		rc = kt_impx_call(imp, &calls, "w1", "Write", args, 0,
				  KT_TS_UNKNOWN, NULL, NULL, NULL, NULL);
	}
	if (!rc)
		rc = kt_impx_result_fx(imp, &calls, "w1", "done", 1, -1, NULL,
				       KT_TS_UNKNOWN, NULL, NULL, probe_fx,
				       NULL, NULL);
	if (!rc)
		rc = kt_impx_result(imp, &calls, "nope", "x", 1, -1, NULL,
				    KT_TS_UNKNOWN, NULL, NULL, NULL);
	kt_impx_calls_free(&calls);
	cJSON_Delete(args);
	if (rc || (rc = kt_conv_init(&cv, imp, f, "/w")))
		return rc;
	cv.effects = conv_fx;
	rc = kt_conv_msg(&cv, "assistant", 0, "let me look", NULL, NULL,
			 KT_TS_UNKNOWN, NULL, NULL);
	if (!rc)
		rc = kt_conv_call(&cv, "", "", NULL, NULL, 0, KT_TS_UNKNOWN,
				  NULL, NULL);
	if (!rc)
		rc = kt_conv_call(&cv, NULL, "Bash", NULL, NULL, 0,
				  KT_TS_UNKNOWN, NULL, NULL);
	if (!rc && !kt_conv_call_seq(&cv, "call-1"))
		rc = KT_EINVAL;
	if (!rc)
		rc = kt_conv_result(&cv, "", "Exit code 3", -1, NULL,
				    KT_TS_UNKNOWN, NULL);
	if (!rc)
		rc = kt_conv_result(&cv, "gone", "lost", 1, NULL, KT_TS_UNKNOWN,
				    NULL);
	kt_conv_free(&cv);
	return rc;
}

static const kt_importer probe = { "replay_result", "pairing probe",
				   probe_detect, probe_import, 0, NULL };

static cJSON *ev_at(it_ctx *c, uint64_t seq, int *kind, uint64_t *parent)
{
	kt_event ev;

	assert_int_equal(kt_event_get(c->s, c->runs[0].id, seq, &ev), 0);
	*kind = ev.kind;
	*parent = ev.parent;
	return cJSON_Parse(ev.payload);
}

static void run_probe(it_ctx *c, int handle)
{
	char p[4300];
	FILE *fp;

	memset(&fx_seen, 0, sizeof(fx_seen));
	fx_seen.handle = handle;
	it_open(c);
	snprintf(p, sizeof(p), "%s/probe.txt", c->dir);
	assert_non_null(fp = fopen(p, "w"));
	fputs("probe\n", fp);
	fclose(fp);
	assert_int_equal(it_import(c, "replay_result", 0, 1, p), 0);
	assert_int_equal(c->nruns, 1);
}

/* Both callers' calls and results, as one table pairs them. */
static void t_pairing(void **st)
{
	it_ctx c;
	cJSON *pl;
	int kind, nedit;
	uint64_t parent, n;

	(void)st;
	assert_int_equal(kt_importer_register(&probe), 0);
	run_probe(&c, 1);
	n = c.runs[0].events;
	/* fx saw the Write with its stored args and both seqs, and handled
	 * it: no edit from the shared effects */
	assert_int_equal(fx_seen.calls, 2);
	nedit = it_count(&c, c.runs[0].id).edit;
	assert_int_equal(nedit, 0);

	pl = ev_at(&c, 1, &kind, &parent);
	assert_int_equal(kind, KT_KIND_TOOL_CALL);
	assert_string_equal(kt_json_str(pl, "call_id"), "call-1");
	assert_string_equal(kt_json_str(pl, "tool"), "unknown");
	assert_string_equal(kt_json_str(cJSON_GetObjectItem(pl, "args"),
					"path"), "/w/a.txt");
	cJSON_Delete(pl);
	/* the Write's result, parented to its call */
	pl = ev_at(&c, 3, &kind, &parent);
	assert_int_equal(kind, KT_KIND_TOOL_RESULT);
	assert_int_equal(parent, 2);
	assert_string_equal(kt_json_str(pl, "call_id"), "w1");
	cJSON_Delete(pl);
	/* an unknown id through kt_impx_result: unpaired, no parent */
	pl = ev_at(&c, 4, &kind, &parent);
	assert_int_equal(kind, KT_KIND_TOOL_RESULT);
	assert_int_equal(parent, 0);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(
		cJSON_GetObjectItem(pl, "extra"), "unpaired")));
	cJSON_Delete(pl);
	/* kt_conv_call: "" is an id, an empty tool "unknown", the parent the
	 * last assistant message */
	pl = ev_at(&c, 6, &kind, &parent);
	assert_int_equal(kind, KT_KIND_TOOL_CALL);
	assert_int_equal(parent, 5);
	assert_string_equal(kt_json_str(pl, "call_id"), "");
	assert_string_equal(kt_json_str(pl, "tool"), "unknown");
	cJSON_Delete(pl);
	pl = ev_at(&c, 7, &kind, &parent);
	assert_string_equal(kt_json_str(pl, "call_id"), "call-1");
	assert_string_equal(kt_json_str(pl, "tool"), "Bash");
	cJSON_Delete(pl);
	/* its result: exit code from the output, not ok, through the fx */
	pl = ev_at(&c, 8, &kind, &parent);
	assert_int_equal(kind, KT_KIND_TOOL_RESULT);
	assert_int_equal(parent, 6);
	assert_false(cJSON_IsTrue(cJSON_GetObjectItem(pl, "ok")));
	assert_int_equal(cJSON_GetObjectItem(pl, "exit_code")->valueint, 3);
	assert_int_equal(fx_seen.call, 6);
	assert_int_equal(fx_seen.res, 8);
	assert_string_equal(fx_seen.tool, "unknown");
	cJSON_Delete(pl);
	/* an unknown id through kt_conv_result: a system message, warned */
	pl = ev_at(&c, 9, &kind, &parent);
	assert_int_equal(kind, KT_KIND_MESSAGE);
	assert_string_equal(kt_json_str(pl, "text"), "lost");
	cJSON_Delete(pl);
	assert_int_equal(n, 9);
	assert_int_equal(c.nwarn, 1);
	assert_non_null(strstr(c.warns, "unknown call gone"));
	it_close(&c);

	/* fx declines: the shared effects write the file */
	run_probe(&c, 0);
	nedit = it_count(&c, c.runs[0].id).edit;
	assert_int_equal(nedit, 1);
	assert_int_equal(fx_seen.calls, 2);
	assert_true(fx_seen.has_path == 0);
	it_close(&c);
}

static int owns_freed;

static void own_free(void *p)
{
	owns_freed++;
	free(p);
}

/* The table as Codex, OpenHands and ATIF keep their pending calls in it:
 * records they emit themselves, their own state freed with the record. */
static void t_table(void **st)
{
	kt_impx_calls c;
	kt_impx_call_rec *k;

	(void)st;
	memset(&c, 0, sizeof(c));
	c.own_free = own_free;
	owns_freed = 0;
	/* not emitted yet: seq set later, as Codex holds a call back */
	k = kt_impx_calls_put(&c, "a", 0, NULL, cJSON_CreateObject(),
			      strdup("x"));
	assert_non_null(k);
	assert_string_equal(k->tool, "unknown");
	assert_int_equal(kt_impx_call_seq(&c, "a"), 0);
	k->seq = 7;
	assert_int_equal(kt_impx_call_seq(&c, "a"), 7);
	assert_ptr_equal(kt_impx_calls_get(&c, "a"), k);
	assert_string_equal((char *)k->own, "x");
	assert_false(k->answered);
	assert_null(kt_impx_calls_get(&c, NULL));
	assert_null(kt_impx_calls_get(&c, "b"));
	/* the later call under an id wins; the earlier one's own is freed */
	k = kt_impx_calls_put(&c, "a", 9, "Bash", NULL, strdup("y"));
	assert_non_null(k);
	assert_int_equal(owns_freed, 1);
	assert_int_equal(kt_impx_call_seq(&c, "a"), 9);
	assert_string_equal(kt_impx_calls_get(&c, "a")->tool, "Bash");
	assert_non_null(kt_impx_calls_put(&c, "b", 10, "Edit", NULL, NULL));
	kt_impx_calls_free(&c);
	assert_int_equal(owns_freed, 2);
	assert_null(kt_impx_calls_get(&c, "a"));
	/* usable again, own_free kept */
	assert_non_null(kt_impx_calls_put(&c, "a", 1, "t", NULL, strdup("z")));
	kt_impx_calls_free(&c);
	assert_int_equal(owns_freed, 3);
}

int main(void)
{
	/* imp_testlib.h's helpers this test has no use for */
	(void)it_cat, (void)it_corpus, (void)it_fixture, (void)it_payload;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_pairing),
		cmocka_unit_test(t_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
