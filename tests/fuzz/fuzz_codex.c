/*
 * fuzz_codex.c - libFuzzer target for the codex importer: the input is one
 * file (rollout.jsonl), imported with the format forced into a scratch store.
 * Any crash, leak or sanitizer report is a bug; warnings are expected.
 */
#include "fuzz_imp_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_init();
	fz_put("rollout.jsonl", data, size);
	fz_run("rollout.jsonl", "codex");
	return 0;
}
