/* fuzz_benchpat.c - benchmark numbers in free text. */
#include "../../import/import.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	cJSON *r = NULL;

	if (kt_bench_parse((const char *)data, size, &r) == 0)
		cJSON_Delete(r);
	return 0;
}
