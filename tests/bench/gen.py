#!/usr/bin/env python3
"""gen.py - a deterministic synthetic agent trajectory in ktraj JSONL.

Usage: gen.py [--events N] [--seed S] OUT.jsonl

The mix follows the benchmark trajectory of storage_style.md (Appendix A):
prose messages, tool calls and results, ~5 % edits of a ~40 KB CUDA kernel
source (each edit writes a blob line with the full new text, then an edit
event naming it), compile and bench events from templates, notes.

Text comes from files every Debian 12 image with python3 has, read in
sorted order so the output is the same on every such machine:
  prose         docstrings and comments of /usr/lib/python3*/ *.py, taken
                sequentially (little reuse, like real assistant prose);
  tool output   random excerpts of /usr/include C headers (reuse, like real
                tool output that shows the same files again and again).
When those are missing a seeded word generator stands in (noted on stderr).
"""
import argparse
import glob
import hashlib
import json
import os
import random
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--events", type=int, default=100000)
ap.add_argument("--seed", type=int, default=42)
ap.add_argument("out")
args = ap.parse_args()
R = random.Random(args.seed)


def prose_pool(limit=24 << 20):
    out, n = [], 0
    files = sorted(glob.glob("/usr/lib/python3*/**/*.py", recursive=True))
    for f in files:
        try:
            text = open(f, encoding="utf-8", errors="replace").read()
        except OSError:
            continue
        in_doc = False
        for line in text.splitlines():
            s = line.strip()
            if s.startswith('"""') or s.endswith('"""'):
                in_doc = not in_doc if s.count('"""') == 1 else False
                s = s.strip('"')
                if s:
                    out.append(s)
                continue
            if in_doc and s:
                out.append(s)
            elif s.startswith("# ") and len(s) > 20:
                out.append(s[2:])
        n = sum(map(len, out)) if len(out) % 5000 == 0 else n
        if n > limit:
            break
    return out


def code_pool(limit=8 << 20):
    buf, n = [], 0
    for f in sorted(glob.glob("/usr/include/**/*.h", recursive=True)):
        try:
            t = open(f, encoding="utf-8", errors="replace").read()
        except OSError:
            continue
        buf.append(t)
        n += len(t)
        if n > limit:
            break
    return "".join(buf)


WORDS = ("the kernel thread block warp shared memory tile load store "
         "register occupancy latency bandwidth coalesced bank conflict "
         "pipeline async copy tensor core fragment accumulate reduce "
         "launch grid stride loop unroll vectorize float half bf16 "
         "matrix multiply softmax attention layer norm benchmark speedup "
         "correct error tolerance profile nsight compute cycles stall "
         "barrier sync we should try next because this is why it").split()

prose = prose_pool()
code = code_pool()
if len(prose) < 10000 or len(code) < 1 << 20:
    print("gen.py: system text not found, using a word generator",
          file=sys.stderr)
    prose = [" ".join(R.choice(WORDS) for _ in range(R.randint(6, 20)))
             for _ in range(200000)]
    code = "\n".join(" ".join(R.choice(WORDS) for _ in range(8))
                     for _ in range(100000))
prose_at = 0


def take_prose(nchars):
    global prose_at
    parts, n = [], 0
    while n < nchars:
        s = prose[prose_at % len(prose)]
        prose_at += 1
        parts.append(s)
        n += len(s) + 1
    return " ".join(parts)


def take_code(nchars):
    at = R.randrange(0, len(code) - nchars - 1)
    return code[at:at + nchars]


