#!/usr/bin/env bats
# `ktraj import` of ktraj JSONL with lines that do not parse at all (bad
# JSON, \u0000 in a string, a field of the wrong type): the seq such a line
# held is taken as skipped, so "parent", an edit's "call" and a replay's
# "step" naming it are dropped (reported) and the later ones follow their
# events down; the valid rest is imported, exit 0, each problem as
# file:line; --strict keeps nothing and fails.
# Fixtures: tests/data/import/ktraj/bad_*.jsonl (ours).

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/a.ktraj"
	D="$BATS_TEST_DIRNAME/../data/import/ktraj"
}

# the ids of the runs of the store, one a line; with $1, of the runs named
# $1 or of format $1
runs() {
	"$KTRAJ" ls --json | python3 -c '
import json,sys
for l in sys.stdin:
    o = json.loads(l)
    if len(sys.argv) < 2 or sys.argv[1] in (o["name"], o["format"]):
        print(o["run"])' "$@"
}

# seq:parent[:call=N][:step=N] of every event of run $1 (parent null as 0)
shape() {
	"$KTRAJ" export "$1" --format jsonl | python3 -c '
import json,sys
out = []
for l in sys.stdin:
    o = json.loads(l)
    if "seq" not in o:
        continue
    s = "%d:%d" % (o["seq"], o["parent"] or 0)
    for k in ("call", "step"):
        if k in o["payload"]:
            s += ":%s=%d" % (k, o["payload"][k])
    out.append(s)
print(" ".join(out))'
}

@test "a line of bad JSON whose seq is a parent: the parent is dropped, later ones follow their events" {
	run -0 --separate-stderr "$KTRAJ" import "$D/bad_mid.jsonl"
	# in the words of every importer (kt_imp_json_bad)
	[[ "$stderr" == *"bad_mid.jsonl:3: invalid JSON (RFC 8259): unexpected end of the text at byte 93: line skipped"* ]]
	[[ "$stderr" != *"not valid JSON"* ]]
	[[ "$stderr" == *"bad_mid.jsonl:4: parent 3 was not imported; event stored with no parent"* ]]
	[[ "$stderr" != *"not imported:"* ]]
	[ "$(runs | wc -l)" -eq 1 ]
	# source 4 -> 3 (its parent, the bad line, none), 5 -> 4 (parent 4 -> 3),
	# 6 -> 5 (parent 2 did not move)
	[ "$(shape "$(runs)")" = "1:0 2:1 3:0 4:3 5:2" ]
	"$KTRAJ" verify
}

@test "a line refused for \\u0000: a later parent naming it is dropped, not given to the next event" {
	run -0 --separate-stderr "$KTRAJ" import "$D/bad_nul.jsonl"
	[[ "$stderr" == *"bad_nul.jsonl:3: \\u0000 in a string"* ]]
	[[ "$stderr" == *"bad_nul.jsonl:5: parent 3 was not imported"* ]]
	# source 4 -> 3 (parent 2), 5 -> 4 (parent 3, the bad line: none),
	# 6 -> 5 (parent 4 -> 3)
	[ "$(shape "$(runs)")" = "1:0 2:1 3:2 4:0 5:3" ]
}

@test "an edit's call and a replay's step follow their event past a bad line, or are removed" {
	run -0 --separate-stderr "$KTRAJ" import "$D/bad_call.jsonl"
	[[ "$stderr" == *'bad_call.jsonl:3: "actor" must be a string'* ]]
	[[ "$stderr" == *'bad_call.jsonl:6: edit "call" 2 was not imported; removed from the payload'* ]]
	[[ "$stderr" == *'bad_call.jsonl:9: replay "step" 2 was not imported; removed from the payload'* ]]
	# tool calls 1, 3 -> 2; edits 4 -> 3 (call 3 -> 2), 5 -> 4 (call 2,
	# the bad line: removed), 6 -> 5 (call 1); replays 7 -> 6 (step 4 -> 3),
	# 8 -> 7 (step 2: removed)
	[ "$(shape "$(runs)")" = "1:0 2:0 3:2:call=2 4:0 5:1:call=1 6:3:step=3 7:0" ]
	"$KTRAJ" verify
}

