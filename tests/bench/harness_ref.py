#!/usr/bin/env python3
"""GPU-side helpers for the harness benchmarks (tests/bench/harness_gpu.sh).

  harness_ref.py dobench SO SPEC NAMES...   triton.testing.do_bench median of
      the compiled candidate SO (loaded with ctypes, called through the same C
      entry point the harness uses) on scenarios NAMES of task SPEC
  harness_ref.py sdpa SPEC NAMES...         PyTorch SDPA TFLOP/s with the cuDNN
      and flash backends on the same scenarios

One JSON object per line on stdout.  Needs torch + triton (the H200 image).
"""
import ctypes
import json
import math
import sys

import torch
import triton.testing


class Args(ctypes.Structure):
    _fields_ = [("abi_version", ctypes.c_int), ("op", ctypes.c_int), ("dtype", ctypes.c_int),
                ("causal", ctypes.c_int), ("dims", ctypes.c_int64 * 8), ("scale", ctypes.c_float),
                ("eps", ctypes.c_float), ("inp", ctypes.c_void_p * 4), ("out", ctypes.c_void_p * 2),
                ("scratch", ctypes.c_void_p), ("scratch_bytes", ctypes.c_uint64)]


def scenarios(spec, names):
    s = json.load(open(spec))["scenarios"]
    by = {x["name"]: x for x in s}
    return [by[n] for n in names]


def tensors(x):
    dt = torch.bfloat16 if x.get("dtype", "bf16") == "bf16" else torch.float16
    B, Hq, D = x["B"], x["Hq"], x["D"]
    Hkv = x.get("Hkv", Hq)
    Sq = x.get("Sq", x.get("S"))
    Sk = x.get("Sk", Sq)
    q = torch.randn(B, Hq, Sq, D, device="cuda", dtype=dt)
    k = torch.randn(B, Hkv, Sk, D, device="cuda", dtype=dt)
    v = torch.randn(B, Hkv, Sk, D, device="cuda", dtype=dt)
    return q, k, v, (B, Hq, Hkv, Sq, Sk, D)


def flops(x, dims):
    B, Hq, Hkv, Sq, Sk, D = dims
    return 4.0 * B * Hq * Sq * Sk * D / (2 if x.get("causal") else 1)


def dobench(so, spec, names):
    lib = ctypes.CDLL(so)
    entry = lib.ktraj_entry
    entry.argtypes = [ctypes.POINTER(Args), ctypes.c_void_p]
    entry.restype = ctypes.c_int
    for x in scenarios(spec, names):
        q, k, v, dims = tensors(x)
        o = torch.empty_like(q)
        scratch = torch.zeros(max(16 << 20, o.numel() * 8), dtype=torch.uint8, device="cuda")
        a = Args()
        a.abi_version, a.op = 1, 1
        a.dtype = 2 if q.dtype == torch.bfloat16 else 1
        a.causal = 1 if x.get("causal") else 0
        for i, d in enumerate(dims):
            a.dims[i] = d
        a.scale = 1.0 / math.sqrt(dims[5])
        a.inp[0], a.inp[1], a.inp[2] = q.data_ptr(), k.data_ptr(), v.data_ptr()
        a.out[0] = o.data_ptr()
        a.scratch, a.scratch_bytes = scratch.data_ptr(), scratch.numel()
        stream = torch.cuda.current_stream().cuda_stream

        def fn():
            rc = entry(ctypes.byref(a), stream)
            assert rc == 0

        ms = triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median")
        ref = torch.nn.functional.scaled_dot_product_attention(
            q.float(), k.float().repeat_interleave(dims[1] // dims[2], 1),
            v.float().repeat_interleave(dims[1] // dims[2], 1), is_causal=bool(a.causal))
        err = ((o.float() - ref).norm() / ref.norm()).item()
        print(json.dumps({"scenario": x["name"], "do_bench_median_ms": ms,
                          "tflops": flops(x, dims) / ms / 1e9, "rel_l2_vs_torch": err}), flush=True)


def sdpa(spec, names):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    F = torch.nn.functional.scaled_dot_product_attention
    for x in scenarios(spec, names):
        q, k, v, dims = tensors(x)
        row = {"scenario": x["name"]}
        for name, be in (("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION)):
            try:
                with sdpa_kernel([be]):
                    kw = {"is_causal": bool(x.get("causal"))}
                    if dims[1] != dims[2]:
                        kw["enable_gqa"] = True
                    F(q, k, v, **kw)
                    ms = triton.testing.do_bench(lambda: F(q, k, v, **kw), warmup=25, rep=100,
                                                 return_mode="median")
                row[name + "_ms"] = ms
                row[name + "_tflops"] = flops(x, dims) / ms / 1e9
            except Exception as e:  # backend refuses the shape
                row[name + "_error"] = str(e).splitlines()[0][:160]
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "dobench":
        dobench(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        sdpa(sys.argv[2], sys.argv[3:])
