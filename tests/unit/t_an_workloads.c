/*
 * t_an_workloads.c - runs of several workloads (KernelBench results: one
 * problem after another): one blame per workload (kt_an_blame_workloads),
 * question gains only from jumps within a workload (kt_an_miner_add_n),
 * stalls numbered by their workload's jumps, bench results left out by
 * reason (kt_an_meas_excluded), on runs built through the store API.
 */
#include "testutil.h"
#include <math.h>
#include "../../analyze/analyze.h"

/* An event `minutes` after the previous one. */
static uint64_t fx_ev(struct tu_run *f, int kind, const char *actor,
		      double minutes, const char *payload)
{
	return tu_run_ev(f, kind, actor, (int64_t)(minutes * 60e9), payload);
}

static uint64_t fx_msg(struct tu_run *f, int human, double minutes, const char *text)
{
	char buf[2048];

	snprintf(buf, sizeof(buf), "{\"role\":\"%s\",\"human\":%s,\"text\":\"%s\"}",
		 human ? "user" : "assistant", human ? "true" : "false", text);
	return fx_ev(f, KT_KIND_MESSAGE, human ? "human" : "agent", minutes, buf);
}

/* When set, the next bench names this candidate (its code): results of
 * one candidate are repeats, of different ones attempts. */
static const char *fx_cand;

/* correct: 1, 0, or -1 for no verdict. */
static uint64_t fx_bench(struct tu_run *f, const char *wl, double sp, int correct,
			 double minutes)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "{\"workload\":\"%s\",%s%s%s\"time_ms\":%.4f,"
		 "\"ref_time_ms\":1,\"speedup\":%.4f%s%s}", wl,
		 fx_cand ? "\"candidate\":\"" : "", fx_cand ? fx_cand : "",
		 fx_cand ? "\"," : "", 1.0 / sp, sp,
		 correct < 0 ? "" : ",\"correct\":",
		 correct < 0 ? "" : correct ? "true" : "false");
	return fx_ev(f, KT_KIND_BENCH, "tool", minutes, buf);
}

static void fx_edit(struct tu_run *f, const char *path)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "{\"path\":\"%s\",\"op\":\"modify\","
		 "\"before\":null,\"after\":null}", path);
	fx_ev(f, KT_KIND_EDIT, "agent", 1, buf);
}

static uint64_t q_a, q_b;

/*
 * A_softmax at x0.40, a human question, an edit, x0.80 (a jump); then
 * B_reduce: a question about B right before its first result (x1.00,
 * above A's best: a "jump" only when both are read as one series), a
 * stall of B with a result of no verdict, an agent plan hours later, an
 * edit, x2.00.  The results before each edit name candidates of their own
 * (attempts: a stall is made of attempts, not of re-runs of one code).
 */
static void build(struct tu_run *f)
{
	static const double pa[] = {0.40, 0.41, 0.40, 0.405, 0.40};
	static const double pb[] = {1.0, 1.01, 0.99, 1.0, 1.02};
	static const char *const ca[] = {"a1", "a2", "a3", "a4", "a5", "a6"};
	static const char *const cb[] = {"b1", "b2", "b3", "b4", "b5", "b6"};

	tu_run_open(f, "test:workloads");
	fx_msg(f, 1, 0, "Make every kernel faster than the reference.");
	for (int i = 0; i < 5; i++) {
		fx_cand = ca[i];
		fx_bench(f, "A_softmax", pa[i], 1, 2);
	}
	fx_cand = ca[5];
	fx_bench(f, "A_softmax", 0.9, 0, 2);
	fx_cand = NULL;
	q_a = fx_msg(f, 1, 2, "Are the global loads in the softmax kernel coalesced, "
		     "or should you vectorize them with float4?");
	fx_msg(f, 0, 1, "You're right: the global loads are not coalesced. "
	       "Vectorizing the softmax loads with float4.");
	fx_edit(f, "softmax.cu");
	for (int i = 0; i < 3; i++)
		fx_bench(f, "A_softmax", 0.80 + 0.01 * (i == 1), 1, 2);
	q_b = fx_msg(f, 1, 2, "Why is the reduction launched as two separate kernels "
		     "instead of one fused kernel?");
	fx_msg(f, 0, 1, "Good point: the reduction runs as two separate kernels; "
	       "I will fuse them into one kernel.");
	for (int i = 0; i < 5; i++) {
		fx_cand = cb[i];
		fx_bench(f, "B_reduce", pb[i], 1, i ? 120 : 2);
	}
	fx_cand = cb[5];
	fx_bench(f, "B_reduce", 1.0, -1, 120);
	fx_cand = NULL;
	fx_msg(f, 0, 600, "Plan: unroll the inner loop by 4 and keep the partial "
	       "sums in registers.");
	fx_edit(f, "reduce.cu");
	for (int i = 0; i < 3; i++)
		fx_bench(f, "B_reduce", 2.0 + 0.02 * (i == 1), 1, 2);
	assert_int_equal(kt_store_commit(f->s), KT_OK);
}

