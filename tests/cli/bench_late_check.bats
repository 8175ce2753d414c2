#!/usr/bin/env bats
# A correctness check printed after the timing (issue 15, free-text bench
# parsing).  Fixture tests/data/import/bench_late_check.jsonl (made up,
# Claude Code shape):
#   1 rmsnorm 0.8 ms, "Checking correctness...", "PASSED"          -> true
#   2 rmsnorm 0.2 ms, "Checking correctness...", "FAILED: outputs do
#     not match"                                                   -> false
#   3 softmax and layernorm, then a check naming layernorm only:
#     "layernorm: mismatch"                     -> softmax null, layernorm false
#   4 softmax 0.12 ms "check: PASS", then "FAILED: outputs do not match"
#     naming none                                                  -> false

bats_require_minimum_version 1.5.0

setup() {
	load lib/fixture_run
	fixture_setup bench_late_check.jsonl
}

@test "bench: 'Checking correctness...' is no verdict; the FAILED after the timing is" {
	run -0 bench_rows
	[ "${#lines[@]}" -eq 5 ]
	[[ "${lines[0]}" == *'"correct":true,"time_ms":0.8,'* ]]
	[[ "${lines[1]}" == *'"correct":false,"time_ms":0.2,'* ]]
}

@test "bench: a late mismatch naming one kernel marks that kernel only" {
	run -0 bench_rows
	[[ "${lines[2]}" == *'"correct":null,"time_ms":0.1,'*'"scenario":"softmax"'* ]]
	[[ "${lines[3]}" == *'"correct":false,"time_ms":0.2,'*'"scenario":"layernorm"'* ]]
}

@test "bench: a late failure naming none wins over the result's own PASS" {
	run -0 bench_rows
	[[ "${lines[4]}" == *'"correct":false,"time_ms":0.12,'* ]]
}

@test "blame: the wrong 4x rmsnorm is excluded, no jump to it" {
	run "$KTRAJ" blame speedup "$RUN"
	[ "$status" -eq 0 ]
	[[ "$output" != *"speedup 1.000 -> 4.000"* ]]
}
