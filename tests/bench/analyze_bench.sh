#!/bin/bash
# tests/bench/analyze_bench.sh KTRAJ - analyzer benchmarks (issue 4 targets).
#   - `ktraj blame speedup RUN --json` on one ~100k-event planted run
#     (target < 100 ms, end to end: store open, load, blame, 2x2000
#     permutations, JSON out); `stalls` and `report` on the same run;
#   - `ktraj questions mine --json` over 1,000 planted runs (target: seconds).
# Runs come from tests/plant/plant.py (deterministic).  Prints a markdown
# block for the "Analyzers" section of RESULTS.md.
# Environment: BENCH_DIR (work dir, default $TMPDIR/ktraj-an-bench), RUNS
# (default 1000), REPS (default 5; the median is reported).
set -eu
KTRAJ=${1:?usage: analyze_bench.sh path/to/ktraj}
KTRAJ=$(cd "$(dirname "$KTRAJ")" && pwd)/$(basename "$KTRAJ")
HERE=$(cd "$(dirname "$0")" && pwd)
PLANT=$HERE/../plant
W=${BENCH_DIR:-${TMPDIR:-/tmp}/ktraj-an-bench}
RUNS=${RUNS:-1000}
REPS=${REPS:-5}
rm -rf "$W"; mkdir -p "$W"
export KTRAJ_STORE=$W/s.ktraj

# one long run: many plateaus and jumps, ~100k events
python3 - "$PLANT" "$W/big" <<'PY'
import os, random, sys
sys.path.insert(0, sys.argv[1])
import plant
os.makedirs(sys.argv[2], exist_ok=True)
r = random.Random(4242)
g = plant.Gen(r, 0.02, "bench-big")
g.msg("user", "Make it faster.", human=True)
g.round_(g.level)
while g.seq < 100000:
    g.plateau(r.randrange(400, 800))
    g.jump(r.choice(["human", "library", "agent"]))
with open(os.path.join(sys.argv[2], "bench-big.jsonl"), "w") as f:
    f.write("\n".join(g.lines) + "\n")
print(g.seq, file=sys.stderr)
PY
"$KTRAJ" import "$W/big/bench-big.jsonl" >/dev/null
EV=$("$KTRAJ" ls | awk '$NF=="bench-big"{print $2}')

# "CPU ms / wall ms": medians over REPS runs of a command.  CPU time
# (user + sys of the child) is the fair measure on a shared machine.
med() {
	python3 - "$REPS" "$@" <<'PY'
import resource, statistics, subprocess, sys, time
reps, cmd = int(sys.argv[1]), sys.argv[2:]
cpu, wall = [], []
for _ in range(reps):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN); t0 = time.monotonic()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    t1 = time.monotonic(); r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu.append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000)
    wall.append((t1 - t0) * 1000)
print("%.0f ms CPU / %.0f ms wall" % (statistics.median(cpu), statistics.median(wall)))
PY
}
B=$(med "$KTRAJ" blame speedup bench-big --json)
B0=$(med "$KTRAJ" blame speedup bench-big --json --permutations 0)
S=$(med "$KTRAJ" stalls bench-big --json)
R=$(med "$KTRAJ" report bench-big -o "$W/r.html")
J=$("$KTRAJ" blame speedup bench-big --json | grep -c '"gain"')

# 1,000 runs for mining
python3 "$PLANT/plant.py" "$W/many" --runs "$RUNS" --seed 99 >/dev/null
"$KTRAJ" import "$W"/many/*.jsonl >/dev/null
MEV=$("$KTRAJ" stats 2>/dev/null | awk 'tolower($1)=="events"{print $2; exit}')
"$KTRAJ" questions mine --json >"$W/lib.jsonl"
M=$(REPS=1 med "$KTRAJ" questions mine --json)
NQ=$(wc -l <"$W/lib.jsonl")
L=$(med "$KTRAJ" log bench-big --kind bench)
cat <<MD
| analyzer benchmark | result | target |
|---|---|---|
| blame speedup --json, one run of $EV events ($J jumps), incl. 2 x 2000 permutations | $B (median of $REPS) | < 100 ms |
| same without the permutation baseline | $B0 | |
| for scale: log --kind bench on the same run (the store scan alone) | $L | |
| stalls --json, same run | $S | |
| report -o FILE.html, same run | $R | |
| questions mine --json over $RUNS runs (${MEV:-?} events in the store) | $M -> $NQ library entries | seconds |
MD
