#!/usr/bin/env bats
# The type check of payloads (FORMAT.md section 2, import/schema.h) on the
# two paths that take payloads from outside: `ktraj append` refuses the
# line (exit 1, "line N: <kind>.<field>: expected ..., got ..."), keeping
# what came before; `ktraj import` of ktraj JSONL reports the line as
# file:line, skips it like a bad line (its seq counts as skipped: a later
# parent or replay step naming it is dropped) and keeps the rest; --strict
# keeps nothing.  Then the round trip that proves every event our importers
# write passes: the whole corpus imported, every run exported and appended
# into a fresh store.
# Fixture: tests/data/import/ktraj/bad_type.jsonl (ours).

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/a.ktraj"
	D="$BATS_TEST_DIRNAME/../data/import/ktraj"
}

# events of run $1 as seq:kind:parent[:step=N], one line
shape() {
	"$KTRAJ" export "$1" --format jsonl | python3 -c '
import json,sys
out = []
for l in sys.stdin:
    o = json.loads(l)
    if "seq" not in o:
        continue
    s = "%d:%s:%d" % (o["seq"], o["kind"], o["parent"] or 0)
    if "step" in o["payload"]:
        s += ":step=%d" % o["payload"]["step"]
    out.append(s)
print(" ".join(out))'
}

@test "append: each wrong type of the review is refused with its field; what came before stays" {
	local -a bad=(
		'{"kind":"bench","payload":{"time_ms":1,"correct":"yes"}}'
		'{"kind":"bench","payload":{"time_ms":"fast","correct":true}}'
		'{"kind":"bench","payload":{"time_ms":-3,"correct":true}}'
		'{"kind":"compile","payload":{"command":"nvcc","exit_code":"1"}}'
		'{"kind":"message","payload":{"role":"user","human":"true","text":"hi"}}'
		'{"kind":"edit","payload":{"path":"a","op":"move","before":null,"after":null,"tool":"W"}}'
		'{"kind":"question","payload":{"text":"q","origin":"user"}}'
		'{"kind":"replay","payload":{"step":0,"verdict":"reproduced","reason":"r","results":{}}}'
	)
	local -a want=(
		'line 2: bench.correct: expected true, false or null, got string "yes"; not appended'
		'line 2: bench.time_ms: expected a number >= 0 or null, got string "fast"; not appended'
		'line 2: bench.time_ms: expected a number >= 0 or null, got number -3; not appended'
		'line 2: compile.exit_code: expected an integer or null, got string "1"; not appended'
		'line 2: message.human: expected true or false, got string "true"; not appended'
		'line 2: edit.op: expected one of "create", "modify", "delete", "rename", "unknown", got string "move"; not appended'
		'line 2: question.origin: expected one of "human", "library", "agent", got string "user"; not appended'
		'line 2: replay.step: expected a seq (an integer >= 1), got number 0; not appended'
	)
	# (not "lines": run sets it)
	local k n=0 exp
	for k in "${!bad[@]}"; do
		run --separate-stderr "$KTRAJ" append r <<<"{\"kind\":\"note\",\"payload\":{\"text\":\"before $k\"}}
${bad[$k]}
{\"kind\":\"note\",\"payload\":{\"text\":\"never read\"}}"
		[ "$status" -eq 1 ]
		exp="ktraj: append: ${want[$k]}
before the error: 1 event appended to r (run $(printf 'append:r' | sha256sum | cut -c1-32), $((k + 1)) event$([ $k -eq 0 ] || echo s))"
		[ "$stderr" = "$exp" ]
		n=$((k + 1))
	done
	# only the notes before each bad line were stored
	[ "$("$KTRAJ" log r --json | wc -l)" -eq "$n" ]
	[ -z "$("$KTRAJ" log r --json | grep -v '"kind":"note"')" ]
	"$KTRAJ" verify
}

@test "append: null only where the schema allows it; unknown fields of any type and missing fields pass" {
	run --separate-stderr "$KTRAJ" append r <<-'EOF'
	{"kind":"bench","payload":{"time_ms":null,"correct":null,"speedup":null,"status":"runtime_error","candidate":5,"mean_ms":"n/a"}}
	{"kind":"compile","payload":{"command":"nvcc","exit_code":null,"output_hash":null,"cached":"no"}}
	{"kind":"message","payload":{"role":"user","text":"x","usage":{"input":3,"reasoning":"lots"}}}
	{"kind":"note","payload":{}}
	EOF
	[ "$status" -eq 0 ]
	[ "$("$KTRAJ" log r --json | wc -l)" -eq 4 ]
	# the unknown fields are stored as given
	"$KTRAJ" export r --format jsonl | grep -q '"candidate":5,"mean_ms":"n/a"'
	run --separate-stderr "$KTRAJ" append r <<<'{"kind":"message","payload":{"role":"user","text":null}}'
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"line 1: message.text: expected a string, got null; not appended"* ]]
	run --separate-stderr "$KTRAJ" append r <<<'{"kind":"tool_result","payload":{"call_id":"c","ok":true,"output":"","observed":[{"path":"a","blob":null},{"path":7,"blob":null}]}}'
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"line 1: tool_result.observed[1].path: expected a string, got number 7; not appended"* ]]
	[ "$("$KTRAJ" log r --json | wc -l)" -eq 4 ]
}

