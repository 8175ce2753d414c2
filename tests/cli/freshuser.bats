#!/usr/bin/env bats
# Defects a fresh-user test found: each test is one of them.
# Fixtures: tests/data/import/claude/s2x.jsonl (ours) and files made here.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	S2X="$BATS_TEST_DIRNAME/../data/import/claude/s2x.jsonl"
}

@test "import --format F of a file F cannot read: no empty run, one warning, exit 0" {
	run --separate-stderr "$KTRAJ" import --format codex "$S2X"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	grep -qx "ktraj: import: $S2X: no events for format codex" <<<"$stderr"
	run "$KTRAJ" ls --json
	[ "$status" -eq 0 ]
	[[ "$output" != *'"codex"'* ]]
	# the file still imports with its own format; importing it again adds
	# nothing and warns nothing (the run is there)
	run --separate-stderr "$KTRAJ" import "$S2X"
	[ "$status" -eq 0 ]
	[[ "$output" == *"claude_code"* ]]
	run --separate-stderr "$KTRAJ" import "$S2X"
	[ "$status" -eq 0 ]
	[[ "$output" == *" 0 added"* ]]
	[ -z "$stderr" ]
	run "$KTRAJ" verify
	[ "$status" -eq 0 ]
}
