/*
 * fuzz_ktraj_jsonl.c - the ktraj JSONL line parser (import/imp_ktraj.c)
 * that `ktraj append` and the ktraj importer run on untrusted lines, and
 * the base64 codec of its blob lines.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../import/ktraj_jsonl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kt_jsonl_rec r;
	char err[200];
	unsigned char *dec = NULL;
	size_t dlen;
	char *enc;

	if (kt_jsonl_parse((const char *)data, size, &r, err, sizeof(err)) == 0) {
		/* what append reads from a record must be there */
		if (!r.is_blob && (!r.kind || !r.payload))
			abort();
		if (r.is_blob && !r.data)
			abort();
		kt_jsonl_release(&r);
	}
	/* base64: decode(encode(x)) == x */
	enc = kt_base64_encode(data, size);
	if (enc) {
		if (kt_base64_decode(enc, strlen(enc), &dec, &dlen) != 0 ||
		    dlen != size || memcmp(dec, data, size))
			abort();
		free(dec);
		free(enc);
	}
	return 0;
}
