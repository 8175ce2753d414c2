/* t_schema.c - kt_imp_check_payload (store/event_model.h): each rule of
 * FORMAT.md section 2 refuses its own small payload with the message that
 * names the field, and the payloads next to it (the allowed values, null
 * where the schema allows it, unknown and missing fields) pass. */
#include <math.h>
#include "testutil.h"
#include <cjson/cJSON.h>
#include "../../store/store.h"

/* kind's payload json fails with exactly `want` */
static void bad_(int kind, const char *json, const char *want, int line)
{
	cJSON *p = cJSON_Parse(json);
	char why[300];
	int rc;

	if (!p)
		fail_msg("line %d: test payload does not parse: %s", line, json);
	rc = kt_imp_check_payload(kind, p, why, sizeof(why));
	cJSON_Delete(p);
	if (rc != KT_EPARSE)
		fail_msg("line %d: %s passed (rc %d), want: %s", line, json, rc,
			 want);
	if (strcmp(why, want))
		fail_msg("line %d: %s\n  got  %s\n  want %s", line, json, why,
			 want);
}

static void good_(int kind, const char *json, int line)
{
	cJSON *p = cJSON_Parse(json);
	char why[300];
	int rc;

	if (!p)
		fail_msg("line %d: test payload does not parse: %s", line, json);
	rc = kt_imp_check_payload(kind, p, why, sizeof(why));
	cJSON_Delete(p);
	if (rc)
		fail_msg("line %d: %s refused (rc %d): %s", line, json, rc, why);
}

#define bad(k, j, w) bad_(KT_KIND_##k, j, w, __LINE__)
#define good(k, j) good_(KT_KIND_##k, j, __LINE__)

#define H64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* one full payload of every kind, every field the schema names: the whole
 * table passes on valid values */
static void t_full(void **st)
{
	(void)st;
	good(MESSAGE, "{\"role\":\"user\",\"human\":true,\"text\":\"hi\","
	     "\"model\":\"m\",\"usage\":{\"input\":1,\"output\":2,"
	     "\"cache_read\":0,\"cache_creation\":3,\"reasoning\":4},"
	     "\"subagent\":\"s\",\"msg_id\":\"i\",\"flags\":[\"meta\"],"
	     "\"extra\":{\"x\":1}}");
	good(TOOL_CALL, "{\"tool\":\"Bash\",\"call_id\":\"c\",\"args\":{},"
	     "\"subagent\":\"s\",\"extra\":{}}");
	good(TOOL_RESULT, "{\"call_id\":\"c\",\"ok\":false,\"output\":\"\","
	     "\"output_blob\":\"" H64 "\",\"exit_code\":-9,\"observed\":"
	     "[{\"path\":\"a\",\"blob\":\"" H64 "\"},{\"path\":\"b\","
	     "\"blob\":null}],\"extra\":{}}");
	good(EDIT, "{\"path\":\"a\",\"op\":\"rename\",\"before\":\"" H64 "\","
	     "\"after\":null,\"tool\":\"Write\",\"call\":3,\"from\":\"b\"}");
	good(COMPILE, "{\"command\":\"nvcc a.cu\",\"cwd\":\"/w\","
	     "\"compiler\":\"nvcc\",\"version\":\"12\",\"flags\":[\"-O3\"],"
	     "\"arch\":\"sm_90\",\"exit_code\":0,\"duration_ms\":12.5,"
	     "\"diagnostics_blob\":\"" H64 "\",\"output_hash\":null,"
	     "\"sources\":[\"a.cu\"]}");
	good(BENCH, "{\"workload\":\"gemm\",\"scenario\":\"s\","
	     "\"candidate_blob\":\"" H64 "\",\"source_hash\":\"" H64 "\","
	     "\"reference\":\"torch\",\"time_ms\":0.5,\"min_ms\":0,"
	     "\"max_ms\":1,\"n\":10,\"ref_time_ms\":1.5,\"speedup\":3,"
	     "\"correct\":true,\"error\":{\"max_abs\":0,\"max_rel\":1e-3,"
	     "\"pass\":true},\"fingerprint\":{\"gpu\":\"H100\"},"
	     "\"tflops\":100,\"gbps\":2000,\"pattern\":\"p\","
	     "\"status\":\"ok\"}");
	good(PROFILE, "{\"tool\":\"ncu\",\"metrics\":{\"a\":\"b\"},"
	     "\"source_hash\":\"" H64 "\"}");
	good(QUESTION, "{\"text\":\"why?\",\"origin\":\"library\","
	     "\"library_id\":\"q1\",\"layer\":\"l\"}");
	good(REPLAY, "{\"step\":4,\"verdict\":\"faster\",\"reason\":\"r\","
	     "\"results\":{\"exit_code\":0,\"duration_ms\":3,"
	     "\"measured\":{\"time_ms\":\"anything\"}},\"expected\":{},"
	     "\"missing\":[\"a.h\"],\"gpu\":\"g\",\"network_isolated\":true,"
	     "\"isolation\":{\"network\":true,\"pid\":false,"
	     "\"readonly_root\":true},\"result_sha\":\"" H64 "\","
	     "\"origin\":\"bundle\"}");
	good(REPLAY, "{\"step\":4,\"verdict\":\"reproduced\",\"reason\":\"r\","
	     "\"isolation\":{\"sandbox\":\"bubblewrap\",\"version\":\"0.8.0\","
	     "\"namespaces\":[\"user\",\"pid\"],\"seccomp\":true,\"caps\":\"none\","
	     "\"uid\":\"nobody\",\"root\":\"minimal-readonly\",\"dev\":\"private\","
	     "\"gpu_devices\":0,\"work_bytes\":1,\"tmp_bytes\":1,\"shm_bytes\":1,"
	     "\"cache\":false,\"network\":true,\"limits\":{\"timeout_s\":600,"
	     "\"cpu_s\":1200,\"memory\":\"RLIMIT_AS\",\"mem_bytes\":1,"
	     "\"file_bytes\":1,\"procs\":256,\"output_bytes\":3}}}");
	good(NOTE, "{\"text\":\"t\",\"n\":\"anything\",\"extra\":{}}");
}

