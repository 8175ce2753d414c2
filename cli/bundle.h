/*
 * bundle.h - replay bundles: what a recorded step needs to run again on a
 * machine that has only a C compiler and the CUDA Toolkit.
 *
 * Layout of OUT.tar.zst (every name relative, no "..", no links):
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
#ifndef KT_BUNDLE_H
#define KT_BUNDLE_H
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include "../store/store.h"

#define KT_BUNDLE_DIR "ktraj-bundle"

/* What a step is, as replay understands it. */
typedef struct kt_step {
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
} kt_step;

/* Resolve (run, seq) into a step.  Errors: KT_ENOTFOUND, KT_EINVAL (the
 * event is not a compile, bench or shell tool call; err says why). */
int kt_step_load(kt_store *s, const char *run, uint64_t seq, kt_step *st,
		 char *err, size_t errlen);
void kt_step_release(kt_step *st);

/* Rewrite host paths in text: the workspace root becomes "." and home
 * directories "$HOME"; malloc'ed. */
char *kt_bundle_unhost(const char *text, const char *root);
#endif