@test "import of ktraj JSONL: a payload of wrong types is reported at its line and skipped like a bad line" {
	run -0 --separate-stderr "$KTRAJ" import "$D/bad_type.jsonl"
	[[ "$stderr" == *'bad_type.jsonl:2: bench.time_ms: expected a number >= 0 or null, got string "fast"; event not imported'* ]]
	[[ "$stderr" == *'bad_type.jsonl:3: bench.correct: expected true, false or null, got string "yes"; event not imported'* ]]
	[[ "$stderr" == *"bad_type.jsonl:5: parent 2 was not imported; event stored with no parent"* ]]
	[[ "$stderr" == *'bad_type.jsonl:7: replay "step" 3 was not imported; removed from the payload'* ]]
	R=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	# source 4 -> 2 (parent 1), 5 -> 3 (parent 2: skipped, none),
	# 6 -> 4 (parent 4 -> 2, step 4 -> 2), 7 -> 5 (parent and step 3: skipped)
	[ "$(shape "$R")" = "1:tool_call:0 2:bench:1 3:note:0 4:replay:2:step=2 5:replay:0" ]
	"$KTRAJ" export "$R" --format jsonl | grep -q '"why":"kept"'
	"$KTRAJ" verify
	# --strict: the first problem keeps nothing of the file and fails
	run --separate-stderr env KTRAJ_STORE="$BATS_TEST_TMPDIR/b.ktraj" \
		"$KTRAJ" import --strict "$D/bad_type.jsonl"
	[ "$status" -ne 0 ]
	# one line: the first problem (nothing kept is what --strict means)
	[ "$stderr" = "ktraj: import: $D/bad_type.jsonl:2: bench.time_ms: expected a number >= 0 or null, got string \"fast\"" ]
	[ -z "$(KTRAJ_STORE="$BATS_TEST_TMPDIR/b.ktraj" "$KTRAJ" ls --json)" ]
}

