#!/bin/bash
# rung06_len_gpu.sh OUTDIR - one H200 call (harness/GPU_LOG.md, 2026-12-03
# "length-based grid"): rung 06 with the grid chosen by length ($NEW:
# persistent up to 2048 query rows, one block per tile above; D64 128-row
# tiles only when causal) against the persistent-everywhere rung 06 ($OLD)
# in the same call, both against cuDNN; $NEW's sweep with the default and a
# random seed; the winner becomes 06_wgmma_tma.cu and the ladder 01..06 is
# recorded with it ($KTRAJ_BIN, $KLIB; each rung's hypothesis from
# tests/bench/ladder_plan.txt, without 06b when $OLD stays); the anti-gaming
# suite; the acceptance script's GPU part ($ACC) while time is left.
# NEW, OLD and PLAN (the rungs' hypotheses) may be set; SKIP_OLD and SKIP_AG
# leave out OLD's cuDNN table and the anti-gaming suite.
# Run from the tree tests/bench/rung06_len_prep.sh makes.
set -u
O=${1:?outdir}
NEW=${NEW:-kernels/attention_fwd/06L.cu}
OLD=${OLD:-kernels/attention_fwd/06P.cu}
P=tests/bench/rung06_persistent_gpu.sh
A=kernels/attention_fwd
T0=$(date +%s)
left() { echo $(( ${BUDGET_S:-450} - ($(date +%s) - T0) )); }
mkdir -p "$O"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$O/gpu.txt"
# S > 2048 too: $NEW's one-block-per-tile path has not run before
export SMOKE=grid_s512_d64_causal_bf16,grid_s1024_d64_full_bf16,grid_s2048_d256_causal_bf16,ragged_s3001_d64_causal_bf16,grid_s8192_d64_full_fp16,ragged_s4999_d128_full_bf16,grid_s4096_d256_causal_fp16,cross_q1000_k3000_d64_causal_bf16,cross_q4096_k16384_d64_causal_bf16,cross_q4096_k16384_d128_full_bf16,mqa_s8192_d64_causal_bf16,gqa8_s4096_d128_causal_bf16
K6=$NEW bash $P "$O/new" smoke || { echo "smoke failed: $NEW dropped"; exit 1; }
K6=$NEW OLD=$OLD bash $P "$O/new" ab cudnn check seed
# NEW is kept when, in this call, it is correct everywhere and faster than
# OLD on the 24 shapes: geomean > 1 and no shape below 0.97
pick=$(python3 - "$O/new" <<'PY'
import json, math, sys
d = sys.argv[1]
def rows(f):
    try:
        return [r for r in map(json.loads, (l for l in open(f"{d}/{f}.ndjson") if l.startswith("{"))) if r.get("type") == "result"]
    except OSError:
        return []
ab, ok = rows("ab"), all(len(rows(f)) == 189 and all(r["status"] == "ok" for r in rows(f)) for f in ("check", "seed"))
sp = [r["speedup"] for r in ab if r["status"] == "ok" and r.get("speedup")]
g = math.exp(sum(map(math.log, sp)) / len(sp)) if len(sp) == 24 else 0
print("new" if ok and g > 1 and min(sp) >= 0.97 else "old", "geomean %.4f min %.4f sweeps_ok %s" % (g, min(sp or [0]), ok))
PY
)
echo "pick: $pick" | tee -a "$O/summary.txt"
cp $OLD $A/06b_wgmma_tma_persistent.cu
plan=${PLAN:-tests/bench/ladder_plan.txt}
case $pick in
new*) cp $NEW $A/06_wgmma_tma.cu ;;
*) cp $OLD $A/06_wgmma_tma.cu
   # OLD is the last rung: 06b's hypothesis goes with 06_wgmma_tma
   grep -v '^06_wgmma_tma|' $plan | sed 's/^06b_wgmma_tma_persistent|/06_wgmma_tma|/' >"$O/plan_old.txt"
   plan=$O/plan_old.txt ;;
esac
REC_PLAN=$plan bash $P "$O/new" record
[ -z "${SKIP_OLD:-}" ] && [ "$(left)" -gt 60 ] && K6=$OLD bash $P "$O/old" cudnn
[ -z "${SKIP_AG:-}" ] && [ "$(left)" -gt 50 ] && timeout $(( $(left) - 5 )) bash tests/harness/run_gpu.sh build/harness/ktraj-harness "$O/ag" | tail -3
if [ -n "${ACC:-}" ] && [ "$(left)" -gt 140 ]; then
	export LD_LIBRARY_PATH=${KLIB:+$KLIB:}${LD_LIBRARY_PATH:-}
	export KTRAJ_KERNELS=$PWD/kernels KTRAJ_HARNESS=$PWD/build/harness/ktraj-harness
	KTRAJ=$KTRAJ_BIN timeout $(( $(left) - 5 )) bash "$ACC" >"$O/acc.txt" 2>&1
	echo "acceptance harness.sh rc=$?: $(tail -1 "$O/acc.txt")" | tee -a "$O/summary.txt"
fi
echo "total $(( $(date +%s) - T0 )) s" | tee -a "$O/summary.txt"
