#!/bin/bash
# tests/bench/import_rss_parts.sh KTRAJ SESSION.jsonl - where the peak RSS
# of `ktraj import` goes (issue 21's "import peak memory" row): runs one
# niced import into an empty store and samples, every 0.2 s,
# /proc/PID/status (VmHWM, VmRSS), /proc/PID/smaps_rollup (Anonymous) and
# /proc/PID/smaps (Rss of the store file's mapping, of the input's, and of
# the import's spill file, which is unlinked: "(deleted)").  Samples miss
# what lives shorter than 0.2 s, so VmHWM (the kernel's own peak) is the
# figure to quote; the parts say what it is made of.
# samples.txt in BENCH_DIR keeps them, one line each (KiB): VmHWM, VmRSS,
# Anonymous, store map, input map, spill map, store file size.
# Prints one line: the maxima (MiB, KiB / 1024), the last VmHWM, CPU s
# (user+sys from /usr/bin/time) and the exit status.  Extra environment
# (KTRAJ_IMPORT_BATCH, MALLOC_CONF, ...) passes through to the import.
# Environment: BENCH_DIR (default $TMPDIR/ktraj-bench-parts), SAMPLE_S
# (seconds between samples, default 0.2: 0.05 catches shorter peaks, at
# more of the sampler's CPU beside the import).
set -eu
KTRAJ=${1:?usage: import_rss_parts.sh path/to/ktraj session.jsonl}
J=${2:?usage: import_rss_parts.sh path/to/ktraj session.jsonl}
W=${BENCH_DIR:-${TMPDIR:-/tmp}/ktraj-bench-parts}
mkdir -p "$W"
rm -f "$W/s.ktraj" "$W/s.ktraj-lock" "$W/samples.txt"
KTRAJ_STORE="$W/s.ktraj" nice /usr/bin/time -f '%U %S %x' -o "$W/time.txt" \
	"$KTRAJ" --no-progress import "$J" >/dev/null &
TPID=$!
# the import is /usr/bin/time's child
PID=
while [ -z "$PID" ] && kill -0 "$TPID" 2>/dev/null; do
	PID=$(pgrep -P "$TPID" || true)
	sleep 0.05
done
while [ -n "$PID" ] && [ -r "/proc/$PID/smaps" ]; do
	awk -v st="$W/s.ktraj" -v inp="$(readlink -f "$J")" \
		-v size="$(stat -c %s "$W/s.ktraj" 2>/dev/null || echo 0)" '
		FILENAME ~ /status$/ && /^VmHWM/ {hwm = $2}
		FILENAME ~ /status$/ && /^VmRSS/ {rss = $2}
		FILENAME ~ /rollup$/ && /^Anonymous/ {anon = $2}
		FILENAME ~ /smaps$/ && /^[0-9a-f]+-[0-9a-f]+ / {
			cur = ""
			if ($6 == st) cur = "st"
			else if ($6 == inp) cur = "in"
			else if ($0 ~ /\(deleted\)$/) cur = "sp"
		}
		FILENAME ~ /smaps$/ && /^Rss:/ && cur != "" {r[cur] += $2}
		END {if (hwm) printf "%d %d %d %d %d %d %d\n", hwm, rss, anon,
			r["st"], r["in"], r["sp"], size / 1024}' \
		"/proc/$PID/status" "/proc/$PID/smaps_rollup" "/proc/$PID/smaps" \
		2>/dev/null >>"$W/samples.txt" || true
	sleep "${SAMPLE_S:-0.2}"
done
wait "$TPID" || true
awk -v t="$(cat "$W/time.txt")" '
	{for (i = 1; i <= 6; i++) if ($i > m[i]) m[i] = $i; last = $1; n++}
	END {split(t, c, " ")
		printf "samples %d  VmHWM %.0f  VmRSS max %.0f  Anonymous max %.0f  store map max %.1f  input map max %.1f  spill map max %.1f  (MiB)  CPU %.2f s  exit %s\n",
			n, last / 1024, m[2] / 1024, m[3] / 1024, m[4] / 1024,
			m[5] / 1024, m[6] / 1024, c[1] + c[2], c[3]}' "$W/samples.txt"
