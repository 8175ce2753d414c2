/*
 * export.h - the store's runs written out in other formats: the exporter
 * table `ktraj export` dispatches through, the event-to-JSON mapping every
 * JSON output shares, and the unified diff `ktraj diff` prints.
 *
 * Every exporter has one signature (kt_exporter.write) and is one entry of
 * kt_exporters[] (export/export.c), as git's archive.c keeps its archivers:
 * adding a target is one file export/<name>.c that defines a kt_exporter,
 * one extern line and one table entry (README "Adding an export target").
 * Exporters write to the stream or path they are given and return 0 or a
 * KT_E* code with a one-line reason in err; they never print nor exit.
 *
 * Module order (Makefile LIB_DIRS): base <- store <- import <- analyze and
 * replay <- export <- cli: export/ uses analyze/ (the NDJSON questions
 * table, the HTML report) and replay/ (the bundle writer, export.c), and
 * includes nothing of cli/.
 */
#ifndef KT_EXPORT_H
#define KT_EXPORT_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cjson/cJSON.h>
#include "../store/store.h"

/* ---- exporters ------------------------------------------------------------ */

/* What an exporter writes to (kt_exporter.flags): exactly one of STREAM,
 * DIR, STEP, plus ALL where it can write every run at once and VERIFY
 * where --verify means something to it.  cli/cmd_export.c checks the
 * options against these flags and names the formats in its messages from
 * the table. */
#define KT_EXPORT_STREAM 0x1u /* one run to args->out (stdout or -o FILE) */
#define KT_EXPORT_DIR    0x2u /* a tree of files under args->path */
#define KT_EXPORT_STEP   0x4u /* one step (args->step) to the file
				 args->path; not chosen by --format */
#define KT_EXPORT_ALL    0x8u /* args->run may be NULL: every run */
#define KT_EXPORT_VERIFY 0x10u /* honours args->verify; `export --verify`
				  is refused with the others, which check
				  every blob they read anyway */

typedef struct kt_export_args {
	const char *run;  /* 32 lowercase hex run id; NULL = every run, for
			     KT_EXPORT_ALL exporters only */
	uint64_t step;    /* KT_EXPORT_STEP: the step (>= 1); else 0 */
	int redact;       /* 1: e-mails, user and host names and secrets
			     replaced by stable placeholders (import.h
			     kt_redactor); a STEP exporter ignores it */
	int verify;       /* KT_EXPORT_VERIFY (jsonl): 1 checks each blob's content against its
			     hash as it is read (KT_ECORRUPT when one does
			     not match); 0 leaves that to the reader of the
			     blob lines (FORMAT.md §6.5).  The other formats
			     always check the blobs they read */
	FILE *out;        /* KT_EXPORT_STREAM: the open stream (not closed) */
	const char *path; /* KT_EXPORT_DIR: the directory (created);
			     KT_EXPORT_STEP: the file (replaced) */
	/* KT_EXPORT_DIR tables (export/ndjson.c): */
	int compress;       /* KT_EXPORT_ZSTD (0), _GZIP or _NONE */
	uint64_t part_size; /* uncompressed bytes per file; 0 =
			       KT_EXPORT_PART_SIZE.  A folder keeps the size
			       of its first export */
	int since_last;     /* 1: add to the export in path what its
			       _manifest.json does not hold yet; without it a
			       folder that holds an export is refused */
	int hidden;       /* run NULL: 1 also exports hidden runs
			     (kt_run_hide), 0 leaves them out */
	uint64_t *rows;   /* KT_EXPORT_DIR, when not NULL: the rows this
			     export wrote.  0: nothing matched (nothing new
			     since the last export), so no file was written
			     and _manifest.json was left as it was: a
			     nightly --since-last adds no empty entries */
} kt_export_args;

#define KT_EXPORT_ZSTD 0
#define KT_EXPORT_GZIP 1
#define KT_EXPORT_NONE 2
#define KT_EXPORT_PART_SIZE ((uint64_t)128 << 20)

typedef struct kt_exporter {
	const char *name; /* "jsonl", "atif", "ndjson", "bundle" */
	unsigned flags;   /* KT_EXPORT_* */
	/* Write what args names.  Returns 0, or a KT_E* code with a one-line
	 * reason in err (errlen > 0; "" when the code says it all):
	 * KT_ENOTFOUND (no such run or step), KT_EINVAL (a step that cannot be
	 * exported this way), KT_ENOMEM, KT_EIO (writing failed: a partial
	 * output may be left for the caller to remove), or the store's codes
	 * when reading fails (KT_ECORRUPT ...).  Tables (ndjson) also:
	 * KT_EEXIST (the folder holds an export and since_last is 0, or
	 * tables of the old run=<id> layout), KT_EPARSE (a _manifest.json
	 * that is not ktraj's), KT_EVERSION (a manifest of another schema),
	 * KT_EINVAL (since_last with another compression than the folder's). */
	int (*write)(kt_store *s, const kt_export_args *args, char *err,
		     size_t errlen);
} kt_exporter;