static long blamed_seq(const kt_an_run *r, const kt_an_jump *j)
{
	return j->question >= 0 ? (long)r->ev[j->question].seq : -1;
}

/* One blame per workload; read as one series, B's start is a jump. */
static void t_blame_per_workload(void **st)
{
	struct tu_run f;
	kt_an_run *r = NULL;
	kt_an_blame *b = NULL, one;
	const char **wl = NULL;
	size_t n = 0;
	kt_an_opts o;

	(void)st;
	build(&f);
	assert_int_equal(kt_an_run_load(f.s, f.id, &r), KT_OK);
	kt_an_opts_default(&o);
	o.permutations = 50;
	assert_int_equal(kt_an_blame_workloads(f.s, r, &o, &b, &wl, &n), KT_OK);
	assert_int_equal(n, 2);
	assert_non_null(wl);
	assert_string_equal(wl[0], "A_softmax");
	assert_string_equal(wl[1], "B_reduce");
	assert_int_equal(b[0].njump, 1);
	assert_int_equal(b[1].njump, 1);
	assert_true(fabs(b[0].jump[0].gain - 0.80 / 0.41) < 0.01);
	assert_true(fabs(b[1].jump[0].gain - 2.0 / 1.02) < 0.01);
	assert_int_equal(blamed_seq(r, &b[0].jump[0]), (long)q_a);
	assert_true(blamed_seq(r, &b[1].jump[0]) != (long)q_b);
	/* every series holds only its own workload's results */
	for (size_t w = 0; w < n; w++)
		for (size_t i = 0; i < b[w].series.n; i++)
			assert_string_equal(r->m[b[w].series.pt[i].meas].workload,
					    wl[w]);
	/* one series over both problems (o.workload NULL) sees a x1.23 new
	 * best at B's first result; no edit lies between it and A's last
	 * result, so it is no jump (it was one, blamed on the question
	 * before it, before jumps needed a change) */
	assert_int_equal(kt_an_blame_run(f.s, r, &o, &one), KT_OK);
	assert_int_equal(one.njump, 2);
	assert_int_equal(one.series.n_nochange, 1);
	for (size_t i = 0; i < one.series.n; i++)
		if (one.series.pt[i].nochange)
			assert_true(one.series.pt[i].gain > 1.2 &&
				    one.series.pt[i].gain < 1.3);
	for (size_t k = 0; k < one.njump; k++)
		assert_true(blamed_seq(r, &one.jump[k]) != (long)q_b);
	kt_an_blame_free(&one);
	kt_an_blame_workloads_free(b, wl, n);
	kt_an_run_free(r);
	tu_run_close(&f);
}