static void t_types(void **st)
{
	(void)st;
	bad(MESSAGE, "{\"human\":\"true\"}",
	    "message.human: expected true or false, got string \"true\"");
	bad(MESSAGE, "{\"text\":5}",
	    "message.text: expected a string, got number 5");
	bad(MESSAGE, "{\"model\":[]}",
	    "message.model: expected a string, got an array");
	bad(MESSAGE, "{\"usage\":\"10\"}",
	    "message.usage: expected an object, got string \"10\"");
	bad(MESSAGE, "{\"flags\":\"meta\"}",
	    "message.flags: expected an array, got string \"meta\"");
	bad(MESSAGE, "{\"flags\":[\"meta\",true]}",
	    "message.flags[1]: expected a string, got true");
	bad(TOOL_CALL, "{\"args\":\"ls\"}",
	    "tool_call.args: expected an object, got string \"ls\"");
	bad(TOOL_CALL, "{\"call_id\":7}",
	    "tool_call.call_id: expected a string, got number 7");
	bad(TOOL_RESULT, "{\"ok\":1}",
	    "tool_result.ok: expected true or false, got number 1");
	bad(TOOL_RESULT, "{\"observed\":{}}",
	    "tool_result.observed: expected an array, got an object");
	bad(TOOL_RESULT, "{\"observed\":[{\"path\":\"a\"},\"b\"]}",
	    "tool_result.observed[1]: expected an object, got string \"b\"");
	bad(TOOL_RESULT, "{\"observed\":[{\"path\":1}]}",
	    "tool_result.observed[0].path: expected a string, got number 1");
	bad(EDIT, "{\"tool\":false}",
	    "edit.tool: expected a string, got false");
	bad(COMPILE, "{\"sources\":[\"a.cu\",2]}",
	    "compile.sources[1]: expected a string, got number 2");
	bad(BENCH, "{\"fingerprint\":\"H100\"}",
	    "bench.fingerprint: expected an object, got string \"H100\"");
	bad(PROFILE, "{\"metrics\":[1]}",
	    "profile.metrics: expected an object, got an array");
	bad(REPLAY, "{\"isolation\":{\"pid\":\"yes\"}}",
	    "replay.isolation.pid: expected true or false, got string \"yes\"");
	bad(REPLAY, "{\"isolation\":{\"limits\":{\"memory\":\"RLIMIT_NOFILE\"}}}",
	    "replay.isolation.limits.memory: expected one of \"RLIMIT_AS\", "
	    "\"RLIMIT_DATA\", got string \"RLIMIT_NOFILE\"");
	bad(REPLAY, "{\"results\":{\"measured\":5}}",
	    "replay.results.measured: expected an object, got number 5");
	bad(REPLAY, "{\"missing\":[null]}",
	    "replay.missing[0]: expected a string, got null");
	bad(REPLAY, "{\"network_isolated\":\"no\"}",
	    "replay.network_isolated: expected true or false, got string \"no\"");
	bad(NOTE, "{\"extra\":[]}",
	    "note.extra: expected an object, got an array");
	bad(QUESTION, "{\"extra\":\"x\"}",
	    "question.extra: expected an object, got string \"x\"");
}

