#!/usr/bin/env bats
# The report says what blame speedup's text says of the same run (issue
# 15): a sweep holding a suspicious result is marked on its sweep line,
# every suspicious result is counted under the series' counts, the graded
# metric chosen among several printed is named, and unknown correctness
# is "not checked" (on a jump, a sweep, a workload's counts), never
# correct.  The made-up round logs of blame_suspect.bats, blame_sweep.bats
# and blame_choice.bats (import --map; a verifier's flags and a bench's
# `choice`/`alternatives` added to the ktraj JSONL export).

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	D="$BATS_TEST_TMPDIR"
}

# Export run $1 as ktraj JSONL, the bench at seq $2 flagged suspicious as
# a verifier flags it, and import it into the store $3.
flag_seq() {
	"$KTRAJ" export "$1" --format jsonl | python3 -c '
import json, sys
for l in sys.stdin:
    o = json.loads(l)
    if "seq" in o:
        o.pop("hash", None); o.pop("chain", None)
        if o["seq"] == int(sys.argv[1]):
            o["payload"]["flags"] = ["suspicious"]
    print(json.dumps(o, separators=(",", ":")))' "$2" >"$D/f.jsonl"
	"$KTRAJ" --store "$3" import "$D/f.jsonl"
}

@test "a sweep holding a suspicious result: its sweep line says so and the series counts it, as blame does" {
	cat >"$D/s.jsonl" <<'J'
{"attempt": 1, "shape": "m128", "ms": 1.0, "ref": 2.0, "ok": true}
{"attempt": 1, "shape": "m256", "ms": 2.0, "ref": 2.0, "ok": true}
{"attempt": 2, "shape": "m128", "ms": 0.5, "ref": 2.0, "ok": true}
{"attempt": 2, "shape": "m256", "ms": 1.0, "ref": 2.0, "ok": true}
J
	printf '{"run": {"const": "sw"}, "step": "attempt", "scenario": "shape", "time_ms": "ms", "ref_time_ms": "ref", "correct": "ok"}\n' >"$D/m.map"
	run "$KTRAJ" import --map "$D/m.map" "$D/s.jsonl"
	[ "$status" -eq 0 ]
	run flag_seq sw 2 "$D/o.ktraj"
	[ "$status" -eq 0 ]
	run "$KTRAJ" --store "$D/o.ktraj" blame speedup sw
	[[ "$output" == *$'\n'"sweep 1 (seq 1..2): 2 results over 2 scenarios, geomean speedup x1.414 (suspicious: flagged suspicious by the verifier)"$'\n'* ]]
	[[ "$output" == *$'\n'"suspicious: 1 result (seq 2)"$'\n'* ]]
	run "$KTRAJ" --store "$D/o.ktraj" report sw -o "$D/r.html"
	[ "$status" -eq 0 ]
	grep -qF '<li id="sweep1">sweep 1 (seq 1..2): 2 results over 2 scenarios, geomean speedup x1.414 <b class="susp">(suspicious: flagged suspicious by the verifier)</b></li>' "$D/r.html"
	grep -qF '<li id="sweep2">sweep 2 (seq 3..4): 2 results over 2 scenarios, geomean speedup x2.828, x2.000 over the best sweep before it (sweep 1) on the 2 scenarios both measured</li>' "$D/r.html"
	grep -qF '<br><b class="susp">suspicious: 1 result (seq 2)</b>' "$D/r.html"
	# the mark is on sweep 1 only; the run as imported has none
	[ "$(grep -c 'class="susp"' "$D/r.html")" -eq 2 ]
	run "$KTRAJ" report sw -o "$D/c.html"
	[ "$status" -eq 0 ]
	grep -q '<li id="sweep1">' "$D/c.html"
	! grep -q 'suspicious' "$D/c.html" || false
}