/* A run of one workload: one blame over every measurement, no names. */
static void t_blame_one_workload(void **st)
{
	struct tu_run f;
	kt_an_run *r = NULL;
	kt_an_blame *b = NULL, one;
	const char **wl = NULL;
	size_t n = 0;
	kt_an_opts o;

	(void)st;
	tu_run_open(&f, "test:one");
	for (int i = 0; i < 5; i++)
		fx_bench(&f, "gemm", 1.0 + 0.01 * (i & 1), 1, 1);
	for (int i = 0; i < 3; i++)
		fx_bench(&f, "gemm", 1.6, 1, 1);
	assert_int_equal(kt_store_commit(f.s), KT_OK);
	assert_int_equal(kt_an_run_load(f.s, f.id, &r), KT_OK);
	kt_an_opts_default(&o);
	o.permutations = 20;
	assert_int_equal(kt_an_blame_workloads(f.s, r, &o, &b, &wl, &n), KT_OK);
	assert_int_equal(n, 1);
	assert_null(wl);
	assert_int_equal(kt_an_blame_run(f.s, r, &o, &one), KT_OK);
	assert_int_equal(b[0].njump, one.njump);
	assert_int_equal(b[0].series.n, one.series.n);
	assert_true(b[0].p_value == one.p_value);
	kt_an_blame_free(&one);
	kt_an_blame_workloads_free(b, wl, n);
	kt_an_run_free(r);
	tu_run_close(&f);
}

/* The library's gains: the question before A's jump gets it, the one
 * before B's first result gets nothing. */
static void t_miner_per_workload(void **st)
{
	struct tu_run f;
	kt_an_run *r = NULL;
	kt_an_blame *b = NULL;
	const char **wl = NULL;
	size_t n = 0, ni = 0, seen = 0;
	kt_an_opts o;
	kt_an_miner *m = NULL;
	const kt_an_qitem *it;

	(void)st;
	build(&f);
	assert_int_equal(kt_an_run_load(f.s, f.id, &r), KT_OK);
	kt_an_opts_default(&o);
	o.permutations = 0;
	assert_int_equal(kt_an_blame_workloads(f.s, r, &o, &b, &wl, &n), KT_OK);
	assert_int_equal(kt_an_miner_new(0, &m), KT_OK);
	assert_int_equal(kt_an_miner_add_n(m, r, b, n), KT_OK);
	assert_int_equal(kt_an_miner_finish(m, &it, &ni), KT_OK);
	for (size_t i = 0; i < ni; i++) {
		assert_int_equal(it[i].nsrc, 1);
		if (it[i].src[0].seq == q_a) {
			assert_int_equal(it[i].hits, 1);
			assert_true(it[i].gain_log > 0.3 * log(0.80 / 0.41));
			seen |= 1;
		} else if (it[i].src[0].seq == q_b) {
			assert_int_equal(it[i].hits, 0);
			assert_true(it[i].gain_log == 0);
			seen |= 2;
		}
	}
	assert_int_equal(seen, 3);
	kt_an_miner_free(m);
	kt_an_blame_workloads_free(b, wl, n);
	kt_an_run_free(r);
	tu_run_close(&f);
}

/* Stalls of each workload: ended by that workload's jump 0, the results
 * left out there counted by reason, the agent's words of that problem. */
