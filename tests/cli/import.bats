#!/usr/bin/env bats
# `ktraj import`: output lines and --json, idempotence, warnings as
# file:line, --strict, --format, stdin, archives, bounds, usage errors.
# Fixtures: tests/data/import/claude (ours); corpus tests skip without it.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	FIX="$BATS_TEST_DIRNAME/../data/import/claude"
}

@test "import --help lists the formats" {
	run "$KTRAJ" import --help
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "usage: ktraj import"* ]]
	[[ "$output" == *"claude_code"* ]]
}

@test "import prints one line per run; again adds nothing" {
	run "$KTRAJ" import "$FIX/s2x.jsonl"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == *"claude_code"*"Kernel speedup session" ]]
	n=$(echo "${lines[0]}" | awk '{print $2}')
	[ "$n" -ge 25 ]
	[[ "${lines[0]}" == *" $n events"*" $n added"* ]]
	run "$KTRAJ" import "$FIX/s2x.jsonl"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *" $n events"*" 0 added"* ]]
}

@test "import --json gives run, name, format, events, added" {
	run "$KTRAJ" import --json "$FIX/s2x.jsonl"
	[ "$status" -eq 0 ]
	echo "$output" | python3 -c '
import json,sys
r=json.loads(sys.stdin.readline())
assert r["format"]=="claude_code" and r["events"]>=25 and r["added"]==r["events"], r
assert len(r["run"])==32 and r["name"]=="Kernel speedup session", r'
}

@test "malformed lines: warnings as file:line on stderr, exit 0" {
	run --separate-stderr "$KTRAJ" import "$FIX/malformed.jsonl"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"ktraj: import: "*"malformed.jsonl:2: not a JSON object"* ]]
	# raw bad bytes are repaired as U+FFFD and the line kept
	[[ "$stderr" == *"malformed.jsonl:6: invalid UTF-8 at byte 55: replaced by U+FFFD"* ]]
	[[ "$stderr" == *"malformed.jsonl:7: JSON nested deeper"* ]]
	[[ "$output" == *"3 events"* ]]
}

@test "--strict: first problem fails, names the file, keeps nothing" {
	run --separate-stderr "$KTRAJ" import --strict "$FIX/malformed.jsonl"
	[ "$status" -ne 0 ]
	[[ "$stderr" == *"malformed.jsonl"* ]]
	run "$KTRAJ" ls --json
	[ -z "$output" ] || ! echo "$output" | grep -q malformed
	run "$KTRAJ" verify
	[ "$status" -eq 0 ]
}

@test "stdin (-) imports like the file" {
	cp "$FIX/s2x.jsonl" "$BATS_TEST_TMPDIR/alone.jsonl"
	want=$(KTRAJ_STORE="$BATS_TEST_TMPDIR/ref.ktraj" "$KTRAJ" import --json "$BATS_TEST_TMPDIR/alone.jsonl")
	run "$KTRAJ" import --json - <"$FIX/s2x.jsonl"
	[ "$status" -eq 0 ]
	[ "$output" = "$want" ]
}

@test "--format forces an importer; an unknown one is a usage error" {
	run "$KTRAJ" import --format claude_code "$FIX/s2x.jsonl"
	[ "$status" -eq 0 ]
	run "$KTRAJ" import --format nosuch "$FIX/s2x.jsonl"
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown format"* ]]
}

@test "usage errors: no path, bad option, bad bound" {
	run "$KTRAJ" import
	[ "$status" -eq 2 ]
	run "$KTRAJ" import --bogus x
	[ "$status" -eq 2 ]
	run "$KTRAJ" import --max-ratio zero x
	[ "$status" -eq 2 ]
}

@test "a missing path fails naming it" {
	run --separate-stderr "$KTRAJ" import "$BATS_TEST_TMPDIR/nope.jsonl"
	[ "$status" -ne 0 ]
	[[ "$stderr" == *"nope.jsonl"* ]]
}

@test "a folder and its tar.gz give the same runs" {
	run --separate-stderr "$KTRAJ" import --json "$FIX"
	[ "$status" -eq 0 ]
	a=$(echo "$output" | python3 -c 'import json,sys; print(sorted(json.loads(l)["run"] for l in sys.stdin))')
	tar -C "$FIX/.." -czf "$BATS_TEST_TMPDIR/c.tar.gz" claude
	run --separate-stderr "$KTRAJ" import --json "$BATS_TEST_TMPDIR/c.tar.gz"
	[ "$status" -eq 0 ]
	b=$(echo "$output" | python3 -c 'import json,sys; print(sorted(json.loads(l)["run"] for l in sys.stdin))')
	[ "$a" = "$b" ]
	[[ "$output" == *'"added":0'* ]]
}

@test "--max-ratio stops a bomb with an error" {
	python3 -c '
import zipfile,sys
with zipfile.ZipFile(sys.argv[1],"w",zipfile.ZIP_DEFLATED) as z, z.open("b.jsonl","w") as f:
    for _ in range(32): f.write(b"\n"*(1<<20))' "$BATS_TEST_TMPDIR/b.zip"
	run --separate-stderr "$KTRAJ" import --max-ratio 10 "$BATS_TEST_TMPDIR/b.zip"
	[ "$status" -ne 0 ]
	[[ "$stderr" == *"expands beyond"* ]]
}

@test "corpus: the vsla session imports with its exact counts" {
	C="${CORPUS:-$BATS_TEST_DIRNAME/../../../shared/corpus}"
	[ -d "$C/claude_code" ] || skip "no corpus"
	run "$KTRAJ" import --json "$C/claude_code/vsla_cuda_dev_f67ab274.jsonl"
	[ "$status" -eq 0 ]
	R=$(echo "$output" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	"$KTRAJ" log "$R" --json | python3 -c '
import json,sys
rows=[json.loads(l) for l in sys.stdin]
calls=sum(r["kind"]=="tool_call" for r in rows)
human=sum(r["kind"]=="message" and r.get("human") is True for r in rows)
assert (calls,human)==(260,17), (calls,human)'
}

@test "--redact: e-mails and home user names do not reach the store" {
	printf '%s\n' '{"type":"user","sessionId":"red-1","uuid":"r1","parentUuid":null,"cwd":"/home/alice/proj","timestamp":"2025-01-01T00:00:00Z","message":{"role":"user","content":"mail bob.smith@example.com about /home/alice/proj/k.cu"}}' >"$BATS_TEST_TMPDIR/r.jsonl"
	run --separate-stderr "$KTRAJ" import --json --redact "$BATS_TEST_TMPDIR/r.jsonl"
	[ "$status" -eq 0 ]
	R=$(echo "$output" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	run "$KTRAJ" log "$R" --json
	[ "$status" -eq 0 ]
	[[ "$output" != *"bob.smith@example.com"* ]]
	[[ "$output" != *"alice"* ]]
	run "$KTRAJ" ls --json
	[[ "$output" != *"alice"* ]]
}
