#!/usr/bin/env bats
# A results table whose first column names the variant measured
# (`| variant | time (ms) | correct |`, issue 15 rev15 finding 3): each
# row is a candidate of ONE series, not a scenario, so a new best variant
# in a later run is a new best, and the one-row first table is in the
# same series.  Fixture tests/data/import/md_table_variants.jsonl (made
# up, Claude Code shape): three runs of bench.py after writes of
# kernel.py; run 2 adds v2_vec4 (0.30 ms, NO) and v3_welford (1.15 ms),
# run 3 adds v4_vec4_fixed (0.62 ms, yes): x1.855 over 1.15.

bats_require_minimum_version 1.5.0

setup() {
	load lib/fixture_run
	fixture_setup md_table_variants.jsonl
}

@test "bench: the variant column is the candidate, no scenario" {
	run "$KTRAJ" log "$RUN" --kind bench --json
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 8 ]
	[[ "${lines[0]}" == *'"scenario":null,'*'"candidate":"v1_naive"'* ]]
	[[ "${lines[7]}" == *'"time_ms":0.62,'*'"scenario":null,'*'"candidate":"v4_vec4_fixed"'* ]]
}

@test "blame: one series, the fixed variant is the new best (x1.855), the wrong fast one is no jump" {
	run "$KTRAJ" blame speedup "$RUN"
	[ "$status" -eq 0 ]
	[[ "$output" == *"series: bench.py | time"$'\n'* ]]
	[[ "$output" != *"v1_naive"* ]]
	[[ "$output" != *"sweep"* ]]
	[[ "$output" == *"2 excluded: 2 incorrect"* ]]
	[[ "$output" == *"JUMP 1  step 6 (seq 24) over the best so far, step 5 (seq 23)"*"gain x1.855"* ]]
	[[ "$output" != *"JUMP 2"* ]]
}
