/*
 * measure.c - the series key of every bench result and the sweeps of a run
 * (FORMAT.md "Measurement model"; building the series itself: series.c).
 *
 * A series is successive attempts at one key (workload, scenario, metric,
 * baseline by default): results of different operators, sizes or metrics
 * are never compared.  A sweep - one candidate measured over several
 * scenarios at one step - is one point of the series of its key without
 * the scenario, so that a FlashInfer trace (one solution on 25 shapes) is
 * one sweep, not a time series of 25 "attempts".
 */
#include <stdlib.h>
#include <string.h>
#include "an_int.h"

#define KEY_CAP (4 * (KT_AN_FIELD_MAX + 3) + 1)

static const struct {
	const char *name;
	unsigned bit;
} by_names[] = {
	{"workload", KT_AN_BY_WORKLOAD}, {"scenario", KT_AN_BY_SCENARIO},
	{"metric", KT_AN_BY_METRIC}, {"baseline", KT_AN_BY_BASELINE}};

int kt_an_series_by_parse(const char *s, unsigned *by)
{
	unsigned b = 0;

	if (!s || !*s)
		return KT_EINVAL;
	while (*s) {
		const char *e = strchr(s, ',');
		size_t n = e ? (size_t)(e - s) : strlen(s), k;

		for (k = 0; k < sizeof(by_names) / sizeof(by_names[0]); k++)
			if (strlen(by_names[k].name) == n &&
			    !memcmp(by_names[k].name, s, n))
				break;
		if (k == sizeof(by_names) / sizeof(by_names[0]) ||
		    (b & by_names[k].bit))
			return KT_EINVAL;
		b |= by_names[k].bit;
		if (!e)
			break;
		s = e + 1;
		if (!*s)
			return KT_EINVAL; /* "workload," */
	}
	*by = b;
	return KT_OK;
}

/* The key of m under `by` (the scenario left out when noscen) into buf
 * (KEY_CAP bytes: every field is at most KT_AN_FIELD_MAX bytes). */
static void key_of(const kt_an_meas *m, unsigned by, int noscen, char *buf)
{
	const char *f[4] = {m->workload, m->scenario, m->metric, m->baseline};
	size_t n = 0;

	buf[0] = 0;
	for (int k = 0; k < 4; k++) {
		size_t l;

		if (!(by & by_names[k].bit) || (k == 1 && noscen) || !*f[k])
			continue;
		if (n) {
			memcpy(buf + n, " | ", 3);
			n += 3;
		}
		l = strlen(f[k]);
		memcpy(buf + n, f[k], l);
		n += l;
		buf[n] = 0;
	}
}

/* One step of one candidate: consecutive results naming the same
 * candidate (FlashInfer: the first trace hangs on the compile, the others
 * on nothing), else the results of one tool call. */
static int same_step(const kt_an_run *r, const kt_an_meas *a,
		     const kt_an_meas *b)
{
	uint64_t pa = r->ev[a->ev].parent, pb = r->ev[b->ev].parent;

	if (*a->candidate || *b->candidate)
		return !strcmp(a->candidate, b->candidate) &&
		       !strcmp(a->source, b->source);
	return pa && pa == pb;
}

/* The key text in r's arena, the previous one reused when equal (a run's
 * results come in long stretches of one key). */
static const char *key_dup(kt_an_run *r, const char *k, const char **last)
{
	if (!*k)
		return "";
	if (*last && !strcmp(*last, k))
		return *last;
	*last = kt_an_arena_dup(r, k, strlen(k));
	return *last;
}

