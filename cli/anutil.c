/* anutil.c - shared by the analyzer commands; see anutil.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "anutil.h"
#include "outfmt.h"

double an_r4(double x)
{
	if (!isfinite(x))
		return 0;
	return round(x * 10000.0) / 10000.0;
}

static int num_arg(struct cli *c, const char *opt, const char *v, double lo,
		   double hi, double *out)
{
	char *end;
	double d;

	if (!v)
		return cli_usage(c, "%s needs a value", opt);
	d = strtod(v, &end);
	if (end == v || *end || !(d >= lo && d <= hi))
		return cli_usage(c, "%s: bad value '%s': valid from %.15g to "
				 "%.15g", opt, v, lo, hi);
	*out = d;
	return 0;
}

int an_opts(struct cli *c, int argc, char **argv, kt_an_opts *o, int *json,
	    const char *const *keep_val, char **pos, int maxpos, int *npos)
{
	int i, rc;
	double d;

	kt_an_opts_default(o);
	*json = 0;
	*npos = 0;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = cli_has_value(argc, argv, i) ? argv[i + 1] : NULL;
		int k;

		if (!strcmp(a, "--json")) {
			*json = 1;
			continue;
		}
		if (!strcmp(a, "--assume-correct")) {
			o->assume_correct = 1;
			continue;
		}
		if (!strcmp(a, "--series-by")) {
			if (!v)
				return cli_usage(c, "--series-by needs a value");
			if (kt_an_series_by_parse(v, &o->series_by))
				return cli_usage(c, "--series-by: bad value '%s' "
						 "(a comma-separated list of "
						 "workload, scenario, metric, "
						 "baseline)", v);
			i++;
			continue;
		}
#define NUM(name, lo, hi, field, cast)                                   \
		if (!strcmp(a, name)) {                                  \
			if ((rc = num_arg(c, name, v, lo, hi, &d)))      \
				return rc;                               \
			o->field = (cast)d;                              \
			i++;                                             \
			continue;                                        \
		}
		NUM("--min-gain", 1.0, 1e6, min_gain, double)
		NUM("--z", 0.0, 100.0, z, double)
		NUM("--noise", 0.0, 1.0, sigma_default, double)
		NUM("--merge", 0, 1000, merge_rounds, int)
		NUM("--window", 0, 1e8, window_calls, int)
		NUM("--permutations", 0, 1e6, permutations, int)
		NUM("--patience", 1, 1e6, stall_rounds, int)
		NUM("--stall-calls", 1, 1e8, stall_calls, int)
#undef NUM
		if (!strcmp(a, "--seed")) {
			uint64_t s;

			if (!v)
				return cli_usage(c, "--seed needs a value");
			if (cli_u64(v, &s))
				return cli_usage(c, "--seed needs an unsigned integer");
			o->seed = s;
			i++;
			continue;
		}
		for (k = 0; keep_val && keep_val[k]; k++)
			if (!strcmp(a, keep_val[k]))
				break;
		if (keep_val && keep_val[k]) {
			if (!v)
				return cli_usage(c, "%s needs a value", a);
			if (*npos + 2 > maxpos)
				return cli_usage(c, "too many arguments");
			pos[(*npos)++] = argv[i++];
			pos[(*npos)++] = argv[i];
			continue;
		}
		if (a[0] == '-' && a[1])
			return cli_usage(c, "unknown option '%s'", a);
		if (*npos >= maxpos)
			return cli_usage(c, "too many arguments");
		pos[(*npos)++] = argv[i];
	}
	return 0;
}

int an_load(struct cli *c, kt_store *s, const char *spec, unsigned flags,
	    kt_an_run **r)
{
	char id[KT_RUN_ID_HEX + 1];
	int rc = cli_run(c, s, spec, id);

	if (rc)
		return rc;
	/* a damaged event of a kind the analyzer skips, or one it decodes
	 * into other text, must not pass as a result (README: exit 3) */
	rc = kt_an_run_load_ex(s, id, flags | KT_AN_LOAD_CHECK, r);
	if (rc)
		return cli_store_err(c, s, rc, spec);
	return 0;
}

static const char *origin_name(int o)
{
	return o == KT_AN_QO_LIBRARY ? "library" : o == KT_AN_QO_AGENT ? "agent" :
	       "human";
}

