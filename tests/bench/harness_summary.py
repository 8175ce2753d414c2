#!/usr/bin/env python3
"""Print the tables of tests/bench/RESULTS.md "Harness (H200)" from the files
harness_gpu.sh writes (argument: its work directory)."""
import json
import os
import sys

W = sys.argv[1]


def rows(name):
    p = os.path.join(W, name)
    if not os.path.exists(p):
        return []
    out = []
    for line in open(p):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("type", "result") == "result":
            out.append(r)
    return out


def f(x, nd=1):
    return "-" if x is None else f"{x:.{nd}f}"


rungs = ["01_naive", "02_tiled_smem", "03_online_softmax", "04_mma_tensorcore", "05_mma_pipelined"]
lad = {k: {r["scenario"]: r for r in rows(f"ladder_{k}.ndjson")} for k in rungs}
sd = {r["scenario"]: r for r in rows("sdpa.ndjson")}
names = []
for k in rungs:
    for n in lad[k]:
        if n not in names:
            names.append(n)
if names:
    print("## Ladder: TFLOP/s (harness median, L2 flushed) next to PyTorch SDPA (do_bench median)")
    print("| scenario | " + " | ".join(rungs) + " | SDPA cuDNN | SDPA flash |")
    print("|---" * (len(rungs) + 3) + "|")
    for n in names:
        cells = []
        for k in rungs:
            r = lad[k].get(n)
            if not r:
                cells.append("-")
            elif r["status"] in ("ok", "flagged"):
                cells.append(f(r.get("tflops")))
            else:
                cells.append(r["status"])
        s = sd.get(n, {})
        print(f"| {n} | " + " | ".join(cells) + f" | {f(s.get('cudnn_tflops'))} | {f(s.get('flash_tflops'))} |")
    print()
    ref = [r for r in lad["04_mma_tensorcore"].values() if r.get("ref_tflops")]
    if ref:
        print("fp32 reference kernel TFLOP/s on the same scenarios: " +
              ", ".join(f"{r['scenario']}={f(r['ref_tflops'])}" for r in ref))
        print()
extra = [r for n, r in sd.items() if n not in names]
if extra:
    print("| SDPA only | cuDNN TFLOP/s | flash TFLOP/s |\n|---|---|---|")
    for r in extra:
        print(f"| {r['scenario']} | {f(r.get('cudnn_tflops'))} | {f(r.get('flash_tflops'))} |")
    print()

h = {r["scenario"]: r for r in rows("db_harness.ndjson")}
t = {r["scenario"]: r for r in rows("db_triton.ndjson")}
if h or t:
    print("## Harness median vs triton.testing.do_bench median (same kernel, same call)")
    print("| scenario | harness ms (n) | do_bench ms | diff % |\n|---|---|---|---|")
    for n in h:
        a, b = h[n].get("time_ms"), t.get(n, {}).get("do_bench_median_ms")
        d = (a - b) / b * 100 if a and b else None
        print(f"| {n} | {f(a, 4)} ({h[n].get('n')}) | {f(b, 4)} | {f(d, 2)} |")
    print()
aa = rows("aa.ndjson")
if aa:
    print("## A/A: candidate timed against itself (speedup, bootstrap 95 % CI)")
    print("| scenario | speedup | CI | n per arm | blocks |\n|---|---|---|---|---|")
    for r in aa:
        ci = r.get("speedup_ci") or [None, None]
        print(f"| {r['scenario']} | {f(r.get('speedup'), 4)} | [{f(ci[0], 4)}, {f(ci[1], 4)}] | {r.get('n')} | {r.get('protocol', {}).get('blocks')} |")
    print()
sw = rows("sweep.ndjson")
if sw:
    st = {}
    for r in sw:
        st[r["status"]] = st.get(r["status"], 0) + 1
    print("## Full sweep of 04_mma_tensorcore: " + ", ".join(f"{k}={v}" for k, v in sorted(st.items())))
    bad = [r for r in sw if r["status"] != "ok"]
    for r in bad[:20]:
        print(f"  {r['scenario']}: {r['status']}: {r.get('reason')}")
    tf = [r["tflops"] for r in sw if r.get("tflops")]
    if tf:
        print(f"  TFLOP/s min {min(tf):.1f} median {sorted(tf)[len(tf)//2]:.1f} max {max(tf):.1f}; "
              f"throttled samples dropped {sum(r.get('throttled_dropped', 0) for r in sw)}")
    fp = sw[0].get("fingerprint", {})
    print("  fingerprint:", json.dumps({k: fp.get(k) for k in ("gpu", "uuid", "cc", "sms", "l2_bytes", "driver", "cuda_runtime", "sm_clock_max_mhz", "power_limit_w", "ecc", "mig", "peak_tflops_16bit", "peak_gbps")}))
    print()
ck = rows("check.ndjson")
if ck:
    st = {}
    for r in ck:
        st[r["status"]] = st.get(r["status"], 0) + 1
    print("## Correctness-only pass: " + ", ".join(f"{k}={v}" for k, v in sorted(st.items())))
    for r in [r for r in ck if r["status"] != "ok"][:20]:
        print(f"  {r['scenario']}: {r['status']}: {r.get('reason')} {r.get('check', {}).get('worst')}")
    print()
p = os.path.join(W, "anti", "antigaming.txt")
if os.path.exists(p):
    print("## Anti-gaming suite")
    print(open(p).read())
for fn in ("summary.txt",):
    p = os.path.join(W, fn)
    if os.path.exists(p):
        print(open(p).read())
