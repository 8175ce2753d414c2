#!/usr/bin/env bats
# What a new user trying to break the batched import, the analyzers and
# search found: each test is one of them.

bats_require_minimum_version 1.5.0

SAMPLE="$BATS_TEST_DIRNAME/../data/sample/softmax_session.jsonl"

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
}

@test "search -- -O3: after -- every word is TEXT, so text that starts with - can be searched" {
	"$KTRAJ" import "$SAMPLE" >/dev/null
	run --separate-stderr "$KTRAJ" search -- -O3
	[ "$status" -eq 0 ]
	[[ "$output" == *"nvcc -O3 -arch=sm_90"* ]]
	run --separate-stderr "$KTRAJ" search --kind tool_call -- -O3 -arch=sm_90
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -ge 1 ]
	for l in "${lines[@]}"; do [[ "$l" == *tool_call*"-O3 -arch=sm_90"* ]]; done
	# before --, a word that starts with - is still an option
	run --separate-stderr "$KTRAJ" search -O3
	[ "$status" -eq 2 ]
	[[ "$stderr" == "ktraj: search: unknown option '-O3'"* ]]
}
