/*
 * benchpat_int.h - what the benchmark-pattern readers share: the results
 * being built and the KEY table.  Internal to benchpat.c (the driver, the
 * table and line readers, the results out) and benchpat_json.c (the JSON
 * reader and the KEY table).  kt_bench_parse (import.h) is the contract.
 */
#ifndef KT_BENCHPAT_INT_H
#define KT_BENCHPAT_INT_H

#include <stddef.h>

#include "import.h"

/* JSON keys (lower case): what a number under such a key means. */
enum { K_NONE, K_TIME, K_MIN, K_MAX, K_REF, K_SPEEDUP, K_TFLOPS, K_GFLOPS,
	K_GBPS, K_N };

/* One result being read.  Times in ms, throughput in TFLOP/s and GB/s;
 * NAN where nothing was read. */
struct res {
	double t, mn, mx, ref, sp, tf, gb;
	int tprio;      /* which key gave t: lower is better */
	int n;
	int correct;    /* -1 null */
	char scen[256];
	char cand[128];  /* the code measured, from a table column naming
			  * it ("variant", "kernel"): FORMAT.md section 2
			  * `candidate`, "" when none */
	int cand_weak;   /* cand came from a column that names the variant
			  * or the problem ("kernel", "name"), not from a
			  * "variant" column: bp_split_operators may read it
			  * as the operator */
	int headed;      /* its scenario starts with headings above the
			  * line, not the line's own label */
	char wl[64];     /* the operator measured, when the rows of one
			  * output name several (bp_split_operators): the
			  * result's workload; "" when not split */
	const char *pattern;
	int block;
	/* every speedup printed for this result, in order: one is chosen at
	 * the end (choose_speedup), the others are kept as alternatives */
	struct spc {
		double v;
		char metric[40];
		char base[32];
	} spc[4];
	int nsp;
	int pct_sp;     /* how many of spc were read from a percentage */
	int suspicious; /* a verifier's "suspicious": true */
	double reward;  /* a verifier's "reward", NAN when none */
	char graded[40]; /* the metric the JSON itself names as graded, or "" */
	const char *timed;   /* the baseline or competitor this result
				times (timed_baseline), NULL: the agent's */
	const char *refname; /* the baseline whose time was paired in as
				ref (static), NULL when none */
	char failed[120];    /* what the output says went wrong with the
				measured code (bp_failure), "" when nothing:
				the time is of an error path, not a result */
};

/* The results of one output, in order; oom once an allocation failed. */
struct rs {
	struct res *r;
	size_t n, cap;
	int oom;
};

/* ---- benchpat.c ------------------------------------------------------------ */
/* r as a result with nothing read yet; pattern is a static string. */
void bp_res_init(struct res *r, const char *pattern, int block);
/* A new empty result at the end of s; NULL (and s->oom set) when memory
 * runs out.  The pointer lives until the next bp_new_res on s. */
struct res *bp_new_res(struct rs *s, const char *pattern, int block);
/* The baseline that lower-case words name ("torch.compile", "eager", ...),
 * "" when none; a static string. */
const char *bp_baseline_in(const char *low);
/* Whether lower-case text low names the baseline word w (lower case) as
 * a whole word: not inside a longer word ("torchvision", "prefill",
 * "eagerfallback") and not one part of a snake_case identifier whose other
 * parts name something else ("cpu_offload_rmsnorm", "eager_fallback",
 * "my_cublas_wrapper" are the candidate's names).  Parts that are numbers,
 * say what is measured or name a baseline too ("torch_time", "ref_ms",
 * "pytorch_eager", "cpu_benchmark") leave it the baseline's name. */
int bp_baseline_word(const char *low, const char *w);
/* Adds speedup v to r; key: the JSON key that named it, or NULL for text
 * (the metric is then made from base). */
void bp_add_speedup(struct res *r, double v, const char *key,
		    const char *base);
/* Whether r holds a time, speedup or throughput. */
int bp_has_metric(const struct res *r);
/* Whether line l[0..n) (low: in lower case) says the measured code did
 * not run to a result: not implemented, unsupported, a runtime error, a
 * crash ("NOT_IMPLEMENTED", "Error: invalid argument", "CUDA error: ...",
 * "Segmentation fault").  Lines that name an error as a figure ("max
 * error: 1e-5") say nothing.  When it does, the line (trimmed, cut to
 * cap) goes to why and the result is 2 when the line starts with what
 * went wrong (a message about the result beside it), 1 when it names it
 * after a label of its own ("conv: unsupported dtype", a row); else 0. */
