/*
 * schema.h - type check of an event payload against its kind's schema
 * (FORMAT.md section 2 "Event kinds": the payload schemas, "Blob
 * references"; section 1 "Numbers").  Used by every writer that takes
 * payloads from outside: `ktraj append` (cli/cmd_append.c) and the import
 * of ktraj JSONL (import/imp_ktraj.c), so that a payload whose typed
 * fields have the wrong type ("correct":"yes", "time_ms":"fast") never
 * reaches the readers (log --json, blame, stats), which take a field of
 * the wrong type for an absent one or misread it.
 */
#ifndef KT_SCHEMA_H
#define KT_SCHEMA_H
#include <stddef.h>
#include <cjson/cJSON.h>

/*
 * Check the fields FORMAT.md section 2 defines for payloads of `kind`
 * (enum kt_kind, store/store.h).  Only the fields present are checked:
 * a missing field passes (readers take it as unknown), and so does every
 * field the schema does not name (it is kept as given).  What is checked,
 * per field (the table in schema.c mirrors FORMAT.md section 2):
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
int kt_imp_check_payload(int kind, const cJSON *payload, char *why,
			 size_t whylen);

/*
 * For importers that take a count from the source as written (message
 * "usage" tokens, bench "n"): add member key = v to object o when v is a
 * count kt_imp_check_payload accepts (a whole number, 0 <= v < 10^15),
 * else add nothing (a missing count is unknown; -1, 2.5, NaN or 1e999 is
 * no count).  Returns 1 added, 0 not (v out of range, or no memory: the
 * member is optional either way).
 */
int kt_imp_add_count(cJSON *o, const char *key, double v);
#endif
