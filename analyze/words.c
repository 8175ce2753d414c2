/*
 * words.c - the words analyzer results are shown in, shared by every
 * output (blame, stalls and report text, JSON rows, the HTML report):
 * confidence labels, series names, where the noise came from, the run
 * test's line.
 */
#include <math.h>
#include <stdio.h>
#include "analyze.h"

const char *kt_an_conf_label(const kt_an_jump *j, const kt_an_opts *o)
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

const char *kt_an_key_name(const char *k)
{
	return *k ? k : "(no workload, scenario or metric recorded)";
}

const char *kt_an_noise_text(const kt_an_series *se, char *buf, size_t cap)
{
	char out[200] = "";
	size_t ol = 0;

	if (se->noise_out)
		ol = (size_t)snprintf(out, sizeof(out), "; %zu outlying repeat%s "
				      "left out", se->noise_out,
				      se->noise_out == 1 ? "" : "s");
	if (se->noise_kind == KT_AN_NOISE_REPEATS && se->noise_nocode &&
	    ol < sizeof(out))
		snprintf(out + ol, sizeof(out) - ol, "; %zu result%s with no "
			 "source hash or candidate (code not known) in no group",
			 se->noise_nocode, se->noise_nocode == 1 ? "" : "s");
	switch (se->noise_kind) {
	case KT_AN_NOISE_REPEATS:
		snprintf(buf, cap, "%s: %zu results in %zu group%s of one "
			 "code state and scenario%s", se->noise_src,
			 se->noise_n, se->noise_groups,
			 se->noise_groups == 1 ? "" : "s", out);
		break;
	case KT_AN_NOISE_SPREAD:
		snprintf(buf, cap, "%s: %zu results", se->noise_src,
			 se->noise_n);
		break;
	case KT_AN_NOISE_REF_REPEATS:
		snprintf(buf, cap, "%s: %zu reference timings%s",
			 se->noise_src, se->noise_n, out);
		break;
	default:
		snprintf(buf, cap, "%s", se->noise_src);
	}
	return buf;
}

int kt_an_blind_text(const kt_an_series *se, const kt_an_opts *o, char *buf,
		     size_t cap)
{
	char nb[256];
	/* the noise's own bar, not theta: --min-gain above 1.35 is the
	 * user's choice, which the threshold line already shows */
	double bar = o->z * se->sigma * M_SQRT2;

	if (cap)
		*buf = 0;
	/* one measurement has nothing to gain over: no warning to give */
	if (se->n < 2 || !(bar >= log(KT_AN_GAIN_OF_INTEREST)))
		return 0;
	if (cap)
		snprintf(buf, cap, "warning: series %s: noise %.2f %% per "
			 "measurement (%s) hides a x%.2f gain: only a gain "
			 "above x%.3f counts", kt_an_key_name(se->key),
			 100 * se->sigma, kt_an_noise_text(se, nb, sizeof(nb)),
			 KT_AN_GAIN_OF_INTEREST, exp(bar));
	return 1;
}

int kt_an_choice_line(const kt_an_run *r, const char *key, char *buf,
		      size_t cap)
{
	const kt_an_meas *c = NULL;

	if (cap)
		*buf = 0;
	for (size_t i = 0; i < r->nm && !c; i++)
		if ((*r->m[i].choice || *r->m[i].also) &&
		    (!*key || !strcmp(r->m[i].key, key)))
			c = &r->m[i];
	if (!c || !cap)
		return c != NULL;
	snprintf(buf, cap, "%s (%s%s%s)", *c->metric ? c->metric : "speedup",
		 *c->choice ? c->choice : "the first printed",
		 *c->also ? "; also printed: " : "", c->also);
	return 1;
}

int kt_an_graded_line(const kt_an_run *r, const char *key, char *buf,
		      size_t cap)
{
	const kt_an_meas *g = NULL;
	size_t i;
	int k;

	if (cap)
		*buf = 0;
	for (i = 0; i < r->nm; i++)
		if (r->m[i].graded && (!*key || !strcmp(r->m[i].key, key)))
			g = &r->m[i];
	if (!g || !cap)
		return g != NULL;
	k = g->speedup > 0 ?
	    snprintf(buf, cap, "%s x%.3f", *g->metric ? g->metric : "speedup",
		     g->speedup) :
	    g->time_ms > 0 ?
	    snprintf(buf, cap, "%s %.4g ms", *g->metric ? g->metric : "time",
		     g->time_ms) :
	    snprintf(buf, cap, "%s (no figure)", *g->metric ? g->metric :
		     "result");
	if (k >= 0 && (size_t)k < cap && g->reward >= 0)
		k += snprintf(buf + k, cap - (size_t)k, ", reward %g", g->reward);
	if (k >= 0 && (size_t)k < cap)
		k += snprintf(buf + k, cap - (size_t)k, ", %s",
			      g->correct > 0 ? "correct" : !g->correct ?
			      "incorrect" : "not checked");
	if (k >= 0 && (size_t)k < cap && *g->flags)
		k += snprintf(buf + k, cap - (size_t)k, ", flags: %s", g->flags);
	if (k >= 0 && (size_t)k < cap)
		snprintf(buf + k, cap - (size_t)k, ", from %s (seq %llu)",
			 *g->source ? g->source : "the grader",
			 (unsigned long long)r->ev[g->ev].seq);
	return 1;
}

