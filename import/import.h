/*
 * import.h - turning published trajectories into ktraj events.
 *
 * Layers (dependencies point down):
 *   kt_import_paths()      driver: walks files, folders, archives and stdin,
 *                          detects formats, runs one importer per source,
 *                          writes each source in one store transaction.
 *   struct kt_importer     one per format (import/imp_<format>.c): detect()
 *                          scores content, import() parses a file and emits
 *                          runs and events through the kt_imp calls below.
 *   typed helpers          shared by importers: workspace (file contents per
 *                          run), shell classification (edits from shell
 *                          writes, compile events), benchmark text patterns.
 *
 * Importers never touch the store directly, never print and never exit:
 * problems go through kt_imp_warn(), which the driver reports as
 * "file:line: what" and which stops the source under --strict.
 *
 * Ownership: every kt_file and string the driver hands an importer is owned by
 * the driver and valid until import() returns.  cJSON payloads passed to
 * kt_imp_emit() are consumed (freed by the driver) in every case.
 */
#ifndef KT_IMPORT_H
#define KT_IMPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <signal.h>
#include <cjson/cJSON.h>
#include "../store/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- input files -------------------------------------------------------- */
typedef struct kt_file {
	const char *path;     /* display name for messages: "dir/a.jsonl" or
				 "x.tar.gz:member/a.jsonl" or "-" */
	const char *rel;      /* '/'-separated path inside its input root (the
				 folder or archive given); the basename for a
				 plain file argument */
	const char *member;   /* archive member name, NULL when not archived */
	const unsigned char *data; /* whole content, NUL-terminated past len */
	size_t len;
	unsigned char sha[KT_HASH_LEN];
	char sha_hex[KT_HASH_HEX + 1];
	const char *root;     /* the input root as given: folder, archive
				 ("run.eval"), file, or "-" for stdin */
} kt_file;

typedef struct kt_imp kt_imp; /* one import session (driver state) */

/* ---- importers ---------------------------------------------------------- */
typedef struct kt_importer {
	const char *name;   /* format name: "claude_code", "codex", "atif", ... */
	const char *summary;/* one line for `ktraj import --help` */
	/* 0..100: how sure this importer is that f is its format.  Looks at
	 * content first (the first bytes / keys), the name only to break ties.
	 * Must be cheap and must not keep pointers into f. */
	int (*detect)(const kt_file *f);
	/* Parse f and emit its runs.  Returns 0, or a KT_E* code when nothing
	 * sensible could be imported (a fatal problem; also warned).
	 * KT_ENOMEM, KT_EIO and KT_ECORRUPT (the importer's own failure, not
	 * the input's) make the driver keep nothing of the source and stop;
	 * after other codes what was emitted is kept unless --strict. */
	int (*import)(kt_imp *imp, const kt_file *f);
	unsigned flags;     /* KT_IMPF_* */
	/* other run formats this importer writes or once wrote (NULL-
	 * terminated, may be NULL): runs of those formats are its runs */
	const char *const *aliases;
} kt_importer;

/* The user messages of its runs before the agent's first reply are the
 * eval harness's task prompt, never a person's words (analyze/text.c
 * kt_an_task_prompt: never a question, never a blame candidate). */
#define KT_IMPF_HARNESS_PROMPTS 0x1u
/* The importer reads f->sha and f->sha_hex of the file it is given only
 * through the session (each event's provenance, the run's sources), never
 * itself: the file's hash may then still be computed on a second thread
 * when import() starts, and the session waits for it where it needs it
 * (driver.c, kt_in_load_ahead).  Without the flag the driver waits first. */
#define KT_IMPF_LATE_SHA 0x2u

/* The table of every importer (import/registry.c), in its order (detection
 * ties go to the earlier one): the i-th importer, NULL past the last. */
const kt_importer *kt_importer_at(size_t i);
/* Fill the place the table keeps by name for an importer whose code is in
 * a module above import/ (import/registry.c says why): replay/'s
 * "replay_result", which kt_replay_register adds.  Until then the table
 * goes without it (detection, --format, the list).  Call it before any
 * import, not while one runs (the table is read without a lock).  0 (also
 * when im was registered before), KT_ENOTFOUND when the table keeps no
 * place named im->name, KT_EEXIST when another importer of that name
 * holds it, KT_EINVAL for NULL. */
int kt_importer_register(const kt_importer *im);
/* The importer of that name among those in the table; NULL for none. */
const kt_importer *kt_importer_find(const char *name);
/* The importer whose runs have run format `format` (its name or one of
 * its aliases); NULL for none (a format no importer writes: "ktraj"
 * imports keep the format of the run exported). */
const kt_importer *kt_importer_of_format(const char *format);

/* ---- what importers call --------------------------------------------------
 * Runs: identity is the source's own stable identity ("claude_code:<session
 * id>"); the run id is kt_run_id_from_identity(identity).  A file may emit
 * several runs one after another (Inspect: one per sample and epoch); events
 * go to the run begun last.  Re-importing emits the same events again: the
 * driver appends only events past what the store already has.  A new run
 * is stored with its first event: one that gets none is not created (the
 * store is append-only), and a source that yields no run is warned about.
 */
