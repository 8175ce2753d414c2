#!/usr/bin/env bats
# Triton perf_report tables print no unit: the Benchmark's ylabel in the
# script that ran says it (tests/data/perfreport, Claude Code sessions).
# With the script in the trajectory (written by an edit, or the command's
# heredoc) the table is read in that unit; without it the table stays one
# "unparsed" result, never a guessed time.

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	D="$BATS_TEST_DIRNAME/../data/perfreport"
}

run_id() {
	"$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])'
}

bench_of() { # file -> the run's bench payloads, one JSON line each
	"$KTRAJ" import "$D/$1" >/dev/null
	R=$(run_id)
	for s in $("$KTRAJ" log "$R" --kind bench --json | python3 -c 'import json,sys; [print(json.loads(l)["seq"]) for l in sys.stdin]'); do
		"$KTRAJ" show "$R" "$s" --json | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["payload"], sort_keys=True))'
	done
}

cublas_times() { # file: the fp16 matmul heredoc's two rows, in ms against cuBLAS
	run bench_of "$1"
	[ "$status" -eq 0 ]
	python3 - "$output" <<'PY'
import json, sys
rows = [json.loads(l) for l in sys.argv[1].splitlines()]
assert [(r["scenario"], r["time_ms"], r["ref_time_ms"]) for r in rows] == [("M=256", 0.01, 0.012), ("M=512", 0.04, 0.05)], rows
assert all(r["metric"] == "time" and r["baseline"] == "cuBLAS" for r in rows), rows
PY
}

@test "perf_report: the script the agent wrote gives GB/s; Torch is the baseline; one sweep over N" {
	run bench_of with_script.jsonl
	[ "$status" -eq 0 ]
	python3 - "$output" <<'PY'
import json, sys
rows = [json.loads(l) for l in sys.argv[1].splitlines()]
assert [(r["scenario"], r["gbps"], r["speedup"]) for r in rows] == [("N=4096", 812.5, 1.25), ("N=8192", 900, 1.5)], rows
assert all(r["metric"] == "gbps" and r["baseline"] == "Torch" and r["time_ms"] is None and
           r["pattern"] == "perf_report" and r["correct"] is None and "status" not in r for r in rows), rows
PY
	run "$KTRAJ" log "$(run_id)" --kind bench --json
	[ "$(grep -c '"sweep":1' <<<"$output")" -eq 2 ]
}

@test "perf_report: a heredoc's Benchmark (f-string plot_name, ylabel 'Runtime (ms)') gives times against cuBLAS" {
	cublas_times heredoc_ms.jsonl
}

@test "perf_report: without the script the table stays one unparsed result and blame says so" {
	run bench_of no_script.jsonl
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *'"status": "unparsed"'* ]]
	[[ "$output" != *'"gbps"'* && "$output" != *'"time_ms": 8'* ]]
	run "$KTRAJ" blame speedup "$(run_id)"
	[[ "$output" == *"unparsed: 1 output"* ]]
	# every analyzer says so: suggest too, in text and JSON
	s=$("$KTRAJ" log "$(run_id)" --kind bench --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["seq"])')
	run "$KTRAJ" questions suggest "$(run_id)"
	[ "$status" -eq 0 ]
	[[ "$output" == *"unparsed: 1 output looked like a benchmark but gave no time (seq $s); they are in no series"* ]]
	run "$KTRAJ" questions suggest "$(run_id)" --json
	[ "$status" -eq 0 ]
	python3 -c 'import json,sys; x=json.loads(sys.argv[1].splitlines()[0]); assert x["unparsed"] == 1 and x["unparsed_seqs"] == [int(sys.argv[2])], x' "$output" "$s"
}

@test "perf_report: the script's own check before the table (triton tutorials' match/differ) is the verdict" {
	run bench_of checked.jsonl
	[ "$status" -eq 0 ]
	python3 - "$output" <<'PY'
import json, sys
rows = [json.loads(l) for l in sys.argv[1].splitlines()]
assert [(r["gbps"], r["correct"]) for r in rows] == [(1812.5, False), (812.5, True)], rows
PY
}

# A ylabel that names no unit ('Performance'): the function perf_report
# decorates says it when each of its returns is triton.testing.do_bench(...)
# itself, milliseconds by do_bench's contract.  One that computes from the
# time (here TFLOP/s) stays unread: the unit is never guessed.
@test "perf_report: no unit in the ylabel, the function returns do_bench itself: ms" {
	cublas_times nounit_dobench.jsonl
}

@test "perf_report: no unit in the ylabel, the function transforms do_bench's time: unparsed" {
	run bench_of nounit_tflops.jsonl
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *'"status": "unparsed"'* ]]
	[[ "$output" != *'"time_ms": 0.01'* ]]
}
