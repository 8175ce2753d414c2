#!/bin/bash
# tests/bench/floor_parts.sh SESSION [DUMP] - the Claude Code import's
# floor measured part by part (issue 21; RESULTS.md "the Claude Code
# import's floor, measured part by part").
#
# Builds tests/bench/floor_parts.c (SHA-256 and zstd over what one import
# hashed and compressed, replayed from DUMP; see that file), one JSON build
# of it per C parser whose header is installed (a missing one is skipped
# and said so), and tests/bench/floor_simdjson.cc when simdjson.h is;
# runs each (CPU seconds of one thread, least of RUNS), the yardsticks
# `zstd -3 -T1` (CPU) and `zstd -3 -T2` (wall), and, when KTRAJ names a
# binary, its import of SESSION on one thread (CPU) and two (wall); then
# prints the floors of the two import rows:
#   one CPU:     SHA-256 + zstd + parse, against zstd -3's CPU / 0.35
#   two threads: max(dependent chain, (SHA-256 + zstd + parse) / 2), the
#                chain being the file hash (every event carries it in
#                prov.src), then the dictionary's training, then the
#                event hashes and blocks over two CPUs
#                against zstd -3 -T2's wall / 0.5
# with the fastest C parser and with simdjson.  SHA-256 counts every
# purpose but the code-state hash (kt_ws_code_hash: importer logic, a name
# in DUMP/sha.sites containing "code_state"), which is printed apart.
# DUMP ("-" or absent: none) is what the throwaway instrumented build of
# RESULTS.md wrote (sha.bin, sha.sites, zf.idx, zf.src, zf.ref,
# samples.len); without it only the parsers and the yardsticks run.
# To make DUMP: in a scratch checkout of commit 36f6667 (the patch is for
# that tree; the section measured 314dbf9, the same code for this purpose)
# (the patch touches base/base.c, store/store_codec.c, store/store_blob.c
# and adds base/kti.c), `git apply tests/bench/floor_dump.patch && make`,
# then `KTI_DIR=DUMP KTRAJ_THREADS=1 build/ktraj --store S import SESSION`:
# at exit it prints one "KTI sha INDEX OFFSET ..." line a hashing call
# site to stderr; name each in DUMP/sha.sites as "INDEX NAME" (the caller
# `addr2line -f -e build/ktraj OFFSET` gives; a name holding "code_state"
# is the code-state hash, "source_file" the file's, "event_" the events').
# Environment: RUNS (default 5), KTRAJ, BENCH_DIR (default
# $TMPDIR/ktraj-floor).
set -eu
J=${1:?usage: floor_parts.sh SESSION [DUMP]}
DUMP=${2:--}
RUNS=${RUNS:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
W=${BENCH_DIR:-${TMPDIR:-/tmp}/ktraj-floor}
mkdir -p "$W"
SRC=$HERE/floor_parts.c

has() { printf '#include <%s>\n' "$1" | ${2:-cc} -x "${3:-c}" -E - >/dev/null 2>&1; }

cc -O2 -o "$W/floor_parts" "$SRC" -lnettle -lzstd
PARSERS=()
for p in "1 cjson cjson/cJSON.h -lcjson" "2 json-c json-c/json.h -ljson-c" \
	 "3 jansson jansson.h -ljansson" "4 yajl yajl/yajl_tree.h -lyajl" \
	 "5 json-parser json-parser/json.h -ljsonparser" "6 jsmn jsmn.h"; do
	set -- $p
	if has "$3"; then
		cc -O2 -DFLOOR_JSON="$1" -o "$W/floor_$2" "$SRC" ${4:-} \
			-lnettle -lzstd -lm
		PARSERS+=("$2")
	else
		echo "# $2: no <$3>, skipped" >&2
	fi
done
SIMD=
if has simdjson.h c++ c++; then
	c++ -O2 -o "$W/floor_simdjson" "$HERE/floor_simdjson.cc" -lsimdjson
	SIMD=1
else
	echo "# simdjson: no <simdjson.h>, skipped" >&2
fi

# least VAR CMD...: least user+sys (VAR_cpu) and least wall (VAR_wall);
# $PRE, when set, runs before each (not timed)
least() {
	local v=$1 c w t0 t1; shift
	eval "${v}_cpu=999 ${v}_wall=999"
	for _ in $(seq "$RUNS"); do
		eval "${PRE:-:}"
		t0=$(date +%s.%N)
		/usr/bin/time -f '%U %S' -o "$W/time.txt" "$@" >/dev/null 2>&1
		t1=$(date +%s.%N)
		c=$(tail -1 "$W/time.txt" | awk '{printf "%.3f", $1 + $2}')
		w=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b - a}')
		eval "awk -v a=$c -v b=\$${v}_cpu 'BEGIN{exit !(a < b)}'" &&
			eval "${v}_cpu=$c"
		eval "awk -v a=$w -v b=\$${v}_wall 'BEGIN{exit !(a < b)}'" &&
			eval "${v}_wall=$w"
	done
	return 0
}

