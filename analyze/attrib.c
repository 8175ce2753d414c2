/*
 * attrib.c - how a jump's candidate questions are weighed against "agent
 * alone" (analysis.md 2.6 (c), revised for issue 15).
 *
 * Two failures on sessions generated outside the project drove the rules:
 * the agent-alone prior was compared with the best single question, so two
 * plausible questions each lost to it although together they outweighed it;
 * and a question the agent did not repeat word for word scored near the
 * constant term only, so it lost even when it came right before the change.
 * Now every candidate keeps a lag-weighted floor that does not depend on
 * word overlap (a question right before an edit is evidence by itself), a
 * question with no system layer, no bound challenge, no overlap and no
 * uptake ("how long does the benchmark take?") keeps a third of it, and the
 * decision compares the sum over all candidates with the agent alone.
 */
#include <math.h>
#include "an_int.h"

double kt_an_cand_raw(const kt_an_cand *c, const kt_an_opts *o, int tech)
{
	double wl = exp(-c->lag_calls / o->tau_calls);

	if (c->lag_min >= 0)
		wl *= exp(-c->lag_min / o->tau_min);
	return wl * (tech ? 1.0 : 0.3) * (0.3 + 0.45 * fmin(1.0, c->overlap / 0.4) +
			    0.15 * c->layer_match + 0.1 * c->relocation +
			    0.25 * c->uptake);
}

void kt_an_decide(kt_an_jump *j, double self)
{
	double qsum = 0, sum, best = -1;
	long win = -1;

	for (size_t ci = 0; ci < j->ncand; ci++)
		qsum += j->cand[ci].raw;
	sum = self + qsum;
	for (size_t ci = 0; ci < j->ncand; ci++) {
		kt_an_cand *c = &j->cand[ci];

		c->p = sum > 0 ? c->raw / sum : 0;
		/* ties go to the later (closer) question: candidates are in
		 * reverse order, so strict > keeps the first seen */
		if (c->raw > best) {
			best = c->raw;
			win = (long)ci;
		}
	}
	j->p_any_question = sum > 0 ? qsum / sum : 0;
	if (win >= 0 && qsum > self) {
		j->question = (long)j->cand[win].ev;
		j->p_question = j->cand[win].p;
		j->confidence = j->p_any_question * (best / qsum);
	} else {
		j->question = -1;
		j->p_question = sum > 0 ? self / sum : 1;
		j->confidence = j->p_question;
	}
	j->confidence /= sqrt(j->nedits > 1 ? (double)j->nedits : 1.0);
}