static void t_enums(void **st)
{
	(void)st;
	good(MESSAGE, "{\"role\":\"assistant\"}");
	good(MESSAGE, "{\"role\":\"system\"}");
	bad(MESSAGE, "{\"role\":\"bot\"}",
	    "message.role: expected one of \"user\", \"assistant\", "
	    "\"system\", got string \"bot\"");
	bad(MESSAGE, "{\"role\":\"User\"}",
	    "message.role: expected one of \"user\", \"assistant\", "
	    "\"system\", got string \"User\"");
	good(EDIT, "{\"op\":\"create\"}");
	good(EDIT, "{\"op\":\"modify\"}");
	good(EDIT, "{\"op\":\"delete\"}");
	good(EDIT, "{\"op\":\"unknown\"}");
	bad(EDIT, "{\"op\":\"move\"}",
	    "edit.op: expected one of \"create\", \"modify\", \"delete\", "
	    "\"rename\", \"unknown\", got string \"move\"");
	bad(EDIT, "{\"op\":1}",
	    "edit.op: expected one of \"create\", \"modify\", \"delete\", "
	    "\"rename\", \"unknown\", got number 1");
	good(QUESTION, "{\"origin\":\"human\"}");
	good(QUESTION, "{\"origin\":\"agent\"}");
	bad(QUESTION, "{\"origin\":\"user\"}",
	    "question.origin: expected one of \"human\", \"library\", "
	    "\"agent\", got string \"user\"");
	good(REPLAY, "{\"verdict\":\"reproduced\"}");
	good(REPLAY, "{\"verdict\":\"slower\"}");
	good(REPLAY, "{\"verdict\":\"diverged\"}");
	good(REPLAY, "{\"verdict\":\"failed\"}");
	bad(REPLAY, "{\"verdict\":\"same\"}",
	    "replay.verdict: expected one of \"reproduced\", \"faster\", "
	    "\"slower\", \"diverged\", \"failed\", got string \"same\"");
	bad(REPLAY, "{\"origin\":\"file\"}",
	    "replay.origin: expected one of \"bundle\", got string \"file\"");
}

