/*
 * cudnn.c - the declared library baseline `--baseline cudnn`: cuDNN's fused
 * scaled-dot-product attention forward, opened at run time (dlopen) and
 * called through the same entry-point type as a candidate, so run.cu times
 * and checks it under exactly the candidate's protocol.
 *
 * The operation graph is the one cuDNN documents for its fused flash
 * attention forward ("Scaled Dot Product Attention", cuDNN 9 developer
 * guide, and the public cudnn-frontend's SDPA node, which expands to the
 * same backend operations): S = Q·Kᵀ (fp32), S·scale, for causal a
 * generated row/column index comparison selecting −inf above the diagonal,
 * softmax as max-reduction, subtract, exp, sum-reduction, divide (with the
 * log-sum-exp statistics as a virtual tensor, as the frontend builds it for
 * inference), then O = P·V.  Engines come from heuristics mode A; the first
 * configuration whose execution plan finalizes is kept.  The plan and its
 * workspace are built on the first call of a shape (the harness's
 * correctness pass, outside timing) and reused while the shape stays.
 */
#include <dlfcn.h>
#include <glob.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cuda_runtime.h>

#include "cudnn_api.h"
#include "harness.h"

static struct {
	void *lib;
	ktc_handle h;
	ktc_create_fn create;
	ktc_set_stream_fn set_stream;
	ktc_version_fn version;
	ktc_error_string_fn err_str;
	ktc_last_error_fn last_err;
	ktc_create_desc_fn cdesc;
	ktc_destroy_desc_fn ddesc;
	ktc_finalize_fn fin;
	ktc_set_attr_fn set;
	ktc_get_attr_fn get;
	ktc_execute_fn exec;
	char path[1024];
	char err[512];
} L;

/* The cached plan of one shape. */
#define MAXD 128
static struct {
	int ok;
	int64_t key[9];
	ktc_desc d[MAXD];   /* every descriptor of the graph, for destruction */
	int nd;
	ktc_desc plan;
	void *ws;
	int64_t ws_bytes;
	float scale, neg_inf;
	int32_t shift;
	int causal, shifted, engines, engine_used, variant;
} P;

/* Usual homes of libcudnn.so.9, PyTorch's first: the wheels it installs
 * (nvidia-cudnn-cu12/cu13 put it in site-packages/nvidia/cudnn/lib; some
 * builds ship it in torch/lib) hold the cuDNN that PyTorch's SDPA uses, so a
 * claim against "cuDNN" means the same library in and outside the harness
 * (on the H200 the distribution's copy was 9.14, PyTorch's 9.19); then the
 * CUDA Toolkit and the distribution. */
static const char *const search[] = {
	"/opt/*/.venv/lib/python3*/site-packages/nvidia/cudnn/lib/libcudnn.so.9",
	"/usr/local/lib/python3*/*-packages/nvidia/cudnn/lib/libcudnn.so.9",
	"/usr/lib/python3*/*-packages/nvidia/cudnn/lib/libcudnn.so.9",
	"/opt/*/.venv/lib/python3*/site-packages/torch/lib/libcudnn.so.9",
	"/usr/local/lib/python3*/*-packages/torch/lib/libcudnn.so.9",
	"/usr/local/cuda/lib64/libcudnn.so.9",
	"/usr/local/cuda/lib/libcudnn.so.9",
	"/usr/local/cuda-*/lib*/libcudnn.so.9",
	"/usr/lib/x86_64-linux-gnu/libcudnn.so.9",
	"/usr/lib/aarch64-linux-gnu/libcudnn.so.9",
	NULL
};

/* vsnprintf: a long library path may truncate the message, harmlessly
 * (gcc's -Wformat-truncation cannot see through it) */
static void seterr(const char *f, ...) __attribute__((format(printf, 1, 2)));
static void seterr(const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vsnprintf(L.err, sizeof(L.err), f, ap);
	va_end(ap);
}

/* a readable regular file (a symlink to one too): access() alone also
 * passes a folder, which dlopen then refuses only in the child, on a GPU */
