/*
 * 05_mma_pipelined.cu - attention forward, rung 5: rung 4's tensor-core
 * algorithm with the memory side fixed.  (1) K and V tiles arrive with
 * cp.async (16-byte, L2-only, zero-filled past the end) into two shared
 * buffers, so the next tile loads while this one is computed (the
 * FlashAttention-2 / CUTLASS multistage pattern); (2) V stays row-major in
 * shared memory and its B fragments come from ldmatrix.x4.trans instead of
 * rung 4's element-wise transposed stores; (3) 8 warps own 128 query rows
 * (4 warps at D=256, for registers), halving K/V shared-memory fills per
 * row.  PTX ISA: "cp.async", "ldmatrix", "mma.m16n8k16".
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <ktraj_kernel.h>

__device__ __forceinline__ void cp16(void *dst, const void *src, bool valid)
{
	unsigned d = (unsigned)__cvta_generic_to_shared(dst);
	int n = valid ? 16 : 0;

	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(d), "l"(src), "r"(n));
}
__device__ __forceinline__ void cp_commit(void) { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_wait(void) { asm volatile("cp.async.wait_group %0;\n" :: "n"(N)); }
__device__ __forceinline__ void ldsm_x4_t(uint32_t r[4], const void *p)
{
	unsigned a = (unsigned)__cvta_generic_to_shared(p);

	asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
		     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
}

template <typename T> struct mma;
template <> struct mma<__nv_bfloat16> {
	static __device__ __forceinline__ void run(float c[4], const uint32_t a[4], const uint32_t b[2])
	{
		asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
			     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
			     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
			     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
	}
	static __device__ __forceinline__ uint32_t pack(float x, float y)
	{
		__nv_bfloat162 h = __floats2bfloat162_rn(x, y);
		return *(uint32_t *)&h;
	}
};
template <> struct mma<__half> {
	static __device__ __forceinline__ void run(float c[4], const uint32_t a[4], const uint32_t b[2])
	{
		asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
			     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
			     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
			     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
	}
	static __device__ __forceinline__ uint32_t pack(float x, float y)
	{
		__half2 h = __floats2half2_rn(x, y);
		return *(uint32_t *)&h;
	}
};

template <typename T, int D, int KT, int NW>
__global__ void __launch_bounds__(32 * NW)
attn_mma2(const T *__restrict__ q, const T *__restrict__ k, const T *__restrict__ v,
	  T *__restrict__ o, int64_t Hq, int64_t Hkv, int64_t Sq, int64_t Sk,
	  int causal, float scale)
{
	constexpr int BM = 16 * NW, NT = 32 * NW, QP = D + 8;
	extern __shared__ __align__(16) unsigned char smem[];
	T *Qs = (T *)smem;              /* [BM][QP]     */
	T *Ks = Qs + BM * QP;           /* [2][KT][QP]  */
	T *Vs = Ks + 2 * KT * QP;       /* [2][KT][QP]  */
	const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
	const int g = lane >> 2, tg = lane & 3;
	const int64_t q0 = (int64_t)blockIdx.x * BM;
	const int64_t bh = blockIdx.y, b = bh / Hq, h = bh % Hq, hk = h / (Hq / Hkv);
	const T *qb = q + bh * Sq * D;
	const T *kb = k + (b * Hkv + hk) * Sk * D, *vb = v + (b * Hkv + hk) * Sk * D;
	const float sl2 = scale * 1.4426950408889634f;
	const int64_t r0 = q0 + warp * 16 + g, r1 = r0 + 8;
	const int64_t off = Sk - Sq;
	float O[D / 8][4], m0 = -INFINITY, m1 = -INFINITY, l0 = 0, l1 = 0;
	int64_t kend = Sk;

	if (causal)
		kend = min(Sk, min(q0 + BM, Sq) + off);
