/*
 * 04_mma_tensorcore.cu - attention forward, rung 4: tensor cores.
 * FlashAttention-2 structure (Dao, arXiv 2307.08691): a block of 4 warps
 * owns 64 query rows (16 per warp), walks the key tiles, computes S = Q K^T
 * and O += P V with mma.sync m16n8k16 (bf16/fp16 in, fp32 accumulate), and
 * keeps the online-softmax state (row max, row sum) in registers.  P goes
 * from the S accumulator fragment straight into the A fragment of the P V
 * product without touching shared memory (the C layout of one m16n8 tile
 * pair equals the A layout of one m16k16 tile; PTX ISA "Matrix Fragments
 * for mma.m16n8k16").  V is stored transposed in shared memory so every B
 * fragment is one 32-bit load; rows are padded by 16 bytes against bank
 * conflicts.  Causal blocks stop at the diagonal.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <ktraj_kernel.h>

#define BM 64

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

template <typename T, int D, int KT>
__global__ void __launch_bounds__(128)
attn_mma(const T *__restrict__ q, const T *__restrict__ k, const T *__restrict__ v,
	 T *__restrict__ o, int64_t Hq, int64_t Hkv, int64_t Sq, int64_t Sk,
	 int causal, float scale)
{
	constexpr int QP = D + 8, VP = KT + 8;
	extern __shared__ __align__(16) unsigned char smem[];
	T *Qs = (T *)smem;              /* [BM][QP] */
	T *Ks = Qs + BM * QP;           /* [KT][QP] */
	T *Vt = Ks + KT * QP;           /* [D][VP]  */
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
	for (int e = tid; e < BM * D / 8; e += 128) {
		int r = e / (D / 8), c = (e % (D / 8)) * 8;
		uint4 z = make_uint4(0, 0, 0, 0);

		if (q0 + r < Sq)
			z = *(const uint4 *)(qb + (q0 + r) * D + c);
		*(uint4 *)&Qs[r * QP + c] = z;
	}
	for (int64_t t0 = 0; t0 < kend; t0 += KT) {
		float S[KT / 8][4];

		__syncthreads();
		for (int e = tid; e < KT * D / 8; e += 128) {
			int r = e / (D / 8), c = (e % (D / 8)) * 8;
			uint4 zk = make_uint4(0, 0, 0, 0), zv = zk;

			if (t0 + r < Sk) {
				zk = *(const uint4 *)(kb + (t0 + r) * D + c);
				zv = *(const uint4 *)(vb + (t0 + r) * D + c);
			}
			*(uint4 *)&Ks[r * QP + c] = zk;
			const T *pv = (const T *)&zv;
#pragma unroll
			for (int i = 0; i < 8; i++)
				Vt[(c + i) * VP + r] = pv[i];
		}
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
				const T *kp = Ks + (nb * 8 + g) * QP + kd * 16 + tg * 2;

				bb[0] = *(const uint32_t *)kp;
				bb[1] = *(const uint32_t *)(kp + 8);
				mma<T>::run(S[nb], a, bb);
			}
		}
		/* mask, scale (log2 domain), online softmax */
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
			for (int nd = 0; nd < D / 8; nd++) {
				uint32_t bb[2];
				const T *vp = Vt + (nd * 8 + g) * VP + kk * 16 + tg * 2;

				bb[0] = *(const uint32_t *)vp;
				bb[1] = *(const uint32_t *)(vp + 8);
				mma<T>::run(O[nd], a, bb);
			}
		}
	}
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

template <typename T, int D, int KT>
static int launch(const ktraj_args *a, cudaStream_t s)
{
	constexpr int smem = (BM * (D + 8) + KT * (D + 8) + D * (KT + 8)) * 2;
	static bool attr;
	dim3 grid((unsigned)((a->dims[3] + BM - 1) / BM), (unsigned)(a->dims[0] * a->dims[1]));

	if (!attr) {
		if (cudaFuncSetAttribute(attn_mma<T, D, KT>,
				cudaFuncAttributeMaxDynamicSharedMemorySize, smem))
			return 2;
		attr = true;
	}
	attn_mma<T, D, KT><<<grid, 128, smem, s>>>((const T *)a->in[0], (const T *)a->in[1],
		(const T *)a->in[2], (T *)a->out[0], a->dims[1], a->dims[2],
		a->dims[3], a->dims[4], a->causal, a->scale);
	return 0;
}

template <typename T>
static int by_dim(const ktraj_args *a, cudaStream_t s)
{
	switch (a->dims[5]) {
	case 64: return launch<T, 64, 64>(a, s);
	case 128: return launch<T, 128, 64>(a, s);
	case 256: return launch<T, 256, 32>(a, s);
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
