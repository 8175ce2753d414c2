/*
 * fuzz_atif.c - libFuzzer target for the ATIF importer: the input is a
 * trajectory and, after the first NUL byte, a second file beside it that
 * the first may reference as a sub-agent trajectory
 * ("trajectory.child.json" resolves to it).  The folder is imported with
 * the format forced.
 */
#include "fuzz_imp_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t a = fz_split(data, size);

	fz_init();
	fz_put("x.trajectory.json", data, a);
	if (a < size)
		fz_put("x.child.json", data + a + 1, size - a - 1);
	fz_run("", "atif");
	return 0;
}