#pragma unroll
	for (int i = 0; i < D / 8; i++)
		O[i][0] = O[i][1] = O[i][2] = O[i][3] = 0;
	for (int e = tid; e < BM * D / 8; e += NT) {
		int r = e / (D / 8), c = (e % (D / 8)) * 8;
		bool ok = q0 + r < Sq;

		cp16(&Qs[r * QP + c], ok ? (const void *)(qb + (q0 + r) * D + c) : (const void *)qb, ok);
	}
	/* tile loader: keys t0.., buffer bf; rows past Sk are zero-filled */
	auto load = [&](int64_t t0, int bf) {
		T *kd = Ks + bf * KT * QP, *vd = Vs + bf * KT * QP;

		for (int e = tid; e < KT * D / 8; e += NT) {
			int r = e / (D / 8), c = (e % (D / 8)) * 8;
			bool ok = t0 + r < Sk;

			cp16(&kd[r * QP + c], ok ? (const void *)(kb + (t0 + r) * D + c) : (const void *)kb, ok);
			cp16(&vd[r * QP + c], ok ? (const void *)(vb + (t0 + r) * D + c) : (const void *)vb, ok);
		}
	};
	if (kend > 0)
		load(0, 0);
	cp_commit();
	int it = 0;
	for (int64_t t0 = 0; t0 < kend; t0 += KT, it++) {
		const int bf = it & 1;
		const T *Kc = Ks + bf * KT * QP, *Vc = Vs + bf * KT * QP;
		float S[KT / 8][4];

		if (t0 + KT < kend)
			load(t0 + KT, bf ^ 1);
		cp_commit();
		cp_wait<1>();  /* everything but the tile just issued */
		__syncthreads();
#pragma unroll
		for (int nb = 0; nb < KT / 8; nb++)
			S[nb][0] = S[nb][1] = S[nb][2] = S[nb][3] = 0;
#pragma unroll
		for (int kd = 0; kd < D / 16; kd++) {
			uint32_t a[4];
			const T *qa = Qs + (warp * 16 + g) * QP + kd * 16 + tg * 2;

			a[0] = *(const uint32_t *)qa;
			a[1] = *(const uint32_t *)(qa + 8 * QP);
			a[2] = *(const uint32_t *)(qa + 8);
			a[3] = *(const uint32_t *)(qa + 8 * QP + 8);
#pragma unroll
			for (int nb = 0; nb < KT / 8; nb++) {
				uint32_t bb[2];
				const T *kp = Kc + (nb * 8 + g) * QP + kd * 16 + tg * 2;

				bb[0] = *(const uint32_t *)kp;
				bb[1] = *(const uint32_t *)(kp + 8);
				mma<T>::run(S[nb], a, bb);
			}
		}
		float mt0 = -INFINITY, mt1 = -INFINITY;
#pragma unroll
		for (int nb = 0; nb < KT / 8; nb++)
#pragma unroll
			for (int e = 0; e < 4; e++) {
				int64_t key = t0 + nb * 8 + tg * 2 + (e & 1);
				int64_t row = e < 2 ? r0 : r1;
				bool ok = key < Sk && (!causal || key <= row + off);
				float x = ok ? S[nb][e] * sl2 : -INFINITY;

				S[nb][e] = x;
				if (e < 2)
					mt0 = fmaxf(mt0, x);
				else
					mt1 = fmaxf(mt1, x);
			}
		mt0 = fmaxf(mt0, __shfl_xor_sync(0xffffffffu, mt0, 1));
		mt0 = fmaxf(mt0, __shfl_xor_sync(0xffffffffu, mt0, 2));
		mt1 = fmaxf(mt1, __shfl_xor_sync(0xffffffffu, mt1, 1));
		mt1 = fmaxf(mt1, __shfl_xor_sync(0xffffffffu, mt1, 2));
		float mn0 = fmaxf(m0, mt0), mn1 = fmaxf(m1, mt1);
		float b0 = mn0 == -INFINITY ? 0.f : mn0, b1 = mn1 == -INFINITY ? 0.f : mn1;
		float c0 = exp2f(m0 - b0), c1 = exp2f(m1 - b1);
		float s0 = 0, s1 = 0;

#pragma unroll
		for (int nb = 0; nb < KT / 8; nb++) {
			S[nb][0] = exp2f(S[nb][0] - b0);
			S[nb][1] = exp2f(S[nb][1] - b0);
			S[nb][2] = exp2f(S[nb][2] - b1);
			S[nb][3] = exp2f(S[nb][3] - b1);
			s0 += S[nb][0] + S[nb][1];
			s1 += S[nb][2] + S[nb][3];
		}
		l0 = l0 * c0 + s0;
		l1 = l1 * c1 + s1;
		m0 = mn0;
		m1 = mn1;
#pragma unroll
		for (int i = 0; i < D / 8; i++) {
			O[i][0] *= c0;
			O[i][1] *= c0;
			O[i][2] *= c1;
			O[i][3] *= c1;
		}
#pragma unroll
		for (int kk = 0; kk < KT / 16; kk++) {
			uint32_t a[4];

			a[0] = mma<T>::pack(S[2 * kk][0], S[2 * kk][1]);
			a[1] = mma<T>::pack(S[2 * kk][2], S[2 * kk][3]);
			a[2] = mma<T>::pack(S[2 * kk + 1][0], S[2 * kk + 1][1]);
			a[3] = mma<T>::pack(S[2 * kk + 1][2], S[2 * kk + 1][3]);
#pragma unroll
			for (int nd = 0; nd < D / 8; nd += 2) {
				uint32_t r[4], bb[2];

				/* lanes 0-15: keys kk*16 + lane, dims nd*8; lanes
				 * 16-31: the same keys, dims nd*8 + 8 */
				ldsm_x4_t(r, Vc + (kk * 16 + (lane & 15)) * QP + nd * 8 + (lane >> 4) * 8);
				bb[0] = r[0];
				bb[1] = r[1];
				mma<T>::run(O[nd], a, bb);
				bb[0] = r[2];
				bb[1] = r[3];
				mma<T>::run(O[nd + 1], a, bb);
			}
		}
		__syncthreads(); /* buffer bf is refilled two tiles from now */
	}
	cp_wait<0>();
	l0 += __shfl_xor_sync(0xffffffffu, l0, 1);
	l0 += __shfl_xor_sync(0xffffffffu, l0, 2);
	l1 += __shfl_xor_sync(0xffffffffu, l1, 1);
	l1 += __shfl_xor_sync(0xffffffffu, l1, 2);
	float i0 = l0 > 0 ? 1.f / l0 : 0.f, i1 = l1 > 0 ? 1.f / l1 : 0.f;
