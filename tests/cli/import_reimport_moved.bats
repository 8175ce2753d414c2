#!/usr/bin/env bats
# A Claude Code session file that holds a byte-identical repeated line
# (skipped by the importer, reported as "repeats line N") gives the same
# events as the copy without it, but from other lines.  Re-importing one
# copy into a store that holds the session from the other is not "another
# source with the same identity": the last stored event is compared with
# the one re-emitted at its seq (kind, parent, ts, actor, payload), and
# when they are the same the source continues the run - nothing changes in
# the stored events (their provenance names the copy they came from), and
# a copy that grew adds its new events.  A copy whose events really differ
# still adds nothing and says so ("does not continue").  Fixture: our own
# tests/data/import/claude/s2x.jsonl, cut and changed in the temp dir.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	S="$BATS_TEST_DIRNAME/../data/import/claude/s2x.jsonl"
	T="$BATS_TEST_TMPDIR"
	mkdir -p "$T/plain" "$T/rep" "$T/plain13" "$T/rep13"
	cp "$S" "$T/plain/s.jsonl"
	# line 3 given twice, byte for byte
	awk 'NR==3{print} {print}' "$S" >"$T/rep/s.jsonl"
	head -13 "$S" >"$T/plain13/s.jsonl"
	head -13 "$T/rep/s.jsonl" >"$T/rep13/s.jsonl"
}

# every stored event of run $1: seq, kind, prov line and payload hash
events() {
	"$KTRAJ" export "$1" --format jsonl | python3 -c '
import json,sys
for o in map(json.loads, sys.stdin):
    if "kind" in o:
        print(o["seq"], o["kind"], (o.get("prov") or {}).get("line"), o["hash"])'
}

# import $1 and print "events added" of its one run; stderr in $T/err
imp() {
	"$KTRAJ" import --json "$1" 2>"$T/err" |
		python3 -c 'import json,sys; r=json.loads(sys.stdin.readline()); print(r["events"], r["added"])'
}

