/*
 * series.c - the performance series of one key of a run (keys and sweeps:
 * measure.c; loading: load.c).  FORMAT.md "Measurement model" is the
 * user's account of the rules here.
 *
 * Value (issue 4, analysis.md 2.6(a)): the recorded speedup or reference
 * time / kernel time; a series with no reference is taken relative to its
 * first usable result.  correct:false never counts; correctness not
 * checked counts only when no result of the series was checked correct
 * (nothing checked: KernelAgent rounds, free text; or only failed checks)
 * or under --assume-correct, and is said so.
 *
 * Noise (issue 15; Hoefler & Belli SC'15: noise is a property of the
 * measurement, so it is read from measurements of the same thing):
 * 1. pooled SD of the log value over repeats of unchanged code (one
 *    source hash or candidate, per scenario), with at least 2 degrees of
 *    freedom, over c4 of them (unbiased: c4());
 * 1b. else, in a series with a reference, the pooled SD of ln ref_time_ms
 *    over the reference's repeats, with the same estimator (s / c4 of its
 *    degrees of freedom), x sqrt 2 for the ratio (ref_repeats_sd());
 *    in 1 and 1b one outlying repeat a group is left out (group_ss());
 * 2. else the spread the results report, median of ln(max/min)/4 (the
 *    range rule for ~n>=20 repetitions), capped at 0.1;
 * 3. else o->sigma_default (3 %: the top of the 1-3 % run-to-run noise of
 *    warmed-up GPU timings; 2.6(a)2's corpus-level 2 % let 6 of 100
 *    pure-noise planted runs at 3 % noise report a jump).
 * Differences between successive candidates are never used: they hold
 * the very changes being looked for (11-25 % "noise" on KernelAgent runs
 * timed at 1-3 %).  The estimate never goes below o->sigma_floor.
 *
 * Gains are against the running best of the series, never against the
 * measurement before: KernelAgent MatVec round 8 gains x2.07 over round
 * 4's best, not x2.35 over round 7.  The running best is the best code's
 * mean over its repeats so far (best_level), and a series may be read as
 * kernel time against its mean reference (kernel_time_value): issue 15's
 * planted sessions at 5 % noise missed 9 of 69 jumps through a lucky
 * best and the reference's own noise in the ratio.
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
	o->sigma_default = 0.03;
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
	o->series_by = KT_AN_BY_DEFAULT;
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

/* ---- one result ------------------------------------------------------------- */
static int in_series(const kt_an_meas *m, const kt_an_opts *o)
{
	return !o->workload || !strcmp(m->key, o->workload);
}

/* Whether the recorded speedup sp is ref / t as printed: equal to it
 * within half a unit of sp's last decimal (the decimals of sp's shortest
 * form, at most 6).  A benchmark that prints "kernel time: 10.6547 ms",
 * "reference time: 3.8360 ms" and "speedup: 0.36x" gives the ratio to 4
 * significant figures and the speedup to 2: at 0.36 one unit of the last
 * decimal is 2.8 %, rounding that would pass for noise.  A speedup over
 * another baseline than ref (the graded one of a verifier that prints
 * two) differs by more, and is kept. */
static int speedup_is_ratio(double sp, double ref, double t)
{
	double q = ref / t, unit = 1;
	int d;

	if (!(sp > 0 && isfinite(sp) && ref > 0 && t > 0 && isfinite(q)))
		return 0;
	for (d = 0; d < 6; d++, unit /= 10) {
		double x = sp / unit;

		if (fabs(x - nearbyint(x)) <= 1e-9 * x)
			break;
	}
	/* the 1e-6 allows for the rounding of ref and t themselves */
	return fabs(q - sp) <= 0.5 * unit + 1e-6 * sp;
}

/* Log value of m: log speedup (recorded, or reference / kernel time) when
 * the series has a reference, else -log time; 0 when unusable.  A
 * recorded speedup that is the rounded ratio of the recorded times gives
 * way to that ratio (speedup_is_ratio). */
static int lval(const kt_an_meas *m, int has_ref, double *lv)
{
	double v = -1;

	if (has_ref) {
		if (m->speedup > 0 && isfinite(m->speedup) &&
		    !speedup_is_ratio(m->speedup, m->ref_ms, m->time_ms))
			v = m->speedup;
		else if (m->ref_ms > 0 && m->time_ms > 0)
			v = m->ref_ms / m->time_ms;
		if (!(v > 0 && isfinite(v) && v < 1e9))
			return 0;
		*lv = log(v);
		return 1;
	}
	if (!(m->time_ms > 0 && isfinite(m->time_ms) && m->time_ms < 1e12))
		return 0;
	*lv = -log(m->time_ms);
	return 1;
}

/* Why m is left out (KT_AN_EX_*), given whether the series has a check
 * saying correct (strict) and a reference. */
static int ex_reason(const kt_an_meas *m, int strict, int has_ref,
		     const kt_an_opts *o)
{
	double lv;

	if (m->unparsed)
		return KT_AN_EX_UNPARSED;
	if (m->failed)
		return KT_AN_EX_FAILED;
	if (m->correct == 0)
		return KT_AN_EX_INCORRECT;
	if (m->correct < 0 && strict && !o->assume_correct)
		return KT_AN_EX_UNKNOWN;
	if (lval(m, has_ref, &lv))
		return KT_AN_EX_NONE;
	/* a time is there, but the series reads speedups: say what lacks */
	return has_ref && m->time_ms > 0 && isfinite(m->time_ms) ?
		KT_AN_EX_NOREF : KT_AN_EX_NOTIME;
}

/* ---- noise from repeats of unchanged code --------------------------------------- */
/* qsort has no context argument in C11: the run being sorted, and by
 * result index the edits recorded before it (NULL: not used) */
static const kt_an_run *sort_run;
static const uint32_t *sort_epoch;

