#!/usr/bin/env bats
# The measurement model through the commands (FORMAT.md "Measurement
# model"): series keys, --series-by, correctness not checked,
# --assume-correct, benchmark output with no readable time, log's key.

setup() {
	load lib/fixture_run
	fixture_store
	D="$BATS_TEST_DIRNAME/../data/analyze"
}

# two_sizes.jsonl: softmax at N=1024 (1.0 ms) and N=4096 (3.0 ms), an
# output with no readable time (seq 7), an edit, then 0.5 ms and 2.9 ms.
@test "blame: each size is its own series; the unparsed output is counted and named" {
	"$KTRAJ" import "$D/two_sizes.jsonl" >/dev/null
	run "$KTRAJ" blame speedup two_sizes
	[ "$status" -eq 0 ]
	[[ "$output" == *"series: 2, each compared only with itself"* ]]
	[[ "$output" == *"unparsed: 1 output looked like a benchmark but gave no time (seq 7); they are in no series"* ]]
	[[ "$output" == *"JUMP 1 [softmax | N=1024]  step 2 (seq 10) over the best so far, step 1 (seq 3)  speedup 1.000 -> 2.000  gain x2.000  (not checked)"* ]]
	[[ "$output" != *"JUMP 2"* ]]
	[[ "$output" == *"0 correct, 2 not checked (counted: nothing in the series was checked; correctness unknown)"* ]]
	blame_json two_sizes '
assert len(jumps) == 1 and jumps[0]["series"] == "softmax | N=1024" and jumps[0]["correctness"] == "not checked", jumps
assert [r["series"] for r in sums] == ["softmax | N=1024", "softmax | N=4096"], sums
assert all(r["unparsed"] == 1 and r["unparsed_seqs"] == [7] and r["not_checked"] == 2 and r["correct"] == 0 for r in sums), sums
assert all(r["noise_kind"] == "default" and "default" in r["noise_source"] for r in sums), sums'
	run "$KTRAJ" stalls two_sizes
	[[ "$output" == *"unparsed: 1 output looked like a benchmark but gave no time (seq 7)"* ]]
}

@test "blame --series-by workload reads both sizes as one series; a bad list is a usage error" {
	"$KTRAJ" import "$D/two_sizes.jsonl" >/dev/null
	run "$KTRAJ" blame speedup two_sizes --series-by workload
	[ "$status" -eq 0 ]
	[[ "$output" == *"series: softmax"* ]]
	[[ "$output" == *"measurements: 4 from 5 bench results"* ]]
	run "$KTRAJ" blame speedup two_sizes --series-by size
	[ "$status" -eq 2 ]
	[[ "$output" == "ktraj: blame: --series-by: bad value 'size' (a comma-separated list of workload, scenario, metric, baseline)"* ]]
}

# unparsed_other.jsonl: two_sizes with the output of no readable time (seq
# 7) from another workload, a competitor (cublas_benchmark) only.
@test "blame --series-by workload: a workload with only an unparsed output makes no series, is counted as unparsed" {
	"$KTRAJ" import "$D/unparsed_other.jsonl" >/dev/null
	run "$KTRAJ" blame speedup unparsed_other --series-by workload
	[ "$status" -eq 0 ]
	[[ "$output" == *"unparsed: 1 output looked like a benchmark but gave no time (seq 7); they are in no series"* ]]
	[[ "$output" == *"series: softmax"* ]]
	[[ "$output" != *"cublas_benchmark"* ]]
	[[ "$output" != *"series: 2"* ]]
	blame_json unparsed_other '
assert [r["series"] for r in sums] == ["softmax"], sums
assert sums[0]["unparsed"] == 1 and sums[0]["unparsed_seqs"] == [7] and sums[0]["measurements"] == 4, sums' --series-by workload
}

@test "log --kind bench --json: the model's fields, not checked as null, the series key" {
	"$KTRAJ" import "$D/two_sizes.jsonl" >/dev/null
	run "$KTRAJ" log two_sizes --kind bench --json
	[ "$status" -eq 0 ]
	python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.argv[1].splitlines()]
assert len(rows) == 5, rows
r = rows[0]
assert r["workload"] == "softmax" and r["scenario"] == "N=1024" and r["metric"] is None and r["baseline"] is None, r
assert r["source"] is None and r["candidate"] is None and r["correct"] is None and r["series"] == "softmax | N=1024" and r["sweep"] is None, r
assert rows[2]["status"] == "unparsed", rows[2]' "$output"
	run "$KTRAJ" log two_sizes --kind bench
	[[ "$output" == *"time 1 ms not checked (N=1024)"* ]]
	[[ "$output" == *"not checked no readable time"* ]]
}