static int is_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, R_OK) == 0;
}

/* whether p starts with the ELF magic: a path given by hand that is not a
 * shared library is refused here, before anything is compiled */
static int is_elf(const char *p)
{
	unsigned char m[4] = {0};
	FILE *f = fopen(p, "rb");
	size_t got = f ? fread(m, 1, sizeof(m), f) : 0;

	if (f)
		fclose(f);
	return got == 4 && m[0] == 0x7f && m[1] == 'E' && m[2] == 'L' &&
	       m[3] == 'F';
}

int kth_cudnn_find(const char *given, char *path, size_t n)
{
	const char *g = given ? given : getenv("KTRAJ_CUDNN");
	struct stat st;
	void *h;

	if (g && *g) {
		/* a directory names the folder holding libcudnn.so.9 */
		if (stat(g, &st) == 0 && S_ISDIR(st.st_mode))
			snprintf(path, n, "%s/libcudnn.so.9", g);
		else
			snprintf(path, n, "%s", g);
		if (!is_file(path))
			return -1;
		return is_elf(path) ? 0 : -2;
	}
	for (int i = 0; search[i]; i++) {
		glob_t gl;
		int found = 0;

		if (glob(search[i], 0, NULL, &gl) == 0 && gl.gl_pathc > 0) {
			snprintf(path, n, "%s", gl.gl_pathv[0]);
			found = 1;
		}
		globfree(&gl);
		if (found)
			return 0;
	}
	/* last, the dynamic loader's own search (LD_LIBRARY_PATH, ld.so.cache):
	 * the shim loads no CUDA context, so the parent may try it */
	h = dlopen("libcudnn.so.9", RTLD_LAZY | RTLD_LOCAL);
	if (!h)
		return -1;
	dlclose(h);
	snprintf(path, n, "libcudnn.so.9");
	return 0;
}

static void *sym(const char *name)
{
	void *p = dlsym(L.lib, name);

	if (!p && !L.err[0])
		seterr("cudnn: %s: no symbol %s", L.path, name);
	return p;
}

/* cuDNN's sub-libraries (graph, engines, heuristics) are opened by the shim
 * by file name; opening the ones beside a library given by path first makes
 * that lookup find them even when their folder is not on the loader's path. */
static void preload_siblings(const char *path)
{
	static const char *const sub[] = {
		"libcudnn_graph.so.9", "libcudnn_engines_precompiled.so.9",
		"libcudnn_engines_runtime_compiled.so.9",
		"libcudnn_heuristic.so.9", "libcudnn_ops.so.9", NULL
	};
	char dir[1024], p[1200];

	if (!strchr(path, '/'))
		return;
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = 0;
	for (int i = 0; sub[i]; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, sub[i]);
		if (is_file(p))
			dlopen(p, RTLD_LAZY | RTLD_GLOBAL);
	}
}

int kth_cudnn_load(const char *path, char *err, size_t el)
{
	int st;

	snprintf(L.path, sizeof(L.path), "%s", path);
	L.err[0] = 0;
	preload_siblings(path);
	L.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!L.lib) {
		snprintf(err, el, "cudnn: dlopen: %s", dlerror());
		return -1;
	}
	*(void **)&L.create = sym("cudnnCreate");
	*(void **)&L.set_stream = sym("cudnnSetStream");
	*(void **)&L.version = sym("cudnnGetVersion");
	*(void **)&L.err_str = sym("cudnnGetErrorString");
	*(void **)&L.cdesc = sym("cudnnBackendCreateDescriptor");
	*(void **)&L.ddesc = sym("cudnnBackendDestroyDescriptor");
	*(void **)&L.fin = sym("cudnnBackendFinalize");
	*(void **)&L.set = sym("cudnnBackendSetAttribute");
	*(void **)&L.get = sym("cudnnBackendGetAttribute");
	*(void **)&L.exec = sym("cudnnBackendExecute");
	/* optional: only a detail for error messages */
	*(void **)&L.last_err = dlsym(L.lib, "cudnnGetLastErrorString");
	if (L.err[0]) {
		snprintf(err, el, "%s", L.err);
		return -1;
	}
	if (L.version() < 90000) {
		snprintf(err, el, "cudnn: %s is version %zu; the fused attention graph needs 9.0 or later",
			 path, L.version());
		return -1;
	}
	st = L.create(&L.h);
	if (st) {
		snprintf(err, el, "cudnn: cudnnCreate: %s", L.err_str(st));
		return -1;
	}
	return 0;
}

