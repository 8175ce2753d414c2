#!/usr/bin/env bats
# JSON that cJSON takes but RFC 8259 does not (import/jsonstrict.h) is a
# malformed line like any other: "file:line: what" on stderr, exit 0, the
# valid rest imported; --strict stops and keeps nothing.  JSONL lines
# (Claude Code, ktraj), whole-file documents (OpenHands), `ktraj append`.
# Fixtures: tests/data/import/strict (ours).

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	FIX="$BATS_TEST_DIRNAME/../data/import/strict"
}

@test "Claude Code: each kind of non-RFC 8259 line is reported at its line and skipped" {
	run --separate-stderr "$KTRAJ" import "$FIX/claude_bad.jsonl"
	[ "$status" -eq 0 ]
	e="claude_bad.jsonl"
	[[ "$stderr" == *"$e:3: invalid JSON (RFC 8259): data after the JSON value at byte "* ]]
	[[ "$stderr" == *"$e:4: invalid JSON (RFC 8259): raw control character in a string"* ]]
	[[ "$stderr" == *"$e:5: invalid JSON (RFC 8259): number with a leading zero"* ]]
	[[ "$stderr" == *"$e:6: invalid JSON (RFC 8259): number without digits after its decimal point"* ]]
	[[ "$stderr" == *"$e:7: invalid JSON (RFC 8259): number without digits after its decimal point"* ]]
	[[ "$stderr" == *"$e:8: invalid JSON (RFC 8259): raw control character in a string"* ]]
	[[ "$stderr" == *"$e:9: invalid JSON (RFC 8259): byte order mark at byte 0"* ]]
	# lines 1, 2 and 10 are valid (10 has an escaped tab, -0, 0.5e-3, 1E+2)
	[ "$(grep -c 'RFC 8259' <<<"$stderr")" -eq 7 ]
	[[ "$stderr" != *"$e:1:"* && "$stderr" != *"$e:2:"* && "$stderr" != *"$e:10:"* ]]
	[[ "$output" == *" 3 events"*" 3 added"* ]]
	run "$KTRAJ" log "$(echo "$output" | awk '{print $1}')" --json
	[[ "$output" == *"strict hello"* && "$output" == *"escaped \\t tab"* ]]
	[[ "$output" != *"trailing"* && "$output" != *"zero"* ]]
}

@test "--strict: a non-RFC 8259 line stops the import and keeps nothing" {
	run --separate-stderr "$KTRAJ" import --strict "$FIX/claude_bad.jsonl"
	[ "$status" -ne 0 ]
	[[ "$stderr" == *"claude_bad.jsonl:3: invalid JSON (RFC 8259)"* ]]
	run "$KTRAJ" ls --json
	[[ "$output" != *"strict hello"* ]]
}

@test "ktraj JSONL: a byte order mark opening the file is ignored, bad lines reported" {
	run --separate-stderr "$KTRAJ" import "$FIX/ktraj_bom.jsonl"
	[ "$status" -eq 0 ]
	[[ "$output" == *" 1 events"*" 1 added"*"ktraj"* ]]
	[[ "$stderr" != *"ktraj_bom.jsonl:1:"* ]]
	[[ "$stderr" == *"ktraj_bom.jsonl:2: invalid JSON (RFC 8259): raw control character in a string"* ]]
	[[ "$stderr" == *"ktraj_bom.jsonl:3: invalid JSON (RFC 8259): number with a leading zero"* ]]
	[[ "$stderr" == *"ktraj_bom.jsonl:4: invalid JSON (RFC 8259): data after the JSON value"* ]]
}