@test "blame --assume-correct counts results nobody checked next to checked ones" {
	"$KTRAJ" import "$D/excluded.jsonl" >/dev/null
	run "$KTRAJ" blame speedup excluded
	[[ "$output" == *"2 not checked (others say correct)"* ]]
	run "$KTRAJ" blame speedup excluded --assume-correct
	[ "$status" -eq 0 ]
	[[ "$output" == *"measurements: 5 from 7 bench results: 3 correct, 2 not checked (counted: --assume-correct)"* ]]
}

# repeats.jsonl (Claude Code): k.py written, `python bench.py` four times
# (1.000 1.040 0.980 1.020 ms), an edit, `python verify.py` prints a JSON
# result, `python -c "print(open('result.json').read())"` prints it again,
# then bench.py once more (0.510 ms).
# Import Claude Code fixture $1 ('Make the kernel ...') and check that its
# bench results' times are $2 (JSON); leaves `log --kind bench --json` in
# $output.
import_times() {
	"$KTRAJ" import "$1" >/dev/null
	run "$KTRAJ" log 'Make the kernel' --kind bench --json
	[ "$status" -eq 0 ]
	python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.argv[1].splitlines()]
assert [r["time_ms"] for r in rows] == json.loads(sys.argv[2]), rows' "$output" "$2"
}

@test "free-text results carry the code they measured; a re-printed result is one result" {
	import_times "$BATS_TEST_DIRNAME/../data/analyze/repeats_cc.jsonl" "[1, 1.04, 0.98, 1.02, 0.5, 0.51]"
	python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.argv[1].splitlines()]
h = [r.get("source_hash") for r in rows]
assert h[0] and len(h[0]) == 64 and h[:4] == [h[0]] * 4, h
assert h[4] and h[4] == h[5] and h[4] != h[0], h' "$output"
	blame_json 'Make the kernel' '
s = [r for r in sums if r["series"].startswith("bench.py")]
assert len(s) == 1 and s[0]["noise_kind"] == "repeats" and s[0]["noise_results"] == 4, s'
}

@test "report: --help lists the analyzer options, and --series-by, --assume-correct, --noise change the report" {
	run "$KTRAJ" report --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"[--series-by FIELDS] [--assume-correct]"* ]]
	[[ "$output" == *"[--noise SIGMA]"* ]]
	"$KTRAJ" import "$D/two_sizes.jsonl" "$D/excluded.jsonl" >/dev/null
	H="$BATS_TEST_TMPDIR/r.html"
	run "$KTRAJ" report two_sizes -o "$H"
	[[ "$output" == *"(2 workloads, 1 jump,"* ]]
	run "$KTRAJ" report two_sizes -o "$H" --series-by workload
	[ "$status" -eq 0 ]
	[[ "$output" != *"workloads"* ]]
	run "$KTRAJ" report two_sizes -o "$H" --noise 0.1
	[ "$status" -eq 0 ]
	grep -q 'noise 10.00 % per measurement (default (--noise)' "$H"
	run "$KTRAJ" report excluded -o "$H" --assume-correct
	[ "$status" -eq 0 ]
	grep -q '5 measurements from 7 bench results (3 correct, 2 not checked' "$H"
	run "$KTRAJ" report two_sizes -o "$H" --series-by size
	[ "$status" -eq 2 ]
	[[ "$output" == "ktraj: report: --series-by: bad value 'size'"* ]]
}

@test "blame --json rows have no key twice (the run test's improvements are not the series' new bests)" {
	"$KTRAJ" import "$BATS_TEST_DIRNAME/../data/sample/softmax_session.jsonl" >/dev/null
	R=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	"$KTRAJ" blame speedup "$R" --json --permutations 50 | python3 -c '
import json, sys
from collections import Counter
for l in sys.stdin:
    keys = [k for k, v in json.loads(l, object_pairs_hook=lambda p: p)]
    d = [k for k, n in Counter(keys).items() if n > 1]
    assert not d, d
    row = json.loads(l)
    if "run_test_improvements" in row:
        assert row["run_test_improvements"] >= row["new_bests"], row'
	run "$KTRAJ" blame speedup "$R"
	[[ "$output" == *"run test: S = "*" improvement"* ]]
}

