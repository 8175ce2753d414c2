/*
 * benchpat.c - benchmark numbers in free text (kt_bench_parse).
 *
 * Three readers, tried in this order on the output of a command that ran a
 * benchmark-like program (the caller decides that: kt_shell_runs_bench):
 *   1. JSON objects and arrays in the output (also with // comments, Python
 *      reprs and stray literal "\n" as benchmark programs print them): keys
 *      are classified by the KEY table (time_ms, mean_time_us, latency_ms,
 *      speedup, tflops, gbps, correct, status, ...).  Both are in
 *      benchpat_json.c; what the readers share is benchpat_int.h.
 *   2. Simple tables: a header row naming a time column ("Time (ms)",
 *      "latency_us", "ms") and rows with the same number of cells.
 *   3. Line patterns: numbers followed by a unit from the UNIT table,
 *      labelled by the words before them (time/latency/mean/... for times,
 *      speedup/faster/slower for "1.6x"), grouped into results by blocks.
 * The results are made final (the speedup chosen, baselines marked) in
 * benchpat_out.c; the scenario parameters (problem sizes) of a result are
 * read in benchpat_scen.c.  Every unit is converted to ms (times), TFLOP/s
 * and GB/s.
 * import/README.md documents the tables and how to add an entry.
 *
 * False positives are worse than misses: lines about compiling, building,
 * configuring, installing, sleeping, timeouts, tokens, test-runner totals
 * ("5 passed in 0.12s") and make progress ("[ 45%]") are never read, and a
 * bare "s" unit only counts after a time word.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "benchpat_int.h"

/* ---- tables -------------------------------------------------------------- */
enum { V_TIME = KT_BU_TIME, V_SPEEDUP = KT_BU_SPEEDUP,
	V_TFLOPS = KT_BU_TFLOPS, V_GBPS = KT_BU_GBPS, V_CORRECT };

/* Units after a number.  `labelled`: only after a time word ("time: 2 s"). */
static const struct unit {
	const char *u;
	int kind;
	double scale;   /* to ms, TFLOP/s, GB/s; speedup 1 */
	int labelled;
} units[] = {
	{ "ms", V_TIME, 1, 0 }, { "msec", V_TIME, 1, 0 },
	{ "msecs", V_TIME, 1, 0 }, { "millisecond", V_TIME, 1, 0 },
	{ "milliseconds", V_TIME, 1, 0 },
	{ "us", V_TIME, 1e-3, 0 }, { "usec", V_TIME, 1e-3, 0 },
	{ "usecs", V_TIME, 1e-3, 0 }, { "\xc2\xb5s", V_TIME, 1e-3, 0 },
	{ "\xce\xbcs", V_TIME, 1e-3, 0 }, { "microsecond", V_TIME, 1e-3, 0 },
	{ "microseconds", V_TIME, 1e-3, 0 },
	{ "ns", V_TIME, 1e-6, 0 }, { "nsec", V_TIME, 1e-6, 0 },
	{ "nanoseconds", V_TIME, 1e-6, 0 },
	{ "s", V_TIME, 1e3, 1 }, { "sec", V_TIME, 1e3, 1 },
	{ "secs", V_TIME, 1e3, 1 }, { "second", V_TIME, 1e3, 1 },
	{ "seconds", V_TIME, 1e3, 1 },
	{ "x", V_SPEEDUP, 1, 0 }, { "\xc3\x97", V_SPEEDUP, 1, 0 },
	{ "tflop/s", V_TFLOPS, 1, 0 }, { "tflops", V_TFLOPS, 1, 0 },
	{ "gflop/s", V_TFLOPS, 1e-3, 0 }, { "gflops", V_TFLOPS, 1e-3, 0 },
	{ "pflop/s", V_TFLOPS, 1e3, 0 }, { "pflops", V_TFLOPS, 1e3, 0 },
	{ "gb/s", V_GBPS, 1, 0 }, { "gib/s", V_GBPS, 1.073741824, 0 },
	{ "tb/s", V_GBPS, 1e3, 0 }, { "mb/s", V_GBPS, 1e-3, 0 },
	{ "gbps", V_GBPS, 1, 0 }, { "gbytes/s", V_GBPS, 1, 0 },
	{ NULL, 0, 0, 0 }
};

/* Words in the label before a number that make it a time. */
static const char *const time_words[] = { "time", "latency", "runtime",
	"duration", "mean", "avg", "average", "median", "per iter", "per call",
	"per run", "kernel", "elapsed", "p50", "min", "max", "best", "ms",
	NULL };
static const char *const min_w[] = { "min", NULL };
static const char *const max_w[] = { "max", NULL };
/* ... a reference time rather than the candidate's */
static const char *const ref_words[] = { "ref", "reference", "baseline", "torch",
	"pytorch", "eager", "naive", "original", "cublas", "cudnn", "before",
	NULL };
/* Lines never read: build steps, waits, token counts, test totals. */
static const char *const skip_words[] = { "compil", "build", "built",
	"configur", "generat", "linking", "download", "install", "sleep",
	"timed out", "timeout", "token", "uptime", "load average", "warmup",
	"warm-up", "warming", "eta ", "passed in", "failed in", "finished in",
	"took", "cmake", "ninja", "make[", "%]", "elapsed real", "real\t",
	"user\t", "sys\t", "wall clock", "wall time", "exit code", "startup", "loading", "import ",
	"std", "stddev", "\xc2\xb1", "+-", "variance", "autotun", NULL };

/* Whether a line is never read (skip_words).  "compil" names a build step,
 * but torch.compile as a baseline ("speedup vs torch.compile: 0.78x") is a
 * measurement: those spellings are blanked before the test. */
static int skip_line(const char *low)
{
	static const char *const base_spell[] = { "torch.compile",
		"vs_compile", "vs compile", "vs. compile", "over compile",
		"than compile", "compiled baseline", NULL };
	char b[1024];
	int i;

	snprintf(b, sizeof(b), "%s", low);
	for (i = 0; base_spell[i]; i++) {
		char *p = b;

		while ((p = strstr(p, base_spell[i])))
			memset(p, '_', strlen(base_spell[i]));
	}
	return bp_any_word(b, skip_words);
}

/* An autotuner's table of candidate configs (torch.compile max-autotune:
 * "AUTOTUNE mm(16x14336, 14336x4096)" then "  triton_mm_11 0.2232 ms
 * 100.0% ..." rows): it times the baseline's configs, not the agent's
 * kernel.  Returns 1 for a line of such a table (its header included). */
static int autotune_row(const char *l, size_t n, const char *low)
{
	size_t i = 0;

	if (!strncmp(low, "autotune ", 9) && memchr(l, '(', n))
		return 1;
	while (i < n && (l[i] == ' ' || l[i] == '\t'))
		i++;
	return i < n && !strncmp(low + i, "triton_", 7) && memchr(l, '%', n);
}

int bp_failure(const char *l, size_t n, const char *low, char *why,
	       size_t cap)
{
	static const char *const w[] = { "not implemented",
		"not_implemented", "notimplemented", "unimplemented",
		"unsupported", "not supported", "runtimeerror", "runtime error",
		"cuda error", "cudaerror", "illegal memory access",
		"segmentation fault", "core dumped", "out of memory",
		"failed to run", "failed to launch", "launch failed",
		"traceback (most recent call last)", NULL };
	size_t a = 0, z = n;
	int at = 0, i;

	/* "Error: ..." / "[ERROR] ..." / "❌ Error ..." at the line's start */
	while (a < n && (low[a] == ' ' || low[a] == '\t' || low[a] == '[' ||
			 low[a] == '*' || low[a] == '-' ||
			 (unsigned char)low[a] >= 0x80))
		a++;
	if (!strncmp(low + a, "error", 5) && !isalpha((unsigned char)low[a + 5]))
		at = 1;
	for (i = 0; w[i] && !at; i++)
		if (!strncmp(low + a, w[i], strlen(w[i])))
			at = 1;
	if (!at && !bp_any_word(low, w))
		return 0;
	while (z > a && isspace((unsigned char)l[z - 1]))
		z--;
	if (z - a >= cap)       /* cut: whole characters only */
		z = a + kt_utf8_floor(l + a, cap - 1);
	memcpy(why, l + a, z - a);
	why[z - a] = 0;
	return at ? 2 : 1;
}

/* ---- results (struct res: benchpat_int.h) ---------------------------------- */
void bp_res_init(struct res *r, const char *pattern, int block)
{
	r->t = r->mn = r->mx = r->ref = r->sp = r->tf = r->gb = NAN;
	r->tprio = 99;
	r->n = 0;
	r->correct = -1;
	r->scen[0] = 0;
	r->cand[0] = 0;
	r->cand_weak = 0;
	r->wl[0] = 0;
	r->headed = 0;
	r->pattern = pattern;
	r->block = block;
	r->nsp = 0;
	r->pct_sp = 0;
	r->suspicious = 0;
	r->reward = NAN;
	r->graded[0] = 0;
	r->timed = r->refname = NULL;
	r->failed[0] = 0;
}

