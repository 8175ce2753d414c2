#!/usr/bin/env bats
# A speedup printed as a percentage (issue 15, free-text bench parsing).
# Fixture tests/data/import/bench_percent.jsonl (made up, Claude Code
# shape): five runs of bench.py printing
#   1 "triton: 0.400 ms | torch: 1.000 ms | speedup: +150%"   -> 2.5 (times)
#   2 "triton: 0.500 ms" / "Speedup: 2.00x (100% faster)"      -> 2 (one result)
#   3 "kernel is 150.0% faster than torch (37.5% less time)"   -> 1.6 (time-based)
#   4 "Speedup vs torch: 100.0%" alone                         -> unparsed
#   5 "kernel: 1.000 ms" / "speedup vs torch: 25% slower"      -> 0.8

bats_require_minimum_version 1.5.0

setup() {
	load lib/fixture_run
	fixture_setup bench_percent.jsonl
}

@test "bench: +150% beside both times is the times' ratio 2.5, never 150" {
	run -0 bench_rows
	[[ "${lines[0]}" == *'"time_ms":0.4,"speedup":2.5,"ref_time_ms":1,'* ]]
	[[ "$output" != *'"speedup":150'* ]]
	[[ "$output" != *'"speedup":100'* ]]
}

@test "bench: a percentage restating a factor on its line is no second result" {
	run -0 bench_rows
	[[ "${lines[1]}" == *'"time_ms":0.5,"speedup":2,'* ]]
	[ "${#lines[@]}" -eq 5 ]
}

@test "bench: '150% faster (37.5% less time)' reads the time-based 1.6x vs torch" {
	run -0 bench_rows
	[[ "${lines[2]}" == *'"time_ms":null,"speedup":1.6,'*'"baseline":"torch"'* ]]
}

@test "bench: an unsigned 'Speedup vs torch: 100.0%' with no time is unparsed, with its reason" {
	run -0 bench_rows
	[[ "${lines[3]}" == *'"status":"unparsed"'* ]]
	seq=$(row_seq "${lines[3]}")
	run "$KTRAJ" show "$RUN" "$seq"
	[ "$status" -eq 0 ]
	[[ "$output" == *"reason: a speedup printed as a percentage without a sign"* ]]
}

@test "bench: '25% slower' is 1/1.25 = 0.8, not 1/25" {
	run -0 bench_rows
	[[ "${lines[4]}" == *'"time_ms":1,"speedup":0.8,'* ]]
}
