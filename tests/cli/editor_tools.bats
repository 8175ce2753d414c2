#!/usr/bin/env bats
# Editor tool calls (SWE-agent / OpenHands str_replace_editor, SWE-agent's
# own commands) are edits or reads, never shell commands: a replay bundle
# refuses them instead of running "create" or "str_replace_editor ..." as a
# command; a real shell step still bundles its command.
# Fixture: tests/data/import/swe/editor_actions.traj (ours).

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	"$KTRAJ" import "$BATS_TEST_DIRNAME/../data/import/swe/editor_actions.traj" >/dev/null
	R=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
}

# seqs of tool_call events whose tool is $1
calls_of() {
	"$KTRAJ" log "$R" --json | python3 -c '
import json,sys
print(" ".join(str(r["seq"]) for r in map(json.loads,sys.stdin) if r["kind"]=="tool_call" and r.get("tool")==sys.argv[1]))' "$1"
}

@test "editor calls become edits with their content, not shell commands" {
	run "$KTRAJ" log "$R" --json
	[ "$(grep -c '"kind":"edit"' <<<"$output")" -eq 4 ]
	[ "$(grep -c '"kind":"compile"' <<<"$output")" -eq 1 ]
	run "$KTRAJ" cat "$R" /r/k.cu
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf '__global__ void k() {}\n// it'"'"'s fast')" ]
}

@test "a bundle of an editor call is refused, never run as a command" {
	for s in $(calls_of str_replace_editor) $(calls_of submit); do
		run "$KTRAJ" export "$R" --step "$s" --bundle "$BATS_TEST_TMPDIR/b$s.tar.gz"
		[ "$status" -eq 1 ]
		[[ "$output" == *"step $s has no recorded shell command to re-run"*"is not a shell command"* ]]
		[ ! -e "$BATS_TEST_TMPDIR/b$s.tar.gz" ]
	done
	run "$KTRAJ" replay "$R" "$(calls_of str_replace_editor | cut -d' ' -f1)"
	[ "$status" -ne 0 ]
	[[ "$output" != *"command not found"* ]]
}

@test "the shell step next to them still bundles its own command" {
	s=$(calls_of bash)
	run "$KTRAJ" export "$R" --step "$s" --bundle "$BATS_TEST_TMPDIR/b.tar.gz"
	[ "$status" -eq 0 ]
	mkdir "$BATS_TEST_TMPDIR/x"
	tar -C "$BATS_TEST_TMPDIR/x" -xf "$BATS_TEST_TMPDIR/b.tar.gz"
	[ "$(cat "$BATS_TEST_TMPDIR/x/ktraj-bundle/command.sh")" = "nvcc -c /r/k.cu -o /r/k.o" ]
}
