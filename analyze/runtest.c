/*
 * runtest.c - the run test: do a run's gains follow its questions more
 * closely than questions placed at random would?
 *
 * Statistic: S = sum over every new best i of the series (a point above
 * the running best, significant or not) of w_i * exp(-d_i / tau_calls),
 * w_i = ln(new best / best before) and d_i the tool calls from the nearest
 * question at or before the change's anchor (the first edit since the
 * measurement before, else the measurement's own call), within
 * window_calls; a new best with no question in its window adds 0.  Using
 * every new best weighted by its log gain, and the lag to each, gains power
 * over counting detected jumps only (issue 15: 48 % power before).
 *
 * Null: which messages are questions is random - the run's questions are
 * moved to nq distinct positions drawn from every message of the run
 * (human or agent, questions included: the moments someone spoke), as a
 * person would who asks without regard to the agent's progress.  Uniform
 * positions over all tool calls were tried first: questions can only come
 * between turns, so that null was conservative (1 % of null runs below
 * 0.05 on tests/plant2).  S is discrete (often 0 when no question is near a
 * gain), so the p-value is the randomized permutation p-value
 * p = (#{S0 > S} + U (#{S0 = S} + 1)) / (N + 1), U uniform from the seeded
 * generator: exactly uniform under the null, where the usual
 * (1 + #{S0 >= S}) / (N + 1) piles up at 1 (11-22 % of null runs before).
 * A second null, every question position shifted circularly by one random
 * offset (arXiv 2512.17372), keeps the questions' spacing; its p is
 * reported beside, not combined.  Effect size: S / mean(S0) and
 * (S - mean) / sd over the placements.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "an_int.h"

/* splitmix64 (Steele, Lea, Flood 2014; public domain reference code) */
static uint64_t rt_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static double rt_unif(uint64_t *s)
{
	return (double)(rt_next(s) >> 11) * 0x1.0p-53;
}

/* S for the positions set in bitmap bm (one bit per tool-call index)
 * against anchors anc/weights w[0..na): each anchor takes the nearest set
 * bit at most win below it, a word at a time.  ex[d] = exp(-d / tau). */
static double stat(const uint32_t *anc, const double *w, size_t na,
		   const uint64_t *bm, uint32_t win, const double *ex)
{
	double s = 0;

	for (size_t a = 0; a < na; a++) {
		uint32_t x = anc[a], lo = x > win ? x - win : 0;
		size_t wi = x >> 6;
		uint64_t m = bm[wi] & (~0ull >> (63 - (x & 63)));

		for (;;) {
			if (wi == lo >> 6)
				m &= ~0ull << (lo & 63);
			if (m) {
				uint32_t p = (uint32_t)(wi * 64 + 63 -
							(size_t)__builtin_clzll(m));

				s += w[a] * ex[x - p];
				break;
			}
			if (wi == lo >> 6)
				break;
			m = bm[--wi];
		}
	}
	return s;
}

static void bits(uint64_t *bm, const uint32_t *pos, size_t n, int set)
{
	for (size_t i = 0; i < n; i++) {
		if (set)
			bm[pos[i] >> 6] |= 1ull << (pos[i] & 63);
		else
			bm[pos[i] >> 6] &= ~(1ull << (pos[i] & 63));
	}
}

/* Randomized p-value of s among null draws: above, ties. */
static double rand_p(size_t above, size_t ties, int n, uint64_t *st)
{
	return ((double)above + rt_unif(st) * ((double)ties + 1.0)) /
	       ((double)n + 1.0);
}

