/* t_benchpat.c - benchmark numbers in command output (kt_bench_parse):
 * every pattern of the table, unit conversion, grouping, correctness
 * markers, and outputs that must give nothing. */
#include <math.h>
#include "testutil.h"
#include "../../import/import.h"

static cJSON *parse(const char *s)
{
	cJSON *r = NULL;

	assert_int_equal(kt_bench_parse(s, strlen(s), &r), 0);
	assert_non_null(r);
	assert_true(cJSON_IsArray(r));
	return r;
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static int near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (fabs(b) > 1 ? fabs(b) : 1);
}

#define NEAR(a, b) do { double a_ = (a), b_ = (b); \
	if (!near(a_, b_)) fail_msg("%s = %.12g, want %.12g", #a, a_, b_); \
	} while (0)

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	return cJSON_IsString(v) ? v->valuestring : "";
}

static int correct(const cJSON *o)
{
	const cJSON *v = cJSON_GetObjectItem(o, "correct");

	return cJSON_IsBool(v) ? cJSON_IsTrue(v) : -1;
}

/* a single result with time_ms = want */
static void one_time(const char *text, double want)
{
	cJSON *r = parse(text);

	if (cJSON_GetArraySize(r) != 1)
		fail_msg("%s: %d results", text, cJSON_GetArraySize(r));
	NEAR(num(cJSON_GetArrayItem(r, 0), "time_ms"), want);
	cJSON_Delete(r);
}

static void none(const char *text)
{
	cJSON *r = parse(text);

	if (cJSON_GetArraySize(r)) {
		char *s = cJSON_PrintUnformatted(r);

		fail_msg("expected nothing from %s, got %s", text, s);
	}
	cJSON_Delete(r);
}

/* one unparsed result (no time) with pattern pat: output that only timed
 * a baseline, a competitor or an autotuner's configs */
static void unparsed(const char *text, const char *pat)
{
	cJSON *r = parse(text), *o = cJSON_GetArrayItem(r, 0);
	char *s = cJSON_PrintUnformatted(r);

	if (cJSON_GetArraySize(r) != 1 || strcmp(str(o, "status"), "unparsed") ||
	    strcmp(str(o, "pattern"), pat) ||
	    !cJSON_IsNull(cJSON_GetObjectItem(o, "time_ms")))
		fail_msg("%s: want one unparsed %s result, got %s", text, pat, s);
	free(s);
	cJSON_Delete(r);
}

static void t_units(void **st)
{
	(void)st;
	one_time("time_ms: 1.23\n", 1.23);
	one_time("latency 12.5 us\n", 0.0125);
	one_time("kernel: 1.5 ms\n", 1.5);
	one_time("gemm 45.6 \xc2\xb5s\n", 0.0456);
	one_time("gemm 45.6\xce\xbcs\n", 0.0456);
	one_time("avg 800 usec per call\n", 0.8);
	one_time("mean 250 ns\n", 0.00025);
	one_time("Elapsed time: 2.5 s\n", 2500);
	one_time("Time per iteration: 11.621 \xce\xbcs\n", 0.011621);
	one_time("median=3.2e-1ms\n", 0.32);
}

static void t_speed_flops(void **st)
{
	cJSON *r, *o;

	(void)st;
	r = parse("fused: 0.80 ms, speedup: 1.6x\n");
	assert_int_equal(cJSON_GetArraySize(r), 1);
	o = cJSON_GetArrayItem(r, 0);
	NEAR(num(o, "time_ms"), 0.8);
	NEAR(num(o, "speedup"), 1.6);
	assert_string_equal(str(o, "scenario"), "fused");
	cJSON_Delete(r);

	r = parse("new kernel is 2.5x faster than torch\n");
	assert_int_equal(cJSON_GetArraySize(r), 1);
	NEAR(num(cJSON_GetArrayItem(r, 0), "speedup"), 2.5);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(r, 0),
						     "time_ms")));
	cJSON_Delete(r);

	r = parse("v2 is 2x slower\n");
	NEAR(num(cJSON_GetArrayItem(r, 0), "speedup"), 0.5);
	cJSON_Delete(r);

	r = parse("matmul 4096: 1.10 ms  612.5 TFLOP/s  3350 GB/s\n");
	o = cJSON_GetArrayItem(r, 0);
	NEAR(num(o, "tflops"), 612.5);
	NEAR(num(o, "gbps"), 3350);
	NEAR(num(o, "time_ms"), 1.1);
	cJSON_Delete(r);

	r = parse("GFLOPS: 85.85\nbandwidth: 1.2 TB/s\n");
	assert_int_equal(cJSON_GetArraySize(r), 1);
	o = cJSON_GetArrayItem(r, 0);
	NEAR(num(o, "tflops"), 0.08585);
	NEAR(num(o, "gbps"), 1200);
	cJSON_Delete(r);

	/* reference time: speedup derived */
	r = parse("ours: 2.0 ms  torch ref: 3.0 ms\n");
	o = cJSON_GetArrayItem(r, 0);
	NEAR(num(o, "time_ms"), 2.0);
	NEAR(num(o, "ref_time_ms"), 3.0);
	NEAR(num(o, "speedup"), 1.5);
	cJSON_Delete(r);
}

