/*
 * impx.h - the importer helpers ("import extras"): the one library every
 * importer (import/imp_<format>.c) uses beside the session calls of
 * import.h.  impx.c: JSON and JSONL reading with the warnings every format
 * shares, typed getters, ISO-8601 times, Python literals, text cut to a
 * blob, event emission; impx_tools.c: what agent logs share - tool-call
 * arguments and effects (editor tools become workspace edits, shell tools
 * go to kt_shell_classify), messages, exit codes in output, editor
 * listings, provenance spans of JSON arrays.  Internal to import/.
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


/*
 * Member `key` as a number.  Numbers and numeric strings ("9.35", as
 * KernelBench's stringified result files write them) both count.  Returns 1
 * and sets *out when it is one, else 0.
 */
int kt_impx_num(const cJSON *o, const char *key, double *out);
/* Token usage {input, output, cache_read, cache_creation} (kt_imp_add_count)
 * from the counts of object u under the source's own names, in that order
 * (keys[0..3]; a NULL name or a missing or unreadable count is left out).
 * NULL when u is not an object or memory runs out; caller frees. */
cJSON *kt_impx_usage(const cJSON *u, const char *const keys[4]);
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
 * Parse the whole of f as one JSON document.  On failure warns
 * "invalid JSON" at the line where parsing stopped and returns NULL; a
 * document cJSON takes but RFC 8259 does not (bytes after it, raw control
 * characters, numbers like 01: jsonstrict.h) is warned and refused too.
 * When memory runs out it warns nothing and returns NULL after
 * kt_imp_fail(KT_ENOMEM): nothing of the source is kept.
 * Caller frees the result with cJSON_Delete.
 */
cJSON *kt_impx_parse(kt_imp *imp, const kt_file *f);

/*
 * The run name and meta of a one-document trajectory whose format names
 * no session (OpenHands exports, SWE-agent .traj): *name the file's base
 * name less its last extension (a name that is only ".x" keeps it), *meta
 * a new object {"source": f->rel, else the base name of f->path}.  0, or
 * KT_ENOMEM with *name and *meta NULL.  Caller frees *name and
 * cJSON_Deletes *meta (or hands it to kt_imp_run_begin).
 */
int kt_impx_file_run(const kt_file *f, char **name, cJSON **meta);

/*
 * Call fn for every non-blank line of f that parses as JSON (the record is
 * owned by the helper and freed after fn returns).  Lines that do not parse,
 * or that RFC 8259 refuses (jsonstrict.h), are warned as file:line and
 * skipped.  fn returning non-zero stops the
 * walk with that value; running out of memory parsing a line stops it
 * with KT_ENOMEM.  The last line may lack its newline.
 */
int kt_impx_jsonl(kt_imp *imp, const kt_file *f,
		  int (*fn)(cJSON *rec, uint64_t line, uint64_t off,
			    uint64_t len, void *arg), void *arg);

/*
 * A Python literal as repr() writes it, or as typed in source (SWE-agent
 * and OpenHands fields, KernelBench result strings like "{'mean': 9.35}"),
 * read from s[0..len) into cJSON: dicts, lists and tuples (arrays),
 * strings (' " and triple quotes, r/b/u prefixes, the escapes of the
 * Python reference's "String and Bytes literals": \n \t \xhh \uhhhh
 * \Uhhhhhhhh \ooo; \N{name} and an unknown escape keep their backslash,
 * bytes are read as str), numbers (with
 * _ separators), True/False/None; inf, nan and numbers beyond a double
 * become null, as JSON has no such number.  A NUL becomes U+FFFD.  Dict
 * keys become member names as json.dumps writes them (1.5, "true",
 * "null"); a tuple key refuses the literal.  NULL when the text is not
 * one such literal with nothing but whitespace after it, is nested more
 * than 64 deep, or memory runs out.  Caller frees with cJSON_Delete.
 * (impx_tools.c)
 */
cJSON *kt_impx_pylit(const char *s, size_t len);
/* JSON text, else Python literal; NULL when neither (caller frees).  *rc
 * (may be NULL) gets 0 with a value, KT_ENOMEM when the JSON parse ran
 * out of memory (kt_cjson_parse: the text is not then read as a Python
 * literal, nor taken for one that is not JSON), else KT_EPARSE. */
cJSON *kt_impx_parse_lenient(const char *s, int *rc);

/* Pointer to the last '/'-separated component of p. */
const char *kt_impx_base(const char *p);

