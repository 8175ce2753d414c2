#!/usr/bin/env bats
# `ktraj bench` and ktraj-harness: task listing, argument errors, the spec
# reader, the static check, and the no-GPU path (compile recorded, clear
# failure).  Tests that need nvcc skip without it; the GPU suite
# (tests/harness/run_gpu.sh) skips with a message on machines without a GPU
# and runs on the H200 (results in harness/GPU_LOG.md).

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	H=$(dirname "$KTRAJ")/harness/ktraj-harness
	export KTRAJ_HARNESS_CACHE="$BATS_TEST_TMPDIR/cache"
}

need_harness() {
	[ -x "$H" ] || skip "ktraj-harness not built (no nvcc on this machine)"
}

has_gpu() {
	nvidia-smi -L >/dev/null 2>&1
}

@test "bench --list --json: the three tasks with counts and existing sample kernels" {
	run "$KTRAJ" bench --list --json
	[ "$status" -eq 0 ]
	echo "$output" >"$BATS_TEST_TMPDIR/l.json"
	python3 - "$BATS_TEST_TMPDIR/l.json" "$ROOT/kernels/tasks" <<'PY'
import json, os, sys
rows = {r["task"]: r for r in map(json.loads, open(sys.argv[1]))}
assert {"attention_fwd", "gemm", "rmsnorm"} <= set(rows), rows.keys()
for name, r in rows.items():
    spec = json.load(open(os.path.join(sys.argv[2], name + ".json")))
    assert r["scenarios"] == len(spec["scenarios"]), (name, r["scenarios"])
    assert r["kernels"] and all(os.path.isfile(k) and k.endswith(".cu") for k in r["kernels"]), r
a = rows["attention_fwd"]
assert a["scenarios"] >= 182 and len(a["kernels"]) >= 4, a
PY
}

@test "bench --list: text table and KTRAJ_KERNELS override" {
	run "$KTRAJ" bench --list
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == TASK* ]]
	[[ "$output" == *attention_fwd*189* ]]
	mkdir -p "$BATS_TEST_TMPDIR/k/tasks"
	printf '{"task":"mine","op":"rmsnorm","kernels":[],"scenarios":[{"rows":1,"cols":2}]}' \
		>"$BATS_TEST_TMPDIR/k/tasks/mine.json"
	KTRAJ_KERNELS="$BATS_TEST_TMPDIR/k" run "$KTRAJ" bench --list --json
	[ "$status" -eq 0 ]
	[[ "$output" == *'"task":"mine"'*'"scenarios":1'* ]]
	[[ "$output" != *attention_fwd* ]]
}

@test "attention_fwd spec: >= 182 unique scenarios covering the documented axes" {
	python3 - "$ROOT/kernels/tasks/attention_fwd.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["scenarios"]
names = [x["name"] for x in s]
assert len(s) >= 182 and len(set(names)) == len(names)
S = {x.get("Sq", x.get("S")) for x in s}
assert min(S) >= 512 and max(x.get("Sk", x.get("Sq", x.get("S"))) for x in s) >= 16384
assert any(v % 64 for v in S), "a length that is not a tile multiple"
assert {x["D"] for x in s} >= {64, 128, 256}
assert {x["dtype"] for x in s} == {"bf16", "fp16"}
assert {x["causal"] for x in s} == {True, False}
assert any(x["Hkv"] == 1 < x["Hq"] for x in s), "MQA"
assert any(1 < x["Hkv"] < x["Hq"] for x in s), "GQA"
assert all(x["Hq"] % x["Hkv"] == 0 and x.get("note") for x in s)
PY
}

@test "bench: usage errors and missing inputs fail with one clear line" {
	run "$KTRAJ" bench --task attention_fwd
	[ "$status" -eq 2 ]
	[[ "$output" == *"--task and --kernel are required"* ]]
	run "$KTRAJ" bench --task attention_fwd --kernel "$BATS_TEST_TMPDIR/none.cu"
	[ "$status" -eq 1 ]
	[[ "$output" == "ktraj: bench: "*none.cu* ]]
	echo '__global__ void k(){}' >"$BATS_TEST_TMPDIR/k.cu"
	run "$KTRAJ" bench --task no_such_task --kernel "$BATS_TEST_TMPDIR/k.cu"
	[ "$status" -eq 1 ]
	[[ "$output" == *"no task 'no_such_task'"* ]]
	run "$KTRAJ" bench --bogus
	[ "$status" -eq 2 ]
}

