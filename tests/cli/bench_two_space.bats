#!/usr/bin/env bats
# Result lines whose parts are two spaces apart ("softmax: 0.100 ms
# (torch 0.300 ms)") are results, not a table header naming a time column
# with the next line as its row (found while testing issue 15's late
# checks: the two results vanished).  Fixture
# tests/data/import/bench_two_space.jsonl (made up, Claude Code shape).

bats_require_minimum_version 1.5.0

setup() {
	load lib/fixture_run
	fixture_setup bench_two_space.jsonl
}

@test "bench: two result lines with two-space gaps give two results with their references" {
	run -0 bench_rows
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" == *'"time_ms":0.1,"speedup":3,"ref_time_ms":0.3,'*'"scenario":"softmax"'* ]]
	[[ "${lines[1]}" == *'"time_ms":0.2,"speedup":2,"ref_time_ms":0.4,'*'"scenario":"layernorm"'* ]]
}
