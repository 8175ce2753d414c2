/*
 * runtest.c - the run test: do a run's gains follow its questions more
 * closely than questions placed at random would?
 *
 * Statistic, at a lag scale tau: S_tau = sum over every new best i of the
 * series (a point above the running best, significant or not) of w_i *
 * exp(-d_i / tau), w_i = ln(new best / best before) and d_i the tool calls
 * (or messages, see below) from the nearest question before one of the
 * change's anchors (each edit since the measurement before - results the
 * series left out cut nothing, as for the jump's edits - else the
 * measurement itself) to that anchor, the closest of them, in run order -
 * a message after the edit in the same gap between calls is not before
 * it - within window_calls calls (and messages); a new best with no
 * question in its window adds 0.  The same lag blame gives a question: to
 * the first edit of the change after it (a question asked between two
 * edits of one change is taken up by the later one).
 * Using every new best weighted by its log gain, and the lag to each,
 * gains power over counting detected jumps only (issue 15: 48 % power
 * before).
 *
 * Lag scales: how soon a question's change follows it is not known in
 * advance.  An agent may act on a question in its very next call, or many
 * calls later after reading and profiling (real runs: tau_calls, 15, the
 * attribution's scale).  One scale loses power at the other: at 15 a
 * question placed at random ten calls before a gain scores almost as much
 * as one right before it.  So S is computed at three scales and the test
 * statistic is the smallest of their three
 * permutation p-values (min-p; Westfall & Young 1993, "Resampling-based
 * multiple testing", the single-step min-P adjustment).  Its null
 * distribution comes from the same placements: each placement's own
 * per-scale p-values (its rank among all placements and the observed one)
 * give its min-p, and the observed min-p is ranked among those, so the
 * test stays exactly calibrated whatever the scales' dependence.  The
 * effect size is reported at the scale that gave the smallest p.
 *
 * The scales: sqrt(tau_calls) and tau_calls tool calls, and a short one
 * counted in messages, the unit the null draws placements from.  Tool
 * calls measure the agent's work, not the conversation: an agent that
 * answers a question reads, tries and fails a few calls before the change
 * that helps, and in calls that question sits as far from its change as
 * any chatter of the agent's; the agent also talks right before nearly
 * every edit, so at one call a placement on its line scores like the
 * question (issue 15: a 1-call scale added no power on tests/plant2).  In
 * messages the question stays next to its change however many calls the
 * work took.  A question always has an answer after it - the agent's
 * reply - so the first message after the question is not counted as
 * distance: d messages between question and change weigh exp(-(d - 1)),
 * d = 0 and 1 both 1.  Without that a real question always lost to a
 * placement on its own reply (scale 1 message counting every message:
 * power 0.03 on tests/plant2's q3 sets).
 *
 * Null: which messages are questions is random - the run's questions are
 * moved to nq distinct positions drawn from every message of the run
 * (human or agent, questions included: the moments someone spoke), as a
 * person would who asks without regard to the agent's progress.  Uniform
 * positions over all tool calls were tried first: questions can only come
 * between turns, so that null was conservative (1 % of null runs below
 * 0.05 on tests/plant2).  S is discrete (often 0 when no question is near a
 * gain), so ranks are randomized: every sample (the observed placement
 * and each random one) draws a uniform tie-breaker U from the seeded
 * generator, shared by its scales, and the final p is the randomized
 * p = (#{m0 < m} + U (#{m0 = m} + 1)) / (N + 1) of the min-p m, exactly
 * uniform under the null, where the usual (1 + #{S0 >= S}) / (N + 1) piles
 * up at 1 (11-22 % of null runs before).  A second null, every question
 * position shifted circularly by one random offset (arXiv 2512.17372),
 * keeps the questions' spacing (on the message clock a shifted question
 * sits after the last message at or before its new call); its p (min-p
 * the same way) is reported
 * beside, not combined.  Effect size: S / mean(S0) and (S - mean) / sd
 * over the placements, at the chosen scale.
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
static double rand_p(size_t above, size_t ties, size_t n, uint64_t *st)
{
	return ((double)above + rt_unif(st) * ((double)ties + 1.0)) /
	       ((double)n + 1.0);
}

/* A sample's value at one scale with its tie-breaker, for ranking. */
struct rk {
	double s, u;
	uint32_t j;
};