# harness_cc.jsonl (Claude Code, made by hand): k.cu written (a __global__
# kernel), ./bench.sh 1.000 ms; then benchmark.sh-style edits that leave
# the code under test alone - bench.sh, plot_times.py, bench/harness.py,
# NOTES.md - each followed by a run (1.030 0.990 1.020 1.010 ms); then
# bench_triton.py, a harness-named file that holds a @triton.jit kernel
# (1.000 ms), and an edit of k.cu (0.980 ms).
@test "an edit of only the harness, a plot script or a note is no new attempt: its runs are repeats" {
	import_times "$D/harness_cc.jsonl" "[1, 1.03, 0.99, 1.02, 1.01, 1, 0.98]"
	python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.argv[1].splitlines()]
h = [r["source_hash"] for r in rows]
# five runs of one k.cu; a kernel in a bench file, and k.cu edited, are new code
assert h[:5] == [h[0]] * 5 and len(set(h[4:])) == 3, h' "$output"
	blame_json 'Make the kernel' '
assert sums[0]["noise_kind"] == "repeats" and sums[0]["noise_results"] == 5, sums'
	# 7 measurements, 3 attempts: below the patience of 4, a stall at 3
	run "$KTRAJ" stalls 'Make the kernel'
	[ "$status" -eq 0 ]
	[[ "$output" == *"a stall is >= 4 attempts"* ]]
	[[ "$output" != *"STALL"* ]]
	run "$KTRAJ" stalls 'Make the kernel' --patience 3 --json
	python3 -c '
import json, sys
s = [r for r in map(json.loads, sys.argv[1].splitlines()) if "stall" in r]
assert len(s) == 1 and s[0]["length"] == 7 and s[0]["attempts"] == 3, s' "$output"
	run "$KTRAJ" stalls 'Make the kernel' --patience 3
	[[ "$output" == *"STALL 1  steps 1..7 (seq 7..43)  length 7 measurements (3 attempts), 12 tool calls"* ]]
}

# Repeats of one candidate at 10, 11.5, 9, 10.8 ms: sigma = 11.46 % (s /
# c4(3)), so the threshold is x1.626 and a x1.35 jump cannot be seen; the
# outputs say so once for the series.  The same run with repeats 1 % apart
# says nothing.
@test "blame and stalls warn once per series when its noise hides a x1.35 gain" {
	{
		for t in 10.0 11.5 9.0 10.8; do
			echo "{\"kind\":\"bench\",\"payload\":{\"time_ms\":$t,\"candidate\":\"k0\"}}"
		done
		echo '{"kind":"edit","payload":{"path":"k.cu","op":"modify","before":null,"after":null}}'
		echo '{"kind":"bench","payload":{"time_ms":7.0,"candidate":"k1"}}'
	} | "$KTRAJ" append noisy >/dev/null
	run "$KTRAJ" blame speedup noisy
	[ "$status" -eq 0 ]
	[[ "$output" == *"noise: 11.46 % per measurement"* ]]
	[[ "$output" == *"warning: series (no workload, scenario or metric recorded): noise 11.46 % per measurement (repeats of unchanged code"*"hides a x1.35 gain: only a gain above x1.626 counts"* ]]
	[ "$(grep -c 'hides a x1.35 gain' <<<"$output")" -eq 1 ]
	run "$KTRAJ" stalls noisy
	[ "$status" -eq 0 ]
	[ "$(grep -c 'warning: series .*noise 11.46 %.*hides a x1.35 gain' <<<"$output")" -eq 1 ]
	blame_json noisy '
assert len(sums) == 1 and sums[0]["undetectable_gain"] == 1.35 and sums[0]["min_detectable_gain"] == 1.6263, sums'
	# repeats 1 % apart: x1.35 is well above the threshold, no warning
	{
		for t in 10.0 10.1 9.9 10.05; do
			echo "{\"kind\":\"bench\",\"payload\":{\"time_ms\":$t,\"candidate\":\"k0\"}}"
		done
		echo '{"kind":"edit","payload":{"path":"k.cu","op":"modify","before":null,"after":null}}'
		echo '{"kind":"bench","payload":{"time_ms":7.0,"candidate":"k1"}}'
	} | "$KTRAJ" append quiet >/dev/null
	run "$KTRAJ" blame speedup quiet
	[ "$status" -eq 0 ]
	[[ "$output" != *"warning"* ]]
	[[ "$output" == *"1 jump"* ]]
	blame_json quiet '
assert len(sums) == 1 and "undetectable_gain" not in sums[0] and sums[0]["min_detectable_gain"] < 1.35, sums'
}