@test "a suspicious result that is no jump: the report counts it under the series, as blame does" {
	cat >"$D/a.jsonl" <<'J'
{"r": 1, "idea": "naive tiling", "ms": 4.0, "ok": true}
{"r": 2, "idea": "unroll", "ms": 3.95, "ok": true}
{"r": 3, "idea": "shared memory tiles", "ms": 2.0, "ok": true}
J
	printf '{"run": {"const": "sx"}, "step": "r", "time_ms": "ms", "correct": "ok", "text": "idea"}\n' >"$D/m.map"
	run "$KTRAJ" import --map "$D/m.map" "$D/a.jsonl"
	[ "$status" -eq 0 ]
	run flag_seq sx 4 "$D/o.ktraj"
	[ "$status" -eq 0 ]
	run "$KTRAJ" --store "$D/o.ktraj" report sx -o "$D/r.html"
	[ "$status" -eq 0 ]
	grep -qF '<br><b class="susp">suspicious: 1 result (seq 4)</b>' "$D/r.html"
	# no jump carries it
	! grep -q '<tr id="jump[0-9]*"[^>]*>.*suspicious' "$D/r.html" || false
}

@test "the graded metric chosen among several printed: the report names it, as blame does" {
	cat >"$D/v.jsonl" <<'J'
{"r": 1, "s": 0.5, "e": 2.0}
{"r": 2, "s": 0.9, "e": 3.6}
{"r": 3, "s": 1.4, "e": 5.6}
J
	printf '{"run": {"const": "v"}, "step": "r", "speedup": "s", "metric": {"const": "speedup_vs_compile"}, "baseline": {"const": "torch.compile"}}\n' >"$D/v.map"
	run "$KTRAJ" --store "$D/m.ktraj" import --map "$D/v.map" "$D/v.jsonl"
	[ "$status" -eq 0 ]
	"$KTRAJ" --store "$D/m.ktraj" export v --format jsonl | python3 -c '
import json, sys
e = {1: 2.0, 2: 3.6, 3: 5.6}
for l in sys.stdin:
    o = json.loads(l)
    if "seq" in o:
        o.pop("hash", None); o.pop("chain", None)
        p = o["payload"]
        if o["kind"] == "bench":
            p["alternatives"] = [{"metric": "speedup_vs_eager", "value": e[p["round"]], "baseline": "eager"}]
            p["choice"] = "the graded metric the verifier names (speedup_vs_compile)"
    print(json.dumps(o, separators=(",", ":")))' >"$D/v.ktraj.jsonl"
	run "$KTRAJ" import "$D/v.ktraj.jsonl"
	[ "$status" -eq 0 ]
	run "$KTRAJ" blame speedup v
	[[ "$output" == *$'\n'"graded metric: speedup_vs_compile (the graded metric the verifier names (speedup_vs_compile); also printed: speedup_vs_eager x2.000 (eager))"$'\n'* ]]
	run "$KTRAJ" report v -o "$D/r.html"
	[ "$status" -eq 0 ]
	[ "$(grep -c 'graded metric: ' "$D/r.html")" -eq 1 ]
	grep -qF '<br>graded metric: speedup_vs_compile (the graded metric the verifier names (speedup_vs_compile); also printed: speedup_vs_eager x2.000 (eager))' "$D/r.html"
	# nothing chose: no such line
	run "$KTRAJ" --store "$D/m.ktraj" report v -o "$D/n.html"
	[ "$status" -eq 0 ]
	! grep -q 'graded metric' "$D/n.html" || false
}

