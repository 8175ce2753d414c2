#!/usr/bin/env bats
# Interchange exports: ATIF round trip and partitioned NDJSON tables read by
# a real DuckDB (tests/duckdb, `npm install --prefix tests/duckdb`).

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	FIX="$BATS_TEST_DIRNAME/../data"
}

run_of() {
	"$KTRAJ" import --json "$1" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])'
}

count() { # count RUN KIND: events of KIND (messages: those with text)
	"$KTRAJ" log "$1" --json | python3 -c 'import json,sys; print(sum(1 for r in map(json.loads,sys.stdin) if r["kind"]==sys.argv[1] and (r["kind"]!="message" or r.get("text"))))' "$2"
}

@test "ATIF export is ATIF-v1.5 and importing it back keeps every message with text and every tool call (ATIF agent steps carry token usage on an empty message)" {
	R=$(run_of "$FIX/replay/cc_bench_session.jsonl")
	run "$KTRAJ" export "$R" --format atif -o "$BATS_TEST_TMPDIR/t.json"
	[ "$status" -eq 0 ]
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["schema_version"]=="ATIF-v1.5" and d["steps"][0]["source"]=="user" and all(s["step_id"]==i+1 for i,s in enumerate(d["steps"])) else 1)' "$BATS_TEST_TMPDIR/t.json"
	KTRAJ_STORE="$BATS_TEST_TMPDIR/b.ktraj" "$KTRAJ" import "$BATS_TEST_TMPDIR/t.json" >/dev/null
	R2=$(KTRAJ_STORE="$BATS_TEST_TMPDIR/b.ktraj" "$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	[ "$(KTRAJ_STORE="$BATS_TEST_TMPDIR/b.ktraj" count "$R2" tool_call)" -eq "$(count "$R" tool_call)" ]
	[ "$(KTRAJ_STORE="$BATS_TEST_TMPDIR/b.ktraj" count "$R2" message)" -eq "$(count "$R" message)" ]
}

@test "partitioned NDJSON export writes zstd tables partitioned by format and date, one file per table here" {
	run_of "$FIX/replay/cc_bench_session.jsonl" >/dev/null
	run_of "$FIX/replay/cc_bench_faster.jsonl" >/dev/null
	run "$KTRAJ" export --all --format ndjson --partition "$BATS_TEST_TMPDIR/p"
	[ "$status" -eq 0 ]
	# two runs of one format imported today: one partition, one file per
	# table that has rows (questions has none)
	[ "$(find "$BATS_TEST_TMPDIR/p" -name 'part-*.ndjson.zst' | wc -l)" -eq 3 ]
	f=$(ls "$BATS_TEST_TMPDIR"/p/bench/format=claude_code/date=*/part-00001-00000.ndjson.zst)
	zstd -dc "$f" | python3 -c 'import json,sys; r=[json.loads(l) for l in sys.stdin]; sys.exit(0 if len(r)==2 and r[0]["time_ms"]==2.5 and r[0]["correct"] is True and r[0]["run"] != r[1]["run"] else 1)'
}

