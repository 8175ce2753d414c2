#!/usr/bin/env bats
# `ktraj ls`: newest first, --sort/--reverse, --format, --name, --since.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	note='{"kind":"note","payload":{"text":"x"}}'
	# created in this order: b-run (1 event), a-run (3), c-run (2)
	echo "$note" | "$KTRAJ" append b-run 2>/dev/null
	printf '%s\n%s\n%s\n' "$note" "$note" "$note" | "$KTRAJ" append a-run 2>/dev/null
	printf '%s\n%s\n' "$note" "$note" | "$KTRAJ" append c-run 2>/dev/null
}

names() { "$KTRAJ" ls "$@" --json | python3 -c 'import json,sys; print(" ".join(json.loads(l)["name"] for l in sys.stdin))'; }

@test "ls: newest first by default, --reverse oldest first" {
	[ "$(names)" = "c-run a-run b-run" ]
	[ "$(names --reverse)" = "b-run a-run c-run" ]
	run "$KTRAJ" ls
	[ "$status" -eq 0 ]
	[[ "${lines[1]}" == *" c-run" ]]
	[[ "${lines[3]}" == *" b-run" ]]
}

@test "ls --sort name|events|id" {
	[ "$(names --sort name)" = "a-run b-run c-run" ]
	[ "$(names --sort events)" = "a-run c-run b-run" ]
	ids=$("$KTRAJ" ls --sort id --json | python3 -c 'import json,sys; print(" ".join(json.loads(l)["run"] for l in sys.stdin))')
	[ "$ids" = "$(printf '%s\n' $ids | sort | tr '\n' ' ' | sed 's/ $//')" ]
	run "$KTRAJ" ls --sort size
	[ "$status" -eq 2 ]
	[[ "$output" == "ktraj: ls: --sort takes created, name, events, format or id, not 'size'"* ]]
}

@test "ls --name GLOB and --format F filter" {
	[ "$(names --name 'a-*')" = "a-run" ]
	[ "$(names --name '[bc]-run' --sort name)" = "b-run c-run" ]
	[ "$(names --format append --sort name)" = "a-run b-run c-run" ]
	[ -z "$(names --format claude_code)" ]
	run "$KTRAJ" ls --format claude_code
	[ "$status" -eq 0 ]
	[[ "$output" == "no run in "*" matches" ]]
}

@test "ls --since: a date, an age; a bad value is a usage error" {
	[ "$(names --since 2000-01-01 --sort name)" = "a-run b-run c-run" ]
	[ -z "$(names --since 2999-01-01)" ]
	[ "$(names --since 1d --sort name)" = "a-run b-run c-run" ]
	run "$KTRAJ" ls --since yesterday
	[ "$status" -eq 2 ]
	run "$KTRAJ" ls --since 5y
	[ "$status" -eq 2 ]
}

@test "ls --format: a name no run has and nothing writes is a usage error naming the formats" {
	run --separate-stderr "$KTRAJ" ls --format claudecode
	[ "$status" -eq 2 ]
	[[ "$stderr" == "ktraj: ls: --format: unknown format 'claudecode' (a run's format: append, bench, "*", claude_code, "*" (see \`ktraj ls --help\`)" ]]
	[ -z "$output" ]
	# a format an importer writes, with no run of it: nothing matches
	run --separate-stderr "$KTRAJ" ls --format claude_code
	[ "$status" -eq 0 ]
	[ "$stderr" = "no run in $KTRAJ_STORE matches" ]
	[ "$(names --format append)" = "c-run a-run b-run" ]
}

@test "ls --format: a run's own format is known, even one no importer writes (kept by an import of an export)" {
	"$KTRAJ" export b-run | sed '1s/"format":"append"/"format":"lab_fmt"/' >"$BATS_TEST_TMPDIR/e.jsonl"
	grep -q '"format":"lab_fmt"' "$BATS_TEST_TMPDIR/e.jsonl"
	KTRAJ_STORE="$BATS_TEST_TMPDIR/o.ktraj" "$KTRAJ" import "$BATS_TEST_TMPDIR/e.jsonl" >/dev/null
	run --separate-stderr env KTRAJ_STORE="$BATS_TEST_TMPDIR/o.ktraj" "$KTRAJ" ls --format lab_fmt --json
	[ "$status" -eq 0 ]
	[[ "$output" == *'"name":"b-run"'* ]]
}
