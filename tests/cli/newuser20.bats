#!/usr/bin/env bats
# Rough edges a new user hit (issue 20's review): each test is one of them.

bats_require_minimum_version 1.5.0

SAMPLE="$BATS_TEST_DIRNAME/../data/sample/softmax_session.jsonl"

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
}

@test "search '' or a blank TEXT: exit 2 with one line saying why, nothing printed" {
	"$KTRAJ" import "$SAMPLE" >/dev/null
	for t in '' ' ' $'\t \n'; do
		run --separate-stderr "$KTRAJ" search "$t"
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
		[[ "$stderr" == "ktraj: search: what should I search for? (an empty or blank TEXT would match every event)"* ]]
	done
	run --separate-stderr "$KTRAJ" search '' '' --json
	[ "$status" -eq 2 ]
	# an empty word next to a real one still searches
	run "$KTRAJ" search '' online
	[ "$status" -eq 0 ]
	[[ "$output" == *"online"* ]]
}