int kt_imp_run_begin(kt_imp *imp, const char *identity, const char *name,
		     const char *format, cJSON *meta /* consumed, may be NULL */);
/* A run whose id is given (32 lowercase hex), not derived from an
 * identity: a ktraj JSONL export names its run, and importing it keeps that
 * id, so export + import into another store gives the same run.  KT_EINVAL
 * for an id that is not 32 lowercase hex. */
int kt_imp_run_begin_id(kt_imp *imp, const char *id, const char *name,
			const char *format, cJSON *meta /* consumed */);
int kt_imp_run_end(kt_imp *imp);
/* kt_imp_run_end keeping the first error: rc when it is not 0, else what
 * kt_imp_run_end returns.  How an importer that stopped at its first
 * error still ends the run it began. */
int kt_imp_run_finish(kt_imp *imp, int rc);
/* After kt_imp_run_begin, for sources whose parts may change after an
 * import (a KernelAgent round folder, a worker result rewritten with a new
 * round): each event re-emitted for the part of the run already stored is
 * compared with the stored one (kind and payload).  At the first that
 * differs nothing more is appended to the run (the stored history is kept
 * as first imported), and at the end of the run one warning says that the
 * source changed, at which step and from which file, and how many events
 * of this import were not added.  A source that now yields fewer events
 * than the run holds is warned about too.  Off under --redact (stored
 * payloads are redacted).  Costs one stored-event read per re-emitted
 * event: a re-import of the corpus's Claude Code sessions (6 MB) went from
 * 0.30 to 0.42 s; a first import pays nothing.  The warning names the line
 * of the first event that differs when the importer's events carry their
 * line in this file (ev->line; not under kt_imp_check_reemit_all, whose
 * events carry their first source's lines), else the file alone. */
void kt_imp_check_reemit(kt_imp *imp);
/* kt_imp_check_reemit that also compares parent, ts and actor: for a
 * source that gives them itself (a ktraj JSONL export, whose run id it
 * keeps), so that a changed copy of an imported run is reported instead
 * of being taken as the run already stored. */
void kt_imp_check_reemit_all(kt_imp *imp);
/*
 * For an importer that asked kt_imp_check_reemit: one record it emits
 * from source lines first..last (1-based, of the file being imported) may
 * have been cut mid-way by the earlier import (a Claude Code response
 * written over several lines while that import read the file: its usage
 * was then the last line's).  When the run's stored events end at a line
 * in first..last, the events re-emitted until kt_imp_reemit_resume are not
 * compared (the stored ones are kept as they are either way): 1, paused;
 * else 0 and nothing changes.  No error.
 */
int kt_imp_reemit_pause(kt_imp *imp, uint64_t first, uint64_t last);
/* The comparison kt_imp_reemit_pause stopped goes on (no-op when it did
 * not pause). */
void kt_imp_reemit_resume(kt_imp *imp);
/* Continue the stored run `id` (32 lowercase hex) instead of beginning
 * one: for a source that adds to a run another source made (a replay
 * bundle's result.json records a `replay` event on a step of its run).
 * The run as stored is not re-emitted: the events emitted from now on get
 * the seqs after its last event and are all appended (nothing is
 * compared), until kt_imp_run_end.  Returns 0, KT_EINVAL (id NULL),
 * KT_ENOTFOUND (the store has no such run) or a store error. */
int kt_imp_run_continue(kt_imp *imp, const char *id);
/* Reads of the current run as the store holds it (begun or continued):
 * the header of event seq (kt_event_head: seq, kind, parent, ts_ns) and
 * every stored event of one kind (0 all) in seq order, fn as for
 * kt_event_foreach (non-zero stops and is returned).  KT_EINVAL outside a
 * run, KT_ENOTFOUND, or a store error. */
int kt_imp_stored_head(kt_imp *imp, uint64_t seq, kt_event *ev);
int kt_imp_stored_foreach(kt_imp *imp, int kind,
			  int (*fn)(const kt_event *, void *), void *arg);
/* The meta JSON (an object's text) of the current run as the store held
 * it when the run was begun: *meta gets a malloc'd copy the caller frees
 * ("{}" for a stored run without meta), or NULL when the run is new (this
 * import creates it) or outside a run.  Returns 0, KT_ENOMEM, or a store
 * error (then *meta is NULL): a caller that must tell a stored run from a
 * new one does not take an error for a new run. */
int kt_imp_stored_meta(kt_imp *imp, char **meta);
/* The current run's id (valid between run_begin and run_end). */
const char *kt_imp_run_id(const kt_imp *imp);
/* The --map of this import (kt_import_opts.map), NULL when none: the map
 * importer reads its records with it.  Owned by the caller of kt_import. */
const struct kt_map *kt_imp_map(const kt_imp *imp);

