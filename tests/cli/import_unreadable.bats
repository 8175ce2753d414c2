#!/usr/bin/env bats
# A KernelAgent round file that cannot be read - a dangling symlink, or a
# directory in its place (works as root, where chmod 000 stops no read) -
# is named in a warning on stderr (its path first, as every warning names
# the file it is about), the rest of the trace is imported (exit
# 0), and the run id stays the one of the intact trace: it comes from the
# first round's first file, which is still readable.
# Fixture (ours, made up): tests/data/import/kernelagent/trace_fx, two
# rounds, copied and damaged in the test's temp dir.

bats_require_minimum_version 1.5.0

setup() {
	D="$BATS_TEST_TMPDIR/trace"
	cp -r "$BATS_TEST_DIRNAME/../data/import/kernelagent/trace_fx" "$D"
	R="$D/optimization_trace"
}

# "id events" of the only run in store $1
run_of() {
	KTRAJ_STORE="$1" "$KTRAJ" ls --json | python3 -c '
import json,sys
rows=[json.loads(l) for l in sys.stdin]
assert len(rows)==1, rows
print(rows[0]["run"], rows[0]["events"])'
}

kinds() {
	KTRAJ_STORE="$1" "$KTRAJ" log "$2" --json | python3 -c '
import json,sys
print(" ".join(json.loads(l)["kind"] for l in sys.stdin))'
}

@test "a dangling link and a directory in place of round files: warned by name, rest imported, same run id" {
	KTRAJ_STORE="$BATS_TEST_TMPDIR/a.ktraj" "$KTRAJ" import "$D"
	read -r id0 n0 < <(run_of "$BATS_TEST_TMPDIR/a.ktraj")
	[ "$n0" -eq 20 ]

	rm "$R/round_1/strategy.json"
	ln -s "$BATS_TEST_TMPDIR/nowhere" "$R/round_1/strategy.json"
	rm "$R/round_2/reflexion.txt"
	mkdir "$R/round_2/reflexion.txt"
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/b.ktraj"
	run --separate-stderr "$KTRAJ" import "$D"
	[ "$status" -eq 0 ]
	echo "$stderr" | grep -q 'round_1/strategy.json: skipped: dangling link' || false
	# the warning names the unreadable path itself, not the round file
	# being imported (round 1's benchmark_results.json)
	echo "$stderr" | grep -qxF "ktraj: import: $R/round_2/reflexion.txt: cannot read: not a file" || false
	! echo "$stderr" | grep -q 'benchmark_results.json:' || false
	read -r id1 n1 < <(run_of "$KTRAJ_STORE")
	[ "$id1" = "$id0" ]
	# one note (round 1's strategy) and one message (round 2's reflexion)
	# fewer; both rounds' benches and edits still there
	[ "$n1" -eq 18 ]
	k0=$(kinds "$BATS_TEST_TMPDIR/a.ktraj" "$id0")
	k1=$(kinds "$KTRAJ_STORE" "$id1")
	[ "$(grep -o bench <<<"$k1" | wc -l)" -eq 2 ]
	[ "$(grep -o edit <<<"$k1" | wc -l)" -eq "$(grep -o edit <<<"$k0" | wc -l)" ]
	[ "$(grep -o note <<<"$k1" | wc -l)" -eq $(( $(grep -o note <<<"$k0" | wc -l) - 1 )) ]
}