struct res *bp_new_res(struct rs *s, const char *pattern, int block)
{
	struct res *r;

	if (s->n == s->cap) {
		size_t c = s->cap ? s->cap * 2 : 8;
		struct res *q = realloc(s->r, c * sizeof(*q));

		if (!q) {
			s->oom = 1;
			return NULL;
		}
		s->r = q;
		s->cap = c;
	}
	r = &s->r[s->n++];
	bp_res_init(r, pattern, block);
	return r;
}

/* What a speedup is relative to, from the words around it (lower case):
 * the baselines that kernel tasks name.  "" when none is named.  The order
 * matters: "torch.compile" before "torch". */
const char *bp_baseline_in(const char *low)
{
	static const char *const b[][2] = {
		{ "compile", "torch.compile" }, { "inductor", "torch.compile" },
		{ "eager", "eager" }, { "cublas", "cublas" },
		{ "cudnn", "cudnn" }, { "reference", "reference" },
		{ "ref", "reference" }, { "pytorch", "torch" },
		{ "torch", "torch" }, { "naive", "naive" },
		{ "baseline", "baseline" }, { NULL, NULL } };
	int i;

	for (i = 0; b[i][0]; i++) {
		const char *p = low;

		/* at a word's start: "ref" names no baseline in "prefill" */
		while ((p = strstr(p, b[i][0])) &&
		       p > low && isalpha((unsigned char)p[-1]))
			p++;
		if (p)
			return b[i][1];
	}
	return "";
}

/* Adds a speedup figure to r.  key: the JSON key that named it (its metric,
 * e.g. "speedup_vs_compile") or NULL for text, whose metric is made from
 * the baseline ("speedup_vs_eager", "speedup" when none is named). */
void bp_add_speedup(struct res *r, double v, const char *key,
			const char *base)
{
	struct spc *c;
	size_t i;

	if (r->nsp >= 4)
		return;
	c = &r->spc[r->nsp++];
	c->v = v;
	snprintf(c->base, sizeof(c->base), "%s", base);
	if (key) {
		snprintf(c->metric, sizeof(c->metric), "%s", key);
		for (i = 0; c->metric[i]; i++)
			c->metric[i] = (char)tolower((unsigned char)c->metric[i]);
	} else if (*base) {
		const char *d = strrchr(base, '.');

		snprintf(c->metric, sizeof(c->metric), "speedup_vs_%s",
			 d ? d + 1 : base);
	} else {
		snprintf(c->metric, sizeof(c->metric), "speedup");
	}
	if (isnan(r->sp))
		r->sp = v;
}

/* Whether r already has a speedup against base (or one without a named
 * baseline, when base is ""): a new figure then starts a new result. */
static int has_speedup_vs(const struct res *r, const char *base)
{
	int i;

	for (i = 0; i < r->nsp; i++)
		if (!*base || !*r->spc[i].base || !strcmp(r->spc[i].base, base))
			return 1;
	return 0;
}

int bp_has_metric(const struct res *r)
{
	return !isnan(r->t) || !isnan(r->sp) || !isnan(r->tf) || !isnan(r->gb);
}

void bp_lower(char *d, const char *s, size_t n, size_t cap)
{
	size_t i;

	for (i = 0; i < n && i + 1 < cap; i++)
		d[i] = (char)tolower((unsigned char)s[i]);
	d[i] = 0;
}

int bp_any_word(const char *l, const char *const *w)
{
	int i;

	for (i = 0; w[i]; i++)
		if (strstr(l, w[i]))
			return 1;
	return 0;
}

void bp_scen_add(char *d, size_t cap, const char *s, size_t n)
{
	size_t l = strlen(d);

	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && (isspace((unsigned char)s[n - 1]) || strchr(":=.-|,", s[n - 1])))
		n--;
	if (!n)
		return;
	if (l && l + 3 < cap) {
		memcpy(d + l, " / ", 3);
		l += 3;
	}
	if (l + n + 1 > cap)
		n = cap - l - 1;
	memcpy(d + l, s, n);
	d[l + n] = 0;
}
/* ---- 3. lines -------------------------------------------------------------- */
struct val {
	int kind;       /* V_* */
	double v;       /* converted */
	size_t at;      /* offset of the number in the line */
	int ref, min, max, slower;
	int pct;        /* a speedup read from a percentage (pct_speedup):
			 * PCT_FASTER or PCT_TIME; 0 for a factor */
	const char *base;       /* a speedup's baseline (bp_baseline_in) */
};

/* How a percentage gave a speedup: "150% faster" / "+150%" (a gain in
 * speed), or "37.5% less time" (a cut in time). */
enum { PCT_FASTER = 1, PCT_TIME = 2 };

/* Whether a percentage compares the kernel with the reference: lab, the
 * lower-case text before it on its line, and rest, after its '%'.  "than
 * torch" / "vs cuBLAS" / a speedup label ("speedup: +150%") tie it to a
 * baseline; "than last run" / "than before" / "than v1" compare with an
 * earlier version of the agent's own kernel, which is no speedup against
 * the reference, and a metric word before it ("hit rate", "throughput")
 * makes it a gain in that metric, not in speed.  1 when tied, else 0. */
static int pct_vs_ref(const char *lab, const char *rest)
{
	static const char *const metric[] = { "hit rate", "hit-rate",
		"hit ratio", "miss rate", "throughput", "bandwidth",
		"occupancy", "utilization", "utilisation", "efficiency",
		"accuracy", "memory", "flops", "gb/s", "ipc", NULL };
	static const char *const earlier[] = { "last", "before", "previous",
		"prev", "old", "earlier", "prior", "original", "yesterday",
		NULL };
	const char *t, *sp;
	int k;

	for (k = 0; metric[k]; k++)
		if (strstr(lab, metric[k]))
			return 0;
	sp = strstr(lab, "speedup") ? "speedup" : strstr(lab, "speed-up") ?
	     "speed-up" : strstr(lab, "speed up") ? "speed up" : NULL;
	/* the comparison's object: "than X" after the '%', else before it
	 * ("faster than torch (37.5% less time)") */
	t = strstr(rest, "than ");
	if (!t)
		t = strstr(lab, "than ");
	if (t) {
		t += 5;
		for (k = 0; earlier[k]; k++)
			if (strstr(t, earlier[k]))
				return 0;
		while (*t == ' ')
			t++;
		if (!strncmp(t, "the ", 4))
			t += 4;
		if (t[0] == 'v' && isdigit((unsigned char)t[1]))
			return 0;       /* "than v1" */
		return *bp_baseline_in(t) != 0;
	}
	for (k = 0; earlier[k]; k++)
		if (strstr(rest, earlier[k]) || strstr(lab, earlier[k]))
			return 0;
	return sp || *bp_baseline_in(lab) || *bp_baseline_in(rest);
}

/* A speedup printed as a percentage at l[i..i+k) (the number), its '%'
 * at l[pc]; lab: the lower-case label before it.  "150% faster", "+150%"
 * after a speedup label, "33% slower" and "37.5% less time" have one
 * reading each: the factor goes to *f and the reading (PCT_*) is
 * returned.  A speedup label over an unsigned percentage ("Speedup vs
 * torch: 100.0%") reads as relative speed (1.0x) as much as a percent
 * gain (2.0x): 0 and *amb set, so no speedup is guessed.  0 for any other
 * percentage (a utilization, an autotuner's ratio) and for one not tied
 * to the reference (pct_vs_ref: "20% faster than last run"). */
static int pct_speedup(const char *l, size_t n, size_t i, size_t pc,
		       const char *lab, double x, double *f, int *amb)
{
	static const char *const less_time[] = { "less time",
		"lower time", "less latency", "lower latency", "shorter",
		"time reduction", "reduction in time", "faster time", NULL };
	char rest[40];
	const char *r;
	int k;

	bp_lower(rest, l + pc + 1, n - pc - 1 < 30 ? n - pc - 1 : 30,
		 sizeof(rest));
	for (r = rest; *r == ' '; r++)
		;
	if (!pct_vs_ref(lab, r))
		return 0;
	for (k = 0; less_time[k]; k++)
		if (!strncmp(r, less_time[k], strlen(less_time[k])))
			break;
	if (less_time[k]) {
		if (!(x < 100))
			return 0;       /* no time left: no ratio */
		*f = 100.0 / (100.0 - x);
		return PCT_TIME;
	}
	if (!strncmp(r, "faster", 6) || !strncmp(r, "speedup", 7) ||
	    !strncmp(r, "speed-up", 8)) {
		*f = 1 + x / 100.0;
		return PCT_FASTER;
	}
	if (!strncmp(r, "slower", 6)) {
		*f = 1 / (1 + x / 100.0);
		return PCT_FASTER;
	}
	if (!strstr(lab, "speedup") && !strstr(lab, "speed-up") &&
	    !strstr(lab, "speed up"))
		return 0;
	if (i > 0 && l[i - 1] == '+') {
		*f = 1 + x / 100.0;
		return PCT_FASTER;
	}
	*amb = 1;
	return 0;
}

