#!/usr/bin/env python3
"""Generate attention_fwd.json, the attention-forward task of ktraj-harness.

Run from anywhere: python3 kernels/tasks/gen_attention.py > kernels/tasks/attention_fwd.json
The scenario families are documented in kernels/README.md.  Sizes are
chosen so the whole sweep (references included) fits the 3-minute target
on an H200 while each launch still fills the chip (>= 132 CTAs of 64 rows
for all but the single-head long-sequence cases).
"""
import json

sc = []


def add(name, note, B, Hq, Hkv, Sq, Sk, D, causal, dtype, dist=None):
    s = {"name": name, "B": B, "Hq": Hq, "Hkv": Hkv, "Sq": Sq, "Sk": Sk,
         "D": D, "causal": causal, "dtype": dtype, "note": note}
    if dist:
        s["dist"] = dist
    sc.append(s)


def hd_for(S):
    # H*D shrinks with S so FLOPs stay bounded (the FA3 grid keeps H*D=2048
    # and B*S=16k; at 16k that is 2.2 TFLOP per call, too slow for a sweep
    # whose fp32 reference is timed too).
    return {512: 1024, 1024: 1024, 2048: 1024, 4096: 512, 8192: 256, 16384: 128}[S]


# A. FA3-paper-like grid (arXiv 2407.08608 §4.1): seqlen 512..16k, hd 64/128/256.
for dt in ("bf16", "fp16"):
    for S in (512, 1024, 2048, 4096, 8192, 16384):
        for D in (64, 128, 256):
            for c in (False, True):
                H = max(1, hd_for(S) // D)
                B = max(1, 8192 // S)
                add(f"grid_s{S}_d{D}_{'causal' if c else 'full'}_{dt}",
                    "FA3-style grid, MHA, B*S=8k tokens up to 8k", B, H, H, S, S, D, c, dt)

# B. Sequence lengths that are not multiples of any tile (64/128).
for S in (777, 1000, 1531, 3001, 4999, 12345):
    for D in (64, 128, 256):
        for c in (False, True):
            H = max(1, (1024 if S < 4000 else 256 if S < 10000 else 128) // D)
            B = max(1, 4096 // S)
            add(f"ragged_s{S}_d{D}_{'causal' if c else 'full'}_bf16",
                "seq length not a multiple of the tile: tail masking", B, H, H, S, S, D, c, "bf16")

# C. GQA and MQA (query heads share KV heads).
for S in (1024, 4096, 8192):
    for D in (64, 128):
        for (hq, hkv, kind) in ((32, 8, "gqa4"), (32, 4, "gqa8"), (16, 1, "mqa")):
            for c in (False, True):
                scale = {1024: 1, 4096: 4, 8192: 8}[S]
                hq2 = max(hkv, hq // scale)
                hq2 -= hq2 % hkv
                add(f"{kind}_s{S}_d{D}_{'causal' if c else 'full'}_bf16",
                    f"{kind.upper()}: {hq2} query heads over {hkv} KV heads", 1 if S > 1024 else 2,
                    hq2, hkv, S, S, D, c, "bf16")

# D. Batch and head counts that are odd or small (b=1, odd heads).
for (B, H) in ((1, 1), (3, 5), (7, 3)):
    for S in (2048, 4096):
        for c in (False, True):
            for dt in ("bf16", "fp16"):
                add(f"odd_b{B}_h{H}_s{S}_d128_{'causal' if c else 'full'}_{dt}",
                    "odd batch/head counts", B, H, H, S, S, 128, c, dt)

# E. Cross attention and prefill-with-cache (Sq != Sk); causal is
# bottom-right aligned as in FlashAttention 2.
for (Sq, Sk) in ((512, 4096), (1000, 3000), (2048, 8192), (4096, 16384)):
    for D in (64, 128):
        for c in (False, True):
            add(f"cross_q{Sq}_k{Sk}_d{D}_{'causal' if c else 'full'}_bf16",
                "Sq != Sk (chunked prefill / cross attention)", 1, 8, 8, Sq, Sk, D, c, "bf16")

# F. Input distributions pinned per scenario (the default rotates all five).
for dist in ("normal", "uniform", "peaky", "outlier", "offset"):
    add(f"dist_{dist}_s2048_d128_causal_bf16", f"every input set drawn from '{dist}'",
        2, 8, 8, 2048, 2048, 128, True, "bf16", dist)

spec = {
    "task": "attention_fwd",
    "version": 1,
    "op": "attention_fwd",
    "description": "Scaled dot-product attention forward, O = softmax(scale Q K^T + mask) V, "
                   "fp32 softmax/accumulation; layouts and the C entry point in "
                   "kernels/include/ktraj_kernel.h.",
    "reference": "builtin:attention_fwd_fp32 (kernels/ref/ref_kernels.cuh attn_ref)",
    "flops": "4*B*Hq*Sq*Sk*D/(causal?2:1)  (FA2/FA3 benchmark convention)",
    "bytes": "esz*(2*B*Hq*Sq*D + 2*B*Hkv*Sk*D)",
    "input_sets": 5,
    "tolerance": {"bf16": {"atol": 2e-2, "rtol": 4e-2, "rel_l2": 1e-2},
                  "fp16": {"atol": 5e-3, "rtol": 1e-2, "rel_l2": 3e-3}},
    "kernels": ["../attention_fwd/06_wgmma_tma.cu", "../attention_fwd/01_naive.cu",
                "../attention_fwd/02_tiled_smem.cu", "../attention_fwd/03_online_softmax.cu",
                "../attention_fwd/04_mma_tensorcore.cu", "../attention_fwd/05_mma_pipelined.cu"],
    "kernels_note": "kernels[0] is the fastest rung (the one a sweep should use); the rest is the ladder in order",
    "scenarios": sc,
}
print(json.dumps(spec, indent=1))
