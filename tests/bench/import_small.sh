#!/bin/bash
# tests/bench/import_small.sh KTRAJ [OLD_KTRAJ] - issue 21's small-runs row:
# N small Claude Code sessions in one folder (default 10,000) against the
# same bytes as one session (target: CPU <= 1.5x, store <= 1.2x).
# One gen_claude.py session is cut into N consecutive pieces of whole turns,
# each given its own sessionId (so each is a run of its own); the peer is
# the uncut session imported as one run.  Both imports run on one CPU
# (taskset), CPU is user+sys from /usr/bin/time, in the same script, so the
# ratio compares like with like on a loaded machine.  OLD_KTRAJ, when
# given, is measured the same way (before/after).
# Prints a markdown table for tests/bench/RESULTS.md ("Issue 21: import").
# Environment: BENCH_DIR (default $TMPDIR/ktraj-bench-small), N (default
# 10000), MB (size of the session before it is cut, default 200: ~6
# events a session).
set -eu
KTRAJ=${1:?usage: import_small.sh path/to/ktraj [old ktraj]}
OLD=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
W=${BENCH_DIR:-${TMPDIR:-/tmp}/ktraj-bench-small}
N=${N:-10000}
MB=${MB:-200}
mkdir -p "$W"
J=$W/one.$MB.jsonl
D=$W/many.$MB.$N
[ -s "$J" ] || python3 "$HERE/gen_claude.py" --mb "$MB" "$J" >/dev/null
if [ ! -d "$D" ]; then
	python3 "$HERE/cut_session.py" "$J" "$D.tmp" "$N"
	mv "$D.tmp" "$D"
fi
ONE=$(taskset -pc $$ | sed 's/.*: //; s/[,-].*//')
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)

# imp BIN SOURCE: prints "cpu_s store_bytes exit" of one import into an
# empty store, on one CPU
imp() {
	rm -f "$W/s.ktraj" "$W/s.ktraj-lock"
	set +e
	KTRAJ_STORE="$W/s.ktraj" taskset -c "$ONE" /usr/bin/time -f '%U %S %x' \
		"$1" --no-progress import "$2" >/dev/null 2>"$W/time.txt"
	set -e
	tail -1 "$W/time.txt" | awk -v s="$(stat -c %s "$W/s.ktraj")" \
		'{printf "%.2f %d %s", $1 + $2, s, $3}'
}
f() { awk "BEGIN{printf \"$1\", $2}"; }
row() { # row LABEL BIN
	local oc os oe mc ms me
	read -r oc os oe <<<"$(imp "$2" "$J")"
	read -r mc ms me <<<"$(imp "$2" "$D")"
	echo "| $1 | $oc | $mc | $(f %.2f "$mc/$oc")x | $(f %.1f "$os/1e6") | $(f %.1f "$ms/1e6") | $(f %.2f "$ms/$os")x | $oe $me |"
}
R1=$(row "ktraj import (this build)" "$KTRAJ")
[ -z "$OLD" ] || R2=$(row "ktraj import (OLD_KTRAJ)" "$OLD")
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)
echo "### $N small sessions against one ($(date -u +%Y-%m-%d), $(uname -m), $(nproc) CPUs shared, CPU $ONE, load $LOAD0 -> $LOAD1)"
echo
echo "Session: $(stat -c %s "$J") bytes (gen_claude.py --mb $MB), cut into $N files."
echo
echo "| what | one run CPU s | $N runs CPU s | CPU ratio | one run store MB | $N runs store MB | store ratio | exit |"
echo "|---|---|---|---|---|---|---|---|"
echo "$R1"
[ -z "$OLD" ] || echo "$R2"
echo
echo "Targets: CPU ratio <= 1.5x; store ratio <= 1.2x."