@test "ktraj-harness: spec errors name the line; scenario list and selection" {
	need_harness
	printf '{"task":"t","op":"gemm",\n"scenarios":[{"M":1,"N":2,"K":3}\n,]}' >"$BATS_TEST_TMPDIR/bad.json"
	run "$H" --task "$BATS_TEST_TMPDIR/bad.json" --kernel x.cu
	[ "$status" -eq 2 ]
	[[ "$output" == *"line 3"* ]]
	printf '{"task":"t","op":"attention_fwd","scenarios":[{"B":1,"Hq":3,"Hkv":2,"S":64,"D":64}]}' >"$BATS_TEST_TMPDIR/gqa.json"
	run "$H" --task "$BATS_TEST_TMPDIR/gqa.json" --kernel x.cu
	[ "$status" -eq 2 ]
	[[ "$output" == *"bad attention shape"* ]]
	run "$H" --task "$ROOT/kernels/tasks/attention_fwd.json" --list
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 189 ]
	run "$H" --task "$ROOT/kernels/tasks/attention_fwd.json" --kernel x.cu --scenarios 'no_such_*'
	[ "$status" -eq 2 ]
	[[ "$output" == *"matches nothing"* ]]
}

@test "ktraj-harness --baseline cudnn: no library or a non-attention task fails with one clear line" {
	need_harness
	run "$H" --task "$ROOT/kernels/tasks/attention_fwd.json" --kernel x.cu \
		--baseline cudnn --cudnn "$BATS_TEST_TMPDIR/none"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "ktraj-harness: --baseline cudnn: libcudnn.so.9 not found at $BATS_TEST_TMPDIR/none"* ]]
	KTRAJ_CUDNN="$BATS_TEST_TMPDIR/none" run "$H" --task "$ROOT/kernels/tasks/attention_fwd.json" \
		--kernel x.cu --baseline cudnn
	[ "$status" -eq 2 ]
	[[ "$output" == *"libcudnn.so.9 not found"* ]]
	run "$H" --task "$ROOT/kernels/tasks/gemm.json" --kernel x.cu --baseline cudnn
	[ "$status" -eq 2 ]
	[[ "$output" == *"only for attention_fwd tasks (gemm is not)"* ]]
	# a folder without the library, and a file that is no shared library,
	# are refused before anything is compiled (dlopen would refuse them only
	# in the child, on a GPU)
	mkdir -p "$BATS_TEST_TMPDIR/empty"
	run "$H" --task "$ROOT/kernels/tasks/attention_fwd.json" --kernel x.cu \
		--baseline cudnn --cudnn "$BATS_TEST_TMPDIR/empty"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"libcudnn.so.9 not found at $BATS_TEST_TMPDIR/empty ("* ]]
	echo 'not a library' >"$BATS_TEST_TMPDIR/text.so"
	run "$H" --task "$ROOT/kernels/tasks/attention_fwd.json" --kernel x.cu \
		--baseline cudnn --cudnn "$BATS_TEST_TMPDIR/text.so"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"$BATS_TEST_TMPDIR/text.so is not a shared library (no ELF header)" ]]
	KTRAJ_CUDNN="$BATS_TEST_TMPDIR/text.so" run "$H" --task "$ROOT/kernels/tasks/attention_fwd.json" \
		--kernel x.cu --baseline cudnn
	[ "$status" -eq 2 ]
	[[ "$output" == *"text.so (\$KTRAJ_CUDNN) is not a shared library"* ]]
	# a folder holding the library is accepted: the run goes on to compile x.cu
	mkdir -p "$BATS_TEST_TMPDIR/lib" && printf '\177ELF' >"$BATS_TEST_TMPDIR/lib/libcudnn.so.9"
	run "$H" --task "$ROOT/kernels/tasks/attention_fwd.json" --kernel "$BATS_TEST_TMPDIR/none.cu" \
		--baseline cudnn --cudnn "$BATS_TEST_TMPDIR/lib"
	[[ "$output" != *"libcudnn.so.9 not found"* ]]
	[[ "$output" != *"not a shared library"* ]]
}

