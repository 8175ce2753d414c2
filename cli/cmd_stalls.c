/*
 * cmd_stalls.c - `ktraj stalls RUN`: stretches of attempts (or tool
 * calls) without a significant new best, with the layer the agent worked in
 * and the claim it kept repeating (analysis.md 2.7).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "anutil.h"
#include "outfmt.h"

static const char usage[] =
	"usage: ktraj stalls RUN [--json] [--patience N] [--stall-calls N]\n"
	"                        [--min-gain X] [--z Z] [--series-by FIELDS]\n"
	"                        [--assume-correct] [--noise SIGMA]\n"
	"\n"
	"Stretches of --patience (4) or more attempts of one series, or of\n"
	"--stall-calls (40) or more tool calls over 2 or more attempts, in which\n"
	"the best so far grows by no more than the threshold of `blame speedup`\n"
	"in total: a stretch ends at a jump, or where small gains add up to more\n"
	"than the threshold (a run that improved is not stalled).  A series is\n"
	"successive attempts at one workload, scenario and metric (--series-by,\n"
	"as in `blame speedup`); a sweep of one candidate over many scenarios is\n"
	"one attempt, and a re-run of unchanged code under test (no edit of it:\n"
	"FORMAT.md section 14 \"Code under test\") is a repeat, no attempt.  Each\n"
	"stall names its length (measurements and attempts), step range, the\n"
	"layer of the agent's messages there and the claim it repeated most\n"
	"(\"memory-bound at 87 % of peak\"; a memory claim with memory figures\n"
	"only).  Stalls are numbered within their series and \"ended by jump N\" is\n"
	"jump N of that series in `blame speedup`.  Bench results left out within\n"
	"a stall (incorrect, not checked, failed to run, without a time, without\n"
	"a speedup or reference time, benchmark output with no readable time) are\n"
	"counted.\n"
	"--json: one object per stall: length, attempts, from_step, to_step,\n"
	"from_seq, to_seq, tool_calls, layer, claim, claim_count, claim_seq,\n"
	"gain, ended, ended_by_jump, excluded, excluded_by_reason {incorrect,\n"
	"correctness_unknown, without_time[, without_reference, failed_to_run,\n"
	"unparsed]}, min_detectable_gain (a gain counts above it),\n"
	"undetectable_gain (1.35, when the series' noise hides a x1.35 gain),\n"
	"series (and workload,\n"
	"the same key, in a run of several); then, stall or not, one summary\n"
	"object per series: summary (\"stalls\"), run, series, noise_sigma,\n"
	"noise_source, min_detectable_gain, undetectable_gain (as above),\n"
	"stalls (how many) and stalled (true when one or more), so a series\n"
	"whose noise hides a x1.35 gain is flagged even without a stall.\n";

/* The per-series summary of --json: without it a series that never
 * stalled left no row, and its noise warning was in the text only. */
static cJSON *summary_json(const kt_an_run *r, const kt_an_series *se,
			   const kt_an_opts *o, size_t n)
{
	cJSON *x = cJSON_CreateObject();

	if (!x)
		return NULL;
	if (!cJSON_AddStringToObject(x, "summary", "stalls") ||
	    !cJSON_AddStringToObject(x, "run", r->id) ||
	    !cJSON_AddStringToObject(x, "series", se->key) ||
	    !cJSON_AddNumberToObject(x, "noise_sigma", an_r4(se->sigma)) ||
	    !cJSON_AddStringToObject(x, "noise_source", se->noise_src) ||
	    !an_detect_json(x, se, o) ||
	    !cJSON_AddNumberToObject(x, "stalls", (double)n) ||
	    !cJSON_AddBoolToObject(x, "stalled", n > 0)) {
		cJSON_Delete(x);
		return NULL;
	}
	return x;
}

