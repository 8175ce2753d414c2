#!/usr/bin/env bats
# The edits of OpenHands, SWE-agent, Cline and Aider runs survive a round
# trip through the sts, otlp and atif exports: the import of the export
# derives them again from the calls and results it carries, through the
# code the agent's own import uses (kt_impx_tool_effects: kt_conv_agent_edit
# for Cline and Aider, kt_impx_swe_effects for SWE-agent, kt_impx_oh_edit
# for OpenHands).  Before, every such import lost them (Aider's edit_block,
# Cline's editor, SWE-agent's create/edit/insert came back as no edit at
# all; an OpenHands `> hello.txt` came back as a relative path).
#
# The corpus tests carry labels read from the raw files (which files each
# run changes, and how), and skip without $CORPUS.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	DATA="$BATS_TEST_DIRNAME/../data"
}

# first_run STORE: the run of a store that holds one.
first_run() {
	"$KTRAJ" --store "$1" ls --json |
		python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])'
}

# edits STORE RUN: one line per edit event, "path op", in order.
edits() {
	"$KTRAJ" --store "$1" log "$2" --kind edit --json |
		python3 -c 'import json,sys; [print(r.get("path"), r.get("op")) for r in map(json.loads, sys.stdin)]'
}

# files STORE RUN: for each edited file, its content after the last step
# (a sha) and whether cat has one (a deleted or unknown file has none).
files() {
	local p
	for p in $(edits "$1" "$2" | cut -d' ' -f1 | sort -u); do
		printf '%s %s rc=%s\n' "$p" \
			"$("$KTRAJ" --store "$1" cat "$2" "$p" 2>/dev/null | sha256sum | cut -c1-16)" \
			"$("$KTRAJ" --store "$1" cat "$2" "$p" >/dev/null 2>&1; echo $?)"
	done
}

# roundtrip SRC WANT: import SRC; its edits must be WANT (the labels, one
# "path op" a line); export it as sts, otlp and atif (or the formats of
# $FORMATS), import each into a fresh store: the same edits and the same
# files after the last step.
roundtrip() {
	local src=$1 want=$2 run got f st
	"$KTRAJ" import "$src" >/dev/null 2>&1
	run=$(first_run "$KTRAJ_STORE")
	got=$(edits "$KTRAJ_STORE" "$run")
	echo "original: $got"
	[ "$got" = "$want" ]
	local wfiles
	wfiles=$(files "$KTRAJ_STORE" "$run")
	for f in ${FORMATS:-sts otlp atif}; do
		st="$BATS_TEST_TMPDIR/s_$f"
		"$KTRAJ" export "$run" --format "$f" -o "$BATS_TEST_TMPDIR/x.$f"
		"$KTRAJ" --store "$st" import "$BATS_TEST_TMPDIR/x.$f" >/dev/null
		got=$(edits "$st" "$(first_run "$st")")
		if [ "$got" != "$want" ]; then
			echo "--format $f edits: $got"
			return 1
		fi
		got=$(files "$st" "$(first_run "$st")")
		if [ "$got" != "$wfiles" ]; then
			echo "--format $f files: $got, want $wfiles"
			return 1
		fi
	done
}

# ---- own fixtures: each agent's edit shapes -------------------------------

@test "Aider: SEARCH/REPLACE blocks (edit_block: a new file, then a change of it; a block that failed to match changes nothing) survive sts, otlp and atif" {
	# raw: an empty SEARCH on k.cu (Applied), then two blocks on it of
	# which one failed to match
	roundtrip "$DATA/import/aider/edits.md" "$(printf '%s\n' \
		'k.cu create' 'k.cu modify')"
}

@test "Cline task folder: newFileCreated, editedExistingFile (SEARCH/REPLACE diff) and fileDeleted survive sts, otlp and atif" {
	roundtrip "$DATA/import/cline/tasks/1730000000000/ui_messages.json" \
		"$(printf '%s\n' 'hello.c create' 'hello.c modify' 'hello.c delete')"
}