static void t_blocks(void **st)
{
	cJSON *r, *o;

	(void)st;
	r = parse("=== Vector Addition ===\n\nCPU Benchmark:\n"
		  "  Time per iteration: 11.621 \xce\xbcs\n"
		  "  Throughput: 129.08 MOPS\n\nGPU Benchmark:\n"
		  "  Time per iteration: 4.724 \xce\xbcs\n"
		  "  Speedup: 2.46x\n");
	/* the CPU time is the baseline's (issue 15, vsla raw line 308): the
	 * GPU result's reference, no result of its own */
	assert_int_equal(cJSON_GetArraySize(r), 1);
	o = cJSON_GetArrayItem(r, 0);
	NEAR(num(o, "time_ms"), 0.004724);
	NEAR(num(o, "ref_time_ms"), 0.011621);
	NEAR(num(o, "speedup"), 2.46);
	assert_string_equal(str(o, "baseline"), "cpu");
	assert_string_equal(str(o, "scenario"), "Vector Addition / GPU Benchmark");
	assert_string_equal(str(o, "pattern"), "time");
	cJSON_Delete(r);

	/* competitors and baselines by heading or by their own label are
	 * left out (vsla raw line 520); a comparison heading names both
	 * sides and a result with a speedup is the agent's */
	r = parse("COMPETITOR BENCHMARKS\n----\n\n  cublas:\n"
		  "    Size 256... 243.9\xce\xbcs\n\n"
		  "GPU BENCHMARKS\n----\n\n  matmul:\n"
		  "    Size 256... 42.4\xce\xbcs\n\n"
		  "torch eager: 3.0 ms\n\n"
		  "=== GPU vs CPU ===\nours: 1.5 ms\n\n"
		  "cuBLAS speedup: 1.3x\n");
	assert_int_equal(cJSON_GetArraySize(r), 3);
	assert_string_equal(str(cJSON_GetArrayItem(r, 0), "scenario"),
			    "GPU BENCHMARKS / matmul / Size 256");
	NEAR(num(cJSON_GetArrayItem(r, 1), "time_ms"), 1.5);
	NEAR(num(cJSON_GetArrayItem(r, 2), "speedup"), 1.3);
	cJSON_Delete(r);

	r = parse("  vector_add:\n    Size 64... 1.6\xce\xbcs\n"
		  "    Size 128... 2.8\xce\xbcs\n");
	assert_int_equal(cJSON_GetArraySize(r), 2);
	assert_string_equal(str(cJSON_GetArrayItem(r, 1), "scenario"),
			    "vector_add / Size 128");
	cJSON_Delete(r);

	/* underlined sections, as in vsla's benchmark.sh */
	r = parse("\xf0\x9f\x93\x8a CPU BENCHMARKS\n------------\n\n"
		  "  vector_add:\n    Size 64... 1.6\xce\xbcs\n\n"
		  "\xf0\x9f\x94\xa5 GPU BENCHMARKS\n------------\n\n"
		  "  vector_add:\n    Size 64... 5.6\xce\xbcs\n");
	assert_int_equal(cJSON_GetArraySize(r), 1);
	assert_string_equal(str(cJSON_GetArrayItem(r, 0), "scenario"),
			    "GPU BENCHMARKS / vector_add / Size 64");
	cJSON_Delete(r);
}

/* The sizes a result was measured at are part of its scenario (issue 15:
 * different sizes are never compared): a line of sizes under a heading, a
 * size column of a table, a shape cell. */
static void scen_is(const cJSON *r, int i, const char *want)
{
	assert_string_equal(str(cJSON_GetArrayItem(r, i), "scenario"), want);
}

