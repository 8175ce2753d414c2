/*
 * imp_agents.h - helpers shared by the agent-log importers of Codex,
 * ATIF, SWE-agent and OpenHands (import/imp_{codex,atif,swe,openhands}.c):
 * JSON access, timestamps, lenient decoding of JSON-in-strings and Python
 * literals, event emission, and the effects of common tool calls (editor
 * tools become workspace edits, shell tools go to kt_shell_classify).
 *
 * Not a public header.  Nothing here prints or exits.
 */
#ifndef KT_IMP_AGENTS_H
#define KT_IMP_AGENTS_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include "import.h"

/* String value of o[key] (NULL when absent or not a string). */
const char *kt_ag_str(const cJSON *o, const char *key);
/* First of several keys that holds a string. */
const char *kt_ag_str2(const cJSON *o, const char *k1, const char *k2);

/*
 * ISO-8601 timestamp to ns since the epoch: "2025-01-20T20:29:13.519638",
 * with 'T' or ' ', optional fraction (up to ns), optional 'Z' or +hh:mm /
 * -hhmm offset.  A naive timestamp (no zone, as OpenHands and FlashInfer
 * write) is taken as UTC.  Returns KT_TS_UNKNOWN when s is not one.
 */
int64_t kt_ag_ts(const char *s);
/* Same for a JSON value: ISO string, or a number of seconds (ms when it is
 * larger than 1e11, as JavaScript writes). */
int64_t kt_ag_ts_json(const cJSON *v);

/*
 * Python literal (repr of dict/list/str/int/float/True/False/None, as
 * SWE-agent writes some fields) to cJSON.  Returns NULL when s is not a
 * literal.  Caller frees with cJSON_Delete.  Depth limited to 64.
 */
cJSON *kt_ag_pyrepr(const char *s, size_t len);
/* JSON text, else Python literal; NULL when neither (caller frees). */
cJSON *kt_ag_parse_lenient(const char *s);
/*
 * Arguments given as a value or a string holding JSON: a detached copy of
 * an object (caller frees).  A string that does not decode becomes
 * {"_raw": s}, a non-object value {"_value": v}, NULL {}.
 */
cJSON *kt_ag_args(const cJSON *v);

/*
 * Keep what a typed payload has no field for: members of the source object
 * o whose names are not in `known` (NULL-terminated) are copied into
 * payload's "extra" object (created when needed).  Returns 0 or KT_ENOMEM.
 */
int kt_ag_keep_extra(cJSON *payload, const cJSON *o, const char *const *known);

/* Emit an event (payload consumed).  line/off/len: provenance. */
int kt_ag_emit(kt_imp *imp, const kt_file *f, int kind, uint64_t parent,
	       int64_t ts, const char *actor, cJSON *payload, uint64_t line,
	       uint64_t off, uint64_t len, uint64_t *seq);

/* A message payload {role, human, text}; flags (may be NULL) is a
 * comma-separated list added as "flags":[...]. */
cJSON *kt_ag_msg(const char *role, int human, const char *text,
		 const char *flags);

/* Text of a message content that is a string, or a list of parts with
 * "text" (joined with "\n"): malloc'ed, NULL when there is none. */
char *kt_ag_content_text(const cJSON *content);

/*
 * Exit code written in a command's output text: Codex exec_command
 * ("Process exited with code N"), Codex shell ("Exit code: N" or JSON
 * {"metadata":{"exit_code":N}}), mini-swe-agent ("<returncode>N"), Claude
 * Code ("Exit code N").  -1 when none is found.
 */
int kt_ag_exit_code(const char *out);

/*
 * What a tool call does to the workspace and whether it builds or
 * benchmarks, for tool names common to these formats:
 *   editor  - Write/write_file/create (path, content|file_text),
 *             Edit (old_string/new_string, replace_all), MultiEdit,
 *             str_replace_editor/file_editor/edit_file (command create,
 *             str_replace, insert), SWE-agent's `create`.
 *   shell   - Bash/bash/shell/execute_bash/exec_command/run/bash_command
 *             and friends: kt_shell_classify(cmd, cwd, output, exit).
 * Called after the tool_result (res = its seq, 0 when there is none).
 * Edits happen only when ok.  Returns 1 when the tool was recognized, 0
 * when not, or a negative KT_E* code.
 */
int kt_ag_tool_effects(kt_imp *imp, const char *tool, const cJSON *args,
		       const char *cwd, uint64_t call, uint64_t res,
		       const char *output, int exit_code, int ok, int64_t ts);

/* The shell command of a tool call's args ("command" string or argv
 * list, "cmd", "keystrokes"); malloc'ed or NULL. */
char *kt_ag_shell_cmd(const cJSON *args);

/*
 * An editor that replaces lines: lines s..e of workspace file path
 * (1-based, inclusive; e = s - 1 inserts before line s; e = -1 means to the
 * end) become text, through kt_ws_write (an edit event when the content
 * changes; `call`, `tool` as there).  A text without a final newline gets
 * one when lines follow it, and also at the end of the file with
 * KT_AG_LINES_NL_END (SWE-agent's edit/insert write whole lines).  With
 * KT_AG_LINES_IN_FILE a range that starts past the last line + 1 is not
 * applied.  Returns 0, KT_ENOMEM, or KT_ENOTFOUND (nothing emitted) when
 * the file's content is unknown, the range is invalid or not applied:
 * the caller decides what that means (OpenHands: content unknown;
 * SWE-agent: no change).
 */
#define KT_AG_LINES_NL_END  1u
#define KT_AG_LINES_IN_FILE 2u
int kt_ag_replace_lines(kt_imp *imp, const char *path, long s, long e,
			const char *text, unsigned flags, uint64_t call,
			const char *tool);

/* Truncate output for a tool_result payload: adds "output" (at most 64 KiB
 * inline) and "output_blob" (hash of the full text) when longer. */
int kt_ag_set_output(kt_imp *imp, cJSON *payload, const char *out);

/*
 * The whole file shown by an editor "view" (OpenHands, SWE-agent 1.x and
 * Anthropic's str_replace_editor: "Here's the result of running `cat -n`
 * on P:" then "     1\tline" rows numbered from 1), malloc'ed; NULL when
 * the output is not such a listing or says it was clipped.
 */
char *kt_ag_cat_n(const char *out);

/* Basename of a '/'-separated path (pointer into p): kt_basename. */
const char *kt_ag_base(const char *p);


/*
 * Cheap content sniffing for detect(): whether the first n bytes of buf hold
 * "key" followed by optional spaces, ':' and (when val is not NULL) the
 * JSON string "val".  n is clamped to the buffer.
 */
int kt_ag_sniff(const unsigned char *buf, size_t n, const char *key,
		const char *val);

/*
 * Where the elements of a JSON array lie in the raw text, for provenance
 * (line, byte offset and length of each step/event record): the array is
 * the value of top-level key `key` of the object in buf, or buf itself when
 * key is NULL.  Returns the number of elements and sets *out (malloc'ed,
 * caller frees), or -1 when the text does not have that shape.
 */
typedef struct kt_ag_span {
	size_t off, len;
	uint64_t line; /* 1-based */
} kt_ag_span;
long kt_ag_spans(const char *buf, size_t len, const char *key,
		 kt_ag_span **out);
/* The span i of n, or a zero span when i is out of range. */
kt_ag_span kt_ag_span_at(const kt_ag_span *s, long n, long i);

#endif /* KT_IMP_AGENTS_H */
