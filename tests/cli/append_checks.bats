#!/usr/bin/env bats
# `ktraj append NAME` and `bench --record NAME`: a negative "ts" (other than
# null = unknown) is refused with the line number, and a new run's name must
# be one line of valid UTF-8 (ls, tables and reports print it), like the
# names the importer makes (import/runname.c).

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	"$KTRAJ" init >/dev/null
}

@test "append: a negative ts is refused with its line number; what came before stays" {
	run "$KTRAJ" append neg <<'EOF'
{"kind":"note","payload":{"text":"a"},"ts":1700000000000000000}
{"kind":"note","payload":{"text":"b"},"ts":null}
{"kind":"note","payload":{"text":"c"},"ts":-5}
{"kind":"note","payload":{"text":"d"}}
EOF
	[ "$status" -eq 1 ]
	[[ "$output" == *'ktraj: append: line 3: "ts" -5 is before 1970'* ]]
	run "$KTRAJ" log neg --json
	[ "$status" -eq 0 ]
	echo "$output" | python3 -c '
import json,sys
rows=[json.loads(l) for l in sys.stdin]
assert [r["seq"] for r in rows]==[1,2], rows
assert rows[0]["ts"]==1700000000000000000 and rows[1]["ts"] is None, rows'
	# -1 too (not mistaken for "unknown")
	run "$KTRAJ" append neg <<<'{"kind":"note","payload":{"text":"e"},"ts":-1}'
	[ "$status" -eq 1 ]
	[[ "$output" == *'line 1: "ts" -1 is before 1970'* ]]
	# 0 is 1970-01-01, a time
	run "$KTRAJ" append neg <<<'{"kind":"note","payload":{"text":"f"},"ts":0}'
	[ "$status" -eq 0 ]
}

@test "append: a new run's name with a newline, a tab, an escape or invalid UTF-8 is refused; nothing is created" {
	for name in $'two\nlines' $'tab\there' $'bad\xffbyte' $'esc\e[31m'; do
		run "$KTRAJ" append "$name" <<<'{"kind":"note","payload":{"text":"a"}}'
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == "ktraj: append: a new run's name must be one line of valid UTF-8"* ]]
	done
	run "$KTRAJ" ls --json
	[ -z "$output" ]
	# valid UTF-8 with spaces is a fine name, kept as given
	run "$KTRAJ" append 'ünï run 1' <<<'{"kind":"note","payload":{"text":"a"}}'
	[ "$status" -eq 0 ]
	"$KTRAJ" ls --json | python3 -c '
import json,sys
r=[json.loads(l) for l in sys.stdin]
assert [x["name"] for x in r]==["ünï run 1"], r'
}

@test "bench --record: a bad run name is refused before anything runs" {
	echo '__global__ void k(){}' >"$BATS_TEST_TMPDIR/cand.cu"
	export KTRAJ_HARNESS="$BATS_TEST_DIRNAME/../data/bench/fake_harness.sh" FAKE_ARGV="$BATS_TEST_TMPDIR/argv"
	run "$KTRAJ" bench --task attention_fwd --kernel "$BATS_TEST_TMPDIR/cand.cu" --record $'a\nb'
	[ "$status" -eq 2 ]
	[[ "$output" == *"ktraj: bench: a new run's name must be one line of valid UTF-8"* ]]
	[ ! -e "$FAKE_ARGV" ]
	run "$KTRAJ" ls --json
	[ -z "$output" ]
}

@test "append NAME: a short hex name that prefixes an imported run's id is refused, never appended to that run" {
	"$KTRAJ" import "$BATS_TEST_DIRNAME/../data/sample/softmax_session.jsonl" >/dev/null
	id=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	n=$("$KTRAJ" log "$id" --json | wc -l)
	run --separate-stderr "$KTRAJ" append "${id:0:4}" <<<'{"kind":"note","payload":{"text":"x"}}'
	[ "$status" -eq 2 ]
	[[ "$stderr" == "ktraj: append: '${id:0:4}' is a prefix of run $id's id, not a run name"* ]]
	[ "$("$KTRAJ" log "$id" --json | wc -l)" -eq "$n" ]
	# by its full id or its exact name the run takes the event
	run "$KTRAJ" append "$id" <<<'{"kind":"note","payload":{"text":"x"}}'
	[ "$status" -eq 0 ]
	[ "$("$KTRAJ" log "$id" --json | wc -l)" -eq $((n + 1)) ]
}

@test "append and import: an event line that is not UTF-8 is refused at its line (RFC 8259 8.1); log --json stays valid" {
	good='{"kind":"message","payload":{"role":"user","text":"caf\u00e9 ok"}}'
	bad=$(printf '{"kind":"message","payload":{"role":"user","text":"a\x9db"}}')
	run "$KTRAJ" append uapp <<<"$good"$'\n'"$bad"
	[ "$status" -eq 1 ]
	[[ "$output" == *'ktraj: append: line 2: invalid UTF-8 at byte 52'* ]]
	printf '%s\n%s\n%s\n' "$good" "$bad" '{"kind":"note","payload":{"text":"after"}}' \
		>"$BATS_TEST_TMPDIR/u.jsonl"
	run "$KTRAJ" import "$BATS_TEST_TMPDIR/u.jsonl"
	[ "$status" -eq 0 ]
	[[ "$output" == *'u.jsonl:2: invalid UTF-8 at byte 52'* ]]
	run --separate-stderr "$KTRAJ" import --strict "$BATS_TEST_TMPDIR/u.jsonl"
	[ "$status" -ne 0 ]
	"$KTRAJ" log uapp --json | python3 -c '
import json,sys
rows=[json.loads(l) for l in sys.stdin.buffer.read().decode("utf-8").splitlines()]
assert [r["text"] for r in rows]==["caf\u00e9 ok"], rows'
	"$KTRAJ" ls --json | python3 -c '
import json,sys
runs=[json.loads(l) for l in sys.stdin.buffer.read().decode("utf-8").splitlines()]
assert sorted(r["events"] for r in runs)==[1,2], runs'
}
