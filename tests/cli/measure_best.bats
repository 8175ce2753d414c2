#!/usr/bin/env bats
# The running best is the best code's level over its repeats, not one
# lucky measurement (FORMAT.md section 14 "New bests and jumps").
# tests/data/analyze/lucky_best.jsonl: code A measured 1.000 and 0.998,
# code B 1.040 then 1.001 and 0.999 (no edit between: its 1.040 was
# luck), code C 1.120.  Noise from the repeats is 1.85 % (threshold
# x1.082): C gains x1.105 over B's level 1.013, but only x1.077 over the
# single 1.040, which would hide it.

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	"$KTRAJ" import "$BATS_TEST_DIRNAME/../data/analyze/lucky_best.jsonl" >/dev/null
	R=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
}

@test "blame: a gain is measured over the best code's mean, not its luckiest run" {
	run "$KTRAJ" blame speedup "$R" --json
	[ "$status" -eq 0 ]
	python3 - "$output" <<'PY'
import json, sys
rows = [json.loads(l) for l in sys.argv[1].splitlines() if l.strip()]
j = [r for r in rows if "gain" in r]
assert len(j) == 1, rows
assert abs(j[0]["before"] - 1.0133) < 0.001 and abs(j[0]["gain"] - 1.1053) < 0.001, j
assert j[0]["best_step"] == 5 and j[0]["to_step"] == 6, j
PY
	run "$KTRAJ" blame speedup "$R"
	[[ "$output" == *"JUMP 1  step 6 (seq 28) over the best so far, step 5 (seq 22)  speedup 1.013 -> 1.120  gain x1.105"* ]]
}

# tests/data/analyze/noisy_reference.jsonl: one code timed 4 times at
# 1.000-1.002 ms while the reference beside it reads 0.95-1.06 ms, then an
# edit times 0.900 ms (reference 0.930).  The ratio carries the
# reference's 5 % noise and would hide the x1.11; the kernel's own repeats
# show 0.2 %, so the series is read as kernel time and the gain is found.
@test "blame: a reference re-timed with noise of its own is not let into the value" {
	N=$("$KTRAJ" import --json "$BATS_TEST_DIRNAME/../data/analyze/noisy_reference.jsonl" |
	    python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	run "$KTRAJ" blame speedup "$N" --json
	[ "$status" -eq 0 ]
	python3 - "$output" <<'PY'
import json, sys
rows = [json.loads(l) for l in sys.argv[1].splitlines() if l.strip()]
j = [r for r in rows if "gain" in r]
assert len(j) == 1 and abs(j[0]["gain"] - 1.111) < 0.002, rows
PY
	run "$KTRAJ" blame speedup "$N"
	[[ "$output" == *"speedup: mean reference time of the series / kernel time"* ]]
}
