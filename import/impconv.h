/*
 * impconv.h - what the chat-shaped agent formats share (Cline, OpenCode,
 * STS, OTLP GenAI spans, Aider): a conversation of messages, tool calls
 * and tool results paired by call id, where each result is followed by the
 * call's effects on the workspace (editor tools become edits, shell tools
 * go to kt_shell_classify).  Internal to import/; builds on impx.h.
 *
 * None of these print or exit; problems go through kt_imp_warn().
 */
#ifndef KT_IMPCONV_H
#define KT_IMPCONV_H

#include <stdint.h>
#include <cjson/cJSON.h>
#include "import.h"
#include "impx.h"

struct kt_conv;

/*
 * A format's own tool effects, called after a result is emitted: returns
 * 1 when it handled the call, 0 to fall back to kt_impx_tool_effects on
 * the call's tool and args, or a negative KT_E* code.  `args` is the call's
 * argument object as stored; `out` the result's output text.
 */
typedef int (*kt_conv_effects_fn)(struct kt_conv *cv, const char *tool,
				  const cJSON *args, uint64_t call,
				  uint64_t res, const char *out, int ok,
				  int64_t ts);

typedef struct kt_conv {
	kt_imp *imp;
	const kt_file *f;       /* the file being imported */
	kt_impx_calls calls;    /* call id -> its seq, tool and args; its
				   anon counts the calls given no id */
	char *cwd;              /* the session's directory, NULL unknown */
	kt_conv_effects_fn effects; /* NULL: kt_impx_tool_effects only */
	uint64_t last_assistant;/* seq of the last assistant message, 0 none */
	int ec;                 /* for effects: the exit code of the result
				   being handled, -1 unknown (a format sets
				   it when it knows one) */
} kt_conv;

/* Zero cv and bind it to the import of f; cwd (may be NULL) is copied.
 * Returns 0 or KT_ENOMEM. */
int kt_conv_init(kt_conv *cv, kt_imp *imp, const kt_file *f,
		 const char *cwd);
/* Release the call table and cwd. */
void kt_conv_free(kt_conv *cv);

/*
 * Emit a message {role, human, text[, flags]}: actor "human" for a person's
 * text, "agent" for role assistant, "system" otherwise.  `more` (consumed,
 * may be NULL) is an object whose members are added to the payload (model,
 * usage, msg_id, extra).  sp locates the raw record (NULL: unknown).
 * *seq may be NULL.  Returns 0 or KT_E*.
 */
int kt_conv_msg(kt_conv *cv, const char *role, int human, const char *text,
		const char *flags, cJSON *more, int64_t ts,
		const kt_impx_span *sp, uint64_t *seq);

/*
 * Emit a tool_call {tool, call_id, args[, extra]} whose parent is `parent`
 * (0: the last assistant message) and remember it under `id`; a NULL id
 * gets "call-<n>", n counting such calls from 1.  args: an object, or a string holding JSON
 * (kt_impx_args); extra (consumed, may be NULL).  An id given twice keeps
 * the later call.  Returns 0 or KT_E*.
 */
int kt_conv_call(kt_conv *cv, const char *id, const char *tool,
		 const cJSON *args, cJSON *extra, uint64_t parent, int64_t ts,
		 const kt_impx_span *sp, uint64_t *seq);

/*
 * Emit the tool_result of call `id` {call_id, ok, output[, exit_code,
 * extra]} with the call as parent, then its effects (cv->effects, else
 * kt_impx_tool_effects).  ok < 0: from the exit code found in the output
 * (kt_impx_exit_code; ok when none).  A result whose call is unknown is
 * warned at its line ("tool result for unknown call ID: kept as a system
 * message") and kept as a meta system message, not lost.  extra consumed.
 * Returns 0 or KT_E*.
 */
int kt_conv_result(kt_conv *cv, const char *id, const char *out, int ok,
		   cJSON *extra, int64_t ts, const kt_impx_span *sp);

/* kt_conv_result with the exit code the source gives (-1 none; -2: look
 * for one in the output, as kt_conv_result does). */
int kt_conv_result_ec(kt_conv *cv, const char *id, const char *out, int ok,
		      int ec, cJSON *extra, int64_t ts, const kt_impx_span *sp);

/* Seq of the call remembered under id, 0 when none. */
uint64_t kt_conv_call_seq(const kt_conv *cv, const char *id);

/*
 * Apply the SEARCH/REPLACE blocks of text to workspace file path (made
 * absolute against cwd), as Aider's diff formats and Cline's
 * replace_in_file write them:
 *     <<<<<<< SEARCH\n old \n=======\n new \n>>>>>>> REPLACE
 * (Aider: aider/coders/editblock_coder.py; Cline: src/core/assistant-
 * message/diff.ts; the markers may carry more '<', '=' or '>' and trailing
 * blanks).  An empty SEARCH on an unknown or empty file creates it; a
 * SEARCH text not in the believed content leaves the file unknown (the
 * tool changed it, we cannot tell how: kt_ws_invalidate).  Returns the
 * number of blocks found (>= 0) or a negative KT_E* code.
 */
int kt_conv_search_replace(kt_imp *imp, const char *cwd, const char *path,
			   const char *text, uint64_t call, const char *tool);

/*
 * The edit and shell tools of Cline and Aider as their imports record
 * them, applied after the result of tool call `call` (seq; res: the
 * result's seq, out its text, ok whether it succeeded), for those imports
 * and for every import of a file that carries their calls (an sts, otlp or
 * atif export of their runs: kt_impx_tool_effects calls this first):
 *   edit_block {path, search, replace}  Aider's SEARCH/REPLACE block
 *                                        (kt_conv_search_replace);
 *   editor {path, old_text, new_text, insert_line}  Cline SDK's editor:
 *       old -> new once; no old_text on a file not known: new_text is the
 *       file; an insert, or a replace whose old_text is not in the
 *       believed content, leaves the file unknown (kt_ws_invalidate);
 *   run_commands {commands[]}           each command to kt_shell_classify;
 *   newFileCreated / editedExistingFile {path, content | diff},
 *   fileDeleted {path}                   Cline's task folder tools.
 * Paths resolve against cwd (NULL: kept as given).  A failed call changes
 * nothing.  Returns 1 when tool is one of these, 0 when not, or a negative
 * KT_E* code (KT_ENOMEM, or what kt_ws_write and kt_shell_classify return).
 */
int kt_conv_agent_edit(kt_imp *imp, const char *tool, const cJSON *args,
		       const char *cwd, uint64_t call, uint64_t res,
		       const char *out, int ok, int64_t ts);

#endif /* KT_IMPCONV_H */