static void t_sizes(void **st)
{
	cJSON *r;

	(void)st;
	/* sections each with a sizes line, Tiled/GPU subheadings under it;
	 * "Reps" is a count of the measurement, not a size */
	r = parse("=== Add ===\nN1: 100, N2: 200, Reps: 10\n\nTiled:\n"
		  "  Time per iteration: 5.0 us\n\nGPU:\n"
		  "  Time per iteration: 1.0 us\n\n=== Add ===\n"
		  "N1: 1000, N2: 2000, Reps: 5\n\nTiled:\n"
		  "  Time per iteration: 50.0 us\n\nGPU:\n"
		  "  Time per iteration: 2.0 us\n\n=== Mul ===\n"
		  "Matrix A: 32x32, Matrix B: 32 x 32\n\nGPU:\n"
		  "  Time per iteration: 3.0 us\n");
	assert_int_equal(cJSON_GetArraySize(r), 5);
	scen_is(r, 0, "Add / n1=100 n2=200 / Tiled");
	scen_is(r, 1, "Add / n1=100 n2=200 / GPU");
	scen_is(r, 2, "Add / n1=1000 n2=2000 / Tiled");
	scen_is(r, 3, "Add / n1=1000 n2=2000 / GPU");
	scen_is(r, 4, "Mul / matrix_a=32x32 matrix_b=32x32 / GPU");
	cJSON_Delete(r);

	/* the next line of the same sizes replaces them and ends the
	 * headings under the old ones */
	r = parse("=== Scale ===\nSize: 64\n\nTiled:\n  time: 1 ms\n\n"
		  "Size: 128\n\nTiled:\n  time: 2 ms\n");
	assert_int_equal(cJSON_GetArraySize(r), 2);
	scen_is(r, 0, "Scale / size=64 / Tiled");
	scen_is(r, 1, "Scale / size=128 / Tiled");
	cJSON_Delete(r);

	/* sizes owned by a subheading end with it */
	r = parse("Tiled:\nBatch: 8\n  time: 1 ms\nGPU:\n  time: 2 ms\n");
	assert_int_equal(cJSON_GetArraySize(r), 2);
	scen_is(r, 0, "Tiled / batch=8");
	scen_is(r, 1, "GPU");
	cJSON_Delete(r);

	/* a sizes line after a result of its block labels that result (it
	 * is not read), never the next one */
	r = parse("kernel time: 1 ms\nSize: 64\nkernel time: 2 ms\n");
	assert_int_equal(cJSON_GetArraySize(r), 2);
	scen_is(r, 1, "");
	cJSON_Delete(r);

	/* not a sizes line: prose, a float, a word value */
	r = parse("Size: 1.5\n  time: 1 ms\n\nSize: big, N: 3\n  time: 2 ms\n\n"
		  "Note that N: 64 was used\n  time: 3 ms\n");
	assert_int_equal(cJSON_GetArraySize(r), 3);
	scen_is(r, 0, "");
	scen_is(r, 1, "");
	cJSON_Delete(r);

	/* a Markdown table's Size column */
	r = parse("| Operation | Size | Ours (us) | cuBLAS (us) |\n"
		  "|---|---|---|---|\n| add | 128 | 4.80 | N/A |\n"
		  "| add | 256 | 4.87 | N/A |\n| mul | 128 | 11.39 | 9.0 |\n");
	assert_int_equal(cJSON_GetArraySize(r), 3);
	scen_is(r, 0, "add / size=128");
	scen_is(r, 1, "add / size=256");
	scen_is(r, 2, "mul / size=128");
	cJSON_Delete(r);

	/* a shape under any header; other numbers (counts) are no size */
	r = parse("kernel  problem    iters  time (ms)\n"
		  "gemm    1024x1024  100    1.5\n"
		  "gemm    2048x2048  50     9.5\n");
	assert_int_equal(cJSON_GetArraySize(r), 2);
	scen_is(r, 0, "gemm / problem=1024x1024");
	scen_is(r, 1, "gemm / problem=2048x2048");
	cJSON_Delete(r);
	/* "impl" names the candidate (t_table), "runs" is no size: no
	 * scenario at all */
	r = parse("| impl | runs | time_ms |\n| a | 100 | 1.0 |\n| a | 50 | 2.0 |\n");
	assert_int_equal(cJSON_GetArraySize(r), 2);
	assert_null(cJSON_GetObjectItem(cJSON_GetArrayItem(r, 0), "scenario"));
	assert_string_equal(str(cJSON_GetArrayItem(r, 1), "candidate"), "a");
	cJSON_Delete(r);
}

static void t_correct(void **st)
{
	cJSON *r;

	(void)st;
	r = parse("kernel time: 1.5 ms\nResult: PASSED\n");
	assert_int_equal(correct(cJSON_GetArrayItem(r, 0)), 1);
	cJSON_Delete(r);
	r = parse("kernel time: 1.5 ms\nmax abs diff 0.3 -> mismatch\n");
	assert_int_equal(correct(cJSON_GetArrayItem(r, 0)), 0);
	cJSON_Delete(r);
	r = parse("Correctness: FAILED\n\nlatency: 0.9 ms\n");
	assert_int_equal(correct(cJSON_GetArrayItem(r, 0)), 0);
	cJSON_Delete(r);
	r = parse("a: 1 ms PASS\nb: 2 ms FAIL\n");
	assert_int_equal(correct(cJSON_GetArrayItem(r, 0)), 1);
	assert_int_equal(correct(cJSON_GetArrayItem(r, 1)), 0);
	cJSON_Delete(r);
	/* no marker: null; "Failed to ..." is not a verdict on correctness */
	r = parse("latency: 0.9 ms\nall benchmarks completed\n");
	assert_int_equal(correct(cJSON_GetArrayItem(r, 0)), -1);
	cJSON_Delete(r);
}

