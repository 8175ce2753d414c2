#!/usr/bin/env bats
# Issue 21: an import's memory does not grow with the input.  The Claude
# Code importer's id sets go to a temporary LMDB file in $TMPDIR past
# KTRAJ_IMPORT_IDS ids a set (store/spill.h), and the workspace drops file
# contents past KTRAJ_IMPORT_WS bytes, reading them back from the store.
# Both must leave the store exactly as an import that keeps everything in
# memory: here the budgets are 1 (every id spilled, every other content
# dropped at each write) and the defaults, compared run by run.

bats_require_minimum_version 1.5.0

CORPUS=${CORPUS:-$BATS_TEST_DIRNAME/../../../shared/corpus}

setup() {
	export TMPDIR="$BATS_TEST_TMPDIR/tmp"
	mkdir -p "$TMPDIR"
}

# every run's log --json and export, and ls --json without the import
# time, of store $1 into file $2
dump() {
	local r
	KTRAJ_STORE=$1 "$KTRAJ" ls --json |
		python3 -c 'import json,sys
for l in sys.stdin:
    d = json.loads(l); d.pop("created", None); print(json.dumps(d, sort_keys=True))' >"$2"
	for r in $(KTRAJ_STORE=$1 "$KTRAJ" ls --json |
		   python3 -c 'import json,sys
for l in sys.stdin: print(json.loads(l)["run"])'); do
		KTRAJ_STORE=$1 "$KTRAJ" log "$r" --json >>"$2"
		KTRAJ_STORE=$1 "$KTRAJ" export --format jsonl "$r" >>"$2"
	done
}

# import $@ with the default budgets and with budgets of 1; both stores
# must give the same runs, events and blobs, the same import lines and
# warnings
same_both_ways() {
	local d=$BATS_TEST_TMPDIR
	KTRAJ_STORE="$d/a.ktraj" "$KTRAJ" --no-progress import "$@" >"$d/a.out" 2>"$d/a.err"
	KTRAJ_IMPORT_IDS=1 KTRAJ_IMPORT_WS=1 KTRAJ_STORE="$d/b.ktraj" \
		"$KTRAJ" --no-progress import "$@" >"$d/b.out" 2>"$d/b.err"
	dump "$d/a.ktraj" "$d/a.dump"
	dump "$d/b.ktraj" "$d/b.dump"
	[ -s "$d/a.dump" ]
	cmp "$d/a.out" "$d/b.out"
	cmp "$d/a.err" "$d/b.err"
	cmp "$d/a.dump" "$d/b.dump"
}

@test "corpus Claude Code sessions: spilled ids and dropped contents store the same runs" {
	[ -d "$CORPUS/claude_code" ] || skip "no corpus"
	same_both_ways "$CORPUS/claude_code"
}

@test "a session given twice: its repeated lines are found among spilled uuids" {
	[ -d "$CORPUS/claude_code" ] || skip "no corpus"
	local s="$CORPUS/claude_code/vsla_cuda_dev_f67ab274.jsonl"
	cat "$s" "$s" >"$BATS_TEST_TMPDIR/twice.jsonl"
	same_both_ways "$BATS_TEST_TMPDIR/twice.jsonl"
	# the repeats were seen (a spilled uuid compared with its line)
	grep -q 'repeats line' "$BATS_TEST_TMPDIR/b.err"
}

@test "a generated session with edits, reads and results: same store with budgets of 1" {
	python3 "$BATS_TEST_DIRNAME/../bench/gen_claude.py" --mb 2 \
		"$BATS_TEST_TMPDIR/g.jsonl" >/dev/null
	same_both_ways "$BATS_TEST_TMPDIR/g.jsonl"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/b.dump")" -gt 1000 ]
}

@test "the spill file leaves nothing in TMPDIR, after an import or a kill -9" {
	python3 "$BATS_TEST_DIRNAME/../bench/gen_claude.py" --mb 4 \
		"$BATS_TEST_TMPDIR/g.jsonl" >/dev/null
	KTRAJ_IMPORT_IDS=1 KTRAJ_STORE="$BATS_TEST_TMPDIR/a.ktraj" \
		"$KTRAJ" --no-progress import "$BATS_TEST_TMPDIR/g.jsonl" >/dev/null
	[ -z "$(ls -A "$TMPDIR")" ]
	# the file is unlinked as soon as LMDB has it open: whenever the
	# kill comes, nothing is left (and the store keeps nothing partial)
	KTRAJ_IMPORT_IDS=1 KTRAJ_STORE="$BATS_TEST_TMPDIR/k.ktraj" \
		"$KTRAJ" --no-progress import "$BATS_TEST_TMPDIR/g.jsonl" >/dev/null 2>&1 &
	local pid=$!
	sleep 0.3
	kill -9 "$pid" 2>/dev/null || true
	wait "$pid" || true
	[ -z "$(ls -A "$TMPDIR")" ]
}

@test "no writable TMPDIR: the ids stay in memory, one note, the same store" {
	python3 "$BATS_TEST_DIRNAME/../bench/gen_claude.py" --mb 2 \
		"$BATS_TEST_TMPDIR/g.jsonl" >/dev/null
	local d=$BATS_TEST_TMPDIR
	KTRAJ_STORE="$d/a.ktraj" "$KTRAJ" --no-progress import "$d/g.jsonl" >"$d/a.out"
	# under a regular file: no one can make a file there, root included
	# (a chmod 555 folder would stop only the others)
	: >"$d/plain"
	for t in "$d/plain/tmp" "$d/absent"; do
		rm -f "$d/b.ktraj" "$d/b.ktraj-lock"
		TMPDIR=$t KTRAJ_IMPORT_IDS=1 KTRAJ_STORE="$d/b.ktraj" run \
			"$KTRAJ" --no-progress import --strict "$d/g.jsonl"
		[ "$status" -eq 0 ]
		# stdout holds the run line, then the note: exactly one, not a
		# problem (--strict went on)
		[ "$(grep -c 'no temporary file for the ids past 1' <<<"$output")" -eq 1 ]
		grep -q 'g.jsonl: no temporary file for the ids past 1 (' <<<"$output"
		[ "$(grep -c '^ktraj:' <<<"$output")" -eq 1 ]
		dump "$d/a.ktraj" "$d/a.dump"
		dump "$d/b.ktraj" "$d/b.dump"
		[ "$(wc -l <"$d/b.dump")" -gt 1000 ]
		cmp "$d/a.dump" "$d/b.dump"
	done
	# with a writable one the same budget spills and says nothing
	KTRAJ_IMPORT_IDS=1 KTRAJ_STORE="$d/c.ktraj" run --separate-stderr \
		"$KTRAJ" --no-progress import "$d/g.jsonl"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}
