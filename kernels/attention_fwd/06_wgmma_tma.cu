/*
 * 06_wgmma_tma.cu - attention forward, rung 6: the Hopper structure
 * (FlashAttention-3, Shah et al. 2024, sections 3.1-3.2).
 *
 * One block = 1 producer + NC consumer warpgroups.  The producer gives its
 * registers away (setmaxnreg.dec 24) and one of its threads issues TMA tile
 * copies (cp.async.bulk.tensor.3d, 128-byte swizzle, rows past S
 * zero-filled by the copy engine) into a ring of ST K/V stages, each
 * completing on an mbarrier with a byte count.  The consumers
 * (setmaxnreg.inc) own 64 query rows each: S = Q Kᵀ with wgmma.mma_async
 * (both operands from shared memory, K-major), then O += P V with P from
 * registers (the accumulator layout of S is the A-fragment layout of PV)
 * and V from shared memory read N-major (the transpose flag, no data
 * movement).  Softmax overlaps the GEMMs inside a warpgroup: S(n+1) =
 * Q K(n+1)ᵀ and O += P(n) V(n) are issued together, the softmax of S(n+1)
 * runs while the PV product is still on the tensor cores, and O is
 * rescaled (and the new P packed) only after it completes; the consumer
 * warpgroups also overlap each other on the tensor cores.  A stage goes
 * back to the producer through an "empty" mbarrier once every consumer
 * warp's PV product has read it.  Causal blocks stop at the diagonal, mask
 * only the tiles that cross it or the end of the keys, and a head's
 * longest tile goes first.  GQA/MQA: query head h reads KV head h /
 * (Hq / Hkv) through the same tensor map.  The grid is persistent (one
 * block per SM taking work items from a counter, the next item's copies
 * under the last one's PV product and O stores).
 *
 * Tiles (H200, tests/bench/RESULTS.md "Rung 06"): D=64 3 consumers (192
 * rows) x 128 keys x 4 stages, 2 consumers (128 rows) when causal up to
 * 2048 rows; D=128 2 consumers x 128 keys x 3 stages (229 KB of shared
 * memory, one block per SM); D=256 2 consumers x 64 keys x 2 stages; at
 * D=64 the consumers take turns to issue their GEMMs (FA3's ping-pong,
 * named barriers).  Not done (FA3 has them): O stored through shared
 * memory and TMA, 80-key tiles at D=256.
 *
 * The tensor maps are encoded on the host for every call (a few
 * microseconds); the encoder comes from the CUDA runtime's driver
 * entry-point query, so the object links no driver library.
 * PTX ISA 8.x: "wgmma.mma_async", "Matrix Descriptor Format",
 * "cp.async.bulk.tensor", "mbarrier", "setmaxnreg".
 */
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <ktraj_kernel.h>


/* ---- wgmma wrappers: m64nNk16, fp32 accumulators, A from shared memory
 * (ss, both operands K-major) or registers (rs, B N-major).  acc = 0 zeroes
 * the accumulators first (scale-d). ---- */