int kt_an_runtest(const kt_an_run *r, const kt_an_opts *o, kt_an_blame *b)
{
	const kt_an_series *se = &b->series;
	uint32_t *anc = NULL, *q = NULL, *qs = NULL, len = r->ncalls + 1,
		 win = (uint32_t)(o->window_calls < 0 ? 0 : o->window_calls);
	double *w = NULL, *ex = NULL, sum = 0, sum2 = 0;
	uint64_t *bm = NULL;
	uint32_t *slot = NULL;
	size_t nslot = 0, na = 0, nq = 0, ab_r = 0, tie_r = 0, ab_s = 0, tie_s = 0;
	uint64_t st = o->seed;
	int rc = KT_ENOMEM;

	b->p_random = b->p_shift = b->p_value = -1;
	b->s_null_mean = b->s_null_sd = -1;
	b->n_newbest = 0;
	b->permutations = o->permutations;
	b->seed = o->seed;
	anc = malloc((se->n + 1) * sizeof(*anc));
	w = malloc((se->n + 1) * sizeof(*w));
	q = malloc((r->nev + 1) * sizeof(*q));
	qs = malloc((r->nev + 1) * sizeof(*qs));
	slot = malloc((r->nev + 1) * sizeof(*slot));
	bm = calloc((size_t)len / 64 + 1, sizeof(*bm));
	ex = malloc(((size_t)win + 1) * sizeof(*ex));
	if (!anc || !w || !q || !qs || !slot || !bm || !ex)
		goto out;
	for (uint32_t d = 0; d <= win; d++)
		ex[d] = exp(-(double)d / o->tau_calls);
	for (size_t i = 1; i < se->n; i++) {
		const kt_an_point *p = &se->pt[i];
		double prev = se->pt[i - 1].best;
		uint32_t at = p->call;

		if (p->outlier || !(p->speedup > prev) || prev <= 0)
			continue;
		for (size_t k = kt_an_run_lower(r, se->pt[i - 1].seq + 1);
		     k < r->nev && r->ev[k].seq < p->seq; k++)
			if (r->ev[k].kind == KT_KIND_EDIT) {
				at = r->ev[k].call;
				break;
			}
		anc[na] = at;
		w[na++] = log(p->speedup / prev);
	}
	for (size_t i = 0; i < r->nev; i++) {
		if (kt_an_is_question_ev(r, i))
			q[nq++] = r->ev[i].call;
		/* not by text: how a run was loaded must not change p */
		if (kt_an_is_question_ev(r, i) ||
		    (r->ev[i].kind == KT_KIND_MESSAGE && !r->ev[i].meta &&
		     (r->ev[i].human || (r->ev[i].role != KT_AN_ROLE_USER &&
					 r->ev[i].role != KT_AN_ROLE_SYSTEM))))
			slot[nslot++] = r->ev[i].call;
	}
	b->nquestions = nq;
	b->n_newbest = na;
	bits(bm, q, nq, 1);
	b->s_obs = stat(anc, w, na, bm, win, ex);
	bits(bm, q, nq, 0);
	if (o->permutations <= 0 || !na || !nq) {
		rc = KT_OK;
		goto out;
	}
	for (int p = 0; p < o->permutations; p++) {
		double s0, s1;
		uint32_t off = 1 + (uint32_t)(rt_next(&st) % (len > 1 ? len - 1 : 1));

		/* partial Fisher-Yates: nq distinct message slots */
		for (size_t i = 0; i < nq; i++) {
			size_t k = i + (size_t)(rt_next(&st) % (nslot - i));
			uint32_t t = slot[i];

			slot[i] = slot[k];
			slot[k] = t;
		}
		bits(bm, slot, nq, 1);
		s0 = stat(anc, w, na, bm, win, ex);
		bits(bm, slot, nq, 0);
		sum += s0;
		sum2 += s0 * s0;
		ab_r += s0 > b->s_obs + 1e-12;
		tie_r += fabs(s0 - b->s_obs) <= 1e-12;
		for (size_t i = 0; i < nq; i++)
			qs[i] = q[i] + off >= len ? q[i] + off - len : q[i] + off;
		bits(bm, qs, nq, 1);
		s1 = stat(anc, w, na, bm, win, ex);
		bits(bm, qs, nq, 0);
		ab_s += s1 > b->s_obs + 1e-12;
		tie_s += fabs(s1 - b->s_obs) <= 1e-12;
	}
	b->p_random = rand_p(ab_r, tie_r, o->permutations, &st);
	b->p_shift = rand_p(ab_s, tie_s, o->permutations, &st);
	b->p_value = b->p_random;
	b->s_null_mean = sum / o->permutations;
	b->s_null_sd = sqrt(fmax(0, sum2 / o->permutations -
				 b->s_null_mean * b->s_null_mean));
	rc = KT_OK;
out:
	free(anc);
	free(w);
	free(q);
	free(qs);
	free(slot);
	free(bm);
	free(ex);
	return rc;
}
