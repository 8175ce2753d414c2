#!/usr/bin/env bats
# Two jumps one measurement apart, each after its own edit, stay two jumps
# (issue 15: "two jumps with distinct edits in between stay two jumps"),
# and a Chinese question the agent never echoes (word overlap 0) is
# credited by its lag alone (issue 15: "lag carries weight when word
# overlap is low").  Fixture tests/data/analyze/adjacent_jumps_zh.jsonl
# (made up, ktraj JSONL): 10 ms, two repeats, an edit -> 5 ms (the agent
# alone), a question in Chinese, an edit -> 2.5 ms, a repeat.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	"$KTRAJ" import "$BATS_TEST_DIRNAME/../data/analyze/adjacent_jumps_zh.jsonl" >/dev/null
	RUN=$("$KTRAJ" ls | awk 'NR == 2 { print $1 }')
}

@test "two adjacent new bests with their own edits are two jumps, the second credited to the unechoed Chinese question by lag" {
	run "$KTRAJ" blame speedup "$RUN"
	[ "$status" -eq 0 ]
	[[ "$output" == *"2 new bests, 0 without an edit before it (no jump); 2 jumps"* ]]
	[[ "$output" == *"JUMP 1  step 4 (seq 13) over the best so far, step 3 (seq 9)"*"gain x1.980"$'\n'"  edits: #11 k.cu"*$'\n'"  agent alone"* ]]
	[[ "$output" == *"JUMP 2  step 5 (seq 18) over the best so far, step 4 (seq 13)"*"gain x2.000"$'\n'"  edits: #16 k.cu"*$'\n'"  question #14 (human, "*"lag 1 tool calls, overlap 0.00"* ]]
	[[ "$output" != *"JUMP 3"* ]]
}

@test "the same in --json: two jumps, the second's question is seq 14" {
	run "$KTRAJ" blame speedup "$RUN" --json
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" | python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
j = [r for r in rows if "jump" in r]
assert len(j) == 2, j
assert j[0]["attribution"] == "agent alone" and j[0]["question"] is None, j[0]
assert [e["seq"] for e in j[0]["edits"]] == [11], j[0]
assert j[1]["attribution"] == "question", j[1]
assert j[1]["question"]["seq"] == 14 and j[1]["question"]["overlap"] == 0, j[1]
assert [e["seq"] for e in j[1]["edits"]] == [16], j[1]
'
}
