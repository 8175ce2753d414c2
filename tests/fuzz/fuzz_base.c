/*
 * fuzz_base.c - the parsers of the base layer (base/kt_base.h):
 *   - kt_utf8_valid agrees with a walk of kt_utf8_seq, and its bad offset
 *     is where that walk stops;
 *   - base64: encode then strict decode gives the bytes back; a text the
 *     strict decoder accepts, the lenient one decodes to the same bytes;
 *   - ISO-8601: a time the prefix mode reads, followed by spaces only, the
 *     whole-text mode reads the same; neither reads past the text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../base/kt_base.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *t = malloc(size + 1), *e;
	unsigned char *a = NULL, *b = NULL;
	size_t i = 0, k, bad = 0, an, bn;
	const char *end;
	int64_t v;

	if (!t)
		return 0;
	memcpy(t, data, size);
	t[size] = 0;

	while (i < size && (k = kt_utf8_seq(data + i, size - i)))
		i += k;
	if (kt_utf8_valid(t, size, &bad) != (i == size))
		abort();
	if (i < size && bad != i)
		abort();

	if ((e = kt_base64_encode(data, size))) {
		if (kt_base64_decode(e, strlen(e), &a, &an) || an != size ||
		    memcmp(a, data, size))
			abort();
		free(a);
		a = NULL;
		free(e);
	}
	if (kt_base64_decode(t, size, &a, &an) == 0) {
		if (kt_base64_decode_ex(t, size, KT_B64_LENIENT, &b, &bn) ||
		    bn != an || memcmp(a, b, an))
			abort();
	}
	free(a);
	free(b);

	v = kt_iso8601_ns(t, &end);
	if (v != KT_TS_UNKNOWN) {
		if (end < t || end > t + strlen(t))
			abort();
		if (!end[strspn(end, " ")] && kt_iso8601_ns(t, NULL) != v)
			abort();
	}
	free(t);
	return 0;
}
