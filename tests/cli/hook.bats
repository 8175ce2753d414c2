#!/usr/bin/env bats
# `ktraj hook`: live recording from Claude Code's hooks and Codex's notify
# program.  A fake Claude Code (fake_claude below) reads the hooks that
# `ktraj hook install` wrote into .claude/settings.json and runs them as
# Claude Code does: the hook's command through sh, from the project
# folder, with the event's JSON on stdin (session_id, transcript_path, cwd,
# permission_mode, hook_event_name and the event's own fields), PreToolUse
# and PostToolUse only where the matcher matches the tool.  The store is
# checked after every turn.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	PROJ="$BATS_TEST_TMPDIR/proj"
	mkdir -p "$PROJ"
	SID=6f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9
}

# fake_claude EVENT JSON-FIELDS: run every hook the settings give for EVENT,
# as Claude Code runs them; fails when a hook exits non-zero or writes to
# stdout (Claude Code would show it to the model).
fake_claude() {
	python3 - "$PROJ" "$SID" "$1" "$2" <<-'PY'
	import json, re, subprocess, sys
	proj, sid, event, fields = sys.argv[1:5]
	cfg = json.load(open(proj + "/.claude/settings.json"))
	payload = {"session_id": sid,
	           "transcript_path": proj + "/transcript.jsonl",
	           "cwd": proj, "permission_mode": "default",
	           "hook_event_name": event}
	payload.update(json.loads(fields))
	for group in cfg.get("hooks", {}).get(event, []):
	    m = group.get("matcher", "")
	    if event in ("PreToolUse", "PostToolUse") and m not in ("", "*") \
	       and not re.fullmatch(m, payload["tool_name"]):
	        continue
	    for h in group["hooks"]:
	        r = subprocess.run(["sh", "-c", h["command"]], cwd=proj,
	                           input=json.dumps(payload).encode(),
	                           capture_output=True)
	        assert r.returncode == 0, (event, r.returncode, r.stderr)
	        assert r.stdout == b"", (event, r.stdout)
	PY
}

# counts KIND...: the run's events as "kind:n" in the order given, then
# human messages and tool results paired with a tool_call (parent set).
counts() {
	"$KTRAJ" log "claude-code:$SID" --json | python3 -c '
import json, sys
ev = [json.loads(l) for l in sys.stdin]
k = lambda n: sum(e["kind"] == n for e in ev)
print("message:%d tool_call:%d tool_result:%d note:%d human:%d paired:%d" % (
    k("message"), k("tool_call"), k("tool_result"), k("note"),
    sum(e.get("human") is True for e in ev),
    sum(e["kind"] == "tool_result" and e["parent"] is not None for e in ev)))'
}

@test "hook install writes the five hooks, keeps other settings, and is idempotent" {
	mkdir -p "$PROJ/.claude"
	printf '{"model":"opus","permissions":{"allow":["Bash(make:*)"]},"hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify-send done"}]}]}}\n' >"$PROJ/.claude/settings.json"
	cd "$PROJ"
	run "$KTRAJ" hook install
	[ "$status" -eq 0 ]
	cp .claude/settings.json "$BATS_TEST_TMPDIR/first.json"
	run "$KTRAJ" hook install
	[ "$status" -eq 0 ]
	[[ "$output" == *"already records"* ]]
	cmp .claude/settings.json "$BATS_TEST_TMPDIR/first.json"
	python3 - "$KTRAJ_STORE" <<-'PY'
	import json, sys
	s = json.load(open(".claude/settings.json"))
	assert s["model"] == "opus" and s["permissions"] == {"allow": ["Bash(make:*)"]}
	h = s["hooks"]
	assert sorted(h) == ["PostToolUse", "PreToolUse", "SessionStart", "Stop", "UserPromptSubmit"]
	# the user's own Stop hook stays, ours comes after it
	assert h["Stop"][0]["hooks"][0]["command"] == "notify-send done"
	for ev, groups in h.items():
	    ours = [x for g in groups for x in g["hooks"] if "hook claude-code" in x["command"]]
	    assert len(ours) == 1, (ev, groups)
	    assert ("--store '%s'" % sys.argv[1]) in ours[0]["command"]
	assert h["PreToolUse"][0]["matcher"] == "*"
	PY
}