static void t_numbers(void **st)
{
	(void)st;
	bad(BENCH, "{\"time_ms\":\"fast\"}",
	    "bench.time_ms: expected a number >= 0 or null, got string \"fast\"");
	bad(BENCH, "{\"time_ms\":-1}",
	    "bench.time_ms: expected a number >= 0 or null, got number -1");
	/* valid JSON that cJSON reads as infinity */
	bad(BENCH, "{\"time_ms\":1e999}",
	    "bench.time_ms: expected a number >= 0 or null, got number inf");
	good(BENCH, "{\"time_ms\":0}");
	bad(BENCH, "{\"min_ms\":-0.5}",
	    "bench.min_ms: expected a number >= 0 or null, got number -0.5");
	bad(BENCH, "{\"max_ms\":true}",
	    "bench.max_ms: expected a number >= 0 or null, got true");
	bad(BENCH, "{\"ref_time_ms\":\"1.0\"}",
	    "bench.ref_time_ms: expected a number >= 0 or null, got string \"1.0\"");
	bad(BENCH, "{\"speedup\":0}",
	    "bench.speedup: expected a number > 0 or null, got number 0");
	bad(BENCH, "{\"speedup\":-2}",
	    "bench.speedup: expected a number > 0 or null, got number -2");
	good(BENCH, "{\"speedup\":0.01}");
	bad(BENCH, "{\"n\":1.5}",
	    "bench.n: expected an integer >= 0, got number 1.5");
	bad(BENCH, "{\"n\":-1}",
	    "bench.n: expected an integer >= 0, got number -1");
	good(BENCH, "{\"n\":0}");
	bad(BENCH, "{\"tflops\":-1}",
	    "bench.tflops: expected a number >= 0 or null, got number -1");
	bad(BENCH, "{\"gbps\":\"x\"}",
	    "bench.gbps: expected a number >= 0 or null, got string \"x\"");
	bad(BENCH, "{\"error\":{\"max_abs\":\"x\"}}",
	    "bench.error.max_abs: expected a number >= 0 or null, got string \"x\"");
	bad(BENCH, "{\"error\":{\"max_rel\":-1e-9}}",
	    "bench.error.max_rel: expected a number >= 0 or null, got number -1e-09");
	good(BENCH, "{\"error\":{\"max_abs\":null,\"rel_l2\":\"any\"}}");
	bad(MESSAGE, "{\"usage\":{\"input\":1.5}}",
	    "message.usage.input: expected an integer >= 0, got number 1.5");
	bad(MESSAGE, "{\"usage\":{\"cache_read\":-1}}",
	    "message.usage.cache_read: expected an integer >= 0, got number -1");
	/* FORMAT.md section 1: integers of 16 digits do not come back from
	 * the canonical print exact (5000000000000001 prints as 5e+15) */
	good(MESSAGE, "{\"usage\":{\"output\":999999999999999}}");
	bad(MESSAGE, "{\"usage\":{\"output\":5000000000000001}}",
	    "message.usage.output: expected an integer >= 0, got number "
	    "5e+15");
	bad(MESSAGE, "{\"usage\":{\"output\":1000000000000000}}",
	    "message.usage.output: expected an integer >= 0, got number "
	    "1e+15");
	bad(COMPILE, "{\"exit_code\":\"1\"}",
	    "compile.exit_code: expected an integer or null, got string \"1\"");
	bad(COMPILE, "{\"exit_code\":1.5}",
	    "compile.exit_code: expected an integer or null, got number 1.5");
	good(COMPILE, "{\"exit_code\":-11}");
	bad(COMPILE, "{\"duration_ms\":-3}",
	    "compile.duration_ms: expected a number >= 0, got number -3");
	bad(TOOL_RESULT, "{\"exit_code\":\"0\"}",
	    "tool_result.exit_code: expected an integer, got string \"0\"");
	bad(REPLAY, "{\"results\":{\"exit_code\":0.5}}",
	    "replay.results.exit_code: expected an integer, got number 0.5");
	bad(REPLAY, "{\"results\":{\"duration_ms\":-1}}",
	    "replay.results.duration_ms: expected a number >= 0, got number -1");
}

static void t_seqs(void **st)
{
	(void)st;
	good(EDIT, "{\"call\":1}");
	bad(EDIT, "{\"call\":0}",
	    "edit.call: expected a seq (an integer >= 1), got number 0");
	bad(EDIT, "{\"call\":2.5}",
	    "edit.call: expected a seq (an integer >= 1), got number 2.5");
	bad(EDIT, "{\"call\":\"3\"}",
	    "edit.call: expected a seq (an integer >= 1), got string \"3\"");
	good(REPLAY, "{\"step\":999999999999999}");
	bad(REPLAY, "{\"step\":9007199254740991}",
	    "replay.step: expected a seq (an integer >= 1), got number "
	    "9.00719925474099e+15");
	bad(REPLAY, "{\"step\":-1}",
	    "replay.step: expected a seq (an integer >= 1), got number -1");
}

