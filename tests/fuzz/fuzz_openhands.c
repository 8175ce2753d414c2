/*
 * fuzz_openhands.c - libFuzzer target for the openhands importer: the input is one
 * file (events.json), imported with the format forced into a scratch store.
 * Any crash, leak or sanitizer report is a bug; warnings are expected.
 */
#include "fuzz_imp_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_init();
	fz_put("events.json", data, size);
	fz_run("events.json", "openhands");
	return 0;
}
