#!/bin/bash
# Rung 06 on the GPU machine in one call (run from the project root):
#   bash tests/bench/rung06_gpu.sh OUTDIR [PHASE...]
# Phases (default: build check seed large ladder sdpa sass):
#   build   the harness                    check  06 on all attention_fwd scenarios, no timing
#   seed    06 (or $SEED_KERNEL) with --seed random, no timing, on every scenario
#   large   06 against 05 (or $LARGE_BASE) on attention_large.json (24 shapes), timed
#   largevar  $VARIANT against 06 on the same 24 shapes, timed
#   ladder  06 against 05 on the 8 ladder scenarios, timed
#   sdpa    PyTorch SDPA cuDNN / flash on the 24 shapes (tests/bench/harness_ref.py)
#   sass    HGMMA / barrier counts of 06's object      ncu  one ncu profile of 06 (D128)
#   sweep   06 timed over all attention_fwd scenarios (kernels[0]'s sweep)
#   accept  ../shared/acceptance/harness.sh's GPU part (a full sweep of kernels[0]
#           through ktraj bench, tests/bench/accept_gpu.sh)
#   record  the ladder 01..06 recorded with `ktraj bench --record ladder` on
#           REC_SCEN, exported as ktraj JSONL (ktraj from $KTRAJ_BIN)
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
pack() { (cd "$W" && tar czf "$OUTD/r06.tgz" --exclude=cache --exclude='*.so' --exclude='*.ktraj' . 2>/dev/null); }
# results of a harness NDJSON file: "verdict" prints one line per result
# that is not ok, then the counts; "table" one line per result with the
# candidate's and the baseline's TFLOP/s and the speedup interval
results() {
	python3 - "$1" "$2" <<'PY'
import json, sys
mode, ok, bad = sys.argv[1], 0, 0
for line in open(sys.argv[2]):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    if r.get("type") != "result":
        continue
    if mode == "table":
        print("  %-40s %-9s 06 %7.1f TF/s (%.4f ms)  05 %7.1f TF/s  x%.3f [%s]" % (
            r["scenario"], r["status"], r.get("tflops") or 0, r.get("time_ms") or 0,
            r.get("ref_tflops") or 0, r.get("speedup") or 0,
            ",".join("%.3f" % x for x in (r.get("speedup_ci") or []))))
    elif r.get("status") == "ok":
        ok += 1
    else:
        bad += 1
        w = (r.get("check") or {}).get("worst") or {}
        print("  NOT OK", r.get("scenario"), r.get("status"), (r.get("reason") or "")[:120],
              "max_abs=%s rel_l2=%s mism=%s nonfin=%s" % (w.get("max_abs"), w.get("rel_l2"), w.get("mismatches"), w.get("nonfinite")))
if mode != "table":
    print("  ok %d, not ok %d" % (ok, bad))
PY
}
for ph in $PHASES; do
	t0=$(date +%s)
	case $ph in
	build)
		make -C harness -j16 NVCC=/usr/local/cuda/bin/nvcc B="$PWD/build/harness" >"$W/build.log" 2>&1 || { log "harness build failed"; tail -20 "$W/build.log"; } ;;
	check)
		timeout 170 $H --task $SPEC --kernel $K6 --no-timing --timeout 25 >"$W/check.ndjson" 2>"$W/check.err"
		log "check rc=$?"; results verdict "$W/check.ndjson" | tail -40 | tee -a "$W/summary.txt" ;;
	seed)
		timeout 120 $H --task $SPEC --kernel ${SEED_KERNEL:-$K6} --no-timing --seed random --timeout 25 >"$W/seed.ndjson" 2>"$W/seed.err"
		log "seed random rc=$? $(grep -o '"master_seed":"[^"]*"' "$W/seed.ndjson" | head -1)"; results verdict "$W/seed.ndjson" | tail -20 | tee -a "$W/summary.txt" ;;
	large)
		timeout ${LARGE_LIMIT:-200} $H --task $LARGE --kernel $K6 --baseline ${LARGE_BASE:-$K5} --budget-ms ${BUDGET:-120} --timeout 60 >"$W/large.ndjson" 2>"$W/large.err"
		log "large rc=$?"; results table "$W/large.ndjson" | tee -a "$W/summary.txt" ;;
	largevar)
		# a variant ($VARIANT) as candidate against 06 as baseline, same shapes
		timeout ${LARGE_LIMIT:-200} $H --task $LARGE --kernel $VARIANT --baseline $K6 --budget-ms ${BUDGET:-120} --timeout 60 >"$W/largevar.ndjson" 2>"$W/largevar.err"
		log "largevar rc=$? ($VARIANT over 06)"; results table "$W/largevar.ndjson" | tee -a "$W/summary.txt" ;;
	ladder)
		timeout 90 $H --task $SPEC --kernel $K6 --baseline $K5 --scenarios "$LADDER" --budget-ms 100 >"$W/ladder.ndjson" 2>"$W/ladder.err"
		log "ladder rc=$?"; results table "$W/ladder.ndjson" | tee -a "$W/summary.txt" ;;
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
		timeout 150 ncu --clock-control none --kernel-name regex:attn_wgmma --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --section Occupancy \
			$H --task $LARGE --kernel $K6 --scenarios ${NCU_SCEN:-large_b4_h16_s16384_d128_full_bf16} --no-timing >"$W/ncu.txt" 2>&1
		log "ncu rc=$?"; grep -E "Duration|Throughput|Pipe|pipe|Stall|stall|Issue|Eligible|Registers|Achieved|Busy|Hit Rate" "$W/ncu.txt" | head -60 | tee -a "$W/summary.txt" ;;
	sweep)
		s0=$(date +%s)
		timeout ${SWEEP_LIMIT:-240} $H --task $SPEC --kernel $K6 >"$W/sweep.ndjson" 2>"$W/sweep.err"
		log "sweep rc=$? wall_s=$(( $(date +%s) - s0 ))"; results verdict "$W/sweep.ndjson" | tail -20 | tee -a "$W/summary.txt" ;;
	accept)
		timeout ${ACCEPT_LIMIT:-200} bash tests/bench/accept_gpu.sh "$W" 2>&1 | tail -12 | tee -a "$W/summary.txt"
		results verdict "$W/sweep.ndjson" | tail -12 | tee -a "$W/summary.txt" ;;
	record)
		KB=${KTRAJ_BIN:-build/ktraj}
		export LD_LIBRARY_PATH=$PWD/.devcarry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
		export KTRAJ_STORE=$W/ladder.ktraj KTRAJ_KERNELS=$PWD/kernels KTRAJ_HARNESS=$PWD/$H
		for k in ${REC_RUNGS:-01_naive 02_tiled_smem 03_online_softmax 04_mma_tensorcore 05_mma_pipelined 06_wgmma_tma}; do
			timeout 120 $KB bench --task attention_fwd --kernel kernels/attention_fwd/$k.cu --record ladder --json \
				--scenarios "${REC_SCEN:-grid_s512_d64_full_bf16,grid_s1024_d128_full_bf16,grid_s2048_d64_causal_bf16}" \
				-- --budget-ms 60 >>"$W/record.ndjson" 2>>"$W/record.err"
			log "record $k rc=$?"
		done
		$KB export ladder --format jsonl -o "$W/ladder.jsonl" 2>>"$W/record.err"
		log "export rc=$? $(wc -l <"$W/ladder.jsonl") lines"; tail -5 "$W/record.err" ;;
	esac
	log "phase $ph: $(( $(date +%s) - t0 )) s"
	pack
done
cp "$W/summary.txt" "$OUTD/" 2>/dev/null
pack
