/*
 * outfmt.h - small text helpers shared by the read commands (log, search,
 * show, ls): one-line summaries and short timestamps for terminal output.
 */
#ifndef KT_OUTFMT_H
#define KT_OUTFMT_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cjson/cJSON.h>

/* s folded to one line (runs of whitespace -> one space, leading space
 * dropped) and cut to at most max bytes on a UTF-8 boundary, with "..."
 * when cut.  out must hold max + 4 bytes. */
void cli_oneline(const char *s, size_t max, char *out);

/* "2026-05-14 14:01:12" (UTC) or "-" when unknown; buf >= 24 bytes. */
void cli_ts_short(int64_t ts_ns, char *buf, size_t len);

/* Print o as one NDJSON line on stdout and free it (NULL: nothing is
 * printed).  Returns 0, KT_ENOMEM (o NULL or printing failed) or KT_EIO. */
int cli_put_json(cJSON *o);

/*
 * Write n bytes of trajectory text to f with every terminal control
 * character made visible, so that text from a trajectory cannot retitle,
 * clear or reprogram the terminal it is shown on: C0 controls but tab and
 * newline, and DEL, as caret notation (ESC "^[", BEL "^G", CR "^M", DEL
 * "^?"); C1 controls (U+0080..U+009F, which 8-bit terminals obey as ESC
 * sequences) as "M-^[" and so on, as cat -v writes them; bytes that are not
 * UTF-8 as "\xNN".  Everything else is written as it is.  Returns 0, or
 * -1 when f reports a write error.
 */
int cli_put_safe(FILE *f, const char *s, size_t n);

/* String member of o, or NULL. */
const char *cli_jstr(const cJSON *o, const char *key);
/* Valid UTF-8 (RFC 3629: no overlong forms, surrogates or code points past
 * U+10FFFF) without NUL: bytes that can travel as a JSON string. */
int cli_is_text(const void *data, size_t n);

/* How cli_json_add_bytes stores bytes that are not text (cli_is_text). */
#define CLI_BYTES_TEXT 0        /* omitted */
#define CLI_BYTES_TEXT_OR_BASE64 1 /* "<key>_base64" instead */
#define CLI_BYTES_BASE64 2      /* always "<key>_base64", text too */

/* Add data to o as the string `key` when it is text, else as `how` says
 * (base64 per RFC 4648).  Returns 1 when added as text, 0 when not
 * (omitted or base64), -1 on allocation failure. */
int cli_json_add_bytes(cJSON *o, const char *key, const void *data,
		       size_t len, int how);
#endif
