/*
 * replay.h - re-executing a recorded step and judging the result.
 *
 * Untrusted code from a trajectory runs only here, only when the user asks
 * (`ktraj replay`), under bubblewrap with the limits below
 * (replay/sandbox.h), or with the limits alone when the user asks for no
 * sandbox.
 */
#ifndef KT_REPLAY_H
#define KT_REPLAY_H
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include "../store/store.h"

#include "../import/replay_judge.h"

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
} kt_replay_limits;

/*
 * Export the bundle of (run, seq) into memory, run it in the sandbox
 * (replay/sandbox.h; without it when lim->no_sandbox), judge it, and
 * record a `replay` event (parent = the step) in the run.  *out gets the replay payload (caller frees): step, verdict, reason,
 * results.  `cache_dir` (may be NULL) is passed to the bundle as
 * KTRAJ_CACHE so compiled binaries are reused by source hash.
 * Errors: the KT_E* of exporting or recording; those of kt_sandbox_run
 * (KT_ENOTFOUND: bubblewrap is not installed; KT_ECHILD: the sandbox did
 * not start); KT_EPARSE (nothing recorded, err says which field) when the payload taken from the bundle's
 * files fails the replay event's type check (import/schema.h); a step that
 * ran and failed is not an error (verdict "failed").
 */
int kt_replay_step(kt_store *s, const char *run, uint64_t seq,
		   const kt_replay_limits *lim, const char *cache_dir,
		   cJSON **out, char *err, size_t errlen);
#endif
