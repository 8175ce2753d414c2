#!/usr/bin/env python3
"""score.py - score `ktraj blame speedup` on planted runs (see plant.py).

Usage: score.py DIR [DIR...]   (each DIR written by plant.py; KTRAJ = binary)
Imports every run of every DIR into a fresh store (the ktraj importer), blames it and compares with
DIR/truth.json.  A reported jump matches a planted one when the planted
landing bench lies in the reported (from_seq, to_seq].  Blame is correct when
the matched jump names the planted question's seq, or says "agent alone" for
a jump the agent made alone.
  detection precision = matched reported jumps / reported jumps
  blame precision     = correctly blamed reported jumps / reported jumps
  blame recall        = correctly blamed planted jumps / planted jumps
  false-jump rate     = pure-noise runs reporting any jump / pure-noise runs
Prints one JSON object with the figures.
"""
import json, os, subprocess, sys, tempfile

def main():
    ktraj = os.environ.get("KTRAJ") or "build/ktraj"
    dirs = sys.argv[1:]
    if not dirs:
        sys.exit(__doc__)
    tot = dict(reported=0, matched=0, blamed_ok=0, planted=0, planted_found=0, planted_blamed=0,
               noise_runs=0, noise_runs_with_jump=0, noise_jumps=0, runs=0)
    by_cause = {}
    misses = []
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, KTRAJ_STORE=os.path.join(tmp, "s.ktraj"))
        for d in dirs:
            truth = json.load(open(os.path.join(d, "truth.json")))
            files = [os.path.join(d, n + ".jsonl") for n in sorted(truth["runs"])]
            subprocess.run([ktraj, "import"] + files, env=env, check=True, stdout=subprocess.DEVNULL)
            for name, planted in sorted(truth["runs"].items()):
                out = subprocess.run([ktraj, "blame", "speedup", name, "--json"], env=env,
                                     check=True, capture_output=True, text=True).stdout
                rows = [json.loads(l) for l in out.splitlines() if l.strip()]
                jumps = [r for r in rows if "gain" in r]
                tot["runs"] += 1
                if truth["pure"]:
                    tot["noise_runs"] += 1
                    tot["noise_jumps"] += len(jumps)
                    tot["noise_runs_with_jump"] += bool(jumps)
                    continue
                tot["reported"] += len(jumps)
                tot["planted"] += len(planted)
                used = set()
                for p in planted:
                    c = by_cause.setdefault(p["cause"], [0, 0])
                    c[0] += 1
                    hit = None
                    for i, j in enumerate(jumps):
                        if i not in used and j["from_seq"] < p["bench_seq"] <= j["to_seq"]:
                            hit = i
                            break
                    if hit is None:
                        misses.append((name, p, "not detected"))
                        continue
                    used.add(hit)
                    j = jumps[hit]
                    tot["matched"] += 1
                    tot["planted_found"] += 1
                    q = j.get("question") or {}
                    ok = (p["question_seq"] is None and j["attribution"] == "agent alone") or \
                         (p["question_seq"] is not None and q.get("seq") == p["question_seq"])
                    if ok:
                        tot["blamed_ok"] += 1
                        tot["planted_blamed"] += 1
                        c[1] += 1
                    else:
                        misses.append((name, p, "blamed %s" % (q.get("seq") or "agent alone")))
    r = dict(tot)
    r["detection_precision"] = round(tot["matched"] / tot["reported"], 4) if tot["reported"] else None
    r["detection_recall"] = round(tot["planted_found"] / tot["planted"], 4) if tot["planted"] else None
    r["blame_precision"] = round(tot["blamed_ok"] / tot["reported"], 4) if tot["reported"] else None
    r["blame_recall"] = round(tot["planted_blamed"] / tot["planted"], 4) if tot["planted"] else None
    r["false_jump_rate"] = round(tot["noise_runs_with_jump"] / tot["noise_runs"], 4) if tot["noise_runs"] else None
    r["blame_recall_by_cause"] = {k: round(v[1] / v[0], 4) for k, v in sorted(by_cause.items())}
    r["misses"] = [dict(run=n, planted=p, why=w) for n, p, w in misses[:20]]
    print(json.dumps(r, indent=1, sort_keys=True))

if __name__ == "__main__":
    main()
