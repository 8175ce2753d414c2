#!/bin/bash
# cudnn_gpu.sh OUTDIR [PHASES] - `ktraj-harness --baseline cudnn` on the H200
# (harness/GPU_LOG.md): find libcudnn.so.9, probe two shapes with cuDNN's
# error log on, then rung 06 against cuDNN on the 24 shapes of
# attention_large.json, then PyTorch SDPA's cuDNN/flash figures on the same
# shapes (harness_ref.py, outside the protocol) for comparison.
# Env: H (harness binary), KERNEL, CUDNN (library or folder).
set -u
OUTD=${1:?outdir}
shift
PHASES=${*:-find probe large sdpa}
H=${H:-build/harness/ktraj-harness}
K6=${KERNEL:-kernels/attention_fwd/06_wgmma_tma.cu}
LARGE=kernels/tasks/attention_large.json
mkdir -p "$OUTD"
log() { echo "[$(date +%T)] $*" | tee -a "$OUTD/summary.txt"; }
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
    b = (r.get("check") or {}).get("baseline") or {}
    print("  %-36s %-14s 06 %6.1f TF/s cudnn %6.1f TF/s x%.3f [%s] base_ok=%s rel_l2=%.2g %s %s" % (
        r["scenario"], r["status"], r.get("tflops") or 0, r.get("ref_tflops") or 0,
        r.get("speedup") or 0, ",".join("%.3f" % x for x in (r.get("speedup_ci") or []) if x is not None),
        b.get("pass"), b.get("rel_l2") or 0, json.dumps(r.get("baseline_plan")),
        (r.get("reason") or "")[:300]))
PY
}
for ph in $PHASES; do
	case $ph in
	find)
		py=$(python3 -c 'import nvidia.cudnn,os;print(os.path.join(list(nvidia.cudnn.__path__)[0],"lib"))' 2>/dev/null)
		log "python nvidia.cudnn lib: ${py:-none} ($(ls $py 2>/dev/null | tr '\n' ' ')); toolkit: $(ls /usr/local/cuda/lib64/libcudnn.so.9 2>/dev/null || echo none)"
		python3 -c 'import torch;print("torch cudnn", torch.backends.cudnn.version())' 2>&1 | tee -a "$OUTD/summary.txt" ;;
	probe)
		CUDNN_LOGLEVEL_DBG=2 CUDNN_LOGDEST_DBG="$OUTD/cudnn_probe.log" \
		timeout 120 $H --task $LARGE --kernel $K6 --baseline cudnn ${CUDNN:+--cudnn $CUDNN} \
			--scenarios 'large_b4_h16_s16384_d128_full_bf16,large_b16_h32_s1024_d64_causal_bf16' \
			--budget-ms 60 --timeout 60 >"$OUTD/probe.ndjson" 2>"$OUTD/probe.err"
		log "probe rc=$?"; tail -5 "$OUTD/probe.err"; table "$OUTD/probe.ndjson" | tee -a "$OUTD/summary.txt" ;;
	large)
		timeout ${LARGE_LIMIT:-200} $H --task $LARGE --kernel $K6 --baseline cudnn ${CUDNN:+--cudnn $CUDNN} \
			--budget-ms ${BUDGET:-120} --timeout 60 >"$OUTD/large.ndjson" 2>"$OUTD/large.err"
		log "large rc=$?"; tail -3 "$OUTD/large.err"; table "$OUTD/large.ndjson" | tee -a "$OUTD/summary.txt" ;;
	sdpa)
		names=$(python3 -c "import json;print(' '.join(s['name'] for s in json.load(open('$LARGE'))['scenarios']))")
		timeout ${SDPA_LIMIT:-100} python3 tests/bench/harness_ref.py sdpa $LARGE $names >"$OUTD/sdpa.ndjson" 2>"$OUTD/sdpa.err"
		log "sdpa rc=$?"; tail -3 "$OUTD/sdpa.err"
		python3 -c "
import json
for l in open('$OUTD/sdpa.ndjson'):
    r=json.loads(l); print('  %-36s sdpa-cudnn %7.1f flash %7.1f' % (r['scenario'], r.get('cudnn_tflops') or 0, r.get('flash_tflops') or 0))" | tee -a "$OUTD/summary.txt" ;;
	ncu)
		# what limits the weakest shape: rung 06's kernel, then cuDNN's (its
		# kernel names carry sdpa/fmha/flash/fprop; 06's and the harness's
		# own kernels match none of them)
		sc=${NCU_SCEN:-large_b16_h32_s1024_d64_causal_bf16}
		for who in 06:attn_wgmma cudnn:'sdpa|fmha|flash|fprop|cudnn|Attention|attention'; do
			timeout ${NCU_LIMIT:-90} ncu --clock-control none --kernel-name "regex:${who#*:}" --launch-count 1 \
				--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
				--section SchedulerStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
				$H --task $LARGE --kernel $K6 --baseline cudnn ${CUDNN:+--cudnn $CUDNN} --scenarios $sc \
				--no-timing --timeout 80 >"$OUTD/ncu_${who%%:*}.txt" 2>&1
			log "ncu ${who%%:*} rc=$?"
			grep -E '^  [a-zA-Z_].*\(|Duration|SM Throughput|Compute \(SM\)|Memory Throughput|DRAM Throughput|Registers Per|Shared Memory Config|Block Size|Grid Size|Waves Per SM|Theoretical Occ|Achieved Occ|Issue Slots Busy|No Eligible|Eligible Warps|Warp Cycles Per Issued|Executed Ipc Active|L1/TEX Hit|L2 Hit' \
				"$OUTD/ncu_${who%%:*}.txt" | head -40 | tee -a "$OUTD/summary.txt"
		done ;;
	esac
done
