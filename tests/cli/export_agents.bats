#!/usr/bin/env bats
# The exports into other agents' formats (README "Other exports"): the
# sample session's 7 messages, 12 tool calls and 12 tool results, as the
# STS spec and the OTLP/JSON GenAI span conventions lay them out, read by a
# plain JSON parser.  (That the claude_code export imports back the same is
# tests/unit/t_export_agents.c.)

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	"$KTRAJ" import "$BATS_TEST_DIRNAME/../data/sample/softmax_session.jsonl" >/dev/null
	RUN=3db88dd1ab522b4e190e8ab88aad55fa
}

@test "sts: a session header, then every message, tool call and result in order" {
	"$KTRAJ" export "$RUN" --format sts -o "$BATS_TEST_TMPDIR/s.jsonl"
	python3 - "$BATS_TEST_TMPDIR/s.jsonl" "$RUN" <<-'PY'
	import json, sys
	lines = [json.loads(l) for l in open(sys.argv[1])]
	h = lines[0]
	assert h["type"] == "session" and h["harness"] == "ktraj" and h["id"] == sys.argv[2], h
	assert h["source_format"] == "claude_code" and h["cwd"] == "/home/dev/softmax"
	msgs = [l["message"] for l in lines[1:]]
	assert all(l["type"] == "message" for l in lines[1:])
	roles = [m["role"] for m in msgs]
	calls = [c for m in msgs for c in m.get("toolCalls", [])]
	tools = [m for m in msgs if m["role"] == "tool"]
	assert roles.count("user") == 2 and len(calls) == 12 and len(tools) == 12, roles
	# 5 assistant texts; tool calls ride on them or on messages of their own
	assert sum(1 for m in msgs if m["role"] == "assistant" and m["content"]) == 5
	# every result answers a call made before it, in order
	seen = []
	for m in msgs:
	    seen += [c["id"] for c in m.get("toolCalls", [])]
	    if m["role"] == "tool":
	        assert m["toolCallId"] in seen, m
	for c in calls:
	    assert isinstance(json.loads(c["function"]["arguments"]), dict)
	assert sum(1 for m in tools if m.get("isError")) == 1
	# the spec's timestamp is epoch milliseconds (hub-docs
	# session-traces-format.md), not an ISO string
	assert all(isinstance(m["timestamp"], int) and m["timestamp"] > 10**12 for m in msgs)
	PY
}

@test "otlp: one request, invoke_agent root, a chat span per response, an execute_tool span per call" {
	"$KTRAJ" export "$RUN" --format otlp -o "$BATS_TEST_TMPDIR/o.json"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/o.json")" -eq 1 ]
	python3 - "$BATS_TEST_TMPDIR/o.json" "$RUN" <<-'PY'
	import json, sys
	doc = json.load(open(sys.argv[1]))
	spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
	attrs = lambda s: {a["key"]: list(a["value"].values())[0] for a in s["attributes"]}
	root = spans[0]
	assert root["name"] == "invoke_agent claude_code" and root["parentSpanId"] == ""
	assert attrs(root)["gen_ai.operation.name"] == "invoke_agent"
	ids = [s["spanId"] for s in spans]
	assert len(set(ids)) == len(ids) and all(len(i) == 16 for i in ids)
	assert all(s["traceId"] == sys.argv[2] for s in spans)
	assert all(s["parentSpanId"] == root["spanId"] for s in spans[1:])
	tools = [s for s in spans if s["name"].startswith("execute_tool ")]
	chats = [s for s in spans if attrs(s)["gen_ai.operation.name"] == "chat"]
	assert len(tools) == 12 and len(spans) == 1 + len(tools) + len(chats)
	for s in spans:
	    assert int(s["startTimeUnixNano"]) <= int(s["endTimeUnixNano"])
	    assert int(root["startTimeUnixNano"]) <= int(s["startTimeUnixNano"])
	    assert int(s["endTimeUnixNano"]) <= int(root["endTimeUnixNano"])
	for s in tools:
	    a = attrs(s)
	    assert isinstance(json.loads(a["gen_ai.tool.call.arguments"]), dict)
	    assert "gen_ai.tool.call.result" in a and s["status"]["code"] in (1, 2)
	assert sum(s["status"]["code"] == 2 for s in tools) == 1
	# every message of the run is in one chat span's input or output
	ins = [m for s in chats for m in json.loads(attrs(s)["gen_ai.input.messages"])]
	outs = [p for s in chats for m in json.loads(attrs(s)["gen_ai.output.messages"]) for p in m["parts"]]
	late = json.loads(attrs(root).get("gen_ai.input.messages", "[]"))
	users = [m for m in ins + late if m["role"] == "user"]
	assert len(users) == 2 and sum(m["role"] == "tool" for m in ins) == 12
	assert sum(p["type"] == "text" for p in outs) == 5
	assert [p["id"] for p in outs if p["type"] == "tool_call"] == \
	       [attrs(s)["gen_ai.tool.call.id"] for s in tools]
	PY
}

