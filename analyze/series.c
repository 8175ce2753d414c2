/*
 * series.c - the performance series of a run (loading: load.c).
 *
 * Speedup basis (issue 4, analysis.md 2.6(a)): the recorded speedup or
 * reference time / kernel time; a run with no reference anywhere is taken
 * relative to its first correct result per workload.  Only correct results
 * count: when any bench of the run says correct:true, only those; when none
 * says anything (KernelAgent rounds carry no check), the unknown ones, but
 * never correct:false.
 *
 * Noise (analysis.md 2.6(a)2, Hoefler & Belli SC'15: robust, nonparametric):
 * 1. pooled 1.4826*MAD of log-speedup over repeats of one source hash;
 * 2. else the recorded spread, median over points of ln(max/min)/4 (the
 *    range rule for ~n>=20 repetitions), capped at 0.1;
 * 3. else, with >= 6 points, the lower quartile of |successive log
 *    differences| / 0.4506 (for d ~ N(0, 2 sigma^2) the 25th percentile of
 *    |d| is 0.3186*sqrt(2)*sigma); the lower quartile stays put when up to
 *    half of the steps are real changes (jumps, failed attempts);
 * 4. else o->sigma_default (2 %, the corpus-level default of 2.6(a)2).
 * The estimate never goes below o->sigma_floor.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "an_int.h"

void kt_an_opts_default(kt_an_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->min_gain = 1.05;
	o->z = 3.0;
	o->sigma_default = 0.02;
	o->sigma_floor = 0.005;
	o->merge_rounds = 2;
	o->window_calls = 60;
	o->tau_calls = 15.0;
	o->tau_min = 60.0;
	o->w_self = 0.3;
	o->seed = 1;
	o->permutations = 2000;
	o->stall_rounds = 4;
	o->stall_calls = 40;
}

/* ---- series ------------------------------------------------------------------ */
/* The k-th smallest of v[0..n) (k < n), reordering v so that v[0..k) <=
 * v[k] <= v(k..n): N. Wirth's FIND (Algorithms + Data Structures =
 * Programs, 1976, 2.3.4; after Hoare's Algorithm 65), with a
 * median-of-three pivot.  The same value a full sort puts at k, at linear
 * expected cost. */
static double kth(double *v, size_t n, size_t k)
{
	long l = 0, r = (long)n - 1, kk = (long)k;

	while (l < r) {
		double a = v[l], b = v[kk], c = v[r], x, t;
		long i = l, j = r;

		x = a < b ? (b < c ? b : (a < c ? c : a)) :
			    (a < c ? a : (b < c ? c : b));
		do {
			while (v[i] < x)
				i++;
			while (x < v[j])
				j--;
			if (i <= j) {
				t = v[i];
				v[i] = v[j];
				v[j] = t;
				i++;
				j--;
			}
		} while (i <= j);
		if (j < kk)
			l = i;
		if (kk < i)
			r = j;
	}
	return v[k];
}

/* Median of v[0..n) (reorders v). */
static double median(double *v, size_t n)
{
	double a, b;

	if (!n)
		return 0;
	if (n % 2)
		return kth(v, n, n / 2);
	b = kth(v, n, n / 2);
	/* the largest of the lower half, which kth left below n / 2 */
	a = v[0];
	for (size_t i = 1; i < n / 2; i++)
		if (v[i] > a)
			a = v[i];
	return 0.5 * (a + b);
}

/* qsort has no context argument in C11: the series being sorted */
static const kt_an_point *sort_pts;
static const kt_an_run *sort_run;

/* Groups of equal sources, members in point order (the order of groups
 * does not matter: only the pooled deviations do). */
