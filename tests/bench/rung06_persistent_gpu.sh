#!/bin/bash
# rung06_persistent_gpu.sh OUTDIR [PHASES] - rung 06 with the persistent
# grid on the H200 (harness/GPU_LOG.md, 2026-12-03 "persistent rung 06"):
#   smoke   a few scenarios of each family, no timing; stops the script
#           unless all are ok
#   check   the 189 attention_fwd scenarios, no timing (default seed)
#   seed    the same with --seed random
#   ab      the 24 shapes of attention_large.json, 06 against $OLD as
#           --baseline (the rung before this change)
#   var     $VAR against 06 as --baseline on $VAR_SCEN
#   cudnn   the 24 shapes, 06 against --baseline cudnn (cuDNN found by the
#           harness's search), with each arm's warmup in the summary
#   record  the ladder 01..06 into one run with `ktraj bench --record`,
#           each rung's hypothesis appended as a message before it
#           ($KTRAJ_BIN, libraries in $KLIB), exported as ktraj JSONL
# Objects compiled before the call may sit in $CACHE (same nvcc).
# Results: OUTDIR/*.ndjson and OUTDIR/summary.txt.
set -u
OUTD=${1:?outdir}
shift
PHASES=${*:-check seed ab cudnn}
H=${H:-build/harness/ktraj-harness}
K6=${K6:-kernels/attention_fwd/06_wgmma_tma.cu}
SPEC=kernels/tasks/attention_fwd.json
LARGE=kernels/tasks/attention_large.json
mkdir -p "$OUTD"
[ -n "${CACHE:-}" ] && export KTRAJ_HARNESS_CACHE=$CACHE
log() { echo "[$(date +%T)] $*" | tee -a "$OUTD/summary.txt"; }
# one line per result: status, TFLOP/s of both arms, speedup and interval,
# samples per arm, each arm's warmup (calls, first call, mean, median ms)
table() {
	python3 - "$1" <<'PY' | tee -a "$OUTD/summary.txt"
import json, sys
from collections import Counter
st = Counter()
# harness stdout: one JSON object a line (compile, results, summary)
for r in (json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")):
    if r.get("type") != "result":
        continue
    st[r["status"]] += 1
    if r.get("tflops") is None:
        if r["status"] != "ok":
            print("  %-40s %s %s" % (r["scenario"], r["status"], (r.get("reason") or "")[:200]))
        continue
    w = r.get("warmup") or []
    ws = " ".join("%d/%.3g/%.3g/%.3g" % (a["calls"], a["first_ms"] or 0, a["mean_ms"] or 0, a["est_ms"] or 0) for a in w)
    ci = r.get("speedup_ci") or [None, None]
    print("  %-40s %-8s cand %6.1f base %6.1f x%.3f [%s] n %d/%d warm %s" % (
        r["scenario"], r["status"], r["tflops"] or 0, r.get("ref_tflops") or 0,
        r.get("speedup") or 0, ",".join("%.3f" % x for x in ci if x is not None),
        r.get("n") or 0, r.get("ref_n") or 0, ws))
print("  statuses:", dict(st))
PY
}
for ph in $PHASES; do
	t0=$(date +%s)
	case $ph in
	smoke)
		# a few scenarios of every kind first: a hang or a wrong result
		# stops the call here instead of costing a watchdog per scenario
		timeout 120 $H --task $SPEC --kernel $K6 --no-timing --timeout 20 \
			--scenarios "${SMOKE:-grid_s512_d64_causal_bf16,grid_s1024_d128_full_fp16,grid_s2048_d256_causal_bf16,ragged_s777_d64_causal_bf16,ragged_s777_d128_full_bf16,cross_q1000_k3000_d64_causal_bf16,cross_q512_k4096_d128_causal_bf16,mqa_s1024_d64_causal_bf16,odd_b1_h1_s2048_d128_causal_bf16,odd_b3_h5_s2048_d128_full_fp16}" \
			>"$OUTD/smoke.ndjson" 2>"$OUTD/smoke.err"
		rc=$?; log "smoke rc=$rc"; table "$OUTD/smoke.ndjson" | tail -8
		[ $rc -eq 0 ] || exit 1 ;;
	check)
		timeout 200 $H --task $SPEC --kernel $K6 --no-timing --timeout 60 >"$OUTD/check.ndjson" 2>"$OUTD/check.err"
		log "check rc=$?"; table "$OUTD/check.ndjson" | tail -3 ;;
	seed)
		timeout 200 $H --task $SPEC --kernel $K6 --no-timing --seed random --timeout 60 >"$OUTD/seed.ndjson" 2>"$OUTD/seed.err"
		log "seed rc=$? $(grep -o '"seed":"[0-9a-f]*"' "$OUTD/seed.ndjson" | head -1)"; table "$OUTD/seed.ndjson" | tail -3 ;;
	ab)
		timeout 200 $H --task $LARGE --kernel $K6 --baseline "${OLD:?OLD}" --budget-ms ${BUDGET:-60} --timeout 60 \
			>"$OUTD/ab.ndjson" 2>"$OUTD/ab.err"
		log "ab rc=$?"; table "$OUTD/ab.ndjson" ;;
	var)
		timeout 150 $H --task $LARGE --kernel "${VAR:?VAR}" --baseline $K6 --scenarios "${VAR_SCEN:?}" \
			--budget-ms ${BUDGET:-60} --timeout 60 >"$OUTD/var.ndjson" 2>"$OUTD/var.err"
		log "var rc=$?"; table "$OUTD/var.ndjson" ;;
	cudnn)
		timeout 200 $H --task $LARGE --kernel $K6 --baseline cudnn --budget-ms ${BUDGET:-120} --timeout 60 \
			>"$OUTD/cudnn.ndjson" 2>"$OUTD/cudnn.err"
		log "cudnn rc=$?"; tail -2 "$OUTD/cudnn.err"; table "$OUTD/cudnn.ndjson" ;;
	record)
		KB=${KTRAJ_BIN:?KTRAJ_BIN}
		export LD_LIBRARY_PATH=${KLIB:+$KLIB:}${LD_LIBRARY_PATH:-}
		export KTRAJ_STORE=/tmp/ladder.ktraj KTRAJ_KERNELS=$PWD/kernels KTRAJ_HARNESS=$PWD/$H
		rm -rf /tmp/ladder.ktraj
		while IFS='|' read -r k msg; do
			[ -z "$k" ] && continue
			python3 -c 'import json,sys; print(json.dumps({"kind":"message","actor":"agent","payload":{"role":"assistant","human":False,"text":sys.argv[1]}}))' "$msg" |
				$KB append ladder >>"$OUTD/record.err" 2>&1
			timeout 150 $KB bench --task attention_fwd --kernel kernels/attention_fwd/$k.cu --record ladder --json \
				--scenarios "${REC_SCEN:-grid_s512_d64_full_bf16,grid_s1024_d128_full_bf16,grid_s2048_d64_causal_bf16}" \
				-- --budget-ms 60 >>"$OUTD/record.ndjson" 2>>"$OUTD/record.err"
			log "record $k rc=$?"
		done <"${REC_PLAN:?REC_PLAN}"
		$KB export ladder --format jsonl -o "$OUTD/ladder.jsonl" 2>>"$OUTD/record.err"
		log "export rc=$? $(wc -l <"$OUTD/ladder.jsonl") lines"; tail -5 "$OUTD/record.err"
		grep -o '"scenario":"[^"]*"\|"tflops":[0-9.]*\|"status":"[a-z_]*"' "$OUTD/record.ndjson" | paste - - - | tee -a "$OUTD/summary.txt" ;;
	esac
	log "phase $ph: $(( $(date +%s) - t0 )) s"
done
