/*
 * fuzz_copilot_cli.c - libFuzzer target for the copilot_cli importer: the input is one
 * file (events.jsonl), imported with the format forced into a scratch store.
 * Any crash, leak or sanitizer report is a bug; warnings are expected.
 */
#include "fuzz_imp_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_init();
	fz_put("events.jsonl", data, size);
	fz_run("events.jsonl", "copilot_cli");
	return 0;
}