/* The code a result measured: its source hash or candidate; else, in a
 * run that records edits, the edits before it - results with no edit
 * between them measured the same code (kt_an_code_changed says so too:
 * repeats.jsonl of issue 15's tester, 1.0 / 1.1 / 0.9 ms re-runs before
 * any edit, are the run's only repeats of unchanged code); 0,0 when
 * unknown (a run with no edit cannot tell, FORMAT.md "Code under test").
 * Not its tool call: one script's output often holds several sizes under
 * one label (vsla "GPU Benchmark" x3), which are no repeats; the scenario
 * tells those apart. */
static void code_id(const kt_an_run *r, const kt_an_meas *m, uint64_t id[2])
{
	id[0] = m->hkey[0];
	id[1] = m->hkey[1];
	if (!kt_an_has_code(m) && sort_epoch) {
		/* hkey[0] of a hash is odd or a hash; this tag is neither
		 * likely to meet */
		id[0] = 0x45444954534e4f4eull; /* "EDITSNON" */
		id[1] = (uint64_t)sort_epoch[m - r->m] + 1;
	}
}

static int cmp_code(const void *a, const void *b)
{
	const kt_an_meas *x = &sort_run->m[*(const size_t *)a],
			 *y = &sort_run->m[*(const size_t *)b];
	uint64_t ix[2], iy[2];
	int c;

	code_id(sort_run, x, ix);
	code_id(sort_run, y, iy);
	if (ix[0] != iy[0])
		return ix[0] < iy[0] ? -1 : 1;
	if (ix[1] != iy[1])
		return ix[1] < iy[1] ? -1 : 1;
	if ((c = strcmp(x->scenario, y->scenario)))
		return c;
	return x->ev < y->ev ? -1 : x->ev > y->ev;
}

/* t quantile t(0.9995, nu): the two-sided 0.1 % point of Student's t
 * with nu degrees of freedom (nu >= 1), from the standard table (e.g.
 * Montgomery, appendix IV; checked against the incomplete beta function);
 * beyond 30 the value at 30, which errs towards keeping a repeat. */
static double t_999(size_t nu)
{
	static const double t[30] = {
		636.619, 31.599, 12.924, 8.610, 6.869, 5.959, 5.408, 5.041,
		4.781, 4.587, 4.437, 4.318, 4.221, 4.140, 4.073, 4.015, 3.965,
		3.922, 3.883, 3.850, 3.819, 3.792, 3.768, 3.745, 3.725, 3.707,
		3.690, 3.674, 3.659, 3.646 };

	return t[(nu < 1 ? 1 : nu > 30 ? 30 : nu) - 1];
}

/* The value of result i in a repeat group: lv[i], or ln ref_time_ms when
 * lv is NULL (reference repeats). */
static double grp_v(const kt_an_run *r, const double *lv, size_t i)
{
	return lv ? lv[i] : log(r->m[i].ref_ms);
}

/* Sum of squared deviations from their mean of the n values of group
 * g[0..n) (result indexes), the most outlying repeat left out when it is
 * one: a cold start or a neighbour's job makes one repeat x1.2-x3 slower
 * (vsla_cuda_dev: GPU vector_add at 256 timed 4.3-4.6 us six times and
 * 5.7 us once), and squared deviations let that one repeat set sigma.
 * The test is the studentized deleted residual (Belsley, Kuh & Welsch,
 * Regression Diagnostics, 1980, section 2.1): t_i = (x_i - mean of the
 * others) / (s of the others x sqrt(1 + 1/(n-1))), Student's t with n - 2
 * degrees of freedom for normal repeats, beyond t(0.9995, n - 2): a
 * normal repeat is left out once in 1000; 3 repeats or fewer never are
 * (nothing to judge by).  s of the others is at least 0.5 % (the sigma
 * floor), so that repeats printed to one figure (4.6 4.6 4.6 4.7 us) are
 * not taken for outliers against a zero spread.  *out is 1 when one was
 * left out, else 0; the degrees of freedom are then n - 2. */
static double group_ss(const kt_an_run *r, const double *lv,
		       const size_t *g, size_t n, int *out)
{
	double mean = 0, ss = 0, dmax = 0;
	size_t k;

	*out = 0;
	for (k = 0; k < n; k++)
		mean += grp_v(r, lv, g[k]);
	mean /= (double)n;
	for (k = 0; k < n; k++) {
		double d = grp_v(r, lv, g[k]) - mean;

		ss += d * d;
		dmax = fmax(dmax, fabs(d));
	}
	if (n >= 4 && dmax > 0) {
		/* leaving x out: x - mean of the others = n/(n-1) (x - mean);
		 * their squared deviations SS - n/(n-1) (x - mean)^2 */
		double m1 = (double)n / (double)(n - 1);
		double ss1 = ss - m1 * dmax * dmax;
		double s1 = sqrt(fmax(ss1, 0) / (double)(n - 2));
		double t = m1 * dmax /
			   (fmax(s1, 0.005) * sqrt(1 + 1 / (double)(n - 1)));

		if (t > t_999(n - 2)) {
			*out = 1;
			return fmax(ss1, 0);
		}
	}
	return ss;
}

/* Pooled SD of the log values lv[] (by result index) over groups of one
 * code and scenario: sum of squared deviations from each group's mean
 * (group_ss: an outlying repeat left out) over the degrees of freedom.
 * Returns the degrees of freedom (0: none); *nres the results used,
 * *ngroups the groups, *nout the repeats left out. */
