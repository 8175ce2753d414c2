/*
 * 02_tiled_smem.cu - attention forward, rung 2: the two-pass algorithm of
 * rung 1, but a block of 64 query rows stages 64-key tiles of K and V in
 * shared memory, so each K/V element is read from global memory once per
 * block instead of once per row (64x less global/L2 traffic), and the query
 * row sits in registers as fp32.  Still two passes over K (max, then sum).
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <ktraj_kernel.h>

template <typename T> __device__ __forceinline__ float f(T x);
template <> __device__ __forceinline__ float f(__nv_bfloat16 x) { return __bfloat162float(x); }
template <> __device__ __forceinline__ float f(__half x) { return __half2float(x); }
template <typename T> __device__ __forceinline__ T cvt(float x);
template <> __device__ __forceinline__ __nv_bfloat16 cvt(float x) { return __float2bfloat16(x); }
template <> __device__ __forceinline__ __half cvt(float x) { return __float2half(x); }

#define ROWS 64
#define KT 32

template <typename T, int D>
__global__ void __launch_bounds__(ROWS)
attn_tiled(const T *q, const T *k, const T *v, T *o, int64_t Hq, int64_t Hkv,
	   int64_t Sq, int64_t Sk, int causal, float scale)
{
	__shared__ T ks[KT][D], vs[KT][D];
	int64_t row0 = (int64_t)blockIdx.x * ROWS, row = row0 + threadIdx.x;
	int64_t bh = blockIdx.y, b = bh / Hq, h = bh % Hq, hk = h / (Hq / Hkv);
	const T *kb = k + (b * Hkv + hk) * Sk * D, *vb = v + (b * Hkv + hk) * Sk * D;
	float qr[D], acc[D], m = -INFINITY, l = 0;
	int64_t last = min(row0 + ROWS, Sq) - 1;
	int64_t kend = causal ? min(Sk, last + (Sk - Sq) + 1) : Sk;
	int64_t mykend = causal ? row + (Sk - Sq) + 1 : Sk;
	bool live = row < Sq;

#pragma unroll
	for (int d = 0; d < D; d++) {
		qr[d] = live ? f(q[(bh * Sq + row) * D + d]) * scale : 0.f;
		acc[d] = 0;
	}
	for (int pass = 0; pass < 2; pass++) {
		for (int64_t t0 = 0; t0 < kend; t0 += KT) {
			__syncthreads();
			for (int e = threadIdx.x; e < KT * D; e += ROWS) {
				int r = e / D, c = e % D;
				bool in = t0 + r < Sk;
				ks[r][c] = in ? kb[(t0 + r) * D + c] : cvt<T>(0.f);
				if (pass)
					vs[r][c] = in ? vb[(t0 + r) * D + c] : cvt<T>(0.f);
			}
			__syncthreads();
			for (int j = 0; j < KT; j++) {
				int64_t key = t0 + j;
				float s = 0;

				if (!live || key >= Sk || key >= mykend)
					continue;
#pragma unroll
				for (int d = 0; d < D; d++)
					s += qr[d] * f(ks[j][d]);
				if (pass == 0) {
					m = fmaxf(m, s);
				} else {
					float p = __expf(s - m);
					l += p;
#pragma unroll
					for (int d = 0; d < D; d++)
						acc[d] += p * f(vs[j][d]);
				}
			}
		}
	}
	if (live)
		for (int d = 0; d < D; d++)
			o[(bh * Sq + row) * D + d] = cvt<T>(acc[d] / l);
}

template <typename T, int D>
static int launch(const ktraj_args *a, cudaStream_t s)
{
	dim3 grid((unsigned)((a->dims[3] + ROWS - 1) / ROWS), (unsigned)(a->dims[0] * a->dims[1]));

	attn_tiled<T, D><<<grid, ROWS, 0, s>>>((const T *)a->in[0], (const T *)a->in[1],
		(const T *)a->in[2], (T *)a->out[0], a->dims[1], a->dims[2],
		a->dims[3], a->dims[4], a->causal, a->scale);
	return 0;
}

template <typename T>
static int by_dim(const ktraj_args *a, cudaStream_t s)
{
	switch (a->dims[5]) {
	case 64: return launch<T, 64>(a, s);
	case 128: return launch<T, 128>(a, s);
	case 256: return launch<T, 256>(a, s);
	}
	return 1;
}

extern "C" int ktraj_entry(const ktraj_args *a, cudaStream_t s)
{
	if (a->abi_version != KTRAJ_ABI_VERSION || a->op != KTRAJ_OP_ATTENTION_FWD)
		return 1;
	if (a->dtype == KTRAJ_BF16)
		return by_dim<__nv_bfloat16>(a, s);
	if (a->dtype == KTRAJ_F16)
		return by_dim<__half>(a, s);
	return 1;
}
