/*
 * cmd_blame.c - `ktraj blame speedup RUN`: the speedup jumps of a run, the
 * edits between the last measurement below and the first above each, the
 * question (or the agent alone) that preceded them, the agent's own
 * hypothesis, and a permutation baseline for the whole claim.  The method
 * and its defaults are in analyze/analyze.h and analyze/blame.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "anutil.h"
#include "outfmt.h"

static const char usage[] =
	"usage: ktraj blame speedup RUN [--json] [--min-gain X] [--z Z] [--seed N]\n"
	"                               [--permutations N] [--window CALLS] [--merge N]\n"
	"                               [--noise SIGMA] [--series-by FIELDS]\n"
	"                               [--assume-correct]\n"
	"\n"
	"Find the significant jumps of a run's best-so-far speedup and blame each:\n"
	"the edits between the last measurement below and the first above it (a\n"
	"result left out, an incorrect one say, is no measurement: the edits\n"
	"before it count too), the question before them (human, or a library\n"
	"question the agent applied) scored on lag, text overlap with the edits\n"
	"and the agent's next messages, and layer match - or \"agent alone\" when\n"
	"none fits - and the agent's own hypothesis right before the responsible\n"
	"edit.\n"
	"\n"
	"Series (FORMAT.md \"Measurement model\"): results are grouped by the bench\n"
	"fields workload, scenario, metric and baseline (--series-by picks the\n"
	"fields, comma separated); results of different keys are never compared\n"
	"and each key is blamed on its own series (--json: a \"series\" key on\n"
	"every object, one summary per series).  One candidate measured over\n"
	"several scenarios at one step is a sweep: one point, its geomean,\n"
	"compared scenario by scenario with the best sweep before it (a line\n"
	"per scenario: before -> after, gain; --json's summary \"sweeps\").\n"
	"\n"
	"A new best counts when its gain over the running best of the series is\n"
	"above max(--min-gain, Z x noise), noise being the SD of the log-ratio of\n"
	"two measurements (default --min-gain 1.05, --z 3), and is a jump only\n"
	"when an edit (or another candidate / source hash) lies between it and\n"
	"the measurement before.  A tree search's child (a bench whose parent\n"
	"is another bench: import --map parent) is compared with the best of\n"
	"its own parent chain, not with a sibling branch (\"over its branch's\n"
	"best\", then the series' best so far and the gain over it).\n"
	"New bests at most --merge N (2) measurements apart with no question,\n"
	"edit or other candidate between them are one jump (the same code\n"
	"measured again).  Noise, in this order: (1) the\n"
	"pooled SD s of repeats of unchanged code (same source hash, or no\n"
	"hash and no edit between them in a run that records edits; 2 or more\n"
	"degrees of freedom nu), as s / c4(nu) (c4 corrects s's low bias with\n"
	"few repeats); (2) repeats of the reference timing, the same s / c4(nu)\n"
	"x sqrt 2 for a ratio (series with a reference, not sweeps); in both, a\n"
	"group's one repeat beyond Student's t(0.9995) from the others is left\n"
	"out (a cold start);\n"
	"(3) the spread the results report, median ln(max/min)/4 over results\n"
	"with max > min when at least half report one, at most 10 %; (4) --noise\n"
	"(0.03).  Never below 0.5 %; the output says which source, and warns\n"
	"when the noise alone hides a x1.35 gain (Z x noise x sqrt 2 >= ln 1.35:\n"
	"7.07 % at Z 3).\n"
	"Speedup is reference time / kernel time, or relative\n"
	"to the first result without a reference.  Incorrect results never count;\n"
	"results whose correctness was not checked count only when no result of\n"
	"the series was checked correct, or with --assume-correct, and are shown\n"
	"as \"not checked\".  Benchmark output with no readable time is counted\n"
	"and listed.\n"
	"When a bench output printed several metrics (speedup_vs_compile and\n"
	"speedup_vs_eager), a \"graded metric:\" line says, once per series,\n"
	"which one the series follows and why (named by the verifier, the\n"
	"baseline the task names, or the first printed) and what else was\n"
	"printed (--json summary: graded_metric, null when one was printed).\n"
	"A jump whose result is suspicious says so: \"(suspicious: flagged\n"
	"suspicious by the verifier)\" (a verifier's or reward.json's flags), or\n"
	"\"(suspicious: under 1 us and not checked)\": a time under 1 microsecond\n"
	"whose correctness is unknown usually means the kernel did no work or the\n"
	"timing missed it (--json: suspicious, suspicious_why).  A sweep holding\n"
	"such a result says so on its line, and the series summary counts them\n"
	"all, jumps or not: \"suspicious: N results (seq ...)\" (--json summary:\n"
	"suspicious, the count, and suspicious_seqs).\n"
	"\n"
	"The run test asks whether gains follow questions more closely than\n"
	"chance: S sums, over every new best, its log gain times exp(-lag/15)\n"
	"to the nearest question before the change; p compares S with the\n"
	"questions placed at random (--permutations, 2000; --seed 1;\n"
	"randomized ties, so p is uniform when questions do not matter) and the\n"
	"effect is S over its mean by chance.  A question grown from another\n"
	"series' record (its parent is a bench of another workload: a tree\n"
	"log's record, import --map parent) is not one of this series'\n"
	"questions, nor a candidate for its jumps.  A run without tool calls\n"
	"(a round log) has no circular shift p (nothing to shift over), and its\n"
	"lags are in messages only: every lag in calls is 0, so the run test\n"
	"uses the message scale alone (p and S from it; --json has\n"
	"lag_scale_messages and one lag_scales entry) and a jump's question\n"
	"gives its lag in messages (and minutes), not tool calls.\n"
	"--permutations 0 skips the test.\n"
	"The same input and seed give byte-identical output.\n"
	"\n"
	"--json: one object per jump (run, series, from_seq, to_seq, from_step,\n"
	"to_step, best_step, best_seq, over_branch, series_best_step,\n"
	"series_best_seq and series_gain (the series' best so far and the gain\n"
	"over it: best_step and gain unless over_branch), to_log_step and\n"
	"best_log_step (a round log's own step names, import --map `step`;\n"
	"null when none: the text says them on an \"in the log:\" line),\n"
	"suspicious, suspicious_why, before, after, gain, correctness, edits,\n"
	"files, edits_before_output (true when the jump's two results were\n"
	"printed by one output, a table of variants, and declare different\n"
	"candidates: its edits are those before that output, since the\n"
	"series' last result of an earlier one; the text says \"edits (before\n"
	"this benchmark run, which measured candidate C ...)\"), attribution\n"
	"(\"question\", \"idea\": a person's statement its bench declares it\n"
	"tried, or \"agent alone\"), question {seq, text, origin, layer,\n"
	"lag_calls, lag_min, p, ...}, confidence, hypothesis {seq, text,\n"
	"layer}, candidates),\n"
	"then one summary object per series (no \"gain\"; series, sweep, sweeps\n"
	"[{sweep, seq_first, seq_last, results, scenarios, geomean_speedup,\n"
	"index, best_sweep_before, gain_over_best, scenarios_compared,\n"
	"by_scenario [{scenario, speedup or time_ms, before, gain}]}], results,\n"
	"correct, not_checked, noise_sigma, noise_source, noise_kind,\n"
	"min_detectable_gain (a new best counts above it), undetectable_gain (1.35,\n"
	"when the noise hides a x1.35 gain), unparsed,\n"
	"\"excluded\" and \"excluded_by_reason\" {incorrect, correctness_unknown,\n"
	"without_time[, without_reference (a time but no speedup or reference\n"
	"time), failed_to_run, unparsed]}).\n";

static void print_text(const char *label, const char *t)
{
	char line[404];

	cli_oneline(t, 400, line);
	printf("%s\"%s\"\n", label, line);
}

/* Jump k of b; `wl` (NULL for a run of one workload) labels it. */
static void print_jump(const kt_an_run *r, const kt_an_blame *b, size_t k,
		       const kt_an_opts *o, size_t num, const char *wl)
{
	const kt_an_jump *j = &b->jump[k];

	/* the best it is compared with: the running best, or its
	 * own branch's (a tree search's child) */
	size_t bs = b->series.pt[j->p_land].base_pt;
	int br = b->series.pt[j->p_land].branch;

	printf("JUMP %zu%s%s%s  step %zu (seq %llu) over %s, step "
	       "%zu (seq %llu)  speedup %.3f -> %.3f  gain x%.3f%s", num,
	       wl ? " [" : "", wl ? kt_an_key_name(wl) : "", wl ? "]" : "",
	       j->p_last + 1, (unsigned long long)b->series.pt[j->p_last].seq,
	       br ? "its branch's best" : "the best so far",
	       bs + 1, (unsigned long long)b->series.pt[bs].seq,
	       j->before, j->after, j->gain,
	       b->series.pt[j->p_land].unchecked ? "  (not checked)" : "");
	/* a tree search's child: its branch's best may not be the series'
	 * best so far (another branch's); say both */
	if (br && j->series_best_pt == bs)
		printf("  (also the series' best so far)");
	else if (br)
		printf("  (the series' best so far: step %zu (seq %llu), "
		       "gain x%.3f)", j->series_best_pt + 1,
		       (unsigned long long)b->series.pt[j->series_best_pt].seq,
		       j->series_gain);
	putchar('\n');
	{
		/* never a clean new best: a verifier's flag, or a time too
		 * small to be work done, unchecked */
		const char *why = kt_an_point_suspect(r, &b->series, j->p_last);

		if (!why)
			why = kt_an_point_suspect(r, &b->series, j->p_land);
		if (why)
			printf("  (suspicious: %s)\n", why);
	}
	{
		/* a round log's own step names (import --map `step`): where
		 * the user finds the records in their log */
		const char *to = r->m[b->series.pt[j->p_last].meas].step,
			   *fr = r->m[b->series.pt[bs].meas].step;
		char a[404], c[404];

		if (*to || *fr) {
			cli_oneline(to, 400, a);
			cli_oneline(fr, 400, c);
			printf("  in the log: step \"%s\" over step \"%s\"\n",
			       a, c);
		}
	}
	printf("  edits");
	if (j->edits_before_output) {
		/* both results come from one output: the edits that wrote
		 * the new candidate lie before the benchmark run, not
		 * between its rows */
		const char *cn = r->m[b->series.pt[j->p_land].meas].candidate;

		printf(" (before this benchmark run");
		if (*cn)
			an_put_safe(", which measured candidate ", cn,
				    j->cand_first ? " for the first time" : "");
		printf(")");
	}
	printf(":");
	if (!j->nedits) {
		/* `bench --record` stores each candidate, not an edit: say
		 * that the code did change */
		const kt_an_meas *ma = &r->m[b->series.pt[j->p_prev].meas],
				 *mb = &r->m[b->series.pt[j->p_land].meas];

		printf(" none recorded");
		if (kt_an_code_differs(ma, mb))
			printf(" (another candidate source was measured)");
		else if (b->series.no_edits)
			printf(" (the run records no edits: every new result "
			       "counts as a change)");
	}
	for (size_t i = 0; i < j->nedits; i++)
		printf(" #%llu %s", (unsigned long long)r->ev[j->edits[i]].seq,
		       r->ev[j->edits[i]].text ? r->ev[j->edits[i]].text : "?");
	printf("  [layer: %s]%s\n", kt_an_layer_name(j->edit_layer),
	       j->artifact ? "  (touches the benchmark/timing code: "
	       "possible measurement artifact)" : "");
	if (j->question >= 0) {
		const kt_an_ev *q = &r->ev[j->question];

		for (size_t i = 0; i < j->ncand; i++) {
			const kt_an_cand *cd = &j->cand[i];

			if ((long)cd->ev != j->question)
				continue;
			/* a person's statement a bench declared it tried
			 * ("try cp.async"): an idea, not a question */
			printf("  %s #%llu (%s, layer %s): lag ",
			       kt_an_is_question_ev(r, (size_t)j->question) ?
			       "question" : "idea", (unsigned long long)q->seq,
			       q->qorigin == KT_AN_QO_LIBRARY ? "library" : "human",
			       kt_an_layer_name(cd->layer));
			/* a round log has no tool calls: "lag 0 tool calls"
			 * would read as "right before"; count the messages
			 * from the question to the jump's anchor instead */
			if (b->no_calls) {
				size_t nm = 0;

				for (size_t e = (size_t)j->question + 1;
				     e < r->nev && r->ev[e].seq < j->anchor_seq;
				     e++)
					nm += r->ev[e].kind == KT_KIND_MESSAGE &&
					      !r->ev[e].meta;
				printf("%zu message%s", nm, nm == 1 ? "" : "s");
			} else {
				printf("%.0f tool calls", cd->lag_calls);
			}
			if (cd->lag_min >= 0)
				printf(" / %.1f min", cd->lag_min);
			printf(", overlap %.2f, uptake %s, layer match %s, "
			       "relocation %s\n", cd->overlap,
			       cd->uptake ? "yes" : "no",
			       cd->layer_match ? "yes" : "no",
			       cd->relocation ? "yes" : "no");
		}
		print_text("    ", q->text);
	} else {
		printf("  agent alone (no question fits; %zu candidate%s "
		       "scored)\n", j->ncand, j->ncand == 1 ? "" : "s");
	}
	printf("  confidence %.2f (%s): P=%.2f", j->confidence,
	       kt_an_conf_label(j, o), j->p_question);
	if (j->nedits > 1)
		printf(", %zu edits share the localization", j->nedits);
	printf("\n");
	if (j->hypothesis >= 0) {
		printf("  hypothesis #%llu (layer %s): ",
		       (unsigned long long)r->ev[j->hypothesis].seq,
		       kt_an_layer_name(j->hyp_layer));
		print_text("", r->ev[j->hypothesis].text);
	}
	printf("\n");
}

