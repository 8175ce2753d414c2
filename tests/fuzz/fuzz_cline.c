/*
 * fuzz_cline.c - libFuzzer target for the cline importer: the input is one
 * file, imported with the format forced into a scratch store.  Any crash,
 * leak or sanitizer report is a bug; warnings are expected.
 */
#include "fuzz_imp_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_init();
	fz_put("ui_messages.json", data, size);
	fz_run("ui_messages.json", "cline");
	return 0;
}