/* A number at l[i]: its length, or 0. */
size_t bp_num_at(const char *l, size_t n, size_t i, double *out)
{
	char buf[64];
	size_t j = i, k;
	char *e;

	if (i > 0 && (isalnum((unsigned char)l[i - 1]) || l[i - 1] == '_' ||
		      l[i - 1] == '.' || l[i - 1] == '/' || l[i - 1] == ':'))
		return 0;
	if (j < n && (l[j] == '-' || l[j] == '+'))
		return 0;       /* negative times are not measurements */
	while (j < n && isdigit((unsigned char)l[j]))
		j++;
	if (j == i)
		return 0;
	if (j + 1 < n && l[j] == '.' && isdigit((unsigned char)l[j + 1])) {
		j++;
		while (j < n && isdigit((unsigned char)l[j]))
			j++;
	}
	if (j < n && (l[j] == 'e' || l[j] == 'E') && j + 1 < n &&
	    (isdigit((unsigned char)l[j + 1]) ||
	     ((l[j + 1] == '-' || l[j + 1] == '+') && j + 2 < n &&
	      isdigit((unsigned char)l[j + 2])))) {
		j += 2;
		while (j < n && isdigit((unsigned char)l[j]))
			j++;
	}
	/* 1.2.3 versions, 12:30 clocks, 2024-01-02 dates, 0x1f */
	if (j < n && (l[j] == '.' || l[j] == ':' || l[j] == '-') && j + 1 < n &&
	    isdigit((unsigned char)l[j + 1]))
		return 0;
	k = j - i;
	if (k >= sizeof(buf))
		return 0;
	memcpy(buf, l + i, k);
	buf[k] = 0;
	*out = strtod(buf, &e);
	if (!isfinite(*out))
		return 0;
	return k;
}

static const struct unit *unit_at(const char *l, size_t n, size_t i,
				  size_t *ul)
{
	const struct unit *u, *best = NULL;
	size_t bl = 0;

	for (u = units; u->u; u++) {
		size_t k = strlen(u->u);

		if (n - i < k || strncasecmp(l + i, u->u, k))
			continue;
		/* the unit must end the word: "ms," yes, "msg" no; "/iter" ok */
		if (i + k < n && (isalnum((unsigned char)l[i + k]) ||
				  l[i + k] == '_'))
			continue;
		if (k > bl) {
			best = u;
			bl = k;
		}
	}
	*ul = bl;
	return best;
}

/* Whether lower-case label lb is a name over a shape ("kernel_a
 * [4096,4096]", "tiled 1024x1024"): such a name names the result even when
 * it holds a time word, unless it is only one ("time 1024"). */
static int name_over_shape(const char *lb)
{
	const char *e = lb;
	int k;

	while (isalnum((unsigned char)*e) || (*e && strchr("_-.", *e)))
		e++;
	if (e == lb || !isalpha((unsigned char)*lb))
		return 0;
	for (k = 0; time_words[k]; k++)
		if (strlen(time_words[k]) == (size_t)(e - lb) &&
		    !strncmp(lb, time_words[k], (size_t)(e - lb)))
			return 0;
	while (*e == ' ' || *e == '\t')
		e++;
	return isdigit((unsigned char)*e) ||
	       ((*e == '[' || *e == '(') && isdigit((unsigned char)e[1]));
}

/* Whether lower-case line lb (no leading blanks) is only a name over a
 * shape: "softmax [4096,4096]", "gemm 1024x1024", "matmul M=64 N=128":
 * the operator the time lines under it measure. */
static int op_line(const char *lb)
{
	const char *e = lb;
	int digit = 0;

	if (!isalpha((unsigned char)*lb))
		return 0;
	while (isalnum((unsigned char)*e) || (*e && strchr("_-.", *e)))
		e++;
	if (*e != ' ' && *e != '\t')
		return 0;
	while (*e) {
		if (isalpha((unsigned char)*e)) {
			const char *w = e;

			while (isalnum((unsigned char)*e) || *e == '_')
				e++;
			/* a size's key ("M=") or the "x" of "4096 x 4096" */
			if (*e != '=' && !(e - w == 1 && *w == 'x'))
				return 0;
			continue;
		}
		if (!strchr("0123456789,[]()*=x \t", *e))
			return 0;
		digit |= isdigit((unsigned char)*e) != 0;
		e++;
	}
	return digit;
}

/* Whether the label lab holds one of the words w as a token, not inside a
 * kernel's name: a word starts after a non-letter, and a short one (up to
 * 3 letters: "ms", "min", "max", "ref") also ends before one, so
 * "rmsnorm" names no "ms" and "softmax" no "max", while "kernel_time",
 * "mean_ms" and "reference" still name theirs. */
static int word_in(const char *lab, const char *const *w)
{
	int i;

	for (i = 0; w[i]; i++) {
		size_t k = strlen(w[i]);
		const char *p = lab;

		while ((p = strstr(p, w[i])) != NULL) {
			if ((p == lab || !isalpha((unsigned char)p[-1])) &&
			    (k > 3 || !isalpha((unsigned char)p[k])))
				return 1;
			p++;
		}
	}
	return 0;
}

/* A part of a snake_case identifier that leaves a baseline word beside it
 * the baseline's name: a number, what is measured ("time", "ms", "mean",
 * "kernel", "impl", "benchmark") or another baseline word ("pytorch_eager",
 * "torch_ref"). */
static int neutral_part(const char *s, size_t n)
{
	static const char *const w[] = { "time", "times", "latency",
		"runtime", "duration", "mean", "avg", "average", "median",
		"kernel", "elapsed", "p50", "min", "max", "best", "ms", "us",
		"ns", "s", "sec", "secs", "t", "bench", "benchmark",
		"benchmarks", "result", "results", "impl", "implementation",
		"version", "mode", "ref", "reference", "baseline", "torch",
		"pytorch", "eager", "naive", "original", "before", "cublas",
		"cublaslt", "cudnn", "cufft", "cpu", "competitor", "compile",
		"compiled", "inductor", NULL };
	size_t i = 0;
	int k;

	while (i < n && isdigit((unsigned char)s[i]))
		i++;
	if (i == n)
		return 1;
	for (k = 0; w[k]; k++)
		if (strlen(w[k]) == n && !strncmp(s, w[k], n))
			return 1;
	return 0;
}

int bp_baseline_word(const char *low, const char *w)
{
	size_t k = strlen(w);
	const char *p;

	if (!k)
		return 0;
	for (p = strstr(low, w); p; p = strstr(p + 1, w)) {
		const char *a = p, *z = p + k, *q;
		int ok = 1;

		/* inside a longer word: "torchvision", "prefill", and
		 * camelCase once lowered ("eagerFallback") */
		if ((p > low && isalpha((unsigned char)p[-1])) ||
		    isalpha((unsigned char)p[k]))
			continue;
		while (a > low && (isalnum((unsigned char)a[-1]) || a[-1] == '_'))
			a--;
		while (isalnum((unsigned char)*z) || *z == '_')
			z++;
		/* the identifier's other parts: "cpu_offload_rmsnorm" names
		 * the candidate, "torch_time" the baseline */
		for (q = a; q < z && ok;) {
			const char *e = q;

			while (e < z && *e != '_')
				e++;
			if (!(q <= p && e >= p + k) && !neutral_part(q, (size_t)(e - q)))
				ok = 0;
			q = e < z ? e + 1 : e;
		}
		if (ok)
			return 1;
	}
	return 0;
}

/* Whether a label (lower case) names a baseline's time (ref_words, each
 * as bp_baseline_word reads it). */
static int ref_label(const char *lab)
{
	int i;

	for (i = 0; ref_words[i]; i++)
		if (bp_baseline_word(lab, ref_words[i]))
			return 1;
	return 0;
}

/* All values of one line.  A time or a speedup printed with a minus sign
 * ("-1.000 ms", "speedup -2.0x") is no measurement (a timer's or a
 * script's bug): it is no value, and *neg is set so an output of nothing
 * else says why it gave no result. */
