#!/usr/bin/env bats
# `ktraj import` of ktraj JSONL: when a skipped line (here an edit naming a
# blob neither given nor stored) moves later seqs down, "parent" follows
# its event; a parent that was skipped becomes none and is reported.
# Fixture: tests/data/import/ktraj/parent_skip.jsonl (ours).

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/a.ktraj"
	SRC="$BATS_TEST_DIRNAME/../data/import/ktraj/parent_skip.jsonl"
}

# seq:parent of every event of the only run (parent null as 0)
parents() {
	local r
	r=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	"$KTRAJ" log "$r" --json | python3 -c '
import json,sys
print(" ".join("%d:%d" % (e["seq"], e["parent"] or 0) for e in map(json.loads, sys.stdin)))'
}

@test "parents follow their events after a skipped line; a skipped parent becomes none" {
	run -0 --separate-stderr "$KTRAJ" import "$SRC"
	[[ "$stderr" == *"parent_skip.jsonl:4: edit \"after\" names blob"* ]]
	[[ "$stderr" == *"parent_skip.jsonl:6: parent 3 was not imported; event stored with no parent"* ]]
	[[ "$stderr" == *"parent_skip.jsonl:7: seq 6 stored as 5"* ]]
	# old 4 -> 3, 5 -> 4 (its parent 3 was skipped), 6 -> 5 (parent 4 -> 3),
	# 7 -> 6 (parent 2 did not move)
	[ "$(parents)" = "1:0 2:1 3:1 4:0 5:3 6:2" ]
	"$KTRAJ" verify
}

@test "without a skipped line the parents are stored as given" {
	grep -v 'b\.c' "$SRC" | sed 's/"seq":\([4-7]\)/"seq":X\1/' |
		python3 -c '
import re,sys
for l in sys.stdin:
    l = re.sub(r"\"seq\":X(\d)", lambda m: "\"seq\":%d" % (int(m.group(1)) - 1), l)
    l = l.replace("\"parent\":3,", "\"parent\":null,").replace("\"parent\":4,", "\"parent\":3,")
    sys.stdout.write(l)' >"$BATS_TEST_TMPDIR/dense.jsonl"
	run -0 --separate-stderr "$KTRAJ" import "$BATS_TEST_TMPDIR/dense.jsonl"
	[ -z "$stderr" ]
	[ "$(parents)" = "1:0 2:1 3:1 4:0 5:3 6:2" ]
}
