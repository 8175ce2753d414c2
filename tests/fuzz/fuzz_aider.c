/*
 * fuzz_aider.c - libFuzzer target for the aider importer: the input is one
 * file, imported with the format forced into a scratch store.  Any crash,
 * leak or sanitizer report is a bug; warnings are expected.
 */
#include "fuzz_imp_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_init();
	fz_put(".aider.chat.history.md", data, size);
	fz_run(".aider.chat.history.md", "aider");
	return 0;
}
