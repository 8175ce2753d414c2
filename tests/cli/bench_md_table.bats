#!/usr/bin/env bats
# A markdown pipe table of results in a tool output (issue 15): each row
# is a bench with its correctness (yes/NO, a check mark or cross,
# PASS/FAIL, True/False); a fast-but-wrong row is never a new best or a
# jump; the same table written by the agent in a message measures
# nothing. Fixture tests/data/import/md_table_correct.jsonl (made up,
# Claude Code shape): four runs of bench.py with an edit between each,
# the middle two fast but wrong.

bats_require_minimum_version 1.5.0

setup() {
	load lib/fixture_run
	fixture_setup md_table_correct.jsonl
}

@test "bench: each table row of a tool output is a bench with its correctness" {
	run -0 bench_rows
	[ "${#lines[@]}" -eq 8 ]
	i=0
	for w in "true,0.8,4096" "true,1.6,8192" "false,0.2,4096" "false,0.4,8192" \
		 "false,0.1,4096" "false,0.2,8192" "true,0.4,4096" "true,0.8,8192"; do
		IFS=, read -r c t s <<<"$w"
		[[ "${lines[$i]}" == *"\"correct\":$c,\"time_ms\":$t,"*"\"scenario\":\"rmsnorm / shape=$s\""* ]]
		i=$((i + 1))
	done
}

@test "bench: the table in an assistant message gives no bench" {
	run -0 bench_rows
	[[ "$output" != *'"time_ms":0.01,'* ]]
	[[ "$output" != *'"time_ms":0.02,'* ]]
	run "$KTRAJ" log "$RUN" --kind message
	[[ "$output" == *"| rmsnorm | 4096 | 0.01 | yes |"* ]]
}

@test "blame: fast-but-wrong rows are excluded, the correct 2x run is the one jump" {
	run "$KTRAJ" blame speedup "$RUN"
	[ "$status" -eq 0 ]
	[[ "$output" == *"measurements: 2 sweeps from 8 bench results: 4 correct, 0 not checked; 4 excluded: 4 incorrect"* ]]
	[[ "$output" == *"1 new best, "*"; 1 jump"* ]]
	[[ "$output" == *"JUMP 1  step 2 (seq 26) over the best so far, step 1 (seq 5)  speedup 1.000 -> 2.000"* ]]
	[[ "$output" != *"JUMP 2"* ]]
}