static void t_json(void **st)
{
	cJSON *r, *o;

	(void)st;
	/* vsla-style: // comments, literal \n, nested results, trailing , */
	r = parse("[\n  // Signal size: 128\n{\n  \"benchmark\": \"conv\",\n"
		  "  \"signal_size\": 128,\\n  \"results\": {\n"
		  "    \"mean_time_us\": 20.233,\n    \"std_time_us\": 0.7,\n"
		  "    \"min_time_us\": 20.058,\n    \"iterations\": 50,\n  },\n"
		  "  \"timestamp\": \"1752697841\"\n}\n,\n{\"method\": \"b\", "
		  "\"latency_ms\": 2, \"speedup\": 1.25, \"correct\": true}\n]\n");
	assert_int_equal(cJSON_GetArraySize(r), 2);
	o = cJSON_GetArrayItem(r, 0);
	NEAR(num(o, "time_ms"), 0.020233);
	NEAR(num(o, "min_ms"), 0.020058);
	NEAR(num(o, "n"), 50);
	assert_string_equal(str(o, "pattern"), "json");
	assert_string_equal(str(o, "scenario"),
			    "benchmark=conv signal_size=128");
	o = cJSON_GetArrayItem(r, 1);
	NEAR(num(o, "time_ms"), 2);
	NEAR(num(o, "speedup"), 1.25);
	assert_int_equal(correct(o), 1);
	cJSON_Delete(r);

	/* Python dict repr; status strings */
	r = parse("{'kernel': 'v3', 'time_ms': 0.5, 'status': 'FAILED'}\n");
	o = cJSON_GetArrayItem(r, 0);
	NEAR(num(o, "time_ms"), 0.5);
	assert_int_equal(correct(o), 0);
	cJSON_Delete(r);

	/* what repr() also writes, read by the one Python-literal reader:
	 * an escaped quote, a tuple, inf (JSON has no such number: null) */
	r = parse("{'kernel': 'it\\'s', 'shape': (1024, 1024), "
		  "'time_ms': 0.25, 'speedup': inf}\n");
	assert_int_equal(cJSON_GetArraySize(r), 1);
	o = cJSON_GetArrayItem(r, 0);
	NEAR(num(o, "time_ms"), 0.25);
	assert_true(isnan(num(o, "speedup")));
	assert_string_equal(str(o, "pattern"), "json");
	assert_string_equal(str(o, "scenario"), "kernel=it's");
	cJSON_Delete(r);

	/* JSON without measurements */
	none("{\"error\": \"CuPy not available\"}\n");
	none("{\"runtime\": 2.66, \"timestamp\": 1752697841}\n");
}

static void t_table(void **st)
{
	cJSON *r, *o;

	(void)st;
	r = parse("| kernel | Time (ms) | Speedup |\n|---|---|---|\n"
		  "| naive | 4.00 | 1.0 |\n| tiled | 1.00 | 4.0 |\n");
	assert_int_equal(cJSON_GetArraySize(r), 2);
	o = cJSON_GetArrayItem(r, 1);
	NEAR(num(o, "time_ms"), 1.0);
	NEAR(num(o, "speedup"), 4.0);
	/* rows of kernels that differ are candidates of one series, not
	 * scenarios (issue 15 rev15 finding 3) */
	assert_string_equal(str(o, "candidate"), "tiled");
	assert_null(cJSON_GetObjectItem(o, "scenario"));
	assert_string_equal(str(o, "pattern"), "table");
	cJSON_Delete(r);

	/* a variant column names the candidate, a shape column stays the
	 * scenario; a one-row table too, so it lands in the series of the
	 * longer tables after it */
	r = parse("| variant | shape | time (ms) | correct |\n|---|---|---|---|\n"
		  "| v1_naive | 4096 | 1.20 | yes |\n"
		  "| v4_vec4 | 4096 | 0.62 | yes |\n");
	assert_int_equal(cJSON_GetArraySize(r), 2);
	o = cJSON_GetArrayItem(r, 1);
	assert_string_equal(str(o, "candidate"), "v4_vec4");
	assert_string_equal(str(o, "scenario"), "shape=4096");
	cJSON_Delete(r);
	r = parse("| variant | time (ms) | correct |\n|---|---|---|\n"
		  "| v1_naive | 1.200 | yes |\n");
	assert_int_equal(cJSON_GetArraySize(r), 1);
	o = cJSON_GetArrayItem(r, 0);
	assert_string_equal(str(o, "candidate"), "v1_naive");
	assert_null(cJSON_GetObjectItem(o, "scenario"));
	cJSON_Delete(r);
	/* "kernel" the same in every row names the problem: the scenario */
	r = parse("| kernel | shape | ms |\n|---|---|---|\n"
		  "| rmsnorm | 4096 | 0.8 |\n| rmsnorm | 8192 | 1.6 |\n");
	assert_string_equal(str(cJSON_GetArrayItem(r, 1), "scenario"),
			    "rmsnorm / shape=8192");
	assert_null(cJSON_GetObjectItem(cJSON_GetArrayItem(r, 1), "candidate"));
	cJSON_Delete(r);

	r = parse("size    latency_us    GB/s\n1024    12.5          800\n"
		  "4096    40.0          1900\n");
	assert_int_equal(cJSON_GetArraySize(r), 2);
	o = cJSON_GetArrayItem(r, 0);
	NEAR(num(o, "time_ms"), 0.0125);
	NEAR(num(o, "gbps"), 800);
	cJSON_Delete(r);
}

