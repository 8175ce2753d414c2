/*
 * t_an_runtest.c - the run test over several lag scales (analyze/runtest.c):
 * min-p stays uniform under an exchangeable null, the whole test is exact
 * under its own null, and the message scale finds questions whose change
 * came after silent work that every tool-call scale misses.
 * Runs are built in memory: the
 * run test reads only events' kinds, calls and seqs and the series'
 * points.
 */
#include "testutil.h"
#include <math.h>
#include "../../analyze/an_int.h"

/* min-p over exchangeable samples: whichever sample is the observed one,
 * P(p <= a) = a.  Eight samples with many ties at three scales; each is
 * made the observed one in turn (the null's every case, equally likely),
 * the tie-breakers drawn by 500 seeds. */
static void t_minp_calibrated(void **st)
{
	enum { NS = 3, N1 = 8, SEEDS = 500 };
	static const double base[NS][N1] = {
		{0, 0, 1, 1, 1, 2, 3, 3},
		{0, 1, 1, 2, 2, 2, 0, 3},
		{3, 0, 0, 0, 1, 1, 1, 2},
	};
	static const double alpha[] = {0.125, 0.25, 0.5, 0.75};
	size_t below[4] = {0}, tot = 0;

	(void)st;
	for (size_t j = 0; j < N1; j++) {
		double s[NS * N1];

		/* sample j first: the observed one */
		for (size_t k = 0; k < NS; k++)
			for (size_t i = 0; i < N1; i++)
				s[k * N1 + i] = base[k][i == 0 ? j :
							i == j ? 0 : i];
		for (uint64_t seed = 1; seed <= SEEDS; seed++) {
			uint64_t x = seed * 7919;
			double pk[NS], p;
			size_t c;

			assert_int_equal(kt_an_minp(s, NS, N1 - 1, &x, pk, &p, &c),
					 KT_OK);
			assert_true(p > 0 && p <= 1 && c < NS);
			for (size_t k = 0; k < NS; k++)
				assert_true(pk[k] >= 1.0 / N1 && pk[k] <= 1);
			for (size_t a = 0; a < 4; a++)
				below[a] += p <= alpha[a];
			tot++;
		}
	}
	for (size_t a = 0; a < 4; a++) {
		double f = (double)below[a] / (double)tot;

		/* 4000 draws: the binomial SD is at most 0.008 */
		assert_true(fabs(f - alpha[a]) < 0.03);
	}
	/* the observed sample strictly first at every scale: p below the
	 * first rank, each scale's own p 1/8 */
	{
		double s[NS * N1], pk[NS], p;
		uint64_t x = 3;
		size_t c;

		for (size_t k = 0; k < NS; k++)
			for (size_t i = 0; i < N1; i++)
				s[k * N1 + i] = i ? (double)(i % 3) : 9;
		assert_int_equal(kt_an_minp(s, NS, N1 - 1, &x, pk, &p, &c), KT_OK);
		assert_true(p <= 1.0 / N1);
		for (size_t k = 0; k < NS; k++)
			assert_true(fabs(pk[k] - 1.0 / N1) < 1e-12);
		/* ties go to the longest scale */
		assert_int_equal(c, NS - 1);
		assert_int_equal(kt_an_minp(s, 0, N1 - 1, &x, pk, &p, &c),
				 KT_EINVAL);
	}
}

/* An in-memory run: tool calls 0..ncalls, agent messages at the calls
 * in msg[] and questions at those in q[] (in call order among them). */
struct mrun {
	kt_an_run r;
	kt_an_ev ev[1024];
};

/* Append an event of `kind` at `call` (no measurement, no edit). */
static kt_an_ev *add_kind(struct mrun *m, uint32_t call, int kind)
{
	kt_an_ev *e = &m->ev[m->r.nev];

	assert_true(m->r.nev < 1024);
	memset(e, 0, sizeof(*e));
	e->seq = m->r.nev + 1;
	e->kind = kind;
	e->call = call;
	e->meas = e->edit = -1;
	m->r.nev++;
	return e;
}