/* A step name, or null when the source gave none (""). */
static void an_step(cJSON *x, const char *key, const char *step)
{
	if (*step)
		cJSON_AddStringToObject(x, key, step);
	else
		cJSON_AddNullToObject(x, key);
}

cJSON *an_jump_json(const kt_an_run *r, const kt_an_blame *b, size_t k,
		    const kt_an_opts *o)
{
	const kt_an_jump *j = &b->jump[k];
	const kt_an_series *se = &b->series;
	cJSON *x = cJSON_CreateObject(), *ed, *fi, *cs;

	if (!x)
		return NULL;
	cJSON_AddNumberToObject(x, "jump", (double)(k + 1));
	cJSON_AddStringToObject(x, "run", r->id);
	cJSON_AddNumberToObject(x, "from_seq", (double)se->pt[j->p_prev].seq);
	cJSON_AddNumberToObject(x, "to_seq", (double)se->pt[j->p_last].seq);
	cJSON_AddNumberToObject(x, "from_step", (double)(j->p_prev + 1));
	{
		/* the running best it is compared with */
		size_t bs = se->pt[j->p_land].base_pt;

		cJSON_AddNumberToObject(x, "best_step", (double)(bs + 1));
		cJSON_AddNumberToObject(x, "best_seq", (double)se->pt[bs].seq);
		/* a tree search's child: the best of its parent chain */
		cJSON_AddBoolToObject(x, "over_branch", se->pt[j->p_land].branch);
		/* the series' best so far, whatever the branch (the same
		 * as best_step and gain unless over_branch) */
		cJSON_AddNumberToObject(x, "series_best_step",
					(double)(j->series_best_pt + 1));
		cJSON_AddNumberToObject(x, "series_best_seq",
					(double)se->pt[j->series_best_pt].seq);
		cJSON_AddNumberToObject(x, "series_gain", an_r4(j->series_gain));
		/* the source's own step names (import --map `step`) */
		an_step(x, "to_log_step", r->m[se->pt[j->p_last].meas].step);
		an_step(x, "best_log_step", r->m[se->pt[bs].meas].step);
	}
	cJSON_AddStringToObject(x, "series", se->key);
	{
		/* a new best not to be trusted (kt_an_meas.suspect) */
		const char *why = kt_an_point_suspect(r, se, j->p_last);

		if (!why)
			why = kt_an_point_suspect(r, se, j->p_land);
		cJSON_AddBoolToObject(x, "suspicious", why != NULL);
		if (why)
			cJSON_AddStringToObject(x, "suspicious_why", why);
		else
			cJSON_AddNullToObject(x, "suspicious_why");
	}
	cJSON_AddStringToObject(x, "correctness",
				se->pt[j->p_land].unchecked ? "not checked" :
				"correct");
	cJSON_AddNumberToObject(x, "to_step", (double)(j->p_last + 1));
	cJSON_AddNumberToObject(x, "before", an_r4(j->before));
	cJSON_AddNumberToObject(x, "after", an_r4(j->after));
	cJSON_AddNumberToObject(x, "gain", an_r4(j->gain));
	cJSON_AddNumberToObject(x, "log_gain", an_r4(log(j->gain)));
	ed = cJSON_AddArrayToObject(x, "edits");
	fi = cJSON_AddArrayToObject(x, "files");
	for (size_t i = 0; i < j->nedits; i++) {
		const kt_an_ev *e = &r->ev[j->edits[i]];
		cJSON *eo = cJSON_CreateObject();
		int dup = 0;
		cJSON *f;

		cJSON_AddNumberToObject(eo, "seq", (double)e->seq);
		cJSON_AddStringToObject(eo, "path", e->text ? e->text : "");
		cJSON_AddItemToArray(ed, eo);
		cJSON_ArrayForEach(f, fi)
			if (!strcmp(f->valuestring, e->text ? e->text : ""))
				dup = 1;
		if (!dup)
			cJSON_AddItemToArray(fi, cJSON_CreateString(e->text ? e->text : ""));
	}
	/* both results of one output (a table of variants): the edits are
	 * those before that output */
	cJSON_AddBoolToObject(x, "edits_before_output", j->edits_before_output);
	/* "edits": [] is not "no change": a run that records no edits takes
	 * every new result as a change (FORMAT.md "Code under test") */
	cJSON_AddBoolToObject(x, "run_records_no_edits", b->series.no_edits);
	cJSON_AddStringToObject(x, "edit_layer", kt_an_layer_name(j->edit_layer));
	cJSON_AddBoolToObject(x, "artifact_suspect", j->artifact);
	/* "idea": a person's statement its bench declared it tried */
	cJSON_AddStringToObject(x, "attribution", j->question < 0 ? "agent alone" :
				kt_an_is_question_ev(r, (size_t)j->question) ?
				"question" : "idea");
	if (j->question >= 0) {
		const kt_an_ev *q = &r->ev[j->question];
		cJSON *qo = cJSON_AddObjectToObject(x, "question");

		for (size_t i = 0; i < j->ncand; i++) {
			const kt_an_cand *c = &j->cand[i];

			if ((long)c->ev != j->question)
				continue;
			cJSON_AddNumberToObject(qo, "seq", (double)q->seq);
			cJSON_AddStringToObject(qo, "text", q->text);
			cJSON_AddStringToObject(qo, "origin", origin_name(q->qorigin));
			cJSON_AddStringToObject(qo, "layer", kt_an_layer_name(c->layer));
			cJSON_AddNumberToObject(qo, "lag_calls", c->lag_calls);
			if (c->lag_min >= 0)
				cJSON_AddNumberToObject(qo, "lag_min", an_r4(c->lag_min));
			else
				cJSON_AddNullToObject(qo, "lag_min");
			cJSON_AddNumberToObject(qo, "p", an_r4(c->p));
			cJSON_AddNumberToObject(qo, "overlap", an_r4(c->overlap));
			cJSON_AddBoolToObject(qo, "uptake", c->uptake > 0);
			cJSON_AddBoolToObject(qo, "layer_match", c->layer_match > 0);
			cJSON_AddBoolToObject(qo, "relocation", c->relocation > 0);
		}
	} else {
		cJSON_AddNullToObject(x, "question");
	}
	cJSON_AddNumberToObject(x, "confidence", an_r4(j->confidence));
	cJSON_AddStringToObject(x, "confidence_label", kt_an_conf_label(j, o));
	if (j->hypothesis >= 0) {
		const kt_an_ev *h = &r->ev[j->hypothesis];
		cJSON *ho = cJSON_AddObjectToObject(x, "hypothesis");

		cJSON_AddNumberToObject(ho, "seq", (double)h->seq);
		cJSON_AddStringToObject(ho, "text", h->text);
		cJSON_AddStringToObject(ho, "layer", kt_an_layer_name(j->hyp_layer));
	} else {
		cJSON_AddNullToObject(x, "hypothesis");
	}
	cs = cJSON_AddArrayToObject(x, "candidates");
	for (size_t i = 0; i < j->ncand; i++) {
		cJSON *co = cJSON_CreateObject();

		cJSON_AddNumberToObject(co, "seq", (double)r->ev[j->cand[i].ev].seq);
		cJSON_AddNumberToObject(co, "p", an_r4(j->cand[i].p));
		cJSON_AddNumberToObject(co, "lag_calls", j->cand[i].lag_calls);
		cJSON_AddItemToArray(cs, co);
	}
	{
		double pq = 0;

		for (size_t i = 0; i < j->ncand; i++)
			pq += j->cand[i].p;
		cJSON_AddNumberToObject(x, "p_agent_alone", an_r4(1.0 - pq));
	}
	return x;
}

