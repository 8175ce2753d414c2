/*
 * fuzz_sts.c - libFuzzer target for the sts importer: the input is one
 * file, imported with the format forced into a scratch store.  Any crash,
 * leak or sanitizer report is a bug; warnings are expected.
 */
#include "fuzz_imp_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_init();
	fz_put("s.sts.jsonl", data, size);
	fz_run("s.sts.jsonl", "sts");
	return 0;
}