@test "whole-file JSON: bytes after the document refuse the file, at their line" {
	src="$BATS_TEST_DIRNAME/../data/import/openhands/events.json"
	cp "$src" "$BATS_TEST_TMPDIR/oh.json"
	run "$KTRAJ" import "$BATS_TEST_TMPDIR/oh.json"
	[ "$status" -eq 0 ]
	[[ "$output" == *"openhands"* ]]
	printf '{"x": 1}\n' >>"$BATS_TEST_TMPDIR/oh.json"
	nl=$(wc -l <"$BATS_TEST_TMPDIR/oh.json")
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/t.ktraj"
	run --separate-stderr "$KTRAJ" import --format openhands "$BATS_TEST_TMPDIR/oh.json"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"oh.json:$nl: invalid JSON (RFC 8259): data after the JSON value"*"file skipped"* ]]
	run --separate-stderr "$KTRAJ" import --strict --format openhands "$BATS_TEST_TMPDIR/oh.json"
	[ "$status" -ne 0 ]
	# a raw tab inside a string of a pretty-printed document
	sed 's/"Create a.txt"/"Create\ta.txt"/' "$src" >"$BATS_TEST_TMPDIR/tab.json"
	grep -q "$(printf 'Create\ta')" "$BATS_TEST_TMPDIR/tab.json"
	run --separate-stderr "$KTRAJ" import --format openhands "$BATS_TEST_TMPDIR/tab.json"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"tab.json:"*": invalid JSON (RFC 8259): raw control character in a string"* ]]
}

@test "append: a non-RFC 8259 line is refused with its line number; a leading byte order mark is not" {
	printf '\357\273\277{"kind":"note","payload":{"text":"a"}}\n' |
		"$KTRAJ" append r1 >/dev/null
	run "$KTRAJ" log r1 --json
	[[ "$output" == *'"text":"a"'* ]]
	run --separate-stderr "$KTRAJ" append r1 <<<'{"kind":"note","payload":{"n":00}}'
	[ "$status" -ne 0 ]
	[[ "$stderr" == "ktraj: append: line 1: invalid JSON (RFC 8259): number with a leading zero"* ]]
	run --separate-stderr "$KTRAJ" append r1 < <(printf '{"kind":"note","payload":{"text":"a"}}\n\357\273\277{"kind":"note","payload":{}}\n')
	[ "$status" -ne 0 ]
	[[ "$stderr" == *"line 2: invalid JSON (RFC 8259): byte order mark"* ]]
}

@test "a byte order mark opening a file: detected and imported as without one" {
	for f in claude/s2x.jsonl swe/mini.json codex/streams.jsonl; do
		src="$BATS_TEST_DIRNAME/../data/import/$f"
		b=$(basename "$f")
		mkdir -p "$BATS_TEST_TMPDIR/plain" "$BATS_TEST_TMPDIR/bom"
		cp "$src" "$BATS_TEST_TMPDIR/plain/$b"
		{ printf '\357\273\277'; cat "$src"; } >"$BATS_TEST_TMPDIR/bom/$b"
		want=$(KTRAJ_STORE="$BATS_TEST_TMPDIR/p.ktraj" "$KTRAJ" import --json "$BATS_TEST_TMPDIR/plain/$b" 2>/dev/null |
			python3 -c 'import json,sys; r=json.loads(sys.stdin.readline()); print(r["format"], r["events"])')
		run --separate-stderr "$KTRAJ" import --json "$BATS_TEST_TMPDIR/bom/$b"
		[ "$status" -eq 0 ]
		[[ "$stderr" != *"byte order mark"* && "$stderr" != *"not recognized"* ]]
		got=$(echo "$output" | python3 -c 'import json,sys; r=json.loads(sys.stdin.readline()); print(r["format"], r["events"])')
		[ -n "$want" ] && [ "$got" = "$want" ] || false
	done
}