/* Descending by value, then tie-breaker: rank 0 is the most extreme. */
static int cmp_rk(const void *a, const void *b)
{
	const struct rk *x = a, *y = b;

	if (x->s != y->s)
		return x->s > y->s ? -1 : 1;
	if (x->u != y->u)
		return x->u > y->u ? -1 : 1;
	return x->j < y->j ? -1 : x->j > y->j;
}

int kt_an_minp(const double *s, size_t ns, size_t n, uint64_t *st,
	       double *pk, double *p, size_t *chosen)
{
	struct rk *v = malloc((n + 1) * sizeof(*v));
	uint32_t *m = malloc((n + 1) * sizeof(*m));
	double *u = malloc((n + 1) * sizeof(*u));
	size_t above = 0, ties = 0;

	if (!v || !m || !u || !ns || n >= UINT32_MAX) {
		free(v);
		free(m);
		free(u);
		return !ns || n >= UINT32_MAX ? KT_EINVAL : KT_ENOMEM;
	}
	for (size_t j = 0; j <= n; j++) {
		u[j] = rt_unif(st);
		m[j] = UINT32_MAX;
	}
	*chosen = ns - 1;
	for (size_t k = ns; k-- > 0;) {
		for (size_t j = 0; j <= n; j++) {
			/* equal up to rounding: a tie, decided by U */
			v[j].s = round(s[k * (n + 1) + j] * 1e12) / 1e12;
			v[j].u = u[j];
			v[j].j = (uint32_t)j;
		}
		qsort(v, n + 1, sizeof(*v), cmp_rk);
		for (size_t r = 0; r <= n; r++)
			if ((uint32_t)r < m[v[r].j])
				m[v[r].j] = (uint32_t)r;
		for (size_t r = 0; r <= n; r++)
			if (!v[r].j) {
				/* the observed sample's own randomized p */
				pk[k] = ((double)r + 1.0) / ((double)n + 1.0);
				/* the longest scale wins ties (the loop
				 * runs from it down) */
				if (pk[k] < pk[*chosen])
					*chosen = k;
				break;
			}
	}
	for (size_t j = 1; j <= n; j++) {
		above += m[j] < m[0];
		ties += m[j] == m[0];
	}
	*p = rand_p(above, ties, n, st);
	free(v);
	free(m);
	free(u);
	return KT_OK;
}

/* exp(-d / scale) for d = 0..win into ex[0..win]; on the message clock
 * the first message after a question (its answer) is no distance. */
static void decay(double *ex, uint32_t win, double scale, int msgs)
{
	for (uint32_t d = 0; d <= win; d++)
		ex[d] = exp(-(double)(msgs && d ? d - 1 : d) / scale);
}

/* A run's anchors and what scores a placement against them. */
struct clocks {
	const uint32_t *anc_m, *lo_m;  /* anchor: message slots before it;
					  the first slot within win calls */
	const uint32_t *anc_c, *pcall; /* anchor's call; call of each slot
					  position (1-based) */
	const uint32_t *grp;           /* anchor's new best (anchors of one
					  new best are consecutive) */
	const double *w, *ex;          /* weights of new bests; decay,
					  scale-major */
	size_t na, ns;
	uint32_t win;
	uint64_t *bm;                  /* bitmap of positions, zero between
					  calls */
};

