#!/usr/bin/env bats
# Naming a run: a short prefix says it is short, an ambiguous prefix or
# name lists the candidates (as git does), a unique name prefix works as an
# id prefix does.

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	for n in softmax-v1 softmax-v2 gemm-big; do
		echo '{"kind":"note","payload":{"text":"x"}}' | "$KTRAJ" append "$n" 2>/dev/null
	done
	ID=$("$KTRAJ" ls --json --name gemm-big | python3 -c 'import json,sys; print(json.load(sys.stdin)["run"])')
}

@test "a unique name prefix names its run" {
	run "$KTRAJ" log gemm --json
	[ "$status" -eq 0 ]
	[[ "$output" == *'"seq":1'* ]]
	run "$KTRAJ" show gemm- 1
	[ "$status" -eq 0 ]
	[[ "$output" == *"run     $ID (gemm-big)"* ]]
}

@test "an ambiguous name prefix lists the candidates, exit 2" {
	run "$KTRAJ" log softmax
	[ "$status" -eq 2 ]
	[[ "$output" == "ktraj: log: 'softmax' matches several runs: "*" softmax-v1, "*" softmax-v2; give more of the id" ]]
}

@test "an id prefix under 4 characters says so, exit 2; 4 work" {
	run "$KTRAJ" log "${ID:0:3}"
	[ "$status" -eq 2 ]
	[ "$output" = "ktraj: log: no run '${ID:0:3}': an id prefix needs 4 or more characters (see \`ktraj ls\`)" ]
	run "$KTRAJ" log "${ID:0:4}" --json
	[ "$status" -eq 0 ]
	run "$KTRAJ" log nosuch
	[ "$status" -eq 4 ]
	[ "$output" = "ktraj: log: no run 'nosuch' (see \`ktraj ls\`)" ]
}