long kth_cudnn_version(void)
{
	return L.version ? (long)L.version() : 0;
}

const char *kth_cudnn_path(void)
{
	return L.path;
}

const char *kth_cudnn_error(void)
{
	return L.err;
}

/* ---- graph construction ------------------------------------------------- */

static int fail(int st, const char *what)
{
	char detail[256] = "";

	if (L.last_err)
		L.last_err(detail, sizeof(detail));
	seterr("cudnn: %s: %s%s%s", what,
		 L.err_str ? L.err_str(st) : "error", detail[0] ? ": " : "", detail);
	return -1;
}

#define TRY(call, what) do { int st_ = (call); if (st_) return fail(st_, what); } while (0)

static int newd(int type, ktc_desc *d)
{
	if (P.nd >= MAXD) {
		seterr("cudnn: too many descriptors");
		return -1;
	}
	TRY(L.cdesc(type, d), "create descriptor");
	P.d[P.nd++] = *d;
	return 0;
}

static int tensor(ktc_desc *t, int64_t uid, int dt, const int64_t dim[4],
		  const int64_t str[4], int virt, int byval)
{
	int64_t align = 16;
	int64_t one[4] = { 1, 1, 1, 1 };

	if (newd(KTC_TENSOR_DESCRIPTOR, t))
		return -1;
	TRY(L.set(*t, KTC_ATTR_TENSOR_DATA_TYPE, KTC_TYPE_DATA_TYPE, 1, &dt), "tensor type");
	TRY(L.set(*t, KTC_ATTR_TENSOR_DIMENSIONS, KTC_TYPE_INT64, 4, dim ? dim : one), "tensor dims");
	TRY(L.set(*t, KTC_ATTR_TENSOR_STRIDES, KTC_TYPE_INT64, 4, str ? str : one), "tensor strides");
	TRY(L.set(*t, KTC_ATTR_TENSOR_UNIQUE_ID, KTC_TYPE_INT64, 1, &uid), "tensor uid");
	TRY(L.set(*t, KTC_ATTR_TENSOR_BYTE_ALIGNMENT, KTC_TYPE_INT64, 1, &align), "tensor alignment");
	if (virt)
		TRY(L.set(*t, KTC_ATTR_TENSOR_IS_VIRTUAL, KTC_TYPE_BOOLEAN, 1, &virt), "tensor virtual");
	if (byval)
		TRY(L.set(*t, KTC_ATTR_TENSOR_IS_BY_VALUE, KTC_TYPE_BOOLEAN, 1, &byval), "tensor by value");
	TRY(L.fin(*t), "tensor finalize");
	return 0;
}

/* An operation descriptor of `type` whose n attributes names[i] are the
 * descriptors d[i] (a NULL one is left unset), finalized. */
static int operation(ktc_desc *op, int type, int n, const int *names, const ktc_desc *d)
{
	if (newd(type, op))
		return -1;
	for (int i = 0; i < n; i++)
		if (d[i])
			TRY(L.set(*op, names[i], KTC_TYPE_BACKEND_DESCRIPTOR, 1, &d[i]), "operation input");
	TRY(L.fin(*op), "operation finalize");
	return 0;
}