@test "hook install refuses a settings file that is not JSON and leaves it" {
	mkdir -p "$PROJ/.claude"
	printf '{"model": "opus",\n' >"$PROJ/.claude/settings.json"
	cd "$PROJ"
	run "$KTRAJ" hook install
	[ "$status" -eq 1 ]
	[[ "$output" == "ktraj: hook: .claude/settings.json is not a JSON object; not changed" ]]
	[ "$(cat .claude/settings.json)" = '{"model": "opus",' ]
}

@test "a scripted Claude Code session is recorded turn by turn" {
	(cd "$PROJ" && "$KTRAJ" hook install >/dev/null)
	fake_claude SessionStart '{"source":"startup","model":"claude-opus-4-1"}'
	[ "$(counts)" = "message:0 tool_call:0 tool_result:0 note:1 human:0 paired:0" ]

	# turn 1: a prompt, a build that fails, a fix, a build that passes
	fake_claude UserPromptSubmit '{"prompt":"Build softmax.cu for sm_90 and fix what breaks."}'
	[ "$(counts)" = "message:1 tool_call:0 tool_result:0 note:1 human:1 paired:0" ]
	fake_claude PreToolUse '{"tool_name":"Bash","tool_use_id":"toolu_A1","tool_input":{"command":"nvcc -O3 -arch=sm_90 -o softmax softmax.cu"}}'
	fake_claude PostToolUse '{"tool_name":"Bash","tool_use_id":"toolu_A1","tool_input":{"command":"nvcc -O3 -arch=sm_90 -o softmax softmax.cu"},"tool_response":{"stdout":"","stderr":"softmax.cu(4): error: expected a \";\"","interrupted":false,"isImage":false}}'
	fake_claude PreToolUse '{"tool_name":"Edit","tool_use_id":"toolu_A2","tool_input":{"file_path":"'"$PROJ"'/softmax.cu","old_string":"int r","new_string":"int r;"}}'
	fake_claude PostToolUse '{"tool_name":"Edit","tool_use_id":"toolu_A2","tool_input":{"file_path":"'"$PROJ"'/softmax.cu","old_string":"int r","new_string":"int r;"},"tool_response":{"filePath":"'"$PROJ"'/softmax.cu","oldString":"int r","newString":"int r;"}}'
	fake_claude Stop '{"stop_hook_active":false,"last_assistant_message":"Fixed the missing semicolon; it builds now."}'
	[ "$(counts)" = "message:2 tool_call:2 tool_result:2 note:1 human:1 paired:2" ]

	# turn 2: a tool call without tool_use_id (Claude Code before it was
	# passed to hooks) is paired by tool and input; the assistant's text
	# comes from the transcript when Stop does not carry it
	fake_claude UserPromptSubmit '{"prompt":"Now time it."}'
	fake_claude PreToolUse '{"tool_name":"Bash","tool_input":{"command":"./softmax --bench"}}'
	fake_claude PostToolUse '{"tool_name":"Bash","tool_input":{"command":"./softmax --bench"},"tool_response":{"stdout":"time: 0.118 ms","stderr":"","interrupted":false,"isImage":false}}'
	printf '%s\n' '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"It takes 0.118 ms."}]}}' >"$PROJ/transcript.jsonl"
	fake_claude Stop '{"stop_hook_active":false}'
	[ "$(counts)" = "message:4 tool_call:3 tool_result:3 note:1 human:2 paired:3" ]

	"$KTRAJ" log "claude-code:$SID" --json >"$BATS_TEST_TMPDIR/log.json"
	python3 - "$BATS_TEST_TMPDIR/log.json" <<-'PY'
	import json, sys
	ev = [json.loads(l) for l in open(sys.argv[1])]
	msgs = [(e["role"], e["human"], e["text"]) for e in ev if e["kind"] == "message"]
	assert msgs == [("user", True, "Build softmax.cu for sm_90 and fix what breaks."),
	                ("assistant", False, "Fixed the missing semicolon; it builds now."),
	                ("user", True, "Now time it."),
	                ("assistant", False, "It takes 0.118 ms.")], msgs
	calls = {e["seq"]: e for e in ev if e["kind"] == "tool_call"}
	res = [e for e in ev if e["kind"] == "tool_result"]
	assert [calls[r["parent"]]["call_id"] for r in res] == [r["call_id"] for r in res]
	assert [r["call_id"] for r in res][:2] == ["toolu_A1", "toolu_A2"]
	PY
	run "$KTRAJ" show "claude-code:$SID" 4 --json
	[[ "$output" == *'softmax.cu(4): error: expected a'* ]]
	"$KTRAJ" verify >/dev/null
}