/* NULL-terminated table of every exporter (export/export.c), in the order
 * `ktraj export` lists them after an unknown --format (its --help text
 * names them by hand, cli/cmd_export.c). */
extern const kt_exporter *const kt_exporters[];
/* The exporter called `name`, or NULL. */
const kt_exporter *kt_exporter_find(const char *name);

/* ---- events as JSON (export/event.c) ----------------------------------------
 * One place that turns a stored event into JSON for `show --json`, `log
 * --json`, the JSONL, ATIF and NDJSON exports, so the field names are the
 * same everywhere (FORMAT.md "JSONL"). */

/* The whole event as the JSONL interchange object: run, seq, parent, ts (ns
 * or null), kind, actor, prov, payload, hash, chain.  Returns a new tree the
 * caller frees, or NULL on allocation failure or an unparsable payload. */
cJSON *kt_export_event(const char *run, const kt_event *ev);

/* Add the event header fields to o, in this order: seq, parent (null for
 * none), ts (ns or null), kind, actor. */
void kt_export_event_head(cJSON *o, const kt_event *ev);

/* Add key = ns since the epoch as an exact JSON integer (61 bits: a double
 * would round it), or null for KT_TS_UNKNOWN. */
void kt_export_add_ns(cJSON *o, const char *key, int64_t ns);

/* ISO-8601 UTC with nanoseconds ("2026-05-14T14:01:12.886000000Z") into
 * buf (>= 32 bytes); "" when ts is KT_TS_UNKNOWN. */
void kt_export_ts_iso(int64_t ts_ns, char *buf, size_t len);

/* How kt_export_add_bytes stores bytes that are not text
 * (kt_is_text). */
#define KT_EXPORT_BYTES_TEXT 0           /* omitted */
#define KT_EXPORT_BYTES_TEXT_OR_BASE64 1 /* "<key>_base64" instead */
#define KT_EXPORT_BYTES_BASE64 2         /* always "<key>_base64", text too */

/* Add data (len bytes, no NUL needed) to o as the string `key` when it is
 * text, else as `how` says (base64 per RFC 4648).  Returns 1 when added as
 * text, 0 when not (omitted or base64), -1 on allocation failure. */
int kt_export_add_bytes(cJSON *o, const char *key, const void *data,
			size_t len, int how);

/* ---- events for people (export/summary.c) ----------------------------------- */

/* "2026-05-14 14:01:12" (UTC) or "-" when unknown; buf >= 24 bytes. */
void kt_export_ts_short(int64_t ts_ns, char *buf, size_t len);

/*
 * What a person wants to see of event ev (its parsed payload p, may be
 * NULL) on one line, into buf (n bytes, cut to fit): a message's text, a
 * tool call's tool and command (else its path, pattern or arguments), a
 * tool result's "ok:"/"error:" and output, an edit's op and path, a
 * compile's exit code and command, a bench result's time, speedup and
 * correctness.  `log` prints it; `report` shows it in its timeline.
 */
void kt_export_event_summary(const kt_event *ev, const cJSON *p, char *buf,
			     size_t n);

/* ---- unified diff (export/udiff.c) --------------------------------------------
 * Line-based unified diff (the format of GNU diff -u and git), computed with
 * Myers' O(ND) algorithm in linear space (E. W. Myers, "An O(ND) Difference
 * Algorithm and Its Variations", Algorithmica 1(2), 1986, section 4b; the
 * bisection follows diff-match-patch's diff_bisect,
 * https://github.com/google/diff-match-patch).
 *
 * Write the unified diff of a -> b to out: "--- label_a" / "+++ label_b"
 * headers, then hunks with `context` lines of context (3 in diff -u).  A
 * last line without a newline is marked "\ No newline at end of file".
 * Buffers are borrowed; they need no NUL terminator.  A NULL buffer with
 * length 0 is an empty file.
 * Returns the number of hunks written (0: identical, nothing written), or
 * -1 when memory runs out (out may hold a partial diff).
 */
int kt_export_udiff(const char *a, size_t alen, const char *b, size_t blen,
		    const char *label_a, const char *label_b, int context,
		    FILE *out);
#endif
