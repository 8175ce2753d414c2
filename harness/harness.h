/*
 * harness.h - internals of ktraj-harness shared by the parent (main.c: spec,
 * compile, static check, child processes, watchdog) and the child (run.cu:
 * everything that touches CUDA).  The parent never initializes CUDA, so it
 * can fork a fresh child whenever one dies.
 */
#ifndef KTH_HARNESS_H
#define KTH_HARNESS_H
#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "kt_json.h"
#include "../kernels/include/ktraj_kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KTH_VERSION "0.1.0"
/* Bumped whenever a change to the procedure could change a verdict or a
 * timing (harness/README.md "Protocol" lists what version 1 does). */
#define KTH_PROTOCOL_VERSION 1
#define KTH_MAX_SETS 8

struct kth_tol {
	double atol, rtol, rel_l2;
};

struct kth_scenario {
	char name[128];
	int dtype;          /* enum ktraj_dtype */
	int causal;
	int64_t dims[8];
	float scale, eps;
	const char *dist;   /* "mixed" (default: one distribution per set) or a
			       single distribution name for every set */
	const char *note;
};

struct kth_task {
	char name[64];
	int op;                     /* enum ktraj_op */
	const char *reference;      /* "builtin:attention_fwd_fp32" ... */
	const char *flops_formula, *bytes_formula;
	double flops_scale;         /* testing the plausibility gate only */
	int input_sets;
	struct kth_tol tol[3];      /* by enum ktraj_dtype */
	int n;
	struct kth_scenario *scen;
	kj *root;                   /* owns the strings above */
};

struct kth_opts {
	const char *spec, *kernel, *baseline, *subset, *cache_dir, *arch;
	const char *include_dir;
	const char *cudnn;      /* --cudnn PATH (library or its folder) */
	double budget_ms;       /* timed samples per arm and scenario */
	double warmup_ms;
	int warmup_calls;
	int blocks;
	int min_samples, max_samples;
	int timeout_s;          /* per scenario, watchdog */
	long mem_limit_mb;      /* child RSS */
	int compile_only, no_timing, quiet;
	uint64_t seed;
	double throttle_frac;
	int bootstrap;
	int sanity_gate;        /* 1: flag results above peak */
};

/* Facts the parent gathers without CUDA and hands to the child. */
struct kth_host {
	char nvcc_version[256], ptxas_version[256], host_cc[256];
	char os[256], kernel[256];
	char compile_flags[2048];
};

/* Child entry (run.cu): run scenarios first..n-1 of `sel` (indices into
 * t->scen) writing protocol lines to fd: "S <i>\n" before scenario i and
 * "R <json>\n" after it.  Returns the process exit status: 0 normal end,
 * 3 after a CUDA error that poisons the context (the parent restarts a
 * child from the next scenario), 4 no CUDA device. */
int kth_child(const struct kth_task *t, const struct kth_opts *o,
	      const struct kth_host *h, const char *cand_so, const char *base_so,
	      const int *sel, int nsel, int first, int fd);

/* cudnn.c: the declared baseline `--baseline cudnn` (cuDNN's fused
 * attention forward through its backend graph API, opened with dlopen).
 * kth_cudnn_find: resolve the library without loading CUDA (given path or
 * folder, else $KTRAJ_CUDNN, else the usual homes, else the loader's search);
 * 0 and the path in `path`, -1 when there is none, -2 when a given path is
 * a file but not a shared library (no ELF header).  kth_cudnn_load (child
 * only): open it and create a handle; 0, or -1 with the reason in err.
 * kth_cudnn_entry has the candidates' entry type; non-zero on failure with
 * the reason in kth_cudnn_error().  kth_cudnn_engine: 1 when a plan is built,
 * with the chosen heuristics result, the count, the workspace size and the
 * graph variant (0 A with statistics, 1 A without, 2-3 the same with the
 * fallback heuristics). */
int kth_cudnn_find(const char *given, char *path, size_t n);
int kth_cudnn_load(const char *path, char *err, size_t el);
long kth_cudnn_version(void);
const char *kth_cudnn_path(void);
const char *kth_cudnn_error(void);
int kth_cudnn_entry(const struct ktraj_args *a, cudaStream_t s);
int kth_cudnn_engine(int *used, int *count, long long *ws_bytes, int *variant);

/* Probe child: write the compute capability ("90") or "none" to fd. */
int kth_probe(int fd);

#ifdef __cplusplus
}
#endif
#endif
