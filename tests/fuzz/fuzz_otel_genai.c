/*
 * fuzz_otel_genai.c - libFuzzer target for the otel_genai importer: the input is one
 * file, imported with the format forced into a scratch store.  Any crash,
 * leak or sanitizer report is a bug; warnings are expected.
 */
#include "fuzz_imp_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_init();
	fz_put("otel.json", data, size);
	fz_run("otel.json", "otel_genai");
	return 0;
}
