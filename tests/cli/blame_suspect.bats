#!/usr/bin/env bats
# blame speedup never presents a suspicious result as a clean new best: a
# verifier's flags (["suspicious"], kept on the bench event and shown by
# `log --json`) and a time under 1 us whose correctness is unknown are said
# on the jump (text "(suspicious: ...)", --json suspicious/suspicious_why).
# Made-up round logs read with import --map, the flag added to the ktraj
# JSONL export as a verifier's JSON output would carry it.

bats_require_minimum_version 1.5.0

setup() {
	load lib/fixture_run
	fixture_store
	D="$BATS_TEST_TMPDIR"
}

@test "a result a verifier flagged suspicious: kept by log --json, and its jump says suspicious in text and --json" {
	cat >"$D/a.jsonl" <<'J'
{"r": 1, "idea": "naive tiling", "ms": 4.0, "ok": true}
{"r": 2, "idea": "unroll", "ms": 3.95, "ok": true}
{"r": 3, "idea": "shared memory tiles", "ms": 2.0, "ok": true}
{"r": 4, "idea": "skip the k loop", "ms": 0.5, "ok": true}
J
	printf '{"run": {"const": "sx"}, "step": "r", "time_ms": "ms", "correct": "ok", "text": "idea"}\n' >"$D/m.map"
	map_import "$D/m.map" "$D/a.jsonl"
	# round 4's bench (seq 8) as a verifier reports it: flagged
	flag_suspicious sx 8 >"$D/f.jsonl"
	run "$KTRAJ" --store "$D/o.ktraj" import "$D/f.jsonl"
	[ "$status" -eq 0 ]
	run "$KTRAJ" --store "$D/o.ktraj" log sx --kind bench --json
	[[ "${lines[3]}" == '{"seq":8,'*'"flags":["suspicious"]'* ]]
	run "$KTRAJ" --store "$D/o.ktraj" blame speedup sx
	[ "$status" -eq 0 ]
	[[ "$output" == *"JUMP 2  step 4 (seq 8) over the best so far, step 3 (seq 6)  speedup 2.000 -> 8.000  gain x4.000"$'\n'"  (suspicious: flagged suspicious by the verifier)"$'\n'* ]]
	# the clean jump says nothing
	[[ "$output" != *"JUMP 1 "*"suspicious"*"JUMP 2"* ]]
	run "$KTRAJ" --store "$D/o.ktraj" blame speedup sx --json --permutations 0
	[[ "${lines[0]}" == '{"jump":1,'*'"suspicious":false,"suspicious_why":null,'* ]]
	[[ "${lines[1]}" == '{"jump":2,'*'"suspicious":true,"suspicious_why":"flagged suspicious by the verifier",'* ]]
	# the run as imported, without the flag: no word
	run "$KTRAJ" blame speedup sx
	[[ "$output" != *suspicious* ]]
	# the report's jump table says it too, on J2 only
	run "$KTRAJ" --store "$D/o.ktraj" report sx -o "$D/r.html"
	[ "$status" -eq 0 ]
	# the series' count (as blame's text) and the jump's mark
	[ "$(grep -o '<b class="susp">suspicious: [^<]*</b>' "$D/r.html")" = '<b class="susp">suspicious: 1 result (seq 8)</b>'$'\n''<b class="susp">suspicious: flagged suspicious by the verifier</b>' ]
	grep -q '<tr id="jump2"[^>]*><td><b>J2</b></td>.*<td>x4.000<br><b class="susp">suspicious: flagged' "$D/r.html"
}

@test "a time under 1 us whose correctness is unknown is suspicious; the same time checked correct is not" {
	printf '{"r": 1, "ms": 4.0}\n{"r": 2, "ms": 3.9}\n{"r": 3, "ms": 2.0}\n{"r": 4, "ms": 0.0005}\n' >"$D/u.jsonl"
	printf '{"run": {"const": "u"}, "step": "r", "time_ms": "ms"}\n' >"$D/u.map"
	map_import "$D/u.map" "$D/u.jsonl"
	run "$KTRAJ" blame speedup u
	[ "$status" -eq 0 ]
	# 2.0 ms / 0.0005 ms = x4000
	[[ "$output" == *"JUMP 2  step 4 (seq 4) over the best so far, step 3 (seq 3)  speedup 2.000 -> 8000.000  gain x4000.000  (not checked)"$'\n'"  (suspicious: under 1 us and not checked)"$'\n'* ]]
	[[ "$output" != *"JUMP 1 "*"suspicious"*"JUMP 2"* ]]
	run "$KTRAJ" blame speedup u --json --permutations 0
	[[ "${lines[1]}" == '{"jump":2,'*'"suspicious":true,"suspicious_why":"under 1 us and not checked",'* ]]
	# checked correct: a fast kernel, not suspect
	sed 's/}$/, "ok": true}/' "$D/u.jsonl" >"$D/c.jsonl"
	printf '{"run": {"const": "c"}, "step": "r", "time_ms": "ms", "correct": "ok"}\n' >"$D/c.map"
	run "$KTRAJ" import --map "$D/c.map" "$D/c.jsonl"
	run "$KTRAJ" blame speedup c
	[[ "$output" == *"JUMP 2  step 4 (seq 4)"* ]]
	[[ "$output" != *suspicious* ]]
}