static size_t line_values(const char *l, size_t n, struct val *v, size_t max,
			  const char *low, int *amb, int *neg)
{
	size_t i = 0, nv = 0, last = 0, q, w;
	int factor = 0, by_time = 0, times = 0, refs = 0;
	int speed_ctx = strstr(low, "speedup") || strstr(low, "speed-up") ||
			strstr(low, "faster") || strstr(low, "slower") ||
			strstr(low, "vs");

	while (i < n && nv < max) {
		double x;
		size_t k = isdigit((unsigned char)l[i]) ? bp_num_at(l, n, i, &x) : 0, j, ul;
		const struct unit *u;
		char lab[160];

		if (!k) {
			i++;
			continue;
		}
		j = i + k;
		if (j < n && l[j] == ' ')
			j++;
		if (j < n && l[j] == '%') {
			double f;
			int pk;

			bp_lower(lab, l + last, i - last, sizeof(lab));
			pk = pct_speedup(l, n, i, j, lab, x, &f, amb);
			if (pk) {
				char rest[40];

				bp_lower(rest, l + j + 1, n - j - 1 < 30 ?
					 n - j - 1 : 30, sizeof(rest));
				rest[strcspn(rest, ",;|0123456789")] = 0;
				v[nv].kind = V_SPEEDUP;
				v[nv].v = f;
				v[nv].at = i;
				v[nv].ref = v[nv].min = v[nv].max = 0;
				v[nv].slower = 0;
				v[nv].pct = pk;
				v[nv].base = bp_baseline_in(rest);
				if (!*v[nv].base)
					v[nv].base = bp_baseline_in(lab);
				nv++;
			}
			last = i = j + 1;
			continue;
		}
		u = unit_at(l, n, j, &ul);
		if (!u && j > i + k)
			u = NULL;
		/* the label: words since the previous value */
		bp_lower(lab, l + last, i - last, sizeof(lab));
		if (u && u->kind == V_TIME) {
			if (u->labelled && !word_in(lab, time_words))
				u = NULL;
		} else if (u && u->kind == V_SPEEDUP) {
			if (!speed_ctx || j != i + k)
				u = NULL;   /* "4 x A100", "1024x1024" */
			else if (j + ul < n && isdigit((unsigned char)l[j + ul]))
				u = NULL;
		}
		if (!u && j == i + k) {
			/* "time_ms: 1.2", "GFLOPS = 85": the unit is in the key */
			size_t e = strlen(lab), b0;
			double ksc;
			int prio, kk;

			while (e && (lab[e - 1] == ' ' || lab[e - 1] == ':' ||
				     lab[e - 1] == '=' || lab[e - 1] == '"'))
				e--;
			for (b0 = e; b0 && (isalnum((unsigned char)lab[b0 - 1]) ||
					    lab[b0 - 1] == '_' || lab[b0 - 1] == '/');
			     b0--)
				;
			if (e > b0 && e - b0 < 64) {
				static const struct unit kt = { "", V_TIME, 1, 0 },
					ksp = { "", V_SPEEDUP, 1, 0 },
					ktf = { "", V_TFLOPS, 1, 0 },
					kgf = { "", V_TFLOPS, 1e-3, 0 },
					kgb = { "", V_GBPS, 1, 0 };
				char key[64];

				memcpy(key, lab + b0, e - b0);
				key[e - b0] = 0;
				kk = bp_key_kind(key, &ksc, &prio);
				if (kk == K_TIME || kk == K_MIN || kk == K_MAX ||
				    kk == K_REF) {
					u = &kt;
					x *= ksc;
				} else if (kk == K_SPEEDUP)
					u = &ksp;
				else if (kk == K_TFLOPS)
					u = &ktf;
				else if (kk == K_GFLOPS)
					u = &kgf;
				else if (kk == K_GBPS && !strstr(key, "bandwidth"))
					u = &kgb;
				ul = 0;
			}
		}
		if (!u && strstr(lab, "speedup") && !strchr(lab + strlen(lab) / 2, '(')) {
			static const struct unit sp = { "", V_SPEEDUP, 1, 0 };

			u = &sp;
			ul = 0;
		}
		/* a minus sign, not a range's dash ("1024-2048") */
		if (u && (u->kind == V_TIME || u->kind == V_SPEEDUP) &&
		    i > 0 && l[i - 1] == '-' &&
		    (i < 2 || !isalnum((unsigned char)l[i - 2]))) {
			*neg = 1;
			i += k;
			last = i;
			continue;
		}
		if (u) {
			v[nv].kind = u->kind;
			v[nv].v = x * u->scale;
			v[nv].at = i;
			v[nv].ref = u->kind == V_TIME && ref_label(lab);
			v[nv].min = u->kind == V_TIME && word_in(lab, min_w) &&
				    !strstr(lab, "mean");
			v[nv].max = u->kind == V_TIME && word_in(lab, max_w);
			v[nv].slower = 0;
			v[nv].pct = 0;
			if (u->kind == V_SPEEDUP) {
				char rest[40];

				bp_lower(rest, l + j + ul, n - j - ul < 30 ? n - j - ul : 30,
				      sizeof(rest));
				v[nv].slower = strstr(rest, "slower") != NULL;
				if (v[nv].slower && x > 0)
					v[nv].v = 1.0 / x;
				/* "5.8x vs eager", "speedup over cuBLAS: 1.2x";
				 * not the next figure's words */
				rest[strcspn(rest, ",;|0123456789")] = 0;
				v[nv].base = bp_baseline_in(rest);
				if (!*v[nv].base)
					v[nv].base = bp_baseline_in(lab);
			} else {
				v[nv].base = "";
			}
			nv++;
			last = j + ul;
			i = last;
			continue;
		}
		i += k;
		last = i;
	}
	/* One line, one claim: a percentage beside a factor ("2.00x (100%
	 * faster)") restates it; a gain in speed beside a cut in time
	 * ("150% faster (37.5% less time)") is dropped for the time-based
	 * figure, which is what a timer measured; and the kernel's time
	 * beside the baseline's ("0.400 ms | torch: 1.000 ms | +150%") gives
	 * the speedup itself (their ratio), so no percentage is kept. */
	for (q = 0; q < nv; q++) {
		factor |= v[q].kind == V_SPEEDUP && !v[q].pct;
		by_time |= v[q].pct == PCT_TIME;
		times |= v[q].kind == V_TIME && !v[q].ref && !v[q].min &&
			 !v[q].max;
		refs |= v[q].kind == V_TIME && v[q].ref;
	}
	for (q = w = 0; q < nv; q++) {
		if ((v[q].pct && (factor || (times && refs))) ||
		    (v[q].pct == PCT_FASTER && by_time))
			continue;
		v[w++] = v[q];
	}
	return w;
}

/* correct markers on a line: 1, 0, or -1 */
static int marker_z(const char *l, const char *low);

/* Whether a lower-case line announces a check still to run ("Checking
 * correctness...", "Verifying correctness"): the word "correct" in it is
 * no verdict. */
static int announce(const char *low)
{
	static const char *const w[] = { "checking", "verifying", "validating",
		"testing", "running", NULL };
	size_t n = strlen(low);
	int i;

	while (n && isspace((unsigned char)low[n - 1]))
		n--;
	if ((n >= 3 && !memcmp(low + n - 3, "...", 3)) ||
	    (n >= 3 && !memcmp(low + n - 3, "\xe2\x80\xa6", 3)))
		return 1;
	while (*low == ' ' || *low == '\t')
		low++;
	for (i = 0; w[i]; i++)
		if (!strncmp(low, w[i], strlen(w[i])))
			return !strstr(low, "pass") && !strstr(low, " ok") &&
			       !strstr(low, "succe") && !strstr(low, "true");
	return 0;
}

/* l[0..n) is one line, not NUL-terminated */
static int marker(const char *l, size_t n, const char *low)
{
	char z[1024];

	if (n >= sizeof(z))
		n = sizeof(z) - 1;
	memcpy(z, l, n);
	z[n] = 0;
	return marker_z(z, low);
}

/* Whether a lower-case line names a test of a test runner ("FAILED
 * tests/test_io.py::test_load - FileNotFoundError", "test_load PASSED"):
 * its verdict is that test's, about code the output's results need not
 * be, so it is no verdict on them. */
static int names_test(const char *low)
{
	const char *p;

	if (strstr(low, "::"))
		return 1;
	for (p = strstr(low, ".py"); p; p = strstr(p + 1, ".py"))
		if (p > low && (isalnum((unsigned char)p[-1]) || p[-1] == '_') &&
		    !isalnum((unsigned char)p[3]))
			return 1;
	for (p = strstr(low, "test_"); p; p = strstr(p + 1, "test_"))
		if ((p == low || !isalnum((unsigned char)p[-1])) &&
		    isalnum((unsigned char)p[5]))
			return 1;
	return 0;
}

