/*
 * replay.h - re-executing a recorded step: the bundle that carries it to
 * another machine (writer replay/bundle.c; its result.json comes back
 * through the "replay_result" importer, replay/result_import.c), running
 * one here under limits (replay/replay.c) and judging the result
 * (replay/judge.c).
 *
 * Untrusted code from a trajectory runs only through kt_replay_step, only
 * when the user asks (`ktraj replay`), under bubblewrap with the limits
 * below (replay/sandbox.h), or with the limits alone when the user asks
 * for no sandbox.
 *
 * Module order (Makefile LIB_DIRS): store <- import <- replay <- export;
 * replay/ includes nothing of export/ or cli/ and prints nothing.
 *
 * Layout of a bundle OUT.tar.gz (every name relative, no "..", no links):
 *   ktraj-bundle/manifest.json   run, seq, kind, commands, source hashes,
 *                                recorded toolchain and GPU fingerprint,
 *                                expected results and tolerances, missing
 *   ktraj-bundle/run.sh          the one entry script (sh); writes
 *                                ktraj-bundle/result.json
 *   ktraj-bundle/result.c        turns the captured output into result.json
 *                                (built by run.sh with cc; no other tools)
 *   ktraj-bundle/workspace/...   the workspace reconstructed at the step
 *   ktraj-bundle/harness/, kernels/  for harness steps (`ktraj bench`)
 *
 * result.json is accepted by `ktraj import` (format "replay_result") and
 * recorded as a `replay` event on the original step.
 */
#ifndef KT_REPLAY_H
#define KT_REPLAY_H
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include "../store/store.h"

/* The one top folder of a bundle. */
#define KT_REPLAY_BUNDLE_DIR "ktraj-bundle"

/* ---- bundle (replay/bundle.c) ---------------------------------------------- */

/*
 * Write the self-contained replay bundle of step `seq` of `run` (32 hex) to
 * out_path (a gzip-compressed tar; zstd for a name ending .tar.zst or .tzst,
 * none for .tar, the members in the directory for a name ending "/";
 * replaced, removed again on failure).
 * Returns 0, or with a one-line reason in err: KT_ENOTFOUND (no such
 * event), KT_EINVAL (the event is not a compile, bench or shell tool call,
 * or its harness sources are not found: set KTRAJ_SRC), KT_ENOMEM, KT_EIO
 * (writing), or the store's codes.
 */
int kt_replay_bundle_write(kt_store *s, const char *run, uint64_t seq,
			   const char *out_path, char *err, size_t errlen);

/* ---- running (replay/replay.c) ------------------------------------------- */

typedef struct kt_replay_limits {
	unsigned timeout_s;   /* wall clock, default 600 */
	unsigned cpu_s;       /* RLIMIT_CPU, default 1200 */
	uint64_t mem_bytes;   /* RLIMIT_AS per process, default 16 GiB
				 (RLIMIT_DATA for GPU steps: the CUDA driver
				 reserves huge address space) */
	uint64_t file_bytes;  /* RLIMIT_FSIZE: largest file it may write,
				 default 4 GiB */
	int allow_network;    /* 0: a new network namespace */
	uint64_t output_bytes; /* all it may write (its tmpfs), 0: mem/2 */
	unsigned max_procs;   /* processes in the sandbox, 0: 256 */
	int no_sandbox;       /* 1: without bubblewrap, limits only */
	int gpu;              /* 1: the GPU profile whatever the step is
				 (kt_sandbox_needs_gpu decides otherwise) */
	uint64_t cache_max;   /* bytes the cache dir may hold, 0: no cap */
} kt_replay_limits;

/*
 * Export the bundle of (run, seq) into memory (a gzip tar in a memfd: no
 * temp dir for a kill -9 to leave), run it in the sandbox (replay/sandbox.h;
 * without it when lim->no_sandbox) and judge it.  *out gets the payload of
 * the `replay` event to record on the step (parent = seq; caller records
 * and frees it): step, verdict, reason, results, expected, missing, gpu,
 * network_isolated, isolation (what kt_sandbox_run applied).  Nothing is
 * written to the store.  `cache_dir` (may be NULL) is passed to the bundle
 * as KTRAJ_CACHE so compiled binaries are reused by source hash.
 * Errors: the KT_E* of kt_replay_bundle_write and kt_sandbox_plain_tar
 * (KT_ECORRUPT also when the bundle has no readable manifest); those of
 * kt_sandbox_run (KT_ENOTFOUND: bubblewrap is not installed; KT_ECHILD:
 * the sandbox did not start); KT_EIO (no memory file); KT_EPARSE (err
 * says which field) when the payload taken from the bundle's files fails
 * the replay event's type check (store/event_model.h); a step that ran and
 * failed is not an error (verdict "failed").
 */
int kt_replay_step(kt_store *s, const char *run, uint64_t seq,
		   const kt_replay_limits *lim, const char *cache_dir,
		   cJSON **out, char *err, size_t errlen);

/* ---- plans (replay/plan.c): many steps run by an engine the user has ---- */

/* A step of a plan: run (32 hex) and seq. */
typedef struct kt_replay_plan_step {
	char run[KT_RUN_ID_HEX + 1];
	uint64_t seq;
} kt_replay_plan_step;