static size_t pooled_sd(const kt_an_run *r, size_t *idx, size_t n,
			const double *lv, double *sd, size_t *nres,
			size_t *ngroups, size_t *nout)
{
	double ss = 0;
	size_t df = 0;

	*nres = *ngroups = *nout = 0;
	sort_run = r;
	qsort(idx, n, sizeof(*idx), cmp_code);
	for (size_t i = 0; i < n;) {
		size_t e = i + 1;
		uint64_t a[2], b[2];

		code_id(r, &r->m[idx[i]], a);
		for (; e < n; e++) {
			code_id(r, &r->m[idx[e]], b);
			if (a[0] != b[0] || a[1] != b[1] ||
			    strcmp(r->m[idx[i]].scenario, r->m[idx[e]].scenario))
				break;
		}
		if ((a[0] || a[1]) && e - i >= 2) {
			int out;

			ss += group_ss(r, lv, idx + i, e - i, &out);
			df += e - i - 1 - (size_t)out;
			*nres += e - i - (size_t)out;
			*nout += (size_t)out;
			++*ngroups;
		}
		i = e;
	}
	*sd = df ? sqrt(ss / (double)df) : 0;
	return df;
}

/* c4(nu) = E[s] / sigma for a pooled SD s of nu degrees of freedom from
 * normal measurements: sqrt(2 / nu) Gamma((nu + 1) / 2) / Gamma(nu / 2)
 * (s^2 nu / sigma^2 is chi-square with nu degrees of freedom; the constant
 * of Shewhart charts, e.g. D. C. Montgomery, Introduction to Statistical
 * Quality Control, 6th ed., 2009, section 6.2 and appendix VI).  s is
 * low on average (0.92 sigma at 3, 0.95 at 5): s / c4 is unbiased, so
 * the threshold z sigma sqrt 2 is not low on average either. */
static double c4(size_t nu)
{
	double v = (double)nu;

	return sqrt(2.0 / v) * exp(lgamma((v + 1) / 2) - lgamma(v / 2));
}

/* ---- noise from repeats of the reference ------------------------------------- */
static int cmp_scen(const void *a, const void *b)
{
	const kt_an_meas *x = &sort_run->m[*(const size_t *)a],
			 *y = &sort_run->m[*(const size_t *)b];
	int c = strcmp(x->scenario, y->scenario);

	return c ? c : (x->ev < y->ev ? -1 : x->ev > y->ev);
}

/* Pooled SD (*sd) of ln(ref_time_ms) over the results of o's series that
 * time their reference, per scenario: a reference timed again with every
 * result is one unchanged code measured again and again (the tree-search
 * journal re-times PyTorch's GEMM with each of its 12 candidates); a
 * scenario whose reference is one figure throughout is left out.  An
 * incorrect result's reference ran all the same and counts; a failed or
 * unparsed one has none; an outlying timing is left out (group_ss).
 * idx holds r->nm indexes (scratch).  Returns the degrees of freedom;
 * *nres the timings used, *nout those left out. */
static size_t ref_repeats_sd(const kt_an_run *r, const kt_an_opts *o,
			     size_t *idx, double *sd, size_t *nres,
			     size_t *nout)
{
	double ss = 0;
	size_t n = 0, df = 0;

	*nres = *nout = 0;
	for (size_t i = 0; i < r->nm; i++) {
		const kt_an_meas *m = &r->m[i];

		if (in_series(m, o) && !m->unparsed && !m->failed &&
		    m->ref_ms > 0 && isfinite(m->ref_ms) && m->ref_ms < 1e12)
			idx[n++] = i;
	}
	sort_run = r;
	qsort(idx, n, sizeof(*idx), cmp_scen);
	for (size_t i = 0; i < n;) {
		size_t e = i + 1;
		int varies = 0;

		while (e < n && !strcmp(r->m[idx[i]].scenario,
					r->m[idx[e]].scenario)) {
			varies |= r->m[idx[e]].ref_ms != r->m[idx[i]].ref_ms;
			e++;
		}
		/* the same figure every time was not timed again: a stored
		 * or cached reference (tests/plant's 11.2894 ms on every
		 * line) tells nothing of the noise */
		if (e - i >= 2 && varies) {
			int out;

			ss += group_ss(r, NULL, idx + i, e - i, &out);
			df += e - i - 1 - (size_t)out;
			*nres += e - i - (size_t)out;
			*nout += (size_t)out;
		}
		i = e;
	}
	*sd = df ? sqrt(ss / (double)df) : 0;
	return df;
}

/* ---- the series ---------------------------------------------------------------- */
/* Mean log ratio of point a over point b, scenario by scenario (each
 * scenario's mean log value in either), over the scenarios both measured;
 * *nsh their number. */
static double sweep_cmp(const kt_an_run *r, const size_t *mem,
			const double *lv, size_t a0, size_t an, size_t b0,
			size_t bn, int *nsh)
{
	double d = 0;

	*nsh = 0;
	for (size_t i = a0; i < a0 + an; i++) {
		const char *sc = r->m[mem[i]].scenario;
		double sa = 0, sb = 0;
		size_t na = 0, nb = 0, k;

		for (k = a0; k < i; k++)
			if (!strcmp(r->m[mem[k]].scenario, sc))
				break;
		if (k < i)
			continue; /* this scenario was counted */
		for (k = i; k < a0 + an; k++)
			if (!strcmp(r->m[mem[k]].scenario, sc)) {
				sa += lv[mem[k]];
				na++;
			}
		for (k = b0; k < b0 + bn; k++)
			if (!strcmp(r->m[mem[k]].scenario, sc)) {
				sb += lv[mem[k]];
				nb++;
			}
		if (nb) {
			d += sa / (double)na - sb / (double)nb;
			++*nsh;
		}
	}
	return *nsh ? d / *nsh : 0;
}

/* Distinct scenarios of point [p0, p0 + pn). */
static int n_scen(const kt_an_run *r, const size_t *mem, size_t p0,
		  size_t pn)
{
	int n = 0;

	for (size_t i = p0; i < p0 + pn; i++) {
		size_t k;

		for (k = p0; k < i; k++)
			if (!strcmp(r->m[mem[k]].scenario, r->m[mem[i]].scenario))
				break;
		n += k == i;
	}
	return n;
}

/* Whether r records any edit (edits are loaded lazily: r->ned counts only
 * those read so far). */
