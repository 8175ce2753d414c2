#!/usr/bin/env bats
# `ktraj import` of our own JSONL export: the run keeps its id and its
# event hashes (stdin and file), and importing it again adds nothing.
# Fixture: tests/data/import/claude/s2x.jsonl (ours).

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/a.ktraj"
	SRC="$BATS_TEST_DIRNAME/../data/import/claude/s2x.jsonl"
	B="$BATS_TEST_TMPDIR/b.ktraj"
	"$KTRAJ" import "$SRC" >/dev/null 2>&1
	R=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	"$KTRAJ" export "$R" --format jsonl >"$BATS_TEST_TMPDIR/e.jsonl"
}

@test "import of an export from stdin keeps the run id and every event hash" {
	run bash -c '"$KTRAJ" export "$1" --format jsonl | KTRAJ_STORE="$2" "$KTRAJ" import --json -' _ "$R" "$B"
	[ "$status" -eq 0 ]
	echo "$output" | R="$R" python3 -c '
import json,os,sys
r=[json.loads(l) for l in sys.stdin]
assert len(r)==1 and r[0]["run"]==os.environ["R"], r
assert r[0]["added"]==r[0]["events"]>=25, r'
	# same lines: same seq, parent, ts, prov, payload, hash and chain
	KTRAJ_STORE="$B" "$KTRAJ" export "$R" --format jsonl | cmp - "$BATS_TEST_TMPDIR/e.jsonl"
	KTRAJ_STORE="$B" "$KTRAJ" verify
	[ "$(KTRAJ_STORE="$B" "$KTRAJ" ls --json | wc -l)" -eq 1 ]
}

@test "import of an export file into another store and again: same run, nothing added" {
	run env KTRAJ_STORE="$B" "$KTRAJ" import --json "$BATS_TEST_TMPDIR/e.jsonl"
	[ "$status" -eq 0 ]
	[[ "$output" == *"\"run\":\"$R\""* ]]
	run env KTRAJ_STORE="$B" "$KTRAJ" import --json "$BATS_TEST_TMPDIR/e.jsonl"
	[ "$status" -eq 0 ]
	[[ "$output" == *"\"run\":\"$R\""*'"added":0'* ]]
	[[ "$output" != *"nothing appended"* ]]
	KTRAJ_STORE="$B" "$KTRAJ" export "$R" --format jsonl | cmp - "$BATS_TEST_TMPDIR/e.jsonl"
	# the file of `show --source` is the original source, not the export
	KTRAJ_STORE="$B" "$KTRAJ" show "$R" 1 --source | grep -q '"sessionId"'
}

@test "import of an export into the store it came from adds nothing and no run" {
	run "$KTRAJ" import --json "$BATS_TEST_TMPDIR/e.jsonl"
	[ "$status" -eq 0 ]
	[[ "$output" == *"\"run\":\"$R\""*'"added":0'* ]]
	[[ "$output" != *"nothing appended"* ]]
	[ "$("$KTRAJ" ls --json | wc -l)" -eq 1 ]
	"$KTRAJ" export "$R" --format jsonl | cmp - "$BATS_TEST_TMPDIR/e.jsonl"
}

@test "a run string that is not a run id stays an identity; append is unchanged" {
	printf '%s\n' '{"run":"mine","kind":"note","payload":{"text":"a"}}' >"$BATS_TEST_TMPDIR/n.jsonl"
	run env KTRAJ_STORE="$B" "$KTRAJ" import --json "$BATS_TEST_TMPDIR/n.jsonl"
	[ "$status" -eq 0 ]
	want=$(printf 'ktraj:mine' | sha256sum | cut -c1-32)
	[[ "$output" == *"\"run\":\"$want\""* ]]
	# append into a named run still takes the run from the command line
	KTRAJ_STORE="$B" "$KTRAJ" append other <"$BATS_TEST_TMPDIR/e.jsonl" >/dev/null
	run env KTRAJ_STORE="$B" "$KTRAJ" ls --json
	[[ "$output" == *'"name":"other"'* ]]
	KTRAJ_STORE="$B" "$KTRAJ" verify
}

