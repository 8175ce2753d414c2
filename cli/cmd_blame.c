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
	"                               [--noise SIGMA]\n"
	"\n"
	"Find the significant jumps of a run's best-so-far speedup and blame each:\n"
	"the edits between the last measurement below and the first above it, the\n"
	"question before them (human, or a library question the agent applied)\n"
	"scored on lag, text overlap with the edits and the agent's next messages,\n"
	"and layer match - or \"agent alone\" when none fits - and the agent's own\n"
	"hypothesis right before the responsible edit.\n"
	"\n"
	"A new best counts when its gain is above max(--min-gain, Z x noise) where\n"
	"noise is the SD of the log-ratio of two measurements (default --min-gain\n"
	"1.05, --z 3); increments within --merge measurements (2) merge.  Noise is\n"
	"estimated from repeats of one source hash, else recorded min/max spread,\n"
	"else successive differences, else --noise (0.02).  Speedup is reference\n"
	"time / kernel time, or relative to the first correct result without a\n"
	"reference.  Only correct results count.  A run of several workloads\n"
	"(bench `workload`, else `scenario`: KernelBench results, one problem\n"
	"after another) has one series per workload: jumps are found within one\n"
	"workload, numbered within it and labelled with it (--json: a \"workload\"\n"
	"key on every object, one summary per workload).\n"
	"\n"
	"The run test asks whether gains follow questions more closely than\n"
	"chance: S sums, over every new best, its log gain times exp(-lag/15)\n"
	"to the nearest question before the change; p compares S with the\n"
	"questions placed at random (--permutations, 2000; --seed 1;\n"
	"randomized ties, so p is uniform when questions do not matter) and the\n"
	"effect is S over its mean by chance.  --permutations 0 skips it.  The\n"
	"same input and seed give byte-identical output.\n"
	"\n"
	"--json: one object per jump (run, from_seq, to_seq, from_step, to_step,\n"
	"before, after, gain, edits, files, attribution, question {seq, text,\n"
	"origin, layer, lag_calls, lag_min, p, ...}, confidence, hypothesis\n"
	"{seq, text, layer}, candidates), then one summary object (no \"gain\";\n"
	"\"excluded\" and \"excluded_by_reason\" {incorrect, correctness_unknown,\n"
	"without_time} count the bench results left out).\n";

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

	printf("JUMP %zu%s%s%s  steps %zu..%zu (seq %llu..%llu)  speedup %.3f -> "
	       "%.3f  gain x%.3f\n", num, wl ? " [" : "",
	       wl ? (*wl ? wl : "(no workload)") : "", wl ? "]" : "",
	       j->p_prev + 1, j->p_last + 1,
	       (unsigned long long)b->series.pt[j->p_prev].seq,
	       (unsigned long long)b->series.pt[j->p_last].seq,
	       j->before, j->after, j->gain);
	printf("  edits:");
	if (!j->nedits)
		printf(" none recorded");
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
			printf("  question #%llu (%s, layer %s): lag %.0f tool "
			       "calls", (unsigned long long)q->seq,
			       q->qorigin == KT_AN_QO_LIBRARY ? "library" : "human",
			       kt_an_layer_name(cd->layer), cd->lag_calls);
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
	       an_conf_label(j, o), j->p_question);
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

/* "measurements: N correct (...)" with why bench results were left out. */
static void print_counts(size_t n, size_t excl, size_t inc, size_t unk,
			 size_t notime)
{
	const char *sep = "";

	printf("measurements: %zu correct (", n);
	if (!excl) {
		printf("no bench result excluded)\n");
		return;
	}
	printf("%zu bench result%s excluded: ", excl, excl == 1 ? "" : "s");
	if (inc) {
		printf("%zu incorrect", inc);
		sep = ", ";
	}
	if (unk) {
		printf("%s%zu correctness unknown (others say correct)", sep, unk);
		sep = ", ";
	}
	if (notime)
		printf("%s%zu without a time", sep, notime);
	printf(")\n");
}

static const char *wl_name(const char *w)
{
	return *w ? w : "(no workload)";
}

/*
 * A run of several workloads (KernelBench results: one problem after
 * another): speedups of different problems are not one series, so each
 * workload is blamed on its own series and every jump is labelled.
 */
