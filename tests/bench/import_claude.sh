#!/bin/bash
# tests/bench/import_claude.sh KTRAJ - Claude Code import speed (issue 3
# target: >= 100 MB/s on one core).
#
# Generates a deterministic synthetic Claude Code session (gen_claude.py,
# ~100 MB by default: split assistant lines, Read/Edit/Write/Bash calls with
# whole-file toolUseResults, CUDA-like sources) and measures, single
# threaded, CPU seconds (user+sys; fair on a shared machine) and wall:
#   - first import into an empty store (importer + store end to end);
#   - re-import of the same file (importer alone: every event is already
#     stored, so nothing is written);
#   - `zstd -3` of the same bytes, as a yardstick for the machine.
# Prints a markdown block for tests/bench/RESULTS.md.
# Environment: BENCH_DIR (default $TMPDIR/ktraj-bench-claude), MB (default 100).
set -eu
KTRAJ=${1:?usage: import_claude.sh path/to/ktraj}
KTRAJ=$(cd "$(dirname "$KTRAJ")" && pwd)/$(basename "$KTRAJ")
HERE=$(cd "$(dirname "$0")" && pwd)
W=${BENCH_DIR:-${TMPDIR:-/tmp}/ktraj-bench-claude}
MB=${MB:-100}
mkdir -p "$W"
J=$W/session.jsonl
if [ ! -s "$J" ] || [ "$HERE/gen_claude.py" -nt "$J" ] || [ ! -f "$W/gen.$MB" ]; then
	rm -f "$W"/gen.*
	python3 "$HERE/gen_claude.py" --mb "$MB" "$J"
	touch "$W/gen.$MB"
fi
BYTES=$(stat -c %s "$J")

cpu() { # cpu VAR CMD...: VAR_wall, VAR_cpu in seconds
	local v=$1 t0 t1 out; shift
	t0=$(date +%s.%N)
	/usr/bin/time -f '%U %S' -o "$W/time.txt" "$@" >/dev/null 2>&1
	t1=$(date +%s.%N)
	out=$(tail -1 "$W/time.txt")
	eval "${v}_wall=$(echo "$t1 - $t0" | bc -l)"
	eval "${v}_cpu=$(echo "$out" | awk '{print $1+$2}')"
}

rm -f "$W/s.ktraj" "$W/s.ktraj-lock"
export KTRAJ_STORE=$W/s.ktraj
cpu first "$KTRAJ" --no-progress import "$J"
cpu again "$KTRAJ" --no-progress import "$J"
cpu zstd zstd -3 -q -f -o "$W/session.zst" "$J"
EV=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(sum(json.loads(l)["events"] for l in sys.stdin))')
mbs() { echo "scale=1; $BYTES / 1048576 / $1" | bc -l; }
{
echo "### Claude Code import ($(date -u +%Y-%m-%d), $(uname -m), $(nproc) cores shared)"
echo
echo "Synthetic session: $((BYTES / 1048576)) MB, $EV events (tests/bench/gen_claude.py)."
echo
echo "| what | CPU s | wall s | MB/s (CPU) |"
echo "|---|---|---|---|"
echo "| import into an empty store (end to end) | $first_cpu | $(printf %.2f "$first_wall") | $(mbs "$first_cpu") |"
echo "| re-import, nothing new (importer alone) | $again_cpu | $(printf %.2f "$again_wall") | $(mbs "$again_cpu") |"
echo "| zstd -3 of the same bytes | $zstd_cpu | $(printf %.2f "$zstd_wall") | $(mbs "$zstd_cpu") |"
} | tee "$W/results.md"
