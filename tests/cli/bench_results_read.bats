#!/usr/bin/env bats
# A results file read back is the same report, not a second measurement
# (issue 15: "deduplicates a result that is printed again (same numbers
# from the same file or command)"), and a results file shown with `cat`
# is a report as one shown with a Read tool is.  Fixtures (made up):
# tests/data/import/results_read_back.jsonl (Claude Code: bench.py prints
# 0.42 ms and writes results.json, read with Read then `cat`; a silent
# bench.py writes benchmark_results.json, shown with `cat` then Read) and
# tests/data/import/codex/results_cat.jsonl (Codex: a silent bench, then
# `cat results.json` twice).

bats_require_minimum_version 1.5.0

setup() {
	load lib/fixture_run
	fixture_store
}

@test "bench: a printed result read back with Read and cat is one measurement" {
	run -0 bench_rows results_read_back.jsonl
	[ "$(grep -c '"time_ms":0.42,' <<<"$output")" -eq 1 ]
	[[ "${lines[0]}" == *'"time_ms":0.42,'*'"source":"python bench.py --out results.json"'* ]]
}

@test "bench: a silent benchmark's results file shown with cat then Read is one measurement" {
	run -0 bench_rows results_read_back.jsonl
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[1]}" == *'"time_ms":0.3,'*'"workload":"benchmark_results.json"'*'"source":"/w/ext/benchmark_results.json"'* ]]
	# the cat's result (seq 12), not the later Read's
	[[ "${lines[1]}" == *'"parent":12,'* ]]
}

@test "bench: Codex, a results file shown with cat twice is one measurement" {
	run -0 bench_rows "$FIXTURES/codex/results_cat.jsonl"
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == *'"time_ms":0.3,'*'"source":"/w/results.json"'* ]]
}
