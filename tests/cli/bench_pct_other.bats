#!/usr/bin/env bats
# A percentage that is no speedup against the reference (issue 15).
# Fixture tests/data/import/bench_pct_other.jsonl (made up, Claude Code
# shape): seven runs of bench.py, each printing the kernel's time and a
# percentage:
#   1 none                                       -> time only
#   2 "(20% faster than last run)"               -> an earlier run: time only
#   3 "cache hit rate 50% faster"                -> another metric: time only
#   4 "memory throughput 90% faster than cuBLAS" -> another metric: time only
#   5 "25% slower than before"                   -> an earlier run: time only
#   6 "25% faster"                               -> tied to nothing: time only
#   7 "speedup vs torch: 60% faster"             -> the reference: 1.6

bats_require_minimum_version 1.5.0

setup() {
	load lib/fixture_run
	fixture_setup bench_pct_other.jsonl
}

@test "bench: a percentage against an earlier run, another metric or nothing is no speedup" {
	run -0 bench_rows
	[ "${#lines[@]}" -eq 7 ]
	for i in 1 2 3 4 5; do
		[[ "${lines[$i]}" != *'"speedup"'* ]]
		[[ "${lines[$i]}" == *'"ref_time_ms":null,'* ]]
	done
	[[ "${lines[1]}" == *'"time_ms":0.8,"ref_time_ms":null,'* ]]
	[[ "${lines[5]}" == *'"time_ms":0.6,'* ]]
	[[ "$output" != *'"baseline":"cublas"'* ]]
}

@test "bench: a percentage against the reference beside the kernel's time is still its speedup" {
	run -0 bench_rows
	[[ "${lines[6]}" == *'"time_ms":0.5,"speedup":1.6,'*'"baseline":"torch"'* ]]
}

@test "bench: the times are one series and its x1.67 gain is analysed" {
	run "$KTRAJ" blame speedup "$RUN"
	[ "$status" -eq 0 ]
	[[ "$output" != *"without a speedup or reference time"* ]]
}
