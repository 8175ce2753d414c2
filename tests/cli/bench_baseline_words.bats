#!/usr/bin/env bats
# A tool output's label names a baseline only as a whole word (issue 15):
# the candidate's cpu_offload_rmsnorm, rmsnorm_cpu, torchvision_resize,
# eager_fallback and my_cublas_wrapper timings are bench results, and an
# output of only baseline timings (eager, torch, PyTorch reference,
# cuBLAS, baseline time) is one unparsed bench that the analyzers count.
# Fixture tests/data/import/baseline_words.jsonl (made up, Claude Code
# shape).

bats_require_minimum_version 1.5.0

setup() {
	load lib/fixture_run
	fixture_setup baseline_words.jsonl
}

@test "bench: a baseline word inside the candidate's identifier leaves its time the candidate's" {
	run -0 bench_rows
	[ "${#lines[@]}" -eq 6 ]
	i=0
	for w in "2,*cpu_offload_rmsnorm" "2,*rmsnorm_cpu" "1.2,*torchvision_resize" \
		 "0.9,*eager_fallback" "0.31,*my_cublas_wrapper"; do
		[[ "${lines[$i]}" == *"\"time_ms\":${w%%,*},"*"\"scenario\":\"${w#*\*}\""* ]]
		[[ "${lines[$i]}" == *'"ref_time_ms":null'* ]]
		i=$((i + 1))
	done
}

@test "bench: an output of only baseline timings is one unparsed result, counted by blame" {
	run -0 bench_rows
	[[ "${lines[5]}" == *'"time_ms":null,"status":"unparsed"'*'"source":"python bench_baseline.py"'* ]]
	s=$(row_seq "${lines[5]}")
	run "$KTRAJ" show "$RUN" "$s" --json
	[[ "$output" == *'"reason":"only timings of a baseline or competitor"'* ]]
	run "$KTRAJ" blame speedup "$RUN"
	[ "$status" -eq 0 ]
	[[ "$output" == *"unparsed: 1 output looked like a benchmark but gave no time of the agent's code: 1 only timings of a baseline or competitor (seq $s)"* ]]
}
