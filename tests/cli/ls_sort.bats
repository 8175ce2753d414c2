#!/usr/bin/env bats
# `ktraj ls`: newest first, --sort/--reverse, --format, --name, --since.

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
