/*
 * fuzz_amp.c - libFuzzer target for the amp importer: the input is one
 * file (T-thread.json), imported with the format forced into a scratch store.
 * Any crash, leak or sanitizer report is a bug; warnings are expected.
 */
#include "fuzz_imp_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_init();
	fz_put("T-thread.json", data, size);
	fz_run("T-thread.json", "amp");
	return 0;
}
