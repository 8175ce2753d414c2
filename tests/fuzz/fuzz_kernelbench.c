/*
 * fuzz_kernelbench.c - the KernelBench importer (import/imp_kernelbench.c):
 * the input up to its first NUL is a results file, the rest a baseline
 * file beside it (so the baseline join runs), or a baseline alone.
 */
#include "fuzz_imp_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = fz_split(data, size);

	fz_init();
	fz_put("results_level1.json", data, n);
	if (n < size)
		fz_put("baseline_time_torch.json", data + n + 1, size - n - 1);
	fz_run("", "kernelbench");
	return 0;
}