static int has_edits(const kt_an_run *r)
{
	for (size_t i = 0; i < r->nev; i++)
		if (r->ev[i].kind == KT_KIND_EDIT)
			return 1;
	return 0;
}

int kt_an_one_command_ev(const kt_an_run *r, size_t a, size_t b)
{
	const kt_an_ev *x = &r->ev[a], *y = &r->ev[b];
	const kt_an_meas *ma, *mb;

	if (!x->parent || y->parent != x->parent)
		return 0;
	if (x->meas < 0 || y->meas < 0)
		return 1;       /* one command, whatever it printed */
	ma = &r->m[x->meas];
	mb = &r->m[y->meas];
	return !*ma->candidate || !*mb->candidate ||
	       !strcmp(ma->candidate, mb->candidate);
}

int kt_an_other_series_q(const kt_an_run *r, const kt_an_series *se,
			 size_t i)
{
	const kt_an_ev *e = &r->ev[i];
	long k;

	if (!se->key || !*se->key || !e->parent || e->parent >= e->seq)
		return 0;
	k = kt_an_run_find(r, e->parent);
	return k >= 0 && r->ev[k].kind == KT_KIND_BENCH &&
	       r->ev[k].meas >= 0 && r->m[r->ev[k].meas].key &&
	       strcmp(r->m[r->ev[k].meas].key, se->key);
}

int kt_an_one_command(const kt_an_run *r, const kt_an_meas *a,
		      const kt_an_meas *b)
{
	return kt_an_one_command_ev(r, a->ev, b->ev);
}

int kt_an_code_changed(const kt_an_run *r, uint64_t a, uint64_t b,
		       const kt_an_meas *ma, const kt_an_meas *mb, int edits)
{
	int ha = kt_an_has_code(ma), hb = kt_an_has_code(mb);
	long i;

	/* the hash covers the code under test only (import: harness, plot
	 * and note files are left out), so it outranks the edit events */
	if (ma->hashed && mb->hashed)
		return ma->hkey[0] != mb->hkey[0] || ma->hkey[1] != mb->hkey[1];
	i = kt_an_run_find(r, a);
	for (size_t k = i < 0 ? kt_an_run_lower(r, a) : (size_t)i;
	     k < r->nev && r->ev[k].seq < b; k++)
		if (r->ev[k].kind == KT_KIND_EDIT && r->ev[k].seq > a)
			return 1;
	if (ha && hb)
		return kt_an_code_differs(ma, mb);
	return !edits && !ha && !hb;
}

/* The level of one code state of a series so far: the mean log value of
 * its points (repeats of unchanged code measure one level; the mean of n
 * of them is the best estimate of it, where one lucky measurement is
 * not), and its last point.  A point without a code identity is a state
 * of its own. */
struct cstate {
	uint64_t id[2];
	const char *scen;
	double sum;
	size_t n, last;
	size_t pos;       /* in cstates.heap */
};

/*
 * The code states of a series and two indexes over them: a hash of (code,
 * scenario) to find a point's state, and a heap ordered by level, then by
 * last point, to find the best.  A linear search for each and a scan of
 * every state for the best after each point made the series quadratic in
 * its points: on a 103k-event run of tests/plant (12,785 bench results,
 * a new code every round) blame spent 56 % of its CPU there
 * (tests/bench/RESULTS.md, "Issue 21 ... p21r2").
 */
struct cstates {
	struct cstate *st;
	size_t n;
	size_t *heap;     /* state indexes; heap[0] the best */
	size_t *tab;      /* open addressing: state index + 1, 0 empty */
	size_t tmask;
};

/* State a is above state b: a higher level, or the same level measured
 * later (a tie goes to the latest measured). */
static int cs_above(const struct cstate *st, size_t a, size_t b)
{
	double la = st[a].sum / (double)st[a].n,
	       lb = st[b].sum / (double)st[b].n;

	return la > lb || (la == lb && st[a].last > st[b].last);
}

static void cs_swap(struct cstates *c, size_t i, size_t j)
{
	size_t t = c->heap[i];

	c->heap[i] = c->heap[j];
	c->heap[j] = t;
	c->st[c->heap[i]].pos = i;
	c->st[c->heap[j]].pos = j;
}

/* Heap order restored around state k, whose level changed either way. */
static void cs_fix(struct cstates *c, size_t k)
{
	size_t i = c->st[k].pos;

	while (i > 0 && cs_above(c->st, c->heap[i], c->heap[(i - 1) / 2])) {
		cs_swap(c, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l < c->n && cs_above(c->st, c->heap[l], c->heap[m]))
			m = l;
		if (l + 1 < c->n && cs_above(c->st, c->heap[l + 1], c->heap[m]))
			m = l + 1;
		if (m == i)
			break;
		cs_swap(c, i, m);
		i = m;
	}
}

/* Room for up to n states; 0 or KT_ENOMEM. */
static int cs_init(struct cstates *c, size_t n)
{
	size_t cap = 16;

	while (cap < 2 * n)
		cap *= 2;
	memset(c, 0, sizeof(*c));
	c->st = malloc(n * sizeof(*c->st));
	c->heap = malloc(n * sizeof(*c->heap));
	c->tab = calloc(cap, sizeof(*c->tab));
	c->tmask = cap - 1;
	return c->st && c->heap && c->tab ? 0 : KT_ENOMEM;
}

static void cs_free(struct cstates *c)
{
	free(c->st);
	free(c->heap);
	free(c->tab);
}

/* Adds point i (its results mem[p0[i]..+pn[i]), level lev[i]) to the code
 * states and returns the state of the highest level.  The running best a
 * point is compared with is that level: the best code's mean over its
 * measurements so far, not the single highest measurement, which is high
 * by the noise that made it the highest (with 5 % noise a lucky x1.1
 * raises the bar every later gain must clear). */
