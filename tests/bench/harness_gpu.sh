#!/bin/bash
# Harness benchmarks and validation on the GPU machine, in one call (run
# from the project root): bash tests/bench/harness_gpu.sh OUTDIR [PHASE...]
# Phases (default: env compile anti ladder dobench aa sdpa sweep):
#   env      GPU/driver/toolkit/torch versions      compile  precompile (COMPILE_LIST)
#   anti     tests/harness/run_gpu.sh               ladder   LADDER_RUNGS on 8 scenarios
#   dobench  harness vs triton do_bench medians     aa       candidate vs itself
#   sdpa     SDPA cuDNN/flash TFLOP/s               sweep    kernels[0]... 04 over all scenarios
#   check    correctness-only pass of CHECK_KERNEL  others   gemm and rmsnorm tasks
#   accept   ../shared/acceptance/harness.sh GPU part (tests/bench/accept_gpu.sh)  Everything lands in OUTDIR/results.tgz (re-packed after each
# phase, so a call stopped at its limit still returns what ran) plus
# OUTDIR/summary.txt.  Numbers go to tests/bench/RESULTS.md "Harness (H200)".
set -u
OUTD=${1:?outdir}
shift
PHASES=${*:-env compile anti ladder dobench aa sdpa sweep}
W=/tmp/hgpu
mkdir -p "$W" "$OUTD"
H=build/harness/ktraj-harness
export KTRAJ_HARNESS_CACHE=/tmp/hgpu/cache
# objects compiled before the call (same nvcc 13.0.88, same flags)
[ -d .devcarry/cache ] && mkdir -p /tmp/hgpu/cache && cp .devcarry/cache/*.so /tmp/hgpu/cache/ 2>/dev/null
SPEC=kernels/tasks/attention_fwd.json
LADDER="grid_s1024_d128_full_bf16,grid_s1024_d64_causal_fp16,grid_s4096_d128_causal_bf16,grid_s2048_d256_full_bf16,ragged_s1531_d128_causal_bf16,gqa4_s4096_d128_causal_bf16,mqa_s1024_d64_full_bf16,grid_s8192_d64_causal_bf16"
DB="grid_s4096_d128_full_bf16 grid_s2048_d64_causal_bf16 gqa4_s4096_d128_causal_bf16 grid_s16384_d128_causal_bf16"
AA="grid_s4096_d128_full_bf16,grid_s1024_d64_full_bf16,ragged_s3001_d128_causal_bf16"
pack() { (cd "$W" && tar czf "$OUTD/results.tgz" --exclude=cache --exclude='*.so' . 2>/dev/null); }
log() { echo "[$(date +%T)] $*" | tee -a "$W/summary.txt"; }
if ! "$H" --help >/dev/null 2>&1; then
	log "prebuilt harness does not run here; rebuilding"
	make -C harness NVCC=/usr/local/cuda/bin/nvcc B="$PWD/build/harness" >"$W/build.log" 2>&1 || { log "build failed"; tail -30 "$W/build.log"; }
fi
for ph in $PHASES; do
	t0=$(date +%s.%N)
	case $ph in
	env)
		nvidia-smi --query-gpu=name,uuid,driver_version,pstate,clocks.sm,clocks.max.sm,power.limit,temperature.gpu,ecc.mode.current,mig.mode.current,clocks_event_reasons.active --format=csv >"$W/env.txt" 2>&1
		(nvcc --version; python3 -c 'import torch,triton;print(torch.__version__,torch.version.cuda,torch.backends.cudnn.version(),triton.__version__)'; uname -a; cat /etc/os-release | head -2) >>"$W/env.txt" 2>&1
		cat "$W/env.txt" ;;
	compile)
		ls ${COMPILE_LIST:-kernels/attention_fwd/*.cu kernels/gemm/*.cu kernels/rmsnorm/*.cu tests/harness/exploits/*.cu} |
			xargs -P 14 -I{} sh -c "$H --task $SPEC --kernel {} --include kernels/include --compile-only >/dev/null 2>&1 || echo 'compile failed: {}'" 2>&1 | tee "$W/compile.txt" ;;
	anti)
		timeout 200 tests/harness/run_gpu.sh "$H" "$W/anti" 2>&1 | tail -30 ;;
	ladder)
		for k in ${LADDER_RUNGS:-05_mma_pipelined 04_mma_tensorcore 03_online_softmax 02_tiled_smem 01_naive}; do
			timeout ${LADDER_LIMIT:-70} "$H" --task $SPEC --kernel kernels/attention_fwd/$k.cu --scenarios "$LADDER" --budget-ms 100 >"$W/ladder_$k.ndjson" 2>"$W/ladder_$k.err"
			log "ladder $k rc=$? $(grep -c '"status":"ok"' "$W/ladder_$k.ndjson") ok of $(grep -c '"type":"result"' "$W/ladder_$k.ndjson")"
		done ;;
	dobench)
		"$H" --task $SPEC --kernel kernels/attention_fwd/04_mma_tensorcore.cu --keep-so "$W/k04.so" --scenarios "$(echo $DB | tr ' ' ,)" --budget-ms 400 >"$W/db_harness.ndjson" 2>"$W/db_harness.err"
		timeout 120 python3 tests/bench/harness_ref.py dobench "$W/k04.so" $SPEC $DB >"$W/db_triton.ndjson" 2>"$W/db_triton.err"
		log "dobench rc=$?"; tail -3 "$W/db_triton.err" ;;
	aa)
		timeout 120 "$H" --task $SPEC --kernel kernels/attention_fwd/04_mma_tensorcore.cu --baseline kernels/attention_fwd/04_mma_tensorcore.cu --scenarios "$AA" --budget-ms 1000 --blocks 10 >"$W/aa.ndjson" 2>"$W/aa.err"
		log "aa rc=$?" ;;
	sdpa)
		timeout 150 python3 tests/bench/harness_ref.py sdpa $SPEC $(echo $LADDER | tr , ' ') grid_s16384_d128_full_bf16 grid_s16384_d128_causal_bf16 grid_s4096_d128_full_bf16 >"$W/sdpa.ndjson" 2>"$W/sdpa.err"
		log "sdpa rc=$?"; tail -3 "$W/sdpa.err" ;;
	sweep)
		s0=$(date +%s.%N)
		timeout ${SWEEP_LIMIT:-240} "$H" --task $SPEC --kernel kernels/attention_fwd/04_mma_tensorcore.cu >"$W/sweep.ndjson" 2>"$W/sweep.err"
		rc=$?
		log "sweep rc=$rc wall_s=$(python3 -c "import time;print(round(time.time()-$s0,1))") results=$(grep -c '"type":"result"' "$W/sweep.ndjson") ok=$(grep -c '"status":"ok"' "$W/sweep.ndjson")" ;;
	check)
		# correctness only, every scenario, for kernel $CHECK_KERNEL
		timeout 200 "$H" --task $SPEC --kernel ${CHECK_KERNEL:-kernels/attention_fwd/05_mma_pipelined.cu} --no-timing >"$W/check.ndjson" 2>"$W/check.err"
		log "check rc=$? $(grep -c '"status":"ok"' "$W/check.ndjson") ok of $(grep -c '"type":"result"' "$W/check.ndjson")" ;;
	others)
		for t in gemm:kernels/gemm/01_smem_tiled.cu rmsnorm:kernels/rmsnorm/01_rowwise.cu; do
			timeout 120 "$H" --task ${t%%:*} --kernel ${t#*:} >"$W/task_${t%%:*}.ndjson" 2>"$W/task_${t%%:*}.err"
			log "task ${t%%:*} rc=$? $(grep -c '"status":"ok"' "$W/task_${t%%:*}.ndjson") ok of $(grep -c '"type":"result"' "$W/task_${t%%:*}.ndjson")"
		done ;;
	accept)
		timeout 200 bash tests/bench/accept_gpu.sh "$W" 2>&1 | tail -20 ;;
	esac
	log "phase $ph: $(python3 -c "import time;print(round(time.time()-$t0,1))") s"
	pack
done
python3 tests/bench/harness_summary.py "$W" >"$W/tables.txt" 2>&1; cat "$W/tables.txt"
cp "$W/summary.txt" "$W/tables.txt" "$OUTD/" 2>/dev/null
pack