# ---- the kernel source --------------------------------------------------
def kernel_init():
    lines = ["#include <cuda_runtime.h>", "#include <cuda_fp16.h>", ""]
    f = 0
    while sum(len(x) + 1 for x in lines) < 40000:
        f += 1
        lines += [
            "template <int BM, int BN, int BK>",
            "__global__ void gemm_tile_%d(const half *__restrict__ A," % f,
            "                            const half *__restrict__ B,",
            "                            float *__restrict__ C, int M, int N, int K)",
            "{",
            "\t__shared__ half As[BM][BK + %d];" % (f % 8),
            "\t__shared__ half Bs[BK][BN + %d];" % (f % 8),
            "\tint row = blockIdx.y * BM + threadIdx.y;",
            "\tint col = blockIdx.x * BN + threadIdx.x;",
            "\tfloat acc[%d] = {0};" % (4 + f % 4),
            "\tfor (int k0 = 0; k0 < K; k0 += BK) {",
            "\t\tAs[threadIdx.y][threadIdx.x] = A[row * K + k0 + threadIdx.x];",
            "\t\tBs[threadIdx.y][threadIdx.x] = B[(k0 + threadIdx.y) * N + col];",
            "\t\t__syncthreads();",
            "#pragma unroll",
            "\t\tfor (int k = 0; k < BK; ++k)",
            "\t\t\tacc[k %% %d] += __half2float(As[threadIdx.y][k]) *" % (4 + f % 4),
            "\t\t\t\t__half2float(Bs[k][threadIdx.x]);",
            "\t\t__syncthreads();",
            "\t}",
            "\tif (row < M && col < N)",
            "\t\tC[row * N + col] = acc[0] + acc[1] + acc[2] + acc[3];",
            "}",
            "",
        ]
    return lines


MUT = [
    lambda: "\tconstexpr int STAGES = %d;" % R.randint(2, 6),
    lambda: "\t// try %s" % take_prose(40)[:70],
    lambda: "#define TILE_%d %d" % (R.randint(0, 9), R.choice([16, 32, 64, 128])),
    lambda: "\tint lane = threadIdx.x & %d;" % R.choice([15, 31]),
    lambda: "\tacc[%d] = fmaf(a%d, b%d, acc[%d]);" % tuple(R.randint(0, 7) for _ in range(4)),
]


def kernel_mutate(lines, n0):
    # 1-6 line changes; the length stays within 5 % of the first version
    for _ in range(R.randint(1, 6)):
        op = R.random()
        at = R.randrange(3, len(lines))
        if len(lines) > n0 * 1.05:
            op = 1
        elif len(lines) < n0 * 0.95:
            op = 0.5
        if op < 0.4:
            lines[at] = R.choice(MUT)()
        elif op < 0.7:
            lines.insert(at, R.choice(MUT)())
        else:
            del lines[at]


# ---- events -------------------------------------------------------------
out = open(args.out, "w", encoding="utf-8")
seq = 0
ts = 1767225600 * 10 ** 9
call_n = 0
kernel = kernel_init()
kernel_n0 = len(kernel)
history = []
PATH = "/work/proj/src/gemm.cu"


def sha(s):
    return hashlib.sha256(s.encode("utf-8")).hexdigest()


def emit(kind, actor, payload, parent=None):
    global seq, ts
    seq += 1
    ts += R.randint(10 ** 6, 3 * 10 ** 10)
    rec = {"seq": seq, "parent": parent, "ts": ts, "kind": kind,
           "actor": actor,
           "prov": {"src": "bench", "line": seq, "off": seq * 977},
           "payload": payload}
    out.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")))
    out.write("\n")
    return seq


def tool_pair(tool, targs, output, ok=True, exit_code=None):
    global call_n
    call_n += 1
    cid = "toolu_%024x" % R.getrandbits(96)
    c = emit("tool_call", "agent", {"tool": tool, "call_id": cid,
                                     "args": targs})
    res = {"call_id": cid, "ok": ok, "output": output}
    if exit_code is not None:
        res["exit_code"] = exit_code
    emit("tool_result", "tool", res, parent=c)
    return c


before = sha("\n".join(kernel) + "\n")
# the first version is a blob too: the first edit's "before" and the bench
# events before it name it, and an event naming a blob no line gives is
# refused (FORMAT.md "Blob references"); written before the first event,
# without drawing from R, so the rest of the file is unchanged
out.write(json.dumps({"blob": before, "path": PATH,
                      "text": "\n".join(kernel) + "\n"},
                     ensure_ascii=False, separators=(",", ":")))