/* y = mode(x [, b [, t]]); axis >= 0 for GEN_INDEX */
static int pointwise(ktc_desc *op, int mode, int prec, int64_t axis, ktc_desc x,
		     ktc_desc b, ktc_desc t, ktc_desc y)
{
	static const int names[] = {
		KTC_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, KTC_ATTR_OPERATION_POINTWISE_XDESC,
		KTC_ATTR_OPERATION_POINTWISE_BDESC, KTC_ATTR_OPERATION_POINTWISE_TDESC,
		KTC_ATTR_OPERATION_POINTWISE_YDESC
	};
	ktc_desc pw;

	if (newd(KTC_POINTWISE_DESCRIPTOR, &pw))
		return -1;
	TRY(L.set(pw, KTC_ATTR_POINTWISE_MODE, KTC_TYPE_POINTWISE_MODE, 1, &mode), "pointwise mode");
	TRY(L.set(pw, KTC_ATTR_POINTWISE_MATH_PREC, KTC_TYPE_DATA_TYPE, 1, &prec), "pointwise precision");
	if (axis >= 0)
		TRY(L.set(pw, KTC_ATTR_POINTWISE_AXIS, KTC_TYPE_INT64, 1, &axis), "pointwise axis");
	TRY(L.fin(pw), "pointwise finalize");
	return operation(op, KTC_OPERATION_POINTWISE_DESCRIPTOR, 5, names,
			 (const ktc_desc[]){ pw, x, b, t, y });
}

/* c = a b (fp32 accumulation) */
static int matmul(ktc_desc *op, ktc_desc a, ktc_desc b, ktc_desc c)
{
	static const int names[] = {
		KTC_ATTR_OPERATION_MATMUL_ADESC, KTC_ATTR_OPERATION_MATMUL_BDESC,
		KTC_ATTR_OPERATION_MATMUL_CDESC, KTC_ATTR_OPERATION_MATMUL_DESC
	};
	ktc_desc mm;
	int f32 = KTC_DATA_FLOAT;

	if (newd(KTC_MATMUL_DESCRIPTOR, &mm))
		return -1;
	TRY(L.set(mm, KTC_ATTR_MATMUL_COMP_TYPE, KTC_TYPE_DATA_TYPE, 1, &f32), "matmul type");
	TRY(L.fin(mm), "matmul finalize");
	return operation(op, KTC_OPERATION_MATMUL_DESCRIPTOR, 4, names,
			 (const ktc_desc[]){ a, b, c, mm });
}

/* y = mode-reduction of x over the axes where y's dimension is 1 */
static int reduction(ktc_desc *op, int mode, ktc_desc x, ktc_desc y)
{
	static const int names[] = {
		KTC_ATTR_OPERATION_REDUCTION_XDESC, KTC_ATTR_OPERATION_REDUCTION_YDESC,
		KTC_ATTR_OPERATION_REDUCTION_DESC
	};
	ktc_desc rd;
	int f32 = KTC_DATA_FLOAT;

	if (newd(KTC_REDUCTION_DESCRIPTOR, &rd))
		return -1;
	TRY(L.set(rd, KTC_ATTR_REDUCTION_OPERATOR, KTC_TYPE_REDUCTION_OPERATOR_TYPE, 1, &mode), "reduction mode");
	TRY(L.set(rd, KTC_ATTR_REDUCTION_COMP_TYPE, KTC_TYPE_DATA_TYPE, 1, &f32), "reduction type");
	TRY(L.fin(rd), "reduction finalize");
	return operation(op, KTC_OPERATION_REDUCTION_DESCRIPTOR, 3, names,
			 (const ktc_desc[]){ x, y, rd });
}

static void drop_plan(void)
{
	for (int i = P.nd - 1; i >= 0; i--)
		L.ddesc(P.d[i]);
	if (P.ws)
		cudaFree(P.ws);
	memset(&P, 0, sizeof(P));
}

enum { U_Q = 1, U_K, U_V, U_O, U_SCALE, U_NEGINF, U_SHIFT };

/* Build the graph and a finalized plan for shape a: with_stats adds the
 * log-sum-exp statistics (a virtual output) as the frontend does for
 * inference; heur_mode is A, or FALLBACK when A finds no working engine. */
