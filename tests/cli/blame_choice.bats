#!/usr/bin/env bats
# When a bench output printed several metrics (speedup_vs_compile and
# speedup_vs_eager) and one was chosen as the graded one, blame speedup
# says which and why, once per series, from the bench's `choice` and
# `alternatives` (FORMAT.md section 2).  Made-up runs (a round log read
# with import --map, the two members added to the ktraj JSONL export as
# the bench patterns write them) and the corpus Harbor run (skipped
# without $CORPUS).

bats_require_minimum_version 1.5.0

CORPUS="${CORPUS:-$BATS_TEST_DIRNAME/../../../shared/corpus}"
HB="$CORPUS/gpu_kernel/harbor_kernelbench/gpt55_s2_quant_w4a16/trajectory.json"

setup() {
	load lib/fixture_run
	fixture_store
	D="$BATS_TEST_TMPDIR"
}

# mkrun NAME CHOICE: three rounds of speedup_vs_compile, each bench also
# printing speedup_vs_eager; CHOICE the `choice` (empty: none kept)
mkrun() {
	cat >"$D/$1.jsonl" <<'J'
{"r": 1, "s": 0.5, "e": 2.0}
{"r": 2, "s": 0.9, "e": 3.6}
{"r": 3, "s": 1.4, "e": 5.6}
J
	printf '{"run": {"const": "%s"}, "step": "r", "speedup": "s", "metric": {"const": "speedup_vs_compile"}, "baseline": {"const": "torch.compile"}}\n' "$1" >"$D/$1.map"
	KTRAJ_STORE="$D/m.ktraj" map_import "$D/$1.map" "$D/$1.jsonl"
	KTRAJ_STORE="$D/m.ktraj" export_patched "$1" '
if o["kind"] == "bench":
    e = {1: 2.0, 2: 3.6, 3: 5.6}
    p["alternatives"] = [{"metric": "speedup_vs_eager", "value": e[p["round"]], "baseline": "eager"}]
    if args[0]:
        p["choice"] = args[0]' "$2" >"$D/$1.ktraj.jsonl"
	run "$KTRAJ" import "$D/$1.ktraj.jsonl"
	[ "$status" -eq 0 ]
}

@test "the metric the verifier names: blame says it was chosen, why, and what else was printed, once per series (text and --json)" {
	mkrun v "the graded metric the verifier names (speedup_vs_compile)"
	run "$KTRAJ" blame speedup v
	[ "$status" -eq 0 ]
	[[ "$output" == *$'\n'"graded metric: speedup_vs_compile (the graded metric the verifier names (speedup_vs_compile); also printed: speedup_vs_eager x2.000 (eager))"$'\n'* ]]
	[ "$(grep -c 'graded metric:' <<<"$output")" -eq 1 ]
	run "$KTRAJ" blame speedup v --json --permutations 0
	[[ "${lines[-1]}" == *'"graded_metric":"speedup_vs_compile (the graded metric the verifier names (speedup_vs_compile); also printed: speedup_vs_eager x2.000 (eager))"'* ]]
}

@test "nothing named the graded one: the first printed, saying so" {
	mkrun f "the first printed: nothing named the graded one"
	run "$KTRAJ" blame speedup f
	[[ "$output" == *$'\n'"graded metric: speedup_vs_compile (the first printed: nothing named the graded one; also printed: speedup_vs_eager x2.000 (eager))"$'\n'* ]]
	# alternatives without a choice: the first printed too
	mkrun n ""
	run "$KTRAJ" blame speedup n
	[[ "$output" == *$'\n'"graded metric: speedup_vs_compile (the first printed; also printed: speedup_vs_eager x2.000 (eager))"$'\n'* ]]
	# one metric printed: no line, --json null
	run "$KTRAJ" --store "$D/m.ktraj" blame speedup n
	[ "$status" -eq 0 ]
	[[ "$output" != *"graded metric"* ]]
	run "$KTRAJ" --store "$D/m.ktraj" blame speedup n --json --permutations 0
	[[ "${lines[-1]}" == *'"graded_metric":null'* ]]
}

@test "corpus Harbor run gpt55_s2_quant_w4a16: speedup_vs_compile, the baseline the task names, over speedup_vs_eager" {
	[ -f "$HB" ] || skip "corpus not present"
	run "$KTRAJ" import "$HB"
	[ "$status" -eq 0 ]
	R=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	run "$KTRAJ" blame speedup "$R"
	[[ "$output" == *$'\n'"graded: speedup_vs_compile x0.784, reward 0, correct, from reward.json (seq 23)"$'\n'"graded metric: speedup_vs_compile (the baseline the task names (torch.compile); also printed: speedup_vs_eager x5.850 (eager))"$'\n'* ]]
}
