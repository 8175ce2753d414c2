/*
 * run.cu - the ktraj-harness child: everything that touches CUDA.  One
 * process runs one candidate over a list of scenarios (main.c restarts it
 * after a crash, a hang or a poisoned context).  For each scenario:
 *
 *   1. inputs: K seeded sets from several distributions, generated on the
 *      device, hashed; references computed in fp32 from these pristine
 *      copies, kept on the host, the device copy poisoned;
 *   2. negative controls: zeros and a copy of an input must fail the check,
 *      else the scenario is degenerate (harness.md §2 rows 8, 9);
 *   3. correctness: per set, the set is copied into the same working
 *      buffers (content changes at a fixed address: row 5), outputs NaN
 *      poisoned (row 6), scratch zeroed, the call made, inputs re-hashed
 *      (row 7), the output compared per element and by relative L2 norm;
 *      side work left on other streams after the harness stream finished is
 *      flagged (row 1); set 0 re-run and compared bit for bit (row 17);
 *   4. timing: warmup >= 25 ms, then interleaved blocks reference/candidate
 *      with the order alternating; per sample: output poisoned, L2 flushed
 *      with 2x its size, persisting L2 reset, CUDA events around the call
 *      (end event on the legacy default stream, so work on other blocking
 *      streams is inside), device-wide synchronize, NVML clock and throttle
 *      reasons (throttled samples dropped and counted); inputs rotated over
 *      the K sets;
 *   5. the last timed output checked again and inputs re-hashed (row 16);
 *      TFLOP/s and GB/s over the chip's peak flagged impossible (row 20).
 *
 * Sources: shared/research/harness.md §0 and §6 (the protocol), NVBench
 * measure_cold / throttle rules, Triton do_bench, flashinfer-bench.
 */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "util.h"
#include "../kernels/ref/ref_kernels.cuh"

typedef int (*entry_fn)(const struct ktraj_args *, cudaStream_t);

/* ---- NVML, loaded at run time ------------------------------------------- */
typedef struct nvmlDevice_st *nvmlDevice_t;
static struct {
	void *lib;
	nvmlDevice_t dev;
	int (*init)(void);
	int (*by_uuid)(const char *, nvmlDevice_t *);
	int (*clock)(nvmlDevice_t, int, unsigned *);
	int (*max_clock)(nvmlDevice_t, int, unsigned *);
	int (*reasons)(nvmlDevice_t, unsigned long long *);
	int (*power_limit)(nvmlDevice_t, unsigned *);
	int (*power)(nvmlDevice_t, unsigned *);
	int (*temp)(nvmlDevice_t, int, unsigned *);
	int (*ecc)(nvmlDevice_t, int *, int *);
	int (*mig)(nvmlDevice_t, unsigned *, unsigned *);
	int (*persist)(nvmlDevice_t, int *);
	int (*cmode)(nvmlDevice_t, int *);
	int (*driver)(char *, unsigned);
	int (*vbios)(nvmlDevice_t, char *, unsigned);
	int (*def_clock)(nvmlDevice_t, int, unsigned *);
	int ok;
} nvm;

#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2
/* clocks_event_reasons bits that mean the clock was pulled down by heat or
 * a hardware/power-brake event (NVBench drops on low clocks; SW power cap
 * 0x4 alone is the normal state of a loaded H200, see harness.md §3.1). */
#define KTH_THROTTLE_MASK (0x8ULL | 0x20ULL | 0x40ULL | 0x80ULL)

static void nvml_load(const char *uuid)
{
	nvm.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!nvm.lib)
		return;
#define SYM(f, n) *(void **)&nvm.f = dlsym(nvm.lib, n)
	SYM(init, "nvmlInit_v2");
	SYM(by_uuid, "nvmlDeviceGetHandleByUUID");
	SYM(clock, "nvmlDeviceGetClockInfo");
	SYM(max_clock, "nvmlDeviceGetMaxClockInfo");
	SYM(reasons, "nvmlDeviceGetCurrentClocksEventReasons");
	if (!nvm.reasons)
		SYM(reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
	SYM(power_limit, "nvmlDeviceGetPowerManagementLimit");
	SYM(power, "nvmlDeviceGetPowerUsage");
	SYM(temp, "nvmlDeviceGetTemperature");
	SYM(ecc, "nvmlDeviceGetEccMode");
	SYM(mig, "nvmlDeviceGetMigMode");
	SYM(persist, "nvmlDeviceGetPersistenceMode");
	SYM(cmode, "nvmlDeviceGetComputeMode");
	SYM(driver, "nvmlSystemGetDriverVersion");
	SYM(vbios, "nvmlDeviceGetVbiosVersion");
	SYM(def_clock, "nvmlDeviceGetDefaultApplicationsClock");
#undef SYM
	if (nvm.init && nvm.by_uuid && nvm.init() == 0 &&
	    nvm.by_uuid(uuid, &nvm.dev) == 0)
		nvm.ok = 1;
}

static unsigned nv_u(int (*f)(nvmlDevice_t, int, unsigned *), int arg)
{
	unsigned v = 0;

	if (nvm.ok && f && f(nvm.dev, arg, &v) == 0)
		return v;
	return 0;
}

/* ---- device facts and fingerprint --------------------------------------- */
static struct {
	cudaDeviceProp p;
	char uuid[64];
	int rt, drv, sm_clock_khz, mem_clock_khz, bus_width;
	double peak_tflops16, peak_tflops32, peak_gbps;
	unsigned max_sm_mhz;
	kth_buf fp;       /* static fingerprint object */
	char fp_id[17];
} dev;

extern "C" int kth_probe(int fd)
{
	int n = 0, dv;
	cudaDeviceProp p;
	char buf[32];

	if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1 ||
	    cudaGetDevice(&dv) != cudaSuccess ||
	    cudaGetDeviceProperties(&p, dv) != cudaSuccess) {
		if (write(fd, "none", 4) < 0)
			return 1;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%d%d", p.major, p.minor);
	if (write(fd, buf, strlen(buf)) < 0)
		return 1;
	return 0;
}

static const char *const env_vars[] = {
	"CUDA_VISIBLE_DEVICES", "CUDA_LAUNCH_BLOCKING", "CUDA_MODULE_LOADING",
	"CUDA_DEVICE_MAX_CONNECTIONS", "CUDA_CACHE_DISABLE", "CUDA_CACHE_PATH",
	"CUDA_FORCE_PTX_JIT", "CUDA_DISABLE_PTX_JIT", "NVIDIA_TF32_OVERRIDE",
	"CUBLAS_WORKSPACE_CONFIG", "PYTORCH_CUDA_ALLOC_CONF",
	"TORCH_CUDNN_SDPA_DEPRIORITIZED", "NCCL_NVLS_ENABLE", "LD_PRELOAD",
	"LD_LIBRARY_PATH", "KTRAJ_HARNESS_CACHE", NULL
};

