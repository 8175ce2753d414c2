#!/usr/bin/env bats
# Streams (stdin, a FIFO, a device) stop before the first line over the
# line cap (--max-line, default 256 MiB): the lines before it are
# imported, the message names the line, the exit code is 1.  A stream
# past 16 MiB is read through a window (peak RSS checked below, against a
# bound; the figures are tests/bench/import_stream_rss.sh's).

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	note='{"kind":"note","payload":{"text":"x"}}'
}

@test "import /dev/zero stops at the line cap with a message, exit 1" {
	run --separate-stderr "$KTRAJ" import --max-line 1M /dev/zero
	[ "$status" -eq 1 ]
	[ "$stderr" = "ktraj: import: /dev/zero: line 1 is longer than 1048576 bytes (limit: --max-line): nothing imported" ]
}

@test "stdin: the lines before a line over the cap are imported" {
	run --separate-stderr bash -c "{ printf '%s\n%s\n' '$note' '$note'; head -c 300000 /dev/zero; printf '\n%s\n' '$note'; } | '$KTRAJ' import --max-line 100K -"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"-: line 3 is longer than 102400 bytes (limit: --max-line): stopped reading there; the 2 lines before it are imported"* ]]
	[ "$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["events"])')" -eq 2 ]
}

@test "a line at the cap is read whole; a FIFO is a stream too" {
	line=$(python3 -c 'import json; print(json.dumps({"kind":"note","payload":{"text":"y"*5000}}))')
	n=$(( ${#line} ))
	run --separate-stderr bash -c "printf '%s\n' '$line' | '$KTRAJ' import --max-line $n -"
	[ "$status" -eq 0 ]
	mkfifo "$BATS_TEST_TMPDIR/f"
	{ printf '%s\n' "$note"; head -c 5000 /dev/zero; } >"$BATS_TEST_TMPDIR/f" &
	run --separate-stderr "$KTRAJ" import --max-line 4K "$BATS_TEST_TMPDIR/f"
	wait
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"f: line 2 is longer than 4096 bytes"* ]]
}

@test "--max-line takes bytes or K/M/G/T (KiB...); anything else is a usage error naming the option" {
	for bad in 0 x 1.5G 4X -1 ''; do
		run "$KTRAJ" import --max-line "$bad" -
		[ "$status" -eq 2 ]
		[[ "$output" == "ktraj: import: --max-line: bad size '$bad': bytes, or with K, M, G or T (also KiB, MiB, GiB, TiB: powers of 1024), from 1 to 4194304T"* ]]
	done
	echo "$note" | "$KTRAJ" import --max-line 1G - >/dev/null
	echo "$note" | "$KTRAJ" import --max-line 1GiB - >/dev/null
	# --max-size reads sizes the same way
	run --separate-stderr bash -c "head -c 300000 /dev/zero | '$KTRAJ' import --max-size 100K -"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"input larger than 102400 bytes"* ]]
	run "$KTRAJ" import --max-size 1x -
	[ "$status" -eq 2 ]
	[[ "$output" == "ktraj: import: --max-size: bad size '1x'"* ]]
}

@test "a named FIFO is read once: what a short-lived writer wrote is imported, no hang" {
	mkfifo "$BATS_TEST_TMPDIR/ff"
	( sleep 1; printf '%s\n' '{"type":"session","harness":"h","id":"z"}' \
		'{"type":"message","message":{"role":"user","content":"hi"}}' >"$BATS_TEST_TMPDIR/ff" ) &
	run timeout 20 "$KTRAJ" import "$BATS_TEST_TMPDIR/ff"
	wait
	[ "$status" -eq 0 ]
	[[ "$output" == *" 1 events "*"sts"* ]]
}

@test "stdin of 200 MB of short lines is read through a window: peak RSS stays under 100 MiB" {
	# issue 20: stdin was held whole (300 MB of stdin peaked at 672 MB);
	# a stream past 16 MiB is now spooled to an unlinked temporary file
	# and read through the mapped-file window.  The blank lines between
	# the two notes are skipped by the importer, which must reach the end.
	export TMPDIR="$BATS_TEST_TMPDIR"
	run --separate-stderr python3 -c '
import resource, subprocess, sys
note = b"{\"kind\":\"note\",\"payload\":{\"text\":\"x\"}}\n"
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
p.stdin.write(note)
blank = b" " * 99 + b"\n"
for _ in range(200):
    p.stdin.write(blank * 10000)     # 1 MB a write
p.stdin.write(note)
p.stdin.close()
rc = p.wait(timeout=300)
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)' "$KTRAJ" import -
	[ "$status" -eq 0 ]
	read -r rc mib <<<"$output"
	[ "$rc" -eq 0 ]
	[ "$mib" -lt 100 ]
	[ "$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["events"])')" -eq 2 ]
	# the spool file was unlinked: nothing left behind
	[ -z "$(ls -A "$TMPDIR" | grep ktraj-stdin)" ]
}

@test "a spooled stream still stops at the line cap and keeps the lines before it" {
	export TMPDIR="$BATS_TEST_TMPDIR"
	# 20 MB of notes (past the 16 MiB held in memory), then a line over
	# --max-line 1M that starts in the spooled part
	python3 -c '
import sys
n = b"{\"kind\":\"note\",\"payload\":{\"text\":\"" + b"y" * 960 + b"\"}}\n"
sys.stdout.buffer.write(n * 20000 + b"z" * 3000000 + b"\n" + n)' >"$BATS_TEST_TMPDIR/in"
	run --separate-stderr bash -c "cat '$BATS_TEST_TMPDIR/in' | '$KTRAJ' import --max-line 1M -"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"-: line 20001 is longer than 1048576 bytes (limit: --max-line): stopped reading there; the 20000 lines before it are imported"* ]]
	[ "$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["events"])')" -eq 20000 ]
}
