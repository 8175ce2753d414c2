#!/bin/bash
# tests/bench/block_sweep.sh LABEL=KTRAJ... - issue 21's store-size rows
# against block size and zstd level: for each binary (built with
# -DKT_BLOCK_SEAL=... -DKT_BLOCK_LEVEL=..., store/store_int.h), the store
# of one big Claude Code session and of the same bytes cut into N small
# sessions (import_small.sh's inputs), each against the `zstd -3` file of
# the session; the import CPU of both; and the CPU of `show` and `cat` at a
# late step (read_paths.sh's gen.py run, seq N-1000), the point reads a
# larger block makes dearer.
# Imports run on one CPU (taskset), CPU is user+sys (/usr/bin/time for
# imports, bash's times for REPS reads); the binaries run one after the
# other in each of ROUNDS rounds, so they see the same load; the table
# gives medians over the rounds (store bytes do not vary).
# Environment: BENCH_DIR (default $TMPDIR/ktraj-bench-sweep), MB (session
# size, default 200), N (small sessions, default 10000), EVENTS (gen.py
# events for the reads, default 100000), ROUNDS (default 3), REPS
# (default 20).  Prints a markdown table for tests/bench/RESULTS.md.
set -eu
[ $# -ge 1 ] || { echo "usage: block_sweep.sh LABEL=path/to/ktraj..." >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
W=${BENCH_DIR:-${TMPDIR:-/tmp}/ktraj-bench-sweep}
MB=${MB:-200}
N=${N:-10000}
EVENTS=${EVENTS:-100000}
ROUNDS=${ROUNDS:-3}
REPS=${REPS:-20}
mkdir -p "$W"
# the session and its N pieces, made as import_small.sh makes them
J=$W/one.$MB.jsonl
D=$W/many.$MB.$N
if [ ! -s "$J" ] || [ ! -d "$D" ]; then
	BENCH_DIR=$W MB=$MB N=$N "$HERE/import_small.sh" "${1#*=}" >/dev/null
fi
[ -s "$J.zst" ] || zstd -3 -q -f "$J" -o "$J.zst"
G=$W/gen.$EVENTS.jsonl
[ -s "$G" ] || python3 "$HERE/gen.py" --events "$EVENTS" "$G" 2>/dev/null
[ -s "$G.zst" ] || zstd -3 -q -f "$G" -o "$G.zst"
ZJ=$(stat -c %s "$J.zst")
ZG=$(stat -c %s "$G.zst")
ONE=$(taskset -pc $$ | sed 's/.*: //; s/[,-].*//')
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)

# imp BIN STORE SOURCE: "cpu_s store_bytes" of one import into an empty store
imp() {
	rm -f "$2" "$2-lock"
	KTRAJ_STORE="$2" taskset -c "$ONE" /usr/bin/time -f '%U %S %x' \
		"$1" --no-progress import "$3" >/dev/null 2>"$W/time.txt" || true
	tail -1 "$W/time.txt" | awk -v s="$(stat -c %s "$2")" \
		'{if ($3 != 0) s = -1; printf "%.2f %d", $1 + $2, s}'
}
# cpu REPS CMD...: CPU seconds (user+sys) of REPS runs of CMD, per run (ms)
cpu() {
	local reps=$1; shift
	local TIMEFORMAT='%3U %3S' out
	out=$( { time for ((k = 0; k < reps; k++)); do
		"$@" >/dev/null 2>&1 || true; done; } 2>&1 )
	awk -v t="$out" -v r="$reps" 'BEGIN{split(t, a, " "); printf "%.1f", 1000 * (a[1] + a[2]) / r}'
}
median() { sort -g | awk '{a[NR]=$1} END{print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

for ((r = 0; r < ROUNDS; r++)); do
	for a in "$@"; do
		L=${a%%=*} K=${a#*=}
		read -r c1 s1 <<<"$(imp "$K" "$W/one.kt" "$J")"
		read -r c2 s2 <<<"$(imp "$K" "$W/many.kt" "$D")"
		read -r c3 s3 <<<"$(imp "$K" "$W/gen.kt" "$G")"
		RUN=$("$K" --store "$W/gen.kt" ls --json | python3 -c 'import sys,json; print(json.loads(sys.stdin.readline())["run"])')
		NEV=$("$K" --store "$W/gen.kt" ls --json | python3 -c 'import sys,json; print(json.loads(sys.stdin.readline())["events"])')
		SEQ=$((NEV - 1000))
		FILE=$("$K" --store "$W/gen.kt" log --json --kind edit --to "$SEQ" --from $((SEQ - 5000)) "$RUN" |
			python3 -c 'import sys,json; p=[json.loads(l).get("path") for l in sys.stdin]; print([x for x in p if x][-1])')
		sh=$(cpu "$REPS" "$K" --store "$W/gen.kt" show "$RUN" "$SEQ")
		ct=$(cpu "$REPS" "$K" --store "$W/gen.kt" cat "$RUN" "$FILE" --at "$SEQ")
		echo "$L $c1 $s1 $c2 $s2 $c3 $s3 $sh $ct" >>"$W/raw.txt"
		echo "$L $c1 $s1 $c2 $s2 $c3 $s3 $sh $ct"
	done
done >"$W/rounds.txt"
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)
f() { awk "BEGIN{printf \"$1\", $2}"; }
col() { awk -v l="$1" -v c="$2" '$1 == l {print $c}' "$W/rounds.txt" | median; }
echo "block_sweep.sh: session $(stat -c %s "$J") bytes (gen_claude.py --mb $MB, zstd -3 $ZJ), cut into $N files; gen.py $EVENTS events $(stat -c %s "$G") bytes (zstd -3 $ZG); $ROUNDS rounds, $REPS reads a sample, $(nproc) CPUs, CPU $ONE, load $LOAD0 -> $LOAD1"
echo
echo "| build | session store / zstd -3 | $N runs store / zstd -3 | $N runs / one run | gen.py store / zstd -3 | import CPU s: session | $N runs | gen.py | show ms | cat ms |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for a in "$@"; do
	L=${a%%=*}
	s1=$(col "$L" 3) s2=$(col "$L" 5) s3=$(col "$L" 7)
	echo "| $L | $(f %.2f "$s1/$ZJ")x | $(f %.2f "$s2/$ZJ")x | $(f %.2f "$s2/$s1")x | $(f %.2f "$s3/$ZG")x | $(col "$L" 2) | $(col "$L" 4) | $(col "$L" 6) | $(col "$L" 8) | $(col "$L" 9) |"
done