@test "blame --help says what makes a result suspicious" {
	run "$KTRAJ" blame --help
	[[ "$output" == *"under 1 microsecond"*"no work or the"*"timing missed it"* ]]
}

# Flag the bench at seq $2 of run $1 as a verifier would; import the result
# into the store $3.
flag_seq() {
	flag_suspicious "$1" "$2" >"$D/f.jsonl"
	"$KTRAJ" --store "$3" import "$D/f.jsonl"
}

@test "a suspicious result that is no jump: counted on the series summary, text and --json" {
	cat >"$D/a.jsonl" <<'J'
{"r": 1, "idea": "naive tiling", "ms": 4.0, "ok": true}
{"r": 2, "idea": "unroll", "ms": 3.95, "ok": true}
{"r": 3, "idea": "shared memory tiles", "ms": 2.0, "ok": true}
J
	printf '{"run": {"const": "sx"}, "step": "r", "time_ms": "ms", "correct": "ok", "text": "idea"}\n' >"$D/m.map"
	map_import "$D/m.map" "$D/a.jsonl"
	# round 2 (seq 4): no new best, so no jump carries the flag
	run flag_seq sx 4 "$D/o.ktraj"
	[ "$status" -eq 0 ]
	run "$KTRAJ" --store "$D/o.ktraj" blame speedup sx
	[ "$status" -eq 0 ]
	[[ "$output" == *$'\n'"suspicious: 1 result (seq 4)"$'\n'* ]]
	[[ "$output" != *"JUMP"*"suspicious"* ]]
	run "$KTRAJ" --store "$D/o.ktraj" blame speedup sx --json --permutations 0
	[[ "${lines[1]}" == '{"summary":"blame speedup",'*'"suspicious_seqs":[4],"suspicious":1,'* ]]
	# unflagged: none
	run "$KTRAJ" blame speedup sx --json --permutations 0
	[[ "${lines[1]}" == *'"suspicious_seqs":[],"suspicious":0,'* ]]
	run "$KTRAJ" blame speedup sx
	[[ "$output" != *suspicious* ]]
}

@test "a sweep holding a suspicious result says so on its line, though it is no jump" {
	cat >"$D/s.jsonl" <<'J'
{"attempt": 1, "shape": "m128", "ms": 1.0, "ref": 2.0, "ok": true}
{"attempt": 1, "shape": "m256", "ms": 2.0, "ref": 2.0, "ok": true}
{"attempt": 2, "shape": "m128", "ms": 0.5, "ref": 2.0, "ok": true}
{"attempt": 2, "shape": "m256", "ms": 1.0, "ref": 2.0, "ok": true}
J
	printf '{"run": {"const": "sw"}, "step": "attempt", "scenario": "shape", "time_ms": "ms", "ref_time_ms": "ref", "correct": "ok"}\n' >"$D/m.map"
	map_import "$D/m.map" "$D/s.jsonl"
	run flag_seq sw 2 "$D/o.ktraj"
	[ "$status" -eq 0 ]
	run "$KTRAJ" --store "$D/o.ktraj" blame speedup sw
	[ "$status" -eq 0 ]
	[[ "$output" == *$'\n'"sweep 1 (seq 1..2): 2 results over 2 scenarios, geomean speedup x1.414 (suspicious: flagged suspicious by the verifier)"$'\n'* ]]
	[[ "$output" == *$'\n'"sweep 2 (seq 3..4): "*$'\n'* ]]
	[[ "$output" != *"sweep 2 (seq 3..4): "*"suspicious"*$'\n'"    m128"* ]]
	[[ "$output" == *$'\n'"suspicious: 1 result (seq 2)"$'\n'* ]]
}
