/*
 * impx.h - small helpers shared by the Inspect AI, FlashInfer-Bench,
 * KernelBench and KernelAgent importers (imp_inspect.c, imp_flashinfer.c,
 * imp_kernelbench.c, imp_kernelagent.c).  Internal to import/.
 *
 * None of these print or exit; problems go through kt_imp_warn().
 */
#ifndef KT_IMPX_H
#define KT_IMPX_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include "import.h"

/* Inline tool output limit (brief: "output ... truncated to 64 KiB inline,
 * output_blob when longer"). */
#define KT_IMPX_INLINE_MAX (64u * 1024u)

/*
 * ISO-8601 / RFC 3339 date-time to ns since the Unix epoch.  Accepts
 * "YYYY-MM-DD[T ]hh:mm[:ss[.frac]][Z|+hh:mm|-hh:mm|+hhmm]" and a bare date.
 * A time without zone ("naive", as FlashInfer-Bench and KernelAgent write
 * them) is taken as UTC: the writers call datetime.now() on hosts whose zone
 * the file does not record, so UTC is the only reproducible choice.
 * Returns KT_TS_UNKNOWN for NULL, anything unparsable, or a time outside
 * what int64 ns can hold (years 1677..2262).
 */
int64_t kt_impx_ts(const char *iso);

/* Member `key` of object o as a string, or NULL when absent / not a string. */
const char *kt_impx_str(const cJSON *o, const char *key);

/*
 * Member `key` as a number.  Numbers and numeric strings ("9.35", as
 * KernelBench's stringified result files write them) both count.  Returns 1
 * and sets *out when it is one, else 0.
 */
int kt_impx_num(const cJSON *o, const char *key, double *out);
/* The same for a node itself. */
int kt_impx_numv(const cJSON *v, double *out);

/* Member `key` as a boolean: true/false, "True"/"False"/"true"/"false",
 * 1/0.  Returns 1, 0, or -1 when absent or not boolean-like. */
int kt_impx_bool(const cJSON *o, const char *key);

/*
 * Emit one event into the current run.  payload is consumed.  f may be NULL
 * (the file being imported); line/off/len locate the raw record (0 unknown).
 * *seq (may be NULL) gets the new sequence number.  Returns 0 or KT_E*.
 */
int kt_impx_emit(kt_imp *imp, int kind, uint64_t parent, int64_t ts_ns,
		 const char *actor, cJSON *payload, const kt_file *f,
		 uint64_t line, uint64_t off, uint64_t len, uint64_t *seq);

/*
 * Add text under `key` to payload, cut to KT_IMPX_INLINE_MAX bytes (on a
 * UTF-8 boundary); when cut, the whole text is stored as a blob whose hex
 * hash goes under `blob_key` (e.g. "output" / "output_blob").  Invalid UTF-8
 * is replaced by U+FFFD.  Returns 0 or KT_E*.
 */
int kt_impx_text(kt_imp *imp, cJSON *payload, const char *key,
		 const char *blob_key, const char *text, size_t len);

/*
 * A malloc'ed, NUL-terminated copy of s[0..len) that is valid UTF-8:
 * invalid bytes become U+FFFD, NUL bytes are dropped.  *out_len (may be
 * NULL) gets its length.  NULL on allocation failure.
 */
char *kt_impx_utf8(const char *s, size_t len, size_t *out_len);

/*
 * Parse the whole of f as one JSON document.  On failure warns
 * "invalid JSON" at the line where parsing stopped and returns NULL; a
 * document cJSON takes but RFC 8259 does not (bytes after it, raw control
 * characters, numbers like 01: jsonstrict.h) is warned and refused too.
 * Caller frees the result with cJSON_Delete.
 */
cJSON *kt_impx_parse(kt_imp *imp, const kt_file *f);

/*
 * Call fn for every non-blank line of f that parses as JSON (the record is
 * owned by the helper and freed after fn returns).  Lines that do not parse,
 * or that RFC 8259 refuses (jsonstrict.h), are warned as file:line and
 * skipped.  fn returning non-zero stops the
 * walk with that value.  The last line may lack its newline.
 */
int kt_impx_jsonl(kt_imp *imp, const kt_file *f,
		  int (*fn)(cJSON *rec, uint64_t line, uint64_t off,
			    uint64_t len, void *arg), void *arg);

/*
 * Parse a Python literal as repr() writes it (dicts, lists, tuples, quoted
 * strings, numbers, True/False/None, inf/nan as null) into cJSON.  KernelBench
 * result files sometimes hold "{'mean': 9.35, ...}" strings.  NULL when the
 * text is not such a literal.  Caller frees.
 */
cJSON *kt_impx_pyrepr(const char *s);

/* Pointer to the last '/'-separated component of p. */
const char *kt_impx_base(const char *p);

/* For detect(): 1 when needle occurs in the first n bytes of f. */
int kt_impx_has(const kt_file *f, size_t n, const char *needle);

#endif /* KT_IMPX_H */
