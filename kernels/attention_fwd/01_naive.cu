/*
 * 01_naive.cu - attention forward, rung 1 of the ladder: one thread per
 * query row, two passes over all keys straight from global memory (pass 1:
 * row maximum; pass 2: exponentials, row sum and the weighted sum of V with
 * the D-wide accumulator in a per-thread array, i.e. local memory).
 * Correct for every scenario; slow on purpose: it is the baseline the next
 * rungs improve on.  ABI: kernels/include/ktraj_kernel.h.
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

template <typename T, int D>
__global__ void attn_naive(const T *q, const T *k, const T *v, T *o,
			   int64_t Hq, int64_t Hkv, int64_t Sq, int64_t Sk,
			   int causal, float scale)
{
	int64_t row = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
	int64_t bh = blockIdx.y, b = bh / Hq, h = bh % Hq, hk = h / (Hq / Hkv);
	const T *qr, *kb, *vb;
	float acc[D], m = -INFINITY, l = 0;
	int64_t kend;

	if (row >= Sq)
		return;
	qr = q + (bh * Sq + row) * D;
	kb = k + (b * Hkv + hk) * Sk * D;
	vb = v + (b * Hkv + hk) * Sk * D;
	kend = causal ? min(Sk, row + (Sk - Sq) + 1) : Sk;
	for (int64_t j = 0; j < kend; j++) {
		float s = 0;
		for (int d = 0; d < D; d++)
			s += f(qr[d]) * f(kb[j * D + d]);
		m = fmaxf(m, s * scale);
	}
	for (int d = 0; d < D; d++)
		acc[d] = 0;
	for (int64_t j = 0; j < kend; j++) {
		float s = 0, p;
		for (int d = 0; d < D; d++)
			s += f(qr[d]) * f(kb[j * D + d]);
		p = __expf(s * scale - m);
		l += p;
		for (int d = 0; d < D; d++)
			acc[d] += p * f(vb[j * D + d]);
	}
	for (int d = 0; d < D; d++)
		o[(bh * Sq + row) * D + d] = cvt<T>(acc[d] / l);
}

template <typename T, int D>
static int launch(const ktraj_args *a, cudaStream_t s)
{
	dim3 grid((unsigned)((a->dims[3] + 127) / 128), (unsigned)(a->dims[0] * a->dims[1]));

	attn_naive<T, D><<<grid, 128, 0, s>>>((const T *)a->in[0], (const T *)a->in[1],
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