static size_t best_level(const kt_an_run *r, const size_t *mem,
			 const size_t *p0, const size_t *pn,
			 const double *lev, size_t i, struct cstates *c)
{
	const kt_an_meas *a = &r->m[mem[p0[i]]];
	uint64_t id[2], h;
	size_t k, slot = 0;
	struct cstate *st = c->st;

	code_id(r, a, id);
	for (k = 1; k < pn[i] && (id[0] || id[1]); k++) {
		uint64_t b[2];

		code_id(r, &r->m[mem[p0[i] + k]], b);
		if (b[0] != id[0] || b[1] != id[1])
			id[0] = id[1] = 0; /* a point of mixed code */
	}
	k = c->n;
	if (id[0] || id[1]) {
		h = id[0] * 0x9e3779b97f4a7c15u ^ id[1];
		h = kt_fnv1a(h, a->scenario, strlen(a->scenario));
		for (slot = (size_t)(h ^ h >> 29) & c->tmask; c->tab[slot];
		     slot = (slot + 1) & c->tmask) {
			size_t j = c->tab[slot] - 1;

			if (st[j].id[0] == id[0] && st[j].id[1] == id[1] &&
			    !strcmp(st[j].scen, a->scenario)) {
				k = j;
				break;
			}
		}
	}
	if (k == c->n) {
		if (id[0] || id[1])
			c->tab[slot] = k + 1;
		st[k].id[0] = id[0];
		st[k].id[1] = id[1];
		st[k].scen = a->scenario;
		st[k].sum = 0;
		st[k].n = 0;
		st[k].pos = c->n;
		c->heap[c->n++] = k;
	}
	/* a repeat can lower the best state's level: cs_fix moves it down */
	st[k].sum += lev[i];
	st[k].n++;
	st[k].last = i;
	cs_fix(c, k);
	return c->heap[0];
}

/* A series whose results all give a kernel time and a reference time
 * can be read two ways: the ratio ref/time, or the time alone against the
 * series' one reference (its mean).  When the reference is timed again on
 * every run with noise of its own (independent of the kernel's), the
 * ratio carries both noises (the kernel's 5 % becomes 7 %); when both
 * drift together (clocks, load), the ratio cancels it.  The repeats of
 * unchanged code say which: the time alone is used (lv rewritten, on the
 * speedup scale: mean reference / time) when its pooled SD is below the
 * ratio's (*sd, updated).  Returns 1 when it switched.  tmp holds nmem
 * doubles, idx nmem indexes (scratch). */
static int kernel_time_value(const kt_an_run *r, const size_t *mem,
			     size_t nmem, double *lv, double *tmp,
			     size_t *idx, double *sd)
{
	double c = 0, sd2;
	size_t k, nres, ng, nout;
	double *t = malloc(r->nm * sizeof(*t));

	if (!t)
		return 0;
	for (k = 0; k < nmem; k++) {
		const kt_an_meas *m = &r->m[mem[k]];

		if (!(m->time_ms > 0 && m->ref_ms > 0 &&
		      isfinite(m->time_ms) && m->time_ms < 1e12)) {
			free(t);
			return 0;
		}
		tmp[k] = -log(m->time_ms);
		c += lv[mem[k]] - tmp[k];
	}
	c /= (double)nmem;
	for (k = 0; k < nmem; k++)
		t[mem[k]] = tmp[k] + c;
	memcpy(idx, mem, nmem * sizeof(*idx));
	if (pooled_sd(r, idx, nmem, t, &sd2, &nres, &ng, &nout) < 2 || !(sd2 < *sd)) {
		free(t);
		return 0;
	}
	for (k = 0; k < nmem; k++)
		lv[mem[k]] = t[mem[k]];
	*sd = sd2;
	free(t);
	return 1;
}

/* Whether bench event e's parent is an earlier bench (a tree search's
 * child: import --map `parent`). */
static int bench_parent(const kt_an_run *r, const kt_an_ev *e)
{
	long k;

	if (!e->parent || e->parent >= e->seq)
		return 0;
	k = kt_an_run_find(r, e->parent);
	return k >= 0 && r->ev[k].kind == KT_KIND_BENCH;
}

/* branch_best's map from a result (index into r->m) to its point, for
 * points 0 .. np - 1 of pt (their results mem[pt.mem0 .. + nres)), the
 * other results SIZE_MAX; malloc'ed, NULL when out of memory. */
static size_t *ptof_upto(const kt_an_run *r, const kt_an_point *pt,
			 const size_t *mem, size_t np)
{
	size_t *ptof = malloc(r->nm * sizeof(*ptof));

	if (!ptof)
		return NULL;
	for (size_t i = 0; i < r->nm; i++)
		ptof[i] = SIZE_MAX;
	for (size_t j = 0; j < np; j++)
		for (size_t k = pt[j].mem0; k < pt[j].mem0 + pt[j].nres; k++)
			ptof[mem[k]] = j;
	return ptof;
}

/*
 * A tree search's child (its bench's parent is another bench: import --map
 * `parent`) is one branch's next step: what it gained is over the best of
 * its own parent chain (the declared parent and that one's ancestors),
 * not over a sibling branch measured in between.  Walks bench parents up
 * from point i; ptof maps a result to its point (SIZE_MAX: none yet, or
 * not of this series: an incorrect ancestor is passed through).  1 and
 * *lv, *pt the chain's best level and the nearest point at it; 0 when
 * point i's parent is no bench (a root, or not a tree).
 */
static int branch_best(const kt_an_run *r, const size_t *ptof,
		       const double *lev, const kt_an_point *p, size_t i,
		       double *lv, size_t *pt)
{
	const kt_an_ev *e = &r->ev[r->m[p->meas].ev];
	int found = 0;

	/* parents are earlier events: seqs fall, the walk ends */
	while (e->parent && e->parent < e->seq) {
		long k = kt_an_run_find(r, e->parent);

		if (k < 0 || r->ev[k].kind != KT_KIND_BENCH)
			break;
		e = &r->ev[k];
		if (e->meas >= 0 && ptof[e->meas] < i &&
		    (!found || lev[ptof[e->meas]] > *lv)) {
			*lv = lev[ptof[e->meas]];
			*pt = ptof[e->meas];
			found = 1;
		}
	}
	return found;
}