static void build_fingerprint(const struct kth_host *h)
{
	kth_buf *b = &dev.fp;
	char drv[96] = "", vb[96] = "";
	unsigned pl = 0, mig = 0, migp = 0;
	int ecc = -1, eccp = 0, pm = -1, cm = -1;
	const unsigned char *u = (const unsigned char *)dev.p.uuid.bytes;
	int i;

	snprintf(dev.uuid, sizeof(dev.uuid),
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		 u[10], u[11], u[12], u[13], u[14], u[15]);
	nvml_load(dev.uuid);
	cudaRuntimeGetVersion(&dev.rt);
	cudaDriverGetVersion(&dev.drv);
	cudaDeviceGetAttribute(&dev.sm_clock_khz, cudaDevAttrClockRate, 0);
	cudaDeviceGetAttribute(&dev.mem_clock_khz, cudaDevAttrMemoryClockRate, 0);
	cudaDeviceGetAttribute(&dev.bus_width, cudaDevAttrGlobalMemoryBusWidth, 0);
	dev.max_sm_mhz = nv_u(nvm.max_clock, NVML_CLOCK_SM);
	if (!dev.max_sm_mhz)
		dev.max_sm_mhz = (unsigned)(dev.sm_clock_khz / 1000);
	/* Dense tensor-core FLOP per clock per SM for 16-bit inputs: 4096 on
	 * sm_90 (H100 SXM: 989.4 TFLOP/s at 1830 MHz x 132 SMs), 2048 on sm_80
	 * (A100: 312 TFLOP/s), 1024 before; NVIDIA datasheets.  fp32 FMA: 128
	 * lanes x 2. */
	{
		double per = dev.p.major >= 9 ? 4096 : dev.p.major == 8 ? 2048 : 1024;
		double ghz = dev.max_sm_mhz / 1e3;

		dev.peak_tflops16 = dev.p.multiProcessorCount * ghz * per / 1e3;
		dev.peak_tflops32 = dev.p.multiProcessorCount * ghz * 256 / 1e3;
		dev.peak_gbps = 2.0 * dev.mem_clock_khz * 1e3 *
				(dev.bus_width / 8.0) / 1e9;
	}
	if (nvm.ok) {
		if (nvm.driver)
			nvm.driver(drv, sizeof(drv));
		if (nvm.vbios)
			nvm.vbios(nvm.dev, vb, sizeof(vb));
		if (nvm.power_limit)
			nvm.power_limit(nvm.dev, &pl);
		if (nvm.ecc && nvm.ecc(nvm.dev, &ecc, &eccp))
			ecc = -1;
		if (nvm.mig && nvm.mig(nvm.dev, &mig, &migp))
			mig = 99;
		if (nvm.persist && nvm.persist(nvm.dev, &pm))
			pm = -1;
		if (nvm.cmode && nvm.cmode(nvm.dev, &cm))
			cm = -1;
	}
	kb_init(b);
	kb_put(b, "{", 1);
	kb_key(b, "gpu");
	kb_jstr(b, dev.p.name);
	kb_key(b, "uuid");
	kb_jstr(b, dev.uuid);
	kb_printf(b, ",\"pci_bus_id\":\"%04x:%02x:%02x.0\"", dev.p.pciDomainID,
		  dev.p.pciBusID, dev.p.pciDeviceID);
	kb_printf(b, ",\"cc\":\"%d.%d\",\"sms\":%d,\"l2_bytes\":%d,\"mem_bytes\":%zu",
		  dev.p.major, dev.p.minor, dev.p.multiProcessorCount,
		  dev.p.l2CacheSize, dev.p.totalGlobalMem);
	kb_printf(b, ",\"smem_per_block_optin\":%zu,\"persisting_l2_max\":%d",
		  dev.p.sharedMemPerBlockOptin, dev.p.persistingL2CacheMaxSize);
	kb_printf(b, ",\"sm_clock_max_mhz\":%u,\"sm_clock_attr_mhz\":%d,\"mem_clock_mhz\":%d,\"mem_bus_bits\":%d",
		  dev.max_sm_mhz, dev.sm_clock_khz / 1000,
		  dev.mem_clock_khz / 1000, dev.bus_width);
	kb_printf(b, ",\"sm_clock_default_mhz\":%u,\"mem_clock_max_mhz\":%u",
		  nv_u(nvm.def_clock, NVML_CLOCK_SM), nv_u(nvm.max_clock, NVML_CLOCK_MEM));
	kb_key(b, "power_limit_w");
	kb_jnum(b, nvm.ok && pl ? pl / 1000.0 : NAN);
	kb_key(b, "ecc");
	kb_jstr(b, ecc < 0 ? (dev.p.ECCEnabled ? "enabled" : "disabled") :
		   ecc ? "enabled" : "disabled");
	kb_key(b, "mig");
	kb_jstr(b, mig == 99 || !nvm.ok ? "unknown" : mig ? "enabled" : "disabled");
	kb_key(b, "persistence");
	kb_jstr(b, pm < 0 ? "unknown" : pm ? "enabled" : "disabled");
	kb_printf(b, ",\"compute_mode\":%d", cm);
	kb_key(b, "vbios");
	kb_jstr(b, vb[0] ? vb : NULL);
	kb_key(b, "driver");
	kb_jstr(b, drv[0] ? drv : NULL);
	kb_printf(b, ",\"cuda_driver\":%d,\"cuda_runtime\":%d", dev.drv, dev.rt);
	kb_key(b, "nvcc");
	kb_jstr(b, h->nvcc_version);
	kb_key(b, "ptxas");
	kb_jstr(b, h->ptxas_version);
	kb_key(b, "host_compiler");
	kb_jstr(b, h->host_cc);
	kb_key(b, "compile_flags");
	kb_jstr(b, h->compile_flags);
	kb_key(b, "os");
	kb_jstr(b, h->os);
	kb_key(b, "kernel");
	kb_jstr(b, h->kernel);
	kb_key(b, "nvml");
	kb_put(b, nvm.ok ? "true" : "false", nvm.ok ? 4 : 5);
	kb_put(b, ",\"env\":{", 8);
	for (i = 0; env_vars[i]; i++) {
		kb_key(b, env_vars[i]);
		kb_jstr(b, getenv(env_vars[i]));
	}
	kb_put(b, "}", 1);
	kb_printf(b, ",\"peak_tflops_16bit\":%.1f,\"peak_tflops_fp32\":%.1f,\"peak_gbps\":%.1f",
		  dev.peak_tflops16, dev.peak_tflops32, dev.peak_gbps);
	kb_printf(b, ",\"harness_version\":\"%s\",\"protocol_version\":%d",
		  KTH_VERSION, KTH_PROTOCOL_VERSION);
	/* only with a declared library baseline, so other runs keep their id */
	if (kth_cudnn_version() > 0) {
		kb_printf(b, ",\"baseline_library\":{\"name\":\"cudnn\",\"version\":%ld", kth_cudnn_version());
		kb_key(b, "path");
		kb_jstr(b, kth_cudnn_path());
		kb_put(b, "}", 1);
	}
	snprintf(dev.fp_id, sizeof(dev.fp_id), "%016llx",
		 (unsigned long long)kth_fnv64(KTH_FNV_INIT, b->s, b->n));
}

/* ---- small statistics ------------------------------------------------------ */
static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Quantile (linear interpolation) of a copy of v. */
static double quant(const double *v, int n, double q)
{
	double *c, r, pos;
	int lo;

	if (n <= 0)
		return NAN;
	c = (double *)malloc(sizeof(double) * n);
	if (!c)
		return NAN;
	memcpy(c, v, sizeof(double) * n);
	qsort(c, n, sizeof(double), cmpd);
	pos = q * (n - 1);
	lo = (int)pos;
	r = lo + 1 < n ? c[lo] + (pos - lo) * (c[lo + 1] - c[lo]) : c[lo];
	free(c);
	return r;
}