/* What the job scripts of a plan ask the engine for. */
typedef struct kt_replay_plan_opts {
	unsigned array_max;     /* Slurm array concurrency (%M); 0: none */
	unsigned array_size;    /* most tasks in one array job (0: 1000).
				   Slurm refuses an array index at or past
				   MaxArraySize (default 1001): a group of
				   more tasks is split into array jobs of
				   this size, submitted by DIR/submit.sh */
	unsigned cpus_per_task; /* 0: 1 */
	unsigned timeout_s;     /* a step's wall-clock limit; the job's time
				   limit is this plus 5 minutes (0: 600 s) */
	uint64_t mem_bytes;     /* the tasks' --mem and --max-output
				   (kt_replay_limits); 0: no memory request */
	uint64_t output_bytes;  /* (0: half of mem_bytes).  The Slurm scripts
				   ask for the step's cgroup limit (mem +
				   output), the bundle held in memory (output
				   / 2) and 256 MiB for ktraj and bubblewrap,
				   so the step meets its own limit before the
				   job's (`sbatch --mem=...` overrides it) */
	const char *task_args;  /* appended to every `replay --task DIR N`
				   line of the scripts as given (the limits
				   options, already quoted for sh), or NULL */
	/* Given: a step that has nothing to replay (its bundle is refused
	 * with KT_EINVAL: no shell command, not a compile or bench step) is
	 * left out of the plan, listed in plan.json's "skipped" and passed
	 * here with the reason, as `replay RUN --all-bench` goes on past
	 * it.  NULL: such a step fails the plan. */
	void (*skipped)(void *ctx, const char *run, uint64_t seq, const char *why);
	void *skipped_ctx;
} kt_replay_plan_opts;

/*
 * Write a replay plan of steps[0..n) into dir (created with mode 0755; a
 * dir that exists is refused, so nobody else's links or files are in it): one bundle per step, plan.json, Slurm array scripts (one
 * for the CPU steps, one with --gres=gpu:1 for the GPU steps), the task
 * lists they read and local.sh (xargs -P).  Every script runs
 * `KTRAJ replay --task DIR N`, KTRAJ the path given as ktraj (the
 * environment's $KTRAJ wins).  Layout: replay/plan.c.  Errors, with a
 * one-line reason in err: KT_EEXIST (dir exists), KT_ENOTFOUND (every
 * step was skipped, see o->skipped: nothing to plan), KT_EINVAL (dir's
 * absolute path holds a line break or a backslash, which no #SBATCH line
 * can spell; nothing is left behind), KT_EIO, KT_ENOMEM,
 * and those of kt_replay_bundle_write (the reason names run and step).
 */
int kt_replay_plan_write(kt_store *s, const kt_replay_plan_step *steps,
			 size_t n, const char *dir, const char *ktraj,
			 const kt_replay_plan_opts *o, char *err, size_t errlen);

/*
 * Read and check dir/plan.json: tasks numbered 0.. in order, each with a
 * run (32 lowercase hex), a step (>= 1) and a bundle under bundles/ (no
 * other path).  *plan is the
 * document (caller frees).  Errors: KT_ENOTFOUND (no plan.json), KT_EIO,
 * KT_EPARSE (not a plan; err says so).
 */
int kt_replay_plan_load(const char *dir, cJSON **plan, char *err, size_t errlen);

/*
 * Run task `task` of the plan in dir: its bundle in the sandbox under lim
 * (as kt_replay_step), then write dir/results/NNNNNN.json (the bundle's
 * result.json, which `ktraj import` records as a replay event) or, when the
 * step gave none, dir/results/NNNNNN.err saying why.  Returns 0 when the
 * task ran, whatever the step did; KT_ENOTFOUND (no such task, or
 * bubblewrap missing), KT_EPARSE (no plan), KT_ECORRUPT (a bundle without
 * a manifest), KT_ECHILD (the sandbox did not start), KT_EIO, KT_ENOMEM.
 */
int kt_replay_task_run(const char *dir, unsigned task, const kt_replay_limits *lim,
		       const char *cache_dir, char *err, size_t errlen);

/* ---- judging (replay/judge.c): pure functions over JSON, no I/O ---------- */

#define KT_REPLAY_REPRODUCED "reproduced"
#define KT_REPLAY_FASTER "faster"
#define KT_REPLAY_SLOWER "slower"
#define KT_REPLAY_DIVERGED "diverged"
#define KT_REPLAY_FAILED "failed"

/*
 * Judge a replay: `kind` is the step's kind (enum kt_kind), `manifest` the
 * bundle manifest (expectations, missing files, fingerprint), `result` the
 * bundle's result.json (NULL when the bundle produced none), `gpu_here` the
 * name of the replaying machine's GPU or NULL (then result's "gpu" is used).
 * Returns a static verdict string (KT_REPLAY_*) and writes a one-line
 * reason (causes joined by "; ").
 *
 * Rules: compile and shell steps compare exit status (the same success or
 * the same failure reproduces; failing where the recording succeeded is
 * `failed`, the reverse `diverged`); bench steps compare correctness first
 * (a different answer is `diverged`), then the median against the recorded
 * one with a band of max(manifest noise_band, the recorded spread
 * (max-min)/2/median, 3 %): inside is `reproduced`, below `faster`, above
 * `slower`; no result at all is `failed`.
 */
const char *kt_replay_judge(int kind, const cJSON *manifest,
			    const cJSON *result, const char *gpu_here,
			    char *reason, size_t len);

/* The measured bench result in a replay's output that matches the recorded
 * scenario (harness NDJSON rows first, then benchmark text patterns), or
 * NULL.  New tree; caller frees. */
cJSON *kt_replay_measured(const cJSON *manifest, const cJSON *result);

/* ---- the result importer (replay/result_import.c) ------------------------ */
/*
 * Give import/'s importer table replay/'s importer, "replay_result" (a
 * bundle's result.json, recorded as a replay event on its step): the table
 * keeps its place by name, since import/ is below replay/ and may not call
 * it (import/registry.c).  A program that imports result.json files calls
 * it once before importing (cli/main.c does, first thing); again is
 * harmless.  0, or KT_ENOTFOUND when the table keeps no place for it.
 */
int kt_replay_register(void);
#endif
