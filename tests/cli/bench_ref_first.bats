#!/usr/bin/env bats
# A baseline's time printed before the kernel's (issue 15, free-text bench
# parsing).  Fixture tests/data/import/bench_ref_first.jsonl (made up,
# Claude Code shape):
#   1 "reference (torch): 1.25 ms" then "custom kernel: 625.0 us" -> ref 1.25, x2
#   2 "torch: 1250 us" then "custom kernel: 0.250 ms"            -> ref 1.25, x5
#   3 "baseline: 2.000 ms", a blank line, "kernel: 1.000 ms"     -> no ref
#     (another block: not paired)

bats_require_minimum_version 1.5.0

setup() {
	load lib/fixture_run
	fixture_setup bench_ref_first.jsonl
}

@test "bench: a reference time printed first is the next kernel time's ref" {
	run -0 bench_rows
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[0]}" == *'"time_ms":0.625,"speedup":2,"ref_time_ms":1.25,'* ]]
	[[ "${lines[1]}" == *'"time_ms":0.25,"speedup":5,"ref_time_ms":1.25,'* ]]
	# but not across a blank line: another block
	[[ "${lines[2]}" == *'"time_ms":1,"ref_time_ms":null,'* ]]
}

@test "blame: the speedup is the reference's, 2 -> 5" {
	run "$KTRAJ" blame speedup "$RUN"
	[ "$status" -eq 0 ]
	[[ "$output" == *"speedup 2.000 -> 5.000  gain x2.500"* ]]
}