/* S at every scale (out[0..ns)) of questions at message positions
 * pm[0..n) (1-based; 0: before any message, scores nothing).  Each anchor
 * takes the nearest set position before it, found a word at a time, at
 * most win calls back; scale 0 weighs its distance in messages (beyond
 * win: nothing), the others in calls.  One search serves both clocks:
 * positions and calls run in the same order.  A new best scores the
 * closest of its anchors' questions (blame's lag: a question to the first
 * edit of the change after it). */
static void score(const struct clocks *k, const uint32_t *pm, size_t n,
		  double *out)
{
	size_t wd = (size_t)k->win + 1;
	double best[KT_AN_SCALES] = {0};

	bits(k->bm, pm, n, 1);
	k->bm[0] &= ~1ull;
	for (size_t i = 0; i < k->ns; i++)
		out[i] = 0;
	for (size_t a = 0; a < k->na; a++) {
		uint32_t x = k->anc_m[a], lo = k->lo_m[a];
		size_t wi = x >> 6;
		uint64_t m = k->bm[wi] & (~0ull >> (63 - (x & 63)));

		if (a && k->grp[a] != k->grp[a - 1])
			for (size_t i = 0; i < k->ns; i++) {
				out[i] += k->w[k->grp[a - 1]] * best[i];
				best[i] = 0;
			}
		if (!x || lo > x)
			continue;
		for (;;) {
			if (wi == lo >> 6)
				m &= ~0ull << (lo & 63);
			if (m) {
				uint32_t p = (uint32_t)(wi * 64 + 63 -
							(size_t)__builtin_clzll(m)),
					 dc = k->anc_c[a] - k->pcall[p];

				if (x - p <= k->win)
					best[0] = fmax(best[0], k->ex[x - p]);
				for (size_t i = 1; i < k->ns; i++)
					best[i] = fmax(best[i],
						       k->ex[i * wd + dc]);
				break;
			}
			if (wi == lo >> 6)
				break;
			m = k->bm[--wi];
		}
	}
	for (size_t i = 0; k->na && i < k->ns; i++)
		out[i] += k->w[k->grp[k->na - 1]] * best[i];
	bits(k->bm, pm, n, 0);
}

/* Whether event i is a message slot: where a question could be asked. */
static int is_slot(const kt_an_run *r, size_t i)
{
	const kt_an_ev *e = &r->ev[i];

	/* not by text: how a run was loaded must not change p */
	return kt_an_is_question_ev(r, i) ||
	       (e->kind == KT_KIND_MESSAGE && !e->meta &&
		(e->human || (e->role != KT_AN_ROLE_USER &&
			      e->role != KT_AN_ROLE_SYSTEM)));
}