cJSON *an_excluded_json(cJSON *o, const kt_an_excl *e)
{
	cJSON *x = cJSON_AddObjectToObject(o, "excluded_by_reason");

	if (!x ||
	    !cJSON_AddNumberToObject(x, "incorrect", (double)e->incorrect) ||
	    !cJSON_AddNumberToObject(x, "correctness_unknown",
				     (double)e->unknown) ||
	    !cJSON_AddNumberToObject(x, "without_time", (double)e->notime))
		return NULL;
	/* the reasons added later only when they occur, so readers of the
	 * first three keep working */
	if ((e->noref && !cJSON_AddNumberToObject(x, "without_reference",
						  (double)e->noref)) ||
	    (e->failed && !cJSON_AddNumberToObject(x, "failed_to_run",
						   (double)e->failed)) ||
	    (e->unparsed && !cJSON_AddNumberToObject(x, "unparsed",
						     (double)e->unparsed)))
		return NULL;
	return x;
}

/* A number, or null when it is NAN (not measured, not compared). */
static int num_or_null(cJSON *x, const char *k, double v)
{
	return isnan(v) ? cJSON_AddNullToObject(x, k) != NULL :
	       cJSON_AddNumberToObject(x, k, an_r4(v)) != NULL;
}

/* "sweeps": each sweep of se summarized (its own geomean, the index it is
 * compared by) and compared scenario by scenario with the best sweep
 * before it (kt_an_sweep_scenarios).  0: out of memory. */
