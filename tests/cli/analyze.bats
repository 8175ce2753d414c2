#!/usr/bin/env bats
# The analyzers: blame speedup, stalls, questions mine/suggest, report.
# Runs come from the planted-trajectory generator (tests/plant/plant.py,
# fixed seeds) so every expected answer is known; corpus checks skip when
# $CORPUS is absent; report.bats renders the report in headless Chromium.

setup() {
	load lib/fixture_run
	fixture_store
	PLANT="$BATS_TEST_DIRNAME/../plant"
}

# plant DIR ARGS...: generate planted runs and import them
plant() {
	local d=$1; shift
	python3 "$PLANT/plant.py" "$d" "$@" >/dev/null
	"$KTRAJ" import "$d"/*.jsonl >/dev/null
}

@test "blame speedup: planted jumps, their gains and causes, thresholds printed" {
	plant "$BATS_TEST_TMPDIR/p" --runs 1 --noise 0.01 --seed 11
	run "$KTRAJ" blame speedup plant-jump-11-0000 --json
	[ "$status" -eq 0 ]
	echo "$output" >"$BATS_TEST_TMPDIR/b.json"
	python3 - "$BATS_TEST_TMPDIR/b.json" "$BATS_TEST_TMPDIR/p/truth.json" <<'PY'
import json,sys
rows=[json.loads(l) for l in open(sys.argv[1]) if l.strip()]
truth=json.load(open(sys.argv[2]))["runs"]["plant-jump-11-0000"]
jumps=[r for r in rows if "gain" in r]
summ=[r for r in rows if "gain" not in r]
assert len(summ)==1 and "p_value" in summ[0] and 0<summ[0]["p_value"]<=1, summ
assert len(jumps)==len(truth), (jumps,truth)
for j,t in zip(jumps,truth):
    assert j["from_seq"] < t["bench_seq"] <= j["to_seq"], (j,t)
    assert abs(j["gain"]/t["gain"]-1) < 0.08, (j["gain"],t["gain"])
    if t["question_seq"] is None: assert j["attribution"]=="agent alone" and j["hypothesis"], j
    else: assert j["question"]["seq"]==t["question_seq"] and j["question"]["text"], j
    assert j["edits"] and j["files"]
PY
	run "$KTRAJ" blame speedup plant-jump-11-0000
	[ "$status" -eq 0 ]
	[[ "$output" == *"threshold: a new best counts when its gain over the best so far > x"* ]]
	[[ "$output" == *"JUMP 1"* ]]
	[[ "$output" == *"run test: S = "* ]]
	[[ "$output" == *"p = "*"questions placed at random"* ]]
	run "$KTRAJ" blame speedup plant-jump-11-0000 --permutations 0
	[ "$status" -eq 0 ]
	[[ "$output" == *"p: not computed (--permutations 0)"* ]]
}

@test "blame speedup: same input and seed give byte-identical output; --min-gain hides jumps" {
	plant "$BATS_TEST_TMPDIR/p" --runs 1 --noise 0.02 --seed 12
	"$KTRAJ" blame speedup plant-jump-12-0000 --json --seed 5 >"$BATS_TEST_TMPDIR/a"
	"$KTRAJ" blame speedup plant-jump-12-0000 --json --seed 5 >"$BATS_TEST_TMPDIR/b"
	cmp "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	grep -q '"gain"' "$BATS_TEST_TMPDIR/a"
	run "$KTRAJ" blame speedup plant-jump-12-0000 --json --min-gain 100
	[ "$status" -eq 0 ]
	! grep -q '"gain"' <<<"$output" || false
	grep -q '"min_gain":100' <<<"$output"
}

@test "blame: usage errors and unknown runs" {
	plant "$BATS_TEST_TMPDIR/p" --runs 1 --seed 13
	run "$KTRAJ" blame speedup
	[ "$status" -eq 2 ]
	run "$KTRAJ" blame speedup plant-jump-13-0000 --min-gain abc
	[ "$status" -eq 2 ]
	[[ "$output" == "ktraj: blame: "* ]]
	run "$KTRAJ" blame speedup no-such-run
	[ "$status" -eq 4 ]
	run "$KTRAJ" blame speedup --help
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "usage: ktraj blame speedup"* ]]
}

@test "stalls: a pure-noise run is one long stall; JSON has length and step range" {
	plant "$BATS_TEST_TMPDIR/p" --runs 1 --seed 14 --pure
	run "$KTRAJ" stalls plant-noise-14-0000 --json
	[ "$status" -eq 0 ]
	python3 -c '
import json,sys
rows=[json.loads(l) for l in sys.argv[1].splitlines() if l.strip()]
assert [r["stalled"] for r in rows if "summary" in r]==[True], rows
rows=[r for r in rows if "stall" in r]
assert len(rows)==1 and rows[0]["length"]>=8 and rows[0]["from_step"]==1, rows
assert rows[0]["ended_by_jump"] is None' "$output"
	run "$KTRAJ" stalls plant-noise-14-0000
	[[ "$output" == *"STALL 1"* ]]
}

@test "questions mine: library with layers, flags and sources; Markdown with -o" {
	plant "$BATS_TEST_TMPDIR/p" --runs 6 --seed 15
	run "$KTRAJ" questions mine --json
	[ "$status" -eq 0 ]
	python3 -c '
import json,sys
rows=[json.loads(l) for l in sys.argv[1].splitlines() if l.strip()]
assert rows
for r in rows:
    assert r["layer"] and r["sources"] and r["count"]==len(r["sources"]) and "gain" in r, r
    assert all(len(s["run"])==32 and s["seq"]>0 for s in r["sources"])
t=" ".join(r["text"] for r in rows)
assert "Remember to commit" not in t and "keep going" not in t
# questions that were blamed for a jump rank above the rest
assert rows[0]["hits"]>0 and rows[0]["gain"]>1' "$output"
	run "$KTRAJ" questions mine -o "$BATS_TEST_TMPDIR/lib.md"
	[ "$status" -eq 0 ]
	grep -q '^| # | question | layer' "$BATS_TEST_TMPDIR/lib.md"
	"$KTRAJ" questions mine -o "$BATS_TEST_TMPDIR/lib.jsonl"
	run "$KTRAJ" questions suggest plant-jump-15-0000 --library "$BATS_TEST_TMPDIR/lib.jsonl"
	[ "$status" -eq 0 ]
	[[ "$output" == *"1. ["* ]]
}

@test "report: one offline HTML file with an SVG chart and an anchor per event" {
	plant "$BATS_TEST_TMPDIR/p" --runs 1 --seed 16
	run "$KTRAJ" report plant-jump-16-0000 -o "$BATS_TEST_TMPDIR/r.html"
	[ "$status" -eq 0 ]
	f="$BATS_TEST_TMPDIR/r.html"
	grep -q '<svg' "$f"
	n=$(python3 -c 'import json,sys; print(sum(1 for l in open(sys.argv[1]) if "\"kind\"" in l))' "$BATS_TEST_TMPDIR"/p/plant-jump-16-0000.jsonl)
	[ "$(grep -o 'id="e[0-9]*"' "$f" | sort -u | wc -l)" -eq "$n" ]
	# one inline script (search, highlight), nothing fetched (report.bats
	# checks the rendered DOM)
	[ "$(grep -c '<script' "$f")" -eq 1 ]
	run grep -qiE '<script[^>]*src|<link|<img|<iframe|https?://[a-z]' <(grep -v 'xmlns=' "$f")
	[ "$status" -eq 1 ]
	grep -q 'id="jump1"' "$f"
	run "$KTRAJ" report plant-jump-16-0000
	[ "$status" -eq 2 ]
}

@test "planted trajectories: blame precision >= 0.95, recall >= 0.9 at 3 % noise; <= 1 % noise runs jump" {
	python3 "$PLANT/plant.py" "$BATS_TEST_TMPDIR/j" --runs 25 --noise 0.03 --seed 21 >/dev/null
	python3 "$PLANT/plant.py" "$BATS_TEST_TMPDIR/n" --runs 100 --noise 0.03 --seed 22 --pure >/dev/null
	run python3 "$PLANT/score.py" "$BATS_TEST_TMPDIR/j" "$BATS_TEST_TMPDIR/n"
	[ "$status" -eq 0 ]
	python3 -c '
import json,sys
r=json.loads(sys.argv[1])
print(json.dumps({k:r[k] for k in ("blame_precision","blame_recall","false_jump_rate","planted","reported")}))
assert r["planted"] >= 40
assert r["blame_precision"] >= 0.95 and r["blame_recall"] >= 0.9, r
assert r["false_jump_rate"] <= 0.01, r' "$output"
}

@test "corpus: RMSNorm rounds give no jump and one long memory-bound stall" {
	d="$CORPUS/gpu_kernel/kernelagent/opt_trace_36_RMSNorm"
	[ -d "$d" ] || skip "corpus absent"
	R=$("$KTRAJ" import --json "$d" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	run "$KTRAJ" blame speedup "$R" --json
	[ "$status" -eq 0 ]
	! grep -q '"gain"' <<<"$output" || false
	run "$KTRAJ" stalls "$R"
	[[ "$output" == *"length 8 measurements"* ]]
	[[ "$output" == *"memory-bound"* ]]
}

@test "corpus: the person's real questions are mined, instructions are not" {
	f="$CORPUS/claude_code/vsla_cuda_dev_f67ab274.jsonl"
	[ -f "$f" ] || skip "corpus absent"
	"$KTRAJ" import "$f" >/dev/null
	run "$KTRAJ" questions mine --json
	[ "$status" -eq 0 ]
	t=$(tr 'A-Z' 'a-z' <<<"$output")
	[[ "$t" == *"no matrix multiplication function"* ]]
	[[ "$t" == *"do we not have gpu convolution"* ]]
	[[ "$t" == *"verify that we are doing the same operations"* ]]
	[[ "$t" != *"system package approach"* ]]
	[[ "$t" != *"both in the order specified"* ]]
}

@test "corpus: a jump keeps its edits when another series' result lies between (vsla, by workload)" {
	f="$CORPUS/claude_code/vsla_cuda_dev_f67ab274.jsonl"
	[ -f "$f" ] || skip "corpus absent"
	"$KTRAJ" import "$f" >/dev/null
	R=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	run "$KTRAJ" blame speedup "$R" --series-by workload --permutations 0
	[ "$status" -eq 0 ]
	# gpu_head_to_head 457 -> 830 (by workload: the matmul, then the
	# convolution): gpu_head_to_head.c written at 574, results of other
	# series (benchmark.sh, ...) after it, the file written again at 818
	# and 822; cublas_benchmark's results time cuBLAS, no series of the
	# agent's code (raw line 438).  (Seqs as imported since the Read
	# results files of raw 193 and 358 are bench reports, and since
	# cublas_benchmark's and cufft_benchmark's competitor-only JSON gives
	# an unparsed marker each: seqs 411, 461 and 740.)
	# (the landing, 0.313 us and never checked, is marked suspicious on
	# the line between)
	grep -A2 '^JUMP 1 \[gpu_head_to_head\]' <<<"$output" |
		grep -q 'edits: #574 [^ ]*gpu_head_to_head.c #818 [^ ]*gpu_head_to_head.c #822 '
	grep -A1 '^JUMP 1 \[gpu_head_to_head\]' <<<"$output" |
		grep -qx '  (suspicious: under 1 us and not checked)'
	[[ "$output" != *"[cublas_benchmark]"* ]]
	[[ "$output" != *"none recorded"* ]]
}

@test "corpus: eval dataset prompts and harness instructions are not mined as questions" {
	[ -d "$CORPUS/inspect" ] || skip "corpus absent"
	"$KTRAJ" import "$CORPUS"/inspect/* "$CORPUS"/swe_agent/* >/dev/null 2>&1 || true
	[ "$("$KTRAJ" ls --json | grep -c inspect)" -ge 3 ]
	run "$KTRAJ" questions mine --json
	[ "$status" -eq 0 ]
	t=$(tr 'A-Z' 'a-z' <<<"$output")
	# Inspect sample inputs (popularity x10, images, input_task) ...
	[[ "$t" != *"something you would say"* ]]
	[[ "$t" != *"what is this a picture of"* ]]
	[[ "$t" != *"average low temperature"* ]]
	# ... and SWE-agent instance prompts / harness instructions
	[[ "$t" != *"verify your fix works"* ]]
	[[ "$t" != *"pwn-er"* ]]
	# they are not question candidates for blame either
	r=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(next(json.loads(l)["run"] for l in sys.stdin if "popularity/1/" in l))')
	run "$KTRAJ" blame speedup "$r" --json
	[ "$status" -eq 0 ]
	grep -q '"questions":0' <<<"$output"
}

@test "questions mine: a human question after the task prompt of an eval run is kept" {
	d="$BATS_TEST_TMPDIR/q"
	mkdir -p "$d"
	# ktraj JSONL runs are interactive: only text shaped like a task prompt
	# is left out
	cat >"$d/a.jsonl" <<'J'
{"seq":1,"kind":"message","actor":"human","payload":{"role":"user","human":true,"text":"You are an expert GPU engineer. Your task is to make the kernel below faster than the reference implementation while keeping it correct. What is the first thing you would measure, and why?"}}
{"seq":2,"kind":"message","actor":"agent","payload":{"role":"assistant","human":false,"text":"I will profile it first."}}
{"seq":3,"kind":"message","actor":"human","payload":{"role":"user","human":true,"text":"Is the kernel really memory-bound, did you check the DRAM throughput?"}}
J
	"$KTRAJ" import "$d/a.jsonl" >/dev/null
	run "$KTRAJ" questions mine --json
	[ "$status" -eq 0 ]
	[[ "$output" == *"really memory-bound"* ]]
	[[ "$output" != *"first thing you would measure"* ]]
}

@test "questions suggest: bound challenges and other layers by fit and gain, never instructions" {
	d="$BATS_TEST_TMPDIR/s"
	mkdir -p "$d"
	# a run stalled in data movement, claiming memory-bound every round
	python3 - "$d/run.jsonl" <<'PY'
import json, sys
ev, seq = [], 0
def add(kind, actor, payload, parent=None):
    global seq
    seq += 1
    d = {"seq": seq, "kind": kind, "actor": actor, "payload": payload}
    if parent: d["parent"] = parent
    ev.append(json.dumps(d))
    return seq
add("message", "human", {"role": "user", "human": True, "text": "Make the RMSNorm kernel faster."})
for i, t in enumerate([3.55, 3.60, 3.52, 3.58, 3.54, 3.61, 3.56, 3.53]):
    add("message", "agent", {"role": "assistant", "human": False,
        "text": "The kernel is memory-bound at %d%% of peak DRAM bandwidth; tuning the block size." % (85 + i % 3)})
    c = add("tool_call", "agent", {"tool": "Bash", "call_id": "c%d" % i, "args": {"command": "./bench"}})
    add("bench", "tool", {"time_ms": t, "correct": True, "n": 100}, c)
open(sys.argv[1], "w").write("\n".join(ev) + "\n")
PY
	cat >"$d/lib.jsonl" <<'J'
{"text":"Can you also add a unit test for odd sizes?","layer":"unclassified","flags":[],"gain":3.0,"count":10}
{"text":"Make sure you commit when you are done.","layer":"unclassified","flags":[],"gain":2.5,"count":8}
{"text":"Please use float4 loads.","layer":"memory access","flags":[],"gain":2.0,"count":5}
{"text":"How many bytes does the kernel move from DRAM per element?","layer":"data movement","flags":[],"gain":1.8,"count":3}
{"text":"Why are bias and activation separate kernels instead of a fused epilogue?","layer":"operator boundary","flags":["moves_layer"],"gain":1.5,"count":4}
{"text":"Are the global loads coalesced?","layer":"memory access","flags":[],"gain":1.6,"count":1}
{"text":"Is the kernel really memory-bound, did you measure the DRAM throughput against the peak?","layer":"data movement","flags":["challenges_bound"],"gain":1.2,"count":2}
J
	"$KTRAJ" import "$d/run.jsonl" >/dev/null
	r=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	run "$KTRAJ" questions suggest "$r" --library "$d/lib.jsonl" --json
	[ "$status" -eq 0 ]
	python3 - "$output" <<'PY'
import json, sys
rows = [json.loads(l) for l in sys.argv[1].splitlines() if l.strip()]
texts = [r["text"] for r in rows]
assert rows and all(r["stuck_layer"] == "data movement" for r in rows), rows
# the stall's claimed bound is challenged first, then the other layers
assert texts[0].startswith("Is the kernel really memory-bound"), texts
assert texts[1].startswith("Why are bias"), texts
assert texts[2].startswith("Are the global loads"), texts
# never instructions, requests about nothing, or more of the same layer
assert not any(t.startswith(("Can you also add", "Make sure", "Please use", "How many bytes")) for t in texts), texts
assert [r["rank"] for r in rows] == sorted((r["rank"] for r in rows), reverse=True)
PY
}

@test "blame/stalls: each workload is its own series (no jump from one problem to the next)" {
	D="$BATS_TEST_DIRNAME/../data/analyze"
	"$KTRAJ" import "$D/two_workloads.jsonl" "$D/one_each.jsonl" >/dev/null
	# 8_ResNetBasicBlock stays at 0.40, 9_ResNet18 starts at 0.95 and
	# doubles: the only jump is the doubling, inside 9_ResNet18
	blame_json two_workloads '
assert len(jumps) == 1, jumps
assert jumps[0]["workload"] == "9_ResNet18" and abs(jumps[0]["before"] - 0.95) < 0.01 and abs(jumps[0]["gain"] - 2) < 0.05, jumps
assert sorted(r["workload"] for r in sums) == ["8_ResNetBasicBlock", "9_ResNet18"], sums
assert {r["workload"]: r["measurements"] for r in sums} == {"8_ResNetBasicBlock": 5, "9_ResNet18": 6}, sums'
	run "$KTRAJ" blame speedup two_workloads
	[ "$status" -eq 0 ]
	[[ "$output" == *"JUMP 1 [9_ResNet18]  step 4 (seq 10) over the best so far, step 3 (seq 9)"* ]]
	[[ "$output" != *"JUMP 2"* ]]
	run "$KTRAJ" stalls two_workloads --json
	[ "$status" -eq 0 ]
	python3 - "$output" <<'PY'
import json, sys
rows = [json.loads(l) for l in sys.argv[1].splitlines() if l.strip()]
assert [(r["workload"], r["length"]) for r in rows if "stall" in r] == [("8_ResNetBasicBlock", 5)], rows
# one summary per workload, stall or not
assert [(r["workload"], r["stalled"]) for r in rows if "summary" in r] == [("8_ResNetBasicBlock", True), ("9_ResNet18", False)], rows
PY
	# one measurement per workload: nothing to compare, no jump, no stall
	run "$KTRAJ" blame speedup one_each --json
	[ "$status" -eq 0 ]
	! grep -q '"gain"' <<<"$output" || false
	[ "$(grep -c '"summary"' <<<"$output")" -eq 6 ]
	run "$KTRAJ" blame speedup one_each
	[[ "$output" == *"no significant jump within any series"* ]]
	run "$KTRAJ" stalls one_each --json
	[ "$status" -eq 0 ]
	! grep -q '"stall":' <<<"$output" || false
	[ "$(grep -c '"summary":"stalls".*"stalled":false' <<<"$output")" -eq 6 ]
}

@test "blame/stalls: KernelBench results runs are per problem (corpus)" {
	[ -d "${CORPUS:-}/gpu_kernel/kernelbench" ] || skip "no corpus"
	"$KTRAJ" import "$CORPUS/gpu_kernel/kernelbench/best_k_kernels_level3.json" \
		"$CORPUS/gpu_kernel/kernelbench/baseline_time_torch_H100_Modal.json" >/dev/null
	run "$KTRAJ" blame speedup best_k_kernels_level3 --json
	[ "$status" -eq 0 ]
	python3 - "$output" <<'PY'
import json, sys
rows = [json.loads(l) for l in sys.argv[1].splitlines() if l.strip()]
assert all("workload" in r for r in rows), rows[:2]
assert len({r["workload"] for r in rows if "summary" in r}) > 1
PY
	run "$KTRAJ" stalls baseline_time_torch_H100_Modal --json
	[ "$status" -eq 0 ]
	! grep -q '"stall":' <<<"$output" || false
	! grep -q '"stalled":true' <<<"$output" || false
	run "$KTRAJ" blame speedup baseline_time_torch_H100_Modal --json
	! grep -q '"gain"' <<<"$output" || false
}

@test "questions mine: a run named twice (id, prefix, name) is mined once" {
	plant "$BATS_TEST_TMPDIR/p" --runs 1 --seed 16
	r=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	"$KTRAJ" questions mine "$r" --json >"$BATS_TEST_TMPDIR/one"
	[ -s "$BATS_TEST_TMPDIR/one" ]
	"$KTRAJ" questions mine "$r" "${r:0:12}" plant-jump-16-0000 "$r" --json >"$BATS_TEST_TMPDIR/many"
	cmp "$BATS_TEST_TMPDIR/one" "$BATS_TEST_TMPDIR/many"
	python3 - "$BATS_TEST_TMPDIR/many" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    src = [(s["run"], s["seq"]) for s in r["sources"]]
    assert len(src) == len(set(src)) and r["runs"] == 1, r
PY
}

@test "questions suggest --library: anything but a question library is refused" {
	plant "$BATS_TEST_TMPDIR/p" --runs 1 --seed 14 --pure
	d=$BATS_TEST_TMPDIR
	printf 'hello world\n' >"$d/garbage"
	: >"$d/empty"
	printf '\n  \n' >"$d/blank"
	head -c 300 "$KTRAJ" >"$d/binary"
	printf '{"text":"Is it memory-bound?"}\n[1,2]\n' >"$d/array"
	printf '{"layer":"algorithm"}\n' >"$d/notext"
	for f in garbage empty blank binary array notext; do
		run "$KTRAJ" questions suggest plant-noise-14-0000 --library "$d/$f"
		[ "$status" -ne 0 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "${lines[0]}" == "ktraj: questions: $d/$f: not a question library ("*")" ]]
	done
	# a real library is still read
	printf '{"text":"Is the kernel really memory-bound, did you measure the DRAM throughput against the peak?","layer":"data movement","flags":["challenges_bound"],"gain":1.2,"count":2}\n' >"$d/ok.jsonl"
	run "$KTRAJ" questions suggest plant-noise-14-0000 --library "$d/ok.jsonl"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Is the kernel really memory-bound"* ]]
}

@test "blame: excluded bench results are counted by reason" {
	"$KTRAJ" import "$BATS_TEST_DIRNAME/../data/analyze/excluded.jsonl" >/dev/null
	# 3 correct with times; 1 correct:false, 2 without a verdict (one
	# null, one absent) while others say correct, 1 that timed out (status
	# "timeout": it failed to run, whatever its correct says)
	run "$KTRAJ" blame speedup excluded
	[ "$status" -eq 0 ]
	[[ "$output" == *"measurements: 3 from 7 bench results: 3 correct, 0 not checked; 4 excluded: 1 incorrect, 2 not checked (others say correct), 1 failed to run"* ]]
	blame_json excluded 'r = rows[-1]; assert r["measurements"] == 3 and r["excluded"] == 4, r'
}

# wl_jumps.jsonl: workload A_softmax (0.40, a human question, an edit, 0.80)
# then B_reduce: a human question about B right before its first result
# (1.00), a stall, an agent plan, an edit, 2.00.  Read as one series, B's
# start is a x1.23 "jump" right after that question.  Each result names its
# candidate: the stalls' results are attempts at distinct code, not re-runs
# of one (those are repeats, and repeats make no stall).
@test "questions mine/suggest: gains only from jumps within one workload" {
	"$KTRAJ" import "$BATS_TEST_DIRNAME/../data/analyze/wl_jumps.jsonl" >/dev/null
	run "$KTRAJ" questions mine wl_jumps --json
	[ "$status" -eq 0 ]
	python3 - "$output" <<'PY'
import json, sys
rows = [json.loads(l) for l in sys.argv[1].splitlines() if l.strip()]
a = [r for r in rows if r["text"].startswith("Are the global loads")][0]
b = [r for r in rows if r["text"].startswith("Why is the reduction")][0]
# the question before A's real jump (x1.95) gets its gain
assert a["hits"] == 1 and a["gain_log_total"] > 0.4, a
# the question before B's first result gets nothing: B starting above A
# is no improvement
assert b["hits"] == 0 and b["gain_log_total"] == 0, b
# and no gain: the shrinkage toward the mean credited it with A's jump
assert b["gain"] == 1 and b["score"] == 0, b
PY
	run "$KTRAJ" questions mine wl_jumps
	[ "$status" -eq 0 ]
	[[ "$output" == *$'\n  2. [operator boundary, moves layer]      -  n=1 runs=1 hits=0  Why is the reduction'* ]]
	# suggest, mining the store: the same library gains
	run "$KTRAJ" questions suggest wl_jumps --json -n 10
	[ "$status" -eq 0 ]
	python3 - "$output" <<'PY'
import json, sys
rows = [json.loads(l) for l in sys.argv[1].splitlines() if l.strip()]
assert rows and all(r["stuck_workload"] == "B_reduce" for r in rows), rows
for r in rows:
    if r["text"].startswith("Why is the reduction"):
        assert r["gain"] == 1, r  # no gain of its own, none shrunk in
PY
	run "$KTRAJ" questions suggest wl_jumps
	[ "$status" -eq 0 ]
	# the last stall is B's own (steps 1..5 of B_reduce), not a stretch
	# across both problems
	[[ "$output" == *"stuck: stall of 5 measurements (steps 1..5 of workload B_reduce)"* ]]
}

@test "stalls: 'ended by jump N' is jump N of that workload in blame" {
	"$KTRAJ" import "$BATS_TEST_DIRNAME/../data/analyze/wl_jumps.jsonl" >/dev/null
	"$KTRAJ" blame speedup wl_jumps --json >"$BATS_TEST_TMPDIR/b.json"
	"$KTRAJ" stalls wl_jumps --json >"$BATS_TEST_TMPDIR/s.json"
	python3 - "$BATS_TEST_TMPDIR/b.json" "$BATS_TEST_TMPDIR/s.json" <<'PY'
import json, sys
jumps = [json.loads(l) for l in open(sys.argv[1]) if '"gain"' in l]
stalls = [json.loads(l) for l in open(sys.argv[2]) if '"stall":' in l]
assert [(j["workload"], j["jump"]) for j in jumps] == [("A_softmax", 1), ("B_reduce", 1)], jumps
assert len(stalls) == 2, stalls
for s in stalls:
    j = [j for j in jumps if j["workload"] == s["workload"] and j["jump"] == s["ended_by_jump"]]
    # the jump that ended it starts where the stall ends
    assert len(j) == 1 and j[0]["from_step"] == s["to_step"], (s, jumps)
PY
	run "$KTRAJ" blame speedup wl_jumps
	[[ "$output" == *"JUMP 1 [B_reduce]  step 6 (seq 24) over the best so far, step 5 (seq 20)"* ]]
	[[ "$output" != *"JUMP 2"* ]]
	run "$KTRAJ" stalls wl_jumps
	[[ "$output" == *"STALL 1 [B_reduce]  steps 1..5"* ]]
	[[ "$output" == *"ended by jump 1 [B_reduce]"* ]]
	# B's stall is about B: the agent's words on fusing B's kernels, not A's
	# float4 loads
	python3 -c '
import json, sys
s = [x for x in map(json.loads, open(sys.argv[1])) if "stall" in x]
assert [x["layer"] for x in s if x["workload"] == "B_reduce"] == ["operator boundary"], s' "$BATS_TEST_TMPDIR/s.json"
}

@test "blame, stalls --json: excluded bench results by reason" {
	"$KTRAJ" import "$BATS_TEST_DIRNAME/../data/analyze/excluded.jsonl" \
		"$BATS_TEST_DIRNAME/../data/analyze/wl_jumps.jsonl" >/dev/null
	blame_json excluded '
r = rows[-1]
assert r["excluded"] == 4, r
assert r["excluded_by_reason"] == {"incorrect": 1, "correctness_unknown": 2, "without_time": 0, "failed_to_run": 1}, r'
	run "$KTRAJ" stalls excluded --json --patience 3
	[ "$status" -eq 0 ]
	python3 -c '
import json, sys
rows = [r for r in map(json.loads, sys.argv[1].splitlines()) if "stall" in r]
# one stall over the whole run: every left-out result is in it
assert len(rows) == 1 and rows[0]["excluded"] == 4, rows
assert rows[0]["excluded_by_reason"] == {"incorrect": 1, "correctness_unknown": 2, "without_time": 0, "failed_to_run": 1}, rows' "$output"
	# per workload: A left out an incorrect result, B one without a verdict
	blame_json wl_jumps '
s = {r["workload"]: r["excluded_by_reason"] for r in sums}
assert s == {"A_softmax": {"incorrect": 1, "correctness_unknown": 0, "without_time": 0},
             "B_reduce": {"incorrect": 0, "correctness_unknown": 1, "without_time": 0}}, s'
	run "$KTRAJ" stalls wl_jumps --json
	python3 -c '
import json, sys
s = {r["workload"]: r["excluded_by_reason"] for r in map(json.loads, sys.argv[1].splitlines()) if "stall" in r}
assert s["A_softmax"]["incorrect"] == 1 and s["B_reduce"]["correctness_unknown"] == 1, s' "$output"
	run "$KTRAJ" stalls wl_jumps
	[[ "$output" == *"bench results left out there: 1 incorrect"* ]]
}

@test "report: a run of several workloads has one section, chart and jump table per workload" {
	"$KTRAJ" import "$BATS_TEST_DIRNAME/../data/analyze/wl_jumps.jsonl" \
		"$BATS_TEST_DIRNAME/../data/analyze/excluded.jsonl" >/dev/null
	run "$KTRAJ" report wl_jumps -o "$BATS_TEST_TMPDIR/r.html"
	[ "$status" -eq 0 ]
	[[ "$output" == *"(2 workloads, 2 jumps, 2 stalls, 26 events)"* ]]
	python3 - "$BATS_TEST_TMPDIR/r.html" "$BATS_TEST_DIRNAME/../data/analyze/wl_jumps.jsonl" <<'PY'
import json, re, sys
h = open(sys.argv[1]).read()
ev = [json.loads(l) for l in open(sys.argv[2])]
bench = {wl: {e["seq"] for e in ev if e["kind"] == "bench" and e["payload"]["workload"] == wl}
         for wl in ("A_softmax", "B_reduce")}
assert len(re.findall(r"<svg", h)) == 2, "one chart per workload"
# every event keeps its anchor, ids are unique
ids = re.findall(r'id="([^"]+)"', h)
assert len(ids) == len(set(ids)), "duplicate ids"
assert {"e%d" % e["seq"] for e in ev} <= set(ids)
secs = re.split(r'<section id="w\d+">', h)[1:]
assert len(secs) == 2, len(secs)
for i, (sec, wl) in enumerate(zip(secs, ("A_softmax", "B_reduce"))):
    sec = sec[:sec.index("</section>")]
    assert "Workload %d: %s</h2>" % (i + 1, wl) in sec
    # the chart of a workload (side by side with the others, before the
    # sections) holds only that workload's results
    fig = re.search(r'<figure class="series" id="w%d-chart">.*?</figure>' % (i + 1), h, re.S).group(0)
    assert wl in fig
    pts = {int(x) for x in re.findall(r'<circle[^>]*><title>step \d+ \(#(\d+)\)', fig)}
    assert pts and pts <= bench[wl], (wl, pts)
    # one jump, x1.95 / x1.96; never B's start over A's best (x1.23)
    gains = [float(g) for g in re.findall(r'<td>x([0-9.]+)</td>', sec)]
    assert len(gains) == 1 and 1.9 < gains[0] < 2.0, (wl, gains)
    assert 'id="w%d-jump1"' % (i + 1) in sec and 'href="#w%d-jump1">jump J1' % (i + 1) in sec
    assert re.search(r'url\(#w%d-arr[qa]\)' % (i + 1), fig)
# the results left out, by reason, per workload and in all
assert "2 bench results excluded: 1 incorrect, 1 not checked (others say correct)" in h
assert "1 bench result excluded: 1 incorrect" in secs[0]
assert "1 bench result excluded: 1 not checked" in secs[1]
PY
	# a run of one workload: one chart, anchors as before, reasons listed
	run "$KTRAJ" report excluded -o "$BATS_TEST_TMPDIR/x.html" --patience 3
	[ "$status" -eq 0 ]
	[ "$(grep -c '<svg' "$BATS_TEST_TMPDIR/x.html")" -eq 1 ]
	! grep -q '<section' "$BATS_TEST_TMPDIR/x.html" || false
	grep -q 'id="stall1"' "$BATS_TEST_TMPDIR/x.html"
	grep -q '4 bench results excluded: 1 incorrect, 2 not checked (others say correct), 1 failed to run' "$BATS_TEST_TMPDIR/x.html"
}

@test "blame, stalls, report: an excluded result is named by what it lacks, in the same words" {
	# a series of speedups (reference times): seq 4 has a time but no
	# speedup or reference time, seq 5 no time at all, seq 6 failed to run
	f="$BATS_TEST_TMPDIR/lacks.jsonl"
	python3 - "$f" <<'PY'
import json, sys
ev = [("message", {"role": "user", "human": True, "text": "Make it faster."})]
for p in ({"time_ms": 2.0, "ref_time_ms": 1.0, "correct": True},
          {"time_ms": 1.98, "ref_time_ms": 1.0, "correct": True},
          {"time_ms": 1.9, "correct": True},
          {"time_ms": None, "correct": True},
          {"time_ms": None, "correct": None, "status": "RUNTIME_ERROR"},
          {"time_ms": 1.97, "ref_time_ms": 1.0, "correct": True}):
    ev.append(("bench", dict(p, workload="gemm")))
with open(sys.argv[1], "w") as o:
    for i, (k, p) in enumerate(ev, 1):
        o.write(json.dumps({"seq": i, "kind": k, "actor": "tool", "payload": p,
                            "ts": 1700000000000000000 + i * 60000000000}) + "\n")
PY
	R=$("$KTRAJ" import --json "$f" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	want="3 excluded: 1 failed to run, 1 without a time, 1 without a speedup or reference time"
	run "$KTRAJ" blame speedup "$R"
	[ "$status" -eq 0 ]
	[[ "$output" == *"$want"* ]]
	[[ "$output" != *"3 without a time"* ]]
	blame_json "$R" '
r = rows[-1]
assert r["excluded_by_reason"] == {"incorrect": 0, "correctness_unknown": 0, "without_time": 1,
    "without_reference": 1, "failed_to_run": 1}, r'
	run "$KTRAJ" stalls "$R" --patience 2
	[ "$status" -eq 0 ]
	[[ "$output" == *"bench results left out there: 1 failed to run, 1 without a time, 1 without a speedup or reference time"* ]]
	run "$KTRAJ" report "$R" -o "$BATS_TEST_TMPDIR/l.html"
	[ "$status" -eq 0 ]
	grep -q "3 bench results excluded: 1 failed to run, 1 without a time, 1 without a speedup or reference time" "$BATS_TEST_TMPDIR/l.html"
}

@test "report: KernelBench results are reported per problem (corpus)" {
	[ -d "${CORPUS:-}/gpu_kernel/kernelbench" ] || skip "no corpus"
	"$KTRAJ" import "$CORPUS/gpu_kernel/kernelbench/best_k_kernels_level3.json" >/dev/null
	"$KTRAJ" blame speedup best_k_kernels_level3 --json >"$BATS_TEST_TMPDIR/b.json"
	"$KTRAJ" stalls best_k_kernels_level3 --json >"$BATS_TEST_TMPDIR/s.json"
	run "$KTRAJ" report best_k_kernels_level3 -o "$BATS_TEST_TMPDIR/r.html"
	[ "$status" -eq 0 ]
	python3 - "$BATS_TEST_TMPDIR/r.html" "$BATS_TEST_TMPDIR/b.json" "$BATS_TEST_TMPDIR/s.json" <<'PY'
import html, json, re, sys
h = open(sys.argv[1]).read()
rows = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
summ = [r for r in rows if "summary" in r]
stalls = [json.loads(l) for l in open(sys.argv[3]) if '"stall":' in l]
charted = [r["workload"] for r in summ if r["measurements"] >= 2]
assert len(summ) > 10 and len(charted) > 5
# a section and a chart for each workload of two or more results, in order
names = [html.unescape(n) for n in re.findall(r'<h2>Workload \d+: ([^<]*)</h2>', h)]
assert names == charted, (names, charted)
# a results table nothing orders in time is a table, not a chart over steps
ordered = [r["workload"] for r in summ if r["measurements"] >= 2 and r["ordered"]]
assert len(re.findall(r"<svg", h)) == len(ordered)
assert len(re.findall(r'<table class="unordered">', h)) == len(charted) - len(ordered)
# the index lists every workload; jumps and stalls as blame and stalls count them
assert len(re.findall(r'<tr id="w\d+-row">', h)) == len(summ)
assert len(re.findall(r'<tr id="w\d+-jump\d+">', h)) == sum(r["jumps"] for r in summ)
assert len(re.findall(r'<p id="w\d+-stall\d+">', h)) == len(stalls)
PY
}

