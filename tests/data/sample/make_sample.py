#!/usr/bin/env python3
"""Writes softmax_session.jsonl: a small Claude Code-style session (format of
~/.claude/projects/<cwd>/<sessionId>.jsonl, CC 1.0.x) made up for ktraj's
README and tests.  An agent speeds up a row-softmax CUDA kernel: it reads
the file, edits, compiles with nvcc (one failed build), benchmarks, and a
person asks a question right before the biggest speedup.  Run from this
folder; the output is committed, this script documents how it was made.
bench.h, the benchmark driver the kernel includes, is shipped beside it and
read in the session, so a bench step's replay bundle can build and run."""
import json, uuid

SID = "5f0c7d2e-9a41-4b8e-8c3f-2d6a1e0b7c55"
CWD = "/home/dev/softmax"
SRC = CWD + "/softmax.cu"
HDR = CWD + "/bench.h"
BENCH_H = open("bench.h").read()  # shipped beside this script
t = [1748779200]  # 2025-06-01T12:00:00Z
lines, last = [], [None]

V0 = """#include <cuda_runtime.h>
#include "bench.h"

// row softmax: one thread per row, three passes over global memory
__global__ void softmax(const float *x, float *y, int rows, int cols)
{
\tint r = blockIdx.x * blockDim.x + threadIdx.x;
\tif (r >= rows)
\t\treturn;
\tconst float *in = x + (size_t)r * cols;
\tfloat *out = y + (size_t)r * cols;
\tfloat m = -INFINITY, s = 0.f;
\tfor (int c = 0; c < cols; c++)
\t\tm = fmaxf(m, in[c]);
\tfor (int c = 0; c < cols; c++)
\t\ts += __expf(in[c] - m);
\tfor (int c = 0; c < cols; c++)
\t\tout[c] = __expf(in[c] - m) / s;
}

int main(int argc, char **argv)
{
\treturn bench_main(argc, argv, softmax, 128);
}
"""
OLD1 = """// row softmax: one thread per row, three passes over global memory
__global__ void softmax(const float *x, float *y, int rows, int cols)
{
\tint r = blockIdx.x * blockDim.x + threadIdx.x;
\tif (r >= rows)
\t\treturn;
\tconst float *in = x + (size_t)r * cols;
\tfloat *out = y + (size_t)r * cols;
\tfloat m = -INFINITY, s = 0.f;
\tfor (int c = 0; c < cols; c++)
\t\tm = fmaxf(m, in[c]);
\tfor (int c = 0; c < cols; c++)
\t\ts += __expf(in[c] - m);
\tfor (int c = 0; c < cols; c++)
\t\tout[c] = __expf(in[c] - m) / s;
}"""
NEW1 = """// row softmax: one warp per row, warp shuffles for max and sum
__device__ float warp_max(float v)
{
\tfor (int o = 16; o > 0; o /= 2)
\t\tv = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
\treturn v;
}

__device__ float warp_sum(float v)
{
\tfor (int o = 16; o > 0; o /= 2)
\t\tv += __shfl_xor_sync(0xffffffff, v, o);
\treturn v;
}

__global__ void softmax(const float *x, float *y, int rows, int cols)
{
\tint r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
\tif (r >= rows)
\t\treturn;
\tconst float *in = x + (size_t)r * cols;
\tfloat *out = y + (size_t)r * cols;
\tfloat m = -INFINITY, s = 0.f;
\tfor (int c = lane; c < cols; c += 32)
\t\tm = fmaxf(m, in[c]);
\tm = warp_max(m);
\tfor (int c = lane; c < cols; c += 32)
\t\ts += __expf(in[c] - m);
\ts = warp_sum(s);
\tfor (int c = lane; c < cols; c += 32)
\t\tout[c] = __expf(in[c] - m) / s;
}"""
OLD2 = """\tfloat m = -INFINITY, s = 0.f;
\tfor (int c = lane; c < cols; c += 32)
\t\tm = fmaxf(m, in[c]);
\tm = warp_max(m);
\tfor (int c = lane; c < cols; c += 32)
\t\ts += __expf(in[c] - m);
\ts = warp_sum(s);
\tfor (int c = lane; c < cols; c += 32)
\t\tout[c] = __expf(in[c] - m) / s;"""
NEW2 = """\t// online softmax (Milakov & Gimelshein 2018): one read of the row
\tfloat v[128], m = -INFINITY, s = 0.f;
\tint n = 0;
\tfor (int c = lane; c < cols; c += 32, n++) {
\t\tv[n] = in[c];
\t\tfloat mn = fmaxf(m, v[n]);
\t\ts = s * __expf(m - mn) + __expf(v[n] - mn);
\t\tm = mn;
\t}
\tfloat wm = warp_max(m);
\ts = warp_sum(s * __expf(m - wm));
\tfor (int i = 0, c = lane; i < n; i++, c += 32)
\t\tout[c] = __expf(v[i] - wm) * __frcp_rn(s);"""
OLD3 = "\t\tout[c] = __expf(v[i] - wm) * __frcp_rn(s);"
NEW3 = "\t\tout[c] = __expf(v[i] - wm) * (1.f / s);"

