/*
 * t_an_measure.c - the measurement model (FORMAT.md "Measurement model"):
 * series keys and --series-by, sweeps compared scenario by scenario, noise
 * from repeats / reported spread / the default and never from differences
 * between candidates, gains over the running best, no jump without a
 * change, correctness not checked, unparsed benchmark output, stalls that
 * end when small gains add up.  Runs are built through the store API.
 */
#include "testutil.h"
#include <math.h>
#include "../../analyze/analyze.h"

struct fx {
	char *dir;
	kt_store *s;
	char id[KT_RUN_ID_HEX + 1];
	uint64_t seq;
	int64_t ts;
	kt_an_run *r;
};

static void fx_open(struct fx *f)
{
	char path[4200];

	memset(f, 0, sizeof(*f));
	f->dir = tu_tmpdir();
	assert_non_null(f->dir);
	snprintf(path, sizeof(path), "%s/s.ktraj", f->dir);
	assert_int_equal(kt_store_open(path, KT_OPEN_CREATE, &f->s), KT_OK);
	kt_run_id_from_identity("test:measure", f->id);
	assert_int_equal(kt_store_begin(f->s), KT_OK);
	assert_int_equal(kt_run_create(f->s, f->id, "m", "test", NULL), KT_OK);
	f->ts = 1700000000000000000LL;
}

static uint64_t fx_ev(struct fx *f, int kind, uint64_t parent,
		      const char *payload)
{
	return tu_append(f->s, f->id, ++f->seq, parent,
			 f->ts += 60000000000LL, kind, "tool", payload);
}

static void fx_edit(struct fx *f)
{
	fx_ev(f, KT_KIND_EDIT, 0, "{\"path\":\"k.cu\",\"op\":\"modify\","
	      "\"before\":null,\"after\":null}");
}

/* A bench result; extra is more JSON members (may be ""). */
static void fx_bench(struct fx *f, uint64_t parent, double ms,
		     const char *extra)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "{\"time_ms\":%.6f%s%s}", ms,
		 *extra ? "," : "", extra);
	fx_ev(f, KT_KIND_BENCH, parent, buf);
}

static uint64_t fx_call(struct fx *f)
{
	return fx_ev(f, KT_KIND_TOOL_CALL, 0, "{\"tool\":\"Bash\"}");
}

static void fx_load(struct fx *f)
{
	assert_int_equal(kt_store_commit(f->s), KT_OK);
	assert_int_equal(kt_an_run_load(f->s, f->id, &f->r), KT_OK);
}

static void fx_close(struct fx *f)
{
	kt_an_run_free(f->r);
	kt_store_close(f->s);
	tu_rmrf(f->dir);
	free(f->dir);
}

static void t_series_by(void **st)
{
	unsigned by = 0;

	(void)st;
	assert_int_equal(kt_an_series_by_parse("workload,metric", &by), KT_OK);
	assert_int_equal(by, KT_AN_BY_WORKLOAD | KT_AN_BY_METRIC);
	assert_int_equal(kt_an_series_by_parse("baseline", &by), KT_OK);
	assert_int_equal(by, KT_AN_BY_BASELINE);
	assert_int_equal(kt_an_series_by_parse("", &by), KT_EINVAL);
	assert_int_equal(kt_an_series_by_parse("workload,", &by), KT_EINVAL);
	assert_int_equal(kt_an_series_by_parse("workload,workload", &by),
			 KT_EINVAL);
	assert_int_equal(kt_an_series_by_parse("shape", &by), KT_EINVAL);
}

/* Two sizes of one operator are two series; --series-by workload puts
 * them in one. */