int bp_failure(const char *l, size_t n, const char *low, char *why,
	       size_t cap);
/* s[0..n) in lower case into d (cap bytes, NUL-terminated, cut to fit). */
void bp_lower(char *d, const char *s, size_t n, size_t cap);

/* ---- benchpat_json.c ------------------------------------------------------- */
/* What a number under key means (K_*): *scale converts a time to ms, *prio
 * ranks times (lower is better).  The KEY table of import/README.md. */
int bp_key_kind(const char *key, double *scale, int *prio);
/* End of the balanced JSON value starting at t[i] ('{' or '['), or 0 when
 * it is not closed within t[0..n) or 1 MiB. */
size_t bp_json_end(const char *t, size_t n, size_t i);
/* The JSON value s[0..n) as benchmark programs print it (README "JSON":
 * comments, literal \n, trailing commas dropped; a text JSON does not read
 * is read as a Python literal by kt_impx_pylit); NULL when neither reads
 * it or memory runs out (*oom set then: not a text that is no JSON).
 * Caller frees with cJSON_Delete. */
cJSON *bp_json_parse(const char *s, size_t n, int *oom);
/* Adds to s one result per object of j that holds a measurement (nested
 * objects merged into it; arrays give one per element). */
void bp_json_walk(struct rs *s, const cJSON *j, int depth);

/* Shared between benchpat.c (the readers, the driver) and benchpat_out.c
 * (the results made final). */
/* Append the label s (n bytes) to the scenario d (cap bytes), " / "
 * between parts. */
void bp_scen_add(char *d, size_t cap, const char *s, size_t n);
/* A number at l[i] (n bytes in all) into *out: its length, or 0. */
size_t bp_num_at(const char *l, size_t n, size_t i, double *out);
/* The cells of table row l (n bytes): their starts and ends in st and en,
 * at most max; how many. */
size_t bp_split_cells(const char *l, size_t n, size_t *st, size_t *en,
		      size_t max);
/* Output t (len bytes) is a table of numbers with no time: 1 and its
 * title in title (cap bytes), else 0. */
int bp_numeric_table(const char *t, size_t len, char *title, size_t cap);
/* Choose r's speedup among those printed into the bench payload o
 * (FORMAT.md section 2 "bench"); h the task's hint or NULL. */
void bp_choose_speedup(const struct res *r, const kt_bench_hint *h,
		       cJSON *o);
/* Mark the results of s that time a baseline or competitor (res.timed)
 * and pair their time in as the agent's ref (res.refname). */
void bp_mark_baselines(struct rs *s);

/* Shared between benchpat.c (the table and line readers) and
 * benchpat_scen.c (scenario parameters). */
/* Whether a lower-case name (a table header, "Size1" of "Size1: 1000")
 * names a problem size or shape, whose values are the scenario
 * (benchpat_scen.c). */
int bp_shape_name(const char *low);
/* Whether lower-case line l contains any of the NULL-ended words w (as
 * substrings): 1 or 0. */
int bp_any_word(const char *l, const char *const *w);
/* Append to the scenario d (cap bytes) what table cell c (cn bytes) under
 * header head (hn bytes) says of it: its text, or a size as name=value;
 * nothing for other numbers. */
void bp_scen_cell(char *d, size_t cap, const char *head, size_t hn,
		  const char *c, size_t cn);
/* Whether the sizes a and b (bp_size_line's "n=64 m=32") name the same
 * sizes in the same order: 1 or 0. */
int bp_same_keys(const char *a, const char *b);
/* Line l (n bytes) is sizes only: 1 and them in out (cap bytes,
 * "size1=1000 size2=1500"), else 0 and out "". */
int bp_size_line(const char *l, size_t n, char *out, size_t cap);
/* Results of several operators in one output (issue 15: different
 * operators are never compared): when the table and line results of s
 * name at least two operators (the leading word of the label, or a
 * "kernel" column's cell) each over its own shapes (no shape measured
 * under two names), every such result gets its operator as workload (wl)
 * and keeps only the shape as scenario; results of one name over several
 * shapes then stay a sweep of that workload.  When one shape is measured
 * under two names (variants: "naive [4096,4096]", "tiled [4096,4096]"),
 * each such printed line's result without a candidate gets its name as
 * candidate and the shape as scenario instead.  JSON results and a "variant" column's
 * candidates are left as they are. */
void bp_split_operators(struct rs *s);

#endif
