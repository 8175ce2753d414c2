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
    g.plateau(r.randrange(20, 60))
    g.jump(r.choice(["human", "library", "agent"]))
    g.level /= 1.8   # keep the level bounded: a regression after each jump
with open(os.path.join(sys.argv[2], "bench-big.jsonl"), "w") as f:
    f.write("\n".join(g.lines) + "\n")
print(g.seq, file=sys.stderr)
PY
"$KTRAJ" import "$W/big/bench-big.jsonl" >/dev/null
EV=$("$KTRAJ" ls | awk '$NF=="bench-big"{print $2}')

# median wall ms of REPS runs of a command
med() {
	for i in $(seq "$REPS"); do
		s=$(date +%s%N); "$@" >/dev/null; e=$(date +%s%N)
		echo $(( (e - s) / 1000000 ))
	done | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'
}
B=$(med "$KTRAJ" blame speedup bench-big --json)
B0=$(med "$KTRAJ" blame speedup bench-big --json --permutations 0)
S=$(med "$KTRAJ" stalls bench-big --json)
R=$(med "$KTRAJ" report bench-big -o "$W/r.html")
J=$("$KTRAJ" blame speedup bench-big --json | grep -c '"gain"')

# 1,000 runs for mining
python3 "$PLANT/plant.py" "$W/many" --runs "$RUNS" --seed 99 >/dev/null
"$KTRAJ" import "$W"/many/*.jsonl >/dev/null
MEV=$("$KTRAJ" stats 2>/dev/null | awk '/^events/{print $2; exit}')
s=$(date +%s%N)
"$KTRAJ" questions mine --json >"$W/lib.jsonl"
e=$(date +%s%N)
M=$(( (e - s) / 1000000 ))
NQ=$(wc -l <"$W/lib.jsonl")
cat <<MD
| analyzer benchmark | result | target |
|---|---|---|
| blame speedup --json, one run of $EV events ($J jumps), incl. 2 x 2000 permutations | $B ms (median of $REPS) | < 100 ms |
| same without the permutation baseline | $B0 ms | |
| stalls --json, same run | $S ms | |
| report -o FILE.html, same run | $R ms | |
| questions mine --json over $RUNS runs (${MEV:-?} events in the store) | $M ms -> $NQ library entries | seconds |
MD