@test "unknown correctness is \"not checked\" on the report's jump and sweep lines, as blame says it" {
	printf '{"r": 1, "ms": 4.0}\n{"r": 2, "ms": 3.9}\n{"r": 3, "ms": 2.0}\n{"r": 4, "ms": 0.0005}\n' >"$D/u.jsonl"
	printf '{"run": {"const": "u"}, "step": "r", "time_ms": "ms"}\n' >"$D/u.map"
	run "$KTRAJ" import --map "$D/u.map" "$D/u.jsonl"
	[ "$status" -eq 0 ]
	run "$KTRAJ" blame speedup u
	[[ "$output" == *"JUMP 2  step 4 (seq 4) over the best so far, step 3 (seq 3)  speedup 2.000 -> 8000.000  gain x4000.000  (not checked)"$'\n'"  (suspicious: under 1 us and not checked)"$'\n'* ]]
	run "$KTRAJ" report u -o "$D/r.html"
	[ "$status" -eq 0 ]
	grep -qF '<td>x4000.000<br><b class="susp">suspicious: under 1 us and not checked</b><br>not checked</td>' "$D/r.html"
	grep -qF '<br><b class="susp">suspicious: 1 result (seq 4)</b>' "$D/r.html"
	# the chart: an unchecked point says so, and the legend never calls
	# the grey dots correct
	grep -qF '<title>step 2 (#2): x1.026, not checked</title>' "$D/r.html"
	grep -qF 'other measurement (correct or not checked)' "$D/r.html"
	! grep -qF 'other correct measurement' "$D/r.html"
	# a sweep of unchecked results
	printf '{"a": 1, "sh": "m1", "ms": 1.0, "ref": 2.0}\n{"a": 1, "sh": "m2", "ms": 2.0, "ref": 2.0}\n{"a": 2, "sh": "m1", "ms": 0.5, "ref": 2.0}\n{"a": 2, "sh": "m2", "ms": 1.0, "ref": 2.0}\n' >"$D/w.jsonl"
	printf '{"run": {"const": "w"}, "step": "a", "scenario": "sh", "time_ms": "ms", "ref_time_ms": "ref"}\n' >"$D/w.map"
	run "$KTRAJ" import --map "$D/w.map" "$D/w.jsonl"
	[ "$status" -eq 0 ]
	run "$KTRAJ" blame speedup w
	[[ "$output" == *$'\n'"sweep 2 (seq 3..4): 2 results over 2 scenarios, geomean speedup x2.828, x2.000 over the best sweep before it (sweep 1) on the 2 scenarios both measured (not checked)"$'\n'* ]]
	run "$KTRAJ" report w -o "$D/w.html"
	[ "$status" -eq 0 ]
	grep -qF '<li id="sweep2">sweep 2 (seq 3..4): 2 results over 2 scenarios, geomean speedup x2.828, x2.000 over the best sweep before it (sweep 1) on the 2 scenarios both measured (not checked)</li>' "$D/w.html"
	grep -qF '4 bench results (0 correct, 4 not checked; ' "$D/w.html"
}

@test "a run of several workloads: the counts say correct and not checked apart, never \"correct measurements\" for unchecked ones" {
	# workload A: nothing checked (counted, correctness unknown); B: checked
	printf '{"r": 1, "wl": "A", "ms": 4.0}\n{"r": 2, "wl": "A", "ms": 2.0}\n{"r": 3, "wl": "B", "ms": 3.0, "ok": true}\n{"r": 4, "wl": "B", "ms": 1.0, "ok": true}\n' >"$D/k.jsonl"
	printf '{"run": {"const": "k"}, "step": "r", "workload": "wl", "time_ms": "ms", "correct": "ok"}\n' >"$D/k.map"
	run "$KTRAJ" import --map "$D/k.map" "$D/k.jsonl"
	[ "$status" -eq 0 ]
	run "$KTRAJ" blame speedup k
	[[ "$output" == *"series A | time:"$'\n'*"  measurements: 2 from 2 bench results: 0 correct, 2 not checked"* ]]
	run "$KTRAJ" report k -o "$D/r.html"
	[ "$status" -eq 0 ]
	grep -qF '<br>4 measurements from 4 bench results (2 correct, 2 not checked; 0 bench results excluded).' "$D/r.html"
	grep -qF '<a href="#w1-chart">chart</a>; 2 measurements from 2 bench results (0 correct, 2 not checked; 0 bench results excluded).' "$D/r.html"
	grep -qF '<a href="#w2-chart">chart</a>; 2 measurements from 2 bench results (2 correct, 0 not checked; 0 bench results excluded).' "$D/r.html"
	! grep -q 'correct measurements' "$D/r.html" || false
}