int kt_an_series_build(const kt_an_run *r, const kt_an_opts *o,
		       kt_an_series *out)
{
	size_t i, k, np = 0, nmem = 0, any_true = 0, any_ref = 0;
	int edits, one_pair = 0;
	double *lv = NULL, *lev = NULL, *tmp = NULL;
	struct cstates cs = { 0 };
	size_t *mem = NULL, *p0 = NULL, *pn = NULL, *idx = NULL, *ptof = NULL;
	uint32_t *epoch = NULL;
	int rc = KT_ENOMEM;

	memset(out, 0, sizeof(*out));
	out->key = o->workload ? o->workload : "";
	out->basis = "no benchmark results";
	out->noise_src = "default (--noise): no repeats of unchanged code, no "
			 "reported spread";
	out->noise_kind = KT_AN_NOISE_DEFAULT;
	out->sigma = o->sigma_default;
	if (!r->nm) {
		out->theta = fmax(log(o->min_gain), o->z * out->sigma * M_SQRT2);
		return KT_OK;
	}
	lv = kt_an_big(r->nm * sizeof(*lv));
	mem = kt_an_big(r->nm * sizeof(*mem));
	idx = kt_an_big(r->nm * sizeof(*idx));
	tmp = kt_an_big((r->nm + 1) * sizeof(*tmp));
	out->pt = kt_an_big(r->nm * sizeof(*out->pt));
	if (!lv || !mem || !idx || !tmp || !out->pt)
		goto out;
	for (i = 0; i < r->nm; i++) {
		const kt_an_meas *m = &r->m[i];

		if (!in_series(m, o))
			continue;
		any_true += m->correct == 1 && !m->unparsed;
		any_ref += !m->unparsed && (m->speedup > 0 ||
					    (m->ref_ms > 0 && m->time_ms > 0));
	}
	out->strict_correct = any_true > 0 && !o->assume_correct;
	out->has_ref = any_ref > 0;
	for (i = 0; i < r->nm; i++) {
		const kt_an_meas *m = &r->m[i];

		if (!in_series(m, o))
			continue;
		out->n_results++;
		switch (ex_reason(m, any_true > 0, out->has_ref, o)) {
		case KT_AN_EX_NONE:
			lval(m, out->has_ref, &lv[i]);
			mem[nmem++] = i;
			out->n_correct += m->correct == 1;
			out->n_unchecked += m->correct < 0;
			out->sweep |= m->sweep >= 0;
			continue;
		case KT_AN_EX_INCORRECT: out->n_incorrect++; break;
		case KT_AN_EX_UNKNOWN: out->n_unknown++; break;
		case KT_AN_EX_UNPARSED: out->n_unparsed++; break;
		case KT_AN_EX_NOREF: out->n_noref++; break;
		case KT_AN_EX_FAILED: out->n_failed++; break;
		default: out->n_notime++; break;
		}
		out->n_excluded++;
	}
	out->basis = out->has_ref ?
		"reference time / kernel time (recorded speedup or "
		"ref_time_ms)" :
		"relative to the first correct result (no reference time "
		"recorded)";
	if (out->sweep)
		out->basis = out->has_ref ?
			"sweeps: geometric mean of speedup over the scenarios, "
			"compared scenario by scenario" :
			"sweeps: time compared scenario by scenario with the "
			"running best sweep (the first sweep is 1)";
	/* points: a sweep, or the results of one tool call */
	p0 = malloc((nmem + 1) * sizeof(*p0));
	pn = malloc((nmem + 1) * sizeof(*pn));
	if (!p0 || !pn)
		goto out;
	for (i = 0; i < nmem;) {
		const kt_an_meas *a = &r->m[mem[i]];

		for (k = i + 1; k < nmem; k++) {
			const kt_an_meas *b = &r->m[mem[k]];

			if (a->sweep >= 0 ? b->sweep != a->sweep :
			    (b->sweep >= 0 || !kt_an_one_command(r, a, b)))
				break;
		}
		p0[np] = i;
		pn[np] = k - i;
		np++;
		i = k;
	}
	out->n = np;
	/* results without a code identity: the edits before each, when the
	 * run records edits (code_id), for the noise's repeat groups */
	if (has_edits(r) && (epoch = kt_an_big(r->nm * sizeof(*epoch)))) {
		uint32_t ne = 0;

		for (k = 0; k < r->nev; k++) {
			if (r->ev[k].kind == KT_KIND_EDIT)
				ne++;
			else if (r->ev[k].kind == KT_KIND_BENCH &&
				 r->ev[k].meas >= 0)
				epoch[r->ev[k].meas] = ne;
		}
		sort_epoch = epoch;
	} else if (has_edits(r))
		goto out;
	/* noise 1: repeats of unchanged code */
	{
		double sd;
		size_t nres, ng, nout, df;

		memcpy(idx, mem, nmem * sizeof(*idx));
		if ((df = pooled_sd(r, idx, nmem, lv, &sd, &nres, &ng,
				    &nout)) >= 2) {
			if (out->has_ref && !out->sweep &&
			    kernel_time_value(r, mem, nmem, lv, tmp, idx, &sd))
				out->basis = "mean reference time of the series / "
					     "kernel time: the kernel's repeats "
					     "vary less than the ratio to a "
					     "reference timed again each run";
			out->sigma = sd / c4(df);
			out->noise_kind = KT_AN_NOISE_REPEATS;
			for (k = 0; k < nmem; k++)
				out->noise_nocode += !kt_an_has_code(&r->m[mem[k]]);
			/* said beside the groups: repeats of code nothing
			 * identifies (results before the run wrote any file)
			 * are grouped by the edits before them, or, in a run
			 * with no edits, look like a group left out for no
			 * reason */
			out->noise_src = epoch && out->noise_nocode ?
					 "repeats of unchanged code (same source "
					 "hash or candidate, or no edit between "
					 "them)" :
					 "repeats of unchanged code (same source "
					 "hash or candidate)";
			out->noise_n = nres;
			out->noise_groups = ng;
			out->noise_out = nout;
			if (epoch)
				out->noise_nocode = 0;
			goto floor;
		}
		/* one repeat pair is 1 degree of freedom, short of the 2
		 * an estimate needs: "no repeats" would be false */
		one_pair = df == 1;
		if (df == 1)
			out->noise_src = "default (--noise): 1 repeat of "
					 "unchanged code, too few to estimate "
					 "noise (2 needed), no reported spread";
	}
	/* the levels (best_level) keep a state per point without a code
	 * identity: grouping by edits is for the noise only */
	sort_epoch = NULL;
	/* noise 1b: repeats of the reference, unchanged code too, read with
	 * noise 1's estimator (s / c4(nu): a few re-timed references are as
	 * low-biased as a few re-runs); the value is a ratio of two timings
	 * of the same harness, each with that noise: sqrt 2 of it when they
	 * are independent (a drift common to both would cancel in the ratio,
	 * so this errs high, never low) */
	if (out->has_ref && !out->sweep) {
		double sd;
		size_t nres, nout, df = ref_repeats_sd(r, o, idx, &sd, &nres,
						       &nout);

		if (df >= 2) {
			out->sigma = M_SQRT2 * sd / c4(df);
			out->noise_kind = KT_AN_NOISE_REF_REPEATS;
			out->noise_src = "repeats of the reference (the same "
					 "baseline code timed again with each "
					 "result; x sqrt 2 for the ratio)";
			out->noise_n = nres;
			out->noise_out = nout;
			goto floor;
		}
	}
	/* noise 2: the spread the results report */
	{
		size_t nd = 0;

		for (i = 0; i < nmem; i++) {
			const kt_an_meas *m = &r->m[mem[i]];

			/* min = max is one iteration (or a rounded report):
			 * no spread information, not zero spread, which
			 * would pull the median to the floor */
			if (m->min_ms > 0 && m->max_ms > m->min_ms)
				tmp[nd++] = log(m->max_ms / m->min_ms) / 4.0;
		}
		if (nd >= 1 && nd * 2 >= nmem) {
			out->sigma = fmin(0.1, median(tmp, nd));
			out->noise_kind = KT_AN_NOISE_SPREAD;
			/* a lone repeat pair was seen: say so, or the reader
			 * thinks ktraj missed it */
			out->noise_src = one_pair ?
				"reported spread (median ln(max/min)/4 of the "
				"results; 1 repeat of unchanged code, too few: "
				"2 needed)" :
				"reported spread (median ln(max/min)/4 "
				"of the results)";
			out->noise_n = nd;
		}
	}
floor:
	sort_epoch = NULL;
	if (!(out->sigma >= o->sigma_floor))
		out->sigma = o->sigma_floor;
	out->theta = fmax(log(o->min_gain), o->z * out->sigma * M_SQRT2);
	/* results that nothing orders in time are a table, not attempts; a
	 * timestamp on any result of the series orders them, a left-out one
	 * too (a failed run is an attempt in time as well), and so does an
	 * attempt number (a round log's round or step) */
	edits = has_edits(r);
	out->no_edits = !edits;
	out->unordered = !edits && !r->ncalls;
	for (i = 0; i < r->nm && out->unordered; i++)
		if (in_series(&r->m[i], o) &&
		    (r->ev[r->m[i].ev].ts != KT_TS_UNKNOWN || r->m[i].round))
			out->unordered = 0;
	/* levels and new bests against the running best */
	lev = malloc((np + 1) * sizeof(*lev));
	if (!lev || cs_init(&cs, np + 1))
		goto out;
	{
		size_t best = 0, bst;
		double first = 0, blev = 0, cmp;

		for (i = 0; i < np; i++) {
			kt_an_point *p = &out->pt[i];
			size_t a = p0[i], n = pn[i];
			double sum = 0;

			p->meas = mem[a];
			p->nres = n;
			p->mem0 = a;
			p->seq_first = r->ev[r->m[mem[a]].ev].seq;
			p->seq = r->ev[r->m[mem[a + n - 1]].ev].seq;
			p->call = r->ev[r->m[mem[a + n - 1]].ev].call;
			p->nscen = out->sweep ? n_scen(r, mem, a, n) : 1;
			for (k = a; k < a + n; k++) {
				sum += lv[mem[k]];
				p->unchecked += r->m[mem[k]].correct < 0;
			}
			if (!out->sweep) {
				if (!i)
					first = out->has_ref ? 0 : sum / (double)n;
				lev[i] = sum / (double)n - first;
				p->ncmp = 1;
			} else if (!i) {
				lev[i] = out->has_ref ? sum / (double)n : 0;
				p->ncmp = p->nscen;
			} else {
				double d = sweep_cmp(r, mem, lv, a, n, p0[best],
						     pn[best], &p->ncmp);

				/* nothing in common: level with the best, no
				 * gain can be claimed */
				lev[i] = lev[best] + (p->ncmp ? d : 0);
			}
			if (out->sweep || !i)
				blev = lev[best];
			cmp = blev;
			p->base_pt = i ? out->pt[i - 1].best_pt : 0;
			/* the result-to-point map only once a tree shows:
			 * filled whole it was 8 bytes a result of every
			 * long run, read by tree searches alone */
			if (!out->sweep && i && !ptof &&
			    bench_parent(r, &r->ev[r->m[p->meas].ev]) &&
			    !(ptof = ptof_upto(r, out->pt, mem, i)))
				goto out;
			if (ptof &&
			    branch_best(r, ptof, lev, p, i, &cmp, &p->base_pt))
				p->branch = 1;
			for (k = a; ptof && k < a + n; k++)
				ptof[mem[k]] = i;
			p->base = i ? exp(cmp) : 1;
			p->speedup = exp(lev[i]);
			p->gain = i ? exp(lev[i] - cmp) : 1;
			if (i)
				p->repeat = !kt_an_code_changed(
					r, out->pt[i - 1].seq, p->seq_first,
					&r->m[out->pt[i - 1].meas],
					&r->m[p->meas], edits);
			if (i && !out->unordered && lev[i] - cmp > out->theta) {
				p->newbest = 1;
				out->n_newbest++;
				if (!p->repeat)
					p->accepted = 1;
				else {
					p->nochange = 1;
					out->n_nochange++;
				}
			}
			if (!i || lev[i] > lev[best])
				best = i;
			p->best = exp(lev[best]);
			/* the latest point at that level */
			p->best_pt = i;
			while (p->best_pt > 0 &&
			       out->pt[p->best_pt].speedup != p->best)
				p->best_pt--;
			if (!out->sweep) {
				bst = best_level(r, mem, p0, pn, lev, i, &cs);
				blev = cs.st[bst].sum / (double)cs.st[bst].n;
				p->best = exp(blev);
				p->best_pt = cs.st[bst].last;
			}
		}
	}
	rc = KT_OK;
	/* sweeps: kept for the comparison scenario by scenario
	 * (kt_an_sweep_scenarios) */
	if (out->sweep) {
		out->mem = mem;
		out->lv = lv;
		mem = NULL;
		lv = NULL;
	}
out:
	sort_epoch = NULL;
	kt_an_big_free(epoch);
	kt_an_big_free(lv);
	kt_an_big_free(mem);
	kt_an_big_free(idx);
	kt_an_big_free(tmp);
	free(p0);
	free(pn);
	free(ptof);
	free(lev);
	cs_free(&cs);
	if (rc)
		kt_an_series_free(out);
	return rc;
}