/* Append a message at `call`: a person's question, or the agent's. */
static void add_ev(struct mrun *m, uint32_t call, int question)
{
	kt_an_ev *e = add_kind(m, call, KT_KIND_MESSAGE);

	if (question) {
		e->human = 1;
		e->role = KT_AN_ROLE_USER;
		e->qorigin = KT_AN_QO_HUMAN;
	} else {
		e->role = KT_AN_ROLE_ASSISTANT;
	}
}

/* Series points of gains x1.1 measured right after the edits at calls
 * edit[0..n) (pt[0] the start): each point's seq is the bench event
 * after its edit. */
static void gains_after_edits(struct mrun *m, const uint32_t *edit,
			      size_t n, kt_an_point *pt)
{
	memset(pt, 0, (n + 1) * sizeof(*pt));
	pt[0].speedup = pt[0].best = 1;
	pt[0].seq = 0;
	for (size_t i = 1; i <= n; i++) {
		for (size_t k = 0; k < m->r.nev; k++)
			if (m->ev[k].kind == KT_KIND_BENCH &&
			    m->ev[k].call == edit[i - 1] + 1)
				pt[i].seq = pt[i].seq_first = m->ev[k].seq;
		pt[i].call = edit[i - 1] + 1;
		pt[i].speedup = pt[i].best = pow(1.1, (double)i);
	}
}

/* Ten gains of x1.1, the edits at calls 40, 80, .. 400, each measured
 * at the next call.  A person asks before four of them (40, 160, 280,
 * 400); the agent answers at once and then works fourteen calls in
 * silence (reads, failed tries) before the edit that helps.  The agent talks
 * over the last three calls before each of the other six edits and every
 * third call elsewhere.  In tool calls a question sits fourteen calls from its
 * change, farther than the agent's chatter: no call scale sees it.  On
 * the message clock it is one message (its answer) from the change,
 * which counts as none: S there is 4 ln 1.1 exactly, and placements at
 * random rarely put four questions within two messages of a gain. */
static void t_runtest_message_lag(void **st)
{
	static struct mrun m;
	uint32_t edit[10];
	kt_an_point pt[11];
	kt_an_blame b;
	kt_an_opts o;

	(void)st;
	memset(&m, 0, sizeof(m));
	m.r.ev = m.ev;
	m.r.ncalls = 410;
	for (size_t i = 0; i < 10; i++)
		edit[i] = (uint32_t)(40 * (i + 1));
	for (uint32_t c = 1; c <= 410; c++) {
		int gain = c % 40 == 0 && c <= 400, asked = gain && c % 120 == 40;

		/* messages in the gap before tool call c carry call c - 1 */
		if (c % 120 == 26 && c + 14 <= 400) {
			add_ev(&m, c - 1, 1);
			add_ev(&m, c - 1, 0);
		} else if (c <= 400 && c % 40 >= 38 && c % 120 < 38) {
			/* the plan, in three lines over the last calls */
			add_ev(&m, c - 1, 0);
		} else if (gain && !asked) {
			add_ev(&m, c - 1, 0);
		} else if (c % 3 == 0 && !(c % 120 > 26 && c % 120 <= 40)) {
			add_ev(&m, c - 1, 0);
		}
		add_kind(&m, c, gain ? KT_KIND_EDIT : KT_KIND_TOOL_CALL);
		if (c > 1 && (c - 1) % 40 == 0 && c - 1 <= 400)
			add_kind(&m, c, KT_KIND_BENCH);
	}
	gains_after_edits(&m, edit, 10, pt);
	memset(&b, 0, sizeof(b));
	b.series.pt = pt;
	b.series.n = 11;
	kt_an_opts_default(&o);
	o.permutations = 2000;
	assert_int_equal(kt_an_runtest(&m.r, &o, &b), KT_OK);
	assert_int_equal(b.nquestions, 4);
	assert_int_equal(b.n_newbest, 10);
	assert_int_equal(b.nscales, 3);
	assert_true(b.scale_msgs[0] && !b.scale_msgs[1] && !b.scale_msgs[2]);
	assert_true(b.scale[0] == 1 && fabs(b.scale[1] - sqrt(15)) < 1e-12 &&
		    b.scale[2] == 15);
	/* the answer between question and change is no distance */
	assert_true(fabs(b.s_scale[0] - 4 * log(1.1)) < 1e-6);
	/* the call scales alone: nothing; the message scale: clearly */
	assert_true(b.p_scale[1] >= 0.1 && b.p_scale[2] >= 0.1);
	assert_true(b.p_scale[0] < 0.01);
	assert_true(b.p_value < 0.05);
	assert_int_equal(b.chosen, 0);
	assert_true(b.s_obs == b.s_scale[0] && b.s_null_mean >= 0);
	/* tau_calls 1: the message scale and one call scale */
	o.tau_calls = 1;
	assert_int_equal(kt_an_runtest(&m.r, &o, &b), KT_OK);
	assert_int_equal(b.nscales, 2);
	assert_true(b.scale_msgs[0] && !b.scale_msgs[1] && b.scale[1] == 1);
}

