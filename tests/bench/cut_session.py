#!/usr/bin/env python3
"""cut_session.py SESSION.jsonl OUT_DIR N - cut one Claude Code session into N
consecutive sessions of whole turns, OUT_DIR/s00000.jsonl ..., each given a
sessionId of its own (small-00000 ...), so each imports as a run of its own.
Cuts fall only where an assistant line follows a user line (a turn begins),
so a tool call keeps its result and an edit its compile.  Used by
tests/bench/import_small.sh (issue 21's small-runs row) and
tests/cli/import_limits.bats."""
import json
import os
import sys

src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = open(src, 'rb').read().splitlines(keepends=True)
sid = json.loads(lines[0]).get('sessionId', '').encode()
cuts, prev = [0], None
for i, l in enumerate(lines):
    t = json.loads(l).get('type')
    if t == 'assistant' and prev == 'user':
        cuts.append(i)
    prev = t
cuts.append(len(lines))
turns = len(cuts) - 1
os.makedirs(out)
for i in range(n):
    a, b = cuts[i * turns // n], cuts[(i + 1) * turns // n]
    new = ('small-%05d' % i).encode()
    with open(os.path.join(out, 's%05d.jsonl' % i), 'wb') as f:
        f.write(b''.join(l.replace(sid, new) for l in lines[a:b]))
