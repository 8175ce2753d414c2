#!/usr/bin/env python3
"""mk_claude.py OUT CMD OUTPUT_FILE [CMD OUTPUT_FILE ...]

Writes a Claude Code session (session id s1): a prompt, then per pair an
assistant line calling Bash with CMD and a user line with its tool_result,
OUTPUT_FILE's text.  Line numbers: 1 the prompt, 2k the k-th call, 2k+1
its result.  A CMD of the form "Read:PATH" calls the Read tool on PATH.
"""
import json, sys
out = sys.argv[1]
a = sys.argv[2:]
L = []
def line(**k):
    L.append(json.dumps(k))
ts = "2025-07-16T20:%02d:00.000Z"
line(type="user", uuid="u0", sessionId="s1", timestamp=ts % 0,
     message={"role": "user", "content": "benchmark it"})
for i in range(0, len(a), 2):
    cmd, text = a[i], open(a[i + 1]).read()
    tid = "toolu_%d" % i
    line(type="assistant", uuid="a%d" % i, sessionId="s1", timestamp=ts % (i + 1),
         message={"role": "assistant", "content": [
             {"type": "tool_use", "id": tid, "name": "Read", "input": {"file_path": cmd[5:]}}
             if cmd.startswith("Read:") else
             {"type": "tool_use", "id": tid, "name": "Bash", "input": {"command": cmd}}]})
    line(type="user", uuid="r%d" % i, sessionId="s1", timestamp=ts % (i + 2),
         message={"role": "user", "content": [{"tool_use_id": tid, "type": "tool_result", "content": text, "is_error": False}]})
open(out, "w").write("\n".join(L) + "\n")