static void t_hashes(void **st)
{
	(void)st;
	bad(EDIT, "{\"after\":\"0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef\"}",
	    "edit.after: expected a hash (64 lowercase hex chars) or null, "
	    "got string \"0123456789ABCDEF0123456789abcdef\"...");
	bad(EDIT, "{\"before\":\"" H64 "0\"}",
	    "edit.before: expected a hash (64 lowercase hex chars) or null, "
	    "got string \"0123456789abcdef0123456789abcdef\"...");
	bad(EDIT, "{\"before\":\"abc\"}",
	    "edit.before: expected a hash (64 lowercase hex chars) or null, "
	    "got string \"abc\"");
	bad(BENCH, "{\"candidate_blob\":\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdeg\"}",
	    "bench.candidate_blob: expected a hash (64 lowercase hex chars) or "
	    "null, got string \"0123456789abcdef0123456789abcdef\"...");
	bad(BENCH, "{\"source_hash\":5}",
	    "bench.source_hash: expected a hash (64 lowercase hex chars) or "
	    "null, got number 5");
	bad(TOOL_RESULT, "{\"observed\":[{\"blob\":null},{\"blob\":\"x\"}]}",
	    "tool_result.observed[1].blob: expected a hash (64 lowercase hex "
	    "chars) or null, got string \"x\"");
	bad(TOOL_RESULT, "{\"output_blob\":1}",
	    "tool_result.output_blob: expected a hash (64 lowercase hex chars) "
	    "or null, got number 1");
	bad(COMPILE, "{\"output_hash\":\"\"}",
	    "compile.output_hash: expected a hash (64 lowercase hex chars) or "
	    "null, got string \"\"");
	bad(COMPILE, "{\"diagnostics_blob\":{}}",
	    "compile.diagnostics_blob: expected a hash (64 lowercase hex chars) "
	    "or null, got an object");
	bad(PROFILE, "{\"source_hash\":\"sha256:" H64 "\"}",
	    "profile.source_hash: expected a hash (64 lowercase hex chars) or "
	    "null, got string \"sha256:0123456789abcdef012345678\"...");
	bad(REPLAY, "{\"result_sha\":true}",
	    "replay.result_sha: expected a hash (64 lowercase hex chars) or "
	    "null, got true");
}

/* null only where FORMAT.md says |null */
static void t_null(void **st)
{
	(void)st;
	good(COMPILE, "{\"exit_code\":null,\"output_hash\":null}");
	good(BENCH, "{\"correct\":null,\"time_ms\":null,\"speedup\":null,"
	     "\"min_ms\":null,\"max_ms\":null,\"ref_time_ms\":null,"
	     "\"tflops\":null,\"gbps\":null,\"candidate_blob\":null}");
	good(EDIT, "{\"before\":null,\"after\":null}");
	bad(MESSAGE, "{\"text\":null}",
	    "message.text: expected a string, got null");
	bad(MESSAGE, "{\"human\":null}",
	    "message.human: expected true or false, got null");
	bad(TOOL_RESULT, "{\"exit_code\":null}",
	    "tool_result.exit_code: expected an integer, got null");
	bad(BENCH, "{\"n\":null}",
	    "bench.n: expected an integer >= 0, got null");
	bad(BENCH, "{\"error\":null}",
	    "bench.error: expected an object, got null");
	bad(EDIT, "{\"path\":null}", "edit.path: expected a string, got null");
	bad(EDIT, "{\"op\":null}",
	    "edit.op: expected one of \"create\", \"modify\", \"delete\", "
	    "\"rename\", \"unknown\", got null");
	bad(EDIT, "{\"call\":null}",
	    "edit.call: expected a seq (an integer >= 1), got null");
	bad(TOOL_CALL, "{\"args\":null}",
	    "tool_call.args: expected an object, got null");
	bad(NOTE, "{\"text\":null}", "note.text: expected a string, got null");
}

/* fields the schema does not name are kept as given; missing ones pass;
 * names are matched exactly (JSON keys are case-sensitive, and so are the
 * readers' lookups) */