static int marker_z(const char *l, const char *low)
{
	static const char *const bad[] = { "mismatch", "incorrect",
		"do not match", "don't match", "does not match", "not close",
		"wrong result", "\xe2\x9d\x8c", "\xe2\x9c\x97", NULL };
	static const char *const good[] = { "all close", "allclose: true",
		"results match", "outputs match", "correct: true",
		"correctness: pass", NULL };
	static const char *const unchecked[] = { "not checked",
		"unchecked", "not verified", "skipped", "correct: none",
		"correct: null", "correct: n/a", "correct: unknown",
		"correctness: none", "correctness: n/a", "correctness: unknown",
		"correctness: skip", NULL };
	const char *p;

	/* correctness named but not checked: unknown, never "correct" */
	if (bp_any_word(low, unchecked) || names_test(low))
		return -1;
	if (bp_any_word(low, bad))
		return 0;
	if ((p = strstr(l, "FAIL")) && (p == l || !isalpha((unsigned char)p[-1])))
		return 0;
	if (strstr(low, "correct: false") || strstr(low, "correctness: fail"))
		return 0;
	if (bp_any_word(low, good))
		return 1;
	/* a check's verdict ("✅ Triton and Torch match", the triton
	 * tutorials), not a ✅ that decorates "All benchmarks completed!" */
	if (strstr(l, "\xe2\x9c\x85") && strstr(low, " match"))
		return 1;
	if ((p = strstr(l, "PASS")) && (p == l || !isalpha((unsigned char)p[-1])))
		return 1;
	if (announce(low))
		return -1;
	if ((p = strstr(low, "correct")) && (p == low || !isalpha((unsigned char)p[-1])) &&
	    !strstr(low, "incorrect"))
		return 1;
	return -1;
}

/* Whether output-level failure verdict f (lower case) names result r: the
 * first word of its scenario or its candidate, as a whole word
 * ("FAILED: rmsnorm outputs differ" names the rmsnorm result). */
static int fail_names(const char *f, const struct res *r)
{
	const char *nm[2] = { r->scen, r->cand };
	int k;

	for (k = 0; k < 2; k++) {
		char w[64];
		size_t n = 0;
		const char *p;

		while (nm[k][n] && n < sizeof(w) - 1 &&
		       (isalnum((unsigned char)nm[k][n]) || nm[k][n] == '_')) {
			w[n] = (char)tolower((unsigned char)nm[k][n]);
			n++;
		}
		w[n] = 0;
		if (n < 3)
			continue;
		for (p = strstr(f, w); p; p = strstr(p + 1, w))
			if ((p == f || !isalnum((unsigned char)p[-1])) &&
			    !isalnum((unsigned char)p[n]) && p[n] != '_')
				return 1;
	}
	return 0;
}

/* Output-level failure verdicts (fails[0..nf), lower case: lines saying
 * the outputs do not match that no result's own line or block took) apply
 * to the results they cover, wherever they were printed (a check run
 * after the timing: "Checking correctness..." then "FAILED: outputs do
 * not match"): a verdict naming results to those; one naming none to all
 * of them, unless some result already has its own failure, which it then
 * sums up.  A failure wins over a pass: a fast but wrong result must not
 * count as a new best. */
static void apply_fails(struct rs *s, char (*fails)[160], int nf)
{
	int own = 0, f;
	size_t k;

	for (k = 0; k < s->n; k++)
		own |= s->r[k].correct == 0;
	for (f = 0; f < nf; f++) {
		int named = 0;

		for (k = 0; k < s->n; k++)
			named |= fail_names(fails[f], &s->r[k]);
		if (!named && own)
			continue;
		for (k = 0; k < s->n; k++)
			if (!named || fail_names(fails[f], &s->r[k]))
				s->r[k].correct = 0;
	}
}

/* ---- 2. tables ------------------------------------------------------------- */
/* Whether table cell c (n bytes) holds a measured time ("rmsnorm: 0.800
 * ms", "(torch 0.800 ms)"): a number, then a time unit.  A row of such
 * cells is a result printed with two spaces between its parts, not a
 * header naming a time column ("time (ms)", "p50 ms"). */
static int time_cell(const char *c, size_t n)
{
	size_t i, k, ul;
	double x;

	for (i = 0; i < n; i++) {
		const struct unit *u;

		if (!isdigit((unsigned char)c[i]) || !(k = bp_num_at(c, n, i, &x)))
			continue;
		i += k;
		if (i < n && c[i] == ' ')
			i++;
		u = unit_at(c, n, i, &ul);
		if (u && u->kind == V_TIME && !u->labelled)
			return 1;
	}
	return 0;
}

/* A correctness cell: 1 yes, 0 no, -1 neither (n/a, -, skipped). */
static int cell_verdict(const char *c, size_t n)
{
	static const char *const yes[] = { "yes", "y", "true", "pass",
		"passed", "ok", "correct", "\xe2\x9c\x93", "\xe2\x9c\x94",
		"\xe2\x9c\x85", NULL };
	static const char *const no[] = { "no", "n", "false", "fail",
		"failed", "wrong", "incorrect", "mismatch", "\xe2\x9c\x97",
		"\xe2\x9d\x8c", "\xe2\x9c\x98", NULL };
	char v[32];
	int i;

	bp_lower(v, c, n, sizeof(v));
	for (i = 0; yes[i]; i++)
		if (!strcmp(v, yes[i]))
			return 1;
	for (i = 0; no[i]; i++)
		if (!strcmp(v, no[i]))
			return 0;
	return -1;
}

size_t bp_split_cells(const char *l, size_t n, size_t *st, size_t *en,
		      size_t max)
{
	size_t i = 0, k = 0;
	int pipes = memchr(l, '|', n) != NULL;

	while (i < n && k < max) {
		size_t s;

		while (i < n && (l[i] == ' ' || l[i] == '\t' || (pipes && l[i] == '|')))
			i++;
		if (i >= n)
			break;
		s = i;
		if (pipes) {
			while (i < n && l[i] != '|')
				i++;
		} else {
			while (i < n && l[i] != '\t' &&
			       !(l[i] == ' ' && i + 1 < n && l[i + 1] == ' '))
				i++;
		}
		en[k] = i;
		while (en[k] > s && isspace((unsigned char)l[en[k] - 1]))
			en[k]--;
		st[k++] = s;
	}
	return k;
}

/* Header cell: how its values read (V_TIME with scale, ...), 0 none. */
static int head_kind(const char *c, size_t n, double *scale, int *ref)
{
	char h[96];

	bp_lower(h, c, n, sizeof(h));
	*scale = 1;
	*ref = ref_label(h);
	if (!strcmp(h, "correct") || !strcmp(h, "correctness") ||
	    !strcmp(h, "correct?") || !strcmp(h, "match") ||
	    !strcmp(h, "allclose") || !strcmp(h, "ok") ||
	    !strcmp(h, "pass") || !strcmp(h, "passed") ||
	    !strcmp(h, "valid") || !strcmp(h, "verified"))
		return V_CORRECT;
	if (strstr(h, "speedup"))
		return V_SPEEDUP;
	if (strstr(h, "tflop"))
		return V_TFLOPS;
	if (strstr(h, "gflop")) {
		*scale = 1e-3;
		return V_TFLOPS;
	}
	if (strstr(h, "gb/s") || strstr(h, "gbps") || strstr(h, "bandwidth"))
		return V_GBPS;
	if (strstr(h, "std") || strstr(h, "compile") || strstr(h, "build"))
		return 0;
	if (strstr(h, "(ms)") || strstr(h, "_ms") || strstr(h, " ms") ||
	    !strcmp(h, "ms") || strstr(h, "[ms]"))
		return V_TIME;
	if (strstr(h, "(us)") || strstr(h, "_us") || strstr(h, " us") ||
	    !strcmp(h, "us") || strstr(h, "(\xc2\xb5s)") || strstr(h, "(\xce\xbcs)") ||
	    strstr(h, "[us]")) {
		*scale = 1e-3;
		return V_TIME;
	}
	if (strstr(h, "(ns)") || strstr(h, "_ns") || !strcmp(h, "ns")) {
		*scale = 1e-6;
		return V_TIME;
	}
	return 0;
}

/* Whether a lower-case table header names the code a row measured
 * ("variant", "kernel", "impl"), so its cells are candidates, not
 * scenarios: rows of one table are then candidates of one series.
 * "name" does only beside a column of sizes (shape), since alone it often
 * names the problem ("| name | ms |" over "vector_add", "softmax"). */
static int cand_head(const char *low, int shape_col)
{
	static const char *const w[] = { "variant", "variants", "version",
		"impl", "implementation", "method", "candidate", "approach",
		NULL };
	int i;

	for (i = 0; w[i]; i++)
		if (!strcmp(low, w[i]))
			return 1;
	/* "kernel" names the variant ("naive", "tiled") or the problem
	 * ("rmsnorm" in every row): 2, a candidate only where its cells
	 * differ (col_varies) */
	return !strcmp(low, "kernel") || (shape_col && !strcmp(low, "name")) ?
	       2 : 0;
}

/* Whether column c of the table rows from text[i] on (nc cells each,
 * separator rows skipped) holds two different values. */
/* How many cells of the first row after text[i] (past |---| rows) hold a
 * number with a unit ("12.3 GB/s", "0.5 ms"), when that row has nc cells;
 * else 0.  A header naming no measure over such cells ("| shape | triton
 * | torch |") puts a candidate or a baseline in each column. */