@test "a bad hook input exits 1 with one line, never 2; unknown events are ignored" {
	run sh -c "echo 'not json' | '$KTRAJ' hook claude-code"
	[ "$status" -eq 1 ]
	[ "$output" = "ktraj: hook: stdin is not a hook event (a JSON object)" ]
	run sh -c "echo '{\"hook_event_name\":\"Stop\"}' | '$KTRAJ' hook claude-code"
	[ "$status" -eq 1 ]
	[ "$output" = "ktraj: hook: the hook input has no usable session id" ]
	run sh -c "echo '{\"hook_event_name\":\"Notification\",\"session_id\":\"x\",\"message\":\"hi\"}' | '$KTRAJ' hook claude-code"
	[ "$status" -eq 0 ]
	[ "$output" = "" ]
	run sh -c "echo '{}' | '$KTRAJ' hook claude-code extra"
	[ "$status" -eq 1 ]
}

@test "hook codex records each notify payload as a turn of the thread's run" {
	P='{"type":"agent-turn-complete","thread-id":"th-7","turn-id":"1","cwd":"/w","input-messages":["Make the kernel faster."],"last-assistant-message":"Done: 2.1x."}'
	"$KTRAJ" hook codex "$P"
	"$KTRAJ" hook codex '{"type":"agent-turn-complete","thread-id":"th-7","turn-id":"2","cwd":"/w","input-messages":["Thanks"],"last-assistant-message":"You are welcome."}'
	"$KTRAJ" log codex:th-7 --json >"$BATS_TEST_TMPDIR/c.json"
	python3 - "$BATS_TEST_TMPDIR/c.json" <<-'PY'
	import json, sys
	ev = [json.loads(l) for l in open(sys.argv[1])]
	assert [(e["role"], e["human"], e["text"]) for e in ev] == [
	    ("user", True, "Make the kernel faster."), ("assistant", False, "Done: 2.1x."),
	    ("user", True, "Thanks"), ("assistant", False, "You are welcome.")], ev
	PY
	run "$KTRAJ" hook install --codex
	[ "$status" -eq 0 ]
	[[ "$output" == *'notify = ["'*'","--store","'"$KTRAJ_STORE"'","hook","codex"]'* ]]
}

@test "a session id with a NUL (\\u0000) or another control character is refused with one line; nothing is recorded" {
	for sid in 'abc\u0000def' 'abc\u0000' 'ab\u0001c'; do
		run --separate-stderr sh -c "printf '%s' '{\"hook_event_name\":\"UserPromptSubmit\",\"session_id\":\"$sid\",\"prompt\":\"hi\"}' | '$KTRAJ' hook claude-code"
		echo "$sid: $status $stderr"
		[ "$status" -eq 1 ]
		[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
		[[ "$stderr" == "ktraj: hook: the hook input's session id "* ]]
	done
	run --separate-stderr "$KTRAJ" hook codex '{"type":"agent-turn-complete","thread-id":"t\u0000x","input-messages":["hi"]}'
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"session id holds a NUL"* ]]
	run --separate-stderr "$KTRAJ" ls --json
	[ -z "$output" ]
	# an escaped backslash before u0000 is text, not a NUL: recorded
	printf '%s' '{"hook_event_name":"UserPromptSubmit","session_id":"a\\u0000","prompt":"hi"}' >"$BATS_TEST_TMPDIR/p.json"
	run sh -c "'$KTRAJ' hook claude-code <'$BATS_TEST_TMPDIR/p.json'"
	[ "$status" -eq 0 ]
	run "$KTRAJ" ls --json
	[[ "$output" == *'"name":"claude-code:a\\u0000"'* ]]
}

