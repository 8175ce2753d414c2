#!/usr/bin/env bats
# Streams (stdin, a FIFO, a device) stop before the first line over the
# line cap (--max-line, default 256 MiB): the lines before it are
# imported, the message names the line, the exit code is 1.  Peak memory
# is measured by tests/bench/import_stream_rss.sh, not here.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	note='{"kind":"note","payload":{"text":"x"}}'
}

@test "import /dev/zero stops at the line cap with a message, exit 1" {
	run --separate-stderr "$KTRAJ" import --max-line 1M /dev/zero
	[ "$status" -eq 1 ]
	[[ "$stderr" == "ktraj: import: /dev/zero: line 1 is longer than 1048576 bytes (limit: --max-line): stopped reading there; the 0 lines before it are imported"* ]]
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

@test "--max-line takes bytes or K/M/G; anything else is a usage error" {
	for bad in 0 x 1T -1 ''; do
		run "$KTRAJ" import --max-line "$bad" -
		[ "$status" -eq 2 ]
		[[ "$output" == "ktraj: import: --max-line needs a size in bytes (or 64K, 256M, 1G), at least 1"* ]]
	done
	echo "$note" | "$KTRAJ" import --max-line 1G - >/dev/null
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
