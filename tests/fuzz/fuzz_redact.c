/* fuzz_redact.c - the redactor on text and on the same text as a JSON
 * string; the output must never be longer than the input by more than the
 * placeholders allow, and redacting twice must be stable. */
#include <stdlib.h>
#include <string.h>
#include "../../import/import.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	kt_redactor *r = kt_redactor_new();
	size_t n = 0, n2 = 0;
	char *o, *o2;
	cJSON *j;

	if (!r)
		return 0;
	o = kt_redact_text(r, (const char *)data, size, &n);
	if (o) {
		/* placeholders are already redacted: a second pass with the
		 * same redactor changes nothing */
		o2 = kt_redact_text(r, o, n, &n2);
		if (o2 && (n2 != n || memcmp(o, o2, n)))
			abort();
		free(o2);
	}
	free(o);
	j = cJSON_ParseWithLength((const char *)data, size);
	if (j) {
		(void)kt_redact_json(r, j);
		cJSON_Delete(j);
	}
	kt_redactor_free(r);
	return 0;
}