static void t_keys(void **st)
{
	struct fx f;
	const char **k = NULL;
	size_t n = 0;

	(void)st;
	fx_open(&f);
	fx_bench(&f, fx_call(&f), 1.0, "\"workload\":\"gemm\",\"scenario\":\"256\"");
	fx_bench(&f, fx_call(&f), 0.3, "\"workload\":\"gemm\",\"scenario\":\"128\"");
	fx_bench(&f, fx_call(&f), 0.9, "\"workload\":\"gemm\",\"scenario\":\"256\","
		 "\"metric\":\"time\",\"baseline\":\"cublas\"");
	fx_load(&f);
	assert_int_equal(kt_an_workloads(f.r, &k, &n), KT_OK);
	assert_int_equal(n, 3);
	assert_string_equal(k[0], "gemm | 256");
	assert_string_equal(k[1], "gemm | 128");
	assert_string_equal(k[2], "gemm | 256 | time | cublas");
	free(k);
	assert_int_equal(kt_an_series_keys(f.r, KT_AN_BY_WORKLOAD), KT_OK);
	assert_int_equal(kt_an_workloads(f.r, &k, &n), KT_OK);
	assert_int_equal(n, 1);
	assert_string_equal(k[0], "gemm");
	free(k);
	fx_close(&f);
}

/* One candidate over three shapes per step: sweeps, compared shape by
 * shape with the best sweep before; a shape only one sweep has does not
 * count. */
static void t_sweeps(void **st)
{
	static const double t1[] = {1.0, 2.0, 4.0}, t2[] = {0.5, 1.0, 2.0};
	struct fx f;
	kt_an_opts o;
	kt_an_series se;
	char x[256];

	(void)st;
	fx_open(&f);
	for (int s = 0; s < 2; s++) {
		uint64_t c = fx_call(&f);

		if (s)
			fx_edit(&f);
		for (int i = 0; i < 3; i++) {
			snprintf(x, sizeof(x), "\"workload\":\"gemm\",\"scenario\":"
				 "\"M=%d\",\"correct\":true", 1 << i);
			fx_bench(&f, c, s ? t2[i] : t1[i], x);
		}
		if (s)
			/* a shape the first sweep never measured, much faster */
			fx_bench(&f, c, 0.001, "\"workload\":\"gemm\","
				 "\"scenario\":\"M=99\",\"correct\":true");
	}
	fx_load(&f);
	assert_int_equal(f.r->nsweeps, 2);
	assert_string_equal(f.r->m[0].key, "gemm");
	kt_an_opts_default(&o);
	o.workload = "gemm";
	assert_int_equal(kt_an_series_build(f.r, &o, &se), KT_OK);
	assert_int_equal(se.sweep, 1);
	assert_int_equal(se.n, 2);
	assert_int_equal(se.pt[0].nscen, 3);
	assert_int_equal(se.pt[1].nscen, 4);
	assert_int_equal(se.pt[1].ncmp, 3);
	assert_true(fabs(se.pt[1].gain - 2.0) < 1e-9);
	assert_int_equal(se.pt[1].accepted, 1);
	kt_an_series_free(&se);
	fx_close(&f);
}

/* Noise: never from differences between candidates; from repeats of one
 * candidate when there are some; else the reported spread; else the
 * default. */