/* Outputs that hold numbers but no benchmark. */
static void t_negative(void **st)
{
	(void)st;
	none("[ 45%] Building CUDA object CMakeFiles/k.dir/k.cu.o\n"
	     "[100%] Built target k\n");
	none("-- Configuring done (3.3s)\n-- Generating done (0.0s)\n");
	none("Compilation took 12.5 s\nnvcc compile time: 850 ms\n");
	none("2025-07-16 13:28:52,123 INFO started\n[12:00:01] step 3\n");
	none("sleeping 5 s before retry\nCommand timed out after 2m 0.0s\n");
	none("Tokens: 1234 in, 56 out (1.2s)\n");
	none("===== 5 passed in 0.12s =====\n");
	none("real\t0m1.234s\nuser\t0m0.9s\nsys\t0m0.1s\n");
	none("Exit code: 0\nWall time: 1.2 seconds\nOutput:\nok\n");
	none("Device 0: NVIDIA H100 (79.6 GB)\nSM count: 132, 4x A100\n");
	none("matrix 1024x1024 done, took 5 iterations\n");
	none("GPU memory: 114 MB used / 7805 MB total\n");
	none("v1.2.3 released; see section 4.5s\n");
	none("processed 12 items in 3 programs\n");
	none("mean_time_us\n");
	none("");
}

static void t_limits(void **st)
{
	cJSON *r = NULL;
	char *big;
	size_t n = 1 << 20, i;

	(void)st;
	assert_int_equal(kt_bench_parse("x", 1, NULL), KT_EINVAL);
	assert_int_equal(kt_bench_parse(NULL, 0, &r), 0);
	assert_int_equal(cJSON_GetArraySize(r), 0);
	cJSON_Delete(r);
	/* unbalanced JSON and deep nesting must not hurt */
	big = malloc(n + 1);
	assert_non_null(big);
	for (i = 0; i < n; i++)
		big[i] = i < n / 2 ? '[' : '{';
	big[n] = 0;
	r = parse(big);
	cJSON_Delete(r);
	/* many lines of results */
	for (i = 0; i + 16 < n; i += 15)
		memcpy(big + i, "k: 1.25 ms\n    ", 15);
	big[i] = 0;
	r = parse(big);
	assert_true(cJSON_GetArraySize(r) > 1000);
	cJSON_Delete(r);
	free(big);
}

/* The Harbor kb_verifier prints two speedups; the graded one is chosen,
 * the other kept, and why is said.  Today's code dropped
 * speedup_vs_compile (the key has "compile") and stored 5.85x. */
static const char verdict[] =
	"{\n  \"reward\": 0,\n  \"correct\": true,\n"
	"  \"speedup_vs_compile\": 0.78,\n  \"speedup_vs_eager\": 5.85,\n"
	"  \"max_err\": 0.008,\n  \"static_ok\": true,\n  \"compile_ok\": true,\n"
	"  \"suspicious\": true,\n  \"error\": null\n}\n";

