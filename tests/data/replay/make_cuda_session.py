#!/usr/bin/env python3
"""make_cuda_session.py SRC.cu OUTPUT.txt > session.jsonl: a Claude Code-style
session in which the agent writes SRC.cu, builds it with nvcc and runs it; the
run's output is OUTPUT.txt, captured on the GPU where the session is recorded
(tests/harness/imported_gpu.sh)."""
import json, sys

src = open(sys.argv[1]).read()
out = open(sys.argv[2]).read().strip()
sid, cwd, n = "cuda-saxpy-session", "/home/alice/saxpy", [0]
lines = []

def line(kind, msg, extra=None):
    n[0] += 1
    d = {"type": kind, "message": msg, "uuid": "c%04d" % n[0], "parentUuid": None,
         "sessionId": sid, "cwd": cwd, "version": "1.0.90", "userType": "external",
         "isSidechain": False, "timestamp": "2026-11-29T16:%02d:%02d.000Z" % (n[0] // 60, n[0] % 60)}
    d.update(extra or {})
    lines.append(d)

def call(i, name, inp):
    line("assistant", {"id": "m%d" % i, "role": "assistant", "model": "claude-opus-4",
                       "content": [{"type": "tool_use", "id": "t%d" % i, "name": name, "input": inp}]})

def result(i, text, tur):
    line("user", {"role": "user", "content": [{"tool_use_id": "t%d" % i, "type": "tool_result", "content": text}]},
         {"toolUseResult": tur})

line("user", {"role": "user", "content": "Write a saxpy benchmark in CUDA, build it with nvcc and time it."})
call(1, "Write", {"file_path": cwd + "/saxpy_bench.cu", "content": src})
result(1, "File created", {"type": "create", "filePath": cwd + "/saxpy_bench.cu", "content": src, "structuredPatch": []})
call(2, "Bash", {"command": "nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o saxpy_bench saxpy_bench.cu"})
result(2, "", {"stdout": "", "stderr": "", "interrupted": False, "isImage": False})
call(3, "Bash", {"command": "./saxpy_bench"})
result(3, out, {"stdout": out, "stderr": "", "interrupted": False, "isImage": False})
for d in lines:
    print(json.dumps(d))