/* The header lines of series se (key `wl`, NULL for a run of one). */
static void print_series(const kt_an_run *r, const kt_an_series *se,
			 const kt_an_opts *o, const char *wl, size_t njump)
{
	char nb[256];

	if (wl)
		an_put_safe("series ", kt_an_key_name(wl), ":\n  ");
	else if (*se->key)
		an_put_safe("series: ", se->key, "\n");
	printf("speedup: %s\n", se->basis);
	if (se->unordered)
		printf("%sorder: none (no timestamp, edit or tool call): the "
		       "results are a table, not successive attempts; no new "
		       "best, jump or stall is read from them\n", wl ? "  " : "");
	printf("%s", wl ? "  " : "");
	an_print_counts(se, o);
	/* a ratio of times on two GPUs is no speedup of the code: say why
	 * these results have none (FORMAT.md "KernelBench") */
	{
		size_t nhw = 0;
		const char *hw = NULL;

		for (size_t i = 0; i < r->nm; i++)
			if (kt_an_meas_other_hw(&r->m[i]) &&
			    !strcmp(r->m[i].key, se->key)) {
				hw = hw ? hw : kt_an_meas_other_hw(&r->m[i]);
				nhw++;
			}
		if (nhw) {
			printf("%sno speedup: %zu result%s timed on ",
			       wl ? "  " : "", nhw, nhw == 1 ? "" : "s");
			an_put_safe("", hw, ": a ratio of times on two GPUs "
				    "is not a speedup\n");
		}
	}
	{
		/* a suspect result that is no jump is shown nowhere else */
		char sl[256];

		if (kt_an_suspects_line(r, se, sl, sizeof(sl)))
			printf("%s%s\n", wl ? "  " : "", sl);
	}
	printf("%snoise: %.2f %% per measurement (%s)\n", wl ? "  " : "",
	       100 * se->sigma, kt_an_noise_text(se, nb, sizeof(nb)));
	if (kt_an_blind_text(se, o, nb, sizeof(nb)))
		an_put_safe(wl ? "  " : "", nb, "\n");
	if (kt_an_graded_line(r, se->key, nb, sizeof(nb)))
		an_put_safe(wl ? "  graded: " : "graded: ", nb, "\n");
	{
		/* several metrics printed: which one the series follows */
		char ch[512];

		if (kt_an_choice_line(r, se->key, ch, sizeof(ch)))
			an_put_safe(wl ? "  graded metric: " : "graded metric: ",
				    ch, "\n");
	}
	for (size_t i = 0; se->sweep && i < se->n; i++) {
		const kt_an_point *p = &se->pt[i];

		kt_an_scen_cmp *sc = NULL;
		size_t nsc = 0;
		double g = NAN;

		/* no scenarios to show without memory: the summary stands */
		(void)kt_an_sweep_scenarios(r, se, i, &sc, &nsc, &g);
		kt_an_sweep_line(se, i, g, nb, sizeof(nb));
		printf("%s%s", wl ? "  " : "", nb);
		printf("%s", p->unchecked ? " (not checked)" : "");
		{
			const char *why = kt_an_point_suspect(r, se, i);

			if (why)
				an_put_safe(" (suspicious: ", why, ")");
		}
		printf("\n");
		/* shape by shape: this sweep against the best before it */
		for (size_t k = 0; i && k < nsc; k++) {
			printf("%s    ", wl ? "  " : "");
			an_put_safe("", *sc[k].scenario ? sc[k].scenario :
				    "(no scenario)", ": ");
			if (!isnan(sc[k].before))
				printf(se->has_ref ? "x%.3f -> " : "%.4g ms -> ",
				       sc[k].before);
			printf(se->has_ref ? "x%.3f" : "%.4g ms", sc[k].value);
			if (isnan(sc[k].before))
				printf(" (not measured by sweep %zu)\n",
				       p->base_pt + 1);
			else
				printf(", gain x%.3f\n", sc[k].gain);
		}
		free(sc);
	}
	printf("%sthreshold: a new best counts when its gain over the best so "
	       "far > x%.3f = max(--min-gain %.3f, --z %.1f x %.2f %% noise of "
	       "a ratio); %zu new best%s, %zu without an edit before it (no "
	       "jump); %zu jump%s\n", wl ? "  " : "", exp(se->theta),
	       o->min_gain, o->z, 100 * se->sigma * M_SQRT2, se->n_newbest,
	       se->n_newbest == 1 ? "" : "s", se->n_nochange, njump,
	       njump == 1 ? "" : "s");
}