@test "hook gemini-cli records a scripted Gemini CLI session turn by turn, answering {} on stdout" {
	# the hooks of .gemini/settings.json as README gives them, run as
	# Gemini CLI runs a hook: through sh, the event's JSON on stdin, its
	# stdout parsed as JSON
	mkdir -p "$PROJ/.gemini"
	cmd="'$KTRAJ' --store '$KTRAJ_STORE' hook gemini-cli"
	python3 - "$PROJ" "$cmd" <<-'PY'
	import json, subprocess, sys
	proj, cmd = sys.argv[1:3]
	base = {"session_id": "g-7f3a", "transcript_path": proj + "/chat.json",
	        "cwd": proj, "timestamp": "2026-01-02T03:04:05Z"}
	turns = [
	    ("SessionStart", {"source": "startup"}),
	    ("BeforeAgent", {"prompt": "make softmax.cu faster"}),
	    ("BeforeModel", {"llm_request": {"model": "gemini-2.5-pro", "messages": []}}),
	    ("AfterTool", {"tool_name": "run_shell_command",
	                   "tool_input": {"command": "nvcc -O3 -o sm softmax.cu"},
	                   "tool_response": {"llmContent": "Exit Code: 0", "returnDisplay": "ok"}}),
	    ("AfterTool", {"tool_name": "read_file", "tool_input": {"absolute_path": "/nope"},
	                   "tool_response": {"llmContent": "", "error": "File not found"}}),
	    ("AfterAgent", {"prompt": "make softmax.cu faster", "prompt_response": "Done: 2x."}),
	]
	for ev, fields in turns:
	    payload = dict(base, hook_event_name=ev, **fields)
	    r = subprocess.run(["sh", "-c", cmd], cwd=proj, capture_output=True,
	                       input=json.dumps(payload).encode())
	    assert r.returncode == 0, (ev, r.returncode, r.stderr)
	    assert json.loads(r.stdout) == {}, (ev, r.stdout)
	PY
	"$KTRAJ" export gemini-cli:g-7f3a | python3 -c '
import json, sys
ev = [json.loads(l) for l in sys.stdin][1:]
kinds = [e["kind"] for e in ev]
assert kinds == ["note", "message", "tool_call", "tool_result", "tool_call", "tool_result", "message"], kinds
p = [e["payload"] for e in ev]
assert p[1]["human"] is True and p[1]["text"] == "make softmax.cu faster"
assert p[2]["tool"] == "run_shell_command" and p[2]["args"]["command"].startswith("nvcc")
assert p[3]["ok"] is True and p[3]["call_id"] == p[2]["call_id"] and ev[3]["parent"] == ev[2]["seq"]
assert p[5]["ok"] is False and p[5]["output"] == "File not found"
assert p[6]["role"] == "assistant" and p[6]["text"] == "Done: 2x." and not p[6].get("human")'
}

@test "hook gemini-cli BeforeAgent: a prompt given as parts records their text joined; a prompt without text is refused (exit 1, one line), never an empty message" {
	python3 - "$KTRAJ" <<-'PY'
	import json, subprocess, sys
	k = sys.argv[1]
	def hook(sid, prompt):
	    ev = {"session_id": sid, "transcript_path": "/nope", "cwd": "/tmp",
	          "hook_event_name": "BeforeAgent", "timestamp": "2026-01-02T03:04:05Z"}
	    if prompt is not KeyError:
	        ev["prompt"] = prompt
	    return subprocess.run([k, "hook", "gemini-cli"], capture_output=True,
	                          text=True, input=json.dumps(ev))
	def messages(sid):
	    r = subprocess.run([k, "export", "gemini-cli:" + sid], capture_output=True, text=True)
	    if r.returncode:
	        return None
	    return [json.loads(l)["payload"] for l in r.stdout.splitlines()[1:]
	            if json.loads(l)["kind"] == "message"]
	typed = {
	    "s": "make it faster",
	    "parts": [{"text": "make "}, {"inlineData": {"mimeType": "image/png", "data": "AA=="}}, {"text": "it faster"}],
	    "strs": ["make ", "it faster"],
	    "part": {"text": "make it faster"},
	}
	for sid, prompt in typed.items():
	    r = hook(sid, prompt)
	    assert r.returncode == 0 and json.loads(r.stdout) == {}, (sid, r.returncode, r.stderr)
	    m = messages(sid)
	    assert m == [{"role": "user", "human": True, "text": "make it faster"}], (sid, m)
	for sid, prompt in {"num": 42, "obj": {"role": "user"}, "nulls": [None, 7],
	                    "img": [{"inlineData": {"data": "AA=="}}], "none": KeyError}.items():
	    r = hook(sid, prompt)
	    lines = r.stderr.splitlines()
	    assert r.returncode == 1 and r.stdout == "" and len(lines) == 1 and \
	        lines[0].startswith("ktraj: hook: ") and "no text" in lines[0], (sid, r.returncode, r.stderr)
	    assert messages(sid) is None, sid
	PY
}

