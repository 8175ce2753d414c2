/*
 * replay_int.h - inside replay/: a recorded step as the bundle writer
 * understands it.  Not for other modules (replay.h is the contract).
 */
#ifndef KT_REPLAY_INT_H
#define KT_REPLAY_INT_H
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include "replay.h"
#include "sandbox.h"

/* What a step is, as replay understands it. */
typedef struct kt_replay_target {
	uint64_t seq;          /* the step asked for */
	int kind;              /* its kind */
	uint64_t call;         /* the tool_call seq it comes from, 0 none */
	char *command;         /* shell command to run (malloc'ed) */
	char *build;           /* for a bench step of an imported session: the
				  last successful build command before it, run
				  first because the workspace holds sources,
				  not binaries (malloc'ed or NULL) */
	char *cwd;             /* recorded cwd or NULL (malloc'ed) */
	char *root;            /* workspace root on the recording host */
	cJSON *payload;        /* the step's payload (owned) */
	cJSON *expect;         /* expected results (owned; see manifest) */
	int harness;           /* 1 when the step is a `ktraj bench` run */
} kt_replay_target;

/* Resolve (run, seq) into a step.  Errors: KT_ENOTFOUND, KT_EINVAL (the
 * event is not a compile, bench or shell tool call; err says why). */
int kt_replay_target_load(kt_store *s, const char *run, uint64_t seq,
			  kt_replay_target *st, char *err, size_t errlen);
void kt_replay_target_release(kt_replay_target *st);

/* Rewrite host paths in text: the workspace root becomes "." and home
 * directories "$HOME"; malloc'ed. */
char *kt_replay_unhost(const char *text, const char *root);

/* What a bundle may expand to before the sandbox (kt_sandbox_plain_tar's
 * max_bytes): the workspace it is unpacked into, half of the step's
 * output bytes (--max-output, else half of --mem); 0 (no cap) when neither
 * is set. */
uint64_t kt_replay_bundle_cap(const kt_replay_limits *lim);

/* The sandbox spec of a step replayed under lim: the limits, the GPU
 * profile (lim->gpu, or what kt_sandbox_needs_gpu reads in the manifest),
 * the cache, the bundle's folder (replay.c; used by kt_replay_step and the
 * plan tasks). */
void kt_replay_spec(kt_sandbox_spec *sp, const kt_replay_limits *lim,
		    const cJSON *manifest, const char *cache_dir);

#endif
