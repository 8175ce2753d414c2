#!/bin/bash
# Anti-gaming suite: every exploit kernel in exploits/ (one per exploit class
# of shared/research/harness.md §2) runs through ktraj-harness and must be
# rejected or flagged; x00_honest.cu is the control and must pass.
# Usage: tests/harness/run_gpu.sh [HARNESS] [OUTDIR]   (from the project root)
# Without a GPU it prints a skip line and exits 0.  Exit 1 if any exploit
# got through or the control failed.
set -u
H=${1:-build/harness/ktraj-harness}
OUTD=${2:-$(mktemp -d)}
HERE=$(cd "$(dirname "$0")" && pwd)
X=$HERE/exploits
if ! nvidia-smi -L >/dev/null 2>&1; then
	echo "skip: no GPU (anti-gaming suite runs on the H200; see harness/GPU_LOG.md)"
	exit 0
fi
mkdir -p "$OUTD"
CACHE=${KTRAJ_HARNESS_CACHE:-$OUTD/cache}
FAST="--include kernels/include --budget-ms 30 --blocks 2 --min-samples 2 --cache $CACHE"
T=$HERE/exploit_task.json
# name | spec | expectation (python expression over rows = result rows)
cases=(
"x00_honest|$T|all(r['status']=='ok' for r in rows)"
"x01_side_stream|$T|all(r['status']=='flagged' and 'side_stream' in r['flags'] for r in rows)"
"x02_host_thread|$T|all(r['status']=='rejected' for r in rows)"
"x03_deferred|$T|any(r['status']=='incorrect' for r in rows)"
"x04_timer|$T|all(r['status']=='rejected' for r in rows)"
"x05_cache_ptr|$T|any(r['status']=='incorrect' for r in rows)"
"x06_noop|$T|all(r['status']=='incorrect' for r in rows)"
"x07_zero_inputs|$T|all(r['status']=='incorrect' and 'modified' in (r['reason'] or '') for r in rows)"
"x08_zeros|$T|all(r['status']=='incorrect' for r in rows)"
"x08_zeros|$HERE/degenerate_task.json|all(r['status']=='invalid_scenario' for r in rows)"
"x10_tail_skip|$T|any(r['status']=='incorrect' for r in rows)"
"x11_fp8|$T|all(r['status']=='incorrect' for r in rows)"
"x12_skip_heads|$T|all(r['status']=='incorrect' for r in rows)"
"x13_l2_persist|$T|all(r['status']=='rejected' for r in rows)"
"x14_library|$T|all(r['status']=='rejected' for r in rows)"
"x15_graph|$T|all(r['status']=='rejected' for r in rows)"
"x16_drift|$T|any(r['status']=='incorrect' for r in rows)"
"x17_race|$T|any(r['status']=='incorrect' and 'bit-identical' in (r['reason'] or '') for r in rows)"
"x18_hang|$T|all(r['status']=='timeout' for r in rows)"
"x18_crash|$T|len(rows)==2 and all(r['status']=='runtime_error' for r in rows)"
"x19_peek|$T|all(r['status'] in ('incorrect','runtime_error') for r in rows)"
"x00_honest|$HERE/impossible_task.json|all(r['status']=='flagged' and 'impossible' in r['flags'] for r in rows)"
)
pass=0 fail=0
printf '%-16s %-22s %-8s %s\n' kernel spec verdict statuses >"$OUTD/antigaming.txt"
for c in "${cases[@]}"; do
	IFS='|' read -r k spec expr <<<"$c"
	extra=""
	[ "$k" = x18_hang ] && extra="--timeout 15 --scenarios 0"
	out=$OUTD/$k.$(basename "$spec" .json).ndjson
	"$H" --task "$spec" --kernel "$X/$k.cu" $FAST $extra >"$out" 2>"$out.err"
	if python3 - "$out" "$expr" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
rows = [r for r in rows if r.get('type') == 'result']
ok = bool(rows) and eval(sys.argv[2])
print(' '.join(f"{r['status']}{'(' + ','.join(r.get('flags', [])) + ')' if r.get('flags') else ''}" for r in rows), file=sys.stderr)
sys.exit(0 if ok else 1)
PY
	then v=caught; pass=$((pass+1)); else v=MISSED; fail=$((fail+1)); fi
	[ "$k" = x00_honest ] && [ "$(basename "$spec")" = exploit_task.json ] && { [ $v = caught ] && v=passes || v=FAILS; }
	st=$(python3 -c 'import json,sys; print(" ".join(json.loads(l)["status"] for l in open(sys.argv[1]) if "\"result\"" in l))' "$out" 2>/dev/null)
	printf '%-16s %-22s %-8s %s\n' "$k" "$(basename "$spec" .json)" "$v" "$st" | tee -a "$OUTD/antigaming.txt"
done
echo "anti-gaming: $pass as expected, $fail not" | tee -a "$OUTD/antigaming.txt"
[ "$fail" -eq 0 ]