static size_t unit_cells(const char *text, size_t len, size_t i, size_t nc)
{
	while (i < len) {
		const char *rl = text + i, *rnl = memchr(rl, '\n', len - i);
		size_t rn = rnl ? (size_t)(rnl - rl) : len - i;
		size_t st[16], en[16], c, sp = 0, got = 0;

		while (sp < rn && strchr(" |-:+=\t", rl[sp]) && rl[sp])
			sp++;
		if (rn && sp >= rn) {
			i += rn + (rnl ? 1 : 0);
			continue;       /* |---|---| */
		}
		if (bp_split_cells(rl, rn, st, en, 16) != nc)
			return 0;
		for (c = 0; c < nc; c++) {
			double x;
			size_t k = bp_num_at(rl + st[c], en[c] - st[c], 0, &x);
			size_t j = k, ul;

			if (!k)
				continue;
			if (j < en[c] - st[c] && rl[st[c] + j] == ' ')
				j++;
			got += unit_at(rl + st[c], en[c] - st[c], j, &ul) != NULL;
		}
		return got;
	}
	return 0;
}

static int col_varies(const char *text, size_t len, size_t i, size_t nc,
		      size_t c)
{
	const char *first = NULL;
	size_t fn = 0;

	while (i < len) {
		const char *rl = text + i, *rnl = memchr(rl, '\n', len - i);
		size_t rn = rnl ? (size_t)(rnl - rl) : len - i;
		size_t st[16], en[16], sp = 0;

		i += rn + (rnl ? 1 : 0);
		while (sp < rn && rl[sp] && strchr(" |-:+=\t", rl[sp]))
			sp++;
		if (rn && sp >= rn)
			continue;
		if (bp_split_cells(rl, rn, st, en, 16) != nc)
			break;
		if (!first) {
			first = rl + st[c];
			fn = en[c] - st[c];
		} else if (en[c] - st[c] != fn ||
			   memcmp(first, rl + st[c], fn)) {
			return 1;
		}
	}
	return 0;
}

int kt_bench_verdict(const char *text, size_t len)
{
	int votes[2] = { 0, 0 };
	size_t i = 0;

	while (text && i < len) {
		const char *l = text + i, *nl = memchr(l, '\n', len - i);
		size_t n = nl ? (size_t)(nl - l) : len - i;
		char low[1024];
		int mk;

		i += n + (nl ? 1 : 0);
		bp_lower(low, l, n, sizeof(low));
		if ((mk = marker(l, n, low)) >= 0)
			votes[mk]++;
	}
	if (votes[0] && votes[1])
		return -1;
	return votes[1] ? 1 : votes[0] ? 0 : -1;
}

int kt_bench_label_kind(const char *label, double *scale)
{
	int ref;

	*scale = 1;
	if (!label || !*label)
		return 0;
	/* V_* and KT_BU_* count alike */
	return head_kind(label, strlen(label), scale, &ref);
}

/* ---- driver ---------------------------------------------------------------- */
struct heading {
	int indent;
	int op;         /* an operator over its shape (op_line): ends at a
			 * blank line */
	int sizes;      /* a line of sizes (size_line), not a title; its
			 * indent is that of the heading owning it, -2 for
			 * none */
	char text[96];
};

static void add_num(cJSON *o, const char *k, double v)
{
	if (!isnan(v))
		cJSON_AddNumberToObject(o, k, v);
}

int kt_bench_parse(const char *text, size_t len, cJSON **results)
{
	return kt_bench_parse_hint(text, len, NULL, results);
}

