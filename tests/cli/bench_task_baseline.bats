#!/usr/bin/env bats
# The baseline the task names chooses among speedups printed against
# several baselines when no verifier names the graded one (issue 15;
# FORMAT.md section 14 "Graded result"), in a plain Claude Code session
# as in Harbor: the first human message is the task.  Fixtures (made up,
# Claude Code shape): task_baseline.jsonl asks "make it faster than
# torch.compile", task_baseline_none.jsonl names no baseline; both print
# "speedup vs eager: 5.85x" then "speedup vs torch.compile: 0.78x".

bats_require_minimum_version 1.5.0

setup() {
	load lib/fixture_run
	fixture_store
}

payload() {
	first_bench_payload "$1" speedup metric baseline alternatives choice graded
}

@test "bench: the task's baseline (torch.compile) chooses the speedup, eager is the alternative" {
	run payload task_baseline.jsonl
	[ "$status" -eq 0 ]
	[[ "$output" == *'"baseline": "torch.compile"'* ]]
	[[ "$output" == *'"metric": "speedup_vs_compile"'* ]]
	[[ "$output" == *'"speedup": 0.78'* ]]
	[[ "$output" == *'"choice": "the baseline the task names (torch.compile)"'* ]]
	[[ "$output" == *'"alternatives": [{"baseline": "eager", "metric": "speedup_vs_eager", "value": 5.85}]'* ]]
	# the agent's own command is not the grader's record
	[[ "$output" == *'"graded": null'* ]]
}

@test "bench: a task that names no baseline leaves the first printed, saying so" {
	run payload task_baseline_none.jsonl
	[ "$status" -eq 0 ]
	[[ "$output" == *'"baseline": "eager"'* ]]
	[[ "$output" == *'"speedup": 5.85'* ]]
	[[ "$output" == *'"choice": "the first printed: nothing named the graded one"'* ]]
	[[ "$output" == *'"alternatives": [{"baseline": "torch.compile", "metric": "speedup_vs_compile", "value": 0.78}]'* ]]
}

@test "blame: the series is the task's baseline" {
	R=$(fixture_run task_baseline.jsonl)
	run "$KTRAJ" blame speedup "$R"
	[ "$status" -eq 0 ]
	[[ "$output" == *"series: bench.py | rmsnorm 4096 | speedup_vs_compile | torch.compile"* ]]
}
