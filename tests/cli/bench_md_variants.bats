#!/usr/bin/env bats
# A results table whose first column names the variant measured
# (`| variant | time (ms) | correct |`, issue 15 rev15 finding 3): each
# row is a candidate of ONE series, not a scenario, so a new best variant
# in a later run is a new best, and the one-row first table is in the
# same series.  Fixture tests/data/import/md_table_variants.jsonl (made
# up, Claude Code shape): three runs of bench.py after writes of
# kernel.py; run 2 adds v2_vec4 (0.30 ms, NO) and v3_welford (1.15 ms),
# run 3 adds v4_vec4_fixed (0.62 ms, yes): x1.855 over 1.15.

bats_require_minimum_version 1.5.0

setup() {
	load lib/fixture_run
	fixture_setup md_table_variants.jsonl
}

@test "bench: the variant column is the candidate, no scenario" {
	run -0 bench_rows
	[ "${#lines[@]}" -eq 8 ]
	[[ "${lines[0]}" == *'"scenario":null,'*'"candidate":"v1_naive"'* ]]
	[[ "${lines[7]}" == *'"time_ms":0.62,'*'"scenario":null,'*'"candidate":"v4_vec4_fixed"'* ]]
}

@test "blame: one series, the fixed variant is the new best (x1.855), the wrong fast one is no jump" {
	run "$KTRAJ" blame speedup "$RUN"
	[ "$status" -eq 0 ]
	[[ "$output" == *"series: bench.py | time"$'\n'* ]]
	[[ "$output" != *"v1_naive"* ]]
	[[ "$output" != *"sweep"* ]]
	[[ "$output" == *"2 excluded: 2 incorrect"* ]]
	[[ "$output" == *"JUMP 1  step 6 (seq 24) over the best so far, step 5 (seq 23)"*"gain x1.855"* ]]
	[[ "$output" != *"JUMP 2"* ]]
}

@test "blame: the jump's two rows come from one output; its edits are those before that benchmark run (text, --json, report)" {
	# step 5 (seq 23) and step 6 (seq 24) are rows of the third run's
	# table (tool result seq 20): nothing lies between the rows, but
	# the write of kernel.py (edit seq 18) lies between the second
	# run's output (benches seq 13-15) and the third's
	run "$KTRAJ" blame speedup "$RUN"
	[ "$status" -eq 0 ]
	[[ "$output" == *$'\n'"  edits (before this benchmark run, which measured candidate v4_vec4_fixed for the first time): #18 /w/ln/kernel.py  [layer: "* ]]
	[[ "$output" != *"none recorded"* ]]
	run "$KTRAJ" blame speedup "$RUN" --json --permutations 0
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == '{"jump":1,'*'"edits":[{"seq":18,"path":"/w/ln/kernel.py"}],'*'"edits_before_output":true,'* ]]
	run "$KTRAJ" report "$RUN" -o "$BATS_TEST_TMPDIR/r.html"
	[ "$status" -eq 0 ]
	grep -q '<td>before this benchmark run, which measured candidate v4_vec4_fixed for the first time:<br><a href="#e18">#18</a> /w/ln/kernel.py<br>' "$BATS_TEST_TMPDIR/r.html"
}

@test "blame: a jump over a result of an earlier output keeps its usual edits, no edits_before_output" {
	# the third run prints v3_welford alone, now 0.60 ms: the jump is
	# over the second run's v3_welford row (seq 15), another output
	python3 - "$BATS_TEST_DIRNAME/../data/import/md_table_variants.jsonl" >"$BATS_TEST_TMPDIR/v.jsonl" <<'PY'
import sys
old = "| v1_naive | 1.199 | yes |\\n| v2_vec4 | 0.310 | NO |\\n| v3_welford | 1.150 | yes |\\n| v4_vec4_fixed | 0.620 | yes |\\n"
for l in open(sys.argv[1]):
    if "v4_vec4_fixed" in l:
        assert old in l
        l = l.replace(old, "| v3_welford | 0.600 | yes |\\n")
    sys.stdout.write(l)
PY
	run "$KTRAJ" --store "$BATS_TEST_TMPDIR/o.ktraj" import "$BATS_TEST_TMPDIR/v.jsonl"
	[ "$status" -eq 0 ]
	R2=$("$KTRAJ" --store "$BATS_TEST_TMPDIR/o.ktraj" ls | awk 'NR == 2 { print $1 }')
	run "$KTRAJ" --store "$BATS_TEST_TMPDIR/o.ktraj" blame speedup "$R2"
	[ "$status" -eq 0 ]
	[[ "$output" == *"JUMP 1  step 4 (seq 21) over the best so far, step 3 (seq 15)"*$'\n'"  edits: #18 /w/ln/kernel.py  [layer: "* ]]
	run "$KTRAJ" --store "$BATS_TEST_TMPDIR/o.ktraj" blame speedup "$R2" --json --permutations 0
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == '{"jump":1,'*'"edits":[{"seq":18,"path":"/w/ln/kernel.py"}],'*'"edits_before_output":false,'* ]]
}
