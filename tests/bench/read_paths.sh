#!/bin/bash
# tests/bench/read_paths.sh KTRAJ - issue 21's read-path and start-up rows,
# each against its peer on the same data, in one run:
#   log --json (full scan)      vs  zstd -d of the run's JSONL (.zst, -3)
#   export --format jsonl       vs  zstd -d, same file
#   ls on a tiny store          vs  sqlite3 :memory: 'select 1'   (start-up)
#   show RUN SEQ, cat RUN FILE  vs  a sqlite3 point query (the run's event
#   --at SEQ, diff RUN SEQ-100      lines in a table keyed by seq), SEQ 1,000
#   SEQ (late steps)                before the end
#   search WORD (all events)    vs  rg -c -i WORD on the raw JSONL (skipped
#                                   with a note when rg is absent)
# Input: gen.py --events $EVENTS (default 100,000 events, ~370 MB of JSONL
# with the blob lines), imported once.  Each round runs ktraj and then its
# peer (alternating, so both see the same load); the short commands run
# REPS times per sample (default 20).  CPU seconds (user+sys of the child,
# bash's times) are the measure on a shared machine; the table gives the
# medians of RUNS rounds (default 5) and the ratio of the medians.
# Environment: BENCH_DIR (work dir, default $TMPDIR/ktraj-bench), EVENTS,
# RUNS, REPS, WORD (default threadIdx).  Prints a markdown table (also left
# in $BENCH_DIR/read_paths.md) for tests/bench/RESULTS.md.
set -eu
KTRAJ=${1:?usage: read_paths.sh path/to/ktraj}
KTRAJ=$(cd "$(dirname "$KTRAJ")" && pwd)/$(basename "$KTRAJ")
HERE=$(cd "$(dirname "$0")" && pwd)
W=${BENCH_DIR:-${TMPDIR:-/tmp}/ktraj-bench}/read
EVENTS=${EVENTS:-100000}
RUNS=${RUNS:-5}
REPS=${REPS:-20}
WORD=${WORD:-threadIdx}
mkdir -p "$W"

J=$W/gen.jsonl
if [ ! -s "$J" ] || [ ! -f "$W/gen.$EVENTS" ] || [ "$HERE/gen.py" -nt "$J" ]; then
	rm -f "$W"/gen.* "$W"/s.kt* "$W"/ev.db
	python3 "$HERE/gen.py" --events "$EVENTS" "$J" 2>/dev/null
	touch "$W/gen.$EVENTS"
fi
[ -s "$J.zst" ] || zstd -3 -q -f "$J" -o "$J.zst"
S=$W/s.kt
if [ ! -s "$S" ]; then
	"$KTRAJ" --store "$S" --no-progress import "$J" >/dev/null
fi
T=$W/tiny.kt
[ -s "$T" ] || "$KTRAJ" --store "$T" init >/dev/null
RUN=$("$KTRAJ" --store "$S" ls --json | python3 -c 'import sys,json; print(json.loads(sys.stdin.readline())["run"])')
N=$("$KTRAJ" --store "$S" ls --json | python3 -c 'import sys,json; print(json.loads(sys.stdin.readline())["events"])')
SEQ=$((N - 1000))
# a file of the workspace at that step, for cat
FILE=$("$KTRAJ" --store "$S" log --json --kind edit --to "$SEQ" --from $((SEQ > 5000 ? SEQ - 5000 : 1)) "$RUN" |
	python3 -c 'import sys,json; p=[json.loads(l).get("path") for l in sys.stdin]; print([x for x in p if x][-1])')
# the peer of a point read: the same event lines, keyed by seq
if [ ! -s "$W/ev.db" ]; then
	python3 - "$J" "$W/ev.db" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[2])
db.execute("create table ev (seq integer primary key, line text)")
seq = 0
with open(sys.argv[1], encoding="utf-8") as f:
    for line in f:
        if '"kind"' not in line[:200] and '"blob"' in line[:20]:
            continue
        seq += 1
        db.execute("insert into ev values (?, ?)", (seq, line))
