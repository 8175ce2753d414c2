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

# A session whose many bookkeeping lines (progress, 400-byte uuids: no
# event, but each uuid spilled) make the spill file far bigger than the
# store: 40 lines of a generated session, 20,000 such lines, the rest of
# the session.  Into $2.
spill_heavy() {
	python3 "$BATS_TEST_DIRNAME/../bench/gen_claude.py" --mb 1 "$1" >/dev/null
	python3 - "$1" "$2" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
pad = [json.dumps({"type": "progress", "uuid": "p%06d-" % i + "x" * 400,
                   "timestamp": "2025-07-01T01:00:00.000Z"})
       for i in range(20000)]
open(sys.argv[2], "w").write("\n".join(lines[:40] + pad + lines[40:]) + "\n")
PY
}

@test "the spill file fails mid-import: nothing of the file is kept, verify is clean, the next import stores it" {
	local d=$BATS_TEST_TMPDIR
	spill_heavy "$d/g.jsonl" "$d/s.jsonl"
	# RLIMIT_FSIZE of 1 MiB: the spill file's writes past it fail
	# (EFBIG, or a short write LMDB calls EIO; SIGXFSZ ignored), the
	# store stays far below it.  Batches of 1K: the run's blocks are
	# committed before the failure and must be taken back.
	run --separate-stderr bash -c 'trap "" XFSZ; ulimit -f 1024
		TMPDIR=$1 KTRAJ_IMPORT_IDS=1 KTRAJ_IMPORT_BATCH=1K \
		KTRAJ_STORE=$2 "$KTRAJ" --no-progress import "$3"' _ \
		"$TMPDIR" "$d/b.ktraj" "$d/s.jsonl"
	[ "$status" -eq 1 ]
	[ -z "$output" ]   # no run line
	grep -qF 's.jsonl: the temporary file of its ids (in $TMPDIR, else /tmp) failed: ' <<<"$stderr"
	grep -qF 's.jsonl: not imported: I/O error (nothing of it kept)' <<<"$stderr"
	[ "$(grep -c '^ktraj:' <<<"$stderr")" -eq 3 ]
	# no run, none partial, no unfinished mark left
	[ "$(KTRAJ_STORE="$d/b.ktraj" "$KTRAJ" ls --json | wc -l)" -eq 0 ]
	KTRAJ_STORE="$d/b.ktraj" run "$KTRAJ" verify
	[ "$status" -eq 0 ]
	[[ "$output" == "ok: 0 runs, 0 events verified" ]]
	# the next import of the same file stores what a fresh store does
	KTRAJ_IMPORT_IDS=1 KTRAJ_STORE="$d/b.ktraj" "$KTRAJ" --no-progress \
		import "$d/s.jsonl" >"$d/b.out"
	KTRAJ_STORE="$d/a.ktraj" "$KTRAJ" --no-progress import "$d/s.jsonl" >"$d/a.out"
	cmp "$d/a.out" "$d/b.out"
	dump "$d/a.ktraj" "$d/a.dump"
	dump "$d/b.ktraj" "$d/b.dump"
	[ "$(wc -l <"$d/b.dump")" -gt 100 ]
	cmp "$d/a.dump" "$d/b.dump"
	KTRAJ_STORE="$d/b.ktraj" run "$KTRAJ" verify
	[ "$status" -eq 0 ]
	[[ "$output" == "ok: 1 run, "*" events verified" ]]
	[ -z "$(ls -A "$TMPDIR")" ]
}

# The actor of each event (which tool call an edit or a bench result
# belongs to, and whether a sub-agent made it) was an array indexed by
# seq, 8 bytes an event: 16 MiB at 1M events, the one importer structure
# that grew with the run (tests/bench/RESULTS.md "Issue 21: what import's
# heap grows with").  Now KTRAJ_IMPORT_IDS events' actors are held, older
# ones other than "agent" spilled; --stats says how many of each.
@test "event actors: memory holds KTRAJ_IMPORT_IDS of them, the rest are spilled, the store the same" {
	python3 "$BATS_TEST_DIRNAME/../bench/gen_claude.py" --mb 2 \
		"$BATS_TEST_TMPDIR/g.jsonl" >/dev/null
	local d=$BATS_TEST_TMPDIR
	KTRAJ_STORE="$d/a.ktraj" "$KTRAJ" --no-progress import "$d/g.jsonl" >/dev/null
	KTRAJ_IMPORT_IDS=64 KTRAJ_STORE="$d/b.ktraj" run --separate-stderr \
		"$KTRAJ" --no-progress import --stats "$d/g.jsonl"
	[ "$status" -eq 0 ]
	# a run of over 500 events, 64 actors held, the tool results'
	# ("tool") and the people's pushed out to the spill file
	local n held sp
	n=$(sed -n 's/^import stats: [0-9]* bytes, \([0-9]*\) events.*/\1/p' <<<"$stderr")
	held=$(sed -n 's/^import stats: event actors held \([0-9]*\), spilled \([0-9]*\)$/\1/p' <<<"$stderr")
	sp=$(sed -n 's/^import stats: event actors held \([0-9]*\), spilled \([0-9]*\)$/\2/p' <<<"$stderr")
	[ "$n" -gt 500 ]
	[ "$held" -eq 64 ]
	[ "$sp" -gt 100 ]
	[ "$sp" -lt "$n" ]
	dump "$d/a.ktraj" "$d/a.dump"
	dump "$d/b.ktraj" "$d/b.dump"
	cmp "$d/a.dump" "$d/b.dump"
	# no writable TMPDIR: the actors stay in memory (the held figure
	# grows past the budget), nothing spilled, the same store
	: >"$d/plain"
	TMPDIR="$d/plain/tmp" KTRAJ_IMPORT_IDS=64 KTRAJ_STORE="$d/c.ktraj" \
		run --separate-stderr "$KTRAJ" --no-progress import --stats "$d/g.jsonl"
	[ "$status" -eq 0 ]
	held=$(sed -n 's/^import stats: event actors held \([0-9]*\), spilled \([0-9]*\)$/\1/p' <<<"$stderr")
	sp=$(sed -n 's/^import stats: event actors held \([0-9]*\), spilled \([0-9]*\)$/\2/p' <<<"$stderr")
	[ "$held" -gt 64 ]
	[ "$sp" -eq 0 ]
	dump "$d/c.ktraj" "$d/c.dump"
	cmp "$d/a.dump" "$d/c.dump"
}

@test "corpus sub-agent session: sub-agents' events keep their actors with every actor spilled" {
	[ -d "$CORPUS/claude_code" ] || skip "no corpus"
	local s="$CORPUS/claude_code/vsla_sidechains_multiedit_5f8cbb78.jsonl"
	[ -f "$s" ] || skip "no sub-agent session in the corpus"
	same_both_ways "$s"
	# the sub-agents' tool calls and their edits say whose they are
	grep -q '"actor":"agent:toolu_' "$BATS_TEST_TMPDIR/b.dump"
	grep -q '"subagent":"toolu_' "$BATS_TEST_TMPDIR/b.dump"
	KTRAJ_IMPORT_IDS=1 KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj" run --separate-stderr \
		"$KTRAJ" --no-progress import --stats "$s"
	[ "$status" -eq 0 ]
	grep -q '^import stats: event actors held 1, spilled [1-9][0-9]*$' <<<"$stderr"
}
