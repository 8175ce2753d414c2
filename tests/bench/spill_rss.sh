#!/bin/bash
# tests/bench/spill_rss.sh KTRAJ SESSION [IDS] - issue 21: how much of the
# import's id spill (store/spill.h, an unlinked ktraj-ids-* LMDB file) is
# resident.  Imports SESSION into a fresh store with KTRAJ_IMPORT_IDS=IDS
# (default: the binary's own) and samples /proc/PID/smaps every 0.2 s:
# prints the largest Rss of the spill file's mapping, its largest size on
# disk seen (st_size of the open file), and the import's peak RSS
# (VmHWM), in MiB.  A build with -DKT_SPILL_TOUCH=4000000000u never gives
# the map's pages back: run both to see what the give-back bounds.
# Environment: BENCH_DIR (default $TMPDIR/ktraj-bench-spill).
set -eu
KTRAJ=${1:?usage: spill_rss.sh path/to/ktraj session.jsonl [ids]}
J=${2:?usage: spill_rss.sh path/to/ktraj session.jsonl [ids]}
IDS=${3:-}
W=${BENCH_DIR:-${TMPDIR:-/tmp}/ktraj-bench-spill}
mkdir -p "$W"
rm -f "$W/s.ktraj" "$W/s.ktraj-lock"
KTRAJ_STORE="$W/s.ktraj" KTRAJ_IMPORT_IDS=$IDS "$KTRAJ" --no-progress import "$J" >/dev/null &
pid=$!
rss=0 size=0 hwm=0
while kill -0 "$pid" 2>/dev/null; do
	r=$(awk '/ktraj-ids-/ {on = 1; next} /^[0-9a-f]+-[0-9a-f]+ / {on = 0}
		on && /^Rss:/ {s += $2} END {print s + 0}' "/proc/$pid/smaps" 2>/dev/null || echo 0)
	[ "$r" -gt "$rss" ] && rss=$r
	for fd in /proc/$pid/fd/*; do
		case $(readlink "$fd" 2>/dev/null) in
		*ktraj-ids-*) z=$(stat -L -c %s "$fd" 2>/dev/null || echo 0)
			[ "$z" -gt "$size" ] && size=$z ;;
		esac
	done
	h=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
	[ "${h:-0}" -gt "$hwm" ] && hwm=$h
	sleep 0.2
done
wait "$pid"
awk -v r="$rss" -v z="$size" -v h="$hwm" 'BEGIN {
	printf "spill map resident (peak): %.1f MiB; spill file (largest): %.1f MiB; import VmHWM: %.0f MiB\n",
	       r / 1024, z / 1048576, h / 1024 }'
rm -f "$W/s.ktraj" "$W/s.ktraj-lock"