int kt_an_runtest(const kt_an_run *r, const kt_an_opts *o, kt_an_blame *b)
{
	const kt_an_series *se = &b->series;
	uint32_t *anc = NULL, *ancm = NULL, *lom = NULL, *grp = NULL,
		 *qc = NULL,
		 *qm = NULL, *tm = NULL, *idx = NULL, *pcall = NULL,
		 *before = NULL, *cum = NULL, len = r->ncalls + 1,
		 win = (uint32_t)(o->window_calls < 0 ? 0 : o->window_calls);
	double *w = NULL, *ex = NULL, *sr = NULL, *ss = NULL;
	double sum = 0, sum2 = 0, pk[KT_AN_SCALES];
	uint64_t *bm = NULL;
	size_t nslot = 0, na = 0, nq = 0, ns = 0, np, c, nev = r->nev + 1,
	       nb = 0, nanc = r->nev + se->n + 1;
	uint64_t st = o->seed;
	struct clocks ck;
	int rc = KT_ENOMEM;

	b->p_random = b->p_shift = b->p_value = -1;
	b->s_null_mean = b->s_null_sd = -1;
	b->n_newbest = 0;
	b->permutations = o->permutations;
	b->seed = o->seed;
	b->no_calls = r->ncalls == 0;
	/* 1 message, then sqrt(tau) and tau calls: see the top */
	b->scale_msgs[ns] = 1;
	b->scale[ns++] = 1;
	/* without tool calls every lag in calls is 0: a call scale weighs
	 * every question alike, so it would only add a test of nothing to
	 * min-p (a larger p for the same S); the message scale alone */
	if (o->tau_calls > 1 && !b->no_calls) {
		b->scale_msgs[ns] = 0;
		b->scale[ns++] = sqrt(o->tau_calls);
	}
	if (!b->no_calls) {
		b->scale_msgs[ns] = 0;
		b->scale[ns++] = o->tau_calls > 1 ? o->tau_calls : 1;
	}
	b->nscales = ns;
	b->chosen = ns - 1;
	for (size_t k = 0; k < ns; k++)
		b->p_scale[k] = -1;
	np = o->permutations > 0 ? (size_t)o->permutations : 0;
	/* anchors: at most one per edit, or the measurement */
	anc = malloc(nanc * sizeof(*anc));
	ancm = malloc(nanc * sizeof(*ancm));
	lom = malloc(nanc * sizeof(*lom));
	grp = malloc(nanc * sizeof(*grp));
	w = malloc((se->n + 1) * sizeof(*w));
	qc = malloc(nev * sizeof(*qc));
	qm = malloc(nev * sizeof(*qm));
	tm = malloc(nev * sizeof(*tm));
	idx = malloc(nev * sizeof(*idx));
	pcall = malloc((nev + 1) * sizeof(*pcall));
	before = malloc(nev * sizeof(*before));
	cum = calloc((size_t)len, sizeof(*cum));
	bm = calloc((nev + 1) / 64 + 1, sizeof(*bm));
	ex = malloc(ns * ((size_t)win + 1) * sizeof(*ex));
	/* S of every sample, scale-major: [k][0] the observed, [k][1..np]
	 * the random placements (sr) or shifts (ss) */
	sr = malloc(ns * (np + 1) * sizeof(*sr));
	ss = malloc(ns * (np + 1) * sizeof(*ss));
	if (!anc || !ancm || !lom || !grp || !w || !qc || !qm || !tm || !idx ||
	    !pcall || !before || !cum || !bm || !ex || !sr || !ss)
		goto out;
	for (size_t k = 0; k < ns; k++)
		decay(ex + k * ((size_t)win + 1), win, b->scale[k],
		      b->scale_msgs[k]);
	/* message slot i (run order) is position i + 1, at call
	 * pcall[i + 1]; before[e]: slots before event e; cum[c]: slots at or
	 * before call c (where a question shifted to c lands) */
	for (size_t i = 0; i < r->nev; i++) {
		before[i] = (uint32_t)nslot;
		if (!is_slot(r, i))
			continue;
		if (kt_an_is_question_ev(r, i) && !kt_an_other_series_q(r, se, i)) {
			qc[nq] = r->ev[i].call;
			qm[nq++] = (uint32_t)nslot + 1;
		}
		idx[nslot] = (uint32_t)nslot;
		pcall[++nslot] = r->ev[i].call;
		if (r->ev[i].call < len)
			cum[r->ev[i].call]++;
	}
	before[r->nev] = (uint32_t)nslot;
	for (uint32_t k = 1; k < len; k++)
		cum[k] += cum[k - 1];
	for (size_t i = 1; i < se->n; i++) {
		const kt_an_point *p = &se->pt[i];
		double prev = se->pt[i - 1].best;
		size_t n0 = na;

		if (p->outlier || !(p->speedup > prev) || prev <= 0)
			continue;
		/* every edit of the change (since the measurement before,
		 * left-out results cutting nothing, as the jump's edits) is
		 * an anchor: a question between two of its edits is taken
		 * up by the later one, as blame's lag says.  An edit with
		 * no message slot since the anchor before adds nothing (its
		 * nearest question is the same, farther). */
		for (size_t k = kt_an_run_lower(r, se->pt[i - 1].seq + 1);
		     k < r->nev && r->ev[k].seq < p->seq; k++) {
			if (r->ev[k].kind != KT_KIND_EDIT ||
			    (na > n0 && ancm[na - 1] == before[k]))
				continue;
			anc[na] = r->ev[k].call;
			ancm[na] = before[k];
			grp[na++] = (uint32_t)nb;
		}
		/* no edit: the measurement's own place (every message up to
		 * it is before) */
		if (na == n0) {
			anc[na] = p->call;
			ancm[na] = before[kt_an_run_lower(r, p->seq + 1)];
			grp[na++] = (uint32_t)nb;
		}
		for (size_t a = n0; a < na; a++) {
			uint32_t at = anc[a];

			/* slots at calls >= at - win: after the
			 * cum[at - win - 1]th */
			lom[a] = (at > win && at - win - 1 < len ?
				  cum[at - win - 1] : 0) + 1;
		}
		w[nb++] = log(p->speedup / prev);
	}
	b->nquestions = nq;
	b->n_newbest = nb;
	ck = (struct clocks){ ancm, lom, anc, pcall, grp, w, ex, na, ns, win,
			      bm };
	score(&ck, qm, nq, b->s_scale);
	b->s_obs = b->s_scale[ns - 1];
	if (!np || !na || !nq) {
		rc = KT_OK;
		goto out;
	}
	for (size_t k = 0; k < ns; k++)
		sr[k * (np + 1)] = ss[k * (np + 1)] = b->s_scale[k];
	for (size_t p = 1; p <= np; p++) {
		double s0[KT_AN_SCALES];
		uint32_t off = 1 + (uint32_t)(rt_next(&st) % (len > 1 ? len - 1 : 1));

		/* partial Fisher-Yates: nq distinct message slots */
		for (size_t i = 0; i < nq; i++) {
			size_t k = i + (size_t)(rt_next(&st) % (nslot - i));
			uint32_t t = idx[i];

			idx[i] = idx[k];
			idx[k] = t;
			tm[i] = idx[i] + 1;
		}
		score(&ck, tm, nq, s0);
		for (size_t k = 0; k < ns; k++)
			sr[k * (np + 1) + p] = s0[k];
		if (len < 2)
			continue;
		for (size_t i = 0; i < nq; i++)
			tm[i] = cum[qc[i] + off >= len ? qc[i] + off - len :
				    qc[i] + off];
		score(&ck, tm, nq, s0);
		for (size_t k = 0; k < ns; k++)
			ss[k * (np + 1) + p] = s0[k];
	}
	/* a run without tool calls (a round log, import --map) has no call
	 * clock to shift over (offsets 1 .. len - 1: none): every shifted
	 * placement would pile every question on the last message, and its
	 * p would read as tiny - not computed instead */
	if ((rc = kt_an_minp(sr, ns, np, &st, b->p_scale, &b->p_random,
			     &b->chosen)) ||
	    (len >= 2 &&
	     (rc = kt_an_minp(ss, ns, np, &st, pk, &b->p_shift, &c))))
		goto out;
	b->p_value = b->p_random;
	b->s_obs = b->s_scale[b->chosen];
	for (size_t p = 1; p <= np; p++) {
		double s0 = sr[b->chosen * (np + 1) + p];

		sum += s0;
		sum2 += s0 * s0;
	}
	b->s_null_mean = sum / (double)np;
	b->s_null_sd = sqrt(fmax(0, sum2 / (double)np -
				 b->s_null_mean * b->s_null_mean));
	rc = KT_OK;
out:
	free(anc);
	free(ancm);
	free(lom);
	free(grp);
	free(w);
	free(qc);
	free(qm);
	free(tm);
	free(idx);
	free(pcall);
	free(before);
	free(cum);
	free(bm);
	free(ex);
	free(sr);
	free(ss);
	return rc;
}
