#!/usr/bin/env bats
# Two kernels measured at one shape in one output are candidates of that
# shape's series, never one point blended across them (issue 15).
# Fixture tests/data/import/bench_same_shape.jsonl (made up, Claude Code
# shape):
#   1 "kernel_a [4096,4096]: 1.000 ms" / "kernel_b [4096,4096]: 0.250 ms"
#   2 "naive 1024x1024: 2.000 ms" / "tiled 1024x1024: 0.500 ms"

bats_require_minimum_version 1.5.0

setup() {
	load lib/fixture_run
	fixture_setup bench_same_shape.jsonl
}

@test "bench: each name over a shared shape is a candidate, the shape the scenario" {
	run -0 bench_rows
	[ "${#lines[@]}" -eq 4 ]
	[[ "${lines[0]}" == *'"scenario":"[4096,4096]",'*'"candidate":"kernel_a",'* ]]
	[[ "${lines[1]}" == *'"scenario":"[4096,4096]",'*'"candidate":"kernel_b",'* ]]
	[[ "${lines[2]}" == *'"scenario":"1024x1024",'*'"candidate":"naive",'* ]]
	[[ "${lines[3]}" == *'"scenario":"1024x1024",'*'"candidate":"tiled",'* ]]
}

@test "bench: blame counts each candidate as its own measurement, no sweep" {
	run "$KTRAJ" blame speedup "$RUN"
	[ "$status" -eq 0 ]
	[[ "$output" == *"measurements: 2 from 2 bench results"* ]]
	[[ "$output" != *"sweeps"* ]]
}
