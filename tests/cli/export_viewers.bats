#!/usr/bin/env bats
# Viewer conformance: the claude_code, sts and otlp exports hold what the
# viewers people open them in require, as those viewers' parsers and specs
# say (tests/cli/viewers/check_viewers.py cites each: claude-code-log's
# models.py/parser.py, the Hugging Face Hub's session-traces-format.md,
# opentelemetry-proto's trace/common/resource protos and JSON encoding).
# None of the viewers installs offline (no network, no Debian package), so
# the checker encodes their rules; it is first run on each tool's own files
# from the corpus, so a rule that real files break is caught as the
# checker's mistake, not ours.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	CHECK="$BATS_TEST_DIRNAME/viewers/check_viewers.py"
	CORPUS=${CORPUS:-$BATS_TEST_DIRNAME/../../../shared/corpus}
}

@test "viewers: the checker accepts the tools' own files (real Claude Code session, the STS spec's example, a real OTLP export)" {
	[ -d "$CORPUS/claude_code" ] || skip "corpus not present"
	run python3 "$CHECK" claude_code "$CORPUS/claude_code/vsla_cuda_dev_f67ab274.jsonl"
	[ "$status" -eq 0 ] && [ "$output" = "ok 727" ] || false
	run python3 "$CHECK" sts "$CORPUS/sts/hf-spec_example.sts.jsonl"
	[ "$status" -eq 0 ] && [ "$output" = "ok 5" ] || false
	run python3 "$CHECK" otlp "$CORPUS/otel_genai/vs-copilot_sample-4_traces.jsonl"
	[ "$status" -eq 0 ] && [ "$output" = "ok 5" ] || false
}

@test "viewers: the sample session's claude_code, sts and otlp exports conform" {
	"$KTRAJ" import "$BATS_TEST_DIRNAME/../data/sample/softmax_session.jsonl" >/dev/null
	for f in claude_code sts otlp; do
		"$KTRAJ" export 3db88dd1ab522b4e190e8ab88aad55fa --format "$f" -o "$BATS_TEST_TMPDIR/x.$f"
		run python3 "$CHECK" "$f" "$BATS_TEST_TMPDIR/x.$f"
		echo "$f: $output"
		[ "$status" -eq 0 ]
	done
}

@test "viewers: a real Claude Code session (727 lines, sub-agent turns, compaction) exports conformant in all three" {
	f="$CORPUS/claude_code/vsla_cuda_dev_f67ab274.jsonl"
	[ -f "$f" ] || skip "corpus not present"
	"$KTRAJ" import "$f" >/dev/null
	r=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	for x in claude_code sts otlp; do
		"$KTRAJ" export "$r" --format "$x" -o "$BATS_TEST_TMPDIR/r.$x"
		run python3 "$CHECK" "$x" "$BATS_TEST_TMPDIR/r.$x"
		echo "$x: $output"
		[ "$status" -eq 0 ]
	done
}

@test "viewers: the checker is not vacuous: an ISO timestamp in STS, an unknown OTLP key, a user line without a role fail" {
	"$KTRAJ" import "$BATS_TEST_DIRNAME/../data/sample/softmax_session.jsonl" >/dev/null
	R=3db88dd1ab522b4e190e8ab88aad55fa
	"$KTRAJ" export $R --format sts | python3 -c '
import json, sys
ls = [json.loads(l) for l in sys.stdin]
ls[1]["message"]["timestamp"] = "2025-06-01T12:00:37Z"   # what sts.c wrote before
print("\n".join(json.dumps(l) for l in ls))' >"$BATS_TEST_TMPDIR/bad.sts"
	run python3 "$CHECK" sts "$BATS_TEST_TMPDIR/bad.sts"
	[ "$status" -eq 1 ]
	[[ "$output" == "sts: line 2: timestamp not epoch milliseconds"* ]]
	"$KTRAJ" export $R --format otlp | python3 -c '
import json, sys
d = json.load(sys.stdin)
d["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["startTime"] = "0"
print(json.dumps(d))' >"$BATS_TEST_TMPDIR/bad.otlp"
	run python3 "$CHECK" otlp "$BATS_TEST_TMPDIR/bad.otlp"
	[ "$status" -eq 1 ]
	[[ "$output" == *"keys outside the proto: ['startTime']"* ]]
	"$KTRAJ" export $R --format claude_code | python3 -c '
import json, sys
ls = [json.loads(l) for l in sys.stdin]
del ls[0]["message"]["role"]
print("\n".join(json.dumps(l) for l in ls))' >"$BATS_TEST_TMPDIR/bad.cc"
	run python3 "$CHECK" claude_code "$BATS_TEST_TMPDIR/bad.cc"
	[ "$status" -eq 1 ]
	[[ "$output" == "claude_code: line 1: user message role" ]]
}