static void t_noise(void **st)
{
	static const double ms[] = {10, 7, 12, 6, 11, 9, 13, 8};
	struct fx f;
	kt_an_opts o;
	kt_an_series se;
	char x[256];

	(void)st;
	/* different candidates jumping around by 20-50 %: the default */
	fx_open(&f);
	for (int i = 0; i < 8; i++) {
		snprintf(x, sizeof(x), "\"candidate\":\"k%d\"", i);
		fx_edit(&f);
		fx_bench(&f, fx_call(&f), ms[i], x);
	}
	fx_load(&f);
	kt_an_opts_default(&o);
	assert_int_equal(kt_an_series_build(f.r, &o, &se), KT_OK);
	assert_int_equal(se.noise_kind, KT_AN_NOISE_DEFAULT);
	assert_true(fabs(se.sigma - 0.03) < 1e-12);
	kt_an_series_free(&se);
	fx_close(&f);
	/* repeats of one candidate: 1 % apart */
	fx_open(&f);
	for (int i = 0; i < 6; i++)
		fx_bench(&f, fx_call(&f), i & 1 ? 10.1 : 9.9,
			 "\"candidate\":\"k0\"");
	fx_edit(&f);
	fx_bench(&f, fx_call(&f), 8.0, "\"candidate\":\"k1\"");
	fx_load(&f);
	assert_int_equal(kt_an_series_build(f.r, &o, &se), KT_OK);
	assert_int_equal(se.noise_kind, KT_AN_NOISE_REPEATS);
	assert_int_equal(se.noise_n, 6);
	assert_int_equal(se.noise_groups, 1);
	assert_true(se.sigma > 0.005 && se.sigma < 0.02);
	/* x1.25 over the best so far with a 1 % noise and an edit: a jump */
	assert_int_equal(se.pt[6].accepted, 1);
	kt_an_series_free(&se);
	fx_close(&f);
	/* the reported spread */
	fx_open(&f);
	fx_bench(&f, fx_call(&f), 10, "\"min_ms\":9.0,\"max_ms\":11.0,\"n\":100");
	fx_bench(&f, fx_call(&f), 10, "\"min_ms\":9.0,\"max_ms\":11.0,\"n\":100");
	fx_load(&f);
	assert_int_equal(kt_an_series_build(f.r, &o, &se), KT_OK);
	assert_int_equal(se.noise_kind, KT_AN_NOISE_SPREAD);
	assert_true(fabs(se.sigma - log(11.0 / 9.0) / 4) < 1e-9);
	kt_an_series_free(&se);
	fx_close(&f);
	/* a single iteration (min = max, n = 1) tells no spread: it is not
	 * a zero that halves the median (issue 15) */
	fx_open(&f);
	fx_bench(&f, fx_call(&f), 10, "\"min_ms\":10.0,\"max_ms\":10.0,\"n\":1");
	fx_bench(&f, fx_call(&f), 10, "\"min_ms\":10.0,\"max_ms\":10.0");
	fx_bench(&f, fx_call(&f), 10, "\"min_ms\":9.0,\"max_ms\":11.0,\"n\":100");
	fx_bench(&f, fx_call(&f), 10, "\"min_ms\":9.0,\"max_ms\":11.0,\"n\":100");
	fx_load(&f);
	assert_int_equal(kt_an_series_build(f.r, &o, &se), KT_OK);
	assert_int_equal(se.noise_kind, KT_AN_NOISE_SPREAD);
	assert_int_equal(se.noise_n, 2);
	assert_true(fabs(se.sigma - log(11.0 / 9.0) / 4) < 1e-9);
	kt_an_series_free(&se);
	fx_close(&f);
}

/* Noise from nu degrees of freedom of repeats is the pooled SD over
 * c4(nu), its mean as a fraction of sigma: three repeats of one code at
 * 10 ms x e^-0.02, 1, e^0.02 give s = 0.02 from 2 degrees of freedom,
 * c4(2) = Gamma(3/2) / Gamma(1) = sqrt(pi) / 2, sigma = 0.022568; a new
 * code x1.095 faster is within z sigma sqrt 2 = x1.1005 (over s itself
 * it would pass x1.0886 and be a jump). */
static void t_few_df(void **st)
{
	struct fx f;
	kt_an_opts o;
	kt_an_series se;
	const double c4_2 = sqrt(M_PI) / 2;

	(void)st;
	fx_open(&f);
	fx_bench(&f, fx_call(&f), 10 * exp(-0.02), "\"candidate\":\"k0\"");
	fx_bench(&f, fx_call(&f), 10, "\"candidate\":\"k0\"");
	fx_bench(&f, fx_call(&f), 10 * exp(0.02), "\"candidate\":\"k0\"");
	fx_edit(&f);
	fx_bench(&f, fx_call(&f), 10 / 1.095, "\"candidate\":\"k1\"");
	fx_load(&f);
	kt_an_opts_default(&o);
	assert_int_equal(kt_an_series_build(f.r, &o, &se), KT_OK);
	assert_int_equal(se.noise_kind, KT_AN_NOISE_REPEATS);
	/* the times are stored to 6 decimals */
	if (fabs(se.sigma - 0.02 / c4_2) >= 1e-6)
		fail_msg("sigma %.9g, want %.9g", se.sigma, 0.02 / c4_2);
	assert_true(fabs(se.pt[3].gain - 1.095) < 1e-6);
	assert_int_equal(se.pt[3].newbest, 0);
	assert_int_equal(se.n_newbest, 0);
	kt_an_series_free(&se);
	fx_close(&f);
}

/* Reference repeats take noise 1's estimator: three results of three
 * candidates (no repeat of code) whose reference is timed again at
 * 10 ms x e^-0.02, 1, e^0.02 give s = 0.02 from 2 degrees of freedom, and
 * sigma = sqrt 2 x 0.02 / c4(2) = 0.031915 (sqrt 2 x s alone would be
 * 0.028284). */
