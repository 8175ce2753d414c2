#!/bin/bash
# export_formats.sh [KTRAJ [OLD_KTRAJ]] - how each single-run export format
# scales with the run's length (issue 21 follow-up: `--format atif` was
# O(N^2), 200+ s of CPU at 100k events).  One gen.py run per size (default
# 3k/6k/12k/24k events), each format exported with KTRAJ (and OLD_KTRAJ
# when given, e.g. main's build, on the same store); prints CPU seconds per
# size and the ratio of the largest size to the smallest: about 8 for a
# linear exporter at 3k..24k, 64 for a quadratic one.  The outputs of both
# binaries are compared too (the fix must not change a byte).
#
#   SIZES    event counts (default "3000 6000 12000 24000")
#   FORMATS  (default "jsonl atif claude_code sts otlp ndjson")
set -eu
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
K=$(abs "${1:-build/ktraj}")
OLD=${2:+$(abs "$2")}
SIZES=${SIZES:-"3000 6000 12000 24000"}
FORMATS=${FORMATS:-"jsonl atif claude_code sts otlp ndjson"}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export KTRAJ_STORE="$T/s.ktraj"

for n in $SIZES; do
	python3 "$HERE/gen.py" --events "$n" "$T/g$n.jsonl" 2>/dev/null
	"$K" import "$T/g$n.jsonl" >/dev/null
	rm -f "$T/g$n.jsonl"
done

cpu() { # cpu KTRAJ FORMAT RUN OUT: user+sys CPU seconds of one export
	rm -rf "$4"
	if [ "$2" = ndjson ]; then
		/usr/bin/time -f '%U %S' -o "$T/time" "$1" export "$3" --format ndjson --partition "$4" >/dev/null
	else
		/usr/bin/time -f '%U %S' -o "$T/time" "$1" export "$3" --format "$2" -o "$4"
	fi
	awk '{printf "%.2f", $1 + $2}' "$T/time"
}

printf '%-12s %-4s' format bin
for n in $SIZES; do printf ' %8s' "$n"; done
printf '  last/first\n'
for f in $FORMATS; do
	for b in new ${OLD:+old}; do
		bin=$K; [ "$b" = old ] && bin=$OLD
		printf '%-12s %-4s' "$f" "$b"
		first= last=
		for n in $SIZES; do
			c=$(cpu "$bin" "$f" "g$n" "$T/$b.$f.$n")
			printf ' %8s' "$c"
			first=${first:-$c} last=$c
		done
		awk -v a="$first" -v b="$last" 'BEGIN{printf "  %.1fx\n", (a > 0) ? b / a : 0}'
	done
	if [ -n "$OLD" ] && [ "$f" != ndjson ]; then
		for n in $SIZES; do
			cmp -s "$T/new.$f.$n" "$T/old.$f.$n" || echo "$f $n events: OUTPUT DIFFERS"
		done
	fi
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
