/*
 * jsonstrict.h - strict JSON text check (RFC 8259) for everything the
 * importers and `ktraj append` read.  Internal to import/ (and cli/append).
 *
 * cJSON (the parser every importer uses) accepts more than RFC 8259
 * (https://www.rfc-editor.org/rfc/rfc8259) allows: bytes after the value,
 * raw control characters in strings and any byte <= 0x20 as white space,
 * numbers like 00, -01, 1., 1.e5 and -.5, and a UTF-8 byte order mark at
 * the start of every text it parses.  Importers parse with cJSON and then
 * check the same bytes here; a text this check refuses is reported like any
 * malformed line and skipped.  This file only checks and says where and
 * why (a pure function of the bytes, for `ktraj append` as for imports);
 * the importers' warnings in shared words are impx.h's kt_imp_json_*.
 *
 * What is checked (RFC 8259 section in brackets):
 *   - JSON-text = ws value ws, nothing after the value [2];
 *   - white space is space, tab, LF and CR only [2];
 *   - literals true, false, null in lower case [3];
 *   - objects and arrays with their separators, keys are strings [4] [5];
 *   - number = [ minus ] int [ frac ] [ exp ], int = 0 / digit1-9 *DIGIT,
 *     frac = "." 1*DIGIT, exp = ("e"/"E") ["-"/"+"] 1*DIGIT [6];
 *   - strings: no unescaped code point below U+0020, escapes only
 *     \" \\ \/ \b \f \n \r \t \uXXXX [7];
 *   - a byte order mark (EF BB BF) is refused, except at the start of a file
 *     when the caller passes KT_JSON_BOM: section 8.1 lets a parser ignore it.
 * With KT_JSON_NONUL also refused (valid JSON, but not keepable): a \u0000
 * escape in a string, which cJSON would decode as the string's end, so the
 * rest of the string would be lost without a word (KT_JSON_NUL_WHY).
 * Limits [9] (the same as cJSON's, so that a text accepted here is one
 * cJSON parses whole): containers nest at most KT_JSON_MAX_DEPTH deep, a
 * number is at most KT_JSON_MAX_NUMBER bytes, and a \u escape of a UTF-16
 * surrogate must be a high one followed by a low one (section 8.2 leaves
 * lone surrogates to the implementation; cJSON refuses them).
 * With KT_JSON_UTF8 also refused: a string that is not UTF-8 (section 8.1;
 * RFC 3629 as kt_utf8_valid), so a caller needs no pass of its own over the
 * text (a byte of 0x80 or more outside a string is refused by the grammar).
 * Not checked: the text's encoding without KT_JSON_UTF8 - importers handle
 * invalid UTF-8 themselves (import/README.md) - and duplicate object keys
 * (section 4 says SHOULD be unique; ktraj JSONL refuses them itself).
 */
#ifndef KT_JSONSTRICT_H
#define KT_JSONSTRICT_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include "../base/kt_base.h" /* KT_EPARSE, kt_utf8_valid */
#include "../base/kt_json_scan.h" /* KT_JSON_MAX_NUMBER */

#define KT_UTF8_BOM "\xef\xbb\xbf" /* U+FEFF in UTF-8 */
#define KT_JSON_BOM 0x1u          /* ignore a byte order mark before the text */
#define KT_JSON_NONUL 0x2u        /* refuse a \u0000 escape in a string */
#define KT_JSON_UTF8 0x4u         /* refuse a string that is not UTF-8 */
/* why, with KT_JSON_UTF8, for the first byte of a string that is not UTF-8 */
#define KT_JSON_UTF8_WHY "invalid UTF-8 in a string"
/* why, for a byte order mark where a token or the end was expected */
#define KT_JSON_BOM_WHY "byte order mark"
/* why, with KT_JSON_NONUL, for a \u0000 escape: RFC 8259 allows it, but
 * cJSON decodes strings into C strings and so cuts the string there */
#define KT_JSON_NUL_WHY \
	"\\u0000 in a string: ktraj keeps strings as C strings and would cut it"
#define KT_JSON_MAX_DEPTH CJSON_NESTING_LIMIT /* nested arrays/objects */

/*
 * The JSON string body of src[0..n) as cJSON prints it (cJSON.c
 * print_string_ptr, without the quotes): '"' '\\' and \b \f \n \r \t
 * escaped, every other byte below 0x20 as \u00xx (lowercase hex), all other
 * bytes as they are (so UTF-8 passes through).  dst must have room for
 * 6 * n bytes; returns the bytes written.  The one escaper of kt_jbuf_str
 * and the jsonl export's blob lines.
 */
size_t kt_json_escape(char *dst, const char *src, size_t n);

/*
 * A copy of s[0..n) (NUL-terminated, same length) in which every \u escape
 * of a UTF-16 surrogate that is not one half of a pair is \ufffd, or NULL
 * when there is none (or no memory).  RFC 8259 section 8.2 leaves such
 * strings to the implementation and cJSON refuses them; JavaScript's
 * JSON.stringify writes them when a string was cut inside a surrogate
 * pair (an emoji truncated by a Node agent).  *first (may be NULL): the
 * offset of the first one replaced.  The caller frees the copy.
 */
char *kt_json_fix_surrogates(const char *s, size_t n, size_t *first);

/* kt_utf8_valid (RFC 8259 section 8.1 requires UTF-8 of JSON exchanged
 * between systems) is in ../base/kt_base.h, included here. */

/*
 * Check that s[0..n) (need not be NUL-terminated) is exactly one JSON text
 * as RFC 8259 defines it, within the limits above.  flags: KT_JSON_BOM,
 * KT_JSON_NONUL, KT_JSON_UTF8 (or'ed) or 0.
 * Returns 0 when it is; KT_EPARSE when not, with *off (may be NULL) the
 * byte offset of the first problem and *why (may be NULL) a static phrase
 * saying what it is ("raw control character in a string", ...).
 * Cost: one pass; string bodies are skipped 16 bytes at a time.
 */
int kt_json_check(const char *s, size_t n, unsigned flags, size_t *off,
		  const char **why);

/*
 * cJSON_ParseWithLength(s, n) that also passes kt_json_check(s, n, flags):
 * the tree (caller frees with cJSON_Delete), or NULL when either refuses
 * the text or on ENOMEM.  For callers that do not report why; *rc (rc may
 * be NULL) tells the two NULLs apart: KT_EPARSE or KT_ENOMEM (0 with a
 * tree), as kt_cjson_parse.
 */
cJSON *kt_json_parse(const char *s, size_t n, unsigned flags, int *rc);

/*
 * Whether s[0..n) is a JSON text cut inside its value: kt_json_check
 * (flags as there) refuses it only for running out - an unclosed string,
 * container or literal, a key without its value, a number ending in '-',
 * '.' or 'e', an escape cut short - so some bytes added at the end would
 * make it JSON.  0 for empty or white-space-only text, for a text valid
 * as it is (a number cut between digits cannot be told) and for any other
 * problem before the end.
 */
int kt_json_truncated(const char *s, size_t n, unsigned flags);

#endif /* KT_JSONSTRICT_H */
