/*
 * fuzz_ktraj_jsonl.c - the ktraj JSONL line parser (import/imp_ktraj.c)
 * that `ktraj append` and the ktraj importer run on untrusted lines, and
 * the base64 codec of its blob lines.  The blob-line fast path must give
 * what the cJSON path gives: the same result code, message and fields.
 * The blob references of a parsed event (kt_blobref_foreach, which append
 * and the importer run on it) are walked too: each one is a value that is
 * not null, and a hash only when it is 64 hex chars.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../import/ktraj_jsonl.h"

static int ref_cb(kt_blobref *r, void *arg)
{
	(void)arg;
	if (!r->item || cJSON_IsNull(r->item) || !r->field[0] ||
	    (r->ok && (!cJSON_IsString(r->item) ||
		       strlen(r->item->valuestring) != KT_HASH_HEX)))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kt_jsonl_rec r, q;
	char err[200], qerr[200];
	int rc, qrc;
	unsigned char *dec = NULL;
	size_t dlen;
	char *enc;

	err[0] = qerr[0] = 0;
	rc = kt_jsonl_parse((const char *)data, size, &r, err, sizeof(err));
	qrc = kt_jsonl_parse_ref((const char *)data, size, &q, qerr,
				 sizeof(qerr));
	if (rc != qrc || (rc && strcmp(err, qerr)))
		abort();
	if (rc == 0) {
		if (r.is_blob != q.is_blob)
			abort();
		if (r.is_blob &&
		    (memcmp(r.blob, q.blob, sizeof(r.blob)) || r.len != q.len ||
		     memcmp(r.data, q.data, r.len + 1) || !r.path != !q.path ||
		     (r.path && strcmp(r.path, q.path))))
			abort();
		kt_jsonl_release(&q);
	}
	if (rc == 0) {
		/* what append reads from a record must be there */
		if (!r.is_blob && (!r.kind || !r.payload))
			abort();
		if (!r.is_blob && !r.is_run &&
		    kt_blobref_foreach(r.kind, r.payload, ref_cb, NULL) != 0)
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