@test "SWE-agent 0.x: open (whole window), edit S:E ... end_of_edit on the open file survives sts, otlp and atif; an edit SWE-agent reverted changes nothing" {
	# raw: open src/a.py, edit 1:1 (applied), edit 2:2 (syntax error:
	# reverted)
	roundtrip "$DATA/import/swe/v0_demo.traj" '/repo/src/a.py modify'
}

@test "OpenHands: an editor create in translated_ipython_code, a str_replace, and a creation diff in the observation survive sts, otlp and atif" {
	roundtrip "$DATA/import/openhands/events.json" "$(printf '%s\n' \
		'/ws/a.txt create' '/ws/a.txt modify' '/ws/c.txt create' '/ws/d.txt create')"
}

@test "OpenHands: a command's relative path resolves against the working_dir of its observation after the round trip too" {
	cat >"$BATS_TEST_TMPDIR/oh.json" <<'EOF'
[
{"id": 0, "timestamp": "2025-10-10T06:10:15", "source": "user", "message": "make hello.txt", "action": "message", "args": {"content": "make hello.txt"}},
{"id": 1, "timestamp": "2025-10-10T06:10:38", "source": "agent", "message": "Running command", "action": "run", "tool_call_metadata": {"function_name": "execute_bash", "tool_call_id": "c1", "model_response": {"id": "r1"}}, "args": {"command": "printf 'hi\\n' > hello.txt", "cwd": null}},
{"id": 2, "timestamp": "2025-10-10T06:10:39", "source": "agent", "message": "Command executed", "cause": 1, "observation": "run", "content": "", "extras": {"command": "printf 'hi\\n' > hello.txt", "metadata": {"exit_code": 0, "working_dir": "/app"}}}
]
EOF
	roundtrip "$BATS_TEST_TMPDIR/oh.json" '/app/hello.txt create'
	run "$KTRAJ" --store "$BATS_TEST_TMPDIR/s_atif" cat "$(first_run "$BATS_TEST_TMPDIR/s_atif")" /app/hello.txt
	[ "$status" -eq 0 ]
	[ "$output" = "hi" ]
}

@test "Cline SDK: an editor replace on content the run never showed is an edit of unknown result, its hunk kept (sts)" {
	cat >"$BATS_TEST_TMPDIR/cline.sts.jsonl" <<'EOF'
{"type":"session","harness":"ktraj","id":"fx-cline","cwd":"/p","source_format":"cline"}
{"type":"message","message":{"role":"user","timestamp":1748779200000,"content":"rename b"}}
{"type":"message","message":{"role":"assistant","timestamp":1748779201000,"content":"","toolCalls":[{"id":"e1","function":{"name":"editor","arguments":"{\"path\":\"/p/k.cu\",\"old_text\":\"int b;\",\"new_text\":\"int c;\"}"}}]}}
{"type":"message","message":{"role":"tool","timestamp":1748779202000,"toolCallId":"e1","content":"edited /p/k.cu"}}
EOF
	"$KTRAJ" import "$BATS_TEST_TMPDIR/cline.sts.jsonl" >/dev/null
	run=$(first_run "$KTRAJ_STORE")
	run "$KTRAJ" log "$run" --kind edit --json
	[ "$status" -eq 0 ]
	echo "$output"
	echo "$output" | python3 -c '
import json,sys
e=[json.loads(l) for l in sys.stdin]
assert [(r["path"], r["op"]) for r in e] == [("/p/k.cu", "unknown")], e'
	run "$KTRAJ" show "$run" "$("$KTRAJ" log "$run" --kind edit --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["seq"])')" --json
	[[ "$output" == *'"old_string":"int b;"'* ]]
	[[ "$output" == *'"new_string":"int c;"'* ]]
}

# ---- the corpus: labels from the raw files --------------------------------

corpus() {
	[ -n "${CORPUS:-}" ] && [ -e "$CORPUS/$1" ] || skip "no \$CORPUS/$1"
}

