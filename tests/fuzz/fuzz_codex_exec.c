/*
 * fuzz_codex_exec.c - libFuzzer target for the codex_exec importer: the input is one
 * file (exec.jsonl), imported with the format forced into a scratch store.
 * Any crash, leak or sanitizer report is a bug; warnings are expected.
 */
#include "fuzz_imp_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_init();
	fz_put("exec.jsonl", data, size);
	fz_run("exec.jsonl", "codex_exec");
	return 0;
}