static void t_ref_few_df(void **st)
{
	struct fx f;
	kt_an_opts o;
	kt_an_series se;
	const double c4_2 = sqrt(M_PI) / 2;
	char x[128];

	(void)st;
	fx_open(&f);
	for (int i = 0; i < 3; i++) {
		snprintf(x, sizeof(x), "\"candidate\":\"k%d\",\"ref_time_ms\":"
			 "%.9f", i, 10 * exp(0.02 * (i - 1)));
		fx_edit(&f);
		fx_bench(&f, fx_call(&f), 5, x);
	}
	fx_load(&f);
	kt_an_opts_default(&o);
	assert_int_equal(kt_an_series_build(f.r, &o, &se), KT_OK);
	assert_int_equal(se.noise_kind, KT_AN_NOISE_REF_REPEATS);
	assert_int_equal(se.noise_n, 3);
	if (fabs(se.sigma - M_SQRT2 * 0.02 / c4_2) >= 1e-6)
		fail_msg("sigma %.9g, want %.9g", se.sigma,
			 M_SQRT2 * 0.02 / c4_2);
	kt_an_series_free(&se);
	fx_close(&f);
}

/* One wild repeat (a cold start: 30 ms among 10 ms x e^-0.02 .. e^0.02)
 * is left out of sigma: the other five give s = 0.0158114 from 4 degrees
 * of freedom, sigma = s / c4(4) = 0.0168211 (c4(4) = 0.9399856), and a
 * new code x1.35 faster is a jump; with the 30 ms in, sigma would be 45 %
 * and hide it.  Repeats printed to one figure (4.6 4.6 4.6 4.7) are no
 * outlier: the spread of the others is taken as at least 0.5 %. */
static void t_outlier_repeat(void **st)
{
	struct fx f;
	kt_an_opts o;
	kt_an_series se;
	const double c4_4 = 0.93998560298;
	static const double q[] = {4.6, 4.6, 4.6, 4.7};

	(void)st;
	fx_open(&f);
	for (int i = -2; i <= 2; i++)
		fx_bench(&f, fx_call(&f), 10 * exp(0.01 * i),
			 "\"candidate\":\"k0\"");
	fx_bench(&f, fx_call(&f), 30, "\"candidate\":\"k0\"");
	fx_edit(&f);
	fx_bench(&f, fx_call(&f), 10 / 1.35, "\"candidate\":\"k1\"");
	fx_load(&f);
	kt_an_opts_default(&o);
	assert_int_equal(kt_an_series_build(f.r, &o, &se), KT_OK);
	assert_int_equal(se.noise_kind, KT_AN_NOISE_REPEATS);
	assert_int_equal(se.noise_n, 5);
	assert_int_equal(se.noise_out, 1);
	if (fabs(se.sigma - sqrt(0.001 / 4) / c4_4) >= 1e-6)
		fail_msg("sigma %.9g, want %.9g", se.sigma,
			 sqrt(0.001 / 4) / c4_4);
	assert_int_equal(se.pt[6].accepted, 1);
	kt_an_series_free(&se);
	fx_close(&f);

	fx_open(&f);
	for (int i = 0; i < 4; i++)
		fx_bench(&f, fx_call(&f), q[i], "\"candidate\":\"k0\"");
	fx_load(&f);
	assert_int_equal(kt_an_series_build(f.r, &o, &se), KT_OK);
	assert_int_equal(se.noise_kind, KT_AN_NOISE_REPEATS);
	assert_int_equal(se.noise_n, 4);
	assert_int_equal(se.noise_out, 0);
	kt_an_series_free(&se);
	fx_close(&f);
}

/* A printed speedup that is the rounded ratio of the printed times gives
 * way to that ratio ("kernel time: 10.6547 ms", "reference time: 3.8360
 * ms", "speedup: 0.36x": 0.36 is 0.36003 rounded, a unit of its last
 * decimal being 2.8 %); a speedup over another baseline is kept. */