static void t_stalls_per_workload(void **st)
{
	struct tu_run f;
	kt_an_run *r = NULL;
	kt_an_blame *b = NULL;
	const char **wl = NULL;
	size_t n = 0;
	kt_an_opts o;

	(void)st;
	build(&f);
	assert_int_equal(kt_an_run_load(f.s, f.id, &r), KT_OK);
	kt_an_opts_default(&o);
	o.permutations = 0;
	assert_int_equal(kt_an_blame_workloads(f.s, r, &o, &b, &wl, &n), KT_OK);
	for (size_t w = 0; w < n; w++) {
		kt_an_opts ow = o;
		kt_an_stall *s = NULL;
		size_t ns = 0, inc = 0, unk = 0;

		ow.workload = wl[w];
		assert_int_equal(kt_an_stalls(r, &b[w], &ow, &s, &ns), KT_OK);
		assert_int_equal(ns, 1);
		assert_int_equal(s[0].length, 5);
		assert_int_equal(s[0].ended_by_jump, 0);
		assert_int_equal(s[0].p_last, b[w].jump[0].p_prev);
		/* the reasons, as the series counted them */
		for (size_t i = 0; i < r->nm; i++) {
			int why = kt_an_meas_excluded(r, &b[w].series, &ow, i);

			inc += why == KT_AN_EX_INCORRECT;
			unk += why == KT_AN_EX_UNKNOWN;
			assert_true(why != KT_AN_EX_NOTIME);
		}
		assert_int_equal(inc, b[w].series.n_incorrect);
		assert_int_equal(unk, b[w].series.n_unknown);
		assert_int_equal(s[0].ex.incorrect, w == 0 ? 1 : 0);
		assert_int_equal(s[0].ex.unknown, w == 1 ? 1 : 0);
		assert_int_equal(s[0].ex.notime, 0);
		/* B's stall: B's fusion talk, not A's float4 loads */
		if (w == 1)
			assert_int_equal(s[0].layer, KT_AN_L_OPBOUND);
		free(s);
	}
	kt_an_blame_workloads_free(b, wl, n);
	kt_an_run_free(r);
	tu_run_close(&f);
}

/* Commit f, load it and blame each of its two workloads (no run test). */
static void blame_two(struct tu_run *f, kt_an_run **r, kt_an_blame **b,
		      const char ***wl, size_t *n)
{
	kt_an_opts o;

	assert_int_equal(kt_store_commit(f->s), KT_OK);
	assert_int_equal(kt_an_run_load(f->s, f->id, r), KT_OK);
	kt_an_opts_default(&o);
	o.permutations = 0;
	assert_int_equal(kt_an_blame_workloads(f->s, *r, &o, b, wl, n), KT_OK);
	assert_int_equal(*n, 2);
}

/*
 * Two workloads measured in turn (issue 15): A's edit, then a result of
 * B, then A's faster result.  B's result measured other code, so the edit
 * still made A's jump; it was lost (the jump dropped, or "edits: none
 * recorded") when any result in between cut the edits off.
 */
static void t_edit_across_series(void **st)
{
	struct tu_run f;
	kt_an_run *r = NULL;
	kt_an_blame *b = NULL;
	const char **wl = NULL;
	size_t n = 0;
	uint64_t ed;

	(void)st;
	tu_run_open(&f, "test:interleaved");
	for (int i = 0; i < 4; i++) {
		fx_bench(&f, "A_gemm", 1.0 + 0.01 * (i & 1), 1, 1);
		fx_bench(&f, "B_conv", 1.0 - 0.01 * (i & 1), 1, 1);
	}
	fx_edit(&f, "gemm.cu");
	ed = f.seq;
	fx_bench(&f, "B_conv", 1.0, 1, 1);
	for (int i = 0; i < 3; i++)
		fx_bench(&f, "A_gemm", 2.0 + 0.01 * (i & 1), 1, 1);
	blame_two(&f, &r, &b, &wl, &n);
	assert_string_equal(wl[0], "A_gemm");
	assert_int_equal(b[0].njump, 1);
	assert_int_equal(b[0].jump[0].nedits, 1);
	assert_int_equal(r->ev[b[0].jump[0].edits[0]].seq, ed);
	assert_string_equal(r->ev[b[0].jump[0].edits[0]].text, "gemm.cu");
	assert_int_equal(b[1].njump, 0);
	kt_an_blame_workloads_free(b, wl, n);
	kt_an_run_free(r);
	tu_run_close(&f);
}

/*
 * Each series' edits are its own (issue 15, plant2's null sessions): a
 * person asks about B's softmax, the agent edits softmax.cu and measures
 * B; hours later it edits attn.cu on its own plan and A jumps.  The
 * softmax.cu edit was measured by B's result and is not A's: taken as A's
 * (every edit since A's result before), it became the jump's first edit
 * and the softmax question, right before it, took the credit for A's
 * agent-alone jump.  A file edited again after the other series' result
 * stays whole: A's second jump is both of its attn.cu edits.
 */