static int sweeps_json(cJSON *x, const kt_an_run *r, const kt_an_series *se)
{
	cJSON *a = cJSON_AddArrayToObject(x, "sweeps");

	if (!a)
		return 0;
	for (size_t i = 0; i < se->n; i++) {
		const kt_an_point *p = &se->pt[i];
		kt_an_scen_cmp *c;
		size_t n;
		double g;
		cJSON *v = cJSON_CreateObject(), *bs;
		int ok;

		if (!v || kt_an_sweep_scenarios(r, se, i, &c, &n, &g)) {
			cJSON_Delete(v);
			return 0;
		}
		cJSON_AddItemToArray(a, v);
		ok = cJSON_AddNumberToObject(v, "sweep", (double)(i + 1)) &&
		     cJSON_AddNumberToObject(v, "seq_first",
					     (double)p->seq_first) &&
		     cJSON_AddNumberToObject(v, "seq_last", (double)p->seq) &&
		     cJSON_AddNumberToObject(v, "results", (double)p->nres) &&
		     cJSON_AddNumberToObject(v, "scenarios", (double)p->nscen) &&
		     num_or_null(v, "geomean_speedup", g) &&
		     cJSON_AddNumberToObject(v, "index", an_r4(p->speedup)) &&
		     num_or_null(v, "best_sweep_before", i ?
				 (double)(p->base_pt + 1) : NAN) &&
		     num_or_null(v, "gain_over_best", i && p->ncmp ? p->gain :
				 NAN) &&
		     cJSON_AddNumberToObject(v, "scenarios_compared",
					     i ? (double)p->ncmp : 0) &&
		     (bs = cJSON_AddArrayToObject(v, "by_scenario"));
		for (size_t k = 0; ok && k < n; k++) {
			cJSON *s = cJSON_CreateObject();

			ok = s != NULL;
			if (ok)
				cJSON_AddItemToArray(bs, s);
			ok = ok && cJSON_AddStringToObject(s, "scenario",
							   c[k].scenario) &&
			     num_or_null(s, se->has_ref ? "speedup" : "time_ms",
					 c[k].value) &&
			     num_or_null(s, "before", c[k].before) &&
			     num_or_null(s, "gain", c[k].gain);
		}
		free(c);
		if (!ok)
			return 0;
	}
	return 1;
}

