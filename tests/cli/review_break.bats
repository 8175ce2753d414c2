#!/usr/bin/env bats
# What a new user trying to break the batched import, the analyzers and
# search found: each test is one of them.

bats_require_minimum_version 1.5.0

SAMPLE="$BATS_TEST_DIRNAME/../data/sample/softmax_session.jsonl"

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
}

@test "search -- -O3: after -- every word is TEXT, so text that starts with - can be searched" {
	"$KTRAJ" import "$SAMPLE" >/dev/null
	run --separate-stderr "$KTRAJ" search -- -O3
	[ "$status" -eq 0 ]
	[[ "$output" == *"nvcc -O3 -arch=sm_90"* ]]
	run --separate-stderr "$KTRAJ" search --kind tool_call -- -O3 -arch=sm_90
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -ge 1 ]
	for l in "${lines[@]}"; do [[ "$l" == *tool_call*"-O3 -arch=sm_90"* ]]; done
	# before --, a word that starts with - is still an option
	run --separate-stderr "$KTRAJ" search -O3
	[ "$status" -eq 2 ]
	[[ "$stderr" == "ktraj: search: unknown option '-O3'"* ]]
}

@test "hook claude-code Stop whose transcript_path is a FIFO, a device or a folder: the hook returns (no text), the agent is not held" {
	# before: fopen of a FIFO with no writer blocked the hook (and the agent
	# waiting on it) for good; /dev/zero was read as one endless line
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	for t in "$BATS_TEST_TMPDIR/fifo" /dev/zero "$BATS_TEST_TMPDIR"; do
		run --separate-stderr timeout 20 "$KTRAJ" hook claude-code <<-EOF2
		{"hook_event_name":"Stop","session_id":"s-fifo","transcript_path":"$t"}
		EOF2
		echo "$t: $status $stderr"
		[ "$status" -eq 0 ]
		[ -z "$output" ]
	done
	# nothing to record: no assistant message came of them
	run "$KTRAJ" log claude-code:s-fifo --kind message
	[ -z "$output" ] || [ "$status" -eq 4 ]
}

@test "atif: a document member named like ktraj's own meta (identity, sources, source, redacted) does not replace it" {
	# before: the document's "identity" and "sources" replaced the ones the
	# import records (FORMAT.md Provenance, read by show --source), and a
	# "redacted" member claimed a redaction that never happened
	cat >"$BATS_TEST_TMPDIR/f.trajectory.json" <<-'JSON'
	{"schema_version": "ATIF-v1.7", "session_id": "forge-1",
	 "agent": {"name": "terminus-2", "version": "2.0"},
	 "identity": "kernelbench:forged", "sources": [{"path": "/etc/passwd"}],
	 "source": "forged.json", "redacted": true, "future_member": 1,
	 "steps": [{"step_id": 1, "source": "user", "message": "hi"}]}
	JSON
	"$KTRAJ" import "$BATS_TEST_TMPDIR/f.trajectory.json" >/dev/null
	run "$KTRAJ" ls --json
	[ "$status" -eq 0 ]
	python3 -c '
import json, sys
m = json.loads(sys.argv[1])["meta"]
assert m["identity"] == "atif:forge-1", m
assert [s["file"] for s in m["sources"]] == [sys.argv[2]], m
assert m["source"] == "f.trajectory.json", m
assert "redacted" not in m, m
assert m["future_member"] == 1, m
' "$output" "$BATS_TEST_TMPDIR/f.trajectory.json"
}