static void t_edits_of_other_series(void **st)
{
	struct tu_run f;
	kt_an_run *r = NULL;
	kt_an_blame *b = NULL;
	const char **wl = NULL;
	size_t n = 0;
	uint64_t ed[3];
	const kt_an_jump *j;

	(void)st;
	tu_run_open(&f, "test:own edits");
	for (int i = 0; i < 4; i++) {
		fx_bench(&f, "A_attn", 1.0 + 0.01 * (i & 1), 1, 1);
		fx_bench(&f, "B_softmax", 1.0 - 0.01 * (i & 1), 1, 1);
	}
	fx_msg(&f, 1, 1, "Could the layernorm and the quantize step share one "
	       "pass over the row?");
	fx_msg(&f, 0, 1, "Yes, layernorm and quantize can share one pass over "
	       "the row; merging them.");
	fx_edit(&f, "softmax.cu");
	fx_bench(&f, "B_softmax", 1.0, 1, 1);
	fx_msg(&f, 0, 600, "I'll switch the accumulation to tensor cores "
	       "through wmma fragments.");
	fx_edit(&f, "attn.cu");
	ed[0] = f.seq;
	for (int i = 0; i < 3; i++)
		fx_bench(&f, "A_attn", 2.0 + 0.01 * (i & 1), 1, 1);
	fx_edit(&f, "attn.cu");
	ed[1] = f.seq;
	fx_bench(&f, "B_softmax", 1.0, 1, 1);
	fx_edit(&f, "attn.cu");
	ed[2] = f.seq;
	for (int i = 0; i < 3; i++)
		fx_bench(&f, "A_attn", 4.0 + 0.01 * (i & 1), 1, 1);
	blame_two(&f, &r, &b, &wl, &n);
	assert_string_equal(wl[0], "A_attn");
	assert_int_equal(b[0].njump, 2);
	j = &b[0].jump[0];
	assert_int_equal(j->question, -1);
	assert_int_equal(j->nedits, 1);
	assert_int_equal(r->ev[j->edits[0]].seq, ed[0]);
	assert_int_equal(j->anchor_seq, ed[0]);
	j = &b[0].jump[1];
	assert_int_equal(j->nedits, 2);
	assert_int_equal(r->ev[j->edits[0]].seq, ed[1]);
	assert_int_equal(r->ev[j->edits[1]].seq, ed[2]);
	assert_int_equal(b[1].njump, 0);
	kt_an_blame_workloads_free(b, wl, n);
	kt_an_run_free(r);
	tu_run_close(&f);
}

/* Commit f's run, load it and blame it without permutations: one jump. */
static void blame_one(struct tu_run *f, kt_an_run **r, kt_an_blame *b)
{
	kt_an_opts o;

	assert_int_equal(kt_store_commit(f->s), KT_OK);
	assert_int_equal(kt_an_run_load(f->s, f->id, r), KT_OK);
	kt_an_opts_default(&o);
	o.permutations = 0;
	assert_int_equal(kt_an_blame_run(f->s, *r, &o, b), KT_OK);
	assert_int_equal(b->njump, 1);
}

/*
 * A question answered, measured and left (plant2's null sessions): the
 * agent tries what was asked, measures no gain, then states a plan of its
 * own that shares no words with the question and jumps.  That plan is the
 * agent's, not the question taken up again: it gave the question uptake
 * (and the agent alone its +0.3 for an independent plan) at once.
 */
