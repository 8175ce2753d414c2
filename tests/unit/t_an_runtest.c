/*
 * t_an_runtest.c - the run test over several lag scales (analyze/runtest.c):
 * min-p stays uniform under an exchangeable null, and the short scale finds
 * questions right before their gains that the real-run scale misses.
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

static void add_ev(struct mrun *m, uint32_t call, int question)
{
	kt_an_ev *e = &m->ev[m->r.nev];

	assert_true(m->r.nev < 1024);
	memset(e, 0, sizeof(*e));
	e->seq = m->r.nev + 1;
	e->kind = KT_KIND_MESSAGE;
	e->call = call;
	e->meas = e->edit = -1;
	if (question) {
		e->human = 1;
		e->role = KT_AN_ROLE_USER;
		e->qorigin = KT_AN_QO_HUMAN;
	} else {
		e->role = KT_AN_ROLE_ASSISTANT;
	}
	m->r.nev++;
}

/* Ten gains of x1.1 at calls 30, 60, .. 300.  A person asks right at
 * four of them (30, 120, 210, 300: lag 0) and ten calls after each other
 * one (lag 20 to the next); the agent talks a lot two to four calls
 * before each gain (six messages) and once every five calls elsewhere,
 * never at a gain's own call.  Questions placed
 * at random often land two to four calls before gains: at a 15-call
 * scale that scores about as much as the real ones, at one call it
 * scores nothing.  Only the short scale sees that the questions come
 * right before their gains, and min-p keeps what it sees. */
static void t_runtest_short_lag(void **st)
{
	static struct mrun m;
	kt_an_point pt[11];
	kt_an_blame b;
	kt_an_opts o;

	(void)st;
	memset(&m, 0, sizeof(m));
	m.r.ev = m.ev;
	m.r.ncalls = 400;
	for (uint32_t c = 0; c <= 400; c++) {
		int near = 0;

		for (uint32_t a = 30; a <= 300; a += 30) {
			if (c + 2 <= a && a <= c + 4)
				near = 1;
			if (c == a && a % 90 == 30)
				add_ev(&m, c, 1);
			if (c == a + 10 && a % 90 != 30)
				add_ev(&m, c, 1);
		}
		if (near) {
			add_ev(&m, c, 0);
			add_ev(&m, c, 0);
		} else if (c % 5 == 2) {
			add_ev(&m, c, 0);
		}
	}
	memset(pt, 0, sizeof(pt));
	memset(&b, 0, sizeof(b));
	for (size_t i = 0; i <= 10; i++) {
		pt[i].call = i ? (uint32_t)(30 * i) : 0;
		/* seqs between the events: no edit lies between points */
		pt[i].seq = pt[i].seq_first = 0;
		pt[i].speedup = pt[i].best = pow(1.1, (double)i);
	}
	for (size_t i = 0; i <= 10; i++)
		for (size_t k = 0; k < m.r.nev; k++)
			if (m.ev[k].call <= pt[i].call)
				pt[i].seq = m.ev[k].seq;
	b.series.pt = pt;
	b.series.n = 11;
	kt_an_opts_default(&o);
	o.permutations = 2000;
	assert_int_equal(kt_an_runtest(&m.r, &o, &b), KT_OK);
	assert_int_equal(b.nquestions, 10);
	assert_int_equal(b.n_newbest, 10);
	assert_int_equal(b.nscales, 3);
	assert_true(b.scale[0] == 1 && fabs(b.scale[1] - sqrt(15)) < 1e-12 &&
		    b.scale[2] == 15);
	/* tau 15 alone: not significant; tau 1: clearly; min-p: still */
	assert_true(b.p_scale[2] >= 0.1);
	assert_true(b.p_scale[0] < 0.01);
	assert_true(b.p_value < 0.05);
	assert_int_equal(b.chosen, 0);
	assert_true(b.s_obs == b.s_scale[0] && b.s_null_mean >= 0);
	/* one scale only when tau_calls is 1 */
	o.tau_calls = 1;
	assert_int_equal(kt_an_runtest(&m.r, &o, &b), KT_OK);
	assert_int_equal(b.nscales, 1);
	assert_true(fabs(b.p_value - b.p_scale[0]) < 0.01);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_minp_calibrated),
		cmocka_unit_test(t_runtest_short_lag),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
