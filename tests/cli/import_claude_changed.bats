#!/usr/bin/env bats
# Re-importing a Claude Code session whose earlier lines changed (a human
# message edited in the middle: another version of the session under the
# same id): one warning on stderr, `FILE:LINE: changed since run ... was
# imported (its step N differs): the run keeps the M events first imported`
# (LINE: the first line whose event differs), exit 0, the stored run exactly
# as it was; lines appended after the change are not added either.  A
# session that only grew (whole lines, or cut inside a response written
# over several lines) still imports its new lines silently.
# Fixtures (ours): tests/data/sample/softmax_session.jsonl (41 events; line
# 16 is the second human message), copied and changed in the temp dir; the
# corpus session vsla_sidechains_multiedit_5f8cbb78.jsonl when $CORPUS is set.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	S="$BATS_TEST_DIRNAME/../data/sample/softmax_session.jsonl"
	F="$BATS_TEST_TMPDIR/session.jsonl"
	cp "$S" "$F"
}

# every stored event's hash, in order
hashes() {
	"$KTRAJ" export "$1" --format jsonl | python3 -c '
import json,sys
print(" ".join(str(o.get("hash")) for o in map(json.loads,sys.stdin) if "kind" in o))'
}

# the seq of the event imported from line $2 of the session, in run $1
seq_of_line() {
	"$KTRAJ" export "$1" --format jsonl | python3 -c '
import json,sys
print(min(o["seq"] for o in map(json.loads,sys.stdin) if "kind" in o and o["prov"]["line"]==int(sys.argv[1])))' "$2"
}

@test "a human message changed in the middle: one warning at its line, exit 0, the run unchanged" {
	run --separate-stderr "$KTRAJ" import --json "$F"
	[ "$status" -eq 0 ]
	R=$(echo "$output" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	before=$(hashes "$R")
	step=$(seq_of_line "$R" 16)
	# unchanged: silent, nothing added
	run --separate-stderr "$KTRAJ" import "$F"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	sed -i '16s/three times/four times/' "$F"
	grep -q 'four times' "$F"
	run --separate-stderr "$KTRAJ" import "$F"
	[ "$status" -eq 0 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ "$stderr" = "ktraj: import: $F:16: changed since run ${R:0:12} was imported (its step $step differs): the run keeps the 41 events first imported" ]
	[[ "$output" == "$R     41 events      0 added  claude_code "* ]]
	[ "$(hashes "$R")" = "$before" ]
	# lines appended after the change are not added either, and said
	tail -n 4 "$S" | sed 's/"uuid":"\([0-9a-f]\)/"uuid":"x\1/; s/"parentUuid":"\([0-9a-f]\)/"parentUuid":"x\1/' >>"$F"
	run --separate-stderr "$KTRAJ" import "$F"
	[ "$status" -eq 0 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == "ktraj: import: $F:16: changed since run ${R:0:12} was imported (its step $step differs): the run keeps the 41 events first imported; "*" new event"*" of this source not added" ]]
	[ "$(hashes "$R")" = "$before" ]
}

@test "a session that only grew imports its new lines silently" {
	head -n 20 "$S" >"$F"
	run --separate-stderr "$KTRAJ" import --json "$F"
	[ "$status" -eq 0 ]
	n1=$(echo "$output" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["events"])')
	cp "$S" "$F"
	run --separate-stderr "$KTRAJ" import --json "$F"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	echo "$output" | python3 -c '
import json,sys
o=json.loads(sys.stdin.readline())
assert o["events"]==41 and o["added"]==41-int(sys.argv[1]), o' "$n1"
}

@test "a real session cut inside a response written over several lines, then grown: silent, the rest added (corpus)" {
	C="$CORPUS/claude_code/vsla_sidechains_multiedit_5f8cbb78.jsonl"
	[ -n "$CORPUS" ] && [ -f "$C" ] || skip "no corpus"
	# line 177 opens a response whose usage its later lines complete
	head -n 177 "$C" >"$F"
	"$KTRAJ" import "$F" >/dev/null 2>&1
	cp "$C" "$F"
	run --separate-stderr "$KTRAJ" import --json "$F"
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"changed since"* ]]
	echo "$output" | python3 -c '
import json,sys
o=json.loads(sys.stdin.readline())
assert o["added"]>0 and o["events"]>o["added"], o'
}
