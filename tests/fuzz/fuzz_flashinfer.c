/*
 * fuzz_flashinfer.c - the FlashInfer-Bench importer
 * (import/imp_flashinfer.c): the input up to its first NUL is a traces
 * JSONL file, the rest a solution of the same folder, so grouping and the
 * sibling scan run too.
 */
#include "fuzz_imp_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = fz_split(data, size);

	fz_init();
	fz_put("traces/op/d.jsonl", data, n);
	if (n < size)
		fz_put("solutions/a/op/d/a_d_r1.json", data + n + 1,
		       size - n - 1);
	fz_run("", "flashinfer");
	return 0;
}