int kt_an_meas_excluded(const kt_an_run *r, const kt_an_series *se,
			const kt_an_opts *o, size_t i)
{
	const kt_an_meas *m = &r->m[i];

	if (!in_series(m, o))
		return KT_AN_EX_NONE;
	/* strict_correct is off under --assume-correct, so is the test */
	return ex_reason(m, se->strict_correct, se->has_ref, o);
}

int kt_an_workloads(const kt_an_run *r, const char ***out, size_t *n)
{
	const char **w = NULL;
	size_t nw = 0, cap = 0, i, k;

	*out = NULL;
	*n = 0;
	/* workloads come in runs (a problem's attempts, then the next): the
	 * last one found is checked first */
	for (i = 0; i < r->nm; i++) {
		const char *x = r->m[i].key;

		/* an unparsed output has no time to follow: it is counted
		 * with the run (kt_an_unparsed), and would only make an empty
		 * series of its own */
		if (r->m[i].unparsed)
			continue;
		if (nw && (w[nw - 1] == x || !strcmp(w[nw - 1], x)))
			continue;
		for (k = 0; k < nw; k++)
			if (!strcmp(w[k], x))
				break;
		if (k < nw)
			continue;
		if (KT_GROW(w, cap, nw + 1)) {
			free(w);
			return KT_ENOMEM;
		}
		w[nw++] = x;
	}
	*out = w;
	*n = nw;
	return KT_OK;
}

