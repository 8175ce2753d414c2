#!/usr/bin/env bats
# The KTRAJ_* environment settings (README "Store location"): a value that
# is not what the setting says is a usage error (exit 2) naming it, before
# the store is opened, so no store is created; a good value works.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	echo '{"kind":"note","payload":{"text":"hello"}}' >"$BATS_TEST_TMPDIR/in.jsonl"
}

# bad VAR=VALUE: `import` with it is exit 2, one line naming VAR and VALUE,
# and leaves no store
bad() {
	run --separate-stderr env "$1" "$KTRAJ" import "$BATS_TEST_TMPDIR/in.jsonl"
	[ "$status" -eq 2 ] || { echo "$1: status $status"; false; }
	[[ "$stderr" == "ktraj: import: ${1%%=*} must be "*", not '${1#*=}'" ]] || { echo "$1: $stderr"; false; }
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ ! -e "$KTRAJ_STORE" ] && [ ! -e "$KTRAJ_STORE-lock" ]
}

@test "KTRAJ_THREADS, KTRAJ_IMPORT_BATCH, KTRAJ_IMPORT_IDS, KTRAJ_IMPORT_WS: a bad value is a usage error that creates nothing" {
	bad KTRAJ_THREADS=abc
	bad KTRAJ_THREADS=0
	bad KTRAJ_IMPORT_BATCH=abc
	bad KTRAJ_IMPORT_BATCH=0
	bad KTRAJ_IMPORT_IDS=abc
	bad KTRAJ_IMPORT_IDS=0
	bad KTRAJ_IMPORT_WS=lots
	# a leading blank or sign is refused as a trailing blank is
	bad "KTRAJ_IMPORT_BATCH= 1M"
	bad KTRAJ_IMPORT_IDS=+2
}

@test "KTRAJ_THREADS is checked by every command that opens the store, as KTRAJ_SCAN_THREADS is" {
	"$KTRAJ" import "$BATS_TEST_TMPDIR/in.jsonl" >/dev/null
	run --separate-stderr env KTRAJ_THREADS=two "$KTRAJ" ls
	[ "$status" -eq 2 ]
	[[ "$stderr" == "ktraj: ls: KTRAJ_THREADS must be "*"not 'two'" ]]
	for v in " 2" +2; do
		run --separate-stderr env KTRAJ_THREADS="$v" "$KTRAJ" ls
		[ "$status" -eq 2 ] || { echo "'$v': $status"; false; }
	done
	run --separate-stderr env KTRAJ_SCAN_THREADS=x "$KTRAJ" ls
	[ "$status" -eq 2 ]
}

@test "good values import as before" {
	run env KTRAJ_THREADS=1 KTRAJ_IMPORT_BATCH=64K KTRAJ_IMPORT_IDS=1 KTRAJ_IMPORT_WS=1 "$KTRAJ" import "$BATS_TEST_TMPDIR/in.jsonl"
	[ "$status" -eq 0 ]
	run "$KTRAJ" log "$("$KTRAJ" ls | awk 'NR == 2 { print $1 }')"
	[[ "$output" == *hello* ]]
}