@test "corpus Aider afi-core: 13 edits on 12 files (the blocks on files the history shows or creates) survive sts, otlp and atif" {
	corpus aider/afi-core_.aider.chat.history.md
	# raw: 17 '> Applied edit to' lines; the 4 on files whose content the
	# history never shows (validators/PoIValidator.ts,
	# cli_hooks/validator_invoker.ts, dist/schemas/index.d.ts,
	# dist/validators/index.d.ts) give no edit event; dist/index.js is
	# created by an empty SEARCH, then changed once
	roundtrip "$CORPUS/aider/afi-core_.aider.chat.history.md" "$(printf '%s\n' \
		'sync-afi.sh create' 'aider-afi.sh create' \
		'schemas/validator_metadata_schema.ts create' \
		'schemas/validator_governance_schema.ts create' \
		'schemas/signal_finalization_request_schema.ts create' \
		'src/components/ModalSignalReview.tsx create' \
		'schemas/index.ts create' 'validators/SignalScorer.ts create' \
		'dist/index.js create' 'dist/dags/index.js create' \
		'dist/dags/signalProcessingDAG.js create' 'dist/index.js modify' \
		'dist/index.d.ts create')"
}

@test "corpus SWE-agent: the edits of the four .traj runs survive sts, otlp and atif" {
	corpus swe_agent/sweagent_v0_test_repo_i1.traj
	# raw: open tests/missing_colon.py, one edit 4:4 adding the colon
	roundtrip "$CORPUS/swe_agent/sweagent_v0_test_repo_i1.traj" \
		'/klieret__swe-agent-test-repo/tests/missing_colon.py modify'
	rm -rf "$BATS_TEST_TMPDIR"/s*
	# raw (history only): open, then edit {search, replace} adding the colon
	roundtrip "$CORPUS/swe_agent/sweagent_history_only.traj" \
		'/SWE-agent__test-repo/tests/missing_colon.py modify'
	rm -rf "$BATS_TEST_TMPDIR"/s*
	# raw: create exploit.py, edit 1:9, edit 6:7 (in the task's directory)
	local d=/__home__udiboy__projects__LLM_CTF__llm_ctf_automation__LLM_CTF_Dataset_Dev__2016__CSAW-Quals__pwn__WarmUp
	roundtrip "$CORPUS/swe_agent/sweagent_ctf_warmup.traj" "$(printf '%s\n' \
		"$d/exploit.py create" "$d/exploit.py modify" "$d/exploit.py modify")"
	rm -rf "$BATS_TEST_TMPDIR"/s*
	# raw: create reproduce.py, insert into it, `rm reproduce.py` in
	# /testbed; the edit of src/marshmallow/fields.py is on a file only
	# a partial window showed: no edit event (its content is not known)
	roundtrip "$CORPUS/swe_agent/sweagent_v1_marshmallow_fc_replace.traj" \
		"$(printf '%s\n' '/testbed/reproduce.py create' \
			'/testbed/reproduce.py modify' '/testbed/reproduce.py delete')"
}

@test "SWE-agent 1.x: \`rm t.py\` in the run's directory, under a bash call id used before, survives the claude_code export (a cwd, an id of its own)" {
	# raw: str_replace_editor create /r/t.py (call_c), then bash
	# `python t.py` and `rm t.py` both as call_b, working_dir /r
	FORMATS=claude_code roundtrip "$DATA/import/swe/v1_rm_repeated_id.traj" \
		"$(printf '%s\n' '/r/t.py create' '/r/t.py delete')"
	"$KTRAJ" export "$(first_run "$KTRAJ_STORE")" --format claude_code |
		grep -q '"cwd":"/r"'
	run "$KTRAJ" --store "$BATS_TEST_TMPDIR/s_claude_code" cat \
		"$(first_run "$BATS_TEST_TMPDIR/s_claude_code")" /r/t.py
	[ "$status" -eq 4 ]
	[[ "$output" == *"was deleted"* ]]
}

@test "corpus SWE-agent 1.x: reproduce.py's create, insert and \`rm\` (cwd /testbed) survive the claude_code export" {
	corpus swe_agent/sweagent_v1_marshmallow_fc_replace.traj
	FORMATS=claude_code roundtrip "$CORPUS/swe_agent/sweagent_v1_marshmallow_fc_replace.traj" \
		"$(printf '%s\n' '/testbed/reproduce.py create' \
			'/testbed/reproduce.py modify' '/testbed/reproduce.py delete')"
}