def ts():
    t[0] += 37
    import datetime
    return datetime.datetime.fromtimestamp(t[0], datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"

def base(kind):
    u = str(uuid.uuid5(uuid.NAMESPACE_URL, "ktraj-sample-%d" % len(lines)))
    d = {"parentUuid": last[0], "isSidechain": False, "userType": "external", "cwd": CWD,
         "sessionId": SID, "version": "1.0.53", "type": kind, "uuid": u, "timestamp": ts()}
    last[0] = u
    return d

def user(text):
    d = base("user"); d["message"] = {"role": "user", "content": text}; lines.append(d)

mid = [0]
def assistant(blocks, out_tokens=80):
    mid[0] += 1
    d = base("assistant")
    d["requestId"] = "req_sm%03d" % mid[0]
    d["message"] = {"id": "msg_sm%03d" % mid[0], "type": "message", "role": "assistant",
                    "model": "claude-sonnet-4-20250514", "content": blocks,
                    "stop_reason": "tool_use" if blocks[-1]["type"] == "tool_use" else "end_turn",
                    "stop_sequence": None,
                    "usage": {"input_tokens": 900 + 150 * mid[0], "cache_read_input_tokens": 12000,
                              "cache_creation_input_tokens": 0, "output_tokens": out_tokens}}
    lines.append(d)

tid = [0]
def tool(name, inp, result_text, tur, is_error=False, say=None):
    tid[0] += 1
    i = "toolu_01Sm%04dKtrajSample" % tid[0]
    blocks = ([{"type": "text", "text": say}] if say else []) + [{"type": "tool_use", "id": i, "name": name, "input": inp}]
    assistant(blocks)
    d = base("user")
    blk = {"tool_use_id": i, "type": "tool_result", "content": result_text}
    if is_error:
        blk["is_error"] = True
    d["message"] = {"role": "user", "content": [blk]}
    d["toolUseResult"] = tur
    lines.append(d)

def bash(cmd, stdout, stderr="", error=False, say=None):
    text = stdout if not error else ("Error: " + stderr)
    tool("Bash", {"command": cmd, "description": "run " + cmd.split()[0]}, text,
         {"stdout": stdout, "stderr": stderr, "interrupted": False, "isImage": False}, error, say)

def edit(old, new, cur, say=None):
    after = cur.replace(old, new, 1)
    tool("Edit", {"file_path": SRC, "old_string": old, "new_string": new},
         "The file %s has been updated." % SRC,
         {"filePath": SRC, "oldString": old, "newString": new, "originalFile": cur,
          "replaceAll": False, "structuredPatch": [], "userModified": False}, False, say)
    return after

BUILD = "nvcc -O3 -arch=sm_90 -o softmax softmax.cu"
BENCH = "./softmax --bench 4096x4096"
def bench_out(ms, ref=1.874, err="3.1e-07"):
    return ("softmax 4096x4096 fp32 on NVIDIA H100 80GB HBM3\n"
            "warmup 10, iterations 100\n"
            "time: %.3f ms (reference %.3f ms)\n"
            "speedup: %.2fx\n"
            "max_abs_err: %s  check: PASS\n" % (ms, ref, ref / ms, err))

user("The row softmax in softmax.cu is too slow on the H100 (4096 rows of 4096 floats). "
     "Make it faster and keep the max error below 1e-5. Build with `%s` and measure with `%s`." % (BUILD, BENCH))
tool("Read", {"file_path": SRC}, V0, {"type": "text", "file": {"filePath": SRC, "content": V0,
     "numLines": V0.count("\n"), "startLine": 1, "totalLines": V0.count("\n")}},
     say="Let me look at the kernel and get a baseline first.")
# the benchmark driver softmax.cu includes: read here, so the trajectory
# (and a replay bundle of a bench step) has it (issue 16)
tool("Read", {"file_path": HDR}, BENCH_H, {"type": "text", "file": {"filePath": HDR, "content": BENCH_H,
     "numLines": BENCH_H.count("\n"), "startLine": 1, "totalLines": BENCH_H.count("\n")}})
bash(BUILD, "")
bash(BENCH, bench_out(1.874, err="0.0e+00"))
cur = edit(OLD1, NEW1, V0, say="One thread per row leaves most lanes idle and every access is uncoalesced. "
           "I'll give each row a warp and reduce with shuffles.")
bash(BUILD, "")
bash(BENCH, bench_out(0.309))
user("Does it still read each row three times from global memory? Could you keep the row "
     "in registers and do a single pass with an online softmax?")
cur = edit(OLD2, NEW2, cur, say="Right: the max, sum and write passes each read the row. With an online "
           "softmax the row is read once into registers (128 floats per lane for 4096 columns).")
bash(BUILD, "", "softmax.cu(41): error: identifier \"__frcp_rn\" is undefined in device code\n"
     "1 error detected in the compilation of \"softmax.cu\".\n", error=True)
cur = edit(OLD3, NEW3, cur, say="__frcp_rn is not available here; a plain reciprocal is enough.")
bash(BUILD, "")
bash(BENCH, bench_out(0.118, err="4.8e-07"))
assistant([{"type": "text", "text": "Done: 1.874 ms -> 0.118 ms (15.9x) with max error 4.8e-07. "
            "The single-pass online softmax was the big step (2.6x over the warp version)."}])

with open("softmax_session.jsonl", "w") as f:
    for d in lines:
        f.write(json.dumps(d, ensure_ascii=False, separators=(",", ":")) + "\n")
