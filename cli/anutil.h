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

/* "high" / "medium" / "low" (analysis.md 2.6(c)4). */
const char *an_conf_label(const kt_an_jump *j, const kt_an_opts *o);

/* JSON object for jump k (1-based "jump" number k + 1); caller deletes. */
cJSON *an_jump_json(const kt_an_run *r, const kt_an_blame *b, size_t k,
		    const kt_an_opts *o);

/* Add "excluded_by_reason": {incorrect, correctness_unknown,
 * without_time} (bench results a series left out, kt_an_meas_excluded) to
 * object o; returns the new object, NULL when out of memory. */
cJSON *an_excluded_json(cJSON *o, size_t incorrect, size_t unknown,
			size_t notime);

/* The final summary object of `blame --json` (no "gain" key): counts,
 * thresholds, noise, the baseline; "excluded" and "excluded_by_reason". */
cJSON *an_blame_summary_json(const kt_an_run *r, const kt_an_blame *b,
			     const kt_an_opts *o);

/* JSON object for stall k ("stall" k + 1; "ended_by_jump" numbered as
 * an_jump_json numbers the jumps of the same blame; "excluded" and
 * "excluded_by_reason": bench results of the stretch the series left out);
 * caller deletes. */
cJSON *an_stall_json(const kt_an_run *r, const kt_an_stall *st, size_t k);

/* Print cJSON compactly plus a newline and delete it; KT_ENOMEM on failure. */
int an_emit(FILE *f, cJSON *o);

/* Round to 4 decimals (stable, readable JSON numbers). */
double an_r4(double x);

/* The run test of b in one line (no newline) into buf: S, the new bests
 * and questions it used, the effect size and p, or "p: not computed" and
 * why.  Used by blame and report alike. */
void an_runtest_line(const kt_an_blame *b, char *buf, size_t n);
#endif