/* For detect(): 1 when needle occurs in the first n bytes of f. */
int kt_impx_has(const kt_file *f, size_t n, const char *needle);
/*
 * The opening that the detect() of a one-document JSON format shares
 * (ATIF, Codex, OpenHands, SWE-agent): *n gets the window of f it sniffs
 * (its first `window` bytes, all of a shorter f); returns the first byte
 * there that is not white space (isspace: a file may open with blank
 * lines), 0 when there is none, so that detect() can ask for '{' (or
 * '[') before it sniffs members (kt_impx_sniff).
 */
int kt_impx_detect_open(const kt_file *f, size_t window, size_t *n);

/* ---- agent logs: tool calls, messages, spans (impx_tools.c) ---------- */
/* First of several keys that holds a string. */
const char *kt_impx_str2(const cJSON *o, const char *k1, const char *k2);

/* kt_impx_ts for a JSON value: ISO string, or a number of seconds (ms when it is
 * larger than 1e11, as JavaScript writes). */
int64_t kt_impx_ts_json(const cJSON *v);

/*
 * Arguments given as a value or a string holding JSON: a detached copy of
 * an object (caller frees).  A string that does not decode becomes
 * {"_raw": s}, a non-object value {"_value": v}, NULL {}.  NULL when
 * memory ran out, the string's parse included (never taken for "_raw").
 */
cJSON *kt_impx_args(const cJSON *v);

/*
 * Keep what a typed payload has no field for: members of the source object
 * o whose names are not in `known` (NULL-terminated) are copied into
 * payload's "extra" object (created when needed).  Returns 0 or KT_ENOMEM.
 */
int kt_impx_keep_extra(cJSON *payload, const cJSON *o, const char *const *known);
/*
 * The members of the source object o whose names are not in `known`
 * (NULL-terminated; NULL: none is known), copied in order into a new
 * object, for a payload's "extra" (ATIF steps, OpenHands events): NULL
 * when there are none, or when memory runs out.  Caller frees.
 */
cJSON *kt_impx_extra(const cJSON *o, const char *const *known);

/* kt_impx_emit (arguments in another order) that first makes every string
 * of the payload valid UTF-8 (U+FFFD), for formats whose text may not be:
 * KT_ENOMEM for a NULL payload.  payload consumed. */
int kt_impx_emit_valid(kt_imp *imp, const kt_file *f, int kind,
		       uint64_t parent, int64_t ts, const char *actor,
		       cJSON *payload, uint64_t line, uint64_t off, uint64_t len,
		       uint64_t *seq);

/* A message payload {role, human, text}; flags (may be NULL) is a
 * comma-separated list added as "flags":[...]. */
cJSON *kt_impx_msg(const char *role, int human, const char *text,
		 const char *flags);

/* Text of a message content that is a string, or a list of parts with
 * "text" (joined with "\n"): malloc'ed, NULL when there is none. */
char *kt_impx_content_text(const cJSON *content);

/*
 * Exit code written in a command's output text: Codex exec_command
 * ("Process exited with code N"), Codex shell ("Exit code: N" or JSON
 * {"metadata":{"exit_code":N}}), mini-swe-agent ("<returncode>N"), Claude
 * Code ("Exit code N").  -1 when none is found.  *rc (may be NULL) gets
 * 0, or KT_ENOMEM when parsing the JSON form ran out of memory (then -1
 * is returned: the code is not known, and the caller stops).
 */
int kt_impx_exit_code(const char *out, int *rc);

/*
 * What a tool call does to the workspace and whether it builds or
 * benchmarks, for tool names common to these formats:
 *   editor  - Write/write_file/create (path, content|file_text),
 *             Edit (old_string/new_string, replace_all), MultiEdit,
 *             str_replace_editor/file_editor/edit_file (command create,
 *             str_replace, insert), SWE-agent's `create`.
 *   shell   - Bash/bash/shell/execute_bash/exec_command/run/bash_command
 *             and friends: kt_shell_classify(cmd, cwd, output, exit); a
 *             relative workdir/cwd argument resolves against cwd; a
 *             command that holds an apply_patch patch applies it instead.
 *   Claude Code's Write/Edit/MultiEdit (kt_impx_cc_edit) and Read (its
 *             text as the file, kt_impx_cc_read; a results file's
 *             benchmarks, kt_imp_bench_file); Codex's apply_patch
 *             (codex_patch.h).
 * Arguments under OpenCode's names (filePath, ...: kt_impx_opencode_args)
 * and OpenHands's editor arguments in translated_ipython_code
 * (kt_impx_ipython_args) are read as the others.
 * Called after the tool_result (res = its seq, 0 when there is none).
 * Edits happen only when ok.  Returns 1 when the tool was recognized, 0
 * when not, or a negative KT_E* code.
 */