# \u0000 is valid JSON, but cJSON keeps strings as C strings: the rest of
# the string would be lost without a word, so the line is refused instead
@test "Claude Code: a \\u0000 escape in a string is reported and the line skipped; --strict stops" {
	run --separate-stderr "$KTRAJ" import "$FIX/claude_nul.jsonl"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *'claude_nul.jsonl:1: \u0000 in a string: ktraj keeps strings as C strings and would cut it at byte '*': line skipped'* ]]
	[[ "$stderr" != *"claude_nul.jsonl:2:"* && "$stderr" != *"invalid JSON"* ]]
	[[ "$output" == *" 1 events"*" 1 added"* ]]
	run "$KTRAJ" log "$(echo "$output" | awk '{print $1}')" --json
	[[ "$output" == *"nul kept out"* && "$output" != *"before"* ]]
	run --separate-stderr "$KTRAJ" import --strict "$FIX/claude_nul.jsonl"
	[ "$status" -ne 0 ]
	[[ "$stderr" == *'claude_nul.jsonl:1: \u0000 in a string'* ]]
}

@test "append: a \\u0000 escape in a string is refused (exit 1), nothing appended" {
	run --separate-stderr "$KTRAJ" append e9 <<<'{"kind":"note","payload":{"text":"a\u0000b"}}'
	[ "$status" -eq 1 ]
	[[ "$stderr" == 'ktraj: append: line 1: \u0000 in a string: ktraj keeps strings as C strings and would cut it at byte 35' ]]
	run "$KTRAJ" append e9 <<<'{"kind":"note","payload":{"text":"ab"}}'
	[ "$status" -eq 0 ]
	run "$KTRAJ" log e9 --json
	[[ "$output" == *'"ab"'* && "$output" != *'"a"'* ]]
}

# FlashInfer definition/solution files are pretty-printed documents: a byte
# order mark before the "{" once made the importer read them as JSONL
bom_same() { # FILE alone: format and events as with a BOM before it
	local d="$BATS_TEST_TMPDIR/bom$RANDOM" want got
	mkdir -p "$d/p" "$d/b"
	cp "$1" "$d/p/"
	{ printf '\357\273\277'; cat "$1"; } >"$d/b/$(basename "$1")"
	want=$(KTRAJ_STORE="$d/p.ktraj" "$KTRAJ" import --json "$d/p/$(basename "$1")" 2>/dev/null |
		python3 -c 'import json,sys; r=json.loads(sys.stdin.readline()); print(r["format"], r["events"])')
	run --separate-stderr "$KTRAJ" --store "$d/b.ktraj" import --json "$d/b/$(basename "$1")"
	[ "$status" -eq 0 ]
	got=$(echo "$output" | python3 -c 'import json,sys; r=json.loads(sys.stdin.readline()); print(r["format"], r["events"])')
	echo "want '$want' got '$got'"
	[[ "$want" == "flashinfer "[1-9]* ]] && [ "$got" = "$want" ] || false
}

@test "FlashInfer: a byte order mark opening a definition or solution .json changes nothing" {
	fx="$BATS_TEST_DIRNAME/../data/import/flashinfer/fib"
	bom_same "$fx/definitions/gemm/gemm_fx.json"
	bom_same "$fx/solutions/alice/gemm/gemm_fx/alice_gemm_fx_cuda_r1_c0.json"
	# siblings found from the solution are read with their BOM too
	cp -r "$fx" "$BATS_TEST_TMPDIR/fib"
	s=solutions/alice/gemm/gemm_fx
	for f in definitions/gemm/gemm_fx.json $s/alice_gemm_fx_cuda_r1_c0.json \
		$s/alice_gemm_fx_cuda_r2_c0.json; do
		{ printf '\357\273\277'; cat "$fx/$f"; } >"$BATS_TEST_TMPDIR/fib/$f"
	done
	sol=$s/alice_gemm_fx_cuda_r2_c0.json
	want=$(KTRAJ_STORE="$BATS_TEST_TMPDIR/p2.ktraj" "$KTRAJ" import --json "$fx/$sol" 2>/dev/null |
		python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["events"])')
	got=$(KTRAJ_STORE="$BATS_TEST_TMPDIR/b2.ktraj" "$KTRAJ" import --json "$BATS_TEST_TMPDIR/fib/$sol" 2>/dev/null |
		python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["events"])')
	[ "$want" -gt 1 ] && [ "$got" = "$want" ] || false
}

