/*
 * parse_ahead.h - JSONL lines parsed on a second thread ahead of the
 * importer (issue 21, "parse and compress on two threads").
 *
 * An importer that walks the lines of a loaded file in order and parses
 * each into a cJSON object spends ~15-20 % of its thread in cJSON
 * (tests/bench/RESULTS.md "Issue 21: the import rows").  A parse-ahead
 * thread walks the same lines and parses the ones that pass a strict fast
 * path; the importer takes each line's tree in order, and parses the
 * lines the fast path refused itself, with its own warnings, so every
 * warning, its line and its order stay what a one-thread import says.
 * The thread touches nothing but the file's bytes and the trees it hands
 * over: no store, session, importer state or warning.
 */
#ifndef KT_PARSE_AHEAD_H
#define KT_PARSE_AHEAD_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

/* Lines parsed ahead at most, and source bytes of them: the trees
 * waiting for the importer (a tree takes a few times its line's bytes)
 * stay a few MiB whatever the file's size. */
#define KT_PA_LINES 256
#define KT_PA_BYTES (8u << 20)
/* Longer lines are left to the importer: a tree of one of them parsed
 * ahead would double what one line costs in memory at its worst. */
#define KT_PA_MAX_LINE (1u << 20)

typedef struct kt_parse_ahead kt_parse_ahead;

/*
 * Start a thread that parses the lines of data[0..len) (a file's loaded
 * bytes, which must outlive the handle and not change) ahead of the
 * caller, named "ktraj-parse".  Lines are split as the importers split
 * them: at '\n', one '\r' before it dropped, a last line without '\n'
 * included.  A line is parsed ahead only when it is 1..KT_PA_MAX_LINE
 * bytes, kt_cjson_parse gives a value, kt_json_check (jsonstrict.h)
 * passes it with KT_JSON_NONUL | KT_JSON_UTF8, and KT_JSON_BOM for the
 * line at data[0] (what kt_imp_json_strict_utf8 accepts without a word),
 * and the value is an object; every other line (blank, too long, not
 * UTF-8, not JSON, not an object, out of memory in the parse) is handed
 * over unparsed.
 * Returns 0 with *out set; KT_ENOMEM or KT_EIO (no thread could be made)
 * with *out NULL: the caller parses every line itself.  The caller decides
 * whether a second thread is worth it (kt_threads_for).
 */
int kt_pa_start(const char *data, size_t len, kt_parse_ahead **out);

/*
 * The next line's tree, for the line at byte off of data, n bytes long
 * (the caller's own split, in file order; lines before off not taken yet
 * are dropped).  Returns the object, owned by the caller (cJSON_Delete),
 * or NULL when the line was not parsed ahead: the caller parses it itself.
 * Waits while the thread has not reached the line.  a NULL: NULL.
 */
cJSON *kt_pa_take(kt_parse_ahead *a, uint64_t off, size_t n);

/*
 * Stop the thread wherever it is (the importer is done, stopped at an
 * error, or gave up), join it and free every tree not taken.  Never
 * blocks for longer than the parse of one line.  a may be NULL.
 */
void kt_pa_stop(kt_parse_ahead *a);

#endif /* KT_PARSE_AHEAD_H */