/* Stall st (number num); `wl` (NULL for a run of one workload) labels it. */
static void print_stall(const kt_an_run *r, const kt_an_stall *st, size_t num,
			const char *wl)
{
	const kt_an_stall *x = st;

	char rep[64] = "";

	/* repeats of unchanged code are measurements, not attempts */
	if (x->attempts != x->length)
		snprintf(rep, sizeof(rep), " (%zu attempts)", x->attempts);
	printf("STALL %zu%s%s%s  steps %zu..%zu (seq %llu..%llu)  length %zu "
	       "measurements%s, %u tool calls, best so far x%.3f over the "
	       "stretch%s\n", num,
	       wl ? " [" : "", wl ? wl : "", wl ? "]" : "", x->p_first + 1,
	       x->p_last + 1, (unsigned long long)x->seq_first,
	       (unsigned long long)x->seq_last, x->length, rep, x->calls,
	       x->gain,
	       x->ended == KT_AN_STALL_END ? "  (still stalled at the end)" :
	       x->ended == KT_AN_STALL_GAIN ? "  (ended by small gains adding "
	       "up past the threshold)" : "");
	printf("  layer of the agent's messages: %s\n",
	       kt_an_layer_name(x->layer));
	if (x->claim[0])
		printf("  kept claiming: \"%s\" (%d message%s, e.g. #%llu)\n",
		       x->claim, x->claim_count,
		       x->claim_count == 1 ? "" : "s",
		       (unsigned long long)(x->claim_ev >= 0 ?
					    r->ev[x->claim_ev].seq : 0));
	else
		printf("  no repeated performance claim\n");
	if (kt_an_excl_total(&x->ex)) {
		struct kt_buf t = { 0 };

		if (!kt_an_excl_text(&t, &x->ex))
			printf("  bench results left out there: %s\n", t.s);
		kt_buf_free(&t);
	}
	/* the jump numbers of `blame speedup`: within the workload */
	if (x->ended_by_jump >= 0)
		printf("  ended by jump %ld%s%s%s\n", x->ended_by_jump + 1,
		       wl ? " [" : "", wl ? wl : "", wl ? "]" : "");
}

/* The noise behind the threshold, correctness and order of series se. */
static void print_model(const kt_an_series *se, const kt_an_opts *o,
			const char *ind)
{
	char nb[256];

	printf("%snoise: %.2f %% per measurement (%s)\n", ind, 100 * se->sigma,
	       kt_an_noise_text(se, nb, sizeof(nb)));
	if (kt_an_blind_text(se, o, nb, sizeof(nb)))
		an_put_safe(ind, nb, "\n");
	printf("%s", ind);
	an_print_counts(se, o);
	if (se->unordered)
		printf("%sorder: none (no timestamp, edit or tool call): a table, "
		       "not successive attempts; no stall is read from it\n", ind);
}

/* A run of several workloads: the stalls of each workload's own series
 * (kt_an_opts.workload), labelled with it. */