echo "# $(date -u '+%F %H:%M UTC'), $(nproc) CPUs," \
	"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')," \
	"load $(cut -d' ' -f1-3 /proc/loadavg)"
"$W/floor_parts" "$DUMP" "$J" "$RUNS" | tee "$W/parts.txt"
for p in "${PARSERS[@]}"; do
	"$W/floor_$p" - "$J" "$RUNS" | sed -n '3,$p'
done | tee -a "$W/parts.txt"
[ -z "$SIMD" ] || "$W/floor_simdjson" "$J" "$RUNS" | tee -a "$W/parts.txt"

least z1 zstd -3 -T1 -q -f -o "$W/s.zst" "$J"
least z2 zstd -3 -T2 -q -f -o "$W/s.zst" "$J"
rm -f "$W/s.zst"
echo "yard   zstd -3 -T1: $z1_cpu s CPU; zstd -3 -T2: $z2_wall s wall"
if [ -n "${KTRAJ:-}" ]; then
	export KTRAJ_STORE=$W/s.ktraj
	PRE='rm -f "$W/s.ktraj" "$W/s.ktraj-lock"'
	least k1 env KTRAJ_THREADS=1 "$KTRAJ" --no-progress import "$J"
	least k2 "$KTRAJ" --no-progress import "$J"
	PRE=
	rm -f "$W/s.ktraj" "$W/s.ktraj-lock"
	echo "yard   ktraj import, one thread: $k1_cpu s CPU;" \
		"two threads allowed: $k2_wall s wall ($k2_cpu s CPU)"
fi
echo "load   $(cut -d' ' -f1-3 /proc/loadavg)"

# the floors, from the rows above
awk -v z1="$z1_cpu" -v z2="$z2_wall" '
$1 == "sha" && $2 != "TOTAL" {
	if ($2 ~ /code_state/) code += $5; else sha += $5
	if ($2 ~ /source_file/) fh = $5
	if ($2 ~ /^event_/) ev += $5 }
$1 == "zstd" && $2 != "TOTAL" && $2 != "#" { zs += $5 }
$1 == "zstd" && $2 ~ /training/ { tr = $5 }
$1 == "zstd" && $2 ~ /^event_blocks/ { ev += $5 }
$1 == "json" && $2 ~ /^simdjson/ { simd = $5 }
$1 == "json" && $2 != "jsmn(tokens_only)" && $2 !~ /^simdjson|not_a_parser/ && $2 != "#" {
	if (c == "" || $5 < c) { c = $5; cn = $2 } }
END {
	printf "\nfloor  SHA-256 (required) %.3f s, code-state hash %.3f s, zstd %.3f s\n", sha, code, zs
	# all that is made of event bytes waits for the file hash (prov.src):
	# the training is one call, the event hashes and blocks split
	seq = fh + tr + ev / 2
	printf "floor  dependent chain %.3f s (file hash, dictionary training, event hashes and blocks on two CPUs)\n", seq
	printf "floor  one CPU budget %.3f s CPU (zstd -3 %.3f / 0.35); two threads budget %.3f s wall (zstd -3 -T2 %.3f / 0.5)\n", z1 / 0.35, z1, z2 / 0.5, z2
	n = split(cn " " c " simdjson " simd, a, " ")
	for (i = 1; i < n; i += 2) {
		if (a[i + 1] == "") continue
		t = sha + zs + a[i + 1]; h = t / 2; if (seq > h) h = seq
		printf "floor  with %s (%.3f s): one CPU %.3f s = %.2fx zstd -3 at best (target 0.35x, %s); two threads %.3f s wall = %.2fx zstd -3 -T2 at best (target 0.5x, %s)\n",
			a[i], a[i + 1], t, z1 / t, (z1 / t >= 0.35 ? "reachable in principle" : "out of reach"),
			h, z2 / h, (z2 / h >= 0.5 ? "reachable in principle" : "out of reach")
	}
}' "$W/parts.txt"