@test "claude_code: every line is a transcript line of one session, chained" {
	"$KTRAJ" export "$RUN" --format claude_code -o "$BATS_TEST_TMPDIR/c.jsonl"
	python3 - "$BATS_TEST_TMPDIR/c.jsonl" <<-'PY'
	import json, sys
	lines = [json.loads(l) for l in open(sys.argv[1])]
	assert len(lines) == 7 + 12 + 12
	assert len({l["sessionId"] for l in lines}) == 1
	prev = None
	# the fields claude-code-log's transcript model requires of every line
	# (BaseTranscriptEntry) and of an assistant message (AssistantMessageModel)
	need = {"parentUuid", "isSidechain", "userType", "cwd", "sessionId",
	        "version", "uuid", "timestamp"}
	for l in lines:
	    assert l["parentUuid"] == prev and l["type"] in ("user", "assistant")
	    assert need <= set(l), need - set(l)
	    assert all(isinstance(l[k], str) for k in need - {"parentUuid", "isSidechain"})
	    assert len(l["timestamp"]) == 24 and l["timestamp"].endswith("Z")
	    if l["type"] == "assistant":
	        m = l["message"]
	        assert {"id", "type", "role", "model", "content"} <= set(m), m
	    prev = l["uuid"]
	uses = [b for l in lines if l["type"] == "assistant" for b in l["message"]["content"] if b["type"] == "tool_use"]
	res = [b for l in lines if l["type"] == "user" and isinstance(l["message"]["content"], list) for b in l["message"]["content"]]
	assert len(uses) == 12 and [b["tool_use_id"] for b in res] == [b["id"] for b in uses]
	PY
}

@test "the agent exports redact like the others" {
	"$KTRAJ" export "$RUN" --format sts --redact >"$BATS_TEST_TMPDIR/r.jsonl"
	! grep -q '/home/dev' "$BATS_TEST_TMPDIR/r.jsonl" || false
	"$KTRAJ" export "$RUN" --format otlp --redact >"$BATS_TEST_TMPDIR/r.json"
	! grep -q '/home/dev' "$BATS_TEST_TMPDIR/r.json" || false
	"$KTRAJ" export "$RUN" --format claude_code --redact >"$BATS_TEST_TMPDIR/r2.jsonl"
	! grep -q '/home/dev' "$BATS_TEST_TMPDIR/r2.jsonl" || false
}