/* Mean lv of point pt's results at scenario sc; 0 results: NAN. */
static double scen_mean(const kt_an_run *r, const kt_an_series *se,
			const kt_an_point *pt, const char *sc)
{
	double s = 0;
	size_t n = 0;

	for (size_t k = pt->mem0; k < pt->mem0 + pt->nres; k++)
		if (!strcmp(r->m[se->mem[k]].scenario, sc)) {
			s += se->lv[se->mem[k]];
			n++;
		}
	return n ? s / (double)n : NAN;
}

int kt_an_sweep_scenarios(const kt_an_run *r, const kt_an_series *se,
			  size_t p, kt_an_scen_cmp **out, size_t *n,
			  double *geomean)
{
	const kt_an_point *pt, *bp;
	kt_an_scen_cmp *c;
	double gs = 0;

	*out = NULL;
	*n = 0;
	*geomean = NAN;
	if (!se->sweep || !se->mem || p >= se->n)
		return KT_EINVAL;
	pt = &se->pt[p];
	bp = p ? &se->pt[pt->base_pt] : NULL;
	if (!(c = calloc(pt->nres ? pt->nres : 1, sizeof(*c))))
		return KT_ENOMEM;
	for (size_t k = pt->mem0; k < pt->mem0 + pt->nres; k++) {
		const char *sc = r->m[se->mem[k]].scenario;
		double a, b;
		size_t i;

		for (i = 0; i < *n; i++)
			if (!strcmp(c[i].scenario, sc))
				break;
		if (i < *n)
			continue;       /* counted at its first result */
		a = scen_mean(r, se, pt, sc);
		b = bp ? scen_mean(r, se, bp, sc) : NAN;
		gs += a;
		c[*n].scenario = sc;
		/* lv: ln speedup, or -ln time */
		c[*n].value = se->has_ref ? exp(a) : exp(-a);
		c[*n].before = isnan(b) ? NAN : se->has_ref ? exp(b) : exp(-b);
		c[*n].gain = isnan(b) ? NAN : exp(a - b);
		++*n;
	}
	if (se->has_ref && *n)
		*geomean = exp(gs / (double)*n);
	*out = c;
	return KT_OK;
}

void kt_an_series_free(kt_an_series *s)
{
	kt_an_big_free(s->pt);
	kt_an_big_free(s->mem);
	kt_an_big_free(s->lv);
	s->mem = NULL;
	s->lv = NULL;
	s->pt = NULL;
	s->n = 0;
}