# Every event our importers write passes the check: import the whole
# corpus, export every run as ktraj JSONL, append each export into a fresh
# store (append stops at the first refused line) and import them all into
# another (no line reported).  Both give the same events.
@test "corpus round trip: every imported run, exported, appends and imports without a refused line" {
	[ -d "${CORPUS:-}" ] || skip "no corpus"
	C="$BATS_TEST_TMPDIR/c.ktraj"
	KTRAJ_STORE="$C" "$KTRAJ" import "$CORPUS" >/dev/null 2>&1
	mapfile -t RUNS < <(KTRAJ_STORE="$C" "$KTRAJ" ls --json | python3 -c '
import json,sys
for l in sys.stdin:
    print(json.loads(l)["run"])')
	# every format the corpus has, so a lost importer shows
	[ "${#RUNS[@]}" -ge 40 ]
	mkdir "$BATS_TEST_TMPDIR/x"
	local r kinds=""
	for r in "${RUNS[@]}"; do
		KTRAJ_STORE="$C" "$KTRAJ" export "$r" --format jsonl >"$BATS_TEST_TMPDIR/x/$r.jsonl"
		run --separate-stderr env KTRAJ_STORE="$BATS_TEST_TMPDIR/f.ktraj" \
			"$KTRAJ" append "rt-$r" <"$BATS_TEST_TMPDIR/x/$r.jsonl"
		if [ "$status" -ne 0 ]; then
			echo "run $r: $stderr" >&3
			false
		fi
		# every event went in (the run line is skipped)
		[ "$(KTRAJ_STORE="$BATS_TEST_TMPDIR/f.ktraj" "$KTRAJ" log "rt-$r" --json | wc -l)" -eq \
		  "$(python3 -c 'import json,sys; print(sum("kind" in json.loads(l) for l in open(sys.argv[1])))' "$BATS_TEST_TMPDIR/x/$r.jsonl")" ]
	done
	# the check saw every kind the importers write, typed fields included
	cat "$BATS_TEST_TMPDIR"/x/*.jsonl | python3 -c '
import json,sys
k = set(json.loads(l).get("kind") for l in sys.stdin)
need = {"message","tool_call","tool_result","edit","compile","bench","profile","note"}
assert need <= k, need - k'
	run -0 --separate-stderr env KTRAJ_STORE="$BATS_TEST_TMPDIR/g.ktraj" \
		"$KTRAJ" import "$BATS_TEST_TMPDIR/x"
	[[ "$stderr" != *"not imported"* ]]
	[[ "$stderr" != *"expected"* ]]
	KTRAJ_STORE="$BATS_TEST_TMPDIR/f.ktraj" "$KTRAJ" verify >/dev/null
	KTRAJ_STORE="$BATS_TEST_TMPDIR/g.ktraj" "$KTRAJ" verify >/dev/null
}

# replay events (ktraj replay, and a bundle's result.json imported) pass
# too; a result.json whose fields have the wrong types adds nothing
@test "replay events round-trip through append; a result.json of wrong types is reported and adds nothing" {
	command -v cc >/dev/null || skip "no C compiler"
	FIX="$BATS_TEST_DIRNAME/../data/replay"
	"$KTRAJ" import "$FIX/cc_bench_session.jsonl" >/dev/null
	R=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	S=$("$KTRAJ" log "$R" --json | python3 -c '
import json,sys
print(next(r["seq"] for r in map(json.loads,sys.stdin) if r["kind"]=="bench"))')
	"$KTRAJ" replay "$R" "$S" >/dev/null
	# the same step's result.json, hand-made: once right, once of wrong types
	res() {
		printf '{"ktraj_replay":1,"exit_code":%s,"duration_ms":%s,"finished":1700000000,"manifest":{"run":"%s","seq":%s,"kind":"bench","expect":%s},"gpu":"g","stdout":"2.50 ms\\n","stderr":""}\n' "$@"
	}
	res 0 12 "$R" "$S" '{"time_ms":2.5}' >"$BATS_TEST_TMPDIR/ok.json"
	res 1.5 12 "$R" "$S" '{"time_ms":2.5}' >"$BATS_TEST_TMPDIR/ec.json"
	res 0 -4 "$R" "$S" '{"time_ms":2.5}' >"$BATS_TEST_TMPDIR/du.json"
	res 0 12 "$R" "$S" '"fast"' >"$BATS_TEST_TMPDIR/ex.json"
	run -0 "$KTRAJ" import "$BATS_TEST_TMPDIR/ok.json"
	[ "$("$KTRAJ" log "$R" --kind replay --json | wc -l)" -eq 2 ]
	run --separate-stderr "$KTRAJ" import "$BATS_TEST_TMPDIR/ec.json"
	[[ "$stderr" == *"ec.json: replay result: replay.results.exit_code: expected an integer, got number 1.5: skipped"* ]]
	run --separate-stderr "$KTRAJ" import "$BATS_TEST_TMPDIR/du.json"
	[[ "$stderr" == *"du.json: replay result: replay.results.duration_ms: expected a number >= 0, got number -4: skipped"* ]]
	run --separate-stderr "$KTRAJ" import "$BATS_TEST_TMPDIR/ex.json"
	[[ "$stderr" == *'ex.json: replay result: replay.expected: expected an object, got string "fast": skipped'* ]]
	[ "$("$KTRAJ" log "$R" --kind replay --json | wc -l)" -eq 2 ]
	# the whole run, replays included, appends into a fresh store
	"$KTRAJ" export "$R" --format jsonl >"$BATS_TEST_TMPDIR/r.jsonl"
	run -0 --separate-stderr env KTRAJ_STORE="$BATS_TEST_TMPDIR/f.ktraj" \
		"$KTRAJ" append again <"$BATS_TEST_TMPDIR/r.jsonl"
	[ "$(KTRAJ_STORE="$BATS_TEST_TMPDIR/f.ktraj" "$KTRAJ" log again --kind replay --json | wc -l)" -eq 2 ]
}

# bench --record (the harness's compile and result records, untimed
# scenarios with null times) round-trips through append; with the real
# ktraj-harness built (nvcc here), its compile records too
@test "bench --record events round-trip through append (fake harness; the real one where built)" {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	echo '__global__ void k(){} // candidate' >"$BATS_TEST_TMPDIR/cand.cu"
	KTRAJ_HARNESS="$ROOT/tests/data/bench/fake_harness.sh" \
		"$KTRAJ" bench --task attention_fwd --kernel "$BATS_TEST_TMPDIR/cand.cu" \
		--record rec1 >/dev/null 2>&1 || true
	[ "$("$KTRAJ" log rec1 --kind bench --json | wc -l)" -eq 2 ]
	H=$(dirname "$KTRAJ")/harness/ktraj-harness
	if [ -x "$H" ]; then
		KTRAJ_HARNESS="$H" KTRAJ_HARNESS_CACHE="$BATS_TEST_TMPDIR/cache" \
			"$KTRAJ" bench --task rmsnorm --kernel "$ROOT/kernels/rmsnorm/01_rowwise.cu" \
			--record rec2 >/dev/null 2>&1 || true
	fi
	local r n
	for r in rec1 rec2; do
		n=$("$KTRAJ" log "$r" --json 2>/dev/null | wc -l)
		[ "$r" = rec2 ] && [ "$n" -eq 0 ] && continue
		"$KTRAJ" export "$r" --format jsonl >"$BATS_TEST_TMPDIR/$r.jsonl"
		run -0 --separate-stderr env KTRAJ_STORE="$BATS_TEST_TMPDIR/f.ktraj" \
			"$KTRAJ" append "$r" <"$BATS_TEST_TMPDIR/$r.jsonl"
		[ "$(KTRAJ_STORE="$BATS_TEST_TMPDIR/f.ktraj" "$KTRAJ" log "$r" --json | wc -l)" -eq "$n" ]
	done
}