/*
 * A run of several series (KernelBench results: one problem after
 * another; one operator at several sizes): results of different keys are
 * not one series, so each is blamed on its own and every jump is labelled.
 */
static int blame_multi(struct cli *c, kt_store *s, kt_an_run *r,
		       const kt_an_opts *o0, int json, const char **wl,
		       size_t nw)
{
	kt_an_blame *b = calloc(nw, sizeof(*b));
	kt_an_opts o = *o0;
	size_t i, k, nb = 0, single = 0, nj = 0;
	int rc = 0;

	if (!b)
		return cli_err(c, "out of memory");
	for (nb = 0; nb < nw; nb++) {
		o.workload = wl[nb];
		if ((rc = kt_an_blame_run(s, r, &o, &b[nb]))) {
			rc = cli_store_err(c, s, rc, "analyzing the run");
			goto out;
		}
		single += b[nb].series.n < 2;
		nj += b[nb].njump;
	}
	if (json) {
		for (i = 0; i < nw && !rc; i++)
			/* "workload": the series key, as before keys had
			 * more than the workload */
			for (k = 0; k < b[i].njump && !rc; k++)
				rc = an_emit(stdout, an_with_str(an_jump_json(
					r, &b[i], k, o0), "workload", wl[i]));
		for (i = 0; i < nw && !rc; i++)
			rc = an_emit(stdout, an_with_str(an_blame_summary_json(
				r, &b[i], o0), "workload", wl[i]));
		if (rc)
			rc = cli_err(c, "out of memory");
		goto out;
	}
	an_put_run(r);
	printf("series: %zu, each compared only with itself (jumps are found "
	       "within one workload, scenario and metric, never across); %zu "
	       "with a single measurement\n", nw, single);
	an_print_unparsed(r);
	printf("attribution: window %d tool calls, lag decay %.0f calls / %.0f "
	       "min, agent-alone prior %.2f\n\n", o0->window_calls, o0->tau_calls,
	       o0->tau_min, o0->w_self);
	for (i = 0, k = 0; i < nw; i++)
		if ((b[i].series.n >= 2 || b[i].series.sweep) && ++k)
			print_series(r, &b[i].series, o0, wl[i], b[i].njump);
	if (k)
		printf("\n");
	if (!nj)
		printf("no significant jump within any series\n");
	/* numbered within the series, as --json's "jump" and the
	 * "ended by jump N [series]" of stalls */
	for (i = 0; i < nw; i++)
		for (k = 0; k < b[i].njump; k++)
			print_jump(r, &b[i], k, o0, k + 1, kt_an_key_name(wl[i]));
	for (i = 0; i < nw; i++) {
		char line[512];

		kt_an_runtest_line(&b[i], line, sizeof(line));
		an_put_safe("[", kt_an_key_name(wl[i]), "] ");
		an_put_safe("", line, "\n");
	}
	printf("note: people ask questions often and during stalls; \"jumps "
	       "follow questions\" holds only when p is small.\n");
out:
	for (i = 0; i < nb; i++)
		kt_an_blame_free(&b[i]);
	free(b);
	return rc;
}