int kt_impx_tool_effects(kt_imp *imp, const char *tool, const cJSON *args,
		       const char *cwd, uint64_t call, uint64_t res,
		       const char *output, int exit_code, int ok, int64_t ts);

/*
 * SWE-agent's commands as its import applies them (imp_swe.c), for the
 * import of a file that carries its calls (an sts, otlp or atif export of
 * a SWE-agent run): kt_impx_tool_effects calls this first.  Only an
 * observation `out` that ends in SWE-agent's footer ("(Open file: F)",
 * "(Current directory: D)") is taken: the footer gives the open file the
 * edit commands change and the directory paths resolve against (cwd, may
 * be NULL, when it names none).  `create`, `edit` (S:E ... end_of_edit, or
 * {search, replace}) and `insert` change the open file when ok and its
 * content is known; a window that shows a whole file ("[File: P (N lines
 * total)]" with every line) seeds it, after an edit too; `bash` goes to
 * kt_shell_classify (res: the result's seq).  str_replace_editor is left
 * to the shared editor code.  Returns 1 when out is such an observation
 * (whatever the tool), 0 when not, or a negative KT_E* code.
 */
int kt_impx_swe_effects(kt_imp *imp, const char *tool, const cJSON *args,
			const char *cwd, uint64_t call, uint64_t res,
			const char *out, int exit_code, int ok);

/*
 * An OpenHands editor action that succeeded on workspace file `path`
 * (absolute: kt_ws_path against cwd), as its import applies it when the
 * observation gives no new_content, and as the import of an sts, otlp or
 * atif export of the run does (kt_impx_tool_effects, for an editor tool
 * without a command): args.command, or the one in translated_ipython_code
 * (kt_impx_ipython_args), through the shared editor code; the LLM
 * editor's {content, start, end}: start 1 and end -1 write the file, other
 * lines replace that range (content unknown when it cannot apply); an
 * observation `out` that is a unified diff creating the file ("@@ -0,0
 * +1,N @@") writes it; anything else leaves the file unknown
 * (kt_ws_invalidate).  call/res: the call's and result's seq.  Returns 0
 * or a negative KT_E* code.
 */
int kt_impx_oh_edit(kt_imp *imp, const char *tool, const cJSON *args,
		    const char *cwd, const char *path, uint64_t call,
		    uint64_t res, const char *out, int64_t ts);

/*
 * Claude Code's file tools as a Claude Code import applies them, shared by
 * that import and every other whose tool calls carry them (a viewer export
 * of a Claude Code session: STS, OTLP, ATIF).  After a successful result of
 * tool call `call` (seq) on workspace file `path` (absolute: kt_ws_path):
 *   Write     - args.content (else res.content) becomes the file;
 *   Edit      - args old_string -> new_string (res oldString/newString
 *               when args lack them), every occurrence with replace_all;
 *               on content the workspace does not know, or that does not
 *               hold old_string, still an edit: kt_ws_edit_unknown;
 *   MultiEdit - args.edits[] applied in order, one edit event for all;
 *               nothing when one of them does not apply.
 * res: the source's own record of the result (Claude Code's
 * toolUseResult), NULL when the source has none.  Tool names are matched
 * exactly ("Edit", not "edit": other agents' tools of that name take
 * other arguments).  Returns 1 when tool is one of the three (path NULL:
 * nothing done), 0 when not, or KT_ENOMEM / what kt_ws_write returns.
 */
int kt_impx_cc_edit(kt_imp *imp, const char *tool, const cJSON *args,
		    const cJSON *res, const char *path, uint64_t call);

/*
 * The result text `out` of a successful Claude Code Read of workspace file
 * `path` (args: the call's input) as the file's whole content, through
 * kt_ws_observe (payload as there, may be NULL), so that later Edits apply
 * to it.  Only a Read without offset or limit whose text is the file's own
 * bytes counts: a `cat -n` listing ("     1\t", "     1→", as Claude Code
 * writes it: the cut long lines and final newline no longer show), a text
 * with a <system-reminder> appended, or an empty text is not taken (the
 * file stays unknown).  Returns 0 or KT_ENOMEM.
 */