int kt_bench_parse_hint(const char *text, size_t len, const kt_bench_hint *hint,
			cJSON **results)
{
	struct rs s = { 0 };
	struct heading hs[8];
	size_t nh = 0, i = 0, k;
	int block = 0, votes[2] = { 0, 0 }, in_autotune = 0;
	/* a speedup printed as a percentage that reads two ways
	 * (pct_speedup): no speedup is guessed from it */
	int amb = 0;
	/* a time or speedup printed negative (line_values): no result */
	int neg = 0;
	/* a table of one measure per candidate column was skipped */
	int col_tab = 0;
	/* failure verdicts no result took (apply_fails) */
	char fails[4][160];
	int nfails = 0;
	/* a baseline's time printed before the kernel's ("reference
	 * (torch): 1.25 ms" then "custom kernel: 625 us"): the ref of the
	 * next result of its block that has a time and none */
	double pend_ref = NAN;
	int pend_block = -1;
	/* timings read and left out as a baseline's or an autotuner's: an
	 * output of nothing else says so (unparsed), it never vanishes */
	const char *left_out = NULL;
	/* an error message that came before any result of its block: it
	 * speaks of the results that follow in that block */
	char bfail[120] = "";
	int bfail_block = -1;
	long long json_budget = 64ll << 20;
	char prev[96] = "";
	cJSON *arr;

	if (!results)
		return KT_EINVAL;
	*results = NULL;
	arr = cJSON_CreateArray();
	if (!arr)
		return KT_ENOMEM;
	if (!text)
		len = 0;
	while (i < len && !s.oom) {
		const char *l = text + i;
		const char *nl = memchr(l, '\n', len - i);
		size_t n = nl ? (size_t)(nl - l) : len - i, ind = 0;
		char low[1024];
		struct val v[16];
		size_t nv, e;
		int mk, fl = 0;
		char why[120];
		size_t first = s.n;

		i += n + (nl ? 1 : 0);
		while (ind < n && (l[ind] == ' ' || l[ind] == '\t'))
			ind++;
		if (ind == n) {
			block++;
			in_autotune = 0;
			while (nh && hs[nh - 1].op)
				nh--;
			continue;
		}
		/* 1. JSON value starting on this line; the scan budget keeps
		 * many unbalanced "[" lines from costing len^2 */
		if ((l[ind] == '{' || l[ind] == '[') && json_budget > 0 &&
		    (e = bp_json_end(text, len, (size_t)(l - text) + ind))) {
			const char *js = l + ind;
			cJSON *j = bp_json_parse(js, e - ((size_t)(js - text)),
						 &s.oom);

			json_budget -= (long long)(e - (size_t)(js - text));
			if (j) {
				bp_json_walk(&s, j, 0);
				cJSON_Delete(j);
				i = e;
				while (i < len && text[i] != '\n')
					i++;
				block++;
				continue;
			}
		}
		bp_lower(low, l, n, sizeof(low));
		/* an autotuner's table: its header starts it, a blank line
		 * ends it; rows of other choices ("  mm 0.2500 ms 89.3%")
		 * are known by their percentage */
		if (autotune_row(l, n, low)) {
			in_autotune = 1;
			if (!left_out)
				left_out = "autotune";
			continue;
		}
		if (in_autotune && strstr(low, " ms") && memchr(l, '%', n))
			continue;
		/* 2. a table header: cells, one of them a time/speed column */
		{
			size_t st[16], en[16], nc = bp_split_cells(l, n, st, en, 16), c;
			int kinds[16], refs[16], any = 0;
			double sc[16];
			const char *sbase[16];

			int cand[16], weak[16], shape_col = 0, values = 0;

			for (c = 0; nc >= 2 && c < nc; c++) {
				char hl[96];

				kinds[c] = head_kind(l + st[c], en[c] - st[c], &sc[c],
						     &refs[c]);
				bp_lower(hl, l + st[c], en[c] - st[c], sizeof(hl));
				sbase[c] = bp_baseline_in(hl);
				any |= kinds[c] == V_TIME;
				values |= time_cell(l + st[c], en[c] - st[c]);
				shape_col |= !kinds[c] && bp_shape_name(hl);
			}
			for (c = 0; nc >= 2 && c < nc; c++) {
				char hl[96];

				bp_lower(hl, l + st[c], en[c] - st[c], sizeof(hl));
				cand[c] = kinds[c] ? 0 : cand_head(hl, shape_col);
				weak[c] = cand[c] == 2;
				if (cand[c] == 2)
					cand[c] = col_varies(text, len, i, nc, c);
			}
			if (nc >= 2 && any && !values && !strstr(low, "compil") &&
			    !strstr(low, "build")) {
				size_t rows = 0;

				while (i < len) {
					const char *rl = text + i;
					const char *rnl = memchr(rl, '\n', len - i);
					size_t rn = rnl ? (size_t)(rnl - rl) : len - i;
					size_t rst[16], ren[16], rc;
					struct res *r;
					int col_ok;

					size_t sp = 0;

					while (sp < rn && strchr(" |-:+=\t", rl[sp]) &&
					       rl[sp])
						sp++;
					if (rn && sp >= rn) {
						i += rn + (rnl ? 1 : 0);
						continue;       /* |---|---| */
					}
					rc = bp_split_cells(rl, rn, rst, ren, 16);
					if (rc != nc)
						break;
					i += rn + (rnl ? 1 : 0);
					r = bp_new_res(&s, "table", block);
					if (!r)
						break;
					col_ok = -1;
					for (c = 0; c < nc; c++) {
						double x;
						const char *cs = rl + rst[c];
						size_t cl = ren[c] - rst[c];

						if (kinds[c] == V_CORRECT) {
							col_ok = cell_verdict(cs, cl);
							continue;
						}
						if (cand[c] && !r->cand[0]) {
							snprintf(r->cand, sizeof(r->cand),
								 "%.*s", (int)(cl < 127 ? cl : 127), cs);
							r->cand_weak = weak[c];
							continue;
						}
						if (!kinds[c]) {
							bp_scen_cell(r->scen, sizeof(r->scen),
								  l + st[c], en[c] - st[c], cs, cl);
							continue;
						}
						if (!bp_num_at(cs, cl, 0, &x))
							continue;
						x *= sc[c];
						if (kinds[c] == V_TIME && refs[c])
							r->ref = x;
						else if (kinds[c] == V_TIME && isnan(r->t))
							r->t = x;
						else if (kinds[c] == V_SPEEDUP)
							bp_add_speedup(r, x, NULL, sbase[c]);
						else if (kinds[c] == V_TFLOPS)
							r->tf = x;
						else if (kinds[c] == V_GBPS)
							r->gb = x;
					}
					{
						char rlow[512];

						bp_lower(rlow, rl, rn, sizeof(rlow));
						mk = marker(rl, rn, rlow);
						bp_failure(rl, rn, rlow, r->failed,
							   sizeof(r->failed));
					}
					/* the table's own column says it, "NO" too */
					r->correct = col_ok >= 0 ? col_ok : mk;
					if (!bp_has_metric(r)) {
						if (!isnan(r->ref) && !left_out)
							left_out = "table";
						s.n--;
					}
					rows++;
				}
				if (rows) {
					block++;
					continue;
				}
			}
			if (nc >= 2 && !any && !values &&
			    unit_cells(text, len, i, nc) >= 2) {
				/* one measure per column, each column a
				 * candidate or the baseline: read line by line,
				 * the baseline's cell would be a second result
				 * of the agent's kernel; the rows are skipped
				 * and the output says so when nothing else is
				 * in it */
				while (i < len) {
					const char *rl = text + i;
					const char *rnl = memchr(rl, '\n', len - i);
					size_t rn = rnl ? (size_t)(rnl - rl) : len - i;
					size_t rst[16], ren[16], sp = 0;

					while (sp < rn && strchr(" |-:+=\t", rl[sp]) &&
					       rl[sp])
						sp++;
					if (!(rn && sp >= rn) &&
					    bp_split_cells(rl, rn, rst, ren, 16) != nc)
						break;
					i += rn + (rnl ? 1 : 0);
				}
				col_tab = 1;
				block++;
				continue;
			}
		}
		/* 3. lines */
		mk = marker(l, n, low);
		fl = bp_failure(l, n, low, why, sizeof(why));
		if (fl == 2 && s.n && s.r[s.n - 1].block == block) {
			/* "Error: ..." under the result it is about */
			if (!s.r[s.n - 1].failed[0])
				memcpy(s.r[s.n - 1].failed, why, sizeof(why));
		} else if (fl == 2) {
			memcpy(bfail, why, sizeof(why));
			bfail_block = block;
		}
		if (skip_line(low)) {
			if (mk >= 0)
				votes[mk]++;
			continue;
		}
		nv = line_values(l, n, v, 16, low, &amb, &neg);
		if (!nv) {
			/* headings: "name:", "=== X ===", "## X", "CPU BENCHMARKS" */
			size_t t = n;
			int sect = l[ind] == '=' || l[ind] == '#' || l[ind] == '-';
			struct heading h = { 0 };

			/* the sizes of what follows ("=== Vector Addition
			 * ===\nSize1: 1000, Size2: 1500"): a scenario level
			 * owned by the heading above it, ended with that
			 * heading or by the next line of the same sizes (which
			 * also ends the headings under it); one after a result
			 * of its block labels that result, not what follows,
			 * and is not read */
			if (mk < 0 && !(s.n && s.r[s.n - 1].block == block) &&
			    bp_size_line(l + ind, n - ind, h.text,
					 sizeof(h.text))) {
				size_t q = nh;

				while (q && !(hs[q - 1].sizes &&
					      bp_same_keys(hs[q - 1].text, h.text)))
					q--;
				if (q)
					nh = q - 1;
				h.indent = q ? hs[nh].indent : nh ?
					   hs[nh - 1].indent : -2;
				h.sizes = 1;
				if (nh < 8)
					hs[nh++] = h;
				prev[0] = 0;
				continue;
			}

			while (t > ind && isspace((unsigned char)l[t - 1]))
				t--;
			if (mk >= 0) {
				/* a verdict line: the last result of this block */
				if (s.n && s.r[s.n - 1].block == block &&
				    s.r[s.n - 1].correct < 0) {
					s.r[s.n - 1].correct = mk;
				} else if (!mk && nfails < 4) {
					snprintf(fails[nfails++],
						 sizeof(fails[0]), "%.159s", low);
				} else {
					votes[mk]++;
				}
			}
			h.op = mk < 0 && t - ind < 90 && op_line(low + ind);
			if (t > ind && (l[t - 1] == ':' || sect || h.op) &&
			    t - ind < 90 && mk < 0) {
				size_t a = ind, z = t;

				while (a < z && strchr("=#-* ", l[a]))
					a++;
				while (z > a && strchr("=#-*: ", l[z - 1]))
					z--;
				if (z <= a) {
					/* a rule line: it underlines the plain
					 * line before it ("CPU BENCHMARKS\n----") */
					if (!prev[0])
						continue;
					h.indent = -1;
					memcpy(h.text, prev, sizeof(h.text));
					prev[0] = 0;
				} else {
					h.indent = sect ? -1 : (int)ind;
					memcpy(h.text, l + a, z - a < 95 ? z - a : 95);
					h.text[z - a < 95 ? z - a : 95] = 0;
				}
				while (nh && hs[nh - 1].indent >= h.indent)
					nh--;
				if (nh < 8)
					hs[nh++] = h;
				block++;
			} else if (mk < 0 && t > ind) {
				/* plain text: maybe underlined next */
				size_t a = ind, k2;

				/* skip a leading emoji or bullet */
				while (a < t && ((unsigned char)l[a] >= 0x80 ||
						 l[a] == ' ' || l[a] == '*'))
					a++;
				k2 = t - a < sizeof(prev) - 1 ? t - a : sizeof(prev) - 1;
				memcpy(prev, l + a, k2);
				prev[k2] = 0;
				continue;
			}
			prev[0] = 0;
			continue;
		}
		prev[0] = 0;
		/* values: a new result unless they complete the last one */
		{
			struct res *r = NULL;
			size_t q;
			int has_time = 0;

			for (q = 0; q < nv; q++)
				has_time |= v[q].kind == V_TIME && !v[q].ref &&
					    !v[q].min && !v[q].max;
			if (!has_time && s.n && s.r[s.n - 1].block == block &&
			    strcmp(s.r[s.n - 1].pattern, "json"))
				r = &s.r[s.n - 1];
			for (q = 0; q < nv; q++) {
				struct val *x = &v[q];
				int fresh = !r;

				if (!fresh) {
					if ((x->kind == V_TIME && !x->ref && !x->min && !x->max && !isnan(r->t)) ||
					    (x->kind == V_SPEEDUP && has_speedup_vs(r, x->base)) ||
					    (x->kind == V_TFLOPS && !isnan(r->tf)) ||
					    (x->kind == V_GBPS && !isnan(r->gb)))
						fresh = 1;
				}
				if (fresh) {
					size_t hh, lab = x->at;

					r = bp_new_res(&s, x->kind == V_TIME ? "time" :
						    x->kind == V_SPEEDUP ? "speedup" :
						    x->kind == V_TFLOPS ? "tflops" : "gbps",
						    block);
					if (!r)
						break;
					for (hh = 0; hh < nh; hh++)
						bp_scen_add(r->scen, sizeof(r->scen), hs[hh].text,
							 strlen(hs[hh].text));
					r->headed = nh > 0;
					/* the line's own label, unless it only names
					 * the measure ("Time per iteration:") */
					{
						char lb[128];
						size_t ll = lab - ind < 127 ? lab - ind : 127;

						bp_lower(lb, l + ind, ll, sizeof(lb));
						if ((!word_in(lb, time_words) ||
						     name_over_shape(lb)) &&
						    !strstr(lb, "speedup") &&
						    !strstr(lb, "tflop") && !strstr(lb, "bandwidth"))
							bp_scen_add(r->scen, sizeof(r->scen), l + ind, ll);
					}
				}
				switch (x->kind) {
				case V_TIME:
					if (x->ref) r->ref = x->v;
					else if (x->min) r->mn = x->v;
					else if (x->max) r->mx = x->v;
					else r->t = x->v;
					break;
				case V_SPEEDUP:
					bp_add_speedup(r, x->v, NULL, x->base);
					r->pct_sp += x->pct != 0;
					break;
				case V_TFLOPS: r->tf = x->v; break;
				case V_GBPS: r->gb = x->v; break;
				}
			}
			if (r && mk >= 0)
				r->correct = mk;
			if (r && !bp_has_metric(r)) {
				/* only a ref/min/max: not a result */
				if (!isnan(r->ref) && !left_out)
					left_out = r->pattern;
				if (!isnan(r->ref)) {
					pend_ref = r->ref;
					pend_block = block;
				}
				s.n--;
			}
			for (q = first; q < s.n && !isnan(pend_ref); q++) {
				if (s.r[q].block != pend_block) {
					pend_ref = NAN;
				} else if (!isnan(s.r[q].t) && isnan(s.r[q].ref)) {
					s.r[q].ref = pend_ref;
					pend_ref = NAN;
				}
			}
			/* the results of a line that says its code failed, or
			 * of a block an error message opened */
			for (q = first; q < s.n; q++)
				if (!s.r[q].failed[0] && fl)
					memcpy(s.r[q].failed, why, sizeof(why));
				else if (!s.r[q].failed[0] &&
					 bfail_block == s.r[q].block)
					memcpy(s.r[q].failed, bfail, sizeof(bfail));
		}
	}
	if (s.oom) {
		free(s.r);
		cJSON_Delete(arr);
		return KT_ENOMEM;
	}
	bp_mark_baselines(&s);
	apply_fails(&s, fails, nfails);
	bp_split_operators(&s);
	for (k = 0; k < s.n; k++) {
		struct res *r = &s.r[k];
		cJSON *o;

		/* a competitor timed alone, JSON ("method": "cublas_gemm")
		 * as much as a line of text: the output looked like a
		 * benchmark, so say so with an unparsed marker */
		if (r->timed && !left_out)
			left_out = r->pattern;
		if (!bp_has_metric(r) || r->timed)
			continue;
		if (r->correct < 0 && (votes[0] || votes[1]) &&
		    !(votes[0] && votes[1]))
			r->correct = votes[1] ? 1 : 0;
		/* the kernel's and the baseline's times printed: their ratio
		 * is the speedup, not a percentage restating it */
		if (r->nsp && r->pct_sp == r->nsp && r->t > 0 && r->ref > 0) {
			r->nsp = 0;
			r->sp = NAN;
		}
		if (isnan(r->sp) && !isnan(r->t) && !isnan(r->ref) && r->t > 0)
			r->sp = r->ref / r->t;
		o = cJSON_CreateObject();
		if (!o) {
			free(s.r);
			cJSON_Delete(arr);
			return KT_ENOMEM;
		}
		if (r->failed[0])
			cJSON_AddStringToObject(o, "metric", isnan(r->t) &&
						(r->nsp || !isnan(r->sp)) ?
						"speedup" : "time");
		if (r->failed[0]) {
			/* a time of code that returned an error or did not
			 * run is no result (FORMAT.md section 14 "Failed to
			 * run"): the printed figure is kept aside */
			cJSON *x = cJSON_AddObjectToObject(o, "extra");

			if (x && !isnan(r->t))
				cJSON_AddNumberToObject(x, "printed_time_ms",
							r->t);
			r->sp = r->ref = r->mn = r->mx = r->tf = r->gb = NAN;
			r->nsp = 0;
			r->correct = -1; /* no answer: neither right nor wrong */
			cJSON_AddStringToObject(o, "status", "runtime_error");
			cJSON_AddStringToObject(o, "reason", r->failed);
		}
		if (isnan(r->t) || r->failed[0])
			cJSON_AddNullToObject(o, "time_ms");
		else
			cJSON_AddNumberToObject(o, "time_ms", r->t);
		add_num(o, "min_ms", r->mn);
		add_num(o, "max_ms", r->mx);
		add_num(o, "ref_time_ms", r->ref);
		/* FORMAT.md section 2: a speedup is > 0; a printed 0.00x
		 * (or a reference time of 0) is no ratio of two times */
		if (r->sp > 0)
			add_num(o, "speedup", r->sp);
		add_num(o, "tflops", r->tf);
		add_num(o, "gbps", r->gb);
		if (r->n)
			cJSON_AddNumberToObject(o, "n", r->n);
		if (r->correct < 0)
			cJSON_AddNullToObject(o, "correct");
		else
			cJSON_AddBoolToObject(o, "correct", r->correct);
		if (r->wl[0])
			cJSON_AddStringToObject(o, "workload", r->wl);
		if (r->scen[0])
			cJSON_AddStringToObject(o, "scenario", r->scen);
		if (r->cand[0])
			cJSON_AddStringToObject(o, "candidate", r->cand);
		cJSON_AddStringToObject(o, "pattern", r->pattern);
		/* several speedups: the chosen one names the series
		 * (bp_choose_speedup), a kernel time beside them or not */
		if (r->failed[0])
			;       /* said above */
		else if (!isnan(r->t) && r->nsp < 2)
			cJSON_AddStringToObject(o, "metric", "time");
		else if (!r->nsp && !isnan(r->sp))
			cJSON_AddStringToObject(o, "metric", "speedup");
		else if (!r->nsp)
			cJSON_AddStringToObject(o, "metric",
						isnan(r->tf) ? "gbps" : "tflops");
		bp_choose_speedup(r, hint, o);
		if (r->refname && !cJSON_GetObjectItem(o, "baseline"))
			cJSON_AddStringToObject(o, "baseline", r->refname);
		if (r->suspicious) {
			cJSON *f = cJSON_AddArrayToObject(o, "flags");

			if (f)
				cJSON_AddItemToArray(f, cJSON_CreateString(
							     "suspicious"));
		}
		if (!isnan(r->reward)) {
			cJSON *x = cJSON_GetObjectItem(o, "extra");

			if (!x)
				x = cJSON_AddObjectToObject(o, "extra");
			if (x)
				cJSON_AddNumberToObject(x, "reward", r->reward);
		}
		if (kt_bench_repeats(arr, o))
			cJSON_Delete(o);
		else
			cJSON_AddItemToArray(arr, o);
	}
	free(s.r);
	if (!cJSON_GetArraySize(arr)) {
		char title[96];
		cJSON *o;

		if (bp_numeric_table(text, len, title, sizeof(title)) &&
		    (o = cJSON_CreateObject())) {
			cJSON_AddNullToObject(o, "time_ms");
			cJSON_AddNullToObject(o, "correct");
			cJSON_AddStringToObject(o, "status", "unparsed");
			cJSON_AddStringToObject(o, "pattern", "table");
			if (*title)
				cJSON_AddStringToObject(o, "scenario", title);
			cJSON_AddItemToArray(arr, o);
		} else if (amb && (o = cJSON_CreateObject())) {
			/* "Speedup vs torch: 100.0%" alone: relative speed
			 * (1.0x) or a gain (2.0x), and no time to tell */
			cJSON_AddNullToObject(o, "time_ms");
			cJSON_AddNullToObject(o, "correct");
			cJSON_AddStringToObject(o, "status", "unparsed");
			cJSON_AddStringToObject(o, "pattern", "speedup");
			cJSON_AddStringToObject(o, "reason", "a speedup printed "
				"as a percentage without a sign or \"faster\" "
				"reads as relative speed or as a gain, and no "
				"times were printed beside it");
			cJSON_AddItemToArray(arr, o);
		} else if (col_tab && (o = cJSON_CreateObject())) {
			cJSON_AddNullToObject(o, "time_ms");
			cJSON_AddNullToObject(o, "correct");
			cJSON_AddStringToObject(o, "status", "unparsed");
			cJSON_AddStringToObject(o, "pattern", "table");
			cJSON_AddStringToObject(o, "reason", "a table with one "
				"measure per column (each column a candidate or "
				"the baseline) and no column naming the measure "
				"is not read");
			cJSON_AddItemToArray(arr, o);
		} else if (neg && (o = cJSON_CreateObject())) {
			cJSON_AddNullToObject(o, "time_ms");
			cJSON_AddNullToObject(o, "correct");
			cJSON_AddStringToObject(o, "status", "unparsed");
			cJSON_AddStringToObject(o, "pattern", "negative");
			cJSON_AddStringToObject(o, "reason", "a negative time or "
				"speedup was printed, which no timer measures");
			cJSON_AddItemToArray(arr, o);
		} else if (left_out && (o = cJSON_CreateObject())) {
			/* every timing was a baseline's, a competitor's or an
			 * autotuner's candidate config: looked like a benchmark,
			 * gave no result of the agent's code */
			cJSON_AddNullToObject(o, "time_ms");
			cJSON_AddNullToObject(o, "correct");
			cJSON_AddStringToObject(o, "status", "unparsed");
			cJSON_AddStringToObject(o, "pattern", left_out);
			cJSON_AddStringToObject(o, "reason", strcmp(left_out,
				"autotune") ? "only timings of a baseline or "
				"competitor" : "only an autotuner's timings of "
				"its candidate configs");
			cJSON_AddItemToArray(arr, o);
		}
	}
	*results = arr;
	return 0;
}
