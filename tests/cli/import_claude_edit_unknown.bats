#!/usr/bin/env bats
# A Claude Code Edit that succeeded on a file whose content is unknown
# (issue 15: no Read before it, `originalFile` null) is still an edit.
# Fixture tests/data/import/claude_edit_unknown.jsonl (made up):
# bench 2 ms; Edit kernel.cu BLOCK 64 -> 128 (never read); bench 1 ms;
# Read kernel.cu; Edit one_pass( -> online_pass( (not in what was read:
# the file changed in between); bench 0.5 ms.

bats_require_minimum_version 1.5.0

setup() {
	load lib/fixture_run
	fixture_setup claude_edit_unknown.jsonl
}

@test "import: an Edit of never-read content is an edit of unknown result with its hunk" {
	run "$KTRAJ" log "$RUN" --kind edit --json
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" == *'"seq":7,'*'"path":"/w/k/kernel.cu","op":"unknown"'* ]]
	run "$KTRAJ" show "$RUN" 7
	[ "$status" -eq 0 ]
	[[ "$output" == *"before: null"* ]]
	[[ "$output" == *"tool: Edit"* ]]
	[[ "$output" == *'extra: {"old_string":"BLOCK 64","new_string":"BLOCK 128"}'* ]]
}

@test "import: an Edit whose old string is not in the content read keeps that content as before" {
	run "$KTRAJ" show "$RUN" 15
	[ "$status" -eq 0 ]
	[[ "$output" == *"op: unknown"* ]]
	[[ "$output" =~ before:\ [0-9a-f]{64} ]]
	run -4 "$KTRAJ" cat "$RUN" /w/k/kernel.cu --at 16
	[[ "$output" == *"unknown content"* ]]
}

@test "blame: each jump names the edit before it, not 'none recorded'" {
	run "$KTRAJ" blame speedup "$RUN"
	[ "$status" -eq 0 ]
	[[ "$output" == *"JUMP 1"*"edits: #7 /w/k/kernel.cu"* ]]
	[[ "$output" == *"JUMP 2"*"edits: #15 /w/k/kernel.cu"* ]]
	[[ "$output" != *"none recorded"* ]]
}

@test "bench: the code state changes with each such edit (source_hash)" {
	run "$KTRAJ" log "$RUN" --kind bench --json
	[ "$status" -eq 0 ]
	h1=$(printf '%s\n' "${lines[1]}" | sed 's/.*"source_hash":\("[0-9a-f]*"\|null\).*/\1/')
	h2=$(printf '%s\n' "${lines[2]}" | sed 's/.*"source_hash":\("[0-9a-f]*"\|null\).*/\1/')
	[[ "$h1" == \"* ]]
	[[ "$h2" == \"* ]]
	[ "$h1" != "$h2" ]
}