/* The whole run test is exact under its own null: a small run of nine
 * message slots (two sharing a call) and three gains, two of the slots
 * questions.  Every one of the 36 choices of the two is made the
 * observed run in turn (the null: each equally likely) with 40 seeds of
 * 99 placements each; P(p <= a) must be a. */
static void t_runtest_exact_null(void **st)
{
	static const uint32_t mcall[9] = {0, 1, 1, 3, 4, 6, 7, 9, 10};
	static const uint32_t ecall[3] = {2, 5, 11};
	static const double alpha[] = {0.1, 0.25, 0.5, 0.75};
	size_t below[4] = {0}, tot = 0;

	(void)st;
	for (size_t q1 = 0; q1 < 9; q1++)
		for (size_t q2 = q1 + 1; q2 < 9; q2++) {
			static struct mrun m;
			kt_an_point pt[4];
			size_t mi = 0;

			memset(&m, 0, sizeof(m));
			m.r.ev = m.ev;
			m.r.ncalls = 13;
			for (uint32_t c = 0; c <= 13; c++) {
				for (; mi < 9 && mcall[mi] == c; mi++)
					add_ev(&m, c, mi == q1 || mi == q2);
				for (size_t e = 0; e < 3; e++) {
					if (ecall[e] == c + 1)
						add_kind(&m, c + 1, KT_KIND_EDIT);
					if (ecall[e] + 1 == c + 1)
						add_kind(&m, c + 1, KT_KIND_BENCH);
				}
			}
			gains_after_edits(&m, ecall, 3, pt);
			for (uint64_t seed = 1; seed <= 40; seed++) {
				kt_an_blame b;
				kt_an_opts o;

				memset(&b, 0, sizeof(b));
				b.series.pt = pt;
				b.series.n = 4;
				kt_an_opts_default(&o);
				o.permutations = 99;
				o.seed = seed;
				assert_int_equal(kt_an_runtest(&m.r, &o, &b), KT_OK);
				assert_int_equal(b.nquestions, 2);
				assert_int_equal(b.n_newbest, 3);
				assert_true(b.p_value > 0 && b.p_value <= 1);
				for (size_t a = 0; a < 4; a++)
					below[a] += b.p_value <= alpha[a];
				tot++;
			}
		}
	for (size_t a = 0; a < 4; a++) {
		double f = (double)below[a] / (double)tot;

		/* 1440 draws: the binomial SD is at most 0.013 */
		assert_true(fabs(f - alpha[a]) < 0.045);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_minp_calibrated),
		cmocka_unit_test(t_runtest_message_lag),
		cmocka_unit_test(t_runtest_exact_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
