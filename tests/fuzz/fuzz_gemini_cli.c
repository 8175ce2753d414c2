/*
 * fuzz_gemini_cli.c - libFuzzer target for the gemini_cli importer: the input is one
 * file (session.jsonl), imported with the format forced into a scratch store.
 * Any crash, leak or sanitizer report is a bug; warnings are expected.
 */
#include "fuzz_imp_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_init();
	fz_put("session.jsonl", data, size);
	fz_run("session.jsonl", "gemini_cli");
	return 0;
}