db.commit()
PY
fi
HAVE_RG=1
command -v rg >/dev/null || HAVE_RG=0

# cpu REPS CMD...: CPU seconds (user+sys) of REPS runs of CMD
cpu() {
	local reps=$1; shift
	local TIMEFORMAT='%3U %3S' out
	out=$( { time for ((k = 0; k < reps; k++)); do
		"$@" >/dev/null 2>&1 || true; done; } 2>&1 )
	awk -v t="$out" 'BEGIN{split(t, a, " "); printf "%.3f", a[1] + a[2]}'
}
median() { sort -g | awk '{a[NR]=$1} END{print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# row NAME REPS "KTRAJ ARGS" PEER...: RUNS alternating rounds
declare -A K P
row() {
	local name=$1 reps=$2 kargs=$3; shift 3
	local kf="$W/k.$name" pf="$W/p.$name"
	: >"$kf"; : >"$pf"
	for ((r = 0; r < RUNS; r++)); do
		# shellcheck disable=SC2086
		(cpu "$reps" "$KTRAJ" --store "$STORE" $kargs) >>"$kf"; echo >>"$kf"
		(cpu "$reps" "$@") >>"$pf"; echo >>"$pf"
	done
	K[$name]=$(median <"$kf")
	P[$name]=$(median <"$pf")
}

STORE=$S
row log 1 "log --json $RUN" zstd -d -f -c "$J.zst"
row export 1 "export --format jsonl $RUN" zstd -d -f -c "$J.zst"
row show "$REPS" "show $RUN $SEQ" sqlite3 "$W/ev.db" "select line from ev where seq = $SEQ"
row cat "$REPS" "cat $RUN $FILE --at $SEQ" sqlite3 "$W/ev.db" "select line from ev where seq = $SEQ"
row diff "$REPS" "diff $RUN $((SEQ - 100)) $SEQ" sqlite3 "$W/ev.db" "select line from ev where seq = $SEQ"
if [ $HAVE_RG = 1 ]; then
	row search 1 "search $WORD" rg -c -i "$WORD" "$J"
fi
STORE=$T
row ls "$REPS" "ls" sqlite3 :memory: "select 1"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b > 0) printf "%.2fx", a/b; else print "-" }'; }
per() { awk -v a="$1" -v r="$2" 'BEGIN{ printf "%.1f ms", 1000*a/r }'; }
{
	echo "read_paths.sh: $EVENTS events ($(stat -L -c %s "$J") bytes of JSONL), seq $SEQ for point reads, $RUNS rounds, $REPS reps per short sample, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	echo "| row | ktraj CPU s | peer | peer CPU s | ratio | target |"
	echo "|---|---|---|---|---|---|"
	echo "| log --json (full scan) | ${K[log]} ($(awk -v n="$N" -v t="${K[log]}" 'BEGIN{printf "%.0f", (t > 0 ? n / t : 0)}') events/s) | zstd -d | ${P[log]} | $(ratio "${K[log]}" "${P[log]}") | <= 1.5x, >= 500k events/s |"
	echo "| export --format jsonl | ${K[export]} | zstd -d | ${P[export]} | $(ratio "${K[export]}" "${P[export]}") | <= 2x |"
	for c in show cat diff; do
		echo "| $c at seq $SEQ | $(per "${K[$c]}" "$REPS") | sqlite3 point query | $(per "${P[$c]}" "$REPS") | $(ratio "${K[$c]}" "${P[$c]}") | <= 1.5x |"
	done
	echo "| ls (tiny store, start-up) | $(per "${K[ls]}" "$REPS") | sqlite3 :memory: 'select 1' | $(per "${P[ls]}" "$REPS") | $(ratio "${K[ls]}" "${P[ls]}") | <= 1.5x |"
	if [ $HAVE_RG = 1 ]; then
		echo "| search $WORD | ${K[search]} | rg -c -i | ${P[search]} | $(ratio "${K[search]}" "${P[search]}") | <= 1x |"
	else
		echo "| search | - | rg -c -i | - | - | skipped: rg not installed (apt-get install ripgrep) |"
	fi
} | tee "$W/../read_paths.md"