static int blame_multi(struct cli *c, kt_store *s, kt_an_run *r,
		       const kt_an_opts *o0, int json, const char **wl,
		       size_t nw)
{
	kt_an_blame *b = calloc(nw, sizeof(*b));
	kt_an_opts o = *o0;
	size_t i, k, nb = 0, tot = 0, excl = 0, single = 0, nj = 0;
	size_t inc = 0, unk = 0, notime = 0;
	int rc = 0;

	if (!b)
		return cli_err(c, "out of memory");
	for (nb = 0; nb < nw; nb++) {
		o.workload = wl[nb];
		if ((rc = kt_an_blame_run(s, r, &o, &b[nb]))) {
			rc = cli_store_err(c, s, rc, "blame");
			goto out;
		}
		tot += b[nb].series.n;
		excl += b[nb].series.n_excluded;
		inc += b[nb].series.n_incorrect;
		unk += b[nb].series.n_unknown;
		notime += b[nb].series.n_notime;
		single += b[nb].series.n < 2;
		nj += b[nb].njump;
	}
	if (json) {
		for (i = 0; i < nw && !rc; i++)
			for (k = 0; k < b[i].njump && !rc; k++) {
				cJSON *j = an_jump_json(r, &b[i], k, o0);

				if (j && !cJSON_AddStringToObject(j, "workload", wl[i])) {
					cJSON_Delete(j);
					j = NULL;
				}
				rc = an_emit(stdout, j);
			}
		for (i = 0; i < nw && !rc; i++) {
			cJSON *j = an_blame_summary_json(r, &b[i], o0);

			if (j && !cJSON_AddStringToObject(j, "workload", wl[i])) {
				cJSON_Delete(j);
				j = NULL;
			}
			rc = an_emit(stdout, j);
		}
		if (rc)
			rc = cli_err(c, "out of memory");
		goto out;
	}
	printf("run %s  %s\n", r->id, r->name);
	printf("workloads: %zu, each its own series (jumps are found within one "
	       "workload, never across); %zu with a single measurement\n", nw,
	       single);
	printf("speedup: %s\n", b[0].series.basis);
	print_counts(tot, excl, inc, unk, notime);
	printf("threshold: a new best counts when gain > max(--min-gain %.3f, "
	       "--z %.1f x the noise of a ratio of that workload); --merge %d\n",
	       o0->min_gain, o0->z, o0->merge_rounds);
	printf("attribution: window %d tool calls, lag decay %.0f calls / %.0f "
	       "min, agent-alone prior %.2f\n\n", o0->window_calls, o0->tau_calls,
	       o0->tau_min, o0->w_self);
	for (i = 0, k = 0; i < nw; i++)
		if (b[i].series.n >= 2 && ++k)
			printf("workload %s: %zu measurements, noise %.2f %% (%s), "
			       "threshold x%.3f, %zu jump%s\n", wl_name(wl[i]),
			       b[i].series.n, 100 * b[i].series.sigma,
			       b[i].series.noise_src, exp(b[i].series.theta),
			       b[i].njump, b[i].njump == 1 ? "" : "s");
	if (k)
		printf("\n");
	if (!nj)
		printf("no significant jump within any workload\n");
	/* numbered within the workload, as --json's "jump" and the
	 * "ended by jump N [workload]" of stalls */
	for (i = 0; i < nw; i++)
		for (k = 0; k < b[i].njump; k++)
			print_jump(r, &b[i], k, o0, k + 1, wl_name(wl[i]));
	for (i = 0; i < nw; i++) {
		char line[512];

		an_runtest_line(&b[i], line, sizeof(line));
		printf("[%s] %s\n", wl_name(wl[i]), line);
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
	kt_an_blame b;
	char *pos[4];
	int json, npos, rc;
	int have_b = 0;
	const char **wl = NULL;
	size_t nw = 0;

	if (cli_wants_help(argc, argv, usage))
		return 0;
	rc = an_opts(c, argc, argv, &o, &json, NULL, pos, 4, &npos);
	if (rc)
		return rc;
	if (npos != 2 || strcmp(pos[0], "speedup"))
		return cli_usage(c, "expected `blame speedup RUN`");
	if ((rc = cli_open(c, 0, &s)))
		return rc;
	if ((rc = an_load(c, s, pos[1], 0, &r)))
		goto out;
	if (kt_an_workloads(r, &wl, &nw)) {
		rc = cli_err(c, "out of memory");
		goto out;
	}
	if (nw > 1) {
		rc = blame_multi(c, s, r, &o, json, wl, nw);
		goto out;
	}
	rc = kt_an_blame_run(s, r, &o, &b);
	if (rc) {
		rc = cli_store_err(c, s, rc, "blame");
		goto out;
	}
	have_b = 1;
	if (json) {
		for (size_t k = 0; k < b.njump && !rc; k++)
			rc = an_emit(stdout, an_jump_json(r, &b, k, &o));
		if (!rc)
			rc = an_emit(stdout, an_blame_summary_json(r, &b, &o));
		if (rc)
			rc = cli_err(c, "out of memory");
		goto out;
	}
	printf("run %s  %s\n", r->id, r->name);
	printf("speedup: %s\n", b.series.basis);
	print_counts(b.series.n, b.series.n_excluded, b.series.n_incorrect,
		     b.series.n_unknown, b.series.n_notime);
	printf("noise: %.2f %% per measurement (%s)\n", 100 * b.series.sigma,
	       b.series.noise_src);
	printf("threshold: a new best counts when gain > x%.3f = max(--min-gain "
	       "%.3f, --z %.1f x %.2f %% noise of a ratio); --merge %d\n",
	       exp(b.series.theta), o.min_gain, o.z,
	       100 * b.series.sigma * M_SQRT2, o.merge_rounds);
	printf("attribution: window %d tool calls, lag decay %.0f calls / %.0f "
	       "min, agent-alone prior %.2f\n\n", o.window_calls, o.tau_calls,
	       o.tau_min, o.w_self);
	if (!b.njump)
		printf("no significant jump\n");
	for (size_t k = 0; k < b.njump; k++)
		print_jump(r, &b, k, &o, k + 1, NULL);
	{
		char line[512];

		an_runtest_line(&b, line, sizeof(line));
		printf("%s\n", line);
	}
	printf("note: people ask questions often and during stalls; \"jumps "
	       "follow questions\" holds only when p is small.\n");
out:
	free(wl);
	if (have_b)
		kt_an_blame_free(&b);
	kt_an_run_free(r);
	kt_store_close(s);
	return rc;
}
