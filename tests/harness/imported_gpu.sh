#!/bin/bash
# Replay of an imported trajectory's CUDA steps on a GPU (issue 6): record a
# Claude Code-style session on this GPU (the agent writes
# tests/data/replay/saxpy_bench.cu, builds it with nvcc, runs it), import it,
# then replay its compile step once and its bench step twice.
# Usage (project root, GPU machine): KTRAJ=path/to/ktraj tests/harness/imported_gpu.sh OUTDIR
set -u
OUT=${1:?usage: imported_gpu.sh OUTDIR}
K=${KTRAJ:-build/ktraj}
D=tests/data/replay
if ! nvidia-smi -L >/dev/null 2>&1; then
	echo "skip: no GPU"
	exit 0
fi
mkdir -p "$OUT/rec"
export KTRAJ_STORE=$OUT/imported.ktraj
cp "$D/saxpy_bench.cu" "$OUT/rec/"
(cd "$OUT/rec" && nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o saxpy_bench saxpy_bench.cu && ./saxpy_bench) >"$OUT/rec/output.txt" || exit 1
python3 "$D/make_cuda_session.py" "$D/saxpy_bench.cu" "$OUT/rec/output.txt" >"$OUT/session.jsonl"
R=$("$K" import --json "$OUT/session.jsonl" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
"$K" log "$R" | tee "$OUT/log.txt"
C=$("$K" log "$R" --json | python3 -c 'import json,sys; print(next(r["seq"] for r in map(json.loads,sys.stdin) if r["kind"]=="compile"))')
B=$("$K" log "$R" --json | python3 -c 'import json,sys; print(next(r["seq"] for r in map(json.loads,sys.stdin) if r["kind"]=="bench"))')
{ "$K" replay "$R" "$C" --json; "$K" replay "$R" "$B" --json; "$K" replay "$R" "$B" --json; } | tee "$OUT/replays.ndjson"
python3 - "$OUT/replays.ndjson" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
for r in rows:
    print(f"step {r['step']}: {r['verdict']} - {r['reason']}")
ok = len(rows) == 3 and all(r["verdict"] == "reproduced" for r in rows)
print("imported CUDA steps reproduced:", ok)
sys.exit(0 if ok else 1)
PY
