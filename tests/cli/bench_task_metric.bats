#!/usr/bin/env bats
# A task prompt that names the graded METRIC chooses among speedups
# printed against several baselines (issue 15; FORMAT.md section 14
# "Graded result"): "graded on X" / "X is what counts" wins, "X is
# informational only" loses.  Fixtures (made up, Claude Code shape) print
# "speedup vs eager: 5.85x" then "speedup vs torch.compile: 0.78x" and
# name no baseline to beat, only metrics: task_metric.jsonl ("graded on
# `speedup_vs_compile`; speedup_vs_eager is informational only"),
# task_metric_info.jsonl (only "speedup_vs_eager is informational only"),
# task_metric_counts.jsonl ("speedup_vs_compile is what counts").

bats_require_minimum_version 1.5.0

setup() {
	load lib/fixture_run
	fixture_store
}

payload() {
	first_bench_payload "$1" speedup metric baseline alternatives choice
}

D="$BATS_TEST_DIRNAME/../data/import"

@test "bench: the metric the task grades wins over the first printed" {
	run payload "$D/task_metric.jsonl"
	[ "$status" -eq 0 ]
	[[ "$output" == *'"metric": "speedup_vs_compile"'* ]]
	[[ "$output" == *'"speedup": 0.78'* ]]
	[[ "$output" == *'"choice": "the metric the task grades (speedup_vs_compile)"'* ]]
	[[ "$output" == *'"alternatives": [{"baseline": "eager", "metric": "speedup_vs_eager", "value": 5.85}]'* ]]
}

@test "bench: \"X is what counts\" names the graded metric" {
	run payload "$D/task_metric_counts.jsonl"
	[ "$status" -eq 0 ]
	[[ "$output" == *'"metric": "speedup_vs_compile"'* ]]
	[[ "$output" == *'"choice": "the metric the task grades (speedup_vs_compile)"'* ]]
}

@test "bench: of two, the one the task does not call informational" {
	run payload "$D/task_metric_info.jsonl"
	[ "$status" -eq 0 ]
	[[ "$output" == *'"metric": "speedup_vs_compile"'* ]]
	[[ "$output" == *'"speedup": 0.78'* ]]
	[[ "$output" == *'"choice": "the one the task does not call informational (speedup_vs_eager)"'* ]]
}

@test "bench: the graded metric names its own choice when printed first too" {
	sed 's/graded on `speedup_vs_compile`; speedup_vs_eager is/graded on `speedup_vs_eager`; speedup_vs_compile is/' \
		"$D/task_metric.jsonl" >"$BATS_TEST_TMPDIR/eager.jsonl"
	run payload "$BATS_TEST_TMPDIR/eager.jsonl"
	[ "$status" -eq 0 ]
	[[ "$output" == *'"metric": "speedup_vs_eager"'* ]]
	[[ "$output" == *'"choice": "the metric the task grades (speedup_vs_eager)"'* ]]
	[[ "$output" == *'"alternatives": [{"baseline": "torch.compile", "metric": "speedup_vs_compile", "value": 0.78}]'* ]]
}

@test "bench: a task naming no metric leaves the first printed, saying so, the other kept" {
	run payload "$D/task_baseline_none.jsonl"
	[ "$status" -eq 0 ]
	[[ "$output" == *'"metric": "speedup_vs_eager"'* ]]
	[[ "$output" == *'"choice": "the first printed: nothing named the graded one"'* ]]
	[[ "$output" == *'"alternatives": [{"baseline": "torch.compile", "metric": "speedup_vs_compile", "value": 0.78}]'* ]]
}

@test "blame: the series is the graded metric's" {
	R=$(fixture_run "$D/task_metric.jsonl")
	run "$KTRAJ" blame speedup "$R"
	[ "$status" -eq 0 ]
	[[ "$output" == *"series: bench.py | rmsnorm 4096 | speedup_vs_compile | torch.compile"* ]]
}
