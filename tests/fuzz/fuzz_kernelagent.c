/*
 * fuzz_kernelagent.c - the KernelAgent importer (import/imp_kernelagent.c):
 * the first byte picks which file of a round folder the rest becomes (or a
 * worker result); two rounds of a trace are written so the round walk,
 * code fences and benchmark parsing all run.
 */
#include "fuzz_imp_common.h"

static const char *const names[] = {
	"input_ncu_metrics.json", "bottleneck_prompt.txt",
	"bottleneck_response.txt", "strategy.json", "opt_prompt.txt",
	"opt_reply.txt", "kernel.py", "benchmark_results.json",
	"optimized_ncu_metrics.json", "reflexion.txt"
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char rel[128];
	unsigned k;

	fz_init();
	if (!size)
		return 0;
	k = data[0] % 11;
	if (k == 10) {
		fz_put("result.json", data + 1, size - 1);
		fz_run("result.json", "kernelagent");
		return 0;
	}
	snprintf(rel, sizeof(rel), "t/round_%u/%s", 1 + (data[0] >> 7),
		 names[k]);
	fz_put(rel, data + 1, size - 1);
	fz_put("t/round_2/benchmark_results.json",
	       "{\"kernels\":{\"k\":{\"time_ms\":1}}}", 32);
	fz_run("", "kernelagent");
	return 0;
}