static void t_graded(void **st)
{
	kt_bench_hint task = { NULL, "torch.compile" }, ver = {
		"speedup_vs_eager", "torch.compile" };
	cJSON *r = NULL, *o, *alt;

	(void)st;
	/* nothing named: all kept, the first printed, and the choice said */
	r = parse(verdict);
	assert_int_equal(cJSON_GetArraySize(r), 1);
	o = cJSON_GetArrayItem(r, 0);
	NEAR(num(o, "speedup"), 0.78);
	assert_string_equal(str(o, "metric"), "speedup_vs_compile");
	assert_string_equal(str(o, "baseline"), "torch.compile");
	assert_null(cJSON_GetObjectItem(o, "graded"));
	assert_non_null(strstr(str(o, "choice"), "first printed"));
	alt = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "alternatives"), 0);
	assert_string_equal(str(alt, "metric"), "speedup_vs_eager");
	NEAR(num(alt, "value"), 5.85);
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "flags"),
					       0)->valuestring, "suspicious");
	assert_int_equal(correct(o), 1);
	cJSON_Delete(r);
	/* the task names torch.compile: graded */
	assert_int_equal(kt_bench_parse_hint(verdict, strlen(verdict), &task,
					     &r), 0);
	o = cJSON_GetArrayItem(r, 0);
	NEAR(num(o, "speedup"), 0.78);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(o, "graded")));
	assert_non_null(strstr(str(o, "choice"), "task names"));
	cJSON_Delete(r);
	/* a verifier's named metric wins over the task's baseline */
	assert_int_equal(kt_bench_parse_hint(verdict, strlen(verdict), &ver,
					     &r), 0);
	o = cJSON_GetArrayItem(r, 0);
	NEAR(num(o, "speedup"), 5.85);
	assert_string_equal(str(o, "baseline"), "eager");
	cJSON_Delete(r);
	/* text: two baselines on two lines are one result */
	assert_int_equal(kt_bench_parse_hint("speedup vs torch.compile: 0.78x\n"
		"speedup vs eager: 5.85x\n", 55, &task, &r), 0);
	assert_int_equal(cJSON_GetArraySize(r), 1);
	o = cJSON_GetArrayItem(r, 0);
	NEAR(num(o, "speedup"), 0.78);
	assert_string_equal(str(o, "metric"), "speedup_vs_compile");
	cJSON_Delete(r);
	/* the task prompt's baseline */
	assert_string_equal(kt_bench_task_baseline("## You pass iff\ncorrect "
		"**AND** faster than `torch.compile(Model, mode=\"max-autotune\")`"
		" by the configured\nthreshold."), "torch.compile");
	assert_string_equal(kt_bench_task_baseline("Beat the eager PyTorch "
		"reference."), "eager");
	assert_null(kt_bench_task_baseline("Make it fast. Do not call "
		"torch.matmul or cublas."));
	assert_null(kt_bench_task_baseline("faster than eager and faster "
		"than cuBLAS"));
}

/* A verifier whose JSON names its graded metric by a key: that speedup is
 * the result, over the order printed and over a verifier or task hint
 * (the result's own statement is the nearer source).  A value that names
 * no speedup ("metric": "allclose" is a correctness test) chooses none. */
static void t_graded_key(void **st)
{
	static const char named[] =
		"{\"speedup_vs_eager\": 5.85, \"speedup_vs_compile\": 0.78,"
		" \"graded\": \"speedup_vs_compile\", \"reward\": 0}";
	static const char by_base[] =
		"{\"primary_metric\": \"compile\", \"speedup_vs_eager\": 5.85,"
		" \"speedup_vs_compile\": 0.78}";
	static const char not_speedup[] =
		"{\"metric\": \"allclose\", \"speedup_vs_eager\": 5.85,"
		" \"speedup_vs_compile\": 0.78}";
	kt_bench_hint eager = { "speedup_vs_eager", "eager" };
	cJSON *r = NULL, *o;

	(void)st;
	r = parse(named);
	o = cJSON_GetArrayItem(r, 0);
	NEAR(num(o, "speedup"), 0.78);
	assert_string_equal(str(o, "metric"), "speedup_vs_compile");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(o, "graded")));
	assert_non_null(strstr(str(o, "choice"), "JSON names"));
	cJSON_Delete(r);
	assert_int_equal(kt_bench_parse_hint(named, strlen(named), &eager,
					     &r), 0);
	NEAR(num(cJSON_GetArrayItem(r, 0), "speedup"), 0.78);
	cJSON_Delete(r);
	r = parse(by_base);
	o = cJSON_GetArrayItem(r, 0);
	NEAR(num(o, "speedup"), 0.78);
	assert_string_equal(str(o, "baseline"), "torch.compile");
	cJSON_Delete(r);
	/* the candidate's own time beside the speedups ("kernel_ms") is
	 * read, and the graded speedup still names the series */
	r = parse("{\"kernel_ms\": 15.80825, \"eager_ms\": 20.18669, "
		  "\"compile_ms\": 7.47655, \"speedup_vs_eager\": 1.277, "
		  "\"speedup_vs_compile\": 0.473, \"graded\": "
		  "\"speedup_vs_compile\"}");
	o = cJSON_GetArrayItem(r, 0);
	NEAR(num(o, "time_ms"), 15.80825);
	NEAR(num(o, "speedup"), 0.473);
	assert_string_equal(str(o, "metric"), "speedup_vs_compile");
	cJSON_Delete(r);
	r = parse(not_speedup);
	o = cJSON_GetArrayItem(r, 0);
	NEAR(num(o, "speedup"), 5.85);
	assert_null(cJSON_GetObjectItem(o, "graded"));
	assert_non_null(strstr(str(o, "choice"), "first printed"));
	cJSON_Delete(r);
}

