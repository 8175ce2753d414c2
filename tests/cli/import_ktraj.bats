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
