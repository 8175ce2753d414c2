#!/usr/bin/env bats
# Two operators benchmarked in one command are two workloads, never one
# sweep (issue 15: different operators are never compared).  Fixture
# tests/data/import/bench_two_ops.jsonl (made up, Claude Code shape):
# three runs of bench_all.py printing softmax [4096, 4096] and layernorm
# [8192, 1024] (softmax 0.31 -> 0.15 -> 0.152 ms, layernorm 0.62 -> 0.63
# -> 0.30 ms), a table with a "kernel" column naming the same two
# operators at their own sizes, and a table whose "kernel" column names
# two variants (naive, tiled) at one size: candidates, as before.

bats_require_minimum_version 1.5.0

setup() {
	load lib/fixture_run
	fixture_setup bench_two_ops.jsonl
}

@test "bench: each operator of one output is its own workload, its shape the scenario" {
	run -0 bench_rows
	[ "${#lines[@]}" -eq 10 ]
	[[ "${lines[0]}" == *'"time_ms":0.31,'*'"workload":"softmax","scenario":"[4096, 4096]",'*'"series":"softmax | [4096, 4096] | time","sweep":null'* ]]
	[[ "${lines[1]}" == *'"time_ms":0.62,'*'"workload":"layernorm","scenario":"[8192, 1024]",'*'"sweep":null'* ]]
	[[ "${lines[6]}" == *'"workload":"softmax","scenario":"m=4096 / n=4096",'*'"candidate":null'* ]]
	[[ "${lines[7]}" == *'"workload":"layernorm","scenario":"m=8192 / n=1024",'*'"candidate":null'* ]]
	# but a kernel column naming variants at one size still gives candidates
	[[ "${lines[8]}" == *'"workload":"bench_variants.py","scenario":"n=4096",'*'"candidate":"naive"'* ]]
	[[ "${lines[9]}" == *'"candidate":"tiled"'* ]]
}

@test "blame: each operator gains x2.067 in its own series, no blended sweep" {
	run "$KTRAJ" blame speedup "$RUN"
	[ "$status" -eq 0 ]
	[[ "$output" != *"sweep"* ]]
	[[ "$output" == *"JUMP 1 [softmax | [4096, 4096] | time]  step 2 "*"gain x2.067"* ]]
	[[ "$output" == *"JUMP 1 [layernorm | [8192, 1024] | time]  step 3 "*"gain x2.067"* ]]
}
