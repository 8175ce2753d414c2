#!/usr/bin/env bats
# A Harbor KernelBench run (corpus gpu_kernel/harbor_kernelbench), labelled
# from its raw files: step 1 is terminus-2's harness prompt (no person);
# the first verifier run fails to compile the Triton kernel (a
# CompilationError in its JSON); the second prints torch.compile
# max-autotune's table of the baseline's 10 candidate configs, then the
# verdict, then `cat reward.json` echoes the same verdict: one result,
# against torch.compile as the task prompt says (0.782x, reward 0), not
# 5.85x against eager.  That run is the agent's own check (it ran the
# verifier in /app itself); Harbor's verifier ran afterwards and wrote the
# reward.json beside the trajectory (0.784x): the one graded result.

bats_require_minimum_version 1.5.0

CORPUS="${CORPUS:-$BATS_TEST_DIRNAME/../../../shared/corpus}"
RUN_DIR="$CORPUS/gpu_kernel/harbor_kernelbench/gpt55_s2_quant_w4a16"

setup() {
	[ -d "$RUN_DIR" ] || skip "corpus absent"
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	"$KTRAJ" import "$RUN_DIR" >/dev/null
	RUN=$("$KTRAJ" ls | awk 'NR == 2 { print $1 }')
}

@test "harbor: the harness prompt is no human message" {
	run "$KTRAJ" log "$RUN" --kind message --json
	[ "$(grep -c '"human":true' <<<"$output")" -eq 0 ]
	run "$KTRAJ" show "$RUN" 1 --json
	[[ "$output" == *'"flags":["meta","task_prompt"]'* ]]
}

@test "harbor: the Triton CompilationError is a failed compile of the verifier run" {
	run "$KTRAJ" log "$RUN" --kind compile --json
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == *'"exit_code":1,"command":"python kb_verifier.py reference.py solution.py config.json reward.json"'* ]]
	seq=$(sed 's/.*"seq":\([0-9]*\).*/\1/' <<<"${lines[0]}")
	run "$KTRAJ" show "$RUN" "$seq" --json
	[[ "$output" == *'"compiler":"triton"'* ]]
}

@test "harbor: two bench results against torch.compile, only reward.json graded" {
	run "$KTRAJ" log "$RUN" --kind bench --json
	[ "${#lines[@]}" -eq 2 ]
	# no autotune row of the baseline (0.2232 ms ...) became a result
	[ "$(grep -c '"time_ms":0.2' <<<"$output")" -eq 0 ]
	[[ "${lines[0]}" == *'"correct":true,"time_ms":null,"speedup":0.78205'* ]]
	[[ "${lines[1]}" == *'"actor":"system"'*'"correct":true,"time_ms":null,"speedup":0.78388'* ]]
	s1=$(sed 's/.*"seq":\([0-9]*\).*/\1/' <<<"${lines[0]}")
	s2=$(sed 's/.*"seq":\([0-9]*\).*/\1/' <<<"${lines[1]}")
	run "$KTRAJ" show "$RUN" "$s1" --json
	[[ "$output" == *'"metric":"speedup_vs_compile","baseline":"torch.compile","alternatives":[{"metric":"speedup_vs_eager","value":5.84964492795416'*'"baseline":"eager"}],"choice":"the baseline the task names (torch.compile)"'* ]]
	[[ "$output" != *'"graded"'* ]]
	[[ "$output" == *'"source":"python kb_verifier.py reference.py solution.py config.json reward.json"'* ]]
	[[ "$output" != *'python -'* ]]
	run "$KTRAJ" show "$RUN" "$s2" --json
	[[ "$output" == *'reward.json"'* ]]
	[[ "$output" == *'"graded":true,"source":"reward.json"'* ]]
	[[ "$output" == *'"extra":{"reward":0}'* ]]
}

# No step edits solution.py after the second verifier run (step 5), so the
# harness's own verification (reward.json) graded the same code: both
# results carry one source_hash, and noise can read them as repeats.
@test "harbor: the verifier run and reward.json measured the same code" {
	run "$KTRAJ" log "$RUN" --kind bench --json
	python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.argv[1].splitlines()]
h = [r["source_hash"] for r in rows]
assert len(h) == 2 and h[0] and len(h[0]) == 64 and h[0] == h[1], h' "$output"
}