@test "corpus: a real session exported and imported elsewhere is the same run, byte for byte" {
	[ -d "${CORPUS:-}" ] || skip "no corpus"
	C="$BATS_TEST_TMPDIR/c.ktraj"
	KTRAJ_STORE="$C" "$KTRAJ" import "$CORPUS/claude_code/vsla_sidechains_multiedit_5f8cbb78.jsonl" >/dev/null 2>&1
	RC=$(KTRAJ_STORE="$C" "$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	KTRAJ_STORE="$C" "$KTRAJ" export "$RC" --format jsonl >"$BATS_TEST_TMPDIR/c.jsonl"
	run env KTRAJ_STORE="$B" "$KTRAJ" import --json "$BATS_TEST_TMPDIR/c.jsonl"
	[ "$status" -eq 0 ]
	[[ "$output" == *"\"run\":\"$RC\""* ]]
	KTRAJ_STORE="$B" "$KTRAJ" export "$RC" --format jsonl | cmp - "$BATS_TEST_TMPDIR/c.jsonl"
	KTRAJ_STORE="$B" "$KTRAJ" verify >/dev/null
}

# Line n (1-based) of the export, with sed expression $2 applied, to $3.
edit_line() {
	sed "$1s/$2/" "$BATS_TEST_TMPDIR/e.jsonl" >"$3"
	! cmp -s "$BATS_TEST_TMPDIR/e.jsonl" "$3" || false
}

@test "an exported line changed after export is reported; --strict keeps nothing of it" {
	n=$(grep -n '"kind":"bench"' "$BATS_TEST_TMPDIR/e.jsonl" | head -1 | cut -d: -f1)
	seq=$(sed -n "${n}p" "$BATS_TEST_TMPDIR/e.jsonl" | python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["seq"])')
	edit_line "$n" '"time_ms":\([0-9.]*\)/"time_ms":9\1' "$BATS_TEST_TMPDIR/t2.jsonl"
	run env KTRAJ_STORE="$B" "$KTRAJ" import "$BATS_TEST_TMPDIR/t2.jsonl"
	[ "$status" -eq 0 ]
	[[ "$output" == *"t2.jsonl:$n: seq $seq does not hash to its \"hash\" (the line was changed after export)"* ]]
	# imported as it reads now, every seq in its place (only that one
	# event and the chain after it differ from the original)
	KTRAJ_STORE="$B" "$KTRAJ" export "$R" --format jsonl >"$BATS_TEST_TMPDIR/b.jsonl"
	python3 - "$BATS_TEST_TMPDIR/e.jsonl" "$BATS_TEST_TMPDIR/b.jsonl" "$seq" <<'PY'
import json,sys
a=[json.loads(l) for l in open(sys.argv[1]) if '"kind"' in l]
b=[json.loads(l) for l in open(sys.argv[2]) if '"kind"' in l]
s=int(sys.argv[3])
assert [e["seq"] for e in a]==[e["seq"] for e in b]
for x,y in zip(a,b):
    assert (x["hash"]==y["hash"])==(x["seq"]!=s), (x["seq"],)
    assert x["parent"]==y["parent"]
PY
	KTRAJ_STORE="$B" "$KTRAJ" verify
	C="$BATS_TEST_TMPDIR/c.ktraj"
	run env KTRAJ_STORE="$C" "$KTRAJ" import --strict "$BATS_TEST_TMPDIR/t2.jsonl"
	[ "$status" -ne 0 ]
	[[ "$output" == *"does not hash to its \"hash\""* ]]
	run env KTRAJ_STORE="$C" "$KTRAJ" ls --json
	[ -z "$output" ] || [[ "$output" != *"$R"* ]]
}

@test "the original export imported after a changed copy of it is reported, not taken as the stored run" {
	n=$(grep -n '"kind":"bench"' "$BATS_TEST_TMPDIR/e.jsonl" | head -1 | cut -d: -f1)
	seq=$(sed -n "${n}p" "$BATS_TEST_TMPDIR/e.jsonl" | python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["seq"])')
	edit_line "$n" '"time_ms":\([0-9.]*\)/"time_ms":9\1' "$BATS_TEST_TMPDIR/t2.jsonl"
	KTRAJ_STORE="$B" "$KTRAJ" import "$BATS_TEST_TMPDIR/t2.jsonl" >/dev/null 2>&1
	run env KTRAJ_STORE="$B" "$KTRAJ" import "$BATS_TEST_TMPDIR/e.jsonl"
	[ "$status" -eq 0 ]
	[[ "$output" == *"e.jsonl: changed since run ${R:0:12} was imported (its step $seq differs)"* ]]
	# a parent changed (the event's payload kept) is a change too
	p=$(grep -n '"parent":[0-9]' "$BATS_TEST_TMPDIR/e.jsonl" | sed -n 3p | cut -d: -f1)
	pseq=$(sed -n "${p}p" "$BATS_TEST_TMPDIR/e.jsonl" | python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["seq"])')
	edit_line "$p" '"parent":[0-9]*/"parent":1' "$BATS_TEST_TMPDIR/t3.jsonl"
	D="$BATS_TEST_TMPDIR/d.ktraj"
	KTRAJ_STORE="$D" "$KTRAJ" import "$BATS_TEST_TMPDIR/t3.jsonl" >/dev/null 2>&1
	run env KTRAJ_STORE="$D" "$KTRAJ" import "$BATS_TEST_TMPDIR/e.jsonl"
	[[ "$output" == *"(its step $pseq differs)"* ]]
	# the same file again, or the original into its own store: silent
	run env KTRAJ_STORE="$D" "$KTRAJ" import "$BATS_TEST_TMPDIR/t3.jsonl"
	[[ "$output" != *"changed since"* ]]
	run "$KTRAJ" import "$BATS_TEST_TMPDIR/e.jsonl"
	[ "$status" -eq 0 ]
	[[ "$output" != *"changed since"* ]]
}

@test "an event with a negative ts is a bad line, as for append" {
	n=$(grep -n '"kind":"bench"' "$BATS_TEST_TMPDIR/e.jsonl" | head -1 | cut -d: -f1)
	edit_line "$n" '"ts":[0-9]*/"ts":-5' "$BATS_TEST_TMPDIR/t3.jsonl"
	run env KTRAJ_STORE="$B" "$KTRAJ" import --json "$BATS_TEST_TMPDIR/t3.jsonl"
	[ "$status" -eq 0 ]
	[[ "$output" == *"t3.jsonl:$n: \"ts\" -5 is before 1970 (ns since the epoch; null = unknown); not imported"* ]]
	events=$(grep -c '"kind"' "$BATS_TEST_TMPDIR/e.jsonl")
	[[ "$output" == *"\"added\":$((events - 1))"* ]]
	run env KTRAJ_STORE="$B" "$KTRAJ" import --strict "$BATS_TEST_TMPDIR/t3.jsonl"
	[ "$status" -ne 0 ]
}

@test "a line with a top-level key twice is refused, by import and append alike" {
	H=2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881
	printf '%s\n' \
		'{"run":"dup","kind":"note","payload":{"text":"a"}}' \
		'{"run":"dup","kind":"message","kind":"bench","payload":{"text":"b"}}' \
		'{"run":"dup","kind":"note","ts":3,"ts":-5,"payload":{}}' \
		'{"run":"dup","kind":"note","payload":{"text":"c"},"payload":{}}' \
		"{\"blob\":\"$H\",\"text\":\"x\",\"text\":\"y\"}" \
		'{"run":"dup","kind":"note","payload":{"text":"d"}}' >"$BATS_TEST_TMPDIR/d.jsonl"
	run env KTRAJ_STORE="$B" "$KTRAJ" import --json "$BATS_TEST_TMPDIR/d.jsonl"
	[ "$status" -eq 0 ]
	[[ "$output" == *'d.jsonl:2: duplicate key "kind"'* ]]
	[[ "$output" == *'d.jsonl:3: duplicate key "ts"'* ]]
	[[ "$output" == *'d.jsonl:4: duplicate key "payload"'* ]]
	[[ "$output" == *'d.jsonl:5: duplicate key "text"'* ]]
	[[ "$output" == *'"added":2'* ]]
	run env KTRAJ_STORE="$B" "$KTRAJ" append dupapp <"$BATS_TEST_TMPDIR/d.jsonl"
	[ "$status" -ne 0 ]
	[[ "$output" == *'line 2: duplicate key "kind"'* ]]
}

@test "a blob text holding \\u0000 is refused with a pointer to base64" {
	# sha256 of "a\0b"; text cut at the NUL would be "a"
	H=$(printf 'a\0b' | sha256sum | cut -c1-64)
	printf '%s\n' '{"run":"nul","kind":"note","payload":{"text":"a"}}' \
		"{\"blob\":\"$H\",\"text\":\"a\\u0000b\"}" >"$BATS_TEST_TMPDIR/z.jsonl"
	run env KTRAJ_STORE="$B" "$KTRAJ" import "$BATS_TEST_TMPDIR/z.jsonl"
	[ "$status" -eq 0 ]
	[[ "$output" == *'z.jsonl:2: blob: "text" contains \u0000; use "base64" for binary content'* ]]
	[[ "$output" != *"does not hash"* ]]
	printf '%s\n' '{"run":"nul","kind":"note","payload":{"text":"a"}}' \
		"{\"blob\":\"$H\",\"base64\":\"YQBi\"}" >"$BATS_TEST_TMPDIR/z2.jsonl"
	run env KTRAJ_STORE="$B" "$KTRAJ" import "$BATS_TEST_TMPDIR/z2.jsonl"
	[ "$status" -eq 0 ]
	[[ "$output" != *"z2.jsonl:2"* ]]
	KTRAJ_STORE="$B" "$KTRAJ" verify
}
