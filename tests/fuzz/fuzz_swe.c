/*
 * fuzz_swe.c - libFuzzer target for the swe_agent importer: the input is one
 * file (a.traj), imported with the format forced into a scratch store.
 * Any crash, leak or sanitizer report is a bug; warnings are expected.
 */
#include "fuzz_imp_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_init();
	fz_put("a.traj", data, size);
	fz_run("a.traj", "swe_agent");
	return 0;
}
