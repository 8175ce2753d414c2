#!/usr/bin/env python3
"""Writes cc_bench_session.jsonl: a small Claude Code session whose steps can
be replayed on any machine with a C compiler (no GPU): the agent writes
bench.c, compiles it with cc and runs it; the program prints a benchmark
line.  RECORDED_MS is what the recording says; the program prints PRINTED_MS,
so replay verdicts are known in advance (equal -> reproduced)."""
import json, sys

RECORDED_MS = sys.argv[1] if len(sys.argv) > 1 else "2.50"
PRINTED_MS = sys.argv[2] if len(sys.argv) > 2 else RECORDED_MS
sid = "replay-fixture-%s-%s" % (RECORDED_MS, PRINTED_MS)
cwd = "/home/alice/proj"
src = ('#include <stdio.h>\n'
       'int main(void)\n{\n'
       '\tprintf("time_ms: %s\\n");\n'
       '\tprintf("PASSED\\n");\n'
       '\treturn 0;\n}\n') % PRINTED_MS
lines, n = [], [0]

def line(kind, msg, extra=None, parent=None):
    n[0] += 1
    d = {"type": kind, "message": msg, "uuid": "u%04d" % n[0],
         "parentUuid": parent, "sessionId": sid, "cwd": cwd,
         "version": "1.0.90", "userType": "external", "isSidechain": False,
         "timestamp": "2026-05-14T14:%02d:%02d.000Z" % (n[0] // 60, n[0] % 60)}
    if extra:
        d.update(extra)
    lines.append(d)

def call(i, name, inp):
    line("assistant", {"id": "msg_%d" % i, "role": "assistant", "model": "claude-opus-4",
                       "content": [{"type": "tool_use", "id": "toolu_%d" % i, "name": name, "input": inp}],
                       "usage": {"input_tokens": 10, "output_tokens": 5}})

def result(i, text, tur):
    line("user", {"role": "user", "content": [{"tool_use_id": "toolu_%d" % i, "type": "tool_result", "content": text}]},
         {"toolUseResult": tur})

line("user", {"role": "user", "content": "Write a benchmark for the kernel and time it."})
call(1, "Write", {"file_path": cwd + "/bench.c", "content": src})
result(1, "File created successfully at: " + cwd + "/bench.c",
       {"type": "create", "filePath": cwd + "/bench.c", "content": src, "structuredPatch": []})
call(2, "Bash", {"command": "cc -O2 -o bench bench.c", "description": "build"})
result(2, "", {"stdout": "", "stderr": "", "interrupted": False, "isImage": False})
call(3, "Bash", {"command": "./bench", "description": "run the benchmark"})
out = "time_ms: %s\nPASSED" % RECORDED_MS
result(3, out, {"stdout": out, "stderr": "", "interrupted": False, "isImage": False})
for d in lines:
    print(json.dumps(d))
