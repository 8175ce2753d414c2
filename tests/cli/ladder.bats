#!/usr/bin/env bats
# kernels/ladder_h200.jsonl, the attention ladder recorded on the H200 with
# `ktraj bench --record ladder` (rungs 01-05, 06a = rung 06 before its
# persistent grid, 06b = with it, and 06, on three scenarios;
# harness/GPU_LOG.md, 2026-12-03 "128-row D64 tiles only when causal"), with
# each rung's hypothesis as an agent message before its compile: it must
# import and verify, and `blame speedup` must find the rungs' jumps.

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	L="$BATS_TEST_DIRNAME/../../kernels/ladder_h200.jsonl"
}

@test "the recorded ladder imports, verifies and keeps its run id" {
	run "$KTRAJ" import "$L"
	[ "$status" -eq 0 ]
	[[ "$output" == *"2fb4df71f43c2ed79b1f3431db365bb2"*"40 events"*"ladder"* ]]
	run "$KTRAJ" verify
	[ "$status" -eq 0 ]
}

@test "every rung's compile follows its hypothesis and every result is correct" {
	"$KTRAJ" import "$L" >/dev/null
	run "$KTRAJ" log ladder --json
	[ "$status" -eq 0 ]
	echo "$output" | python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
kinds = [r["kind"] for r in rows]
assert kinds.count("compile") == 8 and kinds.count("message") == 8, kinds
for i, k in enumerate(kinds):
    if k == "compile":
        assert kinds[i - 1] == "message", i
bench = [r for r in rows if r["kind"] == "bench"]
assert len(bench) == 24 and all(r["correct"] is True for r in bench), bench
'
}

@test "blame speedup reports the five rung-to-rung jumps" {
	"$KTRAJ" import "$L" >/dev/null
	# the defaults, as kernels/README.md says to run it: successive rungs
	# are distinct candidates (no edit recorded between them), never
	# merged into one jump
	run "$KTRAJ" blame speedup ladder --json
	[ "$status" -eq 0 ]
	echo "$output" | python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
jumps = [r for r in rows if "jump" in r]
assert len(jumps) == 5, jumps
# 01->02 tiles, 02->03 online softmax, 03->04 tensor cores,
# 04->05 pipelining, 05->06a wgmma/TMA; 06b over 06a (x1.04) and 06 over
# 06b (x1.02) are under --min-gain on these three small scenarios
assert [round(j["gain"], 1) for j in jumps] == [2.5, 1.1, 14.5, 2.0, 1.9], jumps
assert all(j["before"] < j["after"] for j in jumps)
# each jump carries the hypothesis of its rung, the message before its compile
assert [j["hypothesis"]["seq"] for j in jumps] == [6, 11, 16, 21, 26], jumps
assert all(j["hypothesis"]["text"].startswith("Hypothesis:") for j in jumps)
'
	run "$KTRAJ" blame speedup ladder
	[ "$status" -eq 0 ]
	[ "$(grep -c '^JUMP' <<<"$output")" -eq 5 ]
	[ "$(grep -c 'edits: none recorded (another candidate source was measured)' <<<"$output")" -eq 5 ]
}