template <typename T> struct wg;
template <> struct wg<__nv_bfloat16> {
	static __device__ __forceinline__ void ss64(float (&d)[32], uint64_t a, uint64_t b, int acc)
	{
		asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
			     "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
			     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
			     : "l"(a), "l"(b), "r"(acc));
	}
	static __device__ __forceinline__ void rs64(float (&d)[32], const uint32_t (&a)[4], uint64_t b, int acc)
	{
		asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
			     "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"
			     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
			     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(acc));
	}
	static __device__ __forceinline__ void ss64z(float (&d)[32], uint64_t a, uint64_t b)
	{
		asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
			     "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
			     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]), "=f"(d[4]), "=f"(d[5]), "=f"(d[6]), "=f"(d[7]), "=f"(d[8]), "=f"(d[9]), "=f"(d[10]), "=f"(d[11]), "=f"(d[12]), "=f"(d[13]), "=f"(d[14]), "=f"(d[15]), "=f"(d[16]), "=f"(d[17]), "=f"(d[18]), "=f"(d[19]), "=f"(d[20]), "=f"(d[21]), "=f"(d[22]), "=f"(d[23]), "=f"(d[24]), "=f"(d[25]), "=f"(d[26]), "=f"(d[27]), "=f"(d[28]), "=f"(d[29]), "=f"(d[30]), "=f"(d[31])
			     : "l"(a), "l"(b), "r"(0));
	}
	static __device__ __forceinline__ void ss128(float (&d)[64], uint64_t a, uint64_t b, int acc)
	{
		asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
			     "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 0;\n}\n"
			     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
			     : "l"(a), "l"(b), "r"(acc));
	}
	static __device__ __forceinline__ void rs128(float (&d)[64], const uint32_t (&a)[4], uint64_t b, int acc)
	{
		asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
			     "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, {%64, %65, %66, %67}, %68, p, 1, 1, 1;\n}\n"
			     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
			     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(acc));
	}
	static __device__ __forceinline__ void ss128z(float (&d)[64], uint64_t a, uint64_t b)
	{
		asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
			     "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 0;\n}\n"
			     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]), "=f"(d[4]), "=f"(d[5]), "=f"(d[6]), "=f"(d[7]), "=f"(d[8]), "=f"(d[9]), "=f"(d[10]), "=f"(d[11]), "=f"(d[12]), "=f"(d[13]), "=f"(d[14]), "=f"(d[15]), "=f"(d[16]), "=f"(d[17]), "=f"(d[18]), "=f"(d[19]), "=f"(d[20]), "=f"(d[21]), "=f"(d[22]), "=f"(d[23]), "=f"(d[24]), "=f"(d[25]), "=f"(d[26]), "=f"(d[27]), "=f"(d[28]), "=f"(d[29]), "=f"(d[30]), "=f"(d[31]), "=f"(d[32]), "=f"(d[33]), "=f"(d[34]), "=f"(d[35]), "=f"(d[36]), "=f"(d[37]), "=f"(d[38]), "=f"(d[39]), "=f"(d[40]), "=f"(d[41]), "=f"(d[42]), "=f"(d[43]), "=f"(d[44]), "=f"(d[45]), "=f"(d[46]), "=f"(d[47]), "=f"(d[48]), "=f"(d[49]), "=f"(d[50]), "=f"(d[51]), "=f"(d[52]), "=f"(d[53]), "=f"(d[54]), "=f"(d[55]), "=f"(d[56]), "=f"(d[57]), "=f"(d[58]), "=f"(d[59]), "=f"(d[60]), "=f"(d[61]), "=f"(d[62]), "=f"(d[63])
			     : "l"(a), "l"(b), "r"(0));
	}
};
template <> struct wg<__half> {
	static __device__ __forceinline__ void ss64(float (&d)[32], uint64_t a, uint64_t b, int acc)
	{
		asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
			     "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
			     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
			     : "l"(a), "l"(b), "r"(acc));
	}
	static __device__ __forceinline__ void rs64(float (&d)[32], const uint32_t (&a)[4], uint64_t b, int acc)
	{
		asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
			     "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"
			     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
			     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(acc));
	}
	static __device__ __forceinline__ void ss64z(float (&d)[32], uint64_t a, uint64_t b)
	{
		asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
			     "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
			     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]), "=f"(d[4]), "=f"(d[5]), "=f"(d[6]), "=f"(d[7]), "=f"(d[8]), "=f"(d[9]), "=f"(d[10]), "=f"(d[11]), "=f"(d[12]), "=f"(d[13]), "=f"(d[14]), "=f"(d[15]), "=f"(d[16]), "=f"(d[17]), "=f"(d[18]), "=f"(d[19]), "=f"(d[20]), "=f"(d[21]), "=f"(d[22]), "=f"(d[23]), "=f"(d[24]), "=f"(d[25]), "=f"(d[26]), "=f"(d[27]), "=f"(d[28]), "=f"(d[29]), "=f"(d[30]), "=f"(d[31])
			     : "l"(a), "l"(b), "r"(0));
	}
	static __device__ __forceinline__ void ss128(float (&d)[64], uint64_t a, uint64_t b, int acc)
	{
		asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
			     "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 0;\n}\n"
			     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
			     : "l"(a), "l"(b), "r"(acc));
	}
	static __device__ __forceinline__ void rs128(float (&d)[64], const uint32_t (&a)[4], uint64_t b, int acc)
	{
		asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
			     "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, {%64, %65, %66, %67}, %68, p, 1, 1, 1;\n}\n"
			     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
			     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(acc));
	}
	static __device__ __forceinline__ void ss128z(float (&d)[64], uint64_t a, uint64_t b)
	{
		asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
			     "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 0;\n}\n"
			     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]), "=f"(d[4]), "=f"(d[5]), "=f"(d[6]), "=f"(d[7]), "=f"(d[8]), "=f"(d[9]), "=f"(d[10]), "=f"(d[11]), "=f"(d[12]), "=f"(d[13]), "=f"(d[14]), "=f"(d[15]), "=f"(d[16]), "=f"(d[17]), "=f"(d[18]), "=f"(d[19]), "=f"(d[20]), "=f"(d[21]), "=f"(d[22]), "=f"(d[23]), "=f"(d[24]), "=f"(d[25]), "=f"(d[26]), "=f"(d[27]), "=f"(d[28]), "=f"(d[29]), "=f"(d[30]), "=f"(d[31]), "=f"(d[32]), "=f"(d[33]), "=f"(d[34]), "=f"(d[35]), "=f"(d[36]), "=f"(d[37]), "=f"(d[38]), "=f"(d[39]), "=f"(d[40]), "=f"(d[41]), "=f"(d[42]), "=f"(d[43]), "=f"(d[44]), "=f"(d[45]), "=f"(d[46]), "=f"(d[47]), "=f"(d[48]), "=f"(d[49]), "=f"(d[50]), "=f"(d[51]), "=f"(d[52]), "=f"(d[53]), "=f"(d[54]), "=f"(d[55]), "=f"(d[56]), "=f"(d[57]), "=f"(d[58]), "=f"(d[59]), "=f"(d[60]), "=f"(d[61]), "=f"(d[62]), "=f"(d[63])
			     : "l"(a), "l"(b), "r"(0));
	}
};

