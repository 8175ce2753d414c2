#!/bin/sh
# analyze_plant2.sh - the issue 15 figures of blame speedup on the second
# planted generator (tests/plant2) and on the first (tests/plant), as in
# tests/bench/RESULTS.md.  Usage: tests/bench/analyze_plant2.sh [OUT]
# (KTRAJ = binary, default build/ktraj; PERMS = permutations, 1000;
# SEED = the first of the 8 sets' seeds, 11: 11-18, and 31 gives 31-38;
# SETS = the sets to run, e.g. "en2 zh2 null2" (default all, the first
# generator's rows are "plant1"); each set keeps its seed).
# Deterministic: the same binary gives the same figures.
set -eu
K="${KTRAJ:-build/ktraj}"
export KTRAJ="$K" PERMS="${PERMS:-1000}" MISSES=0
O="${1:-$(mktemp -d)}"
G=tests/plant2
S="${SEED:-11}"
SETS="${SETS:-all}"
mkdir -p "$O"
want() { case " $SETS " in *" all "* | *" $1 "*) return 0 ;; esac; return 1; }
fig() { # name generator-args...
	n=$1; shift
	want "$n" || return 0
	python3 $G/gen.py "$O/$n" "$@"
	python3 $G/score.py "$O/$n" >"$O/$n.json"
	python3 - "$O/$n.json" "$n" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); b = r["by"]
g = lambda k, f: (b.get(k) or {}).get(f)
print("%-10s det R %s P %s | attr R %s P %s | q-attr|found %s agent-attr|found %s | "
      "zh %s en %s | false/pure %s | null<.05 %s (n %d) | power %s (n %d)" % (
      sys.argv[2], r["detection_recall"], r["detection_precision"], r["attribution_recall"],
      r["attribution_precision"], g("cause:question", "attribution_given_found"),
      g("cause:agent", "attribution_given_found"), g("lang:zh", "attribution_given_found"),
      g("lang:en", "attribution_given_found"), r["false_jumps_per_pure_session"],
      r["null_p_below_0.05"], r["null_sessions"], r["power"], r["power_sessions"]))
fmts = {k[4:]: (v["detection_recall"], v["attribution_given_found"]) for k, v in b.items() if k.startswith("fmt:")}
print("           by format (detection recall, attribution given found):", fmts)
PY
}
fig en2   --sessions 40 --seed $((S + 0)) --noise 0.02 --lang en
fig zh2   --sessions 40 --seed $((S + 1)) --noise 0.02 --lang zh
fig en5   --sessions 40 --seed $((S + 2)) --noise 0.05 --lang en
fig zh5   --sessions 40 --seed $((S + 3)) --noise 0.05 --lang zh
fig mix10 --sessions 40 --seed $((S + 4)) --noise 0.10 --lang mix
fig pure5 --sessions 40 --seed $((S + 5)) --noise 0.05 --pure
fig null2 --sessions 150 --seed $((S + 6)) --noise 0.02 --lang mix --null
fig q3    --sessions 60 --seed $((S + 7)) --noise 0.02 --lang mix --qjumps 3
python3 $G/summary.py "$O"
# the bound for power: an ideal position-only test on the same q3 sessions
if want q3; then python3 $G/oracle.py "$O/q3"; fi
# the first generator, for comparison
want plant1 || exit 0
for s in 0.02 0.05; do
	python3 tests/plant/plant.py "$O/plant1-$s" --runs 40 --noise $s --seed 21 >/dev/null
	echo "plant1 noise $s: $(python3 tests/plant/score.py "$O/plant1-$s" | python3 -c 'import json,sys; r=json.load(sys.stdin); print({k: r[k] for k in ("detection_recall","detection_precision","blame_recall","blame_precision")})')"
done
python3 tests/plant/plant.py "$O/plant1-pure" --runs 40 --noise 0.02 --seed 22 --pure >/dev/null
echo "plant1 pure 0.02: $(python3 tests/plant/score.py "$O/plant1-pure" | python3 -c 'import json,sys; r=json.load(sys.stdin); print({k: r[k] for k in ("false_jump_rate","noise_jumps","noise_runs")})')"
