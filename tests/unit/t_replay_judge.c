/* t_replay_judge.c - verdicts of kt_replay_judge on hand-made manifests and
 * results: every verdict, the noise band, and the reasons users read. */
#include "testutil.h"
#include "../../import/import.h"
#include "../../replay/replay.h"

static const char *judge(int kind, const char *man, const char *res,
			 const char *gpu, char *reason)
{
	cJSON *m = cJSON_Parse(man), *r = res ? cJSON_Parse(res) : NULL;
	const char *v;

	assert_non_null(m);
	v = kt_replay_judge(kind, m, r, gpu, reason, 1024);
	cJSON_Delete(m);
	cJSON_Delete(r);
	return v;
}

static void compile_outcomes(void **state)
{
	char reason[1024];
	const char *ok0 = "{\"kind\":\"compile\",\"command\":\"nvcc -o k k.cu\",\"expect\":{\"exit_code\":0},\"missing\":[\"k.cu\"]}";

	assert_string_equal(judge(KT_KIND_COMPILE, ok0, "{\"exit_code\":0,\"stderr\":\"\"}", "H200", reason), "reproduced");
	assert_string_equal(judge(KT_KIND_COMPILE, ok0, "{\"exit_code\":1,\"stderr\":\"k.cu: No such file\"}", NULL, reason), "failed");
	assert_non_null(strstr(reason, "exit 1"));
	assert_non_null(strstr(reason, "k.cu: No such file"));
	assert_non_null(strstr(reason, "never showed 1 file"));
	assert_non_null(strstr(reason, "no GPU"));
	assert_string_equal(judge(KT_KIND_COMPILE,
		"{\"expect\":{\"exit_code\":2}}", "{\"exit_code\":0}", NULL, reason), "diverged");
	assert_string_equal(judge(KT_KIND_COMPILE,
		"{\"expect\":{\"exit_code\":2}}", "{\"exit_code\":1}", NULL, reason), "reproduced");
	assert_string_equal(judge(KT_KIND_COMPILE, ok0, NULL, NULL, reason), "failed");
	assert_non_null(strstr(reason, "no result"));
}

static void bench_band(void **state)
{
	char reason[1024];
	const char *m = "{\"noise_band\":0.05,\"expect\":{\"time_ms\":2.0,\"correct\":true}}";

	assert_string_equal(judge(KT_KIND_BENCH, m, "{\"exit_code\":0,\"stdout\":\"time_ms: 2.06\\nPASSED\\n\"}", NULL, reason), "reproduced");
	assert_string_equal(judge(KT_KIND_BENCH, m, "{\"exit_code\":0,\"stdout\":\"time_ms: 1.5\\n\"}", NULL, reason), "faster");
	assert_non_null(strstr(reason, "1.33x faster"));
	assert_string_equal(judge(KT_KIND_BENCH, m, "{\"exit_code\":0,\"stdout\":\"time_ms: 2.5\\n\"}", NULL, reason), "slower");
	/* a recorded spread wider than the band widens it: 1.5 is inside +-30 % */
	assert_string_equal(judge(KT_KIND_BENCH,
		"{\"noise_band\":0.05,\"expect\":{\"time_ms\":2.0,\"min_ms\":1.4,\"max_ms\":2.6}}",
		"{\"exit_code\":0,\"stdout\":\"time_ms: 1.5\\n\"}", NULL, reason), "reproduced");
}

static void bench_correctness_and_harness_rows(void **state)
{
	char reason[1024];
	const char *m = "{\"expect\":{\"time_ms\":2.0,\"correct\":true,\"scenario\":\"b1\"},"
			"\"fingerprint\":{\"gpu_name\":\"NVIDIA H200\"}}";

	assert_string_equal(judge(KT_KIND_BENCH, m,
		"{\"exit_code\":0,\"stdout\":\"{\\\"scenario\\\":\\\"b0\\\",\\\"time_ms\\\":9,\\\"correct\\\":true}\\n"
		"{\\\"scenario\\\":\\\"b1\\\",\\\"time_ms\\\":2.01,\\\"correct\\\":false}\\n\"}", "NVIDIA H200", reason), "diverged");
	assert_non_null(strstr(reason, "correctness differs"));
	assert_string_equal(judge(KT_KIND_BENCH, m,
		"{\"exit_code\":0,\"stdout\":\"{\\\"scenario\\\":\\\"b1\\\",\\\"time_ms\\\":2.01,\\\"correct\\\":true}\\n\"}", "NVIDIA H100", reason), "reproduced");
	assert_non_null(strstr(reason, "recorded on NVIDIA H200, replayed on NVIDIA H100"));
	assert_string_equal(judge(KT_KIND_BENCH, m, "{\"exit_code\":1,\"stdout\":\"segfault\",\"stderr\":\"boom\"}", NULL, reason), "failed");
	assert_non_null(strstr(reason, "no benchmark result"));
}

static void harness_output(void **state)
{
	char reason[1024];
	const char *m = "{\"expect\":{\"time_ms\":2.0,\"correct\":true,\"scenario\":\"b1\"}}";

	/* a compile line's duration is not a measurement; the error line is the reason */
	assert_string_equal(judge(KT_KIND_BENCH, m,
		"{\"exit_code\":0,\"stdout\":\"{\\\"type\\\":\\\"compile\\\",\\\"duration_ms\\\":39590}\\n"
		"{\\\"type\\\":\\\"error\\\",\\\"error\\\":\\\"no CUDA device\\\"}\\n\"}", NULL, reason), "failed");
	assert_non_null(strstr(reason, "the harness reported: no CUDA device"));
	assert_string_equal(judge(KT_KIND_BENCH, m,
		"{\"exit_code\":0,\"stdout\":\"{\\\"type\\\":\\\"compile\\\",\\\"duration_ms\\\":39590}\\n"
		"{\\\"type\\\":\\\"result\\\",\\\"scenario\\\":\\\"b1\\\",\\\"time_ms\\\":2.02,\\\"correct\\\":true}\\n\"}", NULL, reason), "reproduced");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(compile_outcomes),
		cmocka_unit_test(bench_band),
		cmocka_unit_test(bench_correctness_and_harness_rows),
		cmocka_unit_test(harness_output),
	};

	return cmocka_run_group_tests_name("replay_judge", tests, NULL, NULL);
}