@test "corpus OpenHands: hello.txt in /app and the todo app's two files survive sts, otlp and atif" {
	corpus openhands/openhands_2025_10_hello.json
	# raw: one execute_bash `printf ... > hello.txt`, working_dir /app
	roundtrip "$CORPUS/openhands/openhands_2025_10_hello.json" '/app/hello.txt create'
	rm -rf "$BATS_TEST_TMPDIR"/s*
	# raw: two editor creates (translated_ipython_code)
	roundtrip "$CORPUS/openhands/openhands_basic_gui_mode.json" "$(printf '%s\n' \
		'/workspace/todo-app/index.html create' '/workspace/todo-app/app.js create')"
}

@test "corpus Cline SDK: the 4 editor replaces of agent-sidebar.tsx come back as 4 edits of it (of unknown result: the @-mentioned file is not in the export)" {
	corpus cline/cline-sdk_session.json
	local p=/Users/example/dev/cline/apps/examples/desktop-app/webview/components/agent-sidebar.tsx f got
	# raw: 4 tool_use editor {path, old_text, new_text} on that file
	# (the other 4 editor names in the messages file are the tool's
	# definition and prose); its content comes from the `file` block
	"$KTRAJ" import "$CORPUS/cline/cline-sdk_session.json" >/dev/null 2>&1
	run=$(first_run "$KTRAJ_STORE")
	[ "$(edits "$KTRAJ_STORE" "$run")" = "$(printf "$p modify\n%.0s" 1 2 3 4)" ]
	for f in ${FORMATS:-sts otlp atif}; do
		"$KTRAJ" export "$run" --format "$f" -o "$BATS_TEST_TMPDIR/x.$f"
		"$KTRAJ" --store "$BATS_TEST_TMPDIR/s_$f" import "$BATS_TEST_TMPDIR/x.$f" >/dev/null
		got=$(edits "$BATS_TEST_TMPDIR/s_$f" "$(first_run "$BATS_TEST_TMPDIR/s_$f")")
		echo "$f: $got"
		[ "$got" = "$(printf "$p unknown\n%.0s" 1 2 3 4)" ]
	done
}

@test "ATIF: a call with no result (refused, cancelled) or one whose result says it was rejected changes nothing; the call before it that ran does" {
	# raw: printf 'one' > t.txt (a result), printf 'three' > t.txt
	# (Claude Code's rejection text), printf 'two' > t.txt and rm t.txt
	# (no result: an approval refused, a turn aborted), cwd /w
	"$KTRAJ" import "$DATA/import/atif_unanswered.trajectory.json" >/dev/null
	r=$(first_run "$KTRAJ_STORE")
	[ "$(edits "$KTRAJ_STORE" "$r")" = '/w/t.txt create' ]
	run "$KTRAJ" cat "$r" /w/t.txt
	[ "$status" -eq 0 ]
	[ "$output" = one ]
}

@test "corpus Codex escalation and Claude Code edge cases: the atif re-import adds no edit for the calls that never got a result" {
	corpus codex/agenthistory_codex_escalation.jsonl
	corpus claude_code/cclog_edge_cases.jsonl
	# raw: echo > test.txt ran; its printf > test.txt was refused and
	# its rm test.txt cancelled, neither has a result
	FORMATS="atif sts otlp" roundtrip "$CORPUS/codex/agenthistory_codex_escalation.jsonl" \
		'/home/testuser/codex-rejection-project/test.txt create'
	run "$KTRAJ" --store "$BATS_TEST_TMPDIR/s_atif" cat \
		"$(first_run "$BATS_TEST_TMPDIR/s_atif")" /home/testuser/codex-rejection-project/test.txt
	[ "$status" -eq 0 ]
	[ "$output" = "Hello World" ]
	rm -rf "$BATS_TEST_TMPDIR"/s*
	# raw: no tool call of it changes a file (a Write without a result)
	FORMATS="atif sts otlp" roundtrip "$CORPUS/claude_code/cclog_edge_cases.jsonl" ''
}