template <typename T> struct pk;
template <> struct pk<__nv_bfloat16> {
	static __device__ __forceinline__ uint32_t two(float x, float y)
	{
		__nv_bfloat162 h = __floats2bfloat162_rn(x, y);
		return *(uint32_t *)&h;
	}
	static const CUtensorMapDataType tma = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
};
template <> struct pk<__half> {
	static __device__ __forceinline__ uint32_t two(float x, float y)
	{
		__half2 h = __floats2half2_rn(x, y);
		return *(uint32_t *)&h;
	}
	static const CUtensorMapDataType tma = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
};

/* 2^x on the special-function unit, flush-to-zero: no range fix-up
 * instructions around it (exp2f adds them for denormal results, which
 * round to zero in a 16-bit P anyway) */
__device__ __forceinline__ float ex2(float x)
{
	float y;

	asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
	return y;
}
__device__ __forceinline__ uint32_t sa(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void bar_init(uint64_t *b, int n)
{
	asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" :: "r"(sa(b)), "r"(n));
}
__device__ __forceinline__ void bar_expect(uint64_t *b, uint32_t bytes)
{
	asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" :: "r"(sa(b)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void bar_arrive(uint64_t *b)
{
	asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" :: "r"(sa(b)) : "memory");
}
__device__ __forceinline__ void bar_wait(uint64_t *b, uint32_t parity)
{
	uint32_t ok;

	do {
		asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
			     "selp.u32 %0, 1, 0, p;\n}\n" : "=r"(ok) : "r"(sa(b)), "r"(parity) : "memory");
	} while (!ok);
}
/* box {64, rows, 1} at (c0, c1, c2) of a 3-D tensor map into dst */
__device__ __forceinline__ void tma3(void *dst, const CUtensorMap *m, int c0, int c1, int c2, uint64_t *b)
{
	asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
		     " [%0], [%1, {%2, %3, %4}], [%5];\n"
		     :: "r"(sa(dst)), "l"((uint64_t)m), "r"(c0), "r"(c1), "r"(c2), "r"(sa(b)) : "memory");
}
/* named barriers 1..NC pass the turn to issue GEMMs from one consumer
 * warpgroup to the next (128 threads arrive, 128 wait) */
