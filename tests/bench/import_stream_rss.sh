#!/bin/bash
# tests/bench/import_stream_rss.sh KTRAJ [OLD_KTRAJ] - peak memory of
# `ktraj import` reading streams (issue 20): a device without newlines
# (/dev/zero, which only the line cap stops: --max-line, default 256 MiB)
# and stdin of MB megabytes of ktraj JSONL notes (past 16 MiB spooled to a
# temporary file and read through the mapped-file window).
# Peak RSS is /usr/bin/time -v's "Maximum resident set size".  OLD_KTRAJ,
# when given, is measured on the stdin case and on /dev/zero with
# --max-size ZERO_MB MiB (it has no line cap: it reads to --max-size).
# Prints a markdown table for tests/bench/RESULTS.md.
# Environment: BENCH_DIR (default $TMPDIR/ktraj-bench-stream), MB (default
# 100), ZERO_MB (default 1024).
set -eu
KTRAJ=${1:?usage: import_stream_rss.sh path/to/ktraj [old ktraj]}
OLD=${2:-}
W=${BENCH_DIR:-${TMPDIR:-/tmp}/ktraj-bench-stream}
MB=${MB:-100}
ZERO_MB=${ZERO_MB:-1024}
mkdir -p "$W"
python3 - "$W/notes.jsonl" "$MB" <<'PY'
import json, sys
out, mb = sys.argv[1], int(sys.argv[2])
line = json.dumps({"kind": "note", "payload": {"text": "n" * 900}}) + "\n"
with open(out, "w") as f:
    f.write(line * (mb * 1000000 // len(line)))
PY
# peak RSS (MiB) and exit status of: ktraj ARGS... < stdin
peak() {
	local in=$1; shift
	rm -f "$W/s.ktraj" "$W/s.ktraj-lock"
	set +e
	KTRAJ_STORE="$W/s.ktraj" /usr/bin/time -v "$@" <"$in" >/dev/null 2>"$W/time.txt"
	set -e
	awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$W/time.txt"
	printf ' | %s' "$(awk -F': ' '/Exit status/ {print $2}' "$W/time.txt")"
}
echo "| input | ktraj | peak RSS MiB | exit |"
echo "|---|---|---|---|"
echo "| /dev/zero, default line cap | new | $(peak /dev/null "$KTRAJ" import /dev/zero) |"
echo "| /dev/zero, --max-line 16M | new | $(peak /dev/null "$KTRAJ" import --max-line 16M /dev/zero) |"
[ -z "$OLD" ] || echo "| /dev/zero, --max-size ${ZERO_MB} MiB | old | $(peak /dev/null "$OLD" import --max-size $((ZERO_MB << 20)) /dev/zero) |"
echo "| stdin, $MB MB of JSONL | new | $(peak "$W/notes.jsonl" "$KTRAJ" import -) |"
[ -z "$OLD" ] || echo "| stdin, $MB MB of JSONL | old | $(peak "$W/notes.jsonl" "$OLD" import -) |"