@test "FlashInfer corpus definition with a byte order mark: 1 event as without" {
	f="${CORPUS:-}/gpu_kernel/flashinfer_trace/definition_gemm_n4096_k4096.json"
	[ -n "${CORPUS:-}" ] && [ -d "$CORPUS" ] || skip "corpus not available"
	[ -f "$f" ] || skip "corpus file missing"
	bom_same "$f"
}

@test "Claude Code: a lone UTF-16 surrogate escape (a Node string cut inside an emoji) keeps its line, with U+FFFD" {
	S="$BATS_TEST_DIRNAME/../data/sample/softmax_session.jsonl"
	python3 - "$S" "$BATS_TEST_TMPDIR/sur.jsonl" <<'PY'
import json,sys
L=open(sys.argv[1]).read().splitlines()
s=json.dumps(json.loads(L[1]),separators=(',',':'))
i=s.index('"text":"')+8
L[1]=s[:i]+'\\ud83d'+s[i:]
open(sys.argv[2],'w').write('\n'.join(L)+'\n')
PY
	run --separate-stderr "$KTRAJ" import --json "$BATS_TEST_TMPDIR/sur.jsonl"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"sur.jsonl:2: unpaired UTF-16 surrogate escape at byte "*": replaced by U+FFFD"* ]]
	# every event of the original is there (the line's tool call too)
	"$KTRAJ" import --json "$S" >/dev/null 2>&1 || true
	"$KTRAJ" ls --json | python3 -c '
import json,sys
r=[json.loads(l) for l in sys.stdin]
assert len(r)==1 and r[0]["events"]==41, r'
	"$KTRAJ" log 3db88dd1 --json | python3 -c '
import json,sys
r=[json.loads(l) for l in sys.stdin]
assert r[1]["text"].startswith("\ufffdLet me look"), r[1]'
}

@test "Claude Code: a line given twice (same uuid, same bytes) is skipped with a warning; lines sharing only a uuid are both read" {
	S="$BATS_TEST_DIRNAME/../data/sample/softmax_session.jsonl"
	awk 'NR==2{print}{print}' "$S" >"$BATS_TEST_TMPDIR/d.jsonl"
	cat "$S" "$S" >"$BATS_TEST_TMPDIR/dd.jsonl"
	for f in d dd; do
		run --separate-stderr env KTRAJ_STORE="$BATS_TEST_TMPDIR/$f.ktraj" "$KTRAJ" import --json "$BATS_TEST_TMPDIR/$f.jsonl"
		[ "$status" -eq 0 ]
		[[ "$stderr" == *"$f.jsonl:3: repeats line 2 (uuid "*"): skipped"* ]] || [ "$f" = dd ]
		echo "$output" | python3 -c '
import json,sys
r=[json.loads(l) for l in sys.stdin]
assert len(r)==1 and r[0]["events"]==41, r'
	done
	[[ "$stderr" == *"dd.jsonl:24: repeats line 1 "* || "$stderr" == *"dd.jsonl:"*": repeats line 1 (uuid"* ]]
	# same uuid, other bytes: read (the corpus edge-case file has one)
	python3 - "$S" "$BATS_TEST_TMPDIR/u.jsonl" <<'PY'
import json,sys
L=open(sys.argv[1]).read().splitlines()
o=json.loads(L[0]); o["message"]["content"]="a second prompt with the same uuid"
L.insert(1,json.dumps(o))
open(sys.argv[2],'w').write('\n'.join(L)+'\n')
PY
	run --separate-stderr env KTRAJ_STORE="$BATS_TEST_TMPDIR/u.ktraj" "$KTRAJ" import --json "$BATS_TEST_TMPDIR/u.jsonl"
	[[ "$stderr" != *"repeats line"* ]]
	echo "$output" | python3 -c '
import json,sys
r=[json.loads(l) for l in sys.stdin]
assert r[0]["events"]==42, r'
}
