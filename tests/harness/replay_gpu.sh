#!/bin/bash
# Determinism of replay on a GPU (issue 6): record the attention ladder with
# `ktraj bench` on a few scenarios, then replay every bench step twice with
# `ktraj replay --all-bench`.  Every replay must say `reproduced`, and both
# passes must give the same verdict for every step.
# Usage (project root, on the GPU machine):
#   KTRAJ=path/to/ktraj tests/harness/replay_gpu.sh OUTDIR [SCENARIOS]
# Writes OUTDIR/record.ndjson, replay1.ndjson, replay2.ndjson, summary.txt.
# Without a GPU it prints a skip line and exits 0.
set -u
OUT=${1:?usage: replay_gpu.sh OUTDIR [SCENARIOS]}
SCEN=${2:-grid_s512_d64_full_bf16,grid_s512_d128_causal_bf16}
K=${KTRAJ:-build/ktraj}
if ! nvidia-smi -L >/dev/null 2>&1; then
	echo "skip: no GPU (replay determinism runs on the H200; see harness/GPU_LOG.md)"
	exit 0
fi
mkdir -p "$OUT/cache/objects"
export KTRAJ_STORE=$OUT/ladder.ktraj
export KTRAJ_SRC=$PWD KTRAJ_KERNELS=$PWD/kernels
# compiled candidates are shared by recording and replays (reuse by source hash)
export KTRAJ_HARNESS_CACHE=$OUT/cache/objects
[ -d .devcarry/cache ] && cp .devcarry/cache/*.so "$OUT/cache/objects/" 2>/dev/null
: >"$OUT/record.ndjson"
# RUNGS: the ladder kernels to record (default all; rung 03 takes minutes in ptxas)
for k in ${RUNGS:-kernels/attention_fwd/0*.cu}; do
	"$K" bench --task attention_fwd --kernel "$k" --scenarios "$SCEN" --record ladder --json \
		>>"$OUT/record.ndjson" 2>>"$OUT/record.err" || echo "record $k: exit $?" >>"$OUT/record.err"
done
for pass in 1 2; do
	s0=$(date +%s)
	"$K" replay ladder --all-bench --json --cache "$OUT/cache" >"$OUT/replay$pass.ndjson" 2>"$OUT/replay$pass.err"
	echo "replay pass $pass: exit $? in $(( $(date +%s) - s0 )) s" >>"$OUT/summary.txt"
done
python3 - "$OUT" <<'PY' | tee -a "$OUT/summary.txt"
import json, sys
out = sys.argv[1]
rows = [[json.loads(l) for l in open(f"{out}/replay{p}.ndjson") if l.strip()] for p in (1, 2)]
rec = [json.loads(l) for l in open(f"{out}/record.ndjson") if l.strip()]
print(f"recorded {len(rec)} scenario results, {sum(1 for r in rec if r.get('correct'))} correct")
for a, b in zip(*rows):
    ta = a.get("results", {}).get("measured", {}).get("time_ms")
    tb = b.get("results", {}).get("measured", {}).get("time_ms")
    print(f"step {a['step']:>4}: {a['verdict']:<10} {b['verdict']:<10} "
          f"recorded {a.get('expected', {}).get('time_ms')} ms, replays {ta} / {tb} ms")
same = len(rows[0]) == len(rows[1]) and all(a["verdict"] == b["verdict"] for a, b in zip(*rows))
allrep = all(r["verdict"] == "reproduced" for p in rows for r in p)
print(f"steps {len(rows[0])}, same verdict twice: {same}, all reproduced: {allrep}")
sys.exit(0 if rows[0] and same and allrep else 1)
PY