static void t_unknown_missing(void **st)
{
	(void)st;
	good(BENCH, "{}");
	good(MESSAGE, "{}");
	good(BENCH, "{\"time\":\"fast\",\"Time_ms\":\"fast\",\"mean_ms\":\"x\","
	     "\"candidate\":5}");
	good(MESSAGE, "{\"usage\":{\"reasoning\":\"lots\"},"
	     "\"extra\":{\"human\":\"yes\",\"x_blob\":5}}");
	good(TOOL_CALL, "{\"args\":{\"time_ms\":\"x\",\"op\":5}}");
	good(BENCH, "{\"fingerprint\":{\"gpu\":1,\"n\":\"x\"}}");
	/* a field of another kind's schema is unknown here */
	good(NOTE, "{\"role\":\"bot\",\"op\":\"move\",\"time_ms\":\"x\"}");
	good(TOOL_RESULT, "{\"observed\":[{\"path\":\"a\",\"size\":\"x\"}]}");
}

/* every copy of a duplicated key is checked (readers differ on which one
 * they see) */
static void t_duplicates(void **st)
{
	(void)st;
	bad(BENCH, "{\"time_ms\":1,\"time_ms\":\"x\"}",
	    "bench.time_ms: expected a number >= 0 or null, got string \"x\"");
	bad(BENCH, "{\"error\":{\"max_abs\":0},\"error\":{\"max_abs\":-1}}",
	    "bench.error.max_abs: expected a number >= 0 or null, got number -1");
}

/* the message stays one line and cut strings end on a UTF-8 boundary;
 * the path of a later field does not keep an earlier one's tail */
static void t_message(void **st)
{
	(void)st;
	bad(NOTE, "{\"text\":[1]}", "note.text: expected a string, got an array");
	bad(BENCH, "{\"correct\":\"a\\nb\\\"c\\\\d\\te\"}",
	    "bench.correct: expected true, false or null, got string \"a?b?c?d?e\"");
	/* 31 ASCII bytes then a 2-byte character across byte 32 */
	bad(BENCH, "{\"correct\":\"0123456789012345678901234567890\\u00e9x\"}",
	    "bench.correct: expected true, false or null, got string "
	    "\"0123456789012345678901234567890\"...");
	bad(TOOL_RESULT, "{\"observed\":[{\"path\":\"a\",\"blob\":null}],"
	    "\"ok\":\"y\"}",
	    "tool_result.ok: expected true or false, got string \"y\"");
	bad(REPLAY, "{\"results\":{\"exit_code\":0},\"step\":0}",
	    "replay.step: expected a seq (an integer >= 1), got number 0");
}

static void t_args(void **st)
{
	cJSON *o = cJSON_Parse("{\"time_ms\":\"x\"}");
	cJSON *a = cJSON_Parse("[]");
	char why[16];

	(void)st;
	assert_int_equal(kt_imp_check_payload(0, o, why, sizeof(why)),
			 KT_EINVAL);
	assert_int_equal(kt_imp_check_payload(KT_KIND_MAX_ + 1, o, why,
					      sizeof(why)), KT_EINVAL);
	assert_int_equal(kt_imp_check_payload(KT_KIND_BENCH, a, why,
					      sizeof(why)), KT_EINVAL);
	assert_int_equal(kt_imp_check_payload(KT_KIND_BENCH, NULL, NULL, 0),
			 KT_EINVAL);
	/* no room for the message: still refused */
	assert_int_equal(kt_imp_check_payload(KT_KIND_BENCH, o, NULL, 0),
			 KT_EPARSE);
	memset(why, 'z', sizeof(why));
	assert_int_equal(kt_imp_check_payload(KT_KIND_BENCH, o, why,
					      sizeof(why)), KT_EPARSE);
	assert_string_equal(why, "bench.time_ms: ");
	/* the same payload is fine for a kind without time_ms */
	assert_int_equal(kt_imp_check_payload(KT_KIND_NOTE, o, why,
					      sizeof(why)), 0);
	assert_string_equal(why, "");
	cJSON_Delete(o);
	cJSON_Delete(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_full),
		cmocka_unit_test(t_types),
		cmocka_unit_test(t_enums),
		cmocka_unit_test(t_numbers),
		cmocka_unit_test(t_seqs),
		cmocka_unit_test(t_hashes),
		cmocka_unit_test(t_null),
		cmocka_unit_test(t_unknown_missing),
		cmocka_unit_test(t_duplicates),
		cmocka_unit_test(t_message),
		cmocka_unit_test(t_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