@test "a bad first line of the second run of a concatenated file counts in that run" {
	run -0 --separate-stderr "$KTRAJ" import --json "$D/bad_concat.jsonl"
	[[ "$stderr" == *"bad_concat.jsonl:3: invalid JSON (RFC 8259): unexpected end of the text at byte 88: line skipped"* ]]
	[[ "$stderr" == *'bad_concat.jsonl:4: "seq" must be an integer >= 1'* ]]
	[[ "$stderr" == *"bad_concat.jsonl:5: parent 1 was not imported"* ]]
	[[ "$stderr" == *"bad_concat.jsonl:7: parent 1 was not imported"* ]]
	a=$(printf 'ktraj:A' | sha256sum | cut -c1-32)
	b=$(printf 'ktraj:B' | sha256sum | cut -c1-32)
	[[ "$output" == *"\"run\":\"$a\""* && "$output" == *"\"run\":\"$b\""* ]]
	# A lost its last line only; in B the bad line held seq 1
	[ "$(shape "$a")" = "1:0 2:1" ]
	[ "$(shape "$b")" = "1:0 2:1 3:0" ]
}

@test "seqs that start at 5 or have a gap, with no bad line, keep every parent that names a stored event" {
	cat >"$BATS_TEST_TMPDIR/gap.jsonl" <<-'EOF'
	{"seq":5,"kind":"tool_call","payload":{"tool":"Bash","call_id":"c1","args":{}}}
	{"seq":6,"kind":"tool_result","parent":5,"payload":{"call_id":"c1","ok":true,"output":""}}
	{"seq":9,"kind":"note","parent":6,"payload":{"text":"after a gap"}}
	{"seq":10,"kind":"note","parent":5,"payload":{"text":"names the first"}}
	EOF
	run -0 --separate-stderr "$KTRAJ" import "$BATS_TEST_TMPDIR/gap.jsonl"
	[[ "$stderr" != *"not imported"* ]]
	[ "$(shape "$(runs)")" = "1:0 2:1 3:2 4:1" ]
}

@test "a parent that is not an earlier event is dropped (reported), not the whole file" {
	cat >"$BATS_TEST_TMPDIR/fwd.jsonl" <<-'EOF'
	{"seq":1,"kind":"note","payload":{"text":"a"}}
	{"seq":2,"kind":"note","parent":2,"payload":{"text":"names itself"}}
	{"seq":3,"kind":"note","parent":7,"payload":{"text":"names a later one"}}
	{"seq":4,"kind":"note","parent":3,"payload":{"text":"b"}}
	EOF
	run -0 --separate-stderr "$KTRAJ" import "$BATS_TEST_TMPDIR/fwd.jsonl"
	[[ "$stderr" == *"fwd.jsonl:2: parent 2 is not an earlier event"* ]]
	[[ "$stderr" == *"fwd.jsonl:3: parent 7 is not an earlier event"* ]]
	[[ "$stderr" != *"not imported:"* ]]
	[ "$(shape "$(runs)")" = "1:0 2:0 3:0 4:3" ]
	# --strict: the first problem keeps nothing of the file and fails
	run --separate-stderr env KTRAJ_STORE="$BATS_TEST_TMPDIR/b.ktraj" \
		"$KTRAJ" import --strict "$BATS_TEST_TMPDIR/fwd.jsonl"
	[ "$status" -ne 0 ]
	[[ "$stderr" == *"fwd.jsonl:2: parent 2 is not an earlier event"* ]]
	[ -z "$(KTRAJ_STORE="$BATS_TEST_TMPDIR/b.ktraj" "$KTRAJ" ls --json)" ]
}

