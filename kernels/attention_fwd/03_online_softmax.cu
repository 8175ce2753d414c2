/*
 * 03_online_softmax.cu - attention forward, rung 3: flash-style single pass.
 * Rung 2 read every K tile twice (max pass, then sum pass).  Here each
 * 32-key tile is scored once into registers, the running row maximum and
 * sum are rescaled once per tile (online softmax: Milakov & Gimelshein,
 * arXiv 1805.02867; FlashAttention, Dao et al., arXiv 2205.14135), and V is
 * accumulated in the same pass: half the Q.K work and half the K traffic of
 * rung 2.  K and V tiles are loaded with 16-byte vector loads.
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
attn_online(const T *q, const T *k, const T *v, T *o, int64_t Hq, int64_t Hkv,
	    int64_t Sq, int64_t Sk, int causal, float scale)
{
	__shared__ __align__(16) T ks[KT][D], vs[KT][D];
	int64_t row0 = (int64_t)blockIdx.x * ROWS, row = row0 + threadIdx.x;
	int64_t bh = blockIdx.y, b = bh / Hq, h = bh % Hq, hk = h / (Hq / Hkv);
	const T *kb = k + (b * Hkv + hk) * Sk * D, *vb = v + (b * Hkv + hk) * Sk * D;
	float qr[D], acc[D], m = -INFINITY, l = 0;
	int64_t last = min(row0 + ROWS, Sq) - 1;
	int64_t kend = causal ? min(Sk, last + (Sk - Sq) + 1) : Sk;
	int64_t mykend = causal ? min(Sk, row + (Sk - Sq) + 1) : Sk;
	bool live = row < Sq;
	const float l2e = 1.4426950408889634f;

#pragma unroll
	for (int d = 0; d < D; d++) {
		qr[d] = live ? f(q[(bh * Sq + row) * D + d]) * scale * l2e : 0.f;
		acc[d] = 0;
	}
	for (int64_t t0 = 0; t0 < kend; t0 += KT) {
		float s[KT], mt = -INFINITY;

		__syncthreads();
		for (int e = threadIdx.x; e < KT * D / 8; e += ROWS) {
			int r = e / (D / 8), c = (e % (D / 8)) * 8;
			uint4 zk = make_uint4(0, 0, 0, 0), zv = zk;

			if (t0 + r < Sk) {
				zk = *(const uint4 *)(kb + (t0 + r) * D + c);
				zv = *(const uint4 *)(vb + (t0 + r) * D + c);
			}
			*(uint4 *)&ks[r][c] = zk;
			*(uint4 *)&vs[r][c] = zv;
		}
		__syncthreads();
#pragma unroll
		for (int j = 0; j < KT; j++) {
			float x = 0;
#pragma unroll
			for (int d = 0; d < D; d++)
				x += qr[d] * f(ks[j][d]);
			s[j] = (live && t0 + j < mykend) ? x : -INFINITY;
			mt = fmaxf(mt, s[j]);
		}
		float mn = fmaxf(m, mt);
		if (mn == -INFINITY)
			continue;
		float corr = exp2f(m - mn);
		l *= corr;
#pragma unroll
		for (int d = 0; d < D; d++)
			acc[d] *= corr;
#pragma unroll
		for (int j = 0; j < KT; j++) {
			float p = exp2f(s[j] - mn);
			l += p;
#pragma unroll
			for (int d = 0; d < D; d++)
				acc[d] += p * f(vs[j][d]);
		}
		m = mn;
	}
	if (live)
		for (int d = 0; d < D; d++)
			o[(bh * Sq + row) * D + d] = cvt<T>(acc[d] / l);
}

template <typename T, int D>
static int launch(const ktraj_args *a, cudaStream_t s)
{
	dim3 grid((unsigned)((a->dims[3] + ROWS - 1) / ROWS), (unsigned)(a->dims[0] * a->dims[1]));

	attn_online<T, D><<<grid, ROWS, 0, s>>>((const T *)a->in[0], (const T *)a->in[1],
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
