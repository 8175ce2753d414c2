#!/usr/bin/env bats
# Several first imports into one fresh store at once: each trains the store's
# first dictionary in its own write transaction, one after the other (LMDB
# has one writer).  A handle must see the dictionary another process stored
# since it opened the store (kt_store_begin reloads them), or its training
# collides with it and its whole import is lost.

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	GEN="$BATS_TEST_DIRNAME/../bench/gen.py"
}

@test "four concurrent first imports into a store that does not exist yet all land" {
	for s in 1 2 3 4; do
		python3 "$GEN" --events 3000 --seed "$s" "$BATS_TEST_TMPDIR/g$s.jsonl" >/dev/null
	done
	for s in 1 2 3 4; do
		( "$KTRAJ" import "$BATS_TEST_TMPDIR/g$s.jsonl" >"$BATS_TEST_TMPDIR/o$s" 2>&1
		  echo "rc=$?" >>"$BATS_TEST_TMPDIR/o$s" ) &
	done
	wait
	cat "$BATS_TEST_TMPDIR"/o*
	[ "$(cat "$BATS_TEST_TMPDIR"/o* | grep -c '^rc=0$')" -eq 4 ]
	[ "$("$KTRAJ" ls --json | wc -l)" -eq 4 ]
	run "$KTRAJ" stats
	[[ "$output" == *"dictionaries     1"* ]]
	"$KTRAJ" verify
	# every run reads back whole
	for r in $("$KTRAJ" ls --json | python3 -c 'import json,sys; [print(json.loads(l)["run"]) for l in sys.stdin]'); do
		[ "$("$KTRAJ" log "$r" --json | wc -l)" -ge 3000 ]
	done
}