@test "--strict: a bad line keeps nothing of the file and fails; without it the rest is kept, exit 0" {
	for f in bad_mid bad_nul bad_call bad_concat; do
		run --separate-stderr env KTRAJ_STORE="$BATS_TEST_TMPDIR/$f.ktraj" \
			"$KTRAJ" import --strict "$D/$f.jsonl"
		[ "$status" -ne 0 ]
		# one line, the first problem
		[[ "$stderr" == "ktraj: import: $D/$f.jsonl:3: "* ]]
		[[ "$stderr" != *$'\n'* ]]
		[ -z "$(KTRAJ_STORE="$BATS_TEST_TMPDIR/$f.ktraj" "$KTRAJ" ls --json)" ]
	done
}

# An export of two runs in one file, the first event line of the second run
# cut short: every other event of it is stored one seq down, its parent and
# edit call moved with it, those naming the cut line dropped; the first run
# is the same, byte for byte.  Uncut, the file imports into another store
# as the same runs, every hash and chain equal.
@test "export of two runs, round trip, then with the second run's first event cut" {
	"$KTRAJ" import "$BATS_TEST_DIRNAME/../data/import/claude/s2x.jsonl" \
		"$D/bad_call.jsonl" >/dev/null 2>&1
	[ "$(runs | wc -l)" -eq 2 ]
	for r in $(runs claude_code) $(runs bad_call); do
		"$KTRAJ" export "$r" --format jsonl
	done >"$BATS_TEST_TMPDIR/two.jsonl"
	# round trip: import (and append) elsewhere give the same hashes
	B="$BATS_TEST_TMPDIR/b.ktraj"
	run -0 --separate-stderr env KTRAJ_STORE="$B" "$KTRAJ" import "$BATS_TEST_TMPDIR/two.jsonl"
	[ -z "$stderr" ]
	for r in $(runs); do
		KTRAJ_STORE="$B" "$KTRAJ" export "$r" --format jsonl | cmp - <("$KTRAJ" export "$r" --format jsonl)
	done
	r1=$(runs claude_code)
	r2=$(runs bad_call)
	[ -n "$r1" ] && [ -n "$r2" ] || false
	"$KTRAJ" export "$r2" --format jsonl |
		KTRAJ_STORE="$BATS_TEST_TMPDIR/c.ktraj" "$KTRAJ" append copy >/dev/null
	diff <(KTRAJ_STORE="$BATS_TEST_TMPDIR/c.ktraj" "$KTRAJ" export copy --format jsonl |
		python3 -c 'import json,sys; [print(json.loads(l).get("hash")) for l in sys.stdin]') \
		<("$KTRAJ" export "$r2" --format jsonl |
		python3 -c 'import json,sys; [print(json.loads(l).get("hash")) for l in sys.stdin]')
	# the cut: the first event line after the second run line
	python3 - "$BATS_TEST_TMPDIR/two.jsonl" "$BATS_TEST_TMPDIR/cut.jsonl" <<-'EOF'
	import json, sys
	lines = open(sys.argv[1]).read().splitlines()
	runs = [i for i, l in enumerate(lines) if l.startswith('{"run":{')]
	cut = next(i for i in range(runs[1], len(lines)) if '"kind":' in lines[i] and '"seq":1,' in lines[i])
	lines[cut] = lines[cut][:-1]
	open(sys.argv[2], "w").write("\n".join(lines) + "\n")
	EOF
	C="$BATS_TEST_TMPDIR/d.ktraj"
	run -0 --separate-stderr env KTRAJ_STORE="$C" "$KTRAJ" import "$BATS_TEST_TMPDIR/cut.jsonl"
	[[ "$stderr" == *"cut.jsonl:"*": invalid JSON (RFC 8259): unexpected end of the text at byte "*": line skipped"* ]]
	KTRAJ_STORE="$C" "$KTRAJ" export "$r1" --format jsonl | cmp - <("$KTRAJ" export "$r1" --format jsonl)
	# what the second run must be: source seq s>1 stored as s-1, each
	# parent/call/step p>1 as p-1, p=1 dropped
	want=$("$KTRAJ" export "$r2" --format jsonl | python3 -c '
import json,sys
m = lambda p: p - 1 if p and p > 1 else 0
out = []
for l in sys.stdin:
    o = json.loads(l)
    if "seq" not in o or o["seq"] == 1:
        continue
    s = "%d:%d" % (o["seq"] - 1, m(o["parent"]))
    for k in ("call", "step"):
        if k in o["payload"] and m(o["payload"][k]):
            s += ":%s=%d" % (k, m(o["payload"][k]))
    out.append(s)
print(" ".join(out))')
	[ "$(KTRAJ_STORE="$C" shape "$r2")" = "$want" ]
	KTRAJ_STORE="$C" "$KTRAJ" verify
}

# The store refuses an actor over 65535 bytes and an event body over 64 MiB
# (FORMAT.md section 3) by failing the whole transaction: such a line is
# skipped like a bad one instead of losing the file.
@test "an event the store would refuse (actor or payload too large) is skipped, not the file" {
	python3 - "$BATS_TEST_TMPDIR/big.jsonl" <<-'EOF'
	import json, sys
	with open(sys.argv[1], "w") as o:
	    for e in ({"seq": 1, "kind": "note", "payload": {"text": "a"}},
	              {"seq": 2, "kind": "note", "parent": 1, "actor": "x" * 70000, "payload": {"text": "b"}},
	              {"seq": 3, "kind": "note", "parent": 1, "payload": {"text": "x" * (65 << 20)}},
	              {"seq": 4, "kind": "note", "parent": 1, "payload": {"text": "c"}},
	              {"seq": 5, "kind": "note", "parent": 3, "payload": {"text": "d"}}):
	        o.write(json.dumps(e) + "\n")
	EOF
	run -0 --separate-stderr "$KTRAJ" import "$BATS_TEST_TMPDIR/big.jsonl"
	[[ "$stderr" == *'big.jsonl:2: "actor" is 70000 bytes'* ]]
	[[ "$stderr" == *"big.jsonl:3: event too large to store"* ]]
	[[ "$stderr" == *"big.jsonl:5: parent 3 was not imported"* ]]
	[[ "$stderr" != *"not imported:"* ]]
	[ "$(shape "$(runs)")" = "1:0 2:1 3:0" ]
	run --separate-stderr env KTRAJ_STORE="$BATS_TEST_TMPDIR/b.ktraj" \
		"$KTRAJ" import --strict "$BATS_TEST_TMPDIR/big.jsonl"
	[ "$status" -ne 0 ]
	[ "$stderr" = "ktraj: import: $BATS_TEST_TMPDIR/big.jsonl:2: \"actor\" is 70000 bytes (at most 65535)" ]
	[ -z "$(KTRAJ_STORE="$BATS_TEST_TMPDIR/b.ktraj" "$KTRAJ" ls --json)" ]
}

@test "a first line that does not parse does not hide the file from format detection" {
	tail -n +3 "$D/bad_mid.jsonl" >"$BATS_TEST_TMPDIR/first.jsonl"
	run -0 --separate-stderr "$KTRAJ" import --json "$BATS_TEST_TMPDIR/first.jsonl"
	[[ "$stderr" == *"first.jsonl:1: invalid JSON (RFC 8259): unexpected end of the text at byte 93: line skipped"* ]]
	[[ "$stderr" != *"not recognized"* ]]
	[[ "$output" == *'"format":"ktraj"'*'"added":3'* ]]
	# a line that is not ktraj at all still is not taken for it
	printf '%s\n' '{"type":"user","text":"a"' '{"seq":1,"kind":"note","payload":{"text":"b"}}' \
		>"$BATS_TEST_TMPDIR/other.jsonl"
	run --separate-stderr "$KTRAJ" import "$BATS_TEST_TMPDIR/other.jsonl"
	[[ "$stderr" == *"other.jsonl: format not recognized"* ]]
}
