#!/usr/bin/env bats
# Issue 15, the import side: what a benchmark command's output says about
# its own rows (FORMAT.md section 14 "Baselines and competitors in free
# text", "Failed to run") and where a bench result came from.  Fixtures are
# Claude Code sessions written by tests/data/readings/mk_claude.py; the
# corpus cases quote the raw lines of
# ../shared/corpus/claude_code/vsla_cuda_dev_f67ab274.jsonl.

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	MK="$BATS_TEST_DIRNAME/../data/readings/mk_claude.py"
	CORPUS="${CORPUS:-$BATS_TEST_DIRNAME/../../../shared/corpus}"
	T=$BATS_TEST_TMPDIR
}

# imp FILE: import it and set R to its run id
imp() {
	R=$("$KTRAJ" import --json "$1" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
}

# rows RUN: "seq time_ms ref_time_ms baseline status scenario" per bench
rows() {
	"$KTRAJ" log "$1" --kind bench --json | python3 -c '
import json, sys
for l in sys.stdin:
    d = json.loads(l)
    print(d["seq"], d.get("time_ms"), d.get("ref_time_ms"), d.get("baseline"),
          d.get("status"), d.get("scenario"))'
}

@test "compared methods: the manual/naive method beside the measured one is its baseline, above or below" {
	cat >"$T/o1" <<'OUT'
[
{"benchmark": "conv", "method": "fast_auto", "n": 128, "results": {"mean_time_us": 20.0}},
{"benchmark": "conv", "method": "manual_padding", "n": 128, "results": {"mean_time_us": 14.0}},
{"benchmark": "conv", "method": "naive_loop", "n": 256, "results": {"mean_time_us": 60.0}},
{"benchmark": "conv", "method": "fast_auto", "n": 256, "results": {"mean_time_us": 30.0}},
{"benchmark": "conv", "method": "naive", "n": 512, "results": {"mean_time_us": 90.0}}
]
OUT
	python3 "$MK" "$T/s.jsonl" ./bench_cmp "$T/o1"
	imp "$T/s.jsonl"
	run rows "$R"
	echo "$output"
	# the agent's method at 128 (baseline below) and 256 (baseline above)
	[[ "$output" == *" 0.02 0.014 manual None benchmark=conv method=fast_auto n=128"* ]]
	[[ "$output" == *" 0.03 0.06 naive None benchmark=conv method=fast_auto n=256"* ]]
	[[ "$output" != *"manual_padding"* && "$output" != *"naive_loop"* ]]
	# a naive method compared with nothing may be the agent's own attempt
	[[ "$output" == *" 0.09 None None None benchmark=conv method=naive n=512"* ]]
	[ "${#lines[@]}" -eq 3 ]
}

@test "failed to run: a row, a block or a JSON result whose output says not implemented / error is no time" {
	cat >"$T/o2" <<'OUT'
vector_add:
  Size 64... 4.9us
  Size 128... 4.7us

convolution:
  Error: vsla_gpu_conv_fft returned VSLA_ERROR_NOT_IMPLEMENTED
  Size 64... 0.3us
  Size 128... 0.3us

gemm: 12.5 us
gelu: 2.5 us (unsupported dtype)
layernorm: 3.1 us
max error: 1e-05
{"method": "gpu_conv", "mean_time_us": 0.31, "status": "NOT_IMPLEMENTED"}
{"method": "gpu_conv2", "mean_time_us": 0.32, "error": "kernel launch failed"}
{"method": "gpu_conv3", "mean_time_us": 9.5, "error": 0.0001}
OUT
	python3 "$MK" "$T/s.jsonl" ./bench_all "$T/o2"
	imp "$T/s.jsonl"
	run rows "$R"
	echo "$output"
	[ "$(grep -c ' None None None runtime_error ' <<<"$output")" -eq 5 ]
	[[ "$output" == *"0.0049 None None None vector_add / Size 64"* ]]
	[[ "$output" == *"None None None runtime_error convolution / Size 64"* ]]
	[[ "$output" == *"None None None runtime_error convolution / Size 128"* ]]
	[[ "$output" == *"0.0125 None None None "*"gemm"* ]]
	[[ "$output" == *"0.0031 None None None "*"layernorm"* ]]
	[[ "$output" == *"None None None runtime_error method=gpu_conv"* ]]
	[[ "$output" == *"None None None runtime_error method=gpu_conv2"* ]]
	# a number under "error" is a numeric error, not a failure
	[[ "$output" == *"0.0095 None None None method=gpu_conv3"* ]]
	# the reason and the printed time are kept; log says it
	run "$KTRAJ" log "$R" --kind bench --json
	python3 -c '
import json, sys
f = [json.loads(l) for l in sys.argv[1].splitlines()]
f = [d for d in f if d.get("status") == "runtime_error"]
assert f[0]["correct"] is None and f[0]["time_ms"] is None, f[0]
' "$output"
	run "$KTRAJ" show "$R" "$(rows "$R" | awk '/Size 64/ && /runtime_error/ {print $1}')"
	[[ "$output" == *"reason: Error: vsla_gpu_conv_fft returned VSLA_ERROR_NOT_IMPLEMENTED"* ]]
	[[ "$output" == *'"printed_time_ms":0.0003'* ]]
	run "$KTRAJ" log "$R" --kind bench
	[[ "$output" == *"failed to run: status: NOT_IMPLEMENTED (method=gpu_conv)"* ]]
	# blame leaves them out as failed to run
	run "$KTRAJ" blame speedup "$R"
	[[ "$output" == *"5 excluded: 5 failed to run"* ]]
}

@test "a bench result read from a command's output points at that output's raw line" {
	printf 'kernel: 1.5 ms\n' >"$T/o3"
	printf 'hello\n' >"$T/o4"
	python3 "$MK" "$T/s.jsonl" ./hello "$T/o4" ./bench "$T/o3"
	imp "$T/s.jsonl"
	seq=$(rows "$R" | awk '{print $1}')
	[ -n "$seq" ]
	run "$KTRAJ" show "$R" "$seq"
	# line 5: the second call's tool_result (mk_claude.py: 2k+1)
	[[ "$output" == *'"line":5,'* ]]
	[[ "$output" != *'"line":0,'* ]]
}

@test "corpus vsla_cuda_dev raw 201: bench_comparison's manual_padding rows are the baseline of vsla_automatic's" {
	f=$CORPUS/claude_code/vsla_cuda_dev_f67ab274.jsonl
	[ -e "$f" ] || skip "corpus absent"
	# raw 201 prints per size "method": "vsla_automatic" then "method":
	# "manual_padding" (bench/src/bench_comparison.c, raw 240: "Benchmark
	# manual padding approach (TensorFlow/PyTorch equivalent)"); 128/16:
	# 20.233 us and 14.008 us, 512/64: 63.440 us and 143.660 us
	sed -n 201p "$f" | grep -q '\\"method\\": \\"manual_padding\\"'
	"$KTRAJ" import "$f" >/dev/null
	R=$("$KTRAJ" ls | awk 'NR==2{print $1}')
	run "$KTRAJ" log "$R" --kind bench --json
	[ "$status" -eq 0 ]
	python3 -c '
import json, sys
b = [json.loads(l) for l in sys.argv[1].splitlines()]
cmp = [d for d in b if (d.get("workload") or "") == "bench_comparison"]
assert len(cmp) == 9, len(cmp)
assert not [d for d in b if "manual_padding" in (d.get("scenario") or "")]
one = [d for d in cmp if d["scenario"].endswith("signal_size=128 kernel_size=16")][0]
assert abs(one["time_ms"] - 0.020233) < 1e-9 and abs(one["ref_time_ms"] - 0.014008) < 1e-9, one
assert one["baseline"] == "manual", one
big = [d for d in cmp if d["scenario"].endswith("signal_size=512 kernel_size=64")][0]
assert abs(big["ref_time_ms"] - 0.14366) < 1e-9, big
' "$output"
}

@test "corpus vsla_cuda_dev: every bench result carries its tool_result's raw line" {
	f=$CORPUS/claude_code/vsla_cuda_dev_f67ab274.jsonl
	[ -e "$f" ] || skip "corpus absent"
	"$KTRAJ" import "$f" >/dev/null
	R=$("$KTRAJ" ls | awk 'NR==2{print $1}')
	seqs=$("$KTRAJ" log "$R" --kind bench --json | python3 -c '
import json, sys
print(" ".join(str(json.loads(l)["seq"]) for l in sys.stdin))')
	[ -n "$seqs" ]
	for s in $seqs; do
		p=$("$KTRAJ" show "$R" "$s" | awk '$1=="prov"{print $2}')
		[[ "$p" != *'"line":0,'* ]] || { echo "seq $s: $p"; false; }
	done
	# bench_comparison's results are from raw line 201, the Read of
	# bench_convolution_1752697747.json from raw line 193
	first=$("$KTRAJ" log "$R" --kind bench --json | python3 -c '
import json, sys
print([json.loads(l)["seq"] for l in sys.stdin if "bench_comparison\"" in l][0])')
	run "$KTRAJ" show "$R" "$first"
	[[ "$output" == *'"line":201,'* ]]
	run "$KTRAJ" show "$R" "${seqs%% *}"
	[[ "$output" == *'"line":193,'* ]]
}

@test "a Read of a results file is a measurement report, counted once" {
	# Claude Code's Read listing: "     N→" before each line of the file
	python3 - "$T/res" <<'PY'
import sys
body = '[\n{"method": "k_tiled", "n": 1024, "mean_time_us": 41.5},\n{"method": "k_tiled", "n": 2048, "mean_time_us": 160.2}\n]\n'
open(sys.argv[1], "w").write("".join("%6d\u2192%s\n" % (i + 1, l) for i, l in enumerate(body.splitlines())))
PY
	printf '| op | n | time (us) |\n|---|---|---|\n| mm | 512 | 326.56 |\n' >"$T/tab"
	printf '[{"op": "mm", "n": 512, "mean_time_us": 326.562}]\n' >"$T/same"
	sed 's/^/     1\xe2\x86\x92/' "$T/same" >"$T/same.lst"
	python3 "$MK" "$T/s.jsonl" "Read:/w/results/run1.json" "$T/res" \
		"Read:/w/results/run1.json" "$T/res" "Read:/w/bench.py" "$T/res" \
		./mm_bench "$T/tab" "Read:/w/results/mm.json" "$T/same.lst"
	imp "$T/s.jsonl"
	run rows "$R"
	echo "$output"
	# run1.json read twice: its 2 results once; bench.py is no results
	# file; mm.json repeats the table mm_bench printed (326.56 us)
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[0]}" == *" 0.0415 None None None method=k_tiled n=1024" ]]
	[[ "${lines[1]}" == *" 0.1602 None None None method=k_tiled n=2048" ]]
	[[ "${lines[2]}" == *" 0.32656 None None None "* ]]
	run "$KTRAJ" log "$R" --kind bench --json
	python3 -c '
import json, sys
b = [json.loads(l) for l in sys.argv[1].splitlines()]
assert [d["source"] for d in b[:2]] == ["/w/results/run1.json"] * 2, b
assert b[0]["workload"] == "run1.json" and b[0]["parent"] == 3, b[0]
' "$output"
}

@test "corpus vsla_cuda_dev raw 193 and 358: the Read results files are reports; raw 390 repeats raw 467's table" {
	f=$CORPUS/claude_code/vsla_cuda_dev_f67ab274.jsonl
	[ -e "$f" ] || skip "corpus absent"
	# raw 192/193: Read bench_convolution_1752697747.json, 12 objects
	# (vsla_fft / vsla_direct at 6 sizes; 64/8: 7.380 and 16.623 us);
	# raw 357/358: Read gpu_comparison/benchmark_results.json (vsla_fft
	# 64/8: 9.931 us); raw 389/390: comprehensive_results.json holds
	# "mean_time_us": 326.562 for the 512 matmul that raw 467's table
	# printed as 326.56
	sed -n 193p "$f" | grep -q 'mean_time_us\\": 7.380'
	sed -n 390p "$f" | grep -q '326.562'
	imp "$f"
	run "$KTRAJ" log "$R" --kind bench --json
	python3 -c '
import json, sys
b = [json.loads(l) for l in sys.argv[1].splitlines()]
by = {}
for d in b:
    by.setdefault(d.get("workload"), []).append(d)
c = by["bench_convolution_1752697747.json"]
assert len(c) == 12 and abs(c[0]["time_ms"] - 0.00738) < 1e-9, c[0]
assert c[0]["source"].endswith("bench_convolution_1752697747.json")
g = by["benchmark_results.json"]
assert len(g) == 6 and abs(g[0]["time_ms"] - 0.009931) < 1e-9, g[0]
assert "comprehensive_results.json" not in by, by.keys()
assert len([d for d in b if abs((d.get("time_ms") or 0) - 0.32656) < 1e-6]) == 1
' "$output"
}

@test "corpus KernelBench baseline_time_torch alone: 250 reference timings, no series, no jump or stall" {
	d=$CORPUS/gpu_kernel/kernelbench
	[ -e "$d/baseline_time_torch_H100_Modal.json" ] || skip "corpus absent"
	# {level: {problem_file: {mean, std, min, max, num_trials, hardware,
	# device}}}: eager PyTorch on an H100 (level1 1_Square_matrix_
	# multiplication_.py mean 2.66), the denominator of every speedup
	n=$(python3 -c 'import json,sys; print(sum(len(v) for v in json.load(open(sys.argv[1])).values()))' "$d/baseline_time_torch_H100_Modal.json")
	[ "$n" -eq 250 ]
	imp "$d/baseline_time_torch_H100_Modal.json"
	run "$KTRAJ" log "$R" --kind bench --json
	[ "$(grep -c '"status":"reference"' <<<"$output")" -eq 250 ]
	run "$KTRAJ" log "$R" --kind bench
	[[ "${lines[0]}" == *"time 2.66 ms reference timing (level1/1_Square_matrix_multiplication_)"* ]]
	run "$KTRAJ" blame speedup "$R"
	[ "$status" -eq 0 ]
	[[ "$output" == *"reference timings: 250 bench results time the reference itself (status \"reference\"), in no series; a reference-only run: no result of the agent's code"* ]]
	[[ "$output" != *"level1/"* ]]
	run "$KTRAJ" blame speedup "$R" --json
	python3 -c '
import json, sys
s = [json.loads(l) for l in sys.argv[1].splitlines()]
assert len(s) == 1 and s[0]["measurements"] == 0 and s[0]["reference_timings"] == 250, s
' "$output"
	run "$KTRAJ" stalls "$R"
	[ "$status" -eq 0 ]
	[[ "$output" == *"reference timings: 250"* && "$output" == *"no stall"* ]]
	[[ "$output" != *"level1/"* ]]
}

@test "corpus KernelBench best_k with its baseline beside it: the baseline is the results' reference time, still a reference-only run of its own" {
	d=$CORPUS/gpu_kernel/kernelbench
	[ -e "$d/best_k_kernels_level1_small.json" ] || skip "corpus absent"
	"$KTRAJ" import "$d" >/dev/null
	run "$KTRAJ" log best_k_kernels_level1_small --kind bench --json
	[ "$(grep -c '"ref_time_ms":2.66,' <<<"$output")" -eq 8 ]
	[ "$(grep -c '"status":"reference"' <<<"$output")" -eq 0 ]
	run "$KTRAJ" blame speedup baseline_time_torch_H100_Modal
	[[ "$output" == *"a reference-only run"* ]]
}
