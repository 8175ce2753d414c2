/*
 * series.c - load a run into memory and build its performance series.
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
#include <cjson/cJSON.h>
#include "analyze.h"

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

/* ---- loading ---------------------------------------------------------------- */
struct loadctx {
	kt_store *s;
	kt_an_run *r;
	size_t cap, mcap, ecap;
	uint32_t calls;
	int err;
};

static char *dupn(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = 0;
	}
	return d;
}

static const char *jstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double jnum(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : -1.0;
}

static void jhash(const cJSON *o, const char *k, unsigned char *h,
		  unsigned char *has)
{
	const char *s = jstr(o, k);

	*has = s && strlen(s) == KT_HASH_HEX && kt_unhex(s, h, KT_HASH_LEN) == 0;
}

static int has_q_cb(const char *s, size_t n, unsigned k, void *a)
{
	(void)s;
	(void)n;
	(void)k;
	(void)a;
	return 1;
}

static int load_full(const kt_event *e, void *arg);

/* Header-only pass: tool results (most of a run's bytes) and the other
 * kinds blame never reads are kept without decompressing their payloads;
 * the kinds it reads are fetched whole. */
static int load_one(const kt_event *h, void *arg)
{
	struct loadctx *c = arg;
	kt_event full;

	switch (h->kind) {
	case KT_KIND_MESSAGE: case KT_KIND_QUESTION: case KT_KIND_NOTE:
	case KT_KIND_EDIT: case KT_KIND_BENCH: case KT_KIND_TOOL_CALL:
		if ((c->err = kt_event_get(c->s, c->r->id, h->seq, &full)))
			return 1;
		return load_full(&full, arg);
	default:
		return load_full(h, arg);
	}
}