__device__ __forceinline__ void nbar_sync(int id) { asm volatile("bar.sync %0, 256;\n" :: "r"(id) : "memory"); }
__device__ __forceinline__ void nbar_arrive(int id) { asm volatile("bar.arrive %0, 256;\n" :: "r"(id) : "memory"); }
__device__ __forceinline__ void wg_fence(void) { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_commit(void) { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void wg_wait(void)
{
	asm volatile("wgmma.wait_group.sync.aligned %0;\n" :: "n"(N) : "memory");
}
/* keep registers that an in-flight wgmma reads or writes where they are */
template <int N> __device__ __forceinline__ void keepf(float (&r)[N])
{
#pragma unroll
	for (int i = 0; i < N; i++)
		asm volatile("" : "+f"(r[i]) :: "memory");
}
template <int N> __device__ __forceinline__ void keepu(uint32_t (&r)[N][4])
{
#pragma unroll
	for (int i = 0; i < N; i++)
#pragma unroll
		for (int j = 0; j < 4; j++)
			asm volatile("" : "+r"(r[i][j]) :: "memory");
}
/* shared-memory matrix descriptor, 128-byte swizzle (layout type 1);
 * lbo/sbo in bytes.  K-major: sbo = 1024 (8 rows of 128 B), lbo unused;
 * N-major: lbo = distance between 64-column atoms, sbo = 1024 (8 K rows). */
__device__ __forceinline__ uint64_t mdesc(uint32_t addr, uint32_t lbo, uint32_t sbo)
{
	return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)(lbo >> 4) << 16) |
	       ((uint64_t)(sbo >> 4) << 32) | (1ull << 62);
}

template <int D, int BN, int ST, int NC> struct cfg {
	static constexpr int BM = 64 * NC;             /* NC consumer warpgroups x 64 rows */
	static constexpr int NT = 128 * (NC + 1);
	/* registers per thread after setmaxnreg: 24 for the producer, the rest
	 * of the 64K-register file split among the consumers */
	static constexpr int CREG = NC == 2 ? 240 : 160;
	static constexpr int QB = BM * D * 2, KB = BN * D * 2;
	/* + the mbarriers (bq, qe, 3 per stage, 2 work-item slots full/empty)
	 * and the two slots */
	static constexpr int SMEM = 1024 + QB + 2 * ST * KB + 8 * (6 + 3 * ST) + 8;
};

/* Where tile i of the persistent schedule lies: tiles are numbered head by
 * head so that blocks working at the same time share K/V in L2, and within
 * a head the longest causal tile comes first (the short ones fill the
 * tail of the schedule). */
struct tile {
	int q0, bh, nt;
};
__device__ __forceinline__ tile tile_of(int i, int nqt, int BM, int BN, int Sk, int off, int causal)
{
	tile t;
	const int r = i % nqt, qt = causal ? nqt - 1 - r : r;

	t.bh = i / nqt;
	t.q0 = qt * BM;
	const int kend = causal ? min(Sk, t.q0 + BM + off) : Sk;
	t.nt = kend > 0 ? (kend + BN - 1) / BN : 0;
	return t;
}

/* PP: the consumer warpgroups take turns to issue their GEMMs (named
 * barriers) instead of issuing freely.  PS: the grid is persistent: each
 * block takes (batch, head, query tile) work items from a counter in the
 * scratch buffer until none is left; the producer takes the next item and
 * starts its Q and K/V copies while the consumers still finish the last
 * one (its final PV product and O stores).  The counter goes back to 0
 * when the last block finds the list empty, so every call starts from 0.
 * Without PS, block (x, y) does item y * nqt + x alone. */