@test "claude_code export: an event of unknown time reads back as unknown, not as 1970" {
	"$KTRAJ" append notime <<<'{"kind":"message","ts":null,"payload":{"role":"user","human":true,"text":"hello"}}' >/dev/null
	"$KTRAJ" export notime --format claude_code -o "$BATS_TEST_TMPDIR/n.jsonl"
	grep -q '"timestamp":"1970-01-01T00:00:00.000Z"' "$BATS_TEST_TMPDIR/n.jsonl"
	KTRAJ_STORE="$BATS_TEST_TMPDIR/b.ktraj" "$KTRAJ" import "$BATS_TEST_TMPDIR/n.jsonl" >/dev/null
	R=$(KTRAJ_STORE="$BATS_TEST_TMPDIR/b.ktraj" "$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	KTRAJ_STORE="$BATS_TEST_TMPDIR/b.ktraj" "$KTRAJ" log "$R" --json | python3 -c 'import json,sys; r=[json.loads(l) for l in sys.stdin]; assert r and all(x["ts"] is None for x in r), r'
}

@test "otlp export: an event of unknown time reads back as unknown (0 is OTLP's unset time)" {
	"$KTRAJ" append notime <<<'{"kind":"message","ts":null,"payload":{"role":"user","human":true,"text":"hello"}}' >/dev/null
	"$KTRAJ" export notime --format otlp -o "$BATS_TEST_TMPDIR/n.json"
	KTRAJ_STORE="$BATS_TEST_TMPDIR/b.ktraj" "$KTRAJ" import "$BATS_TEST_TMPDIR/n.json" >/dev/null
	R=$(KTRAJ_STORE="$BATS_TEST_TMPDIR/b.ktraj" "$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	KTRAJ_STORE="$BATS_TEST_TMPDIR/b.ktraj" "$KTRAJ" log "$R" --json | python3 -c 'import json,sys; r=[json.loads(l) for l in sys.stdin]; assert r and all(x["ts"] is None for x in r), r'
}

@test "otlp export: the model's thinking comes back as a thinking message before its answer" {
	"$KTRAJ" append think <<'J' >/dev/null
{"kind":"message","payload":{"role":"user","human":true,"text":"Why is it slow?"}}
{"kind":"message","payload":{"role":"assistant","human":false,"text":"The loads are not coalesced.","flags":["thinking"]}}
{"kind":"message","payload":{"role":"assistant","human":false,"text":"Because of uncoalesced loads."}}
J
	"$KTRAJ" export think --format otlp -o "$BATS_TEST_TMPDIR/t.json"
	KTRAJ_STORE="$BATS_TEST_TMPDIR/b.ktraj" "$KTRAJ" import "$BATS_TEST_TMPDIR/t.json" >/dev/null
	R=$(KTRAJ_STORE="$BATS_TEST_TMPDIR/b.ktraj" "$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	KTRAJ_STORE="$BATS_TEST_TMPDIR/b.ktraj" "$KTRAJ" export "$R" --format jsonl | python3 -c '
import json, sys
r = [json.loads(l)["payload"] for l in sys.stdin if json.loads(l).get("kind") == "message"]
a = [(x.get("text"), "thinking" in (x.get("flags") or [])) for x in r if x.get("role") == "assistant"]
assert a == [("The loads are not coalesced.", True), ("Because of uncoalesced loads.", False)], a'
}

@test "otlp export/import of cc_mixed: messages come back in order with who typed them (ktraj.input.human)" {
	"$KTRAJ" import "$BATS_TEST_DIRNAME/../data/export/cc_mixed.jsonl" >/dev/null
	r=$("$KTRAJ" ls --json --format claude_code --sort name | python3 -c 'import json,sys; [print(o["run"]) for o in map(json.loads, sys.stdin) if o["name"].startswith("Tile")]')
	"$KTRAJ" export "$r" --format otlp -o "$BATS_TEST_TMPDIR/m.json"
	python3 - "$BATS_TEST_TMPDIR/m.json" <<-'PY'
	import json, sys
	spans = json.load(open(sys.argv[1]))["resourceSpans"][0]["scopeSpans"][0]["spans"]
	for s in spans:
	    a = {x["key"]: x["value"] for x in s["attributes"]}
	    if "ktraj.input.human" in a:
	        hv = [v["boolValue"] for v in a["ktraj.input.human"]["arrayValue"]["values"]]
	        assert len(hv) == len(json.loads(a["gen_ai.input.messages"]["stringValue"])), s
	PY
	KTRAJ_STORE="$BATS_TEST_TMPDIR/o.ktraj" "$KTRAJ" import "$BATS_TEST_TMPDIR/m.json" >/dev/null
	# role, human and text of every message but the OTLP root's
	msgs() { "$KTRAJ" export "$1" | python3 -c '
import json, sys
for e in map(json.loads, sys.stdin):
    p = e.get("payload") or {}
    if e.get("kind") == "message" and "invoke_agent" not in (p.get("flags") or []):
        print(p["role"], p.get("human"), p["text"])'; }
	msgs "$r" >"$BATS_TEST_TMPDIR/a.txt"
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/o.ktraj"
	msgs "$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')" >"$BATS_TEST_TMPDIR/b.txt"
	cat "$BATS_TEST_TMPDIR/a.txt" "$BATS_TEST_TMPDIR/b.txt"
	grep -q '^user False ' "$BATS_TEST_TMPDIR/a.txt"
	diff "$BATS_TEST_TMPDIR/a.txt" "$BATS_TEST_TMPDIR/b.txt"
}

@test "otlp round trip of real runs keeps what was there and invents nothing: kinds, counts, results, edit paths, agent messages (corpus: codex)" {
	CORPUS=${CORPUS:-$BATS_TEST_DIRNAME/../../../shared/corpus}
	local n=0 f
	# an unanswered last call, a compacted run whose responses hold
	# several agent messages, apply_patch edits with paths relative to the
	# session's directory
	for f in codex/localpush_rollout_12-47-42_unanswered_call.jsonl \
		 codex/localpush_rollout_12-54-34_compacted.jsonl \
		 codex/agenthistory_codex_compaction.jsonl \
		 codex/agenthistory_codex_escalation.jsonl; do
		[ -f "$CORPUS/$f" ] || continue
		n=$((n + 1))
		export KTRAJ_STORE="$BATS_TEST_TMPDIR/a$n.ktraj"
		"$KTRAJ" import "$CORPUS/$f" >/dev/null
		r=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
		"$KTRAJ" export "$r" --format otlp -o "$BATS_TEST_TMPDIR/o$n.json"
		"$KTRAJ" export "$r" >"$BATS_TEST_TMPDIR/a$n.jsonl"
		export KTRAJ_STORE="$BATS_TEST_TMPDIR/b$n.ktraj"
		"$KTRAJ" import "$BATS_TEST_TMPDIR/o$n.json" >/dev/null
		r=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
		"$KTRAJ" export "$r" >"$BATS_TEST_TMPDIR/b$n.jsonl"
		python3 - "$f" "$BATS_TEST_TMPDIR/a$n.jsonl" "$BATS_TEST_TMPDIR/b$n.jsonl" <<-'PY'
		import collections, json, sys
		name = sys.argv[1]
		def load(p):
		    ev = [e for e in map(json.loads, open(p)) if "kind" in e]
		    kinds = collections.Counter(e["kind"] for e in ev
		                                if e["kind"] in ("message", "tool_call", "tool_result", "edit"))
		    results = sorted((e["payload"].get("call_id"), e["payload"].get("ok"))
		                     for e in ev if e["kind"] == "tool_result")
		    edits = sorted(e["payload"]["path"] for e in ev if e["kind"] == "edit")
		    agent = [e["payload"]["text"] for e in ev if e["kind"] == "message" and e["actor"] == "agent"
		             and "thinking" not in (e["payload"].get("flags") or [])]
		    return kinds, results, edits, agent
		a, b = load(sys.argv[2]), load(sys.argv[3])
		for what, x, y in zip(("kinds", "results", "edit paths", "agent messages"), a, b):
		    assert x == y, (name, what, x if what == "kinds" else len(x), y if what == "kinds" else len(y))
		print(name, dict(a[0]))
		PY
	done
	[ "$n" -gt 0 ] || skip "no corpus"
}
