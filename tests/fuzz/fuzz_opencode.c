/*
 * fuzz_opencode.c - libFuzzer target for the opencode importer: the input
 * is one file of the storage tree, or a database when it starts with
 * SQLite's header, imported with the format forced into a scratch store.
 * Any crash, leak or sanitizer report is a bug; warnings are expected.
 */
#include "fuzz_imp_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_init();
	fz_put("storage/message/ses_A/msg_001.json", data, size);
	fz_run("storage/message/ses_A/msg_001.json", "opencode");
	return 0;
}
