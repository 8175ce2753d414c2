#!/bin/bash
# tests/bench/export_ab.sh LABEL=KTRAJ... - issue 21's `export --format
# jsonl` row as an A/B: each binary's export of read_paths.sh's run (gen.py
# $EVENTS events, imported once by the first binary) against `zstd -d` of
# the run's JSONL (`zstd -3` file), in ROUNDS rounds; in each round the
# binaries and zstd run one after the other, so each ratio is taken within
# a round, at one load.  CPU is user+sys (bash's times) of the child.
# Also checks that every binary's output is byte-identical to the first's
# (a binary built to measure a cut that changes the output is reported as
# "differs").
# Environment: BENCH_DIR (default $TMPDIR/ktraj-bench-exp), EVENTS
# (default 100000), ROUNDS (default 5).  Prints a markdown table.
set -eu
[ $# -ge 1 ] || { echo "usage: export_ab.sh LABEL=path/to/ktraj..." >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
W=${BENCH_DIR:-${TMPDIR:-/tmp}/ktraj-bench-exp}
EVENTS=${EVENTS:-100000}
ROUNDS=${ROUNDS:-5}
mkdir -p "$W"
J=$W/gen.$EVENTS.jsonl
[ -s "$J" ] || python3 "$HERE/gen.py" --events "$EVENTS" "$J" 2>/dev/null
[ -s "$J.zst" ] || zstd -3 -q -f "$J" -o "$J.zst"
S=$W/exp.kt
K1=${1#*=}
[ -s "$S" ] || "$K1" --store "$S" --no-progress import "$J" >/dev/null
RUN=$("$K1" --store "$S" ls --json | python3 -c 'import sys,json; print(json.loads(sys.stdin.readline())["run"])')
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
cpu() {
	local TIMEFORMAT='%3U %3S' out
	out=$( { time "$@" >/dev/null 2>&1; } 2>&1 )
	awk -v t="$out" 'BEGIN{split(t, a, " "); printf "%.3f", a[1] + a[2]}'
}
median() { sort -g | awk '{a[NR]=$1} END{print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
REF=$("$K1" --store "$S" export --format jsonl "$RUN" | sha256sum | cut -c1-16)
: >"$W/ab.txt"
for ((r = 0; r < ROUNDS; r++)); do
	z=$(cpu zstd -d -f -c "$J.zst")
	for a in "$@"; do
		k=$(cpu "${a#*=}" --store "$S" export --format jsonl "$RUN")
		echo "${a%%=*} $k $z $(awk -v k="$k" -v z="$z" 'BEGIN{printf "%.3f", k / z}')" >>"$W/ab.txt"
	done
done
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)
echo "export_ab.sh: gen.py $EVENTS events ($(stat -c %s "$J") bytes), $ROUNDS rounds, $(nproc) CPUs, load $LOAD0 -> $LOAD1; output sha256 $REF..."
echo
echo "| build | export CPU s (median) | zstd -d CPU s (median) | ratio, median of rounds | ratio range | output |"
echo "|---|---|---|---|---|---|"
for a in "$@"; do
	L=${a%%=*}
	h=$("${a#*=}" --store "$S" export --format jsonl "$RUN" | sha256sum | cut -c1-16)
	[ "$h" = "$REF" ] && o=identical || o=differs
	echo "| $L | $(awk -v l="$L" '$1 == l {print $2}' "$W/ab.txt" | median) | $(awk -v l="$L" '$1 == l {print $3}' "$W/ab.txt" | median) | $(awk -v l="$L" '$1 == l {print $4}' "$W/ab.txt" | median)x | $(awk -v l="$L" '$1 == l {print $4}' "$W/ab.txt" | sort -g | sed -n '1p;$p' | tr '\n' ' ' | sed 's/ $//; s/ / - /') | $o |"
done