int kt_impx_cc_read(kt_imp *imp, const cJSON *args, const char *path,
		    const char *out, cJSON *payload);

/* The editor arguments inside OpenHands's translated_ipython_code
 * ("print(file_editor(**{'command': 'create', ...}))") as a new object
 * (kt_impx_pylit of the dict); NULL when code is NULL, holds no such
 * dict, or memory runs out.  Caller frees.  kt_impx_tool_effects reads
 * an editor tool's arguments from it when they name no command. */
cJSON *kt_impx_ipython_args(const char *code);

/* OpenCode's tool arguments (filePath, oldString, newString, replaceAll,
 * also inside edits[]) under the names the shared tool effects read
 * (file_path, old_string, ...): a new object, the rest copied as it is;
 * {} for a non-object; NULL when memory runs out.  Caller frees.
 * kt_impx_tool_effects applies it to args that have filePath and no
 * file_path. */
cJSON *kt_impx_opencode_args(const cJSON *in);

/* The shell command of a tool call's args ("command" string or argv
 * list, "cmd", "keystrokes"); malloc'ed or NULL. */
char *kt_impx_shell_cmd(const cJSON *args);

/*
 * An editor that replaces lines: lines s..e of workspace file path
 * (1-based, inclusive; e = s - 1 inserts before line s; e = -1 means to the
 * end) become text, through kt_ws_write (an edit event when the content
 * changes; `call`, `tool` as there).  A text without a final newline gets
 * one when lines follow it, and also at the end of the file with
 * KT_IMPX_LINES_NL_END (SWE-agent's edit/insert write whole lines).  With
 * KT_IMPX_LINES_IN_FILE a range that starts past the last line + 1 is not
 * applied.  Returns 0, KT_ENOMEM, or KT_ENOTFOUND (nothing emitted) when
 * the file's content is unknown, the range is invalid or not applied:
 * the caller decides what that means (OpenHands: content unknown;
 * SWE-agent: no change).
 */
#define KT_IMPX_LINES_NL_END  1u
#define KT_IMPX_LINES_IN_FILE 2u
int kt_impx_replace_lines(kt_imp *imp, const char *path, long s, long e,
			const char *text, unsigned flags, uint64_t call,
			const char *tool);

/* kt_impx_text of the NUL-terminated out (NULL: "") under "output" and
 * "output_blob", as a tool_result payload holds it. */
int kt_impx_set_output(kt_imp *imp, cJSON *payload, const char *out);

/*
 * The whole file shown by an editor "view" (OpenHands, SWE-agent 1.x and
 * Anthropic's str_replace_editor: "Here's the result of running `cat -n`
 * on P:" then "     1\tline" rows numbered from 1), malloc'ed; NULL when
 * the output is not such a listing or says it was clipped.
 */
char *kt_impx_cat_n(const char *out);


/*
 * Cheap content sniffing for detect(): whether the first n bytes of buf hold
 * "key" followed by optional spaces, ':' and (when val is not NULL) the
 * JSON string "val".  n is clamped to the buffer.
 */
int kt_impx_sniff(const unsigned char *buf, size_t n, const char *key,
		const char *val);

/*
 * Sniffs of one file by every detector, cheaper: between begin and end,
 * kt_impx_sniff on buf with n <= KT_SNIFF_WINDOW answers "no" for a key
 * that stands between two consecutive '"' nowhere in buf's first
 * min(len, KT_SNIFF_WINDOW) bytes without scanning (a filter of those
 * spans, built once in one pass); every other call scans as before, so no
 * answer changes.  pick() in driver.c sets it for its detectors: a
 * detector asks for ~55 keys, most absent, each a memmem of its window,
 * 8 % of an import of 10,000 small files (tests/bench/RESULTS.md, issue
 * 21, 2026-12-04).  One scope at a time per thread; buf must stay until
 * end.  end also clears a scope never begun.
 */
#define KT_SNIFF_WINDOW ((size_t)16384)
void kt_impx_sniff_begin(const unsigned char *buf, size_t len);
void kt_impx_sniff_end(void);
/* 1 when the scope's filter shows that '"', s[0..sl), '"' occurs nowhere in
 * buf[0..n); 0 when it may (or buf, n or s is outside what the filter can
 * tell: then scan).  kt_impx_sniff and kt_impx_has ask it first. */
int kt_impx_span_absent(const unsigned char *buf, size_t n, const char *s,
			size_t sl);

