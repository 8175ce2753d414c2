#!/usr/bin/env bats
# `ktraj hide` / `unhide` (an appended record: FORMAT.md §6.1 "Run marks")
# and `ktraj gc --dry-run`.

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	q='{"kind":"question","actor":"human","payload":{"text":"Why is the zebrafish kernel memory bound?","origin":"human"}}'
	echo "$q" | "$KTRAJ" append keep-run 2>/dev/null
	echo "$q" | "$KTRAJ" append oops-run 2>/dev/null
}

names() { "$KTRAJ" ls "$@" --json | python3 -c 'import json,sys; print(" ".join(sorted(json.loads(l)["name"] for l in sys.stdin)))'; }

@test "hide: left out of ls, search, questions mine, export --all; --all brings it back" {
	size0=$(stat -c %s "$KTRAJ_STORE")
	run "$KTRAJ" hide oops-run
	[ "$status" -eq 0 ]
	[[ "$output" == "hid "* ]]
	[ "$(names)" = "keep-run" ]
	[ "$(names --all)" = "keep-run oops-run" ]
	# search: one hit (keep-run) unless --all
	[ "$("$KTRAJ" search zebrafish --json | wc -l)" -eq 1 ]
	[ "$("$KTRAJ" search zebrafish --all --json | wc -l)" -eq 2 ]
	# a hidden run still reads when named
	[ "$("$KTRAJ" search zebrafish --run oops-run --json | wc -l)" -eq 1 ]
	"$KTRAJ" log oops-run >/dev/null
	# questions mine counts the question in one run, two with --all
	runs=$("$KTRAJ" questions mine --json | python3 -c 'import json,sys; print(max(json.loads(l)["runs"] for l in sys.stdin))')
	[ "$runs" -eq 1 ]
	runs=$("$KTRAJ" questions mine --all --json | python3 -c 'import json,sys; print(max(json.loads(l)["runs"] for l in sys.stdin))')
	[ "$runs" -eq 2 ]
	# export --all: one run's rows, --hidden adds the other
	"$KTRAJ" export --all --format ndjson --partition "$BATS_TEST_TMPDIR/p1"
	[ "$(find "$BATS_TEST_TMPDIR/p1/runs" -name 'part-*' -exec zstd -qdc {} + | wc -l)" -eq 1 ]
	"$KTRAJ" export --all --hidden --format ndjson --partition "$BATS_TEST_TMPDIR/p2"
	[ "$(find "$BATS_TEST_TMPDIR/p2/runs" -name 'part-*' -exec zstd -qdc {} + | wc -l)" -eq 2 ]
	# the store only grew, and verify still passes
	[ "$(stat -c %s "$KTRAJ_STORE")" -ge "$size0" ]
	"$KTRAJ" verify >/dev/null
}

@test "unhide shows the run again; hiding twice appends nothing" {
	"$KTRAJ" hide oops-run >/dev/null
	run "$KTRAJ" hide oops-run
	[ "$status" -eq 0 ]
	[[ "$output" == *"(already hidden)" ]]
	"$KTRAJ" unhide oops-run >/dev/null
	[ "$(names)" = "keep-run oops-run" ]
	run "$KTRAJ" unhide oops-run
	[[ "$output" == *"(was not hidden)" ]]
	run "$KTRAJ" hide no-such-run
	[ "$status" -eq 4 ]
	run "$KTRAJ" hide
	[ "$status" -eq 2 ]
}

@test "ls says how many runs are hidden when it lists none" {
	"$KTRAJ" hide keep-run oops-run >/dev/null
	run "$KTRAJ" ls
	[ "$status" -eq 0 ]
	[[ "$output" == *"but 2 hidden"* ]]
}

@test "gc --dry-run: hidden runs' bytes and superseded records; nothing changes" {
	run "$KTRAJ" gc --dry-run --json
	[ "$status" -eq 0 ]
	[[ "$output" == *'"hidden_runs":0,'*'"superseded_records":0,'* ]]
	"$KTRAJ" hide oops-run >/dev/null
	"$KTRAJ" unhide oops-run >/dev/null
	"$KTRAJ" hide oops-run >/dev/null
	sum0=$(sha256sum < "$KTRAJ_STORE")
	run "$KTRAJ" gc --dry-run --json
	[ "$status" -eq 0 ]
	echo "$output" | python3 -c '
import json,sys
o = json.loads(sys.stdin.read())
assert o["hidden_runs"] == 1 and o["hidden_events"] == 1, o
assert o["hidden_event_bytes"] > 0, o
assert o["superseded_records"] == 2 and o["superseded_bytes"] == 2 * 37, o
assert o["reclaimable_bytes"] == o["hidden_event_bytes"] + 74, o'
	[ "$(sha256sum < "$KTRAJ_STORE")" = "$sum0" ]
	run "$KTRAJ" gc --dry-run
	[[ "$output" == *"dry run, nothing changed"* ]]
	run "$KTRAJ" gc
	[ "$status" -eq 2 ]
	[[ "$output" == "ktraj: gc: compaction is not implemented yet"* ]]
}
