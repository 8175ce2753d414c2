#!/bin/bash
# tests/bench/run.sh KTRAJ - the store benchmark (issue 2 targets).
#
# Generates a deterministic synthetic trajectory (gen.py, ~100k events of
# ktraj JSONL) and measures in one run:
#   - import MB/s and events/s: `ktraj import` (CLI, end to end; the
#     import the 0.35x target is about) and kt_bench (a plain caller of the
#     store's C API: each line parsed and its payload printed by cJSON, a
#     commit every 10,000 events, blobs hashed again by the store; it shows
#     what the store itself costs), against `zstd -3` on the same JSONL
#     bytes, all single-threaded; CPU seconds (user+sys) are the fair
#     measure on a shared machine;
#   - store file bytes against `zstd -3` and `zstd -19 --long=27` of the JSONL;
#   - point reads per second (kt_event_read) of uniformly random seqs over
#     the whole run: HEAD, BODY and BODY|HASH with the block cache at its
#     default size (hit rate reported), BODY with a cache that holds the
#     whole run (warm), and BODY cold (cache off: one block decompressed per
#     read);
#   - full-scan events per second (kt_event_scan): HEAD, BODY, BODY|HASH;
#     wall-clock, with the CPUs the script may use (a BODY scan decodes
#     blocks ahead on up to three helper threads: store.h
#     kt_store_set_scan_threads), and CPU time of all threads.
# zstd -3, the imports and the point reads run on one CPU (the first the
# script may use; taskset): the import target is "on one core".
# Prints a markdown block (also left in $BENCH_DIR/results.md) for RESULTS.md.
#
# On a shared machine one measurement can be off by a third, so `zstd -3`
# and the CLI import run RUNS times, alternating (each pair is one round,
# taken under the same load), and the scans RUNS times: the table gives the
# median and the range, and a target is met when the median meets it.
# Environment: BENCH_DIR (work dir, default $TMPDIR/ktraj-bench), EVENTS
# (default 100000), READS (default 1000000; the slow read modes use READS/50
# or READS/500), RUNS (default 5), SKIP_SLOW=1 skips zstd -19, KT_BENCH (a
# kt_bench binary built elsewhere, used instead of compiling one).
set -eu
KTRAJ=${1:?usage: run.sh path/to/ktraj}
KTRAJ=$(cd "$(dirname "$KTRAJ")" && pwd)/$(basename "$KTRAJ")
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
LIB=$(dirname "$KTRAJ")/libktraj.a
W=${BENCH_DIR:-${TMPDIR:-/tmp}/ktraj-bench}
EVENTS=${EVENTS:-100000}
READS=${READS:-1000000}
RUNS=${RUNS:-5}
mkdir -p "$W"

if [ -n "${KT_BENCH:-}" ]; then
	# built elsewhere (a machine without the libraries' headers)
	cp "$KT_BENCH" "$W/kt_bench"
else
	cc -std=c11 -D_GNU_SOURCE -O2 -I"$ROOT" $(pkg-config --cflags libcjson) \
		-o "$W/kt_bench" "$HERE/kt_bench.c" "$LIB" \
		$(pkg-config --libs lmdb libzstd libcjson libarchive nettle) -lm -lpthread
fi

J=$W/gen.jsonl
if [ ! -s "$J" ] || [ "$HERE/gen.py" -nt "$J" ] || [ ! -f "$W/gen.$EVENTS" ]; then
	rm -f "$W"/gen.*
	python3 "$HERE/gen.py" --events "$EVENTS" "$J"
	touch "$W/gen.$EVENTS"
fi
BYTES=$(stat -c %s "$J")
# the first CPU this script may use, for everything but the scans
ONE=$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')
one() { taskset -c "$ONE" "$@"; }

# cpu VAR CMD...: run CMD; VAR_wall and VAR_cpu (user+sys) from bash's time
cpu() {
	local v=$1; shift
	local TIMEFORMAT='%3R %3U %3S' out
	out=$( { time "$@" >/dev/null 2>"$W/err.txt"; } 2>&1 ) || { cat "$W/err.txt"; exit 1; }
	read -r r u s <<<"$out"
	eval "${v}_wall=$r; ${v}_cpu=$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.3f", u+s}')"
}

