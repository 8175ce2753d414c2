#!/usr/bin/env bats
# A table whose columns are candidates and the baseline, each cell a
# measure with its unit and no column naming the measure (issue 15).
# Fixture tests/data/import/bench_col_table.jsonl (made up, Claude Code
# shape):
#   1 "| shape | triton | torch |" over GB/s cells -> one unparsed result
#   2 "| size | time (ms) |" over 0.500         -> read (0.5 ms)

bats_require_minimum_version 1.5.0

setup() {
	load lib/fixture_run
	fixture_setup bench_col_table.jsonl
}

@test "bench: a candidate-per-column throughput table is one unparsed result, never a result per cell" {
	run -0 bench_rows
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" == *'"status":"unparsed"'* ]]
	[[ "$output" != *'"scenario":"|'* ]]
	seq=$(row_seq "${lines[0]}")
	run "$KTRAJ" show "$RUN" "$seq"
	[ "$status" -eq 0 ]
	[[ "$output" == *"reason: a table with one measure per column"* ]]
	[[ "$output" != *"gbps: 10.1"* ]]
}

@test "bench: a table whose header names the measure is still read" {
	run -0 bench_rows
	[[ "${lines[1]}" == *'"time_ms":0.5,'* ]]
}
