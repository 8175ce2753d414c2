#!/usr/bin/env bats
# A test runner's verdict on a named test is no verdict on the kernel's
# results (issue 15).  Fixture tests/data/import/bench_test_id.jsonl (made
# up, Claude Code shape):
#   1 "softmax: 1.000 ms"                                      -> unchecked
#   2 + "FAILED tests/test_io.py::test_load - FileNotFoundError" -> unchecked
#   3 + "tests/test_io.py::test_save PASSED"                   -> unchecked
#   4 + "FAILED: outputs do not match" (names no subject)      -> incorrect

bats_require_minimum_version 1.5.0

setup() {
	load lib/fixture_run
	fixture_setup bench_test_id.jsonl
}

@test "bench: a failed or passed pytest test id leaves the kernel's correctness unknown" {
	run -0 bench_rows
	[ "${#lines[@]}" -eq 4 ]
	[[ "${lines[1]}" == *'"correct":null,"time_ms":0.4,'* ]]
	[[ "${lines[2]}" == *'"correct":null,"time_ms":0.3,'* ]]
}

@test "bench: a failure naming no subject still marks the result incorrect" {
	run -0 bench_rows
	[[ "${lines[3]}" == *'"correct":false,"time_ms":0.25,'* ]]
}
