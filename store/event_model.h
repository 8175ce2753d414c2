/*
 * event_model.h - what an event is, in one place: its kinds (stored as
 * numbers, FORMAT.md §2 "Event kinds"), the payload schema of each kind
 * (the type check every writer of outside payloads runs), and which
 * payload fields name blobs (FORMAT.md §3 "Blob references").  store/,
 * import/, analyze/ and cli/ all take these from here (through store.h).
 *
 * No store access and no allocation: event_model.c (kinds, blob
 * references) and event_schema.c (the schema) depend on base/ and cJSON.
 */
#ifndef KT_EVENT_MODEL_H
#define KT_EVENT_MODEL_H

#include <stddef.h>
#include "../base/kt_base.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cJSON;

/* ---- kinds --------------------------------------------------------------- */
/* Event kinds.  The numeric values are stored on disk (FORMAT.md) and never
 * change; new kinds get new numbers. */
enum kt_kind {
	KT_KIND_MESSAGE = 1,
	KT_KIND_TOOL_CALL = 2,
	KT_KIND_TOOL_RESULT = 3,
	KT_KIND_EDIT = 4,
	KT_KIND_COMPILE = 5,
	KT_KIND_BENCH = 6,
	KT_KIND_PROFILE = 7,
	KT_KIND_QUESTION = 8,
	KT_KIND_REPLAY = 9,
	KT_KIND_NOTE = 10,
	KT_KIND_MAX_ = 10
};

/* "message", "tool_call", ...; NULL for an unknown value. */
const char *kt_kind_name(int kind);
/* The kind for a name, or 0 when the name is not a kind. */
int kt_kind_from_name(const char *name);

/* ---- blob references (event_model.c) ------------------------------------
 * The fields of a payload that name a blob (FORMAT.md §3 "Blob references"):
 * an edit's "before" and "after"; every member whose name ends in "_blob",
 * of the payload and of its "extra" object; "blob" of each object of the
 * payload's "observed" and "images" arrays.  null names none.  Any other
 * 64-hex string of a payload is text.
 */
typedef struct kt_blobref {
	char field[64];          /* "after", "output_blob", "extra.log_blob",
				    "observed[2].blob" (cut at 63 bytes) */
	struct cJSON *item;      /* the value (not null); the caller may
				    change a string in place */
	int ok;                  /* a 64-hex string: hash holds it */
	unsigned char hash[KT_HASH_LEN];
} kt_blobref;

typedef int (*kt_blobref_fn)(kt_blobref *ref, void *arg);

/* Call fn for each blob reference of a `kind` payload (an object; anything
 * else has none), in payload order; stop when fn returns non-zero and
 * return that value.  No store access. */
int kt_blobref_foreach(int kind, struct cJSON *payload, kt_blobref_fn fn,
		       void *arg);

/* ---- payload schema (event_schema.c) ----------------------------------- */
/*
 * Check the fields FORMAT.md section 2 defines for payloads of `kind`
 * (enum kt_kind, above).  Only the fields present are checked:
 * a missing field passes (readers take it as unknown), and so does every
 * field the schema does not name (it is kept as given).  What is checked,
 * per field (the table in event_schema.c mirrors FORMAT.md section 2):
 *   - strings, true/false, objects, arrays of strings;
 *   - enums: message "role", edit "op", question "origin", replay
 *     "verdict" and "origin";
 *   - numbers are finite (cJSON reads 1e999 as infinity); integers are
 *     whole and at most 10^15 - 1 in magnitude (FORMAT.md section 1
 *     "Numbers"); counts (usage tokens, bench "n") are >= 0; times
 *     (*_ms, "duration_ms"), "tflops", "gbps" and error bounds are >= 0;
 *     "speedup" is > 0; seq references (edit "call", replay "step") are
 *     integers >= 1;
 *   - hashes (before, after, *_blob, source_hash, output_hash, result_sha,
 *     observed[].blob) are 64 lowercase hex chars;
 *   - null only where FORMAT.md allows it (the schema's "|null").
 * Nested members checked: message "usage", tool_result "observed"[],
 * bench "error", replay "results" and "isolation"; every kind's "extra" is
 * an object.  Duplicate keys are each checked.
 *
 * payload: the payload (not changed, not kept).  why (may be NULL) gets,
 * on KT_EPARSE, one line "<kind>.<field>: expected <type>, got <what>"
 * (e.g. `bench.time_ms: expected a number >= 0 or null, got string
 * "fast"`; nested fields as "tool_result.observed[2].blob"), cut to
 * whylen bytes.
 * Returns 0 (the payload passes), KT_EPARSE (a field has the wrong type:
 * why says which, the first in payload order), KT_EINVAL (kind is not a
 * kind, or payload is not an object).  No allocation, no I/O.
 */
int kt_imp_check_payload(int kind, const struct cJSON *payload, char *why,
			 size_t whylen);

/*
 * For importers that take a count from the source as written (message
 * "usage" tokens, bench "n"): add member key = v to object o when v is a
 * count kt_imp_check_payload accepts (a whole number, 0 <= v < 10^15),
 * else add nothing (a missing count is unknown; -1, 2.5, NaN or 1e999 is
 * no count).  Returns 1 added, 0 not (v out of range, or no memory: the
 * member is optional either way).
 */
int kt_imp_add_count(struct cJSON *o, const char *key, double v);

#ifdef __cplusplus
}
#endif
#endif /* KT_EVENT_MODEL_H */
