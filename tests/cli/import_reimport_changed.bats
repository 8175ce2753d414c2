#!/usr/bin/env bats
# Re-importing a KernelAgent trace folder or worker result whose already
# imported content changed: one warning on stderr ("file: changed since run
# ... was imported (its step N differs) ..."), exit 0, the stored run kept
# exactly as it was (no event changed, none appended after the changed
# step).  A folder that only gained a round still appends it silently.
# Fixtures (ours): tests/data/import/kernelagent/trace_fx (2 rounds) and
# worker_fx_result.json, copied and changed in the test's temp dir.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	D="$BATS_TEST_TMPDIR/trace"
	cp -r "$BATS_TEST_DIRNAME/../data/import/kernelagent/trace_fx" "$D"
}

# every stored event's hash, in order
hashes() {
	"$KTRAJ" export "$1" --format jsonl | python3 -c '
import json,sys
print(" ".join(str(o.get("hash")) for o in map(json.loads,sys.stdin) if "kind" in o))'
}

@test "a round that only appears later is appended without a warning" {
	mv "$D/optimization_trace/round_2" "$BATS_TEST_TMPDIR/r2"
	run --separate-stderr "$KTRAJ" import "$D" --json
	[ "$status" -eq 0 ]
	n1=$(echo "$output" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["events"])')
	mv "$BATS_TEST_TMPDIR/r2" "$D/optimization_trace/round_2"
	run --separate-stderr "$KTRAJ" import "$D" --json
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	echo "$output" | python3 -c '
import json,sys
o=json.loads(sys.stdin.readline())
assert o["added"]>0 and o["events"]==o["added"]+int(sys.argv[1]), o' "$n1"
}

@test "a changed round: warned as file: what, exit 0, the stored run unchanged" {
	run --separate-stderr "$KTRAJ" import "$D" --json
	[ "$status" -eq 0 ]
	R=$(echo "$output" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	before=$(hashes "$R")
	# unchanged: silent, nothing added
	run --separate-stderr "$KTRAJ" import "$D"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	# round 1's reply changes, and a third round appears
	echo "# edited later" >>"$D/optimization_trace/round_1/opt_reply.txt"
	cp -r "$D/optimization_trace/round_2" "$D/optimization_trace/round_3"
	sed -i 's/1.25/0.75/' "$D/optimization_trace/round_3/benchmark_results.json"
	run --separate-stderr "$KTRAJ" import "$D" --json
	[ "$status" -eq 0 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == "ktraj: import: $D/optimization_trace/round_1/opt_reply.txt: changed since run ${R:0:12} was imported (its step "*" differs): the run keeps the "*" events first imported; "*" new events of this source not added" ]]
	echo "$output" | python3 -c '
import json,sys
o=json.loads(sys.stdin.readline())
assert o["added"]==0, o'
	[ "$(hashes "$R")" = "$before" ]
	run "$KTRAJ" verify
	[ "$status" -eq 0 ]
	# --strict: the same problem stops the import, non-zero, nothing kept
	run --separate-stderr "$KTRAJ" import --strict "$D"
	[ "$status" -ne 0 ]
	[ "$(hashes "$R")" = "$before" ]
}

@test "a round removed since: warned, the run kept" {
	run --separate-stderr "$KTRAJ" import "$D" --json
	R=$(echo "$output" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	before=$(hashes "$R")
	rm -r "$D/optimization_trace/round_2"
	run --separate-stderr "$KTRAJ" import "$D"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"but run ${R:0:12} holds "*" from an earlier import: the source changed since; the run is kept as it was"* ]]
	[ "$(hashes "$R")" = "$before" ]
}

@test "a worker result rewritten with a changed attempt: warned, the run unchanged" {
	W="$BATS_TEST_TMPDIR/w_result.json"
	cp "$BATS_TEST_DIRNAME/../data/import/kernelagent/worker_fx_result.json" "$W"
	run --separate-stderr "$KTRAJ" import "$W" --json
	[ "$status" -eq 0 ]
	R=$(echo "$output" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	before=$(hashes "$R")
	sed -i 's/Max absolute difference: 0.5/Max absolute difference: 0.25/' "$W"
	run --separate-stderr "$KTRAJ" import "$W"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"ktraj: import: $W: changed since run ${R:0:12} was imported (its step "*" differs)"* ]]
	[ "$(hashes "$R")" = "$before" ]
}
