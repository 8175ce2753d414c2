/*
 * replay_judge.h - the verdict of a replayed step (see cli/replay.h for how
 * a replay runs).  Pure functions over JSON: no I/O.
 */
#ifndef KT_REPLAY_JUDGE_H
#define KT_REPLAY_JUDGE_H
#include <stddef.h>
#include <cjson/cJSON.h>

#define KT_V_REPRODUCED "reproduced"
#define KT_V_FASTER "faster"
#define KT_V_SLOWER "slower"
#define KT_V_DIVERGED "diverged"
#define KT_V_FAILED "failed"

/*
 * Judge a replay: `kind` is the step's kind (enum kt_kind), `manifest` the
 * bundle manifest (expectations, missing files, fingerprint), `result` the
 * bundle's result.json (NULL when the bundle produced none), `gpu_here` the
 * name of the replaying machine's GPU or NULL (then result's "gpu" is used).
 * Returns a static verdict string and writes a one-line reason (causes
 * joined by "; ").
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
#endif