#pragma unroll
	for (int nd = 0; nd < D / 8; nd++) {
		int c = nd * 8 + tg * 2;

		if (r0 < Sq)
			*(uint32_t *)(o + (bh * Sq + r0) * D + c) =
				mma<T>::pack(O[nd][0] * i0, O[nd][1] * i0);
		if (r1 < Sq)
			*(uint32_t *)(o + (bh * Sq + r1) * D + c) =
				mma<T>::pack(O[nd][2] * i1, O[nd][3] * i1);
	}
}

template <typename T, int D, int KT, int NW>
static int launch(const ktraj_args *a, cudaStream_t s)
{
	constexpr int BM = 16 * NW;
	constexpr int smem = (BM + 4 * KT) * (D + 8) * 2;
	static bool attr;
	dim3 grid((unsigned)((a->dims[3] + BM - 1) / BM), (unsigned)(a->dims[0] * a->dims[1]));

	if (!attr) {
		if (cudaFuncSetAttribute(attn_mma2<T, D, KT, NW>,
				cudaFuncAttributeMaxDynamicSharedMemorySize, smem))
			return 2;
		attr = true;
	}
	attn_mma2<T, D, KT, NW><<<grid, 32 * NW, smem, s>>>((const T *)a->in[0],
		(const T *)a->in[1], (const T *)a->in[2], (T *)a->out[0], a->dims[1],
		a->dims[2], a->dims[3], a->dims[4], a->causal, a->scale);
	return 0;
}

template <typename T>
static int by_dim(const ktraj_args *a, cudaStream_t s)
{
	switch (a->dims[5]) {
	case 64: return launch<T, 64, 64, 8>(a, s);
	case 128: return launch<T, 128, 64, 8>(a, s);
	case 256: return launch<T, 256, 32, 4>(a, s);
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