/* torch.compile max-autotune times the baseline's candidate configs; the
 * verifier's result printed, then `cat reward.json`, is one result. */
static void t_autotune_dedupe(void **st)
{
	static const char out[] =
		"AUTOTUNE mm(16x14336, 14336x4096)\n"
		"  triton_mm_11 0.2232 ms 100.0% ACC_TYPE='tl.float32', BLOCK_K=64, GROUP_M=8, n\n"
		"um_stages=3, num_warps=4\n"
		"  triton_mm_1 0.2294 ms 97.3% ACC_TYPE='tl.float32', BLOCK_K=128\n"
		"  mm 0.2500 ms 89.3%\n"
		"SingleProcess AUTOTUNE benchmarking takes 1.9155 seconds and 0.9972 seconds precompiling\n"
		"{\n  \"correct\": true,\n  \"speedup_vs_compile\": 0.78,\n"
		"  \"speedup_vs_eager\": 5.85\n}\n"
		"root@modal:/app# cat reward.json\n"
		"{\n  \"correct\": true,\n  \"speedup_vs_compile\": 0.78,\n"
		"  \"speedup_vs_eager\": 5.85\n}\n";
	cJSON *r = parse(out);

	(void)st;
	assert_int_equal(cJSON_GetArraySize(r), 1);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(r, 0),
						     "time_ms")));
	cJSON_Delete(r);
	/* a header cut off: the rows are still known, and an output of
	 * nothing else is one unparsed result, not nothing */
	unparsed("  triton_mm_11 0.2232 ms 100.0% BLOCK_K=64\n", "autotune");
	/* two equal times are two measurements, not a repeat */
	r = parse("run 1: 1.250 ms\n\nrun 2: 1.250 ms\n");
	assert_int_equal(cJSON_GetArraySize(r), 2);
	cJSON_Delete(r);
}

/* A yes/NO column is read; correctness not checked is null, never true;
 * a perf_report table with no time column is marked unparsed. */
static void t_table_correct_unparsed(void **st)
{
	cJSON *r, *o;

	(void)st;
	r = parse("shape       time (ms)   correct\n"
		  "1024        0.50        yes\n"
		  "2048        0.10        NO\n");
	assert_int_equal(cJSON_GetArraySize(r), 2);
	assert_int_equal(correct(cJSON_GetArrayItem(r, 0)), 1);
	assert_int_equal(correct(cJSON_GetArrayItem(r, 1)), 0);
	cJSON_Delete(r);
	/* a markdown table: a NO, FAIL or cross row is wrong however fast */
	r = parse("| kernel | ms | correct |\n|---|---|---|\n"
		  "| v1 | 1.20 | \u2713 |\n| v2 | 0.40 | \u2717 |\n"
		  "| v3 | 0.90 | pass |\n| v4 | 0.30 | FAIL |\n"
		  "| v5 | 0.80 | yes |\n| v6 | 0.20 | NO |\n");
	assert_int_equal(cJSON_GetArraySize(r), 6);
	for (int i = 0; i < 6; i++)
		assert_int_equal(correct(cJSON_GetArrayItem(r, i)), i % 2 == 0);
	cJSON_Delete(r);
	r = parse("time: 1.5 ms\ncorrectness: not checked\n");
	assert_int_equal(correct(cJSON_GetArrayItem(r, 0)), -1);
	cJSON_Delete(r);
	r = parse("matmul-performance-fp16:\n"
		  "        M      cuBLAS      Triton\n"
		  "0   256.0    4.096000    4.096000\n"
		  "1   384.0   12.288000   12.288000\n"
		  "2   512.0   26.214401   23.831273\n");
	assert_int_equal(cJSON_GetArraySize(r), 1);
	o = cJSON_GetArrayItem(r, 0);
	assert_string_equal(str(o, "status"), "unparsed");
	assert_string_equal(str(o, "pattern"), "table");
	assert_string_equal(str(o, "scenario"), "matmul-performance-fp16");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "time_ms")));
	assert_int_equal(correct(o), -1);
	cJSON_Delete(r);
	/* plain numbers with no header are no benchmark */
	none("1 2 3\n4 5 6\n");
}

/* Label words are tokens, not substrings of a kernel's name: "rmsnorm"
 * names no "ms" (a bare "s" needs a time word), "softmax" no "max" (a
 * max is no candidate time), "prefill" no "ref". */