@test "cudnn baseline: every descriptor of the attention graph finalizes against the real library" {
	NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
	[ -x "$NV" ] || skip "no nvcc"
	LIB=$(ls /usr/local/cuda/lib64/libcudnn.so.9 /usr/lib/x86_64-linux-gnu/libcudnn.so.9 2>/dev/null | head -1)
	[ -n "$LIB" ] || skip "no libcudnn.so.9 on this machine"
	"$NV" -x c -I"$ROOT/harness" "$ROOT/tests/harness/cudnn_graph_check.c" -o "$BATS_TEST_TMPDIR/gc" -ldl -lcudart
	# full: 14 tensors, 2 matmuls, 6 pointwise ops and 2 reductions (each op
	# with its own descriptor) and the graph = 35; causal adds 5 tensors and
	# 4 pointwise ops (row/column index, compare, select) = 48; causal with
	# Sq != Sk adds the bottom-right row shift (2 tensors, 1 op) = 52
	for shape in "2 4 2 128 128 64 0:35" "2 4 2 128 128 64 1:48" "2 4 2 128 256 64 1:52"; do
		run "$BATS_TEST_TMPDIR/gc" "$LIB" ${shape%:*}
		echo "$shape -> $output"
		[ "$status" -eq 0 ]
		[[ "$output" == "descriptors ${shape#*:} stop cudnn: graph handle"* ]]
	done
}

@test "bench --baseline cudnn --cudnn PATH reach the harness" {
	"$KTRAJ" init >/dev/null
	echo '__global__ void k(){} // candidate' >"$BATS_TEST_TMPDIR/cand.cu"
	export KTRAJ_HARNESS="$ROOT/tests/data/bench/fake_harness.sh" FAKE_ARGV="$BATS_TEST_TMPDIR/argv"
	run "$KTRAJ" bench --task attention_fwd --kernel "$BATS_TEST_TMPDIR/cand.cu" \
		--baseline cudnn --cudnn /opt/cudnn/lib
	[ "$status" -eq 1 ]
	tr '\n' ' ' <"$FAKE_ARGV" | grep -q -- '--baseline cudnn --cudnn /opt/cudnn/lib'
	run "$KTRAJ" bench --task attention_fwd --kernel "$BATS_TEST_TMPDIR/cand.cu" --cudnn
	[ "$status" -eq 2 ]
	[[ "$output" == *"--cudnn needs a value"* ]]
	# --cudnn without --baseline cudnn would be ignored: refused instead
	run "$KTRAJ" bench --task attention_fwd --kernel "$BATS_TEST_TMPDIR/cand.cu" --cudnn /opt/cudnn/lib
	[ "$status" -eq 2 ]
	[[ "$output" == *"--cudnn names the library of --baseline cudnn, which is not given"* ]]
	if [ -x "$H" ]; then
		run "$H" --task "$ROOT/kernels/tasks/attention_fwd.json" --kernel x.cu --cudnn /opt/cudnn/lib
		[ "$status" -eq 2 ]
		[[ "${lines[0]}" == "ktraj-harness: --cudnn names the library of --baseline cudnn, which is not given" ]]
	fi
}

@test "static check: library fallback and host threads are rejected before running" {
	need_harness
	command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || skip "no nvcc"
	for k in x14_library x02_host_thread; do
		run "$H" --task "$ROOT/tests/harness/exploit_task.json" --include "$ROOT/kernels/include" \
			--kernel "$ROOT/tests/harness/exploits/$k.cu" --compile-only
		[ "$status" -eq 0 ]
		echo "$output" | python3 -c '
import json, sys
c = [json.loads(l) for l in sys.stdin if l.startswith("{")][0]
assert c["exit_code"] == 0 and c["static_check"]["ok"] is False, c["static_check"]
assert any(s.startswith(("cublas", "pthread_create")) for s in c["static_check"]["forbidden"])'
	done
}

@test "bench without a GPU: compiles, records the compile, fails with 'no CUDA device'" {
	need_harness
	has_gpu && skip "a GPU is present (the GPU path is tested by the H200 suite)"
	"$KTRAJ" init >/dev/null
	run "$KTRAJ" bench --task rmsnorm --kernel "$ROOT/kernels/rmsnorm/01_rowwise.cu" --record nogpu
	[ "$status" -eq 1 ]
	[[ "$output" == *"no CUDA device"* ]]
	run "$KTRAJ" log nogpu --json
	[ "$status" -eq 0 ]
	echo "$output" | python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin]
assert [r["kind"] for r in rows] == ["compile"], rows
assert rows[0]["exit_code"] == 0 and rows[0]["actor"] == "harness"'
	run "$KTRAJ" show nogpu 1 --json
	[ "$status" -eq 0 ]
	[[ "$output" == *sm_90a* ]]
	[[ "$output" == *'"static_check":{"ok":true'* ]]
	[[ "$output" == *diagnostics_blob* ]]
}

