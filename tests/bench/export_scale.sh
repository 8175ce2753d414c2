#!/bin/bash
# export_scale.sh [KTRAJ] - `export --format ndjson --partition` of many small
# runs (issue 19): files per table against the 128 MB target, export CPU
# against `zstd -3` over the same rows, an incremental export after adding
# runs, and the DuckDB query of README over the result (when tests/duckdb
# has its node_modules).
#
#   N     runs (default 100000)        E    events per run (default 8)
#   NEW   runs added before the incremental export (default 1000)
#
# The runs are ktraj JSONL written by the inline generator below (one file,
# a run line per run: FORMAT.md §9), three importers' names spread over
# the runs so the export has several partitions.  Prints one line per
# figure; RESULTS.md "Export at scale" keeps what was measured.
set -eu
K=${1:-build/ktraj}
K=$(cd "$(dirname "$K")" && pwd)/$(basename "$K")
N=${N:-100000}
E=${E:-8}
NEW=${NEW:-1000}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export KTRAJ_STORE="$T/s.ktraj"
HERE=$(cd "$(dirname "$0")" && pwd)

gen() { # gen FIRST COUNT > file.jsonl
	python3 - "$1" "$2" "$E" <<'PY'
import hashlib, json, sys
first, count, e = map(int, sys.argv[1:])
fmts = ["claude_code", "codex", "kernelbench"]
w = sys.stdout.write
for i in range(first, first + count):
    rid = hashlib.md5(b"r%d" % i).hexdigest()
    w(json.dumps({"run": {"id": rid, "name": "rollout %d" % i, "format": fmts[i % 3], "meta": {"task": "level1/%d" % (i % 100)}}}) + "\n")
    for s in range(1, e + 1):
        k = s % 4
        if k == 1:
            ev = {"kind": "message", "payload": {"role": "user", "human": True, "text": "Can you make kernel %d faster? Why is it slow?" % i}}
        elif k == 2:
            ev = {"kind": "tool_call", "payload": {"tool": "Bash", "call_id": "c%d" % s, "input": {"command": "nvcc -O3 k.cu && ./bench"}}}
        elif k == 3:
            ev = {"kind": "bench", "payload": {"workload": "matmul", "scenario": "n=%d" % (256 << (i % 4)), "time_ms": 1.0 + (i * 7 + s) % 97 / 10.0, "correct": True}}
        else:
            ev = {"kind": "message", "payload": {"role": "assistant", "human": False, "text": "Tiling with 128x128 blocks and double buffering; measured again."}}
        ev["run"] = rid
        ev["seq"] = s
        w(json.dumps(ev) + "\n")
PY
}

cpu() { # cpu CMD...: user+sys CPU seconds of CMD (GNU time)
	/usr/bin/time -f '%U %S %M' -o "$T/time" "$@" >/dev/null
	awk '{printf "%.2f", $1 + $2}' "$T/time"
}
rss() { awk '{printf "%.0f", $3 / 1024}' "$T/time"; }

gen 0 "$N" >"$T/runs.jsonl"
echo "input: $N runs x $E events, $(wc -c <"$T/runs.jsonl") bytes of ktraj JSONL"
c=$(cpu "$K" import "$T/runs.jsonl")
echo "import: ${c}s CPU"

c_exp=$(cpu "$K" export --all --format ndjson --partition "$T/x")
r_exp=$(rss)
# the same rows as one file, compressed by zstd -3: the peer
find "$T/x" -name 'part-*.ndjson.zst' -print0 | sort -z | xargs -0 zstd -qdc >"$T/rows.ndjson"
bytes=$(wc -c <"$T/rows.ndjson")
c_z=$(cpu zstd -3 -q -f -o "$T/rows.zst" "$T/rows.ndjson")
echo "export: ${c_exp}s CPU, peak RSS ${r_exp} MiB; zstd -3 over the same $bytes bytes of rows: ${c_z}s CPU; ratio $(awk -v a="$c_exp" -v b="$c_z" 'BEGIN{printf "%.1f", (b > 0) ? a / b : 0}')x"
python3 - "$T/x" <<'PY'
import json, math, os, sys
d = sys.argv[1]
m = json.load(open(os.path.join(d, "_manifest.json")))
files = m["exports"][-1]["files"]
for t in ("runs", "events", "bench", "questions"):
    fs = [f for f in files if f["table"] == t]
    parts = {os.path.dirname(f["path"]) for f in fs}
    need = sum(max(1, math.ceil(sum(f["bytes"] for f in fs if os.path.dirname(f["path"]) == p) / m["part_size"])) for p in parts)
    print("table %-9s %8d rows %3d files in %d partitions (the 128 MB target allows %d): %s"
          % (t, sum(f["rows"] for f in fs), len(fs), len(parts), need, "met" if len(fs) <= need else "NOT met"))
PY

gen "$N" "$NEW" >"$T/new.jsonl"
"$K" import "$T/new.jsonl" >/dev/null
c_inc=$(cpu "$K" export --all --format ndjson --partition "$T/x" --since-last)
python3 - "$T/x" "$NEW" "$E" "$c_inc" <<'PY'
import json, os, sys
d, new, e, c = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
m = json.load(open(os.path.join(d, "_manifest.json")))
x = m["exports"][-1]
ok = x["rows"]["events"] == new * e and x["new_runs"] == new and x["rows"]["runs"] == new
print("incremental export after %d new runs: %s CPU, %d event rows in %d files (only the new ones: %s)"
      % (new, c, x["rows"]["events"], len(x["files"]), "yes" if ok else "NO"))
PY
if [ -d "$HERE/../duckdb/node_modules/@duckdb/node-api" ] && command -v node >/dev/null; then
	/usr/bin/time -f '%e' -o "$T/dt" node "$HERE/../duckdb/query.mjs" "$T/x" >"$T/q.json"
	python3 - "$T/q.json" "$(cat "$T/dt")" "$N" "$NEW" <<'PY'
import json, sys
q = json.load(open(sys.argv[1]))
n = int(sys.argv[3]) + int(sys.argv[4])
print("DuckDB (README query) read %d runs (%d distinct), %d events in %d files, %s s wall: %s"
      % (q["runs"]["rows"], q["runs_latest"], q["events"]["rows"], q["events"]["files"], sys.argv[2],
         "ok" if q["runs_latest"] == n else "WRONG"))
PY
else
	echo "DuckDB: not installed (npm install --prefix tests/duckdb): query skipped"
fi