static void t_printed_ratio(void **st)
{
	struct fx f;
	kt_an_opts o;
	kt_an_series se;

	(void)st;
	fx_open(&f);
	fx_bench(&f, fx_call(&f), 10.6547,
		 "\"ref_time_ms\":3.836,\"speedup\":0.36");
	fx_edit(&f);
	fx_bench(&f, fx_call(&f), 10.6547,
		 "\"ref_time_ms\":3.836,\"speedup\":0.5");
	fx_edit(&f);
	fx_bench(&f, fx_call(&f), 1.5, "\"ref_time_ms\":3.0,\"speedup\":2");
	fx_load(&f);
	kt_an_opts_default(&o);
	assert_int_equal(kt_an_series_build(f.r, &o, &se), KT_OK);
	assert_int_equal(se.n, 3);
	assert_true(fabs(se.pt[0].speedup - 3.836 / 10.6547) < 1e-9);
	assert_true(fabs(se.pt[1].speedup - 0.5) < 1e-9);
	assert_true(fabs(se.pt[2].speedup - 2.0) < 1e-9);
	kt_an_series_free(&se);
	fx_close(&f);
}

/* Gains over the running best, a new best with no change, correctness not
 * checked, --assume-correct, unparsed output, a stall ended by small
 * gains. */
static void t_running_best(void **st)
{
	/* 10, 8 (x1.25), 9, 6 (x1.33 over 8), then 6 again re-measured at
	 * 5 with no edit (not a jump), then small gains */
	struct fx f;
	kt_an_opts o;
	kt_an_series se;
	kt_an_blame b;
	kt_an_stall *sv = NULL;
	size_t ns = 0;

	(void)st;
	fx_open(&f);
	fx_bench(&f, fx_call(&f), 10, "");
	fx_edit(&f);
	fx_bench(&f, fx_call(&f), 8, "");
	fx_edit(&f);
	fx_bench(&f, fx_call(&f), 9, "");
	fx_edit(&f);
	fx_bench(&f, fx_call(&f), 6, "");
	fx_bench(&f, fx_call(&f), 5, "");
	fx_ev(&f, KT_KIND_BENCH, fx_call(&f), "{\"time_ms\":null,\"status\":"
	      "\"unparsed\"}");
	for (int i = 0; i < 6; i++) {
		fx_edit(&f);
		fx_bench(&f, fx_call(&f), 5.0 / pow(1.04, i + 1), "");
	}
	fx_load(&f);
	kt_an_opts_default(&o);
	assert_int_equal(kt_an_series_build(f.r, &o, &se), KT_OK);
	assert_int_equal(se.n, 11);
	assert_int_equal(se.n_unchecked, 11);
	assert_int_equal(se.n_correct, 0);
	assert_int_equal(se.n_unparsed, 1);
	assert_int_equal(kt_an_unparsed(f.r, NULL, 0), 1);
	assert_true(fabs(se.pt[1].gain - 1.25) < 1e-9 && se.pt[1].accepted);
	assert_true(fabs(se.pt[3].gain - 8.0 / 6) < 1e-9 && se.pt[3].accepted);
	assert_true(se.pt[4].newbest && se.pt[4].nochange && !se.pt[4].accepted);
	assert_int_equal(se.n_nochange, 1);
	kt_an_series_free(&se);
	/* stalls: the x1.04 steps add up past the threshold: no stall
	 * "still stalled at the end" over an improving stretch */
	o.permutations = 0;
	assert_int_equal(kt_an_blame_run(f.s, f.r, &o, &b), KT_OK);
	assert_int_equal(kt_an_stalls(f.r, &b, &o, &sv, &ns), KT_OK);
	/* 5 ms, then x1.04 steps: the fourth makes x1.17 over 5 ms, past
	 * the x1.136 threshold: the stretch 5 ms .. 1.04^3 ends there, and
	 * the last three are too short to be a stall */
	assert_int_equal(ns, 1);
	assert_int_equal(sv[0].p_first, 4);
	assert_int_equal(sv[0].p_last, 7);
	assert_int_equal(sv[0].ended, KT_AN_STALL_GAIN);
	assert_true(sv[0].gain < exp(b.series.theta));
	free(sv);
	kt_an_blame_free(&b);
	fx_close(&f);
	/* a checked result makes the unchecked ones drop out, unless
	 * --assume-correct */
	fx_open(&f);
	fx_bench(&f, fx_call(&f), 10, "\"correct\":true");
	fx_bench(&f, fx_call(&f), 9, "\"correct\":null");
	fx_bench(&f, fx_call(&f), 8, "\"correct\":false");
	fx_load(&f);
	assert_int_equal(kt_an_series_build(f.r, &o, &se), KT_OK);
	assert_int_equal(se.n, 1);
	assert_int_equal(se.n_unknown, 1);
	assert_int_equal(se.n_incorrect, 1);
	assert_int_equal(kt_an_meas_excluded(f.r, &se, &o, 1), KT_AN_EX_UNKNOWN);
	kt_an_series_free(&se);
	o.assume_correct = 1;
	assert_int_equal(kt_an_series_build(f.r, &o, &se), KT_OK);
	assert_int_equal(se.n, 2);
	assert_int_equal(se.n_unchecked, 1);
	assert_int_equal(kt_an_meas_excluded(f.r, &se, &o, 1), KT_AN_EX_NONE);
	kt_an_series_free(&se);
	fx_close(&f);
}