@test "anti-gaming suite on the GPU (skipped without one)" {
	need_harness
	has_gpu || skip "no GPU: the anti-gaming suite runs on the H200 (tests/harness/run_gpu.sh, harness/GPU_LOG.md)"
	cd "$ROOT"
	run tests/harness/run_gpu.sh "$H" "$BATS_TEST_TMPDIR/anti"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "bench --record: compile and bench events with every number, blob, fingerprint (fake harness)" {
	"$KTRAJ" init >/dev/null
	echo '__global__ void k(){} // candidate' >"$BATS_TEST_TMPDIR/cand.cu"
	export KTRAJ_HARNESS="$ROOT/tests/data/bench/fake_harness.sh" FAKE_ARGV="$BATS_TEST_TMPDIR/argv"
	run "$KTRAJ" bench --task attention_fwd --kernel "$BATS_TEST_TMPDIR/cand.cu" \
		--scenarios 'grid_*,73' --record rec1 --json -- --budget-ms 400
	[ "$status" -eq 1 ]
	[[ "$output" == *"1 of 2 scenarios not ok"* ]]
	grep -qx -- '--scenarios' "$FAKE_ARGV"
	grep -qx -- 'grid_\*,73' "$FAKE_ARGV"
	grep -qx -- '--budget-ms' "$FAKE_ARGV"
	grep -q 'kernels/tasks/attention_fwd.json$' "$FAKE_ARGV"
	echo "$output" | grep '^{' >"$BATS_TEST_TMPDIR/rows.json"
	run "$KTRAJ" log rec1 --json
	[ "$status" -eq 0 ]
	echo "$output" >"$BATS_TEST_TMPDIR/log.json"
	run "$KTRAJ" show rec1 2 --json
	[ "$status" -eq 0 ]
	echo "$output" >"$BATS_TEST_TMPDIR/ev2.json"
	python3 - "$BATS_TEST_TMPDIR" <<'PY'
import json, sys, os
d = sys.argv[1]
rows = [json.loads(l) for l in open(os.path.join(d, "rows.json"))]
assert [r["scenario"] for r in rows] == ["grid_s1024_d128_full_bf16", "ragged_s1000_d64_causal_bf16"]
assert rows[0]["correct"] is True and rows[0]["time_ms"] == 0.5 and rows[0]["speedup"] == 8.0
assert rows[1]["correct"] is False and rows[1]["time_ms"] is None
assert all(r["fingerprint"]["gpu"] == "NVIDIA H200" and r["seq"] for r in rows)
log = [json.loads(l) for l in open(os.path.join(d, "log.json"))]
assert [r["kind"] for r in log] == ["compile", "bench", "bench"], log
assert log[0]["exit_code"] == 0
assert log[1]["correct"] is True and log[1]["time_ms"] == 0.5 and log[1]["speedup"] == 8.0
assert log[2]["correct"] is False
assert log[1]["parent"] == 1 and log[2]["parent"] == 1
ev = json.load(open(os.path.join(d, "ev2.json")))
p = ev["payload"]
assert ev["actor"] == "harness"
assert p["workload"] == "attention_fwd" and p["scenario"] == "grid_s1024_d128_full_bf16"
assert len(p["candidate_blob"]) == 64 and p["speedup_ci"] == [8.0 * 0.99, 8.0 * 1.01]
assert p["fingerprint"]["uuid"].startswith("GPU-") and p["n"] == 120 and p["ref_time_ms"] == 4.0
assert p["error"]["rel_l2"] == 0.002
h = p["harness"]
assert h["task"] == "attention_fwd" and "workspace/candidate.cu" in h["bundle_command"]
assert "--scenarios 'grid_s1024_d128_full_bf16'" in h["bundle_command"]
PY
	# the candidate source is the blob the bench event names
	run "$KTRAJ" show rec1 1 --json
	[[ "$output" == *'"diagnostics_blob":"'* ]]
	# recording again appends to the same run (identity bench:rec1)
	run "$KTRAJ" bench --task attention_fwd --kernel "$BATS_TEST_TMPDIR/cand.cu" --record rec1
	[ "$status" -eq 1 ]
	run "$KTRAJ" log rec1 --json
	[ "${#lines[@]}" -eq 6 ]
	run "$KTRAJ" verify
	[ "$status" -eq 0 ]
}