static void t_label_tokens(void **state)
{
	(void)state;
	none("rmsnorm: 2.5 s\n");
	one_time("rmsnorm time: 2.5 s\n", 2500);
	one_time("softmax: 2.5 us\n", 2.5e-3);
	one_time("max_ms: 3.0 ms\nprefill: 1.5 ms\n", 1.5);
}

/* A label names a baseline only as a whole word (issue 15): a baseline
 * word that is one part of the candidate's snake_case or camelCase name
 * leaves it the candidate's time; a whole-word baseline label is still
 * left out, and an output of nothing else is one unparsed result. */
static void t_baseline_words(void **state)
{
	static const struct { const char *l; double t; } cand[] = {
		{ "cpu_offload_rmsnorm: 2.0 ms\n", 2.0 },
		{ "rmsnorm_cpu: 2.0 ms\n", 2.0 },
		{ "torchvision_resize: 1.2 ms\n", 1.2 },
		{ "eager_fallback: 0.9 ms\n", 0.9 },
		{ "my_cublas_wrapper: 0.31 ms\n", 0.31 },
		{ "eagerFallback: 0.9 ms\n", 0.9 },
		{ "myCublasWrapper: 0.31 ms\n", 0.31 },
		{ "naive_matmul: 4.0 ms\n", 4.0 },
	};
	static const char *const base[] = { "eager: 1.0 ms\n",
		"torch: 1.0 ms\n", "PyTorch reference: 2.0 ms\n",
		"cuBLAS: 0.5 ms\n", "baseline time: 3.0 ms\n",
		"torch_time: 3.0 ms\n", "ref_ms: 3.0 ms\n",
		"pytorch_eager: 3.0 ms\n", "CPU Benchmark: 3.0 ms\n",
		"cublas_kernel: 0.5 ms\n" };
	cJSON *r, *o;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cand) / sizeof(cand[0]); i++) {
		one_time(cand[i].l, cand[i].t);
		r = parse(cand[i].l);
		o = cJSON_GetArrayItem(r, 0);
		assert_null(cJSON_GetObjectItem(o, "ref_time_ms"));
		assert_null(cJSON_GetObjectItem(o, "status"));
		cJSON_Delete(r);
	}
	for (i = 0; i < sizeof(base) / sizeof(base[0]); i++)
		unparsed(base[i], "time");
	/* beside the agent's result a baseline line is its reference, as
	 * before; a candidate named after the baseline is no reference */
	r = parse("eager: 2.0 ms\nours: 1.0 ms\n");
	assert_int_equal(cJSON_GetArraySize(r), 1);
	NEAR(num(cJSON_GetArrayItem(r, 0), "time_ms"), 1.0);
	cJSON_Delete(r);
	r = parse("kernel: 1.0 ms, torch: 2.0 ms\n");
	assert_int_equal(cJSON_GetArraySize(r), 1);
	NEAR(num(cJSON_GetArrayItem(r, 0), "ref_time_ms"), 2.0);
	NEAR(num(cJSON_GetArrayItem(r, 0), "speedup"), 2.0);
	cJSON_Delete(r);
	r = parse("kernel: 1.0 ms, eager_fallback: 2.0 ms\n");
	assert_int_equal(cJSON_GetArraySize(r), 2);
	assert_null(cJSON_GetObjectItem(cJSON_GetArrayItem(r, 0),
					"ref_time_ms"));
	cJSON_Delete(r);
	/* a table column: "torch (ms)" is the reference, "torch_compat_ms"
	 * the candidate's */
	r = parse("shape  torch (ms)  ours (ms)\n1024   2.0         1.0\n");
	NEAR(num(cJSON_GetArrayItem(r, 0), "ref_time_ms"), 2.0);
	cJSON_Delete(r);
	r = parse("shape  torch_compat_ms\n1024   2.0\n");
	NEAR(num(cJSON_GetArrayItem(r, 0), "time_ms"), 2.0);
	cJSON_Delete(r);
	/* a JSON harness's own name for its competitor stays one: timed
	 * alone, it is a benchmark output with no result of the agent's */
	unparsed("{\"method\": \"cublas_gemm\", \"mean_time_us\": 235.2}\n",
		 "json");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_units),
		cmocka_unit_test(t_speed_flops),
		cmocka_unit_test(t_blocks),
		cmocka_unit_test(t_sizes),
		cmocka_unit_test(t_correct),
		cmocka_unit_test(t_json),
		cmocka_unit_test(t_table),
		cmocka_unit_test(t_negative),
		cmocka_unit_test(t_limits),
		cmocka_unit_test(t_graded),
		cmocka_unit_test(t_graded_key),
		cmocka_unit_test(t_autotune_dedupe),
		cmocka_unit_test(t_table_correct_unparsed),
		cmocka_unit_test(t_label_tokens),
		cmocka_unit_test(t_baseline_words),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