static int load_full(const kt_event *e, void *arg)
{
	struct loadctx *c = arg;
	kt_an_run *r = c->r;
	kt_an_ev *v;
	cJSON *p = NULL;

	if (r->nev == c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 256;
		kt_an_ev *nv = realloc(r->ev, nc * sizeof(*nv));

		if (!nv)
			goto nomem;
		r->ev = nv;
		c->cap = nc;
	}
	v = &r->ev[r->nev];
	memset(v, 0, sizeof(*v));
	v->seq = e->seq;
	v->parent = e->parent;
	v->ts = e->ts_ns;
	v->kind = e->kind;
	v->meas = -1;
	v->edit = -1;
	if (e->kind == KT_KIND_TOOL_CALL) {
		/* no parse: tool calls can carry whole files as arguments */
		const char *t = e->payload ? memmem(e->payload, e->payload_len,
						    "\"tool\":\"", 8) : NULL;
		c->calls++;
		if (t) {
			const char *q = memchr(t + 8, '"', e->payload_len -
					       (size_t)(t + 8 - e->payload));
			if (q && q - (t + 8) < 64 && !(v->text = dupn(t + 8,
						(size_t)(q - (t + 8)))))
				goto nomem;
		}
		/* the command is near the start; tool calls that write whole
		 * files need not be scanned to the end */
		if (e->payload) {
			size_t pl = e->payload_len < 512 ? e->payload_len : 512;

			if (memmem(e->payload, pl, "ncu ", 4) ||
			    memmem(e->payload, pl, "nsys ", 5) ||
			    memmem(e->payload, pl, "nsight", 6) ||
			    memmem(e->payload, pl, "rocprof", 7))
				v->profiler = 1;
		}
	}
	v->call = c->calls;
	switch (e->kind) {
	case KT_KIND_MESSAGE: case KT_KIND_QUESTION: case KT_KIND_NOTE:
	case KT_KIND_EDIT: case KT_KIND_BENCH:
		break;
	default:
		r->nev++;
		return 0;
	}
	if (!e->payload || !(p = cJSON_ParseWithLength(e->payload,
						       e->payload_len)) ||
	    !cJSON_IsObject(p)) {
		cJSON_Delete(p);
		r->nev++;
		return 0;
	}
	if (e->kind == KT_KIND_MESSAGE) {
		const char *role = jstr(p, "role"), *t = jstr(p, "text");
		const cJSON *fl = cJSON_GetObjectItemCaseSensitive(p, "flags"),
			    *x;

		v->role = !role ? KT_AN_ROLE_OTHER :
			  !strcmp(role, "user") ? KT_AN_ROLE_USER :
			  !strcmp(role, "assistant") ? KT_AN_ROLE_ASSISTANT :
			  !strcmp(role, "system") ? KT_AN_ROLE_SYSTEM :
			  KT_AN_ROLE_OTHER;
		v->human = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p,
									"human"));
		cJSON_ArrayForEach(x, fl) {
			if (cJSON_IsString(x) && strcmp(x->valuestring,
							"thinking"))
				v->meta = 1;
		}
		if (t && !(v->text = strdup(t)))
			goto nomem;
		if (v->human && !v->meta && v->text &&
		    kt_an_questions_extract(v->text, strlen(v->text), has_q_cb,
					    NULL))
			v->qorigin = KT_AN_QO_HUMAN;
	} else if (e->kind == KT_KIND_QUESTION || e->kind == KT_KIND_NOTE) {
		const char *t = jstr(p, "text"), *o = jstr(p, "origin");

		if (t && !(v->text = strdup(t)))
			goto nomem;
		if (e->kind == KT_KIND_QUESTION)
			v->qorigin = !o || !strcmp(o, "human") ? KT_AN_QO_HUMAN :
				     !strcmp(o, "library") ? KT_AN_QO_LIBRARY :
				     KT_AN_QO_AGENT;
	} else if (e->kind == KT_KIND_EDIT) {
		const char *path = jstr(p, "path");

		if (path && !(v->text = strdup(path)))
			goto nomem;
		{
			kt_an_edit *ne = r->ed;

			if (r->ned == c->ecap) {
				size_t nc = c->ecap ? c->ecap * 2 : 64;

				ne = realloc(r->ed, nc * sizeof(*ne));
				if (!ne)
					goto nomem;
				r->ed = ne;
				c->ecap = nc;
			}
			jhash(p, "before", ne[r->ned].before, &ne[r->ned].has_before);
			jhash(p, "after", ne[r->ned].after, &ne[r->ned].has_after);
			v->edit = (long)r->ned++;
		}
	} else if (e->kind == KT_KIND_BENCH) {
		kt_an_meas *m;
		const cJSON *cj = cJSON_GetObjectItemCaseSensitive(p, "correct");
		const char *h = jstr(p, "source_hash"), *w = jstr(p, "workload");

		if (r->nm == c->mcap) {
			size_t nc = c->mcap ? c->mcap * 2 : 64;
			kt_an_meas *nm = realloc(r->m, nc * sizeof(*nm));

			if (!nm)
				goto nomem;
			r->m = nm;
			c->mcap = nc;
		}
		m = &r->m[r->nm];
		memset(m, 0, sizeof(*m));
		m->ev = r->nev;
		m->time_ms = jnum(p, "time_ms");
		m->speedup = jnum(p, "speedup");
		m->ref_ms = jnum(p, "ref_time_ms");
		m->min_ms = jnum(p, "min_ms");
		m->max_ms = jnum(p, "max_ms");
		m->n = (int)(jnum(p, "n") > 0 ? jnum(p, "n") : 0);
		m->correct = cJSON_IsTrue(cj) ? 1 : cJSON_IsFalse(cj) ? 0 : -1;
		if (!h)
			h = jstr(p, "candidate_blob");
		if (h)
			snprintf(m->hash, sizeof(m->hash), "%s", h);
		if (!w)
			w = jstr(p, "scenario");
		if (w)
			snprintf(m->workload, sizeof(m->workload), "%s", w);
		v->meas = (long)r->nm++;
	}
	cJSON_Delete(p);
	r->nev++;
	return 0;