/*
 * Where the elements of a JSON array lie in the raw text, for provenance
 * (line, byte offset and length of each step/event record): the array is
 * the value of top-level key `key` of the object in buf, or buf itself when
 * key is NULL.  Returns the number of elements and sets *out (malloc'ed,
 * caller frees), or -1 when the text does not have that shape.
 */
typedef struct kt_impx_span {
	size_t off, len;
	uint64_t line; /* 1-based */
} kt_impx_span;
long kt_impx_spans(const char *buf, size_t len, const char *key,
		 kt_impx_span **out);
/* The span i of n, or a zero span when i is out of range. */
kt_impx_span kt_impx_span_at(const kt_impx_span *s, long n, long i);


/* ---- printing JSON ---- */
/* jsonprint.c: item as cJSON_PrintUnformatted prints it, into b (emptied
 * first: kt_buf_reset; b->len bytes, NUL-terminated, b keeps the memory so
 * one buffer serves a whole import).  0; KT_ENOMEM, or KT_EINVAL for an
 * item cJSON cannot print (b is then empty and its err clear). */
int kt_imp_json_print(const cJSON *item, struct kt_buf *b);
/* Append to b the string s (NUL-terminated; NULL as "") as cJSON prints a
 * string, and the number d as cJSON prints a number item of value d
 * (cJSON_CreateNumber).  0 or KT_ENOMEM (sticky, as every kt_buf append).
 * For writers that put a JSON text together from parts (kt_buf_add), some
 * of them canonical bytes from the store. */
int kt_json_put_str(struct kt_buf *b, const char *s);
int kt_json_put_num(struct kt_buf *b, double d);

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

/* ---- agent logs that link tool results by call id (impx_calls.c) -----
 * Gemini CLI, Copilot CLI, codex exec, Pi and Amp write a tool call and,
 * later, its result naming the call's id; so do the chat-shaped formats of
 * impconv.h, which pair through these same calls.  kt_impx_calls
 * remembers each call (seq, tool, args) so the result becomes its
 * tool_result and then goes through kt_impx_tool_effects (edits, compile,
 * bench) like every other importer's. */
typedef struct kt_impx_at {      /* where a record lies (provenance) */
	uint64_t line, off, len;
} kt_impx_at;
typedef struct kt_impx_calls {
	kt_strmap m;             /* call id -> its kt_impx_call_rec */
	uint64_t anon;           /* calls without an id so far */
	const kt_file *f;        /* the file the records lie in, for their
				    provenance; NULL (a zeroed table): the
				    file being imported */
	void (*own_free)(void *); /* frees a record's own; NULL: free() */
} kt_impx_calls;

/* One remembered call.  Formats that emit their calls and results
 * themselves (Codex, OpenHands, ATIF) keep their pending calls here too,
 * with what else they need of a call under own. */
typedef struct kt_impx_call_rec {
	uint64_t seq;            /* its tool_call's seq; 0 until emitted */
	char *tool;
	cJSON *args;             /* an object, owned by the record */
	int answered;            /* a result was paired with it (the format
				    sets it) */
	void *own;               /* the format's own state of the call, or
				    NULL; freed with the record */
} kt_impx_call_rec;

/*
 * Remember under `id` a call the format emits itself: seq (0 when it is
 * not emitted yet: set rec->seq then), tool (copied; NULL is "unknown"),
 * args and own (both consumed, also on failure; may be NULL).  A record
 * already under id is freed: the later call wins.  Returns the record
 * (owned by c, valid until another under id or kt_impx_calls_free), or
 * NULL when memory runs out.
 */
kt_impx_call_rec *kt_impx_calls_put(kt_impx_calls *c, const char *id,
				    uint64_t seq, const char *tool,
				    cJSON *args, void *own);
/* The record under id; NULL when there is none or id is NULL. */
kt_impx_call_rec *kt_impx_calls_get(const kt_impx_calls *c, const char *id);

/*
 * Emit a tool_call {tool, call_id, args (a copy; {} when NULL; a string
 * holding JSON is decoded: kt_impx_args), extra (consumed, may be NULL)}
 * with parent `parent` and remember it under `id` (a call without an id,
 * NULL or "", gets "call-N", N counting such calls of c from 1; a NULL
 * tool is "unknown").  A second call under one id replaces the first for
 * the results that follow.  actor NULL is "agent".  *seq (may be NULL)
 * gets its seq.  Returns 0 or KT_E* (KT_ENOMEM; what emitting returns).
 */
