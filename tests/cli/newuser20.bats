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

# a best-of-k table: bench results with no timestamp, no edit, no tool call,
# sorted by runtime (so in file order the speedup only climbs)
table_run() {
	{
		echo '{"run":{"id":"00000000000000000000000000000a1e","name":"best-of-k table","format":"kernelbench"}}'
		i=0
		for t in 4 3 2 1.5 1; do
			i=$((i + 1))
			echo '{"seq":'$i',"kind":"bench","actor":"agent","payload":{"time_ms":'$t',"ref_time_ms":4,"correct":true,"workload":"matmul"}}'
		done
	} >"$BATS_TEST_TMPDIR/t.jsonl"
	"$KTRAJ" import --format ktraj "$BATS_TEST_TMPDIR/t.jsonl" >/dev/null
}

@test "report: results nothing orders in time are a table best first, not a chart over steps" {
	table_run
	run "$KTRAJ" report 00000000 -o "$BATS_TEST_TMPDIR/r.html"
	[ "$status" -eq 0 ]
	python3 - "$BATS_TEST_TMPDIR/r.html" <<'PY'
import re, sys
h = open(sys.argv[1]).read()
assert "<svg" not in h, "an unordered table drawn as a time series"
t = re.search(r'<table class="unordered">(.*?)</table>', h, re.S)
assert t, "no results table"
sp = [float(x) for x in re.findall(r'<td>x([0-9.]+)</td>', t.group(1))]
assert sp == [4.0, 2.667, 2.0, 1.333, 1.0], sp
assert "not successive attempts" in h
PY
	# a run with timestamps keeps its chart
	"$KTRAJ" import "$BATS_TEST_DIRNAME/../data/sample/softmax_session.jsonl" >/dev/null
	run "$KTRAJ" report 3db8 -o "$BATS_TEST_TMPDIR/s.html"
	[ "$status" -eq 0 ]
	grep -q '<svg class="chart"' "$BATS_TEST_TMPDIR/s.html"
	! grep -q 'class="unordered"' "$BATS_TEST_TMPDIR/s.html" || false
}

@test "report --json is refused with one line naming the JSON commands (exit 2), nothing written" {
	"$KTRAJ" import "$SAMPLE" >/dev/null
	for args in "3db8 -o $BATS_TEST_TMPDIR/r.html --json" "--json 3db8 -o $BATS_TEST_TMPDIR/r.html"; do
		run --separate-stderr "$KTRAJ" report $args
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
		[[ "$stderr" == "ktraj: report: --json: report writes HTML only; the analysis as JSON is \`blame speedup --json\` and \`stalls --json\`"* ]]
		[ ! -e "$BATS_TEST_TMPDIR/r.html" ]
	done
}
