/*
 * fuzz_library.c - the question library reader (`questions suggest
 * --library FILE`) on arbitrary bytes, both forms: every entry it accepts
 * has a non-empty text, a known layer and only known flags, and an input
 * it refuses says which line and why.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../../analyze/analyze.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kt_an_libentry *e = NULL;
	size_t n = 99, bad = 99;
	const char *why = NULL;
	int rc;

	if (size > 65536)
		return 0;
	rc = kt_an_library_parse((const char *)data, size, &e, &n, &bad, &why);
	if (rc == KT_OK) {
		if (!n || !e || why || bad)
			abort();
		for (size_t i = 0; i < n; i++)
			if (!e[i].text || !e[i].text[0] || e[i].layer < 0 ||
			    e[i].layer >= KT_AN_NLAYERS ||
			    (e[i].flags & ~(KT_AN_F_RELOCATE | KT_AN_F_BOUND)))
				abort();
		kt_an_library_free(e, n);
	} else if (rc == KT_EINVAL) {
		if (e || n || !why)
			abort();
	} else if (rc != KT_ENOMEM) {
		abort();
	}
	return 0;
}