typedef struct kt_ev {
	int kind;            /* enum kt_kind */
	uint64_t parent;     /* causal parent seq, 0 none */
	int64_t ts_ns;       /* KT_TS_UNKNOWN when the source gives none */
	const char *actor;   /* see kt_event.actor */
	cJSON *payload;      /* JSON object, consumed */
	const kt_file *file; /* provenance file; NULL = the file being imported */
	uint64_t line;       /* 1-based line (JSONL), 0 unknown */
	uint64_t off;        /* byte offset of the record in the file */
	uint64_t rec_len;    /* byte length of the raw record, 0 unknown */
	/* Provenance JSON kept as given instead of the one made from
	 * file/line/off (a ktraj JSONL import keeps its events' own, so their
	 * hashes stay); "" = no provenance; NULL normally.  Not owned. */
	const char *prov_json;
} kt_ev;

/* Emit one event into the current run; *seq gets its sequence number
 * (dense from 1 per run, in emit order). */
int kt_imp_emit(kt_imp *imp, kt_ev *ev, uint64_t *seq);

/* Store bytes as a content-addressed blob; writes its hex hash. */
int kt_imp_blob(kt_imp *imp, const void *data, size_t len,
		const char *path_hint, char hex[KT_HASH_HEX + 1]);
/* The same for content the importer has hashed already (`sha`, trusted:
 * see kt_blob_put_hashed); under --redact the content may change, and it
 * is hashed again then. */
int kt_imp_blob_hashed(kt_imp *imp, const void *data, size_t len,
		       const char *path_hint,
		       const unsigned char sha[KT_HASH_LEN],
		       char hex[KT_HASH_HEX + 1]);

/* Whether the store holds a blob (a reference a source gives without the
 * content): 1 yes, 0 no, negative KT_E* on error (kt_blob_exists). */
int kt_imp_blob_stored(kt_imp *imp, const unsigned char hash[KT_HASH_LEN]);

/* Report a problem at file:line (line 0 = whole file).  Under --strict the
 * driver discards the source and stops after the importer returns; the
 * importer may keep going (its output is thrown away, and its later
 * problems are counted but not reported).  A message may end by saying
 * what of the source it drops (": line skipped", ": file skipped",
 * ": skipped", "; skipped", "; not imported", "; event not imported");
 * under --strict, where nothing of the source is kept, the driver leaves
 * that out. */
void kt_imp_warn(kt_imp *imp, const kt_file *f, uint64_t line,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The importer's own failure where a helper cannot return it (kt_impx_parse
 * returns NULL for it as for text that is not JSON): rc (KT_ENOMEM, KT_EIO
 * or KT_ECORRUPT; the first one counts) becomes the source's result
 * whatever the importer returns, and nothing of the source is kept, as
 * when the importer returns it. */
void kt_imp_fail(kt_imp *imp, int rc);

/* kt_imp_warn about a file on disk that is no kt_file, so has no name of
 * its own in a warning: one the importer looked for beside the source
 * and could not read (a folder in place of a round file).  The warning
 * names `path` (as the driver names what it reads from a folder: the
 * root as given, '/', the path inside it), not the source being
 * imported; a problem of the source as kt_imp_warn's is. */