out.write("\n")
blob_lines = 1
while seq < args.events:
    r = R.random()
    if r < 0.30:
        emit("message", "agent", {
            "role": "assistant", "human": False,
            "text": take_prose(R.randint(300, 3500)),
            "model": "claude-opus-4",
            "usage": {"input": R.randint(1000, 90000),
                      "output": R.randint(50, 4000),
                      "cache_read": R.randint(0, 80000),
                      "cache_creation": R.randint(0, 5000)},
            "msg_id": "msg_%024x" % R.getrandbits(96)})
    elif r < 0.35:
        emit("message", "human", {"role": "user", "human": True,
                                  "text": take_prose(R.randint(40, 400))})
    elif r < 0.45:
        tool_pair("Read", {"file_path": "/usr/include/x.h"},
                  take_code(R.randint(500, 6000)))
    elif r < 0.52:
        tool_pair("Bash", {"command": "grep -rn tile src/ | head -50"},
                  take_code(R.randint(200, 2000)), exit_code=0)
    elif r < 0.60:
        # an edit of the kernel: Edit call, result, blob, edit event
        if history and R.random() < 0.08:
            kernel = list(R.choice(history[-40:]))
        else:
            kernel_mutate(kernel, kernel_n0)
        text = "\n".join(kernel) + "\n"
        h = sha(text)
        c = tool_pair("Edit", {"file_path": PATH,
                               "old_string": kernel[5],
                               "new_string": kernel[6]},
                      "The file %s has been updated." % PATH)
        out.write(json.dumps({"blob": h, "path": PATH, "text": text},
                             ensure_ascii=False, separators=(",", ":")))
        out.write("\n")
        blob_lines += 1
        emit("edit", "agent", {"path": PATH, "op": "modify",
                               "before": before, "after": h,
                               "tool": "Edit", "call": c}, parent=c)
        before = h
        history.append(list(kernel))
        history = history[-64:]
    elif r < 0.75:
        ec = 0 if R.random() < 0.8 else 1
        diag = "" if ec == 0 else take_code(R.randint(100, 800))
        emit("compile", "harness", {
            "command": "nvcc -O3 -arch=sm_90 -o gemm src/gemm.cu",
            "cwd": "/work/proj", "compiler": "nvcc", "version": "12.4",
            "flags": ["-O3", "-arch=sm_90"], "arch": "sm_90",
            "exit_code": ec, "duration_ms": R.randint(800, 9000),
            "output_hash": sha(str(seq)), "sources": [PATH],
            "diagnostics": diag})
    elif r < 0.92:
        t = round(R.uniform(0.05, 3.0), 4)
        ref = round(R.uniform(0.5, 3.0), 4)
        emit("bench", "harness", {
            "workload": "gemm_fp16", "scenario": "M%dN%dK%d" % (
                R.choice([1024, 2048, 4096]), R.choice([1024, 4096]),
                R.choice([512, 4096])),
            "candidate_blob": before, "time_ms": t,
            "min_ms": round(t * 0.97, 4), "max_ms": round(t * 1.05, 4),
            "n": 50, "ref_time_ms": ref, "speedup": round(ref / t, 3),
            "correct": R.random() < 0.9,
            "error": {"max_abs": R.random() / 1000, "max_rel": R.random() / 100},
            "fingerprint": {"gpu": "NVIDIA H200", "driver": "550.54",
                            "cuda": "12.4", "clock_mhz": 1980},
            "tflops": round(R.uniform(50, 700), 2)})
    else:
        emit("note", "harness", {"text": take_prose(R.randint(80, 500))})
out.close()
print("gen.py: %d events, %d blob lines -> %s (%d bytes)" %
      (seq, blob_lines, args.out, os.path.getsize(args.out)), file=sys.stderr)