@test "DuckDB reads the partitioned export with the query in README.md" {
	[ -d "$BATS_TEST_DIRNAME/../duckdb/node_modules/@duckdb/node-api" ] || skip "DuckDB not installed (npm install --prefix tests/duckdb)"
	command -v node >/dev/null || skip "no node"
	run_of "$FIX/replay/cc_bench_session.jsonl" >/dev/null
	run_of "$FIX/replay/cc_bench_faster.jsonl" >/dev/null
	"$KTRAJ" export --all --format ndjson --partition "$BATS_TEST_TMPDIR/p"
	run node "$BATS_TEST_DIRNAME/../duckdb/query.mjs" "$BATS_TEST_TMPDIR/p"
	[ "$status" -eq 0 ]
	echo "$output" | python3 -c '
import json,sys
d=json.loads(sys.stdin.read())
ok = d["runs"]=={"rows":2,"runs":2,"files":1} and d["events"]["rows"]==20 and d["events"]["files"]==1 and d["bench"]["rows"]==2 and d["kinds"]["bench"]==2 and d["kinds"]["tool_call"]==6 and d["first_bench"]["time_ms"]==2.5 and d["questions"]["rows"]==0 and d["runs_latest"]==2 and [p["format"] for p in d["partitions"]]==["claude_code"]
print(d)
sys.exit(0 if ok else 1)'
	# an incremental export after adding a run: DuckDB reads both exports
	"$KTRAJ" append more <<<'{"kind":"note","payload":{"text":"x"}}' >/dev/null
	"$KTRAJ" export --all --format ndjson --partition "$BATS_TEST_TMPDIR/p" --since-last
	run node "$BATS_TEST_DIRNAME/../duckdb/query.mjs" "$BATS_TEST_TMPDIR/p"
	[ "$status" -eq 0 ]
	echo "$output" | python3 -c '
import json,sys
d=json.loads(sys.stdin.read())
print(d)
sys.exit(0 if d["runs"]["rows"]==3 and d["events"]["rows"]==21 and d["kinds"]["note"]==1 and sorted(p["format"] for p in d["partitions"])==["append","claude_code"] else 1)'
}

@test "ATIF and OTLP exports link each tool result to its call by the exact call id: ids that differ only in case are two calls" {
	# main matched call ids through cJSON object keys, case-insensitively
	# (and walked every key per lookup, O(N^2) in the run's calls)
	cat >"$BATS_TEST_TMPDIR/ci.jsonl" <<'J'
{"run": {"id": "0123456789abcdef0123456789abcdef", "name": "case ids", "format": "ktraj"}}
{"kind": "message", "payload": {"role": "user", "human": true, "text": "go"}, "seq": 1}
{"kind": "tool_call", "payload": {"tool": "Bash", "call_id": "abc", "args": {"command": "ls"}}, "seq": 2}
{"kind": "message", "payload": {"role": "user", "human": true, "text": "and"}, "seq": 3}
{"kind": "tool_call", "payload": {"tool": "Bash", "call_id": "ABC", "args": {"command": "pwd"}}, "seq": 4}
{"kind": "tool_result", "payload": {"call_id": "abc", "output": "a.cu"}, "seq": 5}
{"kind": "tool_result", "payload": {"call_id": "ABC", "output": "/w"}, "seq": 6}
J
	"$KTRAJ" import "$BATS_TEST_TMPDIR/ci.jsonl" >/dev/null
	run "$KTRAJ" export 0123456789abcdef0123456789abcdef --format atif -o "$BATS_TEST_TMPDIR/a.json"
	[ "$status" -eq 0 ]
	# each agent step holds its own call's result, nothing else
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
got = [([c["tool_call_id"] for c in s.get("tool_calls", [])],
        [r["source_call_id"] for r in s.get("observation", {}).get("results", [])])
       for s in d["steps"] if s.get("tool_calls")]
sys.exit(0 if got == [(["abc"], ["abc"]), (["ABC"], ["ABC"])] else 1)' "$BATS_TEST_TMPDIR/a.json"
	run "$KTRAJ" export 0123456789abcdef0123456789abcdef --format otlp -o "$BATS_TEST_TMPDIR/o.json"
	[ "$status" -eq 0 ]
	# both execute_tool spans end with their own result
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
res = {}
for sp in d["resourceSpans"][0]["scopeSpans"][0]["spans"]:
    a = {x["key"]: x["value"].get("stringValue") for x in sp["attributes"]}
    if sp["name"].startswith("execute_tool"):
        res[a["gen_ai.tool.call.id"]] = a.get("gen_ai.tool.call.result")
sys.exit(0 if res == {"abc": "a.cu", "ABC": "/w"} else 1)' "$BATS_TEST_TMPDIR/o.json"
}
