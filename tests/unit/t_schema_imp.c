/* t_schema_imp.c - the importers whose numbers come from the source as
 * written (FlashInfer traces, KernelBench timings, KernelAgent results, the
 * benchmark text patterns, token counts of agent logs) write only events that pass the payload type
 * check (store/event_model.h): a negative time, a speedup of 0, a fractional
 * trial count or an infinite error bound in the source is no measurement,
 * and is left out instead of stored where readers would misread it.
 * Sources are small files of our own, written to a temp dir. */
#include <math.h>
#include <cjson/cJSON.h>
#include "testutil.h"
#include "imp_fixture.h"

static void put(struct ifx *f, const char *name, const char *text)
{
	char p[4400];
	FILE *o;

	snprintf(p, sizeof(p), "%s/%s", f->dir, name);
	o = fopen(p, "w");
	assert_non_null(o);
	assert_int_equal(fputs(text, o) >= 0, 1);
	fclose(o);
	assert_true(strlen(p) < sizeof(f->path));
	memcpy(f->path, p, strlen(p) + 1);
}

/* every event of every run of the last import passes the check; returns
 * the bench events seen */
static size_t all_pass(struct ifx *f)
{
	size_t i, k, benches = 0;
	char why[300];

	assert_true(f->nruns > 0);
	for (i = 0; i < (size_t)f->nruns; i++) {
		struct ievs e = if_events(f, f->ids[i]);

		for (k = 0; k < e.n; k++) {
			if (kt_imp_check_payload(e.v[k].kind, e.v[k].p, why,
						 sizeof(why)))
				fail_msg("run %s seq %llu: %s", f->names[i],
					 (unsigned long long)e.v[k].seq, why);
			benches += e.v[k].kind == KT_KIND_BENCH;
		}
		if_free(&e);
	}
	return benches;
}

static void t_flashinfer(void **state)
{
	struct ifx *f = *state;
	struct ievs e;

	put(f, "traces_fx.jsonl",
	    "{\"definition\": \"gemm_fx\", \"workload\": {\"uuid\": \"w0\"}, "
	    "\"solution\": \"s1\", \"evaluation\": {\"status\": \"PASSED\", "
	    "\"environment\": {\"hardware\": \"H100\"}, \"log\": \"\", "
	    "\"correctness\": {\"max_relative_error\": -0.5, "
	    "\"max_absolute_error\": -1, \"extra\": null}, \"performance\": "
	    "{\"latency_ms\": -1, \"reference_latency_ms\": -2, "
	    "\"speedup_factor\": 0}}}\n"
	    "{\"definition\": \"gemm_fx\", \"workload\": {\"uuid\": \"w1\"}, "
	    "\"solution\": \"s1\", \"evaluation\": {\"status\": \"PASSED\", "
	    "\"environment\": {\"hardware\": \"H100\"}, \"log\": \"\", "
	    "\"correctness\": {\"max_relative_error\": 0.5, "
	    "\"max_absolute_error\": 0.25, \"extra\": null}, \"performance\": "
	    "{\"latency_ms\": 0.5, \"reference_latency_ms\": 1.0, "
	    "\"speedup_factor\": 2.0}}}\n"
	    "{\"definition\": \"gemm_fx\", \"workload\": {\"uuid\": \"w2\"}, "
	    "\"solution\": \"s2\", \"evaluation\": {\"status\": "
	    "\"COMPILE_ERROR\", \"environment\": {\"hardware\": \"H100\"}, "
	    "\"log\": \"[1/1] /usr/local/cuda/bin/nvcc -c kernel.cu -o "
	    "kernel.o\\nFAILED: [code=99999999999999999999] kernel.o\\n\", "
	    "\"correctness\": null, \"performance\": null}}\n");
	assert_int_equal(if_import(f, f->path, NULL, 0), 0);
	/* the COMPILE_ERROR trace is a compile, no bench result */
	assert_int_equal(all_pass(f), 2);
	/* the valid trace keeps every number */
	assert_true(if_run_named(f, "s1/gemm_fx") >= 0);
	e = if_events(f, f->ids[if_run_named(f, "s1/gemm_fx")]);
	assert_int_equal(if_count_num(&e, KT_KIND_BENCH, "time_ms", 0, 1), 1);
	assert_int_equal(if_count_num(&e, KT_KIND_BENCH, "speedup", 0, 9), 1);
	assert_int_equal(if_count_num(&e, KT_KIND_BENCH, "ref_time_ms", 0, 9),
			 1);
	if_free(&e);
	/* a build log's exit code past an int is no exit status: null */
	assert_true(if_run_named(f, "s2/gemm_fx") >= 0);
	e = if_events(f, f->ids[if_run_named(f, "s2/gemm_fx")]);
	assert_int_equal(if_count(&e, KT_KIND_COMPILE), 1);
	assert_int_equal(if_count_num(&e, KT_KIND_COMPILE, "exit_code", -1e300,
				      1e300), 0);
	if_free(&e);
}

static void t_kernelbench(void **state)
{
	struct ifx *f = *state;
	struct ievs e;

	put(f, "baseline_time_torch.json",
	    "{\"level1\": {\"1_Neg_op.py\": {\"mean\": -1.0, \"min\": -1.0, "
	    "\"max\": -0.5, \"num_trials\": 2.5, \"hardware\": \"X\"}, "
	    "\"2_Ok_op.py\": {\"mean\": 2.0, \"min\": 1.5, \"max\": 3.0, "
	    "\"num_trials\": 10, \"hardware\": \"X\"}}}\n");
	assert_int_equal(if_import(f, f->path, NULL, 0), 0);
	assert_int_equal(all_pass(f), 2);
	e = if_events(f, f->ids[0]);
	assert_int_equal(if_count_num(&e, KT_KIND_BENCH, "time_ms", 0, 9), 1);
	assert_int_equal(if_count_num(&e, KT_KIND_BENCH, "n", 0, 99), 1);
	if_free(&e);
}

