#!/bin/bash
# tests/bench/import_memory.sh KTRAJ [OLD_KTRAJ] - issue 21's import rows:
# peak memory of `ktraj import` of one big Claude Code session (target:
# peak RSS <= 256 MiB whatever the input size), its CPU against `zstd -3`
# of the same bytes on one core (>= 0.35x its speed), and the store file
# against the zstd -3 file (<= 1.0x).  The session is gen_claude.py's
# (deterministic); peak RSS is /usr/bin/time -v's "Maximum resident set
# size", CPU is user+sys.  Imports and zstd run on one CPU (taskset), in
# the same script, so ratios compare like with like on a loaded machine.
# OLD_KTRAJ, when given, is measured the same way (before/after).
# Prints a markdown table for tests/bench/RESULTS.md ("Issue 21: import").
# Environment: BENCH_DIR (default $TMPDIR/ktraj-bench-mem), MB (default
# 300), BATCH (KTRAJ_IMPORT_BATCH for the new binary; default its own).
set -eu
KTRAJ=${1:?usage: import_memory.sh path/to/ktraj [old ktraj]}
OLD=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
W=${BENCH_DIR:-${TMPDIR:-/tmp}/ktraj-bench-mem}
MB=${MB:-300}
mkdir -p "$W"
J=$W/session.$MB.jsonl
[ -s "$J" ] || python3 "$HERE/gen_claude.py" --mb "$MB" "$J" >/dev/null
BYTES=$(stat -L -c %s "$J")
ONE=$(taskset -pc $$ | sed 's/.*: //; s/[,-].*//')
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)

# measure BIN ARGS...: prints "peak_MiB cpu_s exit" of BIN ARGS on one CPU
measure() {
	set +e
	taskset -c "$ONE" /usr/bin/time -v "$@" >/dev/null 2>"$W/time.txt"
	set -e
	awk -F': ' '/Maximum resident set size/ {m = $2 / 1024}
		/User time/ {u = $2} /System time/ {s = $2}
		/Exit status/ {e = $2}
		END {printf "%.0f %.2f %s", m, u + s, e}' "$W/time.txt"
}
imp() {
	local bin=$1
	rm -f "$W/s.ktraj" "$W/s.ktraj-lock"
	KTRAJ_STORE="$W/s.ktraj" KTRAJ_IMPORT_BATCH=${BATCH:-} measure "$bin" --no-progress import "$J"
}
read -r zm zc ze <<<"$(measure zstd -3 -T1 -q -f -o "$W/s.zst" "$J")"
ZS=$(stat -c %s "$W/s.zst")
read -r nm nc ne <<<"$(imp "$KTRAJ")"
NS=$(stat -c %s "$W/s.ktraj")
if [ -n "$OLD" ]; then
	read -r om oc oe <<<"$(env -u KTRAJ_IMPORT_BATCH bash -c "$(declare -f measure imp); W='$W' J='$J' ONE='$ONE' imp '$OLD'")"
	OS=$(stat -c %s "$W/s.ktraj")
fi
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)
f() { awk "BEGIN{printf \"$1\", $2}"; }
echo "### Import memory, speed and size ($(date -u +%Y-%m-%d), $(uname -m), $(nproc) CPUs shared, one for each command (CPU $ONE), load $LOAD0 -> $LOAD1)"
echo
echo "Session: $BYTES bytes (gen_claude.py --mb $MB)."
echo
echo "| what | peak RSS MiB | CPU s | speed vs zstd -3 | file MB | size vs zstd -3 | exit |"
echo "|---|---|---|---|---|---|---|"
echo "| zstd -3 -T1 | $zm | $zc | 1x | $(f %.1f "$ZS/1e6") | 1x | $ze |"
echo "| ktraj import (this build${BATCH:+, KTRAJ_IMPORT_BATCH=$BATCH}) | $nm | $nc | $(f %.2f "$zc/$nc")x | $(f %.1f "$NS/1e6") | $(f %.2f "$NS/$ZS")x | $ne |"
[ -z "$OLD" ] || echo "| ktraj import (OLD_KTRAJ) | $om | $oc | $(f %.2f "$zc/$oc")x | $(f %.1f "$OS/1e6") | $(f %.2f "$OS/$ZS")x | $oe |"
echo
echo "Targets: peak RSS <= 256 MiB; speed >= 0.35x zstd -3 on one core; store <= 1.0x the zstd -3 file."
