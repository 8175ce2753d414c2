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
#include "jsonstrict.h"

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

/* ---- printing JSON ---- */
/* a growable text buffer reused across events (jsonprint.c) */
struct kt_jbuf {
	char *p;                /* NUL-terminated at n */
	size_t n, cap;
};

/* jsonprint.c: item as cJSON_PrintUnformatted prints it, into b (b->n
 * bytes, NUL-terminated; b->p stays owned by b).  KT_ENOMEM, or KT_EINVAL
 * for an item cJSON cannot print. */
int kt_imp_json_print(const cJSON *item, struct kt_jbuf *b);

/* ---- strict JSON, warned in the words every importer shares ----------
 * The RFC 8259 check itself is jsonstrict.h's kt_json_check; these report
 * what it refuses through kt_imp_warn. */
/*
 * For importers that parsed s[0..n) of f (at line `line`, 0 when the text
 * is the whole file) into *o with cJSON: when kt_json_check refuses the
 * text, warn "file:line: invalid JSON (RFC 8259): WHY at byte N: line
 * skipped" ("... file skipped" for line 0) through kt_imp_warn, cJSON_Delete
 * *o, set *o = NULL and return 1; else return 0.  Does nothing and returns
 * 0 when *o is NULL (cJSON refused it: the caller reports that).  A byte
 * order mark is allowed when s is the start of f's data.  A \u0000 escape
 * in a string is refused too (KT_JSON_NONUL), warned as
 * "file:line: \u0000 in a string: ... at byte N: line skipped".
 */
int kt_imp_json_strict(kt_imp *imp, const kt_file *f, uint64_t line,
		       const char *s, size_t n, cJSON **o);

/*
 * kt_imp_json_strict for a text that must also be UTF-8 everywhere, in one
 * pass instead of kt_utf8_valid's and kt_json_check's (the Claude Code
 * importer's lines: a pass over a 100 MB session costs ~1 % of its import).
 * Returns 0 when *o is NULL or the text passes both; -1 when the text is not
 * UTF-8 (RFC 3629) somewhere - nothing is warned, *o is freed and set to
 * NULL, the caller reports it as it reports invalid UTF-8 - whatever else
 * is wrong with it; else what kt_imp_json_strict returns, having warned.
 */
int kt_imp_json_strict_utf8(kt_imp *imp, const kt_file *f, uint64_t line,
			    const char *s, size_t n, cJSON **o);

/*
 * For importers whose cJSON parse of s[0..n) (line `line` of f, 0 when the
 * text is the whole file) failed: when what RFC 8259 first refuses in it
 * is a byte order mark (one anywhere but at the start of the file: files
 * joined with cat, a line pasted from an editor), warn as
 * kt_imp_json_strict does, "file:line: invalid JSON (RFC 8259): byte
 * order mark at byte N: line skipped" ("file skipped" for line 0), and
 * return 1, so that every importer reports it in the same words (cJSON
 * itself skips a mark opening any text it parses, so for a JSONL line
 * that begins with one kt_imp_json_strict says the same).  Else warn
 * nothing and return 0: the caller reports the failure its own way.
 */
int kt_imp_json_bom(kt_imp *imp, const kt_file *f, uint64_t line,
		    const char *s, size_t n);

/*
 * For importers whose cJSON parse of s[0..n) (line `line` of f, 0 when the
 * text is the whole file; s must point into f's data) failed: when f ends
 * inside that text's value (kt_json_truncated, and only white space after
 * s[0..n) in f: a log cut while being written, a download cut short), warn
 * "file:line: truncated: the file ends inside a JSON value: line skipped"
 * ("file: ...: file skipped" for line 0) and return 1, so that every
 * importer reports it in the same words.  Else warn nothing and return 0.
 * (Under --strict the driver leaves the ": line skipped" out: nothing of
 * the file is kept, kt_imp_warn.)
 */
int kt_imp_json_cut(kt_imp *imp, const kt_file *f, uint64_t line,
		    const char *s, size_t n);

/*
 * For importers whose cJSON parse of s[0..n) (as for kt_imp_json_cut)
 * failed: warn why in the words every importer shares, and return 1 -
 * truncated (kt_imp_json_cut), else what kt_json_check first refuses
 * (as kt_imp_json_strict: "file:line: invalid JSON (RFC 8259): WHY at byte
 * N: line skipped", a byte order mark included, "file skipped" at the
 * line of N for line 0).
 */
int kt_imp_json_bad(kt_imp *imp, const kt_file *f, uint64_t line,
		    const char *s, size_t n);

#endif /* KT_IMPX_H */
