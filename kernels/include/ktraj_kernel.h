/*
 * ktraj_kernel.h - the C entry point every ktraj-harness candidate
 * implements (harness/README.md "Candidate entry point" is the prose).
 *
 * A candidate is one .cu file.  The harness compiles it into a shared object
 * and calls
 *
 *     extern "C" int ktraj_entry(const struct ktraj_args *a, cudaStream_t s);
 *
 * Destination-passing style (as flashinfer-bench DPS): the harness allocates
 * every input, output and scratch buffer, fills the inputs, poisons the
 * outputs with NaN, and reads the outputs itself.  The candidate launches its
 * kernels on stream `s` and returns 0 (non-zero = failure, reported as a
 * runtime error).  It must not synchronize, allocate, create streams, events
 * or graphs, or call libraries: the harness rejects such objects before
 * running them (harness/README.md "Static check").
 *
 * Layouts (all contiguous, row-major, element type per a->dtype):
 *   attention_fwd  in[0]=Q [B][Hq][Sq][D], in[1]=K [B][Hkv][Sk][D],
 *                  in[2]=V [B][Hkv][Sk][D], out[0]=O [B][Hq][Sq][D];
 *                  query head h reads kv head h / (Hq / Hkv) (GQA/MQA);
 *                  O = softmax(scale * Q K^T + mask) V, causal mask keeps
 *                  key j for query i when j <= i + (Sk - Sq) (bottom-right
 *                  aligned, as FlashAttention 2).
 *   gemm           in[0]=A [M][K], in[1]=B [N][K], out[0]=C [M][N],
 *                  C = A B^T (fp32 accumulation).
 *   rmsnorm        in[0]=X [rows][cols], in[1]=W [cols],
 *                  out[0]=Y, Y = X / sqrt(mean(X^2) + eps) * W.
 */
#ifndef KTRAJ_KERNEL_H
#define KTRAJ_KERNEL_H

#include <stdint.h>

#define KTRAJ_ABI_VERSION 1

enum ktraj_dtype { KTRAJ_F32 = 0, KTRAJ_F16 = 1, KTRAJ_BF16 = 2 };
enum ktraj_op { KTRAJ_OP_ATTENTION_FWD = 1, KTRAJ_OP_GEMM = 2,
		KTRAJ_OP_RMSNORM = 3 };

struct ktraj_args {
	int abi_version;   /* KTRAJ_ABI_VERSION */
	int op;            /* enum ktraj_op */
	int dtype;         /* enum ktraj_dtype of inputs and outputs */
	int causal;        /* attention: 1 = causal mask */
	/* attention: B, Hq, Hkv, Sq, Sk, D; gemm: M, N, K; rmsnorm: rows, cols */
	int64_t dims[8];
	float scale;       /* attention: softmax scale (1/sqrt(D)) */
	float eps;         /* rmsnorm epsilon */
	const void *in[4];
	void *out[2];
	void *scratch;     /* harness-owned, zeroed once per scenario */
	uint64_t scratch_bytes;
};

#define KTRAJ_ENTRY_SYMBOL "ktraj_entry"

#endif
