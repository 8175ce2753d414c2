#!/usr/bin/env python3
"""Deterministic synthetic Claude Code session for tests/bench/import_claude.sh.

Shape follows real 1.0.x sessions (../shared/research/formats.md section 1):
split assistant lines sharing message.id with usage on each, Read results
with whole-file toolUseResult.file.content, Edit results with originalFile,
Write, Bash with stdout/stderr and benchmark-like output, human prompts.
Usage: gen_claude.py [--mb N] OUT.jsonl
"""
import argparse
import json
import random

WORDS = ("kernel block thread warp shared memory tile load store sync reduce "
         "coalesce bank conflict occupancy register latency throughput "
         "vector scalar float half index stride offset launch grid").split()


def code(rng, lines):
    out = ["#include <cuda_runtime.h>", ""]
    for i in range(lines):
        w = rng.sample(WORDS, 3)
        out.append("    float %s_%d = %s[%d] * %s; // %s" % (w[0], i, w[1], i, w[2], " ".join(rng.sample(WORDS, 4))))
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=100)
    ap.add_argument("out")
    a = ap.parse_args()
    rng = random.Random(42)
    target = a.mb << 20
    sid = "bench-0000-claude"
    n = 0
    size = 0
    parent = None
    files = {}
    t = 0

    def line(d):
        nonlocal n, size, parent, t
        n += 1
        t += 1
        d.update({"parentUuid": parent, "isSidechain": False, "userType": "external",
                  "cwd": "/home/u/proj", "sessionId": sid, "version": "1.0.53",
                  "uuid": "u%d" % n,
                  "timestamp": "2025-07-%02dT%02d:%02d:%02d.%03dZ" % (1 + t // 86400 % 28, t // 3600 % 24, t // 60 % 60, t % 60, n % 1000)})
        parent = d["uuid"]
        s = json.dumps(d, separators=(",", ":"), ensure_ascii=False)
        f.write(s + "\n")
        size += len(s) + 1

    def assistant(mid, blocks):
        for i, b in enumerate(blocks):
            line({"type": "assistant", "requestId": "req_" + mid,
                  "message": {"id": "msg_" + mid, "type": "message", "role": "assistant",
                              "model": "claude-sonnet-4-20250514", "content": [b],
                              "stop_reason": None if i + 1 < len(blocks) else "tool_use",
                              "usage": {"input_tokens": 4, "cache_creation_input_tokens": 100,
                                        "cache_read_input_tokens": 20000, "output_tokens": 10 * (i + 1)}}})

    def result(tid, content, tur, err=False):
        b = {"tool_use_id": tid, "type": "tool_result", "content": content}
        if err:
            b["is_error"] = True
        line({"type": "user", "message": {"role": "user", "content": [b]}, "toolUseResult": tur})

    with open(a.out, "w") as f:
        k = 0
        while size < target:
            k += 1
            path = "/home/u/proj/src/k%d.cu" % (k % 40)
            if k % 10 == 1:
                line({"type": "user", "message": {"role": "user", "content": "Make %s faster, %s" % (path, " ".join(rng.sample(WORDS, 8)))}})
            if path not in files:
                files[path] = code(rng, rng.randint(60, 200))
            body = files[path]
            tid = "toolu_%d_r" % k
            assistant("%d_a" % k, [{"type": "text", "text": "Let me look at " + path},
                                   {"type": "tool_use", "id": tid, "name": "Read", "input": {"file_path": path}}])
            shown = "\n".join("%6d\u2192%s" % (i + 1, l) for i, l in enumerate(body.split("\n")))
            result(tid, shown, {"type": "text", "file": {"filePath": path, "content": body,
                                "numLines": body.count("\n") + 1, "startLine": 1, "totalLines": body.count("\n") + 1}})
            ls = body.split("\n")
            j = rng.randrange(2, len(ls) - 1)
            old, new = ls[j], ls[j] + " // tuned %d" % k
            tid = "toolu_%d_e" % k
            assistant("%d_b" % k, [{"type": "tool_use", "id": tid, "name": "Edit",
                                    "input": {"file_path": path, "old_string": old, "new_string": new}}])
            result(tid, "The file %s has been updated." % path,
                   {"filePath": path, "oldString": old, "newString": new, "originalFile": body,
                    "replaceAll": False, "userModified": False,
                    "structuredPatch": [{"oldStart": j, "oldLines": 1, "newStart": j, "newLines": 1, "lines": ["-" + old, "+" + new]}]})
            files[path] = body.replace(old, new, 1)
            tid = "toolu_%d_b" % k
            cmd = "nvcc -O3 -arch=sm_90 -o k src/k%d.cu && ./k --iters 100" % (k % 40)
            assistant("%d_c" % k, [{"type": "text", "text": "Build and time it."},
                                   {"type": "tool_use", "id": tid, "name": "Bash", "input": {"command": cmd, "description": "build and run"}}])
            out = "kernel: %s\ntime_ms: %.3f\nspeedup: %.2fx\n" % (rng.choice(WORDS), rng.uniform(0.5, 9), rng.uniform(0.8, 3))
            result(tid, out, {"stdout": out, "stderr": "", "interrupted": False, "isImage": False})
            if k % 7 == 0:
                tid = "toolu_%d_w" % k
                newf = code(rng, rng.randint(40, 120))
                wpath = "/home/u/proj/src/new%d.cu" % k
                assistant("%d_d" % k, [{"type": "tool_use", "id": tid, "name": "Write", "input": {"file_path": wpath, "content": newf}}])
                result(tid, "File created successfully at: " + wpath, {"type": "create", "filePath": wpath, "content": newf, "structuredPatch": []})


if __name__ == "__main__":
    main()