nomem:
	cJSON_Delete(p);
	c->err = KT_ENOMEM;
	return 1;
}

int kt_an_run_load(kt_store *s, const char *run, kt_an_run **out)
{
	struct loadctx c = {0};
	kt_run_info info;
	kt_an_run *r;
	int rc;

	*out = NULL;
	rc = kt_run_get(s, run, &info);
	if (rc)
		return rc;
	r = calloc(1, sizeof(*r));
	if (!r)
		return KT_ENOMEM;
	snprintf(r->id, sizeof(r->id), "%s", info.id);
	r->name = strdup(info.name ? info.name : "");
	if (!r->name) {
		rc = KT_ENOMEM;
		goto out;
	}
	c.r = r;
	/* one allocation for the events: no copying while growing */
	if (info.n_events && info.n_events < (1u << 26)) {
		r->ev = malloc((size_t)info.n_events * sizeof(*r->ev));
		if (!r->ev) {
			rc = KT_ENOMEM;
			goto out;
		}
		c.cap = (size_t)info.n_events;
	}
	c.s = s;
	rc = kt_event_foreach_head(s, run, 1, 0, 0, load_one, &c);
	if (c.err)
		rc = c.err;
	if (rc)
		goto out;
	r->ncalls = c.calls;
	*out = r;
	return KT_OK;
out:
	kt_an_run_free(r);
	return rc;
}

void kt_an_run_free(kt_an_run *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nev; i++)
		free(r->ev[i].text);
	free(r->ev);
	free(r->m);
	free(r->ed);
	free(r->name);
	free(r);
}

long kt_an_run_find(const kt_an_run *r, uint64_t seq)
{
	size_t lo = 0, hi = r->nev;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->ev[mid].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->nev && r->ev[lo].seq == seq ? (long)lo : -1;
}

/* ---- series ------------------------------------------------------------------ */
static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of v[0..n) (sorts v). */
static double median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_dbl);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* qsort has no context argument in C11: the series being sorted */
static const kt_an_point *sort_pts;
static const kt_an_run *sort_run;

static int cmp_hash(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(sort_run->m[sort_pts[x].meas].hash,
		       sort_run->m[sort_pts[y].meas].hash);

	return c ? c : (x < y ? -1 : x > y);
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
	val = calloc(r->nm, sizeof(*val));
	use = calloc(r->nm, 1);
	tmp = calloc(r->nm * 2 + 4, sizeof(*tmp));
	out->pt = calloc(r->nm, sizeof(*out->pt));
	if (!val || !use || !tmp || !out->pt)
		goto out;
	for (i = 0; i < r->nm; i++) {
		const kt_an_meas *m = &r->m[i];

		any_true += m->correct == 1;
		any_ref += m->speedup > 0 || (m->ref_ms > 0 && m->time_ms > 0);
	}
	out->strict_correct = any_true > 0;
	for (i = 0; i < r->nm; i++) {
		const kt_an_meas *m = &r->m[i];
		int ok = out->strict_correct ? m->correct == 1 : m->correct != 0;

		if (!ok) {
			out->n_excluded++;
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
		else
			out->n_excluded++;
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
			const char *h = r->m[out->pt[ord[i]].meas].hash;
			size_t e = i + 1, g;
			double grp[64], gc[64], md;

			while (e < np && !strcmp(r->m[out->pt[ord[e]].meas].hash, h))
				e++;
			g = e - i < 64 ? e - i : 64;
			if (*h && g >= 2) {
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
		qsort(tmp, nd, sizeof(*tmp), cmp_dbl);
		out->sigma = tmp[(nd - 1) / 4] / 0.4506;
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
	free(val);
	free(use);
	free(tmp);
	if (rc)
		kt_an_series_free(out);
	return rc;
}

void kt_an_series_free(kt_an_series *s)
{
	free(s->pt);
	s->pt = NULL;
	s->n = 0;
}