int kt_impx_call(kt_imp *imp, kt_impx_calls *c, const char *id,
		 const char *tool, const cJSON *args, uint64_t parent,
		 int64_t ts, const char *actor, cJSON *extra,
		 const kt_impx_at *at, uint64_t *seq);
/* kt_impx_call, but only a NULL id is given "call-N": "" is an id like
 * any other (impconv.h's kt_conv_call). */
int kt_impx_call_id(kt_imp *imp, kt_impx_calls *c, const char *id,
		    const char *tool, const cJSON *args, uint64_t parent,
		    int64_t ts, const char *actor, cJSON *extra,
		    const kt_impx_at *at, uint64_t *seq);

/*
 * The result of call `id`: a tool_result {call_id, ok, output
 * (64 KiB inline, output_blob when longer), exit_code when >= 0, extra
 * (consumed)} whose parent is the call, then the call's effects
 * (kt_impx_tool_effects with cwd).  A result whose call is unknown is
 * kept as a tool_result without parent, extra.unpaired true.  *seq (may
 * be NULL) gets the tool_result's seq.  Returns 0 or KT_E*.
 */
int kt_impx_result(kt_imp *imp, kt_impx_calls *c, const char *id,
		   const char *output, int ok, int exit_code, const char *cwd,
		   int64_t ts, cJSON *extra, const kt_impx_at *at,
		   uint64_t *seq);

/*
 * A format's own effects of a paired call, run after its tool_result is
 * emitted (arg: what the format gave kt_impx_result_fx; tool and args: the
 * call's as stored; call, res: the two seqs; out: the output text):
 * returns 1 when it handled the call, 0 to fall back to
 * kt_impx_tool_effects, or a negative KT_E* code.
 */
typedef int (*kt_impx_effects_fn)(void *arg, const char *tool,
				  const cJSON *args, uint64_t call,
				  uint64_t res, const char *out, int ok,
				  int64_t ts);
/* kt_impx_result with a format's own effects fx(arg, ...) tried first
 * (fx NULL: kt_impx_result). */
int kt_impx_result_fx(kt_imp *imp, kt_impx_calls *c, const char *id,
		      const char *output, int ok, int exit_code,
		      const char *cwd, int64_t ts, cJSON *extra,
		      const kt_impx_at *at, kt_impx_effects_fn fx, void *arg,
		      uint64_t *seq);

/* Whether call `id` is known (its seq, 0 when not). */
uint64_t kt_impx_call_seq(const kt_impx_calls *c, const char *id);
/* Free every record (and its own) and forget the anonymous count; c
 * stays usable, f and own_free kept. */
void kt_impx_calls_free(kt_impx_calls *c);

/*
 * Every JSON record of a JSONL file, in order, with where each lies: for
 * formats read in two passes (a later line updates an earlier one).  Bad
 * lines are warned and left out as kt_impx_jsonl does.  *out (caller
 * frees with kt_impx_recs_free) gets n records.  Returns 0 or KT_E*.
 */
typedef struct kt_impx_rec {
	cJSON *o;
	kt_impx_at at;
} kt_impx_rec;
int kt_impx_jsonl_all(kt_imp *imp, const kt_file *f, kt_impx_rec **out,
		      size_t *n);
void kt_impx_recs_free(kt_impx_rec *r, size_t n);

/*
 * For formats that are one JSON document or JSONL (Gemini CLI, Copilot
 * CLI), after cJSON failed on the whole of f: when its first line does
 * not hold a whole value (a pretty-printed document opens with a lone
 * "{"), f is a damaged document, not JSONL - warn as kt_imp_json_bad does
 * for a document ("file skipped") and return 1; else return 0 (read it
 * as JSONL, line by line).  Out of memory: kt_imp_fail(KT_ENOMEM), 1.
 */
int kt_impx_doc_bad(kt_imp *imp, const kt_file *f);

/*
 * kt_imp_run_begin for a session whose own id is `id`: the identity is
 * "<format>:<id>", or "<format>:<sha256 of f>" when the source has none
 * (FORMAT.md section 11 "Run ids"); the name is `name`, else id, else
 * f's base name.  meta is consumed in every case.  Returns 0 or KT_E*.
 */
int kt_impx_begin(kt_imp *imp, const kt_file *f, const char *format,
		  const char *id, const char *name, cJSON *meta);

/* Where element i of n array elements lies (kt_impx_spans), as a
 * kt_impx_at: zero when i is out of range. */
kt_impx_at kt_impx_at_span(const kt_impx_span *sp, long n, long i);

#endif /* KT_IMPX_H */
