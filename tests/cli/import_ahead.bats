#!/usr/bin/env bats
# Claude Code lines parsed on a second thread ahead of the importer
# (import/parse_ahead.c, issue 21): a session over 4 MiB imported with the
# thread (two CPUs, kt_threads_for) and with KTRAJ_THREADS=1 gives the same
# runs, the same exported events, the same warnings in the same order
# (stderr compared whole) and a store that verifies.  Sessions: one made by
# tests/bench/gen_claude.py with every kind of bad line put in (blank, not
# UTF-8, not an object, not JSON, a line over the 100 MB limit, a last line
# cut short), and the corpus's real Claude Code sessions joined into one
# file over 4 MiB (skipped without $CORPUS).  That the thread runs at all
# is tests/unit/t_import_threads.c's to show.

bats_require_minimum_version 1.5.0

setup() {
	W="$BATS_TEST_TMPDIR"
	if [ "$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')" -lt 2 ]; then
		skip "one CPU: no second thread"
	fi
}

# bad_lines K: one of each line parse_line warns about or repairs
bad_lines() {
	printf '\n   \t\n'
	printf '[1,2,3]\n'
	printf '{"type":"user","message":{"role":"user","content":"bad \377\376 %s"},"uuid":"bx%s","sessionId":"s"}\n' "$1" "$1"
	printf '{"type":"user","message":{"role":"user","content":"half \\ud83d %s"},"uuid":"sx%s","sessionId":"s"}\n' "$1" "$1"
	printf '{"type":"user","x":"nul \\u0000"}\n'
	printf '\357\273\277{"type":"summary","summary":"b"}\n'
	printf '{"type": "user", "message": \n'
	printf '{"no_type":%s}\n' "$1"
	printf '{"type":"user","n":01}\n'
}

# same_both FILE: import FILE on one thread and on two into two stores;
# their output, warnings, exported events and verify must be the same
same_both() {
	local f=$1 t
	for t in 1 2; do
		if [ "$t" = 1 ]; then
			KTRAJ_THREADS=1 "$KTRAJ" --store "$W/s$t.ktraj" --no-progress import "$f" >"$W/out$t" 2>"$W/err$t" || echo "exit $?" >>"$W/out$t"
		else
			env -u KTRAJ_THREADS "$KTRAJ" --store "$W/s$t.ktraj" --no-progress import "$f" >"$W/out$t" 2>"$W/err$t" || echo "exit $?" >>"$W/out$t"
		fi
		: >"$W/ex$t"
		for r in $("$KTRAJ" --store "$W/s$t.ktraj" ls --json | python3 -c 'import json,sys; [print(json.loads(l)["run"]) for l in sys.stdin]' | sort); do
			"$KTRAJ" --store "$W/s$t.ktraj" export "$r" --format jsonl >>"$W/ex$t"
		done
		"$KTRAJ" --store "$W/s$t.ktraj" verify >"$W/ver$t"
	done
	diff "$W/out1" "$W/out2"
	diff "$W/err1" "$W/err2"
	cmp "$W/ex1" "$W/ex2"
	diff "$W/ver1" "$W/ver2"
	[ -s "$W/ex1" ]
}

@test "a generated session with every kind of bad line: same store, same warnings on one thread and two" {
	python3 "$BATS_TEST_DIRNAME/../bench/gen_claude.py" --mb 6 "$W/g.jsonl" >/dev/null
	f="$W/bad.jsonl"
	k=0
	# bad lines after the first line, in the middle and near the end
	while IFS= read -r line; do
		printf '%s\n' "$line"
		k=$((k + 1))
		if [ $((k % 500)) -eq 1 ]; then bad_lines "$k"; fi
	done <"$W/g.jsonl" >"$f"
	# a line over the 100 MB limit, then a last line cut short
	python3 -c 'import sys; sys.stdout.write("{\"type\":\"user\",\"x\":\"" + "a" * (100 << 20) + "\"}\n")' >>"$f"
	printf '{"type":"user","message":{"role":"us' >>"$f"
	[ "$(stat -c %s "$f")" -gt $((100 << 20)) ]
	same_both "$f"
	grep -q "invalid UTF-8" "$W/err1"
	grep -q "surrogate" "$W/err1"
	grep -q "not a JSON object" "$W/err1"
	grep -q "over the 100 MB limit" "$W/err1"
	grep -q "truncated" "$W/err1"
	[ "$(grep -c 'no "type" string' "$W/err1")" -ge 3 ]
}

@test "corpus Claude Code sessions joined into one file over 4 MiB: same store, same warnings on one thread and two" {
	[ -n "${CORPUS:-}" ] && [ -d "$CORPUS/claude_code" ] || skip "no corpus"
	f="$W/joined.jsonl"
	: >"$f"
	for s in "$CORPUS"/claude_code/*.jsonl; do
		cat "$s" >>"$f"
		# a file that does not end in a newline would join two lines
		[ -z "$(tail -c1 "$s")" ] || echo >>"$f"
		bad_lines "$(basename "$s" .jsonl)" >>"$f"
	done
	[ "$(stat -c %s "$f")" -gt $((4 << 20)) ]
	same_both "$f"
	[ "$(wc -l <"$W/ex1")" -ge 1000 ]
}
