/*
 * anutil.h - what the analyzer commands (blame, stalls, questions, report)
 * share: analyzer option parsing, loading a run, JSON rows for jumps and
 * stalls, confidence labels.
 */
#ifndef KT_ANUTIL_H
#define KT_ANUTIL_H
#include <stdio.h>
#include <cjson/cJSON.h>
#include "cli.h"
#include "../analyze/analyze.h"

/*
 * Parse the analyzer options of argv[1..argc) into *o (defaults first) and
 * *json (--json); every other argument is kept, in order, in pos[] (at most
 * maxpos; *npos set).  Options with a value that the command handles itself
 * (e.g. -o, --library) are given in `keep_val` (NULL-terminated) and kept in
 * pos[] together with their value.  Prints the error; returns 0 or an exit
 * code.
 */
int an_opts(struct cli *c, int argc, char **argv, kt_an_opts *o, int *json,
	    const char *const *keep_val, char **pos, int maxpos, int *npos);

/* Resolve spec and load the run (KT_AN_LOAD_* flags).  Prints the error;
 * 0 or an exit code. */
int an_load(struct cli *c, kt_store *s, const char *spec, unsigned flags,
	    kt_an_run **r);

/* JSON object for jump k (1-based "jump" number k + 1); caller deletes. */
cJSON *an_jump_json(const kt_an_run *r, const kt_an_blame *b, size_t k,
		    const kt_an_opts *o);

/* Add "excluded_by_reason": {incorrect, correctness_unknown,
 * without_time, and when not 0 without_reference (a time but no speedup
 * or reference time), failed_to_run, unparsed} (bench results a series
 * left out, kt_an_meas_excluded) to object o; returns the new object,
 * NULL when out of memory. */
cJSON *an_excluded_json(cJSON *o, const kt_an_excl *e);

/* The final summary object of `blame --json` (no "gain" key): counts,
 * thresholds, noise, the baseline; "excluded" and "excluded_by_reason". */
cJSON *an_blame_summary_json(const kt_an_run *r, const kt_an_blame *b,
			     const kt_an_opts *o);

/* JSON object for stall k ("stall" k + 1; "ended_by_jump" numbered as
 * an_jump_json numbers the jumps of the same blame; "excluded" and
 * "excluded_by_reason": bench results of the stretch the series left out);
 * caller deletes. */
cJSON *an_stall_json(const kt_an_run *r, const kt_an_stall *st, size_t k);

/* Key the run's results by o->series_by (when they are keyed otherwise)
 * and list the series keys (kt_an_workloads; *keys malloc'ed, caller
 * frees).  Prints the error; 0 or an exit code. */
int an_series_prepare(struct cli *c, kt_an_run *r, const kt_an_opts *o,
		      const char ***keys, size_t *n);

/* Open the store, load run spec and key its results (an_load,
 * an_series_prepare); with one series, o->workload is it (the same
 * results, and the key is shown).  *s, *r and *keys are set as far as it
 * got: the caller frees them on error as after success.  Prints the
 * error; 0 or an exit code. */
int an_open_series(struct cli *c, const char *spec, kt_an_opts *o,
		   kt_store **s, kt_an_run **r, const char ***keys, size_t *n);
/* an_open_series, then, when the run has one series (or none), `blame
 * speedup` of it into *b: the opening of `blame speedup` and `stalls`.
 * With several series *b stays empty and the caller blames each.  *b is
 * zeroed first, so the caller frees it with kt_an_blame_free on error as
 * after success (and *s, *r, *keys as after an_open_series).  Prints the
 * error; 0 or an exit code. */
int an_open_blamed(struct cli *c, const char *spec, kt_an_opts *o,
		   kt_store **s, kt_an_run **r, const char ***keys, size_t *n,
		   kt_an_blame *b);

/* Blame r once per workload (kt_an_blame_workloads: *b, *wl, *nb as it
 * sets them) and find each series' stalls (kt_an_stalls with o's options
 * and workload wl[i]): *st and *nst are arrays of *nb, st[i] malloc'ed
 * with nst[i] stalls.  What is set stays set on error as after success:
 * the caller releases it with an_stalls_free and
 * kt_an_blame_workloads_free.  what: the error's context ("analyzing the
 * run").  The analysis of `report` and `questions suggest`.  Prints the
 * error; 0 or an exit code. */
int an_blame_stalls(struct cli *c, kt_store *s, kt_an_run *r,
		    const kt_an_opts *o, const char *what, kt_an_blame **b,
		    const char ***wl, size_t *nb, kt_an_stall ***st,
		    size_t **nst);
/* Free what an_blame_stalls set (st, nst may be NULL). */
void an_stalls_free(kt_an_stall **st, size_t *nst, size_t nb);

/* pre, then s as cli_put_safe writes trajectory text (control
 * characters visible: a run name or workload from a trajectory must not
 * drive the terminal), then post, on stdout. */
void an_put_safe(const char *pre, const char *s, const char *post);

/* "run <id>  <name>\n", the name through an_put_safe. */
void an_put_run(const kt_an_run *r);

/* "measurements: ..." of one series: points, results, correct / not
 * checked (and why those count), the results left out by reason. */
void an_print_counts(const kt_an_series *se, const kt_an_opts *o);

/* "unparsed: N outputs looked like a benchmark but gave no time (seq
 * ...)" when the run has any (kt_an_unparsed); nothing otherwise. */
void an_print_unparsed(const kt_an_run *r);

/* Add "unparsed_seqs" (the first 64 seqs) and "unparsed" (how many
 * outputs looked like a benchmark but gave no time, kt_an_unparsed) to x;
 * x, or NULL when out of memory. */
cJSON *an_unparsed_json(cJSON *x, const kt_an_run *r);
/* Add min_detectable_gain (exp theta: a new best counts above it) and,
 * when the noise alone hides a x1.35 gain (kt_an_blind_text),
 * "undetectable_gain": 1.35 to x.  Returns x, NULL when out of memory
 * (x is the caller's still). */
cJSON *an_detect_json(cJSON *x, const kt_an_series *se, const kt_an_opts *o);
/* Add the series' model fields to x: series, sweep, ordered, results,
 * points, first (the first point's speedup: a sweep's geometric mean,
 * 1 without a reference), improvements [{step, seq, over_best (the ratio), significant, jump}: every
 * point above the best so far], correct,
 * not_checked, assume_correct, noise_sigma, noise_source, noise_kind
 * ("repeats", "spread", "default"), noise_results, noise_left_out
 * (outlying repeats not in sigma), min_detectable_gain
 * and undetectable_gain (an_detect_json), new_bests,
 * new_bests_without_change, unparsed, unparsed_seqs (the run's, at most
 * 64).  Returns x, NULL when out of memory. */
cJSON *an_series_json(cJSON *x, const kt_an_run *r, const kt_an_series *se,
		      const kt_an_opts *o);

/* Print cJSON compactly plus a newline and delete it; KT_ENOMEM on failure. */
int an_emit(FILE *f, cJSON *o);
/* o with the string member name = val added, or NULL when o is NULL or
 * adding fails (o deleted): what an_emit takes, which reports the NULL as
 * KT_ENOMEM.  The rows of a run of several series name theirs so. */
cJSON *an_with_str(cJSON *o, const char *name, const char *val);

/* Round to 4 decimals (stable, readable JSON numbers). */
double an_r4(double x);

#endif