void kt_imp_warn_path(kt_imp *imp, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Say something about f that is not a problem of the input (what the
 * import could not do from where the file came, such as a KernelBench
 * results file on stdin with no baseline file beside it): reported like a
 * warning, "file: what", through opts->on_warn, but not counted as a
 * problem, so --strict goes on. */
void kt_imp_note(kt_imp *imp, const kt_file *f, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Other files of the same input root (folder or archive), for formats that
 * span files (Claude Code subagents/, ATIF sub-trajectories, KernelAgent
 * round folders).  rel paths are relative to the root and '/'-separated.
 * kt_imp_list calls fn for each file whose rel starts with `prefix`, in byte
 * order.  kt_imp_open loads one (owned by the driver).  kt_imp_claim marks a
 * file as consumed so the driver does not import it again on its own. */
int kt_imp_list(kt_imp *imp, const char *prefix,
		int (*fn)(const char *rel, void *), void *arg);
int kt_imp_open(kt_imp *imp, const char *rel, const kt_file **out);
void kt_imp_claim(kt_imp *imp, const char *rel);

/* Optional: how far (bytes) the importer got in the file being imported,
 * for the progress bar of big files. */
void kt_imp_progress(kt_imp *imp, uint64_t done);

/* How many ids of one id set (tool call ids, message ids, line uuids) an
 * importer keeps in memory before it moves them to a kt_spill
 * (kt_import_opts.ids, else KT_IMPORT_IDS): what bounds its memory on an
 * input of any size (issue 21). */
#define KT_IMPORT_IDS 65536u
uint64_t kt_imp_ids(const kt_imp *imp);
/* The workspace's budget of file contents held, bytes
 * (kt_import_opts.ws_bytes, else KT_IMPORT_WS). */
#define KT_IMPORT_WS (16u << 20)
uint64_t kt_imp_ws_bytes(const kt_imp *imp);
/* Optional: a pass that is no import (a search, a pre-scan) read f front
 * to back up to byte off: the pages of a big file far behind off may be
 * given back (read again from the file when touched).  Progress reports
 * do the same for the file being imported.  Any kt_file: nothing happens
 * for one the driver did not map. */
void kt_imp_read_to(kt_imp *imp, const kt_file *f, uint64_t off);
/* Optional: the offset of the first needle (nl bytes, nl > 0) in f at or
 * after byte from, or -1 when there is none.  The same answer as memmem
 * over f->data; a big file the driver mapped is read with pread in 1 MiB
 * pieces instead, so a search of the whole file faults in no page of it
 * and leaves memory as it was (a pre-scan before the import pass).  Any
 * kt_file; imp may be NULL (then memmem). */
int64_t kt_imp_find(kt_imp *imp, const kt_file *f, uint64_t from,
		    const void *needle, size_t nl);

/* ---- workspace: file contents per run ------------------------------------
 * Paths are stored as the source gives them, made absolute against `cwd`
 * when relative and a cwd is known, and normalized ("a/./b/../c" -> "a/c").
 */
/* Current content of path in the current run (NULL when unknown, or when
 * it could not be read back from the store: the source then fails with
 * that error).  The pointer is owned by the workspace and valid until the
 * next write, observation, delete or invalidation of any path: those may
 * drop contents to keep the workspace under kt_import_opts.ws_bytes. */
const char *kt_ws_get(kt_imp *imp, const char *path, size_t *len);

/* Record that a tool call (seq `call`) set path to content: emits an `edit`
 * event (op create/modify, before/after blobs) when the content changes.
 * `tool` names the tool ("Write", "apply_patch", "shell"). */
int kt_ws_write(kt_imp *imp, const char *path, const char *content,
		size_t len, uint64_t call, const char *tool);
/* Replace old with new (once, or every occurrence).  Returns KT_ENOTFOUND
 * when the file is unknown or old does not occur (nothing is emitted). */
int kt_ws_replace(kt_imp *imp, const char *path, const char *old_s,
		  const char *new_s, int all, uint64_t call, const char *tool);
int kt_ws_delete(kt_imp *imp, const char *path, uint64_t call,
		 const char *tool);
/* The tool call changed path in a way the source does not show (sed -i,
 * `python gen.py > f`): the workspace forgets the content, and an `edit`
 * with op "unknown", before = the content believed until now and after
 * null is emitted, so `ktraj cat` says the content is unknown from here on
 * instead of printing a stale one.  Only for a path whose content (or
 * absence) the workspace knew; a later write or observation re-seeds it.
 * Returns 0 or KT_ENOMEM. */
int kt_ws_invalidate(kt_imp *imp, const char *path, uint64_t call,
		     const char *tool);
/* A tool call (seq `call`) that succeeded replaced old_s by new_s in path
 * (once, or every occurrence when all), but the content it changed is not
 * known (no Read or original content before it, or old_s does not occur in
 * what was believed): an `edit` with op "unknown" is emitted all the same,
 * before = the content believed until now (null when none), after null,
 * and the hunk in extra {old_string, new_string, replace_all?} (FORMAT.md
 * section 2 "edit"); the path's content is unknown from here on, so the
 * code state (kt_ws_code_hash) changes.  Returns 0, KT_EINVAL for a NULL
 * string, KT_ENOMEM. */
int kt_ws_edit_unknown(kt_imp *imp, const char *path, const char *old_s,
		       const char *new_s, int all, uint64_t call,
		       const char *tool);
/* The tool call changed files it does not name (a script, a patch, git
 * checkout, a loop; import/README.md "Files a command does not name"):
 * kt_ws_invalidate for every file whose content or absence the workspace
 * knows, in path order, that lies under `dir` (dir itself or below it;
 * "" and "/" = every known file, relative paths included), or, with dir
 * NULL, that matches the fnmatch(3)
 * pattern `glob` (FNM_PATHNAME).  Exactly one of dir and glob.  Returns 0,
 * KT_EINVAL or KT_ENOMEM. */
int kt_ws_invalidate_where(kt_imp *imp, const char *dir, const char *glob,
			   uint64_t call, const char *tool);
/* kt_ws_invalidate_where with `how`: KT_WS_TREE, a glob also takes every
 * file under a directory it matches (`rm -r build/x*`); KT_WS_PRESENT,
 * only files with content (believed or unknown) are affected, a file known
 * to be absent stays absent (a removal that may have run cannot create
 * one).  Returns 0, KT_EINVAL or KT_ENOMEM. */
#define KT_WS_TREE 0x1u
#define KT_WS_PRESENT 0x2u
int kt_ws_invalidate_match(kt_imp *imp, const char *dir, const char *glob,
			   unsigned how, uint64_t call, const char *tool);
/* kt_ws_delete of every file with content (known or unknown) under `dir`
 * (below it, or dir itself when it is a file): `rm -r dir`; "/" takes
 * every file, relative paths included.  dir must not be "".  Returns 0,
 * KT_EINVAL or KT_ENOMEM. */
int kt_ws_delete_under(kt_imp *imp, const char *dir, uint64_t call,
		       const char *tool);
/* Content seen without a change (a Read result, originalFile): seeds or
 * corrects the workspace silently and adds {"path","blob"} to the
 * `observed` array of `payload` (the tool_result about to be emitted). */
int kt_ws_observe(kt_imp *imp, const char *path, const char *content,
		  size_t len, cJSON *payload);
/* Resolve a path against cwd as above; returns a malloc'ed string. */
char *kt_ws_path(const char *cwd, const char *path);

/* The identity of the code the run has edited so far, for a bench
 * result's source_hash (FORMAT.md section 14 "Noise"): the SHA-256 of the
 * sorted paths of every file an edit named in this run, each with its
 * content hash, "deleted" or "unknown" and its edit count (a file changed
 * in a way nobody saw is new code each time).  Documentation and data
 * files (.md .txt .rst .json .jsonl .csv .log) are left out: writing a
 * note or a result file does not change what is measured; so are files of
 * the benchmark harness or plot scripts (a folder or file named bench*,
 * *_bench*, a file named plot*) whose content defines no GPU kernel
 * (FORMAT.md section 14 "Code under test"), and a run that edited only
 * those gets the hash of no file (its code under test is as it began).
 * Fills hex and
 * returns 1, 0 when no code file was edited (the run cannot tell), or
 * KT_ENOMEM. */
int kt_ws_code_hash(kt_imp *imp, char hex[KT_HASH_HEX + 1]);

/* ---- shell classification ----------------------------------------------- */
/*
 * A finished shell tool call: emits `edit` events for shell writes in cmd
 * (cat > f <<EOF, printf/echo > f, tee) when ok, `unknown` edits for known
 * files it may have changed without showing how (sed -i, a program's
 * output, scripts named as editors, inline code that writes, patch, git
 * checkout/stash/reset, loops: kt_ws_invalidate[_where], import/README.md
 * "Files a command does not name"), a `compile` event when cmd
 * builds (nvcc, make, cmake --build, gcc/g++/clang on C/CUDA sources), and
 * `bench` events for benchmark numbers found in output.  exit_code is -1
 * when unknown.  call = seq of the tool_call, result = seq of its result.
 */
int kt_shell_classify(kt_imp *imp, uint64_t call, uint64_t result,
		      const char *cmd, const char *cwd, const char *output,
		      int exit_code, int ok, int64_t ts_ns);

/*
 * A results file the agent read (a Read tool call of PATH, or a plain
 * `cat PATH` in a shell, kt_shell_classify; content
 * text[0..len), the file's own bytes or a `cat -n`-style listing whose
 * "     N→" / "     N\t" line prefixes are dropped): when PATH ends in
 * .json or .jsonl and its JSON holds benchmark results (kt_bench_parse's
 * JSON reader), emits them as `bench` events of call, children of result,
 * with `source` PATH and `workload` its base name.  A result with the same
 * figures as one the run reported already (the output that wrote the file,
 * an earlier read of it: kt_bench_repeats) is not emitted again.  Nothing
 * is emitted for other files, or a file without results.  No
 * `source_hash`: which code wrote the file is not known.  0, KT_EINVAL
 * (imp or path NULL), KT_ENOMEM.
 */
int kt_imp_bench_file(kt_imp *imp, uint64_t call, uint64_t result,
		      const char *path, const char *text, size_t len,
		      int64_t ts_ns);

/*
 * Benchmark numbers in free text (tool output): fills *results with a cJSON
 * array of bench payload objects (time_ms, speedup, tflops, gbps, correct,
 * scenario, pattern).  Empty array when nothing matched.  Caller frees.
 * The pattern table is documented in import/README.md.
 */
int kt_bench_parse(const char *text, size_t len, cJSON **results);

/*
 * What the run says about its graded result, for kt_bench_parse_hint.
 * metric: the metric a verifier names as graded ("speedup_vs_compile"), or
 * NULL; baseline: the baseline the task names ("torch.compile", "eager",
 * "reference", "cublas"), or NULL.  Strings are borrowed.
 */
typedef struct kt_bench_hint {
	const char *metric;
	const char *baseline;
	/* the metric the task says it grades ("graded on
	 * speedup_vs_compile"), and the one it calls informational
	 * ("speedup_vs_eager is informational only"), as the task spells
	 * them (a metric, a baseline or a metric's baseline part), or
	 * NULL */
	const char *task_metric;
	const char *task_info;
} kt_bench_hint;

/*
 * What the values under a label read as: a header cell or a plot's
 * ylabel ("Time (ms)", "GB/s", "TFLOPS", "Speedup").  Returns
 * KT_BU_TIME (*scale converts to ms), KT_BU_SPEEDUP, KT_BU_TFLOPS
 * (*scale to TFLOP/s), KT_BU_GBPS (GB/s), or 0 when it names no unit.
 */
enum { KT_BU_TIME = 1, KT_BU_SPEEDUP, KT_BU_TFLOPS, KT_BU_GBPS };
int kt_bench_label_kind(const char *label, double *scale);

/*
 * What the correctness lines of text[0..len) say, as kt_bench_parse reads
 * them ("PASSED", "FAILED", "mismatch", Triton's tutorials' "✅ Triton
 * and Torch match" / "❌ ... differ"): 1 all say correct, 0 all say
 * wrong, -1 none or both.
 */
int kt_bench_verdict(const char *text, size_t len);

/*
 * kt_bench_parse with what the run names as graded (hint may be NULL).
 * Besides the fields above a result may carry (FORMAT.md section 2
 * "bench"): metric, baseline, graded (the hint chose it), alternatives and
 * choice (several speedups printed for one result), flags ("suspicious"
 * from a verifier), extra.reward.  Autotuner candidate tables are not
 * results, a result printed again is given once, and benchmark-looking
 * output with no figure read gives one {time_ms: null, status: "unparsed",
 * pattern: "table"}.  Errors: KT_EINVAL (results NULL), KT_ENOMEM.
 */
int kt_bench_parse_hint(const char *text, size_t len, const kt_bench_hint *hint,
			cJSON **results);

/*
 * Whether the bench payload o (as kt_bench_parse gives it) repeats one in
 * the array arr: a result printed again (a verifier's JSON, then `cat
 * reward.json`), not a second measurement.  A JSON result must equal an
 * earlier one in every field; a text result also needs two or more
 * figures (time, speedup, reference time, TFLOPS, GB/s), since one equal
 * time alone may be a new measurement that printed the same.  A result
 * with no pattern is never a repeat.
 */
int kt_bench_repeats(const cJSON *arr, const cJSON *o);

/*
 * The baseline a task prompt names as the one to beat ("faster than
 * torch.compile(...)", "beat the eager PyTorch reference"), as
 * kt_bench_hint.baseline spells it, or NULL when it names none or several.
 * Returns a static string.
 */
const char *kt_bench_task_baseline(const char *prompt);

/*
 * The metrics a task prompt names by what counts: graded[0..gn) gets the
 * one it grades ("You are graded on speedup_vs_compile", "scored on
 * `speedup_vs_compile`", "speedup_vs_compile is what counts"), info[0..in)
 * the one it calls informational ("speedup_vs_eager is informational
 * only", "... is for reference"); each is "" when the prompt names none,
 * or names two different ones.  A name counts only when it is an
 * identifier with '_' or '.' in it, since a plain "graded on speedup"
 * names no metric.  prompt may be NULL; buffers are truncated to size.
 */
void kt_bench_task_metric(const char *prompt, char *graded, size_t gn,
			  char *info, size_t in);

/*
 * Sets what the current import names as graded (kt_bench_hint) for the
 * benchmark output of the shell calls that follow; NULLs clear it.  The
 * strings are borrowed and must outlive the import (static strings).
 */
void kt_imp_bench_hint(kt_imp *imp, const char *metric, const char *baseline);

/*
 * Reads the task prompt of the current import for what chooses among
 * speedups printed against several baselines: the baseline it names
 * (kt_bench_task_baseline) and the metrics it grades or calls
 * informational (kt_bench_task_metric).  The verifier's metric set by
 * kt_imp_bench_hint stays.  imp NULL: nothing; prompt NULL clears them.
 */
void kt_imp_task(kt_imp *imp, const char *prompt);

/* The series fields (workload, scenario) the agent's own last result of
 * the metric and baseline of bench payload b had in this run, copied into
 * b where b has none (joins_series): a grader's record then lands in the
 * series of the agent's verifier run of the same kernel and metric.
 * Returns 1 when it copied, 0 when no such result, KT_ENOMEM. */
int kt_imp_bench_key(kt_imp *imp, cJSON *b);
/* Remember b's series fields for kt_imp_bench_key.  0 or KT_ENOMEM. */
int kt_imp_bench_key_note(kt_imp *imp, const cJSON *b);

/*
 * A failed build that a program's output reports, when the command was no
 * compiler: Triton's CompilationError, torch.compile (inductor, dynamo
 * backend) errors, torch.utils.cpp_extension / ninja build failures, and
 * nvcc errors printed by a JIT build, ninja "FAILED: X.o" lines,
 * setuptools' "error: command 'g++' failed" and g++ "X.cpp:L:C: error"
 * lines.  Returns the compiler's name ("triton", "torch.compile",
 * "cpp_extension", "nvcc", "ninja", "setuptools", "c++") and sets *at and
 * *n to the diagnostic's first line and length (at most 8 KiB), or returns
 * NULL when the output reports none.
 */
const char *kt_out_build_error(const char *out, size_t len, size_t *at,
			       size_t *n);

/*
 * Whether a tool call (tool name, args object) runs a shell command that a
 * replay may re-run: shell tools (Bash, bash, shell, exec_command, ...)
 * and unknown tools carrying a command line, but never file editors
 * (str_replace_editor, file_editor, edit_file, Write, Edit ...), editor
 * subcommands (args.command view/create/str_replace/insert/undo_edit with
 * a path) or SWE-agent's own commands (open, create, edit, submit ...).
 * 1 or 0.
 */
int kt_tool_is_shell(const char *tool, const cJSON *args);

/* Whether a shell command line runs a benchmark-like program (./x, python
 * script, ncu/nsys, ...), so that its output is worth kt_bench_parse(). */
int kt_shell_runs_bench(const char *cmd);

/* ---- the driver --------------------------------------------------------- */
/*
 * A map for per-round JSON/JSONL logs (imp_map.c, README "Custom round
 * logs", FORMAT.md section 11): a JSON object whose values name the
 * record's fields (dotted paths) or constants.  kt_map_parse reads one from
 * text; on KT_EPARSE err gets "LINE: what" (LINE 1-based in the map's
 * text).  Errors: KT_EPARSE, KT_ENOMEM.  Free with kt_map_free.
 */
typedef struct kt_map kt_map;
int kt_map_parse(const char *text, size_t len, kt_map **out, char *err,
		 size_t cap);
void kt_map_free(kt_map *m);
/* Whether text looks like per-round JSONL the map importer could read:
 * lines of JSON objects, at least half with a time- or speedup-like key.
 * 1 or 0. */
int kt_map_looks_like_rounds(const char *text, size_t len);

typedef struct kt_import_opts {
	const char *format;     /* force a format (NULL = detect) */
	const kt_map *map;      /* --map: read files with it (format "map") */
	int strict;             /* first problem stops the source, nothing kept */
	int redact;             /* redact before storing */
	int progress;           /* draw a progress bar on stderr */
	uint64_t max_total;     /* archive expansion bound, bytes */
	uint64_t max_ratio;     /* archive expansion ratio bound */
	uint64_t max_line;      /* stdin, FIFO or device input: reading stops
				   before the first line longer than this,
				   bytes (0: KT_IMPORT_MAX_LINE) */
	uint64_t batch;         /* store writes (bytes) after which a source's
				   new runs are committed in a batch, still
				   invisible (FORMAT.md §6.11); 0: 32 MiB */
	uint64_t ids;           /* ids of each of an importer's id sets held
				   in memory; past it they go to a temporary
				   file (store/spill.h); 0: KT_IMPORT_IDS */
	uint64_t ws_bytes;      /* file contents the workspace holds, bytes;
				   past it the least recently used that are
				   stored blobs are dropped and read back
				   from the store when needed; 0:
				   KT_IMPORT_WS */
	/* Called once per run touched: id, name, format, events, added. */
	void (*on_run)(const char *id, const char *name, const char *format,
		       uint64_t events, uint64_t added, void *arg);
	/* Called per problem with one line "file:line: what". */
	void (*on_warn)(const char *line, void *arg);
	/* Called once for each file of a folder or archive that no importer
	 * recognizes (it is skipped; not a problem, so --strict goes on).
	 * NULL = skip silently. */
	void (*on_skip)(const char *path, void *arg);
	void *arg;
	/* Called now and then while importing (only with progress set):
	 * bytes done and total input bytes (0 when unknown). */
	void (*on_progress)(uint64_t done, uint64_t total, void *arg);
	/* Optional (NULL = off): where the CPU time went, filled by
	 * kt_import_paths (tests/bench/import_claude.sh).  Costs two clock
	 * reads per store call. */
	struct kt_import_stats *stats;
	/* Optional: when *stop becomes non-zero (a signal handler may set
	 * it), no further source is started; the one being imported is
	 * finished and committed, and kt_import_paths returns as usual
	 * (on_run for the runs finished).  The caller knows it stopped. */
	const volatile sig_atomic_t *stop;
} kt_import_opts;

/* CPU time (ns, this thread) of one kt_import_paths call and the part of
 * it spent inside store calls: event appends, blob puts, run lookups and
 * creation, transaction begin/commit/abort and the final sync.  The
 * rest (total_ns - store_ns) is the importers, the workspace, the shell
 * classifier and the driver. */
typedef struct kt_import_stats {
	uint64_t bytes;         /* input bytes handed to importers */
	uint64_t events;        /* events appended to the store */
	uint64_t blobs;         /* kt_blob_put calls */
	uint64_t total_ns;
	uint64_t store_ns;
	/* the events whose actor the importer holds in memory (its ring,
	 * kt_imp_ids of them unless no temporary file could be made), and
	 * the actors it moved to its temporary file: a run of any length
	 * costs the ring, not 8 bytes an event */
	uint64_t actor_ring;
	uint64_t actors_spilled;
} kt_import_stats;

#define KT_IMPORT_MAX_TOTAL (4ull << 30)  /* 4 GiB expanded per archive */
#define KT_IMPORT_MAX_RATIO 200ull        /* expanded/compressed */
/* Bytes of SHA-256 of a source record kept in an event's provenance as
 * "rec" (hex, FORMAT.md §1): 64 bits tell a changed record from the one
 * imported (not meant against forgery: the chain covers the events) at
 * 16 hex characters per event instead of 64. */
#define KT_REC_HASH_LEN 8

/* 256 MiB: above the 100 MB line the Claude Code importer still parses
 * (imp_claude_int.h CC_MAX_LINE), so no line an importer would keep is cut;
 * a stream without newlines (/dev/zero) stops there, not after
 * KT_IMPORT_MAX_TOTAL bytes */
#define KT_IMPORT_MAX_LINE (256ull << 20)

/* Import every path ("-" = stdin).  Returns 0 when all sources imported
 * (with warnings), KT_EPARSE under --strict after the first problem,
 * KT_ELIMIT on an archive bound, KT_ENOTFOUND (after importing the rest)
 * when a path is missing or a source could not be read at all (cannot
 * open, cannot read, a stream - stdin, a device, a FIFO - longer than
 * max_total bytes), or when nothing came of the paths but skipped folder
 * entries (dangling links, FIFOs, devices), empty folders, empty inputs,
 * files of a folder or archive in no known format (on_skip; when one
 * holds JSON, on_warn gives the --map hint once at the end) and files
 * named in `paths` in no known format (each is reported through
 * on_warn: "path: skipped: why", "path: no files", "path: empty: nothing
 * to import", "path: format not recognized..." / "path: not a trajectory
 * format ktraj knows..."),
 * KT_EBUSY (after importing the rest) when another live process was
 * importing the run of a source (FORMAT.md §6.11; on_warn said which),
 * or another KT_E* code. */
int kt_import_paths(kt_store *s, char *const *paths, int npaths,
		    const kt_import_opts *opts);

/* ---- redaction ------------------------------------------------------------ */
typedef struct kt_redactor kt_redactor;
kt_redactor *kt_redactor_new(void);
void kt_redactor_free(kt_redactor *r);
/* Replace e-mails, home-directory user names, host names, secrets and tokens
 * in text with stable placeholders ("<email-1>"); malloc'ed result. */
char *kt_redact_text(kt_redactor *r, const char *text, size_t len,
		     size_t *out_len);
/* Redact every string of a JSON tree in place. */
int kt_redact_json(kt_redactor *r, cJSON *node);
/* Learn user and host names from text without redacting it, so that their
 * first mentions in a run are replaced too (call on the whole run first). */
int kt_redactor_learn(kt_redactor *r, const char *text, size_t len);

/* ---- live recording from agent hooks (hook.c) ---------------------------
 * One hook event of Claude Code ("claude-code"), Gemini CLI ("gemini-cli")
 * or a Codex notify payload ("codex") recorded as the events of the
 * session's run, each in a transaction of its own (store.h kt_record).
 * Unlike the importers these write to the store: a hook is a live
 * recorder, as `ktraj append`.  Use:
 *
 *     kt_hook h;
 *     rc = kt_hook_session(&h, "claude-code", in, nul);  // no store yet
 *     ... open the store, kt_record_run(s, h.name, h.source, h.run, ...)
 *     h.s = s;  rc = kt_hook_record(&h, in);
 *     kt_hook_free(&h);
 *
 * A call that returns non-zero with h.why set was refused for the reason
 * h.why (static text, one line, to print as it is); without h.why the code
 * is the store's (kt_record's errors).
 */
typedef struct kt_hook {
	kt_store *s;                  /* set by the caller: open for writing */
	char run[KT_RUN_ID_HEX + 1];  /* set by the caller (kt_record_run) */
	char name[300];               /* the run's name, "<agent>:<session>" */
	const char *source;           /* the run's format: claude_code_hook,
					 gemini_cli_hook, codex_notify */
	const char *agent;            /* static */
	struct cJSON *meta;           /* the new run's meta (session, cwd,
					 transcript); owned, kt_hook_free */
	const char *why;              /* out: a refusal's message, or NULL */
} kt_hook;

/*
 * Fill *h (zeroed first) for hook event `in` of `agent`: the run's name,
 * source and meta from its session id ("session_id"; Codex "thread-id").
 * nul: whether the raw text's session id holds \u0000
 * (kt_hook_key_has_nul), which cJSON would cut.  0; KT_EINVAL with h->why
 * for an unknown agent (why NULL) or an unusable session id (missing,
 * over 200 bytes, a NUL or control characters).  Call kt_hook_free after
 * either.
 */
int kt_hook_session(kt_hook *h, const char *agent, const struct cJSON *in,
		    int nul);

/* Whether `agent`'s hook records something for hook_event_name `event`
 * (Notification, PreCompact, BeforeModel... are not turns: 0). */
int kt_hook_handles(const char *agent, const char *event);

/*
 * Record hook event `in` in h's run (h->s and h->run set).  Claude Code:
 * SessionStart / SessionEnd -> note, UserPromptSubmit -> message (human),
 * PreToolUse -> tool_call, PostToolUse(Failure) -> tool_result (output
 * over 64 KiB inline is cut on a UTF-8 boundary, the whole a blob), Stop
 * -> the assistant's last message (else read from the transcript).
 * Gemini CLI: SessionStart / SessionEnd -> note, BeforeAgent -> message
 * (human), AfterTool -> tool_call and tool_result, AfterAgent -> message.
 * Codex: the turn's input messages (human) and last assistant message.
 * An event not handled records nothing (0).  Returns 0, KT_EINVAL or
 * KT_ENOMEM with h->why, or kt_record's codes.
 */
int kt_hook_record(kt_hook *h, const struct cJSON *in);

/* Free what kt_hook_session allocated (h->meta); h->s is the caller's. */
void kt_hook_free(kt_hook *h);

/*
 * Whether the string `key` of the JSON object text buf (len bytes) holds a
 * NUL, a \u0000 escape (cJSON cuts strings there, so sessions "a\u0000b"
 * and "a\u0000c" would record into one run).  0 or 1; 1 when out of
 * memory too, so the caller refuses.  buf NULL: 0.
 */
int kt_hook_key_has_nul(const char *buf, size_t len, const char *key);

#ifdef __cplusplus
}
#endif
#endif /* KT_IMPORT_H */
