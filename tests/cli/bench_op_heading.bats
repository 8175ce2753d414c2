#!/usr/bin/env bats
# An operator over its shape on its own line labels the time lines under
# it, up to a blank line (issue 15).  Fixture
# tests/data/import/bench_op_heading.jsonl (made up, Claude Code shape):
#   1 "softmax [4096,4096]" / "kernel: 1.000 ms"
#   2 "softmax [4096,4096]" / "kernel: 0.500 ms"
#   3 "layernorm [8192,1024]" / "kernel: 0.300 ms"
#   4 "matmul M=64 N=128" / "time: 2.000 ms"
#   5 "rmsnorm [64,64]" / "kernel: 0.100 ms" / "" / "kernel: 0.250 ms"

bats_require_minimum_version 1.5.0

setup() {
	load lib/fixture_run
	fixture_setup bench_op_heading.jsonl
}

@test "bench: a name-over-shape line is the scenario of the times under it" {
	run -0 bench_rows
	[ "${#lines[@]}" -eq 6 ]
	[[ "${lines[0]}" == *'"time_ms":1,'*'"scenario":"softmax [4096,4096]",'* ]]
	[[ "${lines[1]}" == *'"time_ms":0.5,'*'"scenario":"softmax [4096,4096]",'* ]]
	[[ "${lines[2]}" == *'"time_ms":0.3,'*'"scenario":"layernorm [8192,1024]",'* ]]
	[[ "${lines[3]}" == *'"time_ms":2,'*'"scenario":"matmul M=64 N=128",'* ]]
	[[ "${lines[4]}" == *'"time_ms":0.1,'*'"scenario":"rmsnorm [64,64]",'* ]]
}

@test "bench: a blank line ends the operator heading" {
	run -0 bench_rows
	[[ "${lines[5]}" == *'"time_ms":0.25,'* ]]
	[[ "${lines[5]}" != *'rmsnorm'* ]]
}

@test "bench: layernorm is never compared with softmax" {
	run -0 bench_rows
	[[ "${lines[0]}" == *'"series":"bench.py | softmax [4096,4096] | time"'* ]]
	[[ "${lines[2]}" == *'"series":"bench.py | layernorm [8192,1024] | time"'* ]]
	run "$KTRAJ" blame speedup "$RUN"
	[ "$status" -eq 0 ]
	[[ "$output" == *"series bench.py | softmax [4096,4096] | time:"* ]]
	[[ "$output" == *"measurements: 2 from 2 bench results"* ]]
}
