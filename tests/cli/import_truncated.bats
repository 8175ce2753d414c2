#!/usr/bin/env bats
# A file cut inside its last JSON value (a log still being written, a
# download cut short) is reported by every importer in the same words
# (kt_imp_json_cut, import/jsonstrict.h):
#   JSONL:      FILE:LINE: truncated: the file ends inside a JSON value: line skipped
#   a document: FILE: truncated: the file ends inside a JSON value: file skipped
# once, and the lines before it are imported.  Under --strict nothing of
# the file is kept, so the message does not say "line skipped": the first
# problem is the one line, exit 1.  Fixtures: tests/data/import/truncated/,
# our own fixtures of each format cut in the middle of their last line
# (JSONL) or of the document.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	D="$BATS_TEST_DIRNAME/../data/import/truncated"
	W='truncated: the file ends inside a JSON value'
}

@test "JSONL (Claude Code, Codex, FlashInfer trace, ktraj): the cut last line is one warning, the rest imported" {
	# flashinfer: a COMPILE_ERROR trace (its build a compile, no bench), a
	# PASSED one (build + bench), an INCORRECT_NUMERICAL one (bench)
	for f in claude.jsonl:claude_code:5:4 codex.jsonl:codex:5:2 flashinfer_trace.jsonl:flashinfer:4:4 ktraj.jsonl:ktraj:3:2; do
		IFS=: read -r file fmt line events <<<"$f"
		export KTRAJ_STORE="$BATS_TEST_TMPDIR/$fmt.ktraj"
		run --separate-stderr "$KTRAJ" import --json --format "$fmt" "$D/$file"
		echo "$fmt: $stderr"
		[ "$status" -eq 0 ]
		[ "$stderr" = "ktraj: import: $D/$file:$line: $W: line skipped" ]
		# the lines before the cut are imported
		got=$(echo "$output" | python3 -c 'import json,sys; print(sum(json.loads(l)["added"] for l in sys.stdin))')
		[ "$got" -eq "$events" ]
	done
}

@test "documents (ATIF, SWE-agent, OpenHands, Inspect, KernelBench, KernelAgent, FlashInfer): one warning, the file skipped" {
	for f in atif.trajectory.json:atif swe.json:swe_agent openhands.json:openhands inspect.json:inspect kernelbench.json:kernelbench kernelagent.json:kernelagent flashinfer_def.json:flashinfer; do
		file=${f%%:*} fmt=${f##*:}
		run --separate-stderr "$KTRAJ" import --format "$fmt" "$D/$file"
		echo "$fmt: $stderr"
		[ "$status" -eq 0 ]
		[ "$stderr" = "ktraj: import: $D/$file: $W: file skipped" ]
		[ -z "$output" ]
	done
	[ -z "$("$KTRAJ" ls --json)" ]
}

@test "--strict: the same words without 'skipped', then nothing of the file kept, exit 1" {
	for f in claude.jsonl:claude_code:5 codex.jsonl:codex:5 flashinfer_trace.jsonl:flashinfer:4 ktraj.jsonl:ktraj:3 \
		atif.trajectory.json:atif:0 swe.json:swe_agent:0 openhands.json:openhands:0 inspect.json:inspect:0 \
		kernelbench.json:kernelbench:0 kernelagent.json:kernelagent:0 flashinfer_def.json:flashinfer:0; do
		IFS=: read -r file fmt line <<<"$f"
		where="$D/$file"
		[ "$line" -eq 0 ] || where="$where:$line"
		run --separate-stderr "$KTRAJ" import --strict --format "$fmt" "$D/$file"
		echo "$fmt: $stderr"
		[ "$status" -eq 1 ]
		[ "$stderr" = "ktraj: import: $where: $W" ]
		[ -z "$output" ]
	done
	[ -z "$("$KTRAJ" ls --json)" ]
}

@test "a line cut in the middle of a file, or one broken at its end, is not called truncated" {
	# the cut line of claude.jsonl followed by another line
	{ cat "$D/claude.jsonl"; printf '\n'; sed -n 2p "$D/claude.jsonl"; } >"$BATS_TEST_TMPDIR/mid.jsonl"
	run --separate-stderr "$KTRAJ" import "$BATS_TEST_TMPDIR/mid.jsonl"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"mid.jsonl:5: invalid JSON (RFC 8259): "*" at byte "*": line skipped"* ]]
	[[ "$stderr" != *"truncated"* ]]
	# a last line that could not be completed into JSON
	{ head -4 "$D/claude.jsonl"; printf '{"type": "user", ]'; } >"$BATS_TEST_TMPDIR/end.jsonl"
	run --separate-stderr "$KTRAJ" import "$BATS_TEST_TMPDIR/end.jsonl"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"end.jsonl:5: invalid JSON (RFC 8259): object key is not a string at byte 17: line skipped"* ]]
	[[ "$stderr" != *"truncated"* ]]
}

@test "a zip (Inspect .eval) cut inside its central directory: one warning, the members read are imported; --strict keeps nothing" {
	# libarchive reads a zip from the front and stops at the central
	# directory without reading it: a cut there read to a clean end
	python3 - "$BATS_TEST_TMPDIR" "$D/ktraj.jsonl" <<'PY'
import sys, zipfile
d, src = sys.argv[1], sys.argv[2]
lines = open(src, encoding="utf-8").read().split("\n")
whole = "\n".join(l for l in lines[:-1]) + "\n"   # the fixture less its cut line
with zipfile.ZipFile(d + "/whole.zip", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("run/events.jsonl", whole)
data = open(d + "/whole.zip", "rb").read()
open(d + "/cut.zip", "wb").write(data[:-10])
PY
	run --separate-stderr "$KTRAJ" import "$BATS_TEST_TMPDIR/whole.zip"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/cut.ktraj"
	run --separate-stderr "$KTRAJ" import --json "$BATS_TEST_TMPDIR/cut.zip"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$stderr" = "ktraj: import: $BATS_TEST_TMPDIR/cut.zip: truncated zip archive: its end of central directory is missing: the members before the cut were read" ]
	[[ "$output" == *'"added":2'* ]]
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/strict.ktraj"
	run --separate-stderr "$KTRAJ" import --strict "$BATS_TEST_TMPDIR/cut.zip"
	[ "$status" -ne 0 ]
	[ "$stderr" = "ktraj: import: $BATS_TEST_TMPDIR/cut.zip: truncated zip archive: its end of central directory is missing" ]
	run "$KTRAJ" ls --json
	[ -z "$output" ]
	# from stdin too
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/stdin.ktraj"
	run --separate-stderr "$KTRAJ" import - <"$BATS_TEST_TMPDIR/cut.zip"
	[ "$status" -eq 0 ]
	[[ "$stderr" == "ktraj: import: -: truncated zip archive"* ]]
}
