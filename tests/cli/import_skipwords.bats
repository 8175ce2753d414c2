#!/usr/bin/env bats
# The same problem in the same words across importers, and what a warning
# says is dropped (": line skipped", ": skipped", ...) left out under
# --strict, where nothing of the file is kept (the driver says so next).
# Fixtures: our own tests/data/import files, changed in the temp dir.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	D="$BATS_TEST_DIRNAME/../data/import"
	T="$BATS_TEST_TMPDIR"
}

@test "a JSONL line that is JSON but not an object: the same words from Claude Code and Codex" {
	{ head -2 "$D/claude/s2x.jsonl"; echo '[1, 2]'; tail -n +3 "$D/claude/s2x.jsonl"; } >"$T/cc.jsonl"
	{ head -2 "$D/codex/workdir.jsonl"; echo '[1, 2]'; tail -n +3 "$D/codex/workdir.jsonl"; } >"$T/cx.jsonl"
	run --separate-stderr "$KTRAJ" import "$T/cc.jsonl" "$T/cx.jsonl"
	[ "$status" -eq 0 ]
	[ "$stderr" = "ktraj: import: $T/cc.jsonl:3: not a JSON object: line skipped
ktraj: import: $T/cx.jsonl:3: not a JSON object: line skipped" ]
	[[ "$output" == *claude_code* && "$output" == *codex* ]]
}

@test "Inspect: a message without a role is ': skipped' like the others; --strict leaves that out" {
	python3 - "$D/inspect/mono_v2.json" "$T/norole.json" <<-'EOF'
	import json, sys
	d = json.load(open(sys.argv[1]))
	del d["samples"][0]["messages"][0]["role"]
	json.dump(d, open(sys.argv[2], "w"), indent=1)
	EOF
	run --separate-stderr "$KTRAJ" import "$T/norole.json"
	[ "$status" -eq 0 ]
	# (the fixture has problems of its own, reported after it)
	[ "${stderr%%$'\n'*}" = "ktraj: import: $T/norole.json: message without a role: skipped" ]
	export KTRAJ_STORE="$T/strict.ktraj"
	run --separate-stderr "$KTRAJ" import --strict "$T/norole.json"
	[ "$status" -eq 1 ]
	[ "$stderr" = "ktraj: import: $T/norole.json: message without a role" ]
}

@test "--strict: only the first problem of a file, without what would be skipped" {
	# Claude Code: invalid UTF-8 on line 3 (repaired, then a user line
	# without a message), a line that is not an object on line 6: without
	# --strict all three, the lines skipped
	{ head -2 "$D/claude/s2x.jsonl"; printf '{"type":"user","x":"\377"}\n'; sed -n 3,4p "$D/claude/s2x.jsonl"; echo '[1]'; } >"$T/two.jsonl"
	run --separate-stderr "$KTRAJ" import "$T/two.jsonl"
	[ "$status" -eq 0 ]
	[ "$stderr" = "ktraj: import: $T/two.jsonl:3: invalid UTF-8 at byte 20: replaced by U+FFFD (said once per file)
ktraj: import: $T/two.jsonl:3: user line: message is not an object: skipped
ktraj: import: $T/two.jsonl:6: not a JSON object: line skipped" ]
	export KTRAJ_STORE="$T/strict.ktraj"
	run --separate-stderr "$KTRAJ" import --strict "$T/two.jsonl"
	[ "$status" -eq 1 ]
	[ "$stderr" = "ktraj: import: $T/two.jsonl:3: invalid UTF-8 at byte 20: replaced by U+FFFD (said once per file)" ]
	[ -z "$("$KTRAJ" ls --json)" ]
}