@test "the copy with a repeated line after the copy without it, and the reverse: the same run, nothing added, no 'does not continue'" {
	for order in "plain rep" "rep plain"; do
		set -- $order
		export KTRAJ_STORE="$T/$1.ktraj"
		read -r n a < <(imp "$T/$1/s.jsonl")
		[ "$a" -eq "$n" ]
		run "$KTRAJ" ls --json
		id=$(echo "$output" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
		before=$(events "$id")
		read -r n2 a2 < <(imp "$T/$2/s.jsonl")
		cat "$T/err"
		[ "$n2" -eq "$n" ] && [ "$a2" -eq 0 ] || false
		! grep -q "does not continue" "$T/err" || false
		# only the repeat itself is reported, by the copy that has it
		if [ "$2" = rep ]; then
			[ "$(cat "$T/err")" = "ktraj: import: $T/rep/s.jsonl:4: repeats line 3 (uuid u3): skipped" ]
		else
			[ ! -s "$T/err" ]
		fi
		# the stored events are untouched, provenance included
		[ "$(events "$id")" = "$before" ]
		"$KTRAJ" verify >/dev/null
	done
}

@test "a grown copy with the repeat continues a run imported without it (and the reverse): the new events are added" {
	for order in "plain13 rep" "rep13 plain"; do
		set -- $order
		export KTRAJ_STORE="$T/$1.ktraj"
		read -r n a < <(imp "$T/$1/s.jsonl")
		run "$KTRAJ" ls --json
		id=$(echo "$output" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
		before=$(events "$id")
		read -r n2 a2 < <(imp "$T/$2/s.jsonl")
		cat "$T/err"
		! grep -q "does not continue" "$T/err" || false
		# the whole session, as a fresh import of either copy gives it
		want=$(KTRAJ_STORE="$T/fresh_$1.ktraj" "$KTRAJ" import --json "$T/$2/s.jsonl" 2>/dev/null |
			python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["events"])')
		[ "$n2" -eq "$want" ] && [ "$a2" -eq $((want - n)) ] && [ "$a2" -gt 0 ] || false
		# the first events unchanged; the new ones exactly as a fresh
		# import of this copy stores them (provenance in this copy)
		[ "$(events "$id" | head -n "$n")" = "$before" ]
		[ "$(events "$id" | tail -n +"$((n + 1))")" = \
		  "$(KTRAJ_STORE="$T/fresh_$1.ktraj" events "$id" | tail -n +"$((n + 1))")" ]
		"$KTRAJ" verify >/dev/null
	done
}

@test "a copy whose events really differ on other lines still adds nothing and says it does not continue" {
	# another user line inserted before line 3: every later event moves
	# one seq up, so the event at the stored end is another one
	awk 'NR==3{l=$0; sub(/"uuid":"u3"/, "\"uuid\":\"x3\"", l); sub(/"content":"[^"]*"/, "\"content\":\"something else\"", l); print l} {print}' \
		"$T/plain13/s.jsonl" >"$T/other.jsonl"
	mkdir "$T/other" && mv "$T/other.jsonl" "$T/other/s.jsonl"
	! cmp -s <(sed -n 3p "$T/other/s.jsonl") <(sed -n 4p "$T/other/s.jsonl") || false
	read -r n a < <(imp "$T/plain13/s.jsonl")
	read -r n2 a2 < <(imp "$T/other/s.jsonl")
	cat "$T/err"
	[ "$n2" -eq "$n" ] && [ "$a2" -eq 0 ] || false
	grep -q "already holds $n events that this source does not continue" "$T/err"
}

# The same copies with e-mail addresses in them (three, the first one
# twice), for --redact: "<email-N>" is numbered as the addresses are met.
pii() {
	python3 - "$1" "$2" <<-'PY'
	import sys
	s = open(sys.argv[1]).read()
	s = s.replace("Make the kernel faster", "Make the kernel faster for bob@example.org")
	s = s.replace("build and run", "build and run, ask carol@example.net")
	s = s.replace("made the kernel faster.", "made the kernel faster; dave@example.com agrees, so does bob@example.org.")
	open(sys.argv[2], "w").write(s)
	PY
}

@test "--redact: a copy with a repeated line continues a run imported from the copy without it, as without --redact" {
	for d in plain rep plain13 rep13; do
		mkdir -p "$T/r$d" && pii "$T/$d/s.jsonl" "$T/r$d/s.jsonl"
	done
	grep -q carol@example.net "$T/rplain13/s.jsonl"
	grep -q dave@example.com "$T/rrep/s.jsonl"
	! grep -q dave@example.com "$T/rplain13/s.jsonl" || false
	for order in "plain rep" "rep plain" "plain13 rep" "rep13 plain"; do
		set -- $order
		export KTRAJ_STORE="$T/red_$1.ktraj"
		"$KTRAJ" import --json --redact "$T/r$1/s.jsonl" >"$T/first" 2>"$T/err"
		read -r n a < <(python3 -c 'import json,sys; r=json.loads(sys.stdin.readline()); print(r["events"], r["added"])' <"$T/first")
		id=$(python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])' <"$T/first")
		before=$(events "$id")
		"$KTRAJ" import --json --redact "$T/r$2/s.jsonl" >"$T/second" 2>"$T/err"
		cat "$T/err"
		read -r n2 a2 < <(python3 -c 'import json,sys; r=json.loads(sys.stdin.readline()); print(r["events"], r["added"])' <"$T/second")
		! grep -q "does not continue" "$T/err" || false
		# the whole session, as a fresh redacted import of the copy
		# gives it: the same placeholders for the same addresses
		want=$(KTRAJ_STORE="$T/rfresh_$1.ktraj" "$KTRAJ" import --json --redact "$T/r$2/s.jsonl" 2>/dev/null |
			python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["events"])')
		[ "$n2" -eq "$want" ] && [ "$a2" -eq $((want - n)) ] || false
		[ "$(events "$id" | head -n "$n")" = "$before" ]
		[ "$(events "$id" | tail -n +"$((n + 1))")" = \
		  "$(KTRAJ_STORE="$T/rfresh_$1.ktraj" events "$id" | tail -n +"$((n + 1))")" ]
		# redacted, and three addresses are three placeholders
		out=$("$KTRAJ" export "$id" --format jsonl)
		[[ "$out" != *@example.* ]]
		[[ "$out" == *"<email-1>"* && "$out" == *"<email-2>"* && "$out" == *"<email-3>"* ]]
		"$KTRAJ" verify >/dev/null
	done
}