template <typename T, int D, int BN, int ST, int NC, bool PP, bool PS>
__global__ void __launch_bounds__(128 * (NC + 1), 1)
attn_wgmma(const __grid_constant__ CUtensorMap tq, const __grid_constant__ CUtensorMap tk,
	   const __grid_constant__ CUtensorMap tv, T *__restrict__ o, int Hq, int Hkv,
	   int Sq, int Sk, int causal, float scale, int *ctr, int nqt, int ntiles)
{
	using C = cfg<D, BN, ST, NC>;
	constexpr int BM = C::BM, NS = BN / 2, NO = D / 2, DB = D / 64;
	extern __shared__ unsigned char smem_raw[];
	unsigned char *sm = (unsigned char *)(((uintptr_t)smem_raw + 1023) & ~(uintptr_t)1023);
	unsigned char *Qs = sm, *Ks = sm + C::QB, *Vs = Ks + ST * C::KB;
	uint64_t *bq = (uint64_t *)(Vs + ST * C::KB), *bk = bq + 1, *bv = bk + ST, *be = bv + ST;
	/* qe: Q may be overwritten; tf/te: the work-item slots full/empty */
	uint64_t *qe = be + ST, *tf = qe + 1, *te = tf + 2;
	int *slot = (int *)(te + 2);
	const int tid = threadIdx.x, wgi = tid / 128, off = Sk - Sq;

	if (tid == 0) {
		bar_init(bq, 1);
		bar_init(qe, 4 * NC);
		for (int s = 0; s < ST; s++) {
			bar_init(&bk[s], 1);
			bar_init(&bv[s], 1);
			bar_init(&be[s], 4 * NC);   /* one arrival per consumer warp */
		}
		for (int s = 0; s < 2; s++) {
			bar_init(&tf[s], 1);
			bar_init(&te[s], 4 * NC);
		}
		asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
	}
	__syncthreads();

	if (wgi == 0) {
		asm volatile("setmaxnreg.dec.sync.aligned.u32 24;\n");
		if (tid == 0) {
			int g = 0, kq = 0;   /* K/V stages and Q tiles loaded so far */

			for (int k = 0;; k++) {
				int i = PS ? atomicAdd(ctr, 1) : k == 0 ? (int)(blockIdx.y * nqt + blockIdx.x) : ntiles;

				if (PS && i >= ntiles) {
					if (i == ntiles + (int)gridDim.x - 1)
						*(volatile int *)ctr = 0;   /* the last grab of this call */
					i = -1;
				}
				if (i >= ntiles)
					i = -1;
				bar_wait(&te[k & 1], ((k >> 1) & 1) ^ 1);
				*(volatile int *)&slot[k & 1] = i;
				bar_arrive(&tf[k & 1]);
				if (i < 0)
					break;
				const tile w = tile_of(i, nqt, BM, BN, Sk, off, causal);
				const int bkv = (w.bh / Hq) * Hkv + (w.bh % Hq) / (Hq / Hkv);

				if (w.nt == 0)
					continue;
				bar_wait(qe, (kq & 1) ^ 1);
				bar_expect(bq, C::QB);
				for (int j = 0; j < DB; j++)
					tma3(Qs + j * BM * 128, &tq, j * 64, w.q0, w.bh, bq);
				kq++;
				for (int n = 0; n < w.nt; n++, g++) {
					const int s = g % ST, u = g / ST;

					bar_wait(&be[s], (u & 1) ^ 1);
					bar_expect(&bk[s], C::KB);
					for (int j = 0; j < DB; j++)
						tma3(Ks + s * C::KB + j * BN * 128, &tk, j * 64, n * BN, bkv, &bk[s]);
					bar_expect(&bv[s], C::KB);
					for (int j = 0; j < DB; j++)
						tma3(Vs + s * C::KB + j * BN * 128, &tv, j * 64, n * BN, bkv, &bv[s]);
				}
			}
		}
		return;
	}
	asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" :: "n"(C::CREG));
	const int c = wgi - 1, t = tid - 128 * wgi, warp = t / 32, lane = t % 32;
	const int g = lane >> 2, tg = lane & 3;
	const float sl2 = scale * 1.4426950408889634f;
	const uint32_t qa = sa(Qs) + 64 * c * 128;
	float S[NS], O[NO], m0, m1, l0, l1;
	uint32_t P[BN / 16][4];
	int g0 = 0, kq = 0, rw = 0, r0 = 0, r1 = 0;

	/* S = Q K(n)ᵀ from stage s, issued (not waited) */
	auto qk = [&](int s) {
		const uint32_t kb = sa(Ks) + s * C::KB;
#pragma unroll
		for (int kk = 0; kk < D / 16; kk++) {
			const uint32_t a = qa + (kk / 4) * BM * 128 + (kk % 4) * 32;
			const uint32_t bb = kb + (kk / 4) * BN * 128 + (kk % 4) * 32;

			if constexpr (BN == 128)
				if (kk == 0) wg<T>::ss128z(S, mdesc(a, 16, 1024), mdesc(bb, 16, 1024)); else wg<T>::ss128(S, mdesc(a, 16, 1024), mdesc(bb, 16, 1024), 1);
			else
				if (kk == 0) wg<T>::ss64z(S, mdesc(a, 16, 1024), mdesc(bb, 16, 1024)); else wg<T>::ss64(S, mdesc(a, 16, 1024), mdesc(bb, 16, 1024), 1);
		}
		wg_commit();
	};
	/* O += P V from stage s, issued (not waited) */
	auto pv = [&](int s) {
		const uint32_t vb = sa(Vs) + s * C::KB;
#pragma unroll
		for (int kk = 0; kk < BN / 16; kk++) {
#pragma unroll
			for (int hf = 0; hf < (D + 127) / 128; hf++) {
				const uint64_t d = mdesc(vb + kk * 2048 + hf * 2 * BN * 128, BN * 128, 1024);

				if constexpr (D == 64)
					wg<T>::rs64(O, P[kk], d, 1);
				else
					wg<T>::rs128(*(float (*)[64])(O + 64 * hf), P[kk], d, 1);
			}
		}
		wg_commit();
	};
	/* online softmax of S for tile n, in place (S becomes P in fp32); returns
	 * the O rescale factors.  P is packed to 16 bits only after the PV product
	 * in flight has completed: defining a wgmma input register while one is in
	 * flight makes ptxas serialize every wgmma of the kernel (C7513). */
	auto softmax = [&](int n, float &c0, float &c1) {
		const int t0 = n * BN;
		const bool mask = t0 + BN > Sk || (causal && t0 + BN - 1 > rw + off);

		if (mask) {
#pragma unroll
			for (int j = 0; j < NS / 4; j++)
#pragma unroll
				for (int e = 0; e < 4; e++) {
					const int key = t0 + 8 * j + 2 * tg + (e & 1), row = e < 2 ? r0 : r1;

					if (key >= Sk || (causal && key > row + off))
						S[4 * j + e] = -INFINITY;
				}
		}
		float x0 = -INFINITY, x1 = -INFINITY;
#pragma unroll
		for (int j = 0; j < NS / 4; j++) {
			x0 = fmaxf(x0, fmaxf(S[4 * j], S[4 * j + 1]));
			x1 = fmaxf(x1, fmaxf(S[4 * j + 2], S[4 * j + 3]));
		}
		x0 = fmaxf(x0, __shfl_xor_sync(0xffffffffu, x0, 1));
		x0 = fmaxf(x0, __shfl_xor_sync(0xffffffffu, x0, 2));
		x1 = fmaxf(x1, __shfl_xor_sync(0xffffffffu, x1, 1));
		x1 = fmaxf(x1, __shfl_xor_sync(0xffffffffu, x1, 2));
		const float mn0 = fmaxf(m0, x0), mn1 = fmaxf(m1, x1);
		const float b0 = mn0 == -INFINITY ? 0.f : mn0 * sl2, b1 = mn1 == -INFINITY ? 0.f : mn1 * sl2;
		float s0 = 0.f, s1 = 0.f;

		c0 = ex2(m0 * sl2 - b0);
		c1 = ex2(m1 * sl2 - b1);
#pragma unroll
		for (int j = 0; j < NS / 4; j++) {
			const float p0 = ex2(fmaf(S[4 * j], sl2, -b0)), p1 = ex2(fmaf(S[4 * j + 1], sl2, -b0));
			const float p2 = ex2(fmaf(S[4 * j + 2], sl2, -b1)), p3 = ex2(fmaf(S[4 * j + 3], sl2, -b1));

			s0 += p0 + p1;
			s1 += p2 + p3;
			S[4 * j] = p0;
			S[4 * j + 1] = p1;
			S[4 * j + 2] = p2;
			S[4 * j + 3] = p3;
		}
		l0 = l0 * c0 + s0;
		l1 = l1 * c1 + s1;
		m0 = mn0;
		m1 = mn1;
	};

	/* P (A fragments of PV) from the softmax output in S */
	auto pack = [&]() {
#pragma unroll
		for (int j = 0; j < NS / 4; j++) {
			P[j / 2][(j & 1) * 2] = pk<T>::two(S[4 * j], S[4 * j + 1]);
			P[j / 2][(j & 1) * 2 + 1] = pk<T>::two(S[4 * j + 2], S[4 * j + 3]);
		}
	};
	/* one arrival per consumer warp on an "empty" barrier */
	auto release = [&](uint64_t *b) {
		__syncwarp();
		if (lane == 0)
			bar_arrive(b);
	};

	/* ping-pong (FA3 section 3.1): the consumers take turns to issue their
	 * GEMMs, so one warpgroup's softmax runs under the others' GEMMs */
	auto turn_wait = [&]() {
		if (PP)
			nbar_sync(1 + c);
	};
	auto turn_pass = [&]() {
		if (PP)
			nbar_arrive(1 + (c + 1) % NC);
	};
	if (PP && c == NC - 1)
		nbar_arrive(1);
	for (int k = 0;; k++) {
		bar_wait(&tf[k & 1], (k >> 1) & 1);
		const int i = *(volatile int *)&slot[k & 1];

		release(&te[k & 1]);
		if (i < 0)
			break;
		const tile w = tile_of(i, nqt, BM, BN, Sk, off, causal);
		const int nt = w.nt;

		rw = w.q0 + 64 * c;             /* this warpgroup's first row */
		r0 = rw + warp * 16 + g;
		r1 = r0 + 8;
		m0 = m1 = -INFINITY;
		l0 = l1 = 0.f;
#pragma unroll
		for (int j = 0; j < NO; j++)
			O[j] = 0.f;
		if (nt > 0) {
			float c0, c1;

			bar_wait(bq, kq & 1);
			kq++;
			bar_wait(&bk[g0 % ST], (g0 / ST) & 1);
			turn_wait();
			wg_fence();
			qk(g0 % ST);
			turn_pass();
			wg_wait<0>();
			keepf(S);
			if (nt == 1)
				release(qe);
			softmax(0, c0, c1);
			pack();
			for (int n = 1; n < nt; n++) {
				const int gn = g0 + n, gp = gn - 1;

				bar_wait(&bk[gn % ST], (gn / ST) & 1);
				bar_wait(&bv[gp % ST], (gp / ST) & 1);
				keepf(O);
				keepu(P);
				turn_wait();
				wg_fence();
				qk(gn % ST);
				pv(gp % ST);
				turn_pass();
				wg_wait<1>();
				keepf(S);
				if (n == nt - 1)
					release(qe);    /* the tile's last QK product is done */
				softmax(n, c0, c1);
				wg_wait<0>();
				keepf(O);
				keepu(P);
				release(&be[gp % ST]);
#pragma unroll
				for (int j = 0; j < NO / 4; j++) {
					O[4 * j] *= c0;
					O[4 * j + 1] *= c0;
					O[4 * j + 2] *= c1;
					O[4 * j + 3] *= c1;
				}
				pack();
			}
			const int gl = g0 + nt - 1;

			bar_wait(&bv[gl % ST], (gl / ST) & 1);
			keepf(O);
			keepu(P);
			turn_wait();
			wg_fence();
			pv(gl % ST);
			turn_pass();
			wg_wait<0>();
			keepf(O);
			keepu(P);
			release(&be[gl % ST]);
			g0 += nt;
		}
		float s0 = l0, s1 = l1;

		s0 += __shfl_xor_sync(0xffffffffu, s0, 1);
		s0 += __shfl_xor_sync(0xffffffffu, s0, 2);
		s1 += __shfl_xor_sync(0xffffffffu, s1, 1);
		s1 += __shfl_xor_sync(0xffffffffu, s1, 2);
		const float i0 = s0 > 0.f ? 1.f / s0 : 0.f, i1 = s1 > 0.f ? 1.f / s1 : 0.f;
		T *ob = o + (int64_t)w.bh * Sq * D;
#pragma unroll
		for (int j = 0; j < NO / 4; j++) {
			const int col = 8 * j + 2 * tg;

			if (r0 < Sq)
				*(uint32_t *)(ob + (int64_t)r0 * D + col) = pk<T>::two(O[4 * j] * i0, O[4 * j + 1] * i0);
			if (r1 < Sq)
				*(uint32_t *)(ob + (int64_t)r1 * D + col) = pk<T>::two(O[4 * j + 2] * i1, O[4 * j + 3] * i1);
		}
	}
	if (PP && c == 0)
		nbar_sync(1);   /* the last warpgroup's final pass */
}