static void claim_cb(const char *key, double pct, void *arg)
{
	double *out = arg;

	out[0] = !strcmp(key, "memory-bound") ? 1 : 2;
	out[1] = pct;
}

/* A utilization claim never takes the other resource's figure. */
static void t_claims(void **st)
{
	static const char mem[] = "Still memory-bound: compute SOL is 9.4% of "
				  "peak, memory SOL 39.5% of peak.";
	static const char cmp[] = "It is compute-bound, memory SOL 20% of peak "
				  "and SM throughput at 91% of peak.";
	double got[2] = {0, 0};

	(void)st;
	assert_int_equal(kt_an_claims(mem, strlen(mem), claim_cb, got), 1);
	assert_true(got[0] == 1 && fabs(got[1] - 39.5) < 1e-9);
	assert_int_equal(kt_an_claims(cmp, strlen(cmp), claim_cb, got), 1);
	assert_true(got[0] == 2 && fabs(got[1] - 91) < 1e-9);
}

/* Issue 21's memory row (<= 64 MiB per 1M events): a long run holds one
 * kt_an_meas per bench result and, per series, one kt_an_point per point
 * (~1/8 of its events each), so padding in either is paid per result.
 * The members added on 2026-12-04 grew them from 184 and 104 bytes to 216
 * and 136; packing (one-byte flags together, flags as bytes) takes 16 and
 * 24 of that back, and these bounds keep it (LP64 sizes). */
static void t_compact_arrays(void **st)
{
	(void)st;
	if (sizeof(void *) != 8)
		skip();
	assert_true(sizeof(kt_an_meas) <= 184);
	assert_true(sizeof(kt_an_point) <= 112);
}

/* other_hw and why_unparsed share one slot: each accessor answers only
 * for its side, so an unparsed result's reason never reads as a GPU and a
 * reference's GPU never reads as a reason. */
static void t_meas_slot_accessors(void **st)
{
	kt_an_meas m;

	(void)st;
	memset(&m, 0, sizeof(m));
	m.unparsed = 1;
	m.why_unparsed = "only timings of a baseline or competitor";
	assert_null(kt_an_meas_other_hw(&m));
	assert_string_equal(kt_an_meas_why_unparsed(&m),
			    "only timings of a baseline or competitor");
	m.unparsed = 0;
	m.other_hw = "H100, the reference on A100";
	assert_null(kt_an_meas_why_unparsed(&m));
	assert_string_equal(kt_an_meas_other_hw(&m),
			    "H100, the reference on A100");
	m.other_hw = NULL;
	assert_null(kt_an_meas_other_hw(&m));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_series_by),
		cmocka_unit_test(t_keys),
		cmocka_unit_test(t_sweeps),
		cmocka_unit_test(t_noise),
		cmocka_unit_test(t_printed_ratio),
		cmocka_unit_test(t_few_df),
		cmocka_unit_test(t_ref_few_df),
		cmocka_unit_test(t_outlier_repeat),
		cmocka_unit_test(t_running_best),
		cmocka_unit_test(t_claims),
		cmocka_unit_test(t_compact_arrays),
		cmocka_unit_test(t_meas_slot_accessors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
