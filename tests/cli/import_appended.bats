#!/usr/bin/env bats
# Re-importing a live log that grew, into a run that got events through
# `ktraj append` after its import: the source's new events cannot take the
# seqs the appended ones hold, so nothing is written and one line says so
# ("file: run X has N events appended after its import ..."), exit 0 and
# non-zero under --strict, the run unchanged; the unchanged log stays
# silent; without appended events the grown log adds its new events.
# Fixture (ours): tests/data/import/claude/s2x.jsonl, cut in the temp dir.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	SRC="$BATS_TEST_DIRNAME/../data/import/claude/s2x.jsonl"
	L="$BATS_TEST_TMPDIR/live.jsonl"
}

hashes() {
	"$KTRAJ" export "$1" --format jsonl | python3 -c '
import json,sys
print(" ".join(str(o.get("hash")) for o in map(json.loads,sys.stdin) if "kind" in o))'
}

# grow_test SRC NLINES: import the first NLINES of SRC, append a note,
# re-import unchanged (silent) and grown (one line); leaves $R and $n0
grow_test() {
	head -n "$2" "$1" >"$L"
	run --separate-stderr "$KTRAJ" import --json --format claude_code "$L"
	[ "$status" -eq 0 ]
	R=$(echo "$output" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	n0=$(echo "$output" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["events"])')
	run --separate-stderr bash -c "echo '{\"kind\":\"note\",\"payload\":{\"text\":\"looked at it\"}}' | '$KTRAJ' append $R"
	[ "$status" -eq 0 ]
	before=$(hashes "$R")
	# unchanged: nothing to add, nothing to say
	run --separate-stderr "$KTRAJ" import --json --format claude_code "$L"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ "$output" == *"\"events\":$((n0 + 1)),\"added\":0}" ]]
	# grown: one line, nothing written
	cp "$1" "$L"
	new=$("$KTRAJ" --store "$BATS_TEST_TMPDIR/fresh.ktraj" import --json --format claude_code "$L" 2>/dev/null | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["events"])')
	new=$((new - n0))
	[ "$new" -gt 0 ]
	run --separate-stderr "$KTRAJ" import --json --format claude_code "$L"
	[ "$status" -eq 0 ]
	[ "$stderr" = "ktraj: import: $L: run $R has 1 event appended after its import (ktraj append, bench --record or replay): the $new new event$([ "$new" -eq 1 ] || echo s) of this source $([ "$new" -eq 1 ] && echo is || echo are) not added, a run's events are never renumbered" ]
	[[ "$output" == *"\"events\":$((n0 + 1)),\"added\":0}" ]]
	[ "$(hashes "$R")" = "$before" ]
	# --strict: the same problem stops it, non-zero, the run unchanged
	run --separate-stderr "$KTRAJ" import --strict --format claude_code "$L"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "ktraj: import: $L: run $R has 1 event appended after its import"* ]]
	[[ "$stderr" != *$'\n'* ]]
	[ "$(hashes "$R")" = "$before" ]
	run "$KTRAJ" verify
	[ "$status" -eq 0 ]
}

@test "a grown log into a run with appended events: one line, nothing written; unchanged: silent" {
	grow_test "$SRC" 10
}

@test "a grown log without appended events still adds its new events silently" {
	head -n 10 "$SRC" >"$L"
	run --separate-stderr "$KTRAJ" import --json --format claude_code "$L"
	n0=$(echo "$output" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["events"])')
	cp "$SRC" "$L"
	run --separate-stderr "$KTRAJ" import --json --format claude_code "$L"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	echo "$output" | python3 -c '
import json,sys
o=json.loads(sys.stdin.readline())
assert o["added"]>0 and o["events"]==o["added"]+int(sys.argv[1]), o' "$n0"
}

@test "a grown real Claude Code log (corpus) into a run with appended events" {
	[ -f "${CORPUS:-}/claude_code/vsla_image_summary_6dc88126.jsonl" ] || skip "no corpus"
	grow_test "$CORPUS/claude_code/vsla_image_summary_6dc88126.jsonl" 30
}
