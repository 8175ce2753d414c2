/*
 * codex_patch.h - Codex CLI's own apply_patch grammar (not a unified diff).
 *
 * Grammar (openai/codex, codex-rs/apply-patch/src/parser.rs, Lark form):
 *
 *   start: begin_patch hunk+ end_patch
 *   begin_patch: "*** Begin Patch" LF
 *   end_patch: "*** End Patch" LF?
 *   hunk: add_hunk | delete_hunk | update_hunk
 *   add_hunk: "*** Add File: " filename LF add_line+
 *   delete_hunk: "*** Delete File: " filename LF
 *   update_hunk: "*** Update File: " filename LF change_move? change?
 *   add_line: "+" /(.+)/ LF
 *   change_move: "*** Move to: " filename LF
 *   change: (change_context | change_line)+ eof_line?
 *   change_context: ("@@" | "@@ " /(.+)/) LF
 *   change_line: ("+" | "-" | " ") /(.+)/ LF
 *   eof_line: "*** End of File" LF
 *
 * Like Codex we parse leniently: markers may carry surrounding whitespace, a
 * patch may be wrapped in a <<EOF ... EOF heredoc, blank lines inside an
 * update count as empty context lines, and the first chunk of an update may
 * omit its "@@".  Application follows codex-rs/apply-patch/src/lib.rs
 * (compute_replacements) and seek_sequence.rs: each chunk's context line and
 * old lines are searched forward from the previous chunk, first exactly,
 * then ignoring trailing whitespace, then ignoring surrounding whitespace,
 * then with typographic punctuation folded to ASCII; the result always ends
 * with a newline.
 *
 * Nothing here prints or exits; errors are KT_E* codes (store/store.h).
 */
#ifndef KT_CODEX_PATCH_H
#define KT_CODEX_PATCH_H

#include <stddef.h>
#include <stdint.h>
#include "import.h"

enum { KT_CP_ADD = 1, KT_CP_DELETE = 2, KT_CP_UPDATE = 3 };

typedef struct kt_cp_line {
	const char *s; /* points into the patch's own copy of the text */
	size_t n;
} kt_cp_line;

typedef struct kt_cp_chunk {
	kt_cp_line ctx;    /* change context after "@@ "; ctx.s NULL = none */
	kt_cp_line *old_l; /* lines the chunk replaces (context and '-') */
	size_t n_old;
	kt_cp_line *new_l; /* lines it puts there (context and '+') */
	size_t n_new;
	int eof;           /* "*** End of File": old lines end the file */
} kt_cp_chunk;

typedef struct kt_cp_hunk {
	int op;            /* KT_CP_ADD, KT_CP_DELETE, KT_CP_UPDATE */
	char *path;        /* as written in the patch (NUL-terminated) */
	char *move_to;     /* Update with "*** Move to:", else NULL */
	char *contents;    /* Add: the new file (every line ends in '\n') */
	size_t contents_len;
	kt_cp_chunk *chunks; /* Update */
	size_t n_chunks;
} kt_cp_hunk;

typedef struct kt_cpatch {
	kt_cp_hunk *hunks;
	size_t n_hunks;
	char *text;        /* private copy the lines point into */
} kt_cpatch;

/*
 * Parse patch text (len bytes, need not be NUL-terminated).  On success
 * *out owns a kt_cpatch (free with kt_cpatch_free).  On KT_EPARSE, `err`
 * (when not NULL) gets a one-line reason with the 1-based patch line.
 * Errors: KT_EPARSE, KT_ENOMEM, KT_ELIMIT (more than 1e6 lines).
 */
int kt_cpatch_parse(const char *text, size_t len, kt_cpatch **out,
		    char *err, size_t errlen);
void kt_cpatch_free(kt_cpatch *p);

/*
 * Find a patch inside a shell command or tool input: returns 1 and sets
 * *start and *plen to the span from "*** Begin Patch" through "*** End Patch"
 * (or to the end of text when the end marker is missing), 0 when text
 * holds no patch.  Used for `apply_patch <<'EOF' ... EOF` heredocs given
 * to exec_command/shell and for the ["apply_patch", "<patch>"] argv form.
 */
int kt_cpatch_find(const char *text, size_t len, const char **start,
		   size_t *plen);

/*
 * Apply the chunks of an Update hunk to `orig` (olen bytes).  *out gets a
 * malloc'ed NUL-terminated result (caller frees), *outlen its length.
 * Errors: KT_ENOTFOUND when a context or old line block is not found (the
 * patch would have failed in Codex too), KT_ENOMEM, KT_EINVAL.
 */
int kt_cpatch_apply_update(const kt_cp_hunk *h, const char *orig, size_t olen,
			   char **out, size_t *outlen);

/*
 * Apply a parsed patch to the current run's workspace as the effect of tool
 * call `call` (emits edit events through kt_ws_write/kt_ws_delete).  Paths
 * are resolved against cwd (may be NULL).  A rename is a delete of the old
 * path and a write of the new one.  *n_applied (may be NULL) gets the number
 * of hunks that changed the workspace; *n_unknown the number of Update hunks
 * whose file content was unknown or did not match (nothing emitted).
 * Returns 0 or a KT_E* code from the workspace.
 */
int kt_cpatch_apply_ws(kt_imp *imp, const kt_cpatch *p, const char *cwd,
		       uint64_t call, const char *tool, int *n_applied,
		       int *n_unknown);

#endif /* KT_CODEX_PATCH_H */
