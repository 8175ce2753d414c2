#!/bin/bash
# tests/bench/jsonstrict.sh KTRAJ - CPU cost of the RFC 8259 check
# (import/jsonstrict.c) on the Claude Code bench session (the one
# import_claude.sh generates), to set against that import's CPU seconds.
# The difference is too small (~1 %) to see in end-to-end timings on a
# shared machine, so the check is timed alone (jsonstrict_bench.c).
# Environment: BENCH_DIR (default $TMPDIR/ktraj-bench-claude), MB (100),
# REPS (20).
set -eu
KTRAJ=${1:?usage: jsonstrict.sh path/to/ktraj}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
LIB=$(cd "$(dirname "$KTRAJ")" && pwd)/libktraj.a
W=${BENCH_DIR:-${TMPDIR:-/tmp}/ktraj-bench-claude}
MB=${MB:-100}
mkdir -p "$W"
J=$W/session.jsonl
if [ ! -s "$J" ] || [ ! -f "$W/gen.$MB" ]; then
	rm -f "$W"/gen.*
	python3 "$HERE/gen_claude.py" --mb "$MB" "$J"
	touch "$W/gen.$MB"
fi
cc -std=c11 -D_GNU_SOURCE -O2 -I"$ROOT" $(pkg-config --cflags libcjson) \
	-o "$W/jsonstrict_bench" "$HERE/jsonstrict_bench.c" "$LIB" \
	$(pkg-config --libs lmdb libzstd libcjson libarchive nettle) -lm -lpthread
"$W/jsonstrict_bench" "$J" "${REPS:-20}"