void kt_an_runtest_line(const kt_an_blame *b, char *buf, size_t n)
{
	/* the run test weighs every result above the running best, also
	 * those under the jump threshold: not the series' "new bests".  Its
	 * unit is the message that asks (one position in time), where
	 * `questions mine` lists each question sentence: say so */
	int k = snprintf(buf, n, "run test: S = %.3f over %zu improvement%s and "
			 "%zu question message%s (", b->s_obs,
			 b->n_newbest, b->n_newbest == 1 ? "" : "s",
			 b->nquestions, b->nquestions == 1 ? "" : "s");

	if (k < 0 || (size_t)k >= n)
		return;
	/* without tool calls every lag in calls is 0: a call scale there
	 * measured nothing, so none is named */
	if (b->no_calls)
		k += snprintf(buf + k, n - (size_t)k, "lags in messages only: "
			      "the run has no tool calls); ");
	else
		k += snprintf(buf + k, n - (size_t)k, "lag scale %.3g %s); ",
			      b->scale[b->chosen], b->scale_msgs[b->chosen] ?
			      "message" : "calls");

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
	k += snprintf(buf + k, n - (size_t)k, "p = %.4f (questions placed at "
		      "random; the smallest p of the lag scales", b->p_value);
	/* each scale's own p, then what min-p made of them */
	for (size_t i = 0, m = 0; i < b->nscales && k > 0 && (size_t)k < n;
	     i++)
		if (b->scale_msgs[i] || !b->no_calls)
			k += snprintf(buf + k, n - (size_t)k, "%s%.3g %s: %.4f",
				      m++ ? ", " : " ", b->scale[i],
				      b->scale_msgs[i] ? "message" : "calls",
				      b->p_scale[i]);
	if (k < 0 || (size_t)k >= n)
		return;
	k += snprintf(buf + k, n - (size_t)k, ", ranked among the same "
		      "placements' smallest; circular shift ");
	if (k < 0 || (size_t)k >= n)
		return;
	if (b->p_shift < 0)
		k += snprintf(buf + k, n - (size_t)k, "not computed (no tool "
			      "calls to shift over)");
	else
		k += snprintf(buf + k, n - (size_t)k, "%.4f", b->p_shift);
	if (k < 0 || (size_t)k >= n)
		return;
	snprintf(buf + k, n - (size_t)k, "; %d permutations, seed %llu)",
		 b->permutations, (unsigned long long)b->seed);
}

void kt_an_sweep_line(const kt_an_series *se, size_t i, double g, char *buf,
		      size_t cap)
{
	const kt_an_point *p = &se->pt[i];
	size_t k = 0;

#define PUT(...) do { \
		int w_ = snprintf(buf + k, cap - k, __VA_ARGS__); \
		if (w_ > 0) \
			k = (size_t)w_ < cap - k ? k + (size_t)w_ : cap - 1; \
	} while (0)
	if (!cap)
		return;
	*buf = 0;
	PUT("sweep %zu (seq %llu..%llu): %zu results over %d scenarios, "
	    "%s x%.3f", i + 1, (unsigned long long)p->seq_first,
	    (unsigned long long)p->seq, p->nres, p->nscen,
	    se->has_ref ? "geomean speedup" : "index",
	    se->has_ref && !isnan(g) ? g : p->speedup);
	/* its own geomean; the index it is compared by differs only when
	 * it shares some scenarios with the best before it */
	if (se->has_ref && !isnan(g) && fabs(log(g / p->speedup)) > 5e-4)
		PUT(" (index x%.3f over the scenarios in common)", p->speedup);
	if (i && p->ncmp)
		PUT(", x%.3f over the best sweep before it (sweep %zu) on the "
		    "%d scenarios both measured", p->gain, p->base_pt + 1,
		    p->ncmp);
	else if (i)
		PUT(", no scenario in common with the best sweep before it: "
		    "not compared");
#undef PUT
}

size_t kt_an_suspects_line(const kt_an_run *r, const kt_an_series *se,
			   char *buf, size_t cap)
{
	uint64_t sq[8];
	size_t ns = kt_an_series_suspects(r, se, sq, 8), k;

	if (!cap)
		return ns;
	*buf = 0;
	if (!ns)
		return 0;
	k = (size_t)snprintf(buf, cap, "suspicious: %zu result%s (seq", ns,
			     ns == 1 ? "" : "s");
	for (size_t i = 0; i < ns && i < 8 && k < cap; i++)
		k += (size_t)snprintf(buf + k, cap - k, "%s%llu",
				      i ? ", " : " ",
				      (unsigned long long)sq[i]);
	if (k < cap)
		snprintf(buf + k, cap - k, "%s)", ns > 8 ? ", ..." : "");
	return ns;
}