/* Quickselect median in place (Hoare); v is scrambled. */
static double qmedian(double *v, int n)
{
	int k = n / 2, lo = 0, hi = n - 1;
	double a, b;

	if (n <= 0)
		return NAN;
	while (lo < hi) {
		double piv = v[(lo + hi) / 2];
		int i = lo, j = hi;

		while (i <= j) {
			while (v[i] < piv)
				i++;
			while (v[j] > piv)
				j--;
			if (i <= j) {
				double t = v[i];

				v[i] = v[j];
				v[j] = t;
				i++;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	a = v[k];
	if (n % 2)
		return a;
	b = -INFINITY;
	for (int i = 0; i < k; i++)
		b = fmax(b, v[i]);
	return (a + b) / 2;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t xrand(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

struct samples {
	double *t;
	int *blk;
	unsigned *clk;
	int n, cap;
};

static void push(struct samples *s, double t, int blk, unsigned clk)
{
	if (s->n == s->cap) {
		int cap = s->cap ? s->cap * 2 : 256;
		double *nt = (double *)realloc(s->t, sizeof(double) * cap);
		int *nb;
		unsigned *nc;

		if (!nt)
			return;
		s->t = nt;
		nb = (int *)realloc(s->blk, sizeof(int) * cap);
		if (!nb)
			return;
		s->blk = nb;
		nc = (unsigned *)realloc(s->clk, sizeof(unsigned) * cap);
		if (!nc)
			return;
		s->clk = nc;
		s->cap = cap;
	}
	s->t[s->n] = t;
	s->blk[s->n] = blk;
	s->clk[s->n] = clk;
	s->n++;
}

/* Paired hierarchical bootstrap of median(A)/median(C): resample blocks,
 * then samples inside each chosen block (Kalibera & Jones, ISMM 2013;
 * harness.md §5).  Percentile 95 % interval. */
static void bootstrap(const struct samples *a, const struct samples *c,
		      int nblk, int iters, double *lo, double *hi)
{
	double *ra = (double *)malloc(sizeof(double) * (a->n + 1));
	double *rc = (double *)malloc(sizeof(double) * (c->n + 1));
	double *res = (double *)malloc(sizeof(double) * iters);
	int **ia = (int **)calloc(nblk, sizeof(int *)), **ic = (int **)calloc(nblk, sizeof(int *));
	int *na = (int *)calloc(nblk, sizeof(int)), *nc = (int *)calloc(nblk, sizeof(int));
	int it, b, i;

	*lo = *hi = NAN;
	if (!ra || !rc || !res || !ia || !ic || !na || !nc)
		goto out;
	for (b = 0; b < nblk; b++) {
		ia[b] = (int *)malloc(sizeof(int) * (a->n + 1));
		ic[b] = (int *)malloc(sizeof(int) * (c->n + 1));
		if (!ia[b] || !ic[b])
			goto out;
	}
	for (i = 0; i < a->n; i++)
		ia[a->blk[i]][na[a->blk[i]]++] = i;
	for (i = 0; i < c->n; i++)
		ic[c->blk[i]][nc[c->blk[i]]++] = i;
	for (it = 0; it < iters; it++) {
		int ka = 0, kc = 0;

		for (b = 0; b < nblk; b++) {
			int bb = (int)(xrand() % nblk);

			for (i = 0; i < na[bb]; i++)
				ra[ka++] = a->t[ia[bb][xrand() % na[bb]]];
			for (i = 0; i < nc[bb]; i++)
				rc[kc++] = c->t[ic[bb][xrand() % nc[bb]]];
		}
		if (!ka || !kc) {
			it--;
			continue;
		}
		res[it] = qmedian(ra, ka) / qmedian(rc, kc);
	}
	*lo = quant(res, iters, 0.025);
	*hi = quant(res, iters, 0.975);
out:
	for (b = 0; ia && ic && b < nblk; b++) {
		free(ia[b]);
		free(ic[b]);
	}
	free(ia);
	free(ic);
	free(na);
	free(nc);
	free(ra);
	free(rc);
	free(res);
}

/* ---- scenario state ------------------------------------------------------- */
struct scen {
	const struct kth_task *t;
	const struct kth_scenario *s;
	const struct kth_opts *o;
	int K;
	int64_t n_in[4], n_out;
	int nin, esz;
	void *pin[KTH_MAX_SETS][4], *work[4], *out, *out0, *scratch;
	uint64_t scratch_bytes;
	float *ref_dev, *ref_tout, *ref_host[KTH_MAX_SETS];
	int4 *flush;
	int64_t flush_n;
	unsigned long long *d_u64;
	kref::cmp_result *d_cmp;
	unsigned long long hash0[KTH_MAX_SETS][4];
	uint64_t seed[KTH_MAX_SETS];
	int dist[KTH_MAX_SETS];
	cudaStream_t hs;
	cudaEvent_t e0, e1;
	entry_fn cand, base;
	char err[512];
};

static const char *const dist_names[] = { "normal", "uniform", "peaky",
	"outlier", "offset", "zeros", "weight" };

static int dist_of(const char *n)
{
	for (int i = 0; i < 7; i++)
		if (!strcmp(n, dist_names[i]))
			return i;
	return -1;
}

static float __uint_as_float_host(unsigned u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	snprintf(S->err, sizeof(S->err), "%s: %s (%s:%d)", #x, \
		 cudaGetErrorString(e_), __FILE__, __LINE__); return -1; } } while (0)

static unsigned grid_for(int64_t n)
{
	int64_t g = (n + 255) / 256;

	return (unsigned)(g > 65535 * 4 ? 65535 * 4 : g < 1 ? 1 : g);
}

static void args_for(struct scen *S, ktraj_args *a, void *const in[4], void *out)
{
	memset(a, 0, sizeof(*a));
	a->abi_version = KTRAJ_ABI_VERSION;
	a->op = S->t->op;
	a->dtype = S->s->dtype;
	a->causal = S->s->causal;
	memcpy(a->dims, S->s->dims, sizeof(a->dims));
	a->scale = S->s->scale;
	a->eps = S->s->eps;
	for (int i = 0; i < S->nin; i++)
		a->in[i] = in[i];
	a->out[0] = out;
	a->scratch = S->scratch;
	a->scratch_bytes = S->scratch_bytes;
}

static void free_scen(struct scen *S)
{
	for (int k = 0; k < KTH_MAX_SETS; k++) {
		for (int i = 0; i < 4; i++)
			if (S->pin[k][i])
				cudaFree(S->pin[k][i]);
		free(S->ref_host[k]);
	}
	for (int i = 0; i < 4; i++)
		if (S->work[i])
			cudaFree(S->work[i]);
	cudaFree(S->out);
	cudaFree(S->out0);
	cudaFree(S->scratch);
	cudaFree(S->ref_dev);
	cudaFree(S->ref_tout);
	cudaFree(S->d_u64);
	cudaFree(S->d_cmp);
}

static int setup(struct scen *S, uint64_t master, int sidx)
{
	const int64_t *d = S->s->dims;
	int dfix = dist_of(S->s->dist);

	S->esz = S->s->dtype == KTRAJ_F32 ? 4 : 2;
	switch (S->t->op) {
	case KTRAJ_OP_ATTENTION_FWD:
		S->nin = 3;
		S->n_in[0] = d[0] * d[1] * d[3] * d[5];
		S->n_in[1] = S->n_in[2] = d[0] * d[2] * d[4] * d[5];
		S->n_out = S->n_in[0];
		break;
	case KTRAJ_OP_GEMM:
		S->nin = 2;
		S->n_in[0] = d[0] * d[2];
		S->n_in[1] = d[1] * d[2];
		S->n_out = d[0] * d[1];
		break;
	default:
		S->nin = 2;
		S->n_in[0] = d[0] * d[1];
		S->n_in[1] = d[1];
		S->n_out = d[0] * d[1];
	}
	S->K = S->t->input_sets;
	for (int k = 0; k < S->K; k++) {
		uint64_t h = kth_fnv64(master, S->s->name, strlen(S->s->name));

		S->seed[k] = kth_fnv64(h, &k, sizeof(k));
		S->dist[k] = dfix >= 0 ? dfix : k % 5;
		for (int i = 0; i < S->nin; i++) {
			int dd = S->dist[k];

			if (S->t->op == KTRAJ_OP_RMSNORM && i == 1 && dd != 5)
				dd = 6;
			CK(cudaMalloc(&S->pin[k][i], S->n_in[i] * S->esz));
			kref::fill<<<grid_for(S->n_in[i]), 256, 0, S->hs>>>(
				S->pin[k][i], S->n_in[i], S->s->dtype,
				S->seed[k] * 31 + i, dd, i);
			CK(cudaGetLastError());
		}
		S->ref_host[k] = (float *)malloc(2 * S->n_out * sizeof(float));
		if (!S->ref_host[k]) {
			snprintf(S->err, sizeof(S->err), "out of host memory");
			return -1;
		}
	}
	for (int i = 0; i < S->nin; i++)
		CK(cudaMalloc(&S->work[i], S->n_in[i] * S->esz));
	/* Allocation order matters for the "peek" exploit test: the reference
	 * buffer sits right after the candidate's output, where a harness that
	 * kept the reference resident would leak it. */
	CK(cudaMalloc(&S->out, S->n_out * S->esz));
	CK(cudaMalloc(&S->ref_dev, 2 * S->n_out * sizeof(float)));
	CK(cudaMalloc(&S->out0, S->n_out * S->esz));
	CK(cudaMalloc(&S->ref_tout, 2 * S->n_out * sizeof(float)));
	S->scratch_bytes = (uint64_t)S->n_out * 8;
	if (S->scratch_bytes < (16u << 20))
		S->scratch_bytes = 16u << 20;
	CK(cudaMalloc(&S->scratch, S->scratch_bytes));
	CK(cudaMalloc(&S->d_u64, sizeof(unsigned long long)));
	CK(cudaMalloc(&S->d_cmp, sizeof(kref::cmp_result)));
	(void)sidx;
	return 0;
}

static int hash_buf(struct scen *S, const void *p, int64_t bytes,
		    unsigned long long *h)
{
	CK(cudaMemsetAsync(S->d_u64, 0, 8, S->hs));
	kref::hash16<<<grid_for(bytes / 2), 256, 0, S->hs>>>(
		(const uint16_t *)p, bytes / 2, S->d_u64);
	CK(cudaGetLastError());
	CK(cudaMemcpyAsync(h, S->d_u64, 8, cudaMemcpyDeviceToHost, S->hs));
	CK(cudaStreamSynchronize(S->hs));
	return 0;
}

struct cmp {
	double max_abs, max_rel, rel_l2;
	unsigned long long mismatches, nonfinite;
	int pass;
};

/* Compare `out` with reference set k (uploaded for the comparison only).
 * The reference buffers hold the value and, behind it, the magnitude of
 * the terms summed for each element (ref_kernels.cuh). */
static int compare_set(struct scen *S, const void *out, int k, struct cmp *c)
{
	const struct kth_tol *tol = &S->t->tol[S->s->dtype];
	kref::cmp_result r;

	CK(cudaMemcpyAsync(S->ref_dev, S->ref_host[k], 2 * S->n_out * sizeof(float),
			   cudaMemcpyHostToDevice, S->hs));
	CK(cudaMemsetAsync(S->d_cmp, 0, sizeof(r), S->hs));
	kref::compare<<<grid_for(S->n_out), 256, 0, S->hs>>>(out, S->s->dtype,
		S->ref_dev, S->ref_dev + S->n_out, S->n_out, (float)tol->atol,
		(float)tol->rtol, S->d_cmp);
	CK(cudaGetLastError());
	CK(cudaMemcpyAsync(&r, S->d_cmp, sizeof(r), cudaMemcpyDeviceToHost, S->hs));
	/* The reference leaves the device again before the candidate runs
	 * (harness.md §2 row 19). */
	CK(cudaMemsetAsync(S->ref_dev, 0xFF, 2 * S->n_out * sizeof(float), S->hs));
	CK(cudaStreamSynchronize(S->hs));
	c->mismatches = r.mismatches;
	c->nonfinite = r.nonfinite;
	c->max_abs = __uint_as_float_host(r.max_abs_bits);
	c->max_rel = __uint_as_float_host(r.max_rel_bits);
	c->rel_l2 = r.sum_sq_ref > 0 ? sqrt(r.sum_sq_err / r.sum_sq_ref) :
		    (r.sum_sq_err > 0 ? INFINITY : 0);
	c->pass = c->nonfinite == 0 && c->mismatches == 0 &&
		  c->rel_l2 <= tol->rel_l2;
	return 0;
}

static double wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* One call of an arm: the built-in reference (fn == NULL) or a candidate. */
static int call_arm(struct scen *S, entry_fn fn, void *const in[4], void *out)
{
	ktraj_args a;
	int r;

	if (!fn) {
		args_for(S, &a, in, NULL);
		CK(kref::reference(&a, S->ref_tout, S->hs));
		return 0;
	}
	args_for(S, &a, in, out);
	r = fn(&a, S->hs);
	if (r) {
		if (fn == kth_cudnn_entry)
			snprintf(S->err, sizeof(S->err), "baseline: %s", kth_cudnn_error());
		else
			snprintf(S->err, sizeof(S->err), "candidate returned %d", r);
		return -2;
	}
	CK(cudaGetLastError());
	return 0;
}

/* An arm's warmup: calls made, wall ms of the first call, mean ms per call
 * over the whole warmup, and the median that sets the samples per block. */
struct warmup {
	int calls;
	double first_ms, mean_ms, est_ms;
};

struct arm_stats {
	double med, min, max, mean, q1, q3;
	int n, dropped;
	unsigned clk_min, clk_med, clk_max;
};

static void summarize(const struct samples *s, int dropped, struct arm_stats *st)
{
	double sum = 0;
	double *clk = (double *)malloc(sizeof(double) * (s->n + 1));

	memset(st, 0, sizeof(*st));
	st->n = s->n;
	st->dropped = dropped;
	st->med = quant(s->t, s->n, 0.5);
	st->q1 = quant(s->t, s->n, 0.25);
	st->q3 = quant(s->t, s->n, 0.75);
	st->min = quant(s->t, s->n, 0);
	st->max = quant(s->t, s->n, 1);
	for (int i = 0; i < s->n; i++)
		sum += s->t[i];
	st->mean = s->n ? sum / s->n : NAN;
	if (clk) {
		for (int i = 0; i < s->n; i++)
			clk[i] = s->clk[i];
		st->clk_min = (unsigned)quant(clk, s->n, 0);
		st->clk_med = (unsigned)quant(clk, s->n, 0.5);
		st->clk_max = (unsigned)quant(clk, s->n, 1);
		free(clk);
	}
}

/* One cold sample (module comment, step 4).  Returns ms or -1 on error;
 * *clk and *throttled from NVML after the sample. */
static double sample(struct scen *S, entry_fn fn, int is_cand, int set,
		     unsigned *clk, int *throttled)
{
	float ms = 0;
	unsigned long long rs = 0;
	/* a baseline candidate writes elsewhere: the candidate's last timed
	 * output is checked after timing */
	void *target = is_cand ? S->out : S->out0;

	*clk = 0;
	*throttled = 0;
	if (fn) {
		if (cudaMemsetAsync(target, 0xFF, S->n_out * S->esz, S->hs) ||
		    cudaMemsetAsync(S->scratch, 0, S->scratch_bytes, S->hs))
			return -1;
	}
	kref::flush<<<grid_for(S->flush_n), 256, 0, S->hs>>>(S->flush, S->flush_n);
	if (cudaEventRecord(S->e0, S->hs))
		return -1;
	if (call_arm(S, fn, S->pin[set], target))
		return -1;
	/* The legacy default stream waits for all blocking streams, so the end
	 * event covers work the candidate put on cudaStreamPerThread or 0. */
	if (cudaEventRecord(S->e1, cudaStreamLegacy) || cudaDeviceSynchronize() ||
	    cudaEventElapsedTime(&ms, S->e0, S->e1))
		return -1;
	if (nvm.ok) {
		*clk = nv_u(nvm.clock, NVML_CLOCK_SM);
		if (nvm.reasons)
			nvm.reasons(nvm.dev, &rs);
		if ((rs & KTH_THROTTLE_MASK) ||
		    (dev.max_sm_mhz && *clk < S->o->throttle_frac * dev.max_sm_mhz))
			*throttled = 1;
	}
	return ms;
}

static double tflops_of(const struct kth_task *t, const struct kth_scenario *s,
			double *bytes)
{
	const int64_t *d = s->dims;
	double esz = s->dtype == KTRAJ_F32 ? 4 : 2, f;

	switch (t->op) {
	case KTRAJ_OP_ATTENTION_FWD:
		/* FA2/FA3 benchmark convention: causal counts half */
		f = 4.0 * d[0] * d[1] * d[3] * d[4] * d[5] / (s->causal ? 2 : 1);
		*bytes = esz * (2.0 * d[0] * d[1] * d[3] * d[5] +
				2.0 * d[0] * d[2] * d[4] * d[5]);
		break;
	case KTRAJ_OP_GEMM:
		f = 2.0 * d[0] * d[1] * d[2];
		*bytes = esz * ((double)d[0] * d[2] + (double)d[1] * d[2] +
				(double)d[0] * d[1]);
		break;
	default:
		f = 4.0 * d[0] * d[1];
		*bytes = esz * (2.0 * d[0] * d[1] + d[1]);
	}
	return f * t->flops_scale;
}

static void emit(int fd, const char *tag, kth_buf *b)
{
	size_t off = 0;

	kb_put(b, "\n", 1);
	if (write(fd, tag, 2) != 2)
		return;
	while (off < b->n) {
		ssize_t w = write(fd, b->s + off, b->n - off);

		if (w <= 0)
			return;
		off += (size_t)w;
	}
}

static void put_cmp(kth_buf *b, const char *key, const struct cmp *c)
{
	kb_key(b, key);
	kb_put(b, "{", 1);
	kb_key(b, "pass");
	kb_put(b, c->pass ? "true" : "false", c->pass ? 4 : 5);
	kb_key(b, "max_abs");
	kb_jnum(b, c->max_abs);
	kb_key(b, "max_rel");
	kb_jnum(b, c->max_rel);
	kb_key(b, "rel_l2");
	kb_jnum(b, c->rel_l2);
	kb_printf(b, ",\"mismatches\":%llu,\"nonfinite\":%llu}", c->mismatches,
		  c->nonfinite);
}

/* Run one scenario and write its result line.  Returns 0, or -1 when a
 * CUDA error leaves the context unusable (the child then exits 3). */
static int run_one(const struct kth_task *t, const struct kth_opts *o,
		   int sidx, entry_fn cand, entry_fn base, int fd,
		   int4 *flush, int64_t flush_n)
{
	struct scen SS, *S = &SS;
	const struct kth_scenario *s = &t->scen[sidx];
	kth_buf b, flags;
	struct cmp worst = { 0, 0, 0, 0, 0, 1 }, c, zc, cc, post = { 0, 0, 0, 0, 0, 1 };
	struct cmp base_worst = { 0, 0, 0, 0, 0, 1 };
	int base_checked = 0;
	const char *status = "ok", *reason = NULL;
	int correct = 1, fatal = 0, side = 0, determ = 1, inputs_ok = 1, rc;
	unsigned long long diffs = 0, h;
	struct samples sa = { 0 }, sc = { 0 };
	struct arm_stats ra = { 0 }, rcand = { 0 };
	struct warmup warm[2] = { { 0, NAN, NAN, NAN }, { 0, NAN, NAN, NAN } };
	double lo = NAN, hi = NAN, flops, bytes, side_ms = 0;
	int drop_a = 0, drop_c = 0, timed = 0, nblk = o->blocks, post_set = -1;
	double *blk_speed = NULL;

	memset(S, 0, sizeof(*S));
	S->t = t;
	S->s = s;
	S->o = o;
	S->cand = cand;
	S->base = base;
	S->flush = flush;
	S->flush_n = flush_n;
	kb_init(&b);
	kb_init(&flags);
	flops = tflops_of(t, s, &bytes);
	if (cudaStreamCreate(&S->hs) || cudaEventCreate(&S->e0) ||
	    cudaEventCreate(&S->e1)) {
		snprintf(S->err, sizeof(S->err), "stream/event creation failed");
		fatal = 1;
		goto result;
	}
	if (setup(S, o->seed, sidx)) {
		fatal = 1;
		goto result;
	}
	/* pristine hashes and references */
	for (int k = 0; k < S->K; k++) {
		ktraj_args a;

		for (int i = 0; i < S->nin; i++)
			if (hash_buf(S, S->pin[k][i], S->n_in[i] * S->esz,
				     &S->hash0[k][i])) {
				fatal = 1;
				goto result;
			}
		args_for(S, &a, S->pin[k], NULL);
		if (kref::reference(&a, S->ref_dev, S->hs) ||
		    cudaMemcpyAsync(S->ref_host[k], S->ref_dev,
				    2 * S->n_out * sizeof(float),
				    cudaMemcpyDeviceToHost, S->hs) ||
		    cudaStreamSynchronize(S->hs)) {
			snprintf(S->err, sizeof(S->err), "reference: %s",
				 cudaGetErrorString(cudaGetLastError()));
			fatal = 1;
			goto result;
		}
	}
	if (cudaMemsetAsync(S->ref_dev, 0xFF, 2 * S->n_out * sizeof(float), S->hs)) {
		fatal = 1;
		goto result;
	}
	/* negative controls */
	if (cudaMemsetAsync(S->out, 0, S->n_out * S->esz, S->hs) ||
	    compare_set(S, S->out, 0, &zc)) {
		fatal = 1;
		goto result;
	}
	kref::copy_wrap<<<grid_for(S->n_out), 256, 0, S->hs>>>(S->out, S->n_out,
		S->pin[0][0], S->n_in[0], s->dtype);
	if (compare_set(S, S->out, 0, &cc)) {
		fatal = 1;
		goto result;
	}
	if (zc.pass || cc.pass) {
		status = "invalid_scenario";
		reason = zc.pass ? "degenerate scenario: an all-zero output passes the check" :
			 "degenerate scenario: a copy of the input passes the check";
		correct = -1;
		goto result;
	}
	/* correctness */
	for (int k = 0; k <= S->K; k++) {
		int set = k < S->K ? k : 0; /* the last pass re-runs set 0 */
		double t0, t1, t2;

		for (int i = 0; i < S->nin; i++)
			if (cudaMemcpyAsync(S->work[i], S->pin[set][i],
					    S->n_in[i] * S->esz,
					    cudaMemcpyDeviceToDevice, S->hs)) {
				fatal = 1;
				goto result;
			}
		if (cudaMemsetAsync(S->out, 0xFF, S->n_out * S->esz, S->hs) ||
		    cudaMemsetAsync(S->scratch, 0, S->scratch_bytes, S->hs) ||
		    cudaStreamSynchronize(S->hs)) {
			fatal = 1;
			goto result;
		}
		t0 = wall_ms();
		rc = call_arm(S, cand, S->work, S->out);
		if (rc == -2) {
			status = "runtime_error";
			reason = S->err;
			correct = 0;
			goto result;
		}
		if (rc || cudaStreamSynchronize(S->hs)) {
			fatal = 1;
			goto result;
		}
		t1 = wall_ms();
		if (cudaDeviceSynchronize()) {
			fatal = 1;
			goto result;
		}
		t2 = wall_ms();
		/* Work still running on another stream after the harness stream
		 * drained (harness.md §2 row 1). */
		if (t2 - t1 > 0.2 && t2 - t1 > 0.1 * (t1 - t0)) {
			side = 1;
			side_ms = fmax(side_ms, t2 - t1);
		}
		for (int i = 0; i < S->nin; i++) {
			if (hash_buf(S, S->work[i], S->n_in[i] * S->esz, &h)) {
				fatal = 1;
				goto result;
			}
			if (h != S->hash0[set][i])
				inputs_ok = 0;
		}
		if (k == S->K) {
			if (cudaMemsetAsync(S->d_u64, 0, 8, S->hs)) {
				fatal = 1;
				goto result;
			}
			kref::diff16<<<grid_for(S->n_out * S->esz / 2), 256, 0, S->hs>>>(
				(const uint16_t *)S->out, (const uint16_t *)S->out0,
				S->n_out * S->esz / 2, S->d_u64);
			if (cudaMemcpyAsync(&diffs, S->d_u64, 8,
					    cudaMemcpyDeviceToHost, S->hs) ||
			    cudaStreamSynchronize(S->hs)) {
				fatal = 1;
				goto result;
			}
			determ = diffs == 0;
			break;
		}
		if (compare_set(S, S->out, set, &c)) {
			fatal = 1;
			goto result;
		}
		if (!c.pass)
			correct = 0;
		if (!c.pass || c.rel_l2 > worst.rel_l2 || k == 0) {
			if (worst.pass || !c.pass)
				worst = c;
		}
		if (k == 0 && cudaMemcpyAsync(S->out0, S->out, S->n_out * S->esz,
					      cudaMemcpyDeviceToDevice, S->hs)) {
			fatal = 1;
			goto result;
		}
	}
	if (!inputs_ok) {
		correct = 0;
		reason = "the candidate modified its inputs";
	} else if (!determ) {
		correct = 0;
		reason = "re-run of input set 0 is not bit-identical (race or nondeterminism)";
	} else if (!correct) {
		reason = worst.nonfinite ? "non-finite or unwritten (NaN-poisoned) outputs" :
			 "output differs from the fp32 reference beyond tolerance";
	}
	if (!correct) {
		status = "incorrect";
		goto result;
	}
	if (side)
		kb_put(&flags, "\"side_stream\"", 13);
	/* The baseline is held to the candidate's check on every input set: a
	 * speedup over a wrong baseline would compare unequal work. */
	for (int k = 0; base && k < S->K; k++) {
		for (int i = 0; i < S->nin; i++)
			if (cudaMemcpyAsync(S->work[i], S->pin[k][i], S->n_in[i] * S->esz,
					    cudaMemcpyDeviceToDevice, S->hs)) {
				fatal = 1;
				goto result;
			}
		if (cudaMemsetAsync(S->out0, 0xFF, S->n_out * S->esz, S->hs) ||
		    cudaMemsetAsync(S->scratch, 0, S->scratch_bytes, S->hs)) {
			fatal = 1;
			goto result;
		}
		rc = call_arm(S, base, S->work, S->out0);
		if (rc == -2) {
			status = "runtime_error";
			reason = S->err;
			goto result;
		}
		if (rc || cudaDeviceSynchronize() || compare_set(S, S->out0, k, &c)) {
			fatal = 1;
			goto result;
		}
		/* keep the first failure, else the largest error */
		if (!base_checked || (base_worst.pass && (!c.pass || c.rel_l2 > base_worst.rel_l2)))
			base_worst = c;
		base_checked = 1;
	}
	if (base_checked && !base_worst.pass) {
		if (flags.n)
			kb_put(&flags, ",", 1);
		kb_put(&flags, "\"baseline_incorrect\"", 20);
		status = "flagged";
		reason = "the baseline's output differs from the fp32 reference: no speedup against it";
		goto result;
	}
	if (o->no_timing)
		goto result;

	/* ---- timing ---- */
	{
		entry_fn arm[2] = { base, cand }; /* base NULL = reference */
		struct samples *sm[2] = { &sa, &sc };
		int *drop[2] = { &drop_a, &drop_c };
		int nper[2], counter = 0;
		double sleep_ms = 0;

		/* no persisting lines may survive the flush (harness.md §2
		 * row 13); a device without the feature just says so */
		cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
		cudaGetLastError();
		/* samples per block from the median wall time of one warmup
		 * call (call and synchronize): kth_samples_per_block says why
		 * not the mean */
		for (int r = 0; r < 2; r++) {
			double t0 = wall_ms(), wt[KTH_WARMUP_KEEP];
			int calls = 0;

			do {
				double c0 = wall_ms();

				rc = call_arm(S, arm[r], S->pin[calls % S->K],
					      r == 1 ? S->out : S->out0);
				if (rc || cudaStreamSynchronize(S->hs)) {
					if (rc == -2) {
						status = "runtime_error";
						reason = S->err;
						correct = 0;
						goto result;
					}
					fatal = 1;
					goto result;
				}
				if (calls < KTH_WARMUP_KEEP)
					wt[calls] = wall_ms() - c0;
				calls++;
			} while ((wall_ms() - t0 < o->warmup_ms ||
				  calls < o->warmup_calls) && calls < 100000);
			warm[r].calls = calls;
			warm[r].first_ms = wt[0];
			warm[r].mean_ms = (wall_ms() - t0) / calls;
			nper[r] = kth_samples_per_block(wt, calls, o->budget_ms, o->blocks,
							o->min_samples, o->max_samples,
							&warm[r].est_ms);
		}
		for (int blk = 0; blk < nblk; blk++) {
			for (int j = 0; j < 2; j++) {
				int r = (blk % 2 == 0) ? j : 1 - j;
				int got = 0, tries = 0;

				cudaCtxResetPersistingL2Cache();
				cudaGetLastError();
				while (got < nper[r] && tries < 3 * nper[r]) {
					unsigned clk;
					int thr, set = counter++ % S->K;
					double ms = sample(S, arm[r], r == 1, set, &clk, &thr);

					tries++;
					if (ms < 0) {
						if (S->err[0] == 0)
							snprintf(S->err, sizeof(S->err), "%s",
								 cudaGetErrorString(cudaGetLastError()));
						fatal = 1;
						goto result;
					}
					if (thr) {
						(*drop[r])++;
						if (sleep_ms < 1000) {
							usleep(50000);
							sleep_ms += 50;
						}
						continue;
					}
					push(sm[r], ms, blk, clk);
					got++;
					if (r == 1)
						post_set = set;
				}
			}
			/* the reference's timing output leaves the device */
			cudaMemsetAsync(S->ref_tout, 0xFF, 2 * S->n_out * sizeof(float), S->hs);
		}
		timed = sa.n > 0 && sc.n > 0;
	}
	/* post-timing check of the last timed output (harness.md §2 row 16) */
	if (post_set >= 0) {
		if (compare_set(S, S->out, post_set, &post)) {
			fatal = 1;
			goto result;
		}
		for (int k = 0; k < S->K; k++)
			for (int i = 0; i < S->nin; i++) {
				if (hash_buf(S, S->pin[k][i], S->n_in[i] * S->esz, &h)) {
					fatal = 1;
					goto result;
				}
				if (h != S->hash0[k][i])
					inputs_ok = 0;
			}
		if (!post.pass || !inputs_ok) {
			correct = 0;
			status = "incorrect";
			reason = !inputs_ok ? "inputs modified during timing" :
				 "the output of the last timed call is wrong (correct only on early calls)";
		}
	}
	if (timed) {
		summarize(&sa, drop_a, &ra);
		summarize(&sc, drop_c, &rcand);
		bootstrap(&sa, &sc, nblk, o->bootstrap, &lo, &hi);
		blk_speed = (double *)calloc(nblk, sizeof(double));
		for (int blk = 0; blk_speed && blk < nblk; blk++) {
			double *va = (double *)malloc(sizeof(double) * (sa.n + 1));
			double *vc = (double *)malloc(sizeof(double) * (sc.n + 1));
			int na = 0, nc = 0;

			if (va && vc) {
				for (int i = 0; i < sa.n; i++)
					if (sa.blk[i] == blk)
						va[na++] = sa.t[i];
				for (int i = 0; i < sc.n; i++)
					if (sc.blk[i] == blk)
						vc[nc++] = sc.t[i];
				blk_speed[blk] = na && nc ? qmedian(va, na) / qmedian(vc, nc) : NAN;
			}
			free(va);
			free(vc);
		}
		if (o->sanity_gate) {
			double tf = flops / (rcand.med * 1e-3) / 1e12;
			double gb = bytes / (rcand.med * 1e-3) / 1e9;
			double peak = s->dtype == KTRAJ_F32 ? dev.peak_tflops32 :
				      dev.peak_tflops16;

			if (tf > peak || (dev.peak_gbps > 0 && gb > dev.peak_gbps)) {
				if (flags.n)
					kb_put(&flags, ",", 1);
				kb_put(&flags, "\"impossible\"", 12);
			}
		}
	}
	if (correct == 1 && flags.n && !strcmp(status, "ok")) {
		status = "flagged";
		reason = strstr(flags.s, "impossible") ?
			 "throughput above the chip's peak: the timing cannot be real" :
			 "work ran on another stream after the harness stream finished";
	}
result:
	if (fatal) {
		status = "runtime_error";
		correct = 0;
		reason = S->err[0] ? S->err : cudaGetErrorString(cudaGetLastError());
	}
	kb_put(&b, "{\"type\":\"result\"", 16);
	kb_key(&b, "task");
	kb_jstr(&b, t->name);
	kb_key(&b, "scenario");
	kb_jstr(&b, s->name);
	kb_printf(&b, ",\"index\":%d", sidx);
	kb_key(&b, "status");
	kb_jstr(&b, status);
	kb_key(&b, "correct");
	kb_put(&b, correct == 1 ? "true" : correct == 0 ? "false" : "null",
	       correct == 1 ? 4 : correct == 0 ? 5 : 4);
	kb_key(&b, "reason");
	kb_jstr(&b, reason);
	kb_printf(&b, ",\"flags\":[%s]", flags.s ? flags.s : "");
	kb_printf(&b, ",\"params\":{\"op\":\"%s\",\"dtype\":\"%s\",\"causal\":%s,\"dims\":[%lld,%lld,%lld,%lld,%lld,%lld]",
		  t->op == KTRAJ_OP_ATTENTION_FWD ? "attention_fwd" :
		  t->op == KTRAJ_OP_GEMM ? "gemm" : "rmsnorm",
		  s->dtype == KTRAJ_F32 ? "fp32" : s->dtype == KTRAJ_F16 ? "fp16" : "bf16",
		  s->causal ? "true" : "false", (long long)s->dims[0],
		  (long long)s->dims[1], (long long)s->dims[2],
		  (long long)s->dims[3], (long long)s->dims[4],
		  (long long)s->dims[5]);
	kb_key(&b, "scale");
	kb_jnum(&b, s->scale);
	kb_put(&b, "}", 1);
	/* check */
	kb_printf(&b, ",\"check\":{\"input_sets\":%d,\"seeds\":[", S->K);
	for (int k = 0; k < S->K; k++)
		kb_printf(&b, "%s\"%016llx\"", k ? "," : "", (unsigned long long)S->seed[k]);
	kb_put(&b, "],\"dists\":[", 11);
	for (int k = 0; k < S->K; k++)
		kb_printf(&b, "%s\"%s\"", k ? "," : "", dist_names[S->dist[k] % 7]);
	kb_printf(&b, "],\"master_seed\":\"%016llx\"", (unsigned long long)o->seed);
	{
		const struct kth_tol *tol = &t->tol[s->dtype];

		kb_printf(&b, ",\"atol\":%g,\"rtol\":%g,\"rel_l2_tol\":%g",
			  tol->atol, tol->rtol, tol->rel_l2);
	}
	put_cmp(&b, "worst", &worst);
	kb_printf(&b, ",\"inputs_unchanged\":%s,\"deterministic\":%s,\"differing_words\":%llu",
		  inputs_ok ? "true" : "false", determ ? "true" : "false", diffs);
	kb_printf(&b, ",\"neg_zeros_rejected\":%s,\"neg_copy_rejected\":%s",
		  zc.pass ? "false" : "true", cc.pass ? "false" : "true");
	kb_key(&b, "side_work_ms");
	kb_jnum(&b, side_ms);
	if (post_set >= 0)
		put_cmp(&b, "post_timing", &post);
	if (base_checked)
		put_cmp(&b, "baseline", &base_worst);
	kb_put(&b, "}", 1);
	/* timing */
	kb_key(&b, "time_ms");
	kb_jnum(&b, timed ? rcand.med : NAN);
	kb_key(&b, "min_ms");
	kb_jnum(&b, timed ? rcand.min : NAN);
	kb_key(&b, "max_ms");
	kb_jnum(&b, timed ? rcand.max : NAN);
	kb_key(&b, "mean_ms");
	kb_jnum(&b, timed ? rcand.mean : NAN);
	kb_key(&b, "q1_ms");
	kb_jnum(&b, timed ? rcand.q1 : NAN);
	kb_key(&b, "q3_ms");
	kb_jnum(&b, timed ? rcand.q3 : NAN);
	kb_printf(&b, ",\"n\":%d", timed ? rcand.n : 0);
	kb_key(&b, "ref_time_ms");
	kb_jnum(&b, timed ? ra.med : NAN);
	kb_key(&b, "ref_min_ms");
	kb_jnum(&b, timed ? ra.min : NAN);
	kb_key(&b, "ref_max_ms");
	kb_jnum(&b, timed ? ra.max : NAN);
	kb_printf(&b, ",\"ref_n\":%d", timed ? ra.n : 0);
	kb_key(&b, "reference");
	if (base == kth_cudnn_entry) {
		int used, count, variant;
		long long ws;

		kb_jstr(&b, "cudnn");
		if (kth_cudnn_engine(&used, &count, &ws, &variant))
			kb_printf(&b, ",\"baseline_plan\":{\"heuristics_result\":%d,\"results\":%d,\"workspace_bytes\":%lld,\"graph_variant\":%d}",
				  used, count, ws, variant);
	}
	else if (base)
		kb_jstr(&b, "baseline");
	else
		kb_jstr(&b, t->reference);
	kb_key(&b, "speedup");
	kb_jnum(&b, timed ? ra.med / rcand.med : NAN);
	kb_key(&b, "speedup_ci");
	kb_put(&b, "[", 1);
	kb_jnum(&b, lo);
	kb_put(&b, ",", 1);
	kb_jnum(&b, hi);
	kb_put(&b, "]", 1);
	kb_key(&b, "block_speedups");
	kb_put(&b, "[", 1);
	for (int i = 0; timed && blk_speed && i < nblk; i++) {
		if (i)
			kb_put(&b, ",", 1);
		kb_jnum(&b, blk_speed[i]);
	}
	kb_put(&b, "]", 1);
	/* the warmup of each arm (reference or baseline first, candidate
	 * second): what set the samples per block */
	kb_key(&b, "warmup");
	kb_put(&b, "[", 1);
	for (int r = 0; r < 2; r++) {
		kb_printf(&b, "%s{\"calls\":%d", r ? "," : "", warm[r].calls);
		kb_key(&b, "first_ms");
		kb_jnum(&b, warm[r].first_ms);
		kb_key(&b, "mean_ms");
		kb_jnum(&b, warm[r].mean_ms);
		kb_key(&b, "est_ms");
		kb_jnum(&b, warm[r].est_ms);
		kb_put(&b, "}", 1);
	}
	kb_put(&b, "]", 1);
	kb_printf(&b, ",\"throttled_dropped\":%d,\"ref_throttled_dropped\":%d", drop_c, drop_a);
	kb_printf(&b, ",\"sm_clock_mhz\":{\"min\":%u,\"median\":%u,\"max\":%u}",
		  rcand.clk_min, rcand.clk_med, rcand.clk_max);
	kb_key(&b, "flops");
	kb_jnum(&b, flops);
	kb_key(&b, "bytes");
	kb_jnum(&b, bytes);
	kb_key(&b, "tflops");
	kb_jnum(&b, timed ? flops / (rcand.med * 1e-3) / 1e12 : NAN);
	kb_key(&b, "gbps");
	kb_jnum(&b, timed ? bytes / (rcand.med * 1e-3) / 1e9 : NAN);
	kb_key(&b, "ref_tflops");
	kb_jnum(&b, timed ? flops / (ra.med * 1e-3) / 1e12 : NAN);
	kb_key(&b, "flops_formula");
	kb_jstr(&b, t->flops_formula);
	kb_printf(&b, ",\"protocol\":{\"version\":%d,\"warmup_ms\":%g,\"blocks\":%d,\"budget_ms\":%g,\"min_samples\":%d,\"max_samples\":%d,\"flush_bytes\":%lld,\"throttle_frac\":%g,\"bootstrap\":%d,\"timer\":\"cuda_events+device_sync\"}",
		  KTH_PROTOCOL_VERSION, o->warmup_ms, nblk, o->budget_ms,
		  o->min_samples, o->max_samples, (long long)flush_n * 16,
		  o->throttle_frac, o->bootstrap);
	kb_printf(&b, ",\"fingerprint_id\":\"%s\",\"fingerprint\":", dev.fp_id);
	kb_put(&b, dev.fp.s, dev.fp.n);
	{
		unsigned long long rs = 0;
		unsigned pw = 0, tc = 0;

		if (nvm.ok) {
			if (nvm.reasons)
				nvm.reasons(nvm.dev, &rs);
			if (nvm.power)
				nvm.power(nvm.dev, &pw);
			if (nvm.temp)
				nvm.temp(nvm.dev, 0, &tc);
		}
		kb_printf(&b, ",\"state\":{\"sm_clock_mhz\":%u,\"mem_clock_mhz\":%u,\"temp_c\":%u,\"power_w\":%.1f,\"clock_event_reasons\":\"0x%llx\"}",
			  nv_u(nvm.clock, NVML_CLOCK_SM), nv_u(nvm.clock, NVML_CLOCK_MEM),
			  tc, pw / 1000.0, rs);
	}
	kb_put(&b, "}", 1);
	kb_printf(&b, ",\"fingerprint_hash\":\"%s\"}", dev.fp_id);
	emit(fd, "R ", &b);
	kb_free(&b);
	kb_free(&flags);
	free(blk_speed);
	free(sa.t); free(sa.blk); free(sa.clk);
	free(sc.t); free(sc.blk); free(sc.clk);
	free_scen(S);
	if (S->hs)
		cudaStreamDestroy(S->hs);
	if (S->e0)
		cudaEventDestroy(S->e0);
	if (S->e1)
		cudaEventDestroy(S->e1);
	return fatal || cudaGetLastError() != cudaSuccess ? -1 : 0;
}

static entry_fn load_entry(const char *so, char *err, size_t el)
{
	void *h;
	entry_fn f;

	if (!so)
		return NULL;
	/* RTLD_LOCAL: nothing the candidate defines can interpose on the
	 * harness's own symbols (timers, events). */
	h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(err, el, "dlopen: %s", dlerror());
		return NULL;
	}
	*(void **)&f = dlsym(h, KTRAJ_ENTRY_SYMBOL);
	if (!f)
		snprintf(err, el, "the object has no %s symbol", KTRAJ_ENTRY_SYMBOL);
	return f;
}

extern "C" int kth_child(const struct kth_task *t, const struct kth_opts *o,
			 const struct kth_host *h, const char *cand_so,
			 const char *base_so, const int *sel, int nsel,
			 int first, int fd)
{
	int n = 0, dv = 0;
	char err[512] = "";
	entry_fn cand, base = NULL;
	int cudnn_ok = 0;
	char cudnn_err[512] = "";
	int4 *flush = NULL;
	int64_t flush_n;
	char line[64];

	if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1)
		return 4;
	if (cudaGetDevice(&dv) || cudaGetDeviceProperties(&dev.p, dv))
		return 4;
	/* the library is opened first: its version is part of the fingerprint */
	if (o->baseline && !strcmp(o->baseline, "cudnn") && base_so)
		cudnn_ok = kth_cudnn_load(base_so, cudnn_err, sizeof(cudnn_err)) == 0;
	build_fingerprint(h);
	rng_state ^= o->seed;
	cand = load_entry(cand_so, err, sizeof(err));
	if (cand && base_so && cudnn_ok)
		base = kth_cudnn_entry;
	else if (cand && base_so && cudnn_err[0])
		snprintf(err, sizeof(err), "baseline: %s", cudnn_err);
	else if (cand && base_so)
		base = load_entry(base_so, err, sizeof(err));
	/* L2 flush buffer: 2x the L2 size (module comment, step 4) */
	flush_n = (int64_t)dev.p.l2CacheSize * 2 / 16;
	if (flush_n < 1 << 20)
		flush_n = 1 << 20;
	if (cudaMalloc(&flush, flush_n * 16) || cudaMemset(flush, 0, flush_n * 16))
		return 3;
	for (int i = first; i < nsel; i++) {
		snprintf(line, sizeof(line), "S %d\n", i);
		if (write(fd, line, strlen(line)) < 0)
			return 1;
		if (!cand || (base_so && !base)) {
			kth_buf b;

			kb_init(&b);
			kb_printf(&b, "{\"type\":\"result\",\"task\":");
			kb_jstr(&b, t->name);
			kb_key(&b, "scenario");
			kb_jstr(&b, t->scen[sel[i]].name);
			kb_printf(&b, ",\"index\":%d,\"status\":\"rejected\",\"correct\":false", sel[i]);
			kb_key(&b, "reason");
			kb_jstr(&b, err);
			kb_printf(&b, ",\"fingerprint_id\":\"%s\",\"fingerprint\":", dev.fp_id);
			kb_put(&b, dev.fp.s, dev.fp.n);
			kb_put(&b, "}}", 2);
			emit(fd, "R ", &b);
			kb_free(&b);
			continue;
		}
		if (run_one(t, o, sel[i], cand, base, fd, flush, flush_n))
			return 3; /* context may be poisoned: fresh process */
	}
	return 0;
}