typedef CUresult (*encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
			      const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
			      CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

/* 3-D view [bh][s][D] of one operand, boxes of {64, rows, 1} */
template <typename T>
static int tmap(encode_fn enc, CUtensorMap *m, const void *p, int64_t bh, int64_t s, int d, int rows)
{
	cuuint64_t dim[3] = {(cuuint64_t)d, (cuuint64_t)s, (cuuint64_t)bh};
	cuuint64_t str[2] = {(cuuint64_t)d * 2, (cuuint64_t)(s * d * 2)};
	cuuint32_t box[3] = {64, (cuuint32_t)rows, 1}, es[3] = {1, 1, 1};

	return enc(m, pk<T>::tma, 3, (void *)p, dim, str, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
		   CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
		   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS;
}

template <typename T, int D, int BN, int ST, int NC, bool PP, bool PS>
static int launch(const ktraj_args *a, cudaStream_t st)
{
	using C = cfg<D, BN, ST, NC>;
	static encode_fn enc;
	static bool attr;
	static int nsm;
	const int64_t B = a->dims[0], Hq = a->dims[1], Hkv = a->dims[2], Sq = a->dims[3], Sk = a->dims[4];
	CUtensorMap mq, mk, mv;

	if (!enc) {
		cudaDriverEntryPointQueryResult q;
		void *f = nullptr;

		if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &q) ||
		    q != cudaDriverEntryPointSuccess || !f)
			return 3;
		enc = (encode_fn)f;
	}
	if (!attr) {
		int dev;

		if (cudaFuncSetAttribute(attn_wgmma<T, D, BN, ST, NC, PP, PS>, cudaFuncAttributeMaxDynamicSharedMemorySize, C::SMEM) ||
		    cudaGetDevice(&dev) || cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev) || nsm < 1)
			return 2;
		attr = true;
	}
	/* the work-item counter lives in the scratch buffer (zeroed by its
	 * owner once; each call leaves it at 0) */
	if (PS && (!a->scratch || a->scratch_bytes < sizeof(int)))
		return 5;
	if (tmap<T>(enc, &mq, a->in[0], B * Hq, Sq, D, C::BM) || tmap<T>(enc, &mk, a->in[1], B * Hkv, Sk, D, BN) ||
	    tmap<T>(enc, &mv, a->in[2], B * Hkv, Sk, D, BN))
		return 4;
	const int64_t nqt = (Sq + C::BM - 1) / C::BM, ntiles = nqt * B * Hq;

	if (ntiles == 0)
		return 0;
	if (ntiles > INT32_MAX)
		return 6;
	const dim3 grid = PS ? dim3((unsigned)(ntiles < nsm ? ntiles : nsm)) : dim3((unsigned)nqt, (unsigned)(B * Hq));

	attn_wgmma<T, D, BN, ST, NC, PP, PS><<<grid, C::NT, C::SMEM, st>>>(
		mq, mk, mv, (T *)a->out[0], (int)Hq, (int)Hkv, (int)Sq, (int)Sk, a->causal, a->scale,
		(int *)a->scratch, (int)nqt, (int)ntiles);
	return 0;
}

