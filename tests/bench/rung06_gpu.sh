#!/bin/bash
# Rung 06 on the GPU machine in one call (run from the project root):
#   bash tests/bench/rung06_gpu.sh OUTDIR [PHASE...]
# Phases (default: build check seed large ladder sdpa sass):
#   build   the harness                    check  06 on all attention_fwd scenarios, no timing
#   seed    06 (or $SEED_KERNEL) with --seed random, no timing, on every scenario
#   large   06 against 05 (or $LARGE_BASE) on attention_large.json (24 shapes), timed
#   ladder  06 against 05 on the 8 ladder scenarios, timed
#   sdpa    PyTorch SDPA cuDNN / flash on the 24 shapes (tests/bench/harness_ref.py)
#   sass    HGMMA / barrier counts of 06's object      ncu  one ncu profile of 06 (D128)
# Objects compiled before the call may sit in .devcarry/cache (same nvcc).
# Results: OUTDIR/r06.tgz and OUTDIR/summary.txt; numbers go to
# tests/bench/RESULTS.md "Rung 06".
set -u
OUTD=${1:?outdir}
shift
PHASES=${*:-build check seed large ladder sdpa sass}
W=/tmp/r06
mkdir -p "$W" "$OUTD"
H=build/harness/ktraj-harness
K6=kernels/attention_fwd/06_wgmma_tma.cu
K5=kernels/attention_fwd/05_mma_pipelined.cu
SPEC=kernels/tasks/attention_fwd.json
LARGE=kernels/tasks/attention_large.json
LADDER="grid_s1024_d128_full_bf16,grid_s1024_d64_causal_fp16,grid_s4096_d128_causal_bf16,grid_s2048_d256_full_bf16,ragged_s1531_d128_causal_bf16,gqa4_s4096_d128_causal_bf16,mqa_s1024_d64_full_bf16,grid_s8192_d64_causal_bf16"
export KTRAJ_HARNESS_CACHE=$W/cache
mkdir -p "$W/cache"
for d in .devcarry/cache .devcarry/kernel/cache; do [ -d $d ] && cp $d/*.so "$W/cache/" 2>/dev/null; done
log() { echo "[$(date +%T)] $*" | tee -a "$W/summary.txt"; }
pack() { (cd "$W" && tar czf "$OUTD/r06.tgz" --exclude=cache --exclude='*.so' . 2>/dev/null); }
# one line per result that is not ok, then counts
verdict() {
	python3 - "$1" <<'PY'
import json, sys
ok = bad = 0
for line in open(sys.argv[1]):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    if r.get("type") != "result":
        continue
    if r.get("status") == "ok":
        ok += 1
        continue
    bad += 1
    w = (r.get("check") or {}).get("worst") or {}
    print("  NOT OK", r.get("scenario"), r.get("status"), (r.get("reason") or "")[:120],
          "max_abs=%s rel_l2=%s mism=%s nonfin=%s" % (w.get("max_abs"), w.get("rel_l2"), w.get("mismatches"), w.get("nonfinite")))
print("  ok %d, not ok %d" % (ok, bad))
PY
}
table() {
	python3 - "$1" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    if r.get("type") != "result":
        continue
    print("  %-40s %-9s 06 %7.1f TF/s (%.4f ms)  05 %7.1f TF/s  x%.3f [%s]" % (
        r["scenario"], r["status"], r.get("tflops") or 0, r.get("time_ms") or 0,
        r.get("ref_tflops") or 0, r.get("speedup") or 0,
        ",".join("%.3f" % x for x in (r.get("speedup_ci") or []))))
PY
}
for ph in $PHASES; do
	t0=$(date +%s)
	case $ph in
	build)
		make -C harness -j16 NVCC=/usr/local/cuda/bin/nvcc B="$PWD/build/harness" >"$W/build.log" 2>&1 || { log "harness build failed"; tail -20 "$W/build.log"; } ;;
	check)
		timeout 170 $H --task $SPEC --kernel $K6 --no-timing --timeout 25 >"$W/check.ndjson" 2>"$W/check.err"
		log "check rc=$?"; verdict "$W/check.ndjson" | tail -40 | tee -a "$W/summary.txt" ;;
	seed)
		timeout 120 $H --task $SPEC --kernel ${SEED_KERNEL:-$K6} --no-timing --seed random --timeout 25 >"$W/seed.ndjson" 2>"$W/seed.err"
		log "seed random rc=$? $(grep -o '"master_seed":"*[0-9]*' "$W/seed.ndjson" | head -1)"; verdict "$W/seed.ndjson" | tail -20 | tee -a "$W/summary.txt" ;;
	large)
		timeout ${LARGE_LIMIT:-200} $H --task $LARGE --kernel $K6 --baseline ${LARGE_BASE:-$K5} --budget-ms ${BUDGET:-120} --timeout 60 >"$W/large.ndjson" 2>"$W/large.err"
		log "large rc=$?"; table "$W/large.ndjson" | tee -a "$W/summary.txt" ;;
	ladder)
		timeout 90 $H --task $SPEC --kernel $K6 --baseline $K5 --scenarios "$LADDER" --budget-ms 100 >"$W/ladder.ndjson" 2>"$W/ladder.err"
		log "ladder rc=$?"; table "$W/ladder.ndjson" | tee -a "$W/summary.txt" ;;
	sdpa)
		names=$(python3 -c "import json;print(' '.join(s['name'] for s in json.load(open('$LARGE'))['scenarios']))")
		timeout 150 python3 tests/bench/harness_ref.py sdpa $LARGE $names >"$W/sdpa.ndjson" 2>"$W/sdpa.err"
		log "sdpa rc=$?"; tail -3 "$W/sdpa.err"
		python3 -c "
import json
for l in open('$W/sdpa.ndjson'):
    r=json.loads(l); print('  %-40s cudnn %7.1f flash %7.1f' % (r['scenario'], r.get('cudnn_tflops') or 0, r.get('flash_tflops') or 0))" | tee -a "$W/summary.txt" ;;
	sass)
		$H --task $SPEC --kernel $K6 --compile-only --keep-so "$W/k06.so" >/dev/null 2>&1
		cuobjdump -sass "$W/k06.so" >"$W/k06.sass" 2>&1
		log "sass: $(grep -c HGMMA "$W/k06.sass") HGMMA, $(grep -c 'WARPGROUP.DEPBAR' "$W/k06.sass") WARPGROUP.DEPBAR, $(grep -c 'WARPGROUP.ARRIVE' "$W/k06.sass") WARPGROUP.ARRIVE, $(grep -c 'UTMALDG' "$W/k06.sass") UTMALDG, $(grep -c 'SYNCS' "$W/k06.sass") SYNCS" ;;
	ncu)
		$H --task $LARGE --kernel $K6 --compile-only --keep-so "$W/k06.so" >/dev/null 2>&1
		timeout 150 ncu --clock-control none --kernel-name regex:attn_wgmma --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy \
			$H --task $LARGE --kernel $K6 --scenarios ${NCU_SCEN:-large_b4_h16_s16384_d128_full_bf16} --no-timing >"$W/ncu.txt" 2>&1
		log "ncu rc=$?"; grep -E "Duration|Throughput|Pipe|Stall|Issue|Eligible|Registers|Achieved" "$W/ncu.txt" | head -40 | tee -a "$W/summary.txt" ;;
	esac
	log "phase $ph: $(( $(date +%s) - t0 )) s"
	pack
done
cp "$W/summary.txt" "$OUTD/" 2>/dev/null
pack
