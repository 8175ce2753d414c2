#!/usr/bin/env python3
"""Generate attention_large.json: the 24 large bf16 shapes on which rung 06 is
compared with library attention (issue 22): B 4-16, H 16-32, S 1024-16384,
D 64/128, causal and not.  H*D = 2048 and B*S >= 16k tokens as in the
FlashAttention-3 paper's forward benchmarks (arXiv 2407.08608 section 4.1),
B at least 4.  Two input sets per scenario (not five): the fp32 reference
of the largest shape takes about a second per set.

Run: python3 kernels/tasks/gen_attention_large.py > kernels/tasks/attention_large.json
"""
import json

sc = []
for S in (1024, 2048, 4096, 6144, 8192, 16384):
    B = max(4, 16384 // S)
    for D in (64, 128):
        H = 2048 // D
        for c in (False, True):
            sc.append({"name": f"large_b{B}_h{H}_s{S}_d{D}_{'causal' if c else 'full'}_bf16",
                       "B": B, "Hq": H, "Hkv": H, "Sq": S, "Sk": S, "D": D, "causal": c,
                       "dtype": "bf16", "note": "FA3-paper-size forward: H*D=2048, B*S>=16k"})

spec = {
    "task": "attention_large",
    "version": 1,
    "op": "attention_fwd",
    "description": "attention_fwd.json's operator on 24 large bf16 shapes (library comparison set)",
    "reference": "builtin:attention_fwd_fp32 (kernels/ref/ref_kernels.cuh attn_ref)",
    "flops": "4*B*Hq*Sq*Sk*D/(causal?2:1)  (FA2/FA3 benchmark convention)",
    "bytes": "esz*(2*B*Hq*Sq*D + 2*B*Hkv*Sk*D)",
    "input_sets": 2,
    "tolerance": {"bf16": {"atol": 2e-2, "rtol": 4e-2, "rel_l2": 1e-2},
                  "fp16": {"atol": 5e-3, "rtol": 1e-2, "rel_l2": 3e-3}},
    "kernels": ["../attention_fwd/06_wgmma_tma.cu", "../attention_fwd/05_mma_pipelined.cu"],
    "scenarios": sc,
}
print(json.dumps(spec, indent=1))
