#!/usr/bin/env bats
# A negative time or speedup is no measurement (issue 15).  Fixture
# tests/data/import/bench_negative.jsonl (made up, Claude Code shape):
#   1 "softmax [4096,4096]: 2.000 ms"      -> 2 ms
#   2 "softmax [4096,4096]: -1.000 ms"     -> unparsed, with its reason
#   3 "softmax [4096,4096]: speedup -2.0x" -> unparsed, with its reason

bats_require_minimum_version 1.5.0

setup() {
	load lib/fixture_run
	fixture_setup bench_negative.jsonl
}

@test "bench: a negative time or speedup never becomes a bench value without its sign" {
	run -0 bench_rows
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[0]}" == *'"time_ms":2,'* ]]
	[[ "${lines[1]}" == *'"time_ms":null,'* ]]
	[[ "${lines[2]}" == *'"time_ms":null,'* ]]
	[[ "$output" != *'"speedup":2'* ]]
	[[ "${lines[1]}" == *'"status":"unparsed"'* ]]
	[[ "${lines[2]}" == *'"status":"unparsed"'* ]]
}

@test "bench: the unparsed negative result says why" {
	run -0 bench_rows
	seq=$(row_seq "${lines[1]}")
	run "$KTRAJ" show "$RUN" "$seq"
	[ "$status" -eq 0 ]
	[[ "$output" == *"reason: a negative time or speedup"* ]]
}