@test "hook stdin is capped at 256 MiB: an event of exactly the cap is recorded, one byte more and /dev/zero are refused with one line, holding no more than the cap" {
	local cap=$((256 << 20)) ev='{"hook_event_name":"SessionStart","session_id":"big","source":"startup"}'
	# JSON whitespace pads the event to the byte
	run --separate-stderr sh -c "{ printf '%s' '$ev'; head -c $((cap - ${#ev})) /dev/zero | tr '\\0' ' '; } | '$KTRAJ' hook gemini-cli"
	[ "$status" -eq 0 ]
	[ "$output" = "{}" ]
	"$KTRAJ" export gemini-cli:big >/dev/null
	run --separate-stderr sh -c "{ printf '%s' '$ev'; head -c $((cap - ${#ev} + 1)) /dev/zero | tr '\\0' ' '; } | '$KTRAJ' hook claude-code"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "ktraj: hook: stdin holds more than 256 MiB, the limit of one hook event: not recorded" ]
	# an endless stdin ends, and the peak memory stays near the cap
	if [ -x /usr/bin/time ]; then
		run --separate-stderr /usr/bin/time -f "maxrss %M" -o "$BATS_TEST_TMPDIR/rss" "$KTRAJ" hook gemini-cli </dev/zero
		[ "$status" -eq 1 ]
		[[ "$stderr" == "ktraj: hook: stdin holds more than 256 MiB"* ]]
		cat "$BATS_TEST_TMPDIR/rss"
		[ "$(awk '/maxrss/ {print $2}' "$BATS_TEST_TMPDIR/rss")" -lt $(( (cap >> 10) + 65536 )) ]
	fi
	# nothing else was recorded
	[ "$("$KTRAJ" ls --json | wc -l)" -eq 1 ]
}

@test "hook install gemini-cli writes .gemini/settings.json, keeps the user's keys and hooks, is idempotent" {
	mkdir -p "$PROJ/.gemini"
	printf '{"model":{"name":"gemini-2.5-pro"},"hooks":{"AfterTool":[{"matcher":"write_file","hooks":[{"name":"fmt","type":"command","command":"prettier -w"}]}]},"hooksConfig":{"enabled":true}}\n' >"$PROJ/.gemini/settings.json"
	cd "$PROJ"
	run "$KTRAJ" hook install gemini-cli
	[ "$status" -eq 0 ]
	[ "$output" = ".gemini/settings.json: Gemini CLI sessions are recorded to $KTRAJ_STORE" ]
	cp .gemini/settings.json "$BATS_TEST_TMPDIR/first.json"
	run "$KTRAJ" hook install gemini-cli
	[ "$status" -eq 0 ]
	[[ "$output" == *"already records"* ]]
	cmp .gemini/settings.json "$BATS_TEST_TMPDIR/first.json"
	[ ! -e .claude ]
	python3 - "$KTRAJ_STORE" <<-'PY'
	import json, sys
	s = json.load(open(".gemini/settings.json"))
	assert s["model"] == {"name": "gemini-2.5-pro"} and s["hooksConfig"] == {"enabled": True}
	h = s["hooks"]
	# event names of Gemini CLI's docs/hooks/index.md
	assert sorted(h) == ["AfterAgent", "AfterTool", "BeforeAgent", "SessionEnd", "SessionStart"], sorted(h)
	assert h["AfterTool"][0]["hooks"][0]["command"] == "prettier -w"
	for ev, groups in h.items():
	    ours = [(g, x) for g in groups for x in g["hooks"] if "hook gemini-cli" in x["command"]]
	    assert len(ours) == 1, (ev, groups)
	    g, x = ours[0]
	    assert x["type"] == "command" and x["name"] == "ktraj"
	    assert ("--store '%s'" % sys.argv[1]) in x["command"]
	    assert g.get("matcher") == ("*" if ev == "AfterTool" else None), (ev, g)
	PY
}

