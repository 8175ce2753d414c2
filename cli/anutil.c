/* anutil.c - shared by the analyzer commands; see anutil.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "anutil.h"

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
		return cli_usage(c, "%s: bad value '%s'", opt, v);
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
	rc = kt_an_run_load_ex(s, id, flags, r);
	if (rc)
		return cli_store_err(c, s, rc, spec);
	return 0;
}

const char *an_conf_label(const kt_an_jump *j, const kt_an_opts *o)
{
	double lag = 0;

	for (size_t i = 0; i < j->ncand; i++)
		if ((long)j->cand[i].ev == j->question)
			lag = j->cand[i].lag_calls;
	if (j->confidence >= 0.6 && lag <= o->tau_calls)
		return "high";
	if (j->confidence >= 0.35)
		return "medium";
	return "low";
}

static const char *origin_name(int o)
{
	return o == KT_AN_QO_LIBRARY ? "library" : o == KT_AN_QO_AGENT ? "agent" :
	       "human";
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
	cJSON_AddStringToObject(x, "edit_layer", kt_an_layer_name(j->edit_layer));
	cJSON_AddBoolToObject(x, "artifact_suspect", j->artifact);
	cJSON_AddStringToObject(x, "attribution", j->question >= 0 ? "question" :
				"agent alone");
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
	cJSON_AddStringToObject(x, "confidence_label", an_conf_label(j, o));
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

cJSON *an_excluded_json(cJSON *o, size_t incorrect, size_t unknown,
			size_t notime)
{
	cJSON *x = cJSON_AddObjectToObject(o, "excluded_by_reason");

	if (!x ||
	    !cJSON_AddNumberToObject(x, "incorrect", (double)incorrect) ||
	    !cJSON_AddNumberToObject(x, "correctness_unknown", (double)unknown) ||
	    !cJSON_AddNumberToObject(x, "without_time", (double)notime))
		return NULL;
	return x;
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
	if (!an_excluded_json(x, b->series.n_incorrect, b->series.n_unknown,
			      b->series.n_notime)) {
		cJSON_Delete(x);
		return NULL;
	}
	cJSON_AddNumberToObject(x, "noise_sigma", an_r4(b->series.sigma));
	cJSON_AddStringToObject(x, "noise_source", b->series.noise_src);
	cJSON_AddNumberToObject(x, "min_gain", an_r4(o->min_gain));
	cJSON_AddNumberToObject(x, "z", o->z);
	cJSON_AddNumberToObject(x, "threshold", an_r4(exp(b->series.theta)));
	cJSON_AddNumberToObject(x, "jumps", (double)b->njump);
	cJSON_AddNumberToObject(x, "questions", (double)b->nquestions);
	cJSON_AddNumberToObject(x, "window_calls", o->window_calls);
	cJSON_AddNumberToObject(x, "new_bests", (double)b->n_newbest);
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
		cJSON_AddNumberToObject(x, "p_time_shift", an_r4(b->p_shift));
		cJSON_AddNumberToObject(x, "p_value", an_r4(b->p_value));
		cJSON_AddNumberToObject(x, "s_null_mean", an_r4(b->s_null_mean));
		if (b->s_null_mean > 0)
			cJSON_AddNumberToObject(x, "effect",
						an_r4(b->s_obs / b->s_null_mean));
		else
			cJSON_AddNullToObject(x, "effect");
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
	cJSON_AddNumberToObject(x, "excluded", (double)(st->n_incorrect +
			       st->n_unknown + st->n_notime));
	if (!an_excluded_json(x, st->n_incorrect, st->n_unknown, st->n_notime)) {
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

void an_runtest_line(const kt_an_blame *b, char *buf, size_t n)
{
	int k = snprintf(buf, n, "run test: S = %.3f over %zu new best%s and "
			 "%zu question%s; ", b->s_obs, b->n_newbest,
			 b->n_newbest == 1 ? "" : "s", b->nquestions,
			 b->nquestions == 1 ? "" : "s");

	if (k < 0 || (size_t)k >= n)
		return;
	if (b->p_value < 0) {
		snprintf(buf + k, n - (size_t)k, "p: not computed (%s)",
			 b->permutations <= 0 ? "--permutations 0" :
			 !b->nquestions ? "no question" : "no new best");
		return;
	}
	if (b->s_null_mean > 0)
		k += snprintf(buf + k, n - (size_t)k, "effect x%.2f of chance "
			      "(S by chance %.3f +- %.3f), ", b->s_obs /
			      b->s_null_mean, b->s_null_mean, b->s_null_sd);
	else
		k += snprintf(buf + k, n - (size_t)k, "effect: none by chance, ");
	if (k < 0 || (size_t)k >= n)
		return;
	snprintf(buf + k, n - (size_t)k, "p = %.4f (questions placed at random; "
		 "circular shift %.4f; %d permutations, seed %llu)", b->p_value,
		 b->p_shift, b->permutations, (unsigned long long)b->seed);
}