cJSON *an_blame_summary_json(const kt_an_run *r, const kt_an_blame *b,
			     const kt_an_opts *o)
{
	cJSON *x = cJSON_CreateObject();

	if (!x)
		return NULL;
	cJSON_AddStringToObject(x, "summary", "blame speedup");
	cJSON_AddStringToObject(x, "run", r->id);
	cJSON_AddStringToObject(x, "basis", b->series.basis);
	cJSON_AddNumberToObject(x, "measurements", (double)b->series.n);
	cJSON_AddNumberToObject(x, "excluded", (double)b->series.n_excluded);
	kt_an_excl ex = kt_an_series_excl(&b->series);

	if (!an_excluded_json(x, &ex)) {
		cJSON_Delete(x);
		return NULL;
	}
	if (!an_series_json(x, r, &b->series, o)) {
		cJSON_Delete(x);
		return NULL;
	}
	{
		char g[512];

		if (kt_an_graded_line(r, b->series.key, g, sizeof(g)))
			cJSON_AddStringToObject(x, "graded", g);
		else
			cJSON_AddNullToObject(x, "graded");
		/* which of several printed metrics, and why */
		if (kt_an_choice_line(r, b->series.key, g, sizeof(g)))
			cJSON_AddStringToObject(x, "graded_metric", g);
		else
			cJSON_AddNullToObject(x, "graded_metric");
	}
	{
		/* every suspect result of the series, jump or not */
		size_t ns = kt_an_series_suspects(r, &b->series, NULL, 0);
		uint64_t *sq = ns ? calloc(ns, sizeof(*sq)) : NULL;
		cJSON *a = cJSON_AddArrayToObject(x, "suspicious_seqs");

		if ((ns && !sq) || !a) {
			free(sq);
			cJSON_Delete(x);
			return NULL;
		}
		(void)kt_an_series_suspects(r, &b->series, sq, ns);
		cJSON_AddNumberToObject(x, "suspicious", (double)ns);
		for (size_t i = 0; i < ns; i++)
			cJSON_AddItemToArray(a, cJSON_CreateNumber((double)sq[i]));
		free(sq);
	}
	cJSON_AddNumberToObject(x, "min_gain", an_r4(o->min_gain));
	cJSON_AddNumberToObject(x, "z", o->z);
	cJSON_AddNumberToObject(x, "threshold", an_r4(exp(b->series.theta)));
	cJSON_AddNumberToObject(x, "jumps", (double)b->njump);
	cJSON_AddNumberToObject(x, "questions", (double)b->nquestions);
	cJSON_AddNumberToObject(x, "window_calls", o->window_calls);
	/* every result above the running best (the run test's), not the
	 * series' new bests over the threshold ("new_bests" below) */
	cJSON_AddNumberToObject(x, "run_test_improvements", (double)b->n_newbest);
	cJSON_AddNumberToObject(x, "s_observed", an_r4(b->s_obs));
	if (b->p_value < 0) {
		cJSON_AddNullToObject(x, "p_random_placement");
		cJSON_AddNullToObject(x, "p_time_shift");
		cJSON_AddNullToObject(x, "p_value");
		cJSON_AddNullToObject(x, "s_null_mean");
		cJSON_AddNullToObject(x, "effect");
	} else {
		cJSON_AddNumberToObject(x, "p_random_placement",
					an_r4(b->p_random));
		/* null: no tool calls to shift over */
		if (b->p_shift < 0)
			cJSON_AddNullToObject(x, "p_time_shift");
		else
			cJSON_AddNumberToObject(x, "p_time_shift",
						an_r4(b->p_shift));
		cJSON_AddNumberToObject(x, "p_value", an_r4(b->p_value));
		cJSON_AddNumberToObject(x, "s_null_mean", an_r4(b->s_null_mean));
		if (b->s_null_mean > 0)
			cJSON_AddNumberToObject(x, "effect",
						an_r4(b->s_obs / b->s_null_mean));
		else
			cJSON_AddNullToObject(x, "effect");
	}
	/* the chosen scale in its own unit: messages or tool calls */
	cJSON_AddNumberToObject(x, b->scale_msgs[b->chosen] ?
				"lag_scale_messages" : "lag_scale_calls",
				an_r4(b->scale[b->chosen]));
	{
		/* every scale's S and own p: what the min-p was taken over */
		cJSON *a = cJSON_AddArrayToObject(x, "lag_scales");

		for (size_t k = 0; a && k < b->nscales; k++) {
			cJSON *e = cJSON_CreateObject();

			if (!e || !cJSON_AddItemToArray(a, e)) {
				cJSON_Delete(e);
				break;
			}
			cJSON_AddNumberToObject(e, b->scale_msgs[k] ?
						"messages" : "calls",
						an_r4(b->scale[k]));
			cJSON_AddNumberToObject(e, "s", an_r4(b->s_scale[k]));
			if (b->p_scale[k] < 0)
				cJSON_AddNullToObject(e, "p");
			else
				cJSON_AddNumberToObject(e, "p", an_r4(b->p_scale[k]));
		}
	}
	cJSON_AddNumberToObject(x, "permutations", b->permutations);
	cJSON_AddNumberToObject(x, "seed", (double)b->seed);
	return x;
}