static int stalls_multi(struct cli *c, kt_store *s, kt_an_run *r,
			const kt_an_opts *o0, int json, const char **wl,
			size_t nw)
{
	kt_an_opts o = *o0;
	size_t i, k, tot = 0;
	int rc = 0;

	for (i = 0; i < nw && !rc; i++) {
		kt_an_blame b;
		kt_an_stall *st = NULL;
		size_t n = 0;
		const char *name = kt_an_key_name(wl[i]);

		o.workload = wl[i];
		if ((rc = kt_an_blame_run(s, r, &o, &b)))
			return cli_store_err(c, s, rc, "analyzing the run");
		if ((rc = kt_an_stalls(r, &b, &o, &st, &n))) {
			kt_an_blame_free(&b);
			return cli_store_err(c, s, rc, "analyzing the run");
		}
		if (!json && !i) {
			an_put_run(r);
			printf("%zu series, each read on its own (a stall is "
			       "found within one workload, scenario and metric); "
			       "a stall is >= %d attempts or >= %d tool calls "
			       "without a gain above that series' threshold (a "
			       "re-run of unchanged code is no attempt)\n",
			       nw, o.stall_rounds, o.stall_calls);
			an_print_unparsed(r);
			printf("\n");
		}
		if (!json && (n || b.series.n >= 2)) {
			an_put_safe("series ", name, ":\n");
			print_model(&b.series, &o, "  ");
		}
		tot += n;
		for (k = 0; k < n && !rc; k++) {
			if (json) {
				cJSON *j = an_with_str(an_stall_json(r, &st[k],
						k), "workload", wl[i]);

				if (j && !an_detect_json(j, &b.series, &o)) {
					cJSON_Delete(j);
					j = NULL;
				}

				if ((rc = an_emit(stdout, an_with_str(j,
						"series", wl[i]))))
					rc = cli_err(c, "out of memory");
			} else {
				/* numbered within the workload, as --json */
				print_stall(r, &st[k], k + 1, name);
			}
		}
		if (json && !rc && an_emit(stdout, an_with_str(summary_json(r,
				&b.series, &o, n), "workload", wl[i])))
			rc = cli_err(c, "out of memory");
		free(st);
		kt_an_blame_free(&b);
	}
	if (!rc && !json && !tot)
		printf("no stall within any series\n");
	return rc;
}

int cmd_stalls(struct cli *c, int argc, char **argv)
{
	kt_an_opts o;
	kt_store *s = NULL;
	kt_an_run *r = NULL;
	kt_an_blame b = {0};
	kt_an_stall *st = NULL;
	size_t n = 0;
	char *pos[2];
	int json, npos, rc;
	const char **wl = NULL;
	size_t nw = 0;

	if (cli_wants_help(argc, argv, usage))
		return 0;
	rc = an_opts(c, argc, argv, &o, &json, NULL, pos, 2, &npos);
	if (rc)
		return rc;
	if (npos != 1)
		return cli_usage(c, "expected `stalls RUN`");
	o.permutations = 0; /* no baseline needed here */
	if ((rc = an_open_blamed(c, pos[0], &o, &s, &r, &wl, &nw, &b)))
		goto out;
	if (nw > 1) {
		rc = stalls_multi(c, s, r, &o, json, wl, nw);
		goto out;
	}
	if ((rc = kt_an_stalls(r, &b, &o, &st, &n))) {
		rc = cli_store_err(c, s, rc, "analyzing the run");
		goto out;
	}
	if (json) {
		for (size_t k = 0; k < n && !rc; k++) {
			cJSON *j = an_stall_json(r, &st[k], k);

			if (j && !an_detect_json(j, &b.series, &o)) {
				cJSON_Delete(j);
				j = NULL;
			}
			rc = an_emit(stdout, an_with_str(j, "series",
							 b.series.key));
		}
		if (!rc)
			rc = an_emit(stdout, summary_json(r, &b.series, &o, n));
		if (rc)
			rc = cli_err(c, "out of memory");
		goto out;
	}
	an_put_run(r);
	if (*b.series.key)
		printf("series: %s\n", b.series.key);
	an_print_unparsed(r);
	printf("%zu measurement%s%s; a stall is >= %d attempts or >= %d "
	       "tool calls without a gain above x%.3f in total (a re-run of "
	       "unchanged code is no attempt)\n", b.series.n,
	       b.series.n == 1 ? "" : "s", b.series.sweep ? " (sweeps)" : "",
	       o.stall_rounds, o.stall_calls, exp(b.series.theta));
	print_model(&b.series, &o, "");
	printf("\n");
	if (!n)
		printf("no stall\n");
	for (size_t k = 0; k < n; k++)
		print_stall(r, &st[k], k + 1, NULL);
out:
	free(wl);
	free(st);
	kt_an_blame_free(&b);
	kt_an_run_free(r);
	kt_store_close(s);
	return rc;
}