# The noisy run above never stalls (too few attempts), so before the
# per-series summary stalls --json printed nothing and its warning was in
# the text only.
@test "stalls --json: one summary per series, with the noise warning when nothing stalls" {
	{
		for t in 10.0 11.5 9.0 10.8; do
			echo "{\"kind\":\"bench\",\"payload\":{\"time_ms\":$t,\"candidate\":\"k0\"}}"
		done
		echo '{"kind":"edit","payload":{"path":"k.cu","op":"modify","before":null,"after":null}}'
		echo '{"kind":"bench","payload":{"time_ms":7.0,"candidate":"k1"}}'
	} | "$KTRAJ" append noisy >/dev/null
	run "$KTRAJ" stalls noisy
	[ "$status" -eq 0 ]
	[[ "$output" == *"no stall"* ]]
	run "$KTRAJ" stalls noisy --json
	[ "$status" -eq 0 ]
	python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.argv[1].splitlines()]
s = [r for r in rows if r.get("summary") == "stalls"]
assert len(rows) == 1 and len(s) == 1, rows
s = s[0]
assert s["stalled"] is False and s["stalls"] == 0, s
assert s["undetectable_gain"] == 1.35 and s["min_detectable_gain"] == 1.6263, s
assert s["noise_sigma"] == 0.1146 and "repeats" in s["noise_source"], s
assert s["series"] == "" and s["run"], s' "$output"
	run "$KTRAJ" stalls --help
	[[ "$(tr '\n' ' ' <<<"$output")" == *"one summary object per series: summary (\"stalls\")"*"stalled (true when one or more)"* ]]
}

@test "blame --help: reference repeats are read with the same s / c4 estimator as repeats of unchanged code" {
	run "$KTRAJ" blame --help
	[ "$status" -eq 0 ]
	t=$(tr '\n' ' ' <<<"$output")
	[[ "$t" == *"pooled SD s of repeats of unchanged code (same source hash, or no hash and no edit between them in a run that records edits; 2 or more degrees of freedom nu), as s / c4(nu)"* ]]
	[[ "$t" == *"(2) repeats of the reference timing, the same s / c4(nu) x sqrt 2 for a ratio"* ]]
}

# fix_after_wrong.jsonl: 2.0 ms, edit softmax.cu, 1.0 ms, a new file
# online.cu, 0.4 ms but incorrect (left out), edit softmax.cu, 0.5 ms.
@test "blame: a jump's edits run from the last measurement below, past an incorrect result left out" {
	"$KTRAJ" import "$D/fix_after_wrong.jsonl" >/dev/null
	run "$KTRAJ" blame speedup fix_after_wrong
	[ "$status" -eq 0 ]
	[[ "$output" == *"1 excluded: 1 incorrect"* ]]
	[[ "$output" == *"JUMP 2  step 3 (seq 8) over the best so far, step 2 (seq 4)"*"edits: #5 online.cu #7 softmax.cu  ["* ]]
	blame_json fix_after_wrong '
assert [[e["seq"] for e in r["edits"]] for r in jumps] == [[3], [5, 7]], jumps'
	run "$KTRAJ" blame --help
	[[ "$output" == *"is no measurement: the edits"* ]]
}

# one_failed_check.jsonl: gemm 2.0 ms (not checked), 0.5 ms checked and
# incorrect, 1.0 ms (not checked).
@test "blame and stalls: unchecked results counted because the only check failed say so, not that nothing was checked" {
	"$KTRAJ" import "$D/one_failed_check.jsonl" >/dev/null
	for cmd in "blame speedup" stalls; do
		run "$KTRAJ" $cmd one_failed_check
		[ "$status" -eq 0 ]
		[[ "$output" == *"measurements: 2 from 3 bench results: 0 correct, 2 not checked (counted: no result in the series was checked correct, 1 checked incorrect; correctness unknown); 1 excluded: 1 incorrect"* ]]
		[[ "$output" != *"nothing in the series was checked"* ]]
	done
}