@test "hook install gemini-cli refuses a malformed settings file and a non-object hooks, and leaves them" {
	mkdir -p "$PROJ/.gemini"
	cd "$PROJ"
	printf '{"model": {"name": "x"},\n' >.gemini/settings.json
	run "$KTRAJ" hook install gemini-cli
	[ "$status" -eq 1 ]
	[ "$output" = "ktraj: hook: .gemini/settings.json is not a JSON object; not changed" ]
	[ "$(cat .gemini/settings.json)" = '{"model": {"name": "x"},' ]
	printf '{"hooks": []}' >.gemini/settings.json
	run "$KTRAJ" hook install gemini-cli
	[ "$status" -eq 1 ]
	[ "$output" = 'ktraj: hook: .gemini/settings.json: "hooks" is not an object; not changed' ]
	[ "$(cat .gemini/settings.json)" = '{"hooks": []}' ]
	run "$KTRAJ" hook install gemini-cli --bogus
	[ "$status" -eq 2 ]
}

@test "the hooks hook install gemini-cli wrote record a scripted Gemini CLI session" {
	(cd "$PROJ" && "$KTRAJ" hook install gemini-cli >/dev/null)
	# a fake Gemini CLI: every hook the settings give for the event, run
	# through sh from the project with the event's JSON on stdin, a tool
	# matcher a regex ("*" every tool), stdout parsed as JSON
	python3 - "$PROJ" <<-'PY'
	import json, re, subprocess, sys
	proj = sys.argv[1]
	cfg = json.load(open(proj + "/.gemini/settings.json"))
	base = {"session_id": "g-inst", "transcript_path": proj + "/chat.json",
	        "cwd": proj, "timestamp": "2026-01-02T03:04:05Z"}
	turns = [
	    ("SessionStart", {"source": "startup"}),
	    ("BeforeAgent", {"prompt": "tune the kernel"}),
	    ("AfterTool", {"tool_name": "run_shell_command",
	                   "tool_input": {"command": "make bench"},
	                   "tool_response": {"llmContent": "Exit Code: 0"}}),
	    ("AfterAgent", {"prompt": "tune the kernel", "prompt_response": "1.4x"}),
	    ("SessionEnd", {"reason": "exit"}),
	]
	ran = 0
	for ev, fields in turns:
	    payload = dict(base, hook_event_name=ev, **fields)
	    for g in cfg["hooks"].get(ev, []):
	        m = g.get("matcher", "")
	        if ev == "AfterTool" and m not in ("", "*") and not re.fullmatch(m, payload["tool_name"]):
	            continue
	        for h in g["hooks"]:
	            r = subprocess.run(["sh", "-c", h["command"]], cwd=proj, capture_output=True,
	                               input=json.dumps(payload).encode())
	            assert r.returncode == 0, (ev, r.returncode, r.stderr)
	            assert json.loads(r.stdout) == {}, (ev, r.stdout)
	            ran += 1
	assert ran == 5, ran
	PY
	run "$KTRAJ" log gemini-cli:g-inst --json
	[ "$status" -eq 0 ]
	kinds=$(printf '%s\n' "$output" | python3 -c 'import json,sys; print(" ".join(json.loads(l)["kind"] for l in sys.stdin))')
	[ "$kinds" = "note message tool_call tool_result message note" ]
}

@test "hook install AGENT: an unknown agent is named as one, not as an option; nothing written" {
	cd "$PROJ"
	run --separate-stderr "$KTRAJ" hook install bogus
	[ "$status" -eq 2 ]
	[ "$stderr" = "ktraj: hook: install: unknown agent 'bogus' (known: claude-code, gemini-cli or codex) (see \`ktraj hook --help\`)" ]
	[ ! -e .claude/settings.json ] && [ ! -e .gemini/settings.json ]
	run --separate-stderr "$KTRAJ" hook install --bogus
	[ "$status" -eq 2 ]
	[[ "$stderr" == "ktraj: hook: unknown option '--bogus'"* ]]
}
