#!/usr/bin/env bats
# `ktraj cat RUN suffix` / `ktraj diff RUN A B suffix` for a file whose
# content is unknown at that step (sed -i and the like): the suffix
# resolves to the file and the answer is "unknown content", as for the full
# path, not "no file".  Fixture: tests/data/import/ws/ws_unknown.jsonl.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	"$KTRAJ" import "$BATS_TEST_DIRNAME/../data/import/ws/ws_unknown.jsonl" >/dev/null
	R=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	# first unknown edit of /w/k.cu
	U=$("$KTRAJ" log "$R" --json | python3 -c '
import json,sys
print([r["seq"] for r in map(json.loads,sys.stdin) if r["kind"]=="edit" and r.get("path")=="/w/k.cu" and r.get("op")=="unknown"][0])')
}

@test "cat by suffix of a file with unknown content says unknown, like the full path" {
	run "$KTRAJ" cat "$R" k.cu
	[ "$status" -eq 4 ]
	full=$("$KTRAJ" cat "$R" /w/k.cu 2>&1 || true)
	[ "$output" = "$full" ]
	[[ "$output" == "ktraj: cat: /w/k.cu has unknown content after the last step"* ]]
	run "$KTRAJ" cat "$R" k.cu --at "$U"
	[ "$status" -eq 4 ]
	[[ "$output" == "ktraj: cat: /w/k.cu has unknown content at step $U"* ]]
	# known again after the Read: the suffix gives the content
	run "$KTRAJ" cat "$R" k.cu --at $((U + 2))
	[ "$status" -eq 0 ]
	[ "$output" = "int new;" ]
	# a suffix no file has is still "no file"
	run "$KTRAJ" cat "$R" nothere.cu
	[ "$status" -eq 4 ]
	[[ "$output" == *"no file 'nothere.cu'"* ]]
	# before the file existed: not resolved to the later unknown file
	run "$KTRAJ" cat "$R" k.cu --at 1
	[ "$status" -eq 4 ]
	[[ "$output" == *"no file 'k.cu'"* ]]
}

@test "diff by suffix at two steps where the content is unknown says unknown" {
	run "$KTRAJ" diff "$R" "$U" "$U" k.cu
	[ "$status" -eq 0 ]
	[[ "$output" != *"no file"* ]]
	run "$KTRAJ" diff "$R" $((U - 1)) "$U" k.cu
	[ "$status" -eq 0 ]
	[[ "$output" == "Content of /w/k.cu unknown at step $U"* ]]
}
