/*
 * 01_smem_tiled.cu - GEMM sample candidate (C = A B^T): 128x128 block tile,
 * 8x8 outputs per thread from shared-memory tiles of 16 along K, fp32
 * accumulation on the CUDA cores (the classic SGEMM register blocking,
 * e.g. https://siboehm.com/articles/22/CUDA-MMM).  No tensor cores: the
 * starting point of a GEMM trajectory.
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

template <typename T>
__global__ void __launch_bounds__(256)
gemm_tn(const T *A, const T *B, T *C, int64_t M, int64_t N, int64_t K)
{
	__shared__ float as[16][128 + 4], bs[16][128 + 4];
	const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
	const int64_t m0 = (int64_t)blockIdx.y * 128, n0 = (int64_t)blockIdx.x * 128;
	float acc[8][8] = { { 0 } };

	for (int64_t k0 = 0; k0 < K; k0 += 16) {
		for (int e = threadIdx.x; e < 128 * 16; e += 256) {
			int r = e / 16, c = e % 16;
			int64_t kk = k0 + c;

			as[c][r] = (m0 + r < M && kk < K) ? f(A[(m0 + r) * K + kk]) : 0.f;
			bs[c][r] = (n0 + r < N && kk < K) ? f(B[(n0 + r) * K + kk]) : 0.f;
		}
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < 16; kk++) {
			float av[8], bv[8];
#pragma unroll
			for (int i = 0; i < 8; i++) {
				av[i] = as[kk][ty * 8 + i];
				bv[i] = bs[kk][tx * 8 + i];
			}
#pragma unroll
			for (int i = 0; i < 8; i++)
#pragma unroll
				for (int j = 0; j < 8; j++)
					acc[i][j] += av[i] * bv[j];
		}
		__syncthreads();
	}
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 8; j++) {
			int64_t r = m0 + ty * 8 + i, c = n0 + tx * 8 + j;

			if (r < M && c < N)
				C[r * N + c] = cvt<T>(acc[i][j]);
		}
}

extern "C" int ktraj_entry(const ktraj_args *a, cudaStream_t s)
{
	dim3 g((unsigned)((a->dims[1] + 127) / 128), (unsigned)((a->dims[0] + 127) / 128));

	if (a->abi_version != KTRAJ_ABI_VERSION || a->op != KTRAJ_OP_GEMM)
		return 1;
	if (a->dtype == KTRAJ_BF16)
		gemm_tn<__nv_bfloat16><<<g, 256, 0, s>>>((const __nv_bfloat16 *)a->in[0],
			(const __nv_bfloat16 *)a->in[1], (__nv_bfloat16 *)a->out[0],
			a->dims[0], a->dims[1], a->dims[2]);
	else if (a->dtype == KTRAJ_F16)
		gemm_tn<__half><<<g, 256, 0, s>>>((const __half *)a->in[0],
			(const __half *)a->in[1], (__half *)a->out[0],
			a->dims[0], a->dims[1], a->dims[2]);
	else
		return 1;
	return 0;
}
