#!/usr/bin/env python3
"""Writes the ktraj JSONL fixtures of tests/cli/core.bats (run from this
folder).  edits.jsonl: a small kernel session with file versions kept as
blob lines, two files named kernel.cu, a create, modify and delete."""
import hashlib, json

T0 = 1767225600123456789  # 2026-01-01T00:00:00.123456789Z: needs exact ints
V1 = "__global__ void k(float *x)\n{\n\tx[threadIdx.x] *= 2.0f;\n}\n"
V2 = ("#include \"util.h\"\n__global__ void k(float *x)\n{\n"
      "\t__shared__ float t[256];\n\tt[threadIdx.x] = x[threadIdx.x];\n"
      "\tx[threadIdx.x] = TWICE(t[threadIdx.x]);\n}\n")
U1 = "#define TWICE(v) ((v) * 2.0f)\n"
T1 = "// test kernel\nint main(void) { return 0; }\n"
SRC, UTIL, TST = "/work/proj/src/kernel.cu", "/work/proj/src/util.h", "/work/proj/test/kernel.cu"

def h(s): return hashlib.sha256(s.encode()).hexdigest()

lines, seq = [], 0
def blob(path, text): lines.append({"blob": h(text), "path": path, "text": text})
def ev(kind, actor, payload, parent=None, ts=True):
    global seq
    seq += 1
    lines.append({"seq": seq, "parent": parent, "ts": T0 + seq * 1000000001 if ts else None,
                  "kind": kind, "actor": actor, "prov": None, "payload": payload})
    return seq

ev("message", "human", {"role": "user", "human": True, "text": "Please make kernel.cu faster.\nKeep it correct."})
c = ev("tool_call", "agent", {"tool": "Write", "call_id": "c1", "args": {"file_path": SRC, "content": V1}})
ev("tool_result", "tool", {"call_id": "c1", "ok": True, "output": "File created"}, c)
blob(SRC, V1)
ev("edit", "agent", {"path": SRC, "op": "create", "before": None, "after": h(V1), "tool": "Write", "call": c}, c)
c = ev("tool_call", "agent", {"tool": "Bash", "call_id": "c2", "args": {"command": "nvcc -O3 -arch=sm_90 -o k src/kernel.cu"}})
ev("tool_result", "tool", {"call_id": "c2", "ok": True, "output": ""}, c)
ev("compile", "tool", {"command": "nvcc -O3 -arch=sm_90 -o k src/kernel.cu", "compiler": "nvcc", "exit_code": 0}, c)
c = ev("tool_call", "agent", {"tool": "Bash", "call_id": "c3", "args": {"command": "./bench"}})
ev("tool_result", "tool", {"call_id": "c3", "ok": True, "output": "kernel time: 2.50 ms (baseline 2.50 ms)"}, c)
ev("bench", "tool", {"time_ms": 2.5, "speedup": 1.0, "correct": True}, c)
ev("message", "human", {"role": "user", "human": True, "text": "Have you tried shared memory tiling?"})
c = ev("tool_call", "agent", {"tool": "Write", "call_id": "c4", "args": {"file_path": UTIL, "content": U1}})
ev("tool_result", "tool", {"call_id": "c4", "ok": True, "output": "File created"}, c)
blob(UTIL, U1)
ev("edit", "agent", {"path": UTIL, "op": "create", "before": None, "after": h(U1), "tool": "Write", "call": c}, c)
c = ev("tool_call", "agent", {"tool": "Edit", "call_id": "c5", "args": {"file_path": SRC}})
ev("tool_result", "tool", {"call_id": "c5", "ok": True, "output": "The file has been updated"}, c)
blob(SRC, V2)
ev("edit", "agent", {"path": SRC, "op": "modify", "before": h(V1), "after": h(V2), "tool": "Edit", "call": c}, c)
c = ev("tool_call", "agent", {"tool": "Write", "call_id": "c6", "args": {"file_path": TST, "content": T1}})
ev("tool_result", "tool", {"call_id": "c6", "ok": True, "output": "File created"}, c)
blob(TST, T1)
ev("edit", "agent", {"path": TST, "op": "create", "before": None, "after": h(T1), "tool": "Write", "call": c}, c)
c = ev("tool_call", "agent", {"tool": "Bash", "call_id": "c7", "args": {"command": "./bench"}})
ev("tool_result", "tool", {"call_id": "c7", "ok": True, "output": "kernel time: 1.00 ms speedup 2.50x"}, c)
ev("bench", "tool", {"time_ms": 1.0, "speedup": 2.5, "correct": True}, c)
c = ev("tool_call", "agent", {"tool": "Bash", "call_id": "c8", "args": {"command": "rm src/util.h"}})
ev("tool_result", "tool", {"call_id": "c8", "ok": False, "output": "rm: done, exit 1", "exit_code": 1}, c)
ev("edit", "agent", {"path": UTIL, "op": "delete", "before": h(U1), "after": None, "tool": "shell", "call": c}, c)
ev("note", "system", {"text": "session ended"}, ts=False)

with open("edits.jsonl", "w") as f:
    for l in lines:
        f.write(json.dumps(l, separators=(",", ":"), ensure_ascii=False) + "\n")