int cmd_blame(struct cli *c, int argc, char **argv)
{
	kt_an_opts o;
	kt_store *s = NULL;
	kt_an_run *r = NULL;
	kt_an_blame b = {0};
	char *pos[4];
	int json, npos, rc;
	const char **wl = NULL;
	size_t nw = 0;

	if (cli_wants_help(argc, argv, usage))
		return 0;
	rc = an_opts(c, argc, argv, &o, &json, NULL, pos, 4, &npos);
	if (rc)
		return rc;
	if (npos >= 1 && strcmp(pos[0], "speedup"))
		return cli_bad_subcommand(c, pos[0],
					  (const char *const[]){ "speedup", NULL });
	if (npos != 2)
		return cli_usage(c, "expected `blame speedup RUN`");
	if ((rc = an_open_blamed(c, pos[1], &o, &s, &r, &wl, &nw, &b)))
		goto out;
	if (nw > 1) {
		rc = blame_multi(c, s, r, &o, json, wl, nw);
		goto out;
	}
	if (json) {
		for (size_t k = 0; k < b.njump && !rc; k++)
			rc = an_emit(stdout, an_jump_json(r, &b, k, &o));
		if (!rc)
			rc = an_emit(stdout, an_blame_summary_json(r, &b, &o));
		if (rc)
			rc = cli_err(c, "out of memory");
		goto out;
	}
	an_put_run(r);
	an_print_unparsed(r);
	print_series(r, &b.series, &o, NULL, b.njump);
	printf("attribution: window %d tool calls, lag decay %.0f calls / %.0f "
	       "min, agent-alone prior %.2f\n\n", o.window_calls, o.tau_calls,
	       o.tau_min, o.w_self);
	if (!b.njump)
		printf("no significant jump\n");
	for (size_t k = 0; k < b.njump; k++)
		print_jump(r, &b, k, &o, k + 1, NULL);
	{
		char line[512];

		kt_an_runtest_line(&b, line, sizeof(line));
		printf("%s\n", line);
	}
	printf("note: people ask questions often and during stalls; \"jumps "
	       "follow questions\" holds only when p is small.\n");
out:
	free(wl);
	kt_an_blame_free(&b);
	kt_an_run_free(r);
	kt_store_close(s);
	return rc;
}