static int cmp_hash(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	const uint64_t *hx = sort_run->m[sort_pts[x].meas].hkey,
		       *hy = sort_run->m[sort_pts[y].meas].hkey;

	if (hx[0] != hy[0])
		return hx[0] < hy[0] ? -1 : 1;
	if (hx[1] != hy[1])
		return hx[1] < hy[1] ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int same_src(const kt_an_meas *a, const kt_an_meas *b)
{
	return a->hkey[0] == b->hkey[0] && a->hkey[1] == b->hkey[1];
}

int kt_an_series_build(const kt_an_run *r, const kt_an_opts *o,
		       kt_an_series *out)
{
	size_t i, k, np = 0, any_true = 0, any_ref = 0, base[64], nbase = 0;
	double *val = NULL, *tmp = NULL;
	char *use = NULL;
	int rc = KT_ENOMEM;

	memset(out, 0, sizeof(*out));
	out->basis = "no benchmark results";
	out->noise_src = "default";
	out->sigma = o->sigma_default;
	if (!r->nm) {
		out->theta = fmax(log(o->min_gain), o->z * out->sigma * M_SQRT2);
		return KT_OK;
	}
	val = kt_an_big(r->nm * sizeof(*val));
	use = calloc(r->nm, 1);
	tmp = kt_an_big((r->nm * 2 + 4) * sizeof(*tmp));
	out->pt = kt_an_big(r->nm * sizeof(*out->pt));
	if (!val || !use || !tmp || !out->pt)
		goto out;
	for (i = 0; i < r->nm; i++) {
		const kt_an_meas *m = &r->m[i];

		if (o->workload && strcmp(m->workload, o->workload))
			continue;
		any_true += m->correct == 1;
		any_ref += m->speedup > 0 || (m->ref_ms > 0 && m->time_ms > 0);
	}
	out->strict_correct = any_true > 0;
	out->has_ref = any_ref > 0;
	for (i = 0; i < r->nm; i++) {
		const kt_an_meas *m = &r->m[i];
		int ok = out->strict_correct ? m->correct == 1 : m->correct != 0;

		if (o->workload && strcmp(m->workload, o->workload))
			continue;
		if (!ok) {
			out->n_excluded++;
			if (m->correct == 0)
				out->n_incorrect++;
			else
				out->n_unknown++;
			continue;
		}
		if (any_ref) {
			if (m->speedup > 0 && isfinite(m->speedup))
				val[i] = m->speedup;
			else if (m->ref_ms > 0 && m->time_ms > 0)
				val[i] = m->ref_ms / m->time_ms;
		} else if (m->time_ms > 0 && isfinite(m->time_ms)) {
			/* first correct time of the same workload (few distinct
			 * workloads: a short list of first indexes) */
			for (k = 0; k < nbase; k++)
				if (!strcmp(r->m[base[k]].workload, m->workload))
					break;
			if (k == nbase && nbase < 64)
				base[nbase++] = i;
			val[i] = (k < nbase ? r->m[base[k]].time_ms : m->time_ms) /
				 m->time_ms;
		}
		if (val[i] > 0 && isfinite(val[i]) && val[i] < 1e9)
			use[i] = 1;
		else {
			out->n_excluded++;
			out->n_notime++;
		}
	}
	out->basis = any_ref ? "reference time / kernel time (recorded speedup "
			       "or ref_time_ms)" :
			       "relative to the first correct result (no "
			       "reference time recorded)";
	/* one point per tool call: bench events that share a parent */
	for (i = 0; i < r->nm; i++) {
		double lsum;
		size_t cnt, last = i;

		if (!use[i])
			continue;
		lsum = log(val[i]);
		cnt = 1;
		for (k = i + 1; k < r->nm; k++) {
			uint64_t pa = r->ev[r->m[i].ev].parent;

			if (!pa || r->ev[r->m[k].ev].parent != pa)
				break;
			if (use[k]) {
				lsum += log(val[k]);
				cnt++;
				last = k;
				use[k] = 0;
			}
		}
		out->pt[np].meas = i;
		out->pt[np].seq = r->ev[r->m[last].ev].seq;
		out->pt[np].call = r->ev[r->m[last].ev].call;
		out->pt[np].speedup = exp(lsum / (double)cnt);
		np++;
	}
	out->n = np;
	/* noise 1: repeats of one source hash (points sorted by hash, each
	 * group's deviations from its median) */
	{
		size_t nd = 0, *ord = malloc((np + 1) * sizeof(*ord));

		if (!ord)
			goto out;
		for (i = 0; i < np; i++)
			ord[i] = i;
		sort_pts = out->pt;
		sort_run = r;
		qsort(ord, np, sizeof(*ord), cmp_hash);
		for (i = 0; i < np;) {
			const kt_an_meas *h = &r->m[out->pt[ord[i]].meas];
			size_t e = i + 1, g;
			double grp[64], gc[64], md;

			while (e < np && same_src(&r->m[out->pt[ord[e]].meas], h))
				e++;
			g = e - i < 64 ? e - i : 64;
			if (h->hkey[0] && g >= 2) {
				for (k = 0; k < g; k++)
					grp[k] = log(out->pt[ord[i + k]].speedup);
				memcpy(gc, grp, g * sizeof(double));
				md = median(gc, g);
				for (k = 0; k < g && nd < r->nm * 2; k++)
					tmp[nd++] = fabs(grp[k] - md);
			}
			i = e;
		}
		free(ord);
		if (nd >= 3) {
			out->sigma = 1.4826 * median(tmp, nd);
			out->noise_src = "repeats of the same source hash";
			goto floor;
		}
	}
	/* noise 2: recorded spread */
	{
		size_t nd = 0;

		for (i = 0; i < np; i++) {
			const kt_an_meas *m = &r->m[out->pt[i].meas];

			if (m->min_ms > 0 && m->max_ms >= m->min_ms)
				tmp[nd++] = log(m->max_ms / m->min_ms) / 4.0;
		}
		if (nd >= 1 && nd * 2 >= np) {
			out->sigma = fmin(0.1, median(tmp, nd));
			out->noise_src = "recorded spread (ln(max/min)/4)";
			goto floor;
		}
	}
	/* noise 3: successive differences */
	if (np >= 6) {
		size_t nd = 0;

		for (i = 1; i < np; i++)
			tmp[nd++] = fabs(log(out->pt[i].speedup) -
					 log(out->pt[i - 1].speedup));
		out->sigma = kth(tmp, nd, (nd - 1) / 4) / 0.4506;
		/* few differences give a noisy quartile: shrink toward the
		 * default as if it were 4 more observations */
		out->sigma = sqrt(((double)nd * out->sigma * out->sigma +
				   4.0 * o->sigma_default * o->sigma_default) /
				  ((double)nd + 4.0));
		out->noise_src = "successive differences (lower quartile, "
				 "shrunk toward the default)";
	}
floor:
	if (!(out->sigma >= o->sigma_floor))
		out->sigma = o->sigma_floor;
	out->theta = fmax(log(o->min_gain), o->z * out->sigma * M_SQRT2);
	/* best-so-far with significant new bests.  The test compares a
	 * candidate with the level of the current plateau - the median of its
	 * points within theta of the best - not with the best itself, which
	 * the luckiest measurement inflates.  A new best must be confirmed:
	 * one of the next 3 measurements (when there are any) is also above
	 * that level by theta; otherwise it was a lucky measurement and is
	 * skipped, not counted toward the best.  While the run's first
	 * plateau rests on one point (often a cold run) the bar is
	 * max(2 theta, ln 1.2). */
	{
		double best = 0;
		size_t ps = 0; /* first point of the current plateau */

		for (i = 0; i < np; i++) {
			kt_an_point *p = &out->pt[i];

			/* only a new best can be a jump; the plateau level costs a
			 * median, so it is computed for those points only */
			if (i && p->speedup > best) {
				double lb = log(best), lvl, bar = out->theta;
				size_t nl = 0;

				for (k = ps; k < i; k++)
					if (!out->pt[k].outlier &&
					    log(out->pt[k].speedup) >= lb - out->theta)
						tmp[nl++] = log(out->pt[k].speedup);
				lvl = nl ? median(tmp, nl) : lb;
				/* the run's first plateau resting on one point (often
				 * a cold run): not a baseline to trust for small gains */
				if (ps == 0 && nl <= 1)
					bar = fmax(2 * bar, log(1.2));
				if (p->speedup > best && log(p->speedup) - lvl > bar) {
					int conf = i + 1 == np;

					for (k = i + 1; k < np && k <= i + 3; k++)
						if (log(out->pt[k].speedup) - lvl > bar)
							conf = 1;
					if (!conf) {
						p->best = best;
						p->outlier = 1;
						continue;
					}
					p->accepted = 1;
					ps = i;
				}
			}
			if (p->speedup > best)
				best = p->speedup;
			p->best = best;
		}
	}
	rc = KT_OK;
out:
	kt_an_big_free(val);
	free(use);
	kt_an_big_free(tmp);
	if (rc)
		kt_an_series_free(out);
	return rc;
}

int kt_an_meas_excluded(const kt_an_run *r, const kt_an_series *se,
			const kt_an_opts *o, size_t i)
{
	const kt_an_meas *m = &r->m[i];
	double v = 0;

	/* the tests of kt_an_series_build, in its order */
	if (o->workload && strcmp(m->workload, o->workload))
		return KT_AN_EX_NONE;
	if (!(se->strict_correct ? m->correct == 1 : m->correct != 0))
		return m->correct == 0 ? KT_AN_EX_INCORRECT : KT_AN_EX_UNKNOWN;
	if (se->has_ref) {
		if (m->speedup > 0 && isfinite(m->speedup))
			v = m->speedup;
		else if (m->ref_ms > 0 && m->time_ms > 0)
			v = m->ref_ms / m->time_ms;
	} else if (m->time_ms > 0 && isfinite(m->time_ms)) {
		/* relative to a first correct time: finite when this one is */
		v = 1;
	}
	return v > 0 && isfinite(v) && v < 1e9 ? KT_AN_EX_NONE :
						 KT_AN_EX_NOTIME;
}

int kt_an_workloads(const kt_an_run *r, const char ***out, size_t *n)
{
	const char **w = NULL;
	size_t nw = 0, i, k;

	*out = NULL;
	*n = 0;
	/* workloads come in runs (a problem's attempts, then the next): the
	 * last one found is checked first */
	for (i = 0; i < r->nm; i++) {
		const char *x = r->m[i].workload;

		if (nw && (w[nw - 1] == x || !strcmp(w[nw - 1], x)))
			continue;
		for (k = 0; k < nw; k++)
			if (!strcmp(w[k], x))
				break;
		if (k < nw)
			continue;
		if (!(nw & (nw - 1)) || !nw) {
			const char **t = realloc(w, (nw ? nw * 2 : 4) *
						 sizeof(*w));

			if (!t) {
				free(w);
				return KT_ENOMEM;
			}
			w = t;
		}
		w[nw++] = x;
	}
	*out = w;
	*n = nw;
	return KT_OK;
}

void kt_an_series_free(kt_an_series *s)
{
	kt_an_big_free(s->pt);
	s->pt = NULL;
	s->n = 0;
}
