#!/usr/bin/env python3
"""oracle.py - the power an ideal run test would have on gen.py's sessions.

Usage: oracle.py DIR [L]      (L: message slots, default 2)

The oracle knows what ktraj has to estimate: every planted jump's position,
gain and workload (perfect detection, no noise new bests), and which person
messages are questions (real and decoy, as mining sees them), but not which
jumps the questions caused.  Its statistic is the generator's own model of a
question-led change - the question is among the last L message slots before
the change's edit (the question, then the agent's reply):
    T = sum over the workload's planted jumps of ln(gain) * [a question in
        the L slots before the jump's last edit]
and its null is ktraj's (the questions moved to random message slots, human
or agent), with the randomized permutation p-value.  Prints the fraction of
series with >= 3 question-caused jumps where p < 0.05 (the power), and for a
--null DIR the fraction of all tests below 0.05 (its calibration).
Deterministic (seeded).  An upper bound for a test that knows positions
only; it is not a test ktraj could run, which must find the jumps and
cannot know the generator's lag.
"""
import json, math, os, random, sys


def slots_of(path, qtexts):
    """Message slots in order, the question slots, and for each tool call
    the number of slots before the last edit at or before it."""
    slots, qpos, anchor, last_edit = 0, [], {}, 0
    for line in open(path):
        r = json.loads(line)
        c = r["message"]["content"]
        if r["type"] == "user" and isinstance(c, str):
            if c in qtexts:
                qpos.append(slots)
            slots += 1
            continue
        for b in c if isinstance(c, list) else []:
            if b.get("type") == "text":
                slots += 1
            elif b.get("type") == "tool_use":
                if b["name"] in ("Edit", "Write"):
                    last_edit = slots
                anchor[b["id"]] = last_edit
    return slots, qpos, anchor


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    L = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    N = 2000
    truth = json.load(open(os.path.join(d, "truth.json")))
    rng = random.Random(1)
    sig = n = 0
    for name, tr in sorted(truth["sessions"].items()):
        nq = {}
        for j in tr["jumps"]:
            if j["cause"] == "question":
                nq[j["workload"]] = nq.get(j["workload"], 0) + 1
        null = truth["mode"] == "null"
        wls = sorted({j["workload"] for j in tr["jumps"]}) if null else \
            sorted(w for w, c in nq.items() if c >= 3)
        if not wls:
            continue
        qtexts = {h["text"] for h in tr["human_lines"] if h["kind"] in ("question", "decoy_question")}
        ns, qpos, anchor = slots_of(os.path.join(d, name + ".jsonl"), qtexts)
        if not qpos:
            continue
        for wl in wls:
            A = [(anchor[j["tool_use_id"]], math.log(j["gain"])) for j in tr["jumps"] if j["workload"] == wl]

            def T(qs):
                s = set(qs)
                return sum(w for a, w in A if any((a - k) in s for k in range(1, L + 1)))
            t = T(qpos)
            ab = ti = 0
            for _ in range(N):
                t0 = T(rng.sample(range(ns), len(qpos)))
                ab += t0 > t + 1e-12
                ti += abs(t0 - t) <= 1e-12
            p = (ab + rng.random() * (ti + 1)) / (N + 1)
            n += 1
            sig += p < 0.05
    what = "null p < 0.05" if truth["mode"] == "null" else "power"
    print("oracle L=%d %s %d/%d = %s" % (L, what, sig, n, round(sig / n, 4) if n else None))


if __name__ == "__main__":
    main()