int kt_an_series_keys(kt_an_run *r, unsigned by)
{
	char ka[KEY_CAP], kb[KEY_CAP];
	const char *last = NULL;
	const char **keys;
	long nsw = 0;
	size_t i;

	if (!r->nm) {
		r->keyed_by = by;
		r->nsweeps = 0;
		return KT_OK;
	}
	keys = calloc(r->nm, sizeof(*keys));
	if (!keys)
		return KT_ENOMEM;
	for (i = 0; i < r->nm; i++)
		r->m[i].sweep = -1;
	/* sweeps: a step's results with one key but for the scenario; the
	 * results of one step are contiguous, other keys may sit between */
	for (i = 0; i < r->nm; i++) {
		kt_an_meas *a = &r->m[i];
		size_t k, nscen = 1, cnt = 1;

		if (a->sweep >= 0 || !*a->scenario)
			continue;
		key_of(a, by, 1, ka);
		for (k = i + 1; k < r->nm && same_step(r, a, &r->m[k]); k++) {
			key_of(&r->m[k], by, 1, kb);
			if (strcmp(ka, kb) || r->m[k].sweep >= 0)
				continue;
			cnt++;
			/* a new scenario (few per step: a linear look back) */
			{
				size_t q;

				for (q = i; q < k; q++)
					if (r->m[q].sweep < 0 &&
					    !strcmp(r->m[q].scenario,
						    r->m[k].scenario)) {
						key_of(&r->m[q], by, 1, kb);
						if (!strcmp(ka, kb))
							break;
					}
				nscen += q == k;
			}
		}
		if (nscen < 2 || cnt < 2)
			continue;
		for (size_t q = i; q < k; q++) {
			key_of(&r->m[q], by, 1, kb);
			if (r->m[q].sweep < 0 && !strcmp(ka, kb))
				r->m[q].sweep = nsw;
		}
		nsw++;
	}
	for (i = 0; i < r->nm; i++) {
		key_of(&r->m[i], by, r->m[i].sweep >= 0, ka);
		if (!(keys[i] = key_dup(r, ka, &last))) {
			free(keys);
			return KT_ENOMEM;
		}
	}
	for (i = 0; i < r->nm; i++)
		r->m[i].key = keys[i];
	free(keys);
	r->keyed_by = by;
	r->nsweeps = (size_t)nsw;
	return KT_OK;
}

size_t kt_an_unparsed(const kt_an_run *r, uint64_t *seqs, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nm; i++)
		if (r->m[i].unparsed) {
			if (seqs && n < max)
				seqs[n] = r->ev[r->m[i].ev].seq;
			n++;
		}
	return n;
}

/* a measurement's stored reason, "" when none (or not loaded, or parsed) */
static const char *why_of(const kt_an_meas *m)
{
	const char *w = kt_an_meas_why_unparsed(m);

	return w ? w : "";
}

size_t kt_an_unparsed_why(const kt_an_run *r, const char *why,
			  uint64_t *seqs, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nm; i++)
		if (r->m[i].unparsed && !strcmp(why_of(&r->m[i]), why)) {
			if (seqs && n < max)
				seqs[n] = r->ev[r->m[i].ev].seq;
			n++;
		}
	return n;
}

size_t kt_an_unparsed_reasons(const kt_an_run *r, const char **why,
			      size_t max)
{
	size_t n = 0, j;

	for (size_t i = 0; i < r->nm; i++) {
		const char *w = why_of(&r->m[i]);

		if (!r->m[i].unparsed)
			continue;
		/* a run has few unparsed outputs: the earlier ones are
		 * looked through */
		for (j = 0; j < i; j++)
			if (r->m[j].unparsed && !strcmp(why_of(&r->m[j]), w))
				break;
		if (j < i)
			continue;
		if (n < max)
			why[n] = w;
		n++;
	}
	return n;
}

kt_an_excl kt_an_series_excl(const kt_an_series *se)
{
	kt_an_excl x = { se->n_incorrect, se->n_unknown, se->n_notime,
			 se->n_noref, se->n_failed, se->n_unparsed };

	return x;
}

size_t kt_an_excl_total(const kt_an_excl *x)
{
	return x->incorrect + x->unknown + x->notime + x->noref + x->failed +
	       x->unparsed;
}

int kt_an_excl_text(struct kt_buf *b, const kt_an_excl *x)
{
	/* each reason says what the result lacks: a result with a time but
	 * no speedup in a series of speedups has a time (issue 15) */
	const struct { size_t n; const char *one, *many; } w[] = {
		{ x->incorrect, "incorrect", "incorrect" },
		{ x->unknown, "not checked (others say correct)",
		  "not checked (others say correct)" },
		{ x->failed, "failed to run", "failed to run" },
		{ x->notime, "without a time", "without a time" },
		{ x->noref, "without a speedup or reference time",
		  "without a speedup or reference time" },
		{ x->unparsed, "benchmark output with no readable time",
		  "benchmark outputs with no readable time" },
	};
	const char *sep = "";

	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		if (!w[i].n)
			continue;
		kt_buf_printf(b, "%s%zu %s", sep, w[i].n,
			      w[i].n == 1 ? w[i].one : w[i].many);
		sep = ", ";
	}
	return b->err ? KT_ENOMEM : KT_OK;
}
