#!/usr/bin/env python3
"""Write a small ktraj JSONL run for the report tests (argv[1]): a task, a
failed build (compile exit 1, its tool result exit 1), three steady
results, a question, the agent's answer and an edit (with both file
versions as blobs) and a jump, a hostile message (</script>, <img onerror>,
terminal controls) and an edit with no question before it and a second
jump, two results before the run ends (its label meets the right edge).  Known answers: 2 jumps (J1 after the question, J2 by the agent
alone), 1 question, 1 failed build, every event one timeline row."""
import hashlib, json, sys

HOSTILE = ("</script><script>document.title='pwned'</script>"
           "<img src=x onerror=\"document.title='pwned'\">"
           "\x1b]0;TITLE\x07\x1b[2J done & \"quoted\" 'x'")
A = "__global__ void k(float *x)\n{\n\tx[threadIdx.x] *= 2.0f;\n}\n"
B = "__global__ void k(float4 *x)\n{\n\tx[threadIdx.x].x *= 2.0f;\n}\n"
C = B + "// unrolled\n"


def sha(t):
    return hashlib.sha256(t.encode()).hexdigest()


out = open(sys.argv[1], "w")
for t in (A, B, C):
    out.write(json.dumps({"blob": sha(t), "path": "k.cu", "text": t}) + "\n")
seq = 0


def ev(kind, actor, payload, parent=None):
    global seq
    seq += 1
    out.write(json.dumps({"seq": seq, "parent": parent,
                          "ts": 1767225600000000000 + seq * 60 * 10**9,
                          "kind": kind, "actor": actor, "prov": None,
                          "payload": payload}) + "\n")
    return seq


def bench(sp):
    ev("bench", "tool", {"time_ms": round(1.0 / sp, 5), "ref_time_ms": 1.0,
                         "speedup": sp, "correct": True})


def msg(actor, text):
    human = actor == "human"
    ev("message", actor, {"role": "user" if human else "assistant",
                          "human": human, "text": text})


msg("human", "Make k.cu faster and keep it correct.")
c = ev("tool_call", "agent", {"tool": "Bash", "call_id": "c1",
                              "args": {"command": "nvcc -O3 -o k k.cu"}})
ev("tool_result", "tool", {"call_id": "c1", "ok": False, "exit_code": 1,
                           "output": "k.cu(3): error: expected a \";\""}, c)
ev("compile", "tool", {"command": "nvcc -O3 -o k k.cu", "compiler": "nvcc",
                       "exit_code": 1}, c)
ev("edit", "agent", {"path": "k.cu", "op": "create", "before": None,
                     "after": sha(A), "tool": "Write"})
for sp in (1.0, 1.01, 0.99, 1.0):
    bench(sp)
msg("human", "Are the global loads coalesced, or should you vectorize "
    "them with float4?")
msg("agent", "The loads are not coalesced: vectorizing them with float4.")
ev("edit", "agent", {"path": "k.cu", "op": "modify", "before": sha(A),
                     "after": sha(B), "tool": "Edit"})
for sp in (2.0, 2.02, 1.99, 2.01):
    bench(sp)
msg("agent", HOSTILE)
ev("edit", "agent", {"path": "k.cu", "op": "modify", "before": sha(B),
                     "after": sha(C), "tool": "Edit"})
for sp in (4.0, 4.03):
    bench(sp)
