#!/usr/bin/env bats
# `import --format F FILE` forced on a file that is not in F gives no run:
# the importer's warning, then exit 1 unless another path imported a run,
# as for a named file in no format (README "Importing").  A folder's files,
# and a damaged file of the forced format (tests/cli/import_truncated.bats),
# stay warnings (exit 0).  `--format map` without `--map` is a usage error.
# Fixture (ours): tests/data/sample/softmax_session.jsonl, a Claude Code
# session.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	S="$BATS_TEST_DIRNAME/../data/sample/softmax_session.jsonl"
}

@test "a Claude Code session forced as codex, atif, kernelbench or sts: its warning, nothing imported, exit 1" {
	for f in codex atif kernelbench sts; do
		run --separate-stderr "$KTRAJ" import --format "$f" "$S"
		[ "$status" -eq 1 ]
		[ -z "$output" ]
		[[ "$stderr" == "ktraj: import: $S"* ]]
		run "$KTRAJ" ls --json
		[ -z "$output" ]
	done
	run --separate-stderr "$KTRAJ" import --format codex "$S"
	[ "$stderr" = "ktraj: import: $S: no events for format codex" ]
	run --separate-stderr "$KTRAJ" import --format atif "$S"
	[[ "$stderr" == *": file skipped" ]]
	# the same from stdin
	run --separate-stderr "$KTRAJ" import --format codex - <"$S"
	[ "$status" -eq 1 ]
	[ "$stderr" = "ktraj: import: -: no events for format codex" ]
}

@test "a wrong --format fails only when no path imported a run; a folder's files stay warnings" {
	mkdir "$BATS_TEST_TMPDIR/d"
	cp "$S" "$BATS_TEST_TMPDIR/d/"
	run --separate-stderr "$KTRAJ" import --format codex "$BATS_TEST_TMPDIR/d"
	[ "$status" -eq 0 ]
	[ "$stderr" = "ktraj: import: $BATS_TEST_TMPDIR/d/softmax_session.jsonl: no events for format codex" ]
	# the right format imports and stays exit 0, re-imported too
	run --separate-stderr "$KTRAJ" import --format claude_code "$S"
	[ "$status" -eq 0 ]
	[[ "$output" == *" 41 added  claude_code "* ]]
	run --separate-stderr "$KTRAJ" import --format claude_code "$S"
	[ "$status" -eq 0 ]
	[[ "$output" == *"  0 added  claude_code "* ]]
}

@test "--format map without --map: usage error, exit 2, nothing read" {
	run --separate-stderr "$KTRAJ" import --format map "$S"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ "$stderr" == "ktraj: import: --format map needs --map MAP.json"* ]]
	[ "$(wc -l <<<"$stderr")" -eq 1 ]
	[ ! -e "$KTRAJ_STORE" ]
}