cJSON *an_stall_json(const kt_an_run *r, const kt_an_stall *st, size_t k)
{
	cJSON *x = cJSON_CreateObject();

	if (!x)
		return NULL;
	cJSON_AddNumberToObject(x, "stall", (double)(k + 1));
	cJSON_AddStringToObject(x, "run", r->id);
	cJSON_AddNumberToObject(x, "length", (double)st->length);
	cJSON_AddNumberToObject(x, "attempts", (double)st->attempts);
	cJSON_AddNumberToObject(x, "from_step", (double)(st->p_first + 1));
	cJSON_AddNumberToObject(x, "to_step", (double)(st->p_last + 1));
	cJSON_AddNumberToObject(x, "from_seq", (double)st->seq_first);
	cJSON_AddNumberToObject(x, "to_seq", (double)st->seq_last);
	cJSON_AddNumberToObject(x, "tool_calls", st->calls);
	cJSON_AddStringToObject(x, "layer", kt_an_layer_name(st->layer));
	if (st->claim[0]) {
		cJSON_AddStringToObject(x, "claim", st->claim);
		cJSON_AddNumberToObject(x, "claim_count", st->claim_count);
		if (st->claim_ev >= 0)
			cJSON_AddNumberToObject(x, "claim_seq",
						(double)r->ev[st->claim_ev].seq);
	} else {
		cJSON_AddNullToObject(x, "claim");
	}
	cJSON_AddNumberToObject(x, "excluded",
				(double)kt_an_excl_total(&st->ex));
	cJSON_AddNumberToObject(x, "gain", an_r4(st->gain));
	cJSON_AddStringToObject(x, "ended", st->ended == KT_AN_STALL_JUMP ?
				"jump" : st->ended == KT_AN_STALL_GAIN ?
				"small gains above the threshold" :
				"still stalled at the end");
	if (!an_excluded_json(x, &st->ex)) {
		cJSON_Delete(x);
		return NULL;
	}
	if (st->ended_by_jump >= 0)
		cJSON_AddNumberToObject(x, "ended_by_jump",
					(double)(st->ended_by_jump + 1));
	else
		cJSON_AddNullToObject(x, "ended_by_jump");
	return x;
}

int an_emit(FILE *f, cJSON *o)
{
	char *t = o ? cJSON_PrintUnformatted(o) : NULL;

	cJSON_Delete(o);
	if (!t)
		return KT_ENOMEM;
	fputs(t, f);
	fputc('\n', f);
	free(t);
	return 0;
}