static void t_kernelagent(void **state)
{
	struct ifx *f = *state;

	put(f, "worker_neg_result.json",
	    "{\"worker_id\": 1, \"success\": true, \"rounds\": 2, "
	    "\"kernel_code\": \"b = 2\\n\", \"history\": [{\"round\": 1, "
	    "\"timestamp\": \"2025-12-03T11:00:00\", \"success\": false, "
	    "\"kernel_code\": \"a = 1\\n\", \"stdout\": \"NUMERICAL "
	    "MISMATCH:\\nMax absolute difference: inf\\nMax relative error: "
	    "-2\\n\", \"stderr\": \"\"}, {\"round\": 2, \"timestamp\": "
	    "\"2025-12-03T11:01:00\", \"success\": true, \"kernel_code\": "
	    "\"b = 2\\n\", \"stdout\": \"Test passed.\\nkernel: 1.0 ms, "
	    "speedup: 0.00x\\n\", \"stderr\": \"\"}]}\n");
	assert_int_equal(if_import(f, f->path, NULL, 0), 0);
	assert_true(all_pass(f) >= 1);
}

/* token counts as a source writes them: one that is no count (negative,
 * fractional, 16 digits or more) is left out of "usage", the others kept */
static void t_usage(void **state)
{
	struct ifx *f = *state;
	struct ievs e;
	const cJSON *u = NULL;
	size_t k;

	put(f, "s.jsonl",
	    "{\"sessionId\":\"su\",\"cwd\":\"/w\",\"version\":\"2.0.50\","
	    "\"type\":\"user\",\"uuid\":\"u1\",\"parentUuid\":null,"
	    "\"timestamp\":\"2025-10-01T10:00:01.000Z\",\"message\":"
	    "{\"role\":\"user\",\"content\":\"go\"}}\n"
	    "{\"sessionId\":\"su\",\"cwd\":\"/w\",\"version\":\"2.0.50\","
	    "\"type\":\"assistant\",\"uuid\":\"a1\",\"parentUuid\":\"u1\","
	    "\"timestamp\":\"2025-10-01T10:00:02.000Z\",\"requestId\":\"r1\","
	    "\"message\":{\"id\":\"m1\",\"type\":\"message\","
	    "\"role\":\"assistant\",\"model\":\"m\",\"content\":"
	    "[{\"type\":\"text\",\"text\":\"ok\"}],\"usage\":"
	    "{\"input_tokens\":-5,\"output_tokens\":2.5,"
	    "\"cache_read_input_tokens\":9007199254740994,"
	    "\"cache_creation_input_tokens\":7}}}\n");
	assert_int_equal(if_import(f, f->path, NULL, 0), 0);
	all_pass(f);
	e = if_events(f, f->ids[0]);
	for (k = 0; k < e.n && !u; k++)
		u = cJSON_GetObjectItem(e.v[k].p, "usage");
	assert_non_null(u);
	assert_null(cJSON_GetObjectItem(u, "input"));
	assert_null(cJSON_GetObjectItem(u, "output"));
	assert_null(cJSON_GetObjectItem(u, "cache_read"));
	assert_true(cJSON_GetObjectItem(u, "cache_creation")->valuedouble == 7);
	if_free(&e);
}

static void t_add_count(void **state)
{
	cJSON *o = cJSON_CreateObject();

	(void)state;
	assert_int_equal(kt_imp_add_count(o, "a", 0), 1);
	assert_int_equal(kt_imp_add_count(o, "b", 999999999999999.0), 1);
	assert_int_equal(kt_imp_add_count(o, "c", -1), 0);
	assert_int_equal(kt_imp_add_count(o, "d", 2.5), 0);
	assert_int_equal(kt_imp_add_count(o, "e", NAN), 0);
	assert_int_equal(kt_imp_add_count(o, "f", INFINITY), 0);
	assert_int_equal(kt_imp_add_count(o, "g", 5000000000000001.0), 0);
	assert_int_equal(cJSON_GetArraySize(o), 2);
	cJSON_Delete(o);
}

/* the text patterns (Claude Code, Codex... tool outputs): a printed 0.00x
 * is no speedup */
static void t_benchpat(void **state)
{
	const char *t = "speedup: 0.00x\nkernel: 2.0 ms\n"
			"| kernel | time (ms) | speedup |\n|---|---|---|\n"
			"| a | 1.0 | 0.0 |\n";
	cJSON *arr = NULL, *it;
	char why[300];
	int n = 0;

	(void)state;
	assert_int_equal(kt_bench_parse(t, strlen(t), &arr), 0);
	assert_non_null(arr);
	cJSON_ArrayForEach(it, arr) {
		if (kt_imp_check_payload(KT_KIND_BENCH, it, why, sizeof(why)))
			fail_msg("%s", why);
		assert_null(cJSON_GetObjectItem(it, "speedup"));
		n++;
	}
	assert_true(n >= 1);
	cJSON_Delete(arr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(t_flashinfer, if_setup,
						if_teardown),
		cmocka_unit_test_setup_teardown(t_kernelbench, if_setup,
						if_teardown),
		cmocka_unit_test_setup_teardown(t_kernelagent, if_setup,
						if_teardown),
		cmocka_unit_test_setup_teardown(t_usage, if_setup,
						if_teardown),
		cmocka_unit_test(t_add_count),
		cmocka_unit_test(t_benchpat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
