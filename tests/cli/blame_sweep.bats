#!/usr/bin/env bats
# Sweeps (FORMAT.md "Measurement model"): one solution measured over many
# shapes is one sweep - summarized by its geomean and compared shape by
# shape with the best sweep before it - never a time series: no stall is
# read over the shapes of one sweep.  A made-up round log (import --map,
# scenario = the shape) and the corpus FlashInfer trace (skipped without
# $CORPUS).

bats_require_minimum_version 1.5.0

CORPUS="${CORPUS:-$BATS_TEST_DIRNAME/../../../shared/corpus}"
FI="$CORPUS/gpu_kernel/flashinfer_trace/traces_gpt-5_gemm_n128_k2048.jsonl"

setup() {
	load lib/fixture_run
	fixture_store
	D="$BATS_TEST_TMPDIR"
}

# Two attempts, each timed on 4 shapes against a reference.  Speedups
# (ref / ms): attempt 1: 2, 1, 0.5, 0.5; attempt 2: 4, 2, 1, 0.5.
# geomean 1 = (2 x 1 x 0.5 x 0.5)^(1/4) = 0.5^(1/4) = 0.8409
# geomean 2 = (4 x 2 x 1 x 0.5)^(1/4) = 4^(1/4) = 1.4142
# shape by shape: x2, x2, x2, x1; gain = 8^(1/4) = 1.6818 = 1.4142 / 0.8409
mkrun() {
	cat >"$D/s.jsonl" <<'J'
{"attempt": 1, "shape": "m128", "ms": 1.0, "ref": 2.0, "ok": true}
{"attempt": 1, "shape": "m256", "ms": 2.0, "ref": 2.0, "ok": true}
{"attempt": 1, "shape": "m512", "ms": 4.0, "ref": 2.0, "ok": true}
{"attempt": 1, "shape": "m1024", "ms": 8.0, "ref": 4.0, "ok": true}
{"attempt": 2, "shape": "m128", "ms": 0.5, "ref": 2.0, "ok": true}
{"attempt": 2, "shape": "m256", "ms": 1.0, "ref": 2.0, "ok": true}
{"attempt": 2, "shape": "m512", "ms": 2.0, "ref": 2.0, "ok": true}
{"attempt": 2, "shape": "m1024", "ms": 8.0, "ref": 4.0, "ok": true}
J
	printf '{"run": {"const": "sw"}, "step": "attempt", "scenario": "shape", "time_ms": "ms", "ref_time_ms": "ref", "correct": "ok"}\n' >"$D/m.map"
	map_import "$D/m.map" "$D/s.jsonl"
}

@test "two attempts over 4 shapes: two sweeps, each's geomean, the second compared shape by shape with the first (text)" {
	mkrun
	run "$KTRAJ" blame speedup sw
	[ "$status" -eq 0 ]
	[[ "$output" == *"measurements: 2 sweeps from 8 bench results"* ]]
	[[ "$output" == *"sweep 1 (seq 1..4): 4 results over 4 scenarios, geomean speedup x0.841"$'\n'"sweep 2 (seq 5..8): 4 results over 4 scenarios, geomean speedup x1.414, x1.682 over the best sweep before it (sweep 1) on the 4 scenarios both measured"$'\n'"    m128: x2.000 -> x4.000, gain x2.000"$'\n'"    m256: x1.000 -> x2.000, gain x2.000"$'\n'"    m512: x0.500 -> x1.000, gain x2.000"$'\n'"    m1024: x0.500 -> x0.500, gain x1.000"$'\n'* ]]
	[[ "$output" == *"JUMP 1  step 2 (seq 8) over the best so far, step 1 (seq 4)  speedup 0.841 -> 1.414  gain x1.682"* ]]
	# stalls reads sweeps, not shapes: no stall over one sweep's shapes
	run "$KTRAJ" stalls sw
	[ "$status" -eq 0 ]
	[[ "$output" == *"2 measurements (sweeps)"* ]]
	[[ "$output" == *"no stall"* ]]
}

@test "two attempts over 4 shapes: --json's summary lists the sweeps with geomean and the shape-by-shape comparison" {
	mkrun
	run "$KTRAJ" blame speedup sw --json --permutations 0
	[ "$status" -eq 0 ]
	python3 - "${lines[1]}" <<'PY'
import json, sys
s = json.loads(sys.argv[1])
assert s["summary"] == "blame speedup" and s["sweep"] is True, s
w = s["sweeps"]
assert [x["geomean_speedup"] for x in w] == [0.8409, 1.4142], w
assert w[0]["best_sweep_before"] is None and w[0]["gain_over_best"] is None, w[0]
assert w[1]["best_sweep_before"] == 1 and w[1]["gain_over_best"] == 1.6818, w[1]
assert w[1]["scenarios_compared"] == 4, w[1]
assert [(x["scenario"], x["before"], x["speedup"], x["gain"])
        for x in w[1]["by_scenario"]] == [
    ("m128", 2, 4, 2), ("m256", 1, 2, 2), ("m512", 0.5, 1, 2),
    ("m1024", 0.5, 0.5, 1)], w[1]
PY
}

@test "a shape a sweep adds is shown as not measured before, not compared" {
	mkrun
	printf '{"attempt": 3, "shape": "m128", "ms": 0.25, "ref": 2.0, "ok": true}\n{"attempt": 3, "shape": "m2048", "ms": 8.0, "ref": 8.0, "ok": true}\n' >>"$D/s.jsonl"
	run "$KTRAJ" --store "$D/t.ktraj" import --map "$D/m.map" "$D/s.jsonl"
	run "$KTRAJ" --store "$D/t.ktraj" blame speedup sw
	[[ "$output" == *"x2.000 over the best sweep before it (sweep 2) on the 1 scenarios both measured"$'\n'"    m128: x4.000 -> x8.000, gain x2.000"$'\n'"    m2048: x1.000 (not measured by sweep 2)"$'\n'* ]]
}

@test "corpus FlashInfer trace: one sweep over 22 shapes, its geomean in text and --json, no stall" {
	[ -f "$FI" ] || skip "corpus not present"
	run "$KTRAJ" import "$FI"
	[ "$status" -eq 0 ]
	run "$KTRAJ" blame speedup gpt-5/gemm_n128_k2048
	[[ "$output" == *"measurements: 1 sweep from 25 bench results: 22 correct, 0 not checked; 3 excluded: 3 incorrect"* ]]
	[[ "$output" == *"sweep 1 (seq 1..25): 22 results over 22 scenarios, geomean speedup x0.169"$'\n'"threshold"* ]]
	run "$KTRAJ" blame speedup gpt-5/gemm_n128_k2048 --json --permutations 0
	[[ "$output" == *'"sweeps":[{"sweep":1,"seq_first":1,"seq_last":25,"results":22,"scenarios":22,"geomean_speedup":0.1686,"index":0.1686,"best_sweep_before":null,"gain_over_best":null,"scenarios_compared":0,"by_scenario":[{"scenario":'* ]]
	run "$KTRAJ" stalls gpt-5/gemm_n128_k2048
	[[ "$output" == *"1 measurement (sweeps)"*"no stall"* ]]
}
