/*
 * fuzz_claude.c - libFuzzer target for the Claude Code importer: the input
 * is a session file, imported with the format forced into a scratch store.
 * Any crash, leak or sanitizer report is a bug; warnings and errors are
 * expected.
 */
#include "fuzz_imp_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_init();
	fz_put("in.jsonl", data, size);
	fz_run("in.jsonl", "claude_code");
	return 0;
}
