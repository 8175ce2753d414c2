/*
 * fuzz_seriesby.c - the --series-by list parser on arbitrary bytes: it
 * accepts only comma separated, distinct field names and then yields a
 * non-empty subset of the four key fields.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../../analyze/analyze.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	unsigned by = 0;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	if (kt_an_series_by_parse(s, &by) == KT_OK &&
	    (!by || (by & ~KT_AN_BY_DEFAULT)))
		abort();
	free(s);
	return 0;
}