static int build_with(const struct ktraj_args *a, int with_stats, int heur_mode)
{
	const int64_t B = a->dims[0], H = a->dims[1], G = a->dims[2];
	const int64_t S = a->dims[3], K = a->dims[4], D = a->dims[5];
	int io = a->dtype == KTRAJ_BF16 ? KTC_DATA_BFLOAT16 : KTC_DATA_HALF;
	int f32 = KTC_DATA_FLOAT, i32 = KTC_DATA_INT32, bl = KTC_DATA_BOOLEAN;
	int64_t dq[4] = { B, H, S, D }, sq[4] = { H * S * D, S * D, D, 1 };
	int64_t dk[4] = { B, G, D, K }, sk[4] = { G * K * D, K * D, 1, D };
	int64_t dv[4] = { B, G, K, D }, sv[4] = { G * K * D, K * D, D, 1 };
	int64_t ds[4] = { B, H, S, K }, ss[4] = { H * S * K, S * K, K, 1 };
	int64_t dr[4] = { B, H, S, 1 }, sr[4] = { H * S, S, 1, 1 };
	ktc_desc tq, tk, tv, to, tsc, s0, s1, s, mx, sub, ex, sm, lg, stt, p;
	ktc_desc ops[16], heur, graph;
	int nops = 0;
	int64_t n = 0, got = 0, u = 100;

	P.scale = a->scale;
	P.causal = a->causal;
	if (tensor(&tq, U_Q, io, dq, sq, 0, 0) || tensor(&tk, U_K, io, dk, sk, 0, 0) ||
	    tensor(&tv, U_V, io, dv, sv, 0, 0) || tensor(&to, U_O, io, dq, sq, 0, 0) ||
	    tensor(&tsc, U_SCALE, f32, NULL, NULL, 0, 1) ||
	    tensor(&s0, u++, f32, ds, ss, 1, 0) || tensor(&s1, u++, f32, ds, ss, 1, 0) ||
	    matmul(&ops[nops++], tq, tk, s0) ||
	    pointwise(&ops[nops++], KTC_POINTWISE_MUL, f32, -1, s0, tsc, NULL, s1))
		return -1;
	s = s1;
	if (a->causal) {
		/* keep key j for query i when j <= i + K - S (bottom-right, the
		 * harness's convention): row + (K - S) >= col */
		ktc_desc row, col, mask, tinf, out;

		P.neg_inf = -INFINITY;
		if (tensor(&row, u++, i32, ds, ss, 1, 0) || tensor(&col, u++, i32, ds, ss, 1, 0) ||
		    tensor(&mask, u++, bl, ds, ss, 1, 0) || tensor(&out, u++, f32, ds, ss, 1, 0) ||
		    tensor(&tinf, U_NEGINF, f32, NULL, NULL, 0, 1) ||
		    pointwise(&ops[nops++], KTC_POINTWISE_GEN_INDEX, f32, 2, s, NULL, NULL, row) ||
		    pointwise(&ops[nops++], KTC_POINTWISE_GEN_INDEX, f32, 3, s, NULL, NULL, col))
			return -1;
		if (K != S) {
			ktc_desc tsh, row2;

			P.shift = (int32_t)(K - S);
			P.shifted = 1;
			if (tensor(&tsh, U_SHIFT, i32, NULL, NULL, 0, 1) ||
			    tensor(&row2, u++, i32, ds, ss, 1, 0) ||
			    pointwise(&ops[nops++], KTC_POINTWISE_ADD, i32, -1, row, tsh, NULL, row2))
				return -1;
			row = row2;
		}
		if (pointwise(&ops[nops++], KTC_POINTWISE_CMP_GE, bl, -1, row, col, NULL, mask) ||
		    pointwise(&ops[nops++], KTC_POINTWISE_BINARY_SELECT, f32, -1, s, tinf, mask, out))
			return -1;
		s = out;
	}
	if (tensor(&mx, u++, f32, dr, sr, 1, 0) || tensor(&sub, u++, f32, ds, ss, 1, 0) ||
	    tensor(&ex, u++, f32, ds, ss, 1, 0) || tensor(&sm, u++, f32, dr, sr, 1, 0) ||
	    tensor(&lg, u++, f32, dr, sr, 1, 0) || tensor(&stt, u++, f32, dr, sr, 1, 0) ||
	    tensor(&p, u++, io, ds, ss, 1, 0) ||
	    reduction(&ops[nops++], KTC_REDUCE_MAX, s, mx) ||
	    pointwise(&ops[nops++], KTC_POINTWISE_SUB, f32, -1, s, mx, NULL, sub) ||
	    pointwise(&ops[nops++], KTC_POINTWISE_EXP, f32, -1, sub, NULL, NULL, ex) ||
	    reduction(&ops[nops++], KTC_REDUCE_ADD, ex, sm) ||
	    (with_stats &&
	     (pointwise(&ops[nops++], KTC_POINTWISE_LOG, f32, -1, sm, NULL, NULL, lg) ||
	      pointwise(&ops[nops++], KTC_POINTWISE_ADD, f32, -1, mx, lg, NULL, stt))) ||
	    pointwise(&ops[nops++], KTC_POINTWISE_DIV, f32, -1, ex, sm, NULL, p) ||
	    matmul(&ops[nops++], p, tv, to))
		return -1;
	if (newd(KTC_OPERATIONGRAPH_DESCRIPTOR, &graph))
		return -1;
	TRY(L.set(graph, KTC_ATTR_OPERATIONGRAPH_HANDLE, KTC_TYPE_HANDLE, 1, &L.h), "graph handle");
	TRY(L.set(graph, KTC_ATTR_OPERATIONGRAPH_OPS, KTC_TYPE_BACKEND_DESCRIPTOR, nops, ops), "graph ops");
	TRY(L.fin(graph), "operation graph finalize (no engine supports this attention graph)");
	if (newd(KTC_ENGINEHEUR_DESCRIPTOR, &heur))
		return -1;
	TRY(L.set(heur, KTC_ATTR_ENGINEHEUR_OPERATION_GRAPH, KTC_TYPE_BACKEND_DESCRIPTOR, 1, &graph), "heuristics graph");
	TRY(L.set(heur, KTC_ATTR_ENGINEHEUR_MODE, KTC_TYPE_HEUR_MODE, 1, &heur_mode), "heuristics mode");
	TRY(L.fin(heur), "heuristics finalize");
	TRY(L.get(heur, KTC_ATTR_ENGINEHEUR_RESULTS, KTC_TYPE_BACKEND_DESCRIPTOR, 0, &n, NULL), "heuristics count");
	if (n > 8)
		n = 8;
	P.engines = (int)n;
	if (n < 1) {
		seterr("cudnn: heuristics found no engine for this attention graph");
		return -1;
	}
	{
		ktc_desc cfg[8];

		for (int i = 0; i < n; i++)
			if (newd(KTC_ENGINECFG_DESCRIPTOR, &cfg[i]))
				return -1;
		TRY(L.get(heur, KTC_ATTR_ENGINEHEUR_RESULTS, KTC_TYPE_BACKEND_DESCRIPTOR, n, &got, cfg), "heuristics results");
		for (int i = 0; i < got; i++) {
			ktc_desc plan;
			int st;

			if (newd(KTC_EXECUTION_PLAN_DESCRIPTOR, &plan))
				return -1;
			TRY(L.set(plan, KTC_ATTR_EXECUTION_PLAN_HANDLE, KTC_TYPE_HANDLE, 1, &L.h), "plan handle");
			TRY(L.set(plan, KTC_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, KTC_TYPE_BACKEND_DESCRIPTOR, 1, &cfg[i]), "plan config");
			st = L.fin(plan);
			if (st) {
				fail(st, "execution plan finalize");
				continue;
			}
			TRY(L.get(plan, KTC_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, KTC_TYPE_INT64, 1, &got, &P.ws_bytes), "workspace size");
			P.plan = plan;
			P.engine_used = i;
			L.err[0] = 0;
			break;
		}
	}
	if (!P.plan)
		return -1;
	if (P.ws_bytes > 0 && cudaMalloc(&P.ws, (size_t)P.ws_bytes)) {
		seterr("cudnn: workspace of %lld bytes: out of memory",
			 (long long)P.ws_bytes);
		return -1;
	}
	return 0;
}

