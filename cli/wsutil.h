/*
 * wsutil.h - a run's workspace as cat and diff see it: paths given by the
 * user (as stored, or a unique suffix such as "src/x.cu") and file content
 * at a step.
 */
#ifndef KT_WSUTIL_H
#define KT_WSUTIL_H
#include "cli.h"

/*
 * The stored path that `path` names in run `run` at step at_a or at_b (0 =
 * latest; give the same step twice for one): the path itself when stored,
 * else the one path ending in "/<path>" among the files that exist at
 * either step, or failing that among the files whose content is unknown
 * at either step (an edit with op "unknown"), so that cat and diff say the
 * content is unknown rather than "no file".  *out is malloc'ed.  Prints the error itself and returns an
 * exit code (KT_EXIT_NOTFOUND none, KT_EXIT_USAGE several).
 */
int cli_path_resolve(struct cli *c, kt_store *s, const char *run,
		     const char *path, uint64_t at_a, uint64_t at_b,
		     char **out);

/*
 * The blob of hash h, as kt_blob_get (*data malloc'ed, NUL past *len), but
 * a blob that is not stored is KT_ECORRUPT, not KT_ENOTFOUND: writers store
 * every blob an event names (FORMAT.md section 2 "Blob references"), so a
 * workspace file whose blob is missing is damage (exit 3), never "the file
 * did not exist" (exit 4).  Other KT_E* as kt_blob_get.
 */
int cli_blob_named(kt_store *s, const unsigned char h[KT_HASH_LEN],
		   void **data, size_t *len);

/*
 * Content of stored `path` at step `at` (0 = latest).  Returns 0 with
 * *data malloc'ed (NUL past *len); KT_ENOTFOUND with *data NULL when the
 * file does not exist then (never seen: *deleted 0; deleted: 1) or its
 * content is not known (*deleted 2: an edit with op "unknown", FORMAT.md
 * section 2); KT_ECORRUPT when its blob is not stored (cli_blob_named);
 * other KT_E*.
 */
int cli_ws_content(kt_store *s, const char *run, const char *path,
		   uint64_t at, void **data, size_t *len, int *deleted);

/*
 * Whether `path` of run `run` has unknown content at step `at` (0 =
 * latest): the last edit or observation of it by then is an edit with op
 * "unknown".  Returns 1 (*by = the step that changed it: the edit's tool
 * call, else the edit; by may be NULL), 0, or a
 * negative KT_E*.  Walks back over the run's events: ask only for a path
 * that kt_path_at reports deleted.
 */
int cli_ws_unknown(kt_store *s, const char *run, const char *path,
		   uint64_t at, uint64_t *by);

/*
 * Where `path` exists in run `run`, for a "no file" message: into buf
 * (always NUL-terminated, cut to n) "it exists at steps 5-12, 20-41" (up
 * to four stretches, then ", ..."; "at step 5" for one step), or, when
 * path is not stored but one stored path ends in "/<path>", "src/x.cu
 * exists at steps ...", "N files end in 'PATH': A, B[, ...]; give more of
 * the path" for several, and "it never exists in this run" for none.  A stretch
 * ends before the step that deleted the file (or made its content
 * unknown) and, when none did, at the run's last step.  Returns 0 or a
 * KT_E* code of the store.
 */
int cli_ws_where(kt_store *s, const char *run, const char *path, char *buf,
		 size_t n);

/* Parse SEQ and check it names an event of run (1..n).  Prints the error
 * itself; returns 0 or an exit code. */
int cli_seq(struct cli *c, kt_store *s, const char *run, const char *arg,
	    uint64_t *seq);
#endif
