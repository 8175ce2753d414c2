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

#endif