if [ "${SKIP_SLOW:-0}" != 1 ]; then
	cpu z19 one zstd -19 --long=27 -T1 -q -f "$J" -o "$W/gen.z19"
	Z19=$(stat -c %s "$W/gen.z19")
else
	Z19=0; z19_cpu=0; z19_wall=0
fi

# median VALUES...: the middle value (the mean of the two middle ones)
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
Z3S=(); CLIS=(); RATIOS=()
for ((i = 0; i < RUNS; i++)); do
	cpu z3 one zstd -3 -T1 -q -f "$J" -o "$W/gen.z3"
	rm -f "$W/cli.ktraj" "$W/cli.ktraj-lock"
	cpu cli one env KTRAJ_STORE="$W/cli.ktraj" "$KTRAJ" import "$J"
	Z3S+=("$z3_cpu"); CLIS+=("$cli_cpu")
	RATIOS+=("$(awk -v z="$z3_cpu" -v c="$cli_cpu" 'BEGIN{printf "%.3f", z/c}')")
done
Z3=$(stat -c %s "$W/gen.z3")
CLI=$(stat -c %s "$W/cli.ktraj")
z3_cpu=$(median "${Z3S[@]}"); cli_cpu=$(median "${CLIS[@]}")
RATIO=$(median "${RATIOS[@]}")
rm -f "$W/api.ktraj" "$W/api.ktraj-lock"
API_LINE=$(one "$W/kt_bench" import "$W/api.ktraj" "$J")
API=$(stat -c %s "$W/api.ktraj")
R50=$((READS / 50)); R500=$((READS / 500))
RH=$(one "$W/kt_bench" read "$W/cli.ktraj" "$READS" head)
RB=$(one "$W/kt_bench" read "$W/cli.ktraj" "$R50" body)
RBW=$(KT_BENCH_CACHE_MB=1024 one "$W/kt_bench" read "$W/cli.ktraj" "$READS" body)
RBC=$(one "$W/kt_bench" read "$W/cli.ktraj" "$R500" body cold)
RBH=$(KT_BENCH_CACHE_MB=1024 one "$W/kt_bench" read "$W/cli.ktraj" "$R500" bodyhash)
SH=$("$W/kt_bench" scan "$W/cli.ktraj" head)
SBS=(); SBC=(); SB1=()
for ((i = 0; i < RUNS; i++)); do
	SB=$("$W/kt_bench" scan "$W/cli.ktraj" body)
	SBS+=("$(sed -n 's/.*events_per_s_wall=\([0-9]*\).*/\1/p' <<<"$SB")")
	SBC+=("$(sed -n 's/.*events_per_s_cpu=\([0-9]*\).*/\1/p' <<<"$SB")")
	S1=$(one "$W/kt_bench" scan "$W/cli.ktraj" body)
	SB1+=("$(sed -n 's/.*events_per_s_wall=\([0-9]*\).*/\1/p' <<<"$S1")")
done
SB_MED=$(median "${SBS[@]}"); SBC_MED=$(median "${SBC[@]}")
SB1_MED=$(median "${SB1[@]}")
SBH=$("$W/kt_bench" scan "$W/cli.ktraj" bodyhash)
STATS=$(KTRAJ_STORE="$W/cli.ktraj" "$KTRAJ" stats | sed -n '/^store file/,$p')

kv() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$2"; }
f() { awk "BEGIN{printf \"$1\", $2}"; }
NEV=$(kv events "$API_LINE")
api_cpu=$(kv cpu_s "$API_LINE"); api_wall=$(kv wall_s "$API_LINE")
z3_mbs=$(f %.0f "$BYTES/$z3_cpu/1e6")
cli_mbs=$(f %.1f "$BYTES/$cli_cpu/1e6"); api_mbs=$(f %.1f "$BYTES/$api_cpu/1e6")