cJSON *an_with_str(cJSON *o, const char *name, const char *val)
{
	if (o && !cJSON_AddStringToObject(o, name, val)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

int an_series_prepare(struct cli *c, kt_an_run *r, const kt_an_opts *o,
		      const char ***keys, size_t *n)
{
	*keys = NULL;
	*n = 0;
	if ((r->keyed_by != o->series_by &&
	     kt_an_series_keys(r, o->series_by)) ||
	    kt_an_workloads(r, keys, n))
		return cli_err(c, "out of memory");
	return 0;
}

void an_put_safe(const char *pre, const char *s, const char *post)
{
	fputs(pre, stdout);
	cli_put_safe(stdout, s ? s : "", s ? strlen(s) : 0);
	fputs(post, stdout);
}

void an_put_run(const kt_an_run *r)
{
	printf("run %s  ", r->id);
	an_put_safe("", r->name, "\n");
	if (r->nref)
		printf("reference timings: %zu bench result%s time%s the "
		       "reference itself (status \"reference\"), in no "
		       "series%s\n", r->nref, r->nref == 1 ? "" : "s",
		       r->nref == 1 ? "s" : "",
		       r->nm ? "" : "; a reference-only run: no result of "
		       "the agent's code");
}

void an_print_counts(const kt_an_series *se, const kt_an_opts *o)
{

	printf("measurements: %zu", se->n);
	if (se->sweep)
		printf(" sweep%s", se->n == 1 ? "" : "s");
	printf(" from %zu bench result%s: %zu correct, %zu not checked",
	       se->n_results, se->n_results == 1 ? "" : "s", se->n_correct,
	       se->n_unchecked);
	/* unchecked results count when no result was found correct
	 * (series.c strict_correct): a check that failed leaves them counted,
	 * and the line must not say nothing was checked */
	if (se->n_unchecked && o->assume_correct)
		printf(" (counted: --assume-correct)");
	else if (se->n_unchecked && se->n_incorrect)
		printf(" (counted: no result in the series was checked correct, "
		       "%zu checked incorrect; correctness unknown)",
		       se->n_incorrect);
	else if (se->n_unchecked)
		printf(" (counted: nothing in the series was checked; "
		       "correctness unknown)");
	if (!se->n_excluded) {
		printf("; no bench result excluded\n");
		return;
	}
	{
		struct kt_buf t = { 0 };
		kt_an_excl ex = kt_an_series_excl(se);

		if (!kt_an_excl_text(&t, &ex))
			printf("; %zu excluded: %s\n", se->n_excluded, t.s);
		else
			printf("; %zu excluded\n", se->n_excluded);
		kt_buf_free(&t);
	}
}

void an_print_unparsed(const kt_an_run *r)
{
	uint64_t seq[8];
	const char *why[8];
	size_t n = kt_an_unparsed(r, seq, 8);
	size_t nw = kt_an_unparsed_reasons(r, why, 8);

	if (!n)
		return;
	printf("unparsed: %zu output%s looked like a benchmark but gave no "
	       "time", n, n == 1 ? "" : "s");
	/* one group per stored reason: an output that timed only a
	 * baseline did give times, none of the agent's code */
	for (size_t k = 0; k < nw && k < 8; k++) {
		size_t m = kt_an_unparsed_why(r, why[k], seq, 8);

		if (nw == 1 && !*why[k])
			printf(" (seq");
		else if (!*why[k])
			printf("%s %zu no time could be read (seq",
			       k ? ";" : ":", m);
		else {
			printf("%s %zu ", k ? ";" : " of the agent's code:", m);
			an_put_safe("", why[k], " (seq");
		}
		for (size_t i = 0; i < m && i < 8; i++)
			printf(" %llu", (unsigned long long)seq[i]);
		printf("%s)", m > 8 ? " ..." : "");
	}
	printf("%s; they are in no series\n", nw > 8 ? "; ..." : "");
}

cJSON *an_unparsed_json(cJSON *x, const kt_an_run *r)
{
	cJSON *u;
	uint64_t seq[64];
	size_t nu = kt_an_unparsed(r, seq, 64);

	if (!(u = cJSON_AddArrayToObject(x, "unparsed_seqs")))
		return NULL;
	for (size_t i = 0; i < nu && i < 64; i++)
		cJSON_AddItemToArray(u, cJSON_CreateNumber((double)seq[i]));
	if (!cJSON_AddNumberToObject(x, "unparsed", (double)nu))
		return NULL;
	return x;
}

cJSON *an_detect_json(cJSON *x, const kt_an_series *se, const kt_an_opts *o)
{
	char b[2];

	if (!cJSON_AddNumberToObject(x, "min_detectable_gain",
				     an_r4(exp(se->theta))))
		return NULL;
	if (kt_an_blind_text(se, o, b, 0) &&
	    !cJSON_AddNumberToObject(x, "undetectable_gain",
				     KT_AN_GAIN_OF_INTEREST))
		return NULL;
	return x;
}

cJSON *an_series_json(cJSON *x, const kt_an_run *r, const kt_an_series *se,
		      const kt_an_opts *o)
{
	cJSON *u;

	if (!cJSON_AddStringToObject(x, "series", se->key) ||
	    !cJSON_AddBoolToObject(x, "sweep", se->sweep) ||
	    !cJSON_AddBoolToObject(x, "ordered", !se->unordered) ||
	    !cJSON_AddNumberToObject(x, "results", (double)se->n_results) ||
	    !cJSON_AddNumberToObject(x, "correct", (double)se->n_correct) ||
	    !cJSON_AddNumberToObject(x, "not_checked",
				     (double)se->n_unchecked) ||
	    !cJSON_AddBoolToObject(x, "assume_correct", o->assume_correct) ||
	    !cJSON_AddNumberToObject(x, "noise_sigma", an_r4(se->sigma)) ||
	    !cJSON_AddStringToObject(x, "noise_source", se->noise_src) ||
	    !cJSON_AddStringToObject(x, "noise_kind",
				     se->noise_kind == KT_AN_NOISE_REPEATS ?
				     "repeats" : se->noise_kind ==
				     KT_AN_NOISE_REF_REPEATS ?
				     "reference_repeats" : se->noise_kind ==
				     KT_AN_NOISE_SPREAD ? "spread" :
				     "default") ||
	    !cJSON_AddNumberToObject(x, "noise_results", (double)se->noise_n) ||
	    !cJSON_AddNumberToObject(x, "noise_left_out",
				     (double)se->noise_out) ||
	    !cJSON_AddNumberToObject(x, "noise_no_code",
				     (double)se->noise_nocode) ||
	    !an_detect_json(x, se, o) ||
	    !cJSON_AddNumberToObject(x, "new_bests", (double)se->n_newbest) ||
	    !cJSON_AddNumberToObject(x, "new_bests_without_change",
				     (double)se->n_nochange) ||
	    !cJSON_AddNumberToObject(x, "points", (double)se->n) ||
	    !cJSON_AddNumberToObject(x, "first", se->n ?
				     an_r4(se->pt[0].speedup) : 0) ||
	    !(u = cJSON_AddArrayToObject(x, "improvements")))
		return NULL;
	/* every point above the best so far, significant or not */
	for (size_t i = 1; i < se->n; i++) {
		const kt_an_point *p = &se->pt[i];
		cJSON *v;

		if (!(p->gain > 1))
			continue;
		if (!(v = cJSON_CreateObject()))
			return NULL;
		cJSON_AddItemToArray(u, v);
		if (!cJSON_AddNumberToObject(v, "step", (double)(i + 1)) ||
		    !cJSON_AddNumberToObject(v, "seq", (double)p->seq) ||
		    !cJSON_AddNumberToObject(v, "over_best", an_r4(p->gain)) ||
		    !cJSON_AddBoolToObject(v, "significant", p->newbest) ||
		    !cJSON_AddBoolToObject(v, "jump", p->accepted))
			return NULL;
	}
	if (se->sweep && !sweeps_json(x, r, se))
		return NULL;
	if (!an_unparsed_json(x, r) ||
	    !cJSON_AddNumberToObject(x, "reference_timings", (double)r->nref))
		return NULL;
	return x;
}

int an_open_series(struct cli *c, const char *spec, kt_an_opts *o,
		   kt_store **s, kt_an_run **r, const char ***keys, size_t *n)
{
	int rc;

	if ((rc = cli_open(c, 0, s)) || (rc = an_load(c, *s, spec, 0, r)) ||
	    (rc = an_series_prepare(c, *r, o, keys, n)))
		return rc;
	if (*n == 1)
		o->workload = (*keys)[0];
	return 0;
}

int an_open_blamed(struct cli *c, const char *spec, kt_an_opts *o,
		   kt_store **s, kt_an_run **r, const char ***keys, size_t *n,
		   kt_an_blame *b)
{
	int rc;

	memset(b, 0, sizeof(*b));
	if ((rc = an_open_series(c, spec, o, s, r, keys, n)) || *n > 1)
		return rc;
	if ((rc = kt_an_blame_run(*s, *r, o, b)))
		return cli_store_err(c, *s, rc, "analyzing the run");
	return 0;
}

int an_blame_stalls(struct cli *c, kt_store *s, kt_an_run *r,
		    const kt_an_opts *o, const char *what, kt_an_blame **b,
		    const char ***wl, size_t *nb, kt_an_stall ***st,
		    size_t **nst)
{
	int rc;

	*st = NULL;
	*nst = NULL;
	if ((rc = kt_an_blame_workloads(s, r, o, b, wl, nb)))
		return cli_store_err(c, s, rc, what);
	*st = calloc(*nb, sizeof(**st));
	*nst = calloc(*nb, sizeof(**nst));
	if (!*st || !*nst)
		return cli_err(c, "out of memory");
	for (size_t i = 0; i < *nb; i++) {
		kt_an_opts ow = *o;

		if (*wl)
			ow.workload = (*wl)[i];
		if ((rc = kt_an_stalls(r, &(*b)[i], &ow, &(*st)[i], &(*nst)[i])))
			return cli_store_err(c, s, rc, what);
	}
	return 0;
}

void an_stalls_free(kt_an_stall **st, size_t *nst, size_t nb)
{
	for (size_t i = 0; st && i < nb; i++)
		free(st[i]);
	free(st);
	free(nst);
}
