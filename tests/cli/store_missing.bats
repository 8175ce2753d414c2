#!/usr/bin/env bats
# A store that is not there: only the commands that record (init, import,
# append, hook, bench, replay --collect) create it; every other command,
# hide and unhide among them (they write a mark into a run that must be
# there), fails with "no store at PATH", exit 4, and leaves no store and no
# lock file behind (README "Store location").

bats_require_minimum_version 1.5.0

setup() {
	S="$BATS_TEST_TMPDIR/nx.ktraj"
}

# absent: the run left neither the store nor its lock file
absent() {
	[ ! -e "$S" ] && [ ! -e "$S-lock" ]
}

@test "hide and unhide on a missing store: no store, exit 4, nothing created" {
	for cmd in hide unhide; do
		run --separate-stderr "$KTRAJ" --store "$S" $cmd abcd
		[ "$status" -eq 4 ]
		[ "$stderr" = "ktraj: $cmd: no store at $S (run \`ktraj init\` or \`ktraj import\`, or set --store / KTRAJ_STORE)" ]
		absent
	done
}

@test "replay RUN and replay --plan RUN on a missing store: no store, exit 4, nothing created" {
	run --separate-stderr "$KTRAJ" --store "$S" replay abcd 1 --no-sandbox
	[ "$status" -eq 4 ]
	[[ "$stderr" == "ktraj: replay: no store at $S "* ]]
	absent
	run --separate-stderr "$KTRAJ" --store "$S" replay --plan "$BATS_TEST_TMPDIR/plan" abcd --all-bench
	[ "$status" -eq 4 ]
	[[ "$stderr" == "ktraj: replay: no store at $S "* ]]
	absent
}

@test "the readers on a missing store: no store, exit 4, nothing created" {
	for cmd in ls "log abcd" "show abcd 1" "export abcd" "stats" "search x" "verify" "gc --dry-run" "blame speedup abcd" "stalls abcd"; do
		run --separate-stderr "$KTRAJ" --store "$S" $cmd
		[ "$status" -eq 4 ] || { echo "$cmd: $status $stderr"; false; }
		[[ "$stderr" == *"no store at $S "* ]]
		absent
	done
}

@test "the recording commands still create the store" {
	run "$KTRAJ" --store "$S" init
	[ "$status" -eq 0 ]
	[ -e "$S" ]
	rm -f "$S" "$S-lock"
	echo '{"kind":"note","payload":{"text":"hi"}}' | "$KTRAJ" --store "$S" append demo
	[ -e "$S" ]
	run "$KTRAJ" --store "$S" hide demo
	[ "$status" -eq 0 ]
	[[ "$output" == "hid "* ]]
}