{
echo "### $(date -u +%Y-%m-%d) on $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs for this script (one for the imports and reads: CPU $ONE), load $(cut -d' ' -f1 /proc/loadavg)"
echo
echo "Input: gen.py --events $EVENTS: $NEV events, $(f %.1f "$BYTES/1e6") MB of ktraj JSONL."
echo
echo "| measure | value | target | met |"
echo "|---|---|---|---|"
echo "| zstd -3 -T1 compress speed | $z3_mbs MB/s (median cpu ${z3_cpu} s of ${Z3S[*]}) | | |"
echo "| \`ktraj import\` (CLI, end to end) | $cli_mbs MB/s, $(f %.0f "$NEV/$cli_cpu") events/s (median cpu ${cli_cpu} s of ${CLIS[*]}) | | |"
echo "| import speed / zstd -3 speed, per round (same load) | median $(f %.2f "$RATIO")x (rounds ${RATIOS[*]}) | >= 0.35x | $(f %s "($RATIO >= 0.35) ? \"yes\" : \"no\"") |"
echo "| store via C API (kt_bench import) | $api_mbs MB/s, $(f %.0f "$NEV/$api_cpu") events/s (cpu ${api_cpu} s, wall ${api_wall} s) = $(f %.2f "$api_mbs/$z3_mbs")x zstd -3 | | |"
echo "| store share of the C API import (inside kt_blob_put/kt_event_append/commit/close) | $(kv store_mb_per_s_cpu "$API_LINE") MB/s (cpu $(kv store_cpu_s "$API_LINE") s) = $(f %.2f "$(kv store_mb_per_s_cpu "$API_LINE")/$z3_mbs")x zstd -3 | | |"
echo "| store file (CLI import) | $(f %.1f "$CLI/1e6") MB = $(f %.2f "$CLI/$Z3")x the zstd -3 file | <= 1x | $(f %s "($CLI <= $Z3) ? \"yes\" : \"no\"") |"
echo "| store file (C API import) | $(f %.1f "$API/1e6") MB | | |"
echo "| zstd -3 file | $(f %.1f "$Z3/1e6") MB ($(f %.1f "$BYTES/$Z3")x) | | |"
[ "$Z19" != 0 ] && echo "| zstd -19 --long=27 file | $(f %.1f "$Z19/1e6") MB ($(f %.1f "$BYTES/$Z19")x; cpu ${z19_cpu} s) | | |"
met() { f %s "($1 >= 1000000) ? \"yes\" : \"no\""; }
rrow() { echo "| $1 | $(kv reads_per_s_cpu "$2")/s (cache hits $(kv cache_hit "$2"), n=$(kv n "$2")) | $3 | $4 |"; }
rrow "point reads BODY, uniform over the run, default 64 MiB block cache" "$RB" ">= 1000000/s" "$(met "$(kv reads_per_s_cpu "$RB")")"
rrow "point reads BODY, cache holding the whole run (warm)" "$RBW" ">= 1000000/s" "$(met "$(kv reads_per_s_cpu "$RBW")")"
rrow "point reads BODY, cold (cache off)" "$RBC" "" ""
rrow "point reads BODY+HASH (chain from the page checkpoint), warm cache" "$RBH" "" ""
rrow "point reads HEAD (header pages only)" "$RH" "" ""
echo "| full scan BODY (kt_event_scan), one pass per process, $(nproc) CPUs (wall clock) | median $SB_MED events/s (runs ${SBS[*]}), $(kv payload_mb_per_s "$SB") MB/s of payload in the last | >= 1000000/s | $(met "$SB_MED") |"
echo "| - the same per CPU second of all its threads | median $SBC_MED events/s (runs ${SBC[*]}) | | |"
echo "| - the same on one CPU (no helper threads) | median $SB1_MED events/s (runs ${SB1[*]}) | | |"
echo "| full scan BODY+HASH, $(nproc) CPUs | $(kv events_per_s_wall "$SBH") events/s | | |"
echo "| full scan HEAD | $(kv events_per_s_wall "$SH") events/s | | |"
echo
echo "\`ktraj stats\` of the CLI-imported store:"
echo
echo '```'
echo "$STATS"
echo '```'
} | tee "$W/results.md"
