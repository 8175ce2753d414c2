#!/usr/bin/env bats
# A big input is read through a mapping of the file; another process that
# truncates the file while it is imported makes the next read of a page past
# the new end fault (SIGBUS).  `ktraj import` must say so in one line and
# exit 1, and the store must be as before: verify passes, no run is visible,
# and importing the file again (whole) completes it.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	BIG="$BATS_TEST_TMPDIR/big.jsonl"
	[ -e "$BIG" ] || python3 "$BATS_TEST_DIRNAME/../bench/gen_claude.py" --mb 24 "$BIG" >/dev/null
}

# start an import of a copy of $BIG at $1 (batches of $2 bytes) in the
# background, its pid in $pid, and return once it has mapped the file
import_mapped() {
	local f="$1" i
	cp "$BIG" "$f"
	KTRAJ_IMPORT_BATCH=$2 "$KTRAJ" import "$f" >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	# bounded: the import maps the file within its first moments
	for i in $(seq 1 1000); do
		grep -qF "$f" /proc/$pid/maps 2>/dev/null && break
		sleep 0.01
	done
	grep -qF "$f" /proc/$pid/maps
}

# import a copy of $BIG (batches of $1 bytes) and truncate the copy to 1000
# bytes as soon as the import has mapped it; the status and stderr of the
# import in $status and $stderr
import_truncated() {
	local f="$BATS_TEST_TMPDIR/shrinks.jsonl" pid
	import_mapped "$f" "$1"
	truncate -s 1000 "$f"
	status=0
	wait $pid || status=$?
	stderr=$(cat "$BATS_TEST_TMPDIR/err")
}

@test "a file truncated while it is imported: one line naming it, exit 1, the store intact; importing it whole again completes the run (three times)" {
	[ -d /proc/self ] || skip "no /proc"
	for batch in 256M 4M 1M; do
		import_truncated "$batch"
		echo "batch $batch: $status $stderr"
		[ "$status" -eq 1 ]
		[ "$stderr" = "ktraj: import: $BATS_TEST_TMPDIR/shrinks.jsonl: changed while it was read (truncated)" ]
		[ ! -s "$BATS_TEST_TMPDIR/out" ]
		run "$KTRAJ" verify
		[ "$status" -eq 0 ]
		[ -z "$("$KTRAJ" ls --json)" ]
	done
	cp "$BIG" "$BATS_TEST_TMPDIR/shrinks.jsonl"
	run "$KTRAJ" import "$BATS_TEST_TMPDIR/shrinks.jsonl"
	[ "$status" -eq 0 ]
	[ "$("$KTRAJ" ls --json | wc -l)" -eq 1 ]
	"$KTRAJ" verify
}

@test "a SIGBUS another process sends during an import kills it as by default (exit 135), not read as a truncated file; the store verifies" {
	[ -d /proc/self ] || skip "no /proc"
	local pid
	import_mapped "$BATS_TEST_TMPDIR/whole.jsonl" 32M
	kill -BUS "$pid"
	status=0
	wait $pid || status=$?
	echo "status $status: $(cat "$BATS_TEST_TMPDIR/err")"
	[ "$status" -eq 135 ]
	if grep -q "changed while it was read" "$BATS_TEST_TMPDIR/err"; then false; fi
	run "$KTRAJ" verify
	[ "$status" -eq 0 ]
	[ -z "$("$KTRAJ" ls --json)" ]
}
