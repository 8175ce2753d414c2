#!/usr/bin/env bats
# Rough edges a new user hit (issue 20's review): each test is one of them.

bats_require_minimum_version 1.5.0

SAMPLE="$BATS_TEST_DIRNAME/../data/sample/softmax_session.jsonl"

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
}

@test "search '' or a blank TEXT: exit 2 with one line saying why, nothing printed" {
	"$KTRAJ" import "$SAMPLE" >/dev/null
	for t in '' ' ' $'\t \n'; do
		run --separate-stderr "$KTRAJ" search "$t"
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
		[[ "$stderr" == "ktraj: search: what should I search for? (an empty or blank TEXT would match every event)"* ]]
	done
	run --separate-stderr "$KTRAJ" search '' '' --json
	[ "$status" -eq 2 ]
	# an empty word next to a real one still searches
	run "$KTRAJ" search '' online
	[ "$status" -eq 0 ]
	[[ "$output" == *"online"* ]]
}

@test "ls: a long format name and a long run name keep the columns aligned; a terminal gets names cut to its width" {
	"$KTRAJ" import "$SAMPLE" >/dev/null
	long=$(printf 'a run name that goes on %.0s' {1..8})
	printf '%s\n%s\n' \
		'{"run":{"id":"0123456789abcdef0123456789abcdef","name":"'"$long"'","format":"my_inhouse_agent_v2"}}' \
		'{"seq":1,"kind":"note","actor":"agent","payload":{"text":"x"}}' >"$BATS_TEST_TMPDIR/k.jsonl"
	"$KTRAJ" import --format ktraj "$BATS_TEST_TMPDIR/k.jsonl" >/dev/null
	run "$KTRAJ" ls --sort id
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	# every row's CREATED column starts where the header's does
	col=$(printf '%s\n' "${lines[0]}" | grep -bo 'CREATED' | cut -d: -f1)
	for l in "${lines[@]:1}"; do
		[[ "${l:$col:4}" =~ ^20[0-9][0-9]$ ]] || { echo "misaligned: $l"; false; }
	done
	[[ "${lines[1]}" == *"  my_inhouse_agent_v2 "* ]]
	# a pipe gets the whole name (as stored: the import cut it)
	name=$("$KTRAJ" ls --sort id --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["name"])')
	[ "${#name}" -gt 60 ]
	[[ "${lines[1]}" == *"  $name" ]]
	# an 80-column terminal: every row fits, the long name ends in ...
	command -v script >/dev/null || skip "no script(1) for a terminal"
	script -qec "stty cols 80; '$KTRAJ' ls --sort id" /dev/null >"$BATS_TEST_TMPDIR/tty.txt"
	tr -d '\r' <"$BATS_TEST_TMPDIR/tty.txt" >"$BATS_TEST_TMPDIR/tty2.txt"
	cat "$BATS_TEST_TMPDIR/tty2.txt"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/tty2.txt")" -eq 3 ]
	while IFS= read -r l; do
		[ "${#l}" -le 80 ]
	done <"$BATS_TEST_TMPDIR/tty2.txt"
	grep -q '\.\.\.$' "$BATS_TEST_TMPDIR/tty2.txt"
}