static void t_answer_measured_then_own_plan(void **st)
{
	struct tu_run f;
	kt_an_run *r = NULL;
	kt_an_blame b;
	uint64_t q;
	const kt_an_jump *j;
	const kt_an_cand *c = NULL;

	(void)st;
	tu_run_open(&f, "test:answered");
	for (int i = 0; i < 4; i++)
		fx_bench(&f, "K_gemm", 1.0 + 0.01 * (i & 1), 1, 1);
	q = fx_msg(&f, 1, 1, "Are you sure the kernel does not spill registers, "
		   "what does ptxas say?");
	fx_msg(&f, 0, 1, "ptxas reports spills; limiting registers with launch "
	       "bounds.");
	fx_edit(&f, "gemm.cu");
	fx_bench(&f, "K_gemm", 1.0, 1, 1);
	fx_msg(&f, 0, 1, "I'll switch the accumulation to tensor cores through "
	       "wmma fragments.");
	fx_edit(&f, "gemm.cu");
	for (int i = 0; i < 3; i++)
		fx_bench(&f, "K_gemm", 2.0 + 0.01 * (i & 1), 1, 1);
	blame_one(&f, &r, &b);
	j = &b.jump[0];
	for (size_t i = 0; i < j->ncand; i++)
		if (r->ev[j->cand[i].ev].seq == q)
			c = &j->cand[i];
	assert_non_null(c);
	assert_true(c->uptake == 0);
	assert_int_equal(j->question, -1);
	kt_an_blame_free(&b);
	kt_an_run_free(r);
	tu_run_close(&f);
}

/*
 * The agent's own guess at the cause ("My guess is that ...") is its
 * hypothesis as much as "I think ...": stated after a question was
 * answered and measured without gain, it weighs for the agent alone.  It
 * was not read as a plan, and two questions near the change (the one
 * answered, an earlier one) added up past the agent alone (plant2's null
 * sessions: a third of the agent-alone jumps given to a question).
 */
static void t_guess_is_own_plan(void **st)
{
	struct tu_run f;
	kt_an_run *r = NULL;
	kt_an_blame b;

	(void)st;
	tu_run_open(&f, "test:guess");
	for (int i = 0; i < 4; i++)
		fx_bench(&f, "K_softmax", 1.0 + 0.01 * (i & 1), 1, 1);
	fx_msg(&f, 1, 1, "Have you looked at the SASS, does the K loop get "
	       "unrolled at all?");
	fx_msg(&f, 0, 1, "Checked the SASS: the K loop is not unrolled. Adding "
	       "#pragma unroll to the K loop.");
	fx_edit(&f, "softmax.cu");
	fx_bench(&f, "K_softmax", 1.0, 1, 1);
	fx_msg(&f, 1, 1, "Why does the residual add run as its own launch "
	       "after the matmul?");
	fx_msg(&f, 0, 1, "The residual add is its own launch after the "
	       "matmul; folding it into the matmul epilogue.");
	fx_edit(&f, "softmax.cu");
	fx_bench(&f, "K_softmax", 1.01, 1, 1);
	fx_msg(&f, 0, 1, "My guess is that the index arithmetic dominates; "
	       "precomputing row offsets once per block.");
	fx_edit(&f, "softmax.cu");
	for (int i = 0; i < 3; i++)
		fx_bench(&f, "K_softmax", 1.6 + 0.01 * (i & 1), 1, 1);
	blame_one(&f, &r, &b);
	assert_true(b.jump[0].ncand >= 2);
	assert_int_equal(b.jump[0].question, -1);
	assert_true(b.jump[0].hypothesis >= 0 &&
		    strstr(r->ev[b.jump[0].hypothesis].text, "My guess"));
	kt_an_blame_free(&b);
	kt_an_run_free(r);
	tu_run_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_blame_per_workload),
		cmocka_unit_test(t_blame_one_workload),
		cmocka_unit_test(t_miner_per_workload),
		cmocka_unit_test(t_stalls_per_workload),
		cmocka_unit_test(t_edit_across_series),
		cmocka_unit_test(t_edits_of_other_series),
		cmocka_unit_test(t_answer_measured_then_own_plan),
		cmocka_unit_test(t_guess_is_own_plan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