# unparsed_why.jsonl: three outputs with no time of the agent's code: seq 3
# and 7 timed only a competitor/baseline (their stored reason), seq 4 is a
# table no time was read from.
@test "blame, stalls and report: outputs with no time are grouped by their stored reason" {
	"$KTRAJ" import "$D/unparsed_why.jsonl" >/dev/null
	want="unparsed: 3 outputs looked like a benchmark but gave no time of the agent's code: 2 only timings of a baseline or competitor (seq 3 7); 1 no time could be read (seq 4); they are in no series"
	run "$KTRAJ" blame speedup unparsed_why
	[ "$status" -eq 0 ]
	[[ "$output" == *"$want"* ]]
	run "$KTRAJ" stalls unparsed_why
	[[ "$output" == *"$want"* ]]
	"$KTRAJ" report unparsed_why -o "$BATS_TEST_TMPDIR/r.html" >/dev/null
	grep -q '3 outputs looked like a benchmark but gave no time of the agent.s code: 2 only timings of a baseline or competitor (seq <a href="#e3">3</a> <a href="#e7">7</a>); 1 no time could be read (seq <a href="#e4">4</a>); they are in no series' "$BATS_TEST_TMPDIR/r.html"
}

# repeats_nocode.jsonl: three results with no source hash (code not known),
# an edit, three of hash a..., an edit, three of hash b...; the first
# three have no edit between them: re-runs of unchanged code (issue 15's
# tester: 1.0 / 1.1 / 0.9 ms before any edit were left out of the noise).
# repeats_nocode_noedit.jsonl: the same without the edits: a run with no
# edit cannot tell (FORMAT.md "Code under test"), and says so.
@test "blame: repeats with no source hash and no edit between them are a group of the noise; in a run with no edits they are in no group, said" {
	"$KTRAJ" import "$D/repeats_nocode.jsonl" >/dev/null
	run "$KTRAJ" blame speedup repeats_nocode
	[ "$status" -eq 0 ]
	[[ "$output" == *"(repeats of unchanged code (same source hash or candidate, or no edit between them): 9 results in 3 groups of one code state and scenario)"* ]]
	blame_json repeats_nocode '
assert sums[0]["noise_kind"] == "repeats" and sums[0]["noise_results"] == 9 and sums[0]["noise_no_code"] == 0, sums'
	"$KTRAJ" import "$D/repeats_nocode_noedit.jsonl" >/dev/null
	run "$KTRAJ" blame speedup repeats_nocode_noedit
	[ "$status" -eq 0 ]
	[[ "$output" == *"(repeats of unchanged code (same source hash or candidate): 6 results in 2 groups of one code state and scenario; 3 results with no source hash or candidate (code not known) in no group)"* ]]
}

# q_between_edits.jsonl: softmax 1.0 ms, edit, 0.3 ms but incorrect (left
# out), a person's question, edit, 0.5 ms.  The jump's edits are #4 and #9
# and the question sits between them; the run test must score it against
# the edit after it (lag as blame's), not against the first edit only.
@test "blame: the run test scores a question between two edits of one jump as the jump does" {
	"$KTRAJ" import "$D/q_between_edits.jsonl" >/dev/null
	run "$KTRAJ" blame speedup q_between_edits
	[ "$status" -eq 0 ]
	[[ "$output" == *"edits: #4 softmax.cu #9 softmax.cu"* ]]
	[[ "$output" == *"question #7 (human"* ]]
	[[ "$output" == *"run test: S = 0.693 over 1 improvement"* ]]
	blame_json q_between_edits '
s = [r["s_observed"] for r in rows if "s_observed" in r]
assert s and abs(s[0] - 0.6931) < 1e-3, s'
}

# no_edits_run.jsonl: softmax 1.0 ms, then 0.5 ms, and no edit event in
# the run: the jump has no edit, and must not read as "no change".
@test "blame and report: a jump in a run that records no edits says every new result counts as a change" {
	"$KTRAJ" import "$D/no_edits_run.jsonl" >/dev/null
	run "$KTRAJ" blame speedup no_edits_run
	[ "$status" -eq 0 ]
	[[ "$output" == *"1 jump"* ]]
	[[ "$output" == *"edits: none recorded (the run records no edits: every new result counts as a change)  ["* ]]
	blame_json no_edits_run '
assert len(jumps) == 1 and jumps[0]["edits"] == [] and jumps[0]["run_records_no_edits"] is True, jumps'
	run "$KTRAJ" report no_edits_run -o "$BATS_TEST_TMPDIR/n.html"
	[ "$status" -eq 0 ]
	grep -q "none recorded (the run records no edits: every new result counts as a change)" "$BATS_TEST_TMPDIR/n.html"
	# a run with edits: the flag is false
	"$KTRAJ" import "$D/fix_after_wrong.jsonl" >/dev/null
	run "$KTRAJ" blame speedup fix_after_wrong --json
	[[ "$output" == *'"run_records_no_edits":false'* ]]
}