static int build(const struct ktraj_args *a)
{
	static const int tries[4][2] = {
		{ 1, KTC_HEUR_MODE_A }, { 0, KTC_HEUR_MODE_A },
		{ 1, KTC_HEUR_MODE_FALLBACK }, { 0, KTC_HEUR_MODE_FALLBACK }
	};
	char first[sizeof(L.err)] = "";

	for (int i = 0; i < 4; i++) {
		drop_plan();
		if (build_with(a, tries[i][0], tries[i][1]) == 0) {
			P.variant = i;
			return 0;
		}
		if (i == 0)
			memcpy(first, L.err, sizeof(first));
	}
	/* the first attempt's reason is the informative one */
	memcpy(L.err, first, sizeof(L.err));
	return -1;
}

int kth_cudnn_entry(const struct ktraj_args *a, cudaStream_t s)
{
	int64_t key[9];
	int64_t uids[7];
	void *ptrs[7];
	int n = 0;
	ktc_desc pack;
	int st;
	float sc = a->scale;

	if (a->op != KTRAJ_OP_ATTENTION_FWD || a->dtype == KTRAJ_F32) {
		seterr("cudnn: the baseline is fused attention on fp16/bf16 only");
		return 1;
	}
	for (int i = 0; i < 6; i++)
		key[i] = a->dims[i];
	key[6] = a->dtype;
	key[7] = a->causal;
	memcpy(&key[8], &sc, sizeof(sc));
	if (!P.ok || memcmp(key, P.key, sizeof(key))) {
		if (build(a)) {
			char keep[sizeof(L.err)];

			memcpy(keep, L.err, sizeof(keep));
			drop_plan();
			memcpy(L.err, keep, sizeof(keep));
			return 1;
		}
		memcpy(P.key, key, sizeof(key));
		P.ok = 1;
	}
	uids[n] = U_Q; ptrs[n++] = (void *)a->in[0];
	uids[n] = U_K; ptrs[n++] = (void *)a->in[1];
	uids[n] = U_V; ptrs[n++] = (void *)a->in[2];
	uids[n] = U_O; ptrs[n++] = a->out[0];
	uids[n] = U_SCALE; ptrs[n++] = &P.scale;
	if (P.causal) {
		uids[n] = U_NEGINF; ptrs[n++] = &P.neg_inf;
	}
	if (P.shifted) {
		uids[n] = U_SHIFT; ptrs[n++] = &P.shift;
	}
	st = L.set_stream(L.h, s);
	if (st || (st = L.cdesc(KTC_VARIANT_PACK_DESCRIPTOR, &pack))) {
		fail(st, "variant pack");
		return 1;
	}
	if ((st = L.set(pack, KTC_ATTR_VARIANT_PACK_UNIQUE_IDS, KTC_TYPE_INT64, n, uids)) ||
	    (st = L.set(pack, KTC_ATTR_VARIANT_PACK_DATA_POINTERS, KTC_TYPE_VOID_PTR, n, ptrs)) ||
	    (st = L.set(pack, KTC_ATTR_VARIANT_PACK_WORKSPACE, KTC_TYPE_VOID_PTR, 1, &P.ws)) ||
	    (st = L.fin(pack)) || (st = L.exec(L.h, P.plan, pack))) {
		fail(st, "execute");
		L.ddesc(pack);
		return 1;
	}
	L.ddesc(pack);
	return 0;
}

int kth_cudnn_engine(int *used, int *count, long long *ws_bytes, int *variant)
{
	*variant = P.variant;
	*used = P.engine_used;
	*count = P.engines;
	*ws_bytes = P.ws_bytes;
	return P.ok;
}