/* tile choices per head dimension (BN keys per stage, stages, consumer
 * warpgroups, ping-pong, persistent grid), measured on the H200
 * (tests/bench/RESULTS.md "Rung 06"): D64 with 2 consumers x 3 stages and
 * D128 with 2 stages were 0.70-0.93x these on the 24 large shapes;
 * ping-pong gave D64 1.01-1.13x, D128 0.99-1.05x (left off there).  At D64
 * up to 2048 rows, causal, 128-row tiles (2 consumers): the diagonal leaves
 * a third of a 192-row tile empty at S=1024; without the mask 192-row
 * tiles were 1.04x (S1024) and 1.11x (S2048) ("Persistent grid", "Length-
 * based grid"). */
template <typename T, bool PS>
static int by_dim(const ktraj_args *a, cudaStream_t s)
{
	switch (a->dims[5]) {
	case 64:
		if (a->dims[3] <= 2048 && a->causal)
			return launch<T, 64, 128, 4, 2, true, PS>(a, s);
		return launch<T, 64, 128, 4, 3, true, PS>(a, s);
	case 128: return launch<T, 128, 128, 3, 2, false, PS>(a, s);
	case 256: return launch<T, 256, 64, 2, 2, false, PS>(a, s);
	}
	return 1;
}

extern "C" int ktraj_entry(const ktraj_args *a, cudaStream_t s)
{
	if (a->abi_version != KTRAJ_ABI_VERSION || a->op != KTRAJ_OP_ATTENTION_FWD)
		return 1;
	if (a->dtype == KTRAJ_BF16)
		return by_dim<__nv_bfloat16, true>(a, s);
	if (a->dtype == KTRAJ_F16)
		return by_dim<__half, true>(a, s);
	return 1;
}
